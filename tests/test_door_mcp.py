"""MCP the 2026 way: session handles, tasks as prompts, state as resources, with the official Python and
TypeScript SDKs against a real hub on loopback."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from mcp import Client
from mcp.shared.exceptions import MCPError

from hub.app import create_app
from hub.config import Settings
from hub.core import Hub
from hub.testing import LiveHub, serve
from tests.conftest import LIBRARY
from tests.door_support import ROOT

TS = ROOT / "tests" / "ts"


@pytest_asyncio.fixture
async def live(tmp_path: Path) -> AsyncIterator[LiveHub]:
    settings = Settings(store_path=str(tmp_path / "store.db"))
    async with serve(create_app(settings, Hub(settings, LIBRARY))) as hub:
        yield hub


def structured(result: object) -> dict[str, object]:
    data = getattr(result, "structured_content", None)
    assert isinstance(data, dict), result
    return data


async def test_handles_work_for_a_client_without_a_protocol_session(live: LiveHub) -> None:
    hub: Hub = live.app.state.hub
    async with Client(f"{live.url}/mcp") as client:
        assert client.protocol_version == "2026-07-28"  # no protocol session: every request stands alone
        names = {t.name for t in (await client.list_tools()).tools}
        assert {"hub__open_session", "hub__close_session", "banking__deposit_funds"} <= names
        a = structured(await client.call_tool("hub__open_session", {}))["session"]
        b = structured(await client.call_tool("hub__open_session", {"seed": 0}))["session"]
        assert isinstance(a, str) and isinstance(b, str) and a != b
        deposit = {"account_id": "ACC-0001", "amount": 40}
        assert not (await client.call_tool("banking__deposit_funds", deposit, meta={"hub/session": a})).is_error
        hash_of = lambda sid: hub.sessions.get(sid, create=False).state_hash(["banking"])  # noqa: E731
        assert hash_of(a) != hash_of(b) == hash_of("default")
        fork = structured(await client.call_tool("hub__open_session", {"fork_of": a}))
        assert fork["parent"] == a and hash_of(str(fork["session"])) == hash_of(a)  # tree search: copy, then branch
        await client.call_tool("banking__deposit_funds", deposit, meta={"hub/session": str(fork["session"])})
        assert hash_of(str(fork["session"])) != hash_of(a)
        start = structured(await client.call_tool("hub__open_session", {"task": "bank-unfreeze-005"}))
        frozen = await client.call_tool("banking__get_account", {"account_id": "ACC-0007"}, meta=start["meta"])  # type: ignore[arg-type]
        assert '"status":"frozen"' in frozen.content[0].text  # type: ignore[union-attr]
        closed = structured(await client.call_tool("hub__close_session", {"session": a}))
        assert closed == {"session": a, "closed": True} and a not in hub.sessions.sessions
        after = await client.call_tool("banking__get_account", {"account_id": "ACC-0001"}, meta={"hub/session": a})
        assert after.is_error and "closed" in after.content[0].text  # type: ignore[union-attr]


async def test_handle_errors_are_tool_errors(live: LiveHub) -> None:
    hub: Hub = live.app.state.hub
    template = next(iter(hub.sessions.sessions))  # the default session is not internal; make one that is
    async with Client(f"{live.url}/mcp") as client:
        await client.call_tool("hub__open_session", {"task": "bank-balance-001"})
        internal = next(s.id for s in hub.sessions.sessions.values() if s.internal)
        for args, words in [
            ({"fork_of": "nope-123"}, "unknown or closed session"),
            ({"fork_of": internal}, "hub's own"),
            ({"task": "no-such-task"}, "no-such-task"),
            ({"seed": "x"}, "integer"),
            ({"seed": 1, "task": "bank-balance-001"}, "at most one"),
        ]:
            result = await client.call_tool("hub__open_session", args)
            assert result.is_error and words in result.content[0].text, (args, result)  # type: ignore[union-attr]
        refused = await client.call_tool("hub__close_session", {"session": internal})
        assert refused.is_error and internal in hub.sessions.sessions
        assert (await client.call_tool("hub__close_session", {"session": "default"})).is_error
    assert template == "default"


async def test_tasks_are_prompts_and_state_is_resources(live: LiveHub) -> None:
    hub: Hub = live.app.state.hub
    async with Client(f"{live.url}/mcp") as client:
        prompts = (await client.list_prompts()).prompts
        assert [p.name for p in prompts] == [t.id for t in hub.tasks]
        prompt = await client.get_prompt("bank-payee-004")
        task = hub.tasks.get("bank-payee-004")
        assert prompt.messages[0].role == "user" and prompt.messages[0].content.text == task.turns[0].user  # type: ignore[union-attr]
        assert prompt.description and "<tool_call>" in prompt.description
        assert prompt.meta and [t["function"]["name"] for t in prompt.meta["hub/tools"]] == task.tools
        with pytest.raises(MCPError, match="no prompt"):
            await client.get_prompt("no-such-task")
        handle = structured(await client.call_tool("hub__open_session", {}))["session"]
        meta = {"hub/session": str(handle)}
        assert all("/banking/" not in r.uri for r in (await client.list_resources(meta=meta)).resources)
        await client.call_tool("banking__deposit_funds", {"account_id": "ACC-0002", "amount": 3}, meta=meta)
        uris = {str(r.uri) for r in (await client.list_resources(meta=meta)).resources}
        assert f"hub://session/{handle}/banking/accounts" in uris and f"hub://session/{handle}/crm" in uris
        page = json.loads(
            (await client.read_resource(f"hub://session/{handle}/banking/accounts?limit=2")).contents[0].text
        )  # type: ignore[union-attr]
        fork = hub.sessions.get(str(handle), create=False).fork_of("banking")
        assert page["state_hash"] == fork.state_hash() and len(page["rows"]) == 2 and page["total"] > 2
        state = json.loads((await client.read_resource(f"hub://session/{handle}/banking")).contents[0].text)  # type: ignore[union-attr]
        assert state["diff"] and "accounts" in state["tables"]
        with pytest.raises(MCPError, match="no table"):
            await client.read_resource(f"hub://session/{handle}/banking/nope")
        with pytest.raises(MCPError, match="unknown resource"):
            await client.read_resource("hub://elsewhere/x")
    async with Client(f"{live.url}/mcp/banking") as banking:
        assert not {"hub__open_session"} & {t.name for t in (await banking.list_tools()).tools}  # only on /mcp
        assert len((await banking.list_prompts()).prompts) == len(hub.tasks)  # every built-in task is a banking one


@pytest.mark.slow
def test_the_typescript_sdk_uses_handles_prompts_and_resources(tmp_path: Path) -> None:
    node = shutil.which("node")
    if node is None or not (TS / "node_modules" / "@modelcontextprotocol" / "sdk").exists():
        pytest.skip("node or tests/ts/node_modules is missing: run scripts/install-door-deps")

    async def scenario() -> Any:
        settings = Settings(store_path=str(tmp_path / "store.db"))
        async with serve(create_app(settings, Hub(settings, LIBRARY))) as live:
            done = await asyncio.to_thread(
                subprocess.run, [node, "mcp_door.mjs", live.url], cwd=TS, capture_output=True, text=True, timeout=120
            )
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout.strip().splitlines()[-1])

    seen = asyncio.run(scenario())
    handle = seen["handle"]
    assert seen["deposit_ok"] and seen["state_hash"] == seen["fork_state_hash"]  # the fork copied the deposit
    assert f"hub://session/{handle}/banking/accounts" in seen["resource_uris"]
    assert seen["templates"] == ["hub://session/{session}/{server}/{table}", "hub://session/{session}/{server}"]
    assert "bank-transfer-002" in seen["prompts"] and seen["prompt_user"].startswith("Move $300")
    assert "banking__transfer_funds" in seen["prompt_tools"] and seen["rows"] == 3
    assert "no prompt" in seen["missing_prompt"]
    assert seen["closed"] == {"session": handle, "closed": True} and seen["closed_again_error"]
    assert "was closed" in seen["after_close"]
