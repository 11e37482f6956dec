"""The dashboard's SSE streams on a real uvicorn: read as a plain HTTP client would."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
from mcp import Client

from hub.testing import serve
from tests.web_support import hub_of, make_app


async def sse_events(lines: AsyncIterator[str]) -> AsyncIterator[tuple[str, str]]:
    """(event name, data) per message of a text/event-stream."""
    name, data = "message", []
    async for line in lines:
        if line.startswith("event:"):
            name = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
        elif line == "" and data:
            yield name, "\n".join(data)
            name, data = "message", []


async def next_named(events: AsyncIterator[tuple[str, str]], wanted: str, timeout: float = 10.0) -> str:
    async with asyncio.timeout(timeout):
        async for name, data in events:
            if name == wanted:
                return data
    raise AssertionError(f"the stream ended before a {wanted!r} event")


async def test_overview_stream_sends_stats_then_new_tool_calls(tmp_path: Path) -> None:
    async with serve(make_app(tmp_path)) as live, httpx.AsyncClient(base_url=live.url, timeout=10) as http:
        async with http.stream("GET", "/ui/sse/overview") as response:
            assert response.headers["content-type"].startswith("text/event-stream")
            events = sse_events(response.aiter_lines())
            stats = await next_named(events, "stats")
            assert 'data-live="1"' in stats and "tool calls" in stats
            async with Client(f"{live.url}/sessions/sse-one/mcp/banking") as client:
                await client.call_tool("get_account", {"account_id": "ACC-0002"})
            rows = await next_named(events, "calls")
            assert 'data-call="banking.get_account"' in rows and "sse-one" in rows and "<html" not in rows


async def test_episode_stream_follows_one_episode(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with serve(app) as live, httpx.AsyncClient(base_url=live.url, timeout=10) as http:
        engine = hub_of(app).episodes
        (ep,) = engine.open_group("bank-balance-001", 1)
        (other,) = engine.open_group("bank-balance-001", 1)
        async with http.stream("GET", f"/ui/sse/episodes/{ep.id}") as response:
            events = sse_events(response.aiter_lines())
            engine.step(other.id, '<tool_call>{"name": "banking__list_accounts", "arguments": {}}</tool_call>')
            engine.step(
                ep.id,
                '<tool_call>{"name": "banking__get_account", "arguments": {"account_id": "ACC-0005"}}</tool_call>',
            )
            turn = await next_named(events, "item")
            assert 'class="item assistant"' in turn and "banking__get_account" in turn
            call = await next_named(events, "item")
            assert 'data-call="banking.get_account"' in call and "list_accounts" not in call
            engine.step(ep.id, "The balance is shown above.")
            engine.finish(ep.id)
            status = await next_named(events, "status")
            assert 'data-status="finished"' in status
            assert await next_named(events, "finished") == "finished"


async def test_overview_charts_follow_new_rewards(tmp_path: Path) -> None:
    from tests.web_support import play

    app = make_app(tmp_path)
    async with serve(app) as live, httpx.AsyncClient(base_url=live.url, timeout=10) as http:
        async with http.stream("GET", "/ui/sse/overview") as response:
            events = sse_events(response.aiter_lines())
            await next_named(events, "stats")
            play(hub_of(app), "bank-balance-001")
            charts = await next_named(events, "charts")
            assert "reward of the last 1 episodes" in charts and "points lost" in charts


async def test_run_stream_announces_new_steps_and_the_end(tmp_path: Path) -> None:
    from hub.engine.events import RunEvent, RunMetricEvent

    app = make_app(tmp_path)
    bus = hub_of(app).bus
    async with serve(app) as live, httpx.AsyncClient(base_url=live.url, timeout=10) as http:
        bus.publish(RunEvent("run-s", "s", {}, "running", 1.0))
        async with http.stream("GET", "/ui/sse/training/run-s") as response:
            events = sse_events(response.aiter_lines())
            bus.publish(RunMetricEvent("other", 9, {"reward": 1.0}, 2.0))
            bus.publish(RunMetricEvent("run-s", 3, {"reward": 1.0}, 2.0))
            assert await next_named(events, "metrics") == "3"
            bus.publish(RunEvent("run-s", "", {}, "finished", 3.0))
            assert 'data-status="finished"' in await next_named(events, "status")
