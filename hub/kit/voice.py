"""The persona's voice: how one person writes the turn an intent phrased, and how they answer a question.

Personas differ in more than tone. A style sets how a person writes: ``terse`` (clipped, no pleasantries),
``plain``, ``chatty`` (greets and thanks now and then), ``sloppy`` (lower case, a typo or two) or
``indirect`` (requests wrapped in a hedge). Greetings and thank-yous come at a low, style-dependent rate;
a self-introduction only where an intent says the person must say who they are (its ``{me}`` opener),
folded into the request in the persona's way. Only the words around the values change: every slot value
(a name, an amount, a quoted title) is filled in verbatim after the style has had its say.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any, Literal

Style = Literal["terse", "plain", "chatty", "sloppy", "indirect"]
STYLES: tuple[tuple[Style, float], ...] = (
    ("terse", 0.25),
    ("plain", 0.25),
    ("chatty", 0.2),
    ("sloppy", 0.15),
    ("indirect", 0.15),
)
PIECE = re.compile(r"(\{\w+\}|\[|\])")  # what a style never touches in a phrasing: slots and optional marks
OPENER = re.compile(
    r"^(?:(?:Hi|Hey|Hello)[,!.]? )?(?:(?P<said>I'm|I am|This is|It's|it's|i'm) )?\{(?P<slot>\w+)\}(?P<here> here)?"
    r"(?P<sep>[.:;,!]\s*|\s+and\s+|\s+-\s+|\s*(?=[\[{A-Z])|\s+)"
)
WHO_SLOTS = ("me", "who", "name", "n", "h")  # slots that hold the speaker where the words around say so
SAYING_SLOTS = ("me", "hi", "who")  # slots whose value is the whole introduction ("I'm Ana Ruiz: ") or nothing
SAID_WHO = re.compile(r"^(?:I'm|I am|This is|It's|it's|i'm) (.+)$")
RELATIVE_DAY = re.compile(
    r"\b(today|tonight|tomorrow|yesterday|this week(end)?|next week|last week|(this|last|next) "
    r"(monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b",
    re.I,
)

GREET_RATE = {"terse": 0.0, "plain": 0.03, "chatty": 0.2, "sloppy": 0.03, "indirect": 0.05}
CLOSE_RATE = {"terse": 0.0, "plain": 0.02, "chatty": 0.15, "sloppy": 0.03, "indirect": 0.08}
OPENER_RATE = {"terse": 0.05, "plain": 0.15, "chatty": 0.25, "sloppy": 0.1, "indirect": 0.1}
DATE_RATE = 0.25
AGAIN_KEEP = 0.2  # "Still me." on a later turn: mostly left out, the assistant knows who is talking

GREETINGS: dict[Style, tuple[str, ...]] = {
    "terse": ("",),
    "plain": ("Hi. ", "Hello. "),
    "chatty": ("Hi! ", "Hey there! ", "Morning! ", "Hello! ", "Hi, hope your day's going well. "),
    "sloppy": ("hey ", "hi "),
    "indirect": ("Hello. ", "Hi, sorry to bother you. "),
}
CLOSERS: dict[Style, tuple[str, ...]] = {
    "terse": ("",),
    "plain": (" Thanks.",),
    "chatty": (" Thanks so much!", " You're a star.", " Appreciate it!", " Cheers!"),
    "sloppy": (" thx", " ty"),
    "indirect": (" Thanks in advance.", " Thank you, no rush.", " Much appreciated."),
}
OPENERS = ("I'm {who}. ", "{who} here. ", "This is {who}. ")
SLOPPY_OPENERS = ("im {who}. ", "{who} here. ", "this is {who} ")
TRAILERS: dict[Style, tuple[str, ...]] = {
    "terse": (" — {who}", " ({who})", " Name: {who}."),
    "plain": (" I'm {who}.", " My name is {who}.", " I should be in your system as {who}.", " Name's {who}."),
    "chatty": (" I'm {who}, by the way!", " Oh, and I'm {who}.", " You'll have me down as {who}."),
    "sloppy": (" im {who} btw", " - {who}", " (its {who})"),
    "indirect": (" My name is {who}, in case you need it.", " It should be under {who}.", " I'm {who}, if that helps."),
}
DATE_ASIDES = (" (It's {today} today.)", " For reference, today is {today}.", " (Today being {today}.)")
TYPOS = {
    "please": "pls",
    "you": "u",
    "the": "teh",
    "your": "ur",
    "because": "bc",
    "tomorrow": "tmrw",
    "what's": "whats",
    "I'm": "im",
    "don't": "dont",
    "can't": "cant",
    "it's": "its",
    "I": "i",
    "want": "wnat",
    "with": "wiht",
    "about": "abotu",
    "know": "knwo",
    "really": "realy",
    "anything": "anythin",
}
Rule = tuple[str, str | Callable[[re.Match[str]], str]]
HABITS: dict[str, tuple[Rule, ...]] = {
    "could": ((r"\bCan you\b", "Could you"), (r"\bcan you\b", "could you")),
    "would": ((r"\bCan you\b", "Would you"), (r"\bcan you\b", "would you")),
    "formal": (
        (r"\bI'm\b", "I am"),
        (r"\b([Ww])hat's\b", r"\1hat is"),
        (r"\bdon't\b", "do not"),
        (r"\bcan't\b", "cannot"),
        (r"\bI'd\b", "I would"),
        (r"\b([Ii])t's\b", r"\1t is"),
        (r"\b([Tt])here's\b", r"\1here is"),
    ),
    "please_last": ((r"^Please ([^.!?]+)([.!]?)$", r"\1, please\2"),),
    "want": ((r"\bI'd like\b", "I want"), (r"\bI would like\b", "I want")),
    "let_me_see": ((r"^Show me\b", "Let me see"), (r"\bshow me\b", "let me see")),
    "pull_up": ((r"^Show me\b", "Pull up"), (r"^(Can|Could) you show me\b", r"\1 you pull up")),
    "so": ((r"^(What|Which|How|Who|When|Where|Is|Are|Do|Does|Did|Any)\b", lambda m: "So, " + m[1].lower()),),
    "okay": ((r"^(Now|Also|And|Then)\b,? ", "Okay, "),),
    "need": ((r"^I want\b", "I need"), (r"^I'd like\b", "I need")),
    "like_to_see": ((r"^Show me\b", "I'd like to see"),),
    "get_me": ((r"^Give me\b", "Get me"), (r"^Pull up\b", "Get me")),
    "let_me_know": ((r"^Tell me\b", "Let me know"),),
    "just": ((r"^(Can|Could|Would) you (?!just\b)", r"\1 you just "),),
    "for_me": ((r"^(Can|Could|Would) you ((?:(?!for me)[^?.!])+)\?$", r"\1 you \2 for me?"),),
    "quickly": ((r"^(Can|Could|Would) you (?!just\b|quickly\b)", r"\1 you quickly "),),
}
# Turns of phrase a person has one of at most: they say the same thing differently.
CLASHES = (
    ("could", "would"),
    ("let_me_see", "pull_up", "like_to_see", "get_me"),
    ("want", "need"),
    ("just", "quickly"),
)
FOLLOW_HABITS = ("so", "okay")
IMPERATIVE = re.compile(r"^(?:Can|Could|Would|Will) you (?:please )?(?=[a-z])")
APOSTROPHE = re.compile(r"\b([A-Za-z]+)'(s|m|t|re|ll|d|ve)\b")
ASKS = re.compile(r"^(Can|Could|Would) you ")
QUESTION = re.compile(r"^(What|Which|How|Who|When|Where|Is|Are|Do|Does|Did|Has|Have|Any)\b")
HEDGES_ASK = ("Any chance you could ", "Would you be able to ", "I was wondering if you could ", "Could you maybe ")
HEDGES_QUESTION = (
    "I was wondering: ",
    "Could you check something for me? ",
    "I'd like to know: ",
    "Sorry if it's obvious, but ",
)
# How a person moves on to the next request in a chat: an acknowledgement of the answer, or a word that
# chains the requests. Sentence-style ones leave the request's first word alone; the others run into it.
CARRY_RATE = {"terse": 0.3, "plain": 0.4, "chatty": 0.6, "sloppy": 0.45, "indirect": 0.5}
CARRY_SENTENCE: dict[Style, tuple[str, ...]] = {
    "terse": ("ok. ", "next: ", "got it. ", "fine. ", "right. "),
    "plain": ("Okay. ", "Got it. ", "Good. ", "One more thing: ", "Another thing: ", "Right. ", "Noted. ", "Next: "),
    "chatty": (
        "Perfect! ",
        "Great, that helps! ",
        "Oh nice. ",
        "Awesome. ",
        "Ooh, one more thing: ",
        "Brilliant. ",
        "Lovely, that's useful. ",
        "Oh good. ",
        "Amazing. ",
        "Super helpful. ",
    ),
    "sloppy": ("ok ", "k. ", "cool. ", "nice. ", "ok cool. ", "oh one more: ", "got it. "),
    "indirect": (
        "I see. ",
        "That makes sense. ",
        "Sorry, one more thing: ",
        "If it's no trouble, one more thing: ",
        "Understood. ",
        "Thank you for checking. ",
    ),
}
CARRY_ASK: dict[Style, tuple[str, ...]] = {
    "terse": ("and ", "also "),
    "plain": ("Also, ", "And ", "Okay, and "),
    "chatty": ("Oh, and ", "Also, ", "Ooh, and "),
    "sloppy": ("also ", "oh and ", "ok and ", "and "),
    "indirect": ("Also, ", "And I was wondering, "),
}
CARRY_ORDER: dict[Style, tuple[str, ...]] = {
    "terse": ("also ", "and ", "now ", "then "),
    "plain": ("Also, ", "Next, ", "And ", "Now ", "Then "),
    "chatty": ("Oh, and ", "While I have you, ", "Also, ", "And while you're at it, "),
    "sloppy": ("also ", "oh and ", "ok and ", "k now ", "and "),
    "indirect": ("Also, if possible, ", "While you're at it, ", "If you don't mind, "),
}
CHAINED = re.compile(
    r"^(?:also|and|now|then|okay|ok|k|so|next|oh|one more|another|while|great|perfect|right|good|fine|cool|nice|"
    r"thanks|thank you|never mind|actually|wait|hmm|oops|sorry|lovely|awesome|got it|noted|understood|i see|"
    r"by the way|btw|plus|besides|anyway)\b",
    re.I,
)
RUNS_ON = re.compile(
    r"^(?:What|Which|How|Who|When|Where|Why|Is|Are|Do|Does|Did|Has|Have|Any|Can|Could|Would|Will|Show|Tell|List|"
    r"Put|Set|Add|Make|Send|Give|Find|Check|Look|Pull|Cancel|Move|Change|Book|Let|Please|Read|Get|Mark|Turn|Switch|"
    r"Lock|Keep|Remind|Draft|Share|Post|Update|Create|Delete|Remove|Open|Close|Start|Stop|Pay|Transfer|Order|"
    r"Reply|Forward|Invite|Schedule|Log|Note|Knock|Go|Take|Copy|Rename|Write|Save|Search|Pop)\b"
)
HEDGES_ORDER = ("When you get a moment, ", "If it's not too much trouble, ", "If you could, ", "Hoping you can help. ")


def _lead_ins() -> re.Pattern[str]:
    leads = {
        lead.strip().rstrip(".!:,").lower()
        for table in (CARRY_SENTENCE, CARRY_ASK, CARRY_ORDER)
        for style in table.values()
        for lead in style
    }
    words = "|".join(sorted(map(re.escape, leads), key=len, reverse=True))
    return re.compile(rf"^(?:(?:{words})[.!:,]?\s+)+", re.I)


# The lead-ins ``carry_on`` adds, for measures that must not count them as phrasing of their own.
LEAD_IN = _lead_ins()


def draw_style(rng: random.Random) -> Style:
    return rng.choices([s for s, _ in STYLES], [w for _, w in STYLES])[0]


def draw_habits(rng: random.Random) -> tuple[str, ...]:
    """A person's turns of phrase ("could you" for "can you", "please" at the end): none to three, kept all dialogue."""
    names = sorted(HABITS)
    picked = rng.sample(names, rng.choice((0, 1, 1, 2, 2, 3)))
    kept: list[str] = []
    for h in picked:  # the first picked of a group of alternatives wins
        if not any(h in group and set(group) & set(kept) for group in CLASHES):
            kept.append(h)
    return tuple(sorted(kept))


def habitual(phrasing: str, habits: tuple[str, ...], opening: bool = False) -> str:
    """The phrasing in the person's own turns of phrase: the anchored ones on the whole phrasing (a slot moves
    with its words), the others on the words between slots. A dialogue does not open with "So, ..."."""
    rules = [rule for name in habits if not (opening and name in FOLLOW_HABITS) for rule in HABITS[name]]
    for pattern, repl in (r for r in rules if r[0].startswith("^")):
        phrasing = re.sub(pattern, repl, phrasing, count=1)
    parts = PIECE.split(phrasing)
    for i, part in enumerate(parts):
        if not PIECE.fullmatch(part):
            for pattern, repl in (r for r in rules if not r[0].startswith("^")):
                part = re.sub(pattern, repl, part, count=1)
            parts[i] = part
    return "".join(parts)


def split_intro(phrasing: str, slots: dict[str, Any]) -> tuple[str | None, str]:
    """Who the person says they are (None when the phrasing opens with no ``{me}`` introduction, or the
    intent left it empty because an earlier turn said it), and the phrasing without that opener."""
    m = OPENER.match(phrasing)
    if m is None or m["slot"] not in slots:
        return None, phrasing
    value = str(slots[m["slot"]]).strip().rstrip(".,;:! ")
    rest = phrasing[m.end() :]
    if m["said"] or m["here"]:
        return (value or None, rest) if m["slot"] in WHO_SLOTS else (None, phrasing)
    if m["slot"] not in SAYING_SLOTS or not value:
        return None, phrasing
    found = SAID_WHO.match(value)
    if found:
        return found.group(1), rest
    if value.endswith(" here"):
        return value.removesuffix(" here"), rest
    if m["sep"].strip() and (m["slot"] == "me" or not named(value)):
        return value, rest  # "{me}: ..." with the name alone, or "Still me."
    return None, phrasing  # a follow-up's "Also," in the opener's place


def named(who: str) -> bool:
    """Whether ``who`` names someone ("Ana Ruiz", "@ana") rather than pointing back ("Still me")."""
    return who.startswith("@") or any(ch.isupper() or ch.isdigit() for ch in who[1:])


def styled(phrasing: str, style: Style, rng: random.Random, opening: bool = True) -> str:
    """The phrasing as a person of ``style`` writes it (an indirect person hedges the request that opens the
    dialogue); slots and ``[...]`` marks are left alone."""
    if style == "terse":
        phrasing = re.sub(r"^Please ", "", re.sub(r",? please(?=[.!?]?$)", "", phrasing))
        phrasing = _lower_first(_imperative(phrasing)).rstrip(".!")
    elif style == "sloppy":
        phrasing = _typos(_lower_first(_words(phrasing, APOSTROPHE, r"\1\2")), rng).rstrip(".!")
    elif style == "indirect" and opening and phrasing[:1].isupper() and not phrasing.startswith("So, "):
        phrasing = _hedge(phrasing, rng)
    return phrasing


def _imperative(phrasing: str) -> str:
    """ "Can you switch the plug on?" -> "switch the plug on": a terse person just says what to do."""
    asked = IMPERATIVE.match(phrasing)
    if asked is None or not re.fullmatch(r"[^.!?]+\?", phrasing[asked.end() :]):
        return phrasing
    return phrasing[asked.end() :].rstrip("?")


def _words(phrasing: str, pattern: re.Pattern[str], repl: str) -> str:
    """``pattern`` replaced in the words between the slots."""
    parts = PIECE.split(phrasing)
    return "".join(p if PIECE.fullmatch(p) else pattern.sub(repl, p) for p in parts)


def _lower_first(phrasing: str) -> str:
    if phrasing[:1].isupper() and not phrasing.startswith(("I ", "I'm ", "I'd ", "I've ", "I'll ")):
        return phrasing[:1].lower() + phrasing[1:]
    return phrasing


def _typos(phrasing: str, rng: random.Random) -> str:
    """One or two everyday misspellings, in the words around the slots."""
    parts = PIECE.split(phrasing)
    spots = [
        (i, m.start(), m.group(0))
        for i, part in enumerate(parts)
        if not PIECE.fullmatch(part)
        for m in re.finditer(r"[A-Za-z']+", part)
        if m.group(0) in TYPOS
    ]
    for i, start, word in sorted(rng.sample(spots, min(len(spots), rng.choice((0, 1, 1, 2)))), reverse=True):
        parts[i] = parts[i][:start] + TYPOS[word] + parts[i][start + len(word) :]
    return "".join(parts)


def _hedge(phrasing: str, rng: random.Random) -> str:
    if ASKS.match(phrasing):
        return ASKS.sub(rng.choice(HEDGES_ASK), phrasing, count=1)
    if phrasing.startswith("Please "):
        return rng.choice(HEDGES_ASK) + phrasing[len("Please ") :]
    hedge = rng.choice(HEDGES_QUESTION if QUESTION.match(phrasing) else HEDGES_ORDER)
    return hedge + (phrasing if hedge.endswith(("? ", ". ")) else _lower_first(phrasing))


def introduce(body: str, who: str, style: Style, rng: random.Random) -> str:
    """``body`` with the person saying who they are: an opener now and then, else folded in after the request."""
    if not named(who):
        return f"{who}. {_upper(body, style)}" if rng.random() < AGAIN_KEEP else body
    if rng.random() < OPENER_RATE[style]:
        return rng.choice(SLOPPY_OPENERS if style == "sloppy" else OPENERS).format(who=who) + _upper(body, style)
    options = [t for t in TRAILERS[style] if "(" not in who or "(" not in t]
    trailer = rng.choice(options).format(who=who)
    if trailer.startswith(" ") and trailer[1:2].isupper() and body[-1:].isalnum():
        body += "."
    return body + trailer


def carry_on(body: str, style: Style, rng: random.Random) -> str:
    """A follow-up request as a person chains it to the last answer ("Got it. ...", "Also, ..."), at the
    style's rate; one that already opens with such a word is left alone."""
    if not body or CHAINED.match(body) or rng.random() >= CARRY_RATE[style]:
        return body
    lowered = style in ("terse", "sloppy")
    runs_on = lowered or RUNS_ON.match(body) is not None
    asks = QUESTION.match(body[:1].upper() + body[1:]) is not None or ASKS.match(body) is not None
    lead = rng.choice(CARRY_SENTENCE[style] + ((CARRY_ASK if asks else CARRY_ORDER)[style] if runs_on else ()))
    if lead.endswith((". ", "! ", ": ")) or lowered:
        return lead + body
    return lead + _lower_first(body)


def _upper(body: str, style: Style) -> str:
    return body if style == "sloppy" else body[:1].upper() + body[1:]


def dress(body: str, style: Style, rng: random.Random, opening: bool, today: str | None) -> str:
    """A greeting, a date aside (only beside a relative day), a thank-you: each at the style's rate."""
    if opening and rng.random() < GREET_RATE[style]:
        body = rng.choice(GREETINGS[style]) + (body if style == "sloppy" else body[:1].upper() + body[1:])
    if opening and today and RELATIVE_DAY.search(body) and rng.random() < DATE_RATE:
        body = _sentence(body) + rng.choice(DATE_ASIDES).format(today=today)
    if rng.random() < CLOSE_RATE[style] * (1.0 if opening else 0.5):
        closer = rng.choice(CLOSERS[style])
        body = (_sentence(body) if closer[1:2].isupper() else body) + closer
    return body


def _sentence(body: str) -> str:
    return body + "." if body[-1:].isalnum() or body[-1:] in "'\")" else body
