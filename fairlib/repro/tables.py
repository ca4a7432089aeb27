"""Tables for readers: the one place a notebook formats a table it shows.

A table written for a reader differs from the tidy CSV a notebook saves
(:func:`fairlib.repro.outputs.save_table`): its columns have human names, each numeric column has
one fixed number of decimals (never ``4.950000e+01``), a missing value is a dash (never ``NaN``),
and it fits the page: a table wider than the book's content column is transposed when it has few
rows, else split into column groups that each repeat the first column.

>>> import pandas as pd
>>> t = table(pd.DataFrame({"users": [10, 20], "mean_efficiency": [0.91234, float("nan")]}))
>>> t.frames[0].to_dict("records")
[{'users': '10', 'mean efficiency': '0.912'}, {'users': '20', 'mean efficiency': '—'}]
>>> wide = table(
...     pd.DataFrame(
...         {
...             "mechanism": ["PS-DSF", "DRFH"],
...             **{f"a_long_measure_{i}": [0.5, 0.25] for i in range(12)},
...         }
...     )
... )
>>> [f.shape for f in wide.frames]      # two rows, twelve measures: one row per measure
[(12, 3)]
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._validate import (
    check_column_labels,
    check_no_complex,
    InvalidInputError,
    _short,
    as_count,
    as_instance,
    as_label,
    as_number,
    result_type,
    as_text,
)

__all__ = ["Table", "table", "show_table", "reader_value", "CONTENT_WIDTH_PX"]

#: the book's content column at a 1280-pixel window (CSS pixels); a table wider than this is
#: reshaped
CONTENT_WIDTH_PX = 680
#: estimated width of one character of a table cell, and a cell's padding (CSS pixels at the book's
#: table font)
_CHAR_PX, _PAD_PX = 7.2, 14
#: a table with at most this many rows is transposed when too wide; a longer one is split into
#: column groups
_TRANSPOSE_ROWS = 12
MISSING = "—"
#: the most decimals a column is shown with
MAX_DECIMALS = 20


def _column_decimals(values: Iterable[object]) -> int:
    """Decimals for a numeric column: none for whole numbers, else enough for about three
    significant digits of its largest magnitude (at most 6).

    Parameters
    ----------
    values : iterable of float or None
        The column's values (None and non-finite values are ignored).

    Returns
    -------
    int
        Decimals, 0 to 6.

    Examples
    --------
    >>> (
    ...     _column_decimals([1.0, 2.0]),
    ...     _column_decimals([49.5, 3.25]),
    ...     _column_decimals([0.00123, 0.0004]),
    ... )
    (0, 1, 5)
    """
    x = np.asarray([v for v in values if v is not None], dtype=float)
    x = x[np.isfinite(x)]
    if x.size == 0 or np.all(x == np.round(x)):
        return 0
    top = float(np.max(np.abs(x)))
    if top == 0:
        return 0
    return int(min(6, max(0, 2 - math.floor(math.log10(top)))))


def _text(value: object, decimals: int) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return MISSING
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}"
    if isinstance(value, (float, np.floating)):
        if math.isinf(value):
            return "∞" if value > 0 else "−∞"
        if (
            abs(float(value)) >= 1e15
        ):  # beyond what fixed digits let a reader take in (and a page's width)
            from .prose import scientific

            return scientific(float(value), 2)
        text = f"{float(value):,.{decimals}f}"
        if text.lstrip("-").strip("0,.") == "":  # a rounded zero has no sign
            text = text.lstrip("-")
        return text.replace("-", "−")
    text = str(value)
    return MISSING if text in ("nan", "NaN", "None", "") else text


def _human(name: object) -> str:
    text = str(name)
    return text.replace("_", " ") if " " not in text else text


def _width_px(frame: pd.DataFrame) -> float:
    widths = [max([len(str(c))] + [len(v) for v in frame[c]]) for c in frame.columns]
    return sum(w * _CHAR_PX + _PAD_PX for w in widths)


@result_type
@dataclass(frozen=True, eq=False)
class Table:
    """One table as a reader sees it: one or more frames of text (several when a wide table is
    split), shown as HTML in a notebook (:func:`show_table`).

    Parameters
    ----------
    frames : tuple of pandas.DataFrame
        The frames of text, shown one under the other.
    caption : str, optional
        Shown above the first frame.
    """

    frames: tuple[pd.DataFrame, ...]
    caption: str | None = None

    def _repr_html_(self) -> str:
        parts = [f"<p><strong>{self.caption}</strong></p>"] if self.caption else []
        parts += [
            f.to_html(index=False, border=0, classes="fairlib-table", escape=True, na_rep=MISSING)
            for f in self.frames
        ]
        return "\n".join(parts)

    def __repr__(self) -> str:
        return "\n\n".join(f.to_string(index=False) for f in self.frames)


def table(
    df: pd.DataFrame,
    *,
    names: Mapping[str, str] | None = None,
    decimals: dict[str, int] | int | None = None,
    caption: str | None = None,
    width_px: float = CONTENT_WIDTH_PX,
) -> Table:
    """``df`` formatted for a reader (see the module docstring).

    ``names``: column → header (other columns: underscores become spaces). ``decimals``: one count
    for every numeric column, or column → count (others: :func:`_column_decimals`). A table wider
    than ``width_px`` is transposed (its first column becomes the header row) when it has at most 12
    rows, else split into column groups that each repeat the first column.

    Parameters
    ----------
    df : pandas.DataFrame
        The tidy table.
    names : dict of str to str, optional
        Column → header (other columns: underscores become spaces).
    decimals : int or dict of str to int, optional
        One count for every numeric column, or column → count (others: :func:`_column_decimals`),
        each from 0 to :data:`MAX_DECIMALS`.
    caption : str, optional
        The table's caption.
    width_px : float, default CONTENT_WIDTH_PX
        The widest a frame may be, CSS pixels (the book's content column: 680), > 0.

    Returns
    -------
    Table
        The frames of text and the caption.

    Raises
    ------
    InvalidInputError
        When ``df`` is not a DataFrame, has no columns, a blank or repeated column label or a
        complex number, ``names`` is not a mapping of columns to non-blank text, ``decimals`` is
        not a count (or a mapping to counts) from 0 to :data:`MAX_DECIMALS`, ``caption`` is not
        text, ``width_px`` is not a finite number > 0, ``names`` or ``decimals`` names a
        column it does not have, or two columns would show under one header (``names`` giving
        two columns one header, or a column the header of another one it does not rename).
    """
    if not isinstance(df, pd.DataFrame):
        raise InvalidInputError(
            f"df = {_short(df)}: expected a pandas DataFrame, got {type(df).__name__}"
        )
    if df.shape[1] == 0:
        raise InvalidInputError(f"df: a table without columns ({len(df)} rows, nothing to show)")
    # a CSV or a page with two columns of one name, or a blank header but the row labels' ""
    check_column_labels(df, "df", text=False, unlabelled_first=True)
    check_no_complex(df, "df")
    names = dict(as_instance(names, Mapping, "names")) if names is not None else {}
    for col, header in names.items():
        as_label(header, f"names[{col!r}]")  # a blank header shows nothing
    if isinstance(decimals, dict):
        for col, d in decimals.items():
            as_count(d, f"decimals[{col!r}]", minimum=0, maximum=MAX_DECIMALS)
    elif decimals is not None:
        as_count(decimals, "decimals", minimum=0, maximum=MAX_DECIMALS)
    if caption is not None:
        as_text(caption, "caption", what="a caption is shown under the table", lines=True)
    width_px = as_number(width_px, "width_px")
    unknown = [c for c in names if c not in df.columns]
    if unknown:
        raise InvalidInputError(
            f"names: {unknown} are not columns of df; its columns: {list(df.columns)}"
        )
    if isinstance(decimals, dict):
        bad = [c for c in decimals if c not in df.columns]
        if bad:
            raise InvalidInputError(
                f"decimals: {bad} are not columns of df; its columns: {list(df.columns)}"
            )
    # an index that carries labels (named, or not 0..n-1) is a column for the reader; a plain row
    # count is not
    plain = (
        isinstance(df.index, pd.RangeIndex)
        and df.index.start == 0
        and df.index.step == 1
        and df.index.name is None
    )
    frame = df.reset_index(drop=True) if plain else df.reset_index()
    # two columns under one header would keep only the last: refused, naming who made them collide
    headers: dict[str, list] = {}
    for col in frame.columns:
        headers.setdefault(names.get(col, _human(col)), []).append(col)
    for header, cols in headers.items():
        if len(cols) > 1:
            who = f"names = {_short(names)}:" if any(c in names for c in cols) else "df:"
            raise InvalidInputError(
                f"{who} columns {cols} show under one header {header!r}: every column's header "
                "must be distinct (one would hide the others); give each its own name"
            )
    out = {}
    for col in frame.columns:
        values = frame[col].tolist()
        numeric = pd.api.types.is_float_dtype(frame[col]) or any(
            isinstance(v, float) for v in values
        )
        if isinstance(decimals, dict) and col in decimals:
            d = decimals[col]
        elif isinstance(decimals, int):
            d = decimals
        else:
            d = (
                _column_decimals(
                    [
                        v
                        for v in values
                        if isinstance(v, (int, float, np.number)) and not isinstance(v, bool)
                    ]
                )
                if numeric
                else 0
            )
        out[names.get(col, _human(col))] = [_text(v, d) for v in values]
    text = pd.DataFrame(out)
    frames = [text]
    if _width_px(text) > width_px and len(text.columns) > 2:
        if len(text) <= _TRANSPOSE_ROWS:
            first = text.columns[0]
            flipped = text.set_index(first).T.reset_index()
            flipped.columns = [""] + [str(c) for c in flipped.columns[1:]]
            if _width_px(flipped) <= width_px:
                frames = [flipped]
        if frames[0] is text:
            group: list[str] = []
            frames, key = [], text.columns[0]
            for col in text.columns[1:]:
                if group and _width_px(text[[key] + group + [col]]) > width_px:
                    frames.append(text[[key] + group])
                    group = []
                group.append(col)
            frames.append(text[[key] + group])
    return Table(tuple(frames), caption)


def show_table(df: pd.DataFrame, **kw: Any) -> None:
    """Display :func:`table` (``df`` formatted for a reader) in a notebook.

    Parameters
    ----------
    df : pandas.DataFrame
        The tidy table.
    **kw
        ``names``, ``decimals``, ``caption``, ``width_px`` as :func:`table` takes them.

    Raises
    ------
    InvalidInputError
        As :func:`table`.
    """
    from IPython.display import display

    display(table(df, **kw))


def reader_value(value: object | None) -> str:
    """One measured or paper value as a reader's page shows it: yes/no for a truth value, whole
    numbers with thousands separated, four significant digits, a power of ten for a tiny or huge
    number (never ``6.7e-16``), a long list of numbers as its range.

    Parameters
    ----------
    value : object or None
        A bool, number, list of numbers, or anything else (shown as
        :func:`fairlib.repro.ledger.display_value` does); None (no value: a ledger's JSON ``null``,
        alone or inside a list or mapping) and NaN show as :data:`MISSING`.

    Returns
    -------
    str
        The value as the page shows it.

    Examples
    --------
    >>> [
    ...     reader_value(v)
    ...     for v in (
    ...         True,
    ...         12345,
    ...         1.0,
    ...         0.750075,
    ...         6.66134e-16,
    ...         7.19882e6,
    ...         [1, 3],
    ...         [0.5, 0.25, 1, 2, 3],
    ...     )
    ... ]
    ['yes', '12,345', '1', '0.7501', '6.66 × 10⁻¹⁶', '7.2 × 10⁶', '1, 3',
    '0.25 to 3 (5 values)']
    """
    from .prose import scientific

    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}"
    if isinstance(value, (float, np.floating)):
        x = float(value)
        if math.isnan(x):
            return MISSING
        if math.isinf(x):
            return "∞" if x > 0 else "−∞"
        if x == 0:
            return "0"
        if abs(x) < 1e-3 or abs(x) >= 1e6:
            return scientific(x, 3 if abs(x) < 1 else 2)
        if x.is_integer():
            return f"{int(x):,}"
        return f"{x:.4g}"
    if isinstance(value, (list, tuple)):
        numbers = [v for v in value if isinstance(v, (int, float)) and not isinstance(v, bool)]
        if len(value) > 4 and len(numbers) == len(value):
            return (
                f"{reader_value(min(numbers))} to {reader_value(max(numbers))} ({len(value)} "
                "values)"
            )
        return ", ".join(reader_value(v) for v in value)
    if isinstance(value, dict):
        return "; ".join(f"{k}: {reader_value(v)}" for k, v in value.items())
    if value is None:
        return MISSING
    return {"True": "yes", "False": "no"}.get(str(value), str(value))
