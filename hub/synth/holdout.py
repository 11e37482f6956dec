"""The test split by goal: whole opening intents held out, so that ``eval --split test`` measures goals the
policy never trained on.

Per server (the one a task's request is about), the tasks an intent made are grouped by their opening intent,
and openers whose tasks are first-turn twins (``hub.synth.honest.twin_keys``: the same core first turn and tool
sequence, e.g. two intents phrased alike) are joined into one group, held out or kept together. The held-out
groups are the set, of a few seeded local searches, whose test count of each kind comes nearest ``test_fraction``
of the server's tasks of that kind while every kind of the server with two tasks or more is in both splits.
Tasks no intent made (the chain machine's) are split task by task (``hub.synth.output.assign_splits``).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from hub.synth.honest import twin_keys
from hub.synth.output import assign_splits, stratum
from hub.tasks import Task

TRIES = 40
BOTH_SPLITS = 10.0  # the miss of a kind left out of one split: larger than any miss of its count
SPREAD = 0.05  # the miss lost per held-out group: of two sets as near their targets, the one of more goals wins


def assign(tasks: list[Task], test_fraction: float, seed: int, split_by: str) -> dict[str, list[str]]:
    """Stamp every task ``train`` or ``test`` by ``split_by`` (``intent`` or ``task``); the held-out opening
    intents per server (none when split by task)."""
    if split_by == "task":
        assign_splits(tasks, test_fraction, seed)
        return {}
    return assign_by_intent(tasks, test_fraction, seed)


def assign_by_intent(tasks: list[Task], test_fraction: float, seed: int) -> dict[str, list[str]]:
    by_server: dict[str, list[Task]] = {}
    loose: list[Task] = []
    for t in tasks:
        if opener(t) is None:
            loose.append(t)
        else:
            by_server.setdefault(stratum(t)[0], []).append(t)
    held: dict[str, list[str]] = {}
    for server in sorted(by_server):
        mine = by_server[server]
        rng = random.Random(f"split-intent:{seed}:{server}")
        out = {o for g in hold_out(opener_groups(mine), mine, test_fraction, rng) for o in g}
        held[server] = sorted(out)
        for t in mine:
            t.split = "test" if opener(t) in out else "train"
    assign_splits(loose, test_fraction, seed)
    return held


def opener(task: Task) -> str | None:
    intents = task.meta.get("synth", {}).get("intents")
    return intents[0] if intents else None


def opener_groups(tasks: list[Task]) -> list[frozenset[str]]:
    """The tasks' opening intents, joined (union-find) where tasks of two openers are first-turn twins."""
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    first_of: dict[object, str] = {}
    for t in tasks:
        o = t.meta["synth"]["intents"][0]
        parent[root(o)] = root(first_of.setdefault(twin_keys(t).first_turn, o))
    groups: dict[str, set[str]] = {}
    for o in parent:
        groups.setdefault(root(o), set()).add(o)
    return sorted((frozenset(g) for g in groups.values()), key=sorted)


def hold_out(
    groups: Sequence[frozenset[str]], tasks: list[Task], fraction: float, rng: random.Random, tries: int = TRIES
) -> list[frozenset[str]]:
    """The groups to hold out: the best of ``tries`` seeded local searches, each flipping groups in or out of
    the test split, in a seeded order, while that brings the test counts per kind nearer their targets."""
    if fraction <= 0:
        return []
    total = Counter(str(t.kind) for t in tasks)
    per_group = {g: Counter(str(t.kind) for t in tasks if opener(t) in g) for g in groups}

    def miss(test: Counter[str], held: int) -> float:
        out = -SPREAD * held
        for kind, n in total.items():
            want = fraction * n
            out += abs(test[kind] - want) / max(want, 1.0)
            if n >= 2 and test[kind] in (0, n):
                out += BOTH_SPLITS
        return out

    best: tuple[float, list[frozenset[str]]] = (miss(Counter(), 0), [])
    for _ in range(tries):
        order = list(groups)
        rng.shuffle(order)
        chosen: set[frozenset[str]] = set()
        test: Counter[str] = Counter()
        changed = True
        while changed:  # flip a group in or out while that helps: ends, as every flip lowers the miss
            changed = False
            for g in order:
                out = g in chosen
                flipped = test - per_group[g] if out else test + per_group[g]
                if miss(flipped, len(chosen) + (-1 if out else 1)) < miss(test, len(chosen)):
                    chosen ^= {g}
                    test, changed = flipped, True
        if miss(test, len(chosen)) < best[0]:
            best = (miss(test, len(chosen)), sorted(chosen, key=sorted))
    return best[1]
