"""The realism report: its figures on crafted tasks, and the targets on a small run of intent tasks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hub.synth.pipeline import Slot, SynthConfig, Synthesizer
from hub.synth.realism import figures, literal_calls, names_in, report, stated, write
from hub.tasks import GTStep, InitialState, Task, Turn
from tests.conftest import LIBRARY


def task(user: str, calls: list[GTStep], **meta: object) -> Task:
    return Task(
        id=f"t-{len(user)}",
        servers=["payments"],
        initial=InitialState(seed=0),
        turns=[Turn(user=user, calls=calls[:1]), Turn(user="And then?", calls=calls[1:])]
        if len(calls) > 1
        else [Turn(user=user, calls=calls)],
        tools=["payments__get_invoice", "payments__pay_invoice"],
        meta={"synth": {"source": "test", "request_servers": ["payments"], **meta}},
    )


def test_figures_on_crafted_tasks() -> None:
    leaky = task(
        "Please get invoice INV-00017 and pay the invoice INV-00017 by card.",
        [
            GTStep(server="payments", tool="get_invoice", arguments={"invoice_id": "INV-00017"}, id="g1"),
            GTStep(
                server="payments",
                tool="pay_invoice",
                arguments={"invoice_id": "INV-00017", "method": "card"},
                id="g2",
                after=["g1"],
            ),
        ],
    )
    natural = task(
        "Maria wants to settle what she owes for the logo work.",
        [GTStep(server="payments", tool="search_customers", arguments={"query": "Maria Lopez"}, id="g1")],
    )
    f = figures([leaky], LIBRARY)
    # get_invoice is asked for in turn 1 ("get invoice"); pay_invoice in turn 2, which names neither word
    assert f["name_leak"] == 0.5
    assert f["verbatim_values"] == 1.0 and f["id_turns"] == 0.5 and f["linked"] == 1.0
    g = figures([natural], LIBRARY)
    assert g["name_leak"] == 0.0 and g["verbatim_values"] == 0.0 and g["id_turns"] == 0.0
    assert names_in("list_invoices", ["show", "invoices"]) is False and names_in("list_invoices", ["list", "invoices"])
    assert not names_in("add_address", ["my", "address"]) and names_in("add_address", ["add", "an", "address"])
    assert stated("pet care", "file it under Pet Care.") and stated("ACC-0107", "move it from ACC-0107")
    assert not stated("WEB", "on the Web Storefront board") and not stated("art", "my cart")
    assert stated(1250.5, "that's €1,250.50 total") and stated(30, "in 30 days") and not stated(3, "in 30 days")


def test_literal_policy_reads_the_text() -> None:
    calls = literal_calls(
        "Please pay invoice INV-00017 with the wallet, 25.50 of it.",
        ["payments__pay_invoice", "payments__get_invoice", "payments__refund_payment"],
        LIBRARY,
    )
    assert calls == [("payments__pay_invoice", {"invoice_id": "INV-00017", "method": "wallet", "amount": 25.5})]


@pytest.fixture(scope="module")
def intent_tasks() -> list[Task]:
    synth = Synthesizer(LIBRARY, SynthConfig(n=100, seed=11, worlds=3))
    plan = [Slot("mcp", "complete", None)] * 5 + [Slot("mcp", "minimal", None)] * 2 + [Slot("clarify", "missing", None)]
    out = []
    for j in range(200):
        server = ("payments", "team_chat")[j % 2]
        t = synth.attempt(plan[j % len(plan)], server, j)
        if t is not None:
            out.append(t)
    assert len(out) >= 35
    return out


def test_intent_tasks_meet_the_targets(intent_tasks: list[Task], tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_text("{}")
    data = write(tmp_path, intent_tasks, LIBRARY, fallback_servers=["x"])
    assert json.loads((tmp_path / "manifest.json").read_text())["realism"]["tasks"] == len(intent_tasks)
    assert data == json.loads((tmp_path / "realism.json").read_text())
    assert data["name_leak"] <= 0.15 and data["verbatim_values"] <= 0.55 and data["id_turns"] <= 0.25
    assert data["linked"] == 1.0 and data["replay_verified"] == 1.0 and data["worlds"] == 3
    assert data["distinct_sequences"] >= 0.3
    base = data["baseline"]
    assert base["oracle_at_maximum"] == 1.0 and base["ratio"] <= 0.40
    assert data["fallback_servers"] == ["x"]


def test_report_on_machine_tasks_says_what_the_fallback_is_worth() -> None:
    synth = Synthesizer(LIBRARY, SynthConfig(n=100, seed=3, worlds=1))
    anchors = sorted(LIBRARY.mount("banking").tools)
    slot = Slot("mcp", "complete", None)
    tasks = [
        t for j in range(40) if (t := synth.attempt(slot, "banking", j, anchor=anchors[j % len(anchors)], machine=True))
    ]
    assert tasks and all(t.meta["synth"]["source"] == "machine" for t in tasks)
    data = report(tasks, LIBRARY, baseline_sample=len(tasks))
    assert data["by_source"]["machine"]["name_leak"] > 0.3  # the fallback transcribes: the report shows it
    assert data["baseline"]["by_source"]["machine"]["tasks"] == len(tasks)
