"""The test split by goal: whole opening intents held out, so that ``eval --split test`` measures goals the
policy never trained on.

Per server (the one a task's request is about), the tasks an intent made are grouped by their opening intent,
and openers whose tasks are first-turn twins (``hub.synth.honest.twin_keys``: the same core first turn and tool
sequence, e.g. two intents phrased alike) are joined into one group, held out or kept together. The held-out
groups are the set, of a few seeded local searches, whose test count of each kind comes nearest ``test_fraction``
of the server's tasks of that kind while every kind of the server with two tasks or more is in both splits,
preferring openers no other dialogue has as a follow-up (else training meets the goal later in a dialogue).
Tasks no intent made (the chain machine's) are split task by task (``hub.synth.output.assign_splits``).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from hub.synth.honest import opener, twin_keys
from hub.synth.output import assign_splits, stratum
from hub.tasks import Task

TRIES = 40
BOTH_SPLITS = 10.0  # the miss of a kind left out of one split: larger than any miss of its count
SPREAD = 0.05  # the miss lost per held-out group: of two sets as near their targets, the one of more goals wins
FOLLOW_UP = 1.0  # the miss of a test split all of whose tasks open with a goal other dialogues follow up with
EXPOSED, GROUPS = "~follow-up", "~groups"  # counted with the kinds, never a kind's name


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
    the test split, in a seeded order, while that lowers the miss: the test counts per kind away from their
    targets, a kind left out of a split, and (softly) test tasks whose opener other tasks have as a follow-up
    (a goal trained on later in a dialogue), less a little per held-out group (more goals, of equal balance)."""
    if fraction <= 0:
        return []
    total = Counter(str(t.kind) for t in tasks)
    follow_ups = {i for t in tasks for i in t.meta["synth"]["intents"][1:]}
    per_group = {g: _weight(g, [t for t in tasks if opener(t) in g], follow_ups) for g in groups}
    size = max(fraction * len(tasks), 1.0)

    def miss(test: Counter[str]) -> float:
        out = FOLLOW_UP * test[EXPOSED] / size - SPREAD * test[GROUPS]
        for kind, n in total.items():
            want = fraction * n
            out += abs(test[kind] - want) / max(want, 1.0)
            if n >= 2 and test[kind] in (0, n):
                out += BOTH_SPLITS
        return out

    best: tuple[float, list[frozenset[str]]] = (miss(Counter()), [])
    for _ in range(tries):
        order = list(groups)
        rng.shuffle(order)
        chosen: set[frozenset[str]] = set()
        test: Counter[str] = Counter()
        changed = True
        while changed:  # flip a group in or out while that helps: ends, as every flip lowers the miss
            changed = False
            for g in order:
                flipped = test - per_group[g] if g in chosen else test + per_group[g]
                if miss(flipped) < miss(test):
                    chosen ^= {g}
                    test, changed = flipped, True
        if miss(test) < best[0]:
            best = (miss(test), sorted(chosen, key=sorted))
    return best[1]


def _weight(group: frozenset[str], tasks: list[Task], follow_ups: set[str]) -> Counter[str]:
    """What holding ``group`` out adds to the test split: its tasks per kind, the tasks whose opener is a
    follow-up elsewhere, and one group."""
    out = Counter(str(t.kind) for t in tasks)
    out[EXPOSED] = len(tasks) if group & follow_ups else 0
    out[GROUPS] = 1
    return out
