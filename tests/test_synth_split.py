"""The test split of unseen goals: whole opening intents held out per server, every server and kind in both
splits; the task-by-task split as it was; test tasks with a training twin counted on hand-made sets."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from hub.synth.holdout import assign, opener, opener_groups
from hub.synth.honest import first_core, twin_keys, twins
from hub.synth.output import assign_splits
from hub.tasks import Task

SERVERS = ("banking", "maps", "calendar", "payments")


def task(
    tid: str,
    server: str,
    kind: str,
    intents: list[str],
    user: str,
    tools: tuple[str, ...] = (),
    split: str | None = None,
    **synth: Any,
) -> Task:
    calls = [{"id": f"g{i + 1}", "server": server, "tool": name} for i, name in enumerate(tools)]
    turns: list[dict[str, Any]] = [{"user": user, "calls": calls if kind == "mcp" else []}]
    if kind == "clarify":
        turns = [{"user": user, "ask": True, "missing": ["x"]}, {"user": "x is 5", "calls": calls}]
    return Task.model_validate(
        {
            "id": tid,
            "kind": kind,
            "split": split,
            "servers": [server],
            "turns": turns,
            "meta": {"synth": {"intents": intents, "request_servers": [server], **synth}},
        }
    )


def synthetic_set() -> list[Task]:
    """Per server: 8 openers, each making 6 mcp tasks, 2 clarify tasks and 1 abstain task, phrased apart."""
    out = []
    for server in SERVERS:
        for o in range(8):
            for k, kind in enumerate(["mcp"] * 6 + ["clarify"] * 2 + ["abstain"]):
                follow = [f"follow{k % 3}"] if kind == "mcp" else []
                out.append(
                    task(
                        f"{server}-{o}-{k}",
                        server,
                        kind,
                        [f"goal{o}", *follow],
                        f"Goal number {o} of {server} phrased its own way {'x' * o}",
                        (f"tool{o}", f"tool{k % 3}"),
                    )
                )
    return out


def test_split_by_intent_holds_out_whole_openers_with_every_server_and_kind_in_both_splits() -> None:
    tasks = synthetic_set()
    held = assign(tasks, 0.1, 0, "intent")
    openers: dict[tuple[str, str], set[str | None]] = defaultdict(set)
    for t in tasks:
        openers[(t.servers[0], str(opener(t)))].add(t.split)
    assert all(len(splits) == 1 for splits in openers.values())
    for server in SERVERS:
        mine = [t for t in tasks if t.servers[0] == server]
        assert held[server] == sorted({str(opener(t)) for t in mine if t.split == "test"})
        assert held[server]
        for kind in ("mcp", "clarify", "abstain"):
            assert {t.split for t in mine if t.kind == kind} == {"train", "test"}, (server, kind)
    assert 0.05 <= sum(t.split == "test" for t in tasks) / len(tasks) <= 0.2
    again = synthetic_set()
    assign(again, 0.1, 0, "intent")
    assert [t.split for t in again] == [t.split for t in tasks]


def test_openers_phrased_alike_with_the_same_calls_are_held_out_together() -> None:
    names = {"goal1": "Ana Ruiz", "goal2": "Sven Kim"}
    tasks = [  # goal1 and goal2 of every server: the same words (their names apart) and the same calls
        task(t.id, server_of(t), t.kind, intents(t), f"Pay what {names[o]} owes on {server_of(t)}", ("pay",))
        if (o := str(opener(t))) in names
        else t
        for t in synthetic_set()
    ]
    groups = opener_groups([t for t in tasks if server_of(t) == "banking"])
    assert frozenset(names) in groups
    assign(tasks, 0.2, 3, "intent")
    for server in SERVERS:
        assert len({t.split for t in tasks if server_of(t) == server and opener(t) in names}) == 1
    assert twins(tasks)["first_turn"] == 0.0


def server_of(t: Task) -> str:
    return t.servers[0]


def intents(t: Task) -> list[str]:
    return list(t.meta["synth"]["intents"])


def test_held_out_goals_are_ones_no_other_dialogue_follows_up_with() -> None:
    tasks = [  # goal0..goal4 are also follow-ups of goal5..goal9: holding them out, training still meets them
        task(
            f"t{o}-{k}", "banking", "mcp", [f"goal{o}", *([f"goal{o - 5}"] if o >= 5 else [])], f"ask{'x' * o}", ("a",)
        )
        for o in range(10)
        for k in range(10)
    ]
    for seed in range(5):
        held = assign(tasks, 0.1, seed, "intent")
        assert len(held["banking"]) == 1 and held["banking"][0] >= "goal5", seed
    assert twins(tasks)["opener_as_follow_up"] == 0.0


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(SERVERS), st.integers(0, 5), st.sampled_from(["mcp", "clarify", "abstain"])),
        min_size=1,
        max_size=60,
    ),
    st.integers(0, 3),
)
def test_no_opening_intent_is_in_both_splits(rows: list[tuple[str, int, str]], seed: int) -> None:
    tasks = [task(f"t{i}", s, k, [f"goal{o}"], f"ask {i}", ("tool",)) for i, (s, o, k) in enumerate(rows)]
    held = assign(tasks, 0.3, seed, "intent")
    where: dict[tuple[str, str], set[str | None]] = defaultdict(set)
    for t in tasks:
        where[(t.servers[0], str(opener(t)))].add(t.split)
        assert t.split in ("train", "test")
        assert (t.split == "test") == (str(opener(t)) in held.get(t.servers[0], []))
    assert all(len(v) == 1 for v in where.values())


def test_split_by_task_keeps_the_stratified_split() -> None:
    tasks = synthetic_set()
    old = assign_splits([t.model_copy() for t in tasks], 0.1, 5)
    assert assign(tasks, 0.1, 5, "task") == {}
    assert [t.split for t in tasks] == [t.split for t in old]
    both = defaultdict(set)
    for t in tasks:
        both[(t.servers[0], opener(t))].add(t.split)
    assert any(len(v) == 2 for v in both.values())  # by task, one goal lands in both splits


def test_tasks_no_intent_made_are_split_task_by_task() -> None:
    tasks = synthetic_set() + [task(f"m{i}", "maps", "mcp", [], f"machine {i}", ("walk",)) for i in range(20)]
    assign(tasks, 0.1, 0, "intent")
    machine = [t for t in tasks if opener(t) is None]
    assert sum(t.split == "test" for t in machine) == 2


# The twin figures ------------------------------------------------------------------------------


def test_the_core_first_turn_masks_values_and_strips_greetings_and_closers() -> None:
    a = task(
        "a",
        "banking",
        "mcp",
        ["g"],
        "Hi! I'm Ana Ruiz. Pay invoice INV-00012 of $28.50 to Jacob Haddad. Thanks!",
        ("pay",),
    )
    b = task("b", "banking", "mcp", ["g"], "Pay invoice INV-00977 of $1,200 to Mia Lee", ("pay",))
    assert first_core(a) == first_core(b) == "pay invoice <id> of <money> to <name>"
    spend = [
        Task.model_validate(
            {
                "id": f"s{i}",
                "servers": ["budget"],
                "turns": [
                    {
                        "user": f"What did I spend on {c} in May?",
                        "calls": [{"id": "g1", "server": "budget", "tool": "x", "arguments": {"category": c}}],
                    }
                ],
            }
        )
        for i, c in enumerate(["groceries", "pet care"])
    ]
    assert first_core(spend[0]) == first_core(spend[1]) != first_core(a)


def test_twin_figures_count_a_known_twin_and_not_a_non_twin() -> None:
    train = [
        task(
            "a", "banking", "mcp", ["pay", "check"], "Hi! I'm Ana Ruiz. Pay invoice INV-00012 now.", ("pay",), "train"
        ),
        task("b", "banking", "mcp", ["list"], "Show my deactivated accounts", ("list_accounts",), "train"),
    ]
    test = [
        # the same core first turn and calls as "a": a first-turn twin (its intents differ)
        task("t1", "banking", "mcp", ["settle"], "Pay invoice INV-00777 now. Thanks a lot.", ("pay",), "test"),
        # the same words as "b" but other calls: no twin
        task("t2", "banking", "mcp", ["list2"], "Show my deactivated accounts", ("search",), "test"),
        # the same intents and calls as "a" in other words: an intent-chain twin, not a first-turn one
        task("t3", "banking", "mcp", ["pay", "check"], "Could you settle what I owe?", ("pay",), "test"),
        # another goal, but one a training task ("a") has as its follow-up
        task("t4", "banking", "mcp", ["check"], "Did it go through?", ("get_invoice",), "test"),
    ]
    figures = twins(train + test)
    assert figures["test_tasks"] == 4
    assert (figures["first_turn_tasks"], figures["intent_chain_tasks"]) == (1, 1)
    assert figures["first_turn"] == figures["intent_chain"] == 0.25
    assert figures["first_turn_examples"] == [{"test": "t1", "train": "a", "core": "pay invoice <id> now"}]
    assert figures["opener_as_follow_up"] == 0.25  # t4 alone: "pay" (t3) opens the training task, never follows
    assert twin_keys(test[0]).intent_chain == (("settle",), ("banking__pay",))
