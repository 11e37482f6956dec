"""Dashboard benchmark: page render times over a store holding 100,000 tool calls. Prints a table.

    .venv/bin/python benchmarks/bench_dashboard.py [--calls 100000] [--repeat 20]

The store is filled through the real writer (``hub.store.Store``) with 20,000 finished episodes of
five calls each (one turn per call, a reward each; every tenth episode has a failed call), plus one
episode with 200 tool calls. Each page is then requested through the ASGI app (routing, queries,
Jinja rendering; no network) and timed: median and p95 of ``--repeat`` requests after a warm-up.
Goal: the episode list and the 200-call episode ≤ 200 ms each.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx  # noqa: E402

from hub.app import create_app  # noqa: E402
from hub.config import Settings  # noqa: E402
from hub.core import Hub  # noqa: E402
from hub.events import EpisodeEvent, RewardEvent, TaskEvent, TurnEvent  # noqa: E402
from hub.events import ToolCallEvent  # noqa: E402
from hub.store import Store  # noqa: E402

TASKS = ["bank-balance-001", "bank-transfer-002", "bank-lock-card-003", "bank-payee-004", "bank-unfreeze-005"]
RESULT = {"account_id": "ACC-0001", "customer_id": "CUS-0001", "type": "checking", "balance": 1234.5,
          "status": "active", "nickname": "Everyday <checking>"}
COMPONENTS = {"validity": 1.0, "coverage": 0.5, "efficiency": 0.0, "name": 1.0, "argument": 0.5}
WEIGHTS = {"w_val": 0.5, "w_cov": 0.5, "w_eff": 0.15, "w_name": 0.2, "w_arg": 0.1}


def episode_events(eid: str, task: str, t0: float, n_calls: int, rng: random.Random, fail: bool) -> list[Any]:
    out: list[Any] = [EpisodeEvent("open", eid, task, "grp-" + eid, "es-" + eid, "h0", t0)]
    out.append(TurnEvent(eid, 0, "system", "You are a helpful assistant that can use tools.", t0))
    out.append(TurnEvent(eid, 1, "user", "What's the balance of ACC-0005?", t0))
    for i in range(n_calls):
        ts = t0 + 0.01 * (i + 1)
        args = {"account_id": f"ACC-{rng.randrange(1, 500):04d}"}
        out.append(TurnEvent(eid, 2 + i, "assistant", "<tool_call>" + json.dumps({"name": "banking__get_account",
                                                                                  "arguments": args}) + "</tool_call>", ts))
        ok = not (fail and i == 0)
        out.append(ToolCallEvent("es-" + eid, "banking", "get_account", args, ok, RESULT if ok else None,
                                 None if ok else "no account ACC-9999", None if ok else "tool", 0.3, False, ts, episode=eid))
    end = t0 + 0.01 * (n_calls + 1)
    reward = rng.random()
    out.append(EpisodeEvent("finish", eid, task, "grp-" + eid, "es-" + eid, "h0", end, final_hash="h1",
                            reason="completed", steps=n_calls + 1, calls=n_calls, reward=reward))
    out.append(RewardEvent(eid, task, reward, "paper", COMPONENTS, WEIGHTS, end))
    return out


async def fill(path: str, calls: int) -> str:
    """Write ``calls`` tool calls (5 per episode) and one 200-call episode; returns that episode's id."""
    store = Store(path, queue_max=2_000_000)
    await store.start()
    rng = random.Random(0)
    for task in TASKS:
        store.offer(TaskEvent(task, "mcp", ["banking"], {"id": task}, 0.0))
    t0 = time.time() - calls
    for n in range(calls // 5):
        for event in episode_events(f"ep-{n:08d}", TASKS[n % len(TASKS)], t0 + n * 5, 5, rng, fail=n % 10 == 0):
            store.offer(event)
        if n % 2000 == 0:
            await store.flush()
    big = "ep-big-200"
    for event in episode_events(big, TASKS[1], time.time(), 200, rng, fail=True):
        store.offer(event)
    await store.flush()
    await store.stop()
    return big


async def timed(http: httpx.AsyncClient, url: str, repeat: int) -> tuple[float, float, int]:
    r = await http.get(url)  # warm-up (and the check that the page renders)
    assert r.status_code == 200, (url, r.status_code, r.text[:300])
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        r = await http.get(url)
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return statistics.median(times), times[int(0.95 * (len(times) - 1))], len(r.content)


async def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--calls", type=int, default=100_000)
    p.add_argument("--repeat", type=int, default=20)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "bench.db")
        start = time.perf_counter()
        big = await fill(path, args.calls)
        fill_s = time.perf_counter() - start
        settings = Settings(store_path=path)
        app = create_app(settings, Hub(settings))
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
            first = await http.get("/ui/episodes")
            cursor = first.text.split('id="older" href="')[1].split('"')[0].replace("&amp;", "&")
            pages = [
                ("episode list (first page of 50)", "/ui/episodes"),
                ("episode list, page 2 (keyset)", cursor),
                ("episode list, htmx fragment", "/ui/episodes?_=1"),
                ("episode list, task filter", f"/ui/episodes?task={TASKS[2]}"),
                ("episode list, errors filter", "/ui/episodes?errors=1"),
                ("episode list, reward 0.9-1.0", "/ui/episodes?min_reward=0.9&max_reward=1"),
                ("episode list, server filter", "/ui/episodes?server=banking"),
                (f"episode with 200 tool calls ({big})", f"/ui/episodes/{big}"),
                ("episode with 5 tool calls", "/ui/episodes/ep-00000007"),
                ("overview", "/ui/"),
                ("tasks", "/ui/tasks"),
                ("catalog (343 tools)", "/ui/catalog"),
            ]
            print(f"\n## Dashboard render time, store with {args.calls:,} tool calls "
                  f"({args.calls // 5:,} episodes; filled in {fill_s:.1f} s)\n")
            print("| page | median ms | p95 ms | KiB |")
            print("|---|---|---|---|")
            for label, url in pages:
                headers = {"HX-Request": "true"} if "htmx" in label else {}
                http.headers.update(headers)
                med, p95, size = await timed(http, url, args.repeat)
                for h in headers:
                    del http.headers[h]
                print(f"| {label} | {med:.1f} | {p95:.1f} | {size / 1024:.0f} |")
            await gc_effect(http, [("episode list (first page of 50)", "/ui/episodes"),
                                   ("episode with 200 tool calls", f"/ui/episodes/{big}")], args.repeat, app)
        print("\ngoal: episode list and the 200-call episode ≤ 200 ms each")


async def gc_effect(http: httpx.AsyncClient, pages: list[tuple[str, str]], repeat: int, app: Any) -> None:
    """The same pages after ``gc.freeze()``: the p95 outliers above are full collections walking the hub's heap."""
    for mount in app.state.hub.library.mounts.values():
        if hasattr(mount, "seed_db"):
            mount.seed_db(0)
    gc.collect()
    gc.freeze()
    print("\n### After gc.freeze() at start-up (seed databases built first)\n")
    print("| page | median ms | p95 ms | KiB |")
    print("|---|---|---|---|")
    for label, url in pages:
        med, p95, size = await timed(http, url, repeat)
        print(f"| {label} | {med:.1f} | {p95:.1f} | {size / 1024:.0f} |")
    gc.unfreeze()


if __name__ == "__main__":
    asyncio.run(main())
