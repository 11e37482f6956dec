"""Replaying ground truth: a task's expected final hashes, written into task files by ``regenerate``."""

from __future__ import annotations

from pathlib import Path

from hub.engine.world import World, build_initial, server_hashes
from hub.state.library import Library
from hub.tasks.io import read_jsonl, write_jsonl
from hub.tasks.model import Task

__all__ = ["build_initial", "regenerate", "replay", "server_hashes"]


def replay(task: Task, library: Library) -> tuple[str, dict[str, str]]:
    """Run the ground truth on a fresh initial state; the final (session hash, per-server hashes)."""
    done = World(library).replay(task)
    return done.state_hash, done.server_hashes


def regenerate(path: Path, library: Library) -> list[Task]:
    tasks = read_jsonl(path)
    for t in tasks:
        t.check_against(library)
        t.expected_state_hash, t.expected_server_hashes = replay(t, library)
    write_jsonl(path, tasks)
    return tasks
