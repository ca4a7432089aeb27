"""Experiment drivers for the khamseashari2018 notebook (heterogeneous servers, placement
constraints).

Everything with seeds runs on :func:`fairlib.sweep.sweep`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace

import numpy as np
import numpy.typing as npt
import pandas as pd
from scipy.optimize import minimize

from ..._validate import (
    as_table,
    InvalidInputError,
    _short,
    as_array,
    as_count,
    as_finite,
    as_flag,
    as_instance,
    as_number,
    as_rng,
    check_drawn,
    as_tolerance,
    as_values,
    check_choice,
    as_sequence,
)
from ...multires.cluster import (
    MAX_ALPHA,
    MIN_ALPHA,
    Allocation,
    Cluster,
    _checked_run,
    random_cluster,
    random_pool,
)
from ...multires.pfvds import nash_residual, pfvds, proportional_fair_objective, shared_stages
from ...multires.pfvds.conditions import least_merit, random_feasible_start, variational_gap
from ...multires.psdsf import psdsf, psdsf_violation
from ...multires.checks.server_properties import property_violations
from ..ledger import Measurement
from ...sweep import sweep

__all__ = [
    "fig1_instance",
    "fig1_checks",
    "random_bottleneck_cluster",
    "property_table",
    "alpha_sweep",
    "proportional_fair_slsqp",
    "theorem_checks",
    "equilibrium_conditions",
    "definition4_route",
    "NEVER_VIOLATED",
    "fig1_findings",
    "property_rates",
    "property_findings",
    "alpha_means",
    "approach_per_instance",
    "theorem_findings",
    "solver_rates",
    "solver_findings",
    "with_random_caps",
    "capped_equilibrium_rates",
    "capped_solver_findings",
    "route_findings",
    "condition_findings",
    "relative_gap",
    "convergence_findings",
    "one_server_reductions",
    "fds_kkt_residual",
    "one_server_fds",
    "FIG1_CHECKS",
    "MAX_INSTANCES",
    "MAX_USERS",
    "MAX_SERVERS",
    "MAX_RESOURCES",
    "MAX_STARTS",
]


#: the most random instances one experiment draws: the paper's largest table has 1,000
#: (PROPERTY_INSTANCES), and a count a hundred times that is a typo that would run for days
MAX_INSTANCES = 100_000
#: the largest random cluster an experiment draws: users, servers and resources (the paper's
#: clusters have tens; :func:`random_bottleneck_cluster` takes the same bounds)
MAX_USERS, MAX_SERVERS, MAX_RESOURCES = 1_000_000, 1_000, 1_000
#: the most random starts of the best responses per (instance, α) in
#: :func:`equilibrium_conditions`
MAX_STARTS = 1_000


def _sizes(n_users: int, n_servers: int, n_resources: int) -> tuple[int, int, int]:
    """The random clusters' sizes, each an integer from 1 to its maximum."""
    return (
        as_count(n_users, "n_users", maximum=MAX_USERS),
        as_count(n_servers, "n_servers", maximum=MAX_SERVERS),
        as_count(n_resources, "n_resources", maximum=MAX_RESOURCES),
    )


def _alphas(alphas: Iterable[float], *, infinite: bool = False) -> list[float]:
    """``alphas`` as a list of floats, at least one, each from :data:`MIN_ALPHA` to
    :data:`MAX_ALPHA` (the PF-VDS solvers' range), or ``inf`` (PS-DSF) where ``infinite``."""
    values = list(as_sequence(alphas, "alphas", what="expected an iterable of α"))
    # inf stands for PS-DSF where the caller allows it: its entries are checked as MAX_ALPHA
    limit = [
        MAX_ALPHA if infinite and isinstance(a, (float, np.floating)) and a == np.inf else a
        for a in values
    ]
    arr = as_values(limit, "alphas", ndim=1, sign="> 0")
    if arr.size == 0:
        raise InvalidInputError("alphas = []: need at least one α")
    out = ~((arr >= MIN_ALPHA) & (arr <= MAX_ALPHA))
    if out.any():
        i = int(np.argmax(out))
        raise InvalidInputError(
            f"alphas[{i}] = {values[i]}: α is from {MIN_ALPHA} to {MAX_ALPHA:g}"
            + (" or inf (PS-DSF)" if infinite else "")
        )
    return [float(a) for a in values]


def _both_servers(frame: pd.DataFrame, name: str) -> None:
    """Refuse a solver table without its divisible or its time-shared rows."""
    kinds = set(frame.time_shared.tolist())
    if not {False, True} <= kinds:
        raise InvalidInputError(
            f"{name}: needs divisible and time-shared rows (time_shared False and True), got "
            f"{sorted(kinds, key=str)}"
        )


def fig1_instance() -> Cluster:
    """A *hypothetical* instance for the paper's Fig. 1 (the demand vectors were lost,
    reconstructions §5.2 [NR]).

    Servers [12 cores, 4 GB, 75 Mb/s] and [8 cores, 16 GB, 0 Mb/s]; users 1–2 need bandwidth
    (server 1 only), users 3–4 need none (both servers); equal weights. Demands chosen to meet
    every constraint that survives (checked by :func:`fig1_checks`).

    Returns
    -------
    Cluster
        Two servers, three resources (the second server has no bandwidth), four users.
    """
    capacity = [[12.0, 4.0, 75.0], [8.0, 16.0, 0.0]]
    demand = [[1.0, 1.0, 5.0], [0.5, 0.5, 2.0], [1.0, 3.0, 0.0], [2.0, 5.0, 0.0]]
    return Cluster(np.array(capacity), np.array(demand))


#: the constraints of the Fig. 1 example that :func:`fig1_checks` checks
FIG1_CHECKS = (
    "users_1_2_need_bandwidth",
    "users_1_2_server_1_only",
    "users_3_4_both_servers",
    "ram_dominant_on_server_1",
    "ram_dominant_on_server_2_for_users_3_4",
    "bandwidth_globally_dominant_users_1_2",
    "ram_globally_dominant_users_3_4",
    "ram_bottleneck_every_server",
)


def fig1_checks(cluster: Cluster) -> dict[str, bool]:
    """The surviving constraints of the Fig. 1 example, each True or False.

    Parameters
    ----------
    cluster : Cluster
        :func:`fig1_instance`.

    Returns
    -------
    dict of str to bool
        Constraint → whether it holds.
    """
    as_instance(cluster, Cluster, "cluster")
    if (cluster.n_users, cluster.n_servers, cluster.n_resources) != (4, 2, 3):
        raise InvalidInputError(
            f"cluster: {cluster.n_users} users, {cluster.n_servers} servers, "
            f"{cluster.n_resources} resources; "
            "Fig. 1's instance has 4, 2 and 3 (fig1_instance())"
        )
    d, c = cluster.demand, cluster.capacity
    pooled = cluster.pooled_capacity
    share1, share2 = d / c[0], np.where(c[1] > 0, d / np.where(c[1] > 0, c[1], 1.0), 0.0)
    pooled_share = d / pooled
    return {
        "users_1_2_need_bandwidth": bool((d[:2, 2] > 0).all() and (d[2:, 2] == 0).all()),
        "users_1_2_server_1_only": cluster.eligible[:2].tolist() == [[True, False]] * 2,
        "users_3_4_both_servers": bool(cluster.eligible[2:].all()),
        "ram_dominant_on_server_1": bool((share1.argmax(axis=1) == 1).all()),
        "ram_dominant_on_server_2_for_users_3_4": bool((share2[2:].argmax(axis=1) == 1).all()),
        "bandwidth_globally_dominant_users_1_2": bool((pooled_share[:2].argmax(axis=1) == 2).all()),
        "ram_globally_dominant_users_3_4": bool((pooled_share[2:].argmax(axis=1) == 1).all()),
        "ram_bottleneck_every_server": cluster.bottlenecks().tolist() == [1, 1],
    }


def random_bottleneck_cluster(
    rng: int | np.random.Generator | np.random.SeedSequence | None,
    n_users: int,
    n_servers: int,
    n_resources: int = 3,
    *,
    eligible_fraction: float = 0.7,
    weights: bool = False,
) -> Cluster:
    """A random cluster where resource 0 is every usable user's dominant resource on every server
    (Definition 2 holds everywhere), built like the Fig. 1 example: the last resource ("bandwidth")
    exists only on the first half of the servers and about 40% of the users need it, in amounts that
    make it their *global* dominant resource (against the pooled capacities) while resource 0 stays
    dominant on each server. Needs n_resources >= 2 and n_servers >= 2.

    Parameters
    ----------
    rng : int, numpy.random.Generator, numpy.random.SeedSequence or None
        Randomness.
    n_users : int
        Users.
    n_servers : int
        Servers, >= 2.
    n_resources : int, default 3
        Resources, >= 2.
    eligible_fraction : float, default 0.7
        The chance a user may use a server (every user keeps one server with bandwidth).
    weights : bool, default False
        Draw weights from {1, 2, 4} (default all 1).

    Returns
    -------
    Cluster
        The cluster.

    Raises
    ------
    InvalidInputError
        On an invalid argument: more than 1,000,000 users or 1,000 servers or resources, or
        ``n_users`` x ``n_servers`` or ``n_users`` x ``n_resources`` above
        :data:`~fairlib._validate.MAX_DRAWN` (10**8 numbers to draw).
    """
    rng = as_rng(rng)
    # a cluster of a million users or a thousand servers or resources is no experiment of the
    # paper's: a typo
    n_users = as_count(n_users, "n_users", maximum=1_000_000)
    n_servers = as_count(n_servers, "n_servers", maximum=1_000)
    n_resources = as_count(n_resources, "n_resources", maximum=1_000)
    check_drawn(("n_users", n_users), ("n_servers", n_servers))
    check_drawn(("n_users", n_users), ("n_resources", n_resources))
    eligible_fraction = as_number(eligible_fraction, "eligible_fraction", maximum=1.0)
    weights = as_flag(weights, "weights")
    if n_resources < 2 or n_servers < 2:
        raise InvalidInputError(
            f"n_resources = {n_resources}, n_servers = {n_servers}: need at least 2 of each"
        )
    half = max(1, n_servers // 2)
    capacity = np.column_stack(
        [rng.uniform(8, 10, n_servers)]
        + [rng.uniform(50, 100, n_servers) for _ in range(n_resources - 2)]
        + [np.where(np.arange(n_servers) < half, 100.0, 0.0)]
    )
    demand = np.column_stack(
        [rng.uniform(1, 2, n_users)]
        + [rng.uniform(0.05, 0.5, n_users) for _ in range(n_resources - 2)]
        + [np.zeros(n_users)]
    )
    needs_bw = rng.random(n_users) < 0.4
    # bandwidth per task between (half/K) and 1 times resource 0's share on a server: globally
    # dominant, never dominant on a server (c_0 <= 10, c_bw = 100)
    ratio = rng.uniform(max(0.6, 1.2 * half / n_servers), 0.95, n_users)
    demand[:, -1] = np.where(needs_bw, ratio * demand[:, 0] / 10.0 * 100.0, 0.0)
    eligible = rng.random((n_users, n_servers)) < eligible_fraction
    eligible[np.arange(n_users), rng.integers(half, size=n_users)] = (
        True  # a bandwidth server for everyone
    )
    weight = rng.choice([1.0, 2.0, 4.0], size=n_users) if weights else None
    # Cluster takes None for its default weight; its field annotation names the array it holds
    return Cluster(capacity, demand, weight=weight, eligible=eligible)  # type: ignore[arg-type]


def _property_cell(seed, instance, kind, n_users, n_servers, n_resources, weighted, mechanisms):
    rng = np.random.default_rng(seed)
    if kind == "pool":
        cluster = random_pool(rng, n_users, n_resources, weights=weighted)
    else:
        make = random_bottleneck_cluster if kind == "bottleneck" else random_cluster
        cluster = make(rng, n_users, n_servers, n_resources, weights=weighted)
    rows = []
    with shared_stages():  # PF-VDS at α = 2 and 4 pass through the same first stage
        for name, mechanism in mechanisms.items():
            alloc = _checked_run(mechanism, cluster)
            rows.append(
                {
                    "mechanism": name,
                    **property_violations(cluster, alloc.tasks),
                    "utilisation": float(np.nanmean(alloc.utilisation)),
                }
            )
    return rows


def property_table(
    n_instances: int,
    rng: int | np.random.SeedSequence,
    *,
    kind: str = "random",
    n_users: int = 6,
    n_servers: int = 3,
    n_resources: int = 3,
    weighted: bool = True,
    mechanisms: Mapping[str, Callable] | Iterable[str] | None = None,
    progress: bool = False,
) -> pd.DataFrame:
    """Violations of SI, EF, PO and BF for every mechanism on random instances.

    ``kind``: ``"random"`` (:func:`~fairlib.multires.random_cluster`), ``"bottleneck"`` (a
    bottleneck everywhere) or ``"pool"`` (:func:`~fairlib.multires.random_pool`, one server).
    ``mechanisms``: name -> callable of a cluster, or names of registered mechanisms; default every
    registered run (:func:`fairlib.mechanisms.runs`) of the multi-server mechanisms, and on pools of
    every mechanism, weighted ones only on weighted instances. One row per (instance, mechanism);
    weights in {1, 2, 4} when ``weighted``.

    Parameters
    ----------
    n_instances : int
        Random instances, from 1 to :data:`MAX_INSTANCES`.
    rng : int or numpy.random.SeedSequence
        The sweep's root seed (an integer >= 0 or a SeedSequence).
    kind : {"random", "bottleneck", "pool"}, default "random"
        The instances (see above).
    n_users : int, default 6
        Users per cluster, from 1 to :data:`MAX_USERS`.
    n_servers : int, default 3
        Servers per cluster, from 1 to :data:`MAX_SERVERS` (at least 2 for ``"bottleneck"``).
    n_resources : int, default 3
        Resources per cluster, from 1 to :data:`MAX_RESOURCES` (at least 2 for ``"bottleneck"``).
    weighted : bool, default True
        Draw user weights.
    mechanisms : mapping of str to callable, iterable of str, or None, optional
        See above; at least one.
    progress : bool, default False
        Show the sweep's progress bar.

    Returns
    -------
    pandas.DataFrame
        One row per (instance, mechanism) with the violations.

    Raises
    ------
    InvalidInputError
        When an argument has the wrong type or value, naming it.
    """
    from ... import mechanisms as registry

    n_instances = as_count(n_instances, "n_instances", maximum=MAX_INSTANCES)
    check_choice(kind, ("random", "bottleneck", "pool"), "kind")
    n_users, n_servers, n_resources = _sizes(n_users, n_servers, n_resources)
    if kind == "bottleneck" and (n_servers < 2 or n_resources < 2):
        raise InvalidInputError(
            f"n_servers = {n_servers}, n_resources = {n_resources}: a bottleneck instance needs "
            "at least 2 of each"
        )
    weighted = as_flag(weighted, "weighted")
    if mechanisms is None:
        mechanisms = registry.runs("pooled") if kind == "pool" else {}
        mechanisms = {**mechanisms, **registry.runs("multi_server")}
        if weighted:
            mechanisms = {
                k: v for k, v in mechanisms.items() if "weights" in registry.get(k).capabilities
            }
    else:
        mechanisms = registry.resolve_runs(mechanisms)
        if not mechanisms:
            raise InvalidInputError("mechanisms: none to run")
    grid = [{"instance": i, "kind": kind} for i in range(int(n_instances))]
    out = sweep(
        _property_cell,
        grid,
        rng=rng,
        fixed=dict(
            n_users=n_users,
            n_servers=n_servers,
            n_resources=n_resources,
            weighted=weighted,
            mechanisms=dict(mechanisms),
        ),
        progress=progress,
        desc=f"{kind} instances",
    )
    return out.drop(columns="rep")


def _alpha_cell(seed, instance, alphas, n_users, n_servers, n_resources):
    cluster = random_cluster(np.random.default_rng(seed), n_users, n_servers, n_resources)
    ref = psdsf(cluster)
    rows = []
    with shared_stages():  # one instance's α list: its shared continuation stages once
        for alpha in alphas:
            alloc = ref if np.isinf(alpha) else pfvds(cluster, alpha)
            util = alloc.utilisation
            rows.append(
                {
                    "alpha": alpha,
                    "distance_to_psdsf": float(
                        np.abs(alloc.totals - ref.totals).max() / ref.totals.max()
                    ),
                    # how far from meeting Definition 4 at all: 0 at *some* PS-DSF allocation (it
                    # has several)
                    "definition4_gap": float(
                        psdsf_violation(cluster, alloc.tasks, tol=1e-7)["gap"]
                    ),
                    "nash_residual": float(alloc.diagnostics.get("nash_residual", 0.0)),
                    "solver": alloc.diagnostics.get("method", "psdsf"),
                    **{f"utilisation_r{r}": float(u) for r, u in enumerate(util)},
                    "utilisation_mean": float(np.nanmean(util)),
                }
            )
    return rows


def alpha_sweep(
    n_instances: int,
    rng: int | np.random.SeedSequence,
    alphas: Iterable[float],
    *,
    n_users: int = 20,
    n_servers: int = 5,
    n_resources: int = 3,
    progress: bool = False,
) -> pd.DataFrame:
    """PF-VDS(α) on random clusters: distance of the totals to PS-DSF (relative to the largest
    total), Definition 4's gap (:func:`~fairlib.multires.psdsf.psdsf_violation`: 0 at any PS-DSF
    allocation) and per-resource utilisation, for every α (``np.inf`` = PS-DSF). One row per
    (instance, α).

    Parameters
    ----------
    n_instances : int
        Random clusters, from 1 to :data:`MAX_INSTANCES`.
    rng : int or numpy.random.SeedSequence
        The sweep's root seed (an integer >= 0 or a SeedSequence).
    alphas : iterable of float
        The α, each from :data:`~fairlib.multires.cluster.MIN_ALPHA` to
        :data:`~fairlib.multires.cluster.MAX_ALPHA`, or ``np.inf`` for PS-DSF; at least one.
    n_users : int, default 20
        Users per cluster, from 1 to :data:`MAX_USERS`.
    n_servers : int, default 5
        Servers per cluster, from 1 to :data:`MAX_SERVERS`.
    n_resources : int, default 3
        Resources per cluster, from 1 to :data:`MAX_RESOURCES`.
    progress : bool, default False
        Show the sweep's progress bar.

    Returns
    -------
    pandas.DataFrame
        One row per (instance, α).

    Raises
    ------
    InvalidInputError
        When an argument has the wrong type or value, naming it.
    """
    n_instances = as_count(n_instances, "n_instances", maximum=MAX_INSTANCES)
    alphas = _alphas(alphas, infinite=True)
    n_users, n_servers, n_resources = _sizes(n_users, n_servers, n_resources)
    grid = [{"instance": i} for i in range(int(n_instances))]
    out = sweep(
        _alpha_cell,
        grid,
        rng=rng,
        fixed=dict(
            alphas=alphas,
            n_users=n_users,
            n_servers=n_servers,
            n_resources=n_resources,
        ),
        progress=progress,
        desc="alpha sweep",
    )
    return out.drop(columns="rep")


def proportional_fair_slsqp(cluster: Cluster) -> np.ndarray:
    """Reference for α = 1: max Σ φ_n log x_n over feasible placements with SLSQP (small
    instances); with per-user caps, x_n <= cap_n are constraints too (a user capped at 0 holds
    nothing and is left out).

    Parameters
    ----------
    cluster : Cluster
        A small cluster.

    Returns
    -------
    numpy.ndarray
        ``tasks[user, server]``, SLSQP's optimum.

    Raises
    ------
    InvalidInputError
        When ``cluster`` is not a :class:`~fairlib.multires.Cluster`.
    """
    as_instance(cluster, Cluster, "cluster")
    users, servers = np.nonzero(cluster.eligible & (cluster.max_tasks > 0)[:, None])
    p = len(users)
    if p == 0:  # every user capped at 0
        return np.zeros((cluster.n_users, cluster.n_servers))
    agg = np.zeros((cluster.n_users, p))
    agg[users, np.arange(p)] = 1.0
    playing = agg.any(axis=1)
    phi = np.where(playing, cluster.weight, 0.0)

    def neg(v):
        return -(phi * np.log(agg @ v + 1e-300)).sum()

    def grad(v):
        return -(phi / (agg @ v + 1e-300)) @ agg

    cons = []
    for i in range(cluster.n_servers):
        for r in range(cluster.n_resources):
            row = np.where(servers == i, cluster.demand[users, r], 0.0)
            if row.any():
                cons.append(
                    {
                        "type": "ineq",
                        "fun": lambda v, row=row, c=cluster.capacity[i, r]: c - row @ v,
                        "jac": lambda v, row=row: -row,
                    }
                )
    for n in np.flatnonzero(np.isfinite(cluster.max_tasks) & playing):
        cons.append(
            {
                "type": "ineq",
                "fun": lambda v, row=agg[n], c=cluster.max_tasks[n]: c - row @ v,
                "jac": lambda v, row=agg[n]: -row,
            }
        )
    res = minimize(
        neg,
        np.full(p, 1e-3),
        jac=grad,
        constraints=cons,
        bounds=[(0, None)] * p,
        method="SLSQP",
        options={"ftol": 1e-14, "maxiter": 2000},
    )
    x = np.zeros((cluster.n_users, cluster.n_servers))
    x[users, servers] = res.x
    return x


def theorem_checks(
    seed: np.random.SeedSequence, instance: int, *, alphas: Iterable[float] = (0.5, 1.0, 2.0)
) -> dict[str, float]:
    """One random instance of each kind for Theorems 2, 4 and 5 (a :func:`fairlib.sweep.sweep`
    cell).

    - ``pf_objective_shortfall``: Σ φ log x of the SLSQP optimum minus PF-VDS(1)'s (Theorem 2; <=
      0 up to SLSQP's accuracy means ours is at least as good);
    - ``bottleneck_distance``: max over α of |x_n(α) - x_n(PS-DSF)| / max x_n on a bottleneck
      instance (Theorem 4);
    - ``time_shared_distance``: the same on time-shared servers (Theorem 5), general instance,
      against our PS-DSF iteration; ``time_shared_definition4_gap``: Definition 4 checked directly
      on the time-shared PF-VDS solutions (independent of whether the PS-DSF iteration converged);
    - ``psdsf_converged``: whether our PS-DSF (the market, :func:`~.psdsf.psdsf`'s default)
      converged on both variants; ``psdsf_fixed_point_converged``: the same for the fixed-point
      iteration;
    - ``psdsf_solutions_distance``: |x_n(market) - x_n(fixed point)| / max x_n on the divisible
      servers, and ``psdsf_fixed_point_definition4``: whether the fixed point's allocation meets
      Definition 4 (both meeting it while apart means Definition 4 has several allocations there).

    Parameters
    ----------
    seed : numpy.random.SeedSequence
        The cell's seed (an integer >= 0, a SeedSequence, a BitGenerator or a Generator).
    instance : int
        The instance's number (a grid parameter of the sweep), from 0 to :data:`MAX_INSTANCES`.
    alphas : iterable of float, default (0.5, 1.0, 2.0)
        The α of the distance checks, each from :data:`~fairlib.multires.cluster.MIN_ALPHA` to
        :data:`~fairlib.multires.cluster.MAX_ALPHA`; at least one.

    Returns
    -------
    dict of str to float
        The checks above, by name.

    Raises
    ------
    InvalidInputError
        When an argument has the wrong type or value, naming it.
    """
    rng = as_rng(seed, "seed", reproducible=True)
    as_count(instance, "instance", minimum=0, maximum=MAX_INSTANCES)
    alphas = _alphas(alphas)
    general = random_cluster(rng, 5, 3, 3, weights=True)
    ours = pfvds(general, 1.0)
    shortfall = proportional_fair_objective(
        general, proportional_fair_slsqp(general)
    ) - proportional_fair_objective(general, ours.tasks)
    bottleneck = random_bottleneck_cluster(rng, 6, 3, 3, weights=True)
    ref = psdsf(bottleneck).totals
    b_dist = max(float(np.abs(pfvds(bottleneck, a).totals - ref).max() / ref.max()) for a in alphas)
    ts_ref = psdsf(general, time_shared=True)
    t_dist, t_gap = 0.0, 0.0
    for a in alphas:
        shared = pfvds(general, a, time_shared=True)
        t_dist = max(
            t_dist, float(np.abs(shared.totals - ts_ref.totals).max() / ts_ref.totals.max())
        )
        v = psdsf_violation(general, shared.tasks, time_shared=True, tol=1e-6)
        t_gap = max(t_gap, v["gap"] if v["free_pairs"] == 0 else np.inf)
    divisible = psdsf(general)
    fixed = psdsf(general, method="fixed_point")
    fixed_ts = psdsf(general, time_shared=True, method="fixed_point")
    return {
        "pf_objective_shortfall": float(shortfall),
        "pf_nash_residual": float(ours.diagnostics["nash_residual"]),
        "bottleneck_distance": b_dist,
        "time_shared_distance": t_dist,
        "time_shared_definition4_gap": t_gap,
        "psdsf_converged": bool(
            ts_ref.diagnostics["converged"] and divisible.diagnostics["converged"]
        ),
        "psdsf_fixed_point_converged": bool(
            fixed.diagnostics["converged"] and fixed_ts.diagnostics["converged"]
        ),
        "psdsf_solutions_distance": float(
            np.abs(divisible.totals - fixed.totals).max() / divisible.totals.max()
        ),
        "psdsf_fixed_point_definition4": bool(
            psdsf_violation(general, fixed.tasks, tol=1e-7)["holds"]
        ),
    }


def _route_cell(seed, instance, alphas, n_users, n_servers, n_resources):
    from ..._jit import compiled

    cluster = random_cluster(
        np.random.default_rng(seed), n_users, n_servers, n_resources, weights=True
    )
    with compiled():
        market, fixed = psdsf(cluster), psdsf(cluster, method="fixed_point")
        routes = {alpha: pfvds(cluster, alpha) for alpha in alphas}
    scale = float(market.totals.max())
    fixed_holds = fixed.converged and psdsf_violation(cluster, fixed.tasks, tol=1e-7)["holds"]
    base = {
        "market_definition4": bool(psdsf_violation(cluster, market.tasks, tol=1e-7)["holds"]),
        "fixed_point_definition4": bool(fixed_holds),
        "market_to_fixed_point": float(np.abs(market.totals - fixed.totals).max() / scale),
    }
    return [
        {
            **base,
            "alpha": alpha,
            "nash_residual": float(alloc.diagnostics["nash_residual"]),
            "to_market": float(np.abs(alloc.totals - market.totals).max() / scale),
            "to_fixed_point": float(np.abs(alloc.totals - fixed.totals).max() / scale),
            "definition4_gap": float(psdsf_violation(cluster, alloc.tasks, tol=1e-7)["gap"]),
        }
        for alpha, alloc in routes.items()
    ]


def definition4_route(
    n_instances: int,
    rng: int | np.random.SeedSequence,
    alphas: Iterable[float] = (4.0, 16.0, 64.0),
    *,
    n_users: int = 5,
    n_servers: int = 3,
    n_resources: int = 3,
    progress: bool = False,
) -> pd.DataFrame:
    """Which PS-DSF allocation the paper's own route selects where Definition 4 admits several: on
    random weighted clusters (the theorem checks' size), PS-DSF by the market (ours) and by the
    fixed point, and PF-VDS(α) for growing α (Theorem 2: α → ∞ is PS-DSF; PF-VDS's totals are
    unique, Theorem 7). One row per (instance, α): whether each PS-DSF meets Definition 4, their
    distance (max |Δx_n| / max x_n of the market), PF-VDS(α)'s Nash residual, the distance of its
    totals to each and its own Definition-4 gap (:func:`psdsf_violation`: how far PF-VDS(α) still
    is from *some* PS-DSF allocation). ``several``: both PS-DSFs meet Definition 4 and are more than
    1e-6 apart.

    Parameters
    ----------
    n_instances : int
        Random clusters, from 1 to :data:`MAX_INSTANCES`.
    rng : int or numpy.random.SeedSequence
        The sweep's root seed (an integer >= 0 or a SeedSequence).
    alphas : iterable of float, default (4.0, 16.0, 64.0)
        The growing α, each from :data:`~fairlib.multires.cluster.MIN_ALPHA` to
        :data:`~fairlib.multires.cluster.MAX_ALPHA`; at least one.
    n_users : int, default 5
        Users per cluster, from 1 to :data:`MAX_USERS`.
    n_servers : int, default 3
        Servers per cluster, from 1 to :data:`MAX_SERVERS`.
    n_resources : int, default 3
        Resources per cluster, from 1 to :data:`MAX_RESOURCES`.
    progress : bool, default False
        Show the sweep's progress bar.

    Returns
    -------
    pandas.DataFrame
        One row per (instance, α).

    Raises
    ------
    InvalidInputError
        When an argument has the wrong type or value, naming it.
    """
    n_instances = as_count(n_instances, "n_instances", maximum=MAX_INSTANCES)
    alphas = _alphas(alphas)
    n_users, n_servers, n_resources = _sizes(n_users, n_servers, n_resources)
    grid = [{"instance": i} for i in range(int(n_instances))]
    out = sweep(
        _route_cell,
        grid,
        rng=rng,
        fixed=dict(alphas=alphas, n_users=n_users, n_servers=n_servers, n_resources=n_resources),
        progress=progress,
        desc="PF-VDS route to PS-DSF",
    ).drop(columns="rep")
    out["several"] = (
        out.market_definition4 & out.fixed_point_definition4 & (out.market_to_fixed_point > 1e-6)
    )
    return out


#: Theorem 2's claim at the largest finite α: every instance's relative distance to PS-DSF at most
#: this (the ledger's rule; the notebook's note counts the instances beyond it)
THEOREM2_DISTANCE = 0.05

#: Nash residual at or below which a solver's allocation counts as an equilibrium (our solvers'
#: tolerance)
EQUILIBRIUM_RESIDUAL = 1e-6


def _equilibrium_cell(seed, instance, kind, alphas, n_users, n_servers, n_resources, weighted):
    """One random cluster of :func:`equilibrium_rates`: PF-VDS(α) by its default solver at every
    α, divisible and time-shared; one row per (α, time_shared) with the Nash residual, the method,
    the sweeps and any error."""
    from ..._jit import compiled

    cluster = random_cluster(
        np.random.default_rng(seed), n_users, n_servers, n_resources, weights=weighted
    )
    rows = []
    # thousands of small solves: compiled once beats interpreting each; the α list's shared
    # continuation stages are solved once per instance
    with compiled(), shared_stages():
        for time_shared in (False, True):
            for alpha in alphas:
                try:
                    alloc = pfvds(cluster, alpha, time_shared=time_shared)
                    residual, method, error = (
                        float(alloc.diagnostics["nash_residual"]),
                        alloc.diagnostics.get("method", ""),
                        "",
                    )
                    sweeps = int(alloc.diagnostics.get("sweeps", 0))
                except (
                    Exception
                ) as exc:  # a solver failure is a result here, recorded with its reason
                    residual, method, error, sweeps = np.nan, "", f"{type(exc).__name__}: {exc}", 0
                rows.append(
                    {
                        "alpha": alpha,
                        "time_shared": time_shared,
                        "nash_residual": residual,
                        "method": method,
                        "sweeps": sweeps,
                        "error": error,
                    }
                )
    return rows


def equilibrium_rates(
    n_instances: int,
    rng: int | np.random.SeedSequence,
    alphas: Iterable[float],
    *,
    n_users: int = 6,
    n_servers: int = 3,
    n_resources: int = 3,
    weighted: bool = True,
    progress: bool = False,
) -> pd.DataFrame:
    """PF-VDS(α)'s default solver on the property table's random instances (same seeds as
    :func:`property_table` with ``kind="random"`` and the same ``rng``: the same clusters),
    divisible and time-shared: one row per (instance, α, time_shared) with the Nash residual of the
    returned allocation, the method that finished it, the best-response sweeps it took (``pfvds``'s
    budget is ``max_sweeps = 2000``) and any error. An instance counts as solved when its residual
    is at most :data:`EQUILIBRIUM_RESIDUAL`."""
    grid = [{"instance": i, "kind": "random"} for i in range(int(n_instances))]
    out = sweep(
        _equilibrium_cell,
        grid,
        rng=rng,
        fixed=dict(
            alphas=[float(a) for a in alphas],
            n_users=n_users,
            n_servers=n_servers,
            n_resources=n_resources,
            weighted=weighted,
        ),
        progress=progress,
        desc="PF-VDS equilibria",
    )
    out = out.drop(columns="rep")
    out["solved"] = out.nash_residual <= EQUILIBRIUM_RESIDUAL
    return out


def with_random_caps(
    rng: int | np.random.Generator | np.random.SeedSequence | None,
    cluster: Cluster,
    *,
    share: float = 0.6,
    high: float = 0.6,
) -> Cluster:
    """``cluster`` with about ``share`` of its users capped (at least one), each at a uniform
    fraction in [0, ``high``) of the tasks it could run on all its servers alone (Σ_i γ[n, i]):
    caps that bind for most.

    Parameters
    ----------
    rng : int, numpy.random.Generator, numpy.random.SeedSequence or None
        Randomness.
    cluster : Cluster
        The cluster (its other fields are kept).
    share : float, default 0.6
        The chance a user is capped.
    high : float, default 0.6
        The caps' upper bound, as a fraction of what the user could run alone.

    Returns
    -------
    Cluster
        The capped cluster (``max_tasks`` set).
    """
    rng = as_rng(rng)
    as_instance(cluster, Cluster, "cluster")
    share = as_number(share, "share", minimum=0.0, inclusive=True, maximum=1.0)
    high = as_number(high, "high", maximum=1.0)
    alone = cluster.gamma.sum(axis=1)
    capped = rng.random(cluster.n_users) < share
    fraction = rng.uniform(0.0, high, cluster.n_users)
    if not capped.any():
        capped[rng.integers(cluster.n_users)] = True
    caps = np.where(capped, fraction * alone, np.inf)
    return replace(cluster, max_tasks=caps)


def _capped_equilibrium_cell(seed, instance, alphas, n_users, n_servers, n_resources):
    from ..._jit import compiled

    rng = np.random.default_rng(seed)
    cluster = with_random_caps(
        rng, random_cluster(rng, n_users, n_servers, n_resources, weights=True)
    )
    rows = []
    with compiled(), shared_stages():  # the α list's shared continuation stages once per instance
        for time_shared in (False, True):
            for alpha in alphas:
                try:
                    alloc = pfvds(cluster, alpha, time_shared=time_shared)
                    gap, error = float(alloc.diagnostics["variational_gap"]), ""
                except (
                    Exception
                ) as exc:  # a solver failure is a result here, recorded with its reason
                    gap, error = np.nan, f"{type(exc).__name__}: {exc}"
                rows.append(
                    {
                        "alpha": alpha,
                        "time_shared": time_shared,
                        "variational_gap": gap,
                        "error": error,
                    }
                )
    return rows


def capped_equilibrium_rates(
    n_instances: int,
    rng: int | np.random.SeedSequence,
    alphas: Iterable[float],
    *,
    n_users: int = 6,
    n_servers: int = 3,
    n_resources: int = 3,
    progress: bool = False,
) -> pd.DataFrame:
    """PF-VDS(α) with per-user caps (our variational equilibrium, :func:`fairlib.multires.pfvds`)
    on random weighted clusters of the property table's size with :func:`with_random_caps`,
    divisible and time-shared: one row per (instance, α, time_shared) with eq. (16)'s gap over the
    capped set; ``certified`` when it is at most :data:`fairlib.multires.pfvds.CAPPED_GAP`.

    Parameters
    ----------
    n_instances : int
        Random clusters, from 1 to :data:`MAX_INSTANCES`.
    rng : int or numpy.random.SeedSequence
        The sweep's root seed (an integer >= 0 or a SeedSequence).
    alphas : iterable of float
        The α, each from :data:`~fairlib.multires.cluster.MIN_ALPHA` to
        :data:`~fairlib.multires.cluster.MAX_ALPHA`; at least one.
    n_users : int, default 6
        Users per cluster, from 1 to :data:`MAX_USERS`.
    n_servers : int, default 3
        Servers per cluster, from 1 to :data:`MAX_SERVERS`.
    n_resources : int, default 3
        Resources per cluster, from 1 to :data:`MAX_RESOURCES`.
    progress : bool, default False
        Show the sweep's progress bar.

    Returns
    -------
    pandas.DataFrame
        One row per (instance, α, time_shared).

    Raises
    ------
    InvalidInputError
        When an argument has the wrong type or value, naming it.
    """
    from ...multires.pfvds import CAPPED_GAP

    n_instances = as_count(n_instances, "n_instances", maximum=MAX_INSTANCES)
    alphas = _alphas(alphas)
    n_users, n_servers, n_resources = _sizes(n_users, n_servers, n_resources)
    grid = [{"instance": i} for i in range(int(n_instances))]
    out = sweep(
        _capped_equilibrium_cell,
        grid,
        rng=rng,
        fixed=dict(
            alphas=alphas,
            n_users=n_users,
            n_servers=n_servers,
            n_resources=n_resources,
        ),
        progress=progress,
        desc="capped PF-VDS equilibria",
    ).drop(columns="rep")
    out["certified"] = out.variational_gap <= CAPPED_GAP
    return out


def capped_solver_findings(capped: pd.DataFrame) -> dict[str, Measurement]:
    """The capped solver's check (held means every instance certified at every α, divisible and
    time-shared), from :func:`capped_equilibrium_rates`' table; the note gives the share per α and
    the worst gaps left.

    Parameters
    ----------
    capped : pandas.DataFrame
        :func:`capped_equilibrium_rates`' table: ``time_shared`` (divisible and time-shared rows),
        ``alpha``, ``certified``, ``variational_gap`` and ``error``.

    Returns
    -------
    dict of str to Measurement
        Claim id → measurement, for :meth:`fairlib.repro.ledger.ClaimLog.measure_all`.

    Raises
    ------
    InvalidInputError
        When ``capped`` is not a DataFrame, lacks a column, holds something other than a number
        >= 0 in ``alpha`` or ``variational_gap`` (naming the row), or lacks the divisible or
        time-shared rows.
    """
    # a variational gap is inf where a usable user holds no task
    as_table(
        capped,
        "capped",
        ["time_shared", "certified", "error"],
        ["alpha", "variational_gap"],
        sign=">= 0",
        infinite=True,
    )
    _both_servers(capped, "capped")
    shares = capped.groupby(["time_shared", "alpha"]).certified.mean()
    missed = capped[~capped.certified]
    note = (
        ""
        if shares.min() == 1.0
        else (
            "share certified per α, divisible: "
            + ", ".join(f"{a:g}: {r:.1%}" for a, r in shares.loc[False].items())
            + "; time-shared: "
            + ", ".join(f"{a:g}: {r:.1%}" for a, r in shares.loc[True].items())
            + f"; the {len(missed)} uncertified allocations have eq. (16) gaps "
            f"{missed.variational_gap.min():.1e}–"
            f"{missed.variational_gap.max():.1e} ({int((missed.error != '').sum())} errors): "
            "the interior point's "
            "continuation stops short at large α (marginals x^-α beyond its reach), and best "
            "responses, which finish the uncapped equilibrium, would leave the variational "
            "one under caps"
        )
    )
    return {"pfvds_capped_equilibrium_every_alpha": Measurement(float(shares.min()), note)}


def _continued(
    cluster: Cluster, alpha: float, alloc: Allocation, max_sweeps: int = 50_000
) -> Allocation:
    """``alloc``, or best-response sweeps continued from it with a tighter stopping rule when its
    Nash residual exceeds a hundredth of :data:`EQUILIBRIUM_RESIDUAL` — whichever is closer to an
    equilibrium."""
    if alloc.diagnostics["nash_residual"] <= EQUILIBRIUM_RESIDUAL / 100:
        return alloc
    more = pfvds(
        cluster,
        alpha,
        method="best_response",
        options={"start": alloc.tasks, "max_sweeps": max_sweeps, "tol": 1e-14},
    )
    return more if more.diagnostics["nash_residual"] < alloc.diagnostics["nash_residual"] else alloc


def _conditions_cell(seed, instance, alphas, n_starts, n_users, n_servers, n_resources):
    """One random weighted cluster: PF-VDS equilibria from the interior point, best responses and
    ``n_starts`` random starts, per α; Theorem 1's conditions, Lemma 1's merit and the totals'
    spread over the equilibria found."""
    rng = np.random.default_rng(seed)
    cluster = random_cluster(rng, n_users, n_servers, n_resources, weights=True)
    rows = []
    for alpha in alphas:
        tried = [pfvds(cluster, alpha), pfvds(cluster, alpha, method="best_response")]
        tried += [
            pfvds(
                cluster,
                alpha,
                method="best_response",
                options={"start": random_feasible_start(rng, cluster)},
            )
            for _ in range(n_starts)
        ]
        # the theorems are about equilibria: a solver run that stopped short (its sweeps' change
        # fell below tol while still off equilibrium) is continued, and one still above
        # EQUILIBRIUM_RESIDUAL is left out, counted
        tried = [_continued(cluster, alpha, a) for a in tried]
        found = [a for a in tried if a.diagnostics["nash_residual"] <= EQUILIBRIUM_RESIDUAL]
        totals = np.array([a.totals for a in found])
        tasks = np.array([a.tasks for a in found])
        scale = totals.max()
        far = int(np.abs(tasks - tasks[0]).max(axis=(1, 2)).argmax())
        midpoint = 0.5 * (tasks[0] + tasks[far])
        other = pfvds(
            cluster, 2 * alpha
        ).tasks  # an equilibrium of another α: in general not one of this α
        rows.append(
            {
                "alpha": float(alpha),
                "left_out": len(tried) - len(found),
                "equilibrium_nash_residual": max(
                    float(a.diagnostics["nash_residual"]) for a in found
                ),
                "totals_spread": float(np.abs(totals - totals[0]).max() / scale),
                "placement_spread": float(np.abs(tasks - tasks[0]).max() / scale),
                "midpoint_nash_residual": nash_residual(cluster, midpoint, alpha),
                "equilibrium_variational_gap": max(
                    variational_gap(cluster, a.tasks, alpha) for a in found
                ),
                "equilibrium_least_merit": least_merit(cluster, found[0].tasks, alpha),
                "other_nash_residual": nash_residual(cluster, other, alpha),
                "other_variational_gap": variational_gap(cluster, other, alpha),
                "other_least_merit": least_merit(cluster, other, alpha),
            }
        )
    return rows


def equilibrium_conditions(
    n_instances: int,
    rng: int | np.random.SeedSequence,
    *,
    alphas: Iterable[float] = (1.0, 2.0, 4.0),
    n_starts: int = 3,
    n_users: int = 5,
    n_servers: int = 3,
    n_resources: int = 3,
    progress: bool = False,
) -> pd.DataFrame:
    """Theorem 1, Lemmas 1–2 and Theorem 7 on random weighted clusters, one row per (instance,
    α).

    Equilibria of Problem 1 are found ``2 + n_starts`` ways (interior point; best responses from no
    tasks and from ``n_starts`` random feasible placements). Columns:

    - ``equilibrium_nash_residual``: the largest Nash residual among them (how tight they are);
    - ``totals_spread`` / ``placement_spread``: the largest difference of x_n / of x[n, i] between
      them, relative to the largest total (Theorem 7: totals unique; placements need not be);
    - ``midpoint_nash_residual``: Nash residual of the midpoint of the two most different placements
      (Lemma 2: the solution set is connected);
    - ``equilibrium_variational_gap`` / ``equilibrium_least_merit``: eq. (16)'s gap
      (:func:`~.pfvds_conditions.variational_gap`) and min_λ Ψ
      (:func:`~.pfvds_conditions.least_merit`) there;
    - ``other_*``: the same at PF-VDS(2α), judged as an allocation for α (a non-equilibrium unless
      α does not matter on that instance, as with a bottleneck at every server).

    Parameters
    ----------
    n_instances : int
        Random clusters, from 1 to :data:`MAX_INSTANCES`.
    rng : int or numpy.random.SeedSequence
        The sweep's root seed (an integer >= 0 or a SeedSequence).
    alphas : iterable of float, default (1.0, 2.0, 4.0)
        The α, each from :data:`~fairlib.multires.cluster.MIN_ALPHA` to
        :data:`~fairlib.multires.cluster.MAX_ALPHA` (the PF-VDS(2α) comparison needs 2α there
        too); at least one.
    n_starts : int, default 3
        Random starts of the best responses, from 0 to :data:`MAX_STARTS`.
    n_users : int, default 5
        Users per cluster, from 1 to :data:`MAX_USERS`.
    n_servers : int, default 3
        Servers per cluster, from 1 to :data:`MAX_SERVERS`.
    n_resources : int, default 3
        Resources per cluster, from 1 to :data:`MAX_RESOURCES`.
    progress : bool, default False
        Show the sweep's progress bar.

    Returns
    -------
    pandas.DataFrame
        One row per (instance, α).

    Raises
    ------
    InvalidInputError
        When an argument has the wrong type or value, naming it.
    """
    n_instances = as_count(n_instances, "n_instances", maximum=MAX_INSTANCES)
    alphas = _alphas(alphas)
    # each α is compared with PF-VDS(2α), which must be in the solvers' range too
    doubled = [a for a in alphas if 2 * a > MAX_ALPHA]
    if doubled:
        raise InvalidInputError(
            f"alphas: {doubled[0]:g} is compared with PF-VDS(2α) = PF-VDS({2 * doubled[0]:g}), "
            f"beyond the solvers' {MAX_ALPHA:g}"
        )
    n_starts = as_count(n_starts, "n_starts", minimum=0, maximum=MAX_STARTS)
    n_users, n_servers, n_resources = _sizes(n_users, n_servers, n_resources)
    grid = [{"instance": i} for i in range(int(n_instances))]
    out = sweep(
        _conditions_cell,
        grid,
        rng=rng,
        fixed=dict(
            alphas=alphas,
            n_starts=int(n_starts),
            n_users=n_users,
            n_servers=n_servers,
            n_resources=n_resources,
        ),
        progress=progress,
        desc="equilibrium conditions",
    )
    return out.drop(columns="rep")


#: the property-table cells the paper marks ✓ (Theorem 3 for PF-VDS): their violation rate must be
#: zero
NEVER_VIOLATED = (
    ("drfh", ("EF", "PO")),
    ("tsf", ("EF", "PO")),
    ("psdsf", ("SI", "EF")),
    ("pfvds_1", ("SI", "EF", "PO")),
    ("pfvds_2", ("SI", "EF")),
    ("pfvds_4", ("SI", "EF")),
    ("pfvds_1_2_4", ("SI", "EF")),
)


def _alpha_spread(fig3: pd.DataFrame, prefix: str) -> float:
    """The largest change, over α, of a user's tasks on server 2 in the Fig. 3 rows whose instance
    starts so."""
    part = fig3[fig3.instance.str.startswith(prefix)]
    if part.empty:
        raise InvalidInputError(f"fig3: no rows whose instance starts with {prefix!r}")
    return float(part.groupby("user").server_2.agg(["max", "min"]).diff(axis=1).abs().max().max())


def fig1_findings(
    checks: Mapping[str, bool],
    bottleneck_fairness: Mapping[str, float],
    utilisation: pd.DataFrame,
    fig3: pd.DataFrame,
) -> dict[str, Measurement]:
    """The §2 claims (Figs. 1–3) on the hypothetical Fig. 1 instance: ``checks`` from
    :func:`fig1_checks`, ``bottleneck_fairness`` the BF violation of each mechanism's allocation
    ("PS-DSF", "DRFH", "TSF"), ``utilisation`` one column per mechanism over the (server, resource)
    pairs (NaN where a server lacks the resource), ``fig3`` PF-VDS's tasks on server 2 per α for
    the Fig. 1 instance (``instance`` starting "Fig") and the variant without a RAM bottleneck
    ("variant").

    Parameters
    ----------
    checks : dict of str to bool
        :func:`fig1_checks`: every check it makes, each True or False.
    bottleneck_fairness : dict of str to float
        The BF violation of each mechanism's allocation: "PS-DSF", "DRFH" and "TSF", finite.
    utilisation : pandas.DataFrame
        One column per mechanism (PS-DSF, DRFH, TSF and any other) over the (server, resource)
        pairs.
    fig3 : pandas.DataFrame
        PF-VDS's tasks on server 2 per α (see above): ``instance``, ``user`` and ``server_2``.

    Returns
    -------
    dict of str to Measurement
        Claim id → measurement, for :meth:`fairlib.repro.ledger.ClaimLog.measure_all`.

    Raises
    ------
    InvalidInputError
        When an argument has the wrong type, keys or columns, naming it, or a table's column read
        as numbers holds something else (naming the row).
    """
    utilisation = as_table(utilisation, "utilisation", ["PS-DSF", "DRFH", "TSF"])
    # its mean and the note read every column, one per mechanism, not only those three
    as_table(utilisation, "utilisation", (), utilisation.columns, sign=">= 0")
    as_table(fig3, "fig3", ["instance", "user"], ["server_2"], sign=">= 0")
    as_instance(checks, Mapping, "checks")
    if set(checks) != set(FIG1_CHECKS):
        raise InvalidInputError(
            f"checks: keys {sorted(map(str, checks))}, expected fig1_checks' {list(FIG1_CHECKS)}"
        )
    for key, value in checks.items():
        as_flag(value, f"checks[{key!r}]")
    as_instance(bottleneck_fairness, Mapping, "bottleneck_fairness")
    if set(bottleneck_fairness) != {"PS-DSF", "DRFH", "TSF"}:
        raise InvalidInputError(
            f"bottleneck_fairness: keys {sorted(map(str, bottleneck_fairness))}, expected "
            "['DRFH', 'PS-DSF', 'TSF']"
        )
    for key, fairness in bottleneck_fairness.items():
        as_finite(fairness, f"bottleneck_fairness[{key!r}]")
    mean_util = utilisation.mean()  # over the (server, resource) pairs with capacity
    return {
        "fig1_hypothetical_instance_meets_constraints": Measurement(bool(all(checks.values()))),
        "fig1_ram_bottleneck_at_both_servers": Measurement(
            bool(checks["ram_bottleneck_every_server"])
        ),
        "fig1_drfh_violates_bottleneck_fairness": Measurement(bottleneck_fairness["DRFH"]),
        "fig1_tsf_violates_bottleneck_fairness": Measurement(bottleneck_fairness["TSF"]),
        "fig1_psdsf_bottleneck_fair": Measurement(bottleneck_fairness["PS-DSF"]),
        "fig2_psdsf_more_efficient": Measurement(
            float(mean_util["PS-DSF"] - mean_util[["DRFH", "TSF"]].max()),
            note="mean utilisation over servers and resources on our stand-in for the lost "
            "instance: "
            + ", ".join(f"{k} {v:.4f}" for k, v in mean_util.items())
            + f" (PS-DSF ahead by {mean_util['PS-DSF'] - mean_util[['DRFH', 'TSF']].max():.2g})",
        ),
        "fig3_alpha_irrelevant_with_bottleneck": Measurement(_alpha_spread(fig3, "Fig")),
        "fig3_alpha_matters_without_bottleneck": Measurement(_alpha_spread(fig3, "variant")),
    }


def property_rates(
    random_table: pd.DataFrame, bottleneck_table: pd.DataFrame, tol: float = 1e-6
) -> pd.DataFrame:
    """Violation rates per mechanism (rows, in table order) of SI, EF and PO over
    :func:`property_table`'s random instances and of BF over its bottleneck instances; a property
    counts as violated above ``tol`` (relative).

    Parameters
    ----------
    random_table : pandas.DataFrame
        :func:`property_table` on random instances (``mechanism``, ``SI``, ``EF``, ``PO``).
    bottleneck_table : pandas.DataFrame
        :func:`property_table` on bottleneck instances (``mechanism``, ``BF``).
    tol : float, default 1e-6
        Relative violation counted: 0 (any) or from 1e-15 to 0.1.

    Returns
    -------
    pandas.DataFrame
        Rates per mechanism (rows) and property (columns ``SI``, ``EF``, ``PO``, ``BF``).

    Raises
    ------
    InvalidInputError
        When a table is not a DataFrame, lacks a column or holds something other than a number in
        a property's column (naming the row), or ``tol`` is out of range.
    """
    # a violation is <= 0 where the property holds, and -inf or inf at the extremes
    as_table(random_table, "random_table", ["mechanism"], ["SI", "EF", "PO"], infinite=True)
    as_table(bottleneck_table, "bottleneck_table", ["mechanism"], ["BF"], infinite=True)
    tol = as_tolerance(tol, "tol", zero=True)
    rates = (
        random_table[["SI", "EF", "PO"]].gt(tol).groupby(random_table.mechanism, sort=False).mean()
    )
    rates["BF"] = (
        bottleneck_table["BF"].gt(tol).groupby(bottleneck_table.mechanism, sort=False).mean()
    )
    return rates


def property_findings(rates: pd.DataFrame) -> dict[str, Measurement]:
    """The property-table claims (§2–3, Theorem 3) on :func:`property_rates`: every ✓ cell of
    the paper's table (:data:`NEVER_VIOLATED`) is a zero rate; the ✗ cells and α < 1 say a
    property *can* fail.

    Parameters
    ----------
    rates : pandas.DataFrame
        :func:`property_rates`' table: columns ``SI``, ``EF``, ``PO`` and ``BF``, a row for every
        mechanism of :data:`NEVER_VIOLATED` and for ``pfvds_0.5``.

    Returns
    -------
    dict of str to Measurement
        Claim id → measurement, for :meth:`fairlib.repro.ledger.ClaimLog.measure_all`.

    Raises
    ------
    InvalidInputError
        When ``rates`` is not a DataFrame, lacks a row or a column, or holds something other than
        a number >= 0 in a property's column (naming the row).
    """
    as_table(rates, "rates", (), ["SI", "EF", "PO", "BF"], sign=">= 0")
    absent = [m for m in [*(m for m, _ in NEVER_VIOLATED), "pfvds_0.5"] if m not in rates.index]
    if absent:
        raise InvalidInputError(f"rates: no row for mechanism(s) {absent}")
    out = {
        f"{mech}_{col}_never_violated": Measurement(float(rates.loc[mech, col]))
        for mech, cols in NEVER_VIOLATED
        for col in cols
    }
    out.update(
        {
            "drfh_violates_SI": Measurement(float(rates.loc["drfh", "SI"])),
            "psdsf_not_PO": Measurement(float(rates.loc["psdsf", "PO"])),
            "psdsf_BF_never_violated": Measurement(float(rates.loc["psdsf", "BF"])),
            "drfh_violates_BF": Measurement(float(rates.loc["drfh", "BF"])),
            "tsf_violates_BF": Measurement(float(rates.loc["tsf", "BF"])),
            "tsf_SI_placement_aware": Measurement(
                float(rates.loc["tsf", "SI"]),
                note="TSF's SI is against γ_n over all servers, placement ignored; against the "
                "placement-aware bound of Theorem 3 it fails when a user's eligible servers "
                "are fewer than those counted in its γ_n",
            ),
            "alpha_below_1_can_violate_EF": Measurement(float(rates.loc["pfvds_0.5", "EF"])),
        }
    )
    return out


#: a step of one instance's distance to PS-DSF up by at most this (relative; our solvers' tolerance)
#: is no rise
APPROACH_TOL = 1e-6


def approach_per_instance(alpha_table: pd.DataFrame) -> pd.DataFrame:
    """Theorem 2's limit, instance by instance, from :func:`alpha_sweep`'s table: per instance, the
    distance of PF-VDS(α)'s totals to PS-DSF at the largest finite α (``final``) and at the
    smallest (``first``), whether it never rises by more than :data:`APPROACH_TOL` along α
    (``non_increasing``), its distances in the order of α (``series``) and Definition 4's gap at
    the largest finite α (``definition4_gap``, when the table has it).

    Parameters
    ----------
    alpha_table : pandas.DataFrame
        :func:`alpha_sweep`'s table: ``instance``, ``alpha`` and ``distance_to_psdsf``.

    Returns
    -------
    pandas.DataFrame
        One row per instance.

    Raises
    ------
    InvalidInputError
        When ``alpha_table`` is not a DataFrame, lacks a column, holds something other than a
        number >= 0 in a column read (naming the row) or has no finite α.
    """
    # α = inf is PS-DSF; a Definition-4 gap is inf where a user's VDS is 0
    as_table(
        alpha_table,
        "alpha_table",
        ["instance"],
        ["alpha", "distance_to_psdsf"],
        sign=">= 0",
        infinite=True,
    )
    if "definition4_gap" in alpha_table:  # read where the table has it
        as_table(alpha_table, "alpha_table", (), ["definition4_gap"], sign=">= 0", infinite=True)
    finite = alpha_table[np.isfinite(alpha_table.alpha)].sort_values(["instance", "alpha"])
    if finite.empty:
        raise InvalidInputError("alpha_table: no finite α")
    rows = {}
    for instance, part in finite.groupby("instance", sort=True):
        d = part.distance_to_psdsf.to_numpy(float)
        rows[instance] = {
            "first": float(d[0]),
            "final": float(d[-1]),
            "non_increasing": bool((np.diff(d) <= APPROACH_TOL).all()),
            "series": d.tolist(),
            "definition4_gap": float(part.definition4_gap.iloc[-1])
            if "definition4_gap" in part
            else np.nan,
        }
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("instance")


def alpha_means(alpha_table: pd.DataFrame) -> pd.DataFrame:
    """:func:`alpha_sweep`'s table averaged over clusters per α (α = inf is PS-DSF).

    Parameters
    ----------
    alpha_table : pandas.DataFrame
        :func:`alpha_sweep`'s table on three resources or more: ``alpha``, ``distance_to_psdsf``,
        ``utilisation_mean``, ``utilisation_r0`` to ``utilisation_r2`` and ``nash_residual``.

    Returns
    -------
    pandas.DataFrame
        One row per α.

    Raises
    ------
    InvalidInputError
        When ``alpha_table`` is not a DataFrame, lacks a column or holds something other than a
        number >= 0 in one (naming the row).
    """
    columns = [
        "distance_to_psdsf",
        "utilisation_mean",
        "utilisation_r0",
        "utilisation_r1",
        "utilisation_r2",
        "nash_residual",
    ]
    # α = inf is PS-DSF
    as_table(alpha_table, "alpha_table", (), ["alpha", *columns], sign=">= 0", infinite=True)
    return alpha_table.groupby("alpha")[columns].mean()


def theorem_findings(theorem: pd.DataFrame, alpha_table: pd.DataFrame) -> dict[str, Measurement]:
    """Theorems 2, 4 and 5 and the α trade-off: ``theorem`` has one row of :func:`theorem_checks`
    per random instance, ``alpha_table`` is :func:`alpha_sweep`'s (α = inf included). PF-VDS counts
    as at the equilibrium where its Nash residual is at most 1e-5 (α > 16: the continuation's
    reach).

    Parameters
    ----------
    theorem : pandas.DataFrame
        One row of :func:`theorem_checks` per instance.
    alpha_table : pandas.DataFrame
        :func:`alpha_sweep`'s table, α = 1 and α = inf included.

    Returns
    -------
    dict of str to Measurement
        Claim id → measurement, for :meth:`fairlib.repro.ledger.ClaimLog.measure_all`.

    Raises
    ------
    InvalidInputError
        When a table is not a DataFrame, lacks a column or holds something other than a number in
        a column read as numbers (naming the row), or ``alpha_table`` has no α = 1 or no α = inf.
    """
    # the shortfall may be negative (SLSQP's optimum short of ours); the time-shared Definition-4
    # gap is inf where a user could grow for free
    as_table(
        theorem,
        "theorem",
        ["psdsf_converged", "psdsf_fixed_point_converged", "psdsf_fixed_point_definition4"],
        [
            "pf_objective_shortfall",
            "bottleneck_distance",
            "time_shared_distance",
            "time_shared_definition4_gap",
            "psdsf_solutions_distance",
        ],
        infinite=True,
    )
    # α = inf is PS-DSF
    as_table(
        alpha_table,
        "alpha_table",
        ["instance", "solver"],
        ["alpha", "nash_residual"],
        sign=">= 0",
        infinite=True,
    )
    by_alpha = alpha_means(alpha_table)
    if np.inf not in by_alpha.index:
        raise InvalidInputError("alpha_table: needs α = inf (PS-DSF) to compare with")
    if 1.0 not in by_alpha.index:
        raise InvalidInputError("alpha_table: needs α = 1 (the utilisation trade-off's end)")
    per_instance = approach_per_instance(alpha_table)
    top_alpha = float(alpha_table.alpha[np.isfinite(alpha_table.alpha)].max())
    far = per_instance[per_instance.final > THEOREM2_DISTANCE]
    rising = per_instance[~per_instance.non_increasing]
    converged = theorem.psdsf_fixed_point_converged.mean()
    both = theorem[theorem.psdsf_fixed_point_converged & theorem.psdsf_fixed_point_definition4]
    moderate = alpha_table[alpha_table.alpha <= 16]
    large = alpha_table[np.isfinite(alpha_table.alpha) & (alpha_table.alpha > 16)]
    reached = float((large.nash_residual <= 1e-5).mean())
    return {
        "theorem2_alpha1_is_weighted_pf": Measurement(float(theorem.pf_objective_shortfall.max())),
        "theorem2_alpha_to_infinity_psdsf": Measurement(
            float(per_instance.final.max()),
            note=f"at α = {top_alpha:g}, {len(far)} of {len(per_instance)} clusters are more than "
            f"{THEOREM2_DISTANCE:g} from our PS-DSF (median distance "
            f"{per_instance.final.median():.2g})"
            + "".join(
                f"; cluster {i}: distance along α "
                + ", ".join(f"{x:.3g}" for x in r.series)
                + f", Definition-4 gap at α = {top_alpha:g} {r.definition4_gap:.2g}"
                for i, r in far.iterrows()
            ),
        ),
        "theorem2_distance_decreases_with_alpha": Measurement(
            float(per_instance.non_increasing.mean()),
            note=f"{len(rising)} of {len(per_instance)} clusters' distances rise somewhere along α"
            + "".join(
                f"; cluster {i}: " + ", ".join(f"{x:.3g}" for x in r.series)
                for i, r in rising.iterrows()
            ),
        ),
        "theorem4_bottleneck_pfvds_equals_psdsf": Measurement(
            float(theorem.bottleneck_distance.max())
        ),
        "theorem5_time_shared_solutions_are_psdsf": Measurement(
            float(theorem.time_shared_definition4_gap.max())
        ),
        "psdsf_market_converges": Measurement(float(theorem.psdsf_converged.mean())),
        "psdsf_fixed_point_iteration_converges": Measurement(
            float(converged),
            note=""
            if converged == 1
            else "the per-server progressive-filling iteration did not converge on "
            f"{(1 - converged):.0%} of the small "
            "random instances within psdsf's max_sweeps; the market, our default, converges "
            "on all of them",
        ),
        "definition4_has_several_allocations": Measurement(
            float((both.psdsf_solutions_distance > 1e-6).mean())
        ),
        "theorem5_distance_to_our_psdsf": Measurement(float(theorem.time_shared_distance.max())),
        "smaller_alpha_higher_utilisation": Measurement(
            float(by_alpha.loc[1.0, "utilisation_mean"] - by_alpha.loc[np.inf, "utilisation_mean"])
        ),
        "pfvds_equilibrium_reached_alpha_up_to_16": Measurement(
            float(moderate.nash_residual.max())
        ),
        "pfvds_equilibrium_reached_large_alpha": Measurement(
            reached,
            note=""
            if reached == 1.0
            else f"at α = {large.alpha.max():g} the interior point's continuation stops short on "
            f"{(large.solver != 'interior_point').sum()} of {len(large)} instances "
            "(marginals x^-α beyond its reach) and best responses finish; on "
            f"{(large.nash_residual > 1e-5).sum()} they end after the sweeps' budget at Nash "
            f"residual {large.nash_residual.max():.2g}",
        ),
    }


def solver_rates(rates_table: pd.DataFrame) -> pd.DataFrame:
    """Per (time_shared, α) of :func:`equilibrium_rates`' table: the share solved (Nash residual
    ≤ 1e-6), the worst residual, the share that best responses finished, and the number of errors.

    Parameters
    ----------
    rates_table : pandas.DataFrame
        :func:`equilibrium_rates`' table: ``time_shared``, ``alpha``, ``solved``,
        ``nash_residual``, ``method`` and ``error``.

    Returns
    -------
    pandas.DataFrame
        One row per (time_shared, α).

    Raises
    ------
    InvalidInputError
        When ``rates_table`` is not a DataFrame, lacks a column or holds something other than a
        number >= 0 in ``alpha`` or ``nash_residual`` (naming the row).
    """
    as_table(
        rates_table,
        "rates_table",
        ["time_shared", "solved", "method", "error"],
        ["alpha", "nash_residual"],
        sign=">= 0",
    )
    return (
        rates_table.assign(
            best_response_finished=rates_table.method != "interior_point",
            errors=rates_table.error != "",
        )
        .groupby(["time_shared", "alpha"])
        .agg(
            solved=("solved", "mean"),
            worst_residual=("nash_residual", "max"),
            best_response_finished=("best_response_finished", "mean"),
            errors=("errors", "sum"),
        )
    )


def solver_findings(rates_table: pd.DataFrame) -> dict[str, Measurement]:
    """Our PF-VDS solver's convergence checks (held means every instance solved at every α), on
    divisible and on time-shared servers, from :func:`equilibrium_rates`' table.

    Parameters
    ----------
    rates_table : pandas.DataFrame
        :func:`equilibrium_rates`' table (:func:`solver_rates`' columns and ``sweeps``), with
        divisible and time-shared rows.

    Returns
    -------
    dict of str to Measurement
        Claim id → measurement, for :meth:`fairlib.repro.ledger.ClaimLog.measure_all`.

    Raises
    ------
    InvalidInputError
        When ``rates_table`` is not a DataFrame, lacks a column, holds something other than a
        number >= 0 in ``alpha``, ``nash_residual`` or ``sweeps`` (naming the row), or lacks the
        divisible or time-shared rows.
    """
    as_table(
        rates_table,
        "rates_table",
        ["time_shared", "solved", "method", "error"],
        ["alpha", "nash_residual", "sweeps"],
        sign=">= 0",
    )
    _both_servers(rates_table, "rates_table")
    per_alpha = solver_rates(rates_table)
    out = {}
    for shared, claim_id in (
        (False, "pfvds_equilibrium_every_alpha"),
        (True, "pfvds_time_shared_equilibrium_every_alpha"),
    ):
        rates_here = per_alpha.loc[shared, "solved"]
        unsolved = rates_table[(rates_table.time_shared == shared) & ~rates_table.solved]
        out[claim_id] = Measurement(
            float(rates_here.min()),
            ""
            if rates_here.min() == 1.0
            else "share of instances solved per α: "
            + ", ".join(f"{a:g}: {r:.1%}" for a, r in rates_here.items())
            + f"; the {len(unsolved)} unsolved ones end with Nash residuals "
            f"{unsolved.nash_residual.min():.1e}–{unsolved.nash_residual.max():.1e}: "
            + "; ".join(
                f"{int((unsolved.method == m).sum())} finished by {m}"
                for m in sorted(set(unsolved.method))
            )
            + f"; {int((unsolved.sweeps >= 2000).sum())} of them stopped at the best "
            "responses' budget of 2,000 "
            "sweeps while still changing (at α = 64 the sweeps can oscillate for thousands "
            "of sweeps before they settle), the others on the change rule",
        )
    return out


def route_findings(route: pd.DataFrame) -> dict[str, Measurement]:
    """Which PS-DSF PF-VDS(α → ∞) approaches, from :func:`definition4_route`'s table: at the
    largest α, on the clusters with several Definition-4 allocations solved to Nash residual 1e-6,
    the share closer to the market's totals than to the fixed point's.

    Parameters
    ----------
    route : pandas.DataFrame
        :func:`definition4_route`'s table: ``alpha``, ``several``, ``to_market``,
        ``to_fixed_point``, ``definition4_gap`` and ``nash_residual``.

    Returns
    -------
    dict of str to Measurement
        Claim id → measurement, for :meth:`fairlib.repro.ledger.ClaimLog.measure_all`.

    Raises
    ------
    InvalidInputError
        When ``route`` is not a DataFrame, lacks a column or holds something other than a number
        >= 0 in a column read as numbers (naming the row).
    """
    # a Definition-4 gap is inf where a user's VDS is 0
    as_table(
        route,
        "route",
        ["several"],
        ["alpha", "to_market", "to_fixed_point", "definition4_gap", "nash_residual"],
        sign=">= 0",
        infinite=True,
    )
    top_alpha = route.alpha.max()
    medians = route.groupby(["several", "alpha"])[
        ["to_market", "to_fixed_point", "definition4_gap", "nash_residual"]
    ].median()
    top = route[route.several & (route.alpha == top_alpha) & (route.nash_residual <= 1e-6)]
    closer = float((top.to_market < top.to_fixed_point).mean()) if len(top) else float("nan")
    one = (
        medians.loc[(False, top_alpha), "to_market"]
        if (False, top_alpha) in medians.index
        else float("nan")
    )
    return {
        "pfvds_limit_selects_market_psdsf": Measurement(
            closer,
            note=f"on {len(top)} clusters with several Definition-4 allocations, "
            f"PF-VDS({top_alpha:g}) is closer to the market's totals on {closer:.0%}; median "
            f"distance to the market's {top.to_market.median():.2g}, to the fixed point's "
            f"{top.to_fixed_point.median():.2g} (where Definition 4 has one allocation: "
            f"{one:.2g}); Definition-4 gap of PF-VDS {top.definition4_gap.median():.2g}",
        )
    }


def condition_findings(conditions: pd.DataFrame) -> dict[str, Measurement]:
    """Theorem 1, Lemmas 1–2 and Theorem 7 on :func:`equilibrium_conditions`' table:
    non-equilibria are the (instance, α) pairs whose PF-VDS(2α) has Nash residual above 1e-4 at
    α; placements differ above 1e-6.

    Parameters
    ----------
    conditions : pandas.DataFrame
        :func:`equilibrium_conditions`' table.

    Returns
    -------
    dict of str to Measurement
        Claim id → measurement, for :meth:`fairlib.repro.ledger.ClaimLog.measure_all`.

    Raises
    ------
    InvalidInputError
        When ``conditions`` is not a DataFrame, lacks a column or holds something other than a
        number >= 0 in one (naming the row).
    """
    # a variational gap is inf where a usable user holds no task
    as_table(
        conditions,
        "conditions",
        (),
        [
            "left_out",
            "equilibrium_nash_residual",
            "totals_spread",
            "placement_spread",
            "midpoint_nash_residual",
            "equilibrium_variational_gap",
            "equilibrium_least_merit",
            "other_nash_residual",
            "other_variational_gap",
            "other_least_merit",
        ],
        sign=">= 0",
        infinite=True,
    )
    non_eq = conditions[conditions.other_nash_residual > 1e-4]
    differ = conditions[conditions.placement_spread > 1e-6]
    return {
        "theorem1_equilibria_satisfy_eq16": Measurement(
            float(conditions.equilibrium_variational_gap.max()),
            note="largest Nash residual among the equilibria: "
            f"{conditions.equilibrium_nash_residual.max():.1e}; solver runs left out (still "
            f"above Nash residual 1e-6 after continuing): {int(conditions.left_out.sum())} "
            f"of {5 * len(conditions)}",
        ),
        "theorem1_non_equilibria_violate_eq16": Measurement(
            float(non_eq.other_variational_gap.min()) if len(non_eq) else np.nan,
            note=f"{len(non_eq)} non-equilibria of {len(conditions)} (the others: α does not "
            "change the allocation)",
        ),
        "lemma1_merit_zero_at_equilibria": Measurement(
            float(conditions.equilibrium_least_merit.max())
        ),
        "lemma1_merit_positive_elsewhere": Measurement(
            float(non_eq.other_least_merit.min()) if len(non_eq) else np.nan,
            note=f"{len(non_eq)} non-equilibria",
        ),
        "lemma2_midpoints_are_equilibria": Measurement(
            float(differ.midpoint_nash_residual.max()) if len(differ) else np.nan,
            note=f"placements differ between equilibria in {len(differ)} of {len(conditions)} "
            "(instance, α) pairs",
        ),
        "theorem7_totals_unique": Measurement(
            float(conditions.totals_spread.max()),
            note=f"placements differ by up to {conditions.placement_spread.max():.2f} of the "
            f"largest total in {len(differ)} of {len(conditions)} (instance, α) pairs",
        ),
    }


def relative_gap(totals: npt.ArrayLike, reference: npt.ArrayLike) -> float:
    """max |totals − reference| / max reference: how far one solver's per-user totals are from
    another's.

    Parameters
    ----------
    totals, reference : array_like of float, shape (N,)
        Per-user totals of two solvers.

    Returns
    -------
    float
        The gap, relative to the reference's largest total.
    """
    reference = as_values(reference, "reference", ndim=1, sign=">= 0")
    if not reference.size or reference.max() == 0:
        raise InvalidInputError(
            f"reference = {reference.tolist()!r}: needs a positive total to scale the gap by"
        )
    totals = as_values(totals, "totals", ndim=1, sign=">= 0", shape=(len(reference),))
    return float(np.abs(totals - reference).max() / reference.max())


def convergence_findings(exact: Allocation, by_best_response: Allocation) -> dict[str, Measurement]:
    """§5's check on one cluster and α: ``exact`` (interior point) against ``by_best_response``
    (the exact best-response iteration). PS-MFA (§5.1) and the distributed heuristic (§5.2) are
    not judged: their update equations were lost in our copy, so the claims psmfa_decreases_merit
    and distributed_converges are declared not tested (the notebook still runs our [INF]
    reconstructions and says, with :mod:`fairlib.multires.pfvds_stalls`, why they stall).

    Parameters
    ----------
    exact : Allocation
        The interior point's allocation.
    by_best_response : Allocation
        The best-response iteration's allocation on the same cluster and α.

    Returns
    -------
    dict of str to Measurement
        Claim id → measurement, for :meth:`fairlib.repro.ledger.ClaimLog.measure_all`.

    Raises
    ------
    InvalidInputError
        When either is not an allocation (with per-user ``totals``), or their users differ.
    """
    for name, alloc in (("exact", exact), ("by_best_response", by_best_response)):
        if not hasattr(alloc, "totals"):
            raise InvalidInputError(
                f"{name} = {_short(alloc)}: expected an Allocation (with per-user totals)"
            )
    if np.shape(by_best_response.totals) != np.shape(exact.totals):
        raise InvalidInputError(
            f"by_best_response: {by_best_response.totals.size} users, exact "
            f"{exact.totals.size}: not the same cluster"
        )
    return {
        "interior_point_equals_best_responses": Measurement(
            relative_gap(by_best_response.totals, exact.totals)
        )
    }


def one_server_reductions(
    n_instances: int,
    rng: int | np.random.Generator | np.random.SeedSequence | None,
    *,
    n_users: int = 6,
    n_resources: int = 3,
) -> dict[str, Measurement]:
    """§2.2 ("when there is only one server ... TSF reduces to DRF") and §2.3 ("PS-DSF reduces to
    DRF when there is only one server"): on ``n_instances`` random one-server clusters with weights,
    the largest relative difference of TSF's and PS-DSF's task counts from weighted divisible DRF
    (:func:`fairlib.multires.edrf`, progressive filling on the dominant shares).

    Parameters
    ----------
    n_instances : int
        Random clusters, from 1 to :data:`MAX_INSTANCES`.
    rng : int, numpy.random.Generator, numpy.random.SeedSequence or None
        Randomness of the clusters.
    n_users : int, default 6
        Users per cluster, from 1 to :data:`MAX_USERS`.
    n_resources : int, default 3
        Resources per cluster, from 1 to :data:`MAX_RESOURCES`.

    Returns
    -------
    dict of str to Measurement
        Claim id → measurement, for :meth:`fairlib.repro.ledger.ClaimLog.measure_all`.

    Raises
    ------
    InvalidInputError
        When an argument has the wrong type or value, naming it.

    Examples
    --------
    >>> found = one_server_reductions(3, 0)
    >>> sorted(found), all(m.value < 1e-6 for m in found.values())
    (['psdsf_reduces_to_drf_on_one_server', 'tsf_reduces_to_drf_on_one_server'], True)
    """
    from ...multires import edrf, tsf

    n_instances = as_count(n_instances, "n_instances", maximum=MAX_INSTANCES)
    n_users, _, n_resources = _sizes(n_users, 1, n_resources)
    seeds = np.random.SeedSequence(as_rng(rng).integers(2**63)).spawn(int(n_instances))
    worst = {"tsf": 0.0, "psdsf": 0.0}
    for seed in seeds:
        cluster = random_cluster(
            np.random.default_rng(seed),
            n_users,
            1,
            n_resources,
            eligible_fraction=1.0,
            weights=True,
        )
        drf_tasks = edrf(cluster.demand, cluster.capacity[0], weights=cluster.weight).tasks
        for name, run in (("tsf", tsf), ("psdsf", psdsf)):
            tasks = run(cluster).tasks[:, 0]
            worst[name] = max(worst[name], float(np.max(np.abs(tasks - drf_tasks) / drf_tasks)))
    note = (
        f"largest relative difference in task counts over {len(seeds)} weighted one-server clusters"
    )
    return {
        f"{name}_reduces_to_drf_on_one_server": Measurement(value, note=note)
        for name, value in worst.items()
    }


def fds_kkt_residual(
    demand: npt.ArrayLike,
    capacity: npt.ArrayLike,
    tasks: npt.ArrayLike,
    alpha: float,
    *,
    tol: float = 1e-7,
) -> float:
    """How far ``tasks`` is from α-proportional fairness on dominant shares (FDS, Joe-Wong et al.)
    on one server with ``capacity``: the optimum of max Σ_n f_α(x_n s_n) subject to Σ_n x_n d[n]
    <= c, with s_n = max_r d[n, r] / c_r the dominant share of one task and f_α the α-fair utility
    (log at α = 1). The problem is convex, so ``tasks`` is its optimum iff it is feasible and the
    KKT conditions hold: every user's marginal utility g_n = s_n^(1-α) x_n^(-α) equals Σ_r λ_r
    d[n, r] for some λ >= 0 on the saturated resources (every x_n > 0: the marginal is infinite at
    0). Returns the relative residual max_n |Σ_r λ_r d[n, r] − g_n| / max_n g_n of the best such
    λ (non-negative least squares); infinite if ``tasks`` is infeasible or a user gets nothing.

    Parameters
    ----------
    demand : array_like, shape (N, R)
        ``demand[user, resource]`` per task, finite and >= 0.
    capacity : array_like, shape (R,)
        The server's capacity, finite and >= 0, some of it > 0.
    tasks : array_like, shape (N,)
        Tasks per user, finite (a negative count is infeasible); a single row or column is
        flattened.
    alpha : float
        The fairness parameter α, from :data:`~fairlib.multires.cluster.MIN_ALPHA` to
        :data:`~fairlib.multires.cluster.MAX_ALPHA` (PF-VDS's range).
    tol : float, default 1e-7
        Relative slack within which a resource counts as saturated and the allocation as feasible,
        from 1e-15 to 0.1.

    Returns
    -------
    float
        The relative KKT residual (infinite when infeasible, when a user gets nothing, or when
        nothing binds).

    Raises
    ------
    InvalidInputError
        When an argument has the wrong type, shape or value, naming it.

    Examples
    --------
    >>> d, c = np.array([[1.0, 4.0], [3.0, 1.0]]), np.array([9.0, 18.0])
    >>> # pfvds's one-server example
    >>> fds_kkt_residual(d, c, [4.090909090909, 1.636363636364], 1.0) < 1e-9
    True
    >>> # DRF's allocation is not FDS
    >>> fds_kkt_residual(d, c, [3.0, 2.0], 1.0) > 0.1
    True
    """
    from scipy.optimize import nnls

    d = as_values(demand, "demand", ndim=2)
    c = as_values(capacity, "capacity", ndim=1, shape=(d.shape[1],))
    if not (c > 0).any():
        raise InvalidInputError(f"capacity = {c.tolist()}: the server has no capacity")
    x = as_array(tasks, "tasks")
    x = as_values(
        x.reshape(-1) if x.ndim == 2 and 1 in x.shape else x,
        "tasks",
        ndim=1,
        shape=(d.shape[0],),
        sign=None,
    )
    alpha = as_number(alpha, "alpha", minimum=MIN_ALPHA, inclusive=True, maximum=MAX_ALPHA)
    tol = as_tolerance(tol, "tol")
    used = x @ d
    if (x <= 0).any() or (used > c * (1 + tol) + tol).any():
        return float("inf")
    have = c > 0
    s = (d[:, have] / c[have]).max(axis=1)
    g = s ** (1 - alpha) * x ** (-alpha)
    saturated = have & (used >= c * (1 - tol))
    if not saturated.any():
        return float("inf")  # nothing binds: every user could grow
    a, b = d[:, saturated], g / g.max()
    lam, _ = nnls(a, b)
    return float(np.abs(a @ lam - b).max())


def one_server_fds(
    n_instances: int,
    rng: int | np.random.Generator | np.random.SeedSequence | None,
    alphas: Sequence[float] = (0.5, 1.0, 2.0, 4.0),
    *,
    n_users: int = 6,
    n_resources: int = 3,
) -> Measurement:
    """§3 ("PF-VDS reduces to α-proportional FDS when there exists only one server"): on
    ``n_instances`` random unweighted one-server clusters, PF-VDS(α)'s allocation (our interior
    point) checked against FDS's optimality conditions (:func:`fds_kkt_residual`) at each α of
    ``alphas``: the largest relative KKT residual.

    Parameters
    ----------
    n_instances : int
        Random clusters, from 1 to :data:`MAX_INSTANCES`.
    rng : int, numpy.random.Generator, numpy.random.SeedSequence or None
        Randomness of the clusters.
    alphas : iterable of float, default (0.5, 1.0, 2.0, 4.0)
        The α, each from :data:`~fairlib.multires.cluster.MIN_ALPHA` to
        :data:`~fairlib.multires.cluster.MAX_ALPHA`; at least one.
    n_users : int, default 6
        Users per cluster, from 1 to :data:`MAX_USERS`.
    n_resources : int, default 3
        Resources per cluster, from 1 to :data:`MAX_RESOURCES`.

    Returns
    -------
    Measurement
        The largest relative KKT residual, with a note naming where it occurs.

    Raises
    ------
    InvalidInputError
        When an argument has the wrong type or value, naming it.

    Examples
    --------
    >>> one_server_fds(2, 0, alphas=(1.0, 2.0)).value < 1e-6
    True
    """
    n_instances = as_count(n_instances, "n_instances", maximum=MAX_INSTANCES)
    alphas = _alphas(alphas)
    n_users, _, n_resources = _sizes(n_users, 1, n_resources)
    seeds = np.random.SeedSequence(as_rng(rng).integers(2**63)).spawn(int(n_instances))
    worst, where = 0.0, None
    for k, seed in enumerate(seeds):
        cluster = random_cluster(
            np.random.default_rng(seed), n_users, 1, n_resources, eligible_fraction=1.0
        )
        for alpha in alphas:
            x = pfvds(cluster, float(alpha)).tasks[:, 0]
            r = fds_kkt_residual(cluster.demand, cluster.capacity[0], x, float(alpha))
            if r > worst or where is None:
                worst, where = max(worst, r), (k, alpha)
    assert where is not None  # the first instance's first α sets it (n_instances >= 1)
    return Measurement(
        worst,
        note=f"largest relative KKT residual of FDS at PF-VDS(α)'s allocation over {len(seeds)} "
        f"unweighted one-server clusters × α in {{{', '.join(f'{a:g}' for a in alphas)}}} "
        f"(at cluster {where[0]}, α = {where[1]:g})",
    )
