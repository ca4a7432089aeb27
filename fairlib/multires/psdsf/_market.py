"""PS-DSF's default method, ``psdsf(..., method="market")``: the limit of a smoothed market on
per-server prices, solved by Newton's method (:mod:`fairlib.multires._engine.psdsf_market`; ~20
Newton steps, Definition 4 to ~1e-9). It describes servers with one VDS level (every usable user
loads the constraint that fills the server: always so when all users of a server load the same
constraints); where it does not, where it did not converge, and on a cluster with per-user caps, the
fixed point (:mod:`._fixed_point`) computes the allocation instead. The front door is
:func:`fairlib.multires.psdsf.psdsf`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._engine.psdsf_market import psdsf_market
from ..cluster import Allocation, Cluster
from ._fixed_point import FixedPointOptions, limits_of, solve


@dataclass(frozen=True)
class MarketOptions(FixedPointOptions):
    """``psdsf``'s ``options`` with ``method="market"``: those of the fixed point it hands over to
    (where its allocation leaves a usable user without a full constraint, it did not converge, or
    the cluster has caps).

    Parameters
    ----------
    max_sweeps : int >= 1
        The fixed point's sweeps.
    tol : float in [1e-15, 0.1]
        The fixed point's stopping rule.
    """


OPTIONS = MarketOptions


def run(cluster: Cluster, time_shared: bool, options: MarketOptions) -> Allocation:
    """``method="market"``: the market's allocation, or the fixed point's where the market does not
    apply (``diagnostics["handover"]`` says why).

    Parameters
    ----------
    cluster : Cluster
        The instance.
    time_shared : bool
        Problem 2: each server's one constraint Σ_n x[n, i]/γ[n, i] <= 1.
    options : MarketOptions
        The method's options (those of the fixed point it hands over to).

    Returns
    -------
    Allocation
        The allocation, with the market's diagnostics or the fixed point's.
    """
    start = np.zeros((cluster.n_users, cluster.n_servers))
    if cluster.capped:  # the market has no caps: the fixed point has
        return solve(
            cluster,
            time_shared,
            limits_of(options),
            start,
            {"method": "market+fixed_point", "handover": "per-user caps"},
        )
    tasks, diag = psdsf_market(cluster, time_shared=time_shared)
    if diag["converged"] and not _free_pairs(cluster, tasks, time_shared):
        name = "psdsf_time_shared" if time_shared else "psdsf"
        return Allocation.from_diagnostics(cluster, tasks, name, {"method": "market", **diag})
    reason = "not converged" if not diag["converged"] else "several VDS levels on a server"
    return solve(
        cluster,
        time_shared,
        limits_of(options),
        start,
        {"method": "market+fixed_point", "market": diag, "handover": reason},
    )


def _free_pairs(cluster, tasks, time_shared):
    """Whether some usable user loads no full constraint of some server: the server has several VDS
    levels (its users do not all load the constraint that fills it), which the market does not
    describe."""
    full = (cluster.load(tasks, time_shared) >= 1 - 1e-9).astype(float)  # [server, k]
    needs = np.ones((cluster.n_users, 1)) if time_shared else (cluster.demand > 0).astype(float)
    return bool((cluster.eligible & (needs @ full.T == 0)).any())
