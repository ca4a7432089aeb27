"""PF-VDS(α): the Nash equilibrium of the per-server α-fair game (Khamse-Ashari et al. §3–5,
Problem 1).

Each server i is a player maximising U_i = Σ_{n usable on i} φ_n f(ŝ[n, i]) over its own column
x[:, i] subject to its capacities, where ŝ[n, i] = x_n / (φ_n γ[n, i]) is the weighted VDS of n's
*total* tasks and f is α-fair: f(s) = s^(1-α)/(1-α), log s for α = 1 (eq. 12; the form is a
reconstruction, reconstructions §5.3 [INF]). ∂U_i/∂x[n, i] = ŝ^-α / γ[n, i].

- α = 1: the equilibrium is the weighted proportional-fair optimum max Σ_n φ_n log x_n (Theorem
  2); the game is then a potential game and best responses are block coordinate ascent on a convex
  program.
- α → ∞: PS-DSF (Theorem 2); :func:`pfvds` with ``alpha=np.inf`` returns
  :func:`fairlib.multires.psdsf`.
- α may differ per server (heterogeneous objectives): pass an array of length n_servers.

Solvers (``method``):

- ``"interior_point"`` (default; ours): a primal-dual interior-point method on all servers' KKT
  conditions at once (:func:`fairlib.multires._engine.pfvds_interior.pfvds_interior_point`); for α
  = 1 it solves the convex program. Best-response sweeps (below) polish its allocation when its Nash
  residual exceeds 1e-6 (an interior method leaves the pairs of exactly indifferent users at
  O(√tol) instead of 0) and finish the job should it stop short of its tolerance (very large α);
  ``diagnostics["method"]`` says whether they ran.
- ``"best_response"``: Gauss-Seidel over servers, each server's exact best response
  given the others' totals. A best response solves an R-dimensional dual: with prices λ >= 0,
  x[n, i](λ) = max(0, φ_n γ[n, i] (γ[n, i] λ·d_n)^(-1/α) - x_{n,-i}), and λ minimises the
  (smooth, convex) dual by projected Newton steps with backtracking. Sweeps that creep along one
  direction for long are extrapolated along it (:func:`._best_response._gauss_seidel`).
- ``"distributed"``: the paper's distributed heuristic (eqs. 55–57, [INF]) — every server moves
  its users along -F[n, i] = ŝ^-α/γ - λ·d_n with penalty prices λ = κ [used - c]^+.
- ``"psmfa"``: projected descent on the Fischer–Burmeister merit Ψ (eqs. 44–54, [INF]) — see
  :func:`psmfa`.

Each method is a private module of this package (``_interior_point``, ``_best_response``,
``_distributed``, ``_psmfa``; :data:`METHODS`) that declares its options (``OPTIONS``, a frozen
dataclass with the defaults, built from ``pfvds(..., options={...})``), whether it solves Problem 2
(``TIME_SHARED``) and whether it honours per-user caps (``CAPS``). The conditions an equilibrium
meets are in :mod:`.conditions`; why the two heuristics stall is measured in :mod:`.stalls`.

Every result carries the Nash-equilibrium residual :func:`nash_residual` (each server's column
against its exact best response to the others).

Per-user caps (``Cluster.max_tasks``, x_n <= cap_n) are outside the paper: a cap binds every
server's player at once, which makes Problem 1 a generalised game with many equilibria (which
servers serve a capped user is then open). Our modelling choice is its *variational* equilibrium —
Definition 6's variational inequality (eq. 16) taken over the capped feasible set, where every
server charges a capped user the same price per task (in the paper's utility units) — computed by
the interior point and certified by :func:`.conditions.variational_gap`
(``diagnostics["variational_gap"]`` instead of ``nash_residual``). For α = 1 it is max Σ_n φ_n
log x_n with the caps as constraints; α = ∞ is PS-DSF's capped fixed point. The other methods
refuse caps.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..._jit import interpreted_when_small
from ..._validate import MAX_ITERATIONS, InvalidInputError, as_count, check_choice
from .._engine.pfvds_interior import shared_stages
from ..cluster import Allocation, Cluster, per_server_alpha
from ..psdsf import psdsf
from . import _best_response, _distributed, _interior_point, _psmfa
from ._best_response import (
    best_response_column,
    nash_residual,
    proportional_fair_objective,
)
from ._distributed import penalty_prices
from ._interior_point import _POLISH_ABOVE, CAPPED_GAP, CAPPED_SHORTFALL, capped_shortfall
from ._psmfa import merit, psmfa

__all__ = [
    "pfvds",
    "best_response_column",
    "nash_residual",
    "merit",
    "proportional_fair_objective",
    "shared_stages",
    "penalty_prices",
    "psmfa",
    "CAPPED_GAP",
    "CAPPED_SHORTFALL",
    "capped_shortfall",
]


#: the methods, each in its module: ``OPTIONS`` (its option type), ``run``, and whether it solves
#: Problem 2 (``TIME_SHARED``) and honours per-user caps (``CAPS``)
METHODS = {
    "interior_point": _interior_point,
    "best_response": _best_response,
    "distributed": _distributed,
    "psmfa": _psmfa,
}


#: the methods that stop on the merit Ψ < tol (PS-MFA and the distributed heuristic)
_MERIT_METHODS = ("psmfa", "distributed")


@interpreted_when_small(
    bounded=lambda *args, method="interior_point", **_: method == "interior_point"
)
def pfvds(
    cluster: Cluster,
    alpha,
    *,
    method: str = "interior_point",
    options: Mapping | None = None,
    time_shared: bool = False,
    iterations: int | None = None,
) -> Allocation:
    """PF-VDS(α) allocation: a Nash equilibrium of Problem 1 (α-fair utilities of the weighted
    VDS).

    Parameters
    ----------
    cluster : Cluster
        The instance.
    alpha : float or (K,) array_like
        α > 0, ``np.inf`` (PS-DSF), or one value per server.
    method : {"interior_point", "best_response", "distributed", "psmfa"}
        The algorithm (module docstring): the interior point (default), best-response sweeps, the
        distributed heuristic (eqs. 55–57) or PS-MFA.
    options : mapping, optional
        The chosen method's own options, checked against ``METHODS[method].OPTIONS`` (an option the
        method does not take is refused, naming the method and the options it takes):
        ``"interior_point"``: ``max_sweeps``, ``tol`` (the best-response sweeps that polish its
        allocation); ``"best_response"``: ``max_sweeps``, ``tol``, ``start``; ``"distributed"``:
        ``kappa``, ``step``, ``iterations``, ``tol``; ``"psmfa"``: ``iterations``, ``tol``.
    time_shared : bool
        Problem 2 (non-divisible servers): each server's constraint is Σ_n x[n, i]/γ[n, i] <= 1
        (interior_point and best_response). Theorem 5: the solution is PS-DSF for every α.
    iterations : int, optional
        ``options["iterations"]`` (the iterative methods' cap), as a keyword.

    Returns
    -------
    Allocation
        Tasks per (user, server); diagnostics ``sweeps``/``iterations``, ``nash_residual``
        (``variational_gap`` and ``cap_prices`` with caps) and, for the iterative methods, the merit
        trajectory ``psi``.

    Notes
    -----
    A cluster with per-user caps takes ``method="interior_point"`` (module doc): no best-response
    polish, its equilibrium certified by eq. (16)'s gap over the capped set (``converged`` when it
    is <= :data:`CAPPED_GAP`) and by no user falling short of its cap while a server it may use has
    room left (:func:`capped_shortfall` <= :data:`CAPPED_SHORTFALL`,
    ``diagnostics["capped_shortfall"]``: the gap cannot see this once the marginals x^-α span more
    orders of magnitude than a double holds); the interior point's continuation can stop short at
    large α (α >= 8 on some random instances; the analytical notebook's check
    ``pfvds_capped_equilibrium_every_alpha`` gives the rates, by the gap), and is then not
    ``converged``.

    Nothing holds the distributed heuristic's step (:mod:`fairlib.multires.pfvds.stalls`): on some
    clusters its update overflows within a few iterations. It then returns its last finite iterate,
    not ``converged``, with a ``message`` naming the iteration at which it diverged. PS-MFA and the
    distributed heuristic are ``converged`` only when their merit Ψ fell below their ``tol`` (Ψ
    does not depend on the units of the resources or the tasks); a run that stops or stalls above
    it is not, and its ``message`` gives the last Ψ.

    References
    ----------
    Khamse-Ashari, Lambadaris, Kesidis, Urgaonkar, Zhao, "An Efficient and Fair Multi-Resource
    Allocation Mechanism for Heterogeneous Servers", IEEE TPDS 2018, §3–5, Problem 1.

    Examples
    --------
    One server, α = 1: max log x_0 + log x_1 subject to x_0 + 3 x_1 <= 9 and 4 x_0 + x_1 <= 18
    (both bind), unlike DRF's (3, 2):

    >>> pfvds(Cluster([[9, 18]], [[1, 4], [3, 1]]), 1.0).tasks.round(6).ravel().tolist()
    [4.090909, 1.636364]
    """
    alphas = per_server_alpha(cluster, alpha)  # refuses a cluster that is not a Cluster, by name
    check_choice(method, tuple(METHODS), "method")
    if iterations is not None:
        iterations = as_count(iterations, "iterations", maximum=MAX_ITERATIONS)
    if iterations is not None and (options is None or isinstance(options, Mapping)):
        if options is not None and "iterations" in options:
            raise InvalidInputError(
                "iterations: given twice, as a keyword and as options['iterations']; give one"
            )
        options = {**(options or {}), "iterations": iterations}
    solver = METHODS[method]
    opts = solver.OPTIONS.of(options, method)
    if time_shared and not solver.TIME_SHARED:
        raise InvalidInputError(
            f"time_shared=True needs method='interior_point' or 'best_response', got {method!r}"
        )
    if cluster.capped and not solver.CAPS and not np.isinf(alphas).all():
        n = int(np.argmax(np.isfinite(cluster.max_tasks)))
        raise InvalidInputError(
            f"max_tasks[{n}] = {cluster.max_tasks[n]}: method={method!r} does not honour per-user "
            "caps; method='interior_point' does (the variational equilibrium, see pfvds)"
        )
    if np.isinf(alphas).all():
        res = psdsf(cluster, time_shared=time_shared)
        return Allocation.from_diagnostics(
            cluster, res.tasks, "pfvds_inf", {**res.diagnostics, "alpha": alphas}
        )
    if np.isinf(alphas).any():
        raise InvalidInputError(
            "alpha: mixing np.inf (PS-DSF) with finite values per server is not supported; "
            "use a large finite α on those servers"
        )
    # the solvers multiply demands together: a resource counted in units of 1e280 would overflow,
    # so they run in units a power of two apart (the same tasks) and the prices are converted back
    work, factor = cluster.unit_scaled()
    if method == "interior_point":
        x, diag = solver.run(
            work,
            alphas,
            time_shared,
            opts,
            lambda uncapped: pfvds(uncapped, alphas, time_shared=time_shared),
        )
    else:
        x, diag = solver.run(work, alphas, time_shared, opts)
    if "prices" in diag:
        diag["prices"] = diag["prices"] * factor
    if "nash_residual" not in diag and not cluster.capped:
        diag["nash_residual"] = nash_residual(work, x, alphas, time_shared=time_shared)
    if not np.isfinite(x).all():
        raise RuntimeError(
            f"pfvds(alpha={alpha!r}, method={method!r}): the solver produced non-finite tasks; "
            "please report this instance"
        )
    if method in _MERIT_METHODS and diag.get("converged", True):
        # "converged" says the documented test Ψ < tol held, not that the loop stopped (they
        # stall short of it: fairlib.multires.pfvds.stalls); Ψ is scale-free (each pair measured
        # as a fraction of the server and a marginal per server's worth of tasks)
        psi = diag["psi"]
        if not (len(psi) and psi[-1] < opts.tol):
            diag["converged"] = False
            diag["message"] = (
                f"{method} stopped after {len(psi)} iterations with merit Ψ = "
                f"{psi[-1] if len(psi) else float('nan'):.3g}, not below tol = {opts.tol:g} "
                "(the heuristic stalls short of the equilibrium: fairlib.multires.pfvds.stalls)"
            )
    if (
        "converged" in diag
        and diag.get("nash_residual", 0.0) > _POLISH_ABOVE * 100
        and method in ("interior_point", "best_response")
    ):
        diag["converged"] = (
            False  # "converged" says the allocation is an equilibrium, not that a loop stopped
        )
    diag["alpha"] = alphas
    return Allocation.from_diagnostics(cluster, x, f"pfvds_{method}", diag)
