"""The kit's shared parts on a real SQLite database: entities, distinct values, list queries, seeds."""

from __future__ import annotations

import random
import sqlite3
from datetime import datetime
from typing import Annotated, Any

import pytest
from pydantic import Field

from hub.kit import ArgumentError, Ctx, IsoDate, Query, Server, ToolError, insert_rows, listing
from hub.kit.intent import IntentError, chosen

SCHEMA = """
CREATE TABLE shelves (shelf_id TEXT PRIMARY KEY, room TEXT NOT NULL);
CREATE TABLE books (book_id TEXT PRIMARY KEY, shelf_id TEXT NOT NULL, title TEXT NOT NULL, genre TEXT,
                    pages INTEGER NOT NULL);
"""
NOW = datetime(2026, 6, 1, 9, 0)
BOOKS = [
    ("BK-0001", "SH-01", "Dune", "scifi", 412),
    ("BK-0002", "SH-01", "Emma", "classic", 474),
    ("BK-0003", "SH-02", "Dracula", "classic", 418),
    ("BK-0004", "SH-02", "Notes", None, 90),
    ("BK-0005", "SH-02", "Solaris", "scifi", 204),
    ("BK-0006", "SH-01", "Ubik", "scifi", 202),
]


def seed(db: sqlite3.Connection, rng: random.Random, now: datetime) -> None:
    insert_rows(db, "shelves", [("SH-01", "study"), ("SH-02", "hall")])
    insert_rows(db, "books", BOOKS)
    insert_rows(db, "books", [BOOKS[0]], or_ignore=True)
    insert_rows(db, "books", [])


library = Server("library", "Books on shelves.", SCHEMA, seed)
BOOK = library.entity("book", table="books", key="book_id", example="BK-0003", finder="list_books")
SHELF = library.entity(
    "shelf", table="shelves", key="shelf_id", example="SH-01", max_length=8, hint="get_book shows a book's shelf."
)


@library.read(returns=("book",))
def get_book(ctx: Ctx, book_id: Annotated[str, BOOK]) -> dict[str, Any]:
    """One book, e.g. get_book('BK-0003')."""
    return BOOK.get(ctx, book_id)


@library.read(returns=("book",))
def list_books(
    ctx: Ctx,
    shelf_id: Annotated[str | None, SHELF.ref("Only this shelf, e.g. 'SH-01'")] = None,
    added_since: Annotated[IsoDate | None, Field(description="Unused here, e.g. '2026-05-01'")] = None,
) -> dict[str, Any]:
    """Books by shelf, e.g. list_books(shelf_id='SH-01')."""
    return Query("SELECT book_id FROM books").equal("shelf_id", shelf_id).page(ctx.db, "books", order_by="book_id")


library.distinct_values(
    {"genre": ("books", "genre"), "pages": ("books", "pages"), "room": ("shelves", "room")}, example="room"
)


@pytest.fixture
def ctx() -> Ctx:
    db = sqlite3.connect(":memory:")
    db.executescript(SCHEMA)
    seed(db, random.Random(0), NOW)
    return Ctx(db, NOW)


def test_entity_declares_the_id_parameter() -> None:
    props = library.tools["get_book"].input_schema["properties"]
    assert props["book_id"] == {"description": "Book id, e.g. 'BK-0003'", "type": "string", "x-entity": "book"}
    assert library.tools["get_book"].params == {"book_id": "book"}
    shelf = library.tools["list_books"].input_schema["properties"]["shelf_id"]
    assert shelf["description"] == "Only this shelf, e.g. 'SH-01'" and shelf["x-entity"] == "shelf"
    assert shelf["anyOf"][0] == {"maxLength": 8, "type": "string"}
    assert library.entities == {"book": BOOK, "shelf": SHELF}
    with pytest.raises(ArgumentError, match="shelf_id"):
        library.tools["list_books"].validate({"shelf_id": "SH-0123456789"})


def test_entity_alias_nested_in_another_type_is_refused() -> None:
    other = Server("other", "x", SCHEMA, seed)

    def get_books(ctx: Ctx, book_ids: list[Annotated[str, BOOK]]) -> dict[str, Any]:
        """Books, e.g. get_books(['BK-0001'])."""
        return {}

    def find_book(ctx: Ctx, book_id: Annotated[str, BOOK] | None = None) -> dict[str, Any]:
        """A book, e.g. find_book('BK-0001')."""
        return {}

    for fn in (get_books, find_book):
        with pytest.raises(TypeError, match="entity inside another type"):
            other.read()(fn)


def test_entity_lookup_and_not_found_message(ctx: Ctx) -> None:
    assert BOOK.get(ctx, "BK-0003")["title"] == "Dracula"
    assert BOOK.exists(ctx, "BK-0003") and not BOOK.exists(ctx, "BK-9999")
    with pytest.raises(ToolError, match=r"^No book 'BK-9999'\. Use list_books to find book ids\.$"):
        BOOK.get(ctx, "BK-9999")
    with pytest.raises(ToolError, match=r"^No shelf 'SH-09'\. get_book shows a book's shelf\.$"):
        SHELF.get(ctx, "SH-09")


def test_entity_rejects_unsafe_names_and_repeats() -> None:
    other = Server("other", "x", SCHEMA, seed)
    with pytest.raises(ValueError, match="identifier"):
        other.entity("book", table="books; DROP TABLE books", key="book_id", example="BK-1")
    other.entity("book", table="books", key="book_id", example="BK-1")
    with pytest.raises(ValueError, match="twice"):
        other.entity("book", table="books", key="book_id", example="BK-1")
    with pytest.raises(ValueError, match="identifier"):
        other.distinct_values({"genre": ("books", "genre)")})


def test_distinct_values_tool(ctx: Ctx) -> None:
    tool = library.tools["get_distinct_values"]
    assert tool.kind == "read"
    assert tool.description == "The distinct values of a field with their counts, e.g. get_distinct_values('room')."
    assert tool.input_schema["properties"]["field"]["enum"] == ["genre", "pages", "room"]
    assert tool.fn(ctx, "genre") == {"field": "genre", "values": {None: 1, "classic": 2, "scifi": 3}}
    assert tool.fn(ctx, "pages")["values"]["412"] == 1
    with pytest.raises(ArgumentError, match="field"):
        tool.validate({"field": "author"})


def test_distinct_values_top_and_skip_null(ctx: Ctx) -> None:
    other = Server("other", "x", SCHEMA, seed)
    tool = other.distinct_values({"genre": ("books", "genre")}, top=1, skip_null=True, doc="Genres, e.g. 'scifi'.")
    assert tool.description == "Genres, e.g. 'scifi'."
    assert tool.fn(ctx, "genre")["values"] == {"scifi": 3}


def test_query_filters_compose(ctx: Ctx) -> None:
    q = Query("SELECT book_id FROM books").equal("shelf_id", "SH-02").equal("genre", None).filter("pages >= ?", 200)
    assert q.sql("book_id", 10, 0) == (
        "SELECT book_id FROM books WHERE shelf_id = ? AND pages >= ? ORDER BY book_id LIMIT ? OFFSET ?",
        ["SH-02", 200, 10, 0],
    )
    assert [r["book_id"] for r in q.rows(ctx.db, "book_id")] == ["BK-0003", "BK-0005"]
    assert q.count(ctx.db) == 2
    assert q.page(ctx.db, "books", order_by="book_id", limit=1, offset=1) == {
        "books": [{"book_id": "BK-0005"}],
        "count": 1,
    }


def test_query_contains_and_flag(ctx: Ctx) -> None:
    def ids(q: Query) -> list[str]:
        return [r["book_id"] for r in q.rows(ctx.db, "book_id")]

    assert ids(Query("SELECT book_id FROM books").contains("", "title")) == [b[0] for b in BOOKS]
    assert ids(Query("SELECT book_id FROM books").contains("ub", "title", "genre")) == ["BK-0006"]
    assert len(ids(Query("SELECT book_id FROM books").contains("%", "title"))) == 6  # a LIKE pattern, as before
    scifi = "genre = ?"
    assert ids(Query("SELECT book_id FROM books").flag(True, scifi, "scifi")) == ["BK-0001", "BK-0005", "BK-0006"]
    assert ids(Query("SELECT book_id FROM books").flag(False, scifi, "scifi")) == ["BK-0002", "BK-0003"]
    assert len(ids(Query("SELECT book_id FROM books").flag(None, scifi, "scifi"))) == 6
    grouped = Query("SELECT shelf_id, COUNT(*) AS n FROM books").rows(ctx.db, "shelf_id", group_by="shelf_id")
    assert grouped == [{"shelf_id": "SH-01", "n": 3}, {"shelf_id": "SH-02", "n": 3}]


def test_listing_and_insert_rows(ctx: Ctx) -> None:
    assert listing("books", [{"a": 1}]) == {"books": [{"a": 1}], "count": 1}
    assert ctx.db.execute("SELECT COUNT(*) FROM books").fetchone()[0] == len(BOOKS)
    with pytest.raises(sqlite3.IntegrityError):
        insert_rows(ctx.db, "books", [BOOKS[0]])


def test_a_phrasing_choice_draws_one_word_per_turn_and_keeps_slots() -> None:
    phrasing = "{Show me|Pull up|} the order {id}{| again}."
    drawn = {chosen(phrasing, random.Random(seed)) for seed in range(60)}
    assert {p.replace("  ", " ").strip() for p in drawn} >= {"Show me the order {id}.", "Pull up the order {id} again."}
    assert all("|" not in p and "{id}" in p for p in drawn)
    assert len(drawn) == 6
    assert chosen("No choice in {id} [at {when}].", random.Random(0)) == "No choice in {id} [at {when}]."
    assert {chosen("Fix {it}{ ({why})|}.", random.Random(k)) for k in range(20)} == {"Fix {it}.", "Fix {it} ({why})."}
    with pytest.raises(IntentError, match="not closed"):
        chosen("{Show me|Pull up the order.", random.Random(0))


def test_follow_up_row_registers_an_intent_and_its_skip_propagates() -> None:
    from typing import cast

    from hub.kit.follow import FollowUp, follow_ups
    from hub.kit.intent import Scene, Skip
    from servers.crm.tools import crm

    def nothing(s: Scene) -> dict[str, Any]:
        raise Skip("no deal in the dialogue")

    row = FollowUp("kit_probe", "The rep asks about the deal.", nothing, "get_deal", lambda d: d, ("Show it.",), 0.7)
    (intent,) = follow_ups(crm, [row])
    try:
        assert (intent.name, intent.covers, intent.weight, intent.description) == (
            "kit_probe",
            ("get_deal",),
            0.7,
            "The rep asks about the deal.",
        )
        assert intent.follows and not intent.opens and intent.fn.__name__ == "kit_probe"
        with pytest.raises(Skip, match="no deal"):
            intent.fn(cast(Scene, object()))
    finally:
        crm.intents.remove(intent)
