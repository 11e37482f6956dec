"""Read queries the dashboard runs on the store's SQLite file (hub/engine/store.py owns the schema and writes).

The reader has its own read-only connection (WAL lets it read while the store's writer commits),
so a page never queues behind a write batch. Every list is paged: keyset pagination over an indexed
ORDER BY for episodes and tool calls, LIMIT/OFFSET only over small tables; nothing loads all rows.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hub.wire import WEIGHTED
from web.svg import downsample, downsample_rows

log = logging.getLogger("web.queries")
Row = dict[str, Any]


class SmallCache:
    """A few computed results (downsampled runs) by key, least recently used dropped first."""

    def __init__(self, maxsize: int = 32) -> None:
        self.maxsize = maxsize
        self._items: OrderedDict[Any, Any] = OrderedDict()

    def get(self, key: Any) -> Any:
        found = self._items.get(key)
        if found is not None:
            self._items.move_to_end(key)
        return found

    def put(self, key: Any, value: Any) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.maxsize:
            self._items.popitem(last=False)


class Reader:
    """A lazily opened read-only connection to the store's file, used from one worker thread.

    Plain ``sqlite3`` behind a one-thread executor rather than aiosqlite: it is not tied to the event
    loop that opened it, so it needs no lifespan hook and works under any test client.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self._db: sqlite3.Connection | None = None
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="dashboard-reader")
        self.cache = SmallCache()

    @property
    def available(self) -> bool:
        return self.path != ":memory:" and Path(self.path).exists()

    def _connect(self) -> sqlite3.Connection | None:
        if self._db is None and self.available:
            uri = Path(self.path).resolve().as_uri() + "?mode=ro"
            self._db = sqlite3.connect(uri, uri=True, check_same_thread=False)
        return self._db

    def _run(self, sql: str, params: tuple[Any, ...]) -> list[Row]:
        db = self._connect()
        if db is None:
            return []
        try:
            cur = db.execute(sql, params)
        except sqlite3.OperationalError as exc:
            if "no such table" in str(exc):
                return []
            raise
        cols = [c[0] for c in cur.description]
        return [dict(zip(cols, r)) for r in cur.fetchall()]

    async def rows(self, sql: str, params: tuple[Any, ...] | list[Any] = ()) -> list[Row]:
        """The rows of a read query; an empty list while the store has no file or schema yet."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, self._run, sql, tuple(params))

    async def tuples(self, sql: str, params: tuple[Any, ...] | list[Any] = ()) -> list[tuple[Any, ...]]:
        """The rows of a read query as plain tuples (no per-row dict: for queries returning many rows)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, self._tuples, sql, tuple(params))

    def _tuples(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        db = self._connect()
        if db is None:
            return []
        try:
            return db.execute(sql, params).fetchall()
        except sqlite3.OperationalError as exc:
            if "no such table" in str(exc):
                return []
            raise

    async def one(self, sql: str, params: tuple[Any, ...] | list[Any] = ()) -> Row | None:
        found = await self.rows(sql, params)
        return found[0] if found else None

    def close(self) -> None:
        def shut() -> None:
            if self._db is not None:
                self._db.close()
                self._db = None

        self._pool.submit(shut).result()


# Episodes ---------------------------------------------------------------------------------------


# The weighted reward components (``hub.wire.COMPONENTS``): each has its column in ``rewards``.
COMPONENTS = {c.name: (c.weight, c.best) for c in WEIGHTED}


# Sorting by a component: its lowest values lose the most points (R_eff is a penalty, at most 0, so the
# same holds); a plain column, so it costs no JSON parsing per row.
SORTS = {
    "reward": "r.total DESC",
    "-reward": "r.total ASC",
    "calls": "e.calls DESC",
    "-calls": "e.calls ASC",
    **{c: f"r.{c} ASC" for c in COMPONENTS},
    **{f"-{c}": f"r.{c} DESC" for c in COMPONENTS},
}


@dataclass
class EpisodeFilter:
    task: str = ""
    server: str = ""
    status: str = ""
    min_reward: float | None = None
    max_reward: float | None = None
    errors: bool = False
    state: str = ""  # "differs" or "matches": the final state against the expected one (kept evidence)
    group: str = ""
    run: str = ""
    step: int | None = None
    sort: str = ""  # a key of SORTS; default newest first

    def where(self) -> tuple[list[str], list[Any]]:
        clauses: list[str] = []
        params: list[Any] = []
        if self.task:
            clauses.append("e.task_id = ?")
            params.append(self.task)
        if self.server:
            clauses.append("e.task_id IN (SELECT id FROM tasks WHERE servers LIKE ?)")
            params.append(f'%"{self.server}"%')
        if self.status in ("open", "finished", "interrupted"):
            clauses.append("e.status = ?")
            params.append(self.status)
        if self.min_reward is not None:
            clauses.append("e.reward >= ?")
            params.append(self.min_reward)
        if self.max_reward is not None:
            clauses.append("e.reward <= ?")
            params.append(self.max_reward)
        if self.errors:
            clauses.append(
                "(e.format_errors > 0 OR EXISTS (SELECT 1 FROM tool_calls t WHERE t.episode_id = e.id AND t.ok = 0))"
            )
        if self.state in ("differs", "matches"):
            clauses.append("v.state_match = ?")
            params.append(int(self.state == "matches"))
        for column, value in (("e.group_id", self.group), ("e.run_id", self.run)):
            if value:
                clauses.append(f"{column} = ?")
                params.append(value)
        if self.step is not None:
            clauses.append("e.run_step = ?")
            params.append(self.step)
        return clauses, params

    def query(self) -> dict[str, str]:
        """The filter as URL query parameters (for links that keep it)."""
        out = {
            "task": self.task,
            "server": self.server,
            "status": self.status,
            "min_reward": "" if self.min_reward is None else str(self.min_reward),
            "max_reward": "" if self.max_reward is None else str(self.max_reward),
            "errors": "1" if self.errors else "",
            "state": self.state,
            "group": self.group,
            "run": self.run,
            "step": "" if self.step is None else str(self.step),
            "sort": self.sort,
        }
        return {k: v for k, v in out.items() if v}


@dataclass
class Page:
    rows: list[Row]
    next_cursor: str | None = None
    total: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def encode_cursor(ts: float, key: str | int) -> str:
    return f"{ts!r}~{key}"


def decode_cursor(cursor: str) -> tuple[float, str] | None:
    ts, sep, key = cursor.partition("~")
    try:
        return (float(ts), key) if sep else None
    except ValueError:
        return None


EPISODE_COLUMNS = (
    "e.id, e.task_id, e.group_id, e.session_id, e.status, e.reason, e.steps, e.calls, e.format_errors, "
    "e.reward, e.opened_at, e.finished_at, e.start_hash, e.final_hash, e.run_id, e.run_step"
)
LIST_COLUMNS = (
    EPISODE_COLUMNS + ", r.mode AS reward_mode, r.components AS reward_components, "
    "r.weights AS reward_weights, r.ledger AS reward_ledger, r.preset AS reward_preset, v.state_match"
)
LIST_FROM = "FROM episodes e LEFT JOIN rewards r ON r.episode_id = e.id LEFT JOIN evidence v ON v.episode_id = e.id"


def _from(flt: EpisodeFilter, listing: bool) -> str:
    """The joins a query needs: rewards to sort by them, evidence to filter on it."""
    if listing or flt.sort:
        return LIST_FROM
    return "FROM episodes e LEFT JOIN evidence v ON v.episode_id = e.id" if flt.state else "FROM episodes e"


async def episode_page(db: Reader, flt: EpisodeFilter, cursor: str | None = None, limit: int = 50) -> Page:
    """Newest first, keyset-paged on (opened_at, id); sorted by a reward column, offset-paged (``cursor`` "@N")."""
    clauses, params = flt.where()
    order = SORTS.get(flt.sort)
    offset = 0
    if order is not None:
        offset = int(cursor[1:]) if cursor and cursor.startswith("@") and cursor[1:].isdigit() else 0
        clauses.append("r.episode_id IS NOT NULL")
    else:
        at = decode_cursor(cursor) if cursor else None
        if at is not None:
            clauses.append("(e.opened_at, e.id) < (?, ?)")
            params.extend(at)
    where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
    sql_order = f"{order}, e.opened_at DESC, e.id DESC" if order else "e.opened_at DESC, e.id DESC"
    rows = await db.rows(
        f"SELECT {LIST_COLUMNS} {LIST_FROM} {where} ORDER BY {sql_order} LIMIT ? OFFSET ?", [*params, limit + 1, offset]
    )
    more = len(rows) > limit
    rows = [decode_reward_columns(r) for r in rows[:limit]]
    await _attach_call_counts(db, rows)
    if not (more and rows):
        return Page(rows, None)
    return Page(rows, f"@{offset + limit}" if order else encode_cursor(rows[-1]["opened_at"], rows[-1]["id"]))


def decode_reward_columns(row: Row) -> Row:
    for key in ("reward_components", "reward_weights", "reward_ledger"):
        raw = row.get(key)
        row[key] = json.loads(raw) if isinstance(raw, str) else None
    return row


async def count_episodes(db: Reader, flt: EpisodeFilter) -> int:
    clauses, params = flt.where()
    if flt.sort in SORTS:
        clauses.append("r.episode_id IS NOT NULL")
    where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
    found = await db.one(f"SELECT COUNT(*) AS n {_from(flt, False)} {where}", params)
    return int(found["n"]) if found else 0


async def episode_ids(db: Reader, flt: EpisodeFilter, limit: int) -> list[str]:
    """Every episode the filter keeps, in the list's order (newest first, or the sort), at most ``limit``."""
    clauses, params = flt.where()
    order = SORTS.get(flt.sort)
    if order is not None:
        clauses.append("r.episode_id IS NOT NULL")
    where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
    sql_order = f"{order}, e.opened_at DESC, e.id DESC" if order else "e.opened_at DESC, e.id DESC"
    rows = await db.tuples(f"SELECT e.id {_from(flt, False)} {where} ORDER BY {sql_order} LIMIT ?", [*params, limit])
    return [r[0] for r in rows]


async def _attach_call_counts(db: Reader, rows: list[Row]) -> None:
    """Each episode's tool-call count and failed-call count (open episodes have no count of their own yet)."""
    if not rows:
        return
    marks = ",".join("?" * len(rows))
    counts = await db.rows(
        f"SELECT episode_id, COUNT(*) AS n, SUM(ok = 0) AS failed FROM tool_calls "
        f"WHERE episode_id IN ({marks}) GROUP BY episode_id",
        [r["id"] for r in rows],
    )
    by_id = {c["episode_id"]: c for c in counts}
    for r in rows:
        c = by_id.get(r["id"], {})
        r["call_count"] = c.get("n", 0)
        r["failed_calls"] = c.get("failed") or 0


async def episode(db: Reader, eid: str) -> Row | None:
    return await db.one(f"SELECT {EPISODE_COLUMNS} FROM episodes e WHERE e.id = ?", (eid,))


async def turns(db: Reader, eid: str, limit: int = 2000) -> list[Row]:
    return await db.rows(
        "SELECT seq, role, content, ts FROM turns WHERE episode_id = ? ORDER BY seq LIMIT ?", (eid, limit)
    )


CALL_COLUMNS = (
    "id, event_id, ts, session_id, episode_id, server, tool, arguments, ok, result, error, error_kind, "
    "latency_ms, state_changed"
)


async def episode_calls(db: Reader, eid: str, limit: int = 2000) -> list[Row]:
    return [
        decode_call(r)
        for r in await db.rows(
            f"SELECT {CALL_COLUMNS} FROM tool_calls WHERE episode_id = ? ORDER BY id LIMIT ?", (eid, limit)
        )
    ]


async def evidence(db: Reader, eid: str) -> Row | None:
    """The kept diffs of a finished episode (against its start and the expected state)."""
    found = await db.one("SELECT * FROM evidence WHERE episode_id = ?", (eid,))
    if found:
        found["start_diff"] = json.loads(found["start_diff"])
        found["expected_diff"] = None if found["expected_diff"] is None else json.loads(found["expected_diff"])
    return found


async def group(db: Reader, gid: str, limit: int = 256) -> list[Row]:
    """The episodes of one GRPO group with their rewards and evidence, in the order they were opened."""
    rows = await db.rows(
        f"SELECT {LIST_COLUMNS}, v.expected_diff, r.why AS reward_why {LIST_FROM} WHERE e.group_id = ? "
        "ORDER BY e.opened_at, e.id LIMIT ?",
        (gid, limit),
    )
    for r in rows:
        decode_reward_columns(r)
        r["expected_diff"] = None if r["expected_diff"] is None else json.loads(r["expected_diff"])
        why = r.pop("reward_why")
        r["why"] = None if why is None else json.loads(why)
    return rows


async def session_call_count(db: Reader, sid: str) -> int:
    """The session's stored tool calls: those a server ran and those the hub refused (unknown names, unparsed)."""
    found = await db.one("SELECT COUNT(*) AS n FROM tool_calls WHERE session_id = ?", (sid,))
    return int(found["n"]) if found else 0


async def first_user_turn(db: Reader, eid: str) -> str | None:
    """What the user first said in an episode (a group's prompt: its rollouts share the task)."""
    found = await db.one(
        "SELECT content FROM turns WHERE episode_id = ? AND role = 'user' ORDER BY seq LIMIT 1", (eid,)
    )
    return None if found is None else str(found["content"])


async def calls_of(db: Reader, eids: list[str], per_episode: int = 300) -> dict[str, list[Row]]:
    """Each episode's tool calls in order (name, arguments, ok, error kind), at most ``per_episode`` each."""
    out: dict[str, list[Row]] = {e: [] for e in eids}
    if not eids:
        return out
    marks = ",".join("?" * len(eids))
    rows = await db.rows(
        f"SELECT episode_id, server, tool, arguments, ok, error_kind, state_changed FROM tool_calls "
        f"WHERE episode_id IN ({marks}) ORDER BY episode_id, id",
        eids,
    )
    for r in rows:
        found = out[r["episode_id"]]
        if len(found) < per_episode:
            r["arguments"] = json.loads(r["arguments"]) if r["arguments"] else None
            found.append(r)
    return out


async def reward(db: Reader, eid: str) -> Row | None:
    found = await db.one("SELECT * FROM rewards WHERE episode_id = ?", (eid,))
    if found:
        for key in ("components", "weights", "ledger", "why"):
            found[key] = json.loads(found[key]) if isinstance(found.get(key), str) else None
    return found


def decode_call(row: Row) -> Row:
    """A tool_calls row with its JSON columns decoded."""
    for key in ("arguments", "result"):
        raw = row.get(key)
        if isinstance(raw, str):
            try:
                row[key] = json.loads(raw)
            except ValueError:
                pass
    row["ok"] = bool(row["ok"])
    row["state_changed"] = bool(row["state_changed"])
    return row


# Tool calls -------------------------------------------------------------------------------------


async def recent_calls(
    db: Reader, *, session: str = "", server: str = "", tool: str = "", before: int | None = None, limit: int = 50
) -> Page:
    """Newest tool calls first, keyset-paged on id, optionally of one session or one tool."""
    clauses: list[str] = []
    params: list[Any] = []
    if session:
        clauses.append("session_id = ?")
        params.append(session)
    if server and tool:
        clauses += ["server = ?", "tool = ?"]
        params += [server, tool]
    if before is not None:
        clauses.append("id < ?")
        params.append(before)
    where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
    rows = await db.rows(
        f"SELECT {CALL_COLUMNS} FROM tool_calls {where} ORDER BY id DESC LIMIT ?", [*params, limit + 1]
    )
    more = len(rows) > limit
    rows = [decode_call(r) for r in rows[:limit]]
    return Page(rows, str(rows[-1]["id"]) if more and rows else None)


# Overview ---------------------------------------------------------------------------------------


async def totals(db: Reader) -> Row:
    """Stored totals; the tool-call count is the largest id (rows are never deleted), so it costs one seek."""
    calls = await db.one("SELECT MAX(id) AS n FROM tool_calls")
    eps = await db.one("SELECT COUNT(*) AS n, SUM(status = 'open') AS open FROM episodes")
    rew = await db.one("SELECT AVG(total) AS mean, COUNT(*) AS n FROM rewards")
    return {
        "tool_calls": (calls or {}).get("n") or 0,
        "episodes": (eps or {}).get("n") or 0,
        "episodes_open": (eps or {}).get("open") or 0,
        "mean_reward": (rew or {}).get("mean"),
        "rewarded": (rew or {}).get("n") or 0,
    }


async def recent_rewards(db: Reader, limit: int = 500) -> list[float]:
    """Rewards of the latest finished episodes, oldest first."""
    rows = await db.rows(
        "SELECT reward FROM episodes WHERE reward IS NOT NULL ORDER BY opened_at DESC LIMIT ?", (limit,)
    )
    return [float(r["reward"]) for r in reversed(rows)]


# Tasks ------------------------------------------------------------------------------------------


async def task_stats(db: Reader, task_ids: list[str]) -> dict[str, Row]:
    """Episodes, finished episodes and mean reward per task, for the given tasks only."""
    if not task_ids:
        return {}
    marks = ",".join("?" * len(task_ids))
    rows = await db.rows(
        f"SELECT task_id, COUNT(*) AS episodes, COUNT(reward) AS finished, AVG(reward) AS mean_reward "
        f"FROM episodes WHERE task_id IN ({marks}) GROUP BY task_id",
        task_ids,
    )
    return {r["task_id"]: r for r in rows}


async def stored_tasks(db: Reader, offset: int = 0, limit: int = 200) -> list[Row]:
    """Tasks the store knows of (announced by episodes), for tasks no longer loaded in the hub."""
    rows = await db.rows(
        "SELECT id, kind, servers, data, created_at FROM tasks ORDER BY id LIMIT ? OFFSET ?", (limit, offset)
    )
    for r in rows:
        r["servers"] = json.loads(r["servers"])
        r["data"] = json.loads(r["data"])
    return rows


async def stored_task(db: Reader, task_id: str) -> Row | None:
    found = await db.one("SELECT id, kind, servers, data, created_at FROM tasks WHERE id = ?", (task_id,))
    if found:
        found["servers"] = json.loads(found["servers"])
        found["data"] = json.loads(found["data"])
    return found


# Training runs ----------------------------------------------------------------------------------


async def runs(db: Reader, offset: int = 0, limit: int = 50) -> list[Row]:
    rows = await db.rows(
        "SELECT r.id, r.name, r.config, r.status, r.started_at, r.finished_at, "
        "(SELECT MAX(step) FROM run_metrics m WHERE m.run_id = r.id) AS last_step "
        "FROM training_runs r ORDER BY r.started_at DESC LIMIT ? OFFSET ?",
        (limit, offset),
    )
    for r in rows:
        r["config"] = json.loads(r["config"])
    return rows


async def run(db: Reader, run_id: str) -> Row | None:
    found = await db.one(
        "SELECT id, name, config, status, started_at, finished_at FROM training_runs WHERE id = ?", (run_id,)
    )
    if found:
        found["config"] = json.loads(found["config"])
    return found


Series = dict[str, list[tuple[float, float]]]


@dataclass
class RunSeries:
    """A run's downsampled series as of the store's metric row ``version`` (its largest rowid)."""

    version: int
    series: Series


async def run_metrics(db: Reader, run_id: str, buckets: int = 150) -> Series:
    """Each metric's (step, value) series, at most ``2 * buckets + 2`` points per metric.

    A long run is cut into ``buckets`` equal step ranges per metric and each keeps its minimum and its
    maximum, plus the first and last step (``web.svg.downsample``): spikes and the latest value survive,
    unlike taking every k-th step. The rows come in key order (no sort) as plain tuples. The result is
    kept per run: unchanged, it is reused; when the store has newer rows (a live run), only those are
    read (a rowid range) and appended, then downsampled again.
    """
    found = await db.one("SELECT MAX(rowid) AS v FROM run_metrics")
    version = int((found or {}).get("v") or 0)
    key = ("run", run_id, buckets)
    cached: RunSeries | None = db.cache.get(key)
    if cached is not None and cached.version == version:
        return cached.series
    series = None
    if cached is not None and cached.version < version:
        rows = await db.tuples(
            "SELECT name, step, value FROM run_metrics WHERE rowid > ? AND run_id = ? ORDER BY name, step",
            (cached.version, run_id),
        )
        series = append_points(cached.series, rows, buckets)
    if series is None:
        spans = await db.tuples(
            "SELECT name, MIN(step), MAX(step), COUNT(*) FROM run_metrics WHERE run_id = ? GROUP BY name", (run_id,)
        )
        rows = await db.tuples(
            "SELECT name, step, value FROM run_metrics WHERE run_id = ? ORDER BY name, step", (run_id,)
        )
        series = downsample_rows(rows, {n: (float(lo), float(hi), int(c)) for n, lo, hi, c in spans}, buckets)
    db.cache.put(key, RunSeries(version, series))
    return series


def group_rows(rows: list[tuple[Any, ...]]) -> Series:
    out: Series = {}
    for name, step, value in rows:
        found = out.get(name)
        if found is None:
            found = out[name] = []
        found.append((float(step), float(value)))
    return out


def append_points(series: Series, rows: list[tuple[Any, ...]], buckets: int) -> Series | None:
    """``series`` with new rows appended and downsampled again; None when a row rewrites an earlier step
    (the caller then reads the whole run)."""
    out = dict(series)
    for name, points in group_rows(rows).items():
        old = out.get(name, [])
        if old and points[0][0] <= old[-1][0]:
            return None
        out[name] = downsample(old + points, buckets)
    return out


async def run_steps(db: Reader, run_id: str, limit: int = 2000) -> list[Row]:
    """The steps of a run that have episodes (rollouts opened with this run and step), with their mean reward."""
    return await db.rows(
        "SELECT run_step AS step, COUNT(*) AS episodes, AVG(reward) AS mean_reward FROM episodes "
        "WHERE run_id = ? AND run_step IS NOT NULL GROUP BY run_step ORDER BY run_step LIMIT ?",
        (run_id, limit),
    )


# Points lost ------------------------------------------------------------------------------------


def _shortfall_columns() -> str:
    """Per component: the summed shortfall from its best value, and how many rows fell short."""
    return ", ".join(
        f"SUM({best} - r.{c}) AS d_{c}, SUM(r.{c} < {best}) AS n_{c}" for c, (_, best) in COMPONENTS.items()
    )


async def losses(db: Reader, task: str = "", recent: int = 20_000) -> list[Row]:
    """Over the latest ``recent`` paper-mode rewards (of one task, or all): per task and reward weights,
    the episodes, their summed total and each component's summed shortfall and count of rows short.

    Grouped by the weights (a handful of distinct configs) so SQL sums plain columns; the caller
    multiplies by each group's weights (``web.models.loss_tables``).
    """
    where = "WHERE mode = 'paper'" + (" AND task_id = ?" if task else "")
    params: list[Any] = [task] if task else []
    return await db.rows(
        f"SELECT r.task_id, r.weights, COUNT(*) AS episodes, SUM(r.total) AS total, "
        f"{_shortfall_columns()} FROM (SELECT task_id, weights, total, "
        f"{', '.join(COMPONENTS)} FROM rewards {where} ORDER BY rowid DESC LIMIT ?) r "
        f"GROUP BY r.task_id, r.weights",
        [*params, recent],
    )


async def failures_by_tool(db: Reader, limit: int = 25, recent: int = 20_000) -> list[Row]:
    """Episode tool calls per tool over the latest ``recent`` calls: how many failed and in how many episodes.

    A failed call costs validity (its execution third) and usually coverage and arguments."""
    return await db.rows(
        "SELECT server, tool, COUNT(*) AS calls, SUM(ok = 0) AS failed, "
        "COUNT(DISTINCT CASE WHEN ok = 0 THEN episode_id END) AS episodes FROM "
        "(SELECT server, tool, ok, episode_id FROM tool_calls WHERE episode_id IS NOT NULL "
        "ORDER BY id DESC LIMIT ?) GROUP BY server, tool HAVING failed > 0 "
        "ORDER BY failed DESC LIMIT ?",
        (recent, limit),
    )


# Runs: step ranges and the components from stored episodes -------------------------------------


# What a run's derived views read changes only when the store gains rows; MAX(rowid) of a table is one index probe.
VERSION_SQL = "SELECT (SELECT MAX(rowid) FROM {0}) AS v"


async def versioned(db: Reader, key: tuple[Any, ...], tables: tuple[str, ...], compute: Any) -> Any:
    """``compute()``'s result, kept while none of ``tables`` has a new row (an update of a finished episode adds a
    reward row, so ``rewards`` moves with it)."""
    version = []
    for table in tables:
        found = await db.one(VERSION_SQL.format(table))
        version.append(int((found or {}).get("v") or 0))
    cached = db.cache.get(key)
    if cached is not None and cached[0] == version:
        return cached[1]
    value = await compute()
    db.cache.put(key, (version, value))
    return value


async def run_metrics_range(db: Reader, run_id: str, lo: int, hi: int, buckets: int = 150) -> Series:
    """``run_metrics`` over steps ``lo``..``hi`` only (a zoomed chart): the range at full resolution up to
    ``2 * buckets`` points per metric, read from the covering index; kept until the store has new metrics."""

    async def compute() -> Series:
        return await _run_metrics_range(db, run_id, lo, hi, buckets)

    return await versioned(db, ("range", run_id, lo, hi, buckets), ("run_metrics",), compute)  # type: ignore[no-any-return]


async def _run_metrics_range(db: Reader, run_id: str, lo: int, hi: int, buckets: int) -> Series:
    spans = await db.tuples(
        "SELECT name, MIN(step), MAX(step), COUNT(*) FROM run_metrics WHERE run_id = ? AND step BETWEEN ? AND ? "
        "GROUP BY name",
        (run_id, lo, hi),
    )
    rows = await db.tuples(
        "SELECT name, step, value FROM run_metrics WHERE run_id = ? AND step BETWEEN ? AND ? ORDER BY name, step",
        (run_id, lo, hi),
    )
    return downsample_rows(rows, {n: (float(a), float(b), int(c)) for n, a, b, c in spans}, buckets)


async def run_components(db: Reader, run_id: str) -> dict[str, list[tuple[float, float]]]:
    """Per reward component, its mean over the run's scored episodes at each step (``episodes_run`` index), and
    the mean total as ``reward``: the hub's own curve, which needs no trainer metric names. Kept until the store
    has new rewards."""

    async def compute() -> dict[str, list[tuple[float, float]]]:
        return await _run_components(db, run_id)

    return await versioned(db, ("components", run_id), ("rewards", "episodes"), compute)  # type: ignore[no-any-return]


async def _run_components(db: Reader, run_id: str) -> dict[str, list[tuple[float, float]]]:
    cols = ", ".join(f"AVG(r.{c})" for c in COMPONENTS)
    rows = await db.tuples(
        f"SELECT e.run_step, AVG(r.total), {cols} FROM episodes e JOIN rewards r ON r.episode_id = e.id "
        "WHERE e.run_id = ? AND e.run_step IS NOT NULL GROUP BY e.run_step ORDER BY e.run_step",
        (run_id,),
    )
    out: dict[str, list[tuple[float, float]]] = {}
    for name, i in (("reward", 1), *((c, 2 + k) for k, c in enumerate(COMPONENTS))):
        points = [(float(r[0]), float(r[i])) for r in rows if r[i] is not None]
        if points:
            out[name] = points
    return out


# Run analytics ----------------------------------------------------------------------------------


async def run_failures(db: Reader, run_id: str) -> list[tuple[Any, ...]]:
    async def compute() -> list[tuple[Any, ...]]:
        return await _run_failures(db, run_id)

    return await versioned(db, ("run_failures", run_id), ("tool_calls", "episodes"), compute)  # type: ignore[no-any-return]


async def _run_failures(db: Reader, run_id: str) -> list[tuple[Any, ...]]:
    """The run's episode calls per (server, tool, error kind): calls and failures (error kind None: the calls
    that succeeded)."""
    return await db.tuples(
        "SELECT c.server, c.tool, c.error_kind, COUNT(*), SUM(c.ok = 0) FROM episodes e "
        "JOIN tool_calls c ON c.episode_id = e.id WHERE e.run_id = ? GROUP BY c.server, c.tool, c.error_kind",
        (run_id,),
    )


async def run_lost(db: Reader, run_id: str, width: int) -> list[tuple[Any, ...]]:
    async def compute() -> list[tuple[Any, ...]]:
        return await _run_lost(db, run_id, width)

    return await versioned(db, ("run_lost", run_id, width), ("rewards", "episodes"), compute)  # type: ignore[no-any-return]


async def _run_lost(db: Reader, run_id: str, width: int) -> list[tuple[Any, ...]]:
    """Per step range (``run_step / width``) and component: the episodes and the points the ledger says they lost."""
    return await db.tuples(
        "SELECT e.run_step / ? AS b, json_extract(j.value, '$.name'), COUNT(*), SUM(json_extract(j.value, '$.lost')) "
        "FROM episodes e JOIN rewards r ON r.episode_id = e.id, json_each(r.ledger) j "
        "WHERE e.run_id = ? AND e.run_step IS NOT NULL AND r.ledger IS NOT NULL GROUP BY b, 2 ORDER BY b",
        (width, run_id),
    )


async def run_groups(db: Reader, run_id: str) -> list[tuple[Any, ...]]:
    async def compute() -> list[tuple[Any, ...]]:
        return await _run_groups(db, run_id)

    return await versioned(db, ("run_groups", run_id), ("rewards", "episodes"), compute)  # type: ignore[no-any-return]


async def _run_groups(db: Reader, run_id: str) -> list[tuple[Any, ...]]:
    """The run's GRPO groups: step, group, task, rollouts scored, mean, min and max total, mean of squares."""
    return await db.tuples(
        "SELECT e.run_step, e.group_id, MIN(e.task_id), COUNT(r.total), AVG(r.total), MIN(r.total), MAX(r.total), "
        "AVG(r.total * r.total) FROM episodes e LEFT JOIN rewards r ON r.episode_id = e.id WHERE e.run_id = ? "
        "GROUP BY e.run_step, e.group_id ORDER BY e.run_step, e.group_id",
        (run_id,),
    )
