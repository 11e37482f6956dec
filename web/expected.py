"""The expected final state of a task, and an episode's final state diffed against it.

The ground truth is replayed once per task in a private session manager with a private event bus
(so replays never show up as live tool calls or in the store) and kept in a small LRU cache.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from hub.library import Library
from hub.sessions import Session
from hub.state import Fork
from hub.tasks import Task
from hub.world import World


class ExpectedStates:
    def __init__(self, library: Library, maxsize: int = 32) -> None:
        self.library = library
        self.maxsize = maxsize
        self._cache: OrderedDict[str, Session] = OrderedDict()

    def session(self, task: Task) -> Session:
        """A session holding the state the task's ground truth leaves (replayed on first use)."""
        key = task.id + ":" + task.fingerprint()
        found = self._cache.get(key)
        if found is not None:
            self._cache.move_to_end(key)
            return found
        session = World(self.library).play(task, "expected")
        self._cache[key] = session
        while len(self._cache) > self.maxsize:
            self._cache.popitem(last=False)
        return session

    def diff(self, task: Task, actual: Session) -> dict[str, dict[str, Any]]:
        """Per server of the task: rows the episode's state has that the expected state lacks, and so on.

        Read it as "from expected to actual": ``added`` rows exist only in the episode's final state,
        ``removed`` rows only in the expected one, ``changed`` columns show [expected, actual].
        """
        expected = self.session(task)
        out: dict[str, dict[str, Any]] = {}
        for server in task.servers:
            mine: Fork = actual.fork_of(server)
            theirs: Fork = expected.fork_of(server)
            table_diff = mine.diff(theirs)
            if table_diff:
                out[server] = table_diff
        return out
