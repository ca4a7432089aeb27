"""DRF for divisible tasks (EDRF; Parkes, Procaccia, Shah 2015) and Precomputed DRF (Metin 2025)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._jit import interpreted_when_small, njit
from .._validate import (
    as_flag,
    InvalidInputError,
    as_array,
    as_capacities,
    as_demands,
    as_instance,
    as_task_caps,
    as_weights,
    check_choice,
    check_labels,
    check_task_bound,
    result_type,
)
from ._engine.pair_kernels import largest
from .cluster import Allocation, Cluster, pool_arrays, pool_column
from ._engine.filling import (
    _is_cluster,
    _progressive_filling,
    _start_amounts,
    held_resources,
)
from .progressive_filling import (
    dominant_resources,
    no_quotas,
    share_steps,
)

__all__ = ["edrf", "EDRFResult", "pdrf", "PDRFResult", "SATURATION_RTOL"]

#: a resource counts as saturated when its remaining capacity is below this fraction of its capacity
SATURATION_RTOL = 1e-12


def _as_pool(demands, capacity, weights, *, with_weights: bool = True):
    """Shape/dtype checks only; values are checked inside the streaming kernel (one pass). Without
    weights (PDRF has none), an empty weight vector: :func:`_scan_rows` then skips the rate."""
    d = as_array(demands, "demands")
    if d.ndim != 2 or d.dtype.kind not in "iuf" or d.size == 0:
        d = as_demands(d)  # raises the precise error
    d = np.ascontiguousarray(d, dtype=np.float64)
    cap = as_capacities(capacity, n_resources=d.shape[1], aligned_to=("demands", demands, 1))
    w = (
        as_weights(weights, d.shape[0], aligned_to=("demands", demands, 0))
        if with_weights
        else np.empty(0)
    )
    return _read_only(d), _read_only(cap), _read_only(w)


def _read_only(array):
    """A read-only view: numba compiles a kernel once per array flag, so read-only views from every
    caller (a cluster's arrays are read-only, a user's lists are not) share one compilation."""
    view = array.view()
    view.flags.writeable = False
    return view


def _raise_scan_error(d, cap):
    as_demands(d)  # raises the precise error for bad values
    with np.errstate(under="ignore"):
        tiny = ~((d / cap) > 0).any(axis=1)
    i = int(np.argmax(tiny))
    raise InvalidInputError(
        f"demands[{i}] / capacity underflows to 0: task counts would overflow int64"
    )


class _DominantOnAccess:
    """``dominant_resource`` from the validated inputs a result keeps (references, not copies),
    computed on first access: the O(nm) pass is not paid by callers who never ask (EDRF's closed
    form is itself one such pass)."""

    @cached_property
    def dominant_resource(self) -> np.ndarray:
        """(n_users,) int64 — each user's dominant resource, ``argmax_r demands[i, r] /
        capacity[r]``.

        The first of equals, as :attr:`DRFResult.dominant_resource`."""
        return dominant_resources(*self._inputs)


@result_type
@dataclass(frozen=True, eq=False)
class EDRFResult(_DominantOnAccess):
    """Divisible DRF allocation.

    Parameters
    ----------
    tasks : numpy.ndarray
        Float64, shape (n_users,): (fractional) tasks per user.
    dominant_shares : numpy.ndarray
        Float64, shape (n_users,): tasks * max_r demand / capacity.
    consumed : numpy.ndarray
        Float64, shape (n_resources,): resources used.
    levels : numpy.ndarray
        Float64, shape (n_users,): the weighted dominant share at which each user was frozen.
    rounds : int
        Progressive-filling rounds (1 when every user demands every resource).
    _inputs : tuple, default ()
        The validated ``(demands, capacity)`` the result keeps (references) for
        :attr:`dominant_resource`.

    Attributes
    ----------
    dominant_resource : (n_users,) int64
        Each user's dominant resource (computed on first access).
    """

    tasks: np.ndarray
    dominant_shares: np.ndarray
    consumed: np.ndarray
    levels: np.ndarray
    rounds: int
    _inputs: tuple = field(default=(), repr=False, compare=False)


@njit(cache=True)
def _scan_rows(demands, capacity, weights):
    """One streaming pass: validate values, per-task dominant share, and the one-round rate.

    Returns (ok, ds, rate, any_zero): ``ok`` is False on a negative/non-finite entry or an all-zero
    row (the caller then re-validates to raise the precise error); ``rate[r] = sum_i w_i d_ir /
    ds_i``; ``any_zero`` says some user does not demand some resource (then several rounds may be
    needed). Empty ``weights``: no rate (zeros), for callers that need the shares alone.

    Parameters
    ----------
    demands : float64[:, :]
        Per-task demands, shape (n_users, n_resources).
    capacity : float64[:]
        Capacities, shape (n_resources,), > 0.
    weights : float64[:]
        User weights, shape (n_users,), or (0,) for no rate.
    """
    n, m = demands.shape
    ds = np.empty(n)
    rate = np.zeros(m)
    any_zero = False
    with_rate = weights.shape[0] > 0
    for i in range(n):
        # branch-free over the row (a branch per entry costs half the pass): ``not_finite`` counts
        # NaN and +inf (by a comparison, which raises no floating-point flag, interpreted or
        # compiled), ``lowest`` catches a negative entry (-inf included) and says whether the row
        # has a zero
        best = 0.0
        lowest = np.inf
        not_finite = 0
        for r in range(m):
            v = demands[i, r]
            not_finite += not (v < np.inf)
            lowest = v if v < lowest else lowest
            q = v / capacity[r]
            best = q if q > best else best
        if not lowest >= 0.0 or not_finite != 0 or best == 0.0:
            return False, ds, rate, any_zero
        any_zero |= lowest == 0.0
        ds[i] = best
        if with_rate:
            f = weights[i] / best
            for r in range(m):
                rate[r] += f * demands[i, r]
    return True, ds, rate, any_zero


@njit(cache=True)
def _edrf_rounds(demands, capacity, rate_per_level, start, caps):
    """Water-fill weighted dominant share; ``rate_per_level[i]`` = tasks of user i per unit level.

    From ``start`` (tasks each user holds; empty: from zero): a user waits at its start until the
    common level reaches the level its start is worth (``start_i / rate_per_level_i``), then rises
    with the others. ``caps`` (tasks; empty: none): a user freezes at its cap. Events, in level
    order: a resource saturates (every unfrozen user demanding it freezes, a waiting one at its
    start), the level reaches the next waiting user's start, or a rising user reaches its cap.
    Returns (levels, consumed, rounds), rounds -1 if the events ran out (magnitudes beyond double
    precision).

    Parameters
    ----------
    demands : float64[:, :]
        Per-task demands, shape (n_users, n_resources).
    capacity : float64[:]
        Capacities, shape (n_resources,), > 0.
    rate_per_level : float64[:]
        Tasks of each user per unit level, shape (n_users,).
    start : float64[:]
        Tasks each user holds at the start, shape (n_users,), or (0,) to start from zero.
    caps : float64[:]
        Per-user caps on tasks, shape (n_users,), or (0,) for none.
    """
    n, m = demands.shape
    has_caps = caps.shape[0] > 0
    cap_level = np.full(n, np.inf)
    by_cap = np.empty(0, dtype=np.int64)
    # the next user in cap order not yet frozen by its cap (none without caps: no sort, no counts)
    cpos = n
    if has_caps:
        cap_level = caps / rate_per_level
        by_cap = np.argsort(cap_level, kind="mergesort")
        cpos = 0
    consumed = np.zeros(m)
    rate = np.zeros(m)
    rising = np.zeros(
        m, dtype=np.int64
    )  # rising users demanding each resource: a rate with none is exactly 0
    active = np.zeros(n, dtype=np.bool_)
    nxt = 0  # the next user in wake order not yet woken
    if start.shape[0] == 0:  # from zero: everyone rises from the first round (no sort)
        start_level = np.zeros(n)
        wake = np.empty(0, dtype=np.int64)
        nxt = n
        for i in range(n):
            active[i] = True
            for r in range(m):
                rate[r] += rate_per_level[i] * demands[i, r]
                if has_caps and demands[i, r] > 0.0:
                    rising[r] += 1
    else:
        start_level = start / rate_per_level
        wake = np.argsort(start_level, kind="mergesort")
        for i in range(n):
            for r in range(m):
                consumed[r] += start[i] * demands[i, r]
    frozen = np.zeros(n, dtype=np.bool_)
    levels = start_level.copy()
    remaining = capacity - consumed
    saturated = np.zeros(m, dtype=np.bool_)
    level = 0.0
    n_open = n  # users not frozen (waiting or rising)
    rounds = 0
    while n_open > 0:
        if rounds > 2 * n + m + 1:  # every round wakes a user, caps one or saturates a resource
            return levels, consumed, -1
        rounds += 1
        while nxt < n and start_level[wake[nxt]] <= level:  # wake everyone the level has reached
            i = wake[nxt]
            nxt += 1
            if not frozen[i]:
                active[i] = True
                for r in range(m):
                    rate[r] += rate_per_level[i] * demands[i, r]
                    if has_caps and demands[i, r] > 0.0:
                        rising[r] += 1
        dt = np.inf
        for r in range(m):
            if (
                rate[r] > 0.0 and not saturated[r]
            ):  # a start may fill a resource to within rounding of full
                dt = min(dt, max(remaining[r], 0.0) / rate[r])
        if nxt < n:
            dt = min(dt, start_level[wake[nxt]] - level)
        while cpos < n and frozen[by_cap[cpos]]:
            cpos += 1
        if cpos < n and cap_level[by_cap[cpos]] < np.inf:
            dt = min(dt, max(cap_level[by_cap[cpos]] - level, 0.0))
        if (
            dt == np.inf
        ):  # nobody rising can saturate anything (not reached: every user demands a resource)
            return levels, consumed, -1
        level += dt
        for r in range(m):
            if rate[r] > 0.0 and not saturated[r]:
                use = rate[r] * dt
                remaining[r] -= use
                consumed[r] += use
        for r in range(m):
            if not saturated[r] and remaining[r] <= SATURATION_RTOL * capacity[r]:
                saturated[r] = True
                consumed[r] = capacity[r]  # the argmin resource is exactly full
                remaining[r] = 0.0
        changed = False
        for i in range(n):
            if not frozen[i]:
                for r in range(m):
                    if saturated[r] and demands[i, r] > 0.0:
                        frozen[i] = True
                        n_open -= 1
                        if active[i]:
                            active[i] = False
                            levels[i] = level
                            changed = True
                        break
        if changed:  # rates of the users still rising, from scratch (at most m times)
            rate[:] = 0.0
            rising[:] = 0
            for i in range(n):
                if active[i]:
                    for r in range(m):
                        rate[r] += rate_per_level[i] * demands[i, r]
                        if has_caps and demands[i, r] > 0.0:
                            rising[r] += 1
        while cpos < n and (frozen[by_cap[cpos]] or cap_level[by_cap[cpos]] <= level):
            i = by_cap[cpos]
            cpos += 1
            if not frozen[
                i
            ]:  # at its cap: rising (its level is the cap's, exactly) or waiting there
                frozen[i] = True
                n_open -= 1
                levels[i] = cap_level[i]
                if active[
                    i
                ]:  # its rate leaves the sum (O(m), not a recount: one cap event per user)
                    active[i] = False
                    for r in range(m):
                        if demands[i, r] > 0.0:
                            rising[r] -= 1
                            rate[r] = (
                                rate[r] - rate_per_level[i] * demands[i, r]
                                if rising[r] > 0
                                else 0.0
                            )
    return levels, consumed, rounds


@interpreted_when_small
def edrf(
    demands: ArrayLike | Cluster,
    capacity: ArrayLike | None = None,
    *,
    weights: ArrayLike | None = None,
    start: ArrayLike | None = None,
    max_tasks: ArrayLike | None = None,
) -> EDRFResult | Allocation:
    """Dominant Resource Fairness for divisible tasks (EDRF).

    Raises every unfrozen user's weighted dominant share at the same rate until a resource
    saturates, freezes the users that demand it, and repeats on what is left (Parkes, Procaccia,
    Shah 2015; reconstructions §1.2). With strictly positive demands this is one round: the closed
    form ``x* = 1 / max_r sum_i d_ir`` on normalised demands, computed in O(nm). On a single-pool
    :class:`~.cluster.Cluster` (``edrf(cluster)``) it returns an :class:`~.cluster.Allocation`.

    Parameters
    ----------
    demands : array_like or Cluster
        Shape (n_users, n_resources): per-task demands, >= 0, no all-zero row; or a single-pool
        Cluster.
    capacity : array_like or None, default None
        Shape (n_resources,): capacities, > 0 (None with a Cluster, which carries its own).
    weights : array_like or None, default None
        Shape (n_users,), > 0; None: all 1 (a Cluster carries its own).
        Weighted DRF: max-min on dominant share / weight. With one scalar weight per user this
        equals the ρ-form of reconstructions §1.2 (tagged [INF] there) with ρ_i = ds_i / w_i; the
        max-min property is checked against an LP in the tests.
    start : array_like or None, default None
        Shape (n_users,) or (n_users, 1) (a Cluster result's ``tasks``): tasks (divisible) each user
        already holds: water-filling continues from this allocation — a user waits at its start
        until the others' weighted shares reach it, then rises with them (the "who is served next"
        question of a scheduler's sorter, for divisible tasks). Must be >= 0 and fit the capacity.
    max_tasks : array_like or None, default None
        Shape (n_users,): the most tasks (divisible) each user may get, >= 0 (``inf``: no cap): a
        user freezes at its cap and the others keep rising (weighted max-min with upper bounds;
        §5.8 of Khamse-Ashari et al. caps a job at what its running tasks request). A ``start`` may
        not exceed it.

    Returns
    -------
    EDRFResult or Allocation
        An :class:`EDRFResult` on arrays; an :class:`~.cluster.Allocation` on a Cluster.

    Raises
    ------
    InvalidInputError
        On invalid input, a ``start`` that does not fit the capacity or exceeds a cap, or magnitudes
        beyond double precision.

    References
    ----------
    .. [1] D. C. Parkes, A. D. Procaccia, N. Shah, "Beyond Dominant Resource Fairness: Extensions,
       Limitations, and Indivisibilities", ACM Transactions on Economics and Computation 3(1), 2015.

    Examples
    --------
    >>> res = edrf([[1, 4], [3, 1]], [9, 18])
    >>> res.tasks.round(6).tolist(), res.dominant_shares.round(6).tolist()
    ([3.0, 2.0], [0.666667, 0.666667])

    With A capped at 2 tasks, B rises until CPU is full: (9 − 2) / 3 tasks.

    >>> edrf([[1, 4], [3, 1]], [9, 18], max_tasks=[2, np.inf]).tasks.round(6).tolist()
    [2.0, 2.333333]
    """
    if _is_cluster(demands, capacity, weights):
        if max_tasks is not None:
            raise InvalidInputError(
                "max_tasks: on a cluster the caps are the cluster's (Cluster(..., max_tasks=...))"
            )
        return edrf_allocation(demands, start=start)
    d, cap, w = _as_pool(demands, capacity, weights)
    check_labels(("demands", demands, 0), start=start, max_tasks=max_tasks)
    n, m = d.shape
    ok, per_task, rate, any_zero = _scan_rows(d, cap, w)
    if not ok:
        _raise_scan_error(d, cap)
    if not np.isfinite(per_task).all():
        i = int(np.argmax(~np.isfinite(per_task)))
        raise InvalidInputError(
            f"demands[{i}] / capacity: a per-task share overflows the float range "
            f"(demands[{i}] = {d[i].tolist()}, capacity = {cap.tolist()}); rescale the units"
        )
    with np.errstate(over="ignore", divide="ignore"):
        per_level = w / per_task
    if not np.isfinite(per_level).all() or not np.isfinite(rate).all():
        i = int(np.argmax(~np.isfinite(per_level))) if not np.isfinite(per_level).all() else 0
        raise InvalidInputError(
            f"demands[{i}] / capacity: a per-task share ({per_task[i]:g}) too small for the "
            "float range (tasks per unit share overflow); rescale the units"
        )
    held = _start_amounts(start, d, cap)
    caps = None
    if max_tasks is not None:
        caps = as_task_caps(max_tasks, n, "max_tasks")
        if held is not None and (held > caps).any():
            i = int(np.argmax(held > caps))
            raise InvalidInputError(f"start[{i}] = {held[i]}: above max_tasks[{i}] = {caps[i]}")
        caps = caps if np.isfinite(caps).any() else None
    if any_zero or held is not None or caps is not None:
        levels, consumed, rounds = _edrf_rounds(
            d,
            cap,
            per_level,
            np.empty(0) if held is None else held,
            np.empty(0) if caps is None else caps,
        )
        if rounds < 0:
            raise InvalidInputError(
                "demands / capacity: water-filling saturated no resource in a round (the "
                "magnitudes are beyond double precision); rescale the units"
            )
    else:  # every user demands every resource: one round, the closed form
        level = np.min(cap / rate)
        levels = np.full(n, level)
        consumed = np.minimum(rate * level, cap)
        rounds = 1
    tasks = levels * w / per_task
    if (
        caps is not None
    ):  # a capped user's level is its cap's: its tasks are the cap, not an ulp above
        tasks = np.minimum(tasks, caps)
    return EDRFResult(
        tasks=tasks,
        dominant_shares=tasks * per_task,
        consumed=consumed,
        levels=levels,
        rounds=int(rounds),
        _inputs=(d, cap),
    )


@result_type
@dataclass(frozen=True, eq=False)
class PDRFResult(_DominantOnAccess):
    """Precomputed DRF allocation.

    Parameters
    ----------
    tasks : numpy.ndarray
        Int64, shape (n_users,): tasks per user.
    consumed : numpy.ndarray
        Float64, shape (n_resources,): resources used.
    cycles : float
        k, the (real) number of cycle iterations (k' = k * ds* for ``variant="simplified"``).
    top_up_tasks : numpy.ndarray
        Int64, shape (n_users,): tasks added by the top-up round (zeros without it).
    stages : int
        Cycle computations performed (1 unless ``higher_order``).
    work : int, default 0
        Element operations (demand entries read or written per pass): the row scan and every cycle
        computation (their loops run a fixed n·m + n + m times, counted from their bounds), plus
        the top-up's counted work (:attr:`DRFResult.work`): the machine-independent measure of
        PDRF's O(nm) cost.
    _inputs : tuple, default ()
        The validated ``(demands, capacity)`` the result keeps (references) for
        :attr:`dominant_resource`.
    _per_task_shares : numpy.ndarray, default empty
        Float64, shape (n_users,): the per-task dominant shares ds_i, for :attr:`rates`.

    Attributes
    ----------
    rates : (n_users,) float64
        Tasks per cycle, ds* / ds_i (>= 1), computed on first access.
    dominant_resource : (n_users,) int64
        Each user's dominant resource (computed on first access).
    """

    tasks: np.ndarray
    consumed: np.ndarray
    cycles: float
    top_up_tasks: np.ndarray
    stages: int
    work: int = 0
    _inputs: tuple = field(default=(), repr=False, compare=False)
    _per_task_shares: np.ndarray = field(
        default_factory=lambda: np.empty(0), repr=False, compare=False
    )

    @cached_property
    def rates(self) -> np.ndarray:
        """(n_users,) float64 — tasks per cycle, ds* / ds_i (>= 1).

        Computed on first access from the per-task dominant shares the result owns (a copy of
        nothing the caller holds)."""
        shares = self._per_task_shares
        return shares.max(initial=0.0) / shares


@njit(cache=True)
def _pdrf_cycle(demands, capacity, ds, simplified):
    """One PDRF cycle computation (Metin Alg. 1): returns tasks and k.

    Parameters
    ----------
    demands : float64[:, :]
        Per-task demands, shape (n_users, n_resources).
    capacity : float64[:]
        Capacities, shape (n_resources,), > 0.
    ds : float64[:]
        Per-task dominant shares ds_i, shape (n_users,).
    simplified : bool
        Whether to use the simplified form k' = k ds*.
    """
    n, m = demands.shape
    ds_max = largest(ds)
    cycle = np.zeros(m)
    for i in range(n):
        if simplified:
            f = 1.0 / ds[i]
        else:
            f = ds_max / ds[i]
        for r in range(m):
            cycle[r] += f * demands[i, r]
    k = np.inf
    for r in range(m):
        if cycle[r] > 0.0:
            k = min(k, capacity[r] / cycle[r])
    tasks = np.empty(n, dtype=np.int64)
    for i in range(n):
        if simplified:
            tasks[i] = np.int64(np.floor(k / ds[i]))
        else:
            tasks[i] = np.int64(np.floor(k * (ds_max / ds[i])))
    return tasks, k


def _check_rates(d: np.ndarray, cap: np.ndarray, ds: np.ndarray, i_min: int) -> None:
    """Refuse a pool whose per-task shares ``ds`` overflow, or whose largest over the smallest (a
    PDRF cycle's rate) could overflow a task count: a user demanding far more than the pool
    beside one demanding almost nothing, both valid on their own."""
    ds_top = float(ds.max())
    if not np.isfinite(ds_top):
        i = int(np.argmax(~np.isfinite(ds)))
        raise InvalidInputError(
            f"demands[{i}] / capacity: a per-task share overflows the float range "
            f"(demands[{i}] = {d[i].tolist()}, capacity = {cap.tolist()})"
        )
    with np.errstate(over="ignore"):
        rate_top = ds_top / float(ds[i_min])
    check_task_bound(rate_top, f"ds* / ds[{i_min}] (the largest rate)")


@interpreted_when_small
def pdrf(
    demands: ArrayLike | Cluster,
    capacity: ArrayLike | None = None,
    *,
    variant: str = "ds_max",
    top_up: bool = False,
    higher_order: bool = False,
    share_arithmetic: str = "exact",
    start: None = None,
) -> PDRFResult | Allocation:
    """Precomputed Dominant Resource Fairness (Metin 2025, Algorithm 1); on a single-pool Cluster,
    an Allocation.

    With ds_i = max_r d_ir / R_r and ds* = max_i ds_i, one *cycle* gives ds*/ds_i tasks to user i;
    ``k = min_r R_r / sum_i (ds*/ds_i) d_ir`` cycles fit, and user i receives ``floor(k ds*/ds_i)``
    tasks. This is the floor of the *first round* of EDRF (``x*/ds_i``, every user rising together
    until the first resource saturates). When every user demands every resource, EDRF has one round,
    so PDRF is the floor of EDRF and under-allocates against divisible DRF by less than one task.
    With zero demands EDRF's later rounds can give more (users not using the saturated resource keep
    rising): PDRF is then at most the floor of EDRF, and can be further below it (``pdrf([[1, 0],
    [1, 0], [0, 2]], [1, 3])`` gives (0, 0, 0) against EDRF's (0.5, 0.5, 1.5)).

    Parameters
    ----------
    demands : array_like or Cluster
        Shape (n_users, n_resources): absolute per-task demands, >= 0, no all-zero row; or a
        single-pool Cluster.
    capacity : array_like or None, default None
        Shape (n_resources,): absolute reserves, > 0 (None with a Cluster).
    variant : {"ds_max", "simplified"}, default "ds_max"
        ``"ds_max"``: the paper's form (used for its tables). ``"simplified"``: k' = k ds*, tasks
        ``floor(k'/ds_i)`` — algebraically equal; the paper reports it as less accurate
        numerically.
    top_up : bool, default False
        After the cycles, continue progressive filling (lowest weighted share first, lowest index on
        ties, blocked users skipped) from the PDRF allocation until no task fits: the final DRF
        round the paper suggests (§5). The result is Pareto efficient (no further task fits).
    share_arithmetic : {"exact", "accumulated"}, default "exact"
        How the top-up compares shares (see :func:`fairlib.multires.drf`): exactly (integer inputs)
        or as the author's scripts' running float sums.
    higher_order : bool, default False
        Experimental (§6.1, left out of the paper's final algorithm): after the primary cycle, drop
        the users with the largest ds while the remaining capacity admits less than one cycle, and
        allocate further cycles to the rest, until no user is left. It can over-allocate.
    start : None, default None
        Refused with an error that says why: PDRF's cycles are precomputed from an empty pool (every
        user starts at 0 and rises at its rate), so there is no PDRF "from" an allocation;
        continuing DRF from one is ``drf(..., start=tasks)`` (integral) or ``edrf(..., start=x)``,
        and PDRF's own top-up is that filling.

    Returns
    -------
    PDRFResult or Allocation
        A :class:`PDRFResult` on arrays; an :class:`~.cluster.Allocation` on a Cluster.

    Raises
    ------
    InvalidInputError
        On invalid input, task counts that could overflow int64, or a ``start``.

    References
    ----------
    .. [1] S. Metin, "Precomputed Dominant Resource Fairness", arXiv preprint arXiv:2507.08846,
       2025, Algorithm 1.

    Examples
    --------
    >>> pdrf([[1, 4], [3, 1]], [7583, 4649]).tasks.tolist()
    [752, 1637]
    """
    higher_order = as_flag(higher_order, "higher_order")
    top_up = as_flag(top_up, "top_up")
    check_choice(share_arithmetic, ("exact", "accumulated"), "share_arithmetic")
    if start is not None:
        raise InvalidInputError(
            "start: PDRF (Metin, Algorithm 1) precomputes its cycles from an empty pool and has "
            "no form that continues from an allocation; use drf(..., start=tasks) or "
            "edrf(..., start=x)"
        )
    if _is_cluster(demands, capacity, None):
        return pdrf_allocation(
            demands,
            variant=variant,
            top_up=top_up,
            higher_order=higher_order,
            share_arithmetic=share_arithmetic,
        )
    check_choice(variant, ("ds_max", "simplified"), "variant")
    d, cap, no_weights = _as_pool(demands, capacity, None, with_weights=False)
    n, m = d.shape
    ok, ds, _, _ = _scan_rows(d, cap, no_weights)
    if not ok:
        _raise_scan_error(d, cap)
    i_min = int(np.argmin(ds))
    with np.errstate(divide="ignore", over="ignore"):
        check_task_bound(float(1.0 / ds[i_min]), f"capacity / demands[{i_min}]")
    _check_rates(d, cap, ds, i_min)
    simplified = variant == "simplified"
    tasks, k = _pdrf_cycle(d, cap, ds, simplified)
    work = n * m + (
        n * m + m + n
    )  # _scan_rows, then _pdrf_cycle: loops with data-independent bounds
    stages = 1
    if higher_order:
        remaining = cap - tasks @ d
        active = np.ones(n, dtype=bool)
        while active.any():
            sub = np.flatnonzero(active)
            extra, k_sub = _pdrf_cycle(d[sub], np.maximum(remaining, 0.0), ds[sub], False)
            work += len(sub) * m + m + len(sub)
            if k_sub < 1.0:  # less than one cycle of these users fits: drop the largest-ds ones
                active[sub[ds[sub] == ds[sub].max()]] = False
                continue
            # k >= 1 gives every remaining user at least one task, so this loop terminates
            tasks[sub] += extra
            remaining = remaining - extra @ d[sub]
            stages += 1
    top = np.zeros(n, dtype=np.int64)
    if top_up:
        caps = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
        no_order = np.empty(0, dtype=np.int64)
        step, share_num, share_den, accumulate, _ = share_steps(
            d, cap, np.ones(n), share_arithmetic
        )
        by_index = np.arange(n, dtype=np.int64)
        filled, _, _, _, fill_work = _progressive_filling(
            d,
            cap,
            step,
            share_num,
            share_den,
            accumulate,
            by_index,
            by_index,
            caps,
            True,
            False,
            no_order,
            tasks,
            *no_quotas(m),
        )
        work += fill_work
        top = filled - tasks
        tasks = filled
    return PDRFResult(
        tasks=tasks,
        # a writable copy, as every other caller of held_resources passes: one compilation of it
        consumed=held_resources(tasks, np.array(d)),
        cycles=float(k),
        top_up_tasks=top,
        stages=stages,
        work=int(work),
        _inputs=(d, cap),
        _per_task_shares=ds,
    )


def edrf_allocation(cluster: Cluster, start: ArrayLike | None = None) -> Allocation:
    """:func:`edrf` (divisible DRF) on a single-pool cluster, from ``start`` if given, each user at
    most its cap.

    Parameters
    ----------
    cluster : Cluster
        A one-server cluster (weights and ``max_tasks`` from it).
    start : array_like or None, default None
        Shape (n_users,) or (n_users, 1) (a Cluster result's ``tasks``): tasks (divisible) each user
        already holds, >= 0, fitting the capacity and the caps.

    Returns
    -------
    Allocation
        Float tasks, shape (n_users, 1). ``extras``: ``levels`` (each user's level), ``rounds``.

    Raises
    ------
    InvalidInputError
        When ``cluster`` is not a single-pool Cluster, or ``start`` is invalid.
    """
    as_instance(cluster, Cluster, "cluster")
    cap, dem, w = pool_arrays(cluster, "edrf", caps=True)
    check_labels(("cluster.demand", cluster.labels, 0), start=start)
    res = edrf(
        dem, cap, weights=w, start=start, max_tasks=cluster.max_tasks if cluster.capped else None
    )
    return Allocation(
        cluster,
        pool_column(res.tasks),
        "edrf",
        iterations=int(res.rounds),
        extras={"levels": res.levels, "rounds": int(res.rounds)},
    )


def pdrf_allocation(cluster: Cluster, **options: Any) -> Allocation:
    """:func:`pdrf` (Precomputed DRF, unweighted) on a single-pool cluster.

    Parameters
    ----------
    cluster : Cluster
        A one-server cluster with every weight 1 and no caps.
    **options
        The options of :func:`pdrf` (``variant``, ``top_up``, ``higher_order``,
        ``share_arithmetic``).

    Returns
    -------
    Allocation
        Integer tasks, shape (n_users, 1). ``extras``: ``cycles``, ``rates``, ``top_up_tasks``.

    Raises
    ------
    InvalidInputError
        When ``cluster`` is not a single-pool Cluster, has weights other than 1 or caps.
    """
    as_instance(cluster, Cluster, "cluster")
    cap, dem, _ = pool_arrays(cluster, "pdrf", weighted=False)
    res = pdrf(dem, cap, **options)
    return Allocation(
        cluster,
        pool_column(res.tasks),
        "pdrf",
        extras={"cycles": float(res.cycles), "rates": res.rates, "top_up_tasks": res.top_up_tasks},
    )
