"""Run a real hub on loopback inside the current event loop: for tests and benchmarks."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import uvicorn
from starlette.applications import Starlette

from hub.config import Settings
from hub.net import Loopback, free_port
from hub.tasks import hermes_call
from hub.transports.gate import server as hub_server

__all__ = ["LiveHub", "free_port", "serve", "ws_request"]


@dataclass
class LiveHub(Loopback):
    app: Starlette


@asynccontextmanager
async def serve(
    app: Starlette, port: int | None = None, timeout: float = 20.0, log_level: str = "warning", **options: Any
) -> AsyncIterator[LiveHub]:
    """Serve ``app`` with a real uvicorn on 127.0.0.1 until the block exits: the hub's own server (its connection
    gate and frame limit) for a hub app, plain uvicorn for any other app."""
    port = port or free_port()
    settings = getattr(app.state, "settings", None)
    if isinstance(settings, Settings):
        server: uvicorn.Server = hub_server(
            app, settings, host="127.0.0.1", port=port, log_level=log_level, lifespan="on", **options
        )
    else:
        server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level=log_level, lifespan="on"))
    started = asyncio.Event()
    startup = server.startup

    async def announce(sockets: list[socket.socket] | None = None) -> None:
        await startup(sockets=sockets)
        started.set()

    server.startup = announce  # type: ignore[method-assign]
    task = asyncio.create_task(server.serve())
    waiter = asyncio.create_task(started.wait())
    try:
        await asyncio.wait({task, waiter}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if not started.is_set():
            waiter.cancel()
            if task.done():
                task.result()
            raise RuntimeError(f"uvicorn did not start within {timeout} s")
        yield LiveHub(port=port, app=app)
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, timeout)


async def ws_request(ws: Any, message: dict[str, Any]) -> dict[str, Any]:
    """Send ``message`` over the hub's ``/ws`` socket ``ws`` and return the first reply that is not an event."""
    await ws.send(json.dumps(message))
    while True:
        reply = json.loads(await ws.recv())
        if reply.get("type") != "event":
            return reply  # type: ignore[no-any-return]


# A task whose model calls run the hub's slowest path: each grep of CATASTROPHE backtracks exponentially on the
# task's file ("aaa…!") until its regex time limit stops it.
CATASTROPHE = "(a|a)*$"


def truth_call(server: str, tool: str, **arguments: Any) -> dict[str, Any]:
    """A ground-truth call of a task turn."""
    return {"server": server, "tool": tool, "arguments": arguments, "id": "g1"}


def grep_task(task_id: str) -> dict[str, Any]:
    """A filesystem task holding the file that ``catastrophic_greps`` searches."""
    return {
        "id": task_id,
        "servers": ["filesystem"],
        "initial": {
            "setup": [
                {
                    "server": "filesystem",
                    "tool": "write_file",
                    "arguments": {"path": "/tmp/a.txt", "content": "a" * 30 + "!"},
                }
            ]
        },
        "turns": [
            {
                "user": "Search /tmp/a.txt.",
                "calls": [truth_call("filesystem", "grep_files", pattern="b", path="/tmp/a.txt")],
            }
        ],
        "tools": ["filesystem__grep_files"],
    }


def catastrophic_greps(n: int) -> str:
    """A model turn of ``n`` greps that each run to their time limit on ``grep_task``'s file."""
    return hermes_call("filesystem__grep_files", {"pattern": CATASTROPHE, "path": "/tmp/a.txt"}) * n
