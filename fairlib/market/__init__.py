"""The price-anticipating proportional-share bidding game (Feldman, Lai, Zhang, EC'05).

:func:`best_response` (closed form, O(n log n)), :func:`best_response_finite` (local search),
:class:`Game`, :func:`run_dynamics` (best response / local greedy), baselines (social optimum,
weight-proportional), the equilibrium check and the analytical worst cases. The game contract,
``game_mechanism(game, **options) -> GameOutcome`` (:class:`GameOutcome`, certified by
:func:`nash_gap`), and its mechanisms :func:`proportional_share` and :func:`weight_proportional`,
registered in :mod:`fairlib.games`.
"""

from .baselines import best_response_numpy, best_response_slsqp
from .best_response import best_response, best_response_finite, finite_utility, utility
from .dynamics import DynamicsResult, run_dynamics
from .equilibrium import (
    equilibrium_violation,
    marginal_utilities,
    proportional_guarantee_bids,
    sqrt_m_construction,
    two_player_equilibria,
    two_player_equilibria_numeric,
)
from .game import (
    Game,
    allocation,
    correlated_preferences,
    social_optimum,
    uniform_preferences,
    weight_proportional_bids,
    welfare_optimum,
)
from .outcome import GameOutcome, nash_gap
from .proportional_share import proportional_share, weight_proportional
# new games are imported above this line (python -m fairlib.repro.scaffold mechanism NAME --game
# ...)

__all__ = [
    "best_response",
    "best_response_finite",
    "utility",
    "finite_utility",
    "Game",
    "allocation",
    "social_optimum",
    "welfare_optimum",
    "weight_proportional_bids",
    "uniform_preferences",
    "correlated_preferences",
    "run_dynamics",
    "DynamicsResult",
    "equilibrium_violation",
    "marginal_utilities",
    "two_player_equilibria",
    "two_player_equilibria_numeric",
    "sqrt_m_construction",
    "proportional_guarantee_bids",
    "best_response_numpy",
    "best_response_slsqp",
    "GameOutcome",
    "nash_gap",
    "proportional_share",
    "weight_proportional",
]
