"""The checks every server passes, as functions of a library and one of its servers.

The registry-wide tests (``tests/test_registry.py``, ``tests/test_intents.py``) run them over every registered
server; ``tests/servers/test_new_server.py`` runs them on a server package built outside the tree. A server
beyond the paper's therefore needs no test edits: its own ``tests/servers/test_<name>.py`` only.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hub.config import REFERENCE_NOW
from hub.engine.dispatcher import Dispatcher
from hub.engine.events import EventBus
from hub.kit import Server, Tool
from hub.kit.intent import Intent, Scene, covered_tools
from hub.state.db import SeedDatabase
from hub.state.library import Library
from hub.state.sessions import SessionManager
from hub.synth.goals import DraftFailed, check, linked, render, run_dialogue, withholdable
from tests.conftest import LIBRARY, World
from tests.servers.examples import docstring_examples

WORLDS = (0, 1, 2)


# Declarations and seeds -----------------------------------------------------------------------------


def tool_declarations(library: Library, tool: Tool) -> None:
    assert re.fullmatch(r"[a-z]+(_[a-z0-9]+)+", tool.name), "tool names are verb_noun"
    assert len(tool.description) >= 20
    if tool.params:
        assert re.search(r"e\.g\.|\('|[A-Z]{2,}-\d", tool.description), "the docstring gives a concrete example"
    assert tool.input_schema["type"] == "object"
    for name in tool.requires:
        assert name in library.mount(tool.server).tools, f"requires unknown tool {name}"
    for param, entity in tool.params.items():
        if param.endswith("_id"):
            assert entity, f"parameter {param} carries an id but declares no Entity"


def seed_is_deterministic(library: Library, server: Server) -> None:
    a = library.mount(server.name).seed_db(0)  # type: ignore[attr-defined]
    b = SeedDatabase(server, 0, REFERENCE_NOW)
    c = SeedDatabase(server, 1, REFERENCE_NOW)
    assert a.hash_int == b.hash_int and a.data == b.data
    assert c.hash_int != a.hash_int
    assert a.row_count() >= 100


def example_ids_exist_in_the_seed(library: Library, server: Server) -> None:
    sdb = library.mount(server.name).seed_db(0)  # type: ignore[attr-defined]
    values: set[str] = set()
    for table in sdb.tables:
        for row in sdb.db.execute(f"SELECT * FROM {table}"):
            values.update(v for v in row if isinstance(v, str))
    missing = {}
    for tool in server.tools.values():
        for example in re.findall(r"'([A-Z]{2,5}-\d{2,})'", tool.description):
            if example not in values:
                missing[tool.name] = example
    assert not missing, f"example ids that do not exist in the seed: {missing}"


def example_runs_as_written(library: Library, server: str, tool: str, arguments: dict[str, Any]) -> None:
    """A docstring's example call succeeds on a fresh seed: it is what the model tries first."""
    World(library, session=f"example-{server}").ok(server, tool, **arguments)


def examples_run_as_written(library: Library, server: Server) -> None:
    for tool, arguments in docstring_examples(server):
        example_runs_as_written(library, server.name, tool, arguments)


# Property test: generated arguments, valid and invalid --------------------------------------------------


def seed_values(library: Library, server: str) -> dict[str, list[Any]]:
    """Values of every column of the seed, by column name: real ids for id-like parameters."""
    sdb = library.mount(server).seed_db(0)  # type: ignore[attr-defined]
    out: dict[str, list[Any]] = {}
    for table, info in sdb.tables.items():
        for col in info.columns:
            vals = [r[0] for r in sdb.db.execute(f"SELECT DISTINCT {col} FROM {table} LIMIT 30")]
            out.setdefault(col, []).extend(v for v in vals if v is not None)
    return out


def _strategy(prop: dict[str, Any], name: str, seeds: dict[str, list[Any]]) -> st.SearchStrategy[Any]:
    if "enum" in prop:
        return st.sampled_from(prop["enum"]) | st.text(max_size=8)
    if "const" in prop:
        return st.just(prop["const"])
    if "anyOf" in prop:
        return st.one_of([_strategy(p, name, seeds) for p in prop["anyOf"]])
    kind = prop.get("type")
    real = seeds.get(name) or seeds.get(name.removesuffix("_id") + "_id") or []
    if kind == "string":
        base = st.text(max_size=20) | st.sampled_from(["", "..", "/", "%", "2026-06-01", "2026-06-01T10:00:00"])
        return (st.sampled_from([v for v in real if isinstance(v, str)] or [""]) | base) if real else base
    if kind == "integer":
        return (
            st.integers(-3, 10**6)
            | st.sampled_from([2**63, -(2**63)])
            | st.sampled_from([v for v in real if isinstance(v, int)] or [0])
        )
    if kind == "number":
        return st.floats(-1e6, 1e7, allow_nan=False) | st.integers(-10, 10**5)
    if kind == "boolean":
        return st.booleans()
    if kind == "array":
        return st.lists(_strategy(prop.get("items", {}), name, seeds), max_size=4)
    if kind == "null":
        return st.none()
    return st.none() | st.integers() | st.text(max_size=5)


def _arguments(tool: Tool, seeds: dict[str, list[Any]]) -> st.SearchStrategy[Any]:
    props = tool.input_schema.get("properties", {})
    required = set(tool.required)
    fixed = {k: _strategy(v, k, seeds) for k, v in props.items() if k in required}
    optional = {k: _strategy(v, k, seeds) for k, v in props.items() if k not in required}
    valid_shape = st.fixed_dictionaries(fixed, optional=optional)
    broken = st.dictionaries(
        st.sampled_from([*props, "bogus"]), st.none() | st.integers() | st.text(max_size=5), max_size=4
    )
    return valid_shape | broken | st.just(None) | st.just([1, 2])


def any_arguments_give_result_or_clean_error(library: Library, tool: Tool, seeds: dict[str, list[Any]]) -> None:
    """Every call returns a result, a ToolError or a validation error; failures and reads leave the hash alone."""
    world = World(library, session=f"prop-{tool.server}")

    @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), database=None, derandomize=True)
    @given(_arguments(tool, seeds))
    def run(arguments: Any) -> None:
        before = world.hash(tool.server)
        out = world.dispatcher.call(world.session, tool.server, tool.name, arguments)
        assert out.error_kind != "internal", out.error
        if not out.ok or tool.kind == "read":
            assert world.hash(tool.server) == before, f"{'read' if out.ok else 'failed'} call changed state"
        json.dumps(out.result, default=str)

    run()


# Intents ----------------------------------------------------------------------------------------------


class Live:
    """A session manager and dispatcher over a library; scenes on fresh forks."""

    def __init__(self, library: Library = LIBRARY) -> None:
        self.sessions = SessionManager(library, max_sessions=100_000)
        self.dispatcher = Dispatcher(library, self.sessions, EventBus(maxsize=1))
        self.n = 0

    def scene(self, server: Server, world: int = 0, seed: int = 0) -> Scene:
        self.n += 1
        sid = f"scene-{self.n}"
        session = self.sessions.open(sid, seed=world)

        def call(tool: str, args: dict) -> tuple[bool, object, str | None]:
            out = self.dispatcher.call(sid, server.name, tool, args)
            return out.ok, out.result, out.error

        fork = session.fork_of(server.name)
        return Scene(server, fork.db, call, random.Random(seed), now=fork.now, world=world)  # type: ignore[attr-defined]


def dialogues(server: Server, intent: Intent, live: Live) -> Iterator[object]:
    for k in range(9):
        rng = random.Random(f"{intent.name}:{k}")
        sid = f"d-{server.name}-{intent.name}-{k}"
        level = ("complete", "minimal", "missing")[k % 3]
        try:
            world = WORLDS[k % len(WORLDS)]
            yield run_dialogue(
                server,
                live.sessions,
                live.dispatcher,
                sid,
                world,
                level,  # type: ignore[arg-type]
                rng,
                first=intent,
            )
        except DraftFailed:
            continue
        finally:
            live.sessions.close(sid)


def every_intent_runs_on_several_worlds(server: Server, live: Live) -> None:
    made: Counter[str] = Counter()
    clarifiable: set[str] = set()
    words = {w for t in server.tools for w in t.split("_") if len(w) > 3}
    openers = [i for i in server.intents if i.opens]
    for intent in openers:
        for d in dialogues(server, intent, live):
            check(d)  # type: ignore[arg-type]
            assert linked(d.links), (intent.name, d.links)  # type: ignore[attr-defined]
            made.update(d.scene.intents)  # type: ignore[attr-defined]
            clarifiable.update(intent.name for _ in withholdable(d)[:1])  # type: ignore[arg-type]
            for text in render(d, random.Random(0)):  # type: ignore[arg-type]
                assert not re.search(r"\b[a-z]+_[a-z_]+\(", text), text  # no call syntax
                assert not any(f"{a}_{b}" in text for t in server.tools for a, b in [t.split("_", 1)]), text
            assert all(c.tool in intent.covers or any(c.tool in i.covers for i in server.intents) for c in d.calls)  # type: ignore[attr-defined]
    assert words
    for intent in openers:
        assert made[intent.name] >= 3, f"{server.name}.{intent.name} runs too rarely: {made[intent.name]} of 9"
    assert clarifiable, f"{server.name}: no intent can make a clarify task"


def every_follow_up_continues_some_dialogue(server: Server, live: Live) -> None:
    from hub.synth.goals import _continue, links

    for follow in [i for i in server.intents if i.follows]:
        ran = 0
        for opener in [i for i in server.intents if i.opens]:
            for d in dialogues(server, opener, live):  # its session stays open until the next draw
                scene = d.scene  # type: ignore[attr-defined]
                before = len(scene.intents)
                _continue(scene, scene.db, follow)
                if follow.name in scene.intents[before:]:
                    ran += 1
                    assert linked(links(server.tools, scene))
                    break
            if ran >= 3:  # enough: the point is that it continues some dialogues, linked
                break
        assert ran, f"{server.name}.{follow.name} never continues a dialogue"


def intents_cover_all_tools(server: Server) -> None:
    covered = covered_tools([server])
    missing = sorted(f"{server.name}__{t}" for t in server.tools if f"{server.name}__{t}" not in covered)
    assert not missing, f"tools no intent of {server.name} covers: {missing}"
