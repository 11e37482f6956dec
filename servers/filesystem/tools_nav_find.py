"""Finding things: find, locate, du, recently changed files and the distinct values of a node field."""

from __future__ import annotations

import fnmatch
import posixpath
from datetime import timedelta
from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import Ctx, Limit, Offset, ToolError, fake
from servers.filesystem.core import (
    DIR_SIZE,
    DirArg,
    R,
    X,
    can,
    existing,
    existing_dir,
    extension,
    filesystem,
    human,
    mime,
    mode_string,
    node_at,
    require,
    subtree_where,
    who,
)
from servers.filesystem.core_nodes import subtree


def _parse_when(value: str | None, name: str) -> str | None:
    if value is None:
        return None
    from datetime import datetime

    try:
        return fake.iso(datetime.fromisoformat(value))
    except ValueError:
        raise ToolError(
            f"{name} must be an ISO date or time like '2026-05-01' or '2026-05-01T12:00:00', got {value!r}."
        ) from None


@filesystem.read(returns=("path", "directory"))
def find_files(
    ctx: Ctx,
    path: DirArg = ".",
    name: Annotated[
        str | None, Field(min_length=1, max_length=200, description="Glob on the name, e.g. '*.csv' or 'test_*.py'")
    ] = None,
    type: Literal["file", "dir", "symlink"] | None = None,
    min_size: Annotated[int | None, Field(ge=0, le=10**12, description="At least this many bytes")] = None,
    max_size: Annotated[int | None, Field(ge=0, le=10**12, description="At most this many bytes")] = None,
    modified_after: Annotated[
        str | None, Field(max_length=40, description="Only modified on or after, e.g. '2026-05-01'")
    ] = None,
    modified_before: Annotated[
        str | None, Field(max_length=40, description="Only modified before, e.g. '2026-01-01'")
    ] = None,
    owner: Annotated[str | None, Field(max_length=32, description="Only owned by this user, e.g. 'sam'")] = None,
    ignore_case: bool = False,
    limit: Limit = 50,
    offset: Offset = 0,
) -> dict[str, Any]:
    """Search a directory tree (like `find`), e.g. find_files('/home/maya/projects', name='*.py') or
    find_files('~', type='file', min_size=1000000). Results are sorted by path; directories you cannot read are skipped
    and reported."""
    me = who(ctx)
    node = existing_dir(ctx, me, path)
    after, before = _parse_when(modified_after, "modified_after"), _parse_when(modified_before, "modified_before")
    found, denied = subtree(ctx, me, node)
    pattern = name.lower() if (name and ignore_case) else name
    hits = []
    for n, _ in sorted(found, key=lambda x: x[0]["path"]):
        if pattern and not fnmatch.fnmatchcase(n["name"].lower() if ignore_case else n["name"], pattern):
            continue
        if (type and n["type"] != type) or (owner and n["owner"] != owner):
            continue
        if (min_size is not None and n["size"] < min_size) or (max_size is not None and n["size"] > max_size):
            continue
        if (after and n["mtime"] < after) or (before and n["mtime"] >= before):
            continue
        hits.append(n)
    page = hits[offset : offset + limit]
    out: dict[str, Any] = {
        "path": node["path"],
        "matches": [{"path": n["path"], "type": n["type"], "size": n["size"], "modified": n["mtime"]} for n in page],
        "count": len(page),
        "total": len(hits),
    }
    if denied:
        out["permission_denied"] = denied
    return out


@filesystem.read(returns=("path",))
def locate_paths(
    ctx: Ctx,
    query: Annotated[
        str, Field(min_length=1, max_length=200, description="Part of a path, e.g. 'invoice' or 'src/routes'")
    ],
    ignore_case: bool = True,
    limit: Limit = 50,
    offset: Offset = 0,
) -> dict[str, Any]:
    """Find paths anywhere on the machine containing a substring (like `locate`), e.g. locate_paths('nginx')
    or locate_paths('weather_cli/api'). Entries inside directories you cannot read are not shown."""
    me = who(ctx)
    if ignore_case:
        sql, arg = (
            "SELECT path, type FROM nodes WHERE path LIKE ? ESCAPE '\\' ORDER BY path",
            "%" + query.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%",
        )
    else:
        sql, arg = "SELECT path, type FROM nodes WHERE instr(path, ?) > 0 ORDER BY path", query
    root = node_at(ctx.db, "/")
    cache: dict[str, bool] = {"/": root is not None and can(me, root, R) and can(me, root, X)}

    def visible(p: str) -> bool:
        parent = posixpath.dirname(p)
        if parent not in cache:
            d = node_at(ctx.db, parent)
            cache[parent] = d is not None and can(me, d, R) and can(me, d, X) and visible(parent)
        return cache[parent]

    hits = [{"path": p, "type": t} for p, t in ctx.db.execute(sql, (arg,)) if p != "/" and visible(p)]
    page = hits[offset : offset + limit]
    return {"matches": page, "count": len(page), "total": len(hits)}


@filesystem.read(returns=("path", "directory"))
def disk_usage(
    ctx: Ctx, path: DirArg = ".", sort_by: Literal["size", "name"] = "size", limit: Limit = 50
) -> dict[str, Any]:
    """How much space each entry of a directory takes, subdirectories summed (like `du -sh *`), e.g.
    disk_usage('/home/maya') or disk_usage('Pictures'). Largest first by default; unreadable directories are
    reported."""
    me = who(ctx)
    node = existing(ctx, me, path)
    if node["type"] != "dir":
        return {"path": node["path"], "total_bytes": node["size"], "total": human(node["size"]), "entries": []}
    require(me, node, R, "list")
    found, denied = subtree(ctx, me, node)
    base = node["path"].rstrip("/") + "/"
    per: dict[str, int] = {}
    kinds: dict[str, str] = {}
    for n, depth in found:
        top = n["path"][len(base) :].split("/")[0] if node["path"] != "/" else n["path"][1:].split("/")[0]
        per[top] = per.get(top, 0) + (n["size"] if n["type"] != "dir" else DIR_SIZE)
        if depth == 1:
            kinds[top] = n["type"]
    entries: list[dict[str, Any]] = [
        {"path": posixpath.join(node["path"], k), "type": kinds.get(k, "dir"), "bytes": v, "size": human(v)}
        for k, v in per.items()
    ]
    entries.sort(key=(lambda e: (-e["bytes"], e["path"])) if sort_by == "size" else (lambda e: e["path"]))
    total = sum(per.values()) + DIR_SIZE
    out: dict[str, Any] = {
        "path": node["path"],
        "total_bytes": total,
        "total": human(total),
        "entries": entries[:limit],
        "count": min(limit, len(entries)),
    }
    if denied:
        out["permission_denied"] = denied
    return out


@filesystem.read(returns=("path",))
def list_recent_files(
    ctx: Ctx,
    path: DirArg = "~",
    days: Annotated[int, Field(ge=1, le=3650, description="Modified within this many days before now")] = 7,
    limit: Limit = 20,
) -> dict[str, Any]:
    """Files modified recently under a directory, newest first (like `find -mtime -7`), e.g.
    list_recent_files('~', days=3) or list_recent_files('/var/log', days=1)."""
    me = who(ctx)
    node = existing_dir(ctx, me, path)
    since = fake.iso(ctx.now - timedelta(days=days))
    found, denied = subtree(ctx, me, node)
    hits = sorted(
        (n for n, _ in found if n["type"] == "file" and n["mtime"] >= since),
        key=lambda n: (n["mtime"], n["path"]),
        reverse=True,
    )
    out: dict[str, Any] = {
        "path": node["path"],
        "since": since,
        "files": [{"path": n["path"], "size": n["size"], "modified": n["mtime"]} for n in hits[:limit]],
        "count": min(limit, len(hits)),
        "total": len(hits),
    }
    if denied:
        out["permission_denied"] = denied
    return out


@filesystem.read()
def get_distinct_values(
    ctx: Ctx, field: Literal["extension", "owner", "group", "type", "mode", "mime_type"], path: DirArg = "/"
) -> dict[str, Any]:
    """The distinct values of a field over a directory tree with their counts, e.g. get_distinct_values('extension',
    '/home/maya/projects') or get_distinct_values('owner')."""
    me = who(ctx)
    node = existing_dir(ctx, me, path)
    where, args = subtree_where(node["path"])
    counts: dict[str, int] = {}
    for n in ctx.rows(f"SELECT name, type, owner, group_name, mode FROM nodes WHERE {where}", args):
        if field in ("extension", "mime_type") and n["type"] != "file":
            continue
        value = {
            "extension": lambda: extension(n["name"]) or "(none)",
            "owner": lambda: n["owner"],
            "group": lambda: n["group_name"],
            "type": lambda: n["type"],
            "mode": lambda: f"{n['mode']:04o} {mode_string(n)}",
            "mime_type": lambda: mime(n["name"]),
        }[field]()
        counts[value] = counts.get(value, 0) + 1
    return {"field": field, "path": node["path"], "values": dict(sorted(counts.items()))}
