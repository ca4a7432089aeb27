"""Benchmark output helper; timing itself is :func:`fairlib.timing.median_time`."""

from __future__ import annotations

from pathlib import Path

import pandas as pd


def write_results(name: str, rows: list[dict]) -> Path:
    from fairlib import paths

    out = paths.build_dir() / "benchmarks"
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.csv"
    pd.DataFrame(rows).to_csv(path, index=False, float_format="%.6g", lineterminator="\n")
    return path
