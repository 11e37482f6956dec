"""Abuse benchmark: what each attack or fault of the reliability review makes a real hub hold, and how long
``/healthz`` waits meanwhile.

    .venv/bin/python benchmarks/bench_abuse.py [--budget 256M] [--quick] [--only writes frames ...]

Every scenario runs against its own fresh ``prove-hub serve`` process (``HUB_MAX_STATE_BYTES`` = the budget),
driven over its public doors (REST, MCP, ``/ws``) by real clients from this process. While it runs, one task
samples the hub's RSS (``/proc/PID/status``) every 50 ms and another asks ``/healthz`` every 100 ms, timing
each answer. The table prints, per scenario: the RSS before, at its peak and after, the target, the worst
``/healthz`` wait, and what the hub answered. Targets (the issue's, for a 256M budget): peak RSS at most
1.5 x budget + 150 MB under writes, seeds, snapshots, replies, subscribers and frames; after 5,000 sessions
expired, at most 1.2 x the RSS before they opened + 100 MB; the worst ``/healthz`` wait at most 1 s during a
64-grep step, the session list after LRU eviction and an n=256 open; an authorised request answered within
100 ms while 1,014 unauthenticated sockets are tried against a hub limited to 1,024 descriptors.

``--quick`` runs each at about a tenth of its size (a smoke run, not a measurement). The machine's load is
printed with the table: other processes on shared cores stretch every time here.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import resource
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hub.config import parse_size  # noqa: E402
from hub.net import Loopback, free_port  # noqa: E402
from hub.tasks import BUILTIN_TASKS, hermes_call, read_jsonl  # noqa: E402
from hub.testing import ws_request  # noqa: E402
from servers import REGISTRY  # noqa: E402

MB = 2**20
TOKEN = "bench-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
LEGACY = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


# The hub under test ------------------------------------------------------------------------------------


@dataclass
class HubProcess(Loopback):
    proc: subprocess.Popen[bytes]
    token: str | None
    log: Path

    @property
    def headers(self) -> dict[str, str]:
        return AUTH if self.token else {}

    def rss(self) -> int:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        return 0


async def start_hub(tmp: Path, budget: str, env: dict[str, str], token: str | None, nofile: int | None) -> HubProcess:
    port = free_port()
    log = tmp / f"hub-{port}.log"
    full_env = {**os.environ, "HUB_MAX_STATE_BYTES": budget, "HUB_STORE_PATH": str(tmp / f"store-{port}.db"), **env}
    if token:
        full_env["HUB_TOKEN"] = token

    def limit() -> None:
        if nofile is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

    cmd = [sys.executable, "-m", "hub.cli", "serve", "--port", str(port), "--log-level", "warning"]
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=full_env, stdout=out, stderr=subprocess.STDOUT, preexec_fn=limit)
    hub = HubProcess(port=port, proc=proc, token=token, log=log)
    async with httpx.AsyncClient(base_url=hub.url, timeout=5) as http, asyncio.timeout(300):
        while proc.poll() is None:
            try:
                if (await http.get("/healthz")).status_code == 200:
                    await http.get("/api/catalog", headers=hub.headers)
                    return hub
            except httpx.TransportError:
                await asyncio.sleep(0.25)
    raise RuntimeError(f"the hub exited ({proc.returncode}): {log.read_text()[-3000:]}")


def stop_hub(hub: HubProcess) -> None:
    hub.proc.terminate()
    try:
        hub.proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        hub.proc.kill()
        hub.proc.wait()


@dataclass
class Probe:
    """RSS peak and the worst /healthz wait while a scenario runs."""

    hub: HubProcess
    peak: int = 0
    worst_wait: float = 0.0
    health_failures: int = 0
    statuses: set[str] = field(default_factory=set)
    tasks: list[asyncio.Task[None]] = field(default_factory=list)

    def start(self) -> None:
        self.tasks = [asyncio.create_task(self._rss()), asyncio.create_task(self._health())]

    async def stop(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)

    async def _rss(self) -> None:
        while True:
            self.peak = max(self.peak, self.hub.rss())
            await asyncio.sleep(0.05)

    async def _health(self) -> None:
        async with httpx.AsyncClient(base_url=self.hub.url, timeout=120) as http:
            while True:
                start = time.perf_counter()
                try:
                    r = await http.get("/healthz")
                    self.statuses.add(r.json()["status"])
                except (httpx.HTTPError, ValueError):
                    self.health_failures += 1
                self.worst_wait = max(self.worst_wait, time.perf_counter() - start)
                await asyncio.sleep(0.1)


async def bounded(n: int, jobs: list[Callable[[], Awaitable[Any]]]) -> list[Any]:
    gate = asyncio.Semaphore(n)

    async def one(job: Callable[[], Awaitable[Any]]) -> Any:
        async with gate:
            return await job()

    return await asyncio.gather(*(one(j) for j in jobs), return_exceptions=True)


def outcomes(results: list[Any]) -> str:
    counts: dict[str, int] = {}
    for r in results:
        key = type(r).__name__ if isinstance(r, BaseException) else str(r)
        counts[key] = counts.get(key, 0) + 1
    return ", ".join(f"{k} x{v}" for k, v in sorted(counts.items()))


async def call(http: httpx.AsyncClient, sid: str, server: str, tool: str, **arguments: Any) -> httpx.Response:
    return await http.post(f"/api/sessions/{sid}/call/{server}/{tool}", json={"arguments": arguments})


def base_task() -> dict[str, Any]:
    task = next(t for t in read_jsonl(BUILTIN_TASKS) if t.id == "bank-transfer-002")
    return task.model_dump()


# Scenarios ---------------------------------------------------------------------------------------------


@dataclass
class Scenario:
    name: str
    run: Callable[[HubProcess, float], Awaitable[str]]
    kind: str  # "bounded", "expired", "wait", "auth"
    env: dict[str, str] = field(default_factory=dict)
    token: bool = False
    nofile: int | None = None
    budget: str | None = None  # another budget than --budget, for this row


async def writes(hub: HubProcess, size: float) -> str:
    """5 sessions double a 100 kB file's directory ten times each through copy_path (about 2 kB of requests)."""
    async with httpx.AsyncClient(base_url=hub.url, timeout=300, headers=hub.headers) as http:

        async def grow(s: int) -> str:
            sid = f"w{s}"
            await call(http, sid, "filesystem", "make_directory", path="d0")
            await call(http, sid, "filesystem", "write_file", path="d0/f.txt", content="x" * 100_000)
            last = ""
            for i in range(1, max(2, int(10 * size)) + 1):
                for dest in (f"d{i}", f"d{i}/b"):
                    r = await call(
                        http, sid, "filesystem", "copy_path", source=f"d{i - 1}", destination=dest, recursive=True
                    )
                    last = "ok" if r.json().get("ok") else str(r.json().get("error_kind") or r.json().get("code"))
            return last

        return outcomes(await asyncio.gather(*(grow(s) for s in range(5)), return_exceptions=True))


async def seeds(hub: HubProcess, size: float) -> str:
    """55 sessions, each of its own seed, touching three servers (each seed's databases built anew)."""
    servers = ("banking", "email", "filesystem")
    async with httpx.AsyncClient(base_url=hub.url, timeout=300, headers=hub.headers) as http:

        async def one(i: int) -> str:
            r = await http.post("/api/sessions", json={"id": f"seed{i}", "seed": 1000 + i})
            if r.status_code != 201:
                return str(r.json().get("code"))
            for server in servers:
                tool = {"banking": "list_accounts", "email": "list_mailboxes", "filesystem": "list_directory"}[server]
                r = await call(http, f"seed{i}", server, tool)
                if r.status_code != 200:
                    return str(r.json().get("code") or r.json().get("error_kind"))
            return "ok"

        return outcomes(await bounded(4, [lambda i=i: one(i) for i in range(int(55 * size))]))


async def snapshots(hub: HubProcess, size: float) -> str:
    """400 sessions each change banking, snapshot it and are deleted."""
    async with httpx.AsyncClient(base_url=hub.url, timeout=300, headers=hub.headers) as http:

        async def one(i: int) -> str:
            sid = f"snap{i}"
            await call(http, sid, "banking", "deposit_funds", account_id="ACC-0001", amount=float(i + 1))
            r = await http.post(f"/api/sessions/{sid}/snapshot")
            await http.delete(f"/api/sessions/{sid}")
            return "ok" if r.status_code == 201 else str(r.json().get("code"))

        return outcomes(await bounded(8, [lambda i=i: one(i) for i in range(int(400 * size))]))


async def replies(hub: HubProcess, size: float) -> str:
    """One episode sent 300 replies of 990 kB (a tool call and padding), then closed."""
    text = hermes_call("banking__list_transactions", {"account_id": "ACC-0002"}) + "x" * 990_000
    got: dict[str, int] = {}
    async with connect(hub.ws_url, max_size=None, additional_headers=hub.headers) as ws:
        await ws_request(ws, {"type": "hello"})
        limits = {"max_steps": 1000, "max_output_chars": 1_000_000}
        opened = await ws_request(ws, {"type": "open", "task": "bank-transfer-002", "limits": limits})
        eid = opened["episodes"][0]["episode"]
        for _ in range(int(300 * size)):
            reply = await ws_request(ws, {"type": "step", "episode": eid, "text": text})
            key = reply.get("reason") or reply.get("code") or reply["type"]
            got[key] = got.get(key, 0) + 1
        await ws_request(ws, {"type": "close", "episodes": [eid]})
    return ", ".join(f"{k} x{v}" for k, v in got.items())


async def subscribers(hub: HubProcess, size: float) -> str:
    """A subscriber that never reads, while 10,000 tool calls with ~15 kB results are published."""
    async with connect(hub.ws_url, max_size=None, additional_headers=hub.headers) as ws:
        await ws_request(ws, {"type": "hello"})
        await ws.send(json.dumps({"type": "subscribe", "kinds": ["tool_call"], "maxsize": 10_000}))
        async with httpx.AsyncClient(base_url=hub.url, timeout=300, headers=hub.headers) as http:
            jobs = [
                lambda: call(http, "sub", "banking", "list_transactions", account_id="ACC-0001", limit=100)
                for _ in range(int(10_000 * size))
            ]
            results = await bounded(16, jobs)
    return outcomes([r.status_code if isinstance(r, httpx.Response) else r for r in results])


async def frames(hub: HubProcess, size: float) -> str:
    """40 clients each send a 15 MiB text frame to /ws at once."""

    async def one() -> str:
        reader, writer = await asyncio.open_connection("127.0.0.1", hub.port)
        key = base64.b64encode(os.urandom(16)).decode()
        auth = f"Authorization: Bearer {TOKEN}\r\n" if hub.token else ""
        writer.write(
            (
                f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n{auth}"
                f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        await reader.readuntil(b"\r\n\r\n")
        total = 15 * MB
        writer.write(b"\x81\xff" + struct.pack("!Q", total) + b"\x00" * 4)
        sent = 0
        chunk = b"a" * (256 * 1024)
        try:
            while sent < total:
                writer.write(chunk)
                await writer.drain()
                sent += len(chunk)
            head = await asyncio.wait_for(reader.readexactly(2), 30)
            body = await reader.readexactly(head[1] & 0x7F)
            code = struct.unpack("!H", body[:2])[0] if head[0] == 0x88 else head[0]
            return f"closed {code} after {sent // MB} MiB sent"
        except (ConnectionError, asyncio.IncompleteReadError):
            return f"reset after {sent // MB} MiB sent"
        finally:
            writer.close()

    results = await asyncio.gather(*(one() for _ in range(max(2, int(40 * size)))), return_exceptions=True)
    most = max((int(r.split(" after ")[1].split(" ")[0]) for r in results if isinstance(r, str)), default=0)
    kinds = outcomes([r if isinstance(r, BaseException) else r.split(" after")[0] for r in results])
    return f"{kinds}; at most {most} MiB of a 15 MiB frame sent before the hub refused it"


async def expired(hub: HubProcess, size: float) -> str:
    """5,000 sessions each make a banking write and expire (TTL 4 s); RSS once the sweeper has closed them all.
    A call the budget refuses (429) is sent again a little later, as a client would, so that every one of the
    5,000 sessions really opens (a few hundred fit in the budget at once)."""
    refused = 0

    async with httpx.AsyncClient(base_url=hub.url, timeout=300, headers=hub.headers) as http:

        async def one(i: int) -> int:
            nonlocal refused
            while True:
                r = await call(http, f"x{i}", "banking", "deposit_funds", account_id="ACC-0001", amount=1.0)
                if r.status_code != 429:
                    return r.status_code
                refused += 1
                await asyncio.sleep(0.5)

        results = await bounded(16, [lambda i=i: one(i) for i in range(int(5000 * size))])
        async with asyncio.timeout(300):
            while (await http.get("/healthz")).json().get("sessions", 0) > 2:
                await asyncio.sleep(1)
    return f"{outcomes(results)} ({refused} refusals for capacity, sent again)"


async def grep64(hub: HubProcess, size: float) -> str:
    """One step of 64 catastrophic greps (each stops at the 0.25 s regex limit)."""
    task = base_task() | {"id": "bench-grep", "servers": ["filesystem"], "tools": ["filesystem__grep_files"]}
    line = "a" * 40 + "!"
    task["initial"] = {
        "seed": 0,
        "setup": [
            {"server": "filesystem", "tool": "write_file", "arguments": {"path": "long.txt", "content": line * 2}}
        ],
    }
    grep = {"pattern": "(a|a)*$", "path": "long.txt"}
    task["turns"] = [
        {"user": "grep", "calls": [{"server": "filesystem", "tool": "grep_files", "arguments": grep, "id": "g1"}]}
    ]
    task["expected_state_hash"] = None
    calls = hermes_call("filesystem__grep_files", {"pattern": "(a|a)*$", "path": "long.txt"}) * int(64 * size or 1)
    async with connect(hub.ws_url, max_size=None, additional_headers=hub.headers) as ws:
        await ws_request(ws, {"type": "hello"})
        opened = await ws_request(ws, {"type": "open", "task": task, "limits": {"max_calls_per_step": 256}})
        if opened["type"] != "opened":
            return f"open: {opened.get('code')}: {opened.get('message', '')[:80]}"
        start = time.perf_counter()
        step = await ws_request(ws, {"type": "step", "episode": opened["episodes"][0]["episode"], "text": calls})
        took = time.perf_counter() - start
    return f"step {step['type']} in {took:.1f} s"


async def lru(hub: HubProcess, size: float) -> str:
    """55 sessions of distinct seeds (the seed cache keeps 8), then GET /api/sessions."""
    async with httpx.AsyncClient(base_url=hub.url, timeout=300, headers=hub.headers) as http:

        async def one(i: int) -> None:
            await http.post("/api/sessions", json={"id": f"lru{i}", "seed": 2000 + i})
            await call(http, f"lru{i}", "banking", "list_accounts")

        await bounded(4, [lambda i=i: one(i) for i in range(int(55 * size))])
        start = time.perf_counter()
        r = await http.get("/api/sessions")
        took = time.perf_counter() - start
    return f"list {r.status_code} ({len(r.json().get('sessions', []))} sessions) in {took:.1f} s"


async def open256(hub: HubProcess, size: float) -> str:
    """/ws open of n=256 episodes of a task over every registered server."""
    task = base_task() | {"id": "bench-20", "servers": [s.name for s in REGISTRY], "expected_state_hash": None}
    async with connect(hub.ws_url, max_size=None, additional_headers=hub.headers) as ws:
        await ws_request(ws, {"type": "hello"})
        start = time.perf_counter()
        opened = await ws_request(ws, {"type": "open", "task": task, "n": max(2, int(256 * size))})
        took = time.perf_counter() - start
        if opened["type"] == "opened":
            await ws_request(ws, {"type": "close", "episodes": [e["episode"] for e in opened["episodes"]]})
    return f"{opened['type']} {opened.get('code') or len(opened.get('episodes', []))} in {took:.1f} s"


async def unauthenticated(hub: HubProcess, size: float) -> str:
    """1,014 sockets try /ws without the token (the hub has 1,024 descriptors); an authorised request meanwhile."""
    held: list[Any] = []

    async def one() -> str:
        try:
            held.append(await connect(hub.ws_url, open_timeout=30))
            return "held"
        except InvalidStatus as exc:
            return f"refused {exc.response.status_code}"
        except (InvalidHandshake, OSError, TimeoutError) as exc:
            return type(exc).__name__

    results = await asyncio.gather(*(one() for _ in range(int(1014 * size))))
    waits = []
    async with httpx.AsyncClient(base_url=hub.url, timeout=60, headers=AUTH) as http:
        for _ in range(5):
            start = time.perf_counter()
            r = await http.get("/api/catalog")
            waits.append((time.perf_counter() - start, r.status_code))
    open_now = 0
    for ws in held:
        try:
            await asyncio.wait_for(ws.recv(), 0.01)
        except ConnectionClosed:
            continue
        except TimeoutError:
            open_now += 1
    for ws in held:
        await ws.close()
    worst = max(w for w, _ in waits)
    return f"{outcomes(results)}; still open {open_now}; authorised {waits[-1][1]} worst {worst * 1000:.0f} ms"


SCENARIOS = [
    Scenario("writes", writes, "bounded"),
    Scenario("seeds", seeds, "bounded"),
    Scenario("snapshots", snapshots, "bounded"),
    Scenario("replies", replies, "bounded"),
    Scenario("subscribers", subscribers, "bounded"),
    Scenario("frames", frames, "bounded"),
    Scenario("expired", expired, "expired", env={"HUB_SESSION_TTL_S": "4"}),
    Scenario("grep64", grep64, "wait"),
    Scenario("lru", lru, "wait"),
    Scenario("open256", open256, "wait", budget="4G"),
    Scenario("unauthenticated", unauthenticated, "auth", token=True, nofile=1024),
]


@dataclass
class Row:
    name: str
    budget: int
    before: int
    peak: int
    after: int
    wait: float
    note: str
    target: str
    met: bool


async def run(scenario: Scenario, budget_text: str, size: float, tmp: Path) -> Row:
    budget_text = scenario.budget or budget_text
    budget = parse_size(budget_text) or 0
    hub = await start_hub(tmp, budget_text, scenario.env, TOKEN if scenario.token else None, scenario.nofile)
    try:
        before = hub.rss()
        probe = Probe(hub)
        probe.start()
        try:
            note = await scenario.run(hub, size)
        except Exception as exc:  # the bench reports a scenario that broke, and goes on with the others
            note = f"scenario failed: {type(exc).__name__}: {exc}"[:200]
        await asyncio.sleep(1.0)
        after = hub.rss()
        await probe.stop()
        peak = max(probe.peak, after)
        if hub.proc.poll() is not None:
            note += f"; the hub died ({hub.proc.returncode})"
    finally:
        stop_hub(hub)
    if scenario.kind == "bounded":
        limit = 1.5 * budget + 150 * MB
        target, met = f"peak <= {limit / MB:,.0f} MB", peak <= limit
    elif scenario.kind == "expired":
        limit = 1.2 * before + 100 * MB
        target, met = f"after <= {limit / MB:,.0f} MB", after <= limit
    elif scenario.kind == "wait":
        target, met = "healthz <= 1 s", probe.worst_wait <= 1.0
    else:
        worst = float(note.rsplit("worst ", 1)[-1].split(" ms")[0]) if "worst " in note else float("inf")
        target, met = "authorised <= 100 ms", worst <= 100
    if probe.health_failures:
        note += f"; /healthz failed {probe.health_failures} times"
    return Row(scenario.name, budget, before, peak, after, probe.worst_wait, note, target, met)


def table(rows: list[Row]) -> str:
    head = (
        f"{'scenario':<16} {'budget':>7} {'before':>8} {'peak':>8} {'after':>8} {'healthz':>8}  "
        f"{'target':<22} met  what the hub answered"
    )
    lines = [head, "-" * len(head)]
    for r in rows:
        lines.append(
            f"{r.name:<16} {r.budget / MB:>6,.0f}M {r.before / MB:>7,.0f}M {r.peak / MB:>7,.0f}M "
            f"{r.after / MB:>7,.0f}M {r.wait:>7.2f}s  {r.target:<22} {'yes' if r.met else 'NO ':<4} {r.note}"
        )
    return "\n".join(lines)


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--budget", default="256M", help="HUB_MAX_STATE_BYTES of each hub (default 256M)")
    ap.add_argument("--quick", action="store_true", help="about a tenth of each scenario's size (a smoke run)")
    ap.add_argument("--only", nargs="+", choices=[s.name for s in SCENARIOS], help="run only these scenarios")
    args = ap.parse_args()
    size = 0.1 if args.quick else 1.0
    chosen = [s for s in SCENARIOS if not args.only or s.name in args.only]
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-abuse-") as tmp:
        for scenario in chosen:
            print(f"running {scenario.name} ...", file=sys.stderr, flush=True)
            rows.append(await run(scenario, args.budget, size, Path(tmp)))
    print(f"load average at the end: {os.getloadavg()}  ({os.cpu_count()} cores; size x{size})")
    print(table(rows))


if __name__ == "__main__":
    asyncio.run(main())
