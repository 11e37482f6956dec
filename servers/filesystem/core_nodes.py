"""Nodes as the tools show and write them: listing views, space accounting, inserting and
changing rows, children and readable subtrees."""

from __future__ import annotations

import posixpath
import sqlite3
from typing import Any

from hub.kit import Ctx, ToolError, fake, rows
from servers.filesystem.core import DIR_SIZE, R, Who, X, can, human, mode_string, require, subtree_where
from servers.filesystem.core_text import check_file_size


def view(node: dict[str, Any], long: bool = True) -> dict[str, Any]:
    """How a node is shown to the model."""
    out: dict[str, Any] = {"path": node["path"], "name": node["name"], "type": node["type"]}
    if long:
        out.update(
            size=node["size"],
            permissions=mode_string(node),
            mode=f"{node['mode']:04o}",
            owner=node["owner"],
            group=node["group_name"],
            modified=node["mtime"],
        )
    if node["type"] == "symlink":
        out["target"] = node["target"]
    return out


# Writing nodes ------------------------------------------------------------------------------------


def used_bytes(db: sqlite3.Connection) -> int:
    return int(db.execute("SELECT COALESCE(SUM(size), 0) FROM nodes").fetchone()[0])


def ensure_space(db: sqlite3.Connection, extra: int) -> None:
    if extra <= 0:
        return
    cap = db.execute("SELECT capacity_bytes FROM volume WHERE id = 1").fetchone()[0]
    used = used_bytes(db)
    if used + extra > cap:
        raise ToolError(
            f"No space left on device: {human(extra)} needed, {human(cap - used)} free of {human(cap)}. "
            "Free space with remove_path (see disk_usage for what is large)."
        )


def insert(
    ctx: Ctx,
    path: str,
    type_: str,
    owner: str,
    group: str,
    mode: int,
    *,
    content: str | None = None,
    target: str | None = None,
    size: int | None = None,
    binary: int = 0,
    mtime: str | None = None,
    content_of: str | None = None,
) -> None:
    """Add a node; ``content_of`` (with ``size``): a file's content is that existing file's, copied inside
    SQLite (a large tree's copy never holds its content in Python)."""
    if size is None:
        size = DIR_SIZE if type_ == "dir" else len(((content if type_ == "file" else target) or "").encode())
    parent = None if path == "/" else posixpath.dirname(path)
    copied = content_of is not None and type_ == "file"
    ctx.db.execute(
        "INSERT INTO nodes VALUES (?,?,?,?,"
        + ("(SELECT content FROM nodes WHERE path = ?)" if copied else "?")
        + ",?,?,?,?,?,?,?)",
        (
            path,
            parent,
            posixpath.basename(path) or "/",
            type_,
            content_of if copied else content if type_ == "file" else None,
            target,
            size,
            binary,
            owner,
            group,
            mode,
            mtime or fake.iso(ctx.now),
        ),
    )


def set_content(ctx: Ctx, node: dict[str, Any], content: str) -> None:
    check_file_size(node["path"], len(content.encode()))
    ensure_space(ctx.db, len(content.encode()) - node["size"])
    ctx.db.execute(
        "UPDATE nodes SET content = ?, size = ?, binary = 0, mtime = ? WHERE path = ?",
        (content, len(content.encode()), fake.iso(ctx.now), node["path"]),
    )


def touch_dir(ctx: Ctx, path: str) -> None:
    ctx.db.execute("UPDATE nodes SET mtime = ? WHERE path = ?", (fake.iso(ctx.now), path))


def primary_group(ctx: Ctx, me: Who, parent: dict[str, Any]) -> str:
    """New entries get the user's own group, or the parent's group in a setgid directory."""
    if parent["mode"] & 0o2000:
        return str(parent["group_name"])
    return me.user if me.user in me.groups else sorted(me.groups)[0] if me.groups else me.user


def children(db: sqlite3.Connection, path: str) -> list[dict[str, Any]]:
    return rows(db.execute("SELECT * FROM nodes WHERE parent = ? ORDER BY name", (path,)))


def subtree(
    ctx: Ctx,
    me: Who,
    start: dict[str, Any],
    *,
    hidden: bool = True,
    max_depth: int | None = None,
    need_read: bool = True,
) -> tuple[list[tuple[dict[str, Any], int]], list[str]]:
    """Depth-first (pre-order) entries below a directory with their depth, and the directories it could not read."""
    out: list[tuple[dict[str, Any], int]] = []
    denied: list[str] = []

    def visit(d: dict[str, Any], depth: int) -> None:
        if need_read and not (can(me, d, R) and can(me, d, X)):
            denied.append(d["path"])
            return
        for c in children(ctx.db, d["path"]):
            if not hidden and c["name"].startswith("."):
                continue
            out.append((c, depth + 1))
            if c["type"] == "dir" and (max_depth is None or depth + 1 < max_depth):
                visit(c, depth + 1)

    visit(start, 0)
    return out, denied


# The columns of ``nodes`` with the content left out (None): a copy moves content inside SQLite instead.
NO_CONTENT = "path, parent, name, type, NULL AS content, target, size, binary, owner, group_name, mode, mtime"


def readable_tree(ctx: Ctx, me: Who, node: dict[str, Any], *, content: bool = True) -> list[dict[str, Any]]:
    """A node and everything below it, checking that all of it can be read (for copies and archives);
    ``content=False`` leaves the files' content out (None)."""
    where, args = subtree_where(node["path"])
    columns = "*" if content else NO_CONTENT
    nodes = [node] + ctx.rows(f"SELECT {columns} FROM nodes WHERE {where} ORDER BY path", args)
    for n in nodes:
        if n["type"] == "dir":
            require(me, n, R, "list")
            require(me, n, X, "enter")
        elif n["type"] == "file":
            require(me, n, R)
    return nodes
