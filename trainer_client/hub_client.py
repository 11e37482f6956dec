"""An async client of the hub's rollout WebSocket protocol (``prove-ws`` v1, docs/protocol.md).

    async with HubClient("ws://127.0.0.1:8765/ws", token=None) as hub:
        group = await hub.open("bank-transfer-002", n=8)          # one GRPO group
        for ep in group.episodes:
            obs = await hub.step(ep, model_text)                  # raw model output
            ...
            reward = await hub.finish(ep)                         # reward["total"], reward["components"]
        await hub.close_episodes(group.episodes)

Requests are pipelined over one connection (replies are matched by ``id``). If the connection
drops, the next request reconnects (with backoff) and says hello again; a request that was in
flight fails with ``HubConnectionError``, except idempotent ones (hello, ping, tasks, finish,
stats, flush), which are retried once. Episodes live in the hub, not in the connection, so a
reconnected client continues them.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from hub import wire

PROTOCOL_VERSION = wire.VERSION
IDEMPOTENT = frozenset({"hello", "ping", "tasks", "finish", "stats", "flush", "subscribe", "unsubscribe"})


class HubError(Exception):
    """The hub refused a request: ``code`` is the error type (docs/protocol.md), ``message`` says why."""

    def __init__(self, code: str, message: str, request: str | None = None) -> None:
        super().__init__(f"{code}: {message}" + (f" (in reply to {request})" if request else ""))
        self.code = code
        self.message = message
        self.request = request


class HubConnectionError(HubError):
    """The hub cannot be reached, or the connection dropped while a request was in flight."""

    def __init__(self, message: str, request: str | None = None) -> None:
        super().__init__("connection", message, request)


@dataclass
class Group:
    """An opened GRPO group: the episodes, their shared start state, the tools and first messages."""

    group: str
    task: str
    kind: str
    state_hash: str
    episodes: list[str]
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    raw: dict[str, Any] = field(repr=False, default_factory=dict)


class HubClient:
    def __init__(
        self,
        url: str,
        token: str | None = None,
        *,
        client: str = "prove-trainer",
        connect_timeout: float = 10.0,
        request_timeout: float = 120.0,
        reconnect: bool = True,
        retries: int = 5,
        backoff: float = 0.2,
        event_queue: int = 1000,
        max_size: int = 64 * 2**20,
    ) -> None:
        self.url = url
        self.token = token
        self.client = client
        self.connect_timeout = connect_timeout
        self.request_timeout = request_timeout
        self.reconnect = reconnect
        self.retries = retries
        self.backoff = backoff
        self.max_size = max_size
        self.welcome: dict[str, Any] | None = None
        self.events: asyncio.Queue[dict[str, Any]] = asyncio.Queue(event_queue)
        self.events_dropped = 0
        self.reconnects = 0
        self._ws: ClientConnection | None = None
        self._reader: asyncio.Task[None] | None = None
        self._pending: dict[int, tuple[str, asyncio.Future[dict[str, Any]]]] = {}
        self._ids = itertools.count(1)
        self._connect_lock = asyncio.Lock()
        self._subscription: dict[str, Any] | None = None
        self._closed = False

    # Connection -------------------------------------------------------------------------------

    async def __aenter__(self) -> HubClient:
        await self.connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def connected(self) -> bool:
        return self._ws is not None and self._reader is not None and not self._reader.done()

    async def connect(self) -> dict[str, Any]:
        """Connect (retrying with backoff) and say hello; returns the hub's welcome."""
        async with self._connect_lock:
            if self.connected:
                assert self.welcome is not None
                return self.welcome
            self._closed = False
            last: Exception | None = None
            for attempt in range(max(1, self.retries)):
                try:
                    return await self._connect_once()
                except HubConnectionError as exc:
                    last = exc
                    await asyncio.sleep(self.backoff * 2**attempt)
            raise HubConnectionError(f"cannot connect to {self.url} after {self.retries} attempts: {last}")

    async def _connect_once(self) -> dict[str, Any]:
        try:
            ws = await asyncio.wait_for(
                connect(self.url, max_size=self.max_size, compression=None, open_timeout=self.connect_timeout),
                self.connect_timeout,
            )
        except (OSError, TimeoutError, InvalidHandshake, InvalidURI) as exc:
            raise HubConnectionError(f"cannot open {self.url}: {exc}") from exc
        self._ws = ws
        self._reader = asyncio.create_task(self._read(ws))
        hello = wire.Hello(type="hello", version=PROTOCOL_VERSION, client=self.client, token=self.token or None)
        self.welcome = await self._send(encode(hello))
        if self._subscription is not None:
            await self._send(self._subscription)
        return self.welcome

    async def close(self) -> None:
        self._closed = True
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        self._ws = self._reader = None

    async def _read(self, ws: ClientConnection) -> None:
        reason = "connection closed"
        try:
            async for raw in ws:
                self._on_message(raw)
        except ConnectionClosed as exc:
            reason = f"connection closed ({exc})"
        finally:
            for name, fut in self._pending.values():
                if not fut.done():
                    fut.set_exception(HubConnectionError(reason, name))
                    fut.exception()  # its waiter raises it; a waiter that is gone must not leave it "never retrieved"
            self._pending.clear()

    def _on_message(self, raw: str | bytes) -> None:
        data = json.loads(raw)
        if data.get("type") == "event":
            if self.events.full():
                self.events.get_nowait()
                self.events_dropped += 1
            self.events.put_nowait(data)
            return
        entry = self._pending.pop(data.get("id"), None) if isinstance(data.get("id"), int) else None
        if entry is not None and not entry[1].done():
            entry[1].set_result(data)

    # Requests ---------------------------------------------------------------------------------

    async def send(self, message: wire.Msg) -> dict[str, Any]:
        """Send one typed request (``hub.wire``) and return its reply."""
        return await self.request(encode(message))

    async def request(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send one request and return its reply; raise HubError on an ``error`` reply."""
        kind = str(message.get("type"))
        for attempt in (0, 1):
            if not self.connected:
                if self._closed or not (self.reconnect or self.welcome is None):
                    raise HubConnectionError("not connected", kind)
                if self.welcome is not None:
                    self.reconnects += 1
                await self.connect()
            try:
                return await self._send(message)
            except HubConnectionError:
                if attempt or kind not in IDEMPOTENT or not self.reconnect:
                    raise
        raise AssertionError("unreachable")

    async def _send(self, message: dict[str, Any]) -> dict[str, Any]:
        ws = self._ws
        kind = str(message.get("type"))
        if ws is None:
            raise HubConnectionError("not connected", kind)
        if self._reader is None or self._reader.done():  # the connection is already lost: no reply can come
            raise HubConnectionError("connection closed", kind)
        rid = next(self._ids)
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[rid] = (kind, fut)
        try:
            await ws.send(json.dumps({**message, "id": rid}))
        except ConnectionClosed as exc:
            self._pending.pop(rid, None)
            raise HubConnectionError(f"connection closed while sending ({exc})", kind) from exc
        try:
            reply = await asyncio.wait_for(fut, self.request_timeout)
        except TimeoutError:
            self._pending.pop(rid, None)
            raise HubConnectionError(f"no reply within {self.request_timeout} s", kind) from None
        if reply.get("type") == "error":
            raise HubError(reply.get("code", "error"), reply.get("message", ""), kind)
        return reply

    # The protocol -----------------------------------------------------------------------------

    async def ping(self) -> dict[str, Any]:
        return await self.send(wire.Ping(type="ping"))

    async def tasks(self, kind: str | None = None, full: bool = False, oracle: bool = False) -> list[dict[str, Any]]:
        """The hub's tasks: summaries, or whole task objects with ``full`` (each with ``oracle``, the messages
        of a perfect policy, when asked)."""
        fields: dict[str, Any] = {"oracle": True} if oracle else {}
        reply = await self.send(wire.Tasks(type="tasks", kind=kind, full=full or oracle, **fields))  # type: ignore[arg-type]
        return list(reply["tasks"])

    async def open(
        self,
        task: str | dict[str, Any],
        n: int = 1,
        limits: dict[str, Any] | None = None,
        *,
        run: str | None = None,
        step: int | None = None,
        step_reward: bool = False,
    ) -> Group:
        """Open a group of ``n`` episodes of ``task`` (an id or an inline task object); ``run`` and
        ``step`` tie the group to a training run and its optimizer step (sent only when given); with
        ``step_reward`` every observation carries ``reward``, the reward so far."""
        fields: dict[str, Any] = {"task": task, "n": n}
        if step_reward:
            fields["step_reward"] = True
        if limits:
            fields["limits"] = limits
        if run is not None:
            fields["run"] = run
        if step is not None:
            fields["step"] = step
        r = await self.send(wire.Open(type="open", **fields))
        return Group(
            r["group"],
            r["task"],
            r["kind"],
            r["state_hash"],
            [e["episode"] for e in r["episodes"]],
            r["messages"],
            r["tools"],
            r,
        )

    async def step(
        self, episode: str, text: str | None = None, *, message: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Send the model's raw output (or an OpenAI assistant ``message``); get the observation."""
        if message is not None:
            return await self.send(wire.Step(type="step", episode=episode, message=message))
        return await self.send(wire.Step(type="step", episode=episode, text=text if text is not None else ""))

    async def finish(
        self, episode: str, reward: dict[str, Any] | None = None, *, truncated: bool = False
    ) -> dict[str, Any]:
        """End and score an episode; returns the reward breakdown (``total``, ``components``, ...). ``truncated``:
        the episode was cut (a turn hit its token limit): it is scored on the calls made so far and marked so."""
        fields: dict[str, Any] = {"reward": reward} if reward else {}
        if truncated:
            fields["truncated"] = True
        return dict((await self.send(wire.Finish(type="finish", episode=episode, **fields)))["reward"])

    async def close_episodes(self, episodes: Sequence[str]) -> dict[str, Any]:
        return await self.send(wire.Close(type="close", episodes=list(episodes)))

    async def subscribe(
        self, kinds: Sequence[str] | None = None, episodes: Sequence[str] | None = None, maxsize: int = 1000
    ) -> dict[str, Any]:
        """Receive live events in ``self.events`` (or ``async for e in client.iter_events()``)."""
        fields: dict[str, Any] = {"maxsize": maxsize}
        if kinds:
            fields["kinds"] = list(kinds)
        if episodes:
            fields["episodes"] = list(episodes)
        msg = encode(wire.Subscribe(type="subscribe", **fields))
        self._subscription = msg
        return await self.request(msg)

    async def unsubscribe(self) -> dict[str, Any]:
        self._subscription = None
        return await self.send(wire.Unsubscribe(type="unsubscribe"))

    async def iter_events(self) -> AsyncIterator[dict[str, Any]]:
        while True:
            yield (await self.events.get())["event"]

    async def run_start(self, name: str, config: dict[str, Any] | None = None, run: str | None = None) -> str:
        """Start (or, with ``run``, join) a training run; returns its id."""
        fields: dict[str, Any] = {"run": run} if run else {}
        return str((await self.send(wire.RunStart(type="run_start", name=name, config=config or {}, **fields)))["run"])

    async def run_metrics(self, run: str, step: int, metrics: dict[str, float]) -> dict[str, Any]:
        return await self.send(wire.RunMetrics(type="run_metrics", run=run, step=step, metrics=metrics))

    async def run_end(self, run: str, status: str = "finished") -> dict[str, Any]:
        return await self.send(wire.RunEnd(type="run_end", run=run, status=status))  # type: ignore[arg-type]

    async def stats(self) -> dict[str, Any]:
        return await self.send(wire.Stats(type="stats"))

    async def flush(self, timeout: float = 30.0) -> dict[str, Any]:
        """Wait until the hub's store has committed every event so far."""
        return await self.send(wire.Flush(type="flush", timeout=timeout))


def encode(message: wire.Msg) -> dict[str, Any]:
    """A typed request as its JSON object: only the fields that were set (the hub fills in its defaults)."""
    return message.model_dump(mode="json", exclude_unset=True)
