"""Plain dicts the templates render, built from store rows, bus events and live hub objects alike.

A live event and a stored row of the same thing take the same shape, so one partial renders both
(the page from the store, the SSE update from the event).
"""

from __future__ import annotations

import json
from typing import Any

from hub.engine.episodes import Episode
from hub.engine.events import ToolCallEvent
from hub.engine.parsing import parse_model_output
from hub.state.sessions import Session
from hub.wire import COMPONENT, WEIGHTED

# Sessions the run-tool form must not write into: episode templates (every episode of a task forks one)
# and episodes' own sessions (a call there would change a rollout behind the trainer's back).
INTERNAL_SESSION_PREFIXES = ("tpl-", "es-")


def call_of_event(e: ToolCallEvent) -> dict[str, Any]:
    """A tool-call event in the shape of a decoded ``tool_calls`` row."""
    return {
        "id": None,
        "event_id": e.id,
        "ts": e.ts,
        "session_id": e.session,
        "episode_id": e.episode,
        "server": e.server,
        "tool": e.tool,
        "arguments": e.arguments,
        "ok": e.ok,
        "result": e.result,
        "error": e.error,
        "error_kind": e.error_kind,
        "latency_ms": e.latency_ms,
        "state_changed": e.state_changed,
    }


def turn_item(turn: dict[str, Any]) -> dict[str, Any]:
    """A turn for the episode timeline; an assistant turn also shows what the parser made of it."""
    item = {"kind": "turn", **turn}
    if turn["role"] == "assistant":
        parsed = parse_model_output(turn["content"])
        item["parsed"] = [{"name": c.name, "arguments": c.arguments, "error": c.error} for c in parsed.calls]
        item["format_errors"] = parsed.format_errors
    return item


def timeline(turns: list[dict[str, Any]], calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Turns and tool calls in the order they happened (a turn before the calls it caused)."""
    items = [(t["ts"], 0, i, turn_item(t)) for i, t in enumerate(turns)]
    items += [(c["ts"], 1, i, {"kind": "call", **c}) for i, c in enumerate(calls)]
    items.sort(key=lambda x: (x[0], x[1], x[2]))
    return [x[3] for x in items]


def reward_rows(components: dict[str, float], weights: dict[str, float]) -> list[dict[str, Any]]:
    """Each component with its weight and its share of the total (where the component has a weight)."""
    out = []
    for name, value in components.items():
        field = COMPONENT[name].weight if name in COMPONENT else None
        weight = weights.get(field) if field else None
        out.append(
            {"name": name, "value": value, "weight": weight, "contribution": None if weight is None else weight * value}
        )
    return out


def points(ledger: list[dict[str, Any]]) -> dict[str, Any]:
    """The reward's ledger (``hub.engine.reward.ledger``: per component, what it earned and lost against the most
    the task could give) with its sums; the losses add up to max - total."""
    best = sum(float(r["max"]) for r in ledger)
    total = sum(float(r["earned"]) for r in ledger)
    return {
        "rows": ledger,
        "max": best,
        "total": total,
        "lost": sum(float(r["lost"]) for r in ledger),
        "fraction": total / best if best > 0 else None,
    }


def reward_class(value: float | None, best: float | None, state_match: int | bool | None = None) -> str:
    """The badge colour of a reward by its fraction of the task's maximum (a 1.29 of 1.45 is not "good").

    A final state that differs from the expected one is never green, whatever the score: with the
    paper's weights (w_state = 0) a transfer from the wrong account can still score near the maximum.
    """
    if value is None:
        return ""
    fraction = value / best if best else value
    found = "ok" if fraction >= 0.9 else ("warn" if fraction >= 0.6 else "bad")
    return "warn" if found == "ok" and state_match is not None and not state_match else found


def session_row(session: Session, clock_now: float) -> dict[str, Any]:
    return {
        "id": session.id,
        "seed": session.seed,
        "parent": session.parent,
        "servers": sorted(session.forks),
        "calls": session.calls,
        "idle_s": max(0.0, clock_now - session.last_used),
        "age_s": max(0.0, clock_now - session.created),
    }


def merge_live(row: dict[str, Any], live: Episode) -> None:
    """Overlay what the episode engine knows now on a stored episode row (the store lags a little)."""
    row.update(
        status="finished" if live.reward is not None else "open",
        reason=live.reason,
        steps=live.steps,
        format_errors=len(live.format_errors),
    )
    if live.reward is not None:
        row["reward"] = live.reward.total


WEIGHTS = {c.name: c.weight for c in WEIGHTED if c.weight}


MIN_RANKED_EPISODES = 5


def loss_tables(rows: list[dict[str, Any]], task_limit: int = 25) -> dict[str, Any]:
    """Points lost per component (over all rows) and per task, from ``queries.losses`` rows.

    Each row sums one task's shortfalls under one weight config; points lost = weight x shortfall,
    and a component with weight 0 loses no points however far it falls short.
    """
    parsed: dict[str, dict[str, float]] = {}
    overall = {"episodes": 0, **{f"lost_{c}": 0.0 for c in WEIGHTS}, **{f"n_{c}": 0 for c in WEIGHTS}}
    tasks: dict[str, dict[str, Any]] = {}
    for r in rows:
        weights = parsed.get(r["weights"])
        if weights is None:
            weights = parsed[r["weights"]] = json.loads(r["weights"])
        t = tasks.setdefault(
            r["task_id"],
            {
                "task_id": r["task_id"],
                "episodes": 0,
                "total": 0.0,
                **{f"lost_{c}": 0.0 for c in WEIGHTS},
                **{f"n_{c}": 0 for c in WEIGHTS},
            },
        )
        t["episodes"] += r["episodes"]
        t["total"] += r["total"] or 0.0
        overall["episodes"] += r["episodes"]
        for c, w in WEIGHTS.items():
            weight = float(weights.get(w, 0.0))
            lost, short = weight * float(r[f"d_{c}"] or 0.0), int(r[f"n_{c}"] or 0) if weight else 0
            for acc in (t, overall):
                acc[f"lost_{c}"] += lost
                acc[f"n_{c}"] += short
    by_task = []
    for t in tasks.values():
        n = t["episodes"]
        t["mean_total"] = t["total"] / n
        t["mean_lost"] = sum(t[f"lost_{c}"] for c in WEIGHTS) / n
        t["top"] = top_loss(t, list(WEIGHTS))
        by_task.append(t)
    # a task seen in a handful of episodes ranks after those with enough to tell: one bad rollout is not a pattern
    for t in by_task:
        t["few"] = t["episodes"] < MIN_RANKED_EPISODES
    by_task.sort(key=lambda t: (t["few"], -float(t["mean_lost"])))
    return {"components": component_losses(overall, list(WEIGHTS)), "tasks": by_task[:task_limit]}


def component_losses(row: dict[str, Any] | None, components: list[str]) -> list[dict[str, Any]]:
    """Per component: episodes that lost points on it, their share, and the mean points lost when it did."""
    n = int((row or {}).get("episodes") or 0)
    out: list[dict[str, Any]] = []
    for c in components:
        hit = int((row or {}).get(f"n_{c}") or 0)
        lost = float((row or {}).get(f"lost_{c}") or 0.0)
        out.append(
            {
                "name": c,
                "episodes": hit,
                "share": hit / n if n else 0.0,
                "mean_when_lost": lost / hit if hit else 0.0,
                "per_episode": lost / n if n else 0.0,
                "of": n,
            }
        )
    out.sort(key=lambda r: -float(r["per_episode"]))
    return out


def top_loss(row: dict[str, Any], components: list[str]) -> dict[str, Any]:
    """The component that cost a task the most points in all."""
    name = max(components, key=lambda c: float(row.get(f"lost_{c}") or 0.0))
    n = int(row.get("episodes") or 0)
    return {
        "name": name,
        "per_episode": float(row.get(f"lost_{name}") or 0.0) / n if n else 0.0,
        "share": int(row.get(f"n_{name}") or 0) / n if n else 0.0,
    }


def advantages(rewards: list[float | None]) -> list[float | None]:
    """GRPO's group-normalised advantages: (r - mean) / (std + 1e-6) over the group's scored rollouts."""
    scored = [r for r in rewards if r is not None]
    if not scored:
        return [None for _ in rewards]
    mean = sum(scored) / len(scored)
    std = (sum((r - mean) ** 2 for r in scored) / len(scored)) ** 0.5
    return [None if r is None else (r - mean) / (std + 1e-6) for r in rewards]


def call_key(call: dict[str, Any]) -> str:
    """A call as compared across rollouts: its tool and its arguments (canonical JSON)."""
    return f"{call['server']}.{call['tool']}({json.dumps(call['arguments'], sort_keys=True, default=str)})"


def group_view(rows: list[dict[str, Any]], calls: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """Rollouts side by side: advantages, the call grid with cells that leave the majority marked, the first
    step where the rollouts' calls part, and final states grouped by hash (A, B, ...)."""
    advs = advantages([r.get("reward") for r in rows])
    seqs = [calls.get(r["id"], []) for r in rows]
    depth = max((len(c) for c in seqs), default=0)
    grid, diverge_at = [], None
    for i in range(depth):
        keys = [call_key(c[i]) if i < len(c) else None for c in seqs]
        counts: dict[str | None, int] = {}
        for k in keys:
            counts[k] = counts.get(k, 0) + 1
        majority = max(counts.items(), key=lambda kv: kv[1])[0]
        if diverge_at is None and len(counts) > 1:
            diverge_at = i
        grid.append([{"call": c[i] if i < len(c) else None, "odd": keys[j] != majority} for j, c in enumerate(seqs)])
    labels: dict[str, str] = {}
    for r in rows:
        h = r.get("final_hash")
        if h and h not in labels:
            labels[h] = chr(ord("A") + len(labels) % 26)
    rollouts = [
        {
            **r,
            "advantage": a,
            "calls": len(c),
            "state_label": labels.get(r.get("final_hash") or "", "–"),
            "why_summary": why_summary(r.get("why")),
        }
        for r, a, c in zip(rows, advs, seqs)
    ]
    scored = [r["reward"] for r in rows if r.get("reward") is not None]
    state_groups: dict[str, dict[str, Any]] = {}
    for i, r in enumerate(rollouts):
        new = {"label": r["state_label"], "members": [], "match": r.get("state_match"), "diff": r.get("expected_diff")}
        found = state_groups.setdefault(r["state_label"], new)
        found["members"].append({"id": r["id"], "index": i + 1})
    return {
        "rollouts": rollouts,
        "grid": grid,
        "diverge_at": diverge_at,
        "states": len(labels),
        "state_groups": list(state_groups.values()),
        "mean": sum(scored) / len(scored) if scored else None,
        "std": (sum((x - sum(scored) / len(scored)) ** 2 for x in scored) / len(scored)) ** 0.5 if scored else None,
    }


def ground_truth(task: Any, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A group's ground-truth calls (tool, arguments), from the task when this hub has it loaded, else from the
    why a rollout kept at finish (it carries each step's expected arguments)."""
    if task is not None:
        return [{"gt": s.id, "name": s.name, "arguments": s.arguments} for s in task.gt_steps()]
    for r in rows:
        steps = (r.get("why") or {}).get("steps")
        if steps:
            return [{"gt": s["gt"], "name": s["name"], "arguments": s["expected"]} for s in steps]
    return []


def why_summary(why: dict[str, Any] | None) -> dict[str, Any] | None:
    """A rollout's why in one cell: the steps it missed, the arguments it got wrong, the reasons."""
    if not why:
        return None
    wrong = [
        {"gt": s["gt"], **d}
        for s in why.get("steps", [])
        for d in (s.get("differ") if s.get("call") is not None else (s.get("near") or {}).get("differ")) or []
    ]
    disorder = [s["gt"] for s in why.get("steps", []) if s.get("call") is not None and s.get("ordered") is False]
    invalid = [v for v in why.get("validity", []) if v.get("score", 1) < 1]
    return {
        "missing": why.get("missing", []),
        "wrong": wrong,
        "disorder": disorder,
        "invalid": invalid,
        "reasons": why.get("reasons", {}),
        "preset": why.get("preset"),
    }
