"""Linear-programming references (HiGHS) for the max-min fair allocations.

Slow and obviously correct: used by the tests and the notebooks to cross-check the fast kernels.
HiGHS solves each program with a user's tasks in dominant shares
(:func:`fairlib._scaled_lp.scaled_linprog`), so the results scale exactly with the units.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike
from .._scaled_lp import scaled_linprog
from .._validate import (
    InvalidInputError,
    as_capacities,
    as_demands,
    as_real_array,
    as_task_caps,
    as_weights,
    as_tolerance,
    check_labels,
)
from .schedulers.quotas import Quotas, divisible_bounds

__all__ = ["maxmin_lp", "quota_maxmin_lp"]


def maxmin_lp(
    demands: ArrayLike,
    capacity: ArrayLike,
    *,
    weights: ArrayLike | None = None,
    tol: float = 1e-9,
    per_task_share: ArrayLike | None = None,
) -> npt.NDArray[np.float64]:
    """Lexicographic weighted max-min on dominant shares for divisible tasks, by repeated LPs.

    The rounds of :func:`quota_maxmin_lp` without quotas: maximise the common level M of the
    unfrozen users' weighted dominant shares (``tasks_i ds_i / w_i >= M``), then freeze every
    unfrozen user whose share cannot exceed M (one LP per user), fixing it at M.

    Parameters
    ----------
    demands : array_like
        Shape (n_users, n_resources): per-task demands, >= 0, no all-zero row.
    capacity : array_like
        Shape (n_resources,): capacities, > 0.
    weights : array_like or None, default None
        Shape (n_users,): weights > 0; None: all 1.
    tol : float, default 1e-9
        Tolerance of the freezing test: 0 (exact) or from 1e-15 to 0.1
        (:data:`fairlib._validate.TOL_MIN`, ``TOL_MAX``).
    per_task_share : array_like or None, default None
        Shape (n_users,): replaces the dominant share of one task (e.g. the asset share Σ_r d_ir /
        C_r for asset fairness, :func:`~.pooled.asset_fairness`); None: the dominant share.

    Returns
    -------
    numpy.ndarray
        Float64 tasks per user, shape (n_users,).

    Raises
    ------
    InvalidInputError
        On invalid input.

    Examples
    --------
    >>> maxmin_lp([[1, 4], [3, 1]], [9, 18]).round(9).tolist()
    [3.0, 2.0]
    """
    return quota_maxmin_lp(
        demands, capacity, Quotas(), weights=weights, tol=tol, per_task_share=per_task_share
    )


def quota_maxmin_lp(
    demands: ArrayLike,
    capacity: ArrayLike,
    quotas: Quotas,
    *,
    weights: ArrayLike | None = None,
    max_tasks: ArrayLike | None = None,
    tol: float = 1e-9,
    per_task_share: ArrayLike | None = None,
) -> npt.NDArray[np.float64]:
    """Lexicographic weighted max-min on dominant shares for divisible tasks with quotas, by
    repeated LPs.

    The continuous counterpart of ``drf(..., quotas=quotas)`` (``share="dominant"``). Each user's
    tasks lie between its guarantee (``min(min_r G_ir / d_ir, cap_i)``) and its cap (``min(min_r
    L_ir / d_ir, max_tasks_i)``); the guarantees' unlent parts are held back, written with one
    variable per user and resource, ``y_ir >= x_i d_ir``, ``y_ir >= reserved_ir``, ``Σ_i y_ir <=
    capacity_r`` (the convex form of ``Σ_i max(x_i d_i, reserved_i) <= capacity``; without
    reservations, ``Σ_i x_i d_ir <= capacity_r``). Round by round: maximise the common level M of
    the unfrozen users' weighted shares (``coef_i x_i >= M``), then freeze every unfrozen user that
    cannot exceed M while the others keep it (one LP per user), fixing it at M.

    Parameters
    ----------
    demands : array_like
        Shape (n_users, n_resources): per-task demands, >= 0, no all-zero row.
    capacity : array_like
        Shape (n_resources,): capacities, > 0.
    quotas : Quotas
        Guarantees, limits and lending limits, with ``share="dominant"``.
    weights : array_like or None, default None
        Shape (n_users,): weights > 0; None: all 1.
    max_tasks : array_like or None, default None
        Shape (n_users,): per-user caps on tasks (``inf``: none); None: no caps.
    tol : float, default 1e-9
        Tolerance of the freezing test: 0 (exact) or from 1e-15 to 0.1
        (:data:`fairlib._validate.TOL_MIN`, ``TOL_MAX``).
    per_task_share : array_like or None, default None
        Shape (n_users,): replaces the dominant share of one task (e.g. the asset share Σ_r d_ir /
        C_r for asset fairness, :func:`~.pooled.asset_fairness`); None: the dominant share.

    Returns
    -------
    numpy.ndarray
        Float64 tasks per user, shape (n_users,).

    Raises
    ------
    InvalidInputError
        On invalid input or quotas that do not fit the instance.

    Examples
    --------
    >>> quota_maxmin_lp([[1, 4], [3, 1]], [9, 18], Quotas.yarn(min_share=[[4, 16], [0, 0]])).round(
    ...     6
    ... ).tolist()
    [4.0, 1.666667]
    """
    d = as_demands(demands)
    n, m = d.shape
    cap = as_capacities(capacity, n_resources=m, aligned_to=("demands", demands, 1))
    w = as_weights(weights, n, aligned_to=("demands", demands, 0))
    check_labels(("demands", demands, 0), max_tasks=max_tasks, per_task_share=per_task_share)
    max_tasks = as_task_caps(max_tasks, n)
    # HiGHS's tolerances and ``tol`` are absolute in the level (a share over a weight): the weights
    # at unit scale, the largest in [1, 2), exactly, by a power of two (the same allocation)
    w = np.ldexp(w, 1 - int(np.frexp(w.max())[1]))
    tol = as_tolerance(tol, "tol", zero=True)
    if not isinstance(quotas, Quotas) or quotas.share != "dominant":
        raise InvalidInputError(
            "quotas: expected a Quotas with share='dominant' (the borrowed share is not an LP)"
        )
    dominant = (d / cap).max(axis=1)
    share = dominant if per_task_share is None else as_real_array(per_task_share, "per_task_share")
    if share.shape != (n,):
        raise InvalidInputError(
            f"per_task_share: expected shape ({n},) (one per user), got {share.shape}"
        )
    bad = ~(np.isfinite(share) & (share > 0))
    if bad.any():
        i = int(np.argmax(bad))
        raise InvalidInputError(f"per_task_share[{i}] = {share[i]}: must be finite and > 0")
    coef = share / w  # weighted share per task
    quotas._check_labels("demands", demands)
    reserved = quotas.resolve(d, cap).reserved
    lower, upper = divisible_bounds(quotas, d, max_tasks)
    # variables: x (n), then with reservations y (n m, row-major by user), then M
    k = n * m if reserved.shape[0] else 0
    nv = n + k + 1
    a_pack = np.zeros((m, nv))
    a_hold = np.zeros((k, nv))
    if k:
        for i in range(n):
            for r in range(m):
                a_pack[r, n + i * m + r] = 1.0
                a_hold[i * m + r, i], a_hold[i * m + r, n + i * m + r] = d[i, r], -1.0
    else:
        a_pack[:, :n] = d.T
    bounds = (
        [(lo, None if not np.isfinite(hi) else hi) for lo, hi in zip(lower, upper)]
        + [(v, None) for v in reserved.ravel()]
        + [(0, None)]
    )
    # HiGHS solves in units where its absolute tolerances hold, whatever the user's units: a
    # user's tasks in dominant shares, a held-back amount in its resource's capacity
    unit = np.concatenate([1.0 / dominant, np.tile(cap, n) if k else [], [1.0]])
    level = np.full(n, np.nan)
    for _ in range(2 * n + 2):
        free = np.isnan(level)
        if not free.any():
            return level / coef
        # free users: M - coef_i x_i <= 0; frozen users: coef_i x_i == level_i (an equality: a thin
        # band of two inequalities is declared infeasible by HiGHS's presolve)
        raise_rows = np.zeros((int(free.sum()), nv))
        raise_rows[np.arange(len(raise_rows)), np.flatnonzero(free)] = -coef[free]
        raise_rows[:, -1] = 1.0
        a_ub = np.vstack([a_pack, a_hold, raise_rows])
        b_ub = np.concatenate([cap, np.zeros(k), np.zeros(len(raise_rows))])
        frozen = np.flatnonzero(~free)
        a_eq = np.zeros((len(frozen), nv))
        a_eq[np.arange(len(frozen)), frozen] = coef[frozen]
        eq = dict(A_eq=a_eq, b_eq=level[frozen]) if len(frozen) else {}
        c = np.zeros(nv)
        c[-1] = -1.0
        res = scaled_linprog(c, unit=unit, A_ub=a_ub, b_ub=b_ub, bounds=bounds, **eq)
        if res.status != 0:
            raise RuntimeError(f"quota_maxmin_lp: HiGHS failed ({res.message})")
        top = res.x[-1]
        fixed = bounds[:-1] + [(top, top)]
        newly = []
        for j in np.flatnonzero(
            free
        ):  # can user j exceed the level while every free user keeps it?
            cj = np.zeros(nv)
            cj[j] = -coef[j]
            r = scaled_linprog(cj, unit=unit, A_ub=a_ub, b_ub=b_ub, bounds=fixed, **eq)
            if r.status != 0 or -r.fun <= top * (1 + 1e-7) + tol:
                newly.append(j)
        if not newly:  # numerical safety: the free users all reach the level together
            newly = list(np.flatnonzero(free))
        level[newly] = np.maximum(top, coef[newly] * lower[newly])
    raise RuntimeError("quota_maxmin_lp: did not converge")
