"""Dashboard benchmark: page render times over a store holding 100,000 tool calls. Prints a table.

    .venv/bin/python benchmarks/bench_dashboard.py [--calls 100000] [--repeat 20]

The store is filled through the real writer (``hub.engine.store.Store``) with 20,000 finished episodes of
five calls each (one turn per call, a reward and kept evidence each; every tenth episode has a failed
call and a final state that differs from the expected one), in GRPO groups of eight tied to the
steps of a training run, plus one episode with 200 tool calls and a 50-metric x 2,000-step run.
Each page is then requested through the ASGI app (routing, queries, Jinja rendering; no network)
and timed: median and p95 of ``--repeat`` requests after a warm-up.
Goals: the episode list and the 200-call episode ≤ 200 ms each; the 50-metric run page < 300 ms.
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
from hub.engine.events import (  # noqa: E402  # noqa: E402
    EpisodeEvent,
    EvidenceEvent,
    RewardEvent,
    RunEvent,
    RunMetricEvent,
    TaskEvent,
    ToolCallEvent,  # noqa: E402
    TurnEvent,
)
from hub.engine.store import Store  # noqa: E402

TASKS = ["bank-balance-001", "bank-transfer-002", "bank-lock-card-003", "bank-payee-004", "bank-unfreeze-005"]
RESULT = {
    "account_id": "ACC-0001",
    "customer_id": "CUS-0001",
    "type": "checking",
    "balance": 1234.5,
    "status": "active",
    "nickname": "Everyday <checking>",
}
COMPONENTS = {"validity": 1.0, "coverage": 0.5, "efficiency": 0.0, "name": 1.0, "argument": 0.5}
WEIGHTS = {"w_val": 0.5, "w_cov": 0.5, "w_eff": 0.15, "w_name": 0.2, "w_arg": 0.1}


GROUP = 8
RUN = "run-bench"
METRICS = 50
STEPS = 2000
DIFF = {
    "banking": {
        "accounts": {
            "added": [],
            "removed": [],
            "changed": [
                {"key": "ACC-0001", "changes": {"balance": [1234.5, 934.5]}},
                {"key": "ACC-0003", "changes": {"balance": [80.0, 380.0]}},
            ],
        }
    }
}


def episode_events(
    eid: str,
    task: str,
    t0: float,
    n_calls: int,
    rng: random.Random,
    fail: bool,
    group: str = "",
    step: int | None = None,
) -> list[Any]:
    group = group or "grp-" + eid
    run = RUN if step is not None else None
    out: list[Any] = [EpisodeEvent("open", eid, task, group, "es-" + eid, "h0", t0, run=run, step=step)]
    out.append(TurnEvent(eid, 0, "system", "You are a helpful assistant that can use tools.", t0))
    out.append(TurnEvent(eid, 1, "user", "What's the balance of ACC-0005?", t0))
    for i in range(n_calls):
        ts = t0 + 0.01 * (i + 1)
        args = {"account_id": f"ACC-{rng.randrange(1, 500):04d}"}
        text = "<tool_call>" + json.dumps({"name": "banking__get_account", "arguments": args}) + "</tool_call>"
        out.append(TurnEvent(eid, 2 + i, "assistant", text, ts))
        ok = not (fail and i == 0)
        out.append(
            ToolCallEvent(
                "es-" + eid,
                "banking",
                "get_account",
                args,
                ok,
                RESULT if ok else None,
                None if ok else "no account ACC-9999",
                None if ok else "tool",
                0.3,
                False,
                ts,
                episode=eid,
            )
        )
    end = t0 + 0.01 * (n_calls + 1)
    reward = rng.random()
    out.append(
        EpisodeEvent(
            "finish",
            eid,
            task,
            group,
            "es-" + eid,
            "h0",
            end,
            final_hash="h1",
            reason="completed",
            steps=n_calls + 1,
            calls=n_calls,
            reward=reward,
        )
    )
    components = {**COMPONENTS, "coverage": rng.choice((0.5, 1.0))}
    out.append(RewardEvent(eid, task, reward, "paper", components, WEIGHTS, end))
    out.append(EvidenceEvent(eid, task, not fail, DIFF, DIFF if fail else {}, None, end))
    return out


def run_events(rng: random.Random) -> list[Any]:
    """A training run of ``METRICS`` metrics over ``STEPS`` steps (100,000 stored values)."""
    out: list[Any] = [RunEvent(RUN, "bench-grpo", {"lr": 1e-6}, "running", time.time())]
    names = ["reward", "reward/coverage", "optim/lr", "loss/policy"] + [f"perf/m{j:02d}" for j in range(METRICS - 4)]
    for step in range(STEPS):
        values = {n: rng.random() for n in names}
        values["optim/lr"] = 1e-6
        out.append(RunMetricEvent(RUN, step, values, time.time()))
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
        g = n // GROUP
        for event in episode_events(
            f"ep-{n:08d}",
            TASKS[g % len(TASKS)],
            t0 + n * 5,
            5,
            rng,
            fail=n % 10 == 0,
            group=f"grp-{g:06d}",
            step=g % STEPS,
        ):
            store.offer(event)
        if n % 2000 == 0:
            await store.flush()
    big = "ep-big-200"
    for event in episode_events(big, TASKS[1], time.time(), 200, rng, fail=True):
        store.offer(event)
    for event in run_events(rng):
        store.offer(event)
    await store.flush()
    await store.stop()
    return big


CPU = {"last": 0.0}  # the median CPU time of the latest ``timed`` page: this process's, the reader thread's too


async def timed(http: httpx.AsyncClient, url: str, repeat: int) -> tuple[float, float, int]:
    r = await http.get(url)  # warm-up (and the check that the page renders)
    assert r.status_code == 200, (url, r.status_code, r.text[:300])
    times, cpu = [], []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        r = await http.get(url)
        times.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
    times.sort()
    CPU["last"] = statistics.median(cpu)
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
                ("episode list, sorted by coverage lost", "/ui/episodes?sort=coverage"),
                ("episode list, sorted by coverage, page 3", "/ui/episodes?sort=coverage&cursor=@100"),
                ("episode list, differs from expected", "/ui/episodes?state=differs"),
                ("episode list, one run step", f"/ui/episodes?run={RUN}&step=7"),
                ("GRPO group of 8", "/ui/groups/grp-000123"),
                (f"run page, {METRICS} metrics x {STEPS:,} steps", f"/ui/training/{RUN}"),
                (f"run page, {METRICS} metrics, htmx live refresh", f"/ui/training/{RUN}?_=htmx"),
                (f"run page, {METRICS} metrics, log axis", f"/ui/training/{RUN}?log=1"),
                ("run page zoomed to 200 steps", f"/ui/training/{RUN}?from=800&to=999"),
                ("run analytics (failures, lost by range, groups)", f"/ui/training/{RUN}/analytics"),
                ("run analytics, zero-variance groups", f"/ui/training/{RUN}/analytics?variance=zero"),
                ("episode list, sorted by argument lost", "/ui/episodes?sort=argument"),
                ("episode list, reward lowest first", "/ui/episodes?sort=-reward"),
                ("overview", "/ui/"),
                ("tasks (with points lost)", "/ui/tasks"),
                ("task page", f"/ui/tasks/{TASKS[1]}"),
                ("catalog (every tool)", "/ui/catalog"),
            ]
            print(
                f"\n## Dashboard render time, store with {args.calls:,} tool calls "
                f"({args.calls // 5:,} episodes; filled in {fill_s:.1f} s)\n"
            )
            print("| page | median ms | p95 ms | median CPU ms | KiB |")
            print("|---|---|---|---|---|")
            for label, url in pages:
                headers = {"HX-Request": "true"} if "htmx" in label else {}
                http.headers.update(headers)
                med, p95, size = await timed(http, url, args.repeat)
                for h in headers:
                    del http.headers[h]
                print(f"| {label} | {med:.1f} | {p95:.1f} | {CPU['last']:.1f} | {size / 1024:.0f} |")
            await cold_run_page(http, app, args.repeat)
            await gc_effect(
                http,
                [
                    ("episode list (first page of 50)", "/ui/episodes"),
                    ("episode with 200 tool calls", f"/ui/episodes/{big}"),
                    (f"run page, {METRICS} metrics x {STEPS:,} steps", f"/ui/training/{RUN}"),
                ],
                args.repeat,
                app,
            )
        print(f"\ngoals: episode list and the 200-call episode ≤ 200 ms each; the {METRICS}-metric run page < 300 ms")


async def cold_run_page(http: httpx.AsyncClient, app: Any, repeat: int) -> None:
    """The run page with its downsampled series cache emptied before every request (a first visit, or a
    live run that gained rows since the last one)."""
    reader = app.state.dashboard.reader
    times, cpu = [], []
    for _ in range(repeat):
        reader.cache = type(reader.cache)()
        start, start_cpu = time.perf_counter(), time.process_time()
        r = await http.get(f"/ui/training/{RUN}")
        times.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
        assert r.status_code == 200
    times.sort()
    print(
        f"| run page, {METRICS} metrics x {STEPS:,} steps, cache emptied before each request | "
        f"{statistics.median(times):.1f} | {times[int(0.95 * (len(times) - 1))]:.1f} | {len(r.content) / 1024:.0f} |"
    )
    print(
        f"\n(that cold run page: median {statistics.median(cpu):.1f} ms of CPU time in this process, the part "
        "that does not depend on other load on the machine)"
    )


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
    await cold_run_page(http, app, repeat)
    gc.unfreeze()


if __name__ == "__main__":
    asyncio.run(main())
