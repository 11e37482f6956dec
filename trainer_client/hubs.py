"""Several hubs behind one trainer: groups sharded across hubs, and a dead hub fails only its episodes.

Sessions are independent, so a GRPO group (the n samples of one prompt, all from one initial state)
lives on one hub and groups spread round-robin over the live hubs. When a hub stops answering, the
episodes it holds fail (``HubDown``; the caller scores them as failed and goes on), the hub is set
aside, new groups go to the others, and it is tried again after ``retry_after`` seconds. Every hub
loads the same task file, so a task's initial state (and its state hash) is the same on each.

``GroupPool`` hands out episodes one at a time to callers that cannot see each other (OpenRLHF makes
one agent instance per sample): the first caller with a key (one prompt's n samples) opens a group on
one hub, the next callers with that key take its remaining episodes. A full hub (``capacity``) is
retried with back-off; when it stays full the group fails as a whole.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

from trainer_client.hub_client import Group, HubClient, HubConnectionError, HubError

log = logging.getLogger("trainer_client.hubs")


class HubDown(Exception):
    """A hub stopped answering while it held an episode; the episode is lost, the run goes on."""

    def __init__(self, url: str, reason: str) -> None:
        super().__init__(f"hub {url} is down: {reason}")
        self.url = url
        self.reason = reason


class NoHubAvailable(RuntimeError):
    """Every hub is down."""


class HubBusy(NoHubAvailable):
    """Every live hub stayed full (``capacity``) through the retries."""


def ws_url(url: str) -> str:
    """``http://h:p`` / ``ws://h:p`` / ``h:p`` -> ``ws://h:p/ws`` (the rollout endpoint)."""
    url = url.strip().rstrip("/")
    if "://" not in url:
        url = "ws://" + url
    scheme, rest = url.split("://", 1)
    scheme = {"http": "ws", "https": "wss"}.get(scheme, scheme)
    return f"{scheme}://{rest}" if rest.endswith("/ws") else f"{scheme}://{rest}/ws"


def http_url(url: str) -> str:
    """The hub's HTTP base URL (for /healthz) from any of the forms ``ws_url`` takes."""
    base = ws_url(url)[: -len("/ws")]
    scheme, rest = base.split("://", 1)
    return ("https" if scheme == "wss" else "http") + "://" + rest


@dataclass
class HubEndpoint:
    url: str
    client: HubClient
    down_since: float | None = None
    failures: int = 0
    episodes: int = 0

    @property
    def alive(self) -> bool:
        return self.down_since is None


@dataclass
class Lease:
    """One episode handed to one caller: where it lives and what it starts from."""

    hub: HubEndpoint
    group: Group
    episode: str
    index: int  # the episode's place in its group

    @property
    def url(self) -> str:
        return self.hub.url


class HubSet:
    """Clients of several hubs; ``call`` turns a dropped connection into ``HubDown`` and sets the hub aside."""

    def __init__(
        self,
        urls: Sequence[str],
        token: str | None = None,
        *,
        retry_after: float = 30.0,
        client_factory: Callable[[str, str | None], HubClient] | None = None,
        clock: Callable[[], float] = time.monotonic,
        open_retries: int = 5,
        open_backoff: float = 1.0,
    ) -> None:
        if not urls:
            raise ValueError("no hub URL given")
        factory = client_factory or default_client
        self.hubs = [HubEndpoint(ws_url(u), factory(ws_url(u), token)) for u in urls]
        self.retry_after = retry_after
        self.open_retries = open_retries
        self.open_backoff = open_backoff
        self.clock = clock
        self._turn = itertools.count()

    def __len__(self) -> int:
        return len(self.hubs)

    @property
    def alive(self) -> list[HubEndpoint]:
        now = self.clock()
        for hub in self.hubs:
            if hub.down_since is not None and now - hub.down_since >= self.retry_after:
                hub.down_since = None  # worth another try
        return [h for h in self.hubs if h.alive]

    def mark_down(self, hub: HubEndpoint, reason: str) -> None:
        if hub.alive:
            log.warning("hub %s is down (%s); its episodes fail, new groups go to the other hubs", hub.url, reason)
        hub.down_since = self.clock()
        hub.failures += 1

    def next_hub(self) -> HubEndpoint:
        alive = self.alive
        if not alive:
            raise NoHubAvailable(f"all {len(self.hubs)} hub(s) are down: {', '.join(h.url for h in self.hubs)}")
        return alive[next(self._turn) % len(alive)]

    async def call(self, hub: HubEndpoint, method: str, *args: Any, **kwargs: Any) -> Any:
        """``hub.client.<method>(...)``; a connection failure marks the hub down and raises ``HubDown``."""
        try:
            return await getattr(hub.client, method)(*args, **kwargs)
        except HubConnectionError as exc:
            self.mark_down(hub, exc.message)
            raise HubDown(hub.url, exc.message) from exc

    async def open_group(
        self,
        task: str | dict[str, Any],
        n: int,
        limits: dict[str, Any] | None = None,
        *,
        run: str | None = None,
        step: int | None = None,
    ) -> tuple[HubEndpoint, Group]:
        """Open a group on the next live hub, moving on while hubs are down or full.

        A full hub (``capacity``) is retried with back-off (``open_retries`` rounds over the hubs);
        then ``HubBusy``. Any other refusal (``unknown_task``, a bad task) is raised as ``HubError``.
        """
        last: Exception | None = None
        for attempt in range(self.open_retries + 1):
            if attempt:
                await asyncio.sleep(min(self.open_backoff * 2 ** (attempt - 1), 30.0))
            busy = False
            for _ in range(len(self.hubs)):
                try:
                    hub = self.next_hub()
                except NoHubAvailable:
                    break
                try:
                    group = await self.call(hub, "open", task, n, limits, run=run, step=step)
                except HubDown as exc:
                    last = exc
                    continue
                except HubError as exc:
                    if exc.code != "capacity":
                        raise
                    last, busy = exc, True
                    continue
                hub.episodes += n
                return hub, group
            if not busy:
                break
        name = task if isinstance(task, str) else task.get("id", "<inline>")
        if isinstance(last, HubError) and last.code == "capacity":
            raise HubBusy(
                f"no hub had room for a group of {n} of {name!r} after {self.open_retries} retries: {last.message}"
            )
        raise NoHubAvailable(f"no hub could open a group of {name!r}: {last or 'all hubs are down'}")

    async def __aenter__(self) -> HubSet:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        for hub in self.hubs:
            try:
                await hub.client.close()
            except Exception:  # noqa: BLE001 - closing a dead connection must not mask the run's outcome
                log.debug("closing %s failed", hub.url, exc_info=True)

    def report(self) -> list[dict[str, Any]]:
        return [{"url": h.url, "alive": h.alive, "failures": h.failures, "episodes": h.episodes} for h in self.hubs]


def default_client(url: str, token: str | None) -> HubClient:
    # Few, short retries: a hub that is gone should fail its episodes quickly, not stall the batch.
    return HubClient(url, token, client="prove-trainer", retries=2, backoff=0.1, request_timeout=300.0)


@dataclass
class _Pending:
    hub: HubEndpoint
    group: Group
    next_index: int = 0


@dataclass
class GroupPool:
    """Episodes handed out one at a time to callers that cannot see each other (OpenRLHF makes one agent
    instance per sample): the first caller with a ``key`` opens a group of ``n`` on one hub, the next
    callers with that key take its other episodes. A failed open fails every caller of the key alike
    until ``release(key)``."""

    hubs: HubSet
    group_size: int = 16
    limits: dict[str, Any] | None = None
    run: str | None = None
    _pending: dict[Hashable, _Pending] = field(default_factory=dict)
    _failed: dict[Hashable, Exception] = field(default_factory=dict)
    _locks: dict[Hashable, asyncio.Lock] = field(default_factory=dict)

    async def acquire(
        self, task: str, key: Hashable | None = None, n: int | None = None, step: int | None = None
    ) -> Lease:
        key = task if key is None else key
        lock = self._locks.setdefault(key, asyncio.Lock())
        async with lock:
            if key in self._failed:
                raise self._failed[key]
            pending = self._pending.get(key)
            if pending is None or not pending.hub.alive:
                try:
                    hub, group = await self.hubs.open_group(
                        task, n or self.group_size, self.limits, run=self.run, step=step
                    )
                except (NoHubAvailable, HubError) as exc:
                    if key != task:  # a keyed group fails as a whole; a task-keyed one may be retried
                        self._failed[key] = exc
                    raise
                pending = self._pending[key] = _Pending(hub, group)
            lease = Lease(pending.hub, pending.group, pending.group.episodes[pending.next_index], pending.next_index)
            pending.next_index += 1
            if pending.next_index >= len(pending.group.episodes):
                del self._pending[key]
            return lease

    async def release(self, key: Hashable) -> None:
        """Forget ``key``: close the episodes of its group nobody took."""
        self._failed.pop(key, None)
        self._locks.pop(key, None)
        pending = self._pending.pop(key, None)
        if pending is not None and pending.hub.alive and pending.next_index < len(pending.group.episodes):
            try:
                await self.hubs.call(pending.hub, "close_episodes", pending.group.episodes[pending.next_index :])
            except (HubDown, HubError):
                pass

    def leftovers(self) -> list[tuple[HubEndpoint, list[str]]]:
        """Episodes opened but never handed out (to close at shutdown)."""
        return [(p.hub, p.group.episodes[p.next_index :]) for p in self._pending.values()]

    async def drain(self) -> None:
        for hub, episodes in self.leftovers():
            if hub.alive and episodes:
                try:
                    await self.hubs.call(hub, "close_episodes", episodes)
                except (HubDown, HubError):
                    pass
        self._pending.clear()
        self._failed.clear()
