"""The filesystem server's schema, Server object, argument types and path/permission helpers.

Paths are stored absolute and normalised ('/home/maya/Documents'); every node row holds its
parent's path, so a directory's children are one indexed query and a subtree is one range
query (``path > '/a/' AND path < '/a0'``). The shell state (current directory and current
user) is a one-row table, so it forks and hashes with the rest of the state. Node views and
writes are in ``core_nodes``, regex search and archive entries in ``core_text``.
"""

from __future__ import annotations

import posixpath
import re
import sqlite3
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import Field

from hub.kit import Ctx, Entity, Server, ToolError, one
from servers.filesystem.formats import ARCHIVE_MAGIC, archive_encode, archive_size, token  # noqa: F401
from servers.filesystem.seed import seed

SCHEMA = """
CREATE TABLE users (
    username TEXT PRIMARY KEY,
    uid INTEGER NOT NULL UNIQUE,
    full_name TEXT NOT NULL,
    home TEXT NOT NULL,
    shell TEXT NOT NULL
);
CREATE TABLE groups (
    group_name TEXT PRIMARY KEY,
    gid INTEGER NOT NULL UNIQUE
);
CREATE TABLE group_members (
    group_name TEXT NOT NULL REFERENCES groups(group_name),
    username TEXT NOT NULL REFERENCES users(username),
    PRIMARY KEY (group_name, username)
);
CREATE TABLE nodes (
    path TEXT PRIMARY KEY,
    parent TEXT,
    name TEXT NOT NULL,
    type TEXT NOT NULL CHECK (type IN ('file', 'dir', 'symlink')),
    content TEXT,
    target TEXT,
    size INTEGER NOT NULL,
    binary INTEGER NOT NULL DEFAULT 0,
    owner TEXT NOT NULL,
    group_name TEXT NOT NULL,
    mode INTEGER NOT NULL,
    mtime TEXT NOT NULL
);
CREATE INDEX nodes_parent ON nodes(parent, name);
CREATE TABLE shell (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    cwd TEXT NOT NULL,
    username TEXT NOT NULL
);
CREATE TABLE volume (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    label TEXT NOT NULL,
    device TEXT NOT NULL,
    capacity_bytes INTEGER NOT NULL
);
"""

filesystem = Server(
    "filesystem",
    "A Unix-like file system driven like a shell: current directory, files and directories, "
    "permissions (owner/group/mode bits), text tools (grep, sort, uniq, diff, wc) and tar archives.",
    SCHEMA,
    seed,
    family="files",
)

MAX_PATH = 4096
MAX_NAME = 255
MAX_SYMLINK_HOPS = 16
DIR_SIZE = 4096
R, W, X = 4, 2, 1

PathArg = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_PATH,
        description="A file or directory path, absolute or relative to the current directory, "
        "e.g. '/home/maya/Documents/todo.md' or 'Documents/todo.md'; '~' is the home directory",
    ),
    Entity("path"),
]
DirArg = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_PATH,
        description="A directory path, absolute or relative, e.g. '/home/maya/projects' or '..'",
    ),
    Entity("directory"),
]
NewPathArg = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_PATH,
        description="The path to create, absolute or relative, e.g. 'Documents/notes/ideas.md'",
    ),
]
ArchiveArg = Annotated[
    str,
    Field(min_length=1, max_length=MAX_PATH, description="An archive file, e.g. '/home/maya/backups/dotfiles.tar'"),
    Entity("archive"),
]
Content = Annotated[str, Field(max_length=100_000, description="Text content")]
LineCount = Annotated[int, Field(ge=1, le=1000, description="How many lines at most")]
Regex = Annotated[
    str,
    Field(
        min_length=1,
        max_length=200,
        description="A regular expression (Python syntax), or a plain string with fixed_string=true",
    ),
]


@dataclass
class Who:
    """The current shell user: name, groups, home and working directory."""

    user: str
    uid: int
    groups: frozenset[str]
    home: str
    cwd: str

    @property
    def root(self) -> bool:
        return self.user == "root"


def who(ctx: Ctx) -> Who:
    sh = one(ctx.db.execute("SELECT cwd, username FROM shell WHERE id = 1"))
    assert sh is not None
    u = one(ctx.db.execute("SELECT uid, home FROM users WHERE username = ?", (sh["username"],)))
    assert u is not None
    groups = frozenset(
        r[0] for r in ctx.db.execute("SELECT group_name FROM group_members WHERE username = ?", (sh["username"],))
    )
    return Who(sh["username"], u["uid"], groups, u["home"], sh["cwd"])


# Paths ---------------------------------------------------------------------------------------

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def normalize(path: str, me: Who) -> str:
    """An absolute, normalised path: relative to the cwd, '~' expanded, '.', '..' and '//' resolved."""
    if not path or not path.strip():
        raise ToolError("Empty path; give a path such as 'Documents/todo.md' or '/home/maya'.")
    if "\x00" in path:
        raise ToolError("Invalid path: it contains a NUL byte.")
    utf8(path, "path")
    if len(path) > MAX_PATH:
        raise ToolError(f"File name too long: paths are at most {MAX_PATH} characters.")
    if path == "~" or path.startswith("~/"):
        path = me.home + path[1:]
    base = path if path.startswith("/") else me.cwd + "/" + path
    return clean(base)


def utf8(text: str, what: str = "content") -> int:
    """The UTF-8 size of a text, or a ToolError for text that is not valid Unicode (lone surrogates)."""
    try:
        return len(text.encode())
    except UnicodeEncodeError:
        raise ToolError(f"Invalid {what}: it is not valid UTF-8 text.") from None


def clean(base: str) -> str:
    parts: list[str] = []
    for p in base.split("/"):
        if p in ("", "."):
            continue
        if p == "..":
            if parts:
                parts.pop()
            continue
        if len(p.encode()) > MAX_NAME:
            raise ToolError(f"File name too long: {p[:40]!r}... (at most {MAX_NAME} bytes per name).")
        parts.append(p)
    return "/" + "/".join(parts)


def join(a: str, b: str) -> str:
    return a.rstrip("/") + "/" + b if a != "/" else "/" + b


def check_name(name: str) -> None:
    if not name or name in (".", ".."):
        raise ToolError(f"Invalid name {name!r}: give a real file or directory name.")
    if _CONTROL.search(name):
        raise ToolError(f"Invalid name {name!r}: control characters are not allowed in names.")


def is_hidden(path: str, below: str) -> bool:
    rel = path[len(below) :] if below != "/" else path
    return any(p.startswith(".") for p in rel.split("/") if p)


def subtree_where(path: str) -> tuple[str, tuple[str, ...]]:
    """SQL condition selecting everything strictly below ``path``."""
    if path == "/":
        return "path != '/'", ()
    return "(path > ? AND path < ?)", (path + "/", path + "0")


# Nodes and permissions ---------------------------------------------------------------------------


def node_at(db: sqlite3.Connection, path: str) -> dict[str, Any] | None:
    return one(db.execute("SELECT * FROM nodes WHERE path = ?", (path,)))


def mode_string(node: dict[str, Any]) -> str:
    m = node["mode"]
    out = {"dir": "d", "symlink": "l"}.get(node["type"], "-")
    for shift, special, ch in ((6, 0o4000, "s"), (3, 0o2000, "s"), (0, 0o1000, "t")):
        bits = (m >> shift) & 7
        out += ("r" if bits & R else "-") + ("w" if bits & W else "-")
        x = bool(bits & X)
        out += (ch if x else ch.upper()) if m & special else ("x" if x else "-")
    return out


def can(me: Who, node: dict[str, Any], bit: int) -> bool:
    if me.root:
        return True
    m = node["mode"]
    if node["owner"] == me.user:
        return bool((m >> 6) & bit)
    if node["group_name"] in me.groups:
        return bool((m >> 3) & bit)
    return bool(m & bit)


ACTIONS = {R: "read", W: "write", X: "enter/execute"}


def require(me: Who, node: dict[str, Any], bit: int, action: str | None = None) -> None:
    if not can(me, node, bit):
        raise ToolError(
            f"Permission denied: user '{me.user}' cannot {action or ACTIONS[bit]} '{node['path']}' "
            f"({mode_string(node)} {node['owner']}:{node['group_name']}). Check it with get_file_info; "
            "the owner (or root) can change it with change_mode."
        )


def walk(ctx: Ctx, me: Who, path: str, follow: bool = True) -> tuple[str, dict[str, Any] | None]:
    """Resolve a path component by component, following symlinks (the last one only if ``follow``).

    Returns the resolved absolute path and its node, or None when only the last component is missing."""
    parts = [p for p in normalize(path, me).split("/") if p]
    hops, i, cur = 0, 0, "/"
    node = node_at(ctx.db, "/")
    assert node is not None
    while i < len(parts):
        if node["type"] != "dir":
            raise ToolError(f"Not a directory: '{cur}' is a {node['type']}.")
        require(me, node, X, "enter")
        nxt = join(cur, parts[i])
        child = node_at(ctx.db, nxt)
        last = i == len(parts) - 1
        if child is None:
            if last:
                return nxt, None
            raise ToolError(
                f"No such file or directory: '{nxt}' does not exist. Use list_directory on '{cur}' to see what is "
                f"there."
            )
        if child["type"] == "symlink" and (follow or not last):
            hops += 1
            if hops > MAX_SYMLINK_HOPS:
                raise ToolError(f"Too many levels of symbolic links while resolving '{path}'.")
            target = child["target"]
            base = target if target.startswith("/") else cur + "/" + target
            parts = [p for p in clean(base + "/" + "/".join(parts[i + 1 :])).split("/") if p]
            i, cur = 0, "/"
            node = node_at(ctx.db, "/")
            assert node is not None
            continue
        cur, node = nxt, child
        i += 1
    return cur, node


def existing(ctx: Ctx, me: Who, path: str, follow: bool = True) -> dict[str, Any]:
    resolved, node = walk(ctx, me, path, follow)
    if node is None:
        raise ToolError(f"No such file or directory: '{resolved}'. Use list_directory or find_files to locate it.")
    return node


def existing_dir(ctx: Ctx, me: Who, path: str) -> dict[str, Any]:
    node = existing(ctx, me, path)
    if node["type"] != "dir":
        raise ToolError(f"Not a directory: '{node['path']}' is a file.")
    return node


def existing_file(ctx: Ctx, me: Who, path: str, *, text: bool = True) -> dict[str, Any]:
    node = existing(ctx, me, path)
    if node["type"] == "dir":
        raise ToolError(f"Is a directory: '{node['path']}'. Use list_directory to see its contents.")
    if node["type"] == "symlink":  # a dangling link: walk followed it and found nothing only if missing
        raise ToolError(f"'{node['path']}' is a broken symbolic link.")
    require(me, node, R)
    if text and node["binary"]:
        raise ToolError(
            f"'{node['path']}' is a binary file ({human(node['size'])}, {mime(node['name'])}); "
            "it cannot be shown as text. Use get_file_info or compute_checksum."
        )
    return node


def parent_for_new(ctx: Ctx, me: Who, resolved: str) -> dict[str, Any]:
    """The directory that will hold a new entry at ``resolved``; checks the name and write permission."""
    if resolved == "/":
        raise ToolError("File exists: '/' is the root directory.")
    check_name(posixpath.basename(resolved))
    parent = node_at(ctx.db, posixpath.dirname(resolved))
    if parent is None:
        raise ToolError(f"No such file or directory: '{posixpath.dirname(resolved)}' does not exist.")
    if parent["type"] != "dir":
        raise ToolError(f"Not a directory: '{parent['path']}'.")
    require(me, parent, W, "create entries in")
    return parent


def check_sticky(me: Who, parent: dict[str, Any], node: dict[str, Any]) -> None:
    if parent["mode"] & 0o1000 and not me.root and me.user not in (node["owner"], parent["owner"]):
        raise ToolError(
            f"Operation not permitted: '{parent['path']}' is sticky (like /tmp); only the owner "
            f"('{node['owner']}') can remove or rename '{node['path']}'."
        )


def human(n: int) -> str:
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"


MIME = {
    ".py": "text/x-python",
    ".js": "text/javascript",
    ".json": "application/json",
    ".md": "text/markdown",
    ".txt": "text/plain",
    ".csv": "text/csv",
    ".log": "text/plain",
    ".yml": "text/yaml",
    ".yaml": "text/yaml",
    ".toml": "text/plain",
    ".sh": "text/x-shellscript",
    ".conf": "text/plain",
    ".html": "text/html",
    ".jpg": "image/jpeg",
    ".png": "image/png",
    ".pdf": "application/pdf",
    ".tar": "application/x-tar",
    ".gz": "application/gzip",
    ".tgz": "application/gzip",
    ".zip": "application/zip",
    ".m3u": "audio/x-mpegurl",
    ".mp3": "audio/mpeg",
    ".ini": "text/plain",
    ".cfg": "text/plain",
    ".xml": "application/xml",
}


def extension(name: str) -> str:
    if name.endswith(".tar.gz"):
        return ".tar.gz"
    ext = posixpath.splitext(name)[1]
    return ext.lower() if ext and name != ext else ""


def mime(name: str) -> str:
    return MIME.get(
        extension(name) if extension(name) != ".tar.gz" else ".gz",
        "application/octet-stream" if extension(name) else "text/plain",
    )
