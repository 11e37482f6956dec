"""The why kept at finish: per ground-truth step the call that matched it, the argument it got wrong, the steps
nothing matched, the reward's reasons and preset, on the episode and group pages after the episode is closed."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from hub.engine.explain import differing
from tests.web_support import WRONG_SOURCE, flush, hub_of, rollouts, web_client

NO_MEMO = (
    '<tool_call>{"name": "banking__transfer_funds", "arguments": {"from_account_id": "ACC-0001", '
    '"to_account_id": "ACC-0002", "amount": 300.0}}</tool_call>'
)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    yield from web_client(tmp_path)


def closed(client: TestClient, task: str, messages: list[str], n: int = 1) -> list[str]:
    """``n`` rollouts of one group, each played, finished and closed: the engine forgets them."""
    ids = rollouts(hub_of(client.app), task, [messages] * n)
    flush(client)
    assert all(eid not in hub_of(client.app).episodes.episodes for eid in ids)
    return ids


def text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).replace("&#34;", '"').replace("&quot;", '"')


def test_a_closed_episode_names_the_wrong_argument_and_the_missing_step(client: TestClient) -> None:
    (eid,) = closed(client, "bank-transfer-002", [WRONG_SOURCE, "Done."])
    r = client.get(f"/ui/episodes/{eid}")
    why = r.context["reward"]["why"]  # type: ignore[attr-defined]
    g1, g2 = why["steps"]
    assert g1["call"] == 1 and g1["differ"] == [
        {"key": "from_account_id", "expected": "ACC-0001", "actual": "ACC-0003", "missing": False}
    ]
    assert g2["call"] is None and why["missing"] == ["g2"]
    shown = text(r.text)
    assert 'from_account_id: "ACC-0003" , expected "ACC-0001"' in shown
    assert "no call matched g2 ( banking__list_transactions )" in shown
    assert re.search(r"scored by preset (paper|outcome)", shown)
    assert why["preset"] == hub_of(client.app).episodes.reward.preset


def test_a_left_out_argument_is_named(client: TestClient) -> None:
    (eid,) = closed(client, "bank-transfer-002", [NO_MEMO, "Done."])
    why = client.get(f"/ui/episodes/{eid}").context["reward"]["why"]  # type: ignore[attr-defined]
    g1 = why["steps"][0]
    assert g1["call"] is None  # a judged key left out: the call matches no step (the reward's rule)
    assert g1["near"] == {
        "call": 1,
        "differ": [{"key": "memo", "expected": "Rent June", "actual": None, "missing": True}],
    }
    assert why["validity"][0]["params_ok"]  # memo is optional: the call is valid and still loses the argument


def test_an_invalid_call_keeps_its_validity(client: TestClient) -> None:
    bad = '<tool_call>{"name": "banking__transfer_funds_v2", "arguments": {"amount": 1}}</tool_call>'
    (eid,) = closed(client, "bank-transfer-002", [bad, "Done."])
    r = client.get(f"/ui/episodes/{eid}")
    (v,) = r.context["reward"]["why"]["validity"]  # type: ignore[attr-defined]
    assert v["call"] == 1 and not v["known_name"] and v["score"] == 0
    assert r.context["reward"]["why"]["missing"] == ["g1", "g2"]  # type: ignore[attr-defined]
    assert "banking__transfer_funds_v2" in r.text and "✗ unknown" in r.text


def test_a_clarify_rollout_keeps_the_reason_its_question_failed(client: TestClient) -> None:
    (eid,) = closed(client, "bank-clarify-009", ["Which restaurant would you like to book tonight?"])
    r = client.get(f"/ui/episodes/{eid}")
    reasons = r.context["reward"]["why"]["reasons"]  # type: ignore[attr-defined]
    assert reasons["clarify"].startswith("turn 0:") and r.context["reward"]["total"] == 0  # type: ignore[attr-defined]
    assert reasons["clarify"] in text(r.text)


def test_an_abstain_rollout_says_it_should_have_declined(client: TestClient) -> None:
    call = '<tool_call>{"name": "banking__list_accounts", "arguments": {}}</tool_call>'
    (eid,) = closed(client, "bank-abstain-010", [call, "I cannot book flights."])
    reasons = client.get(f"/ui/episodes/{eid}").context["reward"]["why"]["reasons"]  # type: ignore[attr-defined]
    assert "yet the model made 1 call" in reasons["abstention"]


def test_the_group_page_says_why_each_rollout_lost_points(client: TestClient) -> None:
    ids = closed(client, "bank-transfer-002", [WRONG_SOURCE, "Done."], n=2)
    r = client.get(f"/ui/episodes/{ids[0]}")
    group = r.context["episode"]["group_id"]  # type: ignore[attr-defined]
    page = client.get(f"/ui/groups/{group}")
    shown = text(page.text)
    assert shown.count('g1 from_account_id: "ACC-0003" , expected "ACC-0001"') == 2
    assert "Move $300 from ACC-0001 to ACC-0002" in shown  # the prompt
    truth = page.context["truth"]  # type: ignore[attr-defined]
    assert [t["gt"] for t in truth] == ["g1", "g2"] and truth[0]["arguments"]["from_account_id"] == "ACC-0001"
    assert len(page.context["grid"]) == 2  # type: ignore[attr-defined]  # g2 gets a row though no rollout got there


def test_differing_compares_booleans_by_type() -> None:
    assert differing({"a": 1}, {"a": True}, ["a"]) == [{"key": "a", "expected": 1, "actual": True, "missing": False}]
    assert differing({"a": 1.0}, {"a": 1}, ["a"]) == []
    assert differing({"a": 1}, "not a dict", ["a"])[0]["missing"]
