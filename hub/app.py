"""The composition root: the Starlette app, assembled from the hub's parts and the installed ones.

The core app serves only ``/healthz`` and sweeps idle sessions; everything else comes from parts
(``hub.parts``): MCP, the JSON API, the rollout WebSocket, metrics and the episode store are the
hub's own (``BUILTIN_PARTS``); the dashboard and the evaluation command arrive as entry points.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
from collections.abc import AsyncIterator, Sequence

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from hub.config import Settings
from hub.core import Hub
from hub.engine import export, store
from hub.parts import Part, discover
from hub.suites import cli as suites_cli
from hub.synth import cli as synth_cli
from hub.transports import api, mcp_http, metrics, openenv, session_client, ws
from hub.transports.auth import BearerAuth
from hub.transports.body import BodyLimit
from hub.transports.guard import RequestGuard, redact_access_log

BUILTIN_PARTS: tuple[Part, ...] = (
    mcp_http.part,
    api.part,
    ws.part,
    openenv.part,
    metrics.part,
    store.part,
    export.part,
    synth_cli.part,
    session_client.part,
    suites_cli.part,
)


def default_parts() -> list[Part]:
    """The hub's own parts, then those that installed packages declare."""
    return [*BUILTIN_PARTS, *discover()]


async def healthz(request: Request) -> JSONResponse:
    hub: Hub = request.app.state.hub
    return JSONResponse(
        {
            "status": "ok",
            "servers": len(hub.library.mounts),
            "tools": len(hub.library.all_tools()),
            "sessions": len(hub.sessions),
        }
    )


async def _sweep_forever(hub: Hub) -> None:
    """Close idle sessions, then forget the episodes that lived in them."""
    interval = min(60.0, hub.settings.session_ttl_s / 4)
    while True:
        await asyncio.sleep(interval)
        hub.sessions.sweep()
        hub.episodes.sweep()


def create_app(
    settings: Settings | None = None, hub: Hub | None = None, parts: Sequence[Part] | None = None
) -> Starlette:
    """The hub's app; ``parts`` defaults to ``default_parts()`` (tests pass an explicit list)."""
    settings = (settings or Settings()).check()
    hub = hub or Hub(settings)
    chosen = list(default_parts() if parts is None else parts)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        # Start-up objects (modules, schemas, seed databases) live as long as the hub: keep full
        # garbage collections from walking them on every request burst.
        gc.freeze()
        sweeper = asyncio.create_task(_sweep_forever(hub))
        try:
            async with contextlib.AsyncExitStack() as stack:
                for part in chosen:
                    if part.lifespan is not None:
                        await stack.enter_async_context(part.lifespan(app))
                yield
        finally:
            sweeper.cancel()

    app = Starlette(routes=[Route("/healthz", healthz)], lifespan=lifespan)
    app.state.hub = hub
    app.state.settings = settings
    app.state.parts = chosen
    for part in chosen:
        if part.install is not None:
            part.install(app)
    for part in chosen:
        if part.routes is not None:
            app.router.routes.extend(part.routes(app))
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    app.add_middleware(BearerAuth, token=settings.token)
    app.add_middleware(RequestGuard, loopback=settings.loopback)  # outermost: before auth and every route
    redact_access_log()
    return app
