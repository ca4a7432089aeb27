"""Cluster scale: DRFH, TSF, PS-DSF and PF-VDS(α=1) from ~10⁴ to ~10⁷ eligible (user, server)
pairs, on 1 and 2 threads.

Each measurement runs in a fresh interpreter with ``NUMBA_NUM_THREADS`` set (numba reads it once, at
import), the kernels already in the keyed cache (``make install`` warms them) and one call on a
small cluster of the same shape first, so the time is the solve's own. Reported per mechanism, size
and thread count: the time (median of ``REPEATS`` calls below a second, else one call), the solver's
iterations and the process's own peak resident memory (VmHWM, imports and the cluster included).
From those: the fitted exponent of time against pairs from 10⁵ to 10⁷ pairs, the 1 → 2 thread
speed-up, and HiGHS (DRFH's LP, ``method="highs"``) at the largest size it finishes within
``HIGHS_LIMIT`` seconds, for the ratio.

Targets (on 2 cores, at 10⁴ users × 10³ servers × 3 resources), for DRFH, TSF and PS-DSF: peak
memory at most :data:`MEMORY_GB`, and the 2-thread time no more than :data:`REGRESSION` times the
committed result's (``benchmarks/results/scale.json`` at git's HEAD, read before the run replaces
it). The time, the 1 → 2 thread speed-up and the exponent are reported: at this size the normal
equations' users × rows² product runs at the BLAS peak (``docs/scale.md``; the solver-profile
benchmark gives the shares). PF-VDS(1) is reported. ``python -m benchmarks.bench_scale --sizes
1000x100,3000x300`` measures other sizes; :func:`restate` applies these targets to a stored run.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
from dataclasses import replace

import numpy as np

from benchmarks._results import ROOT, Row, fmt_seconds, item, standalone
from benchmarks._timing import run_fresh, write_results
from fairlib._validate import as_argv, as_integer_text

#: (users, servers); ~70% of pairs eligible: 7e3, 7e4, 7e5, 7e6 pairs
SIZES = [(100, 100), (1000, 100), (1000, 1000), (10_000, 1000)]
MECHANISMS = {
    "DRFH": "drfh(c)",
    "TSF": "tsf(c)",
    "PS-DSF": "psdsf(c)",
    "PF-VDS(1)": "pfvds(c, 1.0)",
}
THREADS = (1, 2)
REPEATS = 5
HIGHS_LIMIT = 600.0  # seconds: HiGHS is timed at the largest size it finishes within this
GATED = ("DRFH", "TSF", "PS-DSF")
MEMORY_GB = 4.0  # the process's peak resident memory at the largest size, GB
REGRESSION = (
    1.2  # the 2-thread time at the largest size against the committed result's, at most this factor
)
#: where the time, speed-up and exponent rows are explained (linked from the performance page's
#: notes)
WHY_REPORTED = (
    "time, 1 → 2 thread speed-up and exponent are reported, not gated: at this size the normal "
    "equations' users × rows² product runs at the BLAS peak ([scale.md](scale.md)); gated: "
    "peak memory "
    f"≤ {MEMORY_GB:g} GB and the 2-thread time within {REGRESSION:g}× of the committed result"
)
COMMITTED = "benchmarks/results/scale.json"
EXPONENT_FROM = (
    50_000  # pairs: the exponent is fitted over the sizes from ~10^5 pairs up (7e4, 7e5, 7e6)
)

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


def _fresh(
    call: str, users: int, servers: int, threads: int, timeout: float | None = None
) -> dict | None:
    """One measurement in a fresh interpreter; None if it ran past ``timeout`` seconds."""
    # the warm-up cluster has the same side of the serial/parallel switch as the measured one, so
    # both kernels it will use are loaded before the clock starts
    warm_users, warm_servers = (users, servers) if users * servers <= 100_000 else (500, 100)
    code = _CODE.format(
        call=call,
        users=users,
        servers=servers,
        repeats=REPEATS,
        warm_users=warm_users,
        warm_servers=warm_servers,
    )
    try:
        return run_fresh(
            code, env=dict(os.environ, NUMBA_NUM_THREADS=str(threads)), timeout=timeout
        )
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
    return [
        tuple(as_integer_text(v, "--sizes", minimum=1) for v in part.split("x"))
        for part in text.split(",")
    ]


def main(argv=None) -> list[Row]:
    argv = as_argv(argv)
    argv = list(argv or [])
    sizes = _parse_sizes(argv)
    committed = committed_results()  # before this run replaces it
    raw, rows = [], []
    measured: dict[tuple[str, tuple[int, int], int], dict] = {}
    for users, servers in sizes:
        for name, call in MECHANISMS.items():
            for threads in THREADS:
                r = _fresh(call, users, servers, threads)
                measured[name, (users, servers), threads] = r
                raw.append(
                    {"mechanism": name, "users": users, "servers": servers, "threads": threads, **r}
                )
                print(
                    f"{name:10s} {users:>6}x{servers:<5} {r['pairs']:>9,} pairs  {threads} "
                    f"thread(s): {fmt_seconds(r['seconds'])}, {r['iterations']} iterations, "
                    f"peak {r['peak_rss_gb']:.2f} GB",
                    flush=True,
                )
    largest = sizes[-1]
    label = f"{largest[0]:,} users × {largest[1]:,} servers"
    for name in MECHANISMS:
        one, two = measured[name, largest, 1], measured[name, largest, 2]
        rows.append(
            Row(
                f"{name} at {label} ({two['pairs']:,} pairs), 2 threads",
                fmt_seconds(two["seconds"]),
                f"{two['iterations']} iterations; peak {two['peak_rss_gb']:.2f} GB",
                two["seconds"],
                "s",
            )
        )
        rows.append(
            Row(
                f"{name}: 1 → 2 threads at {label}",
                f"{fmt_seconds(two['seconds'])} on 2",
                f"{fmt_seconds(one['seconds'])} on 1",
                one["seconds"] / two["seconds"],
                "×",
            )
        )
        rows.append(
            Row(
                f"{name}: peak memory at {label}",
                f"{max(one['peak_rss_gb'], two['peak_rss_gb']):.2f} GB",
                "the process's own high-water mark (VmHWM)",
                max(one["peak_rss_gb"], two["peak_rss_gb"]),
                "GB",
            )
        )
        points = [
            (measured[name, s, 2]["pairs"], measured[name, s, 2]["seconds"])
            for s in sizes
            if measured[name, s, 2]["pairs"] >= EXPONENT_FROM
        ]
        if len(points) >= 2:
            lo, hi = points[0][0], points[-1][0]
            rows.append(
                Row(
                    f"{name}: time exponent in pairs, 2 threads",
                    f"{_exponent(points):.2f}",
                    f"fitted over {len(points)} sizes, {lo:,} to {hi:,} pairs",
                    _exponent(points),
                    "",
                )
            )
    # HiGHS on DRFH's LP: from the largest size down, the first that finishes within the limit
    for users, servers in reversed(sizes):
        h = _fresh('drfh(c, method="highs")', users, servers, 2, timeout=HIGHS_LIMIT)
        if h is None:
            print(
                f"HiGHS at {users}x{servers}: not finished within {HIGHS_LIMIT:.0f} s", flush=True
            )
            continue
        ours = measured["DRFH", (users, servers), 2]
        print(f"HiGHS at {users}x{servers}: {fmt_seconds(h['seconds'])}", flush=True)
        raw.append(
            {"mechanism": "HiGHS (DRFH LP)", "users": users, "servers": servers, "threads": 2, **h}
        )
        rows.append(
            Row(
                f"DRFH vs HiGHS at {users:,} × {servers:,} (largest size HiGHS finishes within "
                f"{HIGHS_LIMIT / 60:.0f} min)",
                fmt_seconds(ours["seconds"]),
                f"HiGHS {fmt_seconds(h['seconds'])}",
                h["seconds"] / ours["seconds"],
                "×",
            )
        )
        break
    write_results("scale", raw)
    rows = apply_targets(rows, committed)
    assert all(math.isfinite(r.value) for r in rows)
    return rows


def committed_results() -> dict | None:
    """The results a run is held against: ``benchmarks/results/scale.json`` as committed (git's
    HEAD), else the file on disk, else None (no regression rows)."""
    try:
        out = subprocess.run(
            ["git", "show", f"HEAD:{COMMITTED}"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
        return json.loads(out.stdout)
    except (OSError, subprocess.CalledProcessError, ValueError):
        path = ROOT / COMMITTED
        return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def row_kind(row: str) -> tuple[str, str]:
    """(mechanism, kind) of a scale row by its name; kind is one of time, speedup, memory, exponent,
    regression, highs."""
    if row.startswith("DRFH vs HiGHS"):
        return "DRFH", "highs"
    for name in MECHANISMS:
        if row.startswith(f"{name} at ") and row.endswith(": time against the committed result"):
            return name, "regression"
        for prefix, kind in (
            (f"{name}: 1 → 2 threads", "speedup"),
            (f"{name}: peak memory", "memory"),
            (f"{name}: time exponent", "exponent"),
            (f"{name} at ", "time"),
        ):
            if row.startswith(prefix):
                return name, kind
    raise ValueError(f"scale row {row!r}: not one of the rows bench_scale writes")


def target(row: str) -> str:
    """The target of a scale row (empty: reported)."""
    name, kind = row_kind(row)
    if name not in GATED:
        return ""
    return {"memory": f"<= {MEMORY_GB:g}", "regression": f"<= {REGRESSION:g}"}.get(kind, "")


def apply_targets(rows: list[Row], committed: dict | None) -> list[Row]:
    """``rows`` with the targets of :func:`target`, and, after each gated mechanism's memory row,
    its 2-thread time at the largest size against the ``committed`` run's row of the same name (none
    where it has no such row)."""
    before = {r["row"]: r for r in (committed or {}).get("rows", [])}
    times = {row_kind(r.row)[0]: r for r in rows if row_kind(r.row)[1] == "time"}
    out = []
    for r in rows:
        name, kind = row_kind(r.row)
        if kind == "regression":
            continue
        note = WHY_REPORTED if kind == "time" and name == GATED[0] else r.note
        out.append(replace(r, target=target(r.row), note=note))
        now = times.get(name)
        if kind == "memory" and name in GATED and now is not None and now.row in before:
            then = before[now.row]
            out.append(
                Row(
                    f"{now.row}: time against the committed result",
                    now.ours,
                    f"committed {then['ours']} (run at {committed.get('commit', '?')}, "
                    f"{committed.get('date', '?')})",
                    now.value / then["value"],
                    "×",
                    target(f"{now.row}: time against the committed result"),
                )
            )
    return out


def restate(record: dict, committed: dict | None) -> list[Row]:
    """A stored run's rows (a results file's ``record``) under the current targets, held against
    ``committed``."""
    return apply_targets([Row(**r) for r in record["rows"]], committed)


def _listed(parts: list[str]) -> str:
    return ", ".join(parts[:-1]) + f" and {parts[-1]}" if len(parts) > 1 else "".join(parts)


def _verdict(rows: list[Row]) -> str:
    missed = [row_kind(r.row)[0] for r in rows if r.met is False]
    return "met" if not missed else f"not met by {_listed(missed)}"


def doc_block(record: dict) -> str:
    """The largest size's rows as docs/scale.md states them (``<!-- BEGIN bench:scale -->``): times
    and speed-ups reported, peak memory and the time against the committed result with their
    targets, from the committed results."""
    kinds: dict[str, list[Row]] = {}
    for r in record["rows"]:
        kinds.setdefault(row_kind(r.row)[1], []).append(r)
    first = kinds["time"][0]
    size = first.row[len(row_kind(first.row)[0]) + len(" at ") :].removesuffix(", 2 threads")
    times = _listed([f"{row_kind(r.row)[0]} {r.ours}" for r in kinds["time"]])
    speedups = _listed([f"{r.value:.2f}×" for r in kinds["speedup"]])
    gated = [r for r in kinds["memory"] if r.target]
    text = (
        f"At {size} on 2 threads (reported): {times}; from one thread to two {speedups}, in "
        f"that order. Peak memory of {_listed([row_kind(r.row)[0] for r in gated])}: "
        f"{_listed([r.ours for r in gated])} (target ≤ {MEMORY_GB:g} GB: {_verdict(gated)})"
    )
    regression = kinds.get("regression", [])
    if regression:
        ratios = _listed([f"{r.value:.2f}×" for r in regression])
        text += (
            f"; their 2-thread time against the committed result {ratios} (target ≤ "
            f"{REGRESSION:g}×: {_verdict(regression)})"
        )
    return item(text + f". From `{record['command']}`, {record['date']}.")


if __name__ == "__main__":
    standalone("scale", main)
