"""The server registry: the one place a server is registered. Adding a server is one module and one line."""

from __future__ import annotations

from hub.kit import Server
from servers import banking

REGISTRY: tuple[Server, ...] = (
    banking.server,
)
