"""The dashboard's routes under ``/ui`` (``/`` redirects there), its SSE streams and static files.

htmx and its SSE extension come from the npm registry (``scripts/bootstrap``); they are served from
``web/static/vendor`` where the wheel build or the bootstrap copied them, else straight from
``web/node_modules`` (``web/vendor.py``). Neither is committed to the repository.
"""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from web import analytics, export, sse, views
from web.render import make_link
from web.vendor import served_dirs

WEB = Path(__file__).resolve().parent
VENDOR = served_dirs()


async def root(request: Request) -> Response:
    return RedirectResponse(make_link(request)("/ui/"), status_code=307)


async def favicon(request: Request) -> Response:
    return FileResponse(WEB / "static" / "favicon.svg", media_type="image/svg+xml")


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
        Route("/ui/episodes/export", export.episodes_export),
        Route("/ui/episodes/{eid}", views.episode_page),
        Route("/ui/episodes/{eid}/outcome", views.episode_reward),
        Route("/ui/groups/{gid}", views.group_page),
        Route("/ui/tasks", views.tasks),
        Route("/ui/tasks/{tid}", views.task_page),
        Route("/ui/tasks/{tid}/replay", views.replay_task, methods=["POST"]),
        Route("/ui/training", views.training),
        Route("/ui/training/{rid}", views.run_page),
        Route("/ui/training/{rid}/analytics", analytics.run_analytics),
        Route("/ui/compare", views.compare_runs),
        Route("/ui/sse/overview", sse.overview_events),
        Route("/ui/sse/episodes", sse.list_events),
        Route("/ui/sse/episodes/{eid}", sse.episode_events),
        Route("/ui/sse/training/{rid}", sse.run_events),
        Route("/favicon.ico", favicon),
        Mount("/ui/static", StaticFiles(directory=WEB / "static", check_dir=False), name="static"),
        *[
            Mount(f"/ui/vendor/{name}", StaticFiles(directory=path, check_dir=False), name=f"vendor-{name}")
            for name, path in VENDOR.items()
        ],
    ]
