"""A hub in a process of its own, started through the hub's public command (``prove-hub ...``).

The trainer client imports nothing of the hub but the wire; when it needs a hub of its own (a Ray-hosted
front for ``prove-train --ray-hubs``, a suite's hub for ``eval --suite``) it runs the hub's command line on a
free loopback port and waits until ``/healthz`` answers::

    with HubProcess(["suite", "serve", "bfcl-mt"]) as hub:
        ...  # hub.url is ws://127.0.0.1:PORT/ws
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from typing import IO, Any

import httpx

START_TIMEOUT_S = 300.0  # a hub answers once it has built its library and seed worlds (every shard's, on Ray)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class HubProcess:
    """``python -m hub.cli ARGS --port P`` in a process of its own; ``start`` returns once it answers."""

    def __init__(self, args: list[str], env: dict[str, str] | None = None, port: int | None = None) -> None:
        self.port = port or free_port()
        self.args = [*args, "--port", str(self.port)]
        self.env = dict(os.environ, **(env or {}))
        self.process: subprocess.Popen[bytes] | None = None
        self.health: dict[str, Any] = {}

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def start(self) -> HubProcess:
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 - the hub's output, read back if it fails to start
        cmd = [sys.executable, "-m", "hub.cli", *self.args]
        self.process = subprocess.Popen(cmd, env=self.env, stdout=self.log, stderr=subprocess.STDOUT)
        try:
            self.health = wait_ready(f"http://127.0.0.1:{self.port}", self.process, self.log)
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        """A graceful stop (SIGINT: a Ray front stops its actors), then a kill after a minute."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def __enter__(self) -> HubProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def wait_ready(url: str, process: subprocess.Popen[bytes], log: IO[bytes]) -> dict[str, Any]:
    """Poll the hub's ``/healthz`` until it (every shard of it) answers; its health report."""
    deadline = time.monotonic() + START_TIMEOUT_S
    with httpx.Client(base_url=url, timeout=5) as http:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"the hub exited with {process.returncode}: {tail(log)}")
            try:
                health = http.get("/healthz").json()
            except (httpx.TransportError, ValueError):
                health = {}
            if health.get("ok") or health.get("status") == "ok":  # a sharded front, a single hub
                return health  # type: ignore[no-any-return]
            time.sleep(0.2)  # a child process coming up: no event to wait on
    raise RuntimeError(f"the hub did not answer within {START_TIMEOUT_S:.0f} s: {tail(log)}")


def tail(log: IO[bytes]) -> str:
    log.seek(0)
    return log.read().decode(errors="replace")[-2000:]
