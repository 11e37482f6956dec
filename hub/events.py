"""The in-process event bus: every tool call (and episode event) is published here.

Publishing never blocks: each subscriber has a bounded queue, and a slow
subscriber loses its oldest events (counted in ``dropped``) instead of growing memory.
"""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class ToolCallEvent:
    session: str
    server: str
    tool: str
    arguments: Any
    ok: bool
    result: Any
    error: str | None
    error_kind: str | None
    latency_ms: float
    state_changed: bool
    ts: float
    episode: str | None = None
    result_json: str | None = None
    id: int = 0
    type: str = "tool_call"

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        del out["result_json"]
        return out


@dataclass
class Subscription:
    queue: asyncio.Queue[Any]
    kinds: frozenset[str] | None = None
    dropped: int = 0

    def offer(self, event: Any) -> None:
        if self.kinds is not None and getattr(event, "type", None) not in self.kinds:
            return
        if self.queue.full():
            self.queue.get_nowait()
            self.dropped += 1
        self.queue.put_nowait(event)


@dataclass
class EventBus:
    maxsize: int = 1000
    subscribers: list[Subscription] = field(default_factory=list)
    _ids: itertools.count = field(default_factory=lambda: itertools.count(1))
    published: int = 0

    def publish(self, event: Any) -> None:
        if hasattr(event, "id"):
            event.id = next(self._ids)
        self.published += 1
        for sub in self.subscribers:
            sub.offer(event)

    def subscribe(self, kinds: frozenset[str] | None = None, maxsize: int | None = None) -> Subscription:
        sub = Subscription(asyncio.Queue(maxsize or self.maxsize), kinds)
        self.subscribers.append(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        if sub in self.subscribers:
            self.subscribers.remove(sub)
