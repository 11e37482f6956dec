"""Bus events, and the in-process event bus that every tool call (and episode event) is published on.

The event kinds, once: ``tool_call`` (every call, whatever the transport), ``episode`` (``phase``
open/finish), ``turn`` (a chat message of an episode), ``reward``, ``task`` (a task seen for the
first time), ``run`` and ``run_metric`` (training runs reported by the trainer over ``/ws``),
``evidence`` (a finished episode's final state diffed against its start and the expected state).

A ``Sink`` is anything with ``offer(event)``: the store (a bounded queue drained by its writer),
metrics and the dashboard's live counters (counted in place), each ``/ws`` or SSE subscriber (a
``Subscription``: a bounded queue). Sinks register through ``attach``/``subscribe`` with the kinds
they want. Publishing never blocks: a queue is bounded in events and in bytes (``event_bytes``, an
estimate computed once per event), and one that is full loses its oldest events (counted in
``dropped``) instead of growing memory.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Protocol

from hub.wire import EVENT_KINDS


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
class EpisodeEvent:
    phase: str  # "open" or "finish"
    episode: str
    task: str
    group: str
    session: str
    start_hash: str
    ts: float
    final_hash: str | None = None
    reason: str | None = None
    steps: int = 0
    calls: int = 0
    format_errors: int = 0
    reward: float | None = None
    run: str | None = None  # the training run and step this rollout is for, when the trainer says so
    step: int | None = None
    id: int = 0
    type: str = "episode"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class TurnEvent:
    episode: str
    seq: int
    role: str
    content: str
    ts: float
    id: int = 0
    type: str = "turn"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class RewardEvent:
    episode: str
    task: str
    total: float
    mode: str
    components: dict[str, float]
    weights: dict[str, float]
    ts: float
    max: float | None = None  # the most the task could score under this config
    preset: str | None = None  # the reward preset the config started from (paper, outcome)
    ledger: list[dict[str, Any]] = field(default_factory=list)  # per component: weight, value, earned, max, lost
    why: dict[str, Any] | None = None  # hub.engine.explain: per-call validity, step alignment, differing arguments
    id: int = 0
    type: str = "reward"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class TaskEvent:
    task_id: str
    kind: str
    servers: list[str]
    data: dict[str, Any]
    ts: float
    id: int = 0
    type: str = "task"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class RunEvent:
    """A training run started or ended (published by the trainer through the WebSocket)."""

    run_id: str
    name: str
    config: dict[str, Any]
    status: str
    ts: float
    id: int = 0
    type: str = "run"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class RunMetricEvent:
    run_id: str
    step: int
    metrics: dict[str, float]
    ts: float
    id: int = 0
    type: str = "run_metric"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


Diff = dict[str, dict[str, Any]]  # server -> table -> {added, removed, changed} (hub.engine.evidence)


@dataclass
class EvidenceEvent:
    """A finished episode's evidence (``hub.engine.evidence``), published at finish and kept by the store."""

    episode: str
    task: str
    state_match: bool | None  # None: the expected state could not be built
    start_diff: Diff
    expected_diff: Diff | None
    note: str | None
    ts: float
    id: int = 0
    type: str = "evidence"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


Event = ToolCallEvent | EpisodeEvent | TurnEvent | RewardEvent | TaskEvent | RunEvent | RunMetricEvent | EvidenceEvent


# What a queued event costs besides its contents (the object, its dict, the queue's slot), and how much of
# a deeply nested value is walked before the estimate stops (the rest is not counted: values that large are
# already bounded by the body limit or the result limit).
EVENT_OVERHEAD = 600
MAX_NODES = 20_000
SUBSCRIBER_BYTES = 16 * 2**20  # a /ws or SSE subscriber's queue holds at most this many bytes of events


def approx_bytes(value: Any) -> int:
    """About how many bytes ``value`` holds: text and bytes by length, containers by their items."""
    total, stack, seen = 0, [value], 0
    while stack and seen < MAX_NODES:
        node = stack.pop()
        seen += 1
        if isinstance(node, (str, bytes)):
            total += 50 + len(node)
        elif isinstance(node, dict):
            total += 64 + 16 * len(node)
            stack.extend(node.keys())
            stack.extend(node.values())
        elif isinstance(node, (list, tuple, set, frozenset)):
            total += 56 + 8 * len(node)
            stack.extend(node)
        else:
            total += 32
    return total


def event_bytes(event: Any) -> int:
    """An event's estimated size, computed once and kept on the event (outside its fields)."""
    cached = event.__dict__.get("_nbytes")
    if cached is None:
        cached = EVENT_OVERHEAD
        encoded = getattr(event, "result_json", None)
        for f in fields(event):
            value = getattr(event, f.name)
            if f.name == "result" and encoded is not None:
                continue  # the encoded text stands for it (the same value, counted once)
            cached += approx_bytes(value)
        event.__dict__["_nbytes"] = cached
    return int(cached)


class EventQueue(asyncio.Queue[Any]):
    """An asyncio queue that knows the bytes it holds (``nbytes``), for ``Subscription`` to bound."""

    def __init__(self, maxsize: int = 0, max_bytes: int | None = None) -> None:
        super().__init__(maxsize)
        self.max_bytes = max_bytes
        self.nbytes = 0

    def _put(self, item: Any) -> None:
        self._queue.append(item)  # type: ignore[attr-defined]
        self.nbytes += event_bytes(item)

    def _get(self) -> Any:
        item = self._queue.popleft()  # type: ignore[attr-defined]
        self.nbytes -= event_bytes(item)
        return item

    def over(self, extra: int) -> bool:
        """Whether one more event of ``extra`` bytes would not fit."""
        return self.full() or (self.max_bytes is not None and self.nbytes + extra > self.max_bytes)


class Sink(Protocol):
    """What the bus delivers to: ``offer`` must not block (publishing happens inside tool calls)."""

    def offer(self, event: Event) -> None: ...


@dataclass
class Subscription:
    """A queue of events for one reader, bounded in events and bytes; a full queue drops its oldest events.

    One event larger than the byte bound alone still goes through (into an emptied queue), so a reader
    never misses an event for its size alone, and the queue holds at most the bound plus that one event."""

    queue: EventQueue
    dropped: int = 0
    offered: int = 0

    @classmethod
    def bounded(cls, maxsize: int, max_bytes: int | None = SUBSCRIBER_BYTES) -> Subscription:
        return cls(EventQueue(maxsize, max_bytes))

    @property
    def nbytes(self) -> int:
        return self.queue.nbytes

    def offer(self, event: Event) -> None:
        self.offered += 1
        size = event_bytes(event)
        while not self.queue.empty() and self.queue.over(size):
            self.queue.get_nowait()
            self.dropped += 1
        self.queue.put_nowait(event)


@dataclass
class EventBus:
    maxsize: int = 1000
    published: int = 0
    _sinks: list[tuple[Sink, frozenset[str] | None]] = field(default_factory=list)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    @property
    def subscribers(self) -> tuple[Sink, ...]:
        """The registered sinks, oldest first (read-only: register with ``attach`` or ``subscribe``)."""
        return tuple(sink for sink, _ in self._sinks)

    def publish(self, event: Event) -> None:
        event.id = next(self._ids)
        self.published += 1
        for sink, kinds in self._sinks:
            if kinds is None or event.type in kinds:
                sink.offer(event)

    def attach(self, sink: Sink, kinds: Iterable[str] | None = None) -> None:
        """Deliver every event (or those of ``kinds``) to ``sink`` from now on."""
        wanted = None if kinds is None else frozenset(kinds)
        unknown = set(wanted or ()) - set(EVENT_KINDS)
        if unknown:
            raise ValueError(f"unknown event kinds {sorted(unknown)}; kinds: {', '.join(EVENT_KINDS)}")
        self._sinks.append((sink, wanted))

    def detach(self, sink: Sink) -> None:
        self._sinks = [(s, k) for s, k in self._sinks if s is not sink]

    def subscribe(
        self, kinds: Iterable[str] | None = None, maxsize: int | None = None, max_bytes: int | None = SUBSCRIBER_BYTES
    ) -> Subscription:
        """A new queue of the events of ``kinds`` (default: all), at most ``maxsize`` events and ``max_bytes``."""
        sub = Subscription.bounded(maxsize or self.maxsize, max_bytes)
        self.attach(sub, kinds)
        return sub

    def unsubscribe(self, sub: Sink) -> None:
        self.detach(sub)
