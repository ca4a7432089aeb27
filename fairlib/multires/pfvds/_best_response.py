"""PF-VDS(α) by best responses: each server's exact α-fair best response to the others' totals,
Gauss-Seidel sweeps over servers, and the Nash residual that certifies an equilibrium
(:func:`nash_residual`).

A best response solves an R-dimensional dual: with prices λ >= 0, x[n, i](λ) = max(0, φ_n γ[n,
i] (γ[n, i] λ·d_n)^(-1/α) - x_{n,-i}), and λ minimises the (smooth, convex) dual by projected
Newton steps with backtracking. Sweeps that creep along one direction for long are extrapolated
along it (:func:`_gauss_seidel`). The front door is :func:`fairlib.multires.pfvds.pfvds`
(``method="best_response"``).
"""

from __future__ import annotations

import contextvars
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import NamedTuple

import numba
import numpy as np

from ..._jit import njit, steered
from ..._linear_solve import solve, solve_compiled
from ..._validate import (
    as_flag,
    MAX_ITERATIONS,
    InvalidInputError,
    _short,
    as_count,
    as_instance,
    as_real_array,
    as_tolerance,
)
from .._engine import pair_kernels
from .._engine.options import MethodOptions, option_name
from ..cluster import Cluster, per_server_alpha


class ResponseLimits(NamedTuple):
    """When one server's best response (:func:`_best_response` and the solvers it tries) stops:
    built by the Python wrapper, passed to the kernels as one argument (numba compiles it as a
    tuple).

    Parameters
    ----------
    tol : float
        Relative KKT tolerance.
    max_iter : int
        Iteration cap of each solver tried.
    """

    tol: float
    max_iter: int


class SweepLimits(NamedTuple):
    """When the Gauss-Seidel sweeps (:func:`_gauss_seidel`) stop, and their best responses' limits:
    built by the Python wrapper from :class:`BestResponseOptions`, passed to the kernels as one
    argument.

    Parameters
    ----------
    max_sweeps : int
        Sweep cap.
    tol : float
        The stopping rule: the largest change of an x[n, i] relative to the largest total.
    inner : ResponseLimits
        Each server's best response's limits.
    """

    max_sweeps: int
    tol: float
    inner: ResponseLimits


@njit(cache=True, nogil=True)
def _copy_vector(dst, src):
    """dst[:] = src as a loop: numba's slice assignment compiles its shape-mismatch message (about a
    second of string formatting) into every solver that uses it.

    Parameters
    ----------
    dst : (n,) ndarray
        The vector written.
    src : (n,) ndarray
        The vector read.
    """
    for j in range(src.shape[0]):
        dst[j] = src[j]


@njit(cache=True, nogil=True)
def _copy_matrix(dst, src):
    """dst[:, :] = src as a loop (see :func:`_copy_vector`).

    Parameters
    ----------
    dst : (n, m) ndarray
        The matrix written.
    src : (n, m) ndarray
        The matrix read.
    """
    for i in range(src.shape[0]):
        for j in range(src.shape[1]):
            dst[i, j] = src[i, j]


@njit(cache=True, nogil=True)
def _nonzero_indices(mask):
    """np.flatnonzero(mask) for a boolean vector, without compiling numba's general version (~0.2
    s).

    Parameters
    ----------
    mask : (n,) bool ndarray
        The vector whose True entries are indexed.

    Returns
    -------
    (k,) int64 ndarray
        The indices of the True entries, in order.
    """
    idx = np.empty(mask.shape[0], dtype=np.int64)
    count = 0
    for j in range(mask.shape[0]):
        if mask[j]:
            idx[count] = j
            count += 1
    return idx[:count]


@njit(cache=True, nogil=True, inline="always")  # one call site
def _utility_terms(x_o, x, a, gamma, weight, p, alpha):
    """Σ_n [φ_n f((x_o + x)/a) - x p] over the users (the Lagrangian's user part).

    Parameters
    ----------
    x_o : (n,) ndarray
        Each user's tasks on the other servers.
    x : (n,) ndarray
        The users' tasks on this server.
    a : (n,) ndarray
        φ_n γ[n, i]: the weight times the user's monopoly tasks on this server.
    gamma : (n,) ndarray
        γ[n, i]: the tasks each user could run alone on this server.
    weight : (n,) ndarray
        The users' weights φ_n.
    p : (n,) ndarray
        The users' prices per task.
    alpha : float
        The server's α (> 0, finite).

    Returns
    -------
    float
        The users' part of the Lagrangian.
    """
    total = 0.0
    for n in range(x.shape[0]):
        s = (x_o[n] + x[n]) / a[n]
        if s <= 0.0:
            return -np.inf if alpha >= 1.0 else -x[n] * p[n]
        if alpha == 1.0:
            total += weight[n] * np.log(s)
        else:
            total += weight[n] * s ** (1.0 - alpha) / (1.0 - alpha)
        total -= x[n] * p[n]
    return total


@njit(cache=True, nogil=True)
def _primal(lam, d, x_o, a, gamma, alpha, x, p):
    """x(λ) and the prices p_n = λ·d_n; returns False when some user faces a zero price.

    Parameters
    ----------
    lam : (R,) ndarray
        Prices of the server's resources (warm start, updated in place where said).
    d : (n, R) ndarray
        Demands of the server's usable users per task.
    x_o : (n,) ndarray
        Each user's tasks on the other servers.
    a : (n,) ndarray
        φ_n γ[n, i]: the weight times the user's monopoly tasks on this server.
    gamma : (n,) ndarray
        γ[n, i]: the tasks each user could run alone on this server.
    alpha : float
        The server's α (> 0, finite).
    x : (n,) ndarray
        The users' tasks on this server (written).
    p : (n,) ndarray
        The users' prices per task p_n = λ·d_n (written).

    Returns
    -------
    bool
        False when some user faces a zero price (its demand is unbounded).
    """
    for n in range(d.shape[0]):
        pn = 0.0
        for r in range(d.shape[1]):
            pn += lam[r] * d[n, r]
        p[n] = pn
        if pn <= 0.0:
            return False
        v = a[n] * (gamma[n] * pn) ** (-1.0 / alpha) - x_o[n]
        x[n] = v if v > 0.0 else 0.0
    return True


@njit(cache=True, nogil=True)
def _dual_value(lam, cap, d, x_o, a, gamma, weight, alpha, x, p):
    """Parameters
    ----------
    lam : (R,) ndarray
        Prices of the server's resources (warm start, updated in place where said).
    cap : (R,) ndarray
        The server's capacities (or its one time-shared constraint).
    d : (n, R) ndarray
        Demands of the server's usable users per task.
    x_o : (n,) ndarray
        Each user's tasks on the other servers.
    a : (n,) ndarray
        φ_n γ[n, i]: the weight times the user's monopoly tasks on this server.
    gamma : (n,) ndarray
        γ[n, i]: the tasks each user could run alone on this server.
    weight : (n,) ndarray
        The users' weights φ_n.
    alpha : float
        The server's α (> 0, finite).
    x : (n,) ndarray
        The users' tasks on this server (written).
    p : (n,) ndarray
        The users' prices per task p_n = λ·d_n (written).

    Returns
    -------
    float
        The dual value at ``lam`` (inf where some user faces a zero price); fills ``x`` and ``p``.
    """
    if not _primal(lam, d, x_o, a, gamma, alpha, x, p):
        return np.inf
    value = _utility_terms(x_o, x, a, gamma, weight, p, alpha)
    for r in range(cap.shape[0]):
        value += lam[r] * cap[r]
    return value


@njit(cache=True, nogil=True, inline="always")
def _usage_and_hessian(d, x, x_o, p, alpha):
    """Resources the users' demands x(λ) use, and the Hessian of the dual value: Σ_n w_n d_n
    d_nᵀ over served users, w_n = -dx_n/dp_n = (x_n + x_o,n) / (α p_n).

    Parameters
    ----------
    d : (n, R) ndarray
        Demands of the server's usable users per task.
    x : (n,) ndarray
        The users' demands x(λ).
    x_o : (n,) ndarray
        Each user's tasks on the other servers.
    p : (n,) ndarray
        The users' prices per task.
    alpha : float
        The server's α (> 0, finite).

    Returns
    -------
    used : (R,) ndarray
        The resources the demands use.
    hess : (R, R) ndarray
        The dual's Hessian.
    """
    n_users, m = d.shape
    used = np.zeros(m)
    hess = np.zeros((m, m))
    for n in range(n_users):
        if x[n] > 0.0:
            w = (x[n] + x_o[n]) / (alpha * p[n])
            for r in range(m):
                used[r] += d[n, r] * x[n]
                for s in range(m):
                    hess[r, s] += w * d[n, r] * d[n, s]
        else:
            for r in range(m):
                used[r] += d[n, r] * x[n]
    return used, hess


@njit(cache=True, nogil=True, inline="always")
def _kkt_gap(cap, grad, lam):
    """Largest relative violation of the server's KKT conditions: overuse, and complementarity of
    prices and slack (``grad`` = capacity - use), relative to capacity.

    Parameters
    ----------
    cap : (R,) ndarray
        The server's capacities (or its one time-shared constraint).
    grad : (R,) ndarray
        The dual's gradient: capacity minus use.
    lam : (R,) ndarray
        Prices of the server's resources (warm start, updated in place where said).

    Returns
    -------
    float
        The largest relative violation.
    """
    gap = 0.0
    for r in range(cap.shape[0]):
        if cap[r] > 0.0:
            viol = max(-grad[r], 0.0) / cap[r]
            comp = (
                abs(lam[r] * grad[r]) / max(abs(lam[r] * cap[r]), 1e-300) if lam[r] > 0.0 else 0.0
            )
            gap = max(gap, viol, comp)
    return gap


@njit(cache=True, nogil=True, inline="always")
def _price_step(cap, grad, hess, lam):
    """Projected Newton direction for the prices: Newton on the free prices whose resource some
    served user demands (with a small ridge: collinear demands make the Hessian singular); a tiny
    price on a slack resource is held at its bound (ε-active set); elsewhere (a zero Hessian row)
    the price moves multiplicatively towards balance.

    Parameters
    ----------
    cap : (R,) ndarray
        The server's capacities (or its one time-shared constraint).
    grad : (R,) ndarray
        The dual's gradient: capacity minus use.
    hess : (R, R) ndarray
        The dual's Hessian.
    lam : (R,) ndarray
        Prices of the server's resources (warm start, updated in place where said).

    Returns
    -------
    (R,) ndarray
        The direction of the prices.
    """
    m = cap.shape[0]
    step = np.zeros(m)
    newton = np.zeros(m, dtype=np.bool_)
    lam_max = 0.0
    for r in range(m):
        lam_max = max(lam_max, lam[r])
    for r in range(m):
        if grad[r] > 0.0 and lam[r] <= 1e-8 * lam_max:
            step[r] = -lam[r]
            continue
        free = lam[r] > 0.0 or grad[r] < 0.0
        if not free:
            continue
        if hess[r, r] > 1e-14 * max(abs(grad[r]), 1e-300) / max(lam[r], 1e-300):
            newton[r] = True
        elif grad[r] > 0.0:
            step[r] = -lam[r]
        else:
            step[r] = max(lam[r], 1.0 / max(cap[r], 1e-300)) * (-grad[r]) / max(cap[r], 1e-300)
    idx = _nonzero_indices(newton)
    if idx.shape[0] > 0:
        h = np.empty((idx.shape[0], idx.shape[0]))
        g = np.empty(idx.shape[0])
        for u in range(idx.shape[0]):
            g[u] = -grad[idx[u]]  # negated here: -g would compile an array expression
            for v in range(idx.shape[0]):
                h[u, v] = hess[idx[u], idx[v]]
        trace = 0.0
        for u in range(idx.shape[0]):
            trace += h[u, u]
        for u in range(idx.shape[0]):
            h[u, u] += 1e-9 * trace / idx.shape[0]
        sol = solve(h, g)
        for u in range(idx.shape[0]):
            step[idx[u]] = sol[u]
    return step


@njit(cache=True, nogil=True, inline="always")
def _line_search(
    step, grad, hess, lam, value, cap, d, x_o, a, gamma, weight, alpha, lam_try, x_try, p_try
):
    """Backtracking on the dual value along the projected path λ + t·step (t halved up to 60
    times); if the Newton direction fails, a diagonally scaled gradient step. Fills ``lam_try``,
    ``x_try``, ``p_try`` with the accepted point; returns (accepted, its dual value).

    Parameters
    ----------
    step : (R,) ndarray
        The search direction of the prices.
    grad : (R,) ndarray
        The dual's gradient: capacity minus use.
    hess : (R, R) ndarray
        The dual's Hessian.
    lam : (R,) ndarray
        Prices of the server's resources (warm start, updated in place where said).
    value : float
        The dual value at ``lam``.
    cap : (R,) ndarray
        The server's capacities (or its one time-shared constraint).
    d : (n, R) ndarray
        Demands of the server's usable users per task.
    x_o : (n,) ndarray
        Each user's tasks on the other servers.
    a : (n,) ndarray
        φ_n γ[n, i]: the weight times the user's monopoly tasks on this server.
    gamma : (n,) ndarray
        γ[n, i]: the tasks each user could run alone on this server.
    weight : (n,) ndarray
        The users' weights φ_n.
    alpha : float
        The server's α (> 0, finite).
    lam_try : (R,) ndarray
        The accepted prices (written).
    x_try : (n,) ndarray
        The users' tasks at the accepted prices (written).
    p_try : (n,) ndarray
        The users' prices per task at the accepted prices (written).

    Returns
    -------
    accepted : bool
        Whether a point decreasing the dual value was found.
    value : float
        Its dual value.
    """
    m = cap.shape[0]
    v = value
    for attempt in range(2):
        if attempt == 1:
            for r in range(m):
                step[r] = (
                    -grad[r] / max(hess[r, r], 1e-12 * max(abs(grad[r]), 1e-300))
                    if (lam[r] > 0.0 or grad[r] < 0.0)
                    else 0.0
                )
        t = 1.0
        for _ in range(60):
            for r in range(m):
                lam_try[r] = max(lam[r] + t * step[r], 0.0)
            v = _dual_value(lam_try, cap, d, x_o, a, gamma, weight, alpha, x_try, p_try)
            if v < value:
                return True, v
            t *= 0.5
    return False, v


@njit(cache=True, nogil=True, inline="always")
def _usage(d, x):
    """used[r] = Σ_k d[k, r] x[k], added in user order.

    Parameters
    ----------
    d : (n, R) ndarray
        Demands of the server's usable users per task.
    x : (n,) ndarray
        The users' tasks on this server.

    Returns
    -------
    (R,) ndarray
        The use of each resource.
    """
    used = np.zeros(d.shape[1])
    for r in range(d.shape[1]):
        for k in range(d.shape[0]):
            used[r] += d[k, r] * x[k]
    return used


@njit(cache=True, nogil=True)
def _scale_into_capacity(cap, d, x):
    """Scale ``x`` (in place) inside every capacity: the dual iteration can stop (rounding) with a
    resource over capacity by ~1e-6 relative, and each best response must be feasible.

    Parameters
    ----------
    cap : (R,) ndarray
        The server's capacities (or its one time-shared constraint).
    d : (n, R) ndarray
        Demands of the server's usable users per task.
    x : (n,) ndarray
        The users' tasks on this server (scaled in place).
    """
    factor = 1.0
    used = _usage(d, x)
    for r in range(cap.shape[0]):
        if used[r] > cap[r]:
            factor = min(factor, cap[r] / used[r])
    if factor < 1.0:
        for n in range(d.shape[0]):
            x[n] *= factor


@njit(cache=True, nogil=True)
def _log_price_state(theta, active, d, x_o, a, gamma, alpha, x, share):
    """Users' demands at prices λ_r = e^θ_r on the ``active`` resources (0 elsewhere), computed in
    logs: with p_n = Σ_r d_nr λ_r, x_n = max(0, a_n (γ_n p_n)^(-1/α) - x_o,n), and ``share[n, r]
    = d_nr λ_r / p_n``. Returns False when some user has no priced resource (its demand would be
    unbounded).

    Parameters
    ----------
    theta : (R,) ndarray
        Log prices θ_r = log λ_r of the active resources.
    active : (R,) bool ndarray
        The resources whose price is free (the others are 0).
    d : (n, R) ndarray
        Demands of the server's usable users per task.
    x_o : (n,) ndarray
        Each user's tasks on the other servers.
    a : (n,) ndarray
        φ_n γ[n, i]: the weight times the user's monopoly tasks on this server.
    gamma : (n,) ndarray
        γ[n, i]: the tasks each user could run alone on this server.
    alpha : float
        The server's α (> 0, finite).
    x : (n,) ndarray
        The users' tasks on this server (written).
    share : (n, R) ndarray
        d_nr λ_r / p_n (written).

    Returns
    -------
    bool
        False when some user has no priced resource.
    """
    n_users, m = d.shape
    top = -np.inf
    for r in range(m):
        if active[r] and theta[r] > top:
            top = theta[r]
    for k in range(n_users):
        total = 0.0
        for r in range(m):
            share[k, r] = d[k, r] * np.exp(theta[r] - top) if active[r] and d[k, r] > 0.0 else 0.0
            total += share[k, r]
        if not total > 0.0:
            return False
        for r in range(m):
            share[k, r] /= total
        v = a[k] * np.exp(-(np.log(gamma[k]) + top + np.log(total)) / alpha) - x_o[k]
        x[k] = v if v > 0.0 else 0.0
    return True


@njit(cache=True, nogil=True)
def _log_price_gap(cap, d, x, active):
    """Relative KKT violation at log prices: |use - capacity| on priced resources, overuse on the
    others.

    Parameters
    ----------
    cap : (R,) ndarray
        The server's capacities (or its one time-shared constraint).
    d : (n, R) ndarray
        Demands of the server's usable users per task.
    x : (n,) ndarray
        The users' demands at the log prices.
    active : (R,) bool ndarray
        The resources whose price is free (the others are 0).

    Returns
    -------
    float
        The largest relative violation.
    """
    gap = 0.0
    used = _usage(d, x)
    for r in range(cap.shape[0]):
        viol = abs(used[r] - cap[r]) if active[r] else max(used[r] - cap[r], 0.0)
        if cap[r] > 0.0:
            gap = max(gap, viol / cap[r])
        elif viol > 0.0:  # a resource the server lacks (capacity 0) that someone uses
            gap = np.inf
    return gap


@njit(cache=True, nogil=True, inline="always")
def _log_price_start(d, lam):
    """The log-price Newton's start: which resources some user demands, which are priced (demanded,
    with a positive price in ``lam``) and their log prices (0 where not finite).

    Parameters
    ----------
    d : (n, R) ndarray
        Demands of the server's usable users per task.
    lam : (R,) ndarray
        The warm-start prices.

    Returns
    -------
    demanded : (R,) bool ndarray
        The resources some user demands.
    active : (R,) bool ndarray
        The demanded resources with a positive price.
    theta : (R,) ndarray
        Their log prices (0 where not finite).
    """
    n_users, m = d.shape
    demanded = np.zeros(m, dtype=np.bool_)
    for r in range(m):
        for k in range(n_users):
            if d[k, r] > 0.0:
                demanded[r] = True
    active = np.zeros(m, dtype=np.bool_)
    theta = np.zeros(m)
    for r in range(m):
        if demanded[r] and lam[r] > 0.0:
            active[r] = True
            theta[r] = np.log(lam[r])
    for r in range(m):
        if not np.isfinite(theta[r]):
            theta[r] = 0.0
    return demanded, active, theta


@njit(cache=True, nogil=True, inline="always")
def _log_price_jacobian(d, x, x_o, share, alpha):
    """∂use_r/∂θ_t = -Σ_n d_nr (x_n + x_o,n) share_nt / α over served users.

    Parameters
    ----------
    d : (n, R) ndarray
        Demands of the server's usable users per task.
    x : (n,) ndarray
        The users' demands at the log prices.
    x_o : (n,) ndarray
        Each user's tasks on the other servers.
    share : (n, R) ndarray
        d_nr λ_r / p_n.
    alpha : float
        The server's α (> 0, finite).

    Returns
    -------
    (R, R) ndarray
        ∂use_r/∂θ_t.
    """
    n_users, m = d.shape
    jac = np.zeros((m, m))
    for k in range(n_users):
        if x[k] > 0.0:
            c = (x[k] + x_o[k]) / alpha
            for r in range(m):
                for t in range(m):
                    jac[r, t] -= d[k, r] * c * share[k, t]
    return jac


@njit(cache=True, nogil=True, inline="always")
def _log_price_finish(theta, active, lam):
    """``lam`` = e^θ on the priced resources (capped at 1e300), 0 on the others.

    Parameters
    ----------
    theta : (R,) ndarray
        Log prices θ_r = log λ_r of the active resources.
    active : (R,) bool ndarray
        The resources whose price is free (the others are 0).
    lam : (R,) ndarray
        The prices (written).
    """
    for r in range(lam.shape[0]):
        lam[r] = min(np.exp(theta[r]), 1e300) if active[r] else 0.0


@njit(cache=True, nogil=True, inline="always")
def _handed_over_price(r, theta, active, d, x, theta_try):
    """Log prices with resource r's price handed to the other active resources so that every served
    user's price p_n = Σ_t d_nt λ_t stays the same (p is linear in λ): with λ_r gone, Σ_{t≠r}
    d_nt δ_t = d_nr λ_r for every served n, solved in least squares. Every demand then stays where
    it is, so an under-used r leaves the active set still within capacity and the others' uses are
    unchanged. Where prices are not unique (more active resources than the served users' demands
    span, e.g. one user on two resources) only this keeps the active set's equations use_t = cap_t
    solvable: unpriced alone, r takes its users' prices down with it and they overuse the others.
    Writes ``theta_try`` (its entry r is left as in ``theta``); returns False where no such transfer
    exists: the equations have no exact solution (relative to each user's price, 1e-9) or one leaves
    a price <= 0.

    Parameters
    ----------
    r : int
        The resource whose price is handed over.
    theta : (R,) ndarray
        Log prices θ_r = log λ_r of the active resources.
    active : (R,) bool ndarray
        The resources whose price is free (r among them).
    d : (n, R) ndarray
        Demands of the server's usable users per task.
    x : (n,) ndarray
        The users' demands at the log prices.
    theta_try : (R,) ndarray
        The log prices after the transfer (written).

    Returns
    -------
    bool
        Whether the transfer exists.
    """
    n_users, m = d.shape
    top = -np.inf
    for t in range(m):
        if active[t] and theta[t] > top:
            top = theta[t]
    scaled = np.zeros(m)  # λ_t / max λ: prices may span hundreds of orders of magnitude
    others = 0
    for t in range(m):
        if active[t]:
            scaled[t] = np.exp(theta[t] - top)
            if t != r:
                others += 1
    served = 0
    for k in range(n_users):
        if x[k] > 0.0 and d[k, r] > 0.0:
            served += 1
    if others == 0 or served == 0:
        return False
    idx = np.empty(others, dtype=np.int64)
    u = 0
    for t in range(m):
        if active[t] and t != r:
            idx[u] = t
            u += 1
    normal = np.zeros((others, others))
    rhs = np.zeros(others)
    for k in range(n_users):
        if x[k] > 0.0:
            want = d[k, r] * scaled[r]
            for u in range(others):
                rhs[u] += d[k, idx[u]] * want
                for v in range(others):
                    normal[u, v] += d[k, idx[u]] * d[k, idx[v]]
    trace = 0.0
    for u in range(others):
        trace += normal[u, u]
    if not trace > 0.0:
        return False
    for u in range(
        others
    ):  # a small ridge: the transfer is not unique where the others' demands are collinear
        normal[u, u] += 1e-12 * trace / others
    delta = solve(normal, rhs)
    for k in range(n_users):
        if x[k] > 0.0:
            price = 0.0
            moved = 0.0
            for t in range(m):
                price += d[k, t] * scaled[t]
            for u in range(others):
                moved += d[k, idx[u]] * delta[u]
            if abs(moved - d[k, r] * scaled[r]) > 1e-9 * price:
                return False
    for t in range(m):
        theta_try[t] = theta[t]
    for u in range(others):
        after = scaled[idx[u]] + delta[u]
        if not after > 0.0:
            return False
        theta_try[idx[u]] = top + np.log(after)
    return True


@njit(cache=True, nogil=True)
def _log_price_response(cap, d, x_o, a, gamma, alpha, lam, limits):
    """Server best response by Newton on the log prices θ_r = log λ_r of an active set of
    resources, damped on the KKT violation. The marginal utilities are ŝ^-α: at α = 64 prices
    span hundreds of orders of magnitude and the dual value's changes fall below its rounding, so
    the dual-value line search of :func:`_best_response` stalls; in logs the demands are smooth with
    a well-scaled Jacobian ∂x_n/∂θ_r = -(x_n + x_o,n) d_nr λ_r / (α p_n). A resource joins
    the active set when overused, leaves it when under-used and still within capacity at price 0, or
    else when its price can be handed to the other active resources with every demand kept
    (:func:`_handed_over_price`). A local method: it is started from the prices where the dual
    Newton stalled, or after :func:`_coordinate_prices` has found the right priced resources (from
    arbitrary prices it can stall too). ``lam`` is the warm start, updated in place (capped at
    1e300). Returns (x, iterations, gap). Its loops over users, logarithms, exponentials and solves
    are kernels of their own (inlined when compiled), so that it runs steered from Python
    (:func:`.._jit.steered`) as the certificate's fallback with the same rounding as compiled.

    Parameters
    ----------
    cap : (R,) ndarray
        The server's capacities (or its one time-shared constraint).
    d : (n, R) ndarray
        Demands of the server's usable users per task.
    x_o : (n,) ndarray
        Each user's tasks on the other servers.
    a : (n,) ndarray
        φ_n γ[n, i]: the weight times the user's monopoly tasks on this server.
    gamma : (n,) ndarray
        γ[n, i]: the tasks each user could run alone on this server.
    alpha : float
        The server's α (> 0, finite).
    lam : (R,) ndarray
        Prices of the server's resources (warm start, updated in place where said).
    limits : ResponseLimits
        When it stops.

    Returns
    -------
    x : (n,) ndarray
        The users' tasks on the server.
    iterations : int
        Newton iterations taken.
    gap : float
        The relative KKT gap reached.
    """
    n_users, m = d.shape
    demanded, active, theta = _log_price_start(d, lam)
    x = np.zeros(n_users)
    share = np.zeros((n_users, m))
    x_try = np.zeros(n_users)
    share_try = np.zeros((n_users, m))
    theta_try = np.zeros(m)
    if not _log_price_state(theta, active, d, x_o, a, gamma, alpha, x, share):
        top = 0.0
        for r in range(m):
            if active[r]:
                top = max(top, theta[r])
        for r in range(m):  # price every demanded resource: no user may be left unpriced
            if demanded[r] and not active[r]:
                active[r] = True
                theta[r] = top
        if not _log_price_state(theta, active, d, x_o, a, gamma, alpha, x, share):
            return x, 0, np.inf  # a user demanding nothing here: not a problem this solver takes
    gap = _log_price_gap(cap, d, x, active)
    it = 0
    for it in range(1, limits.max_iter + 1):
        if gap <= limits.tol:
            break
        used = _usage(d, x)
        top = -np.inf
        for r in range(m):
            if active[r]:
                top = max(top, theta[r])
        joined = False
        for r in range(m):
            if demanded[r] and not active[r] and used[r] > cap[r]:
                active[r] = True
                theta[r] = top
                joined = True
        if joined:
            _log_price_state(theta, active, d, x_o, a, gamma, alpha, x, share)
            gap = _log_price_gap(cap, d, x, active)
            continue
        jac = _log_price_jacobian(d, x, x_o, share, alpha)
        jumped = False
        for r in range(m):
            # overused, but its price too small to move anyone (e^-90 of another): raise it to
            # theirs
            if (
                active[r]
                and used[r] > cap[r]
                and abs(jac[r, r]) <= 1e-9 * used[r]
                and theta[r] < top
            ):
                theta[r] = top
                jumped = True
        if jumped:
            _log_price_state(theta, active, d, x_o, a, gamma, alpha, x, share)
            gap = _log_price_gap(cap, d, x, active)
            continue
        left = False
        for r in range(
            m
        ):  # under-used: unprice it if it stays within capacity at price 0 (complementarity)
            if active[r] and used[r] < cap[r]:
                active[r] = False
                if _log_price_state(theta, active, d, x_o, a, gamma, alpha, x_try, share_try):
                    if _usage(d, x_try)[r] <= cap[r]:
                        _copy_vector(x, x_try)
                        _copy_matrix(share, share_try)
                        left = True
                        continue
                # its users' prices would fall and they would overuse the others: unprice it with
                # its price handed to the others, which keeps every demand, if that lowers the KKT
                # violation
                active[r] = True
                now = _log_price_gap(cap, d, x, active)
                if _handed_over_price(r, theta, active, d, x, theta_try):
                    active[r] = False
                    if (
                        _log_price_state(
                            theta_try, active, d, x_o, a, gamma, alpha, x_try, share_try
                        )
                        and _usage(d, x_try)[r] <= cap[r]
                        and _log_price_gap(cap, d, x_try, active) < now
                    ):
                        _copy_vector(theta, theta_try)
                        _copy_vector(x, x_try)
                        _copy_matrix(share, share_try)
                        left = True
                        continue
                active[r] = True
        if left:
            gap = _log_price_gap(cap, d, x, active)
            continue
        idx = _nonzero_indices(active)
        k_act = idx.shape[0]
        h = np.empty((k_act, k_act))
        g = np.empty(k_act)
        trace = 0.0
        for u in range(k_act):
            g[u] = used[idx[u]] - cap[idx[u]]
            for v in range(k_act):
                h[u, v] = jac[idx[u], idx[v]]
            trace += abs(h[u, u])
        # Levenberg-Marquardt: a price whose resource barely matters makes the Jacobian
        # near-singular and the Newton step wild; damping grows until a step lowers the KKT
        # violation
        accepted = False
        damping = 1e-12 * trace / k_act + 1e-300
        for _ in range(12):
            damped = h.copy()
            for u in range(k_act):
                damped[u, u] -= damping
            step = solve_compiled(damped, -g)
            longest = 0.0
            for u in range(k_act):
                longest = max(longest, abs(step[u]))
            t = min(1.0, 50.0 * alpha / longest) if longest > 0.0 else 1.0
            for _ in range(30):
                for r in range(m):
                    theta_try[r] = theta[r]
                finite = True
                for u in range(k_act):
                    theta_try[idx[u]] = theta[idx[u]] + t * step[u]
                    finite = finite and np.isfinite(theta_try[idx[u]])
                if finite and _log_price_state(
                    theta_try, active, d, x_o, a, gamma, alpha, x_try, share_try
                ):
                    gap_try = _log_price_gap(cap, d, x_try, active)
                    if gap_try < gap:
                        accepted = True
                        break
                t *= 0.5
            if accepted:
                break
            damping = max(damping * 100.0, 1e-6 * trace / k_act)
        if not accepted:
            break
        _copy_vector(theta, theta_try)
        _copy_vector(x, x_try)
        _copy_matrix(share, share_try)
        gap = gap_try
    _log_price_finish(theta, active, lam)
    _scale_into_capacity(cap, d, x)
    return x, it, gap


#: a best response whose KKT gap is above this (and above the caller's tolerance) has stalled, not
#: converged: the projected-Newton dual stops at ~1e-13-1e-12 when rounding ends its line search,
#: far above at very large α
_STALLED = 1e-10


@njit(cache=True, nogil=True)
def _use_of(r, lam, d, x_o, a, gamma, alpha, x, p):
    """Resource r's use by the users' demands at prices ``lam`` (inf if some user is unpriced).

    Parameters
    ----------
    r : int
        A resource index.
    lam : (R,) ndarray
        Prices of the server's resources (warm start, updated in place where said).
    d : (n, R) ndarray
        Demands of the server's usable users per task.
    x_o : (n,) ndarray
        Each user's tasks on the other servers.
    a : (n,) ndarray
        φ_n γ[n, i]: the weight times the user's monopoly tasks on this server.
    gamma : (n,) ndarray
        γ[n, i]: the tasks each user could run alone on this server.
    alpha : float
        The server's α (> 0, finite).
    x : (n,) ndarray
        The users' tasks on this server (written).
    p : (n,) ndarray
        The users' prices per task p_n = λ·d_n (written).

    Returns
    -------
    float
        The use of resource ``r`` (inf if some user is unpriced).
    """
    if not _primal(lam, d, x_o, a, gamma, alpha, x, p):
        return np.inf
    use = 0.0
    for k in range(d.shape[0]):
        use += d[k, r] * x[k]
    return use


@njit(cache=True, nogil=True)
def _coordinate_prices(cap, d, x_o, a, gamma, alpha, lam, rounds):
    """Coordinate descent on the (convex) dual with exact line minimisation, one price at a time:
    each λ_r is set where its resource's use meets its capacity, by bisection on log λ_r (use
    falls as λ_r rises), or to 0 if the resource is within capacity there. It needs only the dual's
    gradient (capacity - use), never its value, so it is immune to the rounding that stalls Newton
    at very large α; slow but global, it approaches the right set of priced resources for
    :func:`_log_price_response` to finish (a price another resource should carry falls by a fixed
    amount per round and can still be positive after the last; the Newton hands it over). ``lam`` is
    updated in place.

    Parameters
    ----------
    cap : (R,) ndarray
        The server's capacities (or its one time-shared constraint).
    d : (n, R) ndarray
        Demands of the server's usable users per task.
    x_o : (n,) ndarray
        Each user's tasks on the other servers.
    a : (n,) ndarray
        φ_n γ[n, i]: the weight times the user's monopoly tasks on this server.
    gamma : (n,) ndarray
        γ[n, i]: the tasks each user could run alone on this server.
    alpha : float
        The server's α (> 0, finite).
    lam : (R,) ndarray
        Prices of the server's resources (warm start, updated in place where said).
    rounds : int
        Rounds of one coordinate step per resource.
    """
    n_users, m = d.shape
    x = np.zeros(n_users)
    p = np.zeros(n_users)
    for _ in range(rounds):
        for r in range(m):
            keep = lam[r]
            lam[r] = 0.0
            if _use_of(r, lam, d, x_o, a, gamma, alpha, x, p) <= cap[r]:
                continue
            hi = min(max(keep, 1e-300), 1e300) if np.isfinite(keep) else 1.0
            while (
                hi < 1e300
                and _use_of(r, np.where(np.arange(m) == r, hi, lam), d, x_o, a, gamma, alpha, x, p)
                > cap[r]
            ):
                hi = min(hi * 1e4, 1e300)
            lo = hi
            while (
                lo > 1e-300
                and _use_of(r, np.where(np.arange(m) == r, lo, lam), d, x_o, a, gamma, alpha, x, p)
                <= cap[r]
            ):
                lo = max(lo * 1e-4, 1e-300)
            for _ in range(100):  # log-bisection: use(lo) > cap >= use(hi)
                mid = np.sqrt(lo) * np.sqrt(hi)
                if not (lo < mid < hi):
                    break
                if (
                    _use_of(r, np.where(np.arange(m) == r, mid, lam), d, x_o, a, gamma, alpha, x, p)
                    > cap[r]
                ):
                    lo = mid
                else:
                    hi = mid
            lam[r] = hi


@njit(cache=True, nogil=True)
def _best_response(cap, d, x_o, a, gamma, weight, alpha, lam, limits):
    """Server best response; ``lam`` (R,) is the warm start and is updated in place. Returns (x,
    iterations, relative KKT gap). Projected Newton on the dual (:func:`_dual_newton_response`) from
    the warm start; where it stalls (very large α), Newton in log prices
    (:func:`_log_price_response`) from where it stopped, then both from scratch, then log-price
    Newton after a global coordinate descent on the prices (:func:`_coordinate_prices`), keeping the
    smallest gap.

    Parameters
    ----------
    cap : (R,) ndarray
        The server's capacities (or its one time-shared constraint).
    d : (n, R) ndarray
        Demands of the server's usable users per task.
    x_o : (n,) ndarray
        Each user's tasks on the other servers.
    a : (n,) ndarray
        φ_n γ[n, i]: the weight times the user's monopoly tasks on this server.
    gamma : (n,) ndarray
        γ[n, i]: the tasks each user could run alone on this server.
    weight : (n,) ndarray
        The users' weights φ_n.
    alpha : float
        The server's α (> 0, finite).
    lam : (R,) ndarray
        Prices of the server's resources (warm start, updated in place where said).
    limits : ResponseLimits
        When it stops.

    Returns
    -------
    x : (n,) ndarray
        The users' tasks on the server.
    iterations : int
        Newton iterations taken.
    gap : float
        The relative KKT gap reached.
    """
    m = cap.shape[0]
    for r in range(m):  # a warm start left by an earlier failure
        if not (np.isfinite(lam[r]) and lam[r] >= 0.0):
            lam[r] = 0.0
    x, it, gap = _dual_newton_response(cap, d, x_o, a, gamma, weight, alpha, lam, limits)
    stalled = lam.copy()
    for attempt in range(4):
        if gap <= max(limits.tol, _STALLED):
            break
        trial = stalled.copy() if attempt == 0 else np.zeros(m)
        if attempt == 1:
            x_try, it_try, gap_try = _dual_newton_response(
                cap, d, x_o, a, gamma, weight, alpha, trial, limits
            )
        else:
            if attempt == 3:  # the right priced resources first, globally, then Newton in logs
                _coordinate_prices(cap, d, x_o, a, gamma, alpha, trial, 20)
            x_try, it_try, gap_try = _log_price_response(
                cap, d, x_o, a, gamma, alpha, trial, limits
            )
        it += it_try
        if gap_try < gap:
            x, gap = x_try, gap_try
            _copy_vector(lam, trial)
    return x, it, gap


@njit(cache=True, nogil=True)
def _dual_newton_response(cap, d, x_o, a, gamma, weight, alpha, lam, limits):
    """Server best response by projected Newton on the dual, backtracking on the dual value; ``lam``
    (R,) is the warm start and is updated in place. Returns (x, iterations, relative KKT gap).

    Parameters
    ----------
    cap : (R,) ndarray
        The server's capacities (or its one time-shared constraint).
    d : (n, R) ndarray
        Demands of the server's usable users per task.
    x_o : (n,) ndarray
        Each user's tasks on the other servers.
    a : (n,) ndarray
        φ_n γ[n, i]: the weight times the user's monopoly tasks on this server.
    gamma : (n,) ndarray
        γ[n, i]: the tasks each user could run alone on this server.
    weight : (n,) ndarray
        The users' weights φ_n.
    alpha : float
        The server's α (> 0, finite).
    lam : (R,) ndarray
        Prices of the server's resources (warm start, updated in place where said).
    limits : ResponseLimits
        When it stops.

    Returns
    -------
    x : (n,) ndarray
        The users' tasks on the server.
    iterations : int
        Newton iterations taken.
    gap : float
        The relative KKT gap reached.
    """
    n_users, m = d.shape
    x = np.zeros(n_users)
    p = np.zeros(n_users)
    x_try = np.zeros(n_users)
    p_try = np.zeros(n_users)
    lam_try = np.zeros(m)
    for r in range(m):
        if not lam[r] > 0.0:
            lam[r] = 1.0 / max(cap[r], 1e-300)
    value = _dual_value(lam, cap, d, x_o, a, gamma, weight, alpha, x, p)
    for _ in range(700):  # some user unpriced: raise every price (10^700 spans the float range)
        if value != np.inf:
            break
        for r in range(m):
            lam[r] = min(lam[r] * 10.0 + 1e-300, 1e300)
        value = _dual_value(lam, cap, d, x_o, a, gamma, weight, alpha, x, p)
    gap = np.inf
    it = 0
    for it in range(1, limits.max_iter + 1):
        used, hess = _usage_and_hessian(d, x, x_o, p, alpha)
        grad = cap - used
        gap = _kkt_gap(cap, grad, lam)
        if gap <= limits.tol:
            break
        step = _price_step(cap, grad, hess, lam)
        accepted, v = _line_search(
            step,
            grad,
            hess,
            lam,
            value,
            cap,
            d,
            x_o,
            a,
            gamma,
            weight,
            alpha,
            lam_try,
            x_try,
            p_try,
        )
        if not accepted:
            break
        _copy_vector(lam, lam_try)
        _copy_vector(x, x_try)
        _copy_vector(p, p_try)
        value = v
    _scale_into_capacity(cap, d, x)
    return x, it, gap


# the certificate's best responses steered from Python (:func:`.._jit.steered`): each fallback
# kernel compiles only when a server needs it, and the dual Newton's pieces compile once instead of
# again inside a compiled driver
_BEST_RESPONSE_STEERED = steered(_best_response, "_dual_newton_response", "_log_price_response")


@njit(cache=True, nogil=True)
def _sweep_once(cap, d3, gamma, weight, usable, alphas, x, totals, lams, inner):
    """One Gauss-Seidel sweep over the servers (each server's users answer the others' totals, eq.
    (12) [INF]); updates ``x``, ``totals`` and the prices ``lams`` in place; returns (largest change
    of an x[n, i], largest total, largest KKT gap of a best response).

    Parameters
    ----------
    cap : (K, C) ndarray
        Each server's constraints' capacities.
    d3 : (N, K, C) ndarray
        Each user's use of each server's constraints per task (``Cluster.server_constraints``).
    gamma : (N, K) ndarray
        γ[n, i]: monopoly tasks per pair.
    weight : (N,) ndarray
        The users' weights φ_n.
    usable : (N, K) bool ndarray
        Which (user, server) pairs may hold tasks.
    alphas : (K,) ndarray
        α per server.
    x : (N, K) ndarray
        Tasks per (user, server), updated in place.
    totals : (N,) ndarray
        Each user's total tasks over the servers (updated in place).
    lams : (K, C) ndarray
        Prices per server and constraint (warm starts, updated in place).
    inner : ResponseLimits
        The best responses' limits.

    Returns
    -------
    change : float
        The largest change of an x[n, i].
    scale : float
        The largest total.
    gap : float
        The largest relative KKT gap a server's best response ended with.
    """
    n_servers = gamma.shape[1]
    change = 0.0
    scale = 1e-300
    worst = 0.0
    for i in range(n_servers):
        users = _nonzero_indices(usable[:, i])
        if users.shape[0] == 0:
            continue
        k = users.shape[0]
        d = np.empty((k, d3.shape[2]))
        x_o = np.empty(k)
        a = np.empty(k)
        g = np.empty(k)
        w = np.empty(k)
        for t in range(k):
            n = users[t]
            d[t] = d3[n, i]
            x_o[t] = totals[n] - x[n, i]
            g[t] = gamma[n, i]
            w[t] = weight[n]
            a[t] = weight[n] * gamma[n, i]
        col, _, gap = _best_response(cap[i], d, x_o, a, g, w, alphas[i], lams[i], inner)
        worst = max(worst, gap) if gap == gap else np.inf
        for t in range(k):
            n = users[t]
            change = max(change, abs(col[t] - x[n, i]))
            totals[n] = x_o[t] + col[t]
            x[n, i] = col[t]
            scale = max(scale, totals[n])
    return change, scale, worst


#: plain sweeps before :func:`_gauss_seidel` may extrapolate (on the property table's 16,000 runs
#: plain sweeps that settle take at most a few hundred; the slow ones creep by a constant step for
#: thousands of sweeps)
_EXTRAPOLATE_AFTER = 100
_STRAIGHT_SWEEPS = (
    5  # consecutive sweeps moving in one direction (cosine above _STRAIGHT) before a jump
)
_STRAIGHT = 0.99
_LONGEST_JUMP = 65536.0  # the jump tries 2, 4, ... up to this many times the last sweep's move


@njit(cache=True, nogil=True)
def _into_capacity(d3, cap, usable, y):
    """``y`` made feasible in place: negatives and unusable pairs to 0, then each server's column
    scaled down (never up) until every constraint holds.

    Parameters
    ----------
    d3 : (N, K, C) ndarray
        Each user's use of each server's constraints per task (``Cluster.server_constraints``).
    cap : (K, C) ndarray
        Each server's constraints' capacities.
    usable : (N, K) bool ndarray
        Which (user, server) pairs may hold tasks.
    y : (N, K) ndarray
        A point to make feasible (modified in place).
    """
    n_users, n_servers = y.shape
    for i in range(n_servers):
        for n in range(n_users):
            if y[n, i] < 0.0 or not usable[n, i]:
                y[n, i] = 0.0
        worst = 0.0
        for r in range(cap.shape[1]):
            use = 0.0
            for n in range(n_users):
                use += y[n, i] * d3[n, i, r]
            if cap[i, r] > 0.0:
                worst = max(worst, use / cap[i, r])
            elif use > 0.0:
                worst = np.inf
        if worst > 1.0:
            for n in range(n_users):
                y[n, i] = y[n, i] / worst if np.isfinite(worst) else 0.0


@njit(cache=True, nogil=True)
def _extrapolate(cap, d3, gamma, weight, usable, alphas, x, move, change, lams, inner):
    """Jump along the sweeps' common direction ``move``: the longest of x + 2^j move (j = 1, 2, ...,
    made feasible) from which one sweep moves no more than the last sweep did (``change``); ``x`` is
    replaced by it. Returns whether a jump was taken and the trial sweeps it cost.

    Parameters
    ----------
    cap : (K, C) ndarray
        Each server's constraints' capacities.
    d3 : (N, K, C) ndarray
        Each user's use of each server's constraints per task (``Cluster.server_constraints``).
    gamma : (N, K) ndarray
        γ[n, i]: monopoly tasks per pair.
    weight : (N,) ndarray
        The users' weights φ_n.
    usable : (N, K) bool ndarray
        Which (user, server) pairs may hold tasks.
    alphas : (K,) ndarray
        α per server.
    x : (N, K) ndarray
        Tasks per (user, server), replaced by the jump's point.
    move : (N, K) ndarray
        The last sweep's change of every x[n, i].
    change : float
        The last sweep's largest relative change.
    lams : (K, C) ndarray
        Prices per server and constraint (warm starts, updated in place).
    inner : ResponseLimits
        The best responses' limits.

    Returns
    -------
    found : bool
        Whether a jump was taken.
    trials : int
        The trial sweeps it cost.
    """
    best = np.empty_like(x)
    found = False
    trials = 0
    t = 2.0
    while t <= _LONGEST_JUMP:
        y = x + t * move
        _into_capacity(d3, cap, usable, y)
        trial = y.copy()
        trial_totals = trial.sum(axis=1)
        trial_lams = lams.copy()
        trial_change, _, _ = _sweep_once(
            cap,
            d3,
            gamma,
            weight,
            usable,
            alphas,
            trial,
            trial_totals,
            trial_lams,
            inner,
        )
        trials += 1
        if trial_change > change:
            break
        best[:] = y
        found = True
        t *= 2.0
    if found:
        x[:] = best
    return found, trials


@njit(cache=True, nogil=True)
def _gauss_seidel(cap, d3, gamma, weight, usable, alphas, x, lams, limits):
    """Gauss-Seidel best-response sweeps over the servers until no x[n, i] changes by more than
    ``limits.tol`` relative to the largest total; updates ``x`` and the prices ``lams`` in place and
    returns (sweeps, last relative change, jumps, trial sweeps, the last sweep's largest
    best-response gap).

    At large α the sweeps can creep towards the equilibrium by an almost constant step for
    thousands of sweeps (α = 64: a change of ~4e-4 per sweep for ~6,000 sweeps). After
    :data:`_EXTRAPOLATE_AFTER` plain sweeps, once :data:`_STRAIGHT_SWEEPS` sweeps in a row moved in
    one direction, :func:`_extrapolate` jumps along it, keeping a jump only if the sweep from the
    new point moves no more than the last one (the sweeps' own measure of progress); the equilibrium
    is still what the sweeps converge to, so the stopping rule is unchanged.

    Parameters
    ----------
    cap : (K, C) ndarray
        Each server's constraints' capacities.
    d3 : (N, K, C) ndarray
        Each user's use of each server's constraints per task (``Cluster.server_constraints``).
    gamma : (N, K) ndarray
        γ[n, i]: monopoly tasks per pair.
    weight : (N,) ndarray
        The users' weights φ_n.
    usable : (N, K) bool ndarray
        Which (user, server) pairs may hold tasks.
    alphas : (K,) ndarray
        α per server.
    x : (N, K) ndarray
        Tasks per (user, server): the start, updated in place.
    lams : (K, C) ndarray
        Prices per server and constraint (warm starts, updated in place).
    limits : SweepLimits
        When the sweeps and their best responses stop.

    Returns
    -------
    sweeps : int
        Sweeps made.
    change : float
        The last sweep's largest relative change.
    jumps : int
        Extrapolations taken.
    trials : int
        Trial sweeps they cost.
    gap : float
        The largest relative KKT gap of a best response in the last sweep.
    """
    totals = x.sum(axis=1)
    previous = x.copy()
    last_move = np.zeros_like(x)
    straight = 0
    jumps = 0
    trials = 0
    change = np.inf
    gap = np.inf
    sweeps = 0
    for sweeps in range(1, limits.max_sweeps + 1):
        previous[:] = x
        change, scale, gap = _sweep_once(
            cap, d3, gamma, weight, usable, alphas, x, totals, lams, limits.inner
        )
        if change <= limits.tol * scale:
            break
        move = x - previous
        if sweeps > _EXTRAPOLATE_AFTER:
            norms = np.sqrt(np.sum(move * move) * np.sum(last_move * last_move))
            straight = (
                straight + 1 if norms > 0.0 and np.sum(move * last_move) > _STRAIGHT * norms else 0
            )
        last_move[:] = move
        if straight >= _STRAIGHT_SWEEPS:
            straight = 0
            jumped, cost = _extrapolate(
                cap, d3, gamma, weight, usable, alphas, x, move, change, lams, limits.inner
            )
            trials += cost
            if jumped:
                jumps += 1
                totals[:] = x.sum(axis=1)
    return sweeps, change, jumps, trials, gap


def _sweeps(cluster: Cluster, alphas, start, time_shared: bool, max_sweeps: int, tol: float):
    """Gauss-Seidel best-response sweeps from ``start`` (not modified): (tasks, diagnostics)."""
    d3, cap = cluster.server_constraints(time_shared)
    x = np.array(start, dtype=np.float64)
    lams = np.zeros((cluster.n_servers, cap.shape[1]))
    sweeps, change, jumps, trials, gap = _gauss_seidel(
        cap,
        d3,
        np.ascontiguousarray(cluster.gamma),
        cluster.weight,
        np.ascontiguousarray(cluster.eligible),
        alphas,
        x,
        lams,
        SweepLimits(int(max_sweeps), float(tol), ResponseLimits(1e-13, 200)),
    )
    return x, {
        "sweeps": int(sweeps),
        "last_change": float(change),
        "prices": lams,
        "jumps": int(jumps),
        "trial_sweeps": int(trials),
        "response_gap": float(gap),
        # settled sweeps of best responses that stalled with their conditions unmet are no
        # equilibrium
        "converged": bool(change <= tol * max(x.sum(1).max(), 1e-300) and gap <= _STALLED),
    }


def best_response_column(
    cluster: Cluster,
    tasks,
    server: int,
    alpha: float,
    *,
    time_shared: bool = False,
    tol: float = 1e-12,
    max_iter: int = 200,
) -> np.ndarray:
    """Server ``server``'s exact α-fair best response (its column) to the other servers' tasks
    (``time_shared``: under Problem 2's constraint Σ_n x[n, i]/γ[n, i] <= 1).

    Parameters
    ----------
    cluster : Cluster
        The instance.
    tasks : (N, K) array_like
        Tasks per (user, server); the server's own column is ignored.
    server : int
        The server's index.
    alpha : float or (K,) array_like
        α (one per server, or one for all): from :data:`~fairlib.multires.cluster.MIN_ALPHA` (0.01)
        to :data:`~fairlib.multires.cluster.MAX_ALPHA` (1e4), or ``inf``.
    time_shared : bool
        Problem 2: each server's one constraint Σ_n x[n, i]/γ[n, i] <= 1.
    tol : float
        The best response's relative KKT tolerance, from 1e-15 to 0.1.
    max_iter : int
        Its iteration cap.

    Returns
    -------
    (N,) ndarray
        The server's column of tasks.
    """
    as_instance(cluster, Cluster, "cluster")
    x = cluster._tasks(tasks)
    server = as_count(server, "server", minimum=0, maximum=cluster.n_servers - 1)
    alpha = float(per_server_alpha(cluster, alpha)[server])
    tol, max_iter = as_tolerance(tol, "tol"), as_count(max_iter, "max_iter", maximum=MAX_ITERATIONS)
    d3, cap = cluster.server_constraints(time_shared)  # refuses a time_shared not a bool, by name
    return _best_response_column(cluster, x, x.sum(axis=1), server, alpha, d3, cap, tol, max_iter)


def _best_response_column(cluster, x, totals, server, alpha, d3, cap, tol=1e-12, max_iter=200):
    users = np.flatnonzero(cluster.eligible[:, server])
    x_o = totals[users] - x[users, server]
    col = np.zeros(cluster.n_users)
    lam = np.zeros(cap.shape[1])
    got, _, _ = _BEST_RESPONSE_STEERED(
        cap[server],
        np.ascontiguousarray(d3[users, server]),
        x_o,
        cluster.weight[users] * cluster.gamma[users, server],
        cluster.gamma[users, server],
        cluster.weight[users],
        float(alpha),
        lam,
        ResponseLimits(float(tol), int(max_iter)),
    )
    col[users] = got
    return col


def nash_residual(cluster: Cluster, tasks, alpha, *, time_shared: bool = False) -> float:
    """max over servers of |column - best response to the others| / largest total (0 at a Nash
    equilibrium).

    Parameters
    ----------
    cluster : Cluster
        The instance.
    tasks : (N, K) array_like
        Tasks per (user, server).
    alpha : float or (K,) array_like
        α (one per server, or one for all).
    time_shared : bool
        Problem 2: each server's one constraint Σ_n x[n, i]/γ[n, i] <= 1.

    Returns
    -------
    float
        The residual (inf for non-finite tasks).
    """
    time_shared = as_flag(time_shared, "time_shared")
    as_instance(cluster, Cluster, "cluster")
    x = as_real_array(tasks, "tasks")
    if x.shape != (cluster.n_users, cluster.n_servers):
        raise InvalidInputError(
            f"tasks = {_short(tasks)}: expected shape ({cluster.n_users}, {cluster.n_servers}) "
            "(users x servers)"
        )
    alphas = per_server_alpha(cluster, alpha)
    if not np.isfinite(x).all():
        return float(
            "inf"
        )  # a diverged solver's NaN or inf tasks are no equilibrium: an answer, not an error
    if (x < 0).any():
        n, i = (int(v) for v in np.argwhere(x < 0)[0])
        raise InvalidInputError(f"tasks[{n}, {i}] = {x[n, i]}: task counts must be >= 0")
    totals = x.sum(axis=1)
    scale = max(float(totals.max()), 1e-300)
    d3, cap = cluster.server_constraints(time_shared)  # once: (users x servers x constraints)
    servers = [
        i
        for i in range(cluster.n_servers)
        if not (np.isinf(alphas[i]) or not cluster.eligible[:, i].any())
    ]

    def distance(i):
        column = _best_response_column(cluster, x, totals, i, alphas[i], d3, cap)
        return float(np.abs(column - x[:, i]).max()) / scale

    # the servers' best responses are independent: on many pairs, one per numba thread at a time
    # (their kernels release the GIL; the Python steering them is a few percent of their time)
    threads = (
        numba.get_num_threads() if int(cluster.eligible.sum()) >= pair_kernels.PARALLEL_PAIRS else 1
    )
    if threads > 1 and len(servers) > 1:
        caller = (
            contextvars.copy_context()
        )  # the caller's settings (NumPy's errstate, fairlib's compiled/interpreted)
        with ThreadPoolExecutor(min(threads, len(servers))) as pool:
            distances = list(pool.map(lambda i: caller.copy().run(distance, i), servers))
    else:
        distances = [distance(i) for i in servers]
    worst = 0.0
    for d in distances:  # in server order, as the serial loop took them
        worst = max(worst, d)
    return worst


def proportional_fair_objective(cluster: Cluster, tasks) -> float:
    """Σ_n φ_n log x_n (Theorem 2's objective for α = 1).

    Parameters
    ----------
    cluster : Cluster
        The instance.
    tasks : (N, K) array_like
        Tasks per (user, server).

    Returns
    -------
    float
        The objective (-inf if a user has no task).
    """
    as_instance(cluster, Cluster, "cluster")
    tot = cluster._tasks(tasks).sum(axis=1)
    with np.errstate(divide="ignore"):
        return float((cluster.weight * np.log(tot)).sum())


#: Problem 2 (time-shared servers): solved; per-user caps: refused (module doc of
#: :mod:`fairlib.multires.pfvds`)
TIME_SHARED = True
CAPS = False


@dataclass(frozen=True)
class BestResponseOptions(MethodOptions):
    """``pfvds(..., method="best_response", options=...)``.

    Parameters
    ----------
    max_sweeps : int >= 1
        Gauss-Seidel sweeps over servers. At α = 64 plain sweeps can creep towards the equilibrium
        by an almost constant step (~4e-4) for thousands of sweeps (about 6,000 on two of the
        property table's 1,000 clusters); after 100 sweeps the solver extrapolates along such a
        straight run (``diagnostics["jumps"]``), which settled those two in about 200.
    tol : float in [1e-15, 0.1]
        The stopping rule: the largest change of any x[n, i] relative to the largest total.
    start : (N, K) array_like or None
        Where best responses start (default: no tasks). Finite, >= 0, zero on unusable pairs; it
        need not be feasible.
    """

    max_sweeps: int = 2000
    tol: float = 1e-10
    start: object = None

    def __post_init__(self):
        self._count("max_sweeps")
        self._tolerance("tol")


OPTIONS = BestResponseOptions


def run(cluster: Cluster, alphas, time_shared: bool, options: BestResponseOptions):
    """``method="best_response"``: Gauss-Seidel sweeps from ``options.start``; (tasks, diagnostics).

    Parameters
    ----------
    cluster : Cluster
        The instance.
    alphas : (K,) ndarray
        α per server.
    time_shared : bool
        Problem 2: each server's one constraint Σ_n x[n, i]/γ[n, i] <= 1.
    options : BestResponseOptions
        The method's options.

    Returns
    -------
    tasks : (N, K) ndarray
        The allocation.
    diagnostics : dict
        ``sweeps``, ``last_change``, ``prices``, ``jumps``, ``trial_sweeps``, ``response_gap`` (the
        last sweep's largest relative KKT gap of a server's best response), ``converged`` (the
        sweeps settled and every best response of the last met its conditions).
    """
    return _sweeps(
        cluster,
        alphas,
        _start(cluster, options.start),
        time_shared,
        options.max_sweeps,
        options.tol,
    )


def _start(cluster: Cluster, start) -> np.ndarray:
    if start is None:
        return np.zeros((cluster.n_users, cluster.n_servers))
    x = np.asarray(start, dtype=np.float64)
    if x.shape != (cluster.n_users, cluster.n_servers):
        raise InvalidInputError(
            f"{option_name('start')}: expected shape ({cluster.n_users}, {cluster.n_servers}), "
            f"got {x.shape}"
        )
    bad = ~np.isfinite(x) | (x < 0) | ((x != 0) & ~cluster.eligible)
    if bad.any():
        n, i = map(int, np.argwhere(bad)[0])
        raise InvalidInputError(
            f"{option_name('start')}[{n}, {i}] = {x[n, i]}: must be finite, >= 0 and 0 on an "
            "unusable pair"
        )
    return x
