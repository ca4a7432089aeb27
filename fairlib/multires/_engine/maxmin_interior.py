"""One round of progressive filling for DRFH and TSF, by a primal-dual interior-point method.

The round's linear program (:mod:`.global_maxmin`): maximise the common level t of the active users,

    coef_n Σ_i x[n, i] >= t           (active users n)
    coef_n Σ_i x[n, i] >= level_n     (users frozen in earlier rounds)
    Σ_n d[n, r] x[n, i] <= c[i, r]    (every server i and resource r),  x >= 0 on eligible pairs.

It has one variable per eligible pair (70,000 at 1,000 users x 100 servers) but only servers x
resources capacity rows plus one row per user, and every pair appears in exactly one user row.
Mehrotra's predictor-corrector with the user rows eliminated analytically (their block of the normal
equations is diagonal) leaves a dense system on the capacity rows only: a per-server block diagonal
minus a rank-n_users correction, one symmetric product and one Cholesky factorisation per iteration,
whatever the number of pairs. Numerics: the per-user correction is expanded around the user's
dominant pair (no catastrophic cancellation as the weights x/z spread over many orders of
magnitude), the free level t is eliminated first (a positive rank-one term that keeps the matrix
definite at fully degenerate optima), and near convergence one round of iterative refinement on the
unreduced equations keeps each corrector step accurate; the first iterations form the product in
single precision. A round that stalls (no halving of the residual in 5 iterations) returns its best
iterate and residual; the caller re-solves it by HiGHS when that residual is above 1e-7. Speed: the
loops over pairs are grouped by user (each user's pairs visited while in cache, coefficients d/c
formed on the fly) and, from 20,000 pairs, split over numba's threads by user chunks.

The interior-point solution lies in the relative interior of the optimal face, so its duals are
strictly complementary (Goldman-Tucker): a user's level row has a positive dual exactly when the row
is tight in *every* optimal solution, i.e. when the user cannot exceed t. One round therefore
freezes every blocked user at once (a simplex vertex may leave some with zero duals for later rounds
at the same level).
"""

from __future__ import annotations

import contextlib
import warnings
from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike
import scipy.linalg
from numba import prange

from ..._jit import njit
from .pair_kernels import (
    THREADED_BLAS_FLOPS,
    blas_threads,
    largest,
    numba_threads,
    one_blas_thread,
    serial_twins,
    sum_chunks,
    user_chunks,
)

__all__ = ["maxmin_round_interior_point", "compile_refinement_kernels"]


@njit(cache=True, parallel=True)
def _normal_matrix(
    x,
    z,
    w,
    u,
    s,
    y,
    a_act,
    user_start,
    pair_server,
    dem,
    inv_cap,
    row_of,
    chunks,
    n_rows,
    r_dense,
    dense,
    r_single,
    single,
    weight,
    lows,
    mt,
):
    """The weights D = x/z, 1/G per user, b = A D Eᵀ(a/G), c0 = aᵀG⁻¹a and the reduced normal
    matrix on the capacity rows, without cancellation: M = A D Aᵀ + S/Y - V G⁻¹ Vᵀ + b
    bᵀ/c0.

    t is free and couples every active user: eliminated first (Δt = (rhs - bᵀΔy)/c0), it adds
    the positive rank-one b bᵀ/c0. The rest alone is singular at a fully degenerate optimum (every
    row and every user tight); with the rank-one term M is not whenever the Newton system is not.

    Per user n with pairs p (weights D_p, coefficient columns a_p) and ω_n = w_n/u_n the user
    contributes Σ_p D_p a_p a_pᵀ - v vᵀ/G, v = Σ_p D_p a_p, G = δ + ω, δ = Σ_p D_p. Near
    the optimum one pair p* dominates and that difference cancels catastrophically, so it is
    expanded around p*: a* a*ᵀ gets the weight κ = D*(δ - D* + ω)/G (computed directly), the
    other pairs keep D_p a_p a_pᵀ, and the remainder is -(EᵀR + RᵀE + RᵀR) with E[n] = D*
    a*/√G and R[n] = Σ_{p≠p*} D_p a_p/√G.

    With ``dense`` R is written to ``r_dense`` (users x rows, overwritten) and -RᵀR is left to one
    BLAS product (with ``single``, each row also rounded to single precision into ``r_single``, in
    the threads, for a single-precision product); otherwise it is subtracted here user by user
    (cheap when users have few pairs). Users are processed in ``chunks`` (one per thread), each into
    its own matrix. ``weight`` (pairs), ``lows`` (chunks x rows x rows) and ``mt`` (rows x rows,
    zero above its diagonal) are the solve's workspace (:class:`_Workspace`), overwritten. Returns
    (matrix, D, 1/G, b).

    Parameters
    ----------
    x : float64[:]
        Tasks per eligible pair (the primal iterate), shape (n_pairs,).
    z : float64[:]
        The pairs' reduced costs (duals of x >= 0), shape (n_pairs,).
    w : float64[:]
        The user rows' surpluses, shape (n_users,).
    u : float64[:]
        The user rows' duals, shape (n_users,).
    s : float64[:]
        The capacity rows' slacks, shape (n_rows,).
    y : float64[:]
        The capacity rows' duals, shape (n_rows,).
    a_act : float64[:]
        a_n (tasks per unit level, in units of the median) for active users, 0 for frozen ones,
        shape (n_users,).
    user_start : int64[:]
        Shape (n_users + 1,): user n's pairs are ``user_start[n] .. user_start[n + 1] - 1``.
    pair_server : int32[:]
        Each pair's server, shape (n_pairs,).
    dem : float64[:, :]
        Per-task demands, shape (n_users, n_resources).
    inv_cap : float64[:, :]
        1 / capacity (0 where the capacity is 0), shape (n_servers, n_resources).
    row_of : int64[:, :]
        Shape (n_servers, n_resources): each (server, resource)'s capacity row, -1 if no pair loads
        it.
    chunks : int64[:]
        User chunk boundaries, shape (n_chunks + 1,) (:func:`.pair_kernels.user_chunks`).
    n_rows : int
        Number of capacity rows.
    r_dense : float64[:, :]
        The low-rank factor R, shape (n_users, n_rows) when ``dense`` (overwritten), else (0,
        n_rows).
    dense : bool
        Whether R is formed densely (its product left to BLAS) rather than subtracted user by user.
    r_single : float32[:, :]
        R rounded to single precision, shape (n_users, n_rows) when ``dense``, else (0, n_rows).
    single : bool
        Whether to fill ``r_single`` (a single-precision product).
    weight : float64[:]
        Workspace for D = x/z per pair, shape (n_pairs,); overwritten.
    lows : float64[:, :, :]
        Workspace for each chunk's cross terms L, shape (n_chunks, n_rows, n_rows).
    mt : float64[:, :]
        Workspace for the normal matrix (transposed), shape (n_rows, n_rows), zero above its
        diagonal.
    """
    kk = dem.shape[1]
    n_users = user_start.shape[0] - 1
    n_chunks = chunks.shape[0] - 1
    n_servers = row_of.shape[0]
    inv_g = np.empty(n_users)
    b_parts = np.zeros((n_chunks, n_rows))
    # per chunk: the per-server blocks Σ D a aᵀ (compact, servers x R x R) and L = -(EᵀR +
    # ½RᵀR) (rows x rows); M = blocks + L + Lᵀ, of which only the upper triangle is formed (all
    # the factorisation reads)
    blocks = np.zeros((n_chunks, n_servers, kk, kk))
    for c in prange(n_chunks):
        low = lows[c]
        for i in range(n_rows):
            for j in range(n_rows):
                low[i, j] = 0.0
        e_rows = np.empty(kk, dtype=np.int64)
        e_vals = np.empty(kk)
        r_rows = np.empty(n_rows, dtype=np.int64)
        r_vals = np.zeros(n_rows)
        r_mark = np.empty(n_rows, dtype=np.int64)
        for j in range(n_rows):
            r_mark[j] = -1
        for n in range(chunks[c], chunks[c + 1]):
            lo, hi = user_start[n], user_start[n + 1]
            star, delta = _pair_weights(x, z, lo, hi, weight)
            g = delta + w[n] / u[n]
            inv_g[n] = 1.0 / g
            if dense:
                r_dense[n, :] = 0.0
            n_e, n_r = _user_terms(
                n,
                lo,
                hi,
                star,
                delta,
                w[n] / u[n],
                g,
                weight,
                a_act[n] / g,
                pair_server,
                dem,
                inv_cap,
                row_of,
                dense,
                r_dense,
                blocks[c],
                b_parts[c],
                e_rows,
                e_vals,
                r_rows,
                r_vals,
                r_mark,
            )
            _subtract_cross_terms(
                lows[c], n, n_e, n_r, e_rows, e_vals, r_rows, r_vals, r_mark, dense, r_dense
            )
            if dense and single:
                for j in range(n_rows):
                    r_single[n, j] = r_dense[n, j]
    return _assemble(lows, blocks, b_parts, row_of, a_act, inv_g, s, y, n_rows, weight, mt)


@njit(cache=True, inline="always")
def _pair_weights(x, z, lo, hi, weight):
    """D_p = x_p/z_p for one user's pairs lo..hi-1 (into ``weight``); returns the dominant pair p*
    (largest D_p) and δ = Σ_p D_p.

    Parameters
    ----------
    x : float64[:]
        Tasks per eligible pair (the primal iterate), shape (n_pairs,).
    z : float64[:]
        The pairs' reduced costs (duals of x >= 0), shape (n_pairs,).
    lo : int
        The user's first pair.
    hi : int
        One past the user's last pair.
    weight : float64[:]
        Output: D_p for the user's pairs, shape (n_pairs,).
    """
    star = lo
    delta = 0.0
    for p in range(lo, hi):
        weight[p] = x[p] / z[p]
        delta += weight[p]
        if weight[p] > weight[star]:
            star = p
    return star, delta


@njit(cache=True, inline="always")
def _user_terms(
    n,
    lo,
    hi,
    star,
    delta,
    omega,
    g,
    weight,
    share,
    pair_server,
    dem,
    inv_cap,
    row_of,
    dense,
    r_dense,
    block,
    b_vec,
    e_rows,
    e_vals,
    r_rows,
    r_vals,
    r_mark,
):
    """User n's contributions: b += Σ_p D_p a_p (a_n/G); the compact per-server blocks get D_p a_p
    a_pᵀ (κ for p*); E[n] = D* a*/√G (sparse, into e_rows/e_vals) and R[n] = Σ_{p≠p*} D_p
    a_p/√G (into ``r_dense[n]`` when dense, else sparse into r_rows/r_vals with ``r_mark`` as the
    row -> slot index). Returns (entries of E, of R).

    Parameters
    ----------
    n : int
        The user.
    lo : int
        The user's first pair.
    hi : int
        One past the user's last pair.
    star : int
        The user's dominant pair p* (largest D_p).
    delta : float
        δ = Σ_p D_p over the user's pairs.
    omega : float
        ω = w_n / u_n.
    g : float
        G = δ + ω.
    weight : float64[:]
        D_p per pair, shape (n_pairs,).
    share : float
        a_n / G.
    pair_server : int32[:]
        Each pair's server, shape (n_pairs,).
    dem : float64[:, :]
        Per-task demands, shape (n_users, n_resources).
    inv_cap : float64[:, :]
        1 / capacity (0 where the capacity is 0), shape (n_servers, n_resources).
    row_of : int64[:, :]
        Shape (n_servers, n_resources): each (server, resource)'s capacity row, -1 if no pair loads
        it.
    dense : bool
        Whether R is formed densely (its product left to BLAS) rather than subtracted user by user.
    r_dense : float64[:, :]
        The low-rank factor R, shape (n_users, n_rows) when ``dense`` (overwritten), else (0,
        n_rows).
    block : float64[:, :, :]
        The chunk's compact per-server blocks, shape (n_servers, n_resources, n_resources).
    b_vec : float64[:]
        b = A D Eᵀ(a/G), shape (n_rows,).
    e_rows : int64[:]
        Rows of E[n]'s entries, shape (n_resources,).
    e_vals : float64[:]
        Values of E[n]'s entries, shape (n_resources,).
    r_rows : int64[:]
        Rows of R[n]'s entries when sparse, shape (n_rows,).
    r_vals : float64[:]
        Values of R[n]'s entries when sparse, shape (n_rows,).
    r_mark : int64[:]
        Row -> slot index of R[n]'s entries (-1: none), shape (n_rows,).
    """
    kk = dem.shape[1]
    root = np.sqrt(g)
    n_e = 0
    n_r = 0
    for p in range(lo, hi):
        wp = weight[p]
        wt = wp * ((delta - wp) + omega) / g if p == star else wp
        i = pair_server[p]
        for k in range(kk):
            rk = row_of[i, k]
            if rk < 0:
                continue
            ck = dem[n, k] * inv_cap[i, k]
            b_vec[rk] += ck * wp * share
            val = wp * ck / root
            if p == star:
                e_rows[n_e] = rk
                e_vals[n_e] = val
                n_e += 1
            elif dense:
                r_dense[n, rk] += val
            elif r_mark[rk] < 0:
                r_mark[rk] = n_r
                r_rows[n_r] = rk
                r_vals[n_r] = val
                n_r += 1
            else:
                r_vals[r_mark[rk]] += val
            for l in range(kk):
                block[i, k, l] += wt * ck * dem[n, l] * inv_cap[i, l]
    return n_e, n_r


@njit(cache=True, inline="always")
def _subtract_cross_terms(low, n, n_e, n_r, e_rows, e_vals, r_rows, r_vals, r_mark, dense, r_dense):
    """L -= EᵀR (+ ½RᵀR when sparse; dense R is left to one BLAS product by the caller); clears
    ``r_mark``.

    Parameters
    ----------
    low : float64[:, :]
        The chunk's cross terms L, shape (n_rows, n_rows).
    n : int
        The user.
    n_e : int
        Number of entries of E[n].
    n_r : int
        Number of entries of R[n].
    e_rows : int64[:]
        Rows of E[n]'s entries, shape (n_resources,).
    e_vals : float64[:]
        Values of E[n]'s entries, shape (n_resources,).
    r_rows : int64[:]
        Rows of R[n]'s entries when sparse, shape (n_rows,).
    r_vals : float64[:]
        Values of R[n]'s entries when sparse, shape (n_rows,).
    r_mark : int64[:]
        Row -> slot index of R[n]'s entries (-1: none), shape (n_rows,).
    dense : bool
        Whether R is formed densely (its product left to BLAS) rather than subtracted user by user.
    r_dense : float64[:, :]
        The low-rank factor R, shape (n_users, n_rows) when ``dense`` (overwritten), else (0,
        n_rows).
    """
    n_rows = low.shape[0]
    if dense:  # -EᵀR: rows of the dominant pair's server, contiguous updates
        for e in range(n_e):
            row = low[e_rows[e]]
            src = r_dense[n]
            for j in range(n_rows):
                row[j] -= e_vals[e] * src[j]
    else:
        for j in range(n_r):
            for e in range(n_e):
                low[e_rows[e], r_rows[j]] -= e_vals[e] * r_vals[j]
            for l in range(n_r):
                low[r_rows[j], r_rows[l]] -= 0.5 * r_vals[j] * r_vals[l]
        for j in range(n_r):
            r_mark[r_rows[j]] = -1


@njit(cache=True, inline="always")
def _assemble(lows, blocks, b_parts, row_of, a_act, inv_g, s, y, n_rows, weight, mt):
    """Sum the chunks and form the upper triangle of M = blocks + L + Lᵀ + S/Y + b bᵀ/c0, c0 =
    Σ_n a_n²/G_n, in Fortran order; returns (M, D, 1/G, b, c0).

    Parameters
    ----------
    lows : float64[:, :, :]
        Workspace for each chunk's cross terms L, shape (n_chunks, n_rows, n_rows).
    blocks : float64[:, :, :, :]
        Each chunk's per-server blocks, shape (n_chunks, n_servers, n_resources, n_resources).
    b_parts : float64[:, :]
        Each chunk's part of b, shape (n_chunks, n_rows).
    row_of : int64[:, :]
        Shape (n_servers, n_resources): each (server, resource)'s capacity row, -1 if no pair loads
        it.
    a_act : float64[:]
        a_n (tasks per unit level, in units of the median) for active users, 0 for frozen ones,
        shape (n_users,).
    inv_g : float64[:]
        1/G per user, shape (n_users,).
    s : float64[:]
        The capacity rows' slacks, shape (n_rows,).
    y : float64[:]
        The capacity rows' duals, shape (n_rows,).
    n_rows : int
        Number of capacity rows.
    weight : float64[:]
        D = x/z per pair, shape (n_pairs,) (returned).
    mt : float64[:, :]
        Workspace for the normal matrix (transposed), shape (n_rows, n_rows), zero above its
        diagonal.
    """
    n_chunks, n_servers, kk = blocks.shape[0], blocks.shape[1], blocks.shape[2]
    n_users = inv_g.shape[0]
    low = lows[0]
    for c in range(
        1, n_chunks
    ):  # a loop: the in-place array operator compiles a broadcasting kernel
        for i in range(n_rows):
            for j in range(n_rows):
                low[i, j] += lows[c, i, j]
    # M is written as its transpose in C order, i.e. M in Fortran order (entry (i, j) of M at mt[j,
    # i]): LAPACK's factorisation and BLAS's product then work on it in place, where a C-ordered M
    # cost a transposing copy of rows² entries per call (52 ms of a 218 ms factorisation at 3,000
    # rows). Each entry's arithmetic is unchanged. Only M's upper triangle (mt on and below its
    # diagonal) is written; above its diagonal ``mt`` stays zero (the single-precision product
    # subtracted from M is zero in its lower triangle too)
    for j in range(n_rows):  # upper triangle of L + Lᵀ
        for i in range(j + 1):
            mt[j, i] = low[i, j] + low[j, i]
    block = sum_chunks(blocks.reshape((n_chunks, -1))).reshape((n_servers, kk, kk))
    for i in range(n_servers):
        for k in range(kk):
            if row_of[i, k] < 0:
                continue
            for l in range(k, kk):
                if row_of[i, l] >= 0:
                    mt[row_of[i, l], row_of[i, k]] += block[i, k, l]
    b_vec = sum_chunks(b_parts)
    c0 = 0.0
    for n in range(n_users):
        c0 += a_act[n] * a_act[n] * inv_g[n]
    for i in range(n_rows):  # the diagonal's S/Y before its b bᵀ/c0, as entry by entry
        mt[i, i] += s[i] / y[i]
    for j in range(n_rows):
        for i in range(j + 1):
            mt[j, i] += b_vec[i] * b_vec[j] / c0
    return mt.T, weight, inv_g, b_vec, c0


@njit(cache=True, parallel=True)
def _linear_parts(x, y, u, z, user_start, pair_server, dem, inv_cap, row_of, chunks, n_rows, dual):
    """(A x, E x, Aᵀy - Eᵀu - z per pair (into ``dual``), max Aᵀy, max |Aᵀy - Eᵀu - z|),
    coefficients d[n, k]/c[i, k] formed on the fly. The last maximum is NaN if any entry is (as
    ``np.abs(dual).max()``).

    Parameters
    ----------
    x : float64[:]
        Tasks per eligible pair (the primal iterate), shape (n_pairs,).
    y : float64[:]
        The capacity rows' duals, shape (n_rows,).
    u : float64[:]
        The user rows' duals, shape (n_users,).
    z : float64[:]
        The pairs' reduced costs (duals of x >= 0), shape (n_pairs,).
    user_start : int64[:]
        Shape (n_users + 1,): user n's pairs are ``user_start[n] .. user_start[n + 1] - 1``.
    pair_server : int32[:]
        Each pair's server, shape (n_pairs,).
    dem : float64[:, :]
        Per-task demands, shape (n_users, n_resources).
    inv_cap : float64[:, :]
        1 / capacity (0 where the capacity is 0), shape (n_servers, n_resources).
    row_of : int64[:, :]
        Shape (n_servers, n_resources): each (server, resource)'s capacity row, -1 if no pair loads
        it.
    chunks : int64[:]
        User chunk boundaries, shape (n_chunks + 1,) (:func:`.pair_kernels.user_chunks`).
    n_rows : int
        Number of capacity rows.
    dual : float64[:]
        Output: Aᵀy - Eᵀu - z per pair, shape (n_pairs,).
    """
    kk = dem.shape[1]
    n_users = user_start.shape[0] - 1
    n_chunks = chunks.shape[0] - 1
    ax_parts = np.zeros((n_chunks, n_rows))
    aty_max = np.zeros(n_chunks)
    dual_max = np.zeros(n_chunks)
    ex = np.zeros(n_users)
    for c in prange(n_chunks):
        ax = ax_parts[c]
        largest_dual = 0.0
        for n in range(chunks[c], chunks[c + 1]):
            acc_x = 0.0
            for p in range(user_start[n], user_start[n + 1]):
                i = pair_server[p]
                acc = 0.0
                for k in range(kk):
                    rk = row_of[i, k]
                    if rk >= 0:
                        ck = dem[n, k] * inv_cap[i, k]
                        ax[rk] += ck * x[p]
                        acc += ck * y[rk]
                acc_x += x[p]
                dual[p] = acc - u[n] - z[p]
                if acc > aty_max[c]:
                    aty_max[c] = acc
                magnitude = abs(dual[p])
                if not (
                    magnitude <= largest_dual or largest_dual != largest_dual
                ):  # a NaN, once seen, stays (as
                    largest_dual = magnitude  # in pair_kernels.largest)
            ex[n] = acc_x
        dual_max[c] = largest_dual
    top = aty_max[0]  # no NaN: each entry is a running maximum from 0
    for c in range(1, n_chunks):
        top = max(top, aty_max[c])
    return sum_chunks(ax_parts), ex, dual, top, largest(dual_max)


@njit(cache=True)
def _cho_solve(upper, b):
    """Solve (UᵀU) v = b for the upper-triangular Cholesky factor U (LAPACK's, in Fortran order;
    the lower triangle is ignored).

    Parameters
    ----------
    upper : float64[:, :]
        Upper-triangular Cholesky factor U of the normal matrix, shape (n_rows, n_rows), Fortran
        order.
    b : float64[:]
        Right-hand side, shape (n_rows,).
    """
    n = b.shape[0]
    v = b.copy()
    for k in range(n):
        # Uᵀ v' = b, column by column: independent updates, which vectorise (a row-by-row sum is
        # one
        v[k] /= upper[
            k, k
        ]  # chain of dependent subtractions, slower at the sizes the notebooks use)
        vk = v[k]
        for i in range(k + 1, n):
            v[i] -= upper[k, i] * vk
    for i in range(n - 1, -1, -1):  # U v = v'
        acc = v[i]
        for k in range(i + 1, n):
            acc -= upper[i, k] * v[k]
        v[i] = acc / upper[i, i]
    return v


@njit(cache=True, parallel=True)
def _newton_solve(
    upper,
    b_vec,
    c0,
    rc,
    ru,
    rd,
    rt,
    rxz,
    rsy,
    rwu,
    dx,
    dz,
    x,
    s,
    w,
    y,
    u,
    z,
    d,
    inv_g,
    a_act,
    user_start,
    pair_server,
    dem,
    inv_cap,
    row_of,
    chunks,
):
    """The Newton step for residuals (rc, ru, rd, rt, rxz, rsy, rwu), user rows and t eliminated
    (module doc); the pairs' steps are written into ``dx`` and ``dz``.

    Pairs are grouped by user: each user's pairs are visited twice while in cache, with per-user
    scratch, coefficients formed on the fly, users processed in ``chunks`` (one per thread).

    Parameters
    ----------
    upper : float64[:, :]
        Upper-triangular Cholesky factor U of the normal matrix, shape (n_rows, n_rows), Fortran
        order.
    b_vec : float64[:]
        b = A D Eᵀ(a/G), shape (n_rows,).
    c0 : float
        c0 = Σ_n a_n² / G_n.
    rc : float64[:]
        Capacity rows' primal residual, shape (n_rows,).
    ru : float64[:]
        User rows' primal residual, shape (n_users,).
    rd : float64[:]
        Pairs' dual residual, shape (n_pairs,).
    rt : float
        The level's dual residual aᵀu - 1.
    rxz : float64[:]
        Pairs' complementarity right-hand side, shape (n_pairs,).
    rsy : float64[:]
        Capacity rows' complementarity right-hand side, shape (n_rows,).
    rwu : float64[:]
        User rows' complementarity right-hand side, shape (n_users,).
    dx : float64[:]
        Step in x, shape (n_pairs,).
    dz : float64[:]
        Step in z, shape (n_pairs,).
    x : float64[:]
        Tasks per eligible pair (the primal iterate), shape (n_pairs,).
    s : float64[:]
        The capacity rows' slacks, shape (n_rows,).
    w : float64[:]
        The user rows' surpluses, shape (n_users,).
    y : float64[:]
        The capacity rows' duals, shape (n_rows,).
    u : float64[:]
        The user rows' duals, shape (n_users,).
    z : float64[:]
        The pairs' reduced costs (duals of x >= 0), shape (n_pairs,).
    d : float64[:]
        D = x/z per pair, shape (n_pairs,).
    inv_g : float64[:]
        1/G per user, shape (n_users,).
    a_act : float64[:]
        a_n (tasks per unit level, in units of the median) for active users, 0 for frozen ones,
        shape (n_users,).
    user_start : int64[:]
        Shape (n_users + 1,): user n's pairs are ``user_start[n] .. user_start[n + 1] - 1``.
    pair_server : int32[:]
        Each pair's server, shape (n_pairs,).
    dem : float64[:, :]
        Per-task demands, shape (n_users, n_resources).
    inv_cap : float64[:, :]
        1 / capacity (0 where the capacity is 0), shape (n_servers, n_resources).
    row_of : int64[:, :]
        Shape (n_servers, n_resources): each (server, resource)'s capacity row, -1 if no pair loads
        it.
    chunks : int64[:]
        User chunk boundaries, shape (n_chunks + 1,) (:func:`.pair_kernels.user_chunks`).
    """
    kk = dem.shape[1]
    n_users = ru.shape[0]
    n_chunks = chunks.shape[0] - 1
    n_rows = rc.shape[0]
    h = np.empty(n_users)
    for n in range(
        n_users
    ):  # element-wise loops, not array expressions: each of those compiles a kernel
        h[n] = -ru[n] - rwu[n] / u[n]
    hg = np.empty(n_users)
    g_parts = np.zeros((n_chunks, n_rows))
    for c in prange(n_chunks):
        g = g_parts[c]
        scratch = np.empty(inv_cap.shape[0] + 1)
        for n in range(chunks[c], chunks[c + 1]):
            lo, hi = user_start[n], user_start[n + 1]
            acc_h = h[n]
            for p in range(lo, hi):
                v = d[p] * (rd[p] + rxz[p] / x[p])
                scratch[p - lo] = v
                acc_h += v
            h[n] = acc_h
            hg[n] = acc_h * inv_g[n]
            for p in range(lo, hi):
                v = scratch[p - lo] - d[p] * hg[n]
                i = pair_server[p]
                for k in range(kk):
                    if row_of[i, k] >= 0:
                        g[row_of[i, k]] += dem[n, k] * inv_cap[i, k] * v
    g = sum_chunks(g_parts)
    rhs_t = -rt - a_act @ hg
    q = np.empty(n_rows)
    for r in range(n_rows):
        q[r] = (rc[r] - rsy[r] / y[r] - g[r]) + b_vec[r] * (rhs_t / c0)
    dy = _cho_solve(upper, q)
    dt = (rhs_t - b_vec @ dy) / c0
    du = np.empty(n_users)
    for n in range(n_users):
        du[n] = a_act[n] * dt + h[n]
    for c in prange(n_chunks):
        scratch = np.empty(inv_cap.shape[0] + 1)
        for n in range(chunks[c], chunks[c + 1]):
            lo, hi = user_start[n], user_start[n + 1]
            acc_u = du[n]
            for p in range(lo, hi):
                acc = 0.0
                i = pair_server[p]
                for k in range(kk):
                    if row_of[i, k] >= 0:
                        acc += dem[n, k] * inv_cap[i, k] * dy[row_of[i, k]]
                scratch[p - lo] = acc
                acc_u += d[p] * acc
            du[n] = acc_u * inv_g[n]
            for p in range(lo, hi):
                dx[p] = d[p] * (-(rd[p] + rxz[p] / x[p]) - scratch[p - lo] + du[n])
                dz[p] = (-rxz[p] - z[p] * dx[p]) / x[p]
    ds = np.empty(n_rows)
    for r in range(n_rows):
        ds[r] = (-rsy[r] - s[r] * dy[r]) / y[r]
    dw = np.empty(n_users)
    for n in range(n_users):
        dw[n] = (-rwu[n] - w[n] * du[n]) / u[n]
    return dx, ds, dw, dt, dy, du, dz


def _direction(
    kernels,
    work,
    refine,
    upper,
    b_vec,
    c0,
    r_cap,
    r_usr,
    r_dual,
    r_t,
    rxz,
    rsy,
    rwu,
    x,
    s,
    w,
    y,
    u,
    z,
    d,
    inv_g,
    a_act,
    user_start,
    pair_server,
    dem,
    inv_cap,
    row_of,
    chunks,
):
    """Newton step (its pair steps in ``work.dx`` and ``work.dz``), plus (``refine``) one round of
    iterative refinement on the unreduced equations: the reduced matrix loses accuracy as
    complementarity -> 0 (and is formed partly in single precision early on).
    ``kernels``: the serial or parallel pair kernels. Plain Python calling the kernels, so the
    refinement (and this orchestration) is not compiled into every solve: element-wise NumPy rounds
    as a compiled array expression does, and the dot product is the kernels' own (:func:`_dot`)."""
    args = (
        x,
        s,
        w,
        y,
        u,
        z,
        d,
        inv_g,
        a_act,
        user_start,
        pair_server,
        dem,
        inv_cap,
        row_of,
        chunks,
    )
    dx, ds, dw, dt, dy, du, dz = kernels._newton_solve(
        upper, b_vec, c0, r_cap, r_usr, r_dual, r_t, rxz, rsy, rwu, work.dx, work.dz, *args
    )
    if not refine:
        return dx, ds, dw, dt, dy, du, dz
    # the refinement (at most once per iteration, near the end) allocates its own pair vectors
    a_dx, e_dx, e_d, _, _ = kernels._linear_parts(
        dx,
        dy,
        du,
        dz,
        user_start,
        pair_server,
        dem,
        inv_cap,
        row_of,
        chunks,
        r_cap.shape[0],
        np.empty_like(dx),
    )
    e_c = a_dx + ds + r_cap
    e_u = e_dx - dw - a_act * dt + r_usr
    e_xz = kernels._pair_refinement_residuals(e_d, r_dual, z, dx, x, dz, rxz, user_start, chunks)
    e_t = _dot(a_act, du) + r_t
    e_sy = y * ds + s * dy + rsy
    e_wu = u * dw + w * du + rwu
    cx, cs, cw, ct, cy, cu, cz = kernels._newton_solve(
        upper,
        b_vec,
        c0,
        e_c,
        e_u,
        e_d,
        e_t,
        e_xz,
        e_sy,
        e_wu,
        np.empty_like(dx),
        np.empty_like(dz),
        *args,
    )
    kernels._pair_add(dx, cx, dz, cz, user_start, chunks)
    return dx, ds + cs, dw + cw, dt + ct, dy + cy, du + cu, dz


@njit(cache=True)
def _dot(a, b):
    """a · b, as a compiled kernel computes it (BLAS through numba).

    Parameters
    ----------
    a : float64[:]
        A vector.
    b : float64[:]
        A vector of the same length.
    """
    return a @ b


@njit(cache=True)
def _step(v, dv):
    """Largest step <= 1 keeping v + step dv >= 0 (one pass: a parallel region costs more than it
    saves).

    Parameters
    ----------
    v : float64[:]
        A non-negative vector.
    dv : float64[:]
        Its step, same shape.
    """
    out = 1.0
    for j in range(v.shape[0]):
        if dv[j] < 0.0:
            r = -v[j] / dv[j]
            if r < out:
                out = r
    return out


@njit(cache=True)
def _centring_target(x, s, w, y, u, z, dx, ds, dw, dy, du, dz, tp, td, n_comp, mu):
    """Mehrotra's centring target (μ_aff/μ)³ μ, μ_aff the complementarity after the affine
    steps (tp, td).

    Parameters
    ----------
    x : float64[:]
        Tasks per eligible pair (the primal iterate), shape (n_pairs,).
    s : float64[:]
        The capacity rows' slacks, shape (n_rows,).
    w : float64[:]
        The user rows' surpluses, shape (n_users,).
    y : float64[:]
        The capacity rows' duals, shape (n_rows,).
    u : float64[:]
        The user rows' duals, shape (n_users,).
    z : float64[:]
        The pairs' reduced costs (duals of x >= 0), shape (n_pairs,).
    dx : float64[:]
        Step in x, shape (n_pairs,).
    ds : float64[:]
        Step in s, shape (n_rows,).
    dw : float64[:]
        Step in w, shape (n_users,).
    dy : float64[:]
        Step in y, shape (n_rows,).
    du : float64[:]
        Step in u, shape (n_users,).
    dz : float64[:]
        Step in z, shape (n_pairs,).
    tp : float
        Primal step length, in [0, 1].
    td : float
        Dual step length, in [0, 1].
    n_comp : int
        Number of complementary pairs (pairs + rows + users).
    mu : float
        The current complementarity μ.
    """
    mu_aff = 0.0
    for p in range(x.shape[0]):
        mu_aff += (x[p] + tp * dx[p]) * (z[p] + td * dz[p])
    for j in range(s.shape[0]):
        mu_aff += (s[j] + tp * ds[j]) * (y[j] + td * dy[j])
    for n in range(w.shape[0]):
        mu_aff += (w[n] + tp * dw[n]) * (u[n] + td * du[n])
    return min((mu_aff / n_comp / mu) ** 3, 1.0) * mu


def _predictor_corrector(
    kernels,
    work,
    upper,
    b_vec,
    c0,
    r_cap,
    r_usr,
    r_dual,
    r_t,
    x,
    s,
    w,
    t,
    y,
    u,
    z,
    d,
    inv_g,
    a_act,
    user_start,
    pair_server,
    dem,
    inv_cap,
    row_of,
    chunks,
    mu,
    n_comp,
    refine,
    fraction,
):
    """Mehrotra's predictor-corrector step, taken in place (x, s, w, y, u, z); returns (new t,
    finite). ``refine``: one round of iterative refinement of the corrector (needed only as the
    system degenerates); ``fraction``: of the step to the boundary taken. Plain Python calling the
    kernels (see :func:`_direction`); the per-pair arithmetic stays in fused kernels split over the
    threads (:func:`_pair_step_lengths`, :func:`_complementarity`, :func:`_pair_advance`), or in
    NumPy on one chunk (the same values)."""
    args = (
        x,
        s,
        w,
        y,
        u,
        z,
        d,
        inv_g,
        a_act,
        user_start,
        pair_server,
        dem,
        inv_cap,
        row_of,
        chunks,
    )
    # the predictor only sets the centring and the second-order term: no refinement
    dx, ds, dw, dt, dy, du, dz = _direction(
        kernels,
        work,
        False,
        upper,
        b_vec,
        c0,
        r_cap,
        r_usr,
        r_dual,
        r_t,
        kernels._pair_products(x, z, user_start, chunks, work.rxz),
        s * y,
        w * u,
        *args,
    )
    tp_pairs, td_pairs, _ = kernels._pair_step_lengths(x, dx, z, dz, user_start, chunks)
    tp = min(tp_pairs, _step(s, ds), _step(w, dw))
    td = min(_step(y, dy), _step(u, du), td_pairs)
    target = _centring_target(x, s, w, y, u, z, dx, ds, dw, dy, du, dz, tp, td, n_comp, mu)
    # the predictor's steps are read here for the last time: the corrector's overwrite them in the
    # workspace
    dx, ds, dw, dt, dy, du, dz = _direction(
        kernels,
        work,
        refine,
        upper,
        b_vec,
        c0,
        r_cap,
        r_usr,
        r_dual,
        r_t,
        kernels._complementarity(x, z, dx, dz, target, user_start, chunks, work.rxz),
        s * y + ds * dy - target,
        w * u + dw * du - target,
        *args,
    )
    tp_pairs, td_pairs, finite = kernels._pair_step_lengths(x, dx, z, dz, user_start, chunks)
    if not (np.isfinite(dt) and finite and all(_all_finite(v) for v in (ds, dw, dy, du))):
        return t, False
    tp = fraction * min(tp_pairs, _step(s, ds), _step(w, dw))
    td = fraction * min(_step(y, dy), _step(u, du), td_pairs)
    kernels._pair_advance(x, dx, tp, z, dz, td, user_start, chunks)
    s += tp * ds
    w += tp * dw
    y += td * dy
    u += td * du
    return t + tp * dt, True


# Element-wise passes over the pairs, split over the user chunks' pair ranges (one per thread): each
# entry is computed as the NumPy expression computes it, and a minimum does not round, so the split
# changes no bit.


@njit(cache=True, parallel=True)
def _pair_products(x, z, user_start, chunks, out):
    """x z per pair (the predictor's right-hand side), into ``out``.

    Parameters
    ----------
    x : float64[:]
        Tasks per eligible pair (the primal iterate), shape (n_pairs,).
    z : float64[:]
        The pairs' reduced costs (duals of x >= 0), shape (n_pairs,).
    user_start : int64[:]
        Shape (n_users + 1,): user n's pairs are ``user_start[n] .. user_start[n + 1] - 1``.
    chunks : int64[:]
        User chunk boundaries, shape (n_chunks + 1,) (:func:`.pair_kernels.user_chunks`).
    out : float64[:]
        Output, shape (n_pairs,).
    """
    for c in prange(chunks.shape[0] - 1):
        for p in range(user_start[chunks[c]], user_start[chunks[c + 1]]):
            out[p] = x[p] * z[p]
    return out


@njit(cache=True, parallel=True)
def _complementarity(x, z, dx, dz, target, user_start, chunks, out):
    """x z + dx dz - target per pair (the corrector's right-hand side), into ``out``.

    Parameters
    ----------
    x : float64[:]
        Tasks per eligible pair (the primal iterate), shape (n_pairs,).
    z : float64[:]
        The pairs' reduced costs (duals of x >= 0), shape (n_pairs,).
    dx : float64[:]
        Step in x, shape (n_pairs,).
    dz : float64[:]
        Step in z, shape (n_pairs,).
    target : float
        The centring target σμ.
    user_start : int64[:]
        Shape (n_users + 1,): user n's pairs are ``user_start[n] .. user_start[n + 1] - 1``.
    chunks : int64[:]
        User chunk boundaries, shape (n_chunks + 1,) (:func:`.pair_kernels.user_chunks`).
    out : float64[:]
        Output, shape (n_pairs,).
    """
    for c in prange(chunks.shape[0] - 1):
        for p in range(user_start[chunks[c]], user_start[chunks[c + 1]]):
            out[p] = x[p] * z[p] + dx[p] * dz[p] - target
    return out


@njit(cache=True, parallel=True)
def _pair_step_lengths(x, dx, z, dz, user_start, chunks):
    """(largest step <= 1 keeping x + step dx >= 0, the same for z + step dz, whether every dx and
    dz is finite) in one pass (:func:`_step` on both pairs of vectors, and :func:`_all_finite` on
    the directions).

    Parameters
    ----------
    x : float64[:]
        Tasks per eligible pair (the primal iterate), shape (n_pairs,).
    dx : float64[:]
        Step in x, shape (n_pairs,).
    z : float64[:]
        The pairs' reduced costs (duals of x >= 0), shape (n_pairs,).
    dz : float64[:]
        Step in z, shape (n_pairs,).
    user_start : int64[:]
        Shape (n_users + 1,): user n's pairs are ``user_start[n] .. user_start[n + 1] - 1``.
    chunks : int64[:]
        User chunk boundaries, shape (n_chunks + 1,) (:func:`.pair_kernels.user_chunks`).
    """
    n_chunks = chunks.shape[0] - 1
    primal = np.ones(n_chunks)
    dual = np.ones(n_chunks)
    finite = np.ones(n_chunks, dtype=np.bool_)
    for c in prange(n_chunks):
        tp = 1.0
        td = 1.0
        ok = True
        for p in range(user_start[chunks[c]], user_start[chunks[c + 1]]):
            if dx[p] < 0.0:
                r = -x[p] / dx[p]
                if r < tp:
                    tp = r
            if dz[p] < 0.0:
                r = -z[p] / dz[p]
                if r < td:
                    td = r
            ok &= (dx[p] - dx[p] == 0.0) & (
                dz[p] - dz[p] == 0.0
            )  # false for NaN and ±inf, without a branch
        primal[c] = tp
        dual[c] = td
        finite[c] = ok
    # loops, not .min() and .all(): numba's general reductions cost a first compilation ~0.5 s
    tp = 1.0
    td = 1.0
    ok = True
    for c in range(n_chunks):
        tp = min(tp, primal[c])
        td = min(td, dual[c])
        ok &= finite[c]
    return tp, td, ok


@njit(cache=True, parallel=True)
def _pair_advance(x, dx, tp, z, dz, td, user_start, chunks):
    """x += tp dx and z += td dz in place.

    Parameters
    ----------
    x : float64[:]
        Tasks per pair, shape (n_pairs,); advanced in place.
    dx : float64[:]
        Step in x, shape (n_pairs,).
    tp : float
        Primal step length, in [0, 1].
    z : float64[:]
        Reduced costs per pair, shape (n_pairs,); advanced in place.
    dz : float64[:]
        Step in z, shape (n_pairs,).
    td : float
        Dual step length, in [0, 1].
    user_start : int64[:]
        Shape (n_users + 1,): user n's pairs are ``user_start[n] .. user_start[n + 1] - 1``.
    chunks : int64[:]
        User chunk boundaries, shape (n_chunks + 1,) (:func:`.pair_kernels.user_chunks`).
    """
    for c in prange(chunks.shape[0] - 1):
        for p in range(user_start[chunks[c]], user_start[chunks[c + 1]]):
            x[p] += tp * dx[p]
            z[p] += td * dz[p]


@njit(cache=True, parallel=True)
def _pair_refinement_residuals(e_d, r_dual, z, dx, x, dz, rxz, user_start, chunks):
    """The refinement's pair residuals: e_d += r_dual in place, and returns z dx + x dz + rxz.

    Parameters
    ----------
    e_d : float64[:]
        The refinement's pair residual, shape (n_pairs,); r_dual added in place.
    r_dual : float64[:]
        The dual residual of the refined step, shape (n_pairs,).
    z : float64[:]
        The pairs' reduced costs (duals of x >= 0), shape (n_pairs,).
    dx : float64[:]
        Step in x, shape (n_pairs,).
    x : float64[:]
        Tasks per eligible pair (the primal iterate), shape (n_pairs,).
    dz : float64[:]
        Step in z, shape (n_pairs,).
    rxz : float64[:]
        Pairs' complementarity right-hand side, shape (n_pairs,).
    user_start : int64[:]
        Shape (n_users + 1,): user n's pairs are ``user_start[n] .. user_start[n + 1] - 1``.
    chunks : int64[:]
        User chunk boundaries, shape (n_chunks + 1,) (:func:`.pair_kernels.user_chunks`).
    """
    e_xz = np.empty(x.shape[0])
    for c in prange(chunks.shape[0] - 1):
        for p in range(user_start[chunks[c]], user_start[chunks[c + 1]]):
            e_d[p] += r_dual[p]
            e_xz[p] = z[p] * dx[p] + x[p] * dz[p] + rxz[p]
    return e_xz


@njit(cache=True, parallel=True)
def _pair_add(dx, cx, dz, cz, user_start, chunks):
    """dx += cx and dz += cz in place (the refined direction).

    Parameters
    ----------
    dx : float64[:]
        Step in x, shape (n_pairs,); cx added in place.
    cx : float64[:]
        Correction to dx, shape (n_pairs,).
    dz : float64[:]
        Step in z, shape (n_pairs,); cz added in place.
    cz : float64[:]
        Correction to dz, shape (n_pairs,).
    user_start : int64[:]
        Shape (n_users + 1,): user n's pairs are ``user_start[n] .. user_start[n + 1] - 1``.
    chunks : int64[:]
        User chunk boundaries, shape (n_chunks + 1,) (:func:`.pair_kernels.user_chunks`).
    """
    for c in prange(chunks.shape[0] - 1):
        for p in range(user_start[chunks[c]], user_start[chunks[c + 1]]):
            dx[p] += cx[p]
            dz[p] += cz[p]


def compile_refinement_kernels() -> None:
    """Compile the refinement's parallel pair kernels on one pair.

    On one chunk they are NumPy (nothing to compile); a solve reaches them only when its residual
    passes below ``_REFINE_BELOW`` before it converges, which the warm-up's small instances may
    skip.
    """
    one, user_start, chunks = (
        np.ones(1),
        np.array([0, 1], dtype=np.int64),
        np.array([0, 1], dtype=np.int64),
    )
    _pair_refinement_residuals(one.copy(), one, one, one, one, one, one, user_start, chunks)
    _pair_add(one.copy(), one, one.copy(), one, user_start, chunks)


@njit(cache=True)
def _all_finite(v):
    """Whether every entry of v is finite (stops at the first that is not).

    Parameters
    ----------
    v : float64[:]
        The vector.
    """
    for p in range(v.shape[0]):
        if not np.isfinite(v[p]):
            return False
    return True


# The element-wise passes on one chunk: NumPy computes each entry as the kernels do (no contraction
# into a fused multiply-add, the same order of operations; a minimum does not round), without
# compiling anything.


def _pair_products_numpy(x, z, user_start, chunks, out):
    return np.multiply(x, z, out=out)


def _complementarity_numpy(x, z, dx, dz, target, user_start, chunks, out):
    np.multiply(x, z, out=out)
    out += dx * dz
    out -= target
    return out


def _pair_step_lengths_numpy(x, dx, z, dz, user_start, chunks):
    return _step(x, dx), _step(z, dz), bool(np.isfinite(dx).all() and np.isfinite(dz).all())


def _pair_advance_numpy(x, dx, tp, z, dz, td, user_start, chunks):
    x += tp * dx
    z += td * dz


def _pair_refinement_residuals_numpy(e_d, r_dual, z, dx, x, dz, rxz, user_start, chunks):
    e_d += r_dual
    return z * dx + x * dz + rxz


def _pair_add_numpy(dx, cx, dz, cz, user_start, chunks):
    dx += cx
    dz += cz


# one chunk (below PARALLEL_PAIRS pairs) runs serial copies that never compile a parallel region,
# and NumPy for the element-wise passes (their serial twins had added a second to the first solve's
# compilation)
_SERIAL, _PARALLEL = serial_twins(
    globals(),
    in_numpy={
        "_pair_products": _pair_products_numpy,
        "_complementarity": _complementarity_numpy,
        "_pair_step_lengths": _pair_step_lengths_numpy,
        "_pair_advance": _pair_advance_numpy,
        "_pair_refinement_residuals": _pair_refinement_residuals_numpy,
        "_pair_add": _pair_add_numpy,
    },
)


def _cholesky(matrix, factor):
    """Upper Cholesky factor U (UᵀU = M, from M's upper triangle), computed in ``factor`` (Fortran
    order, as ``matrix``); a tiny diagonal shift, growing on failure, when rounding has made M
    indefinite (iterative refinement then restores the exact direction). None if nothing works."""
    scale = float(np.abs(np.diag(matrix)).max(initial=1.0))
    for shift in (0.0, 1e-14, 1e-12, 1e-10, 1e-8, 1e-6):
        if shift:
            np.add(matrix, shift * scale * np.eye(len(matrix)), out=factor)
        else:
            np.copyto(factor, matrix)
        factor, info = scipy.linalg.lapack.dpotrf(factor, lower=0, clean=1, overwrite_a=1)
        if info == 0:
            return factor
    return None


class _Workspace:
    """What one solve overwrites from iteration to iteration: pair vectors (the Newton steps ``dx``
    and ``dz``, the complementarity right-hand side ``rxz``, the dual residual ``dual``, the weights
    ``weight``, the best iterate ``best_x``), the low-rank factor R of the normal matrix in double
    and single precision (``r_dense``, ``r_single``: users x rows when ``dense``, else empty), the
    chunks' cross terms ``lows``, the normal matrix ``mt`` (transposed, zero above its diagonal),
    its Cholesky factor ``factor`` and the single-precision product ``product``. Allocated once: at
    7 million pairs each fresh 56 MB vector cost ~10 ms of page faults (the allocator maps a block
    that large anew for every call and its first writes fault it in), about a tenth of a solve."""

    def __init__(self, n_pairs: int, n_users: int, n_rows: int, n_chunks: int, dense: bool):
        self.dx, self.dz, self.rxz, self.dual, self.weight, self.best_x = (
            np.empty(n_pairs) for _ in range(6)
        )
        self.r_dense = np.zeros((n_users, n_rows) if dense else (0, n_rows))
        self.r_single = np.zeros((n_users, n_rows) if dense else (0, n_rows), dtype=np.float32)
        self.lows = np.empty((n_chunks, n_rows, n_rows))
        self.mt = np.zeros((n_rows, n_rows))
        self.factor = np.zeros((n_rows, n_rows), order="F")
        self.product = np.zeros((n_rows, n_rows) if dense else (0, 0), dtype=np.float32, order="F")


_SINGLE_ABOVE = 1e-2  # residual above which the low-rank product is formed in single precision
_REFINE_BELOW = (
    1e-6  # residual below which corrector steps are refined (conditioning degrades as μ -> 0)
)
_STALL_ITERATIONS = 5  # iterations without halving the residual before the best iterate is returned


class MaxminRound(NamedTuple):
    """One max-min round: tasks per eligible pair, the level reached, the users blocked at it,
    solver diagnostics."""

    tasks: np.ndarray
    level: float
    blocked: np.ndarray
    diagnostics: dict


def maxmin_round_interior_point(
    demand: ArrayLike,
    capacity: ArrayLike,
    pair_user: ArrayLike,
    pair_server: ArrayLike,
    coef: ArrayLike,
    level: ArrayLike,
    *,
    tol: float = 1e-10,
    max_iterations: int = 100,
) -> MaxminRound:
    """Solve one progressive-filling round of DRFH or TSF by a primal-dual interior-point method
    (module docstring).

    ``blocked`` marks the active users whose level row is tight in every optimal solution: the
    strict-complementarity indicator u_n a_n > w_n / (a_n t) of the interior solution (share of the
    level's dual against relative surplus).

    Parameters
    ----------
    demand : array_like
        Shape (n_users, n_resources): per-task demands.
    capacity : array_like
        Shape (n_servers, n_resources): server capacities.
    pair_user : array_like
        Shape (n_pairs,): each eligible pair's user, non-decreasing (pairs grouped by user).
    pair_server : array_like
        Shape (n_pairs,): each pair's server; every pair's server has every resource its user
        demands.
    coef : array_like
        Shape (n_users,): level per task of each user.
    level : array_like
        Shape (n_users,): NaN for active users, else the level they were frozen at.
    tol : float, default 1e-10
        Stopping tolerance on the primal and dual residuals (relative) and the duality gap (relative
        to max(1, t) in units of the median task count per unit level).
    max_iterations : int, default 100
        The most interior-point iterations.

    Returns
    -------
    MaxminRound
        ``(tasks, level, blocked, diagnostics)``: x per pair (shape (n_pairs,)), the level t
        reached, the blocked users (bool, shape (n_users,)), and diagnostics ``iterations``,
        ``converged``, ``merit`` (largest scaled residual of the returned iterate), ``dual_share``
        (u_n a_n).
    """
    dem = np.ascontiguousarray(demand, dtype=np.float64)
    cap: npt.NDArray[np.float64] = np.asarray(capacity, dtype=np.float64)
    users: npt.NDArray[np.intp] = np.asarray(pair_user)
    n_users, kk = dem.shape
    n_pairs = len(users)
    with np.errstate(divide="ignore"):
        inv_cap = np.ascontiguousarray(np.where(cap > 0, 1.0 / cap, 0.0))
    pair_server = np.ascontiguousarray(pair_server, dtype=np.int32)
    user_start = np.searchsorted(users, np.arange(n_users + 1)).astype(np.int64)
    # capacity rows (server, resource) some pair loads; vacuous rows are left out (they would be
    # singular)
    if (dem > 0).all():
        # every user demands every resource (the common case): a row is loaded if its server has a
        # pair
        loaded = np.repeat(
            (np.bincount(pair_server, minlength=cap.shape[0]) > 0)[:, None], kk, axis=1
        )
    else:
        loaded = np.stack(
            [
                np.bincount(pair_server, weights=dem[users, k] > 0, minlength=cap.shape[0]) > 0
                for k in range(kk)
            ],
            axis=1,
        )
    row_of = np.where(loaded, np.cumsum(loaded.ravel()).reshape(loaded.shape) - 1, -1).astype(
        np.int64
    )
    n_rows = int(loaded.sum())
    chunks = user_chunks(user_start)
    n_chunks = len(chunks) - 1
    kernels = _PARALLEL if n_chunks > 1 else _SERIAL
    structure = (user_start, pair_server, dem, inv_cap, row_of, chunks)
    active = np.isnan(level)
    # Users' rows in tasks: Σ_i x[n, i] - w_n = a_n t (active) or a_n level_n (frozen), a_n =
    # 1/coef_n. The level is measured in units of the median a_n so t is of the order of tasks per
    # user.
    a = 1.0 / np.asarray(coef, dtype=np.float64)
    unit = float(np.median(a))
    a = a / unit
    a_act = np.where(active, a, 0.0)
    floor = np.where(active, 0.0, np.nan_to_num(level) * unit * a)
    # RᵀR by one BLAS product, or user by user (Σ_n (pairs_n x R)² operations) when users have
    # few pairs: BLAS does ~10x the operations per second of the scalar loop
    per_user = np.diff(user_start) * kk
    dense = float(per_user @ per_user) > n_users * n_rows * n_rows / 10.0
    work = _Workspace(n_pairs, n_users, n_rows, n_chunks, dense)
    # Start: every pair at half the load the busiest row can take, slacks from there; duals balanced
    # (the column sums col_sum live in work.dual, read only here, before the first iteration
    # overwrites them).
    load1, _, col_sum, _, _ = kernels._linear_parts(
        np.ones(n_pairs),
        np.ones(n_rows),
        np.zeros(n_users),
        np.zeros(n_pairs),
        *structure,
        n_rows,
        work.dual,
    )
    x = np.full(n_pairs, 0.9 / max(load1.max(initial=0.0), 1e-300))
    s = np.maximum(1.0 - load1 * x[0] if n_pairs else np.ones(n_rows), 0.1)
    totals = np.bincount(users, weights=x, minlength=n_users)
    t = 0.1 * float(np.min(totals[active] / a[active]))
    w = np.maximum(totals - a_act * t - floor, 0.1 * totals)
    u = np.full(n_users, 1.0 / a_act.sum())
    theta = 1.2 * float(u.max()) / max(float(col_sum.min()), 1e-300)
    y = np.full(n_rows, theta)
    z = np.maximum(col_sum * theta - u[users], 0.5 * col_sum * theta)
    n_comp = n_pairs + n_rows + n_users
    # the normal matrix's product (users x rows² operations) and factorisation (rows³ / 3) on the
    # numba loops' threads when large enough to gain from them (see THREADED_BLAS_FLOPS); one BLAS
    # thread otherwise
    big = max(n_users * n_rows * n_rows if dense else 0, n_rows**3 / 3) >= THREADED_BLAS_FLOPS

    converged = False
    best = (np.inf, x, t, u, w)
    stalled = 0
    it = 0
    with (
        np.errstate(all="ignore"),
        warnings.catch_warnings(),
        one_blas_thread(),
        numba_threads(n_chunks),
    ):
        warnings.simplefilter("ignore", scipy.linalg.LinAlgWarning)
        for it in range(1, max_iterations + 1):
            r_cap, totals, r_dual, aty_max, dual_max = kernels._linear_parts(
                x, y, u, z, *structure, n_rows, work.dual
            )
            r_cap += s - 1.0
            r_usr = totals - w - a_act * t - floor
            r_t = float(a_act @ u) - 1.0
            gap = float(x @ z + s @ y + w @ u)
            primal_res = max(
                float(np.abs(r_cap).max(initial=0.0)),
                float(np.abs(r_usr).max()) / max(1.0, float(totals.max())),
            )
            dual_res = max(dual_max / max(1.0, aty_max), abs(r_t))
            merit = max(primal_res, dual_res, gap / max(1.0, abs(t)))
            if merit < 0.5 * best[0]:
                np.copyto(work.best_x, x)
                best = (merit, work.best_x, t, u.copy(), w.copy())
                stalled = 0
            else:
                stalled += 1
            if merit <= tol:
                converged = True
                break
            if (
                stalled >= _STALL_ITERATIONS
            ):  # degenerate and ill-conditioned: keep the best iterate
                break
            single = (
                merit > _SINGLE_ABOVE
            )  # early steps need little accuracy: the product in single precision
            m_mat, d, inv_g, b_vec, c0 = kernels._normal_matrix(
                x,
                z,
                w,
                u,
                s,
                y,
                a_act,
                *structure,
                n_rows,
                work.r_dense,
                dense,
                work.r_single,
                single,
                work.weight,
                work.lows,
                work.mt,
            )
            with blas_threads(n_chunks) if big else contextlib.nullcontext():
                if dense:
                    # M -= RᵀR on the upper triangle, which is all the Cholesky factorisation
                    # reads
                    if single:
                        m_mat -= scipy.linalg.blas.ssyrk(
                            1.0,
                            work.r_single.T,
                            beta=0.0,
                            c=work.product,
                            trans=0,
                            lower=0,
                            overwrite_c=1,
                        )
                    else:
                        m_mat = scipy.linalg.blas.dsyrk(
                            -1.0, work.r_dense.T, beta=1.0, c=m_mat, trans=0, lower=0, overwrite_c=1
                        )
                upper = _cholesky(m_mat, work.factor)
            if upper is None:
                break
            t, finite = _predictor_corrector(
                kernels,
                work,
                upper,
                b_vec,
                c0,
                r_cap,
                r_usr,
                r_dual,
                r_t,
                x,
                s,
                w,
                t,
                y,
                u,
                z,
                d,
                inv_g,
                a_act,
                *structure,
                gap / n_comp,
                float(n_comp),
                merit < _REFINE_BELOW,
                1.0 - min(0.005, merit),
            )
            if not finite:
                break

    merit, x, t, u, w = best
    with np.errstate(divide="ignore", invalid="ignore"):
        blocked = active & (u * a > w / np.maximum(a * abs(t), 1e-300))
    return MaxminRound(
        x,
        t / unit,
        blocked,
        {"iterations": it, "converged": converged, "merit": merit, "dual_share": u * a},
    )
