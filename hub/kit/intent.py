"""Intents: what a person wants from a server, written as a small program run on a live fork.

An intent is a function of a ``Scene``, registered on its server (``@payments.intent(covers=...)``,
so ``server.intents`` is the one registry tests loop over). Run on a fork of one world, it

1. picks its entities with queries on the live state (``s.pick``: a seeded choice among *all* rows
   that fit, never the first ones);
2. says what the user wants (``s.say``), in several phrasings, in the persona's voice, naming
   things as the user knows them (names, dates, amounts, last digits) and proving each
   description picks out exactly one entity at that point of the dialogue (``s.refer``);
3. runs the calls a competent agent would make, discovery reads included (``s.call``), live, so
   later calls and follow-up turns use what really came back.

    @payments.intent(covers=("search_customers", "list_invoices", "pay_invoice"))
    def settle_open_invoice(s: Scene) -> None:
        inv = s.pick("SELECT i.*, c.name AS customer FROM invoices i JOIN customers c USING (customer_id) "
                     "WHERE i.status = 'open' AND i.amount_paid = 0")
        what = s.refer(inv["invoice_id"],
                       Ref("{c}'s open invoice", "SELECT invoice_id FROM invoices i JOIN customers c "
                           "USING (customer_id) WHERE c.name = ? AND i.status = 'open'", inv["customer"]),
                       Ref("{c}'s open invoice for {d}", "... AND i.description = ?", inv["customer"], ...))
        s.say("{who} is settling {what} today.", minimal=["{who} wants to pay up."], who=..., what=what)
        found = s.call("search_customers", query=inv["customer"])
        ...

Failures are typed: ``Skip`` (this state does not fit: no entity, an ambiguous description; the
pipeline tries another draw) and ``IntentError`` (the intent is wrong: a ground-truth call failed,
an undeclared tool was called, a ``Given`` names an optional parameter; tests hold it to zero).
"""

from __future__ import annotations

import json
import random
import re
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any, Literal

from hub.kit.answers import reply
from hub.kit.phrasings import Said, spoken
from hub.kit.provenance import Evidence, Source, origins

if TYPE_CHECKING:
    from hub.kit import EntityId
from hub.kit.voice import Style, carry_on, draw_habits, draw_style, dress, habitual, introduce, split_intro, styled

Level = Literal["complete", "missing", "minimal"]
Tone = Literal["terse", "chatty"]
MAX_CALLS = 5
MAX_TURNS = 3
SLOT = re.compile(r"\{(\w+)\}")
OPTIONAL = re.compile(r"\[([^\[\]]*)\]")
# "{Show me|Pull up} the order", "{ ({why})|}": one of the words, drawn per turn (a word may hold slots)
CHOICE = re.compile(r"\{((?:[^{}]|\{\w+\})*\|(?:[^{}]|\{\w+\})*)\}")


class Skip(Exception):
    """This state does not fit the intent (no entity qualifies, a description stays ambiguous)."""


class IntentError(Exception):
    """The intent itself is wrong: a ground-truth call failed, or a declaration does not hold."""


# Personas and natural references -------------------------------------------------------------

FIRST = (
    "Maya",
    "Dana",
    "Omar",
    "Priya",
    "Lucas",
    "Sofia",
    "Chen",
    "Amara",
    "Jonas",
    "Elena",
    "Kofi",
    "Hana",
    "Mateo",
    "Ines",
    "Ravi",
    "Noor",
    "Tomas",
    "Yuki",
    "Grace",
    "Felix",
    "Leila",
    "Sam",
    "Aisha",
    "Nico",
)
LAST = (
    "Okafor",
    "Lindqvist",
    "Haddad",
    "Moreau",
    "Tanaka",
    "Silva",
    "Novak",
    "Brennan",
    "Kowalski",
    "Mensah",
    "Alvarez",
    "Schmidt",
    "Nair",
    "Dubois",
    "Park",
    "Rossi",
    "Ibrahim",
    "Walsh",
    "Costa",
    "Weber",
)


@dataclass(frozen=True)
class Persona:
    """Who is talking: a name, a tone (terse or chatty) and a style of writing (``hub.kit.voice``)."""

    name: str
    tone: Tone
    style: Style = "plain"
    habits: tuple[str, ...] = ()  # turns of phrase (``hub.kit.voice.HABITS``)

    @property
    def first(self) -> str:
        return self.name.split(" ", 1)[0]


def random_persona(rng: random.Random, name: str | None = None) -> Persona:
    voice = random.Random(rng.random())  # one draw of ``rng``, whatever the voice needs: the scene's draws stay put
    style = draw_style(voice)
    tone: Tone = "terse" if style in ("terse", "sloppy") else "chatty"
    return Persona(name or f"{rng.choice(FIRST)} {rng.choice(LAST)}", tone, style, draw_habits(voice))


CURRENCY_SIGNS = {"USD": "$", "EUR": "€", "GBP": "£"}


def money(amount: float, currency: str = "USD") -> str:
    """``money(1250.5, 'EUR')`` -> ``'€1,250.50'``: how a person writes an amount."""
    sign = CURRENCY_SIGNS.get(currency)
    body = f"{amount:,.2f}"
    return f"{sign}{body}" if sign else f"{body} {currency}"


def last_digits(value: str, n: int = 3) -> str:
    """The trailing digits a person reads off a receipt: ``last_digits('INV-00417')`` -> ``'417'``."""
    digits = re.sub(r"\D", "", value)
    return digits[-n:]


def day(value: str | date | datetime, now: datetime) -> str:
    """A date as a person says it relative to ``now``: 'today', 'yesterday', 'last Tuesday', 'on May 3'."""
    d = (
        value
        if isinstance(value, date) and not isinstance(value, datetime)
        else (value.date() if isinstance(value, datetime) else datetime.fromisoformat(value).date())
    )
    delta = (now.date() - d).days
    if delta == 0:
        return "today"
    if delta == 1:
        return "yesterday"
    if delta == -1:
        return "tomorrow"
    if 2 <= delta <= 6:
        return f"last {d.strftime('%A')}"
    if -6 <= delta <= -2:
        return f"this {d.strftime('%A')}"
    text = f"{d.strftime('%B')} {d.day}"
    return f"on {text}" if d.year == now.year else f"on {text}, {d.year}"


def clock(value: str | datetime) -> str:
    """'14:30' -> '2:30 pm'."""
    t = value if isinstance(value, datetime) else datetime.fromisoformat(value)
    hour = t.hour % 12 or 12
    mins = f":{t.minute:02d}" if t.minute else ""
    return f"{hour}{mins} {'am' if t.hour < 12 else 'pm'}"


# Declarations the scene records ----------------------------------------------------------------


@dataclass(frozen=True)
class Ref:
    """One way to describe an entity: the words, and the query that proves what they pick out.

    The query's first column is the entity's key; it must return exactly the target."""

    text: str
    sql: str
    params: tuple[Any, ...] = ()

    def __init__(self, text: str, sql: str, *params: Any) -> None:
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "sql", sql)
        object.__setattr__(self, "params", params)


def row_ref(text: str, table: str, key: str, row: dict[str, Any], columns: Sequence[str] = ()) -> Ref:
    """A description of ``row`` proven by ``columns`` alone (by default, the columns its slots name):
    ``row_ref("{name} in {city}", "restaurants", "restaurant_id", r)``."""
    columns = columns or list(dict.fromkeys(SLOT.findall(text)))
    condition = " AND ".join(f"{c} = ?" for c in columns)
    return Ref(text, f"SELECT {key} FROM {table} WHERE {condition}", *(row[c] for c in columns))


@dataclass
class Given:
    """A value only the user knows (a new invoice's amount, a message's text): it is what a clarify
    task may withhold. ``tool.param`` must be a required parameter without a default. ``name`` is the
    intent's short word for it ("amount"), ``about`` its words for what the value is ("how much to bid"),
    which a clarifying question may use (default: "the {name}")."""

    value: Any
    text: str
    name: str
    tool: str
    param: str
    about: str = ""

    def __post_init__(self) -> None:
        self.about = self.about or f"the {self.name}"

    def __str__(self) -> str:
        return self.text


@dataclass
class Proof:
    """A uniqueness proof: ``sql`` returned exactly ``target`` at this point of the dialogue."""

    text: str
    sql: str
    params: list[Any]
    target: Any
    turn: int


@dataclass
class CallRecord:
    tool: str
    arguments: dict[str, Any]
    result: Any
    kind: str
    turn: int
    sources: dict[str, Source | None] = field(default_factory=dict)
    """Per argument, where its value comes from (``hub.kit.provenance``; None: ungrounded)."""


@dataclass
class TurnDraft:
    """One user turn: the phrasing chosen, its slots, and the calls that answer it."""

    phrasing: str
    slots: dict[str, Any]
    level: str
    calls: list[CallRecord] = field(default_factory=list)
    answer: list[Any] = field(default_factory=list)  # what the reply to this turn must tell the user (``tell``)

    @property
    def text(self) -> str:
        """The turn as the intent phrased it (before the persona's voice)."""
        return fill(self.phrasing, self.slots)

    def givens(self) -> list[tuple[str, Given]]:
        return [(k, v) for k, v in self.slots.items() if isinstance(v, Given) and "{" + k + "}" in self.phrasing]


# The scene: what an intent sees ----------------------------------------------------------------

CallFn = Callable[[str, dict[str, Any]], tuple[bool, Any, str | None]]


class Scene:
    """The live fork of one server in one world, the dialogue so far, and the rng of this draw.

    ``level`` is the opening turn's information level: ``complete`` (every value a call needs that
    the user knows), ``minimal`` (only the goal; the rest must be discovered) or ``missing`` (a
    clarify task: one ``Given`` of the opening turn is withheld until the assistant asks)."""

    def __init__(
        self,
        server: Any,
        db: sqlite3.Connection,
        call: CallFn,
        rng: random.Random,
        *,
        level: Level = "complete",
        persona: Persona | None = None,
        now: datetime,
        world: int = 0,
        max_turns: int = MAX_TURNS,
    ) -> None:
        self.server = server
        self.db = db
        self._call = call
        self.rng = rng
        self.level = level
        self.persona = persona or random_persona(rng)
        self.now = now
        self.world = world
        self.turns: list[TurnDraft] = []
        self.proofs: list[Proof] = []
        self.memory: dict[str, Any] = {}  # what earlier intents of this dialogue left for follow-ups
        self.intent: Intent | None = None
        self.intents: list[str] = []
        self.speaker: str | None = None  # the entity the persona became (``be``), kept by follow-ups
        self.max_turns = max_turns  # the dialogue's bound (a clarify draft leaves one turn for the ask)

    # Reading the state (read-only) -----------------------------------------------------------

    def rows(self, sql: str, *params: Any) -> list[dict[str, Any]]:
        """All rows of a read-only query on the live fork, as dicts."""
        cols, found = self._query(sql, params)
        return [dict(zip(cols, r)) for r in found]

    def _query(self, sql: str, params: tuple[Any, ...]) -> tuple[list[str], list[tuple[Any, ...]]]:
        """The column names and the rows (tuples: a draw turns only the row it picks into a dict)."""
        head = sql.lstrip().split(None, 1)[0].upper() if sql.strip() else ""
        if head not in ("SELECT", "WITH"):
            raise IntentError(f"scene queries are read-only SELECTs, got {sql[:40]!r}")
        self.db.execute("PRAGMA query_only = ON")
        try:
            cur = self.db.execute(sql, params)
            return [c[0] for c in cur.description], cur.fetchall()
        except sqlite3.Error as exc:
            raise IntentError(f"query failed ({exc}): {sql[:120]}") from None
        finally:
            self.db.execute("PRAGMA query_only = OFF")

    def pick(self, sql: str, *params: Any) -> dict[str, Any]:
        """One row, drawn by the scene's rng among all rows the query returns; ``Skip`` when none."""
        cols, found = self._query(sql, params)
        if not found:
            raise Skip(f"no row fits: {sql[:80]}")
        return dict(zip(cols, self.rng.choice(found)))

    def sample(self, sql: str, k: int, *params: Any) -> list[dict[str, Any]]:
        """``k`` distinct rows drawn by the rng (``Skip`` when fewer fit)."""
        cols, found = self._query(sql, params)
        if len(found) < k:
            raise Skip(f"fewer than {k} rows fit: {sql[:80]}")
        return [dict(zip(cols, r)) for r in self.rng.sample(found, k)]

    def value(self, sql: str, *params: Any) -> Any:
        """The first column of the first row (None when no row)."""
        found = self._query(sql, params)[1]
        return found[0][0] if found else None

    def refer(self, target: Any, *refs: Ref, **slots: Any) -> str:
        """The first description (least detail first) whose query picks out exactly ``target`` now.

        Each ``Ref``'s text is formatted with ``slots``; the proof is recorded on the task. No
        description is unique: ``Skip`` (the pipeline draws another entity)."""
        for ref in refs:
            keys = [r[0] for r in self._query(ref.sql, ref.params)[1]]
            if keys == [target]:
                text = ref.text.format(**slots)
                self.proofs.append(Proof(text, ref.sql, list(ref.params), target, len(self.turns)))
                return text
        raise Skip(f"no description picks out {target!r} alone")

    def named(self, row: dict[str, Any], table: str, key: str, *texts: str) -> str:
        """``row`` (of ``table``, keyed by ``key``) in the first of ``texts`` that picks it out alone, each
        text naming it by the columns its slots name (``"{name}"``, ``"{name} in {city}"``); see ``refer``."""
        refs = [row_ref(text, table, key, row) for text in texts]
        slots = {c: row[c] for text in texts for c in SLOT.findall(text)}
        return self.refer(row[key], *refs, **slots)

    # The dialogue ----------------------------------------------------------------------------

    def given(self, value: Any, text: str, name: str, tool: str, param: str, about: str = "") -> Given:
        """Declare a value only the user knows (see ``Given``); checked against the tool's schema."""
        spec = self.server.tools.get(tool)
        if spec is None:
            raise IntentError(f"given(): {self.server.name} has no tool {tool!r}")
        props = spec.input_schema.get("properties", {})
        if param not in spec.required or "default" in props.get(param, {}):
            raise IntentError(f"given(): {tool}.{param} is not a required parameter without a default")
        return Given(value, text, name, tool, param, about)

    def say(self, *phrasings: Said, minimal: Sequence[str] = (), **slots: Any) -> None:
        """Start a user turn. One phrasing is drawn; on a ``minimal`` opening turn, one of ``minimal``; then one
        word of each ``{a|b}`` choice in it ("{Show me|Pull up} the order{| again}"). A phrasing may be a
        section of the server's catalog (``WORDS.put_in_basket``: ``hub.kit.phrasings``), with its own minimal ones.

        ``{slot}`` is filled from ``slots``; a ``[...]`` segment is dropped when a slot in it is
        withheld (a clarify task), so phrasings stay grammatical without the value."""
        opening = not self.turns
        lines, minimal = spoken(phrasings, minimal)
        options = minimal if opening and self.level == "minimal" and minimal else lines
        if not options:
            raise IntentError("say() needs at least one phrasing")
        phrasing = chosen(self.rng.choice(options), self.rng)
        missing = [k for k in SLOT.findall(phrasing) if k not in slots]
        if missing:
            raise IntentError(f"say(): no value for slot(s) {missing} in {phrasing!r}")
        level = self.level if opening else "complete"
        self.turns.append(TurnDraft(phrasing, dict(slots), level))

    def call(self, tool: str, **arguments: Any) -> Any:
        """Run a ground-truth call live; its result. A failing call is an ``IntentError``.

        Each argument's origin is recorded (``hub.kit.provenance``). On a write, an optional argument no turn
        and no earlier result grounds (a note or a reason nobody gave) is left out: an agent could not send it,
        so the ground truth does not either (unless the call cannot do without it)."""
        if not self.turns:
            raise IntentError("call() before say(): every call answers a user turn")
        spec = self.server.tools.get(tool)
        if spec is None:
            raise IntentError(f"{self.server.name} has no tool {tool!r}")
        if self.intent is not None and tool not in self.intent.covers:
            raise IntentError(f"intent {self.intent.name} calls {tool}, which it does not declare in covers=")
        args = {k: (v.value if isinstance(v, Given) else v) for k, v in arguments.items()}
        sources = origins(args, spec.input_schema, spec.kind, self.evidence())
        lean = {k: v for k, v in args.items() if not self._unfounded(spec, k, sources)}
        ok, result, error = self._call(tool, lean)
        if not ok and lean != args:
            lean = args
            ok, result, error = self._call(tool, args)
        if not ok:
            raise IntentError(f"{self.intent.name if self.intent else '?'}: {tool}({args}) failed: {error}")
        kept = {k: sources[k] for k in lean}
        self.turns[-1].calls.append(CallRecord(tool, lean, result, spec.kind, len(self.turns) - 1, kept))
        return result

    @staticmethod
    def _unfounded(spec: Any, key: str, sources: dict[str, Source | None]) -> bool:
        props = spec.input_schema.get("properties", {})
        return (
            spec.kind == "write"
            and sources.get(key) is None
            and key not in spec.required
            and not props.get(key, {}).get("x-entity")
        )

    def evidence(self) -> Evidence:
        """What the next call's values may come from: the turns so far, the results so far, now, the tools' docs."""
        return Evidence([t.text for t in self.turns], [c.result for c in self.calls], self.now, docs(self.server))

    def tell(self, *values: Any) -> None:
        """Declare what the reply to the current turn must tell the user (a balance, names, a date); by default a
        reading turn's answer is taken from its last result."""
        if not self.turns:
            raise IntentError("tell() before say()")
        self.turns[-1].answer.extend(values)

    def choose(
        self, rows: Sequence[dict[str, Any]], key: Callable[[dict[str, Any]], Any], *, none: str, alike: str
    ) -> dict[str, Any]:
        """One of ``rows`` (what a call listed), drawn by the rng, that the user can tell apart from the others by
        ``key``: ``Skip`` with ``none`` when there is no row, with ``alike`` when another row has the same key."""
        if not rows:
            raise Skip(none)
        row = self.rng.choice(rows)
        if sum(key(r) == key(row) for r in rows) > 1:
            raise Skip(alike)
        return row

    def known(self, key: str, skip: str) -> Any:
        """What an earlier turn left in ``memory[key]`` (the entity the dialogue is about); ``Skip(skip)`` when
        none did."""
        found = self.memory.get(key)
        if not found:
            raise Skip(skip)
        return found

    def recall(self, key: str, field: str, sql: str, *params: Any, who: str) -> dict[str, Any] | None:
        """The entity an earlier turn of the dialogue left in ``memory[key]``, read again now: the first row of
        ``sql``, whose first placeholder takes its ``field``, then ``params``. ``None`` when no turn left one;
        ``Skip`` when it no longer fits (a follow-up never changes who talks or what it is about)."""
        known = self.memory.get(key)
        if not known:
            return None
        found = self.rows(sql, known[field], *params)
        if not found:
            raise Skip(f"the {who} of the earlier turn does not fit")
        return found[0]

    def find(
        self, tool: str, listed: str, key: str, value: Any, /, *, missing: str, **arguments: Any
    ) -> dict[str, Any]:
        """Run a discovery read and return the first row of its ``listed`` list whose ``key`` is ``value``, e.g.
        ``s.find("search_users", "users", "user_id", "USR-0012", missing="not found", query="Ana Ruiz")``;
        ``Skip`` with ``missing`` when the page does not hold it. When an earlier call of the dialogue (the same
        read with the same arguments) already listed it, the agent knows it: no call is made again."""
        for row in self._known(tool, listed, key, value, arguments):
            return row
        for row in self.call(tool, **arguments)[listed]:
            if row[key] == value:
                return row  # type: ignore[no-any-return]
        raise Skip(missing)

    def discover(self, entity: type[EntityId], value: Any, /, *, missing: str, **arguments: Any) -> dict[str, Any]:
        """``find`` by the entity type's own finder, table and key, e.g.
        ``s.discover(CardId, "CRD-0042", missing="not listed", account_id="ACC-0107")``."""
        e = entity.entity
        return self.find(e.finder, e.table, e.key, value, missing=missing, **arguments)

    def _known(self, tool: str, listed: str, key: str, value: Any, arguments: dict[str, Any]) -> list[dict[str, Any]]:
        args = {k: (v.value if isinstance(v, Given) else v) for k, v in arguments.items()}
        for c in self.calls:
            if c.tool == tool and c.kind == "read" and c.arguments == args and isinstance(c.result, dict):
                rows = [r for r in c.result.get(listed) or () if isinstance(r, dict) and r.get(key) == value]
                if rows:
                    return rows[:1]
        return []

    @property
    def calls(self) -> Iterator[CallRecord]:
        return (c for t in self.turns for c in t.calls)

    @property
    def minimal(self) -> bool:
        """True while the opening turn states only the goal (the agent must discover the rest)."""
        return self.level == "minimal" and len(self.turns) <= 1

    def room(self, calls: int = 1, turns: int = 1) -> bool:
        """Whether the dialogue can take ``calls`` more calls over ``turns`` more turns (a task has at most
        ``MAX_CALLS`` calls and ``max_turns`` turns, fewer than ``MAX_TURNS`` in a clarify draft, whose ask turn
        comes on top): ask before an optional follow-up."""
        return sum(1 for _ in self.calls) + calls <= MAX_CALLS and len(self.turns) + turns <= self.max_turns

    def asked(self, tool: str, **arguments: Any) -> None:
        """``Skip`` a follow-up whose call (``tool`` with these arguments) the dialogue already made:
        an agent would answer from what it has."""
        if any(c.tool == tool and all(c.arguments.get(k) == v for k, v in arguments.items()) for c in self.calls):
            raise Skip(f"{tool} already ran on that")

    def by_chance(self, chance: float, calls: int = 1) -> bool:
        """Whether an intent adds a next turn of its own (with ``calls`` calls): only where the dialogue has room,
        and then at ``chance`` (the rng is not drawn when there is no room)."""
        return self.room(calls, 1) and self.rng.random() < chance

    def then(self, chance: float, phrasings: Sequence[str], tool: str, **arguments: Any) -> bool:
        """An optional next turn: ``by_chance``, one of ``phrasings`` and the call
        (``s.then(0.6, ("What's my total now?",), "view_cart", customer_id=cid)``); whether it was made."""
        if not self.by_chance(chance):
            return False
        self.say(*phrasings)
        self.call(tool, **arguments)
        return True

    def it(self, key: str, named: str) -> str:
        """How the user points at what the dialogue is about (``memory[key]``): "it" while nothing else was listed
        since they named it, else ``named`` filled from it (``'the "{title}" one'``), which names it again."""
        known = self.memory[key]
        if known.get("named", True):
            return "it"
        self.memory[key] = {**known, "named": True}  # a new dict: a rolled-back follow-up restores the old one
        return named.format(**known)

    def listed_others(self, key: str) -> None:
        """After a listing of other entities, "it" no longer points at ``memory[key]``: ``it`` names it next time."""
        known = self.memory.get(key)
        if known:
            self.memory[key] = {**known, "named": False}

    def be(self, name: str) -> None:
        """Make the persona an entity of the state (a workspace member, an account holder), keeping the tone.
        ``Skip`` in a follow-up that would make someone else talk than the earlier turns did."""
        if len(self.intents) > 1 and self.speaker != name:
            raise Skip("a follow-up never changes who talks")
        self.speaker = name
        self.persona = replace(self.persona, name=name)

    def today(self) -> str:
        return f"{self.now.strftime('%A')}, {self.now.strftime('%B')} {self.now.day}"


_DOCS: dict[int, tuple[Any, str]] = {}


def docs(server: Any) -> str:
    """What the agent reads about a server's tools: their descriptions and argument schemas."""
    found = _DOCS.get(id(server))
    if found is None or found[0] is not server:
        text = " ".join(f"{t.description} {json.dumps(t.input_schema)}" for t in server.tools.values())
        found = _DOCS[id(server)] = (server, text)
    return str(found[1])


# Rendering -------------------------------------------------------------------------------------


def _text(value: Any) -> str:
    if isinstance(value, Given):
        return value.text
    return str(value)


def chosen(phrasing: str, rng: random.Random) -> str:
    """The phrasing with each ``{a|b|c}`` choice resolved to one of its words (an empty one leaves nothing):
    the ways a person says the same request, written once."""
    drawn = CHOICE.sub(lambda m: rng.choice(m.group(1).split("|")), phrasing)
    if "|" in drawn or re.search(r"[{}]", SLOT.sub("", drawn)):
        raise IntentError(f"a choice in {phrasing!r} is not closed (or holds a choice in a choice)")
    return drawn


def fill(phrasing: str, slots: dict[str, Any], withheld: str | None = None) -> str:
    """A phrasing with its slots filled; ``[...]`` segments that hold ``withheld`` are dropped
    (and other brackets kept without the brackets)."""

    def segment(m: re.Match[str]) -> str:
        inner = m.group(1)
        return "" if withheld is not None and "{" + withheld + "}" in inner else inner

    text = OPTIONAL.sub(segment, phrasing)
    if withheld is not None and "{" + withheld + "}" in text:
        raise IntentError(f"slot {withheld!r} cannot be withheld from {phrasing!r}: put it in a [...] segment")
    text = SLOT.sub(lambda m: _text(slots[m.group(1)]), text)
    return re.sub(r"\s+([,.?!])", r"\1", re.sub(r"\s{2,}", " ", text)).strip()


def speak(
    turn: TurnDraft,
    persona: Persona,
    rng: random.Random,
    opening: bool,
    withheld: str | None = None,
    today: str | None = None,
) -> str:
    """A turn as the persona writes it: the style applied around the slots, the values filled in verbatim,
    a self-introduction folded in where the intent opens with ``{me}``, and pleasantries at the style's rate."""
    who, phrasing = split_intro(turn.phrasing, turn.slots)
    body = fill(styled(habitual(phrasing, persona.habits, opening), persona.style, rng, opening), turn.slots, withheld)
    if persona.style not in ("terse", "sloppy"):
        body = body[:1].upper() + body[1:]
    if who:
        body = introduce(body, who, persona.style, rng)
    elif not opening:
        body = carry_on(body, persona.style, rng)
    return dress(body, persona.style, rng, opening, today)


def answer(given: Given, rng: random.Random, persona: Persona | None = None) -> str:
    """The user's reply when the assistant asks for a withheld value: a form that fits the value's kind."""
    return reply(given.text, given.name, rng, persona.style if persona else "plain")


# Registration ----------------------------------------------------------------------------------


@dataclass
class Intent:
    """A registered intent: its program, the tools it may call, and how often to draw it."""

    server: str
    name: str
    fn: Callable[[Scene], None]
    covers: tuple[str, ...]
    weight: float = 1.0
    follows: bool = False  # it can continue a dialogue (reads ``s.memory`` from an earlier intent)
    description: str = ""
    opens: bool = True  # it can open a dialogue (False: a follow-up only, e.g. "and what else do they owe?")

    def run(self, scene: Scene) -> None:
        scene.intent = self
        scene.intents.append(self.name)
        try:
            self.fn(scene)
        finally:
            scene.intent = None


def register(
    server: Any, fn: Callable[[Scene], None], covers: Sequence[str], weight: float, follows: bool, opens: bool = True
) -> Intent:
    """Check an intent's declarations against its server and add it to ``server.intents``."""
    unknown = [t for t in covers if t not in server.tools]
    if unknown:
        raise ValueError(f"{server.name}.{fn.__name__}: covers unknown tools {unknown}")
    if not covers:
        raise ValueError(f"{server.name}.{fn.__name__}: an intent covers at least one tool")
    if any(i.name == fn.__name__ for i in server.intents):
        raise ValueError(f"{server.name}: intent {fn.__name__} registered twice")
    if not opens and not follows:
        raise ValueError(f"{server.name}.{fn.__name__}: an intent that cannot open a dialogue must follow one")
    intent = Intent(server.name, fn.__name__, fn, tuple(covers), weight, follows, (fn.__doc__ or "").strip(), opens)
    server.intents.append(intent)
    return intent


def covered_tools(servers: Sequence[Any]) -> set[str]:
    """``server__tool`` names that some registered intent declares."""
    return {f"{s.name}__{t}" for s in servers for i in s.intents for t in i.covers}


def unique_best(
    rows: Sequence[dict[str, Any]], key: Callable[[dict[str, Any]], Any], *, tie: str, lowest: bool = False
) -> dict[str, Any]:
    """The row with the highest ``key`` (``lowest``: the lowest), which a person can call "the biggest one";
    ``Skip`` with ``tie`` when another row has the same ``key``."""
    best = min(rows, key=key) if lowest else max(rows, key=key)
    if sum(key(r) == key(best) for r in rows) > 1:
        raise Skip(tie)
    return best


def after_days(now: datetime, days: int) -> str:
    return (now + timedelta(days=days)).strftime("%Y-%m-%d")
