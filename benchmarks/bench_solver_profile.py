"""Where one DRFH solve at cluster scale spends its time on 2 threads: threaded BLAS, numba's
parallel pair kernels, and the rest, which runs on one core.

DRFH's and TSF's rounds are the same interior point (``fairlib.multires._engine.maxmin_interior``).
Measured in a fresh interpreter with ``NUMBA_NUM_THREADS=2`` at the scale benchmark's largest size
(10⁴ users × 10³ servers × 3 resources), after one solve of the same cluster (which compiles
the parallel kernels), by wrapping the solver's functions with wall-clock timers:

- threaded BLAS: the normal matrix's low-rank product (``ssyrk``/``dsyrk``) and its Cholesky
  factorisation;
- parallel pair kernels: the normal matrix's assembly (with the single-precision copy of its
  low-rank factor), the Newton solves (with their triangular solves, which are serial inside the
  kernel), the residuals and the element-wise passes (step lengths, right-hand sides, updates),
  split over numba's threads by user chunks;
- the rest, on one core: the centring target's and the duality gap's sums over the pairs (kept in
  one order, so the iterates do not depend on the thread count), the best iterate's copy, vectors of
  users and capacity rows, Python.

Reported rows, no targets: ``docs/performance.md`` shows them as what remains serial per iteration
and its share. ``python -m benchmarks.bench_solver_profile USERS SERVERS`` measures another size.
"""

from __future__ import annotations

import os

from benchmarks._results import Row, fmt_seconds, item, standalone
from benchmarks._timing import run_fresh, write_results
from fairlib._validate import as_argv, as_integer_text

USERS, SERVERS, THREADS = 10_000, 1_000, 2

_CODE = """
import json, time
import scipy.linalg.blas as blas
from fairlib.multires import drfh
from fairlib.multires.cluster import random_cluster
from fairlib.multires._engine import maxmin_interior as mi
spent = {{"blas": 0.0, "parallel": 0.0}}
def timed(fn, key):
    def run(*args, **kwargs):
        t0 = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            spent[key] += time.perf_counter() - t0
    return run
c = random_cluster(2018, {users}, {servers}, 3)
drfh(c)
for name in ("ssyrk", "dsyrk"):
    setattr(blas, name, timed(getattr(blas, name), "blas"))
mi._cholesky = timed(mi._cholesky, "blas")
for name in ("_normal_matrix", "_newton_solve", "_linear_parts", "_pair_products", \
"_complementarity",
             "_pair_step_lengths", "_pair_advance", "_pair_refinement_residuals", "_pair_add"):
    setattr(mi._PARALLEL, name, timed(getattr(mi._PARALLEL, name), "parallel"))
t0 = time.perf_counter()
out = drfh(c)
total = time.perf_counter() - t0
print(json.dumps({{"total": total, **spent, "iterations": int(out.iterations), "pairs": \
int(c.eligible.sum())}}))
"""


def main(argv=None) -> list[Row]:
    argv = as_argv(argv)
    argv = list(argv or [])
    users, servers = (
        (
            as_integer_text(argv[0], "users", minimum=1),
            as_integer_text(argv[1], "servers", minimum=1),
        )
        if len(argv) >= 2
        else (USERS, SERVERS)
    )
    r = run_fresh(
        _CODE.format(users=users, servers=servers),
        env=dict(os.environ, NUMBA_NUM_THREADS=str(THREADS)),
    )
    total = r["total"]
    serial = max(total - r["blas"] - r["parallel"], 0.0)
    size = (
        f"{users:,} users × {servers:,} servers ({r['pairs']:,} pairs), {THREADS} threads, "
        f"{r['iterations']} "
        "iterations"
    )
    print(
        f"DRFH at {size}: {fmt_seconds(total)}; threaded BLAS {fmt_seconds(r['blas'])}, "
        f"parallel pair kernels {fmt_seconds(r['parallel'])}, one core {fmt_seconds(serial)}",
        flush=True,
    )
    write_results(
        "solver_profile",
        [
            {"part": k, "seconds": v}
            for k, v in (
                ("total", total),
                ("blas", r["blas"]),
                ("parallel", r["parallel"]),
                ("serial", serial),
            )
        ],
    )
    parts = [
        ("threaded BLAS: the normal matrix's product and Cholesky factorisation", r["blas"]),
        (
            "numba's parallel pair kernels: assembly, Newton solves, residuals, steps, updates",
            r["parallel"],
        ),
        (
            "one core: the centring target's and the gap's ordered sums, vectors of users "
            "and rows, Python",
            serial,
        ),
    ]
    return [
        Row(
            f"DRFH at {size}: share in {what}",
            fmt_seconds(seconds),
            f"of {fmt_seconds(total)}",
            100.0 * seconds / total,
            "%",
        )
        for what, seconds in parts
    ]


def doc_block(record: dict) -> str:
    """The profile as docs/scale.md states it (``<!-- BEGIN bench:solver_profile -->``): the solve,
    its time and each part's share, from the committed results."""
    rows = record["rows"]
    solve, _, _ = rows[0].row.partition(": share in ")
    parts = []
    for r in rows:
        where, _, what = r.row.partition(": share in ")[2].partition(": ")
        parts.append(
            f"{r.value:.0f}% {'on' if where == 'one core' else 'in'} {where} ({what}, {r.ours})"
        )
    shares = ", ".join(parts[:-1]) + f" and {parts[-1]}"
    mechanism, _, size = solve.partition(" at ")
    return item(
        f"One {mechanism} solve at {size} takes {rows[0].baseline.removeprefix('of ')}: "
        f"{shares}. From `{record['command']}`, {record['date']}."
    )


if __name__ == "__main__":
    standalone("solver_profile", main)
