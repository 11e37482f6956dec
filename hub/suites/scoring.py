"""Suite scorers: a benchmark's own verdict on an episode, run by the episode engine in place of the hub's reward.

A task names its scorer (``Task.scorer``); the scorer's module is imported on first use (it needs the
benchmark's package, so only a hub running in the suite's environment scores such tasks). The engine
calls two hooks: ``suite_turn_end`` when a user turn ends (the scorer may keep the state it needs: BFCL
checks the state after every turn), and ``suite_score`` when the episode finishes.

A scorer is a module with ``turn_end(session, episode)`` and ``score(engine, episode, session) ->
RewardBreakdown``; its breakdown's ``success`` is the benchmark's pass or fail.
"""

from __future__ import annotations

import importlib
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from hub.errors import TaskError

if TYPE_CHECKING:
    from hub.engine.episodes import Episode, EpisodeEngine
    from hub.engine.reward import RewardBreakdown
    from hub.state.sessions import Session

T = TypeVar("T")
SCORERS = {"bfcl-mt": "hub.suites.bfcl", "tau2": "hub.suites.tau2"}


def scorer_module(name: str) -> Any:
    path = SCORERS.get(name)
    if path is None:
        raise TaskError(f"unknown suite scorer {name!r}; scorers: {', '.join(SCORERS)}")
    try:
        return importlib.import_module(path)
    except ImportError as exc:
        raise TaskError(
            f"the {name} scorer needs its benchmark's package ({exc}); serve its tasks from the suite's environment: "
            f"prove-hub suite serve SUITE (after prove-hub suite install SUITE)"
        ) from None


def suite_turn_end(session: Session, episode: Episode) -> None:
    scorer_module(episode.task.scorer or "").turn_end(session, episode)


def suite_score(engine: EpisodeEngine, episode: Episode, session: Session) -> RewardBreakdown:
    return scorer_module(episode.task.scorer or "").score(engine, episode, session)  # type: ignore[no-any-return]


def verdict(task: Any, mode: str, total: float, parts: dict[str, float], why: str, n_calls: int) -> RewardBreakdown:
    """A suite's breakdown: the benchmark's score (1 pass, 0 fail, or tau2's product), its parts, and why."""
    from hub.engine.reward import LedgerRow, RewardBreakdown

    return RewardBreakdown(
        total=total,
        kind=task.kind,
        mode=mode,
        components={"reward": total, **parts},
        weights={"reward": 1.0},
        n_calls=n_calls,
        n_gt=len(task.gt_steps()),
        budget=0,
        validity=[],
        alignment=[],
        reasons={mode: why} if why else {},
        ledger=[LedgerRow(name="reward", weight=1.0, value=total, earned=total, max=1.0, lost=1.0 - total)],
        max=1.0,
        success=total >= 1.0,
    )


_EXPECTED: OrderedDict[tuple[int, str, str], Any] = OrderedDict()
_WORLDS: dict[int, Any] = {}
MAX_EXPECTED = 2048


def expected(engine: Any, task: Any, build: Callable[[Any, Any, Session], T]) -> T:
    """What a scorer expects of a task (its ground truth played out), built once per task and library: ``build``
    gets a private world over the engine's library (its calls never reach the live bus), the task, and a fresh
    session there in the task's initial state, closed afterwards."""
    from hub.engine.world import World

    key = (id(engine.library), task.id + task.fingerprint(), getattr(build, "__qualname__", ""))
    found = _EXPECTED.get(key)
    if found is None:
        world = _WORLDS.setdefault(id(engine.library), World(engine.library))
        sid = "suite-expected"
        if sid in world.sessions.sessions:
            world.sessions.close(sid)
        try:
            found = _EXPECTED[key] = build(world, task, world.start(task, sid))
        finally:
            if sid in world.sessions.sessions:
                world.sessions.close(sid)
        while len(_EXPECTED) > MAX_EXPECTED:
            _EXPECTED.popitem(last=False)
    _EXPECTED.move_to_end(key)
    return found  # type: ignore[no-any-return]
