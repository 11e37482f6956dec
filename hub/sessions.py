"""Sessions: one id spanning every server, each server forked lazily on first touch.

A session can be forked (every touched server copied) so that a GRPO group or a
tree search starts from one state cheaply, and snapshotted (content-addressed by
its state hash) so that a task can start from a saved state.
"""

from __future__ import annotations

import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hub.errors import SessionError
from hub.library import Library
from hub.state import Fork, combine

DEFAULT_SESSION = "default"
MAX_ENDED = 100_000


@dataclass
class Snapshot:
    id: str
    seed: int
    servers: dict[str, bytes]
    state_hash: str


@dataclass
class Session:
    id: str
    seed: int
    library: Library
    created: float
    last_used: float
    parent: str | None = None
    forks: dict[str, Fork] = field(default_factory=dict)
    configs: dict[str, Any] = field(default_factory=dict)
    calls: int = 0

    def fork_of(self, server: str) -> Fork:
        found = self.forks.get(server)
        if found is None:
            found = self.forks[server] = self.library.mount(server).open(self.seed, self.configs.get(server))
        return found

    def server_hashes(self, servers: list[str] | None = None) -> dict[str, str]:
        """Hashes of the servers (default: the touched ones) whose state differs from the seed."""
        out = {}
        for name in self.forks if servers is None else servers:
            seed_hash = self.library.mount(name).seed_hash(self.seed)
            h = self.forks[name].state_hash() if name in self.forks else seed_hash
            if h != seed_hash:
                out[name] = h
        return out

    def state_hash(self, servers: list[str] | None = None) -> str:
        """Canonical hash of the whole session (or of ``servers``): equal states, equal hashes."""
        return combine({"@seed": str(self.seed), **self.server_hashes(servers)})


class SessionManager:
    """Open sessions by id; idle TTL sweep and a cap, both configuration."""

    def __init__(self, library: Library, *, seed: int = 0, ttl_s: float = 3600.0, max_sessions: int = 10_000,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.library = library
        self.seed = seed
        self.ttl_s = ttl_s
        self.max_sessions = max_sessions
        self.clock = clock
        self.sessions: dict[str, Session] = {}
        self.ended: OrderedDict[str, str] = OrderedDict()
        self.snapshots: dict[str, Snapshot] = {}
        self.open(DEFAULT_SESSION)

    def __len__(self) -> int:
        return len(self.sessions)

    def get(self, sid: str, *, create: bool = True) -> Session:
        """The session ``sid``; a new one from the seed when ``create`` and it does not exist."""
        found = self.sessions.get(sid)
        if found is None:
            if sid in self.ended:
                raise SessionError(f"session {sid!r} was {self.ended[sid]}; open a new session (or reopen this id explicitly)")
            if not create:
                raise SessionError(f"unknown or closed session {sid!r}")
            return self.open(sid)
        found.last_used = self.clock()
        return found

    def open(self, sid: str | None = None, *, seed: int | None = None, snapshot: str | None = None,
             configs: dict[str, Any] | None = None) -> Session:
        """A new session from the seed (or a snapshot); ``configs`` gives mounted servers their starting scenario."""
        sid = sid or new_session_id()
        if sid in self.sessions:
            raise SessionError(f"session {sid!r} already exists")
        self._make_room()
        now = self.clock()
        if snapshot is not None:
            snap = self.snapshot(snapshot)
            session = Session(sid, snap.seed, self.library, now, now, parent=snap.id)
            session.forks = {name: self.library.mount(name).restore(snap.seed, data) for name, data in snap.servers.items()}
        else:
            session = Session(sid, self.seed if seed is None else seed, self.library, now, now)
        for server, config in (configs or {}).items():
            self.library.mount(server)
            session.configs[server] = config
        self.sessions[sid] = session
        self.ended.pop(sid, None)
        return session

    def fork(self, sid: str, new_id: str | None = None) -> Session:
        """A copy of session ``sid``: every touched server cloned; the parent is unchanged."""
        parent = self.get(sid, create=False)
        child = self.open(new_id, seed=parent.seed)
        child.parent = parent.id
        child.configs = dict(parent.configs)
        child.forks = {name: fork.clone() for name, fork in parent.forks.items()}
        return child

    def close(self, sid: str) -> None:
        if sid == DEFAULT_SESSION:
            raise SessionError("the default session cannot be closed")
        if self.sessions.pop(sid, None) is None:
            raise SessionError(f"unknown or closed session {sid!r}")
        self._end(sid, "closed")

    def _end(self, sid: str, reason: str) -> None:
        """Remember that ``sid`` ended, so a late call gets an error instead of a fresh world."""
        self.ended[sid] = reason
        while len(self.ended) > MAX_ENDED:
            self.ended.popitem(last=False)

    def sweep(self) -> list[str]:
        """Close sessions idle longer than the TTL; returns their ids."""
        cutoff = self.clock() - self.ttl_s
        expired = [s.id for s in self.sessions.values() if s.last_used < cutoff and s.id != DEFAULT_SESSION]
        for sid in expired:
            del self.sessions[sid]
            self._end(sid, "closed after idling longer than the TTL")
        return expired

    def _make_room(self) -> None:
        if len(self.sessions) < self.max_sessions:
            return
        self.sweep()
        if len(self.sessions) >= self.max_sessions:
            raise SessionError(f"session cap reached ({self.max_sessions} open); close sessions or raise HUB_MAX_SESSIONS")

    def take_snapshot(self, sid: str) -> Snapshot:
        """Save a session's state under its content address."""
        session = self.get(sid, create=False)
        state_hash = session.state_hash()
        snap_id = "snap-" + state_hash[:20]
        if snap_id not in self.snapshots:
            servers = {name: fork.dump() for name, fork in session.forks.items()}
            self.snapshots[snap_id] = Snapshot(snap_id, session.seed, servers, state_hash)
        return self.snapshots[snap_id]

    def snapshot(self, snap_id: str) -> Snapshot:
        found = self.snapshots.get(snap_id)
        if found is None:
            raise SessionError(f"unknown snapshot {snap_id!r}")
        return found


def new_session_id() -> str:
    return "s-" + secrets.token_hex(8)
