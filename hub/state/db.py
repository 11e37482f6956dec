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
import threading
import time
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from hub.errors import BadRequest, CapacityError, UnknownTable
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


class Account(Protocol):
    """What a write asks of its session's memory budget: bytes set aside to grow by (``reserve``; None: no
    limit), and whether it may keep what it grew (``admit``, which settles the reservation, raises
    CapacityError to refuse; the write is then rolled back). ``release`` gives back a reservation unused."""

    def reserve(self, *, whole: bool = False) -> int | None: ...
    def admit(self, nbytes: int) -> None: ...
    def release(self) -> None: ...


class Fork(Protocol):
    """The state of one server inside one session; SQLite forks and mounted objects both fit."""

    @property
    def server(self) -> str: ...
    @property
    def changes(self) -> int: ...

    def call(self, tool: Tool, kwargs: dict[str, Any], account: Account | None = None) -> Json: ...
    def state_hash(self) -> str: ...
    def base_hash(self) -> str: ...
    def diff(self, other: Fork | None = None) -> dict[str, Any]: ...
    def clone(self) -> Fork: ...
    def clones(self, n: int) -> Sequence[Fork]: ...
    def dump(self) -> bytes: ...
    @property
    def held_bytes(self) -> int: ...
    def tables(self) -> list[str]: ...
    def browse(self, table: str, offset: int = 0, limit: int = 50) -> dict[str, Any]: ...
    def close(self) -> None: ...


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


class RowHashes:
    """One seed table's row hashes by rowid: 16 bytes a row in one buffer where the rowids are dense (a
    seed's are), a dict where they are not. A dict of ints costs about 150 bytes a row."""

    __slots__ = ("_base", "_buf", "_dict", "_len", "total")

    def __init__(self, pairs: Iterable[tuple[int, int]]) -> None:
        items = list(pairs)
        self._len = len(items)
        self.total = sum(h for _, h in items)
        self._dict: dict[int, int] | None = None
        self._buf = b""
        self._base = 0
        if not items:
            return
        lo, hi = min(r for r, _ in items), max(r for r, _ in items)
        if hi - lo + 1 > 2 * len(items) + 64:
            self._dict = dict(items)
            return
        buf = bytearray(16 * (hi - lo + 1))
        for rowid, h in items:
            at = 16 * (rowid - lo)
            buf[at : at + 16] = h.to_bytes(16, "big")  # a missing rowid reads 0, the default
        self._buf, self._base = bytes(buf), lo

    def __len__(self) -> int:
        return self._len

    def get(self, rowid: int, default: int = 0) -> int:
        if self._dict is not None:
            return self._dict.get(rowid, default)
        at = 16 * (rowid - self._base)
        if at < 0 or at >= len(self._buf):
            return default
        return int.from_bytes(self._buf[at : at + 16], "big") or default

    @property
    def nbytes(self) -> int:
        return len(self._buf) if self._dict is None else 150 * len(self._dict)


class SeedLedger:
    """The bytes every live seed database of a library holds (cached or kept alive by forks): the memory
    budget counts them with the sessions' own bytes. Thread-safe: seeds are built in worker threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.bytes = 0
        self.count = 0

    def add(self, nbytes: int, count: int = 0) -> None:
        with self._lock:
            self.bytes += nbytes
            self.count += count


def _retire(ledger: SeedLedger, state: list[Any]) -> None:
    """A seed database is gone: its connection (if it was opened) closes now, not when the GC finds it."""
    nbytes, db = state
    if db is not None:
        db.close()
    ledger.add(-nbytes, -1)


class SeedDatabase:
    """A server's database right after ``seed(rng)``: bytes to fork from, and its row hashes.

    Its own connection (to read the seed's rows for diffs and the synthesizer) opens on first use. The
    bytes it holds are counted in ``ledger`` from creation until it is garbage (the cache dropped it
    and no fork holds it); ``users`` counts the open forks that hold it."""

    def __init__(self, server: Server, seed: int, now: datetime, ledger: SeedLedger | None = None) -> None:
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
        self.page_size = int(db.execute("PRAGMA page_size").fetchone()[0])
        self.row_hashes: dict[str, RowHashes] = {
            t: RowHashes((rowid, row_hash(t, row)) for rowid, *row in db.execute(f"SELECT rowid, * FROM {t}"))
            for t in self.tables
        }
        db.close()
        self.hash_int = sum(h.total for h in self.row_hashes.values()) % MOD
        self.users = 0  # open forks of this seed
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self.ledger = ledger or SeedLedger()
        self._state: list[Any] = [self.size + sum(h.nbytes for h in self.row_hashes.values()), None]
        self.ledger.add(self._state[0], 1)
        weakref.finalize(self, _retire, self.ledger, self._state)
        self.build_seconds = time.perf_counter() - start

    @property
    def size(self) -> int:
        return len(self.data)

    @property
    def held_bytes(self) -> int:
        """What this seed holds: its bytes, its row hashes and, once opened, its connection."""
        return int(self._state[0])

    @property
    def db(self) -> sqlite3.Connection:
        """A connection to the seed itself (read it, never write it), opened on first use."""
        if self._db is None:
            with self._lock:
                if self._db is None:
                    self._db = connect_bytes(self.data)
                    extra = self.size + CONNECTION_BYTES
                    self._state[0] += extra
                    self._state[1] = self._db
                    self.ledger.add(extra)
        return self._db

    def same_as(self, other: SeedDatabase) -> bool:
        """The same server and seed (a bounded cache may have rebuilt it: the content is the same)."""
        return other is self or (other.server.name == self.server.name and other.seed == self.seed)

    def row_count(self) -> int:
        return sum(len(h) for h in self.row_hashes.values())

    def hold(self, n: int) -> None:
        with self._lock:
            self.users += n

    def fork(self) -> SqliteFork:
        return SqliteFork(self, connect_bytes(self.data), pages=self.size // self.page_size)


class TooSlow(Exception):
    """A call given a time limit overran it; it was interrupted and rolled back, and may run again."""


# SQLite calls a progress handler every this many virtual machine steps (some tens of microseconds).
PROGRESS_STEPS = 20_000
FULL = "database or disk is full"


class _Full(Exception):
    """A write grew past the bytes it had reserved (rolled back: it runs again with more)."""


MAX_PAGES = 4294967294  # SQLite's own bound on max_page_count


@dataclass(eq=False)
class SqliteFork:
    """One server's live state in one session: an in-memory SQLite connection."""

    seed_db: SeedDatabase
    db: sqlite3.Connection
    pages: int = -1  # the database's size in pages, as last measured (-1: measure now)
    _measured: int = field(default=0, repr=False)  # total_changes when ``pages`` was measured
    _hash_cache: tuple[int, int] | None = field(default=None, repr=False)
    closed: bool = field(default=False, repr=False)
    _capped: bool = field(default=False, repr=False)  # max_page_count is set below SQLite's own limit
    _reading: threading.Lock = field(default_factory=threading.Lock, repr=False)  # diffs by other sessions vs close

    def __post_init__(self) -> None:
        self.seed_db.hold(1)
        if self.pages < 0:
            self.pages = int(self.db.execute("PRAGMA page_count").fetchone()[0])
        self._measured = self.db.total_changes

    @property
    def server(self) -> str:
        return self.seed_db.server.name

    @property
    def now(self) -> datetime:
        """The reference "now" of the world this fork came from: what its tools see."""
        return self.seed_db.now

    @property
    def changes(self) -> int:
        return self.db.total_changes

    @property
    def nbytes(self) -> int:
        """The bytes this fork's database holds (its pages), measured again only after a change."""
        if self.db.total_changes != self._measured:
            self.pages = int(self.db.execute("PRAGMA page_count").fetchone()[0])
            self._measured = self.db.total_changes
        return self.pages * self.seed_db.page_size

    @property
    def held_bytes(self) -> int:
        """What the memory budget charges this fork: its pages and its connection."""
        return self.nbytes + CONNECTION_BYTES

    def call(self, tool: Tool, kwargs: dict[str, Any], account: Account | None = None) -> Json:
        """Run a tool inside a savepoint: a tool that raises leaves no change.

        Read tools never change state (a registry-wide test holds every one to it), so they skip
        the savepoint's two statements. A write may grow the database only as far as ``account`` has
        room for (SQLite's ``max_page_count``, so the pages are never even allocated), and keeps what it
        grew only if ``account`` admits it: else it is rolled back and CapacityError raised."""
        if tool.kind == "read":
            return tool.fn(Ctx(self.db, self.seed_db.now), **kwargs)
        if account is None:
            return self._write(tool, kwargs, None, None)
        try:
            try:
                return self._write(tool, kwargs, account, account.reserve())
            except _Full:  # it needs more than its share: once more, with everything free
                return self._write(tool, kwargs, account, account.reserve(whole=True), last=True)
        finally:
            account.release()

    def _write(
        self, tool: Tool, kwargs: dict[str, Any], account: Account | None, room: int | None, *, last: bool = False
    ) -> Json:
        """One try of a write, grown at most ``room`` bytes: _Full when that was too little (rolled back, and
        retried by ``call``), CapacityError on the ``last`` try."""
        db = self.db
        if room is not None or self._capped:
            cap = MAX_PAGES if room is None else self.pages + room // self.seed_db.page_size
            db.execute(f"PRAGMA max_page_count = {cap}")
            self._capped = room is not None
        before = db.total_changes
        db.execute("SAVEPOINT hub_call")
        try:
            result = tool.fn(Ctx(db, self.seed_db.now), **kwargs)
            if account is not None and db.total_changes != before:
                account.admit(self.held_bytes)
        except BaseException as exc:
            db.set_progress_handler(None, 0)  # an interrupted call's rollback must not be interrupted
            db.execute("ROLLBACK TO hub_call")
            db.execute("RELEASE hub_call")
            self._measured = -1
            if room is not None and (isinstance(exc, CapacityError) or FULL in str(exc)):
                if not last and not isinstance(exc, CapacityError):
                    raise _Full from None
                self._compact()
                if not isinstance(exc, CapacityError):
                    raise CapacityError(
                        f"state memory budget reached: this write to {self.server} needs more than the "
                        f"{room:,} bytes left; close sessions or raise HUB_MAX_STATE_BYTES"
                    ) from None
            raise
        db.execute("RELEASE hub_call")
        return result

    def call_within(self, tool: Tool, kwargs: dict[str, Any], account: Account | None, deadline: float) -> Json:
        """``call``, interrupted once the thread's CPU time (``time.thread_time``) passes ``deadline``: rolled
        back, and TooSlow raised. CPU time, so that a call the machine merely preempted is not mistaken for
        an expensive one."""
        clock = time.thread_time
        self.db.set_progress_handler(lambda: clock() > deadline, PROGRESS_STEPS)
        try:
            return self.call(tool, kwargs, account)
        except sqlite3.OperationalError as exc:
            if "interrupted" in str(exc) and clock() > deadline:
                raise TooSlow(f"{self.server}.{tool.name} ran past its time") from None
            raise
        finally:
            self.db.set_progress_handler(None, 0)

    def _compact(self) -> None:
        """A fresh connection on the same state: a refused write's pages, allocated and rolled back, are
        given back (SQLite never shrinks an in-memory database's buffer). The old connection is closed
        before the new one is made, so that at most two copies of the state are alive at once (the
        refusal happens near the budget: a third copy per refused write is what overshot it)."""
        with self._reading:
            data = self.db.serialize()
            self.db.close()
            self.db = connect_bytes(data)
            self.pages, self._measured = len(data) // self.seed_db.page_size, 0
            self._hash_cache = None
            self._capped = False

    def close(self) -> None:
        """Give the connection's memory back now (a connection is freed by the GC only, not on its last
        reference); the fork is unusable after."""
        with self._reading:
            if not self.closed:
                self.closed = True
                self.db.close()
                self.seed_db.hold(-1)

    def base_hash(self) -> str:
        return hex128(self.seed_db.hash_int)

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
        if other is None:
            return self._diff(None)
        with other._reading:  # ``other`` may be another session's fork, which its own lane may close meanwhile
            if other.closed:
                raise ValueError(f"the state of {self.server} to compare with was closed")
            return self._diff(other)

    def _diff(self, other: SqliteFork | None) -> dict[str, Any]:
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
        return self.clones(1)[0]

    def clones(self, n: int) -> list[SqliteFork]:
        """``n`` independent copies, from one serialisation (a GRPO group's template is read once)."""
        data = self.dump()
        state = self.state_hash_int()  # hashed once here, so that no copy runs a query to be hashed
        out: list[SqliteFork] = []
        try:
            for _ in range(n):
                copy = SqliteFork(self.seed_db, connect_bytes(data), pages=len(data) // self.seed_db.page_size)
                copy._hash_cache = (0, state)  # the same rows: the same hash
                out.append(copy)
        except BaseException:
            for fork in out:
                fork.close()
            raise
        return out

    def dump(self) -> bytes:
        return self.db.serialize()

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


def page_diff(diff: dict[str, Any], offset: int, limit: int) -> tuple[dict[str, Any], dict[str, dict[str, int]]]:
    """A page of a diff: per table, rows ``offset`` to ``offset + limit`` of each kind (added, removed,
    changed), and each table's full counts."""
    check_page(offset, limit)
    page, counts = {}, {}
    for table, d in diff.items():
        counts[table] = {kind: len(d.get(kind, [])) for kind in ("added", "removed", "changed")}
        page[table] = {kind: d.get(kind, [])[offset : offset + limit] for kind in ("added", "removed", "changed")}
    return page, counts


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
