"""Memory benchmark: bytes per session by servers touched, and the process's RSS at the state budget.

    .venv/bin/python benchmarks/bench_memory.py [--budget 512M] [--sessions 40]

Table 1: for sessions touching the first k servers (registry order) and the k largest, the bytes the
budget accounts per session (SQLite pages) against the RSS each session really added.
Table 2: a GRPO group's forks (n=256 of a task's template): accounted and RSS bytes per episode.
Table 3: one more seed world (all servers seeded again): what the bounded seed cache holds per seed.
Table 4: sessions touching all 20 servers opened until the budget refuses one: how many fit, the
bytes accounted and the RSS at that point (the budget bounds RSS, up to the ratio shown).
"""

from __future__ import annotations

import argparse
import gc
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hub.config import REFERENCE_NOW, Settings, parse_size  # noqa: E402
from hub.core import Hub  # noqa: E402
from hub.errors import CapacityError  # noqa: E402
from hub.state.library import Library, SqliteMount  # noqa: E402
from hub.state.sessions import SessionManager  # noqa: E402
from servers import REGISTRY  # noqa: E402

MB = 2**20


def rss() -> int:
    """Resident set size of this process, in bytes (Linux)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def fresh_library() -> Library:
    library = Library.from_servers(REGISTRY, REFERENCE_NOW)
    for mount in library.mounts.values():
        if isinstance(mount, SqliteMount):
            mount.seed_db(0)  # seeds are built once per process: not part of any session's bytes
    gc.collect()
    return library


def measure_sessions(servers: list[str], count: int) -> dict[str, float]:
    """Accounted and RSS bytes per session for ``count`` sessions touching ``servers``."""
    library = fresh_library()
    sm = SessionManager(library, max_sessions=count + 10, max_state_bytes=None)
    before = rss()
    for n in range(count):
        session = sm.open(f"s{n}")
        for server in servers:
            session.fork_of(server)
    gc.collect()
    return {"acct": sm.budget.held / count, "rss": (rss() - before) / count}


def measure_group(n: int) -> dict[str, float]:
    hub = Hub(Settings(store_path=":memory:", max_state_bytes=None), fresh_library())
    hub.episodes.open_group("bank-transfer-002", 1)  # the template, built once
    gc.collect()
    before_rss, before_held = rss(), hub.sessions.budget.held
    hub.episodes.open_group("bank-transfer-002", n)
    gc.collect()
    return {"acct": (hub.sessions.budget.held - before_held) / n, "rss": (rss() - before_rss) / n}


def measure_budget(budget: int) -> dict[str, float]:
    library = fresh_library()
    sm = SessionManager(library, max_sessions=1_000_000, max_state_bytes=budget)
    start = rss()
    opened = 0
    try:
        while True:
            session = sm.open(f"full{opened}")
            opened += 1
            for server in library.mounts:
                session.fork_of(server)
    except CapacityError:
        pass
    gc.collect()
    return {"sessions": opened, "acct": sm.budget.held, "grew": rss() - start, "total": rss(), "base": start}


def measure_seeds(count: int) -> dict[str, float]:
    """RSS per extra seed world (every server's seed database for one more seed), and the cache's bytes."""
    library = fresh_library()
    before = rss()
    for seed in range(1, count + 1):
        for mount in library.mounts.values():
            if isinstance(mount, SqliteMount):
                mount.seed_db(seed)
    gc.collect()
    cached = sum(m.cached_bytes() for m in library.mounts.values() if isinstance(m, SqliteMount))
    return {"rss": (rss() - before) / count, "cached": cached / (count + 1)}


def run(kind: str, *args: str) -> dict[str, float]:
    """One measurement in a fresh process, so that no freed memory of another is reused."""
    out = subprocess.run(
        [sys.executable, __file__, "--measure", kind, *args], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", default="512M", help="state budget for table 3, e.g. 512M or 2G")
    parser.add_argument("--sessions", type=int, default=40, help="sessions per row of table 1")
    parser.add_argument("--group", type=int, default=256, help="n of the GRPO group in table 2")
    parser.add_argument("--measure", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        kind, *rest = args.measure
        if kind == "sessions":
            result = measure_sessions(rest[1].split(","), int(rest[0]))
        elif kind == "group":
            result = measure_group(int(rest[0]))
        elif kind == "seeds":
            result = measure_seeds(int(rest[0]))
        else:
            result = measure_budget(int(rest[0]))
        print(json.dumps(result))
        return
    budget = parse_size(args.budget)
    if budget is None:
        parser.error("--budget needs a size")
    library = fresh_library()
    print(f"process RSS with every seed built: {rss() / MB:.1f} MB")
    names = list(library.mounts)
    sizes = {n: m.seed_db(0).size for n, m in library.mounts.items() if isinstance(m, SqliteMount)}
    largest = sorted(names, key=lambda n: -sizes[n])
    rows = [(f"first {k}", names[:k]) for k in (1, 3, 5, 10, 20)] + [(f"largest {k}", largest[:k]) for k in (1, 3)]
    print(f"\nBytes per session by servers touched ({args.sessions} sessions each, one process per row)")
    print(f"{'servers':<12}{'accounted MB':>14}{'RSS MB':>10}{'RSS/acct':>10}")
    for label, servers in rows:
        r = run("sessions", str(args.sessions), ",".join(servers))
        print(f"{label:<12}{r['acct'] / MB:>14.2f}{r['rss'] / MB:>10.2f}{r['rss'] / r['acct']:>10.2f}")
    print("seed database sizes (MB): " + ", ".join(f"{n} {sizes[n] / MB:.2f}" for n in largest))

    g = run("group", str(args.group))
    print(f"\nA GRPO group of n={args.group} (task bank-transfer-002: banking)")
    print(f"{'per episode':<12}{'accounted kB':>14}{'RSS kB':>10}{'RSS/acct':>10}")
    print(f"{'':<12}{g['acct'] / 1024:>14.1f}{g['rss'] / 1024:>10.1f}{g['rss'] / g['acct']:>10.2f}")

    w = run("seeds", "3")
    print("\nA seed world (every server seeded once more; the cache keeps HUB_SEED_CACHE of them per server)")
    print(f"{'per seed':<12}{'database MB':>14}{'RSS MB':>10}")
    print(f"{'':<12}{w['cached'] / MB:>14.1f}{w['rss'] / MB:>10.1f}")

    b = run("budget", str(budget))
    print(f"\nAt the budget: sessions touching all {len(names)} servers until refused")
    print(
        f"{'budget MB':>10}{'sessions':>10}{'accounted MB':>14}{'RSS grew MB':>13}{'RSS total MB':>14}{'RSS/acct':>10}"
    )
    print(
        f"{budget / MB:>10.0f}{b['sessions']:>10.0f}{b['acct'] / MB:>14.1f}{b['grew'] / MB:>13.1f}"
        f"{b['total'] / MB:>14.1f}{b['grew'] / b['acct']:>10.2f}"
    )


if __name__ == "__main__":
    main()
