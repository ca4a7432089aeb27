"""Fairness and efficiency properties of allocations on heterogeneous servers (Khamse-Ashari et al.
§2–3).

Each checker returns the largest *relative* violation (<= 0 means the property holds) so that
experiments can report violation rates with a tolerance:

- **sharing incentive** (generalised to placement constraints, Theorem 3 / eqs. 41, 73, [INF]): user
  n gets at least its weighted slice of every server it can use, x_n >= φ_n / Σφ · Σ_i γ[n,
  i];
- **envy-freeness** (weighted, [INF] for placement): no user n could run more tasks, per unit of
  weight, with user m's bundle — only the parts of it on servers n may use;
- **Pareto optimality** (LP test): no feasible allocation gives every user at least as many tasks
  and someone more;
- **strategy-proofness** (a search, not a proof): no user runs more of its true tasks by reporting
  another demand vector, over :func:`misreports` (each demanded resource scaled, one at a time and
  at random);
- **bottleneck fairness** (Definition 2 / Corollary 1): when every server has a bottleneck resource,
  per-server weighted max-min on it, i.e. Definition 4 (:func:`.psdsf.psdsf_violation`); NaN when
  some server has no bottleneck (the property says nothing there).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike
from scipy.sparse import coo_matrix, vstack

from ..._scaled_lp import scaled_linprog
from ..._validate import (
    InvalidInputError,
    Seed,
    _short,
    as_count,
    as_instance,
    as_rng,
    as_values,
)
from ..cluster import (
    FEASIBILITY_RTOL,  # noqa: F401 - the tolerance its docstrings name, kept beside Allocation
    Cluster,
    checked_allocation,
    leontief_tasks,
    placement_capacity_rows,
)
from ..psdsf import psdsf_violation

__all__ = [
    "sharing_incentive_violation",
    "envy_violation",
    "pareto_violation",
    "bottleneck_fairness_violation",
    "property_violations",
    "misreports",
]


def sharing_incentive_violation(cluster: Cluster, tasks: ArrayLike) -> float:
    """The largest relative shortfall of any user below its sharing-incentive bound.

    max_n (bound_n - x_n) / bound_n with bound_n = φ_n / Σφ · Σ_i γ[n, i] (at most the user's
    cap: a capped user wants no more; a user capped at 0 is left out).

    Parameters
    ----------
    cluster : Cluster
        The cluster.
    tasks : array_like
        Shape (n_users, n_servers): an allocation of it (finite, >= 0, zero on unusable pairs,
        within every capacity up to :data:`FEASIBILITY_RTOL`).

    Returns
    -------
    float
        <= 0 when the property holds.

    Raises
    ------
    InvalidInputError
        When ``cluster`` is not a Cluster or ``tasks`` is not an allocation of it.

    References
    ----------
    .. [1] J. Khamse-Ashari, I. Lambadaris, G. Kesidis, B. Urgaonkar, Y. Zhao, "An Efficient and
       Fair Multi-Resource Allocation Mechanism for Heterogeneous Servers", IEEE TPDS, 2018, Theorem
       3, eqs. (41), (73).
    """
    as_instance(cluster, Cluster, "cluster")
    totals = checked_allocation(cluster, tasks).sum(axis=1)
    bound = np.minimum(
        cluster.weight / cluster.weight.sum() * cluster.gamma.sum(axis=1), cluster.max_tasks
    )
    wants = bound > 0
    return float(((bound[wants] - totals[wants]) / bound[wants]).max(initial=-np.inf))


def envy_violation(cluster: Cluster, tasks: ArrayLike) -> float:
    """The largest relative gain any user gets from another's bundle: max over (n, m) of (φ_n/φ_m
    · y_nm - x_n) / x_n.

    From m's bundle on server i (x[m, i] d_m of each resource) user n runs y = x[m, i] min_{r: d[n,
    r] > 0} d[m, r] / d[n, r] tasks, counted only where n is usable, and at most its cap
    (``max_tasks``: tasks beyond it are worth nothing to n).

    Parameters
    ----------
    cluster : Cluster
        The cluster.
    tasks : array_like
        Shape (n_users, n_servers): an allocation of it (finite, >= 0, zero on unusable pairs,
        within every capacity up to :data:`FEASIBILITY_RTOL`).

    Returns
    -------
    float
        <= 0 when the allocation is (weighted) envy-free; 0 with one user (no one to envy).

    Raises
    ------
    InvalidInputError
        When ``cluster`` is not a Cluster or ``tasks`` is not an allocation of it.

    References
    ----------
    .. [1] J. Khamse-Ashari, I. Lambadaris, G. Kesidis, B. Urgaonkar, Y. Zhao, "An Efficient and
       Fair Multi-Resource Allocation Mechanism for Heterogeneous Servers", IEEE TPDS, 2018, §2.
    """
    as_instance(cluster, Cluster, "cluster")
    x = checked_allocation(cluster, tasks)
    if cluster.n_users == 1:
        return 0.0  # nobody to envy: envy-free, not the -inf of a max over no pair
    d = cluster.demand
    ratio = leontief_tasks(
        d[None, :, :], d[:, None, :]
    )  # [n, m]: n's tasks from one task's bundle of m
    from_bundle = (ratio[:, :, None] * x[None, :, :] * cluster.eligible[:, None, :]).sum(
        axis=2
    )  # [n, m]
    scaled = np.minimum(
        from_bundle * cluster.weight[:, None] / cluster.weight[None, :], cluster.max_tasks[:, None]
    )
    np.fill_diagonal(scaled, -np.inf)
    totals = x.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = (scaled - totals[:, None]) / np.maximum(totals[:, None], 1e-300)
    return float(rel.max())


def pareto_violation(cluster: Cluster, tasks: ArrayLike) -> float:
    """How much more every user together could get: (max Σ x'_n s.t. x_n <= x'_n <= max_tasks_n,
    feasible) / Σ x_n - 1.

    Solved by HiGHS.

    Parameters
    ----------
    cluster : Cluster
        The cluster.
    tasks : array_like
        Shape (n_users, n_servers): an allocation of it (finite, >= 0, zero on unusable pairs,
        within every capacity up to :data:`FEASIBILITY_RTOL`).

    Returns
    -------
    float
        <= 0 (within solver tolerance) when Pareto optimal; 0 when nobody holds anything and nothing
        can be added, ``inf`` when something can.

    Raises
    ------
    InvalidInputError
        When ``cluster`` is not a Cluster or ``tasks`` is not an allocation of it.
    """
    as_instance(cluster, Cluster, "cluster")
    x = checked_allocation(cluster, tasks)
    totals = x.sum(axis=1)
    users, servers, a_cap = placement_capacity_rows(cluster)
    p, n = len(users), cluster.n_users
    a_tot = coo_matrix((-np.ones(p), (users, np.arange(p))), shape=(n, p))
    rows, bounds = [a_cap, a_tot], [cluster.capacity.ravel(), -totals * (1 - 1e-9)]
    capped = np.flatnonzero(np.isfinite(cluster.max_tasks))
    if capped.size:  # x'_n <= cap_n (the rows of the capped users only)
        keep = np.isin(users, capped)
        rows.append(
            coo_matrix(
                (
                    np.ones(int(keep.sum())),
                    (np.searchsorted(capped, users[keep]), np.flatnonzero(keep)),
                ),
                shape=(capped.size, p),
            )
        )
        bounds.append(np.maximum(cluster.max_tasks[capped], totals[capped]))
    res = scaled_linprog(
        -np.ones(p),
        unit=cluster.gamma[users, servers],
        A_ub=vstack(rows).tocsr(),
        b_ub=np.concatenate(bounds),
        bounds=(0, None),
    )
    if res.status != 0:
        return float("nan")
    if (
        totals.sum() == 0.0
    ):  # nobody holds anything (e.g. every user capped at 0): PO iff nothing can be added
        return 0.0 if -res.fun <= 1e-12 else float("inf")
    return float(-res.fun / totals.sum() - 1.0)


def bottleneck_fairness_violation(cluster: Cluster, tasks: ArrayLike) -> float:
    """Definition 4's VDS gap when every server has a bottleneck resource; NaN otherwise.

    NaN also on a cluster with per-user caps (Definition 4 has none; not defined here).

    Parameters
    ----------
    cluster : Cluster
        The cluster.
    tasks : array_like
        Shape (n_users, n_servers): an allocation of it (finite, >= 0, zero on unusable pairs,
        within every capacity up to :data:`FEASIBILITY_RTOL`).

    Returns
    -------
    float
        <= 0 when the property holds; NaN where it says nothing.

    Raises
    ------
    InvalidInputError
        When ``cluster`` is not a Cluster or ``tasks`` is not an allocation of it.

    References
    ----------
    .. [1] J. Khamse-Ashari, I. Lambadaris, G. Kesidis, B. Urgaonkar, Y. Zhao, "An Efficient and
       Fair Multi-Resource Allocation Mechanism for Heterogeneous Servers", IEEE TPDS, 2018,
       Definitions 2 and 4, Corollary 1.
    """
    as_instance(cluster, Cluster, "cluster")
    checked_allocation(cluster, tasks)
    if cluster.capped:
        return float("nan")
    served = cluster.eligible.any(axis=0)  # a server nobody can use constrains nothing
    if (cluster.bottlenecks()[served] < 0).any():
        return float("nan")
    v = psdsf_violation(cluster, tasks, tol=1e-7)
    return float(v["gap"]) if v["free_pairs"] == 0 else float("inf")


def property_violations(cluster: Cluster, tasks: ArrayLike) -> dict[str, float]:
    """All four property checks: sharing incentive, envy-freeness, Pareto optimality and bottleneck
    fairness.

    Parameters
    ----------
    cluster : Cluster
        The cluster.
    tasks : array_like
        Shape (n_users, n_servers): an allocation of it (finite, >= 0, zero on unusable pairs,
        within every capacity up to :data:`FEASIBILITY_RTOL`).

    Returns
    -------
    dict of str to float
        ``{"SI", "EF", "PO", "BF"}`` -> violation (<= 0, or within a tolerance, means the property
        holds; NaN: it says nothing here).

    Raises
    ------
    InvalidInputError
        When ``cluster`` is not a Cluster or ``tasks`` is not an allocation of it.
    """
    as_instance(cluster, Cluster, "cluster")
    tasks = checked_allocation(cluster, tasks)
    return {
        "SI": sharing_incentive_violation(cluster, tasks),
        "EF": envy_violation(cluster, tasks),
        "PO": pareto_violation(cluster, tasks),
        "BF": bottleneck_fairness_violation(cluster, tasks),
    }


def misreports(demand: ArrayLike, rng: Seed | None, n_random: int = 8) -> npt.NDArray[np.float64]:
    """Candidate misreports of one user's per-task ``demand``.

    Each demanded resource scaled by 1/2, 2 and 4 alone, then ``n_random`` vectors with every
    demanded resource scaled by a log-uniform factor in [1/2, 4]. The support (which resources it
    demands) is kept, so the user keeps the same usable servers.

    Parameters
    ----------
    demand : array_like
        Shape (n_resources,): the true per-task demand, finite, >= 0, some entry > 0.
    rng : int, numpy.random.Generator or None
        Seed of the random misreports; None: fresh OS entropy, a different draw on every call (pass
        an integer to repeat it).
    n_random : int, default 8
        Number of random misreports, in [0, 10**6].

    Returns
    -------
    numpy.ndarray
        Float64, shape (3 · n_demanded + n_random, n_resources): one misreport per row.

    Raises
    ------
    InvalidInputError
        On an invalid demand, seed or ``n_random``.
    """
    d = as_values(demand, "demand", ndim=1)
    if not (d > 0).any():
        raise InvalidInputError(
            f"demand = {_short(demand)}: a per-task demand needs a resource > 0"
        )
    rng, n_random = as_rng(rng), as_count(n_random, "n_random", minimum=0, maximum=10**6)
    out = []
    for r in np.flatnonzero(d > 0):
        for f in (0.5, 2.0, 4.0):
            v = d.copy()
            v[r] *= f
            out.append(v)
    for _ in range(int(n_random)):
        out.append(d * np.exp(rng.uniform(np.log(0.5), np.log(4.0), d.shape)))
    return np.array(out)
