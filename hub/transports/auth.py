"""Who may talk to the hub: the bearer token, checked in one place for HTTP, MCP and ``/ws``.

Every request but the health check carries ``Authorization: Bearer <HUB_TOKEN>`` (or ``?token=``);
``/ws`` checks its token itself, so that clients that cannot set headers can send it in ``hello``.
"""

from __future__ import annotations

import hmac
from urllib.parse import parse_qs

from starlette.types import ASGIApp, Receive, Scope, Send

from hub.errors import Unauthorized, http_reply

OPEN_PATHS = ("/healthz", "/ws")  # /ws checks its token itself: header, ?token= or the hello message
UNAUTHORIZED = "missing or wrong bearer token"


def token_matches(given: str | None, token: str | None) -> bool:
    """Constant-time comparison; no token configured means nothing to match. Any text compares (as bytes)."""
    return bool(given and token and hmac.compare_digest(given.encode("utf-8", "surrogatepass"), token.encode()))


def scope_has_token(scope: Scope, token: str) -> bool:
    """Whether a request carries ``Authorization: Bearer <token>`` (any case of the scheme) or ``?token=<token>``."""
    headers = dict(scope.get("headers", []))
    scheme, _, given = headers.get(b"authorization", b"").decode("latin-1").partition(" ")
    if scheme.lower() == "bearer" and token_matches(given.strip().encode("latin-1").decode("utf-8", "replace"), token):
        return True
    given_query = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token", [])
    return any(token_matches(q, token) for q in given_query)


class BearerAuth:
    """ASGI middleware: refuse HTTP (401) and WebSocket (close 4401) requests without the token."""

    def __init__(self, app: ASGIApp, token: str | None) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.token is None or scope["type"] not in ("http", "websocket") or scope["path"] in OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        if scope_has_token(scope, self.token):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 4401, "reason": UNAUTHORIZED})
            return
        response = http_reply(Unauthorized(UNAUTHORIZED), headers={"WWW-Authenticate": "Bearer"})
        await response(scope, receive, send)
