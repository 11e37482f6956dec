"""``prove-train``: GRPO with OpenRLHF 0.11 against one or more PROVE hubs.

    prove-train --hub http://127.0.0.1:8765 --model Qwen/Qwen3-4B-Instruct-2507 --gpus 8
    prove-train --hub ws://hub-a:8765/ws --hub ws://hub-b:8765/ws --token $HUB_TOKEN --model ... --dry-run
    prove-train --ray-hubs 4 --model ...          # start 4 hubs as Ray actors (trainer_client.ray_hubs)
    prove-train --ray-address head:6379 --ray-hubs 4 --token $HUB_TOKEN --model ... --nodes 2

Steps: check every hub (``GET /healthz``; a dead one is dropped with a warning) and that every prompt's
task is on every hub; write the job directory (``<output>/job``): ``steps x batch`` prompt rows in
OpenRLHF's format (``{"input": <first user turn>, "label": <task id>}``; the agent file renders the real
prompt from the hub, tools included), the run config ``prove-agent.json`` and the agent file
``prove_agent.py`` that names it; build the ``train_ppo_ray`` command (``--algo.advantage.estimator
group_norm``, ``--rollout.n_samples_per_prompt N``, vLLM prefix caching) with the paper's settings (group
16, batch 16, KL 0.01 as a k3 loss, learning rate per model family, 350 optimizer steps, rollouts capped
at 10 model messages), and run it here, or as a Ray job on an existing cluster (``--ray-address``), whose
runtime_env carries the job directory and the settings to every worker. ``--dry-run`` prints the plan.

Training metrics go to the hub (``run_start`` / ``run_metrics`` / ``run_end`` on the WebSocket),
where the dashboard plots them: the launcher follows the trainer's TensorBoard event files
(``--logger.tensorboard_dir``; OpenRLHF logs ``train/*`` and ``eval/*`` scalars there) or, for
other trainers, a JSONL file of ``{"step": N, "metrics": {...}}`` lines (``--metrics-file``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import random
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from trainer_client.evaluate import training_tasks
from trainer_client.hub_client import HubClient, HubError
from trainer_client.hubs import http_url, ws_url

log = logging.getLogger("trainer_client.launcher")

AGENT_FILE = Path(__file__).resolve().parent / "openrlhf_agent.py"
TRAINER = ("-m", "openrlhf.cli.train_ppo_ray")

# The paper's learning rate per model family (PAPER_NOTES §4); 1e-6 is OpenRLHF's default and the paper's fallback.
FAMILY_LR: tuple[tuple[str, float], ...] = (
    ("qwen3-4b", 1e-6),
    ("qwen3-8b", 5e-8),
    ("qwen2.5-7b", 3e-7),
    ("granite", 3e-7),
)
DEFAULT_LR = 1e-6


def family_lr(model: str) -> tuple[float, str | None]:
    """(learning rate, the family it came from, or None for the default)."""
    name = model.lower().replace("_", "-")
    for family, lr in FAMILY_LR:
        if family in name:
            return lr, family
    return DEFAULT_LR, None


# Hubs -------------------------------------------------------------------------------------------


def check_hubs(urls: Sequence[str], token: str | None, timeout: float = 10.0) -> list[str]:
    """The hubs whose ``/healthz`` answers ok (as ws URLs); raise if none does."""
    alive: list[str] = []
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    for url in urls:
        health = http_url(url) + "/healthz"
        try:
            r = httpx.get(health, timeout=timeout, headers=headers)
            data = r.json() if r.status_code == 200 else {}
        except (httpx.HTTPError, ValueError) as exc:
            log.warning("hub %s is not answering (%s); leaving it out", url, exc)
            continue
        if data.get("status") != "ok":
            log.warning("hub %s: %s answered %s; leaving it out", url, health, r.status_code)
            continue
        log.info("hub %s: %s servers, %s tools", url, data.get("servers"), data.get("tools"))
        alive.append(ws_url(url))
    if not alive:
        raise RuntimeError(f"no hub is healthy among: {', '.join(urls)}")
    return alive


async def fetch_tasks(url: str, token: str | None) -> list[dict[str, Any]]:
    async with HubClient(ws_url(url), token, client="prove-train", retries=2) as hub:
        return await hub.tasks(full=True)


async def missing_tasks(hubs: Sequence[str], token: str | None, wanted: Sequence[str]) -> dict[str, list[str]]:
    """For each hub, the wanted task ids it does not have (a prompt whose task a hub lacks would fail there)."""
    missing: dict[str, list[str]] = {}
    for url in hubs:
        async with HubClient(ws_url(url), token, client="prove-train", retries=2) as hub:
            have = {t["id"] for t in await hub.tasks()}
        lacking = sorted(set(wanted) - have)
        if lacking:
            missing[url] = lacking
    return missing


def check_tasks(hubs: Sequence[str], token: str | None, wanted: Sequence[str]) -> None:
    """Fail fast, before any GPU is touched, when a hub lacks a prompt's task."""
    missing = asyncio.run(missing_tasks(hubs, token, wanted))
    if missing:
        detail = "; ".join(
            f"{url} lacks {len(ids)} ({', '.join(ids[:5])}{', ...' if len(ids) > 5 else ''})"
            for url, ids in missing.items()
        )
        raise ValueError(f"unknown_task: every hub must load the same tasks: {detail}")


def prompt_rows(tasks: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenRLHF prompt rows: ``input`` (the first user turn, for people and length filters) and
    ``label`` (the task id: the agent opens that task on a hub and renders the real prompt)."""
    return [
        {
            "input": t["turns"][0]["user"],
            "label": t["id"],
            "kind": t.get("kind", "mcp"),
            "servers": t.get("servers", []),
        }
        for t in tasks
    ]


def draw_rows(tasks: Sequence[dict[str, Any]], steps: int, batch: int, seed: int) -> list[dict[str, Any]]:
    """``steps * batch`` prompt rows: shuffled passes over the tasks (every task once per pass), so one
    OpenRLHF episode over them is exactly ``steps`` full rollout batches."""
    if len(tasks) < batch:
        raise ValueError(
            f"{len(tasks)} task(s) is fewer than one rollout batch (--batch-size {batch}): "
            "lower --batch-size or add tasks"
        )
    rng = random.Random(seed)
    rows: list[dict[str, Any]] = []
    while len(rows) < steps * batch:
        one_pass = prompt_rows(tasks)
        rng.shuffle(one_pass)
        rows += one_pass
    return rows[: steps * batch]


def export_prompts(rows: Sequence[dict[str, Any]], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def openrlhf_max_steps(prompts: int, n: int, train_batch: int, episodes: int = 1, epochs: int = 1) -> int:
    """The scheduler's ``max_steps`` as OpenRLHF 0.11.2 computes it (``ppo_trainer.prepare_datasets``)."""
    return prompts * n // train_batch * episodes * epochs


AGENT_TEMPLATE = '''"""The PROVE agent of run {name!r}: ``trainer_client.openrlhf_agent`` with the run config beside it.

Written by prove-train; pass this file as --train.agent_func_path. The settings travel with the job (this
file and {config!r} sit in the job's directory), not in the environment of the process that launched it.
"""

import sys
from pathlib import Path

try:
    import trainer_client  # noqa: F401
except ImportError:  # a source checkout that is not installed
    sys.path.insert(0, {source!r})

from trainer_client.openrlhf_agent import AgentExecutor as _AgentExecutor
from trainer_client.openrlhf_agent import AgentInstance  # noqa: F401


class AgentExecutor(_AgentExecutor):
    CONFIG_FILE = str(Path(__file__).resolve().with_name({config!r}))
'''

CONFIG_NAME = "prove-agent.json"
AGENT_NAME = "prove_agent.py"


def write_agent(job: Path, config: dict[str, Any], name: str) -> Path:
    """The run config and the agent file that names it, in the job directory (the token is in the
    config, so the file is private to its owner)."""
    job.mkdir(parents=True, exist_ok=True)
    path = job / CONFIG_NAME
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        json.dump(config, fh, indent=1)
    agent = job / AGENT_NAME
    agent.write_text(AGENT_TEMPLATE.format(name=name, config=CONFIG_NAME, source=str(AGENT_FILE.parent.parent)))
    return agent


# The command ------------------------------------------------------------------------------------


@dataclass
class Plan:
    command: list[str]
    env: dict[str, str]
    prompts: Path
    tasks: int
    lr: float
    family: str | None
    tensorboard_dir: Path
    run_name: str
    job: Path
    agent: Path
    agent_config: dict[str, Any]
    steps: int
    max_steps: int
    ray_address: str | None = None  # the Ray cluster the local trainer joins (the one --ray-hubs started)


def build_command(
    args: argparse.Namespace, prompts: Path | str, agent: Path | str, rows: int, lr: float, out: Path
) -> list[str]:
    """``python -m openrlhf.cli.train_ppo_ray ...`` (flag names as in OpenRLHF 0.11.2)."""
    n, batch = args.group_size, args.batch_size
    engines = args.vllm_engines or max(1, args.gpus // args.tp)
    cmd = [
        args.python,
        *TRAINER,
        "--actor.model_name_or_path",
        args.model,
        "--data.prompt_dataset",
        str(prompts),
        "--data.input_key",
        "input",
        "--data.label_key",
        "label",
        "--data.max_samples",
        str(rows),
        "--train.agent_func_path",
        str(agent),
        "--algo.advantage.estimator",
        "group_norm",
        "--rollout.n_samples_per_prompt",
        str(n),
        "--rollout.batch_size",
        str(batch),
        "--train.batch_size",
        str(batch * n),
        "--train.num_episodes",
        "1",
        "--train.max_epochs",
        "1",
        "--algo.kl.init_coef",
        str(args.kl),
        "--algo.kl.use_loss",
        "--algo.kl.estimator",
        "k3",
        "--actor.adam.lr",
        f"{lr:g}",
        "--rollout.temperature",
        str(args.temperature),
        "--data.max_len",
        str(args.max_len),
        "--actor.num_nodes",
        str(args.nodes),
        "--actor.num_gpus_per_node",
        str(args.gpus),
        "--ref.num_nodes",
        str(args.nodes),
        "--ref.num_gpus_per_node",
        str(args.gpus),
        "--vllm.num_engines",
        str(engines * args.nodes),
        "--vllm.tensor_parallel_size",
        str(args.tp),
        "--vllm.gpu_memory_utilization",
        str(args.vllm_memory),
        "--vllm.enable_prefix_caching",
        "--train.colocate_all",
        "--vllm.enable_sleep",
        "--ds.zero_stage",
        str(args.zero_stage),
        "--actor.gradient_checkpointing_enable",
        "--ds.param_dtype",
        "bf16",
        "--train.seed",
        str(args.seed),
        "--ckpt.path",
        str(out / "ckpt"),
        "--ckpt.output_dir",
        str(out / "final"),
        "--ckpt.save_steps",
        str(args.save_steps),
        "--logger.tensorboard_dir",
        str(out / "tensorboard"),
        "--logger.wandb.run_name",
        args.name,
    ]
    if args.max_new_tokens:
        cmd += ["--rollout.max_new_tokens", str(args.max_new_tokens)]
    return cmd + list(args.extra)


def agent_config(
    hubs: Sequence[str], token: str | None, args: argparse.Namespace, run: str | None = None
) -> dict[str, Any]:
    """What the agent reads in the rollout actors (``trainer_client.openrlhf_agent.AgentConfig``)."""
    return {
        "hub_urls": list(hubs),
        "token": token,
        "group_size": args.group_size,
        "max_steps": args.max_steps,
        "max_new_tokens": args.max_new_tokens,
        "run": run,
        "batch_size": args.batch_size,
        "reward": {"preset": args.reward},
    }


def agent_env(config: dict[str, Any]) -> dict[str, str]:
    """The same settings as ``PROVE_*`` variables (the stock agent file reads them; Ray's runtime_env)."""
    env = {
        "PROVE_HUB_URLS": ",".join(config["hub_urls"]),
        "PROVE_GROUP_SIZE": str(config["group_size"]),
        "PROVE_MAX_STEPS": str(config["max_steps"]),
    }
    for key, name in (
        ("PROVE_HUB_TOKEN", "token"),
        ("PROVE_MAX_NEW_TOKENS", "max_new_tokens"),
        ("PROVE_RUN", "run"),
        ("PROVE_BATCH_SIZE", "batch_size"),
    ):
        if config.get(name):
            env[key] = str(config[name])
    if config.get("reward"):
        env["PROVE_REWARD"] = config["reward"]["preset"]
    return env


def plan(args: argparse.Namespace, hubs: Sequence[str], tasks: Sequence[dict[str, Any]]) -> Plan:
    out = Path(args.output).resolve()
    job = out / "job"
    lr, family = (args.lr, "--lr") if args.lr else family_lr(args.model)
    rows = draw_rows(tasks, args.steps, args.batch_size, args.seed)
    prompts = export_prompts(rows, job / f"prompts-{args.split}.jsonl")
    config = agent_config(hubs, args.token, args)
    agent = write_agent(job, config, args.name)
    # on a cluster the job directory is the working directory of every worker: relative paths reach them
    local = not args.ray_address
    command = build_command(
        args, prompts if local else prompts.name, agent if local else agent.name, len(rows), lr, out
    )
    max_steps = openrlhf_max_steps(len(rows), args.group_size, args.batch_size * args.group_size)
    return Plan(
        command,
        agent_env(config),
        prompts,
        len(tasks),
        lr,
        family,
        out / "tensorboard",
        args.name,
        job,
        agent,
        config,
        args.steps,
        max_steps,
    )


# Metrics to the hub -----------------------------------------------------------------------------


class JsonlMetrics:
    """``{"step": N, "metrics": {name: value}}`` lines appended by a trainer; yields the new ones."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0

    def poll(self) -> list[tuple[int, dict[str, float]]]:
        if not self.path.exists():
            return []
        with self.path.open() as fh:
            fh.seek(self.offset)
            chunk = fh.read()
        complete = chunk[: chunk.rfind("\n") + 1]
        self.offset += len(complete.encode())
        out = []
        for line in complete.splitlines():
            if line.strip():
                row = json.loads(line)
                out.append((int(row["step"]), {k: float(v) for k, v in row["metrics"].items()}))
        return out


class TensorBoardMetrics:
    """Scalars from OpenRLHF's TensorBoard event files (``train/*``, ``eval/*``), new ones on each poll."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.seen: set[tuple[str, str, int]] = set()

    def poll(self) -> list[tuple[int, dict[str, float]]]:
        try:
            from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
        except ImportError:
            return []
        by_step: dict[int, dict[str, float]] = {}
        for run_dir in {p.parent for p in self.root.rglob("events.out.tfevents.*")}:
            acc = EventAccumulator(str(run_dir), size_guidance={"scalars": 0})
            acc.Reload()
            for tag in acc.Tags().get("scalars", []):
                for ev in acc.Scalars(tag):
                    key = (str(run_dir), tag, ev.step)
                    if key not in self.seen:
                        self.seen.add(key)
                        by_step.setdefault(ev.step, {})[tag] = float(ev.value)
        return sorted(by_step.items())


class HubReporter:
    """The run on every hub: start, metrics, end. A hub that fails is skipped, never the training."""

    def __init__(self, hubs: Sequence[str], token: str | None) -> None:
        self.clients = [HubClient(u, token, client="prove-train", retries=2, backoff=0.1) for u in hubs]
        self.run: str | None = None

    async def _each(self, method: str, *args: Any) -> list[Any]:
        results = []
        for c in self.clients:
            try:
                results.append(await getattr(c, method)(*args))
            except HubError as exc:
                log.warning("reporting to %s failed: %s", c.url, exc)
        return results

    async def start(self, name: str, config: dict[str, Any]) -> str | None:
        for c in self.clients:
            try:
                self.run = await c.run_start(name, config, run=self.run)
            except HubError as exc:
                log.warning("reporting to %s failed: %s", c.url, exc)
        return self.run

    async def metrics(self, step: int, values: dict[str, float]) -> None:
        if self.run and values:
            await self._each("run_metrics", self.run, step, values)

    async def end(self, status: str) -> None:
        if self.run:
            await self._each("run_end", self.run, status)
        for c in self.clients:
            await c.close()


async def run_training(
    p: Plan,
    hubs: Sequence[str],
    token: str | None,
    sources: Sequence[Any],
    poll_s: float = 10.0,
    config: dict[str, Any] | None = None,
    ray_dashboard: str | None = None,
) -> int:
    """Run the trainer (locally, or as a job on a Ray cluster) with the agent's run config, forwarding
    metrics until it exits."""
    reporter = HubReporter(hubs, token)
    await reporter.start(p.run_name, config or {})
    if reporter.run:  # the rollouts tag their groups with the run
        p.agent_config["run"] = reporter.run
        write_agent(p.job, p.agent_config, p.run_name)
        p.env = agent_env(p.agent_config)
    code = 1
    try:
        if ray_dashboard:
            code = await run_job(p, ray_dashboard, sources, reporter, poll_s)
        else:
            code = await run_local(p, sources, reporter, poll_s)
    finally:
        await forward(sources, reporter)
        await reporter.end("finished" if code == 0 else "failed")
    return code


async def run_local(p: Plan, sources: Sequence[Any], reporter: HubReporter, poll_s: float) -> int:
    env = {**os.environ, **p.env, **({"RAY_ADDRESS": p.ray_address} if p.ray_address else {})}
    proc = await asyncio.create_subprocess_exec(*p.command, env=env)
    wait = asyncio.ensure_future(proc.wait())
    try:
        while not (await asyncio.wait({wait}, timeout=poll_s))[0]:
            await forward(sources, reporter)
    finally:
        if proc.returncode is None:
            proc.terminate()
            await proc.wait()
    return int(proc.returncode or 0)


def job_runtime_env(p: Plan) -> dict[str, Any]:
    """The job's directory (prompts, run config, agent file) as every worker's working directory, and the
    settings as environment variables of every worker (``env_vars`` merge with train_ppo_ray's own)."""
    env = {k: v for k, v in p.env.items() if k != "PROVE_HUB_TOKEN"}  # the token stays in the private run config
    return {"working_dir": str(p.job), "env_vars": {**env, "PROVE_AGENT_CONFIG": CONFIG_NAME}}


async def run_job(p: Plan, dashboard: str, sources: Sequence[Any], reporter: HubReporter, poll_s: float) -> int:
    """Submit the trainer as a Ray job (like ``ray job submit``), print its log and wait for it."""
    from ray.job_submission import JobStatus, JobSubmissionClient

    client = JobSubmissionClient(dashboard)
    job_id = client.submit_job(
        entrypoint=shlex.join(p.command),
        runtime_env=job_runtime_env(p),
        metadata={"prove_run": reporter.run or "", "name": p.run_name},
    )
    log.info("submitted Ray job %s to %s", job_id, dashboard)

    async def tail() -> None:
        async for chunk in client.tail_job_logs(job_id):
            sys.stdout.write(chunk)
            sys.stdout.flush()

    tailing = asyncio.ensure_future(tail())
    try:
        while not (await asyncio.wait({tailing}, timeout=poll_s))[0]:
            await forward(sources, reporter)
    except BaseException:
        client.stop_job(job_id)
        raise
    status = client.get_job_status(job_id)
    log.info("Ray job %s: %s", job_id, status)
    return 0 if status == JobStatus.SUCCEEDED else 1


async def forward(sources: Sequence[Any], reporter: HubReporter) -> None:
    for source in sources:
        for step, values in source.poll():
            await reporter.metrics(step, values)


# Command line -----------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="prove-train", description="GRPO with OpenRLHF against PROVE hubs.")
    p.add_argument("--hub", action="append", default=None, metavar="URL", help="hub URL (repeatable); default local")
    p.add_argument("--token", default=os.environ.get("HUB_TOKEN"), help="hubs' bearer token (default $HUB_TOKEN)")
    p.add_argument("--ray-hubs", type=int, default=0, help="start this many hubs as Ray actors instead of --hub")
    p.add_argument(
        "--ray-address",
        default=None,
        metavar="HOST:PORT",
        help="an existing Ray cluster (what `ray start --head` prints): the trainer runs there as a "
        "Ray job, and --ray-hubs start there",
    )
    p.add_argument(
        "--ray-dashboard",
        default=None,
        metavar="URL",
        help="the cluster's job server (default http://HOST:8265 of --ray-address)",
    )
    p.add_argument("--model", required=True, help="HF model name or path (its family picks the learning rate)")
    p.add_argument("--lr", type=float, default=None, help="override the per-family learning rate")
    p.add_argument("--group-size", type=int, default=16, help="samples per prompt (GRPO group; paper 16)")
    p.add_argument("--batch-size", type=int, default=16, help="prompts per step (paper 16)")
    p.add_argument("--kl", type=float, default=0.01, help="KL coefficient (paper 0.01)")
    p.add_argument(
        "--steps",
        type=int,
        default=350,
        help="optimizer steps (paper 350): steps x batch-size prompts, drawn in shuffled passes",
    )
    p.add_argument("--max-steps", type=int, default=10, help="model messages per rollout (paper 10)")
    p.add_argument("--max-len", type=int, default=28768, help="prompt + response tokens (paper 12,384 + 16,384)")
    p.add_argument(
        "--max-new-tokens", type=int, default=None, help="tokens per model turn (default: what still fits in --max-len)"
    )
    p.add_argument("--temperature", type=float, default=1.0)
    p.add_argument("--split", choices=("train", "test", "all"), default="train")
    p.add_argument(
        "--reward",
        choices=("outcome", "paper"),
        default="outcome",
        help="reward preset the hubs score rollouts with (paper: the paper's formula exactly)",
    )
    p.add_argument("--kind", choices=("mcp", "clarify", "abstain"), default=None)
    p.add_argument("--gpus", type=int, default=8, help="GPUs per node")
    p.add_argument("--nodes", type=int, default=1)
    p.add_argument("--tp", type=int, default=2, help="vLLM tensor parallelism (paper 2)")
    p.add_argument("--vllm-engines", type=int, default=None, help="vLLM engines per node (default gpus / tp)")
    p.add_argument("--vllm-memory", type=float, default=0.6, help="vLLM gpu_memory_utilization")
    p.add_argument("--zero-stage", type=int, default=3)
    p.add_argument("--save-steps", type=int, default=50)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--name", default="prove-grpo", help="run name (dashboard, TensorBoard)")
    p.add_argument("--output", default="runs/prove-grpo", help="prompts, checkpoints, TensorBoard logs")
    p.add_argument("--metrics-file", default=None, help="also forward JSONL metrics from this file")
    p.add_argument("--poll", type=float, default=10.0, help="seconds between metric forwards")
    p.add_argument("--python", default=sys.executable, help=argparse.SUPPRESS)
    p.add_argument("--dry-run", action="store_true", help="print the command and environment, run nothing")
    p.add_argument("extra", nargs=argparse.REMAINDER, help="after --: more train_ppo_ray flags")
    return p


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    args = build_parser().parse_args(argv)
    args.extra = [a for a in args.extra if a != "--"] if args.extra else []
    for name in ("group_size", "batch_size", "steps", "gpus", "tp", "nodes", "max_steps", "max_new_tokens"):
        if name == "max_new_tokens" and args.max_new_tokens is None:
            continue
        if getattr(args, name) < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be at least 1")
    if args.group_size < 2:
        raise ValueError("--group-size must be at least 2: group_norm needs a group")
    return args


def ray_dashboard(args: argparse.Namespace) -> str | None:
    if not args.ray_address:
        return None
    if args.ray_dashboard:
        return str(args.ray_dashboard)
    host = args.ray_address.split("://", 1)[-1].rsplit(":", 1)[0]
    return f"http://{host}:8265"


def resolve_hubs(args: argparse.Namespace) -> tuple[list[str], Any]:
    if args.ray_hubs:
        from trainer_client.ray_hubs import start_hubs

        fleet = start_hubs(args.ray_hubs, token=args.token, address=args.ray_address)
        return fleet.urls, fleet
    return check_hubs(args.hub or ["http://127.0.0.1:8765"], args.token), None


def describe(p: Plan, args: argparse.Namespace, hubs: Sequence[str]) -> str:
    lr_from = f"the {p.family} family" if p.family and p.family != "--lr" else ("--lr" if p.family else "the default")
    rows = p.steps * args.batch_size
    return (
        f"prove-train: {p.tasks} {args.split} tasks -> {rows} prompts in {p.prompts}; {p.steps} optimizer steps "
        f"of {args.batch_size} prompts x {args.group_size} samples (OpenRLHF scheduler max_steps {p.max_steps}); "
        f"lr {p.lr:g} ({lr_from}); reward preset {args.reward}; {len(hubs)} hub(s); run config {p.job / CONFIG_NAME}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="prove-train: %(message)s")
    fleet = None
    try:
        args = parse(argv)
        hubs, fleet = resolve_hubs(args)
        tasks = training_tasks(asyncio.run(fetch_tasks(hubs[0], args.token)), args.split, args.kind)
        if not tasks:
            raise ValueError(f"the hub has no task in split {args.split!r}")
        check_tasks(hubs, args.token, [t["id"] for t in tasks])
        p = plan(args, hubs, tasks)
        if fleet is not None and not args.ray_address:
            p.ray_address = fleet.address  # one cluster: the trainer joins the hubs' Ray
    except (ValueError, RuntimeError, HubError, ImportError) as exc:
        print(f"prove-train: {exc}", file=sys.stderr)
        if fleet is not None:
            fleet.shutdown()
        return 2
    print(describe(p, args, hubs), file=sys.stderr)
    if p.max_steps != p.steps:  # the schedule would not match the steps run; never expected
        print(f"prove-train: OpenRLHF would schedule {p.max_steps} steps, not {p.steps}", file=sys.stderr)
        return 2
    if args.dry_run:
        if args.ray_address:
            print(f"# Ray job on {ray_dashboard(args)}, runtime_env: {json.dumps(job_runtime_env(p))}")
        print(" ".join(f"{k}={shlex.quote(v)}" for k, v in p.env.items() if k != "PROVE_HUB_TOKEN") + " \\")
        print(" ".join(shlex.quote(c) for c in p.command))
        if fleet is not None:
            fleet.shutdown()
        return 0
    sources: list[Any] = [TensorBoardMetrics(p.tensorboard_dir)]
    if args.metrics_file:
        sources.append(JsonlMetrics(Path(args.metrics_file)))
    config = {
        "model": args.model,
        "lr": p.lr,
        "group_size": args.group_size,
        "batch_size": args.batch_size,
        "kl": args.kl,
        "steps": args.steps,
        "split": args.split,
        "tasks": p.tasks,
        "hubs": hubs,
        "reward": args.reward,
    }
    try:
        return asyncio.run(run_training(p, hubs, args.token, sources, args.poll, config, ray_dashboard(args)))
    finally:
        if fleet is not None:
            fleet.shutdown()


if __name__ == "__main__":
    sys.exit(main())
