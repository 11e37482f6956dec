"""The workers of a sharded hub: where sessions live, and the processes that serve them.

``Supervisor`` starts N worker hubs (``prove-hub serve`` with ``HUB_SHARD=k`` on loopback ports), waits until
they answer and restarts one that dies as the shard's next generation (``HUB_SHARD_RESTARTED=1``: its store marks
the episodes it left open ``interrupted``/``shard_lost``). A worker exits when its front dies
(``exit_with_parent``). ``Table`` stamps what it placed with the generation it lives on, so that anything placed
on a dead generation raises ``Lost`` instead of reaching a fresh, empty state under its old id.
``hub.ray_hosting.RaySupervisor`` does the same with Ray actors.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import signal
import sys
import threading
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from hub.config import Settings
from hub.net import free_port

log = logging.getLogger("prove_hub.shards")

READY_TIMEOUT_S = 180.0  # a worker builds its library and seed worlds before it answers
SESSION_LOST = "session_lost"
PARENT_FD = "HUB_PARENT_FD"  # the read end of the pipe a worker watches for its front's death


def workers_from(text: str) -> int:
    """``--workers``: a count, or ``auto`` (one per core)."""
    if text == "auto":
        return max(1, os.cpu_count() or 1)
    try:
        n = int(text)
    except ValueError:
        raise ValueError(f"--workers takes a count or 'auto', not {text!r}") from None
    if n < 1:
        raise ValueError("--workers must be at least 1")
    return n


def worker_values(settings: Settings, shard: int, workers: int, restarted: bool) -> dict[str, Any]:
    """A worker's settings: the front's on a loopback port, the memory budget split between the shards."""
    values = settings.model_dump(exclude_none=True)
    values.update(host="127.0.0.1", shard=shard, shard_restarted=restarted)
    if settings.max_state_bytes is not None:
        values["max_state_bytes"] = max(1, settings.max_state_bytes // workers)
    return values


def worker_env(settings: Settings, shard: int, workers: int, port: int, restarted: bool) -> dict[str, str]:
    """The environment a worker process reads its settings from (``Settings.from_env``)."""
    env = dict(os.environ)
    values = {**worker_values(settings, shard, workers, restarted), "port": port}
    for name, value in values.items():
        key = f"HUB_{name.upper()}"
        if isinstance(value, list):
            env[key] = ",".join(value)
        elif hasattr(value, "isoformat"):
            env[key] = value.isoformat()
        else:
            env[key] = str(value).lower() if isinstance(value, bool) else str(value)
    for name in Settings.model_fields:  # a field left None must not inherit the caller's variable
        if name not in values:
            env.pop(f"HUB_{name.upper()}", None)
    return env


@dataclass
class Shard:
    """One worker process and the generation of it that serves now (a restart starts the next one)."""

    index: int
    host: str = "127.0.0.1"
    port: int = 0
    generation: int = 0
    process: asyncio.subprocess.Process | None = None
    pid: int | None = None  # the worker's process (a Ray actor's, on its node)
    node: str | None = None  # the Ray node a shard's actor runs on
    lifeline: int | None = None  # the front's end of the pipe whose closing tells the worker to exit
    handle: Any = None  # a Ray actor's handle (hub.ray_hosting)
    watch: asyncio.Future[Any] | None = None  # ends when the Ray actor does
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    restarts: int = 0

    @property
    def base(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def ws_base(self) -> str:
        return f"ws://{self.host}:{self.port}"


class Lost(Exception):
    """A session or episode whose shard died after it was placed there."""

    def __init__(self, what: str, key: str, shard: int) -> None:
        super().__init__(
            f"{what} {key!r} was on shard {shard}, which died and was restarted: its state is gone "
            f"(episodes there ended interrupted, reason shard_lost); open a new one"
        )


@dataclass
class Table:
    """Where sessions, episodes and snapshots live: key -> (shard, generation)."""

    shards: list[Shard]
    sessions: dict[str, tuple[int, int]] = field(default_factory=dict)
    episodes: dict[str, tuple[int, int]] = field(default_factory=dict)
    snapshots: dict[str, tuple[int, int]] = field(default_factory=dict)
    _next: itertools.count[int] = field(default_factory=itertools.count)

    def place(self, key: str) -> int:
        return zlib.crc32(key.encode()) % len(self.shards)

    def round_robin(self) -> int:
        return next(self._next) % len(self.shards)

    def stamp(self, index: int) -> tuple[int, int]:
        return index, self.shards[index].generation

    def live(self, what: str, key: str, entry: tuple[int, int]) -> int:
        index, generation = entry
        if self.shards[index].generation != generation:
            raise Lost(what, key, index)
        return index

    def session(self, sid: str) -> int:
        entry = self.sessions.get(sid)
        if entry is None:
            entry = self.sessions[sid] = self.stamp(self.place(sid))
        return self.live("session", sid, entry)

    def episode(self, eid: str) -> int | None:
        entry = self.episodes.get(eid)
        return None if entry is None else self.live("episode", eid, entry)

    def snapshot(self, snap: str) -> int | None:
        entry = self.snapshots.get(snap)
        return None if entry is None else self.live("snapshot", snap, entry)


class Supervisor:
    """Starts the workers, waits until they answer, restarts one that dies."""

    def __init__(self, settings: Settings, workers: int, log_level: str = "warning") -> None:
        self.settings = settings
        self.shards = [Shard(i) for i in range(workers)]
        self.log_level = log_level
        self.stopping = False
        self.on_restart: Callable[[Shard], None] | None = None
        self._watchers: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        await asyncio.gather(*(self._spawn(s, restarted=False) for s in self.shards))
        self._watchers = [asyncio.create_task(self._watch(s), name=f"shard-{s.index}") for s in self.shards]

    async def _spawn(self, shard: Shard, restarted: bool) -> None:
        shard.ready.clear()
        await self._launch(shard, restarted)
        await self._wait_ready(shard)
        shard.ready.set()

    async def _launch(self, shard: Shard, restarted: bool) -> None:
        """Start the shard's worker process, holding the write end of a pipe it watches (``exit_with_parent``):
        when the front dies, even by SIGKILL, the pipe closes and the worker exits too."""
        shard.port = free_port()
        env = worker_env(self.settings, shard.index, len(self.shards), shard.port, restarted)
        readable, shard.lifeline = _new_lifeline(shard.lifeline)
        env[PARENT_FD] = str(readable)
        try:
            shard.process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "hub.cli", "serve", "--log-level", self.log_level, env=env, pass_fds=(readable,)
            )
            shard.pid = shard.process.pid
        finally:
            os.close(readable)

    def _running(self, shard: Shard) -> bool:
        return shard.process is not None and shard.process.returncode is None

    async def _exited(self, shard: Shard) -> str:
        """Wait until the shard's worker ends; how it ended."""
        assert shard.process is not None
        code = await shard.process.wait()
        return f"pid {shard.process.pid} exited with {code}"

    def about(self) -> dict[str, Any]:
        """What ``/healthz`` tells of where the shards run, beyond each shard's own row."""
        return {}

    async def _wait_ready(self, shard: Shard) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + READY_TIMEOUT_S
        async with httpx.AsyncClient(base_url=shard.base, timeout=5, headers=self._auth()) as client:
            while True:
                if not self._running(shard):
                    raise RuntimeError(f"shard {shard.index} ended while starting")
                with contextlib.suppress(httpx.TransportError):
                    if (await client.get("/healthz")).status_code < 500:
                        return
                if loop.time() > deadline:
                    raise RuntimeError(f"shard {shard.index} did not answer within {READY_TIMEOUT_S:.0f} s")
                await asyncio.sleep(0.05)  # a readiness probe of a child process: no event to wait on

    def _auth(self) -> dict[str, str]:
        return {"authorization": f"Bearer {self.settings.token}"} if self.settings.token else {}

    async def _watch(self, shard: Shard) -> None:
        while not self.stopping:
            how = await self._exited(shard)
            if self.stopping:
                return
            log.error("shard %d (%s): restarting it", shard.index, how)
            shard.generation += 1
            shard.restarts += 1
            if self.on_restart is not None:
                self.on_restart(shard)
            try:
                await self._spawn(shard, restarted=True)
            except RuntimeError as exc:
                log.error("could not restart shard %d: %s", shard.index, exc)
                return

    async def stop(self) -> None:
        self.stopping = True
        await self._terminate()
        for task in self._watchers:
            task.cancel()
        await asyncio.gather(*self._watchers, return_exceptions=True)

    async def _terminate(self) -> None:
        for shard in self.shards:
            if self._running(shard):
                assert shard.process is not None
                shard.process.terminate()
        for shard in self.shards:
            if shard.process is not None:
                try:
                    await asyncio.wait_for(shard.process.wait(), 30)
                except TimeoutError:
                    shard.process.kill()
                    await shard.process.wait()
            if shard.lifeline is not None:
                os.close(shard.lifeline)
                shard.lifeline = None


def _new_lifeline(old: int | None) -> tuple[int, int]:
    """A fresh pipe (read end, write end) for a worker, closing the previous worker's write end."""
    if old is not None:
        os.close(old)
    return os.pipe()


def exit_with_parent() -> None:
    """In a worker started by the front: end this process (SIGTERM, a graceful stop) once the front is gone.

    The front holds the write end of a pipe whose read end it passed here (``HUB_PARENT_FD``); nothing is ever
    written, so a read returns only when every write end is closed, which the kernel does when the front dies."""
    fd = os.environ.pop(PARENT_FD, None)
    if fd is None:
        return

    def watch() -> None:
        with contextlib.suppress(OSError):
            while os.read(int(fd), 1):
                pass
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="exit-with-front", daemon=True).start()
