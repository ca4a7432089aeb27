"""Timing helpers: medians of repeated calls, measured side by side."""

from __future__ import annotations

import statistics
import time
from pathlib import Path

import pandas as pd


def median_time(fn, *, repeat: int = 5, min_time: float = 0.05, warmup: int = 1) -> float:
    """Median wall time of ``fn()`` in seconds; cheap calls are looped until ``min_time`` per sample."""
    for _ in range(warmup):
        fn()
    t0 = time.perf_counter()
    fn()
    once = time.perf_counter() - t0
    loops = max(1, int(min_time / max(once, 1e-9)))
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(loops):
            fn()
        samples.append((time.perf_counter() - t0) / loops)
    return statistics.median(samples)


def write_results(name: str, rows: list[dict]) -> Path:
    from fairlib import paths

    out = paths.build_dir() / "benchmarks"
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.csv"
    pd.DataFrame(rows).to_csv(path, index=False, float_format="%.6g", lineterminator="\n")
    return path
