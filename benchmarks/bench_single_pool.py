"""Single-pool DRF family: progressive filling vs baselines, EDRF/PDRF vs one streaming pass.

Targets (issue: metin2025):
- progressive filling >= 20x faster than pure-Python heapq and >= 50x faster than the argmin loop
  at n = 10^4 users, m = 10 resources (literal stop rule for all three);
- EDRF and PDRF at n = 10^6, m = 10 within 3x of ``demands.sum(axis=0)``.
All times are medians measured side by side in this run; only the ratios are reported as results.
"""

from __future__ import annotations

import sys

from benchmarks._timing import write_results
from fairlib.experiments.precomputed_drf import scaled_instances
from fairlib.multires import drf, edrf, pdrf
from fairlib.multires.baselines import drf_argmin_loop, drf_heapq
from fairlib.timing import median_time


def _rows(case: str, **seconds) -> list[dict]:
    return [{"case": case, "method": method, "seconds": secs} for method, secs in seconds.items()]


def main(argv=None) -> int:
    rows = []
    (_, d, c), = scaled_instances(20250, n_users=10_000, reserve_scale=10)
    tasks = int(drf(d, c, stop="first_blocked").tasks.sum())
    t_pf = median_time(lambda: drf(d, c, stop="first_blocked"), repeat=7)
    t_heapq = median_time(lambda: drf_heapq(d, c), repeat=3)
    t_argmin = median_time(lambda: drf_argmin_loop(d, c), repeat=3)
    rows += _rows("progressive filling n=1e4 m=10", drf=t_pf, heapq_drf=t_heapq, argmin_drf=t_argmin)
    print(f"n=10^4, m=10, {tasks:,} tasks: heapq / numba = {t_heapq / t_pf:.1f}x (target >= 20), "
          f"argmin loop / numba = {t_argmin / t_pf:.1f}x (target >= 50); numba {t_pf / tasks * 1e9:.0f} ns/task")

    (_, d, c), = scaled_instances(20251, n_users=1_000_000, reserve_scale=1000)
    t_sum = median_time(lambda: d.sum(axis=0), repeat=9)
    t_edrf = median_time(lambda: edrf(d, c), repeat=9)
    t_pdrf = median_time(lambda: pdrf(d, c), repeat=9)
    rows += _rows("one pass n=1e6 m=10", numpy_sum=t_sum, edrf=t_edrf, pdrf=t_pdrf)
    print(f"n=10^6, m=10: EDRF / streaming pass = {t_edrf / t_sum:.2f}x, PDRF / streaming pass = "
          f"{t_pdrf / t_sum:.2f}x (target <= 3)")
    path = write_results("single_pool", rows)
    print(f"raw medians: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
