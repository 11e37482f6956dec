"""``prove-train``: hub checks, the prompt export, the OpenRLHF command (flags checked against the real
0.11.2 source) and metrics forwarded to the hub while a (fake) trainer runs."""

from __future__ import annotations

import asyncio
import json
import re
import shlex
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from hub.testing import LiveHub, free_port, serve
from tests.trainer_support import make_app
from trainer_client.evaluate import select_tasks
from trainer_client.launcher import JsonlMetrics, check_hubs, family_lr, parse, prompt_rows

ROOT = Path(__file__).resolve().parent.parent


@pytest_asyncio.fixture
async def live(tmp_path: Path) -> AsyncIterator[LiveHub]:
    async with serve(make_app(tmp_path)) as hub:
        yield hub


async def prove_train(*argv: str) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "trainer_client.launcher", *argv, cwd=ROOT,
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    return int(proc.returncode or 0), out.decode(), err.decode()


def test_family_learning_rates() -> None:
    assert family_lr("Qwen/Qwen3-4B-Instruct-2507") == (1e-6, "qwen3-4b")
    assert family_lr("/models/Qwen3-8B") == (5e-8, "qwen3-8b")
    assert family_lr("Qwen/Qwen2.5-7B-Instruct") == (3e-7, "qwen2.5-7b")
    assert family_lr("ibm-granite/granite-4.1-8b-instruct") == (3e-7, "granite")
    assert family_lr("meta-llama/Llama-3.1-8B") == (1e-6, None)
    with pytest.raises(ValueError, match="group"):
        parse(["--model", "m", "--group-size", "1"])


async def test_dry_run_command_matches_openrlhf(live: LiveHub, tmp_path: Path) -> None:
    dead = f"http://127.0.0.1:{free_port()}"
    rc, out, err = await prove_train("--hub", live.url, "--hub", dead, "--model", "Qwen/Qwen3-8B", "--dry-run",
                                     "--output", str(tmp_path / "run"), "--gpus", "4", "--", "--eval.steps", "5")
    assert rc == 0, err
    env_line, cmd_line = out.strip().splitlines()
    cmd = shlex.split(cmd_line)
    assert cmd[1:3] == ["-m", "openrlhf.cli.train_ppo_ray"]
    flags = {a: cmd[i + 1] if i + 1 < len(cmd) and not cmd[i + 1].startswith("--") else True
             for i, a in enumerate(cmd) if a.startswith("--")}
    assert flags["--algo.advantage.estimator"] == "group_norm" and flags["--rollout.n_samples_per_prompt"] == "16"
    assert flags["--rollout.batch_size"] == "16" and flags["--algo.kl.init_coef"] == "0.01"
    assert flags["--actor.adam.lr"] == "5e-08" and flags["--eval.steps"] == "5"
    assert flags["--train.agent_func_path"].endswith("trainer_client/openrlhf_agent.py")
    source = pytest.importorskip("openrlhf.cli", reason="openrlhf is not installed").__file__
    text = (Path(source).parent / "train_ppo_ray.py").read_text()
    known = set(re.findall(r'"(--[\w.]+)"', text))
    known |= {f"--{who}.{name}" for name in re.findall(r'f"--\{prefix\}\.([\w.]+)"', text) for who in ("actor", "critic")}
    assert set(flags) <= known, f"flags unknown to OpenRLHF 0.11.2: {set(flags) - known}"
    assert "PROVE_HUB_URLS=" + f"ws://127.0.0.1:{live.port}/ws" in env_line  # the dead hub was left out
    assert "PROVE_GROUP_SIZE=16" in env_line and "PROVE_MAX_STEPS=10" in env_line
    rows = [json.loads(x) for x in Path(flags["--data.prompt_dataset"]).read_text().splitlines()]
    tasks = [t.model_dump() for t in live.app.state.hub.tasks]
    assert rows == prompt_rows(select_tasks(tasks, "train"))
    assert all(set(r) >= {"input", "label"} for r in rows) and "not answering" in err


async def test_no_healthy_hub_fails_fast(tmp_path: Path) -> None:
    rc, _, err = await prove_train("--hub", f"http://127.0.0.1:{free_port()}", "--model", "m", "--dry-run")
    assert rc == 2 and "no hub is healthy" in err
    with pytest.raises(RuntimeError):
        check_hubs([f"http://127.0.0.1:{free_port()}"], None, timeout=2)


FAKE_TRAINER = """#!{python}
import json, os, sys
assert sys.argv[1:3] == ["-m", "openrlhf.cli.train_ppo_ray"], sys.argv
assert os.environ["PROVE_HUB_URLS"] and os.environ["PROVE_RUN"]
with open({metrics!r}, "a") as fh:
    for step in (1, 2):
        fh.write(json.dumps({{"step": step, "metrics": {{"train/reward": 0.5 + step / 10, "train/kl": 0.001}}}}) + "\\n")
sys.exit({code})
"""


@pytest.mark.parametrize("code,status", [(0, "finished"), (3, "failed")])
async def test_run_reports_metrics_to_hub(live: LiveHub, tmp_path: Path, code: int, status: str) -> None:
    metrics = tmp_path / "metrics.jsonl"
    fake = tmp_path / "python"
    fake.write_text(FAKE_TRAINER.format(python=sys.executable, metrics=str(metrics), code=code))
    fake.chmod(0o755)
    rc, _, err = await prove_train("--hub", live.url, "--model", "Qwen/Qwen3-4B", "--python", str(fake),
                                   "--output", str(tmp_path / "run"), "--metrics-file", str(metrics), "--poll", "0.2",
                                   "--name", f"test-{status}")
    assert rc == code, err
    store = live.app.state.hub.store
    await store.flush()
    runs = await store.query("SELECT id, status, config FROM training_runs WHERE name = ?", (f"test-{status}",))
    assert len(runs) == 1 and runs[0]["status"] == status
    assert json.loads(runs[0]["config"])["lr"] == 1e-6
    rows = await store.query("SELECT step, name, value FROM run_metrics WHERE run_id = ? ORDER BY step, name",
                             (runs[0]["id"],))
    assert [(r["step"], r["name"]) for r in rows] == [(1, "train/kl"), (1, "train/reward"), (2, "train/kl"),
                                                     (2, "train/reward")]


def test_jsonl_metrics_reads_only_complete_new_lines(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    src = JsonlMetrics(path)
    assert src.poll() == []
    path.write_text('{"step": 1, "metrics": {"a": 1}}\n{"step": 2, "metr')
    assert src.poll() == [(1, {"a": 1.0})]
    with path.open("a") as fh:
        fh.write('ics": {"a": 2}}\n')
    assert src.poll() == [(2, {"a": 2.0})] and src.poll() == []
