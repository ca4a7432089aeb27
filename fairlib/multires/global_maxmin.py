"""DRFH and TSF: weighted max-min on a per-user share of the *total* tasks, placed on heterogeneous servers.

Both equalise a per-user quantity q_n x_n / φ_n of the total tasks x_n = Σ_i x[n, i], subject to
every server's capacities and the placement constraints (reconstructions §5.1, [INF] for the formulas):

- **DRFH** (Wang et al.): q_n = max_r d[n, r] / C_r, the global dominant share per task against the
  pooled capacities C = Σ_i c[i, :] (eq. 5);
- **TSF** (Wang et al., SC'16): q_n = 1 / γ_n with γ_n = Σ_i γ[n, i] the tasks n could run
  monopolising every server that has the resources it needs, *ignoring* placement constraints.

The lexicographic max-min is computed by progressive filling with exact freezing, each round one LP:
maximise the common level t of the unfrozen users (frozen users keep their levels); then freeze every
user whose level constraint has a positive dual. A positive dual in one optimal dual solution forces that
constraint to be tight in every optimal primal solution (strict complementary slackness), so no user is
frozen early; at least one dual is positive (they sum to 1), so every round freezes someone.

Two solvers for the rounds' LPs:

- ``method="interior_point"`` (default): :mod:`.maxmin_interior`, an interior-point method specialised
  to the LP's structure (one dense system on the servers' capacity rows per iteration). Its solution is
  strictly complementary, so a round freezes *every* blocked user at once.
- ``method="highs"``: the generic reference, HiGHS on the full LP. Its vertex duals may leave blocked
  users with a zero dual; they are frozen in a later round at the same level.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

import numpy as np
from scipy.optimize import linprog
from scipy.sparse import coo_matrix, vstack

from .._jit import interpreted_when_small
from .._validate import (
    MAX_ITERATIONS,
    InvalidInputError,
    _short,
    as_count,
    as_instance,
    as_real_array,
    check_choice,
    as_tolerance,
)
from ._engine.maxmin_interior import maxmin_round_interior_point
from ._engine.options import MethodOptions
from .cluster import Allocation, Cluster, monopoly_tasks, placement_capacity_rows
from .schedulers.quotas import Quotas, divisible_bounds

__all__ = ["drfh", "tsf", "weighted_maxmin_totals", "drfh_coefficients", "tsf_coefficients"]


_FREEZE_SLACK = 1e-7
_METHODS = ("interior_point", "highs")


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


#: each method's option type
METHOD_OPTIONS = {"interior_point": InteriorPointOptions, "highs": HighsOptions}


def _method_options(method, options) -> MethodOptions:
    check_choice(method, _METHODS, "method")
    return METHOD_OPTIONS[method].of(options, method)


_IPM_FREEZE_SLACK = 1e-12
_IPM_ACCEPT = 1e-7  # a round whose interior point stalls above this residual is re-solved by HiGHS


def drfh_coefficients(cluster: Cluster) -> np.ndarray:
    """q_n = max_r d[n, r] / C_r on the pooled capacities (resources absent everywhere are skipped).

    Parameters
    ----------
    cluster : Cluster
        The instance.

    Returns
    -------
    (N,) ndarray
        q_n.
    """
    as_instance(cluster, Cluster, "cluster")
    pooled = cluster.pooled_capacity
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(pooled > 0, cluster.demand / pooled, 0.0)
    return share.max(axis=1)


def tsf_coefficients(cluster: Cluster) -> np.ndarray:
    """q_n = 1 / γ_n, γ_n = Σ_i min_r c[i, r] / d[n, r] over *all* servers with the needed resources.

    Parameters
    ----------
    cluster : Cluster
        The instance.

    Returns
    -------
    (N,) ndarray
        q_n.
    """
    as_instance(cluster, Cluster, "cluster")
    return 1.0 / monopoly_tasks(cluster.capacity, cluster.demand).sum(axis=1)


def _pair_index(cluster: Cluster):
    users, servers = np.nonzero(cluster.eligible)
    return users, servers


def weighted_maxmin_totals(
    cluster: Cluster,
    q,
    *,
    tol: float = 1e-9,
    max_rounds: int | None = None,
    method: str = "interior_point",
    floors=None,
) -> tuple[np.ndarray, dict]:
    """Lexicographic weighted max-min of q_n x_n / φ_n over feasible placements.

    ``method``: "interior_point" (default) or "highs" (the reference; see the module docstring). ``tol``:
    the interior point's stopping tolerance, or the dual above which HiGHS's duals freeze a user.
    ``floors`` (n,): guaranteed total tasks per user (within its cap; they must be placeable together, else the
    first user whose floor breaks that is named): a user waits at its floor's level until the common level reaches
    it, then rises with the others.
    Returns (tasks[n, i], diagnostics: rounds, levels per user, LP count, method).

    Parameters
    ----------
    cluster : Cluster
        The instance.
    q : (N,) array_like
        The coefficients q_n > 0.
    tol : float
        The interior point's stopping tolerance, or the dual above which HiGHS's duals freeze a user; from 1e-15
        to 0.1.
    max_rounds : int or None
        A cap on the rounds.
    method : str
        "interior_point" or "highs".
    floors : (N,) array_like or None
        Guaranteed total tasks per user.

    Returns
    -------
    tasks : (N, K) ndarray
        The allocation.
    diagnostics : dict
        Rounds, levels per user, LP count, method.
    """
    as_instance(cluster, Cluster, "cluster")
    n = cluster.n_users
    q_in, q = q, as_real_array(q, "q")
    if q.shape != (n,) or not np.isfinite(q).all() or (q <= 0).any():
        raise InvalidInputError(f"q = {_short(q_in)}: expected {n} finite positive coefficients")
    check_choice(method, _METHODS, "method")
    tol = as_tolerance(tol, "tol")
    if max_rounds is not None:
        max_rounds = as_count(max_rounds, "max_rounds", maximum=MAX_ITERATIONS)
    floors = np.zeros(n) if floors is None else as_real_array(floors, "floors")
    bad = ~(np.isfinite(floors) & (floors >= 0)) if floors.shape == (n,) else None
    if bad is None or bad.any():
        where = "" if bad is None else f"[{int(np.argmax(bad))}] = {floors[int(np.argmax(bad))]}"
        raise InvalidInputError(
            f"floors{where}: expected {n} finite numbers >= 0 (guaranteed tasks per user), "
            f"got shape {floors.shape}"
        )
    if (floors > 0).any():
        _check_floors(cluster, floors)
    if method == "interior_point":
        return _maxmin_interior(cluster, q / cluster.weight, tol, max_rounds, floors)
    return _maxmin_highs(cluster, q, tol, max_rounds, floors)


def _floors_placeable(cluster: Cluster, floors) -> bool:
    """Whether some placement gives every user its floor (within the rounds' slack): one HiGHS feasibility LP."""
    users, servers, a_cap = placement_capacity_rows(cluster)
    p = len(users)
    need = np.flatnonzero(floors > 0)
    a_floor = coo_matrix(
        (-np.ones(p), (np.searchsorted(need, users), np.arange(p))), shape=(need.size + 1, p)
    ).tocsr()[: need.size]  # users without a floor fall in the dropped last row
    res = linprog(
        np.zeros(p),
        A_ub=vstack([a_cap.tocsr(), a_floor]).tocsr(),
        b_ub=np.concatenate([cluster.capacity.ravel(), -floors[need] * (1 - _FREEZE_SLACK)]),
        bounds=[(0, None)] * p,
        method="highs",
    )
    return res.status == 0


def _check_floors(cluster: Cluster, floors) -> None:
    """Floors the rounds could not meet, refused before any round (HiGHS reported the first round infeasible),
    naming the first user whose floor breaks them: above its cap, above what it could place alone, or not
    placeable together with the floors of the users before it (found by bisection: one LP per halving)."""
    alone = np.where(cluster.eligible, monopoly_tasks(cluster.capacity, cluster.demand), 0.0)
    most = np.minimum(alone.sum(axis=1), cluster.max_tasks)
    over = floors * (1 - _FREEZE_SLACK) > most
    if over.any():
        j = int(np.argmax(over))
        what = (
            "its cap"
            if cluster.max_tasks[j] <= alone[j].sum()
            else "what fits on its servers alone"
        )
        raise InvalidInputError(
            f"floors[{j}] = {floors[j]:g}: user {j} can have at most {most[j]:g} tasks ({what})"
        )
    if _floors_placeable(cluster, floors):
        return
    lo, hi = (
        0,
        cluster.n_users - 1,
    )  # the floors of users 0..hi cannot be placed together; 0..lo-1 can
    while lo < hi:
        mid = (lo + hi) // 2
        if _floors_placeable(cluster, np.where(np.arange(cluster.n_users) <= mid, floors, 0.0)):
            lo = mid + 1
        else:
            hi = mid
    before = "user 0" if lo == 1 else f"users 0 to {lo - 1}"
    raise InvalidInputError(
        f"floors[{lo}] = {floors[lo]:g}: user {lo}'s floor cannot be placed together with the floors of "
        f"{before} (the floors must be placeable together)"
    )


def _release_parked(level, parked, t) -> bool:
    """Users waiting at their floors' levels (``parked``): when the common level ``t`` has reached the lowest of
    them, the users at that floor rise with the others from now on (their level is unset again). One floor at a
    time: the next round's level is at least this floor (everyone was at or above it), but may be below a higher
    floor, whose users must keep waiting. Returns whether any rose: the round is then solved again before anyone is
    frozen."""
    if not parked.any():
        return False
    lowest = level[parked].min()
    if lowest > t:
        return False
    rise = parked & (level == lowest)
    level[rise] = np.nan
    parked &= ~rise
    return bool(rise.any())


def _maxmin_interior(cluster: Cluster, coef, tol, max_rounds, floors):
    """Lexicographic weighted max-min of ``coef``-scaled totals by rounds: each round's common level by the
    structured interior point (HiGHS takes over a round where it stalls), the users its duals block frozen at the
    level their exactly feasible tasks achieve; users with a floor wait at its level until the common level reaches
    it (:func:`_release_parked`); returns tasks and diagnostics."""
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
            highs = highs or _highs_lp(cluster, coef)
            x, t, blocked, used = _highs_round(highs, level, tol)
            fallbacks += 1
            lps += used
        # exact feasibility (a change of the order of the primal residual), then the levels this x achieves
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
        # Levels are kept at what this exactly feasible x achieves (at most the primal residual below the
        # LP's), less 1e-12 relative against rounding, so the next round's LP stays feasible.
        level[blocked] = t
        frozen = ~np.isnan(level) & ~parked
        level[frozen] = np.minimum(level[frozen], achieved[frozen]) * (1 - _IPM_FREEZE_SLACK)
    tasks = _within_caps(tasks, cluster.max_tasks)
    return tasks, {
        "rounds": rounds,
        "lps": lps,
        "levels": level,
        "iterations": iterations,
        "largest_residual": worst,
        "highs_fallbacks": fallbacks,
        "method": "interior_point",
    }


def _highs_lp(cluster: Cluster, coef):
    """The rounds' LP for HiGHS: variables x per eligible pair, then t."""
    n = cluster.n_users
    users, servers, a_cap = placement_capacity_rows(cluster, int(cluster.eligible.sum()) + 1)
    p = len(users)
    a_cap = a_cap.tocsr()  # capacity rows; the last column (t) is empty there
    # level rows: t - coef_n Σ_i x[n, i] <= 0 (active) ; -coef_n Σ_i x[n, i] <= -level_n (frozen)
    a_user = coo_matrix((-coef[users], (users, np.arange(p))), shape=(n, p + 1)).tocsr()
    t_col = coo_matrix((np.ones(n), (np.arange(n), np.full(n, p))), shape=(n, p + 1)).tocsr()
    return {
        "cluster": cluster,
        "users": users,
        "servers": servers,
        "coef": coef,
        "a_cap": a_cap,
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
    # frozen levels are kept up to 1e-7 relative: HiGHS meets constraints to its feasibility tolerance
    # (1e-7), so insisting on the exact level of an earlier round can make the next LP infeasible
    b_lvl = np.where(active, 0.0, -np.nan_to_num(level) * (1 - _FREEZE_SLACK))
    c = np.zeros(p + 1)
    c[p] = -1.0
    res = linprog(
        c,
        A_ub=vstack([a_cap, a_lvl]).tocsr(),
        b_ub=np.concatenate([b_cap, b_lvl]),
        bounds=[(0, None)] * (p + 1),
        method="highs",
    )
    if res.status != 0:
        raise RuntimeError(f"weighted_maxmin_totals: HiGHS failed ({res.message})")
    lps = 1
    t = res.x[p]
    duals = -res.ineqlin.marginals[len(b_cap) :]
    block = active & (duals > tol)
    if not block.any():  # numerically flat duals: fall back to one LP per active user
        block = active & _blocked_by_lp(
            cluster, lp["users"], a_cap, b_cap, lp["coef"], level, active, t, tol
        )
        lps += int(active.sum())
    if not block.any():
        raise RuntimeError("weighted_maxmin_totals: no user could be frozen (numerical trouble)")
    return res.x[:p], t, block, lps


def _maxmin_highs(cluster: Cluster, q, tol, max_rounds, floors):
    """Weighted max-min totals by one HiGHS LP per round of progressive filling (the reference method)."""
    n = cluster.n_users
    lp = _highs_lp(cluster, q / cluster.weight)
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
    return _within_caps(tasks, cluster.max_tasks), {
        "rounds": rounds,
        "lps": lps,
        "levels": level,
        "method": "highs",
    }


def _stop_at_caps(achieved, coef, caps, active, t, blocked):
    """Progressive filling with per-user caps. The round's LP lifted every active user to the common level t; a
    user whose cap level (coef_n cap_n) is at most t reaches its cap on the way up, whatever the others do (they
    could all reach t together, and freezing a user lower only frees resources). So every such user freezes at its
    cap in this round; if one froze below t, the LP-blocked users stay active (they may rise above t now) and the
    next round lifts the rest. A capped user is a user blocked by a resource of its own.
    Returns (scale per user for its tasks, level, users to freeze)."""
    scale = np.ones_like(achieved)
    cap_level = np.where(active, coef * caps, np.inf)
    at_cap = active & (cap_level <= t)
    if not at_cap.any():
        return scale, t, blocked
    down = at_cap & (achieved > cap_level)
    scale[down] = cap_level[down] / achieved[down]
    if (cap_level[at_cap] < t).any():
        return scale, t, at_cap
    return scale, t, blocked | at_cap


def _within_caps(tasks, caps):
    """Users a later round gave more than their cap (a frozen user's level is only a lower bound there) scaled
    down to it: still feasible, and the levels are unchanged."""
    totals = tasks.sum(axis=1)
    over = totals > caps
    if over.any():
        tasks = tasks.copy()
        tasks[over] *= (caps[over] / totals[over])[:, None]
    return tasks


def _blocked_by_lp(cluster, users, a_cap, b_cap, coef, level, active, t, tol):
    """Active users that cannot exceed t while the others keep theirs (one LP each)."""
    n = cluster.n_users
    p = len(users)
    a_tot = coo_matrix((-coef[users], (users, np.arange(p))), shape=(n, p)).tocsr()
    floor = np.where(active, t, np.nan_to_num(level)) * (1 - _FREEZE_SLACK)
    out = np.zeros(n, dtype=bool)
    for j in np.flatnonzero(active):
        c = np.zeros(p)
        c[users == j] = -coef[j]
        res = linprog(
            c,
            A_ub=vstack([a_cap[:, :p], a_tot]).tocsr(),
            b_ub=np.concatenate([b_cap, -floor]),
            bounds=[(0, None)] * p,
            method="highs",
        )
        out[j] = res.status == 0 and -res.fun <= t * (1 + 10 * tol) + tol
    return out


def _with_quotas(cluster: Cluster, quotas) -> tuple[Cluster, np.ndarray | None]:
    """The cluster with each user's cap lowered to its limit, and the guaranteed total tasks (floors), for
    :class:`~.quotas.Quotas` given as vectors of the pooled capacity; ``(cluster, None)`` without quotas."""
    if quotas is None:
        return cluster, None
    if not isinstance(quotas, Quotas):
        raise InvalidInputError(
            f"quotas: expected a fairlib.multires.Quotas, got {type(quotas).__name__}"
        )
    if quotas.share != "dominant":
        raise InvalidInputError(
            f"quotas.share = {quotas.share!r}: Kueue's borrowed share is a pooled rule (drf); "
            "on heterogeneous servers the mechanism's own share decides"
        )
    resolved = quotas.resolve(cluster.demand, cluster.pooled_capacity)
    if resolved.reserved.shape[0]:
        raise InvalidInputError(
            f"{quotas.names[2]}: below the guarantee, it holds part of a guarantee back in the "
            "pool; heterogeneous servers have no pool to hold it in (give lending_limit=None)"
        )
    floors, caps = divisible_bounds(quotas, cluster.demand, cluster.max_tasks)
    capped = replace(cluster, max_tasks=caps)
    _check_placeable(capped, floors, quotas.names[0])
    return capped, floors


def _check_placeable(cluster: Cluster, floors, name: str) -> None:
    """Refuse guarantees whose tasks cannot all be placed together (servers' capacities, placement constraints)."""
    users, servers, a_cap = placement_capacity_rows(cluster)
    p = len(users)
    a_tot = coo_matrix((-np.ones(p), (users, np.arange(p))), shape=(cluster.n_users, p))
    res = linprog(
        np.zeros(p),
        A_ub=vstack([a_cap, a_tot]).tocsr(),
        b_ub=np.concatenate([cluster.capacity.ravel(), -floors]),
        bounds=[(0, None)] * p,
        method="highs",
    )
    if res.status != 0:
        raise InvalidInputError(
            f"{name}: the guaranteed tasks {np.round(floors, 6).tolist()} cannot all be placed "
            "on the servers together (their capacities and placement constraints)"
        )


@interpreted_when_small
def drfh(
    cluster: Cluster,
    *,
    method: str = "interior_point",
    options: Mapping | None = None,
    quotas=None,
) -> Allocation:
    """DRFH: weighted max-min on global dominant shares x_n max_r d[n, r] / C_r (pooled C), placed on servers.

    Parameters
    ----------
    cluster : Cluster
        The instance (weights, placement constraints and per-user caps honoured).
    method : {"interior_point", "highs"}
        The algorithm: the structured interior point, round by round (default), or HiGHS's LPs (the reference); see
        :func:`weighted_maxmin_totals`.
    options : mapping, optional
        The method's own options, checked against ``METHOD_OPTIONS[method]`` (an option the method does not take is
        refused): ``tol``, the interior point's stopping tolerance or the dual above which HiGHS's duals freeze a user
        (default 1e-9, at most 0.1).
    quotas : Quotas, optional
        Guarantees and limits as vectors of the pooled capacity (YARN's min/max shares; lending limits and Kueue's
        borrowed share are pooled rules, refused here): each user's tasks lie between ``min_r G_nr / d_nr`` (the
        guarantees must be placeable together) and ``min_r L_nr / d_nr``; a guaranteed user waits at its guarantee
        until the others' shares reach it.

    Returns
    -------
    Allocation
        Tasks per (user, server); diagnostics: rounds, levels per user, LP count, method.

    References
    ----------
    W. Wang, B. Liang, B. Li, "Multi-resource fair allocation in heterogeneous cloud computing systems", IEEE TPDS
    2015 (DRFH); the module docstring gives the program solved.

    Examples
    --------
    >>> c = Cluster([[9, 18]], [[1, 4], [3, 1]])    # one server: DRF
    >>> drfh(c).tasks.round(6).ravel().tolist()
    [3.0, 2.0]
    """
    as_instance(cluster, Cluster, "cluster")
    opts = _method_options(method, options)
    capped, floors = _with_quotas(cluster, quotas)
    tasks, diag = weighted_maxmin_totals(
        capped, drfh_coefficients(cluster), tol=opts.tol, method=method, floors=floors
    )
    return Allocation.from_diagnostics(cluster, tasks, "drfh", diag)


@interpreted_when_small
def tsf(
    cluster: Cluster,
    *,
    method: str = "interior_point",
    options: Mapping | None = None,
    quotas=None,
) -> Allocation:
    """TSF: weighted max-min on x_n / γ_n (γ_n: monopoly tasks on every server, placement ignored).

    Parameters
    ----------
    cluster : Cluster
        The instance (weights, placement constraints and per-user caps honoured).
    method : {"interior_point", "highs"}
        The algorithm: the structured interior point, round by round (default), or HiGHS's LPs (the reference); see
        :func:`weighted_maxmin_totals`.
    options : mapping, optional
        The method's own options, checked against ``METHOD_OPTIONS[method]`` (an option the method does not take is
        refused): ``tol``, the interior point's stopping tolerance or the dual above which HiGHS's duals freeze a user
        (default 1e-9, at most 0.1).
    quotas : Quotas, optional
        Guarantees and limits, as :func:`drfh` takes them.

    Returns
    -------
    Allocation
        Tasks per (user, server); diagnostics: rounds, levels per user, LP count, method.

    References
    ----------
    W. Wang et al., "Multi-resource fair sharing for datacenter jobs with placement constraints",
    SC'16 (TSF); the module docstring gives the program solved.

    Examples
    --------
    >>> tsf(Cluster([[9, 18]], [[1, 4], [3, 1]])).tasks.round(6).ravel().tolist()
    [3.0, 2.0]
    """
    as_instance(cluster, Cluster, "cluster")
    opts = _method_options(method, options)
    capped, floors = _with_quotas(cluster, quotas)
    tasks, diag = weighted_maxmin_totals(
        capped, tsf_coefficients(cluster), tol=opts.tol, method=method, floors=floors
    )
    return Allocation.from_diagnostics(cluster, tasks, "tsf", diag)
