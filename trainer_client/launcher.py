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
import shutil
import subprocess
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

PACKAGE = Path(__file__).resolve().parent
AGENT_FILE = PACKAGE / "openrlhf_agent.py"
WIRE_FILE = PACKAGE.parent / "hub" / "wire.py"
# OpenRLHF's train_ppo_ray with the job's additions (trainer_client.openrlhf_run: no flash-attn or nvcc needed,
# metrics to the hubs from inside the run)
TRAINER = ("-m", "trainer_client.openrlhf_run")
# what the job's workers import that OpenRLHF's own stack may lack (the client's pure requirements)
JOB_PIP = ("websockets>=14,<18", "pydantic>=2.10,<3")

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
    output: str  # checkpoints and TensorBoard logs: a local path, or (on a cluster) the cluster's path or URI
    run_name: str
    job: Path
    agent: Path
    agent_config: dict[str, Any]
    steps: int
    max_steps: int
    ray_address: str | None = None  # the Ray cluster the local trainer joins (the one --ray-hubs started)
    modules: list[Path] | None = None  # what a cluster's workers import from here (py_modules)
    pip: tuple[str, ...] = JOB_PIP  # a cluster job's pip requirements
    extra_modules: tuple[str, ...] = ()  # more py_modules for a cluster job (--ray-py-module)


@dataclass(frozen=True)
class Placement:
    """Where the models go: GPUs per node for the actor (and its colocated reference), vLLM engines in all."""

    actor_gpus: int
    engines: int


def placement(args: argparse.Namespace) -> Placement:
    """The GPUs checked against tensor parallelism and OpenRLHF 0.11.2's placement rules, before anything runs.

    Synchronous training colocates everything (``--train.colocate_all``): the engines fill exactly the actor's
    GPUs (``num_engines x tensor_parallel_size == nodes x gpus``, asserted by ``train_ppo_ray``). Asynchronous
    training colocates only the actor and its reference; the vLLM engines need GPUs of their own, taken from
    each node's share."""
    gpus, tp, nodes = args.gpus, args.tp, args.nodes
    if tp > gpus:
        raise ValueError(
            f"--tp {tp} needs {tp} GPUs per vLLM engine but a node has --gpus {gpus}: pass --tp {gpus} or fewer "
            "(tensor parallelism stays within a node), or more GPUs"
        )
    if not args.async_train:
        if gpus % tp:
            raise ValueError(f"--gpus {gpus} is not a multiple of --tp {tp}: the colocated engines must fill the GPUs")
        engines = args.vllm_engines or gpus // tp
        if engines * tp != gpus:
            raise ValueError(
                f"--vllm-engines {engines} x --tp {tp} = {engines * tp} GPUs, but colocated training puts the "
                f"engines on the actor's {gpus} GPUs per node: they must be equal"
            )
        return Placement(gpus, engines * nodes)
    engines = args.vllm_engines or max(1, gpus * nodes // (2 * tp))
    actor_total = gpus * nodes - engines * tp
    if actor_total < nodes or actor_total % nodes:
        raise ValueError(
            f"asynchronous training gives the {engines} vLLM engine(s) x --tp {tp} GPUs of their own; the "
            f"{actor_total} left of {gpus} x {nodes} do not split evenly over {nodes} node(s) for the actor: "
            "change --vllm-engines, --tp or --gpus"
        )
    return Placement(actor_total // nodes, engines)


def check_batches(args: argparse.Namespace, where: Placement) -> None:
    """``train_ppo_ray``'s rule: a rollout batch has at least one micro-batch per actor process."""
    micro = int(_extra_value(args.extra, "--rollout.micro_batch_size") or 1)
    actors = args.nodes * where.actor_gpus
    if args.group_size * args.batch_size // micro < actors:
        raise ValueError(
            f"{args.batch_size} prompts x {args.group_size} samples / micro-batch {micro} is fewer micro-batches "
            f"than the {actors} actor processes: raise --batch-size or --group-size"
        )


def _extra_value(extra: Sequence[str], flag: str) -> str | None:
    for i, arg in enumerate(extra):
        if arg == flag and i + 1 < len(extra):
            return extra[i + 1]
        if arg.startswith(flag + "="):
            return arg.split("=", 1)[1]
    return None


def build_command(
    args: argparse.Namespace, prompts: Path | str, agent: Path | str, rows: int, lr: float, out: str
) -> list[str]:
    """``python -m trainer_client.openrlhf_run ...``: OpenRLHF 0.11.2's ``train_ppo_ray`` flags."""
    n, batch = args.group_size, args.batch_size
    where = placement(args)
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
        str(where.actor_gpus),
        "--ref.num_nodes",
        str(args.nodes),
        "--ref.num_gpus_per_node",
        str(where.actor_gpus),
        "--vllm.num_engines",
        str(where.engines),
        "--vllm.tensor_parallel_size",
        str(args.tp),
        "--vllm.gpu_memory_utilization",
        str(args.vllm_memory),
        "--vllm.enable_prefix_caching",
        *(
            ["--train.colocate_all", "--vllm.enable_sleep"]
            if not args.async_train
            else [
                "--train.colocate_actor_ref",
                "--train.async_enable",
                "--train.async_queue_size",
                str(args.async_queue),
            ]
        ),
        *(["--train.partial_rollout_enable"] if args.partial_rollout else []),
        "--algo.advantage.is_correction_level",
        args.is_correction,
        *(
            [
                "--algo.advantage.is_correction_mode",
                args.is_mode,
                "--algo.advantage.is_correction_gating",
                args.is_gating,
                "--algo.advantage.is_correction_threshold",
                *[f"{t:g}" for t in args.is_threshold],
            ]
            if args.is_correction != "off"
            else []
        ),
        "--ds.zero_stage",
        str(args.zero_stage),
        "--actor.gradient_checkpointing_enable",
        "--ds.param_dtype",
        "bf16",
        "--train.seed",
        str(args.seed),
        "--ckpt.path",
        join_path(out, "ckpt"),
        "--ckpt.output_dir",
        join_path(out, "final"),
        "--ckpt.save_steps",
        str(args.save_steps),
        "--logger.tensorboard_dir",
        join_path(out, "tensorboard"),
        "--logger.wandb.run_name",
        args.name,
    ]
    if args.max_new_tokens:
        cmd += ["--rollout.max_new_tokens", str(args.max_new_tokens)]
    return cmd + list(args.extra)


def join_path(base: str, name: str) -> str:
    """``base/name`` for a local path, a cluster path or an object-store URI (``s3://bucket/run``)."""
    return base.rstrip("/") + "/" + name


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
        "thinking_history": args.thinking_history,
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
        ("PROVE_THINKING_HISTORY", "thinking_history"),
    ):
        if config.get(name):
            env[key] = str(config[name])
    if config.get("reward"):
        env["PROVE_REWARD"] = config["reward"]["preset"]
    return env


def output_of(args: argparse.Namespace) -> str:
    """Where checkpoints and logs go. Locally a path made absolute here; on a cluster (``--ray-address``) the
    path as the cluster's nodes see it (shared storage) or an object-store URI, used as given: a relative path
    there would land in the job's temporary working directory and vanish with it, so it is refused."""
    if not args.ray_address:
        return str(Path(args.output).resolve())
    if "://" not in args.output and not args.output.startswith("/"):
        raise ValueError(
            f"--output {args.output!r} is relative: on a cluster, give the path where its nodes keep checkpoints "
            "and logs (shared storage, e.g. /mnt/shared/runs/NAME) or an object-store URI"
        )
    return str(args.output)


def job_dir_of(args: argparse.Namespace) -> Path:
    """The job's directory here: next to the outputs locally; for a cluster job, ``--job-dir`` (default
    ``runs/NAME/job``), whose files the job carries to the cluster."""
    if args.job_dir:
        return Path(args.job_dir).resolve()
    return Path(args.output).resolve() / "job" if not args.ray_address else Path("runs", args.name, "job").resolve()


def stage_modules(job: Path) -> list[Path]:
    """What the cluster's workers import from this checkout, copied beside the job directory for Ray's
    ``py_modules``: the ``trainer_client`` package and a ``hub`` package holding only the wire (a leaf module)."""
    root = job.parent / "modules"
    shutil.rmtree(root, ignore_errors=True)
    client = root / "trainer_client"
    shutil.copytree(PACKAGE, client, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    hub = root / "hub"
    hub.mkdir()
    (hub / "__init__.py").write_text("")
    shutil.copy2(WIRE_FILE, hub / "wire.py")
    return [client, hub]


def plan(args: argparse.Namespace, hubs: Sequence[str], tasks: Sequence[dict[str, Any]]) -> Plan:
    out = output_of(args)
    job = job_dir_of(args)
    lr, family = (args.lr, "--lr") if args.lr else family_lr(args.model)
    rows = draw_rows(tasks, args.steps, args.batch_size, args.seed)
    prompts = export_prompts(rows, job / f"prompts-{args.split}.jsonl")
    config = agent_config(hubs, args.token, args)
    # on a cluster the job directory is every worker's working directory (relative paths reach them), and the
    # token travels in the job's runtime environment, not in a file it uploads
    local = not args.ray_address
    agent = write_agent(job, config if local else {**config, "token": None}, args.name)
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
        out,
        args.name,
        job,
        agent,
        config,
        args.steps,
        max_steps,
        modules=None if local else stage_modules(job),
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
        await self.close()

    async def close(self) -> None:
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
    detach: bool = False,
) -> int:
    """Run the trainer (locally, or as a job on a Ray cluster) with the agent's run config, forwarding
    metrics until it exits."""
    reporter = HubReporter(hubs, token)
    await reporter.start(p.run_name, config or {})
    if reporter.run:  # the rollouts tag their groups with the run; the job reports its metrics to it
        p.agent_config["run"] = reporter.run
        written = p.agent_config if not p.modules else {**p.agent_config, "token": None}
        write_agent(p.job, written, p.run_name)
        p.env = agent_env(p.agent_config)
    code = 1
    try:
        if ray_dashboard:
            code = await run_job(p, ray_dashboard, sources, reporter, poll_s, detach)
        else:
            code = await run_local(p, sources, reporter, poll_s)
    finally:
        await forward(sources, reporter)
        if not detach:
            await reporter.end("finished" if code == 0 else "failed")
        else:
            await reporter.close()
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


def job_runtime_env(p: Plan, pip: Sequence[str] = JOB_PIP, extra_modules: Sequence[str] = ()) -> dict[str, Any]:
    """What a cluster job carries: the job's directory (prompts, run config, agent file) as every worker's
    working directory; the code the workers import (``trainer_client`` and the wire, ``py_modules``, plus
    ``extra_modules``); the client's pure requirements (``pip``, installed over the cluster's environment,
    which keeps what it already has); and the settings, hub URLs and token included, as environment
    variables of every process of the job (they merge with ``train_ppo_ray``'s own)."""
    env = {**p.env, "PROVE_AGENT_CONFIG": CONFIG_NAME}
    runtime: dict[str, Any] = {
        "working_dir": str(p.job),
        "py_modules": [str(m) for m in (p.modules or [])] + [str(Path(m).resolve()) for m in extra_modules],
        "excludes": ["__pycache__", "*.pyc"],
        "env_vars": env,
    }
    if pip:
        runtime["pip"] = {"packages": list(pip), "pip_check": False}
    return runtime


def shown(runtime: dict[str, Any]) -> dict[str, Any]:
    """The runtime environment as printed: the token hidden."""
    env = {k: ("***" if k == "PROVE_HUB_TOKEN" else v) for k, v in runtime.get("env_vars", {}).items()}
    return {**runtime, "env_vars": env}


async def run_job(
    p: Plan, dashboard: str, sources: Sequence[Any], reporter: HubReporter, poll_s: float, detach: bool = False
) -> int:
    """Submit the trainer as a Ray job (like ``ray job submit``), print its log and wait for it (or, with
    ``detach``, leave it running: it reports its metrics and its end to the hubs itself)."""
    from ray.job_submission import JobStatus, JobSubmissionClient

    client = JobSubmissionClient(dashboard)
    job_id = client.submit_job(
        entrypoint=shlex.join(p.command),
        runtime_env=job_runtime_env(p, p.pip, p.extra_modules),
        metadata={"prove_run": reporter.run or "", "name": p.run_name},
    )
    log.info("submitted Ray job %s to %s", job_id, dashboard)
    if detach:
        print(f"prove-train: Ray job {job_id} runs on; follow it with: ray job logs -f {job_id} --address {dashboard}")
        return 0

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
    if tailing.exception() is not None:  # the log stream broke off: the job's status still says how it ended
        log.warning("following the job's log failed: %s", tailing.exception())
        while not client.get_job_status(job_id).is_terminal():
            await asyncio.sleep(poll_s)
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
    p.add_argument(
        "--job-dir",
        default=None,
        help="the job's directory here (prompts, run config, agent file; default OUTPUT/job, or runs/NAME/job "
        "for a cluster job, which carries it to the cluster)",
    )
    p.add_argument(
        "--ray-py-module",
        action="append",
        default=[],
        metavar="PATH",
        help="a cluster job also carries this package directory, .py file or wheel to its workers (repeatable)",
    )
    p.add_argument(
        "--ray-pip",
        action="append",
        default=None,
        metavar="REQ",
        help="the cluster job's pip requirements, installed over the cluster's environment (repeatable; default: "
        f"the client's own, {' '.join(JOB_PIP)}; 'none' for none)",
    )
    p.add_argument(
        "--detach", action="store_true", help="submit the cluster job and return; it reports to the hubs itself"
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
    p.add_argument(
        "--vllm-engines",
        type=int,
        default=None,
        help="vLLM engines (synchronous: per node, default gpus / tp; asynchronous: in all, default half the GPUs)",
    )
    p.add_argument(
        "--async",
        dest="async_train",
        action="store_true",
        help="asynchronous training (--train.async_enable): rollouts run ahead of training on GPUs of their own",
    )
    p.add_argument(
        "--async-queue",
        type=int,
        default=1,
        help="the staleness bound: rollout batches generated ahead of the policy (--train.async_queue_size)",
    )
    p.add_argument(
        "--partial-rollout",
        action="store_true",
        help="with --async, generation goes on during weight sync (--train.partial_rollout_enable)",
    )
    p.add_argument(
        "--is-correction",
        choices=("off", "token", "seq"),
        default="off",
        help="importance-sampling correction of the rollout/train policy mismatch "
        "(--algo.advantage.is_correction_level; turn it on with --async)",
    )
    p.add_argument("--is-mode", choices=("mask", "clip"), default="mask", help="--algo.advantage.is_correction_mode")
    p.add_argument(
        "--is-gating",
        choices=("ratio", "binary_kl", "tv"),
        default="ratio",
        help="--algo.advantage.is_correction_gating",
    )
    p.add_argument(
        "--is-threshold",
        type=float,
        nargs="+",
        default=[0.5, 5.0],
        metavar="BOUND",
        help="LOW HIGH, or HIGH alone (--algo.advantage.is_correction_threshold; default 0.5 5)",
    )
    p.add_argument(
        "--thinking-history",
        choices=("keep", "strip"),
        default=None,
        help="earlier turns' <think> blocks in later turns' context; training keeps them (one growing token sequence "
        "per sample), so only keep is accepted; evaluate with prove-hub eval --thinking-history keep",
    )
    p.add_argument("--vllm-memory", type=float, default=0.6, help="vLLM gpu_memory_utilization")
    p.add_argument("--zero-stage", type=int, default=3)
    p.add_argument("--save-steps", type=int, default=50)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--name", default="prove-grpo", help="run name (dashboard, TensorBoard)")
    p.add_argument("--output", default="runs/prove-grpo", help="prompts, checkpoints, TensorBoard logs")
    p.add_argument("--metrics-file", default=None, help="also forward JSONL metrics from this file")
    p.add_argument("--poll", type=float, default=10.0, help="seconds between metric forwards")
    p.add_argument("--python", default=None, help=argparse.SUPPRESS)
    p.add_argument("--dry-run", action="store_true", help="print the command and environment, run nothing")
    p.add_argument("extra", nargs=argparse.REMAINDER, help="after --: more train_ppo_ray flags")
    return p


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    args = build_parser().parse_args(argv)
    args.extra = [a for a in args.extra if a != "--"] if args.extra else []
    # a cluster job runs the cluster's python (its environment holds OpenRLHF), never this machine's path
    args.python = args.python or ("python" if args.ray_address else sys.executable)
    if args.thinking_history == "strip":
        raise ValueError(
            "--thinking-history strip: OpenRLHF 0.11.2 trains each sample as one growing token sequence, so an "
            "earlier turn's <think> block cannot leave the context; train with keep (the default) and evaluate "
            "with prove-hub eval --thinking-history keep and a chat template that keeps it (vLLM serve --chat-template)"
        )
    if args.partial_rollout and not args.async_train:
        raise ValueError("--partial-rollout needs --async")
    if args.async_queue < 1:
        raise ValueError("--async-queue must be at least 1")
    if not 1 <= len(args.is_threshold) <= 2:
        raise ValueError("--is-threshold takes HIGH, or LOW HIGH")
    pip = args.ray_pip if args.ray_pip is not None else list(JOB_PIP)
    args.ray_pip = [] if pip == ["none"] else pip
    for name in ("group_size", "batch_size", "steps", "gpus", "tp", "nodes", "max_steps", "max_new_tokens"):
        if name == "max_new_tokens" and args.max_new_tokens is None:
            continue
        if getattr(args, name) < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be at least 1")
    if args.group_size < 2:
        raise ValueError("--group-size must be at least 2: group_norm needs a group")
    check_batches(args, placement(args))  # before any hub or GPU is touched
    return args


def local_gpus() -> int | None:
    """GPUs on this machine (``nvidia-smi -L``), or None where that cannot be told."""
    if not shutil.which("nvidia-smi"):
        return None
    try:
        listed = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return sum(line.startswith("GPU ") for line in listed.stdout.splitlines()) if listed.returncode == 0 else None


def check_local_gpus(args: argparse.Namespace, found: int | None) -> None:
    """A run on this machine (one node) needs its GPUs here; a cluster job is checked by its placement."""
    if args.ray_address or args.ray_hubs or found is None:
        return
    if args.nodes > 1:
        raise ValueError(f"--nodes {args.nodes} needs a Ray cluster: give --ray-address")
    if found < args.gpus:
        raise ValueError(
            f"--gpus {args.gpus} but this machine has {found} GPU(s): pass --gpus {found} (and a --tp that fits)"
        )


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
    p.pip, p.extra_modules = tuple(args.ray_pip), tuple(args.ray_py_module)
    if args.dry_run:
        if args.ray_address:
            runtime = shown(job_runtime_env(p, p.pip, p.extra_modules))
            print(f"# Ray job on {ray_dashboard(args)}, runtime_env: {json.dumps(runtime)}")
        print(" ".join(f"{k}={shlex.quote(v)}" for k, v in p.env.items() if k != "PROVE_HUB_TOKEN") + " \\")
        print(" ".join(shlex.quote(c) for c in p.command))
        if fleet is not None:
            fleet.shutdown()
        return 0
    try:
        check_local_gpus(args, local_gpus())
    except ValueError as exc:
        print(f"prove-train: {exc}", file=sys.stderr)
        return 2
    # the job sends OpenRLHF's metrics to the hubs itself (trainer_client.openrlhf_run); a file of JSONL metric
    # lines from another trainer is forwarded from here
    sources: list[Any] = [JsonlMetrics(Path(args.metrics_file))] if args.metrics_file else []
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
        "async": args.async_train,
        "async_queue": args.async_queue if args.async_train else None,
        "is_correction": args.is_correction,
        "thinking_history": args.thinking_history,
    }
    try:
        return asyncio.run(
            run_training(p, hubs, args.token, sources, args.poll, config, ray_dashboard(args), args.detach)
        )
    finally:
        if fleet is not None:
            fleet.shutdown()


if __name__ == "__main__":
    sys.exit(main())
