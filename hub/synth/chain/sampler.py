"""The live-state sampler: real entities read through each server's read-only tools on a fork.

A ``Harvester`` knows, per server, which result keys carry which entity type (``<entity>_id``,
``<entity>_ids``, and every parameter name declared with ``Entity(...)``, e.g. ``sku`` ->
product) and pulls ids, their records and plain values (cities, names, enum-like strings)
out of any tool result. A ``SamplingContext`` is the compact grounding the query generator
gets: entities with enough supporting data (non-null fields), their labels, and value pools.
``Sampler.context(server, block)`` builds one per block of ``k`` tasks (refreshed every k
tasks) by calling list/search tools with a varying offset, then get/list tools on the ids
found, two levels deep; it is a pure function of (seed, server, block).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from hub.engine.world import World
from hub.kit import Tool
from hub.state.library import Library

ID_FALLBACK_KEYS = ("id", "code", "symbol", "sku", "username", "path")
LABEL_KEYS = (
    "name",
    "title",
    "nickname",
    "subject",
    "owner_name",
    "full_name",
    "display_name",
    "username",
    "handle",
    "company",
    "address",
    "path",
    "description",
)
MAX_VALUES = 200


def singular(word: str) -> str:
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("sses", "shes", "ches", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


@dataclass
class EntityRecord:
    type: str
    id: Any
    label: str | None
    support: int
    fields: dict[str, Any]


@dataclass
class Harvest:
    """What one result carried: entity ids by type (in order, unique), records, and plain values by key."""

    ids: dict[str, list[Any]] = field(default_factory=dict)
    records: dict[tuple[str, Any], EntityRecord] = field(default_factory=dict)
    values: dict[str, list[Any]] = field(default_factory=dict)

    def add_id(self, etype: str, value: Any) -> None:
        found = self.ids.setdefault(etype, [])
        if value not in found:
            found.append(value)

    def all_scalars(self) -> set[str]:
        out = {repr(v) for vs in self.ids.values() for v in vs}
        out.update(repr(v) for vs in self.values.values() for v in vs)
        return out


class Harvester:
    """Entity and value extraction for one server's results."""

    def __init__(self, tools: dict[str, Tool]) -> None:
        self.entity_types: set[str] = set()
        self.keymap: dict[str, list[str]] = {}
        for t in tools.values():
            self.entity_types.update(t.returns)
            for p, e in t.params.items():
                if e:
                    self.entity_types.add(e)
                    self._map(p, e)
        for e in sorted(self.entity_types):
            self._map(f"{e}_id", e)
            self._map(f"{e}_ids", e)
        for e in sorted(self.entity_types):  # a key named after the type carries it when no id key does
            if not any(
                k not in (f"{e}_id", f"{e}_ids") and e in es and k.endswith(("_id", "_ids"))
                for k, es in self.keymap.items()
            ):
                self._map(e, e)

    def _map(self, key: str, etype: str) -> None:
        found = self.keymap.setdefault(key, [])
        if etype not in found:
            found.append(etype)

    def harvest(self, result: Any, main: tuple[str, ...] = ()) -> Harvest:
        out = Harvest()
        self._walk(result, main[0] if main else None, out, 0)
        return out

    def _walk(self, node: Any, list_entity: str | None, out: Harvest, depth: int) -> None:
        if depth > 6:
            return
        if isinstance(node, dict):
            self._dict(node, list_entity, out, depth)
        elif isinstance(node, list):
            for item in node[:100]:
                self._walk(item, list_entity, out, depth + 1)

    def _dict(self, d: dict[str, Any], list_entity: str | None, out: Harvest, depth: int) -> None:
        main_key = self._id_key(d, list_entity)
        for k, v in d.items():
            if isinstance(v, (dict, list)) and not _scalar_list(v):
                child = singular(k)
                self._walk(v, child if child in self.entity_types else None, out, depth + 1)
                continue
            for etype in self.keymap.get(k, ()):
                for item in v if isinstance(v, list) else [v]:
                    if _id_like(item):
                        out.add_id(etype, item)
            if _plain(v):
                vals = out.values.setdefault(k, [])
                if v not in vals and len(vals) < MAX_VALUES:
                    vals.append(v)
        if main_key is not None and list_entity is not None and _id_like(d.get(main_key)):
            self._record(list_entity, d[main_key], d, out)

    def _id_key(self, d: dict[str, Any], list_entity: str | None) -> str | None:
        if list_entity is None:
            return None
        if f"{list_entity}_id" in d:
            key = f"{list_entity}_id"
            return key
        for k in [p for p, es in self.keymap.items() if list_entity in es] + list(ID_FALLBACK_KEYS):
            if k in d and _id_like(d[k]):
                return k
        return None

    def _record(self, etype: str, value: Any, d: dict[str, Any], out: Harvest) -> None:
        out.add_id(etype, value)
        fields = {k: v for k, v in d.items() if _plain(v)}
        support = sum(1 for v in fields.values() if v not in (None, ""))
        label = next((str(d[k]) for k in LABEL_KEYS if isinstance(d.get(k), str) and d[k] and d[k] != value), None)
        key = (etype, value)
        old = out.records.get(key)
        if old is None or support > old.support:
            out.records[key] = EntityRecord(etype, value, label, support, fields)


def _scalar_list(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(x, (str, int, float)) and not isinstance(x, bool) for x in v)


def _plain(v: Any) -> bool:
    return (isinstance(v, str) and 0 < len(v) <= 80) or (isinstance(v, (int, float)) and not isinstance(v, bool))


def _id_like(v: Any) -> bool:
    return (isinstance(v, str) and 0 < len(v) <= 200) or (isinstance(v, int) and not isinstance(v, bool))


@dataclass
class SamplingContext:
    """Grounding for one server: entities with enough supporting data, and value pools by key."""

    server: str
    block: int
    entities: dict[str, list[EntityRecord]]
    values: dict[str, list[Any]]

    def pick(self, etype: str, rng: random.Random, n: int = 1) -> list[EntityRecord]:
        pool = self.entities.get(etype, [])
        return rng.sample(pool, min(n, len(pool))) if pool else []

    def record(self, etype: str, value: Any) -> EntityRecord | None:
        for r in self.entities.get(etype, []):
            if r.id == value:
                return r
        return None

    def summary(self, limit: int = 5) -> dict[str, Any]:
        """The compact context an LLM prompt gets: a few real ids and labels per type, value ranges."""
        ents = {t: [{"id": r.id, "label": r.label} for r in rs[:limit]] for t, rs in self.entities.items() if rs}
        vals = {k: vs[:limit] for k, vs in self.values.items() if vs and isinstance(vs[0], str)}
        return {"server": self.server, "entities": ents, "values": dict(list(vals.items())[:20])}


class Sampler:
    """Builds and caches sampling contexts; one session per build, read-only tools only."""

    def __init__(
        self, library: Library, seed: int, *, world_seed: int = 0, k: int = 50, min_support: int = 3, per_tool: int = 3
    ) -> None:
        self.library = library
        self.seed = seed
        self.world_seed = world_seed
        self.k = k
        self.min_support = min_support
        self.per_tool = per_tool
        world = World(library, seed=world_seed, max_sessions=1_000_000)
        self.sessions, self.dispatcher = world.sessions, world.dispatcher
        self.harvesters = {name: Harvester(m.tools) for name, m in library.mounts.items()}
        self._cache: dict[tuple[str, int], SamplingContext] = {}
        self.calls = 0
        self.builds = 0

    def for_task(self, server: str, index: int) -> SamplingContext:
        """The context of the block of ``k`` tasks that task ``index`` (per server) falls in."""
        return self.context(server, index // self.k)

    def context(self, server: str, block: int) -> SamplingContext:
        key = (server, block)
        found = self._cache.get(key)
        if found is None:
            if len(self._cache) > 64:
                self._cache.pop(next(iter(self._cache)))
            found = self._cache[key] = self._build(server, block)
        return found

    def _build(self, server: str, block: int) -> SamplingContext:
        self.builds += 1
        rng = random.Random(f"sampler:{self.seed}:{server}:{block}")
        sid = f"sampler-{server}-{block}"
        self.sessions.open(sid, seed=self.world_seed)
        try:
            merged = Harvest()
            tools = self.library.mount(server).tools
            reads = [t for t in tools.values() if t.kind == "read"]
            for t in reads:
                if not t.required:
                    self._merge(merged, self._call(sid, server, t, self._list_args(t, rng, 0)))
                    if "offset" in t.input_schema.get("properties", {}):
                        self._merge(merged, self._call(sid, server, t, self._list_args(t, rng)))
                elif t.name == "get_distinct_values" or list(t.params) == ["field"]:
                    self._distinct(sid, server, t, merged)
            for _ in range(2):
                for t in reads:
                    if t.required and all(t.params.get(p) for p in t.required):
                        for args in self._id_args(t, merged, rng):
                            self._merge(merged, self._call(sid, server, t, args))
        finally:
            self.sessions.close(sid)
        return self._context(server, block, merged)

    def _call(self, sid: str, server: str, tool: Tool, args: dict[str, Any]) -> Harvest:
        self.calls += 1
        out = self.dispatcher.call(sid, server, tool.name, args)
        if not out.ok:
            return Harvest()
        return self.harvesters[server].harvest(out.result, tool.returns)

    def _list_args(self, tool: Tool, rng: random.Random, offset: int | None = None) -> dict[str, Any]:
        props = tool.input_schema.get("properties", {})
        args: dict[str, Any] = {}
        if "limit" in props:
            args["limit"] = min(40, int(props["limit"].get("maximum", 40)))
        if "offset" in props and offset != 0:
            args["offset"] = rng.choice((10, 20, 40, 60, 80))
        return args

    def _distinct(self, sid: str, server: str, tool: Tool, merged: Harvest) -> None:
        prop = tool.input_schema["properties"].get("field", {})
        for field_name in prop.get("enum", []):
            self.calls += 1
            out = self.dispatcher.call(sid, server, tool.name, {"field": field_name})
            if out.ok and isinstance(out.result, dict) and isinstance(out.result.get("values"), dict):
                pool = merged.values.setdefault(field_name, [])
                for v in out.result["values"]:
                    if v not in pool and len(pool) < MAX_VALUES:
                        pool.append(v)

    def _id_args(self, tool: Tool, merged: Harvest, rng: random.Random) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for _ in range(self.per_tool):
            args = {}
            for p in tool.required:
                etype = tool.params[p]
                pool = merged.ids.get(etype or "", [])
                if not pool:
                    return out
                schema = tool.input_schema["properties"][p]
                value = rng.choice(pool)
                args[p] = [value] if schema.get("type") == "array" else value
            out.append(args)
        return out

    def _merge(self, into: Harvest, h: Harvest) -> None:
        for etype, ids in h.ids.items():
            for v in ids:
                into.add_id(etype, v)
        for key, rec in h.records.items():
            old = into.records.get(key)
            if old is None or rec.support > old.support:
                into.records[key] = rec
        for k, vs in h.values.items():
            pool = into.values.setdefault(k, [])
            for v in vs:
                if v not in pool and len(pool) < MAX_VALUES:
                    pool.append(v)

    def _context(self, server: str, block: int, merged: Harvest) -> SamplingContext:
        entities: dict[str, list[EntityRecord]] = {}
        for (etype, _), rec in merged.records.items():
            if rec.support >= self.min_support:
                entities.setdefault(etype, []).append(rec)
        for etype, ids in merged.ids.items():  # ids seen only as references: weak support, kept as a fallback
            if etype not in entities:
                entities[etype] = [EntityRecord(etype, v, None, 0, {}) for v in ids[:MAX_VALUES]]
        return SamplingContext(server, block, entities, merged.values)
