"""What a finished episode keeps after its session closes: its final state diffed against its start
and against the expected state.

At ``finish`` the episode's session still lives, so both diffs are read from the forks' dirty-row
tracking (cheap); the expected state is the task's ground truth replayed once in a private session
manager with a private event bus (never seen as live calls) and kept in a small LRU cache. An
episode whose final hashes equal the task's expected hashes needs no replay. Each diff is bounded
(rows per table and characters in all) and says what it left out, so a runaway episode cannot bloat the store.

Diffs read "from the reference to the episode": ``added`` rows exist only in the episode's state,
``removed`` only in the reference (the start, or the expected state), ``changed`` columns show
[reference, episode].
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict

from hub.engine.events import Diff, EvidenceEvent
from hub.engine.world import World
from hub.errors import SessionError, TaskError
from hub.state.library import Library
from hub.state.sessions import Session
from hub.tasks.model import Task

MAX_ROWS = 50  # per table and kind (added, removed, changed)
MAX_CHARS = 64_000  # per diff, as JSON


class ExpectedStates:
    """The state each task's ground truth leaves, replayed in a private world on first use and kept (LRU).

    Episodes finish in their sessions' lanes, side by side in worker threads: one lock keeps the cache and
    the expected sessions it holds to one reader at a time, and an evicted session is closed at once."""

    def __init__(self, library: Library, maxsize: int = 32) -> None:
        self.library = library
        self.maxsize = maxsize
        self._cache: OrderedDict[str, Session] = OrderedDict()
        self._lock = threading.RLock()

    def session(self, task: Task) -> Session:
        key = task.id + ":" + task.fingerprint()
        with self._lock:
            found = self._cache.get(key)
            if found is not None:
                self._cache.move_to_end(key)
                return found
            session = World(self.library).play(task, "expected")
            self._cache[key] = session
            while len(self._cache) > self.maxsize:
                self._cache.popitem(last=False)[1].release()
            return session

    def diff(self, task: Task, actual: Session) -> Diff:
        """Per server of the task that differs: the episode's state against the expected one."""
        with self._lock:
            return diff_sessions(actual, self.session(task), task.servers)


def diff_sessions(actual: Session, reference: Session, servers: list[str]) -> Diff:
    out: Diff = {}
    for server in servers:
        table_diff = actual.fork_of(server).diff(reference.fork_of(server))
        if table_diff:
            out[server] = table_diff
    return out


def bound(diff: Diff, max_rows: int = MAX_ROWS, max_chars: int = MAX_CHARS) -> tuple[Diff, int]:
    """The diff with at most ``max_rows`` rows per table and kind, then tables dropped past ``max_chars``.

    Returns the bounded diff and how many rows it left out; a cut table keeps its full counts in
    ``counts`` so the page can say "first 50 of 312".
    """
    out: Diff = {}
    left_out = 0
    size = 0
    for server, tables in diff.items():
        for table, d in tables.items():
            counts = {k: len(d.get(k, [])) for k in ("added", "removed", "changed")}
            cut = {k: d.get(k, [])[:max_rows] for k in counts}
            dropped = sum(counts.values()) - sum(len(v) for v in cut.values())
            cost = len(json.dumps(cut, default=str))
            if size + cost > max_chars:
                left_out += sum(counts.values())
                out.setdefault(server, {})[table] = {
                    "added": [],
                    "removed": [],
                    "changed": [],
                    "counts": counts,
                    "omitted": True,
                }
                continue
            size += cost
            left_out += dropped
            out.setdefault(server, {})[table] = {**cut, "counts": counts} if dropped else cut
    return out, left_out


def matches_expected(task: Task, final: Session) -> bool | None:
    """Whether the final state equals the expected one by hashes alone; None when the task has none."""
    want = task.expected_server_hashes
    if not want:
        return None
    return all(final.fork_of(s).state_hash() == h for s, h in want.items())


def collect(
    task: Task, final: Session, start: Session | None, expected: ExpectedStates, episode: str, ts: float
) -> EvidenceEvent:
    """The evidence of one finished episode (``start``: its group's template session, when still held)."""
    notes = []
    start_diff: Diff = {}
    try:
        start_diff, cut = bound(diff_sessions(final, start, task.servers)) if start is not None else ({}, 0)
    except (ValueError, SessionError):  # the template closed (evicted) while this episode finished
        start = None
    if start is not None:
        if cut:
            notes.append(f"start diff: {cut} rows left out")
    else:
        notes.append("the start state was no longer held; no diff against it")
    match = matches_expected(task, final)
    expected_diff: Diff | None = {} if match else None
    if not match:
        try:
            full = expected.diff(task, final)
        except (TaskError, ValueError) as exc:
            notes.append(f"cannot replay the ground truth: {exc}")
            full = None
        if full is not None:
            expected_diff, cut = bound(full)
            match = not full
            if cut:
                notes.append(f"expected diff: {cut} rows left out")
    return EvidenceEvent(episode, task.id, match, start_diff, expected_diff, "; ".join(notes) or None, ts)
