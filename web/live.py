"""Live counters for the dashboard: tool calls per second over a sliding window, fed by the event bus.

The sink counts synchronously inside ``publish`` (no queue, no task), like the metrics sink: one
integer increment per tool call, and memory bounded by the window length.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from hub.engine.events import EventBus


@dataclass
class LiveStats:
    """Per-second tool-call counts for the last ``window_s`` seconds, and totals since the hub started."""

    window_s: int = 300
    buckets: deque[list[int]] = field(default_factory=deque)  # [second, calls, failed]
    calls: int = 0
    failed: int = 0
    episodes_finished: int = 0

    @classmethod
    def attach(cls, bus: EventBus, window_s: int = 300) -> LiveStats:
        sink = cls(window_s=window_s)
        bus.attach(sink, ("tool_call", "episode"))
        return sink

    def offer(self, event: Any) -> None:
        kind = getattr(event, "type", None)
        if kind == "tool_call":
            self._count(int(event.ts), bool(event.ok))
        elif kind == "episode" and getattr(event, "phase", None) == "finish":
            self.episodes_finished += 1

    def _count(self, second: int, ok: bool) -> None:
        self.calls += 1
        self.failed += not ok
        if self.buckets and self.buckets[-1][0] == second:
            bucket = self.buckets[-1]
        else:
            bucket = [second, 0, 0]
            self.buckets.append(bucket)
            while self.buckets and self.buckets[0][0] <= second - self.window_s:
                self.buckets.popleft()
        bucket[1] += 1
        bucket[2] += not ok

    def rate(self, span_s: int = 10, now: float | None = None) -> float:
        """Mean tool calls per second over the last ``span_s`` seconds (the current one included)."""
        end = int(now if now is not None else time.time())
        return sum(b[1] for b in self.buckets if end - span_s < b[0] <= end) / span_s

    def series(self, span_s: int = 120, now: float | None = None) -> list[tuple[float, float]]:
        """(seconds ago as a negative number, calls in that second) for every second of the span."""
        end = int(now if now is not None else time.time())
        counts = {b[0]: b[1] for b in self.buckets}
        return [(float(s - end), float(counts.get(s, 0))) for s in range(end - span_s, end + 1)]
