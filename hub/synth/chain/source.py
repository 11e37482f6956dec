"""The chain machine as a task source: a graph walk anchored on a tool, its user turns rendered from templates
(or an LLM), for servers without intents (``--mount`` classes, say).

Each server's attempts take their world by blocks of ``sampler_k`` tasks (the sampling context is built per
block, so a block keeps its world); the anchor tool comes from a seeded schedule of the server's tools.
"""

from __future__ import annotations

import random
from collections import Counter
from datetime import datetime
from typing import Any

from hub.config import REFERENCE_NOW
from hub.engine.dispatcher import Dispatcher
from hub.engine.episodes import dated_system
from hub.state.library import Library
from hub.state.sessions import SessionManager
from hub.synth import perturb, unsolvable
from hub.synth.chain.graph import ToolGraph
from hub.synth.chain.machine import Chain, Machine, MachineConfig, StepRun
from hub.synth.chain.render import ID_TOKEN, LLMRenderer, Renderer, RenderRequest, StepView, fmt, humanize
from hub.synth.chain.sampler import Harvester, Sampler
from hub.synth.chain.validate import SeedIndex, ungrounded
from hub.synth.chain.values import ValueMaker
from hub.synth.config import Slot, Stats, SynthConfig
from hub.tasks import GTStep, InitialState, Task, Turn, tool_name


class ChainSource:
    """Tasks from the chain machine (``hub.synth.chain.machine``)."""

    def __init__(
        self,
        library: Library,
        config: SynthConfig,
        graphs: dict[str, ToolGraph],
        worlds: list[int],
        sessions: SessionManager,
        dispatcher: Dispatcher,
        renderer: Renderer,
        stats: Stats,
    ) -> None:
        self.library = library
        self.config = config
        self.graphs = graphs
        self.worlds = worlds
        self.sessions, self.dispatcher = sessions, dispatcher
        self.renderer = renderer
        self.stats = stats
        self.harvesters = {s: Harvester(m.tools) for s, m in library.mounts.items()}
        self.per_server: Counter[str] = Counter()
        self.schedules: dict[str, list[str]] = {}
        self._samplers: dict[int, Sampler] = {}
        self._indexes: dict[int, SeedIndex] = {}

    def world(self, server: str, rng: random.Random) -> int:
        return self.worlds[(self.per_server[server] // self.config.sampler_k) % len(self.worlds)]

    def draft(
        self, slot: Slot, server: str, world: int, rng: random.Random, *, attempt: int, anchor: str | None = None
    ) -> Task | None:
        task = self._from_machine(slot, server, world, rng, attempt, anchor, 8 if anchor else 4)
        if task is not None and ungrounded(task, self.index(world)):
            self.stats.dropped["ungrounded"] += 1
            return None
        return task

    def learn(self, server: str, kind: str, task: Task, kept: bool) -> None:
        return None

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
            ValueMaker(rng, self.now(server, world)),
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
        now = self.now(server, world)
        req = RenderRequest(server, level, turns_views, context=context, date=now.date().isoformat())
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
                "today": now.date().isoformat(),
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
                "withheld": unsolvable.withheld(server, [(s.tool, s.arguments) for s in chain.steps])
                if kind == "abstain"
                else [],
            }
        }
        try:
            return Task(
                id=f"synth-{self.config.seed}-{kind}-{j:05d}-{server}",
                kind=kind,
                system=dated_system(now),
                servers=servers,  # type: ignore[arg-type]
                initial=InitialState(seed=world),
                turns=turns,
                tools=tools,
                strip_enums=bool(perturbs["enum_stripped"]),
                meta=meta,
            )
        except ValueError:
            return None

    def now(self, server: str, world: int) -> datetime:
        """The world's reference "now" (a mounted server keeps no clock: the hub's default then)."""
        return self.library.now_of(server, world) or REFERENCE_NOW

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
        c = self.config
        reading = all(s.kind == "read" for s in chain.steps)
        return perturb.offer(
            self.library, kind, variant, server, wanted, rng, c.distractor_rate, c.enum_strip_rate, reading=reading
        )


def _askable(tool: Any) -> list[str]:
    """Required parameters without a default that are not entity ids: values only the user can give."""
    props = tool.input_schema.get("properties", {})
    return [p for p in tool.required if "default" not in props.get(p, {}) and not tool.params.get(p)]


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
