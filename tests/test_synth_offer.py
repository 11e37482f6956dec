"""What a synthesized task offers gives nothing away, and a reading turn records what its reply must tell.

- An abstain task offers write tools of its server; replay on a fresh fork shows none of them reaches the state
  the request wanted (and finds one that does when it is on offer).
- realism.json's ``abstain_cue``: the rule "no write tool of the request's server offered → abstain" scored over
  every task; a set where it is perfect gives 1.0.
- ``default_answer``: entities that carry lists, empty listings, rows without a name, fields asked for by the
  question's form; on a small synthesis nearly every reading turn records an answer, every read-only task one.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from hub.kit.intent import CallRecord
from hub.synth import unsolvable
from hub.synth.answers import default_answer
from hub.synth.checks import abstain_problems, requested_tools
from hub.synth.config import Slot, SynthConfig
from hub.synth.giveaway import abstain_cue, answer_coverage, offers_own_write, reading_turns
from hub.synth.pipeline import Synthesizer
from hub.tasks import Task
from tests.conftest import LIBRARY, World

SERVERS = ("banking", "crm", "email", "shopping", "issue_tracker", "budget", "calendar", "trading")


@pytest.fixture(scope="module")
def synth(tmp_path_factory: pytest.TempPathFactory) -> Synthesizer:
    config = SynthConfig(n=100, seed=5, cache_dir=tmp_path_factory.mktemp("graphs"), sampler_k=40, worlds=2)
    return Synthesizer(LIBRARY, config)


def attempts(synth: Synthesizer, slot: Slot, tries: int) -> list[Task]:
    made = (synth.attempt(slot, server, j) for j in range(tries) for server in SERVERS)
    return [t for t in made if t is not None]


# Abstention ------------------------------------------------------------------------------------


def test_a_missing_function_task_offers_its_servers_writes_and_none_solves_it(synth: Synthesizer) -> None:
    tasks = attempts(synth, Slot("abstain", "complete", "missing_function"), 4)
    assert len(tasks) >= 8
    with_writes = [t for t in tasks if offers_own_write(t, LIBRARY)]
    assert len(with_writes) >= 0.8 * len(tasks)
    for task in tasks:
        assert task.meta["synth"]["withheld"], task.id
        assert abstain_problems(task, LIBRARY) == [], task.id  # the name checks and the replay
    for task in with_writes[:3]:  # the replay is live: the withheld tool on offer reaches the wanted state
        wanted = requested_tools(task, LIBRARY)
        found = unsolvable.problems(task.model_copy(update={"tools": [*task.tools, *wanted]}), LIBRARY)
        assert ("abstain_solvable", f"{wanted[0]} reaches the state the request wants") in found, task.id


def withdrawal(tools: list[str], account: str, amount: float = 50.0) -> Task:
    withheld = unsolvable.withheld("banking", [("withdraw_funds", {"account_id": account, "amount": amount})])
    return Task.model_validate(
        {
            "id": "w",
            "kind": "abstain",
            "servers": ["banking"],
            "turns": [{"user": f"Please take ${amount:.2f} out of {account}."}],
            "tools": tools,
            "meta": {"synth": {"request_servers": ["banking"], "withheld": withheld}},
        }
    )


def test_replay_tells_a_write_that_reaches_the_wanted_state_from_one_that_does_not() -> None:
    account = World().ok("banking", "list_accounts", status="active")["accounts"][0]["account_id"]
    others = withdrawal(["banking__deposit_funds", "banking__transfer_funds", "banking__get_account"], account)
    assert unsolvable.problems(others, LIBRARY) == []  # a deposit changes the balance the other way
    solver = withdrawal(["banking__deposit_funds", "banking__withdraw_funds"], account)
    assert unsolvable.problems(solver, LIBRARY) == [
        ("abstain_solvable", "banking__withdraw_funds reaches the state the request wants")
    ]
    gone = withdrawal(["banking__deposit_funds"], "ACC-9999")
    assert [k for k, _ in unsolvable.problems(gone, LIBRARY)] == ["abstain_unreplayable"]
    bare = others.model_copy(update={"meta": {}})
    assert unsolvable.problems(bare, LIBRARY) == []  # hand-written tasks record no withheld calls


def cue_task(i: int, kind: str, tools: list[str]) -> Task:
    turn: dict[str, Any] = {"user": "Show me my accounts."}
    if kind == "mcp":
        turn["calls"] = [{"id": "g1", "server": "banking", "tool": "list_accounts", "arguments": {}}]
    return Task.model_validate(
        {
            "id": f"t{i}",
            "kind": kind,
            "servers": sorted({n.split("__")[0] for n in tools} | {"banking"}),
            "turns": [turn],
            "tools": tools,
            "meta": {"synth": {"request_servers": ["banking"]}},
        }
    )


def test_the_abstain_cue_is_one_where_the_offer_gives_abstention_away() -> None:
    reads, writes = ["banking__list_accounts"], ["banking__list_accounts", "banking__deposit_funds"]
    elsewhere = ["maps__search_places", "email__send_email"]  # another server's write is no cue
    perfect = [cue_task(0, "abstain", reads), cue_task(1, "abstain", elsewhere), cue_task(2, "mcp", writes)]
    assert abstain_cue(perfect, LIBRARY) == {
        "balanced_accuracy": 1.0,
        "precision": 1.0,
        "tp": 2,
        "fp": 0,
        "fn": 0,
        "tn": 1,
    }
    mixed = [cue_task(0, "abstain", reads), cue_task(1, "abstain", writes), cue_task(2, "mcp", reads)]
    mixed += [cue_task(3, "mcp", writes), cue_task(4, "mcp", writes)]
    cue = abstain_cue(mixed, LIBRARY)
    assert (cue["tp"], cue["fp"], cue["fn"], cue["tn"]) == (1, 1, 1, 2)
    assert cue["balanced_accuracy"] == pytest.approx((1 / 2 + 2 / 3) / 2, abs=1e-4) and cue["precision"] == 0.5


# Answers ---------------------------------------------------------------------------------------


def read(tool: str, result: Any) -> list[CallRecord]:
    return [CallRecord(tool, {}, result, "read", 0)]


def test_an_entity_that_carries_lists_is_read_as_an_entity() -> None:
    user = {"user_id": "USR-0213", "name": "Valentina Laurent", "city": "San Antonio", "role": "buyer"}
    user |= {"status": "active", "rating": 4.1, "active_listing_ids": [], "bids": []}
    assert default_answer(read("get_user", user), "Who won it?") == ["Valentina Laurent"]
    assert default_answer(read("get_user", user), "Where are they based?") == ["San Antonio"]
    contact = {"contact_id": "CON-0001", "name": "Lars", "email": "l@x.example", "title": "Buyer", "phone": "1"}
    assert default_answer(read("get_contact", contact | {"deals": []}), "Is Lars on any open deals?") == [False]
    deals = [{"deal_id": "DEA-0001", "name": "Pilot"}, {"deal_id": "DEA-0002", "name": "Renewal"}]
    assert default_answer(read("get_contact", contact | {"deals": deals}), "Is Lars on any deals?") == [
        "Pilot",
        "Renewal",
    ]
    assert default_answer(read("get_contact", contact | {"deals": deals}), "How many deals has Lars?") == [2]


def test_listings_empty_nameless_and_asked_by_the_questions_form() -> None:
    assert default_answer(read("list_expenses", {"expenses": [], "count": 0}), "Show me Peloton's charges") == [False]
    assert default_answer(read("list_expenses", {"expenses": [], "count": 0}), "How many charges?") == [0]
    rows = [{"expense_id": "EXP-0001", "amount": 1950.0, "merchant": "Maple Court"}]
    assert default_answer(read("list_expenses", {"expenses": rows, "count": 1}), "Show me rent") == ["Maple Court"]
    busy = {"user_id": "USR-0003", "busy": [{"start": "2026-06-10T09:00:00", "end": "2026-06-10T10:00:00"}]}
    assert default_answer(read("get_free_busy", busy), "Is Lars busy at other times that day?") == [
        "2026-06-10T09:00:00"
    ]
    orders = {"orders": [{"order_id": "ORD-01042", "symbol": "AAPL", "status": "filled"}], "count": 1}
    assert default_answer(read("list_orders", orders), "Which of my AAPL orders went through?") == ["ORD-01042"]
    route = {"origin_place_id": "PLC-0001", "mode": "transit", "distance_km": 12.5, "duration_min": 38}
    assert default_answer(read("get_route", route), "How long is that by transit?") == [38]
    assert default_answer(read("get_route", route), "How far is it?") == [12.5]
    account = {"account_id": "ACC-0001", "customer_id": "CUS-0001", "type": "savings", "nickname": "Jo's savings"}
    account |= {"balance": 12810.53, "status": "active"}
    assert default_answer(read("get_account", account), "So what's left in my savings?") == [12810.53]
    assert default_answer([*read("get_account", account), CallRecord("freeze_account", {}, {}, "write", 0)], "x") == []


def test_a_small_synthesis_records_answers_on_reading_turns(synth: Synthesizer, tmp_path: Path) -> None:
    tasks = attempts(synth, Slot("mcp", "complete", None), 4)
    tasks += attempts(synth, Slot("mcp", "minimal", None), 2)
    found = answer_coverage(tasks, LIBRARY)
    assert found["reading_turns"] >= 10 and found["read_only_tasks"] >= 3, found
    assert found["answered"] >= 0.9 and found["read_only_answered"] == 1.0, found
    random.Random(0).shuffle(tasks)
    assert abstain_cue(tasks, LIBRARY)["tp"] == 0  # no abstain task among them


def test_a_reading_turn_asks_in_the_turns_since_the_last_call() -> None:
    step = {"id": "g1", "server": "banking", "tool": "list_accounts", "arguments": {}}
    write = {"id": "g2", "server": "banking", "tool": "freeze_account", "arguments": {"account_id": "ACC-0001"}}
    turns = [
        {"user": "How much is in my accounts?", "ask": True, "missing": ["customer_id"]},
        {"user": "Sorry, it's CUS-0001.", "calls": [step], "answer": [120.5]},
        {"user": "I'm Ana Ruiz.", "calls": [step | {"id": "g3"}]},
        {"user": "Freeze the first one.", "calls": [write]},
    ]
    task = Task.model_validate({"id": "r", "kind": "clarify", "servers": ["banking"], "turns": turns})
    assert reading_turns(task, LIBRARY) == [1]  # the ask turn's question; an introduction asks nothing
    assert answer_coverage([task], LIBRARY) == {
        "reading_turns": 1,
        "answered": 1.0,
        "read_only_tasks": 0,
        "read_only_answered": None,
    }
