"""The dispatcher: the one path every tool call takes, whatever the transport.

Validate the arguments against the tool's schema, run it atomically in the
session's fork of its server, publish a tool-call event. This is the hub's one
top-level boundary: an unexpected exception inside a tool is rolled back,
logged, and returned as an internal error instead of crashing the hub.

``call`` runs on the calling thread (private worlds, scripts, tests). ``run`` is what the live hub's
transports await: the tool runs in the session's lane (``hub.state.lanes``), in order with the
session's other calls and off the event loop, so a slow call delays only its own session. A built-in
SQLite call runs inline instead, when the lane is idle, because the thread hop costs several times
what such a call does (see docs/scale.md). A tool earns that: its first ``TRUST_RUNS`` calls run in
lanes, timed, and only a tool that stayed under ``INLINE_S`` of CPU each time runs inline after.
Inline, SQLite interrupts a call once it has worked ``INLINE_S``, rolls it back, and it runs again in
the lane; a tool that ever overran (by SQL or by Python) runs in lanes from then on.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from dataclasses import dataclass
from typing import Any, Literal

from hub import ids
from hub.engine.events import Event, EventBus, ToolCallEvent
from hub.errors import CapacityError, InternalSession, SessionError, StateError, UnknownServer, UnknownTool
from hub.kit import ArgumentError, Tool, ToolError
from hub.state.db import SqliteFork, TooSlow
from hub.state.library import Library, SqliteMount
from hub.state.sessions import Session, SessionManager

log = logging.getLogger("hub.engine.dispatcher")

# A failed call's kind: the code of the hub.errors class (unknown_server, unknown_tool, session, session_expired,
# too_large for a result over the limit), or the kit's ToolError (tool) and ArgumentError (arguments), or a bug in
# the tool (internal).
ErrorKind = Literal[
    "tool",
    "arguments",
    "unknown_server",
    "unknown_tool",
    "session",
    "session_expired",
    "capacity",
    "read_only",
    "too_large",
    "internal",
]

# What one result may weigh as JSON. Read tools page their lists, so a bigger answer is a runaway
# (a huge file, a listing without a limit); write tools return short summaries of what they did.
MAX_RESULT_CHARS = 2_000_000

# The longest a call may hold the event loop (CPU seconds): past it, an inline call is interrupted and run
# in its lane. A tool runs inline only after TRUST_RUNS calls in lanes that each stayed under it.
INLINE_S = 0.005
TRUST_RUNS = 2


@dataclass
class CallOutcome:
    ok: bool
    result: Any
    error: str | None = None
    error_kind: ErrorKind | None = None
    latency_ms: float = 0.0
    state_changed: bool = False
    encoded: str | None = None
    shown: str | None = None  # an error's exact text, when its server renders its own (hub.mount.render)

    @property
    def result_json(self) -> str | None:
        """The result as compact JSON, encoded once for the model, the event and the store."""
        if self.encoded is None and self.ok:
            self.encoded = json.dumps(self.result, default=str, separators=(",", ":"))
        return self.encoded

    def text(self) -> str:
        """What a model reads: the result (a string as it is, anything else as JSON), or the error message."""
        if not self.ok:
            return self.shown if self.shown is not None else f"Error: {self.error}"
        return self.result if isinstance(self.result, str) else self.result_json or ""


@dataclass
class _Call:
    """A validated call, ready to run in its session."""

    session: Session
    server: str
    spec: Tool
    kwargs: dict[str, Any]
    created: bool  # this call opened the session


class Dispatcher:
    def __init__(
        self, library: Library, sessions: SessionManager, bus: EventBus, *, inline_s: float = INLINE_S
    ) -> None:
        self.library = library
        self.sessions = sessions
        self.bus = bus
        self.inline_s = inline_s
        self.slow: set[tuple[str, str]] = set()  # tools that overran once: they run in lanes
        self.cheap: dict[tuple[str, str], int] = {}  # tools' calls in lanes that stayed under INLINE_S
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None

    # The two doors --------------------------------------------------------------------------------

    def call(
        self,
        session_id: str,
        server: str,
        tool: str,
        arguments: Any,
        *,
        episode: str | None = None,
        create_session: bool = True,
    ) -> CallOutcome:
        """Run a call here, on the calling thread."""
        ids.session_id(session_id)  # a bad id is the caller's error (BadId), never a logged call
        start = time.perf_counter()
        prepared = self._prepare(session_id, server, tool, arguments, create_session)
        outcome = prepared if isinstance(prepared, CallOutcome) else self._execute(prepared)
        return self._record(session_id, server, tool, arguments, episode, start, outcome, prepared)

    async def run(
        self,
        session_id: str,
        server: str,
        tool: str,
        arguments: Any,
        *,
        episode: str | None = None,
        create_session: bool = True,
    ) -> CallOutcome:
        """Run a call in its session's lane (or inline, when provably cheap), from the event loop."""
        ids.session_id(session_id)
        self._bind_loop()
        start = time.perf_counter()
        prepared = self._prepare(session_id, server, tool, arguments, create_session)
        if isinstance(prepared, CallOutcome):
            return self._record(session_id, server, tool, arguments, episode, start, prepared, prepared)
        if self._inline(prepared):
            deadline = time.thread_time() + self.inline_s  # CPU time: preemption is not the call's cost
            try:
                outcome = self._execute(prepared, deadline=deadline)
            except TooSlow:
                self.slow.add((server, tool))
            else:
                if time.thread_time() > deadline:
                    self.slow.add((server, tool))
                return self._record(session_id, server, tool, arguments, episode, start, outcome, prepared)
        lane = prepared.session.lane
        assert lane is not None

        def then(result: CallOutcome | BaseException) -> None:
            if isinstance(result, CallOutcome):
                self._record(session_id, server, tool, arguments, episode, start, result, prepared)

        return await lane.submit(lambda: self._timed(prepared), then)

    # The steps ------------------------------------------------------------------------------------

    def _prepare(
        self, session_id: str, server: str, tool: str, arguments: Any, create_session: bool
    ) -> _Call | CallOutcome:
        """Validate the call and find (or open) its session: cheap, on the caller's thread."""
        try:
            spec = self.library.tool(server, tool)
            kwargs = spec.validate(arguments)
            created = session_id not in self.sessions.sessions
            session = self.sessions.get(session_id, create=create_session)
        except ArgumentError as exc:
            return CallOutcome(False, None, str(exc), "arguments")
        except (UnknownServer, UnknownTool, SessionError) as exc:
            return CallOutcome(False, None, exc.message, exc.code)  # type: ignore[arg-type]
        if session.internal and spec.kind == "write":
            return CallOutcome(False, None, InternalSession(session_id).message, "read_only")
        return _Call(session, server, spec, kwargs, created)

    def _inline(self, call: _Call) -> bool:
        """Whether the call may run on the loop: a built-in SQLite tool that never overran, in a session
        with nothing queued, on a fork that exists or a seed that is built (a fork is a memory copy)."""
        session = call.session
        key = (call.server, call.spec.name)
        if session.busy or key in self.slow or self.cheap.get(key, 0) < TRUST_RUNS:
            return False
        if call.server in session.forks:
            return isinstance(session.forks[call.server], SqliteFork)
        mount = self.library.mounts.get(call.server)
        return isinstance(mount, SqliteMount) and mount.has_seed(session.seed)

    def _timed(self, call: _Call) -> CallOutcome:
        """``_execute`` in a lane, the tool's CPU time counted for or against running it inline."""
        return self._execute(call, timed=True)

    def _judge(self, call: _Call, cpu_s: float) -> None:
        key = (call.server, call.spec.name)
        if cpu_s > self.inline_s:
            self.slow.add(key)
        elif key not in self.slow and self.cheap.get(key, 0) < TRUST_RUNS:
            self.cheap[key] = self.cheap.get(key, 0) + 1

    def _execute(self, call: _Call, *, deadline: float | None = None, timed: bool = False) -> CallOutcome:
        """Run the tool in the session's fork: in the session's lane, or inline (TooSlow past ``deadline``, in
        the loop thread's CPU time)."""
        session, server, spec = call.session, call.server, call.spec
        if session.closed:
            return CallOutcome(False, None, f"session {session.id!r} was closed", "session")
        try:
            fork = session.fork_of(server)
        except SessionError as exc:
            return CallOutcome(False, None, exc.message, exc.code)  # type: ignore[arg-type]
        session.calls += 1
        before = fork.changes
        account = session.account(server)
        start = time.thread_time() if timed else 0.0
        try:
            if deadline is not None:
                assert isinstance(fork, SqliteFork)
                result = fork.call_within(spec, call.kwargs, account, deadline)
            else:
                try:
                    result = fork.call(spec, call.kwargs, account)
                finally:
                    if timed:
                        self._judge(call, time.thread_time() - start)
        except TooSlow:
            session.calls -= 1
            raise
        except CapacityError as exc:
            return CallOutcome(False, None, exc.message, "capacity")
        except SessionError as exc:  # closed while it ran: rolled back
            return CallOutcome(False, None, exc.message, "session")
        except ToolError as exc:
            return CallOutcome(False, None, str(exc), "tool", shown=getattr(exc, "text", None))
        except StateError as exc:  # a mounted state the hub could not restore exactly: said, never hidden
            log.error("%s.%s: %s", server, spec.name, exc.message)
            return CallOutcome(False, None, exc.message, "internal")
        except Exception as exc:  # the hub's one top-level boundary: a broken tool must not crash the hub
            log.exception("tool %s.%s failed", server, spec.name)
            return CallOutcome(False, None, f"internal error in {server}.{spec.name}: {type(exc).__name__}", "internal")
        outcome = CallOutcome(True, result, state_changed=fork.changes != before)
        if spec.kind == "read" and len(outcome.result_json or "") > MAX_RESULT_CHARS:
            return CallOutcome(
                False,
                None,
                f"the result of {server}.{spec.name} is {len(outcome.result_json or '')} "
                f"characters, over the limit of {MAX_RESULT_CHARS}; ask for less (a smaller limit, "
                "a page, a narrower path)",
                "too_large",
            )
        return outcome

    def _record(
        self,
        session_id: str,
        server: str,
        tool: str,
        arguments: Any,
        episode: str | None,
        start: float,
        outcome: CallOutcome,
        prepared: _Call | CallOutcome,
    ) -> CallOutcome:
        """Publish the call's event; take back a session this call opened only to be refused for capacity."""
        outcome.latency_ms = (time.perf_counter() - start) * 1000
        if (
            outcome.error_kind == "capacity"
            and isinstance(prepared, _Call)
            and prepared.created
            and not prepared.session.forks
            and not (prepared.session.lane and prepared.session.lane.queued)
        ):
            self.sessions.discard(session_id)
        self._publish(
            ToolCallEvent(
                session=session_id,
                server=server,
                tool=tool,
                arguments=arguments,
                ok=outcome.ok,
                result=outcome.result,
                result_json=outcome.result_json,
                error=outcome.error,
                error_kind=outcome.error_kind,
                latency_ms=outcome.latency_ms,
                state_changed=outcome.state_changed,
                ts=time.time(),
                episode=episode,
            )
        )
        return outcome

    # The loop -------------------------------------------------------------------------------------

    def bind_loop(self) -> None:
        """Publish through the running loop from now on (the hub's lifespan calls this first)."""
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()

    def _bind_loop(self) -> None:
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
            self._loop_thread = threading.get_ident()

    def _publish(self, event: Event) -> None:
        """Publish on the loop's thread: the bus's queues are not thread-safe, and a lane's job may call
        ``call`` (a replay) from a worker thread."""
        if self._loop is not None and threading.get_ident() != self._loop_thread:
            self._loop.call_soon_threadsafe(self.bus.publish, event)
        else:
            self.bus.publish(event)
