"""The checks every draft passes before a run keeps it, in order (each drop counted by reason):

0. every ground-truth value is grounded (``hub.synth.grounding``: its source recorded no ``ungrounded`` one);
1. a clarify task does not state what it withholds; its kind's integrity check (``hub.synth.checks``);
2. its calls form one connected dependency graph;
3. it is no near duplicate beyond the repeat bound (``hub.synth.validate.Deduper``, per kind), and an mcp task
   that repeats a kept tool-name sequence waits while it would take distinct sequences below ``min_distinct``;
4. its ground truth replays on a fresh fork within ``max_error_rate`` (the expected state hashes), and every
   structured file it writes still parses (``hub.synth.files``).
"""

from __future__ import annotations

from hub.state.library import Library
from hub.synth import checks
from hub.synth.config import Stats, SynthConfig
from hub.synth.files import invalid_files
from hub.synth.goals import linked
from hub.synth.realism import oracle_at_maximum
from hub.synth.steer import Steering
from hub.synth.validate import Deduper, call_tokens, validate_replay
from hub.tasks import Task


def sequence(task: Task) -> tuple[str, ...]:
    """The task's tool-name sequence (``server__tool`` of each ground-truth call, in order)."""
    return tuple(s.name for s in task.gt_steps())


def linked_steps(task: Task) -> bool:
    """The ground-truth steps form one connected dependency graph."""
    steps = task.gt_steps()
    index = {s.id: i for i, s in enumerate(steps)}
    return linked([[(index[a], "after") for a in s.after] for s in steps])


class Gate:
    def __init__(self, library: Library, config: SynthConfig, steer: Steering, stats: Stats) -> None:
        self.library = library
        self.config = config
        self.steer = steer
        self.stats = stats
        self.dedup: dict[tuple[str, int], Deduper] = {}
        self.mcp_kept = 0
        self.swapping = False  # the top-up replaces tasks (the run is full)

    def admit(self, task: Task) -> Task | None:
        """``task`` with its expected state hashes when it passes every check, else None (the reason counted)."""
        synth = task.meta["synth"]
        if synth.get("ungrounded"):
            self.stats.dropped["ungrounded_value"] += 1
            return None
        omitted = synth.get("omitted")
        if omitted is not None and omitted in task.turns[0].user:
            self.stats.dropped["clarify_leak"] += 1
            return None
        if not checks.keep(task, self.library, self.stats.dropped):
            return None
        if task.kind == "clarify" and not oracle_at_maximum(task, self.library):
            self.stats.dropped["oracle_below_maximum"] += 1
            return None
        if len(task.gt_steps()) > 1 and not linked_steps(task):
            self.stats.dropped["unlinked"] += 1
            return None
        tokens = call_tokens(task)
        scope = (task.kind, task.initial.seed if self.config.dedup_scope == "world" else -1)
        dedup = self.dedup.setdefault(scope, Deduper(self.config.dedup_threshold, self.config.repeats))
        found = dedup.matches(tokens)
        if found and not dedup.may_repeat(found, task.initial.seed):
            self.stats.dropped["near_duplicate"] += 1
            return None
        if not self._distinct_after(task):
            self.stats.dropped["sequence_share"] += 1
            return None
        self.stats.replayed += 1
        report = validate_replay(task, self.library)
        synth["replay"] = {"calls": report.calls, "errors": report.errors}
        if report.error_rate > self.config.max_error_rate or not report.state_hash:
            self.stats.dropped["error_rate"] += 1
            return None
        if invalid_files(task, self.library):
            self.stats.dropped["invalid_file"] += 1
            return None
        task.expected_state_hash, task.expected_server_hashes = report.state_hash, report.server_hashes
        self.stats.replay_verified += 1
        self.stats.sources[synth["source"] + "_kept"] += 1
        if found:
            dedup.repeat(found, task.initial.seed)
            synth["repeat"] = True
            self.stats.repeats[task.kind] += 1
        else:
            dedup.add(tokens, task.initial.seed)
        if task.kind == "mcp":
            self.mcp_kept += 1
            self.steer.sequences.add(sequence(task))
        return task

    def _distinct_after(self, task: Task) -> bool:
        """Whether keeping an mcp task leaves distinct tool-name sequences / mcp tasks at least
        ``min_distinct``: a task with a new name sequence always does; one that repeats a kept name
        sequence (a repeat, or a new structure that differs only in argument keys) waits for room. A top-up
        swap always does: its victim's sequence is one another task holds, so the count cannot drop."""
        if task.kind != "mcp" or self.swapping or sequence(task) not in self.steer.sequences:
            return True
        return len(self.steer.sequences) >= self.config.min_distinct * (self.mcp_kept + 1)
