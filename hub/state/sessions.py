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

from hub import ids
from hub.errors import CapacityError, InternalSession, SessionError, SessionExpired
from hub.state.db import Fork, combine
from hub.state.library import Library

DEFAULT_SESSION = "default"
MAX_ENDED = 100_000
EXPIRED = "closed after idling longer than the TTL"


class Budget:
    """The bytes that session forks hold, against ``HUB_MAX_STATE_BYTES`` (``None``: no limit)."""

    def __init__(self, limit: int | None = None) -> None:
        self.limit = limit
        self.held = 0

    def free(self) -> int | None:
        return None if self.limit is None else max(0, self.limit - self.held)

    def check(self, extra: int, what: str) -> None:
        if self.limit is not None and self.held + extra > self.limit:
            raise CapacityError(
                f"state memory budget reached: {what} needs {extra:,} bytes, {self.held:,} of "
                f"{self.limit:,} are held; close sessions or raise HUB_MAX_STATE_BYTES"
            )

    def take(self, extra: int, what: str) -> None:
        self.check(extra, what)
        self.held += extra


def fork_bytes(fork: Fork) -> int:
    """The bytes the memory budget charges a fork (each kind of fork says what it holds)."""
    return fork.held_bytes


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
    internal: bool = False  # the hub's own (a task's starting state): unlisted, read-only to callers
    budget: Budget = field(default_factory=Budget, repr=False)
    sizes: dict[str, int] = field(default_factory=dict, repr=False)

    def fork_of(self, server: str) -> Fork:
        found = self.forks.get(server)
        if found is None:
            found = self.add_fork(server, self.library.mount(server).open(self.seed, self.configs.get(server)))
        return found

    def add_fork(self, server: str, fork: Fork) -> Fork:
        """Hold ``fork`` as this session's state of ``server``, if the memory budget has room for it."""
        size = fork_bytes(fork)
        self.budget.take(size, f"a fork of {server} for session {self.id!r}")
        self.forks[server] = fork
        self.sizes[server] = size
        return fork

    def remeasure(self, server: str) -> None:
        """Account for a write that grew or shrank a fork (never refused: the fork exists already)."""
        fork = self.forks.get(server)
        if fork is not None:
            size = fork_bytes(fork)
            self.budget.held += size - self.sizes.get(server, 0)
            self.sizes[server] = size

    @property
    def nbytes(self) -> int:
        return sum(self.sizes.values())

    def release(self) -> None:
        """Give this session's bytes back to the budget (on close)."""
        self.budget.held -= self.nbytes
        self.sizes.clear()

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

    def __init__(
        self,
        library: Library,
        *,
        seed: int = 0,
        ttl_s: float = 3600.0,
        max_sessions: int = 10_000,
        max_state_bytes: int | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.library = library
        self.budget = Budget(max_state_bytes)
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
        found = self.sessions.get(ids.session_id(sid))
        if found is None:
            if sid in self.ended:
                raise self.ended_error(sid)
            if not create:
                raise SessionError(f"unknown or closed session {sid!r}")
            return self.open(sid)
        found.last_used = self.clock()
        return found

    def open(
        self,
        sid: str | None = None,
        *,
        seed: int | None = None,
        snapshot: str | None = None,
        configs: dict[str, Any] | None = None,
        loader_kwargs: dict[str, Any] | None = None,
    ) -> Session:
        """A new session from the seed (or a snapshot); ``configs`` and ``loader_kwargs`` (by server) give
        mounted servers their starting scenario, loaded now so that a bad one fails here."""
        from hub.mount import scenarios

        sid = ids.session_id(sid) if sid else new_session_id()
        if seed is not None:
            ids.seed(seed)
        if sid in self.sessions:
            raise SessionError(f"session {sid!r} already exists")
        self._make_room()
        now = self.clock()
        if snapshot is not None:
            snap = self.snapshot(snapshot)
            self.budget.check(sum(len(d) for d in snap.servers.values()), f"snapshot {snap.id}")
            session = Session(sid, snap.seed, self.library, now, now, parent=snap.id, budget=self.budget)
            try:
                for name, data in snap.servers.items():
                    session.add_fork(name, self.library.mount(name).restore(snap.seed, data))
            except BaseException:
                session.release()
                raise
        else:
            session = Session(sid, self.seed if seed is None else seed, self.library, now, now, budget=self.budget)
        session.configs.update(scenarios(self.library, configs, loader_kwargs, restored=session.forks))
        for server in session.configs:
            session.fork_of(server)
        self.sessions[sid] = session
        self.ended.pop(sid, None)
        return session

    def fork(self, sid: str, new_id: str | None = None) -> Session:
        """A copy of session ``sid``: every touched server cloned; the parent is unchanged."""
        return self.fork_group(sid, [new_id])[0]

    def fork_group(self, sid: str, new_ids: list[str | None]) -> list[Session]:
        """Copies of ``sid``, one per id, all or none: a group the hub cannot hold whole opens nothing."""
        parent = self.get(sid, create=False)
        n = len(new_ids)
        if len(self.sessions) + n > self.max_sessions:
            self.sweep()
        if len(self.sessions) + n > self.max_sessions:
            raise CapacityError(
                f"session cap reached: {n} more sessions do not fit ({len(self.sessions)} of "
                f"{self.max_sessions} open); close sessions or raise HUB_MAX_SESSIONS"
            )
        self.budget.check(parent.nbytes * n, f"{n} forks of session {sid!r}")
        made: list[Session] = []
        try:
            for new_id in new_ids:
                child = self.open(new_id, seed=parent.seed)
                made.append(child)
                child.parent = parent.id
                child.configs = dict(parent.configs)
                for name, fork in parent.forks.items():
                    child.add_fork(name, fork.clone())
        except BaseException:
            for child in made:
                self._discard(child.id)
            raise
        return made

    def _discard(self, sid: str) -> None:
        """Take back a session that was never handed out (a group that could not open whole)."""
        found = self.sessions.pop(sid, None)
        if found is not None:
            found.release()

    def visible(self) -> list[Session]:
        """The sessions callers may see: every open one but the hub's internal ones."""
        return [s for s in self.sessions.values() if not s.internal]

    def close(self, sid: str, *, internal: bool = False) -> None:
        """Close ``sid``; only the hub itself (``internal=True``) closes its internal sessions."""
        if sid == DEFAULT_SESSION:
            raise SessionError("the default session cannot be closed")
        ids.session_id(sid)
        found = self.sessions.get(sid)
        if found is not None and found.internal and not internal:
            raise InternalSession(sid, "close")
        if found is None:
            raise self.ended_error(sid) if sid in self.ended else SessionError(f"unknown or closed session {sid!r}")
        del self.sessions[sid]
        found.release()
        self._end(sid, "closed")

    def ended_error(self, sid: str) -> SessionError:
        """Why ``sid`` is gone, for a late caller: ``SessionExpired`` when the TTL sweep closed it."""
        kind = SessionExpired if self.ended.get(sid) == EXPIRED else SessionError
        return kind(f"session {sid!r} was {self.ended.get(sid)}; open a new session (or reopen this id explicitly)")

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
            self.sessions.pop(sid).release()
            self._end(sid, EXPIRED)
        return expired

    def _make_room(self) -> None:
        if len(self.sessions) < self.max_sessions:
            return
        self.sweep()
        if len(self.sessions) >= self.max_sessions:
            raise CapacityError(
                f"session cap reached ({self.max_sessions} open); close sessions or raise HUB_MAX_SESSIONS"
            )

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
