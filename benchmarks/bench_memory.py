"""Memory benchmark: bytes per session by servers touched, and the process's RSS at the state budget.

    .venv/bin/python benchmarks/bench_memory.py [--budget 512M] [--sessions 40]

Table 1: for sessions touching the first k servers (registry order) and the k largest, the bytes the
budget accounts per session (SQLite pages) against the RSS each session really added.
Table 2: a GRPO group's forks (n=256 of a task's template): accounted and RSS bytes per episode.
Table 3: one more seed world (all servers seeded again): what the bounded seed cache holds per seed.
Table 4: sessions touching every server opened until the budget refuses one: how many fit, the
bytes accounted and the RSS at that point (the budget bounds RSS, up to the ratio shown).
Table 5: what a client can make the hub hold, at ``--tight`` (default 256M): writes (5 sessions doubling a
directory of a 100 kB file by copies), seeds (55 sessions of distinct seeds touching every server),
snapshots (400 snapshots of distinct states, each session closed after it); the peak RSS and the RSS at
the end against the target 1.5 x budget + 150 MB, and how many requests the budget refused.
Table 6: 5,000 sessions (a banking write each, at most 600 open) expire: the RSS before they opened, at
the peak and after, against the target 1.2 x before + 100 MB.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
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


class Peak:
    """The highest RSS seen at the calls of ``note``."""

    def __init__(self) -> None:
        self.value = rss()

    def note(self) -> None:
        self.value = max(self.value, rss())


def tight_hub(budget: int) -> Hub:
    return Hub(Settings(store_path=":memory:", max_state_bytes=budget, max_sessions=100_000), fresh_library())


def fill_with_writes(budget: int) -> dict[str, float]:
    """5 sessions, each doubling a directory (a 100 kB file, then copies of copies) until refused."""
    hub = tight_hub(budget)
    call, peak, refused = hub.dispatcher.call, Peak(), 0
    for n in range(5):
        sid = f"w{n}"
        made = call(sid, "filesystem", "make_directory", {"path": "/tmp/g0", "parents": True})
        wrote = call(sid, "filesystem", "write_file", {"path": "/tmp/g0/f.txt", "content": "x" * 100_000})
        if not (made.ok and wrote.ok):
            assert "capacity" in (made.error_kind, wrote.error_kind), (made.error, wrote.error)
            refused += 1
            continue
        for level in range(12):
            nxt = f"/tmp/g{level + 1}"
            call(sid, "filesystem", "make_directory", {"path": nxt})
            outs = [
                call(
                    sid,
                    "filesystem",
                    "copy_path",
                    {"source": f"/tmp/g{level}", "destination": f"{nxt}/{half}", "recursive": True},
                )
                for half in "ab"
            ]
            peak.note()
            if any(o.error_kind == "capacity" for o in outs):
                refused += 1
                break
    gc.collect()
    peak.note()
    return {"peak": peak.value, "end": rss(), "refused": refused, "held": hub.sessions.budget.used}


def fill_with_seeds(budget: int) -> dict[str, float]:
    """55 sessions, each of its own seed, touching every server."""
    hub = tight_hub(budget)
    peak, refused = Peak(), 0
    servers = list(hub.library.mounts)
    for seed in range(1, 56):
        sid = f"seed{seed}"
        try:
            hub.sessions.open(sid, seed=seed)
        except CapacityError:
            refused += 1
            continue
        session = hub.sessions.get(sid)
        try:
            for server in servers:
                session.fork_of(server)
        except CapacityError:
            refused += 1
        peak.note()
    gc.collect()
    peak.note()
    return {"peak": peak.value, "end": rss(), "refused": refused, "held": hub.sessions.budget.used}


def fill_with_snapshots(budget: int) -> dict[str, float]:
    """400 snapshots of distinct states, each session closed after its snapshot; then one session snapshotting
    state after state until refused."""
    hub = tight_hub(budget)
    call, peak, refused = hub.dispatcher.call, Peak(), 0
    for n in range(400):
        sid = f"snap{n}"
        call(sid, "banking", "deposit_funds", {"account_id": "ACC-0001", "amount": n + 1})
        try:
            hub.sessions.take_snapshot(sid)
        except CapacityError:
            refused += 1
        hub.sessions.close(sid)
        peak.note()
    for n in range(400):
        call("keeper", "banking", "deposit_funds", {"account_id": "ACC-0002", "amount": n + 1})
        try:
            hub.sessions.take_snapshot("keeper")
        except CapacityError:
            refused += 1
            break
        peak.note()
    gc.collect()
    peak.note()
    return {"peak": peak.value, "end": rss(), "refused": refused, "held": hub.sessions.budget.used}


def expire(total: int, live: int) -> dict[str, float]:
    """``total`` sessions, a banking write each, at most ``live`` open, all expired by the TTL sweep."""
    now = [0.0]
    library = fresh_library()
    sessions = SessionManager(library, max_sessions=live + 10, ttl_s=10, clock=lambda: now[0])
    from hub.engine.dispatcher import Dispatcher
    from hub.engine.events import EventBus

    dispatcher = Dispatcher(library, sessions, EventBus())
    dispatcher.call("warm", "banking", "deposit_funds", {"account_id": "ACC-0001", "amount": 1})
    gc.collect()
    before, peak = rss(), Peak()
    for n in range(total):
        if n % live == 0:
            now[0] += 100  # everything open so far idles past the TTL
            sessions.sweep()
        assert dispatcher.call(f"e{n}", "banking", "deposit_funds", {"account_id": "ACC-0001", "amount": 1}).ok
        if n % 50 == 0:
            peak.note()
    now[0] += 100
    sessions.sweep()
    peak.note()
    return {"before": before, "peak": peak.value, "after": rss(), "open": len(sessions)}


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
    parser.add_argument("--tight", default="256M", help="the budget of tables 5 and 6")
    parser.add_argument("--expire", type=int, default=5000, help="sessions that expire in table 6")
    parser.add_argument("--only-budget", action="store_true", help="only tables 5 and 6")
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
        elif kind == "fill":
            fill = {"writes": fill_with_writes, "seeds": fill_with_seeds, "snapshots": fill_with_snapshots}[rest[0]]
            result = fill(int(rest[1]))
        elif kind == "expire":
            result = expire(int(rest[0]), int(rest[1]))
        else:
            result = measure_budget(int(rest[0]))
        print(json.dumps(result))
        return
    budget, tight = parse_size(args.budget), parse_size(args.tight)
    if budget is None or tight is None:
        parser.error("--budget and --tight need a size")
    if not args.only_budget:
        tables(args, budget)
    what_clients_hold(tight, args.expire)


def what_clients_hold(tight: int, total: int) -> None:
    load = "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())
    target = 1.5 * tight + 150 * MB
    print(f"\nWhat clients can make the hub hold, at a budget of {tight / MB:.0f} MB ({load})")
    print(
        f"{'filled by':<12}{'peak RSS MB':>13}{'end RSS MB':>12}{'held MB':>10}{'refused':>9}{'target MB':>11}{'':>6}"
    )
    for what in ("writes", "seeds", "snapshots"):
        r = run("fill", what, str(tight))
        ok = "PASS" if r["peak"] <= target else "FAIL"
        print(
            f"{what:<12}{r['peak'] / MB:>13.0f}{r['end'] / MB:>12.0f}{r['held'] / MB:>10.0f}{r['refused']:>9.0f}"
            f"{target / MB:>11.0f}{ok:>6}"
        )
    e = run("expire", str(total), "600")
    goal = 1.2 * e["before"] + 100 * MB
    print(f"\n{total:,} sessions (a banking write each, at most 600 open) expired by the TTL sweep")
    print(f"{'before MB':>10}{'peak MB':>10}{'after MB':>10}{'target MB':>11}{'':>6}")
    ok = "PASS" if e["after"] <= goal else "FAIL"
    print(f"{e['before'] / MB:>10.0f}{e['peak'] / MB:>10.0f}{e['after'] / MB:>10.0f}{goal / MB:>11.0f}{ok:>6}")


def tables(args: argparse.Namespace, budget: int) -> None:
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
