"""The Starlette application: MCP endpoints, JSON API, health, and (when present) ws/metrics/dashboard."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import hmac
from urllib.parse import parse_qs
from collections.abc import AsyncIterator

from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from hub import api
from hub.config import Settings
from hub.core import Hub
from hub.guard import RequestGuard, redact_access_log
from hub.mcp_http import McpEndpoints
from web.dashboard import install as install_dashboard

OPEN_PATHS = ("/healthz", "/ws")  # /ws checks its token itself: header, ?token= or the hello message


class BearerAuth:
    """Every request but the health check carries ``Authorization: Bearer <HUB_TOKEN>`` (or ``?token=``)."""

    def __init__(self, app: ASGIApp, token: str | None) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.token is None or scope["type"] not in ("http", "websocket") or scope["path"] in OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        if self._authorized(scope):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 4401, "reason": "missing or wrong bearer token"})
            return
        response = JSONResponse({"error": "missing or wrong bearer token"}, status_code=401,
                                headers={"WWW-Authenticate": "Bearer"})
        await response(scope, receive, send)

    def _authorized(self, scope: Scope) -> bool:
        assert self.token is not None
        return scope_has_token(scope, self.token)


def scope_has_token(scope: Scope, token: str) -> bool:
    """Whether a request carries ``Authorization: Bearer <token>`` or ``?token=<token>``."""
    headers = dict(scope.get("headers", []))
    scheme, _, given = headers.get(b"authorization", b"").decode("latin-1").partition(" ")
    if scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode("latin-1"), token.encode()):
        return True
    given_query = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token", [])
    return any(hmac.compare_digest(q.encode(), token.encode()) for q in given_query)


async def healthz(request: object) -> JSONResponse:
    hub: Hub = request.app.state.hub  # type: ignore[attr-defined]
    return JSONResponse({"status": "ok", "servers": len(hub.library.mounts), "tools": len(hub.library.all_tools()),
                         "sessions": len(hub.sessions)})


async def _sweep_forever(hub: Hub) -> None:
    """Close idle sessions, then forget the episodes that lived in them."""
    interval = min(60.0, hub.settings.session_ttl_s / 4)
    while True:
        await asyncio.sleep(interval)
        hub.sessions.sweep()
        hub.episodes.sweep()


def create_app(settings: Settings | None = None, hub: Hub | None = None) -> Starlette:
    settings = (settings or Settings()).check()
    hub = hub or Hub(settings)
    mcp = McpEndpoints(hub.library, hub.dispatcher, loopback=settings.loopback, max_body_bytes=settings.max_body_bytes)
    routes: list[BaseRoute] = [
        Route("/healthz", healthz),
        Route("/mcp", mcp, methods=["GET", "POST", "DELETE"]),
        Route("/mcp/{server}", mcp, methods=["GET", "POST", "DELETE"]),
        Route("/sessions/{sid}/mcp", mcp, methods=["GET", "POST", "DELETE"]),
        Route("/sessions/{sid}/mcp/{server}", mcp, methods=["GET", "POST", "DELETE"]),
        *api.routes,
        *optional_routes(),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        # Start-up objects (modules, schemas, seed databases) live as long as the hub: keep full
        # garbage collections from walking them on every request burst.
        gc.freeze()
        sweeper = asyncio.create_task(_sweep_forever(hub))
        try:
            async with mcp.running(), services(hub):
                yield
        finally:
            sweeper.cancel()

    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.hub = hub
    app.state.settings = settings
    install_dashboard(app)  # issue 6: the dashboard's state; its live counters start counting now
    app.add_middleware(BearerAuth, token=settings.token)
    app.add_middleware(RequestGuard, loopback=settings.loopback)  # outermost: before auth and every route
    redact_access_log()
    return app


def optional_routes() -> list[BaseRoute]:
    """Routes of the parts built on the foundation (rollout WebSocket, metrics, dashboard)."""
    from starlette.routing import WebSocketRoute

    from hub.metrics import metrics_endpoint
    from hub.ws import ws_endpoint

    from web.routes import routes as dashboard_routes  # issue 6: the live dashboard (web/, templates/)

    return [WebSocketRoute("/ws", ws_endpoint), Route("/metrics", metrics_endpoint), *dashboard_routes()]


@contextlib.asynccontextmanager
async def services(hub: Hub) -> AsyncIterator[None]:
    """Background services of the parts built on the foundation (the store's writer)."""
    await hub.store.start(hub.bus)
    try:
        yield
    finally:
        await hub.store.stop()
