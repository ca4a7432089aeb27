"""What every registered game mechanism must do, derived from the game registry and its capabilities
(fairlib.games).

Every test here is marked ``games`` and parametrised by game name at collection time, so a newly registered game is
tested by them with no edit (``tests/test_game_registry_plugin.py`` registers one from a temporary module and runs
every one of them on it). The rules, as CONTRIBUTING.md states them:

- the contract ``game_mechanism(game, **options) -> GameOutcome``: types and shapes, read-only arrays and extras;
- a feasible allocation: bids spending each budget, shares >= 0 with every column summing to at most 1, prices the
  bids plus the reserve, utilities the weighted shares, at most k_i machines per user under finite parallelism;
- ``"equilibrium"``: the default run converges with a residual at most the registered ``tol`` on the EC'05
  two-player games with a unique equilibrium (and finds it); on small random games every converged outcome has a
  residual at most ``tol``, and one that did not converge says so;
- the same game and options give the same outcome;
- budgets, parallelism and a reserve honoured or refused by capability; anything but a Game, and a bad value of any
  keyword option, refused with an InvalidInputError naming the argument;
- interpreted and compiled kernels agreeing (fairlib._jit), on both sides of the size rule;
- reached by the kernel warm-up (``python -m fairlib.warm``), and documented.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from fairlib import games, warm
from fairlib._jit import compiled, interpreted
from fairlib._validate import InvalidInputError
from fairlib.market import Game, GameOutcome, nash_gap, two_player_equilibria, uniform_preferences
from fairlib.plotting import color, label
from fairlib.verify import DEFAULT_ATOL, DEFAULT_RTOL

pytestmark = pytest.mark.games

#: the reserve bid of the perturbed game, for the games that play it (EC'05's existence proof, ε -> 0)
RESERVE = 1e-9

#: EC'05 §3.3 (Fig. 1): two users, two machines, budgets 1; weights (α, 1-α) for both ("equal") or (α, 1-α) and
#: (1-α, α) ("opposite"). These have a unique equilibrium (the opposite game has three for α above about 0.854)
TWO_PLAYER = [("equal", 0.7), ("equal", 0.9), ("opposite", 0.6), ("opposite", 0.75)]


def _game(entry, weights, **kwargs) -> Game:
    """A game for ``entry``: the perturbed one (reserve ε) when it has the ``"reserve"`` capability."""
    return Game(weights, reserve=RESERVE if "reserve" in entry.capabilities else 0.0, **kwargs)


def _two_player(entry, kind: str, alpha: float) -> Game:
    weights = [[alpha, 1 - alpha], [alpha, 1 - alpha]] if kind == "equal" else [[alpha, 1 - alpha], [1 - alpha, alpha]]
    return _game(entry, weights)


def _random_games(entry, count: int = 12):
    """Small games of 2-5 users and 1-4 machines (EC §5's uniform preferences), budgets 1, 2 or 4 where honoured."""
    for seed in range(count):
        rng = np.random.default_rng(seed)
        users, machines = int(rng.integers(2, 6)), int(rng.integers(1, 5))
        budgets = rng.choice([1.0, 2.0, 4.0], users) if "budgets" in entry.capabilities else None
        yield seed, _game(entry, uniform_preferences(rng, users, machines), budgets=budgets)


def _check_feasible(game: Game, out: GameOutcome) -> None:
    m, n = game.weights.shape
    assert out.bids.shape == out.shares.shape == (m, n) and out.prices.shape == (n,) and out.utilities.shape == (m,)
    np.testing.assert_allclose(out.bids.sum(axis=1), game.budgets, rtol=1e-9)
    assert (out.bids >= 0).all() and (out.shares >= 0).all()
    assert (out.shares.sum(axis=0) <= 1 + 1e-12).all(), out.shares.sum(axis=0)
    np.testing.assert_allclose(out.prices, out.bids.sum(axis=0) + game.reserve, rtol=1e-12)
    if game.parallelism is None:
        np.testing.assert_allclose(out.utilities, (game.weights * out.shares).sum(axis=1), rtol=1e-12, atol=1e-15)
    else:
        assert ((out.bids > 0).sum(axis=1) <= game.parallelism).all()
    assert out.residual >= 0     # inf where no best response exists (a machine left to one bidder, no reserve)


@pytest.mark.parametrize("name", games.names())
def test_the_contract_on_the_two_player_game(name):
    entry = games.get(name)
    game = _two_player(entry, "equal", 0.7)
    out = entry(game)
    assert isinstance(out, GameOutcome), f"{name} returned {type(out).__name__}, not a GameOutcome"
    assert out.game is game and isinstance(out.method, str) and out.method
    assert isinstance(out.converged, bool) and isinstance(out.iterations, int) and out.iterations >= 0
    assert isinstance(out.residual, float) and isinstance(out.message, str)
    _check_feasible(game, out)
    for array in (out.bids, out.shares, out.prices, out.utilities):
        assert array.dtype == np.float64 and not array.flags.writeable
    with pytest.raises(TypeError):
        out.extras["new"] = 1                       # extras are immutable
    assert out.residual == nash_gap(game, out.bids)   # the certificate comes from the bids alone
    assert color(name) == entry.color and label(name) == entry.label


@pytest.mark.parametrize("name", games.names())
def test_the_allocation_is_feasible_on_small_random_games(name):
    entry = games.get(name)
    for seed, game in _random_games(entry):
        _check_feasible(game, entry(game))
        if "parallelism" in entry.capabilities:
            finite = Game(game.weights, budgets=game.budgets, parallelism=np.arange(game.n_users) % game.n_machines + 1,
                          reserve=game.reserve)
            _check_feasible(finite, entry(finite))


@pytest.mark.parametrize("name", games.names("equilibrium"))
@pytest.mark.parametrize("kind, alpha", TWO_PLAYER)
def test_an_equilibrium_game_finds_the_two_player_equilibrium(name, kind, alpha):
    """The EC'05 two-player games with a unique equilibrium: converged, certified, and the paper's bids."""
    entry = games.get(name)
    out = entry(_two_player(entry, kind, alpha))
    assert out.converged and out.residual <= entry.tol, (out.residual, out.message)
    (known,) = two_player_equilibria(alpha, kind)
    np.testing.assert_allclose(out.bids[:, 0], [known["x"], known["y"]], atol=1e-6)


@pytest.mark.parametrize("name", games.names("equilibrium"))
def test_an_equilibrium_game_certifies_small_random_games(name):
    """On small random games the certificate backs every convergence claim: a converged outcome has a residual at
    most ``tol``; one that did not converge says so in its message. (Dynamics need not settle: best responses cycle
    on some games with several equilibria, e.g. the opposite two-player game at α = 0.9, tests/test_games.py.)"""
    entry = games.get(name)
    converged = 0
    for seed, game in _random_games(entry, count=24):
        out = entry(game)
        if out.converged:
            converged += 1
            assert out.residual <= entry.tol, (seed, out.residual, out.iterations, out.message)
        else:
            assert out.message, (seed, "an outcome that did not converge says so")
    assert converged, "no small random game converged"


@pytest.mark.parametrize("name", games.names())
def test_the_same_game_gives_the_same_outcome(name):
    entry = games.get(name)
    for _, game in list(_random_games(entry))[:4]:
        first, again = entry(game), entry(game)
        np.testing.assert_array_equal(first.bids, again.bids)
        assert (first.converged, first.iterations, first.residual) == (again.converged, again.iterations,
                                                                        again.residual)


@pytest.mark.parametrize("name", games.names())
def test_budgets_parallelism_and_a_reserve_are_honoured_or_refused(name):
    entry = games.get(name)
    weights = [[0.7, 0.3], [0.4, 0.6]]
    caps = entry.capabilities
    reserve = RESERVE if "reserve" in caps else 0.0
    for feature, game in (("budgets", Game(weights, budgets=[1.0, 2.0], reserve=reserve)),
                          ("parallelism", Game(weights, parallelism=1, reserve=reserve))):
        if feature not in caps:
            with pytest.raises(InvalidInputError, match=feature):
                entry(game)
            continue
        _check_feasible(game, entry(game))
    if "reserve" not in caps:
        with pytest.raises(InvalidInputError, match="reserve"):
            entry(Game(weights, reserve=1e-6))
    else:                     # the unperturbed game is played, or refused by a mechanism that needs the reserve
        unperturbed = Game(weights)
        try:
            out = entry(unperturbed)
        except InvalidInputError as error:
            assert "reserve" in str(error), error
        else:
            _check_feasible(unperturbed, out)


def _keyword_options(entry) -> list[inspect.Parameter]:
    params = list(inspect.signature(entry.function).parameters.values())[1:]
    return [p for p in params if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is not p.empty]


@pytest.mark.parametrize("name", games.names())
def test_bad_input_is_refused_with_the_argument_named(name):
    """Anything but a Game, and a bad value of each keyword option (by the kind of its default: NaN and a negative
    for a number, an unknown word for a choice), end in an InvalidInputError naming the argument."""
    entry = games.get(name)
    for bad in (None, [[0.7, 0.3], [0.4, 0.6]], "game"):
        with pytest.raises(InvalidInputError, match="game"):
            entry(bad)
    game = _two_player(entry, "equal", 0.7)
    for p in _keyword_options(entry):
        default = entry.options.get(p.name, p.default)
        if isinstance(default, bool) or default is None:
            continue
        if isinstance(default, (int, float)):
            bad_values = [float("nan"), -1]
        elif isinstance(default, str):
            bad_values = ["no-such-choice"]
        else:
            continue
        for value in bad_values:
            with pytest.raises(InvalidInputError, match=p.name):
                entry(game, **{p.name: value})


@pytest.mark.parametrize("name", games.names())
def test_interpreted_and_compiled_kernels_agree(name):
    """The same games both ways, on both sides of the size rule (fairlib._jit: up to 64 cells run interpreted)."""
    entry = games.get(name)
    for seed in range(6):
        rng = np.random.default_rng(100 + seed)
        users, machines = (int(rng.integers(2, 5)), int(rng.integers(1, 5))) if seed < 3 else (9, 8)
        game = _game(entry, uniform_preferences(rng, users, machines))
        with interpreted():
            slow = entry(game)
        with compiled():
            fast = entry(game)
        assert slow.converged == fast.converged, seed
        scale = float(game.budgets.max())
        np.testing.assert_allclose(slow.bids, fast.bids, rtol=DEFAULT_RTOL, atol=DEFAULT_ATOL * scale)


@pytest.mark.parametrize("name", games.names())
def test_the_warm_up_runs_every_registered_game(name):
    """``python -m fairlib.warm`` calls every registered game (its kernels are then in the keyed cache; the test of
    the warm-up itself, tests/test_packaging.py, checks that every kernel of the library is)."""
    entry = games.get(name)
    calls = []

    def spy(game, **options):
        calls.append(game)
        return entry.function(game, **options)

    spy.__doc__ = entry.function.__doc__
    games.register_game(name, spy, label=entry.label, color=entry.color, capabilities=entry.capabilities,
                        options=entry.options, tol=entry.tol, replace=True)
    try:
        warm._registered_games(np.random.default_rng(0).uniform(0.0, 1.0, (6, 4)))
    finally:
        games.register_game(name, entry.function, label=entry.label, color=entry.color,
                            capabilities=entry.capabilities, options=entry.options, tol=entry.tol, replace=True)
    assert calls, f"the warm-up does not call {name}"
    assert "registered games" in dict(warm.warm_steps())


@pytest.mark.parametrize("name", games.names())
def test_a_registered_function_is_documented(name):
    doc = inspect.getdoc(games.get(name).function) or ""
    assert doc.strip() and doc.splitlines()[0].strip(), f"{name}: its function needs a numpydoc docstring"
    assert "Returns" in doc, f"{name}: its docstring needs a Returns section (a GameOutcome)"
