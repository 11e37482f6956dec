"""Every error the hub raises on purpose, and the one translation of each to MCP, HTTP and ``/ws``.

The tree (``code`` / HTTP status)::

    HubError                          internal          500  anything the hub does not expect
    ├── Unauthorized                  unauthorized      401  a request without the hub's bearer token
    ├── RateLimited                   rate_limited      429  too many failed token attempts from one address
    ├── Overloaded                    overloaded        503  over the connection limits (in total or per address)
    ├── NotFound (LookupError)        not_found         404
    │   ├── UnknownServer             unknown_server    404  no server of that name is mounted
    │   ├── UnknownTool               unknown_tool      404  the server has no tool of that name
    │   ├── UnknownTask               unknown_task      404  no task of that id is loaded (also a TaskError)
    │   ├── UnknownTable (KeyError)   unknown_table     404  a server state has no table (attribute) of that name
    │   └── SessionError              session           404  a session or snapshot that does not exist, is
    │       │                                                closed, or cannot be opened
    │       ├── CapacityError         capacity          429  the session cap or the state memory budget is full
    │       ├── SessionExpired        session_expired   410  a session the hub closed after it idled past the TTL
    │       └── InternalSession       read_only         403  a write to (or close of) the hub's own session, or
    │                                                        (outside its steps) of an episode's session
    ├── Forbidden                     forbidden_csrf    403  a dashboard form post without the page's CSRF token
    ├── BadRequest (ValueError)       bad_request       400  a request the hub refuses as malformed
    │   ├── BadId                     bad_id            400  a session id that breaks the id rule (``hub.ids``)
    │   ├── TooLarge                  too_large         413  a body (or ``/ws`` message) over ``HUB_MAX_BODY_BYTES``,
    │   │                                                    or a tool result over the result limit
    │   ├── TaskError                 bad_task          400  a task that is malformed or does not fit the servers
    │   ├── ScenarioError             bad_scenario      400  a scenario (config, loader options) a server cannot take
    │   ├── StateError                bad_state         400  a mounted object's state the hub cannot represent
    │   ├── SchemaFileError           bad_schema        400  a mount's tool schemas (``schemas=``) that cannot be read
    │   └── ProtocolError             (per message)     400  a ``/ws`` message refused; carries its own code:
    │                                                        bad_json, bad_message, unknown_type,
    │                                                        hello_required, unsupported_version, unauthorized
    ├── EpisodeError (LookupError)    (per error)       409  an episode request the engine cannot serve; codes:
    │                                                        unknown_episode (404), episode_done,
    │                                                        session_expired (410), capacity (429), bad_message (400)
    └── StoreError (RuntimeError)     store             503  the episode store is not running, or its writer failed

Tools raise two more, defined with the server kit (``hub.kit``) because servers import them and
nothing else: ``ToolError`` (``tool``: a domain failure such as insufficient funds) and
``ArgumentError`` (``arguments``: arguments that do not fit the tool's schema). The dispatcher turns
both into a failed ``CallOutcome`` (``error_kind``), which the model reads as ``Error: ...``.

One mapping per transport, nothing else translates errors:

- ``http_reply(exc)``: ``{"error": "<message>", "code": "<code>", ...}`` with the class's HTTP status.
  ``error`` stays a plain string, as every client of ``/api`` has always read it.
- ``ws_reply(exc, rid)``: ``{"type": "error", "id": rid, "code": "<code>", "message": "<message>"}``,
  the ``/ws`` error reply of docs/protocol.md.
- ``mcp_result(message)``: an MCP ``CallToolResult`` with ``is_error`` and the text ``Error: <message>``.

Anything that is not a ``HubError`` is a bug: each transport's single top-level boundary logs it with
its traceback and answers ``internal`` (500) without leaking its text.
"""

from __future__ import annotations

from typing import Any, ClassVar

import mcp_types as types
from starlette.responses import JSONResponse


class HubError(Exception):
    """Base of the hub's errors; ``code`` and ``status`` say how every transport reports it."""

    code: ClassVar[str] = "internal"
    status: ClassVar[int] = 500

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code  # type: ignore[misc]

    def __str__(self) -> str:
        return self.message

    @property
    def http_status(self) -> int:
        return self.status


class Unauthorized(HubError):
    """A request without the hub's bearer token (``/ws`` answers with a ``ProtocolError`` of this code)."""

    code = "unauthorized"
    status = 401


class RateLimited(HubError):
    """Too many failed token attempts from one address: refused until the window passes (``retry_after`` s)."""

    code = "rate_limited"
    status = 429

    def __init__(self, message: str, retry_after: float = 0.0) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class Overloaded(HubError):
    """The hub holds as many connections as its limits allow (in total, per address, or not yet authenticated)."""

    code = "overloaded"
    status = 503


class NotFound(HubError, LookupError):
    code = "not_found"
    status = 404


class UnknownServer(NotFound):
    """No server of that name is mounted."""

    code = "unknown_server"


class UnknownTool(NotFound):
    """The server has no tool of that name."""

    code = "unknown_tool"


class UnknownTable(NotFound, KeyError):
    """A server's state has no table (or, for a mounted object, attribute) of that name."""

    code = "unknown_table"


class SessionError(NotFound):
    """A session that does not exist, is closed, or cannot be opened (cap reached)."""

    code = "session"


class CapacityError(SessionError):
    """The hub is full (sessions, or the bytes its forks hold): nothing was opened; close sessions or raise
    the limit."""

    code = "capacity"
    status = 429


class SessionExpired(SessionError):
    """A session the hub closed because it idled longer than the session TTL (``HUB_SESSION_TTL_S``)."""

    code = "session_expired"
    status = 410


class InternalSession(SessionError):
    """A write to (or a close of) a session the hub keeps for itself, such as a task's starting state."""

    code = "read_only"
    status = 403

    def __init__(
        self, sid: str, action: str = "write to", what: str = "internal to the hub (a task's starting state)"
    ) -> None:
        super().__init__(
            f"session {sid!r} is {what} and read-only: callers cannot {action} it; fork it or open your own session"
        )


class Forbidden(HubError):
    """A state-changing dashboard form posted without the token its page carries (a cross-site post)."""

    code = "forbidden_csrf"
    status = 403


class BadRequest(HubError, ValueError):
    code = "bad_request"
    status = 400


class BadId(BadRequest):
    """A session id that is not 1 to 128 letters, digits, '.', '_', ':' or '-' (``hub.ids``)."""

    code = "bad_id"


class TooLarge(BadRequest):
    """A request body or ``/ws`` message over ``HUB_MAX_BODY_BYTES``: refused while reading, nothing kept."""

    code = "too_large"
    status = 413


class TaskError(BadRequest):
    """A task that is malformed or does not fit the hub's servers."""

    code = "bad_task"


class ScenarioError(BadRequest):
    """A scenario (config or loader options) that a server cannot take, or whose loader failed."""

    code = "bad_scenario"


class StateError(BadRequest):
    """A mounted object's state the hub cannot represent (too deep to walk) or snapshot (does not pickle)."""

    code = "bad_state"


class SchemaFileError(BadRequest):
    """Tool schemas that cannot be read as tool specs."""

    code = "bad_schema"


class UnknownTask(TaskError, NotFound):
    """No task with that id is loaded."""

    code = "unknown_task"
    status = 404


class ProtocolError(BadRequest):
    """A ``/ws`` message the hub refuses; ``rid`` is the request id when it could be read."""

    def __init__(self, code: str, message: str, rid: Any = None) -> None:
        super().__init__(message, code)
        self.rid = rid


EPISODE_STATUS = {"unknown_episode": 404, "capacity": 429, "bad_message": 400, "session_expired": 410}


class EpisodeError(HubError, LookupError):
    """An unknown, finished or expired episode, or a request the engine cannot serve."""

    code = "episode"
    status = 409

    def __init__(self, message: str, code: str = "episode") -> None:
        super().__init__(message, code)

    @property
    def http_status(self) -> int:
        return EPISODE_STATUS.get(self.code, self.status)


class StoreError(HubError, RuntimeError):
    """The store is not running, or its writer failed."""

    code = "store"
    status = 503


def http_reply(exc: HubError, headers: dict[str, str] | None = None, **extra: Any) -> JSONResponse:
    """The JSON API's error reply: ``{"error": message, "code": code, **extra}``."""
    return JSONResponse({"error": exc.message, "code": exc.code, **extra}, status_code=exc.http_status, headers=headers)


def internal_http_reply() -> JSONResponse:
    return JSONResponse({"error": "internal error", "code": HubError.code}, status_code=HubError.status)


def ws_reply(exc: HubError, rid: Any = None) -> dict[str, Any]:
    """The ``/ws`` error reply; a ``ProtocolError`` that read the request id keeps it."""
    if isinstance(exc, ProtocolError) and exc.rid is not None:
        rid = exc.rid
    return ws_error(exc.code, exc.message, rid)


def ws_error(code: str, message: str, rid: Any = None) -> dict[str, Any]:
    return {"type": "error", "id": rid, "code": code, "message": message}


MCP_ERROR_META = "hub/error"


def mcp_result(message: str, code: str | None = None) -> types.CallToolResult:
    """A failed tool call as MCP reports it: an error result the model reads, not a protocol error; ``code``
    (the hub's error code, for programs) travels in ``_meta["hub/error"]``."""
    meta = None if code is None else {MCP_ERROR_META: code}
    return types.CallToolResult(content=[types.TextContent(text=f"Error: {message}")], is_error=True, meta=meta)
