"""The body limit: no HTTP request body past ``HUB_MAX_BODY_BYTES`` is read, on any route.

A declared ``Content-Length`` over the limit is refused before the route runs; a chunked body is
counted while the route reads it, and the read that crosses the limit raises ``TooLarge``. Either
way the client gets the one reply ``413 {"error": ..., "code": "too_large"}``: whatever the route
answered after the overflow (its own error page, a 500 from a broad handler) is dropped, so a
dashboard form, an ``/api`` call and an MCP post are refused alike and nothing of the body is used.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hub.errors import BadRequest, TooLarge, http_reply
from hub.text import SURROGATE_ESCAPE, storable


async def json_object(request: Request) -> dict[str, Any]:
    """The request's JSON object body (``{}`` when empty); BadRequest for anything else."""
    raw = await request.body()
    if not raw:
        return {}
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise BadRequest(f"malformed JSON body: {exc}") from None
    if SURROGATE_ESCAPE.search(raw.decode("utf-8", "replace")):
        data = storable(data)  # lone surrogates cannot be stored, rendered or sent as UTF-8
    if not isinstance(data, dict):
        raise BadRequest("the request body must be a JSON object")
    return data


def too_large(limit: int) -> TooLarge:
    return TooLarge(
        f"the request body is over the hub's limit of {limit:,} bytes (HUB_MAX_BODY_BYTES); "
        "send less, or raise the limit"
    )


def declared_length(scope: Scope) -> int | None:
    raw = Headers(scope=scope).get("content-length")
    return int(raw) if raw is not None and raw.strip().isdigit() else None


class BodyLimit:
    """Pure ASGI middleware: refuse (413 ``too_large``) every HTTP body over ``max_bytes``."""

    def __init__(self, app: ASGIApp, *, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = declared_length(scope)
        if declared is not None and declared > self.max_bytes:
            await http_reply(too_large(self.max_bytes))(scope, receive, send)
            return
        await Reading(self.app, self.max_bytes).run(scope, receive, send)


class Reading:
    """One request: the bytes read so far, and whether the route's reply still reaches the client."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit
        self.seen = 0
        self.over = False
        self.started = False

    async def run(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def counted() -> Message:
            message = await receive()
            if message["type"] == "http.request":
                self.seen += len(message.get("body", b""))
                if self.seen > self.limit:
                    self.over = True
                    raise too_large(self.limit)
            return message

        async def guarded(message: Message) -> None:
            if self.over:
                return  # the 413 below is the reply
            self.started = self.started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, guarded)
        except Exception:  # what a route makes of the overflow is replaced by the 413; anything else is its own
            if not self.over:
                raise
        if self.over and not self.started:
            await http_reply(too_large(self.limit))(scope, receive, send)
