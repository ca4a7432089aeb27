"""Linear-programming references (HiGHS) for the max-min fair allocations.

Slow and obviously correct: used by the tests and the notebooks to cross-check the fast kernels.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linprog

from .._validate import InvalidInputError, as_capacities, as_demands, as_weights

__all__ = ["maxmin_lp"]


def maxmin_lp(demands, capacity, *, weights=None, tol: float = 1e-9, per_task_share=None) -> np.ndarray:
    """Lexicographic weighted max-min on dominant shares for divisible tasks, by repeated LPs.

    ``per_task_share`` (n_users,) replaces the dominant share of one task (e.g. the asset share Σ_r d_ir / C_r
    for asset fairness, :func:`~.pooled.asset_fairness`).

    Round by round: maximise the common level M of the unfrozen users' weighted dominant shares
    (``tasks_i ds_i / w_i >= M``), then freeze every unfrozen user whose share cannot exceed M
    (one LP per user), fixing it at M. Returns tasks per user (float).

    >>> maxmin_lp([[1, 4], [3, 1]], [9, 18]).round(9).tolist()
    [3.0, 2.0]
    """
    d = as_demands(demands)
    n, m = d.shape
    cap = as_capacities(capacity, n_resources=m)
    w = as_weights(weights, n)
    share = (d / cap).max(axis=1) if per_task_share is None else np.asarray(per_task_share, dtype=np.float64)
    if share.shape != (n,):
        raise InvalidInputError(f"per_task_share: expected shape ({n},) (one per user), got {share.shape}")
    bad = ~(np.isfinite(share) & (share > 0))
    if bad.any():
        i = int(np.argmax(bad))
        raise InvalidInputError(f"per_task_share[{i}] = {share[i]}: must be finite and > 0")
    coef = share / w           # weighted share per task
    frozen_level = np.full(n, np.nan)
    # variables: tasks (n) then M
    a_cap = np.hstack([d.T, np.zeros((m, 1))])
    bounds = [(0, None)] * n + [(0, None)]
    while np.isnan(frozen_level).any():
        free = np.isnan(frozen_level)
        rows, rhs = [a_cap], [cap]
        # free users: M - coef_i t_i <= 0 ; frozen users: coef_i t_i == level (as two inequalities)
        for i in range(n):
            e = np.zeros(n + 1)
            if free[i]:
                e[i], e[n] = -coef[i], 1.0
                rows.append(e[None]), rhs.append([0.0])
            else:
                e[i] = coef[i]
                rows.append(e[None]), rhs.append([frozen_level[i] * (1 + tol)])
                rows.append(-e[None]), rhs.append([-frozen_level[i]])
        A, b = np.vstack(rows), np.concatenate(rhs)
        c = np.zeros(n + 1)
        c[n] = -1.0
        res = linprog(c, A_ub=A, b_ub=b, bounds=bounds, method="highs")
        if res.status != 0:
            raise RuntimeError(f"maxmin_lp: HiGHS failed ({res.message})")
        level = res.x[n]
        newly = []
        fixed_level = bounds[:n] + [(level, level)]
        for j in np.flatnonzero(free):
            # can user j exceed the level while every free user keeps >= level?
            cj = np.zeros(n + 1)
            cj[j] = -coef[j]
            r = linprog(cj, A_ub=A, b_ub=b, bounds=fixed_level, method="highs")
            if r.status != 0 or -r.fun <= level * (1 + 1e-7) + tol:
                newly.append(j)
        if not newly:  # numerical safety: freeze everyone at this level
            newly = list(np.flatnonzero(free))
        frozen_level[newly] = level
    return frozen_level / coef
