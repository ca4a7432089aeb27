"""Best responses in the proportional-share bidding game (Feldman, Lai, Zhang, EC'05 §4.1–4.2).

User i bids x_ij on machine j, receives r_ij = x_ij / (x_ij + y_j) where y_j is everyone else's bid,
and has linear utility sum_j w_ij r_ij subject to sum_j x_ij = X_i. The optimal bids are a prefix of
the machines sorted by w_j / y_j (decreasing), with the closed form

    x_j = sqrt(w_j y_j) (X + sum_{i<=k} y_i) / sum_{i<=k} sqrt(w_i y_i) - y_j,   j <= k,

for the largest k that keeps x_k > 0 (reconstructions §4.5). The paper sorts (O(n log n));
``best_response`` finds the same prefix without sorting, by a threshold fixed point in expected O(n)
(see ``_best_response_into``). The local search keeps the sorted order, which its O(k) swaps need.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike

from .._jit import interpreted_when_small, njit
from .._validate import (
    InvalidInputError,
    _got,
    _short,
    as_array,
    as_count,
    as_values,
    check_labels,
    is_real,
)

__all__ = ["best_response", "best_response_finite", "utility", "finite_utility"]


@njit(cache=True)
def _best_prefix(w, y, sq, budget, order, count, drop):
    """Scan ``order[:count]`` (sorted by w/y decreasing), skipping position ``drop`` (-1: none), for
    the optimal prefix: the last machine j with x_j > 0, i.e. sqrt(w_j y_j)(X + S_y) > y_j S_s.

    Returns (end, S_y, S_s, S_w): the prefix is ``order[:end]`` (minus ``drop``) and the sums of y,
    sqrt(w y) and w over it. ``sq[j] = sqrt(w[j] y[j])``, precomputed once per user.

    Parameters
    ----------
    w : float64[:]
        The user's weights, shape (n_machines,), finite and >= 0.
    y : float64[:]
        The other users' bids summed per machine, shape (n_machines,), finite and >= 0.
    sq : float64[:]
        sqrt(w * y), shape (n_machines,).
    budget : float
        The user's budget X > 0.
    order : int64[:]
        Machine indices sorted by w/y decreasing; the first ``count`` are scanned.
    count : int
        How many entries of ``order`` to use.
    drop : int
        Position in ``order`` to skip; -1 skips none.
    """
    sum_y = 0.0
    sum_s = 0.0
    sum_w = 0.0
    end = 0
    best_y = 0.0
    best_s = 0.0
    best_w = 0.0
    for t in range(count):
        if t == drop:
            continue
        j = order[t]
        sum_y += y[j]
        sum_s += sq[j]
        sum_w += w[j]
        if sq[j] * (budget + sum_y) > y[j] * sum_s:
            end = t + 1
            best_y = sum_y
            best_s = sum_s
            best_w = sum_w
    return end, best_y, best_s, best_w


@njit(cache=True)
def _br_sorted(w, y, sq, budget, order, count, out):
    """Best response over machines ``order[:count]``; writes the bids into ``out`` (zero elsewhere
    on entry) and returns the utility.

    Parameters
    ----------
    w : float64[:]
        The user's weights, shape (n_machines,), finite and >= 0.
    y : float64[:]
        The other users' bids summed per machine, shape (n_machines,), finite and >= 0.
    sq : float64[:]
        sqrt(w * y), shape (n_machines,).
    budget : float
        The user's budget X > 0.
    order : int64[:]
        Machine indices sorted by w/y decreasing; the first ``count`` are scanned.
    count : int
        How many entries of ``order`` to use.
    out : float64[:]
        Bids, shape (n_machines,), zero on entry; written in place.
    """
    end, sum_y, sum_s, _ = _best_prefix(w, y, sq, budget, order, count, -1)
    util = 0.0
    scale = (budget + sum_y) / sum_s if end > 0 else 0.0
    for t in range(end):
        j = order[t]
        x = sq[j] * scale - y[j]
        if x < 0.0:
            x = 0.0
        out[j] = x
        util += w[j] * x / (x + y[j])
    return util


@njit(cache=True)
def _br_value(w, y, sq, budget, order, count):
    """Utility of the best response over ``order[:count]`` without forming the bids.

    With the optimal prefix, U = sum w_j - (sum sqrt(w_j y_j))^2 / (X + sum y_j) (substitute the
    closed-form bids into sum_j w_j x_j / (x_j + y_j)).

    Parameters
    ----------
    w : float64[:]
        The user's weights, shape (n_machines,), finite and >= 0.
    y : float64[:]
        The other users' bids summed per machine, shape (n_machines,), finite and >= 0.
    sq : float64[:]
        sqrt(w * y), shape (n_machines,).
    budget : float
        The user's budget X > 0.
    order : int64[:]
        Machine indices sorted by w/y decreasing; the first ``count`` are scanned.
    count : int
        How many entries of ``order`` to use.
    """
    end, sum_y, sum_s, sum_w = _best_prefix(w, y, sq, budget, order, count, -1)
    return sum_w - sum_s * sum_s / (budget + sum_y) if end > 0 else 0.0


@njit(cache=True)
def _multiplier_without(w, y, sq, budget, sorted_sub, k, drop):
    """λ = (sum sqrt(w y) / (X + sum y))^2 of the best response on ``sorted_sub[:k]`` minus
    position ``drop``.

    Parameters
    ----------
    w : float64[:]
        The user's weights, shape (n_machines,), finite and >= 0.
    y : float64[:]
        The other users' bids summed per machine, shape (n_machines,), finite and >= 0.
    sq : float64[:]
        sqrt(w * y), shape (n_machines,).
    budget : float
        The user's budget X > 0.
    sorted_sub : int64[:]
        Chosen machines sorted by w/y decreasing.
    k : int
        How many entries of ``sorted_sub`` are used.
    drop : int
        Position in ``sorted_sub`` left out.
    """
    end, sum_y, sum_s, _ = _best_prefix(w, y, sq, budget, sorted_sub, k, drop)
    if end == 0:
        return 0.0
    q = sum_s / (budget + sum_y)
    return q * q


@njit(cache=True)
def _candidate_order(w, y):
    """Machines with w > 0, sorted by w/y decreasing (ties by index).

    Parameters
    ----------
    w : float64[:]
        The user's weights, shape (n_machines,), finite and >= 0.
    y : float64[:]
        The other users' bids summed per machine, shape (n_machines,), finite and >= 0.

    Returns
    -------
    int64[:]
        The machine indices.
    """
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


@njit(cache=True, fastmath={"reassoc", "contract", "nsz"})
def _input_summary(w, y):
    """(negatives, not_finite, sum w) in one vectorised pass: ``not_finite`` counts the entries of w
    and y that are NaN or +inf, by comparisons (no floating-point flag raised: an interpreted run
    warns of nothing before the error). Reassociation only: NaN and infinity keep their IEEE
    meaning.

    Parameters
    ----------
    w : float64[:]
        The user's weights, shape (n_machines,), not yet validated.
    y : float64[:]
        The other users' bids summed per machine, shape (n_machines,), not yet validated.
    """
    negatives = 0
    not_finite = 0
    total = 0.0
    for j in range(w.shape[0]):
        negatives += (w[j] < 0.0) + (y[j] < 0.0)
        not_finite += (not (w[j] < np.inf)) + (not (y[j] < np.inf))
        total += w[j]
    return negatives, not_finite, total


@njit(cache=True)
def _extent(v):
    """(smallest positive entry or inf, largest entry or 0) of entries validated finite and >= 0
    (-0.0 allowed).

    On the bit patterns: a non-negative double orders as its pattern does as an integer, so the
    largest entry is the largest pattern read as int64 (-0.0 is negative there) and the smallest
    positive one the smallest nonzero pattern read as uint64 (-0.0 lies above every finite pattern
    and is not taken as positive below). Integer minima and maxima vectorise; a floating-point
    running maximum is a chain of dependent comparisons that does not (3-5x slower at a thousand
    entries).

    Parameters
    ----------
    v : float64[:]
        Entries validated finite and >= 0, shape (n,).
    """
    as_unsigned = v.view(np.uint64)
    as_signed = v.view(np.int64)
    top = np.uint64(0xFFFFFFFFFFFFFFFF)
    low = top
    high = np.int64(0)
    for j in range(v.shape[0]):
        pattern = as_unsigned[j]
        low = min(low, pattern if pattern != 0 else top)
        high = max(high, as_signed[j])
    patterns = np.empty(2, dtype=np.uint64)
    patterns[0] = low if low != top else 0
    patterns[1] = np.uint64(high)
    low_value, high_value = patterns.view(np.float64)
    return (low_value if low_value > 0.0 else np.inf), high_value


@njit(cache=True)
def _locate_bad_input(w, y):
    """(code, index) of the first invalid entry: 0 none; 1 w[index] negative or not finite; 2 the
    same for y; 3 all weights are 0 (index -1).

    Parameters
    ----------
    w : float64[:]
        The user's weights, shape (n_machines,), not yet validated.
    y : float64[:]
        The other users' bids summed per machine, shape (n_machines,), not yet validated.
    """
    any_positive = False
    for j in range(w.shape[0]):
        if not (w[j] >= 0.0 and w[j] < np.inf):
            return 1, j
        if not (y[j] >= 0.0 and y[j] < np.inf):
            return 2, j
        any_positive = any_positive or w[j] > 0.0
    return (0, -1) if any_positive else (3, -1)


@njit(cache=True)
def _shrink_to_prefix(y, budget, idx, sq, ratio2, count, sum_y, sum_s):
    """Drop every machine with w/y <= q^2, q = sum sqrt(w y) / (X + sum y) over the current set,
    until none is dropped. Compacts ``idx``/``sq``/``ratio2`` in place; returns (count, sum y, sum
    sqrt(w y)).

    Parameters
    ----------
    y : float64[:]
        The other users' bids summed per machine, shape (n_machines,).
    budget : float
        The user's budget X > 0.
    idx : int64[:]
        The current set's machine indices (first ``count`` entries); compacted in place.
    sq : float64[:]
        sqrt(w y) of the current set, aligned with ``idx``; compacted in place.
    ratio2 : float64[:]
        w/y of the current set, aligned with ``idx``; compacted in place.
    count : int
        Size of the current set.
    sum_y : float
        Sum of y over the current set.
    sum_s : float
        Sum of sqrt(w y) over the current set.
    """
    while True:
        q = sum_s / (budget + sum_y)
        q2 = q * q
        kept = 0
        new_y = 0.0
        new_s = 0.0
        for t in range(count):
            if ratio2[t] > q2:
                j = idx[t]
                idx[kept] = j
                sq[kept] = sq[t]
                ratio2[kept] = ratio2[t]
                new_y += y[j]
                new_s += sq[t]
                kept += 1
        if kept == count:
            return count, sum_y, sum_s
        if kept == 0:
            # rounding only (the best machine always gets a bid: X > 0): keep the largest ratio
            # alone
            best = 0
            for t in range(1, count):
                if ratio2[t] > ratio2[best]:
                    best = t
            j = idx[best]
            idx[0] = j
            sq[0] = sq[best]
            ratio2[0] = ratio2[best]
            return 1, y[j], sq[0]
        count = kept
        sum_y = new_y
        sum_s = new_s


@njit(cache=True)
def _collect_above(w, y, c2, idx, sq, ratio2, stride):
    """Machines j = 0, stride, 2 stride, ... with w > 0 and w/y > c2 into ``idx``/``sq``/``ratio2``
    (``stride`` always passed as an int64: an omitted argument or a literal 1 is another signature,
    compiled a second time); returns (count, sum y, sum sqrt(w y), first index with w > 0 and y = 0,
    or -1). Machines with y = 0 are reported, not collected.

    Parameters
    ----------
    w : float64[:]
        The user's weights, shape (n_machines,), finite and >= 0.
    y : float64[:]
        The other users' bids summed per machine, shape (n_machines,), finite and >= 0.
    c2 : float
        The cut-off on w/y (a squared multiplier q^2); machines at or below it are skipped.
    idx : int64[:]
        Output: the collected machine indices, shape (n_machines,).
    sq : float64[:]
        Output: sqrt(w y) of each collected machine.
    ratio2 : float64[:]
        Output: w/y of each collected machine.
    stride : int64
        Step between the machines scanned (1: all).
    """
    count = 0
    sum_y = 0.0
    sum_s = 0.0
    zero_price = -1
    for j in range(0, w.shape[0], stride):
        if w[j] > c2 * y[j] and w[j] > 0.0:
            if y[j] == 0.0:
                if zero_price < 0:
                    zero_price = j
                continue
            s = np.sqrt(w[j] * y[j])
            idx[count] = j
            sq[count] = s
            ratio2[count] = w[j] / y[j]
            sum_y += y[j]
            sum_s += s
            count += 1
    return count, sum_y, sum_s, zero_price


@njit(cache=True)
def _input_status(w, y):
    """(0, -1) for valid (w, y), else the ``_locate_bad_input`` code and index (3, -1: every weight
    is 0), from one vectorised pass when the inputs are valid.

    Parameters
    ----------
    w : float64[:]
        The user's weights, shape (n_machines,), not yet validated.
    y : float64[:]
        The other users' bids summed per machine, shape (n_machines,), not yet validated.
    """
    negatives, not_finite, total = _input_summary(w, y)
    if negatives > 0 or not_finite > 0 or not total > 0.0:
        code, j = _locate_bad_input(w, y)
        return (code, j) if code != 0 else (3, -1)
    return 0, -1


@njit(cache=True)
def _best_response_into(w, y, budget, out):
    """:func:`_closed_form_into` after validating (w, y): returns (status, index), 0 ok, else the
    ``_locate_bad_input`` codes or 4 (y[index] = 0 where w[index] > 0).

    Parameters
    ----------
    w : float64[:]
        The user's weights, shape (n_machines,), not yet validated.
    y : float64[:]
        The other users' bids summed per machine, shape (n_machines,), not yet validated.
    budget : float
        The user's budget X > 0.
    out : float64[:]
        Bids, shape (n_machines,), zeros on entry; written in place.
    """
    code, j = _input_status(w, y)
    if code != 0:
        return code, j
    return _closed_form_into(w, y, budget, out)


@njit(cache=True)
def _closed_form_into(w, y, budget, out):
    """Closed-form best response of validated inputs in expected O(n), without sorting; writes the
    bids into ``out`` (zeros on entry) and returns (status, index): 0 ok, or 4 (y[index] = 0 where
    w[index] > 0).

    The optimal prefix is an upper set of w_j / y_j: the machines with w_j / y_j > q^2, where
    q = sum sqrt(w y) / (X + sum y) over the set itself (x_j > 0 is exactly sqrt(w_j / y_j) > q).
    For any upper set A containing the optimum, q(A) <= q* (every extra machine lies below the
    running ratio and pulls the mediant down), so {w/y > q(A)^2} still contains the optimum and
    dropping the rest raises q. Iterating stops when nothing is dropped, at exactly the sorted
    scan's prefix; each pass drops at least one machine, so it terminates, typically in a handful of
    passes (Dinkelbach-like). The start set comes from the same fixed point on a strided subsample
    (a guess: if it cuts into the optimum, q(A) falls below the cut-off and the set is rebuilt from
    q(A)).

    Parameters
    ----------
    w : float64[:]
        The user's weights, shape (n_machines,), finite and >= 0.
    y : float64[:]
        The other users' bids summed per machine, shape (n_machines,), finite and >= 0.
    budget : float
        The user's budget X > 0.
    out : float64[:]
        Bids, shape (n_machines,), zeros on entry; written in place.
    """
    n = w.shape[0]
    idx = np.empty(n, dtype=np.int64)
    sq = np.empty(n)
    ratio2 = np.empty(n)
    stride = 1
    while stride * stride * 4 < n:
        stride *= 2
    cut2 = 0.0
    if stride > 1:
        m, sub_y, sub_s, _ = _collect_above(w, y, 0.0, idx, sq, ratio2, stride)
        if m > 0:
            m, sub_y, sub_s = _shrink_to_prefix(
                y, budget / stride, idx, sq, ratio2, m, sub_y, sub_s
            )
            q = sub_s / (budget / stride + sub_y)
            cut2 = 0.5 * q * q  # shaded down: a cut-off below the optimum saves the rebuild
    count, sum_y, sum_s, zero_price = _collect_above(w, y, cut2, idx, sq, ratio2, np.int64(1))
    if zero_price >= 0:
        return 4, zero_price
    q2 = 0.0
    if count > 0:
        q = sum_s / (budget + sum_y)
        q2 = q * q
    if count == 0 or q2 < cut2:
        count, sum_y, sum_s, _ = _collect_above(w, y, q2, idx, sq, ratio2, np.int64(1))
    count, sum_y, sum_s = _shrink_to_prefix(y, budget, idx, sq, ratio2, count, sum_y, sum_s)
    if count == 1:  # the whole budget on one machine, exactly
        out[idx[0]] = budget
        return 0, -1
    scale = (budget + sum_y) / sum_s
    for t in range(count):
        j = idx[t]
        x = sq[t] * scale - y[j]
        out[j] = x if x > 0.0 else 0.0
    return 0, -1


@njit(cache=True, fastmath={"reassoc", "contract", "nsz"})
def _sum_reassociated(v):
    """Σ v in any order (vectorised): for a check with a tolerance, never for a result.

    Parameters
    ----------
    v : float64[:]
        The terms, shape (n,).
    """
    total = 0.0
    for j in range(v.shape[0]):
        total += v[j]
    return total


#: the closed form runs on the inputs themselves when every positive weight and bid and the budget
#: lie in [1 / SAFE_MAGNITUDE, SAFE_MAGNITUDE]: its products and ratios then lie in [2^-128, 2^128]
#: and its sums of up to 2^64 terms below 2^192, far inside the float range, and no bid can be lost
#: at unit scale; beyond, it runs at unit scale
SAFE_MAGNITUDE = 2.0**64


@njit(cache=True)
def _checked_best_response_into(w, y, budget, out):
    """The best response of validated-here inputs: writes the bids into ``out`` (zeros on entry) and
    returns (status, index, value).

    Status 0 ok; 1-4 the ``_best_response_into`` codes; 5 y[index] > 0 underflows to 0 at unit
    scale; 6 the budget does; 7 the bids sum to ``value`` (at the caller's scale) instead of the
    budget (precision lost). When every positive entry and the budget lie within
    :data:`SAFE_MAGNITUDE` the closed form runs on the inputs themselves (the bids of the dynamics
    loop's kernel, bit for bit; 5 and 6 cannot occur); otherwise at ``_unit_scale``'s unit scale (w
    / max w, y and X / max(max y, X), the same divisions), scaled back.

    Parameters
    ----------
    w : float64[:]
        The user's weights, shape (n_machines,), not yet validated.
    y : float64[:]
        The other users' bids summed per machine, shape (n_machines,), not yet validated.
    budget : float
        The user's budget X > 0.
    out : float64[:]
        Bids, shape (n_machines,), zeros on entry; written in place.
    """
    n = w.shape[0]
    code, j = _input_status(w, y)
    if code != 0:
        return code, j, 0.0
    w_low, w_top = _extent(w)  # every entry finite and >= 0 here
    y_low, y_top = _extent(y)
    scale = max(y_top, budget)
    if 1.0 / SAFE_MAGNITUDE <= min(w_low, y_low, budget) and max(w_top, scale) <= SAFE_MAGNITUDE:
        scale = 1.0
        budget_unit = budget
        code, j = _closed_form_into(w, y, budget, out)
    else:
        w_unit = np.empty(n)
        y_unit = np.empty(n)
        lost = 0
        for j in range(n):  # branch-free, so it vectorises
            w_unit[j] = w[j] / w_top
            y_unit[j] = y[j] / scale
            lost += (y[j] > 0.0) & (y_unit[j] == 0.0)
        if lost > 0:
            for j in range(n):
                if y[j] > 0.0 and y_unit[j] == 0.0:
                    return 5, j, scale
        budget_unit = budget / scale
        if budget_unit == 0.0:
            return 6, -1, scale
        code, j = _closed_form_into(w_unit, y_unit, budget_unit, out)
    if code != 0:
        return code, j, 0.0
    spent = _sum_reassociated(out)
    if not abs(spent - budget_unit) <= 1e-9 * budget_unit:
        return 7, -1, spent * scale
    if scale != 1.0:
        for j in range(n):
            out[j] *= scale
    return 0, -1, scale


@njit(cache=True)
def _best_response(w, y, budget):
    """Best response for inputs already validated (the dynamics loop).

    Parameters
    ----------
    w : float64[:]
        The user's weights, shape (n_machines,), finite and >= 0.
    y : float64[:]
        The other users' bids summed per machine, shape (n_machines,), finite and >= 0.
    budget : float
        The user's budget X > 0.

    Returns
    -------
    float64[:]
        The bids, shape (n_machines,).
    """
    out = np.zeros(w.shape[0])
    _best_response_into(w, y, budget, out)
    return out


@njit(cache=True)
def _swap_order(w, y, sorted_sub, k, drop, add, cand):
    """``cand`` = ``sorted_sub[:k]`` without position ``drop``, with machine ``add`` inserted so the
    order by w/y (decreasing) is kept. O(k).

    Parameters
    ----------
    w : float64[:]
        The user's weights, shape (n_machines,), finite and >= 0.
    y : float64[:]
        The other users' bids summed per machine, shape (n_machines,), finite and >= 0.
    sorted_sub : int64[:]
        The chosen machines sorted by w/y decreasing.
    k : int
        How many entries of ``sorted_sub`` are used.
    drop : int
        Position in ``sorted_sub`` to swap out.
    add : int
        Machine index to swap in.
    cand : int64[:]
        Output, shape (k,): the new chosen set, still sorted.
    """
    c = 0
    placed = False
    for t in range(k):
        if t == drop:
            continue
        j = sorted_sub[t]
        if not placed and w[add] * y[j] > w[j] * y[add]:
            cand[c] = add
            c += 1
            placed = True
        cand[c] = j
        c += 1
    if not placed:
        cand[c] = add


@njit(cache=True)
def _local_search(w, y, budget, k, prune=True):
    """Local-search best response under parallelism k (EC §4.2): swap one machine in and out while
    the restricted best response improves (first improvement). Returns (bids, swaps).

    The chosen set is kept sorted by w/y, so evaluating a swap is O(k). Pruning is exact: a machine
    j with w_j / y_j <= λ(A - i) gets no bid in the best response on A - i + j (adding j only
    raises the multiplier), so that swap is worth U(A - i) <= U(A); candidates come sorted by w/y,
    so the scan over j stops there.

    Parameters
    ----------
    w : float64[:]
        The user's weights, shape (n_machines,), finite and >= 0.
    y : float64[:]
        The other users' bids summed per machine, shape (n_machines,), finite and >= 0.
    budget : float
        The user's budget X > 0.
    k : int
        The most machines the user may bid on (parallelism), >= 1.
    prune : bool, default True
        Whether to stop the scan of swap candidates at the multiplier bound (exact; False tries
        all).
    """
    n = w.shape[0]
    order = _candidate_order(w, y)
    kk = min(k, order.shape[0])
    chosen = np.zeros(n, dtype=np.bool_)
    sorted_sub = order[:kk].copy()
    for t in range(kk):
        chosen[sorted_sub[t]] = True
    cand = np.empty(kk, dtype=np.int64)
    sq = np.sqrt(w * y)
    current = _br_value(w, y, sq, budget, sorted_sub, kk)
    # an improvement beyond rounding: relative to the value, and to the weights' scale (a utility
    # is at most the sum of the weights), so the test reads the same at every scale of w
    floor = 1e-15 * w.max()
    swaps = 0
    improved = True
    while improved:
        improved = False
        for a in range(kk):
            lam = _multiplier_without(w, y, sq, budget, sorted_sub, kk, a) if prune else 0.0
            for t in range(order.shape[0]):
                in_j = order[t]
                if prune and w[in_j] <= lam * y[in_j]:
                    break
                if chosen[in_j]:
                    continue
                _swap_order(w, y, sorted_sub, kk, a, in_j, cand)
                u = _br_value(w, y, sq, budget, cand, kk)
                if u > current * (1.0 + 1e-12) + floor:
                    chosen[sorted_sub[a]] = False
                    chosen[in_j] = True
                    sorted_sub[:] = cand
                    current = u
                    swaps += 1
                    improved = True
                    break
            if improved:
                break
    bids = np.zeros(n)
    _br_sorted(w, y, sq, budget, sorted_sub, kk, bids)
    return bids, swaps


_FLOAT64 = np.dtype(np.float64)


def _coerce_inputs(
    w: ArrayLike, y: ArrayLike, budget: float
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], float]:
    """(w, y, budget) as contiguous float64 vectors of one length and a finite float > 0, or the
    error naming the argument. Inputs already in that form pass through untouched (the common case,
    checked first: at a thousand machines the general path costs a fifth of the best response)."""
    if (
        type(w) is np.ndarray
        and type(y) is np.ndarray
        and w.dtype is _FLOAT64
        and y.dtype is _FLOAT64
        and w.ndim == 1
        and w.shape == y.shape
        and w.shape[0] > 0
        and w.flags.c_contiguous
        and y.flags.c_contiguous
        and type(budget) is float
        and 0.0 < budget < math.inf
    ):
        return w, y, budget
    check_labels(("w", w, 0), y=y)  # labelled machines: the same in both, in the same order
    for name, value in (("w", w), ("y", y)):
        dtype = as_array(value, name).dtype  # ragged lists, None and objects: named, with the value
        if dtype.kind not in "iuf":
            raise InvalidInputError(
                f"{name} = {_short(value)}: expected real numbers, got dtype {dtype} (booleans, "
                "strings and complex numbers are not bids or weights)"
            )
    if not is_real(budget):  # the rule of every scalar: booleans, text, arrays are no budget
        raise InvalidInputError(
            f"budget = {_short(budget)}: must be a real number > 0{_got(budget)}"
        )
    w = np.ascontiguousarray(w, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.float64)
    if w.ndim != 1 or y.shape != w.shape or w.size == 0:
        raise InvalidInputError(
            f"w, y: expected two vectors of the same length (one per machine), got shapes "
            f"{np.shape(w)} and {np.shape(y)}"
        )
    try:
        budget = float(budget)
    except (
        TypeError,
        ValueError,
        OverflowError,
    ):  # OverflowError: an integer beyond the float range
        raise InvalidInputError(f"budget = {_short(budget)}: must be a real number > 0") from None
    if not (math.isfinite(budget) and budget > 0):
        raise InvalidInputError(f"budget = {budget}: must be finite and > 0")
    return w, y, budget


def _raise_for_status(code, j, w, y):
    """Turn a kernel status (``_locate_bad_input`` codes, 4 = y[j] = 0 where w[j] > 0) into the
    error."""
    if code == 1:
        raise InvalidInputError(f"w[{j}] = {w[j]}: w must be finite and >= 0")
    if code == 2:
        raise InvalidInputError(f"y[{j}] = {y[j]}: y must be finite and >= 0")
    if code == 3:
        raise InvalidInputError("w: the user values no machine (all weights are 0)")
    if code == 4:
        raise InvalidInputError(
            f"y[{j}] = 0.0 with w[{j}] = {w[j]}: no best response exists (any positive bid "
            "wins the whole machine, "
            "and there is no smallest one); add a reserve bid to y, as in the existence proof"
        )


def _check_inputs(
    w: ArrayLike, y: ArrayLike, budget: float
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], float]:
    """Coerce and validate (w, y, budget) for the kernels that sort (local search)."""
    w, y, budget = _coerce_inputs(w, y, budget)
    code, j = _locate_bad_input(w, y)
    if code == 0:
        zero_price = np.flatnonzero((w > 0) & (y == 0))
        if zero_price.size:
            code, j = 4, int(zero_price[0])
    _raise_for_status(code, j, w, y)
    return w, y, budget


def _unit_scale(w, y, budget):
    """The best response does not change when w is scaled and scales with (y, X): return (w / max w,
    y / s, X / s, s) with s = max(max y, X), so magnitudes near the float range neither overflow nor
    underflow in the kernels. A positive y that underflows to 0 at that scale is an error naming
    it."""
    w_top, scale = float(np.max(np.abs(w))), max(float(np.max(np.abs(y))), budget)
    if not (np.isfinite(w_top) and np.isfinite(scale)):
        code, j = _locate_bad_input(w, y)
        _raise_for_status(code, j, w, y)
    w_unit = w / w_top if w_top > 0 else w
    y_unit, budget_unit = y / scale, budget / scale
    lost = (y > 0) & (y_unit == 0)
    if lost.any() or budget_unit == 0:
        j = int(np.argmax(lost)) if lost.any() else -1
        raise _lost_at_unit_scale(f"y[{j}] = {y[j]}" if j >= 0 else f"budget = {budget}", scale)
    return w_unit, y_unit, budget_unit, scale


def _lost_at_unit_scale(what: str, scale: float) -> InvalidInputError:
    """The error for a bid or budget that is 0 to double precision at the unit scale ``scale``."""
    return InvalidInputError(
        f"{what}: more than the float range below the largest of y and the budget ({scale:g}); "
        "such a bid is 0 to double precision"
    )


@interpreted_when_small
def best_response(w: ArrayLike, y: ArrayLike, budget: float) -> npt.NDArray[np.float64]:
    """Utility-maximising bids of one user against the others' bids (infinite parallelism).

    The bids are the closed form on the optimal prefix of machines sorted by w/y, found without
    sorting (module doc).

    Parameters
    ----------
    w : array_like
        Shape (n_machines,): the user's weights, finite and >= 0, not all 0.
    y : array_like
        Shape (n_machines,): the sum of the other users' bids on each machine, finite and >= 0; a
        machine with y_j = 0 and w_j > 0 has no best response (an error; add a reserve bid).
    budget : float
        The user's budget X > 0.

    Returns
    -------
    numpy.ndarray
        Float64 bids, shape (n_machines,), summing to ``budget``; zero on machines outside the
        optimal prefix.

    Raises
    ------
    InvalidInputError
        On vectors of different lengths, pandas vectors whose machine labels differ, negative or
        non-finite entries, all-zero weights, y_j = 0 where w_j > 0, a budget <= 0, or magnitudes
        too far apart for double precision.

    References
    ----------
    .. [1] M. Feldman, K. Lai, L. Zhang, "A Price-Anticipating Resource Allocation Mechanism for
       Distributed Shared Clusters", EC '05, 2005, §4.1.

    Examples
    --------
    >>> best_response([0.5, 0.5], [1.0, 1.0], 1.0).tolist()
    [0.5, 0.5]
    >>> best_response([0.9, 0.1], [1.0, 1.0], 1.0).round(4).tolist()
    [1.0, 0.0]
    """
    w, y, budget = _coerce_inputs(w, y, budget)
    out = np.zeros(w.shape[0])
    code, j, value = _checked_best_response_into(
        w, y, budget, out
    )  # validation runs inside the kernel
    if code == 5 or code == 6:
        raise _lost_at_unit_scale(f"y[{j}] = {y[j]}" if code == 5 else f"budget = {budget}", value)
    if code == 7:
        raise InvalidInputError(
            f"budget = {budget}: too small beside the other bids (largest y = {y.max():g}) for "
            f"double precision: the bids would sum to {value:g}"
        )
    _raise_for_status(code, j, w, y)
    return out


class FiniteBestResponse(NamedTuple):
    """A best response under finite parallelism and the local-search swaps it took.

    Parameters
    ----------
    bids : numpy.ndarray
        Float64 bids, shape (n_machines,), nonzero on at most k machines.
    swaps : int
        The number of improving swaps made.
    """

    bids: np.ndarray
    swaps: int


def best_response_finite(w: ArrayLike, y: ArrayLike, budget: float, k: int) -> FiniteBestResponse:
    """Local-search best response when the user can use at most ``k`` machines.

    Start from the k machines with the largest w/y, compute the best response restricted to them,
    and swap one machine in and one out while that improves the utility. A heuristic (not proven
    optimal).

    Parameters
    ----------
    w : array_like
        Shape (n_machines,): the user's weights, finite and >= 0, not all 0.
    y : array_like
        Shape (n_machines,): the sum of the other users' bids on each machine, finite and >= 0,
        and > 0 where w > 0.
    budget : float
        The user's budget X > 0.
    k : int
        The most machines the user can use (parallelism), >= 1.

    Returns
    -------
    FiniteBestResponse
        ``(bids, swaps)``: float64 bids of shape (n_machines,) on at most k machines, and the number
        of improving swaps made.

    Raises
    ------
    InvalidInputError
        On invalid ``w``, ``y`` or ``budget`` (as :func:`best_response`) or ``k`` not an integer >=
        1.

    References
    ----------
    .. [1] M. Feldman, K. Lai, L. Zhang, "A Price-Anticipating Resource Allocation Mechanism for
       Distributed Shared Clusters", EC '05, 2005, §4.2.
    """
    w, y, budget = _check_inputs(w, y, budget)
    k = as_count(k, "k")
    w_unit, y_unit, budget_unit, scale = _unit_scale(w, y, budget)
    bids, swaps = _local_search(w_unit, y_unit, budget_unit, int(k))
    return FiniteBestResponse(bids * scale, int(swaps))


def _machine_vectors(
    w: ArrayLike, x: ArrayLike, y: ArrayLike
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """(w, x, y) as three float vectors of one length, one entry per machine, finite and >= 0, or a
    named error."""
    check_labels(("w", w, 0), x=x, y=y)
    w = as_values(w, "w", ndim=1)
    if w.size == 0:
        raise InvalidInputError("w: expected one weight per machine, got an empty vector")
    return w, as_values(x, "x", ndim=1, shape=w.shape), as_values(y, "y", ndim=1, shape=w.shape)


def utility(w: ArrayLike, x: ArrayLike, y: ArrayLike) -> float:
    """Linear utility sum_j w_j x_j / (x_j + y_j) of bids ``x`` against others' bids ``y`` (0/0
    counts 0).

    Parameters
    ----------
    w : array_like
        Shape (n_machines,): the user's weights, finite and >= 0.
    x : array_like
        Shape (n_machines,): the user's bids, finite and >= 0.
    y : array_like
        Shape (n_machines,): the other users' bids summed per machine, finite and >= 0.

    Returns
    -------
    float
        The utility.

    Raises
    ------
    InvalidInputError
        On an empty ``w``, vectors of different lengths or (pandas) machine labels, or negative or
        non-finite entries.

    References
    ----------
    .. [1] M. Feldman, K. Lai, L. Zhang, "A Price-Anticipating Resource Allocation Mechanism for
       Distributed Shared Clusters", EC '05, 2005, §2.
    """
    w, x, y = _machine_vectors(w, x, y)
    total = x + y
    with np.errstate(invalid="ignore", divide="ignore"):
        return float(np.sum(np.where(total > 0, w * x / total, 0.0)))


def finite_utility(w: ArrayLike, x: ArrayLike, y: ArrayLike, k: int) -> float:
    """Finite-parallelism utility: the sum of the k largest w_j r_j, with r_j = x_j / (x_j + y_j).

    Parameters
    ----------
    w : array_like
        Shape (n_machines,): the user's weights, finite and >= 0.
    x : array_like
        Shape (n_machines,): the user's bids, finite and >= 0.
    y : array_like
        Shape (n_machines,): the other users' bids summed per machine, finite and >= 0.
    k : int
        The most machines the user can use, >= 1.

    Returns
    -------
    float
        The utility.

    Raises
    ------
    InvalidInputError
        On an empty ``w``, vectors of different lengths or (pandas) machine labels, negative or
        non-finite entries, or ``k`` not an integer >= 1.

    References
    ----------
    .. [1] M. Feldman, K. Lai, L. Zhang, "A Price-Anticipating Resource Allocation Mechanism for
       Distributed Shared Clusters", EC '05, 2005, §4.2.
    """
    w, x, y = _machine_vectors(w, x, y)
    k = as_count(k, "k")
    total = x + y
    with np.errstate(invalid="ignore", divide="ignore"):
        v = np.where(total > 0, w * x / total, 0.0)
    return float(np.sort(v)[::-1][:k].sum())
