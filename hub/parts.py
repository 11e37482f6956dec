"""Parts: how the app and the ``prove-hub`` command are assembled, the way datasette takes plugins.

A part offers any of five hooks, each optional:

- ``install(app)``: build its per-app state once, when the app is assembled (before any request);
- ``routes(app)``: its routes (the app carries ``app.state.hub`` and ``app.state.settings``);
- ``lifespan(app)``: an async context manager that runs while the app serves (background services);
- ``add_commands(subparsers)``: its ``prove-hub`` subcommands (each sets ``handler`` as its default);
- ``servers()``: the stateful servers it brings (``hub.kit.Server``), called when a hub builds its library.

The hub's own parts (MCP, JSON API, rollout WebSocket, metrics, episode store, synthesis) are listed
in the composition root, ``hub.app``. Parts outside ``hub/`` (the dashboard, the evaluation command)
declare themselves as package entry points in the ``prove_hub.parts`` group, e.g. in pyproject.toml::

    [project.entry-points."prove_hub.parts"]
    dashboard = "web.part:part"

so the hub core never imports them. An entry point names a ``Part``, or a plain function taking the
subparsers (a part with only commands).

Servers arrive the same way, as parts with a ``servers`` hook in their own group, ``prove_hub.servers``
(``servers = "servers:part"`` brings the built-in ones): the core reads the registry through
``registered_servers`` and imports no server, and building a library loads no dashboard or command.
Entry points are read from the installed package metadata: after adding one, reinstall (``pip install -e .``).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette
from starlette.routing import BaseRoute

if TYPE_CHECKING:
    from hub.kit import Server

GROUP = "prove_hub.parts"
SERVERS_GROUP = "prove_hub.servers"


@dataclass(frozen=True)
class Part:
    name: str
    install: Callable[[Starlette], None] | None = None
    routes: Callable[[Starlette], Sequence[BaseRoute]] | None = None
    lifespan: Callable[[Starlette], AbstractAsyncContextManager[None]] | None = None
    add_commands: Callable[[Any], None] | None = None
    servers: Callable[[], Sequence[Server]] | None = None


def as_part(name: str, obj: object, group: str = GROUP) -> Part:
    """An entry point's object as a part: a ``Part`` as it is, a function (in ``GROUP``) as a commands-only part."""
    if isinstance(obj, Part):
        return obj
    if group != GROUP:
        raise TypeError(f"entry point {name!r} in {group} is not a Part (give it servers=...)")
    if callable(obj):
        return Part(name, add_commands=obj)
    raise TypeError(f"entry point {name!r} in {GROUP} is neither a Part nor a function of the subparsers")


def load(entry: EntryPoint) -> Part:
    return as_part(entry.name, entry.load(), entry.group)


def discover(group: str = GROUP) -> list[Part]:
    """The parts declared as entry points in ``group`` by installed packages, by name."""
    return [load(e) for e in sorted(entry_points(group=group), key=lambda e: e.name)]


def add_commands(parts: Sequence[Part], subparsers: argparse._SubParsersAction[Any]) -> None:
    for part in parts:
        if part.add_commands is not None:
            part.add_commands(subparsers)


def registered_servers(parts: Sequence[Part] | None = None) -> list[Server]:
    """The servers that ``parts`` (default: the installed server parts) bring, in part order, each name once."""
    found: dict[str, Server] = {}
    for part in discover(SERVERS_GROUP) if parts is None else parts:
        for server in part.servers() if part.servers is not None else ():
            if server.name in found:
                raise ValueError(f"server {server.name!r} is registered twice (again by part {part.name!r})")
            found[server.name] = server
    if parts is None and not found:
        raise LookupError(
            f"no servers registered: no installed package declares a part in {SERVERS_GROUP}; "
            "install the project (pip install -e .) so its entry points are visible"
        )
    return list(found.values())
