"""Several hubs behind one trainer: groups sharded across hubs, and a dead hub fails only its episodes.

Sessions are independent, so a GRPO group (the n samples of one prompt, all from one initial state)
lives on one hub and groups spread round-robin over the live hubs. When a hub stops answering, the
episodes it holds fail (``HubDown``; the caller scores them as failed and goes on), the hub is set
aside, new groups go to the others, and it is tried again after ``retry_after`` seconds. Every hub
loads the same task file, so a task's initial state (and its state hash) is the same on each.

``GroupPool`` hands out episodes one at a time to callers that cannot see each other (OpenRLHF makes
one agent instance per sample): the first caller for a task opens a group of ``group_size`` on one
hub, the next callers for that task take its remaining episodes.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections.abc import Callable, Sequence
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

    def __init__(self, urls: Sequence[str], token: str | None = None, *, retry_after: float = 30.0,
                 client_factory: Callable[[str, str | None], HubClient] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if not urls:
            raise ValueError("no hub URL given")
        factory = client_factory or default_client
        self.hubs = [HubEndpoint(ws_url(u), factory(ws_url(u), token)) for u in urls]
        self.retry_after = retry_after
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

    async def open_group(self, task: str | dict[str, Any], n: int, limits: dict[str, Any] | None = None
                         ) -> tuple[HubEndpoint, Group]:
        """Open a group on the next live hub, moving on to the next one while hubs are down."""
        last: HubDown | None = None
        for _ in range(len(self.hubs)):
            try:
                hub = self.next_hub()
            except NoHubAvailable:
                break
            try:
                group = await self.call(hub, "open", task, n, limits)
            except HubDown as exc:
                last = exc
                continue
            hub.episodes += n
            return hub, group
        raise NoHubAvailable(f"no hub could open a group of {task!r}: {last or 'all hubs are down'}")

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
    waiters: int = 0


@dataclass
class GroupPool:
    """Episodes by task, ``group_size`` at a time: the samples of one prompt share one hub group."""

    hubs: HubSet
    group_size: int = 16
    limits: dict[str, Any] | None = None
    _pending: dict[str, _Pending] = field(default_factory=dict)
    _locks: dict[str, asyncio.Lock] = field(default_factory=dict)

    async def acquire(self, task: str) -> Lease:
        lock = self._locks.setdefault(task, asyncio.Lock())
        async with lock:
            pending = self._pending.get(task)
            if pending is None or not pending.hub.alive:
                hub, group = await self.hubs.open_group(task, self.group_size, self.limits)
                pending = self._pending[task] = _Pending(hub, group)
            lease = Lease(pending.hub, pending.group, pending.group.episodes[pending.next_index], pending.next_index)
            pending.next_index += 1
            if pending.next_index >= len(pending.group.episodes):
                del self._pending[task]
            return lease

    def leftovers(self) -> list[tuple[HubEndpoint, list[str]]]:
        """Episodes opened but never handed out (to close at shutdown)."""
        return [(p.hub, p.group.episodes[p.next_index:]) for p in self._pending.values()]

    async def drain(self) -> None:
        for hub, episodes in self.leftovers():
            if hub.alive and episodes:
                try:
                    await self.hubs.call(hub, "close_episodes", episodes)
                except (HubDown, HubError):
                    pass
        self._pending.clear()
