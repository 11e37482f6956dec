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
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field

from hub.engine.answer import answer_share
from hub.engine.clarify import AskVerdict, judge_reply, other_words, question_words
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
    result: Any = None  # what a successful call returned (a discovery read is judged by what it found)


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
    found: bool = False  # a discovery read matched by what its result held, not by name and keys


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
    normalized: float = 0.0  # total / max, clipped to [0, 1]
    preset: str = "paper"  # the preset the config started from


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


def matter_keys(step: GTStep, schemas: Mapping[str, Mapping[str, Any]], config: RewardConfig) -> list[str]:
    """The ground-truth argument keys coverage and R_arg judge: all (paper), or those that matter to the outcome."""
    if config.arg_keys == "all":
        return list(step.arguments)
    required = schemas.get(step.name, {}).get("required") or ()
    return [k for k in step.arguments if step.matters(k, required)]


def _matches(call: CallRecord, step: GTStep, keys: Sequence[str]) -> bool:
    return call.name == step.name and isinstance(call.arguments, dict) and all(k in call.arguments for k in keys)


def arg_share(call: CallRecord, step: GTStep, keys: Sequence[str] | None = None) -> float:
    keys = list(step.arguments) if keys is None else keys
    if not keys:
        return 1.0
    args = call.arguments if isinstance(call.arguments, dict) else {}
    same = sum(1 for k in keys if k in args and _same_value(args[k], step.arguments[k]))
    return same / len(keys)


def _same_value(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return bool(a == b)


def align(
    steps: list[GTStep], edges: list[tuple[int, int]], calls: list[CallRecord], keys: list[list[str]] | None = None
) -> dict[int, int]:
    """GT step index -> call index, greedily in GT order (see the module docstring)."""
    keys = keys if keys is not None else [list(s.arguments) for s in steps]
    deps: dict[int, list[int]] = {}
    for j, g in edges:
        deps.setdefault(g, []).append(j)
    mu: dict[int, int] = {}
    used: set[int] = set()
    for g, step in enumerate(steps):
        floor = max((mu[j] for j in deps.get(g, []) if j in mu), default=-1)
        candidates = [i for i, c in enumerate(calls) if i not in used and _matches(c, step, keys[g])]
        if not candidates:
            continue
        best = min(candidates, key=lambda i: (i <= floor, -arg_share(calls[i], step, keys[g]), i))
        mu[g] = best
        used.add(best)
    return mu


def fed_values(steps: list[GTStep], g: int) -> list[tuple[int, Any]]:
    """What GT step ``g`` found for later steps: (the later step, the value), from their arguments' provenance."""
    sid = steps[g].id
    return [
        (h, later.arguments[key])
        for h, later in enumerate(steps)
        for key, src in later.sources.items()
        if src.role == "returned" and src.step == sid and key in later.arguments
    ]


def discover(steps: list[GTStep], calls: list[CallRecord], mu: dict[int, int], reads: Collection[str]) -> set[int]:
    """Match the GT reads that found a value for a later step but were not matched by name and keys: any successful
    read of the model's, before the call that matched the later step, whose result held every value found. Adds them
    to ``mu``; returns the GT steps so matched."""
    used = set(mu.values())
    found: set[int] = set()
    for g, step in enumerate(steps):
        fed = fed_values(steps, g) if g not in mu and step.name in reads else []
        if not fed:
            continue
        before = min((mu[h] for h, _ in fed if h in mu), default=len(calls))
        values = [v for _, v in fed]
        for i in range(before):
            c = calls[i]
            if i not in used and c.ok and c.name in reads and all(holds(c.result, v) for v in values):
                mu[g] = i
                used.add(i)
                found.add(g)
                break
    return found


def holds(result: Any, value: Any) -> bool:
    """Whether a tool result holds ``value`` anywhere: an equal scalar, or a string id inside a longer string."""
    if isinstance(result, dict):
        return any(holds(v, value) for v in result.values())
    if isinstance(result, (list, tuple)):
        return any(holds(v, value) for v in result)
    if isinstance(value, bool) or isinstance(result, bool):
        return type(value) is type(result) and value == result
    if isinstance(value, (int, float)) and isinstance(result, (int, float)):
        return float(value) == float(result)
    if isinstance(value, str) and isinstance(result, str):
        return value == result or len(value) >= 3 and _word_in(value, result)
    return False


def _word_in(value: str, text: str) -> bool:
    i = text.find(value)
    while i >= 0:
        before, after = text[i - 1 : i], text[i + len(value) : i + len(value) + 1]
        if not (before.isalnum() or before in "_-") and not (after.isalnum() or after in "_-"):
            return True
        i = text.find(value, i + 1)
    return False


def scored_edges(
    steps: list[GTStep], edges: list[tuple[int, int]], reads: Collection[str], config: RewardConfig
) -> list[tuple[int, int]]:
    """The dependency edges o(g) enforces: all of them (paper); with provenance, those that carry a value or follow
    a write, so independent reads may come in any order."""
    if config.discovery == "name" or not any(s.sources for s in steps):
        return edges

    def carries(j: int, g: int) -> bool:
        return any(src.role == "returned" and src.step == steps[j].id for src in steps[g].sources.values())

    return [(j, g) for j, g in edges if steps[j].name not in reads or carries(j, g)]


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
    task: Task,
    calls: list[CallRecord],
    schemas: Mapping[str, Mapping[str, Any]],
    config: RewardConfig,
    *,
    reads: Collection[str] = frozenset(),
    uncounted: int = 0,
) -> PaperScore:
    """R_val, R_cov, R_eff, R_name and R_arg of ``calls`` against the task's ground truth (``uncounted``: more calls
    that count toward n in R_eff only, the reads an ask turn allows)."""
    steps = task.gt_steps()
    edges = scored_edges(steps, task.edges(), reads, config)
    keys = [matter_keys(s, schemas, config) for s in steps]
    checks = validity(calls, schemas)
    n = len(calls)
    mu = align(steps, edges, calls, keys)
    found = discover(steps, calls, mu, reads) if config.discovery == "found" else set()
    alignment = [
        Alignment(
            gt=steps[g].id,
            call=i,
            ordered=order_ok(g, mu, edges),
            arg_share=1.0 if g in found else arg_share(calls[i], steps[g], keys[g]),
            found=g in found,
        )
        for g, i in sorted(mu.items())
    ]
    gt_names = {s.name for s in steps}
    finders = {mu[g] for g in found}
    components = {
        "validity": sum(c.score for c in checks) / n if n else 0.0,
        "coverage": sum(a.ordered for a in alignment) / len(steps) if steps else 0.0,
        "efficiency": efficiency(n + uncounted, len(steps), config.alpha, config.beta),
        "name": sum(c.name in gt_names or i in finders for i, c in enumerate(calls)) / n if n else 0.0,
        "argument": sum(a.arg_share for a in alignment) / len(alignment) if alignment else 0.0,
    }
    return PaperScore(components, checks, alignment, budget(len(steps), config.beta))


def weight_of(name: str, config: RewardConfig) -> float:
    field = COMPONENT[name].weight
    assert field is not None, f"{name} is a gate, not a weighted component"
    return float(getattr(config, field))


def weighted(components: Mapping[str, float], config: RewardConfig) -> float:
    return sum(weight_of(c, config) * components[c] for c in PAPER_TERMS)


# The outcome -----------------------------------------------------------------------------------


def state_value(
    task: Task, config: RewardConfig, final_hashes: Mapping[str, str] | None, state_rows: float | None
) -> float:
    """R_state: 1 when every server's final state is the expected one. Otherwise, as a gate (``state_gate``), between
    half that share and all of it by the share of rows right (``state_rows``, from the engine's diffs), so a wrong
    state that is nearly right keeps more; as the paper's optional term, the share of servers in their expected
    state."""
    if final_hashes is None:
        raise ValueError("R_state needs the episode's final server hashes (score(..., final_hashes=...))")
    want = task.expected_server_hashes
    servers = sum(final_hashes.get(s) == h for s, h in want.items()) / len(want)
    if config.state_gate is None or servers == 1.0:
        return servers
    return config.state_gate * (1.0 + (state_rows or 0.0)) / 2


def answer_value(task: Task, replies: Sequence[tuple[int, str]] | None) -> float:
    """R_ans: over the turns that ask for information, the mean share of the wanted values their reply states."""
    if replies is None:
        raise ValueError("the answer term needs the model's replies (score(..., replies=...))")
    turns = [(i, t.answer) for i, t in enumerate(task.turns) if t.answer]
    said = {i: "\n".join(text for t, text in replies if t == i) for i, _ in turns}
    return sum(answer_share(values, said[i]) for i, values in turns) / len(turns)


def outcome_terms(
    task: Task,
    config: RewardConfig,
    components: dict[str, float],
    reasons: dict[str, str],
    final_hashes: Mapping[str, str] | None,
    state_rows: float | None,
    replies: Sequence[tuple[int, str]] | None,
) -> None:
    """R_ans and R_state into ``components`` where the task can give them; a term it cannot give is left out (of the
    maximum, or as a gate), and ``reasons`` says why."""
    if config.w_answer:
        if any(t.answer for t in task.turns):
            components["answer"] = answer_value(task, replies)
        else:
            reasons["answer"] = "the task records no answer: the answer term is left out of its maximum"
    if not task.expected_server_hashes:
        if config.w_state or config.state_gate is not None:
            reasons["state"] = "the task has no expected final state: the state term is left out"
        return
    if config.w_state or config.state_gate is not None or final_hashes is not None:
        components["state"] = state_value(task, config, final_hashes, state_rows)


# The total -------------------------------------------------------------------------------------


def score(
    task: Task,
    calls: list[CallRecord],
    schemas: Mapping[str, Mapping[str, Any]],
    config: RewardConfig | None = None,
    *,
    final_hashes: Mapping[str, str] | None = None,
    state_rows: float | None = None,
    messages: int = 0,
    format_error_messages: int = 0,
    replies: Sequence[tuple[int, str]] | None = None,
    reads: Collection[str] = frozenset(),
    verdicts: Mapping[int, AskVerdict] | None = None,
) -> RewardBreakdown:
    """The reward of one episode: ``calls`` in order, ``schemas`` the offered tools' input schemas by name,
    ``replies`` the text of the model's messages as (turn, text) (the ask check and the answer term read them),
    ``reads`` the names of the read-only tools (ground truth and offered), ``final_hashes`` and ``state_rows`` the
    final state per server and the share of changed rows that are right (the engine's diffs), ``verdicts`` the ask
    turns a judge model decided."""
    config = config or RewardConfig()
    ask_turns = {i for i, t in enumerate(task.turns) if t.ask}
    scored = [c for c in calls if c.turn not in ask_turns]
    asked_reads = sum(c.turn in ask_turns and c.name in reads for c in calls) if config.ask_reads else 0
    paper = paper_components(task, scored, schemas, config, reads=reads, uncounted=asked_reads)
    components = dict(paper.components)
    reasons: dict[str, str] = {}
    no_call = 1.0 if not calls else 0.0
    asked, why = ask_score(task, calls, schemas, config, replies, reads, verdicts) if ask_turns else (1.0, "")
    if ask_turns:
        reasons["clarify"] = why
    components["abstention"] = no_call
    components["clarify"] = asked
    outcome_terms(task, config, components, reasons, final_hashes, state_rows, replies)
    components["format"] = 1.0 - format_error_messages / messages if messages else 1.0
    gated = task.kind == "clarify" and bool(task.gt_steps())
    mode = {"abstain": "abstention", "clarify": "clarify"}.get(task.kind, "paper")
    gates = gates_of(task, config, components, gated)
    rows = ledger(mode, components, config, gated=gated, gates=gates)
    if task.kind == "abstain":
        base = no_call
    elif task.kind == "clarify" and not gated:
        base = asked
    else:
        base = weighted(components, config) + sum(
            weight_of(c, config) * components[c] for c in INNER if c in components
        )
        for g in gates:
            base = gate(g, components[g], base)
    total = base + config.w_format * components["format"]
    best = sum(r.max for r in rows)
    weights = {w: float(getattr(config, w)) for w in WEIGHT_FIELDS}
    return RewardBreakdown(
        total=total,
        kind=task.kind,
        mode=mode,
        components=components,
        weights=weights,
        n_calls=len(calls),
        n_gt=len(task.gt_steps()),
        budget=paper.budget,
        validity=paper.validity,
        alignment=paper.alignment,
        reasons=reasons,
        ledger=rows,
        max=best,
        normalized=min(1.0, max(0.0, total / best)) if best > 0 else 0.0,
        preset=config.preset,
    )


# Weighted terms besides the paper's that join its sum (and its gates); R_format is added to every kind's total.
INNER = tuple(c.name for c in WEIGHTED if not c.paper and c.name != "format")


def gate(name: str, value: float, inner: float) -> float:
    """What a gate leaves of the gated sum ``inner``: asking scales it (the paper's R_ask · R); the final state scales
    only what was earned, so a wrong state never softens an efficiency penalty."""
    return value * inner if name == "clarify" or inner > 0 else inner


def gates_of(task: Task, config: RewardConfig, components: Mapping[str, float], gated: bool) -> list[str]:
    """The components that gate the weighted sum, outermost last: the final state (``state_gate``), then asking."""
    out = ["state"] if config.state_gate is not None and "state" in components and task.kind != "abstain" else []
    if task.kind == "clarify" and gated:
        out.append("clarify")
    return out


WEIGHT_FIELDS = (*(c.weight for c in WEIGHTED if c.weight), "alpha", "beta")


# The ledger ------------------------------------------------------------------------------------


def _row(name: str, weight: float | None, value: float, best: float = 1.0, scale: float = 1.0) -> LedgerRow:
    w = 1.0 if weight is None else weight
    return LedgerRow(
        name=name, weight=weight, value=value, earned=w * value * scale, max=w * best, lost=w * (best - value)
    )


def ledger(
    mode: str, components: Mapping[str, float], config: RewardConfig, *, gated: bool, gates: Sequence[str] = ()
) -> list[LedgerRow]:
    """Each component's points earned and lost against the most the task could give.

    ``paper``: component c earns w_c·R_c of at most w_c·best_c (the paper's five, and R_ans and R_state where the
    task gives them). ``abstention``: one point for no call. ``clarify``: asking gates those terms (``gated``:
    ground-truth calls follow the ask turns), so a failed ask loses everything they earned, counted on
    ``clarify``; with nothing after the ask it is R_ask alone. A state gate (the outcome preset) scales them by
    R_state the same way. R_format adds w·R of at most w in every mode. The losses add up to ``max - total``.
    """
    if mode == "abstention":
        rows = [_row("abstention", None, components["abstention"])]
    elif mode == "clarify" and not gated:
        rows = [_row("clarify", None, components["clarify"])]
    else:
        gates = [g for g in gates if g in components] or (["clarify"] if mode == "clarify" else [])
        terms = [*PAPER_TERMS, *(c for c in INNER if c in components and c not in gates)]
        inner = sum(weight_of(c, config) * components[c] for c in terms)
        kept, gate_rows = inner, []
        for g in gates:
            after = gate(g, components[g], kept)
            gate_rows.append(
                LedgerRow(name=g, weight=None, value=components[g], earned=0.0, max=0.0, lost=kept - after)
            )
            kept = after
        scale = kept / inner if inner else math.prod(components[g] for g in gates)
        rows = [_row(c, weight_of(c, config), components[c], COMPONENT[c].best, scale=scale) for c in terms]
        rows += gate_rows
    if "format" in components:
        rows.append(_row("format", config.w_format, components["format"]))
    return rows


# The ask turns ---------------------------------------------------------------------------------


def ask_score(
    task: Task,
    calls: list[CallRecord],
    schemas: Mapping[str, Mapping[str, Any]],
    config: RewardConfig,
    replies: Sequence[tuple[int, str]] | None,
    reads: Collection[str] = frozenset(),
    verdicts: Mapping[int, AskVerdict] | None = None,
) -> tuple[float, str]:
    """R_ask and its reason: every ask turn passes, or the first failing turn says why."""
    notes = []
    for i, turn in enumerate(task.turns):
        if not turn.ask:
            continue
        mine = [c for c in calls if c.turn == i]
        acting = [c for c in mine if not (config.ask_reads and c.name in reads)]
        if acting:
            kind = "write or unknown " if config.ask_reads else ""
            return 0.0, f"turn {i}: made {len(acting)} {kind}call(s) on the ask turn instead of asking"
        if config.clarify_check == "no_call":
            notes.append(f"turn {i}: no call (clarify_check=no_call)")
            continue
        verdict = (verdicts or {}).get(i) or rule_verdict(task, i, schemas, replies)
        if not verdict.asked:
            return 0.0, f"turn {i}: {verdict.reason}"
        notes.append(f"turn {i}: {verdict.reason}")
    return 1.0, "; ".join(notes)


def rule_verdict(
    task: Task, turn: int, schemas: Mapping[str, Mapping[str, Any]], replies: Sequence[tuple[int, str]] | None
) -> AskVerdict:
    """The rules' verdict on ask turn ``turn`` (``hub.engine.clarify``)."""
    if replies is None:
        raise ValueError(
            "the clarify question check needs the model's replies (score(..., replies=...)); "
            "or set clarify_check='no_call'"
        )
    wanted = question_words(task, turn, schemas)
    return judge_reply("\n".join(text for t, text in replies if t == turn), wanted, other_words(schemas, wanted))
