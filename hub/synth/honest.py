"""The figures of an honest split, added to the realism report (``hub.synth.realism``):

- ``twins``: test tasks with a training twin, as shares of the test tasks. ``intent_chain``: a training task with
  the same intent chain and tool sequence; ``first_turn``: one with the same core first turn (its phrasing with
  names, numbers, ids, dates, quoted values and the ground truth's values masked, greetings, introductions,
  closers and date asides stripped: ``first_core``) and tool sequence. A test task with a twin measures recall
  of a training task, not a goal never trained on. ``opener_as_follow_up``: test tasks whose opening intent a
  training task has as a follow-up (a goal held out as an opener can still be trained on later in a dialogue).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from hub.synth.output import stratum
from hub.synth.phrasing import core
from hub.tasks import Task

EXAMPLES = 5
MIN_VALUE = 3  # shorter values ("no", "5") are masked as words or numbers, or not at all


@dataclass(frozen=True)
class TwinKeys:
    """A task's keys for the two kinds of twin; two tasks with an equal key are twins of that kind."""

    first_turn: tuple[str, tuple[str, ...]]
    intent_chain: tuple[tuple[str, ...], tuple[str, ...]] | None  # None: a task no intent made


def twin_keys(task: Task) -> TwinKeys:
    sequence = tuple(s.name for s in task.gt_steps())
    intents = tuple(task.meta.get("synth", {}).get("intents") or ())
    return TwinKeys((first_core(task), sequence), (intents, sequence) if intents else None)


def first_core(task: Task) -> str:
    """The core phrasing of the task's first turn (``hub.synth.phrasing.core``), with the values its ground truth
    uses masked too: "what did I spend on groceries?" and "... on dining?" say one thing of two values."""
    text = task.turns[0].user
    for value in sorted(_strings(s.arguments for s in task.gt_steps()), key=lambda v: (-len(v), v)):
        text = re.sub(rf"(?<!\w){re.escape(value)}(?!\w)", "<v>", text, flags=re.IGNORECASE)
    return core(text)


def _strings(values: Iterable[Any]) -> set[str]:
    out: set[str] = set()
    for v in values:
        if isinstance(v, dict):
            out |= _strings(v.values())
        elif isinstance(v, list):
            out |= _strings(v)
        elif isinstance(v, str) and len(v) >= MIN_VALUE:
            out.add(v)
    return out


def figures(tasks: list[Task]) -> dict[str, Any]:
    return {"twins": twins(tasks)}


def twins(tasks: list[Task]) -> dict[str, Any]:
    """The test tasks with a training twin of each kind, and a few of the first-turn twins found."""
    keys = {t.id: twin_keys(t) for t in tasks}
    first_in_train: dict[tuple[str, tuple[str, ...]], str] = {}
    chains_in_train = set()
    follow_ups: set[tuple[str, str]] = set()
    for t in tasks:
        if t.split == "train":
            first_in_train.setdefault(keys[t.id].first_turn, t.id)
            chains_in_train.add(keys[t.id].intent_chain)
            follow_ups |= {(stratum(t)[0], i) for i in t.meta.get("synth", {}).get("intents", [])[1:]}
    test = [t for t in tasks if t.split == "test"]
    first = [t for t in test if keys[t.id].first_turn in first_in_train]
    chain = [t for t in test if keys[t.id].intent_chain is not None and keys[t.id].intent_chain in chains_in_train]
    later = [t for t in test if (stratum(t)[0], opener(t)) in follow_ups]
    return {
        "test_tasks": len(test),
        "intent_chain": _share(len(chain), len(test)),
        "first_turn": _share(len(first), len(test)),
        "intent_chain_tasks": len(chain),
        "first_turn_tasks": len(first),
        "opener_as_follow_up": _share(len(later), len(test)),
        "first_turn_examples": [
            {"test": t.id, "train": first_in_train[keys[t.id].first_turn], "core": keys[t.id].first_turn[0]}
            for t in first[:EXAMPLES]
        ],
    }


def opener(task: Task) -> str | None:
    intents = task.meta.get("synth", {}).get("intents")
    return intents[0] if intents else None


def _share(a: int, b: int) -> float | None:
    return round(a / b, 4) if b else None
