"""Progressive filling's engine, shared by :func:`fairlib.multires.drf`,
:func:`fairlib.multires.edrf`, :func:`fairlib.multires.hierarchical_drf` and the pooled mechanisms:
the heap-based filling kernel, the committed amounts under guarantees, and the checks of a ``start``
allocation they all take.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..._jit import njit
from ..._validate import InvalidInputError, as_array, as_integers
from ..cluster import Cluster, monopoly_tasks

#: a task fits when consumed + demand <= capacity * (1 + FIT_RTOL): absorbs float round-off only
FIT_RTOL = 1e-12


class FillRule(NamedTuple):
    """How :func:`_fill` compares shares, meets a blocked user and records its order: built by
    :func:`_progressive_filling`, passed to the kernel as one argument (numba compiles it as a
    tuple).

    Parameters
    ----------
    accumulate : bool
        Whether floating-point shares are running sums ``s += step``.
    skip_blocked : bool
        True: drop a blocked user and go on; False: stop at the first blocked user.
    record : bool
        Whether to write the allocation order into the kernel's ``order``.
    """

    accumulate: bool
    skip_blocked: bool
    record: bool


# The heap of progressive filling: entry e is row e of ``heap`` (int64: exact share numerator,
# denominator, secondary key, user) and, in floating-point mode, ``hkey[e]`` (the share). One row is
# one 32-byte read or move, four siblings two cache lines; in exact mode ``hkey`` is never read or
# moved.
_NUM, _DEN, _SEC, _USER = 0, 1, 2, 3


@njit(cache=True, inline="always")
def _before(key_a, num_a, den_a, sec_a, key_b, num_b, den_b, sec_b, exact):
    """Heap order: (share, secondary) lexicographic, exact shares num/den compared by
    cross-products, floating-point ones by key. Bitwise operators, not ``and``/``or``: no branch, so
    a comparison whose outcome is a coin toss costs no misprediction.

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


# The two replacements below walk the same bottom-up path; the exact one, which DRF's shares use,
# finds the smallest of four children by a branch-free tournament, the floating-point one by a scan.
# They are written out rather than built from shared inlined helpers: numba's inlining of nested
# helpers tripled DRF's first compilation, and a flag tested inside the walk cost a third of its
# speed.


@njit(cache=True)
def _replace_top_exact(heap, size, num, den, sec, user):
    """Put (num/den, sec, user) at the root of the 4-ary heap of exact shares and restore it;
    returns the number of heap entries compared (the counted work of the operation).

    A 4-ary heap halves the depth of a binary one and keeps siblings in two cache lines. Bottom-up:
    the new root key usually belongs near the leaves (a user's share just grew), so walk the hole
    down along the smallest children, then sift the item up. The smallest of four children: a
    tournament of three comparisons without branches (pairs, then their winners; ties go to the
    earlier child, as a scan would), each child's values read once and the winners' values selected,
    not re-read, so the final comparison waits on no load; the indices are computed before the last
    select (inside a conditional expression they compiled to a jump).

    Parameters
    ----------
    heap : int64[:, :]
        The 4-ary heap, shape (n_users, 4): rows (share numerator, denominator, secondary key,
        user).
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
    """:func:`_replace_top_exact` for floating-point shares ``hkey``, the smallest child found by a
    scan.

    Parameters
    ----------
    heap : int64[:, :]
        The 4-ary heap, shape (n_users, 4): rows (share numerator, denominator, secondary key,
        user).
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
    """Resources used by ``tasks[i]`` tasks of each user, summed user by user (the order the
    fillers' checks assume).

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
    """How much one more task of user i adds to the committed amount of resource r: its demand, less
    the part that falls inside its own reservation (``Σ_j max(tasks_j demands_j, reserved_j)`` is
    what is committed).

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
    """``np.maximum(held[:, None] * d, reserved).sum(axis=0)`` (``reserved`` (0, m): none), as NumPy
    sums it.

    With two resources or more its temporary is row-major and NumPy adds it row by row, which
    :func:`_committed` does without the two temporaries (bit for bit, tested); with one NumPy adds
    pairwise, so NumPy does it. Tasks and demands are >= 0, so without reservations the maximum is
    the product itself (:func:`held_resources`).

    Parameters
    ----------
    held : (n_users,) ndarray of float64
        Tasks each user holds.
    d : (n_users, n_resources) ndarray of float64
        Per-task demands.
    reserved : (n_users, n_resources) or (0, n_resources) ndarray of float64
        Each user's reserved amounts (no rows: none).

    Returns
    -------
    (n_resources,) ndarray of float64
        What the users commit of each resource.
    """
    if d.shape[1] >= 2:
        if not reserved.shape[0]:
            return held_resources(held, d)
        return _committed(held, d, np.ascontiguousarray(reserved))
    return np.maximum(held[:, None] * d, reserved if reserved.shape[0] else 0.0).sum(axis=0)


@njit(cache=True)
def _borrowed_share(t, i, demands, nominal, lendable, weights):
    """Kueue's share of user i holding t tasks: the most it borrows beyond its nominal quota on any
    resource, as a fraction of what the pool can lend of it (resources with nothing to lend left
    out), over its weight.

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
    with equal positive shares (a permutation of 0..n-1), ``zero_secondary[i]`` users with no task
    yet (the scheduler rules order those by index: every share is 0 there). Shares are compared
    exactly when ``share_den`` is non-empty (user i's share after t tasks is ``t * share_num[i] /
    share_den[i]``, integers, compared by cross-products); otherwise as ``tasks * step`` in floating
    point, or, with ``accumulate``, as the running float sum ``s += step`` of the author's scripts.
    Returns (tasks, consumed, allocations, blocked user, work): ``work`` counts element operations
    (demand entries read, heap entries compared) after the O(n m + n log n) set-up — the O(T (m +
    log n)) of the module docstring, measured.

    Quotas (:mod:`.quotas`; empty (0, m) arrays when unused): ``reserved[i]`` is the part of user
    i's guarantee nobody else may use — a task fits when ``Σ_j max(tasks_j demands_j, reserved_j)
    <= capacity`` after it, so user i's tasks within ``reserved[i]`` take nothing from the others.
    With ``nominal`` non-empty, shares are Kueue's borrowed share ``max(0, max_r (tasks_i demands_ir
    - nominal_ir) / lendable_r) / weights_i`` over the resources with ``lendable_r > 0`` (in
    floating point; ``share_den`` must then be empty) instead of ``tasks * step``.

    The starting heap is sorted as Python (:func:`_start_order`) between two kernels
    (:func:`_start_keys`, :func:`_fill`): numba's sorts are ~2.5 s of a first compilation, and a
    sort of distinct keys has one answer.
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
        secondary,
        caps,
        order,
        start,
        reserved,
        nominal,
        lendable,
        weights,
        keys,
        sec0,
        _start_order(keys, sec0),
        FillRule(bool(accumulate), bool(skip_blocked), bool(record)),
    )


@njit(cache=True)
def _start_keys(
    demands, step, accumulate, secondary, zero_secondary, start, nominal, lendable, weights
):
    """Each user's share at the ``start`` allocation and its secondary key (``zero_secondary`` for a
    user with no task yet): the heap's (share, secondary) items.

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
        Shape (n_users, n_resources): Kueue's nominal quotas, or (0, m) when shares are not borrowed
        shares.
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
    """Users sorted by (share, secondary): the heap's starting array (a sorted array is a valid
    heap). As the filling kernel sorted them: by secondary key (numba's quicksort), then stably by
    share. With distinct secondary keys every sort gives that order, so NumPy sorts; where some
    repeat (users with and without tasks under the ``lexicographic`` and ``allocation_count`` ties),
    numba's quicksort orders them its own way and the heap keeps that order among exact ties, so it
    is used (:func:`_argsort_repeated`)."""
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
    secondary,
    caps,
    order,
    start,
    reserved,
    nominal,
    lendable,
    weights,
    keys,
    sec0,
    perm,
    rule,
):
    """The heap-based filling of :func:`_progressive_filling` from the users in starting order
    ``perm`` (shares ``keys``, secondary keys ``sec0``).

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
    secondary : int64[:]
        Secondary keys (tie order), shape (n_users,).
    caps : int64[:]
        Per-user task caps, shape (n_users,).
    order : int64[:]
        Output buffer for the allocation order (read when ``rule.record``).
    start : int64[:]
        Tasks each user holds at the start, shape (n_users,).
    reserved : float64[:, :]
        Shape (n_users, n_resources): each user's reserved amounts, or (0, m) for none.
    nominal : float64[:, :]
        Shape (n_users, n_resources): Kueue's nominal quotas, or (0, m) when shares are not borrowed
        shares.
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
    rule : FillRule
        How shares are compared, a blocked user is met and the order recorded.
    """
    accumulate = rule.accumulate
    skip_blocked = rule.skip_blocked
    record = rule.record
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
    if exact:
        # float keys may order exact ties wrongly: insertion-sort the (nearly sorted) entries
        # exactly
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
        # every resource, without a branch (a loop that can stop early costs more than it saves),
        # and the common case apart from the reservations' so that it vectorises
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


def _is_cluster(first, capacity, weights) -> bool:
    """Whether a pooled mechanism was called on a Cluster (the contract) rather than on arrays; a
    cluster carries its own capacity and weights, so passing them as well is an error."""
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


def _one_column(arr: np.ndarray, n: int) -> np.ndarray:
    """A start of shape (n, 1), the ``tasks`` of a single-pool Cluster's result, as the (n,) it
    means (the tasks each user holds on the one server); any other shape as it is."""
    return arr[:, 0] if arr.shape == (n, 1) else arr


def _start_tasks(start, d, cap, caps) -> np.ndarray:
    """Validated ``start`` allocation (tasks per user): whole, >= 0, within the caps and the
    capacity."""
    n = len(d)
    if start is None:
        return np.zeros(n, dtype=np.int64)
    # a list mixing booleans with numbers refused; counts stay integers (checked below)
    arr = _one_column(as_array(start, "start", exact=False), n)
    if arr.shape != (n,) or arr.dtype.kind not in "iu":
        raise InvalidInputError(
            f"start: expected {n} integers (tasks each user holds), got shape {arr.shape} "
            f"dtype {arr.dtype}"
        )
    # checked as given, then int64 (a uint64 past 2**63 cast first read as a negative count)
    held = as_integers(arr, "start", length=n, minimum=0, what="count per user")
    if (held > caps).any():
        i = int(np.argmax(held > caps))
        raise InvalidInputError(
            f"start[{i}] = {held[i]}: must be within max_tasks[{i}] = {caps[i]}"
        )
    check_start_fits(held, d, cap)
    return held


def check_start_fits(held, d, cap) -> None:
    """Refuse a ``start`` allocation that uses more of a resource than there is, naming the
    resource.

    A use above ``capacity * (1 + FIT_RTOL)`` is refused.

    Parameters
    ----------
    held : (n_users,) ndarray of float64
        Tasks each user holds in ``start``, whole or divisible.
    d : (n_users, n_resources) ndarray of float64
        Per-task demands.
    cap : (n_resources,) ndarray of float64
        The pool's capacities.

    Raises
    ------
    InvalidInputError
        ``start`` uses more of a resource than its capacity (the first such resource named).
    """
    used = held @ d
    over = used > cap * (1.0 + FIT_RTOL)
    if over.any():
        r = int(np.argmax(over))
        raise InvalidInputError(
            f"start: uses {used[r]:g} of resource {r}, more than its capacity {cap[r]:g}"
        )


#: progressive filling runs one step per task: a pool of at most this many tasks may run interpreted
#: (fairlib._jit)
INTERPRET_TASKS_AT_MOST = 10_000


def _few_tasks(demands, capacity=None, *args, **kwargs) -> bool:
    """Whether progressive filling of this pool takes at most :data:`INTERPRET_TASKS_AT_MOST` steps:
    the tasks each user could run alone, summed, bound them (``drf(demands, capacity)`` or
    ``drf(cluster)``)."""
    if capacity is None:  # a single-pool cluster
        return bool(demands.gamma.sum() <= INTERPRET_TASKS_AT_MOST)
    alone = monopoly_tasks(
        np.asarray(capacity, dtype=float)[None, :], np.asarray(demands, dtype=float)
    )
    return bool(np.isfinite(alone).all() and alone.sum() <= INTERPRET_TASKS_AT_MOST)


def _check_reservations(held, d, cap, reserved) -> None:
    """A ``start`` allocation must leave every guarantee's unlent part free: Σ_j max(held_j d_j,
    reserved_j) <= capacity."""
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


def _start_amounts(start, d, cap) -> np.ndarray | None:
    """``edrf``'s ``start`` checked (n finite amounts >= 0 that fit the capacity), or ``None`` (none
    or all zero)."""
    if start is None:
        return None
    n = len(d)
    arr = _one_column(as_array(start, "start"), n)  # a list mixing booleans with numbers refused
    held = arr.astype(np.float64) if arr.dtype.kind in "iuf" else None
    if held is None or held.shape != (n,):
        raise InvalidInputError(f"start: expected {n} numbers (tasks each user holds), got {arr!r}")
    bad = ~np.isfinite(held) | (held < 0)
    if bad.any():
        i = int(np.argmax(bad))
        raise InvalidInputError(f"start[{i}] = {held[i]}: must be finite and >= 0")
    check_start_fits(held, d, cap)
    return held if held.any() else None
