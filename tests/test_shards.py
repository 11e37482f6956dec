"""``prove-hub serve --workers 2``: real worker processes behind the real front, driven over HTTP and ``/ws``.

Routing keeps a session, its forks, its snapshots and a GRPO group on one shard; ``/metrics`` sums the shards; a
worker killed with SIGKILL is restarted, and what lived on it answers ``session_lost`` while the other shard's
episodes carry on. Waits poll the front's ``/healthz`` with a deadline (no fixed sleeps).
"""

from __future__ import annotations

import asyncio
import json
import os
import select
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect

from hub.engine.store import Store
from hub.net import free_port
from hub.shard_workers import Table, workers_from
from hub.shards import sum_metrics

ROOT = Path(__file__).resolve().parents[1]
TRANSFER = (
    '<tool_call>{"name": "banking__transfer_funds", "arguments": {"from_account_id": "ACC-0001", '
    '"to_account_id": "ACC-0002", "amount": 300.0, "memo": "Rent June"}}</tool_call>'
)


class Sharded:
    def __init__(self, tmp: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.store = tmp / "store.db"
        cmd = [sys.executable, "-m", "hub.cli", "serve", "--workers", "2", "--only", "banking"]
        cmd += ["--port", str(self.port), "--store", str(self.store), "--log-level", "warning"]
        env = {k: v for k, v in os.environ.items() if not k.startswith("HUB_")}
        self.log = open(tmp / "front.log", "wb")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT)

    async def health(self, http: httpx.AsyncClient) -> dict[str, Any]:
        try:
            reply = await http.get("/healthz")
        except httpx.TransportError:
            return {"ok": False, "shards": []}
        data: dict[str, Any] = reply.json()
        return data

    async def wait(self, http: httpx.AsyncClient, ready: Any, timeout: float = 120) -> dict[str, Any]:
        """Poll ``/healthz`` until ``ready(health)``; the front's exit fails at once."""
        async with asyncio.timeout(timeout):
            while True:
                assert self.proc.poll() is None, f"the front exited with {self.proc.returncode}"
                health = await self.health(http)
                if ready(health):
                    return health
                await asyncio.sleep(0.1)

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


@pytest.fixture
async def hub(tmp_path: Path) -> AsyncIterator[tuple[Sharded, httpx.AsyncClient]]:
    sharded = Sharded(tmp_path)
    try:
        async with httpx.AsyncClient(base_url=sharded.url, timeout=60) as http:
            await sharded.wait(http, lambda h: h["ok"])
            yield sharded, http
    finally:
        sharded.stop()


async def ask(ws: ClientConnection, message: dict[str, Any]) -> dict[str, Any]:
    await ws.send(json.dumps(message))
    while True:
        reply: dict[str, Any] = json.loads(await ws.recv())
        if reply.get("type") != "event":
            assert reply.get("id") == message.get("id")
            return reply


def shard_of(reply: httpx.Response) -> int:
    return int(reply.headers["x-hub-shard"])


def sid_on(table: Table, shard: int, prefix: str) -> str:
    """A session id the front places on ``shard``."""
    return next(f"{prefix}-{i}" for i in range(1000) if table.place(f"{prefix}-{i}") == shard)


def table_of(n: int) -> Table:
    from hub.shard_workers import Shard

    return Table([Shard(i) for i in range(n)])


# Units ------------------------------------------------------------------------------------------


def test_workers_flag_reads_a_count_or_auto() -> None:
    assert workers_from("3") == 3 and workers_from("auto") >= 1
    for bad in ("0", "-1", "many"):
        with pytest.raises(ValueError, match="--workers"):
            workers_from(bad)


def test_the_table_places_a_named_session_by_its_id_and_loses_it_with_its_shard() -> None:
    table = table_of(2)
    ids = [f"s{i}" for i in range(40)]
    assert {table.session(s) for s in ids} == {0, 1}
    assert [table.session(s) for s in ids] == [table.place(s) for s in ids]  # stable
    lost = sid_on(table, 1, "x")
    kept = sid_on(table, 0, "x")
    table.session(lost), table.session(kept)
    table.shards[1].generation += 1  # shard 1 died and was restarted
    assert table.session(kept) == 0
    with pytest.raises(Exception, match="died and was restarted"):
        table.session(lost)


def test_metrics_are_summed_sample_by_sample_and_means_averaged() -> None:
    a = '# TYPE c counter\nc{server="banking"} 2\nm_mean 0.5\n'
    b = '# TYPE c counter\nc{server="banking"} 3\nc{server="email"} 1\nm_mean 1\n'
    assert sum_metrics([a, b]) == '# TYPE c counter\nc{server="banking"} 5\nm_mean 0.75\nc{server="email"} 1\n'


# A live sharded hub -----------------------------------------------------------------------------


@pytest.mark.slow
async def test_sessions_forks_snapshots_and_groups_stay_on_their_shard(hub: tuple[Sharded, httpx.AsyncClient]) -> None:
    sharded, http = hub
    table = table_of(2)
    placed = {}
    for shard in (0, 1):
        sid = sid_on(table, shard, "user")
        reply = await http.post("/api/sessions", json={"id": sid})
        assert reply.status_code == 201 and shard_of(reply) == shard
        placed[shard] = sid
    sid = placed[1]
    wrote = await http.post(
        f"/api/sessions/{sid}/call/banking/deposit_funds", json={"account_id": "ACC-0001", "amount": 50.0}
    )
    assert wrote.status_code == 200 and shard_of(wrote) == 1
    fork = await http.post(f"/api/sessions/{sid}/fork", json={"id": "child-of-user"})
    assert fork.status_code == 201 and shard_of(fork) == 1
    child = fork.json()["id"]
    mine = (await http.get(f"/api/sessions/{sid}/state/banking")).json()
    theirs = (await http.get(f"/api/sessions/{child}/state/banking")).json()
    assert mine == theirs  # the fork holds the parent's write: it lives beside it
    snap = await http.post(f"/api/sessions/{sid}/snapshot")
    assert snap.status_code == 201 and shard_of(snap) == 1
    from_snap = await http.post("/api/sessions", json={"snapshot": snap.json()["id"]})
    assert from_snap.status_code == 201 and shard_of(from_snap) == 1
    page = await http.get(f"/ui/sessions/{sid}")
    assert page.status_code == 200 and shard_of(page) == 1
    await the_dashboard_shows_both_shards(http, placed)

    async with connect(f"ws://127.0.0.1:{sharded.port}/ws") as ws:
        assert (await ask(ws, {"type": "hello", "id": 1}))["type"] == "welcome"
        groups = [await ask(ws, {"type": "open", "task": "bank-transfer-002", "n": 3, "id": 10 + i}) for i in range(2)]
        shards_of_groups = []
        for group in groups:
            assert group["type"] == "opened"
            where = {shard_of(await http.get(f"/api/sessions/{e['session']}")) for e in group["episodes"]}
            assert len(where) == 1  # a GRPO group on one shard
            shards_of_groups.append(where.pop())
        assert sorted(shards_of_groups) == [0, 1]  # and the groups spread
        episodes = [e["episode"] for g in groups for e in g["episodes"]]
        for n, eid in enumerate(episodes):
            obs = await ask(ws, {"type": "step", "episode": eid, "text": TRANSFER, "id": 100 + n})
            assert obs["type"] == "observation", obs
        reward = await ask(ws, {"type": "finish", "episode": episodes[0], "id": 200})
        assert reward["type"] == "reward" and reward["episode"] == episodes[0]
        closed = await ask(ws, {"type": "close", "episodes": [*episodes[1:], "no-such-episode"], "id": 201})
        assert sorted(closed["episodes"]) == sorted(episodes[1:]) and closed["unknown"] == ["no-such-episode"]
        assert (await ask(ws, {"type": "flush", "id": 202}))["type"] == "flushed"

    metrics = (await http.get("/metrics")).text
    calls = sum(
        float(line.rpartition(" ")[2])
        for line in metrics.splitlines()
        if line.startswith("prove_tool_calls_total{") and 'tool="transfer_funds"' in line
    )
    assert calls == 6  # three on each shard, summed by the front


@pytest.mark.slow
async def test_a_killed_shard_is_restarted_and_what_lived_there_is_lost(hub: tuple[Sharded, httpx.AsyncClient]) -> None:
    sharded, http = hub
    table = table_of(2)
    doomed, spared = sid_on(table, 1, "doomed"), sid_on(table, 0, "spared")
    for sid in (doomed, spared):
        assert (await http.post("/api/sessions", json={"id": sid})).status_code == 201
    async with connect(f"ws://127.0.0.1:{sharded.port}/ws") as ws:
        await ask(ws, {"type": "hello", "id": 1})
        groups = [await ask(ws, {"type": "open", "task": "bank-transfer-002", "n": 2, "id": 2 + i}) for i in range(2)]
        where = [shard_of(await http.get(f"/api/sessions/{g['episodes'][0]['session']}")) for g in groups]
        lost_group, kept_group = (groups[0], groups[1]) if where[0] == 1 else (groups[1], groups[0])
        await ask(ws, {"type": "flush", "id": 5})

        health = await sharded.health(http)
        victim = health["shards"][1]["pid"]
        os.kill(victim, signal.SIGKILL)
        health = await sharded.wait(http, lambda h: h["ok"] and h["shards"][1]["generation"] == 1)
        assert health["shards"][1]["pid"] != victim and health["shards"][1]["restarts"] == 1

        gone = await http.get(f"/api/sessions/{doomed}")
        assert gone.status_code == 410 and gone.json()["code"] == "session_lost"
        assert (await http.get(f"/api/sessions/{spared}")).status_code == 200
        lost_ep, kept_ep = lost_group["episodes"][0]["episode"], kept_group["episodes"][0]["episode"]
        step = await ask(ws, {"type": "step", "episode": lost_ep, "text": TRANSFER, "id": 6})
        assert step["type"] == "error" and step["code"] == "session_lost"
        step = await ask(ws, {"type": "step", "episode": kept_ep, "text": TRANSFER, "id": 7})
        assert step["type"] == "observation"
        assert (await ask(ws, {"type": "finish", "episode": kept_ep, "id": 8}))["type"] == "reward"
        again = await ask(ws, {"type": "open", "task": "bank-transfer-002", "n": 1, "id": 9})
        again2 = await ask(ws, {"type": "open", "task": "bank-transfer-002", "n": 1, "id": 10})
        assert again["type"] == again2["type"] == "opened"  # both shards take new episodes
        await ask(ws, {"type": "flush", "id": 11})
    fresh = sid_on(table, 1, "fresh")
    reopened = await http.post("/api/sessions", json={"id": fresh})
    assert reopened.status_code == 201 and shard_of(reopened) == 1

    statuses = await episode_statuses(sharded.store)
    assert {statuses[e["episode"]] for e in lost_group["episodes"]} == {("interrupted", "shard_lost", 1)}
    assert statuses[kept_ep] == ("finished", "finished", 0)
    assert statuses[kept_group["episodes"][1]["episode"]][0] == "open"  # its shard lives: it is still open


async def the_dashboard_shows_both_shards(http: httpx.AsyncClient, placed: dict[int, str]) -> None:
    """The sessions list (JSON and the page) and the live stream hold every shard's sessions, not shard 0's."""
    listed = {s["id"] for s in (await http.get("/api/sessions")).json()["sessions"]}
    assert set(placed.values()) <= listed
    page = (await http.get("/ui/sessions")).text
    assert all(f'data-session="{sid}"' in page for sid in placed.values())
    assert f"{page.count('<tr data-session=')} open sessions" in page  # the count is the sum of the shards'
    async with asyncio.timeout(60), http.stream("GET", "/ui/sse/overview") as stream:
        seen: list[str] = []
        lines = stream.aiter_lines()
        async for line in lines:
            seen += [line] if line.startswith("event:") else []
            if seen.count("event: stats") == 2:  # each shard's first figures
                break
        body = {"arguments": {"account_id": "ACC-0002", "amount": 5.0}}
        assert (await http.post(f"/api/sessions/{placed[1]}/call/banking/deposit_funds", json=body)).json()["ok"]
        async for line in lines:
            if "deposit_funds" in line:  # a call on shard 1 reaches the merged stream
                break


async def episode_statuses(path: Path) -> dict[str, tuple[str, str | None, int | None]]:
    store = Store(str(path), shard=99)  # a reader that must end no one's episodes
    await store.start()
    try:
        rows = await store.query("SELECT id, status, reason, shard FROM episodes")
    finally:
        await store.stop()
    return {r["id"]: (r["status"], r["reason"], r["shard"]) for r in rows}


@pytest.mark.slow
async def test_workers_exit_when_the_front_is_killed(tmp_path: Path) -> None:
    sharded = Sharded(tmp_path)
    try:
        async with httpx.AsyncClient(base_url=sharded.url, timeout=60) as http:
            health = await sharded.wait(http, lambda h: h["ok"])
        workers = [os.pidfd_open(s["pid"]) for s in health["shards"]]
        sharded.proc.send_signal(signal.SIGKILL)  # no chance to stop its workers itself
        sharded.proc.wait(timeout=30)
        # a pidfd reads ready once its process ended; the workers are not this test's children, so it cannot wait()
        for pidfd in workers:
            ready, _, _ = await asyncio.to_thread(select.select, [pidfd], [], [], 60)
            assert ready, "a worker outlived its front by a minute"
            os.close(pidfd)
    finally:
        sharded.stop()
