"""The intent framework: registration, the scene's checks, uniqueness proofs, and every registered intent
run on several worlds (no intent error, bounded shape, linked calls, no tool names in phrasings)."""

from __future__ import annotations

import random
from collections import Counter
from operator import itemgetter

import pytest

from hub.config import REFERENCE_NOW
from hub.kit import Server
from hub.kit.intent import (
    Intent,
    IntentError,
    Persona,
    Ref,
    Scene,
    Skip,
    TurnDraft,
    covered_tools,
    day,
    fill,
    last_digits,
    money,
    speak,
    unique_best,
)
from hub.kit.speaker import Search, Speaker
from servers import REGISTRY
from servers.payments.tools import CustomerId
from tests.conftest import LIBRARY
from tests.servers import checks
from tests.servers.checks import Live

WITH_INTENTS = [s for s in REGISTRY if s.intents]


@pytest.fixture
def live() -> Live:
    return Live()


def payments() -> Server:
    return next(s for s in REGISTRY if s.name == "payments")


# The scene ---------------------------------------------------------------------------------------


def test_refer_takes_the_least_detail_that_is_unique_and_records_the_proof(live: Live) -> None:
    s = live.scene(payments())
    dup = s.rows("SELECT name FROM customers GROUP BY name HAVING COUNT(*) > 1")[0]["name"]
    a, b = s.rows("SELECT customer_id, merchant_id, email FROM customers WHERE name = ? ORDER BY customer_id", dup)[:2]
    by_name = Ref("{n}", "SELECT customer_id FROM customers WHERE name = ?", dup)
    by_email = Ref("{n} ({e})", "SELECT customer_id FROM customers WHERE email = ?", b["email"])
    s.say("Hello {x}", x="there")
    assert s.refer(b["customer_id"], by_name, by_email, n=dup, e=b["email"]) == f"{dup} ({b['email']})"
    proof = s.proofs[-1]
    assert proof.target == b["customer_id"] and proof.params == [b["email"]] and proof.turn == 1
    with pytest.raises(Skip):  # a name two customers share never picks out one of them
        s.refer(a["customer_id"], by_name, n=dup)
    unique = s.rows("SELECT name, customer_id FROM customers GROUP BY name HAVING COUNT(*) = 1")[0]
    assert (
        s.refer(
            unique["customer_id"],
            Ref("{n}", "SELECT customer_id FROM customers WHERE name = ?", unique["name"]),
            n=unique["name"],
        )
        == unique["name"]
    )


def test_uniqueness_is_proven_at_that_point_of_the_dialogue(live: Live) -> None:
    """A description unique in the seed stops being unique once a call creates a second match."""
    s = live.scene(payments())
    inv = s.pick(
        "SELECT invoice_id, customer_id, merchant_id, description FROM invoices i WHERE status = 'draft' AND "
        "(SELECT COUNT(*) FROM invoices j WHERE j.customer_id = i.customer_id "
        "AND j.description = i.description AND j.status = 'draft') = 1"
    )
    ref = Ref(
        "the {d} draft",
        "SELECT invoice_id FROM invoices WHERE customer_id = ? AND description = ? AND status = 'draft'",
        inv["customer_id"],
        inv["description"],
    )
    s.say("go")
    assert s.refer(inv["invoice_id"], ref, d=inv["description"]) == f"the {inv['description']} draft"
    s.intent = Intent("payments", "t", lambda _: None, ("create_invoice",))
    s.call(
        "create_invoice",
        merchant_id=inv["merchant_id"],
        customer_id=inv["customer_id"],
        amount=10.0,
        description=inv["description"],
    )
    with pytest.raises(Skip):
        s.refer(inv["invoice_id"], ref, d=inv["description"])


def test_scene_queries_are_read_only_and_picks_spread_over_the_state(live: Live) -> None:
    s = live.scene(payments())
    with pytest.raises(IntentError):
        s.rows("DELETE FROM invoices")
    with pytest.raises(IntentError):
        s.rows("SELECT 1; DROP TABLE invoices")
    assert s.value("SELECT COUNT(*) FROM invoices") > 1000  # nothing was deleted
    picks = {live.scene(payments(), seed=i).pick("SELECT invoice_id FROM invoices")["invoice_id"] for i in range(40)}
    assert len(picks) >= 35 and max(picks) > "INV-01000"  # not the first rows
    with pytest.raises(Skip):
        s.pick("SELECT * FROM invoices WHERE amount < 0")


def test_calls_must_be_declared_succeed_and_answer_a_turn(live: Live) -> None:
    s = live.scene(payments())
    s.intent = Intent("payments", "t", lambda _: None, ("get_invoice",))
    with pytest.raises(IntentError, match="before say"):
        s.call("get_invoice", invoice_id="INV-00001")
    s.say("What about invoice {n}?", n="INV-00001")
    assert s.call("get_invoice", invoice_id="INV-00001")["invoice_id"] == "INV-00001"
    with pytest.raises(IntentError, match="does not declare"):
        s.call("list_invoices")
    with pytest.raises(IntentError, match="failed"):
        s.call("get_invoice", invoice_id="INV-99999")
    with pytest.raises(IntentError, match="no value for slot"):
        s.say("Pay {who}")


def test_asked_skips_a_follow_up_whose_call_the_dialogue_made(live: Live) -> None:
    s = live.scene(payments())
    s.intent = Intent("payments", "t", lambda _: None, ("get_invoice",))
    s.asked("get_invoice", invoice_id="INV-00001")  # nothing ran yet
    s.say("What about invoice {n}?", n="INV-00001")
    s.call("get_invoice", invoice_id="INV-00001")
    s.asked("get_invoice", invoice_id="INV-00002")  # another invoice: a fair question
    with pytest.raises(Skip, match="get_invoice already ran"):
        s.asked("get_invoice", invoice_id="INV-00001")
    with pytest.raises(Skip):
        s.asked("get_invoice")  # no arguments: any call of the tool


def test_choose_draws_a_row_the_user_can_tell_apart(live: Live) -> None:
    rows = [{"id": 1, "title": "A"}, {"id": 2, "title": "B"}, {"id": 3, "title": "B"}, {"id": 4, "title": "C"}]
    drawn: Counter[int] = Counter()
    for seed in range(60):
        s = live.scene(payments(), seed=seed)
        try:
            drawn[s.choose(rows, lambda r: r["title"], none="none", alike="alike")["id"]] += 1
        except Skip as skip:
            assert str(skip) == "alike"
            drawn[0] += 1
    assert set(drawn) == {0, 1, 4} and drawn[0] > 10  # the two Bs are never drawn, and skip when picked
    with pytest.raises(Skip, match="^none$"):
        live.scene(payments()).choose([], lambda r: r["title"], none="none", alike="alike")


def test_unique_best_takes_the_extreme_row_and_skips_a_tie() -> None:
    rows = [{"id": 1, "amount": 5}, {"id": 2, "amount": 9}, {"id": 3, "amount": 1}, {"id": 4, "amount": 1}]
    assert unique_best(rows, itemgetter("amount"), tie="tie")["id"] == 2
    with pytest.raises(Skip, match="^tie$"):
        unique_best(rows, itemgetter("amount"), lowest=True, tie="tie")
    assert unique_best(rows[:3], itemgetter("amount"), lowest=True, tie="tie")["id"] == 3


def test_find_reads_a_row_off_a_discovery_call_or_skips(live: Live) -> None:
    s = live.scene(payments())
    s.intent = Intent("payments", "t", lambda _: None, ("search_customers",))
    c = s.pick("SELECT customer_id, name FROM customers")
    s.say("Find {n}.", n=c["name"])
    row = s.find("search_customers", "customers", "customer_id", c["customer_id"], missing="gone", query=c["name"])
    assert row["customer_id"] == c["customer_id"] and row["name"] == c["name"]
    assert [x.tool for x in s.calls] == ["search_customers"]  # a real call the task records
    with pytest.raises(Skip, match="^gone$"):
        s.find("search_customers", "customers", "customer_id", "CUS-NONE", missing="gone", query=c["name"])


def test_discover_reads_by_the_entity_types_finder_table_and_key(live: Live) -> None:
    s = customer_scene(live)
    c = s.pick("SELECT customer_id, name FROM customers")
    s.say("Find {n}.", n=c["name"])
    row = s.discover(CustomerId, c["customer_id"], missing="gone", query=c["name"])
    assert CustomerId.entity.finder == "search_customers" and row["customer_id"] == c["customer_id"]
    assert [(x.tool, x.arguments) for x in s.calls] == [("search_customers", {"query": c["name"]})]
    with pytest.raises(Skip, match="^gone$"):
        s.discover(CustomerId, "CUS-NONE", missing="gone", query=c["name"])


UNIQUE_CUSTOMER = (
    "SELECT customer_id, name FROM customers c WHERE (SELECT COUNT(*) FROM customers d WHERE d.name = c.name) = 1"
)
CUSTOMER_SPEAKER = Speaker(CustomerId, select=UNIQUE_CUSTOMER, search=Search())


def customer_scene(live: Live) -> Scene:
    """A payments scene whose intent may call search_customers."""
    s = live.scene(payments())
    s.intent = Intent("payments", "t", lambda _: None, ("search_customers",))
    return s


def test_a_speaker_takes_table_key_and_finder_from_its_entity_type(live: Live) -> None:
    s, speaker = customer_scene(live), CUSTOMER_SPEAKER
    c = speaker.me(s)
    assert s.speaker == c["name"] and s.persona.name == c["name"]  # the pick became the persona
    assert speaker.asks(s, c, "{me}: what do I owe?") == c["customer_id"]
    assert [x.tool for x in s.calls] == ["search_customers"]
    assert s.memory["me"]["customer_id"] == c["customer_id"]


def test_the_persona_an_opener_became_is_who_talks_until_found(live: Live) -> None:
    s, speaker = customer_scene(live), CUSTOMER_SPEAKER
    c = s.pick(UNIQUE_CUSTOMER)
    speaker.become(s, c)
    assert s.speaker == c["name"] and speaker.me(s) == c
    assert speaker.me(s, "name = ?", c["name"]) == c
    with pytest.raises(Skip, match="talking does not fit"):
        speaker.me(s, "name = ?", c["name"] + " (not them)")


def test_recall_rereads_what_an_earlier_turn_left(live: Live) -> None:
    s = live.scene(payments())
    sql = "SELECT customer_id, name FROM customers WHERE customer_id = ? AND name LIKE ?"
    assert s.recall("customer", "customer_id", sql, "%", who="customer") is None  # no earlier turn
    c = s.pick("SELECT customer_id, name FROM customers")
    s.memory["customer"] = {"customer_id": c["customer_id"]}
    assert s.recall("customer", "customer_id", sql, "%", who="customer") == c
    with pytest.raises(Skip, match="the customer of the earlier turn does not fit"):
        s.recall("customer", "customer_id", sql, "no such name", who="customer")


def test_room_counts_calls_and_turns_left(live: Live) -> None:
    s = live.scene(payments())
    s.intent = Intent("payments", "t", lambda _: None, ("get_invoice",))
    assert s.room(calls=5, turns=3) and not s.room(calls=6) and not s.room(turns=4)
    s.say("What about invoice {n}?", n="INV-00001")
    for _ in range(4):
        s.call("get_invoice", invoice_id="INV-00001")
    assert s.room(calls=1, turns=2) and not s.room(calls=2) and not s.room(turns=3)


def test_given_must_be_a_required_parameter_without_default(live: Live) -> None:
    s = live.scene(payments())
    assert s.given(12.5, "$12.50", "amount", "create_invoice", "amount").value == 12.5
    with pytest.raises(IntentError):
        s.given(30, "30 days", "due", "create_invoice", "due_in_days")  # has a default
    with pytest.raises(IntentError):
        s.given(5.0, "$5", "amount", "pay_invoice", "amount")  # optional


def test_registration_checks_covers() -> None:
    srv = Server("tmp", "A scratch server.", "CREATE TABLE t (k TEXT PRIMARY KEY);", lambda db, rng, now: None)

    @srv.read()
    def get_thing(ctx: object) -> dict:
        """Get the thing, e.g. get_thing()."""
        return {}

    @srv.intent(covers=("get_thing",))
    def look(s: Scene) -> None:
        """Look at the thing."""

    assert [i.name for i in srv.intents] == ["look"] and srv.intents[0].description == "Look at the thing."
    with pytest.raises(ValueError, match="unknown tools"):
        srv.intent(covers=("delete_thing",))(look)
    with pytest.raises(ValueError, match="twice"):
        srv.intent(covers=("get_thing",))(look)


def test_rendering_helpers() -> None:
    assert money(1250.5, "EUR") == "€1,250.50" and money(3, "CHF") == "3.00 CHF"
    assert last_digits("INV-00417") == "417"
    assert day("2026-05-31", REFERENCE_NOW) == "yesterday" and day("2026-05-27", REFERENCE_NOW) == "last Wednesday"
    assert day("2025-12-07", REFERENCE_NOW) == "on December 7, 2025"
    assert fill("Bill {who}[ {amt}] now.", {"who": "Ann", "amt": "$5"}, withheld="amt") == "Bill Ann now."
    assert fill("Bill {who}[ {amt}] now.", {"who": "Ann", "amt": "$5"}) == "Bill Ann $5 now."
    with pytest.raises(IntentError, match="cannot be withheld"):
        fill("Bill {who} {amt}.", {"who": "Ann", "amt": "$5"}, withheld="amt")
    terse = speak(
        TurnDraft("Can you pay it.", {}, "complete"), Persona("Ann Lee", "terse", "terse"), random.Random(0), True
    )
    assert terse == "can you pay it"
    said = speak(
        TurnDraft("{who} pays.", {"who": "Ann Lee"}, "complete"),
        Persona("Ann Lee", "terse", "terse"),
        random.Random(0),
        True,
    )
    assert said == "Ann Lee pays"


# Every registered intent ---------------------------------------------------------------------------


@pytest.mark.parametrize("server", WITH_INTENTS, ids=lambda s: s.name)
def test_every_intent_runs_on_several_worlds(server: Server, live: Live) -> None:
    checks.every_intent_runs_on_several_worlds(server, live)


@pytest.mark.parametrize("server", WITH_INTENTS, ids=lambda s: s.name)
def test_every_follow_up_continues_some_dialogue(server: Server, live: Live) -> None:
    checks.every_follow_up_continues_some_dialogue(server, live)


@pytest.mark.parametrize("server", WITH_INTENTS, ids=lambda s: s.name)
def test_a_server_with_intents_covers_all_its_tools(server: Server) -> None:
    checks.intents_cover_all_tools(server)


def test_intents_cover_every_registered_tool() -> None:
    assert covered_tools(REGISTRY) == {f"{s.name}__{t}" for s in REGISTRY for t in s.tools}


# The golden samples and the report ---------------------------------------------------------------


def test_golden_sample_tasks() -> None:
    """Regenerate with `python -m hub.synth.samples --write-golden` and review the diff."""
    from hub.synth.samples import GOLDEN, render_golden

    assert GOLDEN.exists(), "run `python -m hub.synth.samples --write-golden`"
    assert render_golden(LIBRARY) == GOLDEN.read_text()


def test_abstain_tasks_from_intents_are_unsolvable_by_construction() -> None:
    from hub.synth.goals import could_do
    from hub.synth.pipeline import Slot, SynthConfig, Synthesizer

    synth = Synthesizer(LIBRARY, SynthConfig(n=100, seed=4, worlds=2))
    made = 0
    for j in range(40):
        for variant in ("missing_function", "irrelevance"):
            server = ("payments", "team_chat")[j % 2]
            task = synth.attempt(Slot("abstain", "complete", variant), server, j)
            if task is None:
                continue
            made += 1
            wanted = task.meta["synth"]["wanted"]
            assert wanted and not any(could_do(o, w) for o in task.tools for w in wanted), task.id
            if variant == "missing_function":
                assert all(LIBRARY.tool(*w.split("__", 1)).kind == "write" for w in wanted)
                own = [o for o in task.tools if o.startswith(server + "__")]  # its other tools, writes too
                assert any(LIBRARY.tool(*o.split("__", 1)).kind == "write" for o in own), task.id
            else:  # only a few of its own tools, when any: none the request needs
                own = [o for o in task.tools if o.startswith(server + "__")]
                assert own == [o for o in task.tools if o in task.meta["synth"]["own_tools"]] and len(own) <= 3
    assert made >= 20
