"""CSRF tokens for the dashboard's state-changing forms (run a tool, replay a task).

A signed double-submit token: the first page a browser loads sets a random nonce in the cookie
``prove_csrf`` (``SameSite=Strict``, ``HttpOnly``), and every page carries ``HMAC(secret, nonce)``
in its forms (the hidden ``csrf_token`` field) and in the ``X-CSRF-Token`` header that htmx sends
(``hx-headers`` on ``<body>``). A post is accepted only when the token it carries is the HMAC of the
nonce its own cookie carries: a page on another site can read neither, and a browser does not send a
Strict cookie with a cross-site post. The secret is drawn when the dashboard starts, so tokens end
with the hub process. This backs up the request guard (``hub.transports.guard``), which refuses a foreign
``Origin`` but cannot see a post whose browser sent none.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field

from starlette.requests import Request
from starlette.responses import Response

from hub.errors import Forbidden, http_reply

COOKIE = "prove_csrf"
FIELD = "csrf_token"
HEADER = "x-csrf-token"
NONCE = re.compile(r"[0-9a-f]{32}")


@dataclass(frozen=True)
class Csrf:
    secret: bytes = field(default_factory=lambda: secrets.token_bytes(32), repr=False)

    def token(self, nonce: str) -> str:
        return hmac.new(self.secret, nonce.encode(), hashlib.sha256).hexdigest()

    def page_token(self, request: Request) -> str:
        """The token a page puts in its forms: for the request's cookie nonce, or a new one ``set_cookie`` sends."""
        nonce: str | None = getattr(request.state, "csrf_nonce", None)
        if nonce is None:
            nonce = request.cookies.get(COOKIE, "")
            if not NONCE.fullmatch(nonce):
                nonce = secrets.token_hex(16)
                request.state.csrf_new = True
            request.state.csrf_nonce = nonce
        return self.token(nonce)

    def set_cookie(self, request: Request, response: Response) -> None:
        if getattr(request.state, "csrf_new", False):
            response.set_cookie(
                COOKIE,
                request.state.csrf_nonce,
                httponly=True,
                samesite="strict",
                path="/",
                secure=request.url.scheme == "https",
            )

    def valid(self, request: Request, form: Mapping[str, str]) -> bool:
        """Whether the post carries (form field or header) the token of the nonce in its cookie."""
        nonce = request.cookies.get(COOKIE, "")
        sent = form.get(FIELD) or request.headers.get(HEADER) or ""
        return bool(NONCE.fullmatch(nonce)) and hmac.compare_digest(sent.encode(), self.token(nonce).encode())


def refusal() -> Response:
    return http_reply(
        Forbidden(
            "this form post carries no valid CSRF token (a page on another site cannot post "
            "to the hub's dashboard); reload the dashboard page and submit again"
        )
    )
