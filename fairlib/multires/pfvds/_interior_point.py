"""PF-VDS(α) by the primal-dual interior point
(:func:`fairlib.multires._engine.pfvds_interior.pfvds_interior_point`), polished by best-response
sweeps where its allocation is not yet an equilibrium, and its variational equilibrium under
per-user caps.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .._engine.options import MethodOptions
from .._engine.pfvds_interior import pfvds_interior_point
from ..cluster import Allocation, Cluster
from ._best_response import _sweeps, nash_residual

#: Problem 2 (time-shared servers) and per-user caps: both solved by this method
TIME_SHARED = True
CAPS = True


@dataclass(frozen=True)
class InteriorPointOptions(MethodOptions):
    """``pfvds(..., method="interior_point", options=...)``.

    Parameters
    ----------
    max_sweeps : int >= 1
        Best-response sweeps that may polish the interior point's allocation
        (``method="best_response"``'s sweeps, from it), when it stopped short or its Nash residual
        exceeds 1e-6.
    tol : float in [1e-15, 0.1]
        Those sweeps' stopping rule: the largest change of any x[n, i] relative to the largest
        total.
    """

    max_sweeps: int = 2000
    tol: float = 1e-10

    def __post_init__(self):
        self._count("max_sweeps")
        self._tolerance("tol")


OPTIONS = InteriorPointOptions


_POLISH_SWEEPS = (
    2  # best-response sweeps after a converged interior point: degenerate pairs settle in one
)
_POLISH_ABOVE = (
    1e-6  # Nash residual above which a converged interior point's allocation is polished
)


#: largest eq. (16) gap (relative) at which a capped interior point's allocation counts as the
#: equilibrium
CAPPED_GAP = 1e-7

#: largest shortfall from its cap (relative to the cap) of a user with room left on a server it may
#: use, at which a capped allocation counts as the equilibrium; an uncapped user with room left
#: falls infinitely short
CAPPED_SHORTFALL = 1e-6


def capped_shortfall(cluster: Cluster, tasks, time_shared: bool = False) -> float:
    """The largest relative shortfall from its cap of a user that some eligible server still has
    room for (none of the constraints it uses there saturated, within
    :data:`~.conditions.SATURATED`): 0 at a capped equilibrium, where a user below its cap finds
    every server it may use full. eq. (16)'s gap cannot see this once the marginals x^-α span more
    orders of magnitude than a double holds (α = 4 with shares from 1e-6 to 0.05: 1e19), since the
    small users' terms then carry the whole of Σ g x; this test reads no marginal, so no scale
    hides it.

    Parameters
    ----------
    cluster : Cluster
        The instance, with caps.
    tasks : (N, K) ndarray
        Tasks per (user, server).
    time_shared : bool
        Problem 2's constraints (one per server) instead of the resources.

    Returns
    -------
    float
        ``(cap - total) / cap`` of the worst such user (``inf`` for an uncapped one), 0 when there
        is none.
    """
    from .conditions import SATURATED

    d3, cap = cluster.server_constraints(time_shared)
    used = np.einsum("ni,nik->ik", tasks, d3)
    with np.errstate(divide="ignore", invalid="ignore"):
        full = (cap > 0) & (used >= (1 - SATURATED) * cap)
    # user n has room on server i when it may run there and no constraint it uses there is full
    room = cluster.eligible & ~((d3 > 0) & full[None, :, :]).any(axis=2)
    room &= (cluster.max_tasks > 0)[:, None]
    starved = room.any(axis=1)
    if not starved.any():
        return 0.0
    caps = cluster.max_tasks[starved]
    with np.errstate(divide="ignore", invalid="ignore"):
        short = np.where(
            np.isfinite(caps),
            (caps - tasks[starved].sum(axis=1)) / np.maximum(caps, 1e-300),
            np.inf,
        )
    return float(max(0.0, short.max()))


def _capped_equilibrium(cluster: Cluster, alphas, time_shared: bool, solve_uncapped):
    """PF-VDS with per-user caps: the variational equilibrium by the interior point (caps as rows
    priced alike on every server). Best-response sweeps do not polish it: a server's best response
    under a cap that the other servers' tasks also use would drift to another generalised
    equilibrium. Its certificate is Definition 6's variational inequality over the capped set (an
    LP, independent of the solver)."""
    from .conditions import variational_gap

    tried: list[tuple[float, int, Allocation]] = []
    # the default start, then capped users started within their caps, then finer continuation steps
    # (α > 1)
    for continuation, shrink in (
        ((2.0, 2.0), False),
        ((2.0, 2.0), True),
        ((1.0, 1.25), False),
        ((1.0, 1.25), True),
    ):
        if continuation[0] < 2.0 and alphas.max() <= 1.0:
            break
        res = pfvds_interior_point(
            cluster,
            alphas,
            time_shared=time_shared,
            continuation=continuation,
            shrink_to_caps=shrink,
            retries=0,
        )  # its own retries: these four tries
        tried.append(
            (variational_gap(cluster, res.tasks, alphas, time_shared=time_shared), len(tried), res)
        )
        if tried[-1][0] <= CAPPED_GAP:
            break
    gap, _, res = min(tried)
    diag = dict(
        res.diagnostics,
        method="interior_point",
        sweeps=0,
        variational_gap=gap,
        converged=bool(gap <= CAPPED_GAP),
        interior_point_converged=res.diagnostics["converged"],
    )
    x = res.tasks
    if not diag["converged"]:
        # where no cap binds, the capped equilibrium is the uncapped one (cap prices 0; its totals
        # are unique, Theorem 7), which best responses can finish: used when it keeps within every
        # cap
        uncapped = solve_uncapped(replace(cluster, max_tasks=None))
        if (uncapped.totals <= cluster.max_tasks).all():
            free_gap = variational_gap(cluster, uncapped.tasks, alphas, time_shared=time_shared)
            if free_gap < gap:
                x, gap = uncapped.tasks, free_gap
                diag.update(
                    uncapped.diagnostics,
                    variational_gap=gap,
                    converged=bool(gap <= CAPPED_GAP),
                    cap_prices=np.zeros(cluster.n_users),
                    no_cap_binds=True,
                )
    # eq. (16)'s gap is blind where the marginals span more than a double's range; a user short of
    # its cap with room left is a second, scale-free test of the same equilibrium (the allocation
    # itself is unchanged)
    short = capped_shortfall(cluster, x, time_shared)
    diag["capped_shortfall"] = short
    if diag["converged"] and short > CAPPED_SHORTFALL:
        diag["converged"] = False
        diag["message"] = (
            "the interior point stopped short of the capped equilibrium: eq. (16) gap "
            f"{gap:.2g}, but a user with room left on a server it may use is {short:.2g} of "
            "its cap short of it"
        )
    elif not diag["converged"]:
        diag["message"] = (
            f"the interior point stopped short of the capped equilibrium (eq. (16) gap {gap:.2g}); "
            "best responses cannot finish it under caps"
        )
    return x, diag


def run(cluster: Cluster, alphas, time_shared: bool, options: InteriorPointOptions, uncapped):
    """``method="interior_point"``: (tasks, diagnostics). With per-user caps, the variational
    equilibrium (:func:`_capped_equilibrium`; ``uncapped(cluster)`` is PF-VDS of the cluster without
    caps, by the front door); without, the interior point's allocation, polished by best-response
    sweeps where it is not yet an equilibrium.

    Parameters
    ----------
    cluster : Cluster
        The instance.
    alphas : (K,) ndarray
        α per server.
    time_shared : bool
        Problem 2: each server's one constraint Σ_n x[n, i]/γ[n, i] <= 1.
    options : InteriorPointOptions
        The method's options.
    uncapped : callable
        ``uncapped(cluster)``: PF-VDS of a cluster without caps, by the front door.

    Returns
    -------
    tasks : (N, K) ndarray
        The allocation.
    diagnostics : dict
        The method's diagnostics (see :func:`fairlib.multires.pfvds`).
    """
    max_sweeps, tol = options.max_sweeps, options.tol
    if cluster.capped:
        return _capped_equilibrium(cluster, alphas, time_shared, uncapped)
    res = pfvds_interior_point(cluster, alphas, time_shared=time_shared)
    x, diag = res.tasks, dict(res.diagnostics, method="interior_point", sweeps=0)
    residual = nash_residual(cluster, x, alphas, time_shared=time_shared)
    # Best-response sweeps from the interior point's allocation when it stopped short (very large
    # α), or when its Nash residual is large: an interior method leaves a pair whose user is
    # exactly indifferent at O(sqrt(tol)) instead of 0 (degenerate equilibria), which one exact best
    # response settles. The polished allocation is kept only if it is closer to an equilibrium.
    if not res.diagnostics["converged"] or residual > _POLISH_ABOVE:
        polished, sweeps_diag = _sweeps(
            cluster,
            alphas,
            x,
            time_shared,
            max_sweeps
            if not res.diagnostics["converged"]
            else min(int(max_sweeps), _POLISH_SWEEPS),
            tol,
        )
        after = nash_residual(cluster, polished, alphas, time_shared=time_shared)
        if res.diagnostics["converged"] and after > _POLISH_ABOVE and max_sweeps > _POLISH_SWEEPS:
            # a few sweeps were not enough (a slowly settling pair): go on until the sweeps' own
            # rule stops them
            more, more_diag = _sweeps(
                cluster, alphas, polished, time_shared, max_sweeps - _POLISH_SWEEPS, tol
            )
            more_after = nash_residual(cluster, more, alphas, time_shared=time_shared)
            if more_after < after:
                polished, after = more, more_after
                sweeps_diag = dict(more_diag, sweeps=more_diag["sweeps"] + _POLISH_SWEEPS)
        if not res.diagnostics["converged"] or after < residual:
            x, residual = polished, after
            diag.update(
                method="interior_point+best_response",
                sweeps=sweeps_diag["sweeps"],
                jumps=sweeps_diag["jumps"],
                last_change=sweeps_diag["last_change"],
                converged=sweeps_diag["converged"] or after <= _POLISH_ABOVE,
            )
    diag["nash_residual"] = residual
    return x, diag
