"""Reading and text processing: cat, head, tail, wc, grep, sort, uniq, cut, diff, checksums. All read-only."""

from __future__ import annotations

import difflib
import fnmatch
import hashlib
from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import Ctx, Limit, Offset, ToolError
from servers.filesystem.core import LineCount, PathArg, R, Regex, can, existing, existing_file, filesystem, who
from servers.filesystem.core_nodes import subtree
from servers.filesystem.core_text import compile_regex, lines_of

Lines = Annotated[int, Field(ge=1, le=1000, description="Number of lines, e.g. 10")]
Delimiter = Annotated[
    str | None,
    Field(min_length=1, max_length=5, description="Field separator, e.g. ',' for CSV; default: runs of whitespace"),
]


def _page(lines: list[str], start: int, count: int) -> dict[str, Any]:
    chunk = lines[start - 1 : start - 1 + count]
    return {
        "lines": chunk,
        "first_line": start,
        "returned": len(chunk),
        "total_lines": len(lines),
        "truncated": start - 1 + count < len(lines),
    }


@filesystem.read(returns=("path",))
def read_file(
    ctx: Ctx,
    path: PathArg,
    start_line: Annotated[int, Field(ge=1, le=10_000_000, description="First line to show, 1-based")] = 1,
    max_lines: LineCount = 200,
    number_lines: Annotated[bool, Field(description="Prefix each line with its number (like cat -n)")] = False,
) -> dict[str, Any]:
    """Show a text file (like `cat`), e.g. read_file('/home/maya/Documents/todo.md') or
    read_file('/var/log/syslog', start_line=100, max_lines=50). Long files come in pages: use start_line."""
    me = who(ctx)
    node = existing_file(ctx, me, path)
    lines = lines_of(node)
    chunk = lines[start_line - 1 : start_line - 1 + max_lines]
    if number_lines:
        chunk = [f"{i:6d}\t{line}" for i, line in enumerate(chunk, start_line)]
    return {
        "path": node["path"],
        "content": "\n".join(chunk) + ("\n" if chunk else ""),
        "first_line": start_line,
        "returned": len(chunk),
        "total_lines": len(lines),
        "truncated": start_line - 1 + max_lines < len(lines),
        "size": node["size"],
    }


@filesystem.read(returns=("path",))
def head_file(ctx: Ctx, path: PathArg, lines: Lines = 10) -> dict[str, Any]:
    """The first lines of a text file (like `head -n 10`), e.g. head_file('Documents/contacts.csv', 5)."""
    node = existing_file(ctx, who(ctx), path)
    return {"path": node["path"], **_page(lines_of(node), 1, lines)}


@filesystem.read(returns=("path",))
def tail_file(ctx: Ctx, path: PathArg, lines: Lines = 10) -> dict[str, Any]:
    """The last lines of a text file (like `tail -n 10`), e.g. tail_file('/var/log/nginx/access.log', 20)."""
    node = existing_file(ctx, who(ctx), path)
    all_lines = lines_of(node)
    start = max(1, len(all_lines) - lines + 1)
    out = _page(all_lines, start, lines)
    out["truncated"] = start > 1
    return {"path": node["path"], **out}


@filesystem.read(returns=("path",))
def count_words(ctx: Ctx, path: PathArg) -> dict[str, Any]:
    """Count lines, words, characters and bytes of a text file (like `wc`), e.g. count_words('/etc/passwd')."""
    node = existing_file(ctx, who(ctx), path)
    text = str(node["content"] or "")
    return {
        "path": node["path"],
        "lines": text.count("\n"),
        "words": len(text.split()),
        "characters": len(text),
        "bytes": len(text.encode()),
    }


@filesystem.read(returns=("path",))
def grep_files(
    ctx: Ctx,
    pattern: Regex,
    path: PathArg = ".",
    recursive: Annotated[bool, Field(description="Search every file below a directory (like grep -r)")] = False,
    ignore_case: bool = False,
    fixed_string: Annotated[
        bool, Field(description="Treat the pattern as plain text, not a regex (like grep -F)")
    ] = False,
    invert: Annotated[bool, Field(description="Select the lines that do NOT match (like grep -v)")] = False,
    include: Annotated[
        str | None,
        Field(min_length=1, max_length=200, description="Only files whose name matches this glob, e.g. '*.py'"),
    ] = None,
    files_only: Annotated[bool, Field(description="Only list the files that match (like grep -l)")] = False,
    limit: Limit = 50,
    offset: Offset = 0,
) -> dict[str, Any]:
    """Search file contents with a regular expression (like `grep -n`), e.g.
    grep_files('TODO', 'projects', recursive=True) or grep_files('ERROR', '/var/log/syslog', ignore_case=True).
    Returns file path, line number and line for each match; binary files are skipped."""
    me = who(ctx)
    rx = compile_regex(pattern, ignore_case, fixed_string)
    node = existing(ctx, me, path)
    denied: list[str] = []
    if node["type"] == "dir":
        if not recursive:
            raise ToolError(f"'{node['path']}' is a directory; pass recursive=true to search the files in it.")
        found, denied = subtree(ctx, me, node)
        files = sorted((n for n, _ in found if n["type"] == "file"), key=lambda n: n["path"])
    else:
        files = [existing_file(ctx, me, path, text=False)]
    matches: list[dict[str, Any]] = []
    matched_files: list[str] = []
    skipped_binary = 0
    for f in files:
        if include and not fnmatch.fnmatchcase(f["name"], include):
            continue
        if f["binary"]:
            skipped_binary += 1
            continue
        if not can(me, f, R):
            denied.append(f["path"])
            continue
        hit = False
        for i, line in enumerate(lines_of(f), 1):
            if rx.search(line) != invert:
                hit = True
                if files_only:
                    break
                matches.append({"path": f["path"], "line_number": i, "line": line[:500]})
        if hit:
            matched_files.append(f["path"])
    out: dict[str, Any] = {"pattern": pattern, "files_matched": len(matched_files), "total_matches": len(matches)}
    if files_only:
        out["files"] = matched_files[offset : offset + limit]
    else:
        out["matches"] = matches[offset : offset + limit]
        out["count"] = len(out["matches"])
    if skipped_binary:
        out["binary_files_skipped"] = skipped_binary
    if denied:
        out["permission_denied"] = denied
    return out


def _key(line: str, field: int | None, delimiter: str | None) -> str:
    if field is None:
        return line
    parts = line.split(delimiter) if delimiter else line.split()
    return parts[field - 1] if field <= len(parts) else ""


def _number(text: str) -> float:
    try:
        value = float(text.strip().replace(",", "").lstrip("$"))
    except ValueError:
        return 0.0
    return value if value == value else 0.0


@filesystem.read(returns=("path",))
def sort_lines(
    ctx: Ctx,
    path: PathArg,
    reverse: bool = False,
    numeric: Annotated[bool, Field(description="Compare as numbers (like sort -n); non-numbers count as 0")] = False,
    unique: Annotated[bool, Field(description="Drop repeated lines after sorting (like sort -u)")] = False,
    ignore_case: bool = False,
    field: Annotated[int | None, Field(ge=1, le=100, description="Sort by this field, 1-based (like sort -k)")] = None,
    delimiter: Delimiter = None,
    skip_header: Annotated[bool, Field(description="Keep the first line (a CSV header) on top, unsorted")] = False,
    max_lines: LineCount = 100,
) -> dict[str, Any]:
    """Sort the lines of a text file (like `sort`); the file is not changed. E.g.
    sort_lines('/home/maya/Documents/budget-2026.csv', field=4, delimiter=',', numeric=True, reverse=True,
    skip_header=True)
    lists the largest expenses first. Save the result with write_file if needed."""
    node = existing_file(ctx, who(ctx), path)
    lines = lines_of(node)
    header = lines[:1] if skip_header else []
    body = lines[1:] if skip_header else lines

    def key(line: str) -> Any:
        k = _key(line, field, delimiter)
        if numeric:
            return (_number(k), line)
        return (k.lower(), line) if ignore_case else (k, line)

    body = sorted(body, key=key, reverse=reverse)
    if unique:
        seen, kept = set(), []
        for line in body:
            ident = line.lower() if ignore_case else line
            if ident not in seen:
                seen.add(ident)
                kept.append(line)
        body = kept
    out = header + body
    return {"path": node["path"], **_page(out, 1, max_lines)}


@filesystem.read(returns=("path",))
def unique_lines(
    ctx: Ctx,
    path: PathArg,
    count: Annotated[bool, Field(description="Prefix each line with how often it occurs (like uniq -c)")] = False,
    sort_first: Annotated[
        bool, Field(description="Sort before collapsing, so all repeats merge (like sort | uniq)")
    ] = True,
    most_common_first: Annotated[
        bool, Field(description="Order by count, highest first (like sort | uniq -c | sort -rn)")
    ] = False,
    only_duplicates: Annotated[bool, Field(description="Only lines that occur more than once (like uniq -d)")] = False,
    ignore_case: bool = False,
    field: Annotated[
        int | None, Field(ge=1, le=100, description="Compare only this field, 1-based, e.g. 3 for a CSV's third column")
    ] = None,
    delimiter: Delimiter = None,
    max_lines: LineCount = 100,
) -> dict[str, Any]:
    """Collapse repeated lines (like `sort | uniq -c`), e.g. unique_lines('/var/log/syslog', field=5, count=True,
    most_common_first=True) counts log lines per service, and
    unique_lines('Documents/contacts.csv', field=4, delimiter=',')
    lists the distinct cities."""
    node = existing_file(ctx, who(ctx), path)
    values = [_key(line, field, delimiter) for line in lines_of(node)]
    if sort_first:
        values.sort(key=lambda v: (v.lower(), v) if ignore_case else v)
    groups: list[list[Any]] = []
    for v in values:
        ident = v.lower() if ignore_case else v
        if groups and groups[-1][2] == ident:
            groups[-1][1] += 1
        else:
            groups.append([v, 1, ident])
    if only_duplicates:
        groups = [g for g in groups if g[1] > 1]
    if most_common_first:
        groups.sort(key=lambda g: -g[1])
    shown = groups[:max_lines]
    result: dict[str, Any] = {"path": node["path"], "distinct": len(groups), "truncated": len(groups) > max_lines}
    if count:
        result["counts"] = [{"count": n, "line": v} for v, n, _ in shown]
    else:
        result["lines"] = [v for v, _, _ in shown]
    return result


@filesystem.read(returns=("path",))
def cut_columns(
    ctx: Ctx,
    path: PathArg,
    fields: Annotated[
        str,
        Field(
            pattern=r"^\d{1,3}(-\d{1,3})?(,\d{1,3}(-\d{1,3})?){0,19}$",
            description="Fields to keep, 1-based: '2', '1,3' or '2-4'",
        ),
    ],
    delimiter: Annotated[
        str, Field(min_length=1, max_length=5, description="Field separator, e.g. ',' or '\\t'")
    ] = ",",
    start_line: Annotated[int, Field(ge=1, le=10_000_000, description="First line, 1-based")] = 1,
    max_lines: LineCount = 100,
) -> dict[str, Any]:
    """Keep only some columns of each line (like `cut -d, -f1,3`), e.g. cut_columns('Documents/contacts.csv', '1,4')
    gives names and cities; cut_columns('/etc/passwd', '1,6', delimiter=':') gives users and homes."""
    node = existing_file(ctx, who(ctx), path)
    wanted: list[int] = []
    for part in fields.split(","):
        lo, _, hi = part.partition("-")
        a, b = int(lo), int(hi or lo)
        if a < 1 or b < a:
            raise ToolError(f"Invalid field range {part!r}: fields start at 1 and ranges go low-high, e.g. '2-4'.")
        wanted.extend(range(a, b + 1))
    sep = "\t" if delimiter == "\\t" else delimiter
    out = []
    for line in lines_of(node):
        parts = line.split(sep)
        out.append(sep.join(parts[i - 1] for i in wanted if i <= len(parts)) if len(parts) > 1 else line)
    return {"path": node["path"], "fields": fields, **_page(out, start_line, max_lines)}


@filesystem.read(returns=("path",))
def diff_files(
    ctx: Ctx,
    path_a: PathArg,
    path_b: PathArg,
    context: Annotated[int, Field(ge=0, le=20, description="Unchanged lines shown around each change")] = 3,
    ignore_case: bool = False,
) -> dict[str, Any]:
    """Compare two text files line by line (like `diff -u`), e.g.
    diff_files('/home/maya/Documents/reports/q4-2025-summary.md', '/home/maya/Documents/reports/q1-2026-summary.md').
    Returns a unified diff (at most 400 lines) and the counts of added and removed lines."""
    me = who(ctx)
    a, b = existing_file(ctx, me, path_a), existing_file(ctx, me, path_b)
    la, lb = lines_of(a), lines_of(b)
    ca, cb = ([x.lower() for x in la], [x.lower() for x in lb]) if ignore_case else (la, lb)
    diff = list(difflib.unified_diff(ca, cb, a["path"], b["path"], n=context, lineterm=""))
    added = sum(1 for d in diff if d.startswith("+") and not d.startswith("+++"))
    removed = sum(1 for d in diff if d.startswith("-") and not d.startswith("---"))
    return {
        "path_a": a["path"],
        "path_b": b["path"],
        "identical": not diff,
        "lines_added": added,
        "lines_removed": removed,
        "diff": "\n".join(diff[:400]),
        "truncated": len(diff) > 400,
    }


@filesystem.read(returns=("path",))
def compute_checksum(ctx: Ctx, path: PathArg, algorithm: Literal["md5", "sha1", "sha256"] = "sha256") -> dict[str, Any]:
    """A file's checksum (like `sha256sum`), e.g. compute_checksum('/home/maya/Downloads/lease-agreement.pdf'); equal
    checksums mean equal contents, e.g. to check a copy. Works on binary files too."""
    node = existing_file(ctx, who(ctx), path, text=False)
    data = f"{node['size']}:{node['content']}" if node["binary"] else str(node["content"] or "")
    return {
        "path": node["path"],
        "algorithm": algorithm,
        "checksum": hashlib.new(algorithm, data.encode()).hexdigest(),
        "size": node["size"],
    }
