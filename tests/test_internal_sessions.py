"""Task templates (``tpl-*``) are the hub's own: unlisted, and read-only through MCP, REST and the dashboard."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
import pytest_asyncio
from mcp import Client

from hub.core import Hub
from hub.testing import LiveHub, serve
from tests.web_support import csrf_field, make_app

TASK = "bank-transfer-002"
DEPOSIT = {"account_id": "ACC-0001", "amount": 50.0}


@pytest_asyncio.fixture
async def live(tmp_path: Path) -> AsyncIterator[LiveHub]:
    async with serve(make_app(tmp_path)) as hub:
        yield hub


def template_of(hub: Hub) -> str:
    hub.episodes.open_group(TASK, 2)
    (sid,) = [s for s in hub.sessions.sessions if s.startswith("tpl-")]
    return sid


async def test_templates_are_read_only_to_every_caller(live: LiveHub) -> None:
    hub: Hub = live.app.state.hub
    tpl = template_of(hub)
    start = hub.sessions.get(tpl).state_hash()
    async with Client(f"{live.url}/sessions/{tpl}/mcp/banking") as mcp:
        refused = await mcp.call_tool("deposit_funds", DEPOSIT)
        text = refused.content[0].text  # type: ignore[union-attr]
        assert refused.is_error and "internal to the hub" in text and tpl in text
        assert not (await mcp.call_tool("get_account", {"account_id": "ACC-0001"})).is_error
    async with httpx.AsyncClient(base_url=live.url) as http:
        r = await http.post(f"/api/sessions/{tpl}/call/banking/deposit_funds", json={"arguments": DEPOSIT})
        assert r.status_code == 403 and r.json()["error_kind"] == "read_only" and tpl in r.json()["error"]
        r = await http.delete(f"/api/sessions/{tpl}")
        assert r.status_code == 403 and "internal" in r.json()["error"]
        token = csrf_field((await http.get("/ui/catalog/banking/deposit_funds")).text)
        r = await http.post(
            "/ui/catalog/banking/deposit_funds/run",
            data={"session": tpl, "account_id": "ACC-0001", "amount": "50", **token},
        )
        assert r.status_code == 200 and "internal to the hub" in r.text
        listed = (await http.get("/api/sessions")).json()["sessions"]
        assert tpl not in {s["id"] for s in listed} and "default" in {s["id"] for s in listed}
        page = await http.get("/ui/sessions")
        assert page.status_code == 200 and f'data-session="{tpl}"' not in page.text and 'data-session="es-' in page.text
        fork = await http.post(f"/api/sessions/{tpl}/fork", json={"id": "mine"})
        assert fork.status_code == 201
        r = await http.post("/api/sessions/mine/call/banking/deposit_funds", json={"arguments": DEPOSIT})
        assert r.json()["ok"]
    assert hub.sessions.get(tpl).state_hash() == start
    later = hub.episodes.open_group(TASK, 1)
    assert later[0].start_hash == hub.sessions.get(tpl).state_hash(later[0].task.servers)


def test_the_hub_itself_still_evicts_its_templates(tmp_path: Path) -> None:
    hub: Hub = make_app(tmp_path).state.hub
    hub.episodes.max_templates = 1
    first = template_of(hub)
    hub.episodes.open_group("bank-unfreeze-005", 1)
    assert first not in hub.sessions.sessions
    with pytest.raises(LookupError):
        hub.sessions.close("default")
