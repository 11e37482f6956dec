"""``trainer_client.openrlhf_run``: the job's additions to OpenRLHF's train_ppo_ray (flash-attn stand-in, torch
AdamW without nvcc, metrics to the hubs from inside the run)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import types
from asyncio.subprocess import PIPE
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from hub.testing import LiveHub, serve
from tests.trainer_support import make_app
from trainer_client import openrlhf_run

ROOT = Path(__file__).resolve().parent.parent


@pytest_asyncio.fixture
async def live(tmp_path: Path) -> AsyncIterator[LiveHub]:
    async with serve(make_app(tmp_path)) as hub:
        yield hub


def test_openrlhf_imports_without_flash_attn_and_the_stand_in_is_right() -> None:
    """OpenRLHF's ring_attn_utils (imported by every training actor) loads with the stand-in; unpad/pad round-trip
    as flash-attn's do; transformers does not take the stand-in for flash-attn."""
    pytest.importorskip("torch", reason="torch is not installed (scripts/install-trainer-deps)")
    pytest.importorskip("openrlhf", reason="openrlhf is not installed (scripts/install-trainer-deps)")
    code = """
import importlib.util, json, torch
assert importlib.util.find_spec("flash_attn") is None, "a real flash-attn is installed here"
from trainer_client.openrlhf_run import setup_worker
setup_worker()
import openrlhf
# the module itself (its package's __init__ imports peft, which the CPU test stack leaves out)
path = openrlhf.__path__[0] + "/models/ring_attn_utils.py"
spec = importlib.util.spec_from_file_location("ring_attn_utils", path)
ring = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ring)
from flash_attn.bert_padding import index_first_axis, pad_input, unpad_input
from transformers.utils import is_flash_attn_2_available
mask = torch.tensor([[1, 1, 0, 0], [1, 1, 1, 0]])
x = torch.arange(2 * 4 * 3, dtype=torch.float32).reshape(2, 4, 3).requires_grad_()
flat, idx, cu, longest, used = unpad_input(x, mask)
back = pad_input(flat, idx, 2, 4)
back.sum().backward()
print(json.dumps({
    "shape": list(flat.shape), "cu": cu.tolist(), "longest": longest, "used": used.tolist(),
    "roundtrip": bool(torch.equal(back, x * mask.unsqueeze(-1))), "grad": x.grad[:, :, 0].tolist(),
    "first": flat[:, 0].tolist(), "ring": ring.index_first_axis is index_first_axis,
    "fa2": is_flash_attn_2_available(),
}))
"""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["shape"] == [5, 3] and got["cu"] == [0, 2, 5] and got["longest"] == 3 and got["used"] == [2, 3]
    assert got["roundtrip"] and got["grad"] == [[1, 1, 0, 0], [1, 1, 1, 0]]
    assert got["first"] == [0.0, 3.0, 12.0, 15.0, 18.0] and got["ring"] and got["fa2"] is False


def test_deepspeed_takes_torch_adamw_unless_fused_adam_can_load(monkeypatch: pytest.MonkeyPatch) -> None:
    """DeepSpeed 0.19.6 builds ``torch.optim.AdamW`` for ``"torch_adam": true`` (engine.get_optimizer_configuration)
    and otherwise FusedAdam, a CUDA extension that needs nvcc."""

    def config(kind: str = "AdamW") -> dict[str, Any]:
        return {"optimizer": {"type": kind, "params": {"lr": 1e-6}}, "zero_optimization": {"stage": 3}}

    assert openrlhf_run.torch_adam_config(config(), buildable=False)["optimizer"]["params"]["torch_adam"] is True
    assert "torch_adam" not in openrlhf_run.torch_adam_config(config(), buildable=True)["optimizer"]["params"]
    assert "torch_adam" not in openrlhf_run.torch_adam_config(config("Muon"), buildable=False)["optimizer"]["params"]
    assert openrlhf_run.torch_adam_config({"zero_optimization": {}}, buildable=False) == {"zero_optimization": {}}
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("CUDA_HOME", raising=False)
    monkeypatch.delenv("CUDA_PATH", raising=False)
    monkeypatch.delenv("PROVE_TORCH_ADAM", raising=False)
    assert openrlhf_run.fused_adam_buildable() is False  # no nvcc, no DeepSpeed with prebuilt ops here
    monkeypatch.setenv("PROVE_TORCH_ADAM", "0")
    assert openrlhf_run.fused_adam_buildable() is True

    class DeepspeedStrategy:
        def get_ds_train_config(self, optim_dict: Any = None, *, max_norm: Any = None) -> dict[str, Any]:
            return {"optimizer": optim_dict} if optim_dict else {}

    module = types.ModuleType("openrlhf.utils.deepspeed.deepspeed")
    module.DeepspeedStrategy = DeepspeedStrategy  # type: ignore[attr-defined]
    monkeypatch.setenv("PROVE_TORCH_ADAM", "1")
    openrlhf_run.patch_strategy(module)
    openrlhf_run.patch_strategy(module)  # once only
    got = DeepspeedStrategy().get_ds_train_config({"type": "AdamW", "params": {"lr": 1.0}}, max_norm=1.0)
    assert got["optimizer"]["params"] == {"lr": 1.0, "torch_adam": True}
    assert DeepspeedStrategy().get_ds_train_config() == {}


async def test_openrlhfs_logger_sends_its_scalars_to_the_run_on_the_hub(live: LiveHub) -> None:
    """The real ``openrlhf.utils.logging_utils``, patched on import in a fresh process as in every Ray worker:
    each ``log_train``/``log_eval`` reaches the hub's run (NaN dropped, the hub refuses it), then the run ends."""
    pytest.importorskip("openrlhf", reason="openrlhf is not installed (scripts/install-trainer-deps)")
    from trainer_client.hub_client import HubClient
    from trainer_client.hubs import ws_url

    async with HubClient(ws_url(live.url)) as client:
        run = await client.run_start("job-metrics", {})
    code = """
import types
from trainer_client.openrlhf_run import end_run, setup_worker
setup_worker()
from openrlhf.utils.logging_utils import TensorboardLogger

class Writer:
    def __init__(self): self.seen = []
    def add_scalar(self, tag, value, step): self.seen.append((tag, step))
    def add_text(self, *args): pass
    def close(self): pass

logger = TensorboardLogger.__new__(TensorboardLogger)
logger.writer = Writer()
logger.log_train(1, {"policy_loss": 0.5, "reward": 1.25, "nan": float("nan"), "generated_samples": None})
logger.log_train(2, {"policy_loss": 0.25, "reward": 1.5})
logger.log_eval(2, {"success": 0.75})
logger.close()
assert logger.writer.seen[0] == ("train/policy_loss", 1), logger.writer.seen
end_run("finished")
print("sent")
"""
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("PROVE_")},
        "PYTHONPATH": str(ROOT),
        "PROVE_HUB_URLS": live.url,
        "PROVE_RUN": run,
    }
    proc = await asyncio.create_subprocess_exec(sys.executable, "-c", code, env=env, stdout=PIPE, stderr=PIPE)
    out, err = (x.decode() for x in await asyncio.wait_for(proc.communicate(), 120))
    assert proc.returncode == 0 and "sent" in out, err[-3000:]
    assert live.url not in out + err  # the hub's address never reaches the job's log
    store = live.app.state.hub.store
    await store.flush()
    rows = await store.query("SELECT step, name, value FROM run_metrics WHERE run_id = ? ORDER BY step, name", (run,))
    assert [(r["step"], r["name"], r["value"]) for r in rows] == [
        (1, "train/policy_loss", 0.5),
        (1, "train/reward", 1.25),
        (2, "eval/success", 0.75),
        (2, "train/policy_loss", 0.25),
        (2, "train/reward", 1.5),
    ]
    [status] = await store.query("SELECT status FROM training_runs WHERE id = ?", (run,))
    assert status["status"] == "finished"


def test_the_drivers_ray_init_never_clashes_with_a_jobs_runtime_environment() -> None:
    """Ray refuses a driver's runtime_env that repeats a key or variable of the job's own (_merge_runtime_env)."""
    job = {"RAY_JOB_CONFIG_JSON_ENV_VAR": "{}", "PROVE_HUB_URLS": "ws://h/ws", "NCCL_DEBUG": "INFO"}
    runtime = openrlhf_run.ray_runtime_env(job)
    assert runtime["worker_process_setup_hook"] == openrlhf_run.SETUP_HOOK
    assert set(runtime["env_vars"]) == {"TOKENIZERS_PARALLELISM", "RAY_ENABLE_ZERO_COPY_TORCH_TENSORS"}
    here = openrlhf_run.ray_runtime_env({"PROVE_HUB_URLS": "ws://h/ws", "PROVE_RUN": "r"})
    assert here["env_vars"]["PROVE_HUB_URLS"] == "ws://h/ws" and here["env_vars"]["NCCL_DEBUG"] == "WARN"
