"""A training run's page: one panel per metric family, the reward curve (every step reachable by click and by
keyboard, see ``static/dashboard.js``), a step range to zoom to, and the reward by component computed by the hub
from the run's stored episodes (it needs no trainer metric names)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request

from hub.wire import COMPONENTS
from web import queries
from web.dashboard import Dashboard
from web.render import make_link
from web.svg import PALETTE, Series, line_chart, value_label

REWARD_NAMES = ("reward", *(c.name for c in COMPONENTS))
SPREAD = ("std", "min", "max", "var")  # a reward's spread: its own charts, not the curve's axis
COMPARE_MAX = 4
# Metric families, in the order their panels show; a name goes to the first family whose test it passes.
FAMILIES = ("reward", "loss", "kl / entropy", "lr", "throughput", "other")
THROUGHPUT = ("throughput", "per_sec", "per_second", "tps", "tokens_per", "samples_per", "time", "duration", "latency")


def tokens(name: str) -> list[str]:
    return [t for t in re.split(r"[/_.\-\s]+", name.lower()) if t]


def is_reward_metric(name: str) -> bool:
    leaf = name.rsplit("/", 1)[-1]
    return "reward" in name or leaf in REWARD_NAMES


def family(name: str) -> str:
    """Which panel a trainer metric goes to: reward, loss, kl / entropy, lr, throughput, other."""
    words, low = tokens(name), name.lower()
    if is_reward_metric(name) or "score" in words:
        return "reward"
    if "loss" in low:
        return "loss"
    if any(w == "kl" or w.startswith("kl") for w in words) or "entropy" in low:
        return "kl / entropy"
    if "lr" in words or "learning" in words:
        return "lr"
    if any(t in low for t in THROUGHPUT) or low.endswith("/s"):
        return "throughput"
    return "other"


def is_curve_metric(name: str) -> bool:
    """A reward the curve draws: a reward and its components' means, not their spread (std, min, max)."""
    return is_reward_metric(name) and tokens(name)[-1] not in SPREAD


def metric_families(names: list[str]) -> list[tuple[str, list[str]]]:
    groups: dict[str, list[str]] = {f: [] for f in FAMILIES}
    for n in sorted(names):
        groups[family(n)].append(n)
    return [(f, members) for f, members in groups.items() if members]


@dataclass(frozen=True)
class RunOptions:
    log: bool
    compare: list[str]
    lo: int | None  # the zoomed step range, when one is set
    hi: int | None

    @property
    def zoomed(self) -> bool:
        return self.lo is not None and self.hi is not None


def _step(raw: str | None) -> int | None:
    try:
        return int(float(raw)) if raw not in (None, "") else None  # type: ignore[arg-type]
    except ValueError:
        return None


def run_options(request: Request, rid: str) -> RunOptions:
    p = request.query_params
    compare = [c for c in dict.fromkeys(p.getlist("compare")) if c and c != rid][:COMPARE_MAX]
    lo, hi = _step(p.get("from")), _step(p.get("to"))
    if lo is not None and hi is not None and lo > hi:
        lo, hi = hi, lo
    if lo is None or hi is None:
        lo = hi = None
    return RunOptions(p.get("log") in ("1", "on", "true"), compare, lo, hi)


async def _metrics(dash: Dashboard, rid: str, opts: RunOptions) -> queries.Series:
    if opts.lo is not None and opts.hi is not None:
        return await queries.run_metrics_range(dash.reader, rid, opts.lo, opts.hi)
    return await queries.run_metrics(dash.reader, rid)


def _clip(points: list[tuple[float, float]], opts: RunOptions) -> list[tuple[float, float]]:
    if opts.lo is None or opts.hi is None:
        return points
    return [p for p in points if opts.lo <= p[0] <= opts.hi]


async def run_charts(dash: Dashboard, request: Request, run: dict[str, Any], opts: RunOptions) -> dict[str, Any]:
    """Every metric of the run (and of the runs it is compared with), by family; the reward curve; the hub's
    component curve from stored episodes."""
    rid = run["id"]
    metrics = await _metrics(dash, rid, opts)
    others = {c: await _metrics(dash, c, opts) for c in opts.compare}
    label = {rid: run["name"] or rid}
    for c in opts.compare:
        found = await queries.run(dash.reader, c)
        label[c] = (found or {}).get("name") or c
    link = make_link(request)
    names = sorted(set(metrics) | {n for m in others.values() for n in m})

    def series(name: str) -> list[Series]:
        out = [Series(label[rid], metrics.get(name, []), PALETTE[0])]
        out += [
            Series(label[c], m.get(name, []), PALETTE[1 + i], dashed=True) for i, (c, m) in enumerate(others.items())
        ]
        return out

    def chart(name: str) -> str:
        last = metrics.get(name, [])[-1:] or [(0.0, math.nan)]
        title = f"{name} · {value_label(last[0][1])} @ {last[0][0]:.0f}" if metrics.get(name) else name
        return line_chart(series(name), title=title, width=460, height=190, x_label="step", log=opts.log)

    groups = [
        {"name": fam, "charts": [{"name": n, "svg": chart(n)} for n in members]}
        for fam, members in metric_families(names)
    ]
    curve = [n for n in names if is_curve_metric(n)]
    many = len(curve) > 1
    reward_series = [Series(f"{label[rid]} · {n}" if many else label[rid], metrics[n]) for n in curve if n in metrics]
    reward_series += [
        Series(f"{label[c]} · {n}" if many else label[c], m[n], dashed=True)
        for c, m in others.items()
        for n in curve
        if n in m
    ]
    href = link("/episodes", run=rid, step="STEP").replace("STEP", "{x}")
    reward_chart = line_chart(
        reward_series,
        title="reward per step, as the trainer reported it (click or Enter on a step: its episodes; drag: zoom)",
        width=1300,
        height=320,
        x_label="step",
        empty="no reward metrics reported yet",
        log=opts.log,
        href=href,
    )
    components = {n: _clip(p, opts) for n, p in (await queries.run_components(dash.reader, rid)).items()}
    component_chart = line_chart(
        [Series(n, p) for n, p in components.items() if n != "reward"],
        title="reward components per step, mean over the run's stored episodes (computed by the hub)",
        width=1300,
        height=300,
        x_label="step",
        empty="no scored episodes of this run yet",
        href=href,
    )
    last_step = max((pts[-1][0] for pts in metrics.values() if pts), default=None)
    return {
        "groups": groups,
        "reward_chart": reward_chart.replace("<svg ", '<svg data-zoom="run-options" ', 1),
        "component_chart": component_chart.replace("<svg ", '<svg data-zoom="run-options" ', 1),
        "component_means": components.get("reward"),
        "n_metrics": len(metrics),
        "last_step": last_step,
        "latest": {n: metrics[n][-1][1] for n in names if is_reward_metric(n) and metrics.get(n)},
    }
