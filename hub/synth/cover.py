"""The top-up: every tool used fewer than ``min_tool_uses`` times in the ground truth gets tasks anchored on it,
rarest first; each is appended while the run is short of ``n``, else swapped in for an mcp task of the same
server whose tools all stay at or above the floor and whose tool-name sequence another task also holds (so
neither the balance between servers nor the distinct-sequence share drops).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from hub.synth.config import Slot, Stats
from hub.synth.gate import Gate, sequence
from hub.synth.output import stratum
from hub.synth.steer import Steering
from hub.tasks import Task

Attempt = Callable[[Slot, str, int, str], Task | None]  # (slot, server, attempt number, anchor tool)


def cover(
    tasks: list[Task],
    all_tools: list[str],
    n: int,
    floor: int,
    tries: int,
    attempt: Attempt,
    counters: Counter[str],
    gate: Gate,
    steer: Steering,
    stats: Stats,
) -> list[Task]:
    """``tasks`` topped up (``tries`` attempts per missing use of a tool); ``attempt`` drafts and checks one."""
    counts: Counter[str] = Counter(s.name for t in tasks for s in t.gt_steps())
    held = Counter(sequence(t) for t in tasks if t.kind == "mcp")
    for name in sorted((n for n in all_tools if counts[n] < floor), key=lambda n: counts[n]):
        server, tool = name.split("__", 1)
        for _ in range(tries * (floor - counts[name])):
            if counts[name] >= floor:
                break
            j = counters["cover"]
            counters["cover"] += 1
            gate.swapping = len(tasks) >= n
            task = attempt(Slot("mcp", "complete", None), server, 100_000 + j, tool)
            if task is None or name not in {s.name for s in task.gt_steps()}:
                continue
            if not _place(tasks, n, counts, held, task, floor, stats):
                break
            steer.tool_counts.update(s.name for s in task.gt_steps())
    gate.swapping = False
    return tasks


def _place(
    tasks: list[Task],
    n: int,
    counts: Counter[str],
    held: Counter[tuple[str, ...]],
    task: Task,
    floor: int,
    stats: Stats,
) -> bool:
    """Add a top-up task (or swap it for a victim); False when no task can make room for it. ``counts``
    (uses per tool) and ``held`` (tasks per tool-name sequence) follow the change."""
    if len(tasks) < n:
        tasks.append(task)
    else:
        victim = _victim(tasks, counts, held, task, floor)
        if victim is None:
            return False
        for s in tasks[victim].gt_steps():
            counts[s.name] -= 1
        held[sequence(tasks[victim])] -= 1
        tasks[victim] = task
        stats.coverage_swaps += 1
    counts.update(s.name for s in task.gt_steps())
    held[sequence(task)] += 1
    return True


def _victim(
    tasks: list[Task], counts: Counter[str], held: Counter[tuple[str, ...]], new: Task, floor: int, look: int = 400
) -> int | None:
    """The last mcp task (among the last ``8 * look``), of ``new``'s server if one fits within ``look`` more
    tasks, whose removal leaves every tool it uses at ``floor`` uses or more (counting ``new``'s) and whose
    tool-name sequence another task also holds (``held``: tasks per sequence), so distinct sequences do not drop."""
    gained = Counter(s.name for s in new.gt_steps())
    fits: int | None = None
    for i in range(len(tasks) - 1, max(-1, len(tasks) - 1 - 8 * look), -1):
        t = tasks[i]
        if fits is not None and fits - i > look:
            break
        if t.kind != "mcp" or held[sequence(t)] < 2:
            continue
        if not _removable(t, counts, gained, floor):
            continue
        if stratum(t)[0] == stratum(new)[0]:
            return i
        fits = i if fits is None else fits
    return fits


def _removable(task: Task, counts: Counter[str], gained: Counter[str], floor: int) -> bool:
    used = Counter(s.name for s in task.gt_steps())
    return all(counts[n] + gained[n] - k >= floor for n, k in used.items())
