"""Writing files: mkdir, touch, write, append, replace, concatenate and copy (moving, removing, links and
permissions are in ``tools_write_paths``)."""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from typing import Annotated, Any

import regex
from pydantic import Field

from hub.kit import Ctx, Entity, ToolError, fake
from servers.filesystem.core import (
    Content,
    NewPathArg,
    PathArg,
    R,
    W,
    Who,
    existing,
    existing_file,
    filesystem,
    join,
    node_at,
    normalize,
    parent_for_new,
    require,
    utf8,
    walk,
    who,
)
from servers.filesystem.core_nodes import ensure_space, insert, primary_group, readable_tree, set_content, touch_dir
from servers.filesystem.core_text import MAX_FILE_BYTES, check_file_size, compile_regex

DestArg = Annotated[
    str,
    Field(
        min_length=1,
        max_length=4096,
        description="Where to: an existing directory to put it into (e.g. '/home/maya/backups'), "
        "or a new path (e.g. 'notes-copy.md')",
    ),
    Entity("directory"),
]
ModeArg = Annotated[
    str,
    Field(
        pattern=r"^([0-7]{3,4}|[ugoa]*[-+=][rwxXst]*([-+=][rwxXst]*)*(,[ugoa]*[-+=][rwxXst]*([-+=][rwxXst]*)*){0,5})$",
        description="Octal like '644' or '0755', or symbolic like 'u+x', 'go-w' or 'a=r,u+w'",
    ),
]


def _file_target(ctx: Ctx, me: Who, path: str) -> tuple[str, dict[str, Any] | None]:
    """Where writing to ``path`` lands: an existing writable file, or a new entry in a writable directory."""
    resolved, node = walk(ctx, me, path, follow=True)
    if node is not None:
        if node["type"] == "dir":
            raise ToolError(
                f"Is a directory: '{resolved}'. Give a file path inside it, e.g. '{join(resolved, 'notes.txt')}'."
            )
        require(me, node, W)
        return resolved, node
    parent_for_new(ctx, me, resolved)
    return resolved, None


def _new_file(ctx: Ctx, me: Who, path: str, content: str, mode: int = 0o644) -> None:
    parent = node_at(ctx.db, posixpath.dirname(path))
    assert parent is not None
    check_file_size(path, utf8(content))
    ensure_space(ctx.db, utf8(content))
    insert(ctx, path, "file", me.user, primary_group(ctx, me, parent), mode, content=content)
    touch_dir(ctx, parent["path"])


def _file_result(ctx: Ctx, path: str, created: bool) -> dict[str, Any]:
    node = node_at(ctx.db, path)
    assert node is not None
    return {"path": path, "size": node["size"], "lines": str(node["content"] or "").count("\n"), "created": created}


@filesystem.write(returns=("directory",))
def make_directory(
    ctx: Ctx,
    path: NewPathArg,
    parents: Annotated[
        bool,
        Field(description="Create missing parent directories too, and accept an existing directory (like mkdir -p)"),
    ] = False,
) -> dict[str, Any]:
    """Create a directory (like `mkdir`), e.g. make_directory('Documents/archive/2025', parents=True) or
    make_directory('/home/maya/projects/new-app'). New directories get mode 0755
    (inheriting the group of a setgid parent)."""
    me = who(ctx)
    target = normalize(path, me)
    parts = [p for p in target.split("/") if p]
    steps = ["/" + "/".join(parts[:k]) for k in range(1, len(parts) + 1)] if parents else [target]
    created = []
    for step in steps:
        resolved, node = walk(ctx, me, step, follow=parents)
        if node is not None:
            if node["type"] != "dir" or not parents:
                raise ToolError(
                    f"File exists: '{resolved}' already exists"
                    + ("" if node["type"] == "dir" else f" and is a {node['type']}")
                    + "."
                )
            continue
        parent = parent_for_new(ctx, me, resolved)
        mode = 0o755 | (parent["mode"] & 0o2000)
        insert(ctx, resolved, "dir", me.user, primary_group(ctx, me, parent), mode)
        touch_dir(ctx, parent["path"])
        created.append(resolved)
    return {"path": target, "created": created}


@filesystem.write(returns=("path",))
def touch_file(ctx: Ctx, path: PathArg) -> dict[str, Any]:
    """Create an empty file, or set an existing file's modification time to now (like `touch`), e.g.
    touch_file('Documents/drafts/ideas.md')."""
    me = who(ctx)
    resolved, node = walk(ctx, me, path)
    if node is None:
        parent_for_new(ctx, me, resolved)
        _new_file(ctx, me, resolved, "")
        return {"path": resolved, "created": True, "modified": fake.iso(ctx.now)}
    if node["owner"] != me.user:
        require(me, node, W, "touch")
    ctx.db.execute("UPDATE nodes SET mtime = ? WHERE path = ?", (fake.iso(ctx.now), resolved))
    return {"path": resolved, "created": False, "modified": fake.iso(ctx.now)}


@filesystem.write(returns=("path",))
def write_file(
    ctx: Ctx,
    path: PathArg,
    content: Content,
    overwrite: Annotated[bool, Field(description="Replace an existing file (like >); false fails if it exists")] = True,
) -> dict[str, Any]:
    """Write text to a file, creating it or replacing its contents (like `cat > file`), e.g.
    write_file('Documents/notes/ideas.md', '# Ideas\\n- a CLI for recipes\\n'). The parent directory must exist
    (see make_directory); new files get mode 0644."""
    me = who(ctx)
    utf8(content)
    resolved, node = _file_target(ctx, me, path)
    if node is None:
        _new_file(ctx, me, resolved, content)
        return _file_result(ctx, resolved, True)
    if not overwrite:
        raise ToolError(f"File exists: '{resolved}'. Pass overwrite=true to replace it or append with append_file.")
    set_content(ctx, node, content)
    return _file_result(ctx, resolved, False)


@filesystem.write(returns=("path",))
def append_file(
    ctx: Ctx,
    path: PathArg,
    content: Annotated[str, Field(min_length=1, max_length=100_000, description="Text to add at the end")],
    newline: Annotated[
        bool, Field(description="End the added text with a newline if it lacks one (like echo >>)")
    ] = True,
) -> dict[str, Any]:
    """Add text at the end of a file, creating it if needed (like `echo ... >> file`), e.g.
    append_file('/home/maya/Documents/todo.md', '- [ ] Water the plants')."""
    me = who(ctx)
    utf8(content)
    if newline and not content.endswith("\n"):
        content += "\n"
    resolved, node = _file_target(ctx, me, path)
    if node is None:
        _new_file(ctx, me, resolved, content)
        return _file_result(ctx, resolved, True)
    if node["binary"]:
        raise ToolError(f"'{resolved}' is a binary file; text cannot be appended to it.")
    old = str(node["content"] or "")
    set_content(ctx, node, old + content)
    return _file_result(ctx, resolved, False)


def _bounded_replacement(path: str, size: int, replacement: str, template: bool) -> Callable[[regex.Match[str]], str]:
    """The per-match replacement, refusing as soon as the file would outgrow its cap (before building it)."""
    grown = 0

    def replace(match: regex.Match[str]) -> str:
        nonlocal grown
        try:
            out = match.expand(replacement) if template else replacement
        except (regex.error, IndexError) as exc:
            raise ToolError(f"Invalid replacement {replacement!r}: {exc}.") from None
        grown += len(out) - (match.end() - match.start())
        if size + grown > MAX_FILE_BYTES:
            check_file_size(path, size + grown)
        return out

    return replace


@filesystem.write(returns=("path",))
def replace_in_file(
    ctx: Ctx,
    path: PathArg,
    pattern: Annotated[str, Field(min_length=1, max_length=200, description="Text to find (a regex with regex=true)")],
    replacement: Annotated[
        str, Field(max_length=10_000, description="Replacement text; with regex=true, \\1 refers to groups")
    ],
    regex: bool = False,
    ignore_case: bool = False,
    max_count: Annotated[int, Field(ge=0, le=100_000, description="Replace at most this many; 0 means all")] = 0,
) -> dict[str, Any]:
    """Find and replace in a text file in place (like `sed -i 's/old/new/g'`), e.g.
    replace_in_file('projects/weather-cli/README.md', 'MIT', 'Apache-2.0'). Fails if nothing matches."""
    me = who(ctx)
    utf8(replacement, "replacement")
    node = existing_file(ctx, me, path)
    require(me, node, W)
    rx = compile_regex(pattern, ignore_case, fixed=not regex)
    text = str(node["content"] or "")
    new, n = rx.subn(_bounded_replacement(node["path"], len(text), replacement, regex), text, max_count)
    if n == 0:
        raise ToolError(f"No match for {pattern!r} in '{node['path']}'; nothing was changed. Check it with grep_files.")
    set_content(ctx, node, new)
    return {"path": node["path"], "replacements": n, "size": len(new.encode())}


@filesystem.write(returns=("path",))
def concatenate_files(
    ctx: Ctx,
    sources: Annotated[list[PathArg], Field(min_length=1, max_length=20, description="Files to join, in order")],
    destination: Annotated[
        str, Field(min_length=1, max_length=4096, description="The file to write, e.g. 'all-notes.md'"), Entity("path")
    ],
    append: Annotated[
        bool, Field(description="Add to the end of destination instead of replacing it (like >>)")
    ] = False,
) -> dict[str, Any]:
    """Join text files into one (like `cat a b > c`), e.g.
    concatenate_files(['projects/data-pipeline/data/sales_2025_q3.csv',
    'projects/data-pipeline/data/sales_2025_q4.csv'], 'sales-h2.csv')."""
    me = who(ctx)
    nodes = [existing_file(ctx, me, s) for s in sources]
    resolved, node = _file_target(ctx, me, destination)
    if not append and any(n["path"] == resolved for n in nodes):
        raise ToolError(f"'{resolved}' is both an input and the output; write to a new file or use append=true.")
    joined = "".join(str(n["content"] or "") for n in nodes)
    if node is None:
        _new_file(ctx, me, resolved, joined)
    else:
        if append and node["binary"]:
            raise ToolError(f"'{resolved}' is a binary file; text cannot be appended to it.")
        set_content(ctx, node, (str(node["content"] or "") if append else "") + joined)
    return {**_file_result(ctx, resolved, node is None), "sources": [n["path"] for n in nodes]}


def _destination(ctx: Ctx, me: Who, src: dict[str, Any], destination: str) -> tuple[str, dict[str, Any] | None]:
    resolved, dnode = walk(ctx, me, destination)
    if dnode is not None and dnode["type"] == "dir":
        target = join(dnode["path"], src["name"])
        return walk(ctx, me, target, follow=False)
    return resolved, dnode


@filesystem.write(returns=("path",))
def copy_path(
    ctx: Ctx,
    source: PathArg,
    destination: DestArg,
    recursive: Annotated[bool, Field(description="Copy a directory with everything in it (like cp -r)")] = False,
    overwrite: Annotated[bool, Field(description="Replace an existing destination file")] = True,
) -> dict[str, Any]:
    """Copy a file or directory (like `cp` / `cp -r`), e.g. copy_path('Documents/todo.md', 'Documents/todo-backup.md')
    or copy_path('projects/weather-cli', '/home/maya/backups', recursive=True). Into an existing directory it keeps
    the name. Copies belong to you, keep the mode bits and get the current time."""
    me = who(ctx)
    src = existing(ctx, me, source)
    if src["type"] == "dir" and not recursive:
        raise ToolError(f"'{src['path']}' is a directory; pass recursive=true to copy it with its contents.")
    target, tnode = _destination(ctx, me, src, destination)
    if target == src["path"]:
        raise ToolError(f"'{src['path']}' and '{target}' are the same file.")
    if target.startswith(src["path"].rstrip("/") + "/"):
        raise ToolError(f"Cannot copy a directory, '{src['path']}', into itself, '{target}'.")
    parent = parent_for_new(ctx, me, target)
    group = primary_group(ctx, me, parent)
    if src["type"] != "dir":
        require(me, src, R)
        if tnode is not None:
            if tnode["type"] == "dir":
                raise ToolError(f"Cannot overwrite directory '{target}' with a file.")
            if not overwrite:
                raise ToolError(f"File exists: '{target}'. Pass overwrite=true to replace it.")
            require(me, tnode, W)
            ensure_space(ctx.db, src["size"] - tnode["size"])
            ctx.db.execute(
                "UPDATE nodes SET type = 'file', content = ?, target = NULL, size = ?, binary = ?, mtime = ? WHERE "
                "path = ?",
                (src["content"], src["size"], src["binary"], fake.iso(ctx.now), target),
            )
        else:
            ensure_space(ctx.db, src["size"])
            insert(
                ctx,
                target,
                "file",
                me.user,
                group,
                src["mode"] & 0o777,
                content=src["content"],
                size=src["size"],
                binary=src["binary"],
            )
        touch_dir(ctx, parent["path"])
        return {"source": src["path"], "destination": target, "copied": 1, "bytes": src["size"]}
    if tnode is not None:
        raise ToolError(f"File exists: '{target}'. Copy to a new name, or remove it first.")
    nodes = readable_tree(ctx, me, src, content=False)
    total = sum(n["size"] for n in nodes)
    ensure_space(ctx.db, total)
    base = len(src["path"].rstrip("/")) if src["path"] != "/" else 0
    for n in nodes:
        path = target + n["path"][base:] if n is not nodes[0] else target
        insert(
            ctx,
            path,
            n["type"],
            me.user,
            group,
            n["mode"] & (0o3777 if n["type"] == "dir" else 0o777),
            content_of=n["path"],
            target=n["target"],
            size=n["size"],
            binary=n["binary"],
        )
    touch_dir(ctx, parent["path"])
    return {"source": src["path"], "destination": target, "copied": len(nodes), "bytes": total}
