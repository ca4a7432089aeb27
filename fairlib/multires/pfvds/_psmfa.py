"""PS-MFA: projected descent on the Fischer–Burmeister merit function (Khamse-Ashari et al. §5.1,
eqs. 44–54).

Reconstruction ([INF], reconstructions §5.4–5.5): the NCP 0 <= x[n, i] ⊥ F[n, i](x, λ) >= 0
with F[n, i] = λ_i·d_n - ŝ[n, i]^-α / γ[n, i] is solved by minimising Ψ(x, λ) = Σ ½
φ_FB(x, F)² subject to feasibility, λ >= 0 and λ[i, r] = 0 on resources not saturated on server
i (eqs. 37–40). Each iteration moves every server's column along -∇Ψ projected on T_i = {y:
Σ_n d[n, r] y_n = 0 for the saturated r} (eq. 46; users at x = 0 pushed below 0 are held at 0), and
the saturated resources' prices along -∂Ψ/∂λ (kept >= 0, eqs. 47–48). The step is the
largest that keeps x >= 0 and every capacity (a resource that fills up joins the saturated set),
shortened by backtracking until Ψ decreases (eqs. 51–53). Stops when Ψ < tol. Every iterate is
thus feasible if the start is: the start must be an allocation of the cluster in which every user
holds some tasks (Ψ is infinite at a user with none, ŝ^-α at ŝ = 0); :func:`psmfa` refuses any
other.

Scaling (ours): each complementarity pair is measured as (x[n, i] / γ[n, i], γ[n, i] F[n, i]) —
a fraction of the server and a marginal per server's worth of tasks — which leaves the solution
set unchanged (φ_FB(a, b) = 0 iff a, b >= 0 and ab = 0) but makes Ψ's terms comparable across
users and servers of very different sizes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from ..._validate import (
    MAX_ITERATIONS,
    InvalidInputError,
    as_count,
    as_instance,
    as_values,
    as_tolerance,
    result_type,
)
from .._engine.options import MethodOptions
from ..cluster import Cluster, checked_allocation, per_server_alpha

__all__ = ["psmfa", "merit"]


def _fb_parts(cluster, x, lam, alphas):
    """(Ψ, ∂Ψ/∂x, ∂Ψ/∂λ) of the scaled pairs a = x[n, i] / γ[n, i], b = γ[n, i] F[n,
    i]."""
    elig = cluster.eligible
    gamma = np.where(elig, cluster.gamma, 1.0)
    totals = x.sum(axis=1)
    vds = totals[:, None] / (cluster.weight[:, None] * gamma)
    vds = np.where(elig, np.maximum(vds, 1e-300), 1.0)
    alpha = alphas[None, :]
    f = np.where(elig, cluster.demand @ lam.T - vds ** (-alpha) / gamma, 0.0)
    a, b = x / gamma, gamma * f
    root = np.sqrt(a * a + b * b)
    # φ_FB = a + b - √(a² + b²) cancels to 0 in floats when one of a, b dwarfs the other (a price
    # far above its scale made Ψ exactly 0 away from the equilibrium); where a + b > 0 the same
    # value is 2ab / (a + b + √(a² + b²)), which does not cancel
    total = a + b
    with np.errstate(over="ignore", invalid="ignore"):
        stable = 2.0 * a * b / np.where(total > 0, total + root, 1.0)
    phi = np.where(elig, np.where(total > 0, stable, total - root), 0.0)
    psi = 0.5 * float((phi**2).sum())
    safe = np.where(root > 0, root, 1.0)
    d_a = np.where(elig, phi * (1 - np.where(root > 0, a / safe, 0.0)), 0.0)
    d_b = np.where(elig, phi * (1 - np.where(root > 0, b / safe, 0.0)), 0.0)
    # ∂b[n, i]/∂x[n, j] = γ[n, i] α ŝ[n, i]^(-α-1) / (φ_n γ[n, i]^2) for every server j
    dbdx = np.where(elig, alpha * vds ** (-alpha - 1) / (cluster.weight[:, None] * gamma), 0.0)
    grad_x = (d_a / gamma + (d_b * dbdx).sum(axis=1, keepdims=True)) * elig
    grad_lam = (d_b * gamma).T @ cluster.demand  # [i, r]
    return psi, grad_x, grad_lam


def _saturated(cluster, x):
    """``saturated[server, resource]``: used to within 1e-10 of capacity (the resources whose prices
    may be > 0)."""
    return np.einsum("ni,nr->ir", x, cluster.demand) >= cluster.capacity * (1 - 1e-10)


def _tangent(rows, g):
    """``g`` projected on the null space {y: rows @ y = 0}, built from an orthonormal basis of it.

    The basis (the right singular vectors past the rank) makes the result a combination of vectors
    orthogonal to ``rows`` to round-off: it moves a saturated resource by round-off of the step, not
    of ``g``, and it is exactly 0 when the null space is {0}. Subtracting the least-squares fit
    instead (``g - rows.T @ coef``) leaves round-off of ``g`` itself, which for a gradient of 1e14
    let a step push a saturated resource up to ~1e-4 past its capacity at α = 8."""
    _, s, vt = np.linalg.svd(rows, full_matrices=True)
    rank = int((s > s.max(initial=0.0) * max(rows.shape) * np.finfo(float).eps).sum())
    null = vt[rank:]
    return null.T @ (null @ g)


def _direction(cluster, x, lam, grad_x, grad_lam, saturated):
    dx = np.zeros_like(x)
    dlam = np.zeros_like(lam)
    for i in range(cluster.n_servers):
        users = np.flatnonzero(cluster.eligible[:, i])
        if users.size == 0:
            continue
        g = -grad_x[users, i]
        free = (x[users, i] > 0) | (g > 0)
        sat = np.flatnonzero(saturated[i])
        for _ in range(len(users) + 1):  # hold users at 0 whom the projection pushes below 0
            y = np.zeros(len(users))
            if free.any():
                dfree = cluster.demand[users[free]][:, sat]
                gf = g[free]
                if sat.size:
                    gf = _tangent(dfree.T, gf)
                y[free] = gf
            bad = free & (x[users, i] <= 0) & (y < 0)
            if not bad.any():
                break
            free &= ~bad
        dx[users, i] = y
        step = -grad_lam[i, sat]
        dlam[i, sat] = np.where((lam[i, sat] > 0) | (step > 0), step, 0.0)
    return dx, dlam


def _max_step(cluster, x, dx, lam, dlam, saturated):
    limit = np.inf
    neg = dx < 0
    if neg.any():
        limit = min(limit, float((x[neg] / -dx[neg]).min()))
    negl = dlam < 0
    if negl.any():
        limit = min(limit, float((lam[negl] / -dlam[negl]).min()))
    used = np.einsum("ni,nr->ir", x, cluster.demand)
    rate = np.einsum("ni,nr->ir", dx, cluster.demand)
    grow = (rate > 0) & ~saturated
    if grow.any():
        limit = min(limit, float(((cluster.capacity - used)[grow] / rate[grow]).min()))
    return max(limit, 0.0)


@result_type
class PSMFAResult(NamedTuple):
    """PS-MFA's final allocation, the merit per iteration, the final prices, and whether it met its
    tolerance.

    Parameters
    ----------
    tasks : numpy.ndarray
        Float64, shape (n_users, n_servers): the final ``tasks[user, server]``.
    trajectory : numpy.ndarray
        Float64, shape (n_iterations,): the merit Ψ at each iteration.
    prices : numpy.ndarray
        Float64, shape (n_servers, n_resources): the final prices λ[i, r].
    converged : bool
        Whether the last merit is below ``tol`` (the test ``pfvds(method="psmfa")`` reports as
        ``converged``); False when the descent stalled short of it or ran out of iterations.
    """

    tasks: np.ndarray
    trajectory: np.ndarray
    prices: np.ndarray
    converged: bool


def _start(cluster: Cluster, x0, alphas) -> np.ndarray:
    """``x0`` as a copy after checking it is a start of the descent: an allocation of ``cluster``
    (:func:`~fairlib.multires.cluster.checked_allocation`) at which every user holds tasks and the
    merit and its gradient are finite."""
    x = checked_allocation(cluster, x0, "x0").copy()
    idle = x.sum(axis=1) <= 0
    if idle.any():
        n = int(np.argmax(idle))
        raise InvalidInputError(
            f"x0[{n}] = {x[n].tolist()}: user {n} holds no tasks; the merit Ψ is infinite there "
            "(its VDS ŝ^-α), so every user must hold some tasks (x0=None starts from PS-DSF's "
            "allocation)"
        )
    with np.errstate(over="ignore", invalid="ignore"):
        psi, grad_x, grad_lam = _fb_parts(cluster, x, np.zeros_like(cluster.capacity), alphas)
    if not (np.isfinite(psi) and np.isfinite(grad_x).all() and np.isfinite(grad_lam).all()):
        # ∂Ψ/∂x[n] holds user n's ŝ^(-α-1), the first power to overflow as its tasks shrink
        steep = ~np.isfinite(grad_x).all(axis=1)
        if not steep.any():
            raise InvalidInputError(
                "x0: the merit Ψ or its gradient is not finite at this start; start from x0=None "
                "(PS-DSF's allocation)"
            )
        n = int(np.argmax(steep))
        raise InvalidInputError(
            f"x0[{n}] = {x[n].tolist()}: user {n} holds so few tasks that its marginal ŝ^-α "
            "overflows (the merit Ψ or its gradient is not finite there); start it with more"
        )
    return x


def psmfa(
    cluster: Cluster,
    alphas: float | ArrayLike,
    *,
    tol: float = 1e-10,
    iterations: int = 20000,
    x0: ArrayLike | None = None,
) -> PSMFAResult:
    """PS-MFA: projected descent on the Fischer–Burmeister merit function (module docstring; a
    reconstruction, [INF]).

    Parameters
    ----------
    cluster : Cluster
        The cluster.
    alphas : float or array_like
        α, one value or one per server (shape (n_servers,)), >= 0.01.
    tol : float, default 1e-10
        Stop when Ψ < tol; from 1e-15 to 0.1.
    iterations : int, default 20000
        The most iterations, >= 1.
    x0 : array_like or None, default None
        Shape (n_users, n_servers): the starting allocation, an allocation of the cluster (finite,
        >= 0, 0 on the pairs a user cannot use, within every capacity up to
        :data:`~fairlib.multires.cluster.FEASIBILITY_RTOL`) in which every user holds some tasks
        (Ψ is infinite at a user with none); None: PS-DSF's allocation.

    Returns
    -------
    PSMFAResult
        ``(tasks, trajectory, prices, converged)``. The descent keeps feasibility: the tasks are
        within every capacity up to :data:`~fairlib.multires.cluster.FEASIBILITY_RTOL` (relative),
        as its start is.

    Raises
    ------
    InvalidInputError
        On an invalid cluster, α, tolerance, iteration count or start; on a cluster with per-user
        caps (``max_tasks``), which PS-MFA does not honour; on a start ``x0`` that is no allocation
        of the cluster (the message names the entry, or the server and resource over capacity with
        its use and capacity), in which a user holds no tasks (named), or at which a user holds so
        few that its marginal ŝ^-α overflows (named).

    References
    ----------
    .. [1] J. Khamse-Ashari, I. Lambadaris, G. Kesidis, B. Urgaonkar, Y. Zhao, "An Efficient and
       Fair Multi-Resource Allocation Mechanism for Heterogeneous Servers", IEEE TPDS, 2018, §5.1,
       eqs. (44)–(54).
    """
    as_instance(cluster, Cluster, "cluster")
    cluster.refuse_caps("psmfa")
    try:
        alphas = per_server_alpha(cluster, alphas)
    except InvalidInputError as exc:
        raise InvalidInputError(f"alphas: {exc}") from None
    tol, iterations = (
        as_tolerance(tol, "tol"),
        as_count(iterations, "iterations", maximum=MAX_ITERATIONS),
    )
    if x0 is None:
        from ..psdsf import psdsf

        x = psdsf(cluster).tasks.copy()  # feasible, every user served
    else:
        x = _start(cluster, x0, alphas)
    lam = np.zeros((cluster.n_servers, cluster.n_resources))
    trajectory = []
    for _ in range(iterations):
        saturated = _saturated(cluster, x)
        lam = np.where(saturated, lam, 0.0)
        psi, gx, gl = _fb_parts(cluster, x, lam, alphas)
        trajectory.append(psi)
        if psi < tol:
            break
        dx, dlam = _direction(cluster, x, lam, gx, gl, saturated)
        if not (np.abs(dx).max() > 0 or np.abs(dlam).max() > 0):
            break
        t = min(1.0, _max_step(cluster, x, dx, lam, dlam, saturated))
        if t <= 0:
            t = 1e-12
        while t > 1e-16:
            x_try = np.maximum(x + t * dx, 0.0) * cluster.eligible
            lam_try = np.maximum(lam + t * dlam, 0.0)
            # a trial step that empties a user's servers overflows ŝ^-α (Ψ = inf or nan at large
            # α): the comparison below rejects it and halves the step
            with np.errstate(over="ignore", invalid="ignore"):
                psi_try = _fb_parts(cluster, x_try, lam_try, alphas)[0]
            if psi_try < psi:
                break
            t *= 0.5
        else:
            break
        x, lam = x_try, lam_try
    return PSMFAResult(x, np.array(trajectory), lam, bool(trajectory and trajectory[-1] < tol))


def merit(cluster: Cluster, tasks: ArrayLike, prices: ArrayLike, alpha: float | ArrayLike) -> float:
    """Fischer–Burmeister merit Ψ(x, λ) = Σ ½ φ_FB(x[n, i]/γ[n, i], γ[n, i] F[n, i])² over
    usable pairs.

    Eqs. (35)–(37), [INF]; the scaling by γ is ours (module docstring). Both iterative solvers
    report this Ψ, so their traces are comparable.

    Parameters
    ----------
    cluster : Cluster
        The cluster.
    tasks : array_like
        Shape (n_users, n_servers): the allocation x, finite and >= 0.
    prices : array_like
        Shape (n_servers, n_resources): the servers' multipliers λ_{i,r}, finite and >= 0.
    alpha : float or array_like
        α, one value or one per server, >= 0.01.

    Returns
    -------
    float
        Ψ, >= 0; ``inf`` when a user holds no tasks (or so few that its marginal ŝ^-α overflows).

    Raises
    ------
    InvalidInputError
        On an invalid cluster, allocation, prices or α.

    References
    ----------
    .. [1] J. Khamse-Ashari, I. Lambadaris, G. Kesidis, B. Urgaonkar, Y. Zhao, "An Efficient and
       Fair Multi-Resource Allocation Mechanism for Heterogeneous Servers", IEEE TPDS, 2018, eqs.
       (35)–(37).
    """
    as_instance(cluster, Cluster, "cluster")
    prices = as_values(prices, "prices", ndim=2, shape=(cluster.n_servers, cluster.n_resources))
    x, alphas = cluster._tasks(tasks), per_server_alpha(cluster, alpha)
    # a user without tasks has an infinite marginal: Ψ = inf, an answer, not a numerical accident
    with np.errstate(over="ignore", invalid="ignore"):
        return _fb_parts(cluster, x, prices, alphas)[0]


#: Problem 2 (time-shared servers) and per-user caps: refused
TIME_SHARED = False
CAPS = False


@dataclass(frozen=True)
class PSMFAOptions(MethodOptions):
    """``pfvds(..., method="psmfa", options=...)``.

    Parameters
    ----------
    iterations : int >= 1
        The iteration cap.
    tol : float in [1e-15, 0.1]
        The merit Ψ below which it stops.
    """

    iterations: int = 20000
    tol: float = 1e-10

    def __post_init__(self):
        self._count("iterations")
        self._tolerance("tol")


OPTIONS = PSMFAOptions


def run(cluster: Cluster, alphas, time_shared: bool, options: PSMFAOptions):
    """``method="psmfa"``: :func:`psmfa` from PS-DSF's allocation; (tasks, diagnostics).

    Parameters
    ----------
    cluster : Cluster
        The instance.
    alphas : (K,) ndarray
        α per server.
    time_shared : bool
        Problem 2: each server's one constraint Σ_n x[n, i]/γ[n, i] <= 1.
    options : PSMFAOptions
        The method's options.

    Returns
    -------
    tasks : (N, K) ndarray
        The allocation.
    diagnostics : dict
        The method's diagnostics (see :func:`fairlib.multires.pfvds`).
    """
    res = psmfa(cluster, alphas, tol=options.tol, iterations=options.iterations)
    return res.tasks, {
        "iterations": len(res.trajectory),
        "psi": res.trajectory,
        "prices": res.prices,
    }
