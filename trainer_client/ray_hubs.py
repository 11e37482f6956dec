"""``prove-train --ray-hubs N``: the hub's shards as Ray actors behind one URL, through the hub's own command.

OpenRLHF already runs on Ray, so the hub's shards can live on the same cluster. The launcher runs the hub's
public entry, ``prove-hub serve --ray ADDRESS --workers N`` (docs/scale.md), waits until its front answers, and
hands the trainer the front's one URL; the front's ``/healthz`` names the cluster its actors run on, which the
trainer then joins (one cluster, not two). The trainer client imports nothing of the hub but the wire: how hubs
are hosted on Ray is the hub's business (``hub/ray_hosting.py``).

    fleet = start_hubs(4, token="s3cret", address="head:6379")
    os.environ["PROVE_HUB_URLS"] = ",".join(fleet.urls)
    ...
    fleet.shutdown()

Off loopback a hub requires a bearer token: with ``token`` the front binds every address and is reached at this
node's address (the shards bind theirs); without one everything binds 127.0.0.1 and a cluster of more than one
node is refused by the hub.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import IO

import httpx

START_TIMEOUT_S = 300.0  # the front answers once every shard has built its library and seed worlds


@dataclass
class HubFleet:
    """The front of a Ray-hosted hub: its URL, its process, the cluster its shards run on."""

    urls: list[str]
    process: subprocess.Popen[bytes] | None = None
    address: str | None = None  # the cluster's GCS address: the trainer joins this cluster, not a second one

    def shutdown(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGINT)  # a graceful stop: the front stops its actors
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def advertised_host(token: str | None) -> tuple[str, str]:
    """(bind, reach): where the front listens and the address the trainer's actors use."""
    if not token:
        return "127.0.0.1", "127.0.0.1"
    import ray

    return "0.0.0.0", ray.util.get_node_ip_address()  # noqa: S104 - a token guards it


def start_hubs(n: int, token: str | None = None, address: str | None = None, store: str | None = None) -> HubFleet:
    """``prove-hub serve --ray ADDRESS --workers n`` in a process of its own; its URL once every shard answers."""
    if n < 1:
        raise ValueError("start at least one hub")
    bind, reach = advertised_host(token)
    port = free_port()
    cmd = [sys.executable, "-m", "hub.cli", "serve", "--ray", address or "", "--workers", str(n)]
    cmd += ["--host", bind, "--port", str(port), "--log-level", "warning"]
    cmd += ["--store", store or str(os.path.join(tempfile.mkdtemp(prefix="prove-ray-hub-"), "prove_hub.db"))]
    env = dict(os.environ, **({"HUB_TOKEN": token} if token else {}))
    log = tempfile.TemporaryFile()  # noqa: SIM115 - the front's output, read back if it fails to start
    process = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT)
    fleet = HubFleet([f"ws://{reach}:{port}/ws"], process)
    try:
        fleet.address = wait_ready(f"http://127.0.0.1:{port}", process, log)
    except BaseException:
        fleet.shutdown()
        raise
    return fleet


def wait_ready(url: str, process: subprocess.Popen[bytes], log: IO[bytes]) -> str | None:
    """Poll the front's ``/healthz`` until every shard answers; the cluster's address it reports."""
    deadline = time.monotonic() + START_TIMEOUT_S
    with httpx.Client(base_url=url, timeout=5) as http:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"the Ray-hosted hub exited with {process.returncode}: {_tail(log)}")
            try:
                health = http.get("/healthz").json()
            except (httpx.TransportError, ValueError):
                health = {}
            if health.get("ok"):
                return health.get("ray")  # type: ignore[no-any-return]
            time.sleep(0.2)  # a child process coming up: no event to wait on
    raise RuntimeError(f"the Ray-hosted hub did not answer within {START_TIMEOUT_S:.0f} s: {_tail(log)}")


def _tail(log: IO[bytes]) -> str:
    log.seek(0)
    return log.read().decode(errors="replace")[-2000:]
