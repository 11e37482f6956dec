"""SQLite forks: incremental hash equals the full hash, diffs, clones, atomic calls."""

from __future__ import annotations

import random
import sqlite3
from datetime import datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hub.config import REFERENCE_NOW
from hub.kit import Ctx, Server, ToolError
from hub.state.db import SeedDatabase
from hub.state.library import Library
from tests.conftest import World

SCHEMA = """
CREATE TABLE items (item_id TEXT PRIMARY KEY, qty INTEGER NOT NULL);
CREATE TABLE tags (item_id TEXT NOT NULL, tag TEXT NOT NULL, PRIMARY KEY (item_id, tag));
"""


def seed(db: sqlite3.Connection, rng: random.Random, now: datetime) -> None:
    db.executemany("INSERT INTO items VALUES (?, ?)", [(f"IT-{i:03d}", rng.randint(0, 9)) for i in range(200)])
    db.executemany("INSERT INTO tags VALUES (?, ?)", [(f"IT-{i:03d}", t) for i in range(50) for t in ("red", "big")])


toy = Server("toy", "A toy inventory for state tests.", SCHEMA, seed)


@toy.write()
def set_qty(ctx: Ctx, item_id: str, qty: int) -> dict[str, object]:
    """Set an item's quantity, e.g. set_qty('IT-001', 3)."""
    ctx.db.execute(
        "INSERT INTO items VALUES (?, ?) ON CONFLICT(item_id) DO UPDATE SET qty = excluded.qty", (item_id, qty)
    )
    return {"item_id": item_id, "qty": qty}


@toy.write()
def replace_item(ctx: Ctx, item_id: str, qty: int) -> dict[str, object]:
    """Replace an item row (INSERT OR REPLACE gives it a new rowid), e.g. replace_item('IT-001', 2)."""
    ctx.db.execute("INSERT OR REPLACE INTO items VALUES (?, ?)", (item_id, qty))
    return {"item_id": item_id, "qty": qty}


@toy.write()
def delete_item(ctx: Ctx, item_id: str) -> dict[str, object]:
    """Delete an item and its tags, e.g. delete_item('IT-001')."""
    ctx.db.execute("DELETE FROM tags WHERE item_id = ?", (item_id,))
    ctx.db.execute("DELETE FROM items WHERE item_id = ?", (item_id,))
    return {"deleted": item_id}


@toy.write()
def tag_item(ctx: Ctx, item_id: str, tag: str) -> dict[str, object]:
    """Tag an item, e.g. tag_item('IT-001', 'red')."""
    ctx.db.execute("INSERT OR IGNORE INTO tags VALUES (?, ?)", (item_id, tag))
    return {"item_id": item_id, "tag": tag}


@toy.write()
def write_then_fail(ctx: Ctx, item_id: str) -> dict[str, object]:
    """Write, then fail: must leave no change, e.g. write_then_fail('IT-001')."""
    ctx.db.execute("UPDATE items SET qty = qty + 100 WHERE item_id = ?", (item_id,))
    ctx.db.execute("INSERT INTO items VALUES ('IT-NEW', 1)")
    raise ToolError("refused after writing")


@toy.write()
def crash(ctx: Ctx, item_id: str) -> dict[str, object]:
    """A broken tool that raises a non-domain error, e.g. crash('IT-001')."""
    ctx.db.execute("DELETE FROM items WHERE item_id = ?", (item_id,))
    raise KeyError("bug")


LIB = Library.from_servers([toy], REFERENCE_NOW)
ITEM = st.sampled_from([f"IT-{i:03d}" for i in range(0, 210, 7)])
OPS = st.lists(
    st.one_of(
        st.tuples(st.just("set_qty"), st.fixed_dictionaries({"item_id": ITEM, "qty": st.integers(0, 9)})),
        st.tuples(st.just("replace_item"), st.fixed_dictionaries({"item_id": ITEM, "qty": st.integers(0, 9)})),
        st.tuples(st.just("delete_item"), st.fixed_dictionaries({"item_id": ITEM})),
        st.tuples(
            st.just("tag_item"), st.fixed_dictionaries({"item_id": ITEM, "tag": st.sampled_from(["red", "big", "new"])})
        ),
    ),
    max_size=25,
)


def world() -> World:
    return World(LIB, "s")


@settings(max_examples=60, deadline=None)
@given(OPS)
def test_incremental_hash_equals_full_hash(ops: list[tuple[str, dict[str, object]]]) -> None:
    w = world()
    for tool, args in ops:
        w.ok("toy", tool, **args)
    fork = w.sessions.get("s").fork_of("toy")
    assert fork.state_hash() == fork.full_state_hash()


@settings(max_examples=40, deadline=None)
@given(OPS, st.randoms(use_true_random=False))
def test_equal_states_equal_hashes_whatever_the_order(
    ops: list[tuple[str, dict[str, object]]], rnd: random.Random
) -> None:
    """Commuting writes (distinct items, set-only) in any order reach one hash."""
    writes = list({args["item_id"]: (t, args) for t, args in ops if t == "set_qty"}.values())
    a, b = world(), world()
    for tool, args in writes:
        a.ok("toy", tool, **args)
    shuffled = writes[:]
    rnd.shuffle(shuffled)
    for tool, args in shuffled:
        b.ok("toy", tool, **args)
    assert a.hash("toy") == b.hash("toy")


def test_undo_returns_to_seed_hash() -> None:
    w = world()
    seed_hash = w.hash("toy")
    qty = w.sessions.get("s").fork_of("toy").db.execute("SELECT qty FROM items WHERE item_id='IT-005'").fetchone()[0]
    w.ok("toy", "set_qty", item_id="IT-005", qty=qty + 1)
    assert w.hash("toy") != seed_hash
    w.ok("toy", "set_qty", item_id="IT-005", qty=qty)
    assert w.hash("toy") == seed_hash
    assert w.sessions.get("s").fork_of("toy").diff() == {}


def test_failed_call_is_atomic() -> None:
    w = world()
    w.ok("toy", "set_qty", item_id="IT-001", qty=4)
    assert "refused" in w.err("toy", "write_then_fail", item_id="IT-001")
    out = w.call("toy", "crash", item_id="IT-001")
    assert out.error_kind == "internal" and "KeyError" in (out.error or "")
    fork = w.sessions.get("s").fork_of("toy")
    assert fork.db.execute("SELECT qty FROM items WHERE item_id='IT-001'").fetchone()[0] == 4
    assert fork.state_hash() == fork.full_state_hash()


def test_diff_reports_added_removed_changed_by_primary_key() -> None:
    w = world()
    w.ok("toy", "set_qty", item_id="IT-NEW", qty=1)
    w.ok("toy", "delete_item", item_id="IT-002")
    w.ok("toy", "tag_item", item_id="IT-010", tag="new")
    seed_qty = LIB.mount("toy").seed_db(0).db.execute("SELECT qty FROM items WHERE item_id='IT-003'").fetchone()[0]  # type: ignore[attr-defined]
    w.ok("toy", "set_qty", item_id="IT-003", qty=seed_qty + 1)
    diff = w.sessions.get("s").fork_of("toy").diff()
    assert diff["items"]["added"] == [{"item_id": "IT-NEW", "qty": 1}]
    assert [r["item_id"] for r in diff["items"]["removed"]] == ["IT-002"]
    assert diff["items"]["changed"] == [{"key": "IT-003", "changes": {"qty": [seed_qty, seed_qty + 1]}}]
    assert {tuple(r.values()) for r in diff["tags"]["removed"]} == {("IT-002", "red"), ("IT-002", "big")}
    assert diff["tags"]["added"] == [{"item_id": "IT-010", "tag": "new"}]


def test_diff_between_two_forks() -> None:
    w = world()
    w.ok("toy", "set_qty", item_id="IT-001", qty=7)
    parent = w.sessions.get("s")
    child = w.sessions.fork("s", "child")
    w.dispatcher.call("child", "toy", "set_qty", {"item_id": "IT-004", "qty": 8})
    diff = child.fork_of("toy").diff(parent.fork_of("toy"))
    assert list(diff) == ["items"] and diff["items"]["changed"][0]["key"] == "IT-004"


def test_without_rowid_tables_are_refused() -> None:
    bad = Server("bad", "bad", "CREATE TABLE t (a TEXT PRIMARY KEY) WITHOUT ROWID;", lambda db, rng, now: None)
    with pytest.raises(ValueError, match="WITHOUT ROWID"):
        SeedDatabase(bad, 0, REFERENCE_NOW)


def test_browse_pages_rows() -> None:
    fork = world().sessions.get("s").fork_of("toy")
    page = fork.browse("items", offset=10, limit=5)
    assert page["total"] == 200 and len(page["rows"]) == 5 and page["columns"] == ["item_id", "qty"]
    with pytest.raises(KeyError):
        fork.browse("nope")


def test_next_id_reads_the_index_and_survives_width_overflow() -> None:
    from hub.kit import next_id

    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE t (id TEXT PRIMARY KEY)")
    assert next_id(db, "t", "id", "TXN", 2) == "TXN-01"
    db.executemany("INSERT INTO t VALUES (?)", [(f"TXN-{i:02d}",) for i in range(1, 100)] + [("TXQ-99",), ("TX-5",)])
    assert next_id(db, "t", "id", "TXN", 2) == "TXN-100"
    db.execute("INSERT INTO t VALUES ('TXN-100')")
    assert next_id(db, "t", "id", "TXN", 2) == "TXN-101"
    plan = " ".join(
        str(r)
        for r in db.execute(
            "EXPLAIN QUERY PLAN SELECT id FROM t WHERE id >= 'TXN-' AND id < 'TXN.' ORDER BY id DESC LIMIT 1"
        )
    )
    assert "USING COVERING INDEX" in plan or "USING INDEX" in plan
