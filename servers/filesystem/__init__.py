"""Filesystem: a Unix-like machine driven like a shell, with its whole state in SQLite.

The tree is a table of nodes (files, directories, symlinks) keyed by absolute path, each with an
owner, a group, mode bits (0o644), a size and an mtime. The shell's current directory and user are
a one-row table. Business rules follow POSIX: relative paths start at the current directory, '.'
and '..' and '~' are resolved, symlinks are followed (16 hops at most); reading needs r, writing w,
entering a directory x, and creating or deleting an entry needs w on its directory; in a sticky
directory (/tmp) only an entry's owner may delete or rename it; a setgid directory (/srv/shared)
passes its group on. Only root changes owners; only the owner or root changes modes; members of
'wheel' may switch_user. Writes fail with 'No space left on device' beyond the volume's capacity.
Binary files (photos, PDFs, archives) cannot be shown as text. Archives are files whose content
holds their entries: create_archive, list_archive, extract_archive.

The seed: user maya (groups maya, wheel, team) in /home/maya with projects (weather-cli,
inventory-api, data-pipeline, blog), Documents (notes, reports, recipes, budget and contacts CSVs),
Pictures (photos and a CSV index), backups (archives); other users sam (home 0750) and alex;
/etc, /var/log with logs, a sticky /tmp and a shared setgid /srv/shared owned by group team.
"""

from __future__ import annotations

from servers.filesystem import (  # noqa: F401  (register the intents, and the tools they import first)
    intents,
    intents_copies,
    intents_lookup,
    intents_perms,
    intents_reading,
    intents_system,
    intents_tidy,
)
from servers.filesystem.core import SCHEMA, filesystem
from servers.filesystem.seed import seed

__all__ = ["SCHEMA", "seed", "server"]

server = filesystem
