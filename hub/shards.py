"""Shards: ``prove-hub serve --workers N`` runs N full hubs in worker processes behind one front.

Each worker is an ordinary hub (``prove-hub serve``) on its own loopback port, started with ``HUB_SHARD=k``: it
shares the episode store with the others and ends only its own episodes. The front owns the public URL and a
routing table:

- a session lives on one shard: a named session is placed by a hash of its id, an unnamed open goes round robin;
  a fork stays on its parent's shard, a session opened from a snapshot on the shard that took it;
- a ``/ws`` connection opens one upstream connection per shard it uses: ``open`` goes round robin (the whole
  GRPO group on one shard), ``step``/``finish`` follow their episode, ``close``/``subscribe``/``flush`` fan out;
- ``/metrics`` sums the shards' samples; ``/healthz`` answers from the front; the rest (catalog, tasks, the
  dashboard's store pages) goes to shard 0, since every shard reads the one store.

A worker that dies is restarted (``HUB_SHARD_RESTARTED=1``: its store marks the episodes it left open
``interrupted`` with reason ``shard_lost``). Sessions and episodes the table placed on the dead generation answer
``session_lost`` (HTTP 410, a ``/ws`` error): never a silent fresh state under an old id.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket
from websockets.asyncio.client import ClientConnection, connect

from hub import shard_merge
from hub.shard_relay import UPSTREAM, RolloutRelay, _ws_headers
from hub.shard_workers import READY_TIMEOUT_S, SESSION_LOST, Lost, Supervisor, Table

log = logging.getLogger("prove_hub.shards")

HOP_HEADERS = frozenset(
    {"connection", "keep-alive", "transfer-encoding", "upgrade", "content-length", "te", "trailer", "host"}
)
SESSION_PATH = re.compile(r"^/(?:api/sessions|ui/sessions|sessions)/([^/]+)")
EPISODE_PATH = re.compile(r"^/ui/(?:sse/)?episodes/([^/]+)")
# GETs the front answers from every shard (the dashboard shows the whole hub): path -> how answers merge
JOINED = {"/api/sessions": shard_merge.session_lists, "/ui/sessions": shard_merge.session_pages}
MERGED_STREAM = re.compile(r"^/ui/sse/(?:overview|episodes|training/[^/]+)$")  # an episode's own stream is routed
ALL_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]


def lost_reply(exc: Lost) -> JSONResponse:
    return JSONResponse({"error": str(exc), "code": SESSION_LOST}, status_code=410)


def sum_metrics(texts: list[str]) -> str:
    """Prometheus text of several shards with each sample summed over them (a ``*_mean`` gauge averaged; comments
    from the first)."""
    order: list[str] = []
    totals: dict[str, float] = {}
    for text in texts:
        for line in text.splitlines():
            if not line.strip():
                continue
            if line.startswith("#"):
                if line not in totals and line not in order:
                    order.append(line)
                continue
            key, _, value = line.rpartition(" ")
            try:
                number = float(value)
            except ValueError:
                continue
            if key not in totals:
                order.append(key)
                totals[key] = 0.0
            totals[key] += number
    counts = {key: sum(1 for text in texts if f"\n{key} " in f"\n{text}") for key in totals}
    for key in totals:
        if key.split("{")[0].endswith("_mean") and counts[key]:
            totals[key] /= counts[key]  # a mean is not a sum: the shards' means, averaged
    out = [line if line.startswith("#") else f"{line} {_number(totals[line])}" for line in order]
    return "\n".join(out) + "\n"


def _number(value: float) -> str:
    return str(int(value)) if value.is_integer() else repr(value)


class Front:
    """The public side of a sharded hub: the routing table and the proxy routes."""

    def __init__(self, supervisor: Supervisor) -> None:
        self.supervisor = supervisor
        self.shards = supervisor.shards
        self.table = Table(self.shards)
        self.clients: list[httpx.AsyncClient] = []

    # lifecycle --------------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        await self.supervisor.start()
        try:
            yield
        finally:
            for client in self.clients:
                await client.aclose()
            await self.supervisor.stop()

    async def client(self, index: int) -> httpx.AsyncClient:
        shard = self.shards[index]
        await asyncio.wait_for(shard.ready.wait(), READY_TIMEOUT_S)
        while len(self.clients) <= index:
            self.clients.append(httpx.AsyncClient(timeout=None, limits=httpx.Limits(max_connections=None)))
        return self.clients[index]

    def app(self) -> Starlette:
        app = Starlette(
            routes=[
                Route("/healthz", self.healthz),
                Route("/metrics", self.metrics),
                WebSocketRoute("/ws", self.rollout_ws),
                Route("/{path:path}", self.proxy, methods=ALL_METHODS),
                WebSocketRoute("/{path:path}", self.passthrough_ws),
            ],
            lifespan=self.lifespan,
        )
        app.state.front = self
        return app

    # HTTP -------------------------------------------------------------------------------------

    async def healthz(self, request: Request) -> JSONResponse:
        shards = [
            {
                "shard": s.index,
                "ready": s.ready.is_set(),
                "generation": s.generation,
                "restarts": s.restarts,
                "pid": s.pid,
                "host": s.host,
                **({"node": s.node} if s.node else {}),
            }
            for s in self.shards
        ]
        ok = all(s["ready"] for s in shards)
        body = {"ok": ok, "workers": len(self.shards), "shards": shards, **self.supervisor.about()}
        return JSONResponse(body, status_code=200 if ok else 503)

    async def metrics(self, request: Request) -> Response:
        replies = await self._everywhere(request, await request.body())
        if isinstance(replies, Response):
            return replies
        return PlainTextResponse(sum_metrics([r.text for r in replies]), media_type="text/plain; version=0.0.4")

    def route(self, request: Request, body: bytes) -> int:
        """The shard a request goes to (raises ``Lost``)."""
        path = request.url.path
        if match := SESSION_PATH.match(path):
            return self.table.session(match.group(1))
        if match := EPISODE_PATH.match(path):
            found = self.table.episode(match.group(1))
            return 0 if found is None else found
        if path.startswith("/mcp"):
            hint = request.headers.get("x-hub-session") or request.headers.get("mcp-session-id")
            return self.table.session(hint) if hint else self.table.session("default")
        if path == "/api/sessions" and request.method == "POST":
            return self._place_open(body)
        return 0

    def _place_open(self, body: bytes) -> int:
        try:
            data = json.loads(body or b"{}")
        except ValueError:
            return 0  # shard 0 answers the bad body
        if not isinstance(data, dict):
            return 0
        if isinstance(data.get("snapshot"), str) and (found := self.table.snapshot(data["snapshot"])) is not None:
            return found
        if isinstance(data.get("id"), str):
            return self.table.session(data["id"])
        return self.table.round_robin()

    async def proxy(self, request: Request) -> Response:
        body = await request.body()
        if request.method == "GET" and len(self.shards) > 1 and (merge := JOINED.get(request.url.path)):
            return await self.joined(request, body, merge)
        if request.method == "GET" and len(self.shards) > 1 and MERGED_STREAM.match(request.url.path):
            return await self.merged_stream(request, body)
        try:
            index = self.route(request, body)
        except Lost as exc:
            return lost_reply(exc)
        try:
            upstream = await self._send(index, request, body)
        except httpx.TransportError:
            return self._unreachable(index, request)
        if upstream.headers.get("content-type", "").startswith("text/event-stream"):
            return StreamingResponse(
                _stream(upstream), upstream.status_code, headers=_headers(upstream.headers.items(), shard=index)
            )
        content = await upstream.aread()
        await upstream.aclose()
        if upstream.status_code == 201 and request.method == "POST":
            self._learn(index, request.url.path, content)
        return Response(content, upstream.status_code, headers=_headers(upstream.headers.items(), shard=index))

    async def _everywhere(self, request: Request, body: bytes) -> list[httpx.Response] | Response:
        """The request's answer from every shard, or the first failure to pass on."""
        try:
            replies = await asyncio.gather(*(self._forward(i, request, body) for i in range(len(self.shards))))
        except httpx.TransportError:
            return _unavailable()
        bad = next((r for r in replies if r.status_code != 200), None)
        if bad is not None:
            return Response(bad.content, bad.status_code, headers=_headers(bad.headers.items()))
        return replies

    async def joined(self, request: Request, body: bytes, merge: Callable[[list[bytes]], bytes]) -> Response:
        """A GET answered by every shard, their answers merged into one."""
        replies = await self._everywhere(request, body)
        if isinstance(replies, Response):
            return replies
        return Response(merge([r.content for r in replies]), 200, headers=_headers(replies[0].headers.items()))

    async def merged_stream(self, request: Request, body: bytes) -> Response:
        try:
            upstreams = list(await asyncio.gather(*(self._send(i, request, body) for i in range(len(self.shards)))))
        except httpx.TransportError:
            return _unavailable()
        bad = next((u for u in upstreams if u.status_code != 200), None)
        if bad is not None:
            content = await bad.aread()
            for upstream in upstreams:
                await upstream.aclose()
            return Response(content, bad.status_code, headers=_headers(bad.headers.items()))
        headers = _headers(upstreams[0].headers.items())
        return StreamingResponse(shard_merge.merged(upstreams), 200, headers=headers)

    def _unreachable(self, index: int, request: Request) -> JSONResponse:
        """The shard died under this request: what lived there is lost (it restarts for new sessions)."""
        if SESSION_PATH.match(request.url.path) or request.url.path.startswith("/sessions/"):
            return lost_reply(Lost("session", request.url.path.split("/")[3], index))
        message = f"shard {index} is restarting after it died; try again"
        return JSONResponse({"error": message, "code": "shard_unavailable"}, status_code=503)

    def _learn(self, index: int, path: str, content: bytes) -> None:
        """Record what a successful open, fork or snapshot made, on the shard that made it."""
        with contextlib.suppress(ValueError):
            made = json.loads(content).get("id")
            if not isinstance(made, str):
                return
            if path.endswith("/snapshot"):
                self.table.snapshots[made] = self.table.stamp(index)
            else:
                self.table.sessions[made] = self.table.stamp(index)

    async def _send(self, index: int, request: Request, body: bytes) -> httpx.Response:
        client = await self.client(index)
        built = client.build_request(
            request.method,
            self.shards[index].base + request.url.path,
            params=request.url.query,
            headers=_headers(request.headers.items(), host=request.headers.get("host")),
            content=body,
        )
        return await client.send(built, stream=True)

    async def _forward(self, index: int, request: Request, body: bytes) -> httpx.Response:
        upstream = await self._send(index, request, body)
        await upstream.aread()
        await upstream.aclose()
        return upstream

    # WebSockets -------------------------------------------------------------------------------

    async def rollout_ws(self, websocket: WebSocket) -> None:
        await RolloutRelay(self.shards, self.table, websocket).run()

    async def passthrough_ws(self, websocket: WebSocket) -> None:
        """Any other WebSocket route (a door's own socket): shard 0, byte for byte."""
        await websocket.accept()
        url = f"{self.shards[0].ws_base}{websocket.url.path}"
        async with connect(url, additional_headers=_ws_headers(websocket), **UPSTREAM) as upstream:
            await _pipe(websocket, upstream)


def _unavailable() -> JSONResponse:
    return JSONResponse({"error": "a shard is restarting; try again", "code": "shard_unavailable"}, 503)


def _headers(items: Any, host: str | None = None, shard: int | None = None) -> dict[str, str]:
    out = {k: v for k, v in items if k.lower() not in HOP_HEADERS}
    if host:
        out["host"] = host
    if shard is not None:
        out["x-hub-shard"] = str(shard)  # which shard answered: for operators and the routing tests
    return out


async def _stream(upstream: httpx.Response) -> AsyncIterator[bytes]:
    try:
        async for chunk in upstream.aiter_raw():
            yield chunk
    finally:
        await upstream.aclose()


async def _pipe(websocket: WebSocket, upstream: ClientConnection) -> None:
    async def down() -> None:
        async for message in upstream:
            if isinstance(message, bytes):
                await websocket.send_bytes(message)
            else:
                await websocket.send_text(message)

    task = asyncio.create_task(down())
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
            if message.get("text") is not None:
                await upstream.send(message["text"])
            elif message.get("bytes") is not None:
                await upstream.send(message["bytes"])
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
