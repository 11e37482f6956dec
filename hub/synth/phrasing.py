"""Phrasing figures of a task set: how much of the user's text is boilerplate, how varied the clarify
answers are, how often a turn's core phrasing repeats elsewhere in the set.

- ``boilerplate``: share of user turns with a stock greeting at the start, a stock self-introduction opener
  ("I'm Ana Ruiz.", "Ana here:", "This is Ana."), a thank-you closer, or a date aside ("(It's Monday,
  June 1 today.)"); per kind too. ``names_self`` is the share of turns where the speaker gives their name
  at all (an introduction folded into the request included), for comparison;
- ``clarify_answers``: distinct forms of the answer to a clarifying question (the withheld value masked,
  then names and numbers) and the share of the most common form;
- ``core_repeat``: share of user turns whose core phrasing occurs in another turn of the set. The core is
  the turn without greeting, introduction, closer and date aside, lower-cased, with quoted text, ids,
  emails, amounts, dates, times, numbers and capitalised names masked;
- ``repeated_question``: share of tasks where two user turns have the same core;
- ``third_person``: share of turns where the speaker names themself in the third person ("Ana Ruiz's
  invoice", "Ana Ruiz wants").
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from hub.kit.voice import LEAD_IN
from hub.tasks import Task

GREETING = re.compile(
    r"^(hi there|hey there|good (morning|afternoon|evening)|quick one|hi|hey|hello|morning)\b[,!.]?\s*", re.I
)
INTRO = re.compile(r"^(?:(?:i'm|i am|this is|it's|its|im) [^.:;!?]{2,60}?|[^.:;!?,]{2,40}? here)[.:;!,]\s*", re.I)
CLOSER = re.compile(
    r"[.!]?\s*\b(thanks|thank you|thx|ty|cheers|appreciate it|much appreciated|you're a star)\b[^.!?]{0,30}[.!]?\s*$",
    re.I,
)
ASIDE = re.compile(r"\s*(\(it's [^)]* today\.\)|\(today being [^)]*\)|for reference, today is [^.]*\.)", re.I)
MASKS = (
    (re.compile(r"(?<!\w)'[^']{1,200}'(?!\w)|\"[^\"]{1,300}\""), "<q>"),
    (re.compile(r"\b[\w.+-]+@[\w.-]+\.\w+\b"), "<email>"),
    (re.compile(r"https?://\S+"), "<url>"),
    (re.compile(r"\b[A-Z]{2,6}-[0-9A-Z]{2,}(?:-[0-9A-Z]+)*\b"), "<id>"),
    (re.compile(r"@\w+"), "<handle>"),
    (re.compile(r"[$€£]\s?\d[\d,]*(?:\.\d+)?"), "<money>"),
    (re.compile(r"\b\d{4}-\d\d-\d\d\b"), "<date>"),
    (
        re.compile(
            r"\b(January|February|March|April|May|June|July|August|September|October|November|December)"
            r"(\s\d{1,2}(st|nd|rd|th)?)?(,?\s\d{4})?"
        ),
        "<date>",
    ),
    (re.compile(r"\b(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)\b"), "<day>"),
    (re.compile(r"\b\d{1,2}(:\d\d)?\s?(am|pm)\b", re.I), "<time>"),
    (re.compile(r"\b\d[\d,]*(\.\d+)?\b"), "<n>"),
)
NAME = re.compile(r"(?<=[\w,;:'\"(-] )[A-Z][\w'&-]*(?:\s+(?:[A-Z][\w'&-]*|of|the|and|&)(?=\W|$))*")
PRONOUNS = frozenset(("I", "I'm", "I'd", "I've", "I'll"))


def strip(text: str) -> str:
    """The turn without its greeting, introduction opener, date aside and closer, and without the lead-in that
    chains a follow-up to the last answer ("Got it.", "Also,"): a repeated request is the same phrasing with or
    without one."""
    text = ASIDE.sub("", text.strip())
    text = GREETING.sub("", text)
    text = INTRO.sub("", text, count=1)
    return LEAD_IN.sub("", CLOSER.sub("", text).strip())


def core(text: str) -> str:
    """The core phrasing: stripped of boilerplate, values masked, lower-cased, spaces collapsed."""
    body = strip(text)
    body = _masked(body)
    body = re.sub(r"\s+", " ", body.lower()).strip(" .!?,")
    return re.sub(r"<name>(?: <name>)+", "<name>", body)


def boilerplate(text: str) -> set[str]:
    """Which stock pieces a turn carries: greeting, intro, closer, date."""
    found = set()
    rest = text.strip()
    if ASIDE.search(rest):
        found.add("date")
        rest = ASIDE.sub("", rest)
    if GREETING.match(rest):
        found.add("greeting")
        rest = GREETING.sub("", rest)
    if INTRO.match(rest):
        found.add("intro")
    if CLOSER.search(rest):
        found.add("closer")
    return found


def answer_form(answer: str, value: str | None) -> str:
    """A clarify answer with the withheld value (then any other value) masked."""
    text = answer.replace(value, "<v>") if value else answer
    return _masked(text).lower().strip()


def _masked(text: str) -> str:
    for pattern, mask in MASKS:
        text = pattern.sub(mask, text)
    return NAME.sub(lambda m: m.group(0) if m.group(0) in PRONOUNS else "<name>", text)


def third_person(text: str, name: str) -> bool:
    """The speaker naming themself as someone else would: "Ana Ruiz's", "Ana Ruiz wants"."""
    if not name:
        return False
    pattern = re.escape(name) + r"(?:'s\b|\s+(?:wants|needs|is|has|would|asked|says)\b)"
    return re.search(pattern, text) is not None


def figures(tasks: list[Task]) -> dict[str, Any]:
    """The phrasing figures of the module docstring."""
    turns = [(t, turn.user) for t in tasks for turn in t.turns]
    kinds = Counter(k for _, text in turns for k in boilerplate(text))
    stock = sum(bool(boilerplate(text)) for _, text in turns)
    names = [str(t.meta.get("synth", {}).get("persona", {}).get("name", "")) for t, _ in turns]
    cores = [core(text) for _, text in turns]
    seen = Counter(cores)
    forms = Counter(answer_form(a, v) for a, v in _answers(tasks))
    repeated = sum(len({core(x.user) for x in t.turns}) < len(t.turns) for t in tasks)
    n = len(turns)
    return {
        "turns": n,
        "boilerplate": _share(stock, n),
        "boilerplate_by_kind": {k: _share(kinds[k], n) for k in ("greeting", "intro", "closer", "date")},
        "names_self": _share(sum(bool(m) and m in text for m, (_, text) in zip(names, turns)), n),
        "third_person": _share(sum(third_person(text, m) for m, (_, text) in zip(names, turns)), n),
        "core_repeat": _share(sum(seen[c] > 1 for c in cores), n),
        "distinct_cores": len(seen),
        "repeated_question": _share(repeated, len(tasks)),
        "clarify_answers": sum(forms.values()),
        "clarify_answer_forms": len(forms),
        "clarify_top_form_share": _share(max(forms.values(), default=0), sum(forms.values())),
        "clarify_top_forms": [[f, c] for f, c in forms.most_common(5)],
    }


def _answers(tasks: list[Task]) -> list[tuple[str, str | None]]:
    """The user's answer to each clarifying question, with the value it was asked for."""
    out = []
    for t in tasks:
        omitted = t.meta.get("synth", {}).get("omitted")
        for ask, reply in zip(t.turns, t.turns[1:]):
            if ask.ask:
                out.append((reply.user, omitted))
    return out


def _share(a: int, b: int) -> float | None:
    return round(a / b, 4) if b else None
