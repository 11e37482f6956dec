"""Shared fixtures: one library per test process (seed databases built once), a fresh world per test."""

from __future__ import annotations

from typing import Any

import pytest

from hub.config import REFERENCE_NOW
from hub.dispatcher import CallOutcome, Dispatcher
from hub.events import EventBus
from hub.library import Library
from hub.sessions import SessionManager
from servers import REGISTRY

LIBRARY = Library.from_servers(REGISTRY, REFERENCE_NOW)


class World:
    """A dispatcher over a fresh session manager; ``ok``/``err`` call tools in one session."""

    def __init__(self, library: Library = LIBRARY, session: str = "test") -> None:
        self.library = library
        self.bus = EventBus()
        self.sessions = SessionManager(library)
        self.dispatcher = Dispatcher(library, self.sessions, self.bus)
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
