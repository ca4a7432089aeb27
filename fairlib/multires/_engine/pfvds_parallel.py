"""PF-VDS's interior point on many pairs: every pass over the pairs of an iteration as one fused
kernel split over numba's threads.

From :data:`.pair_kernels.PARALLEL_PAIRS` eligible pairs on, :mod:`.pfvds_interior` runs its
iterations through these kernels instead of its NumPy expressions and serial products. The pairs are
grouped by user (pair_user is non-decreasing), so each thread takes a chunk of whole users
(:func:`.pair_kernels.user_chunks`): a user's totals, Sherman-Morrison sums and residuals stay
inside one thread, and only the constraint rows' sums (``A x``) and the reduced matrix's per-server
part are added across chunks, in chunk order. Per-pair and per-user values are the serial path's,
bit for bit; the row sums and the scalar reductions (sums of squares, the predictor's dot products)
are added in another order, so the iterates agree with the serial path to rounding
(``tests/test_pfvds_parallel.py`` compares the two). Below the threshold the serial path is kept:
its NumPy reductions are the reference, and a parallel region costs more than it saves there.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ..._jit import njit
from .pair_kernels import sum_chunks

__all__ = [
    "load",
    "marginals",
    "dual_residual",
    "add_pair_terms",
    "newton_parts",
    "reduced_rhs",
    "back_substitute",
    "refinement_residuals",
    "centred_pair_residual",
    "step_to_boundary",
    "trial_complementarity",
    "advance",
    "complementarity_rhs",
    "all_finite",
]


@njit(cache=True, parallel=True)
def load(x, pair_rows, coef, n_rows, user_start, chunks):
    """A x: each chunk's pairs into its own row vector, the chunks added in order.

    Parameters
    ----------
    x : float64 (n_pairs,)
        Tasks per eligible pair.
    pair_rows : int64 (n_pairs, k)
        The constraint rows each pair loads, padded with -1.
    coef : float64 (n_pairs, k)
        Load coefficients a of those rows.
    n_rows : int
        Number of constraint rows.
    user_start : int64 (n_users + 1,)
        First pair of each user, n_pairs last.
    chunks : int64 (n_chunks + 1,)
        First user of each thread's chunk, n_users last.
    """
    n_chunks = chunks.shape[0] - 1
    parts = np.zeros((n_chunks, n_rows))
    for c in prange(n_chunks):
        part = parts[c]
        for p in range(user_start[chunks[c]], user_start[chunks[c + 1]]):
            for k in range(coef.shape[1]):
                if pair_rows[p, k] >= 0:
                    part[pair_rows[p, k]] += coef[p, k] * x[p]
    return sum_chunks(parts)


@njit(cache=True, inline="always")
def _user_total(v, lo, hi):
    """Σ v over one user's pairs lo..hi-1, from zero in pair order (as
    :func:`.pair_kernels.user_sums`).

    Parameters
    ----------
    v : float64 (n_pairs,)
        Values per pair.
    lo : int
        The user's first pair.
    hi : int
        One past its last pair.
    """
    total = 0.0
    for p in range(lo, hi):
        total += v[p]
    return total


@njit(cache=True, parallel=True)
def marginals(x, log_coef, pair_alpha, user_start, chunks):
    """(g, u, all finite) at the totals of x: g_p = exp(log_coef_p - α_p log x_n), u_p = α_p g_p /
    x_n (an emptied user, x_n <= 0, gets infinite marginals: the step is rejected).

    Parameters
    ----------
    x : float64 (n_pairs,)
        Tasks per eligible pair.
    log_coef : float64 (n_pairs,)
        log of each pair's marginal coefficient (server scale κ_i included).
    pair_alpha : float64 (n_pairs,)
        α of each pair's server.
    user_start : int64 (n_users + 1,)
        First pair of each user, n_pairs last.
    chunks : int64 (n_chunks + 1,)
        First user of each thread's chunk, n_users last.
    """
    n_pairs = x.shape[0]
    g = np.empty(n_pairs)
    u = np.empty(n_pairs)
    n_chunks = chunks.shape[0] - 1
    finite = np.ones(n_chunks, dtype=np.bool_)
    for c in prange(n_chunks):
        ok = True
        for n in range(chunks[c], chunks[c + 1]):
            lo, hi = user_start[n], user_start[n + 1]
            t = _user_total(x, lo, hi)
            for p in range(lo, hi):
                if t <= 0.0:
                    g[p] = np.inf
                    u[p] = np.inf
                else:
                    g[p] = np.exp(log_coef[p] - pair_alpha[p] * np.log(t))
                    u[p] = pair_alpha[p] * g[p] / t
                ok &= (g[p] - g[p] == 0.0) & (u[p] - u[p] == 0.0)  # false for NaN and ±inf
        finite[c] = ok
    all_finite = True
    for c in range(n_chunks):
        all_finite &= finite[c]
    return g, u, all_finite


@njit(cache=True, parallel=True)
def dual_residual(g, y, z, pair_rows, price_coef, user_start, chunks):
    """(r_d = g - Aᵀy + z per pair, max |r_d|, max g); a NaN in r_d makes its maximum NaN (as
    NumPy's).

    Parameters
    ----------
    g : float64 (n_pairs,)
        The pairs' marginals g_p.
    y : float64 (n_rows,)
        Prices of the constraint rows.
    z : float64 (n_pairs,)
        Slacks of the pairs' sign constraints.
    pair_rows : int64 (n_pairs, k)
        The constraint rows each pair loads, padded with -1.
    price_coef : float64 (n_pairs, k)
        Price coefficients b of those rows (a except on cap rows).
    user_start : int64 (n_users + 1,)
        First pair of each user, n_pairs last.
    chunks : int64 (n_chunks + 1,)
        First user of each thread's chunk, n_users last.
    """
    n_chunks = chunks.shape[0] - 1
    r_d = np.empty(g.shape[0])
    worst = np.zeros(n_chunks)
    top = np.full(n_chunks, -np.inf)
    for c in prange(n_chunks):
        w = 0.0
        t = -np.inf
        for p in range(user_start[chunks[c]], user_start[chunks[c + 1]]):
            acc = 0.0
            for k in range(price_coef.shape[1]):
                if pair_rows[p, k] >= 0:
                    acc += price_coef[p, k] * y[pair_rows[p, k]]
            r_d[p] = g[p] - acc + z[p]
            magnitude = abs(r_d[p])
            if not (magnitude <= w or w != w):  # a NaN, once seen, stays
                w = magnitude
            t = max(t, g[p])
        worst[c] = w
        top[c] = t
    w = worst[0]
    t = top[0]
    for c in range(1, n_chunks):
        if not (worst[c] <= w or w != w):
            w = worst[c]
        t = max(t, top[c])
    return r_d, w, t


@njit(cache=True, inline="always")
def add_pair_terms(p, n, pair_rows, coef, price_coef, d_inv, u, diag_part, v1, vu):
    """Pair p's (user n's) terms of the reduced matrix's parts: A D⁻¹ Pᵀ (into ``diag_part``,
    rows x rows), V1[n] += b_p D⁻¹_p and Vu[n] += a_p u_p D⁻¹_p (the serial
    :func:`.pfvds_interior._reduced_matrix_parts` too).

    Parameters
    ----------
    p : int
        The pair.
    n : int
        Its user.
    pair_rows : int64 (n_pairs, k)
        The constraint rows each pair loads, padded with -1.
    coef : float64 (n_pairs, k)
        Load coefficients a of those rows.
    price_coef : float64 (n_pairs, k)
        Price coefficients b of those rows (a except on cap rows).
    d_inv : float64 (n_pairs,)
        D⁻¹ = x / z per pair.
    u : float64 (n_pairs,)
        u_p = -∂g_p/∂x_n, the marginals' slope in the user's total.
    diag_part : float64 (n_rows, n_rows)
        A D⁻¹ Pᵀ, added to.
    v1 : float64 (n_users, n_rows)
        V1, added to.
    vu : float64 (n_users, n_rows)
        Vu, added to.
    """
    kk = coef.shape[1]
    for k in range(kk):
        rk = pair_rows[p, k]
        if rk < 0:
            continue
        ak = coef[p, k] * d_inv[p]
        v1[n, rk] += price_coef[p, k] * d_inv[p]
        vu[n, rk] += ak * u[p]
        for l in range(kk):
            if pair_rows[p, l] >= 0:
                diag_part[rk, pair_rows[p, l]] += ak * price_coef[p, l]


@njit(cache=True, parallel=True)
def newton_parts(x, z, u, pair_rows, coef, price_coef, n_rows, user_start, chunks):
    """The reduced Newton matrix's parts: d_inv = x/z per pair, β_n = 1/(1 + Σ_p d_inv u) per
    user, the per-server part A D⁻¹ Pᵀ (dense rows x rows; each chunk's pairs into its own,
    added in chunk order), V1[n] = Σ_p b_p D⁻¹_p and Vu[n] β_n = β_n Σ_p a_p u_p D⁻¹_p
    (users x rows) for the load coefficients a and the price coefficients b.

    Parameters
    ----------
    x : float64 (n_pairs,)
        Tasks per eligible pair.
    z : float64 (n_pairs,)
        Slacks of the pairs' sign constraints.
    u : float64 (n_pairs,)
        u_p = -∂g_p/∂x_n, the marginals' slope in the user's total.
    pair_rows : int64 (n_pairs, k)
        The constraint rows each pair loads, padded with -1.
    coef : float64 (n_pairs, k)
        Load coefficients a of those rows.
    price_coef : float64 (n_pairs, k)
        Price coefficients b of those rows (a except on cap rows).
    n_rows : int
        Number of constraint rows.
    user_start : int64 (n_users + 1,)
        First pair of each user, n_pairs last.
    chunks : int64 (n_chunks + 1,)
        First user of each thread's chunk, n_users last.
    """
    n_pairs = coef.shape[0]
    n_users = user_start.shape[0] - 1
    n_chunks = chunks.shape[0] - 1
    d_inv = np.empty(n_pairs)
    beta = np.empty(n_users)
    parts = np.zeros((n_chunks, n_rows, n_rows))
    v1 = np.zeros((n_users, n_rows))
    vub = np.zeros((n_users, n_rows))
    for c in prange(n_chunks):
        part = parts[c]
        for n in range(chunks[c], chunks[c + 1]):
            lo, hi = user_start[n], user_start[n + 1]
            acc = 0.0
            for p in range(lo, hi):
                d_inv[p] = x[p] / z[p]
                acc += d_inv[p] * u[p]
            b = 1.0 / (1.0 + acc)
            beta[n] = b
            for p in range(lo, hi):
                add_pair_terms(p, n, pair_rows, coef, price_coef, d_inv, u, part, v1, vub)
            for j in range(n_rows):
                vub[n, j] *= b
    return (
        d_inv,
        beta,
        sum_chunks(parts.reshape((n_chunks, n_rows * n_rows))).reshape((n_rows, n_rows)),
        v1,
        vub,
    )


@njit(cache=True, inline="always")
def _solve_m_user(b, d_inv, u, beta_n, lo, hi, out):
    """One user's part of M⁻¹ b (Sherman-Morrison: :func:`.pfvds_interior._solve_m`).

    Parameters
    ----------
    b : float64 (n_pairs,)
        Right-hand side per pair.
    d_inv : float64 (n_pairs,)
        D⁻¹ = x / z per pair.
    u : float64 (n_pairs,)
        u_p = -∂g_p/∂x_n, the marginals' slope in the user's total.
    beta_n : float
        The user's β_n.
    lo : int
        The user's first pair.
    hi : int
        One past its last pair.
    out : float64 (n_pairs,)
        Written with the user's part of M⁻¹ b.
    """
    acc = 0.0
    for p in range(lo, hi):
        acc += d_inv[p] * b[p]
    for p in range(lo, hi):
        out[p] = d_inv[p] * (b[p] - u[p] * beta_n * acc)


@njit(cache=True, parallel=True)
def reduced_rhs(rd, r_xz, x, d_inv, u, beta, pair_rows, coef, n_rows, user_start, chunks):
    """(b1 = r_d - r_xz / x per pair, A M⁻¹ b1): the pair part of the reduced system's right-hand
    side.

    Parameters
    ----------
    rd : float64 (n_pairs,)
        Dual-feasibility residual per pair.
    r_xz : float64 (n_pairs,)
        Complementarity residual per pair (x z, centred or corrected).
    x : float64 (n_pairs,)
        Tasks per eligible pair.
    d_inv : float64 (n_pairs,)
        D⁻¹ = x / z per pair.
    u : float64 (n_pairs,)
        u_p = -∂g_p/∂x_n, the marginals' slope in the user's total.
    beta : float64 (n_users,)
        β_n = 1/(1 + Σ_p d_inv u) per user.
    pair_rows : int64 (n_pairs, k)
        The constraint rows each pair loads, padded with -1.
    coef : float64 (n_pairs, k)
        Load coefficients a of those rows.
    n_rows : int
        Number of constraint rows.
    user_start : int64 (n_users + 1,)
        First pair of each user, n_pairs last.
    chunks : int64 (n_chunks + 1,)
        First user of each thread's chunk, n_users last.
    """
    n_chunks = chunks.shape[0] - 1
    b1 = np.empty(x.shape[0])
    w = np.empty(x.shape[0])
    parts = np.zeros((n_chunks, n_rows))
    for c in prange(n_chunks):
        part = parts[c]
        for n in range(chunks[c], chunks[c + 1]):
            lo, hi = user_start[n], user_start[n + 1]
            for p in range(lo, hi):
                b1[p] = rd[p] - r_xz[p] / x[p]
            _solve_m_user(b1, d_inv, u, beta[n], lo, hi, w)
            for p in range(lo, hi):
                for k in range(coef.shape[1]):
                    if pair_rows[p, k] >= 0:
                        part[pair_rows[p, k]] += coef[p, k] * w[p]
    return b1, sum_chunks(parts)


@njit(cache=True, parallel=True)
def back_substitute(b1, dy, r_xz, x, z, d_inv, u, beta, pair_rows, price_coef, user_start, chunks):
    """(dx = M⁻¹ (b1 - Aᵀ dy), dz = (-r_xz - z dx) / x) per pair.

    Parameters
    ----------
    b1 : float64 (n_pairs,)
        b1 = r_d - r_xz / x per pair (from :func:`reduced_rhs`).
    dy : float64 (n_rows,)
        Direction of y.
    r_xz : float64 (n_pairs,)
        Complementarity residual per pair (x z, centred or corrected).
    x : float64 (n_pairs,)
        Tasks per eligible pair.
    z : float64 (n_pairs,)
        Slacks of the pairs' sign constraints.
    d_inv : float64 (n_pairs,)
        D⁻¹ = x / z per pair.
    u : float64 (n_pairs,)
        u_p = -∂g_p/∂x_n, the marginals' slope in the user's total.
    beta : float64 (n_users,)
        β_n = 1/(1 + Σ_p d_inv u) per user.
    pair_rows : int64 (n_pairs, k)
        The constraint rows each pair loads, padded with -1.
    price_coef : float64 (n_pairs, k)
        Price coefficients b of those rows (a except on cap rows).
    user_start : int64 (n_users + 1,)
        First pair of each user, n_pairs last.
    chunks : int64 (n_chunks + 1,)
        First user of each thread's chunk, n_users last.
    """
    n_pairs = x.shape[0]
    rhs = np.empty(n_pairs)
    dx = np.empty(n_pairs)
    dz = np.empty(n_pairs)
    for c in prange(chunks.shape[0] - 1):
        for n in range(chunks[c], chunks[c + 1]):
            lo, hi = user_start[n], user_start[n + 1]
            for p in range(lo, hi):
                acc = 0.0
                for k in range(price_coef.shape[1]):
                    if pair_rows[p, k] >= 0:
                        acc += price_coef[p, k] * dy[pair_rows[p, k]]
                rhs[p] = b1[p] - acc
            _solve_m_user(rhs, d_inv, u, beta[n], lo, hi, dx)
            for p in range(lo, hi):
                dz[p] = (-r_xz[p] - z[p] * dx[p]) / x[p]
    return dx, dz


@njit(cache=True, parallel=True)
def refinement_residuals(
    dx, dy, dz, u, x, z, r_d, r_xz, pair_rows, coef, price_coef, n_rows, user_start, chunks
):
    """The unreduced equations' residuals at a direction, pair part: e_d = -u (E dx)_n - Aᵀdy + dz
    + r_d and e_xz = z dx + x dz + r_xz per pair, and A dx.

    Parameters
    ----------
    dx : float64 (n_pairs,)
        Direction of x.
    dy : float64 (n_rows,)
        Direction of y.
    dz : float64 (n_pairs,)
        Direction of z.
    u : float64 (n_pairs,)
        u_p = -∂g_p/∂x_n, the marginals' slope in the user's total.
    x : float64 (n_pairs,)
        Tasks per eligible pair.
    z : float64 (n_pairs,)
        Slacks of the pairs' sign constraints.
    r_d : float64 (n_pairs,)
        Dual-feasibility residual per pair.
    r_xz : float64 (n_pairs,)
        Complementarity right-hand side the direction solved for.
    pair_rows : int64 (n_pairs, k)
        The constraint rows each pair loads, padded with -1.
    coef : float64 (n_pairs, k)
        Load coefficients a of those rows.
    price_coef : float64 (n_pairs, k)
        Price coefficients b of those rows (a except on cap rows).
    n_rows : int
        Number of constraint rows.
    user_start : int64 (n_users + 1,)
        First pair of each user, n_pairs last.
    chunks : int64 (n_chunks + 1,)
        First user of each thread's chunk, n_users last.
    """
    n_chunks = chunks.shape[0] - 1
    e_d = np.empty(x.shape[0])
    e_xz = np.empty(x.shape[0])
    parts = np.zeros((n_chunks, n_rows))
    for c in prange(n_chunks):
        part = parts[c]
        for n in range(chunks[c], chunks[c + 1]):
            lo, hi = user_start[n], user_start[n + 1]
            total = _user_total(dx, lo, hi)
            for p in range(lo, hi):
                acc = 0.0
                for k in range(price_coef.shape[1]):
                    if pair_rows[p, k] >= 0:
                        acc += price_coef[p, k] * dy[pair_rows[p, k]]
                        part[pair_rows[p, k]] += coef[p, k] * dx[p]
                e_d[p] = -(u[p] * total) - acc + dz[p] + r_d[p]
                e_xz[p] = z[p] * dx[p] + x[p] * dz[p] + r_xz[p]
    return e_d, e_xz, sum_chunks(parts)


@njit(cache=True, parallel=True)
def centred_pair_residual(
    target,
    x,
    dx,
    z,
    dz,
    t,
    y_t,
    log_coef,
    pair_alpha,
    pair_rows,
    coef,
    price_coef,
    n_rows,
    user_start,
    chunks,
):
    """At the trial point x + t dx, z + t dz (prices ``y_t``): (Σ over pairs of (g - Aᵀy_t +
    z_t)² + (x_t z_t - target)², A x_t), without forming the trial vectors.

    Parameters
    ----------
    target : float
        The centring target μ of the complementarities.
    x : float64 (n_pairs,)
        Tasks per eligible pair.
    dx : float64 (n_pairs,)
        Direction of x.
    z : float64 (n_pairs,)
        Slacks of the pairs' sign constraints.
    dz : float64 (n_pairs,)
        Direction of z.
    t : float
        Step length.
    y_t : float64 (n_rows,)
        Prices at the trial point.
    log_coef : float64 (n_pairs,)
        log of each pair's marginal coefficient (server scale κ_i included).
    pair_alpha : float64 (n_pairs,)
        α of each pair's server.
    pair_rows : int64 (n_pairs, k)
        The constraint rows each pair loads, padded with -1.
    coef : float64 (n_pairs, k)
        Load coefficients a of those rows.
    price_coef : float64 (n_pairs, k)
        Price coefficients b of those rows (a except on cap rows).
    n_rows : int
        Number of constraint rows.
    user_start : int64 (n_users + 1,)
        First pair of each user, n_pairs last.
    chunks : int64 (n_chunks + 1,)
        First user of each thread's chunk, n_users last.
    """
    n_chunks = chunks.shape[0] - 1
    sums = np.zeros(n_chunks)
    parts = np.zeros((n_chunks, n_rows))
    for c in prange(n_chunks):
        part = parts[c]
        acc_sq = 0.0
        for n in range(chunks[c], chunks[c + 1]):
            lo, hi = user_start[n], user_start[n + 1]
            total = 0.0
            for p in range(lo, hi):
                total += x[p] + t * dx[p]
            for p in range(lo, hi):
                xt = x[p] + t * dx[p]
                zt = z[p] + t * dz[p]
                if total <= 0.0:
                    g = np.inf
                else:
                    g = np.exp(log_coef[p] - pair_alpha[p] * np.log(total))
                acc = 0.0
                for k in range(price_coef.shape[1]):
                    if pair_rows[p, k] >= 0:
                        acc += price_coef[p, k] * y_t[pair_rows[p, k]]
                        part[pair_rows[p, k]] += coef[p, k] * xt
                dual = g - acc + zt
                comp = xt * zt - target
                acc_sq += dual * dual + comp * comp
        sums[c] = acc_sq
    total_sq = 0.0
    for c in range(n_chunks):
        total_sq += sums[c]
    return total_sq, sum_chunks(parts)


@njit(cache=True, parallel=True)
def step_to_boundary(x, dx, z, dz, user_start, chunks):
    """The largest t <= 1 keeping x + t dx >= 0 and z + t dz >= 0 (a minimum: no rounding, any
    split).

    Parameters
    ----------
    x : float64 (n_pairs,)
        Tasks per eligible pair.
    dx : float64 (n_pairs,)
        Direction of x.
    z : float64 (n_pairs,)
        Slacks of the pairs' sign constraints.
    dz : float64 (n_pairs,)
        Direction of z.
    user_start : int64 (n_users + 1,)
        First pair of each user, n_pairs last.
    chunks : int64 (n_chunks + 1,)
        First user of each thread's chunk, n_users last.
    """
    n_chunks = chunks.shape[0] - 1
    steps = np.ones(n_chunks)
    for c in prange(n_chunks):
        best = 1.0
        for p in range(user_start[chunks[c]], user_start[chunks[c + 1]]):
            if dx[p] < 0.0:
                best = min(best, -x[p] / dx[p])
            if dz[p] < 0.0:
                best = min(best, -z[p] / dz[p])
        steps[c] = best
    best = 1.0
    for c in range(n_chunks):
        best = min(best, steps[c])
    return best


@njit(cache=True, parallel=True)
def trial_complementarity(x, dx, z, dz, t, user_start, chunks):
    """Σ_p (x + t dx)(z + t dz): the predictor's complementarity at its step.

    Parameters
    ----------
    x : float64 (n_pairs,)
        Tasks per eligible pair.
    dx : float64 (n_pairs,)
        Direction of x.
    z : float64 (n_pairs,)
        Slacks of the pairs' sign constraints.
    dz : float64 (n_pairs,)
        Direction of z.
    t : float
        Step length.
    user_start : int64 (n_users + 1,)
        First pair of each user, n_pairs last.
    chunks : int64 (n_chunks + 1,)
        First user of each thread's chunk, n_users last.
    """
    n_chunks = chunks.shape[0] - 1
    sums = np.zeros(n_chunks)
    for c in prange(n_chunks):
        acc = 0.0
        for p in range(user_start[chunks[c]], user_start[chunks[c + 1]]):
            acc += (x[p] + t * dx[p]) * (z[p] + t * dz[p])
        sums[c] = acc
    total = 0.0
    for c in range(n_chunks):
        total += sums[c]
    return total


@njit(cache=True, parallel=True)
def advance(x, dx, z, dz, t, user_start, chunks):
    """x += t dx and z += t dz in place (with t = 1, the refined direction's dx += cx: 1 * cx is
    cx).

    Parameters
    ----------
    x : float64 (n_pairs,)
        Tasks per eligible pair.
    dx : float64 (n_pairs,)
        Direction of x.
    z : float64 (n_pairs,)
        Slacks of the pairs' sign constraints.
    dz : float64 (n_pairs,)
        Direction of z.
    t : float
        Step length.
    user_start : int64 (n_users + 1,)
        First pair of each user, n_pairs last.
    chunks : int64 (n_chunks + 1,)
        First user of each thread's chunk, n_users last.
    """
    for c in prange(chunks.shape[0] - 1):
        for p in range(user_start[chunks[c]], user_start[chunks[c + 1]]):
            x[p] += t * dx[p]
            z[p] += t * dz[p]


@njit(cache=True, parallel=True)
def complementarity_rhs(x, z, dx, dz, target, second_order, centred, user_start, chunks):
    """Per pair x z (neither flag), x z - target (``centred``) or x z + dx dz - target (both), each
    rounded as the NumPy expression.

    Parameters
    ----------
    x : float64 (n_pairs,)
        Tasks per eligible pair.
    z : float64 (n_pairs,)
        Slacks of the pairs' sign constraints.
    dx : float64 (n_pairs,)
        Direction of x.
    dz : float64 (n_pairs,)
        Direction of z.
    target : float
        The centring target μ of the complementarities.
    second_order : bool
        Add Mehrotra's dx dz.
    centred : bool
        Subtract ``target``.
    user_start : int64 (n_users + 1,)
        First pair of each user, n_pairs last.
    chunks : int64 (n_chunks + 1,)
        First user of each thread's chunk, n_users last.
    """
    out = np.empty(x.shape[0])
    for c in prange(chunks.shape[0] - 1):
        for p in range(user_start[chunks[c]], user_start[chunks[c + 1]]):
            v = x[p] * z[p]
            if second_order:
                v = v + dx[p] * dz[p]
            out[p] = v - target if centred else v
    return out


@njit(cache=True, parallel=True)
def all_finite(dx, dz, user_start, chunks):
    """Whether every dx and dz is finite.

    Parameters
    ----------
    dx : float64 (n_pairs,)
        Direction of x.
    dz : float64 (n_pairs,)
        Direction of z.
    user_start : int64 (n_users + 1,)
        First pair of each user, n_pairs last.
    chunks : int64 (n_chunks + 1,)
        First user of each thread's chunk, n_users last.
    """
    n_chunks = chunks.shape[0] - 1
    finite = np.ones(n_chunks, dtype=np.bool_)
    for c in prange(n_chunks):
        ok = True
        for p in range(user_start[chunks[c]], user_start[chunks[c + 1]]):
            ok &= (dx[p] - dx[p] == 0.0) & (dz[p] - dz[p] == 0.0)  # false for NaN and ±inf
        finite[c] = ok
    result = True
    for c in range(n_chunks):
        result &= finite[c]
    return result
