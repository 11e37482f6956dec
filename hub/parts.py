"""Parts: how the app and the ``prove-hub`` command are assembled, the way datasette takes plugins.

A part offers any of four hooks, each optional:

- ``install(app)``: build its per-app state once, when the app is assembled (before any request);
- ``routes(app)``: its routes (the app carries ``app.state.hub`` and ``app.state.settings``);
- ``lifespan(app)``: an async context manager that runs while the app serves (background services);
- ``add_commands(subparsers)``: its ``prove-hub`` subcommands (each sets ``handler`` as its default).

The hub's own parts (MCP, JSON API, rollout WebSocket, metrics, episode store, synthesis) are listed
in the composition root, ``hub.app``. Parts outside ``hub/`` (the dashboard, the evaluation command)
declare themselves as package entry points in the ``prove_hub.parts`` group, e.g. in pyproject.toml::

    [project.entry-points."prove_hub.parts"]
    dashboard = "web.part:part"

so the hub core never imports them. An entry point names a ``Part``, or a plain function taking the
subparsers (a part with only commands). Entry points are read from the installed package metadata:
after adding one, reinstall (``pip install -e .``).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from starlette.applications import Starlette
from starlette.routing import BaseRoute

GROUP = "prove_hub.parts"


@dataclass(frozen=True)
class Part:
    name: str
    install: Callable[[Starlette], None] | None = None
    routes: Callable[[Starlette], Sequence[BaseRoute]] | None = None
    lifespan: Callable[[Starlette], AbstractAsyncContextManager[None]] | None = None
    add_commands: Callable[[Any], None] | None = None


def as_part(name: str, obj: object) -> Part:
    """An entry point's object as a part: a ``Part`` as it is, a function as a commands-only part."""
    if isinstance(obj, Part):
        return obj
    if callable(obj):
        return Part(name, add_commands=obj)
    raise TypeError(f"entry point {name!r} in {GROUP} is neither a Part nor a function of the subparsers")


def load(entry: EntryPoint) -> Part:
    return as_part(entry.name, entry.load())


def discover() -> list[Part]:
    """The parts declared as entry points by installed packages, by name."""
    return [load(e) for e in sorted(entry_points(group=GROUP), key=lambda e: e.name)]


def add_commands(parts: Sequence[Part], subparsers: argparse._SubParsersAction[Any]) -> None:
    for part in parts:
        if part.add_commands is not None:
            part.add_commands(subparsers)
