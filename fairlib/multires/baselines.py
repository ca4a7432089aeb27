"""Slow, obviously-correct DRF implementations: benchmark baselines and test references.

Both implement the literal progressive-filling loop (stop at the first task that does not fit, ties
to the lowest index), i.e. ``drf(..., stop="first_blocked", tie_break="lowest_index")``, and accept
``stop="skip_blocked"`` too.
"""

from __future__ import annotations

import heapq

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike

__all__ = ["drf_heapq", "drf_argmin_loop"]


def drf_heapq(
    demands: ArrayLike, capacity: ArrayLike, *, stop: str = "first_blocked"
) -> npt.NDArray[np.int64]:
    """Progressive filling in pure Python with :mod:`heapq`, ties to the lowest index.

    Parameters
    ----------
    demands : array_like
        Shape (n_users, n_resources): per-task demands, >= 0 (not validated).
    capacity : array_like
        Shape (n_resources,): capacities, > 0.
    stop : {"first_blocked", "skip_blocked"}, default "first_blocked"
        Stop at the first task that does not fit (the literal loop), or drop the blocked user and go
        on.

    Returns
    -------
    numpy.ndarray
        Int64 tasks per user, shape (n_users,).

    References
    ----------
    .. [1] A. Ghodsi, M. Zaharia, B. Hindman, A. Konwinski, S. Shenker, I. Stoica, "Dominant
       Resource Fairness: Fair Allocation of Multiple Resource Types", NSDI, 2011, Algorithm 1.

    Examples
    --------
    >>> drf_heapq([[1, 4], [3, 1]], [9, 18]).tolist()
    [3, 2]
    """
    d = [list(map(float, row)) for row in np.asarray(demands, dtype=float)]
    cap = [float(c) for c in np.asarray(capacity, dtype=float)]
    limit = [c * (1 + 1e-12) for c in cap]
    n, m = len(d), len(cap)
    step = [max(d[i][r] / cap[r] for r in range(m)) for i in range(n)]
    used = [0.0] * m
    tasks = [0] * n
    heap = [(0.0, i) for i in range(n)]
    heapq.heapify(heap)
    while heap:
        _, i = heap[0]
        if any(used[r] + d[i][r] > limit[r] for r in range(m)):
            if stop == "first_blocked":
                break
            heapq.heappop(heap)
            continue
        for r in range(m):
            used[r] += d[i][r]
        tasks[i] += 1
        heapq.heapreplace(heap, (tasks[i] * step[i], i))
    return np.array(tasks, dtype=np.int64)


def drf_argmin_loop(
    demands: ArrayLike, capacity: ArrayLike, *, stop: str = "first_blocked"
) -> npt.NDArray[np.int64]:
    """Progressive filling "as published": ``argmin`` over all shares at every step (O(n) per task).

    Parameters
    ----------
    demands : array_like
        Shape (n_users, n_resources): per-task demands, >= 0 (not validated).
    capacity : array_like
        Shape (n_resources,): capacities, > 0.
    stop : {"first_blocked", "skip_blocked"}, default "first_blocked"
        Stop at the first task that does not fit (the literal loop), or drop the blocked user and go
        on.

    Returns
    -------
    numpy.ndarray
        Int64 tasks per user, shape (n_users,).

    References
    ----------
    .. [1] A. Ghodsi, M. Zaharia, B. Hindman, A. Konwinski, S. Shenker, I. Stoica, "Dominant
       Resource Fairness: Fair Allocation of Multiple Resource Types", NSDI, 2011, Algorithm 1.

    Examples
    --------
    >>> drf_argmin_loop([[1, 4], [3, 1]], [59, 19]).tolist()
    [2, 8]
    """
    d = np.asarray(demands, dtype=float)
    cap = np.asarray(capacity, dtype=float)
    limit = cap * (1 + 1e-12)
    step = (d / cap).max(axis=1)
    share = np.zeros(len(d))
    tasks = np.zeros(len(d), dtype=np.int64)
    used = np.zeros(len(cap))
    while True:
        i = int(np.argmin(share))
        if not np.isfinite(share[i]):
            break
        if np.any(used + d[i] > limit):
            if stop == "first_blocked":
                break
            share[i] = np.inf
            continue
        used += d[i]
        tasks[i] += 1
        share[i] = tasks[i] * step[i]
    return tasks
