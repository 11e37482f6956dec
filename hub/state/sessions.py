"""Sessions: one id spanning every server, each server forked lazily on first touch.

A session can be forked (every touched server copied) so that a GRPO group or a
tree search starts from one state cheaply, and snapshotted (content-addressed by
its state hash) so that a task can start from a saved state.

Memory is one budget (``HUB_MAX_STATE_BYTES``): every byte a client can make the hub hold goes
through ``Budget.charge`` — a session's forks (on open, and through every write that grows them),
its snapshots, whatever a transport charges to it (``SessionManager.charge``) — and the library's
live seed databases count against the same limit. Closing a session gives its bytes back and
closes its forks at once (after the call running in its lane, if one is).

Each session has a lane (``hub.state.lanes``): its work runs in order, off the event loop.
"""

from __future__ import annotations

import asyncio
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from hub import ids
from hub.errors import CapacityError, InternalSession, SessionError, SessionExpired
from hub.state.db import CONNECTION_BYTES, Fork, SeedLedger, combine
from hub.state.lanes import DEFAULT_THREADS, Lane
from hub.state.library import Library
from hub.state.memory import give_back

DEFAULT_SESSION = "default"
MAX_ENDED = 100_000
EXPIRED = "closed after idling longer than the TTL"
# Below this much room, a write first evicts the cached seed databases that no fork holds.
RECLAIM_BELOW = 32 << 20
# The most a write sets aside before it runs (``Budget.reserve``); a write that needs more runs again with
# everything that is free.
SLICE = 64 << 20
# After closing this many bytes, the freed memory is handed back to the system (``memory.give_back``).
GIVE_BACK_AFTER = 32 << 20


class Budget:
    """The bytes that sessions hold, plus the library's live seed databases, against
    ``HUB_MAX_STATE_BYTES`` (``None``: no limit). Thread-safe: writes charge it from worker threads.

    Writes of different sessions run side by side (lanes), and a SQLite write allocates its pages before
    anyone can measure them. So each write first reserves the bytes it may grow by (``reserve``): half of
    what no other write has reserved, at most ``SLICE``; a write that needs more is rolled back and runs
    again with all of it (``whole``). Reserved bytes count as used, so writes running together never
    allocate past the limit (without reservations, five sessions' concurrent copies each grew into the
    same free room: hundreds of MB over the budget until they were refused)."""

    def __init__(
        self, limit: int | None = None, seeds: SeedLedger | None = None, reclaim: Callable[[int], int] | None = None
    ) -> None:
        self.limit = limit
        self.held = 0
        self.reserved = 0  # set aside by writes that are running
        self.seeds = seeds or SeedLedger()
        self._reclaim = reclaim
        self._lock = threading.Lock()

    @property
    def used(self) -> int:
        return self.held + self.seeds.bytes

    def free(self) -> int | None:
        """What is neither held nor reserved (None: no limit)."""
        return None if self.limit is None else max(0, self.limit - self.used - self.reserved)

    def reserve(self, *, whole: bool = False) -> int | None:
        """Set aside the bytes a write may grow by, until ``settle`` (None: no limit): half of what is free,
        at most ``SLICE``, or (``whole``) all of it; near the limit, unused seeds go first."""
        free = self.free()
        if free is None:
            return None
        if free < RECLAIM_BELOW and self._reclaim is not None:
            self._reclaim(RECLAIM_BELOW - free)
        with self._lock:
            free = self.free() or 0
            nbytes = free if whole else min(SLICE, free // 2)
            self.reserved += nbytes
            return nbytes

    def settle(self, reserved: int, delta: int, what: str) -> None:
        """Give back a reservation, and charge ``delta`` (a write's growth, at most what it reserved)."""
        with self._lock:
            self.reserved -= reserved
            if delta > 0 and not self._fits(delta):
                raise self._refuse(delta, what)
            self.held += delta

    def _fits(self, extra: int) -> bool:
        if self.limit is None or extra <= 0 or self.used + self.reserved + extra <= self.limit:
            return True
        if self._reclaim is not None:
            self._reclaim(self.used + self.reserved + extra - self.limit)
        return self.used + self.reserved + extra <= self.limit

    def _refuse(self, extra: int, what: str) -> CapacityError:
        return CapacityError(
            f"state memory budget reached: {what} needs {extra:,} bytes, {self.used:,} of "
            f"{self.limit:,} are held; close sessions or raise HUB_MAX_STATE_BYTES"
        )

    def check(self, extra: int, what: str) -> None:
        """Raise CapacityError unless ``extra`` more bytes fit (nothing is taken)."""
        if not self._fits(extra):
            raise self._refuse(extra, what)

    def charge(self, delta: int, what: str) -> None:
        """Take ``delta`` bytes, or give them back when negative (never refused); CapacityError when they
        do not fit, and then nothing is taken."""
        with self._lock:
            if delta > 0 and not self._fits(delta):
                raise self._refuse(delta, what)
            self.held += delta


def _now(fn: Callable[[], None]) -> None:
    fn()


def fork_bytes(fork: Fork) -> int:
    """The bytes the memory budget charges a fork (each kind of fork says what it holds)."""
    return fork.held_bytes


@dataclass(eq=False)
class Snapshot:
    """A saved state; it lives while a session that took it lives, and is charged to one of them."""

    id: str
    seed: int
    servers: dict[str, bytes]
    state_hash: str
    owners: set[str] = field(default_factory=set)
    payer: str = ""

    @property
    def nbytes(self) -> int:
        return sum(len(d) for d in self.servers.values())


class _Account:
    """A write's view of its session's budget (``hub.state.db.Account``)."""

    __slots__ = ("reserved", "server", "session")

    def __init__(self, session: Session, server: str) -> None:
        self.session = session
        self.server = server
        self.reserved = 0

    def reserve(self, *, whole: bool = False) -> int | None:
        self.release()
        room = self.session.budget.reserve(whole=whole)
        self.reserved = room or 0
        return room

    def release(self) -> None:
        if self.reserved:
            self.session.budget.settle(self.reserved, 0, "")
            self.reserved = 0

    def admit(self, nbytes: int) -> None:
        s = self.session
        if s.closed:
            self.release()
            raise SessionError(f"session {s.id!r} was closed while the call ran")
        reserved, self.reserved = self.reserved, 0
        s.budget.settle(reserved, nbytes - s.sizes.get(self.server, 0), f"a write to {self.server} in session {s.id!r}")
        s.sizes[self.server] = nbytes


@dataclass(eq=False)
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
    sizes: dict[str, int] = field(default_factory=dict, repr=False)  # bytes charged per fork
    charged: int = field(default=0, repr=False)  # bytes charged besides forks (snapshots, transports)
    snapshots: set[str] = field(default_factory=set, repr=False)
    lane: Lane | None = field(default=None, repr=False)
    closed: bool = field(default=False, repr=False)

    def fork_of(self, server: str) -> Fork:
        found = self.forks.get(server)
        if found is None:
            if self.closed:
                raise SessionError(f"session {self.id!r} is closed")
            found = self.add_fork(server, self.library.mount(server).open(self.seed, self.configs.get(server)))
        return found

    def add_fork(self, server: str, fork: Fork, *, charged: bool = False) -> Fork:
        """Hold ``fork`` as this session's state of ``server``, if the memory budget has room for it (or
        ``charged``: its bytes were taken already). A fork that does not fit is closed."""
        size = fork_bytes(fork)
        try:
            if self.closed:
                raise SessionError(f"session {self.id!r} is closed")
            if not charged:
                self.budget.charge(size, f"a fork of {server} for session {self.id!r}")
        except BaseException:
            fork.close()
            raise
        # Copy on write: the loop may be iterating the old dicts while a worker thread adds a fork.
        self.forks = {**self.forks, server: fork}
        self.sizes = {**self.sizes, server: size}
        return fork

    def account(self, server: str) -> _Account:
        """What a write to ``server`` charges its growth to."""
        return _Account(self, server)

    def charge(self, delta: int, what: str = "") -> None:
        """Charge ``delta`` bytes to this session (give back when negative); CapacityError past the
        budget. Whatever is charged is given back when the session closes."""
        if self.closed and delta > 0:
            raise SessionError(f"session {self.id!r} is closed")
        self.budget.charge(delta, what or f"session {self.id!r}")
        self.charged += delta

    @property
    def nbytes(self) -> int:
        return sum(self.sizes.values()) + self.charged

    @property
    def busy(self) -> bool:
        return self.lane is not None and self.lane.busy

    def release(self, closer: Callable[[Callable[[], None]], None] | None = None) -> None:
        """Give this session's bytes back to the budget and close its forks, now (or, when a job is
        running in its lane, as soon as it ends); ``closer`` runs the closing (by default, here). The
        session is unusable after."""
        self.closed = True
        self.budget.charge(-self.nbytes, "")
        self.sizes, self.charged = {}, 0
        forks, self.forks = list(self.forks.values()), {}

        def close_forks() -> None:
            for fork in forks:
                fork.close()

        def close() -> None:
            (closer or _now)(close_forks)

        if self.lane is not None:
            self.lane.when_idle(close)
        else:
            close()

    def server_hashes(self, servers: list[str] | None = None) -> dict[str, str]:
        """Hashes of the servers (default: the touched ones) whose state differs from where it started.

        Untouched servers are at their start by definition, so no seed is ever rebuilt to hash them."""
        out = {}
        forks = self.forks
        for name in forks if servers is None else servers:
            fork = forks.get(name)
            if fork is None:
                continue
            h = fork.state_hash()
            if h != fork.base_hash():
                out[name] = h
        return out

    def state_hash(self, servers: list[str] | None = None) -> str:
        """Canonical hash of the whole session (or of ``servers``): equal states, equal hashes."""
        return combine({"@seed": str(self.seed), **self.server_hashes(servers)})


class SessionManager:
    """Open sessions by id; idle TTL sweep and a cap, both configuration; the memory budget."""

    def __init__(
        self,
        library: Library,
        *,
        seed: int = 0,
        ttl_s: float = 3600.0,
        max_sessions: int = 10_000,
        max_state_bytes: int | None = None,
        clock: Callable[[], float] = time.monotonic,
        threads: int = DEFAULT_THREADS,
    ) -> None:
        self.library = library
        self.budget = Budget(max_state_bytes, library.seeds, library.evict_seeds)
        self.seed = seed
        self.ttl_s = ttl_s
        self.max_sessions = max_sessions
        self.clock = clock
        self.threads = threads
        self.sessions: dict[str, Session] = {}
        self.ended: OrderedDict[str, str] = OrderedDict()
        self.snapshots: dict[str, Snapshot] = {}
        self._lock = threading.RLock()
        self._executor: ThreadPoolExecutor | None = None
        self._released = 0  # bytes closed since memory was last given back
        self.open(DEFAULT_SESSION)

    def __len__(self) -> int:
        return len(self.sessions)

    # Threads ------------------------------------------------------------------------------------

    def executor(self) -> ThreadPoolExecutor:
        """The worker threads that run the sessions' lanes (started on first use)."""
        if self._executor is None:
            with self._lock:
                if self._executor is None:
                    self._executor = ThreadPoolExecutor(self.threads, thread_name_prefix="hub-lane")
        return self._executor

    def shutdown(self) -> None:
        """Stop the worker threads once the jobs running now end (queued ones are dropped)."""
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None

    # Sessions -----------------------------------------------------------------------------------

    def get(self, sid: str, *, create: bool = True) -> Session:
        """The session ``sid``; a new one from the seed when ``create`` and it does not exist. A new one
        is refused (CapacityError, nothing created) at the session cap or when the budget is full."""
        found = self.sessions.get(ids.session_id(sid))
        if found is None:
            if sid in self.ended:
                raise self.ended_error(sid)
            if not create:
                raise SessionError(f"unknown or closed session {sid!r}")
            return self.open(sid)
        found.last_used = self.clock()
        return found

    def _new(self, sid: str, seed: int, parent: str | None = None) -> Session:
        now = self.clock()
        return Session(sid, seed, self.library, now, now, parent=parent, budget=self.budget, lane=Lane(self.executor))

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
        with self._lock:
            if sid in self.sessions:
                raise SessionError(f"session {sid!r} already exists")
            self._make_room(1)
            if sid != DEFAULT_SESSION:  # refused before it exists: a full budget leaves no empty session behind
                self.budget.check(CONNECTION_BYTES, f"a new session {sid!r}")
            if snapshot is not None:
                snap = self.snapshot(snapshot)
                self.budget.check(snap.nbytes, f"snapshot {snap.id}")
                session = self._new(sid, snap.seed, parent=snap.id)
                try:
                    for name, data in snap.servers.items():
                        session.add_fork(name, self.library.mount(name).restore(snap.seed, data))
                except BaseException:
                    session.release()
                    raise
            else:
                session = self._new(sid, self.seed if seed is None else seed)
            try:
                session.configs.update(scenarios(self.library, configs, loader_kwargs, restored=session.forks))
                for server in session.configs:
                    session.fork_of(server)
            except BaseException:
                session.release()
                raise
            self.sessions[sid] = session
            self.ended.pop(sid, None)
        return session

    def charge(self, sid: str, delta: int, what: str = "") -> None:
        """Charge ``delta`` bytes to session ``sid`` (give back when negative): the one door for whatever a
        client makes the hub hold on a session's behalf. CapacityError past the budget; given back on close."""
        self.get(sid, create=False).charge(delta, what)

    # Forks of sessions --------------------------------------------------------------------------

    def fork(self, sid: str, new_id: str | None = None) -> Session:
        """A copy of session ``sid``: every touched server cloned; the parent is unchanged."""
        return self.fork_group(sid, [new_id])[0]

    def fork_group(self, sid: str, new_ids: list[str | None]) -> list[Session]:
        """Copies of ``sid``, one per id, all or none: a group the hub cannot hold whole opens nothing."""
        parent = self._plan_group(sid, new_ids)
        return self._commit_group(parent, new_ids, self._clone_group(parent, len(new_ids)))

    async def fork_group_async(self, sid: str, new_ids: list[str | None]) -> list[Session]:
        """``fork_group`` with the copying done in the parent's lane, off the event loop."""
        parent = self._plan_group(sid, new_ids)
        assert parent.lane is not None
        clones = await parent.lane.run(lambda: self._clone_group(parent, len(new_ids)))
        return self._commit_group(parent, new_ids, clones)

    def _plan_group(self, sid: str, new_ids: list[str | None]) -> Session:
        parent = self.get(sid, create=False)
        for new_id in new_ids:
            if new_id is not None and ids.session_id(new_id) in self.sessions:
                raise SessionError(f"session {new_id!r} already exists")
        self._make_room(len(new_ids))
        self.budget.check(parent.nbytes * len(new_ids), f"{len(new_ids)} forks of session {sid!r}")
        return parent

    def _clone_group(self, parent: Session, n: int) -> list[dict[str, Fork]]:
        """``n`` copies of the parent's forks, their bytes charged; on any failure nothing is held."""
        copies: dict[str, list[Fork]] = {}
        charged = 0
        try:
            for name, fork in parent.forks.items():
                made = copies[name] = list(fork.clones(n))
                size = sum(fork_bytes(f) for f in made)
                self.budget.charge(size, f"{n} forks of session {parent.id!r}")
                charged += size
        except BaseException:
            self.budget.charge(-charged, "")
            for made in copies.values():
                for fork in made:
                    fork.close()
            raise
        return [{name: made[i] for name, made in copies.items()} for i in range(n)]

    def _commit_group(self, parent: Session, new_ids: list[str | None], clones: list[dict[str, Fork]]) -> list[Session]:
        made: list[Session] = []
        with self._lock:
            try:
                self._make_room(len(new_ids))
                for new_id, copies in zip(new_ids, clones):
                    sid = ids.session_id(new_id) if new_id else new_session_id()
                    if sid in self.sessions:
                        raise SessionError(f"session {sid!r} already exists")
                    child = self._new(sid, parent.seed, parent=parent.id)
                    child.configs = dict(parent.configs)
                    for name, fork in copies.items():
                        child.add_fork(name, fork, charged=True)
                    self.sessions[sid] = child
                    self.ended.pop(sid, None)
                    made.append(child)
            except BaseException:
                for child in made:
                    self.discard(child.id)
                for copies in clones[len(made) :]:
                    self.budget.charge(-sum(fork_bytes(f) for f in copies.values()), "")
                    for fork in copies.values():
                        fork.close()
                raise
        return made

    # Closing ------------------------------------------------------------------------------------

    def discard(self, sid: str) -> None:
        """Take back a session that was never handed out (a group that could not open whole, a session a
        refused call would have created): it holds nothing after, and its id is not remembered as ended."""
        with self._lock:
            found = self.sessions.pop(sid, None)
            if found is not None:
                self._release(found)

    def visible(self) -> list[Session]:
        """The sessions callers may see: every open one but the hub's internal ones."""
        return [s for s in list(self.sessions.values()) if not s.internal]

    def close(self, sid: str, *, internal: bool = False) -> None:
        """Close ``sid``; only the hub itself (``internal=True``) closes its internal sessions."""
        if sid == DEFAULT_SESSION:
            raise SessionError("the default session cannot be closed")
        ids.session_id(sid)
        with self._lock:
            found = self.sessions.get(sid)
            if found is not None and found.internal and not internal:
                raise InternalSession(sid, "close")
            if found is None:
                raise self.ended_error(sid) if sid in self.ended else SessionError(f"unknown or closed session {sid!r}")
            del self.sessions[sid]
            self._release(found)
            self._end(sid, "closed")

    def ended_error(self, sid: str) -> SessionError:
        """Why ``sid`` is gone, for a late caller: ``SessionExpired`` when the TTL sweep closed it."""
        kind = SessionExpired if self.ended.get(sid) == EXPIRED else SessionError
        return kind(f"session {sid!r} was {self.ended.get(sid)}; open a new session (or reopen this id explicitly)")

    def _release(self, session: Session) -> None:
        """Free a session's memory and the snapshots only it kept alive."""
        for snap_id in session.snapshots:
            snap = self.snapshots.get(snap_id)
            if snap is None:
                continue
            snap.owners.discard(session.id)
            if snap.payer == session.id:
                heir = next(iter(sorted(snap.owners)), None)
                session.charged -= snap.nbytes
                if heir is None:
                    self.budget.charge(-snap.nbytes, "")
                    del self.snapshots[snap_id]
                else:
                    snap.payer = heir
                    self.sessions[heir].charged += snap.nbytes
        session.snapshots.clear()
        self._released += session.nbytes
        trim = self._released >= GIVE_BACK_AFTER
        if trim:
            self._released = 0
        session.release(partial(self._close, trim=trim))

    def _close(self, close_forks: Callable[[], None], *, trim: bool) -> None:
        """Close forks (then give freed memory back): in a worker thread when an event loop runs here, so that
        closing thousands of forks (a group, a sweep) never holds the loop; else now."""

        def job() -> None:
            close_forks()
            if trim:
                give_back()

        try:
            asyncio.get_running_loop()
        except RuntimeError:
            job()
        else:
            self.executor().submit(job)

    def _end(self, sid: str, reason: str) -> None:
        """Remember that ``sid`` ended, so a late call gets an error instead of a fresh world."""
        self.ended[sid] = reason
        while len(self.ended) > MAX_ENDED:
            self.ended.popitem(last=False)

    def sweep(self) -> list[str]:
        """Close sessions idle longer than the TTL; returns their ids."""
        cutoff = self.clock() - self.ttl_s
        with self._lock:
            expired = [s.id for s in list(self.sessions.values()) if s.last_used < cutoff and s.id != DEFAULT_SESSION]
            for sid in expired:
                self._release(self.sessions.pop(sid))
                self._end(sid, EXPIRED)
        return expired

    def _make_room(self, n: int) -> None:
        if len(self.sessions) + n <= self.max_sessions:
            return
        self.sweep()
        if len(self.sessions) + n > self.max_sessions:
            what = "" if n == 1 else f": {n} more sessions do not fit"
            raise CapacityError(
                f"session cap reached{what} ({len(self.sessions)} of {self.max_sessions} open); "
                "close sessions or raise HUB_MAX_SESSIONS"
            )

    # Snapshots ----------------------------------------------------------------------------------

    def take_snapshot(self, sid: str) -> Snapshot:
        """Save a session's state under its content address. The snapshot is charged to the session and
        lives as long as a session that took it."""
        session = self.get(sid, create=False)
        state_hash = session.state_hash()
        snap_id = "snap-" + state_hash[:20]
        with self._lock:
            found = self.snapshots.get(snap_id)
            if found is None:
                servers = {name: fork.dump() for name, fork in session.forks.items()}
                found = Snapshot(snap_id, session.seed, servers, state_hash, payer=sid)
                session.charge(found.nbytes, f"snapshot of session {sid!r}")
                self.snapshots[snap_id] = found
            found.owners.add(sid)
            session.snapshots.add(snap_id)
        return found

    def snapshot(self, snap_id: str) -> Snapshot:
        found = self.snapshots.get(snap_id)
        if found is None:
            raise SessionError(f"unknown snapshot {snap_id!r}")
        return found


def new_session_id() -> str:
    return "s-" + secrets.token_hex(8)
