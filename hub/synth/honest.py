"""Figures of an honest split, added to the realism report (``hub.synth.realism``):

- ``twins``: test tasks with a training twin, as shares of the test tasks. ``intent_chain``: a training task with
  the same intent chain and tool sequence; ``first_turn``: one with the same core first turn (its phrasing with
  names, numbers, ids, dates and quoted values masked and stock sentences dropped: ``hub.synth.phrasing.core``)
  and tool sequence. A test task with a twin measures recall of a training task, not a goal never trained on;
- ``reference_dates``: the distinct reference dates of the tasks (a task's own date where it carries one, else
  its world's "now"), the first and the last, and how many fall on a weekend.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from hub.state.library import Library
from hub.synth.grounding import reference_now
from hub.synth.phrasing import core, stock, turn_values
from hub.tasks import Task

# Where a task may carry its own reference date: fields of the task or of its initial state, then the
# synthesis record; a task with none of them has its world's date.
DATE_FIELDS = ("today", "now", "date", "reference_date")
EXAMPLES = 5


@dataclass(frozen=True)
class TwinKeys:
    """A task's keys for the two kinds of twin; two tasks with an equal key are twins of that kind."""

    first_turn: tuple[str, tuple[str, ...]]
    intent_chain: tuple[tuple[str, ...], tuple[str, ...]] | None  # None: a task no intent made


def twin_keys(task: Task, boilerplate: set[str]) -> TwinKeys:
    sequence = tuple(s.name for s in task.gt_steps())
    intents = tuple(task.meta.get("synth", {}).get("intents") or ())
    first = core(task.turns[0].user, boilerplate, turn_values(task))
    return TwinKeys((first, sequence), (intents, sequence) if intents else None)


def figures(tasks: list[Task], library: Library) -> dict[str, Any]:
    return {"twins": twins(tasks, stock(tasks)), "reference_dates": reference_dates(tasks, library)}


def twins(tasks: list[Task], boilerplate: set[str]) -> dict[str, Any]:
    """The test tasks with a training twin of each kind, and a few of the first-turn twins found."""
    keys = {t.id: twin_keys(t, boilerplate) for t in tasks}
    first_in_train: dict[tuple[str, tuple[str, ...]], str] = {}
    chains_in_train = set()
    for t in tasks:
        if t.split == "train":
            first_in_train.setdefault(keys[t.id].first_turn, t.id)
            chains_in_train.add(keys[t.id].intent_chain)
    test = [t for t in tasks if t.split == "test"]
    first = [t for t in test if keys[t.id].first_turn in first_in_train]
    chain = [t for t in test if keys[t.id].intent_chain is not None and keys[t.id].intent_chain in chains_in_train]
    return {
        "test_tasks": len(test),
        "intent_chain": _share(len(chain), len(test)),
        "first_turn": _share(len(first), len(test)),
        "intent_chain_tasks": len(chain),
        "first_turn_tasks": len(first),
        "first_turn_examples": [
            {"test": t.id, "train": first_in_train[keys[t.id].first_turn], "core": keys[t.id].first_turn[0]}
            for t in first[:EXAMPLES]
        ],
    }


def reference_dates(tasks: Iterable[Task], library: Library) -> dict[str, Any]:
    days = {d for d in (reference_date(t, library) for t in tasks) if d is not None}
    return {
        "distinct": len(days),
        "first": min(days).isoformat() if days else None,
        "last": max(days).isoformat() if days else None,
        "weekend_days": sum(d.weekday() >= 5 for d in days),
    }


def reference_date(task: Task, library: Library) -> date | None:
    """The task's own date (a date field of the task, of its initial state or of its synthesis record), else its
    world's "now"; None for a task on a server with no date of its own."""
    for holder in (task, task.initial):
        for name in DATE_FIELDS:
            if (value := getattr(holder, name, None)) is not None:
                return _day(value)
    synth = task.meta.get("synth", {})
    for name in DATE_FIELDS:
        if synth.get(name):
            return _day(synth[name])
    now = reference_now(task, library)
    return now.date() if now else None


def _day(value: Any) -> date:
    if isinstance(value, datetime):
        return value.date()
    return value if isinstance(value, date) else date.fromisoformat(str(value)[:10])


def _share(a: int, b: int) -> float | None:
    return round(a / b, 4) if b else None
