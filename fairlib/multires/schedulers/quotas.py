"""Guarantees and limits as resource vectors for pooled DRF: YARN's min and max shares, Mesos's
quota, Kueue's nominal quota with borrowing and lending limits (``drf(..., quotas=Quotas(...))``).

A :class:`Quotas` gives every user three vectors over the resources:

- a **guarantee** ``G_i``: the whole tasks that fit within it (and within the user's limit and
  ``max_tasks``) are allocated first, before anyone goes beyond a guarantee — Mesos's quota stage,
  YARN's "below its min share first", Kueue's "within nominal quota". The guarantees must fit the
  pool together (``Σ_i G_i <= capacity``);
- a **limit** ``L_i``: the user never holds more (``tasks_i demands_i <= L_i``) — YARN's max
  share, Mesos's quota limit, Kueue's nominal quota plus borrowing limit;
- a **lending limit** ``Λ_i <= G_i``: how much of its guarantee others may use while the user
  leaves it idle. The rest, ``reserved_i = G_i - Λ_i``, is held back for it: a task fits only while
  ``Σ_j max(tasks_j demands_j, reserved_j) <= capacity``. YARN lends everything (a min share is
  recovered by preemption, not held back); Mesos lends nothing (the allocator keeps unallocated at
  least the sum of unsatisfied guarantees, which is this inequality with ``reserved = G``); Kueue
  lends up to its ``lendingLimit``.

After the guarantees, progressive filling continues by one of two shares:

- ``share="dominant"`` — the weighted dominant share of everything the user holds (DRF as Mesos
  and YARN run it);
- ``share="borrowed"`` — Kueue's fair-sharing share: ``max_r max(0, tasks_i d_ir - G_ir) /
  lendable_r / w_i``, what the user borrows beyond its guarantee as a fraction of what the pool can
  lend, ``lendable = capacity - Σ_j reserved_j`` (Kueue's cohort total of lendable quota when the
  capacity is the sum of the nominal quotas). Users within their guarantee all have share 0 and go
  in index order (Kueue: priority, then creation time).

Differences from the schedulers, documented: tasks are whole and identical per user, so "within the
guarantee" means whole tasks within ``G_i`` (YARN calls a queue needy until its dominant resource
reaches the min share, so it may cross it by one container); nothing is preempted, so a ``start``
allocation that lends out a guarantee leaves its owner short (the schedulers reclaim it by
preemption); Kueue compares shares as ⌊1000 · share⌋ (we compare floats).

A continuous (divisible-task) reference by repeated LPs is :func:`~.lp.quota_maxmin_lp`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike

from ..._jit import njit
from ..._validate import (
    read_only_state,
    as_labels,
    InvalidInputError,
    Labels,
    _check_aligned,
    _short,
    _store_read_only,
    as_array,
    as_real_array,
    as_values,
    check_choice,
)

__all__ = ["Quotas", "QUOTA_SHARES", "ResolvedQuotas", "divisible_bounds"]

#: the share progressive filling equalises beyond the guarantees (see the module docstring)
QUOTA_SHARES = ("dominant", "borrowed")
#: a quota vector is met when ``tasks * demand <= quota * (1 + _RTOL)`` (drf's FIT_RTOL: float
#: round-off only)
_RTOL = 1e-12


def _matrix(
    value, name: str, shape: tuple[int, int] | None, *, allow_inf: bool, copy: bool = True
) -> np.ndarray:
    """A quota matrix, one row per user and one column per resource, >= 0 (``inf`` allowed for
    limits); ``shape`` None: any non-empty 2-D shape (a :class:`Quotas` is built before it meets an
    instance). ``copy=False``: the caller's array itself when it is already float64, in its own
    memory order (for a check that keeps nothing)."""
    arr = as_real_array(value, name, copy=copy)
    if (arr.shape != shape) if shape is not None else (arr.ndim != 2 or arr.size == 0):
        want = shape if shape is not None else "(users, resources)"
        raise InvalidInputError(
            f"{name} = {_short(value)}: expected shape {want} (one row per user, one column per "
            f"resource), got {arr.shape}"
        )
    ok = arr >= 0  # false for NaN too
    if not allow_inf:
        ok &= arr < np.inf
    if not ok.all():
        i, r = (int(k) for k in np.argwhere(~ok)[0])
        rule = ">= 0 (inf for none)" if allow_inf else "finite and >= 0"
        raise InvalidInputError(f"{name}[{i}, {r}] = {arr[i, r]}: must be {rule}")
    return arr


class ResolvedQuotas(NamedTuple):
    """A :class:`Quotas` checked against an instance, in the terms progressive filling uses.

    Parameters
    ----------
    guaranteed_tasks : numpy.ndarray
        Int64, shape (n_users,): whole tasks within each user's guarantee and limit.
    limit_tasks : numpy.ndarray
        Int64, shape (n_users,): most tasks within each user's limit.
    reserved : numpy.ndarray
        Float64, shape (n_users, n_resources): guarantee minus lending limit, held back for its
        user; (0, m) when nothing is held back.
    nominal : numpy.ndarray
        Float64, shape (n_users, n_resources) for ``share="borrowed"`` (the guarantees), else (0,
        m).
    lendable : numpy.ndarray
        Float64, shape (n_resources,) for ``share="borrowed"`` (capacity - Σ reserved), else (0,).
    """

    #: (n,) int64 — whole tasks within each user's guarantee and limit
    guaranteed_tasks: np.ndarray
    limit_tasks: np.ndarray  #: (n,) int64 — most tasks within each user's limit
    reserved: np.ndarray  #: (n, m) — guarantee minus lending limit, held back for its user
    nominal: np.ndarray  #: (n, m) for share="borrowed" (the guarantees), else (0, m)
    lendable: np.ndarray  #: (m,) for share="borrowed" (capacity - Σ reserved), else (0,)


def _tasks_within(bound, demands) -> np.ndarray:
    """``min_r bound[i, r] / demands[i, r]`` over the resources user i demands (divisible tasks;
    ``inf`` if none)."""
    pos = demands > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(pos, bound / np.where(pos, demands, 1.0), np.inf).min(axis=1)


def whole_tasks_within(bound: ArrayLike, demands: ArrayLike) -> npt.NDArray[np.int64]:
    """Most whole tasks ``t`` with ``t * demands[i] <= bound[i] * (1 + 1e-12)`` on every resource,
    per user.

    Parameters
    ----------
    bound : array_like
        Shape (n_users, n_resources), or broadcastable to ``demands``: the quota, >= 0 (``inf``:
        none).
    demands : array_like
        Shape (n_users, n_resources): per-task demands, >= 0.

    Returns
    -------
    numpy.ndarray
        Int64, shape (n_users,): the int64 maximum where nothing bounds it.
    """
    bound = np.asarray(bound, dtype=np.float64)
    demands = np.asarray(demands, dtype=np.float64)
    return _whole_tasks_within(np.broadcast_to(bound, demands.shape), demands, _RTOL)


@njit(cache=True)
def _whole_tasks_within(bound, demands, rtol):
    """:func:`whole_tasks_within`, one pass per user.

    The float quotient ``min_r bound / demand`` floored, then settled by the rule drf's fit check
    uses (the quotient may be off by one either way).

    Parameters
    ----------
    bound : float64[:, :]
        Quotas, shape (n_users, n_resources).
    demands : float64[:, :]
        Per-task demands, shape (n_users, n_resources).
    rtol : float
        Relative tolerance of the fit rule.
    """
    n, m = demands.shape
    big = np.iinfo(np.int64).max
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        ratio = np.inf
        for r in range(m):
            if demands[i, r] > 0:
                ratio = min(ratio, bound[i, r] / demands[i, r])
        if not ratio < 2.0**62:
            out[i] = big
            continue
        t = np.floor(ratio)
        up = True
        for r in range(m):
            up = up and (t + 1.0) * demands[i, r] <= bound[i, r] * (1.0 + rtol)
        if up:
            t += 1.0
        down = True
        for r in range(m):
            down = down and t * demands[i, r] <= bound[i, r] * (1.0 + rtol)
        if t > 0 and not down:
            t -= 1.0
        out[i] = np.int64(t)
    return out


@read_only_state
@dataclass(frozen=True, eq=False)
class Quotas:
    """Per-user guarantees, limits and lending limits as resource vectors, for ``drf(...,
    quotas=...)``.

    The constructors :meth:`yarn`, :meth:`mesos` and :meth:`kueue` spell each scheduler's settings
    in its own terms. The DRF paper's example (9 CPUs, 18 GB; A = <1, 4>, B = <3, 1>) gives 3 and 2
    tasks without quotas.

    Parameters
    ----------
    guarantee : array_like or None, default None
        Shape (n_users, n_resources): the guarantees G_i, finite and >= 0; None: none (zeros).
    limit : array_like or None, default None
        Shape (n_users, n_resources): the limits L_i, >= 0 (``inf``: none); None: no limit.
    lending_limit : array_like or None, default None
        Shape (n_users, n_resources): how much of each guarantee others may use while it is idle,
        finite, >= 0 and <= the guarantee; None: everything lendable (``lending_limit =
        guarantee``).
    share : {"dominant", "borrowed"}, default "dominant"
        The share progressive filling equalises beyond the guarantees (module docstring).
    names : tuple of str, default ("quotas.guarantee", "quotas.limit", "quotas.lending_limit")
        How the three are named in error messages (the scheduler's own terms when built by a
        constructor).

    Raises
    ------
    InvalidInputError
        On an unknown ``share``, a quota matrix that is not 2-D, non-empty and >= 0 (finite but
        for limits), or pandas matrices whose labels (users, resources) disagree with each other.

    Examples
    --------
    >>> from fairlib.multires import drf
    >>> drf(
    ...     [[1, 4], [3, 1]], [9, 18], quotas=Quotas.yarn(min_share=[[4, 16], [0, 0]])
    ... ).tasks.tolist()
    [4, 1]
    >>> drf(
    ...     [[1, 4], [3, 1]], [9, 18], quotas=Quotas.mesos(guarantee=[[0, 0], [9, 3]])
    ... ).tasks.tolist()
    [0, 3]
    """

    guarantee: object = None
    limit: object = None
    lending_limit: object = None
    share: str = "dominant"
    #: how the three are named in error messages (the scheduler's own terms when built by a
    #: constructor)
    names: tuple[str, str, str] = ("quotas.guarantee", "quotas.limit", "quotas.lending_limit")
    #: the pandas labels of the three matrices as given (users, resources), checked against the
    #: demands' when the quotas meet an instance
    labels: tuple[Labels, Labels, Labels] = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        check_choice(self.share, QUOTA_SHARES, "quotas.share")
        names = as_labels(self.names, "quotas.names", length=3)
        given = [
            (name, value)
            for name, value in zip(names, (self.guarantee, self.limit, self.lending_limit))
            if value is not None
        ]
        for name, value in given[1:]:  # the matrices label users and resources alike
            for axis in (0, 1):
                _check_aligned(value, name, axis, (given[0][0], given[0][1], axis))
        labels = tuple(
            Labels.of(value) for value in (self.guarantee, self.limit, self.lending_limit)
        )
        # refused when built, not first when a mechanism resolves them against an instance; kept
        # as read-only copies, so the caller's arrays changed afterwards change no quota
        checked = [
            None if value is None else _matrix(value, name, None, allow_inf=allow_inf)
            for value, name, allow_inf in zip(
                (self.guarantee, self.limit, self.lending_limit), names, (False, True, False)
            )
        ]
        _store_read_only(
            self,
            guarantee=checked[0],
            limit=checked[1],
            lending_limit=checked[2],
            names=names,
            labels=labels,
        )

    @classmethod
    def yarn(cls, min_share: ArrayLike | None = None, max_share: ArrayLike | None = None) -> Quotas:
        """Hadoop YARN's fair scheduler: ``minResources`` served first and lent while unused,
        ``maxResources``.

        DRF on the whole allocation beyond them.

        Parameters
        ----------
        min_share : array_like or None, default None
            Shape (n_users, n_resources): each queue's ``minResources``, an amount of each resource
            in the capacity's units (as YARN writes ``<4 vcores, 16384 mb>``; not a fraction of
            the pool), finite and >= 0; None: none.
        max_share : array_like or None, default None
            Shape (n_users, n_resources): each queue's ``maxResources``, amounts as ``min_share``
            (``inf``: none); None: no limit.

        Returns
        -------
        Quotas
            The quotas, with ``share="dominant"``.

        Raises
        ------
        InvalidInputError
            On an invalid matrix; when the quotas meet an instance (:meth:`resolve`), on a
            ``min_share`` above its ``max_share``, or ``min_share`` amounts of a resource that add
            up to more than its capacity (the pool cannot honour them all).
        """
        return cls(
            min_share, max_share, None, "dominant", ("min_share", "max_share", "lending_limit")
        )

    @classmethod
    def mesos(cls, guarantee: ArrayLike | None = None, limit: ArrayLike | None = None) -> Quotas:
        """Apache Mesos's quota: guarantees allocated first and held back while unused, limits never
        exceeded.

        The allocator's headroom holds the guarantees back; the DRF sorter runs on the whole
        allocation beyond them.

        Parameters
        ----------
        guarantee : array_like or None, default None
            Shape (n_users, n_resources): each role's quota guarantee (nothing of it lent), an
            amount of each resource in the capacity's units, finite and >= 0; None: none.
        limit : array_like or None, default None
            Shape (n_users, n_resources): each role's quota limit, amounts as ``guarantee``
            (``inf``: none); None: no limit.

        Returns
        -------
        Quotas
            The quotas, with ``share="dominant"``.

        Raises
        ------
        InvalidInputError
            On an invalid matrix; when the quotas meet an instance (:meth:`resolve`), on a
            guarantee above its limit, or guarantees of a resource that add up to more than its
            capacity.
        """
        lending = None if guarantee is None else np.zeros(as_array(guarantee, "guarantee").shape)
        return cls(guarantee, limit, lending, "dominant", ("guarantee", "limit", "lending_limit"))

    @classmethod
    def kueue(
        cls,
        nominal: ArrayLike,
        borrowing_limit: ArrayLike | None = None,
        lending_limit: ArrayLike | None = None,
    ) -> Quotas:
        """Kubernetes Kueue's ClusterQueues in one cohort with fair sharing.

        Beyond the nominal quota, the borrowed share decides.

        Parameters
        ----------
        nominal : array_like
            Shape (n_users, n_resources): each ClusterQueue's ``nominalQuota``, an amount of each
            resource in the capacity's units, finite and >= 0.
        borrowing_limit : array_like or None, default None
            Shape (n_users, n_resources): ``borrowingLimit`` (None or ``inf``: unlimited; limit =
            nominal + borrowing limit).
        lending_limit : array_like or None, default None
            Shape (n_users, n_resources): ``lendingLimit``; None: all of the nominal quota is
            lendable.

        Returns
        -------
        Quotas
            The quotas, with ``share="borrowed"``.

        Raises
        ------
        InvalidInputError
            On an invalid matrix; when the quotas meet an instance (:meth:`resolve`), on a lending
            limit above its nominal quota, or nominal quotas of a resource that add up to more than
            its capacity.
        """
        nominal_arr = _matrix(
            nominal, "nominal", as_array(nominal, "nominal").shape, allow_inf=False
        )
        limit = None
        if borrowing_limit is not None:
            for axis in (0, 1):
                _check_aligned(borrowing_limit, "borrowing_limit", axis, ("nominal", nominal, axis))
            limit = nominal_arr + _matrix(
                borrowing_limit, "borrowing_limit", nominal_arr.shape, allow_inf=True
            )
        return cls(
            nominal,  # as given: its labels are kept
            limit,
            lending_limit,
            "borrowed",
            ("nominal", "nominal + borrowing_limit", "lending_limit"),
        )

    def _check_labels(self, name: str, demands: object) -> None:
        """Refuse quota matrices whose pandas labels are not the demands' (index: users, columns:
        resources; same labels, same order): the quotas are read by position.

        Parameters
        ----------
        name : str
            The demands' name, for the message.
        demands : object
            The demands as the caller gave them: a pandas DataFrame, or the
            :class:`~fairlib._validate.Labels` a :class:`~.cluster.Cluster` kept; anything
            unlabelled is read by position.

        Raises
        ------
        InvalidInputError
            Naming the first quota matrix whose labels disagree with the demands'.
        """
        for kept, matrix in zip(self.labels, self.names):
            for axis in (0, 1):
                _check_aligned(kept, matrix, axis, (name, demands, axis))

    def resolve(self, demands: np.ndarray, capacity: np.ndarray) -> ResolvedQuotas:
        """Check the quotas against an instance and express them in tasks and reservations.

        Checks shapes, signs, ``lending_limit <= guarantee <= limit``, and guarantees within the
        capacity.

        Parameters
        ----------
        demands : array_like
            Shape (n_users, n_resources): per-task demands, finite and >= 0.
        capacity : array_like
            Shape (n_resources,): capacities, finite and >= 0.

        Returns
        -------
        ResolvedQuotas
            The quotas in tasks and reservations.

        Raises
        ------
        InvalidInputError
            On demands or capacities that are not finite and >= 0, a wrong shape, a guarantee above
            its limit, a lending limit above its guarantee, or guarantees that add up to more than
            the capacity.
        """
        demands = as_values(demands, "demands", ndim=2)
        n, m = demands.shape
        capacity = as_values(capacity, "capacity", ndim=1, shape=(m,))
        g_name, l_name, lend_name = self.names
        # read in place (nothing below keeps them: what is returned is computed from them)
        guarantee = (
            np.zeros((n, m))
            if self.guarantee is None
            else _matrix(self.guarantee, g_name, (n, m), allow_inf=False, copy=False)
        )
        limit = (
            np.full((n, m), np.inf)
            if self.limit is None
            else _matrix(self.limit, l_name, (n, m), allow_inf=True, copy=False)
        )
        lending = (
            guarantee
            if self.lending_limit is None
            else _matrix(self.lending_limit, lend_name, (n, m), allow_inf=False, copy=False)
        )
        over_limit, over_guarantee, reserving = _guarantee_summary(guarantee, limit, lending)
        for first, what in (
            (over_limit, f"{g_name} must be <= {l_name}"),
            (over_guarantee, f"{lend_name} must be <= {g_name}"),
        ):
            if first >= 0:
                i, r = divmod(first, m)
                raise InvalidInputError(
                    f"{g_name}[{i}, {r}] = {guarantee[i, r]:g}, {l_name}[{i}, {r}] = "
                    f"{limit[i, r]:g}, {lend_name}[{i}, {r}] = {lending[i, r]:g}: {what}"
                )
        # NumPy's own sum: it adds pairwise along a contiguous axis (one resource, or a column-major
        # matrix), and a total a hair over the capacity is refused
        total = guarantee.sum(axis=0)
        over = total > capacity * (1.0 + _RTOL)
        if over.any():
            r = int(np.argmax(over))
            raise InvalidInputError(
                f"{g_name}: the guarantees of resource {r} add up to {total[r]:g}, more than "
                f"its capacity {capacity[r]:g}; the pool cannot honour them all"
            )
        limit_tasks = whole_tasks_within(limit, demands)
        guaranteed = np.minimum(whole_tasks_within(guarantee, demands), limit_tasks)
        reserved = (
            guarantee - lending if reserving or self.share == "borrowed" else np.empty((0, m))
        )
        if self.share == "borrowed":
            nominal, lendable = guarantee.copy(), capacity - reserved.sum(axis=0)
        else:
            nominal, lendable = np.empty((0, m)), np.empty(0)
        return ResolvedQuotas(
            guaranteed, limit_tasks, reserved if reserving else np.empty((0, m)), nominal, lendable
        )


@njit(cache=True)
def _guarantee_summary(guarantee, limit, lending):
    """One pass over checked quota matrices: the first entry (row-major flat index; -1 if none)
    where a guarantee exceeds its limit, and where a lending limit exceeds its guarantee, and
    whether any guarantee exceeds its lending limit (something is held back). The NumPy expressions
    took four passes and three temporaries.

    Parameters
    ----------
    guarantee : float64[:, :]
        Guarantees, shape (n_users, n_resources).
    limit : float64[:, :]
        Limits, shape (n_users, n_resources).
    lending : float64[:, :]
        Lending limits, shape (n_users, n_resources).
    """
    n, m = guarantee.shape
    over_limit = over_guarantee = -1
    reserving = False
    for i in range(n):
        for r in range(m):
            g = guarantee[i, r]
            if over_limit < 0 and g > limit[i, r]:
                over_limit = i * m + r
            if over_guarantee < 0 and lending[i, r] > g:
                over_guarantee = i * m + r
            reserving |= g - lending[i, r] > 0.0
    return over_limit, over_guarantee, reserving


def divisible_bounds(
    quotas: Quotas, demands: np.ndarray, max_tasks: ArrayLike | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Divisible tasks per user between a checked :class:`Quotas`' guarantee and limit.

    ``lower_i = min(min_r G_ir / d_ir, upper_i)``, ``upper_i = min(min_r L_ir / d_ir, max_tasks_i)``
    over the resources the user demands (``inf`` where nothing bounds it). Call
    :meth:`Quotas.resolve` first: this reads the raw vectors.

    Parameters
    ----------
    quotas : Quotas
        Quotas already resolved against the instance.
    demands : numpy.ndarray
        Float64, shape (n_users, n_resources): per-task demands.
    max_tasks : array_like or None, default None
        Shape (n_users,): per-user caps (``inf``: none); None: no caps.

    Returns
    -------
    tuple of numpy.ndarray
        ``(lower, upper)``, each float64 of shape (n_users,).
    """
    n, m = demands.shape
    guarantee = (
        np.zeros((n, m)) if quotas.guarantee is None else np.asarray(quotas.guarantee, dtype=float)
    )
    limit = (
        np.full((n, m), np.inf) if quotas.limit is None else np.asarray(quotas.limit, dtype=float)
    )
    caps = np.full(n, np.inf) if max_tasks is None else np.asarray(max_tasks, dtype=float)
    upper = np.minimum(_tasks_within(limit, demands), caps)
    return np.minimum(_tasks_within(guarantee, demands), upper), upper
