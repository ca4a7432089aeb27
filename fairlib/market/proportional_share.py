"""The proportional-share bidding game's mechanisms on the game contract (Feldman, Lai, Zhang,
EC'05).

``proportional_share`` is the mechanism the paper studies: users bid their budgets across the
machines, each receives its bid's share of every machine, and the outcome is the Nash equilibrium
the users reach by iterated best responses (§4, :func:`~fairlib.market.run_dynamics`).
``weight_proportional`` is the paper's static baseline: each user spreads its budget in proportion
to its weights (§5). Both return a :class:`~fairlib.market.GameOutcome` and are registered in
:mod:`fairlib.games`.
"""

from __future__ import annotations

from .._jit import interpreted_when_small
from .._validate import MAX_ITERATIONS, Seed, as_count, as_instance, as_tolerance
from .dynamics import run_dynamics
from .game import Game, weight_proportional_bids
from .outcome import GameOutcome

__all__ = ["proportional_share", "weight_proportional"]

#: the default stopping test of :func:`proportional_share`: every utility changes by less than this
#: (relative to the sum of the user's weights) in a round (the paper's 0.001 stops short of the
#: equilibrium; this leaves Nash residuals of ~1e-8 on its instances)
TIGHT_EPS = 1e-12


#: the most rounds a small game runs interpreted (fairlib._jit): a 64-cell game's 5,000 rounds take
#: a few seconds as Python; a longer run stays compiled
INTERPRETED_ROUNDS = 5000


@interpreted_when_small(bounded=lambda *args, max_iter=5000, **_: max_iter <= INTERPRETED_ROUNDS)
def proportional_share(
    game: Game,
    *,
    order: str = "sequential",
    eps: float = TIGHT_EPS,
    max_iter: int = 5000,
    rng: Seed | None = None,
) -> GameOutcome:
    """The equilibrium of the proportional-share bidding game, reached by best-response dynamics.

    Users start from weight-proportional bids and, in turn, replace their bids by their best
    response to the others' (the closed form of §4.1; with finite parallelism the local search of
    §4.2, a heuristic) until no user's utility changes by ``eps`` times the sum of its weights in a
    round (a relative test: scaling the weights or the budgets changes neither the equilibrium nor
    when the dynamics stop). The outcome's ``residual``
    certifies the equilibrium (condition (1) of §3, :func:`~fairlib.market.nash_gap`). The dynamics
    need not settle: on some games with several equilibria (the opposite two-player game of §3.3 at
    α = 0.9, a few small random games) best responses cycle, and the outcome says so (``converged``
    False, a ``message``, the residual of the last round's bids).

    Parameters
    ----------
    game : Game
        Weights, budgets, parallelism and reserve; the reserve must be > 0 (a user alone on a
        machine has no best response otherwise: pass e.g. ``reserve=1e-9``, the existence proof's
        perturbation).
    order : {"sequential", "simultaneous", "random"}, default "sequential"
        Who updates when (:func:`~fairlib.market.run_dynamics`); ``"random"`` draws each round's
        order from ``rng``.
    eps : float, default TIGHT_EPS
        The stopping test: every user's utility changes by less than ``eps`` times the sum of its
        weights in a round (from 1e-15 to 0.1).
    max_iter : int, default 5000
        At most this many rounds, from 1 to :data:`~fairlib._validate.MAX_ITERATIONS`;
        ``converged`` is False if the test never held. None is refused: it would not mean this
        default but :func:`~fairlib.market.run_dynamics`' own (200 rounds).
    rng : int, numpy.random.Generator or None, default None
        Seed; only for ``order="random"``. None: fresh OS entropy, a different draw on every call
        (pass an integer to repeat it).

    Returns
    -------
    GameOutcome
        The bids after the last round; ``iterations`` the rounds run, ``extras["welfare"]`` the
        welfare after each round (row 0: the starting bids).

    Raises
    ------
    InvalidInputError
        When ``game`` is not a Game or has no reserve (``game.reserve = 0.0: must be > 0``), or an
        option is invalid.

    References
    ----------
    .. [1] M. Feldman, K. Lai, L. Zhang, "A Price-Anticipating Resource Allocation Mechanism for
       Distributed Shared Clusters", EC '05, 2005, §3–4 (condition (1), best responses
       §4.1–4.2).

    Examples
    --------
    EC'05 §3.3: two users with weights (0.7, 0.3) on two machines; the unique equilibrium is both
    bidding (0.7, 0.3).

    >>> out = proportional_share(Game([[0.7, 0.3], [0.7, 0.3]], reserve=1e-9))
    >>> out.bids.round(6).tolist(), out.converged, out.residual < 1e-8
    ([[0.7, 0.3], [0.7, 0.3]], True, True)
    """
    # game and order are run_dynamics's to check (same names); eps is stricter here (> 0), and
    # max_iter too: run_dynamics reads None as its own 200 rounds, not this function's 5000
    eps = as_tolerance(eps, "eps")
    max_iter = as_count(max_iter, "max_iter", maximum=MAX_ITERATIONS)
    result = run_dynamics(game, "best_response", order=order, eps=eps, max_iter=max_iter, rng=rng)
    message = (
        ""
        if result.converged
        else (
            f"best responses did not settle within max_iter = {max_iter} rounds: "
            "they can cycle, e.g. on games with several equilibria"
        )
    )
    return GameOutcome(
        game,
        result.bids,
        "proportional_share",
        converged=result.converged,
        iterations=result.iterations,
        message=message,
        extras={"welfare": result.welfare},
    )


def weight_proportional(game: Game) -> GameOutcome:
    """The static baseline: each user bids its budget in proportion to its weights.

    With finite parallelism, over its k_i highest-weight machines.

    Nothing is iterated (``converged`` True, ``iterations`` 0); the ``residual`` says how far these
    bids are from an equilibrium.

    Parameters
    ----------
    game : Game
        Any game: budgets, parallelism and a reserve are honoured.

    Returns
    -------
    GameOutcome
        x_ij = X_i w_ij / Σ_j w_ij.

    Raises
    ------
    InvalidInputError
        When ``game`` is not a Game.

    References
    ----------
    .. [1] M. Feldman, K. Lai, L. Zhang, "A Price-Anticipating Resource Allocation Mechanism for
       Distributed Shared Clusters", EC '05, 2005, §5.

    Examples
    --------
    >>> weight_proportional(Game([[0.7, 0.3], [0.4, 0.6]], budgets=[1.0, 2.0])).bids.round(
    ...     6
    ... ).tolist()
    [[0.7, 0.3], [0.8, 1.2]]
    """
    as_instance(game, Game, "game")
    bids = weight_proportional_bids(game.weights, game.budgets, game.parallelism)
    return GameOutcome(game, bids, "weight_proportional")
