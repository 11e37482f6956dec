"""The dashboard as a hub part (declared as the ``dashboard`` entry point in ``prove_hub.parts``)."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.routing import BaseRoute

from hub.parts import Part
from web.dashboard import install
from web.routes import routes


def _install(app: Starlette) -> None:
    install(app)  # the dashboard's state; its live counters start counting now


def _routes(app: Starlette) -> list[BaseRoute]:
    return routes()


part = Part("dashboard", install=_install, routes=_routes)
