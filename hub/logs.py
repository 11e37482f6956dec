"""Logging that a flood cannot turn into a flood of lines: one line per interval, with counts.

A failing disk refuses every event, an attacker opens connections faster than they can be
refused: logging each occurrence would bury the one line that matters (and fill the disk the
log sits on). ``Every`` logs the first occurrence at once, then at most one summary per
interval with how many occurred meanwhile, by kind, and the latest detail.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable


class Every:
    """Log through ``logger`` at most once per ``interval_s`` seconds, counting what was held back."""

    def __init__(
        self, logger: logging.Logger, interval_s: float = 10.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.logger = logger
        self.interval_s = interval_s
        self.clock = clock
        self.counts: Counter[str] = Counter()
        self.latest = ""
        self.total = 0
        self._last: float | None = None

    def note(self, kind: str, detail: str = "", level: int = logging.WARNING) -> bool:
        """Count one occurrence of ``kind``; log (and return True) when the interval allows it."""
        self.counts[kind] += 1
        self.total += 1
        self.latest = detail or self.latest
        now = self.clock()
        if self._last is not None and now - self._last < self.interval_s:
            return False
        first = self._last is None
        self._last = now
        counts = ", ".join(f"{n} {k}" for k, n in sorted(self.counts.items()))
        span = "" if first else f" in the last {self.interval_s:g} s"
        self.logger.log(level, "%s%s%s", counts, span, f" (latest: {self.latest})" if self.latest else "")
        self.counts.clear()
        return True
