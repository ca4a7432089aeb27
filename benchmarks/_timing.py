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


#: appended to the code run by :func:`run_fresh`: the child's own peak resident set size. VmHWM is
#: the high-water mark of the process's current address space, created afresh at exec; ``ru_maxrss``
#: is not — on Linux it carries over from the forked parent, so a child started from a large
#: benchmark process reported the parent's peak (1.29 GB for a load that peaks at 0.27 GB alone).
_PEAK = """
import json as _json, resource as _resource
def _fairlib_peak_gb():
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024 / 1e9
    except OSError:
        pass
    return _resource.getrusage(_resource.RUSAGE_SELF).ru_maxrss / 1e6  # kB on Linux; elsewhere \
approximate
print(_json.dumps({"fairlib_peak_rss_gb": _fairlib_peak_gb()}))
"""


def run_fresh(code: str, *, env: dict | None = None, timeout: float | None = None) -> dict:
    """Run ``code`` in a fresh interpreter (with ``env`` as its environment, if given); returns the
    JSON objects it printed on its last lines, merged, plus ``peak_rss_gb``: the peak resident set
    size of that interpreter alone (imports included), never the parent's. Raises
    ``subprocess.TimeoutExpired`` past ``timeout`` seconds."""
    import json
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", code + _PEAK],
        check=True,
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    ).stdout
    result = {}
    for line in out.strip().splitlines():
        if line.startswith("{"):
            result.update(json.loads(line))
    result["peak_rss_gb"] = result.pop("fairlib_peak_rss_gb")
    return result
