"""Equilibrium condition (1) of the bidding game and the analytical worst cases (EC'05 §3)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike

from .._validate import (
    InvalidInputError,
    as_amount,
    as_count,
    as_number,
    as_values,
    check_choice,
    as_tolerance,
    check_drawn,
)
from ..metrics import efficiency, envy_freeness, utilities, utility_uniformity
from .game import allocation

__all__ = [
    "marginal_utilities",
    "equilibrium_violation",
    "two_player_equilibria",
    "two_player_equilibria_numeric",
    "sqrt_m_construction",
    "proportional_guarantee_bids",
]


def marginal_utilities(
    weights: ArrayLike, bids: ArrayLike, reserve: float = 0.0
) -> npt.NDArray[np.float64]:
    """Marginal utilities ∂U_i/∂x_ij = w_ij (Y_j - x_ij) / Y_j^2, with the reserve counted in
    Y_j.

    Parameters
    ----------
    weights : array_like
        Shape (n_users, n_machines): finite, >= 0, every user valuing some machine.
    bids : array_like
        Shape (n_users, n_machines): x[i, j], finite and >= 0.
    reserve : float, default 0.0
        The reserve bid ε counted in every machine's price Y_j: 0 (none), or within a factor
        :data:`~fairlib._validate.MONEY_RATIO` (1e12) of the largest user's total bid (its budget)
        either way; any ε >= 0 when nobody bids.

    Returns
    -------
    numpy.ndarray
        Float64, shape (n_users, n_machines): 0 where w_ij = 0, inf on a valued machine with price
        0.

    Raises
    ------
    InvalidInputError
        On invalid weights, bids of another shape, negative or non-finite bids, or an invalid
        reserve.

    References
    ----------
    .. [1] M. Feldman, K. Lai, L. Zhang, "A Price-Anticipating Resource Allocation Mechanism for
       Distributed Shared Clusters", EC '05, 2005, §3, condition (1).
    """
    from .game import as_reserve_of_bids, as_weight_matrix

    w = as_weight_matrix(weights)
    x = as_values(
        bids, "bids", ndim=2, shape=w.shape
    )  # users x machines, like weights; finite and >= 0
    reserve = as_reserve_of_bids(reserve, x)
    Y = x.sum(axis=0) + reserve
    with np.errstate(divide="ignore", invalid="ignore"):
        mu = np.where(Y > 0, w * (Y - x) / np.where(Y > 0, Y, 1.0) ** 2, np.inf)
    return np.where(w > 0, mu, 0.0)


def equilibrium_violation(
    weights: ArrayLike, bids: ArrayLike, reserve: float = 0.0, *, tol: float = 1e-12
) -> float:
    """Largest relative violation of condition (1); 0 at a Nash equilibrium.

    Condition (1): equal marginal value λ_i on the machines a user bids on, no larger marginal
    value elsewhere. Per user: (max_j MU_ij - min_{j: x_ij > tol·X_i} MU_ij) / max_j MU_ij, X_i the
    user's total bid; the largest over users. Every term is relative, so the violation does not
    depend on the scale of the weights or of the bids.

    Parameters
    ----------
    weights : array_like
        Shape (n_users, n_machines): finite, >= 0, every user valuing some machine.
    bids : array_like
        Shape (n_users, n_machines): x[i, j], finite and >= 0.
    reserve : float, default 0.0
        The reserve bid ε counted in every machine's price Y_j: 0 (none), or within a factor
        :data:`~fairlib._validate.MONEY_RATIO` (1e12) of the largest user's total bid (its budget)
        either way.
    tol : float, default 1e-12
        Bids at or below ``tol`` times the user's total bid count as no bid (relative, so the
        currency's scale does not matter): 0 (exact) or from 1e-15 to 0.1.

    Returns
    -------
    float
        The violation, >= 0; inf when a user values a machine whose price is 0.

    Raises
    ------
    InvalidInputError
        On invalid input (as :func:`marginal_utilities`), or a user who bids nothing.

    References
    ----------
    .. [1] M. Feldman, K. Lai, L. Zhang, "A Price-Anticipating Resource Allocation Mechanism for
       Distributed Shared Clusters", EC '05, 2005, §3, condition (1).
    """
    tol = as_tolerance(tol, "tol", zero=True)
    mu = marginal_utilities(weights, bids, reserve)
    x = np.asarray(bids, dtype=np.float64)
    worst = 0.0
    for i in range(x.shape[0]):
        bid = x[i] > tol * x[i].sum()
        if not bid.any():
            raise InvalidInputError(f"bids[{i}]: user {i} bids nothing (budgets must be spent)")
        top = mu[i].max()
        if not np.isfinite(top):
            return float("inf")
        worst = max(worst, (top - mu[i, bid].min()) / top)
    return float(worst)


#: the two-player games need 1 - alpha >= this (c = 1/(2 alpha (1 - alpha)) - 1 stays below about
#: 5e8)
ALPHA_MARGIN = 1e-9


def _game_alpha(alpha, kind: str) -> float:
    low = 0.5 if kind == "opposite" else ALPHA_MARGIN
    alpha = as_number(alpha, "alpha", minimum=low, inclusive=True, maximum=1 - ALPHA_MARGIN)
    return alpha


def two_player_equilibria(alpha: float, kind: str = "opposite") -> list[dict[str, object]]:
    """All equilibria of the two-user, two-machine games with budgets 1 (the games of [1]_, Fig. 1).

    ``kind="equal"``: both users have weights (α, 1-α): unique equilibrium x = y = α.
    ``kind="opposite"``: user 1 (α, 1-α), user 2 (1-α, α), α >= 1/2: equilibria are the
    non-negative roots of f(δ) = δ³ - cδ² + cδ - 1, c = 1/(2α(1-α)) - 1, with δ = (2 -
    s)/s, s = x + y (reconstructions §4.3).

    Parameters
    ----------
    alpha : float
        α: in [1/2, 1 - 1e-9] for ``"opposite"``, in [1e-9, 1 - 1e-9] for ``"equal"``.
    kind : {"opposite", "equal"}, default "opposite"
        Which of the two games.

    Returns
    -------
    list of dict
        One dict per equilibrium: ``alpha``, ``kind``, ``delta``, the bids on machine 1 ``x`` and
        ``y``, ``efficiency``, ``uniformity``, ``envy_freeness``, and ``residual``, the
        condition-(1) residual of the bids (a numerical cross-check).

    Raises
    ------
    InvalidInputError
        On an unknown ``kind`` or ``alpha`` out of range.

    References
    ----------
    .. [1] M. Feldman, K. Lai, L. Zhang, "A Price-Anticipating Resource Allocation Mechanism for
       Distributed Shared Clusters", EC '05, 2005, §3.3, Fig. 1.
    """
    check_choice(kind, ("equal", "opposite"), "kind")
    alpha = _game_alpha(alpha, kind)
    if kind == "equal":
        w = np.array([[alpha, 1 - alpha], [alpha, 1 - alpha]])
        sols = [(alpha, alpha, 1.0)]
    else:
        w = np.array([[alpha, 1 - alpha], [1 - alpha, alpha]])
        c = 1.0 / (2 * alpha * (1 - alpha)) - 1.0
        roots = np.roots([1.0, -c, c, -1.0])
        deltas = sorted(
            {round(float(r.real), 12) for r in roots if abs(r.imag) < 1e-9 and r.real > 0}
        )
        sols = []
        for d in deltas:
            a = alpha / ((1 - alpha) * d * d)
            b = (1 - alpha) / (alpha * d * d)
            sols.append((a / (1 + a), b / (1 + b), d))
    out = []
    for x, y, d in sols:
        bids = np.array([[x, 1 - x], [y, 1 - y]])
        r = allocation(bids)
        u = utilities(w, r)
        out.append(
            {
                "alpha": alpha,
                "kind": kind,
                "delta": d,
                "x": x,
                "y": y,
                "efficiency": efficiency(u.sum(), w.max(axis=0).sum()),
                "uniformity": utility_uniformity(u),
                "envy_freeness": envy_freeness(w, r),
                "residual": equilibrium_violation(w, bids),
            }
        )
    return out


def two_player_equilibria_numeric(
    alpha: float, kind: str = "opposite", grid: int = 25
) -> npt.NDArray[np.float64]:
    """Equilibria of the two-player games found by solving condition (1) numerically (cross-check).

    Solves, for interior bids (x, y) on machine 1, the two first-order conditions
    w_11 y / s^2 = w_12 (1 - y) / (2 - s)^2 and w_21 x / s^2 = w_22 (1 - x) / (2 - s)^2 (s = x + y)
    with ``scipy.optimize.fsolve`` from a grid of starting points, and returns the distinct
    solutions.

    Parameters
    ----------
    alpha : float
        α, in the ranges of :func:`two_player_equilibria`.
    kind : {"opposite", "equal"}, default "opposite"
        Which of the two games.
    grid : int, default 25
        Starting points per axis (grid x grid in (0, 1)^2), >= 2.

    Returns
    -------
    numpy.ndarray
        Float64, shape (n_solutions, 2): rows (x, y), sorted by x.

    Raises
    ------
    InvalidInputError
        On an unknown ``kind``, ``alpha`` out of range, or ``grid`` below 2.
    """
    from scipy.optimize import fsolve

    check_choice(kind, ("equal", "opposite"), "kind")
    alpha = _game_alpha(alpha, kind)
    grid = as_count(grid, "grid", minimum=2)
    if kind == "equal":
        w = np.array([[alpha, 1 - alpha], [alpha, 1 - alpha]])
    else:  # "opposite"
        w = np.array([[alpha, 1 - alpha], [1 - alpha, alpha]])

    def foc(v):
        x, y = v
        s = x + y
        return [
            w[0, 0] * y / s**2 - w[0, 1] * (1 - y) / (2 - s) ** 2,
            w[1, 0] * x / s**2 - w[1, 1] * (1 - x) / (2 - s) ** 2,
        ]

    found: list[npt.NDArray[np.float64]] = []
    for x0 in np.linspace(0.02, 0.98, grid):
        for y0 in np.linspace(0.02, 0.98, grid):
            sol, info, ier, _ = fsolve(foc, [x0, y0], full_output=True, xtol=1e-13)
            if ier == 1 and 0 < sol[0] < 1 and 0 < sol[1] < 1 and np.abs(foc(sol)).max() < 1e-10:
                if not any(np.abs(sol - f).max() < 1e-7 for f in found):
                    found.append(sol)
    return np.array(sorted(found, key=lambda v: v[0])).reshape(-1, 2)


class GameInstance(NamedTuple):
    """Users' weights (preferences) and their bids, ``[user, machine]``.

    Parameters
    ----------
    weights : numpy.ndarray
        Float64, shape (n_users, n_machines).
    bids : numpy.ndarray
        Float64, shape (n_users, n_machines).
    """

    weights: np.ndarray
    bids: np.ndarray


def sqrt_m_construction(n: int) -> GameInstance:
    """The construction with efficiency O(1/√m): m = n² + n users on n machines.

    n² users value every machine 1/n and spread their budget evenly; n users each value one
    distinct machine (weight 1) and bid everything there. It is an equilibrium with welfare 2n/(n+1)
    < 2 while U* = n, so π = O(1/√m).

    Parameters
    ----------
    n : int
        Number of machines, >= 1.

    Returns
    -------
    GameInstance
        ``(weights, bids)``, each of shape (n² + n, n).

    Raises
    ------
    InvalidInputError
        When ``n`` is not an integer >= 1, or the arrays would hold more than
        :data:`~fairlib._validate.MAX_DRAWN` (10**8) numbers each.

    References
    ----------
    .. [1] M. Feldman, K. Lai, L. Zhang, "A Price-Anticipating Resource Allocation Mechanism for
       Distributed Shared Clusters", EC '05, 2005, §3.2.
    """
    n = as_count(n, "n")
    check_drawn(("(n^2 + n)", n * n + n), ("n", n))
    spread_w = np.full((n * n, n), 1.0 / n)
    spec_w = np.eye(n)
    return GameInstance(
        np.vstack([spread_w, spec_w]), np.vstack([np.full((n * n, n), 1.0 / n), np.eye(n)])
    )


def proportional_guarantee_bids(
    others_bids: ArrayLike, budget: float = 1.0
) -> npt.NDArray[np.float64]:
    """Bids x_j = X S_j / sum_k S_k, in proportion to the others' totals S.

    They guarantee r_j = X/(X + sum S) on every machine: 1/m of everything with unit budgets.

    Parameters
    ----------
    others_bids : array_like
        Shape (n_machines,): S_j, the other users' bids summed per machine, finite, >= 0, with a
        positive sum.
    budget : float, default 1.0
        The user's budget X > 0, within a factor :data:`~fairlib._validate.MONEY_RATIO` (1e12) of
        the others' total bid sum S either way.

    Returns
    -------
    numpy.ndarray
        Float64 bids, shape (n_machines,), summing to ``budget``.

    Raises
    ------
    InvalidInputError
        On an empty, negative, non-finite or all-zero ``others_bids``, or a budget <= 0.

    References
    ----------
    .. [1] M. Feldman, K. Lai, L. Zhang, "A Price-Anticipating Resource Allocation Mechanism for
       Distributed Shared Clusters", EC '05, 2005, §3.2.
    """
    S = as_values(others_bids, "others_bids", ndim=1)
    if S.size == 0 or not S.sum() > 0:
        raise InvalidInputError(
            f"others_bids: expected a non-empty vector of finite bids >= 0 with a positive sum, "
            f"got {S.tolist() if S.size <= 8 else S.shape}"
        )
    budget = as_amount(budget, "budget", scale=float(S.sum()), of="the others' total bid")
    return budget * S / S.sum()
