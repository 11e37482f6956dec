"""A world: a library's sessions and the dispatcher over them, with its own event bus.

The hub is one world whose bus feeds the store, metrics and live views. Everything else that
needs to run tools outside the live hub (replaying a task's ground truth, synthesis, the
dashboard's expected state, the CLI, tests) makes a private world, so its calls never show up as
live tool calls or in the store.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hub.engine.dispatcher import CallOutcome, Dispatcher
from hub.engine.events import EventBus
from hub.errors import ScenarioError, TaskError
from hub.state.lanes import SWITCH_INTERVAL_S
from hub.state.library import Library
from hub.state.memory import ensure_seeds
from hub.state.sessions import Session, SessionManager

if TYPE_CHECKING:
    from hub.tasks.model import Task

REPLAY_SESSION = "replay"
DEFAULT_SWITCH_INTERVAL_S = sys.getswitchinterval()


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

    def run_here(self) -> None:
        """Serve from the running event loop: calls from worker threads publish through it, and threads
        hand the GIL back often enough for the loop to answer while a pure-Python call runs."""
        self.dispatcher.bind_loop()
        sys.setswitchinterval(SWITCH_INTERVAL_S)

    def stop(self) -> None:
        sys.setswitchinterval(DEFAULT_SWITCH_INTERVAL_S)
        self.sessions.shutdown()

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
    session = _open_initial(task, sessions, sid)
    for call in task.initial.setup:
        _check_setup(task, sessions, sid, call.name, dispatcher.call(sid, call.server, call.tool, call.arguments))
    for server in task.servers:  # fork now, so that forks of this session clone them up front
        session.fork_of(server)
    return session


async def build_initial_async(task: Task, sessions: SessionManager, dispatcher: Dispatcher, sid: str) -> Session:
    """``build_initial`` from the event loop: the seeds are built, the setup calls run and the servers are
    forked off it (the setup calls in order, in the session's lane)."""
    initial = task.initial
    seed = sessions.snapshot(initial.snapshot).seed if initial.snapshot is not None else initial.seed
    await ensure_seeds(sessions.library, task.servers, seed)
    session = _open_initial(task, sessions, sid)
    for call in task.initial.setup:
        outcome = await dispatcher.run(sid, call.server, call.tool, call.arguments)
        _check_setup(task, sessions, sid, call.name, outcome)
    assert session.lane is not None
    await session.lane.run(lambda: [session.fork_of(server) for server in task.servers])
    return session


def _open_initial(task: Task, sessions: SessionManager, sid: str) -> Session:
    initial = task.initial
    try:
        if initial.snapshot is not None:
            return sessions.open(
                sid, snapshot=initial.snapshot, configs=initial.configs, loader_kwargs=initial.loader_kwargs
            )
        return sessions.open(sid, seed=initial.seed, configs=initial.configs, loader_kwargs=initial.loader_kwargs)
    except ScenarioError as exc:  # a scenario the server cannot take, or whose loader fails
        raise TaskError(f"task {task.id}: {exc.message}") from None


def _check_setup(task: Task, sessions: SessionManager, sid: str, name: str, out: CallOutcome) -> None:
    if not out.ok:
        sessions.close(sid)
        raise TaskError(f"task {task.id}: setup call {name} failed: {out.error}")


def server_hashes(session: Session, servers: list[str]) -> dict[str, str]:
    """The state hash of each of ``servers`` in ``session`` (forking untouched ones from the seed)."""
    return {s: session.fork_of(s).state_hash() for s in servers}
