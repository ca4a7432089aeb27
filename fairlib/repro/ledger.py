"""The claims ledger: every claim of a paper declared in its registry, measured by the notebook,
given a status.

A notebook's claims are declared before any run in ``notebooks/claims/<key>.toml``
(:func:`registry_path`, :func:`load_registry`): the paper's statement and value, and the rule that
decides it. The notebook only measures (:class:`ClaimLog`), and the ledger
(``data/results/<key>/claims.json``) records each claim's status.

Each rule kind is one small class in :data:`RULES`, under each registry field it reads: the class
checks its fields when the registry loads (:meth:`Rule.parse`), decides a measurement
(:meth:`Rule.holds`, :meth:`Rule.undecided`) and words itself for the ledger (:meth:`Rule.text`). A
new rule is one :class:`Rule` subclass and its entry in :data:`RULES`.
"""

from __future__ import annotations

import contextlib
import hashlib
from abc import ABC, abstractmethod
import json
import math
import numbers
import os
import unicodedata
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import ClassVar

import numpy as np
import pandas as pd

from .. import paths
from .._validate import (
    InvalidInputError,
    _shows,
    _short,
    as_count,
    as_flag,
    as_instance,
    as_list_of,
    as_number,
    as_path,
    check_shown_text,
    is_real,
    result_type,
    as_text,
)

__all__ = [
    "ClaimLog",
    "Claim",
    "ClaimsFailed",
    "Declared",
    "Measurement",
    "Rule",
    "RULES",
    "OUR_SD",
    "load_registry",
    "quotes_of",
    "registry_path",
    "display_value",
    "cell_key",
    "measured_values",
    "KINDS",
    "STATUSES",
    "PROVISIONAL",
    "ClaimListing",
    "LEDGER_LINK",
    "claim_anchor",
]


def _plain(value):
    """Convert numpy scalars/arrays to JSON-friendly Python values."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if hasattr(value, "to_numpy") and not isinstance(
        value, (str, bytes)
    ):  # a pandas Series: its values in order
        return _plain(value.to_numpy())
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if is_real(value) and not isinstance(value, (int, float)):  # a Fraction or Decimal: a float
        try:
            return float(value)
        except (OverflowError, ValueError):
            return value  # beyond the float range: no number (_is_number)
    return value


def _in_order(ours, rule, claim_id: str, rule_text: str):
    """``ours`` for a rule that reads order: a pandas Series read by position (``monotone``,
    ``converges``, a series of ``ordered``) must have its index sorted ascending and unique, since
    the position is the parameter's order; a Series given to ``ordered`` whole is the mapping of its
    labels to its values. Refused, not sorted: an index out of order more likely means the series
    was assembled wrong than that the order does not matter, and sorting would hide that."""

    def check(series, name):
        index = series.index
        if not (index.is_monotonic_increasing and index.is_unique):
            raise InvalidInputError(
                f"{name} = {_short(series)}: claim {claim_id!r}: rule {rule_text!r} reads the "
                f"series by position, in the order of its parameter, but its index "
                f"{_short(list(index))} is not sorted ascending without repeats: sort it "
                "(sort_index()) or pass the values in the parameter's order"
            )

    if isinstance(rule, Ordered):
        if isinstance(ours, pd.Series):
            ours = {str(k): v for k, v in ours.items()}  # labels are the series' names
        if isinstance(ours, Mapping):
            given = {k: v for k, v in ours.items() if isinstance(v, pd.Series)}
            for k, v in given.items():
                check(v, f"ours[{k!r}]")
            indexes = [v.index for v in given.values()]
            if any(not ix.equals(indexes[0]) for ix in indexes[1:]):
                raise InvalidInputError(
                    f"ours = {_short(ours)}: claim {claim_id!r}: rule {rule_text!r} compares its "
                    "series point by point, but their indexes differ: align them first"
                )
    elif rule.series and isinstance(ours, pd.Series):
        check(ours, "ours")
    return ours


def _is_number(x) -> bool:
    """A real number a float can hold (:func:`fairlib._validate.is_real`: a ``Fraction`` or
    ``Decimal`` too; an integer beyond the float range is none: no rule can compare it)."""
    if not is_real(x):
        return False
    try:
        float(x)
    except (OverflowError, ValueError):
        return False
    return True


KINDS = ("paper", "finding", "check")
#: appended to every status shown from a quick-mode ledger (its claims.json keeps the plain status
#: and mode "quick")
PROVISIONAL = " (quick: provisional)"
STATUSES = ("held", "not reproduced", "inconclusive", "not tested")
#: ``se = {sd = "pooled"}``: the paper prints no standard deviation of the count; the common one is
#: estimated from both samples together (:func:`pooled_count_sd`)
OUR_SD = "pooled"


def registry_path(key: str) -> Path:
    """The claims registry of a notebook.

    Parameters
    ----------
    key : str
        The notebook's key (``"feldman2005"``).

    Returns
    -------
    Path
        ``notebooks/claims/<key>.toml``.
    """
    paths.check_key(key)
    return paths.NOTEBOOKS / "claims" / f"{key}.toml"


def _exact(bound) -> str:
    """A rule's number exactly as declared (the shortest text that reads back as the same float): a
    bound of 1.000000001 must not print as 1, or a value of 1.0000000000000902 would look held
    against "<= 1"."""
    text = repr(float(bound))
    return text[:-2] if text.endswith(".0") else text


def _numbers(ours) -> list | None:
    """``ours`` as a list of numbers (a scalar is a one-element list), or None if it is not
    numeric."""
    values = ours if isinstance(ours, list) else [ours]
    return values if values and all(_is_number(v) for v in values) else None


# --- the rules ------------------------------------------------------------------------------------


def _check_runs_and_spread(runs, spread, spread_name: str) -> None:
    """A run count (an integer >= 1) and a spread (a finite number >= 0), each where given."""
    if runs is not None:
        as_count(runs, "runs")
    if spread is not None:
        as_number(spread, spread_name, inclusive=True)


def _checking_counts(method):
    """``method`` (a rule's ``holds``, ``spread`` or ``text``) with its ``runs`` and spread checked
    first."""
    import functools
    import inspect

    params = list(inspect.signature(method).parameters)[1:]

    @functools.wraps(method)
    def checked(self, *args, **kwargs):
        bound = dict(zip(params, args), **kwargs)
        spread_name = "spread" if "spread" in params else "sd"
        spread = bound.get(spread_name)
        if method.__name__ == "spread" and self.takes_sd:
            spread = (
                None  # our runs' sd, which pooled_count_sd checks and names with the rule's need
            )
        _check_runs_and_spread(bound.get("runs"), spread, spread_name)
        return method(self, *args, **kwargs)

    return checked


@dataclass(frozen=True)
class Rule(ABC):
    """How a declared claim is decided: one kind of rule, declared by its fields in a claims
    registry.

    Each kind is a subclass registered in :data:`RULES` under every registry field it reads
    (:attr:`keys`). It checks those fields when the registry loads (:meth:`parse`, errors naming the
    file and the claim), decides a measurement (:meth:`holds`; :meth:`undecided` where the data
    cannot decide, status **inconclusive**) and words itself as the ledger prints it (:meth:`text`).
    ``run_all.py --verify`` compares what a rule decides, the claim's status, between the committed
    ledger and a fresh run: every rule alike, since ``claims.json`` records the status and the
    rule's words, not its kind.

    Parameters
    ----------
    claim : str
        The id of the claim it decides (named in its errors).
    """

    claim: str

    #: the registry fields the rule reads: :data:`RULES` lists the class under each that declares
    #: the rule (all but a modifier such as :class:`Bounds`' ``margin``)
    keys: ClassVar[tuple[str, ...]] = ()
    #: values of the shape the rule measures: a declared headline must take one of them (checked
    #: when it loads)
    shapes: ClassVar[tuple] = (1.0, [1.0, 0.5])
    #: whether the rule measures a series (a headline then formats ``{ours_min}``, ``{ours_max}``,
    #: ``{n}``)
    series: ClassVar[bool] = False
    #: whether a measurement may give ``sd=``, our runs' standard deviation
    takes_sd: ClassVar[bool] = False
    #: whether a measurement may give ``runs=``, the number of runs behind it (a rule that does not
    #: read it refuses it: the caller expected it to change the verdict)
    takes_runs: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs):
        """Every kind's :meth:`holds`, :meth:`spread` and :meth:`text` check their run count and
        spread at the boundary, whichever kind defines them (each kind checks ``ours`` by its own
        shape)."""
        super().__init_subclass__(**kwargs)
        for name in ("holds", "spread", "text"):
            if name in vars(cls):
                setattr(cls, name, _checking_counts(vars(cls)[name]))

    @classmethod
    @abstractmethod
    def parse(cls, entry: dict, where: str) -> Rule:
        """The rule of a registry entry, its fields checked one by one.

        Parameters
        ----------
        entry : dict
            The claim's table in the registry (its rule's fields and ``paper_value``, if any).
        where : str
            The registry and the claim, as errors name them.

        Returns
        -------
        Rule
            The rule, ready to decide measurements.
        """

    @abstractmethod
    def holds(self, ours, runs: int | None = None, spread: float | None = None) -> bool:
        """Whether a measurement meets the rule (a NaN never does).

        Parameters
        ----------
        ours : object
            The measurement, as plain Python values (a number, a list, or a mapping, by rule).
        runs : int or None
            The number of runs behind ``ours`` (a standard-error rule's).
        spread : float or None
            The pooled standard deviation :meth:`spread` computed (a pooled standard-error rule's).

        Returns
        -------
        bool
            True where the rule holds.

        Raises
        ------
        InvalidInputError
            When the measurement is not of the shape the rule measures, or the rule needs what is
            not given (a standard-error rule's ``runs``), naming the claim.
        """

    def undecided(self, ours) -> bool:
        """Whether the data cannot decide the claim (status **inconclusive**): none, but for a
        declared margin.

        Parameters
        ----------
        ours : object
            The measurement, as plain Python values.

        Returns
        -------
        bool
            True where ``ours`` is too close to call.
        """
        return False

    @_checking_counts
    def spread(self, ours, runs: int | None, sd: float | None) -> float | None:
        """The spread the rule judges ``ours`` with where it estimates one from the measurement
        (none by default).

        Parameters
        ----------
        ours : object
            The measurement, as plain Python values.
        runs : int or None
            The number of runs behind ``ours``.
        sd : float or None
            Our runs' standard deviation.

        Returns
        -------
        float or None
            The spread, shown in the rule's words and passed to :meth:`holds`.
        """
        return None

    @abstractmethod
    def text(self, runs: int | None = None, sd: float | None = None) -> str:
        """The rule in words, as the ledger prints it.

        Parameters
        ----------
        runs : int or None
            The number of runs behind the measurement (a standard-error rule shows it).
        sd : float or None
            The pooled standard deviation (a pooled standard-error rule shows it).

        Returns
        -------
        str
            The rule's words.
        """

    def _values(self, ours) -> list:
        """``ours`` as a list of numbers, or an error naming the claim and the rule."""
        values = _numbers(ours)
        if values is None:
            raise InvalidInputError(
                f"ours = {_short(ours)}: claim {self.claim!r}: rule {self.text()!r} needs a "
                "number or a list of "
                "numbers"
            )
        return values

    def _series(self, ours, minimum: int = 2) -> list:
        """``ours`` as a series of at least ``minimum`` numbers, or an error naming the claim."""
        values = ours if isinstance(ours, list) else None
        if values is None or len(values) < minimum or _numbers(values) is None:
            raise InvalidInputError(
                f"ours = {_short(ours)}: claim {self.claim!r}: rule {self.text()!r} needs a "
                f"list of at least {minimum} numbers (the series in the order of its "
                "parameter)"
            )
        return values


def _paper_value_needed(entry: dict, where: str, name: str) -> None:
    if "paper_value" not in entry:
        raise InvalidInputError(
            f"{where}: rule {name!r} compares with paper_value, which is missing"
        )


def _number_field(entry: dict, where: str, name: str) -> None:
    if name in entry and not _is_number(entry[name]):
        raise InvalidInputError(f"{where}: {name} = {entry[name]!r} must be a number")


def _table(entry: dict, where: str, name: str, required, optional, directions=()) -> dict:
    """The table of a trend rule (``monotone``, ``converges``, ``ordered``), checked key by key."""
    spec = entry[name]
    if not isinstance(spec, dict):
        raise InvalidInputError(f"{where}: {name} must be a table, got {spec!r}")
    unknown = set(spec) - set(required) - set(optional)
    missing = set(required) - set(spec)
    if unknown or missing:
        raise InvalidInputError(
            f"{where}: {name} takes {sorted(required)} (required) and {sorted(optional)} "
            f"(optional); got {sorted(spec)}"
        )
    for key in ("tol", "final_gap", "rate"):
        if key in spec and not (_is_number(spec[key]) and spec[key] >= 0):
            raise InvalidInputError(f"{where}: {name}.{key} = {spec[key]!r} must be a number >= 0")
    if "direction" in spec and spec["direction"] not in directions:
        raise InvalidInputError(
            f"{where}: {name}.direction = {spec['direction']!r}, must be one of {directions}"
        )
    return spec


def _same_kind(ours, paper) -> bool:
    """Whether ``ours`` (plain Python values, :func:`_plain`) is of the kind and shape of the
    paper's value ``paper``, so that ``ours == paper`` compares values, not types: a real number
    against a number (:func:`fairlib._validate.is_real`), a bool against a bool, text against text,
    and element by element a list of the same length or a mapping of the same keys.

    >>> _same_kind(1.0, 1), _same_kind(True, 1), _same_kind(1 + 0j, 1), _same_kind([3, 2], [3, 2.0])
    (True, False, False, True)
    """
    if isinstance(paper, bool):
        return isinstance(ours, bool)
    if is_real(paper):
        return is_real(ours)
    if isinstance(paper, list):
        return (
            isinstance(ours, list)
            and len(ours) == len(paper)
            and all(_same_kind(o, p) for o, p in zip(ours, paper))
        )
    if isinstance(paper, dict):
        return (
            isinstance(ours, dict)
            and set(ours) == set(paper)
            and all(_same_kind(ours[k], paper[k]) for k in paper)
        )
    return type(ours) is type(paper)


@dataclass(frozen=True)
class Equals(Rule):
    """``equals = true``: ours equals the paper's value exactly ("the allocation is (3, 2)").

    For a value computed through rounding, :class:`Tolerance` is the rule.

    Parameters
    ----------
    claim : str
        The id of the claim it decides.
    paper : object
        The paper's value.
    """

    paper: object = None
    keys: ClassVar[tuple[str, ...]] = ("equals",)

    @classmethod
    def parse(cls, entry, where):  # noqa: D102
        if entry["equals"] is not True:
            raise InvalidInputError(f"{where}: equals must be true")
        _paper_value_needed(entry, where, "equals")
        return cls(entry["id"], entry["paper_value"])

    def holds(self, ours, runs=None, spread=None):
        """Whether ``ours`` equals the paper's value.

        Parameters
        ----------
        ours : object
            The measurement, of the paper value's kind and shape: a real number where it is a
            number (:func:`fairlib._validate.is_real`: no bool, no complex number, no text), a bool
            where it is a bool, text where it is text, a list of as many such values where it is a
            list.
        runs, spread : optional
            Not read.

        Returns
        -------
        bool
            True where ``ours == paper``.

        Raises
        ------
        InvalidInputError
            When ``ours`` is not of the paper value's kind and shape, naming the claim.
        """
        if not _same_kind(ours, self.paper):
            raise InvalidInputError(
                f"ours = {_short(ours)}: claim {self.claim!r}: rule 'ours == paper' needs a value "
                f"of the kind and shape of paper_value = {_short(self.paper)} (a real number where "
                "it is a number, not a bool or a complex number; a bool where it is a bool; a "
                "list of as many where it is a list)"
            )
        return bool(ours == self.paper)

    def text(self, runs=None, sd=None):  # noqa: D102
        return "ours == paper"


def _within(ours: float, paper: float, tol: float) -> bool:
    """``|ours - paper| <= tol`` on the decimals the three print as (their shortest ``repr``),
    exactly: in binary 0.829 - 0.828 is 0.0010000000000000009, above a ``tol`` of 0.001 that a
    reader sees it meet, so a value at the stated boundary would be "not reproduced" on one side
    and held on the other."""
    from decimal import Decimal, localcontext

    def exact(x: float) -> Decimal:
        return Decimal(repr(float(x)))

    with localcontext() as context:
        context.prec = 700  # exact: 17 digits each, exponents from -324 to 308
        return abs(exact(ours) - exact(paper)) <= exact(tol)


@dataclass(frozen=True)
class Tolerance(Rule):
    """``tol = t``: ``|ours - paper_value| <= t`` ("the worst efficiency is 2√2 − 2"), for every
    element when ours is a list; a list ``paper_value`` is compared element by element. The
    difference is taken on the decimals the numbers print as, exactly (``_within``): 0.829 is within
    0.001 of 0.828, as the rule's text says, though their binary difference is not.

    Parameters
    ----------
    claim : str
        The id of the claim it decides.
    tol : float
        The tolerance.
    paper : object
        The paper's value: a number, or a list of numbers.
    """

    tol: float = 0.0
    paper: object = None
    keys: ClassVar[tuple[str, ...]] = ("tol",)

    @classmethod
    def parse(cls, entry, where):  # noqa: D102
        _paper_value_needed(entry, where, "tol")
        _number_field(entry, where, "tol")
        if entry["tol"] < 0:
            raise InvalidInputError(f"{where}: tol = {entry['tol']!r} must be a number >= 0")
        paper = entry["paper_value"]
        vector = isinstance(paper, list) and len(paper) > 0 and all(_is_number(v) for v in paper)
        if not (_is_number(paper) or vector):
            raise InvalidInputError(
                f"{where}: tol needs a numeric paper_value or a list of numbers (compared "
                f"element by element), got {paper!r}"
            )
        return cls(entry["id"], entry["tol"], paper)

    def holds(self, ours, runs=None, spread=None):  # noqa: D102
        values = self._values(ours)
        if any(math.isnan(v) for v in values):
            return False
        if isinstance(self.paper, list):  # a vector of the paper's values: element by element
            if len(values) != len(self.paper):
                raise InvalidInputError(
                    f"claim {self.claim!r}: paper_value has {len(self.paper)} numbers, ours "
                    f"{len(values)}: {ours!r}"
                )
            return all(_within(v, p, self.tol) for v, p in zip(values, self.paper))
        return all(_within(v, self.paper, self.tol) for v in values)

    def text(self, runs=None, sd=None):  # noqa: D102
        return f"|ours - paper| <= {_exact(self.tol)}"


@dataclass(frozen=True)
class Bounds(Rule):
    """``at_least = a`` and/or ``at_most = b``: bounds on ours, every element when ours is a list
    ("at least 3/4 of the optimum"); both given, ours lies between them (``a <= b``: a registry with
    ``at_least`` above ``at_most``, a rule no value can meet, is refused when it loads).

    An equivalence ``margin``, from the paper's printed precision, makes a value within it of a
    bound (on either side) **inconclusive**; a value beyond a bound by more than it is not
    reproduced.

    Parameters
    ----------
    claim : str
        The id of the claim it decides.
    at_least : float or None
        The lower bound.
    at_most : float or None
        The upper bound.
    margin : float or None
        The equivalence margin.
    """

    at_least: float | None = None
    at_most: float | None = None
    margin: float | None = None
    keys: ClassVar[tuple[str, ...]] = ("at_least", "at_most", "margin")

    @classmethod
    def parse(cls, entry, where):  # noqa: D102
        _number_field(entry, where, "at_least")
        _number_field(entry, where, "at_most")
        if "margin" in entry and not (_is_number(entry["margin"]) and entry["margin"] >= 0):
            raise InvalidInputError(_margin_error(entry, where))
        low, high = entry.get("at_least"), entry.get("at_most")
        if low is not None and high is not None and low > high:
            # no value lies between them: every measurement would be "not reproduced"
            raise InvalidInputError(
                f"{where}: at_least = {low!r} is above at_most = {high!r}: no value meets both "
                "(at_least must be <= at_most)"
            )
        return cls(entry["id"], entry.get("at_least"), entry.get("at_most"), entry.get("margin"))

    def holds(self, ours, runs=None, spread=None):  # noqa: D102
        values = self._values(ours)
        if any(math.isnan(v) for v in values):
            return False
        ok = True
        if self.at_least is not None:
            ok &= all(v >= self.at_least for v in values)
        if self.at_most is not None:
            ok &= all(v <= self.at_most for v in values)
        return bool(ok)

    def undecided(self, ours):
        """Whether ``ours`` sits within the margin of a bound, none of its values beyond a bound by
        more than it.

        Parameters
        ----------
        ours : object
            The measurement: a number or a list of numbers.

        Returns
        -------
        bool
            True where the data cannot decide the claim (status **inconclusive**).

        Examples
        --------
        >>> rule = Bounds("x", at_most=0.0, margin=0.001)
        >>> (
        ...     rule.undecided([-0.2, 0.0009]),
        ...     rule.undecided([-0.2, 0.002]),
        ...     rule.undecided([-0.2, -0.1]),
        ... )
        (True, False, False)
        """
        values = _numbers(ours)
        if self.margin is None or values is None or any(math.isnan(v) for v in values):
            return False
        beyond = [self.at_least - v for v in values] if self.at_least is not None else []
        beyond += [v - self.at_most for v in values] if self.at_most is not None else []
        if any(b > self.margin for b in beyond):
            return False
        return any(abs(b) <= self.margin for b in beyond)

    def text(self, runs=None, sd=None):  # noqa: D102
        parts = []
        if self.at_least is not None:
            parts.append(f"ours >= {_exact(self.at_least)}")
        if self.at_most is not None:
            parts.append(f"ours <= {_exact(self.at_most)}")
        margin = (
            f"; inconclusive within {_exact(self.margin)} of the bound (the paper's precision)"
            if self.margin is not None
            else ""
        )
        return " and ".join(parts) + margin


def _margin_error(entry: dict, where: str) -> str:
    return (
        f"{where}: margin = {entry['margin']!r}: an equivalence margin is a number >= 0 and "
        "goes with "
        "an at_least or at_most rule"
    )


@dataclass(frozen=True)
class StandardError(Rule):
    """``se = {k, sd, n_paper}``: a mean the paper reports as paper_value ± sd over ``n_paper``
    runs, ours a mean over ``runs`` (given with the measurement): ``|ours - paper_value| <=
    k·sd·√(1/n_paper + 1/runs)``.

    Where the paper prints no standard deviation of a count per run, ``sd = "pooled"``: under the
    claim both samples draw from one distribution, whose spread is estimated from them together
    (:func:`pooled_count_sd`: ours in full, given with the measurement as ``sd``; the paper's at the
    least spread a whole-number count with its mean can have).

    Parameters
    ----------
    claim : str
        The id of the claim it decides.
    k : float
        How many standard errors ours may differ by.
    sd : float or str
        The paper's standard deviation, or ``"pooled"`` (:data:`OUR_SD`).
    n_paper : int
        The paper's number of runs.
    paper : float
        The paper's mean.
    """

    k: float = 0.0
    sd: float | str = 0.0
    n_paper: int = 1
    paper: float = 0.0
    keys: ClassVar[tuple[str, ...]] = ("se",)
    takes_runs: ClassVar[bool] = True

    @property
    def pooled(self) -> bool:
        """Whether the spread is pooled from ours and the paper's mean (``sd = "pooled"``)."""
        return self.sd == OUR_SD

    @property
    def takes_sd(self) -> bool:  # noqa: D102 - only a pooled rule takes our spread
        return self.pooled

    @classmethod
    def parse(cls, entry, where):  # noqa: D102
        _paper_value_needed(entry, where, "se")
        se = entry["se"]
        if not (
            isinstance(se, dict)
            and set(se) == {"k", "sd", "n_paper"}
            and _is_number(se["k"])
            and _is_number(se["n_paper"])
            and (_is_number(se["sd"]) or se["sd"] == OUR_SD)
        ):
            raise InvalidInputError(
                f"{where}: se must be a table with numbers k, n_paper and sd (a number, or "
                f"{OUR_SD!r} where the paper prints no standard deviation); got {se!r}"
            )
        if not _is_number(entry["paper_value"]):
            raise InvalidInputError(
                f"{where}: se/converges need a numeric paper_value, got {entry['paper_value']!r}"
            )
        return cls(entry["id"], se["k"], se["sd"], se["n_paper"], entry["paper_value"])

    def _runs(self, runs) -> int:
        if not (isinstance(runs, numbers.Integral) and runs > 0):
            raise InvalidInputError(
                f"claim {self.claim!r}: an se rule needs runs = the number of runs behind "
                f"ours, got {runs!r}"
            )
        return runs

    def spread(self, ours, runs, sd):
        """The pooled standard deviation an ``sd = "pooled"`` rule judges ``ours`` with
        (:func:`pooled_count_sd`).

        Parameters
        ----------
        ours : object
            Our mean.
        runs : int or None
            The number of our runs.
        sd : float or None
            The standard deviation over our runs.

        Returns
        -------
        float or None
            The pooled spread; None for a rule with the paper's spread, or where ours is not one
            finite number (:meth:`holds` then refuses it or finds it not reproduced).
        """
        if not self.pooled:
            return None
        values = _numbers(ours)
        if values is None or math.isnan(values[0]):
            return None
        if len(values) != 1:
            raise InvalidInputError(
                f"claim {self.claim!r}: a pooled se rule judges one mean per run set, got {ours!r}"
            )
        runs = self._runs(runs)
        return pooled_count_sd(self.paper, self.n_paper, values[0], runs, sd, claim=self.claim)

    def holds(self, ours, runs=None, spread=None):  # noqa: D102
        values = self._values(ours)
        if any(math.isnan(v) for v in values):
            return False
        runs = self._runs(runs)
        bound = (
            self.k * (spread if self.pooled else self.sd) * math.sqrt(1 / self.n_paper + 1 / runs)
        )
        return all(abs(v - self.paper) <= bound for v in values)

    def text(self, runs=None, sd=None):  # noqa: D102
        if self.pooled:
            spread = (
                "sd = pooled"
                + (f" = {_exact(sd)}" if sd is not None else "")
                + " (the paper prints none: ours and the least its mean allows)"
            )
        else:
            spread = f"sd = {_exact(self.sd)}"
        return (
            f"|ours - paper| <= {_exact(self.k)} sd sqrt(1/{self.n_paper} + 1/runs), "
            + spread
            + (f", runs = {runs}" if runs else "")
        )


@dataclass(frozen=True)
class Monotone(Rule):
    """``monotone = {direction, tol}``: a trend ("more efficient as λ grows"). Ours is the series
    of values in the order of the parameter; ``"increasing"``: no step goes down by more than
    ``tol`` (``"decreasing"``: up), and the series moves in that direction overall (last beyond
    first).

    Parameters
    ----------
    claim : str
        The id of the claim it decides.
    direction : str
        ``"increasing"`` or ``"decreasing"``.
    tol : float
        How far a step may go against the direction.
    """

    direction: str = "increasing"
    tol: float = 0.0
    keys: ClassVar[tuple[str, ...]] = ("monotone",)
    shapes: ClassVar[tuple] = ([1.0, 0.5],)
    series: ClassVar[bool] = True

    @classmethod
    def parse(cls, entry, where):  # noqa: D102
        spec = _table(
            entry, where, "monotone", ("direction",), ("tol",), ("increasing", "decreasing")
        )
        return cls(entry["id"], spec["direction"], spec.get("tol", 0.0))

    def holds(self, ours, runs=None, spread=None):  # noqa: D102
        values = self._series(ours)
        if any(math.isnan(v) for v in values):
            return False
        sign = 1.0 if self.direction == "increasing" else -1.0
        steps = [sign * (b - a) for a, b in zip(values, values[1:])]
        return all(s >= -self.tol for s in steps) and sign * (values[-1] - values[0]) > 0

    def text(self, runs=None, sd=None):  # noqa: D102
        return (
            f"ours {self.direction} along its parameter (steps against it at most "
            f"{_exact(self.tol)})"
        )


@dataclass(frozen=True)
class Converges(Rule):
    """``converges = {final_gap}`` and/or ``{rate}``: a limit ("approaches DRF as β → ∞"). Ours
    is the series in the order of the parameter and paper_value the limit; the gaps g_k = |ours_k
    − paper_value| end at most ``final_gap`` below a first gap they shrank from, and/or shrink at
    least geometrically, g_{k+1} ≤ rate·g_k.

    Parameters
    ----------
    claim : str
        The id of the claim it decides.
    final_gap : float or None
        The largest last gap.
    rate : float or None
        The largest ratio of a gap to the one before.
    paper : float
        The limit.
    """

    final_gap: float | None = None
    rate: float | None = None
    paper: float = 0.0
    keys: ClassVar[tuple[str, ...]] = ("converges",)
    shapes: ClassVar[tuple] = ([1.0, 0.5],)
    series: ClassVar[bool] = True

    @classmethod
    def parse(cls, entry, where):  # noqa: D102
        if not _is_number(entry.get("paper_value")):
            raise InvalidInputError(
                f"{where}: se/converges need a numeric paper_value, got "
                f"{entry.get('paper_value')!r}"
            )
        spec = _table(entry, where, "converges", (), ("final_gap", "rate"))
        if not spec:
            raise InvalidInputError(f"{where}: converges needs final_gap, rate or both")
        if spec.get("rate", 0.0) >= 1:
            raise InvalidInputError(
                f"{where}: converges.rate = {spec['rate']!r} must be below 1 (gaps that shrink)"
            )
        return cls(entry["id"], spec.get("final_gap"), spec.get("rate"), entry["paper_value"])

    def holds(self, ours, runs=None, spread=None):  # noqa: D102
        values = self._series(ours)
        if any(math.isnan(v) for v in values):
            return False
        gaps = [abs(v - self.paper) for v in values]
        ok = True
        if self.final_gap is not None:
            ok &= gaps[-1] <= self.final_gap and (gaps[-1] < gaps[0] or gaps[0] == 0.0)
        if self.rate is not None:
            ok &= all(b <= self.rate * a for a, b in zip(gaps, gaps[1:]) if a > 0) and all(
                b == 0.0 for a, b in zip(gaps, gaps[1:]) if a == 0
            )
        return bool(ok)

    def text(self, runs=None, sd=None):  # noqa: D102
        parts = []
        if self.final_gap is not None:
            parts.append(f"final |ours - paper| <= {_exact(self.final_gap)}, below the first")
        if self.rate is not None:
            parts.append(f"each gap <= {_exact(self.rate)} x the one before")
        return "ours converges to paper: " + " and ".join(parts)


@dataclass(frozen=True)
class Ordered(Rule):
    """``ordered = {series, direction, tol}``: an ordering of several series ("DRFH above TSF above
    DRF"). Ours maps each name of ``series`` to a number or a list (compared point by point);
    ``"descending"``: each series is at least the next one minus ``tol`` (``"ascending"``: at most
    plus ``tol``).

    Parameters
    ----------
    claim : str
        The id of the claim it decides.
    names : tuple of str
        The series, in the declared order.
    direction : str
        ``"descending"`` or ``"ascending"``.
    tol : float
        How far a series may cross the next one.
    """

    names: tuple = ()
    direction: str = "descending"
    tol: float = 0.0
    keys: ClassVar[tuple[str, ...]] = ("ordered",)
    shapes: ClassVar[tuple] = ({"a": 1.0, "b": 0.5},)

    @classmethod
    def parse(cls, entry, where):  # noqa: D102
        spec = _table(
            entry, where, "ordered", ("series", "direction"), ("tol",), ("descending", "ascending")
        )
        series = spec["series"]
        if not (
            isinstance(series, list)
            and len(series) >= 2
            and all(isinstance(s, str) and s for s in series)
            and len(set(series)) == len(series)
        ):
            raise InvalidInputError(
                f"{where}: ordered.series must list two or more distinct names, got {series!r}"
            )
        return cls(entry["id"], tuple(series), spec["direction"], spec.get("tol", 0.0))

    def holds(self, ours, runs=None, spread=None):  # noqa: D102
        names = list(self.names)
        if not isinstance(ours, dict) or set(ours) != set(names):
            raise InvalidInputError(
                f"claim {self.claim!r}: rule {self.text()!r} needs a mapping of exactly "
                f"{names} to numbers or lists, got {ours!r}"
            )
        columns = [ours[name] if isinstance(ours[name], list) else [ours[name]] for name in names]
        if len({len(c) for c in columns}) != 1 or any(_numbers(c) is None for c in columns):
            raise InvalidInputError(
                f"claim {self.claim!r}: the series of {names} must be numbers or lists of "
                f"one length, got {ours!r}"
            )
        if any(math.isnan(v) for c in columns for v in c):
            return False
        sign = 1.0 if self.direction == "descending" else -1.0
        return all(
            sign * (a - b) >= -self.tol
            for upper, lower in zip(columns, columns[1:])
            for a, b in zip(upper, lower)
        )

    def text(self, runs=None, sd=None):  # noqa: D102
        sign = " >= " if self.direction == "descending" else " <= "
        return sign.join(self.names) + (f" (within {_exact(self.tol)})" if self.tol else "")


#: every rule kind, under each registry field that declares it (a claim declares one kind;
#: ``at_least`` and ``at_most`` are one, :class:`Bounds`); a new rule is one :class:`Rule` subclass
#: and its entry here
RULES: dict[str, type[Rule]] = {
    "equals": Equals,
    "tol": Tolerance,
    "at_least": Bounds,
    "at_most": Bounds,
    "se": StandardError,
    "monotone": Monotone,
    "converges": Converges,
    "ordered": Ordered,
}


# --- the registry ---------------------------------------------------------------------------------


@result_type
@dataclass(frozen=True)
class Declared:
    """One claim as declared in a registry, before any measurement: the paper's statement and our
    rule.

    Parameters
    ----------
    id : str
        The claim's id, unique in its registry.
    kind : str
        ``"paper"`` (the paper says it), ``"finding"`` (ours) or ``"check"`` (our solvers and
        speed).
    source : str
        Where the paper says it: section, figure, table, equation.
    statement : str
        The paper's statement.
    paper_value : object
        The paper's value (None where the statement has no number).
    rule : Rule or None
        The rule that decides it (:data:`RULES`; exactly one, unless the claim is declared
        ``not_tested``).
    on_data : bool
        About the paper's trace data: **not tested** when measured on a synthetic stand-in.
    wall_clock : bool
        Decided by wall-clock time: reported, never gates a run (machines differ).
    not_tested : str
        Why it cannot be measured with our data (then no measurement is expected).
    headline : str
        The claim as a notebook's Findings bullet says it, in plain words with units and the
        comparison (at most 35 words once filled); ``{ours}``, ``{paper}``, ``{ours_min}``,
        ``{ours_max}``, ``{n}`` take the ledger's values, with format specs (``{ours:.2f}``).
        Presentation only: the rule and statement stay what decides the claim.
    quote : str or list of str
        A paper claim's words in the paper: the sentence, table cell or formula it tests, verbatim
        from the paper's text (one string, or a list where the claim joins several places);
        ``tests/test_claim_quotes.py`` finds each in our copy of the paper, whitespace and
        line-break hyphenation normalised.
    scope : str
        Which instances, metrics and parameters the measurement covers (what ``ours`` is computed
        over).
    history : tuple of dict
        Every change of the claim's rule, kind or status after its first full run, oldest first:
        tables with ``date`` (YYYY-MM-DD), ``change`` ("status held -> not tested", "kind paper ->
        finding", "rule ...") and ``why``.
    """

    id: str
    kind: str
    source: str
    statement: str
    paper_value: object = None
    rule: Rule | None = None
    on_data: bool = False
    wall_clock: bool = False
    not_tested: str = ""
    headline: str = ""
    quote: str | list[str] = ""
    scope: str = ""
    history: tuple = ()

    def rule_text(self, runs: int | None = None, sd: float | None = None) -> str:
        """The claim's rule in words, as CLAIMS.md prints it (:meth:`Rule.text`).

        Parameters
        ----------
        runs : int or None
            The number of runs behind the measurement (fills a standard-error rule).
        sd : float or None
            The pooled standard deviation (fills a standard-error rule declared ``sd = "pooled"``).

        Returns
        -------
        str
            The rule's words; ``"not measurable here"`` for a claim declared ``not_tested``.

        Raises
        ------
        InvalidInputError
            When ``runs`` is not an integer >= 1 or ``sd`` not a finite number >= 0 (where given).
        """
        _check_runs_and_spread(runs, sd, "sd")
        if self.not_tested or self.rule is None:
            return "not measurable here"
        return self.rule.text(runs, sd)


#: a claim's own fields in a registry; the rest name its rule (:data:`RULES`, :attr:`Rule.keys`)
_OWN_FIELDS = tuple(f.name for f in fields(Declared) if f.name != "rule")


def _rule_fields() -> tuple[str, ...]:
    """Every registry field a rule of :data:`RULES` reads (read when a registry loads: a rule added
    since counts)."""
    return tuple(dict.fromkeys(key for cls in RULES.values() for key in cls.keys))


def _check_headline(entry: dict, cls: type[Rule] | None, where: str) -> None:
    """Fill a declared headline with a value of the shape its rule measures (:attr:`Rule.shapes`: a
    series for ``monotone`` and ``converges``, a mapping for ``ordered``; a number or a list of them
    for the other rules, which take either), so a replacement field or format spec that cannot take
    it (``{ours:.1e}`` on a series) is refused when the registry loads, not when a later run's
    Findings are rendered."""
    paper = entry.get("paper_value")
    shapes = (cls or Rule).shapes
    errors = []
    for ours in shapes:
        values = {"ours": ours, "paper": paper}
        if isinstance(ours, list):
            values.update(ours_min=0.5, ours_max=1.0, n=2)
        try:
            entry["headline"].format(**values)
            return
        except (KeyError, IndexError, ValueError, TypeError) as exc:
            errors.append(f"{type(exc).__name__}: {exc}")
    hint = (
        " (this rule measures a series: use {ours_min}, {ours_max} or {n} with a format spec)"
        if cls is not None and cls.series
        else ""
    )
    raise InvalidInputError(
        f"{where}: headline {entry['headline']!r} cannot be filled with a value of this "
        f"rule's shape ({'; '.join(errors)}){hint}"
    )


def _is_claim_id(claim_id) -> bool:
    """Whether ``claim_id`` can name a claim: text that shows (not only invisible characters such
    as the zero-width space) without spaces, control characters, quotes, angle brackets or ``#``
    (it becomes the anchor of its row in the ledger)."""
    return (
        isinstance(claim_id, str)
        and _shows(claim_id)
        and not any(
            ch.isspace() or ch in "\"'<>#" or unicodedata.category(ch) == "Cc" for ch in claim_id
        )
    )


def _check_prose(text: str, where: str, name: str) -> None:
    """A registry's text field that must say something: text that shows (not only whitespace or
    invisible characters such as the zero-width space), without control characters but the newline
    (:func:`fairlib._validate.check_shown_text`)."""
    check_shown_text(text, f"{where}: {name}", what=f"{name} is shown text", lines=True)


def _registry_numbers(value, where: str, name: str):
    """``value``, a registry field, with every number in it (through its lists and tables) read as
    a TOML file's is: a real number (:func:`fairlib._validate.is_real`: a ``Decimal``, a
    ``Fraction`` or a NumPy scalar in a registry given as a list of tables) becomes an ``int`` or a
    ``float``, and must be finite (a NaN or infinite bound, tolerance or paper value makes every
    measurement fail, or pass, its rule). Anything else is kept for the rule to check.

    Examples
    --------
    >>> from decimal import Decimal
    >>> _registry_numbers([Decimal("0.5"), np.int64(2), True], "registry", "paper_value")
    [0.5, 2, True]
    >>> _registry_numbers({"tol": Decimal("nan")}, "registry", "monotone")
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: registry: monotone.tol = Decimal('NaN') must be a finite
    number
    """
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, list):
        return [_registry_numbers(v, where, f"{name}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, dict):
        return {k: _registry_numbers(v, where, f"{name}.{k}") for k, v in value.items()}
    if not is_real(value):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    try:
        number = float(value)
    except (OverflowError, ValueError):  # beyond the float range, or a signalling Decimal NaN
        number = math.nan
    if not math.isfinite(number):
        raise InvalidInputError(f"{where}: {name} = {value!r} must be a finite number")
    return number


def _declared(entry: dict, where: str) -> Declared:
    """A registry entry checked field by field (errors name the file and the claim) and turned into
    a Declared."""
    cid = entry.get("id")
    if not _is_claim_id(cid):
        raise InvalidInputError(
            f"{where}: every claim needs an id (text that shows, without spaces, control "
            f"characters, quotes, angle brackets or #), got {cid!r}"
        )
    where = f"{where}, claim {cid!r}"
    rule_fields = _rule_fields()
    allowed = set(_OWN_FIELDS) | set(rule_fields)
    unknown = set(entry) - allowed
    if unknown:
        raise InvalidInputError(
            f"{where}: unknown field(s) {sorted(unknown)}; allowed: {sorted(allowed)}"
        )
    for name in ("paper_value", *rule_fields):
        if name in entry:
            entry[name] = _registry_numbers(entry[name], where, name)
    named = [name for name in RULES if name in entry]
    kinds = list(dict.fromkeys(RULES[name] for name in named))
    if "headline" in entry and (
        not isinstance(entry["headline"], str) or not entry["headline"].strip()
    ):
        raise InvalidInputError(f"{where}: headline must be a non-empty sentence")
    if "headline" in entry:
        _check_prose(entry["headline"], where, "headline")
    if "headline" in entry:
        _check_headline(entry, kinds[0] if kinds else None, where)
    if entry.get("kind") not in KINDS:
        raise InvalidInputError(f"{where}: kind = {entry.get('kind')!r}, must be one of {KINDS}")
    for name in ("source", "statement"):
        if not isinstance(entry.get(name), str) or not entry[name].strip():
            raise InvalidInputError(f"{where}: {name} must be a non-empty string")
        _check_prose(entry[name], where, name)
    if "not_tested" in entry:
        if not isinstance(entry["not_tested"], str) or not entry["not_tested"].strip():
            raise InvalidInputError(f"{where}: not_tested must give the reason")
        _check_prose(entry["not_tested"], where, "not_tested")
    elif not named:
        raise InvalidInputError(
            f"{where}: no rule (one of {tuple(RULES)}) and not declared not_tested"
        )
    if len(kinds) > 1:
        raise InvalidInputError(
            f"{where}: rules {named} given together; give one (at_least and at_most may pair)"
        )
    # a field that modifies a rule without declaring one (margin, of Bounds) needs its rule
    modifiers = {key for key in rule_fields if key in entry and key not in RULES}
    if modifiers and not (kinds and modifiers <= set(kinds[0].keys)):
        raise InvalidInputError(_margin_error(entry, where))
    rule = kinds[0].parse(entry, where) if kinds else None
    _check_provenance(entry, where)
    own = {k: v for k, v in entry.items() if k in _OWN_FIELDS}
    return Declared(**own, rule=rule)


def _check_provenance(entry: dict, where: str) -> None:
    """A claim's ``quote``, ``scope`` and ``history`` fields, checked (and ``history`` frozen into a
    tuple)."""
    import datetime

    quote = entry.get("quote", "")
    quotes = quote if isinstance(quote, list) else [quote]
    if not all(isinstance(q, str) for q in quotes) or (
        isinstance(quote, list) and not all(q.strip() for q in quotes)
    ):
        raise InvalidInputError(
            f"{where}: quote must be the paper's words, a string or a list of non-empty "
            f"strings; got {quote!r}"
        )
    for i, q in enumerate(quotes if isinstance(quote, list) or quote else []):
        _check_prose(q, where, f"quote[{i}]" if isinstance(quote, list) else "quote")
    if isinstance(quote, list):
        entry["quote"] = tuple(quote)
    if not isinstance(entry.get("scope", ""), str):
        raise InvalidInputError(f"{where}: scope must be a string, got {entry['scope']!r}")
    history = entry.get("history", [])
    if not isinstance(history, list):
        raise InvalidInputError(
            f"{where}: history must be a list of tables {{date, change, why}}, got {history!r}"
        )
    for i, event in enumerate(history):
        if not (
            isinstance(event, dict)
            and set(event) == {"date", "change", "why"}
            and all(isinstance(event[k], str) and event[k].strip() for k in ("change", "why"))
        ):
            raise InvalidInputError(
                f"{where}: history[{i}] = {event!r}: must be a table with date, change and "
                "why (strings)"
            )
        for k in ("change", "why"):
            _check_prose(event[k], where, f"history[{i}].{k}")
        date = event["date"]
        try:
            datetime.date.fromisoformat(date if isinstance(date, str) else date.isoformat())
        except (TypeError, ValueError, AttributeError):
            raise InvalidInputError(
                f"{where}: history[{i}].date = {date!r}: must be a date YYYY-MM-DD"
            ) from None
    entry["history"] = tuple(dict(e, date=str(e["date"])) for e in history)


def quotes_of(declared: Declared) -> tuple[str, ...]:
    """A claim's quotes as a tuple (none, one or several).

    Parameters
    ----------
    declared : Declared
        The claim.

    Returns
    -------
    tuple of str
        Its ``quote``: empty, one string, or the several places it joins.

    Examples
    --------
    >>> quotes_of(Declared("a", "paper", "§1", "s", quote="the mean is about 1/2"))
    ('the mean is about 1/2',)
    """
    q = as_instance(declared, Declared, "declared").quote
    return tuple(q) if isinstance(q, (list, tuple)) else ((q,) if q else ())


def load_registry(source, key: str = "") -> dict[str, Declared]:
    """Read a claims registry, every claim checked field by field (errors name the file and the
    claim).

    Parameters
    ----------
    source : os.PathLike, str or list of dict
        A TOML file (any path object: ``pathlib.Path``, ``PurePath``), TOML text, or a list of
        claim tables.
    key : str
        The notebook's key, named in errors when ``source`` is not a file.

    Returns
    -------
    dict of str to Declared
        ``{claim id: Declared}``, in the registry's order.

    Raises
    ------
    FileNotFoundError
        When ``source`` is a path to no file.
    InvalidInputError
        When ``key`` is not text, or ``source`` is none of the three, a path to something other than
        a file, not TOML, or holds an entry that is not a table; naming the registry (the file, or
        ``key``) and the claim, when a claim's fields are wrong (a field it does not know, a blank
        statement, a bad tolerance, two rules, ``at_least`` above ``at_most``) or its id is declared
        twice.
    """
    import tomllib

    as_text(key, "key", what="a notebook key, named in errors", optional=True)
    where = key or "registry"
    if isinstance(source, os.PathLike):
        source = as_path(source, "source")  # a path of any flavour; a folder is refused by name
        if not source.is_file():
            raise FileNotFoundError(
                f"claims registry of {key!r} not found: {source} (declare the notebook's "
                "claims there before measuring them)"
            )
        where = str(source)
        try:
            source = source.read_text()
        except UnicodeDecodeError as exc:
            raise InvalidInputError(f"source = {where!r}: not a TOML file ({exc})") from None
    if isinstance(source, str):
        try:
            entries = tomllib.loads(source).get("claim", [])
        except tomllib.TOMLDecodeError as exc:
            raise InvalidInputError(
                f"source = {_short(source)}: {where} is not TOML ({exc}); a str is read as "
                "TOML text, not as a path: pass a pathlib.Path to read a file"
            ) from None
    elif isinstance(source, list):
        entries = source
    else:
        raise InvalidInputError(
            f"source = {_short(source)}: expected a path, TOML text or a list of claim tables, got "
            f"{type(source).__name__}"
        )
    if not isinstance(entries, list):
        raise InvalidInputError(f"source: {where}'s claim must be an array of tables ([[claim]])")
    out: dict[str, Declared] = {}
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise InvalidInputError(
                f"source[{i}] = {_short(entry)}: expected a claim table (dict), got "
                f"{type(entry).__name__}"
            )
        d = _declared(dict(entry), where)
        if d.id in out:
            raise InvalidInputError(f"{where}: claim {d.id!r} declared twice (ids are unique)")
        out[d.id] = d
    return out


# --- the ledger -----------------------------------------------------------------------------------


@result_type
@dataclass(frozen=True)
class Claim:
    """One claim of the ledger: as declared, with our measurement and its status.

    Parameters
    ----------
    claim_id : str
        The claim's id.
    kind : str
        ``"paper"``, ``"finding"`` or ``"check"``.
    source : str
        Where the paper says it.
    statement : str
        The paper's statement.
    paper : object
        The paper's value (None where the statement has no number).
    ours : object
        What we measured (None when not tested).
    rule : str
        How ``ours`` was compared, in words (:meth:`Declared.rule_text`).
    status : str
        ``"held"``, ``"not reproduced"``, ``"inconclusive"`` or ``"not tested"``.
    note : str
        What we measured and why, for a reader.
    wall_clock : bool
        Decided by wall-clock time.
    cell : str or None
        The notebook cell that measured it (:func:`cell_key` of its source); None outside one.
    """

    claim_id: str
    kind: str
    source: str
    statement: str
    paper: object
    ours: object
    rule: str
    status: str
    note: str = ""
    wall_clock: bool = False
    cell: str | None = None


def cell_key(source: str) -> str:
    """A short key of a notebook cell's source (its stripped text hashed): how a claim names the
    cell that measured it, so the site can link each claim of the ledger to that cell of the
    executed notebook.

    Parameters
    ----------
    source : str
        The cell's source.

    Returns
    -------
    str
        Twelve hexadecimal digits.

    Examples
    --------
    >>> cell_key("x = 1\\n") == cell_key("x = 1")
    True
    """
    if not isinstance(source, str):
        raise InvalidInputError(
            f"source = {_short(source)}: expected a cell's source text (str), got "
            f"{type(source).__name__}"
        )
    return hashlib.sha1(source.strip().encode()).hexdigest()[:12]


def _current_cell() -> str | None:
    """:func:`cell_key` of the notebook cell being executed (IPython keeps its source in ``_ih``);
    None outside IPython."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with ipykernel
        return None
    shell = get_ipython()
    history = shell.user_ns.get("_ih") if shell is not None else None
    return cell_key(history[-1]) if history else None


@result_type
@dataclass(frozen=True)
class Measurement:
    """What an experiment driver measured for one declared claim: the value the claim's rule is
    applied to and, where a reader needs it, a note saying what was measured (and why a mismatch
    happens, where known).

    Drivers return ``{claim_id: Measurement}`` from the tables they made, so that the arithmetic
    behind a claim is library code with tests, and a notebook's claims cell only hands it over
    (:meth:`ClaimLog.measure_all`).

    Parameters
    ----------
    value : object
        The value the claim's rule is applied to.
    note : str
        What was measured, for a reader.
    runs : int or None
        The number of runs behind ``value``, for ``se`` rules only.
    cell : str or None
        The notebook cell where it was measured (:func:`cell_key` of its source; by default the cell
        running when the measurement is made, so a claim links to the section that computed it, not
        to the claims cell that hands it over; None outside a notebook).
    sd : float or None
        The standard deviation over those runs, for ``se`` rules declared with ``sd = "pooled"``
        only.
    """

    value: object
    note: str = ""
    runs: int | None = None
    cell: str | None = field(default_factory=_current_cell, compare=False)
    sd: float | None = None


class ClaimsFailed(AssertionError):
    """Raised by :meth:`ClaimLog.finish` when the ledger is incomplete (a declared claim was not
    measured)."""


def pooled_count_sd(
    paper_mean: float, n_paper: int, our_mean: float, runs: int, our_sd, *, claim: str = ""
) -> float:
    """The standard deviation of a count per run estimated from two samples together, as under the
    hypothesis that they draw from one distribution: the combined sample's variance (within both
    samples and between their means), with the paper's unprinted spread taken at its least — a
    whole-number count with a mean whose fractional part is f has variance at least f(1 - f).

    A count the paper saw once in 1,000 runs (mean 0.001) and we never saw keeps a spread, so the
    rule does not ask for an exact match; the paper's spread at its least makes the bound no wider
    than the true pooled one. The between-means term keeps the bound above k·|d|/√(n_paper +
    runs): with n_paper + runs <= k² no difference could fail the rule, so it is meant for the
    paper's hundreds of runs, not a handful.

    Parameters
    ----------
    paper_mean : float
        The paper's mean count per run.
    n_paper : int
        The paper's number of runs.
    our_mean : float
        Our mean count per run.
    runs : int
        Our number of runs.
    our_sd : float
        The population standard deviation over our runs.
    claim : str
        The claim's id, named in errors.

    Returns
    -------
    float
        The pooled standard deviation.

    Examples
    --------
    >>> round(pooled_count_sd(0.001, 1000, 0.0, 1000, 0.0), 4)
    0.0224
    """
    if not (_is_number(our_sd) and our_sd >= 0 and math.isfinite(our_sd)):
        raise InvalidInputError(
            f"claim {claim!r}: its se rule pools our runs' spread with the paper's (the "
            "paper prints none): give sd = the standard deviation over our runs, got "
            f"{our_sd!r}"
        )
    frac = paper_mean - math.floor(paper_mean)
    n = n_paper + runs
    between = n_paper * runs / n * (our_mean - paper_mean) ** 2
    return math.sqrt((runs * our_sd**2 + n_paper * frac * (1 - frac) + between) / n)


@dataclass
class ClaimLog:
    """The claims ledger of one notebook: declared claims (the registry), measured by the notebook.

    Every claim's statement, paper value and rule are declared beforehand in
    ``notebooks/claims/<key>.toml`` (:func:`registry_path`); the notebook can only :meth:`measure`.
    A claim is **held** (the rule holds), **not reproduced** (it does not: the note says what we
    measured and, where known, why) or **not tested** (declared ``not_tested`` with the reason, or
    ``on_data`` and measured on a synthetic stand-in), or **inconclusive** (within the declared
    equivalence ``margin`` of a bound: the data cannot decide). :meth:`finish` writes
    ``claims.json`` and raises :class:`ClaimsFailed` if a declared claim was not measured. Whether a
    status changed since the committed ledger is checked by ``run_all.py`` (``--accept-claims``).

    Parameters
    ----------
    key : str
        The notebook's key (:func:`fairlib.paths.check_key`: letters, digits, ``_`` and ``-``, at
        most :data:`fairlib.paths.MAX_KEY_LENGTH` characters).
    mode : str
        ``"full"`` or ``"quick"`` (a quick ledger's statuses are provisional).
    write : bool
        Whether :meth:`finish` writes ``claims.json``.
    data : str or None
        Where the notebook's trace data came from (``"real"``, ``"synthetic"``; None when it reads
        none).
    registry : os.PathLike, str, list of dict or None
        A path (``pathlib.Path`` or any ``PurePath``), TOML text (a str is never read as a path) or
        list of claim tables, declaring at least one claim; by default :func:`registry_path`
        (``key``).
    claims : list of Claim
        The claims measured so far (empty to begin with).

    Raises
    ------
    FileNotFoundError
        When ``registry`` (or the default :func:`registry_path`) is a path to no file.
    InvalidInputError
        When ``key`` is no notebook key (too long included), ``mode``, ``write`` or ``data`` is not
        one of its values, the registry is malformed (:func:`load_registry`, naming ``registry``)
        or declares no claims, or ``claims`` is not a list of :class:`Claim` (None included),
        naming the argument.

    Examples
    --------
    >>> reg = '''
    ... [[claim]]
    ... id = "two_player_min"
    ... kind = "paper"
    ... source = "§3.1"
    ... statement = "the worst two-player efficiency is 2√2 − 2"
    ... paper_value = 0.828
    ... tol = 1e-3
    ... '''
    >>> log = ClaimLog("demo", write=False, registry=reg)
    >>> log.measure("two_player_min", 2 * 2**0.5 - 2)
    True
    >>> log.claims[0].status
    'held'
    """

    key: str
    mode: str = "full"
    write: bool = True
    data: str | None = None
    registry: object = None
    claims: list[Claim] = field(default_factory=list)

    def __post_init__(self):
        paths.check_key(self.key)
        paths._check_mode(self.mode)
        self.write = as_flag(self.write, "write")
        if self.data not in (None, "real", "synthetic"):
            raise InvalidInputError(f"data = {self.data!r}: must be 'real', 'synthetic' or None")
        as_list_of(self.claims, Claim, "claims")
        try:
            declared = load_registry(
                registry_path(self.key) if self.registry is None else self.registry, self.key
            )
        except InvalidInputError as exc:  # load_registry's source is this class's registry
            msg = str(exc)
            if not msg.startswith("source"):
                raise
            raise InvalidInputError("registry" + msg[len("source") :]) from None
        if not declared:
            # a ledger of nothing: finish() would pass with no claim checked
            shown = (
                f"registry (default {registry_path(self.key)})"
                if self.registry is None
                else f"registry = {_short(self.registry)}"
            )
            raise InvalidInputError(
                f"{shown}: declares no claims ([[claim]] tables); a ledger checks at least one"
            )
        self.declared = declared

    def __copy__(self) -> ClaimLog:
        """``copy.copy``: an independent log (a deep copy), whose measurements are its own: a
        shallow copy would record into the original's list of claims."""
        import copy

        return copy.deepcopy(self)

    def measure(
        self,
        claim_id: str,
        ours,
        *,
        note: str = "",
        runs: int | None = None,
        cell: str | None = None,
        sd: float | None = None,
    ) -> bool:
        """Record our measurement of a declared claim.

        Parameters
        ----------
        claim_id : str
            The claim, declared in the registry.
        ours : object
            What we measured: a number, a list, a mapping or a pandas Series, as its rule takes.
        note : str
            What we measured and why, for a reader (shown with every status).
        runs : int or None
            The number of runs behind ``ours`` (only for ``se`` rules; refused for any other).
        cell : str or None
            The notebook cell that measured it (default: the cell running now).
        sd : float or None
            Our runs' standard deviation, for an ``se`` rule declared with ``sd = "pooled"`` only.

        Returns
        -------
        bool
            Whether its declared rule holds.

        Raises
        ------
        InvalidInputError
            When ``claim_id`` is not declared in the registry, is declared ``not_tested`` or was
            measured already; when an argument is of the wrong type, ``runs`` is not an integer
            >= 1 or is given for a rule that does not read it (all but ``se``), ``sd`` is given
            for a rule that takes none, ``ours`` is a pandas Series a rule reads by position
            (``monotone``, ``converges``, a series of ``ordered``) whose index is not sorted
            ascending without repeats (refused rather than sorted: an index out of order more
            likely means the series was assembled wrong), ``ours`` is not of the shape its rule
            measures, or its rule needs what is not given (``runs``, a pooled rule's ``sd``). A
            refused measurement records nothing.
        """
        claim, satisfied = self._judge(claim_id, ours, note, runs, cell, sd)
        self.claims.append(claim)
        return satisfied

    def _judge(self, claim_id, ours, note, runs, cell, sd, pending=()) -> tuple[Claim, bool]:
        """The claim :meth:`measure` records and whether its rule holds, or the error it raises;
        changes nothing (``pending``: ids about to be recorded along with it)."""
        as_instance(claim_id, str, "claim_id")
        # a note is shown beside the claim in the ledger; none is ""
        as_text(note, "note", what="a note is shown in the ledger", optional=True, lines=True)
        if cell is not None:
            as_text(cell, "cell", what="a cell's key (cell_key) links the claim to its cell")
        # runs is checked, by the same name, where the rule reads it (Rule.spread), before anything
        # is recorded
        d = self.declared.get(claim_id)
        if d is None:
            raise InvalidInputError(
                f"claim_id = {claim_id!r}: not declared in the registry of "
                f"{self.key!r}; declare its statement and rule in {registry_path(self.key)} "
                "first"
            )
        if d.not_tested:
            raise InvalidInputError(
                f"claim_id = {claim_id!r}: declared not_tested ({d.not_tested}); it cannot be "
                "measured"
            )
        if claim_id in pending or any(c.claim_id == claim_id for c in self._measured()):
            raise InvalidInputError(
                f"claim_id = {claim_id!r}: measured twice (a claim is measured once)"
            )
        rule = d.rule
        if runs is not None and not rule.takes_runs:
            # checked as a count first, so a bad value is named as such whatever the rule
            _check_runs_and_spread(runs, None, "sd")
            raise InvalidInputError(
                f"claim {claim_id!r}: runs = {runs!r} given, but its rule ({d.rule_text()}) does "
                "not read the number of runs (only an se rule does); leave it out"
            )
        if sd is not None and not rule.takes_sd:
            raise InvalidInputError(
                f"claim {claim_id!r}: sd = {sd!r} given, but its rule ({d.rule_text()}) does "
                "not take our "
                'runs\' standard deviation (only an se rule declared with sd = "pooled" does)'
            )
        ours = _plain(_in_order(ours, rule, claim_id, d.rule_text()))
        # a pooled rule's spread, computed once: judged with, and shown in the rule (none for a NaN:
        # not reproduced)
        pooled = rule.spread(ours, runs, sd)
        satisfied = rule.holds(ours, runs, pooled)
        if d.on_data and self.data == "synthetic":
            status = "not tested"
            note = (
                "measured on synthetic stand-in data (the real excerpt was not found), which "
                "says nothing about the paper's trace" + (f"; {note}" if note else "")
            )
        elif rule.undecided(ours):
            status = "inconclusive"
        else:
            status = "held" if satisfied else "not reproduced"
        claim = Claim(
            claim_id,
            d.kind,
            d.source,
            d.statement,
            _plain(d.paper_value),
            ours,
            d.rule_text(runs, pooled),
            status,
            note,
            d.wall_clock,
            cell or _current_cell(),
        )
        return claim, satisfied

    def measure_all(self, measured) -> dict[str, bool]:
        """:meth:`measure` every claim of ``measured``, in its order, each linked to the cell where
        it was measured.

        Parameters
        ----------
        measured : dict of str to Measurement
            ``{claim_id: Measurement}``, as experiment drivers return them.

        Returns
        -------
        dict of str to bool
            Whether each claim's rule holds.

        Raises
        ------
        InvalidInputError
            When ``measured`` is not a mapping, names a claim the registry does not declare or holds
            a value that is not a :class:`Measurement`, or as :meth:`measure` raises for one of its
            entries (a ``not_tested`` claim, one measured already).

        Every entry is checked before any is recorded: a refused call measures none of them.

        Examples
        --------
        >>> reg = '''
        ... [[claim]]
        ... id = "worst_efficiency"
        ... kind = "paper"
        ... source = "§3.1"
        ... statement = "the worst efficiency is 3/4"
        ... paper_value = 0.75
        ... tol = 1e-3
        ... '''
        >>> log = ClaimLog("demo", write=False, registry=reg)
        >>> log.measure_all({"worst_efficiency": Measurement(0.7502, note="over 100 games")})
        {'worst_efficiency': True}
        """
        as_instance(measured, Mapping, "measured")
        # every entry checked before any is measured: a refused call records nothing
        for claim_id, m in measured.items():
            if not isinstance(claim_id, str) or claim_id not in self.declared:
                raise InvalidInputError(
                    f"measured: {claim_id!r} is no claim declared in the registry of {self.key!r}"
                )
            if not isinstance(m, Measurement):
                raise InvalidInputError(
                    f"measured[{claim_id!r}] = {_short(m)}: expected a "
                    "fairlib.repro.ledger.Measurement"
                )
        # every measurement judged before any is recorded: a refused one records none
        judged: dict[str, tuple[Claim, bool]] = {}
        for claim_id, m in measured.items():
            judged[claim_id] = self._judge(
                claim_id, m.value, m.note, m.runs, m.cell, m.sd, pending=judged
            )
        self.claims.extend(claim for claim, _ in judged.values())
        return {claim_id: satisfied for claim_id, (_, satisfied) in judged.items()}

    def _measured(self) -> list[Claim]:
        """:attr:`claims`, checked again where it is read: a public list a caller may have added
        to (``log.claims.append("junk")`` then failed in :meth:`summary` with an AttributeError)."""
        return as_list_of(self.claims, Claim, "claims")

    def _complete(self) -> list[str]:
        """The ids of declared claims never measured (nor declared not tested)."""
        return self._completed()[1]

    def _completed(self) -> tuple[list[Claim], list[str]]:
        """The claims with the declared not-tested ones added (their cell: the one that finishes
        the ledger, where they are listed), in the registry's order, and the ids of declared claims
        never measured; changes nothing."""
        claims = list(self._measured())
        measured = {c.claim_id for c in claims}
        cell = _current_cell()
        missing = []
        for d in self.declared.values():
            if d.id in measured:
                continue
            if d.not_tested:
                claims.append(
                    Claim(
                        d.id,
                        d.kind,
                        d.source,
                        d.statement,
                        _plain(d.paper_value),
                        None,
                        d.rule_text(),
                        "not tested",
                        d.not_tested,
                        d.wall_clock,
                        cell,
                    )
                )
            else:
                missing.append(d.id)
        rank = {cid: i for i, cid in enumerate(self.declared)}
        claims.sort(key=lambda c: rank[c.claim_id])
        return claims, missing

    def summary(self) -> dict:
        """Claim counts: ``total``, one per status, and one per status of each kind.

        Returns
        -------
        dict
            ``{"total": n, "held": ..., ..., "paper": {"held": ..., ...}, ...}`` (statuses with
            underscores).
        """
        return _counts(self._measured())

    def table(self) -> pd.DataFrame:
        """The ledger as a DataFrame, for display in the notebook.

        In quick mode every status is marked provisional (quick mode's sizes cannot decide the
        paper's claims; the full run's ledger counts).

        Returns
        -------
        pandas.DataFrame
            One row per claim: id, kind, source, paper, ours, rule, status, note.
        """
        cols = ["claim_id", "kind", "source", "paper", "ours", "rule", "status", "note"]
        mark = PROVISIONAL if self.mode == "quick" else ""
        return pd.DataFrame(
            [
                {k: display_value(getattr(c, k)) + (mark if k == "status" else "") for k in cols}
                for c in self._measured()
            ],
            columns=cols,
        )

    def listing(self) -> "ClaimListing":
        """The notebook's **Claims** section: its claims as a short list per status, each id linking
        to its row of the ledger (``data/results/CLAIMS.md#claim-<id>``; the book points it at its
        ledger page), the statement shown when the pointer rests on it. Rules, values and notes are
        the ledger's; in quick mode every status is marked provisional.

        Returns
        -------
        ClaimListing
            The claims, the declared not-tested ones included.
        """
        claims = self._measured()
        measured = {c.claim_id for c in claims}
        rows = [(c.claim_id, c.kind, c.status, c.statement) for c in claims]
        # the declared not-tested claims, listed by finish() (the ledger has them): the list shows
        # them too
        rows += [
            (d.id, d.kind, "not tested", d.statement)
            for d in self.declared.values()
            if d.not_tested and d.id not in measured
        ]
        rank = {cid: i for i, cid in enumerate(self.declared)}
        return ClaimListing(tuple(sorted(rows, key=lambda r: rank.get(r[0], len(rank)))), self.mode)

    def finish(self) -> dict:
        """Write ``claims.json``; raise :class:`ClaimsFailed` if a declared claim was not measured.

        The declared not-tested claims join :attr:`claims` once the ledger is written; a write that
        fails leaves the log as it was.

        Returns
        -------
        dict
            The ledger's counts (:meth:`summary`).

        Raises
        ------
        ClaimsFailed
            When a declared claim was not measured (after writing the ledger).
        OSError
            When the results folder or ``claims.json`` cannot be written (a read-only folder: a
            ``PermissionError``), naming the path.
        """
        claims, missing = self._completed()
        summary = _counts(claims)
        if self.write:
            out = paths.results_dir(self.key, self.mode)
            doc = {
                "key": self.key,
                "mode": self.mode,
                "data": self.data,
                "summary": summary,
                "claims": [asdict(c) for c in claims],
            }
            # atomic: a kernel killed mid-write must not leave a truncated claims.json for run_all
            # to read
            tmp = out / f".claims.json.{os.getpid()}.tmp"
            try:
                out.mkdir(parents=True, exist_ok=True)
                tmp.write_text(json.dumps(doc, indent=1, ensure_ascii=False, default=str) + "\n")
                os.replace(tmp, out / "claims.json")
            except OSError as exc:
                with contextlib.suppress(OSError):
                    tmp.unlink(missing_ok=True)
                raise type(exc)(
                    f"the ledger of {self.key!r} cannot be written to {out / 'claims.json'} "
                    f"({exc.strerror or exc}); nothing was recorded"
                ) from exc
        self.claims[:] = claims
        if missing:
            raise ClaimsFailed(
                f"{len(missing)} declared claim(s) of {self.key} were not measured: "
                + ", ".join(missing)
            )
        return summary


def _counts(claims: list[Claim]) -> dict:
    """The counts of :meth:`ClaimLog.summary` over ``claims``."""
    out: dict = {"total": len(claims)}
    for status in STATUSES:
        out[status.replace(" ", "_")] = sum(c.status == status for c in claims)
    for kind in KINDS:
        out[kind] = {
            status.replace(" ", "_"): sum(c.status == status and c.kind == kind for c in claims)
            for status in STATUSES
        }
    return out


#: where a notebook's Markdown links a claim (relative to ``executed/<key>.ipynb``): its row of the
#: ledger
LEDGER_LINK = "../data/results/CLAIMS.md#claim-{claim_id}"


def claim_anchor(claim_id: str) -> str:
    """The HTML anchor of a claim's row in the ledger (``CLAIMS.md`` and the book's ledger page).

    Parameters
    ----------
    claim_id : str
        The claim's id.

    Returns
    -------
    str
        ``claim-<id>``.

    Examples
    --------
    >>> claim_anchor("table1_1-20_over_sd")
    'claim-table1_1-20_over_sd'
    """
    if not _is_claim_id(claim_id):
        raise InvalidInputError(
            f"claim_id = {_short(claim_id)}: expected a claim id (a string that shows, without "
            f"spaces, control characters, quotes, angle brackets or #)"
        )
    return f"claim-{claim_id}"


@dataclass(frozen=True)
class ClaimListing:
    """A notebook's claims as a short list per status (:meth:`ClaimLog.listing`); shown as Markdown.

    Parameters
    ----------
    claims : tuple of tuple
        ``(claim id, kind, status, statement)`` per claim.
    mode : str
        ``"full"`` or ``"quick"`` (every status then marked provisional).

    Examples
    --------
    >>> print(
    ...     ClaimListing(
    ...         (("a", "paper", "held", "x"), ("b", "finding", "not reproduced", "y")), "full"
    ...     ).markdown()
    ... )
    **Held** (1): [`a`](../data/results/CLAIMS.md#claim-a "x")
    <BLANKLINE>
    **Not reproduced** (1): [`b`](../data/results/CLAIMS.md#claim-b "y") (finding)
    <BLANKLINE>
    Rules, the paper's values and ours, and notes: the [claims ledger](../data/results/CLAIMS.md).
    """

    claims: tuple
    mode: str = "full"

    def __post_init__(self):
        paths._check_mode(self.mode)
        if not isinstance(self.claims, tuple):
            raise InvalidInputError(
                f"claims = {_short(self.claims)}: expected a tuple of (claim id, kind, status, "
                f"statement)"
            )
        for i, c in enumerate(self.claims):
            if not (isinstance(c, tuple) and len(c) == 4 and c[2] in STATUSES and c[1] in KINDS):
                raise InvalidInputError(
                    f"claims[{i}] = {_short(c)}: expected (claim id, kind, status, statement) "
                    f"with a kind of {KINDS} and a status of {STATUSES}"
                )

    def markdown(self) -> str:
        """The list as Markdown.

        Returns
        -------
        str
            One paragraph per status that has claims, then the link to the ledger.
        """
        words = {
            "held": "Held",
            "not reproduced": "Not reproduced",
            "inconclusive": "Inconclusive",
            "not tested": "Not tested",
        }
        mark = PROVISIONAL if self.mode == "quick" else ""
        parts = []
        for status in STATUSES:
            chosen = [c for c in self.claims if c[2] == status]
            if not chosen:
                continue
            items = []
            for claim_id, kind, _, statement in chosen:
                title = " ".join(str(statement).split()).replace('"', "'")
                link = LEDGER_LINK.format(claim_id=claim_id)
                # the id as code: its underscores stay visible under a link's underline
                items.append(
                    f'[`{claim_id}`]({link} "{title}")' + ("" if kind == "paper" else f" ({kind})")
                )
            parts.append(f"**{words[status]}{mark}** ({len(chosen)}): " + ", ".join(items))
        parts.append(
            "Rules, the paper's values and ours, and notes: the [claims "
            "ledger](../data/results/CLAIMS.md)."
        )
        return "\n\n".join(parts)

    @classmethod
    def from_ledger(cls, claims: list, mode: str = "full") -> "ClaimListing":
        """The list of a ledger as ``claims.json`` holds it.

        Parameters
        ----------
        claims : list of dict
            The ledger's claims (every claim, the not-tested ones included).
        mode : str
            The ledger's mode.

        Returns
        -------
        ClaimListing
            The list.
        """
        return cls(
            tuple((c["claim_id"], c["kind"], c["status"], c["statement"]) for c in claims), mode
        )

    def _repr_markdown_(self) -> str:
        return self.markdown()

    def __repr__(self) -> str:
        return self.markdown()


def display_value(value) -> str:
    """A measured or paper value as shown in ledgers.

    Parameters
    ----------
    value : object
        A number, a list, a mapping, text or None.

    Returns
    -------
    str
        6 significant digits, long numeric lists as their range, nothing for None.
    """
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return str(value)  # exact, with no float in between (10**400 has none)
    if _is_number(value) and not float(value).is_integer():
        return f"{value:.6g}"
    if isinstance(value, list) and len(value) > 4 and _numbers(value):
        return f"{min(value):.4g} to {max(value):.4g} ({len(value)} values)"
    if isinstance(value, list) and _numbers(value):
        return "[" + ", ".join(display_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "; ".join(f"{k}: {display_value(v)}" for k, v in value.items())
    return "" if value is None else str(value)


def measured_values(measured) -> dict:
    """The values of measurements: the numbers a notebook's "What we found" prose quotes.

    Parameters
    ----------
    measured : dict of str to Measurement
        ``{claim_id: Measurement}``.

    Returns
    -------
    dict
        ``{claim_id: value}``.

    Examples
    --------
    >>> measured_values({"worst_efficiency": Measurement(0.75, note="over 100 games")})
    {'worst_efficiency': 0.75}
    """
    if not isinstance(measured, Mapping):
        raise InvalidInputError(
            f"measured = {_short(measured)}: expected a dict of claim id -> Measurement"
        )
    for claim_id, m in measured.items():
        if not isinstance(claim_id, str):
            raise InvalidInputError(
                f"measured: key {_short(claim_id)} is not a claim id (text), got "
                f"{type(claim_id).__name__}"
            )
        as_instance(m, Measurement, f"measured[{claim_id!r}]")
    return {claim_id: m.value for claim_id, m in measured.items()}
