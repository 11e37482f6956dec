"""``prove-hub suite list|install|serve|eval|parity`` and ``prove-hub eval --suite NAME``.

    prove-hub suite install bfcl-mt                     # .venvs/bfcl: the hub and bfcl-eval, lean
    prove-hub eval --suite bfcl-mt --endpoint http://127.0.0.1:8000/v1 --model Qwen/Qwen3-4B-Instruct-2507
    prove-hub suite serve tau2-airline --port 8765      # for prove-train (tau2's train split) or any client
    prove-hub suite eval tau2-retail --policy oracle    # the same as eval --suite

Commands that need the benchmark's package run in the suite's environment: from any other interpreter they
re-run themselves there (``.venvs/<name>/bin/prove-hub``), so the commands work from the project's ``.venv``.
``eval`` starts a hub on a free loopback port in the same process (unless ``--hub URL`` names one already
serving the suite), plays every task through ``/ws`` as a trainer would, and prints the benchmark's own table:
BFCL's accuracy per category and overall (the mean of the four), tau2's pass^k per domain.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import sys
import tempfile
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hub.parts import Part
from hub.suites import SUITES, Suite, get_suite
from hub.suites.venvs import importable_here, install, installed, python_of, venv_of


def _reexec(suite: Suite, argv: Sequence[str]) -> int:
    """Run ``prove-hub ARGV`` in the suite's environment (installing nothing: say how if it is missing)."""
    if not installed(suite) and not python_of(suite).exists():
        print(
            f"prove-hub: suite {suite.name} is not installed; run: prove-hub suite install {suite.name}",
            file=sys.stderr,
        )
        return 2
    exe = venv_of(suite) / "bin" / "prove-hub"
    os.execv(str(exe), [str(exe), *argv])
    return 0  # not reached


def here_or_there(suite: Suite, argv: Sequence[str]) -> int | None:
    """None when this interpreter can run the suite; else the exit status of running it in the suite's environment."""
    if importable_here(suite):
        return None
    return _reexec(suite, argv)


# Tasks and mounts ------------------------------------------------------------------------------


def suite_tasks(suite: Suite, split: str | None = None) -> tuple[list[Any], list[str], list[str]]:
    """(tasks, mount specs, problems) of a suite; only in its environment."""
    if suite.module == "bfcl":
        from hub.suites import bfcl

        tasks, problems = bfcl.import_tasks(suite.categories)
        return tasks, bfcl.mount_specs(), problems
    from hub.suites import tau2

    domain = suite.options["domain"]
    tasks, problems = tau2.import_tasks(domain, split or "base")
    return tasks, tau2.mount_specs(domain), problems


def write_tasks(suite: Suite, split: str | None = None) -> tuple[Path, list[str], int, list[str]]:
    """The suite's tasks as a JSONL file in its environment: (path, mount specs, count, problems)."""
    from hub.tasks import write_jsonl

    tasks, mounts, problems = suite_tasks(suite, split)
    out = Path(sys.prefix) / "suite-data"
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{suite.name}{'-' + split if split else ''}.jsonl"
    write_jsonl(path, tasks)
    return path, mounts, len(tasks), problems


# Commands --------------------------------------------------------------------------------------


def cmd_list(args: argparse.Namespace) -> int:
    for s in SUITES.values():
        state = "installed" if installed(s) else "not installed"
        print(f"{s.name:<14} {state:<14} {s.package:<22} {s.title}")
    return 0


def cmd_install(args: argparse.Namespace) -> int:
    names = list(SUITES) if args.names == ["all"] else args.names
    for name in names:
        suite = get_suite(name)
        if installed(suite):
            print(f"suite {name}: up to date ({venv_of(suite)})")
            continue
        install(suite, quiet=not args.verbose)
        print(f"suite {name}: installed in {venv_of(suite)}")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    suite = get_suite(args.name)
    elsewhere = here_or_there(suite, args.argv)
    if elsewhere is not None:
        return elsewhere
    from hub.cli import main as hub_main

    path, mounts, count, problems = write_tasks(suite, args.split)
    for line in problems:
        print(f"not imported: {line}", file=sys.stderr)
    print(f"suite {suite.name}: {count} tasks in {path}", file=sys.stderr)
    argv = ["serve", "--no-builtin", "--tasks", str(path), *(f"--mount={m}" for m in mounts)]
    for flag in ("host", "port", "token", "store", "user_endpoint", "user_model", "user_api_key"):
        value = getattr(args, flag, None)
        if value is not None:
            argv += [f"--{flag.replace('_', '-')}", str(value)]
    return hub_main(argv)


def cmd_parity(args: argparse.Namespace) -> int:
    suite = get_suite(args.name)
    elsewhere = here_or_there(suite, args.argv)
    if elsewhere is not None:
        return elsewhere
    from hub.suites.parity import main as parity_main

    extra = [*(["--limit", str(args.limit)] if args.limit else []), *(["--json"] if args.json else [])]
    return parity_main([suite.name, *extra])


def cmd_suite_eval(args: argparse.Namespace) -> int:
    """``prove-hub eval --suite NAME`` and ``prove-hub suite eval NAME``."""
    suite = get_suite(args.suite)
    elsewhere = here_or_there(suite, args.argv)
    if elsewhere is not None:
        return elsewhere
    import httpx

    from trainer_client.evaluate import EndpointError, make_policy
    from trainer_client.hub_client import HubError
    from trainer_client.hubs import HubDown, NoHubAvailable

    try:
        report = asyncio.run(run_suite_eval(suite, args, make_policy(args)))
    except (NoHubAvailable, HubDown, HubError, EndpointError, httpx.HTTPError) as exc:
        print(f"prove-hub eval: {exc}", file=sys.stderr)
        return 1
    if args.json == "-":
        print(json.dumps(report, indent=1))
        return 0
    print(suite_table(suite, report))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))
        print(f"wrote {args.json}")
    return 0


async def run_suite_eval(suite: Suite, args: argparse.Namespace, policy: Any) -> dict[str, Any]:
    from trainer_client.evaluate import Progress, evaluate
    from trainer_client.hubs import HubSet

    show = sys.stderr.isatty() if getattr(args, "progress", None) is None else args.progress
    kwargs = {
        "split": args.split,
        "kind": None,
        "ids": args.task,
        "samples": args.samples,
        "concurrency": args.concurrency,
        "limit": args.limit,
        "max_steps": args.max_steps or suite_max_steps(suite),
        "max_calls_per_step": args.max_calls_per_step or 256,
        "progress": Progress(sys.stderr) if show else None,
    }
    if args.hub:
        hubs = HubSet(args.hub, args.token or os.environ.get("HUB_TOKEN"))
        try:
            return await evaluate(hubs, policy, **kwargs)  # type: ignore[arg-type]
        finally:
            await hubs.close()
    async with local_hub(suite, args) as url:
        hubs = HubSet([url], None)
        try:
            return await evaluate(hubs, policy, **kwargs)  # type: ignore[arg-type]
        finally:
            await hubs.close()


def suite_max_steps(suite: Suite) -> int:
    """Model messages per episode: BFCL's 20 steps per turn (and the answer) over its longest entry; tau2's 100."""
    return 21 * 10 if suite.module == "bfcl" else 100


class local_hub:
    """A hub serving the suite on a free loopback port, in this process, for the length of a ``with``."""

    def __init__(self, suite: Suite, args: argparse.Namespace) -> None:
        self.suite, self.args = suite, args

    async def __aenter__(self) -> str:
        from hub.app import create_app
        from hub.config import Settings
        from hub.testing import serve

        path, mounts, count, problems = write_tasks(self.suite, None)
        for line in problems:
            print(f"not imported: {line}", file=sys.stderr)
        self.tmp = tempfile.TemporaryDirectory(prefix="prove-suite-")
        settings = Settings(
            mounts=mounts,
            builtin=False,
            tasks_path=str(path),
            store_path=str(Path(self.tmp.name) / "store.db"),
            max_state_bytes=None,
            **user_settings(self.args),
        )
        self.serving = serve(create_app(settings))
        live = await self.serving.__aenter__()
        return live.url

    async def __aexit__(self, *exc: object) -> None:
        await self.serving.__aexit__(None, None, None)
        self.tmp.cleanup()


def user_settings(args: argparse.Namespace) -> dict[str, Any]:
    out = {}
    for name in ("user_endpoint", "user_model", "user_api_key"):
        value = getattr(args, name, None)
        if value:
            out[name] = value
    return out


# The benchmark's own tables ----------------------------------------------------------------------


def suite_table(suite: Suite, report: dict[str, Any]) -> str:
    episodes = [e for e in report["episodes"] if e.get("failed") is None]
    failed = len(report["episodes"]) - len(episodes)
    head = f"{suite.title}\npolicy {report['policy']}: {report['tasks']} tasks, {len(report['episodes'])} episodes"
    if failed:
        head += f" ({failed} failed: see the JSON report)"
    if suite.module == "bfcl":
        return head + "\n" + bfcl_table(episodes)
    return head + "\n" + pass_k_table(suite, episodes, int(report.get("samples", 1)))


def _category(task_id: str) -> str:
    return task_id.removeprefix("multi_turn_").rsplit("_", 1)[0]


def bfcl_table(episodes: Sequence[dict[str, Any]]) -> str:
    """BFCL's multi-turn table: accuracy per category, and overall as the mean of the categories."""
    by: dict[str, list[bool]] = defaultdict(list)
    for e in episodes:
        by[_category(e["task"])].append(bool(e["success"]))
    lines = [f"{'category':<14} {'accuracy':>9} {'correct':>8} {'total':>6}", "-" * 40]
    accs = []
    for cat in ("base", "miss_func", "miss_param", "long_context"):
        found = by.get(cat, [])
        if not found:
            continue
        acc = sum(found) / len(found)
        accs.append(acc)
        lines.append(f"{cat:<14} {acc:>9.3f} {sum(found):>8} {len(found):>6}")
    if accs:
        lines.append(f"{'overall':<14} {sum(accs) / len(accs):>9.3f}   (mean of the categories, as BFCL reports)")
    return "\n".join(lines)


def pass_hat_k(successes: Sequence[int], trials: int, k: int) -> float:
    """tau2's pass^k: the mean over tasks of C(c, k) / C(n, k), c of n trials passing."""
    if not successes or k > trials:
        return float("nan")
    return sum(math.comb(c, k) / math.comb(trials, k) for c in successes) / len(successes)


def pass_k_table(suite: Suite, episodes: Sequence[dict[str, Any]], samples: int) -> str:
    by_task: dict[str, list[bool]] = defaultdict(list)
    for e in episodes:
        by_task[e["task"]].append(bool(e["success"]))
    trials = min((len(v) for v in by_task.values()), default=0)
    counts = [sum(v[:trials]) for v in by_task.values()]
    lines = [
        f"{'domain':<10} {'tasks':>6} {'trials':>7} " + " ".join(f"{'pass^' + str(k):>8}" for k in range(1, trials + 1))
    ]
    lines.append("-" * len(lines[0]))
    values = " ".join(f"{pass_hat_k(counts, trials, k):>8.3f}" for k in range(1, trials + 1))
    lines.append(f"{suite.options.get('domain', suite.name):<10} {len(counts):>6} {trials:>7} {values}")
    return "\n".join(lines)


# Registration ----------------------------------------------------------------------------------


def add_commands(sub: Any) -> None:
    """``prove-hub suite ...``."""
    p = sub.add_parser("suite", help="public benchmarks (BFCL multi-turn, tau2-bench) served and scored as suites")
    inner = p.add_subparsers(dest="suite_command", required=True)
    inner.add_parser("list", help="the suites and whether each is installed").set_defaults(handler=cmd_list)
    i = inner.add_parser("install", help="create a suite's environment (.venvs/...): the hub and its benchmark")
    i.add_argument("names", nargs="+", metavar="NAME", help=f"suites ({', '.join(SUITES)}) or 'all'")
    i.add_argument("--verbose", action="store_true", help="show pip's output")
    i.set_defaults(handler=cmd_install)
    s = inner.add_parser("serve", help="serve a suite's tasks and environments (for prove-train or any client)")
    s.add_argument("name", choices=list(SUITES))
    s.add_argument("--split", default=None, help="tau2: train, test or base (default base); BFCL has one set")
    s.add_argument("--host", default=None)
    s.add_argument("--port", type=int, default=None)
    s.add_argument("--token", default=None)
    s.add_argument("--store", default=None)
    add_user_args(s)
    s.set_defaults(handler=lambda a: cmd_serve(_with_argv(a)))
    r = inner.add_parser("parity", help="the hub's scores against the benchmark's own evaluator (oracle, no-op, ...)")
    r.add_argument("name", choices=list(SUITES))
    r.add_argument("--limit", type=int, default=None)
    r.add_argument("--json", action="store_true")
    r.set_defaults(handler=lambda a: cmd_parity(_with_argv(a)))
    e = inner.add_parser("eval", help="evaluate a model endpoint (or a baseline) on a suite: prove-hub eval --suite")
    e.add_argument("suite", choices=list(SUITES))
    add_eval_args(e)
    e.set_defaults(handler=lambda a: cmd_suite_eval(_with_argv(a)))


def add_user_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--user-endpoint", default=None, help="an OpenAI-compatible base URL that plays the user (tau2)")
    p.add_argument("--user-model", default=None, help="the user model's name")
    p.add_argument("--user-api-key", default=None, help="the user endpoint's API key")


def add_eval_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--hub", action="append", default=None, metavar="URL", help="a hub already serving the suite")
    p.add_argument("--token", default=None)
    p.add_argument("--endpoint", default=None)
    p.add_argument("--model", default=None)
    p.add_argument("--api-key", default=None)
    p.add_argument("--policy", choices=("endpoint", "oracle", "noop"), default=None)
    p.add_argument("--split", choices=("train", "test", "all"), default="test")
    p.add_argument("--task", action="append", default=None)
    p.add_argument("--samples", type=int, default=1, help="trials per task (tau2's pass^k needs k of them)")
    p.add_argument("--limit", type=int, default=None)
    p.add_argument("--max-steps", type=int, default=None)
    p.add_argument("--max-calls-per-step", type=int, default=None)
    p.add_argument("--temperature", type=float, default=0.0)
    p.add_argument("--max-tokens", type=int, default=2048)
    p.add_argument("--concurrency", type=int, default=8)
    p.add_argument("--json", default=None, metavar="PATH")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None)
    add_user_args(p)


def _with_argv(args: argparse.Namespace) -> argparse.Namespace:
    """Keep the command line, so a command can re-run itself in the suite's environment."""
    args.argv = sys.argv[1:]
    return args


part = Part("suites", add_commands=add_commands)
