"""Token mode that holds: authenticate before holding, throttle guesses, cap connections, keep the token out of logs.

Each test is a reliability scenario at reduced size (``abuse``), against a real uvicorn on loopback with the
hub's own connection gate, and real websockets and httpx clients.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from hub.app import create_app
from hub.config import Settings, is_loopback_host
from hub.core import Hub
from hub.logs import Every
from hub.testing import free_port, serve
from hub.transports.gate import ACCEPT_FAILED, ConnectionGate, quiet_accept_failures
from hub.transports.guard import RedactToken
from hub.transports.ws import PENDING_PER_ADDRESS
from tests.conftest import LIBRARY

pytestmark = pytest.mark.abuse
TOKEN = "s3cret-Token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
ROOT = Path(__file__).resolve().parent.parent


def make_app(tmp_path: Path, **kw: Any) -> Any:
    s = Settings(store_path=str(tmp_path / "store.db"), token=TOKEN, **kw)
    return create_app(s, Hub(s, LIBRARY))


async def closed_code(ws: ClientConnection, timeout: float = 10.0) -> int | None:
    """Read until the hub closes the socket; its close code."""
    with pytest.raises(ConnectionClosed) as closed:
        async with asyncio.timeout(timeout):
            while True:
                await ws.recv()
    return None if closed.value.rcvd is None else closed.value.rcvd.code


# Authenticate before holding ---------------------------------------------------------------------------


async def test_a_socket_without_a_valid_hello_is_closed_after_the_hello_timeout(tmp_path: Path) -> None:
    async with serve(make_app(tmp_path, hello_timeout_s=0.3)) as live:
        async with connect(live.ws_url) as ws:  # says nothing at all
            assert await closed_code(ws) == 1008
        async with connect(live.ws_url) as ws:  # talks, but never authenticates
            await ws.send(json.dumps({"type": "ping", "id": 1}))
            assert json.loads(await ws.recv())["code"] == "hello_required"
            assert await closed_code(ws) == 1008
        async with connect(live.ws_url) as ws:  # authenticates in time, then stays past the hello timeout
            await ws.send(json.dumps({"type": "hello", "token": TOKEN, "id": 1}))
            assert json.loads(await ws.recv())["type"] == "welcome"
            with pytest.raises(TimeoutError):  # the hello deadline passes: no close comes
                async with asyncio.timeout(0.6):
                    await ws.recv()
            await ws.send(json.dumps({"type": "ping", "id": 2}))
            assert json.loads(await ws.recv())["type"] == "pong"
        assert live.app.state.ws_admission.pending == {}


async def test_an_idle_authenticated_socket_is_closed_but_a_subscriber_is_not(tmp_path: Path) -> None:
    async with serve(make_app(tmp_path, idle_timeout_s=0.3)) as live:
        async with connect(live.ws_url, additional_headers=AUTH) as ws:
            await ws.send(json.dumps({"type": "hello", "id": 1}))
            assert json.loads(await ws.recv())["type"] == "welcome"
            assert await closed_code(ws) == 1000
        async with connect(live.ws_url, additional_headers=AUTH) as ws:
            await ws.send(json.dumps({"type": "hello", "id": 0}))
            assert json.loads(await ws.recv())["type"] == "welcome"
            await ws.send(json.dumps({"type": "subscribe", "kinds": ["run"], "id": 1}))
            assert json.loads(await ws.recv())["type"] == "subscribed"
            with pytest.raises(TimeoutError):  # listening, not idle: no close comes
                async with asyncio.timeout(1.0):
                    await ws.recv()


async def test_unauthenticated_sockets_are_capped_per_address_and_authorized_callers_still_get_in(
    tmp_path: Path,
) -> None:
    async with serve(make_app(tmp_path)) as live:
        held = [await connect(live.ws_url) for _ in range(PENDING_PER_ADDRESS)]
        try:
            with pytest.raises(InvalidStatus) as refused:
                await connect(live.ws_url)
            assert refused.value.response.status_code == 503
            assert json.loads(refused.value.response.body or b"{}")["code"] == "overloaded"
            async with httpx.AsyncClient(base_url=live.url, headers=AUTH) as http:
                assert (await http.get("/api/catalog")).status_code == 200
            async with connect(live.ws_url, additional_headers=AUTH) as ws:
                await ws.send(json.dumps({"type": "hello", "id": 1}))
                assert json.loads(await ws.recv())["type"] == "welcome"
            await held[0].send(json.dumps({"type": "hello", "token": TOKEN, "id": 1}))  # one authenticates:
            assert json.loads(await held[0].recv())["type"] == "welcome"
            async with connect(live.ws_url):  # its slot is free for a newcomer
                pass
        finally:
            for ws in held:
                await ws.close()


# Guessing is throttled ---------------------------------------------------------------------------------


async def test_wrong_hellos_are_throttled_per_address(tmp_path: Path) -> None:
    async with serve(make_app(tmp_path, auth_failures=3)) as live:
        async with connect(live.ws_url) as ws:
            for i in range(3):
                await ws.send(json.dumps({"type": "hello", "token": f"guess-{i}", "id": i}))
                assert json.loads(await ws.recv())["code"] == "unauthorized"
            assert await closed_code(ws) == 1008
        with pytest.raises(InvalidStatus) as refused:
            await connect(live.ws_url)
        assert refused.value.response.status_code == 429
        assert int(refused.value.response.headers["Retry-After"]) >= 1
        async with httpx.AsyncClient(base_url=live.url, headers=AUTH) as http:  # the address is refused, token or not
            r = await http.get("/api/catalog")
        assert r.status_code == 429 and r.json()["code"] == "rate_limited"


async def test_wrong_bearer_tokens_are_throttled_and_requests_without_one_are_not_counted(tmp_path: Path) -> None:
    async with serve(make_app(tmp_path, auth_failures=3)) as live, httpx.AsyncClient(base_url=live.url) as http:
        for _ in range(10):
            assert (await http.get("/api/catalog")).status_code == 401  # no token: refused, not a guess
        assert (await http.get("/api/catalog", headers=AUTH)).status_code == 200
        for i in range(3):
            r = await http.get("/api/catalog", headers={"Authorization": f"Bearer guess-{i}"})
            assert r.status_code == 401
        r = await http.get("/api/catalog", headers=AUTH)
        assert r.status_code == 429 and r.json()["code"] == "rate_limited" and "Retry-After" in r.headers
        assert (await http.get("/healthz")).json() == {"status": "ok"}  # the health check stays open


# Connection limits below the application ---------------------------------------------------------------


async def test_connections_past_the_per_address_cap_get_503_and_late_headers_are_dropped(tmp_path: Path) -> None:
    app = make_app(tmp_path, max_connections_per_address=3)
    async with serve(app, header_timeout_s=0.3) as live:
        held = [await asyncio.open_connection("127.0.0.1", live.port) for _ in range(3)]
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", live.port)
            async with asyncio.timeout(10):
                answer = await reader.read()
            writer.close()
            assert answer.startswith(b"HTTP/1.1 503") and b'"code": "overloaded"' in answer
            gate: ConnectionGate = live.app.state.gate
            assert gate.refused == 1 and len(gate) == 3
            held[0][1].write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # headers begun, never finished
            for reader, _ in held:  # every one of them is dropped once its headers are late
                async with asyncio.timeout(10):
                    assert await reader.read() == b""
            assert gate.timed_out == 3
        finally:
            for _, w in held:
                w.close()
        async with httpx.AsyncClient(base_url=live.url, headers=AUTH) as http:
            assert (await http.get("/api/catalog")).status_code == 200
        assert len(live.app.state.gate) <= 1


def test_the_gate_stays_below_the_descriptor_limit() -> None:
    gate = ConnectionGate(10_000, 100, descriptors=1024)
    assert gate.max_total <= 1024 - 64


async def test_accept_failures_are_logged_once_per_interval(caplog: pytest.LogCaptureFixture) -> None:
    loop = asyncio.get_running_loop()
    previous = loop.get_exception_handler()
    gate = ConnectionGate(100, 10)
    gate.log = Every(logging.getLogger("hub.transports.gate"), 3600.0)
    try:
        quiet_accept_failures(loop, gate)
        with caplog.at_level(logging.WARNING, logger="hub.transports.gate"):
            for _ in range(500):
                loop.call_exception_handler({"message": ACCEPT_FAILED, "exception": OSError(24, "Too many open files")})
    finally:
        loop.set_exception_handler(previous)
    lines = [r for r in caplog.records if r.name == "hub.transports.gate"]
    assert gate.accept_failures == 500 and len(lines) == 1 and "Too many open files" in lines[0].getMessage()


# Loopback by address, health without the token ---------------------------------------------------------


@pytest.mark.parametrize(
    "host, loopback",
    [
        ("127.0.0.1", True),
        ("127.9.9.9", True),
        ("::1", True),
        ("localhost", True),
        ("::ffff:127.0.0.1", True),
        ("127.0.0.1.nip.io", False),
        ("127.example.com", False),
        ("0.0.0.0", False),
        ("10.0.0.1", False),
    ],
)
def test_loopback_is_decided_by_address(host: str, loopback: bool) -> None:
    assert is_loopback_host(host) is loopback
    if not loopback:
        with pytest.raises(ValueError, match="requires a bearer token"):
            Settings(host=host).check()


async def test_healthz_in_token_mode_says_only_ok_or_degraded_without_the_token(tmp_path: Path) -> None:
    async with serve(make_app(tmp_path)) as live, httpx.AsyncClient(base_url=live.url) as http:
        assert (await http.get("/healthz")).json() == {"status": "ok"}
        full = (await http.get("/healthz", headers=AUTH)).json()
        assert full["status"] == "ok" and full["sessions"] >= 1 and full["connections"]["open"] >= 1


# The token never reaches a log line --------------------------------------------------------------------


def test_the_redaction_masks_every_spelling_of_the_token() -> None:
    redact = RedactToken([TOKEN])
    for text in (
        f"/ws?token={TOKEN}",
        f"/api?x=1&TOKEN={TOKEN}",
        f"/api?%74oken={TOKEN}",
        f"/api?%74%6F%6B%65%6E={TOKEN}",
        f"Bearer {TOKEN}",
        f"/ws?token={TOKEN.replace('-', '%2D')}",
    ):
        assert TOKEN not in redact.clean(text) and "%2D" not in redact.clean(text).replace("***", "")
    record = logging.LogRecord("x", logging.ERROR, "", 0, "%s failed", (f"GET /?token={TOKEN}",), None)
    try:
        raise RuntimeError(f"boom {TOKEN}")
    except RuntimeError:
        record.exc_info = sys.exc_info()
    redact.filter(record)
    assert TOKEN not in record.getMessage() and TOKEN not in (record.exc_text or "")


@pytest.mark.slow
async def test_the_token_never_appears_in_the_hubs_output(tmp_path: Path) -> None:
    """A real ``prove-hub serve`` in token mode, at log level info: HTTP, WebSocket and error lines are clean."""
    port = free_port()
    log = tmp_path / "hub.log"
    env = {**os.environ, "HUB_TOKEN": TOKEN, "HUB_STORE_PATH": str(tmp_path / "store.db")}
    cmd = [sys.executable, "-m", "hub.cli", "serve", "--port", str(port), "--only", "banking", "--log-level", "info"]
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        url, ws_url = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}/ws"
        await wait_until_up(url, proc)
        async with httpx.AsyncClient(base_url=url) as http:
            assert (await http.get(f"/api/catalog?token={TOKEN}")).status_code == 200
            assert (await http.get(f"/api/catalog?%74oken={TOKEN}")).status_code == 200
            assert (await http.get(f"/api/nowhere?token={TOKEN}")).status_code == 404
            await http.post(f"/api/sessions?token={TOKEN}", content="{not json")
        async with connect(f"{ws_url}?token={TOKEN}") as ws:
            await ws.send(json.dumps({"type": "hello", "id": 1}))
            assert json.loads(await ws.recv())["type"] == "welcome"
        async with connect(ws_url) as ws:
            await ws.send(json.dumps({"type": "hello", "token": TOKEN + "x", "id": 1}))
            assert json.loads(await ws.recv())["code"] == "unauthorized"
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
    text = log.read_text(errors="replace")
    assert '"WebSocket /ws?token=***"' in text and "GET /api/catalog?token=***" in text
    assert TOKEN not in text


async def wait_until_up(url: str, proc: subprocess.Popen[bytes]) -> None:
    async with httpx.AsyncClient(base_url=url) as http, asyncio.timeout(120):
        while proc.poll() is None:
            try:
                if (await http.get("/healthz")).status_code == 200:
                    return
            except httpx.TransportError:
                await asyncio.sleep(0.2)
    raise AssertionError(f"the hub exited with {proc.returncode} before answering")
