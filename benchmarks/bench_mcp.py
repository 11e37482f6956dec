"""MCP HTTP throughput: the hub against a bare ``MCPServer`` hosting the same functions.

    .venv/bin/python benchmarks/bench_mcp.py [--seconds 5] [--concurrency 8]

Each server runs in its own process under uvicorn; this process is the client, posting
2026-07-28 JSON-RPC ``tools/call`` requests over keep-alive connections. The bare server calls
banking's ``get_account`` / ``deposit_funds`` directly on one SQLite fork; the hub routes the same
calls through its dispatcher (validation, savepoint, event) into a URL-pinned session.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hub.net import free_port  # noqa: E402

HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2026-07-28",
    "Mcp-Method": "tools/call",
}
CALLS = {
    "read": ("get_account", {"account_id": "ACC-0001"}),
    "write": ("deposit_funds", {"account_id": "ACC-0001", "amount": 1.0}),
}

BARE = '''
import sys, uvicorn
from mcp.server.mcpserver import MCPServer
from hub.config import REFERENCE_NOW
from hub.kit import Ctx
from hub.state.db.db import SeedDatabase
from servers.banking import server as banking_server, tools as banking

fork = SeedDatabase(banking_server, 0, REFERENCE_NOW).fork()
ctx = Ctx(fork.db, REFERENCE_NOW)
app = MCPServer("bare-banking")

@app.tool()
async def get_account(account_id: str) -> dict:
    """Get one account."""
    return banking.get_account(ctx, account_id)

@app.tool()
async def deposit_funds(account_id: str, amount: float) -> dict:
    """Deposit money."""
    return banking.deposit_funds(ctx, account_id, amount)

uvicorn.run(app.streamable_http_app(json_response=True), host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
'''


def body(name: str, arguments: dict[str, object], rid: int) -> bytes:
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    return json.dumps(
        {
            "jsonrpc": "2.0",
            "id": rid,
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments, "_meta": meta},
        }
    ).encode()


async def wait_up(url: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    async with httpx.AsyncClient() as http:
        while time.monotonic() < deadline:
            try:
                await http.get(url)
                return
            except httpx.TransportError:
                await asyncio.sleep(0.1)
    raise RuntimeError(f"{url} did not come up")


async def load(
    url: str, name: str, arguments: dict[str, object], seconds: float, concurrency: int
) -> tuple[float, int]:
    done = errors = 0
    stop = time.monotonic() + seconds

    async def worker(http: httpx.AsyncClient) -> None:
        nonlocal done, errors
        rid = 0
        while time.monotonic() < stop:
            rid += 1
            r = await http.post(url, content=body(name, arguments, rid), headers={**HEADERS, "Mcp-Name": name})
            if r.status_code != 200 or r.json().get("result", {}).get("isError"):
                errors += 1
            done += 1

    limits = httpx.Limits(max_connections=concurrency)
    async with httpx.AsyncClient(limits=limits, timeout=30) as http:
        start = time.monotonic()
        await asyncio.gather(*(worker(http) for _ in range(concurrency)))
        return done / (time.monotonic() - start), errors


def start(cmd: list[str]) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HUB_STORE_PATH": f"/tmp/bench-mcp-{os.getpid()}.db"}
    return subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL)


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds per server; the median is reported")
    args = ap.parse_args()
    hub_port, bare_port = free_port(), free_port()
    procs = [
        start([sys.executable, "-m", "hub.cli", "serve", "--port", str(hub_port), "--log-level", "warning"]),
        start([sys.executable, "-c", BARE, str(bare_port)]),
    ]
    try:
        await wait_up(f"http://127.0.0.1:{hub_port}/healthz")
        await wait_up(f"http://127.0.0.1:{bare_port}/mcp")
        targets = {
            "bare MCPServer": f"http://127.0.0.1:{bare_port}/mcp",
            "hub (pinned session)": f"http://127.0.0.1:{hub_port}/sessions/bench/mcp/banking",
        }
        print(
            f"\n## Tool calls per second over MCP HTTP ({args.concurrency} concurrent clients, median of "
            f"{args.rounds} alternating {args.seconds:.0f} s rounds)\n"
        )
        print("| tool | bare MCPServer calls/s | hub calls/s | hub/bare | errors |")
        print("|---|---|---|---|---|")
        for kind, (name, arguments) in CALLS.items():
            rates: dict[str, list[float]] = {label: [] for label in targets}
            errs = 0
            for _ in range(args.rounds):  # alternate the two servers so drift in machine load hits both
                for label, url in targets.items():
                    await load(url, name, arguments, 0.5, args.concurrency)  # warm-up
                    rate, e = await load(url, name, arguments, args.seconds, args.concurrency)
                    rates[label].append(rate)
                    errs += e
            bare, hub = (statistics.median(rates[k]) for k in targets)
            print(f"| {kind}: {name} | {bare:.0f} | {hub:.0f} | {hub / bare:.2f} | {errs} |")
    finally:
        for p in procs:
            p.kill()
            p.wait(10)


if __name__ == "__main__":
    asyncio.run(main())
