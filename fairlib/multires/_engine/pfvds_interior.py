"""PF-VDS(α) on heterogeneous servers by a primal-dual interior-point method.

The equilibrium of Problem 1 (Khamse-Ashari et al.; the form is a reconstruction, reconstructions
§5.3 [INF]): on every eligible pair, ŝ[n, i]^-α / γ[n, i] + z[n, i] = λ_i·d_n with z ⊥ x >=
0, and every server's prices λ_i ⊥ its slack. For α = 1 these are the optimality conditions of

    maximise Σ_n φ_n log x_n,   x_n = Σ_i x[n, i],
    subject to Σ_n d[n, i, k] x[n, i] <= cap[i, k] for every server i and constraint k, x >= 0 on
    eligible pairs

(Theorem 2). With ``time_shared=True`` the constraints are Problem 2's Σ_n x[n, i]/γ[n, i] <= 1
per server.

Per-user caps (``Cluster.max_tasks``; outside the paper, our modelling choice): a user's total x_n
<= cap_n constrains every server's player at once (a generalised game). We solve Definition 6's
variational inequality over the capped feasible set — the *variational* equilibrium, in which
every server charges user n the same cap price ν_n >= 0 (in the paper's utility units), ŝ^-α/γ +
z = λ_i·d_n + ν_n, ν_n ⊥ (cap_n - x_n). Each cap is one more constraint row loaded by all of
its user's pairs; a user capped at 0 holds nothing and leaves the game. For α = 1 this is max Σ_n
φ_n log x_n with the caps as constraints.

Method: Mehrotra predictor-corrector on the variables of the eligible pairs, reduced to the
constraint rows (R per server). The marginals depend on x only through the totals x_n, so the
Jacobian is block-diagonal per user with rank-one blocks (Sherman-Morrison) and the reduced matrix A
M⁻¹ Aᵀ is a per-server block diagonal minus a rank-n_users correction: one dense product
(n_rows x n_users x n_rows) and one factorisation of an n_rows x n_rows matrix per iteration,
whatever the number of pairs (Cholesky for α = 1, where the system is symmetric; LU otherwise).
Rows are scaled by their capacity. Safeguards: iterative refinement, backtracking on the residual of
the centred system, continuation in α (see :func:`pfvds_interior_point`). Stopping: primal and dual
residuals and the complementarity gap all below ``tol`` (for α = 1 the gap bounds the objective's
distance to the optimum, in units of Σφ).
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import math
import warnings
from dataclasses import dataclass, replace

import numpy as np
import scipy.linalg

from ..._jit import interpreting
from ..._validate import MAX_ITERATIONS, InvalidInputError, as_count, as_number
from ..cluster import Allocation, Cluster, per_server_alpha
from . import pfvds_parallel as parallel
from .pair_kernels import (
    THREADED_BLAS_FLOPS,
    blas_threads,
    column_products,
    numba_threads,
    one_blas_thread,
    row_products,
    user_chunks,
    user_sums,
)
from .pfvds_interior_serial import StageLimits
from .pfvds_interior_serial import iterate as _iterate_compiled
from .pfvds_interior_serial import pair_marginals as _marginals
from .pfvds_interior_serial import reduced_matrix_parts as _reduced_matrix_parts
from .pfvds_interior_serial import solve_m as _solve_m

__all__ = ["pfvds_interior_point", "shared_stages"]

# stage results kept by shared_stages(): key -> _interior_point's result (None: not sharing)
_SHARED: contextvars.ContextVar[dict | None] = contextvars.ContextVar(
    "fairlib_pfvds_shared_stages", default=None
)


@contextlib.contextmanager
def shared_stages():
    """Within this block, a continuation stage already solved (same cluster, stage α, start and
    options) is reused instead of solved again: PF-VDS at α = 4, 8, 16 and 64 on one cluster pass
    through the same stages (α capped at 2, 4, 8, 16, ...), and a driver that solves every α of a
    list on each instance does the shared ones once. A stage is deterministic (one BLAS thread), so
    the answers are those of solving each α alone, bit for bit.

    Yields
    ------
    None
        The block runs with the stages shared; they are dropped when it ends.
    """
    token = _SHARED.set({})
    try:
        yield
    finally:
        _SHARED.reset(token)


def _stage_key(cluster, stage_alphas, time_shared, tol, max_iterations, start, shrink) -> bytes:
    h = hashlib.sha256()
    for arr in (
        cluster.capacity,
        cluster.demand,
        cluster.weight,
        cluster.eligible,
        cluster.max_tasks,
        stage_alphas,
    ):
        a = np.ascontiguousarray(arr)
        h.update(str((a.dtype.str, a.shape)).encode())
        h.update(a.tobytes())
    h.update(b"-" if start is None else np.ascontiguousarray(start, dtype=np.float64).tobytes())
    h.update(repr((bool(time_shared), float(tol), int(max_iterations), bool(shrink))).encode())
    return h.digest()


def _solve_stage(cluster, stage_alphas, time_shared, tol, max_iterations, start, shrink):
    """One continuation stage (:func:`_interior_point` on one BLAS thread), reused inside
    :func:`shared_stages`."""
    shared = _SHARED.get()
    key = (
        None
        if shared is None
        else _stage_key(cluster, stage_alphas, time_shared, tol, max_iterations, start, shrink)
    )
    if key is not None and key in shared:
        return shared[key]
    with one_blas_thread():
        result = _interior_point(
            cluster, stage_alphas, time_shared, tol, max_iterations, start, shrink
        )
    if key is not None:
        shared[key] = result
    return result


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
        raise InvalidInputError(
            f"alpha[{i}] = {arr[i]}: the interior-point method needs a finite α > 0 "
            "(α = ∞ is PS-DSF: use psdsf)"
        )
    return arr


_STALL_ITERATIONS = 20  # iterations without a smaller residual before a stage gives up
_BACKTRACKS = 30
_DIRECT_ALPHA = 2.0  # above this, start from the solution at half the α (continuation)
#: retries of a failed continuation stage (a smaller step, or a restart from α = 1) before the
#: stage's failure is final
RETRIES = 3
#: stages above this α are not retried: there x^-α spans more orders of magnitude than a smaller
#: step can bridge (at α = 64 three retries turned 6 of 63 failed solves into converged ones at 2.5
#: times the cost), and the best responses finish from the last converged stage
RETRY_ALPHA_AT_MOST = 16.0


def pfvds_interior_point(
    cluster: Cluster,
    alpha=1.0,
    *,
    time_shared: bool = False,
    tol: float = 1e-10,
    max_iterations: int = 200,
    continuation: tuple[float, float] = (_DIRECT_ALPHA, 2.0),
    shrink_to_caps: bool = False,
    retries: int = RETRIES,
) -> Allocation:
    """PF-VDS(α) by a primal-dual interior-point method on the equilibrium conditions of Problem 1.

    Every server's KKT conditions together — ŝ[n, i]^-α / γ[n, i] + z[n, i] = λ_i·d_n on
    eligible pairs, z ⊥ x, λ_i ⊥ slack — form one complementarity problem; for α = 1 they
    are the optimality conditions of max Σ_n φ_n log x_n (Theorem 2). Each Newton step is reduced
    to the constraint rows: the marginals depend on x only through the totals x_n, so the Jacobian
    is block-diagonal per user with rank-one blocks (Sherman-Morrison), and the reduced matrix is a
    per-server block diagonal minus a rank-n_users correction (one dense product). Each server's
    utility is rescaled by a constant (which leaves its best responses, hence the equilibrium,
    unchanged) so the marginals start near 1. For α > 2 the marginals span many orders of magnitude
    at a neutral start, so the method follows a continuation (α capped at 2, 4, 8, ...), each stage
    starting from the previous stage's allocation; the diagnostics report the stages. Beyond α ≈
    16 stages may stop short (``converged`` False): x^-α is then beyond the method's reach, and
    :func:`.pfvds.pfvds` finishes with best responses.

    Parameters
    ----------
    cluster : Cluster
        The instance.
    alpha : float or (n_servers,) array_like, default 1.0
        Finite α > 0, or one value per server (heterogeneous objectives).
    time_shared : bool, default False
        Problem 2's per-server constraint Σ_n x[n, i]/γ[n, i] <= 1 instead of the capacities.
    tol : float, default 1e-10
        Stopping tolerance on the scaled primal and dual residuals and on the complementarity gap
        relative to Σ x·marginal (for α = 1: the duality gap in units of Σφ, an upper bound on
        the objective's distance to the optimum).
    max_iterations : int, default 200
        Iteration cap; ``diagnostics["converged"]`` says whether ``tol`` was reached.
    continuation : tuple of float, default (2.0, 2.0)
        (first α, factor): the stages' α caps are first, first·factor, ... (finer steps, e.g.
        (1, 1.25), reach some equilibria the default misses at α = 2-4, at more stages' cost).
    shrink_to_caps : bool, default False
        Start each capped user at most a quarter of its cap (else every pair alike, half-loading the
        busiest server row): caps spanning many orders of magnitude (trace jobs) need it, random
        ones less so.
    retries : int, default RETRIES
        A stage (at α <= 16) that stops short is retried this many times at most: at the square
        root of the last factor above the last converged stage, or from α = 1 when the first stage
        fails (0: never).

    Returns
    -------
    Allocation
        ``mechanism="pfvds"``; diagnostics ``iterations``, ``converged``, ``gap``,
        ``primal_residual``, ``dual_residual``, ``prices[server, k]`` (each server's multipliers, in
        units of its unscaled utility per unit of constraint), ``cap_prices[user]`` (ν_n, the price
        of a capped user's task that every server charges; 0 for uncapped users). Tasks are scaled
        to satisfy every constraint, caps included, exactly.

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
    max_iterations = as_count(max_iterations, "max_iterations", maximum=MAX_ITERATIONS)
    retries = as_count(retries, "retries", minimum=0)
    first, factor = (as_number(v, "continuation") for v in continuation)
    if not (first > 0 and factor > 1):
        raise InvalidInputError(
            f"continuation = {continuation!r}: expected (first α > 0, factor > 1)"
        )
    if not (cluster.max_tasks > 0).any():  # every user capped at 0: nothing to allocate
        return Allocation.from_diagnostics(
            cluster,
            np.zeros((cluster.n_users, cluster.n_servers)),
            "pfvds",
            {
                "iterations": 0,
                "converged": True,
                "gap": 0.0,
                "primal_residual": 0.0,
                "dual_residual": 0.0,
                "prices": np.zeros(
                    cluster.capacity.shape if not time_shared else (cluster.n_servers, 1)
                ),
                "cap_prices": np.zeros(cluster.n_users),
                "alpha": alphas,
                "time_shared": time_shared,
                "method": "interior_point",
                "stages": [],
            },
        )
    cap_level, step = first, factor
    start = previous = converged_level = None  # the last converged stage and its α cap
    restarted = False
    stages, retried = [], 0
    while True:
        stage_alphas = np.minimum(alphas, cap_level)
        result = _solve_stage(
            cluster,
            stage_alphas,
            time_shared,
            tol,
            int(max_iterations),
            start,
            bool(shrink_to_caps),
        )
        stages.append(
            (
                float(stage_alphas.max()),
                result.diagnostics["iterations"],
                result.diagnostics["converged"],
            )
        )
        if (
            not result.diagnostics["converged"]
            and retried < retries
            and stage_alphas.max() <= RETRY_ALPHA_AT_MOST
        ):
            retried += 1
            # A stage that stops short is retried closer to the last converged one, the homotopy's
            # factor shrinking to its square root, or, when the first stage fails, from α = 1 (the
            # concave program) with no start. A stage costs a few dozen Newton steps; the best
            # responses that otherwise finish from a failed stage cost thousands of sweeps
            # (Bitbrains snapshots at α = 2: docs/performance.md).
            if converged_level is not None:
                step = math.sqrt(step)
                cap_level = converged_level * step
                continue
            if converged_level is None and not restarted and cap_level > 1.0:
                restarted, cap_level = True, 1.0
                continue
        if not result.diagnostics["converged"]:
            if previous is not None and not (
                np.isfinite(result.tasks).all() and (result.tasks >= 0).all()
            ):
                # a stage that went astray (very large α: negative or non-finite iterates) hands
                # back the last converged stage's allocation, still marked not converged, for the
                # best responses to finish from
                result = replace(previous, converged=False)
            break
        if cap_level >= alphas.max():
            break
        start, previous, converged_level = result.tasks, result, cap_level
        cap_level *= step
    return replace(
        result,
        iterations=sum(it for _, it, _ in stages),
        extras={**result.extras, "stages": stages},
    )


@dataclass(frozen=True)
class _PairSystem:
    """The complementarity problem on the eligible pairs: pair p = (``pair_user[p]``,
    ``pair_server[p]``) loads the constraint rows ``pair_rows[p, :]`` (-1: none) with ``coef[p, :]``
    (per-task use over the row's capacity) and pays their prices with ``price_coef[p, :]`` (equal to
    ``coef`` except on cap rows: see :func:`_starting_point`); only rows some pair loads are kept
    (``active`` among all servers' rows). The marginal utility of pair p is exp(log_coef[p]) ·
    x_n^-α (ŝ^-α/γ, eq. (12) [INF]), x_n its user's total."""

    pair_user: np.ndarray
    pair_server: np.ndarray
    pair_rows: np.ndarray
    coef: np.ndarray
    n_users: int
    n_rows: int
    pair_alpha: np.ndarray
    log_coef: np.ndarray
    active: np.ndarray
    scale: np.ndarray
    n_constraints: int  # per server: R resources, or 1 when time-shared
    n_server_rows: (
        int  # the first rows are servers' constraints; the rest one cap row per user in cap_users
    )
    cap_users: np.ndarray
    price_coef: np.ndarray
    cap_unit: (
        np.ndarray
    )  # per cap row: the utility scale its price is measured in (see _starting_point)
    user_start: np.ndarray  # user n's pairs are user_start[n] .. user_start[n + 1] - 1
    chunks: np.ndarray  # user chunks, one per numba thread (:func:`.pair_kernels.user_chunks`)

    @property
    def parallel(self) -> bool:
        """Whether the iterations run the fused kernels of :mod:`.pfvds_parallel` (two chunks or
        more)."""
        return len(self.chunks) > 2

    def load(self, x):
        """A x: each kept row's load (fraction of its capacity)."""
        if self.parallel:
            return parallel.load(
                x, self.pair_rows, self.coef, self.n_rows, self.user_start, self.chunks
            )
        return row_products(x, self.pair_rows, self.coef, self.n_rows)

    def price(self, y):
        """Aᵀ y: each pair's price of a task (the split path fuses it into its kernels)."""
        return column_products(y, self.pair_rows, self.price_coef)

    def totals(self, x):
        """x_n = Σ over the user's pairs."""
        return user_sums(x, self.pair_user, self.n_users)

    def marginals(self, x):
        """(g, u): each pair's marginal utility and the derivative's rank-one factor, at the totals
        of ``x``."""
        if self.parallel:
            return parallel.marginals(
                x, self.log_coef, self.pair_alpha, self.user_start, self.chunks
            )[:2]
        return _marginals(self.totals(x), self.pair_user, self.log_coef, self.pair_alpha)

    def big(self) -> bool:
        """Whether the reduced matrix's product (rows x users x rows) is large enough for BLAS on
        every thread."""
        return self.parallel and self.n_rows * self.n_rows * self.n_users >= THREADED_BLAS_FLOPS


def _pair_system(cluster, alphas, time_shared) -> _PairSystem:
    """Index the eligible pairs and the constraint rows they load; rows scaled by their capacity. A
    capped user's pairs also load its cap row (coefficient 1/cap); a user capped at 0 has no
    pairs."""
    d3, cap = cluster.server_constraints(time_shared)
    n_servers, kk = cluster.n_servers, cap.shape[1]
    pair_user, pair_server = np.nonzero(cluster.eligible & (cluster.max_tasks > 0)[:, None])
    pair_user = pair_user.astype(np.int64)
    pair_server = pair_server.astype(np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.where(cap > 0, 1.0 / cap, 0.0)  # a zero-capacity row only meets ineligible pairs
    coef = np.ascontiguousarray(d3[pair_user, pair_server, :] * scale[pair_server])
    # Only rows some pair loads enter the system (a vacuous row would make it singular).
    full_rows = pair_server[:, None] * kk + np.arange(kk)[None, :]
    active = np.zeros(n_servers * kk, dtype=bool)
    active[full_rows[coef > 0]] = True
    row_index = np.cumsum(active) - 1
    pair_rows = np.ascontiguousarray(np.where(coef > 0, row_index[full_rows], -1).astype(np.int64))
    pair_alpha = alphas[pair_server]
    log_phi = np.log(cluster.weight)[pair_user]
    log_gamma = np.log(cluster.gamma[pair_user, pair_server])
    log_coef = pair_alpha * (log_phi + log_gamma) - log_gamma  # log of ŝ^-α/γ · x_n^α
    n_server_rows = int(active.sum())
    cap_users = np.flatnonzero(np.isfinite(cluster.max_tasks) & (cluster.max_tasks > 0))
    if cap_users.size:
        cap_row = np.full(cluster.n_users, -1, dtype=np.int64)
        cap_row[cap_users] = n_server_rows + np.arange(cap_users.size)
        rows_of_pair = cap_row[pair_user]
        capped = rows_of_pair >= 0
        pair_rows = np.ascontiguousarray(np.column_stack([pair_rows, rows_of_pair]))
        coef = np.ascontiguousarray(
            np.column_stack(
                [
                    coef,
                    np.where(
                        capped, 1.0 / np.where(capped, cluster.max_tasks[pair_user], 1.0), 0.0
                    ),
                ]
            )
        )
    user_start = np.searchsorted(pair_user, np.arange(cluster.n_users + 1)).astype(np.int64)
    return _PairSystem(
        pair_user,
        pair_server,
        pair_rows,
        coef,
        cluster.n_users,
        n_server_rows + int(cap_users.size),
        pair_alpha,
        log_coef,
        active,
        scale,
        kk,
        n_server_rows,
        cap_users,
        coef,
        np.ones(cap_users.size),
        user_start,
        user_chunks(user_start),
    )


def _starting_point(system: _PairSystem, n_servers, symmetric, start, shrink_to_caps=False):
    """An interior point at half load (or pulled 10% from ``start`` towards it) and per-server
    utility scales κ_i making its marginals ~1; returns (system with scaled utilities, log κ, x,
    y, z, s). ``shrink_to_caps``: each capped user's pairs shrunk to a quarter of its cap (caps of
    0.003 tasks beside 240 stall the uniform start).

    Server i's equations are then in units of κ_i, its own rows' prices too; but a cap's price ν_n
    is one price in the paper's units that every server charges (the variational equilibrium), κ_i
    ν_n in server i's units. So a cap row's price coefficient on a pair of server i is κ_i / κ_n
    / cap_n (κ_n, the geometric mean of the user's servers' scales, is the unit of that row's dual)
    while its load coefficient stays 1 / cap_n: the Newton system is then unsymmetric (LU), as it
    already is for α != 1."""
    n_pairs = len(system.pair_user)
    rows = (
        system.n_server_rows if shrink_to_caps else system.n_rows
    )  # the rows the uniform start half-loads at most
    x = np.full(n_pairs, 0.5 / max(system.load(np.ones(n_pairs))[:rows].max(), 1e-300))
    if system.cap_users.size and shrink_to_caps:  # a capped user at most a quarter of its cap
        cap_load = system.load(x)[system.n_server_rows :]
        shrink = np.ones(system.n_users)
        shrink[system.cap_users] = np.minimum(1.0, 0.25 / np.maximum(cap_load, 1e-300))
        x = x * shrink[system.pair_user]
    if start is not None:  # pulled inside: 10% of the way to the neutral point
        x = 0.9 * start[system.pair_user, system.pair_server] + 0.2 * x
    s = 1.0 - system.load(x)
    log_g0 = system.log_coef - system.pair_alpha * np.log(system.totals(x)[system.pair_user])
    log_kappa = np.zeros(n_servers)
    if (
        symmetric
    ):  # one scale for all servers keeps the α = 1 system symmetric (the Hessian of Σφ log x_n)
        log_kappa[:] = -np.median(log_g0) if n_pairs else 0.0
    else:
        for i in np.unique(system.pair_server):
            log_kappa[i] = -np.median(log_g0[system.pair_server == i])
    system = replace(system, log_coef=system.log_coef + log_kappa[system.pair_server])
    if system.cap_users.size and symmetric:  # one scale: the cap rows' duals are in its units too
        system = replace(system, cap_unit=np.full(system.cap_users.size, np.exp(log_kappa[0])))
    elif system.cap_users.size:
        cap_col = system.pair_rows[:, -1]
        on = cap_col >= 0
        row = cap_col[on] - system.n_server_rows
        log_unit = np.bincount(
            row, weights=log_kappa[system.pair_server[on]], minlength=system.cap_users.size
        ) / np.maximum(np.bincount(row, minlength=system.cap_users.size), 1)
        price_coef = system.coef.copy()
        price_coef[on, -1] *= np.exp(log_kappa[system.pair_server[on]] - log_unit[row])
        system = replace(system, price_coef=price_coef, cap_unit=np.exp(log_unit))
    grad, _ = system.marginals(x)
    y = np.full(system.n_rows, grad.mean() / max(system.coef.sum(axis=1).mean(), 1e-300))
    z = grad.copy()
    return system, log_kappa, x, y, z, s


class _NewtonSystem:
    """The Newton equations at one iterate, reduced to the constraint rows and factorised once (eqs.
    in the module docstring): M = D⁻¹ + per-user rank-one blocks (Sherman-Morrison,
    ``_solve_m``), then the reduced matrix A M⁻¹ Aᵀ + S/Y (Cholesky when symmetric, LU
    otherwise). On many pairs the passes over them are the fused kernels of :mod:`.pfvds_parallel`,
    and a large reduced matrix is formed and factorised by BLAS on every thread."""

    def __init__(self, system: _PairSystem, x, y, z, s, u, symmetric):
        """Form and factorise the reduced Newton system at the iterate (x, y, z, s, u) of
        ``system``."""
        self.system, self.x, self.y, self.z, self.s, self.u = system, x, y, z, s, u
        if system.parallel:
            self.d_inv, self.beta, reduced, v1, vub = parallel.newton_parts(
                x,
                z,
                u,
                system.pair_rows,
                system.coef,
                system.price_coef,
                system.n_rows,
                system.user_start,
                system.chunks,
            )
            with blas_threads(len(system.chunks) - 1) if system.big() else contextlib.nullcontext():
                reduced -= vub.T @ v1
                reduced[np.diag_indices(system.n_rows)] += s / y
                self._factorise(reduced, symmetric)
            return
        self.d_inv = x / z
        self.beta = 1.0 / (1.0 + system.totals(self.d_inv * u))
        reduced, v1, vu = _reduced_matrix_parts(
            self.d_inv,
            u,
            system.pair_user,
            system.pair_rows,
            system.coef,
            system.price_coef,
            system.n_users,
            system.n_rows,
        )
        reduced -= (vu.T * self.beta) @ v1
        reduced[np.diag_indices(system.n_rows)] += s / y
        self._factorise(reduced, symmetric)

    def _factorise(self, reduced, symmetric):
        self.symmetric = symmetric
        if symmetric:
            try:
                self.factor = scipy.linalg.cho_factor(reduced, check_finite=False)
                self.solve_reduced = scipy.linalg.cho_solve
            except np.linalg.LinAlgError:
                self.symmetric = False
        if not self.symmetric:
            self.factor = scipy.linalg.lu_factor(reduced, check_finite=False)
            self.solve_reduced = scipy.linalg.lu_solve

    def _m_inverse(self, b):
        return _solve_m(b, self.d_inv, self.system.pair_user, self.u, self.beta)

    def solve(self, rd, rp, r_xz, r_sy):
        """(dx, dy, dz, ds) for the residuals of dual feasibility, primal feasibility and both
        complementarities."""
        sysm, x, y, z, s = self.system, self.x, self.y, self.z, self.s
        if sysm.parallel:
            b1, load_w = parallel.reduced_rhs(
                rd,
                r_xz,
                x,
                self.d_inv,
                self.u,
                self.beta,
                sysm.pair_rows,
                sysm.coef,
                sysm.n_rows,
                sysm.user_start,
                sysm.chunks,
            )
            dy = self.solve_reduced(self.factor, load_w + rp - r_sy / y, check_finite=False)
            dx, dz = parallel.back_substitute(
                b1,
                dy,
                r_xz,
                x,
                z,
                self.d_inv,
                self.u,
                self.beta,
                sysm.pair_rows,
                sysm.price_coef,
                sysm.user_start,
                sysm.chunks,
            )
            return dx, dy, dz, (-r_sy - s * dy) / y
        b1 = rd - r_xz / x
        w = self._m_inverse(b1)
        dy = self.solve_reduced(self.factor, sysm.load(w) + rp - r_sy / y, check_finite=False)
        dx = self._m_inverse(b1 - sysm.price(dy))
        return dx, dy, (-r_xz - z * dx) / x, (-r_sy - s * dy) / y

    def direction(self, r_d, r_p, r_xz, r_sy):
        """:meth:`solve` plus one round of iterative refinement on the unreduced equations: the
        reduced matrix loses accuracy as complementarity -> 0, the refined direction is exact to
        working precision."""
        sysm, x, y, z, s, u = self.system, self.x, self.y, self.z, self.s, self.u
        dx, dy, dz, ds = self.solve(r_d, r_p, r_xz, r_sy)
        if sysm.parallel:
            e_d, e_xz, load_dx = parallel.refinement_residuals(
                dx,
                dy,
                dz,
                u,
                x,
                z,
                r_d,
                r_xz,
                sysm.pair_rows,
                sysm.coef,
                sysm.price_coef,
                sysm.n_rows,
                sysm.user_start,
                sysm.chunks,
            )
            cx, cy, cz, cs = self.solve(e_d, load_dx + ds + r_p, e_xz, y * ds + s * dy + r_sy)
            parallel.advance(dx, cx, dz, cz, 1.0, sysm.user_start, sysm.chunks)
            return dx, dy + cy, dz, ds + cs
        h_dx = u * sysm.totals(dx)[sysm.pair_user]
        e_d = -h_dx - sysm.price(dy) + dz + r_d
        e_p = sysm.load(dx) + ds + r_p
        e_xz = z * dx + x * dz + r_xz
        e_sy = y * ds + s * dy + r_sy
        cx, cy, cz, cs = self.solve(e_d, e_p, e_xz, e_sy)
        return dx + cx, dy + cy, dz + cz, ds + cs


def _centred_residual(
    system: _PairSystem, target, x, y, z, s, t=0.0, dx=None, dy=None, dz=None, ds=None
):
    """2-norm of the residual of the centred KKT system (complementarity products at ``target``) at
    the trial point (x, y, z, s) + t (dx, dy, dz, ds), or at (x, y, z, s) itself without a
    direction."""
    if dx is not None:
        y, s = y + t * dy, s + t * ds
    if (
        system.parallel
    ):  # the pairs' trial point is formed on the fly (x itself when there is no direction)
        pair_sq, load_t = parallel.centred_pair_residual(
            target,
            x,
            x if dx is None else dx,
            z,
            z if dz is None else dz,
            t,
            y,
            system.log_coef,
            system.pair_alpha,
            system.pair_rows,
            system.coef,
            system.price_coef,
            system.n_rows,
            system.user_start,
            system.chunks,
        )
        return np.sqrt(pair_sq + np.sum((load_t + s - 1.0) ** 2) + np.sum((s * y - target) ** 2))
    if dx is not None:
        x, z = x + t * dx, z + t * dz
    gt, _ = system.marginals(x)
    return np.sqrt(
        np.sum((gt - system.price(y) + z) ** 2)
        + np.sum((system.load(x) + s - 1.0) ** 2)
        + np.sum((x * z - target) ** 2)
        + np.sum((s * y - target) ** 2)
    )


def _step_to_boundary(system: _PairSystem, x, dx, y, dy, z, dz, s, ds):
    """The largest step keeping every variable non-negative."""
    if system.parallel:
        pairs = parallel.step_to_boundary(x, dx, z, dz, system.user_start, system.chunks)
        return min(pairs, _max_step(s, ds), _max_step(y, dy))
    return min(_max_step(x, dx), _max_step(z, dz), _max_step(s, ds), _max_step(y, dy))


def _complementarity_rhs(system: _PairSystem, x, z, dx=None, dz=None, target=None):
    """x z, x z - target, or x z + dx dz - target per pair (the predictor's, the plain Newton's and
    the corrector's right-hand sides)."""
    if system.parallel:
        return parallel.complementarity_rhs(
            x,
            z,
            x if dx is None else dx,
            z if dz is None else dz,
            0.0 if target is None else target,
            dx is not None,
            target is not None,
            system.user_start,
            system.chunks,
        )
    if target is None:
        return x * z
    return x * z - target if dx is None else x * z + dx * dz - target


def _all_finite(system: _PairSystem, dx, dy, dz, ds) -> bool:
    if system.parallel:
        return parallel.all_finite(dx, dz, system.user_start, system.chunks) and bool(
            np.isfinite(dy).all() and np.isfinite(ds).all()
        )
    return all(np.isfinite(v).all() for v in (dx, dy, dz, ds))


def _predictor_corrector(system: _PairSystem, newton: _NewtonSystem, r_d, r_p, n_comp):
    """Mehrotra's predictor-corrector, globalised. The affine-scaling predictor sets the centring σ
    = (μ_aff/μ)³; the marginals' curvature (x_n^-α) can make full Newton steps overshoot, so
    steps are backtracked until the residual of the centred system decreases, with plain Newton on
    the centred system as the fallback direction when the corrector's does not. Returns (t, dx, dy,
    dz, ds), or None when no direction reduces the residual."""
    x, y, z, s = newton.x, newton.y, newton.z, newton.s
    mu = float(x @ z + s @ y) / n_comp
    dx, dy, dz, ds = newton.direction(
        r_d, r_p, _complementarity_rhs(system, x, z), s * y
    )  # affine predictor
    t = _step_to_boundary(system, x, dx, y, dy, z, dz, s, ds)
    if system.parallel:
        pair_mu = parallel.trial_complementarity(x, dx, z, dz, t, system.user_start, system.chunks)
        mu_aff = (pair_mu + (s + t * ds) @ (y + t * dy)) / n_comp
    else:
        mu_aff = ((x + t * dx) @ (z + t * dz) + (s + t * ds) @ (y + t * dy)) / n_comp
    target = min((mu_aff / mu) ** 3, 1.0) * mu
    here = _centred_residual(system, target, x, y, z, s)
    corrector = (_complementarity_rhs(system, x, z, dx, dz, target), s * y + ds * dy - target)
    for rhs in (corrector, (_complementarity_rhs(system, x, z, target=target), s * y - target)):
        dx, dy, dz, ds = newton.direction(r_d, r_p, *rhs)
        if not _all_finite(system, dx, dy, dz, ds):
            continue
        t = 0.99 * _step_to_boundary(system, x, dx, y, dy, z, dz, s, ds)
        for _ in range(_BACKTRACKS):
            if (
                _centred_residual(system, target, x, y, z, s, t, dx, dy, dz, ds)
                <= (1.0 - 1e-4 * t) * here
            ):
                return t, dx, dy, dz, ds
            t *= 0.5
    return None


def _iterate(system: _PairSystem, x, y, z, s, symmetric, tol, max_iterations):
    """The loop of one stage from the starting point (x, y, z, s): residuals, Newton system,
    predictor-corrector step, until the largest of the primal and dual residuals and the gap is
    below ``tol``, the iterates stall for :data:`_STALL_ITERATIONS`, or the marginals leave floating
    point. Returns (iterations, converged, x, y, primal residual, dual residual, gap) of the best
    iterate. The reference of :func:`.pfvds_interior_serial.iterate`, and the path of large systems
    (its passes over the pairs are then the threaded kernels of :mod:`.pfvds_parallel`)."""
    n_comp = len(system.pair_user) + system.n_rows

    converged = False
    it = 0
    gap = primal_res = dual_res = np.inf
    best = (np.inf, x, y, gap, gap, gap)
    stalled = 0
    # Overflow or a singular reduced matrix (very large α) ends the stage with the best iterate so
    # far.
    with (
        np.errstate(all="ignore"),
        warnings.catch_warnings(),
        numba_threads(len(system.chunks) - 1),
    ):
        warnings.simplefilter("ignore", scipy.linalg.LinAlgWarning)
        for it in range(1, int(max_iterations) + 1):
            if system.parallel:
                grad, u, finite = parallel.marginals(
                    x, system.log_coef, system.pair_alpha, system.user_start, system.chunks
                )
                if not finite:
                    break
                r_d, dual_max, grad_max = parallel.dual_residual(
                    grad,
                    y,
                    z,
                    system.pair_rows,
                    system.price_coef,
                    system.user_start,
                    system.chunks,
                )
            else:
                grad, u = system.marginals(x)
                if not (np.isfinite(grad).all() and np.isfinite(u).all()):
                    break  # marginals beyond floating point (very large α): keep the best iterate
                r_d = grad - system.price(y) + z
                dual_max, grad_max = np.abs(r_d).max(), grad.max()
            r_p = system.load(x) + s - 1.0
            gap = float(x @ z + s @ y) / max(float(x @ grad), 1e-300)
            primal_res = float(np.abs(r_p).max())
            dual_res = float(dual_max / grad_max)
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
            newton = _NewtonSystem(system, x, y, z, s, u, symmetric)
            symmetric = newton.symmetric
            step = _predictor_corrector(system, newton, r_d, r_p, n_comp)
            if step is None:
                break  # no direction reduces the residual: keep the best iterate
            t, dx, dy, dz, ds = step
            if system.parallel:
                parallel.advance(x, dx, z, dz, t, system.user_start, system.chunks)
            else:
                x += t * dx
                z += t * dz
            y += t * dy
            s += t * ds

    _, x, y, primal_res, dual_res, gap = best  # the iterate with the smallest residuals
    return it, converged, x, y, primal_res, dual_res, gap


def _interior_point(cluster, alphas, time_shared, tol, max_iterations, start, shrink_to_caps=False):
    """One stage of the interior-point method at fixed ``alphas``: residuals, Newton system,
    predictor-corrector step, until the largest of the primal and dual residuals and the gap is
    below ``tol``, the iterates stall for :data:`_STALL_ITERATIONS`, or the marginals leave floating
    point; returns the best iterate."""
    n_users, n_servers = cluster.n_users, cluster.n_servers
    symmetric = bool((alphas == 1.0).all())
    system, log_kappa, x, y, z, s = _starting_point(
        _pair_system(cluster, alphas, time_shared), n_servers, symmetric, start, shrink_to_caps
    )
    if system.parallel or interpreting():
        it, converged, x, y, primal_res, dual_res, gap = _iterate(
            system, x, y, z, s, symmetric, tol, max_iterations
        )
    else:
        # a small system: the same loop compiled whole (its interpreter overhead is most of its
        # time)
        it, converged, x, y, primal_res, dual_res, gap = _iterate_compiled(
            x,
            y,
            z,
            s,
            symmetric,
            StageLimits(float(tol), int(max_iterations), _STALL_ITERATIONS, _BACKTRACKS),
            system.pair_user,
            system.pair_rows,
            system.coef,
            system.price_coef,
            system.log_coef,
            system.pair_alpha,
            system.n_users,
            system.n_rows,
        )
    if (x < 0).any():
        # the best iterate left the interior (a stage that broke down: seen at α = 64 on one
        # random cluster in a thousand): it is no allocation, so the stage has not converged, and
        # what it hands on (a start for the best responses that finish) is its projection onto
        # tasks >= 0
        converged = False
        x = np.maximum(x, 0.0)
    x = x / max(
        1.0, float(system.load(x).max())
    )  # exact feasibility (a change of the order of the primal residual)
    tasks = np.zeros((n_users, n_servers))
    tasks[system.pair_user, system.pair_server] = x
    y_full = np.zeros(n_servers * system.n_constraints)
    y_full[system.active] = y[: system.n_server_rows]
    prices = (
        y_full.reshape(n_servers, system.n_constraints) * system.scale * np.exp(-log_kappa)[:, None]
    )
    cap_prices = np.zeros(
        n_users
    )  # ν_n per task, in the paper's units (its row's dual is in units of κ_n)
    cap_prices[system.cap_users] = (
        y[system.n_server_rows :] / cluster.max_tasks[system.cap_users] / system.cap_unit
    )
    return Allocation.from_diagnostics(
        cluster,
        tasks,
        "pfvds",
        {
            "iterations": it,
            "converged": converged,
            "gap": gap,
            "primal_residual": primal_res,
            "dual_residual": dual_res,
            "prices": prices,
            "cap_prices": cap_prices,
            "alpha": alphas,
            "time_shared": time_shared,
            "method": "interior_point",
        },
    )
