"""How turns are phrased, with what differs from task to task masked out: what repeats across a task set.

- ``mask``: a turn with its names, numbers, amounts, dates, times, quoted texts, ids, handles, paths and the
  ground truth's values replaced by placeholders, lower-cased, so that two turns that say the same thing about
  different things compare equal ("Remind me of my confirmed flights, Sven Kim" and "..., Ana Ruiz");
- ``stock``: the boilerplate of a set: masked sentences (a greeting, a self-introduction, a closer, a date aside)
  that turns of five or more servers share, which no single goal explains;
- ``core``: a turn's masked sentences without the stock ones: its phrasing of the goal.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from hub.tasks import Task

QUOTED = re.compile(r"'[^']{2,200}'|\"[^\"]{2,200}\"|“[^”]{2,200}”")
ID = re.compile(r"\b[A-Z]{2,6}-[0-9A-Z]{2,}(?:-[0-9A-Z]+)*\b")
EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+\.[\w.-]+\b|\bhttps?://\S+")
HANDLE = re.compile(r"@\w+")
PATH = re.compile(r"(?:~|\.{0,2})?/[\w.@-]+(?:/[\w.@-]*)*|\b[\w-]+\.(?:md|txt|csv|json|yaml|yml|toml|py|pdf|gz|zip)\b")
MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
DATE = re.compile(
    rf"\b(?:{MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{MONTH}"
    r"|\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?|(?:mon|tues|wednes|thurs|fri|satur|sun)day)\b",
    re.IGNORECASE,
)
TIME = re.compile(r"\b\d{1,2}(?::\d{2})?\s*(?:a\.?m\.?|p\.?m\.?)|\b\d{1,2}:\d{2}\b", re.IGNORECASE)
NUMBER = re.compile(r"[$€£]?\d[\w,]*(?:\.\d+)?%?(?:°[cf])?")
CAPS = re.compile(r"(?<![\w<])[A-Z][\w&'-]*(?:\s+(?:&\s+)?[A-Z][\w&'-]*)*")
PLAIN = frozenset(
    "i i'm i'd i'll i've it it's its the a an my our we we're can could please hey hi hello morning thanks thank "
    "what which who when where how is are do does did any also and so ok okay quick one just".split()
)
SENTENCE = re.compile(r"(?<=[.!?)])\s+|\s+(?=\()|(?<=:)\s+(?=[A-Z])")
STOCK_SERVERS = 5


def mask(text: str, values: Iterable[Any] = ()) -> str:
    """``text`` with what differs between tasks replaced by placeholders (see the module docstring)."""
    for v in sorted((str(v) for v in values if isinstance(v, str) and len(v) >= 3), key=len, reverse=True):
        text = text.replace(v, "<v>")
    for pattern, token in ((QUOTED, "<q>"), (EMAIL, "<v>"), (ID, "<id>"), (HANDLE, "<h>"), (PATH, "<p>")):
        text = pattern.sub(token, text)
    text = DATE.sub("<d>", text)
    text = TIME.sub("<t>", text)
    text = CAPS.sub(_name, text)
    text = NUMBER.sub("<n>", text)
    text = text.lower()
    return re.sub(r"\s+", " ", re.sub(r"(<\w+>)(?:\s*(?:,|and)?\s*\1)+", r"\1", text)).strip(" .!?")


def _name(m: re.Match[str]) -> str:
    """A run of capitalised words is a name, unless it is a plain word ("I'm", "Please") or one word starting a
    sentence; a plain word's run goes on as a name ("I'm Sven Kim")."""
    first, _, rest = m.group(0).partition(" ")
    if first.lower() in PLAIN:
        return first + (" <name>" if rest.strip() else "")
    at_start = m.start() == 0 or m.string[: m.start()].rstrip()[-1:] in ".!?:(\"'"
    return m.group(0) if at_start and not rest else "<name>"


def sentences(text: str) -> list[str]:
    return [s for s in (x.strip() for x in SENTENCE.split(text)) if s]


def masked_sentences(text: str, values: Iterable[Any] = ()) -> list[str]:
    values = list(values)
    return [m for m in (mask(s, values) for s in sentences(text)) if m]


def turn_values(task: Task) -> list[Any]:
    """The values a task's ground truth uses (masked out of its turns), and its persona's name."""
    out: list[Any] = [v for s in task.gt_steps() for v in _flat(s.arguments.values())]
    persona = task.meta.get("synth", {}).get("persona", {}).get("name")
    return out + ([persona, persona.split(" ")[0]] if persona else [])


def _flat(values: Iterable[Any]) -> Iterable[Any]:
    for v in values:
        if isinstance(v, list):
            yield from _flat(v)
        elif not isinstance(v, dict):
            yield v


def stock(tasks: Iterable[Task], min_servers: int = STOCK_SERVERS) -> set[str]:
    """Masked sentences that turns of ``min_servers`` or more servers share: the set's boilerplate."""
    where: dict[str, set[str]] = defaultdict(set)
    for t in tasks:
        server = (t.meta.get("synth", {}).get("request_servers") or t.servers)[0]
        values = turn_values(t)
        for turn in t.turns:
            for m in masked_sentences(turn.user, values):
                where[m].add(server)
    return {m for m, servers in where.items() if len(servers) >= min_servers}


def core(text: str, boilerplate: set[str], values: Iterable[Any] = ()) -> str:
    """The turn's masked phrasing of its goal: its sentences without the stock ones."""
    return " | ".join(m for m in masked_sentences(text, values) if m not in boilerplate)
