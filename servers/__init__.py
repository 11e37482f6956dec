"""The server registry: every package (or module) under ``servers/`` that defines ``server`` is a server.

Adding a server is adding its package; nothing else names it. The hub core reads the registry through
``part`` (the ``servers`` entry point in the ``prove_hub.servers`` group), never by importing this package.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable

from hub.kit import Server
from hub.parts import Part

# The paper's Table 2 order: the catalog, the MCP tool listing and synthesis's schedule follow it, and a change of
# order would move every golden file. Servers beyond the paper's come after these, by name.
PAPER_ORDER = (
    "banking",
    "trading",
    "payments",
    "calendar",
    "email",
    "filesystem",
    "shopping",
    "marketplace",
    "retail_chain",
    "travel_booking",
    "maps",
    "social_media",
    "team_chat",
    "iot_devices",
    "vehicle",
    "crm",
    "issue_tracker",
    "budget",
    "food_delivery",
    "video_meeting",
)


def discover(package: str, path: Iterable[str]) -> list[Server]:
    """The ``server`` of each public module under ``path`` (the package ``package``), by module name."""
    found = []
    for info in sorted(pkgutil.iter_modules(list(path)), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{package}.{info.name}")
        server = getattr(module, "server", None)
        if not isinstance(server, Server):
            raise TypeError(f"{package}.{info.name} defines no `server` (a hub.kit.Server): every module here is one")
        found.append(server)
    return found


def in_paper_order(found: Iterable[Server]) -> tuple[Server, ...]:
    rank = {name: i for i, name in enumerate(PAPER_ORDER)}
    return tuple(sorted(found, key=lambda s: (rank.get(s.name, len(rank)), s.name)))


REGISTRY: tuple[Server, ...] = in_paper_order(discover(__name__, __path__))

part = Part("servers", servers=lambda: REGISTRY)
