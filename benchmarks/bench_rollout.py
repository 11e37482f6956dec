"""Rollout throughput over the WebSocket protocol, with the store writing.

    .venv/bin/python benchmarks/bench_rollout.py [--seconds 15] [--groups 8] [--group-size 8]

The hub runs in its own process (``prove-hub serve`` under uvicorn, store in a temp file); this
process drives ``groups × group-size`` concurrent episodes (default 64: 8 GRPO groups of 8, one
connection per group) through ``trainer_client.hub_client``. Each episode plays the oracle of
a task (``--mix read``: bank-balance-001 and reads; ``--mix write``: bank-transfer-002, reads and
withdrawals) plus ``--extra-steps`` messages of ``--calls-per-step`` Hermes tool calls, answers, is scored (finish) and
closed; its group reopens. At the end the hub's store is flushed, the hub is stopped (SIGINT, graceful), and the
tool-call rows in the file are counted against the calls the hub reported executing.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hub.net import free_port  # noqa: E402
from hub.tasks import hermes_call  # noqa: E402
from trainer_client.hub_client import HubClient, HubError  # noqa: E402

Mix = tuple[str, str, list[tuple[str, dict[str, object]]]]
MIXES: dict[str, Mix] = {
    # the oracle of bank-transfer-002 (a transfer: 3 writes' worth of ids) plus reads and a withdrawal
    "write": (
        "bank-transfer-002",
        hermes_call(
            "banking__transfer_funds",
            {"from_account_id": "ACC-0001", "to_account_id": "ACC-0002", "amount": 300.0, "memo": "Rent June"},
        )
        + hermes_call("banking__list_transactions", {"account_id": "ACC-0002"}),
        [
            ("banking__get_account", {"account_id": "ACC-0002"}),
            ("banking__list_transactions", {"account_id": "ACC-0001", "limit": 5}),
            ("banking__get_account", {"account_id": "ACC-0001"}),
            ("banking__withdraw_funds", {"account_id": "ACC-0002", "amount": 1.0}),
        ],
    ),
    # the oracle of bank-balance-001 plus reads only
    "read": (
        "bank-balance-001",
        hermes_call("banking__get_account", {"account_id": "ACC-0005"}),
        [
            ("banking__get_account", {"account_id": "ACC-0005"}),
            ("banking__list_accounts", {"status": "active", "limit": 5}),
            ("banking__list_cards", {"account_id": "ACC-0005"}),
            ("banking__get_account", {"account_id": "ACC-0001"}),
        ],
    ),
}


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    by_step: dict[int, list[float]] = field(default_factory=dict)
    calls: int = 0
    episodes: int = 0
    episode_ids: set[str] = field(default_factory=set)
    errors: dict[str, int] = field(default_factory=dict)  # error code -> requests the hub refused

    def refused(self, exc: HubError) -> None:
        self.errors[exc.code] = self.errors.get(exc.code, 0) + 1


def extra_message(extra: list[tuple[str, dict[str, object]]], calls_per_step: int) -> str:
    return "".join(hermes_call(*extra[i % len(extra)]) for i in range(calls_per_step))


async def play(client: HubClient, eid: str, script: list[str], tally: Tally) -> None:
    """One episode; a refused request ends it and is counted (an error figure, not a crashed run)."""
    try:
        for i, text in enumerate(script):
            start = time.perf_counter()
            out = await client.step(eid, text)
            tally.latencies.append(time.perf_counter() - start)
            tally.by_step.setdefault(i, []).append(tally.latencies[-1])
            tally.calls += len(out["calls"])
        await client.finish(eid)
    except HubError as exc:
        tally.refused(exc)
        return
    tally.episodes += 1


async def group_worker(url: str, task: str, size: int, script: list[str], deadline: float, tally: Tally) -> None:
    async with HubClient(url, client="bench") as client:
        while time.perf_counter() < deadline:
            try:
                group = await client.open(task, n=size)
            except HubError as exc:
                tally.refused(exc)
                continue
            tally.episode_ids.update(group.episodes)
            await asyncio.gather(*(play(client, e, script, tally) for e in group.episodes))
            await client.close_episodes(group.episodes)


async def drive(url: str, args: argparse.Namespace) -> tuple[Tally, float, dict[str, object]]:
    task, oracle, extra = MIXES[args.mix]
    script = [oracle, *[extra_message(extra, args.calls_per_step)] * args.extra_steps, "Done."]
    tally = Tally()
    async with HubClient(url, client="bench-control", retries=60, backoff=0.05) as control:
        await control.open(task, n=1)  # warm the seed database and the task's template
        start = time.perf_counter()
        deadline = start + args.seconds
        await asyncio.gather(
            *(group_worker(url, task, args.group_size, script, deadline, tally) for _ in range(args.groups))
        )
        elapsed = time.perf_counter() - start
        flushed = await control.flush(timeout=120)
        stats = await control.stats()
    return tally, elapsed, {"flushed": flushed, "stats": stats}


def start_hub(port: int, store: str) -> subprocess.Popen[bytes]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen(
        [sys.executable, "-m", "hub.cli", "serve", "--port", str(port), "--store", store, "--log-level", "warning"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
    )


def count_stored(store: str, episodes: set[str]) -> int:
    db = sqlite3.connect(store)
    try:
        rows = db.execute(
            "SELECT episode_id, COUNT(*) FROM tool_calls WHERE episode_id IS NOT NULL GROUP BY episode_id"
        )
        return sum(n for eid, n in rows if eid in episodes)
    finally:
        db.close()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=15.0)
    p.add_argument("--groups", type=int, default=8)
    p.add_argument("--group-size", type=int, default=8)
    p.add_argument("--extra-steps", type=int, default=3)
    p.add_argument("--calls-per-step", type=int, default=4)
    p.add_argument("--url", help="drive a hub that is already running (ws://host:port/ws) instead of starting one")
    p.add_argument(
        "--mix", choices=sorted(MIXES), default="read", help="read: reads only; write: transfers and withdrawals"
    )
    args = p.parse_args()
    if args.url:
        tally, elapsed, info = asyncio.run(drive(args.url, args))
        stored = -1  # the store file is the remote hub's
    else:
        store = str(Path(tempfile.mkdtemp(prefix="prove-bench-")) / "bench.db")
        port = free_port()
        hub = start_hub(port, store)
        try:
            tally, elapsed, info = asyncio.run(drive(f"ws://127.0.0.1:{port}/ws", args))
        finally:
            hub.send_signal(signal.SIGINT)
            hub.wait(timeout=120)
        stored = count_stored(store, tally.episode_ids)
    lat = tally.latencies
    stats = info["stats"]["store"]  # type: ignore[index]
    rows = [
        ("concurrent episodes", f"{args.groups * args.group_size} ({args.groups} groups x {args.group_size})"),
        ("duration", f"{elapsed:.1f} s"),
        ("episodes finished", f"{tally.episodes}"),
        ("steps", f"{len(lat)}"),
        ("tool calls", f"{tally.calls}"),
        ("tool calls/s", f"{tally.calls / elapsed:,.0f}"),
        ("episodes/s", f"{tally.episodes / elapsed:,.1f}"),
        ("steps/s", f"{len(lat) / elapsed:,.0f}"),
        ("step latency p50", f"{statistics.median(lat) * 1000:.1f} ms"),
        ("step latency p99", f"{percentile(lat, 0.99) * 1000:.1f} ms"),
        ("step latency max", f"{max(lat) * 1000:.1f} ms"),
        ("events offered to store", f"{stats['offered']}"),  # type: ignore[index]
        ("events acked / dropped", f"{stats['acked']} / {stats['dropped']}"),  # type: ignore[index]
        ("tool-call events sent", f"{tally.calls}"),
        ("tool-call rows stored", f"{stored}"),
        ("lost", f"{tally.calls - stored}"),
        ("refused requests", ", ".join(f"{k}: {v}" for k, v in sorted(tally.errors.items())) or "0"),
    ]
    width = max(len(k) for k, _ in rows)
    n_oracle = MIXES[args.mix][1].count("<tool_call>")
    print(
        f"bench_rollout: {os.cpu_count()} CPUs, mix {args.mix!r}, {args.extra_steps + 2} steps and "
        f"{n_oracle + args.extra_steps * args.calls_per_step} calls per episode"
    )
    for k, v in rows:
        print(f"  {k:<{width}}  {v}")
    per_step = ", ".join(
        f"#{i}: {statistics.median(v) * 1000:.0f}/{percentile(v, 0.99) * 1000:.0f}"
        for i, v in sorted(tally.by_step.items())
    )
    print(f"  step latency p50/p99 by step index (ms): {per_step}")
    return 0 if stored == tally.calls and not tally.errors else 1


if __name__ == "__main__":
    sys.exit(main())
