"""The game contract and its registry: GameOutcome derived from bids and checked, the certificate
nash_gap against its definition, the registry's errors, its capabilities' refusals and its plugins
(FAIRLIB_GAMES). The rules every registered game must meet are in tests/test_game_registry.py."""

import os
import subprocess
import sys

import numpy as np
import pytest

from fairlib import games, mechanisms
from fairlib._validate import InvalidInputError
from fairlib.market import (
    Game,
    GameOutcome,
    best_response,
    best_response_finite,
    equilibrium_violation,
    finite_utility,
    nash_gap,
    proportional_share,
    weight_proportional,
)
from fairlib.paths import ROOT
from fairlib.repro.plotting import color, label

EQUAL = Game(
    [[0.7, 0.3], [0.7, 0.3]]
)  # EC'05 §3.3: the unique equilibrium is both bidding (0.7, 0.3)


def test_an_outcome_is_derived_from_the_bids():
    game = Game([[0.7, 0.3], [0.4, 0.6]], budgets=[1.0, 2.0], reserve=0.5)
    out = GameOutcome(
        game,
        [[0.5, 0.5], [1.5, 0.5]],
        "by hand",
        converged=False,
        iterations=3,
        extras={"trace": [1, 2], "array": np.ones(2)},
    )
    np.testing.assert_allclose(out.prices, [2.5, 1.5])
    np.testing.assert_allclose(out.shares, [[0.2, 1 / 3], [0.6, 1 / 3]])
    np.testing.assert_allclose(out.utilities, [0.7 * 0.2 + 0.3 / 3, 0.4 * 0.6 + 0.6 / 3])
    assert out.welfare == pytest.approx(out.utilities.sum())
    assert out.residual == equilibrium_violation(game.weights, out.bids / 2.0, 0.5 / 2.0)
    assert (out.converged, out.iterations) == (False, 3)
    assert out.extras["trace"] == (1, 2) and not out.extras["array"].flags.writeable


@pytest.mark.parametrize(
    "bids, message",
    [
        ([[0.5, 0.5]], r"bids: expected shape \(2, 2\)"),
        ([[0.5, np.nan], [0.5, 0.5]], r"bids\[0, 1\] = nan"),
        ([[1.5, -0.5], [0.5, 0.5]], r"bids\[0, 1\] = -0.5"),
        ([[0.5, 0.4], [0.5, 0.5]], r"bids\[0\] sums to 0.9: user 0 must bid its whole budget 1.0"),
    ],
)
def test_bids_that_break_the_game_are_named(bids, message):
    with pytest.raises(InvalidInputError, match=message):
        GameOutcome(EQUAL, bids, "by hand")


def test_bids_beyond_the_parallelism_and_anything_but_a_game_are_named():
    with pytest.raises(
        InvalidInputError,
        match=r"bids\[1\]: user 1 bids on 2 machines, more than its parallelism 1",
    ):
        GameOutcome(
            Game([[0.7, 0.3], [0.7, 0.3]], parallelism=1), [[1.0, 0.0], [0.5, 0.5]], "by hand"
        )
    with pytest.raises(InvalidInputError, match="game = .*must be a Game, got list"):
        GameOutcome([[0.7, 0.3]], [[1.0, 0.0]], "by hand")
    with pytest.raises(InvalidInputError, match="game = .*must be a Game"):
        nash_gap(None, [[1.0, 0.0]])


def test_the_certificate_is_zero_at_the_equilibria_and_scale_free():
    assert nash_gap(EQUAL, [[0.7, 0.3], [0.7, 0.3]]) < 1e-12
    assert nash_gap(EQUAL, [[0.5, 0.5], [0.5, 0.5]]) == pytest.approx(0.2 / 0.35)
    rich = Game(EQUAL.weights, budgets=1e12)
    assert nash_gap(rich, [[5e11, 5e11], [5e11, 5e11]]) == pytest.approx(0.2 / 0.35)
    # nobody else bids on a machine user 1 values, and there is no reserve: no best response exists
    assert nash_gap(EQUAL, [[1.0, 0.0], [1.0, 0.0]]) == float("inf")


@pytest.mark.parametrize("seed", range(8))
def test_the_finite_certificate_is_the_local_search_gain(seed):
    """Under finite parallelism the residual is the largest relative utility gain of a local-search
    best response (EC'05 §4.2), recomputed here user by user; it is 0 for bids that are each user's
    local-search best response."""
    rng = np.random.default_rng(seed)
    m, n = int(rng.integers(2, 5)), int(rng.integers(2, 6))
    game = Game(rng.random((m, n)), parallelism=rng.integers(1, n + 1, m), reserve=1e-3)
    bids = np.zeros((m, n))
    for i in range(m):
        top = np.argsort(-game.weights[i])[: game.parallelism[i]]
        bids[i, top] = 1.0 / len(top)
    gains = []
    for i in range(m):
        y = bids.sum(axis=0) - bids[i] + game.reserve
        k = int(game.parallelism[i])
        best = finite_utility(
            game.weights[i], best_response_finite(game.weights[i], y, 1.0, k).bids, y, k
        )
        gains.append(max(0.0, best - finite_utility(game.weights[i], bids[i], y, k)) / best)
    assert nash_gap(game, bids) == pytest.approx(max(gains), rel=1e-9, abs=1e-12)


def test_one_machine_is_always_an_equilibrium():
    """With one machine every user bids its whole budget there: nothing to deviate to (residual 0),
    shares proportional to the budgets."""
    game = Game([[1.0], [2.0], [0.5]], budgets=[1.0, 2.0, 1.0], reserve=1e-9)
    for out in (proportional_share(game), weight_proportional(game)):
        assert out.residual == 0.0
        np.testing.assert_allclose(out.shares[:, 0], [0.25, 0.5, 0.25], rtol=1e-8)


def test_the_equilibrium_is_a_fixed_point_of_best_responses():
    game = Game([[0.5, 0.3, 0.2], [0.2, 0.5, 0.3], [0.3, 0.2, 0.5], [0.4, 0.4, 0.2]], reserve=1e-9)
    out = proportional_share(game)
    for i in range(game.n_users):
        y = out.bids.sum(axis=0) - out.bids[i] + game.reserve
        np.testing.assert_allclose(best_response(game.weights[i], y, 1.0), out.bids[i], atol=1e-7)


def test_proportional_share_needs_a_reserve_and_says_why():
    # the message names what the caller passed (its game), not the internal run_dynamics
    with pytest.raises(InvalidInputError, match=r"^game\.reserve = 0\.0: must be > 0") as err:
        proportional_share(EQUAL)
    assert "run_dynamics" not in str(err.value)


def test_best_response_dynamics_can_cycle_and_the_outcome_says_so():
    """The opposite two-player game at α = 0.9 has three equilibria (EC'05 §3.3); sequential best
    responses from weight-proportional bids cycle instead of settling: not converged, and the
    residual shows it."""
    out = proportional_share(Game([[0.9, 0.1], [0.1, 0.9]], reserve=1e-9), max_iter=300)
    assert not out.converged and out.iterations == 300 and out.residual > 1e-3
    assert out.message.startswith("best responses did not settle within max_iter = 300 rounds")


def test_registry_errors_name_the_problem():
    def toy(game):
        """Every user bids in proportion to its weights."""
        return weight_proportional(game)

    for kwargs, message in [
        (dict(name="", function=toy), "non-empty"),
        (dict(name="toy", function=1), "needs a callable"),
        (dict(name="toy", function=toy, capabilities=("weights",)), r"\['weights'\] unknown"),
        (dict(name="toy", function=toy, tol=1e-3), "claims no equilibrium"),
        (dict(name="toy", function=toy, capabilities=("equilibrium",), tol=-1.0), "tol = -1.0"),
        (dict(name="proportional_share", function=toy), "already registered as a game"),
        (dict(name="drf", function=toy), "registered as a static mechanism"),
    ]:
        with pytest.raises(InvalidInputError, match=message):
            games.register_game(**kwargs)
    with pytest.raises(InvalidInputError, match="not registered as a game; known: "):
        games.get("nope")
    with pytest.raises(InvalidInputError, match="unknown"):
        games.names("pooled")
    assert "toy" not in games.names()


def test_a_registered_toy_game_is_refused_what_its_capabilities_do_not_cover():
    def toy(game):
        """Every user bids in proportion to its weights."""
        return weight_proportional(game)

    with games.registered("toy_game", toy, label="toy") as entry:
        assert games.names()[-1] == "toy_game" and entry.tol is None
        assert color("toy_game") == entry.color and label("toy_game") == "toy"
        assert entry(EQUAL).method == "weight_proportional"
        for game, message in [
            (Game(EQUAL.weights, budgets=[1.0, 3.0]), r"game.budgets\[1\] = 3.0: toy_game has no"),
            (Game(EQUAL.weights, parallelism=[2, 1]), r"game.parallelism\[0\] = 2: toy_game"),
            (Game(EQUAL.weights, reserve=0.1), "game.reserve = 0.1: toy_game plays the game"),
        ]:
            with pytest.raises(InvalidInputError, match=message):
                entry(game)
    assert "toy_game" not in games.names()
    with games.registered("toy_game", toy, capabilities=("equilibrium",)) as entry:
        assert entry.tol == games.DEFAULT_TOL


def test_the_registries_are_separate():
    assert not set(games.names()) & set(mechanisms.names())
    assert games.names()[:2] == ["proportional_share", "weight_proportional"]


def test_a_games_module_that_cannot_be_imported_is_named():
    env = dict(os.environ, FAIRLIB_GAMES="fairlib_no_such_game_plugin")
    run = subprocess.run(
        [sys.executable, "-c", "import fairlib.games"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert run.returncode != 0 and "FAIRLIB_GAMES names 'fairlib_no_such_game_plugin'" in run.stderr


def test_a_games_module_that_registers_no_game_is_named():
    """A module that registers no game (here one of the standard library's) is refused naming the
    variable and the module, not imported for nothing."""
    env = dict(os.environ, FAIRLIB_GAMES="json")
    run = subprocess.run(
        [sys.executable, "-c", "import fairlib.games"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert run.returncode != 0
    assert "FAIRLIB_GAMES names 'json', which registers no game" in run.stderr, run.stderr[-2000:]
