"""First call of every public mechanism with an empty numba cache, each in a fresh interpreter, beside the same
call with the cache warm (issue target: <= 5 s each, <= 20 s for the whole set, on 2 cores).

A small launcher starts one interpreter per mechanism with ``NUMBA_CACHE_DIR`` pointing at a new empty directory
(nothing compiled is inherited), times ``import fairlib`` and the first call on a 2-user, 2-server cluster (a
2-user pool for the pooled mechanisms), then starts a second interpreter on the now-filled directory for the warm
time. Each mechanism has its own empty directory, so kernels shared between mechanisms are compiled again for each.
Then one more interpreter on one empty directory calls every mechanism in turn: what a new user waits for the
whole set (shared kernels compiled once).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

from benchmarks._timing import write_results

_CALL = """
import json, time
t0 = time.perf_counter()
import fairlib
from fairlib import mechanisms
from fairlib.multires import Cluster
t1 = time.perf_counter()


def call_one(name):
    if name == "dynamic_drf":
        from fairlib.dynamic import dynamic_drf
        return dynamic_drf([[1.0, 0.5], [0.5, 1.0]])
    if name == "best_response":
        from fairlib.market import best_response
        return best_response([1.0, 2.0], [1.0, 1.0], 1.0)
    mech = mechanisms.get(name)
    pool = "pooled" in mech.capabilities
    cluster = (Cluster.single_pool([4.0, 4.0], [[1.0, 2.0], [2.0, 1.0]]) if pool
               else Cluster([[4.0, 4.0], [6.0, 2.0]], [[1.0, 2.0], [2.0, 1.0]]))
    return mech(cluster)


for name in {names!r}:
    call_one(name)
t2 = time.perf_counter()
print(json.dumps({{"import_s": t1 - t0, "first_call_s": t2 - t1}}))
"""


def _launch(names: list[str], cache: str) -> dict:
    """Import time and first-call time of ``names`` (in turn) in a fresh interpreter caching in ``cache``."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    run = subprocess.run([sys.executable, "-c", _CALL.format(names=names)], env=env, capture_output=True,
                         text=True, check=True)
    return json.loads(run.stdout.strip().splitlines()[-1])


def measure(name: str) -> dict:
    """Cold and warm first-call times of one mechanism, each in a fresh interpreter."""
    with tempfile.TemporaryDirectory() as cache:
        out = {}
        for label in ("cold", "warm"):
            times = _launch([name], cache)
            out[f"{label}_import_s"] = times["import_s"]
            out[f"{label}_first_call_s"] = times["first_call_s"]
        return {"mechanism": name, **out}


def measure_all(names: list[str]) -> dict:
    """Every mechanism in turn in one fresh interpreter on one empty cache (shared kernels compiled once)."""
    with tempfile.TemporaryDirectory() as cache:
        times = _launch(names, cache)
    return {"mechanism": "all, one process", "cold_import_s": times["import_s"],
            "cold_first_call_s": times["first_call_s"]}


def main(argv: list[str]) -> list[dict]:
    from fairlib import mechanisms

    names = argv or mechanisms.names() + ["dynamic_drf", "best_response"]
    rows = []
    for name in names:
        row = measure(name)
        rows.append(row)
        print(f"{name:16s} cold first call {row['cold_first_call_s']:6.1f} s (import {row['cold_import_s']:.1f} s); "
              f"warm {row['warm_first_call_s']:.2f} s", flush=True)
    total = sum(r["cold_first_call_s"] for r in rows)
    together = measure_all(names)
    rows.append(together)
    print(f"all {len(rows) - 1} cold first calls: {total:.1f} s, each in its own process and cache; "
          f"{together['cold_first_call_s']:.1f} s one after another in one process (target: each <= 5 s, "
          f"all <= 20 s)")
    write_results("cold_start", rows)
    return rows


if __name__ == "__main__":
    main(sys.argv[1:])
