"""Process memory: seed worlds built off the event loop, and freed memory given back to the system.

A new seed costs about half a second per server to build; built inline, it would stall every
other session for that long. ``ensure_seeds`` builds only what the cache lacks, so the usual
path (seed already built) never leaves the loop.

Closing a fork frees its SQLite memory into the C allocator at once, but glibc keeps freed chunks
that sit between live ones (thousands of forks and worker-thread arenas fragment the heap): a hub
that opened and closed 600 banking sessions kept 800 MB it no longer used. ``give_back`` asks glibc
to return every free page (``malloc_trim``; tens of milliseconds for hundreds of MB, in a worker
thread, without the GIL); the session manager calls it after closing enough bytes.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import sys
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from hub.state.library import Library, SqliteMount

if TYPE_CHECKING:
    from hub.state.sessions import SessionManager


def _malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc.malloc_trim  # type: ignore[no-any-return]
    except (OSError, AttributeError):  # not glibc (musl has no malloc_trim): nothing to give back this way
        return None


MALLOC_TRIM = _malloc_trim()


def give_back() -> bool:
    """Return the C heap's free pages to the system; False where the C library cannot."""
    if MALLOC_TRIM is None:
        return False
    MALLOC_TRIM(0)
    return True


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
