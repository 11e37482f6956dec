"""Output: JSONL train/test split, a manifest with statistics, and the trainer's prompt-format export.

OUT/train.jsonl, OUT/test.jsonl           hub tasks (``hub.tasks.Task``), loadable by the hub; each
                                          stamped with its ``split`` (whole opening intents held out per
                                          server: ``hub.synth.holdout``; or task by task, stratified by
                                          server and kind)
OUT/export/train.jsonl, export/test.jsonl  prompt format: chat messages + tool schemas + label
OUT/manifest.json                          counts per kind/server/level, turns, chain lengths,
                                           perturbations, recoveries, drops, coverage, timing, the
                                           held-out intents
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

from hub.engine.episodes import DEFAULT_SYSTEM, function_schema
from hub.state.library import Library
from hub.tasks import Task, write_jsonl


def stratum(task: Task) -> tuple[str, str]:
    """A task's (server, kind): the server its request is about, else its first server."""
    servers = task.meta.get("synth", {}).get("request_servers") or task.servers
    return servers[0], task.kind


def assign_splits(tasks: list[Task], test_fraction: float, seed: int) -> list[Task]:
    """Stamp every task ``train`` or ``test``, stratified by kind, then by server within a kind, seeded.

    Each kind's test count is ``round(n_kind · test_fraction)``; within the kind, each server gets the
    floor of its share and the kind's remaining test slots go to the servers with the largest
    remainders (ties in a seeded order), so every (server, kind) is within one task of its share."""
    rng = random.Random(f"split:{seed}")
    strata: dict[tuple[str, str], list[Task]] = {}
    for t in tasks:
        strata.setdefault(stratum(t), []).append(t)
    keys = sorted(strata)
    rng.shuffle(keys)
    take: dict[tuple[str, str], int] = {}
    for kind in sorted({k for _, k in keys}):
        mine = [k for k in keys if k[1] == kind]
        quota = {k: len(strata[k]) * test_fraction for k in mine}
        take.update({k: int(q) for k, q in quota.items()})
        spare = round(sum(len(strata[k]) for k in mine) * test_fraction) - sum(take[k] for k in mine)
        for k in sorted(mine, key=lambda k: take[k] - quota[k])[: max(0, spare)]:
            take[k] += 1
    for k in keys:
        members = list(strata[k])
        rng.shuffle(members)
        for i, t in enumerate(members):
            t.split = "test" if i < take[k] else "train"
    return tasks


def split(tasks: list[Task], test_fraction: float, seed: int) -> tuple[list[Task], list[Task]]:
    """(train, test) by the tasks' stamps (the unstamped ones stamped first); both in synthesis order."""
    assign_splits([t for t in tasks if t.split is None], test_fraction, seed)
    return [t for t in tasks if t.split == "train"], [t for t in tasks if t.split == "test"]


def export_record(task: Task, library: Library) -> dict[str, Any]:
    """One prompt: system + first user message, the offered tools as OpenAI function schemas, the label."""
    tools = [function_schema(library, name, task.strip_enums) for name in task.tools]
    return {
        "label": task.id,
        "task": task.id,
        "kind": task.kind,
        "messages": [
            {"role": "system", "content": task.system or DEFAULT_SYSTEM},
            {"role": "user", "content": task.turns[0].user},
        ],
        "tools": tools,
        "followups": [t.user for t in task.turns[1:]],
        "servers": task.servers,
    }


def write_export(path: Path, tasks: list[Task], library: Library) -> None:
    with path.open("w") as f:
        for t in tasks:
            f.write(json.dumps(export_record(t, library), separators=(",", ":")) + "\n")


def manifest(tasks: list[Task], train: list[Task], test: list[Task], result: Any) -> dict[str, Any]:
    synth = [t.meta.get("synth", {}) for t in tasks]
    covered = Counter(s.name for t in tasks for s in t.gt_steps())
    per_server: dict[str, Counter[str]] = {}
    for t, m in zip(tasks, synth):
        for s in m.get("request_servers") or t.servers:
            per_server.setdefault(s, Counter())[t.kind] += 1
    stats = result.stats
    return {
        "n": len(tasks),
        "split": {"train": len(train), "test": len(test)},
        "split_by": result.config.split_by,
        "held_out_intents": result.held_out,
        "split_by_kind": {
            k: {"train": sum(t.kind == k for t in train), "test": sum(t.kind == k for t in test)}
            for k in sorted({t.kind for t in tasks})
        },
        "kinds": dict(Counter(t.kind for t in tasks)),
        "variants": dict(Counter(m.get("variant") for m in synth)),
        "per_server": {s: dict(c) | {"total": sum(c.values())} for s, c in sorted(per_server.items())},
        "levels": dict(Counter(m.get("level") for m in synth if m.get("variant") != "irrelevance")),
        "turns": _hist(len(t.turns) for t in tasks),
        "chain_lengths": _hist(len(t.gt_steps()) for t in tasks if t.gt_steps()),
        "perturbations": {
            "distractors": sum(bool(m.get("distractors")) for m in synth),
            "distractor_counts": _hist(len(m["distractors"]) for m in synth if m.get("distractors")),
            "enum_stripped": sum(bool(m.get("enum_stripped")) for m in synth),
            "irrelevance": sum(m.get("variant") == "irrelevance" for m in synth),
            "missing_function": sum(m.get("variant") == "missing_function" for m in synth),
        },
        "recoveries_in_kept": dict(Counter(r for m in synth for r in m.get("recoveries", []))),
        "recoveries_all_attempts": dict(stats.recoveries),
        "coverage": {
            "tools": len(result.all_tools),
            "covered": sum(1 for n in result.all_tools if covered[n]),
            "uncovered": result.uncovered,
            "min_per_tool": min((covered[n] for n in result.all_tools), default=0),
            "coverage_swaps": stats.coverage_swaps,
        },
        "validation": {
            "replayed": stats.replayed,
            "replay_verified": stats.replay_verified,
            "kept_replay_verified": sum(t.expected_state_hash is not None for t in tasks),
            "dropped": dict(stats.dropped),
            "attempts": dict(stats.attempts),
            "max_error_rate": result.config.max_error_rate,
            "dedup_threshold": result.config.dedup_threshold,
            "repeats": dict(stats.repeats),
            "exhausted": stats.exhausted,
        },
        "graphs": {s: {"hash": g.schema_hash, "edges": len(g.edges)} for s, g in result.graphs.items()},
        "config": json.loads(result.config.model_dump_json()),
        "seconds": round(stats.seconds, 2),
        "tasks_per_second": round(len(tasks) / stats.seconds, 2) if stats.seconds else None,
        "dataset_sha256": digest(tasks),
    }


def _hist(values: Any) -> dict[str, int]:
    c = Counter(values)
    return {str(k): c[k] for k in sorted(c)}


def digest(tasks: list[Task]) -> str:
    """A content hash of the dataset (task JSON in order): equal seeds give equal digests."""
    h = hashlib.sha256()
    for t in tasks:
        h.update(t.model_dump_json().encode())
    return h.hexdigest()


def write_all(out: Path, result: Any, library: Library) -> dict[str, Any]:
    out.mkdir(parents=True, exist_ok=True)
    (out / "export").mkdir(exist_ok=True)
    train, test = split(result.tasks, result.config.test_fraction, result.config.seed)
    write_jsonl(out / "train.jsonl", train)
    write_jsonl(out / "test.jsonl", test)
    write_export(out / "export" / "train.jsonl", train, library)
    write_export(out / "export" / "test.jsonl", test, library)
    data = manifest(result.tasks, train, test, result)
    (out / "manifest.json").write_text(json.dumps(data, indent=1) + "\n")
    return data
