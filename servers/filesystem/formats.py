"""Pure helpers shared by the seed and the tools: the archive format and content fingerprints."""

from __future__ import annotations

import hashlib
import json
from typing import Any

ARCHIVE_MAGIC = "PROVE-ARCHIVE/1\n"


def archive_encode(entries: list[dict[str, Any]]) -> str:
    """An archive file's content: a magic line, then its entries as JSON."""
    return ARCHIVE_MAGIC + json.dumps(entries, sort_keys=True, separators=(",", ":"))


def archive_size(entries: list[dict[str, Any]], compressed: bool) -> int:
    """A plausible on-disk size: tar headers plus data; text shrinks about 3x when compressed."""
    total = 1024
    for e in entries:
        data = int(e.get("size", 0)) if e["type"] == "file" else 0
        if compressed:
            total += 64 + (data if e.get("binary") else data // 3 + 20)
        else:
            total += 512 + (data + 511) // 512 * 512
    return total


def token(*parts: Any) -> str:
    """A stable fingerprint standing in for a binary file's bytes."""
    return hashlib.sha1("|".join(map(str, parts)).encode()).hexdigest()
