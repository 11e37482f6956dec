"""Changing the tree and its permissions: mv, rm, rmdir, ln -s, chmod and chown."""

from __future__ import annotations

import posixpath
import re
from typing import Annotated, Any

from pydantic import Field

from hub.kit import Ctx, Entity, ToolError
from servers.filesystem.core import (
    NewPathArg,
    PathArg,
    R,
    W,
    Who,
    X,
    check_sticky,
    existing,
    filesystem,
    join,
    mode_string,
    node_at,
    parent_for_new,
    require,
    subtree_where,
    utf8,
    walk,
    who,
)
from servers.filesystem.core_nodes import children, ensure_space, insert, primary_group, touch_dir, view
from servers.filesystem.tools_write import DestArg, ModeArg, _destination


@filesystem.write(returns=("path",))
def move_path(
    ctx: Ctx,
    source: PathArg,
    destination: DestArg,
    overwrite: Annotated[bool, Field(description="Replace an existing destination file")] = True,
) -> dict[str, Any]:
    """Move or rename a file or directory (like `mv`), e.g. move_path('Downloads/exchange-rates.csv', 'Documents') or
    move_path('Documents/drafts', 'Documents/old-drafts'). A symlink is moved itself, not its target. Needs write
    permission on both directories; in a sticky directory like /tmp only the owner may move an entry."""
    me = who(ctx)
    src = existing(ctx, me, source, follow=False)
    if src["path"] == "/":
        raise ToolError("Cannot move the root directory.")
    sparent = node_at(ctx.db, posixpath.dirname(src["path"]))
    assert sparent is not None
    require(me, sparent, W, "remove entries from")
    check_sticky(me, sparent, src)
    target, tnode = _destination(ctx, me, src, destination)
    if target == src["path"]:
        raise ToolError(f"'{src['path']}' and '{target}' are the same file; nothing to move.")
    old = src["path"]
    if target.startswith(old + "/"):
        raise ToolError(f"Cannot move a directory, '{old}', into itself, '{target}'.")
    tparent = parent_for_new(ctx, me, target)
    if tnode is not None:
        if tnode["type"] == "dir":
            raise ToolError(f"'{target}' already exists and is a directory; move into it or pick another name.")
        if src["type"] == "dir":
            raise ToolError(f"Cannot overwrite non-directory '{target}' with directory '{old}'.")
        if not overwrite:
            raise ToolError(f"File exists: '{target}'. Pass overwrite=true to replace it.")
        check_sticky(me, tparent, tnode)
        ctx.db.execute("DELETE FROM nodes WHERE path = ?", (target,))
    ctx.db.execute(
        "UPDATE nodes SET path = ?, parent = ?, name = ? WHERE path = ?",
        (target, posixpath.dirname(target), posixpath.basename(target), old),
    )
    moved = 1
    if src["type"] == "dir":
        where, args = subtree_where(old)
        cur = ctx.db.execute(
            f"UPDATE nodes SET path = ? || substr(path, ?), parent = ? || substr(parent, ?) WHERE {where}",
            (target, len(old) + 1, target, len(old) + 1, *args),
        )
        moved += cur.rowcount
        cwd = me.cwd
        if cwd == old or cwd.startswith(old + "/"):
            ctx.db.execute("UPDATE shell SET cwd = ? WHERE id = 1", (target + cwd[len(old) :],))
    touch_dir(ctx, sparent["path"])
    touch_dir(ctx, tparent["path"])
    return {"source": old, "destination": target, "moved": moved, "replaced": tnode is not None}


def _removable(ctx: Ctx, me: Who, node: dict[str, Any]) -> dict[str, Any]:
    if node["path"] == "/":
        raise ToolError("Refusing to remove '/'.")
    if me.cwd == node["path"] or me.cwd.startswith(node["path"] + "/"):
        raise ToolError(
            f"'{node['path']}' contains the current directory ({me.cwd}); change_directory elsewhere first."
        )
    parent = node_at(ctx.db, posixpath.dirname(node["path"]))
    assert parent is not None
    require(me, parent, W, "remove entries from")
    check_sticky(me, parent, node)
    return parent


@filesystem.write(returns=("path",))
def remove_path(
    ctx: Ctx,
    path: PathArg,
    recursive: Annotated[bool, Field(description="Remove a directory and everything in it (like rm -r)")] = False,
) -> dict[str, Any]:
    """Delete a file or symlink, or a whole directory with recursive=true (like `rm` / `rm -r`), e.g.
    remove_path('/tmp/upload-tmp.csv') or remove_path('projects/blog/drafts', recursive=True). There is no trash."""
    me = who(ctx)
    node = existing(ctx, me, path, follow=False)
    parent = _removable(ctx, me, node)
    removed, freed = 1, node["size"]
    if node["type"] == "dir":
        if not recursive:
            raise ToolError(
                f"Is a directory: '{node['path']}'. Pass recursive=true to delete it and its contents, "
                "or use remove_directory for an empty one."
            )
        where, args = subtree_where(node["path"])
        inner = ctx.rows(f"SELECT * FROM nodes WHERE {where} ORDER BY path", args)
        for d in [node] + [n for n in inner if n["type"] == "dir"]:
            if children(ctx.db, d["path"]):
                require(me, d, R, "list")
                require(me, d, X, "enter")
                require(me, d, W, "delete entries in")
                for c in children(ctx.db, d["path"]):
                    check_sticky(me, d, c)
        removed += len(inner)
        freed += sum(n["size"] for n in inner)
        ctx.db.execute(f"DELETE FROM nodes WHERE {where}", args)
    ctx.db.execute("DELETE FROM nodes WHERE path = ?", (node["path"],))
    touch_dir(ctx, parent["path"])
    return {"removed": node["path"], "entries_removed": removed, "bytes_freed": freed}


@filesystem.write(returns=("path",))
def remove_directory(
    ctx: Ctx,
    path: Annotated[
        str,
        Field(min_length=1, max_length=4096, description="An empty directory, e.g. 'Documents/drafts'"),
        Entity("directory"),
    ],
) -> dict[str, Any]:
    """Delete an empty directory (like `rmdir`), e.g. remove_directory('/home/maya/Documents/drafts'). Fails with
    'Directory not empty' otherwise; use remove_path(recursive=true) for that."""
    me = who(ctx)
    node = existing(ctx, me, path, follow=False)
    if node["type"] != "dir":
        raise ToolError(f"Not a directory: '{node['path']}' is a {node['type']}; use remove_path for files.")
    inside = ctx.value("SELECT COUNT(*) FROM nodes WHERE parent = ?", (node["path"],))
    if inside:
        raise ToolError(
            f"Directory not empty: '{node['path']}' holds {inside} entries. Remove them first, or use "
            f"remove_path(recursive=true)."
        )
    parent = _removable(ctx, me, node)
    ctx.db.execute("DELETE FROM nodes WHERE path = ?", (node["path"],))
    touch_dir(ctx, parent["path"])
    return {"removed": node["path"]}


@filesystem.write(returns=("path",))
def create_symlink(
    ctx: Ctx,
    target: Annotated[
        str,
        Field(
            min_length=1,
            max_length=4096,
            description="What the link points to, e.g. '/srv/shared/handbook.md' or '../notes'",
        ),
        Entity("path"),
    ],
    link_path: NewPathArg,
) -> dict[str, Any]:
    """Create a symbolic link (like `ln -s TARGET LINK`), e.g. create_symlink('/var/log/nginx', 'nginx-logs').
    A relative target is resolved from the link's directory; it may point to something that does not exist yet.
    If link_path is an existing directory the link goes inside it, named after the target."""
    me = who(ctx)
    if "\x00" in target:
        raise ToolError("Invalid symlink target: it contains a NUL byte.")
    utf8(target, "target")
    resolved, node = walk(ctx, me, link_path, follow=False)
    if node is not None and node["type"] == "dir":
        name = posixpath.basename(target.rstrip("/"))
        if not name or name in (".", ".."):
            raise ToolError(f"File exists: '{resolved}' is a directory; give the link's full path.")
        resolved, node = walk(ctx, me, join(resolved, name), follow=False)
    if node is not None:
        raise ToolError(f"File exists: '{resolved}'. Remove it first or choose another link name.")
    parent = parent_for_new(ctx, me, resolved)
    ensure_space(ctx.db, utf8(target))
    insert(ctx, resolved, "symlink", me.user, primary_group(ctx, me, parent), 0o777, target=target)
    touch_dir(ctx, parent["path"])
    try:
        final, fnode = walk(ctx, me, resolved)
        points_to: str | None = final if fnode is not None else None
    except ToolError:
        points_to = None
    return {"link": resolved, "target": target, "resolves_to": points_to, "dangling": points_to is None}


def apply_mode(mode: int, spec: str, is_dir: bool) -> int:
    """A new mode from an octal ('0644') or symbolic ('u+x,go-w') spec."""
    if re.fullmatch(r"[0-7]{3,4}", spec):
        new = int(spec, 8)
        return new | (mode & 0o6000 if len(spec) == 3 and is_dir else 0)
    for clause in spec.split(","):
        m = re.fullmatch(r"([ugoa]*)((?:[-+=][rwxXst]*)+)", clause)
        if not m:
            raise ToolError(f"Invalid mode clause {clause!r}; use e.g. 'u+x', 'go-w' or '644'.")
        whom = m.group(1) or "a"
        whom = "ugo" if "a" in whom else whom
        for op, perms in re.findall(r"([-+=])([rwxXst]*)", m.group(2)):
            bits = 0
            for w in whom:
                shift = {"u": 6, "g": 3, "o": 0}[w]
                for p in perms:
                    if p in "rwx" or (p == "X" and (is_dir or mode & 0o111)):
                        bits |= {"r": 4, "w": 2, "x": 1, "X": 1}[p] << shift
                if "s" in perms and w in "ug":
                    bits |= 0o4000 if w == "u" else 0o2000
            if "t" in perms:
                bits |= 0o1000
            if op == "+":
                mode |= bits
            elif op == "-":
                mode &= ~bits
            else:
                clear = 0
                for w in whom:
                    clear |= 0o7 << {"u": 6, "g": 3, "o": 0}[w]
                    clear |= {"u": 0o4000, "g": 0o2000, "o": 0o1000}[w]
                mode = (mode & ~clear) | bits
    return mode & 0o7777


def _targets(ctx: Ctx, me: Who, node: dict[str, Any], recursive: bool) -> list[dict[str, Any]]:
    if not recursive or node["type"] != "dir":
        return [node]
    where, args = subtree_where(node["path"])
    inner = ctx.rows(f"SELECT * FROM nodes WHERE {where} ORDER BY path", args)
    for d in [node] + [n for n in inner if n["type"] == "dir"]:
        require(me, d, R, "list")
    return [node] + inner


@filesystem.write(returns=("path",))
def change_mode(
    ctx: Ctx,
    path: PathArg,
    mode: ModeArg,
    recursive: Annotated[bool, Field(description="Apply to everything below a directory too (like chmod -R)")] = False,
) -> dict[str, Any]:
    """Change permission bits (like `chmod`), e.g. change_mode('projects/scripts/backup.sh', 'u+x'),
    change_mode('/home/maya/.ssh/config', '600') or change_mode('Documents', 'go-rwx', recursive=True).
    Only the owner (or root) may do it. Symlinks themselves are left alone."""
    me = who(ctx)
    node = existing(ctx, me, path)
    changed = 0
    for n in _targets(ctx, me, node, recursive):
        if n["type"] == "symlink":
            continue
        if not me.root and n["owner"] != me.user:
            raise ToolError(
                f"Operation not permitted: '{n['path']}' belongs to '{n['owner']}'; only the owner or root can change "
                f"its mode."
            )
        new = apply_mode(n["mode"], mode, n["type"] == "dir")
        if new != n["mode"]:
            ctx.db.execute("UPDATE nodes SET mode = ? WHERE path = ?", (new, n["path"]))
            changed += 1
    after = node_at(ctx.db, node["path"])
    assert after is not None
    return {"path": node["path"], "mode": f"{after['mode']:04o}", "permissions": mode_string(after), "changed": changed}


@filesystem.write(returns=("path",))
def change_owner(
    ctx: Ctx,
    path: PathArg,
    owner: Annotated[
        str | None, Field(min_length=1, max_length=32, description="New owning user, e.g. 'sam'"), Entity("user")
    ] = None,
    group: Annotated[str | None, Field(min_length=1, max_length=32, description="New group, e.g. 'team'")] = None,
    recursive: Annotated[bool, Field(description="Apply to everything below a directory too (like chown -R)")] = False,
) -> dict[str, Any]:
    """Change a file's owner and/or group (like `chown sam:team`), e.g.
    change_owner('/srv/shared/onboarding.md', group='team').
    Only root may change the owner (switch_user('root') first); the owner may change the group to one of their own
    groups."""
    me = who(ctx)
    if owner is None and group is None:
        raise ToolError("Give an owner, a group, or both.")
    if owner is not None and not ctx.db.execute("SELECT 1 FROM users WHERE username = ?", (owner,)).fetchone():
        raise ToolError(f"No user {owner!r}. Use list_users to see valid users.")
    if group is not None and not ctx.db.execute("SELECT 1 FROM groups WHERE group_name = ?", (group,)).fetchone():
        raise ToolError(f"No group {group!r}. Use list_users to see valid groups.")
    node = existing(ctx, me, path)
    changed = 0
    for n in _targets(ctx, me, node, recursive):
        if not me.root:
            if owner is not None and owner != n["owner"]:
                raise ToolError(
                    f"Operation not permitted: only root can give '{n['path']}' to another user; use "
                    f"switch_user('root') first."
                )
            if n["owner"] != me.user:
                raise ToolError(f"Operation not permitted: '{n['path']}' belongs to '{n['owner']}', not to you.")
            if group is not None and group not in me.groups:
                raise ToolError(
                    f"Operation not permitted: you are not in group '{group}' (your groups: "
                    f"{', '.join(sorted(me.groups))})."
                )
        new_owner, new_group = owner or n["owner"], group or n["group_name"]
        if (new_owner, new_group) != (n["owner"], n["group_name"]):
            ctx.db.execute(
                "UPDATE nodes SET owner = ?, group_name = ? WHERE path = ?", (new_owner, new_group, n["path"])
            )
            changed += 1
    after = node_at(ctx.db, node["path"])
    assert after is not None
    return {**view(after), "changed": changed}
