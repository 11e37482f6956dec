"""Changing the tree: mkdir, touch, write/append/replace/concatenate, copy, move, remove, symlinks, chmod, chown."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from typing import Annotated, Any

import regex
from pydantic import Field

from hub.kit import Ctx, Entity, ToolError, fake, rows
from servers.filesystem.core import (
    Content,
    NewPathArg,
    PathArg,
    R,
    W,
    Who,
    X,
    check_sticky,
    existing,
    existing_file,
    filesystem,
    join,
    mode_string,
    node_at,
    normalize,
    parent_for_new,
    require,
    subtree_where,
    utf8,
    walk,
    who,
)
from servers.filesystem.core_nodes import (
    children,
    ensure_space,
    insert,
    primary_group,
    readable_tree,
    set_content,
    touch_dir,
    view,
)
from servers.filesystem.core_text import (
    MAX_FILE_BYTES,
    check_file_size,
    compile_regex,
)

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
        inner = rows(ctx.db.execute(f"SELECT * FROM nodes WHERE {where} ORDER BY path", args))
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
    inside = ctx.db.execute("SELECT COUNT(*) FROM nodes WHERE parent = ?", (node["path"],)).fetchone()[0]
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
    inner = rows(ctx.db.execute(f"SELECT * FROM nodes WHERE {where} ORDER BY path", args))
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
