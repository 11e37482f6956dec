"""Replaying ground truth: a task's expected final hashes, written into task files by ``regenerate``."""

from __future__ import annotations

from pathlib import Path

from hub.engine.world import World, build_initial, server_hashes
from hub.errors import HubError, TaskError
from hub.state.library import Library
from hub.tasks.io import read_jsonl, write_jsonl
from hub.tasks.model import Task

__all__ = ["build_initial", "regenerate", "regenerate_all", "replay", "server_hashes"]


def replay(task: Task, library: Library) -> tuple[str, dict[str, str]]:
    """Run the ground truth on a fresh initial state; the final (session hash, per-server hashes)."""
    done = World(library).replay(task)
    return done.state_hash, done.server_hashes


def regenerate(path: Path, library: Library) -> list[Task]:
    """Rewrite every task's expected hashes; raises on the first task that cannot replay (see ``regenerate_all``)."""
    tasks, bad = regenerate_all(path, library)
    if bad:
        raise TaskError(bad[0])
    return tasks


def regenerate_all(path: Path, library: Library) -> tuple[list[Task], list[str]]:
    """Rewrite the expected hashes of every task that replays; each one that does not (an unknown server or
    tool, a scenario its server refuses, a ground-truth step that fails) is reported and left as it was."""
    tasks = read_jsonl(path)
    bad: list[str] = []
    for t in tasks:
        try:
            t.check_against(library)
            t.expected_state_hash, t.expected_server_hashes = replay(t, library)
        except HubError as exc:
            bad.append(exc.message if exc.message.startswith(f"task {t.id}") else f"task {t.id}: {exc.message}")
    write_jsonl(path, tasks)
    return tasks, bad
