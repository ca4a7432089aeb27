"""Every registered mechanism (``fairlib.mechanisms``), timed side by side on one pool and one
cluster.

Each run of every registered mechanism (variants included) is timed on the same instances: pooled
mechanisms on a single pool, every mechanism that takes a cluster on a heterogeneous cluster with
placement constraints. Reported as ratios to one baseline per instance (EDRF on the pool, DRFH on
the cluster), medians of ``REPEATS`` runs after one compiling call. A newly registered mechanism
appears here with no edit. ``python -m benchmarks.bench_mechanisms [USERS SERVERS]`` (default 2,000
pool users; 300 users x 30 servers).
"""

from __future__ import annotations


import numpy as np

from benchmarks._results import Row, fmt_seconds, standalone
from benchmarks._timing import write_results
from fairlib import mechanisms
from fairlib.multires import random_cluster, random_pool
from fairlib.timing import median_time
from fairlib._validate import as_argv, as_integer_text

REPEATS = 5
BASELINES = {"pool": "edrf", "cluster": "drfh"}


def cases(
    pool_users: int = 2000, users: int = 300, servers: int = 30, rng=0
) -> list[tuple[str, str, object]]:
    """(instance kind, run name, instance) for every registered run: pooled mechanisms on the pool,
    the multi-server ones on the pool and on the cluster."""
    rng = np.random.default_rng(rng)
    pool = random_pool(rng, pool_users, 3)
    cluster = random_cluster(rng, users, servers, 3)
    out = [("pool", name, pool) for name in mechanisms.runs("pooled")]
    out += [("cluster", name, cluster) for name in mechanisms.runs("multi_server")]
    return out


def main(argv: list[str]) -> list[Row]:
    argv = as_argv(argv)
    users, servers = (
        (
            as_integer_text(argv[0], "users", minimum=1),
            as_integer_text(argv[1], "servers", minimum=1),
        )
        if len(argv) >= 2
        else (300, 30)
    )
    runs = {**mechanisms.runs("pooled"), **mechanisms.runs("multi_server")}
    rows = []
    for kind, name, instance in cases(users=users, servers=servers):
        seconds = median_time(lambda: runs[name](instance), repeat=REPEATS)
        rows.append(
            {
                "instance": kind,
                "mechanism": name,
                "users": instance.n_users,
                "servers": instance.n_servers,
                "median_s": seconds,
            }
        )
    base = {
        r["instance"]: r["median_s"] for r in rows if r["mechanism"] == BASELINES[r["instance"]]
    }
    for r in rows:
        r["ratio_to_baseline"] = (
            r["median_s"] / base[r["instance"]] if r["instance"] in base else float("nan")
        )
        print(
            f"{r['instance']:8s} {r['mechanism']:16s} {r['users']:6d} x {r['servers']:3d}  "
            f"{r['ratio_to_baseline']:8.2f}x {BASELINES[r['instance']]}",
            flush=True,
        )
    write_results("mechanisms", rows)
    return [
        Row(
            f"`{r['mechanism']}` on a {r['users']:,}-user "
            f"{'pool' if r['instance'] == 'pool' else 'cluster'}"
            + ("" if r["instance"] == "pool" else f" × {r['servers']} servers"),
            fmt_seconds(r["median_s"]),
            BASELINES[r["instance"]],
            r["ratio_to_baseline"],
            "× baseline",
        )
        for r in rows
        if r["mechanism"] != BASELINES[r["instance"]]
    ]


if __name__ == "__main__":
    standalone("mechanisms", main)
