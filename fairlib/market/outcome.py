"""The contract of games and market mechanisms: ``game_mechanism(game, **options) -> GameOutcome``.

A game-type mechanism takes a :class:`~fairlib.market.Game` (users' weights ``w[user, machine]``,
budgets, optional finite parallelism, the reserve bid) and returns the bids it settles on,
``bids[user, machine]``, each user's summing to its budget. :class:`GameOutcome` derives everything
else from the bids and the game, so every mechanism reports them the same way: the shares r_ij =
x_ij / (Y_j + ε), the prices Y_j + ε, each user's utility, and the certificate :func:`nash_gap`
— how far the bids are from a Nash equilibrium, computed from the bids alone, whatever the
mechanism believes about its own convergence (Feldman, Lai, Zhang, EC'05 §2–4).

The registry of game mechanisms (:mod:`fairlib.games`) sits above this package; nothing here imports
it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np
from numpy.typing import ArrayLike

from .._jit import interpreted_when_small
from .._validate import InvalidInputError, _check_aligned, as_instance, as_values, result_type
from ..metrics import utilities as _utilities
from .best_response import best_response_finite, finite_utility
from .equilibrium import equilibrium_violation
from .game import Game, allocation

__all__ = ["GameOutcome", "nash_gap"]

#: a user's bids must sum to its budget to this relative precision (the dynamics' rescaling leaves
#: ~1e-15)
BUDGET_RTOL = 1e-9


def _game_bids(game, bids) -> tuple[Game, np.ndarray]:
    """(game, bids) checked against each other: a :class:`Game`; bids finite, >= 0, one row per user
    and one column per machine, each row summing to the user's budget, on at most ``parallelism[i]``
    machines."""
    game = as_instance(game, Game, "game")
    for axis in (0, 1):  # users and machines, as the game's weights label them
        _check_aligned(bids, "bids", axis, ("game.weights", game.labels, axis))
    x = as_values(bids, "bids", ndim=2, shape=game.weights.shape)
    spent = x.sum(axis=1)
    off = ~np.isclose(spent, game.budgets, rtol=BUDGET_RTOL, atol=0.0)
    if off.any():
        i = int(np.argmax(off))
        raise InvalidInputError(
            f"bids[{i}] sums to {float(spent[i])!r}: user {i} must bid its whole budget "
            f"{float(game.budgets[i])!r}"
        )
    if game.parallelism is not None:
        used = (x > 0).sum(axis=1)
        over = used > game.parallelism
        if over.any():
            i = int(np.argmax(over))
            raise InvalidInputError(
                f"bids[{i}]: user {i} bids on {int(used[i])} machines, more than its "
                f"parallelism {int(game.parallelism[i])}"
            )
    return game, x


@interpreted_when_small
def nash_gap(game: Game, bids: ArrayLike) -> float:
    """The relative Nash residual of ``bids`` in ``game``: 0 at a Nash equilibrium, larger the
    further from one.

    With infinite parallelism it is condition (1) of EC'05 §3
    (:func:`~fairlib.market.equilibrium_violation`): per user, the gap between its largest marginal
    utility and the smallest one on the machines it bids on, relative to the largest. With finite
    parallelism it is the largest relative utility gain any user gets by replacing its bids with the
    local-search best response (EC'05 §4.2, :func:`~fairlib.market.best_response_finite`; a
    heuristic, so the residual is a lower bound on the true gap). Computed at unit scale (bids,
    budgets and reserve divided by the largest budget), so it does not depend on the currency.
    ``inf`` where a user values a machine nobody else bids on and the game has no reserve: any
    positive bid would win it, so no best response exists.

    Parameters
    ----------
    game : Game
        The instance.
    bids : (n_users, n_machines) array_like
        ``bids[user, machine]``, finite and >= 0, each row summing to the user's budget.

    Returns
    -------
    float
        The residual, >= 0.

    Examples
    --------
    The EC'05 two-player game with equal weights (0.7, 0.3): both users bidding (0.7, 0.3) is its
    equilibrium (§3.3), bidding half on each machine is not.

    >>> game = Game([[0.7, 0.3], [0.7, 0.3]])
    >>> nash_gap(game, [[0.7, 0.3], [0.7, 0.3]]) < 1e-12
    True
    >>> round(nash_gap(game, [[0.5, 0.5], [0.5, 0.5]]), 4)
    0.5714
    """
    game, x = _game_bids(game, bids)
    scale = float(game.budgets.max())
    x = x / scale
    reserve = game.reserve / scale
    if game.parallelism is None:
        return equilibrium_violation(game.weights, x, reserve)
    budgets = game.budgets / scale
    total = x.sum(axis=0)
    worst = 0.0
    for i in range(game.n_users):
        y = total - x[i] + reserve
        if ((y <= 0.0) & (game.weights[i] > 0.0)).any():
            return float("inf")
        k = int(game.parallelism[i])
        now = finite_utility(game.weights[i], x[i], y, k)
        best = finite_utility(
            game.weights[i],
            best_response_finite(game.weights[i], y, float(budgets[i]), k).bids,
            y,
            k,
        )
        if best > 0.0:
            worst = max(worst, (best - now) / best)
    return float(worst)


def _frozen(value):
    """A read-only copy of an extras value: arrays not writeable, mappings read-only, lists as
    tuples."""
    if isinstance(value, np.ndarray):
        value = value.copy()
        value.setflags(write=False)
        return value
    if isinstance(value, Mapping):
        return MappingProxyType({k: _frozen(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return value


@result_type
@dataclass(frozen=True, eq=False)
class GameOutcome:
    """The result of every game-type mechanism: the bids it settles on in a :class:`Game`, and what
    they imply.

    Build it from the game and the bids, ``GameOutcome(game, bids, "name", converged=...,
    iterations=...)``; the shares, prices, utilities and certificate are derived from them (the bids
    are checked first: the right shape, finite, >= 0, each user's summing to its budget, on at most
    its parallelism's machines).

    Parameters
    ----------
    game : Game
        The instance played.
    bids : array_like
        Shape (n_users, n_machines): ``bids[user, machine]``, each row summing to the user's budget;
        stored as a read-only float64 array.
    method : str
        Which mechanism and method produced it (e.g. ``"proportional_share"``).
    converged : bool, default True
        Whether the mechanism's own stopping test held (True for a rule with nothing to iterate).
    iterations : int, default 0
        Rounds of the mechanism's iteration (0 for a closed form).
    message : str, default ""
        Anything a user should know about this run; empty when nothing.
    extras : Mapping[str, object], default empty
        Method-specific values, stored immutable (arrays read-only), documented by each mechanism.

    Attributes
    ----------
    shares : (n_users, n_machines) ndarray, read-only
        r_ij = x_ij / (Y_j + ε): each column sums to at most 1 (less by the reserve's share).
    prices : (n_machines,) ndarray, read-only
        Y_j + ε: the bids on each machine plus the reserve (EC'05 §2).
    utilities : (n_users,) ndarray, read-only
        U_i = Σ_j w_ij r_ij (finite parallelism: the sum of the k_i largest terms).
    residual : float
        The certificate :func:`nash_gap`: 0 at a Nash equilibrium.

    Raises
    ------
    InvalidInputError
        When ``game`` is not a Game, the bids do not fit it (or their pandas labels are not those
        of the game's weights), or ``method`` is not a str.

    Examples
    --------
    >>> out = GameOutcome(Game([[0.7, 0.3], [0.7, 0.3]]), [[0.7, 0.3], [0.7, 0.3]], "by hand")
    >>> out.shares.tolist(), out.prices.tolist(), out.utilities.round(6).tolist()
    ([[0.5, 0.5], [0.5, 0.5]], [1.4, 0.6], [0.5, 0.5])
    """

    game: Game
    bids: np.ndarray
    method: str
    converged: bool = True
    iterations: int = 0
    message: str = ""
    extras: Mapping = field(default_factory=lambda: MappingProxyType({}))
    shares: np.ndarray = field(init=False)
    prices: np.ndarray = field(init=False)
    utilities: np.ndarray = field(init=False)
    residual: float = field(init=False)

    def __post_init__(self):
        game, bids = _game_bids(self.game, self.bids)
        if not isinstance(self.method, str):
            raise InvalidInputError(f"method = {self.method!r}: must be a str naming the mechanism")
        shares = allocation(bids, game.reserve)
        prices = bids.sum(axis=0) + game.reserve
        utils = _utilities(game.weights, shares, game.parallelism)
        for name, value in (
            ("bids", bids),
            ("shares", shares),
            ("prices", prices),
            ("utilities", utils),
        ):
            value = np.array(value, dtype=np.float64)
            value.setflags(write=False)
            object.__setattr__(self, name, value)
        object.__setattr__(self, "converged", bool(self.converged))
        object.__setattr__(self, "iterations", int(self.iterations))
        object.__setattr__(self, "extras", _frozen(dict(self.extras)))
        object.__setattr__(self, "residual", nash_gap(game, bids))

    @property
    def welfare(self) -> float:
        """Σ_i U_i, the social welfare of the outcome; efficiency is welfare / ``game.optimum()``.

        Returns
        -------
        float
            The welfare (EC'05 §2).
        """
        return float(self.utilities.sum())
