"""Timing helpers: medians of repeated calls, for side-by-side speed comparisons."""

from __future__ import annotations

import statistics
import time

__all__ = ["median_time"]


def median_time(fn, *, repeat: int = 5, min_time: float = 0.02, warmup: int = 1, slow: float = 0.5) -> float:
    """Median wall time of ``fn()`` in seconds.

    ``warmup`` calls first (numba compilation, caches); calls cheaper than ``min_time`` are looped so
    each of the ``repeat`` samples lasts at least ``min_time``. Calls slower than ``slow`` seconds
    are sampled three times at most, the (already compiled) first call counting as a sample.
    """
    for _ in range(warmup):
        fn()
    t0 = time.perf_counter()
    fn()
    once = time.perf_counter() - t0
    if once > slow:
        samples = [once]
        for _ in range(min(repeat, 3) - 1):
            t0 = time.perf_counter()
            fn()
            samples.append(time.perf_counter() - t0)
        return statistics.median(samples)
    loops = max(1, int(min_time / max(once, 1e-9)))
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(loops):
            fn()
        samples.append((time.perf_counter() - t0) / loops)
    return statistics.median(samples)
