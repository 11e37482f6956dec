"""``prove-hub eval --suite NAME`` (and ``prove-hub suite eval NAME``): a policy on a suite, scored as the benchmark
scores, with the benchmark's own table (``hub.suites.tables``).

Runs in the suite's own environment (a command started elsewhere re-runs itself there: ``hub.suites.cli``).
Unless ``--hub URL`` names a hub already serving the suite (``prove-hub suite serve``), it starts one on a free
loopback port in a process of its own; every task then plays through ``/ws`` as a trainer's rollouts do
(``trainer_client.evaluate``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from hub.suites import SUITES, Suite, get_suite
from hub.suites.cli import SUITE_PARSER, add_eval_args, here_or_there
from hub.suites.tables import suite_table
from trainer_client.hub_process import HubProcess


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
    """A hub serving the suite (``prove-hub suite serve NAME``) in a process of its own on a free loopback
    port, for the length of a ``with``."""

    def __init__(self, suite: Suite, args: argparse.Namespace) -> None:
        self.suite, self.args = suite, args

    async def __aenter__(self) -> str:
        self.tmp = tempfile.TemporaryDirectory(prefix="prove-suite-")
        store = str(Path(self.tmp.name) / "store.db")
        flags = [f"--{k.replace('_', '-')}={v}" for k, v in user_settings(self.args).items()]
        self.hub = HubProcess(["suite", "serve", self.suite.name, "--store", store, *flags])
        await asyncio.to_thread(self.hub.start)
        return self.hub.url

    async def __aexit__(self, *exc: object) -> None:
        await asyncio.to_thread(self.hub.stop)
        self.tmp.cleanup()


def user_settings(args: argparse.Namespace) -> dict[str, Any]:
    out = {}
    for name in ("user_endpoint", "user_model", "user_api_key"):
        value = getattr(args, name, None)
        if value:
            out[name] = value
    return out


def add_suite_eval(sub: Any) -> None:
    """Add ``eval`` under ``prove-hub suite`` (the hub's own part made that parser; this one runs policies)."""
    suite = sub.choices.get(SUITE_PARSER)
    if suite is None:
        return
    inner = next(a for a in suite._actions if isinstance(a, argparse._SubParsersAction))
    e = inner.add_parser("eval", help="evaluate a model endpoint (or a baseline) on a suite: prove-hub eval --suite")
    e.add_argument("suite", choices=list(SUITES))
    add_eval_args(e)
    e.set_defaults(handler=lambda a: cmd_suite_eval(_with_argv(a)))


def _with_argv(args: argparse.Namespace) -> argparse.Namespace:
    args.argv = sys.argv[1:]
    return args
