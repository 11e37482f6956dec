"""Store faults are visible, never fatal; episodes a stop or a crash cut short are marked ``interrupted``.

Reliability scenarios (``abuse``) against a real SQLite file, a real uvicorn and real ``prove-hub serve``
processes: a full disk (SQLite's ``max_page_count``), a store that cannot be created, an immutable store, an
unwritable ``-shm``, a clean stop and a ``kill -9``.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient
from websockets.asyncio.client import connect

from hub.engine.events import ToolCallEvent
from hub.engine.store import Store, check_path
from hub.errors import StoreError
from hub.logs import Every
from hub.testing import free_port, serve
from tests.test_token_mode import wait_until_up
from tests.web_support import hub_of, make_app

pytestmark = pytest.mark.abuse
ROOT = Path(__file__).resolve().parent.parent


def big_call(i: int) -> ToolCallEvent:
    return ToolCallEvent("s", "banking", "get_account", {}, True, None, None, None, 0.1, False, 0.0, None, "x" * 20_000)


def threads_end(before: set[threading.Thread]) -> bool:
    """Whether every thread started since ``before`` ends (within seconds): nothing would keep the process alive."""
    for thread in set(threading.enumerate()) - before:
        thread.join(10)
    return not any(t.is_alive() for t in set(threading.enumerate()) - before)


@contextlib.contextmanager
def unwritable(path: Path) -> Iterator[None]:
    """Make ``path`` unwritable to this process (immutable as root, read-only otherwise); skip where impossible."""
    immutable = os.geteuid() == 0 and shutil.which("chattr") is not None
    if immutable:
        made = subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode == 0
    else:
        path.chmod(0o444)
        made = True
    try:
        if not made or os.access(path, os.W_OK):
            pytest.skip("cannot make a file unwritable to this process here")
        yield
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", str(path)], capture_output=True)
        path.chmod(0o644)


# Faults are visible --------------------------------------------------------------------------------------


async def test_a_full_disk_makes_healthz_degraded_and_logs_once_per_interval(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with serve(make_app(tmp_path)) as live, httpx.AsyncClient(base_url=live.url) as http:
        store = hub_of(live.app).store
        store._log = Every(logging.getLogger("hub.engine.store"), 3600.0)
        pages = (await store.query("PRAGMA page_count"))[0]["page_count"]
        await store.query(f"PRAGMA max_page_count = {pages}")  # no room to grow: SQLITE_FULL from now on
        assert (await http.get("/healthz")).json()["status"] == "ok"
        with caplog.at_level(logging.ERROR, logger="hub.engine.store"):
            for i in range(200):
                event = big_call(i)
                live.app.state.hub.bus.publish(event)
            await store.flush(10.0)
        health = (await http.get("/healthz")).json()
    assert store.failed == 200
    assert health["status"] == "degraded" and "full" in health["store"] and health["failed"] == 200
    lines = [r for r in caplog.records if r.name == "hub.engine.store"]
    assert len(lines) == 1 and "refused" in lines[0].getMessage()


def test_health_recovers_once_the_failures_are_a_minute_old(tmp_path: Path) -> None:
    now = [0.0]
    store = Store(str(tmp_path / "s.db"), clock=lambda: now[0])
    store._refused(big_call(1), OSError("disk I/O error"))
    assert store.health()["status"] == "degraded" and "disk I/O error" in store.health()["store"]
    now[0] = 61.0
    assert store.health() == {"status": "ok"}


# Start-up errors name the file and the reason ------------------------------------------------------------


async def test_a_store_that_cannot_be_created_fails_fast_naming_the_file(tmp_path: Path) -> None:
    threads = set(threading.enumerate())
    path = str(tmp_path / "missing" / "dir" / "store.db")
    store = Store(path)
    with pytest.raises(StoreError) as failed:
        await store.start()
    assert path in failed.value.message and "unable to open database file" in failed.value.message
    assert threads_end(threads)  # nothing left open: the process can exit
    with pytest.raises(StoreError, match="unable to open database file"):
        check_path(path)


async def test_an_immutable_store_is_refused_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    store = Store(str(path))
    await store.start()
    await store.stop()
    threads = set(threading.enumerate())
    with unwritable(path):
        with pytest.raises(StoreError, match="readonly|read-only|not writable") as failed:
            check_path(str(path))
        assert str(path) in failed.value.message
        with pytest.raises(StoreError):
            await Store(str(path)).start()
        assert threads_end(threads)


async def test_an_unwritable_shm_file_is_refused_with_a_clear_message(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    store = Store(str(path))
    await store.start()
    await store.stop()
    shm = Path(str(path) + "-shm")
    shm.write_bytes(b"")
    with unwritable(shm):
        with pytest.raises(StoreError, match="-shm' is not writable"):
            check_path(str(path))
        with pytest.raises(StoreError, match="-shm' is not writable"):
            await Store(str(path)).start()


@pytest.mark.slow
def test_prove_hub_serve_exits_non_zero_at_once_on_a_bad_store(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "hub.cli", "serve", "--only", "banking", "--port", str(free_port())]
    bad = tmp_path / "no" / "such" / "dir" / "store.db"
    start = time.monotonic()
    done = subprocess.run([*cmd, "--store", str(bad)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    took = time.monotonic() - start
    assert done.returncode == 2 and took < 60
    assert (
        done.stderr.strip()
        == f"prove-hub: cannot open the episode store {str(bad)!r}: unable to open database file (SQLite)"
    )


# Interrupted episodes ------------------------------------------------------------------------------------


async def stored_rows(path: Path, sql: str) -> list[dict[str, Any]]:
    """What ``sql`` reads from the store file at ``path``, through a store started for it and stopped after."""
    store = Store(str(path))
    await store.start()
    try:
        return await store.query(sql)
    finally:
        await store.stop()


async def statuses(path: Path) -> dict[str, tuple[str, str | None]]:
    rows = await stored_rows(path, "SELECT id, status, reason FROM episodes")
    return {r["id"]: (r["status"], r["reason"]) for r in rows}


async def test_a_clean_stop_marks_open_episodes_interrupted(tmp_path: Path) -> None:
    async with serve(make_app(tmp_path)) as live:
        hub = hub_of(live.app)
        done, left = hub.episodes.open_group("bank-transfer-002", 2)
        hub.episodes.finish(done.id)
    assert await statuses(tmp_path / "store.db") == {
        done.id: ("finished", "finished"),
        left.id: ("interrupted", "shutdown"),
    }


@pytest.mark.slow
async def test_episodes_a_crash_left_open_are_interrupted_at_the_next_start_and_shown_so(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    port = free_port()
    cmd = [sys.executable, "-m", "hub.cli", "serve", "--only", "banking", "--port", str(port), "--store", str(path)]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        await wait_until_up(f"http://127.0.0.1:{port}", proc)
        async with connect(f"ws://127.0.0.1:{port}/ws") as ws:
            replies = []
            for message in (
                {"type": "hello", "id": 1},
                {"type": "open", "task": "bank-transfer-002", "n": 2, "id": 2},
                {"type": "flush", "id": 3},
            ):
                await ws.send(json.dumps(message))
                replies.append(json.loads(await ws.recv()))
            opened = [e["episode"] for e in replies[1]["episodes"]]
            assert replies[2]["type"] == "flushed"
            await ws.send(json.dumps({"type": "finish", "episode": opened[0], "id": 4}))
            await ws.recv()
            await ws.send(json.dumps({"type": "flush", "id": 5}))
            await ws.recv()
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    assert await statuses(path) == {opened[0]: ("finished", "finished"), opened[1]: ("interrupted", "crash")}
    with TestClient(make_app(tmp_path), base_url="http://127.0.0.1") as client:
        page = client.get("/ui/episodes", params={"status": "interrupted"})
        assert opened[1] in page.text and opened[0] not in page.text and "interrupted · crash" in page.text
        overview: Any = client.get("/ui/").context  # type: ignore[attr-defined]
    stats = overview["stats"]
    assert stats["episodes"] == 2 and stats["rewarded"] == 1  # the interrupted one counts in no reward statistic
    assert stats["mean_reward"] == pytest.approx((await statuses_rewards(path))[opened[0]])


async def statuses_rewards(path: Path) -> dict[str, float]:
    rows = await stored_rows(path, "SELECT episode_id, total FROM rewards")
    return {r["episode_id"]: r["total"] for r in rows}
