"""Tasks: what an episode starts from, what the user says, and what the right calls are.

A task names its servers, its initial state (a seed plus setup calls, or a
snapshot id), its user turns, the tools offered to the model (``server__tool``,
distractors included), the ground-truth calls of each turn with dependency edges
between them, and the expected final state hash (computed by replaying the
ground truth on a fresh fork: ``python -m hub.tasks --regenerate FILE``).

Kinds:
- ``mcp``: the model should make the ground-truth calls;
- ``clarify``: a required value is missing from the first turn(s) (``ask: true``, ``missing``
  names the withheld parameters): the right move there is to ask for it, with no call; later
  turns carry the value and the calls;
- ``abstain``: no offered tool fits: the right move is no call at all.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from hub.dispatcher import Dispatcher
from hub.library import Library
from hub.sessions import Session, SessionManager

TaskKind = Literal["mcp", "clarify", "abstain"]
SEP = "__"
DATA_DIR = Path(__file__).resolve().parent / "data"
BUILTIN_TASKS = DATA_DIR / "tasks.jsonl"


class TaskError(ValueError):
    """A task that is malformed or does not fit the hub's servers."""


class UnknownTask(TaskError, LookupError):
    """No task with that id is loaded."""


def tool_name(server: str, tool: str) -> str:
    return f"{server}{SEP}{tool}"


def split_name(name: str) -> tuple[str, str] | None:
    """``"banking__get_account"`` -> ``("banking", "get_account")``; None if not of that form."""
    server, sep, tool = name.partition(SEP)
    return (server, tool) if sep and server and tool else None


class Call(BaseModel):
    """One tool call: a setup call, or a ground-truth step."""

    model_config = ConfigDict(extra="forbid")

    server: str
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)

    @property
    def name(self) -> str:
        return tool_name(self.server, self.tool)


class GTStep(Call):
    """A ground-truth call with an id and the ids of the steps that must come before it."""

    id: str
    after: list[str] = Field(default_factory=list)


class Turn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    user: str
    ask: bool = False  # a clarify turn: a required value is missing; the right move is to ask
    missing: list[str] = Field(default_factory=list)
    """On an ask turn: the parameters (of the next turn's calls) whose values the user withholds."""
    calls: list[GTStep] = Field(default_factory=list)


class InitialState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seed: int = 0
    setup: list[Call] = Field(default_factory=list)
    snapshot: str | None = None


class Task(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, max_length=200)
    kind: TaskKind = "mcp"
    split: Literal["train", "test"] | None = None
    """Stamped at synthesis; eval and training honour it (unstamped tasks fall back to a hash split)."""
    servers: list[str] = Field(min_length=1)
    initial: InitialState = Field(default_factory=InitialState)
    system: str | None = None
    turns: list[Turn] = Field(min_length=1)
    tools: list[str] = Field(default_factory=list)
    strip_enums: bool = False
    """Offer the tools' schemas without their ``enum`` lists (a synthesis perturbation)."""
    expected_state_hash: str | None = None
    expected_server_hashes: dict[str, str] = Field(default_factory=dict)
    meta: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _check(self) -> Task:
        steps = self.gt_steps()
        ids = [s.id for s in steps]
        if len(ids) != len(set(ids)):
            raise ValueError(f"task {self.id}: ground-truth step ids are not unique")
        seen: set[str] = set()
        for step in steps:
            for dep in step.after:
                if dep not in seen:
                    raise ValueError(f"task {self.id}: step {step.id} depends on {dep!r}, which is not an earlier step")
            seen.add(step.id)
        if self.kind == "abstain" and steps:
            raise ValueError(f"task {self.id}: an abstain task has no ground-truth calls")
        if self.kind == "clarify" and not any(t.ask for t in self.turns):
            raise ValueError(f"task {self.id}: a clarify task needs a turn with ask=true")
        if any(t.ask and t.calls for t in self.turns):
            raise ValueError(f"task {self.id}: an ask turn has no ground-truth calls")
        if any(t.missing and not t.ask for t in self.turns):
            raise ValueError(f"task {self.id}: only an ask turn withholds parameters (missing)")
        if self.kind == "mcp" and not steps:
            raise ValueError(f"task {self.id}: an mcp task needs ground-truth calls")
        return self

    def gt_steps(self) -> list[GTStep]:
        return [s for t in self.turns for s in t.calls]

    def edges(self) -> list[tuple[int, int]]:
        """Dependency edges (j, g) as indexes into ``gt_steps()``: j must come before g."""
        index = {s.id: i for i, s in enumerate(self.gt_steps())}
        return [(index[d], index[s.id]) for s in self.gt_steps() for d in s.after]

    def fingerprint(self) -> str:
        """A content hash of the initial state: tasks with equal fingerprints start from equal states."""
        text = json.dumps([self.servers, self.initial.model_dump()], sort_keys=True)
        return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()

    def check_against(self, library: Library) -> None:
        """Raise TaskError unless every server, offered tool and call exists in ``library``."""
        names = [*self.tools, *(c.name for c in self.initial.setup), *(s.name for s in self.gt_steps())]
        for server in self.servers:
            if server not in library.mounts:
                raise TaskError(f"task {self.id}: server {server!r} is not mounted")
        for name in names:
            parts = split_name(name)
            if parts is None or parts[0] not in library.mounts or parts[1] not in library.mounts[parts[0]].tools:
                raise TaskError(f"task {self.id}: unknown tool {name!r}")


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


# The oracle policy ------------------------------------------------------------------------------


def hermes_call(name: str, arguments: dict[str, Any]) -> str:
    """One call in Hermes/Qwen form."""
    return "<tool_call>" + json.dumps({"name": name, "arguments": arguments}) + "</tool_call>"


def oracle_script(task: Task) -> list[str]:
    """The model messages of a perfect policy: each turn's ground-truth calls in one message, then an
    answer; a question on an ``ask`` turn; a refusal on an abstain task."""
    from hub.clarify import clarifying_question

    out: list[str] = []
    for i, turn in enumerate(task.turns):
        if turn.ask:
            out.append(clarifying_question(task, i))
        elif turn.calls:
            out.append("\n".join(hermes_call(s.name, s.arguments) for s in turn.calls))
            out.append("Done.")
        else:
            out.append("Sorry, none of my tools can do that.")
    return out


# Initial state and replay ---------------------------------------------------------------------


def build_initial(task: Task, sessions: SessionManager, dispatcher: Dispatcher, sid: str) -> Session:
    """Open session ``sid`` in the task's initial state: seed or snapshot, then the setup calls."""
    if task.initial.snapshot is not None:
        session = sessions.open(sid, snapshot=task.initial.snapshot)
    else:
        session = sessions.open(sid, seed=task.initial.seed)
    for call in task.initial.setup:
        out = dispatcher.call(sid, call.server, call.tool, call.arguments)
        if not out.ok:
            sessions.close(sid)
            raise TaskError(f"task {task.id}: setup call {call.name} failed: {out.error}")
    for server in task.servers:  # fork now, so that forks of this session clone them up front
        session.fork_of(server)
    return session


def server_hashes(session: Session, servers: list[str]) -> dict[str, str]:
    """The state hash of each of ``servers`` in ``session`` (forking untouched ones from the seed)."""
    return {s: session.fork_of(s).state_hash() for s in servers}


def replay(task: Task, library: Library) -> tuple[str, dict[str, str]]:
    """Run the ground truth on a fresh initial state; the final (session hash, per-server hashes)."""
    from hub.events import EventBus

    sessions = SessionManager(library)
    dispatcher = Dispatcher(library, sessions, EventBus())
    session = build_initial(task, sessions, dispatcher, "replay")
    for step in task.gt_steps():
        out = dispatcher.call("replay", step.server, step.tool, step.arguments)
        if not out.ok:
            raise TaskError(f"task {task.id}: ground-truth step {step.id} ({step.name}) failed: {out.error}")
    return session.state_hash(task.servers), server_hashes(session, task.servers)


def regenerate(path: Path, library: Library) -> list[Task]:
    tasks = read_jsonl(path)
    for t in tasks:
        t.check_against(library)
        t.expected_state_hash, t.expected_server_hashes = replay(t, library)
    write_jsonl(path, tasks)
    return tasks


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m hub.tasks", description="check or regenerate a task file")
    p.add_argument("path", nargs="?", default=str(BUILTIN_TASKS))
    p.add_argument("--regenerate", action="store_true", help="replay every task's ground truth and write its expected hashes")
    args = p.parse_args(argv)
    from hub.config import REFERENCE_NOW
    from servers import REGISTRY

    library = Library.from_servers(REGISTRY, REFERENCE_NOW)
    if args.regenerate:
        tasks = regenerate(Path(args.path), library)
        print(f"regenerated {len(tasks)} tasks in {args.path}")
        return 0
    bad = 0
    for t in read_jsonl(Path(args.path)):
        got = replay(t, library)
        if got != (t.expected_state_hash, t.expected_server_hashes):
            print(f"{t.id}: expected hash {t.expected_state_hash}, replay gives {got[0]}")
            bad += 1
    print(f"{bad} task(s) out of date" if bad else "all tasks replay to their expected hashes")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
