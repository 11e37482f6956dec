"""Start N PROVE hubs as Ray actors and hand their URLs to the trainer.

OpenRLHF already runs on Ray, so the hubs can live on the same cluster: each actor runs one hub
(uvicorn in a thread of the actor process) on its node and reports ``ws://node-ip:port/ws``. Sessions
are independent, so the agent shards GRPO groups across the hubs (``trainer_client.hubs``).

    from trainer_client.ray_hubs import start_hubs
    fleet = start_hubs(4, token="s3cret")          # ray.init() first, or it connects/starts a local Ray
    os.environ["PROVE_HUB_URLS"] = ",".join(fleet.urls)
    ...
    fleet.shutdown()

or ``prove-train --ray-hubs 4 ...``. Off loopback a hub requires a bearer token (the hub refuses to
bind a routable address without one): with ``token`` each hub binds its node's address; with no token
the hubs bind 127.0.0.1 and must share the node with the rollout actors, so a multi-node cluster is
refused. ``ray`` is not a dependency of
the hub; install it with the training extras (``pip install -e .[train]``).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

from hub.net import free_port


class HubServer:
    """One hub served by uvicorn in a background thread of this process."""

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        token: str | None = None,
        seed: int = 0,
        store_path: str | None = None,
        tasks_path: str | None = None,
    ) -> None:
        import uvicorn

        from hub.app import create_app
        from hub.config import Settings

        port = port or free_port(host)
        settings = Settings(
            host=host,
            port=port,
            token=token,
            seed=seed,
            store_path=store_path or f"prove_hub_{port}.db",
            tasks_path=tasks_path,
        ).check()
        self.host, self.port = host, port
        self.server = uvicorn.Server(uvicorn.Config(create_app(settings), host=host, port=port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, name=f"prove-hub-{port}", daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 60
        while not self.server.started:  # uvicorn flips this once the socket is bound
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"hub on {host}:{port} did not start")
            time.sleep(0.05)

    @property
    def url(self) -> str:
        return f"ws://{self.host}:{self.port}/ws"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)


def _actor_class() -> Any:
    import ray

    @ray.remote(num_cpus=1)
    class HubActor:
        def __init__(
            self, token: str | None, seed: int, tasks_path: str | None, host: str | None, store_dir: str | None
        ) -> None:
            bind = host or (ray.util.get_node_ip_address() if token else "127.0.0.1")
            port = free_port(bind)
            store = f"{store_dir}/prove_hub_{port}.db" if store_dir else None
            self.hub = HubServer(bind, port, token=token, seed=seed, store_path=store, tasks_path=tasks_path)

        def url(self) -> str:
            return self.hub.url

        def stop(self) -> None:
            self.hub.stop()

    return HubActor


@dataclass
class HubFleet:
    urls: list[str]
    actors: list[Any] = field(default_factory=list)
    address: str | None = None  # the cluster's GCS address: the trainer joins this cluster, not a second one

    def shutdown(self) -> None:
        import ray

        for actor in self.actors:
            try:
                ray.get(actor.stop.remote(), timeout=30)
            except Exception:  # noqa: BLE001 - a dead actor is already stopped
                pass
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
    """``n`` hub actors (spread over the cluster's nodes when ``spread``); their ws URLs.

    ``address`` joins an existing cluster (the trainer's), else the one ``ray.init()`` finds or starts.
    With a token each hub binds its node's address (reachable from the other nodes); without one it
    binds 127.0.0.1, so a cluster of more than one node is refused. Each hub's episode store is
    ``prove_hub_<port>.db`` in ``store_dir`` (default: the actor's working directory)."""
    try:
        import ray
    except ImportError as exc:
        raise ImportError("Ray is not installed: pip install 'ray[default]' (or the .[train] extras)") from exc
    if n < 1:
        raise ValueError("start at least one hub")
    if not ray.is_initialized():
        ray.init(address=address, ignore_reinit_error=True)
    nodes = [node for node in ray.nodes() if node.get("Alive")]
    if not token and host is None and len(nodes) > 1:
        raise ValueError(
            f"the Ray cluster has {len(nodes)} nodes: hubs without a token bind 127.0.0.1, unreachable "
            "from the other nodes; pass a token (--token / $HUB_TOKEN) so they bind their node's address"
        )
    actor = _actor_class()
    options = {"scheduling_strategy": "SPREAD"} if spread else {}
    actors = [actor.options(**options).remote(token, seed, tasks_path, host, store_dir) for _ in range(n)]
    urls = ray.get([a.url.remote() for a in actors], timeout=300)
    return HubFleet(list(urls), actors, ray.get_runtime_context().gcs_address)
