"""Synthesis parts on known inputs: the dependency graph, the filters, values, the sampler."""

from __future__ import annotations

import json
import random
from pathlib import Path

from hub.config import REFERENCE_NOW
from hub.synth.chain.graph import build_graph, load_graph, schema_hash
from hub.synth.chain.sampler import Harvester, Sampler
from hub.synth.chain.values import ValueMaker
from hub.synth.validate import Deduper, call_tokens, dedup, error_filter, jaccard
from hub.tasks import GTStep, Task, Turn
from tests.conftest import LIBRARY


def edges(server: str) -> set[tuple[str, str, str]]:
    g = build_graph(server, LIBRARY.mount(server).tools)
    return {(e.src, e.dst, e.kind) for e in g.edges}


def test_graph_edges_on_banking() -> None:
    e = edges("banking")
    assert ("search_customers", "get_customer", "explicit") in e  # returns customer -> customer_id required
    assert ("get_customer", "get_account", "explicit") in e  # returns account ids
    assert ("open_account", "deposit_funds", "explicit") in e
    assert ("list_payees", "pay_payee", "explicit") in e
    assert ("withdraw_funds", "close_account", "implicit") in e  # close_account requires=("withdraw_funds",)
    assert not any(src == "get_distinct_values" for src, _, _ in e)  # returns nothing
    assert not any(dst == "search_customers" for _, dst, _ in e)  # no required entity input
    # list_accounts' customer_id is optional: no explicit edge into it
    assert ("get_customer", "list_accounts", "explicit") not in e


def test_graph_cache_by_schema_hash(tmp_path: Path) -> None:
    tools = LIBRARY.mount("banking").tools
    g1 = load_graph("banking", tools, tmp_path)
    path = tmp_path / f"graph-banking-{schema_hash('banking', tools)}.json"
    assert path.exists()
    data = json.loads(path.read_text())
    data["edges"] = data["edges"][:1]  # the cache is what is read when the hash matches
    path.write_text(json.dumps(data))
    assert len(load_graph("banking", tools, tmp_path).edges) == 1
    assert len(g1.edges) > 1
    other = {k: v for k, v in tools.items() if k != "close_account"}
    assert schema_hash("banking", other) != schema_hash("banking", tools)
    assert len(load_graph("banking", other, tmp_path).edges) > 1


def task(tid: str, calls: list[tuple[str, str, dict]], traj: list[dict] | None = None) -> Task:
    steps = [GTStep(server=s, tool=t, arguments=a, id=f"g{i}") for i, (s, t, a) in enumerate(calls)]
    meta = {"synth": {"trajectory": traj}} if traj is not None else {}
    return Task(id=tid, servers=["banking"], turns=[Turn(user="x", calls=steps)], meta=meta)


def test_dedup_on_crafted_tasks() -> None:
    a = task(
        "a",
        [
            ("banking", "get_account", {"account_id": "ACC-0001"}),
            ("banking", "list_cards", {"account_id": "ACC-0001"}),
            ("banking", "list_transactions", {"account_id": "ACC-0001"}),
        ],
    )
    b = task(
        "b",
        [
            ("banking", "get_account", {"account_id": "ACC-0001"}),
            ("banking", "list_cards", {"account_id": "ACC-0001"}),
            ("banking", "list_transactions", {"account_id": "ACC-0001"}),
            ("banking", "list_payees", {"customer_id": "CUS-0001"}),
        ],
    )
    c = task(
        "c",
        [("banking", "get_account", {"account_id": "ACC-0002"}), ("banking", "list_cards", {"account_id": "ACC-0002"})],
    )
    assert jaccard(call_tokens(a), call_tokens(b)) == 5 / 7  # 3 calls and 2 ordered pairs shared of 7 tokens
    kept, dropped = dedup([a, b, c])
    assert [t.id for t in kept] == ["a", "c"] and [t.id for t in dropped] == ["b"]
    kept, _ = dedup([a, b, c], threshold=0.8)
    assert [t.id for t in kept] == ["a", "b", "c"]


def turns_task(tid: str, turns: list[list[str]]) -> Task:
    steps = iter(range(100))
    return Task(
        id=tid,
        servers=["banking"],
        turns=[
            Turn(
                user="x",
                calls=[
                    GTStep(server="banking", tool=t, arguments={"account_id": "ACC-0001"}, id=f"g{next(steps)}")
                    for t in calls
                ],
            )
            for calls in turns
        ],
    )


def test_dedup_compares_sequences_not_bags() -> None:
    base = turns_task("base", [["get_account", "list_cards"], ["list_transactions"]])
    reordered = turns_task("reordered", [["list_cards", "get_account"], ["list_transactions"]])
    resplit = turns_task("resplit", [["get_account"], ["list_cards", "list_transactions"]])
    again = turns_task("again", [["get_account", "list_cards"], ["list_transactions"], ["list_cards"]])
    other_ids = turns_task("other_ids", [["get_account", "list_cards"], ["list_transactions"]])
    other_ids.turns[0].calls[0].arguments["account_id"] = "ACC-0002"
    assert call_tokens(base) == call_tokens(other_ids)  # values are not compared
    for t in (reordered, resplit):  # the same calls, another sequence
        assert sorted(s.name for s in t.gt_steps()) == sorted(s.name for s in base.gt_steps())
        assert jaccard(call_tokens(base), call_tokens(t)) < 0.7
    assert jaccard(call_tokens(base), call_tokens(again)) == 5 / 7  # one more call at the end: a near duplicate
    kept, dropped = dedup([base, reordered, resplit, again, other_ids])
    assert [t.id for t in kept] == ["base", "reordered", "resplit"]
    assert [t.id for t in dropped] == ["again", "other_ids"]


def test_dedup_is_fast_on_many_sets() -> None:
    rng = random.Random(0)
    d = Deduper(0.7)
    for _ in range(20_000):
        d.admit(frozenset(f"t{rng.randint(0, 3000)}" for _ in range(rng.randint(2, 5))))
    assert d.comparisons < 2_000_000


def test_error_filter_on_crafted_trajectories() -> None:
    good = [
        ("banking", "get_account", {"account_id": "ACC-0001"}),
        ("banking", "list_cards", {"account_id": "ACC-0001"}),
        ("banking", "list_transactions", {"account_id": "ACC-0001"}),
    ]
    ok = [{"server": s, "tool": t, "arguments": a, "ok": True} for s, t, a in good]
    bad_call = {"server": "banking", "tool": "get_account", "arguments": {"account_id": "ACC-9999"}, "ok": False}
    one_bad = task("one", good, [bad_call, *ok])  # 1 of 4 = 25%
    two_bad = task("two", good, [bad_call, bad_call, *ok])  # 2 of 5 = 40%
    schema_bad = task(
        "schema",
        good,
        [
            {"server": "banking", "tool": "get_account", "arguments": {"id": 1}, "ok": False},
            {"server": "banking", "tool": "nope", "arguments": {}, "ok": False},
            *ok[:1],
        ],
    )
    kept, dropped = error_filter([one_bad, two_bad, schema_bad, task("plain", good)], LIBRARY)
    assert [t.id for t in kept] == ["one", "plain"]
    assert [t.id for t in dropped] == ["two", "schema"]


def test_values_follow_schemas() -> None:
    vm = ValueMaker(random.Random(1), REFERENCE_NOW)
    tools = LIBRARY.mount("calendar").tools
    start = vm.make("start", tools["create_event"].input_schema["properties"]["start"], {})
    assert len(start) == 16 and start > "2026-06-01"
    banking = LIBRARY.mount("banking").tools
    amount = vm.make("amount", banking["deposit_funds"].input_schema["properties"]["amount"], {})
    assert isinstance(amount, float) and amount > 0
    kind = vm.make("type", banking["open_account"].input_schema["properties"]["type"], {})
    assert kind in ("checking", "savings", "business")
    for _ in range(20):
        tools["create_event"].args_model.model_validate(
            {"calendar_id": "CAL-0001", "title": vm.make("title", {"type": "string"}, {}), "start": start, "end": start}
        )


def test_harvester_and_sampler() -> None:
    h = Harvester(LIBRARY.mount("banking").tools)
    got = h.harvest(
        {"customer_id": "CUS-0001", "name": "Ann Lee", "email": "a@x.com", "account_ids": ["ACC-0001", "ACC-0002"]},
        ("customer",),
    )
    assert got.ids["customer"] == ["CUS-0001"] and got.ids["account"] == ["ACC-0001", "ACC-0002"]
    assert got.records[("customer", "CUS-0001")].label == "Ann Lee"
    s = Sampler(LIBRARY, seed=1, k=10)
    ctx = s.for_task("banking", 3)
    assert ctx.block == 0 and s.for_task("banking", 9) is ctx and s.for_task("banking", 10).block == 1
    assert len(ctx.entities["account"]) >= 10 and all(r.support >= 3 for r in ctx.entities["account"])
    assert ctx.values["city"]  # from get_distinct_values
    again = Sampler(LIBRARY, seed=1, k=10).for_task("banking", 3)
    assert [r.id for r in again.entities["account"]] == [r.id for r in ctx.entities["account"]]


def test_repeats_are_bounded_per_structure_and_never_on_the_same_world() -> None:
    d = Deduper(0.7, repeats=3)
    tokens = call_tokens(turns_task("a", [["get_account", "list_cards"], ["list_transactions"]]))
    d.add(tokens, world=0)
    found = d.matches(tokens)
    assert found == [0]
    assert not d.may_repeat(found, 0)  # the same structure on the same world is a plain duplicate
    assert d.may_repeat(found, 1)
    d.repeat(found, 1)
    d.repeat(d.matches(tokens), 2)
    assert not d.may_repeat(d.matches(tokens), 3)  # 3 copies: the bound
    assert not d.may_repeat([], 3)  # nothing matched: not a repeat at all
    once = Deduper(0.7)
    once.add(tokens, world=0)
    assert not once.may_repeat(once.matches(tokens), 1)  # repeats=1: near duplicates are dropped
