"""DRF by progressive filling for indivisible tasks (Ghodsi et al. 2011, Algorithm 1).

A 4-ary heap keyed on (weighted dominant share, tie-break, index) picks the user with the lowest
share; each pick costs O(m + log n), so a run costs O(n + T (m + log n)) for T allocated tasks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from .._validate import InvalidInputError, as_capacities, as_demands, as_weights, check_task_bound

__all__ = ["drf", "DRFResult", "STOP_RULES", "TIE_BREAKS", "FIT_RTOL"]

STOP_RULES = ("skip_blocked", "first_blocked")
TIE_BREAKS = ("lowest_index", "higher_share")
#: a task fits when consumed + demand <= capacity * (1 + FIT_RTOL): absorbs float round-off only
FIT_RTOL = 1e-12
_MAX_RECORDED = 10_000_000


@dataclass(frozen=True)
class DRFResult:
    """Outcome of progressive filling.

    Attributes
    ----------
    tasks : (n_users,) int64 — tasks allocated to each user.
    consumed : (n_resources,) float64 — resources used by all tasks.
    dominant_shares : (n_users,) float64 — tasks * max_r demand[i, r] / capacity[r] (unweighted).
    n_allocations : int — number of allocation steps (= tasks.sum()).
    blocked_user : int — first_blocked: the user whose task did not fit (-1 if the loop ended
        because every user reached its cap); skip_blocked: -1.
    order : (n_allocations,) int64 or None — users in allocation order (``record_order=True``).
    work : int — element operations of the filling loop (demand entries read, heap entries compared), counted
        by the kernel: the machine-independent measure of its O(T (m + log n)) cost.
    """

    tasks: np.ndarray
    consumed: np.ndarray
    dominant_shares: np.ndarray
    n_allocations: int
    blocked_user: int
    order: np.ndarray | None = None
    work: int = 0


@njit(cache=True, inline="always")
def _before(key_a, sec_a, key_b, sec_b):
    return key_a < key_b or (key_a == key_b and sec_a < sec_b)


@njit(cache=True)
def _replace_top(hkey, hsec, hidx, size, key, sec, idx):
    """Put (key, sec, idx) at the root of the 4-ary heap and restore it.

    A 4-ary heap halves the depth of a binary one and keeps siblings in one cache line. Bottom-up:
    the new root key usually belongs near the leaves (a user's share just grew), so walk the hole down
    along the smallest children, then sift the item up. Returns the number of heap entries compared (the
    counted work of the operation).
    """
    pos = 0
    first = 1
    compared = 0
    while first < size:
        best = first
        last = min(first + 4, size)
        compared += last - first
        for c in range(first + 1, last):
            if _before(hkey[c], hsec[c], hkey[best], hsec[best]):
                best = c
        hkey[pos], hsec[pos], hidx[pos] = hkey[best], hsec[best], hidx[best]
        pos = best
        first = 4 * pos + 1
    while pos > 0:
        parent = (pos - 1) // 4
        compared += 1
        if _before(key, sec, hkey[parent], hsec[parent]):
            hkey[pos], hsec[pos], hidx[pos] = hkey[parent], hsec[parent], hidx[parent]
            pos = parent
        else:
            break
    hkey[pos], hsec[pos], hidx[pos] = key, sec, idx
    return compared


@njit(cache=True)
def _progressive_filling(demands, capacity, step, secondary, caps, skip_blocked, record, order, start):
    """Heap-based progressive filling from the allocation ``start`` (tasks per user).

    ``step[i]`` is the weighted dominant share of one task of user i; ``secondary[i]`` orders users
    with equal shares (a permutation of 0..n-1). Returns (tasks, consumed, allocations, blocked user, work):
    ``work`` counts element operations (demand entries read, heap entries compared) after the O(n m + n log n)
    set-up — the O(T (m + log n)) of the module docstring, measured.
    """
    n, m = demands.shape
    tasks = start.copy()
    consumed = np.zeros(m)
    for i in range(n):
        for r in range(m):
            consumed[r] += tasks[i] * demands[i, r]
    limit = capacity * (1.0 + FIT_RTOL)
    # (share, secondary, user) items sorted once: a sorted array is a valid heap
    keys = np.empty(n)
    for i in range(n):
        keys[i] = tasks[i] * step[i]
    perm = np.argsort(secondary)
    perm = perm[np.argsort(keys[perm], kind="mergesort")]
    hkey = np.empty(n)
    hsec = np.empty(n, dtype=np.int64)
    hidx = np.empty(n, dtype=np.int64)
    size = 0
    for j in range(n):
        i = perm[j]
        if tasks[i] < caps[i]:
            hkey[size], hsec[size], hidx[size] = keys[i], secondary[i], i
            size += 1
    count = 0
    blocked = -1
    work = 0
    while size > 0:
        i = hidx[0]
        fits = True
        work += m
        for r in range(m):
            if consumed[r] + demands[i, r] > limit[r]:
                fits = False
                break
        if fits:
            for r in range(m):
                consumed[r] += demands[i, r]
            tasks[i] += 1
            if record:
                order[count] = i
            count += 1
            if tasks[i] < caps[i]:
                work += _replace_top(hkey, hsec, hidx, size, tasks[i] * step[i], hsec[0], i)
                continue
        elif not skip_blocked:
            blocked = i
            break
        # a blocked user never fits again (resources only fill up); a capped one is done
        size -= 1
        if size > 0:
            work += _replace_top(hkey, hsec, hidx, size, hkey[size], hsec[size], hidx[size])
    return tasks, consumed, count, blocked, work


def drf(demands, capacity, *, weights=None, stop: str = "skip_blocked", tie_break: str = "lowest_index",
        max_tasks=None, record_order: bool = False) -> DRFResult:
    """Dominant Resource Fairness for indivisible tasks by progressive filling.

    Repeatedly gives one task to the user with the lowest weighted dominant share
    ``tasks_i * max_r(demands[i, r] / capacity[r]) / weights[i]`` (Ghodsi et al. 2011, Alg. 1;
    Metin 2025 §3.1).

    Parameters
    ----------
    demands : (n_users, n_resources) array_like
        Per-task demand of each user, >= 0, no all-zero row.
    capacity : (n_resources,) array_like
        Total reserve of each resource, > 0.
    weights : (n_users,) array_like, optional
        Positive user weights (weighted DRF: max-min on dominant share / weight). Default all ones.
    stop : {"skip_blocked", "first_blocked"}
        ``"first_blocked"`` is the literal Algorithm 1: halt the first time the least-share user's next
        task does not fit. It is *not* Pareto efficient (Metin §6.2: capacities (59, 19)).
        ``"skip_blocked"`` drops a blocked user and continues (a blocked user never fits again), so
        no further task fits at the end.
    tie_break : {"lowest_index", "higher_share"}
        Order among users with equal current share: lowest index first (``argmin``, as the author's
        scripts do), or higher per-task weighted dominant share first (as Metin reads the DRF
        paper's example), then lowest index.
    max_tasks : (n_users,) array_like of int, optional
        Per-user task caps (a user at its cap leaves without blocking anyone).
    record_order : bool
        Also return the sequence of users served (for traces of small examples).

    Returns
    -------
    DRFResult

    Notes
    -----
    Shares are compared exactly in floating point (computed as ``tasks * step`` to avoid drift);
    a task fits when ``consumed + demand <= capacity * (1 + FIT_RTOL)`` (FIT_RTOL = 1e-12).

    Examples
    --------
    The DRF paper's example (9 CPUs, 18 GB; A = <1, 4>, B = <3, 1>):

    >>> res = drf([[1, 4], [3, 1]], [9, 18], record_order=True, tie_break="higher_share")
    >>> res.tasks.tolist(), res.order.tolist()
    ([3, 2], [1, 0, 0, 1, 0])
    >>> res.dominant_shares.round(4).tolist()
    [0.6667, 0.6667]
    """
    d = as_demands(demands)
    n, m = d.shape
    cap = as_capacities(capacity, n_resources=m)
    w = as_weights(weights, n)
    if stop not in STOP_RULES:
        raise InvalidInputError(f"stop = {stop!r}: must be one of {STOP_RULES}")
    if tie_break not in TIE_BREAKS:
        raise InvalidInputError(f"tie_break = {tie_break!r}: must be one of {TIE_BREAKS}")
    per_task = (d / cap).max(axis=1)
    pos = d > 0
    # most tasks any single user could get alone; also bounds every count below
    with np.errstate(divide="ignore", over="ignore"):
        alone = np.where(pos, cap / np.where(pos, d, 1.0), np.inf).min(axis=1)
    worst = int(np.argmax(alone))
    check_task_bound(float(alone[worst]), f"capacity / demands[{worst}]")
    if max_tasks is None:
        caps = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
    else:
        caps_f = np.asarray(max_tasks)
        if caps_f.shape != (n,) or caps_f.dtype.kind not in "iu":
            raise InvalidInputError(f"max_tasks: expected {n} integers (one per user), got "
                                    f"shape {caps_f.shape} dtype {caps_f.dtype}")
        if (caps_f < 0).any():
            i = int(np.argmax(caps_f < 0))
            raise InvalidInputError(f"max_tasks[{i}] = {caps_f[i]}: max_tasks must be >= 0")
        caps = np.ascontiguousarray(caps_f, dtype=np.int64)
    step = per_task / w
    if tie_break == "higher_share":
        secondary = np.empty(n, dtype=np.int64)
        secondary[np.lexsort((np.arange(n), -step))] = np.arange(n)
    else:
        secondary = np.arange(n, dtype=np.int64)
    if record_order:
        # every task uses a positive amount of some resource: bound the total count
        min_pos = np.where(pos, d, np.inf).min(axis=0)
        bound = np.sum(np.where(np.isfinite(min_pos), cap / min_pos, 0.0))
        if bound > _MAX_RECORDED:
            raise InvalidInputError(f"record_order: up to {bound:.3g} allocations; recording is limited to "
                                    f"{_MAX_RECORDED} (use it on small instances)")
        order = np.empty(int(bound) + 1, dtype=np.int64)
    else:
        order = np.empty(0, dtype=np.int64)
    tasks, consumed, count, blocked, work = _progressive_filling(d, cap, step, secondary, caps,
                                                                 stop == "skip_blocked", record_order, order,
                                                                 np.zeros(n, dtype=np.int64))
    return DRFResult(tasks=tasks, consumed=consumed, dominant_shares=tasks * per_task,
                     n_allocations=int(count), blocked_user=int(blocked),
                     order=order[:count].copy() if record_order else None, work=int(work))
