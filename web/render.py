"""Templates: one Jinja2 environment (autoescape on), filters, and token-carrying links.

A view renders a page, or just its fragment when htmx asks (``HX-Request`` header): both are
``TemplateResponse``s, so tests read ``response.template`` and ``response.context``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from jinja2 import Environment
from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import Response
from starlette.templating import Jinja2Templates

from web import svg

WEB = Path(__file__).resolve().parent
# The top-level templates/ of a checkout; the wheel build copies it into the package (setup.py).
TEMPLATES = next((d for d in (WEB / "templates", WEB.parent / "templates") if d.is_dir()), WEB / "templates")
PREFIX = "/ui"
NAV = (
    ("overview", "Overview", "/"),
    ("catalog", "Catalog", "/catalog"),
    ("sessions", "Sessions", "/sessions"),
    ("episodes", "Episodes", "/episodes"),
    ("tasks", "Tasks", "/tasks"),
    ("training", "Training", "/training"),
)
CLIP = 20_000
INDENT_MAX = 4_000


def token_of(request: Request) -> str | None:
    """The ``?token=`` the page was opened with, when the hub has a token; links carry it on."""
    settings = getattr(request.app.state, "settings", None)
    if settings is None or settings.token is None:
        return None
    return request.query_params.get("token")


def make_link(request: Request) -> Callable[..., str]:
    """``link("/episodes", task="t1")`` -> ``/ui/episodes?task=t1[&token=...]``; empty values are dropped."""
    root = request.scope.get("root_path", "")
    token = token_of(request)

    def link(path: str, _params: Mapping[str, Any] | None = None, **params: Any) -> str:
        # 0 is a value (step 0), though 0 == False: test identity, not equality
        query = {k: v for k, v in {**(_params or {}), **params}.items() if v is not None and v is not False and v != ""}
        if token:
            query["token"] = token
        base = path if path.startswith(PREFIX + "/") or path == PREFIX or path.startswith("/api") else PREFIX + path
        return root + base + ("?" + urlencode(query, doseq=True) if query else "")

    return link


def csrf_token(request: Request) -> str:
    dashboard = getattr(request.app.state, "dashboard", None)
    return "" if dashboard is None else dashboard.csrf.page_token(request)  # type: ignore[no-any-return]


def dashboard_context(request: Request) -> dict[str, Any]:
    return {"link": make_link(request), "token": token_of(request), "nav": NAV, "csrf_token": csrf_token(request)}


# Filters ----------------------------------------------------------------------------------------


def ts(value: float | None) -> str:
    if value is None:
        return ""
    return datetime.fromtimestamp(value, UTC).strftime("%Y-%m-%d %H:%M:%S")


def ago(value: float | None) -> str:
    if value is None:
        return ""
    secs = max(0.0, time.time() - value)
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if secs >= size:
            return f"{secs / size:.0f}{unit} ago"
    return f"{secs:.0f}s ago"


def pretty(value: Any, limit: int = CLIP) -> str:
    """Indented JSON (strings as they are), clipped to ``limit`` characters; the caller's template escapes it.

    Large values stay on one line: ``json`` indents only in pure Python, which is slow on big results.
    """
    if isinstance(value, str):
        text = value
    else:
        text = json.dumps(value, default=str, ensure_ascii=False)
        if len(text) <= INDENT_MAX:
            text = json.dumps(value, indent=2, default=str, ensure_ascii=False)
    if len(text) > limit:
        return text[:limit] + f"\n… ({len(text) - limit:,} more characters)"
    return text


def compact(value: Any, limit: int = 160) -> str:
    if isinstance(value, str):
        text = value
    else:
        text = json.dumps(value, default=str, ensure_ascii=False, separators=(", ", ": "))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def shorten(value: str | None, keep: int = 14) -> str:
    """A long id cut to its kind prefix and its tail (``ep-…9e98915bd``): ids of one kind share their start and
    differ at the end; the template puts the full id in a title and a copy button."""
    text = "" if value is None else str(value)
    if len(text) <= keep + 2:
        return text
    head = text.split("-", 1)[0] + "-" if "-" in text[:6] else text[: max(2, keep // 4)]
    return head + "…" + text[-max(3, keep - len(head)) :]


COPY_MAX = 20_000


def to_json(value: Any) -> str:
    """Indented JSON for a copy button: the whole value, not the clipped display; "" past ``COPY_MAX``
    characters (the button then copies what the page shows, so a page of big results stays small)."""
    text = json.dumps(value, indent=2, default=str, ensure_ascii=False)
    return text if len(text) <= COPY_MAX else ""


def num(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def chart(value: str) -> Markup:
    """Mark a chart from ``web.svg`` safe: it escapes every piece of text itself."""
    return Markup(value)


def make_templates(directory: Path = TEMPLATES) -> Jinja2Templates:
    templates = Jinja2Templates(directory=str(directory), context_processors=[dashboard_context])
    env: Environment = templates.env
    env.auto_reload = False  # no stat() per include: an episode page includes one partial per turn and call
    assert env.autoescape, "the dashboard's templates must autoescape"
    env.filters.update(
        ts=ts,
        ago=ago,
        pretty=pretty,
        compact=compact,
        num=num,
        chart=chart,
        shorten=shorten,
        to_json=to_json,
        value=svg.value_label,
    )
    env.globals.update(line_chart=svg.line_chart, bar_chart=svg.bar_chart, Series=svg.Series)
    return templates


def is_htmx(request: Request) -> bool:
    return request.headers.get("HX-Request") == "true" and request.headers.get("HX-Boosted") != "true"


def render(
    request: Request, page: str, context: dict[str, Any], fragment: str | None = None, status_code: int = 200
) -> Response:
    """The page, or ``fragment`` alone for an htmx request."""
    templates: Jinja2Templates = request.app.state.dashboard.templates
    name = fragment if fragment is not None and is_htmx(request) else page
    response = templates.TemplateResponse(request, name, context, status_code=status_code)
    request.app.state.dashboard.csrf.set_cookie(request, response)
    return response


def fragment_html(request: Request, name: str, **context: Any) -> str:
    """A partial rendered to a string (for SSE messages), with the same globals as a page."""
    templates: Jinja2Templates = request.app.state.dashboard.templates
    return templates.get_template(name).render({**dashboard_context(request), "request": request, **context})
