"""What the front of a sharded hub joins from every shard: the sessions list (JSON and the dashboard's page) and
the dashboard's live event streams, so that the dashboard shows the whole hub rather than shard 0.

The sessions page is the dashboard's own HTML (``templates/partials/session_rows.html``): the first shard's page
is the shell, its table body becomes every shard's rows, shard by shard, and its count the sum of theirs. Each
shard pages its own sessions (100 a page), so a page here shows up to 100 per shard.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections.abc import AsyncIterator
from typing import Any

import httpx

TBODY = re.compile(r"(<tbody>)(.*?)(</tbody>)", re.DOTALL)
COUNT = re.compile(r"(\d+)( open session)(s?)")
MAX_QUEUED = 256
EVENT_END = re.compile(rb"\r\n\r\n|\n\n|\r\r")  # an SSE event ends with a blank line, in any of the three newlines


def session_lists(bodies: list[bytes]) -> bytes:
    """``GET /api/sessions`` of every shard as one list."""
    rows: list[Any] = []
    for body in bodies:
        rows.extend(json.loads(body).get("sessions", []))
    return json.dumps({"sessions": rows}).encode()


def session_pages(bodies: list[bytes]) -> bytes:
    """The dashboard's sessions page (or its htmx fragment) of every shard as one: the first one's, with every
    shard's rows and their total count."""
    pages = [body.decode() for body in bodies]
    shell = pages[0]
    rows = "".join(m.group(2) for page in pages if (m := TBODY.search(page)))
    total = sum(int(m.group(1)) for page in pages if (m := COUNT.search(page)))
    shell = TBODY.sub(lambda m: m.group(1) + rows + m.group(3), shell, count=1)
    return COUNT.sub(lambda m: f"{total}{m.group(2)}{'' if total == 1 else 's'}", shell, count=1).encode()


async def events(upstream: httpx.Response) -> AsyncIterator[bytes]:
    """One upstream SSE stream, event by event (never half an event, so that streams can interleave)."""
    buffer = b""
    async for chunk in upstream.aiter_raw():
        buffer += chunk
        while match := EVENT_END.search(buffer):
            yield buffer[: match.end()]
            buffer = buffer[match.end() :]


async def merged(upstreams: list[httpx.Response]) -> AsyncIterator[bytes]:
    """Every shard's stream as one, events interleaved as they come; it ends when any of them does (a shard
    restarting), and the browser's EventSource reconnects."""
    queue: asyncio.Queue[bytes | None] = asyncio.Queue(MAX_QUEUED)  # a slow reader holds the shards back

    async def pump(upstream: httpx.Response) -> None:
        try:
            async for event in events(upstream):
                await queue.put(event)
        except httpx.HTTPError:
            pass  # the shard went away: end the merged stream below
        finally:
            await queue.put(None)

    tasks = [asyncio.create_task(pump(u)) for u in upstreams]
    try:
        while (event := await queue.get()) is not None:
            yield event
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for upstream in upstreams:
            with contextlib.suppress(httpx.HTTPError):
                await upstream.aclose()
