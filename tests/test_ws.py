"""The rollout WebSocket against a real uvicorn on loopback, driven by trainer_client.hub_client."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient
from websockets.asyncio.client import connect

from hub.app import create_app
from hub.config import Settings
from hub.core import Hub
from hub.tasks import hermes_call, oracle_script
from hub.testing import LiveHub, free_port, serve
from hub.wire import TYPES
from tests.conftest import LIBRARY
from trainer_client.hub_client import HubClient, HubConnectionError, HubError


def make_app(tmp_path: Path, **kw: Any) -> Any:
    s = Settings(store_path=str(tmp_path / "store.db"), **kw)
    return create_app(s, Hub(s, LIBRARY))


@pytest_asyncio.fixture
async def live(tmp_path: Path) -> AsyncIterator[LiveHub]:
    async with serve(make_app(tmp_path)) as hub:
        yield hub


@pytest_asyncio.fixture
async def client(live: LiveHub) -> AsyncIterator[HubClient]:
    async with HubClient(live.ws_url) as c:
        yield c


async def test_group_rollout_reward_and_store(live: LiveHub, client: HubClient) -> None:
    assert client.welcome and client.welcome["protocol"] == "prove-ws" and client.welcome["version"] == 1
    tasks = await client.tasks()
    assert {t["id"] for t in tasks} >= {"bank-transfer-002", "bank-abstain-010"}
    group = await client.open("bank-transfer-002", n=4)
    assert len(group.episodes) == 4 and len(set(group.episodes)) == 4
    assert {e["state_hash"] for e in group.raw["episodes"]} == {group.state_hash}
    assert [m["role"] for m in group.messages] == ["system", "user"]
    assert group.tools[0]["type"] == "function" and group.tools[0]["function"]["name"] == "banking__transfer_funds"
    script = oracle_script(live.app.state.hub.tasks.get("bank-transfer-002"))
    first = await client.step(group.episodes[0], script[0])
    assert [c["ok"] for c in first["calls"]] == [True, True] and first["messages"][0]["role"] == "tool"
    last = await client.step(group.episodes[0], script[1])
    assert last["done"] and last["reason"] == "completed"
    reward = await client.finish(group.episodes[0])  # the hub's default: the outcome preset
    assert reward["preset"] == "outcome" and reward["components"]["coverage"] == 1.0
    assert reward["total"] == pytest.approx(reward["max"]) and reward["normalized"] == 1.0
    reward = await client.finish(group.episodes[0], {"preset": "paper"})  # the paper's formula, one field away
    assert reward["preset"] == "paper" and reward["total"] == pytest.approx(1.3) == reward["max"]
    wrong = await client.step(
        group.episodes[1],
        message={
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "x",
                    "type": "function",
                    "function": {"name": "banking__get_account", "arguments": '{"account_id": "ACC-0001"}'},
                }
            ],
        },
    )
    assert wrong["calls"][0]["ok"]
    assert (await client.finish(group.episodes[1]))["total"] < 1.0
    flushed = await client.flush()
    hub: Hub = live.app.state.hub
    assert flushed["acked"] == hub.store.offered and flushed["dropped"] == 0
    rows = await hub.store.query("SELECT status, reward FROM episodes WHERE id = ?", (group.episodes[0],))
    assert rows == [{"status": "finished", "reward": pytest.approx(1.3)}]  # the latest scoring is kept
    kept = await hub.store.query("SELECT preset, maximum FROM rewards WHERE episode_id = ?", (group.episodes[0],))
    assert kept == [{"preset": "paper", "maximum": pytest.approx(1.3)}]
    n = await hub.store.query("SELECT COUNT(*) n FROM tool_calls WHERE episode_id = ?", (group.episodes[0],))
    assert n[0]["n"] == 2
    closed = await client.close_episodes([*group.episodes, "ep-nope"])
    assert closed["episodes"] == group.episodes and closed["unknown"] == ["ep-nope"]


async def test_groups_diverge_independently(live: LiveHub, client: HubClient) -> None:
    group = await client.open("bank-parallel-006", n=3)
    await client.step(
        group.episodes[0], hermes_call("banking__deposit_funds", {"account_id": "ACC-0001", "amount": 100.0})
    )
    await client.step(
        group.episodes[1], hermes_call("banking__deposit_funds", {"account_id": "ACC-0001", "amount": 7.0})
    )
    hub: Hub = live.app.state.hub
    sessions = [hub.episodes.get(e).session_id for e in group.episodes]
    hashes = [hub.sessions.get(s, create=False).state_hash(["banking"]) for s in sessions]
    assert len(set(hashes)) == 3 and hashes[2] == group.state_hash


async def test_typed_errors_keep_the_socket_open(live: LiveHub) -> None:
    async with connect(live.ws_url) as ws:

        async def ask(raw: str | bytes) -> dict[str, Any]:
            await ws.send(raw)
            return json.loads(await ws.recv())  # type: ignore[no-any-return]

        assert (await ask('{"type": "ping", "id": 1}'))["code"] == "hello_required"
        assert (await ask('{"type": "hello", "version": 9}'))["code"] == "unsupported_version"
        assert (await ask('{"type": "hello"}'))["type"] == "welcome"
        assert (await ask("{not json"))["code"] == "bad_json"
        assert (await ask("[1, 2]"))["code"] == "bad_message"
        assert (await ask(b"\xff\xfe"))["code"] == "bad_json"
        assert (await ask('{"type": "launch", "id": "a"}')) | {"message": ""} == {
            "type": "error",
            "id": "a",
            "code": "unknown_type",
            "message": "",
        }
        assert (await ask('{"type": "step", "id": 2}'))["code"] == "bad_message"
        assert (await ask('{"type": "step", "episode": "ep-x", "text": "hi"}'))["code"] == "unknown_episode"
        assert (await ask('{"type": "open", "task": "nope"}'))["code"] == "unknown_task"
        assert (await ask('{"type": "open", "task": {"id": "x"}}'))["code"] == "bad_task"
        assert (await ask('{"type": "open", "task": "bank-balance-001", "n": 0}'))["code"] == "bad_message"
        assert (await ask('{"type": "finish", "episode": "ep-x"}'))["code"] == "unknown_episode"
        assert (await ask('{"type": "ping", "id": 3}')) | {"ts": 0} == {"type": "pong", "id": 3, "ts": 0}


async def test_token_in_hello_header_or_query(tmp_path: Path) -> None:
    async with serve(make_app(tmp_path, token="sekret")) as live:
        async with connect(live.ws_url) as ws:
            await ws.send('{"type": "hello", "token": "wrong"}')
            assert json.loads(await ws.recv())["code"] == "unauthorized"
            await ws.send('{"type": "tasks"}')
            assert json.loads(await ws.recv())["code"] == "hello_required"
            await ws.send('{"type": "hello", "token": "sekret"}')
            assert json.loads(await ws.recv())["type"] == "welcome"
        async with connect(live.ws_url + "?token=sekret") as ws:
            await ws.send('{"type": "hello"}')
            assert json.loads(await ws.recv())["type"] == "welcome"
        async with connect(live.ws_url, additional_headers={"Authorization": "Bearer sekret"}) as ws:
            await ws.send('{"type": "hello"}')
            assert json.loads(await ws.recv())["type"] == "welcome"
        async with HubClient(live.ws_url, token="sekret") as c:
            assert (await c.ping())["type"] == "pong"
        with pytest.raises(HubError) as exc:
            async with HubClient(live.ws_url, token="nope"):
                pass
        assert exc.value.code == "unauthorized"
        async with httpx.AsyncClient() as http:
            assert (await http.get(f"{live.url}/metrics")).status_code == 401


async def test_subscription_streams_events_and_is_bounded(live: LiveHub, client: HubClient) -> None:
    group = await client.open("bank-balance-001", n=2)
    sub = await client.subscribe(kinds=["tool_call", "reward"], episodes=[group.episodes[0]], maxsize=4)
    assert sub["maxsize"] == 4
    await client.step(
        group.episodes[1], hermes_call("banking__get_account", {"account_id": "ACC-0005"})
    )  # filtered out
    await client.step(group.episodes[0], hermes_call("banking__get_account", {"account_id": "ACC-0005"}))
    event = await client.events.get()
    assert event["event"]["type"] == "tool_call" and event["event"]["episode"] == group.episodes[0]
    hub: Hub = live.app.state.hub
    queue = hub.bus.subscribers[-1].queue
    assert queue.maxsize == 4
    session = hub.episodes.get(group.episodes[0]).session_id
    for _ in range(200):  # no await in between: the pump cannot drain, the queue must not grow
        hub.dispatcher.call(session, "banking", "get_account", {"account_id": "ACC-0005"}, episode=group.episodes[0])
    assert queue.qsize() == 4 and hub.bus.subscribers[-1].dropped >= 196
    assert (await client.unsubscribe())["dropped"] >= 196
    assert hub.bus.subscribers[-1].queue is not queue


async def test_reconnect_continues_episodes(live: LiveHub, client: HubClient) -> None:
    group = await client.open("bank-payee-004", n=1)
    assert client._ws is not None
    await client._ws.close()  # the connection drops
    out = await client.step(group.episodes[0], "Sure, one moment.")
    assert client.reconnects == 1 and out["messages"][0]["role"] == "user"


async def test_unreachable_hub_is_a_clear_error() -> None:
    c = HubClient(f"ws://127.0.0.1:{free_port()}/ws", retries=2, backoff=0.001)
    with pytest.raises(HubConnectionError, match="cannot connect"):
        await c.connect()


async def test_metrics_endpoint(live: LiveHub, client: HubClient) -> None:
    group = await client.open("bank-balance-001", n=2)
    await client.step(group.episodes[0], hermes_call("banking__get_account", {"account_id": "ACC-0005"}))
    await client.step(group.episodes[0], hermes_call("banking__get_account", {"account_id": "ACC-9999"}))
    await client.step(group.episodes[0], hermes_call("made__up", {}))
    await client.finish(group.episodes[0])
    async with httpx.AsyncClient() as http:
        resp = await http.get(f"{live.url}/metrics")
    assert resp.status_code == 200 and resp.headers["content-type"].startswith("text/plain")
    text = resp.text
    assert 'prove_tool_calls_total{outcome="ok",server="banking",tool="get_account"} 1.0' in text
    assert 'prove_tool_calls_total{outcome="tool",server="banking",tool="get_account"} 1.0' in text
    assert 'prove_tool_calls_total{outcome="unknown_tool",server="?",tool="?"} 1.0' in text
    assert 'prove_tool_call_latency_seconds_bucket{le="0.001",server="banking"}' in text
    assert 'prove_episodes_total{phase="open"} 2.0' in text and 'prove_episodes_total{phase="finish"} 1.0' in text
    for name in (
        "prove_sessions_open",
        "prove_server_forks_open",
        "prove_episodes_open 2.0",
        "prove_episode_reward_mean",
        "prove_store_queue_depth",
        "prove_store_events_acked",
        "prove_episode_reward_bucket",
    ):
        assert name in text, name


# Fuzz: random and truncated messages never close the socket or crash the hub -----------------

VALID = [
    {"type": "hello"},
    {"type": "ping", "id": 1},
    {"type": "tasks", "kind": "mcp"},
    {"type": "open", "task": "bank-balance-001", "n": 2},
    {"type": "step", "episode": "ep-0", "text": "hi"},
    {"type": "finish", "episode": "ep-0", "reward": {"w_val": 1.0}},
    {"type": "close", "episodes": ["ep-0"]},
    {"type": "run_metrics", "run": "r", "step": 1, "metrics": {"loss": 0.5}},
    {"type": "stats"},
]
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=8), kids, max_size=4),
    max_leaves=20,
)
FIELDS = st.sampled_from(
    [
        "id",
        "episode",
        "task",
        "n",
        "text",
        "message",
        "kinds",
        "episodes",
        "token",
        "version",
        "reward",
        "limits",
        "metrics",
        "step",
        "run",
        "timeout",
        "maxsize",
        "full",
    ]
)
MESSAGES = st.one_of(
    st.text(max_size=300),
    st.binary(max_size=100),
    JSON.map(json.dumps),
    st.builds(
        lambda t, extra: json.dumps({"type": t, **extra}),
        st.sampled_from([*TYPES, "bogus"]),
        st.dictionaries(FIELDS, JSON, max_size=4),
    ),
    st.builds(lambda m, cut: json.dumps(m)[:cut], st.sampled_from(VALID), st.integers(0, 80)),
    st.builds(lambda n: "[" * n + "]" * n, st.integers(1, 5000)),
)


def test_protocol_fuzz_never_closes_the_socket(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    with TestClient(app, base_url="http://127.0.0.1") as http, http.websocket_connect("ws://127.0.0.1/ws") as ws:

        def reply() -> dict[str, Any]:
            while True:
                data = json.loads(ws.receive_text())
                if data.get("type") != "event":
                    return data  # type: ignore[no-any-return]

        ws.send_text('{"type": "hello"}')
        assert reply()["type"] == "welcome"
        ws.send_text('{"type": "open", "task": "bank-transfer-002", "limits": {"max_steps": 1000}}')
        eid = reply()["episodes"][0]["episode"]
        model_text = st.text(
            alphabet=st.sampled_from(list('<>/{}[]":, tool_call name arguments banking__get_account')), max_size=200
        )
        steps = st.builds(lambda t: json.dumps({"type": "step", "episode": eid, "text": t}), model_text)

        @settings(
            max_examples=150,
            derandomize=True,
            deadline=None,
            suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
        )
        @given(MESSAGES | steps)
        def fuzz(raw: str | bytes) -> None:
            if isinstance(raw, bytes):
                ws.send_bytes(raw)
            else:
                ws.send_text(raw)
            answer = reply()
            assert isinstance(answer, dict) and isinstance(answer.get("type"), str)
            if answer["type"] == "error":
                assert answer["code"] != "internal", answer
            ws.send_text('{"type": "ping", "id": "alive"}')
            pong = reply()
            assert pong["type"] in ("pong", "error") and pong["id"] == "alive"

        fuzz()
        hub: Hub = app.state.hub
        assert hub.store.failure is None
