"""Input validation shared by every mechanism.

Each ``as_*`` function converts its argument to a contiguous float64 (or bool) array and raises
:class:`InvalidInputError` naming the argument, the offending index and value when the input is
malformed.  Nothing is clipped or dropped silently.
"""

from __future__ import annotations

import argparse
import contextlib
import decimal
import numbers
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar, Union

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike

from ._errors import InvalidInputError  # defined apart, for fairlib._jit (see fairlib._errors)

if TYPE_CHECKING:
    import pandas as pd

T = TypeVar("T")

#: what :func:`as_rng` accepts as a seed, None aside: an argument that also takes None (fresh OS
#: entropy) is annotated ``Seed | None``, so its signature says so where an alias would hide it
Seed = Union[int, np.random.SeedSequence, np.random.BitGenerator, np.random.Generator]
#: why :func:`as_rng` refuses None where the caller promises the same result from the same seed
FRESH_ENTROPY = (
    "pass an integer seed; None would draw fresh entropy and the result could not be reproduced"
)

__all__ = [
    "InvalidInputError",
    "check_shown_text",
    "as_table",
    "as_demands",
    "as_capacities",
    "as_weights",
    "scale_weights",
    "WEIGHT_RANGE",
    "as_budgets",
    "as_eligibility",
    "check_labels",
    "Labels",
    "check_task_bound",
    "MAX_ITERATIONS",
    "MAX_DRAWN",
    "check_drawn",
    "as_number",
    "as_weight",
    "is_real",
    "is_real_dtype",
    "as_tolerance",
    "TOL_MIN",
    "TOL_MAX",
    "as_count",
    "as_counts",
    "as_integers",
    "as_tally",
    "as_finite",
    "EXACT_INTEGER_MAX",
    "BEYOND_EXACT",
    "inexact_row",
    "as_time",
    "MAX_SECONDS",
    "as_amount",
    "MONEY_RATIO",
    "as_flag",
    "as_path",
    "path_text",
    "MAX_PATH_PART_BYTES",
    "as_label",
    "as_text",
    "as_labels",
    "as_sequence",
    "as_argv",
    "as_integer_text",
    "as_number_text",
    "cli_integer",
    "cli_number",
    "command_parser",
    "check_column_labels",
    "writing_to",
    "INTEGER_TEXT",
    "MAX_INTEGER_DIGITS",
    "NUMBER_TEXT",
    "as_parts",
    "as_array",
    "as_real_array",
    "as_identifiers",
    "as_selection",
    "as_values",
    "as_rng",
    "Seed",
    "FRESH_ENTROPY",
    "as_instance",
    "as_list_of",
    "check_columns",
    "check_no_complex",
    "check_choice",
    "result_type",
    "read_only_state",
    "is_result_type",
]

INT64_MAX = np.iinfo(np.int64).max
#: where fairlib reads a number as a float64 (its number type), every integer up to 2**53 in
#: magnitude is held exactly; beyond it only some are (2**54 is, 2**53 + 1 is not: it rounds to
#: 2**53). An integer float64 does not hold exactly (a Python int, a NumPy integer, an entry of an
#: integer or object array) is refused with its index and value, never rounded into a different
#: number; integers that are not read as numbers (identifiers, counts checked against int64) are
#: not bound by it
EXACT_INTEGER_MAX = 2**53
#: why an integer float64 does not hold is refused, the end of the message
BEYOND_EXACT = (
    "an integer beyond 2**53 that float64 (the library's number type) cannot hold exactly"
)


def _inexact(value: int) -> bool:
    """Whether float64 holds the integer ``value`` as another number (or not at all): never up to
    :data:`EXACT_INTEGER_MAX` in magnitude, for some integers beyond."""
    if -EXACT_INTEGER_MAX <= value <= EXACT_INTEGER_MAX:
        return False
    try:
        return int(float(value)) != value
    except OverflowError:
        return True


def _inexact_mask(arr: np.ndarray) -> np.ndarray:
    """:func:`_inexact` of each entry of an integer array: one vectorised comparison with
    :data:`EXACT_INTEGER_MAX`, then the few entries beyond it read as Python ints."""
    beyond = arr > EXACT_INTEGER_MAX
    if arr.dtype.kind == "i":
        beyond |= arr < -EXACT_INTEGER_MAX
    if beyond.any():
        flat = beyond.reshape(-1).copy()
        values = arr.reshape(-1)
        for k in np.flatnonzero(flat).tolist():
            flat[k] = _inexact(int(values[k]))
        beyond = flat.reshape(arr.shape)
    return beyond


#: the most iterations, rounds or sweeps a caller may ask of an iterative method (each ``max_iter``,
#: ``iterations``, ``max_sweeps``, ``max_rounds``): every default is at most 50,000, and a count
#: past this one is a typo that would keep the loop running for hours, not a budget
MAX_ITERATIONS = 1_000_000
#: the range of every tolerance (``tol``, ``gap_tol``): below ``TOL_MIN`` a tolerance is lost in the
#: rounding of values of order 1 (an unattainable stopping rule, or an exact comparison in
#: disguise), above ``TOL_MAX`` it is no longer a tolerance but a different question
TOL_MIN, TOL_MAX = 1e-15, 0.1
#: the largest time or duration, in seconds, of either sign (a replay's start and horizon, a
#: reallocation interval, a trace's origin and window): 2**53 s (285 million years), the last
#: float64 at which one second is still resolved (the traces' clocks count µs in int64, 9.2e12 s at
#: most); beyond it ``t + 1 == t``, and a grid of ticks or bins from it never advances
MAX_SECONDS = 2.0**53
#: the most numbers a random instance generator draws into one array (``n_users`` x ``n_machines``
#: preferences, a cluster's users x servers eligibility, ``size`` x 2 task requests): 10**8 float64
#: are 800 MB, the size of the largest games the experiments allow (10,000 users x 10,000
#: machines); a larger count is a typo that ended in a raw MemoryError, or in swapping
MAX_DRAWN = 100_000_000
#: the widest ratio between two sums of money of one bidding game (a reserve bid or a user's budget,
#: against the largest budget or the other users' total bid): the papers' games bid within 1e-6 of a
#: unit budget, and beyond a factor 1e12 the smaller sum is lost in the rounding (1e-16 relative) of
#: prices summed over thousands of bids
MONEY_RATIO = 1e12


def _fmt_index(idx) -> str:
    return ", ".join(str(int(i)) for i in np.atleast_1d(idx))


def _first(mask: np.ndarray):
    """Index tuple of the first True entry of ``mask``."""
    return tuple(int(i) for i in np.argwhere(mask)[0])


def _check_unmasked(x: object, name: str) -> None:
    """Refuse a masked array that hides an entry: ``np.asarray`` would read the masked value as
    data (a mask is dropped, not obeyed)."""
    if np.ma.isMaskedArray(x) and np.ma.is_masked(x):
        at = np.argwhere(np.ma.getmaskarray(x))[0]
        where = ", ".join(map(str, at.tolist()))
        raise InvalidInputError(
            f"{name}[{where}] is masked: fill or drop the masked entries first (a mask is not read)"
        )


#: ``aligned_to`` of the ``as_*`` helpers: (the other argument's name, its value, its axis), the
#: argument whose pandas labels this one's must repeat in the same order; axis None: the value is
#: itself the sequence of labels (names given as an argument, such as ``resources``), or None
Aligned = tuple[str, object, Union[int, None]]


class Labels(NamedTuple):
    """The pandas labels an argument had, kept after it is read as an array (so that a check made
    later, against another argument, still sees them); None along an axis without labels.

    Parameters
    ----------
    rows : tuple or None
        The labels along axis 0 (a Series' or DataFrame's index).
    columns : tuple or None
        The labels along axis 1 (a DataFrame's columns; a Series' index).
    """

    rows: tuple | None
    columns: tuple | None

    @classmethod
    def of(cls, x: object) -> Labels:
        """The labels of ``x`` (none for anything that is not a labelled pandas object).

        Parameters
        ----------
        x : object
            The argument as given.

        Returns
        -------
        Labels
            Its labels along axes 0 and 1 (a Series' index along both).
        """
        found = [_labels(x, axis) for axis in (0, 1)]
        return cls(*(None if f is None else tuple(f) for f in found))


def _labels(x: object, axis: int) -> list | None:
    """The pandas labels of ``x`` along ``axis`` (0: a Series' or DataFrame's index, 1 or -1: a
    DataFrame's columns or a Series' index); None for anything else, and for a default
    ``RangeIndex`` (labels nobody chose say nothing about order). A :class:`Labels` gives the
    labels it kept."""
    if isinstance(x, Labels):
        kept = x.rows if axis == 0 else x.columns
        return None if kept is None else list(kept)
    if not type(x).__module__.startswith("pandas"):
        return None
    import pandas as pd

    if isinstance(x, pd.Series):
        index = x.index
    elif isinstance(x, pd.DataFrame):
        index = x.index if axis == 0 else x.columns
    else:
        return None
    if isinstance(index, pd.RangeIndex):
        return None
    return list(index)


def _check_aligned(x: object, name: str, axis: int, aligned_to: Aligned | None) -> None:
    """Refuse labelled input whose labels disagree with another argument's: the kernels read
    positions, so a capacity Series indexed (mem, cpu) against demand columns (cpu, mem) would be
    read crosswise. Refusing rather than reindexing keeps one rule for every input type (a list
    has no labels to align) and leaves the choice of order to the caller."""
    if aligned_to is None:
        return
    other_name, other, other_axis = aligned_to
    mine = _labels(x, axis)
    if other_axis is None:  # the labels themselves, e.g. the resource names given
        theirs = None if other is None else list(other)  # type: ignore[call-overload]
        whose, hint = other_name, other_name
    else:
        theirs = _labels(other, other_axis)
        side = "columns" if other_axis != 0 else "index"
        whose, hint = f"the {side} of {other_name}", f"{other_name}.{side}"
    if mine is None or theirs is None or mine == theirs:
        return
    if len(mine) == len(theirs) and sorted(map(repr, mine)) == sorted(map(repr, theirs)):
        raise InvalidInputError(
            f"{name}: labels {_short(mine)} are {whose}, {_short(theirs)}, in another order; "
            f"fairlib reads positions, not labels: reorder one to match the other"
            + (f" (e.g. {name}.reindex({hint}))" if axis == 0 else "")
        )
    if len(mine) != len(theirs):
        return  # the length check names the mismatch
    i = next(k for k, (a, b) in enumerate(zip(mine, theirs)) if a != b)
    at = f"{other_name}[{i}]" if other_axis is None else f"the {side}[{i}] of {other_name}"
    raise InvalidInputError(
        f"{name}: label {mine[i]!r} at position {i} is not {theirs[i]!r}, {at}; fairlib reads "
        "positions, not labels: give both the same labels"
    )


def check_labels(against: Aligned, axis: int = 0, **arguments: object) -> None:
    """Refuse each pandas argument whose labels along ``axis`` are not ``against``'s (same labels,
    same order): for per-user or per-resource arguments a function reads by position without a
    helper of its own (``max_tasks``, ``start``, ``paths``, ``parallelism``, ...).

    Parameters
    ----------
    against : (str, object, int)
        The argument whose labels the others must repeat: its name, value and axis.
    axis : int, default 0
        The axis of each argument that is compared.
    **arguments : object
        The arguments by name; None and unlabelled ones are read by position.

    Raises
    ------
    InvalidInputError
        Naming the first argument whose labels disagree with ``against``'s.
    """
    for name, value in arguments.items():
        _check_aligned(value, name, axis, against)


def is_real(value: object) -> bool:
    """Whether ``value`` is a real number fairlib reads as a float.

    One rule for scalars and for the entries of arrays: ``int``, ``float``, NumPy's integers and
    floats, and any other :class:`numbers.Real` (``fractions.Fraction``) or
    :class:`decimal.Decimal`, read as ``float(value)`` (rounded to the nearest float64; an
    integer beyond :data:`EXACT_INTEGER_MAX` is refused where it is read, as no float64 holds it
    exactly). Booleans are not numbers here, nor are complex numbers or text.

    Parameters
    ----------
    value : object
        Anything.

    Returns
    -------
    bool
        Whether ``value`` is such a number (finite or not: the range is the caller's to check).

    Examples
    --------
    >>> from fractions import Fraction
    >>> is_real(Fraction(1, 2)), is_real(True), is_real("2")
    (True, False, False)
    """
    return not isinstance(value, (bool, np.bool_)) and isinstance(
        value, (numbers.Real, decimal.Decimal)
    )


def _to_float(value, name: str, rule: str) -> float:
    """``float(value)`` for a value :func:`is_real` accepts, refusing an integer beyond
    :data:`EXACT_INTEGER_MAX` (which no float64 holds exactly: ``2**53 + 1`` would be read as
    ``2**53``), one beyond the float range (a huge ``Fraction``) or a signalling ``Decimal`` NaN,
    with ``rule`` in the message."""
    if isinstance(value, numbers.Integral) and _inexact(int(value)):
        raise InvalidInputError(f"{name} = {_short(int(value))}: {BEYOND_EXACT}")
    try:
        return float(value)
    except (OverflowError, ValueError):
        raise InvalidInputError(
            f"{name} = {_short(value)}: must be {rule} (beyond the float range)"
        ) from None


def _first_bool(x: list | tuple, at: tuple[int, ...] = ()) -> tuple[tuple[int, ...], bool] | None:
    """The index and value of the first boolean (``bool``, ``np.bool_`` or an entry of a boolean
    array) in a nested list or tuple, or None: NumPy reads ``[True, 3]`` as the integers
    ``[1, 3]``."""
    for k, v in enumerate(x):
        if isinstance(v, (bool, np.bool_)):
            return (*at, k), bool(v)
        if isinstance(v, (list, tuple)):
            found = _first_bool(v, (*at, k))
            if found is not None:
                return found
        elif isinstance(v, np.ndarray) and v.dtype.kind == "b" and v.size:
            return (*at, k, *(0,) * v.ndim), bool(v.flat[0])
    return None


def _first_inexact(x: list | tuple, at: tuple[int, ...] = ()) -> tuple[tuple[int, ...], int] | None:
    """The index and value of the first integer float64 does not hold (:func:`_inexact`) in a
    nested list or tuple (an ``int``, a NumPy integer or an entry of an integer array), or None:
    NumPy reads ``[0.5, 2**53 + 1]`` as float64, rounding the integer."""
    for k, v in enumerate(x):
        if isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_)):
            if _inexact(int(v)):
                return (*at, k), int(v)
        elif isinstance(v, (list, tuple)):
            found = _first_inexact(v, (*at, k))
            if found is not None:
                return found
        elif isinstance(v, np.ndarray) and v.dtype.kind in "iu" and v.size:
            beyond = _inexact_mask(v)
            if beyond.any():
                idx = _first(beyond)
                return (*at, k, *idx), int(v[idx])
    return None


def _refuse_mixed_bools(x: object, arr: np.ndarray, name: str) -> None:
    """Refuse a list or tuple that mixes booleans with numbers (NumPy reads them as 1 and 0), naming
    the first boolean's index. An all-boolean list is a boolean array, left to the caller's rule,
    and an array needs no scan: its dtype says what it holds."""
    if not isinstance(x, (list, tuple)) or arr.dtype.kind not in "iufc":
        return
    found = _first_bool(x)
    if found is not None:
        at, value = found
        raise InvalidInputError(
            f"{name}[{_fmt_index(at)}] = {value}: booleans are not numbers (a list that mixes "
            "them with numbers is refused)"
        )


def _object_numbers(arr: np.ndarray, x: object, name: str, exact: bool) -> np.ndarray:
    """An object array of real numbers (:func:`is_real`) as int64 (every entry an integer within
    int64), uint64 (every entry an integer within uint64) or float64; any other entry is refused
    with its index, and so is an integer that float64 cannot hold exactly
    (:data:`EXACT_INTEGER_MAX`) where the array is read as float64. Without ``exact``, an array of
    integers beyond 64 bits is refused naming the first such integer."""
    flat = arr.reshape(-1)

    def where(k: int) -> str:
        return f"{name}[{_fmt_index(np.unravel_index(k, arr.shape))}]" if arr.ndim else name

    for k, v in enumerate(flat.tolist()):
        if is_real(v):
            continue
        if type(v).__name__ == "NAType":  # pandas' missing value, refused as NaN is
            raise InvalidInputError(f"{where(k)} = <NA>: {name} must be finite (a missing value)")
        raise InvalidInputError(
            f"{name} = {_short(x)}: must be a numeric array, got ragged or object data "
            f"({where(k)} is {type(v).__name__})"
        )
    values = flat.tolist()
    if all(isinstance(v, numbers.Integral) for v in values):
        ints = [int(v) for v in values]
        if all(-INT64_MAX - 1 <= v <= INT64_MAX for v in ints):
            return np.array(ints, dtype=np.int64).reshape(arr.shape)
        if all(0 <= v <= 2**64 - 1 for v in ints):
            return np.array(ints, dtype=np.uint64).reshape(arr.shape)
        if not exact:
            k = next(k for k, v in enumerate(ints) if not -INT64_MAX - 1 <= v <= 2**64 - 1)
            raise InvalidInputError(
                f"{where(k)} = {ints[k]}: an integer beyond 64 bits (int64 or uint64)"
            )
    out = np.empty(flat.shape, dtype=np.float64)
    for k, v in enumerate(values):
        out[k] = _to_float(v, where(k), "a finite number")
    return out.reshape(arr.shape)


def _check_exact(arr: np.ndarray, name: str) -> None:
    """Refuse an integer array holding an entry beyond :data:`EXACT_INTEGER_MAX` in magnitude,
    naming its index and value: float64 would round it to another number. Other dtypes, and
    integer dtypes too narrow to reach 2**53, are not scanned."""
    if arr.dtype.kind not in "iu" or arr.dtype.itemsize < 8:
        return
    beyond = _inexact_mask(arr)
    if beyond.any():
        idx = _first(beyond)
        at = f"{name}[{_fmt_index(idx)}]" if arr.ndim else name
        raise InvalidInputError(f"{at} = {int(arr[idx])}: {BEYOND_EXACT}")


def as_array(x: ArrayLike, name: str, *, exact: bool = True) -> np.ndarray:
    """``np.asarray(x)`` for numeric input, refusing ragged lists, objects and text.

    The dtype is left as it is (see :func:`as_values` for a checked float64 array). Numbers are
    read as float64 in the end, so an integer float64 does not hold exactly (one beyond
    :data:`EXACT_INTEGER_MAX`, such as ``2**53 + 1``) is refused unless ``exact`` is False
    (integers that stay integers: counts and classes).

    Parameters
    ----------
    x : array_like
        Numbers of any shape: booleans, integers, floats or complex numbers; an object array (a
        list of ``Fraction`` or ``Decimal``, a pandas nullable ``Int64``/``Float64`` frame) whose
        entries are all real numbers (:func:`is_real`) is read as int64 when every entry is an
        integer within int64 (uint64: within uint64), else as float64.
    name : str
        The argument's name, used in the error message.
    exact : bool, default True
        Whether an integer float64 does not hold exactly (:data:`EXACT_INTEGER_MAX`) is refused
        (it is, in an array read as float64, whatever ``exact``).

    Returns
    -------
    numpy.ndarray
        ``np.asarray(x)``, of the dtype NumPy infers (int64, uint64 or float64 for object input).

    Raises
    ------
    InvalidInputError
        When ``x`` is ragged, holds an entry that is no real number (``None``, a Cluster, text,
        a boolean among objects, or a list or tuple mixing booleans with numbers, named by the
        first boolean's index), a missing value (``pd.NA``) or a number beyond the float range,
        or is text or binary data (``bytes``, ``bytearray``, ``memoryview``, also as a row); with
        ``exact``, when it holds an integer float64 does not hold (:data:`EXACT_INTEGER_MAX`) (named
        by index and value).

    Examples
    --------
    >>> as_array([[1, 2], [3]], "demands")
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: demands = [[1, 2], [3]]: must be a numeric array, got
    ragged or object data
    """
    _check_unmasked(x, name)
    _check_not_binary(x, name, 0)
    try:
        arr = np.asarray(x)
    except Exception:  # ragged lists and similar
        arr = None
    if isinstance(x, (list, tuple)) and (arr is None or arr.dtype == object or arr.ndim > 1):
        # a buffer among lists is one more axis of bytes to NumPy (or, among numbers, one
        # object): rows only, unless the array is ragged or of objects, which is read entry by
        # entry anyway
        depth = 64 if arr is None or arr.dtype == object else arr.ndim - 1
        _check_not_binary(x, name, depth)
    if arr is None:
        raise InvalidInputError(
            f"{name} = {_short(x)}: must be a numeric array, got ragged or object data"
        )
    if arr.dtype == object:
        arr = _object_numbers(arr, x, name, exact)
    _refuse_mixed_bools(x, arr, name)
    if arr.dtype.kind not in "biufc":
        raise InvalidInputError(f"{name}: must be numeric, got dtype {arr.dtype}: {_short(x)}")
    if exact:
        _check_exact(arr, name)
        if arr.dtype.kind == "f" and isinstance(x, (list, tuple)):
            # NumPy rounds an int among floats into the float64 array: the list tells
            found = _first_inexact(x)
            if found is not None:
                at, value = found
                raise InvalidInputError(
                    f"{name}[{_fmt_index(at)}] = {_short(value)}: {BEYOND_EXACT}"
                )
    return arr


def as_real_array(x: ArrayLike, name: str, *, copy: bool = True) -> npt.NDArray[np.float64]:
    """:func:`as_array` as float64, refusing booleans and complex numbers too.

    A boolean matrix passed as task counts, or a complex one, is a mistake, not a number; shape,
    sign and finiteness are the caller's to check.

    Parameters
    ----------
    x : array_like
        Real numbers of any shape (integers or floats).
    name : str
        The argument's name, used in the error message.
    copy : bool, default True
        When False, the input itself is returned if it already is a float64 array (for a caller that
        keeps nothing of it).

    Returns
    -------
    numpy.ndarray
        ``x`` as float64, same shape.

    Raises
    ------
    InvalidInputError
        When ``x`` is ragged, non-numeric, boolean or complex.

    Examples
    --------
    >>> as_real_array([[1, 2]], "tasks").dtype
    dtype('float64')
    >>> as_real_array([1j], "tasks")
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: tasks = [1j]: must be real numbers, got dtype complex128
    """
    arr = as_array(x, name)
    if arr.dtype.kind not in "iuf":
        raise InvalidInputError(
            f"{name} = {_short(x)}: must be real numbers, got dtype {arr.dtype}"
        )
    return arr.astype(np.float64, copy=copy)


def as_identifiers(ids: ArrayLike, name: str, *, allow_empty: bool = False) -> np.ndarray:
    """A 1-D array of identifiers: integers within int64 (Google's job ids) or text (Bitbrains VMs
    are named by file stems), one kind or the other.

    Parameters
    ----------
    ids : array_like
        One identifier per entry: integers from -2**63 to 2**63 - 1, or strings.
    name : str
        The argument's name, used in the error message.
    allow_empty : bool, default False
        Whether an empty sequence is accepted.

    Returns
    -------
    numpy.ndarray
        The identifiers as a 1-D array: int64 for integers (whatever integer type they came in),
        string or object dtype for text.

    Raises
    ------
    InvalidInputError
        When ``ids`` is binary data (``bytearray``, ``memoryview``: NumPy would read its bytes as
        integers), is not 1-D, is empty (unless ``allow_empty``), holds anything but integers and
        text (a bool is neither), mixes the two (NumPy would turn the integers into text), or holds
        an integer beyond int64 (an object array no int64 column, reader or sort would hold),
        naming the index and the value.

    Examples
    --------
    >>> as_identifiers([3, 7], "users").tolist()
    [3, 7]
    >>> as_identifiers(np.array([1.5]), "users")
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: users = array([1.5]): identifiers must be integers or text,
    got dtype float64
    >>> as_identifiers([7, 2**70], "users")
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: users[1] = 1180591620717411303424: an integer identifier
    is within int64 (-2**63 to 2**63 - 1)
    """
    _check_unmasked(ids, name)
    if isinstance(ids, BINARY):
        raise InvalidInputError(
            f"{name} = {_short(ids)}: expected a 1-D array of identifiers (integers or text), got "
            f"binary data ({type(ids).__name__})"
        )
    try:
        arr = np.array(ids)  # a copy, never the caller's array
    except (TypeError, ValueError):  # ragged lists
        arr = None
    if arr is not None:
        _refuse_mixed_bools(ids, arr, name)
    if arr is None or arr.ndim != 1:
        shape = "ragged" if arr is None else f"shape {arr.shape}"
        raise InvalidInputError(
            f"{name} = {_short(ids)}: expected a 1-D array of identifiers (integers or text), "
            f"got {shape}"
        )
    if arr.size == 0 and not allow_empty:
        raise InvalidInputError(f"{name} = {_short(ids)}: empty (at least one identifier)")
    if arr.size == 0:
        return arr
    elements: list[Any] | None = None
    if isinstance(ids, (list, tuple)):
        # read in the input itself: NumPy makes text of every element once one is text, and an
        # integer of every bool among integers
        elements = list(ids)
    elif arr.dtype == object:
        elements = list(arr)
    if elements is not None:
        integer = [
            isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))
            for x in elements
        ]
        text = [isinstance(x, (str, bytes)) for x in elements]
        for i, x in enumerate(elements):
            if not (integer[i] or text[i]):
                raise InvalidInputError(
                    f"{name}[{i}] = {_short(x)}: identifiers must be integers or text, got "
                    f"{type(x).__name__}"
                )
            if integer[i] != integer[0]:
                raise InvalidInputError(
                    f"{name}[{i}] = {_short(x)}: {'an integer' if integer[i] else 'text'} among "
                    f"{'text' if text[0] else 'integers'} ({name}[0] = {_short(elements[0])}); "
                    "identifiers are all integers or all text"
                )
            if integer[i] and not -INT64_MAX - 1 <= x <= INT64_MAX:
                raise InvalidInputError(
                    f"{name}[{i}] = {x}: an integer identifier is within int64 (-2**63 to "
                    "2**63 - 1)"
                )
        if integer[0]:
            arr = np.array([int(x) for x in elements], dtype=np.int64)
        return arr
    if arr.dtype.kind == "u":
        beyond = arr > INT64_MAX
        if beyond.any():
            i = int(np.argmax(beyond))
            raise InvalidInputError(
                f"{name}[{i}] = {arr[i]}: an integer identifier is within int64 (-2**63 to "
                "2**63 - 1)"
            )
    if arr.dtype.kind in "iu":
        return arr.astype(np.int64)
    if arr.dtype.kind not in "US":
        raise InvalidInputError(
            f"{name} = {_short(ids)}: identifiers must be integers or text, got dtype {arr.dtype}"
        )
    return arr


def _store_read_only(instance: object, **fields) -> None:
    """Set ``fields`` on a (frozen) instance, each array as a read-only copy of itself: an instance
    keeps what it validated, and neither the caller nor a reader can change it afterwards (the
    caller's arrays stay the caller's, writable)."""
    for name, value in fields.items():
        if isinstance(value, np.ndarray):
            value = np.array(value, order="C")
            value.setflags(write=False)
        object.__setattr__(instance, name, value)


def _got(x) -> str:
    """What ``x`` is, for a message refusing it as a number: its type, and for a 0-d array (which
    prints as a number) how to pass the number it holds."""
    if isinstance(x, np.ndarray) and x.ndim == 0:
        return "; got a 0-d array, not a number (pass x.item(), the number it holds)"
    return f"; got {type(x).__name__}"


def _short(x) -> str:
    """``repr(x)`` on one line, cut at 80 characters (an array's repr spans lines)."""
    text = " ".join(repr(x).split())
    return text if len(text) <= 80 else text[:77] + "..."


#: binary data: bytes and the buffers over them; NumPy reads ``b"\x09\x12"`` as text but a
#: ``bytearray`` or ``memoryview`` of it as the numbers 9 and 18, so all three are refused alike
BINARY = (bytes, bytearray, memoryview)


def _check_not_binary(x: object, name: str, depth: int) -> None:
    """Refuse ``x`` when it is binary data (:data:`BINARY`), or holds some among its nested lists
    and tuples down to ``depth`` levels (NumPy reads a buffer in a list as one more axis of
    bytes), naming the index."""
    if isinstance(x, BINARY):
        raise InvalidInputError(
            f"{name} = {_short(x)}: binary data ({type(x).__name__}) is not numbers; give "
            "the numbers (e.g. list(...) or np.frombuffer(..., dtype=...))"
        )
    level: list[tuple[tuple[int, ...], object]] = [((), x)]
    for _ in range(depth):
        if not level:
            break
        level = [
            ((*at, i), item)
            for at, seq in level
            if isinstance(seq, (list, tuple))
            for i, item in enumerate(seq)
        ]
        for at, item in level:
            if isinstance(item, BINARY):
                raise InvalidInputError(
                    f"{name}[{_fmt_index(at)}] = {_short(item)}: binary data "
                    f"({type(item).__name__}) is not numbers"
                )


def _as_float_array(x, name: str, ndim: int) -> np.ndarray:
    arr = as_array(x, name)
    if arr.dtype.kind == "c":
        raise InvalidInputError(f"{name}: must be real numbers, got complex dtype {arr.dtype}")
    if arr.dtype.kind == "b":
        raise InvalidInputError(f"{name}: must be numeric, got a boolean array")
    if arr.dtype.kind not in "iuf":
        raise InvalidInputError(f"{name}: must be numeric, got dtype {arr.dtype}")
    if arr.ndim != ndim:
        raise InvalidInputError(f"{name}: must be {ndim}-D, got shape {arr.shape}")
    if arr.size == 0:
        raise InvalidInputError(f"{name}: must not be empty, got shape {arr.shape}")
    # a copy, never the caller's array (np.ascontiguousarray returns a contiguous float64 input
    # itself): what a validated instance keeps must not change when the caller's array does
    arr = np.array(arr, dtype=np.float64, order="C")
    bad = ~np.isfinite(arr)
    if bad.any():
        idx = _first(bad)
        raise InvalidInputError(f"{name}[{_fmt_index(idx)}] = {arr[idx]}: {name} must be finite")
    return arr


def _check_sign(arr: np.ndarray, name: str, *, strict: bool) -> None:
    bad = arr <= 0 if strict else arr < 0
    if bad.any():
        idx = _first(bad)
        rule = "> 0" if strict else ">= 0"
        raise InvalidInputError(f"{name}[{_fmt_index(idx)}] = {arr[idx]}: {name} must be {rule}")


def _check_length(arr: np.ndarray, name: str, n: int | None, what: str) -> None:
    if n is not None and arr.shape[0] != n:
        raise InvalidInputError(f"{name}: expected length {n} ({what}), got shape {arr.shape}")


def as_demands(
    demands: ArrayLike,
    name: str = "demands",
    *,
    n_resources: int | None = None,
    allow_zero_rows: bool = False,
) -> npt.NDArray[np.float64]:
    """Per-task demand matrix ``demands[user, resource]``: finite, >= 0, and no all-zero row.

    Parameters
    ----------
    demands : array_like
        Shape (n_users, n_resources): the amount of each resource one task of each user needs.
    name : str, default "demands"
        The argument's name, used in the error message.
    n_resources : int or None, default None
        The number of resource columns required; None accepts any.
    allow_zero_rows : bool, default False
        Whether a user may demand nothing at all.

    Returns
    -------
    numpy.ndarray
        Contiguous float64 copy, shape (n_users, n_resources).

    Raises
    ------
    InvalidInputError
        On a non-2-D, empty, non-finite or negative matrix, a wrong number of columns, or an
        all-zero row.

    Examples
    --------
    >>> as_demands([[1, 4], [3, 1]]).dtype
    dtype('float64')
    >>> as_demands([[1, 4], [0, 0]])
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: demands[1] = [0. 0.]: every user must demand some resource
    """
    arr = _as_float_array(demands, name, 2)
    if n_resources is not None and arr.shape[1] != n_resources:
        raise InvalidInputError(
            f"{name}: expected {n_resources} resource columns, got shape {arr.shape}"
        )
    _check_sign(arr, name, strict=False)
    if not allow_zero_rows:
        zero = ~(arr > 0).any(axis=1)
        if zero.any():
            i = int(np.argmax(zero))
            raise InvalidInputError(f"{name}[{i}] = {arr[i]}: every user must demand some resource")
    return arr


def as_capacities(
    capacity: ArrayLike,
    name: str = "capacity",
    *,
    ndim: int = 1,
    n_resources: int | None = None,
    allow_zero: bool = False,
    aligned_to: Aligned | None = None,
) -> npt.NDArray[np.float64]:
    """Capacity vector ``capacity[resource]`` (``ndim=1``) or matrix ``capacity[server, resource]``
    (``ndim=2``).

    Entries must be finite and > 0 (>= 0 with ``allow_zero``: a server may lack a resource, but not
    every one).

    Parameters
    ----------
    capacity : array_like
        Shape (n_resources,) or (n_servers, n_resources), in the units of the demands.
    name : str, default "capacity"
        The argument's name, used in the error message.
    ndim : int, default 1
        1 for one pool, 2 for a cluster of servers.
    n_resources : int or None, default None
        The number of resources (the demand columns) required; None accepts any.
    allow_zero : bool, default False
        Whether zero entries are accepted.
    aligned_to : (str, object, int) or None, default None
        The demands (name, value, axis of the resources): a pandas ``capacity`` whose resource
        labels are not the demands' (same labels, same order) is refused.

    Returns
    -------
    numpy.ndarray
        Contiguous float64 copy of the given shape.

    Raises
    ------
    InvalidInputError
        On a wrong number of dimensions or resources, a non-finite, negative or (without
        ``allow_zero``) zero entry, or a server with no capacity at all.

    Examples
    --------
    >>> as_capacities([9, 18])
    array([ 9., 18.])
    >>> as_capacities([9, 0])
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: capacity[1] = 0.0: capacity must be > 0
    """
    arr = _as_float_array(capacity, name, ndim)
    _check_aligned(capacity, name, ndim - 1, aligned_to)
    if n_resources is not None and arr.shape[-1] != n_resources:
        raise InvalidInputError(
            f"{name}: expected {n_resources} resources (the demand columns), got shape {arr.shape}"
        )
    _check_sign(arr, name, strict=not allow_zero)
    if allow_zero and ndim == 2:
        empty = ~(arr > 0).any(axis=1)
        if empty.any():
            i = int(np.argmax(empty))
            raise InvalidInputError(f"{name}[{i}] = {arr[i]}: a server must have some capacity")
    return arr


def as_weights(
    weights: ArrayLike | None,
    n: int,
    name: str = "weights",
    *,
    allow_zero: bool = False,
    aligned_to: Aligned | None = None,
) -> npt.NDArray[np.float64]:
    """Positive finite weight vector of length ``n``; ``None`` means all ones.

    Parameters
    ----------
    weights : array_like or None
        Shape (n,): one weight per user.
    n : int
        The number of users.
    name : str, default "weights"
        The argument's name, used in the error message.
    allow_zero : bool, default False
        Whether zero weights are accepted (``>= 0`` instead of ``> 0``).
    aligned_to : (str, object, int) or None, default None
        The demands (name, value, axis of the users): a pandas ``weights`` whose user labels are
        not the demands' (same labels, same order) is refused.

    Returns
    -------
    numpy.ndarray
        Contiguous float64 copy, shape (n,) (never ``weights`` itself), scaled by a power of two
        when its largest entry is outside :data:`WEIGHT_RANGE` (:func:`scale_weights`).

    Raises
    ------
    InvalidInputError
        On a wrong length, a non-finite entry, a negative (or, without ``allow_zero``, zero)
        weight, or one below ``np.finfo(float).tiny`` times the largest.

    Examples
    --------
    >>> as_weights(None, 3)
    array([1., 1., 1.])
    """
    if weights is None:
        return np.ones(n)
    arr = _as_float_array(weights, name, 1)
    _check_aligned(weights, name, 0, aligned_to)
    _check_length(arr, name, n, "one per user")
    _check_sign(arr, name, strict=not allow_zero)
    return scale_weights(arr, name)


#: weights whose largest lies in this range are used as given; others are first scaled by the power
#: of two that brings the largest into [1, 2) (see :func:`scale_weights`)
WEIGHT_RANGE = (2.0**-64, 2.0**64)


def scale_weights(
    weights: npt.NDArray[np.float64], name: str, *, labels: list[str] | None = None
) -> npt.NDArray[np.float64]:
    """Validated weights (finite, >= 0) at a scale every weighted mechanism computes with.

    Every weighted mechanism reads weights up to a common factor (a share is compared divided by
    its user's weight), so weights whose largest lies outside :data:`WEIGHT_RANGE` are multiplied
    by a power of two: exact, and the same allocation, where ``1e-310`` (subnormal, a few
    significant digits) or ``1e-300`` (a share divided by it overflows) would have lost it. The
    power of two makes every weight an integer when one makes them all integers below 2**53
    (``2**-1030 * [1, 3]`` reads as ``[1, 3]``, and a mechanism's exact rational shares still
    apply), else it brings the largest into [1, 2). Weights inside the range are returned as
    given.

    Parameters
    ----------
    weights : numpy.ndarray
        Float64, finite and >= 0, any shape.
    name : str
        The argument's name, used in the error message.
    labels : list of str or None, default None
        The entries' names for the message, ``name[label]``, in place of their indices.

    Returns
    -------
    numpy.ndarray
        ``weights`` itself, or scaled by a power of two.

    Raises
    ------
    InvalidInputError
        When a positive weight is below ``np.finfo(float).tiny`` times the largest (its ratio to
        the largest is beyond the float range), naming the index and value.

    Examples
    --------
    >>> scale_weights(np.ldexp([1.0, 3.0], -1060), "weights")
    array([1., 3.])
    >>> scale_weights(np.array([0.5, 0.25]), "weights")  # inside the range: as given
    array([0.5 , 0.25])
    """
    positive = weights > 0
    if not positive.any():
        return weights
    top = float(weights.max())
    scaled = weights
    if not WEIGHT_RANGE[0] <= top <= WEIGHT_RANGE[1]:
        # integers when a power of two makes every weight one below 2**53 (1e-310 x [1, 3] reads
        # as [1, 3], so integer weights keep their exact rational shares), else the largest in
        # [1, 2)
        mantissa, exponent = np.frexp(weights[positive])
        digits = (mantissa * 2.0**53).astype(np.int64)  # exact: 53 significant bits
        last = exponent - 53 + np.log2(digits & -digits).astype(np.int64)  # lowest bit set
        with np.errstate(over="ignore"):  # beyond 2**53 either way: the other scale
            scaled = np.ldexp(weights, -int(last.min()))
        if float(scaled.max()) > 2.0**53:
            scaled = np.ldexp(weights, 1 - int(np.frexp(top)[1]))
    small = positive & (scaled < np.finfo(np.float64).tiny)
    if small.any():
        idx = _first(small)
        at = _fmt_index(idx) if labels is None else labels[idx[0]]
        raise InvalidInputError(
            f"{name}[{at}] = {float(weights[idx])!r}: a weight must be at least "
            f"{np.finfo(np.float64).tiny:.3g} times the largest ({top!r}); their ratio is beyond "
            "the float range"
        )
    return scaled


def as_task_caps(
    caps: ArrayLike | None,
    n: int,
    name: str = "max_tasks",
    *,
    aligned_to: Aligned | None = None,
) -> npt.NDArray[np.float64]:
    """Per-user caps on tasks, ``>= 0``, ``inf`` for none; ``None`` means no caps (all ``inf``).

    Parameters
    ----------
    caps : array_like or None
        Shape (n,): the most tasks each user may run; ``inf`` for no cap.
    n : int
        The number of users.
    name : str, default "max_tasks"
        The argument's name, used in the error message.
    aligned_to : (str, object, int) or None, default None
        The demands (name, value, axis of the users): pandas caps whose user labels are not the
        demands' are refused.

    Returns
    -------
    numpy.ndarray
        Float64 copy, shape (n,) (never ``caps`` itself).

    Raises
    ------
    InvalidInputError
        On a non-numeric or non-1-D input, a wrong length, NaN or a negative cap.

    Examples
    --------
    >>> as_task_caps([2, float("inf")], 2).tolist()
    [2.0, inf]
    >>> as_task_caps([1.0, -1.0], 2)
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: max_tasks[1] = -1.0: max_tasks must be >= 0
    """
    if caps is None:
        return np.full(n, np.inf)
    _check_unmasked(caps, name)
    arr = np.asarray(caps)
    _refuse_mixed_bools(caps, arr, name)
    if arr.dtype == object or arr.dtype.kind not in "iuf" or arr.ndim != 1:
        raise InvalidInputError(
            f"{name}: expected {n} numbers (one per user, inf for no cap), got "
            f"shape {arr.shape} dtype {arr.dtype}"
        )
    _check_exact(arr, name)
    arr = arr.astype(np.float64)
    _check_aligned(caps, name, 0, aligned_to)
    _check_length(arr, name, n, "one per user")
    if np.isnan(arr).any():
        i = int(np.argmax(np.isnan(arr)))
        raise InvalidInputError(f"{name}[{i}] = nan: a cap must be a number >= 0 (inf for none)")
    _check_sign(arr, name, strict=False)
    return arr


def as_budgets(
    budgets: ArrayLike | None,
    n: int,
    name: str = "budgets",
    *,
    aligned_to: Aligned | None = None,
) -> npt.NDArray[np.float64]:
    """Positive finite budget vector of length ``n``; a scalar is broadcast and ``None`` means all
    ones.

    Parameters
    ----------
    budgets : float or array_like or None
        One budget per user (shape (n,)), or one budget for all.
    n : int
        The number of users.
    name : str, default "budgets"
        The argument's name, used in the error message.
    aligned_to : (str, object, int) or None, default None
        The weights (name, value, axis of the users): pandas budgets whose user labels are not the
        weights' are refused.

    Returns
    -------
    numpy.ndarray
        Contiguous float64 copy, shape (n,) (never ``budgets`` itself).

    Raises
    ------
    InvalidInputError
        On a wrong length, a non-finite entry or a budget <= 0.

    Examples
    --------
    >>> as_budgets(2.0, 2)
    array([2., 2.])
    """
    if budgets is None:
        return np.ones(n)
    scalar = as_array(budgets, name)  # a ragged list is named here, not by numpy's ndim
    if (
        scalar.ndim == 0
    ):  # one budget for all: an error names the scalar given, not a vector made of it
        if (
            scalar.dtype == bool
            or not np.issubdtype(scalar.dtype, np.number)
            or np.iscomplexobj(scalar)
        ):
            raise InvalidInputError(f"{name} = {budgets!r}: must be a positive real number")
        if not (np.isfinite(scalar) and scalar > 0):
            raise InvalidInputError(f"{name} = {budgets!r}: must be a positive finite number")
        budgets = np.full(n, float(scalar))
    arr = _as_float_array(budgets, name, 1)
    _check_aligned(budgets, name, 0, aligned_to)
    _check_length(arr, name, n, "one per user")
    _check_sign(arr, name, strict=True)
    return arr


def as_eligibility(
    eligible: ArrayLike | None,
    n_users: int,
    n_servers: int,
    name: str = "eligible",
    *,
    aligned_to: Aligned | None = None,
    servers: Aligned | None = None,
) -> npt.NDArray[np.bool_]:
    """Boolean placement matrix ``eligible[user, server]``; ``None`` means every pair is allowed.

    Accepts booleans or 0/1 numbers; any other value is an error, as is a user eligible for no
    server.

    Parameters
    ----------
    eligible : array_like or None
        Shape (n_users, n_servers): True where the user's tasks may run on the server.
    n_users : int
        The number of users (rows).
    n_servers : int
        The number of servers (columns).
    name : str, default "eligible"
        The argument's name, used in the error message.
    aligned_to : (str, object, int) or None, default None
        The demands (name, value, axis of the users): a pandas ``eligible`` whose index is not the
        demands' user labels (same labels, same order) is refused.
    servers : (str, object, int) or None, default None
        The capacities (name, value, axis of the servers): a pandas ``eligible`` whose columns are
        not the capacities' server labels is refused.

    Returns
    -------
    numpy.ndarray
        Contiguous bool copy, shape (n_users, n_servers) (never ``eligible`` itself).

    Raises
    ------
    InvalidInputError
        On a wrong shape, an entry other than 0/1 or a boolean, a user eligible for no server, or
        labels that disagree with ``aligned_to``'s or ``servers``'.

    Examples
    --------
    >>> as_eligibility([[1, 0], [1, 1]], 2, 2)
    array([[ True, False],
           [ True,  True]])
    """
    if eligible is None:
        return np.ones((n_users, n_servers), dtype=bool)
    _check_unmasked(eligible, name)
    _check_aligned(eligible, name, 0, aligned_to)
    _check_aligned(eligible, name, 1, servers)
    arr = np.asarray(eligible)
    if arr.shape != (n_users, n_servers):
        raise InvalidInputError(
            f"{name}: expected shape ({n_users}, {n_servers}) (users x servers), got {arr.shape}"
        )
    if arr.dtype.kind != "b":
        if arr.dtype.kind not in "iuf":
            raise InvalidInputError(f"{name}: must be boolean or 0/1, got dtype {arr.dtype}")
        bad = ~np.isin(arr, (0, 1))
        if bad.any():
            idx = _first(bad)
            raise InvalidInputError(
                f"{name}[{_fmt_index(idx)}] = {arr[idx]}: {name} must be 0/1 or boolean"
            )
        arr = arr.astype(bool)
    arr = np.array(arr, dtype=bool, order="C")  # a copy, never the caller's array
    nowhere = ~arr.any(axis=1)
    if nowhere.any():
        i = int(np.argmax(nowhere))
        raise InvalidInputError(f"{name}[{i}]: user {i} is eligible for no server")
    return arr


def check_task_bound(bound: float, name: str = "task count") -> None:
    """Raise when a task count could overflow int64 (e.g. capacity / demand of 1e300 / 1e-300).

    Parameters
    ----------
    bound : float
        An upper bound on a task count; it must be finite and below a quarter of the int64 maximum.
    name : str, default "task count"
        What the bound is, used in the error message.

    Raises
    ------
    InvalidInputError
        When ``bound`` is not finite or could overflow int64.

    Examples
    --------
    >>> check_task_bound(1e30, "capacity / demand")
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: capacity / demand = 1e+30: task counts would overflow int64
    (max 9223372036854775807)
    """
    if not np.isfinite(bound) or bound >= INT64_MAX / 4:
        raise InvalidInputError(
            f"{name} = {bound:g}: task counts would overflow int64 (max {INT64_MAX})"
        )


def as_number(
    value: float,
    name: str,
    *,
    minimum: float = 0.0,
    inclusive: bool = False,
    maximum: float = np.inf,
) -> float:
    """A finite real number above ``minimum`` (or equal to it when ``inclusive``) and at most
    ``maximum``.

    Parameters
    ----------
    value : int or float
        The number (any :func:`is_real` number: a ``Fraction`` or ``Decimal`` is read as
        ``float(value)``); booleans, strings and complex numbers are refused.
    name : str
        The argument's name, used in the error message.
    minimum : float, default 0.0
        The lower bound, exclusive unless ``inclusive``.
    inclusive : bool, default False
        Whether ``value == minimum`` is accepted.
    maximum : float, default inf
        The upper bound, inclusive.

    Returns
    -------
    float
        ``value`` as a Python float.

    Raises
    ------
    InvalidInputError
        When ``value`` is not a real number, is not finite or is out of range.

    Examples
    --------
    >>> as_number(0.5, "step", maximum=1.0)
    0.5
    >>> as_number(float("nan"), "tol")
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: tol = nan: must be a finite number > 0.0
    """
    bound = f">= {minimum}" if inclusive else f"> {minimum}"
    if not is_real(value):
        raise InvalidInputError(
            f"{name} = {_short(value)}: must be a finite number {bound}{_got(value)}"
        )
    v = _to_float(value, name, f"a finite number {bound}")
    if not (np.isfinite(v) and (v >= minimum if inclusive else v > minimum) and v <= maximum):
        raise InvalidInputError(
            f"{name} = {v}: must be a finite number {bound}"
            + (f" and <= {maximum}" if np.isfinite(maximum) else "")
        )
    return v


def as_weight(value: float, name: str, *, allow_zero: bool = False) -> float:
    """One weight held on its own (a sorter's client, added and changed one at a time, so no
    common scale exists to bring it to, as :func:`scale_weights` does for a vector): a finite
    number > 0 (>= 0 with ``allow_zero``) that is not subnormal.

    Parameters
    ----------
    value : int or float
        The weight (as :func:`as_number` reads it).
    name : str
        The argument's name, used in the error message.
    allow_zero : bool, default False
        Whether 0 is accepted.

    Returns
    -------
    float
        ``value`` as a Python float.

    Raises
    ------
    InvalidInputError
        When ``value`` is not a finite number > 0 (>= 0), or is below ``np.finfo(float).tiny``
        (2.2e-308): a subnormal weight holds a few significant digits, and a share divided by it
        overflows.

    Examples
    --------
    >>> as_weight(1e-310, "weight")
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: weight = 1e-310: subnormal (below 2.23e-308), not resolved
    """
    w = as_number(value, name, inclusive=allow_zero)
    if 0 < w < np.finfo(np.float64).tiny:
        raise InvalidInputError(
            f"{name} = {w!r}: subnormal (below {np.finfo(np.float64).tiny:.3g}), not resolved"
        )
    return w


def as_tolerance(value: float, name: str, *, zero: bool = False) -> float:
    """A tolerance: a finite number from :data:`TOL_MIN` (1e-15) to :data:`TOL_MAX` (0.1), or
    exactly 0 when ``zero`` (an exact comparison, where the function offers one); anything else is
    an error naming the argument.

    Parameters
    ----------
    value : int or float
        The tolerance.
    name : str
        The argument's name, used in the error message.
    zero : bool, default False
        Whether 0 (exact) is accepted.

    Returns
    -------
    float
        ``value`` as a Python float.

    Examples
    --------
    >>> as_tolerance(1e-9, "tol")
    1e-09
    >>> as_tolerance(1e-300, "tol")
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: tol = 1e-300: a tolerance is from 1e-15 to 0.1
    """
    tol = as_number(value, name, inclusive=zero)
    if tol == 0.0 and zero:
        return tol
    if not TOL_MIN <= tol <= TOL_MAX:
        exact = " (or 0, exact)" if zero else ""
        raise InvalidInputError(
            f"{name} = {tol!r}: a tolerance is from {TOL_MIN:g} to {TOL_MAX:g}{exact}"
        )
    return tol


def as_count(value: int, name: str, *, minimum: int = 1, maximum: int = INT64_MAX) -> int:
    """An integer >= ``minimum`` and <= ``maximum`` (not a bool, not a float such as 2.5).

    Parameters
    ----------
    value : int
        The count (a Python or NumPy integer).
    name : str
        The argument's name, used in the error message.
    minimum : int, default 1
        The smallest accepted value.
    maximum : int, default int64 maximum
        The largest accepted value.

    Returns
    -------
    int
        ``value`` as a Python int.

    Raises
    ------
    InvalidInputError
        When ``value`` is not an integer or is out of range.

    Examples
    --------
    >>> as_count(3, "max_sweeps")
    3
    >>> as_count(10**20, "k")
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: k = 100000000000000000000: must be an integer >= 1 and <=
    9223372036854775807
    """
    integer = isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
    if not integer:
        raise InvalidInputError(
            f"{name} = {_short(value)}: must be an integer >= {minimum}{_got(value)}"
        )
    if value < minimum:
        raise InvalidInputError(f"{name} = {_short(value)}: must be an integer >= {minimum}")
    if value > maximum:
        raise InvalidInputError(
            f"{name} = {value!r}: must be an integer >= {minimum} and <= {maximum}"
        )
    return int(value)


def check_drawn(*counts: tuple[str, int], maximum: int = MAX_DRAWN) -> None:
    """Refuse an array of more than ``maximum`` numbers for a random generator to draw, naming the
    count arguments that size it (each already checked, e.g. by :func:`as_count`).

    Parameters
    ----------
    *counts : tuple of (str, int)
        ``(argument name, value)`` per dimension of the array.
    maximum : int, default MAX_DRAWN
        The most numbers (the product of the counts) allowed.

    Raises
    ------
    InvalidInputError
        When the product exceeds ``maximum``, naming every count and the cap.

    Examples
    --------
    >>> check_drawn(("n_users", 10**6), ("n_machines", 10**6))
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: n_users x n_machines = 1000000 x 1000000 =
    1,000,000,000,000 numbers to draw: must be at most MAX_DRAWN = 100,000,000
    """
    total = 1
    for _, value in counts:
        total *= int(value)  # Python ints: exact, whatever the counts
    if total > maximum:
        names = " x ".join(name for name, _ in counts)
        values = " x ".join(str(int(value)) for _, value in counts)
        cap = "MAX_DRAWN = " if maximum == MAX_DRAWN else ""
        raise InvalidInputError(
            f"{names} = {values} = {total:,} numbers to draw: must be at most {cap}{maximum:,}"
        )


def as_counts(values: Iterable[int], name: str, *, minimum: int = 1, maximum: int) -> list[int]:
    """A non-empty sequence of integers from ``minimum`` to ``maximum`` (each as :func:`as_count`
    checks it), as a list of ints.

    Parameters
    ----------
    values : iterable of int
        The counts (a list, a tuple, a range; not text or a mapping).
    name : str
        The argument's name, used in the error message with the element's index.
    minimum : int, default 1
        The smallest count allowed.
    maximum : int
        The largest count allowed.

    Returns
    -------
    list of int
        The counts, in order.

    Raises
    ------
    InvalidInputError
        When ``values`` is not a sequence, is empty, or an element is not an integer in range.

    Examples
    --------
    >>> as_counts((2, 4), "users", maximum=10)
    [2, 4]
    >>> as_counts([2, 40], "users", maximum=10)
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: users[1] = 40: must be an integer >= 1 and <= 10
    """
    items = as_sequence(
        values, name, what=f"expected a sequence of integers from {minimum} to {maximum:,}"
    )
    if not items:
        raise InvalidInputError(
            f"{name}: empty (at least one integer from {minimum} to {maximum:,})"
        )
    return [
        as_count(v, f"{name}[{i}]", minimum=minimum, maximum=maximum) for i, v in enumerate(items)
    ]


def as_integers(
    x: ArrayLike,
    name: str,
    *,
    length: int,
    minimum: int = 0,
    maximum: int = INT64_MAX,
    maximum_label: str | None = None,
    saturate: int | None = None,
    what: str = "per item",
) -> npt.NDArray[np.int64]:
    """One integer per item (``length`` of them; a scalar is given to every item), each from
    ``minimum`` to ``maximum``, as a contiguous int64 array.

    The range is checked on the input's own values, before the cast to int64: a ``uint64`` past
    2**63 - 1 would wrap to a negative number and be refused as one (``parallelism[0] =
    -9223372036854775808``), or a bound the caller gave be read as another.

    Parameters
    ----------
    x : int or array_like of int
        The integers (any integer dtype, signed or not; not bool, not float).
    name : str
        The argument's name, for the message with the item's index and value.
    length : int
        How many items.
    minimum : int, default 0
        The smallest value allowed.
    maximum : int, default 2**63 - 1
        The largest value allowed; past 2**63 - 1 (int64's largest) only with ``saturate``.
    maximum_label : str, optional
        How the message names ``maximum`` (``"n_machines = 2"``); None: no upper bound is named
        for a value below ``minimum``.
    saturate : int, optional
        A value from which larger ones mean the same, e.g. a parallelism bound at or past the number
        of machines binds nothing: values above it are read as it. None: values are kept as given.
    what : str, default "per item"
        The items, for the message on a wrong shape (``"bound per user"``).

    Returns
    -------
    numpy.ndarray
        Int64, shape (length,).

    Raises
    ------
    InvalidInputError
        On a non-integer dtype, a wrong shape, or a value out of range (shown as given).

    Examples
    --------
    >>> big = np.uint64(2**63)
    >>> as_integers(big, "k", length=2, minimum=1, maximum=2**64 - 1, saturate=5).tolist()
    [5, 5]
    >>> as_integers(big, "k", length=2, minimum=1)
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: k[0] = 9223372036854775808: must be between 1 and
    9223372036854775807
    """
    arr = as_array(x, name, exact=False)  # integers kept as integers: bound by ``maximum``
    if arr.dtype.kind not in "iu":
        raise InvalidInputError(f"{name} = {_short(x)}: must be integers, got dtype {arr.dtype}")
    if arr.ndim > 1 or (arr.ndim == 1 and arr.shape != (length,)):
        raise InvalidInputError(
            f"{name}: expected a scalar or one {what} ({length}), got shape {arr.shape}"
        )
    arr = np.broadcast_to(arr, (length,))
    # compared in the input's dtype: NumPy compares a uint64 with a Python int exactly
    out = (arr < minimum) | (arr > maximum)
    if out.any():
        i = int(np.argmax(out))
        if arr[i] < minimum and maximum_label is None:
            rule = f">= {minimum}"
        else:
            rule = f"between {minimum} and {maximum_label or maximum}"
        raise InvalidInputError(f"{name}[{i}] = {arr[i]}: must be {rule}")
    if saturate is not None:
        arr = np.minimum(arr, saturate)
    elif (arr > INT64_MAX).any():
        i = int(np.argmax(arr > INT64_MAX))
        raise InvalidInputError(f"{name}[{i}] = {arr[i]}: must be at most {INT64_MAX}")
    return np.array(arr, dtype=np.int64, order="C")  # a copy: ``arr`` may view the caller's


def as_tally(value: Mapping[str, int], name: str) -> dict[str, int]:
    """A count per reason (what a reader left out and why, ``{"no_request": 12}``), as a new dict:
    each key a non-empty text, each count an integer >= 0; empty for nothing left out.

    Parameters
    ----------
    value : mapping of str to int
        The counts by reason.
    name : str
        The argument's name, used in the error message with the offending key.

    Returns
    -------
    dict of str to int
        The counts, in the mapping's order.

    Raises
    ------
    InvalidInputError
        When ``value`` is not a mapping (None included: "nothing left out" is the empty one), a
        key is not a non-empty text or a count is not an integer >= 0.

    Examples
    --------
    >>> as_tally({"no_request": 12}, "skipped")
    {'no_request': 12}
    >>> as_tally({"no_request": -1}, "skipped")
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: skipped['no_request'] = -1: must be an integer >= 0
    """
    if not isinstance(value, Mapping):
        raise InvalidInputError(
            f"{name} = {_short(value)}: expected a dict of reason -> count ({{}} for none)"
        )
    out = {}
    for key, count in value.items():
        if not isinstance(key, str):
            raise InvalidInputError(f"{name}: key {key!r} must be text (the reason)")
        check_shown_text(key, f"{name} (a key)", what="a reason is shown text")
        out[key] = as_count(count, f"{name}[{key!r}]", minimum=0)
    return out


def as_finite(value: float, name: str) -> float:
    """A finite real number of either sign (a time, an offset).

    Parameters
    ----------
    value : int or float
        The number (any :func:`is_real` number); booleans, strings, complex numbers, NaN and
        infinities are refused.
    name : str
        The argument's name, used in the error message.

    Returns
    -------
    float
        ``value`` as a Python float.

    Raises
    ------
    InvalidInputError
        When ``value`` is not a finite real number.

    Examples
    --------
    >>> as_finite(-2, "start")
    -2.0
    >>> as_finite(float("nan"), "t")
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: t = nan: must be a finite number
    """
    if not is_real(value):
        raise InvalidInputError(f"{name} = {_short(value)}: must be a finite number{_got(value)}")
    v = _to_float(value, name, "a finite number")
    if not np.isfinite(v):
        raise InvalidInputError(f"{name} = {v}: must be a finite number")
    return v


def as_time(value: float, name: str) -> float:
    """A time or offset in seconds, of either sign, at most :data:`MAX_SECONDS` (2**53) in
    magnitude.

    Parameters
    ----------
    value : int or float
        The time; booleans, strings, complex numbers, NaN and infinities are refused.
    name : str
        The argument's name, used in the error message.

    Returns
    -------
    float
        ``value`` as a Python float.

    Raises
    ------
    InvalidInputError
        When ``value`` is not a finite real number or is beyond ±2**53 s.

    Examples
    --------
    >>> as_time(-600, "start")
    -600.0
    >>> as_time(1e300, "t")
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: t = 1e+300: a time in seconds is within ±2**53 (9.0072e+15)
    """
    t = as_finite(value, name)
    if not -MAX_SECONDS <= t <= MAX_SECONDS:
        raise InvalidInputError(
            f"{name} = {t:g}: a time in seconds is within ±2**53 ({MAX_SECONDS:g})"
        )
    return t


def as_amount(value: float, name: str, *, scale: float, zero: bool = False, of: str) -> float:
    """A sum of money of a bidding game (a budget, a reserve bid) within :data:`MONEY_RATIO` (1e12)
    of ``scale`` either way, or exactly 0 when ``zero``; any amount >= 0 (> 0 without ``zero``) when
    ``scale`` is 0.

    Parameters
    ----------
    value : int or float
        The amount.
    name : str
        The argument's name, used in the error message.
    scale : float
        The game's scale of money (the largest budget, the others' total bid), >= 0.
    zero : bool, default False
        Whether 0 (none) is accepted.
    of : str
        What ``scale`` is, for the message.

    Returns
    -------
    float
        ``value`` as a Python float.

    Raises
    ------
    InvalidInputError
        When ``value`` is not a finite number, is negative (or 0 without ``zero``), or is more than
        a factor :data:`MONEY_RATIO` from ``scale``.

    Examples
    --------
    >>> as_amount(1e-6, "reserve", scale=1.0, zero=True, of="the largest budget")
    1e-06
    >>> as_amount(1e300, "reserve", scale=1.0, zero=True, of="the largest budget")
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: reserve = 1e+300: must be 0 or within a factor 1e+12 of the
    largest budget (1)
    """
    amount = as_number(value, name, inclusive=zero)
    if amount == 0.0 or scale == 0.0 or scale / MONEY_RATIO <= amount <= scale * MONEY_RATIO:
        return amount
    raise InvalidInputError(
        f"{name} = {amount:g}: must be {'0 or ' if zero else ''}within a factor "
        f"{MONEY_RATIO:g} of {of} ({scale:g})"
    )


def as_flag(value, name: str) -> bool:
    """``value`` when it is a bool (``True``, ``False`` or a NumPy bool); an integer, text such as
    ``"false"`` (which is truthy) or None is an error naming the argument.

    Parameters
    ----------
    value : object
        The argument's value.
    name : str
        The argument's name, for the message.

    Returns
    -------
    bool
        ``value`` as a Python bool.

    Examples
    --------
    >>> as_flag(True, "record_order")
    True
    >>> as_flag("false", "record_order")
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: record_order = 'false': must be True or False, got str
    """
    if not isinstance(value, (bool, np.bool_)):
        raise InvalidInputError(
            f"{name} = {_short(value)}: must be True or False, got {type(value).__name__}"
        )
    return bool(value)


def _names_a_directory(text: str) -> bool:
    """Whether a path's text names a directory by its form: it ends in a separator, ``.`` or ``..``
    (``pathlib.Path`` drops a trailing separator, so ``"ts.csv/"`` would become the file
    ``ts.csv``)."""
    import os

    for sep in filter(None, (os.altsep,)):
        text = text.replace(sep, os.sep)
    return text.rsplit(os.sep, 1)[-1] in ("", ".", "..")


def _path_mode(path, name: str) -> int | None:
    """``os.stat(path).st_mode`` (symbolic links followed), or None when nothing is there (a missing
    entry, a dangling link). Any other failure to look the path up is an error naming the argument
    and the path: a symlink loop (``Path.exists()`` reads one as absent, and the file's ``open``
    later fails with a raw ``OSError``), a part of the path that is a file, a path the process may
    not look into, a name too long, a null byte."""
    import errno
    import os

    try:
        return os.stat(path).st_mode
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            return None
        why = {
            errno.ELOOP: "a symlink loop",
            errno.ENOTDIR: "a part of it is a file, not a folder",
        }.get(exc.errno or 0, "cannot be looked up")
        raise InvalidInputError(f"{name} = {str(path)!r}: {why} ({exc.strerror})") from None
    except ValueError:  # an embedded null byte
        raise InvalidInputError(f"{name} = {str(path)!r}: holds a null byte") from None


def _entry_kind(mode: int) -> str:
    """What ``mode`` (an ``st_mode``) is, for a message: ``"a directory"``, ``"a file"``, ``"a
    named pipe (FIFO)"``, ``"a socket"``, ``"a character device"``, ``"a block device"``."""
    import stat

    for test, what in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISREG, "a file"),
        (stat.S_ISFIFO, "a named pipe (FIFO)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return what
    return "an entry of unknown kind"


#: the longest name (one part of a path) a file system takes, in bytes of UTF-8
MAX_PATH_PART_BYTES = 255


def path_text(value, name: str, kind: str = "file") -> str:
    """``value``'s text as a path to a ``kind`` of entry (``"file"`` or ``"directory"``, for the
    message), refused by name when it is no path: not a str or os.PathLike, bytes (also from
    ``__fspath__``), blank (``""`` would be the working directory, ``"  "`` a name no one means) or
    with a blank part (``"out/ /x.csv"``, or a zero-width space for a folder's name), a part with
    whitespace at an end (``"out.csv "``), a part longer than :data:`MAX_PATH_PART_BYTES` bytes,
    holding a control character (a newline), starting with ``~`` (only a shell expands it), or a
    :class:`pathlib.PurePath` of another system's flavour (a ``PureWindowsPath`` on POSIX, whose
    text joins as one odd name).

    Parameters
    ----------
    value : str or os.PathLike
        The argument's value.
    name : str
        The argument's name, for the message.
    kind : {"file", "directory", "folder"}
        What the path names, for the message.

    Returns
    -------
    str
        The path's text.

    Raises
    ------
    InvalidInputError
        Naming the argument and the value, for each case above.

    Examples
    --------
    >>> path_text(" ", "out")
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: out = ' ': blank, expected a file path
    """
    import os
    import pathlib

    try:
        text = os.fspath(value) if isinstance(value, (str, os.PathLike)) else None
    except TypeError:  # __fspath__ returned neither str nor bytes
        text = None
    if not isinstance(text, str):
        raise InvalidInputError(
            f"{name} = {_short(value)}: expected a {kind} path (str or Path), got "
            f"{type(value).__name__}" + (" of bytes" if isinstance(text, bytes) else "")
        )
    native = type(pathlib.PurePath())
    if isinstance(value, pathlib.PurePath) and not isinstance(value, native):
        raise InvalidInputError(
            f"{name} = {value!r}: a {type(value).__name__}, not a path of this system "
            f"({native.__name__})"
        )
    if not text.strip():
        raise InvalidInputError(
            f"{name} = {text!r}: blank, expected a {kind} path"
            + (" (write '.' for the working directory)" if kind != "file" else "")
        )
    for i, ch in enumerate(text):
        if unicodedata.category(ch) == "Cc":
            raise InvalidInputError(
                f"{name} = {text!r}: holds the control character {ch!r} at index {i}, expected a "
                f"{kind} path (a name a listing shows)"
            )
    for k, part in enumerate(text.split(os.sep)):
        # "a/ /b" or a zero-width name: a folder or file no listing shows
        if part and not _shows(part):
            raise InvalidInputError(
                f"{name} = {text!r}: part {k} ({part!r}) is blank, expected a {kind} path whose "
                "every name shows"
            )
        if part != part.strip():
            # "out.csv " and " out.csv" name files no listing tells from "out.csv"
            raise InvalidInputError(
                f"{name} = {text!r}: part {k} ({part!r}) has whitespace at an end (a stray space "
                "would name another file or folder)"
            )
        if len(part.encode("utf-8", "surrogatepass")) > MAX_PATH_PART_BYTES:
            # the file system would refuse it only when the file is written
            raise InvalidInputError(
                f"{name} = {_short(text)}: part {k} is {len(part.encode('utf-8', 'surrogatepass'))}"
                f" bytes long, must be at most MAX_PATH_PART_BYTES = {MAX_PATH_PART_BYTES} (a "
                "file system's limit on one name)"
            )
    if text[:1] == "~":
        # as the FAIRLIB_* directories: Python never expands "~", and a file "~/out.csv" would be
        # written under a folder named "~" in the working directory
        raise InvalidInputError(
            f"{name} = {text!r}: starts with '~', which only a shell expands (write the home "
            "directory out, or use os.path.expanduser)"
        )
    return text


def as_selection(value: ArrayLike, name: str, count: int, *, what: str = "servers") -> np.ndarray:
    """A choice among ``count`` items (servers, users), given as a boolean mask or as indices, as a
    boolean mask.

    Parameters
    ----------
    value : array_like
        A boolean mask of shape (count,), or integer indices, each from 0 to ``count - 1`` and each
        once (:func:`as_identifiers` reads them: a bool among integers is refused, not read as 0
        or 1).
    name : str
        The argument's name, used in the error message.
    count : int
        How many items there are.
    what : str, default "servers"
        The items, for the message.

    Returns
    -------
    numpy.ndarray
        A new boolean mask of shape (count,).

    Raises
    ------
    InvalidInputError
        When ``value`` is a mask of another length, or holds anything but integer indices (a
        bool, a float, text), an index out of range (a negative one is not read from the end) or
        an index given twice, naming the index and the value.

    Examples
    --------
    >>> as_selection([2, 0], "servers", 3).tolist()
    [True, False, True]
    >>> as_selection([1, True], "servers", 3)
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: servers[1] = True: booleans are not numbers (a list that
    mixes them with numbers is refused)
    >>> as_selection([1, 1], "servers", 3)
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: servers[1] = 1: server 1 is given more than once
    """
    _check_unmasked(value, name)
    try:
        arr = np.asarray(value) if not isinstance(value, BINARY) else None
    except (TypeError, ValueError):  # ragged: as_identifiers names it
        arr = None
    if arr is not None and arr.dtype == bool:
        if arr.shape != (count,):
            raise InvalidInputError(
                f"{name} = {_short(value)}: a mask of {count} {what} has shape ({count},), got "
                f"{arr.shape}"
            )
        return arr.copy()
    ids = as_identifiers(value, name, allow_empty=True)
    if ids.size and ids.dtype.kind not in "iu":
        raise InvalidInputError(
            f"{name} = {_short(value)}: expected a mask or integer indices of {count} {what}, "
            f"got text"
        )
    mask = np.zeros(count, dtype=bool)
    for i, index in enumerate(ids.tolist()):
        if not 0 <= index < count:
            raise InvalidInputError(
                f"{name}[{i}] = {index}: must be an index of the {count} {what}, from 0 to "
                f"{count - 1}"
            )
        if mask[index]:
            raise InvalidInputError(
                f"{name}[{i}] = {index}: {what.rstrip('s')} {index} is given more than once"
            )
        mask[index] = True
    return mask


def as_path(value, name: str, *, kind: str = "file", must_exist: bool = False):
    """``value`` (text or a path) as a :class:`pathlib.Path` to a ``kind`` of entry, ``"file"`` or
    ``"directory"``: an existing entry of another kind is an error naming the argument and what
    is there (a ``"directory"`` is a directory only, a ``"file"`` a regular file only: a named
    pipe, a socket or a device such as ``/dev/null`` is neither), and so is a missing one when
    ``must_exist`` (an input; an output need not exist yet). A file's path that ends in a
    separator (``"out/ts.csv/"``), ``.`` or ``..`` names a directory, and is refused too; so is a
    path that cannot be looked up (a symlink loop, a part of it that is a file), and one that
    :func:`path_text` refuses (bytes, blank, starting with ``~``, a ``PureWindowsPath`` on POSIX).

    Parameters
    ----------
    value : str or os.PathLike
        The argument's value.
    name : str
        The argument's name, for the message.
    kind : {"file", "directory"}
        What the path must name.
    must_exist : bool
        Whether a missing entry is an error.

    Returns
    -------
    pathlib.Path
        The path.

    Raises
    ------
    InvalidInputError
        Naming the argument and the path, in each case above.

    Examples
    --------
    >>> as_path("/", "path", kind="file")
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: path = '/': a directory, expected a file
    >>> as_path("/dev/null", "d", kind="directory")
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: d = '/dev/null': a character device, expected a directory
    """
    import stat
    from pathlib import Path

    text = path_text(value, name, kind)
    path = Path(text)
    mode = _path_mode(path, name)
    if mode is not None:
        if not (stat.S_ISREG(mode) if kind == "file" else stat.S_ISDIR(mode)):
            what = _entry_kind(mode)
            if kind == "file" and not stat.S_ISDIR(mode):
                what = f"not a regular file ({what})"
            raise InvalidInputError(f"{name} = {str(path)!r}: {what}, expected a {kind}")
    elif must_exist:
        raise InvalidInputError(f"{name} = {str(path)!r}: no such {kind}")
    if kind == "file" and _names_a_directory(text):
        raise InvalidInputError(
            f"{name} = {text!r}: names a directory (it ends in a separator, '.' or '..'), "
            "expected a file"
        )
    return path


def check_column_labels(
    frame: pd.DataFrame, name: str, *, text: bool = True, unlabelled_first: bool = False
) -> None:
    """A table's column labels are text, none blank, each once: a writer that picks columns by
    label got a DataFrame for a duplicated label (and failed on its ``dtype`` with a raw
    AttributeError) and a tuple for each label of MultiIndex columns; a header shows no blank
    label; a reader of a table by column would read the first of two columns of one label and
    never see the second.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table.
    name : str
        The argument's name, for the message.
    text : bool, default True
        Whether every label must be a str (False: any label, each once).
    unlabelled_first : bool, default False
        Whether the first column may be labelled ``""``: a displayed table's column of row labels,
        whose header shows nothing by design (a blank label elsewhere, or of spaces, is refused).

    Raises
    ------
    InvalidInputError
        Naming the argument, the position and the label, when a label is not a str (with
        ``text``), is a blank str (:func:`as_label`: no header shows it), or is given twice.

    Examples
    --------
    >>> import pandas as pd
    >>> check_column_labels(pd.DataFrame([[1, 2]], columns=["a", "a"]), "frame")
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: frame.columns[1] = 'a': given twice (also at 0)
    """
    labels = list(frame.columns)
    for i, label in enumerate(labels):
        if text and not isinstance(label, str):
            raise InvalidInputError(
                f"{name}.columns[{i}] = {_short(label)}: a column label must be a str, got "
                f"{type(label).__name__}"
            )
        if isinstance(label, str) and not (unlabelled_first and i == 0 and label == ""):
            as_label(label, f"{name}.columns[{i}]")
        if label in labels[:i]:
            raise InvalidInputError(
                f"{name}.columns[{i}] = {label!r}: given twice (also at {labels.index(label)})"
            )


@contextlib.contextmanager
def writing_to(path, name: str) -> Iterator[None]:
    """Around a writer's file operations: an ``OSError`` (a read-only folder, a full disk) is
    raised again, of the same type, naming the argument and the path the caller gave (not a
    temporary file beside it).

    Parameters
    ----------
    path : str or os.PathLike
        The destination the caller gave.
    name : str
        The argument's name, for the message.

    Yields
    ------
    None
        Nothing: the block writes.
    """
    try:
        yield
    except OSError as exc:
        message = f"{name} = {str(path)!r}: cannot be written ({exc.strerror or exc})"
        raise (type(exc)(exc.errno, message) if exc.errno else type(exc)(message)) from None


def as_sequence(
    value,
    name: str,
    *,
    what: str = "expected a list",
    ordered: bool = True,
    maximum: int | None = None,
    cap: str | None = None,
) -> tuple:
    """``value``, any iterable but text or a mapping, read once into a tuple that the caller uses in
    its place: a generator checked and then read again would be empty, so every helper that takes an
    iterable returns it materialised.

    Where order matters (``ordered``, the default: rows, columns, resources, a tree's leaves) a set,
    a frozenset or a dict's view is refused: a set of text iterates in an order that changes from
    one interpreter to the next (``PYTHONHASHSEED``), and with it the result. Where it does not, a
    set is read in sorted order, so the tuple never depends on it either.

    Parameters
    ----------
    value : iterable
        The argument's value: a list, a tuple, a range, an array, a generator.
    name : str
        The argument's name, for the message.
    what : str, default "expected a list"
        What the argument must be, said after its name and value when it is not iterable.
    ordered : bool, default True
        Whether the order of the items matters (sets and dict views refused).
    maximum : int, optional
        The most items read (an endless generator is refused, not drained).
    cap : str, optional
        The name of the constant ``maximum`` is, for the message (``"MAX_CELLS"``).

    Returns
    -------
    tuple
        The items, in order.

    Raises
    ------
    InvalidInputError
        When ``value`` is text, binary data (``bytes``, ``bytearray``, ``memoryview``), a mapping
        or not iterable, holds more than ``maximum`` items, or is a set or a dict's view where
        order matters.

    Examples
    --------
    >>> as_sequence((c for c in "ab"), "columns")
    ('a', 'b')
    >>> as_sequence({"b", "a"}, "seed_by", ordered=False)
    ('a', 'b')
    >>> as_sequence(frozenset({"cpu"}), "resources")
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: resources = frozenset({'cpu'}): a frozenset has no fixed
    order; give a list (e.g. sorted(...))
    """
    import itertools
    from collections.abc import Mapping, MappingView, Set

    if isinstance(value, (str, *BINARY, Mapping)) or not isinstance(value, Iterable):
        raise InvalidInputError(f"{name} = {_short(value)}: {what}, got {type(value).__name__}")
    unordered = isinstance(value, (Set, MappingView))
    if unordered and ordered:
        raise InvalidInputError(
            f"{name} = {_short(value)}: a {type(value).__name__} has no fixed order; give a list "
            "(e.g. sorted(...))"
        )
    try:
        items = tuple(value if maximum is None else itertools.islice(value, maximum + 1))
    except TypeError:  # a 0-d array is Iterable by type but has no items
        raise InvalidInputError(
            f"{name} = {_short(value)}: {what}, got {type(value).__name__}"
        ) from None
    if maximum is not None and len(items) > maximum:
        limit = f"{maximum:,}" if cap is None else f"{cap} = {maximum:,}"
        raise InvalidInputError(f"{name}: more than {limit} items")
    if unordered:
        try:
            items = tuple(sorted(items))
        except TypeError:  # items of kinds that do not compare: the caller's check refuses them
            pass
    return items


def _read_once(value, name: str, *, what: str, ordered: bool = True):
    """``value`` itself, unless it is an iterator (a generator), a set or a dict's view: NumPy makes
    one object of those (``np.asarray(x for x in [2, 3])`` is a 0-d object array), so they are read
    once by :func:`as_sequence` (``what`` and ``ordered`` as there) into a tuple an array_like
    argument's caller reads as it reads a list."""
    from collections.abc import Iterator, MappingView, Set

    if isinstance(value, (Iterator, Set, MappingView)):
        return as_sequence(value, name, what=what, ordered=ordered)
    return value


#: the Unicode categories of characters no table, plot or listing shows: control characters (Cc),
#: format characters such as the zero-width space and the byte-order mark (Cf), and separators (Zs,
#: Zl, Zp)
INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Zs", "Zl", "Zp"})
#: characters of other categories that show nothing either (the soft hyphen, the Mongolian vowel
#: separator, the Hangul fillers, the blank Braille pattern, the combining grapheme joiner) besides
#: the zero-width ones, spelled out
INVISIBLE_CHARACTERS = frozenset(
    "\u00ad\u034f\u115f\u1160\u180e\u200b\u200c\u200d\u2060\u2800\u3164\ufeff\uffa0"
)


def _shows(text: str) -> bool:
    """Whether ``text`` holds a character a reader sees (one not of :data:`INVISIBLE_CATEGORIES` nor
    in :data:`INVISIBLE_CHARACTERS`, and not a combining mark alone: ``"\\u0301"`` only marks the
    character before it, and with none there shows nothing)."""
    shown = [
        unicodedata.category(ch)
        for ch in text
        if ch not in INVISIBLE_CHARACTERS and unicodedata.category(ch) not in INVISIBLE_CATEGORIES
    ]
    return any(category != "Mn" for category in shown)


def check_shown_text(
    value: str, name: str, *, what: str = "a label is shown text", lines: bool = False
) -> None:
    r"""Refuse text no reader sees or that holds a control character.

    ``value`` must hold a character that shows (not only whitespace, zero-width or other invisible
    characters: :data:`INVISIBLE_CATEGORIES`, :data:`INVISIBLE_CHARACTERS`) and no control character
    (Unicode category Cc: a tab, a newline, NUL, ESC) anywhere.

    Parameters
    ----------
    value : str
        The text (its type is the caller's to check).
    name : str
        The argument's name, for the message.
    what : str, default "a label is shown text"
        Why it must show, for the message.
    lines : bool, default False
        Whether ``value`` is prose that may span lines (a newline is then its one control
        character allowed).

    Raises
    ------
    InvalidInputError
        When ``value`` shows nothing or holds a control character, naming the character and its
        index.

    Examples
    --------
    >>> check_shown_text("\u200b", "name")
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: name = '\u200b': blank (a label is shown text)
    """
    shown = str(value)  # a str subclass (NumPy's str_) is shown as its text
    if not _shows(value):
        raise InvalidInputError(f"{name} = {shown!r}: blank ({what})")
    for i, ch in enumerate(value):
        if unicodedata.category(ch) == "Cc" and not (lines and ch == "\n"):
            raise InvalidInputError(
                f"{name} = {shown!r}: holds the control character {ch!r} at index {i} ({what}, "
                f"without control characters{' but the newline' if lines else ''})"
            )


def as_text(
    value: object,
    name: str,
    *,
    what: str = "it is shown text",
    optional: bool = False,
    lines: bool = False,
) -> str:
    r"""``value``, text a reader sees: a str that shows (:func:`check_shown_text`), or, when
    ``optional``, the empty string for none.

    Parameters
    ----------
    value : str
        The text.
    name : str
        The argument's name, for the message.
    what : str, default "it is shown text"
        Why it must show, for the message.
    optional : bool, default False
        Whether ``""`` (no text at all) is allowed; text that is there must still show.
    lines : bool, default False
        Whether ``value`` is prose that may span lines.

    Returns
    -------
    str
        ``value`` itself.

    Raises
    ------
    InvalidInputError
        When ``value`` is not a str, or is blank (whitespace or invisible characters only, or empty
        unless ``optional``) or holds a control character.

    Examples
    --------
    >>> as_text("", "notes", optional=True)
    ''
    >>> as_text(" ​", "notes", optional=True)
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: notes = ' ​': blank (it is shown text)
    """
    if not isinstance(value, str):
        raise InvalidInputError(
            f"{name} = {_short(value)}: must be text, got {type(value).__name__}"
        )
    if optional and value == "":
        return value
    check_shown_text(value, name, what=what, lines=lines)
    return value


def as_label(value: object, name: str, *, nested: bool = False) -> str:
    """``value``, one text label: a str that is not blank (empty, or only whitespace, invisible
    characters such as the zero-width space or a lone combining mark, which no table, plot or
    scheduler listing shows), holds no control character (a tab, a newline, NUL:
    :func:`check_shown_text`), has no whitespace at either end (``" a"`` and ``"a"`` would be
    two labels no listing tells apart) and is written in Unicode normal form NFC; with ``nested``,
    a ``/``-separated path (``"eng/dev"``) whose every part is such a label.

    Parameters
    ----------
    value : str
        The label.
    name : str
        The argument's name (with its index, ``"paths[2]"``), for the message.
    nested : bool, default False
        Whether ``value`` is a path of labels separated by ``/``.

    Returns
    -------
    str
        ``value`` itself.

    Raises
    ------
    InvalidInputError
        When ``value`` is not a str, holds a control character, is not in Unicode normal form
        NFC (an accent written as a combining mark after its letter), or it (or, when ``nested``,
        one of its parts) is blank or has whitespace at an end.

    Examples
    --------
    >>> as_label("eng/dev", "name", nested=True)
    'eng/dev'
    >>> as_label("eng/ ", "name", nested=True)
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: name = 'eng/ ': part 1 is blank (every part of a
    '/'-separated path is a label, shown text)
    """
    if not isinstance(value, str):
        raise InvalidInputError(
            f"{name} = {_short(value)}: must be text (a label), got {type(value).__name__}"
        )
    parts = value.split("/") if nested else [value]
    for k, part in enumerate(parts if len(parts) > 1 and _shows(value) else []):
        if not _shows(part):
            raise InvalidInputError(
                f"{name} = {value!r}: part {k} is blank (every part of a '/'-separated path is a "
                "label, shown text)"
            )
    check_shown_text(value, name)
    for k, part in enumerate(parts):
        if part != part.strip():
            # " a" and "a" would be two clients, queues or columns no table tells apart
            raise InvalidInputError(
                f"{name} = {value!r}: "
                + (f"part {k} ({part!r}) has" if len(parts) > 1 else "has")
                + " whitespace at an end (a label is compared as written, so ' a' and 'a' "
                "would be two)"
            )
    composed = unicodedata.normalize("NFC", value)
    if composed != value:
        # "cafe" + a combining accent and "café" print alike but compare unequal: two clients,
        # queues or columns no listing tells apart
        raise InvalidInputError(
            f"{name} = {value!r}: not in Unicode normal form NFC (it prints as {composed!r} but "
            f"compares unequal to it, so the two would be two labels); write {composed!r}"
        )
    return value


def as_labels(
    value,
    name: str,
    *,
    length: int | None = None,
    allow_empty: bool = True,
    ordered: bool = True,
    distinct: bool = True,
) -> tuple:
    """``value``, an iterable of distinct text labels (``length`` of them when given), read once
    (:func:`as_sequence`) into a tuple; an element that is not text, a blank one (empty or only
    whitespace or invisible characters, which no table or plot shows; :func:`as_label`), one
    holding a control character or with whitespace at an end, a repeated one, a wrong count or,
    where order matters, a set or a dict's view is an error naming the argument and the element.

    Parameters
    ----------
    value : iterable of str
        The argument's value: a list, a tuple or any ordered iterable (a generator is read once).
    name : str
        The argument's name, for the message.
    length : int, optional
        How many labels there must be.
    allow_empty : bool
        Whether no label at all is valid.
    ordered : bool, default True
        Whether the labels' order matters (sets and dict views refused); else a set is read
        sorted.
    distinct : bool, default True
        Whether a label may not repeat (False: one label per item, say a class per server).

    Returns
    -------
    tuple of str
        The labels.

    Raises
    ------
    InvalidInputError
        When ``value`` is not such an iterable, an element is not text, is blank, holds a control
        character, has whitespace at an end or (when ``distinct``) repeats one, or the count is
        wrong.

    Examples
    --------
    >>> as_labels(["C", "D"], "reserved")
    ('C', 'D')
    >>> as_labels(("C", 1), "reserved")
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: reserved[1] = 1: must be text (a label), got int
    """
    value = as_sequence(value, name, what="expected a list of labels (text)", ordered=ordered)
    for i, label in enumerate(value):
        as_label(label, f"{name}[{i}]")
        if distinct and label in value[:i]:
            raise InvalidInputError(f"{name}[{i}] = {str(label)!r}: repeated (labels are distinct)")
    if length is not None and len(value) != length:
        raise InvalidInputError(
            f"{name} = {_short(value)}: expected {length} labels, got {len(value)}"
        )
    if not value and not allow_empty:
        raise InvalidInputError(f"{name} = {_short(value)}: empty (at least one label)")
    return tuple(str(label) for label in value)


def as_argv(argv, name: str = "argv") -> list[str] | None:
    """A command line's arguments: None (the process's own, ``sys.argv[1:]``) or a list of str. A
    str would be read character by character, and argparse fails on a non-str with a raw
    TypeError.

    Parameters
    ----------
    argv : list of str or None
        The arguments.
    name : str, default "argv"
        The argument's name, for the message.

    Returns
    -------
    list of str or None
        ``argv``.

    Raises
    ------
    InvalidInputError
        When ``argv`` is not a list, or an element is not text.

    Examples
    --------
    >>> as_argv(["--check"])
    ['--check']
    >>> as_argv("--check")
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: argv = '--check': must be a list, got str
    """
    if argv is not None:
        for i, arg in enumerate(as_instance(argv, list, name)):
            as_instance(arg, str, f"{name}[{i}]")
    return argv


#: an integer as a command line, an environment variable or a trace writes it: ASCII digits, with a
#: minus sign at most (``int`` would also take ``"٢٠٢٤"``, ``"+5"``, ``" 5"`` and ``"1_000"``)
INTEGER_TEXT = r"-?[0-9]+"
#: the most digits an integer written as text may have (leading zeros included): more than any
#: count, seed or bound fairlib reads needs (2**128 has 39), and far below the 4,300 digits past
#: which Python's ``int`` refuses text with a message naming no argument
MAX_INTEGER_DIGITS = 100
#: a number as a command line writes it: ASCII digits with a decimal point and an exponent at most
#: (``float`` would also take ``"inf"``, ``"nan"``, ``"١.٥"`` and ``"1_0"``)
NUMBER_TEXT = r"-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?"


def as_integer_text(
    text, name: str, *, minimum: int | None = None, maximum: int | None = None
) -> int:
    """``text``, an integer written as :data:`INTEGER_TEXT` (a command-line option, an
    environment variable), as an int from ``minimum`` to ``maximum``.

    Parameters
    ----------
    text : str
        The text.
    name : str
        The option or variable, for the message.
    minimum, maximum : int, optional
        The bounds, inclusive.

    Returns
    -------
    int
        The integer.

    Raises
    ------
    InvalidInputError
        When ``text`` is not text written in ASCII digits, has more than
        :data:`MAX_INTEGER_DIGITS` digits (leading zeros included) or the integer is out of range.

    Examples
    --------
    >>> as_integer_text("2024", "--year")
    2024
    >>> as_integer_text("٢٠٢٤", "--year")
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: --year = '٢٠٢٤': must be an integer written in digits (0-9,
    with a minus sign at most)
    """
    import re

    if not isinstance(text, str) or not re.fullmatch(INTEGER_TEXT, text):
        raise InvalidInputError(
            f"{name} = {_short(text)}: must be an integer written in digits (0-9, with a minus "
            "sign at most)"
        )
    digits = len(text.lstrip("-"))
    if digits > MAX_INTEGER_DIGITS:
        # int() refuses more than 4,300 digits with a message naming no argument
        raise InvalidInputError(
            f"{name} = {_short(text)}: {digits:,} digits, must be at most "
            f"MAX_INTEGER_DIGITS = {MAX_INTEGER_DIGITS}"
        )
    value = int(text)
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        bounds = (
            f"from {minimum} to {maximum}"
            if minimum is not None and maximum is not None
            else f">= {minimum}"
            if minimum is not None
            else f"<= {maximum}"
        )
        raise InvalidInputError(f"{name} = {value}: must be an integer {bounds}")
    return value


def as_number_text(text, name: str) -> float:
    """``text``, a finite number written as :data:`NUMBER_TEXT` (a command-line option), as a
    float.

    Parameters
    ----------
    text : str
        The text.
    name : str
        The option, for the message.

    Returns
    -------
    float
        The number.

    Raises
    ------
    InvalidInputError
        When ``text`` is not a number written in ASCII digits (``inf`` and ``nan`` are not), or lies
        beyond the float range, or is not zero but below it (``1e-400`` would read as 0).

    Examples
    --------
    >>> as_number_text("1e-9", "--rtol")
    1e-09
    >>> as_number_text("1e400", "--rtol")
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: --rtol = '1e400': beyond the float range
    """
    import math
    import re

    if not isinstance(text, str) or not re.fullmatch(NUMBER_TEXT, text):
        raise InvalidInputError(
            f"{name} = {_short(text)}: must be a number written in digits (e.g. 0.5 or 1e-9)"
        )
    value = float(text)
    if not math.isfinite(value):
        raise InvalidInputError(f"{name} = {text!r}: beyond the float range")
    if value == 0 and re.search(r"[1-9]", text.split("e")[0].split("E")[0]):
        # "1e-400" reads as 0.0, and a message about 0.0 names no value the user gave
        raise InvalidInputError(f"{name} = {text!r}: below the float range (it would read as 0)")
    return value


def cli_integer(text: str) -> int:
    """An ``argparse`` type: :func:`as_integer_text`, refused as argparse refuses a value (status 2,
    naming the option).

    Parameters
    ----------
    text : str
        The option's value.

    Returns
    -------
    int
        The integer.

    Raises
    ------
    argparse.ArgumentTypeError
        When ``text`` is not an integer written in digits, or has more than
        :data:`MAX_INTEGER_DIGITS` of them.
    """
    try:
        return as_integer_text(text, "value")
    except InvalidInputError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("value = ")) from None


def cli_number(text: str) -> float:
    """An ``argparse`` type: :func:`as_number_text`, refused as argparse refuses a value (status 2,
    naming the option).

    Parameters
    ----------
    text : str
        The option's value.

    Returns
    -------
    float
        The number.

    Raises
    ------
    argparse.ArgumentTypeError
        When ``text`` is not a finite number written in digits, or is not zero but reads as 0.
    """
    try:
        return as_number_text(text, "value")
    except InvalidInputError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("value = ")) from None


class CommandParser(argparse.ArgumentParser):
    """The library's command lines' parser: :class:`argparse.ArgumentParser` that takes no
    abbreviation of an option (``--lis`` is not ``--list``) and refuses, with status 2 and a message
    naming the option and the values, an option given more than once (argparse keeps the last
    one and drops the others silently) and a value given twice in one option's or positional's
    list (``--tables task_events task_events``). Its subcommands' parsers are of this class too.
    Build one with :func:`command_parser`."""

    def __init__(self, *args, **kwargs) -> None:
        if kwargs.get("allow_abbrev", False):
            raise InvalidInputError("allow_abbrev = True: a command line takes no abbreviation")
        kwargs["allow_abbrev"] = False
        super().__init__(*args, **kwargs)

    def _repeats_in(self, argv: list[str]) -> None:
        """The first option of this parser given more than once in ``argv``, refused."""
        seen: dict[int, list[str]] = {}
        for i, token in enumerate(argv):
            if token == "--":
                break
            for action in self._actions:
                if isinstance(action, (argparse._AppendAction, argparse._CountAction)):
                    continue
                for opt in action.option_strings:
                    if token == opt or (opt.startswith("--") and token.startswith(opt + "=")):
                        if "=" in token:
                            value = token.split("=", 1)[1]
                        elif action.nargs == 0:
                            value = opt
                        elif i + 1 < len(argv) and not argv[i + 1].startswith("-"):
                            value = argv[i + 1]
                        else:
                            value = opt
                        seen.setdefault(id(action), []).append(value)
                        if len(seen[id(action)]) > 1:
                            name = "/".join(action.option_strings)
                            values = ", ".join(repr(v) for v in seen[id(action)])
                            self.error(
                                f"{name} is given more than once ({values}): argparse would keep "
                                "the last one only; give it once"
                            )

    def _duplicates_in(self, parsed: argparse.Namespace) -> None:
        """The first value given twice in one list-valued option or positional, refused."""
        for action in self._actions:
            listed = action.nargs in ("+", "*") or (
                isinstance(action.nargs, int) and action.nargs > 1
            )
            if not listed or isinstance(action, argparse._AppendAction):
                continue
            values = getattr(parsed, action.dest, None)
            if not isinstance(values, list):
                continue
            for i, value in enumerate(values):
                if value in values[:i]:
                    name = "/".join(action.option_strings) or action.metavar or action.dest
                    first = values.index(value)
                    self.error(f"{name}: {value!r} is given twice (entries {first} and {i})")

    def parse_known_args(self, args=None, namespace=None):  # type: ignore[override]
        import sys

        argv = list(sys.argv[1:] if args is None else args)
        self._repeats_in(argv)
        parsed, extras = super().parse_known_args(argv, namespace)
        self._duplicates_in(parsed)
        return parsed, extras


def command_parser(**kwargs) -> CommandParser:
    """A command line's parser (:class:`CommandParser`): every ``main(argv)`` of the library, the
    runner, the benchmarks and the book builds its parser here, so that none takes an abbreviated
    option, a repeated option or a repeated list entry.

    Parameters
    ----------
    **kwargs
        :class:`argparse.ArgumentParser`'s keyword arguments (``allow_abbrev`` is False).

    Returns
    -------
    CommandParser
        The parser.

    Raises
    ------
    InvalidInputError
        When ``allow_abbrev=True`` is passed.

    Examples
    --------
    >>> p = command_parser(prog="demo")
    >>> _ = p.add_argument("--list", action="store_true")
    >>> p.parse_args(["--list"])
    Namespace(list=True)
    """
    return CommandParser(**kwargs)


def as_parts(parts, name: str = "parts", *, first: int = 0, count: int, where: str) -> list[int]:
    """``parts``, a non-empty iterable of part numbers of a sharded table, as a list of ints: each
    an integer from ``first`` to ``first + count - 1``, in increasing order and each once (a file is
    read or fetched once, in the table's order, so at most ``count`` of them, and an iterable is
    read no further than one item past that); anything else is an error naming the argument and the
    part.

    Parameters
    ----------
    parts : iterable of int
        The argument's value.
    name : str
        The argument's name, for the message.
    first : int
        The table's first part number.
    count : int
        How many parts the table has.
    where : str
        The table, for the message.

    Returns
    -------
    list of int
        The part numbers.

    Examples
    --------
    >>> as_parts(range(3), count=500, where="task_events")
    [0, 1, 2]
    >>> as_parts(range(5, 0, -1), count=500, where="task_events")
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: parts: 4 is not after 5 (part numbers are increasing, each
    once)
    """
    last = first + count - 1
    # read at most one item past the table's parts: more cannot be increasing and in range
    parts = list(
        as_sequence(
            parts,
            name,
            what=f"must be an iterable of part numbers ({first} to {last})",
            maximum=count,
        )
    )
    if not parts:
        raise InvalidInputError(f"{name}: no part numbers given")
    for i, part in enumerate(parts):
        if (
            isinstance(part, (bool, np.bool_))
            or not isinstance(part, (int, np.integer))
            or not first <= part <= last
        ):
            raise InvalidInputError(
                f"{name}: {_short(part)} is not a part of {where} ({first} to {last})"
            )
        if i and part <= parts[i - 1]:
            raise InvalidInputError(
                f"{name}: {int(part)} is not after {int(parts[i - 1])} (part numbers are "
                "increasing, "
                "each once)"
            )
    return [int(part) for part in parts]


def as_values(
    x: ArrayLike,
    name: str,
    *,
    ndim: int,
    shape: tuple[int, ...] | None = None,
    sign: str | None = ">= 0",
    allow_nan: bool = False,
) -> npt.NDArray[np.float64]:
    """A contiguous float64 array of ``ndim`` dimensions, finite, with a given sign.

    Parameters
    ----------
    x : array_like
        The values.
    name : str
        The argument's name, used in the error message.
    ndim : int
        The required number of dimensions.
    shape : tuple of int or None, default None
        The required shape; ``-1`` matches any length along that axis; None accepts any.
    sign : {">= 0", "> 0", None}, default ">= 0"
        The required sign of every entry; None accepts any.
    allow_nan : bool, default False
        Whether NaN is accepted (as an empty field); infinities never are.

    Returns
    -------
    numpy.ndarray
        Contiguous float64 copy of ``x``'s shape (never ``x`` itself).

    Raises
    ------
    InvalidInputError
        On complex or boolean input, a wrong dimension or shape, a non-finite entry or a wrong sign.

    Examples
    --------
    >>> as_values([[0.5, 0.5], [1.0, 0.0]], "shares", ndim=2).shape
    (2, 2)
    >>> as_values([[0.5, float("nan")]], "shares", ndim=2)
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: shares[0, 1] = nan: shares must be finite
    """
    arr = as_array(x, name)
    if arr.dtype.kind == "c":
        raise InvalidInputError(f"{name}: must be real numbers, got complex dtype {arr.dtype}")
    if arr.dtype.kind == "b":
        raise InvalidInputError(f"{name}: must be numeric, got a boolean array")
    if arr.ndim != ndim:
        raise InvalidInputError(f"{name}: must be {ndim}-D, got shape {arr.shape}")
    if shape is not None and any(s not in (-1, a) for s, a in zip(shape, arr.shape)):
        want = "(" + ", ".join("any" if s == -1 else str(s) for s in shape) + ")"
        raise InvalidInputError(f"{name}: expected shape {want}, got {arr.shape}")
    arr = np.array(arr, dtype=np.float64, order="C")  # a copy, never the caller's array
    bad = np.isinf(arr) if allow_nan else ~np.isfinite(arr)
    if bad.any():
        idx = _first(bad)
        raise InvalidInputError(f"{name}[{_fmt_index(idx)}] = {arr[idx]}: {name} must be finite")
    if sign is not None:
        with np.errstate(invalid="ignore"):
            _check_sign(np.where(np.isnan(arr), 1.0, arr), name, strict=sign == "> 0")
    return arr


def _values_dtype(dtype: Any) -> Any:
    """The dtype of the values a column of ``dtype`` holds: a categorical's categories' dtype."""
    import pandas as pd

    return dtype.categories.dtype if isinstance(dtype, pd.CategoricalDtype) else dtype


def is_real_dtype(dtype: object) -> bool:
    """Whether a column or array of ``dtype`` holds real numbers: a numeric dtype that is neither
    boolean nor complex (booleans and complex numbers are not numbers here).

    Parameters
    ----------
    dtype : numpy or pandas dtype
        The dtype (of a categorical, its categories' dtype is asked).

    Returns
    -------
    bool
        True for integer and float dtypes (pandas nullable ones included).

    Examples
    --------
    >>> import numpy as np
    >>> is_real_dtype(np.dtype("int8")), is_real_dtype(np.dtype("complex128"))
    (True, False)
    """
    import pandas as pd

    dtype = _values_dtype(dtype)
    api = pd.api.types
    return bool(
        api.is_numeric_dtype(dtype)
        and not api.is_bool_dtype(dtype)
        and not api.is_complex_dtype(dtype)
    )


def check_no_complex(frame: pd.DataFrame, name: str) -> None:
    """Refuse a table with a complex number in any column: no reader of a written table reads one
    back as a number, and no result of the library is complex.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table.
    name : str
        The argument's name, for the message.

    Raises
    ------
    InvalidInputError
        Naming the table, the column and, for a column of mixed values, the row and the value,
        when a column has a complex dtype or holds a complex number.

    Examples
    --------
    >>> import pandas as pd
    >>> check_no_complex(pd.DataFrame({"a": [1 + 1j]}), "df")
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: df, column 'a': complex numbers (dtype complex128) are
    not numbers here
    """
    import pandas as pd

    for col in frame.columns:
        column = frame[col]
        dtype = _values_dtype(column.dtype)
        if pd.api.types.is_complex_dtype(dtype):
            raise InvalidInputError(
                f"{name}, column {col!r}: complex numbers (dtype {column.dtype}) are not numbers "
                "here"
            )
        if dtype.kind == "O":
            for k, value in enumerate(column.tolist()):
                if isinstance(value, (complex, np.complexfloating)):
                    label = frame.index[k]
                    label = label.item() if isinstance(label, np.generic) else label
                    raise InvalidInputError(
                        f"{name} row {k} (index {label!r}), column {col!r} = {_short(value)}: a "
                        "complex number is not a number here"
                    )


def _not_numbers(frame: pd.DataFrame, name: str, col: str) -> str:
    """The refusal of a column that does not hold numbers: its first entry that is none (row,
    index label and value), else its dtype."""
    for k, value in enumerate(frame[col].tolist()):
        is_number = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
            value, (bool, np.bool_)
        )
        if not is_number:
            label = frame.index[k]
            label = label.item() if isinstance(label, np.generic) else label
            return (
                f"{name} row {k} (index {label!r}), column {col!r} = {_short(value)}: must be a "
                f"number (the column's dtype is {frame[col].dtype})"
            )
    return f"{name}, column {col!r}: must hold numbers, got dtype {frame[col].dtype}"


def as_table(
    value: object,
    name: str,
    columns: Iterable[str] = (),
    numeric: Iterable[str] = (),
    *,
    sign: str | None = None,
    infinite: bool = False,
) -> pd.DataFrame:
    """``value`` when it is a table (a DataFrame) holding ``columns``, those of ``numeric``
    numbers (:func:`check_columns`, an empty field allowed).

    Every driver's function that reads a table it was given (the result of an earlier step)
    checks it here first, so that a wrong table is refused by name and row instead of meeting a
    ``KeyError`` or a ``TypeError`` deep in pandas.

    Parameters
    ----------
    value : object
        What the caller passed.
    name : str
        The argument's name, used in the error message.
    columns : iterable of str, default ()
        Columns the table must have.
    numeric : iterable of str, default ()
        Columns (among those read) that must hold numbers; they must be present too.
    sign : {">= 0", "> 0", None}, default None
        The sign every present number of ``numeric`` must have; None accepts any.
    infinite : bool, default False
        Whether ``numeric`` may hold inf (of the sign asked), where the table means it: α = inf
        for PS-DSF, a gap or a violation that is unbounded.

    Returns
    -------
    pandas.DataFrame
        ``value`` itself.

    Raises
    ------
    InvalidInputError
        When ``value`` is no DataFrame, lacks a column, or a ``numeric`` column holds something
        other than a number (naming the row, the column and the value).

    Examples
    --------
    >>> import pandas as pd
    >>> as_table(pd.DataFrame({"users": [2, "x"]}), "results", ["users"], ["users"])
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: results row 1 (index 1), column 'users' = 'x': must be a
    number (the column's dtype is object)
    """
    import pandas as pd

    table: pd.DataFrame = as_instance(value, pd.DataFrame, name)
    check_column_labels(table, name, text=False)
    needed = list(dict.fromkeys([*columns, *numeric]))
    missing = [c for c in needed if c not in table.columns]
    if missing:
        raise InvalidInputError(
            f"{name}: no column {', '.join(map(repr, missing))} (needs {_short(needed)}; its "
            f"columns: {_short(list(table.columns))})"
        )
    check_columns(table, name, numeric, sign=sign, infinite=infinite)
    return table


def inexact_row(column: pd.Series) -> int | None:
    """The position of the first integer float64 does not hold (:data:`EXACT_INTEGER_MAX`) in a
    column of numbers (an integer column, or ints in an object or nullable column), which float64
    would hold as another number; None when there is none, or the column holds floats (not scanned).

    Parameters
    ----------
    column : pandas.Series
        Real numbers, of any dtype :func:`is_real_dtype` accepts, or objects.

    Returns
    -------
    int or None
        The 0-based row, or None.
    """
    import pandas as pd

    dtype = _values_dtype(column.dtype)
    if isinstance(column.dtype, pd.CategoricalDtype):
        values = np.asarray(column.astype(object).to_numpy())
    else:
        values = column.to_numpy()
    if dtype.kind in "iu" and values.dtype.kind in "iu":
        if values.dtype.itemsize < 8:
            return None
        beyond = _inexact_mask(values)
    elif values.dtype == object:  # nullable Int64 (pd.NA among them), Python ints
        beyond = np.array(
            [
                isinstance(v, numbers.Integral)
                and not isinstance(v, (bool, np.bool_))
                and _inexact(int(v))
                for v in values
            ],
            dtype=bool,
        )
    else:
        return None
    return int(np.argmax(beyond)) if beyond.any() else None


def check_columns(
    frame: pd.DataFrame,
    name: str,
    columns: Iterable[str],
    *,
    sign: str | None = ">= 0",
    whole: bool = False,
    maximum: float = np.inf,
    allow_missing: bool = True,
    infinite: bool = False,
) -> None:
    """Check the columns of a table that hold amounts, times or counts: finite where present
    (unless ``infinite``), with ``sign``, whole when ``whole`` and at most ``maximum``.

    An empty field (NaN) is allowed unless ``allow_missing`` is False; a missing column is
    refused, naming the table and the columns it has (never a raw ``KeyError`` from deep inside
    the caller).

    Parameters
    ----------
    frame : pandas.DataFrame
        The table.
    name : str
        The table's name, used in the error message.
    columns : iterable of str
        The columns to check.
    sign : {">= 0", "> 0", None}, default ">= 0"
        The required sign of every present entry; None accepts any.
    whole : bool, default False
        Whether every present entry must be a whole number (a time in whole seconds, a count).
    maximum : float, default inf
        The largest value allowed, inclusive.
    allow_missing : bool, default True
        Whether an empty field (NaN, ``pd.NA``) is allowed.
    infinite : bool, default False
        Whether inf (or -inf, without ``sign``) is allowed.

    Raises
    ------
    InvalidInputError
        Naming the table, when a column is missing; naming the table, the row (0-based position
        and index label), the column and the value, when a column is not numeric (text, even
        text of numbers, and booleans are not) or a value is infinite (unless ``infinite``), of
        the wrong sign, not whole when ``whole``, above ``maximum`` or missing without
        ``allow_missing``, or an integer float64 does not hold (:data:`EXACT_INTEGER_MAX`) (float64
        cannot hold it exactly). Booleans and complex numbers are not numbers.

    Examples
    --------
    >>> import pandas as pd
    >>> check_columns(pd.DataFrame({"cpu": [0.5, -2.0]}), "jobs", ["cpu"])
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: jobs row 1 (index 1), column 'cpu' = -2.0: must be finite
    and >= 0
    """
    import pandas as pd

    columns = list(columns)
    check_column_labels(frame, name, text=False)
    missing = [col for col in columns if col not in frame.columns]
    if missing:
        raise InvalidInputError(
            f"{name}: no column {', '.join(map(repr, missing))} (its columns: "
            f"{_short(list(frame.columns))})"
        )
    for col in columns:
        column = frame[col]
        # text that looks like numbers ("0.5") and booleans convert to floats, but are no amounts:
        # refused, as every other non-numeric column is
        dtype = (
            column.dtype.categories.dtype
            if isinstance(column.dtype, pd.CategoricalDtype)
            else column.dtype
        )
        # complex numbers are not numbers: their imaginary part would be dropped by the float cast
        numeric = is_real_dtype(dtype)
        if not numeric and pd.api.types.is_object_dtype(dtype):
            numeric = pd.api.types.infer_dtype(column, skipna=True) in (
                "integer",
                "floating",
                "mixed-integer-float",
                "empty",
            )
        if not numeric:
            raise InvalidInputError(_not_numbers(frame, name, col))
        k = inexact_row(column)
        if k is not None:
            label = frame.index[k]
            label = label.item() if isinstance(label, np.generic) else label
            raise InvalidInputError(
                f"{name} row {k} (index {label!r}), column {col!r} = "
                f"{_short(int(column.iloc[k]))}: {BEYOND_EXACT}"
            )
        try:
            v = np.asarray(column.to_numpy(dtype=np.float64, na_value=np.nan))
        except (TypeError, ValueError):
            raise InvalidInputError(
                f"{name}, column {col!r}: must hold numbers, got dtype {frame[col].dtype}"
            ) from None
        bad = np.isinf(v) if not infinite else np.zeros(v.shape, bool)
        with np.errstate(invalid="ignore"):
            if sign is not None:
                bad |= (v <= 0) if sign == "> 0" else (v < 0)
            if whole:
                bad |= np.isfinite(v) & (v != np.round(v))
            bad |= v > maximum
        if not allow_missing:
            bad |= np.isnan(v)
        if bad.any():
            k = int(np.argmax(bad))
            rule = (
                ("present, " if not allow_missing else "")
                + ("finite" if not infinite else "a number")
                + (", whole" if whole else "")
                + (f" and {sign}" if sign else "")
                + (f" and <= {maximum:g}" if np.isfinite(maximum) else "")
            )
            label = frame.index[k]
            label = label.item() if isinstance(label, np.generic) else label
            raise InvalidInputError(
                f"{name} row {k} (index {label!r}), column {col!r} = {v[k]}: must be {rule}"
            )


def as_rng(
    rng: Seed | None, name: str = "rng", *, reproducible: bool = False
) -> np.random.Generator:
    """``np.random.default_rng(rng)`` for a seed; anything but a seed is an error naming the
    argument.

    Parameters
    ----------
    rng : int, numpy.random.SeedSequence, numpy.random.BitGenerator, numpy.random.Generator or None
        The seed: an integer >= 0, a SeedSequence, a BitGenerator, a Generator (returned as it is),
        or None (fresh OS entropy: a different draw on every call) unless ``reproducible``.
    name : str, default "rng"
        The argument's name, used in the error message.
    reproducible : bool, default False
        Whether the caller promises the same result from the same seed (an experiment driver, a
        measurement behind a claim): None is then refused (:data:`FRESH_ENTROPY` says why).

    Returns
    -------
    numpy.random.Generator
        The generator.

    Raises
    ------
    InvalidInputError
        When ``rng`` is none of the accepted kinds (a negative integer, a float, text, ...), or
        None with ``reproducible``.

    Examples
    --------
    >>> as_rng("abc")
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: rng = 'abc': must be None, an integer >= 0, a SeedSequence
    or a Generator
    >>> as_rng(None, "seed", reproducible=True)
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: seed = None: pass an integer seed; None would draw fresh
    entropy and the result could not be reproduced
    """
    if rng is None and reproducible:
        raise InvalidInputError(f"{name} = None: {FRESH_ENTROPY}")
    ok = (
        rng is None
        or isinstance(rng, (np.random.Generator, np.random.BitGenerator, np.random.SeedSequence))
        or (
            isinstance(rng, (int, np.integer))
            and not isinstance(rng, (bool, np.bool_))
            and rng >= 0
        )
    )
    if not ok:
        kinds = "an integer >= 0, a SeedSequence or a Generator"
        raise InvalidInputError(
            f"{name} = {_short(rng)}: must be {kinds if reproducible else 'None, ' + kinds}"
        )
    return np.random.default_rng(rng)


def as_instance(value: object, cls: type, name: str) -> Any:
    """``value`` when it is an instance of ``cls``, else an error naming the argument, what it got
    and what it needs.

    Parameters
    ----------
    value : object
        The argument.
    cls : type
        The required type.
    name : str
        The argument's name, used in the error message.

    Returns
    -------
    object
        ``value`` itself.

    Raises
    ------
    InvalidInputError
        When ``value`` is not an instance of ``cls``.

    Examples
    --------
    >>> as_instance([[1, 2]], dict, "grid")
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: grid = [[1, 2]]: must be a dict, got list
    """
    if not isinstance(value, cls):
        raise InvalidInputError(
            f"{name} = {_short(value)}: must be a {cls.__name__}, got {type(value).__name__}"
        )
    return value


def as_list_of(value: object, cls: type[T], name: str) -> list[T]:
    """``value`` when it is a list whose every element is an instance of ``cls``, else an error
    naming the argument (or the element, by index), what it got and what it needs.

    Parameters
    ----------
    value : object
        The argument.
    cls : type
        The type every element must have.
    name : str
        The argument's name, used in the error message with the offending index.

    Returns
    -------
    list
        ``value`` itself.

    Raises
    ------
    InvalidInputError
        When ``value`` is not a list (None included) or an element is not an instance of ``cls``.

    Examples
    --------
    >>> as_list_of([0.5, "2"], float, "times")
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: times[1] = '2': must be a float, got str
    """
    items: list[T] = as_instance(value, list, name)
    for i, item in enumerate(items):
        as_instance(item, cls, f"{name}[{i}]")
    return items


def check_choice(value: T, choices: Iterable[object], name: str) -> T:
    """``value`` if it is one of ``choices``, else an error naming the argument, its value and the
    choices.

    Parameters
    ----------
    value : object
        The argument (a list, dict, set or array is never a choice).
    choices : iterable
        The accepted values.
    name : str
        The argument's name, used in the error message.

    Returns
    -------
    object
        ``value`` itself.

    Raises
    ------
    InvalidInputError
        When ``value`` is not one of ``choices``.

    Examples
    --------
    >>> check_choice("lp", ("linear", "lp"), "method")
    'lp'
    """
    if isinstance(value, (list, dict, set, np.ndarray)) or value not in tuple(choices):
        raise InvalidInputError(f"{name} = {value!r}: must be one of {list(choices)}")
    return value


class _ReadOnlyMapping(dict):
    """A ``MappingProxyType`` in a pickle or a copy (a proxy is neither picklable nor copyable):
    its items, made a read-only mapping again when the object is rebuilt."""


def _thawed(value: object) -> object:
    """``value`` with every read-only mapping (in tuples, lists and dicts too) as a
    :class:`_ReadOnlyMapping` that pickle and :mod:`copy` can handle."""
    if isinstance(value, MappingProxyType):
        return _ReadOnlyMapping({k: _thawed(v) for k, v in value.items()})
    if isinstance(value, (tuple, list)) and type(value) in (tuple, list):
        return type(value)(_thawed(v) for v in value)
    if type(value) is dict:
        return {k: _thawed(v) for k, v in value.items()}
    return value


def _refrozen(value: object) -> object:
    """The inverse of :func:`_thawed`, with every array (in tuples, lists and mappings too)
    made read-only: an unpickled or copied array is a fresh, writable one."""
    if isinstance(value, np.ndarray):
        value.setflags(write=False)
        return value
    if type(value) is _ReadOnlyMapping:
        return MappingProxyType({k: _refrozen(v) for k, v in value.items()})
    if isinstance(value, (tuple, list)) and type(value) in (tuple, list):
        return type(value)(_refrozen(v) for v in value)
    if type(value) is dict:
        return {k: _refrozen(v) for k, v in value.items()}
    return value


def _rebuilt(cls: type, state: dict) -> object:
    """An instance of ``cls`` with ``state`` (from :func:`_reduce`) as its fields, arrays
    read-only."""
    obj: object = object.__new__(cls)
    for name, value in state.items():
        object.__setattr__(obj, name, _refrozen(value))
    return obj


def _reduce(self) -> tuple:
    """``__reduce__`` of a :func:`read_only_state` class: its fields, rebuilt by
    :func:`_rebuilt`."""
    return (_rebuilt, (type(self), {k: _thawed(v) for k, v in vars(self).items()}))


def read_only_state(cls: type[T]) -> type[T]:
    """Give ``cls`` a pickle, ``copy.copy`` and ``copy.deepcopy`` that keep what an instance keeps
    as it was: every array read-only, every ``MappingProxyType`` read-only, every derived field
    as the original's.

    By default an unpickled or deep-copied NumPy array is writable (a read-only instance would
    come back with writable arrays and derived fields a write could make stale), and a
    ``MappingProxyType`` (the read-only ``extras`` of a result) cannot be pickled or copied at all.
    The copy is the original's fields (computed and checked when it was built), restored without
    calling the constructor: a constructor reading pandas labels from its arguments would lose
    them, and a result's derived certificate would be computed again. :func:`result_type`
    applies it to every dataclass it marks; an input type (a cluster, a game, a workload)
    applies it itself.

    ``cls`` is a class whose instances keep their fields in ``__dict__`` (a dataclass).

    Returns
    -------
    type
        ``cls`` itself, with ``__reduce__`` set.

    Examples
    --------
    >>> import copy
    >>> from dataclasses import dataclass
    >>> @read_only_state
    ... @dataclass(frozen=True, eq=False)
    ... class Kept:
    ...     values: np.ndarray
    >>> kept = Kept(np.zeros(2))
    >>> copy.deepcopy(kept).values.flags.writeable
    False
    """
    cls.__reduce__ = _reduce  # type: ignore[assignment, method-assign]
    return cls


def _is_named_tuple(cls: type) -> bool:
    return issubclass(cls, tuple) and hasattr(cls, "_fields")


_RESULT_MARK = "__fairlib_result_type__"


def result_type(cls: type[T]) -> type[T]:
    """Mark ``cls`` as a result or record type: the library builds its instances and users read
    them.

    The API contract (``tests/test_api_contract.py``) feeds bad values to every public callable's
    arguments; a result type's constructor is not one users call with their data, so the contract
    leaves it out, and probes its public methods that take arguments instead. Mark a frozen
    dataclass or named tuple that a mechanism or game returns; an input type (a cluster, a game, a
    workload) validates its arguments and is not marked.

    ``cls`` is the class to mark (numpydoc reads an argument named ``cls`` as a class method's own
    class, so it is described here rather than under Parameters). A frozen dataclass or a named
    tuple keeps every array field as a read-only copy once built: a result shares no memory with
    the solver's buffers or its caller's arrays, and no reader changes it in place. A marked
    dataclass pickles and copies with its arrays still read-only (:func:`read_only_state`).

    Equality: a result that holds arrays or mappings is declared with ``eq=False`` (a named tuple
    defines ``__eq__`` and ``__hash__`` by identity), so ``a == b`` only when ``a is b`` and
    ``hash(a)`` works; compare fields of arrays with ``np.array_equal``. Records of text and
    numbers only (the ledger's claims) compare by value.

    Returns
    -------
    type
        ``cls`` itself, marked.

    Examples
    --------
    >>> from dataclasses import dataclass
    >>> @result_type
    ... @dataclass(frozen=True)
    ... class Outcome:
    ...     value: float
    >>> is_result_type(Outcome), is_result_type(dict)
    (True, False)
    """
    setattr(cls, _RESULT_MARK, True)  # by name: the mark is no attribute a type declares
    if _is_named_tuple(cls):
        import functools

        new = cls.__new__

        @functools.wraps(new)
        def __new__(kind, *args, **kwargs):
            # a pickle or a copy comes through here too: its arrays are read-only copies as well
            fields = []
            for value in new(kind, *args, **kwargs):
                if isinstance(value, np.ndarray):
                    value = np.array(value, order="C")
                    value.setflags(write=False)
                fields.append(value)
            return tuple.__new__(kind, fields)

        cls.__new__ = __new__  # type: ignore[method-assign, assignment]
        return cls
    params = getattr(cls, "__dataclass_params__", None)
    if params is not None:
        read_only_state(cls)
    if params is not None and params.frozen and "__init__" in vars(cls):
        import dataclasses
        import functools

        init = cls.__init__
        arrays = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]

        @functools.wraps(init)
        def __init__(self, *args, **kwargs):
            init(self, *args, **kwargs)
            _store_read_only(
                self,
                **{
                    name: value
                    for name in arrays
                    if isinstance(value := getattr(self, name, None), np.ndarray)
                },
            )

        cls.__init__ = __init__  # type: ignore[method-assign, misc]
    return cls


def is_result_type(cls: object) -> bool:
    """Whether ``cls`` itself (not only a base class) is marked by :func:`result_type`.

    ``cls`` is the class to test; anything but a class gives False.

    Returns
    -------
    bool
        True when ``cls`` is a class marked by :func:`result_type`.
    """
    return isinstance(cls, type) and _RESULT_MARK in vars(cls)
