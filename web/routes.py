"""The dashboard's routes under ``/ui`` (``/`` redirects there), its SSE streams and static files.

htmx and its SSE extension are served straight from ``web/node_modules`` (installed from the npm
registry by ``scripts/bootstrap``), never copied into the repository.
"""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from web import sse, views
from web.render import make_link

WEB = Path(__file__).resolve().parent
NODE_MODULES = WEB / "node_modules"
VENDOR = {"htmx": NODE_MODULES / "htmx.org" / "dist", "htmx-ext-sse": NODE_MODULES / "htmx-ext-sse" / "dist"}


async def root(request: Request) -> Response:
    return RedirectResponse(make_link(request)("/ui/"), status_code=307)


def routes() -> list[BaseRoute]:
    return [
        Route("/", root),
        Route("/ui", root),
        Route("/ui/", views.overview),
        Route("/ui/catalog", views.catalog),
        Route("/ui/catalog/{server}/{tool}", views.tool_page),
        Route("/ui/catalog/{server}/{tool}/run", views.run_tool, methods=["POST"]),
        Route("/ui/sessions", views.sessions),
        Route("/ui/sessions/{sid}", views.session_page),
        Route("/ui/sessions/{sid}/state/{server}", views.session_server),
        Route("/ui/episodes", views.episodes),
        Route("/ui/episodes/{eid}", views.episode_page),
        Route("/ui/episodes/{eid}/outcome", views.episode_reward),
        Route("/ui/tasks", views.tasks),
        Route("/ui/tasks/{tid}", views.task_page),
        Route("/ui/tasks/{tid}/replay", views.replay_task, methods=["POST"]),
        Route("/ui/training", views.training),
        Route("/ui/training/{rid}", views.run_page),
        Route("/ui/sse/overview", sse.overview_events),
        Route("/ui/sse/episodes/{eid}", sse.episode_events),
        Mount("/ui/static", StaticFiles(directory=WEB / "static", check_dir=False), name="static"),
        *[Mount(f"/ui/vendor/{name}", StaticFiles(directory=path, check_dir=False), name=f"vendor-{name}")
          for name, path in VENDOR.items()],
    ]
