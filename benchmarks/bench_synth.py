"""Synthesis benchmark: the full 13,517-task run with template rendering; time, tasks/s, manifest numbers.

    .venv/bin/python benchmarks/bench_synth.py [--n 13517] [--seed 0] [--worlds 8] [--dedup-scope all|world] [--out DIR]

Goal: ≤ 10 minutes for 13,517 tasks, 100% of kept tasks replay-verified. Prints a Markdown table
(and the machine's load average, since a shared machine's load moves the numbers), with the
realism report's headline figures per source (intents, the chain machine).
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
from hub.state.library import Library  # noqa: E402
from hub.synth import realism  # noqa: E402
from hub.synth.output import write_all  # noqa: E402
from hub.synth.pipeline import SynthConfig, synthesize  # noqa: E402
from servers import REGISTRY  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=13_517)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=None)
    p.add_argument("--progress", action="store_true")
    p.add_argument("--worlds", type=int, default=8)
    p.add_argument("--dedup-scope", choices=("all", "world"), default="all")
    args = p.parse_args()
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="synth-bench-"))
    load_before = os.getloadavg()
    t0 = time.perf_counter()
    library = Library.from_servers(REGISTRY, REFERENCE_NOW)
    for m in library.mounts.values():
        for w in range(args.worlds):
            m.seed_db(w)  # type: ignore[attr-defined]
    t_lib = time.perf_counter() - t0
    cpu0 = time.process_time()
    result = synthesize(
        library,
        SynthConfig(
            n=args.n,
            seed=args.seed,
            progress=args.progress,
            worlds=args.worlds,
            dedup_scope=args.dedup_scope,
            cache_dir=out / "graph-cache",
        ),
    )
    t_synth = time.perf_counter() - t0 - t_lib
    data = write_all(out, result, library)
    t_write = time.perf_counter() - t0 - t_lib - t_synth
    real = realism.write(out, result.tasks, library, fallback_servers=result.fallback_servers)
    t_total = time.perf_counter() - t0
    cpu = time.process_time() - cpu0
    load_after = os.getloadavg()
    v = data["validation"]
    attempts = sum(v["attempts"].values())
    rows = [
        ("tasks", f"{data['n']:,}"),
        (
            "kinds (mcp / clarify / abstain)",
            f"{data['kinds'].get('mcp', 0):,} / {data['kinds'].get('clarify', 0):,} / "
            f"{data['kinds'].get('abstain', 0):,}",
        ),
        ("library build + seed DBs", f"{t_lib:.1f} s"),
        ("synthesis (wall)", f"{t_synth:.1f} s"),
        ("synthesis CPU time", f"{cpu:.1f} s"),
        ("write (split, export, manifest)", f"{t_write:.1f} s"),
        ("realism report (2,000-task live baseline)", f"{t_total - t_lib - t_synth - t_write:.1f} s"),
        ("total wall", f"{t_total:.1f} s ({t_total / 60:.1f} min; goal ≤ 10 min)"),
        ("tasks/s (synthesis)", f"{data['n'] / t_synth:.1f}"),
        ("attempts", f"{attempts:,} ({data['n'] / attempts:.0%} kept)"),
        (
            "replayed / kept replay-verified",
            f"{v['replayed']:,} / {v['kept_replay_verified']:,} of {data['n']:,} "
            f"({v['kept_replay_verified'] / data['n']:.0%})",
        ),
        ("dropped", ", ".join(f"{k} {n:,}" for k, n in sorted(v["dropped"].items()) if not k.startswith("slot_"))),
        (
            "worlds / unfilled slots / exhausted server-kinds",
            f"{result.worlds} / {result.stats.unfilled:,} / {len(result.stats.exhausted)}",
        ),
        *(
            (
                f"realism: {src}",
                ", ".join(
                    f"{k} {f[k]}"
                    for k in ("tasks", "name_leak", "verbatim_values", "id_turns", "linked", "distinct_sequences")
                ),
            )
            for src, f in real["by_source"].items()
        ),
        (
            "baseline / oracle (all; per source)",
            f"{real['baseline']['ratio']}; "
            + ", ".join(f"{s} {b['ratio']}" for s, b in real["baseline"]["by_source"].items()),
        ),
        (
            "smallest / largest server, rarest tool",
            f"{real['smallest_server']} / {real['largest_server']}, {real['rarest_tool']}",
        ),
        (
            "coverage",
            f"{data['coverage']['covered']} / {data['coverage']['tools']} tools "
            f"(min {data['coverage']['min_per_tool']} tasks per tool, {data['coverage']['coverage_swaps']} swaps)",
        ),
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
