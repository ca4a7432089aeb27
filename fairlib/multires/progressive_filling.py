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
    as_array,
    as_flag,
    check_labels,
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
from ._engine.filling import (
    FIT_RTOL,
    _check_reservations,
    _few_tasks,
    _is_cluster,
    _progressive_filling,
    _start_tasks,
)
from .cluster import Allocation, Cluster, pool_arrays, pool_column
from .schedulers.quotas import Quotas

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
#: the most steps ``record_order`` records: its buffer is allocated before the run, one int64 a
#: step (80 MB at the cap), from a bound that can be far above the steps taken
_MAX_RECORDED = 10_000_000
#: progressive filling does one heap step per task: above this many (an upper bound from the inputs)
#: it is refused
MAX_ALLOCATIONS = 2_000_000_000


@result_type
@dataclass(frozen=True, eq=False)
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
        ``stop="first_blocked"``: the user whose task did not fit (-1 if the loop ended because
        every user reached its cap); ``"skip_blocked"``: -1.
    order : numpy.ndarray or None, default None
        Int64, shape (n_allocations,): users in allocation order (``record_order=True``), else None.
    work : int, default 0
        Element operations of the filling loop (demand entries read, heap entries compared), counted
        by the kernel: the machine-independent measure of its O(T (m + log n)) cost.
    share_arithmetic : str, default "rational"
        How shares were compared: ``"rational"`` (exactly, as fractions of integers), ``"float"``
        (``tasks * step`` in floating point: non-integer inputs) or ``"accumulated"`` (``s +=
        step``).
    left_out : numpy.ndarray, default empty
        Int64, shape (k,): ``zeros="scheduler"`` only: users given no task because they demand
        nothing or need a resource with zero capacity (empty otherwise).
    dominant_resource : numpy.ndarray, default empty
        Int64, shape (n_users,): the resource of each user's largest ``demand / capacity`` (the
        first of equals; -1 for a user in ``left_out``), as schedulers report it (Kueue's dominant
        resource, YARN's first compared share).
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

    NumPy reduces a short contiguous axis several times slower (0.32 against 0.05 ms at 10⁴ x 10).
    A maximum or minimum does not round, so the result is the same; NaN propagates as there."""
    out = a[:, 0].copy()
    for r in range(1, a.shape[1]):
        ufunc(out, a[:, r], out=out)
    return out


@njit(cache=True)
def pool_summary(demands, capacity):
    """Per-task dominant share, solo task count and dominant resource of every user, in one pass.

    Per user, for positive capacities: (max_r d_ir / c_r, the most tasks user i could run alone
    min_{r: d_ir > 0} c_r / d_ir (inf if none), the dominant resource as :func:`dominant_resources`
    gives it); the same divisions, maxima and minima as the NumPy expressions (which do not round),
    at a tenth of their cost.

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
    """Each user's dominant resource, ``argmax_r demands[i, r] / capacity[r]`` over resources with a
    positive capacity.

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


def no_quotas(m: int) -> tuple:
    """The quota arguments (reserved, nominal, lendable, weights) of :func:`_progressive_filling`
    without quotas."""
    return np.empty((0, m)), np.empty((0, m)), np.empty(0), np.empty(0)


SHARE_ARITHMETIC = ("exact", "accumulated")
#: exact shares need every cross-product (share numerator × denominator) below this (int64, with
#: headroom)
_EXACT_LIMIT = 2.0**62


class ShareSteps(NamedTuple):
    """Per-task weighted dominant shares and how progressive filling compares them (see
    :func:`share_steps`).

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

    ``step[i] = max_r d[i,r]/c[r] / w[i]`` in floating point; for ``"exact"`` with integer demands,
    capacities and weights (and products below 2⁶²), the same share as the reduced fraction
    ``share_num[i] / share_den[i]`` (``arithmetic = "rational"``), else empty arrays and
    ``arithmetic = "float"`` (shares compared as ``tasks * step``). ``"accumulated"`` mirrors the
    author's scripts: ``s += step`` per task, compared in floating point.

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
    """Each user's weighted dominant share max_r d_ir / c_r / w_i as a reduced fraction (num, den)
    of int64s: the best fraction kept by cross-multiplication (the first of equals), then divided by
    the greatest common divisor (0 / b reduces to 0 / 1, as np.gcd gives). One pass per user, where
    NumPy took ten (0.9 against 0.05 ms at 10⁴ users x 10 resources).

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
    """Rank of each user among users with equal positive weighted dominant shares (see ``drf``'s
    ``tie_break``).

    Both scheduler rules are static orders within a run. YARN's: with equal dominant share S, user
    i's k-th largest weighted share is S · ρ_i(k), ρ_i(k) = (k-th largest d_ir / c_r) / (largest
    d_ir / c_r), so comparing the sorted share vectors is comparing the ρ vectors. Mesos's: with
    equal share S, user i holds S / step_i tasks (one allocation each), so fewer allocations is a
    larger per-task share — ``higher_share``'s order.
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

    Vectorised over users: ρ in floating point orders every pair whose ρ differ by more than
    rounding (a correctly rounded quotient is monotone). ``exact`` (integer inputs): ρ_i(k) is the
    reduced fraction d_ik · c_top / (c_k · d_i,top), whose float is correctly rounded while both
    stay below 2⁵³, so only users whose float vectors are equal but whose fractions differ need
    exact comparison — re-sorted with ``Fraction``.
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
    # a list mixing booleans with numbers refused; caps stay integers (compared as Python ints)
    caps = as_array(max_tasks, "max_tasks", exact=False)
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
        # a cap above what the user could run alone never binds: clip it there (as Python ints, so
        # uint64 values beyond int64 cannot wrap to negative); alone is finite and below 2^61
        # (checked above)
        caps = np.array(
            [min(int(v), int(a) + 1) for v, a in zip(caps_f.tolist(), alone.tolist())],
            dtype=np.int64,
        )
    max_allocations = as_count(max_allocations, "max_allocations", maximum=MAX_ALLOCATIONS)
    with np.errstate(divide="ignore"):
        bound = min(float(np.minimum(alone, caps).sum()), m / float(per_task.min()))
    # one step per task, and tasks are whole: a bound of 7.5 is 7 steps
    steps_bound = float(np.floor(bound))
    if steps_bound > max_allocations:
        raise InvalidInputError(
            f"capacity / demands: progressive filling could take up to {int(steps_bound):,} steps "
            f"(one per task), more than max_allocations = {max_allocations}; use edrf or pdrf "
            f"for instances this large, or raise max_allocations up to {MAX_ALLOCATIONS}"
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

    Called on a single-pool :class:`~.cluster.Cluster` (``drf(cluster, **options)``, the mechanism
    contract) it returns an :class:`~.cluster.Allocation` (:func:`drf_allocation`); on arrays, a
    :class:`DRFResult`.

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
        ``"first_blocked"`` is the literal Algorithm 1: halt the first time the least-share user's
        next task does not fit. It is *not* Pareto efficient (Metin §6.2: capacities (59, 19)).
        ``"skip_blocked"`` drops a blocked user and continues (a blocked user never fits again), so
        no further task fits at the end.
    tie_break : {"lowest_index", "higher_share", "lexicographic", "allocation_count"}
        Order among users with equal current share: lowest index first (``argmin``, as the author's
        scripts do), or higher per-task weighted dominant share first (as Metin reads the DRF
        paper's example), then lowest index. The last two are production schedulers' rules
        (:class:`~.sorter.DRFSorter` is their reference): ``"lexicographic"`` is Hadoop YARN's
        ``DominantResourceFairnessPolicy`` — compare the next-largest share, then the next, lowest
        first, then the lowest index (YARN's submit time); ``"allocation_count"`` is Apache Mesos's
        ``DRFSorter`` — fewer allocations first (one per task, a ``start`` task counted as one),
        then the lowest index (Mesos's name). Among users that hold no task yet (every share 0) both
        schedulers fall through to index order.
    max_tasks : (n_users,) array_like of int, optional
        Per-user task caps (a user at its cap leaves without blocking anyone).
    record_order : bool
        Also return the sequence of users served (for traces of small examples).
    start : (n_users,) array_like of int, optional
        Tasks each user already holds (shape (n_users, 1) too: a Cluster result's ``tasks``):
        progressive filling continues from this allocation (what a scheduler's sorter does on every
        offer), and the result counts them. Must fit the capacity and the caps.
    zeros : {"error", "scheduler"}
        ``"error"`` (default): a zero capacity, an all-zero demand row or a zero weight is invalid
        input — in a model of the papers each is a mistake, and silently serving it would hide
        one. ``"scheduler"``: treated as Mesos, YARN and Kueue treat them (:mod:`.sorter`): a
        resource with zero capacity is left out of every share, and a user whose task needs some of
        it can run none; a user demanding nothing is given no task (it has none to place); a user
        with weight 0 is served only after every positive-weight user is blocked or capped (then,
        among such users, unweighted). Users given no task for either reason are listed in
        ``DRFResult.left_out``.
    quotas : :class:`~.quotas.Quotas`, optional
        Guarantees, limits and lending limits as resource vectors (YARN's min/max shares, Mesos's
        quota, Kueue's nominal quota with borrowing and lending limits; see :mod:`.quotas`). The
        whole tasks within each user's guarantee are allocated first (by the same share order), then
        progressive filling goes on by ``quotas.share``; a limit caps the user's tasks as
        ``max_tasks`` does; a guarantee's unlent part is held back for its user.
        ``quotas.share="borrowed"`` (Kueue) compares shares in floating point and takes
        ``tie_break="lowest_index"`` only.
    max_allocations : int
        Refuse instances on which progressive filling could take more steps (one per task) than
        this; the bound is min(Σ_i tasks user i could run alone, m / smallest per-task dominant
        share). Default :data:`MAX_ALLOCATIONS` (2·10⁹, minutes of work). EDRF and PDRF compute
        large instances in O(nm).
    share_arithmetic : {"exact", "accumulated"}
        ``"exact"``: with integer demands, capacities and weights, shares are compared exactly as
        fractions, so users whose shares are equal as fractions are tied and the tie rule decides (3
        × 1/20 = 3/20); with non-integer inputs, as ``tasks * step`` in floating point.
        ``"accumulated"`` mirrors the author's scripts (Metin 2025, the repository's test scripts):
        each user's share is the running float sum ``s += step``, whose round-off can break exact
        ties either way. Which was used is ``DRFResult.share_arithmetic``.

    Returns
    -------
    DRFResult or Allocation
        A :class:`DRFResult` on arrays; an :class:`~.cluster.Allocation` on a Cluster.

    Raises
    ------
    InvalidInputError
        On invalid input, an instance that could take more than ``max_allocations`` steps, or a
        ``start`` that does not fit the capacity and the caps.

    Notes
    -----
    Exact comparison uses int64 cross-products; it falls back to ``tasks * step`` in floating point
    when a product could exceed 2⁶² (capacities above about 2·10⁹). A task fits when
    ``consumed + demand <= capacity * (1 + FIT_RTOL)`` (FIT_RTOL = 1e-12).

    References
    ----------
    .. [1] A. Ghodsi, M. Zaharia, B. Hindman, A. Konwinski, S. Shenker, I. Stoica, "Dominant
       Resource Fairness: Fair Allocation of Multiple Resource Types", NSDI, 2011, Algorithm 1.
    .. [2] S. Metin, "Precomputed Dominant Resource Fairness", arXiv preprint arXiv:2507.08846,
       2025, §3.1, §6.2.

    Examples
    --------
    The DRF paper's example (9 CPUs, 18 GB; A = <1, 4>, B = <3, 1>):

    >>> res = drf([[1, 4], [3, 1]], [9, 18], record_order=True, tie_break="higher_share")
    >>> res.tasks.tolist(), res.order.tolist()
    ([3, 2], [1, 0, 0, 1, 0])
    >>> res.dominant_shares.round(4).tolist()
    [0.6667, 0.6667]
    """
    record_order = as_flag(record_order, "record_order")
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
    cap = as_capacities(capacity, n_resources=m, aligned_to=("demands", demands, 1))
    w = as_weights(weights, n, aligned_to=("demands", demands, 0))
    check_labels(("demands", demands, 0), max_tasks=max_tasks, start=start)
    check_choice(stop, STOP_RULES, "stop")
    check_choice(tie_break, TIE_BREAKS, "tie_break")
    per_task, alone, dominant = pool_summary(d, cap)
    quota = _resolve_quotas(quotas, d, cap, tie_break, share_arithmetic, demands)
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


def _resolve_quotas(quotas, d, cap, tie_break, share_arithmetic, demands=None):
    """``drf``'s ``quotas`` checked against the instance and the options it can be combined with (or
    ``None``)."""
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
    quotas._check_labels("demands", demands)
    return quotas.resolve(d, cap)


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
    """``drf(..., zeros="scheduler")``: progressive filling on the users and resources the zero
    rules keep, then on the zero-weight users from where the others stopped (see ``drf``'s
    ``zeros``)."""
    d = as_demands(demands, allow_zero_rows=True)
    n, m = d.shape
    cap = as_capacities(
        capacity, n_resources=m, allow_zero=True, aligned_to=("demands", demands, 1)
    )
    w = as_weights(weights, n, allow_zero=True, aligned_to=("demands", demands, 0))
    check_labels(("demands", demands, 0), max_tasks=max_tasks, start=start)
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
    # pass 1: positive weights (a zero-weight user holds what it starts with); pass 2: zero weights,
    # unweighted, from where pass 1 stopped (the others frozen there) — unless pass 1 halted on a
    # block (stop="first_blocked")
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
    """:func:`~.progressive_filling.drf` on a single-pool cluster (weights and caps from the
    cluster).

    Parameters
    ----------
    cluster : Cluster
        A one-server cluster.
    **options
        The options of :func:`drf` (``stop``, ``tie_break``, ``record_order``, ``start``,
        ``quotas``, ...); not ``weights``, nor ``max_tasks`` on a capped cluster.

    Returns
    -------
    Allocation
        Integer tasks, shape (n_users, 1). ``extras``: ``order`` (when ``record_order=True``),
        ``blocked_user``, ``n_allocations``, ``work``, ``share_arithmetic``.

    Raises
    ------
    InvalidInputError
        When ``cluster`` is not a single-pool Cluster, or ``weights`` (or ``max_tasks`` on a capped
        cluster) is given.
    """
    as_instance(cluster, Cluster, "cluster")
    if "weights" in options:
        raise InvalidInputError(
            "weights: on a cluster the weights are the cluster's (Cluster(..., weight=...))"
        )
    cap, dem, w = pool_arrays(cluster, "drf", caps=True)
    check_labels(
        ("cluster.demand", cluster.labels, 0),
        max_tasks=options.get("max_tasks"),
        start=options.get("start"),
    )
    if isinstance(options.get("quotas"), Quotas):
        options["quotas"]._check_labels("cluster.demand", cluster.labels)
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
