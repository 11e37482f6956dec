"""Several hubs: groups sharded across them; a hub killed mid-run fails only its episodes, reported,
and the run goes on. Ray hub actors when Ray is installed."""

from __future__ import annotations

import asyncio
import gc
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from hub.net import Loopback
from hub.tasks import hermes_call, oracle_script
from hub.testing import free_port, serve
from tests.trainer_support import ScriptedEngine, make_app, need_openrlhf, run_samples, serve_subprocess
from trainer_client.evaluate import OraclePolicy, evaluate
from trainer_client.hubs import HubSet, NoHubAvailable, http_url, ws_url


def test_urls() -> None:
    assert (
        ws_url("http://h:1") == "ws://h:1/ws"
        and ws_url("h:1") == "ws://h:1/ws"
        and ws_url("wss://h/ws") == "wss://h/ws"
    )
    assert http_url("ws://h:1/ws") == "http://h:1" and http_url("https://h") == "https://h"


class HubProcess(Loopback):
    """``prove-hub serve`` in a subprocess; ready once uvicorn says it is running (no polling)."""

    def __init__(self, proc: asyncio.subprocess.Process, port: int) -> None:
        super().__init__(port)
        self.proc = proc

    @classmethod
    async def start(cls, tmp_path: Path) -> HubProcess:
        proc, port, _ = await serve_subprocess(tmp_path / "sub.db", os.environ, 60)
        return cls(proc, port)

    async def kill(self) -> None:
        if self.proc.returncode is None:
            self.proc.kill()
            await self.proc.wait()


async def hub_process(tmp_path: Path) -> AsyncIterator[HubProcess]:
    hub = await HubProcess.start(tmp_path)
    try:
        yield hub
    finally:
        await hub.kill()


class GatedEngine(ScriptedEngine):
    """Stops before its ``gate_at``-th generation until the test opens the gate."""

    def __init__(
        self, tokenizer: Any, script: list[str], reached: asyncio.Semaphore, gate: asyncio.Event, gate_at: int = 1
    ) -> None:
        super().__init__(tokenizer, script)
        self.reached, self.gate, self.gate_at = reached, gate, gate_at

    async def generate(self, prompt_token_ids: list[int], sampling_params: Any, multi_modal_data: Any = None) -> Any:
        if len(self.prompts) == self.gate_at:
            self.reached.release()
            await self.gate.wait()
        return await super().generate(prompt_token_ids, sampling_params, multi_modal_data)


async def test_killed_hub_fails_only_its_groups(tmp_path: Path) -> None:
    need_openrlhf()
    from trainer_client.openrlhf_agent import AgentConfig, AgentExecutor
    from trainer_client.tiny import byte_tokenizer

    tokenizer = byte_tokenizer()
    gen = hub_process(tmp_path)
    doomed = await gen.__anext__()
    try:
        async with serve(make_app(tmp_path)) as survivor:
            hubs = HubSet([survivor.url, doomed.url], retry_after=3600)
            executor = AgentExecutor(AgentConfig(group_size=2), hubs=hubs)
            tasks = survivor.app.state.hub.tasks
            reached, gate = asyncio.Semaphore(0), asyncio.Event()
            labels = ["bank-transfer-002", "bank-lock-card-003"]
            engines = {
                lb: [GatedEngine(tokenizer, oracle_script(tasks.get(lb)), reached, gate) for _ in range(2)]
                for lb in labels
            }
            runs = [asyncio.ensure_future(run_samples(executor, lb, engines[lb], tokenizer)) for lb in labels]
            for _ in range(4):  # every sample has made its first step and waits at its second generation
                await asyncio.wait_for(reached.acquire(), 30)
            await doomed.kill()
            gate.set()
            results = dict(zip(labels, await asyncio.wait_for(asyncio.gather(*runs), 60)))
            failed = [lb for lb, outs in results.items() if all(o["extra_logs"]["hub_failed"] == 1.0 for o in outs)]
            ok = [lb for lb, outs in results.items() if all(o["reward"] == pytest.approx(1.3) for o in outs)]
            assert len(failed) == 1 and len(ok) == 1  # one group per hub; only the dead hub's group failed
            assert all(o["reward"] == 0.0 for o in results[failed[0]])
            report = {h["url"]: h for h in hubs.report()}
            assert report[ws_url(doomed.url)]["alive"] is False and report[ws_url(survivor.url)]["alive"] is True
            # the run goes on: the next groups open on the surviving hub
            again = await run_samples(
                executor,
                "bank-transfer-002",
                [ScriptedEngine(tokenizer, oracle_script(tasks.get("bank-transfer-002"))) for _ in range(2)],
                tokenizer,
            )
            assert [o["reward"] for o in again] == [pytest.approx(1.3)] * 2
            # evaluation with the dead hub still listed: every task runs on the survivor
            async with HubSet([doomed.url, survivor.url]) as hubs2:
                report2 = await evaluate(hubs2, OraclePolicy(), split="all")
            assert report2["overall"]["failed"] == 0 and report2["overall"]["success_rate"] == 1.0
            await executor.aclose()
    finally:
        await gen.aclose()


async def test_all_hubs_down_is_a_clear_error(tmp_path: Path) -> None:
    async with HubSet([f"http://127.0.0.1:{free_port()}"]) as hubs:
        with pytest.raises(NoHubAvailable, match="no hub could open"):
            await hubs.open_group("bank-transfer-002", 2)


async def evaluate_oracle(urls: list[str], token: str | None = None, **options: Any) -> dict[str, Any]:
    async with HubSet(urls, token) as hubs:
        return await evaluate(hubs, OraclePolicy(), split="all", **options)


# Ray 2.55's own leaks, not ours: it opens os.devnull for the output of the processes it starts and never
# closes it (ray/_private/services.py: start_log_monitor, start_api_server, start_gcs_server, start_raylet,
# start_monitor); and ray.shutdown() kills a process that has not exited a second after SIGTERM without
# waiting for it (Node._kill_process_impl), which a loaded machine makes likely.
@pytest.mark.filterwarnings("ignore:unclosed file <_io.TextIOWrapper name='/dev/null':ResourceWarning")
@pytest.mark.filterwarnings(r"ignore:subprocess \d+ is still running:ResourceWarning")
def test_ray_hub_actors(tmp_path: Path) -> None:
    ray = pytest.importorskip("ray", reason="Ray is not installed here (trainer extras, GPU machines)")
    import asyncio as aio

    from hub.ray_hosting import start_hubs

    ray.init(num_cpus=2, include_dashboard=False, ignore_reinit_error=True)
    fleet = start_hubs(2, spread=False, store_dir=str(tmp_path))
    try:
        assert len(set(fleet.urls)) == 2
        report = aio.run(evaluate_oracle(fleet.urls))
        assert report["overall"]["success_rate"] == 1.0
        assert {e["hub"] for e in report["episodes"]} == set(fleet.urls)  # sharded over both
        fleet.shutdown()
        # with a token the hub binds the node's address, so the other nodes can reach it
        fleet = start_hubs(1, token="s3cret", spread=False, store_dir=str(tmp_path))
        node_ip = ray.util.get_node_ip_address()
        assert fleet.urls == [f"ws://{node_ip}:{fleet.urls[0].rsplit(':', 1)[1]}"]
        report = aio.run(evaluate_oracle(fleet.urls, "s3cret", limit=2))
        assert report["overall"]["success_rate"] == 1.0
    finally:
        fleet.shutdown()
        ray.shutdown()
        gc.collect()  # Ray's dropped objects go now, under the filters above, not in whichever test runs next


async def test_group_that_loses_its_hub_is_all_or_nothing(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A sample that finished before its hub died gets the same reward as the ones the hub took down:
    group normalisation then gives the whole group zero advantage instead of punishing the lost ones."""
    need_openrlhf()
    from trainer_client.hub_client import HubClient
    from trainer_client.openrlhf_agent import AgentConfig, AgentExecutor
    from trainer_client.tiny import byte_tokenizer

    tokenizer = byte_tokenizer()
    gen = hub_process(tmp_path)
    doomed = await gen.__anext__()
    try:
        async with HubClient(ws_url(doomed.url)) as watcher:
            await watcher.subscribe(kinds=["reward"])
            hubs = HubSet([doomed.url], retry_after=3600, open_retries=0)
            executor = AgentExecutor(AgentConfig(group_size=2, failed_reward=-0.25), hubs=hubs)
            reached, gate = asyncio.Semaphore(0), asyncio.Event()
            quick = ScriptedEngine(tokenizer, ["Your balance is 1,000."])  # answers at once: scored, reward in
            call = hermes_call("banking__get_account", {"account_id": "ACC-0005"})
            slow = GatedEngine(tokenizer, [call, "Done."], reached, gate)  # waits before its second turn
            run = asyncio.ensure_future(run_samples(executor, "bank-balance-001", [quick, slow], tokenizer))
            await asyncio.wait_for(reached.acquire(), 30)
            scored = await asyncio.wait_for(watcher.events.get(), 30)  # the quick sample's reward
            assert scored["event"]["type"] == "reward", scored
            await doomed.kill()
            gate.set()
            with caplog.at_level("WARNING", logger="trainer_client.openrlhf_agent"):
                out = await asyncio.wait_for(run, 60)
            assert [o["reward"] for o in out] == [-0.25, -0.25]
            assert all(o["extra_logs"]["group_lost"] == 1.0 for o in out)
            assert executor.groups_lost == 1
            assert "1 of 1 groups lost so far" in caplog.text
            await executor.aclose()
    finally:
        await gen.aclose()
