"""The seed's tree under construction: node rows collected in memory (parents on demand, directory mtimes from
their children, archives packed from finished subtrees), and generated prose."""

from __future__ import annotations

import posixpath
import random
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from hub.kit import fake
from servers.filesystem.formats import archive_encode, archive_size, token
from servers.filesystem.seed_words import OBJECTS, SUBJECTS, TAILS, VERBS


class Tree:
    """Collects node rows in memory; parents are created on demand and dir mtimes set from their children."""

    def __init__(self, rng: random.Random, now: datetime) -> None:
        self.rng, self.now = rng, now
        self.nodes: dict[str, list[Any]] = {}

    def when(self, days: int, hours: int = 0) -> str:
        t = self.now - timedelta(minutes=self.rng.randint(hours * 60 + 5, max(hours * 60 + 6, days * 24 * 60)))
        return fake.iso(t.replace(second=self.rng.randint(0, 59), microsecond=0))

    def d(self, path: str, owner: str = "root", group: str | None = None, mode: int = 0o755) -> None:
        if path in self.nodes:
            return
        parent = posixpath.dirname(path) if path != "/" else None
        if parent is not None and parent not in self.nodes:
            self.d(parent, owner, group, 0o755)
        self.nodes[path] = [
            path,
            parent,
            posixpath.basename(path) or "/",
            "dir",
            None,
            None,
            4096,
            0,
            owner,
            group or owner,
            mode,
            fake.iso(self.now - timedelta(days=900)),
        ]

    def _put(
        self,
        path: str,
        kind: str,
        content: str | None,
        target: str | None,
        size: int,
        binary: int,
        owner: str,
        group: str | None,
        mode: int,
        mtime: str,
    ) -> None:
        """Add a file or link row, creating its parent directories on demand."""
        parent, group = posixpath.dirname(path), group or owner
        if parent not in self.nodes:
            self.d(parent, owner, group)
        base = posixpath.basename(path)
        self.nodes[path] = [path, parent, base, kind, content, target, size, binary, owner, group, mode, mtime]

    def f(
        self,
        path: str,
        content: str,
        owner: str = "maya",
        group: str | None = None,
        mode: int = 0o644,
        days: int = 400,
        hours: int = 0,
        mtime: str | None = None,
    ) -> None:
        when = mtime or self.when(days, hours)
        self._put(path, "file", content, None, len(content.encode()), 0, owner, group, mode, when)

    def b(
        self,
        path: str,
        size: int,
        owner: str = "maya",
        group: str | None = None,
        mode: int = 0o644,
        days: int = 400,
        mtime: str | None = None,
    ) -> None:
        self._put(path, "file", token(path, size), None, size, 1, owner, group, mode, mtime or self.when(days))

    def ln(self, path: str, target: str, owner: str = "maya", group: str | None = None) -> None:
        self._put(path, "symlink", None, target, len(target.encode()), 0, owner, group, 0o777, self.when(300))

    def archive(self, path: str, sources: list[str], owner: str = "maya") -> None:
        entries = []
        for src in sources:
            base = posixpath.dirname(src)
            for p in sorted(q for q in self.nodes if q == src or q.startswith(src + "/")):
                n = self.nodes[p]
                entries.append(
                    {
                        "path": p[len(base) :].lstrip("/"),
                        "type": n[3],
                        "content": n[4],
                        "target": n[5],
                        "size": n[6],
                        "binary": n[7],
                        "mode": n[10],
                        "mtime": n[11],
                    }
                )
        content = archive_encode(entries)
        size = archive_size(entries, path.endswith((".gz", ".tgz", ".zip")))
        newest = max(e["mtime"] for e in entries)
        self._put(path, "file", content, None, size, 1, owner, owner, 0o644, newest)

    def finish(self) -> list[list[Any]]:
        self.propagate()
        return [self.nodes[p] for p in sorted(self.nodes)]

    def propagate(self) -> None:
        """A directory's mtime is its newest child's."""
        for path in sorted(self.nodes, key=lambda p: -p.count("/")):
            n = self.nodes[path]
            if n[1] is not None and n[0] != "/":
                parent = self.nodes[n[1]]
                if n[11] > parent[11]:
                    parent[11] = n[11]


def sentence(rng: random.Random) -> str:
    return f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)} {rng.choice(TAILS)}."


def paragraph(rng: random.Random, n: int = 4) -> str:
    return " ".join(sentence(rng) for _ in range(n))


def people_csv(rng: random.Random, n: int, column: str, values: Sequence[str]) -> str:
    """A CSV of ``n`` people: name, email, phone, city, and ``column`` drawn from ``values``."""
    lines = [f"name,email,phone,city,{column}"]
    for i in range(1, n + 1):
        first, last = fake.person(rng)
        lines.append(
            f"{first} {last},{fake.email_for(first, last, rng, i)},{fake.phone(rng)},{fake.city(rng)[0]},"
            f"{rng.choice(values)}"
        )
    return "\n".join(lines) + "\n"
