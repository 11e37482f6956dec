"""Shared fixtures: one library per test process (seed databases built once), a fresh world per test."""

from __future__ import annotations

import tomllib
from importlib.metadata import EntryPoint
from pathlib import Path
from typing import Any

import pytest

from hub.app import BUILTIN_PARTS
from hub.config import REFERENCE_NOW
from hub.engine.dispatcher import CallOutcome
from hub.engine.events import EventBus
from hub.engine.world import World as BaseWorld
from hub.parts import GROUP, Part, load
from hub.state.library import Library
from servers import REGISTRY

LIBRARY = Library.from_servers(REGISTRY, REFERENCE_NOW)
PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


def declared_parts() -> list[Part]:
    """The parts pyproject.toml declares as entry points, loaded from this checkout (installed or not)."""
    declared = tomllib.loads(PYPROJECT.read_text())["project"]["entry-points"][GROUP]
    return [load(EntryPoint(name, value, GROUP)) for name, value in sorted(declared.items())]


ALL_PARTS = [*BUILTIN_PARTS, *declared_parts()]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--regen-golden", action="store_true", help="rewrite the golden files, then compare")


@pytest.fixture
def regen_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--regen-golden"))


class World(BaseWorld):
    """A private world with one working session; ``ok``/``err`` call tools in it."""

    def __init__(self, library: Library = LIBRARY, session: str = "test") -> None:
        super().__init__(library, bus=EventBus())
        self.session = session

    def call(self, server: str, tool: str, **arguments: Any) -> CallOutcome:
        return self.dispatcher.call(self.session, server, tool, arguments)

    def ok(self, server: str, tool: str, **arguments: Any) -> Any:
        """Call a tool that must succeed; return its result."""
        out = self.call(server, tool, **arguments)
        assert out.ok, f"{server}.{tool}({arguments}) failed: {out.error}"
        return out.result

    def err(self, server: str, tool: str, **arguments: Any) -> str:
        """Call a tool that must fail; check that the state hash did not move; return the error message."""
        before = self.hash(server)
        out = self.call(server, tool, **arguments)
        assert not out.ok, f"{server}.{tool}({arguments}) should have failed, got {out.result}"
        assert self.hash(server) == before, f"failed call {server}.{tool} changed state"
        assert out.error
        return out.error

    def hash(self, server: str) -> str:
        return self.sessions.get(self.session).fork_of(server).state_hash()


@pytest.fixture
def world() -> World:
    return World()
