"""Validation: replay on a fresh fork, the error filter, grounding, and near-duplicate removal.

- ``validate_replay``: the ground truth (the model-facing path) replayed on a fresh initial state;
  only its schema-level and execution errors count (an empty result is not an error; the
  synthesizer's own rejected guesses never do); above ``max_error_rate`` (0.30) a task is dropped.
  ``replay_errors`` replays a whole synthesized trajectory, failed attempts included.
- ``hub.tasks.replay`` then gives the expected final state hashes (the ground truth on a fresh fork).
- ``Deduper``: Jaccard similarity over the task's tool-call sequence (``call_tokens``: each call,
  ``server__tool`` with its argument keys, not values, tagged with its turn, and each ordered pair of
  consecutive calls); a task at ≥ 0.70 with a kept one is a near duplicate. An inverted index over
  tokens with length bounds keeps it near-linear.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from hub.engine.world import World
from hub.state.library import Library
from hub.tasks import Task, TaskError, replay

ID_TOKEN = re.compile(r"\b[A-Z]{2,6}-[0-9A-Z]{2,}(?:-[0-9A-Z]+)*\b")
COUNTED_ERRORS = ("arguments", "tool", "internal", "unknown_tool", "unknown_server", "result")


@dataclass
class ReplayReport:
    calls: int
    errors: int
    state_hash: str
    server_hashes: dict[str, str]

    @property
    def error_rate(self) -> float:
        return self.errors / self.calls if self.calls else 0.0


def trajectory_of(task: Task) -> list[dict[str, Any]]:
    """The synthesized calls in order, failed attempts included (``meta.synth.trajectory``)."""
    traj = task.meta.get("synth", {}).get("trajectory")
    if traj is None:
        return [{"server": s.server, "tool": s.tool, "arguments": s.arguments} for s in task.gt_steps()]
    return list(traj)


def replay_errors(task: Task, library: Library) -> tuple[int, int]:
    """(calls, counted errors) of the task's trajectory on a fresh fork."""
    world = World(library)
    world.start(task, "validate")
    calls = errors = 0
    for call in trajectory_of(task):
        out = world.dispatcher.call("validate", call["server"], call["tool"], call["arguments"])
        calls += 1
        errors += (not out.ok) and out.error_kind in COUNTED_ERRORS
    return calls, errors


def validate_replay(task: Task, library: Library) -> ReplayReport:
    """Replay the ground truth (the model-facing path) on a fresh fork: its error count and final hashes.

    Only errors on the ground-truth path count, never the synthesizer's own rejected guesses
    (``meta.synth.trajectory``); a failing ground-truth step leaves no expected state, so it
    counts every step as failed."""
    n = len(task.gt_steps())
    try:
        state_hash, server_hashes = replay(task, library)
    except TaskError:
        return ReplayReport(max(n, 1), max(n, 1), "", {})
    return ReplayReport(n, 0, state_hash, server_hashes)


# Dedup -----------------------------------------------------------------------------------------


def call_tokens(task: Task) -> frozenset[str]:
    """The task's tool-call sequence as tokens: each call as ``server__tool(argument keys)`` with the
    ordinal of its turn (among turns with calls), and each pair of consecutive calls, in order, joined
    by ``>`` within a turn and ``|`` across a turn boundary. Values are not compared (two tasks that
    differ only in ids are near duplicates); order and turn split are (the same calls in another order,
    or split over other turns, are another sequence). An abstain task's token is its text."""
    calls = [
        (k, f"{s.name}({','.join(sorted(s.arguments))})")
        for k, turn in enumerate(t for t in task.turns if t.calls)
        for s in turn.calls
    ]
    if not calls:
        text = " ".join(re.sub(r"\W+", " ", task.turns[0].user.lower()).split())
        return frozenset({f"text:{text}"})
    tokens = {f"{k}:{call}" for k, call in calls}
    tokens |= {f"{a}{'>' if i == j else '|'}{b}" for (i, a), (j, b) in zip(calls, calls[1:])}
    return frozenset(tokens)


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


@dataclass
class Deduper:
    """Online near-duplicate filter: ``admit`` keeps a token set unless a kept one is ≥ threshold similar.

    ``repeats`` > 1 allows a bounded repeat of a structure across world seeds: a near duplicate may
    still be kept (``repeat``) while every kept set it matches has fewer than ``repeats`` copies and
    none of them on its world seed."""

    threshold: float = 0.70
    repeats: int = 1
    sets: list[frozenset[str]] = field(default_factory=list)
    index: dict[str, list[int]] = field(default_factory=dict)
    worlds: list[set[int | None]] = field(default_factory=list)
    comparisons: int = 0

    def matches(self, tokens: frozenset[str]) -> list[int]:
        """The kept sets at least ``threshold`` similar to ``tokens``."""
        n = len(tokens)
        lo, hi = self.threshold * n, n / self.threshold if self.threshold else float("inf")
        overlap: dict[int, int] = {}
        for tok in tokens:
            for i in self.index.get(tok, ()):
                overlap[i] = overlap.get(i, 0) + 1
        out = []
        for i, common in overlap.items():
            m = len(self.sets[i])
            if m < lo or m > hi:
                continue
            self.comparisons += 1
            if common / (n + m - common) >= self.threshold:
                out.append(i)
        return out

    def duplicate_of(self, tokens: frozenset[str]) -> int | None:
        found = self.matches(tokens)
        return found[0] if found else None

    def may_repeat(self, found: list[int], world: int | None) -> bool:
        """Whether a near duplicate of ``found`` on ``world`` stays within the repeat bound."""
        return bool(found) and all(len(self.worlds[i]) < self.repeats and world not in self.worlds[i] for i in found)

    def repeat(self, found: list[int], world: int | None) -> None:
        for i in found:
            self.worlds[i].add(world)

    def admit(self, tokens: frozenset[str]) -> bool:
        if self.duplicate_of(tokens) is not None:
            return False
        self.add(tokens)
        return True

    def add(self, tokens: frozenset[str], world: int | None = None) -> int:
        i = len(self.sets)
        self.sets.append(tokens)
        self.worlds.append({world})
        for tok in tokens:
            self.index.setdefault(tok, []).append(i)
        return i


def dedup(tasks: Iterable[Task], threshold: float = 0.70) -> tuple[list[Task], list[Task]]:
    """(kept, dropped): the first of each group of near duplicates is kept, in input order."""
    d = Deduper(threshold)
    kept: list[Task] = []
    dropped: list[Task] = []
    for t in tasks:
        (kept if d.admit(call_tokens(t)) else dropped).append(t)
    return kept, dropped


def error_filter(
    tasks: Iterable[Task], library: Library, max_error_rate: float = 0.30
) -> tuple[list[Task], list[Task]]:
    """(kept, dropped) by the replayed trajectory's error rate."""
    kept: list[Task] = []
    dropped: list[Task] = []
    for t in tasks:
        calls, errors = replay_errors(t, library)
        (dropped if calls and errors / calls > max_error_rate else kept).append(t)
    return kept, dropped
