"""The condition a PS-DSF allocation meets (Definition 4), measured: :func:`psdsf_violation`."""

from __future__ import annotations

import numpy as np

from ..._validate import InvalidInputError, as_instance
from ..cluster import Cluster

__all__ = ["psdsf_violation"]


def psdsf_violation(
    cluster: Cluster, tasks, *, time_shared: bool = False, tol: float = 1e-7
) -> dict:
    """How far ``tasks`` is from Definition 4.

    For each server i and usable user n below its cap (``max_tasks``; a user at its cap wants no
    more): if no resource n needs is saturated on i, x[n, i] could grow for free (``free_pairs``).
    Otherwise Definition 4 fails when, for every saturated resource r that n
    needs, some other user m with x[m, i] > 0 and d[m, r] > 0 has a larger weighted VDS: n could
    grow by taking r from users above it. ``gap`` is the largest such min_r max_m (ŝ_m / ŝ_n - 1).

    Returns {"free_pairs", "violating_pairs", "gap", "holds"}.

    Parameters
    ----------
    cluster : Cluster
        The instance.
    tasks : (N, K) array_like
        Tasks per (user, server).
    time_shared : bool
        Problem 2: each server's one constraint Σ_n x[n, i]/γ[n, i] <= 1.
    tol : float
        The gap at or below which Definition 4 holds.

    Returns
    -------
    dict
        ``{"free_pairs", "violating_pairs", "gap", "holds"}``.
    """
    as_instance(cluster, Cluster, "cluster")
    x = cluster._tasks(tasks)
    if not cluster.feasible(x, tol=tol):
        raise InvalidInputError(
            "tasks: infeasible for this cluster (capacity, eligibility or sign)"
        )
    vds = cluster.vds(x.sum(axis=1))
    d3, caps = cluster.server_constraints(time_shared)  # refuses a time_shared not a bool, by name
    scale = max(float(x.sum(axis=1).max()), 1e-300)
    free = violating = 0
    gap = 0.0
    for i in range(cluster.n_servers):
        users = np.flatnonzero(cluster.eligible[:, i])
        demand, cap = d3[users, i], caps[i]
        used = x[users, i] @ demand
        sat = used >= cap * (1 - tol) - tol * 1e-3
        holders = x[users, i] > tol * scale
        for a, n in enumerate(users):
            if x[n].sum() >= cluster.max_tasks[n] * (1 - tol):
                continue
            need = demand[a] > 0
            if not (need & sat).any():
                free += 1
                continue
            best = np.inf
            for r in np.flatnonzero(need & sat):
                above = holders & (demand[:, r] > 0) & (vds[users, i] > vds[n, i] * (1 + tol))
                above[a] = False
                best = min(
                    best, (vds[users[above], i] / vds[n, i] - 1).max() if above.any() else -np.inf
                )
            if best > 0:
                violating += 1
                gap = max(gap, float(best))
    return {
        "free_pairs": free,
        "violating_pairs": violating,
        "gap": gap,
        "holds": free == 0 and violating == 0,
    }
