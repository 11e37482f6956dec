"""A world: a library's sessions and the dispatcher over them, with its own event bus.

The hub is one world whose bus feeds the store, metrics and live views. Everything else that
needs to run tools outside the live hub (replaying a task's ground truth, synthesis, the
dashboard's expected state, the CLI, tests) makes a private world, so its calls never show up as
live tool calls or in the store.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from hub.engine.dispatcher import Dispatcher
from hub.engine.events import EventBus
from hub.errors import ScenarioError, TaskError
from hub.state.library import Library
from hub.state.sessions import Session, SessionManager

if TYPE_CHECKING:
    from hub.tasks.model import Task

REPLAY_SESSION = "replay"


@dataclass(frozen=True)
class Replay:
    """What a task's ground truth leaves: the session hash over the task's servers, and each server's."""

    state_hash: str
    server_hashes: dict[str, str]


class World:
    """Sessions over ``library`` from ``seed``, and a dispatcher publishing to ``bus`` (private by default)."""

    def __init__(
        self,
        library: Library,
        *,
        seed: int = 0,
        bus: EventBus | None = None,
        ttl_s: float = 3600.0,
        max_sessions: int = 10_000,
        max_state_bytes: int | None = None,
    ) -> None:
        self.library = library
        self.seed = seed
        self.bus = bus if bus is not None else EventBus(maxsize=1)
        self.sessions = SessionManager(
            library, seed=seed, ttl_s=ttl_s, max_sessions=max_sessions, max_state_bytes=max_state_bytes
        )
        self.dispatcher = Dispatcher(library, self.sessions, self.bus)

    def start(self, task: Task, sid: str) -> Session:
        """Open session ``sid`` in ``task``'s initial state."""
        return build_initial(task, self.sessions, self.dispatcher, sid)

    def play(self, task: Task, sid: str) -> Session:
        """Open ``sid`` in the task's initial state and run its ground truth there; the session."""
        session = self.start(task, sid)
        for step in task.gt_steps():
            out = self.dispatcher.call(sid, step.server, step.tool, step.arguments)
            if not out.ok:
                self.sessions.close(sid)
                raise TaskError(f"task {task.id}: ground-truth step {step.id} ({step.name}) failed: {out.error}")
        return session

    def replay(self, task: Task, sid: str = REPLAY_SESSION) -> Replay:
        """Run the ground truth on a fresh initial state; its final hashes (the session stays open)."""
        session = self.play(task, sid)
        return Replay(session.state_hash(task.servers), server_hashes(session, task.servers))


def build_initial(task: Task, sessions: SessionManager, dispatcher: Dispatcher, sid: str) -> Session:
    """Open session ``sid`` in the task's initial state: seed or snapshot, then the setup calls."""
    initial = task.initial
    try:
        if initial.snapshot is not None:
            session = sessions.open(
                sid, snapshot=initial.snapshot, configs=initial.configs, loader_kwargs=initial.loader_kwargs
            )
        else:
            session = sessions.open(
                sid, seed=initial.seed, configs=initial.configs, loader_kwargs=initial.loader_kwargs
            )
    except ScenarioError as exc:  # a scenario the server cannot take, or whose loader fails
        raise TaskError(f"task {task.id}: {exc.message}") from None
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
