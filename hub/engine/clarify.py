"""Did the model ask for what is missing? The check behind R_ask on a clarify task's ``ask`` turns.

On an ask turn the user withholds a value the call cannot do without (``Turn.missing`` names the
parameters; a task that names none has them inferred: the arguments of the next turn's calls whose
values the user's answer states and no earlier turn did, else the first such call's unstated ones).
The model's reply on that turn earns R_ask = 1 only when it makes no call **and** one of its
sentences asks for the missing value:

- the sentence asks: it holds a ``?``, or opens with a question word or an auxiliary verb
  (``which``, ``what``, ``could``, ``do``, ...), or requests information (``please provide``,
  ``let me know``, ``tell me``, ``I need``, ...);
- the sentence is not an offer to act (a yes/no question such as ``should I``, ``shall I``, ``do you
  want me to``): asking permission to go ahead is not asking for the value;
- the sentence refers to what is missing, the way people ask for it: a word of the parameter's name
  (``from_account_id`` -> ``account``), its entity kind (the schema's ``x-entity``), a synonym the tool
  declares for it (``x-synonyms`` in the parameter's JSON schema, e.g. ``Field(json_schema_extra={"x-synonyms":
  ["file"]})``), a synonym from the small built-in table ``SYNONYMS`` (``path`` -> ``file``), the words the
  intent itself uses for the value (``Turn.about``: "the comment's text"), or what kind of value it is
  (``VALUE_KINDS``: an amount is asked with "how much", a quantity "how many", a date or time "when" / "what
  day" / "what time", a duration "how long", a person "who", a place "where", a text "what should it say", a
  title or name "what should I call it", a choice among entities or options "which one"), or plainly as "it"
  ("What is it?", "Could you tell me what it is?");
- the sentence is not a closing pleasantry (``anything else``, ``how can I help``);
- the asking sentences do not name three or more other parameters or entity kinds of the offered tools
  (``stuffing``): one question that lists every parameter word is not a question about what is missing.
  Words match case-insensitively, plurals folded (``accounts`` = ``account``).

Examples, for a withheld ``from_account_id`` (``x-entity: account``):

    "Which account should I send it from?"            1  a question naming the account
    "Please tell me the account to debit."            1  a request for the account
    "Done."                                            0  a statement (an invented completion)
    "I can't help with that."                          0  a refusal
    "Anything else I can do?"                          0  a question about something else
    "Should I use your main account?"                  0  an offer to act, not a question for the value
    "I transferred $200 from ACC-0001."                0  a statement
    "Which account, amount, date, memo or card?"       0  names three other parameters: stuffing

The check is deterministic (plain string rules, no model), and ``RewardConfig.clarify_check =
"no_call"`` turns it off (R_ask = 1 for any reply without a call, the paper's reading).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hub.tasks import GTStep, Task

STOP_WORDS = frozenset(
    {
        "id",
        "ids",
        "the",
        "a",
        "an",
        "of",
        "to",
        "from",
        "for",
        "in",
        "on",
        "at",
        "by",
        "with",
        "is",
        "new",
        "old",
        "max",
        "min",
        "and",
        "or",
    }
)
QUESTION_OPENERS = frozenset(
    {
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "where",
        "when",
        "why",
        "how",
        "could",
        "can",
        "would",
        "will",
        "do",
        "does",
        "did",
        "is",
        "are",
        "may",
        "might",
        "have",
        "has",
    }
)
WH_WORDS = frozenset({"what", "which", "who", "whom", "whose", "where", "when", "how"})
REQUESTS = (
    "please provide",
    "please tell",
    "please specify",
    "please share",
    "please give",
    "please confirm",
    "please send me",
    "please let me know",
    "let me know",
    "tell me",
    "provide the",
    "provide me",
    "specify the",
    "i need the",
    "i need to know",
    "i'll need",
    "i will need",
    "i need your",
    "i need a",
    "i need an",
)
OFFERS = (
    "should i",
    "shall i",
    "want me to",
    "would you like me",
    "like me to",
    "do you want me",
    "can i go ahead",
    "may i go ahead",
    "ok to proceed",
    "okay to proceed",
    "is it ok",
    "is it okay",
    "is that ok",
    "is that okay",
)
REFUSALS = ("can't", "cannot", "can not", "unable", "not able", "sorry", "none of my tools", "no tool", "won't")
# Plain-language names users and models use for common parameter words, beyond the parameter's own.
SYNONYMS: dict[str, tuple[str, ...]] = {
    "path": ("file", "folder", "directory", "location"),
    "directory": ("folder", "path", "where"),
    "source": ("file", "path", "origin"),
    "destination": ("target", "where"),
    "amount": ("how much", "sum", "total"),
    "price": ("how much", "cost"),
    "quantity": ("how many", "number of"),
    "count": ("how many", "number of"),
    "date": ("when", "day"),
    "time": ("when",),
    "start": ("when",),
    "end": ("when", "until"),
    "user": ("person", "member", "username", "who"),
    "member": ("person", "user", "who"),
    "contact": ("person", "who"),
    "customer": ("client", "who"),
    "traveller": ("traveler", "passenger", "who"),
    "payee": ("recipient", "who"),
    "message": ("email", "mail"),
    "draft": ("email", "message"),
    "mailbox": ("inbox", "email account"),
    "email": ("address", "mail"),
    "city": ("where", "town", "location"),
    "address": ("where", "location"),
    "place": ("where", "location", "spot"),
    "product": ("item",),
    "item": ("product",),
    "listing": ("item",),
    "itinerary": ("trip",),
    "reservation": ("booking",),
    "booking": ("reservation",),
    "event": ("meeting", "appointment"),
    "meeting": ("call", "event"),
    "issue": ("ticket", "bug"),
    "deal": ("opportunity",),
    "lead": ("prospect",),
    "vehicle": ("car",),
    "expense": ("purchase", "charge"),
    "order": ("purchase",),
    "symbol": ("ticker", "stock"),
    "title": ("name", "subject"),
}
# How people ask for a value by what it is: (kind, the parameter-name words that make a value that kind, the
# phrases that ask for it). A parameter can be of several kinds (``start_date``: a time).
VALUE_KINDS: tuple[tuple[str, frozenset[str], tuple[str, ...]], ...] = (
    (
        "money",
        frozenset("amount price cost total budget limit balance fee salary pay payment spend deposit tip".split()),
        ("how much",),
    ),
    (
        "count",
        frozenset("quantity count qty seats guests people nights copies attendees units items tickets".split()),
        ("how many",),
    ),
    ("rating", frozenset("rating stars star score points grade".split()), ("how many", "rate", "rating", "star")),
    (
        "level",
        frozenset("pressure temperature brightness volume level percent speed psi".split()),
        ("how much", "how high", "how low", "what level", "set it to", "what should it be"),
    ),
    ("duration", frozenset("duration minutes hours length nights".split()), ("how long",)),
    ("frequency", frozenset("freq frequency interval recurrence repeat".split()), ("how often",)),
    (
        "time",
        frozenset(
            "date time start end deadline due expiry expires until day birthday departure arrival check "
            "occurrence when at".split()
        ),
        ("when", "what day", "which day", "what date", "which date", "what time", "what hour"),
    ),
    (
        "person",
        frozenset(
            "user member contact customer assignee owner attendee invitee recipient person employee payee driver "
            "passenger guest author host seller buyer".split()
        ),
        ("who", "whom", "whose"),
    ),
    (
        "place",
        frozenset("address street city location place destination origin room venue airport country zip".split()),
        ("where",),
    ),
    (
        "text",
        frozenset(
            "text content body message comment note notes description memo reason bio caption review reply "
            "response details instructions summary".split()
        ),
        ("say", "write", "put", "what should it read", "message", "wording"),
    ),
    ("topic", frozenset("subject topic agenda".split()), ("about",)),
    (
        "label",
        frozenset("title name label nickname alias headline subject".split()),
        ("call", "called", "name", "named", "titled", "title"),
    ),
    ("choice", frozenset("door seat mode field side type kind category option".split()), ("which one", "which of")),
)
# A question for "it" when the reply names the value no other way ("What is it?", "Can you tell me what it is?").
WHAT_IT_IS = ("what is it", "what it is", "what's it", "what should it be", "what it should be")
# Sentences that close a turn rather than ask for anything ("Anything else I can do for you?").
PLEASANTRIES = (
    "anything else",
    "something else",
    "else i can",
    "else can i",
    "help you with",
    "can i help",
    "may i help",
    "how can i assist",
    "what can i do for you",
)
STUFFING = 3  # other parameters or entity kinds named in the asking sentences that make a question not count
ABOUT_STOP = STOP_WORDS | {"it", "its", "this", "that", "value", "one", "your", "my", "their", "what", "which"}

WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
SENTENCE = re.compile(r"[^.!?\n]+[.!?]*")


def tokens(text: str) -> list[str]:
    """Lower-case words with plurals folded (``accounts`` -> ``account``)."""
    return [_singular(w) for w in WORD.findall(text.lower())]


def _singular(word: str) -> str:
    if len(word) > 3 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


# What is missing ------------------------------------------------------------------------------


def value_in_text(value: Any, text: str) -> bool:
    """Whether a user turn states ``value``: numbers compared as numbers, strings verbatim as a whole word
    (``TODO`` is not stated by ``todo.md``, nor ``ACC-0001`` by ``ACC-00011``)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, float)):
        return any(float(n) == float(value) for n in re.findall(r"-?\d+(?:\.\d+)?", text.replace(",", "")))
    if isinstance(value, str):
        return bool(value) and re.search(rf"(?<!\w){re.escape(value)}(?!\w)", text) is not None
    if isinstance(value, list):
        return bool(value) and all(value_in_text(v, text) for v in value)
    return False


def missing_params(task: Task, turn: int) -> tuple[list[str], bool]:
    """The parameters ask turn ``turn`` withholds, and whether they were inferred (not declared)."""
    declared = task.turns[turn].missing
    if declared:
        return list(declared), False
    said = " ".join(t.user for t in task.turns[: turn + 1])
    later = next((t for t in task.turns[turn + 1 :] if t.calls), None)
    if later is None or turn + 1 >= len(task.turns):
        return [], True
    answer = task.turns[turn + 1].user
    args = [(p, v) for s in later.calls for p, v in s.arguments.items()]
    given = [p for p, v in args if value_in_text(v, answer) and not value_in_text(v, said)]
    if not given:  # the answer does not state it verbatim: the first call's unstated arguments
        given = [p for p, v in later.calls[0].arguments.items() if not value_in_text(v, said)]
    return list(dict.fromkeys(given)), True


def withheld_step(task: Task, turn: int, param: str) -> GTStep | None:
    """The later ground-truth call that needs the withheld ``param``: the first whose value for it no
    user turn up to ``turn`` states (else the first that takes it at all)."""
    said = " ".join(t.user for t in task.turns[: turn + 1])
    steps = [s for t in task.turns[turn + 1 :] for s in t.calls if param in s.arguments]
    return next((s for s in steps if not value_in_text(s.arguments[param], said)), steps[0] if steps else None)


def _property(task: Task, turn: int, param: str, schemas: Mapping[str, Mapping[str, Any]]) -> Mapping[str, Any]:
    """The JSON schema of ``param`` on the call that needs it (else on any offered tool that takes it)."""
    step = withheld_step(task, turn, param)
    names = [step.name] if step is not None else []
    names += [n for n, sch in schemas.items() if param in sch.get("properties", {})]
    for name in names:
        prop = schemas.get(name, {}).get("properties", {}).get(param)
        if prop is not None:
            return prop
    return {}


def words_for(param: str, prop: Mapping[str, Any]) -> list[tuple[str, ...]]:
    """The phrases that refer to ``param``: its name's words, its entity kind, declared and built-in synonyms."""
    base = [w for w in tokens(param.replace("_", " ")) if w not in STOP_WORDS]
    entity = prop.get("x-entity")
    if isinstance(entity, str):
        base += [w for w in tokens(entity.replace("_", " ")) if w not in STOP_WORDS]
    phrases: set[tuple[str, ...]] = {(w,) for w in base}
    declared = prop.get("x-synonyms") or []
    for s in [*declared, *(s for w in base for s in SYNONYMS.get(w, ()))]:
        if isinstance(s, str) and tokens(s):
            phrases.add(tuple(tokens(s)))
    return sorted(phrases)


def value_kinds(param: str, prop: Mapping[str, Any]) -> list[str]:
    """What kinds of value ``param`` holds (``VALUE_KINDS``' names, plus ``amount`` for a number of no other kind
    and ``choice`` for an enum or an entity), in ``VALUE_KINDS``' order: ``start_date`` -> ["time"]."""
    words = {*param.lower().split("_"), *tokens(param.replace("_", " "))}  # as written and singular
    kinds = {kind for kind, triggers, _ in VALUE_KINDS if words & triggers}
    branches = [b for b in prop.get("anyOf") or [prop] if isinstance(b, Mapping)]
    if {b.get("format") for b in branches} & {"date", "date-time", "time"}:
        kinds.add("time")
    if {b.get("type") for b in branches} & {"integer", "number"} and not kinds:
        kinds.add("amount")
    if any(b.get("enum") for b in branches) or prop.get("x-entity") or param.endswith("_id"):
        kinds.add("choice")
    return [k for k in (*(kind for kind, _, _ in VALUE_KINDS), "amount") if k in kinds]


def value_phrases(param: str, prop: Mapping[str, Any]) -> list[tuple[str, ...]]:
    """How people ask for ``param`` by what kind of value it is (``VALUE_KINDS``): ``amount`` -> "how much"; and
    the bare "what is it" any single value may be asked with."""
    kinds = value_kinds(param, prop)
    phrases = [p for kind, _, asks in VALUE_KINDS if kind in kinds for p in asks] + list(WHAT_IT_IS)
    if "amount" in kinds:
        phrases += ["how much", "how many", "what number", "what value"]
    branches = [b for b in prop.get("anyOf") or [prop] if isinstance(b, Mapping)]
    phrases += [str(e).replace("_", " ") for b in branches for e in b.get("enum") or []]
    return sorted({tuple(tokens(p)) for p in phrases if tokens(p)})


def about_phrases(about: str) -> list[tuple[str, ...]]:
    """The words an intent uses for a withheld value ("how long the meeting runs"): its opening wh-phrase, if any,
    and each of its content words."""
    toks = [w.removesuffix("'s") for w in tokens(about)]
    toks = toks[1:] if toks[:1] == ["the"] else toks  # "the how often": a wh-phrase all the same
    phrases: set[tuple[str, ...]] = {(w,) for w in toks if w not in ABOUT_STOP | WH_WORDS and len(w) > 2}
    if toks and toks[0] in WH_WORDS:  # a bare "how" or "what" would let any question pass
        n = {"how": 2, "what": 3, "which": 2}.get(toks[0], 1)
        phrases.add(tuple(toks[:n]))
    return sorted(phrases)


def question_words(task: Task, turn: int, schemas: Mapping[str, Mapping[str, Any]]) -> dict[str, list[tuple[str, ...]]]:
    """Per withheld parameter of ask turn ``turn``: every phrase a question for it may use."""
    params, _ = missing_params(task, turn)
    about = task.turns[turn].about
    out = {}
    for p in params:
        prop = _property(task, turn, p, schemas)
        phrases = {*words_for(p, prop), *value_phrases(p, prop), *about_phrases(about.get(p, ""))}
        out[p] = sorted(phrases)
    return out


def other_words(
    schemas: Mapping[str, Mapping[str, Any]], wanted: Mapping[str, Sequence[tuple[str, ...]]]
) -> dict[tuple[str, ...], str]:
    """The offered tools' other parameters and entity kinds, by the phrase that names each (``start_time`` ->
    "start time"), without the withheld parameters' own phrases: what a stuffed question lists."""
    own = {p for phrases in wanted.values() for p in phrases}
    out: dict[tuple[str, ...], str] = {}
    for schema in schemas.values():
        for param, prop in (schema.get("properties") or {}).items():
            if param in wanted or not isinstance(prop, Mapping):
                continue
            name = tuple(w for w in tokens(param.replace("_", " ")) if w not in STOP_WORDS)
            entity = prop.get("x-entity")
            kinds = [tuple(tokens(entity.replace("_", " ")))] if isinstance(entity, str) else []
            for phrase in (name, *kinds):
                if phrase and phrase not in own:
                    out.setdefault(phrase, param)
    return out


# The reply -----------------------------------------------------------------------------------


def sentences(text: str) -> list[str]:
    return [s.strip() for s in SENTENCE.findall(text) if s.strip()]


def is_asking(sentence: str) -> bool:
    low = sentence.lower()
    words = WORD.findall(low)
    return "?" in sentence or bool(words and words[0] in QUESTION_OPENERS) or any(r in low for r in REQUESTS)


def is_offer(sentence: str) -> bool:
    """A yes/no question about going ahead (``Should I use your main account?``); a wh-question
    (``Which account should I use?``) asks for the value, so it is never an offer."""
    low = sentence.lower()
    words = WORD.findall(low)
    return not (words and words[0] in WH_WORDS) and any(o in low for o in OFFERS)


def refers_to(sentence: str, phrases: Iterable[tuple[str, ...]]) -> bool:
    toks = tokens(sentence)
    return any(_contains(toks, p) for p in phrases)


def _contains(toks: Sequence[str], phrase: tuple[str, ...]) -> bool:
    n = len(phrase)
    return any(tuple(toks[i : i + n]) == phrase for i in range(len(toks) - n + 1))


@dataclass
class AskVerdict:
    asked: bool
    reason: str


def judge_reply(
    text: str, wanted: Mapping[str, Sequence[tuple[str, ...]]], others: Mapping[tuple[str, ...], str] | None = None
) -> AskVerdict:
    """Whether ``text`` (the model's reply on an ask turn) asks for one of ``wanted`` (per withheld parameter, the
    phrases that refer to it); ``others`` (``other_words``) are the phrases of everything else offered, which a
    question may name only a couple of."""
    if not text.strip():
        return AskVerdict(False, "no reply on the ask turn")
    if not wanted:
        return AskVerdict(
            False, "the task names nothing missing and none can be inferred; give the ask turn a 'missing' list"
        )
    parts = sentences(text)
    asking = [s for s in parts if is_asking(s)]
    stuffed = named(" ".join(asking), others or {})
    if len(stuffed) >= STUFFING:
        listed = ", ".join(" ".join(p) for p in stuffed[:6])
        return AskVerdict(False, f"the question names {len(stuffed)} other parameters ({listed}): keyword stuffing")
    for s in asking:
        if is_offer(s) or is_pleasantry(s):
            continue
        for param, phrases in wanted.items():
            if refers_to(s, phrases):
                return AskVerdict(True, f"asked for {param}: {_clip(s)!r}")
    names = ", ".join(" ".join(p) for ps in wanted.values() for p in ps[:4])
    if any(is_offer(s) for s in asking):
        return AskVerdict(False, f"offered to act instead of asking for {', '.join(wanted)}")
    if asking:
        return AskVerdict(False, f"the question does not refer to what is missing ({names})")
    low = text.lower()
    if any(r in low for r in REFUSALS):
        return AskVerdict(False, "a refusal, not a question")
    return AskVerdict(False, "a statement, not a question")


def is_pleasantry(sentence: str) -> bool:
    low = " ".join(WORD.findall(sentence.lower()))
    return any(p in low for p in PLEASANTRIES)


def named(text: str, others: Mapping[tuple[str, ...], str]) -> list[tuple[str, ...]]:
    """The phrases of ``others`` that ``text`` names, one per parameter or entity kind."""
    toks = tokens(text)
    seen: set[str] = set()
    out = []
    for phrase, owner in others.items():
        if owner not in seen and _contains(toks, phrase):
            seen.add(owner)
            out.append(phrase)
    return out


def _clip(text: str, n: int = 80) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"
