"""Evidence kept at finish, points lost, GRPO groups, runs tied to rollouts, training charts and the small fixes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient
from websockets.asyncio.client import connect

from hub.engine import reward
from hub.engine.events import RunEvent, RunMetricEvent
from hub.engine.evidence import bound
from hub.testing import serve
from hub.wire import RewardConfig
from tests.web_support import NO_LIST, WRONG_SOURCE, csrf_field, flush, hub_of, make_app, play, web_client
from web import models, queries
from web.svg import Series, downsample, fmt, line_chart

HX = {"HX-Request": "true"}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    yield from web_client(tmp_path)


def closed(client: TestClient, messages: list[str] | None = None, task: str = "bank-transfer-002") -> str:
    """An episode played, finished and closed (its session gone), as eval and the trainer leave them."""
    hub = hub_of(client.app)
    eid = play(hub, task, messages)
    hub.episodes.close(eid)
    flush(client)
    return eid


# Evidence ---------------------------------------------------------------------------------------


def test_a_closed_episode_keeps_its_diffs(client: TestClient) -> None:
    eid = closed(client, [WRONG_SOURCE, "Done."])
    assert f"es-{eid[3:]}" not in hub_of(client.app).sessions.sessions
    ctx = client.get(f"/ui/episodes/{eid}").context  # type: ignore[attr-defined]
    assert ctx["evidence"]["state_match"] == 0
    changed = ctx["state_diff"]["banking"]["accounts"]["changed"]
    assert {c["key"] for c in changed} == {"ACC-0001", "ACC-0003"}  # wrong source debited, right one untouched
    start = ctx["start_diff"]["banking"]
    assert len(start["transactions"]["added"]) == 2 and {c["key"] for c in start["accounts"]["changed"]} == {
        "ACC-0002",
        "ACC-0003",
    }


def test_a_right_episode_matches_without_a_replay(client: TestClient) -> None:
    hub = hub_of(client.app)
    eid = closed(client)
    assert hub.episodes.expected._cache == {}  # the hashes matched: no ground-truth replay was needed
    r = client.get(f"/ui/episodes/{eid}")
    assert r.context["state_diff"] == {} and 'id="state-match"' in r.text  # type: ignore[attr-defined]


def test_differs_from_expected_is_a_filter_and_a_column(client: TestClient) -> None:
    good, bad = closed(client), closed(client, [WRONG_SOURCE, "Done."])
    rows = client.get("/ui/episodes").context["rows"]  # type: ignore[attr-defined]
    assert {r["id"]: r["state_match"] for r in rows} == {good: 1, bad: 0}
    assert {r["id"]: r["reward_class"] for r in rows}[good] == "ok"

    def ids(**params: str) -> list[str]:
        return [e["id"] for e in client.get("/ui/episodes", params=params).context["rows"]]  # type: ignore[attr-defined]

    assert ids(state="differs") == [bad] and ids(state="matches") == [good]
    assert client.get("/ui/episodes", params={"state": "differs"}).context["total"] == 1  # type: ignore[attr-defined]


def test_evidence_is_bounded_and_says_what_it_left_out() -> None:
    rows = [{"id": i, "memo": "x" * 50} for i in range(500)]
    diff = {
        "banking": {
            "transactions": {"added": rows, "removed": [], "changed": []},
            "accounts": {"added": [], "removed": [], "changed": [{"key": "A", "changes": {"b": [1, 2]}}]},
        }
    }
    cut, left = bound(diff, max_rows=50, max_chars=1_000_000)
    kept = cut["banking"]["transactions"]
    assert len(kept["added"]) == 50 and kept["counts"]["added"] == 500 and left == 450
    assert "counts" not in cut["banking"]["accounts"]
    tiny, left = bound(diff, max_rows=50, max_chars=500)
    assert tiny["banking"]["transactions"]["omitted"] and left >= 500
    assert len(json.dumps(tiny)) < 2_000


# Points lost ------------------------------------------------------------------------------------


def test_weight_zero_components_cost_nothing_and_coverage_does() -> None:
    comps = {
        "validity": 1.0,
        "coverage": 0.5,
        "efficiency": 0.0,
        "name": 1.0,
        "argument": 1.0,
        "clarify": 1.0,
        "format": 1.0,
        "abstention": 0.0,
    }
    ledger = reward.ledger("paper", comps, RewardConfig(w_format=0.0), gated=False)
    pts = models.points([r.model_dump() for r in ledger])
    lost = {r["name"]: r["lost"] for r in pts["rows"]}
    assert lost["coverage"] == pytest.approx(0.25) and lost["format"] == 0 and "clarify" not in lost
    assert pts["max"] == pytest.approx(1.3) and pts["total"] == pytest.approx(1.05)
    assert models.reward_class(1.287, 1.3) == "ok" and models.reward_class(0.7, 1.45) == "bad"
    assert models.reward_class(1.287, 1.3, state_match=0) == "warn"  # a harmful write is never green


def test_episode_page_shows_points_lost_against_the_maximum(client: TestClient) -> None:
    eid = closed(
        client,
        [
            '<tool_call>{"name": "banking__transfer_funds", "arguments": {"from_account_id": "ACC-0001", '
            '"to_account_id": "ACC-0002", "amount": 300.0, "memo": "Rent June"}}</tool_call>',
            "Done.",
        ],
    )
    r = client.get(f"/ui/episodes/{eid}")
    pts = r.context["reward"]["points"]  # type: ignore[attr-defined]
    lost = {row["name"]: row["lost"] for row in pts["rows"]}
    assert lost["coverage"] == pytest.approx(0.25) and pts["max"] == pytest.approx(1.3)
    assert 'class="lost"' in r.text and "points lost" in r.text


def test_episode_list_sorts_by_a_component(client: TestClient) -> None:
    full = closed(client)
    half = closed(client, [NO_LIST, "Done."])
    none = closed(client, ["I cannot help."])

    def ids(sort: str) -> list[str]:
        r = client.get("/ui/episodes", params={"sort": sort}, headers=HX)
        assert r.template.name == "partials/episode_rows.html"  # type: ignore[attr-defined]
        return [e["id"] for e in r.context["rows"]]  # type: ignore[attr-defined]

    assert ids("coverage") == [none, half, full] and ids("-coverage") == [full, half, none]
    assert ids("reward")[0] == full and ids("-reward")[0] == none
    rows = client.get("/ui/episodes", params={"sort": "coverage"}).context["rows"]  # type: ignore[attr-defined]
    assert rows[1]["points"]["lost"]["coverage"] == pytest.approx(0.25)
    assert client.get("/ui/episodes", params={"sort": "nonsense"}).status_code == 200


def test_sorted_pages_are_offset_paged(client: TestClient) -> None:
    hub = hub_of(client.app)
    made = [play(hub, "bank-balance-001") for _ in range(53)]
    flush(client)
    first = client.get("/ui/episodes", params={"sort": "coverage"}).context  # type: ignore[attr-defined]
    assert first["next"] == "@50" and len(first["rows"]) == 50
    second = client.get("/ui/episodes", params={"sort": "coverage", "cursor": "@50"}).context  # type: ignore[attr-defined]
    assert sorted(e["id"] for e in first["rows"] + second["rows"]) == sorted(made) and second["next"] is None


def test_tasks_page_aggregates_points_lost(client: TestClient) -> None:
    closed(client)
    closed(
        client,
        [
            '<tool_call>{"name": "banking__transfer_funds", "arguments": {"from_account_id": "ACC-0001", '
            '"to_account_id": "ACC-0002", "amount": 300.0, "memo": "Rent June"}}</tool_call>',
            "Done.",
        ],
    )
    closed(
        client,
        ['<tool_call>{"name": "banking__get_account", "arguments": {"account_id": "ACC-9999"}}</tool_call>', "Done."],
        task="bank-balance-001",
    )
    r = client.get("/ui/tasks")
    losses = r.context["losses"]  # type: ignore[attr-defined]
    coverage = next(c for c in losses["components"] if c["name"] == "coverage")
    assert coverage["of"] == 3 and coverage["episodes"] == 1  # a wrong account id still covers the step
    assert {t["task_id"] for t in losses["tasks"]} == {"bank-transfer-002", "bank-balance-001"}
    assert [(t["server"], t["tool"], t["failed"]) for t in losses["tools"]] == [("banking", "get_account", 1)]
    assert "coverage cost" in r.text and "sort=coverage" in r.text
    task = client.get("/ui/tasks/bank-transfer-002").context["losses"]  # type: ignore[attr-defined]
    assert next(c for c in task["components"] if c["name"] == "coverage")["share"] == pytest.approx(0.5)


# GRPO groups ------------------------------------------------------------------------------------


def test_group_page_shows_rollouts_advantages_and_divergence(client: TestClient) -> None:
    hub = hub_of(client.app)
    engine = hub.episodes
    eps = engine.open_group("bank-transfer-002", 3)
    scripts = [None, [WRONG_SOURCE, "Done."], ["I will not do that."]]
    for ep, script in zip(eps, scripts):
        from hub.tasks import oracle_script

        for message in script or oracle_script(engine.get(ep.id).task):
            if engine.get(ep.id).done:
                break
            engine.step(ep.id, message)
        engine.finish(ep.id)
        engine.close(ep.id)
    flush(client)
    r = client.get(f"/ui/groups/{eps[0].group}")
    ctx = r.context  # type: ignore[attr-defined]
    rollouts = ctx["rollouts"]
    assert [x["id"] for x in rollouts] == [e.id for e in eps]
    advs = [x["advantage"] for x in rollouts]
    assert advs[0] > 0 > advs[2] and abs(sum(advs)) < 1e-6
    assert ctx["diverge_at"] == 0 and ctx["states"] == 3
    assert [x["state_match"] for x in rollouts] == [1, 0, 0]
    assert ctx["grid"][0][1]["odd"] or ctx["grid"][0][0]["odd"]
    redirect = client.get("/ui/episodes", params={"group": eps[0].group}, follow_redirects=False)
    assert redirect.status_code == 307 and redirect.headers["location"] == f"/ui/groups/{eps[0].group}"
    assert f"/ui/groups/{eps[0].group}" in client.get(f"/ui/episodes/{eps[1].id}").text
    assert client.get("/ui/groups/grp-nope").status_code == 404


def test_advantages_are_group_normalised() -> None:
    assert models.advantages([1.0, 0.0]) == pytest.approx([1.0, -1.0], abs=1e-5)
    assert models.advantages([0.5, 0.5, None]) == [0.0, 0.0, None]


# Runs and rollouts ------------------------------------------------------------------------------


async def test_open_carries_the_run_and_step_to_the_episodes(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with serve(app) as live, connect(live.ws_url) as ws:
        await ws.send(json.dumps({"type": "hello"}))
        assert json.loads(await ws.recv())["type"] == "welcome"
        await ws.send(json.dumps({"type": "open", "task": "bank-balance-001", "n": 2, "run": "run-7", "step": 12}))
        opened = json.loads(await ws.recv())
        assert opened["type"] == "opened", opened
        await ws.send(json.dumps({"type": "open", "task": "bank-balance-001", "run": "run-7", "step": -1}))
        assert json.loads(await ws.recv())["type"] == "error"
        hub = hub_of(app)
        await hub.store.flush(10)
        rows = await hub.store.query("SELECT id, run_id, run_step FROM episodes ORDER BY id")
        assert {(r["run_id"], r["run_step"]) for r in rows} == {("run-7", 12)} and len(rows) == 2
        reader = app.state.dashboard.reader
        page = await queries.episode_page(reader, queries.EpisodeFilter(run="run-7", step=12))
        assert {r["id"] for r in page.rows} == {e["episode"] for e in opened["episodes"]}
        assert await queries.run_steps(reader, "run-7") == [{"step": 12, "episodes": 2, "mean_reward": None}]


def test_run_page_links_steps_to_episodes(client: TestClient) -> None:
    hub = hub_of(client.app)
    hub.bus.publish(RunEvent("run-9", "grpo", {"lr": 1e-6}, "running", 1.0))
    hub.bus.publish(RunMetricEvent("run-9", 3, {"reward": 0.5}, 2.0))
    hub.episodes.open_group("bank-balance-001", 2, run="run-9", step=3)
    flush(client)
    r = client.get("/ui/training/run-9")
    assert [s["step"] for s in r.context["steps"]] == [3]  # type: ignore[attr-defined]
    assert 'data-href="/ui/episodes?run=run-9&amp;step={x}"' in r.text
    assert "/ui/episodes?run=run-9&amp;step=3" in r.text
    assert len(client.get("/ui/episodes", params={"run": "run-9", "step": "3"}).context["rows"]) == 2  # type: ignore[attr-defined]


# Training charts --------------------------------------------------------------------------------


def test_ticks_read_right_at_any_magnitude() -> None:
    import re

    def ticks(lo: float, hi: float) -> list[str]:
        return re.findall(r'class="tick">([^<]*)<', line_chart([Series("m", [(0, lo), (1, hi)])]))[:-2]

    assert ticks(1e-6, 3e-6) == ["1e-6", "2e-6", "3e-6"]
    assert ticks(0, 0.004) == ["0", "0.001", "0.002", "0.003", "0.004"]
    assert ticks(0, 3.2e6) == ["0", "1M", "2M", "3M", "4M"] and ticks(0, 25_000) == ["0", "10k", "20k", "30k"]
    assert len(set(ticks(1e-6, 1e-6))) > 1 and fmt(2.5e-7, 2.5e-7) == "2.5e-7"


@given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=3000), st.integers(1, 200))
def test_downsampling_keeps_every_extreme_and_the_ends(values: list[float], buckets: int) -> None:
    points = [(float(i), v) for i, v in enumerate(values)]
    kept = downsample(points, buckets)
    assert kept[0] == points[0] and kept[-1] == points[-1]
    assert min(v for _, v in kept) == min(values) and max(v for _, v in kept) == max(values)
    assert len(kept) <= 2 * buckets + 2 and [x for x, _ in kept] == sorted({x for x, _ in kept})


def test_stored_metrics_downsample_keeping_spikes(client: TestClient) -> None:
    hub = hub_of(client.app)
    hub.bus.publish(RunEvent("run-s", "spiky", {}, "running", 1.0))
    for step in range(2000):
        hub.bus.publish(RunMetricEvent("run-s", step, {"loss": 100.0 if step == 1234 else 1.0, "lr": 1e-6}, 2.0))
    flush(client)
    metrics = client.portal.call(queries.run_metrics, client.app.state.dashboard.reader, "run-s")  # type: ignore[attr-defined]
    loss = metrics["loss"]
    assert (1234.0, 100.0) in loss and loss[0] == (0.0, 1.0) and loss[-1] == (1999.0, 1.0) and len(loss) <= 2 * 150 + 2
    r = client.get("/ui/training/run-s")
    assert ">1e-6<" in r.text or "1e-6 @" in r.text
    log = client.get("/ui/training/run-s", params={"log": "1"})
    assert log.context["log"] and ">100<" in log.text  # type: ignore[attr-defined]


def test_runs_overlay_and_metrics_group_by_family(client: TestClient) -> None:
    hub = hub_of(client.app)
    for rid in ("run-a", "run-b"):
        hub.bus.publish(RunEvent(rid, rid, {}, "running", 1.0))
        for step in range(3):
            hub.bus.publish(
                RunMetricEvent(rid, step, {"reward": 0.1 * step, "loss/policy": 1.0, "loss/value": 2.0, "kl": 0.0}, 2.0)
            )
    flush(client)
    r = client.get("/ui/compare", params=[("run", "run-a"), ("run", "run-b")], follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/ui/training/run-a?compare=run-b"
    ctx = client.get("/ui/training/run-a", params={"compare": "run-b"}).context  # type: ignore[attr-defined]
    assert [(g["name"], [c["name"] for c in g["charts"]]) for g in ctx["groups"]] == [
        ("reward", ["reward"]),
        ("loss", ["loss/policy", "loss/value"]),
        ("kl / entropy", ["kl"]),
    ]
    assert 'data-name="run-b"' in ctx["groups"][1]["charts"][0]["svg"]
    fragment = client.get("/ui/training/run-a", headers=HX)
    assert fragment.template.name == "partials/run_charts.html"  # type: ignore[attr-defined]


# Small fixes ------------------------------------------------------------------------------------


def test_run_tool_refuses_internal_sessions(client: TestClient) -> None:
    hub = hub_of(client.app)
    (ep,) = hub.episodes.open_group("bank-balance-001", 1)
    template = next(s for s in hub.sessions.sessions if s.startswith("tpl-"))
    token = csrf_field(client.get("/ui/catalog/banking/deposit_funds").text)
    for sid in (template, ep.session_id):
        r = client.post(
            "/ui/catalog/banking/deposit_funds/run",
            data={"session": sid, "account_id": "ACC-0001", "amount": "5", **token},
        )
        assert "internal to the hub" in r.context["form_error"]  # type: ignore[attr-defined]
    assert hub.sessions.sessions[template].calls == 0


def test_format_error_shows_once_and_links_nowhere(client: TestClient) -> None:
    eid = closed(client, ["<tool_call>{not json</tool_call>", "Done."])
    text = client.get(f"/ui/episodes/{eid}").text
    assert "/ui/catalog//" not in text
    overview = client.get("/ui/").text
    assert "/ui/catalog//" not in overview
    assert text.count("Expecting property name") == 1


def test_long_ids_are_shortened_with_the_full_id_kept(client: TestClient) -> None:
    sid = "s" * 100
    client.post(f"/api/sessions/{sid}/call/banking/get_account", json={"arguments": {"account_id": "ACC-0001"}})
    flush(client)
    text = client.get("/ui/").text
    assert f'title="{sid}"' in text and f'data-copy="{sid}"' in text and f">{sid}<" not in text


def test_favicon(client: TestClient) -> None:
    assert client.get("/favicon.ico").headers["content-type"].startswith("image/svg")
    assert "favicon.svg" in client.get("/ui/").text


def test_live_runs_read_only_their_new_rows(client: TestClient) -> None:
    hub = hub_of(client.app)
    reader = client.app.state.dashboard.reader  # type: ignore[attr-defined]
    hub.bus.publish(RunEvent("run-l", "live", {}, "running", 1.0))
    for step in range(1000):
        hub.bus.publish(RunMetricEvent("run-l", step, {"loss": 1.0}, 2.0))
    flush(client)
    first = client.portal.call(queries.run_metrics, reader, "run-l")
    for step in range(1000, 1500):
        hub.bus.publish(RunMetricEvent("run-l", step, {"loss": 50.0 if step == 1400 else 1.0, "new": 2.0}, 3.0))
    flush(client)
    calls: list[str] = []
    original = reader._tuples
    reader._tuples = lambda sql, params: calls.append(sql) or original(sql, params)  # type: ignore[method-assign]
    grown = client.portal.call(queries.run_metrics, reader, "run-l")
    assert len(calls) == 1 and "rowid > ?" in calls[0]  # only the new rows were read
    assert first["loss"][-1] == (999.0, 1.0) and grown["loss"][-1] == (1499.0, 1.0) and (1400.0, 50.0) in grown["loss"]
    assert grown["new"][0] == (1000.0, 2.0) and len(grown["loss"]) <= 302
    hub.bus.publish(RunMetricEvent("run-l", 10, {"loss": -7.0}, 4.0))  # a rewritten step: the whole run is read
    flush(client)
    calls.clear()
    again = client.portal.call(queries.run_metrics, reader, "run-l")
    assert "rowid > ?" not in calls[-1] and (10.0, -7.0) in again["loss"]


@settings(max_examples=300)
@given(
    st.dictionaries(
        st.sampled_from(["a", "b/c", "d"]), st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=300), min_size=1
    ),
    st.integers(1, 160),
)
def test_streamed_downsampling_equals_the_one_series_version(series: dict[str, list[float]], buckets: int) -> None:
    from web.svg import downsample_rows

    rows = [(name, step, v) for name in sorted(series) for step, v in enumerate(series[name])]
    spans = {name: (0.0, float(len(vs) - 1), len(vs)) for name, vs in series.items()}
    streamed = downsample_rows(rows, spans, buckets)
    for name, values in series.items():
        expected = downsample([(float(i), v) for i, v in enumerate(values)], buckets)
        assert streamed[name] == expected, name
