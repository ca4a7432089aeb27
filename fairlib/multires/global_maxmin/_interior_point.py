"""``method="interior_point"`` of :func:`~fairlib.multires.drfh` and :func:`~fairlib.multires.tsf`
(the default): each round of progressive filling by the structured interior point of
:mod:`fairlib.multires._engine.maxmin_interior`, HiGHS taking over a round where it stalls."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._engine.maxmin_interior import maxmin_round_interior_point
from .._engine.options import MethodOptions
from ..cluster import Cluster
from ._highs import _highs_lp, _highs_round
from ._rounds import _at_levels, _release_parked, _stop_at_caps, _within_caps


@dataclass(frozen=True)
class InteriorPointOptions(MethodOptions):
    """``drfh``'s and ``tsf``'s ``options`` with ``method="interior_point"``.

    Parameters
    ----------
    tol : float in [1e-15, 0.1]
        The interior point's stopping tolerance of each round.
    """

    tol: float = 1e-9

    def __post_init__(self):
        self._tolerance("tol")


_IPM_FREEZE_SLACK = 1e-12


_IPM_ACCEPT = 1e-7  # a round whose interior point stalls above this residual is re-solved by HiGHS


def _pair_index(cluster: Cluster):
    users, servers = np.nonzero(cluster.eligible)
    return users, servers


def _maxmin_interior(cluster: Cluster, coef, phi, tol, max_rounds, floors):
    """Lexicographic weighted max-min of ``coef``-scaled totals by rounds: each round's common level
    by the structured interior point (HiGHS takes over a round where it stalls), the users its duals
    block frozen at the level their exactly feasible tasks achieve; users with a floor wait at its
    level until the common level reaches it (:func:`_release_parked`); returns tasks and
    diagnostics. ``coef`` = q / phi, ``phi`` the weights normalised to a largest of 1 (for HiGHS's
    level rows)."""
    n = cluster.n_users
    users, servers = _pair_index(cluster)
    demand, capacity = cluster.demand, cluster.capacity
    parked = floors > 0
    level = np.where(parked, coef * floors, np.nan)
    rounds = iterations = fallbacks = 0
    worst = 0.0
    highs = None
    limit = max_rounds or 2 * n + 1
    lps = 0
    while np.isnan(level).any() or parked.any():
        rounds += 1
        if rounds > limit:
            raise RuntimeError(f"weighted_maxmin_totals: no convergence after {limit} rounds")
        if not np.isnan(level).any():  # only floored users left: the lowest floors rise
            _release_parked(level, parked, level[parked].min())
        active = np.isnan(level)
        x, t, blocked, diag = maxmin_round_interior_point(
            demand, capacity, users, servers, coef, level, tol=min(tol, 1e-9)
        )
        iterations += diag["iterations"]
        lps += 1
        worst = max(worst, diag["merit"])
        if (
            diag["merit"] > _IPM_ACCEPT
        ):  # stalled far from the optimum (degenerate, ill-conditioned): HiGHS
            highs = highs or _highs_lp(cluster, coef, phi)
            x, t, blocked, used = _highs_round(highs, level, tol)
            fallbacks += 1
            lps += used
        # exact feasibility (a change of the order of the primal residual), then the levels this x
        # achieves
        tasks = np.zeros((n, cluster.n_servers))
        tasks[users, servers] = np.maximum(x, 0.0)
        tasks /= max(1.0, float(cluster.load(tasks).max(initial=0.0)))
        achieved = coef * tasks.sum(axis=1)
        if _release_parked(level, parked, t):
            continue
        if not blocked.any():  # flat indicator (numerical): the largest dual share is blocked
            blocked = active & (diag["dual_share"] == diag["dual_share"][active].max())
        scale, t, blocked = _stop_at_caps(achieved, coef, cluster.max_tasks, active, t, blocked)
        tasks, achieved = tasks * scale[:, None], achieved * scale
        # Levels are kept at what this exactly feasible x achieves (at most the primal residual
        # below the LP's), less 1e-12 relative against rounding, so the next round's LP stays
        # feasible.
        level[blocked] = t
        frozen = ~np.isnan(level) & ~parked
        level[frozen] = np.minimum(level[frozen], achieved[frozen]) * (1 - _IPM_FREEZE_SLACK)
    tasks = _at_levels(_within_caps(tasks, cluster.max_tasks), coef, level)
    return tasks, {
        "rounds": rounds,
        "lps": lps,
        "levels": level,
        "iterations": iterations,
        "largest_residual": worst,
        "highs_fallbacks": fallbacks,
        "method": "interior_point",
    }
