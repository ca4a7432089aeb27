"""PF-VDS(α) by the paper's distributed heuristic (Khamse-Ashari et al. eqs. 55–57, [INF]): every
server moves its users along -F[n, i] = ŝ^-α/γ - λ·d_n with penalty prices λ = κ [used -
c]^+.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..._validate import as_instance
from .._engine.options import MethodOptions
from ..cluster import FEASIBILITY_RTOL, Cluster
from ..psdsf import psdsf
from ._psmfa import merit

#: Problem 2 (time-shared servers) and per-user caps: refused
TIME_SHARED = False
CAPS = False


@dataclass(frozen=True)
class DistributedOptions(MethodOptions):
    """``pfvds(..., method="distributed", options=...)``.

    Parameters
    ----------
    kappa : float > 0
        The penalty factor κ of the prices λ = κ [used/c - 1]^+ / c.
    step : float > 0
        The step size of each server's move.
    iterations : int >= 1
        The iteration cap.
    tol : float in [1e-15, 0.1]
        The merit Ψ below which it stops.
    """

    kappa: float = 1e3
    step: float = 1e-2
    iterations: int = 20000
    tol: float = 1e-10

    def __post_init__(self):
        self._number("kappa")
        self._number("step")
        self._count("iterations")
        self._tolerance("tol")


OPTIONS = DistributedOptions


def run(cluster: Cluster, alphas, time_shared: bool, options: DistributedOptions):
    """``method="distributed"``: eqs. 55–57 from half of PS-DSF's allocation; (tasks,
    diagnostics).

    Parameters
    ----------
    cluster : Cluster
        The instance.
    alphas : (K,) ndarray
        α per server.
    time_shared : bool
        Problem 2: each server's one constraint Σ_n x[n, i]/γ[n, i] <= 1.
    options : DistributedOptions
        The method's options.

    Returns
    -------
    tasks : (N, K) ndarray
        The allocation.
    diagnostics : dict
        The method's diagnostics (see :func:`fairlib.multires.pfvds`).
    """
    x0 = psdsf(cluster).tasks * 0.5
    x, psi, lam, diverged_at = _distributed(
        cluster,
        alphas,
        x0,
        kappa=options.kappa,
        step=options.step,
        iterations=options.iterations,
        tol=options.tol,
    )
    over = np.einsum("ni,nr->ir", x, cluster.demand) / np.maximum(cluster.capacity, 1e-300) - 1.0
    diag = {
        "iterations": len(psi),
        "psi": psi,
        "prices": lam,
        "overuse": float(max(over.max(), 0.0)),
    }
    if over.max() > FEASIBILITY_RTOL:
        # penalty prices hold the capacities only approximately: not an allocation of the cluster
        diag["converged"] = False
        diag["message"] = (
            f"the distributed iteration stopped with a server overused by {over.max():.3g} of "
            "its capacity (its penalty prices hold capacities only approximately)"
        )
    if diverged_at is not None:
        diag["converged"] = False
        diag["message"] = (
            f"the distributed iteration diverged at iteration {diverged_at}: its update left "
            "the finite "
            "numbers (tasks or penalty prices overflowed); the tasks are its last finite iterate"
        )
    return x, diag


def _complementarity_f(cluster, x, lam, alphas):
    """F[n, i] = λ_i·d_n - ŝ^-α/γ (eq. 30) on usable pairs (0 elsewhere)."""
    vds = cluster.vds(x.sum(axis=1))
    # an overflow makes the move infinite, which _distributed reports as a divergence
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        marginal = np.where(cluster.eligible, vds ** (-alphas[None, :]) / cluster.gamma, 0.0)
    return np.where(cluster.eligible, cluster.demand @ lam.T - marginal, 0.0)


def penalty_prices(cluster: Cluster, tasks, kappa: float) -> np.ndarray:
    """The distributed heuristic's prices λ[i, r] = κ [used/c − 1]^+ / c (eq. 57 as
    reconstructed, [INF]).

    Parameters
    ----------
    cluster : Cluster
        The instance.
    tasks : (N, K) array_like
        Tasks per (user, server).
    kappa : float
        The penalty factor κ.

    Returns
    -------
    (K, R) ndarray
        The prices λ[i, r].
    """
    as_instance(cluster, Cluster, "cluster")
    x = np.asarray(tasks, dtype=np.float64)
    cap = np.maximum(cluster.capacity, 1e-300)
    used = np.einsum("ni,nr->ir", x, cluster.demand)
    return float(kappa) * np.maximum(used / cap - 1.0, 0.0) / cap


def _update_direction(cluster, x, lam, alphas) -> np.ndarray:
    """The distributed update's direction [-F]^+_x at (x, λ) (eq. 55 [INF], before its step
    size)."""
    f = _complementarity_f(cluster, x, lam, alphas)
    return np.where((x > 0) | (f < 0), -f, 0.0)


def _distributed(cluster, alphas, x, *, kappa, step, iterations, tol):
    """Eqs. 55–57 [INF]: every server moves its users along [-F[n, i]]^+_{x[n, i]} (scaled by
    γ[n, i], so the step is in units of "a server's worth of tasks") with penalty prices λ[i, r] =
    κ [used/c - 1]^+ / c standing in for the multipliers. Returns (tasks, Ψ trajectory, final
    prices, the iteration at which it diverged or None): nothing holds the update's step, so it can
    overflow; it then stops at its last finite iterate."""
    trajectory = []
    lam = np.zeros_like(cluster.capacity)
    last = x
    for k in range(iterations):
        # non-finite tasks or prices are the iteration's own overflow, handled here, not the
        # caller's input
        with np.errstate(over="ignore", invalid="ignore"):
            prices = penalty_prices(cluster, x, kappa)
        if not (np.isfinite(x).all() and np.isfinite(prices).all()):
            return last, np.array(trajectory), lam, k
        lam = prices
        with np.errstate(over="ignore", invalid="ignore"):
            psi = merit(cluster, x, lam, alphas)
        trajectory.append(psi)
        if psi < tol:
            break
        move = _update_direction(cluster, x, lam, alphas)
        last = x
        with np.errstate(over="ignore", invalid="ignore"):
            x = (
                np.maximum(x + step * move * cluster.gamma**2 / cluster.gamma.max(), 0.0)
                * cluster.eligible
            )
    if not np.isfinite(x).all():
        return last, np.array(trajectory), lam, iterations
    return x, np.array(trajectory), lam, None
