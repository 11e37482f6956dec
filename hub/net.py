"""Small network helpers shared by the hub, its tests and the trainer's launcher."""

from __future__ import annotations

import socket
from dataclasses import dataclass


def free_port(host: str = "127.0.0.1") -> int:
    """A port nothing listens on right now, on ``host``."""
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


@dataclass
class Loopback:
    """A server on 127.0.0.1:``port``: its HTTP base URL and its rollout WebSocket's URL."""

    port: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"
