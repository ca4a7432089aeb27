"""DRFH and TSF: weighted max-min on a per-user share of the *total* tasks, placed on heterogeneous
servers.

Both equalise a per-user quantity q_n x_n / φ_n of the total tasks x_n = Σ_i x[n, i], subject to
every server's capacities and the placement constraints (reconstructions §5.1, [INF] for the
formulas):

- **DRFH** (Wang et al.): q_n = max_r d[n, r] / C_r, the global dominant share per task against the
  pooled capacities C = Σ_i c[i, :] (eq. 5);
- **TSF** (Wang et al., SC'16): q_n = 1 / γ_n with γ_n = Σ_i γ[n, i] the tasks n could run
  monopolising every server that has the resources it needs, *ignoring* placement constraints.

The lexicographic max-min is computed by progressive filling with exact freezing, each round one LP:
maximise the common level t of the unfrozen users (frozen users keep their levels); then freeze
every user whose level constraint has a positive dual. A positive dual in one optimal dual solution
forces that constraint to be tight in every optimal primal solution (strict complementary
slackness), so no user is frozen early; at least one dual is positive (they sum to 1), so every
round freezes someone.

Two solvers for the rounds' LPs:

- ``method="interior_point"`` (default): :mod:`.maxmin_interior`, an interior-point method
  specialised to the LP's structure (one dense system on the servers' capacity rows per iteration).
  Its solution is strictly complementary, so a round freezes *every* blocked user at once.
- ``method="highs"``: the generic reference, HiGHS on the full LP. Its vertex duals may leave
  blocked users with a zero dual; they are frozen in a later round at the same level.

Weights. The program is unchanged by a common factor of the weights, so they are normalised to a
largest of 1 (φ_n), and HiGHS's level rows read φ_n t <= q_n x_n: a row's dual is then in units of
level per task whatever the weight, so a small weight neither hides a blocked user below the
freezing threshold nor puts a coefficient q_n / φ_n out of HiGHS's range. Every user's tasks end
scaled to the level it was frozen at, which the rounds find to the solvers' relative accuracy
(a solver's slack in level units is a large relative error in a small-weight user's tasks). The
interior point's blocked indicator (a dual's share) shrinks with the weight, so weights more than
1e3 apart are solved by HiGHS's rounds; weights more than :data:`MAX_WEIGHT_RATIO` apart are
refused (a user's tasks are found to about the solvers' tolerance times the weights' ratio).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import numpy as np
from scipy.sparse import coo_matrix, vstack

from ..._jit import interpreted_when_small
from ..._scaled_lp import scaled_linprog
from ..._validate import (
    MAX_ITERATIONS,
    InvalidInputError,
    _short,
    as_count,
    as_instance,
    as_real_array,
    check_choice,
    as_tolerance,
)
from .._engine.options import MethodOptions
from ..cluster import Allocation, Cluster, monopoly_tasks, placement_capacity_rows
from ..schedulers.quotas import Quotas, divisible_bounds
from ._highs import HighsOptions, _maxmin_highs
from ._interior_point import InteriorPointOptions, _maxmin_interior
from ._rounds import _FREEZE_SLACK

__all__ = [
    "drfh",
    "tsf",
    "weighted_maxmin_totals",
    "drfh_coefficients",
    "tsf_coefficients",
    "MAX_WEIGHT_RATIO",
]


_METHODS = ("interior_point", "highs")

#: the most the weights of a ``drfh`` or ``tsf`` instance may be apart (largest / smallest): a
#: user's tasks are found to about the solvers' tolerance times the weights' ratio, relative, so
#: wider weights are refused by name rather than answered wrongly
MAX_WEIGHT_RATIO = 1e6

#: weights further apart than this are solved by HiGHS's rounds even with
#: ``method="interior_point"``: the interior point tells a blocked user from a free one by its
#: dual's share, which shrinks with its weight below what the solver resolves
_INTERIOR_WEIGHT_RATIO = 1e3


#: each method's option type
METHOD_OPTIONS = {"interior_point": InteriorPointOptions, "highs": HighsOptions}


def _check_weight_ratio(cluster: Cluster) -> None:
    """Refuse weights more than :data:`MAX_WEIGHT_RATIO` apart, naming the smallest."""
    w = cluster.weight
    lo, hi = int(np.argmin(w)), int(np.argmax(w))
    if w[hi] > MAX_WEIGHT_RATIO * w[lo]:
        raise InvalidInputError(
            f"weight[{lo}] = {w[lo]:g}: drfh and tsf take weights at most {MAX_WEIGHT_RATIO:g} "
            f"times apart, and weight[{hi}] = {w[hi]:g} is {w[hi] / w[lo]:.3g} times as large "
            "(the smallest users' tasks would be below the solvers' accuracy)"
        )


def _method_options(method, options) -> MethodOptions:
    check_choice(method, _METHODS, "method")
    return METHOD_OPTIONS[method].of(options, method)


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
    """q_n = 1 / γ_n, γ_n = Σ_i min_r c[i, r] / d[n, r] over *all* servers with the needed
    resources.

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

    ``method``: "interior_point" (default) or "highs" (the reference; see the module docstring).
    ``tol``: the interior point's stopping tolerance, or the dual above which HiGHS's duals freeze a
    user. ``floors`` (n,): guaranteed total tasks per user (within its cap; they must be placeable
    together, else the first user whose floor breaks that is named): a user waits at its floor's
    level until the common level reaches it, then rises with the others.
    Returns (tasks[n, i], diagnostics: rounds, levels per user, LP count, method).

    Parameters
    ----------
    cluster : Cluster
        The instance.
    q : (N,) array_like
        The coefficients q_n > 0.
    tol : float
        The interior point's stopping tolerance, or the dual above which HiGHS's duals freeze a
        user; from 1e-15 to 0.1.
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
        Rounds, levels per user, LP count, method (``"highs"`` when weights more than 1e3 apart
        sent ``method="interior_point"`` to HiGHS's rounds).

    Raises
    ------
    InvalidInputError
        On a bad argument, floors that cannot be placed together, or ``cluster.weight`` spread
        more than :data:`MAX_WEIGHT_RATIO` apart.
    """
    as_instance(cluster, Cluster, "cluster")
    _check_weight_ratio(cluster)
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
    # the max-min is unchanged by a common factor of the weights: normalised to a largest of 1, the
    # levels per task q / phi stay within the weights' ratio of q whatever the weights' scale
    w_max = float(cluster.weight.max())
    phi = cluster.weight / w_max
    interior = method == "interior_point" and phi.min() * _INTERIOR_WEIGHT_RATIO >= 1.0
    solve = _maxmin_interior if interior else _maxmin_highs
    tasks, diag = solve(cluster, q / phi, phi, tol, max_rounds, floors)
    diag["levels"] = diag["levels"] / w_max  # levels of q x / weight, as documented
    return tasks, diag


def _floors_placeable(cluster: Cluster, floors) -> bool:
    """Whether some placement gives every user its floor (within the rounds' slack): one HiGHS
    feasibility LP (a pair's tasks in the tasks the user could run alone there)."""
    users, servers, a_cap = placement_capacity_rows(cluster)
    p = len(users)
    need = np.flatnonzero(floors > 0)
    a_floor = coo_matrix(
        (-np.ones(p), (np.searchsorted(need, users), np.arange(p))), shape=(need.size + 1, p)
    ).tocsr()[: need.size]  # users without a floor fall in the dropped last row
    res = scaled_linprog(
        np.zeros(p),
        unit=cluster.gamma[users, servers],
        A_ub=vstack([a_cap.tocsr(), a_floor]).tocsr(),
        b_ub=np.concatenate([cluster.capacity.ravel(), -floors[need] * (1 - _FREEZE_SLACK)]),
        bounds=(0, None),
    )
    return res.status == 0


def _check_floors(cluster: Cluster, floors) -> None:
    """Floors the rounds could not meet, refused before any round (HiGHS reported the first round
    infeasible), naming the first user whose floor breaks them: above its cap, above what it could
    place alone, or not placeable together with the floors of the users before it (found by
    bisection: one LP per halving)."""
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
        f"floors[{lo}] = {floors[lo]:g}: user {lo}'s floor cannot be placed together with "
        f"the floors of {before} (the floors must be placeable together)"
    )


def _with_quotas(cluster: Cluster, quotas) -> tuple[Cluster, np.ndarray | None]:
    """The cluster with each user's cap lowered to its limit, and the guaranteed total tasks
    (floors), for :class:`~.quotas.Quotas` given as vectors of the pooled capacity; ``(cluster,
    None)`` without quotas."""
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
    quotas._check_labels("cluster.demand", cluster.labels)
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
    """Refuse guarantees whose tasks cannot all be placed together (servers' capacities, placement
    constraints): one HiGHS feasibility LP, in the units of :func:`_floors_placeable`."""
    users, servers, a_cap = placement_capacity_rows(cluster)
    p = len(users)
    a_tot = coo_matrix((-np.ones(p), (users, np.arange(p))), shape=(cluster.n_users, p))
    res = scaled_linprog(
        np.zeros(p),
        unit=cluster.gamma[users, servers],
        A_ub=vstack([a_cap, a_tot]).tocsr(),
        b_ub=np.concatenate([cluster.capacity.ravel(), -floors]),
        bounds=(0, None),
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
    """DRFH: weighted max-min on global dominant shares x_n max_r d[n, r] / C_r (pooled C), placed
    on servers.

    Parameters
    ----------
    cluster : Cluster
        The instance (weights, placement constraints and per-user caps honoured).
    method : {"interior_point", "highs"}
        The algorithm: the structured interior point, round by round (default), or HiGHS's LPs (the
        reference); see :func:`weighted_maxmin_totals`.
    options : mapping, optional
        The method's own options, checked against ``METHOD_OPTIONS[method]`` (an option the method
        does not take is refused): ``tol``, the interior point's stopping tolerance or the dual
        above which HiGHS's duals freeze a user (default 1e-9, at most 0.1).
    quotas : Quotas, optional
        Guarantees and limits as vectors of the pooled capacity (YARN's min/max shares; lending
        limits and Kueue's borrowed share are pooled rules, refused here): each user's tasks lie
        between ``min_r G_nr / d_nr`` (the guarantees must be placeable together) and ``min_r L_nr /
        d_nr``; a guaranteed user waits at its guarantee until the others' shares reach it.

    Returns
    -------
    Allocation
        Tasks per (user, server); diagnostics: rounds, levels per user, LP count, method.

    Raises
    ------
    InvalidInputError
        On a bad argument, or weights more than :data:`MAX_WEIGHT_RATIO` (1e6) apart (named
        ``weight``, with the smallest's index and value).

    References
    ----------
    W. Wang, B. Liang, B. Li, "Multi-resource fair allocation in heterogeneous cloud computing
    systems", IEEE TPDS 2015 (DRFH); the module docstring gives the program solved.

    Examples
    --------
    >>> c = Cluster([[9, 18]], [[1, 4], [3, 1]])    # one server: DRF
    >>> drfh(c).tasks.round(6).ravel().tolist()
    [3.0, 2.0]
    """
    as_instance(cluster, Cluster, "cluster")
    _check_weight_ratio(cluster)
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
    """TSF: weighted max-min on x_n / γ_n (γ_n: monopoly tasks on every server, placement
    ignored).

    Parameters
    ----------
    cluster : Cluster
        The instance (weights, placement constraints and per-user caps honoured).
    method : {"interior_point", "highs"}
        The algorithm: the structured interior point, round by round (default), or HiGHS's LPs (the
        reference); see :func:`weighted_maxmin_totals`.
    options : mapping, optional
        The method's own options, checked against ``METHOD_OPTIONS[method]`` (an option the method
        does not take is refused): ``tol``, the interior point's stopping tolerance or the dual
        above which HiGHS's duals freeze a user (default 1e-9, at most 0.1).
    quotas : Quotas, optional
        Guarantees and limits, as :func:`drfh` takes them.

    Returns
    -------
    Allocation
        Tasks per (user, server); diagnostics: rounds, levels per user, LP count, method.

    Raises
    ------
    InvalidInputError
        On a bad argument, or weights more than :data:`MAX_WEIGHT_RATIO` (1e6) apart, as
        :func:`drfh`.

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
    _check_weight_ratio(cluster)
    opts = _method_options(method, options)
    capped, floors = _with_quotas(cluster, quotas)
    tasks, diag = weighted_maxmin_totals(
        capped, tsf_coefficients(cluster), tol=opts.tol, method=method, floors=floors
    )
    return Allocation.from_diagnostics(cluster, tasks, "tsf", diag)
