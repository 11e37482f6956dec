"""``prove-train``: GRPO with OpenRLHF 0.11 against one or more PROVE hubs.

    prove-train --hub http://127.0.0.1:8765 --model Qwen/Qwen3-4B-Instruct-2507 --gpus 8
    prove-train --hub ws://hub-a:8765/ws --hub ws://hub-b:8765/ws --token $HUB_TOKEN --model ... --dry-run
    prove-train --ray-hubs 4 --model ...          # start 4 hubs as Ray actors (trainer_client.ray_hubs)

Steps: check every hub (``GET /healthz``; a dead one is dropped with a warning), export the task
split in OpenRLHF's prompt format (``{"input": <first user turn>, "label": <task id>}``; the agent
file renders the real prompt from the hub, tools included), build the ``train_ppo_ray`` command
(``--algo.advantage.estimator group_norm``, ``--rollout.n_samples_per_prompt N``,
``--train.agent_func_path trainer_client/openrlhf_agent.py``) with the paper's settings (group 16,
batch 16, KL 0.01 as a k3 loss, learning rate per model family, 350 steps, rollouts capped at 10
model messages), and run it with the agent's configuration in its environment. ``--dry-run`` prints
the command and the environment instead.

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
import math
import os
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


def prompt_rows(tasks: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenRLHF prompt rows: ``input`` (the first user turn, for people and length filters) and
    ``label`` (the task id: the agent opens that task on a hub and renders the real prompt)."""
    return [{"input": t["turns"][0]["user"], "label": t["id"], "kind": t.get("kind", "mcp"),
             "servers": t.get("servers", [])} for t in tasks]


def export_prompts(tasks: Sequence[dict[str, Any]], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in prompt_rows(tasks)))
    return path


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


def build_command(args: argparse.Namespace, prompts: Path, n_tasks: int, lr: float, out: Path) -> list[str]:
    """``python -m openrlhf.cli.train_ppo_ray ...`` (flag names as in OpenRLHF 0.11.2)."""
    n, batch = args.group_size, args.batch_size
    episodes = max(1, math.ceil(args.steps * batch / max(1, n_tasks)))
    engines = args.vllm_engines or max(1, args.gpus // args.tp)
    cmd = [args.python, *TRAINER,
           "--actor.model_name_or_path", args.model,
           "--data.prompt_dataset", str(prompts),
           "--data.input_key", "input",
           "--data.label_key", "label",
           "--train.agent_func_path", str(AGENT_FILE),
           "--algo.advantage.estimator", "group_norm",
           "--rollout.n_samples_per_prompt", str(n),
           "--rollout.batch_size", str(batch),
           "--train.batch_size", str(batch * n),
           "--train.num_episodes", str(episodes),
           "--algo.kl.init_coef", str(args.kl),
           "--algo.kl.use_loss",
           "--algo.kl.estimator", "k3",
           "--actor.adam.lr", f"{lr:g}",
           "--rollout.temperature", str(args.temperature),
           "--data.max_len", str(args.max_len),
           "--actor.num_nodes", str(args.nodes),
           "--actor.num_gpus_per_node", str(args.gpus),
           "--ref.num_nodes", str(args.nodes),
           "--ref.num_gpus_per_node", str(args.gpus),
           "--vllm.num_engines", str(engines * args.nodes),
           "--vllm.tensor_parallel_size", str(args.tp),
           "--vllm.gpu_memory_utilization", str(args.vllm_memory),
           "--train.colocate_all",
           "--vllm.enable_sleep",
           "--ds.zero_stage", str(args.zero_stage),
           "--actor.gradient_checkpointing_enable",
           "--ds.param_dtype", "bf16",
           "--train.seed", str(args.seed),
           "--ckpt.path", str(out / "ckpt"),
           "--ckpt.output_dir", str(out / "final"),
           "--ckpt.save_steps", str(args.save_steps),
           "--logger.tensorboard_dir", str(out / "tensorboard"),
           "--logger.wandb.run_name", args.name]
    if args.max_new_tokens:
        cmd += ["--rollout.max_new_tokens", str(args.max_new_tokens)]
    return cmd + list(args.extra)


def agent_env(hubs: Sequence[str], token: str | None, args: argparse.Namespace) -> dict[str, str]:
    """What the agent file reads in the rollout actors (``trainer_client.openrlhf_agent.AgentConfig``)."""
    env = {"PROVE_HUB_URLS": ",".join(hubs), "PROVE_GROUP_SIZE": str(args.group_size),
           "PROVE_MAX_STEPS": str(args.max_steps)}
    if token:
        env["PROVE_HUB_TOKEN"] = token
    return env


def plan(args: argparse.Namespace, hubs: Sequence[str], tasks: Sequence[dict[str, Any]]) -> Plan:
    out = Path(args.output).resolve()
    lr, family = (args.lr, "--lr") if args.lr else family_lr(args.model)
    prompts = export_prompts(tasks, out / f"prompts-{args.split}.jsonl")
    return Plan(build_command(args, prompts, len(tasks), lr, out), agent_env(hubs, args.token, args), prompts,
                len(tasks), lr, family, out / "tensorboard", args.name)


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
                self.run = str((await c.request({"type": "run_start", "name": name, "config": config,
                                                 **({"run": self.run} if self.run else {})}))["run"])
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


async def run_training(p: Plan, hubs: Sequence[str], token: str | None, sources: Sequence[Any],
                       poll_s: float = 10.0, config: dict[str, Any] | None = None) -> int:
    """Run the trainer with the agent's environment, forwarding metrics until it exits."""
    reporter = HubReporter(hubs, token)
    await reporter.start(p.run_name, config or {})
    env = {**os.environ, **p.env}
    if reporter.run:
        env["PROVE_RUN"] = reporter.run
    proc = await asyncio.create_subprocess_exec(*p.command, env=env)
    wait = asyncio.ensure_future(proc.wait())
    try:
        while True:
            done, _ = await asyncio.wait({wait}, timeout=poll_s)
            await forward(sources, reporter)
            if done:
                break
    finally:
        if proc.returncode is None:
            proc.terminate()
            await proc.wait()
        await forward(sources, reporter)
        await reporter.end("finished" if proc.returncode == 0 else "failed")
    return int(proc.returncode or 0)


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
    p.add_argument("--model", required=True, help="HF model name or path (its family picks the learning rate)")
    p.add_argument("--lr", type=float, default=None, help="override the per-family learning rate")
    p.add_argument("--group-size", type=int, default=16, help="samples per prompt (GRPO group; paper 16)")
    p.add_argument("--batch-size", type=int, default=16, help="prompts per step (paper 16)")
    p.add_argument("--kl", type=float, default=0.01, help="KL coefficient (paper 0.01)")
    p.add_argument("--steps", type=int, default=350, help="GRPO steps (paper 350)")
    p.add_argument("--max-steps", type=int, default=10, help="model messages per rollout (paper 10)")
    p.add_argument("--max-len", type=int, default=28768, help="prompt + response tokens (paper 12,384 + 16,384)")
    p.add_argument("--max-new-tokens", type=int, default=None, help="tokens per generation (default: what fits)")
    p.add_argument("--temperature", type=float, default=1.0)
    p.add_argument("--split", choices=("train", "test", "all"), default="train")
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
    for name in ("group_size", "batch_size", "steps", "gpus", "tp", "nodes", "max_steps"):
        if getattr(args, name) < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be at least 1")
    if args.group_size < 2:
        raise ValueError("--group-size must be at least 2: group_norm needs a group")
    return args


def resolve_hubs(args: argparse.Namespace) -> tuple[list[str], Any]:
    if args.ray_hubs:
        from trainer_client.ray_hubs import start_hubs

        fleet = start_hubs(args.ray_hubs, token=args.token)
        return fleet.urls, fleet
    return check_hubs(args.hub or ["http://127.0.0.1:8765"], args.token), None


def main(argv: Sequence[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="prove-train: %(message)s")
    try:
        args = parse(argv)
        hubs, fleet = resolve_hubs(args)
        tasks = training_tasks(asyncio.run(fetch_tasks(hubs[0], args.token)), args.split, args.kind)
        if not tasks:
            raise ValueError(f"the hub has no task in split {args.split!r}")
        p = plan(args, hubs, tasks)
    except (ValueError, RuntimeError, HubError, ImportError) as exc:
        print(f"prove-train: {exc}", file=sys.stderr)
        return 2
    lr_from = f"the {p.family} family" if p.family and p.family != "--lr" else ("--lr" if p.family else "the default")
    print(f"prove-train: {p.tasks} {args.split} tasks -> {p.prompts}; lr {p.lr:g} ({lr_from}); "
          f"{len(hubs)} hub(s)", file=sys.stderr)
    if args.dry_run:
        print(" ".join(f"{k}={shlex.quote(v)}" for k, v in p.env.items()) + " \\")
        print(" ".join(shlex.quote(c) for c in p.command))
        return 0
    sources: list[Any] = [TensorBoardMetrics(p.tensorboard_dir)]
    if args.metrics_file:
        sources.append(JsonlMetrics(Path(args.metrics_file)))
    config = {"model": args.model, "lr": p.lr, "group_size": args.group_size, "batch_size": args.batch_size,
              "kl": args.kl, "steps": args.steps, "split": args.split, "tasks": p.tasks, "hubs": hubs}
    try:
        return asyncio.run(run_training(p, hubs, args.token, sources, args.poll, config))
    finally:
        if fleet is not None:
            fleet.shutdown()


if __name__ == "__main__":
    sys.exit(main())
