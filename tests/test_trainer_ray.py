"""``prove-train --ray-address``: the trainer runs as a job on an existing Ray cluster (a real local
``ray start --head`` on loopback), and the rollout actor, which has none of the launcher's environment,
sees the run's settings."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_asyncio

from hub.testing import LiveHub, free_port, serve
from tests.trainer_support import make_app

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
async def ray_head(tmp: str, join: str | None = None) -> AsyncIterator[RayCluster]:
    """``ray start --head --block`` (or, with ``join``, a second node of that cluster) on loopback with ports
    of its own, in its own process group, so that stopping it ends exactly the processes it started
    (``ray stop`` would stop every Ray on the machine)."""
    names = NODE_PORTS if join else ("port", "dashboard-port", "ray-client-server-port", *NODE_PORTS)
    ports = {name: free_port() for name in names}
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PROVE_", "RAY_"))}
    role = (
        ["--address", join]
        if join
        else ["--head", "--dashboard-host", "127.0.0.1", "--include-dashboard", "true", "--temp-dir", tmp]
    )
    cmd = [
        str(RAY),
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


FAKE_TRAINER = """#!{python}
# Stands in for openrlhf.cli.train_ppo_ray (vLLM does not import on a CPU): it initialises Ray as
# train_ppo_ray does and loads the agent file in a Ray actor the way vllm_engine._load_agent_executor does.
import importlib.util, json, os, sys
import ray

argv = sys.argv
assert argv[1:3] == ["-m", "openrlhf.cli.train_ppo_ray"], argv
agent = argv[argv.index("--train.agent_func_path") + 1]
prompts = argv[argv.index("--data.prompt_dataset") + 1]
ray.init(runtime_env={{"env_vars": {{"TOKENIZERS_PARALLELISM": "true", "NCCL_DEBUG": "WARN"}}}})


@ray.remote(num_cpus=0)
class RolloutRayActor:
    def __init__(self, agent_func_path):
        spec = importlib.util.spec_from_file_location("agent_module", agent_func_path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        self.executor = module.AgentExecutor()

    def seen(self):
        return {{"config": self.executor.config.to_json(), "pid": os.getpid(), "cwd": os.getcwd(),
                "env": {{k: v for k, v in os.environ.items() if k.startswith("PROVE_") and "TOKEN" not in k}}}}

    def steps(self, k):
        import asyncio

        async def draw():
            return [await self.executor._next_step() for _ in range(k)]

        return asyncio.run(draw())


actor, other = RolloutRayActor.remote(agent), RolloutRayActor.remote(agent)
seen = ray.get(actor.seen.remote(), timeout=240)
# two engines count prompts together (a named actor of the job): steps of 3 rollout batches of 2 prompts
seen["steps"] = sorted(sum(ray.get([actor.steps.remote(3), other.steps.remote(3)], timeout=120), []))
seen["prompts"] = sum(1 for _ in open(prompts))
seen["driver_pid"] = os.getpid()
print("ROLLOUT_SAW " + json.dumps(seen), flush=True)
"""


async def test_settings_reach_the_rollout_actor_on_an_existing_cluster(live: LiveHub, tmp_path: Path) -> None:
    ray_available()
    fake = tmp_path / "python"
    fake.write_text(FAKE_TRAINER.format(python=sys.executable))
    fake.chmod(0o755)
    with tempfile.TemporaryDirectory(prefix="rt", dir="/tmp") as short:
        async with ray_head(short) as cluster:
            # the launcher's own environment says otherwise: none of it may reach the rollout actor
            env = {
                **{k: v for k, v in os.environ.items() if not k.startswith(("PROVE_", "RAY_"))},
                "PROVE_HUB_URLS": "ws://127.0.0.1:1/ws",
                "PROVE_GROUP_SIZE": "99",
                "PYTHONPATH": str(ROOT),
            }
            proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "trainer_client.launcher",
                "--hub",
                live.url,
                "--model",
                "Qwen/Qwen3-4B",
                "--python",
                str(fake),
                "--output",
                str(tmp_path / "run"),
                "--group-size",
                "4",
                "--batch-size",
                "2",
                "--steps",
                "3",
                "--max-steps",
                "6",
                "--max-new-tokens",
                "256",
                "--split",
                "all",
                "--poll",
                "0.5",
                "--name",
                "ray-job",
                "--ray-address",
                cluster.address,
                "--ray-dashboard",
                cluster.dashboard,
                cwd=tmp_path,
                env=env,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )
            out, err = await asyncio.wait_for(proc.communicate(), 300)
    assert proc.returncode == 0, err.decode()[-3000:] + out.decode()[-3000:]
    line = next(x for x in out.decode().splitlines() if x.startswith("ROLLOUT_SAW "))
    seen = json.loads(line[len("ROLLOUT_SAW ") :])
    config = seen["config"]
    assert config["hub_urls"] == [f"ws://127.0.0.1:{live.port}/ws"]
    assert config["group_size"] == 4 and config["max_steps"] == 6 and config["max_new_tokens"] == 256
    assert seen["prompts"] == 6  # 3 steps x 2 prompts, from the job's working directory
    assert seen["pid"] != seen["driver_pid"]  # a separate worker process, started by the cluster
    assert seen["env"]["PROVE_GROUP_SIZE"] == "4"  # runtime_env reached the worker too
    assert config["batch_size"] == 2 and seen["steps"] == [1, 1, 2, 2, 3, 3]
    store = live.app.state.hub.store
    await store.flush()
    runs = await store.query("SELECT id, status FROM training_runs WHERE name = 'ray-job'")
    assert len(runs) == 1 and runs[0]["status"] == "finished" and config["run"] == runs[0]["id"]


async def test_ray_hubs_join_the_cluster_and_refuse_multi_node_without_a_token(tmp_path: Path) -> None:
    ray_available()
    import ray

    from trainer_client.ray_hubs import start_hubs

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
