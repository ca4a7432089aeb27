"""DRF by progressive filling for indivisible tasks (Ghodsi et al. 2011, Algorithm 1).

A 4-ary heap keyed on (weighted dominant share, tie-break, index) picks the user with the lowest
share; each pick costs O(m + log n), so a run costs O(n + T (m + log n)) for T allocated tasks.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike

from .._jit import interpreted_when_small, njit
from .._validate import (
    InvalidInputError,
    as_capacities,
    as_count,
    as_demands,
    as_instance,
    as_weights,
    check_choice,
    check_task_bound,
    result_type,
)
from .cluster import Allocation, Cluster, monopoly_tasks, pool_arrays, pool_column
from .quotas import Quotas

__all__ = [
    "drf",
    "DRFResult",
    "dominant_resources",
    "STOP_RULES",
    "ZERO_RULES",
    "TIE_BREAKS",
    "SHARE_ARITHMETIC",
    "FIT_RTOL",
    "share_steps",
]

STOP_RULES = ("skip_blocked", "first_blocked")
#: how drf treats zero capacities, all-zero demands and zero weights (see ``drf``'s ``zeros``)
ZERO_RULES = ("error", "scheduler")
#: orders among users with equal shares; the last two mirror YARN and Mesos (see :mod:`.sorter`)
TIE_BREAKS = ("lowest_index", "higher_share", "lexicographic", "allocation_count")
#: a task fits when consumed + demand <= capacity * (1 + FIT_RTOL): absorbs float round-off only
FIT_RTOL = 1e-12
_MAX_RECORDED = 10_000_000
#: progressive filling does one heap step per task: above this many (an upper bound from the inputs) it is refused
MAX_ALLOCATIONS = 2_000_000_000


@result_type
@dataclass(frozen=True)
class DRFResult:
    """Outcome of progressive filling.

    Parameters
    ----------
    tasks : numpy.ndarray
        Int64, shape (n_users,): tasks allocated to each user.
    consumed : numpy.ndarray
        Float64, shape (n_resources,): resources used by all tasks.
    dominant_shares : numpy.ndarray
        Float64, shape (n_users,): tasks * max_r demand[i, r] / capacity[r] (unweighted).
    n_allocations : int
        Number of allocation steps of this run (= tasks.sum() - start.sum()).
    blocked_user : int
        ``stop="first_blocked"``: the user whose task did not fit (-1 if the loop ended because every user reached
        its cap); ``"skip_blocked"``: -1.
    order : numpy.ndarray or None, default None
        Int64, shape (n_allocations,): users in allocation order (``record_order=True``), else None.
    work : int, default 0
        Element operations of the filling loop (demand entries read, heap entries compared), counted by the kernel:
        the machine-independent measure of its O(T (m + log n)) cost.
    share_arithmetic : str, default "rational"
        How shares were compared: ``"rational"`` (exactly, as fractions of integers), ``"float"`` (``tasks * step``
        in floating point: non-integer inputs) or ``"accumulated"`` (``s += step``).
    left_out : numpy.ndarray, default empty
        Int64, shape (k,): ``zeros="scheduler"`` only: users given no task because they demand nothing or need a
        resource with zero capacity (empty otherwise).
    dominant_resource : numpy.ndarray, default empty
        Int64, shape (n_users,): the resource of each user's largest ``demand / capacity`` (the first of equals; -1
        for a user in ``left_out``), as schedulers report it (Kueue's dominant resource, YARN's first compared
        share).
    """

    tasks: np.ndarray
    consumed: np.ndarray
    dominant_shares: np.ndarray
    n_allocations: int
    blocked_user: int
    order: np.ndarray | None = None
    work: int = 0
    share_arithmetic: str = "rational"
    left_out: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    dominant_resource: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))


def row_reduce(ufunc, a: np.ndarray) -> np.ndarray:
    """``ufunc.reduce(a, axis=1)`` of a (users x resources) array, one resource column at a time.

    NumPy reduces a short contiguous axis several times slower (0.32 against 0.05 ms at 10⁴ x 10). A maximum or minimum
    does not round, so the result is the same; NaN propagates as there."""
    out = a[:, 0].copy()
    for r in range(1, a.shape[1]):
        ufunc(out, a[:, r], out=out)
    return out


@njit(cache=True)
def pool_summary(demands, capacity):
    """Per-task dominant share, solo task count and dominant resource of every user, in one pass.

    Per user, for positive capacities: (max_r d_ir / c_r, the most tasks user i could run alone
    min_{r: d_ir > 0} c_r / d_ir (inf if none), the dominant resource as :func:`dominant_resources` gives it); the
    same divisions, maxima and minima as the NumPy expressions (which do not round), at a tenth of their cost.

    Parameters
    ----------
    demands : float64[:, :]
        Per-task demands, shape (n_users, n_resources).
    capacity : float64[:]
        Capacities, shape (n_resources,), all > 0.
    """
    n, m = demands.shape
    per_task = np.empty(n)
    alone = np.empty(n)
    dominant = np.empty(n, dtype=np.int64)
    for i in range(n):
        top = demands[i, 0] / capacity[0]
        best = 0
        most = np.inf
        for r in range(m):  # from 0, not 1: the solo count needs resource 0 too
            ratio = demands[i, r] / capacity[r]
            if ratio > top:
                top = ratio
                best = r
            if demands[i, r] > 0.0:
                most = min(most, capacity[r] / demands[i, r])
        per_task[i] = top
        alone[i] = most
        dominant[i] = best if top > 0.0 else -1
    return per_task, alone, dominant


def dominant_resources(demands: ArrayLike, capacity: ArrayLike) -> npt.NDArray[np.int64]:
    """Each user's dominant resource, ``argmax_r demands[i, r] / capacity[r]`` over resources with a positive capacity.

    Parameters
    ----------
    demands : array_like
        Shape (n_users, n_resources): per-task demands, >= 0 (not validated).
    capacity : array_like
        Shape (n_resources,): capacities, >= 0; resources with capacity 0 are left out.

    Returns
    -------
    numpy.ndarray
        Int64, shape (n_users,): the first of equals, -1 for a user demanding none of the resources.
    """
    d, cap = np.asarray(demands, dtype=float), np.asarray(capacity, dtype=float)
    pos = cap > 0
    with np.errstate(
        over="ignore"
    ):  # a ratio beyond float range is inf, still the largest: the answer stands
        ratios = np.where(pos, d / np.where(pos, cap, 1.0), 0.0)
    return np.where((ratios > 0).any(axis=1), ratios.argmax(axis=1), -1).astype(np.int64)


# The heap of progressive filling: entry e is row e of ``heap`` (int64: exact share numerator, denominator, secondary
# key, user) and, in floating-point mode, ``hkey[e]`` (the share). One row is one 32-byte read or move, four siblings
# two cache lines; in exact mode ``hkey`` is never read or moved.
_NUM, _DEN, _SEC, _USER = 0, 1, 2, 3


@njit(cache=True, inline="always")
def _before(key_a, num_a, den_a, sec_a, key_b, num_b, den_b, sec_b, exact):
    """Heap order: (share, secondary) lexicographic, exact shares num/den compared by cross-products, floating-point
    ones by key. Bitwise operators, not ``and``/``or``: no branch, so a comparison whose outcome is a coin toss costs
    no misprediction.

    Parameters
    ----------
    key_a : float
        Floating-point share of item a (read when not ``exact``).
    num_a : int
        Exact share numerator of a.
    den_a : int
        Exact share denominator of a.
    sec_a : int
        Secondary key of a.
    key_b : float
        Floating-point share of item b.
    num_b : int
        Exact share numerator of b.
    den_b : int
        Exact share denominator of b.
    sec_b : int
        Secondary key of b.
    exact : bool
        Whether shares are compared as fractions.
    """
    if exact:
        lhs = num_a * den_b
        rhs = num_b * den_a
        return (lhs < rhs) | ((lhs == rhs) & (sec_a < sec_b))
    return (key_a < key_b) | ((key_a == key_b) & (sec_a < sec_b))


# The two replacements below walk the same bottom-up path; the exact one, which DRF's shares use, finds the smallest
# of four children by a branch-free tournament, the floating-point one by a scan. They are written out rather than
# built from shared inlined helpers: numba's inlining of nested helpers tripled DRF's first compilation, and a
# flag tested inside the walk cost a third of its speed.


@njit(cache=True)
def _replace_top_exact(heap, size, num, den, sec, user):
    """Put (num/den, sec, user) at the root of the 4-ary heap of exact shares and restore it; returns the number of
    heap entries compared (the counted work of the operation).

    A 4-ary heap halves the depth of a binary one and keeps siblings in two cache lines. Bottom-up: the new root
    key usually belongs near the leaves (a user's share just grew), so walk the hole down along the smallest
    children, then sift the item up. The smallest of four children: a tournament of three comparisons without
    branches (pairs, then their winners; ties go to the earlier child, as a scan would), each child's values read
    once and the winners' values selected, not re-read, so the final comparison waits on no load; the indices are
    computed before the last select (inside a conditional expression they compiled to a jump).

    Parameters
    ----------
    heap : int64[:, :]
        The 4-ary heap, shape (n_users, 4): rows (share numerator, denominator, secondary key, user).
    size : int
        Entries in the heap.
    num : int
        The new root's share numerator.
    den : int
        Its share denominator.
    sec : int
        Its secondary key.
    user : int
        Its user.
    """
    pos = 0
    first = 1
    compared = 0
    while first < size:
        last = min(first + 4, size)
        compared += last - first
        if last - first == 4:
            n0, d0, s0 = heap[first, _NUM], heap[first, _DEN], heap[first, _SEC]
            n1, d1, s1 = heap[first + 1, _NUM], heap[first + 1, _DEN], heap[first + 1, _SEC]
            n2, d2, s2 = heap[first + 2, _NUM], heap[first + 2, _DEN], heap[first + 2, _SEC]
            n3, d3, s3 = heap[first + 3, _NUM], heap[first + 3, _DEN], heap[first + 3, _SEC]
            one = _before(0.0, n1, d1, s1, 0.0, n0, d0, s0, True)
            three = _before(0.0, n3, d3, s3, 0.0, n2, d2, s2, True)
            n_l = (
                n1 if one else n0
            )  # one select per value: a tuple-valued conditional compiles to a branch
            d_l = d1 if one else d0
            s_l = s1 if one else s0
            n_r = n3 if three else n2
            d_r = d3 if three else d2
            s_r = s3 if three else s2
            left = first + one
            right = first + 2 + three
            best = right if _before(0.0, n_r, d_r, s_r, 0.0, n_l, d_l, s_l, True) else left
        else:
            best = first
            for c in range(first + 1, last):
                if _before(
                    0.0,
                    heap[c, _NUM],
                    heap[c, _DEN],
                    heap[c, _SEC],
                    0.0,
                    heap[best, _NUM],
                    heap[best, _DEN],
                    heap[best, _SEC],
                    True,
                ):
                    best = c
        for k in range(4):
            heap[pos, k] = heap[best, k]
        pos = best
        first = 4 * pos + 1
    while pos > 0:
        parent = (pos - 1) // 4
        compared += 1
        if _before(
            0.0,
            num,
            den,
            sec,
            0.0,
            heap[parent, _NUM],
            heap[parent, _DEN],
            heap[parent, _SEC],
            True,
        ):
            for k in range(4):
                heap[pos, k] = heap[parent, k]
            pos = parent
        else:
            break
    heap[pos, _NUM], heap[pos, _DEN], heap[pos, _SEC], heap[pos, _USER] = num, den, sec, user
    return compared


@njit(cache=True)
def _replace_top_float(heap, hkey, size, key, sec, user):
    """:func:`_replace_top_exact` for floating-point shares ``hkey``, the smallest child found by a scan.

    Parameters
    ----------
    heap : int64[:, :]
        The 4-ary heap, shape (n_users, 4): rows (share numerator, denominator, secondary key, user).
    hkey : float64[:]
        Shape (n_users,): the floating-point share of each heap entry.
    size : int
        Entries in the heap.
    key : float
        The new root's share.
    sec : int
        Its secondary key.
    user : int
        Its user.
    """
    pos = 0
    first = 1
    compared = 0
    while first < size:
        last = min(first + 4, size)
        compared += last - first
        best = first
        for c in range(first + 1, last):
            if _before(hkey[c], 0, 0, heap[c, _SEC], hkey[best], 0, 0, heap[best, _SEC], False):
                best = c
        for k in range(4):
            heap[pos, k] = heap[best, k]
        hkey[pos] = hkey[best]
        pos = best
        first = 4 * pos + 1
    while pos > 0:
        parent = (pos - 1) // 4
        compared += 1
        if _before(key, 0, 0, sec, hkey[parent], 0, 0, heap[parent, _SEC], False):
            for k in range(4):
                heap[pos, k] = heap[parent, k]
            hkey[pos] = hkey[parent]
            pos = parent
        else:
            break
    heap[pos, _SEC], heap[pos, _USER] = sec, user
    hkey[pos] = key
    return compared


@njit(cache=True)
def held_resources(tasks, demands):
    """Resources used by ``tasks[i]`` tasks of each user, summed user by user (the order the fillers' checks assume).

    Parameters
    ----------
    tasks : int64[:] or float64[:]
        Tasks per user, shape (n_users,).
    demands : float64[:, :]
        Per-task demands, shape (n_users, n_resources).

    Returns
    -------
    float64[:]
        Shape (n_resources,).
    """
    n, m = demands.shape
    consumed = np.zeros(m)
    for i in range(n):
        for r in range(m):
            consumed[r] += tasks[i] * demands[i, r]
    return consumed


@njit(cache=True)
def _growth(held, i, r, demands, reserved, reserving):
    """How much one more task of user i adds to the committed amount of resource r: its demand, less the part that
    falls inside its own reservation (``Σ_j max(tasks_j demands_j, reserved_j)`` is what is committed).

    Parameters
    ----------
    held : int
        Tasks user i holds now.
    i : int
        The user.
    r : int
        The resource.
    demands : float64[:, :]
        Per-task demands, shape (n_users, n_resources).
    reserved : float64[:, :]
        Shape (n_users, n_resources): reserved amounts (read when ``reserving``).
    reserving : bool
        Whether there are reservations.
    """
    if not reserving:
        return demands[i, r]
    before = held * demands[i, r]
    return max(before + demands[i, r], reserved[i, r]) - max(before, reserved[i, r])


@njit(cache=True)
def _committed(tasks, demands, reserved):
    """``Σ_i max(tasks_i demands_i, reserved_i)`` per resource, summed user by user.

    Parameters
    ----------
    tasks : int64[:]
        Tasks per user, shape (n_users,).
    demands : float64[:, :]
        Per-task demands, shape (n_users, n_resources).
    reserved : float64[:, :]
        Reserved amounts, shape (n_users, n_resources).
    """
    n, m = demands.shape
    committed = np.zeros(m)
    for i in range(n):
        for r in range(m):
            committed[r] += max(tasks[i] * demands[i, r], reserved[i, r])
    return committed


def committed_amounts(held, d, reserved) -> np.ndarray:
    """``np.maximum(held[:, None] * d, reserved).sum(axis=0)`` (``reserved`` (0, m): none), as NumPy sums it.

    With two resources or more its temporary is row-major and NumPy adds it row by row, which :func:`_committed` does
    without the two temporaries (bit for bit, tested); with one NumPy adds pairwise, so NumPy does it. Tasks and
    demands are >= 0, so without reservations the maximum is the product itself (:func:`held_resources`)."""
    if d.shape[1] >= 2:
        if not reserved.shape[0]:
            return held_resources(held, d)
        return _committed(held, d, np.ascontiguousarray(reserved))
    return np.maximum(held[:, None] * d, reserved if reserved.shape[0] else 0.0).sum(axis=0)


@njit(cache=True)
def _borrowed_share(t, i, demands, nominal, lendable, weights):
    """Kueue's share of user i holding t tasks: the most it borrows beyond its nominal quota on any resource, as a
    fraction of what the pool can lend of it (resources with nothing to lend left out), over its weight.

    Parameters
    ----------
    t : int
        Tasks the user holds.
    i : int
        The user.
    demands : float64[:, :]
        Per-task demands, shape (n_users, n_resources).
    nominal : float64[:, :]
        Nominal quotas, shape (n_users, n_resources).
    lendable : float64[:]
        What the pool can lend of each resource, shape (n_resources,).
    weights : float64[:]
        User weights, shape (n_users,).
    """
    share = 0.0
    for r in range(demands.shape[1]):
        if lendable[r] > 0:
            share = max(share, (t * demands[i, r] - nominal[i, r]) / lendable[r])
    return share / weights[i]


def _progressive_filling(
    demands,
    capacity,
    step,
    share_num,
    share_den,
    accumulate,
    secondary,
    zero_secondary,
    caps,
    skip_blocked,
    record,
    order,
    start,
    reserved,
    nominal,
    lendable,
    weights,
):
    """Heap-based progressive filling from the allocation ``start`` (tasks per user).

    ``step[i]`` is the weighted dominant share of one task of user i; ``secondary[i]`` orders users
    with equal positive shares (a permutation of 0..n-1), ``zero_secondary[i]`` users with no task yet (the scheduler
    rules order those by index: every share is 0 there). Shares are compared exactly when ``share_den`` is non-empty
    (user i's share after t tasks is ``t * share_num[i] / share_den[i]``, integers, compared by cross-products);
    otherwise as ``tasks * step`` in floating point, or, with ``accumulate``, as the running float sum
    ``s += step`` of the author's scripts. Returns (tasks, consumed, allocations, blocked user, work):
    ``work`` counts element operations (demand entries read, heap entries compared) after the O(n m + n log n)
    set-up — the O(T (m + log n)) of the module docstring, measured.

    Quotas (:mod:`.quotas`; empty (0, m) arrays when unused): ``reserved[i]`` is the part of user i's guarantee
    nobody else may use — a task fits when ``Σ_j max(tasks_j demands_j, reserved_j) <= capacity`` after it, so
    user i's tasks within ``reserved[i]`` take nothing from the others. With ``nominal`` non-empty, shares are
    Kueue's borrowed share ``max(0, max_r (tasks_i demands_ir - nominal_ir) / lendable_r) / weights_i`` over the
    resources with ``lendable_r > 0`` (in floating point; ``share_den`` must then be empty) instead of
    ``tasks * step``.

    The starting heap is sorted as Python (:func:`_start_order`) between two kernels (:func:`_start_keys`,
    :func:`_fill`): numba's sorts are ~2.5 s of a first compilation, and a sort of distinct keys has one answer.
    """
    keys, sec0 = _start_keys(
        demands, step, accumulate, secondary, zero_secondary, start, nominal, lendable, weights
    )
    return _fill(
        demands,
        capacity,
        step,
        share_num,
        share_den,
        accumulate,
        secondary,
        caps,
        skip_blocked,
        record,
        order,
        start,
        reserved,
        nominal,
        lendable,
        weights,
        keys,
        sec0,
        _start_order(keys, sec0),
    )


@njit(cache=True)
def _start_keys(
    demands, step, accumulate, secondary, zero_secondary, start, nominal, lendable, weights
):
    """Each user's share at the ``start`` allocation and its secondary key (``zero_secondary`` for a user with no
    task yet): the heap's (share, secondary) items.

    Parameters
    ----------
    demands : float64[:, :]
        Per-task demands, shape (n_users, n_resources).
    step : float64[:]
        Weighted dominant share of one task, shape (n_users,).
    accumulate : bool
        Whether shares are running float sums.
    secondary : int64[:]
        Secondary keys of users holding tasks, shape (n_users,).
    zero_secondary : int64[:]
        Secondary keys of users holding none, shape (n_users,).
    start : int64[:]
        Tasks each user holds at the start, shape (n_users,).
    reserved : float64[:, :]
        Shape (n_users, n_resources): each user's reserved amounts, or (0, m) for none.
    nominal : float64[:, :]
        Shape (n_users, n_resources): Kueue's nominal quotas, or (0, m) when shares are not borrowed shares.
    lendable : float64[:]
        Shape (n_resources,): what the pool can lend of each resource, or (0,).
    weights : float64[:]
        Shape (n_users,): weights of the borrowed shares, or (0,).
    """
    n = demands.shape[0]
    borrowed = nominal.shape[0] > 0
    keys = np.empty(n)
    for i in range(n):
        if borrowed:
            keys[i] = _borrowed_share(start[i], i, demands, nominal, lendable, weights)
        elif accumulate:
            s = 0.0
            for _ in range(start[i]):
                s += step[i]
            keys[i] = s
        else:
            keys[i] = start[i] * step[i]
    sec0 = np.empty(
        n, dtype=np.int64
    )  # a loop, not np.where: its broadcasting compiles ~0.7 s of error paths
    for i in range(n):
        sec0[i] = secondary[i] if start[i] > 0 else zero_secondary[i]
    return keys, sec0


def _start_order(keys, sec0):
    """Users sorted by (share, secondary): the heap's starting array (a sorted array is a valid heap). As the
    filling kernel sorted them: by secondary key (numba's quicksort), then stably by share. With distinct
    secondary keys every sort gives that order, so NumPy sorts; where some repeat (users with and without tasks
    under the ``lexicographic`` and ``allocation_count`` ties), numba's quicksort orders them its own way and the
    heap keeps that order among exact ties, so it is used (:func:`_argsort_repeated`)."""
    n = sec0.shape[0]
    if n and 0 <= sec0.min() and sec0.max() < n and np.bincount(sec0, minlength=n).max() == 1:
        perm = np.empty(
            n, dtype=np.int64
        )  # a permutation of 0..n-1: its sort is its inverse, in O(n)
        perm[sec0] = np.arange(n)
    elif np.unique(sec0).size == n:
        perm = np.argsort(sec0, kind="stable")
    else:
        perm = _argsort_repeated(sec0)
    return perm[np.argsort(keys[perm], kind="stable")]


@njit(cache=True)
def _argsort_repeated(values):
    """``np.argsort(values)`` compiled (numba's quicksort); compiled only when some value repeats.

    Parameters
    ----------
    values : int64[:]
        The keys, shape (n,).
    """
    return np.argsort(values)


@njit(cache=True)
def _fill(
    demands,
    capacity,
    step,
    share_num,
    share_den,
    accumulate,
    secondary,
    caps,
    skip_blocked,
    record,
    order,
    start,
    reserved,
    nominal,
    lendable,
    weights,
    keys,
    sec0,
    perm,
):
    """The heap-based filling of :func:`_progressive_filling` from the users in starting order ``perm`` (shares
    ``keys``, secondary keys ``sec0``).

    Parameters
    ----------
    demands : float64[:, :]
        Per-task demands, shape (n_users, n_resources).
    capacity : float64[:]
        Capacities, shape (n_resources,).
    step : float64[:]
        Weighted dominant share of one task, shape (n_users,).
    share_num : int64[:]
        Exact share numerators per task, shape (n_users,), or (0,) for floating-point shares.
    share_den : int64[:]
        Exact share denominators, shape (n_users,), or (0,).
    accumulate : bool
        Whether floating-point shares are running sums ``s += step``.
    secondary : int64[:]
        Secondary keys (tie order), shape (n_users,).
    caps : int64[:]
        Per-user task caps, shape (n_users,).
    skip_blocked : bool
        True: drop a blocked user and go on; False: stop at the first blocked user.
    record : bool
        Whether to write the allocation order into ``order``.
    order : int64[:]
        Output buffer for the allocation order (read when ``record``).
    start : int64[:]
        Tasks each user holds at the start, shape (n_users,).
    reserved : float64[:, :]
        Shape (n_users, n_resources): each user's reserved amounts, or (0, m) for none.
    nominal : float64[:, :]
        Shape (n_users, n_resources): Kueue's nominal quotas, or (0, m) when shares are not borrowed shares.
    lendable : float64[:]
        Shape (n_resources,): what the pool can lend of each resource, or (0,).
    weights : float64[:]
        Shape (n_users,): weights of the borrowed shares, or (0,).
    keys : float64[:]
        Each user's starting share, shape (n_users,).
    sec0 : int64[:]
        Each user's starting secondary key, shape (n_users,).
    perm : int64[:]
        Users in starting heap order, shape (n_users,).
    """
    n, m = demands.shape
    exact = share_den.shape[0] > 0
    reserving = reserved.shape[0] > 0
    borrowed = nominal.shape[0] > 0
    tasks = start.copy()
    consumed = held_resources(tasks, demands)
    committed = _committed(tasks, demands, reserved) if reserving else consumed
    limit = capacity * (1.0 + FIT_RTOL)
    hkey = np.zeros(n)
    heap = np.zeros((n, 4), dtype=np.int64)
    size = (
        n - n
    )  # not the literal 0: numba would first compile _replace_top for a constant size of 0
    for j in range(n):
        i = perm[j]
        if tasks[i] < caps[i]:
            hkey[size], heap[size, _SEC], heap[size, _USER] = keys[i], sec0[i], i
            if exact:
                heap[size, _NUM], heap[size, _DEN] = tasks[i] * share_num[i], share_den[i]
            size += 1
    if exact:  # float keys may order exact ties wrongly: insertion-sort the (nearly sorted) entries exactly
        for j in range(1, size):
            k, nm, dn, sc, ix = hkey[j], heap[j, _NUM], heap[j, _DEN], heap[j, _SEC], heap[j, _USER]
            pos = j
            while pos > 0 and _before(
                k,
                nm,
                dn,
                sc,
                0.0,
                heap[pos - 1, _NUM],
                heap[pos - 1, _DEN],
                heap[pos - 1, _SEC],
                True,
            ):
                for c in range(4):
                    heap[pos, c] = heap[pos - 1, c]
                pos -= 1
            hkey[pos], heap[pos, _NUM], heap[pos, _DEN], heap[pos, _SEC], heap[pos, _USER] = (
                k,
                nm,
                dn,
                sc,
                ix,
            )
    count = 0
    blocked = -1
    work = 0
    while size > 0:
        i = heap[0, _USER]
        over = False
        work += m
        # every resource, without a branch (a loop that can stop early costs more than it saves), and the common case
        # apart from the reservations' so that it vectorises
        if reserving:
            for r in range(m):
                over |= (
                    committed[r] + _growth(tasks[i], i, r, demands, reserved, reserving) > limit[r]
                )
        else:
            for r in range(m):
                over |= consumed[r] + demands[i, r] > limit[r]
        if not over:
            if reserving:
                for r in range(m):
                    committed[r] += _growth(tasks[i], i, r, demands, reserved, reserving)
            for r in range(m):
                consumed[r] += demands[i, r]
            tasks[i] += 1
            if record:
                order[count] = i
            count += 1
            if tasks[i] < caps[i]:
                if exact:
                    work += _replace_top_exact(
                        heap, size, tasks[i] * share_num[i], share_den[i], secondary[i], i
                    )
                else:
                    if borrowed:
                        key = _borrowed_share(tasks[i], i, demands, nominal, lendable, weights)
                    else:
                        key = hkey[0] + step[i] if accumulate else tasks[i] * step[i]
                    work += _replace_top_float(heap, hkey, size, key, secondary[i], i)
                continue
        elif not skip_blocked:
            blocked = i
            break
        # a blocked user never fits again (resources only fill up); a capped one is done
        size -= 1
        if size > 0:
            if exact:
                work += _replace_top_exact(
                    heap,
                    size,
                    heap[size, _NUM],
                    heap[size, _DEN],
                    heap[size, _SEC],
                    heap[size, _USER],
                )
            else:
                work += _replace_top_float(
                    heap, hkey, size, hkey[size], heap[size, _SEC], heap[size, _USER]
                )
    return tasks, consumed, count, blocked, work


def no_quotas(m: int) -> tuple:
    """The quota arguments (reserved, nominal, lendable, weights) of :func:`_progressive_filling` without quotas."""
    return np.empty((0, m)), np.empty((0, m)), np.empty(0), np.empty(0)


SHARE_ARITHMETIC = ("exact", "accumulated")
#: exact shares need every cross-product (share numerator × denominator) below this (int64, with headroom)
_EXACT_LIMIT = 2.0**62


def _is_cluster(first, capacity, weights) -> bool:
    """Whether a pooled mechanism was called on a Cluster (the contract) rather than on arrays; a cluster carries
    its own capacity and weights, so passing them as well is an error."""
    from .cluster import Cluster

    if not isinstance(first, Cluster):
        if capacity is None:
            raise InvalidInputError(
                "capacity: required when the first argument is a demands array "
                "(or pass a Cluster: Cluster.single_pool(capacity, demand))"
            )
        return False
    if capacity is not None or weights is not None:
        raise InvalidInputError(
            "capacity, weights: a Cluster carries its own; pass only the cluster"
        )
    return True


class ShareSteps(NamedTuple):
    """Per-task weighted dominant shares and how progressive filling compares them (see :func:`share_steps`).

    Parameters
    ----------
    step : numpy.ndarray
        Float64, shape (n_users,): max_r d[i, r] / c[r] / w[i].
    share_num : numpy.ndarray
        Int64, shape (n_users,) or (0,): exact numerators (rational arithmetic only).
    share_den : numpy.ndarray
        Int64, shape (n_users,) or (0,): exact denominators.
    accumulate : bool
        Whether shares are running float sums.
    arithmetic : str
        ``"rational"``, ``"float"`` or ``"accumulated"``.
    """

    step: np.ndarray
    share_num: np.ndarray
    share_den: np.ndarray
    accumulate: bool
    arithmetic: str


def share_steps(
    demands: npt.NDArray[np.float64],
    capacity: npt.NDArray[np.float64],
    weights: npt.NDArray[np.float64],
    share_arithmetic: str = "exact",
    *,
    per_task: npt.NDArray[np.float64] | None = None,
) -> ShareSteps:
    """Per-task weighted dominant shares for progressive filling, and how they are compared.

    ``step[i] = max_r d[i,r]/c[r] / w[i]`` in floating point; for ``"exact"`` with integer demands, capacities and
    weights (and products below 2⁶²), the same share as the reduced fraction ``share_num[i] / share_den[i]``
    (``arithmetic = "rational"``), else empty arrays and ``arithmetic = "float"`` (shares compared as
    ``tasks * step``). ``"accumulated"`` mirrors the author's scripts: ``s += step`` per task, compared in floating
    point.

    Parameters
    ----------
    demands : numpy.ndarray
        Float64, shape (n_users, n_resources): validated per-task demands.
    capacity : numpy.ndarray
        Float64, shape (n_resources,): validated capacities, > 0.
    weights : numpy.ndarray
        Float64, shape (n_users,): validated weights, > 0.
    share_arithmetic : {"exact", "accumulated"}, default "exact"
        How shares are compared.
    per_task : numpy.ndarray or None, default None
        Float64, shape (n_users,): max_r d[i,r]/c[r] when the caller has it (:func:`pool_summary`).

    Returns
    -------
    ShareSteps
        ``(step, share_num, share_den, accumulate, arithmetic)``.

    Raises
    ------
    InvalidInputError
        On an unknown ``share_arithmetic``.
    """
    check_choice(share_arithmetic, SHARE_ARITHMETIC, "share_arithmetic")
    d, cap, w = demands, capacity, weights
    step = (row_reduce(np.maximum, d / cap) if per_task is None else per_task) / w
    empty = np.empty(0, dtype=np.int64)
    if share_arithmetic == "accumulated":
        return ShareSteps(step, empty, empty, True, "accumulated")
    integral = all(np.all(np.isfinite(a) & (a == np.round(a))) for a in (d, cap, w))
    c_max = float(cap.max()) if cap.size else 0.0
    bound = (c_max + float(d.max(initial=0.0))) * c_max * float(w.max(initial=1.0))
    if not integral or bound >= _EXACT_LIMIT:
        return ShareSteps(step, empty, empty, False, "float")
    num, den = _exact_shares(d.astype(np.int64), cap.astype(np.int64), w.astype(np.int64))
    return ShareSteps(step, num, den, False, "rational")


@njit(cache=True)
def _exact_shares(demands, capacity, weights):
    """Each user's weighted dominant share max_r d_ir / c_r / w_i as a reduced fraction (num, den) of int64s: the best
    fraction kept by cross-multiplication (the first of equals), then divided by the greatest common divisor
    (0 / b reduces to 0 / 1, as np.gcd gives). One pass per user, where NumPy took ten (0.9 against 0.05 ms at
    10⁴ users x 10 resources).

    Parameters
    ----------
    demands : int64[:, :]
        Integer per-task demands, shape (n_users, n_resources).
    capacity : int64[:]
        Integer capacities, shape (n_resources,), > 0.
    weights : int64[:]
        Integer weights, shape (n_users,), > 0.
    """
    n, m = demands.shape
    num = np.empty(n, dtype=np.int64)
    den = np.empty(n, dtype=np.int64)
    for i in range(n):
        a, b = demands[i, 0], capacity[0]
        for r in range(1, m):
            if demands[i, r] * b > a * capacity[r]:
                a, b = demands[i, r], capacity[r]
        b *= weights[i]
        x, y = a, b  # Euclid: gcd(a, b), b > 0
        while y != 0:
            x, y = y, x % y
        g = x if x != 0 else 1
        num[i] = a // g
        den[i] = b // g
    return num, den


def _secondary_order(tie_break, d, cap, step, share_num, share_den, arithmetic) -> np.ndarray:
    """Rank of each user among users with equal positive weighted dominant shares (see ``drf``'s ``tie_break``).

    Both scheduler rules are static orders within a run. YARN's: with equal dominant share S, user i's k-th largest
    weighted share is S · ρ_i(k), ρ_i(k) = (k-th largest d_ir / c_r) / (largest d_ir / c_r), so comparing the
    sorted share vectors is comparing the ρ vectors. Mesos's: with equal share S, user i holds S / step_i tasks
    (one allocation each), so fewer allocations is a larger per-task share — ``higher_share``'s order.
    """
    n = len(d)
    by_index = np.arange(n, dtype=np.int64)
    if tie_break == "lowest_index":
        return by_index
    rank = np.empty(n, dtype=np.int64)
    if tie_break in ("higher_share", "allocation_count"):
        # exact mode: num/den is the reduced fraction, so equal shares give equal floats here
        per_step = share_num / share_den if arithmetic == "rational" else step
        rank[np.lexsort((by_index, -per_step))] = by_index
        return rank
    rank[_by_next_shares(d, cap, arithmetic == "rational")] = by_index
    return rank


def _by_next_shares(d, cap, exact: bool) -> np.ndarray:
    """Users ordered by ρ_i (see :func:`_secondary_order`), lexicographically, then by index.

    Vectorised over users: ρ in floating point orders every pair whose ρ differ by more than rounding (a correctly
    rounded quotient is monotone). ``exact`` (integer inputs): ρ_i(k) is the reduced fraction
    d_ik · c_top / (c_k · d_i,top), whose float is correctly rounded while both stay below 2⁵³, so only users whose
    float vectors are equal but whose fractions differ need exact comparison — re-sorted with ``Fraction``.
    """
    n, m = d.shape
    rows = np.arange(n)[:, None]
    cols = np.argsort(-(d / cap), axis=1, kind="stable")
    top = cols[:, :1]
    exact_parts = None
    if exact:
        di, ci = d.astype(np.int64), cap.astype(np.int64)
        num, den = di[rows, cols] * ci[top], ci[cols] * di[rows, top]
        if max(int(num.max()), int(den.max())) < 2**53:
            g = np.gcd(num, den)
            num, den = num // g, den // g
            rho = num / den
            exact_parts = (num, den)
    if exact and exact_parts is None:  # products too large for exact floats: fractions for everyone
        keys = [
            tuple(
                Fraction(int(di[i, c]) * int(ci[cols[i, 0]]), int(ci[c]) * int(di[i, cols[i, 0]]))
                for c in cols[i]
            )
            for i in range(n)
        ]
        return np.array(sorted(range(n), key=lambda i: (keys[i], i)), dtype=np.int64)
    if not exact:
        shares = np.take_along_axis(d / cap, cols, axis=1)
        rho = shares / shares[:, :1]
    order = np.lexsort((np.arange(n),) + tuple(rho[:, k] for k in range(m - 1, -1, -1)))
    if exact_parts is None or n < 2:
        return order
    # runs of equal float vectors whose fractions differ: order them exactly
    same = np.all(rho[order[1:]] == rho[order[:-1]], axis=1)
    num, den = exact_parts
    start = 0
    for j in range(1, n + 1):
        if j < n and same[j - 1]:
            continue
        run = order[start:j]
        if len(run) > 1 and not (
            np.all(num[run] == num[run[0]]) and np.all(den[run] == den[run[0]])
        ):
            order[start:j] = sorted(
                run,
                key=lambda i: (tuple(Fraction(int(a), int(b)) for a, b in zip(num[i], den[i])), i),
            )
        start = j
    return order


def _whole_task_caps(max_tasks, n: int) -> np.ndarray | None:
    """``drf``'s ``max_tasks`` checked (n integers >= 0, as given) or ``None``."""
    if max_tasks is None:
        return None
    caps = np.asarray(max_tasks)
    if caps.shape != (n,) or caps.dtype.kind not in "iu":
        raise InvalidInputError(
            f"max_tasks: expected {n} integers (one per user), got "
            f"shape {caps.shape} dtype {caps.dtype}"
        )
    if (caps < 0).any():
        i = int(np.argmax(caps < 0))
        raise InvalidInputError(f"max_tasks[{i}] = {caps[i]}: max_tasks must be >= 0")
    return caps


def filling_bounds(
    d, cap, per_task, max_tasks, max_allocations, *, alone=None
) -> tuple[np.ndarray, float]:
    """Each user's task cap and a bound on the steps of a filling run (one per task).

    The caps are ``max_tasks`` checked and clipped to what the user could run alone; a bound above
    ``max_allocations`` is refused. ``alone``: the most tasks each user
    could run alone, when the caller has it (:func:`pool_summary`)."""
    n, m = d.shape
    # most tasks any single user could get alone; also bounds every count below
    if alone is None:
        pos = d > 0
        with np.errstate(divide="ignore", over="ignore"):
            alone = row_reduce(np.minimum, np.where(pos, cap / np.where(pos, d, 1.0), np.inf))
    worst = int(np.argmax(alone))
    check_task_bound(float(alone[worst]), f"capacity / demands[{worst}]")
    caps_f = _whole_task_caps(max_tasks, n)
    if caps_f is None:
        caps = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
    else:
        # a cap above what the user could run alone never binds: clip it there (as Python ints, so uint64 values
        # beyond int64 cannot wrap to negative); alone is finite and below 2^61 (checked above)
        caps = np.array(
            [min(int(v), int(a) + 1) for v, a in zip(caps_f.tolist(), alone.tolist())],
            dtype=np.int64,
        )
    max_allocations = as_count(max_allocations, "max_allocations")
    with np.errstate(divide="ignore"):
        steps_bound = min(float(np.minimum(alone, caps).sum()), m / float(per_task.min()))
    if steps_bound > max_allocations:
        raise InvalidInputError(
            f"capacity / demands: progressive filling could take up to {steps_bound:.3g} steps "
            f"(one per task), more than max_allocations = {max_allocations}; use edrf or pdrf "
            "for instances this large, or raise max_allocations"
        )
    return caps, steps_bound


def order_buffer(record_order: bool, steps_bound: float) -> np.ndarray:
    """Room for the users served, one per step of a filling run bounded by ``steps_bound``.

    An empty array without ``record_order``; more than :data:`_MAX_RECORDED` steps are refused."""
    if not record_order:
        return np.empty(0, dtype=np.int64)
    if steps_bound > _MAX_RECORDED:
        raise InvalidInputError(
            f"record_order: up to {steps_bound:.3g} allocations; recording is limited to "
            f"{_MAX_RECORDED} (use it on small instances)"
        )
    return np.empty(int(steps_bound) + 1, dtype=np.int64)


def _start_tasks(start, d, cap, caps) -> np.ndarray:
    """Validated ``start`` allocation (tasks per user): whole, >= 0, within the caps and the capacity."""
    n = len(d)
    if start is None:
        return np.zeros(n, dtype=np.int64)
    arr = np.asarray(start)
    if arr.shape != (n,) or arr.dtype.kind not in "iu":
        raise InvalidInputError(
            f"start: expected {n} integers (tasks each user holds), got shape {arr.shape} "
            f"dtype {arr.dtype}"
        )
    held = arr.astype(np.int64)
    if (held < 0).any():
        i = int(np.argmax(held < 0))
        raise InvalidInputError(f"start[{i}] = {held[i]}: must be >= 0")
    if (held > caps).any():
        i = int(np.argmax(held > caps))
        raise InvalidInputError(
            f"start[{i}] = {held[i]}: must be within max_tasks[{i}] = {caps[i]}"
        )
    check_start_fits(held, d, cap)
    return held


def check_start_fits(held, d, cap) -> None:
    """Refuse a ``start`` allocation that uses more of a resource than there is, naming the resource.

    ``held`` is tasks per user, whole or divisible; a use above ``capacity * (1 + FIT_RTOL)`` is refused."""
    used = held @ d
    over = used > cap * (1.0 + FIT_RTOL)
    if over.any():
        r = int(np.argmax(over))
        raise InvalidInputError(
            f"start: uses {used[r]:g} of resource {r}, more than its capacity {cap[r]:g}"
        )


#: progressive filling runs one step per task: a pool of at most this many tasks may run interpreted (fairlib._jit)
INTERPRET_TASKS_AT_MOST = 10_000


def _few_tasks(demands, capacity=None, *args, **kwargs) -> bool:
    """Whether progressive filling of this pool takes at most :data:`INTERPRET_TASKS_AT_MOST` steps: the tasks
    each user could run alone, summed, bound them (``drf(demands, capacity)`` or ``drf(cluster)``)."""
    if capacity is None:  # a single-pool cluster
        return bool(demands.gamma.sum() <= INTERPRET_TASKS_AT_MOST)
    alone = monopoly_tasks(
        np.asarray(capacity, dtype=float)[None, :], np.asarray(demands, dtype=float)
    )
    return bool(np.isfinite(alone).all() and alone.sum() <= INTERPRET_TASKS_AT_MOST)


@interpreted_when_small(bounded=_few_tasks)
def drf(
    demands: ArrayLike | Cluster,
    capacity: ArrayLike | None = None,
    *,
    weights: ArrayLike | None = None,
    stop: str = "skip_blocked",
    tie_break: str = "lowest_index",
    max_tasks: ArrayLike | None = None,
    record_order: bool = False,
    share_arithmetic: str = "exact",
    max_allocations: int = MAX_ALLOCATIONS,
    start: ArrayLike | None = None,
    zeros: str = "error",
    quotas: Quotas | None = None,
) -> DRFResult | Allocation:
    """Dominant Resource Fairness for indivisible tasks by progressive filling.

    Called on a single-pool :class:`~.cluster.Cluster` (``drf(cluster, **options)``, the mechanism contract) it
    returns an :class:`~.cluster.Allocation` (:func:`drf_allocation`); on arrays, a :class:`DRFResult`.

    Repeatedly gives one task to the user with the lowest weighted dominant share
    ``tasks_i * max_r(demands[i, r] / capacity[r]) / weights[i]`` ([1]_ Algorithm 1; [2]_ §3.1).

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
    tie_break : {"lowest_index", "higher_share", "lexicographic", "allocation_count"}
        Order among users with equal current share: lowest index first (``argmin``, as the author's
        scripts do), or higher per-task weighted dominant share first (as Metin reads the DRF
        paper's example), then lowest index. The last two are production schedulers' rules
        (:class:`~.sorter.DRFSorter` is their reference): ``"lexicographic"`` is Hadoop YARN's
        ``DominantResourceFairnessPolicy`` — compare the next-largest share, then the next, lowest first, then
        the lowest index (YARN's submit time); ``"allocation_count"`` is Apache Mesos's ``DRFSorter`` — fewer
        allocations first (one per task, a ``start`` task counted as one), then the lowest index (Mesos's name).
        Among users that hold no task yet (every share 0) both schedulers fall through to index order.
    max_tasks : (n_users,) array_like of int, optional
        Per-user task caps (a user at its cap leaves without blocking anyone).
    record_order : bool
        Also return the sequence of users served (for traces of small examples).
    start : (n_users,) array_like of int, optional
        Tasks each user already holds: progressive filling continues from this allocation (what a scheduler's
        sorter does on every offer), and the result counts them. Must fit the capacity and the caps.
    zeros : {"error", "scheduler"}
        ``"error"`` (default): a zero capacity, an all-zero demand row or a zero weight is invalid input — in a
        model of the papers each is a mistake, and silently serving it would hide one. ``"scheduler"``: treated as
        Mesos, YARN and Kueue treat them (:mod:`.sorter`): a resource with zero capacity is left out of every
        share, and a user whose task needs some of it can run none; a user demanding nothing is given no task (it
        has none to place); a user with weight 0 is served only after every positive-weight user is blocked or
        capped (then, among such users, unweighted). Users given no task for either reason are listed in
        ``DRFResult.left_out``.
    quotas : :class:`~.quotas.Quotas`, optional
        Guarantees, limits and lending limits as resource vectors (YARN's min/max shares, Mesos's quota, Kueue's
        nominal quota with borrowing and lending limits; see :mod:`.quotas`). The whole tasks within each user's
        guarantee are allocated first (by the same share order), then progressive filling goes on by
        ``quotas.share``; a limit caps the user's tasks as ``max_tasks`` does; a guarantee's unlent part is held
        back for its user. ``quotas.share="borrowed"`` (Kueue) compares shares in floating point and takes
        ``tie_break="lowest_index"`` only.
    max_allocations : int
        Refuse instances on which progressive filling could take more steps (one per task) than this; the bound
        is min(Σ_i tasks user i could run alone, m / smallest per-task dominant share). Default
        :data:`MAX_ALLOCATIONS` (2·10⁹, minutes of work). EDRF and PDRF compute large instances in O(nm).
    share_arithmetic : {"exact", "accumulated"}
        ``"exact"``: with integer demands, capacities and weights, shares are compared exactly as fractions, so
        users whose shares are equal as fractions are tied and the tie rule decides (3 × 1/20 = 3/20); with
        non-integer inputs, as ``tasks * step`` in floating point. ``"accumulated"`` mirrors the author's scripts
        (Metin 2025, the repository's test scripts): each user's share is the running float sum ``s += step``,
        whose round-off can break exact ties either way. Which was used is ``DRFResult.share_arithmetic``.

    Returns
    -------
    DRFResult or Allocation
        A :class:`DRFResult` on arrays; an :class:`~.cluster.Allocation` on a Cluster.

    Raises
    ------
    InvalidInputError
        On invalid input, an instance that could take more than ``max_allocations`` steps, or a ``start`` that
        does not fit the capacity and the caps.

    Notes
    -----
    Exact comparison uses int64 cross-products; it falls back to ``tasks * step`` in floating point when a
    product could exceed 2⁶² (capacities above about 2·10⁹). A task fits when
    ``consumed + demand <= capacity * (1 + FIT_RTOL)`` (FIT_RTOL = 1e-12).

    References
    ----------
    .. [1] A. Ghodsi, M. Zaharia, B. Hindman, A. Konwinski, S. Shenker, I. Stoica, "Dominant Resource Fairness:
       Fair Allocation of Multiple Resource Types", NSDI, 2011, Algorithm 1.
    .. [2] S. Metin, "Precomputed Dominant Resource Fairness", arXiv preprint arXiv:2507.08846, 2025, §3.1,
       §6.2.

    Examples
    --------
    The DRF paper's example (9 CPUs, 18 GB; A = <1, 4>, B = <3, 1>):

    >>> res = drf([[1, 4], [3, 1]], [9, 18], record_order=True, tie_break="higher_share")
    >>> res.tasks.tolist(), res.order.tolist()
    ([3, 2], [1, 0, 0, 1, 0])
    >>> res.dominant_shares.round(4).tolist()
    [0.6667, 0.6667]
    """
    if _is_cluster(demands, capacity, weights):
        if zeros != "error":
            raise InvalidInputError(
                f"zeros = {zeros!r}: a Cluster refuses zero capacities, demands and weights when "
                "it is built; use the array form, drf(demands, capacity, zeros='scheduler')"
            )
        return drf_allocation(
            demands,
            stop=stop,
            tie_break=tie_break,
            max_tasks=max_tasks,
            record_order=record_order,
            share_arithmetic=share_arithmetic,
            max_allocations=max_allocations,
            start=start,
            quotas=quotas,
        )
    check_choice(zeros, ZERO_RULES, "zeros")
    if zeros == "scheduler":
        if quotas is not None:
            raise InvalidInputError(
                "quotas: not combined with zeros='scheduler'; give every user a positive weight "
                "and a demand, and every resource a capacity"
            )
        return _drf_with_zeros(
            demands,
            capacity,
            weights,
            stop=stop,
            tie_break=tie_break,
            max_tasks=max_tasks,
            record_order=record_order,
            share_arithmetic=share_arithmetic,
            max_allocations=max_allocations,
            start=start,
        )
    d = as_demands(demands)
    n, m = d.shape
    cap = as_capacities(capacity, n_resources=m)
    w = as_weights(weights, n)
    check_choice(stop, STOP_RULES, "stop")
    check_choice(tie_break, TIE_BREAKS, "tie_break")
    per_task, alone, dominant = pool_summary(d, cap)
    quota = _resolve_quotas(quotas, d, cap, tie_break, share_arithmetic)
    step, share_num, share_den, accumulate, arithmetic = share_steps(
        d, cap, w, share_arithmetic, per_task=per_task
    )
    caps, steps_bound = filling_bounds(d, cap, per_task, max_tasks, max_allocations, alone=alone)
    quota_arrays = no_quotas(m)
    if quota is not None:
        caps = np.minimum(caps, quota.limit_tasks)
        quota_arrays = (quota.reserved, quota.nominal, quota.lendable, w)
        if quota.nominal.shape[0]:  # Kueue's borrowed share: floats
            share_num = share_den = np.empty(0, dtype=np.int64)
            arithmetic = "float"
    held = _start_tasks(start, d, cap, caps)
    phases = [caps]
    if quota is not None:
        _check_reservations(held, d, cap, quota.reserved)
        # the guarantees first (a user already beyond its guarantee waits), then everyone
        guaranteed = np.maximum(held, np.minimum(quota.guaranteed_tasks, caps))
        phases = [guaranteed, caps] if (guaranteed > held).any() else [caps]
    by_index = np.arange(n, dtype=np.int64)
    secondary = _secondary_order(tie_break, d, cap, step, share_num, share_den, arithmetic)
    zero_secondary = by_index if tie_break in ("lexicographic", "allocation_count") else secondary
    tasks, orders, count, blocked, work = held, [], 0, -1, 0
    for phase_caps in phases:
        order = order_buffer(record_order, steps_bound)
        tasks, consumed, steps, blocked, phase_work = _progressive_filling(
            d,
            cap,
            step,
            share_num,
            share_den,
            accumulate,
            secondary,
            zero_secondary,
            phase_caps,
            stop == "skip_blocked",
            record_order,
            order,
            tasks,
            *quota_arrays,
        )
        orders.append(order[:steps])
        count, work = count + steps, work + phase_work
        if blocked >= 0:
            break
    return DRFResult(
        tasks=tasks,
        consumed=consumed,
        dominant_shares=tasks * per_task,
        n_allocations=int(count),
        blocked_user=int(blocked),
        order=np.concatenate(orders) if record_order else None,
        work=int(work),
        share_arithmetic=arithmetic,
        dominant_resource=dominant,
    )


def _resolve_quotas(quotas, d, cap, tie_break, share_arithmetic):
    """``drf``'s ``quotas`` checked against the instance and the options it can be combined with (or ``None``)."""
    if quotas is None:
        return None
    if not isinstance(quotas, Quotas):
        raise InvalidInputError(
            f"quotas: expected a fairlib.multires.Quotas, got {type(quotas).__name__}"
        )
    if quotas.share == "borrowed" and (tie_break != "lowest_index" or share_arithmetic != "exact"):
        raise InvalidInputError(
            f"quotas.share = 'borrowed' (Kueue) orders equal shares by index and compares floats: "
            f"tie_break = {tie_break!r} and share_arithmetic = {share_arithmetic!r} do not apply"
        )
    return quotas.resolve(d, cap)


def _check_reservations(held, d, cap, reserved) -> None:
    """A ``start`` allocation must leave every guarantee's unlent part free: Σ_j max(held_j d_j, reserved_j) <=
    capacity."""
    if not reserved.shape[0]:
        return
    committed = committed_amounts(held, d, reserved)
    over = committed > cap * (1.0 + FIT_RTOL)
    if over.any():
        r = int(np.argmax(over))
        raise InvalidInputError(
            f"start: with the guarantees' reserved parts, commits {committed[r]:g} of resource "
            f"{r}, more than its capacity {cap[r]:g}"
        )


def _drf_with_zeros(
    demands,
    capacity,
    weights,
    *,
    stop,
    tie_break,
    max_tasks,
    record_order,
    share_arithmetic,
    max_allocations,
    start,
) -> DRFResult:
    """``drf(..., zeros="scheduler")``: progressive filling on the users and resources the zero rules keep, then on
    the zero-weight users from where the others stopped (see ``drf``'s ``zeros``)."""
    d = as_demands(demands, allow_zero_rows=True)
    n, m = d.shape
    cap = as_capacities(capacity, n_resources=m, allow_zero=True)
    w = as_weights(weights, n, allow_zero=True)
    usable = cap > 0
    if not usable.any():
        raise InvalidInputError(
            f"capacity = {cap}: every resource has zero capacity, nothing can be allocated"
        )
    idle = ~(d > 0).any(axis=1)
    blocked = (d[:, ~usable] > 0).any(axis=1)
    left_out = np.flatnonzero(idle | blocked)
    big = np.iinfo(np.int64).max
    given = _whole_task_caps(max_tasks, n)
    all_caps = (
        np.full(n, big, dtype=np.int64)
        if given is None
        else np.array([min(int(v), big) for v in given.tolist()], dtype=np.int64)
    )
    all_held = _start_tasks(start, d, cap, all_caps)
    if (all_held[left_out] != 0).any():
        i = int(left_out[np.argmax(all_held[left_out] != 0)])
        raise InvalidInputError(
            f"start[{i}] = {all_held[i]}: user {i} demands nothing or needs a resource "
            "with zero capacity, so it can hold no task"
        )
    kept = np.flatnonzero(~(idle | blocked))
    tasks = np.zeros(n, dtype=np.int64)
    if kept.size == 0:
        return DRFResult(
            tasks=tasks,
            consumed=np.zeros(m),
            dominant_shares=np.zeros(n),
            n_allocations=0,
            blocked_user=-1,
            order=np.empty(0, dtype=np.int64) if record_order else None,
            left_out=left_out,
            dominant_resource=np.full(n, -1, dtype=np.int64),
        )
    sub_d, sub_cap = d[np.ix_(kept, usable)], cap[usable]
    caps, held = all_caps[kept], all_held[kept]
    free = w[kept] == 0
    options = dict(
        stop=stop,
        tie_break=tie_break,
        record_order=record_order,
        share_arithmetic=share_arithmetic,
        max_allocations=max_allocations,
    )
    # pass 1: positive weights (a zero-weight user holds what it starts with); pass 2: zero weights, unweighted,
    # from where pass 1 stopped (the others frozen there) — unless pass 1 halted on a block (stop="first_blocked")
    try:
        first = drf(
            sub_d,
            sub_cap,
            weights=np.where(free, 1.0, w[kept]),
            start=held,
            max_tasks=np.where(free, held, caps),
            **options,
        )
        runs = [first]
        if free.any() and first.blocked_user < 0:
            runs.append(
                drf(
                    sub_d,
                    sub_cap,
                    weights=np.ones(len(kept)),
                    start=first.tasks,
                    max_tasks=np.where(free, caps, first.tasks),
                    **options,
                )
            )
    except InvalidInputError as exc:  # indices there are among the kept users and resources
        raise InvalidInputError(
            f"{exc} (indices among the users {kept.tolist()} and resources "
            f"{np.flatnonzero(usable).tolist()} that zeros='scheduler' keeps)"
        ) from None
    last = runs[-1]
    tasks[kept] = last.tasks
    consumed = np.zeros(m)
    consumed[usable] = last.consumed
    per_task = np.zeros(n)
    per_task[kept] = (sub_d / sub_cap).max(axis=1)
    blocked_user = next((int(kept[r.blocked_user]) for r in runs if r.blocked_user >= 0), -1)
    order = np.concatenate([kept[r.order] for r in runs]) if record_order else None
    return replace(
        first,
        tasks=tasks,
        consumed=consumed,
        dominant_shares=tasks * per_task,
        n_allocations=sum(r.n_allocations for r in runs),
        blocked_user=blocked_user,
        order=order,
        work=sum(r.work for r in runs),
        left_out=left_out,
        dominant_resource=np.where(idle | blocked, -1, dominant_resources(d, cap)),
    )


def drf_allocation(cluster: Cluster, **options: Any) -> Allocation:
    """:func:`~.progressive_filling.drf` on a single-pool cluster (weights and caps from the cluster).

    Parameters
    ----------
    cluster : Cluster
        A one-server cluster.
    **options
        The options of :func:`drf` (``stop``, ``tie_break``, ``record_order``, ``start``, ``quotas``, ...); not
        ``weights``, nor ``max_tasks`` on a capped cluster.

    Returns
    -------
    Allocation
        Integer tasks, shape (n_users, 1). ``extras``: ``order`` (when ``record_order=True``), ``blocked_user``,
        ``n_allocations``, ``work``, ``share_arithmetic``.

    Raises
    ------
    InvalidInputError
        When ``cluster`` is not a single-pool Cluster, or ``weights`` (or ``max_tasks`` on a capped cluster) is
        given.
    """
    as_instance(cluster, Cluster, "cluster")
    if "weights" in options:
        raise InvalidInputError(
            "weights: on a cluster the weights are the cluster's (Cluster(..., weight=...))"
        )
    cap, dem, w = pool_arrays(cluster, "drf", caps=True)
    if cluster.capped:  # at most floor(cap) whole tasks
        if options.get("max_tasks") is not None:
            raise InvalidInputError(
                "max_tasks: on a cluster the caps are the cluster's (Cluster(..., max_tasks=...))"
            )
        big = np.iinfo(np.int64).max
        options["max_tasks"] = np.array(
            [min(int(c), big) if np.isfinite(c) else big for c in cluster.max_tasks.tolist()],
            dtype=np.int64,
        )
    res = drf(dem, cap, weights=w, **options)
    extras = {
        "blocked_user": res.blocked_user,
        "n_allocations": res.n_allocations,
        "work": res.work,
        "share_arithmetic": res.share_arithmetic,
    }
    if res.order is not None:
        extras["order"] = res.order
    return Allocation(cluster, pool_column(res.tasks), "drf", extras=extras)
