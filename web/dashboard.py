"""The dashboard's per-app state: templates, the store reader, live counters."""

from __future__ import annotations

from dataclasses import dataclass

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.templating import Jinja2Templates

from hub.core import Hub
from web.live import LiveStats
from web.queries import Reader
from web.render import make_templates


@dataclass
class Dashboard:
    hub: Hub
    templates: Jinja2Templates
    reader: Reader
    live: LiveStats

    @classmethod
    def build(cls, hub: Hub) -> Dashboard:
        return cls(hub, make_templates(), Reader(hub.store.path), LiveStats.attach(hub.bus))


def install(app: Starlette) -> Dashboard:
    """Build the dashboard's state for ``app`` (its live counters start counting now)."""
    found: Dashboard | None = getattr(app.state, "dashboard", None)
    if found is None:
        found = app.state.dashboard = Dashboard.build(app.state.hub)
    return found


def dashboard_of(request: Request) -> Dashboard:
    return install(request.app)
