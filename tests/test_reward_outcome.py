"""The outcome preset against the paper's, on trajectories played through the episode engine (and over ``/ws``).

Hand-written tasks carry the provenance synthesis records (``GTStep.sources``, ``Turn.about``, ``Turn.answer``):
a wrong write must lose at least a quarter of the maximum, a correct path the ground truth did not take must keep
(nearly) all of it, a natural question must count and a stuffed one must not.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from hub.app import create_app
from hub.config import Settings
from hub.core import Hub
from hub.engine.dispatcher import Dispatcher
from hub.engine.episodes import EpisodeEngine
from hub.engine.events import EventBus
from hub.engine.reward import RewardBreakdown
from hub.state.sessions import SessionManager
from hub.tasks import TaskSet, hermes_call
from hub.testing import serve
from hub.wire import RewardConfig
from tests.conftest import LIBRARY
from trainer_client.hub_client import HubClient

PAPER = RewardConfig(preset="paper")
OUTCOME = RewardConfig()
B, T = "banking__", "trading__"


def stated(turn: int = 0) -> dict[str, Any]:
    return {"role": "stated", "turn": turn}


def returned(step: str) -> dict[str, Any]:
    return {"role": "returned", "step": step}


INCIDENTAL = {"role": "incidental"}

# "Put $50 into my savings": the ground truth finds the account with a paged list, then deposits.
DEPOSIT = {
    "id": "o-deposit",
    "servers": ["banking"],
    "turns": [
        {
            "user": "I'm customer CUS-0001. Put $50 into my savings account, please.",
            "calls": [
                {
                    "id": "g1",
                    "server": "banking",
                    "tool": "list_accounts",
                    "arguments": {"customer_id": "CUS-0001", "type": "savings", "limit": 10},
                    "sources": {"customer_id": stated(), "type": stated(), "limit": INCIDENTAL},
                },
                {
                    "id": "g2",
                    "server": "banking",
                    "tool": "deposit_funds",
                    "after": ["g1"],
                    "arguments": {"account_id": "ACC-0001", "amount": 50.0},
                    "sources": {"account_id": returned("g1"), "amount": stated()},
                },
            ],
        }
    ],
    "tools": [B + t for t in ("list_accounts", "get_customer", "get_account", "deposit_funds", "withdraw_funds")],
}
# "What are my two balances?": two independent reads; the reply must state both balances.
BALANCES = {
    "id": "o-balances",
    "servers": ["banking"],
    "turns": [
        {
            "user": "What are the balances of ACC-0001 and ACC-0002?",
            "answer": [11627.81, 12449.06],
            "calls": [
                {
                    "id": "g1",
                    "server": "banking",
                    "tool": "get_account",
                    "arguments": {"account_id": "ACC-0001"},
                    "sources": {"account_id": stated()},
                },
                {
                    "id": "g2",
                    "server": "banking",
                    "tool": "get_account",
                    "after": ["g1"],
                    "arguments": {"account_id": "ACC-0002"},
                    "sources": {"account_id": stated()},
                },
            ],
        }
    ],
    "tools": [B + "get_account", B + "list_accounts", B + "deposit_funds"],
}
# "Sell 5 AAPL": the side is the whole outcome.
SELL = {
    "id": "o-sell",
    "servers": ["trading"],
    "turns": [
        {
            "user": "Portfolio PRT-0009: sell 5 AAPL at market.",
            "calls": [
                {
                    "id": "g1",
                    "server": "trading",
                    "tool": "place_order",
                    "arguments": {"portfolio_id": "PRT-0009", "symbol": "AAPL", "side": "sell", "quantity": 5},
                    "sources": {k: stated() for k in ("portfolio_id", "symbol", "side", "quantity")},
                }
            ],
        }
    ],
    "tools": [T + t for t in ("place_order", "get_portfolio", "get_quote", "cancel_order")],
}
# "Deposit some money into ACC-0003" (how much is withheld), then "$75".
CLARIFY = {
    "id": "o-clarify",
    "kind": "clarify",
    "servers": ["banking"],
    "turns": [
        {
            "user": "Please deposit some money into ACC-0003 for me.",
            "ask": True,
            "missing": ["amount"],
            "about": {"amount": "how much to deposit"},
        },
        {
            "user": "Make it $75.",
            "calls": [
                {
                    "id": "g1",
                    "server": "banking",
                    "tool": "deposit_funds",
                    "arguments": {"account_id": "ACC-0003", "amount": 75.0},
                    "sources": {"account_id": stated(0), "amount": stated(1)},
                }
            ],
        },
    ],
    "tools": [B + t for t in ("deposit_funds", "get_account", "transfer_funds", "list_cards", "pay_payee")],
}


def engine(**kw: Any) -> EpisodeEngine:
    sessions = SessionManager(LIBRARY)
    bus = EventBus()
    return EpisodeEngine(LIBRARY, sessions, Dispatcher(LIBRARY, sessions, bus), bus, TaskSet(), **kw)


def calls(*pairs: tuple[str, dict[str, Any]]) -> str:
    return "\n".join(hermes_call(name, args) for name, args in pairs)


def play(task: dict[str, Any], script: list[str], config: RewardConfig = OUTCOME) -> RewardBreakdown:
    """Play ``script`` (one model message each) on a fresh episode of ``task``; its reward under ``config``."""
    eng = engine()
    (ep,) = eng.open_group(task)
    for message in script:
        if ep.done:
            break
        eng.step(ep.id, message)
    return eng.finish(ep.id, config)


def both(task: dict[str, Any], script: list[str]) -> tuple[RewardBreakdown, RewardBreakdown]:
    return play(task, script, PAPER), play(task, script, OUTCOME)


def deposit(account: str = "ACC-0001", amount: float = 50.0) -> tuple[str, dict[str, Any]]:
    return (B + "deposit_funds", {"account_id": account, "amount": amount})


GT_DEPOSIT = [
    calls((B + "list_accounts", {"customer_id": "CUS-0001", "type": "savings", "limit": 10})),
    calls(deposit()),
]


# The final state ------------------------------------------------------------------------------


def test_the_ground_truth_scores_the_maximum_under_both_presets() -> None:
    paper, outcome = both(DEPOSIT, [*GT_DEPOSIT, "Done."])
    assert paper.total == pytest.approx(1.3) == paper.max and paper.preset == "paper"
    assert outcome.total == pytest.approx(outcome.max) == pytest.approx(1.3) and outcome.normalized == 1.0
    assert outcome.components["state"] == 1.0 and outcome.preset == "outcome"


@pytest.mark.parametrize(
    ("task", "script"),
    [
        (DEPOSIT, [GT_DEPOSIT[0], calls(deposit(amount=500.0)), "Done."]),  # a wrong amount
        (DEPOSIT, [GT_DEPOSIT[0], calls(deposit("ACC-0002")), "Done."]),  # the wrong account
        (SELL, [calls((T + "place_order", {**SELL["turns"][0]["calls"][0]["arguments"], "side": "buy"})), "Done."]),
    ],
    ids=["amount", "account", "buy-for-sell"],
)
def test_a_wrong_write_value_costs_at_least_a_quarter(task: dict[str, Any], script: list[str]) -> None:
    paper, outcome = both(task, script)
    assert paper.normalized >= 0.9  # the paper's formula barely notices
    assert outcome.components["state"] < 1.0 and "state" not in outcome.reasons
    assert outcome.total <= 0.75 * outcome.max + 1e-9
    assert outcome.ledger[-2].name == "state" and outcome.ledger[-2].lost > 0  # the gate, before format
    assert sum(r.lost for r in outcome.ledger) == pytest.approx(outcome.max - outcome.total)


TWO = {
    "id": "o-two",
    "servers": ["banking"],
    "turns": [
        {
            "user": "Deposit $50 into ACC-0001 and $20 into ACC-0002.",
            "calls": [
                {
                    "id": "g1",
                    "server": "banking",
                    "tool": "deposit_funds",
                    "arguments": {"account_id": "ACC-0001", "amount": 50.0},
                },
                {
                    "id": "g2",
                    "server": "banking",
                    "tool": "deposit_funds",
                    "arguments": {"account_id": "ACC-0002", "amount": 20.0},
                },
            ],
        }
    ],
    "tools": [B + "deposit_funds", B + "get_account"],
}


def test_rows_right_order_wrong_states() -> None:
    """Half the changed rows right keeps more than none right; both stay under 0.75 of the maximum."""
    half = play(TWO, [calls(deposit(), deposit("ACC-0002", 25.0)), "Done."])
    none = play(TWO, [calls(deposit(amount=51.0), deposit("ACC-0002", 25.0)), "Done."])
    assert half.components["state"] == pytest.approx(0.75 * 0.75) and none.components["state"] == pytest.approx(0.375)
    assert none.total < half.total <= 0.75 * half.max


# Correct paths the ground truth did not take -----------------------------------------------------


def test_a_read_without_its_incidental_keys_keeps_the_maximum() -> None:
    lean = calls((B + "list_accounts", {"customer_id": "CUS-0001", "type": "savings"}))
    paper, outcome = both(DEPOSIT, [lean, calls(deposit()), "Done."])
    assert outcome.total == pytest.approx(outcome.max)  # limit is incidental: not demanded
    assert paper.components["coverage"] == 0.0  # the paper's coverage wants every key (and g2 follows g1)


def test_a_discovery_read_is_judged_by_what_it_found() -> None:
    """get_customer instead of list_accounts: its result holds ACC-0001, which the deposit uses."""
    other = calls((B + "get_customer", {"customer_id": "CUS-0001"}))
    paper, outcome = both(DEPOSIT, [other, calls(deposit()), "Done."])
    assert outcome.normalized >= 0.95 and outcome.components["coverage"] == 1.0
    assert [a.found for a in outcome.alignment] == [True, False]
    assert paper.normalized < 0.6
    # a read whose result does not hold the value finds nothing, and the deposit's account came from nowhere
    wrong = play(DEPOSIT, [calls((B + "get_account", {"account_id": "ACC-0002"})), calls(deposit()), "Done."])
    assert wrong.components["coverage"] == 0.0 and not any(a.found for a in wrong.alignment)


def test_independent_reads_in_either_order_and_the_answer_stated() -> None:
    one = (B + "get_account", {"account_id": "ACC-0001"})
    two = (B + "get_account", {"account_id": "ACC-0002"})
    reply = "ACC-0001 holds $11,627.81 and ACC-0002 holds $12,449.06."
    paper, outcome = both(BALANCES, [calls(two, one), reply])
    assert outcome.total == pytest.approx(outcome.max) == pytest.approx(1.8)  # 1.3 and the answer's 0.5
    assert paper.components["coverage"] == 0.5
    silent = play(BALANCES, [calls(one, two), "Done."])
    assert silent.components["answer"] == 0.0 and silent.total == pytest.approx(1.3)
    half = play(BALANCES, [calls(one, two), "The first has 11627.81."])
    assert half.components["answer"] == 0.5


def test_a_task_without_answers_leaves_the_answer_out_of_its_maximum() -> None:
    r = play(DEPOSIT, [*GT_DEPOSIT, "Done."])
    assert "answer" not in r.components and "no answer" in r.reasons.get("answer", "no answer")
    assert r.max == pytest.approx(1.3)


def test_every_wrong_state_scores_below_every_correct_path() -> None:
    correct = [
        [*GT_DEPOSIT, "Done."],
        [calls((B + "list_accounts", {"customer_id": "CUS-0001", "type": "savings"})), calls(deposit()), "Done."],
        [calls((B + "get_customer", {"customer_id": "CUS-0001"})), calls(deposit()), "Done."],
        [calls((B + "get_customer", {"customer_id": "CUS-0001"}), deposit()), "Done."],
    ]
    wrong = [
        [GT_DEPOSIT[0], calls(deposit(amount=500.0)), "Done."],
        [GT_DEPOSIT[0], calls(deposit("ACC-0002")), "Done."],
        [GT_DEPOSIT[0], calls(deposit(), deposit()), "Done."],  # twice
        ["I deposited it."],
    ]
    good = [play(DEPOSIT, s).total for s in correct]
    bad = [play(DEPOSIT, s).total for s in wrong]
    assert max(bad) < min(good), (bad, good)


# Questions ----------------------------------------------------------------------------------------


def ask_then_deposit(reply: str, *before: str) -> list[str]:
    return [*before, reply, calls(deposit("ACC-0003", 75.0)), "Done."]


@pytest.mark.parametrize(
    "question",
    [
        "How much would you like to deposit?",
        "Sure! How much should I put in?",
        "What amount should I deposit into ACC-0003?",
        "How much money do you want me to add?",
    ],
)
def test_a_natural_question_earns_the_maximum(question: str) -> None:
    r = play(CLARIFY, ask_then_deposit(question))
    assert r.components["clarify"] == 1.0 and r.total == pytest.approx(r.max), r.reasons


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        ("Anything else I can do for you?", "does not refer"),
        ("Done.", "a statement"),
        (
            "Could you tell me the account, the amount, the memo, the card, the payee and the status?",
            "keyword stuffing",
        ),
    ],
)
def test_closers_statements_and_stuffed_questions_earn_nothing(reply: str, why: str) -> None:
    r = play(CLARIFY, ask_then_deposit(reply))
    assert r.components["clarify"] == 0.0 and r.total == 0.0
    assert why in r.reasons["clarify"]


def test_a_read_before_asking_is_allowed_and_a_write_is_not() -> None:
    look = calls((B + "get_account", {"account_id": "ACC-0003"}))
    paper, outcome = both(CLARIFY, ask_then_deposit("How much should I deposit?", look))
    assert outcome.components["clarify"] == 1.0 and outcome.total == pytest.approx(outcome.max)
    assert paper.components["clarify"] == 0.0  # the paper: no call at all on an ask turn
    guess = play(CLARIFY, ask_then_deposit("How much?", calls(deposit("ACC-0003", 20.0))))
    assert guess.total == 0.0 and "write" in guess.reasons["clarify"]


# Tasks without expected hashes ---------------------------------------------------------------------


def test_expected_hashes_are_replayed_at_open_never_an_error_at_finish() -> None:
    assert "expected_server_hashes" not in DEPOSIT
    eng = engine()
    (ep,) = eng.open_group(DEPOSIT)
    assert ep.task.expected_server_hashes  # replayed when the episode opened
    broken = {**DEPOSIT, "id": "o-broken"}
    broken["turns"] = [
        {**DEPOSIT["turns"][0], "calls": [{"id": "g1", "server": "banking", "tool": "get_account", "arguments": {}}]}
    ]
    (bad,) = eng.open_group(broken)  # its ground truth fails to replay
    eng.step(bad.id, "Done.")
    r = eng.finish(bad.id)
    assert "state" not in r.components and "no expected final state" in r.reasons["state"]


# A judge model over /ws ----------------------------------------------------------------------------


@pytest_asyncio.fixture
async def judged(tmp_path: Path) -> AsyncIterator[tuple[HubClient, list[dict[str, Any]], list[str | None]]]:
    seen: list[dict[str, Any]] = []
    answers: list[str | None] = ["YES"]

    async def completions(request: Request) -> JSONResponse:
        seen.append(await request.json())
        answer = answers[0]
        if answer is None:
            return JSONResponse({"error": "overloaded"}, status_code=500)
        return JSONResponse({"choices": [{"message": {"role": "assistant", "content": answer}}]})

    judge = Starlette(routes=[Route("/v1/chat/completions", completions, methods=["POST"])])
    async with serve(judge) as endpoint:
        s = Settings(store_path=str(tmp_path / "s.db"), judge_endpoint=f"{endpoint.url}/v1", judge_model="fake-judge")
        async with serve(create_app(s, Hub(s, LIBRARY))) as hub, HubClient(hub.ws_url) as client:
            yield client, seen, answers


async def play_ws(client: HubClient, script: list[str], reward: dict[str, Any] | None = None) -> dict[str, Any]:
    group = await client.open(CLARIFY)
    (eid,) = group.episodes
    for message in script:
        if (await client.step(eid, message))["done"]:
            break
    return await client.finish(eid, reward)


async def test_a_judge_model_decides_the_question_and_the_rules_are_the_fallback(
    judged: tuple[HubClient, list[dict[str, Any]], list[str | None]],
) -> None:
    client, seen, answers = judged
    odd = "Tell me, in dollars, what should go in?"  # a question the rules do not recognise
    r = await play_ws(client, ask_then_deposit(odd))
    assert r["components"]["clarify"] == 1.0 and "the judge (fake-judge) says YES" in r["reasons"]["clarify"]
    prompt = seen[-1]["messages"][-1]["content"]
    assert seen[-1]["model"] == "fake-judge" and odd in prompt and "how much to deposit" in prompt
    answers[0] = "NO"
    r = await play_ws(client, ask_then_deposit("How much should I deposit?"))
    assert r["components"]["clarify"] == 0.0 and "says NO" in r["reasons"]["clarify"]
    answers[0] = None  # the endpoint fails: the rules decide, and say so
    r = await play_ws(client, ask_then_deposit("How much should I deposit?"))
    assert r["components"]["clarify"] == 1.0 and "could not decide" in r["reasons"]["clarify"]
    answers[0] = "Perhaps."
    r = await play_ws(client, ask_then_deposit(odd))
    assert r["components"]["clarify"] == 0.0 and "neither YES nor NO" in r["reasons"]["clarify"]
    answers[0] = "YES"
    n = len(seen)
    r = await play_ws(client, ask_then_deposit(odd, calls(deposit("ACC-0003", 1.0))))  # a write: never the judge's
    assert r["total"] == 0.0 and len(seen) == n
    r = await play_ws(client, ask_then_deposit(odd), {"preset": "paper", "clarify_check": "no_call"})
    assert r["preset"] == "paper" and r["components"]["clarify"] == 1.0 and len(seen) == n
    assert json.dumps(r)  # the breakdown travels as JSON
