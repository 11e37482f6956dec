"""Grounding of chain-machine tasks: every id a user turn names (``ABC-0042``-shaped tokens, and every entity
value the renderer stated) exists in the initial state (the seed database of its server)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from hub.state.library import Library, SqliteMount
from hub.synth.validate import ID_TOKEN
from hub.tasks import Task


class SeedIndex:
    """Every short value stored in each server's initial (seed) database: what "exists" means."""

    def __init__(self, library: Library, world_seed: int = 0) -> None:
        self.library = library
        self.world_seed = world_seed
        self._values: dict[str, set[Any]] = {}

    def values(self, server: str) -> set[Any]:
        found = self._values.get(server)
        if found is None:
            found = self._values[server] = self._build(server)
        return found

    def _build(self, server: str) -> set[Any]:
        mount = self.library.mount(server)
        out: set[Any] = set()
        if not isinstance(mount, SqliteMount):
            return out
        db = mount.seed_db(self.world_seed).db
        tables = [
            r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'")
        ]
        for t in tables:
            for row in db.execute(f"SELECT * FROM {t}"):
                for v in row:
                    if isinstance(v, str) and len(v) <= 300 or isinstance(v, int) and not isinstance(v, bool):
                        out.add(v)
        return out

    def exists(self, servers: Iterable[str], value: Any) -> bool:
        return any(value in self.values(s) for s in servers)


def ungrounded(task: Task, index: SeedIndex) -> list[str]:
    """Ids a user turn names that do not exist in the task's initial state (empty when grounded)."""
    servers = task.meta.get("synth", {}).get("request_servers") or task.servers
    bad = []
    for turn in task.turns:
        for token in ID_TOKEN.findall(turn.user):
            if not index.exists(servers, token):
                bad.append(token)
    for value in task.meta.get("synth", {}).get("mentioned_ids", []):
        if not index.exists(servers, value):
            bad.append(str(value))
    return sorted(set(bad))
