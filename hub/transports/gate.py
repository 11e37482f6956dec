"""Connections: how many the hub holds, from whom, and how long one may take to say what it wants.

Below the application, on every TCP connection (HTTP and the WebSockets upgraded from it):

- **in total** at most ``HUB_MAX_CONNECTIONS``, and never so many that the process runs out of file
  descriptors: the limit stays ``reserve_fds`` below ``RLIMIT_NOFILE`` (which ``raise_fd_limit`` lifts to
  its hard limit at start), so the store, the seed databases and the log keep theirs;
- **per address** at most ``HUB_MAX_CONNECTIONS_PER_ADDRESS``;
- a request's **headers** must arrive within ``header_timeout_s`` of the connection opening, or of the
  first byte of a later request on it (a client that trickles them holds nothing for long); between
  requests uvicorn's keep-alive timeout closes idle connections.

A connection past a limit is answered ``503 {"code": "overloaded"}`` and closed at once, so it
holds its descriptor for no longer than it takes to say so. Refusals are counted and logged once
per interval, never once each; so are the event loop's own reports of ``accept()`` failing for
want of descriptors (which it would otherwise log at every retry).

``server(app, settings, ...)`` builds the uvicorn server with these protocols and with
``ws_max_size`` set to ``HUB_MAX_BODY_BYTES``: a WebSocket frame announcing more is refused from its
header (close 1009, "message too big") before its payload is read.
"""

from __future__ import annotations

import asyncio
import json
import logging
import resource
import socket
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import h11
import uvicorn
from starlette.applications import Starlette
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.auto import AutoWebSocketsProtocol

from hub.config import Settings
from hub.errors import Overloaded
from hub.logs import Every

log = logging.getLogger("hub.transports.gate")

HEADER_TIMEOUT_S = 10.0
MIN_RESERVE_FDS = 64
LOG_INTERVAL_S = 10.0
ACCEPT_FAILED = "socket.accept() out of system resource"


def fd_limit() -> int | None:
    """The soft limit on open file descriptors (None: unlimited)."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return None if soft == resource.RLIM_INFINITY else int(soft)


def raise_fd_limit(target: int = 1 << 16) -> int | None:
    """Lift the soft descriptor limit towards ``target`` (never past the hard limit); the soft limit after."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = target if hard == resource.RLIM_INFINITY else min(target, hard)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        except (ValueError, OSError) as exc:
            log.warning("could not raise the open-file limit from %d to %d: %s", soft, wanted, exc)
    return fd_limit()


def fd_room(limit: int | None) -> int | None:
    """How many connections fit under a descriptor limit, keeping a reserve for everything else."""
    if limit is None:
        return None
    return max(1, limit - max(MIN_RESERVE_FDS, limit // 8))


class ConnectionGate:
    """Counts open connections, in total and per peer address, and refuses those past the limits."""

    def __init__(
        self,
        max_total: int,
        per_address: int,
        *,
        header_timeout_s: float = HEADER_TIMEOUT_S,
        descriptors: int | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        room = fd_room(descriptors if descriptors is not None else fd_limit())
        self.max_total = max_total if room is None else min(max_total, room)
        self.per_address = per_address
        self.header_timeout_s = header_timeout_s
        self.open: dict[asyncio.BaseTransport, str] = {}
        self.by_address: Counter[str] = Counter()
        self.refused = 0
        self.timed_out = 0
        self.accept_failures = 0
        self.log = Every(log, LOG_INTERVAL_S, clock)

    def __len__(self) -> int:
        return len(self.open)

    def admit(self, transport: asyncio.BaseTransport) -> str | None:
        """None when the connection may stay (counted until ``release``), else why it may not."""
        if transport in self.open:
            return None
        address = peer(transport)
        if len(self.open) >= self.max_total:
            why = f"the hub holds as many connections as it can ({self.max_total}); retry shortly"
        elif self.by_address[address] >= self.per_address:
            why = f"{self.per_address} connections from {address} are open already; close some or retry shortly"
        else:
            self.open[transport] = address
            self.by_address[address] += 1
            return None
        self.refused += 1
        self.log.note("connections refused (over the connection limits)", why)
        return why

    def release(self, transport: asyncio.BaseTransport | None) -> None:
        address = self.open.pop(transport, None) if transport is not None else None
        if address is not None:
            self.by_address[address] -= 1
            if self.by_address[address] <= 0:
                del self.by_address[address]

    def headers_late(self) -> None:
        self.timed_out += 1
        self.log.note("connections closed (request headers late)", f"no request within {self.header_timeout_s:g} s")

    def accept_failed(self, context: dict[str, Any]) -> None:
        self.accept_failures += 1
        self.log.note("accept() failures (out of file descriptors)", str(context.get("exception", "")), logging.ERROR)

    def stats(self) -> dict[str, int]:
        return {
            "open": len(self.open),
            "max": self.max_total,
            "refused": self.refused,
            "headers_late": self.timed_out,
            "accept_failures": self.accept_failures,
        }


def peer(transport: asyncio.BaseTransport) -> str:
    name = transport.get_extra_info("peername")
    return str(name[0]) if isinstance(name, (tuple, list)) and name else "unknown"


def refuse(transport: asyncio.BaseTransport, why: str) -> None:
    """Answer ``503 overloaded`` on a connection the gate will not hold, and close it."""
    body = json.dumps({"error": why, "code": Overloaded.code}).encode()
    head = (
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nretry-after: 1\r\nconnection: close\r\n\r\n"
    ).encode()
    if isinstance(transport, asyncio.WriteTransport):
        transport.write(head + body)
    transport.close()


def protocols(gate: ConnectionGate) -> tuple[type[asyncio.Protocol], type[asyncio.Protocol]]:
    """uvicorn's HTTP (h11) and WebSocket protocols, each connection counted by ``gate`` until it is lost."""
    ws_base: Any = AutoWebSocketsProtocol
    if ws_base is None:
        raise RuntimeError("no WebSocket implementation: install websockets")

    class GatedHTTP(H11Protocol):
        _gated: asyncio.BaseTransport | None = None
        _header_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.BaseTransport) -> None:  # type: ignore[override]
            why = gate.admit(transport)
            if why is not None:
                refuse(transport, why)
                return
            self._gated = transport
            super().connection_made(transport)  # type: ignore[arg-type]
            self._watch_headers()

        def data_received(self, data: bytes) -> None:
            if self._gated is None:
                return
            super().data_received(data)
            self._watch_headers()

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_timer()
            if self._gated is None:
                return
            gate.release(self._gated)
            super().connection_lost(exc)

        def _watch_headers(self) -> None:
            """Time the headers of the request being received; stop once they are in (or the socket upgraded)."""
            waiting = self.conn.their_state is h11.IDLE
            if waiting and self._header_timer is None:
                self._header_timer = self.loop.call_later(gate.header_timeout_s, self._headers_late)
            elif not waiting:
                self._stop_timer()

        def _headers_late(self) -> None:
            self._header_timer = None
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                gate.headers_late()
                self.transport.close()

        def _stop_timer(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

    class GatedWebSocket(ws_base):  # type: ignore[misc, valid-type]
        def connection_lost(self, exc: Exception | None) -> None:
            gate.release(self.transport)
            super().connection_lost(exc)

    return GatedHTTP, GatedWebSocket


class HubServer(uvicorn.Server):
    """uvicorn's server, whose loop reports ``accept()`` failures through the gate (once per interval)."""

    def __init__(self, config: uvicorn.Config, gate: ConnectionGate) -> None:
        super().__init__(config)
        self.gate = gate

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        quiet_accept_failures(asyncio.get_running_loop(), self.gate)
        await super().startup(sockets)


def quiet_accept_failures(loop: asyncio.AbstractEventLoop, gate: ConnectionGate) -> None:
    previous = loop.get_exception_handler()

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if context.get("message") == ACCEPT_FAILED:
            gate.accept_failed(context)
        elif previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(handler)


def server(
    app: Starlette,
    settings: Settings,
    *,
    host: str,
    port: int,
    header_timeout_s: float = HEADER_TIMEOUT_S,
    **options: Any,
) -> HubServer:
    """The uvicorn server for ``app``: gated connections, ``ws_max_size`` at the body limit; ``options`` go
    to ``uvicorn.Config`` (log_level, lifespan, ...)."""
    gate = ConnectionGate(
        settings.max_connections, settings.max_connections_per_address, header_timeout_s=header_timeout_s
    )
    app.state.gate = gate
    http, ws = protocols(gate)
    config = uvicorn.Config(app, host=host, port=port, http=http, ws=ws, ws_max_size=settings.max_body_bytes, **options)
    return HubServer(config, gate)
