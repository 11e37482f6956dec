"""The run's world seeds, each a world with its own reference date (``hub.state.library.world_now``).

A full run spreads its tasks over a hundred worlds or more, so that its tasks live on a hundred different days;
a world's seed databases cost about a second to build and tens of MB to keep. So attempts draw their world from
a *window* of a few seeds that moves through the run's seeds as the run goes (``progress`` from 0 to 1): every
seed is built once, while it is in the window, and the library's seed cache only ever holds a window's worth.
A seed whose databases cannot be built (a server's ``seed()`` fails on it) is skipped and reported, and the next
unused seed takes its place.
"""

from __future__ import annotations

import random
import sqlite3
from datetime import datetime

from hub.config import REFERENCE_NOW
from hub.engine.episodes import DEFAULT_SYSTEM
from hub.state.library import Library, SqliteMount, world_now

WINDOW = 4  # seeds in use at a time (the library keeps 8 per server)
TASKS_PER_WORLD = 130  # a run of n tasks uses about n / 130 worlds (at least 8) unless told how many


def default_count(n: int) -> int:
    """How many worlds a run of ``n`` tasks spreads over when not told: about one per 130 tasks, 8 to 256."""
    return max(8, min(256, -(-n // TASKS_PER_WORLD)))


class Worlds:
    def __init__(self, library: Library, first: int, count: int, window: int = WINDOW) -> None:
        self.library = library
        self.seeds = list(range(first, first + count))
        self.window = window
        self.progress = 0.0
        self.skipped: dict[int, str] = {}
        self._ok: set[int] = set()
        self._next = first + count
        self._limit = first + 4 * count + 16

    def draw(self, rng: random.Random) -> int:
        """A seed of the current window (one ``rng.randrange``)."""
        n = len(self.seeds)
        size = min(self.window, n)
        start = min(int(self.progress * n), n - size)
        k = start + rng.randrange(size)
        while not self.usable(self.seeds[k]):
            if self._next >= self._limit:
                raise ValueError(f"no usable world seed near {self.seeds[k]}: {self.skipped}")
            self.seeds[k] = self._next
            self._next += 1
        return self.seeds[k]

    def usable(self, seed: int) -> bool:
        """Whether every server's seed database builds on ``seed`` (built now, once)."""
        if seed in self._ok:
            return True
        if seed in self.skipped:
            return False
        try:
            for name, mount in self.library.mounts.items():  # noqa: B007 (named in the error below)
                if isinstance(mount, SqliteMount):
                    mount.seed_db(seed)
        except sqlite3.Error as exc:
            self.skipped[seed] = f"{name}: {exc}"
            return False
        self._ok.add(seed)
        return True

    def now(self, server: str, seed: int) -> datetime:
        """The reference "now" of ``server`` in world ``seed``."""
        mount = self.library.mounts.get(server)
        return world_now(mount.now, seed) if isinstance(mount, SqliteMount) else REFERENCE_NOW

    def used(self) -> list[int]:
        return [s for s in self.seeds if s in self._ok]


def system_prompt(now: datetime) -> str:
    """The assistant's instructions with the task's date and time, as deployed assistants get them."""
    clock = now.strftime("%I:%M %p").lstrip("0").lower()
    return f"{DEFAULT_SYSTEM}\nIt is now {now.strftime('%A')}, {now.strftime('%B')} {now.day}, {now.year}, {clock}."
