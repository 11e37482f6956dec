"""Hubs as Ray actors: the shards of ``prove-hub serve --ray ADDRESS``, and ``start_hubs`` for separate hubs.

Each actor runs one full hub (uvicorn in a thread of the actor process) on its node and reports where it
listens. Off loopback a hub requires a bearer token: with one, each hub binds its node's address; without one
the hubs bind 127.0.0.1, so they must share the node with whoever calls them and a multi-node cluster is
refused. ``ray`` is not a dependency of the hub; it comes with the training extras (``pip install -e .[train]``)
and is imported only here, when a cluster is used.

``RaySupervisor`` is ``hub.shards.Supervisor`` with actors for worker processes: the front, its routing table and
the protocol are the same (docs/scale.md). An actor that dies (``ray.kill``, its node lost) is replaced by a new
one, the shard's next generation, and what lived on it answers ``session_lost``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from hub.config import Settings
from hub.net import free_port
from hub.shard_workers import Shard, Supervisor, worker_values

START_TIMEOUT_S = 300.0  # an actor builds its hub's library and seed worlds before it answers


class HubThread:
    """One hub served by uvicorn in a background thread of this process."""

    def __init__(self, settings: Settings) -> None:
        from hub.app import create_app
        from hub.transports import gate

        self.host, self.port = settings.host, settings.port
        self.server = gate.server(create_app(settings), settings, host=self.host, port=self.port, log_level="warning")
        self.thread = threading.Thread(target=self.server.run, name=f"prove-hub-{self.port}", daemon=True)
        self.thread.start()
        deadline = time.monotonic() + START_TIMEOUT_S
        while not self.server.started:  # uvicorn flips this once the socket is bound; nothing to wait on instead
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"hub on {self.host}:{self.port} did not start")
            time.sleep(0.05)

    @property
    def url(self) -> str:
        return f"ws://{self.host}:{self.port}/ws"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)


def bind_address(token: str | None, host: str | None = None) -> str:
    """Where an actor's hub listens: ``host``, else its node's address with a token, else loopback."""
    import ray

    return host or (ray.util.get_node_ip_address() if token else "127.0.0.1")


def _actor_class() -> Any:
    import ray

    # Threaded: ``wait`` blocks for the hub's whole life while ``url`` and ``stop`` still answer.
    @ray.remote(num_cpus=1, max_concurrency=4)  # type: ignore[call-overload]
    class HubActor:
        def __init__(self, values: dict[str, Any], host: str | None = None, store_dir: str | None = None) -> None:
            bind = bind_address(values.get("token"), host)
            port = free_port(bind)
            if store_dir:
                values = {**values, "store_path": f"{store_dir}/prove_hub_{port}.db"}
            self.hub = HubThread(Settings(**{**values, "host": bind, "port": port}).check())

        def url(self) -> str:
            return self.hub.url

        def address(self) -> dict[str, Any]:
            """Where this hub listens and runs (its node, its process)."""
            node = ray.get_runtime_context().get_node_id()
            return {"host": self.hub.host, "port": self.hub.port, "pid": os.getpid(), "node": node}

        def wait(self) -> None:
            """Returns when the hub stopped; a caller learns the actor died by this call failing."""
            self.hub.thread.join()

        def stop(self) -> None:
            self.hub.stop()

    return HubActor


def connect(address: str | None) -> None:
    """Join the cluster at ``address`` (``auto``: the local one; None: the one found or a new local one)."""
    try:
        import ray
    except ImportError as exc:
        raise ImportError("Ray is not installed: pip install 'ray[default]' (or the .[train] extras)") from exc
    if not ray.is_initialized():
        ray.init(address=address, ignore_reinit_error=True, include_dashboard=False)


def check_reachable(token: str | None, host: str | None) -> None:
    import ray

    nodes = [node for node in ray.nodes() if node.get("Alive")]
    if not token and host is None and len(nodes) > 1:
        raise ValueError(
            f"the Ray cluster has {len(nodes)} nodes: hubs without a token bind 127.0.0.1, unreachable "
            "from the other nodes; pass a token (--token / $HUB_TOKEN) so they bind their node's address"
        )


class RaySupervisor(Supervisor):
    """Shards as Ray actors spread over the cluster's nodes, watched through a call that ends with the actor."""

    def __init__(self, settings: Settings, workers: int, address: str | None, log_level: str = "warning") -> None:
        super().__init__(settings, workers, log_level)
        self.address = address
        self.cluster: str | None = None  # the cluster's GCS address, for /healthz and a trainer joining it

    async def start(self) -> None:
        import ray

        await asyncio.to_thread(connect, self.address)
        check_reachable(self.settings.token, None)
        self.cluster = ray.get_runtime_context().gcs_address
        await super().start()

    def about(self) -> dict[str, Any]:
        return {"ray": self.cluster}

    async def _launch(self, shard: Shard, restarted: bool) -> None:
        values = worker_values(self.settings, shard.index, len(self.shards), restarted)
        values.pop("host", None)
        values.pop("port", None)
        actor = _actor_class().options(scheduling_strategy="SPREAD").remote(values)
        shard.handle = actor
        where = await actor.address.remote()
        shard.host, shard.port, shard.pid, shard.node = where["host"], where["port"], where["pid"], where["node"]
        shard.watch = asyncio.ensure_future(actor.wait.remote())  # done() tells without waiting

    def _running(self, shard: Shard) -> bool:
        return shard.watch is not None and not shard.watch.done()

    async def _exited(self, shard: Shard) -> str:
        import ray

        assert shard.watch is not None
        try:
            await shard.watch
        except ray.exceptions.RayActorError as exc:
            return f"its actor died ({type(exc).__name__})"
        return "its hub stopped"

    async def _terminate(self) -> None:
        import ray

        for shard in self.shards:
            if shard.handle is not None:
                with contextlib.suppress(ray.exceptions.RayError, TimeoutError):
                    await asyncio.wait_for(shard.handle.stop.remote(), 30)
                ray.kill(shard.handle)


@dataclass
class HubFleet:
    """Separate hubs (no front): each its own URL, for a client that shards groups itself."""

    urls: list[str]
    actors: list[Any] = field(default_factory=list)
    address: str | None = None  # the cluster's GCS address: a trainer joins this cluster, not a second one

    def shutdown(self) -> None:
        import ray

        for actor in self.actors:
            with contextlib.suppress(ray.exceptions.RayError):  # a dead actor is already stopped
                ray.get(actor.stop.remote(), timeout=30)
            ray.kill(actor)
        self.actors.clear()


def start_hubs(
    n: int,
    token: str | None = None,
    seed: int = 0,
    tasks_path: str | None = None,
    host: str | None = None,
    spread: bool = True,
    store_dir: str | None = None,
    address: str | None = None,
) -> HubFleet:
    """``n`` separate hub actors (spread over the cluster's nodes when ``spread``); their ws URLs.

    ``address`` joins an existing cluster, else the one ``ray.init()`` finds or starts. Each hub's episode store
    is ``prove_hub_<port>.db`` in ``store_dir`` (default: the actor's working directory)."""
    if n < 1:
        raise ValueError("start at least one hub")
    connect(address)
    check_reachable(token, host)
    import ray

    values = {"token": token, "seed": seed, "tasks_path": tasks_path}
    actor = _actor_class()
    options = {"scheduling_strategy": "SPREAD"} if spread else {}
    actors = [actor.options(**options).remote(values, host, store_dir or ".") for _ in range(n)]
    urls = ray.get([a.url.remote() for a in actors], timeout=START_TIMEOUT_S)
    return HubFleet(list(urls), actors, ray.get_runtime_context().gcs_address)
