"""Single-pool DRF family: progressive filling vs baselines, EDRF/PDRF vs one streaming pass.

Targets (issue: metin2025):
- progressive filling >= 20x faster than pure-Python heapq and >= 50x faster than the argmin loop
  at n = 10^4 users, m = 10 resources (literal stop rule for all three);
- EDRF and PDRF at n = 10^6, m = 10 within 3x of ``demands.sum(axis=0)``;
- (issue #20, reported without a target of its own) the production schedulers' tie rules at n =
  10^5, m = 10 against ``lowest_index`` in the same run, and continuing from a start allocation
  (half of the run's tasks) against filling from zero;
- (issue #20) pooled DRF with quotas inside a two-level hierarchy (316 queues of about 316 users;
  every user guaranteed half and limited to four times an equal split of every resource, as YARN
  lends an idle guarantee and Mesos holds it back) at n = 10^5, m = 10 within 3x of flat ``drf`` in
  the same run, the tree built once by ``queue_tree`` (its cost is reported beside); the hierarchy
  alone and pooled ``drf`` with the same quotas (YARN, Mesos, Kueue) beside it.
All times are medians measured side by side in this run; only the ratios are reported as results.
"""

from __future__ import annotations

import numpy as np

from benchmarks._results import Row, fmt_seconds, standalone
from benchmarks._timing import write_results
from fairlib.repro.experiments.precomputed_drf import scaled_instances
from fairlib.multires import Quotas, drf, edrf, hierarchical_drf, pdrf, queue_tree
from fairlib.multires.baselines import drf_argmin_loop, drf_heapq
from fairlib.timing import median_time
from fairlib._validate import as_argv


def _rows(case: str, **seconds) -> list[dict]:
    return [{"case": case, "method": method, "seconds": secs} for method, secs in seconds.items()]


def main(argv=None) -> list[Row]:
    argv = as_argv(argv)
    rows, speed = [], []
    ((_, d, c),) = scaled_instances(20250, n_users=10_000, reserve_scale=10)
    tasks = int(drf(d, c, stop="first_blocked").tasks.sum())
    t_pf = median_time(lambda: drf(d, c, stop="first_blocked"), repeat=7)
    t_heapq = median_time(lambda: drf_heapq(d, c), repeat=3)
    t_argmin = median_time(lambda: drf_argmin_loop(d, c), repeat=3)
    rows += _rows(
        "progressive filling n=1e4 m=10", drf=t_pf, heapq_drf=t_heapq, argmin_drf=t_argmin
    )
    print(
        f"n=10^4, m=10, {tasks:,} tasks: heapq / numba = {t_heapq / t_pf:.1f}x (target >= "
        f"20), argmin loop / numba = {t_argmin / t_pf:.1f}x (target >= 50); numba "
        f"{t_pf / tasks * 1e9:.0f} ns/task"
    )
    case = f"n = 10⁴ users, m = 10, {tasks:,} tasks"
    ours = f"{fmt_seconds(t_pf)} ({t_pf / tasks * 1e9:.0f} ns/task)"
    speed += [
        Row(
            f"DRF progressive filling vs pure-Python heapq, {case}",
            ours,
            f"heapq {fmt_seconds(t_heapq)}",
            t_heapq / t_pf,
            "×",
            ">= 20",
        ),
        Row(
            f"DRF progressive filling vs the argmin loop as published, {case}",
            ours,
            f"argmin loop {fmt_seconds(t_argmin)}",
            t_argmin / t_pf,
            "×",
            ">= 50",
        ),
    ]

    ((_, d, c),) = scaled_instances(20251, n_users=1_000_000, reserve_scale=1000)
    t_sum = median_time(lambda: d.sum(axis=0), repeat=9)
    t_edrf = median_time(lambda: edrf(d, c), repeat=9)
    t_pdrf = median_time(lambda: pdrf(d, c), repeat=9)
    rows += _rows("one pass n=1e6 m=10", numpy_sum=t_sum, edrf=t_edrf, pdrf=t_pdrf)
    print(
        f"n=10^6, m=10: EDRF / streaming pass = {t_edrf / t_sum:.2f}x, PDRF / streaming pass = "
        f"{t_pdrf / t_sum:.2f}x (target <= 3)"
    )
    for name, t in (("EDRF", t_edrf), ("PDRF", t_pdrf)):
        speed.append(
            Row(
                f"{name} vs one streaming pass (`demands.sum(axis=0)`), n = 10⁶, m = 10",
                fmt_seconds(t),
                f"one pass {fmt_seconds(t_sum)}",
                t / t_sum,
                "×",
                "<= 3",
            )
        )
    ((_, d, c),) = scaled_instances(20252, n_users=100_000, reserve_scale=10)
    times = {
        tie: median_time(lambda tie=tie: drf(d, c, tie_break=tie), repeat=5)
        for tie in ("lowest_index", "allocation_count", "lexicographic")
    }
    full = drf(d, c, tie_break="allocation_count", record_order=True)
    half = np.bincount(full.order[: full.n_allocations // 2], minlength=len(d))
    times["allocation_count from half"] = median_time(
        lambda: drf(d, c, tie_break="allocation_count", start=half), repeat=5
    )
    rows += _rows("scheduler tie rules n=1e5 m=10", **times)
    print(
        f"n=10^5, m=10, {full.n_allocations:,} tasks: allocation_count (Mesos) / "
        f"lowest_index = {times['allocation_count'] / times['lowest_index']:.2f}x, "
        "lexicographic (YARN) / lowest_index = "
        f"{times['lexicographic'] / times['lowest_index']:.2f}x, from a start of half the "
        "tasks / from zero = "
        f"{times['allocation_count from half'] / times['allocation_count']:.2f}x"
    )
    base = f"lowest_index {fmt_seconds(times['lowest_index'])}"
    for tie, label in (
        ("allocation_count", "Mesos's tie rule (allocation_count)"),
        ("lexicographic", "YARN's tie rule (lexicographic)"),
    ):
        speed.append(
            Row(
                f"`drf` with {label} vs lowest_index, n = 10⁵, m = 10",
                fmt_seconds(times[tie]),
                base,
                times[tie] / times["lowest_index"],
                "×",
            )
        )
    speed.append(
        Row(
            "`drf` continuing from half the tasks vs filling from zero, n = 10⁵, m = 10",
            fmt_seconds(times["allocation_count from half"]),
            f"from zero {fmt_seconds(times['allocation_count'])}",
            times["allocation_count from half"] / times["allocation_count"],
            "×",
        )
    )
    paths = [f"q{i % 316}/u{i}" for i in range(len(d))]
    tree = queue_tree(paths)
    times = {
        "flat drf": median_time(lambda: drf(d, c), repeat=5),
        "queue_tree (once per tree)": median_time(lambda: queue_tree(paths), repeat=3),
    }
    for variant in ("hdrf", "naive"):
        times[variant] = median_time(
            lambda variant=variant: hierarchical_drf(d, c, tree, variant=variant), repeat=5
        )
    equal = np.broadcast_to(c / len(d), d.shape)
    quotas = {
        "yarn": Quotas.yarn(min_share=equal / 2, max_share=4 * equal),
        "mesos": Quotas.mesos(guarantee=equal / 2, limit=4 * equal),
        "kueue": Quotas.kueue(
            nominal=equal / 2, borrowing_limit=3.5 * equal, lending_limit=equal / 4
        ),
    }
    for name, q in quotas.items():
        times[f"quotas ({name})"] = median_time(lambda q=q: drf(d, c, quotas=q), repeat=5)
    inside = [(variant, name) for variant in ("hdrf", "naive") for name in ("yarn", "mesos")]
    for variant, name in inside:
        times[f"{variant} with quotas ({name})"] = median_time(
            lambda variant=variant, q=quotas[name]: hierarchical_drf(
                d, c, tree, variant=variant, quotas=q
            ),
            repeat=5,
        )
    rows += _rows("two-level hierarchy and quotas n=1e5 m=10", **times)
    flat = times["flat drf"]
    print(
        "n=10^5, m=10, 316 queues, quotas inside the hierarchy / flat drf: "
        + ", ".join(
            f"{variant} + {name} {times[f'{variant} with quotas ({name})'] / flat:.2f}x"
            for variant, name in inside
        )
        + " (target <= 3)"
    )
    print(
        f"  hierarchy alone: H-DRF {times['hdrf'] / flat:.2f}x, naive "
        f"{times['naive'] / flat:.2f}x; building the tree "
        f"{times['queue_tree (once per tree)'] / flat:.2f}x; pooled drf with quotas: "
        + ", ".join(f"{name} {times[f'quotas ({name})'] / flat:.2f}x" for name in quotas)
    )
    for variant, name in inside:
        t = times[f"{variant} with quotas ({name})"]
        speed.append(
            Row(
                f"{'H-DRF' if variant == 'hdrf' else 'naive hierarchy'} with {name} quotas "
                "vs flat `drf`, "
                "316 queues, n = 10⁵, m = 10",
                fmt_seconds(t),
                f"flat drf {fmt_seconds(flat)}",
                t / flat,
                "×",
                "<= 3",
            )
        )
    path = write_results("single_pool", rows)
    print(f"raw medians: {path}")
    return speed


if __name__ == "__main__":
    standalone("single_pool", main)
