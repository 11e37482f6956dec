"""``prove-hub serve --ray ADDRESS``: shards as Ray actors on a real local Ray cluster of two nodes
(``ray.cluster_utils.Cluster``), behind the same front and protocol as worker processes: sessions are placed on
the actors, calls routed to them, and an actor killed under its sessions is replaced while they answer
``session_lost``. Waits poll the front's ``/healthz`` with a deadline (no fixed sleeps)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from hub.net import free_port
from hub.shard_workers import Shard, Table

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "s3cret"  # two nodes: a hub off loopback needs one (here both nodes share this machine's address)

# Ray's own leaks, not ours (as in tests/test_trainer_scale.py): the devnull files it opens for the processes it
# starts and never closes, and the processes ray.shutdown() kills without waiting for.
pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(600),
    pytest.mark.filterwarnings("ignore:unclosed file <_io.TextIOWrapper name='/dev/null':ResourceWarning"),
    pytest.mark.filterwarnings(r"ignore:subprocess \d+ is still running:ResourceWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
]


@pytest.fixture
def cluster() -> Iterator[str]:
    pytest.importorskip("ray", reason="Ray is not installed here (the .[train] extras)")
    from ray.cluster_utils import Cluster

    made = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    try:
        made.add_node(num_cpus=1)
        made.wait_for_nodes()
        yield made.address
    finally:
        made.shutdown()


def sid_on(shard: int, prefix: str) -> str:
    table = Table([Shard(0), Shard(1)])
    return next(f"{prefix}-{i}" for i in range(1000) if table.place(f"{prefix}-{i}") == shard)


async def healthy(http: httpx.AsyncClient, proc: subprocess.Popen[bytes], ready: Any) -> dict[str, Any]:
    async with asyncio.timeout(300):
        while True:
            assert proc.poll() is None, f"the front exited with {proc.returncode}"
            try:
                health: dict[str, Any] = (await http.get("/healthz")).json()
            except httpx.TransportError:
                health = {}
            if health and ready(health):
                return health
            await asyncio.sleep(0.2)


async def test_shards_run_as_actors_across_nodes_and_a_killed_actor_loses_its_sessions(
    cluster: str, tmp_path: Path
) -> None:
    port = free_port()
    cmd = [sys.executable, "-m", "hub.cli", "serve", "--ray", cluster, "--workers", "2", "--only", "banking"]
    cmd += ["--port", str(port), "--store", str(tmp_path / "store.db"), "--log-level", "warning"]
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("HUB_", "RAY_"))}, "HUB_TOKEN": TOKEN}
    with open(tmp_path / "front.log", "wb") as log:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    headers = {"authorization": f"Bearer {TOKEN}"}
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", headers=headers, timeout=60) as http:
            health = await healthy(http, proc, lambda h: h["ok"])
            assert health["ray"] and len({s["node"] for s in health["shards"]}) == 2  # one actor per node

            placed = {shard: sid_on(shard, "user") for shard in (0, 1)}
            for shard, sid in placed.items():
                body = {"arguments": {"account_id": "ACC-0001"}}
                reply = await http.post(f"/api/sessions/{sid}/call/banking/get_account", json=body)
                assert reply.status_code == 200 and reply.json()["ok"]
                assert reply.headers["x-hub-shard"] == str(shard)

            victim = health["shards"][1]["pid"]
            os.kill(victim, signal.SIGKILL)  # the actor's process dies under its sessions
            health = await healthy(http, proc, lambda h: h["ok"] and h["shards"][1]["generation"] == 1)
            assert health["shards"][1]["pid"] != victim

            gone = await http.get(f"/api/sessions/{placed[1]}")
            assert gone.status_code == 410 and gone.json()["code"] == "session_lost"
            assert (await http.get(f"/api/sessions/{placed[0]}")).status_code == 200
            fresh = await http.post("/api/sessions", json={"id": sid_on(1, "fresh")})
            assert fresh.status_code == 201 and fresh.headers["x-hub-shard"] == "1"  # the new actor takes it
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    # uvicorn stops gracefully, then raises the SIGTERM it caught again under the handler it found (Ray's: exit 15)
    assert proc.returncode in (0, signal.SIGTERM, -signal.SIGTERM), (tmp_path / "front.log").read_text()[-3000:]
