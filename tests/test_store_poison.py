"""The store never stops on one event: poison messages over a real /ws, and events the database refuses."""

from __future__ import annotations

import json
import math
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest_asyncio
from hypothesis import given, settings
from hypothesis import strategies as st
from websockets.asyncio.client import ClientConnection, connect

from hub.core import Hub
from hub.engine.events import EventBus, RunMetricEvent, TurnEvent
from hub.engine.store import Store
from hub.testing import LiveHub, serve
from hub.text import storable, storable_text
from tests.web_support import make_app


@pytest_asyncio.fixture
async def live(tmp_path: Path) -> AsyncIterator[LiveHub]:
    async with serve(make_app(tmp_path)) as hub:
        yield hub


class Raw:
    """A bare WebSocket client: sends exactly the text given, so malformed values reach the hub as sent."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.n = 0

    async def send(self, text: str) -> dict[str, Any]:
        await self.ws.send(text)
        while True:
            reply = json.loads(await self.ws.recv())
            if reply.get("type") != "event":
                return reply  # type: ignore[no-any-return]

    async def ask(self, **message: Any) -> dict[str, Any]:
        self.n += 1
        return await self.send(json.dumps({"id": self.n, **message}))


async def healthy_write(raw: Raw, hub: Hub, step: int) -> None:
    """A normal metric is stored after the poison: the writer is alive and nothing is refused."""
    assert (await raw.ask(type="run_metrics", run="r1", step=step, metrics={"loss": 0.5}))["type"] == "run_metrics_ok"
    flushed = await raw.ask(type="flush", timeout=10)
    assert flushed["type"] == "flushed", flushed
    rows = await hub.store.query("SELECT value FROM run_metrics WHERE run_id='r1' AND step=?", (step,))
    assert rows == [{"value": 0.5}]
    assert hub.store.running and hub.store.failure is None


async def test_store_keeps_storing_after_each_poison_message(live: LiveHub) -> None:
    hub: Hub = live.app.state.hub
    async with connect(live.ws_url) as ws:
        raw = Raw(ws)
        assert (await raw.ask(type="hello"))["type"] == "welcome"
        opened = await raw.ask(type="open", task="bank-transfer-002")
        episode = opened["episodes"][0]["episode"]
        await healthy_write(raw, hub, 0)

        # A lone surrogate in the model's text: stored with U+FFFD in its place.
        text = '{"id": 99, "type": "step", "episode": "%s", "text": "hello \\ud83d world"}' % episode
        assert (await raw.send(text))["type"] == "observation"
        await healthy_write(raw, hub, 1)
        turns = await hub.store.query("SELECT content FROM turns WHERE episode_id=? AND role='assistant'", (episode,))
        assert turns == [{"content": "hello \ufffd world"}]

        # A NaN (or infinite) metric: a trainer's NaN loss is refused with a typed error, not stored.
        for bad in ("NaN", "Infinity", "-Infinity"):
            reply = await raw.send(
                '{"id": 7, "type": "run_metrics", "run": "r1", "step": 2, "metrics": {"loss": %s}}' % bad
            )
            assert reply["type"] == "error" and reply["code"] == "bad_message" and reply["id"] == 7
            assert "finite" in reply["message"]
        await healthy_write(raw, hub, 3)

        # A step beyond SQLite's integers.
        reply = await raw.ask(type="run_metrics", run="r1", step=2**70, metrics={"loss": 1.0})
        assert reply["type"] == "error" and reply["code"] == "bad_message" and "step" in reply["message"]
        await healthy_write(raw, hub, 4)

        # A NaN reward weight.
        reply = await raw.send('{"id": 8, "type": "finish", "episode": "%s", "reward": {"w_val": NaN}}' % episode)
        assert reply["type"] == "error" and reply["code"] == "bad_message" and "w_val" in reply["message"]
        reward = await raw.ask(type="finish", episode=episode)
        assert reward["type"] == "reward" and math.isfinite(reward["reward"]["total"])
        await healthy_write(raw, hub, 5)
        assert len(await hub.store.query("SELECT * FROM rewards WHERE episode_id=?", (episode,))) == 1

        # A surrogate in a metric name and a run id: replaced, stored.
        reply = await raw.send('{"type": "run_metrics", "run": "r\\udc00", "step": 1, "metrics": {"l\\ud800": 2.0}}')
        assert reply["type"] == "run_metrics_ok"
        await healthy_write(raw, hub, 6)
        assert await hub.store.query("SELECT name FROM run_metrics WHERE run_id='r\ufffd'") == [{"name": "l\ufffd"}]
    assert hub.store.failed == 0


async def test_an_event_the_database_refuses_is_skipped_counted_and_the_writer_goes_on(live: LiveHub) -> None:
    hub: Hub = live.app.state.hub
    now = time.time()
    # Events that never passed the protocol (a bug elsewhere, a plugin): the database refuses each one.
    hub.bus.publish(RunMetricEvent("bad", 1, {"loss": float("nan")}, now))
    hub.bus.publish(RunMetricEvent("bad", 2**70, {"loss": 1.0}, now))
    hub.bus.publish(TurnEvent("ep-x", 2**64, "user", "hi", now))
    for step in range(5):
        hub.bus.publish(RunMetricEvent("good", step, {"loss": 1.0}, now))
    async with connect(live.ws_url) as ws:
        raw = Raw(ws)
        await raw.ask(type="hello")
        flushed = await raw.ask(type="flush", timeout=10)
    assert flushed["type"] == "flushed" and flushed["failed"] == 3
    assert {f["kind"] for f in flushed["failures"]} == {"run_metric", "turn"}
    assert all(f["error"] for f in flushed["failures"])
    assert len(await hub.store.query("SELECT * FROM run_metrics WHERE run_id='good'")) == 5
    async with httpx.AsyncClient(base_url=live.url) as http:
        metrics = (await http.get("/metrics")).text
    assert "prove_store_events_failed 3.0" in metrics


async def test_flush_counts_refused_events_instead_of_dying(tmp_path: Path) -> None:
    bus = EventBus()
    store = Store(str(tmp_path / "s.db"))
    await store.start(bus)
    try:
        for n in range(50):
            bus.publish(RunMetricEvent("r", n, {"x": float("nan") if n % 10 == 0 else 1.0}, time.time()))
        assert await store.flush(timeout=10) == 45
        assert store.failed == 5 and store.running
        bus.publish(RunMetricEvent("r", 1000, {"x": 1.0}, time.time()))
        assert await store.flush(timeout=10) == 46
    finally:
        await store.stop()


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_storable_text_is_always_utf8(text: str) -> None:
    clean = storable_text(text)
    clean.encode()
    assert len(clean) == len(text)
    assert storable({"k" + text: [text]}) == {"k" + clean: [clean]}


async def test_a_surrogate_in_a_rest_argument_is_replaced_and_every_page_still_renders(live: LiveHub) -> None:
    hub: Hub = live.app.state.hub
    body = '{"arguments": {"account_id": "ACC-0001", "amount": 5.0, "description": "x\\ud800y"}}'
    async with httpx.AsyncClient(base_url=live.url) as http:
        r = await http.post(
            "/api/sessions/sur/call/banking/deposit_funds", content=body, headers={"Content-Type": "application/json"}
        )
        assert r.status_code == 200 and r.json()["ok"], r.text
        for page in ("/ui/", "/ui/sessions", "/ui/sessions/sur", "/ui/sessions/sur/state/banking"):
            assert (await http.get(page)).status_code == 200, page
    await hub.store.flush(timeout=10)
    rows = await hub.store.query("SELECT arguments FROM tool_calls WHERE session_id='sur'")
    assert len(rows) == 1 and "\\ud800" not in rows[0]["arguments"]
    assert hub.sessions.get("sur").fork_of("banking").diff()  # the deposit, with its description, is stored
