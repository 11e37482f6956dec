"""Lanes: a session's calls run in order, off the event loop, and a slow call delays only its own session."""

from __future__ import annotations

import asyncio
import random
import sqlite3
import threading
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx

from hub.app import create_app
from hub.config import REFERENCE_NOW, Settings
from hub.core import Hub
from hub.engine.dispatcher import Dispatcher
from hub.engine.events import EventBus, ToolCallEvent
from hub.kit import Ctx, Server
from hub.mount import ObjectMount
from hub.state.library import Library, SqliteMount
from hub.state.sessions import SessionManager
from hub.testing import serve
from tests.conftest import ALL_PARTS

WAIT_S = 30.0  # how long a test waits for an event before it fails (never a sleep)

SCHEMA = "CREATE TABLE counters (name TEXT PRIMARY KEY, n INTEGER NOT NULL);"


def seed(db: sqlite3.Connection, rng: random.Random, now: datetime) -> None:
    db.executemany("INSERT INTO counters VALUES (?, 0)", [(f"c{i}",) for i in range(20)])


tally = Server("tally", "Counters, and a query whose cost the caller chooses.", SCHEMA, seed)


@tally.write()
def bump(ctx: Ctx, name: str) -> dict[str, object]:
    """Add one to a counter, e.g. bump('c1')."""
    ctx.db.execute("UPDATE counters SET n = n + 1 WHERE name = ?", (name,))
    return {"n": ctx.db.execute("SELECT n FROM counters WHERE name = ?", (name,)).fetchone()[0]}


@tally.read()
def count_to(ctx: Ctx, n: int) -> dict[str, object]:
    """Count to n in SQL (a query that runs as long as asked), e.g. count_to(10)."""
    sql = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ?) SELECT COUNT(*) FROM c"
    return {"count": ctx.db.execute(sql, (n,)).fetchone()[0]}


THREADS: list[int] = []  # the thread each bump_after_counting ran on


@tally.write()
def bump_after_counting(ctx: Ctx, name: str, n: int) -> dict[str, object]:
    """Add one to a counter after a long count, e.g. bump_after_counting('c1', 10)."""
    THREADS.append(threading.get_ident())
    ctx.db.execute("UPDATE counters SET n = n + 1 WHERE name = ?", (name,))
    count_to(ctx, n)
    return {"n": ctx.db.execute("SELECT n FROM counters WHERE name = ?", (name,)).fetchone()[0]}


class Gate:
    """A mounted class whose ``hold`` call blocks until the test opens the gate (a slow call on cue)."""

    opened = threading.Event()
    entered = threading.Event()

    def __init__(self) -> None:
        self.log: list[str] = []

    def hold(self, tag: str) -> list[str]:
        """Wait until the gate opens, then record ``tag``, e.g. hold('a')."""
        Gate.entered.set()
        if not Gate.opened.wait(WAIT_S):
            raise TimeoutError("the gate never opened")
        self.log.append(tag)
        return self.log

    def note(self, tag: str) -> list[str]:
        """Record ``tag``, e.g. note('a')."""
        self.log.append(tag)
        return self.log

    def spin(self) -> int:
        """Burn CPU in pure Python until the gate opens, e.g. spin()."""
        Gate.entered.set()
        n = 0
        while not Gate.opened.is_set():
            n += sum(range(1000)) and 1
            if n > 10_000_000:
                raise TimeoutError("the gate never opened")
        return n


def library() -> Library:
    return Library([SqliteMount(tally, REFERENCE_NOW), ObjectMount(Gate, "gate")])


def world(inline_s: float = 0.005) -> tuple[SessionManager, Dispatcher, list[ToolCallEvent]]:
    lib = library()
    bus = EventBus()
    seen: list[ToolCallEvent] = []

    class Sink:
        def offer(self, event: Any) -> None:
            if isinstance(event, ToolCallEvent):
                seen.append(event)

    bus.attach(Sink())
    sm = SessionManager(lib)
    return sm, Dispatcher(lib, sm, bus, inline_s=inline_s), seen


def reset_gate() -> None:
    Gate.opened.clear()
    Gate.entered.clear()


async def entered() -> None:
    assert await asyncio.to_thread(Gate.entered.wait, WAIT_S), "the slow call never started"


async def test_calls_of_one_session_run_in_order() -> None:
    sm, dispatcher, seen = world()
    calls = [dispatcher.run("a", "gate", "note", {"tag": str(i)}) for i in range(40)]
    calls += [dispatcher.run("b", "gate", "note", {"tag": str(i)}) for i in range(40)]
    outcomes = await asyncio.gather(*calls)
    assert all(o.ok for o in outcomes)
    for sid in ("a", "b"):
        assert sm.get(sid).fork_of("gate").instance.log == [str(i) for i in range(40)]  # type: ignore[attr-defined]
    assert [e.arguments["tag"] for e in seen if e.session == "a"] == [str(i) for i in range(40)]
    bumps = await asyncio.gather(*(dispatcher.run("a", "tally", "bump", {"name": "c1"}) for _ in range(30)))
    assert [o.result["n"] for o in bumps] == list(range(1, 31))
    sm.shutdown()


async def test_a_slow_call_delays_only_its_own_session() -> None:
    sm, dispatcher, seen = world()
    reset_gate()
    slow = asyncio.create_task(dispatcher.run("slow", "gate", "hold", {"tag": "first"}))
    await entered()
    behind = asyncio.create_task(dispatcher.run("slow", "gate", "note", {"tag": "second"}))
    for n in range(5):  # other sessions' calls, mounted and built-in, finish while the slow one waits
        assert (await dispatcher.run("other", "gate", "note", {"tag": str(n)})).ok
        assert (await dispatcher.run(f"s{n}", "tally", "bump", {"name": "c1"})).result == {"n": 1}
    assert not slow.done() and not behind.done()  # its own session's next call waits its turn
    Gate.opened.set()
    first, second = await asyncio.wait_for(asyncio.gather(slow, behind), WAIT_S)
    assert first.result == ["first"] and second.result == ["first", "second"]
    sm.shutdown()


async def test_a_cpu_bound_call_leaves_the_loop_free() -> None:
    sm, dispatcher, _ = world()
    reset_gate()
    spinning = asyncio.create_task(dispatcher.run("busy", "gate", "spin", {}))
    await entered()
    for n in range(20):  # if the spin held the loop, none of these could finish before the gate opens
        assert (await dispatcher.run("quick", "tally", "bump", {"name": "c2"})).result == {"n": n + 1}
    assert not spinning.done()
    Gate.opened.set()
    assert (await asyncio.wait_for(spinning, WAIT_S)).ok
    sm.shutdown()


async def test_a_tool_runs_inline_once_it_proved_cheap_and_never_after_it_overran() -> None:
    sm, dispatcher, seen = world(inline_s=0.002)
    key = ("tally", "bump_after_counting")
    THREADS.clear()
    for n in range(1, 3):  # its first calls run in the lane, timed: cheap
        assert (await dispatcher.run("a", "tally", "bump_after_counting", {"name": "c3", "n": 10})).result == {"n": n}
    assert dispatcher.cheap[key] == 2 and key not in dispatcher.slow
    loop = threading.get_ident()
    assert loop not in THREADS
    THREADS.clear()
    assert (await dispatcher.run("a", "tally", "bump_after_counting", {"name": "c3", "n": 10})).result == {"n": 3}
    assert THREADS == [loop]  # trusted: inline
    out = await dispatcher.run("a", "tally", "bump_after_counting", {"name": "c3", "n": 3_000_000})
    assert out.ok and out.result == {"n": 4}  # interrupted inline, rolled back, run again in the lane: counted once
    assert THREADS[1] == loop and THREADS[2] != loop and key in dispatcher.slow
    assert len([e for e in seen if e.tool == "bump_after_counting"]) == 4  # one event per call
    assert (await dispatcher.run("a", "tally", "bump_after_counting", {"name": "c3", "n": 10})).result == {"n": 5}
    assert THREADS[3] != loop  # it overran once: it stays in the lane
    big = await dispatcher.run("a", "tally", "count_to", {"n": 3_000_000})  # a first call never runs inline
    assert big.result == {"count": 3_000_000} and ("tally", "count_to") in dispatcher.slow
    sm.shutdown()


async def test_the_live_hub_answers_while_a_call_is_stuck(tmp_path: Path) -> None:
    settings = Settings(store_path=str(tmp_path / "store.db"), builtin=False)
    hub = Hub(settings, library())
    reset_gate()
    async with serve(create_app(settings, hub, ALL_PARTS)) as live, httpx.AsyncClient(base_url=live.url) as http:
        stuck = asyncio.create_task(http.post("/api/sessions/stuck/call/gate/hold", json={"arguments": {"tag": "x"}}))
        await entered()
        for n in range(3):
            assert (await http.get("/healthz")).status_code == 200
            r = await http.post("/api/sessions/free/call/tally/bump", json={"arguments": {"name": "c1"}})
            assert r.json()["result"] == {"n": n + 1}
            assert (await http.get("/api/sessions/free/state/tally")).json()["diff"]["counters"]["changed"]
        page = (await http.get("/api/sessions")).json()["sessions"]
        assert {"free", "stuck"} <= {s["id"] for s in page}  # listing waits for no session's call
        assert not stuck.done()
        Gate.opened.set()
        assert (await asyncio.wait_for(stuck, WAIT_S)).json()["result"] == ["x"]
