"""A training run's analytics, from the episodes stored with it: failures by tool and error kind (real tools apart
from unparsed calls and names no server has), the points lost per component by step range, the share of
zero-variance GRPO groups per step (they teach the policy nothing) and a filterable index of the run's groups."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from web import queries
from web.render import make_link, render
from web.svg import Series, line_chart
from web.views import path_run

UNPARSED_KINDS = frozenset({"format"})  # the model's text held no call the parser could read
UNKNOWN_KINDS = frozenset({"unknown_tool", "unknown_server"})  # a name no offered tool has
ZERO = 1e-9  # a group whose rewards differ by less than this has zero variance
STEP_RANGES = 10
GROUPS_SHOWN = 500


def failure_tables(rows: list[tuple[Any, ...]]) -> dict[str, Any]:
    """Pivot (server, tool, error kind, calls, failed) into rows per real tool with a column per error kind, the
    unknown names apart, and the unparsed calls as one count."""
    tools: dict[str, dict[str, Any]] = {}
    unknown: dict[str, int] = {}
    unparsed = calls_total = 0
    kinds: set[str] = set()
    for server, tool, kind, calls, failed in rows:
        calls_total += calls
        if kind in UNPARSED_KINDS or not tool:
            unparsed += failed
            continue
        name = f"{server}.{tool}" if server else tool
        if kind in UNKNOWN_KINDS:
            unknown[name] = unknown.get(name, 0) + failed
            continue
        row = tools.setdefault(name, {"tool": name, "calls": 0, "failed": 0, "kinds": {}})
        row["calls"] += calls
        if failed and kind:
            row["failed"] += failed
            row["kinds"][kind] = row["kinds"].get(kind, 0) + failed
            kinds.add(kind)
    failing = sorted((r for r in tools.values() if r["failed"]), key=lambda r: (-r["failed"], r["tool"]))
    for r in failing:
        r["rate"] = r["failed"] / r["calls"]
    return {
        "tools": failing,
        "kinds": sorted(kinds),
        "unknown": sorted(unknown.items(), key=lambda kv: (-kv[1], kv[0])),
        "unknown_total": sum(unknown.values()),
        "unparsed": unparsed,
        "calls": calls_total,
        "tools_called": len(tools),
    }


def lost_table(rows: list[tuple[Any, ...]], width: int) -> dict[str, Any]:
    """Per step range, each component's mean points lost per episode (the ledger's ``lost``)."""
    ranges: dict[int, dict[str, Any]] = {}
    comps: dict[str, float] = {}
    for b, comp, n, lost in rows:
        r = ranges.setdefault(int(b), {"from": int(b) * width, "to": int(b) * width + width - 1, "n": 0, "lost": {}})
        r["n"] = max(r["n"], int(n))  # every ledger row of an episode counts it once per component
        r["lost"][comp] = float(lost or 0.0) / int(n)
        comps[comp] = comps.get(comp, 0.0) + float(lost or 0.0)
    order = [c for c, total in sorted(comps.items(), key=lambda kv: -kv[1]) if total > 0]
    return {"ranges": [ranges[b] for b in sorted(ranges)], "components": order}


@dataclass
class GroupFilter:
    variance: str = ""  # "zero", "nonzero" or "" (all)
    lo: float | None = None  # the group's mean reward, at least
    hi: float | None = None  # at most
    task: str = ""

    def keeps(self, g: dict[str, Any]) -> bool:
        if self.variance == "zero" and not g["zero"] or self.variance == "nonzero" and g["zero"]:
            return False
        if self.task and self.task not in g["task"]:
            return False
        mean = g["mean"]
        if self.lo is not None and (mean is None or mean < self.lo):
            return False
        return not (self.hi is not None and (mean is None or mean > self.hi))


def _float(raw: str | None) -> float | None:
    try:
        value = float(raw) if raw not in (None, "") else None  # type: ignore[arg-type]
    except ValueError:
        return None
    return value if value is None or math.isfinite(value) else None


def group_filter(request: Request) -> GroupFilter:
    p = request.query_params
    variance = p.get("variance", "")
    return GroupFilter(
        variance if variance in ("zero", "nonzero") else "",
        _float(p.get("lo")),
        _float(p.get("hi")),
        p.get("task", "").strip(),
    )


def groups_of(rows: list[tuple[Any, ...]]) -> list[dict[str, Any]]:
    out = []
    for step, gid, task, n, mean, lo, hi, sq in rows:
        std = math.sqrt(max(0.0, sq - mean * mean)) if n else None
        zero = bool(n > 1 and hi - lo < ZERO)
        out.append(
            {
                "step": step,
                "group": gid,
                "task": task,
                "n": n,
                "mean": mean,
                "min": lo,
                "max": hi,
                "std": std,
                "zero": zero,
            }
        )
    return out


def zero_share(groups: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per step: the groups with two or more scored rollouts and how many of them have zero variance."""
    steps: dict[int, dict[str, Any]] = {}
    for g in groups:
        if g["step"] is None or g["n"] < 2:
            continue
        s = steps.setdefault(g["step"], {"step": g["step"], "groups": 0, "zero": 0})
        s["groups"] += 1
        s["zero"] += g["zero"]
    return [{**s, "share": s["zero"] / s["groups"]} for _, s in sorted(steps.items())]


async def run_analytics(request: Request) -> Response:
    found = await path_run(request)
    if isinstance(found, Response):
        return found
    dash, rid, run = found
    link = make_link(request)
    groups = groups_of(await queries.run_groups(dash.reader, rid))
    steps = [g["step"] for g in groups if g["step"] is not None]
    width = max(1, math.ceil((max(steps) + 1) / STEP_RANGES)) if steps else 1
    share = zero_share(groups)
    href = link("/episodes", run=rid, step="STEP").replace("STEP", "{x}")
    share_chart = line_chart(
        [Series("zero-variance share", [(float(s["step"]), s["share"]) for s in share])],
        title="share of GRPO groups with zero reward variance, per step (click a step: its episodes)",
        width=1300,
        height=220,
        x_label="step",
        y_range=(0.0, 1.0),
        empty="no group of this run has two scored rollouts yet",
        href=href,
    )
    flt = group_filter(request)
    kept = [g for g in groups if flt.keeps(g)]
    context = {
        "page": "training",
        "run": run,
        "failures": failure_tables(await queries.run_failures(dash.reader, rid)),
        "lost": lost_table(await queries.run_lost(dash.reader, rid, width), width),
        "share_chart": share_chart,
        "zero_total": sum(s["zero"] for s in share),
        "groups_total": sum(s["groups"] for s in share),
        "groups": kept[:GROUPS_SHOWN],
        "groups_kept": len(kept),
        "flt": flt,
    }
    return render(request, "run_analytics.html", context)
