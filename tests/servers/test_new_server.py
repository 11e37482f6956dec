"""A 21st server is one package: built outside the tree (in a temporary folder) and registered by its own
part's entry point, it reaches the hub, passes the checks every server passes, and moves no other server's
golden sample tasks."""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hub.config import REFERENCE_NOW, Settings
from hub.core import default_library
from hub.kit import Server
from hub.parts import SERVERS_GROUP, discover, registered_servers
from hub.state.library import Library
from hub.synth.samples import GOLDEN, compact, sample_tasks
from servers import REGISTRY
from tests.servers import checks
from tests.servers.examples import docstring_examples

# The package a contributor would write: a docstring, a schema, a seed, two tools, one intent and a part.
PACKAGE: dict[str, str] = {
    "__init__.py": '''
"""A pantry: items on shelves and how many of each are left. Using more than is left fails."""

from hub.parts import Part
from pantry_server import intents  # noqa: F401  (registers the intents)
from pantry_server.tools import pantry as server

part = Part("pantry", servers=lambda: [server])
''',
    "tools.py": '''
"""Pantry tools: find an item by name, use some of it."""

from datetime import datetime
from random import Random
from sqlite3 import Connection
from typing import Annotated, Any

from pydantic import Field

from hub.kit import Ctx, Limit, Offset, Query, Server, ToolError, insert_rows

SCHEMA = """
CREATE TABLE items (item_id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, shelf TEXT NOT NULL,
                    quantity INTEGER NOT NULL);
"""
KINDS = ("rice", "lentils", "oats", "pasta", "flour", "sugar", "tea", "coffee", "beans", "honey", "salt", "cocoa")
STYLES = ("brown", "white", "red", "organic", "whole", "fine", "dark", "green", "black", "wild", "smoked")
SHELVES = ("top shelf", "middle shelf", "bottom shelf", "door rack")


def seed(db: Connection, rng: Random, now: datetime) -> None:
    names = [f"{style} {kind}" for kind in KINDS for style in STYLES]
    rows = [(f"ITM-{n:04d}", name, rng.choice(SHELVES), rng.randint(2, 12)) for n, name in enumerate(names, 1)]
    insert_rows(db, "items", rows)


pantry = Server("pantry", "A kitchen pantry: items, shelves and what is left of each.", SCHEMA, seed)
ITEM = pantry.entity("item", table="items", key="item_id", example="ITM-0001", finder="search_items")
ItemId = Annotated[str, ITEM]


@pantry.read(returns=("item",))
def search_items(
    ctx: Ctx,
    query: Annotated[str, Field(min_length=1, max_length=40, description="Words of its name, e.g. 'rice'")],
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """Find pantry items whose name contains the words, e.g. search_items('brown rice'). Ids look like 'ITM-0001'."""
    q = Query("SELECT item_id, name, shelf, quantity FROM items").contains(query, "name")
    return q.page(ctx.db, "items", order_by="item_id", limit=limit, offset=offset)


@pantry.write(returns=("item",))
def use_item(
    ctx: Ctx, item_id: ItemId, quantity: Annotated[int, Field(ge=1, le=50, description="How many, e.g. 2")]
) -> dict[str, Any]:
    """Take some of an item off its shelf, e.g. use_item('ITM-0001', 2). Fails when fewer are left."""
    item = ITEM.get(ctx, item_id)
    if item["quantity"] < quantity:
        raise ToolError(f"Only {item['quantity']} of {item['name']} left; use at most that many.")
    ctx.db.execute("UPDATE items SET quantity = quantity - ? WHERE item_id = ?", (quantity, item_id))
    return {"item_id": item_id, "name": item["name"], "quantity": item["quantity"] - quantity}
''',
    "intents.py": '''
"""What a cook wants of the pantry: to mark what they used."""

from hub.kit.intent import Ref, Scene, Skip
from pantry_server.tools import pantry


@pantry.intent(covers=("search_items", "use_item"))
def used_some(s: Scene) -> None:
    """A cook took some of an item and wants the pantry to show it."""
    item = s.pick("SELECT * FROM items WHERE quantity >= 2")
    n = s.rng.randint(1, min(3, item["quantity"] - 1))
    by_name = Ref("the {n}", "SELECT item_id FROM items WHERE name = ?", item["name"])
    what = s.refer(item["item_id"], by_name, n=item["name"])
    used = s.given(n, str(n), "how many", "use_item", "quantity")
    s.say(
        "I cooked with {what}[ and took {used}], please mark it down.",
        "Could you note that {what} went into dinner[: {used} of them]?",
        "We finished some of {what}[, {used} to be exact]; keep the count right.",
        minimal=["Some of {what} is gone[: {used}]."],
        what=what,
        used=used,
    )
    found = s.call("search_items", query=item["name"])
    hit = [r for r in found["items"] if r["item_id"] == item["item_id"]]
    if not hit:
        raise Skip("the item is not on the first page")
    s.call("use_item", item_id=hit[0]["item_id"], quantity=n)
    s.say("How many are left now?", "What's left of it?", "And how much of it do we still have?")
    s.call("search_items", query=hit[0]["name"])
''',
}
ENTRY_POINTS = "[prove_hub.servers]\npantry = pantry_server:part\n"


@pytest.fixture(scope="module")
def pantry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The package written to a temporary folder with its distribution metadata, importable while the module runs."""
    root = tmp_path_factory.mktemp("site")
    package = root / "pantry_server"
    package.mkdir()
    for name, text in PACKAGE.items():
        (package / name).write_text(text.lstrip())
    info = root / "pantry_server-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: pantry-server\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(root))
        importlib.invalidate_caches()
        yield importlib.import_module("pantry_server").server
    for name in [m for m in sys.modules if m.split(".")[0] == "pantry_server"]:
        del sys.modules[name]


@pytest.fixture(scope="module")
def library(pantry: Server) -> Library:
    return Library.from_servers([pantry], REFERENCE_NOW)


def test_the_package_reaches_the_hub_through_its_part(pantry: Server, tmp_path: Path) -> None:
    assert [p.name for p in discover(SERVERS_GROUP)] == ["pantry", "servers"]
    assert [s.name for s in registered_servers()] == ["pantry", *(s.name for s in REGISTRY)]  # parts by name
    hub_library = default_library(Settings(store_path=str(tmp_path / "s.db")))
    assert list(hub_library.mounts) == ["pantry", *(s.name for s in REGISTRY)]
    assert sorted(hub_library.mount("pantry").tools) == ["search_items", "use_item"]


def test_declarations(library: Library, pantry: Server) -> None:
    for tool in library.mount("pantry").tools.values():
        checks.tool_declarations(library, tool)
    checks.intents_cover_all_tools(pantry)


def test_seed_and_docstring_examples(library: Library, pantry: Server) -> None:
    checks.seed_is_deterministic(library, pantry)
    checks.example_ids_exist_in_the_seed(library, pantry)
    assert docstring_examples(pantry), "the package's docstrings show example calls"
    checks.examples_run_as_written(library, pantry)


def test_any_arguments_give_result_or_clean_error(library: Library) -> None:
    seeds = checks.seed_values(library, "pantry")
    for tool in library.mount("pantry").tools.values():
        checks.any_arguments_give_result_or_clean_error(library, tool, seeds)


def test_intents_run_and_continue(library: Library, pantry: Server) -> None:
    live = checks.Live(library)
    checks.every_intent_runs_on_several_worlds(pantry, live)
    checks.every_follow_up_continues_some_dialogue(pantry, live)


def golden_lines(servers: set[str]) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in GOLDEN.read_text().splitlines()]
    return [r for r in rows if r["id"].rsplit("-", 1)[1] in servers]


def test_adding_it_moves_no_other_servers_golden_samples(pantry: Server) -> None:
    """Other servers' samples, drawn beside the new server (distractors included), are their golden lines."""
    others = [s for s in REGISTRY if s.name in ("payments", "team_chat")]
    tasks = sample_tasks(Library.from_servers([*others, pantry], REFERENCE_NOW))
    drawn = [json.loads(json.dumps(compact(t))) for t in tasks if not t.id.endswith("-pantry")]
    assert drawn == golden_lines({"payments", "team_chat"})
    assert any(t.id.endswith("-pantry") for t in tasks), "the new server's own samples are drawn too"
