"""The synthesis driver: balanced slots, intents (or the chain machine), perturbations, checks.

Slots: the paper's share of abstain tasks (5% of all tasks irrelevance, the rest missing
function); every other slot draws an information level (complete 60%, missing 20%, minimal 20%),
and a missing level makes it a clarify task. Slot i goes to server i of a seeded rotation over
all servers (a server that cannot fill a slot passes it on), so servers get equal shares. Each
attempt draws one of the run's world seeds. A server with intents synthesizes from them
(``hub.synth.goals``); one without falls back to the chain machine (``hub.synth.chain.machine``) and is
flagged in the result. Intent choice is steered toward tools used least so far.

Every choice comes from a ``random.Random`` seeded by a string of (seed, kind, attempt, server),
and slots are filled in one fixed order: the same seed gives the same dataset.
"""

from __future__ import annotations

import random
import sqlite3
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from hub.config import REFERENCE_NOW
from hub.engine.world import World
from hub.kit import Server
from hub.kit.intent import MAX_TURNS, Intent, IntentError, Level, Scene
from hub.state.library import Library, SqliteMount
from hub.synth import checks, perturb
from hub.synth.chain.graph import ToolGraph, load_graph
from hub.synth.chain.machine import Chain, Machine, MachineConfig, StepRun
from hub.synth.chain.render import (
    ID_TOKEN,
    LLMRenderer,
    Renderer,
    RenderRequest,
    StepView,
    TemplateRenderer,
    fmt,
    humanize,
)
from hub.synth.chain.sampler import Harvester, Sampler
from hub.synth.chain.validate import SeedIndex, ungrounded
from hub.synth.chain.values import ValueMaker
from hub.synth.goals import (
    Dialogue,
    DraftFailed,
    check,
    clarify_turns,
    gt_turns,
    linked,
    run_dialogue,
    unsolvable_offer,
    wanted_tools,
)
from hub.synth.goals import render as render_turns
from hub.synth.output import assign_splits, stratum
from hub.synth.validate import Deduper, call_tokens, validate_replay
from hub.synth.writer import IntentWriter
from hub.tasks import GTStep, InitialState, Task, Turn, tool_name

LEVELS: tuple[Level, ...] = ("complete", "missing", "minimal")
KINDS = ("mcp", "clarify", "abstain")
ALPHA = 0.15  # how fast an intent's (or a continuation's) recent yield forgets older attempts
FLOOR = 0.03  # the least a used-up intent is still drawn, relative to a fresh one
RATE_ALPHA = 0.01  # a server-kind's recent yield averages about its last 100 slot attempts
RARE_BOOST = 6.0  # the extra draw weight of an intent that may call a tool still under the floor of uses
ANCHOR_BOOST = 25.0  # how much more a follow-up that may call the tool a top-up wants is drawn


class SynthConfig(BaseModel):
    """Everything a run depends on (the CLI's boundary)."""

    model_config = ConfigDict(extra="forbid")

    n: int = Field(13_517, ge=1)
    seed: int = 0
    world_seed: int = 0
    worlds: int = Field(8, ge=1, le=256)
    test_fraction: float = Field(0.1, ge=0, lt=1)
    sampler_k: int = Field(100, ge=1)
    min_support: int = Field(3, ge=0)
    level_weights: tuple[float, float, float] = (0.6, 0.2, 0.2)
    distractor_rate: float = Field(0.4, ge=0, le=1)
    enum_strip_rate: float = Field(0.3, ge=0, le=1)
    irrelevance_rate: float = Field(0.05, ge=0, le=1)
    max_error_rate: float = Field(0.30, ge=0, le=1)
    dedup_threshold: float = Field(0.70, gt=0, le=1)
    dedup_scope: Literal["all", "world"] = "all"  # "world": a call structure may repeat once per world seed
    repeats: int = Field(8, ge=1)  # tasks per call structure, each on another world seed (1: no repeats)
    # no mcp task that repeats a kept tool-name sequence is kept while it would take distinct sequences / mcp
    # tasks below this (0.60 with a margin for the coverage swaps)
    min_distinct: float = Field(0.61, ge=0, le=1)
    max_attempts_factor: float = Field(6.0, ge=1)  # attempts in all, per planned task (the time target)
    server_budget: float = Field(8.0, gt=0)  # attempts per planned task of a server's share of a kind
    dry_attempts: int = Field(400, ge=1)  # attempts in a row without a kept task: the server-kind is used up
    min_yield: float = Field(0.02, ge=0, lt=1)  # a server-kind whose recent yield falls below this is used up
    slot_tries: int = Field(12, ge=1)
    coverage_tries: int = Field(24, ge=0)  # attempts per missing use of a tool in the top-up
    min_tool_uses: int = Field(10, ge=1)  # the top-up raises every tool to this many ground-truth uses
    cover: bool | None = None  # target uncovered tools at the end; default: when n ≥ 2 × the tool count
    llm_endpoint: str | None = None
    model: str | None = None
    cache_dir: Path | None = None
    progress: bool = False

    @property
    def world_seeds(self) -> list[int]:
        return [self.world_seed + k for k in range(self.worlds)]


@dataclass
class Stats:
    attempts: Counter[str] = field(default_factory=Counter)
    dropped: Counter[str] = field(default_factory=Counter)
    recoveries: Counter[str] = field(default_factory=Counter)
    sources: Counter[str] = field(default_factory=Counter)
    intent_errors: list[str] = field(default_factory=list)
    exhausted: list[str] = field(default_factory=list)
    spent: dict[str, dict[str, int]] = field(default_factory=dict)  # attempts per server and kind
    unfilled: int = 0
    replayed: int = 0
    replay_verified: int = 0
    coverage_swaps: int = 0
    repeats: Counter[str] = field(default_factory=Counter)  # kept near duplicates, by kind
    seconds: float = 0.0


@dataclass
class SynthResult:
    tasks: list[Task]
    stats: Stats
    config: SynthConfig
    uncovered: list[str]
    all_tools: list[str]
    graphs: dict[str, ToolGraph]
    fallback_servers: list[str] = field(default_factory=list)
    worlds: list[int] = field(default_factory=list)
    skipped_worlds: dict[int, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Slot:
    kind: str
    level: Level
    variant: str | None


def plan(config: SynthConfig) -> list[Slot]:
    """The run's slots in a seeded order: abstain by the paper's share, the rest by information level."""
    quotas = perturb.kind_quotas(config.n)
    abstain = quotas["abstain"]
    irrelevance = perturb.irrelevance_count(config.n, config.irrelevance_rate, abstain)
    rest = config.n - abstain
    weights = config.level_weights
    counts = [int(rest * w / sum(weights)) for w in weights]
    for i in sorted(range(3), key=lambda i: -(rest * weights[i] / sum(weights) - counts[i]))[: rest - sum(counts)]:
        counts[i] += 1
    slots = [
        Slot("abstain", "complete", "irrelevance" if i < irrelevance else "missing_function") for i in range(abstain)
    ]
    for level, count in zip(LEVELS, counts):
        slots += [Slot("clarify" if level == "missing" else "mcp", level, None)] * count
    random.Random(f"slots:{config.seed}").shuffle(slots)
    return slots


def kind_counts(config: SynthConfig) -> dict[str, int]:
    """How many tasks of each kind a run of ``config`` plans."""
    found = Counter(s.kind for s in plan(config))
    return {k: found[k] for k in KINDS}


class Synthesizer:
    def __init__(self, library: Library, config: SynthConfig, renderer: Renderer | None = None) -> None:
        self.library = library
        self.config = config
        self.graphs = {s: load_graph(s, m.tools, config.cache_dir) for s, m in library.mounts.items()}
        self.harvesters = {s: Harvester(m.tools) for s, m in library.mounts.items()}
        self.skipped_worlds: dict[int, str] = {}
        self.worlds = self._usable_worlds()
        self._samplers: dict[int, Sampler] = {}
        self._indexes: dict[int, SeedIndex] = {}
        world = World(library, seed=config.world_seed, max_sessions=1_000_000)
        self.sessions, self.dispatcher = world.sessions, world.dispatcher
        self.per_server: Counter[str] = Counter()
        self.stats = Stats()
        self.dedup: dict[tuple[str, int], Deduper] = {}
        self.all_tools = [tool_name(s, t) for s in library.mounts for t in library.mount(s).tools]
        self.intent_servers: dict[str, Server] = {
            name: srv
            for name, m in library.mounts.items()
            if isinstance(srv := getattr(m, "server", None), Server) and srv.intents
        }
        self.tool_counts: Counter[str] = Counter()
        self.schedules: dict[str, list[str]] = {}
        self.intent_yield: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0])
        self.recent: dict[tuple[str, ...], float] = {}  # recent yield of an opening intent or a continuation
        self.spent: Counter[tuple[str, str]] = Counter()
        self.dry: Counter[tuple[str, str]] = Counter()
        self.rate: dict[tuple[str, str], float] = {}  # recent kept / tried of a server-kind's slot attempts
        self.filled: Counter[str] = Counter()
        self.sequences: set[tuple[str, ...]] = set()  # tool-name sequences of the kept mcp tasks
        self.swapping = False  # the top-up replaces tasks (the run is full)
        self.mcp_kept = 0
        quota = kind_counts(config)
        self.budget = {k: int(config.server_budget * quota[k] / len(library.mounts)) + config.slot_tries for k in KINDS}
        # Made last: the LLM clients hold connections, and nothing after them can raise and leave those open.
        self.owns_renderer = renderer is None
        self.renderer = renderer or self._renderer()
        self.writer = IntentWriter(config.llm_endpoint, config.model or "default") if config.llm_endpoint else None

    def close(self) -> None:
        """Close the LLM endpoint's connections; a renderer passed in stays open (it is the caller's)."""
        if self.writer is not None:
            self.writer.close()
        if self.owns_renderer and isinstance(self.renderer, LLMRenderer):
            self.renderer.close()

    def __enter__(self) -> Synthesizer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _usable_worlds(self) -> list[int]:
        """``config.worlds`` seeds from ``world_seed`` on whose seed databases every server can build; a
        seed that breaks a server's ``seed()`` is skipped (and reported), the next one taken instead."""
        worlds: list[int] = []
        seed = self.config.world_seed
        while len(worlds) < self.config.worlds and seed < self.config.world_seed + 4 * self.config.worlds + 16:
            try:
                for name, mount in self.library.mounts.items():  # noqa: B007 (named in the error below)
                    if isinstance(mount, SqliteMount):
                        mount.seed_db(seed)
                worlds.append(seed)
            except sqlite3.Error as exc:
                self.skipped_worlds[seed] = f"{name}: {exc}"
            seed += 1
        if not worlds:
            raise ValueError(f"no usable world seed from {self.config.world_seed}: {self.skipped_worlds}")
        return worlds

    def _renderer(self) -> Renderer:
        if self.config.llm_endpoint:
            return LLMRenderer(self.config.llm_endpoint, self.config.model or "default")
        return TemplateRenderer()

    def sampler(self, world: int) -> Sampler:
        found = self._samplers.get(world)
        if found is None:
            found = self._samplers[world] = Sampler(
                self.library,
                self.config.seed,
                world_seed=world,
                k=self.config.sampler_k,
                min_support=self.config.min_support,
            )
        return found

    def index(self, world: int) -> SeedIndex:
        found = self._indexes.get(world)
        if found is None:
            found = self._indexes[world] = SeedIndex(self.library, world)
        return found

    # The run -----------------------------------------------------------------------------------

    def run(self) -> SynthResult:
        start = time.perf_counter()
        servers = list(self.library.mounts)
        random.Random(f"servers:{self.config.seed}").shuffle(servers)
        counters: Counter[str] = Counter()
        tasks: list[Task] = []
        # Each kind gets its share of the attempts: a kind whose attempts are mostly dropped as near
        # duplicates must not use up those of the kinds planned after it.
        limits = {k: int(c * self.config.max_attempts_factor) + 100 for k, c in kind_counts(self.config).items()}
        for i, slot in enumerate(plan(self.config)):
            limit = limits[slot.kind]
            if self.stats.attempts[slot.kind] >= limit:
                self.stats.unfilled += 1
                continue
            task = self._fill(slot, servers, i, counters, limit)
            if task is None:
                self.stats.unfilled += 1
                continue
            tasks.append(task)
            self.filled[stratum(task)[0]] += 1
            self.tool_counts.update(s.name for s in task.gt_steps())
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
        fallback = [s for s in self.library.mounts if s not in self.intent_servers]
        self.stats.exhausted = sorted(f"{s}:{k}" for s, k in self.spent if self._used_up((s, k)))
        for (s, k), n in sorted(self.spent.items()):
            self.stats.spent.setdefault(s, {})[k] = n
        return SynthResult(
            tasks,
            self.stats,
            self.config,
            uncovered,
            self.all_tools,
            self.graphs,
            fallback,
            self.worlds,
            self.skipped_worlds,
        )

    def _fill(self, slot: Slot, servers: list[str], i: int, counters: Counter[str], limit: int) -> Task | None:
        """The slot's task from server ``i`` of the rotation or, when it cannot, from the servers with the
        fewest tasks so far, within ``limit`` attempts for the slot's kind. A server is used up for a kind
        when it has spent its attempt budget for the kind (``server_budget`` per task of its share: the time
        target) or when ``dry_attempts`` in a row kept nothing (the near-duplicate filter rejects what it makes)."""
        first = servers[i % len(servers)]
        rest = sorted((s for s in servers if s != first), key=lambda s: (self.filled[s], servers.index(s)))
        for server in [first, *rest]:
            key = (server, slot.kind)
            for _ in range(self.config.slot_tries):
                if self._used_up(key):
                    break
                if self.stats.attempts[slot.kind] >= limit:
                    return None
                j = counters[slot.kind]
                counters[slot.kind] += 1
                self.spent[key] += 1
                task = self.attempt(slot, server, j)
                self.rate[key] = (1 - RATE_ALPHA) * self.rate.get(key, 1.0) + RATE_ALPHA * (task is not None)
                if task is not None:
                    self.dry[key] = 0
                    return task
                self.dry[key] += 1
            else:
                self.stats.dropped[f"slot_passed_on:{server}"] += 1
        return None

    def _used_up(self, key: tuple[str, str]) -> bool:
        return (
            self.spent[key] >= self.budget[key[1]]
            or self.dry[key] >= self.config.dry_attempts
            or self.rate.get(key, 1.0) < self.config.min_yield
        )

    def _progress(self, done: int, start: float) -> None:
        if not self.config.progress or (done % 100 and done != self.config.n):
            return
        rate = done / max(1e-9, time.perf_counter() - start)
        eta = (self.config.n - done) / rate if rate else 0
        pct = 100 * done / self.config.n
        bar = "#" * int(pct / 4)
        print(
            f"\rsynth [{bar:<25}] {done}/{self.config.n} {pct:5.1f}% {rate:6.1f} tasks/s eta {eta:5.0f}s "
            f"attempts {sum(self.stats.attempts.values())}",
            end="",
            file=sys.stderr,
            flush=True,
        )

    # One attempt -------------------------------------------------------------------------------

    def attempt(
        self, slot: Slot, server: str, j: int, anchor: str | None = None, tries: int = 4, machine: bool = False
    ) -> Task | None:
        """One synthesis attempt for ``server``: a validated, deduplicated task, or None (the reason counted).
        From the server's intents when it has some (``anchor``: one that may call that tool), else (or with
        ``machine``) from the chain machine anchored on ``anchor``."""
        self.stats.attempts[slot.kind] += 1
        rng = random.Random(f"task:{self.config.seed}:{slot.kind}:{slot.level}:{slot.variant}:{j}:{server}:{anchor}")
        if server in self.intent_servers and not machine:
            task = self._from_intents(slot, server, self.worlds[rng.randrange(len(self.worlds))], rng, j, anchor)
        else:  # the machine's sampling context is built per block of k tasks, so a block keeps its world
            world = self.worlds[(self.per_server[server] // self.config.sampler_k) % len(self.worlds)]
            task = self._from_machine(slot, server, world, rng, j, anchor, tries)
        if task is None:
            return None
        kept = self._validate(task)
        synth = task.meta["synth"]
        if synth["source"] == "intent":
            self._learn(server, slot.kind, synth["intents"], kept is not None)
            self.intent_yield[(server, synth["intents"][0], slot.kind)][0] += kept is not None
        return kept

    # Intents -----------------------------------------------------------------------------------

    def _pick_intent(self, srv: Server, rng: random.Random, kind: str, anchor: str | None = None) -> Intent:
        """An intent drawn by weight, favouring those whose tools are used least so far and those whose
        recent attempts of this kind were kept (a clarify task needs an intent with a withholdable value;
        an intent whose call structures are all taken stops making tasks the near-duplicate filter keeps).
        With an ``anchor`` tool, only the openers that may call it (when some do)."""

        def lift(i: Intent) -> float:
            return i.weight * self._rarity(srv.name, i) * self._recent((srv.name, kind, i.name))

        intents: list[Intent] = [i for i in srv.intents if i.opens]
        intents = [i for i in intents if anchor in i.covers] or intents
        return rng.choices(intents, [lift(i) for i in intents])[0]

    def _rarity(self, server: str, intent: Intent) -> float:
        """How much more an intent is drawn for the least-used tool it may call: more the rarer it is, and far
        more while that tool is under ``min_tool_uses`` (so rare tools reach the floor while the
        near-duplicate filter still has room, not only in the top-up)."""
        least = min(self.tool_counts[tool_name(server, t)] for t in intent.covers)
        return 1.0 + 4.0 / (1.0 + least) + (RARE_BOOST if least < self.config.min_tool_uses else 0.0)

    def _recent(self, key: tuple[str, ...]) -> float:
        return max(FLOOR, self.recent.get(key, 1.0))

    def _follow_weight(self, server: str, kind: str, anchor: str | None = None) -> Callable[[list[str], Intent], float]:
        """A continuation's weight: its static weight times how often it was kept after this prefix lately
        (far more for one that may call the ``anchor`` tool)."""

        def weight(prefix: list[str], follower: Intent) -> float:
            boost = ANCHOR_BOOST if anchor in follower.covers else self._rarity(server, follower)
            return boost * follower.weight * self._recent((server, kind, *prefix, follower.name))

        return weight

    def _fresh(self, server: str, kind: str) -> Callable[[Scene], bool] | None:
        """For mcp dialogues: whether the calls so far make a tool-name sequence the run does not hold yet."""
        if kind != "mcp":
            return None

        def fresh(scene: Scene) -> bool:
            return tuple(tool_name(server, c.tool) for c in scene.calls) not in self.sequences

        return fresh

    def _learn(self, server: str, kind: str, intents: list[str], kept: bool) -> None:
        """Move the recent yield of the opening intent and of each continuation toward this outcome."""
        for k in range(1, len(intents) + 1):
            key = (server, kind, *intents[:k])
            self.recent[key] = (1 - ALPHA) * self.recent.get(key, 1.0) + ALPHA * kept

    def _from_intents(
        self, slot: Slot, server: str, world: int, rng: random.Random, j: int, anchor: str | None = None
    ) -> Task | None:
        srv = self.intent_servers[server]
        sid = f"synth-{slot.kind}-{j}-{rng.getrandbits(40):x}"
        level: Level = slot.level if slot.kind != "abstain" else "complete"
        first = self._pick_intent(srv, rng, slot.kind, anchor)
        outcome = self.intent_yield[(server, first.name, slot.kind)]
        outcome[1] += 1
        max_turns = MAX_TURNS - 1 if slot.kind == "clarify" else MAX_TURNS  # the ask turn comes on top
        try:
            dialogue = run_dialogue(
                srv,
                self.sessions,
                self.dispatcher,
                sid,
                world,
                level,
                rng,
                REFERENCE_NOW,
                first,
                max_turns,
                self._follow_weight(server, slot.kind, anchor),
                self._fresh(server, slot.kind),
            )
            check(dialogue)
        except DraftFailed as exc:
            self.stats.dropped[exc.reason] += 1
            self._learn(server, slot.kind, [first.name], False)
            return None
        except IntentError as exc:
            self.stats.dropped["intent_error"] += 1
            if len(self.stats.intent_errors) < 20:
                self.stats.intent_errors.append(str(exc))
            return None
        finally:
            if sid in self.sessions.sessions:
                self.sessions.close(sid)
        if not linked(dialogue.links):
            self.stats.dropped["unlinked"] += 1
            self._learn(server, slot.kind, dialogue.scene.intents, False)
            return None
        try:
            task = self._intent_task(slot, dialogue, rng, j)
        except DraftFailed as exc:
            self.stats.dropped[exc.reason] += 1
            task = None
        if task is None:
            self._learn(server, slot.kind, dialogue.scene.intents, False)
        return task

    def _intent_task(self, slot: Slot, d: Dialogue, rng: random.Random, j: int) -> Task | None:
        omitted = None
        if slot.kind == "clarify":
            if len(d.turns) > 2:  # the ask turn comes on top: at most 3 turns in all
                raise DraftFailed("clarify_too_long")
            turns, given = clarify_turns(d, rng)
            turns[0].missing = [given.param]
            omitted = given.text
        elif slot.kind == "abstain":
            turns = [Turn(user=render_turns(d, rng)[0])]
        else:
            turns = [Turn(user=t, calls=c) for t, c in zip(render_turns(d, rng), gt_turns(d))]
        if self.writer is not None:
            turns = self.writer.rewrite(d, turns, self.sampler(d.world).for_task(d.server, j).summary(), omitted)
        tools, servers, perturbs = self._offer_for(slot, d, rng)
        synth = {
            "seed": self.config.seed,
            "attempt": j,
            "world": d.world,
            "source": "intent",
            "variant": slot.variant or ("missing_value" if slot.kind == "clarify" else "goal"),
            "level": slot.level if slot.kind != "abstain" else None,
            "intents": list(d.scene.intents),
            "persona": {"name": d.persona.name, "tone": d.persona.tone},
            "proofs": [
                {"text": p.text, "sql": p.sql, "params": p.params, "target": p.target, "turn": p.turn}
                for p in d.scene.proofs
            ],
            "links": [[[a, kind] for a, kind in e] for e in d.links] if slot.kind != "abstain" else [],
            "recoveries": [],
            "request_servers": [d.server],
            "mentioned_ids": [],
            "omitted": omitted,
            **perturbs,
        }
        task_id = f"synth-{self.config.seed}-{slot.kind}-{j:05d}-{d.server}"
        try:
            return Task(
                id=task_id,
                kind=slot.kind,
                servers=servers,  # type: ignore[arg-type]
                initial=InitialState(seed=d.world),
                turns=turns,
                tools=tools,
                strip_enums=bool(perturbs["enum_stripped"]),
                meta={"synth": synth},
            )
        except ValueError:
            self.stats.dropped["malformed"] += 1
            return None

    def _offer_for(self, slot: Slot, d: Dialogue, rng: random.Random) -> tuple[list[str], list[str], dict[str, Any]]:
        """The offered tools: the server's, or (abstain) none that could do what the user asks."""
        server = d.server
        own = [tool_name(server, t) for t in self.library.mount(server).tools]
        extra: list[str] = []
        wanted: list[str] = []
        if slot.variant == "irrelevance":
            wanted = wanted_tools(d, opening_only=False)
            tools = unsolvable_offer(perturb.unrelated_tools(self.library, server, rng), wanted)
        elif slot.variant == "missing_function":
            wanted = [n for n in wanted_tools(d) if self.library.tool(*n.split("__", 1)).kind == "write"]
            if not wanted:
                raise DraftFailed("no_write_to_withhold")
            tools = unsolvable_offer(perturb.read_tools(self.library, server), wanted)
            if rng.random() < self.config.distractor_rate:
                extra = unsolvable_offer(perturb.unrelated_tools(self.library, server, rng, 3, 8), wanted)
        else:
            tools = own
            if rng.random() < self.config.distractor_rate:
                extra = perturb.distractors(self.library, server, rng)
        tools = tools + extra
        if not tools:
            raise DraftFailed("nothing_to_offer")
        rng.shuffle(tools)
        strip = rng.random() < self.config.enum_strip_rate
        servers = sorted({n.split("__", 1)[0] for n in tools} | ({server} if slot.variant != "irrelevance" else set()))
        return tools, servers, {"distractors": extra, "enum_stripped": strip, "wanted": wanted}

    # The chain machine (servers without intents) -----------------------------------------------

    def _from_machine(
        self, slot: Slot, server: str, world: int, rng: random.Random, j: int, anchor: str | None, tries: int
    ) -> Task | None:
        self.stats.sources["machine"] += 1
        tool = anchor or self._anchor(server, slot, j)
        draft = self._draft(slot.kind, slot.variant, server, tool, rng, tries, world)
        if draft is None:
            return None
        task = self._assemble(slot, draft, rng, j, world)
        if task is None:
            self.stats.dropped["render"] += 1
        return task

    def _anchor(self, server: str, slot: Slot, j: int) -> str:
        schedule = self.schedules.get(server)
        if schedule is None:
            schedule = self.schedules[server] = sorted(self.library.mount(server).tools)
            random.Random(f"anchors:{self.config.seed}:{server}").shuffle(schedule)
        if slot.variant == "missing_function":
            writes = [t for t in schedule if self.library.tool(server, t).kind == "write"] or schedule
            return writes[j % len(writes)]
        if slot.kind == "clarify":
            askable = [t for t in schedule if _askable(self.library.tool(server, t))] or schedule
            return askable[j % len(askable)]
        return schedule[j % len(schedule)]

    def _draft(
        self, kind: str, variant: str | None, server: str, tool: str, rng: random.Random, tries: int, world: int
    ) -> Chain | None:
        ctx = self.sampler(world).for_task(server, self.per_server[server])
        self.per_server[server] += 1
        if variant == "missing_function":
            length = 1
        elif kind == "abstain":
            length = rng.randint(1, 2)
        else:
            length = rng.randint(2, 5)
        machine = Machine(
            self.dispatcher,
            self.library.mount(server).tools,
            self.graphs[server],
            self.harvesters[server],
            ctx,
            ValueMaker(rng, REFERENCE_NOW),
            rng,
            self.index(world).values(server),
            MachineConfig(tries=tries),
        )
        sid = f"synth-{kind}-{rng.getrandbits(48):x}"
        self.sessions.open(sid, seed=world)
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

    def _assemble(self, slot: Slot, chain: Chain, rng: random.Random, j: int, world: int) -> Task | None:
        kind, variant = slot.kind, slot.variant
        server = chain.server
        views = self._views(chain, world)
        groups = _groups(len(chain.steps), chain.cuts)
        if kind == "abstain":
            groups = [[i] for i in range(len(chain.steps))]
        if kind == "clarify":  # the opening turn runs up to the first call that needs a value only the user has
            specs = self.library.mount(server).tools
            first = next((i for i, v in enumerate(views) if set(_askable(specs[v.tool])) & set(v.mentioned)), None)
            if first is None:
                return None
            groups = _groups(len(chain.steps), [first + 1] if first + 1 < len(chain.steps) else [])
        level = slot.level if kind != "abstain" else "complete"
        turns_views = [[views[i] for i in g] for g in groups]
        block = self.sampler(world).for_task(server, self.per_server[server] - 1)
        context = block.summary() if isinstance(self.renderer, LLMRenderer) else {}
        req = RenderRequest(server, level, turns_views, context=context, date=REFERENCE_NOW.date().isoformat())
        if kind == "clarify":
            req.omit = _omission(turns_views, self.library.mount(server).tools)
            if req.omit is None:
                return None
        texts = self.renderer.render(req, rng)
        turns = self._turns(kind, chain, groups, texts)
        turns[0].missing = [req.omit[2]] if kind == "clarify" and req.omit else []
        tools, servers, perturbs = self._offer(kind, variant, server, chain, rng)
        meta = {
            "synth": {
                "seed": self.config.seed,
                "attempt": j,
                "world": world,
                "source": "machine",
                "variant": variant or ("missing_value" if kind == "clarify" else "chain"),
                "level": level if kind != "abstain" else None,
                "anchor": tool_name(server, chain.anchor),
                "planned": chain.planned,
                "chain_length": len(chain.steps),
                "recoveries": chain.recoveries,
                "gave_up": chain.gave_up,
                "trajectory": [
                    {
                        "server": server,
                        "tool": a.tool,
                        "arguments": a.arguments,
                        "ok": a.ok,
                        "error": a.error,
                        "recovery": a.recovery,
                    }
                    for a in chain.attempts
                ]
                if kind != "abstain"
                else [],
                "states": dict(Counter(chain.trace)),
                "outcomes": [s.outcome for s in chain.steps],
                "sampler_block": block.block,
                "links": [[[a, "data"] for a in s.after] for s in chain.steps],
                "request_servers": [server],
                "mentioned_ids": [v for v in self._mentioned_ids(chain, views)],
                "omitted": _omitted_value(req, turns_views),
                **perturbs,
                "requested": [tool_name(server, s.tool) for s in chain.steps],
            }
        }
        task_id = f"synth-{self.config.seed}-{kind}-{j:05d}-{server}"
        try:
            return Task(
                id=task_id,
                kind=kind,
                servers=servers,  # type: ignore[arg-type]
                initial=InitialState(seed=world),
                turns=turns,
                tools=tools,
                strip_enums=bool(perturbs["enum_stripped"]),
                meta=meta,
            )
        except ValueError:
            return None

    def _views(self, chain: Chain, world: int) -> list[StepView]:
        tools = self.library.mount(chain.server).tools
        seed_values = self.index(world).values(chain.server)
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
        calls = [
            [
                GTStep(
                    server=chain.server,
                    tool=chain.steps[i].tool,
                    arguments=chain.steps[i].arguments,
                    id=ids[i],
                    after=[ids[a] for a in chain.steps[i].after],
                )
                for i in g
            ]
            for g in groups
        ]
        if kind == "abstain":
            return [Turn(user=t) for t in texts]
        if kind == "clarify":
            return [Turn(user=texts[0], ask=True), *(Turn(user=t, calls=c) for t, c in zip(texts[1:], calls))]
        return [Turn(user=t, calls=c) for t, c in zip(texts, calls)]

    def _offer(
        self, kind: str, variant: str | None, server: str, chain: Chain, rng: random.Random
    ) -> tuple[list[str], list[str], dict[str, Any]]:
        wanted = [tool_name(server, s.tool) for s in chain.steps if s.kind == "write"] or [
            tool_name(server, s.tool) for s in chain.steps
        ]
        if variant == "irrelevance":
            tools = unsolvable_offer(perturb.unrelated_tools(self.library, server, rng), wanted)
            extra: list[str] = []
        else:
            tools = (
                unsolvable_offer(perturb.read_tools(self.library, server), wanted)
                if variant == "missing_function"
                else [tool_name(server, t) for t in self.library.mount(server).tools]
            )
            extra = []
            if rng.random() < self.config.distractor_rate:
                extra = (
                    unsolvable_offer(perturb.unrelated_tools(self.library, server, rng, 3, 8), wanted)
                    if kind == "abstain"
                    else perturb.distractors(self.library, server, rng)
                )
            tools = tools + extra
        rng.shuffle(tools)
        strip = rng.random() < self.config.enum_strip_rate
        servers = sorted({n.split("__", 1)[0] for n in tools} | ({server} if variant != "irrelevance" else set()))
        return (
            tools,
            servers,
            {"distractors": extra, "enum_stripped": strip, "wanted": wanted if kind == "abstain" else []},
        )

    # Validation --------------------------------------------------------------------------------

    def _validate(self, task: Task) -> Task | None:
        synth = task.meta["synth"]
        omitted = synth.get("omitted")
        if omitted is not None and omitted in task.turns[0].user:
            self.stats.dropped["clarify_leak"] += 1
            return None
        if not checks.keep(task, self.library, self.stats.dropped):
            return None
        if synth["source"] == "machine" and ungrounded(task, self.index(task.initial.seed)):
            self.stats.dropped["ungrounded"] += 1
            return None
        if len(task.gt_steps()) > 1 and not _linked_steps(task):
            self.stats.dropped["unlinked"] += 1
            return None
        tokens = call_tokens(task)
        scope = (task.kind, task.initial.seed if self.config.dedup_scope == "world" else -1)
        dedup = self.dedup.setdefault(scope, Deduper(self.config.dedup_threshold, self.config.repeats))
        found = dedup.matches(tokens)
        if found and not dedup.may_repeat(found, task.initial.seed):
            self.stats.dropped["near_duplicate"] += 1
            return None
        if not self._distinct_after(task):
            self.stats.dropped["sequence_share"] += 1
            return None
        self.stats.replayed += 1
        report = validate_replay(task, self.library)
        synth["replay"] = {"calls": report.calls, "errors": report.errors}
        if report.error_rate > self.config.max_error_rate or not report.state_hash:
            self.stats.dropped["error_rate"] += 1
            return None
        task.expected_state_hash, task.expected_server_hashes = report.state_hash, report.server_hashes
        self.stats.replay_verified += 1
        self.stats.sources[synth["source"] + "_kept"] += 1
        if found:
            dedup.repeat(found, task.initial.seed)
            synth["repeat"] = True
            self.stats.repeats[task.kind] += 1
        else:
            dedup.add(tokens, task.initial.seed)
        if task.kind == "mcp":
            self.mcp_kept += 1
            self.sequences.add(_sequence(task))
        return task

    def _distinct_after(self, task: Task) -> bool:
        """Whether keeping an mcp task leaves distinct tool-name sequences / mcp tasks at least
        ``min_distinct``: a task with a new name sequence always does; one that repeats a kept name
        sequence (a repeat, or a new structure that differs only in argument keys) waits for room. A top-up
        swap always does: its victim's sequence is one another task holds, so the count cannot drop."""
        if task.kind != "mcp" or self.swapping or _sequence(task) not in self.sequences:
            return True
        return len(self.sequences) >= self.config.min_distinct * (self.mcp_kept + 1)

    # Coverage ----------------------------------------------------------------------------------

    def _cover(self, tasks: list[Task], counters: Counter[str]) -> list[Task]:
        """Top up every tool used fewer than ``min_tool_uses`` times, rarest first, with tasks anchored on it:
        appended while the run is short of ``n``, else swapped in for an mcp task whose tools all stay at or
        above the floor (one of the same server first, so the balance between servers holds)."""
        counts: Counter[str] = Counter(s.name for t in tasks for s in t.gt_steps())
        held = Counter(_sequence(t) for t in tasks if t.kind == "mcp")
        floor = self.config.min_tool_uses
        for name in sorted((n for n in self.all_tools if counts[n] < floor), key=lambda n: counts[n]):
            server, tool = name.split("__", 1)
            for _ in range(self.config.coverage_tries * (floor - counts[name])):
                if counts[name] >= floor:
                    break
                j = counters["cover"]
                counters["cover"] += 1
                self.swapping = len(tasks) >= self.config.n
                task = self.attempt(Slot("mcp", "complete", None), server, 100_000 + j, anchor=tool, tries=8)
                if task is None or name not in {s.name for s in task.gt_steps()}:
                    continue
                if not self._place(tasks, counts, held, task, floor):
                    break
        self.swapping = False
        return tasks

    def _place(
        self, tasks: list[Task], counts: Counter[str], held: Counter[tuple[str, ...]], task: Task, floor: int
    ) -> bool:
        """Add a top-up task (or swap it for a victim); False when no task can make room for it. ``counts``
        (uses per tool) and ``held`` (tasks per tool-name sequence) follow the change."""
        if len(tasks) < self.config.n:
            tasks.append(task)
        else:
            victim = _victim(tasks, counts, held, task, floor)
            if victim is None:
                return False
            for s in tasks[victim].gt_steps():
                counts[s.name] -= 1
            held[_sequence(tasks[victim])] -= 1
            tasks[victim] = task
            self.stats.coverage_swaps += 1
        counts.update(s.name for s in task.gt_steps())
        self.tool_counts.update(s.name for s in task.gt_steps())
        held[_sequence(task)] += 1
        return True


def _askable(tool: Any) -> list[str]:
    """Required parameters without a default that are not entity ids: values only the user can give."""
    props = tool.input_schema.get("properties", {})
    return [p for p in tool.required if "default" not in props.get(p, {}) and not tool.params.get(p)]


def _linked_steps(task: Task) -> bool:
    """The ground-truth steps form one connected dependency graph."""
    steps = task.gt_steps()
    edges: list[list[tuple[int, str]]] = []
    index = {s.id: i for i, s in enumerate(steps)}
    for s in steps:
        edges.append([(index[a], "after") for a in s.after])
    return linked(edges)


def _victim(
    tasks: list[Task], counts: Counter[str], held: Counter[tuple[str, ...]], new: Task, floor: int, look: int = 400
) -> int | None:
    """The last mcp task (among the last ``8 * look``), of ``new``'s server if one fits within ``look`` more
    tasks, whose removal leaves every tool it uses at ``floor`` uses or more (counting ``new``'s) and whose
    tool-name sequence another task also holds (``held``: tasks per sequence), so distinct sequences do not drop."""
    gained = Counter(s.name for s in new.gt_steps())
    fits: int | None = None
    for i in range(len(tasks) - 1, max(-1, len(tasks) - 1 - 8 * look), -1):
        t = tasks[i]
        if fits is not None and fits - i > look:
            break
        if t.kind != "mcp" or held[_sequence(t)] < 2:
            continue
        if not _removable(t, counts, gained, floor):
            continue
        if stratum(t)[0] == stratum(new)[0]:
            return i
        fits = i if fits is None else fits
    return fits


def _sequence(task: Task) -> tuple[str, ...]:
    return tuple(s.name for s in task.gt_steps())


def _removable(task: Task, counts: Counter[str], gained: Counter[str], floor: int) -> bool:
    used = Counter(s.name for s in task.gt_steps())
    return all(counts[n] + gained[n] - k >= floor for n, k in used.items())


def _groups(n: int, cuts: list[int]) -> list[list[int]]:
    bounds = [0, *cuts, n]
    return [list(range(a, b)) for a, b in zip(bounds, bounds[1:]) if b > a]


def _omission(turns: list[list[StepView]], tools: dict[str, Any]) -> tuple[int, int, str] | None:
    """Clarify: a value an opening-turn call cannot do without and only the user can give: a required
    parameter without a default that is not an entity id (ids can be looked up with read tools)."""
    for k, step in enumerate(turns[0]):
        spec = tools[step.tool]
        askable = _askable(spec)
        for p, v in step.mentioned.items():
            if p not in askable or not isinstance(v, (str, int, float)) or isinstance(v, bool) or len(str(v)) < 2:
                continue
            if not any((i, p2) != (k, p) and v2 == v for i, s in enumerate(turns[0]) for p2, v2 in s.mentioned.items()):
                return (0, k, p)
    return None


def _omitted_value(req: RenderRequest, turns: list[list[StepView]]) -> str | None:
    if req.omit is None:
        return None
    turn, step, param = req.omit
    return fmt(turns[turn][step].mentioned[param]).strip("'")


def _all_in(value: Any, values: set[Any]) -> bool:
    items = value if isinstance(value, list) else [value]
    return all(v in values for v in items)


def _reference(src: StepRun, etype: str, value: Any, seed_values: set[Any]) -> str:
    created = src.kind == "write" and not _all_in(value, seed_values)
    if created:
        return f"the new {etype.replace('_', ' ')}"
    verb, obj = humanize(src.tool)
    return f"the {etype.replace('_', ' ')} from the {verb} {obj.removeprefix('the ')} result"


def synthesize(
    library: Library,
    config: SynthConfig,
    renderer: Renderer | None = None,
    on_task: Callable[[Task], None] | None = None,
) -> SynthResult:
    with Synthesizer(library, config, renderer) as synth:
        result = synth.run()
    if on_task is not None:
        for t in result.tasks:
            on_task(t)
    return result
