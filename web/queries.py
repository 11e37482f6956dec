"""Read queries the dashboard runs on the store's SQLite file (hub/store.py owns the schema and writes).

The reader has its own read-only connection (WAL lets it read while the store's writer commits),
so a page never queues behind a write batch. Every list is paged: keyset pagination over an indexed
ORDER BY for episodes and tool calls, LIMIT/OFFSET only over small tables; nothing loads all rows.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

log = logging.getLogger("web.queries")
Row = dict[str, Any]


class Reader:
    """A lazily opened read-only connection to the store's file, used from one worker thread.

    Plain ``sqlite3`` behind a one-thread executor rather than aiosqlite: it is not tied to the event
    loop that opened it, so it needs no lifespan hook and works under any test client.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self._db: sqlite3.Connection | None = None
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="dashboard-reader")

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


@dataclass
class EpisodeFilter:
    task: str = ""
    server: str = ""
    status: str = ""
    min_reward: float | None = None
    max_reward: float | None = None
    errors: bool = False

    def where(self) -> tuple[list[str], list[Any]]:
        clauses: list[str] = []
        params: list[Any] = []
        if self.task:
            clauses.append("e.task_id = ?")
            params.append(self.task)
        if self.server:
            clauses.append("e.task_id IN (SELECT id FROM tasks WHERE servers LIKE ?)")
            params.append(f'%"{self.server}"%')
        if self.status in ("open", "finished"):
            clauses.append("e.status = ?")
            params.append(self.status)
        if self.min_reward is not None:
            clauses.append("e.reward >= ?")
            params.append(self.min_reward)
        if self.max_reward is not None:
            clauses.append("e.reward <= ?")
            params.append(self.max_reward)
        if self.errors:
            clauses.append("(e.format_errors > 0 OR EXISTS (SELECT 1 FROM tool_calls t WHERE t.episode_id = e.id "
                           "AND t.ok = 0))")
        return clauses, params

    def query(self) -> dict[str, str]:
        """The filter as URL query parameters (for links that keep it)."""
        out = {"task": self.task, "server": self.server, "status": self.status,
               "min_reward": "" if self.min_reward is None else str(self.min_reward),
               "max_reward": "" if self.max_reward is None else str(self.max_reward),
               "errors": "1" if self.errors else ""}
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


EPISODE_COLUMNS = ("e.id, e.task_id, e.group_id, e.session_id, e.status, e.reason, e.steps, e.calls, e.format_errors, "
                   "e.reward, e.opened_at, e.finished_at, e.start_hash, e.final_hash")


async def episode_page(db: Reader, flt: EpisodeFilter, cursor: str | None = None, limit: int = 50) -> Page:
    """Newest first, keyset-paged on (opened_at, id)."""
    clauses, params = flt.where()
    at = decode_cursor(cursor) if cursor else None
    if at is not None:
        clauses.append("(e.opened_at, e.id) < (?, ?)")
        params.extend(at)
    where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
    rows = await db.rows(f"SELECT {EPISODE_COLUMNS} FROM episodes e {where} "
                         "ORDER BY e.opened_at DESC, e.id DESC LIMIT ?", [*params, limit + 1])
    more = len(rows) > limit
    rows = rows[:limit]
    await _attach_call_counts(db, rows)
    nxt = encode_cursor(rows[-1]["opened_at"], rows[-1]["id"]) if more and rows else None
    return Page(rows, nxt)


async def count_episodes(db: Reader, flt: EpisodeFilter) -> int:
    clauses, params = flt.where()
    where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
    found = await db.one(f"SELECT COUNT(*) AS n FROM episodes e {where}", params)
    return int(found["n"]) if found else 0


async def _attach_call_counts(db: Reader, rows: list[Row]) -> None:
    """Each episode's tool-call count and failed-call count (open episodes have no count of their own yet)."""
    if not rows:
        return
    marks = ",".join("?" * len(rows))
    counts = await db.rows(f"SELECT episode_id, COUNT(*) AS n, SUM(ok = 0) AS failed FROM tool_calls "
                           f"WHERE episode_id IN ({marks}) GROUP BY episode_id", [r["id"] for r in rows])
    by_id = {c["episode_id"]: c for c in counts}
    for r in rows:
        c = by_id.get(r["id"], {})
        r["call_count"] = c.get("n", 0)
        r["failed_calls"] = c.get("failed") or 0


async def episode(db: Reader, eid: str) -> Row | None:
    return await db.one(f"SELECT {EPISODE_COLUMNS} FROM episodes e WHERE e.id = ?", (eid,))


async def turns(db: Reader, eid: str, limit: int = 2000) -> list[Row]:
    return await db.rows("SELECT seq, role, content, ts FROM turns WHERE episode_id = ? ORDER BY seq LIMIT ?",
                         (eid, limit))


CALL_COLUMNS = ("id, event_id, ts, session_id, episode_id, server, tool, arguments, ok, result, error, error_kind, "
                "latency_ms, state_changed")


async def episode_calls(db: Reader, eid: str, limit: int = 2000) -> list[Row]:
    return [decode_call(r) for r in await db.rows(
        f"SELECT {CALL_COLUMNS} FROM tool_calls WHERE episode_id = ? ORDER BY id LIMIT ?", (eid, limit))]


async def reward(db: Reader, eid: str) -> Row | None:
    found = await db.one("SELECT * FROM rewards WHERE episode_id = ?", (eid,))
    if found:
        found["components"] = json.loads(found["components"])
        found["weights"] = json.loads(found["weights"])
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


async def recent_calls(db: Reader, *, session: str = "", server: str = "", tool: str = "",
                       before: int | None = None, limit: int = 50) -> Page:
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
    rows = await db.rows(f"SELECT {CALL_COLUMNS} FROM tool_calls {where} ORDER BY id DESC LIMIT ?", [*params, limit + 1])
    more = len(rows) > limit
    rows = [decode_call(r) for r in rows[:limit]]
    return Page(rows, str(rows[-1]["id"]) if more and rows else None)


# Overview ---------------------------------------------------------------------------------------


async def totals(db: Reader) -> Row:
    """Stored totals; the tool-call count is the largest id (rows are never deleted), so it costs one seek."""
    calls = await db.one("SELECT MAX(id) AS n FROM tool_calls")
    eps = await db.one("SELECT COUNT(*) AS n, SUM(status = 'open') AS open FROM episodes")
    rew = await db.one("SELECT AVG(total) AS mean, COUNT(*) AS n FROM rewards")
    return {"tool_calls": (calls or {}).get("n") or 0, "episodes": (eps or {}).get("n") or 0,
            "episodes_open": (eps or {}).get("open") or 0, "mean_reward": (rew or {}).get("mean"),
            "rewarded": (rew or {}).get("n") or 0}


async def recent_rewards(db: Reader, limit: int = 500) -> list[float]:
    """Rewards of the latest finished episodes, oldest first."""
    rows = await db.rows("SELECT reward FROM episodes WHERE reward IS NOT NULL ORDER BY opened_at DESC LIMIT ?", (limit,))
    return [float(r["reward"]) for r in reversed(rows)]


async def mean_components(db: Reader, limit: int = 500) -> dict[str, float]:
    """Mean of each reward component over the latest ``limit`` rewards."""
    rows = await db.rows("SELECT AVG(validity) AS validity, AVG(coverage) AS coverage, AVG(efficiency) AS efficiency, "
                         "AVG(name) AS name, AVG(argument) AS argument, AVG(state) AS state, AVG(format) AS format "
                         "FROM (SELECT * FROM rewards ORDER BY rowid DESC LIMIT ?)", (limit,))
    return {k: float(v) for k, v in (rows[0] if rows else {}).items() if v is not None}


# Tasks ------------------------------------------------------------------------------------------


async def task_stats(db: Reader, task_ids: list[str]) -> dict[str, Row]:
    """Episodes, finished episodes and mean reward per task, for the given tasks only."""
    if not task_ids:
        return {}
    marks = ",".join("?" * len(task_ids))
    rows = await db.rows(f"SELECT task_id, COUNT(*) AS episodes, COUNT(reward) AS finished, AVG(reward) AS mean_reward "
                         f"FROM episodes WHERE task_id IN ({marks}) GROUP BY task_id", task_ids)
    return {r["task_id"]: r for r in rows}


async def stored_tasks(db: Reader, offset: int = 0, limit: int = 200) -> list[Row]:
    """Tasks the store knows of (announced by episodes), for tasks no longer loaded in the hub."""
    rows = await db.rows("SELECT id, kind, servers, data, created_at FROM tasks ORDER BY id LIMIT ? OFFSET ?",
                         (limit, offset))
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
    rows = await db.rows("SELECT r.id, r.name, r.config, r.status, r.started_at, r.finished_at, "
                         "(SELECT MAX(step) FROM run_metrics m WHERE m.run_id = r.id) AS last_step "
                         "FROM training_runs r ORDER BY r.started_at DESC LIMIT ? OFFSET ?", (limit, offset))
    for r in rows:
        r["config"] = json.loads(r["config"])
    return rows


async def run(db: Reader, run_id: str) -> Row | None:
    found = await db.one("SELECT id, name, config, status, started_at, finished_at FROM training_runs WHERE id = ?",
                         (run_id,))
    if found:
        found["config"] = json.loads(found["config"])
    return found


async def run_metrics(db: Reader, run_id: str, max_points: int = 2000) -> dict[str, list[tuple[float, float]]]:
    """Each metric's (step, value) series; long runs are thinned to about ``max_points`` per metric."""
    span = await db.one("SELECT MIN(step) AS lo, MAX(step) AS hi FROM run_metrics WHERE run_id = ?", (run_id,))
    if not span or span["hi"] is None:
        return {}
    stride = max(1, (span["hi"] - span["lo"] + 1) // max_points)
    rows = await db.rows("SELECT name, step, value FROM run_metrics WHERE run_id = ? AND (step - ?) % ? = 0 "
                         "ORDER BY name, step", (run_id, span["lo"], stride))
    out: dict[str, list[tuple[float, float]]] = {}
    for r in rows:
        out.setdefault(r["name"], []).append((float(r["step"]), float(r["value"])))
    return out
