"""``prove-train``: hub checks, the prompt export, the OpenRLHF command (flags checked against the real
0.11.2 source) and metrics forwarded to the hub while a (fake) trainer runs."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from hub.testing import LiveHub, free_port, serve
from tests.trainer_support import make_app
from trainer_client.evaluate import select_tasks, training_tasks
from trainer_client.launcher import (
    JsonlMetrics,
    check_hubs,
    draw_rows,
    family_lr,
    openrlhf_max_steps,
    parse,
    write_agent,
)

ROOT = Path(__file__).resolve().parent.parent


@pytest_asyncio.fixture
async def live(tmp_path: Path) -> AsyncIterator[LiveHub]:
    async with serve(make_app(tmp_path)) as hub:
        yield hub


async def prove_train(*argv: str) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "trainer_client.launcher",
        *argv,
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
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


def flags_of(cmd: list[str]) -> dict[str, str | bool]:
    return {
        a: cmd[i + 1] if i + 1 < len(cmd) and not cmd[i + 1].startswith("--") else True
        for i, a in enumerate(cmd)
        if a.startswith("--")
    }


async def test_dry_run_command_matches_openrlhf(live: LiveHub, tmp_path: Path) -> None:
    dead = f"http://127.0.0.1:{free_port()}"
    rc, out, err = await prove_train(
        "--hub",
        live.url,
        "--hub",
        dead,
        "--model",
        "Qwen/Qwen3-8B",
        "--dry-run",
        "--output",
        str(tmp_path / "run"),
        "--gpus",
        "4",
        "--batch-size",
        "4",
        "--steps",
        "5",
        "--max-new-tokens",
        "512",
        "--",
        "--eval.steps",
        "5",
    )
    assert rc == 0, err
    env_line, cmd_line = out.strip().splitlines()
    cmd = shlex.split(cmd_line)
    assert cmd[1:3] == ["-m", "trainer_client.openrlhf_run"]  # train_ppo_ray with the job's additions
    flags = flags_of(cmd)
    assert flags["--algo.advantage.estimator"] == "group_norm" and flags["--rollout.n_samples_per_prompt"] == "16"
    assert flags["--rollout.batch_size"] == "4" and flags["--train.batch_size"] == "64"
    assert flags["--algo.kl.init_coef"] == "0.01"
    assert flags["--actor.adam.lr"] == "5e-08" and flags["--eval.steps"] == "5"
    assert flags["--vllm.enable_prefix_caching"] is True  # multi-turn rollouts reuse the conversation's KV cache
    assert flags["--train.num_episodes"] == "1" and flags["--data.max_samples"] == "20"
    source = pytest.importorskip("openrlhf.cli", reason="openrlhf is not installed").__file__
    text = (Path(source).parent / "train_ppo_ray.py").read_text()
    known = set(re.findall(r'"(--[\w.]+)"', text))
    known |= {
        f"--{who}.{name}" for name in re.findall(r'f"--\{prefix\}\.([\w.]+)"', text) for who in ("actor", "critic")
    }
    assert set(flags) <= known, f"flags unknown to OpenRLHF 0.11.2: {set(flags) - known}"
    # the dead hub was left out; the settings are in the run config the generated agent file names
    assert "PROVE_HUB_URLS=" + f"ws://127.0.0.1:{live.port}/ws" in env_line
    agent = Path(str(flags["--train.agent_func_path"]))
    assert agent.name == "prove_agent.py" and agent.with_name("prove-agent.json").exists()
    config = json.loads(agent.with_name("prove-agent.json").read_text())
    assert config["hub_urls"] == [f"ws://127.0.0.1:{live.port}/ws"] and config["group_size"] == 16
    assert config["max_steps"] == 10 and config["max_new_tokens"] == 512
    rows = [json.loads(x) for x in Path(str(flags["--data.prompt_dataset"])).read_text().splitlines()]
    assert Path(str(flags["--data.prompt_dataset"])).parent == agent.parent
    tasks = select_tasks([t.model_dump() for t in live.app.state.hub.tasks], "train")
    # 5 steps x 4 prompts, in shuffled passes over the train split: every task once per pass
    assert len(rows) == 20 and all(set(r) >= {"input", "label"} for r in rows)
    first = rows[: len(tasks)]
    assert sorted(r["label"] for r in first) == sorted(t["id"] for t in tasks)
    assert {r["label"] for r in rows} == {t["id"] for t in tasks}
    assert "5 optimizer steps" in err and "max_steps 5" in err and "not answering" in err


def test_steps_give_openrlhfs_max_steps() -> None:
    """The row count makes OpenRLHF 0.11.2's own schedule length equal --steps (its formula, read from its source)."""
    source = pytest.importorskip("openrlhf", reason="openrlhf is not installed").__file__
    text = (Path(source).parent / "trainer" / "ppo_trainer.py").read_text()
    formula = re.search(r"max_steps = \(\n(.*?)\n\s*\)\n", text, re.S)
    assert formula is not None
    terms = [t.strip() for t in formula.group(1).split("\n") if t.strip()]
    assert terms == [
        "len(prompts_dataset)",
        "* args.rollout.n_samples_per_prompt",
        "// args.train.batch_size",
        "* args.train.num_episodes",
        "* args.train.max_epochs",
    ]
    for steps, batch, n in ((350, 16, 16), (2, 2, 4), (7, 3, 5)):
        tasks = [{"id": f"t{i}", "turns": [{"user": "hi"}]} for i in range(batch + 1)]
        rows = draw_rows(tasks, steps, batch, seed=1)
        assert openrlhf_max_steps(len(rows), n, batch * n) == steps
        # OpenRLHF trains every rollout batch it draws, so the rollout batches must all be full
        assert len(rows) % batch == 0 and len(rows) // batch == steps


async def test_too_few_tasks_for_a_batch_is_refused(live: LiveHub, tmp_path: Path) -> None:
    rc, _, err = await prove_train(
        "--hub",
        live.url,
        "--model",
        "m",
        "--dry-run",
        "--output",
        str(tmp_path / "r"),
        "--batch-size",
        "16",
        "--split",
        "all",
    )
    assert rc == 2 and "fewer than one rollout batch" in err


async def test_task_missing_on_a_hub_fails_before_training(live: LiveHub, tmp_path: Path) -> None:
    tasks = [t.model_dump_json() for t in live.app.state.hub.tasks]
    fewer = tmp_path / "fewer.jsonl"
    fewer.write_text("\n".join(tasks[:3]) + "\n")
    async with serve(make_app(tmp_path, "other.db", tasks_path=str(fewer))) as other:
        rc, _, err = await dry_flags(live, tmp_path, "--hub", other.url, "--split", "all")
    trained = {t["id"] for t in training_tasks([t.model_dump() for t in live.app.state.hub.tasks], "all")}
    lacking = len(trained - {t.id for t in list(live.app.state.hub.tasks)[:3]})  # never the test tasks
    assert rc == 2 and "unknown_task" in err and f"ws://127.0.0.1:{other.port}/ws lacks {lacking}" in err


def test_generated_agent_file_reads_its_run_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """OpenRLHF loads the agent by path in a worker that does not have the launcher's environment."""
    pytest.importorskip("openrlhf.utils.agent", reason="openrlhf is not installed")
    import importlib.util

    for key in [k for k in os.environ if k.startswith("PROVE_")]:
        monkeypatch.delenv(key)
    config = {
        "hub_urls": ["ws://10.0.0.7:8765/ws"],
        "token": "s3cret",
        "group_size": 8,
        "max_steps": 6,
        "max_new_tokens": 300,
        "run": "run-1",
    }
    agent = write_agent(tmp_path / "job", config, "test")
    assert (agent.with_name("prove-agent.json").stat().st_mode & 0o777) == 0o600
    monkeypatch.chdir(tmp_path)
    spec = importlib.util.spec_from_file_location("agent_module", "job/prove_agent.py")  # relative, as in a Ray job
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    executor = module.AgentExecutor()
    assert {k: executor.config.to_json()[k] for k in config} == config


async def test_no_healthy_hub_fails_fast(tmp_path: Path) -> None:
    rc, _, err = await prove_train("--hub", f"http://127.0.0.1:{free_port()}", "--model", "m", "--dry-run")
    assert rc == 2 and "no hub is healthy" in err
    with pytest.raises(RuntimeError):
        check_hubs([f"http://127.0.0.1:{free_port()}"], None, timeout=2)


FAKE_TRAINER = """#!{python}
import json, os, sys
assert sys.argv[1:3] == ["-m", "trainer_client.openrlhf_run"], sys.argv
assert os.environ["PROVE_HUB_URLS"] and os.environ["PROVE_RUN"]
agent = sys.argv[sys.argv.index("--train.agent_func_path") + 1]
config = json.load(open(os.path.join(os.path.dirname(agent), "prove-agent.json")))
assert config["run"] == os.environ["PROVE_RUN"], config
with open({metrics!r}, "a") as fh:
    for step in (1, 2):
        row = {{"step": step, "metrics": {{"train/reward": 0.5 + step / 10, "train/kl": 0.001}}}}
        fh.write(json.dumps(row) + "\\n")
sys.exit({code})
"""


@pytest.mark.parametrize("code,status", [(0, "finished"), (3, "failed")])
async def test_run_reports_metrics_to_hub(live: LiveHub, tmp_path: Path, code: int, status: str) -> None:
    metrics = tmp_path / "metrics.jsonl"
    fake = tmp_path / "python"
    fake.write_text(FAKE_TRAINER.format(python=sys.executable, metrics=str(metrics), code=code))
    fake.chmod(0o755)
    rc, _, err = await prove_train(
        "--hub",
        live.url,
        "--model",
        "Qwen/Qwen3-4B",
        "--python",
        str(fake),
        "--output",
        str(tmp_path / "run"),
        "--metrics-file",
        str(metrics),
        "--poll",
        "0.2",
        "--batch-size",
        "2",
        "--steps",
        "3",
        "--name",
        f"test-{status}",
    )
    assert rc == code, err
    store = live.app.state.hub.store
    await store.flush()
    runs = await store.query("SELECT id, status, config FROM training_runs WHERE name = ?", (f"test-{status}",))
    assert len(runs) == 1 and runs[0]["status"] == status
    assert json.loads(runs[0]["config"])["lr"] == 1e-6
    rows = await store.query(
        "SELECT step, name, value FROM run_metrics WHERE run_id = ? ORDER BY step, name", (runs[0]["id"],)
    )
    assert [(r["step"], r["name"]) for r in rows] == [
        (1, "train/kl"),
        (1, "train/reward"),
        (2, "train/kl"),
        (2, "train/reward"),
    ]


def test_jsonl_metrics_reads_only_complete_new_lines(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    src = JsonlMetrics(path)
    assert src.poll() == []
    path.write_text('{"step": 1, "metrics": {"a": 1}}\n{"step": 2, "metr')
    assert src.poll() == [(1, {"a": 1.0})]
    with path.open("a") as fh:
        fh.write('ics": {"a": 2}}\n')
    assert src.poll() == [(2, {"a": 2.0})] and src.poll() == []


def test_gpu_smoke_skips_without_a_gpu(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"  # a PATH with bash and coreutils but no nvidia-smi
    bin_dir.mkdir()
    for tool in ("bash", "dirname", "env"):
        found = shutil.which(tool)
        assert found
        (bin_dir / tool).symlink_to(found)
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / "gpu_smoke.sh")],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": str(bin_dir)},
    )
    assert done.returncode == 0 and done.stdout.strip() == "skipped: no GPU", done.stderr


async def test_gpu_smoke_training_command_is_valid(live: LiveHub, tmp_path: Path) -> None:
    """The full-loop smoke's prove-train flags (read from the script) plan a 2-step run OpenRLHF 0.11.2 accepts."""
    script = (ROOT / "scripts" / "gpu_train_smoke.sh").read_text()
    block = script.split("-m trainer_client.launcher", 1)[1].split('>"$WORK/train.log"', 1)[0]
    argv = shlex.split(
        block.replace("\\\n", " ")
        .replace("$DRY_RUN", "")
        .replace('"$WORK/model"', "tiny-model")
        .replace('"http://127.0.0.1:$PORT"', live.url)
        .replace('"$WORK/run"', str(tmp_path / "run"))
    )
    rc, out, err = await prove_train("--dry-run", *argv)
    assert rc == 0, err
    flags = flags_of(shlex.split(out.strip().splitlines()[-1]))
    assert flags["--rollout.n_samples_per_prompt"] == "4" and flags["--rollout.batch_size"] == "2"
    assert flags["--vllm.enable_prefix_caching"] is True and flags["--rollout.max_new_tokens"] == "64"
    assert "2 optimizer steps" in err and "max_steps 2" in err
    config = json.loads((tmp_path / "run" / "job" / "prove-agent.json").read_text())
    assert config["max_new_tokens"] == 64 and config["max_steps"] == 4 and config["group_size"] == 4


async def dry_run(live: LiveHub, *argv: str) -> tuple[int, str, str]:
    """``prove_train`` of model ``m`` against ``live`` with ``--dry-run --batch-size 2``, plus ``argv``."""
    return await prove_train("--hub", live.url, "--model", "m", "--dry-run", "--batch-size", "2", *argv)


async def dry_flags(live: LiveHub, tmp_path: Path, *argv: str) -> tuple[int, dict[str, str | bool], str]:
    rc, out, err = await dry_run(live, "--output", str(tmp_path / "r"), *argv)
    return rc, flags_of(shlex.split(out.strip().splitlines()[-1])) if rc == 0 else {}, err


async def test_gpus_are_checked_against_tensor_parallelism_and_placement(live: LiveHub, tmp_path: Path) -> None:
    rc, _, err = await dry_flags(live, tmp_path, "--gpus", "1")  # the default --tp is 2
    assert rc == 2 and "--tp 2 needs 2 GPUs per vLLM engine but a node has --gpus 1" in err
    rc, _, err = await dry_flags(live, tmp_path, "--gpus", "3")
    assert rc == 2 and "not a multiple of --tp 2" in err
    rc, _, err = await dry_flags(live, tmp_path, "--gpus", "8", "--vllm-engines", "2")
    assert rc == 2 and "must be equal" in err
    rc, _, err = await dry_flags(
        live, tmp_path, "--gpus", "8", "--group-size", "2", "--", "--rollout.micro_batch_size", "4"
    )
    assert rc == 2 and "fewer micro-batches than the 8 actor processes" in err
    # what passes satisfies train_ppo_ray's own assertion: engines x tp == actor GPUs
    rc, flags, err = await dry_flags(live, tmp_path, "--gpus", "4", "--nodes", "2")
    assert rc == 0, err
    assert int(str(flags["--vllm.num_engines"])) * int(str(flags["--vllm.tensor_parallel_size"])) == 8
    assert flags["--actor.num_gpus_per_node"] == "4" and flags["--train.colocate_all"] is True
    rc, flags, err = await dry_flags(live, tmp_path, "--gpus", "1", "--tp", "1")
    assert rc == 0 and flags["--vllm.num_engines"] == "1", err


def test_a_run_here_needs_the_gpus_it_asks_for() -> None:
    from trainer_client.launcher import check_local_gpus

    with pytest.raises(ValueError, match="this machine has 1 GPU"):
        check_local_gpus(parse(["--model", "m", "--gpus", "2", "--tp", "1"]), 1)
    check_local_gpus(parse(["--model", "m", "--gpus", "2", "--tp", "1"]), None)  # cannot tell: leave it to Ray
    check_local_gpus(parse(["--model", "m", "--gpus", "2", "--tp", "1", "--ray-address", "h:6379"]), 1)


async def test_asynchronous_training_and_importance_sampling_flags(live: LiveHub, tmp_path: Path) -> None:
    """OpenRLHF 0.11.2's async mode (a staleness bound) and IS correction, behind launcher flags, in --dry-run."""
    rc, flags, err = await dry_flags(
        live,
        tmp_path,
        "--gpus",
        "8",
        "--async",
        "--async-queue",
        "2",
        "--partial-rollout",
        "--is-correction",
        "token",
        "--is-mode",
        "clip",
        "--is-gating",
        "tv",
        "--is-threshold",
        "0.8",
        "1.25",
    )
    assert rc == 0, err
    assert flags["--train.async_enable"] is True and flags["--train.async_queue_size"] == "2"
    assert flags["--train.partial_rollout_enable"] is True
    assert (
        flags["--algo.advantage.is_correction_level"] == "token"
        and flags["--algo.advantage.is_correction_mode"] == "clip"
    )
    assert flags["--algo.advantage.is_correction_gating"] == "tv"
    # async: no sleep mode (train_ppo_ray asserts it), and the engines get GPUs of their own
    assert "--vllm.enable_sleep" not in flags and "--train.colocate_all" not in flags
    engines, tp = int(str(flags["--vllm.num_engines"])), int(str(flags["--vllm.tensor_parallel_size"]))
    assert engines * tp + int(str(flags["--actor.num_gpus_per_node"])) == 8
    rc, out, _ = await dry_run(live, "--output", str(tmp_path / "s"), "--gpus", "8", "--async", "--is-threshold", "2")
    cmd = shlex.split(out.strip().splitlines()[-1])
    assert rc == 0 and "--algo.advantage.is_correction_threshold" not in cmd  # only with a correction level
    rc, _, err = await dry_flags(live, tmp_path, "--gpus", "8", "--partial-rollout")
    assert rc == 2 and "--partial-rollout needs --async" in err
    source = pytest.importorskip("openrlhf.cli", reason="openrlhf is not installed").__file__
    text = (Path(source).parent / "train_ppo_ray.py").read_text()
    for flag in (
        "--train.async_enable",
        "--train.async_queue_size",
        "--train.partial_rollout_enable",
        "--algo.advantage.is_correction_level",
        "--algo.advantage.is_correction_mode",
        "--algo.advantage.is_correction_gating",
        "--algo.advantage.is_correction_threshold",
        "--train.colocate_actor_ref",
    ):
        assert f'"{flag}"' in text, flag


async def test_a_cluster_job_carries_its_code_and_settings(live: LiveHub, tmp_path: Path) -> None:
    """--ray-address: the cluster's python, cluster paths as given, the code in py_modules, the token in the
    runtime environment only (shown hidden)."""
    rc, out, err = await dry_run(
        live,
        "--token",
        "s3cret-token",
        "--ray-address",
        "10.0.0.1:6379",
        "--output",
        "/mnt/shared/runs/x",
        "--job-dir",
        str(tmp_path / "job"),
        "--gpus",
        "2",
        "--tp",
        "1",
    )
    assert rc == 0, err
    head, env_line, cmd_line = out.strip().splitlines()
    runtime = json.loads(head.split("runtime_env: ", 1)[1])
    cmd = shlex.split(cmd_line)
    flags = flags_of(cmd)
    assert cmd[0] == "python" and cmd[1:3] == ["-m", "trainer_client.openrlhf_run"]
    assert (
        flags["--ckpt.path"] == "/mnt/shared/runs/x/ckpt"
        and flags["--logger.tensorboard_dir"] == "/mnt/shared/runs/x/tensorboard"
    )
    assert flags["--train.agent_func_path"] == "prove_agent.py" and not str(flags["--data.prompt_dataset"]).startswith(
        "/"
    )
    assert runtime["working_dir"] == str(tmp_path / "job")
    modules = [Path(m) for m in runtime["py_modules"]]
    assert [m.name for m in modules] == ["trainer_client", "hub"]
    assert sorted(p.name for p in modules[1].iterdir()) == ["__init__.py", "wire.py"]
    assert (modules[0] / "openrlhf_agent.py").exists() and not list(modules[0].rglob("__pycache__"))
    assert runtime["env_vars"]["PROVE_HUB_TOKEN"] == "***" and runtime["env_vars"]["PROVE_HUB_URLS"]
    assert runtime["pip"]["packages"] == ["websockets>=14,<18", "pydantic>=2.10,<3"]
    assert "s3cret-token" not in out and "s3cret-token" not in (tmp_path / "job" / "prove-agent.json").read_text()
    rc, _, err = await dry_run(live, "--ray-address", "h:6379", "--output", "runs/x")
    assert rc == 2 and "relative" in err


def test_thinking_history_strip_is_refused_for_training_with_the_reason() -> None:
    with pytest.raises(ValueError, match="one growing token sequence"):
        parse(["--model", "m", "--thinking-history", "strip"])
    assert parse(["--model", "m", "--thinking-history", "keep"]).thinking_history == "keep"
