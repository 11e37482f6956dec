"""Shell state and looking around: pwd, cd, who am I, users, su, df, ls, tree, stat (finding things is in
``tools_nav_find``)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import Ctx, Entity, Limit, Offset, ToolError, fetch
from servers.filesystem.core import (
    DirArg,
    PathArg,
    R,
    W,
    X,
    can,
    existing,
    existing_dir,
    filesystem,
    human,
    mime,
    require,
    who,
)
from servers.filesystem.core_nodes import subtree, used_bytes, view

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
    users = ctx.rows("SELECT username, uid, full_name, home, shell FROM users ORDER BY uid")
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
    no_user = f"No user {username!r}. Use list_users to see the users on this machine."
    target = fetch(ctx.db, "SELECT username, home FROM users WHERE username = ?", (username,), no_user)
    if target["username"] == me.user:
        raise ToolError(f"You are already '{me.user}'.")
    if not me.root and "wheel" not in me.groups:
        raise ToolError(f"Permission denied: '{me.user}' is not in the 'wheel' group and cannot switch users.")
    home = ctx.db.execute("SELECT path FROM nodes WHERE path = ? AND type = 'dir'", (target["home"],)).fetchone()
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
            for c in ctx.rows("SELECT * FROM nodes WHERE parent = ? ORDER BY name", (node["path"],))
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
