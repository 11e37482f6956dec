"""The rollout WebSocket ``/ws``: a versioned JSON protocol for trainers (see docs/protocol.md).

One JSON object per message, each with a ``type`` and an optional ``id`` that the reply echoes.
A connection starts with ``hello`` (carrying the token when the hub has one, for clients that
cannot set headers; an ``Authorization`` header or ``?token=`` also works). Then: ``tasks``,
``open`` (a GRPO group of n episodes of one task, all from one state hash), ``step`` (raw model
text -> observations), ``finish`` (reward breakdown), ``close``, ``subscribe``/``unsubscribe``
(live events), ``run_start``/``run_metrics``/``run_end`` (training runs in the store), ``stats``,
``flush``, ``ping``. A bad message gets a typed ``error`` reply and the socket stays open.

Messages are handled one at a time per connection, and the next one is read only after the
reply is sent: a client that does not read its replies stops being read (TCP backpressure).
Live events go through a queue bounded in events and bytes that drops its oldest events (counted
in ``dropped``). A frame over ``HUB_MAX_BODY_BYTES`` is refused by the server from its header
(close 1009) before its payload is read (``hub.transports.gate``).

Authenticate before holding: on a hub with a token, a socket that did not authenticate on its
upgrade (header or ``?token=``) must send a valid ``hello`` within ``HUB_HELLO_TIMEOUT_S`` or it is
closed (1008); such sockets are capped per address and in total (``Admission``: past the caps the
upgrade is refused, ``503 overloaded``), and wrong tokens count against the address
(``hub.transports.auth.AuthThrottle``: past the limit the socket is closed, 1008, and new upgrades
from that address are refused, ``429 rate_limited``). An authenticated socket that sends nothing for
``HUB_IDLE_TIMEOUT_S`` (and has no live-event subscription) is closed (1000).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections import Counter
from typing import Any

from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.routing import BaseRoute, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from hub.engine.events import RunEvent, RunMetricEvent, Subscription
from hub.errors import (
    EpisodeError,
    HubError,
    Overloaded,
    ProtocolError,
    RateLimited,
    StoreError,
    http_reply,
    ws_error,
    ws_reply,
)
from hub.parts import Part
from hub.tasks import oracle_script
from hub.text import SURROGATE_ESCAPE, storable
from hub.transports.auth import AuthThrottle, client_address, retry_headers, scope_has_token, token_matches
from hub.wire import (
    EVENT_KINDS,
    MAX_GROUP,
    PROTOCOL,
    REQUEST,
    TYPES,
    VERSION,
    Close,
    Finish,
    Flush,
    Hello,
    Open,
    Ping,
    RunEnd,
    RunMetrics,
    RunStart,
    Stats,
    Step,
    Subscribe,
    Tasks,
    Unsubscribe,
)

log = logging.getLogger("hub.transports.ws")

PENDING_PER_ADDRESS = 8  # sockets one address may hold open before it authenticates
PENDING_TOTAL = 256  # such sockets from all addresses together
POLICY_VIOLATION = 1008
NORMAL_CLOSURE = 1000


class Admission:
    """The ``/ws`` sockets still waiting to authenticate, counted per address and in total."""

    def __init__(self, per_address: int = PENDING_PER_ADDRESS, total: int = PENDING_TOTAL) -> None:
        self.per_address = per_address
        self.total = total
        self.pending: Counter[str] = Counter()
        self.refused = 0

    def refusal(self, address: str) -> Overloaded | None:
        """Why a new unauthenticated socket from ``address`` may not open now (None: it may)."""
        if sum(self.pending.values()) >= self.total:
            why = f"{self.total} sockets are waiting to authenticate; authenticate on the upgrade or retry shortly"
        elif self.pending[address] >= self.per_address:
            why = (
                f"{self.per_address} sockets from {address} are waiting to authenticate; say hello on them first, "
                "or authenticate on the upgrade (Authorization header)"
            )
        else:
            return None
        self.refused += 1
        return Overloaded(why)

    def hold(self, address: str) -> None:
        self.pending[address] += 1

    def release(self, address: str) -> None:
        self.pending[address] -= 1
        if self.pending[address] <= 0:
            del self.pending[address]


def dumps(data: dict[str, Any]) -> str:
    return json.dumps(data, default=str, separators=(",", ":"))


def decode(raw: str) -> tuple[Any, Any]:
    """(the parsed request, its id); raises ProtocolError for anything but a valid request."""
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise ProtocolError("bad_json", f"message is not valid JSON: {exc}") from None
    if SURROGATE_ESCAPE.search(raw):
        data = storable(data)
    if not isinstance(data, dict):
        raise ProtocolError("bad_message", f"a message must be a JSON object, got {type(data).__name__}")
    rid = data.get("id") if isinstance(data.get("id"), (str, int)) and not isinstance(data.get("id"), bool) else None
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in TYPES:
        raise ProtocolError("unknown_type", f"unknown message type {str(kind)[:40]!r}; types: {', '.join(TYPES)}", rid)
    try:
        return REQUEST.validate_python(data), rid
    except ValidationError as exc:
        details = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'][1:]) or 'message'}: {e['msg']}" for e in exc.errors()[:5]
        )
        raise ProtocolError("bad_message", f"invalid {kind} message: {details}", rid) from None


class Connection:
    """One client's WebSocket: its auth state, its subscription, and the handlers."""

    def __init__(self, websocket: WebSocket) -> None:
        self.ws = websocket
        self.hub = websocket.app.state.hub
        self.settings = self.hub.settings
        token = self.settings.token
        self.token: str | None = token
        self.pre_authorized = token is None or scope_has_token(websocket.scope, token)
        self.address = client_address(websocket.scope)
        self.admission: Admission = websocket.app.state.ws_admission
        self.throttle: AuthThrottle | None = getattr(websocket.app.state, "auth_throttle", None)
        self.pending = False  # holding one of the admission's slots for unauthenticated sockets
        self.closing: tuple[int, str] | None = None
        self.ready = False
        self.send_lock = asyncio.Lock()
        self.sub: Subscription | None = None
        self.sub_filter: frozenset[str] | None = None
        self.pump: asyncio.Task[None] | None = None

    async def send(self, data: dict[str, Any]) -> None:
        async with self.send_lock:
            await self.ws.send_text(dumps(data))

    async def serve(self) -> None:
        """Admit the socket (an unauthenticated one within the caps), then run it until it closes."""
        if not self.pre_authorized:
            refusal = self.refusal()
            if refusal is not None:
                await self.deny(refusal)
                return
            self.admission.hold(self.address)
            self.pending = True
        try:
            await self.ws.accept()
            with contextlib.suppress(WebSocketDisconnect):
                await self.run()
        finally:
            self.authenticated()
            self.stop_pump()

    async def deny(self, refusal: HubError) -> None:
        """Refuse the upgrade: an HTTP reply where the server can send one, else a close with the reason."""
        if "websocket.http.response" in self.ws.scope.get("extensions", {}):
            headers = retry_headers(refusal) if isinstance(refusal, RateLimited) else {"Retry-After": "1"}
            await self.ws.send_denial_response(http_reply(refusal, headers=headers))
        else:
            await self.ws.close(POLICY_VIOLATION, refusal.message[:120])

    def refusal(self) -> HubError | None:
        wait = self.throttle.retry_after(self.address) if self.throttle is not None else 0.0
        if wait > 0 and self.throttle is not None:
            return self.throttle.error(wait)
        return self.admission.refusal(self.address)

    def authenticated(self) -> None:
        """Give back the slot held while the socket had not authenticated."""
        if self.pending:
            self.pending = False
            self.admission.release(self.address)

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        hello_deadline = loop.time() + self.settings.hello_timeout_s
        while True:
            try:
                async with asyncio.timeout(self.patience(hello_deadline - loop.time())):
                    message = await self.ws.receive()
            except TimeoutError:
                await self.ws.close(*self.timed_out())
                return
            if message["type"] == "websocket.disconnect":
                return
            raw = message.get("text")
            if raw is None:
                raw = _text_of(message.get("bytes"))
            await self.send(await self.handle(raw))
            if self.authorized:
                self.authenticated()
            if self.closing is not None:
                await self.ws.close(*self.closing)
                return

    def patience(self, hello_left: float) -> float | None:
        """How long to wait for the next message: the hello's deadline while unauthenticated, else the idle
        timeout (none while events are subscribed: such a client listens more than it talks)."""
        if not self.authorized:
            return max(0.0, hello_left)
        return None if self.sub is not None else self.settings.idle_timeout_s

    @property
    def authorized(self) -> bool:
        return self.pre_authorized or self.ready

    def timed_out(self) -> tuple[int, str]:
        if self.authorized:
            return NORMAL_CLOSURE, f"idle for {self.settings.idle_timeout_s:g} s; reconnect to go on"
        return POLICY_VIOLATION, f"no valid hello within {self.settings.hello_timeout_s:g} s"

    async def handle(self, raw: str | None) -> dict[str, Any]:
        """The reply to one raw message. The connection's one top-level exception boundary."""
        rid = None
        try:
            if raw is None:
                raise ProtocolError("bad_json", "binary messages must be UTF-8 JSON")
            if len(raw) > self.hub.settings.max_body_bytes:
                raise ProtocolError(
                    "too_large",
                    f"a message is at most {self.hub.settings.max_body_bytes:,} "
                    "characters (HUB_MAX_BODY_BYTES); send less per message",
                )
            request, rid = decode(raw)
            reply = await self.dispatch(request)
        except HubError as exc:
            return ws_reply(exc, rid)
        except Exception as exc:  # the connection's top-level boundary: reply, log, keep the socket open
            log.exception("ws request failed")
            return ws_error(HubError.code, f"internal error: {type(exc).__name__}", rid)
        reply["id"] = rid
        return reply

    async def dispatch(self, req: Any) -> dict[str, Any]:
        if isinstance(req, Hello):
            return self.on_hello(req)
        if not self.ready:
            raise ProtocolError("hello_required", "send a hello message first")
        handler = getattr(self, f"on_{req.type}")
        result = handler(req)
        return await result if asyncio.iscoroutine(result) else result  # type: ignore[no-any-return]

    # Handlers ---------------------------------------------------------------------------------

    def on_hello(self, req: Hello) -> dict[str, Any]:
        if req.version != VERSION:
            raise ProtocolError(
                "unsupported_version", f"this hub speaks {PROTOCOL} version {VERSION}, not {req.version}"
            )
        if not self.pre_authorized and not token_matches(req.token, self.token):
            self.failed_hello()
            raise ProtocolError("unauthorized", "missing or wrong token")
        self.ready = True
        hub = self.hub
        return {
            "type": "welcome",
            "protocol": PROTOCOL,
            "version": VERSION,
            "servers": list(hub.library.mounts),
            "tasks": len(hub.tasks),
            "limits": hub.episodes.limits.model_dump(),
            "max_group": MAX_GROUP,
        }

    def failed_hello(self) -> None:
        """Count a wrong token against the address; past the throttle's limit the socket closes after the reply."""
        if self.throttle is None:
            return
        wait = self.throttle.fail(self.address)
        if wait > 0:
            self.closing = (POLICY_VIOLATION, self.throttle.error(wait).message[:120])

    def on_ping(self, req: Ping) -> dict[str, Any]:
        return {"type": "pong", "ts": time.time()}

    def on_tasks(self, req: Tasks) -> dict[str, Any]:
        tasks = [t for t in self.hub.tasks if req.kind is None or t.kind == req.kind]
        items = [
            {**t.model_dump(), **({"oracle": oracle_script(t)} if req.oracle else {})}
            if req.full
            else {
                "id": t.id,
                "kind": t.kind,
                "servers": t.servers,
                "turns": len(t.turns),
                "gt_calls": len(t.gt_steps()),
            }
            for t in tasks
        ]
        return {"type": "tasks", "tasks": items}

    async def on_open(self, req: Open) -> dict[str, Any]:
        eps = await self.hub.episodes.open_group_async(
            req.task, req.n, req.limits, run=req.run, step=req.step, step_reward=req.step_reward
        )
        first = eps[0]
        return {
            "type": "opened",
            "group": first.group,
            "task": first.task.id,
            "kind": first.task.kind,
            "state_hash": first.start_hash,
            "messages": first.messages,
            "tools": self.hub.episodes.tools_of(first.task),
            "episodes": [{"episode": e.id, "session": e.session_id, "state_hash": e.start_hash} for e in eps],
        }

    async def on_step(self, req: Step) -> dict[str, Any]:
        if (req.text is None) == (req.message is None):
            raise ProtocolError("bad_message", "a step carries exactly one of 'text' (raw model output) or 'message'")
        output: str | dict[str, Any] = req.text if req.text is not None else req.message  # type: ignore[assignment]
        await self.hub.store.room()  # a writer behind slows the rollouts instead of dropping their events
        result = await self.hub.episodes.step_async(req.episode, output)
        return {"type": "observation", **result.to_json()}

    async def on_finish(self, req: Finish) -> dict[str, Any]:
        breakdown = await self.hub.episodes.finish_judged(req.episode, req.reward, truncated=req.truncated)
        return {"type": "reward", "episode": req.episode, "reward": breakdown.model_dump()}

    def on_close(self, req: Close) -> dict[str, Any]:
        closed, unknown = [], []
        for eid in req.episodes:
            try:
                self.hub.episodes.close(eid)
                closed.append(eid)
            except EpisodeError:
                unknown.append(eid)
        return {"type": "closed", "episodes": closed, "unknown": unknown}

    def on_subscribe(self, req: Subscribe) -> dict[str, Any]:
        self.stop_pump()
        kinds = frozenset(req.kinds) if req.kinds else None
        self.sub = self.hub.bus.subscribe(kinds, req.maxsize)
        self.sub_filter = frozenset(req.episodes) if req.episodes else None
        self.pump = asyncio.create_task(self.pump_events(self.sub))
        return {"type": "subscribed", "kinds": sorted(kinds or EVENT_KINDS), "maxsize": req.maxsize}

    def on_unsubscribe(self, req: Unsubscribe) -> dict[str, Any]:
        dropped = self.sub.dropped if self.sub else 0
        self.stop_pump()
        return {"type": "unsubscribed", "dropped": dropped}

    def on_run_start(self, req: RunStart) -> dict[str, Any]:
        run = req.run or "run-" + secrets.token_hex(6)
        self.hub.bus.publish(RunEvent(run, req.name, req.config, "running", time.time()))
        return {"type": "run_started", "run": run}

    def on_run_metrics(self, req: RunMetrics) -> dict[str, Any]:
        self.hub.bus.publish(RunMetricEvent(req.run, req.step, req.metrics, time.time()))
        return {"type": "run_metrics_ok", "run": req.run, "step": req.step}

    def on_run_end(self, req: RunEnd) -> dict[str, Any]:
        self.hub.bus.publish(RunEvent(req.run, "", {}, req.status, time.time()))
        return {"type": "run_ended", "run": req.run, "status": req.status}

    def on_stats(self, req: Stats) -> dict[str, Any]:
        hub = self.hub
        return {
            "type": "stats",
            "episodes": hub.episodes.stats(),
            "store": hub.store.stats(),
            "sessions": len(hub.sessions),
            "bus_published": hub.bus.published,
        }

    async def on_flush(self, req: Flush) -> dict[str, Any]:
        store = self.hub.store
        try:
            acked = await store.flush(timeout=req.timeout)
        except TimeoutError:
            raise StoreError(f"store flush timed out after {req.timeout} s") from None
        return {
            "type": "flushed",
            "acked": acked,
            "dropped": store.dropped,
            "failed": store.failed,
            "failures": [f.to_json() for f in store.failures],
        }

    # Live events ------------------------------------------------------------------------------

    async def pump_events(self, sub: Subscription) -> None:
        try:
            while True:
                event = await sub.queue.get()
                if self.sub_filter is not None and getattr(event, "episode", None) not in self.sub_filter:
                    continue
                await self.send({"type": "event", "event": event.to_json(), "dropped": sub.dropped})
        except (WebSocketDisconnect, RuntimeError, OSError):  # the client went away; the receive loop ends too
            return

    def stop_pump(self) -> None:
        if self.sub is not None:
            self.hub.bus.unsubscribe(self.sub)
            self.sub = None
        if self.pump is not None:
            self.pump.cancel()
            self.pump = None


def _text_of(data: bytes | None) -> str | None:
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


async def ws_endpoint(websocket: WebSocket) -> None:
    await Connection(websocket).serve()


def _install(app: Starlette) -> None:
    app.state.ws_admission = Admission()


def _routes(app: Starlette) -> list[BaseRoute]:
    return [WebSocketRoute("/ws", ws_endpoint)]


part = Part("rollouts", install=_install, routes=_routes)
