"""``prove-hub synth`` and ``prove-hub graph``: the synthesis part's commands."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from hub.parts import Part


def register(sub: Any) -> None:
    synth = sub.add_parser("synth", help="synthesize tasks grounded in live server state")
    synth.add_argument("--n", type=int, default=13_517, help="how many tasks (default 13,517, the paper's size)")
    synth.add_argument("--out", required=True, help="output directory")
    synth.add_argument("--seed", type=int, default=0, help="synthesis seed: the same seed gives the same dataset")
    synth.add_argument("--world-seed", type=int, default=0, help="the first world seed (servers' initial data)")
    synth.add_argument(
        "--worlds",
        type=int,
        default=None,
        help="world seeds to spread tasks over: --world-seed .. --world-seed + N - 1, each world on its own "
        "reference date (default: one per 130 tasks, at least 8)",
    )
    synth.add_argument("--test-fraction", type=float, default=0.1)
    synth.add_argument(
        "--split-by",
        choices=("intent", "task"),
        default="intent",
        help="the test split holds out whole opening intents, chosen per server (default: goals never trained "
        "on), or single tasks, stratified by server and kind",
    )
    synth.add_argument(
        "--dedup-scope",
        choices=("all", "world"),
        default="all",
        help="near duplicates (same call names and argument keys) across the whole set, or per world",
    )
    synth.add_argument(
        "--repeats",
        type=int,
        default=8,
        help="tasks per call structure, each on another world seed (default 8; 1: near duplicates dropped)",
    )
    synth.add_argument(
        "--min-distinct",
        type=float,
        default=0.61,
        help="an mcp task that repeats a kept tool-name sequence may not take distinct sequences "
        "per mcp task below this (default 0.61)",
    )
    synth.add_argument(
        "--server-budget",
        type=float,
        default=8.0,
        help="attempts a server may spend per task of its share of a kind (default 8: the time target)",
    )
    synth.add_argument(
        "--dry-attempts",
        type=int,
        default=400,
        help="attempts in a row without a kept task after which a server is used up for a kind",
    )
    synth.add_argument(
        "--min-yield",
        type=float,
        default=0.02,
        help="a server is used up for a kind when its recent kept / tried (about 100 attempts) falls below this",
    )
    synth.add_argument(
        "--sampler-k", type=int, default=100, help="refresh the sampling context every k tasks per server"
    )
    synth.add_argument("--llm-endpoint", default=None, help="OpenAI-compatible base URL (default: templates, offline)")
    synth.add_argument("--model", default=None, help="model name for --llm-endpoint")
    synth.add_argument("--cache-dir", default=None, help="dependency-graph cache (default ~/.cache/prove-hub/graphs)")
    synth.add_argument("--no-progress", action="store_true")
    synth.add_argument(
        "--sft",
        action="store_true",
        help="also write OUT/sft/: every task as a full chat from the "
        "oracle's replay (OpenAI messages, Qwen-template text)",
    )
    synth.add_argument(
        "--mount", action="append", metavar="MODULE:CLASS[=NAME]", help="mount a Python class as a server"
    )
    synth.set_defaults(handler=cmd_synth)
    graph = sub.add_parser("graph", help="print a server's tool dependency graph")
    graph.add_argument("server")
    graph.add_argument("--dot", action="store_true", help="Graphviz DOT instead of JSON")
    graph.add_argument("--cache-dir", default=None)
    graph.add_argument("--mount", action="append", metavar="MODULE:CLASS[=NAME]")
    graph.set_defaults(handler=cmd_graph)


def cmd_synth(args: argparse.Namespace) -> int:
    from hub.core import build_library
    from hub.synth import realism
    from hub.synth.output import write_all
    from hub.synth.pipeline import SynthConfig, synthesize

    if bool(args.llm_endpoint) != bool(args.model) and args.llm_endpoint:
        print("prove-hub synth: --llm-endpoint needs --model", file=sys.stderr)
        return 2
    config = SynthConfig(
        n=args.n,
        seed=args.seed,
        world_seed=args.world_seed,
        worlds=args.worlds,
        dedup_scope=args.dedup_scope,
        repeats=args.repeats,
        min_distinct=args.min_distinct,
        server_budget=args.server_budget,
        dry_attempts=args.dry_attempts,
        min_yield=args.min_yield,
        test_fraction=args.test_fraction,
        split_by=args.split_by,
        sampler_k=args.sampler_k,
        llm_endpoint=args.llm_endpoint,
        model=args.model,
        cache_dir=Path(args.cache_dir) if args.cache_dir else None,
        progress=not args.no_progress,
    )
    start = time.perf_counter()
    library = build_library(args.mount)
    result = synthesize(library, config)
    data = write_all(Path(args.out), result, library)
    stats = result.stats
    extra = {
        "world_seeds": result.worlds,
        "skipped_worlds": {str(k): v for k, v in result.skipped_worlds.items()},
        "sources": dict(stats.sources),
        "dropped": dict(stats.dropped),
        "unfilled_slots": stats.unfilled,
        "intent_errors": stats.intent_errors,
        "exhausted": stats.exhausted,
        "repeats": dict(stats.repeats),
        "attempts_by_server": stats.spent,
        "synth_seconds": round(stats.seconds, 1),
    }
    figures = realism.write(
        Path(args.out),
        result.tasks,
        library,
        fallback_servers=result.fallback_servers,
        seconds=time.perf_counter() - start,
        extra=extra,
    )
    if args.sft:
        from hub.synth.sft import write_sft

        data["sft"] = write_sft(Path(args.out) / "sft", result.tasks, library)
    keys = ("n", "kinds", "split", "seconds", "tasks_per_second", *(("sft",) if args.sft else ()))
    headline = {
        k: figures[k]
        for k in (
            "name_leak",
            "verbatim_values",
            "id_turns",
            "linked",
            "distinct_sequences",
            "worlds",
            "reference_dates",
            "smallest_server",
            "rarest_tool",
        )
    }
    headline["test_twins"] = {k: figures["twins"][k] for k in ("intent_chain", "first_turn")}
    print(
        json.dumps(
            {k: data[k] for k in keys}
            | {
                "coverage": {k: data["coverage"][k] for k in ("tools", "covered")},
                "realism": headline | {"baseline": figures["baseline"]["ratio"]},
                "total_seconds": round(time.perf_counter() - start, 1),
                "out": str(args.out),
            },
            indent=1,
        )
    )
    return 0


def cmd_graph(args: argparse.Namespace) -> int:
    from hub.core import build_library
    from hub.synth.chain.graph import load_graph

    library = build_library(args.mount)
    mount = library.mount(args.server)
    graph = load_graph(mount.name, mount.tools, Path(args.cache_dir) if args.cache_dir else None)
    print(graph.to_dot() if args.dot else json.dumps(graph.to_json(), indent=1), end="" if args.dot else "\n")
    return 0


part = Part("synth", add_commands=register)
