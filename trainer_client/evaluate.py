"""``prove-hub eval``: score a policy on a task split through the hub's WebSocket protocol.

    prove-hub eval --endpoint http://127.0.0.1:8000/v1 --model Qwen/Qwen3-4B-Instruct-2507 --split test
    prove-hub eval --policy oracle --split all --json results.json      # the ground truth: the ceiling
    prove-hub eval --policy noop                                        # never calls a tool: the floor

The policy is any OpenAI-compatible chat endpoint (vLLM, SGLang, a hosted API: ``/chat/completions``
with ``tools``), or a built-in baseline: ``oracle`` replays each task's ground truth, ``noop`` answers
without a call. Every episode runs on the hub like a training rollout (open, step until done,
finish with the reward breakdown, close); with several ``--hub`` URLs, tasks are sharded across
them and a hub that dies fails only its own episodes. The report: success rate, mean reward and
every reward component, overall, per server and per task kind, as a table and as JSON.

Splits: the ``split`` stamped on each task at synthesis (stratified by server and kind); only a
task without a stamp falls back to a stable hash of its id (20% in ``test``), with a warning. The
launcher trains on ``train`` only (``training_tasks``): no test task ever reaches training.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import logging
import sys
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol, TextIO

import httpx

from hub import wire
from trainer_client.chat import strip_thinking
from trainer_client.hub_client import HubError
from trainer_client.hubs import HubDown, HubSet, NoHubAvailable

log = logging.getLogger("trainer_client.evaluate")

COMPONENTS = tuple(c.name for c in wire.COMPONENTS)
TEST_SHARE = 20  # percent of tasks without an explicit split that go to "test"
SPLITS = ("train", "test")


# Splits -----------------------------------------------------------------------------------------


def stamp_of(task: dict[str, Any]) -> str | None:
    """The split stamped on the task at synthesis (``split``; older files: ``meta["split"]``), or None."""
    for found in (task.get("split"), (task.get("meta") or {}).get("split")):
        if found in SPLITS:
            return str(found)
    return None


def hash_split(task_id: str) -> str:
    """The fallback for unstamped tasks: a stable hash of the id puts ``TEST_SHARE``% in ``test``."""
    bucket = int(hashlib.blake2b(task_id.encode(), digest_size=8).hexdigest(), 16) % 100
    return "test" if bucket < TEST_SHARE else "train"


def split_of(task: dict[str, Any]) -> str:
    return stamp_of(task) or hash_split(str(task["id"]))


def select_tasks(
    tasks: Sequence[dict[str, Any]],
    split: str = "all",
    kind: str | None = None,
    ids: Sequence[str] | None = None,
    limit: int | None = None,
) -> list[dict[str, Any]]:
    """The tasks of ``split`` (by their stamp; unstamped ones by the hash split, with one warning)."""
    if split != "all":
        unstamped = sum(stamp_of(t) is None for t in tasks)
        if unstamped:
            log.warning(
                "%d of %d tasks carry no split stamp; they are split %d/%d by a hash of their id, which "
                "need not match the split they were synthesized with (re-synthesize to stamp them)",
                unstamped,
                len(tasks),
                100 - TEST_SHARE,
                TEST_SHARE,
            )
    chosen = [
        t
        for t in tasks
        if (split == "all" or split_of(t) == split)
        and (kind is None or t.get("kind") == kind)
        and (not ids or t["id"] in ids)
    ]
    return chosen[:limit] if limit else chosen


def training_tasks(
    tasks: Sequence[dict[str, Any]], split: str = "train", kind: str | None = None
) -> list[dict[str, Any]]:
    """What ``prove-train`` may train on: never a test task (``all`` means every task outside ``test``)."""
    if split == "test":
        raise ValueError("prove-train never trains on the test split; use --split train")
    return select_tasks(tasks, "train", kind)


# Policies ---------------------------------------------------------------------------------------


class Policy(Protocol):
    name: str

    async def act(
        self, task: dict[str, Any], messages: list[dict[str, Any]], tools: list[dict[str, Any]], step: int
    ) -> dict[str, Any]:
        """The next assistant message (OpenAI form: ``content`` and/or ``tool_calls``)."""


class OraclePolicy:
    """Replays the ground truth: each turn's calls in one message, then an answer. The hub writes the script
    (``tasks`` with ``oracle``: the task's ``oracle`` messages), so the client needs nothing of the hub's code."""

    name = "oracle"
    needs_oracle = True

    async def act(
        self, task: dict[str, Any], messages: list[dict[str, Any]], tools: list[dict[str, Any]], step: int
    ) -> dict[str, Any]:
        script = task.get("oracle")
        if script is None:
            raise ValueError(f"task {task.get('id')!r} came without its oracle script (ask the hub with oracle=True)")
        return {"role": "assistant", "content": script[step] if step < len(script) else "Done."}


class NoopPolicy:
    """Never calls a tool."""

    name = "noop"

    async def act(
        self, task: dict[str, Any], messages: list[dict[str, Any]], tools: list[dict[str, Any]], step: int
    ) -> dict[str, Any]:
        return {"role": "assistant", "content": "I'm sorry, I can't help with that."}


class OpenAIPolicy:
    """Any OpenAI-compatible ``/chat/completions`` endpoint, given the tools as function schemas."""

    def __init__(
        self,
        endpoint: str,
        model: str,
        api_key: str | None = None,
        temperature: float = 0.0,
        max_tokens: int = 2048,
        timeout: float = 300.0,
        thinking_history: str | None = None,
    ) -> None:
        self.name = model
        self.thinking_history = thinking_history  # "strip": earlier turns go back without their <think> blocks
        self.url = endpoint.rstrip("/") + (
            "" if endpoint.rstrip("/").endswith("/chat/completions") else "/chat/completions"
        )
        self.model = model
        self.temperature = temperature
        self.max_tokens = max_tokens
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.http = httpx.AsyncClient(timeout=timeout, headers=headers)

    async def act(
        self, task: dict[str, Any], messages: list[dict[str, Any]], tools: list[dict[str, Any]], step: int
    ) -> dict[str, Any]:
        if self.thinking_history == "strip":
            messages = [
                {**m, "content": strip_thinking(m["content"])}
                if m.get("role") == "assistant" and isinstance(m.get("content"), str)
                else m
                for m in messages
            ]
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        if tools:
            body["tools"] = tools
        response = await self.http.post(self.url, json=body)
        if response.status_code != 200:
            raise EndpointError(f"{self.url} answered {response.status_code}: {response.text[:300]}")
        message = dict(response.json()["choices"][0]["message"])
        message["role"] = "assistant"
        return {k: v for k, v in message.items() if k in ("role", "content", "tool_calls") and v is not None} or {
            "role": "assistant",
            "content": "",
        }

    async def aclose(self) -> None:
        await self.http.aclose()


class EndpointError(RuntimeError):
    """The model endpoint failed (the evaluation stops: its results would be meaningless)."""


# Running ----------------------------------------------------------------------------------------


@dataclass
class EpisodeResult:
    task: str
    kind: str
    servers: list[str]
    hub: str
    total: float = 0.0
    components: dict[str, float] = field(default_factory=dict)
    success: bool = False
    failed: str | None = None
    steps: int = 0
    n_calls: int = 0
    normalized: float = 0.0  # total / the task's maximum under the preset
    preset: str | None = None  # the reward preset that scored it


def is_success(kind: str, reward: dict[str, Any]) -> bool:
    """Abstain: no call. Otherwise every ground-truth call matched, in order, with every argument value (that
    matters, under the outcome preset), the final state is the expected one where it is scored, and (clarify) the
    model asked instead of guessing."""
    comps = reward.get("components") or {}
    if reward.get("success") is not None:  # a suite's own verdict (BFCL's pass, tau2's reward of 1)
        return bool(reward["success"])
    if kind == "abstain":
        return float(reward.get("total", 0.0)) >= 1.0 - 1e-9
    ok = all(float(comps.get(c, 0.0)) >= 1.0 - 1e-9 for c in ("coverage", "argument"))
    ok = ok and float(comps.get("state", 1.0)) >= 1.0 - 1e-9
    if kind == "clarify":
        asked = float(comps.get("clarify", 0.0)) >= 1.0 - 1e-9
        return asked and (ok or int(reward.get("n_gt", 0)) == 0)
    return ok


async def run_group(
    hubs: HubSet,
    task: dict[str, Any],
    policy: Policy,
    samples: int,
    max_steps: int | None = None,
    max_calls_per_step: int | None = None,
    reward: dict[str, Any] | None = None,
) -> list[EpisodeResult]:
    """``samples`` episodes of one task (one hub group), each driven by ``policy`` to the end."""
    base = EpisodeResult(task["id"], task.get("kind", "mcp"), list(task.get("servers", [])), "")
    limits = {k: v for k, v in (("max_steps", max_steps), ("max_calls_per_step", max_calls_per_step)) if v}
    try:
        hub, group = await hubs.open_group(task["id"], samples, limits or None)
    except NoHubAvailable as exc:
        return [EpisodeResult(**{**asdict(base), "failed": str(exc)}) for _ in range(samples)]
    runs = [
        run_episode(hubs, hub, group.episodes[i], task, group.messages, group.tools, policy, reward)
        for i in range(len(group.episodes))
    ]
    results = list(await asyncio.gather(*runs))
    for r in results:
        r.hub = hub.url
    return results


async def run_episode(
    hubs: HubSet,
    hub: Any,
    episode: str,
    task: dict[str, Any],
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]],
    policy: Policy,
    config: dict[str, Any] | None = None,
) -> EpisodeResult:
    result = EpisodeResult(task["id"], task.get("kind", "mcp"), list(task.get("servers", [])), hub.url)
    history = [dict(m) for m in messages]
    try:
        done = False
        while not done:
            message = await policy.act(task, history, tools, result.steps)
            obs = await hubs.call(hub, "step", episode, message=message)
            result.steps += 1
            history += [message, *obs["messages"]]
            tools = obs.get("tools") or tools  # a turn that offers more tools sends the whole list
            done = bool(obs["done"])
        reward = await hubs.call(hub, "finish", episode, config)
        await hubs.call(hub, "close_episodes", [episode])
    except (HubDown, HubError) as exc:
        result.failed = str(exc)
        return result
    result.total = float(reward["total"])
    result.components = {k: float(v) for k, v in (reward.get("components") or {}).items() if v is not None}
    result.n_calls = int(reward.get("n_calls", 0))
    result.normalized = float(reward.get("normalized") or 0.0)
    result.preset = reward.get("preset")
    result.success = is_success(result.kind, reward)
    return result


async def list_tasks(hubs: HubSet, oracle: bool = False) -> list[dict[str, Any]]:
    """Every task (whole objects; with ``oracle``, each with its oracle script) from the first hub that answers."""
    for hub in hubs.alive:
        try:
            return list(await hubs.call(hub, "tasks", None, True, oracle))
        except HubDown:
            continue
    raise NoHubAvailable("no hub answered the task list request")


async def evaluate(
    hubs: HubSet,
    policy: Policy,
    *,
    split: str = "test",
    kind: str | None = None,
    ids: Sequence[str] | None = None,
    samples: int = 1,
    concurrency: int = 8,
    limit: int | None = None,
    max_steps: int | None = None,
    max_calls_per_step: int | None = None,
    progress: Progress | None = None,
    reward: str = "outcome",
) -> dict[str, Any]:
    """Run every selected task, scored with the ``reward`` preset; the report (``summarize``) with the episodes."""
    tasks = select_tasks(await list_tasks(hubs, getattr(policy, "needs_oracle", False)), split, kind, ids, limit)
    if not tasks:
        raise ValueError(f"no task in split {split!r}" + (f" of kind {kind}" if kind else ""))
    gate = asyncio.Semaphore(concurrency)
    if progress is not None:
        progress.start(len(tasks))

    async def one(task: dict[str, Any]) -> list[EpisodeResult]:
        async with gate:
            results = await run_group(hubs, task, policy, samples, max_steps, max_calls_per_step, {"preset": reward})
        if progress is not None:
            progress.update(results)
        return results

    groups = await asyncio.gather(*[one(t) for t in tasks])
    if progress is not None:
        progress.finish()
    episodes = [e for g in groups for e in g]
    report = summarize(episodes)
    report.update(
        {
            "policy": policy.name,
            "reward": reward,
            "split": split,
            "kind": kind,
            "samples": samples,
            "tasks": len(tasks),
            "hubs": hubs.report(),
            "episodes": [asdict(e) for e in episodes],
        }
    )
    return report


# Reporting --------------------------------------------------------------------------------------


class Progress:
    """A one-line progress bar on a stream (stderr): tasks done, success so far, failed episodes."""

    def __init__(self, stream: TextIO, width: int = 30) -> None:
        self.stream = stream
        self.width = width
        self.total = self.done = self.episodes = self.successes = self.failed = 0

    def start(self, total: int) -> None:
        self.total = total
        self._draw()

    def update(self, results: Sequence[EpisodeResult]) -> None:
        self.done += 1
        self.episodes += len(results)
        self.successes += sum(r.success for r in results)
        self.failed += sum(r.failed is not None for r in results)
        self._draw()

    def finish(self) -> None:
        self.stream.write("\n")
        self.stream.flush()

    def _draw(self) -> None:
        filled = self.width * self.done // max(1, self.total)
        scored = self.episodes - self.failed
        rate = f"{self.successes / scored:.3f}" if scored else "-"
        self.stream.write(
            f"\r[{'#' * filled}{'.' * (self.width - filled)}] {self.done}/{self.total} tasks  "
            f"success {rate}  failed {self.failed}"
        )
        self.stream.flush()


def _stats(episodes: Sequence[EpisodeResult]) -> dict[str, Any]:
    scored = [e for e in episodes if e.failed is None]
    n = len(scored)
    out: dict[str, Any] = {
        "episodes": len(episodes),
        "failed": len(episodes) - n,
        "success_rate": sum(e.success for e in scored) / n if n else None,
        "reward": sum(e.total for e in scored) / n if n else None,
        "normalized": sum(e.normalized for e in scored) / n if n else None,
    }
    out["components"] = {c: (sum(e.components.get(c, 0.0) for e in scored) / n if n else None) for c in COMPONENTS}
    return out


def summarize(episodes: Sequence[EpisodeResult]) -> dict[str, Any]:
    by_server: dict[str, list[EpisodeResult]] = defaultdict(list)
    by_kind: dict[str, list[EpisodeResult]] = defaultdict(list)
    for e in episodes:
        by_kind[e.kind].append(e)
        for s in e.servers:
            by_server[s].append(e)
    return {
        "overall": _stats(episodes),
        "by_server": {k: _stats(v) for k, v in sorted(by_server.items())},
        "by_kind": {k: _stats(v) for k, v in sorted(by_kind.items())},
    }


def _fmt(v: float | None) -> str:
    return "-" if v is None else f"{v:.3f}"


def format_table(report: dict[str, Any]) -> str:
    cols = ("success", "reward", "of_max", *wire.PAPER_TERMS, "n", "failed")
    widths = [max(len(c), 6) for c in cols]  # every column at least as wide as its name, two spaces apart
    names = [f"{title}:{name}" for title, key in (("server", "by_server"), ("kind", "by_kind")) for name in report[key]]
    first = max([len("overall"), *(len(n) for n in names)])
    head = f"{'':<{first}}" + "".join(f"  {c:>{w}}" for c, w in zip(cols, widths))
    lines = [
        f"policy {report['policy']} on split {report['split']}, reward preset {report.get('reward')}: "
        f"{report['tasks']} tasks, "
        f"{report['overall']['episodes']} episodes",
        head,
        "-" * len(head),
    ]

    def row(name: str, s: dict[str, Any]) -> str:
        vals = [
            _fmt(s["success_rate"]),
            _fmt(s["reward"]),
            _fmt(s["normalized"]),
            *(_fmt(s["components"][c]) for c in wire.PAPER_TERMS),
            str(s["episodes"]),
            str(s["failed"]),
        ]
        return f"{name:<{first}}" + "".join(f"  {v:>{w}}" for v, w in zip(vals, widths))

    lines.append(row("overall", report["overall"]))
    for title, key in (("server", "by_server"), ("kind", "by_kind")):
        for name, s in report[key].items():
            lines.append(row(f"{title}:{name}", s))
    return "\n".join(lines)


# Command line -----------------------------------------------------------------------------------


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Register ``eval`` on ``prove-hub``'s subcommands."""
    p: argparse.ArgumentParser = sub.add_parser(
        "eval", help="evaluate a model endpoint (or a baseline) on a task split"
    )
    p.add_argument(
        "--hub",
        action="append",
        default=None,
        metavar="URL",
        help="hub URL (repeatable: tasks are sharded across hubs); default http://127.0.0.1:8765",
    )
    p.add_argument("--token", default=None, help="the hubs' bearer token (default: $HUB_TOKEN)")
    p.add_argument("--endpoint", default=None, help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1")
    p.add_argument("--model", default=None, help="model name sent to the endpoint")
    p.add_argument("--api-key", default=None, help="endpoint API key (default: $OPENAI_API_KEY)")
    p.add_argument(
        "--policy",
        choices=("endpoint", "oracle", "noop"),
        default=None,
        help="endpoint (default with --endpoint), or a built-in baseline",
    )
    p.add_argument("--split", choices=("train", "test", "all"), default="test")
    p.add_argument(
        "--reward",
        choices=("outcome", "paper"),
        default="outcome",
        help="reward preset the hub scores with (paper: the paper's formula exactly)",
    )
    p.add_argument("--kind", choices=("mcp", "clarify", "abstain"), default=None)
    p.add_argument("--task", action="append", default=None, help="only these task ids (repeatable)")
    p.add_argument("--samples", type=int, default=1, help="episodes per task (default 1)")
    p.add_argument("--limit", type=int, default=None, help="at most this many tasks")
    p.add_argument("--max-steps", type=int, default=None, help="model messages per episode (hub default 16)")
    p.add_argument(
        "--max-calls-per-step", type=int, default=None, help="tool calls one model message may make (hub default 16)"
    )
    p.add_argument(
        "--suite", default=None, metavar="NAME", help="a suite (prove-hub suite list): its tasks, scored as it scores"
    )
    p.add_argument("--user-endpoint", default=None, help="with --suite: an OpenAI-compatible URL that plays the user")
    p.add_argument("--user-model", default=None, help="with --suite: the user model's name")
    p.add_argument("--user-api-key", default=None, help="with --suite: the user endpoint's API key")
    p.add_argument("--temperature", type=float, default=0.0)
    p.add_argument("--max-tokens", type=int, default=2048)
    p.add_argument(
        "--thinking-history",
        choices=("keep", "strip"),
        default=None,
        help="earlier turns' <think> blocks sent back to the endpoint: keep (as the model wrote them) or strip "
        "(default: as written, and the endpoint's chat template decides); train and evaluate with the same",
    )
    p.add_argument("--concurrency", type=int, default=8, help="tasks in flight at once")
    p.add_argument("--json", default=None, metavar="PATH", help="write the report as JSON ('-' for stdout)")
    p.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="a progress bar on stderr (default: when stderr is a terminal)",
    )
    p.set_defaults(handler=cmd_eval)
    from trainer_client.suite_eval import add_suite_eval

    add_suite_eval(sub)  # prove-hub suite eval NAME: the same as eval --suite
    return p


def make_policy(args: argparse.Namespace) -> Policy:
    import os

    kind = args.policy or ("endpoint" if args.endpoint else None)
    if kind is None:
        raise ValueError("give --endpoint URL --model NAME, or --policy oracle|noop")
    if kind == "oracle":
        return OraclePolicy()
    if kind == "noop":
        return NoopPolicy()
    if not args.endpoint or not args.model:
        raise ValueError("--policy endpoint needs --endpoint URL and --model NAME")
    return OpenAIPolicy(
        args.endpoint,
        args.model,
        args.api_key or os.environ.get("OPENAI_API_KEY"),
        args.temperature,
        args.max_tokens,
        thinking_history=getattr(args, "thinking_history", None),
    )


async def run_eval(args: argparse.Namespace) -> dict[str, Any]:
    import os

    policy = make_policy(args)
    hubs = HubSet(args.hub or ["http://127.0.0.1:8765"], args.token or os.environ.get("HUB_TOKEN"))
    try:
        show = sys.stderr.isatty() if getattr(args, "progress", None) is None else args.progress
        return await evaluate(
            hubs,
            policy,
            split=args.split,
            kind=args.kind,
            ids=args.task,
            samples=args.samples,
            concurrency=args.concurrency,
            limit=args.limit,
            max_steps=args.max_steps,
            max_calls_per_step=args.max_calls_per_step,
            progress=Progress(sys.stderr) if show else None,
            reward=args.reward,
        )
    finally:
        await hubs.close()
        if isinstance(policy, OpenAIPolicy):
            await policy.aclose()


def cmd_eval(args: argparse.Namespace) -> int:
    if args.suite:  # a suite's tasks, hub and table (hub.suites.cli), in the suite's own environment
        from trainer_client.suite_eval import cmd_suite_eval

        args.argv = sys.argv[1:]
        return cmd_suite_eval(args)
    try:
        report = asyncio.run(run_eval(args))
    except (NoHubAvailable, HubDown, HubError, EndpointError, httpx.HTTPError) as exc:
        print(f"prove-hub eval: {exc}", file=sys.stderr)
        return 1
    if args.json == "-":
        print(json.dumps(report, indent=1))
    else:
        print(format_table(report))
        if args.json:
            with open(args.json, "w") as fh:
                json.dump(report, fh, indent=1)
            print(f"wrote {args.json}")
    failed = report["overall"]["failed"]
    if failed:
        print(f"{failed} episode(s) failed (a hub went down); see the JSON report", file=sys.stderr)
    return 0
