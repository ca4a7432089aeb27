"""The registry of games and market mechanisms: name -> callable, label, colour, capabilities,
tolerance.

Every game-type mechanism follows one contract, ``game_mechanism(game, **options) -> outcome``: it
takes an instance of the type it registered (``instance``; by default a
:class:`~fairlib.market.Game`: weights ``w[user, machine]``, budgets, optional finite parallelism,
the reserve bid) and returns an outcome with the bids, what they imply and the certificate
``residual`` (for a ``Game`` a :class:`~fairlib.market.GameOutcome`, residual
:func:`~fairlib.market.nash_gap`). Another model, whose strategy space or utilities a ``Game``
cannot state (Kelly's mechanism with users who pay their bid and have no budget), registers its own
instance type (``instance=``), which builds a small instance from a weight matrix with a
``from_weights(weights, reserve=...)`` class method (:meth:`GameMechanism.example`: the warm-up and
the registry-wide checks, :mod:`fairlib.testing`, use it) and has ``n_users`` and ``n_machines``;
its outcome carries ``bids`` and ``shares`` (users × machines), ``residual``, ``converged``,
``iterations``, ``method``, ``message`` and ``extras`` as a ``GameOutcome`` does.

The registry-wide tests (``pytest -m games``), the kernel warm-up (:mod:`fairlib.repro.warm`) and
the plot colours (:func:`fairlib.repro.plotting.color`) iterate over it, so adding a game is one
function plus one :func:`register_game` call. It is the games' counterpart of
:mod:`fairlib.mechanisms` (static mechanisms on a ``Cluster``), separate because the instance, the
result and the rules differ (it refuses a static mechanism's name). The registry sits above the
mechanisms it lists: nothing in :mod:`fairlib.market` imports it.

Capabilities (what a game mechanism supports; without one, calls through the registry refuse the
feature with an :class:`~fairlib.InvalidInputError` naming it):

- ``"budgets"``: honours budgets other than 1;
- ``"parallelism"``: honours finite parallelism (``game.parallelism``: user i bids on at most k_i
  machines);
- ``"reserve"``: plays the perturbed game, a reserve bid ε > 0 on every machine (EC'05's existence
  proof). A mechanism that needs one (best-response dynamics do: a user alone on a machine has no
  best response otherwise) refuses ``reserve = 0`` naming ``reserve``;
- ``"equilibrium"``: its outcome is a Nash equilibrium whenever it says it converged: with its
  default options and infinite parallelism a converged outcome has ``residual`` at most its
  registered ``tol``, and one that did not converge says so in its ``message`` (the tests hold it to
  that on small random games, and require convergence to the known equilibrium on the EC'05
  two-player games that have a unique one).

Games from other modules join the registry when the modules named (comma-separated) in the
environment variable ``FAIRLIB_GAMES`` are imported, after the built-in ones: each calls
:func:`register_game`, and a module that registers nothing is refused, naming the variable and the
module.

>>> get("proportional_share").label, "equilibrium" in get("proportional_share").capabilities
('proportional share (best-response equilibrium)', True)
>>> # a paper's own games join these lists
>>> "proportional_share" in names("equilibrium", instance=Game)
True
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

# registrations added by fairlib.repro.scaffold name market.<name>
from . import market  # noqa: F401
from . import mechanisms
from ._validate import (
    InvalidInputError,
    _short,
    as_flag,
    as_instance,
    as_tolerance,
    result_type,
)
from .market import Game, proportional_share, weight_proportional

__all__ = [
    "GameMechanism",
    "CAPABILITIES",
    "register_game",
    "unregister_game",
    "registered",
    "get",
    "names",
    "select",
]

CAPABILITIES = frozenset({"budgets", "parallelism", "reserve", "equilibrium"})

#: the residual an ``"equilibrium"`` game is held to when it registers none
DEFAULT_TOL = 1e-6


@result_type
@dataclass(frozen=True, eq=False)
class GameMechanism:
    """A registered game mechanism, called as ``game_mechanism(game, **options)``.

    The registered ``options`` (defaults) are updated by the call's, after refusing what its
    capabilities do not cover. Entries are made by :func:`register_game`.

    Parameters
    ----------
    name : str
        Its registry name (stored as given; looked up case-insensitively).
    function : callable
        ``function(game, **options) -> GameOutcome`` (or the outcome of its own instance type).
    label : str
        Its name in legends and tables.
    color : str
        Its plot colour (a hex string).
    capabilities : frozenset of str
        From :data:`CAPABILITIES`.
    options : Mapping[str, object]
        Default options, merged under each call's (read-only).
    tol : float or None, default None
        The largest residual an ``"equilibrium"`` game's default run may leave; None: it claims no
        equilibrium.
    instance : type, default Game
        The instance type it plays (a :class:`~fairlib.market.Game`, or another model's type with a
        ``from_weights`` class method).
    """

    name: str
    function: Callable
    label: str
    color: str
    capabilities: frozenset
    options: Mapping = field(default_factory=lambda: MappingProxyType({}))
    #: the largest residual an ``"equilibrium"`` game's default run may leave (None: it claims no
    #: equilibrium)
    tol: float | None = None
    #: the instance type it plays (a ``Game``, or another model's type with a ``from_weights`` class
    #: method)
    instance: type = Game

    def __call__(self, game, **options):
        """Run the game mechanism on ``game`` with its default options updated by ``options``."""
        self.refuse_unsupported(game)
        return self.function(game, **{**self.options, **options})

    def example(self, weights: ArrayLike, *, reserve: float = 0.0, **kwargs: Any) -> Any:
        """A small instance of the type this mechanism plays, built from a weight matrix.

        ``Game(weights, reserve=reserve, **kwargs)``, or the instance type's ``from_weights(weights,
        reserve=reserve)`` (which states no budgets and no parallelism).

        Parameters
        ----------
        weights : array_like
            Shape (n_users, n_machines): each user's weight (value) for each machine, >= 0.
        reserve : float, default 0.0
            The reserve bid ε on every machine, in the range the instance type documents (a
            ``Game``'s: 0, or within a factor :data:`~fairlib._validate.MONEY_RATIO`, 1e12, of the
            largest budget).
        **kwargs
            Further :class:`~fairlib.market.Game` arguments (``budgets``, ``parallelism``); ignored
            by another instance type.

        Returns
        -------
        object
            The instance: a :class:`~fairlib.market.Game`, or one of the registered instance type.
        """
        if self.instance is Game:
            return Game(weights, reserve=reserve, **kwargs)
        return self.instance.from_weights(weights, reserve=reserve)

    def refuse_unsupported(self, game: object) -> None:
        """Raise naming the first feature of ``game`` this mechanism's capabilities do not cover.

        Parameters
        ----------
        game : Game or object
            The instance to play: a :class:`~fairlib.market.Game`, or one of the mechanism's own
            instance type.

        Raises
        ------
        InvalidInputError
            When ``game`` is of another type than the one it plays, or has budgets other than 1,
            finite parallelism or a reserve without the matching capability.
        """
        as_instance(game, self.instance, "game")
        if self.instance is not Game:
            if "reserve" not in self.capabilities and getattr(game, "reserve", 0.0) != 0.0:
                raise InvalidInputError(
                    f"game.reserve = {game.reserve!r}: {self.name} plays the game without a "
                    f"reserve (no 'reserve' capability); games that do: {names('reserve')}"
                )
            return
        if "budgets" not in self.capabilities and (game.budgets != 1.0).any():
            i = int(np.argmax(game.budgets != 1.0))
            raise InvalidInputError(
                f"game.budgets[{i}] = {float(game.budgets[i])!r}: {self.name} has no budgets (no "
                f"'budgets' capability); games that do: {names('budgets')}"
            )
        if "parallelism" not in self.capabilities and game.parallelism is not None:
            raise InvalidInputError(
                f"game.parallelism[0] = {int(game.parallelism[0])}: {self.name} assumes infinite "
                f"parallelism (no 'parallelism' capability); games that do: "
                f"{names('parallelism')}"
            )
        if "reserve" not in self.capabilities and game.reserve != 0.0:
            raise InvalidInputError(
                f"game.reserve = {game.reserve!r}: {self.name} plays the game without a "
                f"reserve (no 'reserve' capability); games that do: {names('reserve')}"
            )


_REGISTRY: dict[str, GameMechanism] = {}


def register_game(
    name: str,
    function: Callable,
    *,
    label: str | None = None,
    color: str | None = None,
    capabilities: Iterable[str] = (),
    options: Mapping[str, Any] | None = None,
    tol: float | None = None,
    replace: bool = False,
    instance: type = Game,
) -> GameMechanism:
    """Add a game mechanism ``function(game, **options) -> GameOutcome`` under ``name``.

    Parameters
    ----------
    name : str
        Its name (case-insensitive), not a registered static mechanism's
        (:mod:`fairlib.mechanisms`).
    function : callable
        ``function(game, **options) -> GameOutcome``.
    label, color : str, optional
        Its name in legends and tables, and its colour (default: the name, and a colour fixed by the
        name).
    capabilities : iterable of str
        From :data:`CAPABILITIES`.
    options : mapping, optional
        Default options, merged under each call's.
    tol : float, optional
        With ``"equilibrium"``: the largest residual its default run may leave (default
        :data:`DEFAULT_TOL`).
    replace : bool
        Re-registering a name needs ``replace=True``.
    instance : type
        The instance type it plays (default :class:`~fairlib.market.Game`); another type needs a
        ``from_weights(weights, reserve=...)`` class method, and the ``"budgets"`` and
        ``"parallelism"`` capabilities are a ``Game``'s only.

    Returns
    -------
    GameMechanism
        The registered entry.

    Examples
    --------
    >>> with registered(
    ...     "even_split", lambda game: weight_proportional(Game(np.ones(game.weights.shape)))
    ... ):
    ...     "even_split" in names()
    True
    """
    mechanisms._check_name(name, "name")
    if not callable(function):
        raise InvalidInputError(
            f"function = {_short(function)}: {name!r} needs a callable, got "
            f"{type(function).__name__}"
        )
    mechanisms._check_display(label, color)
    replace = as_flag(replace, "replace")
    if options is not None:
        as_instance(options, Mapping, "options")
    mechanisms._check_callable_with(function, name, dict(options or {}), "game")
    caps = mechanisms._capability_set(capabilities, CAPABILITIES, name)
    if tol is not None and "equilibrium" not in caps:
        raise InvalidInputError(
            f"tol = {tol!r}: {name!r} claims no equilibrium (no 'equilibrium' in capabilities = "
            f"{sorted(caps)})"
        )
    if "equilibrium" in caps:
        tol = as_tolerance(DEFAULT_TOL if tol is None else tol, "tol")
    if not isinstance(instance, type) or (
        instance is not Game and not callable(getattr(instance, "from_weights", None))
    ):
        raise InvalidInputError(
            f"instance = {_short(instance)}: {name!r} needs Game or a type with a from_weights "
            "class method"
        )
    if instance is not Game and caps & {"budgets", "parallelism"}:
        raise InvalidInputError(
            f"capabilities: {sorted(caps & {'budgets', 'parallelism'})} are a Game's; "
            f"{name!r} plays a {instance.__name__}"
        )
    if name.lower() in _REGISTRY and not replace:
        raise InvalidInputError(
            f"name = {name!r}: already registered as a game (replace=True to override)"
        )
    try:
        mechanisms.get(name)
    except InvalidInputError:
        pass
    else:
        raise InvalidInputError(
            f"name = {name!r}: registered as a static mechanism (fairlib.mechanisms); choose "
            "another name"
        )
    game = GameMechanism(
        name,
        function,
        label or name,
        color or mechanisms._fallback_color(name),
        caps,
        MappingProxyType(dict(options or {})),
        tol,
        instance,
    )
    _REGISTRY[name.lower()] = game
    return game


def unregister_game(name: str) -> None:
    """Remove a registered game mechanism.

    Parameters
    ----------
    name : str
        Its registered name (case-insensitive).

    Raises
    ------
    InvalidInputError
        When ``name`` is not registered as a game.
    """
    get(name)
    del _REGISTRY[name.lower()]


@contextlib.contextmanager
def registered(name: str, function: Callable, **kwargs: Any) -> Iterator[GameMechanism]:
    """Register a game mechanism for the duration of a ``with`` block (tests, one-off comparisons).

    Parameters
    ----------
    name : str
        Its name, as for :func:`register_game`.
    function : callable
        ``function(game, **options) -> GameOutcome``.
    **kwargs
        The other arguments of :func:`register_game` (``label``, ``capabilities``, ``tol``, ...).

    Yields
    ------
    GameMechanism
        The registered entry; it is removed when the block ends.
    """
    game = register_game(name, function, **kwargs)
    try:
        yield game
    finally:
        _REGISTRY.pop(name.lower(), None)


def get(name: str) -> GameMechanism:
    """The game mechanism registered as ``name`` (case-insensitive).

    Parameters
    ----------
    name : str
        A registered game's name, e.g. ``"proportional_share"``.

    Returns
    -------
    GameMechanism
        The registry entry.

    Raises
    ------
    InvalidInputError
        When ``name`` is not a string or not registered as a game.

    Examples
    --------
    >>> get("Weight_Proportional").name
    'weight_proportional'
    """
    if not isinstance(name, str):
        raise InvalidInputError(
            f"name = {_short(name)}: expected a registered game's name (str), got "
            f"{type(name).__name__}"
        )
    if name.lower() in _REGISTRY:
        return _REGISTRY[name.lower()]
    raise InvalidInputError(f"name = {name!r}: not registered as a game; known: {list(_REGISTRY)}")


def select(*capabilities: str, instance: type | None = None) -> list[GameMechanism]:
    """Registered game mechanisms having every capability given, in registration order.

    Parameters
    ----------
    *capabilities : str
        Capabilities from :data:`CAPABILITIES`; none selects every game.
    instance : type or None, default None
        Only the games playing this instance type; None: any.

    Returns
    -------
    list of GameMechanism
        The matching entries.

    Raises
    ------
    InvalidInputError
        On an unknown capability, or an ``instance`` that is not a type.
    """
    for i, capability in enumerate(capabilities):
        if not isinstance(capability, str):  # a list passed for *capabilities, e.g. select(["x"])
            raise InvalidInputError(
                f"capabilities[{i}] = {capability!r}: each capability is a name, passed as its own "
                "argument (select('a', 'b'), or select(*names))"
            )
    unknown = sorted(set(capabilities) - CAPABILITIES)
    if unknown:
        raise InvalidInputError(f"capabilities: {unknown} unknown; known: {sorted(CAPABILITIES)}")
    if instance is not None and not isinstance(instance, type):
        raise InvalidInputError(
            f"instance = {_short(instance)}: must be an instance type (Game, or a game model's "
            "own) or None"
        )
    return [
        g
        for g in _REGISTRY.values()
        if set(capabilities) <= g.capabilities and (instance is None or g.instance is instance)
    ]


def names(*capabilities: str, instance: type | None = None) -> list[str]:
    """Names of the game mechanisms :func:`select` returns.

    Parameters
    ----------
    *capabilities : str
        Capabilities from :data:`CAPABILITIES`; none selects every game.
    instance : type or None, default None
        Only the games playing this instance type; None: any.

    Returns
    -------
    list of str
        Their registered names, in registration order.
    """
    return [g.name for g in select(*capabilities, instance=instance)]


# --- the games of the papers ----------------------------------------------------------------------

register_game(
    "proportional_share",
    proportional_share,
    label="proportional share (best-response equilibrium)",
    color=mechanisms._OKABE_ITO["blue"],
    capabilities=("budgets", "parallelism", "reserve", "equilibrium"),
    tol=1e-8,
)
register_game(
    "weight_proportional",
    weight_proportional,
    label="weight-proportional",
    color=mechanisms._OKABE_ITO["bluish_green"],
    capabilities=("budgets", "parallelism", "reserve"),
)
# new games are registered above this line (python -m fairlib.repro.scaffold mechanism NAME --game
# ...)


mechanisms.load_plugins("FAIRLIB_GAMES", _REGISTRY, "game")
