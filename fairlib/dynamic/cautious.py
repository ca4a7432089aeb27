"""Cautious LP — a labelled RECONSTRUCTION [INF] of Kash, Procaccia & Shah's second mechanism.

The exact program of KPS's "cautious LP" could not be recovered (reconstructions §3.4 [NR]). What
is known: it violates DPO, allocates too much at the last steps, keeps SI and (static) EF among
present agents, and reaches a near-optimal maxmin value at the last step. This module implements the
constraint set reconstructed in reconstructions §3.4 [INF]:

- irrevocability: x_i^k >= x_i^{k-1};
- envy-freeness among present agents under Leontief preferences: x_i >= x_j min_r (d_jr / d_ir);
- a reserve for the n - k agents still to come, whose worst case clones the richest present agent:
  sum_{i<=k} d_ir x_i + (n - k) z <= 1 for every r, with z >= x_i and z >= 1/n;

with the objective (unknown in the original) chosen here as: maximise the minimum share M, then,
with M fixed, maximise the sum of shares. Nothing here is KPS's LP; every plot that shows it says
[INF].
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike
from scipy.optimize import linprog

from .drf import _planned_agents, normalize_demands

__all__ = ["cautious_lp"]


#: HiGHS's primal feasibility tolerance (its default): how far its answer may break a row
_FEASIBILITY = 1e-7


def cautious_lp(demands: ArrayLike, n: int | None = None) -> dict[str, npt.NDArray[np.float64]]:
    """Run the cautious-LP reconstruction [INF] over all arrivals (module doc: the constraints and
    objective).

    Parameters
    ----------
    demands : array_like
        Shape (K, m): demands in arrival order, >= 0 with no all-zero row (normalised here).
    n : int or None, default None
        The number of agents planned for, >= K; None: K.

    Returns
    -------
    dict
        ``"levels"``: (K,) min share per step; ``"maxsum"``: (K,) sum of shares per step;
        ``"final_shares"``: (K,); ``"used_max"``: (K,) largest resource use per step.

    Raises
    ------
    InvalidInputError
        On invalid demands or ``n`` below K.
    RuntimeError
        When HiGHS fails on a step's LP.
    """
    d = normalize_demands(demands)
    K, m = d.shape
    n = _planned_agents(K if n is None else n, K)
    prev = np.zeros(0)
    levels, maxsum, used_max = np.zeros(K), np.zeros(K), np.zeros(K)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(d[None, :, :] > 0, d[:, None, :] / d[None, :, :], np.inf).min(axis=2)
    # the LPs work in units of 1/n (y = n x, w = n z; the reserve row divided by n): shares of order
    # 1/n fall below HiGHS's absolute tolerances once n is large, while y, w and M stay of order 1
    # whatever n is; present agents' entries d_ir / n of the reserve row below HiGHS's smallest
    # matrix entry (1e-9) count as 0, which moves the answer by less than its feasibility tolerance
    for k in range(1, K + 1):
        # variables: y_1..y_k, w, M
        nv = k + 2
        iz, im = k, k + 1
        rows: list[npt.NDArray[np.float64]] = []
        rhs: list[ArrayLike] = []
        a = np.zeros((m, nv))
        a[:, :k] = d[:k].T / n
        a[:, iz] = (n - k) / n
        rows.append(a)
        rhs.append(np.ones(m))
        for i in range(k):
            e = np.zeros(nv)
            e[i], e[iz] = 1.0, -1.0  # y_i <= w
            rows.append(e[None])
            rhs.append([0.0])
            e = np.zeros(nv)
            e[im], e[i] = 1.0, -1.0  # M <= y_i
            rows.append(e[None])
            rhs.append([0.0])
        # EF: y_j * min_r d_jr/d_ir - y_i <= 0   (ratio[j, i] = min_r d_jr / d_ir)
        ef = np.zeros((k * k, nv))
        jj, ii = np.meshgrid(np.arange(k), np.arange(k), indexing="ij")
        mask = jj.ravel() != ii.ravel()
        rr = np.arange(k * k)
        ef[rr, jj.ravel()] += ratio[:k, :k].ravel()
        ef[rr, ii.ravel()] -= 1.0
        rows.append(ef[mask])
        rhs.append(np.zeros(mask.sum()))
        A, b = np.vstack(rows), np.concatenate([np.atleast_1d(v) for v in rhs])
        # y_i >= the last step's y_i (allocations are irrevocable), less HiGHS's feasibility
        # tolerance: the last step's answer holds its rows only up to that tolerance, so asking
        # the next program to hold them exactly at that point can leave it infeasible (seen on real
        # Google requests at n = 20 to 100); y = max(y, prev) below keeps the steps monotone
        bounds = [(p - _FEASIBILITY, None) for p in prev] + [(0, None), (1.0, None), (0, None)]
        c = np.zeros(nv)
        c[im] = -1.0
        res = linprog(c, A_ub=A, b_ub=b, bounds=bounds, method="highs")
        if res.status != 0:
            raise RuntimeError(f"cautious_lp: HiGHS failed at step {k}: {res.message}")
        level = res.x[im]
        bounds[im] = (level * (1 - 1e-9), None)
        c2 = np.zeros(nv)
        c2[:k] = -1.0
        res2 = linprog(c2, A_ub=A, b_ub=b, bounds=bounds, method="highs")
        y = res2.x[:k] if res2.status == 0 else res.x[:k]
        y = np.maximum(y, np.append(prev, 0.0))
        prev = y
        x = y / float(n)
        levels[k - 1], maxsum[k - 1] = x.min(), x.sum()
        used_max[k - 1] = (x @ d[:k]).max()
    return {
        "levels": levels,
        "maxsum": maxsum,
        "final_shares": prev / float(n),
        "used_max": used_max,
    }
