"""Where a ground-truth argument's value comes from: one record per argument, written as the call is made.

An agent can only send a value it got from somewhere. ``origin`` finds where, in order:

- ``stated``: a user turn up to the call's says it (numbers in their usual written forms and in words, text by
  whole words in any case, ``snake_case`` with spaces, ``thumbsup`` as "thumbs-up");
- ``returned``: an earlier call's result holds it (an id anywhere; a short or common value only under a field of
  the argument's own name; a long text also as an excerpt of a returned text);
- ``default``: the schema's default; ``None`` (no value); on a write, an enum member or a flag the request
  implies;
- ``derived``: a rule computes it from what the user said, the earlier results and the reference date (the
  rules of ``hub.kit.reckon``): a date ("tomorrow", "last Friday", "past five days", "June 26", two nights after a
  stated day), a time ("3:30 pm", a start plus "30 minutes"), a share or percentage of a known amount, a sum,
  difference or product with a number the user said, a unit ("an hour and a half" for 90 minutes), a position
  in words ("all the way down"), a text composed of words the user said and results held, a path whose folders
  are known and whose name the user said, a value the offered tools' own documentation gives, an id written
  from the number the user said in the documented shape;
- ``incidental``: on a read, an optional value nobody asked for (paging, sort, a filter): the synthesizer's own
  choice, which no reward should demand.

An entity id is stated, returned or written from a stated number, else *ungrounded* (``origin`` gives None), as
is any other value an agent could not have known. Synthesis drops a task with an ungrounded value.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from hub.kit import reckon

ISO_DATE = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$")
CLOCK_VALUE = re.compile(r"^(\d{2}):(\d{2})(?::00)?$")
ID_SHAPE = re.compile(r"^([A-Z]{2,6}-)(0*)(\d+)$")
ID_LIKE = re.compile(r"^[A-Z]{2,6}-[0-9A-Z]{2,}(?:-[0-9A-Z]+)*$")
PERCENT = re.compile(r"([a-z]+|\d+(?:\.\d+)?)\s*(?:%|per ?cent)", re.IGNORECASE)
WORD = re.compile(r"[A-Za-z0-9@#'_.:/-]+")
PAGING = frozenset({"limit", "offset", "page", "per_page", "page_size", "max_results", "top", "max_lines", "lines"})
SCALE = (  # how a person sets a position, level or share in words
    (r"all the way (?:up|open)|fully open|wide open|fully up|all the way|completely open|100 ?%", 100.0),
    (r"all the way down|fully (?:closed|shut|down)|close[ds]?\b|shut\b|all the way closed", 0.0),
    (r"halfway|half[- ]?way|half open|half closed|half\b", 50.0),
    (r"a quarter|quarter open|quarter of the way", 25.0),
    (r"three quarters|mostly open|mostly up", 75.0),
    (r"mostly closed|mostly down|just a bit open|a little open", 25.0),
)
NOTHING = re.compile(r"\b(?:zero|none|no|drop|remove|off|nothing|empty|clear|take out|get rid)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Source:
    """One argument's origin (see the module docstring). ``turn``: the user turn that states it; ``step``: the
    index of the earlier call whose result held it; ``rule`` and ``inputs``: how a derived value is computed."""

    role: str  # stated / returned / default / derived / incidental
    turn: int | None = None
    step: int | None = None
    rule: str | None = None
    inputs: tuple[str, ...] = ()


@dataclass
class Evidence:
    """What a value may come from: the user's turns so far, the earlier calls' results, the reference date and
    the documentation of the tools the agent is offered."""

    texts: Sequence[str]
    results: Sequence[Any]
    now: datetime
    docs: str = ""
    _numbers: list[tuple[float, str]] | None = field(default=None, repr=False)
    _said: list[set[float]] | None = field(default=None, repr=False)

    def said_numbers(self) -> list[set[float]]:
        if self._said is None:
            self._said = [reckon.numbers_in(t) for t in self.texts]
        return self._said

    def numbers(self) -> list[tuple[float, str]]:
        """Numbers the user stated and the earlier results hold, with where each came from (stated ones first)."""
        if self._numbers is None:
            found: dict[float, str] = {}
            for i, values in enumerate(self.said_numbers()):
                for value in sorted(values):
                    found.setdefault(value, f"turn {i}")
            for j in range(len(self.results) - 1, -1, -1):
                for _, value in scalars(self.results[j]):
                    if isinstance(value, (int, float)) and not isinstance(value, bool) and len(found) < 300:
                        found.setdefault(float(value), f"step {j}")
            self._numbers = list(found.items())
        return self._numbers


def origins(arguments: dict[str, Any], schema: dict[str, Any], kind: str, ev: Evidence) -> dict[str, Source | None]:
    """Per argument key, where its value comes from (None: ungrounded)."""
    props = schema.get("properties", {})
    required = set(schema.get("required", []))
    return {key: origin(key, v, props.get(key, {}), key in required, kind, ev) for key, v in arguments.items()}


def origin(key: str, value: Any, prop: dict[str, Any], required: bool, kind: str, ev: Evidence) -> Source | None:
    """Where ``value`` of argument ``key`` (schema ``prop``) of a ``kind`` ("read"/"write") call comes from."""
    if value is None:
        return Source("default")
    if isinstance(value, list):
        return _combine([origin(key, v, _items(prop), required, kind, ev) for v in value]) if value else _empty(prop)
    if isinstance(value, dict):
        return _combine([origin(k, v, {}, required, kind, ev) for k, v in value.items()]) if value else _empty(prop)
    if prop.get("x-entity") or (isinstance(value, str) and ID_LIKE.match(value)):
        found = _returned(key, value, ev, True) or _stated(value, ev) or _id_from_number(value, ev)
        if found is None and isinstance(value, str) and value.startswith(("/", "~")):  # a file is named, not looked up
            found = _documented(value, ev) or _path(value, ev)
        return found
    found = _stated(value, ev) or _returned(key, value, ev, False)
    if found is not None:
        return found
    if "default" in prop and prop["default"] == value:
        return Source("default")
    found = derived(key, value, ev)
    if found is not None:
        return found
    if isinstance(value, bool) or value in _enum(prop):
        if kind == "write":
            return Source("default")
        turn = _said_key(key, ev)
        return Source("stated", turn=turn) if turn is not None else Source("incidental")
    if kind == "read" and isinstance(value, str) and _all_words_said(value, ev):
        return Source("derived", rule="words", inputs=tuple(f"turn {i}" for i in range(len(ev.texts))))
    if kind == "read" and (not required or key in PAGING):
        return Source("incidental")
    return None


def _all_words_said(value: str, ev: Evidence) -> bool:
    """A search the user's words make (``pasta-e-ceci.md`` for "my pasta e ceci doc")."""
    words = [w for w in re.split(r"[-_.\s/*]+", value.lower()) if len(w) > 1 and w not in _EXTENSIONS]
    return bool(words) and any(all(_word_said(w, t) for w in words) for t in ev.texts)


def describe(source: Source) -> str:
    if source.role == "stated":
        return f"turn {source.turn}"
    if source.role == "returned":
        return f"step {source.step}"
    return source.rule or source.role


def _empty(prop: dict[str, Any]) -> Source:
    return Source("default") if prop.get("default") in ([], {}) else Source("incidental")


def _items(prop: dict[str, Any]) -> dict[str, Any]:
    entity = {"x-entity": prop["x-entity"]} if prop.get("x-entity") else {}
    for branch in prop.get("anyOf", [prop]):
        if isinstance(branch.get("items"), dict):
            return dict(branch["items"]) | entity
    return entity


def _enum(prop: dict[str, Any]) -> list[Any]:
    branches = prop.get("anyOf", [prop])
    return [e for b in branches for e in b.get("enum", [])] + [
        e for b in branches for e in (b.get("items") or {}).get("enum", [])
    ]


def _combine(parts: list[Source | None]) -> Source | None:
    """One record for a list (or object) of values: each must be grounded; one role when they share it."""
    found = [p for p in parts if p is not None]
    if len(found) < len(parts):
        return None
    roles = {p.role for p in found}
    if len(roles) == 1:
        steps = [p.step for p in found if p.step is not None]
        turns = [p.turn for p in found if p.turn is not None]
        return Source(roles.pop(), turn=max(turns) if turns else None, step=max(steps) if steps else None)
    return Source("derived", rule="collect", inputs=tuple(describe(p) for p in found))


# Stated ----------------------------------------------------------------------------------------


def _stated(value: Any, ev: Evidence) -> Source | None:
    turn = first_said(value, ev.texts, ev.said_numbers())
    return None if turn is None else Source("stated", turn=turn)


def first_said(value: Any, texts: Sequence[str], numbers: Sequence[set[float]] | None = None) -> int | None:
    """The first of ``texts`` that states ``value`` (a zero by "none", "drop", "off" too)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        numbers = numbers if numbers is not None else [reckon.numbers_in(t) for t in texts]
        for i, values in enumerate(numbers):
            if float(value) in values or value == 0 and NOTHING.search(texts[i]):
                return i
        return None
    return next((i for i, text in enumerate(texts) if said(value, text)), None)


def _said_key(key: str, ev: Evidence) -> int | None:
    return key_said(key, ev.texts)


def key_said(key: str, texts: Sequence[str]) -> int | None:
    """The turn whose words name a flag or filter argument (``unread_only`` -> "unread")."""
    words = [w for w in re.split(r"[_\W]+", key.lower()) if len(w) > 2 and w not in ("only", "include", "with", "ids")]
    for i, text in enumerate(texts):
        low = text.lower()
        if words and all(re.search(rf"\b{re.escape(w[:-1] if w.endswith('s') else w)}", low) for w in words):
            return i
    return None


def said(value: Any, text: str) -> bool:
    """Whether ``text`` states ``value``: a number in any usual written form or in words; text as whole words in
    any case (a code with no lower-case letter in its exact case); ``snake_case`` with spaces; a short word
    written with a hyphen or space inside ("thumbs-up" for ``thumbsup``)."""
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, (int, float)):
        return float(value) in reckon.numbers_in(text)
    if not isinstance(value, str) or len(value.strip()) < 2:
        return False
    low, want = text.lower(), value.lower()
    squashed = re.sub(r"[^a-z0-9]+", "", want)
    if want not in low and want.replace("_", " ") not in low and squashed not in re.sub(r"[^a-z0-9]+", "", low):
        return False  # the quick way out: no form of it is in the text at all
    if _words_in(value, text) or "_" in value and _words_in(value.replace("_", " "), text):
        return True
    if " " in value and _words_in(value, text.replace("-", " ")):
        return True
    stem = value.strip().rstrip(".!?")
    if len(stem) >= 8 and stem.lower() in text.lower():
        return True
    if value.isalnum() and len(value) <= 24:
        words = re.findall(r"[a-z0-9]+", low)
        return any("".join(words[i : i + k]) == squashed for k in (2, 3) for i in range(len(words)))
    return False


def _words_in(value: str, text: str) -> bool:
    flags = re.IGNORECASE if any(c.islower() for c in value) else 0
    return re.search(rf"(?<![A-Za-z0-9]){re.escape(value)}(?![A-Za-z0-9])", text, flags) is not None


# Returned --------------------------------------------------------------------------------------


def scalars(node: Any, key: str = "", depth: int = 0) -> Iterator[tuple[str, Any]]:
    """Every (field name, scalar) in a result."""
    if depth > 12:
        return
    if isinstance(node, dict):
        for k, v in node.items():
            yield from scalars(v, str(k), depth + 1)
    elif isinstance(node, list):
        for v in node:
            yield from scalars(v, key, depth + 1)
    elif node is not None:
        yield key, node


def _returned(key: str, value: Any, ev: Evidence, entity: bool) -> Source | None:
    """The latest earlier call whose result holds ``value``: anywhere when it is distinctive (an id, a longer
    text, a number that is not a small count), else only under a field named like ``key``."""
    if isinstance(value, bool):
        return None
    distinctive = entity or _distinctive(value)
    words = _name_words(key)
    for j in range(len(ev.results) - 1, -1, -1):
        for name, found in scalars(ev.results[j]):
            if _same(found, value) and (distinctive or bool(words & _name_words(name))):
                return Source("returned", step=j)
            if isinstance(value, str) and len(value) >= 12 and isinstance(found, str) and value in found:
                return Source("returned", step=j)  # an excerpt of a returned text (a line to replace)
    return None


def _name_words(name: str) -> set[str]:
    """A field's words without plurals and id suffixes: ``pressure_psi`` and ``recommended_psi`` share "psi"."""
    return {
        w.removesuffix("s") for w in name.lower().split("_") if len(w) > 2 and w not in ("ids", "new", "max", "min")
    }


def _distinctive(value: Any) -> bool:
    if isinstance(value, str):
        return len(value) >= 4 and not value.isalpha() or len(value) >= 8
    if isinstance(value, float):
        return not value.is_integer() or abs(value) >= 100
    return isinstance(value, int) and abs(value) >= 1000


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return False
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(a) == float(b)
    return type(a) is type(b) and a == b


def _id_from_number(value: Any, ev: Evidence) -> Source | None:
    """An id the user gave by its number ("invoice number 475" for ``INV-00475``) in a shape the tools document."""
    m = ID_SHAPE.match(value) if isinstance(value, str) else None
    if m is None or not re.search(rf"'{re.escape(m.group(1))}\d{{{len(m.group(2) + m.group(3))}}}'", ev.docs):
        return None
    for i, values in enumerate(ev.said_numbers()):
        if float(m.group(3)) in values:
            return Source("derived", turn=i, rule="id_format", inputs=(f"turn {i}: {m.group(3)}",))
    return None


# Derived ---------------------------------------------------------------------------------------


def derived(key: str, value: Any, ev: Evidence) -> Source | None:
    if isinstance(value, str):
        found = _when(value, ev) or _documented(value, ev) or _path(value, ev) or _columns(value, ev)
        return found or _composed(value, ev)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return _unit(key, float(value), ev) or _scale(float(value), ev) or _arithmetic(float(value), ev)
    return None


def _when(value: str, ev: Evidence) -> Source | None:
    """A date, a date and time, or a time of day the user said or that follows from what they said."""
    clock = CLOCK_VALUE.match(value)
    if clock is not None:
        turn = _time_turn((int(clock.group(1)), int(clock.group(2))), ev)
        return None if turn is None else Source("derived", turn=turn, rule="time", inputs=(f"turn {turn}",))
    m = ISO_DATE.match(value)
    if m is None:
        return None
    try:
        day = date.fromisoformat(m.group(1))
    except ValueError:
        return None
    at = (int(m.group(2)), int(m.group(3))) if m.group(2) is not None else None
    found = _day(day, ev)
    if found is None and at is not None and day == ev.now.date() and _time_turn(at, ev) is not None:
        found = ("today, by the time alone", _time_turn(at, ev) or 0)
    if found is None:
        return None
    rule = f"date{(day - ev.now.date()).days:+d}d"
    if at is None or at in ((0, 0), (ev.now.hour, ev.now.minute)) or _time_turn(at, ev) is not None:
        return Source("derived", turn=found[1], rule=rule, inputs=(found[0],))
    moment = datetime(day.year, day.month, day.day, *at)
    for i, text in enumerate(ev.texts):
        for span in reckon.durations_in(text):
            if _time_turn(((moment - span).hour, (moment - span).minute), ev) is not None:
                return Source("derived", turn=i, rule=rule + "+span", inputs=(found[0], f"turn {i}: {span}"))
    return None


def _day(day: date, ev: Evidence) -> tuple[str, int] | None:
    """How the user named ``day``: in so many words (``(description, turn)``), or as a span after a known day."""
    for i, text in enumerate(ev.texts):
        if day in reckon.dates_in(text, ev.now):
            return f"turn {i}", i
        if any(reckon.says(p, text) for p in reckon.relative_phrases(day, ev.now)):
            return f"turn {i}", i
    known = {d for t in ev.texts for d in reckon.dates_in(t, ev.now)} | _result_days(ev)
    for i, text in enumerate(ev.texts):
        for span in reckon.durations_in(text):
            if span.days and (day - timedelta(days=span.days)) in known:
                return f"turn {i}: {span.days} days after a known day", i
    return None


def _result_days(ev: Evidence) -> set[date]:
    out = set()
    for result in ev.results:
        for _, v in scalars(result):
            m = ISO_DATE.match(v) if isinstance(v, str) else None
            if m is not None:
                try:
                    out.add(date.fromisoformat(m.group(1)))
                except ValueError:
                    pass
    return out


def _time_turn(at: tuple[int, int], ev: Evidence) -> int | None:
    for i, text in enumerate(ev.texts):
        if at in reckon.times_in(text):
            return i
    return None


def _documented(value: str, ev: Evidence) -> Source | None:
    """A value the offered tools' documentation gives (a well-known path, a mode, a code), quoted there."""
    if len(value) >= 3 and (f"'{value}'" in ev.docs or f'"{value}"' in ev.docs):
        return Source("derived", rule="documented")
    return None


def _path(value: str, ev: Evidence) -> Source | None:
    """A path whose folders are known (returned, documented or said) and whose last part the user named."""
    if not value.startswith(("/", "~")) or value.rstrip("/") in ("", "~"):
        return None
    head, _, name = value.rstrip("/").rpartition("/")
    words = [w for w in re.split(r"[-_.\s]+", name.lower()) if len(w) > 1 and w not in _EXTENSIONS]
    named = next((i for i, t in enumerate(ev.texts) if words and all(_word_said(w, t) for w in words)), None)
    if named is None:
        return None
    if not head or _known_folder(head, ev):
        return Source("derived", turn=named, rule="path", inputs=(f"turn {named}",))
    return None


_EXTENSIONS = frozenset({"txt", "md", "csv", "json", "yaml", "yml", "toml", "py", "pdf", "png", "jpg", "log", "gz"})


def _word_said(word: str, text: str) -> bool:
    low = text.lower()
    stem = word[:-1] if len(word) > 4 and word.endswith("s") else word
    return re.search(rf"(?<![a-z0-9]){re.escape(stem)}", low) is not None


def _known_folder(folder: str, ev: Evidence, depth: int = 0) -> bool:
    """A folder the tools' documentation or an earlier result shows, or whose name the user said in a known one."""
    if folder in ev.docs or any(said(folder, t) for t in ev.texts):
        return True
    if any(isinstance(v, str) and v.startswith(folder) for r in ev.results for _, v in scalars(r)):
        return True
    parent, _, name = folder.rpartition("/")
    words = [w for w in re.split(r"[-_.\s]+", name.lower()) if len(w) > 1]
    named = bool(words) and any(all(_word_said(w, t) for w in words) for t in ev.texts)
    return named and depth < 4 and bool(parent) and _known_folder(parent, ev, depth + 1)


def _composed(value: str, ev: Evidence) -> Source | None:
    """A text of two or more words, every one of them said by the user or a whole value of an earlier result (a
    note with a heading and a bullet the user dictated, "@handle" plus the message)."""
    words = [w.strip(".,;:!?\"'()[]") for w in WORD.findall(value)]
    content = [w for w in words if len(w.strip("#@-*")) >= 3]
    if len(content) < 2:
        return None
    said_words = {w.lower().strip(".,;:!?\"'()[]") for t in ev.texts for w in WORD.findall(t)}
    returned = {v.lower() for r in ev.results for _, v in scalars(r) if isinstance(v, str) and len(v) <= 60}
    for w in content:
        bare = w.lower().strip("#@-*")
        if bare in said_words or w.lower() in said_words or bare in returned:
            continue
        if ISO_DATE.match(w) and _when(w, ev) is not None:
            continue
        return None
    return Source("derived", rule="compose", inputs=tuple(f"turn {i}" for i in range(len(ev.texts))))


def _columns(value: str, ev: Evidence) -> Source | None:
    """Column numbers ("1,4,7") of a header an earlier result showed, whose columns the user named."""
    if not re.fullmatch(r"\d{1,3}(?:,\d{1,3})*", value):
        return None
    wanted = [int(x) for x in value.split(",")]
    for j in range(len(ev.results) - 1, -1, -1):
        for _, text in scalars(ev.results[j]):
            if not isinstance(text, str) or "," not in text:
                continue
            header = [h.strip().lower() for h in text.lstrip().splitlines()[0].split(",")]
            if max(wanted) > len(header) or min(wanted) < 1:
                continue
            named = [re.split(r"[_\s]+", header[i - 1]) for i in wanted]
            if all(any(all(_word_said(w, t) for w in words if len(w) > 1) for t in ev.texts) for words in named):
                return Source("derived", step=j, rule="columns", inputs=(f"step {j}",))
    return None


def _unit(key: str, value: float, ev: Evidence) -> Source | None:
    """A count the user said in another unit: "an hour and a half" for 90 minutes, "two weeks" for 14 days."""
    per = {"minute": 1.0, "min": 1.0, "second": 1 / 60, "hour": 60.0, "day": 1440.0, "night": 1440.0}
    unit = next((u for u in per if u in key), None)
    if unit is None:
        return None
    for i, text in enumerate(ev.texts):
        for span in reckon.durations_in(text):
            if abs(span.total_seconds() / 60 / per[unit] - value) < 1e-9:
                return Source("derived", turn=i, rule=f"unit:{unit}", inputs=(f"turn {i}: {span}",))
    return None


def _scale(value: float, ev: Evidence) -> Source | None:
    for i, text in enumerate(ev.texts):
        for pattern, amount in SCALE:
            if amount == value and re.search(pattern, text, re.IGNORECASE):
                return Source("derived", turn=i, rule="scale", inputs=(f"turn {i}",))
    return None


def _arithmetic(value: float, ev: Evidence) -> Source | None:
    """A share or percentage of a known number, or a sum, difference or product of a number the user said with
    another known one: exact to the cent (a count: rounded or floored)."""
    known = ev.numbers()
    texts = list(enumerate(ev.texts))
    shares = [
        (i, n / 100, f"{m.group(1)}%") for i, t in texts for m in PERCENT.finditer(t) if (n := _amount(m.group(1)))
    ]
    shares += [(i, f, f"{f:g} of it") for i, t in enumerate(ev.texts) for f in reckon.fractions_in(t)]
    for i, share, words in shares:
        for base, where in known:
            for factor, rule in ((share, "share"), (1 - share, "share_off"), (1 + share, "share_on")):
                if base * 100 != share * 10000 and _equal(base * factor, value, whole=True):
                    return Source("derived", turn=i, rule=rule, inputs=(f"turn {i}: {words}", f"{where}: {base:g}"))
    said = [(v, w) for v, w in known if w.startswith("turn ")]
    for a, wa in said:
        for b, wb in known:
            if wb == wa and a == b:
                continue
            for result, rule in ((a + b, "sum"), (b - a, "difference"), (a - b, "difference"), (a * b, "product")):
                if a and b and _equal(result, value):
                    return Source("derived", rule=rule, inputs=(f"{wa}: {a:g}", f"{wb}: {b:g}"))
    return None


def _amount(word: str) -> float | None:
    try:
        return float(word)
    except ValueError:
        return float(reckon.WORDS[word.lower()]) if word.lower() in reckon.WORDS else None


def _equal(computed: float, value: float, whole: bool = False) -> bool:
    """Exact to the cent; with ``whole``, a count may be the computed share rounded or floored."""
    if abs(computed - value) < 0.005 and round(computed, 2) == round(value, 2):
        return True
    return whole and value.is_integer() and computed > 1 and value in (float(int(computed)), float(round(computed)))
