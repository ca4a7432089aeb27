"""Heterogeneous clusters with placement constraints (Khamse-Ashari et al., TPDS 2018, §2).

K servers with divisible capacities ``capacity[server, resource]``; users with per-task demands
``demand[user, resource]``, weights φ and placement constraints ``eligible[user, server]``.
x[n, i] is the (real) number of user n's tasks on server i and x_n = Σ_i x[n, i] its total.

Derived quantities (reconstructions §5.1; the equations are reconstructions, [INF]):

- per-server dominant resource ρ[n, i] = argmax_r d[n, r] / c[i, r] (eq. 7);
- monopoly task count γ[n, i] = min_r c[i, r] / d[n, r] over the resources n demands (eq. 8): the
  tasks n could run alone on server i. A server lacking a resource n needs has γ = 0 and is treated
  as ineligible for n (recorded in :attr:`Cluster.lacking`);
- virtual dominant share (VDS) s[n, i] = x_n / γ[n, i] (eq. 9) — *all* of n's tasks, from any
  server, measured against server i — and the weighted VDS ŝ = s / φ_n.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike

from .._validate import (
    read_only_state,
    as_flag,
    InvalidInputError,
    Labels,
    _check_aligned,
    _labels,
    Seed,
    _short,
    as_array,
    as_capacities,
    as_count,
    as_demands,
    as_eligibility,
    as_instance,
    as_number,
    as_real_array,
    as_rng,
    as_task_caps,
    as_values,
    as_weights,
    result_type,
    as_tolerance,
    check_drawn,
    WEIGHT_RANGE,
    as_text,
)

__all__ = [
    "Cluster",
    "Allocation",
    "Pool",
    "pool_arrays",
    "pool_column",
    "ServerAllocation",
    "leontief_tasks",
    "monopoly_tasks",
    "random_cluster",
    "random_pool",
    "merge_identical_servers",
    "on_merged_servers",
    "keeps_servers",
    "per_server_alpha",
    "placement_capacity_rows",
]


#: monopoly task counts γ the mechanisms accept (tested accurate across it: results scale exactly
#: with units)
GAMMA_RANGE = (1e-30, 1e30)


class ServerConstraints(NamedTuple):
    """Per-task use of each server constraint and the constraints' capacities.

    Parameters
    ----------
    per_task : numpy.ndarray
        Float64, shape (n_users, n_servers, n_constraints): ``per_task[user, server, k]``.
    capacity : numpy.ndarray
        Float64, shape (n_servers, n_constraints): ``capacity[server, k]``.
    """

    per_task: np.ndarray
    capacity: np.ndarray


@read_only_state
@dataclass(frozen=True, eq=False)
class Cluster:
    """A validated heterogeneous cluster: servers' capacities, users' per-task demands, weights and
    placement.

    A user-server pair is *usable* when the user is eligible and the server has every resource the
    user demands (γ > 0). A user with no usable server is an error naming the user. Every array is
    stored read-only; the derived ``gamma[user, server]`` (monopoly task counts, 0 where unusable),
    ``dominant[user, server]`` (per-server dominant resource, -1 where unusable) and ``lacking[user,
    server]`` (eligible pairs dropped because the server lacks a demanded resource) are computed
    here.

    Parameters
    ----------
    capacity : array_like
        Shape (n_servers, n_resources): ``capacity[server, resource]`` >= 0, finite (a server may
        lack a resource, not every one).
    demand : array_like
        Shape (n_users, n_resources): per-task demand ``demand[user, resource]`` >= 0, finite, no
        all-zero row.
    weight : array_like or None, default None
        Shape (n_users,): weights φ > 0; None: all 1. Weights count up to a common factor: kept
        as given when the largest lies in [2⁻⁶⁴, 2⁶⁴], else scaled by a power of two
        (:func:`fairlib._validate.scale_weights`).
    eligible : array_like or None, default None
        Shape (n_users, n_servers), bool or 0/1: placement constraints; None: every pair.
    max_tasks : array_like or None, default None
        Shape (n_users,): the most tasks user n can use, >= 0 (``inf``: no cap; None: no caps), e.g.
        the tasks a job has: a mechanism never allocates a user more. Honoured by ``drf``, ``edrf``,
        ``asset_fairness``, ``ceei``, ``drfh`` (and its Best-Fit), ``tsf``, ``psdsf`` (its fixed
        point) and ``pfvds`` (its interior point: the variational equilibrium) and by the property
        checkers; the other mechanisms refuse a capped cluster (:meth:`refuse_caps`).

    Raises
    ------
    InvalidInputError
        On an invalid array, a user with no usable server, a monopoly task count γ outside
        [1e-30, 1e30], or pandas labels that disagree between arguments (the users of ``demand``,
        ``weight``, ``max_tasks`` and ``eligible``, the resources of ``capacity`` and ``demand``,
        the servers of ``capacity`` and ``eligible``).

    References
    ----------
    .. [1] J. Khamse-Ashari, I. Lambadaris, G. Kesidis, B. Urgaonkar, Y. Zhao, "An Efficient and
       Fair Multi-Resource Allocation Mechanism for Heterogeneous Servers", IEEE TPDS, 2018, §2,
       eqs. (7)–(9).

    Examples
    --------
    >>> c = Cluster([[12, 4, 75], [8, 16, 0]], [[1, 1, 5], [1, 2, 0]])
    >>> c.gamma.round(3).tolist()     # user 0 needs bandwidth: server 1 is not usable
    [[4.0, 0.0], [2.0, 8.0]]
    >>> c.lacking.tolist()
    [[False, True], [False, False]]
    """

    capacity: np.ndarray
    demand: np.ndarray
    weight: np.ndarray = None
    eligible: np.ndarray = None
    max_tasks: np.ndarray = None
    #: eligible pairs dropped because the server lacks a demanded resource (γ would be 0)
    lacking: np.ndarray = field(init=False, repr=False)
    gamma: np.ndarray = field(init=False, repr=False)
    dominant: np.ndarray = field(init=False, repr=False)
    #: the pandas labels given: users (the index of ``demand``, or else of ``weight``, ``max_tasks``
    #: or ``eligible``) and resources (the columns of ``demand``, or else of ``capacity``); None
    #: where none were given. A mechanism checks its other labelled arguments against them.
    labels: Labels = field(init=False, repr=False)

    def __post_init__(self):
        """Validate, derive usable pairs, γ and dominant resources, and freeze every array."""
        cap = as_capacities(
            self.capacity,
            "capacity",
            ndim=2,
            allow_zero=True,
            aligned_to=("demand", self.demand, 1),
        )
        dem = as_demands(self.demand, "demand", n_resources=cap.shape[1])
        n, k = dem.shape[0], cap.shape[0]
        users = ("demand", self.demand, 0)
        w = as_weights(self.weight, n, "weight", aligned_to=users)
        caps = as_task_caps(self.max_tasks, n, "max_tasks", aligned_to=users)
        declared = as_eligibility(
            self.eligible,
            n,
            k,
            "eligible",
            aligned_to=users,
            servers=("capacity", self.capacity, 0),
        )
        # labels that agree (checked above) name the users and resources: the first one given
        user_labels = next(
            (
                tuple(found)
                for found in (
                    _labels(v, 0) for v in (self.demand, self.weight, self.max_tasks, self.eligible)
                )
                if found is not None
            ),
            None,
        )
        resource_labels = _labels(self.demand, 1) or _labels(self.capacity, 1)
        object.__setattr__(
            self,
            "labels",
            Labels(user_labels, None if resource_labels is None else tuple(resource_labels)),
        )
        needs = dem > 0
        # server i has every resource user n needs  <=>  no (needed, missing) pair
        has_all = ~(needs[:, None, :] & (cap[None, :, :] <= 0)).any(axis=2)
        usable = declared & has_all
        nowhere = ~usable.any(axis=1)
        if nowhere.any():
            u = int(np.argmax(nowhere))
            missing = [
                int(r) for r in np.flatnonzero(needs[u]) if not (cap[declared[u]][:, r] > 0).any()
            ]
            raise InvalidInputError(
                f"demand[{u}] = {dem[u].tolist()}: user {u} has no usable server (its "
                f"eligible servers {np.flatnonzero(declared[u]).tolist()} lack resource(s) "
                f"{missing})"
            )
        with np.errstate(over="ignore", under="ignore"):
            gamma = np.where(usable, monopoly_tasks(cap, dem), 0.0)
        out = usable & ~((gamma >= GAMMA_RANGE[0]) & (gamma <= GAMMA_RANGE[1]))
        if out.any():
            u, i = map(int, np.argwhere(out)[0])
            raise InvalidInputError(
                f"capacity[{i}] / demand[{u}]: user {u} could run {gamma[u, i]:.3g} tasks alone on "
                f"server {i}, outside [{GAMMA_RANGE[0]:g}, {GAMMA_RANGE[1]:g}] where the solvers "
                "keep their accuracy; rescale the units of that resource"
            )
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.where(
                cap[None, :, :] > 0,
                dem[:, None, :] / cap[None, :, :],
                np.where(needs[:, None, :], np.inf, 0.0),
            )
        dominant = np.where(usable, share.argmax(axis=2), -1)
        for name, value in (
            ("capacity", cap),
            ("demand", dem),
            ("weight", w),
            ("eligible", usable),
            ("max_tasks", caps),
            ("lacking", declared & ~has_all),
            ("gamma", gamma),
            ("dominant", dominant),
        ):
            value.setflags(write=False)
            object.__setattr__(self, name, value)

    @property
    def capped(self) -> bool:
        """Whether some user has a finite cap on its tasks (``max_tasks``)."""
        return bool(np.isfinite(self.max_tasks).any())

    def refuse_caps(self, mechanism: str) -> None:
        """Raise naming the first capped user when ``mechanism`` does not honour per-user caps.

        Parameters
        ----------
        mechanism : str
            The mechanism's name, for the message.

        Raises
        ------
        InvalidInputError
            When some user has a finite ``max_tasks``, or ``mechanism`` is not a str.
        """
        if not isinstance(mechanism, str):
            raise InvalidInputError(
                f"mechanism = {_short(mechanism)}: the mechanism's name for the message must be a "
                "str"
            )
        if self.capped:
            n = int(np.argmax(np.isfinite(self.max_tasks)))
            raise InvalidInputError(
                f"max_tasks[{n}] = {self.max_tasks[n]}: {mechanism} does not honour per-user "
                "caps; drf, edrf, "
                "asset_fairness, ceei, drfh, tsf, psdsf and pfvds do (or build the cluster "
                "without max_tasks)"
            )

    @property
    def n_users(self) -> int:
        """Number of users (rows of ``demand``)."""
        return self.demand.shape[0]

    @property
    def n_servers(self) -> int:
        """Number of servers (rows of ``capacity``)."""
        return self.capacity.shape[0]

    @property
    def n_resources(self) -> int:
        """Number of resources (columns of ``capacity`` and ``demand``)."""
        return self.capacity.shape[1]

    def unit_scaled(self) -> tuple[Cluster, npt.NDArray[np.float64]]:
        """The same cluster in units a solver computes with, and the factor of each resource.

        A resource whose largest capacity lies outside :data:`~fairlib._validate.WEIGHT_RANGE`
        (2⁻⁶⁴ to 2⁶⁴) is measured in a unit a power of two apart, which brings that capacity
        into [1, 2): capacities and demands are multiplied by ``factor[r]``, exactly, so the tasks
        are the same (every mechanism reads a resource in the ratio of demand to capacity) and a
        price per unit of resource r is the scaled one times ``factor[r]``. Where the monopoly
        task counts are bounded (:data:`GAMMA_RANGE`), the demands then stay within 1e±30 of 1,
        so products of demands stay inside the float range.

        Returns
        -------
        (Cluster, numpy.ndarray)
            The cluster (``self`` when every factor is 1) and ``factor``, shape (n_resources,).

        Examples
        --------
        >>> c, factor = Cluster.single_pool([1e300, 2.0], [[1e280, 1.0]]).unit_scaled()
        >>> c.capacity.round(4).tolist(), factor.tolist() == [2.0**-996, 1.0]
        ([[1.4932, 2.0]], True)
        """
        top = self.capacity.max(axis=0)
        outside = (top > 0) & ~((top >= WEIGHT_RANGE[0]) & (top <= WEIGHT_RANGE[1]))
        factor = np.ones(self.n_resources)
        if not outside.any():
            return self, factor
        factor[outside] = np.ldexp(1.0, 1 - np.frexp(top[outside])[1])
        scaled = Cluster(
            self.capacity * factor,
            self.demand * factor,
            weight=self.weight,
            eligible=self.eligible,
            max_tasks=self.max_tasks,
        )
        return scaled, factor

    @classmethod
    def single_pool(
        cls,
        capacity: ArrayLike,
        demand: ArrayLike,
        weight: ArrayLike | None = None,
        max_tasks: ArrayLike | None = None,
    ) -> Cluster:
        """One pool of resources (``capacity[resource]``) as a one-server cluster.

        The instance of DRF, EDRF, PDRF, asset fairness and CEEI, and of every checker that takes a
        cluster.

        Parameters
        ----------
        capacity : array_like
            Shape (n_resources,): the pool's capacities, finite and > 0.
        demand : array_like
            Shape (n_users, n_resources): per-task demands, >= 0, no all-zero row.
        weight : array_like or None, default None
            Shape (n_users,): weights > 0; None: all 1.
        max_tasks : array_like or None, default None
            Shape (n_users,): per-user caps on tasks, >= 0 (``inf``: none); None: no caps.

        Returns
        -------
        Cluster
            The one-server cluster.

        Raises
        ------
        InvalidInputError
            On an invalid argument, or a pandas ``capacity`` whose labels are not the columns of
            ``demand`` (same labels, same order).

        Examples
        --------
        >>> Cluster.single_pool([9, 18], [[1, 4], [3, 1]]).capacity.tolist()
        [[9.0, 18.0]]
        """
        cap = as_capacities(capacity, "capacity", aligned_to=("demand", demand, 1))
        resources = _labels(capacity, 0)
        if resources is not None:  # the one server keeps the capacity's resource labels
            import pandas as pd

            return cls(
                pd.DataFrame(cap[None, :], columns=resources),
                demand,
                weight=weight,
                max_tasks=max_tasks,
            )
        return cls(cap[None, :], demand, weight=weight, max_tasks=max_tasks)

    @property
    def is_single_pool(self) -> bool:
        """Whether the cluster is one server (a single pool of resources)."""
        return self.capacity.shape[0] == 1

    @property
    def pooled_shares(self) -> np.ndarray:
        """Per-task share of the pooled capacities, d[n, r] / Σ_i c[i, r] (0 for a resource no
        server has)."""
        pooled = self.pooled_capacity
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(pooled > 0, self.demand / pooled, 0.0)

    @property
    def pooled_dominant_share(self) -> np.ndarray:
        """Per-task dominant share against the pooled capacities, max_r d[n, r] / Σ_i c[i, r]."""
        return self.pooled_shares.max(axis=1)

    @property
    def pooled_capacity(self) -> np.ndarray:
        """Σ_i c[i, r]: the whole cluster as one server (DRFH's reference)."""
        return self.capacity.sum(axis=0)

    def _tasks(self, tasks, name: str = "tasks", *, sign: str | None = ">= 0") -> np.ndarray:
        """``tasks[user, server]`` as a float64 array of this cluster's shape, finite (and
        ``sign``), or an error naming the argument, the entry and its value."""
        return as_values(tasks, name, ndim=2, shape=(self.n_users, self.n_servers), sign=sign)

    def vds(self, totals: ArrayLike) -> npt.NDArray[np.float64]:
        """Weighted VDS ŝ[n, i] = x_n / (φ_n γ[n, i]) for usable pairs, NaN elsewhere.

        Parameters
        ----------
        totals : array_like
            Shape (n_users,): each user's total tasks x_n, finite and >= 0.

        Returns
        -------
        numpy.ndarray
            Float64, shape (n_users, n_servers).

        Raises
        ------
        InvalidInputError
            On a wrong shape or a negative or non-finite entry.

        References
        ----------
        .. [1] J. Khamse-Ashari, I. Lambadaris, G. Kesidis, B. Urgaonkar, Y. Zhao, "An Efficient and
           Fair Multi-Resource Allocation Mechanism for Heterogeneous Servers", IEEE TPDS, 2018,
           §2, eq. (9).
        """
        x = as_values(totals, "totals", ndim=1, shape=(self.n_users,))  # one per user
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.eligible, x[:, None] / (self.weight[:, None] * self.gamma), np.nan)

    def bottlenecks(self) -> npt.NDArray[np.int_]:
        """Per server, a resource dominant for every usable user there (Definition 2), or -1 if
        none.

        Returns
        -------
        numpy.ndarray
            Int, shape (n_servers,): the bottleneck resource, -1 also for a server no user can use.
        """
        out = np.full(self.n_servers, -1)
        for i in range(self.n_servers):
            users = self.eligible[:, i]
            if not users.any():
                continue
            with np.errstate(divide="ignore", invalid="ignore"):
                share = (
                    self.demand[users] / self.capacity[i]
                )  # usable users need only c > 0 entries
            share = np.where(np.isnan(share), 0.0, share)
            top = share.max(axis=1, keepdims=True)
            common = np.flatnonzero((share >= top * (1 - 1e-12)).all(axis=0))
            if common.size:
                out[i] = common[0]
        return out

    def server_constraints(self, time_shared: bool = False) -> ServerConstraints:
        """Per-task use of each server constraint, and the constraints' capacities.

        Divisible servers: the resources (the demand on every server). Time-shared servers (Problem
        2, eq. 17): one constraint per server, Σ_n x[n, i] / γ[n, i] <= 1.

        Parameters
        ----------
        time_shared : bool, default False
            Whether the servers are time-shared (Problem 2) rather than divisible.

        Returns
        -------
        ServerConstraints
            ``(per_task, capacity)``: shapes (n_users, n_servers, k) and (n_servers, k), k =
            n_resources (divisible) or 1 (time-shared).
        """
        time_shared = as_flag(time_shared, "time_shared")
        n, k, m = self.n_users, self.n_servers, self.n_resources
        if time_shared:
            d3 = np.where(self.eligible, 1.0 / np.where(self.eligible, self.gamma, 1.0), 0.0)[
                :, :, None
            ]
            return ServerConstraints(np.ascontiguousarray(d3), np.ones((k, 1)))
        return ServerConstraints(
            np.ascontiguousarray(np.broadcast_to(self.demand[:, None, :], (n, k, m))),
            np.ascontiguousarray(self.capacity),
        )

    def load(self, tasks: ArrayLike, time_shared: bool = False) -> npt.NDArray[np.float64]:
        """Fraction of every server constraint that ``tasks[user, server]`` uses.

        Parameters
        ----------
        tasks : array_like
            Shape (n_users, n_servers): tasks per (user, server), finite and >= 0.
        time_shared : bool, default False
            False: ``load[server, resource]`` over the resources (0 for a resource the server
            lacks); True: Problem 2's one constraint per server, Σ_n x[n, i] / γ[n, i].

        Returns
        -------
        numpy.ndarray
            Float64, shape (n_servers, n_resources), or (n_servers, 1) when ``time_shared``.

        Raises
        ------
        InvalidInputError
            On a wrong shape or a negative or non-finite entry.
        """
        time_shared = as_flag(time_shared, "time_shared")
        x = self._tasks(tasks)
        if time_shared:
            return (x / np.where(self.eligible, self.gamma, np.inf)).sum(axis=0)[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.capacity > 0, (x.T @ self.demand) / self.capacity, 0.0)

    def feasible(self, tasks: ArrayLike, tol: float = 1e-9) -> bool:
        """Whether ``tasks[user, server]`` respects eligibility, non-negativity and every capacity.

        Parameters
        ----------
        tasks : array_like
            Shape (n_users, n_servers), finite: a negative entry is an answer (False), not an error.
        tol : float, default 1e-9
            Absolute and relative tolerance: 0 (exact) or from 1e-15 to 0.1.

        Returns
        -------
        bool
            True when the allocation is feasible within ``tol``.

        Raises
        ------
        InvalidInputError
            On a wrong shape, a non-finite entry or an invalid ``tol``.
        """
        x = self._tasks(tasks, sign=None)
        tol = as_tolerance(tol, "tol", zero=True)
        used = np.einsum("ni,nr->ir", x, self.demand)
        return bool(
            (x >= -tol).all()
            and (x[~self.eligible] <= tol).all()
            and (used <= self.capacity * (1 + tol) + tol).all()
        )


def _frozen(value):
    """A read-only copy of a diagnostics value: arrays not writeable, dicts as mappings, lists as
    tuples."""
    if isinstance(value, np.ndarray):
        value = value.copy()
        value.setflags(write=False)
        return value
    if isinstance(value, Mapping):
        return MappingProxyType({k: _frozen(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return value


#: relative overuse of a capacity tolerated in an allocation handed to the checkers (solver
#: round-off)
FEASIBILITY_RTOL = 1e-7


def checked_allocation(
    cluster: Cluster, tasks: ArrayLike, name: str = "tasks", *, within_capacity: bool = True
) -> np.ndarray:
    """``tasks[user, server]`` as float64 after checking it is an allocation of ``cluster``.

    The right shape, finite, >= 0, zero on pairs the user cannot use, and within every capacity (up
    to :data:`FEASIBILITY_RTOL`); otherwise an error naming the entry or the resource. ``cluster``
    is a Cluster: the public checkers that call this refuse anything else first, by name."""
    x = as_real_array(tasks, name)
    if x.shape != (cluster.n_users, cluster.n_servers):
        raise InvalidInputError(
            f"{name} = {_short(tasks)}: expected shape ({cluster.n_users}, {cluster.n_servers}) "
            f"(users x servers), got {x.shape}"
        )
    bad = ~np.isfinite(x) | (x < 0) | ((x != 0) & ~cluster.eligible)
    if bad.any():
        n, i = (int(v) for v in np.argwhere(bad)[0])
        raise InvalidInputError(
            f"{name}[{n}, {i}] = {x[n, i]}: tasks must be finite, >= 0 and 0 where user {n} "
            f"cannot use server {i}"
        )
    if not within_capacity:
        return x
    used = np.einsum("ni,nr->ir", x, cluster.demand)
    over = used > cluster.capacity * (1 + FEASIBILITY_RTOL) + 1e-12
    if over.any():
        i, r = (int(v) for v in np.argwhere(over)[0])
        raise InvalidInputError(
            f"{name}: server {i} uses {used[i, r]:g} of resource {r}, capacity "
            f"{cluster.capacity[i, r]:g}"
        )
    beyond = x.sum(axis=1) > cluster.max_tasks * (1 + FEASIBILITY_RTOL) + 1e-12
    if beyond.any():
        n = int(np.argmax(beyond))
        raise InvalidInputError(
            f"{name}[{n}]: user {n} is given {x[n].sum():g} tasks, above its cap max_tasks[{n}] = "
            f"{cluster.max_tasks[n]:g}"
        )
    return x


@result_type
@dataclass(frozen=True, eq=False)
class Allocation:
    """The result of every static mechanism: tasks per (user, server) on a :class:`Cluster`.

    Parameters
    ----------
    cluster : Cluster
        The instance solved (a single pool is a one-server cluster, :meth:`Cluster.single_pool`).
    tasks : array_like
        Shape (n_users, n_servers): ``tasks[user, server]``, real task counts (divisible mechanisms)
        or integers (``"integral"`` ones); stored read-only.
    method : str
        Which mechanism and solver produced it (e.g. ``"drf"``, ``"psdsf"``,
        ``"pfvds_interior_point"``).
    converged : bool, default True
        Whether the solver met its tolerance (always True for the finite, exact algorithms). A
        converged allocation is within every capacity and cap (up to :data:`FEASIBILITY_RTOL`);
        an unconverged one may overuse them (its ``message`` says why).
    iterations : int, default 0
        Solver iterations (interior-point steps, sweeps, Newton steps; 0 for closed forms and heap
        filling).
    residual : float, default nan
        The solver's own optimality measure where it has one (the Nash residual of PF-VDS, the last
        change of a fixed point), NaN otherwise.
    message : str, default ""
        Anything a user should know about this run (a solver hand-over, a fallback); empty when
        nothing.
    extras : Mapping[str, object], default empty
        Method-specific values, stored immutable (arrays read-only), documented by each mechanism:
        e.g. CEEI's ``prices``, DRF's ``order``, PF-VDS's ``alpha`` and ``stages``.

    Raises
    ------
    InvalidInputError
        When ``cluster`` is not a :class:`Cluster`; ``tasks`` is not an allocation of it
        (:func:`checked_allocation`: the (users x servers) shape, finite, >= 0, zero where a user
        cannot run, and when ``converged`` within every capacity and cap up to
        :data:`FEASIBILITY_RTOL`); ``method`` is
        not a non-blank str; ``converged`` not a bool; ``iterations`` not an integer >= 0;
        ``residual`` negative or not a number; ``message`` not a str; or ``extras`` not a mapping
        with str keys.
    """

    cluster: Cluster
    tasks: np.ndarray
    method: str
    converged: bool = True
    iterations: int = 0
    residual: float = float("nan")
    message: str = ""
    extras: Mapping = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self):
        """Checks every field (the tasks against the cluster: shape, finite, >= 0, eligible and,
        when converged, within capacity and caps; the typed fields) and stores read-only
        copies."""
        as_instance(self.cluster, Cluster, "cluster")
        tasks = np.array(self.tasks)
        converged = as_flag(self.converged, "converged")
        # one vectorised pass: the shape, finite, >= 0, eligible, and (a certified result) within
        # capacity and caps; an uncertified one (a penalty heuristic's iterate) may overuse them
        checked_allocation(self.cluster, tasks, within_capacity=converged)
        as_text(self.method, "method", what="it names the mechanism")
        iterations = as_count(self.iterations, "iterations", minimum=0)
        residual = self.residual
        # NaN where the solver has no measure of its own; never negative
        if (
            isinstance(residual, (bool, np.bool_))
            or not isinstance(residual, (int, float, np.integer, np.floating))
            or residual < 0
        ):
            raise InvalidInputError(
                f"residual = {_short(residual)}: must be a number >= 0, or NaN when the solver has "
                "no measure of its own"
            )
        residual = float(residual)
        if not isinstance(self.message, str):
            raise InvalidInputError(
                f"message = {_short(self.message)}: must be a str, got "
                f"{type(self.message).__name__}"
            )
        as_instance(self.extras, Mapping, "extras")
        bad = next((k for k in self.extras if not isinstance(k, str)), None)
        if bad is not None:
            raise InvalidInputError(
                f"extras: key {_short(bad)} must be a str naming the value, got "
                f"{type(bad).__name__}"
            )
        tasks.setflags(write=False)
        object.__setattr__(self, "tasks", tasks)
        object.__setattr__(self, "converged", converged)
        object.__setattr__(self, "iterations", iterations)
        object.__setattr__(self, "residual", residual)
        object.__setattr__(self, "extras", _frozen(dict(self.extras)))

    @classmethod
    def from_diagnostics(
        cls, cluster: Cluster, tasks: ArrayLike, method: str, diagnostics: Mapping[str, Any]
    ) -> Allocation:
        """Build from a solver's diagnostics dict.

        ``converged``, ``iterations`` and ``message`` become the typed fields, ``residual`` is its
        ``nash_residual`` (else ``variational_gap``, else ``last_change``), and the rest goes to
        ``extras``.

        Parameters
        ----------
        cluster : Cluster
            The instance solved.
        tasks : array_like
            Shape (n_users, n_servers): tasks per (user, server).
        method : str
            The mechanism and solver.
        diagnostics : Mapping[str, object]
            The solver's diagnostics.

        Returns
        -------
        Allocation
            The result.
        """
        extras = dict(diagnostics)
        converged = bool(extras.pop("converged", True))
        iterations = extras.pop(
            "iterations", extras.get("sweeps", extras.get("newton_iterations", 0))
        )
        message = str(extras.pop("message", ""))
        residual = extras.get(
            "nash_residual", extras.get("variational_gap", extras.get("last_change", float("nan")))
        )
        return cls(
            cluster,
            tasks,
            method,
            converged=converged,
            iterations=int(iterations),
            residual=float(residual),
            message=message,
            extras=extras,
        )

    @property
    def diagnostics(self) -> Mapping:
        """Read-only view of ``extras`` with ``converged`` and ``iterations`` (the solvers' former
        dict)."""
        return MappingProxyType(
            {**self.extras, "converged": self.converged, "iterations": self.iterations}
        )

    @property
    def mechanism(self) -> str:
        """Alias of :attr:`method`."""
        return self.method

    @property
    def totals(self) -> np.ndarray:
        """x_n = Σ_i tasks[n, i]."""
        return self.tasks.sum(axis=1)

    @property
    def used(self) -> np.ndarray:
        """Resources used, ``used[server, resource]``."""
        return np.einsum("ni,nr->ir", self.tasks, self.cluster.demand)

    @property
    def utilisation(self) -> np.ndarray:
        """Per-resource utilisation of the whole cluster (used / pooled capacity; NaN for absent
        resources)."""
        pooled = self.cluster.pooled_capacity
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(pooled > 0, self.used.sum(axis=0) / pooled, np.nan)

    @property
    def vds(self) -> np.ndarray:
        """Weighted VDS ŝ[n, i] of this allocation (NaN where unusable)."""
        return self.cluster.vds(self.totals)

    @property
    def dominant_shares(self) -> np.ndarray:
        """Each user's share of the pooled cluster in its dominant resource, max_r x_n d[n, r] /
        Σ_i c[i, r].

        DRF's and DRFH's measure; resources the cluster lacks are left out."""
        return self.totals * self.cluster.pooled_dominant_share

    @property
    def dominant_resource(self) -> np.ndarray:
        """Each user's dominant resource against the pooled capacities (argmax_r d[n, r] / Σ_i c[i,
        r])."""
        return self.cluster.pooled_shares.argmax(axis=1)


#: the former name of :class:`Allocation` (one result type for every static mechanism)
ServerAllocation = Allocation


def leontief_tasks(bundle: ArrayLike, demand: ArrayLike) -> npt.NDArray[np.float64]:
    """How many tasks a user with per-task ``demand`` runs with ``bundle`` (Leontief utility).

    The minimum over the resources it demands of bundle[r] / demand[r]; resources with zero demand
    are ignored.

    Parameters
    ----------
    bundle : array_like
        Shape (..., n_resources): amounts of each resource, finite and >= 0.
    demand : array_like
        Shape (n_resources,) or broadcastable to ``bundle``: per-task demand, finite, >= 0, some
        entry > 0.

    Returns
    -------
    numpy.ndarray
        Float64, the broadcast shape of ``bundle`` and ``demand`` without its last axis (a 0-d array
        for one bundle).

    Raises
    ------
    InvalidInputError
        On a negative or non-finite entry, shapes that do not match or broadcast, a demand of all
        zeros, or a task count beyond the float range.

    Examples
    --------
    >>> leontief_tasks([6.0, 4.0, 9.0], [2.0, 2.0, 0.0]).item()
    2.0
    """
    b, d = as_real_array(bundle, "bundle"), as_real_array(demand, "demand")
    for name, arr in (("bundle", b), ("demand", d)):
        bad = ~np.isfinite(arr) | (arr < 0)
        if bad.any():
            idx = tuple(int(i) for i in np.argwhere(bad)[0])
            where = f"[{', '.join(map(str, idx))}]" if idx else ""
            raise InvalidInputError(f"{name}{where} = {arr[idx]}: must be finite and >= 0")
    if b.ndim == 0 or d.ndim == 0 or b.shape[-1] != d.shape[-1]:
        raise InvalidInputError(
            f"bundle = {_short(bundle)}, demand = {_short(demand)}: expected one entry per "
            f"resource in both (shapes {b.shape} and {d.shape})"
        )
    try:
        shape = np.broadcast_shapes(b.shape, d.shape)
    except ValueError:
        raise InvalidInputError(
            f"bundle, demand: shapes {b.shape} and {d.shape} do not broadcast"
        ) from None
    needs = np.broadcast_to(d > 0, shape)
    if not needs.any(axis=-1).all():
        raise InvalidInputError("demand: a user must demand some resource")
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        tasks = np.where(needs, b / np.where(d > 0, d, 1.0), np.inf).min(axis=-1)
    over = ~np.isfinite(tasks)  # some demand is positive: only an overflowing ratio is inf
    if over.any():
        at = tuple(int(i) for i in np.argwhere(over)[0]) if tasks.ndim else ()
        where = f"[{', '.join(map(str, at))}]" if at else ""
        raise InvalidInputError(
            f"bundle{where} / demand: the task count overflows the float range (above "
            f"{np.finfo(np.float64).max:.3g}); give bundle and demand in one unit"
        )
    return tasks


def monopoly_tasks(capacity: ArrayLike, demand: ArrayLike) -> npt.NDArray[np.float64]:
    """γ[n, i] = min over the resources n demands of c[i, r] / d[n, r], on every server, placement
    ignored.

    Parameters
    ----------
    capacity : array_like
        Shape (n_servers, n_resources): ``capacity[server, resource]``, finite and >= 0.
    demand : array_like
        Shape (n_users, n_resources): ``demand[user, resource]``, finite and >= 0.

    Returns
    -------
    numpy.ndarray
        Float64, shape (n_users, n_servers): 0 where server i lacks a resource n demands, inf for a
        user demanding nothing.

    Raises
    ------
    InvalidInputError
        On a wrong shape, a negative or non-finite entry, a ratio capacity / demand that
        overflows or underflows float64 (it would read as a user demanding nothing, or a server
        lacking the resource), or pandas resource labels (columns) of ``demand`` that are not
        those of ``capacity``.

    References
    ----------
    .. [1] J. Khamse-Ashari, I. Lambadaris, G. Kesidis, B. Urgaonkar, Y. Zhao, "An Efficient and
       Fair Multi-Resource Allocation Mechanism for Heterogeneous Servers", IEEE TPDS, 2018, §2,
       eq. (8).

    Examples
    --------
    >>> monopoly_tasks([[4.0, 4.0]], [[1.0, 2.0], [2.0, 1.0]]).tolist()
    [[2.0], [2.0]]
    """
    _check_aligned(demand, "demand", 1, ("capacity", capacity, 1))
    capacity = as_values(capacity, "capacity", ndim=2)
    demand = as_values(demand, "demand", ndim=2, shape=(-1, capacity.shape[1]))
    gamma = np.full((demand.shape[0], capacity.shape[0]), np.inf)
    for r in range(
        demand.shape[1]
    ):  # one resource at a time: no (users x servers x resources) temporary
        need = demand[:, r] > 0
        with np.errstate(over="ignore", under="ignore"):
            ratio = capacity[None, :, r] / demand[need, r, None]
        # inf and 0 say "demands nothing" and "lacks the resource": a ratio past float64's range
        # must not say either
        lost = np.isinf(ratio) | ((ratio == 0) & (capacity[None, :, r] > 0))
        if lost.any():
            k, i = map(int, np.argwhere(lost)[0])
            n = int(np.flatnonzero(need)[k])
            raise InvalidInputError(
                f"capacity[{i}, {r}] / demand[{n}, {r}] = {float(capacity[i, r])!r} / "
                f"{float(demand[n, r])!r} "
                "is beyond float64's range: rescale the units of that resource"
            )
        gamma[need] = np.minimum(gamma[need], ratio)
    return gamma


class PlacementRows(NamedTuple):
    """The eligible pairs (``np.nonzero(eligible)`` order) and the capacity rows of a placement LP
    over them.

    Parameters
    ----------
    users : numpy.ndarray
        Int, shape (n_pairs,): each pair's user.
    servers : numpy.ndarray
        Int, shape (n_pairs,): each pair's server.
    a_cap : scipy.sparse.coo_matrix
        Shape (n_servers · n_resources, n_columns): the capacity rows.
    """

    users: np.ndarray
    servers: np.ndarray
    a_cap: object


def placement_capacity_rows(cluster: Cluster, n_columns: int | None = None) -> PlacementRows:
    """Capacity rows of an LP with one variable per eligible (user, server) pair.

    Row ``i · R + r`` reads Σ_{pairs on server i} d[user, r] x_pair <= c[i, r] (its right-hand
    side is ``cluster.capacity.ravel()``), zero demands left out.

    Parameters
    ----------
    cluster : Cluster
        The cluster.
    n_columns : int or None, default None
        Columns of the matrix; None: one per pair (more leaves room for further variables after the
        pairs).

    Returns
    -------
    PlacementRows
        ``(users, servers, a_cap)`` with ``a_cap`` a sparse COO matrix.

    Raises
    ------
    InvalidInputError
        When ``cluster`` is not a Cluster.
    """
    as_instance(cluster, Cluster, "cluster")
    from scipy.sparse import coo_matrix

    users, servers = np.nonzero(cluster.eligible)
    p, m = len(users), cluster.n_resources
    rows = servers[:, None] * m + np.arange(m)[None, :]
    vals = cluster.demand[users]
    keep = vals > 0
    a_cap = coo_matrix(
        (vals[keep], (rows[keep], np.repeat(np.arange(p), m).reshape(p, m)[keep])),
        shape=(cluster.n_servers * m, p if n_columns is None else n_columns),
    )
    return PlacementRows(users, servers, a_cap)


def random_cluster(
    rng: Seed | None,
    n_users: int,
    n_servers: int,
    n_resources: int = 3,
    *,
    eligible_fraction: float = 0.7,
    server_types: int | None = None,
    demand_range: tuple[float, float] = (0.1, 1.0),
    weights: bool = False,
) -> Cluster:
    """A random heterogeneous cluster with placement constraints (for experiments and benchmarks).

    Server capacities are drawn per *type* uniformly in [0.5, 2] per resource (times 20), so servers
    are heterogeneous in their resource mix; demands are uniform in ``demand_range`` per resource;
    every (user, server) pair is eligible with probability ``eligible_fraction`` (each user keeps at
    least one server).

    Parameters
    ----------
    rng : int, numpy.random.Generator or None
        Seed or generator; None: fresh OS entropy, a different draw on every call (pass an integer
        to repeat it).
    n_users : int
        Number of users, >= 1.
    n_servers : int
        Number of servers, >= 1.
    n_resources : int, default 3
        Number of resources, >= 1.
    eligible_fraction : float, default 0.7
        Probability that a pair is eligible, in (0, 1].
    server_types : int or None, default None
        Number of server types drawn, from 1 to ``n_servers``; None: min(n_servers, 4).
    demand_range : tuple of float, default (0.1, 1.0)
        ``(low, high)``, 0 < low <= high: the range of per-task demands.
    weights : bool, default False
        False: every weight 1; True: weights uniform in {1, 2, 4}.

    Returns
    -------
    Cluster
        The cluster.

    Raises
    ------
    InvalidInputError
        On an invalid argument, or an array of more than :data:`~fairlib._validate.MAX_DRAWN`
        (10**8) numbers to draw (``n_users`` x ``n_servers``, ``n_users`` x ``n_resources`` or
        ``n_servers`` x ``n_resources``).
    """
    weights = as_flag(weights, "weights")
    rng = as_rng(rng)
    n_users, n_servers = as_count(n_users, "n_users"), as_count(n_servers, "n_servers")
    n_resources = as_count(n_resources, "n_resources")
    # n_users x n_resources first: random_pool's counts, whose one server makes it the largest
    check_drawn(("n_users", n_users), ("n_resources", n_resources))
    check_drawn(("n_users", n_users), ("n_servers", n_servers))
    check_drawn(("n_servers", n_servers), ("n_resources", n_resources))
    eligible_fraction = as_number(eligible_fraction, "eligible_fraction", maximum=1.0)
    types = (
        min(n_servers, 4)
        if server_types is None
        else as_count(server_types, "server_types", maximum=n_servers)  # each type has a server
    )
    low, high = as_values(demand_range, "demand_range", ndim=1, shape=(2,), sign="> 0")
    if low > high:
        raise InvalidInputError(
            f"demand_range = {_short(demand_range)}: expected (low, high) with low <= high"
        )
    kinds = rng.uniform(0.5, 2.0, size=(types, n_resources))
    capacity = kinds[rng.integers(types, size=n_servers)] * 20.0
    demand = rng.uniform(low, high, size=(n_users, n_resources))
    eligible = rng.random((n_users, n_servers)) < eligible_fraction
    eligible[np.arange(n_users), rng.integers(n_servers, size=n_users)] = True
    weight = rng.choice([1.0, 2.0, 4.0], size=n_users) if weights else None
    return Cluster(capacity, demand, weight=weight, eligible=eligible)


def random_pool(
    rng: Seed | None, n_users: int, n_resources: int = 3, *, weights: bool = False
) -> Cluster:
    """A random single pool (a one-server cluster) drawn as :func:`random_cluster` draws one server.

    Parameters
    ----------
    rng : int, numpy.random.Generator or None
        Seed or generator; None: fresh OS entropy, a different draw on every call (pass an integer
        to repeat it).
    n_users : int
        Number of users, >= 1.
    n_resources : int, default 3
        Number of resources, >= 1.
    weights : bool, default False
        False: every weight 1; True: weights uniform in {1, 2, 4}.

    Returns
    -------
    Cluster
        The one-server cluster.

    Raises
    ------
    InvalidInputError
        On an invalid argument, or ``n_users`` x ``n_resources`` above
        :data:`~fairlib._validate.MAX_DRAWN` (10**8).
    """
    # every argument is random_cluster's to check (same names), before it draws anything: its
    # size checks name n_users x n_resources first, which with one server is the largest
    return random_cluster(rng, n_users, 1, n_resources, eligible_fraction=1.0, weights=weights)


#: the smallest α the PF-VDS solvers accept (below it, ŝ^-α is 1 to about 1e-2 relative: a linear
#: program whose equilibria the smooth solvers do not find reliably)
MIN_ALPHA = 0.01
#: the largest finite α the PF-VDS solvers accept: the papers sweep α up to 256 and reach the
#: limit as α = inf (PS-DSF, Theorem 2), which the solvers compute exactly; the smooth solvers are
#: tested up to α = 300 and lose accuracy as α grows (p^(-1/α) flattens toward 1), so a finite α
#: past 1e4 asks for the limit by a worse route
MAX_ALPHA = 1e4


def per_server_alpha(cluster: Cluster, alpha: float | ArrayLike) -> npt.NDArray[np.float64]:
    """α as one value per server (a scalar is broadcast), validated: from 0.01 to 1e4, or
    ``np.inf`` (PS-DSF).

    Parameters
    ----------
    cluster : Cluster
        The cluster.
    alpha : float or array_like
        One α or one per server (shape (n_servers,)), from :data:`MIN_ALPHA` to :data:`MAX_ALPHA`,
        or ``inf``.

    Returns
    -------
    numpy.ndarray
        Float64, shape (n_servers,).

    Raises
    ------
    InvalidInputError
        On a non-number, a wrong shape, or an α that is NaN, <= 0, below :data:`MIN_ALPHA` or
        finite and above :data:`MAX_ALPHA`.
    """
    as_instance(cluster, Cluster, "cluster")
    if isinstance(alpha, (bool, np.bool_, str, bytes)) or (
        isinstance(alpha, (list, tuple))
        and any(isinstance(a, (bool, np.bool_, str, bytes)) for a in alpha)
    ):
        raise InvalidInputError(f"alpha = {alpha!r}: must be a number or one number per server")
    arr = as_array(alpha, "alpha")
    if arr.dtype.kind not in "iuf":
        raise InvalidInputError(
            f"alpha = {alpha!r}: must be a real number or one real number per server"
        )
    arr = arr.astype(np.float64)
    arr = np.full(cluster.n_servers, float(arr)) if arr.ndim == 0 else arr
    if arr.shape != (cluster.n_servers,):
        raise InvalidInputError(
            f"alpha: expected a scalar or one value per server ({cluster.n_servers}), "
            f"got shape {arr.shape}"
        )
    bad = ~(arr > 0) | np.isnan(arr)
    if bad.any():
        i = int(np.argmax(bad))
        raise InvalidInputError(f"alpha[{i}] = {arr[i]}: α must be > 0 (np.inf for PS-DSF)")
    small = arr < MIN_ALPHA
    if small.any():
        i = int(np.argmax(small))
        raise InvalidInputError(
            f"alpha[{i}] = {arr[i]}: below {MIN_ALPHA} the α-fair utilities are nearly linear "
            "and the solvers' equilibria are not reliable; use α >= "
            f"{MIN_ALPHA}"
        )
    large = np.isfinite(arr) & (arr > MAX_ALPHA)
    if large.any():
        i = int(np.argmax(large))
        raise InvalidInputError(
            f"alpha[{i}] = {arr[i]}: a finite α is at most {MAX_ALPHA:g}; use np.inf for the limit "
            "(PS-DSF)"
        )
    return arr


class MergedServers(NamedTuple):
    """The merged cluster, each server's merged server, and how many servers each merged one holds.

    Parameters
    ----------
    cluster : Cluster
        The merged cluster.
    group : numpy.ndarray
        Int, shape (n_servers,): ``group[server]``, its merged server.
    counts : numpy.ndarray
        Int, shape (n_merged,): ``counts[group]``, the servers merged into each.
    """

    cluster: Cluster
    group: np.ndarray
    counts: np.ndarray


def merge_identical_servers(cluster: Cluster) -> MergedServers:
    """Merge servers with equal capacities and equal eligible users into one server of k times the
    capacity.

    Exact for every mechanism here: the merged server's γ is k·γ, which scales its VDS (and, for
    α-fair utilities, its whole objective) by a constant, so its best response — and its
    per-server max-min — is the original servers' combined; splitting its column evenly gives each
    original server the same KKT conditions with the same prices (an equilibrium of the original
    game, PS-DSF's per-server max-min). DRFH and TSF only see the set of feasible totals, which
    merging leaves unchanged. Trace fleets are made of a few server types, so this shrinks 250
    servers to 9 (Bitbrains) and 120 to 4 (Google).

    Parameters
    ----------
    cluster : Cluster
        The cluster.

    Returns
    -------
    MergedServers
        ``(merged cluster, group[server], counts[group])``.

    Raises
    ------
    InvalidInputError
        When ``cluster`` is not a Cluster.
    """
    as_instance(cluster, Cluster, "cluster")
    # one byte string per server: its capacities and its eligible users packed eight to a byte (a
    # float row per user made the key 8·users bytes wide, and sorting 12,000 such rows of a
    # 4,000-job cell took seconds)
    capacity = np.ascontiguousarray(cluster.capacity, dtype=np.float64).view(np.uint8)
    users = np.packbits(np.ascontiguousarray(cluster.eligible.T), axis=1)
    key = np.ascontiguousarray(np.concatenate([capacity, users], axis=1))
    _, first, group, counts = np.unique(
        key.view(np.dtype((np.void, key.shape[1]))).ravel(),
        return_index=True,
        return_inverse=True,
        return_counts=True,
    )
    # the merged servers in the numeric order of (capacities, eligible users), whatever the bytes'
    # order, so that an order-dependent solver (PS-DSF's Gauss-Seidel sweep) sees them as it always
    # has
    rows = np.concatenate(
        [cluster.capacity[first], cluster.eligible.T[first].astype(np.float64)], axis=1
    )
    order = np.lexsort(rows.T[::-1])
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    first, counts, group = first[order], counts[order], rank[group.ravel()]
    merged = Cluster(
        cluster.capacity[first] * counts[:, None],
        cluster.demand,
        weight=cluster.weight,
        max_tasks=cluster.max_tasks,
        eligible=cluster.eligible[:, first],
    )
    return MergedServers(merged, group.ravel(), counts)


def keeps_servers(mechanism: Callable[..., Any]) -> bool:
    """Whether ``mechanism`` must see the servers as given (merging identical ones would change its
    allocation).

    Its function says so by setting ``keeps_servers = True``, because its allocation depends on
    individual servers.

    Parameters
    ----------
    mechanism : callable
        A function, a registered :class:`~fairlib.mechanisms.Mechanism` or a ``functools.partial``
        of either.

    Returns
    -------
    bool
        True when the function (through any partials) sets ``keeps_servers``.

    Raises
    ------
    InvalidInputError
        When ``mechanism`` is not callable and has no callable ``function``.
    """
    if not callable(mechanism) and not callable(getattr(mechanism, "function", None)):
        raise InvalidInputError(
            f"mechanism = {_short(mechanism)}: expected a mechanism (a function, a registered "
            f"Mechanism or a partial of either), got {type(mechanism).__name__}"
        )
    while not getattr(mechanism, "keeps_servers", False):
        mechanism = getattr(mechanism, "func", None) or getattr(
            mechanism, "function", None
        )  # partial, Mechanism
        if mechanism is None:
            return False
    return True


def _mechanism_name(mechanism: Callable) -> str:
    """How an error names a mechanism: its registered name, its function's name, or its repr."""
    for target in (mechanism, getattr(mechanism, "func", None)):  # a partial: its function's
        for attribute in ("name", "__name__"):
            value = getattr(target, attribute, None)
            if isinstance(value, str):
                return value
    return _short(mechanism)


def _checked_run(mechanism: Callable[[Cluster], Allocation], cluster: Cluster) -> Allocation:
    """``mechanism(cluster)``, refused naming the mechanism unless it keeps the mechanism contract:
    an :class:`Allocation` of ``cluster``'s users and servers. Every caller of a user-supplied
    mechanism runs it through here (:func:`on_merged_servers`, :mod:`fairlib.sim`,
    :mod:`fairlib.properties`, the experiments), so a function returning something else is named
    where it is called, not met later as a missing attribute."""
    res = mechanism(cluster)
    if not isinstance(res, Allocation):
        raise InvalidInputError(
            f"mechanism {_mechanism_name(mechanism)!r} returned {_short(res)} "
            f"({type(res).__name__}), not an Allocation (the mechanism contract: "
            "mechanism(cluster) -> Allocation)"
        )
    if res.tasks.shape != (cluster.n_users, cluster.n_servers):
        raise InvalidInputError(
            f"mechanism {_mechanism_name(mechanism)!r} returned an Allocation of "
            f"{res.tasks.shape[0]} users x {res.tasks.shape[1]} servers for a cluster of "
            f"{cluster.n_users} x {cluster.n_servers}"
        )
    return res


def on_merged_servers(mechanism: Callable[[Cluster], Allocation], cluster: Cluster) -> Allocation:
    """Run ``mechanism`` on :func:`merge_identical_servers` and split each merged column evenly over
    its servers.

    Extras gain ``merged_servers`` (how many distinct servers were solved). A mechanism that
    :func:`keeps_servers` (a packing heuristic such as Best-Fit DRFH) runs on ``cluster`` as given.

    Parameters
    ----------
    mechanism : callable
        A mechanism ``Cluster -> Allocation``.
    cluster : Cluster
        The cluster.

    Returns
    -------
    Allocation
        The allocation on ``cluster``'s servers.

    Raises
    ------
    InvalidInputError
        When ``cluster`` is not a Cluster, ``mechanism`` is not callable, or it returns something
        other than an Allocation of the cluster it is given, naming it.
    """
    as_instance(cluster, Cluster, "cluster")
    if not callable(mechanism):
        raise InvalidInputError(
            f"mechanism = {_short(mechanism)}: expected a callable Cluster -> ServerAllocation, "
            f"got {type(mechanism).__name__}"
        )
    if keeps_servers(mechanism):
        return _checked_run(mechanism, cluster)
    merged, group, counts = merge_identical_servers(cluster)
    res = _checked_run(mechanism, merged)
    tasks = res.tasks[:, group] / counts[group][None, :]
    return replace(
        res, cluster=cluster, tasks=tasks, extras={**res.extras, "merged_servers": merged.n_servers}
    )


class Pool(NamedTuple):
    """A single pool's arrays.

    Parameters
    ----------
    capacity : numpy.ndarray
        Float64, shape (n_resources,).
    demand : numpy.ndarray
        Float64, shape (n_users, n_resources).
    weight : numpy.ndarray
        Float64, shape (n_users,).
    """

    capacity: np.ndarray
    demand: np.ndarray
    weight: np.ndarray


def pool_arrays(
    cluster: Cluster, mechanism: str, *, weighted: bool = True, caps: bool = False
) -> Pool:
    """The arrays of a single-pool cluster, or an error naming the mechanism when ``cluster`` is not
    one.

    Parameters
    ----------
    cluster : Cluster
        A one-server cluster.
    mechanism : str
        The calling mechanism's name, for the messages.
    weighted : bool, default True
        Whether the mechanism honours weights (False: weights other than 1 are an error).
    caps : bool, default False
        Whether the mechanism honours ``max_tasks`` (False: a capped cluster is an error).

    Returns
    -------
    Pool
        ``(capacity[resource], demand[user, resource], weight[user])``.

    Raises
    ------
    InvalidInputError
        When ``cluster`` is not a Cluster or has several servers, or has weights or caps the
        mechanism does not honour.
    """
    if not isinstance(cluster, Cluster):
        raise InvalidInputError(
            f"cluster: {mechanism} expects a Cluster (Cluster.single_pool(capacity, demand)), "
            f"got {type(cluster).__name__}"
        )
    if not cluster.is_single_pool:
        raise InvalidInputError(
            f"cluster: {mechanism} allocates a single pool, this cluster has {cluster.n_servers} "
            "servers; use Cluster.single_pool or a multi-server mechanism (drfh, tsf, psdsf, pfvds)"
        )
    if not weighted and (cluster.weight != 1).any():
        n = int(np.argmax(cluster.weight != 1))
        raise InvalidInputError(
            f"weight[{n}] = {cluster.weight[n]}: {mechanism} has no weights (all must be 1)"
        )
    if not caps:
        cluster.refuse_caps(mechanism)
    return Pool(cluster.capacity[0], cluster.demand, cluster.weight)


def pool_column(x: ArrayLike) -> np.ndarray:
    """A single pool's per-user tasks as the ``tasks[user, server]`` column of a one-server
    allocation.

    Parameters
    ----------
    x : array_like
        Shape (n_users,): tasks per user.

    Returns
    -------
    numpy.ndarray
        Shape (n_users, 1), of ``x``'s dtype.
    """
    return np.asarray(x)[:, None]
