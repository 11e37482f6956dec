"""Synthesis benchmark: the full 13,517-task run with template rendering; time, tasks/s, manifest numbers.

    .venv/bin/python benchmarks/bench_synth.py [--n 13517] [--seed 0] [--out DIR]

Goal: ≤ 10 minutes for 13,517 tasks, 100% of kept tasks replay-verified. Prints a Markdown table
(and the machine's load average, since a shared machine's load moves the numbers).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hub.config import REFERENCE_NOW  # noqa: E402
from hub.library import Library  # noqa: E402
from hub.synth.output import write_all  # noqa: E402
from hub.synth.pipeline import SynthConfig, synthesize  # noqa: E402
from servers import REGISTRY  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=13_517)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=None)
    p.add_argument("--progress", action="store_true")
    args = p.parse_args()
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="synth-bench-"))
    load_before = os.getloadavg()
    t0 = time.perf_counter()
    library = Library.from_servers(REGISTRY, REFERENCE_NOW)
    for m in library.mounts.values():
        m.seed_db(0)  # type: ignore[attr-defined]
    t_lib = time.perf_counter() - t0
    cpu0 = time.process_time()
    result = synthesize(library, SynthConfig(n=args.n, seed=args.seed, progress=args.progress,
                                             cache_dir=out / "graph-cache"))
    t_synth = time.perf_counter() - t0 - t_lib
    data = write_all(out, result, library)
    t_total = time.perf_counter() - t0
    cpu = time.process_time() - cpu0
    load_after = os.getloadavg()
    v = data["validation"]
    attempts = sum(v["attempts"].values())
    rows = [
        ("tasks", f"{data['n']:,}"),
        ("kinds (mcp / clarify / abstain)", f"{data['kinds'].get('mcp', 0):,} / {data['kinds'].get('clarify', 0):,} / {data['kinds'].get('abstain', 0):,}"),
        ("library build + seed DBs", f"{t_lib:.1f} s"),
        ("synthesis (wall)", f"{t_synth:.1f} s"),
        ("synthesis CPU time", f"{cpu:.1f} s"),
        ("write (split, export, manifest)", f"{t_total - t_lib - t_synth:.1f} s"),
        ("total wall", f"{t_total:.1f} s ({t_total / 60:.1f} min; goal ≤ 10 min)"),
        ("tasks/s (synthesis)", f"{data['n'] / t_synth:.1f}"),
        ("attempts", f"{attempts:,} ({data['n'] / attempts:.0%} kept)"),
        ("replayed / kept replay-verified", f"{v['replayed']:,} / {v['kept_replay_verified']:,} of {data['n']:,} "
                                            f"({v['kept_replay_verified'] / data['n']:.0%})"),
        ("dropped", ", ".join(f"{k} {n:,}" for k, n in sorted(v["dropped"].items()))),
        ("coverage", f"{data['coverage']['covered']} / {data['coverage']['tools']} tools "
                     f"(min {data['coverage']['min_per_tool']} tasks per tool, {data['coverage']['coverage_swaps']} swaps)"),
        ("load average before / after", f"{load_before[0]:.2f} / {load_after[0]:.2f} ({os.cpu_count()} CPUs)"),
        ("output", str(out)),
    ]
    print("\n## Task synthesis (template rendering)\n")
    print("| measure | value |\n|---|---|")
    for k, val in rows:
        print(f"| {k} | {val} |")
    keys = ("levels", "turns", "chain_lengths", "perturbations", "recoveries_in_kept", "split", "variants")
    print("\n```json\n" + json.dumps({k: data[k] for k in keys}, indent=1) + "\n```")
    return 0


if __name__ == "__main__":
    sys.exit(main())
