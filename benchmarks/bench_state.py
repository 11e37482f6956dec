"""State benchmark: fork time, hash and diff cost, memory per session. Prints tables.

    .venv/bin/python benchmarks/bench_state.py

Fork: each server's ``SeedDatabase.fork()`` against the floor (a bare ``connect`` plus
``deserialize`` of the same bytes) and against ``copy.deepcopy`` of the same rows held as dicts.
Hash/diff: after 10 and 100 changed rows, against a full row-by-row hash of the same database.
"""

from __future__ import annotations

import copy
import random
import sqlite3
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import best  # noqa: E402

from hub.config import REFERENCE_NOW  # noqa: E402
from hub.state.db import SqliteFork, full_hash  # noqa: E402
from hub.state.library import Library, SqliteMount  # noqa: E402
from hub.state.sessions import SessionManager  # noqa: E402
from servers import REGISTRY  # noqa: E402


def floor(data: bytes) -> Callable[[], object]:
    def run() -> object:
        db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        db.deserialize(data)
        return db

    return run


def rows_as_dicts(db: sqlite3.Connection, tables: list[str]) -> dict[str, list[dict[str, object]]]:
    out = {}
    for t in tables:
        cur = db.execute(f"SELECT * FROM {t}")
        cols = [c[0] for c in cur.description]
        out[t] = [dict(zip(cols, r)) for r in cur]
    return out


def fork_table(library: Library) -> None:
    print("\n## Fork time per server (µs; ratio to the deserialize floor)\n")
    print(
        "| server | tools | tables | rows | size KiB | build ms | floor µs | fork µs | fork/floor "
        "| deepcopy µs | deepcopy/fork |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    ratios = []
    for name, mount in library.mounts.items():
        assert isinstance(mount, SqliteMount)
        sdb = mount.seed_db(0)
        f = best(floor(sdb.data))
        k = best(sdb.fork)
        rows = rows_as_dicts(sdb.db, list(sdb.tables))
        d = best(lambda: copy.deepcopy(rows), repeat=3, number=3)
        ratios.append(k / f)
        print(
            f"| {name} | {len(mount.tools)} | {len(sdb.tables)} | {sdb.row_count()} | {sdb.size / 1024:.0f} | "
            f"{sdb.build_seconds * 1000:.0f} | {f * 1e6:.1f} | {k * 1e6:.1f} | {k / f:.2f} | "
            f"{d * 1e6:.0f} | {d / k:.0f} |"
        )
    print(f"\nfork/floor: median {statistics.median(ratios):.2f}, worst {max(ratios):.2f} (goal ≤ 2)")


def change_rows(fork: SqliteFork, n: int, rng: random.Random) -> None:
    """Change ``n`` rows of the fork's largest table (one column each), through the triggers."""
    sdb = fork.seed_db
    table = max(sdb.tables, key=lambda t: fork.db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0])
    info = sdb.tables[table]
    col = next(c for i, c in enumerate(info.columns) if i not in info.pk)
    rowids = [r[0] for r in fork.db.execute(f"SELECT rowid FROM {table}")]
    for rowid in rng.sample(rowids, n):
        fork.db.execute(f"UPDATE {table} SET {col} = {col} || '' WHERE rowid = ?", (rowid,))
        fork.db.execute(f"UPDATE {table} SET {col} = 'changed-{rowid}' WHERE rowid = ?", (rowid,))


def hash_table(library: Library) -> None:
    print("\n## State hash and diff after N changed rows (ms) vs a full row-by-row hash\n")
    print("| server | DB KiB | changed | hash ms | diff ms | full hash ms | full/hash |")
    print("|---|---|---|---|---|---|---|")
    rng = random.Random(7)
    for name in ("banking", *(n for n in ("filesystem", "email", "shopping") if n in library.mounts)):
        mount = library.mounts[name]
        assert isinstance(mount, SqliteMount)
        sdb = mount.seed_db(0)
        for n in (10, 100):
            fork = sdb.fork()
            change_rows(fork, n, rng)

            def fresh_hash() -> object:
                fork._hash_cache = None
                return fork.state_hash()

            h = best(fresh_hash, repeat=5, number=20)
            d = best(fork.diff, repeat=5, number=10)
            full = best(lambda: full_hash(fork.db, sdb.tables), repeat=3, number=2)
            assert fork.state_hash() == fork.full_state_hash()
            print(
                f"| {name} | {sdb.size / 1024:.0f} | {n} | {h * 1000:.3f} | {d * 1000:.3f} | "
                f"{full * 1000:.1f} | {full / h:.0f} |"
            )


def rss_kib() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4


def memory_table(library: Library) -> None:
    print("\n## Memory per open session (KiB, RSS delta over 200 sessions)\n")
    print("| forked servers | KiB per session |")
    print("|---|---|")
    names = list(library.mounts)[:3]
    for k in (1, 3):
        sm = SessionManager(library)
        before = rss_kib()
        for i in range(200):
            s = sm.open(f"m{i}")
            for name in names[:k]:
                s.fork_of(name)
        print(f"| {k} ({', '.join(names[:k])}) | {(rss_kib() - before) / 200:.0f} |")
        del sm


def main() -> None:
    library = Library.from_servers(REGISTRY, REFERENCE_NOW)
    fork_table(library)
    hash_table(library)
    memory_table(library)


if __name__ == "__main__":
    main()
