"""Optimality conditions of Problem 1 checked directly (Khamse-Ashari et al. §3–4: Theorem 1,
Lemma 1, Lemma 2, Theorem 7), independently of the solvers that produce an equilibrium.

- :func:`variational_gap` — Definition 6 / eq. (16): x is PF-VDS iff, on every server i and for
  every feasible x', Σ_n (x'[n, i] - x[n, i]) / (γ[n, i] ŝ[n, i]^α) <= 0. The largest left-hand
  side over x' is a linear program per server (HiGHS); Theorem 1 says it is <= 0 exactly at the Nash
  equilibria of Problem 1.
- :func:`server_multipliers` and :func:`least_merit` — Lemma 1: x solves the NCP (28)–(31) iff
  Ψ(x, λ) = 0 for some admissible λ (λ >= 0, zero on unsaturated resources, eq. 40). The
  multipliers come from non-negative least squares on the pairs with x[n, i] > 0; Ψ is then
  minimised over λ.
- :func:`random_feasible_start` — a random feasible placement, to start best responses elsewhere
  (Theorem 7: the totals x_n are unique although placements need not be).

The equations are reconstructions ([INF], reconstructions §5.3–5.4).
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize, nnls

from ..._scaled_lp import scaled_linprog
from ..._validate import InvalidInputError, _short, as_instance, as_rng
from ..cluster import Cluster, per_server_alpha
from ._psmfa import merit
from ..checks.server_properties import checked_allocation

__all__ = [
    "marginal_utilities",
    "variational_gap",
    "saturated_resources",
    "server_multipliers",
    "least_merit",
    "random_feasible_start",
]

#: a resource counts as saturated on a server when its load is within this fraction of the capacity
SATURATED = 1e-7


def marginal_utilities(cluster: Cluster, tasks, alpha) -> np.ndarray:
    """∂U_i/∂x[n, i] = ŝ[n, i]^-α / γ[n, i] on usable pairs (eqs. 59–60), 0 elsewhere; +inf
    where a usable user has no task at all (its marginal utility is unbounded).

    Parameters
    ----------
    cluster : Cluster
        The instance.
    tasks : (N, K) array_like
        Tasks per (user, server).
    alpha : float or (K,) array_like
        α > 0 (one per server, or one for all).

    Returns
    -------
    (N, K) ndarray
        ŝ^-α/γ on usable pairs, 0 elsewhere.
    """
    as_instance(cluster, Cluster, "cluster")
    x = checked_allocation(cluster, tasks)
    alphas = per_server_alpha(cluster, alpha)
    if np.isinf(alphas).any():
        raise InvalidInputError(
            f"alpha = {_short(alpha)}: finite values only (α = ∞ is PS-DSF, Definition 4, whose "
            "conditions these are not)"
        )
    vds = cluster.vds(x.sum(axis=1))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        g = vds ** (-alphas[None, :]) / cluster.gamma
    return np.where(cluster.eligible, g, 0.0)


def variational_gap(cluster: Cluster, tasks, alpha, *, time_shared: bool = False) -> float:
    """Largest left-hand side of eq. (16) over feasible x', relative to Σ_n x[n, i] g[n, i], maxed
    over the servers (0 at a PF-VDS allocation, > 0 elsewhere; +inf when a usable user has no task
    at all). ``time_shared``: x' ranges over Problem 2's constraints (Σ_n x'[n, i]/γ[n, i] <= 1)
    instead.

    With per-user caps (``cluster.max_tasks``) the feasible set couples the servers (Σ_i x'[n, i]
    <= cap_n), so eq. (16) is taken over all servers at once — one linear program, relative to
    Σ_{n, i} x[n, i] g[n, i] — and 0 characterises the *variational* equilibrium of the capped
    game (every server charges a capped user the same cap price; our modelling choice, see
    :mod:`.pfvds`); a user capped at 0 holds nothing and is left out.

    >>> from fairlib.multires import pfvds
    >>> c = Cluster([[9, 18]], [[1, 4], [3, 1]])
    >>> (
    ...     variational_gap(c, pfvds(c, 1.0).tasks, 1.0) < 1e-8,
    ...     variational_gap(c, [[3.0], [2.0]], 1.0) > 1e-3,
    ... )
    (True, True)

    Parameters
    ----------
    cluster : Cluster
        The instance.
    tasks : (N, K) array_like
        Tasks per (user, server).
    alpha : float or (K,) array_like
        α > 0 (one per server, or one for all).
    time_shared : bool
        Problem 2: each server's one constraint Σ_n x[n, i]/γ[n, i] <= 1.

    Returns
    -------
    float
        The relative gap, 0 at the (variational) equilibrium.
    """
    as_instance(cluster, Cluster, "cluster")
    x = checked_allocation(cluster, tasks)
    g = marginal_utilities(cluster, x, alpha)
    d3, cap = cluster.server_constraints(time_shared)  # refuses a time_shared not a bool, by name
    playing = cluster.eligible & (cluster.max_tasks > 0)[:, None]
    if np.isinf(g[playing]).any():
        return float("inf")
    if cluster.capped:
        return _capped_variational_gap(cluster, x, g, d3, cap, playing, alpha)
    worst = 0.0
    for i in range(cluster.n_servers):
        users = np.flatnonzero(cluster.eligible[:, i])
        if users.size == 0:
            continue
        res = cap[i] > 0
        # max g·x' subject to Σ_n d[n, r] x'_n <= c[i, r], x' >= 0 (HiGHS minimises, hence the
        # sign); the marginals x^-α span many orders of magnitude at large α (α = 73: 1e69 beside
        # 1): in units of the largest; a user's tasks in the tasks it could run alone there
        unit = float(g[users, i].max())
        if unit <= 0:
            continue
        lp = scaled_linprog(
            -g[users, i] / unit,
            unit=cluster.gamma[users, i],
            A_ub=d3[users, i][:, res].T,
            b_ub=cap[i, res],
            bounds=(0, None),
        )
        if lp.status != 0:
            raise RuntimeError(
                f"server {i}: HiGHS did not solve the eq. (16) program at alpha = {_short(alpha)}: "
                f"{lp.message}"
            )
        current = float(g[users, i] @ x[users, i]) / unit
        worst = max(worst, (-lp.fun - current) / max(current, 1e-300))
    return worst


def _capped_variational_gap(cluster, x, g, d3, cap, playing, alpha) -> float:
    """eq. (16) over the capped feasible set of every server at once: max Σ g x' subject to each
    server's constraints and each capped user's Σ_i x'[n, i] <= cap_n (one sparse LP), minus Σ g
    x, relative to Σ g x."""
    from scipy.sparse import coo_matrix

    users, servers = np.nonzero(playing)
    if users.size == 0:  # every user capped at 0
        return 0.0
    n_constraints = cap.shape[1]
    rows, cols, vals = [], [], []
    for k in range(n_constraints):
        coef = d3[users, servers, k]
        on = (coef > 0) & (cap[servers, k] > 0)
        rows.append(servers[on] * n_constraints + k)
        cols.append(np.flatnonzero(on))
        vals.append(coef[on])
    capped = np.isfinite(cluster.max_tasks[users])
    cap_row = cluster.n_servers * n_constraints + np.cumsum(np.isfinite(cluster.max_tasks)) - 1
    rows.append(cap_row[users[capped]])
    cols.append(np.flatnonzero(capped))
    vals.append(np.ones(int(capped.sum())))
    bound = np.concatenate([cap.ravel(), cluster.max_tasks[np.isfinite(cluster.max_tasks)]])
    a_ub = coo_matrix(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
        shape=(len(bound), len(users)),
    ).tocsr()
    # the marginals span many orders of magnitude at large α: the objective in units of the largest
    unit = float(g[users, servers].max())
    lp = scaled_linprog(
        -g[users, servers] / unit,
        unit=cluster.gamma[users, servers],
        A_ub=a_ub,
        b_ub=bound,
        bounds=(0, None),
    )
    if lp.status != 0:
        raise RuntimeError(
            f"HiGHS did not solve eq. (16) over the capped set at alpha = {_short(alpha)}: "
            f"{lp.message}"
        )
    current = float(g[users, servers] @ x[users, servers]) / unit
    return max(0.0, (-lp.fun - current) / max(current, 1e-300))


def saturated_resources(cluster: Cluster, tasks) -> np.ndarray:
    """``saturated[server, resource]``: the load is within :data:`SATURATED` of a positive capacity
    (eq. 44).

    Parameters
    ----------
    cluster : Cluster
        The instance.
    tasks : (N, K) array_like
        Tasks per (user, server).

    Returns
    -------
    (K, R) bool ndarray
        Whether each server's resource is saturated.
    """
    as_instance(cluster, Cluster, "cluster")
    return (cluster.load(checked_allocation(cluster, tasks)) >= 1 - SATURATED) & (
        cluster.capacity > 0
    )


def server_multipliers(cluster: Cluster, tasks, alpha) -> np.ndarray:
    """``λ[server, resource]`` >= 0, zero on unsaturated resources (eq. 40), fitted by non-negative
    least squares to the stationarity conditions Σ_r λ[i, r] d[n, r] = g[n, i] of the pairs with
    x[n, i] > 0 (eqs. 25–27), each row scaled by 1/g[n, i]. Exact at an equilibrium whose
    multipliers are unique.

    Parameters
    ----------
    cluster : Cluster
        The instance.
    tasks : (N, K) array_like
        Tasks per (user, server).
    alpha : float or (K,) array_like
        α > 0 (one per server, or one for all).

    Returns
    -------
    (K, R) ndarray
        The multipliers λ[i, r].
    """
    as_instance(cluster, Cluster, "cluster")
    x = checked_allocation(cluster, tasks)
    g = marginal_utilities(cluster, x, alpha)
    sat = saturated_resources(cluster, x)
    lam = np.zeros((cluster.n_servers, cluster.n_resources))
    for i in range(cluster.n_servers):
        pos = np.flatnonzero(cluster.eligible[:, i] & (x[:, i] > 0) & np.isfinite(g[:, i]))
        rs = np.flatnonzero(sat[i])
        if pos.size == 0 or rs.size == 0:
            continue
        scale = 1.0 / g[pos, i]
        lam[i, rs] = nnls(cluster.demand[np.ix_(pos, rs)] * scale[:, None], np.ones(pos.size))[0]
    return lam


def least_merit(cluster: Cluster, tasks, alpha) -> float:
    """min over admissible λ of the Fischer–Burmeister merit Ψ(x, λ)
    (:func:`fairlib.multires.pfvds.merit`): λ >= 0 and λ[i, r] = 0 on unsaturated resources (eq.
    40), started from :func:`server_multipliers`. Lemma 1: 0 exactly at a solution of the NCP
    (28)–(31), i.e. at a PF-VDS allocation.

    Parameters
    ----------
    cluster : Cluster
        The instance.
    tasks : (N, K) array_like
        Tasks per (user, server).
    alpha : float or (K,) array_like
        α > 0 (one per server, or one for all).

    Returns
    -------
    float
        The least Ψ(x, λ) over admissible λ.
    """
    as_instance(cluster, Cluster, "cluster")
    x = checked_allocation(cluster, tasks)
    alphas = per_server_alpha(cluster, alpha)
    lam0 = server_multipliers(cluster, x, alphas)
    free = saturated_resources(cluster, x)
    best = merit(cluster, x, lam0, alphas)
    if not free.any() or best == 0.0:
        return float(best)

    def psi(v):
        lam = np.zeros_like(lam0)
        lam[free] = v
        return merit(cluster, x, lam, alphas)

    res = minimize(
        psi,
        lam0[free],
        method="L-BFGS-B",
        bounds=[(0, None)] * int(free.sum()),
        options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 500},
    )
    return float(min(best, res.fun))


def random_feasible_start(rng, cluster: Cluster) -> np.ndarray:
    """Uniform random tasks on the usable pairs, each server's column scaled to fill its tightest
    resource.

    Parameters
    ----------
    rng : int or numpy.random.Generator
        The random source.
    cluster : Cluster
        The instance.

    Returns
    -------
    (N, K) ndarray
        A feasible allocation.
    """
    as_instance(cluster, Cluster, "cluster")
    rng = as_rng(rng)
    x = np.where(cluster.eligible, rng.random((cluster.n_users, cluster.n_servers)), 0.0)
    load = cluster.load(x).max(axis=1)
    return x / np.where(load > 0, load, 1.0)[None, :]
