"""Lanes: each session's work, in order, off the event loop.

A lane belongs to one session. Jobs submitted to it run one after another, each in a worker thread
of a shared pool, so a slow call (a CPU-bound mounted method, a large copy, a state diff) delays
only the calls of its own session; the event loop keeps serving every other session, ``/healthz``
and the dashboard. A job whose caller gave up before it started is skipped; one that started runs to
the end, and its ``then`` callback still runs on the loop (the dispatcher publishes the call's
event there), so a disconnecting client never leaves a call half-recorded.

Work that touches a session's forks goes through its lane or runs on the loop while the lane is
idle (nothing queued, nothing running): then no thread can be inside the same fork.
"""

from __future__ import annotations

import asyncio
import os
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Generic, TypeVar

T = TypeVar("T")

# Threads run calls of different sessions side by side: SQLite releases the GIL while it works, and a
# pure-Python call gives it up every switch interval, so more threads than cores still pay off.
DEFAULT_THREADS = min(64, 8 * (os.cpu_count() or 2))
# How often (seconds) a thread running Python must offer the GIL to another that waits for it: the
# event loop, waiting behind a CPU-bound call in a worker thread, waits at most this long each time it
# wakes (Python's default is 5 ms; see docs/scale.md for the measurements behind this value).
SWITCH_INTERVAL_S = 0.001


class _Job(Generic[T]):
    __slots__ = ("fn", "future", "loop", "then")

    def __init__(
        self,
        fn: Callable[[], T],
        future: asyncio.Future[T],
        loop: asyncio.AbstractEventLoop,
        then: Callable[[T | BaseException], None] | None,
    ) -> None:
        self.fn = fn
        self.future = future
        self.loop = loop
        self.then = then


class Lane:
    """One session's queue of jobs: at most one runs at a time, in the order they were submitted."""

    __slots__ = ("_idle", "_jobs", "_running", "executor")

    def __init__(self, executor: Callable[[], ThreadPoolExecutor]) -> None:
        self.executor = executor
        self._jobs: deque[_Job[Any]] = deque()
        self._running = False
        self._idle: list[Callable[[], None]] = []

    @property
    def queued(self) -> int:
        """Jobs waiting behind the one running."""
        return len(self._jobs)

    @property
    def busy(self) -> bool:
        """A job is running or waiting: work on the session's forks must queue behind it."""
        return self._running or bool(self._jobs)

    def submit(self, fn: Callable[[], T], then: Callable[[T | BaseException], None] | None = None) -> asyncio.Future[T]:
        """Run ``fn`` after the jobs before it, in a worker thread; ``then`` gets its result (or exception)
        on the loop, before the returned future does, even if the caller stopped waiting."""
        loop = asyncio.get_running_loop()
        job = _Job(fn, loop.create_future(), loop, then)
        self._jobs.append(job)
        if not self._running:
            self._next()
        return job.future

    async def run(self, fn: Callable[[], T]) -> T:
        """``fn``'s result, computed in this lane."""
        return await self.submit(fn)

    def when_idle(self, fn: Callable[[], None]) -> None:
        """Call ``fn`` (on the loop) once no job is running or waiting: now, if none is."""
        if self.busy:
            self._idle.append(fn)
        else:
            fn()

    def _next(self) -> None:
        while self._jobs:
            job = self._jobs.popleft()
            if job.future.cancelled():  # the caller gave up before the job started: it never runs
                continue
            self._running = True
            done: Future[Any] = self.executor().submit(job.fn)
            done.add_done_callback(self._finisher(job))
            return
        self._running = False
        waiting, self._idle = self._idle, []
        for fn in waiting:
            fn()

    def _finisher(self, job: _Job[Any]) -> Callable[[Future[Any]], None]:
        def finished(done: Future[Any]) -> None:  # in the worker thread: hand over to the loop
            job.loop.call_soon_threadsafe(self._finish, job, done)

        return finished

    def _finish(self, job: _Job[Any], done: Future[Any]) -> None:
        exc = done.exception()
        try:
            if job.then is not None:
                job.then(exc if exc is not None else done.result())
        finally:
            if not job.future.cancelled():
                if exc is not None:
                    job.future.set_exception(exc)
                else:
                    job.future.set_result(done.result())
            self._next()
