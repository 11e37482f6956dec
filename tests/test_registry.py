"""Tests that loop over the registry, so that the catalog, the declarations and the code cannot drift."""

from __future__ import annotations

import importlib
import json
import pkgutil
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import servers
from hub.config import REFERENCE_NOW
from hub.kit import Tool
from hub.state.db import SeedDatabase, hex128
from servers import REGISTRY
from tests.conftest import LIBRARY, World
from tests.golden_files import GOLDEN_CATALOG, catalog, catalog_text, write_catalog
from tests.servers.examples import docstring_examples

PAPER_TABLE = {
    "banking": 17,
    "trading": 13,
    "payments": 10,
    "calendar": 17,
    "email": 17,
    "filesystem": 40,
    "shopping": 23,
    "marketplace": 13,
    "retail_chain": 11,
    "travel_booking": 20,
    "maps": 16,
    "social_media": 15,
    "team_chat": 11,
    "iot_devices": 25,
    "vehicle": 20,
    "crm": 16,
    "issue_tracker": 20,
    "budget": 12,
    "food_delivery": 17,
    "video_meeting": 10,
}
TOOLS = LIBRARY.all_tools()
GOLDEN_SEEDS = GOLDEN_CATALOG.parent / "seed_hashes.json"
IDS = [f"{t.server}.{t.name}" for t in TOOLS]
# Docstring examples that fail on a fresh seed, by (server, tool, n-th example of the tool), with why. Each fix
# changes a description, so it waits for a reviewed catalog change; strict xfail makes a fixed example fail here
# until its line is removed.
BROKEN_EXAMPLES: dict[tuple[str, str, int], str] = {}


def _examples() -> list[Any]:
    params = []
    for server in REGISTRY:
        seen: dict[str, int] = {}
        for tool, args in docstring_examples(server):
            key = (server.name, tool, seen.setdefault(tool, 0))
            seen[tool] += 1
            broken = [pytest.mark.xfail(strict=True, reason=BROKEN_EXAMPLES[key])] if key in BROKEN_EXAMPLES else []
            params.append(pytest.param(server.name, tool, args, id=f"{server.name}.{tool}-{key[2]}", marks=broken))
    return params


EXAMPLES = _examples()


def test_paper_table() -> None:
    """The paper's Table 2: its 20 servers and their 343 tools. Servers beyond the paper's may be added."""
    counts = {s.name: len(s.tools) for s in REGISTRY}
    assert {name: counts.get(name) for name in PAPER_TABLE} == PAPER_TABLE
    assert sum(PAPER_TABLE.values()) == 343


def test_every_server_module_is_registered() -> None:
    """A module or package under servers/ that defines ``server`` must be in REGISTRY, and only once."""
    registered = [id(s) for s in REGISTRY]
    assert len(set(registered)) == len(registered), "a server is registered twice"
    assert len({s.name for s in REGISTRY}) == len(REGISTRY), "two servers share a name"
    missing = []
    for module in pkgutil.iter_modules(servers.__path__):
        if module.name.startswith("_"):
            continue
        loaded = importlib.import_module(f"servers.{module.name}")
        if id(getattr(loaded, "server", None)) not in registered:
            missing.append(module.name)
    assert not missing, f"add these to REGISTRY in servers/__init__.py: {missing}"


def test_golden_catalog_matches(regen_golden: bool) -> None:
    """Regenerate with `pytest tests/test_registry.py --regen-golden` and review the diff."""
    if regen_golden:
        write_catalog()
    assert GOLDEN_CATALOG.exists(), "run `pytest tests/test_registry.py --regen-golden`"
    assert GOLDEN_CATALOG.read_text() == catalog_text(catalog())


@pytest.mark.parametrize("tool", TOOLS, ids=IDS)
def test_tool_declarations(tool: Tool) -> None:
    assert re.fullmatch(r"[a-z]+(_[a-z0-9]+)+", tool.name), "tool names are verb_noun"
    assert len(tool.description) >= 20
    if tool.params:
        assert re.search(r"e\.g\.|\('|[A-Z]{2,}-\d", tool.description), "the docstring gives a concrete example"
    assert tool.input_schema["type"] == "object"
    for name in tool.requires:
        assert name in LIBRARY.mount(tool.server).tools, f"requires unknown tool {name}"
    for param, entity in tool.params.items():
        if param.endswith("_id"):
            assert entity, f"parameter {param} carries an id but declares no Entity"


def test_seed_hashes_match_golden(regen_golden: bool) -> None:
    """Each server's seed-0 state hash is pinned: moving or splitting a seed must not change what it holds.

    After a deliberate change to a seed, regenerate with ``--regen-golden`` and review the diff."""
    hashes = {s.name: hex128(LIBRARY.mount(s.name).seed_db(0).hash_int) for s in REGISTRY}  # type: ignore[attr-defined]
    if regen_golden:
        GOLDEN_SEEDS.write_text(json.dumps(hashes, indent=1, sort_keys=True) + "\n")
    assert GOLDEN_SEEDS.exists(), "run `pytest tests/test_registry.py --regen-golden`"
    golden = json.loads(GOLDEN_SEEDS.read_text())
    changed = sorted(name for name in golden.keys() & hashes.keys() if golden[name] != hashes[name])
    assert not changed, f"seed state changed for {changed}; if deliberate, regenerate and review the diff"
    assert golden.keys() == hashes.keys(), "servers added or removed: regenerate the golden seed hashes"


@pytest.mark.parametrize("server", REGISTRY, ids=[s.name for s in REGISTRY])
def test_seed_is_deterministic(server: Any) -> None:
    a = LIBRARY.mount(server.name).seed_db(0)  # type: ignore[attr-defined]
    b = SeedDatabase(server, 0, REFERENCE_NOW)
    c = SeedDatabase(server, 1, REFERENCE_NOW)
    assert a.hash_int == b.hash_int and a.data == b.data
    assert c.hash_int != a.hash_int
    assert a.row_count() >= 100


# Property test: generated arguments, valid and invalid, for every tool ---------------------------------


def _seed_values(server: str) -> dict[str, list[Any]]:
    """Values of every column of the seed, by column name: real ids for id-like parameters."""
    sdb = LIBRARY.mount(server).seed_db(0)  # type: ignore[attr-defined]
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


SEEDS: dict[str, dict[str, list[Any]]] = {}


@pytest.mark.parametrize("tool", TOOLS, ids=IDS)
def test_any_arguments_give_result_or_clean_error(tool: Tool) -> None:
    """Every call returns a result, a ToolError or a validation error; failures and reads leave the hash alone."""
    seeds = SEEDS.setdefault(tool.server, _seed_values(tool.server))
    world = World(session=f"prop-{tool.server}")

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


@pytest.mark.parametrize("server", REGISTRY, ids=[s.name for s in REGISTRY])
def test_docstring_example_ids_exist_in_the_seed(server: Any) -> None:
    sdb = LIBRARY.mount(server.name).seed_db(0)  # type: ignore[attr-defined]
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


@pytest.mark.parametrize(("server", "tool", "arguments"), EXAMPLES)
def test_docstring_examples_run_as_written(server: str, tool: str, arguments: dict[str, Any]) -> None:
    """Each example call in a tool's docstring succeeds on a fresh seed: it is what the model tries first."""
    World(session=f"example-{server}").ok(server, tool, **arguments)


def test_broken_examples_name_real_tools() -> None:
    ids = {p.id for p in EXAMPLES}
    for server, tool, n in BROKEN_EXAMPLES:
        assert f"{server}.{tool}-{n}" in ids, f"{server}.{tool} has no example {n}; remove it from BROKEN_EXAMPLES"
