"""Server-sent events for the dashboard (sse-starlette), consumed by htmx's SSE extension.

Each stream is a bounded bus subscription (a slow browser loses its oldest events, never the hub's
memory). Messages carry rendered HTML fragments, which the page swaps in by event name:

- ``/ui/sse/overview``: ``calls`` (the newest tool-call rows, coalesced a few times a second) and
  ``stats`` (the counters and the calls/s chart, once a second), ``charts`` (the reward curve and the
  points lost per component, when episodes are scored, at most every ``CHARTS_EVERY_S``);
- ``/ui/sse/episodes/{eid}``: ``item`` (a turn or a tool call to append to the timeline),
  ``status`` (the episode's badge), ``finished`` (tells the outcome section to reload itself);
- ``/ui/sse/episodes``: ``changed`` (an episode opened, finished or was scored: the list re-fetches its first
  page, at most every ``LIST_TICK_S``); an idle list hears only the keep-alive comments;
- ``/ui/sse/training/{rid}``: ``metrics`` (the run has new steps: the page re-fetches its charts, at
  most every ``RUN_TICK_S``) and ``status`` (the run's badge, when it starts or ends).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.requests import Request

from hub.engine.events import Subscription
from hub.engine.store import StoreError
from web import models
from web.dashboard import Dashboard, dashboard_of
from web.render import fragment_html
from web.views import overview_charts, overview_stats

TICK_S = 1.0
COALESCE_S = 0.25
RUN_TICK_S = 1.5
CHARTS_EVERY_S = 3.0
LIST_TICK_S = 3.0
PING_S = 15
MAX_ROWS = 20


async def next_batch(sub: Subscription, timeout: float) -> list[Any]:
    """Every event queued now, waiting up to ``timeout`` for the first one; [] on timeout."""
    try:
        async with asyncio.timeout(timeout):
            first = await sub.queue.get()
    except TimeoutError:
        return []
    batch = [first]
    while not sub.queue.empty():
        batch.append(sub.queue.get_nowait())
    return batch


async def overview_events(request: Request) -> EventSourceResponse:
    dash = dashboard_of(request)
    sub = dash.hub.bus.subscribe(frozenset({"tool_call", "episode", "reward"}), maxsize=500)
    return EventSourceResponse(_overview(request, dash, sub), ping=15)


async def _overview(request: Request, dash: Dashboard, sub: Subscription) -> AsyncIterator[ServerSentEvent]:
    loop = asyncio.get_running_loop()
    last_stats = last_charts = 0.0
    try:
        yield ServerSentEvent(event="stats", data=await _stats_html(request, dash))
        while True:
            batch = await next_batch(sub, TICK_S)
            calls = [models.call_of_event(e) for e in batch if e.type == "tool_call"][-MAX_ROWS:]
            if calls:
                html = fragment_html(request, "partials/call_rows.html", calls=list(reversed(calls)), fresh=True)
                yield ServerSentEvent(event="calls", data=html)
            if loop.time() - last_stats >= TICK_S or any(e.type != "tool_call" for e in batch):
                last_stats = loop.time()
                yield ServerSentEvent(event="stats", data=await _stats_html(request, dash))
            if any(e.type == "reward" for e in batch) and loop.time() - last_charts >= CHARTS_EVERY_S:
                last_charts = loop.time()
                with contextlib.suppress(StoreError, TimeoutError):
                    await dash.hub.store.flush(10.0)  # the charts read the store: let it hold the new rewards
                yield ServerSentEvent(
                    event="charts",
                    data=fragment_html(request, "partials/overview_charts.html", **await overview_charts(dash)),
                )
            if calls:
                await asyncio.sleep(COALESCE_S)  # coalesce bursts: a few messages a second, whatever the call rate
    finally:
        dash.hub.bus.unsubscribe(sub)


async def _stats_html(request: Request, dash: Dashboard) -> str:
    return fragment_html(request, "partials/overview_stats.html", stats=await overview_stats(dash), live=True)


async def episode_events(request: Request) -> EventSourceResponse:
    dash = dashboard_of(request)
    sub = dash.hub.bus.subscribe(frozenset({"tool_call", "turn", "episode", "reward"}), maxsize=2000)
    return EventSourceResponse(_episode(request, dash, sub, request.path_params["eid"]), ping=15)


async def _episode(request: Request, dash: Dashboard, sub: Subscription, eid: str) -> AsyncIterator[ServerSentEvent]:
    try:
        while True:
            for event in await next_batch(sub, 30.0):
                if getattr(event, "episode", None) != eid:
                    continue
                message = _episode_message(request, event)
                if message is not None:
                    yield message
    finally:
        dash.hub.bus.unsubscribe(sub)


def _episode_message(request: Request, event: Any) -> ServerSentEvent | None:
    if event.type == "turn":
        item = models.turn_item({"seq": event.seq, "role": event.role, "content": event.content, "ts": event.ts})
        return ServerSentEvent(event="item", data=fragment_html(request, "partials/timeline_item.html", item=item))
    if event.type == "tool_call":
        item = {"kind": "call", **models.call_of_event(event)}
        return ServerSentEvent(event="item", data=fragment_html(request, "partials/timeline_item.html", item=item))
    if event.type == "episode" and event.phase == "finish":
        return ServerSentEvent(
            event="status", data=fragment_html(request, "partials/status.html", status="finished", reason=event.reason)
        )
    if event.type == "reward":
        return ServerSentEvent(event="finished", data="finished")
    return None


async def run_events(request: Request) -> EventSourceResponse:
    dash = dashboard_of(request)
    sub = dash.hub.bus.subscribe(frozenset({"run", "run_metric"}), maxsize=1000)
    return EventSourceResponse(_run(request, dash, sub, request.path_params["rid"]), ping=15)


async def _run(request: Request, dash: Dashboard, sub: Subscription, rid: str) -> AsyncIterator[ServerSentEvent]:
    """Tell the page when its run has new steps (coalesced) or a new status; the page fetches the charts."""
    try:
        while True:
            batch = [e for e in await next_batch(sub, 30.0) if getattr(e, "run_id", None) == rid]
            ended = [e for e in batch if e.type == "run"]
            steps = [e.step for e in batch if e.type == "run_metric"]
            if ended:
                # the store writes the status a moment later; the page re-reads it with the charts
                yield ServerSentEvent(
                    event="status",
                    data=fragment_html(request, "partials/status.html", status=ended[-1].status, reason=None),
                )
            if steps or ended:
                with contextlib.suppress(StoreError, TimeoutError):
                    await dash.hub.store.flush(10.0)  # so the page's re-fetch reads the new rows
                yield ServerSentEvent(event="metrics", data=str(max(steps, default=-1)))
                await asyncio.sleep(RUN_TICK_S)  # coalesce: a fast trainer gets a redraw every RUN_TICK_S
    finally:
        dash.hub.bus.unsubscribe(sub)


async def list_events(request: Request) -> EventSourceResponse:
    dash = dashboard_of(request)
    sub = dash.hub.bus.subscribe(frozenset({"episode", "reward"}), maxsize=100)
    return EventSourceResponse(_list(dash, sub), ping=PING_S)


async def _list(dash: Dashboard, sub: Subscription) -> AsyncIterator[ServerSentEvent]:
    """Tell the episode list when it changed (coalesced); the page fetches the rows. Nothing while idle."""
    try:
        while True:
            if not await next_batch(sub, 30.0):
                continue
            with contextlib.suppress(StoreError, TimeoutError):
                await dash.hub.store.flush(10.0)  # so the list's re-fetch reads the new rows
            yield ServerSentEvent(event="changed", data="1")
            await asyncio.sleep(LIST_TICK_S)
    finally:
        dash.hub.bus.unsubscribe(sub)
