"""Who may talk to the hub: the bearer token, checked in one place for HTTP, MCP and ``/ws``.

Every request but the health check carries ``Authorization: Bearer <HUB_TOKEN>`` (or ``?token=``);
``/ws`` checks its token itself, so that clients that cannot set headers can send it in ``hello``.

Guessing is throttled per address (``AuthThrottle``): an address that presented a wrong token
``HUB_AUTH_FAILURES`` times within a minute is refused (``429 rate_limited``, ``Retry-After``), on
every route and on ``/ws``, until its oldest failure leaves the minute. A request that presents no
token at all is refused (401) without counting against its address.
"""

from __future__ import annotations

import hmac
import math
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from urllib.parse import parse_qs

from starlette.types import ASGIApp, Receive, Scope, Send

from hub.errors import RateLimited, Unauthorized, http_reply

OPEN_PATHS = ("/healthz", "/ws")  # /ws checks its token itself: header, ?token= or the hello message
UNAUTHORIZED = "missing or wrong bearer token"
WINDOW_S = 60.0
MAX_ADDRESSES = 10_000  # addresses whose failures are remembered (the least recent are forgotten first)


def token_matches(given: str | None, token: str | None) -> bool:
    """Constant-time comparison; no token configured means nothing to match. Any text compares (as bytes)."""
    return bool(given and token and hmac.compare_digest(given.encode("utf-8", "surrogatepass"), token.encode()))


def presented_tokens(scope: Scope) -> list[str]:
    """The tokens a request presents: ``Authorization: Bearer <token>`` (any case of the scheme), ``?token=``."""
    headers = dict(scope.get("headers", []))
    scheme, _, given = headers.get(b"authorization", b"").decode("latin-1").partition(" ")
    found = []
    if scheme.lower() == "bearer":
        found.append(given.strip().encode("latin-1").decode("utf-8", "replace"))
    found.extend(parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token", []))
    return found


def scope_has_token(scope: Scope, token: str) -> bool:
    """Whether a request carries ``Authorization: Bearer <token>`` (any case of the scheme) or ``?token=<token>``."""
    return any(token_matches(given, token) for given in presented_tokens(scope))


def client_address(scope: Scope) -> str:
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


class AuthThrottle:
    """Failed token attempts per address over a sliding window; past ``limit`` the address is refused."""

    def __init__(self, limit: int, window_s: float = WINDOW_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.window_s = window_s
        self.clock = clock
        self.failures: OrderedDict[str, deque[float]] = OrderedDict()
        self.refused = 0

    def retry_after(self, address: str) -> float:
        """Seconds until ``address`` may try again (0: it may now)."""
        times = self.failures.get(address)
        if times is None:
            return 0.0
        cutoff = self.clock() - self.window_s
        while times and times[0] <= cutoff:
            times.popleft()
        if not times:
            del self.failures[address]
            return 0.0
        return 0.0 if len(times) < self.limit else times[0] - cutoff

    def fail(self, address: str) -> float:
        """Count a failed attempt; the seconds the address must now wait (0 while under the limit)."""
        times = self.failures.setdefault(address, deque(maxlen=self.limit))
        self.failures.move_to_end(address)
        times.append(self.clock())
        while len(self.failures) > MAX_ADDRESSES:
            self.failures.popitem(last=False)
        return self.retry_after(address)

    def error(self, wait: float) -> RateLimited:
        self.refused += 1
        return RateLimited(
            f"too many failed token attempts from this address; retry in {math.ceil(wait)} s", retry_after=wait
        )


def retry_headers(exc: RateLimited) -> dict[str, str]:
    return {"Retry-After": str(max(1, math.ceil(exc.retry_after)))}


class BearerAuth:
    """ASGI middleware: refuse HTTP (401) and WebSocket (close 4401) requests without the token, and addresses
    that guessed wrong too often (429 / close 1008)."""

    def __init__(self, app: ASGIApp, token: str | None, throttle: AuthThrottle | None = None) -> None:
        self.app = app
        self.token = token
        self.throttle = throttle

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.token is None or scope["type"] not in ("http", "websocket") or scope["path"] in OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        address = client_address(scope)
        wait = self.throttle.retry_after(address) if self.throttle is not None else 0.0
        if wait <= 0:
            presented = presented_tokens(scope)
            if any(token_matches(given, self.token) for given in presented):
                await self.app(scope, receive, send)
                return
            if presented and self.throttle is not None:
                self.throttle.fail(address)
        if wait > 0 and self.throttle is not None:
            exc = self.throttle.error(wait)
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008, "reason": exc.message[:120]})
                return
            await http_reply(exc, headers=retry_headers(exc))(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 4401, "reason": UNAUTHORIZED})
            return
        response = http_reply(Unauthorized(UNAUTHORIZED), headers={"WWW-Authenticate": "Bearer"})
        await response(scope, receive, send)
