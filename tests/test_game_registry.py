"""What every registered game mechanism must do: the checks of :mod:`fairlib.testing`, one test per
(game, check).

Every test here is marked ``games`` and parametrised by game name at collection time, so a newly
registered game is tested by them with no edit (``tests/test_game_registry_plugin.py`` registers one
from a temporary module and runs every one of them on it). The rules
(:data:`fairlib.testing.GAME_CHECKS`), as CONTRIBUTING.md states them:

- the contract ``game_mechanism(game, **options) -> GameOutcome``: types and shapes, read-only
  arrays and extras;
- a feasible allocation: bids spending each budget, shares >= 0 with every column summing to at most
  1, prices the bids plus the reserve, utilities the weighted shares, at most k_i machines per user
  under finite parallelism;
- ``"equilibrium"``: the default run converges with a residual at most the registered ``tol`` on the
  EC'05 two-player games with a unique equilibrium (and finds it); on small random games every
  converged outcome has a residual at most ``tol``, and one that did not converge says so (dynamics
  need not settle: best responses cycle on some games with several equilibria, e.g. the opposite
  two-player game at α = 0.9, tests/test_games.py);
- the same game and options give the same outcome;
- budgets, parallelism and a reserve honoured or refused by capability; anything but a Game, and a
  bad value of any keyword option, refused with an InvalidInputError naming the argument;
- interpreted and compiled kernels agreeing (fairlib._jit), on both sides of the size rule;
- documented.

A plugin author runs the same checks with :func:`fairlib.testing.check_game`. Two more rules here
are the reproduction pipeline's (:mod:`fairlib.repro`), which the library's checks do not import:
every game is reached by the kernel warm-up (``python -m fairlib.repro.warm``; the test of the
warm-up itself, tests/test_packaging.py, checks that every kernel of the library is), and the house
palette (:mod:`fairlib.repro.plotting`) draws it in its registered colour with its registered label.
"""

from __future__ import annotations

import pytest

from fairlib import games
from fairlib.testing import parametrize_with_checks

pytestmark = pytest.mark.games


@parametrize_with_checks(kind="game")
def test_game(name, check):
    check(games.get(name))


@pytest.mark.parametrize("name", games.names())
def test_the_warm_up_calls_the_game(name):
    from fairlib.repro.warm import check_game_is_warmed_up

    check_game_is_warmed_up(games.get(name))


@pytest.mark.parametrize("name", games.names())
def test_the_plotting_palette_draws_the_game_as_registered(name):
    from fairlib.repro.plotting import color, label

    entry = games.get(name)
    assert color(entry.name) == entry.color and label(entry.name) == entry.label
