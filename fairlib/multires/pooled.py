"""Single-pool mechanisms on the common contract ``mechanism(cluster, **options) -> Allocation``.

A single pool of resources is a one-server :class:`~.cluster.Cluster` (:meth:`Cluster.single_pool`).
DRF, EDRF and PDRF keep their array signatures (``drf(demands, capacity)``, used by the papers'
checks) and accept a cluster in their place; asset fairness and CEEI are defined here. Every user
has Leontief preferences: it values a bundle by the tasks it runs with it
(:func:`~.cluster.leontief_tasks`).

- **asset fairness** (Ghodsi et al., NSDI 2011, §6.1): weighted max-min on each user's *asset
  share*, the sum over resources of its shares, Σ_r x_n d[n, r] / C_r, for divisible tasks;
- **CEEI** (competitive equilibrium from equal incomes, ibid. §6.2; for Leontief users the
  Eisenberg–Gale program, i.e. Nash bargaining and proportional fairness): max Σ_n w_n log x_n
  over the pool, with the market prices that support it (budgets = weights).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike
from scipy.optimize import nnls

from .._jit import interpreted_when_small
from .._validate import InvalidInputError, as_instance
from .cluster import Allocation, Cluster, pool_arrays, pool_column
from .edrf import edrf_allocation, pdrf_allocation
from .progressive_filling import drf_allocation

__all__ = [
    "pool_arrays",
    "drf_allocation",
    "edrf_allocation",
    "pdrf_allocation",
    "asset_fairness",
    "ceei",
    "asset_share_per_task",
]

#: relative KKT residual above which CEEI's prices are reported as not converged
PRICE_RESIDUAL_TOL = 1e-6


def asset_share_per_task(cluster: Cluster) -> npt.NDArray[np.float64]:
    """a_n = Σ_r d[n, r] / C_r: the asset share of one of user n's tasks (single pool).

    Parameters
    ----------
    cluster : Cluster
        A one-server cluster.

    Returns
    -------
    numpy.ndarray
        Float64, shape (n_users,).

    Raises
    ------
    InvalidInputError
        When ``cluster`` is not a single-pool Cluster.
    """
    as_instance(cluster, Cluster, "cluster")
    cap, dem, _ = pool_arrays(cluster, "asset fairness", caps=True)
    return (dem / cap).sum(axis=1)


@interpreted_when_small
def asset_fairness(cluster: Cluster, *, start: ArrayLike | None = None) -> Allocation:
    """Asset fairness for divisible tasks: progressive filling that equalises weighted asset shares
    a_n x_n / w_n.

    Every unfrozen user's weighted asset share rises at one rate, freezing the users that demand a
    saturated resource, until every user is frozen. ``start`` (tasks each user holds): continue from
    there, as :func:`~.edrf.edrf` does; a capped user (``cluster.max_tasks``) freezes at its cap.

    This is EDRF's water-filling with one per-task share replaced by another, so it runs on EDRF's
    O(nm) kernel: EDRF equalises s_n x_n / w'_n with s_n the dominant share, and w'_n = w_n s_n /
    a_n makes that a_n x_n / w_n. Reference: :func:`~.lp.maxmin_lp` with ``per_task_share=a``
    (HiGHS), differential test in the suite.

    Parameters
    ----------
    cluster : Cluster
        A one-server cluster (weights and ``max_tasks`` from it).
    start : array_like or None, default None
        Shape (n_users,) or (n_users, 1) (a Cluster result's ``tasks``): divisible tasks each user
        already holds, >= 0, fitting the capacity.

    Returns
    -------
    Allocation
        Float tasks, shape (n_users, 1).

    Raises
    ------
    InvalidInputError
        When ``cluster`` is not a single-pool Cluster, or ``start`` is invalid.

    References
    ----------
    .. [1] A. Ghodsi, M. Zaharia, B. Hindman, A. Konwinski, S. Shenker, I. Stoica, "Dominant
       Resource Fairness: Fair Allocation of Multiple Resource Types", NSDI, 2011, §6.1.

    Examples
    --------
    >>> asset_fairness(Cluster.single_pool([9, 18], [[1, 4], [3, 1]])).tasks.ravel().round(
    ...     6
    ... ).tolist()
    [2.52, 2.16]
    """
    as_instance(cluster, Cluster, "cluster")
    from .edrf import edrf

    cap, dem, w = pool_arrays(cluster, "asset fairness", caps=True)
    dominant = (dem / cap).max(axis=1)
    asset = asset_share_per_task(cluster)
    res = edrf(
        dem,
        cap,
        weights=w * dominant / asset,
        start=start,
        max_tasks=cluster.max_tasks if cluster.capped else None,
    )
    return Allocation(
        cluster,
        pool_column(res.tasks),
        "asset_fairness",
        iterations=int(res.rounds),
        extras={"asset_shares": asset * res.tasks, "rounds": int(res.rounds)},
    )


@interpreted_when_small
def ceei(cluster: Cluster, *, start: ArrayLike | None = None) -> Allocation:
    """Competitive equilibrium from equal incomes (CEEI) for Leontief users, with the resource
    prices.

    Each user has a budget (its weight), buys the bundle that runs the most tasks at prices p[r],
    and the market clears. For Leontief users it is the Eisenberg–Gale optimum, max Σ_n w_n log
    x_n subject to Σ_n x_n d[n, r] <= C_r (so also Nash bargaining and proportional fairness), and
    p are its resource multipliers.

    The tasks come from :func:`~.pfvds.pfvds` with α = 1 on the one server (where PF-VDS is exactly
    this program); the prices from the optimality conditions w_n / x_n = Σ_r d[n, r] p_r on the
    saturated resources (non-negative least squares; zero on the others). ``converged`` is False if
    the price residual exceeds :data:`PRICE_RESIDUAL_TOL` or the solver did not converge.

    Per-user caps (``max_tasks``): the same program with x_n <= max_tasks[n]. A capped user at its
    cap spends at most its budget (at the prices it would want more); the others trade what the
    capped users leave, each spending its budget. Solved like ``start`` below, with the caps as
    upper bounds: capped users fixed at their caps, the market run on what they leave, users moved
    between the sets until no free user wants more than its cap and no fixed user less
    (``extras["capped"]``, ``extras["rounds"]``). Reference: SLSQP on the program
    (``tests/test_task_caps.py``). Not with ``start``.

    ``start``: nothing is taken back. A market is not a filling, so "continue from here" means the
    same program over the allocations that keep what everyone holds: max Σ_n w_n log x_n subject to
    the capacities and x_n >= start_n. A user whose budget would buy less than it holds keeps its
    holding, worth more than its budget at the prices (``extras["held"]`` marks them; so does one
    that needs a resource the holdings fill); the others trade what is left at prices that clear it,
    each spending its budget. Solved by fixing the held users and running the market on what is
    left, moving users between the two sets until no free user wants less than it holds and no held
    user wants more (``extras["rounds"]``). Reference: the same program by a general convex solver
    (``tests/test_pooled_start.py``).

    Parameters
    ----------
    cluster : Cluster
        A one-server cluster (weights as budgets, ``max_tasks`` from it).
    start : array_like or None, default None
        Shape (n_users,) or (n_users, 1) (a Cluster result's ``tasks``): divisible tasks each user
        already holds, >= 0, fitting the capacity.

    Returns
    -------
    Allocation
        Float tasks, shape (n_users, 1). ``extras``: ``prices[resource]``, ``spending[user]`` (= the
        budget at an equilibrium), ``price_residual`` (relative).

    Raises
    ------
    InvalidInputError
        When ``cluster`` is not a single-pool Cluster, ``start`` is invalid, or both caps and
        ``start`` are given.

    References
    ----------
    .. [1] A. Ghodsi, M. Zaharia, B. Hindman, A. Konwinski, S. Shenker, I. Stoica, "Dominant
       Resource Fairness: Fair Allocation of Multiple Resource Types", NSDI, 2011, §6.2.

    Examples
    --------
    >>> res = ceei(Cluster.single_pool([9, 18], [[1, 4], [3, 1]]))
    >>> res.tasks.ravel().round(4).tolist(), res.extras["prices"].round(4).tolist()
    ([4.0909, 1.6364], [0.2, 0.0111])
    >>> res.extras["spending"].round(9).tolist()      # each user spends exactly its budget
    [1.0, 1.0]

    Holding 2 tasks where the market gives 1.64, the second user keeps them; the first trades for
    what is left:

    >>> ceei(Cluster.single_pool([9, 18], [[1, 4], [3, 1]]), start=[1, 2]).tasks.ravel().round(
    ...     4
    ... ).tolist()
    [3.0, 2.0]
    """
    as_instance(cluster, Cluster, "cluster")
    from ._engine.filling import _start_amounts

    cap, dem, w = pool_arrays(cluster, "ceei", caps=True)
    held = _start_amounts(start, dem, cap)
    if cluster.capped:
        if held is not None:
            raise InvalidInputError(
                "start: ceei takes a start or per-user caps (max_tasks), not both"
            )
        return _ceei_capped(cluster)
    if held is not None:
        return _ceei_from(cluster, held)

    from .pfvds import pfvds

    solved = pfvds(cluster, 1.0)
    x = solved.totals
    saturated = dem.T @ x >= cap * (1 - 1e-7)
    served = x > 0
    prices = np.zeros(cluster.n_resources)
    target = w[served] / x[served]
    if saturated.any() and served.any():
        prices[saturated], _ = nnls(dem[served][:, saturated], target)
    residual = (
        float(np.abs(dem[served] @ prices - target).max() / target.max()) if served.any() else 0.0
    )
    ok = solved.converged and residual <= PRICE_RESIDUAL_TOL
    message = (
        ""
        if ok
        else (
            f"prices do not support the allocation (relative residual {residual:.2g})"
            if solved.converged
            else "the Eisenberg-Gale solve did not converge"
        )
    )
    return Allocation(
        cluster,
        solved.tasks,
        "ceei",
        converged=ok,
        iterations=solved.iterations,
        residual=residual,
        message=message,
        extras={
            "prices": prices,
            "spending": x * (dem @ prices),
            "price_residual": residual,
            "held": np.zeros(len(w), dtype=bool),
            "capped": np.zeros(len(w), dtype=bool),
        },
    )


def _fixed_set_result(cluster, x, prices, fixed, solved_ok, message, rounds, kind) -> Allocation:
    """The Allocation of a market run with the ``fixed`` users set aside (``kind``: "held" at their
    holdings or "capped" at their caps): the free users must spend their budgets at ``prices``
    (``price_residual``)."""
    _, dem, w = pool_arrays(cluster, "ceei", caps=True)
    spending = x * (dem @ prices)
    free = ~fixed
    residual = float(np.abs(spending[free] - w[free]).max() / w[free].max()) if free.any() else 0.0
    ok = solved_ok and residual <= PRICE_RESIDUAL_TOL
    if not ok and not message:
        message = (
            "the Eisenberg-Gale solve did not converge"
            if not solved_ok
            else f"prices do not support the allocation (relative residual {residual:.2g})"
        )
    sets = {
        "held": np.zeros(len(w), dtype=bool),
        "capped": np.zeros(len(w), dtype=bool),
        kind: fixed,
    }
    return Allocation(
        cluster,
        x[:, None],
        "ceei",
        converged=ok,
        iterations=rounds,
        residual=residual,
        message=message,
        extras={
            "prices": prices,
            "spending": spending,
            "price_residual": residual,
            **sets,
            "rounds": rounds,
        },
    )


def _ceei_capped(cluster: Cluster) -> Allocation:
    """:func:`ceei` with per-user caps (see its docstring): users fixed at their caps, the market on
    what they leave, users moved into and out of the capped set until the optimality conditions hold
    for both."""
    cap, dem, w = pool_arrays(cluster, "ceei", caps=True)
    limit = cluster.max_tasks
    n, m = dem.shape
    fixed = limit <= 0  # a cap of 0: the user holds nothing, whatever the prices
    solved_ok, message = True, ""
    x, prices = np.zeros(n), np.zeros(m)
    for rounds in range(
        1, 2 * n + 3
    ):  # a round moves users between the sets; cycling is reported below
        x = np.where(fixed, limit, 0.0)
        prices = np.zeros(m)
        free = ~fixed
        left = cap - x[fixed] @ dem[fixed]
        keep = left > cap * 1e-12
        if free.any():
            if (dem[free][:, ~keep] > 0).any():
                solved_ok, message = (
                    False,
                    "the capped users' caps fill a resource a free user needs",
                )
                break
            sub = ceei(Cluster.single_pool(left[keep], dem[free][:, keep], weight=w[free]))
            solved_ok = sub.converged
            x[free] = sub.tasks.ravel()
            prices[keep] = sub.extras["prices"]
        over = free & (x > limit * (1 + 1e-9))
        wants_less = fixed & (limit > 0) & (dem @ prices * limit > w * (1 + 1e-9))
        if not over.any() and not wants_less.any():
            break
        fixed = (fixed | over) & ~wants_less
    else:
        solved_ok, message = False, "capped and free users kept changing places"
    return _fixed_set_result(cluster, x, prices, fixed, solved_ok, message, rounds, "capped")


def _ceei_from(cluster: Cluster, held: np.ndarray) -> Allocation:
    """:func:`ceei` keeping ``held`` (see its docstring): the market on what the held users leave,
    users moved into and out of the held set until the optimality conditions hold for both."""
    cap, dem, w = pool_arrays(cluster, "ceei")
    n, m = dem.shape
    fixed = np.zeros(n, dtype=bool)
    solved_ok, message = True, ""
    for rounds in range(
        1, 2 * n + 3
    ):  # a round moves users between the sets; cycling is reported below
        left = cap - held[fixed] @ dem[fixed]
        full = left <= cap * 1e-12
        needs_full = (dem[:, full] > 0).any(axis=1)  # cannot grow whatever the prices
        if (~fixed & needs_full).any():
            fixed |= needs_full
            continue
        free = ~fixed
        x, prices = held.copy(), np.zeros(m)
        if free.any():
            sub = ceei(Cluster.single_pool(left[~full], dem[free][:, ~full], weight=w[free]))
            solved_ok = sub.converged
            x[free] = sub.tasks.ravel()
            prices[~full] = sub.extras["prices"]
        # a full resource costs what makes the held users needing it want no more than they hold (w
        # / x <= d . p)
        for r in np.flatnonzero(full):
            users = needs_full & (dem[:, r] > 0) & (held > 0)
            want = (w[users] / held[users] - dem[users] @ prices) / dem[users, r]
            prices[r] = max(0.0, float(want.max())) if users.any() else 0.0
        below = free & (x < held * (1 - 1e-9))
        wants_more = fixed & ~needs_full & (dem @ prices * held < w * (1 - 1e-9))
        if not below.any() and not wants_more.any():
            break
        fixed = (fixed | below) & ~wants_more
    else:
        solved_ok, message = False, "held and free users kept changing places"
    starved = np.flatnonzero(needs_full & (held == 0))
    if starved.size and not message:
        solved_ok = False
        message = (
            f"user {int(starved[0])} holds nothing and needs a resource the others' holdings "
            "fill: log 0, "
            "the program has no finite optimum (every feasible allocation leaves it at 0)"
        )
    return _fixed_set_result(cluster, x, prices, fixed, solved_ok, message, rounds, "held")
