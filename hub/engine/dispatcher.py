"""The dispatcher: the one path every tool call takes, whatever the transport.

Validate the arguments against the tool's schema, run it atomically in the
session's fork of its server, publish a tool-call event. This is the hub's one
top-level boundary: an unexpected exception inside a tool is rolled back,
logged, and returned as an internal error instead of crashing the hub.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from typing import Any, Literal

from hub import ids
from hub.engine.events import EventBus, ToolCallEvent
from hub.errors import InternalSession, SessionError, UnknownServer, UnknownTool
from hub.kit import ArgumentError, ToolError
from hub.state.library import Library
from hub.state.sessions import SessionManager

log = logging.getLogger("hub.engine.dispatcher")

# A failed call's kind: the code of the hub.errors class (unknown_server, unknown_tool, session), or
# the kit's ToolError (tool) and ArgumentError (arguments), or a bug in the tool (internal).
ErrorKind = Literal[
    "tool", "arguments", "unknown_server", "unknown_tool", "session", "capacity", "read_only", "result", "internal"
]

# What one result may weigh as JSON. Read tools page their lists, so a bigger answer is a runaway
# (a huge file, a listing without a limit); write tools return short summaries of what they did.
MAX_RESULT_CHARS = 2_000_000


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


class Dispatcher:
    def __init__(self, library: Library, sessions: SessionManager, bus: EventBus) -> None:
        self.library = library
        self.sessions = sessions
        self.bus = bus

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
        ids.session_id(session_id)  # a bad id is the caller's error (BadId), never a logged call
        start = time.perf_counter()
        outcome = self._run(session_id, server, tool, arguments, create_session)
        outcome.latency_ms = (time.perf_counter() - start) * 1000
        self.bus.publish(
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

    def _run(self, session_id: str, server: str, tool: str, arguments: Any, create_session: bool) -> CallOutcome:
        try:
            spec = self.library.tool(server, tool)
            kwargs = spec.validate(arguments)
            session = self.sessions.get(session_id, create=create_session)
            fork = session.fork_of(server)
        except ArgumentError as exc:
            return CallOutcome(False, None, str(exc), "arguments")
        except (UnknownServer, UnknownTool, SessionError) as exc:
            return CallOutcome(False, None, exc.message, exc.code)  # type: ignore[arg-type]
        if session.internal and spec.kind == "write":
            return CallOutcome(False, None, InternalSession(session_id).message, "read_only")
        session.calls += 1
        before = fork.changes
        try:
            result = fork.call(spec, kwargs)
        except ToolError as exc:
            return CallOutcome(False, None, str(exc), "tool", shown=getattr(exc, "text", None))
        except Exception as exc:  # the hub's one top-level boundary: a broken tool must not crash the hub
            log.exception("tool %s.%s failed", server, tool)
            return CallOutcome(False, None, f"internal error in {server}.{tool}: {type(exc).__name__}", "internal")
        outcome = CallOutcome(True, result, state_changed=fork.changes != before)
        if outcome.state_changed:
            session.remeasure(server)
        if spec.kind == "read" and len(outcome.result_json or "") > MAX_RESULT_CHARS:
            return CallOutcome(
                False,
                None,
                f"the result of {server}.{tool} is {len(outcome.result_json or '')} "
                f"characters, over the limit of {MAX_RESULT_CHARS}; ask for less (a smaller limit, "
                "a page, a narrower path)",
                "result",
            )
        return outcome
