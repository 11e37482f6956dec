"""MCP over streamable HTTP against a real uvicorn on loopback, driven by the official client."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
import pytest_asyncio
from mcp import Client

from hub.app import create_app
from hub.config import Settings
from hub.core import Hub
from hub.testing import LiveHub, serve
from hub.transports.mcp_hub_tools import HUB_TOOLS
from tests.conftest import LIBRARY

DEPOSIT = {"account_id": "ACC-0001", "amount": 5.0}
MODERN = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2026-07-28",
    "Mcp-Method": "tools/call",
}


@pytest_asyncio.fixture
async def live(tmp_path: Path) -> AsyncIterator[LiveHub]:
    settings = Settings(store_path=str(tmp_path / "store.db"))
    async with serve(create_app(settings, Hub(settings, LIBRARY))) as hub:
        yield hub


def balance(live: LiveHub, session: str) -> float:
    hub: Hub = live.app.state.hub
    s = hub.sessions.get(session)
    return float(
        s.fork_of("banking").db.execute("SELECT balance FROM accounts WHERE account_id='ACC-0001'").fetchone()[0]
    )


def call_body(name: str, arguments: object, meta: dict[str, object] | None = None, rid: int = 1) -> dict[str, object]:
    params: dict[str, object] = {
        "name": name,
        "arguments": arguments,
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
            "io.modelcontextprotocol/clientCapabilities": {},
            **(meta or {}),
        },
    }
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}


async def test_default_mode_lists_and_calls_in_default_session(live: LiveHub) -> None:
    async with Client(f"{live.url}/mcp/banking") as client:
        tools = (await client.list_tools()).tools
        assert len(tools) == len(LIBRARY.mount("banking").tools)
        assert {t.name for t in tools} >= {"transfer_funds", "get_account"}
        before = json.loads((await client.call_tool("get_account", {"account_id": "ACC-0001"})).content[0].text)[
            "balance"
        ]
        result = await client.call_tool("deposit_funds", DEPOSIT)
        assert not result.is_error
        assert json.loads(result.content[0].text)["balance"] == round(before + 5.0, 2)
    assert live.app.state.hub.sessions.get("default").calls == 2


async def test_pinned_by_url_persists_and_isolates(live: LiveHub) -> None:
    async with (
        Client(f"{live.url}/sessions/alice/mcp/banking") as alice,
        Client(f"{live.url}/sessions/bob/mcp/banking") as bob,
    ):
        seed_balance = json.loads((await bob.call_tool("get_account", {"account_id": "ACC-0001"})).content[0].text)[
            "balance"
        ]
        await alice.call_tool("deposit_funds", DEPOSIT)
        await alice.call_tool("deposit_funds", DEPOSIT)
        seen_by_alice = json.loads((await alice.call_tool("get_account", {"account_id": "ACC-0001"})).content[0].text)
        seen_by_bob = json.loads((await bob.call_tool("get_account", {"account_id": "ACC-0001"})).content[0].text)
    assert seen_by_alice["balance"] == round(seed_balance + 10.0, 2)
    assert seen_by_bob["balance"] == seed_balance


async def test_pinned_by_meta(live: LiveHub) -> None:
    async with Client(f"{live.url}/mcp/banking") as client:
        await client.call_tool("deposit_funds", DEPOSIT, meta={"hub/session": "m1"})
        await client.call_tool("deposit_funds", DEPOSIT, meta={"hub/session": "m1"})
    assert balance(live, "m1") == round(balance(live, "untouched") + 10.0, 2)
    assert live.app.state.hub.sessions.get("default").calls == 0


async def test_legacy_mode_session_id_isolates(live: LiveHub) -> None:
    async with (
        Client(f"{live.url}/mcp/banking", mode="legacy") as one,
        Client(f"{live.url}/mcp/banking", mode="legacy") as two,
    ):
        r1 = json.loads((await one.call_tool("deposit_funds", DEPOSIT)).content[0].text)
        r2 = json.loads((await one.call_tool("deposit_funds", DEPOSIT)).content[0].text)
        r3 = json.loads((await two.call_tool("deposit_funds", DEPOSIT)).content[0].text)
    assert r2["balance"] == round(r1["balance"] + 5.0, 2)
    assert r3["balance"] == r1["balance"]


async def test_all_tools_endpoint_prefixes_names(live: LiveHub) -> None:
    async with Client(f"{live.url}/sessions/all1/mcp") as client:
        tools = (await client.list_tools()).tools
        assert len(tools) == len(LIBRARY.all_tools()) + len(HUB_TOOLS)  # and the session handle pair
        assert all("__" in t.name for t in tools)
        result = await client.call_tool("banking__get_account", {"account_id": "ACC-0001"})
        assert not result.is_error
        bad = await client.call_tool("get_account", {"account_id": "ACC-0001"})
        assert bad.is_error and "unknown server" in bad.content[0].text


async def test_header_pins_session(live: LiveHub) -> None:
    async with httpx.AsyncClient(base_url=live.url) as http:
        for _ in range(2):
            r = await http.post(
                "/mcp/banking",
                json=call_body("deposit_funds", DEPOSIT),
                headers={**MODERN, "Mcp-Name": "deposit_funds", "X-Hub-Session": "hdr"},
            )
            assert r.status_code == 200, r.text
    assert live.app.state.hub.sessions.get("hdr").calls == 2


async def test_bad_inputs_get_clear_errors_and_hub_keeps_serving(live: LiveHub) -> None:
    async with Client(f"{live.url}/sessions/bad/mcp/banking") as client:
        unknown = await client.call_tool("steal_money", {})
        assert unknown.is_error and "unknown tool 'steal_money'" in unknown.content[0].text
        wrong_type = await client.call_tool("deposit_funds", {"account_id": "ACC-0001", "amount": "lots"})
        assert wrong_type.is_error and "argument 'amount'" in wrong_type.content[0].text
        missing = await client.call_tool("deposit_funds", {"account_id": "ACC-0001"})
        assert missing.is_error and "missing required argument 'amount'" in missing.content[0].text
        domain = await client.call_tool("get_account", {"account_id": "ACC-9999"})
        assert domain.is_error and "No account" in domain.content[0].text
    async with httpx.AsyncClient(base_url=live.url) as http:
        r = await http.post("/mcp/banking", content=b'{"jsonrpc": "2.0", "id": 1, "method": ', headers=MODERN)
        assert 400 <= r.status_code < 500 or "error" in r.json()
        r = await http.post(
            "/mcp/banking", content=json.dumps({"jsonrpc": "2.0", "id": 2, "method": 7}), headers=MODERN
        )
        assert 400 <= r.status_code < 500 or "error" in r.json()
        big = call_body("deposit_funds", {"account_id": "ACC-0001", "amount": 1.0, "pad": "x" * 2_000_000})
        r = await http.post("/mcp/banking", json=big, headers=MODERN)
        assert r.status_code == 413
        r = await http.post("/mcp/nowhere", json=call_body("x", {}), headers=MODERN)
        assert r.status_code == 404 and "unknown server" in r.json()["error"]
        r = await http.get("/healthz")
        assert r.json()["status"] == "ok"
    assert "bad" in live.app.state.hub.sessions.sessions
    assert live.app.state.hub.sessions.get("bad").fork_of("banking").diff() == {}


async def test_foreign_host_header_rejected_on_loopback(live: LiveHub) -> None:
    async with httpx.AsyncClient(base_url=live.url) as http:
        r = await http.post(
            "/mcp/banking",
            json=call_body("get_account", {"account_id": "ACC-0001"}),
            headers={**MODERN, "Host": "evil.example.com"},
        )
        assert r.status_code in (400, 403, 421)


async def test_concurrent_sessions_never_see_each_other(live: LiveHub) -> None:
    async def worker(n: int) -> float:
        async with Client(f"{live.url}/sessions/w{n}/mcp/banking") as client:
            for _ in range(n + 1):
                await client.call_tool("deposit_funds", {"account_id": "ACC-0001", "amount": 1.0})
            return float(
                json.loads((await client.call_tool("get_account", {"account_id": "ACC-0001"})).content[0].text)[
                    "balance"
                ]
            )

    results = await asyncio.gather(*(worker(n) for n in range(8)))
    seed = results[0] - 1.0
    assert [round(r - seed, 2) for r in results] == [float(n + 1) for n in range(8)]


async def test_token_required_off_loopback(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="requires a bearer token"):
        Settings(host="0.0.0.0").check()
    settings = Settings(host="0.0.0.0", token="s3cret", store_path=str(tmp_path / "store.db"))
    async with serve(create_app(settings, Hub(settings, LIBRARY))) as live:
        async with httpx.AsyncClient(base_url=live.url) as http:
            assert (await http.get("/healthz")).status_code == 200
            refused = await http.get("/api/catalog")
            assert refused.status_code == 401 and refused.headers["www-authenticate"] == "Bearer"
            assert refused.json() == {"error": "missing or wrong bearer token", "code": "unauthorized"}
            assert (await http.get("/api/catalog", headers={"Authorization": "Bearer wrong"})).status_code == 401
            ok = await http.get("/api/catalog", headers={"Authorization": "Bearer s3cret"})
            assert ok.status_code == 200 and ok.json()["tool_count"] == len(LIBRARY.all_tools())
            r = await http.post(
                "/mcp/banking", json=call_body("get_account", {"account_id": "ACC-0001"}), headers=MODERN
            )
            assert r.status_code == 401


async def test_closed_session_gets_a_clear_error(live: LiveHub) -> None:
    async with httpx.AsyncClient(base_url=live.url) as http:
        assert (await http.post("/api/sessions", json={"id": "short"})).status_code == 201
        assert (await http.delete("/api/sessions/short")).status_code == 200
    async with Client(f"{live.url}/sessions/short/mcp/banking") as client:
        out = await client.call_tool("get_account", {"account_id": "ACC-0001"})
    assert out.is_error and "'short' was closed" in out.content[0].text
