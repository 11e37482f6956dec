"""One client's ``/ws`` across the shards of a sharded hub (``hub.shards``): one upstream socket per shard used.

``open`` goes round robin (a whole GRPO group on one shard), ``step``/``finish`` follow their episode,
``close`` goes to the shards that hold its episodes, ``subscribe``/``flush``/runs fan out; replies are matched
by id and events of every shard reach the client.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, WebSocketException

from hub.errors import ProtocolError, ws_error, ws_reply
from hub.shard_workers import READY_TIMEOUT_S, SESSION_LOST, Lost, Shard, Table
from hub.transports.ws import decode

# A socket to a shard: no compression (CPU on both ends for loopback bytes) and no keepalive pings: a shard busy
# past a ping timeout is alive, and the supervisor learns of a dead one from its process (or actor) ending.
UPSTREAM: dict[str, Any] = {"max_size": None, "compression": None, "ping_interval": None}
FANOUT = frozenset({"subscribe", "unsubscribe", "flush", "run_start", "run_end"})


class RolloutRelay:
    """One client's ``/ws`` across the shards: one upstream socket per shard used, replies matched by id."""

    def __init__(self, shards: list[Shard], table: Table, websocket: WebSocket) -> None:
        self.shards, self.ws, self.table = shards, websocket, table
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
            replies = await asyncio.gather(*(self.call(i, req) for i in range(len(self.shards))))
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
            shard = self.shards[index]
            have = self.upstreams.get(index)
            if have is not None and have[1] == shard.generation:
                return have[0]
            await asyncio.wait_for(shard.ready.wait(), READY_TIMEOUT_S)
            socket = await connect(f"{shard.ws_base}/ws", additional_headers=_ws_headers(self.ws), **UPSTREAM)
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


def _ws_headers(websocket: WebSocket) -> dict[str, str]:
    keep = ("authorization", "origin", "user-agent", "x-hub-session")  # the client library writes Host itself
    return {k: v for k, v in websocket.headers.items() if k.lower() in keep}
