"""``method="highs"`` of :func:`~fairlib.multires.drfh` and :func:`~fairlib.multires.tsf`: each
round of progressive filling one HiGHS LP on the full problem (the generic reference; the interior
point's fallback)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.sparse import coo_matrix, vstack

from ..._scaled_lp import scaled_linprog
from .._engine.options import MethodOptions
from ..cluster import Cluster, placement_capacity_rows
from ._rounds import _FREEZE_SLACK, _at_levels, _release_parked, _stop_at_caps, _within_caps


_TIGHT = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}
_LEVEL_SLACK = 1e-9


@dataclass(frozen=True)
class HighsOptions(MethodOptions):
    """``drfh``'s and ``tsf``'s ``options`` with ``method="highs"``.

    Parameters
    ----------
    tol : float in [1e-15, 0.1]
        The dual above which HiGHS's duals freeze a user at a round's level.
    """

    tol: float = 1e-9

    def __post_init__(self):
        self._tolerance("tol")


def _highs_lp(cluster: Cluster, coef, phi):
    """The rounds' LP for HiGHS: variables x per eligible pair, then t.

    User n's level row is scaled by its normalised weight ``phi[n]`` (coef_n = q_n / phi_n), so the
    weight enters as phi_n t <= q_n Σ_i x[n, i]: the row's dual is then in units of level per task
    whatever the weight, and a small weight cannot hide a blocked user below the freezing
    threshold (nor put a coefficient q_n / phi_n out of HiGHS's range). HiGHS solves it in units
    where its tolerances hold (:func:`fairlib._scaled_lp.scaled_linprog`): a pair's tasks in the
    tasks the user could run alone on that server (``unit``), t as it is."""
    n = cluster.n_users
    users, servers, a_cap = placement_capacity_rows(cluster, int(cluster.eligible.sum()) + 1)
    p = len(users)
    a_cap = a_cap.tocsr()  # capacity rows; the last column (t) is empty there
    # level rows: phi_n t - q_n Σ_i x[n, i] <= 0 (active) ; -q_n Σ_i x[n, i] <= -phi_n level_n
    # (frozen)
    a_user = coo_matrix((-(coef * phi)[users], (users, np.arange(p))), shape=(n, p + 1)).tocsr()
    t_col = coo_matrix((phi, (np.arange(n), np.full(n, p))), shape=(n, p + 1)).tocsr()
    return {
        "cluster": cluster,
        "users": users,
        "servers": servers,
        "coef": coef,
        "phi": phi,
        "a_cap": a_cap,
        "unit": np.append(cluster.gamma[users, servers], 1.0),
        "b_cap": cluster.capacity.ravel(),
        "a_user": a_user,
        "t_col": t_col,
    }


def _highs_round(lp, level, tol):
    """One round by HiGHS: (x per pair, t, users to freeze, LPs solved)."""
    cluster, a_cap, b_cap = lp["cluster"], lp["a_cap"], lp["b_cap"]
    p = len(lp["users"])
    active = np.isnan(level)
    a_lvl = lp["a_user"] + lp["t_col"].multiply(active[:, None])
    # frozen levels are kept up to 1e-7 relative: HiGHS meets constraints to its feasibility
    # tolerance (1e-7), so insisting on the exact level of an earlier round can make the next LP
    # infeasible
    b_lvl = np.where(active, 0.0, -lp["phi"] * np.nan_to_num(level) * (1 - _LEVEL_SLACK))
    c = np.zeros(p + 1)
    c[p] = -1.0
    res = scaled_linprog(
        c,
        unit=lp["unit"],
        A_ub=vstack([a_cap, a_lvl]).tocsr(),
        b_ub=np.concatenate([b_cap, b_lvl]),
        bounds=(0, None),
        options=_TIGHT,
    )
    if res.status != 0:
        raise RuntimeError(f"weighted_maxmin_totals: HiGHS failed ({res.message})")
    lps = 1
    t = res.x[p]
    duals = -res.ineqlin.marginals[len(b_cap) :]
    block = active & (duals > tol)
    if not block.any():  # numerically flat duals: fall back to one LP per active user
        block = active & _blocked_by_lp(
            cluster, lp["users"], a_cap, b_cap, lp["coef"], level, active, t, tol, lp["unit"][:p]
        )
        lps += int(active.sum())
    if not block.any():
        raise RuntimeError("weighted_maxmin_totals: no user could be frozen (numerical trouble)")
    return res.x[:p], t, block, lps


def _maxmin_highs(cluster: Cluster, coef, phi, tol, max_rounds, floors):
    """Weighted max-min totals by one HiGHS LP per round of progressive filling (the reference
    method); ``coef`` = q / phi, ``phi`` the weights normalised to a largest of 1."""
    n = cluster.n_users
    lp = _highs_lp(cluster, coef, phi)
    parked = floors > 0
    level = np.where(parked, lp["coef"] * floors, np.nan)
    rounds = lps = 0
    x = np.zeros(len(lp["users"]))
    limit = max_rounds or 2 * n + 1
    while np.isnan(level).any() or parked.any():
        rounds += 1
        if rounds > limit:
            raise RuntimeError(f"weighted_maxmin_totals: no convergence after {limit} rounds")
        if not np.isnan(level).any():  # only floored users left: the lowest floors rise
            _release_parked(level, parked, level[parked].min())
        active = np.isnan(level)
        x, t, block, used = _highs_round(lp, level, tol)
        lps += used
        x = np.maximum(x, 0.0)
        if _release_parked(level, parked, t):
            continue
        achieved = lp["coef"] * np.bincount(lp["users"], x, minlength=n)
        scale, t, block = _stop_at_caps(achieved, lp["coef"], cluster.max_tasks, active, t, block)
        x = x * scale[lp["users"]]
        level[block] = np.minimum(
            t, lp["coef"][block] * cluster.max_tasks[block]
        )  # a capped user at its cap
    tasks = np.zeros((n, cluster.n_servers))
    np.add.at(tasks, (lp["users"], lp["servers"]), x)
    return _at_levels(_within_caps(tasks, cluster.max_tasks), lp["coef"], level), {
        "rounds": rounds,
        "lps": lps,
        "levels": level,
        "method": "highs",
    }


def _blocked_by_lp(cluster, users, a_cap, b_cap, coef, level, active, t, tol, unit):
    """Active users that cannot exceed t while the others keep theirs (one LP each; ``unit``: the
    pairs' units, as :func:`_highs_lp`'s)."""
    n = cluster.n_users
    p = len(users)
    a_tot = coo_matrix((-coef[users], (users, np.arange(p))), shape=(n, p)).tocsr()
    floor = np.where(active, t, np.nan_to_num(level)) * (1 - _FREEZE_SLACK)
    out = np.zeros(n, dtype=bool)
    for j in np.flatnonzero(active):
        c = np.zeros(p)
        c[users == j] = -coef[j]
        res = scaled_linprog(
            c,
            unit=unit,
            A_ub=vstack([a_cap[:, :p], a_tot]).tocsr(),
            b_ub=np.concatenate([b_cap, -floor]),
            bounds=(0, None),
        )
        out[j] = res.status == 0 and -res.fun <= t * (1 + 10 * tol) + tol
    return out
