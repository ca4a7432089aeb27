"""Cluster scale: DRFH, TSF, PS-DSF and PF-VDS(α=1) from ~10⁴ to ~10⁷ eligible (user, server) pairs, on 1 and 2
threads.

Each measurement runs in a fresh interpreter with ``NUMBA_NUM_THREADS`` set (numba reads it once, at import), the
kernels already in the keyed cache (``make install`` warms them) and one call on a small cluster of the same shape
first, so the time is the solve's own. Reported per mechanism, size and thread count: the time (median of
``REPEATS`` calls below a second, else one call), the solver's iterations and the process's own peak resident memory
(VmHWM, imports and the cluster included). From those: the fitted exponent of time against pairs from 10⁵ to 10⁷
pairs, the 1 → 2 thread speed-up, and HiGHS (DRFH's LP, ``method="highs"``) at the largest size it finishes within
``HIGHS_LIMIT`` seconds, for the ratio.

Targets (on 2 cores, at 10⁴ users × 10³ servers × 3 resources): DRFH, TSF and PS-DSF each at most 6 s with 2 threads,
1 → 2 thread speed-up at least 1.7×, peak memory at most 4 GB; time exponent at most 1.15 from 10⁵ to 10⁷ pairs.
PF-VDS(1) is reported. ``python -m benchmarks.bench_scale --sizes 1000x100,3000x300`` measures other sizes.
"""

from __future__ import annotations

import math
import os
import subprocess

import numpy as np

from benchmarks._results import Row, fmt_seconds, standalone
from benchmarks._timing import run_fresh, write_results

#: (users, servers); ~70% of pairs eligible: 7e3, 7e4, 7e5, 7e6 pairs
SIZES = [(100, 100), (1000, 100), (1000, 1000), (10_000, 1000)]
MECHANISMS = {"DRFH": "drfh(c)", "TSF": "tsf(c)", "PS-DSF": "psdsf(c)", "PF-VDS(1)": "pfvds(c, 1.0)"}
THREADS = (1, 2)
REPEATS = 5
HIGHS_LIMIT = 600.0   # seconds: HiGHS is timed at the largest size it finishes within this
GATED = ("DRFH", "TSF", "PS-DSF")
EXPONENT_FROM = 50_000  # pairs: the exponent is fitted over the sizes from ~10^5 pairs up (7e4, 7e5, 7e6)

_CODE = """
import json, time
import numpy as np
from fairlib.multires import drfh, tsf, psdsf, pfvds
from fairlib.multires.cluster import random_cluster
small = random_cluster(1, {warm_users}, {warm_servers}, 3)
c = small
{call}
c = random_cluster(2018, {users}, {servers}, 3)
pairs = int(c.eligible.sum())
times = []
while True:
    t0 = time.perf_counter()
    out = {call}
    times.append(time.perf_counter() - t0)
    if len(times) >= {repeats} or sum(times) > 1.0:
        break
print(json.dumps({{"seconds": float(np.median(times)), "calls": len(times), "pairs": pairs,
                   "iterations": int(getattr(out, "iterations", 0)),
                   "converged": bool(getattr(out, "converged", True))}}))
"""


def _fresh(call: str, users: int, servers: int, threads: int, timeout: float | None = None) -> dict | None:
    """One measurement in a fresh interpreter; None if it ran past ``timeout`` seconds."""
    # the warm-up cluster has the same side of the serial/parallel switch as the measured one, so both kernels
    # it will use are loaded before the clock starts
    warm_users, warm_servers = (users, servers) if users * servers <= 100_000 else (500, 100)
    code = _CODE.format(call=call, users=users, servers=servers, repeats=REPEATS, warm_users=warm_users,
                        warm_servers=warm_servers)
    try:
        return run_fresh(code, env=dict(os.environ, NUMBA_NUM_THREADS=str(threads)), timeout=timeout)
    except subprocess.TimeoutExpired:
        return None


def _exponent(points: list[tuple[int, float]]) -> float:
    """Least-squares slope of log(time) against log(pairs)."""
    x = np.log([p for p, _ in points])
    y = np.log([t for _, t in points])
    return float(np.polyfit(x, y, 1)[0])


def _parse_sizes(argv: list[str]) -> list[tuple[int, int]]:
    if "--sizes" not in argv:
        return SIZES
    text = argv[argv.index("--sizes") + 1]
    return [tuple(int(v) for v in part.split("x")) for part in text.split(",")]


def main(argv=None) -> list[Row]:
    argv = list(argv or [])
    sizes = _parse_sizes(argv)
    raw, rows = [], []
    measured: dict[tuple[str, tuple[int, int], int], dict] = {}
    for users, servers in sizes:
        for name, call in MECHANISMS.items():
            for threads in THREADS:
                r = _fresh(call, users, servers, threads)
                measured[name, (users, servers), threads] = r
                raw.append({"mechanism": name, "users": users, "servers": servers, "threads": threads, **r})
                print(f"{name:10s} {users:>6}x{servers:<5} {r['pairs']:>9,} pairs  {threads} thread(s): "
                      f"{fmt_seconds(r['seconds'])}, {r['iterations']} iterations, peak {r['peak_rss_gb']:.2f} GB",
                      flush=True)
    largest = sizes[-1]
    label = f"{largest[0]:,} users × {largest[1]:,} servers"
    for name in MECHANISMS:
        one, two = measured[name, largest, 1], measured[name, largest, 2]
        gated = name in GATED
        rows.append(Row(f"{name} at {label} ({two['pairs']:,} pairs), 2 threads", fmt_seconds(two["seconds"]),
                        f"{two['iterations']} iterations; peak {two['peak_rss_gb']:.2f} GB",
                        two["seconds"], "s", "<= 6" if gated else ""))
        rows.append(Row(f"{name}: 1 → 2 threads at {label}", f"{fmt_seconds(two['seconds'])} on 2",
                        f"{fmt_seconds(one['seconds'])} on 1", one["seconds"] / two["seconds"], "×",
                        ">= 1.7" if gated else ""))
        rows.append(Row(f"{name}: peak memory at {label}", f"{max(one['peak_rss_gb'], two['peak_rss_gb']):.2f} GB",
                        "the process's own high-water mark (VmHWM)", max(one["peak_rss_gb"], two["peak_rss_gb"]),
                        "GB", "<= 4" if gated else ""))
        points = [(measured[name, s, 2]["pairs"], measured[name, s, 2]["seconds"]) for s in sizes
                  if measured[name, s, 2]["pairs"] >= EXPONENT_FROM]
        if len(points) >= 2:
            lo, hi = points[0][0], points[-1][0]
            rows.append(Row(f"{name}: time exponent in pairs, 2 threads", f"{_exponent(points):.2f}",
                            f"fitted over {len(points)} sizes, {lo:,} to {hi:,} pairs", _exponent(points), "",
                            "<= 1.15" if gated else ""))
    # HiGHS on DRFH's LP: from the largest size down, the first that finishes within the limit
    for users, servers in reversed(sizes):
        h = _fresh('drfh(c, method="highs")', users, servers, 2, timeout=HIGHS_LIMIT)
        if h is None:
            print(f"HiGHS at {users}x{servers}: not finished within {HIGHS_LIMIT:.0f} s", flush=True)
            continue
        ours = measured["DRFH", (users, servers), 2]
        print(f"HiGHS at {users}x{servers}: {fmt_seconds(h['seconds'])}", flush=True)
        raw.append({"mechanism": "HiGHS (DRFH LP)", "users": users, "servers": servers, "threads": 2, **h})
        rows.append(Row(f"DRFH vs HiGHS at {users:,} × {servers:,} (largest size HiGHS finishes within "
                        f"{HIGHS_LIMIT / 60:.0f} min)", fmt_seconds(ours["seconds"]),
                        f"HiGHS {fmt_seconds(h['seconds'])}", h["seconds"] / ours["seconds"], "×"))
        break
    write_results("scale", raw)
    assert all(math.isfinite(r.value) for r in rows)
    return rows


if __name__ == "__main__":
    standalone("scale", main)
