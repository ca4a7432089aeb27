"""The registry of static mechanisms: name -> callable, label, colour, capabilities.

Every static mechanism follows one contract, ``mechanism(cluster, **options) -> Allocation`` with
``tasks[user, server]`` (a single pool is ``Cluster.single_pool(capacity, demand)``). The property
tables (:func:`fairlib.repro.experiments.heterogeneous_servers.property_table`;
:func:`fairlib.properties.mechanism_properties` takes a registered name), the trace replays
(:func:`fairlib.sim.replay` takes any registered name, :func:`fairlib.sim.snapshot_utilisation`
defaults to every ``multi_server`` mechanism), the benchmark of every mechanism
(``benchmarks/bench_mechanisms.py``), the kernel warm-up (:mod:`fairlib.repro.warm`), the plot
colours (:func:`fairlib.repro.plotting.color`) and the registry-wide tests (``pytest -m registry``)
iterate over it, so adding a mechanism is one function plus one :func:`register` call. The registry
sits above the mechanisms it lists: nothing in :mod:`fairlib.multires` imports it. Games and market
mechanisms (a ``Game`` in, a ``GameOutcome`` out) have a registry of their own,
:mod:`fairlib.games`.

Capabilities (what a mechanism supports, used to select them and to choose the tests it must pass):

- ``"pooled"``: allocates a single pool (a one-server cluster); ``"multi_server"``: any cluster,
  placement constraints honoured (``"placement_aware"``: it uses them in its fairness criterion, not
  only as feasibility);
- ``"integral"``: whole tasks; ``"divisible"``: real task counts;
- ``"weights"``: honours the cluster's weights (others refuse weights other than 1);
- ``"prices"``: reports market prices in ``extras["prices"]``;
- ``"start"``: continues from held tasks, ``mechanism(cluster, start=held)``, never taking any back
  (a pooled mechanism without it refuses ``start=`` with an :class:`~fairlib.InvalidInputError`
  saying why).

Mechanisms from other modules join the registry when the modules named (comma-separated) in the
environment variable ``FAIRLIB_MECHANISMS`` are imported, after the built-in ones: each calls
:func:`register`, and a module that registers nothing is refused, naming the variable and the
module. The tables, replays, benchmarks and tests then include them with no other edit.

>>> get("psdsf").label, "placement_aware" in get("psdsf").capabilities
('PS-DSF', True)
>>> "pdrf" in names("pooled") and "pdrf" not in names("start") and "drf" in names("start")
True
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib
import inspect
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

# registrations added by fairlib.repro.scaffold name multires.<name>
from . import multires  # noqa: F401
from ._validate import (
    InvalidInputError,
    _short,
    as_flag,
    check_shown_text,
    as_instance,
    as_sequence,
    result_type,
    as_text,
)
from .multires import (
    asset_fairness,
    ceei,
    drf,
    drf_machine_offers,
    drfh,
    drfh_best_fit,
    edrf,
    pdrf,
    pfvds,
    psdsf,
    tsf,
)

if TYPE_CHECKING:
    from .multires import Cluster

__all__ = [
    "Mechanism",
    "ByServer",
    "CAPABILITIES",
    "register",
    "unregister",
    "registered",
    "get",
    "names",
    "select",
    "runs",
    "resolve",
    "resolve_runs",
]

CAPABILITIES = frozenset(
    {
        "pooled",
        "multi_server",
        "placement_aware",
        "integral",
        "divisible",
        "weights",
        "prices",
        "start",
    }
)

#: the Okabe–Ito palette, as in fairlib.repro.plotting.OKABE_ITO (not imported: the registry must
#: not load matplotlib)
_OKABE_ITO = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "bluish_green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish_purple": "#CC79A7",
}


@result_type
@dataclass(frozen=True)
class ByServer:
    """An option value given per server, by cycling ``values`` over the servers; resolved on the
    cluster at the call.

    E.g. α = 1, 2, 4, 1, ... for PF-VDS with heterogeneous α.

    Parameters
    ----------
    values : tuple of float
        The values, cycled over the servers in index order.
    """

    values: tuple

    def sweep_key(self) -> dict:
        """A canonical description for :mod:`fairlib.sweep`'s cache keys.

        Returns
        -------
        dict
            ``{"by_server": [values...]}``.
        """
        return {"by_server": list(self.values)}

    def resolve(self, cluster: Cluster) -> npt.NDArray[np.float64]:
        """The values cycled over ``cluster``'s servers.

        Parameters
        ----------
        cluster : Cluster
            The cluster the mechanism is called on.

        Returns
        -------
        numpy.ndarray
            Float64, shape (n_servers,): ``values[s % len(values)]`` for server s.

        Raises
        ------
        InvalidInputError
            When ``cluster`` is not a :class:`~fairlib.multires.Cluster`.
        """
        from .multires import Cluster

        as_instance(cluster, Cluster, "cluster")
        return np.resize(np.asarray(self.values, dtype=np.float64), cluster.n_servers)


@result_type
@dataclass(frozen=True, eq=False)
class Mechanism:
    """A registered mechanism, called as ``mechanism(cluster, **options)``.

    ``options`` (defaults) and each variant's options are merged under the call's. Entries are made
    by :func:`register`.

    Parameters
    ----------
    name : str
        Its registry name (stored as given; looked up case-insensitively).
    function : callable
        ``function(cluster, **options) -> Allocation``.
    label : str
        Its name in legends and tables.
    color : str
        Its plot colour (a hex string).
    capabilities : frozenset of str
        From :data:`CAPABILITIES`.
    options : Mapping[str, object]
        Default options, merged under each call's (read-only).
    variants : Mapping[str, Mapping[str, object]]
        Named runs with fixed options (e.g. PF-VDS at several α; values may be :class:`ByServer`);
        empty: the mechanism runs once as ``name``.
    """

    name: str
    function: Callable
    label: str
    color: str
    capabilities: frozenset
    options: Mapping = field(default_factory=lambda: MappingProxyType({}))
    #: named runs with fixed options (e.g. PF-VDS at several α); empty: the mechanism runs once as
    #: ``name``
    variants: Mapping = field(default_factory=lambda: MappingProxyType({}))

    def __call__(self, cluster, **options):
        """Run the mechanism on ``cluster`` with its default options updated by ``options``."""
        if (
            options.get("start") is not None
            and "start" not in self.capabilities
            and not _accepts(self.function, "start")
        ):
            raise InvalidInputError(
                f"start: {self.name} does not continue from held tasks (no 'start' capability); "
                f"mechanisms that do: {names('start')}"
            )
        merged = {**self.options, **options}
        merged = {
            k: v.resolve(cluster) if isinstance(v, ByServer) else v for k, v in merged.items()
        }
        return self.function(cluster, **merged)

    def sweep_key(self) -> dict:
        """A description for :mod:`fairlib.sweep`'s seeds and cache keys (the function is keyed by
        its code).

        Returns
        -------
        dict
            The mechanism's name, function and default options.
        """
        return {"mechanism": self.name, "function": self.function, "options": dict(self.options)}

    def runs(self) -> dict[str, Callable]:
        """The mechanism's runs: its variants, or the mechanism itself under its name.

        Returns
        -------
        dict of str to callable
            Run name -> callable of a cluster (a variant's options bound by
            :func:`functools.partial`).
        """
        if not self.variants:
            return {self.name: self}
        return {name: functools.partial(self, **opts) for name, opts in self.variants.items()}


_REGISTRY: dict[str, Mechanism] = {}


def _accepts(function: Callable, option: str) -> bool:
    """Whether ``function`` takes the keyword ``option`` (by name or through ``**kwargs``)."""
    try:
        params = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature: assume it does
        return True
    return any(p.name == option or p.kind is p.VAR_KEYWORD for p in params)


def _check_callable_with(
    function: Callable, name: str, options: Mapping[str, Any], what: str
) -> None:
    """Refuse a ``function`` that cannot be called as ``function(instance, **options)``: a
    zero-argument callable or one missing an option's keyword would be registered, then fail (or,
    with defaults, answer something else) at its first run, far from the mistake."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):  # a builtin without a signature: nothing to check
        return
    try:
        signature.bind(object(), **options)
    except TypeError as exc:
        raise InvalidInputError(
            f"function = {_short(function)}: {name!r} must be callable as "
            f"function({what}, **options) with options {sorted(options)}, but {exc}"
        ) from None


def _fallback_color(name: str) -> str:
    """A colour for a mechanism registered without one: fixed by its name (the same in every
    process)."""
    palette = [c for k, c in _OKABE_ITO.items() if k != "yellow"]  # yellow is too light on white
    return palette[int(hashlib.sha256(name.encode()).hexdigest(), 16) % len(palette)]


def _check_display(label, color) -> None:
    """``label`` and ``color`` of a registration: None, or text that is a legend's entry (not
    blank nor invisible, no control character: :func:`~fairlib._validate.check_shown_text`) and a
    matplotlib colour (``matplotlib.colors.is_color_like``)."""
    from matplotlib.colors import is_color_like

    for argument, value in (("label", label), ("color", color)):
        if value is not None and not isinstance(value, str):
            raise InvalidInputError(
                f"{argument} = {_short(value)}: expected text or None, got {type(value).__name__}"
            )
    if label is not None:
        check_shown_text(label, "label", what="a label is a legend entry")
    if color is not None and not is_color_like(color):
        raise InvalidInputError(
            f"color = {color!r}: not a matplotlib colour (a name such as 'tab:blue', or '#0072b2')"
        )


def _check_name(name, argument: str) -> None:
    """A registered name (a mechanism's, a game's, a variant's): non-empty text without surrounding
    spaces, that shows (not only invisible characters) and holds no control character."""
    if not isinstance(name, str) or not name or name != name.strip():
        raise InvalidInputError(
            f"{argument} = {_short(name)}: must be a non-empty string without surrounding spaces"
        )
    check_shown_text(name, argument, what="a name is shown text")


def _check_variants(variants, function: Callable, name: str, options: Mapping) -> dict:
    """``variants`` of a registration: a mapping of run names (each a name for :func:`_check_name`,
    distinct case-insensitively, no other mechanism's) to option mappings the function takes."""
    if variants is None:
        return {}
    as_instance(variants, Mapping, "variants")
    seen: dict[str, str] = {}
    for run, opts in variants.items():
        _check_name(run, "variants key")
        if run.lower() in seen:
            raise InvalidInputError(
                f"variants: {seen[run.lower()]!r} and {run!r} name one run (names are "
                "case-insensitive)"
            )
        seen[run.lower()] = run
        as_instance(opts, Mapping, f"variants[{run!r}]")
        _check_callable_with(function, name, {**options, **opts}, "cluster")
    clash = [v for v in variants if v.lower() in _REGISTRY and v.lower() != name.lower()]
    if clash:
        raise InvalidInputError(f"variants: {clash} are registered mechanisms' names")
    return dict(variants)


def _capability_set(capabilities: object, known: frozenset, name: str) -> frozenset:
    """``capabilities``, an iterable of names among ``known``, as a frozenset: the one reading of a
    registration's capabilities for mechanisms and games (games pass their own ``known``)."""
    caps = frozenset(
        as_sequence(
            capabilities,
            "capabilities",
            what="expected an iterable of capability names (text)",
            ordered=False,
        )
    )
    if not all(isinstance(c, str) for c in caps):
        raise InvalidInputError(
            f"capabilities = {_short(capabilities)}: every capability is a name (text)"
        )
    unknown = sorted(caps - known)
    if unknown:
        raise InvalidInputError(
            f"capabilities: {unknown} unknown for {name!r}; known: {sorted(known)}"
        )
    return caps


def register(
    name: str,
    function: Callable,
    *,
    label: str | None = None,
    color: str | None = None,
    capabilities: Iterable[str] = (),
    options: Mapping[str, Any] | None = None,
    variants: Mapping[str, Mapping[str, Any]] | None = None,
    replace: bool = False,
) -> Mechanism:
    """Add a mechanism ``function(cluster, **options) -> Allocation`` under ``name``.

    Parameters
    ----------
    name : str
        Its name (case-insensitive), a non-empty string without surrounding spaces.
    function : callable
        ``function(cluster, **options) -> Allocation``.
    label : str or None, default None
        Its name in legends and tables (default: ``name``).
    color : str or None, default None
        Its plot colour (default: an Okabe–Ito colour fixed by the name).
    capabilities : iterable of str, default ()
        From :data:`CAPABILITIES`; it needs ``"pooled"`` or ``"multi_server"``, and ``"start"``
        needs a function that takes ``start=``.
    options : Mapping[str, object] or None, default None
        Default options, merged under each call's.
    variants : Mapping[str, Mapping[str, object]] or None, default None
        Run names -> options (values may be :class:`ByServer`); a run name may not be another
        mechanism's name.
    replace : bool, default False
        Re-registering a name needs ``replace=True``.

    Returns
    -------
    Mechanism
        The registered entry.

    Raises
    ------
    InvalidInputError
        On an empty name, a function that is not callable as ``function(cluster, **options)``
        (with each variant's options too), a blank label (or one of invisible characters, or
        holding a control character), a colour matplotlib does not know,
        unknown or inconsistent capabilities, a name already registered (without ``replace``), or
        variants that are not a mapping of run names (non-empty, distinct case-insensitively, no
        other mechanism's) to option mappings.
    """
    _check_name(name, "name")
    if not callable(function):
        raise InvalidInputError(
            f"function = {_short(function)}: {name!r} needs a callable, got "
            f"{type(function).__name__}"
        )
    _check_display(label, color)
    replace = as_flag(replace, "replace")
    if options is not None:
        as_instance(options, Mapping, "options")
    _check_callable_with(function, name, dict(options or {}), "cluster")
    caps = _capability_set(capabilities, CAPABILITIES, name)
    if not caps & {"pooled", "multi_server"}:
        raise InvalidInputError(f"capabilities: {name!r} must declare 'pooled' or 'multi_server'")
    if "start" in caps and not _accepts(function, "start"):
        raise InvalidInputError(
            f"capabilities: {name!r} declares 'start' but its function takes no start= argument"
        )
    if name.lower() in _REGISTRY and not replace:
        raise InvalidInputError(f"name = {name!r}: already registered (replace=True to override)")
    variants = _check_variants(variants, function, name, dict(options or {}))
    mech = Mechanism(
        name,
        function,
        label or name,
        color or _fallback_color(name),
        caps,
        MappingProxyType(dict(options or {})),
        MappingProxyType({k: MappingProxyType(dict(v)) for k, v in variants.items()}),
    )
    _REGISTRY[name.lower()] = mech
    return mech


def unregister(name: str) -> None:
    """Remove a registered mechanism.

    Parameters
    ----------
    name : str
        Its registered name (case-insensitive).

    Raises
    ------
    InvalidInputError
        When ``name`` is not registered.
    """
    get(name)
    del _REGISTRY[name.lower()]


@contextlib.contextmanager
def registered(name: str, function: Callable, **kwargs: Any) -> Iterator[Mechanism]:
    """Register a mechanism for the duration of a ``with`` block (tests, one-off comparisons).

    Parameters
    ----------
    name : str
        Its name, as for :func:`register`.
    function : callable
        ``function(cluster, **options) -> Allocation``.
    **kwargs
        The other arguments of :func:`register` (``label``, ``capabilities``, ``options``, ...).

    Yields
    ------
    Mechanism
        The registered entry; it is removed when the block ends.
    """
    mech = register(name, function, **kwargs)
    try:
        yield mech
    finally:
        _REGISTRY.pop(name.lower(), None)


def get(name: str) -> Mechanism:
    """The mechanism registered as ``name`` (case-insensitive) or as one of its variants.

    Parameters
    ----------
    name : str
        A registered mechanism's name (``"drf"``) or a variant's (``"pfvds_2"``).

    Returns
    -------
    Mechanism
        The registry entry (for a variant, the mechanism it belongs to).

    Raises
    ------
    InvalidInputError
        When ``name`` is not a string or not registered.
    """
    return _lookup(name, "name")


def _lookup(name, argument: str) -> Mechanism:
    """:func:`get`, with the caller's argument named in the error."""
    if not isinstance(name, str):
        raise InvalidInputError(
            f"{argument} = {_short(name)}: expected a registered mechanism's name (str), got "
            f"{type(name).__name__}"
        )
    key = name.lower()
    if key in _REGISTRY:
        return _REGISTRY[key]
    for mech in _REGISTRY.values():
        if key in (v.lower() for v in mech.variants):
            return mech
    raise InvalidInputError(
        f"{argument} = {name!r}: not registered as a mechanism; known: {list(_REGISTRY)}"
    )


def _run_of(name, argument: str) -> Callable:
    """The run registered as ``name``: a mechanism, or one of its variants with its options bound
    (:meth:`Mechanism.runs`), with the caller's argument named in the error."""
    mech = _lookup(name, argument)
    if name.lower() == mech.name.lower():
        return mech
    return next(run for key, run in mech.runs().items() if key.lower() == name.lower())


def select(*capabilities: str) -> list[Mechanism]:
    """Registered mechanisms having every capability given, in registration order.

    Parameters
    ----------
    *capabilities : str
        Capabilities from :data:`CAPABILITIES`; none selects every mechanism.

    Returns
    -------
    list of Mechanism
        The matching entries.

    Raises
    ------
    InvalidInputError
        On an unknown capability.
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
    return [m for m in _REGISTRY.values() if set(capabilities) <= m.capabilities]


def names(*capabilities: str) -> list[str]:
    """Names of the mechanisms :func:`select` returns.

    Parameters
    ----------
    *capabilities : str
        Capabilities from :data:`CAPABILITIES`; none selects every mechanism.

    Returns
    -------
    list of str
        Their registered names, in registration order.
    """
    return [m.name for m in select(*capabilities)]


def runs(*capabilities: str) -> dict[str, Callable]:
    """Every run (variants expanded) of the mechanisms having ``capabilities``.

    Parameters
    ----------
    *capabilities : str
        Capabilities from :data:`CAPABILITIES`; none selects every mechanism.

    Returns
    -------
    dict of str to callable
        Run name -> callable of a cluster, in registration order.
    """
    out: dict[str, Callable] = {}
    for mech in select(*capabilities):
        out.update(mech.runs())
    return out


def resolve(mechanism: str | Callable | None, name: str = "mechanism") -> Callable | None:
    """A registered name resolved to its mechanism; a callable ``cluster -> Allocation`` (and None)
    passes through.

    Parameters
    ----------
    mechanism : str, callable or None
        A registered name, a callable of a cluster, or None.
    name : str, default "mechanism"
        The caller's argument name, used in the error message.

    Returns
    -------
    Mechanism, callable or None
        The registry entry for a mechanism's name, the run for a variant's (its options bound,
        :meth:`Mechanism.runs`); ``mechanism`` itself otherwise.

    Raises
    ------
    InvalidInputError
        When ``mechanism`` is an unknown name or neither a name, a callable nor None, or ``name`` is
        not a string.
    """
    as_text(name, "name", what="the argument's name, shown in messages")
    if mechanism is None or callable(mechanism):
        return mechanism
    if isinstance(mechanism, str):
        return _run_of(mechanism, name)
    raise InvalidInputError(
        f"{name} = {_short(mechanism)}: expected a registered name or a callable Cluster -> "
        f"Allocation, got {type(mechanism).__name__}"
    )


def resolve_runs(
    mechanisms: Mapping[str, Callable] | Iterable[str] | None, *capabilities: str
) -> dict[str, Callable]:
    """Runs by name from a mapping, a list of registered names, or None.

    Parameters
    ----------
    mechanisms : Mapping[str, callable], iterable of str, str or None
        A mapping name -> callable of a cluster (kept), registered names (one name: a str), or None
        (every run of the mechanisms having ``capabilities``, :func:`runs`).
    *capabilities : str
        With ``mechanisms=None``: the capabilities the runs' mechanisms need.

    Returns
    -------
    dict of str to callable
        Run name -> callable of a cluster.

    Raises
    ------
    InvalidInputError
        On a mapping key that is not a name (non-empty text without surrounding spaces), a mapping
        value that is not callable, an unknown or repeated name (names are case-insensitive:
        ``["edrf", "EDRF"]`` repeats one), or an argument of another kind.
    """
    if mechanisms is None:
        return runs(*capabilities)
    if isinstance(mechanisms, Mapping):
        label = next((name for name in mechanisms if not isinstance(name, str)), None)
        if label is not None:
            raise InvalidInputError(
                f"mechanisms: key {_short(label)} must be text (the label of its rows), got "
                f"{type(label).__name__}"
            )
        for label in mechanisms:
            _check_name(label, "mechanisms key")
        bad = next(((name, fn) for name, fn in mechanisms.items() if not callable(fn)), None)
        if bad is not None:
            raise InvalidInputError(
                f"mechanisms[{bad[0]!r}] = {_short(bad[1])}: expected a callable of a cluster"
            )
        return dict(mechanisms)
    if isinstance(mechanisms, str):
        mechanisms = [mechanisms]  # one name, not its letters
    # in order (the rows' order), read once
    mechanisms = as_sequence(
        mechanisms,
        "mechanisms",
        what="expected a list of registered names, a dict name -> callable, or None",
    )
    resolved: dict[str, Callable] = {}
    first: dict[str, int] = {}
    for i, name in enumerate(mechanisms):
        run = _run_of(name, f"mechanisms[{i}]")
        # names are case-insensitive: "edrf" and "EDRF" are two rows of one mechanism
        if str(name).lower() in first:
            raise InvalidInputError(
                f"mechanisms[{i}] = {name!r}: repeated (mechanisms[{first[str(name).lower()]}] "
                "names the same run; each mechanism once, names are case-insensitive)"
            )
        first[str(name).lower()] = i
        resolved[str(name)] = run
    return resolved


# --- the mechanisms of the papers reproduced ------------------------------------------------------

register(
    "drf",
    drf,
    label="DRF (progressive filling)",
    color=_OKABE_ITO["blue"],
    capabilities=("pooled", "integral", "weights", "start"),
)
register(
    "edrf",
    edrf,
    label="EDRF",
    color=_OKABE_ITO["bluish_green"],
    capabilities=("pooled", "divisible", "weights", "start"),
)
register(
    "pdrf", pdrf, label="PDRF", color=_OKABE_ITO["vermillion"], capabilities=("pooled", "integral")
)
register(
    "asset_fairness",
    asset_fairness,
    label="asset fairness",
    color="#666666",
    capabilities=("pooled", "divisible", "weights", "start"),
)
register(
    "ceei",
    ceei,
    label="CEEI",
    color=_OKABE_ITO["reddish_purple"],
    capabilities=("pooled", "divisible", "weights", "prices", "start"),
)
register(
    "drfh",
    drfh,
    label="DRFH",
    color=_OKABE_ITO["orange"],
    capabilities=("multi_server", "divisible", "weights"),
)
register(
    "tsf",
    tsf,
    label="TSF",
    color=_OKABE_ITO["sky_blue"],
    capabilities=("multi_server", "placement_aware", "divisible", "weights"),
)
register(
    "psdsf",
    psdsf,
    label="PS-DSF",
    color=_OKABE_ITO["vermillion"],
    capabilities=("multi_server", "placement_aware", "divisible", "weights"),
)
register(
    "pfvds",
    pfvds,
    label="PF-VDS",
    color=_OKABE_ITO["blue"],
    capabilities=("multi_server", "placement_aware", "divisible", "weights"),
    options={"alpha": 1.0},
    # the α of the paper's comparisons (§6); 1_2_4: α_i = 1, 2, 4, 1, ... by server index
    # (Theorem 3, §3)
    variants={
        "pfvds_0.5": {"alpha": 0.5},
        "pfvds_1": {"alpha": 1.0},
        "pfvds_2": {"alpha": 2.0},
        "pfvds_4": {"alpha": 4.0},
        "pfvds_1_2_4": {"alpha": ByServer((1.0, 2.0, 4.0))},
    },
)
# the DRFH paper's own scheduler: task by task, each on the best-fitting server (never run on merged
# servers)
register(
    "drfh_best_fit",
    drfh_best_fit,
    label="DRFH (Best-Fit)",
    color=_OKABE_ITO["bluish_green"],
    capabilities=("multi_server", "divisible", "weights"),
)
# pooled DRF as offer-based schedulers (Mesos, YARN) run it: machine by machine, users in DRF order
# (never merged)
register(
    "drf_machine_offers",
    drf_machine_offers,
    label="DRF (machine offers)",
    color=_OKABE_ITO["reddish_purple"],
    capabilities=("multi_server", "weights"),
)
# new mechanisms are registered above this line (python -m fairlib.repro.scaffold mechanism NAME
# ...)


#: a module's name as ``import`` takes it: dotted identifiers (a file path is none)
_MODULE_NAME = r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*"


def load_plugins(variable: str, registry: Mapping[str, object], what: str) -> None:
    """Import each module named in the environment variable ``variable`` (comma-separated;
    ``FAIRLIB_MECHANISMS``, ``FAIRLIB_GAMES``): each registers its mechanisms or games in
    ``registry``.

    Every failure is an :class:`~fairlib._validate.InvalidInputError` naming the variable: an empty
    entry (``","``, ``" "``; an empty value names no plugin), a name that is not a module's
    (``./plugin.py``, which ``importlib`` refused with a TypeError naming neither), a module named
    twice, a module that cannot be imported, one whose import raises, and one that registers nothing
    (a typo for another module, or a module of the other registry), which would leave the tables
    without its entries, silently. A module that is being imported as this runs (it imported
    fairlib itself, which loads the plugins) registers after it, and is not checked.

    Parameters
    ----------
    variable : str
        The environment variable.
    registry : mapping of str to object
        The registry its modules register in.
    what : str
        What they register (``"mechanism"``, ``"game"``), for the message.

    Raises
    ------
    InvalidInputError
        Naming the variable, when an entry is empty (``","``, ``" "``, ``"a,,b"``; an empty value is
        no plugins), is not a dotted module name or is named twice, or its module cannot be
        imported, its import fails (the original error chained) or it registers nothing.
    """
    import re
    import sys

    value = os.environ.get(variable, "")
    seen: list[str] = []
    for i, part in enumerate(value.split(",") if value else []):  # empty: no plugins
        module = part.strip()
        if not module:
            # ",", " " and "a,,b" were read as fewer plugins, silently
            raise InvalidInputError(
                f"{variable} = {value!r}: entry {i} is empty (module names are separated by one "
                "comma, with none before the first or after the last)"
            )
        if not re.fullmatch(_MODULE_NAME, module):
            raise InvalidInputError(
                f"{variable} = {value!r}: {module!r} is not a module name (dotted Python "
                "identifiers, e.g. mypackage.plugins; a file path is none: put its folder on "
                "PYTHONPATH)"
            )
        if module in seen:
            raise InvalidInputError(f"{variable} = {value!r}: {module!r} is named twice")
        seen.append(module)
        before = dict(registry)
        try:
            imported = importlib.import_module(module)
        except ImportError as exc:
            raise InvalidInputError(
                f"{variable} names {module!r}, which cannot be imported: {exc}"
            ) from exc
        except Exception as exc:  # the plugin's own code failed: say which variable loaded it
            raise InvalidInputError(
                f"{variable} names {module!r}, whose import failed: {type(exc).__name__}: {exc}"
            ) from exc
        # a module that imported fairlib before registering is still running its own import here
        # (importlib marks its spec ``_initializing``): its registrations come when it resumes
        spec = getattr(sys.modules.get(module, imported), "__spec__", None)
        if getattr(spec, "_initializing", False):
            continue
        changed = len(registry) != len(before) or any(
            registry.get(name) is not entry for name, entry in before.items()
        )
        if not changed:
            raise InvalidInputError(
                f"{variable} names {module!r}, which registers no {what}: a plugin module "
                f"registers its {what}s when imported"
            )


load_plugins("FAIRLIB_MECHANISMS", _REGISTRY, "mechanism")
