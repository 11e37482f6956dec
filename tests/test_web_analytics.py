"""A run's analytics from its stored episodes: failures by tool and error kind with unparsed calls and unknown names
apart, points lost by step range, zero-variance groups per step, the group index and its filters."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from hub.engine.events import RunEvent
from tests.web_support import flush, hub_of, rollouts, web_client
from web.analytics import failure_tables

MISSING_ACCOUNT = '<tool_call>{"name": "banking__get_account", "arguments": {"account_id": "ACC-9999"}}</tool_call>'
RIGHT = '<tool_call>{"name": "banking__get_account", "arguments": {"account_id": "ACC-0001"}}</tool_call>'
HALLUCINATED = '<tool_call>{"name": "banking__get_account_v2", "arguments": {"account_id": "ACC-0001"}}</tool_call>'
UNPARSED = '<tool_call>{"name": "banking__get_account", "arguments": {"account_id": </tool_call>'


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    yield from web_client(tmp_path)


def group(client: TestClient, run: str, step: int, scripts: list[list[str]]) -> str:
    """One group of the run at ``step``, each rollout played by its script, finished and closed; its id."""
    (first, *_) = rollouts(hub_of(client.app), "bank-balance-001", scripts, run=run, step=step)
    flush(client)
    return str(client.get(f"/ui/episodes/{first}").context["episode"]["group_id"])  # type: ignore[attr-defined]


@pytest.fixture
def run(client: TestClient) -> dict[str, str]:
    hub_of(client.app).bus.publish(RunEvent("run-a", "grpo-a", {}, "running", 1.0))
    mixed = group(client, "run-a", 0, [[MISSING_ACCOUNT, RIGHT, "Done."], [HALLUCINATED, UNPARSED, "Done."]])
    same = group(client, "run-a", 1, [[RIGHT, "Done."], [RIGHT, "Done."]])
    other = group(client, "run-b", 0, [[MISSING_ACCOUNT, MISSING_ACCOUNT, "Done."]])  # another run: not counted
    flush(client)
    return {"mixed": mixed, "same": same, "other": other}


def test_failures_are_scoped_to_the_run_with_unparsed_and_unknown_apart(
    client: TestClient, run: dict[str, str]
) -> None:
    r = client.get("/ui/training/run-a/analytics")
    f = r.context["failures"]  # type: ignore[attr-defined]
    assert [(t["tool"], t["calls"], t["failed"], t["kinds"]) for t in f["tools"]] == [
        ("banking.get_account", 4, 1, {"tool": 1})
    ]
    assert f["unknown"] == [("banking.get_account_v2", 1)] and f["unparsed"] == 1
    assert 'data-tool="banking.get_account"' in r.text and "banking.get_account_v2" in r.text


def test_zero_variance_groups_and_the_group_index(client: TestClient, run: dict[str, str]) -> None:
    ctx = client.get("/ui/training/run-a/analytics").context  # type: ignore[attr-defined]
    assert (ctx["zero_total"], ctx["groups_total"]) == (1, 2)
    by_group = {g["group"]: g for g in ctx["groups"]}
    assert by_group[run["same"]]["zero"] and not by_group[run["mixed"]]["zero"] and run["other"] not in by_group

    def shown(**params: str) -> list[str]:
        page = client.get("/ui/training/run-a/analytics", params=params)
        return [g["group"] for g in page.context["groups"]]  # type: ignore[attr-defined]

    assert shown(variance="zero") == [run["same"]] and shown(variance="nonzero") == [run["mixed"]]
    mean_same = by_group[run["same"]]["mean"]
    assert shown(lo=str(mean_same - 1e-6)) == [run["same"]]  # the right rollouts score above the mixed group
    assert shown(task="nope") == [] and len(shown(task="bank-balance")) == 2
    assert shown(lo="oops") == shown()  # a bad number is no filter, not an error


def test_points_lost_by_step_range(client: TestClient, run: dict[str, str]) -> None:
    lost = client.get("/ui/training/run-a/analytics").context["lost"]  # type: ignore[attr-defined]
    assert [r["from"] for r in lost["ranges"]] == [0, 1] and lost["ranges"][0]["n"] == 2
    assert lost["components"] and lost["ranges"][0]["lost"][lost["components"][0]] > 0


def test_the_run_page_links_its_analytics_and_unknown_runs_are_404(client: TestClient, run: dict[str, str]) -> None:
    assert "/ui/training/run-a/analytics" in client.get("/ui/training/run-a").text
    assert client.get("/ui/training/nope/analytics").status_code == 404


def test_failure_tables_counts_every_call() -> None:
    rows = [
        ("s", "t", None, 5, 0),
        ("s", "t", "tool", 2, 2),
        ("", "", "format", 3, 3),
        ("s", "x_v2", "unknown_tool", 1, 1),
    ]
    t = failure_tables(rows)
    assert t["calls"] == 11 and t["tools"][0]["rate"] == pytest.approx(2 / 7) and t["unparsed"] == 3


def test_kept_results_follow_new_episodes(client: TestClient, run: dict[str, str]) -> None:
    before = client.get("/ui/training/run-a/analytics").context  # type: ignore[attr-defined]
    again = client.get("/ui/training/run-a/analytics").context  # type: ignore[attr-defined]
    assert again["groups_total"] == before["groups_total"] == 2  # the second read comes from the kept result
    group(client, "run-a", 2, [[RIGHT, "Done."], [RIGHT, "Done."]])
    flush(client)
    after = client.get("/ui/training/run-a/analytics").context  # type: ignore[attr-defined]
    assert (after["groups_total"], after["zero_total"]) == (3, 2)
    assert after["failures"]["tools"][0]["calls"] == before["failures"]["tools"][0]["calls"] + 2
