"""Best responses in the proportional-share bidding game (Feldman, Lai, Zhang, EC'05 §4.1–4.2).

User i bids x_ij on machine j, receives r_ij = x_ij / (x_ij + y_j) where y_j is everyone else's bid,
and has linear utility sum_j w_ij r_ij subject to sum_j x_ij = X_i. The optimal bids are a prefix of
the machines sorted by w_j / y_j (decreasing), with the closed form

    x_j = sqrt(w_j y_j) (X + sum_{i<=k} y_i) / sum_{i<=k} sqrt(w_i y_i) - y_j,   j <= k,

for the largest k that keeps x_k > 0 (REFERENCE §4.5).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._validate import InvalidInputError

__all__ = ["best_response", "best_response_finite", "utility", "finite_utility"]


@njit(cache=True)
def _br_sorted(w, y, budget, order, count, out):
    """Best response over machines ``order[:count]`` (sorted by w/y decreasing); writes bids into ``out``.

    Returns the utility. Machines outside the prefix get 0 (``out`` must be zero there on entry).
    """
    sum_y = 0.0
    sum_s = 0.0
    best_k = 0
    best_sum_y = 0.0
    best_sum_s = 0.0
    for t in range(count):
        j = order[t]
        sum_y += y[j]
        s = np.sqrt(w[j] * y[j])
        sum_s += s
        if s * (budget + sum_y) / sum_s - y[j] > 0.0:
            best_k = t + 1
            best_sum_y = sum_y
            best_sum_s = sum_s
    util = 0.0
    scale = (budget + best_sum_y) / best_sum_s if best_k > 0 else 0.0
    for t in range(best_k):
        j = order[t]
        x = np.sqrt(w[j] * y[j]) * scale - y[j]
        if x < 0.0:
            x = 0.0
        out[j] = x
        util += w[j] * x / (x + y[j])
    return util


@njit(cache=True)
def _candidate_order(w, y):
    """Machines with w > 0, sorted by w/y decreasing (ties by index)."""
    n = w.shape[0]
    count = 0
    for j in range(n):
        if w[j] > 0.0:
            count += 1
    idx = np.empty(count, dtype=np.int64)
    ratio = np.empty(count)
    c = 0
    for j in range(n):
        if w[j] > 0.0:
            idx[c] = j
            ratio[c] = -w[j] / y[j]
            c += 1
    perm = np.argsort(ratio, kind="mergesort")
    return idx[perm]


@njit(cache=True)
def _best_response(w, y, budget):
    out = np.zeros(w.shape[0])
    order = _candidate_order(w, y)
    _br_sorted(w, y, budget, order, order.shape[0], out)
    return out


@njit(cache=True)
def _subset_utility(w, y, budget, subset, k, scratch_order, scratch_out):
    """Utility of the best response restricted to ``subset[:k]`` (insertion-sorted copy, O(k^2) worst)."""
    for t in range(k):
        j = subset[t]
        pos = t
        while pos > 0 and w[scratch_order[pos - 1]] * y[j] < w[j] * y[scratch_order[pos - 1]]:
            scratch_order[pos] = scratch_order[pos - 1]
            pos -= 1
        scratch_order[pos] = j
    util = _br_sorted(w, y, budget, scratch_order, k, scratch_out)
    for t in range(k):
        scratch_out[scratch_order[t]] = 0.0
    return util


@njit(cache=True)
def _local_search(w, y, budget, k):
    """Local-search best response under parallelism k (EC §4.2): swap one machine in and out while the
    restricted best response improves. Returns (bids, swaps)."""
    n = w.shape[0]
    order = _candidate_order(w, y)
    kk = min(k, order.shape[0])
    chosen = np.zeros(n, dtype=np.bool_)
    subset = np.empty(kk, dtype=np.int64)
    for t in range(kk):
        subset[t] = order[t]
        chosen[order[t]] = True
    scratch_order = np.empty(kk, dtype=np.int64)
    scratch_out = np.zeros(n)
    current = _subset_utility(w, y, budget, subset, kk, scratch_order, scratch_out)
    swaps = 0
    improved = True
    while improved:
        improved = False
        for a in range(kk):
            out_j = subset[a]
            for t in range(order.shape[0]):
                in_j = order[t]
                if chosen[in_j]:
                    continue
                subset[a] = in_j
                u = _subset_utility(w, y, budget, subset, kk, scratch_order, scratch_out)
                if u > current * (1.0 + 1e-12) + 1e-15:
                    chosen[out_j] = False
                    chosen[in_j] = True
                    current = u
                    swaps += 1
                    improved = True
                    break
                subset[a] = out_j
            if improved:
                break
    bids = np.zeros(n)
    for t in range(kk):
        scratch_order[t] = subset[t]
    # final bids on the chosen set (sorted by w/y inside _subset-style insertion)
    for t in range(kk):
        j = subset[t]
        pos = t
        while pos > 0 and w[scratch_order[pos - 1]] * y[j] < w[j] * y[scratch_order[pos - 1]]:
            scratch_order[pos] = scratch_order[pos - 1]
            pos -= 1
        scratch_order[pos] = j
    _br_sorted(w, y, budget, scratch_order, kk, bids)
    return bids, swaps


def _check_inputs(w, y, budget):
    w = np.ascontiguousarray(w, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.float64)
    if w.ndim != 1 or y.shape != w.shape or w.size == 0:
        raise InvalidInputError(f"w, y: expected two vectors of the same length (one per machine), got shapes "
                                f"{np.shape(w)} and {np.shape(y)}")
    for name, a in (("w", w), ("y", y)):
        bad = ~np.isfinite(a) | (a < 0)
        if bad.any():
            j = int(np.argmax(bad))
            raise InvalidInputError(f"{name}[{j}] = {a[j]}: {name} must be finite and >= 0")
    if not (np.isfinite(budget) and budget > 0):
        raise InvalidInputError(f"budget = {budget}: must be finite and > 0")
    if not (w > 0).any():
        raise InvalidInputError("w: the user values no machine (all weights are 0)")
    no_price = (w > 0) & (y == 0)
    if no_price.any():
        j = int(np.argmax(no_price))
        raise InvalidInputError(
            f"y[{j}] = 0.0 with w[{j}] = {w[j]}: no best response exists (any positive bid wins the whole machine, "
            "and there is no smallest one); add a reserve bid to y, as in the existence proof")
    return w, y, float(budget)


def best_response(w, y, budget) -> np.ndarray:
    """Utility-maximising bids of one user against the others' bids (infinite parallelism).

    Parameters
    ----------
    w : (n_machines,) array_like — the user's weights, >= 0.
    y : (n_machines,) array_like — the sum of the other users' bids on each machine, >= 0; a machine with
        y_j = 0 and w_j > 0 has no best response (raise; add a reserve bid).
    budget : float — X > 0.

    Returns
    -------
    (n_machines,) bids summing to ``budget``; zero on machines outside the optimal prefix.

    Examples
    --------
    >>> best_response([0.5, 0.5], [1.0, 1.0], 1.0).tolist()
    [0.5, 0.5]
    >>> best_response([0.9, 0.1], [1.0, 1.0], 1.0).round(4).tolist()
    [1.0, 0.0]
    """
    w, y, budget = _check_inputs(w, y, budget)
    return _best_response(w, y, budget)


def best_response_finite(w, y, budget, k: int) -> tuple[np.ndarray, int]:
    """Local-search best response when the user can use at most ``k`` machines (EC §4.2).

    Start from the k machines with the largest w/y, compute the best response restricted to them, and
    swap one machine in and one out while that improves the utility. A heuristic (not proven optimal).

    Returns
    -------
    (bids, swaps) : bids on at most k machines, and the number of improving swaps made.
    """
    w, y, budget = _check_inputs(w, y, budget)
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise InvalidInputError(f"k = {k!r}: the parallelism bound must be an integer >= 1")
    bids, swaps = _local_search(w, y, budget, int(k))
    return bids, int(swaps)


def utility(w, x, y) -> float:
    """Linear utility sum_j w_j x_j / (x_j + y_j) of bids ``x`` against others' bids ``y`` (0/0 counts 0)."""
    w, x, y = (np.asarray(a, dtype=np.float64) for a in (w, x, y))
    total = x + y
    with np.errstate(invalid="ignore", divide="ignore"):
        return float(np.sum(np.where(total > 0, w * x / total, 0.0)))


def finite_utility(w, x, y, k: int) -> float:
    """Finite-parallelism utility: the sum of the k largest w_j r_j."""
    w, x, y = (np.asarray(a, dtype=np.float64) for a in (w, x, y))
    total = x + y
    with np.errstate(invalid="ignore", divide="ignore"):
        v = np.where(total > 0, w * x / total, 0.0)
    return float(np.sort(v)[::-1][:k].sum())
