"""Why PS-MFA and the distributed heuristic stall (Khamse-Ashari et al. §5, both [INF]
reconstructions).

The paper reports Ψ → 0 for both (Fig. 6); ours do not get there. Three causes are possible —
the merit function, the reconstructed equations, or the step rule — and each function here
measures one of them on a given cluster:

- :func:`equilibrium_merits`: Ψ *at the equilibrium* (found by the exact solver) under each
  algorithm's own price rule. If Ψ is 0 there with the equilibrium's multipliers, the merit and the
  NCP (eqs. 28–37) are sound. The distributed heuristic (eqs. 55–57 as reconstructed) prices
  resources by a penalty, λ = κ [used/c − 1]^+ / c, which is 0 wherever nothing is overused —
  so at the equilibrium its prices are 0, every user's F = λ·d − ŝ^-α/γ is negative, its
  update moves every user up, and Ψ is positive: the equilibrium is not a fixed point of those
  equations, whatever the step and κ, and Ψ → 0 cannot happen.
- :func:`descent_rate`: PS-MFA's projected steepest descent at the point where it stopped: whether
  its direction still descends (not a stationary point, so neither merit nor equations stop it), the
  most one step along it can gain (an exact scan of the step), and the rate of its last iterations
  — a first-order step on an ill-conditioned Ψ, i.e. the step rule.
"""

from __future__ import annotations

import numpy as np

from ..._validate import InvalidInputError, as_count, as_number
from ..cluster import Cluster, per_server_alpha
from . import pfvds
from ._best_response import _sweeps, nash_residual
from ._distributed import _update_direction, penalty_prices
from ._psmfa import merit

__all__ = ["equilibrium_merits", "descent_rate", "penalty_prices"]


def _update_move(cluster, x, lam, alphas) -> float:
    """Largest |move| of the distributed update's direction at (x, λ) (before its step size)."""
    return float(np.abs(_update_direction(cluster, x, lam, alphas) * cluster.eligible).max())


def equilibrium_merits(cluster: Cluster, alpha, *, kappa: float = 1000.0) -> dict:
    """Ψ and the distributed update at the PF-VDS(α) equilibrium under two price rules.

    The equilibrium is :func:`pfvds`'s, polished by exact best-response sweeps whose per-server
    prices are its multipliers λ*. Returns ``nash_residual`` (of that equilibrium),
    ``psi_multipliers`` = Ψ(x*, λ*) and ``move_multipliers`` (the distributed update's largest
    move at (x*, λ*)), ``psi_penalty`` and ``move_penalty`` (the same with the penalty prices at
    x*, :func:`penalty_prices`), and ``overuse`` (largest used/c − 1 at x*, ≤ 0 up to rounding:
    why the penalty prices vanish there).

    Parameters
    ----------
    cluster : Cluster
        The instance.
    alpha : float or (K,) array_like
        α > 0 (one per server, or one for all).
    kappa : float
        The penalty factor κ of the penalty prices.

    Returns
    -------
    dict
        The values listed above.
    """
    kappa = as_number(kappa, "kappa")
    alphas = per_server_alpha(cluster, alpha)  # refuses a cluster that is not a Cluster, by name
    x, sweeps = _sweeps(cluster, alphas, pfvds(cluster, alpha).tasks, False, 2000, 1e-12)
    lam_star = sweeps["prices"]
    lam_penalty = penalty_prices(cluster, x, kappa)
    over = np.where(cluster.capacity > 0, cluster.load(x) - 1.0, -1.0)
    return {
        "nash_residual": nash_residual(cluster, x, alphas),
        "psi_multipliers": merit(cluster, x, lam_star, alphas),
        "move_multipliers": _update_move(cluster, x, lam_star, alphas),
        "psi_penalty": merit(cluster, x, lam_penalty, alphas),
        "move_penalty": _update_move(cluster, x, lam_penalty, alphas),
        "overuse": float(over.max()),
    }


def descent_rate(
    cluster: Cluster, alpha, tasks, prices, trajectory, *, tail: int = 1000, tol: float = 1e-10
) -> dict:
    """PS-MFA's descent where it stopped: ``tasks``/``prices`` its last iterate, ``trajectory`` its
    Ψ per iteration.

    Returns ``psi`` (Ψ there), ``slope`` (Ψ's directional derivative along PS-MFA's projected
    direction; < 0: still a descent direction, so not a stationary point), ``longest_step`` (the
    longest step that keeps x >= 0, λ >= 0 and every capacity, PS-MFA's limit), ``best_step`` and
    ``best_gain`` (the step among 2^-40 … 2^10 and the longest one, no longer than it, that lowers
    Ψ most, and that relative decrease), ``rate`` (Ψ's mean relative decrease per iteration over
    the last ``tail`` iterations) and ``iterations_to_tol`` (how many more iterations that rate
    needs to bring Ψ below ``tol``; inf if it does not decrease).

    Parameters
    ----------
    cluster : Cluster
        The instance.
    alpha : float or (K,) array_like
        α > 0 (one per server, or one for all).
    tasks : (N, K) array_like
        PS-MFA's last iterate's tasks.
    prices : (K, R) array_like
        Its last prices.
    trajectory : (T,) array_like
        Its Ψ per iteration.
    tail : int
        The iterations the rate is measured over.
    tol : float
        The Ψ the rate is extrapolated to.

    Returns
    -------
    dict
        The values listed above.
    """
    from ._psmfa import _direction, _fb_parts, _max_step, _saturated

    tail, tol = as_count(tail, "tail"), as_number(tol, "tol")
    psi_trace = np.asarray(trajectory, dtype=np.float64)
    if psi_trace.ndim != 1 or psi_trace.size < 2:
        raise InvalidInputError(
            f"trajectory: expected Ψ per iteration (at least 2 values), got shape {psi_trace.shape}"
        )
    alphas = per_server_alpha(cluster, alpha)  # refuses a cluster that is not a Cluster, by name
    x = np.asarray(tasks, dtype=np.float64)
    saturated = _saturated(cluster, x)
    lam = np.where(saturated, np.asarray(prices, dtype=np.float64), 0.0)
    psi, grad_x, grad_lam = _fb_parts(cluster, x, lam, alphas)
    dx, dlam = _direction(cluster, x, lam, grad_x, grad_lam, saturated)
    slope = float((grad_x * dx).sum() + (grad_lam * dlam).sum())
    longest = _max_step(
        cluster, x, dx, lam, dlam, saturated
    )  # keeps x >= 0, λ >= 0 and every capacity
    steps = 2.0 ** np.arange(-40, 11)
    steps = np.append(steps[steps < longest], longest) if np.isfinite(longest) else steps
    best, best_step = psi, 0.0
    for t in steps:
        trial = _fb_parts(
            cluster,
            np.maximum(x + t * dx, 0.0) * cluster.eligible,
            np.maximum(lam + t * dlam, 0.0),
            alphas,
        )[0]
        if trial < best:
            best, best_step = trial, float(t)
    span = min(tail, psi_trace.size - 1)
    ratio = psi_trace[-1] / psi_trace[-1 - span]
    rate = float(1.0 - ratio ** (1.0 / span))
    to_tol = (
        0.0
        if psi_trace[-1] <= tol
        else (float(np.log(tol / psi_trace[-1]) / np.log1p(-rate)) if rate > 0 else np.inf)
    )
    return {
        "psi": float(psi),
        "slope": slope,
        "longest_step": float(longest),
        "best_step": best_step,
        "best_gain": float((psi - best) / psi) if psi > 0 else 0.0,
        "rate": rate,
        "iterations_to_tol": to_tol,
    }
