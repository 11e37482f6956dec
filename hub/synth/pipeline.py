"""The synthesis driver: quotas, coverage-steered anchors, the machine, rendering, validation.

Every choice comes from a ``random.Random`` seeded by a string of (seed, kind, attempt), and the
anchors, sampling contexts and dedup decisions are taken in one fixed order: the same seed gives
the same dataset. Chain sampling is steered toward coverage twice: each kind cycles through a
seeded shuffle of all tools as anchors, and a final pass targets any tool still uncovered,
swapping the new task in for one whose tools stay covered.
"""

from __future__ import annotations

import random
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from hub.config import REFERENCE_NOW
from hub.dispatcher import Dispatcher
from hub.events import EventBus
from hub.library import Library
from hub.sessions import SessionManager
from hub.synth import checks, perturb
from hub.synth.graph import ToolGraph, load_graph
from hub.synth.machine import Chain, Machine, MachineConfig, StepRun
from hub.synth.output import assign_splits
from hub.synth.render import ID_TOKEN, LLMRenderer, Renderer, RenderRequest, StepView, TemplateRenderer, fmt, humanize
from hub.synth.sampler import Harvester, Sampler
from hub.synth.validate import Deduper, SeedIndex, call_tokens, ungrounded, validate_replay
from hub.synth.values import ValueMaker
from hub.tasks import GTStep, InitialState, Task, Turn, tool_name

LEVELS = ("complete", "missing", "minimal")


class SynthConfig(BaseModel):
    """Everything a run depends on (the CLI's boundary)."""

    model_config = ConfigDict(extra="forbid")

    n: int = Field(13_517, ge=1)
    seed: int = 0
    world_seed: int = 0
    test_fraction: float = Field(0.1, ge=0, lt=1)
    sampler_k: int = Field(100, ge=1)
    min_support: int = Field(3, ge=0)
    level_weights: tuple[float, float, float] = (0.6, 0.2, 0.2)
    distractor_rate: float = Field(0.4, ge=0, le=1)
    enum_strip_rate: float = Field(0.3, ge=0, le=1)
    irrelevance_rate: float = Field(0.05, ge=0, le=1)
    max_error_rate: float = Field(0.30, ge=0, le=1)
    dedup_threshold: float = Field(0.70, gt=0, le=1)
    max_attempts_factor: float = Field(4.0, ge=1)
    coverage_tries: int = Field(24, ge=0)
    cover: bool | None = None  # target uncovered tools at the end; default: when n ≥ 2 × the tool count
    llm_endpoint: str | None = None
    model: str | None = None
    cache_dir: Path | None = None
    progress: bool = False


@dataclass
class Stats:
    attempts: Counter[str] = field(default_factory=Counter)
    dropped: Counter[str] = field(default_factory=Counter)
    recoveries: Counter[str] = field(default_factory=Counter)
    replayed: int = 0
    replay_verified: int = 0
    coverage_swaps: int = 0
    seconds: float = 0.0


@dataclass
class SynthResult:
    tasks: list[Task]
    stats: Stats
    config: SynthConfig
    uncovered: list[str]
    all_tools: list[str]
    graphs: dict[str, ToolGraph]


class Synthesizer:
    def __init__(self, library: Library, config: SynthConfig, renderer: Renderer | None = None) -> None:
        self.library = library
        self.config = config
        self.renderer = renderer or self._renderer()
        self.graphs = {s: load_graph(s, m.tools, config.cache_dir) for s, m in library.mounts.items()}
        self.harvesters = {s: Harvester(m.tools) for s, m in library.mounts.items()}
        self.sampler = Sampler(library, config.seed, world_seed=config.world_seed, k=config.sampler_k,
                               min_support=config.min_support)
        self.index = SeedIndex(library, config.world_seed)
        self.sessions = SessionManager(library, seed=config.world_seed, max_sessions=1_000_000)
        self.dispatcher = Dispatcher(library, self.sessions, EventBus(maxsize=1))
        self.per_server: Counter[str] = Counter()
        self.stats = Stats()
        self.dedup = Deduper(config.dedup_threshold)
        self.all_tools = [tool_name(s, t) for s in library.mounts for t in library.mount(s).tools]

    def _renderer(self) -> Renderer:
        if self.config.llm_endpoint:
            return LLMRenderer(self.config.llm_endpoint, self.config.model or "default")
        return TemplateRenderer()

    # The run -----------------------------------------------------------------------------------

    def run(self) -> SynthResult:
        start = time.perf_counter()
        quotas = perturb.kind_quotas(self.config.n)
        irrelevance = perturb.irrelevance_count(self.config.n, self.config.irrelevance_rate, quotas["abstain"])
        slots = [k for k, q in quotas.items() for _ in range(q)]
        random.Random(f"slots:{self.config.seed}").shuffle(slots)
        schedules = {k: self._schedule(k) for k in ("mcp", "clarify", "abstain")}
        counters: Counter[str] = Counter()
        tasks: list[Task] = []
        abstain_done = 0
        limit = int(self.config.n * self.config.max_attempts_factor) + 100
        for slot in slots:
            variant = None
            if slot == "abstain":
                variant = "irrelevance" if abstain_done < irrelevance else "missing_function"
            task = None
            while task is None and sum(self.stats.attempts.values()) < limit:
                j = counters[slot]
                counters[slot] += 1
                task = self.attempt(slot, j, schedules[slot], variant)
            if task is None:
                break
            abstain_done += slot == "abstain"
            tasks.append(task)
            self._progress(len(tasks), start)
        cover = self.config.cover if self.config.cover is not None else self.config.n >= 2 * len(self.all_tools)
        if cover:
            tasks = self._cover(tasks, counters)
        assign_splits(tasks, self.config.test_fraction, self.config.seed)
        for i, t in enumerate(tasks):
            t.meta["synth"]["order"] = i
        self.stats.seconds = time.perf_counter() - start
        if self.config.progress:
            print(file=sys.stderr)
        covered = {s.name for t in tasks for s in t.gt_steps()}
        uncovered = [n for n in self.all_tools if n not in covered]
        return SynthResult(tasks, self.stats, self.config, uncovered, self.all_tools, self.graphs)

    def _schedule(self, kind: str) -> list[tuple[str, str]]:
        tools = [(s, t) for s in self.library.mounts for t in self.library.mount(s).tools]
        random.Random(f"anchors:{self.config.seed}:{kind}").shuffle(tools)
        return tools

    def _progress(self, done: int, start: float) -> None:
        if not self.config.progress or (done % 100 and done != self.config.n):
            return
        rate = done / max(1e-9, time.perf_counter() - start)
        eta = (self.config.n - done) / rate if rate else 0
        pct = 100 * done / self.config.n
        bar = "#" * int(pct / 4)
        print(f"\rsynth [{bar:<25}] {done}/{self.config.n} {pct:5.1f}% {rate:6.1f} tasks/s eta {eta:5.0f}s "
              f"attempts {sum(self.stats.attempts.values())}", end="", file=sys.stderr, flush=True)

    # One attempt -------------------------------------------------------------------------------

    def attempt(self, kind: str, j: int, schedule: list[tuple[str, str]], variant: str | None = None,
                anchor: tuple[str, str] | None = None, tries: int = 4) -> Task | None:
        """One synthesis attempt: a validated, deduplicated task, or None (the reason counted)."""
        self.stats.attempts[kind] += 1
        rng = random.Random(f"task:{self.config.seed}:{kind}:{variant}:{j}:{anchor}")
        server, tool = anchor or self._anchor(kind, variant, j, schedule)
        draft = self._draft(kind, variant, server, tool, rng, tries)
        if draft is None:
            return None
        task = self._assemble(kind, variant, draft, rng, j)
        if task is None:
            self.stats.dropped["render"] += 1
            return None
        return self._validate(task)

    def _anchor(self, kind: str, variant: str | None, j: int, schedule: list[tuple[str, str]]) -> tuple[str, str]:
        if variant == "missing_function":
            writes = [(s, t) for s, t in schedule if self.library.tool(s, t).kind == "write"]
            return writes[j % len(writes)]
        return schedule[j % len(schedule)]

    def _draft(self, kind: str, variant: str | None, server: str, tool: str, rng: random.Random,
               tries: int) -> Chain | None:
        ctx = self.sampler.for_task(server, self.per_server[server])
        self.per_server[server] += 1
        if variant == "missing_function":
            length = 1
        elif kind == "abstain":
            length = rng.randint(1, 2)
        else:
            length = rng.randint(2, 5)
        machine = Machine(self.dispatcher, self.library.mount(server).tools, self.graphs[server],
                          self.harvesters[server], ctx, ValueMaker(rng, REFERENCE_NOW), rng,
                          self.index.values(server), MachineConfig(tries=tries))
        sid = f"synth-{kind}-{rng.getrandbits(48):x}"
        self.sessions.open(sid, seed=self.config.world_seed)
        try:
            chain = machine.run(sid, tool, length, backward=kind != "clarify", create_first=tries > 4)
        finally:
            self.sessions.close(sid)
        self.stats.recoveries.update(chain.recoveries)
        need = 1 if kind == "abstain" else 2 if kind == "mcp" else 1
        if len(chain.steps) < need:
            self.stats.dropped["chain_too_short"] += 1
            return None
        if variant == "missing_function" and chain.steps[0].kind != "write":
            self.stats.dropped["chain_too_short"] += 1
            return None
        return chain

    # Assembly ----------------------------------------------------------------------------------

    def _assemble(self, kind: str, variant: str | None, chain: Chain, rng: random.Random, j: int) -> Task | None:
        server = chain.server
        groups = _groups(len(chain.steps), chain.cuts if kind != "clarify" else chain.cuts[:1])
        if kind == "abstain":
            groups = [[i] for i in range(len(chain.steps))]
        level = rng.choices(LEVELS, self.config.level_weights)[0] if kind != "clarify" else "missing"
        views = self._views(chain)
        turns_views = [[views[i] for i in g] for g in groups]
        block = self.sampler.for_task(server, self.per_server[server] - 1)
        context = block.summary() if isinstance(self.renderer, LLMRenderer) else {}
        req = RenderRequest(server, level, turns_views, context=context, date=REFERENCE_NOW.date().isoformat())
        if kind == "clarify":
            req.omit = _omission(turns_views)
            if req.omit is None:
                return None
        elif level == "missing" and kind == "mcp":
            req.defer = _deferral(turns_views, rng)
            if req.defer is None:
                level = req.level = "complete"
        texts = self.renderer.render(req, rng)
        turns = self._turns(kind, chain, groups, texts)
        turns[0].missing = [req.omit[2]] if kind == "clarify" and req.omit else []
        tools, servers, perturbs = self._offer(kind, variant, server, chain, rng)
        meta = {"synth": {
            "seed": self.config.seed, "attempt": j, "variant": variant or ("missing_value" if kind == "clarify" else "chain"),
            "level": level, "anchor": tool_name(server, chain.anchor), "planned": chain.planned,
            "chain_length": len(chain.steps), "recoveries": chain.recoveries, "gave_up": chain.gave_up,
            "trajectory": [{"server": server, "tool": a.tool, "arguments": a.arguments, "ok": a.ok, "error": a.error,
                            "recovery": a.recovery} for a in chain.attempts] if kind != "abstain" else [],
            "states": dict(Counter(chain.trace)), "outcomes": [s.outcome for s in chain.steps],
            "sampler_block": block.block,
            "request_servers": [server], "mentioned_ids": [v for v in self._mentioned_ids(chain, views)],
            "omitted": _omitted_value(req, turns_views), **perturbs,
            "requested": [tool_name(server, s.tool) for s in chain.steps],
        }}
        task_id = f"synth-{self.config.seed}-{kind}-{j:05d}-{server}"
        try:
            return Task(id=task_id, kind=kind, servers=servers, initial=InitialState(seed=self.config.world_seed),
                        turns=turns, tools=tools, strip_enums=bool(perturbs["enum_stripped"]), meta=meta)  # type: ignore[arg-type]
        except ValueError:
            return None

    def _views(self, chain: Chain) -> list[StepView]:
        tools = self.library.mount(chain.server).tools
        seed_values = self.index.values(chain.server)
        out = []
        for step in chain.steps:
            tool = tools[step.tool]
            mentioned: dict[str, Any] = {}
            referenced: dict[str, str] = {}
            labels: dict[str, str] = {}
            for p, v in step.arguments.items():
                etype = tool.params.get(p)
                if p in step.derived:
                    src = chain.steps[step.derived[p]]
                    ambiguous = etype is not None and len(src.harvest.ids.get(etype, [])) > 1
                    if ambiguous and _all_in(v, seed_values):
                        mentioned[p] = v
                    else:
                        referenced[p] = _reference(src, etype or p, v, seed_values)
                        continue
                else:
                    mentioned[p] = v
                rec = chain.records.get((etype, v)) if etype and not isinstance(v, list) else None
                if rec is not None and rec.label and not ID_TOKEN.search(rec.label):
                    labels[p] = rec.label
            out.append(StepView(step.tool, tool.description, mentioned, referenced, labels))
        return out

    def _mentioned_ids(self, chain: Chain, views: list[StepView]) -> list[Any]:
        tools = self.library.mount(chain.server).tools
        out: list[Any] = []
        for step, view in zip(chain.steps, views):
            for p, v in view.mentioned.items():
                if tools[step.tool].params.get(p):
                    out.extend(v if isinstance(v, list) else [v])
        return out

    def _turns(self, kind: str, chain: Chain, groups: list[list[int]], texts: list[str]) -> list[Turn]:
        ids = {s.index: f"g{s.index + 1}" for s in chain.steps}
        calls = [[GTStep(server=chain.server, tool=chain.steps[i].tool, arguments=chain.steps[i].arguments,
                         id=ids[i], after=[ids[a] for a in chain.steps[i].after]) for i in g] for g in groups]
        if kind == "abstain":
            return [Turn(user=t) for t in texts]
        if kind == "clarify":
            return [Turn(user=texts[0], ask=True), *(Turn(user=t, calls=c) for t, c in zip(texts[1:], calls))]
        return [Turn(user=t, calls=c) for t, c in zip(texts, calls)]

    def _offer(self, kind: str, variant: str | None, server: str, chain: Chain,
               rng: random.Random) -> tuple[list[str], list[str], dict[str, Any]]:
        if variant == "irrelevance":
            tools = perturb.unrelated_tools(self.library, server, rng)
            extra: list[str] = []
        else:
            tools = (perturb.read_tools(self.library, server) if variant == "missing_function"
                     else [tool_name(server, t) for t in self.library.mount(server).tools])
            extra = []
            if rng.random() < self.config.distractor_rate:
                extra = (perturb.unrelated_tools(self.library, server, rng, 3, 8) if kind == "abstain"
                         else perturb.distractors(self.library, server, rng))
            tools = tools + extra
        rng.shuffle(tools)
        strip = rng.random() < self.config.enum_strip_rate
        servers = sorted({n.split("__", 1)[0] for n in tools} | ({server} if variant != "irrelevance" else set()))
        return tools, servers, {"distractors": extra, "enum_stripped": strip}

    # Validation --------------------------------------------------------------------------------

    def _validate(self, task: Task) -> Task | None:
        synth = task.meta["synth"]
        omitted = synth.get("omitted")
        if omitted is not None and omitted in task.turns[0].user:
            self.stats.dropped["clarify_leak"] += 1
            return None
        if not checks.keep(task, self.library, self.stats.dropped):
            return None
        if ungrounded(task, self.index):
            self.stats.dropped["ungrounded"] += 1
            return None
        tokens = call_tokens(task)
        if self.dedup.duplicate_of(tokens) is not None:
            self.stats.dropped["near_duplicate"] += 1
            return None
        self.stats.replayed += 1
        report = validate_replay(task, self.library)
        synth["replay"] = {"calls": report.calls, "errors": report.errors}
        if report.error_rate > self.config.max_error_rate:
            self.stats.dropped["error_rate"] += 1
            return None
        task.expected_state_hash, task.expected_server_hashes = report.state_hash, report.server_hashes
        self.stats.replay_verified += 1
        self.dedup.add(tokens)
        return task

    # Coverage ----------------------------------------------------------------------------------

    def _cover(self, tasks: list[Task], counters: Counter[str]) -> list[Task]:
        """Target every uncovered tool; swap a new task in for an mcp task whose tools stay covered."""
        counts: Counter[str] = Counter(s.name for t in tasks for s in t.gt_steps())
        for name in [n for n in self.all_tools if counts[n] == 0]:
            server, tool = name.split("__", 1)
            for _ in range(self.config.coverage_tries):
                j = counters["cover"]
                counters["cover"] += 1
                task = self.attempt("mcp", 100_000 + j, [], anchor=(server, tool), tries=8)
                if task is None or name not in {s.name for s in task.gt_steps()}:
                    continue
                victim = _victim(tasks, counts, task)
                if victim is None:
                    break
                for s in tasks[victim].gt_steps():
                    counts[s.name] -= 1
                tasks[victim] = task
                counts.update(s.name for s in task.gt_steps())
                self.stats.coverage_swaps += 1
                break
        return tasks


def _victim(tasks: list[Task], counts: Counter[str], new: Task) -> int | None:
    """The last mcp task whose every tool is covered at least twice (so removing it uncovers nothing)."""
    gained = Counter(s.name for s in new.gt_steps())
    for i in range(len(tasks) - 1, -1, -1):
        t = tasks[i]
        if t.kind != "mcp":
            continue
        if all(counts[s.name] + gained[s.name] >= 2 for s in t.gt_steps()):
            return i
    return None


def _groups(n: int, cuts: list[int]) -> list[list[int]]:
    bounds = [0, *cuts, n]
    return [list(range(a, b)) for a, b in zip(bounds, bounds[1:]) if b > a]


def _omission(turns: list[list[StepView]]) -> tuple[int, int, str] | None:
    """Clarify: a value the first call needs and only the user can give (an id or a number)."""
    first = turns[0][0]
    for p, v in first.mentioned.items():
        if isinstance(v, (str, int, float)) and not isinstance(v, bool) and len(str(v)) >= 2:
            if not any((i, p2) != (0, p) and v2 == v for i, s in enumerate(turns[0]) for p2, v2 in s.mentioned.items()):
                return (0, 0, p)
    return None


def _omitted_value(req: RenderRequest, turns: list[list[StepView]]) -> str | None:
    if req.omit is None:
        return None
    turn, step, param = req.omit
    return fmt(turns[turn][step].mentioned[param]).strip("'")


def _deferral(turns: list[list[StepView]], rng: random.Random) -> tuple[int, int, str] | None:
    options = [(t, 0, p) for t in range(1, len(turns)) for p, v in turns[t][0].mentioned.items()
               if not isinstance(v, bool)]
    return rng.choice(options) if options else None


def _all_in(value: Any, values: set[Any]) -> bool:
    items = value if isinstance(value, list) else [value]
    return all(v in values for v in items)


def _reference(src: StepRun, etype: str, value: Any, seed_values: set[Any]) -> str:
    created = src.kind == "write" and not _all_in(value, seed_values)
    if created:
        return f"the new {etype.replace('_', ' ')}"
    verb, obj = humanize(src.tool)
    return f"the {etype.replace('_', ' ')} from the {verb} {obj.removeprefix('the ')} result"


def synthesize(library: Library, config: SynthConfig, renderer: Renderer | None = None,
               on_task: Callable[[Task], None] | None = None) -> SynthResult:
    result = Synthesizer(library, config, renderer).run()
    if on_task is not None:
        for t in result.tasks:
            on_task(t)
    return result
