"""SQLite state: seed databases kept as bytes, forks by ``deserialize``, hash and diff.

The state hash is content-addressed and order-independent: the sum (mod 2**128) of
one hash per row, rowids and page layout left out. Triggers record the rowids each
write touches in ``_hub_dirty``, so a fork's hash is the seed's hash with the dirty
rows' seed hashes taken out and their current hashes put in: its cost grows with
what changed, not with the database.
"""

from __future__ import annotations

import hashlib
import json
import random
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from hub.errors import BadRequest, UnknownTable
from hub.kit import Ctx, Json, Server, Tool

MOD = 1 << 128
DIRTY = "_hub_dirty"


def row_hash(table: str, row: Iterable[Any]) -> int:
    data = repr((table, *row)).encode()
    return int.from_bytes(hashlib.blake2b(data, digest_size=16).digest(), "big")


def hex128(value: int) -> str:
    return f"{value % MOD:032x}"


def combine(hashes: dict[str, str]) -> str:
    """One hash for several servers' states."""
    text = ";".join(f"{k}={v}" for k, v in sorted(hashes.items()))
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


# What an in-memory SQLite connection costs beyond its pages (schema, page cache, statements), as
# benchmarks/bench_memory.py measures it: with it, the budget tracks the process RSS within ~2%.
CONNECTION_BYTES = 160 * 1024


class Fork(Protocol):
    """The state of one server inside one session; SQLite forks and mounted objects both fit."""

    @property
    def server(self) -> str: ...
    @property
    def changes(self) -> int: ...

    def call(self, tool: Tool, kwargs: dict[str, Any]) -> Json: ...
    def state_hash(self) -> str: ...
    def diff(self, other: Fork | None = None) -> dict[str, Any]: ...
    def clone(self) -> Fork: ...
    def dump(self) -> bytes: ...
    @property
    def held_bytes(self) -> int: ...
    def tables(self) -> list[str]: ...
    def browse(self, table: str, offset: int = 0, limit: int = 50) -> dict[str, Any]: ...


@dataclass
class TableInfo:
    name: str
    columns: list[str]
    pk: list[int]

    def key(self, row: tuple[Any, ...]) -> Any:
        if not self.pk:
            return row
        if len(self.pk) == 1:
            return row[self.pk[0]]
        return tuple(row[i] for i in self.pk)


def _table_infos(db: sqlite3.Connection) -> dict[str, TableInfo]:
    names = [
        r[0]
        for r in db.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' "
            "AND name != ? ORDER BY name",
            (DIRTY,),
        )
    ]
    infos = {}
    for name in names:
        cols = db.execute(f"PRAGMA table_info({name})").fetchall()
        pk = [i for _, i in sorted((c[5], n) for n, c in enumerate(cols) if c[5])]
        infos[name] = TableInfo(name, [c[1] for c in cols], pk)
    return infos


def _install_triggers(db: sqlite3.Connection, tables: Iterable[str]) -> None:
    db.execute(f"CREATE TABLE {DIRTY}(tbl TEXT NOT NULL, k INTEGER NOT NULL, PRIMARY KEY (tbl, k)) WITHOUT ROWID")
    for t in tables:
        # No OR IGNORE: an outer statement's conflict clause (an upsert) would override it.
        mark = (
            f"INSERT INTO {DIRTY} SELECT '{t}', %(r)s.rowid "
            f"WHERE NOT EXISTS (SELECT 1 FROM {DIRTY} WHERE tbl = '{t}' AND k = %(r)s.rowid);"
        )
        db.executescript(
            f"CREATE TRIGGER _hub_{t}_i AFTER INSERT ON {t} BEGIN {mark % {'r': 'NEW'}} END;"
            f"CREATE TRIGGER _hub_{t}_u AFTER UPDATE ON {t} BEGIN {mark % {'r': 'OLD'}} {mark % {'r': 'NEW'}} END;"
            f"CREATE TRIGGER _hub_{t}_d AFTER DELETE ON {t} BEGIN {mark % {'r': 'OLD'}} END;"
        )


def full_hash(db: sqlite3.Connection, tables: dict[str, TableInfo]) -> int:
    """The row-by-row hash of a whole database: the reference the incremental hash must equal."""
    acc = 0
    for t in tables:
        for row in db.execute(f"SELECT * FROM {t}"):
            acc += row_hash(t, row)
    return acc % MOD


def connect_bytes(data: bytes) -> sqlite3.Connection:
    db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    db.deserialize(data)
    # REPLACE deletes the old row without firing delete triggers unless this is on.
    db.execute("PRAGMA recursive_triggers = ON")
    return db


class SeedDatabase:
    """A server's database right after ``seed(rng)``: bytes to fork from, and its row hashes."""

    def __init__(self, server: Server, seed: int, now: datetime) -> None:
        start = time.perf_counter()
        db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        db.executescript(server.schema)
        db.execute("BEGIN")
        server.seed(db, random.Random(f"{server.name}:{seed}"), now)
        db.execute("COMMIT")
        self.tables = _table_infos(db)
        for info in self.tables.values():
            if db.execute("SELECT 1 FROM pragma_table_list WHERE name=? AND wr", (info.name,)).fetchone():
                raise ValueError(f"{server.name}.{info.name}: WITHOUT ROWID tables are not supported")
        _install_triggers(db, self.tables)
        db.execute("VACUUM")
        self.server = server
        self.seed = seed
        self.now = now
        self.data = db.serialize()
        self.db = db
        self.page_size = int(db.execute("PRAGMA page_size").fetchone()[0])
        # Per table, rowid -> row hash: dicts of ints only, which the garbage collector never walks.
        self.row_hashes: dict[str, dict[int, int]] = {
            t: {rowid: row_hash(t, row) for rowid, *row in db.execute(f"SELECT rowid, * FROM {t}")} for t in self.tables
        }
        self.hash_int = sum(sum(h.values()) for h in self.row_hashes.values()) % MOD
        self.build_seconds = time.perf_counter() - start

    @property
    def size(self) -> int:
        return len(self.data)

    def same_as(self, other: SeedDatabase) -> bool:
        """The same server and seed (a bounded cache may have rebuilt it: the content is the same)."""
        return other is self or (other.server.name == self.server.name and other.seed == self.seed)

    def row_count(self) -> int:
        return sum(len(h) for h in self.row_hashes.values())

    def fork(self) -> SqliteFork:
        return SqliteFork(self, connect_bytes(self.data))


@dataclass
class SqliteFork:
    """One server's live state in one session: an in-memory SQLite connection."""

    seed_db: SeedDatabase
    db: sqlite3.Connection
    _hash_cache: tuple[int, int] | None = field(default=None, repr=False)
    _dump_cache: tuple[int, bytes] | None = field(default=None, repr=False)

    @property
    def server(self) -> str:
        return self.seed_db.server.name

    @property
    def changes(self) -> int:
        return self.db.total_changes

    @property
    def nbytes(self) -> int:
        """The bytes this fork's database holds (its pages)."""
        pages = self.db.execute("PRAGMA page_count").fetchone()[0]
        return int(pages) * self.seed_db.page_size

    @property
    def held_bytes(self) -> int:
        """What the memory budget charges this fork: its pages and its connection."""
        return self.nbytes + CONNECTION_BYTES

    def call(self, tool: Tool, kwargs: dict[str, Any]) -> Json:
        """Run a tool inside a savepoint: a tool that raises leaves no change.

        Read tools never change state (a registry-wide test holds every one to it), so they skip
        the savepoint's two statements."""
        db = self.db
        if tool.kind == "read":
            return tool.fn(Ctx(db, self.seed_db.now), **kwargs)
        db.execute("SAVEPOINT hub_call")
        try:
            result = tool.fn(Ctx(db, self.seed_db.now), **kwargs)
        except BaseException:
            db.execute("ROLLBACK TO hub_call")
            db.execute("RELEASE hub_call")
            raise
        db.execute("RELEASE hub_call")
        return result

    def dirty(self) -> dict[str, list[int]]:
        out: dict[str, list[int]] = {}
        for tbl, k in self.db.execute(f"SELECT tbl, k FROM {DIRTY}"):
            out.setdefault(tbl, []).append(k)
        return out

    def _rows_at(self, table: str, rowids: list[int]) -> dict[int, tuple[Any, ...]]:
        return rows_at(self.db, table, rowids)

    def state_hash_int(self) -> int:
        changes = self.db.total_changes
        if self._hash_cache and self._hash_cache[0] == changes:
            return self._hash_cache[1]
        acc = self.seed_db.hash_int
        for table, rowids in self.dirty().items():
            seed_hashes = self.seed_db.row_hashes[table]
            for rowid in rowids:
                acc -= seed_hashes.get(rowid, 0)
            for row in self._rows_at(table, rowids).values():
                acc += row_hash(table, row)
        value = acc % MOD
        self._hash_cache = (changes, value)
        return value

    def state_hash(self) -> str:
        return hex128(self.state_hash_int())

    def full_state_hash(self) -> str:
        return hex128(full_hash(self.db, self.seed_db.tables))

    def diff(self, other: Fork | None = None) -> dict[str, Any]:
        """Rows added, removed and changed per table, by primary key, from ``other`` (default: the seed)."""
        if other is not None and (not isinstance(other, SqliteFork) or not other.seed_db.same_as(self.seed_db)):
            raise ValueError("a diff needs two states of the same server and seed")
        base_db = self.seed_db.db if other is None else other.db
        mine, theirs = self.dirty(), ({} if other is None else other.dirty())
        out: dict[str, Any] = {}
        for table in sorted(set(mine) | set(theirs)):
            rowids = sorted(set(mine.get(table, [])) | set(theirs.get(table, [])))
            table_diff = _diff_rows(
                self.seed_db.tables[table], rows_at(base_db, table, rowids), self._rows_at(table, rowids)
            )
            if table_diff:
                out[table] = table_diff
        return out

    def clone(self) -> SqliteFork:
        return SqliteFork(self.seed_db, connect_bytes(self.dump()))

    def dump(self) -> bytes:
        """The serialized database; kept until the next write, so a GRPO group's template serializes once."""
        changes = self.db.total_changes
        if self._dump_cache is None or self._dump_cache[0] != changes:
            self._dump_cache = (changes, self.db.serialize())
        return self._dump_cache[1]

    def tables(self) -> list[str]:
        return list(self.seed_db.tables)

    def browse(self, table: str, offset: int = 0, limit: int = 50) -> dict[str, Any]:
        check_page(offset, limit)
        info = self.seed_db.tables.get(table)
        if info is None:
            raise UnknownTable(f"no table {table!r} in {self.server}; tables: {', '.join(self.seed_db.tables)}")
        total = self.db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
        cur = self.db.execute(f"SELECT * FROM {table} ORDER BY rowid LIMIT ? OFFSET ?", (limit, offset))
        return {
            "table": table,
            "columns": info.columns,
            "rows": [list(r) for r in cur],
            "total": total,
            "offset": offset,
            "limit": limit,
        }


MAX_PAGE = 500


def check_page(offset: int, limit: int) -> None:
    """A page of a state browser: SQLite reads LIMIT -1 as no limit at all, so bounds are checked here."""
    if not 1 <= limit <= MAX_PAGE:
        raise BadRequest(f"limit must be between 1 and {MAX_PAGE}, got {limit}")
    if offset < 0:
        raise BadRequest(f"offset must be 0 or more, got {offset}")


def rows_at(db: sqlite3.Connection, table: str, rowids: list[int]) -> dict[int, tuple[Any, ...]]:
    marks = ",".join("?" * len(rowids))
    return {r[0]: r[1:] for r in db.execute(f"SELECT rowid, * FROM {table} WHERE rowid IN ({marks})", rowids)}


def _diff_rows(
    info: TableInfo, before: dict[int, tuple[Any, ...]], after: dict[int, tuple[Any, ...]]
) -> dict[str, Any]:
    old = {info.key(r): r for r in before.values()}
    new = {info.key(r): r for r in after.values()}
    as_dict = lambda r: dict(zip(info.columns, r))  # noqa: E731
    added = [as_dict(new[k]) for k in new if k not in old]
    removed = [as_dict(old[k]) for k in old if k not in new]
    changed = []
    for k in new.keys() & old.keys():
        if new[k] != old[k]:
            cols = {c: [a, b] for c, a, b in zip(info.columns, old[k], new[k]) if a != b}
            changed.append({"key": _jsonable_key(k), "changes": cols})
    if not (added or removed or changed):
        return {}
    changed.sort(key=lambda c: json.dumps(c["key"], default=str))
    return {"added": added, "removed": removed, "changed": changed}


def _jsonable_key(k: Any) -> Any:
    return list(k) if isinstance(k, tuple) else k
