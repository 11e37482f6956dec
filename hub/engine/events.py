"""Bus events, and the in-process event bus that every tool call (and episode event) is published on.

The event kinds, once: ``tool_call`` (every call, whatever the transport), ``episode`` (``phase``
open/finish), ``turn`` (a chat message of an episode), ``reward``, ``task`` (a task seen for the
first time), ``run`` and ``run_metric`` (training runs reported by the trainer over ``/ws``),
``evidence`` (a finished episode's final state diffed against its start and the expected state).

A ``Sink`` is anything with ``offer(event)``: the store (a bounded queue drained by its writer),
metrics and the dashboard's live counters (counted in place), each ``/ws`` or SSE subscriber (a
``Subscription``: a bounded queue). Sinks register through ``attach``/``subscribe`` with the kinds
they want. Publishing never blocks: a queue that is full loses its oldest event (counted in
``dropped``) instead of growing memory.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
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


class Sink(Protocol):
    """What the bus delivers to: ``offer`` must not block (publishing happens inside tool calls)."""

    def offer(self, event: Event) -> None: ...


@dataclass
class Subscription:
    """A bounded queue of events for one reader; a full queue drops its oldest event."""

    queue: asyncio.Queue[Event]
    dropped: int = 0
    offered: int = 0

    def offer(self, event: Event) -> None:
        self.offered += 1
        if self.queue.full():
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

    def subscribe(self, kinds: Iterable[str] | None = None, maxsize: int | None = None) -> Subscription:
        """A new queue of the events of ``kinds`` (default: all)."""
        sub = Subscription(asyncio.Queue(maxsize or self.maxsize))
        self.attach(sub, kinds)
        return sub

    def unsubscribe(self, sub: Sink) -> None:
        self.detach(sub)
