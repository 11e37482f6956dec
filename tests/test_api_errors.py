"""Bad input against a real uvicorn: every refusal is a typed JSON error that changes nothing, never a 500."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio
from hypothesis import given, settings
from hypothesis import strategies as st
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from hub import ids
from hub.core import Hub
from hub.errors import BadId, BadRequest
from hub.testing import LiveHub, serve
from tests.test_mcp_http import MODERN, call_body
from tests.web_support import csrf_field, make_app

LIMIT = 64 * 1024
ACCOUNT = {"account_id": "ACC-0001"}
DEPOSIT = {"account_id": "ACC-0001", "amount": 100.0}


@pytest_asyncio.fixture
async def live(tmp_path: Path) -> AsyncIterator[LiveHub]:
    async with serve(make_app(tmp_path, max_body_bytes=LIMIT, max_sessions=6)) as hub:
        yield hub


def hub_of(live: LiveHub) -> Hub:
    return live.app.state.hub  # type: ignore[no-any-return]


def open_ids(live: LiveHub) -> set[str]:
    return set(hub_of(live).sessions.sessions)


def assert_error(r: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/json")
    body: dict[str, Any] = r.json()
    assert body["code"] == code and isinstance(body["error"], str) and body["error"]
    return body


# Body limit -------------------------------------------------------------------------------------


async def chunks(total: int, size: int = 8192) -> AsyncIterator[bytes]:
    """A body sent chunked (no Content-Length): the limit must hold while the route reads it."""
    yield b'{"id": "chunked", "pad": "'
    for _ in range(total // size):
        yield b"a" * size
    yield b'"}'


async def test_every_body_route_refuses_a_body_over_the_limit_and_keeps_nothing(live: LiveHub) -> None:
    before = open_ids(live)
    big = json.dumps({"id": "big", "pad": "a" * LIMIT})
    async with httpx.AsyncClient(base_url=live.url) as http:
        for path in ("/api/sessions", "/api/sessions/default/fork", "/api/sessions/big/call/banking/deposit_funds"):
            body = assert_error(await http.post(path, content=big), 413, "too_large")
            assert f"{LIMIT:,}" in body["error"] and "HUB_MAX_BODY_BYTES" in body["error"]
            assert_error(await http.post(path, content=chunks(2 * LIMIT)), 413, "too_large")
        token = csrf_field((await http.get("/ui/catalog/banking/deposit_funds")).text)
        form = {"session": "big-form", **DEPOSIT, "memo": "a" * LIMIT, **token}
        assert_error(await http.post("/ui/catalog/banking/deposit_funds/run", data=form), 413, "too_large")
        mcp = json.dumps(call_body("deposit_funds", {**DEPOSIT, "memo": "a" * LIMIT}))
        headers = {**MODERN, "Mcp-Name": "deposit_funds", "X-Hub-Session": "big-mcp"}
        assert_error(await http.post("/mcp/banking", content=mcp, headers=headers), 413, "too_large")
        under = await http.post("/api/sessions", json={"id": "small", "pad": "a" * (LIMIT // 2)})
        assert under.status_code == 201
    assert open_ids(live) == before | {"small"}
    assert hub_of(live).sessions.get("default").calls == 0


async def test_a_ws_message_over_the_limit_is_refused_from_its_header_and_the_hub_goes_on(live: LiveHub) -> None:
    async with connect(live.ws_url, max_size=None) as ws:
        await ws.send(json.dumps({"type": "hello", "id": 1}))
        assert json.loads(await ws.recv())["type"] == "welcome"
        await ws.send(json.dumps({"type": "ping", "id": 2, "pad": "a" * LIMIT}))
        with pytest.raises(ConnectionClosed) as closed:
            await ws.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009  # message too big
    async with connect(live.ws_url) as ws:
        await ws.send(json.dumps({"type": "hello", "id": 1}))
        assert json.loads(await ws.recv())["type"] == "welcome"


# Malformed bodies, ids, seeds -------------------------------------------------------------------


async def test_malformed_bodies_are_400s(live: LiveHub) -> None:
    deep = "[" * 1000 + "]" * 1000
    before = open_ids(live)
    async with httpx.AsyncClient(base_url=live.url) as http:
        for content in (deep, '{"id": ' + deep + "}", "[1, 2]", "{", "\xff"):
            for path in ("/api/sessions", "/api/sessions/default/call/banking/get_account"):
                assert_error(await http.post(path, content=content), 400, "bad_request")
        assert_error(await http.post("/api/sessions", json={"seed": [1, 2]}), 400, "bad_request")
        assert_error(await http.post("/api/sessions", json={"id": "s1", "seed": 2**70}), 400, "bad_request")
        assert_error(await http.post("/api/sessions", json={"id": "s2", "seed": True}), 400, "bad_request")
        assert_error(await http.post("/api/sessions", json={"id": "s3", "snapshot": 5}), 400, "bad_request")
    assert open_ids(live) == before


@pytest.mark.parametrize("bad", [7, ["a"], {"x": 1}, True, "", "a b", "a/b", "x" * 129, "é", "tab\t"])
async def test_a_bad_session_id_in_a_body_is_a_400_and_opens_nothing(live: LiveHub, bad: object) -> None:
    before = open_ids(live)
    async with httpx.AsyncClient(base_url=live.url) as http:
        body = assert_error(await http.post("/api/sessions", json={"id": bad}), 400, "bad_id")
        assert "session id" in body["error"]
        assert_error(await http.post("/api/sessions/default/fork", json={"id": bad}), 400, "bad_id")
    assert open_ids(live) == before


async def test_a_bad_session_id_in_a_path_or_header_is_refused_everywhere(live: LiveHub) -> None:
    before = open_ids(live)
    bad = "a%20b"  # "a b" once decoded
    async with httpx.AsyncClient(base_url=live.url) as http:
        for method, path in (
            ("GET", f"/api/sessions/{bad}"),
            ("DELETE", f"/api/sessions/{bad}"),
            ("POST", f"/api/sessions/{bad}/fork"),
            ("POST", f"/api/sessions/{bad}/snapshot"),
            ("POST", f"/api/sessions/{bad}/call/banking/deposit_funds"),
            ("GET", f"/api/sessions/{bad}/state/banking"),
            ("GET", f"/api/sessions/{'x' * 129}"),
        ):
            assert_error(await http.request(method, path, json={"arguments": DEPOSIT}), 400, "bad_id")
        mcp = {**MODERN, "Mcp-Name": "deposit_funds"}
        for path, headers in (
            (f"/sessions/{bad}/mcp/banking", mcp),
            ("/mcp/banking", {**mcp, "X-Hub-Session": "a/b"}),
            ("/mcp/banking", {**mcp, "Mcp-Session-Id": "x" * 200}),
        ):
            r = await http.post(path, json=call_body("deposit_funds", DEPOSIT), headers=headers)
            assert r.status_code == 200, r.text
            result = r.json()["result"]
            assert result["isError"] and "session id" in result["content"][0]["text"], result
        for meta in (7, ["a"], "a b", ""):
            r = await http.post(
                "/mcp/banking", json=call_body("deposit_funds", DEPOSIT, {"hub/session": meta}), headers=mcp
            )
            result = r.json()["result"]
            assert result["isError"] and "session id" in result["content"][0]["text"], result
        r = await http.get("/api/sessions/ok.id_1:2-3")
        assert_error(r, 404, "session")
    assert open_ids(live) == before
    assert hub_of(live).sessions.get("default").calls == 0


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=140))
def test_the_session_id_rule(text: str) -> None:
    valid = 1 <= len(text) <= 128 and all(c.isascii() and (c.isalnum() or c in "._:-") for c in text)
    if valid:
        assert ids.session_id(text) == text
    else:
        with pytest.raises(BadId):
            ids.session_id(text)


def test_the_seed_bounds() -> None:
    assert ids.seed(2**63 - 1) == 2**63 - 1 and ids.seed(-(2**63)) == -(2**63)
    for bad in (2**63, -(2**63) - 1, 1.0, "1", True, None, [1, 2]):
        with pytest.raises(BadRequest):
            ids.seed(bad)


# Limits and caps ---------------------------------------------------------------------------------


async def test_page_bounds_and_the_session_cap_are_typed_errors(live: LiveHub) -> None:
    async with httpx.AsyncClient(base_url=live.url) as http:
        for query in ("limit=-1", "offset=-5", "limit=abc", "offset=1e9"):
            assert_error(
                await http.get(f"/api/sessions/default/state/banking?table=accounts&{query}"), 400, "bad_request"
            )
        page = (await http.get("/api/sessions/default/state/banking?table=accounts&limit=100000")).json()
        assert page["limit"] <= 500
        room, opened = 6 - len(hub_of(live).sessions), 0
        while (r := await http.post("/api/sessions", json={})).status_code == 201:
            opened += 1
        body = assert_error(r, 429, "capacity")
        assert "HUB_MAX_SESSIONS" in body["error"] and opened == room
        assert_error(await http.post("/api/sessions/default/fork", json={}), 429, "capacity")


# A lone surrogate through MCP, then the live views ----------------------------------------------


async def test_a_lone_surrogate_through_mcp_api_and_ws_leaves_every_page_answering(live: LiveHub) -> None:
    args = {"from_account_id": "ACC-0001", "to_account_id": "ACC-0002", "amount": 1, "memo": "x\ud800y"}
    async with httpx.AsyncClient(base_url=live.url) as http:
        raw = json.dumps(call_body("transfer_funds", args))  # ensure_ascii: the surrogate travels as \ud800
        r = await http.post("/sessions/sur/mcp/banking", content=raw, headers={**MODERN, "Mcp-Name": "transfer_funds"})
        assert r.status_code == 200 and not r.json()["result"]["isError"], r.text
        r = await http.post(
            "/api/sessions/sur/call/banking/get_account", content=json.dumps({"arguments": {"account_id": "\ud800"}})
        )
        assert r.status_code == 200 and r.json()["error_kind"] == "tool"
        async with connect(live.ws_url) as ws:
            await ws.send(json.dumps({"type": "hello", "id": 1, "client": "\ud800"}))
            assert json.loads(await ws.recv())["type"] == "welcome"
        await hub_of(live).store.flush(10.0)
        for page in (
            "/ui/",
            "/ui/sessions",
            "/ui/sessions/sur",
            "/ui/sessions/sur/state/banking?table=transactions",
            "/ui/catalog/banking/transfer_funds",
            "/ui/catalog/banking/get_account",
            "/ui/episodes",
        ):
            r = await http.get(page)
            assert r.status_code == 200, (page, r.text[:300])
        assert "x\ufffdy" in (await http.get("/ui/catalog/banking/transfer_funds")).text
        async with http.stream("GET", "/ui/sse/overview") as stream:
            assert stream.status_code == 200
