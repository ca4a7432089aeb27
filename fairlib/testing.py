"""The registry's rules as checks a plugin author can run: every registered mechanism and game must
meet them.

A mechanism registered from another repository (``FAIRLIB_MECHANISMS=mymodule``, or
:func:`fairlib.mechanisms.register` in a test) is checked with :func:`check_mechanism`; a game with
:func:`check_game`. In a pytest suite, :func:`parametrize_with_checks` makes one test per
(mechanism, check) pair, as fairlib's own suite does (tests/test_registry.py,
tests/test_game_registry.py).

Each check is a small function of one registry entry (a :class:`fairlib.mechanisms.Mechanism` or a
:class:`fairlib.games.GameMechanism`) that returns None or raises :class:`AssertionError`. A check
that needs a capability (``check.requires``) applies only to the entries that have it.
:func:`check_mechanism` and :func:`check_game` stop at the first failure, naming the check and the
entry.

The checks take registry entries, not data: they do not validate their argument beyond looking it
up.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Iterator
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from fairlib import games, mechanisms
from fairlib._validate import InvalidInputError, _short, as_labels, check_choice
from fairlib.market import Game, GameOutcome, nash_gap, two_player_equilibria, uniform_preferences
from fairlib.multires import Allocation, Cluster

if TYPE_CHECKING:
    import pytest

__all__ = [
    "GAME_CHECKS",
    "MECHANISM_CHECKS",
    "check_game",
    "check_mechanism",
    "parametrize_with_checks",
]

#: Ghodsi et al. 2011, §4: 9 CPUs, 18 GB; A = <1 CPU, 4 GB>, B = <3 CPUs, 1 GB>
DRF_EXAMPLE: tuple[list[float], list[list[float]]] = ([9, 18], [[1, 4], [3, 1]])

#: the reserve bid of the perturbed game, for the games that play it (EC'05's existence proof, ε ->
#: 0)
RESERVE = 1e-9

#: EC'05 §3.3 (Fig. 1): two users, two machines, budgets 1; weights (α, 1-α) for both ("equal")
#: or (α, 1-α) and (1-α, α) ("opposite"). These have a unique equilibrium (the opposite game has
#: three for α above about 0.854)
TWO_PLAYER = [("equal", 0.7), ("equal", 0.9), ("opposite", 0.6), ("opposite", 0.75)]


def _requires(capability: str) -> Callable[[Callable], Callable]:
    def mark(check):
        check.requires = capability
        return check

    return mark


def _plays_game(check):
    """A check of the bidding game's own features (EC'05's equilibria, budgets, parallelism): it
    applies to games that play a :class:`~fairlib.market.Game`, not to another model's instance
    type."""
    check.instance = Game
    return check


def _applies(check: Callable, entry: Any) -> bool:
    need = getattr(check, "requires", None)
    instance = getattr(check, "instance", None)
    return (need is None or need in entry.capabilities) and (
        instance is None or getattr(entry, "instance", Game) is instance
    )


def _raises(error: type[Exception], match: str, call: Callable, *args: Any, **kwargs: Any) -> None:
    """Assert that ``call(*args, **kwargs)`` raises ``error`` with ``match`` in its message."""
    try:
        call(*args, **kwargs)
    except error as raised:
        assert match in str(raised), f"the {error.__name__} does not name {match!r}: {raised}"
    else:
        raise AssertionError(f"no {error.__name__} naming {match!r} was raised")


def _extras_are_immutable(extras: Any) -> None:
    try:
        extras["new"] = 1
    except TypeError:
        return
    raise AssertionError("extras can be changed (expected an immutable mapping)")


# --------------------------------------------------------------------------------------- mechanisms


def _drf_example(mech: mechanisms.Mechanism, weight: list[float] | None = None) -> Cluster:
    """The DRF example as a pool, or (multi-server mechanisms) as two servers of half the capacity
    each."""
    cap, dem = DRF_EXAMPLE
    if "pooled" in mech.capabilities:
        return Cluster.single_pool(cap, dem, weight=weight)
    # Cluster takes None (its default) and lists; its field annotation names the array it holds
    return Cluster(
        np.array([[c / 2 for c in cap]] * 2),
        np.asarray(dem),
        weight=weight,  # type: ignore[arg-type]
    )


def check_converges_on_the_drf_example(mech: mechanisms.Mechanism) -> None:
    """Every run (variants expanded) converges on the DRF paper's example and returns a feasible,
    read-only :class:`~fairlib.multires.Allocation` with immutable extras; whole tasks when
    ``"integral"``, ``extras["prices"]`` (one per resource) when ``"prices"``.

    Examples
    --------
    >>> from fairlib import mechanisms
    >>> check_converges_on_the_drf_example(mechanisms.get("drf"))
    """
    cluster = _drf_example(mech)
    for run_name, run in mech.runs().items():
        try:
            res = run(cluster)
        except InvalidInputError as exc:  # an Allocation refusing what it was given, among others
            raise AssertionError(f"{run_name} raised on the DRF example: {exc}") from exc
        assert isinstance(res, Allocation), (
            f"{run_name} returned {type(res).__name__}, not an Allocation"
        )
        assert res.tasks.shape == (2, cluster.n_servers) and res.converged, (run_name, res.message)
        assert cluster.feasible(res.tasks), (
            f"{run_name}: the allocation is infeasible: {res.tasks.tolist()}"
        )
        assert not res.tasks.flags.writeable, f"{run_name}: tasks are writeable"
        assert res.tasks.sum() > 0, f"{run_name} allocates nothing"
        _extras_are_immutable(res.extras)
        if "integral" in mech.capabilities:
            assert np.issubdtype(res.tasks.dtype, np.integer), run_name
        if "prices" in mech.capabilities:
            assert np.asarray(res.extras["prices"]).shape == (len(DRF_EXAMPLE[0]),), run_name


@_requires("pooled")
def check_keeps_a_start_or_refuses_it(mech: mechanisms.Mechanism) -> None:
    """A pooled mechanism keeps held tasks (one each) within the capacities; without ``"start"`` it
    refuses ``start=`` with an InvalidInputError naming ``start``.

    Examples
    --------
    >>> from fairlib import mechanisms
    >>> check_keeps_a_start_or_refuses_it(mechanisms.get("drf"))
    """
    cluster = _drf_example(mech)
    held = np.ones(2, dtype=np.int64 if "integral" in mech.capabilities else np.float64)
    if "start" not in mech.capabilities:
        _raises(InvalidInputError, "start", mech, cluster, start=held)
        return
    res = mech(cluster, start=held)
    assert (res.tasks.ravel() >= held - 1e-9).all(), f"held tasks not kept: {res.tasks.tolist()}"
    assert cluster.feasible(res.tasks), f"infeasible from a start: {res.tasks.tolist()}"
    assert res.tasks.sum() >= held.sum() - 1e-9


def check_honours_or_refuses_weights(mech: mechanisms.Mechanism) -> None:
    """Weights (1, 2) give a feasible converged allocation with ``"weights"``, an InvalidInputError
    naming ``weight`` without it.

    Examples
    --------
    >>> from fairlib import mechanisms
    >>> check_honours_or_refuses_weights(mechanisms.get("drf"))
    """
    cluster = _drf_example(mech, weight=[1.0, 2.0])
    if "weights" not in mech.capabilities:
        _raises(InvalidInputError, "weight", mech, cluster)
        return
    res = mech(cluster)
    assert cluster.feasible(res.tasks) and res.converged, (res.tasks.tolist(), res.message)


@_requires("pooled")
def check_refuses_several_servers(mech: mechanisms.Mechanism) -> None:
    """A pooled mechanism refuses a cluster of two servers with an InvalidInputError naming
    ``server``.

    Examples
    --------
    >>> from fairlib import mechanisms
    >>> check_refuses_several_servers(mechanisms.get("drf"))
    """
    cap, dem = DRF_EXAMPLE
    _raises(InvalidInputError, "server", mech, Cluster(np.array([cap, cap]), np.asarray(dem)))


def check_is_documented(mech: mechanisms.Mechanism) -> None:
    """The registered function has a docstring with a summary line (numpydoc).

    Examples
    --------
    >>> from fairlib import mechanisms
    >>> check_is_documented(mechanisms.get("drf"))
    """
    doc = inspect.getdoc(mech.function) or ""
    assert doc.strip() and doc.splitlines()[0].strip(), (
        f"{mech.name}: its function needs a numpydoc docstring"
    )


def _random_instance(
    mech: mechanisms.Mechanism, rng: np.random.Generator, users: int, servers: int, resources: int
) -> Cluster:
    demand = rng.uniform(0.05, 1.0, (users, resources))
    if "pooled" in mech.capabilities:
        return Cluster.single_pool(rng.uniform(2.0, 8.0, resources), demand)
    capacity = rng.uniform(1.0, 6.0, (servers, resources))
    eligible = rng.random((users, servers)) < 0.8
    eligible[np.arange(users), rng.integers(0, servers, users)] = True
    return Cluster(capacity, demand, eligible=eligible)


def check_runs_on_small_random_clusters(mech: mechanisms.Mechanism) -> None:
    """On eight seeded random instances (1-7 users; a pool, or 1-4 servers with placement
    constraints; 1-3 resources) the default run returns a feasible Allocation of the cluster's
    shape.

    Examples
    --------
    >>> from fairlib import mechanisms
    >>> check_runs_on_small_random_clusters(mechanisms.get("drf"))
    """
    for seed in range(8):
        rng = np.random.default_rng(seed)
        users, servers, resources = (
            int(rng.integers(1, 8)),
            int(rng.integers(1, 5)),
            int(rng.integers(1, 4)),
        )
        cluster = _random_instance(mech, rng, users, servers, resources)
        res = mech(cluster)
        assert isinstance(res, Allocation), f"seed {seed}: {type(res).__name__}, not an Allocation"
        assert res.tasks.shape == (cluster.n_users, cluster.n_servers), (seed, res.tasks.shape)
        assert cluster.feasible(res.tasks), (
            f"seed {seed}: the allocation is infeasible: {res.tasks.tolist()}"
        )


#: every rule a registered mechanism must meet, in the order :func:`check_mechanism` runs them
MECHANISM_CHECKS = (
    check_converges_on_the_drf_example,
    check_keeps_a_start_or_refuses_it,
    check_honours_or_refuses_weights,
    check_refuses_several_servers,
    check_is_documented,
    check_runs_on_small_random_clusters,
)


def _run_checks(kind: str, entry: Any, checks: Iterable[Callable]) -> None:
    for check in checks:
        if not _applies(check, entry):
            continue
        try:
            check(entry)
        except AssertionError as error:
            raise AssertionError(
                f"{kind} {entry.name!r} fails {check.__name__}: {error}"
            ) from error


def check_mechanism(name_or_callable: str | Callable, **register_options: Any) -> None:
    """Run every check of :data:`MECHANISM_CHECKS` that applies to one mechanism; stop at the first
    failure.

    Parameters
    ----------
    name_or_callable : str or callable
        A registered mechanism's name, or a function ``f(cluster, **options) -> Allocation``,
        registered for the duration of the checks with :func:`fairlib.mechanisms.registered` under
        its ``__name__``.
    **register_options
        For a callable: ``capabilities``, ``label``, ``options``, ... as
        :func:`fairlib.mechanisms.register` takes them. Not allowed with a name.

    Raises
    ------
    AssertionError
        The first check that fails, as ``mechanism 'name' fails check_...: what went wrong``.
    InvalidInputError
        When ``name_or_callable`` is neither a registered name nor a callable, or is a name given
        with ``register_options``.

    Examples
    --------
    >>> check_mechanism("drf") is None
    True
    """
    if isinstance(name_or_callable, str):
        if register_options:
            raise InvalidInputError(
                f"register_options = {sorted(register_options)}: for a callable, not a registered "
                f"name (name_or_callable = {name_or_callable!r})"
            )
        entry = mechanisms._lookup(name_or_callable, "name_or_callable")
        _run_checks("mechanism", entry, MECHANISM_CHECKS)
        return
    if not callable(name_or_callable):
        raise InvalidInputError(
            f"name_or_callable = {_short(name_or_callable)}: expected a registered "
            "mechanism's name or a function f(cluster, **options), got "
            f"{type(name_or_callable).__name__}"
        )
    name = getattr(name_or_callable, "__name__", "candidate")
    with mechanisms.registered(name, name_or_callable, **register_options) as mech:
        _run_checks("mechanism", mech, MECHANISM_CHECKS)


# -------------------------------------------------------------------------------------------- games


def _game(entry, weights, **kwargs):
    """An instance for ``entry``: the perturbed one (reserve ε) when it has the ``"reserve"``
    capability; a :class:`~fairlib.market.Game`, or the model's own instance type
    (:meth:`fairlib.games.GameMechanism.example`, budgets and parallelism being a Game's)."""
    reserve = RESERVE if "reserve" in entry.capabilities else 0.0
    if entry.instance is not Game:
        return entry.example(weights, reserve=reserve)
    return Game(weights, reserve=reserve, **kwargs)


def _two_player(entry: Any, kind: str, alpha: float) -> Game:
    weights = (
        [[alpha, 1 - alpha], [alpha, 1 - alpha]]
        if kind == "equal"
        else [[alpha, 1 - alpha], [1 - alpha, alpha]]
    )
    return _game(entry, weights)


def _random_games(entry: Any, count: int = 12) -> Iterator[tuple[int, Any]]:
    """Small games of 2-5 users and 1-4 machines (EC §5's uniform preferences), budgets 1, 2 or 4
    where honoured."""
    for seed in range(count):
        rng = np.random.default_rng(seed)
        users, machines = int(rng.integers(2, 6)), int(rng.integers(1, 5))
        budgets = rng.choice([1.0, 2.0, 4.0], users) if "budgets" in entry.capabilities else None
        yield seed, _game(entry, uniform_preferences(rng, users, machines), budgets=budgets)


def _check_feasible(game: Any, out: Any) -> None:
    if not isinstance(game, Game):  # another model: the outcome's common fields
        m, n = game.n_users, game.n_machines
        assert out.bids.shape == out.shares.shape == (m, n), (out.bids.shape, out.shares.shape)
        assert (out.bids >= 0).all() and (out.shares >= 0).all()
        assert (out.shares.sum(axis=0) <= 1 + 1e-12).all(), out.shares.sum(axis=0)
        assert out.residual >= 0
        return
    m, n = game.weights.shape
    assert (
        out.bids.shape == out.shares.shape == (m, n)
        and out.prices.shape == (n,)
        and out.utilities.shape == (m,)
    )
    np.testing.assert_allclose(out.bids.sum(axis=1), game.budgets, rtol=1e-9)
    assert (out.bids >= 0).all() and (out.shares >= 0).all()
    assert (out.shares.sum(axis=0) <= 1 + 1e-12).all(), out.shares.sum(axis=0)
    np.testing.assert_allclose(out.prices, out.bids.sum(axis=0) + game.reserve, rtol=1e-12)
    if game.parallelism is None:
        np.testing.assert_allclose(
            out.utilities, (game.weights * out.shares).sum(axis=1), rtol=1e-12, atol=1e-15
        )
    else:
        assert ((out.bids > 0).sum(axis=1) <= game.parallelism).all()
    assert (
        out.residual >= 0
    )  # inf where no best response exists (a machine left to one bidder, no reserve)


def check_game_contract_on_the_two_player_game(entry: games.GameMechanism) -> None:
    """``game_mechanism(game, **options) -> GameOutcome``: types, shapes, a feasible allocation,
    read-only arrays and extras, the residual from the bids alone.

    Examples
    --------
    >>> from fairlib import games
    >>> check_game_contract_on_the_two_player_game(games.get(games.names()[0]))
    """
    game = _two_player(entry, "equal", 0.7)
    out = entry(game)
    if isinstance(game, Game):
        assert isinstance(out, GameOutcome), (
            f"{entry.name} returned {type(out).__name__}, not a GameOutcome"
        )
    assert getattr(out, "game", game) is game and isinstance(out.method, str) and out.method
    assert (
        isinstance(out.converged, bool) and isinstance(out.iterations, int) and out.iterations >= 0
    )
    assert isinstance(out.residual, float) and isinstance(out.message, str)
    _check_feasible(game, out)
    for array in (out.bids, out.shares) + (
        (out.prices, out.utilities) if isinstance(game, Game) else ()
    ):
        assert array.dtype == np.float64 and not array.flags.writeable
    _extras_are_immutable(out.extras)
    if isinstance(game, Game):
        assert out.residual == nash_gap(game, out.bids), "the residual is not nash_gap of the bids"


def check_game_is_feasible_on_small_random_games(entry: games.GameMechanism) -> None:
    """Feasible outcomes on twelve seeded random games (and, with ``"parallelism"``, with finite
    parallelism).

    Examples
    --------
    >>> from fairlib import games
    >>> check_game_is_feasible_on_small_random_games(games.get(games.names()[0]))
    """
    for seed, game in _random_games(entry):
        _check_feasible(game, entry(game))
        if "parallelism" in entry.capabilities:
            finite = Game(
                game.weights,
                budgets=game.budgets,
                parallelism=np.arange(game.n_users) % game.n_machines + 1,
                reserve=game.reserve,
            )
            _check_feasible(finite, entry(finite))


@_plays_game
@_requires("equilibrium")
def check_game_finds_the_two_player_equilibria(entry: games.GameMechanism) -> None:
    """The EC'05 two-player games with a unique equilibrium (:data:`TWO_PLAYER`): converged,
    certified (residual at most ``tol``), and the paper's bids.

    Examples
    --------
    >>> from fairlib import games
    >>> check_game_finds_the_two_player_equilibria(games.get(games.names("equilibrium")[0]))
    """
    for kind, alpha in TWO_PLAYER:
        out = entry(_two_player(entry, kind, alpha))
        assert out.converged and out.residual <= entry.tol, (kind, alpha, out.residual, out.message)
        (known,) = two_player_equilibria(alpha, kind)
        np.testing.assert_allclose(
            # the equilibrium's bids are floats (its dict also holds the kind's label)
            out.bids[:, 0],
            [cast(float, known["x"]), cast(float, known["y"])],
            atol=1e-6,
            err_msg=f"{kind} {alpha}",
        )


@_requires("equilibrium")
def check_game_certifies_small_random_games(entry: games.GameMechanism) -> None:
    """On 24 small random games a converged outcome has a residual at most ``tol``; one that did not
    converge says so in its message; at least one converges.

    Examples
    --------
    >>> from fairlib import games
    >>> check_game_certifies_small_random_games(games.get(games.names("equilibrium")[0]))
    """
    converged = 0
    for seed, game in _random_games(entry, count=24):
        out = entry(game)
        if out.converged:
            converged += 1
            assert out.residual <= entry.tol, (seed, out.residual, out.iterations, out.message)
        else:
            assert out.message, (seed, "an outcome that did not converge says so")
    assert converged, "no small random game converged"


def check_game_is_deterministic(entry: games.GameMechanism) -> None:
    """The same game and options give the same outcome (four random games).

    Examples
    --------
    >>> from fairlib import games
    >>> check_game_is_deterministic(games.get(games.names()[0]))
    """
    for _, game in list(_random_games(entry))[:4]:
        first, again = entry(game), entry(game)
        np.testing.assert_array_equal(first.bids, again.bids)
        assert (first.converged, first.iterations, first.residual) == (
            again.converged,
            again.iterations,
            again.residual,
        )


def check_game_honours_or_refuses_budgets_parallelism_and_a_reserve(
    entry: games.GameMechanism,
) -> None:
    """Budgets, parallelism and a reserve played feasibly with the capability, refused
    (InvalidInputError naming it) without; the unperturbed game played or refused naming
    ``reserve``.

    Examples
    --------
    >>> from fairlib import games
    >>> check_game_honours_or_refuses_budgets_parallelism_and_a_reserve(games.get(games.names()[0]))
    """
    weights = [[0.7, 0.3], [0.4, 0.6]]
    caps = entry.capabilities
    reserve = RESERVE if "reserve" in caps else 0.0
    if (
        entry.instance is not Game
    ):  # another model: no budgets or parallelism to play; a reserve or none
        if "reserve" not in caps:
            _raises(InvalidInputError, "reserve", entry, entry.example(weights, reserve=1e-6))
        else:
            _check_feasible(game := entry.example(weights, reserve=RESERVE), entry(game))
        return
    for feature, game in (
        ("budgets", Game(weights, budgets=[1.0, 2.0], reserve=reserve)),
        ("parallelism", Game(weights, parallelism=1, reserve=reserve)),
    ):
        if feature not in caps:
            _raises(InvalidInputError, feature, entry, game)
            continue
        _check_feasible(game, entry(game))
    if "reserve" not in caps:
        _raises(InvalidInputError, "reserve", entry, Game(weights, reserve=1e-6))
    else:  # the unperturbed game is played, or refused by a mechanism that needs the reserve
        unperturbed = Game(weights)
        try:
            out = entry(unperturbed)
        except InvalidInputError as error:
            assert "reserve" in str(error), error
        else:
            _check_feasible(unperturbed, out)


def _keyword_options(entry: Any) -> list[inspect.Parameter]:
    params = list(inspect.signature(entry.function).parameters.values())[1:]
    return [
        p
        for p in params
        if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is not p.empty
    ]


def check_game_refuses_bad_input_naming_the_argument(entry: games.GameMechanism) -> None:
    """Anything but a Game, and a bad value of each keyword option (by the kind of its default: NaN
    and a negative for a number, an unknown word for a choice), end in an InvalidInputError naming
    the argument.

    Examples
    --------
    >>> from fairlib import games
    >>> check_game_refuses_bad_input_naming_the_argument(games.get(games.names()[0]))
    """
    for bad in (None, [[0.7, 0.3], [0.4, 0.6]], "game"):
        _raises(InvalidInputError, "game", entry, bad)
    game = _two_player(entry, "equal", 0.7)
    for p in _keyword_options(entry):
        default = entry.options.get(p.name, p.default)
        if isinstance(default, bool) or default is None:
            continue
        bad_values: list[object]
        if isinstance(default, (int, float)):
            bad_values = [float("nan"), -1]
        elif isinstance(default, str):
            bad_values = ["no-such-choice"]
        else:
            continue
        for value in bad_values:
            _raises(InvalidInputError, p.name, entry, game, **{p.name: value})


def check_game_kernels_agree_interpreted_and_compiled(entry: games.GameMechanism) -> None:
    """The same games both ways, on both sides of the size rule (fairlib._jit: up to 64 cells run
    interpreted), within the library's tolerances for a change of rounding order
    (:mod:`fairlib.tolerances`).

    Examples
    --------
    >>> from fairlib import games
    >>> check_game_kernels_agree_interpreted_and_compiled(games.get(games.names()[0]))
    """
    from fairlib._jit import compiled, interpreted
    from fairlib.tolerances import DEFAULT_ATOL, DEFAULT_RTOL

    for seed in range(6):
        rng = np.random.default_rng(100 + seed)
        users, machines = (int(rng.integers(2, 5)), int(rng.integers(1, 5))) if seed < 3 else (9, 8)
        game = _game(entry, uniform_preferences(rng, users, machines))
        with interpreted():
            slow = entry(game)
        with compiled():
            fast = entry(game)
        assert slow.converged == fast.converged, seed
        scale = float(game.budgets.max()) if isinstance(game, Game) else 1.0
        np.testing.assert_allclose(
            slow.bids, fast.bids, rtol=DEFAULT_RTOL, atol=DEFAULT_ATOL * scale
        )


def check_game_is_documented(entry: games.GameMechanism) -> None:
    """The registered function has a docstring with a summary line and a Returns section (a
    GameOutcome).

    Examples
    --------
    >>> from fairlib import games
    >>> check_game_is_documented(games.get(games.names()[0]))
    """
    doc = inspect.getdoc(entry.function) or ""
    assert doc.strip() and doc.splitlines()[0].strip(), (
        f"{entry.name}: its function needs a numpydoc docstring"
    )
    assert "Returns" in doc, f"{entry.name}: its docstring needs a Returns section (a GameOutcome)"


#: every rule a registered game must meet, in the order :func:`check_game` runs them
GAME_CHECKS = (
    check_game_contract_on_the_two_player_game,
    check_game_is_feasible_on_small_random_games,
    check_game_finds_the_two_player_equilibria,
    check_game_certifies_small_random_games,
    check_game_is_deterministic,
    check_game_honours_or_refuses_budgets_parallelism_and_a_reserve,
    check_game_refuses_bad_input_naming_the_argument,
    check_game_kernels_agree_interpreted_and_compiled,
    check_game_is_documented,
)


def check_game(name: str) -> None:
    """Run every check of :data:`GAME_CHECKS` that applies to one registered game; stop at the first
    failure.

    Parameters
    ----------
    name : str
        A registered game's name (:func:`fairlib.games.names`).

    Raises
    ------
    AssertionError
        The first check that fails, as ``game 'name' fails check_game_...: what went wrong``.

    Examples
    --------
    >>> from fairlib import games
    >>> check_game(games.names()[0]) is None
    True
    """
    _run_checks("game", games.get(name), GAME_CHECKS)


# ------------------------------------------------------------------------------------------- pytest


def _pairs(
    registry: ModuleType, names: Iterable[str] | None, checks: Iterable[Callable]
) -> list[tuple[str, Callable]]:
    return [
        (name, check)
        for name in (registry.names() if names is None else names)
        for check in checks
        if _applies(check, registry.get(name))
    ]


def parametrize_with_checks(
    names: Iterable[str] | None = None, *, kind: str = "mechanism"
) -> pytest.MarkDecorator:
    """A ``pytest.mark.parametrize`` over (name, check) pairs: every applicable check for each name.

    The test takes ``name`` and ``check`` and runs ``check(registry.get(name))``. Ids read
    ``drf-check_...``, so ``-k drf`` selects one mechanism's checks. pytest is imported on call, so
    fairlib never needs it.

    Parameters
    ----------
    names : iterable of str, optional
        Registered names; every registered mechanism (or game) by default, read when the decorator
        is made.
    kind : {"mechanism", "game"}, default "mechanism"
        The registry and checks: :data:`MECHANISM_CHECKS` or :data:`GAME_CHECKS`.

    Returns
    -------
    pytest.MarkDecorator
        ``pytest.mark.parametrize("name, check", pairs, ids=...)`` over every (name, applicable
        check) pair.

    Raises
    ------
    InvalidInputError
        When ``kind`` is neither ``"mechanism"`` nor ``"game"``, or ``names`` is not a non-empty
        list of distinct registered names.

    Examples
    --------
    >>> mark = parametrize_with_checks(["drf"])
    >>> mark.args[0], mark.kwargs["ids"][0]
    ('name, check', 'drf-check_converges_on_the_drf_example')
    """
    import pytest

    check_choice(kind, ("mechanism", "game"), "kind")
    registry, checks = (
        (mechanisms, MECHANISM_CHECKS) if kind == "mechanism" else (games, GAME_CHECKS)
    )
    if names is not None:
        # the tests' order is the names' (a set's would change with the hash seed, and
        # pytest-xdist's workers must collect the same order)
        names = as_labels(names, "names", allow_empty=False)
        for i, name in enumerate(names):
            try:
                registry.get(name)
            except InvalidInputError:
                raise InvalidInputError(
                    f"names[{i}] = {name!r}: not a registered {kind}; known: {registry.names()}"
                ) from None
    pairs = _pairs(registry, names, checks)
    return pytest.mark.parametrize(
        "name, check", pairs, ids=[f"{name}-{check.__name__}" for name, check in pairs]
    )
