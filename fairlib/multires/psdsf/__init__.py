"""PS-DSF: per-server weighted max-min on virtual dominant shares (Khamse-Ashari et al., Def. 4).

Definition 4 is in §2.3 of the TPDS paper.

An allocation is PS-DSF when it is feasible and no x[n, i] can be increased without decreasing some
x[m, i] on the same server with ŝ[m, i] <= ŝ[n, i] (ŝ = weighted VDS,
:mod:`fairlib.multires.cluster`).

The ICC'17 algorithm that computes it was not recovered (reconstructions §5.7, [NR]). Two
constructions of ours ([DRV]), the methods of :func:`psdsf`:

- ``"market"`` (default): the limit of a smoothed market on per-server prices, solved by Newton's
  method (:mod:`fairlib.multires._engine.psdsf_market`; ~20 Newton steps, Definition 4 to ~1e-9). It
  describes servers with one VDS level (every usable user loads the constraint that fills the
  server: always so when all users of a server load the same constraints).
- ``"fixed_point"``, where the market fails and as the cross-check: per-server progressive filling
  on the weighted VDS, iterated over servers to a fixed point (Gauss-Seidel). For server i, with the
  other servers' totals x_{n,-i} fixed, raise a level L; usable user n gets x[n, i](L) = max(0, φ_n
  γ[n, i] L - x_{n,-i}), so its weighted VDS is max(L, x_{n,-i}/(φ_n γ[n, i])). At the first L where
  a resource saturates, every still-active user demanding it is frozen; the rest continue. A fixed
  point satisfies Definition 4 at every server (checked by :func:`psdsf_violation`). Convergence of
  the outer loop is not proven: it is capped and the residual reported (it cycles on ~1% of small
  random instances).

Definition 4 does not determine the allocation uniquely: on random clusters the two constructions
return different Definition 4 allocations on ~10-15% of instances (totals up to a few percent apart,
neither always dominating). The market's is one principled selection (the limit of a unique smoothed
equilibrium); which one PF-VDS(α) tends to as α → ∞ is not established.

Time-shared (non-divisible) servers, Problem 2 / Theorem 5: each server's only constraint is
Σ_n x[n, i] / γ[n, i] <= 1; :func:`psdsf` with ``time_shared=True`` fills that constraint instead.

Each method is a private module of this package (``_market``, ``_fixed_point``; :data:`METHODS`)
that declares its options (``OPTIONS``, a frozen dataclass with the defaults, built from
``psdsf(..., options={...})``) and runs them (``run``). The condition an allocation meets is
measured in :mod:`.conditions` (:func:`psdsf_violation`).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..._jit import interpreted_when_small
from ..._validate import as_flag, as_instance, check_choice
from ..cluster import Allocation, Cluster
from . import _fixed_point, _market
from ._fixed_point import FixedPointOptions as FixedPointOptions
from ._market import MarketOptions as MarketOptions
from .conditions import psdsf_violation

__all__ = ["psdsf", "psdsf_violation"]

#: each method's module (its ``OPTIONS`` and ``run``)
METHODS = {"market": _market, "fixed_point": _fixed_point}
#: each method's option type
METHOD_OPTIONS = {name: module.OPTIONS for name, module in METHODS.items()}


@interpreted_when_small(bounded=lambda *args, method="market", **_: method == "market")
def psdsf(
    cluster: Cluster,
    *,
    time_shared: bool = False,
    method: str = "market",
    options: Mapping | None = None,
) -> Allocation:
    """PS-DSF allocation (Definition 4).

    Parameters
    ----------
    cluster : Cluster
        The instance (weights, placement constraints and per-user caps honoured).
    time_shared : bool
        Problem 2 (non-divisible servers, Theorem 5): server i's only constraint is Σ_n x[n, i] /
        γ[n, i] <= 1 instead of its per-resource capacities.
    method : {"market", "fixed_point"}
        ``"market"`` (default): Newton on the smoothed per-server price equations
        (:mod:`fairlib.multires._engine.psdsf_market`); where its allocation leaves a usable user
        without a full constraint on some server (several VDS levels there, possible only when users
        of a server load different constraints) or it did not converge, or the cluster has per-user
        caps (``max_tasks``), the fixed point computes the allocation instead and
        ``diagnostics["handover"]`` says why. ``"fixed_point"``: per-server progressive filling
        iterated to a fixed point (Gauss-Seidel).
    options : mapping, optional
        The method's own options, checked against ``METHOD_OPTIONS[method]`` (an option the method
        does not take is refused); for both methods those of the fixed point (the market hands over
        to it): ``max_sweeps`` (default 50,000) and ``tol`` (default 1e-12). The Gauss-Seidel loop
        stops when no x[n, i] moved by more than ``tol`` times the largest total in a sweep, or
        after ``max_sweeps`` sweeps. The iteration does not cycle on the instances we have seen, but
        it can drift for a long time before it settles (up to ~9,000 sweeps over 3,000 random 5-user
        clusters, divisible and time-shared), hence the large default; a sweep on a small cluster
        costs microseconds.

    Returns
    -------
    Allocation
        Tasks per (user, server), with diagnostics ``method``, ``converged``, and
        ``sweeps``/``last_change`` (fixed point) or ``newton_iterations``, ``evaluations``,
        ``stages``, ``retries``, ``mu``, ``residual`` (market).

    References
    ----------
    Khamse-Ashari, Lambadaris, Kesidis, Urgaonkar, Zhao, "An Efficient and Fair Multi-Resource
    Allocation Mechanism for Heterogeneous Servers", IEEE TPDS 2018, §2.3, Definition 4.

    Examples
    --------
    One server reduces to DRF: demands (1, 4) and (3, 1) on (9, 18) give 3 and 2 tasks.

    >>> psdsf(Cluster([[9, 18]], [[1, 4], [3, 1]])).tasks.round(9).ravel().tolist()
    [3.0, 2.0]
    """
    time_shared = as_flag(time_shared, "time_shared")
    as_instance(cluster, Cluster, "cluster")
    check_choice(method, tuple(METHODS), "method")
    return METHODS[method].run(cluster, time_shared, METHOD_OPTIONS[method].of(options, method))
