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

``redact_logs(token)`` keeps the token out of every log line: ``?token=`` values (whatever the case
or percent-encoding of the name) and the token itself wherever it appears, in messages, their
arguments and exception text, on uvicorn's HTTP and WebSocket lines and on every record the
process's log handlers write.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable
from urllib.parse import quote, quote_plus, urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

from hub.config import is_loopback_host

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
    return is_loopback_host(host)


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


# ``token=`` in a query, its name in any case and any percent-encoding of its letters (``%74oken=``).
TOKEN_QUERY = re.compile(r"(?i)((?:^|[?&;])(?:t|%74)(?:o|%6f)(?:k|%6b)(?:e|%65)(?:n|%6e)=)[^&#\s\"']*")
MASK = "***"
PLAIN = (int, float, bool, type(None), bytes)
UVICORN_LOGGERS = ("uvicorn", "uvicorn.access", "uvicorn.error")


class RedactToken(logging.Filter):
    """Mask tokens in a log record: ``token=`` query values, and each known secret (as given, or URL-encoded)."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        self.secrets: set[str] = set()
        self.add(secrets)

    def add(self, secrets: Iterable[str]) -> None:
        for secret in secrets:
            if secret:
                self.secrets.update({secret, quote(secret, safe=""), quote_plus(secret)})

    def clean(self, text: str) -> str:
        if "=" in text:
            text = TOKEN_QUERY.sub(lambda m: m.group(1) + MASK, text)
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, MASK)
        return text

    def _arg(self, value: object) -> object:
        if isinstance(value, str):
            return self.clean(value)
        if isinstance(value, PLAIN):
            return value
        text = str(value)
        clean = self.clean(text)
        return value if clean == text else clean

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = self.clean(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(self._arg(a) for a in record.args)
        elif isinstance(record.args, dict):
            record.args = {k: self._arg(v) for k, v in record.args.items()}
        if record.exc_info and record.exc_info[0] is not None:
            record.exc_text = self.clean(record.exc_text or logging.Formatter().formatException(record.exc_info))
        return True


REDACTION = RedactToken()


def redact_logs(token: str | None = None) -> RedactToken:
    """Mask ``token`` (and every ``?token=`` value) in the process's log lines: on uvicorn's loggers and on every
    handler of them and of the root logger (so records from any logger are cleaned on their way out). Call it
    again once the server has configured logging (the app's start-up does): new handlers get the filter too."""
    REDACTION.add([token] if token else [])
    for name in (*UVICORN_LOGGERS, ""):
        logger = logging.getLogger(name)
        for holder in (logger, *logger.handlers):
            if REDACTION not in holder.filters:
                holder.addFilter(REDACTION)
    return REDACTION
