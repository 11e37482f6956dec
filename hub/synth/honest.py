"""The figures of an honest split, added to the realism report (``hub.synth.realism``):

- ``twins``: test tasks with a training twin, as shares of the test tasks. ``intent_chain``: a training task with
  the same intent chain and tool sequence; ``first_turn``: one with the same core first turn (its phrasing with
  names, numbers, ids, dates and quoted values masked and stock sentences dropped: ``hub.synth.phrasing.core``)
  and tool sequence. A test task with a twin measures recall of a training task, not a goal never trained on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hub.synth.phrasing import core, stock, turn_values
from hub.tasks import Task

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


def figures(tasks: list[Task]) -> dict[str, Any]:
    return {"twins": twins(tasks, stock(tasks))}


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


def _share(a: int, b: int) -> float | None:
    return round(a / b, 4) if b else None
