"""Dashboard pages: each view gathers its context and renders a page (or its fragment for htmx)."""

from __future__ import annotations

import math
from typing import Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from hub import ids
from hub.engine.episodes import EpisodeError
from hub.kit import Tool
from hub.state.library import UnknownServer, UnknownTool
from hub.state.sessions import SessionError
from hub.tasks import Task, TaskError, UnknownTask, oracle_script
from web import csrf, models, queries
from web import runs as runs_view
from web.dashboard import Dashboard, dashboard_of
from web.forms import RAW_FIELD, FormError, arguments_from_form, fields_of
from web.render import is_htmx, make_link, render
from web.svg import Series, bar_chart, line_chart, points_chart


class NotFound(LookupError):
    """A page about something that does not exist."""


def not_found(request: Request, message: str) -> Response:
    return render(request, "not_found.html", {"page": "", "message": message}, status_code=404)


def _int(value: str | None, default: int, lo: int = 0, hi: int = 10**9) -> int:
    if not value:
        return default
    try:
        return max(lo, min(hi, int(value)))
    except ValueError:
        return default


def _float(value: str | None) -> float | None:
    if not value:
        return None
    try:
        out = float(value)
    except ValueError:
        return None
    return out if math.isfinite(out) else None


# Overview ---------------------------------------------------------------------------------------


async def overview_stats(dash: Dashboard) -> dict[str, Any]:
    """The live counters and the calls-per-second chart."""
    hub = dash.hub
    stored = await queries.totals(dash.reader)
    engine = hub.episodes.stats()
    return {
        "sessions": len(hub.sessions.visible()),  # as the Sessions page counts: not the hub's internal ones
        "episodes_open": engine["open"],
        "episodes": stored["episodes"],
        "tool_calls": max(stored["tool_calls"], dash.live.calls),
        "calls_since_start": dash.live.calls,
        "rate": dash.live.rate(10),
        "mean_reward": stored["mean_reward"],
        "rewarded": stored["rewarded"],
        "store": hub.store.stats(),
        "rate_chart": line_chart(
            [Series("calls/s", dash.live.series(120))],
            title="tool calls per second (last 2 min)",
            x_label="seconds ago",
            empty="no calls yet",
            width=1300,
            height=170,
        ),
    }


def moving_average(values: list[float], window: int = 20) -> list[tuple[float, float]]:
    out, acc = [], 0.0
    for i, v in enumerate(values):
        acc += v
        if i >= window:
            acc -= values[i - window]
        out.append((float(i + 1), acc / min(i + 1, window)))
    return out


async def overview(request: Request) -> Response:
    dash = dashboard_of(request)
    stats = await overview_stats(dash)
    if is_htmx(request):
        return render(request, "partials/overview_stats.html", {"stats": stats})
    recent = await queries.recent_calls(dash.reader, limit=20)
    return render(
        request,
        "overview.html",
        {"page": "overview", "stats": stats, "calls": recent.rows, **await overview_charts(dash)},
    )


async def overview_charts(dash: Dashboard) -> dict[str, str]:
    """The reward curve of the latest episodes and the mean points each component loses."""
    rewards = await queries.recent_rewards(dash.reader)
    lost = models.loss_tables(await queries.losses(dash.reader, recent=500))["components"]
    reward_chart = line_chart(
        [
            Series("reward", [(float(i + 1), r) for i, r in enumerate(rewards)]),
            Series("moving mean (20)", moving_average(rewards)),
        ],
        title=f"reward of the last {len(rewards)} episodes",
        x_label="episode",
        empty="no finished episodes yet",
    )
    comp_chart = bar_chart(
        [(r["name"], r["per_episode"]) for r in sorted(lost, key=lambda r: r["name"])],
        title="mean points lost per episode, by component (last 500)",
        empty="no rewards yet",
    )
    return {"reward_chart": reward_chart, "components_chart": comp_chart}


# Catalog ----------------------------------------------------------------------------------------


def catalog_servers(dash: Dashboard, q: str, server: str) -> list[dict[str, Any]]:
    """Servers and their tools matching a search over server, tool name and description."""
    needle = q.strip().lower()
    out = []
    for name, mount in dash.hub.library.mounts.items():
        if server and name != server:
            continue
        tools = [t for t in mount.tools.values() if not needle or needle in f"{name} {t.name} {t.description}".lower()]
        if tools or not needle:
            out.append({"name": name, "description": mount.description, "tools": tools, "total": len(mount.tools)})
    return out


async def catalog(request: Request) -> Response:
    dash = dashboard_of(request)
    q, server = request.query_params.get("q", ""), request.query_params.get("server", "")
    servers = catalog_servers(dash, q, server)
    context = {
        "page": "catalog",
        "q": q,
        "server": server,
        "servers": servers,
        "all_servers": list(dash.hub.library.mounts),
        "matches": sum(len(s["tools"]) for s in servers),
        "tool_count": len(dash.hub.library.all_tools()),
    }
    return render(request, "catalog.html", context, fragment="partials/catalog_list.html")


def path_tool(request: Request) -> tuple[Dashboard, str, str, Tool] | Response:
    """The dashboard, server, tool name and tool that the path names, or the not-found page when there is none."""
    dash = dashboard_of(request)
    server, name = request.path_params["server"], request.path_params["tool"]
    try:
        return dash, server, name, dash.hub.library.tool(server, name)
    except (UnknownServer, UnknownTool) as exc:
        return not_found(request, str(exc))


async def tool_page(request: Request) -> Response:
    found = path_tool(request)
    if isinstance(found, Response):
        return found
    dash, server, name, tool = found
    recent = await queries.recent_calls(dash.reader, server=server, tool=name, limit=10)
    return render(
        request,
        "tool.html",
        {
            "page": "catalog",
            "tool": tool,
            "fields": fields_of(tool.input_schema),
            "raw_field": RAW_FIELD,
            "session": request.query_params.get("session", "ui-scratch"),
            "calls": recent.rows,
        },
    )


async def run_tool(request: Request) -> Response:
    """Run a tool from its form in a scratch session: the result and the state diff the call caused."""
    found = path_tool(request)
    if isinstance(found, Response):
        return found
    dash, server, name, tool = found
    form = {k: str(v) for k, v in (await request.form()).items()}
    if not dash.csrf.valid(request, form):
        return csrf.refusal()
    sid = form.get("session", "").strip() or "ui-scratch"
    context: dict[str, Any] = {
        "tool": tool,
        "session": sid,
        "arguments": None,
        "outcome": None,
        "diff": None,
        "form_error": None,
    }
    if not ids.SESSION_ID.fullmatch(sid):
        context["form_error"] = f"a session id is {ids.SESSION_ID_RULE}"
        return render(request, "tool_result.html", context, fragment="partials/tool_result.html")
    if sid.startswith(models.INTERNAL_SESSION_PREFIXES):
        context["form_error"] = (
            f"session {sid!r} is internal to the hub (an episode template or an episode); choose another session id"
        )
        return render(request, "tool_result.html", context, fragment="partials/tool_result.html")
    try:
        context["arguments"] = arguments_from_form(tool.input_schema, form)
    except FormError as exc:
        context["form_error"] = str(exc)
        return render(request, "tool_result.html", context, fragment="partials/tool_result.html")
    context["outcome"], context["diff"] = await call_with_diff(dash, sid, server, name, context["arguments"])
    return render(request, "tool_result.html", context, fragment="partials/tool_result.html")


async def call_with_diff(
    dash: Dashboard, sid: str, server: str, tool: str, arguments: dict[str, Any]
) -> tuple[Any, Any]:
    """Call through the hub's dispatcher (a real, visible call) and diff the server's state around it (the
    copy and the diff in the session's lane, off the event loop)."""
    hub = dash.hub
    try:
        session = hub.sessions.get(sid)
        assert session.lane is not None
        before = await session.lane.run(lambda: session.fork_of(server).clone())
    except SessionError as exc:  # closed, or no room for a fork (capacity)
        return {
            "ok": False,
            "error": str(exc),
            "error_kind": "session",
            "result": None,
            "latency_ms": 0.0,
            "state_changed": False,
        }, None
    try:
        outcome = await hub.dispatcher.run(sid, server, tool, arguments)
        diff = await session.lane.run(lambda: session.fork_of(server).diff(before)) if outcome.state_changed else {}
    finally:
        before.close()
    return outcome, diff


# Sessions ---------------------------------------------------------------------------------------


async def sessions(request: Request) -> Response:
    dash = dashboard_of(request)
    manager = dash.hub.sessions
    offset, limit = _int(request.query_params.get("offset"), 0), 100
    q = request.query_params.get("q", "").strip()
    now = manager.clock()
    found = [s for s in manager.visible() if not q or q in s.id]
    found.sort(key=lambda s: s.last_used, reverse=True)
    rows = [models.session_row(s, now) for s in found[offset : offset + limit]]
    context = {"page": "sessions", "rows": rows, "total": len(found), "offset": offset, "limit": limit, "q": q}
    return render(request, "sessions.html", context, fragment="partials/session_rows.html")


async def session_page(request: Request) -> Response:
    dash = dashboard_of(request)
    sid = request.path_params["sid"]
    try:
        session = dash.hub.sessions.get(sid, create=False)
    except SessionError as exc:
        return not_found(request, str(exc))
    before = _int(request.query_params.get("before"), 0) or None
    calls = await queries.recent_calls(dash.reader, session=sid, before=before, limit=50)
    assert session.lane is not None
    changed, state_hash = await session.lane.run(lambda: (session.server_hashes(), session.state_hash()))
    servers = [
        {"name": name, "forked": name in session.forks, "changed": name in changed} for name in dash.hub.library.mounts
    ]
    row = models.session_row(session, dash.hub.sessions.clock())
    return render(
        request,
        "session.html",
        {
            "page": "sessions",
            "session": row,
            "state_hash": state_hash,
            "servers": servers,
            "calls": calls.rows,
            "next": calls.next_cursor,
            "stored_calls": await queries.session_call_count(dash.reader, sid),
        },
    )


async def session_server(request: Request) -> Response:
    """One server's state in a session: its tables (paged) and the diff from the seed."""
    dash = dashboard_of(request)
    sid, server = request.path_params["sid"], request.path_params["server"]
    try:
        session = dash.hub.sessions.get(sid, create=False)
        mount = dash.hub.library.mount(server)
    except (SessionError, UnknownServer) as exc:
        return not_found(request, str(exc))
    table_asked = request.query_params.get("table")
    offset = _int(request.query_params.get("offset"), 0)
    with_diff = not is_htmx(request)

    def read() -> dict[str, Any]:  # in the session's lane: off the loop, after the session's calls
        forked = server in session.forks
        fork = session.forks.get(server) or mount.open(session.seed, session.configs.get(server))
        try:
            tables = fork.tables()
            table = table_asked or (tables[0] if tables else "")
            return {
                "page": "sessions",
                "sid": sid,
                "server": server,
                "tables": tables,
                "table": table,
                "browse": fork.browse(table, offset, 50) if table else None,
                "forked": forked,
                "state_hash": fork.state_hash(),
                "seed_hash": fork.base_hash(),
                "diff": fork.diff() if forked and with_diff else {},
            }
        finally:
            if not forked:
                fork.close()

    assert session.lane is not None
    try:
        context = await session.lane.run(read)
    except KeyError as exc:
        return not_found(request, str(exc).strip('"'))
    if not with_diff:
        return render(request, "partials/table.html", context)
    return render(request, "session_server.html", context)


# Episodes ---------------------------------------------------------------------------------------


def episode_filter(request: Request) -> queries.EpisodeFilter:
    p = request.query_params
    step = _int(p.get("step"), -1)
    return queries.EpisodeFilter(
        task=p.get("task", "").strip(),
        server=p.get("server", "").strip(),
        status=p.get("status", ""),
        min_reward=_float(p.get("min_reward")),
        max_reward=_float(p.get("max_reward")),
        errors=p.get("errors") in ("1", "on", "true"),
        state=p.get("state", "") if p.get("state") in ("differs", "matches") else "",
        group=p.get("group", "").strip(),
        run=p.get("run", "").strip(),
        step=None if step < 0 else step,
        sort=p.get("sort", "") if p.get("sort", "") in queries.SORTS else "",
    )


SORT_OPTIONS = [
    ("reward", "reward, highest first"),
    ("-reward", "reward, lowest first"),
    ("calls", "most calls first"),
    ("-calls", "fewest calls first"),
    *[(c, f"most points lost on {c}") for c in queries.COMPONENTS],
    *[(f"-{c}", f"fewest points lost on {c}") for c in queries.COMPONENTS],
]
SORT_LABELS = dict(SORT_OPTIONS)


def shown_components(rows: list[dict[str, Any]]) -> list[str]:
    """The component columns worth a column on this page: those some row's reward accounts for (a clarify or
    abstention term only where such tasks are listed); all of them when no row is scored."""
    present = {c for r in rows if r.get("points") for c in r["points"]["lost"]}
    return [c for c in queries.COMPONENTS if c in present] or list(queries.COMPONENTS)


def with_points(row: dict[str, Any]) -> dict[str, Any]:
    """An episode row with its points lost per component and the badge colour by the task's maximum."""
    ledger = row.get("reward_ledger")
    if not ledger or row.get("reward") is None:  # open, or scored before rewards kept their ledger
        row["points"], row["reward_class"] = None, models.reward_class(row.get("reward"), None)
        return row
    pts = models.points(ledger)
    row["points"] = {"max": pts["max"], "lost": {r["name"]: r["lost"] for r in pts["rows"]}}
    row["reward_class"] = models.reward_class(row["reward"], pts["max"], row.get("state_match"))
    return row


async def episodes(request: Request) -> Response:
    dash = dashboard_of(request)
    if request.query_params.get("group") and set(request.query_params) - {"token"} == {"group"}:
        return RedirectResponse(make_link(request)(f"/groups/{request.query_params['group']}"), status_code=307)
    flt = episode_filter(request)
    cursor = request.query_params.get("cursor") or None
    page = await queries.episode_page(dash.reader, flt, cursor)
    total = await queries.count_episodes(dash.reader, flt)
    rows = [with_points(r) for r in page.rows]
    context = {
        "page": "episodes",
        "filter": flt,
        "filter_query": flt.query(),
        "rows": rows,
        "next": page.next_cursor,
        "cursor": cursor,
        "total": total,
        "components": shown_components(rows),
        "sort_options": SORT_OPTIONS,
        "sort_label": SORT_LABELS.get(flt.sort, "newest first"),
        "task_ids": sorted(dash.hub.tasks.tasks)[:2000],
        "servers": list(dash.hub.library.mounts),
    }
    return render(request, "episodes.html", context, fragment="partials/episode_rows.html")


async def episode_page(request: Request) -> Response:
    dash = dashboard_of(request)
    eid = request.path_params["eid"]
    row = await queries.episode(dash.reader, eid)
    live = dash.hub.episodes.episodes.get(eid)
    if row is None and live is None:
        return not_found(request, f"unknown episode {eid!r}")
    if row is None:
        assert live is not None
        row = {
            "id": eid,
            "task_id": live.task.id,
            "group_id": live.group,
            "session_id": live.session_id,
            "status": "finished" if live.reward else "open",
            "reason": live.reason,
            "steps": live.steps,
            "calls": len(live.calls),
            "format_errors": len(live.format_errors),
            "reward": None,
            "opened_at": None,
            "finished_at": None,
            "start_hash": live.start_hash,
            "final_hash": None,
        }
    turns = await queries.turns(dash.reader, eid)
    calls = await queries.episode_calls(dash.reader, eid)
    if live is not None:
        models.merge_live(row, live)
        row.setdefault("run_id", live.run)
        row.setdefault("run_step", live.run_step)
    items = models.timeline(turns, calls)
    first_failed = next((i for i, item in enumerate(items) if item["kind"] == "call" and not item["ok"]), None)
    outcome = {**await reward_context(dash, eid), **await final_state(dash, eid, row["task_id"])}
    mark_state(outcome)
    context = {
        "page": "episodes",
        "episode": row,
        "items": items,
        "first_failed": first_failed,
        "n_calls": len(live.calls) if live is not None else len(calls),
        "n_turns": len(turns),
        "n_failed": sum(1 for i in items if i["kind"] == "call" and not i["ok"]),
        "live": live is not None and live.reward is None,
        **outcome,
    }
    return render(request, "episode.html", context)


def mark_state(outcome: dict[str, Any]) -> None:
    """Recolour the reward badge once the final state is known to differ from the expected one."""
    reward, diff = outcome.get("reward"), outcome.get("state_diff")
    if reward is not None and diff:
        reward["badge"] = models.reward_class(reward["total"], reward["points"]["max"], False)


async def reward_context(dash: Dashboard, eid: str) -> dict[str, Any]:
    """The reward breakdown: from the engine while it holds the episode (it has per-call details), else the store."""
    live = dash.hub.episodes.episodes.get(eid)
    if live is not None and live.reward is not None and live.reward_config is not None:
        r = live.reward
        ledger = [row.model_dump() for row in r.ledger]
        why = dash.hub.episodes.why(live, live.reward_config, r)
        view = reward_view(r.total, r.mode, r.components, r.weights, ledger, why=why)
        view["reward"]["preset"] = r.preset
        return view
    stored = await queries.reward(dash.reader, eid)
    if stored is None:
        return {"reward": None}
    view = reward_view(
        stored["total"], stored["mode"], stored["components"], stored["weights"], stored["ledger"], why=stored["why"]
    )
    view["reward"]["preset"] = stored.get("preset")
    return view


def reward_view(
    total: float,
    mode: str,
    components: dict[str, float],
    weights: dict[str, float],
    ledger: list[dict[str, Any]] | None,
    why: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The total, each component's points earned and lost against the maximum (chart and table), raw values."""
    pts = models.points(ledger or [])
    chart = points_chart(
        [(r["name"], r["earned"], r["lost"]) for r in pts["rows"]],
        title=f"points earned and lost (max {pts['max']:.3g})",
        width=520,
        height=190,
    )
    other = [r for r in models.reward_rows(components, weights) if r["name"] not in {p["name"] for p in pts["rows"]}]
    return {
        "reward": {
            "total": total,
            "mode": mode,
            "points": pts,
            "chart": chart,
            "other": other,
            "badge": models.reward_class(total, pts["max"] or None),
            "why": why,
        }
    }


def task_of(dash: Dashboard, task_id: str) -> Task | None:
    try:
        return dash.hub.tasks.get(task_id)
    except UnknownTask:
        return None


async def final_state(dash: Dashboard, eid: str, task_id: str) -> dict[str, Any]:
    """The episode's state against the expected one and its start: the evidence kept at finish (it outlives
    the session), else, while the episode runs, a live diff of its session."""
    task = task_of(dash, task_id)
    out: dict[str, Any] = {
        "task": task,
        "expected_hash": task.expected_state_hash if task else None,
        "state_diff": None,
        "state_error": None,
        "start_diff": None,
        "evidence": None,
    }
    kept = await queries.evidence(dash.reader, eid)
    if kept is not None:
        out.update(
            evidence=kept,
            state_diff=kept["expected_diff"],
            start_diff=kept["start_diff"],
            state_error=None if kept["expected_diff"] is not None else kept["note"],
        )
        return out
    live = dash.hub.episodes.episodes.get(eid)
    if task is None or live is None or live.session_id not in dash.hub.sessions.sessions:
        return out
    session = dash.hub.sessions.sessions[live.session_id]
    try:
        out["state_diff"] = dash.hub.episodes.expected.diff(task, session)
    except (TaskError, ValueError) as exc:
        out["state_error"] = str(exc)
    out["current_hash"] = session.state_hash(task.servers)
    return out


async def episode_reward(request: Request) -> Response:
    """The reward and final-state section of an episode (re-fetched by htmx when the episode finishes)."""
    dash = dashboard_of(request)
    eid = request.path_params["eid"]
    row = await queries.episode(dash.reader, eid)
    live = dash.hub.episodes.episodes.get(eid)
    task_id = row["task_id"] if row else (live.task.id if live else "")
    context = {
        "episode": row or {"id": eid, "task_id": task_id, "final_hash": None},
        **await reward_context(dash, eid),
        **await final_state(dash, eid, task_id),
    }
    mark_state(context)
    return render(request, "partials/episode_outcome.html", context)


# GRPO groups ------------------------------------------------------------------------------------


async def group_page(request: Request) -> Response:
    """The n rollouts of one GRPO group side by side: rewards, group-normalised advantages, where they diverge."""
    dash = dashboard_of(request)
    gid = request.path_params["gid"]
    rows = await queries.group(dash.reader, gid)
    if not rows:
        return not_found(request, f"unknown group {gid!r} (no episode of it is stored)")
    calls = await queries.calls_of(dash.reader, [r["id"] for r in rows])
    rollouts = models.group_view([with_points(r) for r in rows], calls)
    context = {
        "page": "episodes",
        "group": gid,
        "task_id": rows[0]["task_id"],
        "run_id": rows[0].get("run_id"),
        "run_step": rows[0].get("run_step"),
        "prompt": await queries.first_user_turn(dash.reader, rows[0]["id"]),
        "truth": models.ground_truth(task_of(dash, rows[0]["task_id"]), rows),
        "components": list(queries.COMPONENTS),
    }
    while rollouts["grid"] and len(rollouts["grid"]) < len(context["truth"]):  # steps past every rollout's last call
        rollouts["grid"].append([{"call": None, "odd": False} for _ in rows])
    return render(request, "group.html", {**context, **rollouts})


# Tasks ------------------------------------------------------------------------------------------


def dataset_stats(tasks: list[Task]) -> list[dict[str, Any]]:
    """Per dataset (``meta.dataset``; synthesized tasks without one: "synthesized"; else "built-in"): counts by
    kind and server, turns and calls per task."""
    groups: dict[str, list[Task]] = {}
    for t in tasks:
        origin = "synthesized" if "synth" in t.meta else "built-in"
        groups.setdefault(str(t.meta.get("dataset", origin)), []).append(t)
    out = []
    for name, group in sorted(groups.items()):
        kinds: dict[str, int] = {}
        servers: dict[str, int] = {}
        for t in group:
            kinds[t.kind] = kinds.get(t.kind, 0) + 1
            for s in t.servers:
                servers[s] = servers.get(s, 0) + 1
        n = len(group)
        out.append(
            {
                "name": name,
                "tasks": n,
                "kinds": kinds,
                "servers": sorted(servers.items(), key=lambda x: -x[1]),
                "turns": sum(len(t.turns) for t in group) / n,
                "calls": sum(len(t.gt_steps()) for t in group) / n,
                "tools": sum(len(t.tools) for t in group) / n,
                "multi_turn": sum(len(t.turns) > 1 for t in group) / n,
                "kind_chart": bar_chart(sorted(kinds.items()), title=f"{name}: tasks by kind", width=320, height=160),
            }
        )
    return out


async def tasks(request: Request) -> Response:
    dash = dashboard_of(request)
    p = request.query_params
    q, kind, server = p.get("q", "").strip().lower(), p.get("kind", ""), p.get("server", "")
    all_tasks = list(dash.hub.tasks)
    found = [
        t
        for t in all_tasks
        if (not q or q in t.id.lower() or any(q in turn.user.lower() for turn in t.turns))
        and (not kind or t.kind == kind)
        and (not server or server in t.servers)
    ]
    offset, limit = _int(p.get("offset"), 0), 100
    shown = found[offset : offset + limit]
    stats = await queries.task_stats(dash.reader, [t.id for t in shown])
    context = {
        "page": "tasks",
        "datasets": dataset_stats(all_tasks),
        "tasks": shown,
        "stats": stats,
        "total": len(found),
        "offset": offset,
        "limit": limit,
        "q": p.get("q", ""),
        "kind": kind,
        "server": server,
        "servers": list(dash.hub.library.mounts),
    }
    if is_htmx(request):
        return render(request, "partials/task_rows.html", context)
    context["losses"] = await losses(dash)
    return render(request, "tasks.html", context)


async def losses(dash: Dashboard, task: str = "") -> dict[str, Any]:
    """Where points are lost: per component over all (or one task's) episodes, per task, per failing tool."""
    tables = models.loss_tables(await queries.losses(dash.reader, task))
    if task:
        return {"components": tables["components"], "tasks": [], "tools": []}
    return {**tables, "tools": await queries.failures_by_tool(dash.reader)}


async def task_page(request: Request) -> Response:
    dash = dashboard_of(request)
    tid = request.path_params["tid"]
    task = task_of(dash, tid)
    if task is None:
        stored = await queries.stored_task(dash.reader, tid)
        if stored is None:
            return not_found(request, f"unknown task {tid!r}")
        task = Task.model_validate(stored["data"])
    recent = await queries.episode_page(dash.reader, queries.EpisodeFilter(task=tid), limit=20)
    stats = (await queries.task_stats(dash.reader, [tid])).get(tid)
    return render(
        request,
        "task.html",
        {
            "page": "tasks",
            "task": task,
            "loaded": task_of(dash, tid) is not None,
            "episodes": [with_points(r) for r in recent.rows],
            "stats": stats,
            "losses": await losses(dash, tid),
        },
    )


async def replay_task(request: Request) -> Response:
    """Play the task's ground truth (the oracle policy) as a real episode, then open that episode."""
    dash = dashboard_of(request)
    if not dash.csrf.valid(request, {k: str(v) for k, v in (await request.form()).items()}):
        return csrf.refusal()
    tid = request.path_params["tid"]
    task = task_of(dash, tid)
    if task is None:
        return not_found(request, f"task {tid!r} is not loaded in this hub")
    engine = dash.hub.episodes
    try:
        (ep,) = engine.open_group(task, 1)
        for message in oracle_script(task):
            if engine.get(ep.id).done:
                break
            engine.step(ep.id, message)
        engine.finish(ep.id)
    except (EpisodeError, TaskError, SessionError) as exc:
        return render(request, "not_found.html", {"page": "tasks", "message": f"replay failed: {exc}"}, status_code=409)
    target = make_link(request)(f"/episodes/{ep.id}")
    if is_htmx(request):
        return Response(status_code=204, headers={"HX-Redirect": target})
    return RedirectResponse(target, status_code=303)


# Training ---------------------------------------------------------------------------------------


async def training(request: Request) -> Response:
    dash = dashboard_of(request)
    offset = _int(request.query_params.get("offset"), 0)
    runs = await queries.runs(dash.reader, offset, 50)
    context = {"page": "training", "runs": runs, "offset": offset, "limit": 50}
    return render(request, "training.html", context, fragment="partials/run_rows.html")


async def compare_runs(request: Request) -> Response:
    """The training list's "overlay" form: the first ticked run's page with the others overlaid."""
    runs = [r for r in request.query_params.getlist("run") if r]
    if not runs:
        return RedirectResponse(make_link(request)("/training"), status_code=303)
    target = make_link(request)(f"/training/{runs[0]}", compare=runs[1 : runs_view.COMPARE_MAX + 1])
    return RedirectResponse(target, status_code=303)


async def path_run(request: Request) -> tuple[Dashboard, str, queries.Row] | Response:
    """The dashboard, run id and stored training run that the path names, or the not-found page when there is
    none."""
    dash = dashboard_of(request)
    rid = request.path_params["rid"]
    run = await queries.run(dash.reader, rid)
    if run is None:
        return not_found(request, f"unknown training run {rid!r}")
    return dash, rid, run


async def run_page(request: Request) -> Response:
    found = await path_run(request)
    if isinstance(found, Response):
        return found
    dash, rid, run = found
    opts = runs_view.run_options(request, rid)
    context = {
        "page": "training",
        "run": run,
        "log": opts.log,
        "compare": opts.compare,
        "lo": opts.lo,
        "hi": opts.hi,
        **await runs_view.run_charts(dash, request, run, opts),
    }
    if is_htmx(request):
        return render(request, "partials/run_charts.html", context)
    context["steps"] = await queries.run_steps(dash.reader, rid)
    context["other_runs"] = [r for r in await queries.runs(dash.reader, 0, 50) if r["id"] != rid]
    return render(request, "run.html", context)
