"""``prove-train --ray-address``: the trainer runs as a job on an existing Ray cluster (a real local
``ray start --head`` on loopback), and the rollout actor, which has none of the launcher's environment,
sees the run's settings."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import shutil
import signal
import sys
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_asyncio

from hub.testing import LiveHub, free_port, serve
from tests.trainer_support import make_app, ray_only_venv

ROOT = Path(__file__).resolve().parent.parent
RAY = Path(sys.executable).with_name("ray")

pytestmark = pytest.mark.timeout(420)


@dataclass
class RayCluster:
    address: str
    dashboard: str


def ray_available() -> None:
    pytest.importorskip("ray", reason="Ray is not installed here (trainer extras)")
    pytest.importorskip("ray.dashboard.modules.job.sdk", reason="Ray's job server needs ray[default]")
    pytest.importorskip("aiohttp_cors", reason="Ray's job server needs ray[default]")
    if not RAY.exists():
        pytest.skip("the ray command is not installed next to this Python")


NODE_PORTS = (
    "node-manager-port",
    "object-manager-port",
    "metrics-export-port",
    "dashboard-agent-listen-port",
    "dashboard-agent-grpc-port",
    "runtime-env-agent-port",
)


@contextlib.asynccontextmanager
async def ray_head(tmp: str, join: str | None = None, bin_dir: Path | None = None) -> AsyncIterator[RayCluster]:
    """``ray start --head --block`` (or, with ``join``, a second node of that cluster) on loopback with ports
    of its own, in its own process group, so that stopping it ends exactly the processes it started
    (``ray stop`` would stop every Ray on the machine). With ``bin_dir``, the cluster runs that environment's
    Python (its ``python`` first on the PATH of every process it starts)."""
    names = NODE_PORTS if join else ("port", "dashboard-port", "ray-client-server-port", *NODE_PORTS)
    ports = {name: free_port() for name in names}
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PROVE_", "RAY_", "PYTHON", "VIRTUAL_ENV"))}
    if bin_dir is not None:
        env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    role = (
        ["--address", join]
        if join
        else ["--head", "--dashboard-host", "127.0.0.1", "--include-dashboard", "true", "--temp-dir", tmp]
    )
    cmd = [
        str(bin_dir / "ray" if bin_dir else RAY),
        "start",
        *role,
        "--block",
        "--node-ip-address",
        "127.0.0.1",
        "--num-cpus",
        "2" if join else "4",
        "--num-gpus",
        "0",
        "--disable-usage-stats",
        *[a for name, port in ports.items() for a in (f"--{name}", str(port))],
    ]
    proc = await asyncio.create_subprocess_exec(
        *cmd, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT, env=env, start_new_session=True
    )
    cluster = RayCluster(join or f"127.0.0.1:{ports['port']}", f"http://127.0.0.1:{ports.get('dashboard-port', 0)}")
    try:
        assert proc.stdout is not None
        seen = b""
        while b"block forever" not in seen:  # ray start prints this once every process is up
            line = await asyncio.wait_for(proc.stdout.readline(), 120)
            assert line, "ray start exited: " + seen.decode()[-2000:]
            seen += line
        drain = asyncio.ensure_future(proc.stdout.read())
        if not join:
            await asyncio.wait_for(job_server(cluster.dashboard), 60)
        yield cluster
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            await asyncio.wait_for(proc.wait(), 30)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            await asyncio.wait_for(proc.wait(), 30)
        with contextlib.suppress(ProcessLookupError):  # what the head started, in its process group
            os.killpg(proc.pid, signal.SIGKILL)
        if "drain" in locals():
            drain.cancel()


async def job_server(dashboard: str) -> None:
    """The job server answers (its client probes the version endpoint when built)."""
    from ray.job_submission import JobSubmissionClient

    while True:
        try:
            await asyncio.to_thread(JobSubmissionClient, dashboard)
            return
        except ConnectionError:
            await asyncio.sleep(0.5)  # the head's HTTP server is still binding; there is no event to wait on


@pytest_asyncio.fixture
async def live(tmp_path: Path) -> AsyncIterator[LiveHub]:
    async with serve(make_app(tmp_path)) as hub:
        yield hub


STAND_IN = ROOT / "tests" / "ray_job" / "openrlhf"


async def test_a_job_carries_its_code_to_a_cluster_whose_python_has_only_ray(tmp_path: Path) -> None:
    """``prove-train --ray-address`` on a real cluster whose Python is a second environment holding Ray alone, the
    launcher's checkout moved away right after submission: the job runs the cluster's ``python``, its workers
    import ``trainer_client`` and the wire from the job's ``py_modules``, the hub URL and token reach them through
    the runtime environment (and never the job's log), and the metrics reach the hub's run from inside the job.
    OpenRLHF itself (vLLM needs a GPU) is the stand-in in tests/ray_job, shipped with ``--ray-py-module``."""
    ray_available()
    import websockets

    token = "s3cret-" + os.urandom(4).hex()
    bin_dir = ray_only_venv(tmp_path / "cluster-env")
    checkout = tmp_path / "checkout"
    for package in ("trainer_client", "hub"):
        shutil.copytree(ROOT / package, checkout / package, ignore=shutil.ignore_patterns("__pycache__"))
    async with serve(make_app(tmp_path, token=token)) as live:
        with tempfile.TemporaryDirectory(prefix="rt", dir="/tmp") as short:
            async with ray_head(short, bin_dir=bin_dir) as cluster:
                env = {
                    **{k: v for k, v in os.environ.items() if not k.startswith(("PROVE_", "RAY_"))},
                    "PROVE_HUB_URLS": "ws://127.0.0.1:1/ws",  # the launcher's own environment must not matter
                    "PROVE_GROUP_SIZE": "99",
                    "PYTHONPATH": str(checkout),
                }
                proc = await asyncio.create_subprocess_exec(
                    sys.executable,
                    "-m",
                    "trainer_client.launcher",
                    *("--hub", live.url, "--token", token, "--model", "Qwen/Qwen3-4B"),
                    *("--output", str(tmp_path / "shared" / "run"), "--job-dir", str(tmp_path / "job")),
                    *("--group-size", "2", "--batch-size", "2", "--steps", "3", "--max-steps", "6"),
                    *("--split", "all", "--gpus", "1", "--tp", "1", "--poll", "0.5", "--name", "ray-job"),
                    *("--ray-address", cluster.address, "--ray-dashboard", cluster.dashboard, "--ray-pip", "none"),
                    *("--ray-py-module", str(STAND_IN), "--ray-py-module", str(Path(websockets.__file__).parent)),
                    cwd=tmp_path,
                    env=env,
                    stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.PIPE,
                )
                assert proc.stderr is not None and proc.stdout is not None
                said = b""
                while b"submitted Ray job" not in said:
                    line = await asyncio.wait_for(proc.stderr.readline(), 120)
                    assert line, said.decode() + (await proc.stdout.read()).decode()[-3000:]
                    said += line
                checkout.rename(tmp_path / "checkout-moved")  # the job must not need the launcher's files
                out, err = await asyncio.wait_for(proc.communicate(), 300)
                job_id = said.decode().split("submitted Ray job ", 1)[1].split()[0]
                from ray.job_submission import JobSubmissionClient

                job_log = await asyncio.to_thread(JobSubmissionClient(cluster.dashboard).get_job_logs, job_id)
            print(job_log)
            assert proc.returncode == 0, (said + err).decode()[-3000:] + out.decode()[-3000:]
            line = next(x for x in job_log.splitlines() if x.startswith("ROLLOUT_SAW "))
            seen = json.loads(line[len("ROLLOUT_SAW ") :])
            config = seen["config"]
            assert seen["python"].startswith(str(tmp_path / "cluster-env"))  # the cluster's python ran the job
            urls = f"ws://127.0.0.1:{live.port}/ws".encode()
            assert seen["hub_urls_sha256"] == hashlib.sha256(urls).hexdigest() and seen["has_token"]
            assert config["group_size"] == 2 and config["max_steps"] == 6 and config["batch_size"] == 2
            assert seen["opened"] in {t.id for t in live.app.state.hub.tasks}  # a real group, opened with the token
            assert seen["prompts"] == 6 and seen["pid"] != seen["driver_pid"] and seen["patched_logger"]
            assert "PROVE_HUB_TOKEN" in seen["env"]
            assert token not in job_log and f":{live.port}" not in job_log  # neither the token nor the hub's address
            store = live.app.state.hub.store
            await store.flush()
            [run] = await store.query("SELECT id, status FROM training_runs WHERE name = 'ray-job'")
            assert run["status"] == "finished" and config["run"] == run["id"]
            metrics = await store.query(
                "SELECT step, name FROM run_metrics WHERE run_id = ? ORDER BY step, name", (run["id"],)
            )
            assert [(m["step"], m["name"]) for m in metrics] == [
                (1, "train/policy_loss"),
                (1, "train/reward"),
                (2, "train/policy_loss"),
                (2, "train/reward"),
            ]
            [group] = await store.query("SELECT COUNT(*) AS n, MIN(run_id) AS run FROM episodes")
            assert group["n"] == 2 and group["run"] == run["id"]


async def test_ray_hubs_join_the_cluster_and_refuse_multi_node_without_a_token(tmp_path: Path) -> None:
    ray_available()
    import ray

    from hub.ray_hosting import start_hubs

    with tempfile.TemporaryDirectory(prefix="rt", dir="/tmp") as short:
        async with ray_head(short) as cluster:
            ray.init(address=cluster.address)
            try:
                fleet = start_hubs(1, spread=False, store_dir=str(tmp_path), address=cluster.address)
                assert fleet.urls[0].startswith("ws://127.0.0.1:")  # no token: loopback, the only node
                fleet.shutdown()
                async with ray_head(short, join=cluster.address):
                    with pytest.raises(ValueError, match="2 nodes.*token"):
                        start_hubs(1, store_dir=str(tmp_path), address=cluster.address)
                    fleet = start_hubs(2, token="s3cret", store_dir=str(tmp_path), address=cluster.address)
                    try:
                        # with a token each hub binds its node's address (here both nodes are 127.0.0.1)
                        node_ips = {n["NodeManagerAddress"] for n in ray.nodes() if n["Alive"]}
                        assert {u.split("//")[1].rsplit(":", 1)[0] for u in fleet.urls} <= node_ips
                    finally:
                        fleet.shutdown()
            finally:
                ray.shutdown()


ONE_CLUSTER_TRAINER = """#!{python}
# Stands in for train_ppo_ray: its ray.init() must join the cluster the launcher's Ray hubs run on.
import json, os, sys
import httpx, ray

ray.init()
agent = sys.argv[sys.argv.index("--train.agent_func_path") + 1]
config = json.load(open(os.path.join(os.path.dirname(agent), "prove-agent.json")))
url = config["hub_urls"][0].replace("ws://", "http://").removesuffix("/ws")
health = httpx.get(url + "/healthz", headers={{"Authorization": "Bearer s3cret"}}).status_code
seen = {{"joined": ray.get_runtime_context().gcs_address, "env": os.environ.get("RAY_ADDRESS"), "hub": health}}
print("ONE_CLUSTER " + json.dumps(seen), flush=True)
"""


async def test_ray_hubs_and_the_trainer_share_one_cluster(tmp_path: Path) -> None:
    ray_available()
    fake = tmp_path / "python"
    fake.write_text(ONE_CLUSTER_TRAINER.format(python=sys.executable))
    fake.chmod(0o755)
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("PROVE_", "RAY_"))}, "PYTHONPATH": str(ROOT)}
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "trainer_client.launcher",
        "--ray-hubs",
        "1",
        "--token",
        "s3cret",
        "--model",
        "m",
        "--python",
        str(fake),
        "--output",
        str(tmp_path / "run"),
        "--batch-size",
        "2",
        "--steps",
        "1",
        "--split",
        "all",
        "--poll",
        "0.5",
        cwd=tmp_path,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 300)
    assert proc.returncode == 0, err.decode()[-3000:] + out.decode()[-2000:]
    line = next(x for x in out.decode().splitlines() if x.startswith("ONE_CLUSTER "))
    seen = json.loads(line[len("ONE_CLUSTER ") :])
    assert seen["env"] and seen["joined"] == seen["env"] and seen["hub"] == 200
