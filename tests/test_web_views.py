"""Dashboard views, read through the template context (Starlette's TestClient keeps .template and .context)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from hub.engine.events import RunEvent, RunMetricEvent
from servers import REGISTRY
from tests.web_support import XSS, csrf_field, flush, hub_of, make_app, play, web_client

HX = {"HX-Request": "true"}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    yield from web_client(tmp_path)


def token(client: TestClient, page: str = "/ui/catalog/banking/get_account") -> dict[str, str]:
    return csrf_field(client.get(page).text)


def call(client: TestClient, sid: str, server: str, tool: str, **arguments: Any) -> dict[str, Any]:
    r = client.post(f"/api/sessions/{sid}/call/{server}/{tool}", json={"arguments": arguments})
    return r.json()  # type: ignore[no-any-return]


# Overview ---------------------------------------------------------------------------------------


def test_root_redirects_to_the_overview(client: TestClient) -> None:
    r = client.get("/", follow_redirects=False)
    assert r.status_code == 307 and r.headers["location"] == "/ui/"


def test_overview_counts_sessions_calls_and_rewards(client: TestClient) -> None:
    call(client, "o1", "banking", "get_account", account_id="ACC-0001")
    play(hub_of(client.app), "bank-balance-001")
    flush(client)
    r = client.get("/ui/")
    assert r.template.name == "overview.html"  # type: ignore[attr-defined]
    stats = r.context["stats"]  # type: ignore[attr-defined]
    assert stats["tool_calls"] >= 2 and stats["episodes"] == 1 and stats["rewarded"] == 1
    assert stats["mean_reward"] == pytest.approx(hub_of(client.app).episodes.stats()["mean_reward"])
    assert stats["rate"] >= 0 and stats["sessions"] >= 2
    assert "<svg" in stats["rate_chart"] and "<svg" in r.context["reward_chart"]  # type: ignore[attr-defined]
    assert [c["tool"] for c in r.context["calls"]][:1] in (["get_account"], ["list_accounts"])  # type: ignore[attr-defined]


def test_overview_fragment_for_htmx(client: TestClient) -> None:
    r = client.get("/ui/", headers=HX)
    assert r.template.name == "partials/overview_stats.html"  # type: ignore[attr-defined]
    assert "<html" not in r.text


# Catalog ----------------------------------------------------------------------------------------


def test_catalog_lists_every_server_and_tool(client: TestClient) -> None:
    r = client.get("/ui/catalog")
    ctx = r.context  # type: ignore[attr-defined]
    assert len(ctx["servers"]) == len(REGISTRY)
    assert ctx["matches"] == sum(len(s.tools) for s in REGISTRY) == ctx["tool_count"]


def test_catalog_search_filters_and_returns_a_fragment(client: TestClient) -> None:
    r = client.get("/ui/catalog", params={"q": "transfer_funds"}, headers=HX)
    assert r.template.name == "partials/catalog_list.html"  # type: ignore[attr-defined]
    names = [(s["name"], t.name) for s in r.context["servers"] for t in s["tools"]]  # type: ignore[attr-defined]
    assert ("banking", "transfer_funds") in names and len(names) < 10
    r = client.get("/ui/catalog", params={"server": "vehicle"})
    assert [s["name"] for s in r.context["servers"]] == ["vehicle"]  # type: ignore[attr-defined]


def test_tool_page_builds_a_form_from_the_schema(client: TestClient) -> None:
    r = client.get("/ui/catalog/banking/transfer_funds")
    fields = {f.name: f for f in r.context["fields"]}  # type: ignore[attr-defined]
    assert fields["amount"].kind == "number" and fields["amount"].required
    assert not fields["memo"].required
    assert 'name="from_account_id"' in r.text
    assert client.get("/ui/catalog/banking/nope").status_code == 404


def test_run_tool_shows_result_and_the_diff_it_caused(client: TestClient) -> None:
    form = {"session": "scratch-1", "account_id": "ACC-0003", "amount": "12.5", **token(client)}
    r = client.post("/ui/catalog/banking/deposit_funds/run", data=form, headers=HX)
    assert r.template.name == "partials/tool_result.html"  # type: ignore[attr-defined]
    ctx = r.context  # type: ignore[attr-defined]
    assert ctx["outcome"].ok and ctx["arguments"] == {"account_id": "ACC-0003", "amount": 12.5}
    assert set(ctx["diff"]) == {"accounts", "transactions"}
    assert len(ctx["diff"]["transactions"]["added"]) == 1
    assert "scratch-1" in hub_of(client.app).sessions.sessions


def test_run_tool_reports_domain_and_form_errors(client: TestClient) -> None:
    tok = token(client)
    r = client.post("/ui/catalog/banking/deposit_funds/run", data={"account_id": "ACC-0003", "amount": "lots", **tok})
    assert r.context["form_error"] and "amount" in r.context["form_error"]  # type: ignore[attr-defined]
    r = client.post("/ui/catalog/banking/get_account/run", data={"account_id": "ACC-9999", **tok})
    out = r.context["outcome"]  # type: ignore[attr-defined]
    assert not out.ok and out.error_kind == "tool" and r.context["diff"] == {}  # type: ignore[attr-defined]
    r = client.post("/ui/catalog/banking/get_account/run", data={"__json": '{"account_id": "ACC-0001"}', **tok})
    assert r.context["outcome"].ok  # type: ignore[attr-defined]


# Sessions ---------------------------------------------------------------------------------------


def test_sessions_list_and_session_page(client: TestClient) -> None:
    call(client, "alice", "banking", "deposit_funds", account_id="ACC-0001", amount=5)
    r = client.get("/ui/sessions")
    ids = [s["id"] for s in r.context["rows"]]  # type: ignore[attr-defined]
    assert ids[0] == "alice" and "default" in ids
    assert client.get("/ui/sessions", headers=HX).template.name == "partials/session_rows.html"  # type: ignore[attr-defined]
    flush(client)
    r = client.get("/ui/sessions/alice")
    ctx = r.context  # type: ignore[attr-defined]
    assert [s for s in ctx["servers"] if s["changed"]] == [{"name": "banking", "forked": True, "changed": True}]
    assert [c["tool"] for c in ctx["calls"]] == ["deposit_funds"]
    assert client.get("/ui/sessions/nobody").status_code == 404


def test_session_server_state_is_paged_and_diffed(client: TestClient) -> None:
    call(client, "bob", "banking", "deposit_funds", account_id="ACC-0001", amount=5)
    r = client.get("/ui/sessions/bob/state/banking", params={"table": "transactions"})
    ctx = r.context  # type: ignore[attr-defined]
    assert ctx["browse"]["total"] > 50 and len(ctx["browse"]["rows"]) == 50 and ctx["browse"]["offset"] == 0
    assert ctx["state_hash"] != ctx["seed_hash"]
    assert set(ctx["diff"]) == {"accounts", "transactions"}
    r = client.get("/ui/sessions/bob/state/banking", params={"table": "transactions", "offset": "50"}, headers=HX)
    assert r.template.name == "partials/table.html" and r.context["browse"]["offset"] == 50  # type: ignore[attr-defined]
    r = client.get("/ui/sessions/bob/state/vehicle")  # untouched: the seed, without forking it
    assert r.status_code == 200 and "vehicle" not in hub_of(client.app).sessions.sessions["bob"].forks
    assert client.get("/ui/sessions/bob/state/banking", params={"table": "nope"}).status_code == 404


# Episodes ---------------------------------------------------------------------------------------


def test_episode_list_filters(client: TestClient) -> None:
    hub = hub_of(client.app)
    good = play(hub, "bank-balance-001")
    bad = play(
        hub,
        "bank-transfer-002",
        [
            '<tool_call>{"name": "banking__get_account", "arguments": {"account_id": "ACC-9999"}}</tool_call>',
            "<tool_call>{not json</tool_call>",
            "Done.",
        ],
    )
    flush(client)

    def ids(**params: str) -> list[str]:
        r = client.get("/ui/episodes", params=params)
        return [e["id"] for e in r.context["rows"]]  # type: ignore[attr-defined]

    assert ids() == [bad, good]
    assert ids(task="bank-balance-001") == [good]
    assert ids(server="banking") == [bad, good] and ids(server="vehicle") == []
    assert ids(min_reward="0.9") == [good] and ids(max_reward="0.5") == [bad]
    assert ids(errors="1") == [bad]
    r = client.get("/ui/episodes", params={"errors": "1"})
    row = r.context["rows"][0]  # type: ignore[attr-defined]
    assert row["failed_calls"] == 2 and row["format_errors"] >= 1 and r.context["total"] == 1  # type: ignore[attr-defined]


def test_episode_list_is_keyset_paged(client: TestClient) -> None:
    hub = hub_of(client.app)
    made = [play(hub, "bank-balance-001") for _ in range(55)]
    flush(client)
    first = client.get("/ui/episodes").context  # type: ignore[attr-defined]
    assert len(first["rows"]) == 50 and first["next"] and first["total"] == 55
    second = client.get("/ui/episodes", params={"cursor": first["next"]}, headers=HX)
    assert second.template.name == "partials/episode_rows.html"  # type: ignore[attr-defined]
    seen = [e["id"] for e in first["rows"]] + [e["id"] for e in second.context["rows"]]  # type: ignore[attr-defined]
    assert sorted(seen) == sorted(made) and second.context["next"] is None  # type: ignore[attr-defined]


def test_episode_page_shows_turns_calls_reward_and_state(client: TestClient) -> None:
    hub = hub_of(client.app)
    eid = play(hub, "bank-transfer-002")
    flush(client)
    r = client.get(f"/ui/episodes/{eid}")
    ctx = r.context  # type: ignore[attr-defined]
    kinds = [i["kind"] for i in ctx["items"]]
    assert kinds[:3] == ["turn", "turn", "turn"] and kinds.count("call") == 2
    assistant = next(i for i in ctx["items"] if i["kind"] == "turn" and i["role"] == "assistant")
    assert [p["name"] for p in assistant["parsed"]] == ["banking__transfer_funds", "banking__list_transactions"]
    assert ctx["reward"]["total"] == pytest.approx(hub.episodes.get(eid).reward.total)  # type: ignore[union-attr]
    names = {r["name"] for r in ctx["reward"]["points"]["rows"]}
    assert names >= {"validity", "coverage", "efficiency", "name", "argument"}
    assert ctx["state_diff"] == {} and not ctx["live"]
    assert "matches the expected state" in r.text


def test_episode_page_diffs_a_wrong_final_state(client: TestClient) -> None:
    hub = hub_of(client.app)
    wrong = (
        '<tool_call>{"name": "banking__transfer_funds", "arguments": {"from_account_id": "ACC-0001", '
        '"to_account_id": "ACC-0002", "amount": 1, "memo": "x"}}</tool_call>'
    )
    eid = play(hub, "bank-transfer-002", [wrong, "Done."])
    flush(client)
    ctx = client.get(f"/ui/episodes/{eid}").context  # type: ignore[attr-defined]
    assert set(ctx["state_diff"]) == {"banking"}
    changed = ctx["state_diff"]["banking"]["accounts"]["changed"]
    assert {c["key"] for c in changed} == {"ACC-0001", "ACC-0002"}


def test_open_episode_is_live_and_outcome_fragment_renders(client: TestClient) -> None:
    hub = hub_of(client.app)
    eid = play(hub, "bank-balance-001", [], finish=False)
    r = client.get(f"/ui/episodes/{eid}")  # maybe not in the store yet: falls back to the engine
    assert r.context["live"] and "sse-connect" in r.text  # type: ignore[attr-defined]
    hub.episodes.finish(eid)
    r = client.get(f"/ui/episodes/{eid}/outcome")
    assert r.template.name == "partials/episode_outcome.html" and r.context["reward"]  # type: ignore[attr-defined]
    assert client.get("/ui/episodes/ep-nope").status_code == 404


# Tasks and training -----------------------------------------------------------------------------


def test_tasks_page_has_dataset_statistics(client: TestClient) -> None:
    play(hub_of(client.app), "bank-balance-001")
    flush(client)
    ctx = client.get("/ui/tasks").context  # type: ignore[attr-defined]
    (builtin,) = ctx["datasets"]
    assert builtin["tasks"] == len(hub_of(client.app).tasks) and builtin["kinds"]["abstain"] >= 1
    assert ctx["stats"]["bank-balance-001"]["episodes"] == 1
    r = client.get("/ui/tasks", params={"kind": "clarify"}, headers=HX)
    assert r.template.name == "partials/task_rows.html"  # type: ignore[attr-defined]
    assert {t.kind for t in r.context["tasks"]} == {"clarify"}  # type: ignore[attr-defined]


def test_task_page_and_replay(client: TestClient) -> None:
    r = client.get("/ui/tasks/bank-transfer-002")
    assert r.context["task"].id == "bank-transfer-002" and r.context["loaded"]  # type: ignore[attr-defined]
    tok = csrf_field(r.text)
    r = client.post("/ui/tasks/bank-transfer-002/replay", data=tok, follow_redirects=False)
    assert r.status_code == 303
    eid = r.headers["location"].rsplit("/", 1)[-1]
    assert hub_of(client.app).episodes.get(eid).reward.total > 0.9  # type: ignore[union-attr]
    r = client.post("/ui/tasks/bank-transfer-002/replay", headers={**HX, "X-CSRF-Token": tok["csrf_token"]})
    assert r.status_code == 204 and r.headers["HX-Redirect"].startswith("/ui/episodes/ep-")
    assert client.get("/ui/tasks/nope").status_code == 404


def test_training_runs_with_reward_curves(client: TestClient) -> None:
    bus = hub_of(client.app).bus
    bus.publish(RunEvent("run-1", "grpo-qwen", {"lr": 1e-6}, "running", 1.0))
    for step in range(5):
        bus.publish(
            RunMetricEvent("run-1", step, {"reward": 0.1 * step, "reward/coverage": 0.2 * step, "kl": 0.01}, 2.0)
        )
    flush(client)
    ctx = client.get("/ui/training").context  # type: ignore[attr-defined]
    assert [(r["id"], r["last_step"]) for r in ctx["runs"]] == [("run-1", 4)]
    r = client.get("/ui/training/run-1")
    ctx = r.context  # type: ignore[attr-defined]
    assert ctx["latest"]["reward"] == pytest.approx(0.4)
    assert {c["name"] for g in ctx["groups"] for c in g["charts"]} == {"reward", "reward/coverage", "kl"}
    assert [g["name"] for g in ctx["groups"]] == ["reward", "kl / entropy"]
    assert "reward/coverage" in ctx["reward_chart"] and ">kl<" not in ctx["reward_chart"]
    assert client.get("/ui/training/nope").status_code == 404


# Escaping and the token -------------------------------------------------------------------------


def test_tool_and_model_text_is_escaped_everywhere(client: TestClient) -> None:
    hub = hub_of(client.app)
    call(
        client,
        "xss",
        "banking",
        "transfer_funds",
        from_account_id="ACC-0001",
        to_account_id="ACC-0002",
        amount=1,
        memo=XSS,
    )
    call(client, "xss", "banking", "get_account", account_id=XSS)
    eid = play(
        hub,
        "bank-balance-001",
        [
            XSS
            + '<tool_call>{"name": "banking__get_account", "arguments": {"account_id": "'
            + XSS.replace('"', '\\"')
            + '"}}</tool_call>',
            "Done.",
        ],
    )
    flush(client)
    pages = [
        "/ui/",
        "/ui/sessions/xss",
        "/ui/sessions/xss/state/banking?table=transactions&offset=0",
        f"/ui/episodes/{eid}",
        "/ui/catalog/banking/get_account",
    ]
    r = client.post("/ui/catalog/banking/get_account/run", data={"account_id": XSS, **token(client)})
    assert XSS not in r.text and "&lt;script&gt;alert(1)&lt;/script&gt;" in r.text
    for url in pages:
        text = client.get(url).text
        assert XSS not in text, url
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text, url
    html = client.get("/ui/sessions/xss/state/banking", params={"table": "transactions"}).text
    assert "<script>alert" not in html


def test_links_carry_the_token(tmp_path: Path) -> None:
    with TestClient(make_app(tmp_path, token="s3cret"), base_url="http://127.0.0.1") as c:
        assert c.get("/ui/").status_code == 401
        r = c.get("/ui/", params={"token": "s3cret"})
        assert r.status_code == 200
        hrefs = [h for h in r.text.split('"') if h.startswith("/ui/")]
        assert hrefs and all("token=s3cret" in h for h in hrefs), hrefs
        assert c.get("/ui/vendor/htmx/htmx.min.js", params={"token": "s3cret"}).status_code in (200, 404)
        r = c.get("/ui/episodes", params={"token": "s3cret"})
        assert 'name="token" value="s3cret"' in r.text  # the filter form keeps it too


def test_pages_work_before_the_store_has_data(client: TestClient) -> None:
    for url in ["/ui/", "/ui/episodes", "/ui/tasks", "/ui/training", "/ui/sessions", "/ui/catalog"]:
        assert client.get(url).status_code == 200, url
    assert json.loads(client.get("/healthz").text)["status"] == "ok"
