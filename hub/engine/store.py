"""The persistent store: one SQLite file (WAL), one batched writer task, fed from the event bus.

Tool calls never wait on disk: the store is a bus subscriber whose ``offer`` only appends to a
bounded queue. The writer drains the queue in batches, one transaction per batch, and an event
counts as *acknowledged* (``acked``) only after its batch has committed; ``flush()`` waits until
everything offered so far is acknowledged or refused. The writer never dies on one event: text is
made storable on the way in (lone surrogates replaced), and a batch the database refuses is written
again event by event, so only the events it still refuses are skipped, logged and counted
(``failed``, with the latest in ``failures``). A full queue drops its oldest events and counts them
(``dropped``), and the queue is bounded in bytes as well as in events: memory never grows without
bound, and loss is visible, never silent. Refusals and drops are logged once per interval with their
counts (``hub.logs.Every``), and ``health()`` reports the store ``degraded`` while it is not running or
has refused or dropped events within the last minute, with the latest failure.
``synchronous=NORMAL`` in WAL mode survives the process being killed (``kill -9``); pass
``synchronous="FULL"`` to survive power loss as well.

Episodes have a ``status``: ``open`` while they run, ``finished`` once scored, ``interrupted`` when
the hub stopped while they were open: a clean stop marks them with reason ``shutdown``, and the
next start marks those a crash left open with reason ``crash`` (docs/protocol.md lists the
statuses and reasons).

A store that cannot be opened raises ``StoreError`` naming the file and SQLite's reason (and holds
nothing open, so the process can exit); ``check_path`` runs the same checks synchronously, for the
command line to refuse to start in a second rather than fail inside the server's start-up.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sqlite3
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import aiosqlite
from starlette.applications import Starlette

from hub.engine.events import Event, EventBus, Subscription
from hub.errors import StoreError
from hub.logs import Every
from hub.parts import Part
from hub.text import storable_text
from hub.wire import COMPONENTS, EVENT_KINDS

log = logging.getLogger("hub.engine.store")

SCHEMA = """
CREATE TABLE IF NOT EXISTS tasks (
    id TEXT PRIMARY KEY, kind TEXT NOT NULL, servers TEXT NOT NULL, data TEXT NOT NULL, created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS episodes (
    id TEXT PRIMARY KEY, task_id TEXT NOT NULL, group_id TEXT NOT NULL, session_id TEXT NOT NULL,
    start_hash TEXT NOT NULL, final_hash TEXT, status TEXT NOT NULL, reason TEXT,
    steps INTEGER NOT NULL DEFAULT 0, calls INTEGER NOT NULL DEFAULT 0, format_errors INTEGER NOT NULL DEFAULT 0,
    reward REAL, opened_at REAL NOT NULL, finished_at REAL, run_id TEXT, run_step INTEGER
);
CREATE INDEX IF NOT EXISTS episodes_task ON episodes(task_id, opened_at);
CREATE INDEX IF NOT EXISTS episodes_reward ON episodes(reward);
CREATE INDEX IF NOT EXISTS episodes_time ON episodes(opened_at);
CREATE INDEX IF NOT EXISTS episodes_group ON episodes(group_id);
CREATE TABLE IF NOT EXISTS turns (
    episode_id TEXT NOT NULL, seq INTEGER NOT NULL, role TEXT NOT NULL, content TEXT NOT NULL, ts REAL NOT NULL,
    PRIMARY KEY (episode_id, seq)
);
CREATE TABLE IF NOT EXISTS tool_calls (
    id INTEGER PRIMARY KEY, event_id INTEGER NOT NULL, ts REAL NOT NULL, session_id TEXT NOT NULL, episode_id TEXT,
    server TEXT NOT NULL, tool TEXT NOT NULL, arguments TEXT, ok INTEGER NOT NULL, result TEXT, error TEXT,
    error_kind TEXT, latency_ms REAL NOT NULL, state_changed INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS tool_calls_episode ON tool_calls(episode_id, id);
CREATE INDEX IF NOT EXISTS tool_calls_session ON tool_calls(session_id, id);
CREATE INDEX IF NOT EXISTS tool_calls_time ON tool_calls(ts);
CREATE INDEX IF NOT EXISTS tool_calls_tool ON tool_calls(server, tool, ts);
CREATE TABLE IF NOT EXISTS rewards (
    episode_id TEXT PRIMARY KEY, task_id TEXT NOT NULL, total REAL NOT NULL, mode TEXT NOT NULL,
    components TEXT NOT NULL, weights TEXT NOT NULL, ts REAL NOT NULL, {reward_columns}
);
CREATE INDEX IF NOT EXISTS rewards_task ON rewards(task_id, ts);
CREATE INDEX IF NOT EXISTS rewards_total ON rewards(total);
CREATE TABLE IF NOT EXISTS evidence (
    episode_id TEXT PRIMARY KEY, state_match INTEGER, start_diff TEXT NOT NULL, expected_diff TEXT, note TEXT,
    ts REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS training_runs (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, config TEXT NOT NULL, status TEXT NOT NULL,
    started_at REAL NOT NULL, finished_at REAL
);
CREATE TABLE IF NOT EXISTS run_metrics (
    run_id TEXT NOT NULL, step INTEGER NOT NULL, name TEXT NOT NULL, value REAL NOT NULL, ts REAL NOT NULL,
    PRIMARY KEY (run_id, name, step)
);
"""
# The rewards table has a column per reward component (``hub.wire.COMPONENTS``), the task's maximum, the ledger
# that accounts for the total and the preset that scored it; a file made before a column existed gets it on start.
REWARD_COLUMNS = {
    **{c.name: "REAL" for c in COMPONENTS},
    "maximum": "REAL",
    "ledger": "TEXT",
    "preset": "TEXT",
    "why": "TEXT",  # hub.engine.explain: what the dashboard shows of an episode after close
}
SCHEMA = SCHEMA.format(reward_columns=", ".join(f"{c} {kind}" for c, kind in REWARD_COLUMNS.items()))

STORED_KINDS = frozenset(EVENT_KINDS)
# Columns added after the first release: (table, column, type); a file made before gets them on start.
# INDEXES: a run's page reads all its metrics in (name, step) order, from the covering index alone.
MIGRATIONS = (
    ("episodes", "run_id", "TEXT"),
    ("episodes", "run_step", "INTEGER"),
    ("episodes", "shard", "INTEGER"),
    *(("rewards", c, kind) for c, kind in REWARD_COLUMNS.items()),
)
INDEXES = """
CREATE INDEX IF NOT EXISTS episodes_run ON episodes(run_id, run_step);
CREATE INDEX IF NOT EXISTS run_metrics_step ON run_metrics(run_id, step);
CREATE INDEX IF NOT EXISTS run_metrics_values ON run_metrics(run_id, name, step, value);
"""


def _dumps(value: Any) -> str:
    return json.dumps(value, default=str, separators=(",", ":"))


def _storable(value: Any) -> Any:
    return storable_text(value) if isinstance(value, str) else value


@dataclass
class Batch:
    """One batch's rows, by statement, in the order they must run."""

    rows: dict[str, list[tuple[Any, ...]]] = field(default_factory=dict)

    def add(self, sql: str, row: tuple[Any, ...]) -> None:
        self.rows.setdefault(sql, []).append(tuple(_storable(v) for v in row))


@dataclass
class Failure:
    """An event the database refused: skipped, logged and counted."""

    event_id: int
    kind: str
    error: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


# What the database (or the driver binding a value) can refuse one event for.
ROW_ERRORS = (sqlite3.Error, ValueError, TypeError, OverflowError, AttributeError, KeyError)
MAX_FAILURES_KEPT = 100
QUEUE_BYTES = 128 * 2**20  # events waiting for the writer, at most (then the oldest are dropped and counted)
# Past 1/BACKLOG_SHARE of the queue, /ws steps wait for the writer: thousands of concurrent steps, each adding a
# step's events after its check, still fit in the rest of the queue.
BACKLOG_SHARE = 4
HEALTH_WINDOW_S = 60.0  # a refusal or a drop this recent makes the store "degraded"
LOG_INTERVAL_S = 10.0

# Episode statuses and the reasons an episode was interrupted (docs/protocol.md).
OPEN, FINISHED, INTERRUPTED = "open", "finished", "interrupted"
SHUTDOWN, CRASH, SHARD_LOST = "shutdown", "crash", "shard_lost"
SQL_INTERRUPT = f"UPDATE episodes SET status='{INTERRUPTED}', reason=?, finished_at=? WHERE status='{OPEN}'"
# A shard of a sharded hub (``serve --workers N``) shares the file with the others: it ends only its own episodes.
SQL_INTERRUPT_SHARD = SQL_INTERRUPT + " AND shard=?"


SQL_TASK = "INSERT OR REPLACE INTO tasks VALUES (?,?,?,?,?)"
SQL_OPEN = (
    "INSERT OR IGNORE INTO episodes (id, task_id, group_id, session_id, start_hash, status, opened_at, "
    "run_id, run_step, shard) VALUES (?,?,?,?,?,'open',?,?,?,?)"
)
SQL_TURN = "INSERT OR REPLACE INTO turns VALUES (?,?,?,?,?)"
SQL_CALL = (
    "INSERT INTO tool_calls (event_id, ts, session_id, episode_id, server, tool, arguments, ok, result, error, "
    "error_kind, latency_ms, state_changed) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)"
)
SQL_FINISH = (
    "UPDATE episodes SET final_hash=?, status='finished', reason=?, steps=?, calls=?, format_errors=?, "
    "reward=?, finished_at=? WHERE id=?"
)
SQL_REWARD = (
    f"INSERT OR REPLACE INTO rewards (episode_id, task_id, total, mode, components, weights, ts, "
    f"{', '.join(REWARD_COLUMNS)}) VALUES ({', '.join('?' * (7 + len(REWARD_COLUMNS)))})"
)
SQL_RUN = (
    "INSERT INTO training_runs VALUES (?,?,?,?,?,NULL) ON CONFLICT(id) DO UPDATE SET status=excluded.status, "
    "finished_at=CASE WHEN excluded.status IN ('finished','failed') THEN excluded.started_at END"
)
SQL_METRIC = "INSERT OR REPLACE INTO run_metrics VALUES (?,?,?,?,?)"
SQL_EVIDENCE = "INSERT OR REPLACE INTO evidence VALUES (?,?,?,?,?,?)"
ORDER = (SQL_TASK, SQL_OPEN, SQL_TURN, SQL_CALL, SQL_FINISH, SQL_REWARD, SQL_RUN, SQL_METRIC, SQL_EVIDENCE)


def rows_of(event: Any, batch: Batch, shard: int | None = None) -> None:
    """Add one event's rows to a batch (an episode opened by shard ``shard`` of a sharded hub is stamped with
    it); events of other kinds are ignored."""
    kind = getattr(event, "type", None)
    if kind == "tool_call":
        e = event
        batch.add(
            SQL_CALL,
            (
                e.id,
                e.ts,
                e.session,
                e.episode,
                e.server,
                e.tool,
                _dumps(e.arguments),
                int(e.ok),
                e.result_json if e.result_json is not None else None if e.result is None else _dumps(e.result),
                e.error,
                e.error_kind,
                e.latency_ms,
                int(e.state_changed),
            ),
        )
    elif kind == "turn":
        batch.add(SQL_TURN, (event.episode, event.seq, event.role, event.content, event.ts))
    elif kind == "episode" and event.phase == "open":
        batch.add(
            SQL_OPEN,
            (
                event.episode,
                event.task,
                event.group,
                event.session,
                event.start_hash,
                event.ts,
                getattr(event, "run", None),
                getattr(event, "step", None),
                shard,
            ),
        )
    elif kind == "episode" and event.phase == "finish":
        batch.add(
            SQL_FINISH,
            (
                event.final_hash,
                event.reason,
                event.steps,
                event.calls,
                event.format_errors,
                event.reward,
                event.ts,
                event.episode,
            ),
        )
    elif kind == "reward":
        c = event.components
        batch.add(
            SQL_REWARD,
            (
                event.episode,
                event.task,
                event.total,
                event.mode,
                _dumps(c),
                _dumps(event.weights),
                event.ts,
                *(c.get(comp.name) for comp in COMPONENTS),
                event.max,
                _dumps(event.ledger) if event.ledger else None,
                event.preset,
                _dumps(event.why) if getattr(event, "why", None) else None,
            ),
        )
    elif kind == "task":
        batch.add(SQL_TASK, (event.task_id, event.kind, _dumps(event.servers), _dumps(event.data), event.ts))
    elif kind == "run":
        batch.add(SQL_RUN, (event.run_id, event.name, _dumps(event.config), event.status, event.ts))
    elif kind == "evidence":
        match = None if event.state_match is None else int(event.state_match)
        batch.add(
            SQL_EVIDENCE,
            (
                event.episode,
                match,
                _dumps(event.start_diff),
                None if event.expected_diff is None else _dumps(event.expected_diff),
                event.note,
                event.ts,
            ),
        )
    elif kind == "run_metric":
        for name, value in event.metrics.items():
            batch.add(SQL_METRIC, (event.run_id, event.step, name, float(value), event.ts))


def build_batch(events: Iterable[Any], shard: int | None = None) -> Batch:
    batch = Batch()
    for e in events:
        rows_of(e, batch, shard)
    return batch


def check_path(path: str) -> None:
    """Refuse (``StoreError``) a store file the hub could not write, before anything starts: it opens the file
    as the store will, creates the schema and takes the write lock, then closes it again."""
    _check_side_files(path)
    db = None
    try:
        db = sqlite3.connect(path, isolation_level=None, timeout=5.0)
        _prepare(db, "NORMAL")
        db.execute("BEGIN IMMEDIATE")
        try:  # a write of the header, rolled back: a file SQLite could open only read-only fails here
            version = db.execute("PRAGMA user_version").fetchone()[0]
            db.execute(f"PRAGMA user_version={int(version)}")
        finally:
            db.execute("ROLLBACK")
    except sqlite3.Error as exc:
        raise cannot_open(path, exc) from None
    finally:
        if db is not None:
            db.close()


def _check_side_files(path: str) -> None:
    """SQLite maps ``-shm`` into memory: one it cannot write would fail every write (or, truncated under it, kill
    the process with SIGBUS), so a read-only one is refused up front."""
    for suffix in ("-wal", "-shm"):
        side = path + suffix
        if os.path.exists(side) and not os.access(side, os.R_OK | os.W_OK):
            raise StoreError(
                f"cannot open the episode store {path!r}: its file {side!r} is not writable by this process; "
                "fix its owner or permissions (or remove it while no hub uses the store)"
            )


def _prepare(db: sqlite3.Connection, synchronous: str) -> None:
    _check_wal(db.execute("PRAGMA journal_mode=WAL").fetchone())
    db.execute(f"PRAGMA synchronous={synchronous}")
    db.executescript(SCHEMA)


def _check_wal(mode: Any) -> None:
    if mode is None or str(mode[0]).lower() != "wal":
        raise sqlite3.OperationalError(f"cannot switch to WAL journaling (the journal mode stays {mode and mode[0]!r})")


def cannot_open(path: str, exc: BaseException) -> StoreError:
    reason = f"{exc}" if isinstance(exc, sqlite3.Error) else f"{type(exc).__name__}: {exc}"
    return StoreError(f"cannot open the episode store {path!r}: {reason} (SQLite)")


class Store:
    def __init__(
        self,
        path: str,
        *,
        batch_max: int = 1024,
        queue_max: int = 500_000,
        queue_bytes: int | None = QUEUE_BYTES,
        synchronous: Literal["OFF", "NORMAL", "FULL"] = "NORMAL",
        clock: Callable[[], float] = time.monotonic,
        shard: int | None = None,
        start_reason: str = CRASH,
    ) -> None:
        self.path = path
        self.shard = shard  # this hub is shard ``shard`` of a sharded hub: it writes and ends only its episodes
        self.start_reason = start_reason  # why episodes found open at start ended (shard_lost after a shard's crash)
        self.batch_max = batch_max
        self.synchronous = synchronous
        self.clock = clock
        self.sub = Subscription.bounded(queue_max, queue_bytes)
        self.acked = 0
        self.failed = 0
        self.failures: deque[Failure] = deque(maxlen=MAX_FAILURES_KEPT)
        self.batches = 0
        self.interrupted = 0  # episodes found open at start (a crash) and marked interrupted
        self.on_commit: Callable[[int], None] | None = None
        self._db: aiosqlite.Connection | None = None
        self._bus: EventBus | None = None
        self._writer: asyncio.Task[None] | None = None
        self._committed = asyncio.Event()
        self.failure: BaseException | None = None
        self._log = Every(log, LOG_INTERVAL_S, clock)
        self._last_trouble: float | None = None
        self._dropped_seen = 0
        self._started = False

    # State ------------------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._writer is not None and not self._writer.done()

    @property
    def depth(self) -> int:
        return self.sub.queue.qsize()

    @property
    def offered(self) -> int:
        return self.sub.offered

    @property
    def dropped(self) -> int:
        return self.sub.dropped

    def health(self) -> dict[str, Any]:
        """``{"status": "ok"}``, or ``"degraded"`` with why: not running (once started), a failed writer, or
        events refused or dropped within the last ``HEALTH_WINDOW_S`` seconds (with the latest failure)."""
        self._note_drops()
        problem = None
        if self.failure is not None:
            problem = f"the store writer failed: {self.failure!r}"
        elif self._started and not self.running:
            problem = "the store is not running"
        elif self._last_trouble is not None and self.clock() - self._last_trouble < HEALTH_WINDOW_S:
            latest = self.failures[-1].error if self.failures else "events dropped: the writer fell behind"
            problem = f"events refused or dropped in the last {HEALTH_WINDOW_S:g} s; latest: {latest}"
        if problem is None:
            return {"status": "ok"}
        return {"status": "degraded", "store": problem, "failed": self.failed, "dropped": self.dropped}

    def _note_drops(self) -> None:
        dropped = self.sub.dropped
        if dropped > self._dropped_seen:
            self._last_trouble = self.clock()
            self._log.note("events dropped (store queue full)", "", logging.ERROR)
            self._dropped_seen = dropped

    def stats(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "running": self.running,
            "offered": self.offered,
            "acked": self.acked,
            "failed": self.failed,
            "dropped": self.dropped,
            "queue_depth": self.depth,
            "batches": self.batches,
            "queue_bytes": self.sub.nbytes,
            "interrupted": self.interrupted,
            "failure": None if self.failure is None else repr(self.failure),
        }

    # Lifecycle --------------------------------------------------------------------------------

    async def start(self, bus: EventBus | None = None) -> None:
        """Open the file, create the schema, mark the episodes a crash left open, subscribe to ``bus`` and start
        the writer. A file that cannot be opened raises ``StoreError`` and leaves nothing open."""
        if self.running:
            return
        try:
            _check_side_files(self.path)
            self._db = await aiosqlite.connect(self.path, isolation_level=None)
            async with self._db.execute("PRAGMA journal_mode=WAL") as cursor:
                _check_wal(await cursor.fetchone())
            await self._db.execute(f"PRAGMA synchronous={self.synchronous}")
            await self._db.executescript(SCHEMA)
            await self._migrate()
            self.interrupted = await self._interrupt(self.start_reason)
        except (sqlite3.Error, OSError) as exc:
            await self._close()
            raise cannot_open(self.path, exc) from None
        except BaseException:
            await self._close()
            raise
        if self.interrupted:
            log.warning("marked %d episodes interrupted: the hub stopped while they were open", self.interrupted)
        self._started = True
        if bus is not None:
            self._bus = bus
            bus.attach(self.sub, STORED_KINDS)
        self._committed = asyncio.Event()
        self._writer = asyncio.create_task(self._run(), name="store-writer")

    async def stop(self) -> None:
        """Unsubscribe, write what is queued, stop the writer and close the file."""
        if self._bus is not None:
            self._bus.unsubscribe(self.sub)
            self._bus = None
        if self.running:
            await self.flush()
        if self._writer is not None:
            self._writer.cancel()
            await asyncio.gather(self._writer, return_exceptions=True)
            self._writer = None
        if self._db is not None and self.failure is None:
            try:
                await self._interrupt(SHUTDOWN)
            except sqlite3.Error as exc:
                log.error("could not mark open episodes interrupted at shutdown: %s", exc)
        await self._close()
        self._started = False

    async def _close(self) -> None:
        if self._db is not None:
            db, self._db = self._db, None
            await db.close()

    async def _interrupt(self, reason: str) -> int:
        """Mark every episode still open (of this shard, in a sharded hub) as interrupted (``reason``: shutdown,
        crash or shard_lost); how many."""
        assert self._db is not None
        if self.shard is None:
            cursor = await self._db.execute(SQL_INTERRUPT, (reason, time.time()))
        else:
            cursor = await self._db.execute(SQL_INTERRUPT_SHARD, (reason, time.time(), self.shard))
        return int(cursor.rowcount)

    async def _migrate(self) -> None:
        assert self._db is not None
        for table, column, kind in MIGRATIONS:
            async with self._db.execute(f"PRAGMA table_info({table})") as cur:
                have = {r[1] for r in await cur.fetchall()}
            if column not in have:
                await self._db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
        await self._db.executescript(INDEXES)

    def offer(self, event: Event) -> None:
        """Queue an event that does not travel on the bus; never waits."""
        self.sub.offer(event)

    @property
    def backlogged(self) -> bool:
        """The writer is behind by more than a quarter of its queue (in events or bytes): a producer that can wait
        (a ``/ws`` step) should, rather than have events dropped once the queue fills."""
        queue = self.sub.queue
        by_count = queue.maxsize > 0 and queue.qsize() > queue.maxsize // BACKLOG_SHARE
        by_bytes = queue.max_bytes is not None and queue.nbytes > queue.max_bytes // BACKLOG_SHARE
        return self.running and (by_count or by_bytes)

    async def room(self) -> None:
        """Wait while the writer is backlogged (each committed batch looks again); at once when it is not."""
        while self.backlogged:
            await self._next_commit()

    async def _next_commit(self) -> None:
        """Until the writer commits its next batch (or ends)."""
        assert self._writer is not None
        waiter = asyncio.ensure_future(self._committed.wait())
        try:
            await asyncio.wait({waiter, self._writer}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiter.cancel()

    async def flush(self, timeout: float | None = None) -> int:
        """Wait until every event offered so far is committed (or counted as dropped or failed); returns ``acked``.

        Events the database refused are in ``failed`` and ``failures``, not an error of the flush."""
        target = self.sub.offered
        async with asyncio.timeout(timeout):
            while self.acked + self.failed + self.sub.dropped < target:
                self._check()
                await self._next_commit()
        return self.acked

    def _check(self) -> None:
        if self.failure is not None:
            raise StoreError(f"the store writer failed: {self.failure!r}") from self.failure
        if not self.running:
            raise StoreError("the store is not running; call start() first")

    # Writer -----------------------------------------------------------------------------------

    async def _run(self) -> None:
        queue = self.sub.queue
        try:
            while True:
                batch = [await queue.get()]
                while len(batch) < self.batch_max and not queue.empty():
                    batch.append(queue.get_nowait())
                self.acked += await self._write_all(batch)
                self.batches += 1
                self._note_drops()
                self._committed.set()
                self._committed = asyncio.Event()
                if self.on_commit is not None:
                    self.on_commit(self.acked)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the writer's top-level boundary: should never happen, but must be visible
            self.failure = exc
            log.exception("store writer failed; events are no longer stored")
            self._committed.set()
            raise

    async def _write_all(self, events: list[Any]) -> int:
        """Write a batch in one transaction; if the database refuses it, event by event. Returns how many stored."""
        try:
            await self._write(events)
            return len(events)
        except ROW_ERRORS:
            pass
        stored = 0
        for event in events:
            try:
                await self._write([event])
                stored += 1
            except ROW_ERRORS as exc:
                self._refused(event, exc)
        return stored

    def _refused(self, event: Any, exc: BaseException) -> None:
        failure = Failure(
            int(getattr(event, "id", 0) or 0), str(getattr(event, "type", "?")), f"{type(exc).__name__}: {exc}"[:300]
        )
        self.failed += 1
        self.failures.append(failure)
        self._last_trouble = self.clock()
        self._log.note(
            f"{failure.kind} events refused by the store", f"event {failure.event_id}: {failure.error}", logging.ERROR
        )

    async def _write(self, events: list[Any]) -> None:
        assert self._db is not None
        batch = build_batch(events, self.shard)
        db = self._db
        await db.execute("BEGIN")
        try:
            for sql in ORDER:
                if sql in batch.rows:
                    await db.executemany(sql, batch.rows[sql])
            await db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:  # SQLite ends some failed transactions itself (a full disk, an I/O error)
                await db.execute("ROLLBACK")
            raise

    # Reads ------------------------------------------------------------------------------------

    async def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        """Rows of a read query as dicts (for the dashboard, the API and tests)."""
        self._check()
        assert self._db is not None
        async with self._db.execute(sql, params) as cur:
            cols = [c[0] for c in cur.description]
            return [dict(zip(cols, r)) for r in await cur.fetchall()]


@asynccontextmanager
async def _lifespan(app: Starlette) -> AsyncIterator[None]:
    """The store's writer runs while the app serves; stopping it writes what is queued."""
    hub = app.state.hub
    await hub.store.start(hub.bus)
    try:
        yield
    finally:
        await hub.store.stop()


part = Part("store", lifespan=_lifespan)
