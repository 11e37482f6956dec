"""Shell state and discovery: pwd, cd, users, df, ls, tree, stat, find, locate, du, recent files, distinct values."""

from __future__ import annotations

import fnmatch
import posixpath
from datetime import timedelta
from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import Ctx, Entity, Limit, Offset, ToolError, fake, rows
from servers.filesystem.core import (
    DIR_SIZE,
    DirArg,
    PathArg,
    R,
    W,
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
from servers.filesystem.core_nodes import (
    subtree,
    used_bytes,
    view,
)

Username = Annotated[
    str,
    Field(min_length=1, max_length=32, description="A user name, e.g. 'root', 'maya', 'sam' or 'alex'"),
    Entity("user"),
]


@filesystem.read(returns=("directory",))
def print_working_directory(ctx: Ctx) -> dict[str, Any]:
    """The current working directory (like `pwd`), e.g. '/home/maya'. Relative paths in every tool start here."""
    me = who(ctx)
    return {"cwd": me.cwd, "user": me.user}


@filesystem.write(returns=("directory",))
def change_directory(ctx: Ctx, path: DirArg = "~") -> dict[str, Any]:
    """Change the current working directory (like `cd`), e.g. change_directory('projects/weather-cli'),
    change_directory('..') or change_directory('/var/log'). '~' is the home directory; symlinks are followed.
    Needs execute (search) permission on the directory."""
    me = who(ctx)
    node = existing_dir(ctx, me, path)
    require(me, node, X, "enter")
    ctx.db.execute("UPDATE shell SET cwd = ? WHERE id = 1", (node["path"],))
    return {"cwd": node["path"], "previous": me.cwd}


@filesystem.read(returns=("user", "directory"))
def get_current_user(ctx: Ctx) -> dict[str, Any]:
    """Who the shell runs as (like `id` and `whoami`): user name, uid, groups, home and current directory."""
    me = who(ctx)
    return {
        "user": me.user,
        "uid": me.uid,
        "groups": sorted(me.groups),
        "home": me.home,
        "cwd": me.cwd,
        "can_switch_user": me.root or "wheel" in me.groups,
    }


@filesystem.read(returns=("user",))
def list_users(ctx: Ctx) -> dict[str, Any]:
    """All users (name, uid, home, groups) and all groups with their members, e.g. to pick an owner for change_owner."""
    users = rows(ctx.db.execute("SELECT username, uid, full_name, home, shell FROM users ORDER BY uid"))
    members: dict[str, list[str]] = {}
    for g, u in ctx.db.execute("SELECT group_name, username FROM group_members ORDER BY group_name, username"):
        members.setdefault(g, []).append(u)
    for u in users:
        u["groups"] = sorted(g for g, m in members.items() if u["username"] in m)
    groups = [
        {"group": g, "gid": gid, "members": members.get(g, [])}
        for g, gid in ctx.db.execute("SELECT group_name, gid FROM groups ORDER BY gid")
    ]
    return {"users": users, "groups": groups}


@filesystem.write(returns=("user", "directory"))
def switch_user(ctx: Ctx, username: Username) -> dict[str, Any]:
    """Become another user (like `su - sam`), e.g. switch_user('root') to edit system files, then back to 'maya'
    the same way. Allowed for root and for members of the 'wheel' group; the shell moves to the user's home."""
    me = who(ctx)
    target = ctx.db.execute("SELECT username, home FROM users WHERE username = ?", (username,)).fetchone()
    if target is None:
        raise ToolError(f"No user {username!r}. Use list_users to see the users on this machine.")
    if target[0] == me.user:
        raise ToolError(f"You are already '{me.user}'.")
    if not me.root and "wheel" not in me.groups:
        raise ToolError(f"Permission denied: '{me.user}' is not in the 'wheel' group and cannot switch users.")
    home = ctx.db.execute("SELECT path FROM nodes WHERE path = ? AND type = 'dir'", (target[1],)).fetchone()
    cwd = home[0] if home else "/"
    ctx.db.execute("UPDATE shell SET username = ?, cwd = ? WHERE id = 1", (username, cwd))
    return {"user": username, "previous_user": me.user, "cwd": cwd}


@filesystem.read()
def get_disk_free(ctx: Ctx) -> dict[str, Any]:
    """Space on the volume (like `df -h`): capacity, used and free bytes, and file/directory counts."""
    vol = ctx.db.execute("SELECT label, device, capacity_bytes FROM volume WHERE id = 1").fetchone()
    used = used_bytes(ctx.db)
    counts = dict(ctx.db.execute("SELECT type, COUNT(*) FROM nodes GROUP BY type").fetchall())
    return {
        "device": vol[1],
        "label": vol[0],
        "mounted_on": "/",
        "capacity_bytes": vol[2],
        "used_bytes": used,
        "free_bytes": vol[2] - used,
        "use_percent": round(100 * used / vol[2], 1),
        "capacity": human(vol[2]),
        "used": human(used),
        "free": human(vol[2] - used),
        "files": counts.get("file", 0),
        "directories": counts.get("dir", 0),
        "symlinks": counts.get("symlink", 0),
    }


SORTS = {"name": lambda n: n["name"], "size": lambda n: -n["size"], "modified": lambda n: n["mtime"]}


@filesystem.read(returns=("path", "directory"))
def list_directory(
    ctx: Ctx,
    path: DirArg = ".",
    show_hidden: Annotated[bool, Field(description="Include names starting with '.' (like ls -a)")] = False,
    long: Annotated[bool, Field(description="Show size, permissions, owner, group and mtime (like ls -l)")] = False,
    recursive: Annotated[bool, Field(description="List subdirectories too (like ls -R)")] = False,
    sort_by: Literal["name", "size", "modified"] = "name",
    reverse: bool = False,
    limit: Limit = 50,
    offset: Offset = 0,
) -> dict[str, Any]:
    """List a directory (like `ls`), e.g. list_directory('projects', long=True) or
    list_directory('/home/maya/Documents', recursive=True). On a file it lists just that file.
    sort_by 'size' is largest first and 'modified' oldest first (reverse flips both). Needs read permission."""
    me = who(ctx)
    node = existing(ctx, me, path)
    denied: list[str] = []
    if node["type"] != "dir":
        entries = [node]
    elif recursive:
        found, denied = subtree(ctx, me, node, hidden=show_hidden)
        entries = [n for n, _ in found]
    else:
        require(me, node, R, "list")
        entries = [
            c
            for c in rows(ctx.db.execute("SELECT * FROM nodes WHERE parent = ? ORDER BY name", (node["path"],)))
            if show_hidden or not c["name"].startswith(".")
        ]
    key = SORTS[sort_by]
    entries.sort(
        key=(lambda n: n["path"] if recursive else key(n)) if sort_by == "name" else (lambda n: (key(n), n["path"])),
        reverse=reverse,
    )
    page = entries[offset : offset + limit]
    out: dict[str, Any] = {
        "path": node["path"],
        "entries": [view(n, long) for n in page],
        "count": len(page),
        "total": len(entries),
    }
    if denied:
        out["permission_denied"] = denied
    return out


@filesystem.read(returns=("path", "directory"))
def show_tree(
    ctx: Ctx,
    path: DirArg = ".",
    max_depth: Annotated[int, Field(ge=1, le=10, description="How many levels deep")] = 2,
    show_hidden: bool = False,
    directories_only: Annotated[bool, Field(description="Show only directories (like tree -d)")] = False,
) -> dict[str, Any]:
    """Draw a directory tree (like `tree -L 2`), e.g. show_tree('projects/weather-cli', max_depth=3).
    At most 300 lines are drawn; unreadable directories are marked [permission denied]."""
    me = who(ctx)
    node = existing_dir(ctx, me, path)
    require(me, node, R, "list")
    found, denied = subtree(ctx, me, node, hidden=show_hidden, max_depth=max_depth)
    if directories_only:
        found = [(n, d) for n, d in found if n["type"] == "dir"]
    lines, shown, last_flags = [node["path"]], 0, list[bool]()
    for i, (n, depth) in enumerate(found):
        if shown >= 300:
            break
        is_last = True
        for _, d in found[i + 1 :]:
            if d <= depth:
                is_last = d < depth
                break
        prefix = "".join("    " if last else "|   " for last in last_flags[: depth - 1])
        last_flags = last_flags[: depth - 1] + [is_last]
        suffix = {"dir": "/", "symlink": f" -> {n['target']}"}.get(n["type"], "")
        if n["path"] in denied:
            suffix += "  [permission denied]"
        lines.append(prefix + ("`-- " if is_last else "|-- ") + n["name"] + suffix)
        shown += 1
    dirs = sum(1 for n, _ in found if n["type"] == "dir")
    return {
        "path": node["path"],
        "tree": "\n".join(lines),
        "directories": dirs,
        "files": len(found) - dirs,
        "truncated": shown < len(found),
    }


@filesystem.read(returns=("path",))
def get_file_info(
    ctx: Ctx,
    path: PathArg,
    follow_symlinks: Annotated[
        bool, Field(description="Describe the link's target rather than the link itself")
    ] = True,
) -> dict[str, Any]:
    """Details of one file, directory or symlink (like `stat`), e.g. get_file_info('/etc/shadow') or
    get_file_info('todo.md', follow_symlinks=False): size, type, permissions, owner, group, mtime, MIME type,
    line count for text files, and whether you can read/write/execute it."""
    me = who(ctx)
    node = existing(ctx, me, path, follow=follow_symlinks)
    out = view(node)
    out["mime_type"] = (
        "inode/directory"
        if node["type"] == "dir"
        else "inode/symlink"
        if node["type"] == "symlink"
        else mime(node["name"])
    )
    out["size_human"] = human(node["size"])
    out["binary"] = bool(node["binary"])
    if node["type"] == "file" and not node["binary"] and can(me, node, R):
        out["lines"] = len(str(node["content"] or "").splitlines())
    out["readable"], out["writable"], out["executable"] = can(me, node, R), can(me, node, W), can(me, node, X)
    return out


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
    for n in rows(ctx.db.execute(f"SELECT name, type, owner, group_name, mode FROM nodes WHERE {where}", args)):
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
