"""Archives (tar, tar.gz, zip): create, list and extract. An archive is one file holding its entries."""

from __future__ import annotations

import posixpath
from typing import Annotated, Any

from pydantic import Field

from hub.kit import Ctx, Limit, Offset, ToolError
from servers.filesystem.core import (
    ArchiveArg,
    DirArg,
    NewPathArg,
    PathArg,
    R,
    W,
    Who,
    archive_encode,
    archive_size,
    clean,
    existing,
    existing_dir,
    existing_file,
    filesystem,
    node_at,
    parent_for_new,
    require,
    walk,
    who,
)
from servers.filesystem.core_nodes import ensure_space, insert, primary_group, readable_tree, touch_dir
from servers.filesystem.core_text import archive_decode

FORMATS = (".tar", ".tar.gz", ".tgz", ".zip")


def _entries_of(ctx: Ctx, me: Who, node: dict[str, Any]) -> list[dict[str, Any]]:
    base = len(posixpath.dirname(node["path"]).rstrip("/")) + 1
    nodes = readable_tree(ctx, me, node) if node["type"] == "dir" else [node]
    if node["type"] == "file":
        require(me, node, R)
    return [
        {
            "path": n["path"][base:],
            "type": n["type"],
            "content": n["content"],
            "target": n["target"],
            "size": n["size"],
            "binary": n["binary"],
            "mode": n["mode"],
            "mtime": n["mtime"],
        }
        for n in nodes
    ]


@filesystem.write(returns=("archive",))
def create_archive(
    ctx: Ctx,
    archive_path: NewPathArg,
    sources: Annotated[
        list[PathArg],
        Field(min_length=1, max_length=20, description="Files or directories to pack, e.g. ['Documents/notes']"),
    ],
    overwrite: Annotated[bool, Field(description="Replace an existing archive file")] = False,
) -> dict[str, Any]:
    """Pack files and directories into an archive (like `tar czf` or `zip -r`), e.g.
    create_archive('/home/maya/backups/reports.tar.gz', ['Documents/reports']). The format follows the extension:
    .tar, .tar.gz, .tgz or .zip. Entries are stored under their own names (directory trees kept); symlinks are stored as
    links."""
    me = who(ctx)
    target, tnode = walk(ctx, me, archive_path)
    name = posixpath.basename(target)
    if not name.endswith(FORMATS):
        raise ToolError(f"Unknown archive type for '{name}': the name must end with {', '.join(FORMATS)}.")
    entries: list[dict[str, Any]] = []
    for s in sources:
        node = existing(ctx, me, s, follow=False)
        if node["path"] == "/":
            raise ToolError(
                "Refusing to archive the whole file system; pick directories such as '/home/maya/Documents'."
            )
        entries.extend(_entries_of(ctx, me, node))
    seen: set[str] = set()
    for e in entries:
        if e["path"] in seen:
            raise ToolError(f"Two sources would both be stored as '{e['path']}'; archive them separately.")
        seen.add(e["path"])
    content = archive_encode(entries)
    size = archive_size(entries, not name.endswith(".tar"))
    if tnode is not None:
        if tnode["type"] == "dir":
            raise ToolError(f"Is a directory: '{target}'. Give the archive file's name, e.g. '{target}/backup.tar.gz'.")
        if not overwrite:
            raise ToolError(f"File exists: '{target}'. Pass overwrite=true to replace it.")
        require(me, tnode, W)
        ensure_space(ctx.db, size - tnode["size"])
        ctx.db.execute(
            "UPDATE nodes SET content = ?, size = ?, binary = 1, mtime = ? WHERE path = ?",
            (content, size, max(e["mtime"] for e in entries), target),
        )
    else:
        parent = parent_for_new(ctx, me, target)
        ensure_space(ctx.db, size)
        insert(
            ctx, target, "file", me.user, primary_group(ctx, me, parent), 0o644, content=content, size=size, binary=1
        )
        touch_dir(ctx, parent["path"])
    files = sum(1 for e in entries if e["type"] == "file")
    return {
        "archive": target,
        "entries": len(entries),
        "files": files,
        "size": size,
        "original_bytes": sum(e["size"] for e in entries if e["type"] == "file"),
    }


@filesystem.read(returns=("path",))
def list_archive(ctx: Ctx, archive_path: ArchiveArg, limit: Limit = 50, offset: Offset = 0) -> dict[str, Any]:
    """List what an archive holds without extracting it (like `tar tvf`), e.g.
    list_archive('/home/maya/backups/dotfiles.tar')
    or list_archive('/home/maya/backups/notes-2026-04.tar.gz')."""
    node = existing_file(ctx, who(ctx), archive_path, text=False)
    entries = archive_decode(node)
    page = [
        {
            "path": e["path"],
            "type": e["type"],
            "size": e["size"],
            "mode": f"{e['mode']:04o}",
            "modified": e["mtime"],
            **({"target": e["target"]} if e["type"] == "symlink" else {}),
        }
        for e in entries[offset : offset + limit]
    ]
    return {
        "archive": node["path"],
        "entries": page,
        "count": len(page),
        "total": len(entries),
        "total_bytes": sum(e["size"] for e in entries if e["type"] == "file"),
    }


@filesystem.write(returns=("path",), requires=("create_archive",))
def extract_archive(
    ctx: Ctx,
    archive_path: ArchiveArg,
    destination: DirArg = ".",
    overwrite: Annotated[bool, Field(description="Replace files that already exist")] = False,
) -> dict[str, Any]:
    """Unpack an archive into a directory (like `tar xf ARCHIVE -C DIR`), e.g.
    extract_archive('/home/maya/backups/dotfiles.tar', '/tmp') creates /tmp/.bashrc, /tmp/.config, ...
    Existing directories are merged; existing files are an error unless overwrite=true. Modes and times are restored."""
    me = who(ctx)
    node = existing_file(ctx, me, archive_path, text=False)
    entries = archive_decode(node)
    dest = existing_dir(ctx, me, destination)
    base = dest["path"].rstrip("/") + "/"
    plan = []
    for e in sorted(entries, key=lambda e: e["path"]):
        path = clean(base + e["path"])
        if not path.startswith(base):
            raise ToolError(
                f"Unsafe entry '{e['path']}' in the archive would land outside '{dest['path']}'; refusing to extract."
            )
        plan.append((path, e))
    need, steps = 0, []
    for path, e in plan:  # check everything first: a failure leaves nothing half-extracted
        cur = node_at(ctx.db, path)
        if cur is not None:
            if e["type"] == "dir" and cur["type"] == "dir":
                continue
            if cur["type"] == "dir" or e["type"] == "dir":
                raise ToolError(
                    f"Cannot extract {e['type']} '{e['path']}': '{path}' already exists as a {cur['type']}."
                )
            if not overwrite:
                raise ToolError(f"File exists: '{path}'. Pass overwrite=true to replace it, or extract somewhere else.")
            require(me, cur, W)
            need -= cur["size"]
        need += e["size"]
        steps.append((path, e, cur))
    ensure_space(ctx.db, need)
    created = replaced = 0
    for path, e, cur in steps:
        if cur is not None:
            parent = node_at(ctx.db, posixpath.dirname(path))
            assert parent is not None
            require(me, parent, W, "replace entries in")
            ctx.db.execute("DELETE FROM nodes WHERE path = ?", (path,))
            replaced += 1
        else:
            parent = parent_for_new(ctx, me, path)
            created += 1
        insert(
            ctx,
            path,
            e["type"],
            me.user,
            primary_group(ctx, me, parent),
            e["mode"],
            content=e["content"],
            target=e["target"],
            size=e["size"],
            binary=e["binary"],
            mtime=e["mtime"],
        )
    touch_dir(ctx, dest["path"])
    return {
        "archive": node["path"],
        "destination": dest["path"],
        "created": created,
        "replaced": replaced,
        "entries": len(entries),
    }
