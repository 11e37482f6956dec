"""Scale: 1 worker against N, side by side in one run. Prints one table (docs/scale.md keeps it).

    .venv/bin/python benchmarks/bench_scale.py [--workers 2] [--sizes 64,512,4096] [--seconds 10]
        [--hol-seconds 6] [--budget 8G] [--banking 4096]

For each hub (``prove-hub serve`` and ``prove-hub serve --workers N``, each a real process tree on a loopback
port, its store a file of its own, the memory budget ``--budget``), this process:

- drives ``--sizes`` concurrent episodes over ``/ws`` (``bench_rollout``'s read mix through
  ``trainer_client.hub_client``, GRPO groups of 8): episodes/s, step latency p50/p99, and the hub's
  CPU-seconds (the front and its workers) per 1,000 steps;
- times another session's banking call and ``/healthz`` while a 1 s CPU-bound mounted call runs in a session of
  its own (``bench_sessions``' head-of-line probe: each prober a process of its own);
- plays ``--banking`` concurrent banking episodes (the write mix: transfers and withdrawals) and counts the
  requests the hub refused and the tool-call events missing from the store (calls executed minus rows stored).

Both hubs run for the whole benchmark and take turns figure by figure, so that a change in the load of a shared
machine falls on both sides of a ratio. The driver shares the machine with the hubs: on a small machine its own
CPU caps the figures, so the load average is printed with each figure and with the table.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

import bench_rollout  # noqa: E402
import bench_sessions  # noqa: E402

from hub.net import free_port  # noqa: E402

GROUP = 8


@dataclass
class Run:
    """One drive of a hub at one size."""

    episodes_s: float
    p50_ms: float
    p99_ms: float
    cpu_per_1k: float
    refused: dict[str, int]  # error code -> requests the hub refused
    lost: int

    @property
    def errors(self) -> int:
        return sum(self.refused.values())


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of ``pid`` and every live descendant (a sharded hub's workers)."""
    tick = os.sysconf("SC_CLK_TCK")
    total, todo = 0.0, [pid]
    while todo:
        current = todo.pop()
        try:
            fields = Path(f"/proc/{current}/stat").read_text().rpartition(")")[2].split()
            total += (int(fields[11]) + int(fields[12])) / tick
            for task in Path(f"/proc/{current}/task").iterdir():
                todo.extend(int(c) for c in (task / "children").read_text().split())
        except (FileNotFoundError, ProcessLookupError):
            continue  # it exited between the listing and the read
    return total


class Hub:
    """A hub process tree of ``workers`` shards, its store in a temp file, the Burner mounted."""

    def __init__(self, workers: int, budget: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.store = str(Path(tempfile.mkdtemp(prefix="bench-scale-")) / "store.db")
        extra = ["--store", self.store, "--max-state-bytes", budget, "--only", "banking", "burner"]
        extra += ["--workers", str(workers)]
        self.proc = bench_sessions.start_hub(ROOT, self.port, *extra)

    def __enter__(self) -> Hub:
        asyncio.run(bench_sessions.wait_up(self.url))
        return self

    def __exit__(self, *exc: object) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=120)


def drive(hub: Hub, concurrent: int, seconds: float, mix: str) -> Run:
    args = argparse.Namespace(
        mix=mix, calls_per_step=4, extra_steps=3, seconds=seconds, groups=max(1, concurrent // GROUP), group_size=GROUP
    )
    before = cpu_seconds(hub.proc.pid)
    tally, elapsed, _ = asyncio.run(bench_rollout.drive(hub.url.replace("http", "ws") + "/ws", args))
    cpu = cpu_seconds(hub.proc.pid) - before
    lat = tally.latencies or [float("nan")]
    stored = bench_rollout.count_stored(hub.store, tally.episode_ids)
    return Run(
        episodes_s=tally.episodes / elapsed,
        p50_ms=statistics.median(lat) * 1e3,
        p99_ms=bench_sessions.pct(lat, 0.99) * 1e3,
        cpu_per_1k=cpu / max(1, len(tally.latencies)) * 1000,
        refused=tally.errors,
        lost=tally.calls - stored,
    )


def measure(counts: list[int], args: argparse.Namespace) -> list[dict[str, Any]]:
    """Every figure of every hub, the hubs taking turns figure by figure, so that a change in the machine's load
    (it is shared) falls on both sides of a ratio rather than on one."""
    out: list[dict[str, Any]] = [{} for _ in counts]
    with contextlib.ExitStack() as stack:
        hubs = [stack.enter_context(Hub(n, args.budget)) for n in counts]
        for hub, n in zip(hubs, counts, strict=True):
            drive(hub, GROUP * n, 2.0, "read")  # warm every shard: templates built, tools trusted inline
        figures: list[tuple[str, Callable[[Hub], Any]]] = [
            *((f"ws{size}", partial(drive, concurrent=size, seconds=args.seconds, mix="read")) for size in args.sizes),
            ("hol", lambda hub: bench_sessions.head_of_line(hub.url, args.hol_seconds, burning=True)),
        ]
        if args.banking:
            figures.append(("banking", partial(drive, concurrent=args.banking, seconds=args.seconds, mix="write")))
        for key, figure in figures:
            for hub, n, results in zip(hubs, counts, out, strict=True):
                results[key] = figure(hub)
                print(f"  [{n} worker(s)] {key}: {results[key]} ({bench_sessions.load()})", flush=True)
    return out


def table(n: int, one: dict[str, Any], many: dict[str, Any], args: argparse.Namespace) -> list[str]:
    rows = [f"| figure | 1 worker | {n} workers | {n} / 1 |", "|---|---|---|---|"]

    def row(label: str, get: Callable[[dict[str, Any]], float], fmt: str, ratio: bool = True) -> None:
        a, b = get(one), get(many)
        rows.append(f"| {label} | {a:{fmt}} | {b:{fmt}} | {f'{b / a:.2f}x' if ratio and a else '-'} |")

    for size in args.sizes:
        key = f"ws{size}"
        row(f"`/ws` episodes/s, {size} concurrent (read mix)", lambda r: r[key].episodes_s, ",.1f")
        row(f"step p50 ms, {size} concurrent", lambda r: r[key].p50_ms, ".1f")
        row(f"step p99 ms, {size} concurrent", lambda r: r[key].p99_ms, ".1f")
        row(f"hub CPU-s per 1,000 steps, {size} concurrent", lambda r: r[key].cpu_per_1k, ".2f")
    row("another session's banking call p50 ms, 1 s call running", lambda r: r["hol"]["p50"] * 1e3, ".1f")
    row("another session's banking call p99 ms, 1 s call running", lambda r: r["hol"]["p99"] * 1e3, ".1f")
    row("`/healthz` p99 ms, 1 s call running", lambda r: r["hol"]["health_p99"] * 1e3, ".1f")
    row("`/healthz` max ms, 1 s call running", lambda r: r["hol"]["health_max"] * 1e3, ".1f")
    if args.banking:
        label = f"{args.banking} concurrent banking episodes, budget {args.budget}"
        row(f"{label}: episodes/s", lambda r: r["banking"].episodes_s, ",.1f")
        row(f"{label}: refused requests", lambda r: r["banking"].errors, "d", ratio=False)
        row(f"{label}: lost events", lambda r: r["banking"].lost, "d", ratio=False)
    return rows


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--workers", type=int, default=2, help="N, the sharded hub's worker count (default 2)")
    p.add_argument("--sizes", default="64,512,4096", help="concurrent /ws episodes, comma-separated")
    p.add_argument(
        "--seconds", type=float, default=10.0, help="seconds of driving per size (a group's round always ends)"
    )
    p.add_argument("--hol-seconds", type=float, default=6.0, help="seconds of the head-of-line probe")
    p.add_argument("--budget", default="8G", help="--max-state-bytes of both hubs")
    p.add_argument("--banking", type=int, default=4096, help="concurrent banking episodes (0: skip)")
    args = p.parse_args()
    args.sizes = [int(s) for s in args.sizes.split(",") if s]
    before = bench_sessions.load()
    one, many = measure([1, args.workers], args)
    print(
        f"\nbench_scale: {os.cpu_count()} CPUs; {before} before, {bench_sessions.load()} after; "
        f"sizes {args.sizes}, {args.seconds:.0f} s each, head of line {args.hol_seconds:.0f} s\n"
    )
    print("\n".join(table(args.workers, one, many, args)))
    print(
        "\ntargets: another session's p99 <= 50 ms and /healthz <= 20 ms while a 1 s call runs; "
        "/ws step p99 <= 50 ms at 64 concurrent; 0 refused, 0 lost"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
