"""Seed worlds are built off the event loop: an async call site warms them in a worker thread first.

A new seed costs about half a second per server to build; built inline, it would stall every
other session for that long. ``ensure_seeds`` builds only what the cache lacks, so the usual
path (seed already built) never leaves the loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

from hub.state.library import Library, SqliteMount
from hub.state.sessions import SessionManager


def missing_seeds(library: Library, servers: Iterable[str], seed: int) -> list[SqliteMount]:
    found = [library.mounts.get(s) for s in servers]
    return [m for m in found if isinstance(m, SqliteMount) and not m.has_seed(seed)]


async def ensure_seeds(library: Library, servers: Iterable[str], seed: int) -> None:
    """Build the seed databases of ``servers`` for ``seed`` in a worker thread, if any is missing."""
    missing = missing_seeds(library, servers, seed)
    if missing:
        await asyncio.to_thread(lambda: [m.seed_db(seed) for m in missing])


async def prepare_call(sessions: SessionManager, sid: str, server: str) -> None:
    """Before a call from an async transport: the seed of the session's server, built off the loop."""
    session = sessions.sessions.get(sid)
    if session is not None and server in session.forks:
        return
    await ensure_seeds(sessions.library, [server], sessions.seed if session is None else session.seed)
