"""The JSON API under ``/api``: catalog, sessions, forks, snapshots, tool calls, state and diffs."""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from hub.core import Hub
from hub.library import UnknownServer
from hub.sessions import SessionError


def _hub(request: Request) -> Hub:
    return request.app.state.hub  # type: ignore[no-any-return]


def error(message: str, status: int = 400, **extra: Any) -> JSONResponse:
    return JSONResponse({"error": message, **extra}, status_code=status)


async def _body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if not raw:
        return {}
    data = json.loads(raw)
    if not isinstance(data, dict):
        raise ValueError("the request body must be a JSON object")
    return data


def session_summary(hub: Hub, sid: str) -> dict[str, Any]:
    s = hub.sessions.get(sid, create=False)
    return {"id": s.id, "seed": s.seed, "parent": s.parent, "servers": sorted(s.forks), "calls": s.calls,
            "state_hash": s.state_hash(), "scenarios": sorted(s.configs)}


async def catalog(request: Request) -> JSONResponse:
    return JSONResponse(_hub(request).library.catalog())


async def list_sessions(request: Request) -> JSONResponse:
    hub = _hub(request)
    return JSONResponse({"sessions": [session_summary(hub, sid) for sid in list(hub.sessions.sessions)]})


async def open_session(request: Request) -> JSONResponse:
    hub = _hub(request)
    body = await _body(request)
    s = hub.sessions.open(body.get("id"), seed=body.get("seed"), snapshot=body.get("snapshot"),
                          configs=body.get("configs"), loader_kwargs=body.get("loader_kwargs"))
    return JSONResponse(session_summary(hub, s.id), status_code=201)


async def get_session(request: Request) -> JSONResponse:
    return JSONResponse(session_summary(_hub(request), request.path_params["sid"]))


async def close_session(request: Request) -> JSONResponse:
    _hub(request).sessions.close(request.path_params["sid"])
    return JSONResponse({"closed": request.path_params["sid"]})


async def fork_session(request: Request) -> JSONResponse:
    hub = _hub(request)
    body = await _body(request)
    child = hub.sessions.fork(request.path_params["sid"], body.get("id"))
    return JSONResponse(session_summary(hub, child.id), status_code=201)


async def snapshot_session(request: Request) -> JSONResponse:
    snap = _hub(request).sessions.take_snapshot(request.path_params["sid"])
    return JSONResponse({"id": snap.id, "state_hash": snap.state_hash, "servers": sorted(snap.servers)}, status_code=201)


async def call_tool(request: Request) -> JSONResponse:
    hub = _hub(request)
    body = await _body(request)
    p = request.path_params
    out = hub.dispatcher.call(p["sid"], p["server"], p["tool"], body.get("arguments", {}))
    return JSONResponse({"ok": out.ok, "result": out.result, "error": out.error, "error_kind": out.error_kind,
                         "latency_ms": out.latency_ms, "state_changed": out.state_changed},
                        status_code=200 if out.ok or out.error_kind in ("tool", "arguments") else 404)


async def server_state(request: Request) -> JSONResponse:
    hub = _hub(request)
    p = request.path_params
    session = hub.sessions.get(p["sid"], create=False)
    hub.library.mount(p["server"])
    fork = session.fork_of(p["server"])
    table = request.query_params.get("table")
    if table:
        offset = int(request.query_params.get("offset", 0))
        limit = min(int(request.query_params.get("limit", 50)), 500)
        return JSONResponse(fork.browse(table, offset, limit))
    return JSONResponse({"server": p["server"], "state_hash": fork.state_hash(), "tables": fork.tables(),
                         "diff": fork.diff()})


def handle_errors(endpoint: Any) -> Any:
    async def wrapped(request: Request) -> JSONResponse:
        try:
            return await endpoint(request)  # type: ignore[no-any-return]
        except json.JSONDecodeError as exc:
            return error(f"malformed JSON body: {exc}")
        except (SessionError, UnknownServer, KeyError) as exc:
            return error(str(exc).strip('"'), 404)
        except ValueError as exc:
            return error(str(exc))

    return wrapped


routes = [
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
