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
import itertools
import json
import logging
import os
import re
import sys
import zlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, WebSocketException

from hub.config import Settings
from hub.errors import ProtocolError, ws_error, ws_reply
from hub.net import free_port
from hub.transports.ws import decode

log = logging.getLogger("prove_hub.shards")

READY_TIMEOUT_S = 180.0  # a worker builds its library and seed worlds before it answers
SESSION_LOST = "session_lost"
HOP_HEADERS = frozenset(
    {"connection", "keep-alive", "transfer-encoding", "upgrade", "content-length", "te", "trailer", "host"}
)
SESSION_PATH = re.compile(r"^/(?:api/sessions|ui/sessions|sessions)/([^/]+)")
EPISODE_PATH = re.compile(r"^/ui/(?:sse/)?episodes/([^/]+)")
FANOUT = frozenset({"subscribe", "unsubscribe", "flush", "run_start", "run_end"})
ALL_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]


def workers_from(text: str) -> int:
    """``--workers``: a count, or ``auto`` (one per core)."""
    if text == "auto":
        return max(1, os.cpu_count() or 1)
    try:
        n = int(text)
    except ValueError:
        raise ValueError(f"--workers takes a count or 'auto', not {text!r}") from None
    if n < 1:
        raise ValueError("--workers must be at least 1")
    return n


def worker_env(settings: Settings, shard: int, workers: int, port: int, restarted: bool) -> dict[str, str]:
    """The environment a worker reads its settings from (``Settings.from_env``): the front's settings on a loopback
    port, the memory budget split between the shards."""
    env = dict(os.environ)
    values = settings.model_dump(exclude_none=True)
    values.update(host="127.0.0.1", port=port, shard=shard, shard_restarted=restarted)
    if settings.max_state_bytes is not None:
        values["max_state_bytes"] = max(1, settings.max_state_bytes // workers)
    for name, value in values.items():
        key = f"HUB_{name.upper()}"
        if isinstance(value, list):
            env[key] = ",".join(value)
        elif hasattr(value, "isoformat"):
            env[key] = value.isoformat()
        else:
            env[key] = str(value).lower() if isinstance(value, bool) else str(value)
    for name in Settings.model_fields:  # a field left None must not inherit the caller's variable
        if name not in values:
            env.pop(f"HUB_{name.upper()}", None)
    return env


@dataclass
class Shard:
    """One worker process and the generation of it that serves now (a restart starts the next one)."""

    index: int
    port: int = 0
    generation: int = 0
    process: asyncio.subprocess.Process | None = None
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    restarts: int = 0

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"


class Lost(Exception):
    """A session or episode whose shard died after it was placed there."""

    def __init__(self, what: str, key: str, shard: int) -> None:
        super().__init__(
            f"{what} {key!r} was on shard {shard}, which died and was restarted: its state is gone "
            f"(episodes there ended interrupted, reason shard_lost); open a new one"
        )


@dataclass
class Table:
    """Where sessions, episodes and snapshots live: key -> (shard, generation)."""

    shards: list[Shard]
    sessions: dict[str, tuple[int, int]] = field(default_factory=dict)
    episodes: dict[str, tuple[int, int]] = field(default_factory=dict)
    snapshots: dict[str, tuple[int, int]] = field(default_factory=dict)
    _next: itertools.count[int] = field(default_factory=itertools.count)

    def place(self, key: str) -> int:
        return zlib.crc32(key.encode()) % len(self.shards)

    def round_robin(self) -> int:
        return next(self._next) % len(self.shards)

    def stamp(self, index: int) -> tuple[int, int]:
        return index, self.shards[index].generation

    def live(self, what: str, key: str, entry: tuple[int, int]) -> int:
        index, generation = entry
        if self.shards[index].generation != generation:
            raise Lost(what, key, index)
        return index

    def session(self, sid: str) -> int:
        entry = self.sessions.get(sid)
        if entry is None:
            entry = self.sessions[sid] = self.stamp(self.place(sid))
        return self.live("session", sid, entry)

    def episode(self, eid: str) -> int | None:
        entry = self.episodes.get(eid)
        return None if entry is None else self.live("episode", eid, entry)

    def snapshot(self, snap: str) -> int | None:
        entry = self.snapshots.get(snap)
        return None if entry is None else self.live("snapshot", snap, entry)


class Supervisor:
    """Starts the workers, waits until they answer, restarts one that dies."""

    def __init__(self, settings: Settings, workers: int, log_level: str = "warning") -> None:
        self.settings = settings
        self.shards = [Shard(i) for i in range(workers)]
        self.log_level = log_level
        self.stopping = False
        self.on_restart: Callable[[Shard], None] | None = None
        self._watchers: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        await asyncio.gather(*(self._spawn(s, restarted=False) for s in self.shards))
        self._watchers = [asyncio.create_task(self._watch(s), name=f"shard-{s.index}") for s in self.shards]

    async def _spawn(self, shard: Shard, restarted: bool) -> None:
        shard.ready.clear()
        shard.port = free_port()
        env = worker_env(self.settings, shard.index, len(self.shards), shard.port, restarted)
        shard.process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "hub.cli", "serve", "--log-level", self.log_level, env=env
        )
        await self._wait_ready(shard)
        shard.ready.set()

    async def _wait_ready(self, shard: Shard) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + READY_TIMEOUT_S
        async with httpx.AsyncClient(base_url=shard.base, timeout=5) as client:
            while True:
                assert shard.process is not None
                if shard.process.returncode is not None:
                    raise RuntimeError(f"shard {shard.index} exited with {shard.process.returncode} while starting")
                with contextlib.suppress(httpx.TransportError):
                    if (await client.get("/healthz")).status_code < 500:
                        return
                if loop.time() > deadline:
                    raise RuntimeError(f"shard {shard.index} did not answer within {READY_TIMEOUT_S:.0f} s")
                await asyncio.sleep(0.05)  # a readiness probe of a child process: no event to wait on

    async def _watch(self, shard: Shard) -> None:
        while not self.stopping:
            assert shard.process is not None
            code = await shard.process.wait()
            if self.stopping:
                return
            log.error("shard %d (pid %d) exited with %s: restarting it", shard.index, shard.process.pid, code)
            shard.generation += 1
            shard.restarts += 1
            if self.on_restart is not None:
                self.on_restart(shard)
            try:
                await self._spawn(shard, restarted=True)
            except RuntimeError as exc:
                log.error("could not restart shard %d: %s", shard.index, exc)
                return

    async def stop(self) -> None:
        self.stopping = True
        for shard in self.shards:
            if shard.process is not None and shard.process.returncode is None:
                shard.process.terminate()
        for shard in self.shards:
            if shard.process is not None:
                try:
                    await asyncio.wait_for(shard.process.wait(), 30)
                except TimeoutError:
                    shard.process.kill()
                    await shard.process.wait()
        for task in self._watchers:
            task.cancel()
        await asyncio.gather(*self._watchers, return_exceptions=True)


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
                "pid": s.process.pid if s.process is not None else None,
            }
            for s in self.shards
        ]
        ok = all(s["ready"] for s in shards)
        return JSONResponse({"ok": ok, "workers": len(self.shards), "shards": shards}, status_code=200 if ok else 503)

    async def metrics(self, request: Request) -> Response:
        body = await request.body()
        replies = await asyncio.gather(*(self._forward(i, request, body) for i in range(len(self.shards))))
        if any(r.status_code != 200 for r in replies):
            bad = next(r for r in replies if r.status_code != 200)
            return Response(bad.content, bad.status_code, media_type=bad.headers.get("content-type"))
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
        await RolloutRelay(self, websocket).run()

    async def passthrough_ws(self, websocket: WebSocket) -> None:
        """Any other WebSocket route (a door's own socket): shard 0, byte for byte."""
        await websocket.accept()
        url = f"ws://127.0.0.1:{self.shards[0].port}{websocket.url.path}"
        async with connect(url, additional_headers=_ws_headers(websocket), max_size=None) as upstream:
            await _pipe(websocket, upstream)


class RolloutRelay:
    """One client's ``/ws`` across the shards: one upstream socket per shard used, replies matched by id."""

    def __init__(self, front: Front, websocket: WebSocket) -> None:
        self.front, self.ws, self.table = front, websocket, front.table
        self.upstreams: dict[int, tuple[ClientConnection, int]] = {}  # shard -> (socket, generation)
        self.pending: dict[str, tuple[asyncio.Future[dict[str, Any]], int]] = {}  # internal id -> (reply, shard)
        self.hello: dict[str, Any] | None = None
        self.readers: list[asyncio.Task[None]] = []
        self.ids = itertools.count()
        self.send_lock = asyncio.Lock()
        self.connect_lock = asyncio.Lock()
        self.jobs: set[asyncio.Task[None]] = set()

    async def run(self) -> None:
        await self.ws.accept()
        try:
            while True:
                raw = await self.ws.receive_text()
                job = asyncio.create_task(self.handle(raw))
                self.jobs.add(job)
                job.add_done_callback(self.jobs.discard)
        except WebSocketDisconnect:
            pass
        finally:
            for job in list(self.jobs):
                job.cancel()
            for task in self.readers:
                task.cancel()
            for socket, _ in self.upstreams.values():
                with contextlib.suppress(Exception):  # noqa: BLE001 - closing a socket that may be gone
                    await socket.close()
            await asyncio.gather(*self.readers, *self.jobs, return_exceptions=True)

    async def reply(self, data: dict[str, Any]) -> None:
        async with self.send_lock:
            with contextlib.suppress(WebSocketDisconnect, RuntimeError):
                await self.ws.send_text(json.dumps(data))

    async def handle(self, raw: str) -> None:
        try:
            req = json.loads(raw)
        except ValueError:
            req = None
        if not isinstance(req, dict) or not isinstance(req.get("type"), str):
            await self.reply(_protocol_error(raw))
            return
        rid, kind = req.get("id"), req["type"]
        try:
            out = await self.dispatch(kind, req)
        except Lost as exc:
            out = {"type": "error", "code": SESSION_LOST, "message": str(exc)}
        if rid is not None:
            out["id"] = rid
        else:
            out.pop("id", None)
        await self.reply(out)

    async def dispatch(self, kind: str, req: dict[str, Any]) -> dict[str, Any]:
        if kind == "hello":
            self.hello = dict(req)
            shards = sorted({0, *self.upstreams})
            replies = await asyncio.gather(*(self.call(i, req, greet=False) for i in shards))
            return replies[0]
        if kind in ("step", "finish"):
            found = self.table.episode(str(req.get("episode")))
            return await self.call(0 if found is None else found, req)
        if kind == "close":
            return await self.close(req)
        if kind in FANOUT:
            replies = await asyncio.gather(*(self.call(i, req) for i in range(len(self.front.shards))))
            return replies[0]
        if kind == "open":
            index = self.table.round_robin()
            out = await self.call(index, req)
            if out.get("type") == "opened":
                for ep in out.get("episodes", []):
                    self.table.episodes[ep["episode"]] = self.table.stamp(index)
                    self.table.sessions[ep["session"]] = self.table.stamp(index)
            return out
        return await self.call(0, req)

    async def close(self, req: dict[str, Any]) -> dict[str, Any]:
        by_shard: dict[int, list[str]] = {}
        unknown: list[str] = []
        for eid in req.get("episodes") or []:
            try:
                found = self.table.episode(str(eid))
            except Lost:
                found = None
            if found is None:
                unknown.append(eid)
            else:
                by_shard.setdefault(found, []).append(eid)
        if not by_shard:
            by_shard[0] = []
        replies = await asyncio.gather(*(self.call(i, {**req, "episodes": eps}) for i, eps in by_shard.items()))
        if any(r.get("type") != "closed" for r in replies):
            return next(r for r in replies if r.get("type") != "closed")
        return {
            "type": "closed",
            "episodes": [e for r in replies for e in r.get("episodes", [])],
            "unknown": unknown + [e for r in replies for e in r.get("unknown", [])],
        }

    async def upstream(self, index: int, greet: bool) -> ClientConnection:
        """This client's socket to shard ``index`` (a new one after the shard restarted), greeted with the
        client's ``hello`` when it sent one."""
        async with self.connect_lock:
            shard = self.front.shards[index]
            have = self.upstreams.get(index)
            if have is not None and have[1] == shard.generation:
                return have[0]
            await asyncio.wait_for(shard.ready.wait(), READY_TIMEOUT_S)
            socket = await connect(
                f"ws://127.0.0.1:{shard.port}/ws", additional_headers=_ws_headers(self.ws), max_size=None
            )
            self.upstreams[index] = (socket, shard.generation)
            self.readers.append(asyncio.create_task(self.read(index, socket)))
            if greet and self.hello is not None:
                await self._exchange(index, socket, self.hello)
            return socket

    async def _exchange(self, index: int, socket: ClientConnection, req: dict[str, Any]) -> dict[str, Any]:
        key = f"front-{next(self.ids)}"
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.pending[key] = (future, index)
        await socket.send(json.dumps({**req, "id": key}))
        return await future

    async def call(self, index: int, req: dict[str, Any], greet: bool = True) -> dict[str, Any]:
        try:
            socket = await self.upstream(index, greet)
            return await self._exchange(index, socket, req)
        except (WebSocketException, OSError) as exc:
            raise Lost("connection", f"shard-{index}", index) from exc

    async def read(self, index: int, socket: ClientConnection) -> None:
        try:
            async for raw in socket:
                data = json.loads(raw)
                key = data.get("id") if isinstance(data, dict) else None
                if isinstance(key, str) and key in self.pending:
                    future, _ = self.pending.pop(key)
                    if not future.done():
                        future.set_result(data)
                elif isinstance(data, dict) and data.get("type") == "event":
                    await self.reply(data)
        except ConnectionClosed:
            pass
        finally:
            self._fail_pending(index)

    def _fail_pending(self, index: int) -> None:
        for key, (future, shard) in list(self.pending.items()):
            if shard == index and not future.done():
                self.pending.pop(key)
                future.set_result(
                    {
                        "type": "error",
                        "code": SESSION_LOST,
                        "message": f"shard {index} died while this request ran there: its episodes ended "
                        "interrupted (reason shard_lost); open new ones",
                    }
                )


def _protocol_error(raw: str) -> dict[str, Any]:
    """The hub's own reply to a message that is not a typed JSON object."""
    try:
        decode(raw)
    except ProtocolError as exc:
        return ws_reply(exc)
    return ws_error("bad_message", "a message must be a JSON object with a type")


def _headers(items: Any, host: str | None = None, shard: int | None = None) -> dict[str, str]:
    out = {k: v for k, v in items if k.lower() not in HOP_HEADERS}
    if host:
        out["host"] = host
    if shard is not None:
        out["x-hub-shard"] = str(shard)  # which shard answered: for operators and the routing tests
    return out


def _ws_headers(websocket: WebSocket) -> dict[str, str]:
    keep = ("authorization", "origin", "user-agent", "x-hub-session")  # the client library writes Host itself
    return {k: v for k, v in websocket.headers.items() if k.lower() in keep}


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
