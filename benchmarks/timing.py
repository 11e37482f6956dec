"""Timing helpers the benchmark scripts share (each script puts this folder on ``sys.path``, or runs from it)."""

from __future__ import annotations

import gc
import pickle
import time
from collections.abc import Callable


def best(fn: Callable[[], object], repeat: int = 7, number: int = 50) -> float:
    """Best-of-``repeat`` mean seconds per call, over ``number`` calls a round."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - start) / number)
    return min(times)


def round_trip_no_gc(state: object) -> Callable[[], object]:
    """A call that pickles ``state`` and loads it back with the garbage collector paused."""

    def run() -> object:
        gc.disable()
        try:
            return pickle.loads(pickle.dumps(state, pickle.HIGHEST_PROTOCOL))
        finally:
            gc.enable()

    return run
