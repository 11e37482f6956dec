"""The persistent store: batched writer, acknowledgement, bounded queue, survival of kill -9."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from contextlib import closing
from pathlib import Path

import pytest

from hub.engine.events import (
    EpisodeEvent,
    EventBus,
    RewardEvent,
    RunEvent,
    RunMetricEvent,
    TaskEvent,
    ToolCallEvent,
    TurnEvent,
)
from hub.engine.store import Store
from hub.errors import StoreError

ROOT = Path(__file__).resolve().parent.parent


def tool_event(n: int, episode: str | None = "ep-1") -> ToolCallEvent:
    return ToolCallEvent(
        session="s",
        server="banking",
        tool="get_account",
        arguments={"account_id": f"ACC-{n}"},
        ok=True,
        result={"n": n},
        error=None,
        error_kind=None,
        latency_ms=0.1,
        state_changed=False,
        ts=time.time(),
        episode=episode,
    )


async def test_events_from_the_bus_are_stored_and_acknowledged(tmp_path: Path) -> None:
    bus = EventBus()
    store = Store(str(tmp_path / "s.db"))
    await store.start(bus)
    now = time.time()
    bus.publish(TaskEvent("t1", "mcp", ["banking"], {"id": "t1"}, now))
    bus.publish(EpisodeEvent("open", "ep-1", "t1", "grp-1", "s", "h0", now))
    bus.publish(TurnEvent("ep-1", 0, "user", "hi", now))
    for n in range(100):
        bus.publish(tool_event(n))
    bus.publish(
        EpisodeEvent(
            "finish",
            "ep-1",
            "t1",
            "grp-1",
            "s",
            "h0",
            now,
            final_hash="h1",
            reason="completed",
            steps=2,
            calls=100,
            reward=1.25,
        )
    )
    bus.publish(RewardEvent("ep-1", "t1", 1.25, "paper", {"validity": 1.0, "coverage": 0.5}, {"w_val": 0.5}, now))
    store.offer(RunEvent("run-1", "grpo", {"lr": 1e-6}, "running", now))
    store.offer(RunMetricEvent("run-1", 3, {"reward": 0.7, "kl": 0.01}, now))
    assert store.acked == 0  # nothing waited on disk
    assert await store.flush() == 107
    assert store.offered == 107 and store.dropped == 0
    ep = (await store.query("SELECT * FROM episodes"))[0]
    assert (ep["status"], ep["reward"], ep["final_hash"]) == ("finished", 1.25, "h1")
    assert (await store.query("SELECT COUNT(*) n FROM tool_calls WHERE episode_id='ep-1'"))[0]["n"] == 100
    assert (await store.query("SELECT coverage FROM rewards"))[0]["coverage"] == 0.5
    assert len(await store.query("SELECT * FROM run_metrics WHERE run_id='run-1'")) == 2
    plan = await store.query("EXPLAIN QUERY PLAN SELECT * FROM tool_calls WHERE episode_id='ep-1' ORDER BY id")
    assert "tool_calls_episode" in str(plan)
    plan = await store.query("EXPLAIN QUERY PLAN SELECT * FROM episodes WHERE task_id='t1' ORDER BY opened_at")
    assert "episodes_task" in str(plan)
    assert (await store.query("PRAGMA journal_mode"))[0]["journal_mode"] == "wal"
    await store.stop()
    bus.publish(tool_event(1))  # after stop: no longer subscribed
    assert store.offered == 107


async def test_batches_are_transactions(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "s.db"), batch_max=50)
    await store.start()
    for n in range(500):
        store.offer(tool_event(n))
    await store.flush()
    assert store.acked == 500 and 10 <= store.batches <= 500
    await store.stop()


async def test_full_queue_drops_oldest_and_counts(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "s.db"), queue_max=10)
    await store.start()
    for n in range(25):  # the writer cannot run in between: no await
        store.offer(tool_event(n))
    assert store.depth == 10 and store.dropped == 15
    await store.flush()
    rows = await store.query("SELECT arguments FROM tool_calls ORDER BY id")
    assert len(rows) == 10 and rows[0]["arguments"] == '{"account_id":"ACC-15"}'
    await store.stop()


async def test_flush_without_start_is_an_error(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "s.db"))
    store.offer(tool_event(1))
    with pytest.raises(StoreError, match="not running"):
        await store.flush()


CHILD = textwrap.dedent("""
    import asyncio, sys, time
    sys.path.insert(0, {root!r})
    from hub.engine.store import Store
    from hub.engine.events import ToolCallEvent

    async def main():
        store = Store({path!r}, batch_max=64)
        store.on_commit = lambda acked: print("ACK", acked, flush=True)
        await store.start()
        n = 0
        while True:
            while store.depth > 2000:  # a producer that respects the bound: overflow drops are tested elsewhere
                await asyncio.sleep(0.001)
            for _ in range(97):
                n += 1
                store.offer(ToolCallEvent("s", "banking", "get_account", {{"n": n}}, True, {{"pad": "x" * 300}},
                                          None, None, 0.1, False, time.time(), "ep-kill"))
            await asyncio.sleep(0)

    asyncio.run(main())
""")


def test_kill_9_mid_write_keeps_every_acknowledged_event(tmp_path: Path) -> None:
    path = tmp_path / "kill.db"
    script = tmp_path / "child.py"
    script.write_text(CHILD.format(root=str(ROOT), path=str(path)))
    acked = 0
    # Leaving the block closes the pipe (and reaps the child) however the test ends.
    with subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True) as proc:
        try:
            assert proc.stdout is not None
            for line in proc.stdout:
                acked = int(line.split()[1])
                if acked >= 3000:
                    break
            os.kill(proc.pid, signal.SIGKILL)  # while it keeps writing
        finally:
            proc.kill()
            proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    assert acked >= 3000
    with closing(sqlite3.connect(path)) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        stored = db.execute("SELECT COUNT(*) FROM tool_calls").fetchone()[0]
        assert stored >= acked
        # acknowledged events are exactly the first ones, in order, without holes
        ns = [r[0] for r in db.execute("SELECT json_extract(arguments, '$.n') FROM tool_calls ORDER BY id")]
    assert ns == list(range(1, stored + 1))


async def test_a_backlogged_writer_makes_producers_wait_instead_of_dropping(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "s.db"), queue_max=40, batch_max=5)
    await store.start()
    await store.room()  # nothing queued: no wait
    for n in range(30):  # the writer cannot run in between: no await
        store.offer(tool_event(n))
    assert store.backlogged and store.dropped == 0
    await asyncio.wait_for(store.room(), 30)  # returns once the writer has caught up to a quarter of the queue
    assert not store.backlogged and store.depth <= 10 and store.dropped == 0
    await store.flush()
    assert store.acked == 30
    await store.stop()
