"""The reward engine under the paper preset: hand-computed examples for every component, and the paper's total."""

from __future__ import annotations

import math
from typing import Any

import pytest

from hub.engine import reward
from hub.engine.reward import CallRecord, RewardBreakdown, budget, efficiency, json_type_ok, params_ok
from hub.tasks import Task
from hub.wire import RewardConfig
from tests.conftest import LIBRARY

B = "banking__"
GT = [
    {"id": "g1", "server": "banking", "tool": "get_account", "arguments": {"account_id": "ACC-0001"}},
    {
        "id": "g2",
        "server": "banking",
        "tool": "transfer_funds",
        "after": ["g1"],
        "arguments": {"from_account_id": "ACC-0001", "to_account_id": "ACC-0002", "amount": 300.0},
    },
    {
        "id": "g3",
        "server": "banking",
        "tool": "list_transactions",
        "after": ["g2"],
        "arguments": {"account_id": "ACC-0002"},
    },
]
TASK = Task.model_validate(
    {
        "id": "t-chain",
        "servers": ["banking"],
        "turns": [{"user": "move 300 and show me", "calls": GT}],
        "tools": [B + "get_account", B + "transfer_funds", B + "list_transactions", B + "deposit_funds"],
    }
)
SCHEMAS = {n: LIBRARY.tool(*n.split("__")).input_schema for n in TASK.tools}
PAPER = RewardConfig(preset="paper")


def score(
    task: Task, calls: list[CallRecord], schemas: Any, config: RewardConfig | None = None, **kw: Any
) -> RewardBreakdown:
    """The paper's formula unless a test says otherwise."""
    return reward.score(task, calls, schemas, config or PAPER, **kw)


def call(tool: str, ok: bool = True, turn: int = 0, **args: Any) -> CallRecord:
    return CallRecord(B + tool, args, turn, ok)


def oracle() -> list[CallRecord]:
    return [call(s["tool"], **s["arguments"]) for s in GT]  # type: ignore[arg-type]


def total(components: dict[str, float]) -> float:
    return (
        0.5 * components["validity"]
        + 0.5 * components["coverage"]
        + 0.15 * components["efficiency"]
        + 0.2 * components["name"]
        + 0.1 * components["argument"]
    )


def test_oracle_scores_the_maximum() -> None:
    r = score(TASK, oracle(), SCHEMAS)
    assert r.total == pytest.approx(1.3)
    assert r.components | {} == r.components
    for name, value in (("validity", 1), ("coverage", 1), ("efficiency", 0), ("name", 1), ("argument", 1)):
        assert r.components[name] == pytest.approx(value), name
    assert (r.n_calls, r.n_gt, r.budget) == (3, 3, 5)
    assert [a.gt for a in r.alignment] == ["g1", "g2", "g3"]


def test_budget_and_efficiency_by_hand() -> None:
    assert budget(4, 0.5) == 6  # the paper's example
    assert budget(3, 0.5) == 5
    assert budget(1, 0.5) == 2
    assert efficiency(5, 3, 0.5, 0.5) == 0.0
    assert efficiency(7, 3, 0.5, 0.5) == pytest.approx(-0.2)  # -0.5 * 2 / 5
    assert efficiency(30, 3, 0.5, 0.5) == pytest.approx(-2.5)  # no lower bound
    assert efficiency(2, 0, 0.5, 0.5) == pytest.approx(-1.0)


def test_extra_calls_within_the_budget_cost_nothing_and_beyond_it_lower_efficiency() -> None:
    within = score(TASK, oracle() + [call("get_account", account_id="ACC-0002")] * 2, SCHEMAS)
    assert within.components["efficiency"] == 0.0
    assert within.total == pytest.approx(1.3)
    beyond = score(TASK, oracle() + [call("get_account", account_id="ACC-0002")] * 4, SCHEMAS)
    assert beyond.components["efficiency"] == pytest.approx(-0.2)
    assert beyond.total == pytest.approx(1.3 - 0.15 * 0.2)
    assert beyond.total < within.total


def test_wrong_tool_name_lowers_validity_name_and_coverage() -> None:
    calls = oracle()
    calls[2] = CallRecord(B + "list_transactionz", {"account_id": "ACC-0002"}, 0, False, "unknown_tool")
    r = score(TASK, calls, SCHEMAS)
    assert r.components["validity"] == pytest.approx(2 / 3)  # (1 + 1 + 0) / 3
    assert r.components["name"] == pytest.approx(2 / 3)
    assert r.components["coverage"] == pytest.approx(2 / 3)
    assert r.components["argument"] == pytest.approx(1.0)
    assert r.total == pytest.approx(0.5 * 2 / 3 + 0.5 * 2 / 3 + 0.2 * 2 / 3 + 0.1)
    assert r.validity[2].model_dump() == {
        "name": B + "list_transactionz",
        "known_name": False,
        "params_ok": False,
        "executed": False,
        "score": 0.0,
    }


def test_an_offered_tool_outside_the_ground_truth_lowers_name_only() -> None:
    r = score(TASK, oracle() + [call("deposit_funds", account_id="ACC-0001", amount=5.0)], SCHEMAS)
    assert r.components["name"] == pytest.approx(3 / 4)
    assert r.components["validity"] == 1.0 and r.components["coverage"] == 1.0
    assert r.total == pytest.approx(1.3 - 0.2 / 4)


def test_wrong_argument_value_lowers_argument_only() -> None:
    calls = oracle()
    calls[1] = call("transfer_funds", from_account_id="ACC-0001", to_account_id="ACC-0002", amount=30.0)
    r = score(TASK, calls, SCHEMAS)
    assert r.components["argument"] == pytest.approx((1 + 2 / 3 + 1) / 3)
    assert r.components["coverage"] == 1.0  # values are not compared for coverage
    assert r.total == pytest.approx(1.2 + 0.1 * 8 / 9)


def test_missing_step_lowers_coverage_and_breaks_its_dependents_order() -> None:
    r = score(TASK, oracle()[1:], SCHEMAS)  # no get_account: g1 unmatched, so o(g2) = 0
    assert r.components["coverage"] == pytest.approx(1 / 3)
    assert r.components["validity"] == 1.0 and r.components["name"] == 1.0
    assert r.total == pytest.approx(0.5 + 0.5 / 3 + 0.2 + 0.1)


def test_dependency_order_is_enforced() -> None:
    g1, g2, g3 = oracle()
    r = score(TASK, [g1, g3, g2], SCHEMAS)  # list_transactions before the transfer it depends on
    assert r.components["coverage"] == pytest.approx(2 / 3)
    assert [a.ordered for a in r.alignment] == [True, True, False]


def test_alignment_prefers_the_call_that_keeps_order() -> None:
    g1, g2, g3 = oracle()
    early = call("list_transactions", account_id="ACC-0002")
    r = score(TASK, [early, g1, g2, g3], SCHEMAS)  # the late list_transactions is the aligned one
    assert r.components["coverage"] == 1.0
    assert r.alignment[2].call == 3


def test_missing_argument_key_is_no_match_and_invalid_structure() -> None:
    calls = oracle()
    calls[1] = CallRecord(
        B + "transfer_funds", {"from_account_id": "ACC-0001", "to_account_id": "ACC-0002"}, 0, False, "arguments"
    )
    r = score(TASK, calls, SCHEMAS)
    assert r.validity[1].score == pytest.approx(1 / 3)  # the name only
    # g2 unmatched, and g3 depends on it
    assert r.components["coverage"] == pytest.approx(1 / 3)


def test_wrong_json_type_fails_level_two() -> None:
    calls = oracle()
    calls[1] = CallRecord(
        B + "transfer_funds",
        {"from_account_id": "ACC-0001", "to_account_id": "ACC-0002", "amount": "300"},
        0,
        False,
        "arguments",
    )
    r = score(TASK, calls, SCHEMAS)
    assert r.validity[1].score == pytest.approx(1 / 3)
    assert r.components["coverage"] == 1.0  # the keys are there
    assert r.alignment[1].arg_share == pytest.approx(2 / 3)


def test_failed_execution_costs_a_third_of_validity() -> None:
    calls = oracle()
    calls[1] = call("transfer_funds", ok=False, from_account_id="ACC-0001", to_account_id="ACC-0002", amount=300.0)
    r = score(TASK, calls, SCHEMAS)
    assert r.validity[1].score == pytest.approx(2 / 3)
    assert r.components["validity"] == pytest.approx((1 + 2 / 3 + 1) / 3)


def test_unparseable_call_counts_as_an_invalid_call() -> None:
    r = score(TASK, oracle() + [CallRecord(None, None, 0, False, "format")], SCHEMAS)
    assert r.components["validity"] == pytest.approx(3 / 4)
    assert r.components["name"] == pytest.approx(3 / 4)


def test_no_call_on_an_mcp_task_scores_zero() -> None:
    r = score(TASK, [], SCHEMAS)
    assert r.total == 0.0
    assert r.components["efficiency"] == 0.0


def test_weights_are_configurable_and_every_component_is_reported() -> None:
    calls = oracle()[1:]
    cfg = RewardConfig(preset="paper", w_val=1.0, w_cov=2.0, w_eff=0.0, w_name=0.0, w_arg=0.0)
    r = score(TASK, calls, SCHEMAS, cfg)
    assert r.total == pytest.approx(1.0 + 2.0 / 3)
    assert r.weights["w_cov"] == 2.0
    assert {"validity", "coverage", "efficiency", "name", "argument", "abstention", "clarify", "format"} <= set(
        r.components
    )
    beta0 = score(
        TASK, oracle() + [call("get_account", account_id="ACC-0002")], SCHEMAS, RewardConfig(preset="paper", beta=0.0)
    )
    assert beta0.budget == 3 and beta0.components["efficiency"] == pytest.approx(-0.5 / 3)


def test_paper_total_is_the_weighted_sum() -> None:
    calls = oracle()[::-1] + [call("deposit_funds", account_id="ACC-0001", amount=1.0)] * 5
    r = score(TASK, calls, SCHEMAS)
    assert r.total == pytest.approx(total(r.components))


ABSTAIN = Task.model_validate(
    {
        "id": "t-abstain",
        "kind": "abstain",
        "servers": ["banking"],
        "turns": [{"user": "book a flight"}],
        "tools": [B + "get_account"],
    }
)


def test_abstention_is_one_without_a_call_and_zero_with_one() -> None:
    schemas = {B + "get_account": SCHEMAS[B + "get_account"]}
    assert score(ABSTAIN, [], schemas).total == 1.0
    r = score(ABSTAIN, [call("get_account", account_id="ACC-0001")], schemas)
    assert r.total == 0.0 and r.mode == "abstention"


CLARIFY = Task.model_validate(
    {
        "id": "t-clarify",
        "kind": "clarify",
        "servers": ["banking"],
        "turns": [
            {"user": "send 300 to ACC-0002", "ask": True},
            {"user": "from ACC-0001", "calls": [GT[1] | {"after": []}]},
        ],
        "tools": [B + "transfer_funds", B + "get_account"],
    }
)


ASK = "Which account should I send the money from?"


def test_clarify_asking_first_then_calling_scores_the_maximum() -> None:
    good = [call("transfer_funds", turn=1, **GT[1]["arguments"])]  # type: ignore[arg-type]
    r = score(CLARIFY, good, SCHEMAS, replies=[(0, ASK), (1, ""), (1, "Done.")])
    assert r.mode == "clarify" and r.components["clarify"] == 1.0
    assert r.total == pytest.approx(1.3)
    assert r.reasons["clarify"].startswith("turn 0: asked for from_account_id")


def test_clarify_a_call_in_the_ask_turn_zeroes_the_reward() -> None:
    guess = [call("transfer_funds", turn=0, **GT[1]["arguments"])]  # type: ignore[arg-type]
    r = score(CLARIFY, guess, SCHEMAS, replies=[(0, "")])
    assert r.components["clarify"] == 0.0 and r.total == 0.0
    assert "made 1 call(s) on the ask turn" in r.reasons["clarify"]
    outcome = reward.score(CLARIFY, guess, SCHEMAS, replies=[(0, "")], reads={B + "get_account"})
    assert outcome.total == 0.0 and "made 1 write or unknown call(s)" in outcome.reasons["clarify"]


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        ("Done.", "a statement"),
        ("I can't help with that.", "a refusal"),
        ("Sure, I sent $200 to ACC-0004 from your checking account.", "a statement"),
        ("Anything else I can do for you?", "does not refer to what is missing"),
        ("Should I use your main account?", "offered to act"),
        ("", "no reply"),
    ],
)
def test_clarify_a_reply_that_does_not_ask_for_the_missing_value_scores_near_zero(reply: str, why: str) -> None:
    good = [call("transfer_funds", turn=1, **GT[1]["arguments"])]  # type: ignore[arg-type]
    r = score(CLARIFY, good, SCHEMAS, replies=[(0, reply), (1, "Done.")])
    assert r.components["clarify"] == 0.0 and r.total <= 0.1
    assert why in r.reasons["clarify"]


def test_clarify_check_no_call_is_the_papers_reading() -> None:
    good = [call("transfer_funds", turn=1, **GT[1]["arguments"])]  # type: ignore[arg-type]
    r = score(CLARIFY, good, SCHEMAS, RewardConfig(preset="paper", clarify_check="no_call"))  # no replies needed
    assert r.total == pytest.approx(1.3) and "clarify_check=no_call" in r.reasons["clarify"]
    with pytest.raises(ValueError, match="needs the model's replies"):
        score(CLARIFY, good, SCHEMAS)


def test_clarify_without_later_calls_is_the_abstention_rule() -> None:
    task = Task.model_validate(
        {
            "id": "t-ask",
            "kind": "clarify",
            "servers": ["banking"],
            "turns": [{"user": "lock my card", "ask": True, "missing": ["card_id"]}],
            "tools": [B + "set_card_status", B + "list_cards"],
        }
    )
    schemas = {n: LIBRARY.tool(*n.split("__")).input_schema for n in task.tools}
    assert score(task, [], schemas, replies=[(0, "Which card is it? The last four digits will do.")]).total == 1.0
    assert score(task, [], schemas, replies=[(0, "Done, your card is locked.")]).total == 0.0
    assert score(task, [call("list_cards")], schemas, replies=[(0, "")]).total == 0.0


def test_state_term_is_optional_and_never_silently_zero() -> None:
    assert "state" not in score(TASK, oracle(), SCHEMAS).components
    r = score(TASK, oracle(), SCHEMAS, RewardConfig(preset="paper", w_state=1.0), final_hashes={"banking": "x"})
    assert "state" not in r.components and "no expected final state" in r.reasons["state"]
    assert r.max == pytest.approx(1.3)  # left out of the maximum, and said so
    task = TASK.model_copy(update={"expected_server_hashes": {"banking": "abc"}})
    with pytest.raises(ValueError, match="final server hashes"):
        score(task, oracle(), SCHEMAS, RewardConfig(preset="paper", w_state=1.0))
    r = score(task, oracle(), SCHEMAS, RewardConfig(preset="paper", w_state=1.0), final_hashes={"banking": "abc"})
    assert r.components["state"] == 1.0 and r.total == pytest.approx(2.3) and r.max == pytest.approx(2.3)


def test_format_term() -> None:
    r = score(TASK, oracle(), SCHEMAS, RewardConfig(preset="paper", w_format=1.0), messages=4, format_error_messages=1)
    assert r.components["format"] == 0.75 and r.total == pytest.approx(1.3 + 0.75)


def test_json_types() -> None:
    schema = SCHEMAS[B + "transfer_funds"]
    assert params_ok({"from_account_id": "a", "to_account_id": "b", "amount": 3}, schema)
    assert not params_ok({"from_account_id": "a", "to_account_id": "b", "amount": True}, schema)
    assert not params_ok({"from_account_id": "a", "amount": 3.0}, schema)
    assert not params_ok(["not", "an", "object"], schema)
    assert json_type_ok(None, {"anyOf": [{"type": "string"}, {"type": "null"}]})
    assert not json_type_ok(1.5, {"type": "integer"})
    assert json_type_ok(2, {"type": "integer"}) and not json_type_ok(False, {"type": "integer"})
    assert not math.isnan(score(TASK, oracle(), SCHEMAS).total)
