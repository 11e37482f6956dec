"""The JSON API under ``/api``: catalog, sessions, forks, snapshots, tool calls, state and diffs.

Errors are ``hub.errors`` replies: ``{"error": "<message>", "code": "<code>"}`` with the error's
HTTP status; anything else is a bug, logged with its traceback and answered 500 ``internal``.
A session id in a path or body follows the id rule of ``hub.ids`` (else 400 ``bad_id``); a body over
``HUB_MAX_BODY_BYTES`` is refused while it is read (413 ``too_large``, ``hub.transports.body``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any, TypeVar

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from hub import ids
from hub.core import Hub
from hub.errors import BadRequest, HubError, InternalSession, UnknownTable, http_reply, internal_http_reply
from hub.parts import Part
from hub.state.db import page_diff
from hub.state.sessions import Session
from hub.transports.body import json_object

log = logging.getLogger("hub.transports.api")
MAX_PAGE = 500
MAX_QUERY_INT = 2**63 - 1  # what SQLite takes as a LIMIT or OFFSET
DIFF_PAGE = 200  # diff rows per table and kind in one answer
T = TypeVar("T")
# A failed call's HTTP status by error kind: the model's own mistakes are a normal 200 reply (the call ran
# and failed as a tool does); a bug in a tool is a 500; unknown servers, tools and sessions are a 404.
CALL_STATUS = {
    "tool": 200,
    "arguments": 200,
    "internal": 500,
    "read_only": 403,
    "session_expired": 410,
    "too_large": 413,
    "capacity": 429,
}


def _hub(request: Request) -> Hub:
    return request.app.state.hub  # type: ignore[no-any-return]


def _field(body: dict[str, Any], name: str, kind: type) -> Any:
    """``body[name]`` when it is absent, null or of type ``kind``; BadRequest otherwise."""
    value = body.get(name)
    if value is not None and (not isinstance(value, kind) or isinstance(value, bool)):
        raise BadRequest(f"{name!r} must be {kind.__name__}, got {type(value).__name__}")
    return value


def _id(body: dict[str, Any]) -> str | None:
    """The session id a body names (``id``), checked against the id rule; None when absent."""
    value = body.get("id")
    return None if value is None else ids.session_id(value)


def _query_int(request: Request, name: str, default: int) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise BadRequest(f"query parameter {name!r} must be an integer, got {raw[:40]!r}") from None
    if not 0 <= value <= MAX_QUERY_INT:
        raise BadRequest(f"query parameter {name!r} must be an integer from 0 to {MAX_QUERY_INT}")
    return value


def check_writable(hub: Hub, sid: str, server: str, tool: str) -> None:
    """Refuse (``read_only``) a caller's write to an episode's session: only the episode's own steps change it,
    so its reward judges what the model did. Reads, forks and snapshots of it stay open to everyone."""
    owner = hub.episodes.owner_of(sid)
    if owner is None or server not in hub.library.mounts:
        return
    spec = hub.library.mount(server).tools.get(tool)
    if spec is not None and spec.kind == "write":
        raise InternalSession(sid, what=f"the session of episode {owner} (only its steps change it)")


def summary(s: Session, *, hashed: bool = True) -> dict[str, Any]:
    """A session's summary; ``hashed=False`` (a call is running in it) leaves its state hash out (null)."""
    return {
        "id": s.id,
        "seed": s.seed,
        "parent": s.parent,
        "servers": sorted(s.forks),
        "calls": s.calls,
        "state_hash": s.state_hash() if hashed else None,
        "scenarios": sorted(s.configs),
    }


async def in_lane(session: Session, fn: Callable[[], T]) -> T:
    """``fn`` (a read of the session's forks) run in the session's lane: off the loop, after its calls."""
    assert session.lane is not None
    return await session.lane.run(fn)


async def session_summary(hub: Hub, sid: str) -> dict[str, Any]:
    session = hub.sessions.get(sid, create=False)
    return await in_lane(session, lambda: summary(session))


async def catalog(request: Request) -> JSONResponse:
    return JSONResponse(_hub(request).library.catalog())


async def list_sessions(request: Request) -> JSONResponse:
    """Every visible session: hashed in its lane when idle; a busy one (a call running) is listed without waiting
    for it, its state hash null."""
    found = _hub(request).sessions.visible()
    rows = [_resolved(summary(s, hashed=False)) if s.busy else in_lane(s, partial(summary, s)) for s in found]
    return JSONResponse({"sessions": list(await asyncio.gather(*rows))})


async def _resolved(value: T) -> T:
    return value


async def open_session(request: Request) -> JSONResponse:
    hub = _hub(request)
    body = await json_object(request)
    s = hub.sessions.open(
        _id(body),
        seed=_field(body, "seed", int),
        snapshot=_field(body, "snapshot", str),
        configs=body.get("configs"),
        loader_kwargs=body.get("loader_kwargs"),
    )
    return JSONResponse(await session_summary(hub, s.id), status_code=201)


async def get_session(request: Request) -> JSONResponse:
    return JSONResponse(await session_summary(_hub(request), request.path_params["sid"]))


async def close_session(request: Request) -> JSONResponse:
    hub, sid = _hub(request), request.path_params["sid"]
    owner = hub.episodes.owner_of(sid)
    if owner is not None:
        raise InternalSession(sid, "close", f"the session of episode {owner} (close the episode instead)")
    hub.sessions.close(sid)
    return JSONResponse({"closed": request.path_params["sid"]})


async def fork_session(request: Request) -> JSONResponse:
    hub = _hub(request)
    body = await json_object(request)
    (child,) = await hub.sessions.fork_group_async(request.path_params["sid"], [_id(body)])
    return JSONResponse(await session_summary(hub, child.id), status_code=201)


async def snapshot_session(request: Request) -> JSONResponse:
    sessions, sid = _hub(request).sessions, request.path_params["sid"]
    snap = await in_lane(sessions.get(sid, create=False), lambda: sessions.take_snapshot(sid))
    return JSONResponse(
        {"id": snap.id, "state_hash": snap.state_hash, "servers": sorted(snap.servers)}, status_code=201
    )


async def call_tool(request: Request) -> JSONResponse:
    hub = _hub(request)
    body = await json_object(request)
    p = request.path_params
    check_writable(hub, p["sid"], p["server"], p["tool"])
    out = await hub.dispatcher.run(p["sid"], p["server"], p["tool"], body.get("arguments", {}))
    return JSONResponse(
        {
            "ok": out.ok,
            "result": out.result,
            "error": out.error,
            "error_kind": out.error_kind,
            "latency_ms": out.latency_ms,
            "state_changed": out.state_changed,
        },
        status_code=200 if out.ok else CALL_STATUS.get(out.error_kind or "", 404),
    )


async def server_state(request: Request) -> JSONResponse:
    """One server's state in a session: a page of a table (``table``, ``offset``, ``limit``), or its hash,
    tables and diff from the seed, paged per table and kind (``diff_offset``, ``diff_limit``); computed in the
    session's lane, off the loop."""
    hub = _hub(request)
    p = request.path_params
    session = hub.sessions.get(p["sid"], create=False)
    server = p["server"]
    hub.library.mount(server)
    table = request.query_params.get("table")
    if table:
        offset, limit = _query_int(request, "offset", 0), min(_query_int(request, "limit", 50), MAX_PAGE)
        return JSONResponse(await in_lane(session, lambda: _browse(session, server, table, offset, limit)))
    offset, limit = _query_int(request, "diff_offset", 0), min(_query_int(request, "diff_limit", DIFF_PAGE), MAX_PAGE)

    def state() -> dict[str, Any]:
        fork = session.fork_of(server)
        diff, counts = page_diff(fork.diff(), offset, limit)
        return {
            "server": server,
            "state_hash": fork.state_hash(),
            "tables": fork.tables(),
            "diff": diff,
            "diff_counts": counts,
            "diff_offset": offset,
            "diff_limit": limit,
        }

    return JSONResponse(await in_lane(session, state))


def _browse(session: Session, server: str, table: str, offset: int, limit: int) -> dict[str, Any]:
    fork = session.fork_of(server)
    if table not in fork.tables():
        raise UnknownTable(f"no table {table!r} in {server}; tables: {', '.join(fork.tables())}")
    return fork.browse(table, offset, limit)


Endpoint = Callable[[Request], Awaitable[Response]]


def handle_errors(endpoint: Endpoint) -> Endpoint:
    """The API's one top-level boundary: a HubError becomes its reply; anything else is a logged 500."""

    async def wrapped(request: Request) -> Response:
        try:
            if "sid" in request.path_params:
                ids.session_id(request.path_params["sid"])
            return await endpoint(request)
        except HubError as exc:
            return http_reply(exc)
        except Exception:  # the API's top-level boundary: a bug must not read as "not found"
            log.exception("%s %s failed", request.method, request.url.path)
            return internal_http_reply()

    return wrapped


routes: list[BaseRoute] = [
    Route("/api/catalog", handle_errors(catalog)),
    Route("/api/sessions", handle_errors(list_sessions)),
    Route("/api/sessions", handle_errors(open_session), methods=["POST"]),
    Route("/api/sessions/{sid}", handle_errors(get_session)),
    Route("/api/sessions/{sid}", handle_errors(close_session), methods=["DELETE"]),
    Route("/api/sessions/{sid}/fork", handle_errors(fork_session), methods=["POST"]),
    Route("/api/sessions/{sid}/snapshot", handle_errors(snapshot_session), methods=["POST"]),
    Route("/api/sessions/{sid}/call/{server}/{tool}", handle_errors(call_tool), methods=["POST"]),
    Route("/api/sessions/{sid}/state/{server}", handle_errors(server_state)),
]


def _routes(app: Starlette) -> list[BaseRoute]:
    return routes


part = Part("api", routes=_routes)
