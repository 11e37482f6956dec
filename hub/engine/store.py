"""The persistent store: one SQLite file (WAL), one batched writer task, fed from the event bus.

Tool calls never wait on disk: the store is a bus subscriber whose ``offer`` only appends to a
bounded queue. The writer drains the queue in batches, one transaction per batch, and an event
counts as *acknowledged* (``acked``) only after its batch has committed; ``flush()`` waits until
everything offered so far is acknowledged or refused. The writer never dies on one event: text is
made storable on the way in (lone surrogates replaced), and a batch the database refuses is written
again event by event, so only the events it still refuses are skipped, logged and counted
(``failed``, with the latest in ``failures``). A full queue drops its oldest events and counts them
(``dropped``): memory never grows without bound, and loss is visible, never silent.
``synchronous=NORMAL`` in WAL mode survives the process being killed (``kill -9``); pass
``synchronous="FULL"`` to survive power loss as well.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import aiosqlite
from starlette.applications import Starlette

from hub.engine.events import Event, EventBus, Subscription
from hub.errors import StoreError
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
REWARD_COLUMNS = {**{c.name: "REAL" for c in COMPONENTS}, "maximum": "REAL", "ledger": "TEXT", "preset": "TEXT"}
SCHEMA = SCHEMA.format(reward_columns=", ".join(f"{c} {kind}" for c, kind in REWARD_COLUMNS.items()))

STORED_KINDS = frozenset(EVENT_KINDS)
# Columns added after the first release: (table, column, type); a file made before gets them on start.
# INDEXES: a run's page reads all its metrics in (name, step) order, from the covering index alone.
MIGRATIONS = (
    ("episodes", "run_id", "TEXT"),
    ("episodes", "run_step", "INTEGER"),
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


SQL_TASK = "INSERT OR REPLACE INTO tasks VALUES (?,?,?,?,?)"
SQL_OPEN = (
    "INSERT OR IGNORE INTO episodes (id, task_id, group_id, session_id, start_hash, status, opened_at, "
    "run_id, run_step) VALUES (?,?,?,?,?,'open',?,?,?)"
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


def rows_of(event: Any, batch: Batch) -> None:
    """Add one event's rows to a batch; events of other kinds are ignored."""
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


def build_batch(events: Iterable[Any]) -> Batch:
    batch = Batch()
    for e in events:
        rows_of(e, batch)
    return batch


class Store:
    def __init__(
        self,
        path: str,
        *,
        batch_max: int = 1024,
        queue_max: int = 500_000,
        synchronous: Literal["OFF", "NORMAL", "FULL"] = "NORMAL",
    ) -> None:
        self.path = path
        self.batch_max = batch_max
        self.synchronous = synchronous
        self.sub = Subscription(asyncio.Queue(queue_max))
        self.acked = 0
        self.failed = 0
        self.failures: deque[Failure] = deque(maxlen=MAX_FAILURES_KEPT)
        self.batches = 0
        self.on_commit: Callable[[int], None] | None = None
        self._db: aiosqlite.Connection | None = None
        self._bus: EventBus | None = None
        self._writer: asyncio.Task[None] | None = None
        self._committed = asyncio.Event()
        self.failure: BaseException | None = None

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
            "failure": None if self.failure is None else repr(self.failure),
        }

    # Lifecycle --------------------------------------------------------------------------------

    async def start(self, bus: EventBus | None = None) -> None:
        """Open the file, create the schema, subscribe to ``bus`` and start the writer."""
        if self.running:
            return
        self._db = await aiosqlite.connect(self.path, isolation_level=None)
        await self._db.execute("PRAGMA journal_mode=WAL")
        await self._db.execute(f"PRAGMA synchronous={self.synchronous}")
        await self._db.executescript(SCHEMA)
        await self._migrate()
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
        if self._db is not None:
            await self._db.close()
            self._db = None

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

    async def flush(self, timeout: float | None = None) -> int:
        """Wait until every event offered so far is committed (or counted as dropped or failed); returns ``acked``.

        Events the database refused are in ``failed`` and ``failures``, not an error of the flush."""
        target = self.sub.offered
        async with asyncio.timeout(timeout):
            while self.acked + self.failed + self.sub.dropped < target:
                self._check()
                assert self._writer is not None
                waiter = asyncio.ensure_future(self._committed.wait())
                try:
                    await asyncio.wait({waiter, self._writer}, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    waiter.cancel()
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
        log.error("store skipped %s event %d: %s", failure.kind, failure.event_id, failure.error)

    async def _write(self, events: list[Any]) -> None:
        assert self._db is not None
        batch = build_batch(events)
        db = self._db
        await db.execute("BEGIN")
        try:
            for sql in ORDER:
                if sql in batch.rows:
                    await db.executemany(sql, batch.rows[sql])
        except BaseException:
            await db.execute("ROLLBACK")
            raise
        await db.execute("COMMIT")

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
