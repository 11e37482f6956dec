"""The synthesis state machine: a chain of 2–5 live calls walked along the dependency graph.

States (the paper's five groups): QUERY (plan a chain from an anchor tool, ground it in the
sampling context), TURN (pick the next tool), TOOL_EXECUTION (build arguments and call the tool on
the task's fork through the dispatcher), RESPONSE (class the outcome SUCCESS / PARTIAL / FAILURE;
on failure, recover: retry with corrected arguments, an alternative tool, or give up gracefully),
CONTINUATION (next step, a new user turn on a turn-decay schedule, or end). Calls run live, so a
later step uses the ids an earlier one created or returned.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from hub.engine.dispatcher import Dispatcher
from hub.kit import Tool
from hub.synth.chain.graph import ToolGraph
from hub.synth.chain.sampler import EntityRecord, Harvest, Harvester, SamplingContext
from hub.synth.chain.values import ValueMaker, enum_of, main_type

ID_IN_ERROR = re.compile(r"\b[A-Z]{2,6}-[0-9A-Z]{2,}\b")

NUMERIC_HINTS = ("balance", "amount", "amount_due", "price", "current_price", "cash", "total", "available_cash")
PAIRS = (
    ("start", "end"),
    ("check_in", "check_out"),
    ("start_date", "end_date"),
    ("from_date", "to_date"),
    ("since", "until"),
    ("starts_after", "starts_before"),
)
SKIP_OPTIONAL = ("limit", "offset", "check_conflicts")


class State(str, Enum):  # noqa: UP042 (its str() is part of recorded traces)
    QUERY = "query"
    TURN = "turn"
    TOOL_EXECUTION = "tool_execution"
    RESPONSE = "response"
    CONTINUATION = "continuation"


@dataclass
class Attempt:
    tool: str
    arguments: dict[str, Any]
    ok: bool
    error: str | None = None
    error_kind: str | None = None
    recovery: str | None = None  # how the next attempt recovers from this failure


@dataclass
class StepRun:
    index: int
    tool: str
    kind: str
    arguments: dict[str, Any]
    result: Any
    harvest: Harvest
    after: list[int]
    derived: dict[str, int]  # argument -> the earlier step whose result carried its value
    outcome: str  # success / partial (empty result)


@dataclass
class Chain:
    server: str
    anchor: str
    planned: list[str]
    steps: list[StepRun] = field(default_factory=list)
    attempts: list[Attempt] = field(default_factory=list)
    recoveries: list[str] = field(default_factory=list)
    gave_up: bool = False
    records: dict[tuple[str, Any], EntityRecord] = field(default_factory=dict)
    cuts: list[int] = field(default_factory=list)  # step indexes where a new user turn starts
    trace: list[str] = field(default_factory=list)


@dataclass
class MachineConfig:
    min_steps: int = 2
    max_steps: int = 5
    tries: int = 4  # argument candidates per step
    min_turns: int = 2
    max_turns: int = 3
    turn_decay: float = 0.5  # chance of one more turn beyond min_turns


def plan_chain(
    graph: ToolGraph, anchor: str, length: int, rng: random.Random, backward: bool = True, create_first: bool = False
) -> list[str]:
    """Tool names along the graph, containing ``anchor``: predecessors (implicit first; with
    ``create_first``, a write that creates what the anchor needs), then successors."""
    chain = [anchor]
    back = max(rng.randint(0, length - 1), int(create_first)) if backward else 0
    while len(chain) < length and (back > 0 or _needs(graph, chain[0], chain)):
        preds = [e for e in graph.predecessors(chain[0]) if e.src not in chain]
        implicit = [e for e in preds if e.kind == "implicit"]
        creators = [e for e in preds if e.kind == "explicit" and graph.nodes[e.src].kind == "write"]
        pick = implicit or (creators if create_first and creators else preds)
        if not pick:
            break
        chain.insert(0, rng.choice(pick).src)
        back -= 1
    while len(chain) < length:
        succ = [e for e in graph.successors(chain[-1]) if e.dst not in chain]
        if not succ:
            preds = [e for e in graph.predecessors(chain[0]) if e.src not in chain]
            if not preds:
                break
            chain.insert(0, rng.choice(preds).src)
            continue
        chain.append(rng.choice(succ).dst)
    if len(chain) < min(2, length):  # an isolated tool: pair it with a context-free read of the same server
        free = sorted(
            n.name for n in graph.nodes.values() if n.name not in chain and n.kind == "read" and not n.required_entities
        )
        if free:
            chain.insert(0, rng.choice(free))
    return chain


def _needs(graph: ToolGraph, tool: str, chain: list[str]) -> bool:
    return any(r not in chain for r in graph.nodes[tool].requires)


class Machine:
    """Runs one chain on one session of ``dispatcher``; every choice from ``rng``."""

    def __init__(
        self,
        dispatcher: Dispatcher,
        tools: dict[str, Tool],
        graph: ToolGraph,
        harvester: Harvester,
        ctx: SamplingContext,
        values: ValueMaker,
        rng: random.Random,
        seed_values: set[Any],
        config: MachineConfig | None = None,
    ) -> None:
        self.dispatcher = dispatcher
        self.tools = tools
        self.graph = graph
        self.harvester = harvester
        self.ctx = ctx
        self.values = values
        self.rng = rng
        self.seed_values = seed_values
        self.config = config or MachineConfig()

    # The loop ---------------------------------------------------------------------------------

    def run(self, session: str, anchor: str, length: int, backward: bool = True, create_first: bool = False) -> Chain:
        chain = Chain(self.ctx.server, anchor, plan_chain(self.graph, anchor, length, self.rng, backward, create_first))
        chain.trace.append(State.QUERY.value)
        queue = list(chain.planned)
        while queue:
            tool = queue.pop(0)
            chain.trace.append(State.TURN.value)
            step = self._execute(session, chain, tool)
            if step is None:
                alt = self._alternative(chain, tool, queue)
                if alt is not None:
                    chain.recoveries.append("alternative_tool")
                    if chain.attempts and not chain.attempts[-1].ok:
                        chain.attempts[-1].recovery = "alternative_tool"
                    step = self._execute(session, chain, alt)
            if step is None:
                chain.gave_up = True
                chain.recoveries.append("give_up")
                if chain.attempts and not chain.attempts[-1].ok:
                    chain.attempts[-1].recovery = "give_up"
                break
            chain.trace.append(State.CONTINUATION.value)
        chain.cuts = self._turn_cuts(len(chain.steps))
        return chain

    def _turn_cuts(self, n: int) -> list[int]:
        """Turn-decay schedule: min_turns, then one more with probability ``turn_decay``, at most n."""
        turns = self.config.min_turns
        while turns < self.config.max_turns and self.rng.random() < self.config.turn_decay:
            turns += 1
        turns = max(1, min(turns, n))
        return sorted(self.rng.sample(range(1, n), turns - 1)) if turns > 1 else []

    def _alternative(self, chain: Chain, failed: str, queue: list[str]) -> str | None:
        """A tool of the same kind taking the same entity types, not yet in the chain."""
        node = self.graph.nodes[failed]
        want = set(node.required_entities.values())
        used = {s.tool for s in chain.steps} | set(queue) | {failed}
        options = [
            n.name
            for n in self.graph.nodes.values()
            if n.name not in used
            and n.kind == node.kind
            and want
            and set(n.required_entities.values()) == want
            and all(r in used for r in n.requires)
        ]
        return self.rng.choice(sorted(options)) if options else None

    # One step ---------------------------------------------------------------------------------

    def _execute(self, session: str, chain: Chain, name: str) -> StepRun | None:
        tool = self.tools[name]
        failed: set[str] = set()
        last_fail: Attempt | None = None
        for attempt in range(self.config.tries):
            chain.trace.append(State.TOOL_EXECUTION.value)
            args = None
            if last_fail is not None and last_fail.error:
                args = self._repair(tool, chain, last_fail.arguments, last_fail.error)
            if args is None:
                args = self._arguments(tool, chain, attempt)
            key = repr(sorted(args.items()))
            if key in failed:
                continue
            out = self.dispatcher.call(session, chain.server, name, args)
            chain.trace.append(State.RESPONSE.value)
            if not out.ok:
                failed.add(key)
                last_fail = Attempt(name, args, False, out.error, out.error_kind)
                continue
            if last_fail is not None:
                last_fail.recovery = "retry_corrected"
                chain.recoveries.append("retry_corrected")
                if not any(not a.ok for a in chain.attempts):  # one demonstrated recovery per conversation
                    chain.attempts.append(last_fail)
            chain.attempts.append(Attempt(name, args, True))
            return self._record(chain, tool, args, out.result)
        if last_fail is not None and not any(not a.ok for a in chain.attempts):
            chain.attempts.append(last_fail)
        return None

    def _record(self, chain: Chain, tool: Tool, args: dict[str, Any], result: Any) -> StepRun:
        harvest = self.harvester.harvest(result, tool.returns)
        chain.records.update(harvest.records)
        derived = self._derived(chain, tool, args)
        after = sorted(set(derived.values()) | self._implicit_after(chain, tool) | self._state_after(chain, tool, args))
        empty = not harvest.ids and not harvest.values
        step = StepRun(
            len(chain.steps),
            tool.name,
            tool.kind,
            args,
            result,
            harvest,
            after,
            derived,
            "partial" if empty else "success",
        )
        chain.steps.append(step)
        return step

    def _derived(self, chain: Chain, tool: Tool, args: dict[str, Any]) -> dict[str, int]:
        """Entity arguments whose value an earlier step's result carried (latest such step)."""
        out: dict[str, int] = {}
        for p, v in args.items():
            if not tool.params.get(p):
                continue
            for item in v if isinstance(v, list) else [v]:
                for s in reversed(chain.steps):
                    if _carries(s.harvest, item):
                        out[p] = s.index
                        break
        return out

    def _implicit_after(self, chain: Chain, tool: Tool) -> set[int]:
        return {s.index for s in chain.steps if s.tool in tool.requires}

    def _state_after(self, chain: Chain, tool: Tool, args: dict[str, Any]) -> set[int]:
        mine = {repr(v) for p, v in args.items() if tool.params.get(p)}
        out = set()
        for s in chain.steps:
            if s.kind != "write":
                continue
            theirs = {repr(v) for p, v in s.arguments.items() if self.tools[s.tool].params.get(p)}
            if mine & theirs:
                out.add(s.index)
        return out

    # Arguments --------------------------------------------------------------------------------

    def _arguments(self, tool: Tool, chain: Chain, attempt: int) -> dict[str, Any]:
        props = tool.input_schema.get("properties", {})
        required = set(tool.required)
        args: dict[str, Any] = {}
        taken: dict[str, list[Any]] = {}
        for p, schema in props.items():
            etype = tool.params.get(p)
            if etype:
                value = self._entity_arg(p, etype, schema, chain, attempt, p in required, taken, tool, args)
            elif p in required:
                value = self._plain_arg(p, schema, chain, attempt, args)
            elif p not in SKIP_OPTIONAL and self.rng.random() < 0.12 + 0.3 * attempt:
                value = self._plain_arg(p, schema, chain, attempt, args)
            else:
                continue
            if value is not None:
                args[p] = value
        _fix_pairs(args)
        return args

    def _entity_arg(
        self,
        p: str,
        etype: str,
        schema: dict[str, Any],
        chain: Chain,
        attempt: int,
        required: bool,
        taken: dict[str, list[Any]],
        tool: Tool,
        args: dict[str, Any],
    ) -> Any:
        from_chain = self._chain_ids(chain, etype)
        if not required and not (from_chain and self.rng.random() < 0.7) and self.rng.random() >= 0.3 * attempt:
            return None
        used = taken.setdefault(etype, [])
        related = [v for v in self._related(etype, args, chain) if v not in used]
        chain_first = attempt == 0 or (attempt == 1 and self.rng.random() < 0.5)
        options = [v for v in from_chain if v not in used] if chain_first else []
        if related and (not options or self.rng.random() < 0.7):
            options = related
        if not options:
            options = [r.id for r in self._affine(tool, etype, 6) if r.id not in used]
        if not options:
            options = [v for v in from_chain if v not in used]
        if not options:
            return None
        value = options[0] if (chain_first or related) and self.rng.random() < 0.6 else self.rng.choice(options)
        used.append(value)
        rec = self.ctx.record(etype, value)
        if rec is not None:
            chain.records.setdefault((etype, value), rec)
        if main_type(schema) == "array":
            extra = [r.id for r in self.ctx.pick(etype, self.rng, 2) if r.id != value]
            return [value, *extra[: self.rng.randint(0, 1)]]
        return value

    def _related(self, etype: str, args: dict[str, Any], chain: Chain) -> list[Any]:
        """Ids of ``etype`` consistent with the arguments chosen so far: a chosen entity's record names
        one (a meeting's host_id), or a record of ``etype`` names a chosen value (an address's customer_id)."""
        out: list[Any] = []
        chosen = [v for v in args.values() if not isinstance(v, (list, dict, bool))]
        keymap = self.harvester.keymap
        for (_tool, value), rec in list(chain.records.items()):
            if value in chosen:
                for k, v in rec.fields.items():
                    if etype in keymap.get(k, ()) and v not in out and v != value:
                        out.append(v)
        if chosen:
            for rec in self.ctx.entities.get(etype, []):
                if any(v in chosen for k, v in rec.fields.items() if k in keymap) and rec.id not in out:
                    out.append(rec.id)
        return out

    def _affine(self, tool: Tool, etype: str, n: int) -> list[EntityRecord]:
        """Pool records, those whose fields name a word of the tool's name first (a 'thermostat' for set_thermostat)."""
        pool = self.ctx.pick(etype, self.rng, 4 * n)
        words = set(tool.name.split("_")[1:])
        fit = [r for r in pool if any(isinstance(v, str) and v in words for v in r.fields.values())]
        rest = [r for r in pool if r not in fit]
        return (fit + rest)[:n]

    def _repair(self, tool: Tool, chain: Chain, args: dict[str, Any], error: str) -> dict[str, Any] | None:
        """Retry with corrected arguments, read off the error: the ids, enum values and parameters it names."""
        new = dict(args)
        props = tool.input_schema.get("properties", {})
        words = set(re.findall(r"[A-Za-z0-9_.-]+", error))
        for token in ID_IN_ERROR.findall(error):
            if token in args.values():
                continue
            etype = self._type_of(token)
            params = [p for p, e in tool.params.items() if e == etype and p in new and not isinstance(new[p], list)]
            named = [p for p in params if str(new[p]) in error] or params
            if named:
                new[named[0]] = token
        for p, schema in props.items():
            enum = enum_of(schema)
            mentioned = [e for e in enum if e in words and e != new.get(p)]
            if enum and mentioned and p in new:
                new[p] = self.rng.choice(mentioned)
            if p not in new and p in words and p not in SKIP_OPTIONAL:
                etype = tool.params.get(p)
                value = (
                    self._entity_arg(p, etype, schema, chain, 2, True, {}, tool, new)
                    if etype
                    else self.values.make(p, schema, self.ctx.values)
                )
                if value is not None:
                    new[p] = value
            if isinstance(new.get(p), bool) and "already" in words:
                new[p] = not new[p]
        _fix_pairs(new)
        return new if new != args else None

    def _type_of(self, token: str) -> str | None:
        prefix = token.split("-", 1)[0]
        for etype, recs in self.ctx.entities.items():
            if any(isinstance(r.id, str) and r.id.split("-", 1)[0] == prefix for r in recs[:5]):
                return etype
        return None

    def _chain_ids(self, chain: Chain, etype: str) -> list[Any]:
        """Ids of ``etype`` the chain has produced (latest first), then those it used as arguments."""
        out: list[Any] = []
        for s in reversed(chain.steps):
            for v in s.harvest.ids.get(etype, [])[:5]:
                if v not in out:
                    out.append(v)
            for p, v in s.arguments.items():
                if self.tools[s.tool].params.get(p) == etype and not isinstance(v, list) and v not in out:
                    out.append(v)
        return out

    def _plain_arg(self, p: str, schema: dict[str, Any], chain: Chain, attempt: int, args: dict[str, Any]) -> Any:
        kind = main_type(schema)
        if kind == "number" and attempt >= 1:
            hint = self._numeric_hint(chain, args)
            if hint is not None:
                return hint
        return self.values.make(p, schema, self.ctx.values)

    def _numeric_hint(self, chain: Chain, args: dict[str, Any]) -> float | None:
        """A number read from a record this call involves (e.g. an account's balance), or None."""
        for (_, value), rec in chain.records.items():
            if value in args.values():
                for k in NUMERIC_HINTS:
                    v = rec.fields.get(k)
                    if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0:
                        return float(v)
        return None


def _carries(h: Harvest, value: Any) -> bool:
    if isinstance(value, bool) or value is None:
        return False
    for ids in h.ids.values():
        if value in ids:
            return True
    if isinstance(value, str) and len(value) >= 4:
        return any(value in vs for vs in h.values.values())
    return False


def _fix_pairs(args: dict[str, Any]) -> None:
    """An end after its start (dates and datetimes), whatever the generator drew."""
    for a, b in PAIRS:
        x, y = args.get(a), args.get(b)
        if isinstance(x, str) and isinstance(y, str) and y <= x:
            args[b] = _later(x, y)


def _later(start: str, end: str) -> str:
    from datetime import datetime, timedelta

    for fmt, step in (("%Y-%m-%dT%H:%M", timedelta(minutes=45)), ("%Y-%m-%d", timedelta(days=2))):
        try:
            moment = datetime.strptime(start, fmt)
        except ValueError:
            continue
        return (moment + step).strftime(fmt)
    return end
