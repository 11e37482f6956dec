"""Plain dicts the templates render, built from store rows, bus events and live hub objects alike.

A live event and a stored row of the same thing take the same shape, so one partial renders both
(the page from the store, the SSE update from the event).
"""

from __future__ import annotations

import re
from typing import Any

from hub.episodes import Episode
from hub.events import ToolCallEvent
from hub.parsing import parse_model_output
from hub.sessions import Session

SESSION_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,100}$")
COMPONENT_WEIGHTS = {"validity": "w_val", "coverage": "w_cov", "efficiency": "w_eff", "name": "w_name",
                     "argument": "w_arg", "state": "w_state", "format": "w_format"}


def call_of_event(e: ToolCallEvent) -> dict[str, Any]:
    """A tool-call event in the shape of a decoded ``tool_calls`` row."""
    return {"id": None, "event_id": e.id, "ts": e.ts, "session_id": e.session, "episode_id": e.episode,
            "server": e.server, "tool": e.tool, "arguments": e.arguments, "ok": e.ok, "result": e.result,
            "error": e.error, "error_kind": e.error_kind, "latency_ms": e.latency_ms, "state_changed": e.state_changed}


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
        weight = weights.get(COMPONENT_WEIGHTS.get(name, ""), None)
        out.append({"name": name, "value": value, "weight": weight,
                    "contribution": None if weight is None else weight * value})
    return out


def session_row(session: Session, clock_now: float) -> dict[str, Any]:
    return {"id": session.id, "seed": session.seed, "parent": session.parent, "servers": sorted(session.forks),
            "calls": session.calls, "idle_s": max(0.0, clock_now - session.last_used),
            "age_s": max(0.0, clock_now - session.created)}


def merge_live(row: dict[str, Any], live: Episode) -> None:
    """Overlay what the episode engine knows now on a stored episode row (the store lags a little)."""
    row.update(status="finished" if live.reward is not None else "open", reason=live.reason, steps=live.steps,
               format_errors=len(live.format_errors))
    if live.reward is not None:
        row["reward"] = live.reward.total
