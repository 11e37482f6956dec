"""The programmatic reward of PROVE (paper §3.3), every weight configurable, every component reported.

    R = w_val·R_val + w_cov·R_cov + w_eff·R_eff + w_name·R_name + w_arg·R_arg        (0.5, 0.5, 0.15, 0.2, 0.1)

- R_val: per model call, a third each for (1) a name in the offered tool schema, (2) every
  required parameter present and every given parameter of a compatible JSON type, (3) a
  successful live execution; the mean over the model's calls (0 with no calls).
- R_cov: (1/|G|)·Σ_g m(g)·o(g). A call matches GT step g when it has g's name and all of g's
  argument keys (values are not compared); o(g) = Π over edges (j, g) of 1[µ(j) < µ(g)], where
  µ is the matched call's position; an unmatched prerequisite j gives o(g) = 0.
  Alignment: GT steps in order, each takes the unused matching call that keeps its dependency
  order, then agrees on the most argument values, then comes first.
- R_eff = −α·max(0, n − B)/B with B = n_gt + ⌈β·n_gt⌉ (α = β = 0.5); no lower bound.
- R_name: share of the model's calls whose name is among the GT names (0 with no calls).
- R_arg: over aligned pairs, the mean share of the GT's argument values that the call matches
  exactly (a GT step without arguments counts 1); 0 with no aligned pair.
- Abstention (G = ∅, kind ``abstain``): R = 1 with no call, else 0.
- Clarification (kind ``clarify``): R_ask = 1 when, on every ``ask`` turn, the model made no call
  and (``clarify_check = "question"``, the default) its reply asks for what is missing: a
  question or request that names the withheld parameter, its entity kind or a synonym
  (``hub.engine.clarify``: the rules and examples); a statement, a refusal or an invented completion
  scores 0. ``clarify_check = "no_call"`` keeps only the no-call condition (the paper's reading).
  The breakdown's ``reasons["clarify"]`` says why. With no GT calls after the ask turns,
  R = R_ask; otherwise R = R_ask · (the paper's R over the later turns' calls). Asking is a
  gate: a guess that happens to be right is not rewarded.
- Optional, weight 0 by default (not in the paper): R_state, the share of the task's servers whose
  final state hash equals the expected one; R_format, the share of model messages without a
  format error. They are added to every kind's total.

A reward never hides an error: a task or record the engine cannot score raises.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field

from hub.engine.clarify import judge_reply, question_words
from hub.tasks import GTStep, Task
from hub.wire import COMPONENT, COMPONENTS, PAPER_TERMS, WEIGHTED, Component, RewardConfig

__all__ = ["COMPONENTS", "CallRecord", "Component", "LedgerRow", "RewardBreakdown", "RewardConfig", "score"]


@dataclass
class CallRecord:
    """One call the model made, as the episode engine saw it."""

    name: str | None  # None when the call could not be parsed
    arguments: Any
    turn: int
    ok: bool  # executed successfully on the live server
    error_kind: str | None = None
    text: str | None = None  # what the model read back (a suite's scorer compares it, as BFCL does)
    step: int = 0  # the model message it came in


class CallValidity(BaseModel):
    name: str | None
    known_name: bool
    params_ok: bool
    executed: bool
    score: float


class Alignment(BaseModel):
    gt: str  # GT step id
    call: int  # index into the scored calls
    ordered: bool
    arg_share: float


class LedgerRow(BaseModel):
    """One component's account: its weight (None for a gate), its value, the points it earned of the most it could
    (``max``) and the points it lost. A gate (the ask check on a clarify task) has no maximum of its own: it loses
    what the gated terms earned. The rows' ``lost`` add up to ``max - total``."""

    name: str
    weight: float | None
    value: float
    earned: float
    max: float
    lost: float


class RewardBreakdown(BaseModel):
    """The total and every component, as the trainer and the dashboard show it; ``ledger`` accounts for the total."""

    total: float
    kind: str
    mode: str  # "paper", "abstention" or "clarify"
    components: dict[str, float]
    weights: dict[str, float]
    n_calls: int
    n_gt: int
    budget: int
    validity: list[CallValidity]
    alignment: list[Alignment]
    reasons: dict[str, str] = Field(default_factory=dict)  # why a gate component is what it is
    ledger: list[LedgerRow] = Field(default_factory=list)
    max: float = 0.0  # the most this task can score under this config: the ledger's maxima summed
    truncated: bool = False  # the episode was cut (token limit, full context): scored on the calls made so far
    success: bool | None = None  # a suite's own verdict (its scorer's pass/fail), where it has one


# JSON types ------------------------------------------------------------------------------------


def json_type_ok(value: Any, schema: Mapping[str, Any]) -> bool:
    """Whether ``value`` has a JSON type the (sub)schema allows; enums and ranges are not checked."""
    branches = schema.get("anyOf") or schema.get("oneOf")
    if branches:
        return any(json_type_ok(value, b) for b in branches)
    kind = schema.get("type")
    if kind is None:
        return True
    kinds = kind if isinstance(kind, list) else [kind]
    return any(_is_type(value, k) for k in kinds)


TYPE_CHECKS: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "null": lambda v: v is None,
}


def _is_type(value: Any, kind: str) -> bool:
    check = TYPE_CHECKS.get(kind)
    return True if check is None else check(value)


def params_ok(arguments: Any, input_schema: Mapping[str, Any]) -> bool:
    """Level 2: every required parameter present, and every given known parameter of a compatible type."""
    if not isinstance(arguments, dict):
        return False
    props: Mapping[str, Any] = input_schema.get("properties", {})
    if any(req not in arguments for req in input_schema.get("required", [])):
        return False
    return all(json_type_ok(v, props[k]) for k, v in arguments.items() if k in props)


# Components ------------------------------------------------------------------------------------


def validity(calls: list[CallRecord], schemas: Mapping[str, Mapping[str, Any]]) -> list[CallValidity]:
    out = []
    for c in calls:
        known = c.name is not None and c.name in schemas
        structure = known and params_ok(c.arguments, schemas[c.name])  # type: ignore[index]
        executed = known and c.ok
        out.append(
            CallValidity(
                name=c.name,
                known_name=known,
                params_ok=structure,
                executed=executed,
                score=(known + structure + executed) / 3,
            )
        )
    return out


def _matches(call: CallRecord, step: GTStep) -> bool:
    return (
        call.name == step.name and isinstance(call.arguments, dict) and all(k in call.arguments for k in step.arguments)
    )


def arg_share(call: CallRecord, step: GTStep) -> float:
    if not step.arguments:
        return 1.0
    args = call.arguments if isinstance(call.arguments, dict) else {}
    same = sum(1 for k, v in step.arguments.items() if k in args and _same_value(args[k], v))
    return same / len(step.arguments)


def _same_value(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return bool(a == b)


def align(steps: list[GTStep], edges: list[tuple[int, int]], calls: list[CallRecord]) -> dict[int, int]:
    """GT step index -> call index, greedily in GT order (see the module docstring)."""
    deps: dict[int, list[int]] = {}
    for j, g in edges:
        deps.setdefault(g, []).append(j)
    mu: dict[int, int] = {}
    used: set[int] = set()
    for g, step in enumerate(steps):
        floor = max((mu[j] for j in deps.get(g, []) if j in mu), default=-1)
        candidates = [i for i, c in enumerate(calls) if i not in used and _matches(c, step)]
        if not candidates:
            continue
        best = min(candidates, key=lambda i: (i <= floor, -arg_share(calls[i], step), i))
        mu[g] = best
        used.add(best)
    return mu


def order_ok(g: int, mu: dict[int, int], edges: list[tuple[int, int]]) -> bool:
    """o(g): every prerequisite j of g is matched at an earlier position."""
    return all(j in mu and mu[j] < mu[g] for j, h in edges if h == g)


def budget(n_gt: int, beta: float) -> int:
    return n_gt + math.ceil(beta * n_gt)


def efficiency(n_calls: int, n_gt: int, alpha: float, beta: float) -> float:
    b = budget(n_gt, beta)
    if b == 0:
        return 0.0 if n_calls == 0 else -alpha * float(n_calls)
    excess = max(0, n_calls - b)
    return -alpha * excess / b if excess else 0.0


@dataclass
class PaperScore:
    components: dict[str, float]
    validity: list[CallValidity]
    alignment: list[Alignment]
    budget: int


def paper_components(
    task: Task, calls: list[CallRecord], schemas: Mapping[str, Mapping[str, Any]], config: RewardConfig
) -> PaperScore:
    """R_val, R_cov, R_eff, R_name and R_arg of ``calls`` against the task's ground truth."""
    steps, edges = task.gt_steps(), task.edges()
    checks = validity(calls, schemas)
    n = len(calls)
    mu = align(steps, edges, calls)
    alignment = [
        Alignment(gt=steps[g].id, call=i, ordered=order_ok(g, mu, edges), arg_share=arg_share(calls[i], steps[g]))
        for g, i in sorted(mu.items())
    ]
    gt_names = {s.name for s in steps}
    components = {
        "validity": sum(c.score for c in checks) / n if n else 0.0,
        "coverage": sum(a.ordered for a in alignment) / len(steps) if steps else 0.0,
        "efficiency": efficiency(n, len(steps), config.alpha, config.beta),
        "name": sum(c.name in gt_names for c in calls) / n if n else 0.0,
        "argument": sum(a.arg_share for a in alignment) / len(alignment) if alignment else 0.0,
    }
    return PaperScore(components, checks, alignment, budget(len(steps), config.beta))


def weight_of(name: str, config: RewardConfig) -> float:
    field = COMPONENT[name].weight
    assert field is not None, f"{name} is a gate, not a weighted component"
    return float(getattr(config, field))


def weighted(components: Mapping[str, float], config: RewardConfig) -> float:
    return sum(weight_of(c, config) * components[c] for c in PAPER_TERMS)


def state_share(task: Task, final_hashes: Mapping[str, str] | None) -> float:
    if not task.expected_server_hashes:
        raise ValueError(
            f"task {task.id} has no expected server hashes; regenerate it (python -m hub.tasks --regenerate)"
        )
    if final_hashes is None:
        raise ValueError("R_state needs the episode's final server hashes")
    want = task.expected_server_hashes
    return sum(final_hashes.get(s) == h for s, h in want.items()) / len(want)


def score(
    task: Task,
    calls: list[CallRecord],
    schemas: Mapping[str, Mapping[str, Any]],
    config: RewardConfig | None = None,
    *,
    final_hashes: Mapping[str, str] | None = None,
    messages: int = 0,
    format_error_messages: int = 0,
    replies: Sequence[tuple[int, str]] | None = None,
) -> RewardBreakdown:
    """The reward of one episode: ``calls`` in order, ``schemas`` the offered tools' input schemas by name,
    ``replies`` the text of the model's messages as (turn, text) (needed by the clarify question check)."""
    config = config or RewardConfig()
    ask_turns = {i for i, t in enumerate(task.turns) if t.ask}
    scored = [c for c in calls if c.turn not in ask_turns]
    paper = paper_components(task, scored, schemas, config)
    components = dict(paper.components)
    no_call = 1.0 if not calls else 0.0
    asked, why = ask_score(task, calls, schemas, config, replies) if ask_turns else (1.0, "")
    components["abstention"] = no_call
    components["clarify"] = asked
    if task.kind == "abstain":
        mode, base = "abstention", no_call
    elif task.kind == "clarify":
        mode = "clarify"
        base = asked if not task.gt_steps() else asked * weighted(components, config)
    else:
        mode, base = "paper", weighted(components, config)
    extra = _optional_terms(task, config, components, final_hashes, messages, format_error_messages)
    weights = {w: v for w in RewardConfig.model_fields if isinstance(v := getattr(config, w), float)}
    rows = ledger(mode, components, config, gated=mode == "clarify" and bool(task.gt_steps()))
    return RewardBreakdown(
        total=base + extra,
        kind=task.kind,
        mode=mode,
        components=components,
        weights=weights,
        n_calls=len(calls),
        n_gt=len(task.gt_steps()),
        budget=paper.budget,
        validity=paper.validity,
        alignment=paper.alignment,
        reasons={"clarify": why} if ask_turns else {},
        ledger=rows,
        max=sum(r.max for r in rows),
    )


# The ledger ------------------------------------------------------------------------------------


def _row(name: str, weight: float | None, value: float, best: float = 1.0, scale: float = 1.0) -> LedgerRow:
    w = 1.0 if weight is None else weight
    return LedgerRow(
        name=name, weight=weight, value=value, earned=w * value * scale, max=w * best, lost=w * (best - value)
    )


def ledger(mode: str, components: Mapping[str, float], config: RewardConfig, *, gated: bool) -> list[LedgerRow]:
    """Each component's points earned and lost against the most the task could give.

    ``paper``: component c earns w_c·R_c of at most w_c·best_c. ``abstention``: one point for no call.
    ``clarify``: asking gates the paper terms (``gated``: ground-truth calls follow the ask turns), so a failed
    ask loses everything they earned, counted on ``clarify``; with nothing after the ask it is R_ask alone.
    R_state and R_format add w·R of at most w in every mode. The losses add up to ``max - total``.
    """
    if mode == "abstention":
        rows = [_row("abstention", None, components["abstention"])]
    elif mode == "clarify" and not gated:
        rows = [_row("clarify", None, components["clarify"])]
    else:
        asked = components["clarify"] if mode == "clarify" else 1.0
        rows = [_row(c, weight_of(c, config), components[c], COMPONENT[c].best, scale=asked) for c in PAPER_TERMS]
        if mode == "clarify":
            inner = sum(weight_of(c, config) * components[c] for c in PAPER_TERMS)
            rows.append(
                LedgerRow(name="clarify", weight=None, value=asked, earned=0.0, max=0.0, lost=(1 - asked) * inner)
            )
    rows += [
        _row(c.name, weight_of(c.name, config), components[c.name], c.best)
        for c in WEIGHTED
        if not c.paper and c.name in components
    ]
    return rows


def ask_score(
    task: Task,
    calls: list[CallRecord],
    schemas: Mapping[str, Mapping[str, Any]],
    config: RewardConfig,
    replies: Sequence[tuple[int, str]] | None,
) -> tuple[float, str]:
    """R_ask and its reason: every ask turn passes, or the first failing turn says why."""
    notes = []
    for i, turn in enumerate(task.turns):
        if not turn.ask:
            continue
        n = sum(c.turn == i for c in calls)
        if n:
            return 0.0, f"turn {i}: made {n} call(s) on the ask turn instead of asking"
        if config.clarify_check == "no_call":
            notes.append(f"turn {i}: no call (clarify_check=no_call)")
            continue
        if replies is None:
            raise ValueError(
                "the clarify question check needs the model's replies (score(..., replies=...)); "
                "or set clarify_check='no_call'"
            )
        verdict = judge_reply("\n".join(text for t, text in replies if t == i), question_words(task, i, schemas))
        if not verdict.asked:
            return 0.0, f"turn {i}: {verdict.reason}"
        notes.append(f"turn {i}: {verdict.reason}")
    return 1.0, "; ".join(notes)


def _optional_terms(
    task: Task,
    config: RewardConfig,
    components: dict[str, float],
    final_hashes: Mapping[str, str] | None,
    messages: int,
    format_error_messages: int,
) -> float:
    extra = 0.0
    if config.w_state or final_hashes is not None and task.expected_server_hashes:
        components["state"] = state_share(task, final_hashes)
        extra += config.w_state * components["state"]
    components["format"] = 1.0 - format_error_messages / messages if messages else 1.0
    extra += config.w_format * components["format"]
    return extra
