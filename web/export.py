"""Export of the filtered episode list: the hub's export formats (``hub.engine.export``: jsonl, atif, openai) as
JSON lines, or the table as CSV, with the list's own filter and order. Streamed: the file is written as it is read."""

from __future__ import annotations

import asyncio
import csv
import io
from collections.abc import AsyncIterator

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response, StreamingResponse

from hub.engine.export import FORMATS, export, read_ids
from hub.state.library import Library
from web import queries
from web.dashboard import Dashboard, dashboard_of
from web.views import episode_filter, with_points

EXPORT_MAX = 50_000  # episodes in one export; the filter narrows a bigger list
PAGE = 1_000
CSV_COLUMNS = (
    "id",
    "task_id",
    "group_id",
    "run_id",
    "run_step",
    "status",
    "reason",
    "calls",
    "failed_calls",
    "format_errors",
    "reward",
    "max",
    "preset",
    "state_match",
    "opened_at",
    "finished_at",
)


async def episodes_export(request: Request) -> Response:
    dash = dashboard_of(request)
    fmt = request.query_params.get("format", "jsonl")
    if fmt not in (*FORMATS, "csv"):
        return PlainTextResponse(f"unknown format {fmt!r}: one of {', '.join((*FORMATS, 'csv'))}", status_code=400)
    flt = episode_filter(request)
    if fmt == "csv":
        body: AsyncIterator[str] = _csv(dash, flt)
        media, suffix = "text/csv; charset=utf-8", "csv"
    else:
        ids = await queries.episode_ids(dash.reader, flt, EXPORT_MAX)
        body = _lines(dash, ids, fmt)
        media, suffix = "application/x-ndjson", f"{fmt}.jsonl"
    headers = {"Content-Disposition": f'attachment; filename="episodes.{suffix}"'}
    return StreamingResponse(body, media_type=media, headers=headers)


async def _lines(dash: Dashboard, ids: list[str], fmt: str) -> AsyncIterator[str]:
    """The episodes in ``fmt``, a chunk of them at a time, read and converted off the event loop."""
    library = dash.hub.library
    for start in range(0, len(ids), 100):
        chunk = ids[start : start + 100]
        yield await asyncio.to_thread(_convert, dash.reader.path, chunk, fmt, library)


def _convert(path: str, ids: list[str], fmt: str, library: Library) -> str:
    out = io.StringIO()
    export(read_ids(path, ids), fmt, out, library if fmt != "jsonl" else None)
    return out.getvalue()


async def _csv(dash: Dashboard, flt: queries.EpisodeFilter) -> AsyncIterator[str]:
    """The table's rows with the points each component lost, a page of the list at a time."""
    components = list(queries.COMPONENTS)
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow([*CSV_COLUMNS, *(f"lost_{c}" for c in components)])
    cursor, written = None, 0
    while written < EXPORT_MAX:
        page = await queries.episode_page(dash.reader, flt, cursor, PAGE)
        for r in (with_points(row) for row in page.rows):
            points = r.get("points") or {}
            lost = points.get("lost", {})
            values = {**r, "calls": r.get("call_count"), "max": points.get("max"), "preset": r.get("reward_preset")}
            writer.writerow([*(values.get(c) for c in CSV_COLUMNS), *(lost.get(c) for c in components)])
        written += len(page.rows)
        yield buf.getvalue()
        buf.seek(0)
        buf.truncate()
        if page.next_cursor is None:
            return
        cursor = page.next_cursor
