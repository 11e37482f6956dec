"""The OpenEnv door against the hub's own ``/ws``, side by side, on the same tasks and the same hub.

    .venv/bin/python benchmarks/bench_doors.py [--episodes 64] [--concurrency 1 16 64]

The hub runs in its own process (``prove-hub serve``, store in a temp file). Both clients run in
``.venvs/openenv`` (scripts/install-door-deps), so they pay the same interpreter's costs:

- ``/ws``: ``trainer_client.hub_client.HubClient``, one connection, requests pipelined (open n=1, steps,
  finish, close per episode);
- ``openenv``: openenv-core's own ``GenericEnvClient``, one WebSocket session per episode as OpenEnv clients
  (TRL, SkyRL) hold them: reset, steps; the last step returns the reward.

Each episode plays the oracle of one of four banking tasks (one to two turns, 2 to 4 model messages, 1 to 2
calls per message) and is scored; ``concurrency`` episodes run at once. The table gives episodes per
second and the median and 95th-percentile episode time. Numbers depend on the machine's load (printed).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TASKS = ("bank-balance-001", "bank-transfer-002", "bank-lock-card-003", "bank-payee-004")


# The clients (run in .venvs/openenv) ----------------------------------------------------------------------


async def ws_episode(client: Any, task: str, script: list[str]) -> float:
    start = time.perf_counter()
    group = await client.open(task)
    eid = group.episodes[0]
    for text in script:
        await client.step(eid, text)
    reward = await client.finish(eid)
    await client.close_episodes([eid])
    assert abs(reward["total"] - 1.3) < 1e-9, reward
    return time.perf_counter() - start


async def openenv_episode(base: str, task: str, script: list[str]) -> float:
    from openenv.core.generic_client import GenericEnvClient

    start = time.perf_counter()
    async with GenericEnvClient(base_url=f"{base}/openenv/tasks") as env:
        await env.reset(task=task)
        for text in script:
            result = await env.step({"text": text})
    assert result.done and abs(float(result.reward or 0) - 1.3) < 1e-9, result
    return time.perf_counter() - start


async def run_client(kind: str, base: str, scripts: dict[str, list[str]], episodes: int, concurrency: int) -> Any:
    sys.path.insert(0, str(ROOT))
    from trainer_client.hub_client import HubClient

    gate = asyncio.Semaphore(concurrency)
    order = [TASKS[i % len(TASKS)] for i in range(episodes)]
    client = HubClient(base.replace("http://", "ws://") + "/ws") if kind == "ws" else None
    if client is not None:
        await client.connect()

    async def one(task: str) -> float:
        async with gate:
            if client is not None:
                return await ws_episode(client, task, scripts[task])
            return await openenv_episode(base, task, scripts[task])

    await asyncio.gather(*(one(t) for t in order[: min(concurrency, episodes)]))  # warm: seeds, templates
    start = time.perf_counter()
    times = await asyncio.gather(*(one(t) for t in order))
    wall = time.perf_counter() - start
    if client is not None:
        await client.close()
    times.sort()
    return {
        "episodes_per_s": episodes / wall,
        "p50_ms": statistics.median(times) * 1000,
        "p95_ms": times[int(0.95 * (len(times) - 1))] * 1000,
    }


# The orchestrator (runs in .venv) --------------------------------------------------------------------------


def scripts_of() -> dict[str, list[str]]:
    sys.path.insert(0, str(ROOT))
    from hub.tasks import BUILTIN_TASKS, oracle_script, read_jsonl

    tasks = {t.id: t for t in read_jsonl(BUILTIN_TASKS)}
    return {t: oracle_script(tasks[t]) for t in TASKS}


def wait_healthy(base: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(f"{base}/healthz", timeout=2) as reply:
                if reply.status == 200:
                    return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--episodes", type=int, default=64)
    p.add_argument("--concurrency", type=int, nargs="+", default=[1, 16, 64])
    p.add_argument("--client", choices=("ws", "openenv"), help=argparse.SUPPRESS)
    p.add_argument("--base", help=argparse.SUPPRESS)
    p.add_argument("--scripts", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.client:  # a worker: one measurement, printed as JSON
        scripts = json.loads(Path(args.scripts).read_text())
        result = asyncio.run(run_client(args.client, args.base, scripts, args.episodes, args.concurrency[0]))
        print(json.dumps(result))
        return 0
    python = ROOT / ".venvs" / "openenv" / "bin" / "python"
    if not python.exists():
        print("bench_doors: .venvs/openenv is missing; run scripts/install-door-deps", file=sys.stderr)
        return 2
    sys.path.insert(0, str(ROOT))
    from hub.net import free_port

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        script_file = Path(tmp) / "scripts.json"
        script_file.write_text(json.dumps(scripts_of()))
        hub = subprocess.Popen(
            [ROOT / ".venv" / "bin" / "prove-hub", "serve", "--port", str(port), "--store", f"{tmp}/store.db",
             "--log-level", "warning"],
            stdout=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            wait_healthy(base)
            print(f"load before: {os.getloadavg()[0]:.2f} (1-min average, {os.cpu_count()} cores)")
            print(f"{'door':<10}{'concurrency':>12}{'episodes/s':>12}{'p50 ms':>10}{'p95 ms':>10}")
            ratios = []
            for c in args.concurrency:
                row = {}
                for kind in ("ws", "openenv"):
                    out = subprocess.run(
                        [python, __file__, "--client", kind, "--base", base, "--scripts", str(script_file),
                         "--episodes", str(args.episodes), "--concurrency", str(c)],
                        capture_output=True, text=True, check=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
                    )  # fmt: skip
                    row[kind] = json.loads(out.stdout.strip().splitlines()[-1])
                    r = row[kind]
                    print(f"{kind:<10}{c:>12}{r['episodes_per_s']:>12.1f}{r['p50_ms']:>10.1f}{r['p95_ms']:>10.1f}")
                ratios.append((c, row["ws"]["episodes_per_s"] / row["openenv"]["episodes_per_s"]))
            for c, ratio in ratios:
                print(f"/ws over openenv at concurrency {c}: {ratio:.2f}x episodes/s")
            print(f"load after: {os.getloadavg()[0]:.2f}")
        finally:
            hub.send_signal(signal.SIGINT)
            hub.wait(timeout=30)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
