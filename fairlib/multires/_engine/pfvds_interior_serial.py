"""The interior-point iteration of :mod:`.pfvds_interior` on one thread, as one compiled loop.

A small cluster (the property tables' 6 users on 3 servers, a few dozen pairs) costs the interior
point a few microseconds of arithmetic per Newton step and hundreds of microseconds of interpreter
overhead: every step makes some fifty numpy calls on arrays of a few dozen entries, and a capped
PF-VDS solve takes about fifty stages of a dozen steps each. :func:`iterate` runs the whole loop of
:func:`.pfvds_interior._iterate` (residuals, Newton system, Mehrotra's predictor-corrector with its
backtracking) inside one kernel, with the same equations in the same order;
:func:`.pfvds_interior._iterate` stays the reference (``tests/test_pfvds_interior.py`` compares the
two). The reduced matrix (a few rows per server) is factorised here by an unblocked Cholesky or an
LU with partial pivoting, the algorithms LAPACK applies to so small a matrix, so the two paths
differ by rounding only.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..._jit import njit
from . import pfvds_parallel as parallel
from .pair_kernels import column_products, row_products, user_sums

__all__ = ["StageLimits", "solve_m", "reduced_matrix_parts", "pair_marginals", "iterate"]


class StageLimits(NamedTuple):
    """The stopping rule of one interior-point stage, passed to :func:`iterate` as one argument
    (numba compiles it as a tuple of scalars; the wrapper builds it by name, so two limits cannot
    trade places at the call).

    Parameters
    ----------
    tol : float
        Stopping tolerance on the largest of the scaled primal and dual residuals and the gap.
    max_iterations : int
        Iteration cap.
    stall_iterations : int
        Iterations without a smaller residual before the stage gives up.
    backtracks : int
        Halvings of a step before its direction is abandoned.
    """

    tol: float
    max_iterations: int
    stall_iterations: int
    backtracks: int


@njit(cache=True)
def solve_m(b, d_inv, pair_user, u, beta):
    """M⁻¹ b with M = diag(1/d_inv) + blockdiag_n(u_n 1ᵀ) (Sherman-Morrison per user; β_n =
    1/(1 + 1ᵀD⁻¹u_n)).

    Parameters
    ----------
    b : float64 (n_pairs,)
        Right-hand side per pair.
    d_inv : float64 (n_pairs,)
        D⁻¹ = x / z per pair.
    pair_user : int64 (n_pairs,)
        Each pair's user (non-decreasing).
    u : float64 (n_pairs,)
        u_p = -∂g_p/∂x_n, the marginals' slope in the user's total.
    beta : float64 (n_users,)
        β_n = 1/(1 + Σ_p d_inv u) per user.
    """
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
def reduced_matrix_parts(d_inv, u, pair_user, pair_rows, coef, price_coef, n_users, n_rows):
    """A D⁻¹ Pᵀ (dense; nonzero only in per-server blocks and cap rows), V1[n, row] = Σ_{p of
    n} b_p / D_p and Vu[n, row] = Σ_{p of n} a_p u_p / D_p, for the load coefficients a (``coef``)
    and the price coefficients b (``price_coef``: equal to ``coef`` except on cap rows, see
    :func:`.pfvds_interior._starting_point`).

    Parameters
    ----------
    d_inv : float64 (n_pairs,)
        D⁻¹ = x / z per pair.
    u : float64 (n_pairs,)
        u_p = -∂g_p/∂x_n, the marginals' slope in the user's total.
    pair_user : int64 (n_pairs,)
        Each pair's user (non-decreasing).
    pair_rows : int64 (n_pairs, k)
        The constraint rows each pair loads, padded with -1.
    coef : float64 (n_pairs, k)
        Load coefficients a of those rows.
    price_coef : float64 (n_pairs, k)
        Price coefficients b of those rows (a except on cap rows).
    n_users : int
        Number of users.
    n_rows : int
        Number of constraint rows.
    """
    diag_part = np.zeros((n_rows, n_rows))
    v1 = np.zeros((n_users, n_rows))
    vu = np.zeros((n_users, n_rows))
    for p in range(coef.shape[0]):
        parallel.add_pair_terms(
            p, pair_user[p], pair_rows, coef, price_coef, d_inv, u, diag_part, v1, vu
        )
    return diag_part, v1, vu


@njit(cache=True)
def pair_marginals(totals, pair_user, log_coef, pair_alpha):
    """g_p = κ_i ŝ^-α/γ = exp(log_coef_p - α_p log x_n) and u_p = -∂g_p/∂x_n = α_p g_p /
    x_n.

    Parameters
    ----------
    totals : float64 (n_users,)
        Each user's total tasks.
    pair_user : int64 (n_pairs,)
        Each pair's user (non-decreasing).
    log_coef : float64 (n_pairs,)
        log of each pair's marginal coefficient (server scale κ_i included).
    pair_alpha : float64 (n_pairs,)
        α of each pair's server.
    """
    g = np.empty(pair_user.shape[0])
    u = np.empty(pair_user.shape[0])
    for p in range(pair_user.shape[0]):
        t = totals[pair_user[p]]
        if t <= 0.0:
            # a trial step that empties a user (x + t dx hits 0 exactly): infinite marginal,
            # rejected
            g[p] = np.inf
            u[p] = np.inf
            continue
        g[p] = np.exp(log_coef[p] - pair_alpha[p] * np.log(t))
        u[p] = pair_alpha[p] * g[p] / t
    return g, u


@njit(cache=True, error_model="numpy")
def _cholesky(a):
    """Lower L with L Lᵀ = a (a symmetric; its lower triangle is read), and whether a is positive
    definite.

    Parameters
    ----------
    a : float64 (m, m)
        Symmetric matrix (its lower triangle is read).
    """
    n = a.shape[0]
    low = np.zeros((n, n))
    for j in range(n):
        acc = a[j, j]
        for k in range(j):
            acc -= low[j, k] * low[j, k]
        if not acc > 0.0:  # not positive definite, or not a number
            return low, False
        low[j, j] = np.sqrt(acc)
        for i in range(j + 1, n):
            acc = a[i, j]
            for k in range(j):
                acc -= low[i, k] * low[j, k]
            low[i, j] = acc / low[j, j]
    return low, True


@njit(cache=True, error_model="numpy")
def _back_substitute(upper, w):
    """``w`` overwritten by upper⁻¹ w (``upper`` upper triangular): the last step of the LU solve.

    Parameters
    ----------
    upper : float64 (m, m)
        Upper triangular matrix (only its upper triangle is read).
    w : float64 (m,)
        Right-hand side, overwritten by the solution.
    """
    n = w.shape[0]
    for i in range(n - 1, -1, -1):
        for k in range(i + 1, n):
            w[i] -= upper[i, k] * w[k]
        w[i] /= upper[i, i]


@njit(cache=True, error_model="numpy")
def _back_substitute_transposed(lower, w):
    """``w`` overwritten by (lowerᵀ)⁻¹ w (``lower`` lower triangular): the last step of the
    Cholesky solve. ``lower`` is read transposed in place: passing ``lower.T`` (a Fortran-ordered
    view) to :func:`_back_substitute` would compile it a second time, and a flag argument would
    too (numba compiles once per literal value).

    Parameters
    ----------
    lower : float64 (m, m)
        Lower triangular matrix (only its lower triangle is read).
    w : float64 (m,)
        Right-hand side, overwritten by the solution.
    """
    n = w.shape[0]
    for i in range(n - 1, -1, -1):
        for k in range(i + 1, n):
            w[i] -= lower[k, i] * w[k]
        w[i] /= lower[i, i]


@njit(cache=True, error_model="numpy")
def _cholesky_solve(low, b):
    """a⁻¹ b from a's lower Cholesky factor.

    Parameters
    ----------
    low : float64 (m, m)
        Lower Cholesky factor.
    b : float64 (m,)
        Right-hand side.
    """
    n = b.shape[0]
    w = b.copy()
    for i in range(n):
        for k in range(i):
            w[i] -= low[i, k] * w[k]
        w[i] /= low[i, i]
    _back_substitute_transposed(low, w)
    return w


@njit(cache=True, error_model="numpy")
def _lu(a):
    """a = P L U with partial pivoting (LAPACK's getrf unblocked): the factors in one matrix and the
    row swaps. A zero pivot is kept (the solves then give non-finite directions, which the step
    rejects), as getrf's is.

    Parameters
    ----------
    a : float64 (m, m)
        The matrix to factorise.
    """
    n = a.shape[0]
    lu = a.copy()
    piv = np.arange(n)
    for j in range(n):
        p = j
        for i in range(j + 1, n):
            if abs(lu[i, j]) > abs(lu[p, j]):
                p = i
        piv[j] = p
        if p != j:
            for k in range(n):
                lu[j, k], lu[p, k] = lu[p, k], lu[j, k]
        if lu[j, j] != 0.0:
            for i in range(j + 1, n):
                lu[i, j] /= lu[j, j]
        for i in range(j + 1, n):
            f = lu[i, j]
            for k in range(j + 1, n):
                lu[i, k] -= f * lu[j, k]
    return lu, piv


@njit(cache=True, error_model="numpy")
def _lu_solve(lu, piv, b):
    """a⁻¹ b from :func:`_lu`'s factors and row swaps.

    Parameters
    ----------
    lu : float64 (m, m)
        LU factors from :func:`_lu`.
    piv : int64 (m,)
        Row swaps from :func:`_lu`.
    b : float64 (m,)
        Right-hand side.
    """
    n = b.shape[0]
    w = b.copy()
    for j in range(n):
        p = piv[j]
        if p != j:
            w[j], w[p] = w[p], w[j]
    for i in range(n):
        for k in range(i):
            w[i] -= lu[i, k] * w[k]
    _back_substitute(lu, w)
    return w


@njit(cache=True, error_model="numpy")
def _max_step(v, dv):
    """Largest t <= 1 keeping v + t dv >= 0.

    Parameters
    ----------
    v : float64 (m,)
        Nonnegative values.
    dv : float64 (m,)
        Their direction.
    """
    t = 1.0
    for k in range(v.shape[0]):
        if dv[k] < 0.0:
            t = min(t, -v[k] / dv[k])
    return t


@njit(cache=True, error_model="numpy")
def _reduced_solve(factor, piv, symmetric, rhs):
    """The reduced system's solution from its Cholesky factor or its LU factors.

    Parameters
    ----------
    factor : float64 (n_rows, n_rows)
        The reduced matrix's Cholesky factor or LU factors.
    piv : int64 (n_rows,)
        LU row swaps (unused for Cholesky).
    symmetric : bool
        Whether ``factor`` is a Cholesky factor (else LU).
    rhs : float64 (n_rows,)
        Right-hand side.
    """
    if symmetric:
        return _cholesky_solve(factor, rhs)
    return _lu_solve(factor, piv, rhs)


@njit(cache=True, error_model="numpy")
def _solve(
    rd,
    rp,
    r_xz,
    r_sy,
    x,
    y,
    z,
    s,
    u,
    d_inv,
    beta,
    factor,
    piv,
    symmetric,
    pair_user,
    pair_rows,
    coef,
    price_coef,
    n_rows,
):
    """(dx, dy, dz, ds) for the residuals of dual and primal feasibility and both complementarities
    (:meth:`.pfvds_interior._NewtonSystem.solve`).

    Parameters
    ----------
    rd : float64 (n_pairs,)
        Dual-feasibility residual per pair.
    rp : float64 (n_rows,)
        Primal-feasibility residual per row.
    r_xz : float64 (n_pairs,)
        Complementarity residual per pair (x z, centred or corrected).
    r_sy : float64 (n_rows,)
        Complementarity residual per row (s y, centred or corrected).
    x : float64 (n_pairs,)
        Tasks per eligible pair.
    y : float64 (n_rows,)
        Prices of the constraint rows.
    z : float64 (n_pairs,)
        Slacks of the pairs' sign constraints.
    s : float64 (n_rows,)
        Slacks of the constraint rows.
    u : float64 (n_pairs,)
        u_p = -∂g_p/∂x_n, the marginals' slope in the user's total.
    d_inv : float64 (n_pairs,)
        D⁻¹ = x / z per pair.
    beta : float64 (n_users,)
        β_n = 1/(1 + Σ_p d_inv u) per user.
    factor : float64 (n_rows, n_rows)
        The reduced matrix's Cholesky factor or LU factors.
    piv : int64 (n_rows,)
        LU row swaps (unused for Cholesky).
    symmetric : bool
        Whether ``factor`` is a Cholesky factor (else LU).
    pair_user : int64 (n_pairs,)
        Each pair's user (non-decreasing).
    pair_rows : int64 (n_pairs, k)
        The constraint rows each pair loads, padded with -1.
    coef : float64 (n_pairs, k)
        Load coefficients a of those rows.
    price_coef : float64 (n_pairs, k)
        Price coefficients b of those rows (a except on cap rows).
    n_rows : int
        Number of constraint rows.
    """
    b1 = rd - r_xz / x
    w = solve_m(b1, d_inv, pair_user, u, beta)
    dy = _reduced_solve(
        factor, piv, symmetric, row_products(w, pair_rows, coef, n_rows) + rp - r_sy / y
    )
    dx = solve_m(b1 - column_products(dy, pair_rows, price_coef), d_inv, pair_user, u, beta)
    return dx, dy, (-r_xz - z * dx) / x, (-r_sy - s * dy) / y


@njit(cache=True, error_model="numpy")
def _direction(
    rd,
    rp,
    r_xz,
    r_sy,
    x,
    y,
    z,
    s,
    u,
    d_inv,
    beta,
    factor,
    piv,
    symmetric,
    pair_user,
    pair_rows,
    coef,
    price_coef,
    n_users,
    n_rows,
):
    """:func:`_solve` plus one round of iterative refinement on the unreduced equations
    (:meth:`.pfvds_interior._NewtonSystem.direction`).

    Parameters
    ----------
    rd : float64 (n_pairs,)
        Dual-feasibility residual per pair.
    rp : float64 (n_rows,)
        Primal-feasibility residual per row.
    r_xz : float64 (n_pairs,)
        Complementarity residual per pair (x z, centred or corrected).
    r_sy : float64 (n_rows,)
        Complementarity residual per row (s y, centred or corrected).
    x : float64 (n_pairs,)
        Tasks per eligible pair.
    y : float64 (n_rows,)
        Prices of the constraint rows.
    z : float64 (n_pairs,)
        Slacks of the pairs' sign constraints.
    s : float64 (n_rows,)
        Slacks of the constraint rows.
    u : float64 (n_pairs,)
        u_p = -∂g_p/∂x_n, the marginals' slope in the user's total.
    d_inv : float64 (n_pairs,)
        D⁻¹ = x / z per pair.
    beta : float64 (n_users,)
        β_n = 1/(1 + Σ_p d_inv u) per user.
    factor : float64 (n_rows, n_rows)
        The reduced matrix's Cholesky factor or LU factors.
    piv : int64 (n_rows,)
        LU row swaps (unused for Cholesky).
    symmetric : bool
        Whether ``factor`` is a Cholesky factor (else LU).
    pair_user : int64 (n_pairs,)
        Each pair's user (non-decreasing).
    pair_rows : int64 (n_pairs, k)
        The constraint rows each pair loads, padded with -1.
    coef : float64 (n_pairs, k)
        Load coefficients a of those rows.
    price_coef : float64 (n_pairs, k)
        Price coefficients b of those rows (a except on cap rows).
    n_users : int
        Number of users.
    n_rows : int
        Number of constraint rows.
    """
    dx, dy, dz, ds = _solve(
        rd,
        rp,
        r_xz,
        r_sy,
        x,
        y,
        z,
        s,
        u,
        d_inv,
        beta,
        factor,
        piv,
        symmetric,
        pair_user,
        pair_rows,
        coef,
        price_coef,
        n_rows,
    )
    h_dx = u * user_sums(dx, pair_user, n_users)[pair_user]
    e_d = -h_dx - column_products(dy, pair_rows, price_coef) + dz + rd
    e_p = row_products(dx, pair_rows, coef, n_rows) + ds + rp
    e_xz = z * dx + x * dz + r_xz
    e_sy = y * ds + s * dy + r_sy
    cx, cy, cz, cs = _solve(
        e_d,
        e_p,
        e_xz,
        e_sy,
        x,
        y,
        z,
        s,
        u,
        d_inv,
        beta,
        factor,
        piv,
        symmetric,
        pair_user,
        pair_rows,
        coef,
        price_coef,
        n_rows,
    )
    return dx + cx, dy + cy, dz + cz, ds + cs


@njit(cache=True, error_model="numpy")
def _centred_residual(
    target,
    x,
    y,
    z,
    s,
    pair_user,
    pair_rows,
    coef,
    price_coef,
    log_coef,
    pair_alpha,
    n_users,
    n_rows,
):
    """2-norm of the residual of the centred KKT system at (x, y, z, s)
    (:func:`.pfvds_interior._centred_residual`).

    Parameters
    ----------
    target : float
        The centring target μ of the complementarities.
    x : float64 (n_pairs,)
        Tasks per eligible pair.
    y : float64 (n_rows,)
        Prices of the constraint rows.
    z : float64 (n_pairs,)
        Slacks of the pairs' sign constraints.
    s : float64 (n_rows,)
        Slacks of the constraint rows.
    pair_user : int64 (n_pairs,)
        Each pair's user (non-decreasing).
    pair_rows : int64 (n_pairs, k)
        The constraint rows each pair loads, padded with -1.
    coef : float64 (n_pairs, k)
        Load coefficients a of those rows.
    price_coef : float64 (n_pairs, k)
        Price coefficients b of those rows (a except on cap rows).
    log_coef : float64 (n_pairs,)
        log of each pair's marginal coefficient (server scale κ_i included).
    pair_alpha : float64 (n_pairs,)
        α of each pair's server.
    n_users : int
        Number of users.
    n_rows : int
        Number of constraint rows.
    """
    g, _ = pair_marginals(user_sums(x, pair_user, n_users), pair_user, log_coef, pair_alpha)
    return np.sqrt(
        np.sum((g - column_products(y, pair_rows, price_coef) + z) ** 2)
        + np.sum((row_products(x, pair_rows, coef, n_rows) + s - 1.0) ** 2)
        + np.sum((x * z - target) ** 2)
        + np.sum((s * y - target) ** 2)
    )


@njit(cache=True, error_model="numpy")
def _all_finite(a):
    """Whether every entry of ``a`` is finite. One array per call: a variable number of them would
    compile the kernel once per count.

    Parameters
    ----------
    a : float64 (n,)
        The array to check.
    """
    return np.isfinite(a).all()


@njit(cache=True, error_model="numpy")
def iterate(
    x,
    y,
    z,
    s,
    symmetric,
    limits,
    pair_user,
    pair_rows,
    coef,
    price_coef,
    log_coef,
    pair_alpha,
    n_users,
    n_rows,
):
    """The interior-point loop of one stage from the starting point (x, y, z, s), as
    :func:`.pfvds_interior._iterate` runs it: returns (iterations, converged, best x, best y, primal
    residual, dual residual, gap) of the iterate with the smallest of the three.

    Parameters
    ----------
    x : float64 (n_pairs,)
        Starting tasks per eligible pair (copied).
    y : float64 (n_rows,)
        Starting prices of the constraint rows (copied).
    z : float64 (n_pairs,)
        Starting slacks of the pairs' sign constraints (copied).
    s : float64 (n_rows,)
        Starting slacks of the constraint rows (copied).
    symmetric : bool
        Start with a Cholesky factorisation (α = 1 everywhere); an indefinite matrix switches to LU
        for good.
    limits : StageLimits
        The stopping rule and the step's backtracking limit.
    pair_user : int64 (n_pairs,)
        Each pair's user (non-decreasing); with the seven below, the pair system
        (:class:`.pfvds_interior._PairSystem`, marginals already scaled by the servers' κ).
    pair_rows : int64 (n_pairs, k)
        The constraint rows each pair loads, padded with -1.
    coef : float64 (n_pairs, k)
        Load coefficients a of those rows.
    price_coef : float64 (n_pairs, k)
        Price coefficients b of those rows (a except on cap rows).
    log_coef : float64 (n_pairs,)
        log of each pair's marginal coefficient (server scale κ_i included).
    pair_alpha : float64 (n_pairs,)
        α of each pair's server.
    n_users : int
        Number of users.
    n_rows : int
        Number of constraint rows.
    """
    x, y, z, s = x.copy(), y.copy(), z.copy(), s.copy()
    n_comp = x.shape[0] + n_rows
    converged = False
    it = 0
    best_merit = np.inf
    best_x, best_y = x.copy(), y.copy()
    best_primal = best_dual = best_gap = np.inf
    stalled = 0
    piv = np.arange(n_rows)
    for it in range(1, limits.max_iterations + 1):
        grad, u = pair_marginals(user_sums(x, pair_user, n_users), pair_user, log_coef, pair_alpha)
        if not (_all_finite(grad) and _all_finite(u)):
            break  # marginals beyond floating point (very large α): keep the best iterate
        r_d = grad - column_products(y, pair_rows, price_coef) + z
        r_p = row_products(x, pair_rows, coef, n_rows) + s - 1.0
        gap = (np.dot(x, z) + np.dot(s, y)) / max(np.dot(x, grad), 1e-300)
        primal_res = np.abs(r_p).max()
        dual_res = np.abs(r_d).max() / grad.max()
        merit = max(primal_res, dual_res, gap)
        if merit < best_merit:
            stalled = 0
            best_merit, best_x, best_y = merit, x.copy(), y.copy()
            best_primal, best_dual, best_gap = primal_res, dual_res, gap
        else:
            stalled += 1
        if stalled > limits.stall_iterations:
            break
        if merit <= limits.tol:
            converged = True
            break
        # the Newton system, reduced to the rows and factorised once
        d_inv = x / z
        beta = 1.0 / (1.0 + user_sums(d_inv * u, pair_user, n_users))
        diag_part, v1, vu = reduced_matrix_parts(
            d_inv, u, pair_user, pair_rows, coef, price_coef, n_users, n_rows
        )
        reduced = diag_part - np.dot(np.ascontiguousarray((vu * beta[:, None]).T), v1)
        for r in range(n_rows):
            reduced[r, r] += s[r] / y[r]
        factor = reduced
        if symmetric:
            factor, symmetric = _cholesky(reduced)
        if not symmetric:
            factor, piv = _lu(reduced)
        # Mehrotra's predictor-corrector, globalised (:func:`.pfvds_interior._predictor_corrector`)
        mu = (np.dot(x, z) + np.dot(s, y)) / n_comp
        dx, dy, dz, ds = _direction(
            r_d,
            r_p,
            x * z,
            s * y,
            x,
            y,
            z,
            s,
            u,
            d_inv,
            beta,
            factor,
            piv,
            symmetric,
            pair_user,
            pair_rows,
            coef,
            price_coef,
            n_users,
            n_rows,
        )
        t = min(_max_step(x, dx), _max_step(z, dz), _max_step(s, ds), _max_step(y, dy))
        mu_aff = (np.dot(x + t * dx, z + t * dz) + np.dot(s + t * ds, y + t * dy)) / n_comp
        target = min((mu_aff / mu) ** 3, 1.0) * mu
        here = _centred_residual(
            target,
            x,
            y,
            z,
            s,
            pair_user,
            pair_rows,
            coef,
            price_coef,
            log_coef,
            pair_alpha,
            n_users,
            n_rows,
        )
        corrector_xz, corrector_sy = x * z + dx * dz - target, s * y + ds * dy - target
        found = False
        for attempt in range(2):
            if attempt == 0:
                r_xz, r_sy = corrector_xz, corrector_sy
            else:  # plain Newton on the centred system
                r_xz, r_sy = x * z - target, s * y - target
            dx, dy, dz, ds = _direction(
                r_d,
                r_p,
                r_xz,
                r_sy,
                x,
                y,
                z,
                s,
                u,
                d_inv,
                beta,
                factor,
                piv,
                symmetric,
                pair_user,
                pair_rows,
                coef,
                price_coef,
                n_users,
                n_rows,
            )
            if not (_all_finite(dx) and _all_finite(dy) and _all_finite(dz) and _all_finite(ds)):
                continue
            t = 0.99 * min(_max_step(x, dx), _max_step(z, dz), _max_step(s, ds), _max_step(y, dy))
            for _ in range(limits.backtracks):
                trial = _centred_residual(
                    target,
                    x + t * dx,
                    y + t * dy,
                    z + t * dz,
                    s + t * ds,
                    pair_user,
                    pair_rows,
                    coef,
                    price_coef,
                    log_coef,
                    pair_alpha,
                    n_users,
                    n_rows,
                )
                if trial <= (1.0 - 1e-4 * t) * here:
                    found = True
                    break
                t *= 0.5
            if found:
                break
        if not found:
            break  # no direction reduces the residual: keep the best iterate
        x += t * dx
        z += t * dz
        y += t * dy
        s += t * ds
    return it, converged, best_x, best_y, best_primal, best_dual, best_gap
