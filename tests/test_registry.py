"""Tests that loop over the registry, so that the catalog, the declarations and the code cannot drift."""

from __future__ import annotations

import importlib
import json
import pkgutil
from pathlib import Path
from typing import Any

import pytest

import servers
from hub.kit import Server, Tool
from hub.state.db import hex128
from servers import REGISTRY
from tests.conftest import LIBRARY
from tests.golden_files import GOLDEN_CATALOG, catalog, catalog_text, write_catalog
from tests.servers import checks
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


def test_every_server_package_is_in_the_registry_once() -> None:
    """Every public module or package under servers/ defines ``server``; the registry holds each once, and the
    ``servers`` part brings exactly the registry."""
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
    assert not missing, f"the registry missed these packages: {missing}"
    assert servers.part.servers is not None and tuple(servers.part.servers()) == REGISTRY


def test_the_paper_servers_keep_table_order_and_new_ones_follow_by_name() -> None:
    def blank(name: str) -> Server:
        return Server(name, "A server that holds nothing.", "", lambda db, rng, now: None)

    zebra, aardvark = blank("zebra"), blank("aardvark")
    assert servers.in_paper_order([zebra, *reversed(REGISTRY), aardvark]) == (*REGISTRY, aardvark, zebra)


def test_a_module_under_servers_without_a_server_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "more_servers"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "_private.py").write_text("")  # private modules are skipped
    (package / "helpers.py").write_text("X = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(TypeError, match="more_servers.helpers defines no `server`"):
        servers.discover("more_servers", [str(package)])


def test_golden_catalog_matches(regen_golden: bool) -> None:
    """Regenerate with `pytest tests/test_registry.py --regen-golden` and review the diff."""
    if regen_golden:
        write_catalog()
    assert GOLDEN_CATALOG.exists(), "run `pytest tests/test_registry.py --regen-golden`"
    assert GOLDEN_CATALOG.read_text() == catalog_text(catalog())


@pytest.mark.parametrize("tool", TOOLS, ids=IDS)
def test_tool_declarations(tool: Tool) -> None:
    checks.tool_declarations(LIBRARY, tool)


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
def test_seed_is_deterministic(server: Server) -> None:
    checks.seed_is_deterministic(LIBRARY, server)


SEEDS: dict[str, dict[str, list[Any]]] = {}


@pytest.mark.parametrize("tool", TOOLS, ids=IDS)
def test_any_arguments_give_result_or_clean_error(tool: Tool) -> None:
    seeds = SEEDS.setdefault(tool.server, checks.seed_values(LIBRARY, tool.server))
    checks.any_arguments_give_result_or_clean_error(LIBRARY, tool, seeds)


@pytest.mark.parametrize("server", REGISTRY, ids=[s.name for s in REGISTRY])
def test_docstring_example_ids_exist_in_the_seed(server: Server) -> None:
    checks.example_ids_exist_in_the_seed(LIBRARY, server)


@pytest.mark.parametrize(("server", "tool", "arguments"), EXAMPLES)
def test_docstring_examples_run_as_written(server: str, tool: str, arguments: dict[str, Any]) -> None:
    checks.example_runs_as_written(LIBRARY, server, tool, arguments)


def test_broken_examples_name_real_tools() -> None:
    ids = {p.id for p in EXAMPLES}
    for server, tool, n in BROKEN_EXAMPLES:
        assert f"{server}.{tool}-{n}" in ids, f"{server}.{tool} has no example {n}; remove it from BROKEN_EXAMPLES"
