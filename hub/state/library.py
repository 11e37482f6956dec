"""The library: every mounted server, its tools and its seed databases, built once per seed."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any, Protocol

from hub.errors import UnknownServer, UnknownTool
from hub.kit import Server, Tool
from hub.state.db import Fork, SeedDatabase, SeedLedger, SqliteFork, connect_bytes, hex128


class Mount(Protocol):
    """What the hub needs of a server, SQLite-backed or a mounted Python object."""

    name: str
    description: str
    family: str  # servers whose requests overlap share one (see hub.kit.Server.family)
    tools: dict[str, Tool]

    def open(self, seed: int, config: Any = None) -> Fork: ...
    def restore(self, seed: int, data: bytes) -> Fork: ...
    def seed_hash(self, seed: int) -> str: ...


DEFAULT_SEED_CACHE = 8
YEAR = 365


def world_now(now: datetime, seed: int) -> datetime:
    """The reference "now" of world ``seed``: ``now`` itself for seed 0, else a day within half a year of it.

    Consecutive seeds step 97 days (coprime to 365 and to 7), so any 365 of them fall on 365 different days
    and every day of the week comes round; the time of day stays ``now``'s."""
    return now + timedelta(days=(seed * 97 + YEAR // 2) % YEAR - YEAR // 2)


class SqliteMount:
    """A kit ``Server`` with its seed databases cached per seed, the ``seed_cache`` most recently used. Each
    seed is a world with its own reference "now" (``world_now``): the seed's data lies around it and the
    tools of every fork of it see it.

    Forks keep their own seed database alive, so an evicted seed costs a rebuild for new sessions
    only. Building takes a lock: a worker thread (``hub.state.memory.ensure_seeds``) and the event loop
    never build the same seed twice. Every seed's bytes are counted in ``ledger`` (the library's) while
    it lives, cached or held by forks."""

    def __init__(
        self, server: Server, now: datetime, seed_cache: int = DEFAULT_SEED_CACHE, ledger: SeedLedger | None = None
    ) -> None:
        self.server = server
        self.name = server.name
        self.description = server.description
        self.family = server.family or server.name
        self.tools = server.tools
        self.now = now
        self.seed_cache = max(1, seed_cache)
        self.ledger = ledger or SeedLedger()
        self._seeds: OrderedDict[int, SeedDatabase] = OrderedDict()
        self._lock = threading.Lock()

    def now_of(self, seed: int) -> datetime:
        """World ``seed``'s reference "now" (without building its database)."""
        return world_now(self.now, seed)

    def has_seed(self, seed: int) -> bool:
        return seed in self._seeds

    def seed_db(self, seed: int) -> SeedDatabase:
        found = self._seeds.get(seed)
        if found is not None:
            self._seeds.move_to_end(seed)
            return found
        with self._lock:
            found = self._seeds.get(seed)
            if found is None:
                found = self._seeds[seed] = SeedDatabase(self.server, seed, self.now_of(seed), self.ledger)
                while len(self._seeds) > self.seed_cache:
                    self._seeds.popitem(last=False)
        return found

    def cached_bytes(self) -> int:
        return sum(db.size for db in list(self._seeds.values()))

    def evict_unused(self) -> int:
        """Drop the least recently used cached seed that no open fork holds; the bytes it held (0: none)."""
        with self._lock:
            for seed, db in self._seeds.items():
                if db.users <= 0:
                    del self._seeds[seed]
                    return db.held_bytes
        return 0

    def open(self, seed: int, config: Any = None) -> Fork:
        if config is not None:
            raise ValueError(f"{self.name} starts from its seed or a snapshot; it takes no scenario configuration")
        return self.seed_db(seed).fork()

    def restore(self, seed: int, data: bytes) -> Fork:
        sdb = self.seed_db(seed)
        return SqliteFork(sdb, connect_bytes(data), pages=len(data) // sdb.page_size)

    def seed_hash(self, seed: int) -> str:
        return hex128(self.seed_db(seed).hash_int)


class Library:
    """The servers a hub serves, by name, in registration order; ``seeds`` counts the bytes their live
    seed databases hold."""

    def __init__(self, mounts: Iterable[Mount]) -> None:
        self.mounts: dict[str, Mount] = {}
        self.seeds = SeedLedger()
        for m in mounts:
            self.add(m)

    @classmethod
    def from_servers(cls, servers: Iterable[Server], now: datetime, seed_cache: int = DEFAULT_SEED_CACHE) -> Library:
        return cls(SqliteMount(s, now, seed_cache) for s in servers)

    def add(self, mount: Mount) -> None:
        if mount.name in self.mounts:
            raise ValueError(f"server {mount.name!r} is mounted twice")
        if isinstance(mount, SqliteMount):
            if mount.ledger.count:
                raise ValueError(f"server {mount.name!r} built seeds before it joined a library")
            mount.ledger = self.seeds
        self.mounts[mount.name] = mount

    def evict_seeds(self, need: int) -> int:
        """Drop cached seed databases no fork holds, least recently used first per server, until ``need``
        bytes are freed or none is left; the bytes freed."""
        freed = 0
        sqlite = [m for m in self.mounts.values() if isinstance(m, SqliteMount)]
        while freed < need and sqlite:
            for mount in list(sqlite):
                got = mount.evict_unused()
                if not got:
                    sqlite.remove(mount)
                freed += got
        return freed

    def keep_worlds(self, count: int) -> None:
        """Keep ``count`` seed worlds built per SQLite server (never fewer than its cache already keeps)."""
        for mount in self.mounts.values():
            if isinstance(mount, SqliteMount):
                mount.seed_cache = max(mount.seed_cache, count)

    def mount(self, server: str) -> Mount:
        found = self.mounts.get(server)
        if found is None:
            raise UnknownServer(f"unknown server {server!r}; servers: {', '.join(self.mounts)}")
        return found

    def now_of(self, server: str, seed: int) -> datetime | None:
        """The reference "now" ``server``'s tools see on world ``seed`` (None: a mounted server keeps no clock)."""
        mount = self.mount(server)
        return mount.now_of(seed) if isinstance(mount, SqliteMount) else None

    def tool(self, server: str, name: str) -> Tool:
        tools = self.mount(server).tools
        found = tools.get(name)
        if found is None:
            raise UnknownTool(
                f"unknown tool {name!r} on server {server!r}; call tools/list to see its {len(tools)} tools"
            )
        return found

    def all_tools(self) -> list[Tool]:
        return [t for m in self.mounts.values() for t in m.tools.values()]

    def catalog(self) -> dict[str, object]:
        servers = [
            {"name": m.name, "description": m.description, "tools": [t.spec() for t in m.tools.values()]}
            for m in self.mounts.values()
        ]
        return {"servers": servers, "server_count": len(servers), "tool_count": sum(len(s["tools"]) for s in servers)}
