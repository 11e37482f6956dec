"""The request guard: on a loopback bind, no web page can drive or read the hub.

A hub bound to loopback needs no token, so the browser is the attacker's way in: a page on
another site can POST ``text/plain`` JSON without a preflight, submit a form, open a WebSocket,
or rebind its own DNS name to 127.0.0.1 and read every answer. Every HTTP request and every
WebSocket upgrade therefore passes two checks before any route sees it:

- ``Host`` names a loopback address (``127.0.0.1``, ``localhost``, ``[::1]``, any port), so a
  rebound DNS name gets nothing;
- ``Origin``, when present, is the hub's own origin: a loopback name at the port the request
  came to (``null``, sent by sandboxed frames and ``file:`` pages, is refused).

A refusal is a JSON 403 ``{"error": ..., "code": "forbidden_host" | "forbidden_origin"}``; a
refused WebSocket upgrade gets the same 403 where the server can send one, else a close with
code 1008 and the reason. A hub bound elsewhere requires its bearer token instead (``hub.app``).

``redact_access_log`` keeps ``?token=`` out of uvicorn's access log.
"""

from __future__ import annotations

import json
import logging
import re
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})
WS_POLICY_VIOLATION = 1008


class Refusal(Exception):
    """Why a request is refused: a code for programs and a message for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def split_host(value: str) -> tuple[str, int | None]:
    """(host, port) of a ``Host`` header or an origin's netloc; IPv6 brackets removed."""
    try:
        parsed = urlsplit("//" + value)
        port = parsed.port
    except ValueError:
        raise Refusal("forbidden_host", f"malformed host {value[:100]!r}") from None
    return (parsed.hostname or ""), port


def is_loopback(host: str) -> bool:
    return host in LOOPBACK_NAMES or (host.startswith("127.") and host.replace(".", "").isdigit())


def check_host(host_header: str | None) -> int | None:
    """The port the request was sent to; a Refusal unless ``Host`` names a loopback address."""
    if not host_header:
        raise Refusal("forbidden_host", "a request to a loopback hub must carry a Host header")
    host, port = split_host(host_header)
    if not is_loopback(host):
        raise Refusal(
            "forbidden_host",
            f"Host {host_header[:100]!r} is not a loopback name; this hub answers only "
            "127.0.0.1, localhost or [::1] (bind another address with a token to serve it)",
        )
    return port


def check_origin(origin: str, port: int | None, secure: bool) -> None:
    """A Refusal unless ``origin`` is the hub's own: a loopback name at the request's port."""
    try:
        parsed = urlsplit(origin)
        origin_port = parsed.port or (443 if parsed.scheme == "https" else 80)
    except ValueError:
        origin_port = -1
    own_port = port or (443 if secure else 80)
    if origin_port != own_port or parsed.scheme not in ("http", "https") or not is_loopback(parsed.hostname or ""):
        raise Refusal(
            "forbidden_origin",
            f"Origin {origin[:100]!r} is not this hub's own; a web page from another origin cannot call a loopback hub",
        )


def check_scope(scope: Scope) -> None:
    headers = _headers(scope)
    port = check_host(headers.get("host"))
    origin = headers.get("origin")
    if origin is not None:
        check_origin(origin, port, scope.get("scheme") in ("https", "wss"))


def _headers(scope: Scope) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in scope.get("headers", []):
        name = key.decode("latin-1").lower()
        if name in ("host", "origin") and name not in out:
            out[name] = value.decode("latin-1")
    return out


class RequestGuard:
    """Pure ASGI middleware: refuse foreign Host and Origin on a loopback bind, for HTTP and WebSocket alike."""

    def __init__(self, app: ASGIApp, *, loopback: bool) -> None:
        self.app = app
        self.loopback = loopback

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self.loopback or scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        try:
            check_scope(scope)
        except Refusal as refusal:
            await refuse(scope, send, refusal)
            return
        await self.app(scope, receive, send)


async def refuse(scope: Scope, send: Send, refusal: Refusal) -> None:
    body = json.dumps({"error": refusal.message, "code": refusal.code}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if scope["type"] == "http":
        await send({"type": "http.response.start", "status": 403, "headers": headers})
        await send({"type": "http.response.body", "body": body})
    elif "websocket.http.response" in scope.get("extensions", {}):
        await send({"type": "websocket.http.response.start", "status": 403, "headers": headers})
        await send({"type": "websocket.http.response.body", "body": body})
    else:
        await send({"type": "websocket.close", "code": WS_POLICY_VIOLATION, "reason": refusal.message[:120]})


TOKEN_QUERY = re.compile(r"(?i)([?&]token=)[^&#\s]*")


class RedactToken(logging.Filter):
    """Replace the value of ``token=`` in access-log lines (uvicorn logs the full path with its query)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple) and any(isinstance(a, str) and "token=" in a.lower() for a in record.args):
            record.args = tuple(TOKEN_QUERY.sub(r"\1***", a) if isinstance(a, str) else a for a in record.args)
        return True


def redact_access_log(logger_name: str = "uvicorn.access") -> None:
    """Install the redaction once on uvicorn's access logger (its logging config keeps logger filters)."""
    logger = logging.getLogger(logger_name)
    if not any(isinstance(f, RedactToken) for f in logger.filters):
        logger.addFilter(RedactToken())
