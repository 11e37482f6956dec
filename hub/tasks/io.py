"""Task files: JSONL in and out, and a task set by id (the built-in tasks ship in ``hub/data``)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from hub.errors import TaskError, UnknownTask
from hub.state.library import Library
from hub.tasks.model import Task

DATA_DIR = Path(__file__).resolve().parent.parent / "data"
BUILTIN_TASKS = DATA_DIR / "tasks.jsonl"


class TaskSet:
    """Tasks by id."""

    def __init__(self, tasks: Iterable[Task] = ()) -> None:
        self.tasks: dict[str, Task] = {}
        for t in tasks:
            self.add(t)

    def __len__(self) -> int:
        return len(self.tasks)

    def __iter__(self) -> Iterator[Task]:
        return iter(self.tasks.values())

    def add(self, task: Task) -> None:
        self.tasks[task.id] = task

    def get(self, task_id: str) -> Task:
        found = self.tasks.get(task_id)
        if found is None:
            raise UnknownTask(f"unknown task {task_id!r}; {len(self.tasks)} tasks loaded")
        return found

    @classmethod
    def load(cls, path: Path | str, library: Library | None = None) -> TaskSet:
        """Read a JSONL file; with ``library``, keep only the tasks whose servers are all mounted."""
        tasks = read_jsonl(Path(path))
        if library is not None:
            tasks = [t for t in tasks if all(s in library.mounts for s in t.servers)]
            for t in tasks:
                t.check_against(library)
        return cls(tasks)


def read_jsonl(path: Path) -> list[Task]:
    out = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if line.strip():
            try:
                out.append(Task.model_validate_json(line))
            except ValueError as exc:
                raise TaskError(f"{path}:{n}: {exc}") from exc
    return out


def write_jsonl(path: Path, tasks: Iterable[Task]) -> None:
    lines = [t.model_dump_json(exclude_defaults=False) for t in tasks]
    path.write_text("\n".join(lines) + "\n")
