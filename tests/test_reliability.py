"""Reliability scenarios at reduced size: what a client can make the hub hold is bounded, bad input gets a 4xx,
episode sessions are the episode's own, and an expired session says so on every door.

Each test reproduces an attack or a fault (``abuse``) against the real parts: a real uvicorn on loopback, real
websockets, httpx and MCP clients. ``benchmarks/bench_abuse.py`` runs the same scenarios at full size and
prints the memory they leave and the worst ``/healthz`` wait.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import struct
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio
from mcp import Client
from websockets.asyncio.client import connect

from hub.app import create_app
from hub.config import Settings
from hub.core import Hub
from hub.engine.events import SUBSCRIBER_BYTES, EventBus, Subscription, TurnEvent, event_bytes
from hub.errors import MCP_ERROR_META
from hub.mount.spec import MAX_SCENARIO_DEPTH
from hub.tasks import hermes_call
from hub.testing import LiveHub, catastrophic_greps, grep_task, serve, truth_call, ws_request
from tests.conftest import LIBRARY
from tests.test_mcp_http import MODERN, call_body
from tests.test_mount_byo import byo_library

pytestmark = pytest.mark.abuse
LEGACY = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}


def make_app(tmp_path: Path, library: Any = LIBRARY, **kw: Any) -> Any:
    s = Settings(store_path=str(tmp_path / "store.db"), **kw)
    return create_app(s, Hub(s, library))


def hub_of(live: LiveHub) -> Hub:
    return live.app.state.hub  # type: ignore[no-any-return]


@pytest_asyncio.fixture
async def live(tmp_path: Path) -> AsyncIterator[LiveHub]:
    async with serve(make_app(tmp_path)) as hub:
        yield hub


def nested(depth: int) -> Any:
    value: Any = "leaf"
    for _ in range(depth - 1):
        value = {"child": value}
    return value


# Episodes are bounded in bytes --------------------------------------------------------------------------


def test_an_episode_that_keeps_talking_ends_at_its_byte_cap(tmp_path: Path) -> None:
    cap = 64 * 1024
    hub = Hub(Settings(store_path=str(tmp_path / "s.db"), max_episode_bytes=cap), LIBRARY)
    (ep,) = hub.episodes.open_group("bank-transfer-002", 1, hub.episodes.limits.model_copy(update={"max_steps": 300}))
    call = hermes_call("banking__list_transactions", {"account_id": "ACC-0002"})
    reply = call + "x" * 10_000
    steps = 0
    while not hub.episodes.get(ep.id).done:
        hub.episodes.step(ep.id, reply)
        steps += 1
    episode = hub.episodes.get(ep.id)
    assert episode.reason == "byte_cap" and steps < 10
    assert cap <= episode.nbytes < cap + 2 * len(reply) + 10_000


def test_calls_past_the_byte_cap_in_one_step_are_not_run(tmp_path: Path) -> None:
    hub = Hub(Settings(store_path=str(tmp_path / "s.db"), max_episode_bytes=4096), LIBRARY)
    (ep,) = hub.episodes.open_group("bank-transfer-002", 1)
    calls = hermes_call("banking__list_transactions", {"account_id": "ACC-0002"}) * 16
    result = hub.episodes.step(ep.id, calls)
    ran = [c for c in result.calls if c["ok"]]
    assert 1 <= len(ran) < 16 and result.done and result.reason == "byte_cap"
    assert all("size cap" in m["content"] for m in result.messages[len(ran) :])


# Subscribers are bounded in bytes -----------------------------------------------------------------------


def turn(size: int, seq: int = 0) -> TurnEvent:
    return TurnEvent("ep-x", seq, "assistant", "x" * size, 0.0)


def test_a_subscription_holds_at_most_its_bytes_and_counts_what_it_drops() -> None:
    bus = EventBus()
    sub = bus.subscribe(maxsize=10_000, max_bytes=100_000)
    for i in range(100):
        bus.publish(turn(10_000, i))
    assert sub.nbytes <= 100_000 and sub.dropped > 80 and sub.queue.qsize() + sub.dropped == 100
    latest = [sub.queue.get_nowait().seq for _ in range(sub.queue.qsize())]
    assert latest == sorted(latest) and latest[-1] == 99  # the oldest went first
    assert sub.nbytes == 0
    big = turn(500_000)
    bus.publish(turn(10_000))
    bus.publish(big)  # larger than the bound: it still goes through, alone
    assert sub.queue.qsize() == 1 and sub.nbytes == event_bytes(big) and sub.queue.get_nowait() is big


async def test_a_slow_ws_subscriber_makes_the_hub_hold_a_bounded_queue(live: LiveHub) -> None:
    hub = hub_of(live)
    async with connect(live.ws_url, max_size=None) as ws:
        await ws.send(json.dumps({"type": "hello", "id": 1}))
        await ws.recv()
        await ws.send(json.dumps({"type": "subscribe", "kinds": ["turn"], "maxsize": 10_000, "id": 2}))
        assert json.loads(await ws.recv())["type"] == "subscribed"
        (sub,) = [s for s in hub.bus.subscribers if isinstance(s, Subscription) and s is not hub.store.sub]
        for i in range(250):  # 25 MB of events to a client that reads none of them
            hub.bus.publish(turn(100_000, i))
        held = sub.nbytes
        assert held <= SUBSCRIBER_BYTES + 200_000 and sub.dropped > 0
        first = json.loads(await ws.recv())  # the client catches up: it is told how many it lost
        assert first["type"] == "event"


# Frames over the limit are refused from their header ----------------------------------------------------


async def test_a_frame_over_the_limit_is_refused_before_its_payload_arrives(live: LiveHub) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", live.port)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write(
        (
            "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    async with asyncio.timeout(10):
        assert (await reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 101")
        announced = 15 * 2**20  # a 15 MiB text frame, of which only the first kilobyte is ever sent
        writer.write(b"\x81\xff" + struct.pack("!Q", announced) + b"\x00" * 4 + b"a" * 1024)
        await writer.drain()
        head = await reader.readexactly(2)
        body = await reader.readexactly(head[1] & 0x7F)
    writer.close()
    assert head[0] == 0x88 and struct.unpack("!H", body[:2])[0] == 1009  # close: message too big
    async with httpx.AsyncClient(base_url=live.url) as http:
        assert (await http.get("/healthz")).json()["status"] == "ok"


# MCP transport sessions count in the session cap --------------------------------------------------------


async def test_mcp_transport_sessions_count_in_the_session_cap(tmp_path: Path) -> None:
    async with serve(make_app(tmp_path, max_sessions=6)) as live, httpx.AsyncClient(base_url=live.url) as http:
        answers = [await http.post("/mcp/banking", json=INITIALIZE, headers=LEGACY) for _ in range(20)]
        assert {r.status_code for r in answers} == {200, 429}
        refused = [r for r in answers if r.status_code == 429]
        assert refused[0].json()["code"] == "capacity"
        endpoints = live.app.state.mcp
        assert endpoints.transports() + len(hub_of(live).sessions) == 6
        r = await http.post("/mcp/banking", json=call_body("get_account", {"account_id": "ACC-0001"}))
        assert r.status_code != 429  # a call that opens no transport still runs at the cap


# No request freezes the hub ------------------------------------------------------------------------------


async def test_the_hub_answers_while_a_step_of_catastrophic_greps_runs(live: LiveHub) -> None:
    task = grep_task("greps")
    text = catastrophic_greps(8)
    async with connect(live.ws_url, max_size=None) as ws, httpx.AsyncClient(base_url=live.url, timeout=60) as http:
        await ws_request(ws, {"type": "hello"})
        opened = await ws_request(ws, {"type": "open", "task": task, "limits": {"max_calls_per_step": 8}})
        step = asyncio.create_task(
            ws_request(ws, {"type": "step", "episode": opened["episodes"][0]["episode"], "text": text})
        )
        answered_meanwhile = 0
        while not step.done():
            r = await http.get("/healthz")  # a frozen loop answers only once the step is over
            answered_meanwhile += r.status_code == 200 and not step.done()
        reply = await step
    assert [c["error_kind"] for c in reply["calls"]] == ["tool"] * 8  # each stopped at its time limit
    assert answered_meanwhile >= 1


async def test_listing_sessions_whose_seeds_were_evicted_rebuilds_no_seed(tmp_path: Path) -> None:
    settings = Settings(store_path=str(tmp_path / "store.db"), seed_cache=1)
    hub = Hub(settings)
    files = hub.library.mount("filesystem")
    async with serve(create_app(settings, hub)) as live, httpx.AsyncClient(base_url=live.url, timeout=60) as http:
        for seed in (11, 12, 13):
            assert (await http.post("/api/sessions", json={"id": f"s{seed}", "seed": seed})).status_code == 201
            r = await http.post(
                f"/api/sessions/s{seed}/call/filesystem/write_file",
                json={"arguments": {"path": "/tmp/x.txt", "content": str(seed)}},
            )
            assert r.json()["ok"], r.text
        evicted = [seed for seed in (11, 12, 13) if not files.has_seed(seed)]  # type: ignore[attr-defined]
        assert evicted == [11, 12]
        listed = {s["id"]: s for s in (await http.get("/api/sessions")).json()["sessions"]}
        assert all(listed[f"s{seed}"]["state_hash"] for seed in (11, 12, 13))
        assert not any(files.has_seed(seed) for seed in evicted)  # type: ignore[attr-defined]


async def test_a_group_open_copies_and_replays_its_setup_off_the_event_loop(
    live: LiveHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    hub = hub_of(live)
    threads: dict[str, set[int]] = {"copy": set(), "setup": set()}
    clone, execute = hub.sessions._clone_group, hub.dispatcher._execute

    def clone_group(*args: Any) -> Any:
        threads["copy"].add(threading.get_ident())
        return clone(*args)

    def dispatch(*args: Any, **kw: Any) -> Any:
        threads["setup"].add(threading.get_ident())
        return execute(*args, **kw)

    monkeypatch.setattr(hub.sessions, "_clone_group", clone_group)
    monkeypatch.setattr(hub.dispatcher, "_execute", dispatch)
    task = {
        "id": "wide",
        "servers": ["banking", "email", "filesystem"],
        "initial": {
            "setup": [
                {"server": "filesystem", "tool": "write_file", "arguments": {"path": "/tmp/n.txt", "content": "n"}}
            ]
        },
        "turns": [
            {"user": "What is in ACC-0001?", "calls": [truth_call("banking", "get_account", account_id="ACC-0001")]}
        ],
        "tools": ["banking__get_account"],
    }
    async with connect(live.ws_url) as ws:
        await ws_request(ws, {"type": "hello"})
        loop_thread = threading.get_ident()  # the test and the served hub share this event loop
        opened = await ws_request(ws, {"type": "open", "task": task, "n": 16})
        assert opened["type"] == "opened" and len(opened["episodes"]) == 16
    assert threads["copy"] and threads["setup"] and loop_thread not in threads["copy"] | threads["setup"]


# Expired sessions say so on every door ------------------------------------------------------------------


async def test_an_expired_session_answers_session_expired_on_every_door(live: LiveHub) -> None:
    hub = hub_of(live)
    async with connect(live.ws_url) as ws:
        await ws.send(json.dumps({"type": "hello", "id": 1}))
        await ws.recv()
        await ws.send(json.dumps({"type": "open", "task": "bank-transfer-002", "id": 2}))
        opened = json.loads(await ws.recv())
        eid, esid = opened["episodes"][0]["episode"], opened["episodes"][0]["session"]
        async with httpx.AsyncClient(base_url=live.url) as http:
            assert (await http.post("/api/sessions", json={"id": "mine"})).status_code == 201
            for sid in ("mine", esid):
                hub.sessions.get(sid).last_used = float("-inf")
            assert set(hub.sessions.sweep()) == {"mine", esid}
            hub.episodes.sweep()
            r = await http.get("/api/sessions/mine")
            assert r.status_code == 410 and r.json()["code"] == "session_expired"
            r = await http.post("/api/sessions/mine/call/banking/get_account", json={"arguments": {"account_id": "A"}})
            assert r.status_code == 410 and r.json()["error_kind"] == "session_expired"
            assert (await http.delete("/api/sessions/mine")).json()["code"] == "session_expired"
        async with Client(f"{live.url}/sessions/mine/mcp/banking", mode="legacy") as client:
            got = await client.call_tool("get_account", {"account_id": "ACC-0001"})
            assert got.is_error and (got.meta or {}).get(MCP_ERROR_META) == "session_expired"
        await ws.send(json.dumps({"type": "step", "episode": eid, "text": "hi", "id": 3}))
        assert json.loads(await ws.recv())["code"] == "session_expired"


# Episode sessions belong to their episode ---------------------------------------------------------------


async def test_an_episodes_session_is_read_only_to_rest_and_mcp(live: LiveHub) -> None:
    hub = hub_of(live)
    (ep,) = hub.episodes.open_group("bank-transfer-002", 1)
    deposit = {"arguments": {"account_id": "ACC-0001", "amount": 5.0}}
    before = hub.sessions.get(ep.session_id).state_hash()
    async with httpx.AsyncClient(base_url=live.url) as http:
        base = f"/api/sessions/{ep.session_id}"
        r = await http.post(f"{base}/call/banking/deposit_funds", json=deposit)
        assert r.status_code == 403 and r.json()["code"] == "read_only" and ep.id in r.json()["error"]
        assert (await http.delete(base)).json()["code"] == "read_only"
        r = await http.post(f"{base}/call/banking/get_account", json={"arguments": {"account_id": "ACC-0001"}})
        assert r.status_code == 200 and r.json()["ok"]
        assert (await http.post(f"{base}/fork", json={"id": "copy"})).status_code == 201
        assert (await http.post("/api/sessions/copy/call/banking/deposit_funds", json=deposit)).json()["ok"]
    async with Client(f"{live.url}/sessions/{ep.session_id}/mcp/banking", mode="legacy") as client:
        got = await client.call_tool("deposit_funds", deposit["arguments"])
        assert got.is_error and (got.meta or {}).get(MCP_ERROR_META) == "read_only"
    assert hub.sessions.get(ep.session_id).state_hash() == before
    step = hub.episodes.step(
        ep.id,
        hermes_call(
            "banking__transfer_funds", {"from_account_id": "ACC-0001", "to_account_id": "ACC-0002", "amount": 1.0}
        ),
    )
    assert step.calls[0]["ok"]  # its own steps still write
    hub.episodes.close(ep.id)
    async with httpx.AsyncClient(base_url=live.url) as http:  # once closed, the id is free for anyone
        assert (await http.get(f"/api/sessions/{ep.session_id}")).status_code == 404


# Bad input gets a 4xx -------------------------------------------------------------------------------------


async def test_bad_input_reproductions_get_typed_4xx(live: LiveHub) -> None:
    async with httpx.AsyncClient(base_url=live.url) as http:
        state = "/api/sessions/default/state/banking?table=accounts&offset="
        for offset in ("9223372036854775808", "-1", "1e3", "99999999999999999999999"):
            r = await http.get(state + offset)
            assert r.status_code == 400 and r.json()["code"] == "bad_request", offset
        assert (await http.get(state + "9223372036854775807")).json()["rows"] == []
        r = await http.post(
            "/api/sessions/default/call/banking/search_customers", json={"arguments": {"query": "q" * 50_000}}
        )
        assert r.status_code == 200 and r.json()["error_kind"] == "tool" and "at most" in r.json()["error"]
        path = "/api/sessions/big/call/filesystem/"
        for _ in range(4):  # each control character is six characters of JSON
            content = {"path": "ctl.txt", "content": "\x01" * 100_000, "newline": False}
            assert (await http.post(path + "append_file", json={"arguments": content})).json()["ok"]
        r = await http.post(path + "read_file", json={"arguments": {"path": "ctl.txt"}})
        assert r.status_code == 413 and r.json()["error_kind"] == "too_large"


@pytest.mark.parametrize("depth", [600, 200])
async def test_a_deeply_nested_scenario_is_a_400_on_every_door(tmp_path: Path, depth: int) -> None:
    async with serve(make_app(tmp_path, byo_library())) as live, httpx.AsyncClient(base_url=live.url) as http:
        deep = nested(depth)
        for body in ({"id": "deep", "configs": {"tree": deep}}, {"id": "deep", "loader_kwargs": {"tree": deep}}):
            r = await http.post("/api/sessions", json=body)
            assert r.status_code == 400 and r.json()["code"] == "bad_scenario" and "nested deeper" in r.json()["error"]
        ok = await http.post("/api/sessions", json={"id": "flat", "configs": {"tree": {"files": {}}}})
        assert ok.status_code == 201
        meta = {"hub/session": "deep-mcp", "hub/scenario": {"configs": {"tree": deep}}}
        # raw JSON-RPC: the MCP client itself will not serialize a value this deep
        r = await http.post("/mcp/tree", json=call_body("ls", {}, meta), headers={**MODERN, "Mcp-Name": "ls"})
        result = r.json()["result"]
        assert result["isError"] and "nested deeper" in result["content"][0]["text"]
        assert result["_meta"][MCP_ERROR_META] == "bad_scenario"
        assert "deep" not in hub_of(live).sessions.sessions and "deep-mcp" not in hub_of(live).sessions.sessions
    assert depth > MAX_SCENARIO_DEPTH
