"""Mounted-object benchmark: the cost of a tool call on a large Python object state. Prints a table.

    .venv/bin/python benchmarks/bench_mount.py [--users 9000] [--rounds 7]

The state is ``tests.mounted_envs.Shop``: users, products and orders as nested dicts and lists
(~7 MB as JSON with the default 9000 users). Every measurement takes the best of ``--rounds``
rounds, and the rounds interleave the reference (one pickle round trip of the state) with the
hub's calls, so that the ratios compare like with like on a busy machine.

- write: ``cancel_order`` through the dispatcher (schema check, copy-on-write fork, event), minus
  the same method called directly on an instance, on a version shared with another fork (it is
  copied) and on one the fork holds alone (written in place); target: at most 1.5 pickle round trips;
- read: ``get_order`` the same way; target: at most 0.1 ms over the direct call;
- also: opening a session on the scenario, forking a session, the state hash (first and cached),
  and what a write cost before copy-on-write forks (a deepcopy and two full state encodings).
"""

from __future__ import annotations

import argparse
import copy
import gc
import pickle
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import round_trip_no_gc

from hub.engine.dispatcher import Dispatcher
from hub.engine.events import EventBus
from hub.mount import ObjectMount
from hub.mount.canonical import _walk_state, dump, state_json
from hub.state.library import Library
from hub.state.sessions import SessionManager
from tests.mounted_envs import Shop


def timed(fn: Callable[[], object], number: int = 1) -> float:
    start = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - start) / number


def round_trip(state: object) -> Callable[[], object]:
    def run() -> object:
        return pickle.loads(pickle.dumps(state, pickle.HIGHEST_PROTOCOL))

    return run


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--users", type=int, default=9000)
    p.add_argument("--rounds", type=int, default=7)
    args = p.parse_args(argv)

    gc.freeze()
    shop = Shop(args.users)
    size_json = len(state_json(shop))
    size_pickle = len(pickle.dumps(shop, pickle.HIGHEST_PROTOCOL))
    library = Library([ObjectMount(Shop, "shop", default_config=None)])
    mount = library.mounts["shop"]
    mount.factory = lambda: Shop(args.users)  # type: ignore[attr-defined]
    sessions = SessionManager(library)
    dispatcher = Dispatcher(library, sessions, EventBus())
    sessions.open("bench")
    sessions.get("bench").fork_of("shop")
    direct = Shop(args.users)
    orders = iter(sorted(direct.orders))
    direct_orders = iter(sorted(direct.orders))

    best: dict[str, float] = {}

    def record(name: str, seconds: float) -> None:
        best[name] = min(best.get(name, float("inf")), seconds)

    def hub_write() -> None:
        out = dispatcher.call("bench", "shop", "cancel_order", {"order_id": next(orders)})
        assert out.ok and out.state_changed, out.error

    def hub_read() -> None:
        dispatcher.call("bench", "shop", "get_order", {"order_id": "o1-0"})

    fork_n = 0

    def share() -> None:
        nonlocal fork_n
        fork_n += 1
        sessions.fork("bench", f"fork-{fork_n}")

    def fork() -> None:
        share()

    open_n = 0

    def open_session() -> None:
        nonlocal open_n
        open_n += 1
        sessions.open(f"open-{open_n}").fork_of("shop")

    for _ in range(args.rounds):
        record("pickle round trip of the state", timed(round_trip(shop)))
        record("pickle round trip, GC paused", timed(round_trip_no_gc(shop)))
        record("direct write (method call)", timed(lambda: direct.cancel_order(next(direct_orders)), 200))
        share()
        record("hub write, version shared (copy + pickle)", timed(hub_write))
        record("hub write, version held alone (in place + pickle)", timed(hub_write))
        record("direct read (method call)", timed(lambda: direct.get_order("o1-0"), 5000))
        record("hub read (dispatcher)", timed(hub_read, 2000))
        record("open a session on the scenario", timed(open_session, 200))
        record("fork a session", timed(fork, 200))
        fork_of = sessions.get("bench").fork_of("shop")
        version = fork_of.version  # type: ignore[attr-defined]
        version._hash = None
        record("state hash, first request", timed(fork_of.state_hash))
        record("state hash, cached", timed(fork_of.state_hash, 5000))
        record("copy.deepcopy of the state", timed(lambda: copy.deepcopy(shop)))
    old = timed(lambda: (copy.deepcopy(shop), dump(_walk_state(shop)), dump(_walk_state(shop))))
    record("write before copy-on-write (deepcopy + 2 encodings)", old)

    reference = min(best["pickle round trip of the state"], best["pickle round trip, GC paused"])
    write_overhead = best["hub write, version shared (copy + pickle)"] - best["direct write (method call)"]
    alone_overhead = best["hub write, version held alone (in place + pickle)"] - best["direct write (method call)"]
    read_overhead = best["hub read (dispatcher)"] - best["direct read (method call)"]
    print(
        f"\n## Mounted object state: {args.users} users, {size_json / 1e6:.2f} MB as JSON, "
        f"{size_pickle / 1e6:.2f} MB pickled (best of {args.rounds} interleaved rounds)\n"
    )
    print(f"| {'operation':<52} | {'ms':>10} | {'x round trip':>12} |")
    print(f"|{'-' * 54}|{'-' * 12}|{'-' * 14}|")
    for name, seconds in best.items():
        print(f"| {name:<52} | {seconds * 1000:>10.4f} | {seconds / reference:>12.3f} |")
    ok_write = write_overhead <= 1.5 * reference
    ok_read = read_overhead <= 0.0001
    print(f"\nreference: one pickle round trip = {reference * 1000:.1f} ms (the faster of the two rows above)")
    print(
        f"write overhead, shared version: {write_overhead * 1000:.1f} ms = {write_overhead / reference:.2f}x a round "
        f"trip (target <= 1.5x): {'PASS' if ok_write else 'FAIL'}"
    )
    print(f"write overhead, version held alone: {alone_overhead * 1000:.1f} ms = {alone_overhead / reference:.2f}x")
    print(f"read overhead: {read_overhead * 1000:.4f} ms (target <= 0.1 ms): {'PASS' if ok_read else 'FAIL'}")
    print(
        f"speed-up of a write over the previous mount: {old / best['hub write, version shared (copy + pickle)']:.1f}x"
        f" (shared), {old / best['hub write, version held alone (in place + pickle)']:.1f}x (held alone)"
    )
    return 0 if ok_write and ok_read else 1


if __name__ == "__main__":
    sys.exit(main())
