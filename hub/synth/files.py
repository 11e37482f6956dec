"""Writes that keep files valid: every file in a structured format (``.json``, ``.yaml``/``.yml``, ``.toml``,
``.csv``) that the ground truth writes still parses once it has run.

The files are those a write call names (any string argument, or list item, with one of those extensions); they
are read back through the server's own ``read_file`` tool after the ground truth ran on a fresh fork, page by
page. A CSV file parses when every row has the header's number of fields.
"""

from __future__ import annotations

import csv
import io
import json
import posixpath
import tomllib
from collections.abc import Callable
from typing import Any

import yaml  # type: ignore[import-untyped]

from hub.engine.world import World
from hub.errors import TaskError
from hub.state.library import Library
from hub.tasks import Task

PAGE = 1000


def _csv(text: str) -> None:
    rows = [r for r in csv.reader(io.StringIO(text)) if r]
    if rows and any(len(r) != len(rows[0]) for r in rows):
        widths = sorted({len(r) for r in rows})
        raise ValueError(f"rows of {widths} fields under a header of {len(rows[0])}")


PARSERS: dict[str, Callable[[str], Any]] = {
    ".json": json.loads,
    ".toml": tomllib.loads,
    ".yaml": yaml.safe_load,
    ".yml": yaml.safe_load,
    ".csv": _csv,
}


def written_files(task: Task, library: Library) -> list[tuple[str, str]]:
    """(server, path) of every structured file a ground-truth write names."""
    out: list[tuple[str, str]] = []
    for step in task.gt_steps():
        if library.tool(step.server, step.tool).kind != "write":
            continue
        for value in step.arguments.values():
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, str) and posixpath.splitext(item)[1].lower() in PARSERS:
                    out.append((step.server, item))
    return list(dict.fromkeys(out))


def invalid_files(task: Task, library: Library) -> list[str]:
    """``path: why`` for every structured file the ground truth leaves unparsable (empty when all parse)."""
    files = written_files(task, library)
    if not files:
        return []
    world = World(library)
    try:
        world.play(task, "files")
    except TaskError:
        return []  # the replay check reports a ground truth that fails
    out = []
    try:
        for server, path in files:
            text = _read(world, server, path)
            if text is None:
                continue  # moved away or removed by a later call
            try:
                PARSERS[posixpath.splitext(path)[1].lower()](text)
            except (ValueError, tomllib.TOMLDecodeError, yaml.YAMLError, csv.Error) as exc:
                out.append(f"{path}: {str(exc).splitlines()[0][:160]}")
    finally:
        world.sessions.close("files")
    return out


def _read(world: World, server: str, path: str) -> str | None:
    if "read_file" not in world.library.mount(server).tools:
        return None
    parts: list[str] = []
    start = 1
    while True:
        page = {"path": path, "start_line": start, "max_lines": PAGE}
        out = world.dispatcher.call("files", server, "read_file", page)
        if not out.ok or not isinstance(out.result, dict):
            return None
        parts.append(str(out.result.get("content", "")))
        if not out.result.get("truncated"):
            return "".join(parts)
        start += PAGE
