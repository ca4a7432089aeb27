"""Benchmark output helpers (timing itself lives in :mod:`fairlib.timing`)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from fairlib.timing import median_time  # noqa: F401  (re-exported for the bench scripts)


def write_results(name: str, rows: list[dict]) -> Path:
    from fairlib import paths

    out = paths.build_dir() / "benchmarks"
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.csv"
    pd.DataFrame(rows).to_csv(path, index=False, float_format="%.6g", lineterminator="\n")
    return path
