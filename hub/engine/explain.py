"""Why an episode scored what it did, kept with its reward at finish (the ``why`` column of the store's rewards).

The breakdown's per-call validity and its alignment of calls to ground-truth steps live only as long as the engine
holds the episode; the trainer closes it straight after ``finish``. This turns them into a self-contained record the
dashboard shows after close: per ground-truth step, the call that matched it (numbered as the episode's calls, from
1), the expected and actual arguments with the differing keys named, the steps nothing matched, each call's validity,
the breakdown's reasons (clarify, answer, state) and the preset that scored it. It reads the scoring, never changes
it: ``matter_keys`` is the reward's own choice of the keys ``argument`` judges.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hub.engine.reward import CallRecord, RewardBreakdown, matter_keys
from hub.tasks.model import Task
from hub.wire import RewardConfig

MAX_VALUE_CHARS = 400  # a value shown in the why is cut past this (a long memo, a document body)


def _shown(value: Any) -> Any:
    """A JSON value kept as is when short, else cut to a string that says so."""
    if isinstance(value, (bool, int, float)) or value is None:
        return value
    text = value if isinstance(value, str) else repr(value)
    if len(text) <= MAX_VALUE_CHARS:
        return value
    return text[:MAX_VALUE_CHARS] + f"… ({len(text)} characters)"


def _same(a: Any, b: Any) -> bool:
    """Equal as the reward's R_arg compares them (a bool equals only a bool: ``True`` is not ``1``)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return bool(a == b)


def differing(expected: Mapping[str, Any], actual: Any, keys: Sequence[str]) -> list[dict[str, Any]]:
    """The judged keys whose value the call got wrong or left out: key, expected, actual (None when missing)."""
    args = actual if isinstance(actual, dict) else {}
    out = []
    for k in keys:
        if k not in args:
            out.append({"key": k, "expected": _shown(expected[k]), "actual": None, "missing": True})
        elif not _same(args[k], expected[k]):
            out.append({"key": k, "expected": _shown(expected[k]), "actual": _shown(args[k]), "missing": False})
    return out


def near_miss(
    expected: Mapping[str, Any],
    keys: Sequence[str],
    name: str,
    calls: Sequence[CallRecord],
    scored: Sequence[int],
    used: set[int],
) -> dict[str, Any] | None:
    """For a step no call matched: the first scored call of the same tool that matched nothing else (it lacked a
    judged key, which the alignment requires), with what it got wrong; None when the model never called the tool."""
    for n in scored:
        if n not in used and calls[n].name == name:
            return {"call": n + 1, "differ": differing(expected, calls[n].arguments, keys)}
    return None


def kind_reasons(task: Task, breakdown: RewardBreakdown) -> dict[str, str]:
    """The breakdown's reasons, plus the abstention verdict (the reward states it only as a 0 or 1)."""
    reasons = dict(breakdown.reasons)
    if task.kind == "abstain":
        n = breakdown.n_calls
        reasons.setdefault(
            "abstention",
            "the task cannot be done with the offered tools and no call was made"
            if n == 0
            else f"the task cannot be done with the offered tools, yet the model made {n} call{'s' * (n != 1)}",
        )
    return reasons


def explain(
    task: Task,
    calls: Sequence[CallRecord],
    breakdown: RewardBreakdown,
    schemas: Mapping[str, Mapping[str, Any]],
    config: RewardConfig,
) -> dict[str, Any]:
    """The why of one scored episode, as JSON. ``calls``: all the episode's calls in order (those of ask turns
    included: the reward scores the others, and its alignment counts only those)."""
    ask_turns = {i for i, t in enumerate(task.turns) if t.ask}
    scored = [n for n, c in enumerate(calls) if c.turn not in ask_turns]  # scored index -> episode call index
    steps = task.gt_steps()
    turn_of = {s.id: ti for ti, t in enumerate(task.turns) for s in t.calls}
    matched = {a.gt: a for a in breakdown.alignment}
    used = {scored[a.call] for a in breakdown.alignment if a.call < len(scored)}
    rows = []
    for step in steps:
        keys = matter_keys(step, schemas, config)
        a = matched.get(step.id)
        n = scored[a.call] if a is not None and a.call < len(scored) else None
        call = calls[n] if n is not None else None
        rows.append(
            {
                "gt": step.id,
                "name": step.name,
                "turn": turn_of.get(step.id),
                "expected": {k: _shown(v) for k, v in step.arguments.items()},
                "keys": keys,
                "call": None if n is None else n + 1,
                "actual": None if call is None else _shown_args(call.arguments),
                "ordered": None if a is None else a.ordered,
                "arg_share": None if a is None else a.arg_share,
                "found": False if a is None else a.found,
                "differ": []
                if call is None or (a is not None and a.found)
                else differing(step.arguments, call.arguments, keys),
                "near": None if call is not None else near_miss(step.arguments, keys, step.name, calls, scored, used),
            }
        )
    validity = [
        {
            **v.model_dump(),
            "call": scored[i] + 1,
            "turn": calls[scored[i]].turn,
            "error_kind": calls[scored[i]].error_kind,
        }
        for i, v in enumerate(breakdown.validity)
        if i < len(scored)
    ]
    return {
        "preset": breakdown.preset,
        "mode": breakdown.mode,
        "kind": breakdown.kind,
        "n_calls": breakdown.n_calls,
        "n_gt": breakdown.n_gt,
        "budget": breakdown.budget,
        "truncated": breakdown.truncated,
        "reasons": kind_reasons(task, breakdown),
        "steps": rows,
        "missing": [r["gt"] for r in rows if r["call"] is None],
        "validity": validity,
        "ask_calls": [n + 1 for n, c in enumerate(calls) if c.turn in ask_turns],
    }


def _shown_args(arguments: Any) -> Any:
    if isinstance(arguments, dict):
        return {k: _shown(v) for k, v in arguments.items()}
    return _shown(arguments)
