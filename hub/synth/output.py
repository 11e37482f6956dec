"""Output: JSONL train/test split, a manifest with statistics, and the trainer's prompt-format export.

OUT/train.jsonl, OUT/test.jsonl           hub tasks (``hub.tasks.Task``), loadable by the hub; each
                                          stamped with its ``split`` (stratified by server and kind)
OUT/export/train.jsonl, export/test.jsonl  prompt format: chat messages + tool schemas + label
OUT/manifest.json                          counts per kind/server/level, turns, chain lengths,
                                           perturbations, recoveries, drops, coverage, timing
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
from hub.synth.phrasing import core, stock, turn_values
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


def twin_keys(task: Task, boilerplate: set[str]) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """A task's two twin keys: (its core first turn, its tool sequence) and (its intent chain, its tool sequence).
    A test task with a training task of the same key is one the policy may have learnt by heart."""
    sequence = tuple(s.name for s in task.gt_steps())
    first = core(task.turns[0].user, boilerplate, turn_values(task))
    return (first, sequence), (tuple(task.meta.get("synth", {}).get("intents") or ()), sequence)


def assign_by_intent(tasks: list[Task], test_fraction: float, seed: int, tries: int = 40) -> dict[str, list[str]]:
    """Stamp every task ``train`` or ``test`` so that the test split holds out whole opening intents, chosen per
    server; the held-out intents per server. Openers whose tasks share a core first turn and tool sequence are
    held out together (else the test split has twins in training). Per server, the held-out set is the one, of
    ``tries`` seeded greedy draws, whose test count of each kind comes nearest ``test_fraction`` of that kind
    while every kind of the server with two tasks or more has tasks in both splits. Tasks without intents (the
    chain machine's) are split task by task."""
    rng = random.Random(f"split-intent:{seed}")
    boilerplate = stock(tasks)
    by_server: dict[str, list[Task]] = {}
    loose: list[Task] = []
    for t in tasks:
        if t.meta.get("synth", {}).get("intents"):
            by_server.setdefault(stratum(t)[0], []).append(t)
        else:
            loose.append(t)
    held: dict[str, list[str]] = {}
    for server in sorted(by_server):
        mine = by_server[server]
        groups = _opener_groups(mine, boilerplate)
        chosen = _hold_out(groups, mine, test_fraction, rng, tries)
        held[server] = sorted(o for g in chosen for o in g)
        out = {o for g in chosen for o in g}
        for t in mine:
            t.split = "test" if t.meta["synth"]["intents"][0] in out else "train"
    assign_splits(loose, test_fraction, seed)
    return held


def _opener_groups(tasks: list[Task], boilerplate: set[str]) -> list[frozenset[str]]:
    """Opening intents joined when their tasks share a twin key (core first turn and tool sequence)."""
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    first_of: dict[tuple[Any, ...], str] = {}
    for t in tasks:
        opener = t.meta["synth"]["intents"][0]
        key = twin_keys(t, boilerplate)[0]
        parent[root(opener)] = root(first_of.setdefault(key, opener))
    groups: dict[str, set[str]] = {}
    for opener in parent:
        groups.setdefault(root(opener), set()).add(opener)
    return sorted((frozenset(g) for g in groups.values()), key=sorted)


def _hold_out(
    groups: list[frozenset[str]], tasks: list[Task], fraction: float, rng: random.Random, tries: int
) -> list[frozenset[str]]:
    kinds = sorted({t.kind for t in tasks})
    total = Counter(str(t.kind) for t in tasks)
    per_group: dict[frozenset[str], Counter[str]] = {
        g: Counter(str(t.kind) for t in tasks if t.meta["synth"]["intents"][0] in g) for g in groups
    }

    def miss(test: Counter[str]) -> float:
        out = 0.0
        for k in kinds:
            want = fraction * total[k]
            out += abs(test[k] - want) / max(want, 1.0)
            if total[k] >= 2 and (test[k] == 0 or test[k] == total[k]):
                out += 10.0
        return out

    best: tuple[float, list[frozenset[str]]] = (miss(Counter()), [])
    for _ in range(tries):
        order = list(groups)
        rng.shuffle(order)
        chosen: list[frozenset[str]] = []
        test: Counter[str] = Counter()
        for g in order:
            if miss(test + per_group[g]) < miss(test):
                chosen.append(g)
                test += per_group[g]
        if miss(test) < best[0]:
            best = (miss(test), chosen)
    return best[1]


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
        "held_out_intents": getattr(result, "held_out", {}),
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
