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
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hub.parts import Part
from hub.suites import SUITES, Suite, get_suite
from hub.suites.venvs import importable_here, install, installed, python_of, venv_of

SUITE_PARSER = "suite"


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
    path, mounts, count, problems = write_tasks(suite, args.split)
    for line in problems:
        print(f"not imported: {line}", file=sys.stderr)
    print(f"suite {suite.name}: {count} tasks in {path}", file=sys.stderr, flush=True)
    argv = ["serve", "--no-builtin", "--tasks", str(path), *(f"--mount={m}" for m in mounts)]
    for flag in ("host", "port", "token", "store", "user_endpoint", "user_model", "user_api_key"):
        value = getattr(args, flag, None)
        if value is not None:
            argv += [f"--{flag.replace('_', '-')}", str(value)]
    os.execv(sys.executable, [sys.executable, "-m", "hub.cli", *argv])  # the hub's own serve command
    return 0  # not reached


def cmd_parity(args: argparse.Namespace) -> int:
    suite = get_suite(args.name)
    elsewhere = here_or_there(suite, args.argv)
    if elsewhere is not None:
        return elsewhere
    from hub.suites.parity import main as parity_main

    extra = [*(["--limit", str(args.limit)] if args.limit else []), *(["--json"] if args.json else [])]
    return parity_main([suite.name, *extra])


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
    # ``suite eval`` is added by the eval part (trainer_client.suite_eval), which runs policies


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
