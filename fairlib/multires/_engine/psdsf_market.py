"""PS-DSF as the limit of a smoothed market: Newton on per-server log-prices, then an exact flow
polish.

Derivation ([DRV], ours). With one VDS level per server (every usable user loads the constraint that
fills the server; always so when a server's users all load the same constraints;
:func:`.psdsf.psdsf` checks it on the result), Definition 4 says:
each server i has a level L_i; a user with x[n, i] > 0 has weighted VDS x_n / (φ_n γ[n, i]) = L_i,
a usable user without has a larger one, and every server's most used constraint is saturated. Write
p_i = 1/L_i. Then user n takes tasks only where its price per task p_i / γ[n, i] is lowest and x_n
= φ_n / min_i (p_i / γ[n, i]): a market where user n spends a budget φ_n on the servers that sell
it tasks cheapest, each server pricing all its users by their dominant share. The unknowns are the
server prices alone (one per server); the equations are "every server's most used constraint is
exactly full".

Users indifferent between servers make that map set-valued, so we smooth it: user n spends its
budget on server i in proportion π[n, i] ∝ exp((log γ[n, i] - q_i) / μ) (q = log p, a logit
choice at temperature μ). For every μ > 0 the equations F_i(q) = log(max_k use[i, k]) = 0 have one
root: with the maximising constraint k fixed, the Jacobian is -I - (I - R)/μ with R row-stochastic
and non-negative, so -J is a non-singular M-matrix (a P-matrix) everywhere and the map is univalent
(Gale–Nikaido); across the pieces of the max over k we rely on this without a proof. Newton with a
backtracking line search follows the root as μ falls 1 → ``mu_final`` in steps of 10, each stage
started from the tangent predictor (dq/dμ = -J⁻¹ ∂F/∂μ at the last root: half the
iterations of extrapolating the last two roots) and ended once |F| < 10 μ, only the last stage
being solved to the rounding floor; a stage that stalls is retried from the last root, then with a
smaller step in μ. As μ → 0 the root tends to a Definition 4 allocation: a user's servers then
differ in weighted VDS by at most ~μ log(1/share). About 15-20 Newton steps at 1,000 users x 100
servers, each one dense 100 x 100 solve and O(eligible pairs) work, the pair loops over user chunks
on numba's threads.

Precision: evaluating the shares from q loses digits in proportion to 1/μ (a rounding of q by 1e-16
moves a share by 1e-16/μ), so the last stages leave the servers full only to ~1e-7. The polish
finishes in the flows themselves: the same Newton system written for (log x, q, log budget
multipliers) with x updated multiplicatively (two or three steps, quadratic), which fills every
server and spends every budget to ~1e-15 while moving the VDS by ~μ. Shares below ``drop`` of a
user's total are zeroed first.

PS-DSF allocations need not be unique: several allocations can satisfy Definition 4 with different
totals (on ~10-15% of small random clusters, with or without identical servers). This one is the
limit of the logit market (unique for each μ); the fixed-point iteration of :mod:`.psdsf` can stop
at another.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import prange

from ..._jit import njit
from ..._linear_solve import solve
from ..._validate import InvalidInputError, as_count
from ..cluster import Cluster
from .pair_kernels import numba_threads, one_blas_thread, serial_twins, sum_chunks, user_chunks

__all__ = ["psdsf_market"]

# A share below this is zero in the Jacobian (its contribution is below double precision).
_SHARE_FLOOR = 1e-17


@njit(cache=True, inline="always")
def _shares_chunk(
    q,
    inv_price,
    mu,
    n_lo,
    n_hi,
    user_start,
    pair_server,
    log_gamma,
    gamma,
    weight,
    load,
    x,
    share,
    use,
):
    """Logit shares, tasks and constraint use of users ``n_lo .. n_hi - 1`` (one chunk of
    :func:`_shares`).

    Parameters
    ----------
    q : float64[:]
        Log-prices q_i, shape (n_servers,).
    inv_price : float64[:]
        e^-q, shape (n_servers,).
    mu : float
        The logit temperature μ > 0.
    n_lo : int
        First user of the chunk.
    n_hi : int
        One past the chunk's last user.
    user_start : int64[:]
        Shape (n_users + 1,): user n's pairs are ``user_start[n] .. user_start[n + 1] - 1``.
    pair_server : int64[:]
        Each pair's server, shape (n_pairs,).
    log_gamma : float64[:]
        log γ of each pair, shape (n_pairs,).
    gamma : float64[:]
        γ of each pair (monopoly tasks), shape (n_pairs,).
    weight : float64[:]
        Each user's budget φ_n (its weight), shape (n_users,).
    load : float64[:, :]
        Shape (n_pairs, K): per-task use of each server constraint over its capacity.
    x : float64[:]
        Output: tasks per pair, shape (n_pairs,).
    share : float64[:]
        Output: each pair's share π of its user's budget, shape (n_pairs,).
    use : float64[:, :]
        Shape (n_servers, K): each server constraint's use, accumulated here.
    """
    for n in range(n_lo, n_hi):
        lo, hi = user_start[n], user_start[n + 1]
        best = -np.inf
        for p in range(lo, hi):
            v = log_gamma[p] - q[pair_server[p]]
            share[p] = v
            if v > best:
                best = v
        total = 0.0
        for p in range(lo, hi):
            z = (share[p] - best) / mu
            e = np.exp(z) if z > -40.0 else 0.0
            share[p] = e
            total += e
        scale = weight[n] / total
        for p in range(lo, hi):
            i = pair_server[p]
            x[p] = scale * share[p] * gamma[p] * inv_price[i]
            share[p] /= total
            if x[p] > 0.0:
                for k in range(load.shape[1]):
                    use[i, k] += x[p] * load[p, k]


@njit(cache=True, parallel=True)
def _shares_over_chunks(
    q, inv_price, mu, user_start, pair_server, log_gamma, gamma, weight, load, chunk_start, x, share
):
    """:func:`_shares_chunk` per user chunk, each into its own part; returns the summed use.

    Parameters
    ----------
    q : float64[:]
        Log-prices q_i, shape (n_servers,).
    inv_price : float64[:]
        e^-q, shape (n_servers,).
    mu : float
        The logit temperature μ > 0.
    user_start : int64[:]
        Shape (n_users + 1,): user n's pairs are ``user_start[n] .. user_start[n + 1] - 1``.
    pair_server : int64[:]
        Each pair's server, shape (n_pairs,).
    log_gamma : float64[:]
        log γ of each pair, shape (n_pairs,).
    gamma : float64[:]
        γ of each pair (monopoly tasks), shape (n_pairs,).
    weight : float64[:]
        Each user's budget φ_n (its weight), shape (n_users,).
    load : float64[:, :]
        Shape (n_pairs, K): per-task use of each server constraint over its capacity.
    chunk_start : int64[:]
        User chunk boundaries, shape (n_chunks + 1,) (:func:`.pair_kernels.user_chunks`).
    x : float64[:]
        Tasks per pair, shape (n_pairs,).
    share : float64[:]
        Each pair's share π of its user's budget, shape (n_pairs,).
    """
    parts = np.zeros((chunk_start.shape[0] - 1, q.shape[0], load.shape[1]))
    for c in prange(chunk_start.shape[0] - 1):
        _shares_chunk(
            q,
            inv_price,
            mu,
            chunk_start[c],
            chunk_start[c + 1],
            user_start,
            pair_server,
            log_gamma,
            gamma,
            weight,
            load,
            x,
            share,
            parts[c],
        )
    return sum_chunks(parts.reshape((parts.shape[0], -1))).reshape(parts.shape[1:])


@njit(cache=True)
def _shares(q, mu, user_start, pair_server, log_gamma, gamma, weight, load, chunk_start, x, share):
    """Logit shares of every user's budget and the tasks they buy, x[p] = φ_n π_p γ_p / p_i, and
    the servers' use[i, k] = Σ_n x[n, i] load[n, i, k] (load = per-task use / capacity), over user
    chunks (in parallel when there are several; one chunk runs the serial twins: see
    :func:`.pair_kernels.serial_twins`). Shares below e^-40 (under the Jacobian's floor) are zero,
    which skips their exponentials.

    Parameters
    ----------
    q : float64[:]
        Log-prices q_i, shape (n_servers,).
    mu : float
        The logit temperature μ > 0.
    user_start : int64[:]
        Shape (n_users + 1,): user n's pairs are ``user_start[n] .. user_start[n + 1] - 1``.
    pair_server : int64[:]
        Each pair's server, shape (n_pairs,).
    log_gamma : float64[:]
        log γ of each pair, shape (n_pairs,).
    gamma : float64[:]
        γ of each pair (monopoly tasks), shape (n_pairs,).
    weight : float64[:]
        Each user's budget φ_n (its weight), shape (n_users,).
    load : float64[:, :]
        Shape (n_pairs, K): per-task use of each server constraint over its capacity.
    chunk_start : int64[:]
        User chunk boundaries, shape (n_chunks + 1,) (:func:`.pair_kernels.user_chunks`).
    x : float64[:]
        Tasks per pair, shape (n_pairs,).
    share : float64[:]
        Each pair's share π of its user's budget, shape (n_pairs,).
    """
    return _shares_over_chunks(
        q,
        np.exp(-q),
        mu,
        user_start,
        pair_server,
        log_gamma,
        gamma,
        weight,
        load,
        chunk_start,
        x,
        share,
    )


@njit(cache=True)
def _residual(use, has_pairs, binding, fullness):
    """F_i = log(max_k use[i, k]); binding[i] = its argmax. Servers without pairs: F = 0.

    Parameters
    ----------
    use : float64[:, :]
        Shape (n_servers, K): each server constraint's use.
    has_pairs : bool[:]
        Whether each server has a usable pair, shape (n_servers,).
    binding : int64[:]
        Output: each server's most used constraint, shape (n_servers,).
    fullness : float64[:]
        Output: each server's use of it, shape (n_servers,).
    """
    n_servers = use.shape[0]
    res = np.zeros(n_servers)
    for i in range(n_servers):
        if not has_pairs[i]:
            fullness[i] = 1.0
            binding[i] = 0
            continue
        k_best = 0
        for k in range(1, use.shape[1]):
            if use[i, k] > use[i, k_best]:
                k_best = k
        binding[i] = k_best
        fullness[i] = max(use[i, k_best], 1e-300)
        res[i] = np.log(fullness[i])
    return res


@njit(cache=True)
def _norms(res):
    """(max |F_i|, √Σ F_i²) in one pass: the additions of numba's ``np.sum`` (in order from 0)
    and the maximum of ``np.abs(res).max()`` (a NaN wins), without compiling either.

    Parameters
    ----------
    res : float64[:]
        The residuals F, shape (n_servers,).
    """
    largest = 0.0
    squares = 0.0
    for i in range(res.shape[0]):
        a = abs(res[i])
        if not (a <= largest or np.isnan(largest)):  # larger, or the first NaN
            largest = a
        squares += res[i] * res[i]
    return largest, np.sqrt(squares)


@njit(cache=True, inline="always")
def _coupling_chunk(n_lo, n_hi, x, share, user_start, pair_server, load, binding, out):
    """The price coupling of users ``n_lo .. n_hi - 1`` by loops over each user's pairs above the
    share floor.

    Parameters
    ----------
    n_lo : int
        First user of the chunk.
    n_hi : int
        One past the chunk's last user.
    x : float64[:]
        Tasks per pair, shape (n_pairs,).
    share : float64[:]
        Each pair's share π of its user's budget, shape (n_pairs,).
    user_start : int64[:]
        Shape (n_users + 1,): user n's pairs are ``user_start[n] .. user_start[n + 1] - 1``.
    pair_server : int64[:]
        Each pair's server, shape (n_pairs,).
    load : float64[:, :]
        Shape (n_pairs, K): per-task use of each server constraint over its capacity.
    binding : int64[:]
        Each server's most used constraint, shape (n_servers,).
    out : float64[:, :]
        The chunk's coupling part, shape (n_servers, n_servers), accumulated here.
    """
    picked = np.empty(user_start[n_hi] - user_start[n_lo], dtype=np.int64)
    for n in range(n_lo, n_hi):
        count = 0
        for p in range(user_start[n], user_start[n + 1]):
            if share[p] > _SHARE_FLOOR:
                picked[count] = p
                count += 1
        for a in range(count):
            p = picked[a]
            i = pair_server[p]
            u = x[p] * load[p, binding[i]]
            for b in range(count):
                out[i, pair_server[picked[b]]] += u * share[picked[b]]


@njit(cache=True, inline="always")
def _coupling_block(
    n_lo, n_hi, dense, x, share, user_start, pair_server, load, binding, dense_u, dense_s, out
):
    """The price coupling of users ``n_lo .. n_hi - 1``: by the loops, or by one dense product when
    ``dense``.

    Parameters
    ----------
    n_lo : int
        First user of the chunk.
    n_hi : int
        One past the chunk's last user.
    dense : bool
        Whether to form the coupling by one dense product (else by per-user loops).
    x : float64[:]
        Tasks per pair, shape (n_pairs,).
    share : float64[:]
        Each pair's share π of its user's budget, shape (n_pairs,).
    user_start : int64[:]
        Shape (n_users + 1,): user n's pairs are ``user_start[n] .. user_start[n + 1] - 1``.
    pair_server : int64[:]
        Each pair's server, shape (n_pairs,).
    load : float64[:, :]
        Shape (n_pairs, K): per-task use of each server constraint over its capacity.
    binding : int64[:]
        Each server's most used constraint, shape (n_servers,).
    dense_u : float64[:, :]
        Scratch, shape (n_users, n_servers): x load on the binding constraint.
    dense_s : float64[:, :]
        Scratch, shape (n_users, n_servers): the shares.
    out : float64[:, :]
        The chunk's coupling part, shape (n_servers, n_servers), accumulated here.
    """
    if not dense:
        _coupling_chunk(n_lo, n_hi, x, share, user_start, pair_server, load, binding, out)
        return
    for n in range(n_lo, n_hi):
        dense_u[n, :] = 0.0
        dense_s[n, :] = 0.0
        for p in range(user_start[n], user_start[n + 1]):
            i = pair_server[p]
            dense_u[n, i] = x[p] * load[p, binding[i]]
            dense_s[n, i] = share[p]
    out += np.dot(dense_u[n_lo:n_hi].T, dense_s[n_lo:n_hi])


@njit(cache=True, parallel=True)
def _coupling_over_chunks(
    dense,
    x,
    share,
    user_start,
    pair_server,
    load,
    binding,
    n_servers,
    chunk_start,
    dense_u,
    dense_s,
):
    """:func:`_coupling_block` per user chunk, each into its own part; returns the summed coupling.

    Parameters
    ----------
    dense : bool
        Whether to form the coupling by one dense product (else by per-user loops).
    x : float64[:]
        Tasks per pair, shape (n_pairs,).
    share : float64[:]
        Each pair's share π of its user's budget, shape (n_pairs,).
    user_start : int64[:]
        Shape (n_users + 1,): user n's pairs are ``user_start[n] .. user_start[n + 1] - 1``.
    pair_server : int64[:]
        Each pair's server, shape (n_pairs,).
    load : float64[:, :]
        Shape (n_pairs, K): per-task use of each server constraint over its capacity.
    binding : int64[:]
        Each server's most used constraint, shape (n_servers,).
    n_servers : int
        Number of servers.
    chunk_start : int64[:]
        User chunk boundaries, shape (n_chunks + 1,) (:func:`.pair_kernels.user_chunks`).
    dense_u : float64[:, :]
        Scratch, shape (n_users, n_servers): x load on the binding constraint.
    dense_s : float64[:, :]
        Scratch, shape (n_users, n_servers): the shares.
    """
    parts = np.zeros((chunk_start.shape[0] - 1, n_servers, n_servers))
    for c in prange(chunk_start.shape[0] - 1):
        _coupling_block(
            chunk_start[c],
            chunk_start[c + 1],
            dense,
            x,
            share,
            user_start,
            pair_server,
            load,
            binding,
            dense_u,
            dense_s,
            parts[c],
        )
    return sum_chunks(parts.reshape((parts.shape[0], -1))).reshape(parts.shape[1:])


@njit(cache=True)
def _scattered_update_cost(n_servers):
    """What one update of the per-user loops costs, in multiply-adds of the dense product (users x
    servers²): 16 up to 256 servers, growing as servers^0.8 beyond. Measured on 2 cores at 10⁴
    users, 40% of the shares above the floor: 15 at 100 servers, 22 at 300, 30 at 500 and 50 at
    1,000, as the dense product gains on larger matrices and the scattered updates leave the caches
    (a coupling matrix of 1,000 servers is 8 MB). With 16 at every size, PS-DSF at 10⁴ x 10³ ran
    25 of its 30 couplings by the loops, at twice the time of the product. Up to 256 servers the
    choice, and so every allocation there, is what it was.

    Parameters
    ----------
    n_servers : int
        Number of servers.
    """
    return 16.0 * max(1.0, n_servers / 256.0) ** 0.8


@njit(cache=True)
def _price_coupling(
    x, share, user_start, pair_server, load, binding, n_servers, chunk_start, dense_u, dense_s
):
    """coupling[i, j] = Σ_n x[n, i] load[n, i, binding_i] π[n, j]. Pairs with a share below the
    floor contribute nothing; when few remain (small μ) loops over each user's remaining pairs are
    cheaper than one dense (users x servers) product (:func:`_scattered_update_cost`). User chunks
    in parallel when there are several.

    Parameters
    ----------
    x : float64[:]
        Tasks per pair, shape (n_pairs,).
    share : float64[:]
        Each pair's share π of its user's budget, shape (n_pairs,).
    user_start : int64[:]
        Shape (n_users + 1,): user n's pairs are ``user_start[n] .. user_start[n + 1] - 1``.
    pair_server : int64[:]
        Each pair's server, shape (n_pairs,).
    load : float64[:, :]
        Shape (n_pairs, K): per-task use of each server constraint over its capacity.
    binding : int64[:]
        Each server's most used constraint, shape (n_servers,).
    n_servers : int
        Number of servers.
    chunk_start : int64[:]
        User chunk boundaries, shape (n_chunks + 1,) (:func:`.pair_kernels.user_chunks`).
    dense_u : float64[:, :]
        Scratch, shape (n_users, n_servers): x load on the binding constraint.
    dense_s : float64[:, :]
        Scratch, shape (n_users, n_servers): the shares.
    """
    n_users = user_start.shape[0] - 1
    work = 0
    for n in range(n_users):
        count = 0
        for p in range(user_start[n], user_start[n + 1]):
            if share[p] > _SHARE_FLOOR:
                count += 1
        work += count * count
    dense = work * _scattered_update_cost(n_servers) > n_users * n_servers * n_servers
    return _coupling_over_chunks(
        dense,
        x,
        share,
        user_start,
        pair_server,
        load,
        binding,
        n_servers,
        chunk_start,
        dense_u,
        dense_s,
    )


@njit(cache=True)
def _newton_matrix(coupling, fullness, has_pairs, diagonal, scale):
    """diag(diagonal) + scale · diag(1/fullness) · coupling on servers with pairs; -1 on the
    others.

    Parameters
    ----------
    coupling : float64[:, :]
        The price coupling, shape (n_servers, n_servers).
    fullness : float64[:]
        Each server's use of its binding constraint, shape (n_servers,).
    has_pairs : bool[:]
        Whether each server has a usable pair, shape (n_servers,).
    diagonal : float
        Added to the matrix's diagonal.
    scale : float
        Factor of the coupling term.
    """
    n = coupling.shape[0]
    mat = np.zeros((n, n))
    for i in range(n):
        if not has_pairs[i]:
            mat[i, i] = -1.0
            continue
        f = scale / fullness[i]
        for j in range(n):
            if has_pairs[j]:
                mat[i, j] = f * coupling[i, j]
        mat[i, i] += diagonal
    return mat


@njit(cache=True, inline="always")
def _derivative_chunk(
    q, mu, n_lo, n_hi, user_start, pair_server, log_gamma, load, x, share, binding, out
):
    """∂F/∂μ's sum over users ``n_lo .. n_hi - 1`` (one chunk of
    :func:`_derivative_over_chunks`).

    Parameters
    ----------
    q : float64[:]
        Log-prices q_i, shape (n_servers,).
    mu : float
        The logit temperature μ > 0.
    n_lo : int
        First user of the chunk.
    n_hi : int
        One past the chunk's last user.
    user_start : int64[:]
        Shape (n_users + 1,): user n's pairs are ``user_start[n] .. user_start[n + 1] - 1``.
    pair_server : int64[:]
        Each pair's server, shape (n_pairs,).
    log_gamma : float64[:]
        log γ of each pair, shape (n_pairs,).
    load : float64[:, :]
        Shape (n_pairs, K): per-task use of each server constraint over its capacity.
    x : float64[:]
        Tasks per pair, shape (n_pairs,).
    share : float64[:]
        Each pair's share π of its user's budget, shape (n_pairs,).
    binding : int64[:]
        Each server's most used constraint, shape (n_servers,).
    out : float64[:]
        The chunk's derivative part, shape (n_servers,), accumulated here.
    """
    for n in range(n_lo, n_hi):
        lo, hi = user_start[n], user_start[n + 1]
        best = -np.inf
        for p in range(lo, hi):
            best = max(best, log_gamma[p] - q[pair_server[p]])
        mean = 0.0
        for p in range(lo, hi):
            if share[p] > 0.0:
                mean += share[p] * (log_gamma[p] - q[pair_server[p]] - best) / mu
        for p in range(lo, hi):
            if x[p] > 0.0:
                i = pair_server[p]
                z = (log_gamma[p] - q[i] - best) / mu
                out[i] -= x[p] * load[p, binding[i]] * (z - mean) / mu


@njit(cache=True, parallel=True)
def _derivative_over_chunks(
    q, mu, user_start, pair_server, log_gamma, load, x, share, binding, chunk_start
):
    """:func:`_derivative_chunk` per user chunk, each into its own part; returns the summed
    derivative.

    Parameters
    ----------
    q : float64[:]
        Log-prices q_i, shape (n_servers,).
    mu : float
        The logit temperature μ > 0.
    user_start : int64[:]
        Shape (n_users + 1,): user n's pairs are ``user_start[n] .. user_start[n + 1] - 1``.
    pair_server : int64[:]
        Each pair's server, shape (n_pairs,).
    log_gamma : float64[:]
        log γ of each pair, shape (n_pairs,).
    load : float64[:, :]
        Shape (n_pairs, K): per-task use of each server constraint over its capacity.
    x : float64[:]
        Tasks per pair, shape (n_pairs,).
    share : float64[:]
        Each pair's share π of its user's budget, shape (n_pairs,).
    binding : int64[:]
        Each server's most used constraint, shape (n_servers,).
    chunk_start : int64[:]
        User chunk boundaries, shape (n_chunks + 1,) (:func:`.pair_kernels.user_chunks`).
    """
    parts = np.zeros((chunk_start.shape[0] - 1, q.shape[0]))
    for c in prange(chunk_start.shape[0] - 1):
        _derivative_chunk(
            q,
            mu,
            chunk_start[c],
            chunk_start[c + 1],
            user_start,
            pair_server,
            log_gamma,
            load,
            x,
            share,
            binding,
            parts[c],
        )
    return sum_chunks(parts)


@njit(cache=True)
def _mu_derivative(
    q,
    mu,
    user_start,
    pair_server,
    log_gamma,
    load,
    x,
    share,
    binding,
    fullness,
    has_pairs,
    chunk_start,
):
    """∂F/∂μ at fixed prices: log π[n, i] moves by -(z[n, i] - Σ_j π[n, j] z[n, j]) / μ
    with z = (v - max v) / μ.

    Parameters
    ----------
    q : float64[:]
        Log-prices q_i, shape (n_servers,).
    mu : float
        The logit temperature μ > 0.
    user_start : int64[:]
        Shape (n_users + 1,): user n's pairs are ``user_start[n] .. user_start[n + 1] - 1``.
    pair_server : int64[:]
        Each pair's server, shape (n_pairs,).
    log_gamma : float64[:]
        log γ of each pair, shape (n_pairs,).
    load : float64[:, :]
        Shape (n_pairs, K): per-task use of each server constraint over its capacity.
    x : float64[:]
        Tasks per pair, shape (n_pairs,).
    share : float64[:]
        Each pair's share π of its user's budget, shape (n_pairs,).
    binding : int64[:]
        Each server's most used constraint, shape (n_servers,).
    fullness : float64[:]
        Each server's use of its binding constraint, shape (n_servers,).
    has_pairs : bool[:]
        Whether each server has a usable pair, shape (n_servers,).
    chunk_start : int64[:]
        User chunk boundaries, shape (n_chunks + 1,) (:func:`.pair_kernels.user_chunks`).
    """
    out = _derivative_over_chunks(
        q, mu, user_start, pair_server, log_gamma, load, x, share, binding, chunk_start
    )
    for i in range(q.shape[0]):
        out[i] = out[i] / fullness[i] if has_pairs[i] else 0.0
    return out


@njit(cache=True)
def _newton_solve(coupling, fullness, has_pairs, diagonal, scale, rhs):
    """The Newton system :func:`_newton_matrix` (coupling, fullness, has_pairs, diagonal, scale) x =
    rhs.

    Parameters
    ----------
    coupling : float64[:, :]
        The price coupling, shape (n_servers, n_servers).
    fullness : float64[:]
        Each server's use of its binding constraint, shape (n_servers,).
    has_pairs : bool[:]
        Whether each server has a usable pair, shape (n_servers,).
    diagonal : float
        Added to the matrix's diagonal.
    scale : float
        Factor of the coupling term.
    rhs : float64[:]
        Right-hand side, shape (n_servers,).
    """
    return solve(_newton_matrix(coupling, fullness, has_pairs, diagonal, scale), rhs)


def _continuation(
    kernels,
    user_start,
    pair_server,
    log_gamma,
    gamma,
    weight,
    load,
    chunk_start,
    n_servers,
    has_pairs,
    mu_final,
    stage_tol,
    max_newton,
    factor,
):
    """Newton on F(q) = 0 for μ = 1, factor, factor², ..., mu_final; each stage starts from the
    tangent predictor q + (dq/dμ) Δμ, dq/dμ = -J⁻¹ ∂F/∂μ. A stage whose line search
    stalls is retried from the last root without the predictor, then with μ moved half as far
    (geometrically). Returns (q, μ, converged, iterations, function evaluations, stages,
    retries, |F|_inf).

    Python steering compiled kernels (``kernels``: the serial twins or the parallel chain): a few
    dozen kernel calls per Newton step, each O(pairs) or one dense solve: the steering costs ~2% at
    1,000 users x 100 servers and ~9% at 300 x 30, while a compiled driver re-optimised copies of
    every kernel it calls on its first compilation (2 s of PS-DSF's cold start). Vector updates are
    NumPy's element-wise operations (``q + t * d``, ``-r``), which round as the compiled loops did;
    sums and maxima stay in kernels (:func:`_norms`)."""
    n_users = user_start.shape[0] - 1
    n_pairs = pair_server.shape[0]
    x = np.empty(n_pairs)
    share = np.empty(n_pairs)
    trial_x = np.empty(n_pairs)
    trial_share = np.empty(n_pairs)
    dense_u = np.zeros((n_users, n_servers))
    dense_s = np.zeros((n_users, n_servers))
    binding = np.zeros(n_servers, dtype=np.int64)
    trial_binding = np.zeros(n_servers, dtype=np.int64)
    fullness = np.ones(n_servers)
    trial_fullness = np.ones(n_servers)
    q = np.zeros(n_servers)
    root = np.zeros(n_servers)
    tangent = np.zeros(n_servers)
    mu_root = 1.0
    mu = 1.0
    predict = False
    converged = False
    iterations = 0
    evaluations = 0
    stages = 0
    retries = 0
    norm = np.inf
    while iterations < max_newton:
        q = root + (mu - mu_root) * tangent if predict else root.copy()
        last = mu <= mu_final * (1 + 1e-12)
        use = kernels._shares(
            q, mu, user_start, pair_server, log_gamma, gamma, weight, load, chunk_start, x, share
        )
        evaluations += 1
        res = _residual(use, has_pairs, binding, fullness)
        norm, merit = _norms(res)
        # shares evaluated from q carry rounding ~1e-16/μ: no stage asks for less than 100x that
        target = max(1e-14 / mu, 0.0 if last else stage_tol * mu)
        while norm >= target and iterations < max_newton:
            coupling = kernels._price_coupling(
                x,
                share,
                user_start,
                pair_server,
                load,
                binding,
                n_servers,
                chunk_start,
                dense_u,
                dense_s,
            )
            step_dir = _newton_solve(
                coupling, fullness, has_pairs, -(1.0 + 1.0 / mu), 1.0 / mu, -res
            )
            step = 1.0
            accepted = False
            trial_q = q.copy()
            while step > 1e-3:
                trial_q = q + step * step_dir
                trial_use = kernels._shares(
                    trial_q,
                    mu,
                    user_start,
                    pair_server,
                    log_gamma,
                    gamma,
                    weight,
                    load,
                    chunk_start,
                    trial_x,
                    trial_share,
                )
                trial_res = _residual(trial_use, has_pairs, trial_binding, trial_fullness)
                _, trial_merit = _norms(trial_res)
                evaluations += 1
                if trial_merit < (1.0 - 1e-4 * step) * merit:
                    accepted = True
                    break
                step *= 0.5
            if not accepted:
                break
            q = trial_q
            x, trial_x = trial_x, x
            share, trial_share = trial_share, share
            binding, trial_binding = trial_binding, binding
            fullness, trial_fullness = trial_fullness, fullness
            res = trial_res
            merit = trial_merit
            norm, _ = _norms(res)
            iterations += 1
        # the last stage stops at the rounding floor; the polish needs the servers full to ~1e-3 at
        # most
        if not (norm < target or (last and norm < 1e-3)):
            retries += 1
            if stages == 0 or retries > 40:
                break
            if predict:
                predict = False
            else:
                mu = float(np.sqrt(mu * mu_root))
                predict = True
            continue
        stages += 1
        root = q.copy()
        mu_root = mu
        if last:
            converged = True
            break
        # the predictor needs the Jacobian at the stage's root (the last Newton matrix, one step
        # older, predicts worse: 50% more iterations)
        coupling = kernels._price_coupling(
            x,
            share,
            user_start,
            pair_server,
            load,
            binding,
            n_servers,
            chunk_start,
            dense_u,
            dense_s,
        )
        tangent = _newton_solve(
            coupling,
            fullness,
            has_pairs,
            -(1.0 + 1.0 / mu),
            1.0 / mu,
            -kernels._mu_derivative(
                q,
                mu,
                user_start,
                pair_server,
                log_gamma,
                load,
                x,
                share,
                binding,
                fullness,
                has_pairs,
                chunk_start,
            ),
        )
        predict = True
        mu = max(mu * factor, mu_final)
    return root, mu_root, converged, iterations, evaluations, stages, retries, norm


@njit(cache=True)
def _polish_start(q, x_all, user_start, pair_server, gamma, load, drop):
    """The pairs the polish keeps (a share at least ``drop`` of its user's total), grouped by user:
    (kept pair indices, kept_start per user, their x, server, load rows, 1/γ, and the server prices
    e^q).

    Parameters
    ----------
    q : float64[:]
        Log-prices q_i, shape (n_servers,).
    x_all : float64[:]
        Tasks per pair at the last root, shape (n_pairs,).
    user_start : int64[:]
        Shape (n_users + 1,): user n's pairs are ``user_start[n] .. user_start[n + 1] - 1``.
    pair_server : int64[:]
        Each pair's server, shape (n_pairs,).
    gamma : float64[:]
        γ of each pair (monopoly tasks), shape (n_pairs,).
    load : float64[:, :]
        Shape (n_pairs, K): per-task use of each server constraint over its capacity.
    drop : float
        Pairs below this fraction of their user's total are dropped.
    """
    n_users = user_start.shape[0] - 1
    n_pairs = pair_server.shape[0]
    kept = np.empty(n_pairs, dtype=np.int64)
    kept_start = np.empty(n_users + 1, dtype=np.int64)
    count = 0
    for n in range(n_users):
        kept_start[n] = count
        total = 0.0
        for p in range(user_start[n], user_start[n + 1]):
            total += x_all[p]
        for p in range(user_start[n], user_start[n + 1]):
            if x_all[p] >= drop * total:
                kept[count] = p
                count += 1
    kept_start[n_users] = count
    kept = kept[:count]
    x = np.empty(count)
    server = np.empty(count, dtype=np.int64)
    kept_load = np.empty((count, load.shape[1]))
    inv_gamma = np.empty(count)
    for a in range(count):  # loops: fancy indexing compiles numba's general indexing machinery
        p = kept[a]
        x[a] = x_all[p]
        server[a] = pair_server[p]
        for k in range(load.shape[1]):
            kept_load[a, k] = load[p, k]
        inv_gamma[a] = 1.0 / gamma[p]
    price = np.empty(q.shape[0])  # per unit of dominant share; per task it is price[i] / γ[n, i]
    for i in range(q.shape[0]):
        price[i] = np.exp(q[i])
    return kept, kept_start, x, server, kept_load, inv_gamma, price


@njit(cache=True)
def _polish_state(
    x,
    server,
    kept_load,
    kept_start,
    inv_gamma,
    price,
    weight,
    has_pairs,
    binding,
    fullness,
    spend,
    budget_gap,
    spent,
):
    """The polish's residuals at x: each server's unfilled fraction of its binding constraint
    (``binding``, ``fullness`` updated in place) and each user's unspent budget (``budget_gap``,
    ``spent``; ``spend`` becomes its spending shares). Returns (the largest of them, relative to the
    budget for budgets; the fill gaps).

    Parameters
    ----------
    x : float64[:]
        Tasks per kept pair, shape (n_kept,).
    server : int64[:]
        Each kept pair's server, shape (n_kept,).
    kept_load : float64[:, :]
        Each kept pair's load rows, shape (n_kept, K).
    kept_start : int64[:]
        Shape (n_users + 1,): user n's kept pairs are ``kept_start[n] .. kept_start[n + 1] - 1``.
    inv_gamma : float64[:]
        1/γ of each kept pair, shape (n_kept,).
    price : float64[:]
        Server prices e^q, shape (n_servers,).
    weight : float64[:]
        Each user's budget φ_n (its weight), shape (n_users,).
    has_pairs : bool[:]
        Whether each server has a usable pair, shape (n_servers,).
    binding : int64[:]
        Each server's most used constraint, shape (n_servers,).
    fullness : float64[:]
        Each server's use of its binding constraint, shape (n_servers,).
    spend : float64[:]
        Each kept pair's spending share, shape (n_kept,).
    budget_gap : float64[:]
        Each user's unspent budget, shape (n_users,).
    spent : float64[:]
        Each user's spending, shape (n_users,).
    """
    n_servers = has_pairs.shape[0]
    use = np.zeros((n_servers, kept_load.shape[1]))
    for a in range(x.shape[0]):
        i = server[a]
        for k in range(kept_load.shape[1]):
            use[i, k] += x[a] * kept_load[a, k]
    _residual(use, has_pairs, binding, fullness)
    residual = 0.0
    fill_gap = np.zeros(n_servers)
    for i in range(n_servers):
        if has_pairs[i]:
            fill_gap[i] = 1.0 - use[i, binding[i]]
            residual = max(residual, abs(fill_gap[i]))
    for n in range(kept_start.shape[0] - 1):
        total = 0.0
        for a in range(kept_start[n], kept_start[n + 1]):
            spend[a] = x[a] * price[server[a]] * inv_gamma[a]
            total += spend[a]
        spent[n] = total
        budget_gap[n] = weight[n] - total
        residual = max(residual, abs(budget_gap[n]) / weight[n])
        for a in range(kept_start[n], kept_start[n + 1]):
            spend[a] /= total  # spending shares
    return residual, fill_gap


@njit(cache=True)
def _polish_step(
    coupling,
    fill_gap,
    budget_gap,
    spent,
    spend,
    x,
    server,
    kept_load,
    kept_start,
    binding,
    fullness,
    has_pairs,
    kappa,
    price,
):
    """One Newton step of the polish: ``x`` and ``price`` updated in place (multiplicatively).

    Parameters
    ----------
    coupling : float64[:, :]
        The price coupling, shape (n_servers, n_servers).
    fill_gap : float64[:]
        Each server's unfilled fraction of its binding constraint, shape (n_servers,).
    budget_gap : float64[:]
        Each user's unspent budget, shape (n_users,).
    spent : float64[:]
        Each user's spending, shape (n_users,).
    spend : float64[:]
        Each kept pair's spending share, shape (n_kept,).
    x : float64[:]
        Tasks per kept pair, shape (n_kept,); updated in place.
    server : int64[:]
        Each kept pair's server, shape (n_kept,).
    kept_load : float64[:, :]
        Each kept pair's load rows, shape (n_kept, K).
    kept_start : int64[:]
        Shape (n_users + 1,): user n's kept pairs are ``kept_start[n] .. kept_start[n + 1] - 1``.
    binding : int64[:]
        Each server's most used constraint, shape (n_servers,).
    fullness : float64[:]
        Each server's use of its binding constraint, shape (n_servers,).
    has_pairs : bool[:]
        Whether each server has a usable pair, shape (n_servers,).
    kappa : float
        κ = 1 + 1/μ, the polish Newton system's coefficient.
    price : float64[:]
        Server prices, shape (n_servers,); updated in place.
    """
    n_servers = has_pairs.shape[0]
    # rhs: fill_gap - Σ_n x load (budget_gap / spent)
    rhs = fill_gap.copy()
    for n in range(kept_start.shape[0] - 1):
        g = budget_gap[n] / spent[n]
        for a in range(kept_start[n], kept_start[n + 1]):
            i = server[a]
            rhs[i] -= x[a] * kept_load[a, binding[i]] * g
    # the price equations' Newton matrix (rows divided by each server's fill) at temperature μ
    for i in range(n_servers):
        rhs[i] = rhs[i] / fullness[i] if has_pairs[i] else 0.0
    dq = solve(_newton_matrix(coupling, fullness, has_pairs, -kappa, kappa - 1.0), rhs)
    for n in range(kept_start.shape[0] - 1):
        acc = 0.0
        for a in range(kept_start[n], kept_start[n + 1]):
            acc += spend[a] * dq[server[a]]
        dz = budget_gap[n] / spent[n] - (1.0 - kappa) * acc
        for a in range(kept_start[n], kept_start[n + 1]):
            x[a] *= np.exp(-kappa * dq[server[a]] + dz)
    for i in range(n_servers):
        price[i] *= np.exp(dq[i])


def _polish(
    kernels,
    q,
    mu,
    user_start,
    pair_server,
    log_gamma,
    gamma,
    weight,
    load,
    chunk_start,
    n_servers,
    has_pairs,
    drop,
    steps,
):
    """Newton on (log x, q, log budget multipliers) with x updated multiplicatively: fills every
    server's binding constraint and spends every budget exactly. Works on the pairs kept after the
    drop (a few per user). Returns (x per pair, the largest unfilled fraction of a server or unspent
    fraction of a budget). Python steering kernels, as :func:`_continuation`."""
    n_users = user_start.shape[0] - 1
    n_pairs = pair_server.shape[0]
    x_all = np.empty(n_pairs)
    share = np.empty(n_pairs)
    kernels._shares(
        q, mu, user_start, pair_server, log_gamma, gamma, weight, load, chunk_start, x_all, share
    )
    kept, kept_start, x, server, kept_load, inv_gamma, price = _polish_start(
        q, x_all, user_start, pair_server, gamma, load, drop
    )
    kappa = 1.0 + 1.0 / mu
    dense_u = np.zeros((n_users, n_servers))
    dense_s = np.zeros((n_users, n_servers))
    binding = np.zeros(n_servers, dtype=np.int64)
    fullness = np.ones(n_servers)
    spend = np.empty(len(kept))
    budget_gap = np.empty(n_users)
    spent = np.empty(n_users)
    residual = np.inf
    for step in range(steps + 1):
        residual, fill_gap = _polish_state(
            x,
            server,
            kept_load,
            kept_start,
            inv_gamma,
            price,
            weight,
            has_pairs,
            binding,
            fullness,
            spend,
            budget_gap,
            spent,
        )
        if residual < 1e-13 or step == steps:
            break
        coupling = kernels._price_coupling(
            x,
            spend,
            kept_start,
            server,
            kept_load,
            binding,
            n_servers,
            chunk_start,
            dense_u,
            dense_s,
        )
        _polish_step(
            coupling,
            fill_gap,
            budget_gap,
            spent,
            spend,
            x,
            server,
            kept_load,
            kept_start,
            binding,
            fullness,
            has_pairs,
            kappa,
            price,
        )
    x_all[:] = 0.0
    x_all[kept] = x
    return x_all, residual


class MarketSolution(NamedTuple):
    """The market's allocation ``tasks[user, server]`` and its solver diagnostics."""

    tasks: np.ndarray
    diagnostics: dict


# one chunk (below PARALLEL_PAIRS pairs) runs serial copies that never compile a parallel region
_SERIAL, _PARALLEL = serial_twins(globals())


def psdsf_market(
    cluster: Cluster,
    *,
    time_shared: bool = False,
    mu_final: float = 1e-10,
    drop: float = 1e-7,
    max_newton: int = 500,
    factor: float = 0.1,
    stage_tol: float = 10.0,
) -> MarketSolution:
    """PS-DSF tasks[user, server] by the smoothed market (module docstring), one VDS level per
    server.

    The caller checks that every usable user loads a full constraint (:func:`.psdsf.psdsf` does).

    Parameters
    ----------
    cluster : Cluster
        The cluster.
    time_shared : bool, default False
        Time-shared servers (one constraint per server, Σ_n x[n, i] / γ[n, i] <= 1) instead of
        divisible ones.
    mu_final : float, default 1e-10
        The last temperature, in (0, 1) (Definition 4 holds to ~3 mu_final).
    drop : float, default 1e-7
        Shares below this fraction of a user's total are zeroed before the polish, in (0, 1).
    max_newton : int, default 500
        Cap on Newton steps, >= 1.
    factor : float, default 0.1
        Ratio between consecutive temperatures, in (0, 1).
    stage_tol : float, default 10.0
        A stage ends once |F|_inf < stage_tol · μ (its root is only the next stage's start), > 0.

    Returns
    -------
    MarketSolution
        ``(tasks, diagnostics)``: tasks of shape (n_users, n_servers); diagnostics
        ``newton_iterations``, ``evaluations`` (of the price equations), ``stages``, ``retries``
        (stages re-run closer to the last root), ``mu``, ``stage_residual`` (|F|_inf at the last
        stage), ``residual`` (largest unfilled fraction of a server or unspent fraction of a budget
        after the polish) and ``converged`` (residual below 1e-9).

    Raises
    ------
    InvalidInputError
        When ``cluster`` is not a Cluster or an option is out of range.

    References
    ----------
    .. [1] J. Khamse-Ashari, I. Lambadaris, G. Kesidis, B. Urgaonkar, Y. Zhao, "An Efficient and
       Fair Multi-Resource Allocation Mechanism for Heterogeneous Servers", IEEE TPDS, 2018,
       Definition 4.
    """
    if not isinstance(cluster, Cluster):
        raise InvalidInputError(f"cluster: expected a Cluster, got {type(cluster).__name__}")
    for name, value, low, high in (
        ("mu_final", mu_final, 0.0, 1.0),
        ("drop", drop, 0.0, 1.0),
        ("factor", factor, 0.0, 1.0),
        ("stage_tol", stage_tol, 0.0, np.inf),
    ):
        if not (isinstance(value, (int, float, np.floating)) and low < value < high):
            raise InvalidInputError(f"{name} = {value!r}: must be a number in ({low:g}, {high:g})")
    max_newton = as_count(max_newton, "max_newton")
    users, servers = np.nonzero(cluster.eligible)  # row-major: grouped by user, as the kernels need
    user_start = np.searchsorted(users, np.arange(cluster.n_users + 1)).astype(np.int64)
    pair_server = servers.astype(np.int64)
    gamma = cluster.gamma[users, servers]
    if time_shared:  # one constraint per server: Σ_n x[n, i] / γ[n, i] <= 1
        load = (1.0 / gamma)[:, None]
    else:
        cap = cluster.capacity[servers]
        with np.errstate(
            divide="ignore", invalid="ignore"
        ):  # a missing resource (cap 0) meets only zero demands
            load = np.where(cap > 0, cluster.demand[users] / cap, 0.0)
    load = np.ascontiguousarray(load)
    log_gamma = np.log(gamma)
    has_pairs = cluster.eligible.any(axis=0)
    weight = np.ascontiguousarray(cluster.weight, dtype=np.float64)
    chunk_start = user_chunks(user_start)
    kernels = _PARALLEL if len(chunk_start) > 2 else _SERIAL
    with one_blas_thread(), numba_threads(len(chunk_start) - 1):
        q, mu, converged, iterations, evaluations, stages, retries, stage_residual = _continuation(
            kernels,
            user_start,
            pair_server,
            log_gamma,
            gamma,
            weight,
            load,
            chunk_start,
            cluster.n_servers,
            has_pairs,
            float(mu_final),
            float(stage_tol),
            int(max_newton),
            float(factor),
        )
        x, residual = np.zeros(len(pair_server)), np.inf
        if converged:
            try:
                x, residual = _polish(
                    kernels,
                    q,
                    mu,
                    user_start,
                    pair_server,
                    log_gamma,
                    gamma,
                    weight,
                    load,
                    chunk_start,
                    cluster.n_servers,
                    has_pairs,
                    float(drop),
                    4,
                )
            except (
                np.linalg.LinAlgError
            ):  # non-finite or singular Newton matrix: reported as not converged
                pass
    tasks = np.zeros((cluster.n_users, cluster.n_servers))
    tasks[users, servers] = x
    fullest = float(cluster.load(tasks, time_shared).max(initial=0.0))
    if fullest > 1.0:  # the polish leaves servers full to ~1e-15: scale onto the feasible side
        tasks /= fullest
    diagnostics = {
        "newton_iterations": int(iterations),
        "evaluations": int(evaluations),
        "stages": int(stages),
        "retries": int(retries),
        "mu": float(mu),
        "stage_residual": float(stage_residual),
        "residual": float(residual),
        "converged": bool(np.isfinite(residual) and residual < 1e-9 and np.isfinite(tasks).all()),
    }
    return MarketSolution(tasks, diagnostics)
