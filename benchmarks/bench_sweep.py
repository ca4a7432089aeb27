"""fairlib.sweep: speed-up on local cores, per-cell overhead for cheap cells, Dask LocalCluster
agreement.

Targets (issue: sweeps):
- a sweep of >= 100 cells runs >= 1.7x faster with 2 local workers (loky) than serially;
- overhead per cell under 5 ms with loky for cheap cells (batching);
- a Dask LocalCluster run matches the local results exactly.
Each configuration is timed in this run, side by side; the worker pool is warmed up first (as in a
notebook, where the first sweep pays the start-up once).
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from benchmarks._results import Row, fmt_seconds, standalone
from benchmarks._timing import write_results
from fairlib.repro.experiments.bidding_game import _infinite_cell
from fairlib.sweep import sweep
from fairlib._validate import as_argv

# one cell of the feldman2005 Fig. 2 sweep: a random game, best response and local greedy to
# convergence
SETUP = dict(
    preference="uniform", order="random", step=0.01, n_machines=100, reserve=1e-6, gap_tol=0.05
)


def cheap_cell(seed, x):
    return {"value": x + float(np.random.default_rng(seed).random())}


def _timed(fn, *args, **kwargs):
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - t0


def main(argv=None) -> list[Row]:
    argv = as_argv(argv)
    rows = []
    grid = {"users": [5]}
    sweep(
        _infinite_cell, grid, seeds=4, fixed=SETUP, backend="loky", n_jobs=2, progress=False
    )  # warm-up
    sweep(_infinite_cell, grid, seeds=2, fixed=SETUP, backend="serial", progress=False)
    heavy = {"users": [10, 20]}
    serial, t_serial = _timed(
        sweep,
        _infinite_cell,
        heavy,
        seeds=100,
        rng=3,
        fixed=SETUP,
        backend="serial",
        progress=False,
    )
    loky, t_loky = _timed(
        sweep,
        _infinite_cell,
        heavy,
        seeds=100,
        rng=3,
        fixed=SETUP,
        backend="loky",
        n_jobs=2,
        progress=False,
    )
    assert serial.equals(loky)
    print(
        f"200 bidding-game cells (10 and 20 users, 100 machines; {t_serial / 200 * 1e3:.0f} "
        f"ms each serially): serial / loky(2) = {t_serial / t_loky:.2f}x (target >= 1.7)"
    )
    rows += [
        {"case": "200 game cells", "backend": b, "seconds": t}
        for b, t in (("serial", t_serial), ("loky2", t_loky))
    ]

    cheap = {"x": list(range(5000))}
    sweep(cheap_cell, {"x": [0, 1]}, backend="loky", n_jobs=2, progress=False)
    _, t_cheap_serial = _timed(sweep, cheap_cell, cheap, backend="serial", progress=False)
    _, t_cheap_loky = _timed(sweep, cheap_cell, cheap, backend="loky", n_jobs=2, progress=False)
    print(
        f"5000 cheap cells: {t_cheap_loky / 5000 * 1e3:.3f} ms per cell with loky(2) (target "
        f"< 5 ms; serial {t_cheap_serial / 5000 * 1e3:.3f} ms, seeding and gathering "
        "included)"
    )
    rows += [
        {"case": "5000 cheap cells", "backend": b, "seconds": t}
        for b, t in (("serial", t_cheap_serial), ("loky2", t_cheap_loky))
    ]

    from distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        ) as cluster,
        Client(cluster) as client,
    ):
        sweep(
            _infinite_cell,
            grid,
            seeds=2,
            fixed=SETUP,
            backend="dask",
            scheduler=client,
            progress=False,
        )
        dask, t_dask = _timed(
            sweep,
            _infinite_cell,
            heavy,
            seeds=100,
            rng=3,
            fixed=SETUP,
            backend="dask",
            scheduler=client,
            progress=False,
        )
    same = dask.equals(serial)
    print(
        f"Dask LocalCluster (2 workers): results identical to serial: {same}; serial / dask = "
        f"{t_serial / t_dask:.2f}x"
    )
    rows.append({"case": "200 game cells", "backend": "dask_local2", "seconds": t_dask})
    print(f"raw times: {write_results('sweep', rows)}")
    pd.testing.assert_frame_equal(dask, serial)
    return [
        Row(
            "sweep of 200 bidding-game cells: 2 loky workers vs serial",
            fmt_seconds(t_loky),
            f"serial {fmt_seconds(t_serial)}",
            t_serial / t_loky,
            "×",
            ">= 1.7",
        ),
        Row(
            "sweep overhead per cheap cell with loky (5,000 cells)",
            fmt_seconds(t_cheap_loky / 5000),
            "",
            t_cheap_loky / 5000 * 1e3,
            "ms",
            "< 5",
        ),
        Row(
            "sweep on a 2-worker Dask LocalCluster: tables differing from the serial one",
            fmt_seconds(t_dask),
            f"serial {fmt_seconds(t_serial)}",
            0.0 if same else 1.0,
            "",
            "== 0",
        ),
    ]


if __name__ == "__main__":
    standalone("sweep", main)
