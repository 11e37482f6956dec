"""The synthesis driver: balanced slots, a source per server, the checks, the top-up.

Slots: the paper's share of abstain tasks (5% of all tasks irrelevance, the rest missing
function); every other slot draws an information level (complete 60%, missing 20%, minimal 20%),
and a missing level makes it a clarify task. Slot i goes to server i of a seeded rotation over
all servers (a server that cannot fill a slot passes it on), so servers get equal shares. A server
with intents drafts from them (``hub.synth.source.IntentSource``); one without, from the chain machine
(``hub.synth.chain.source.ChainSource``), flagged in the result. Every draft passes the checks of
``hub.synth.gate``; the top-up (``hub.synth.cover``) raises rare tools at the end.

Every choice comes from a ``random.Random`` seeded by a string of (seed, kind, attempt, server),
and slots are filled in one fixed order: the same seed gives the same dataset.
"""

from __future__ import annotations

import random
import sqlite3
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from hub.engine.world import World
from hub.kit import Server
from hub.kit.intent import Level
from hub.state.library import Library, SqliteMount
from hub.synth import perturb
from hub.synth.chain.graph import ToolGraph, load_graph
from hub.synth.chain.render import LLMRenderer, Renderer, TemplateRenderer
from hub.synth.chain.source import ChainSource
from hub.synth.config import KINDS, Slot, Stats, SynthConfig
from hub.synth.cover import cover
from hub.synth.gate import Gate
from hub.synth.holdout import assign
from hub.synth.output import stratum
from hub.synth.source import IntentSource, Source
from hub.synth.steer import Steering
from hub.tasks import Task, tool_name

__all__ = ["KINDS", "Slot", "Stats", "SynthConfig", "SynthResult", "Synthesizer", "kind_counts", "plan", "synthesize"]

LEVELS: tuple[Level, ...] = ("complete", "missing", "minimal")
RATE_ALPHA = 0.01  # a server-kind's recent yield averages about its last 100 slot attempts


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
    held_out: dict[str, list[str]] = field(default_factory=dict)  # opening intents only the test split has


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
        self.skipped_worlds: dict[int, str] = {}
        self.worlds = self._usable_worlds()
        world = World(library, seed=config.world_seed, max_sessions=1_000_000)
        self.stats = Stats()
        self.steer = Steering(config.min_tool_uses)
        self.gate = Gate(library, config, self.steer, self.stats)
        self.all_tools = [tool_name(s, t) for s in library.mounts for t in library.mount(s).tools]
        self.intent_servers: dict[str, Server] = {
            name: srv
            for name, m in library.mounts.items()
            if isinstance(srv := getattr(m, "server", None), Server) and srv.intents
        }
        self.spent: Counter[tuple[str, str]] = Counter()
        self.dry: Counter[tuple[str, str]] = Counter()
        self.rate: dict[tuple[str, str], float] = {}  # recent kept / tried of a server-kind's slot attempts
        self.filled: Counter[str] = Counter()
        quota = kind_counts(config)
        self.budget = {k: int(config.server_budget * quota[k] / len(library.mounts)) + config.slot_tries for k in KINDS}
        # Made last: the LLM clients hold connections, and nothing after them can raise and leave those open.
        self.owns_renderer = renderer is None
        self.renderer = renderer or self._renderer()
        sessions, dispatcher = world.sessions, world.dispatcher
        self.chains = ChainSource(
            library, config, self.graphs, self.worlds, sessions, dispatcher, self.renderer, self.stats
        )
        self.intents = IntentSource(
            library, config, self.intent_servers, self.worlds, sessions, dispatcher, self.steer, self.stats
        )

    def close(self) -> None:
        """Close the LLM endpoint's connections; a renderer passed in stays open (it is the caller's)."""
        self.intents.close()
        if self.owns_renderer and isinstance(self.renderer, LLMRenderer):
            self.renderer.close()

    def __enter__(self) -> Synthesizer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _usable_worlds(self) -> list[int]:
        """``config.world_count`` seeds from ``world_seed`` on whose seed databases every server can build; a
        seed that breaks a server's ``seed()`` is skipped (and reported), the next one taken instead. Attempts
        draw their world at random, so every server keeps every world's database (no rebuilds)."""
        worlds: list[int] = []
        seed, count = self.config.world_seed, self.config.world_count
        self.library.keep_worlds(count)
        while len(worlds) < count and seed < self.config.world_seed + 4 * count + 16:
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
            self.steer.tool_counts.update(s.name for s in task.gt_steps())
            self._progress(len(tasks), start)
        c = self.config
        if c.cover if c.cover is not None else c.n >= 2 * len(self.all_tools):
            tasks = self._cover(tasks, counters)
        held_out = assign(tasks, c.test_fraction, c.seed, c.split_by)
        for i, t in enumerate(tasks):
            t.meta["synth"]["order"] = i
        self.stats.seconds = time.perf_counter() - start
        if c.progress:
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
            c,
            uncovered,
            self.all_tools,
            self.graphs,
            fallback,
            self.worlds,
            self.skipped_worlds,
            held_out,
        )

    def _cover(self, tasks: list[Task], counters: Counter[str]) -> list[Task]:
        """``tasks`` with every tool raised to ``min_tool_uses`` ground-truth uses (``hub.synth.cover``)."""

        def anchored(slot: Slot, server: str, j: int, tool: str) -> Task | None:
            return self.attempt(slot, server, j, anchor=tool)

        c = self.config
        return cover(
            tasks, self.all_tools, c.n, c.min_tool_uses, c.coverage_tries, anchored, counters, self.gate, self.steer,
            self.stats,
        )  # fmt: skip

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

    def source(self, server: str, machine: bool = False) -> Source:
        """The server's intents when it has some (and ``machine`` is not asked for), else the chain machine."""
        return self.intents if server in self.intent_servers and not machine else self.chains

    def attempt(self, slot: Slot, server: str, j: int, anchor: str | None = None, machine: bool = False) -> Task | None:
        """One synthesis attempt for ``server``: a checked task, or None (the reason counted). ``anchor``: a task
        that may call that tool; ``machine``: from the chain machine even when the server has intents."""
        self.stats.attempts[slot.kind] += 1
        rng = random.Random(f"task:{self.config.seed}:{slot.kind}:{slot.level}:{slot.variant}:{j}:{server}:{anchor}")
        source = self.source(server, machine)
        world = source.world(server, rng)
        task = source.draft(slot, server, world, rng, attempt=j, anchor=anchor)
        if task is None:
            return None
        kept = self.gate.admit(task)
        source.learn(server, slot.kind, task, kept is not None)
        return kept


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
