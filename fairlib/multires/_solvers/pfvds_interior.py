"""PF-VDS(α) on heterogeneous servers by a primal-dual interior-point method.

The equilibrium of Problem 1 (Khamse-Ashari et al.; the form is a reconstruction, reconstructions §5.3 [INF]):
on every eligible pair, ŝ[n, i]^-α / γ[n, i] + z[n, i] = λ_i·d_n with z ⊥ x >= 0, and every server's
prices λ_i ⊥ its slack. For α = 1 these are the optimality conditions of

    maximise Σ_n φ_n log x_n,   x_n = Σ_i x[n, i],
    subject to Σ_n d[n, i, k] x[n, i] <= cap[i, k] for every server i and constraint k, x >= 0 on eligible pairs

(Theorem 2). With ``time_shared=True`` the constraints are Problem 2's Σ_n x[n, i]/γ[n, i] <= 1 per server.

Method: Mehrotra predictor-corrector on the variables of the eligible pairs, reduced to the constraint rows
(R per server). The marginals depend on x only through the totals x_n, so the Jacobian is block-diagonal
per user with rank-one blocks (Sherman-Morrison) and the reduced matrix A M⁻¹ Aᵀ is a per-server block
diagonal minus a rank-n_users correction: one dense product (n_rows x n_users x n_rows) and one
factorisation of an n_rows x n_rows matrix per iteration, whatever the number of pairs (Cholesky for α = 1,
where the system is symmetric; LU otherwise). Rows are scaled by their capacity. Safeguards: iterative
refinement, backtracking on the residual of the centred system, continuation in α (see
:func:`pfvds_interior_point`). Stopping: primal and dual residuals and the complementarity gap all below
``tol`` (for α = 1 the gap bounds the objective's distance to the optimum, in units of Σφ).
"""

from __future__ import annotations

import warnings
from dataclasses import replace

import numpy as np
import scipy.linalg
from numba import njit

from ..._validate import InvalidInputError
from ..cluster import Allocation, Cluster, per_server_alpha
from .pair_kernels import column_products, one_blas_thread, row_products, user_sums

__all__ = ["pfvds_interior_point"]


@njit(cache=True)
def _solve_m(b, d_inv, pair_user, u, beta):
    """M⁻¹ b with M = diag(1/d_inv) + blockdiag_n(u_n 1ᵀ) (Sherman-Morrison per user; β_n = 1/(1 + 1ᵀD⁻¹u_n))."""
    n_users = beta.shape[0]
    sums = np.zeros(n_users)
    for p in range(b.shape[0]):
        sums[pair_user[p]] += d_inv[p] * b[p]
    out = np.empty(b.shape[0])
    for p in range(b.shape[0]):
        n = pair_user[p]
        out[p] = d_inv[p] * (b[p] - u[p] * beta[n] * sums[n])
    return out


@njit(cache=True)
def _reduced_matrix_parts(d_inv, u, pair_user, pair_rows, coef, n_users, n_rows):
    """A D⁻¹ Aᵀ (dense; nonzero only in per-server blocks), V1[n, row] = Σ_{p of n} a_p / D_p and
    Vu[n, row] = Σ_{p of n} a_p u_p / D_p, for the coefficients a (``coef``)."""
    kk = coef.shape[1]
    diag_part = np.zeros((n_rows, n_rows))
    v1 = np.zeros((n_users, n_rows))
    vu = np.zeros((n_users, n_rows))
    for p in range(coef.shape[0]):
        n = pair_user[p]
        for k in range(kk):
            rk = pair_rows[p, k]
            if rk < 0:
                continue
            ak = coef[p, k] * d_inv[p]
            v1[n, rk] += ak
            vu[n, rk] += ak * u[p]
            for l in range(kk):
                if pair_rows[p, l] >= 0:
                    diag_part[rk, pair_rows[p, l]] += ak * coef[p, l]
    return diag_part, v1, vu


@njit(cache=True)
def _marginals(totals, pair_user, log_coef, pair_alpha):
    """g_p = κ_i ŝ^-α/γ = exp(log_coef_p - α_p log x_n) and u_p = -∂g_p/∂x_n = α_p g_p / x_n."""
    g = np.empty(pair_user.shape[0])
    u = np.empty(pair_user.shape[0])
    for p in range(pair_user.shape[0]):
        t = totals[pair_user[p]]
        g[p] = np.exp(log_coef[p] - pair_alpha[p] * np.log(t))
        u[p] = pair_alpha[p] * g[p] / t
    return g, u


def _max_step(v, dv):
    """Largest t <= 1 keeping v + t dv >= 0."""
    neg = dv < 0
    if not neg.any():
        return 1.0
    return float(min(1.0, np.min(-v[neg] / dv[neg])))


def _alphas_per_server(cluster: Cluster, alpha) -> np.ndarray:
    arr = per_server_alpha(cluster, alpha)
    if np.isinf(arr).any():
        i = int(np.argmax(np.isinf(arr)))
        raise InvalidInputError(f"alpha[{i}] = {arr[i]}: the interior-point method needs a finite α > 0 "
                                "(α = ∞ is PS-DSF: use psdsf)")
    return arr


_STALL_ITERATIONS = 20  # iterations without a smaller residual before a stage gives up
_BACKTRACKS = 30
_DIRECT_ALPHA = 2.0  # above this, start from the solution at half the α (continuation)


def pfvds_interior_point(cluster: Cluster, alpha=1.0, *, time_shared: bool = False, tol: float = 1e-10,
                         max_iterations: int = 200) -> Allocation:
    """PF-VDS(α) by a primal-dual interior-point method on the equilibrium conditions of Problem 1.

    Every server's KKT conditions together — ŝ[n, i]^-α / γ[n, i] + z[n, i] = λ_i·d_n on eligible pairs,
    z ⊥ x, λ_i ⊥ slack — form one complementarity problem; for α = 1 they are the optimality conditions
    of max Σ_n φ_n log x_n (Theorem 2). Each Newton step is reduced to the constraint rows: the marginals
    depend on x only through the totals x_n, so the Jacobian is block-diagonal per user with rank-one
    blocks (Sherman-Morrison), and the reduced matrix is a per-server block diagonal minus a rank-n_users
    correction (one dense product). Each server's utility is rescaled by a constant (which leaves its
    best responses, hence the equilibrium, unchanged) so the marginals start near 1. For α > 2 the
    marginals span many orders of magnitude at a neutral start, so the method follows a continuation
    (α capped at 2, 4, 8, ...), each stage starting from the previous stage's allocation; the
    diagnostics report the stages. Beyond α ≈ 16 stages may stop short (``converged`` False): x^-α is
    then beyond the method's reach, and :func:`.pfvds.pfvds` finishes with best responses.

    Parameters
    ----------
    cluster : :class:`~fairlib.multires.cluster.Cluster`.
    alpha : finite α > 0, or one value per server (heterogeneous objectives).
    time_shared : Problem 2's per-server constraint Σ_n x[n, i]/γ[n, i] <= 1 instead of the capacities.
    tol : stopping tolerance on the scaled primal and dual residuals and on the complementarity gap
        relative to Σ x·marginal (for α = 1: the duality gap in units of Σφ, an upper bound on the
        objective's distance to the optimum).
    max_iterations : iteration cap; ``diagnostics["converged"]`` says whether ``tol`` was reached.

    Returns
    -------
    ServerAllocation (``mechanism="pfvds"``); diagnostics ``iterations``, ``converged``, ``gap``,
    ``primal_residual``, ``dual_residual``, ``prices[server, k]`` (each server's multipliers, in units
    of its unscaled utility per unit of constraint). Tasks are scaled to satisfy every constraint exactly.

    Examples
    --------
    One server, α = 1: max log x_0 + log x_1 subject to x_0 + 3 x_1 <= 9 and 4 x_0 + x_1 <= 18:

    >>> pfvds_interior_point(Cluster([[9, 18]], [[1, 4], [3, 1]])).tasks.round(6).ravel().tolist()
    [4.090909, 1.636364]
    """
    if not isinstance(cluster, Cluster):
        raise InvalidInputError(f"cluster: expected a Cluster, got {type(cluster).__name__}")
    alphas = _alphas_per_server(cluster, alpha)
    if not (np.isfinite(tol) and tol > 0):
        raise InvalidInputError(f"tol = {tol}: must be a positive finite number")
    if isinstance(max_iterations, bool) or not isinstance(max_iterations, (int, np.integer)) or max_iterations < 1:
        raise InvalidInputError(f"max_iterations = {max_iterations!r}: must be an integer >= 1")
    cap_level = _DIRECT_ALPHA
    start = None
    stages = []
    while True:
        stage_alphas = np.minimum(alphas, cap_level)
        with one_blas_thread():
            result = _interior_point(cluster, stage_alphas, time_shared, tol, int(max_iterations), start)
        stages.append((float(stage_alphas.max()), result.diagnostics["iterations"], result.diagnostics["converged"]))
        if cap_level >= alphas.max() or not result.diagnostics["converged"]:
            break
        start = result.tasks
        cap_level *= 2.0
    return replace(result, iterations=sum(it for _, it, _ in stages), extras={**result.extras, "stages": stages})


def _interior_point(cluster, alphas, time_shared, tol, max_iterations, start):
    d3, cap = cluster.server_constraints(time_shared)
    n_users, n_servers = cluster.n_users, cluster.n_servers
    kk = cap.shape[1]
    pair_user, pair_server = np.nonzero(cluster.eligible)
    pair_user = pair_user.astype(np.int64)
    pair_server = pair_server.astype(np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.where(cap > 0, 1.0 / cap, 0.0)  # a zero-capacity row only meets ineligible pairs
    coef = np.ascontiguousarray(d3[pair_user, pair_server, :] * scale[pair_server])
    n_pairs = len(pair_user)
    # Only rows some pair loads enter the system (a vacuous row would make it singular).
    full_rows = pair_server[:, None] * kk + np.arange(kk)[None, :]
    active = np.zeros(n_servers * kk, dtype=bool)
    active[full_rows[coef > 0]] = True
    row_index = np.cumsum(active) - 1
    pair_rows = np.ascontiguousarray(np.where(coef > 0, row_index[full_rows], -1).astype(np.int64))
    n_rows = int(active.sum())
    pair_alpha = alphas[pair_server]
    log_phi = np.log(cluster.weight)[pair_user]
    log_gamma = np.log(cluster.gamma[pair_user, pair_server])
    log_coef = pair_alpha * (log_phi + log_gamma) - log_gamma  # log of ŝ^-α/γ · x_n^α
    symmetric = bool((alphas == 1.0).all())

    # Start: an interior primal point at half load; per-server utility scales making its marginals ~1.
    per_pair_load = row_products(np.ones(n_pairs), pair_rows, coef, n_rows)
    x = np.full(n_pairs, 0.5 / max(per_pair_load.max(), 1e-300))
    if start is not None:  # pulled inside: 10% of the way to the neutral point
        x = 0.9 * start[pair_user, pair_server] + 0.2 * x
    s = 1.0 - row_products(x, pair_rows, coef, n_rows)
    log_g0 = log_coef - pair_alpha * np.log(user_sums(x, pair_user, n_users))[pair_user]
    log_kappa = np.zeros(n_servers)
    if symmetric:  # one scale for all servers keeps the α = 1 system symmetric (the Hessian of Σφ log x_n)
        log_kappa[:] = -np.median(log_g0) if n_pairs else 0.0
    else:
        for i in np.unique(pair_server):
            log_kappa[i] = -np.median(log_g0[pair_server == i])
    log_coef = log_coef + log_kappa[pair_server]
    grad, _ = _marginals(user_sums(x, pair_user, n_users), pair_user, log_coef, pair_alpha)
    y = np.full(n_rows, grad.mean() / max(coef.sum(axis=1).mean(), 1e-300))
    z = grad.copy()
    n_comp = n_pairs + n_rows

    converged = False
    it = 0
    gap = primal_res = dual_res = np.inf
    best = (np.inf, x, y, gap, gap, gap)
    stalled = 0
    # Overflow or a singular reduced matrix (very large α) ends the stage with the best iterate so far.
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", scipy.linalg.LinAlgWarning)
        for it in range(1, int(max_iterations) + 1):
            totals = user_sums(x, pair_user, n_users)
            grad, u = _marginals(totals, pair_user, log_coef, pair_alpha)
            if not (np.isfinite(grad).all() and np.isfinite(u).all()):
                break  # marginals beyond floating point (very large α): keep the best iterate
            r_d = grad - column_products(y, pair_rows, coef) + z
            r_p = row_products(x, pair_rows, coef, n_rows) + s - 1.0
            gap = float(x @ z + s @ y) / max(float(x @ grad), 1e-300)
            primal_res = float(np.abs(r_p).max())
            dual_res = float(np.abs(r_d).max() / grad.max())
            merit = max(primal_res, dual_res, gap)
            if merit < best[0]:
                stalled = 0
                best = (merit, x.copy(), y.copy(), primal_res, dual_res, gap)
            else:
                stalled += 1
            if stalled > _STALL_ITERATIONS:
                break
            if merit <= tol:
                converged = True
                break
            mu = float(x @ z + s @ y) / n_comp
            d_inv = x / z
            beta = 1.0 / (1.0 + user_sums(d_inv * u, pair_user, n_users))
            reduced, v1, vu = _reduced_matrix_parts(d_inv, u, pair_user, pair_rows, coef, n_users,
                                                    n_rows)
            reduced -= (vu.T * beta) @ v1
            reduced[np.diag_indices(n_rows)] += s / y
            if symmetric:
                try:
                    factor = scipy.linalg.cho_factor(reduced, check_finite=False)
                    solve = scipy.linalg.cho_solve
                except np.linalg.LinAlgError:
                    symmetric = False
            if not symmetric:
                factor = scipy.linalg.lu_factor(reduced, check_finite=False)
                solve = scipy.linalg.lu_solve

            def newton_solve(rd, rp, r_xz, r_sy):
                b1 = rd - r_xz / x
                w = _solve_m(b1, d_inv, pair_user, u, beta)
                dy = solve(factor, row_products(w, pair_rows, coef, n_rows) + rp - r_sy / y, check_finite=False)
                dx = _solve_m(b1 - column_products(dy, pair_rows, coef), d_inv, pair_user, u, beta)
                return dx, dy, (-r_xz - z * dx) / x, (-r_sy - s * dy) / y

            def direction(r_xz, r_sy):
                # The reduced matrix loses accuracy as complementarity -> 0: one round of iterative refinement
                # on the unreduced Newton equations keeps the direction exact to working precision.
                dx, dy, dz, ds = newton_solve(r_d, r_p, r_xz, r_sy)
                h_dx = u * user_sums(dx, pair_user, n_users)[pair_user]
                e_d = -h_dx - column_products(dy, pair_rows, coef) + dz + r_d
                e_p = row_products(dx, pair_rows, coef, n_rows) + ds + r_p
                e_xz = z * dx + x * dz + r_xz
                e_sy = y * ds + s * dy + r_sy
                cx, cy, cz, cs = newton_solve(e_d, e_p, e_xz, e_sy)
                return dx + cx, dy + cy, dz + cz, ds + cs

            dx, dy, dz, ds = direction(x * z, s * y)  # affine-scaling predictor
            t = min(_max_step(x, dx), _max_step(z, dz), _max_step(s, ds), _max_step(y, dy))
            mu_aff = ((x + t * dx) @ (z + t * dz) + (s + t * ds) @ (y + t * dy)) / n_comp
            sigma = min((mu_aff / mu) ** 3, 1.0)
            target = sigma * mu

            def residual(xt, yt, zt, st):
                gt, _ = _marginals(user_sums(xt, pair_user, n_users), pair_user, log_coef, pair_alpha)
                return np.sqrt(np.sum((gt - column_products(yt, pair_rows, coef) + zt) ** 2)
                               + np.sum((row_products(xt, pair_rows, coef, n_rows) + st - 1.0) ** 2)
                               + np.sum((xt * zt - target) ** 2) + np.sum((st * yt - target) ** 2))

            # Mehrotra's corrector, globalised: the marginals' curvature (x_n^-α) can make full Newton steps
            # overshoot, so steps are backtracked until the residual of the centred system decreases, with
            # plain Newton on the centred system as the fallback direction when the corrector's does not.
            here = residual(x, y, z, s)
            for dx, dy, dz, ds in (direction(x * z + dx * dz - target, s * y + ds * dy - target),
                                   direction(x * z - target, s * y - target)):
                if not all(np.isfinite(v).all() for v in (dx, dy, dz, ds)):
                    continue
                t = 0.99 * min(_max_step(x, dx), _max_step(z, dz), _max_step(s, ds), _max_step(y, dy))
                for _ in range(_BACKTRACKS):
                    if residual(x + t * dx, y + t * dy, z + t * dz, s + t * ds) <= (1.0 - 1e-4 * t) * here:
                        break
                    t *= 0.5
                else:
                    continue
                break
            else:
                break  # no direction reduces the residual: keep the best iterate
            x += t * dx
            y += t * dy
            z += t * dz
            s += t * ds

    _, x, y, primal_res, dual_res, gap = best  # the iterate with the smallest residuals
    load = row_products(x, pair_rows, coef, n_rows)
    x = x / max(1.0, float(load.max()))  # exact feasibility (a change of the order of the primal residual)
    tasks = np.zeros((n_users, n_servers))
    tasks[pair_user, pair_server] = x
    y_full = np.zeros(n_servers * kk)
    y_full[active] = y
    prices = y_full.reshape(n_servers, kk) * scale * np.exp(-log_kappa)[:, None]
    return Allocation.from_diagnostics(cluster, tasks, "pfvds", {
        "iterations": it, "converged": converged, "gap": gap, "primal_residual": primal_res,
        "dual_residual": dual_res, "prices": prices, "alpha": alphas, "time_shared": time_shared,
        "method": "interior_point"})
