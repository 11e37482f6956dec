"""The seed: a small Linux machine ('prove-dev-01') whose main user is maya.

A fixed skeleton of well-known paths (the tool docstrings use them) filled with text generated
from the rng: projects with source code, meeting notes, CSV data, logs, configs, photo metadata,
other users' homes with restrictive modes, a sticky /tmp, a setgid shared directory and archives.
The parts live in seed_words, seed_tree, seed_system, seed_home and seed_projects.
"""

from __future__ import annotations

import random
import sqlite3
from datetime import datetime

from servers.filesystem.seed_home import _maya
from servers.filesystem.seed_system import _others, _shared, _system
from servers.filesystem.seed_tree import Tree
from servers.filesystem.seed_words import CAPACITY, GROUPS, HOST, MEMBERS, USERS


def seed(db: sqlite3.Connection, rng: random.Random, now: datetime) -> None:
    """~380 files in ~70 directories, users and groups, the shell state and the volume."""
    t = Tree(rng, now)
    t.d("/")
    for d, mode in (
        ("/bin", 0o755),
        ("/etc", 0o755),
        ("/home", 0o755),
        ("/root", 0o700),
        ("/tmp", 0o1777),
        ("/var", 0o755),
        ("/var/log", 0o755),
        ("/srv", 0o755),
        ("/usr/share/dict", 0o755),
        ("/var/www", 0o755),
    ):
        t.d(d, mode=mode)
    t.nodes["/var/www"][8:10] = ["www-data", "www-data"]
    _system(t, rng, now)
    _shared(t, rng)
    _maya(t, rng, now)
    _others(t, rng)
    t.propagate()
    t.archive(
        "/home/maya/backups/dotfiles.tar",
        ["/home/maya/.bashrc", "/home/maya/.gitconfig", "/home/maya/.vimrc", "/home/maya/.config"],
    )
    t.archive("/home/maya/backups/notes-2026-04.tar.gz", ["/home/maya/Documents/notes"])
    t.archive("/home/maya/Downloads/starter-kit.zip", ["/home/maya/projects/weather-cli/src"])
    db.executemany("INSERT INTO nodes VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", t.finish())
    db.executemany("INSERT INTO users VALUES (?,?,?,?,?)", USERS)
    db.executemany("INSERT INTO groups VALUES (?,?)", GROUPS)
    db.executemany("INSERT INTO group_members VALUES (?,?)", MEMBERS)
    db.execute("INSERT INTO shell VALUES (1, '/home/maya', 'maya')")
    db.execute("INSERT INTO volume VALUES (1, ?, '/dev/sda1', ?)", (f"{HOST}-root", CAPACITY))
