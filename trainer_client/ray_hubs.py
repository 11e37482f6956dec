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
import tempfile
from dataclasses import dataclass

from trainer_client.hub_process import HubProcess


@dataclass
class HubFleet:
    """The front of a Ray-hosted hub: its URL, its process, the cluster its shards run on."""

    urls: list[str]
    hub: HubProcess | None = None
    address: str | None = None  # the cluster's GCS address: the trainer joins this cluster, not a second one

    def shutdown(self) -> None:
        if self.hub is not None:
            self.hub.stop()  # a graceful stop: the front stops its actors


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
    store = store or os.path.join(tempfile.mkdtemp(prefix="prove-ray-hub-"), "prove_hub.db")
    args = ["serve", "--ray", address or "", "--workers", str(n), "--host", bind, "--log-level", "warning"]
    hub = HubProcess([*args, "--store", store], env={"HUB_TOKEN": token} if token else None).start()
    return HubFleet([f"ws://{reach}:{hub.port}/ws"], hub, hub.health.get("ray"))
