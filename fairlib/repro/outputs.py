"""The files a notebook saves: its figures (PNG and PDF) and its tables (tidy CSV).

Full-mode outputs land in the tracked ``figures/<key>/`` and ``data/results/<key>/``, quick-mode
outputs under ``build/quick/`` (see :mod:`fairlib.paths`): byte-identical for the same seed on the
same machine; on another CPU equal within the tolerances of :mod:`fairlib.repro.verify`
(``run_all.py --verify``). The claims ledger is :mod:`fairlib.repro.ledger`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd

from .. import paths
from .._validate import check_column_labels, check_no_complex, InvalidInputError, _short, as_count

__all__ = ["save_figure", "save_table", "reported", "FLOAT_FORMAT", "MARKS_FILE"]

#: float format of every CSV written by :func:`save_table` (fixed, so output is byte-stable on one
#: machine)
FLOAT_FORMAT = "%.10g"

_PNG_METADATA = {"Software": "fairlib"}
_PDF_METADATA = {"Creator": "fairlib", "Producer": "fairlib", "CreationDate": None, "ModDate": None}


def save_figure(fig, key: str, name: str, *, mode: str = "full", dpi: int = 150) -> list[Path]:
    """Save ``fig`` as ``<name>.png`` and ``<name>.pdf`` under :func:`fairlib.paths.figures_dir`.

    Metadata that would change between runs (creation dates, library versions) is fixed, so the
    same figure gives the same bytes. A legend over data is moved first
    (:func:`fairlib.repro.plotting.place_legends`), and what the figure draws is recorded beside it
    (:data:`MARKS_FILE`).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure, at most :data:`fairlib.repro.plotting.MAX_SAVED_WIDTH` inches wide as saved.
    key : str
        The notebook's key.
    name : str
        The file name without extension (``"fig2c_efficiency"``): letters, digits, ``_`` and ``-``,
        at most :data:`fairlib.paths.MAX_FILE_NAME_LENGTH` characters.
    mode : str
        ``"full"`` (the tracked ``figures/<key>/``) or ``"quick"`` (under ``build/quick/``).
    dpi : int
        The PNG's resolution, at most 2400.

    Returns
    -------
    list of Path
        The PNG and the PDF written.
    """
    # matplotlib only where a figure is saved
    from .plotting import MAX_SAVED_WIDTH, figure_marks, place_legends

    paths._check_file_name(name, "name")
    dpi = as_count(
        dpi, "dpi", maximum=2400
    )  # beyond print resolution: a typo, and a figure of gigapixels
    if not hasattr(fig, "savefig"):
        raise InvalidInputError(
            f"fig = {_short(fig)}: expected a matplotlib Figure, got {type(fig).__name__}"
        )
    place_legends(fig)
    # the width the page shows: bbox_inches="tight" grows a figure by the legends placed outside its
    # axes
    shown = fig.get_tightbbox(fig.canvas.get_renderer()).width
    if shown > MAX_SAVED_WIDTH:
        raise InvalidInputError(
            f"fig: {name!r} is {shown:.1f} inches wide as saved (its legends or labels included); "
            f"the book shows at most {MAX_SAVED_WIDTH} at their own size: draw it narrower "
            f"(fairlib.repro.plotting.new_figure stacks panels) or put its legend below"
        )
    out = paths.figures_dir(key, mode)
    out.mkdir(parents=True, exist_ok=True)
    _record_marks(out, name, figure_marks(fig))
    written = []
    for ext, meta in (("png", _PNG_METADATA), ("pdf", _PDF_METADATA)):
        path = out / f"{name}.{ext}"
        tmp = (
            out / f".{name}.{os.getpid()}.tmp.{ext}"
        )  # written whole, then renamed: never half a file
        try:
            fig.savefig(tmp, dpi=dpi, metadata=meta, bbox_inches="tight", format=ext)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        os.replace(tmp, path)
        written.append(path)
    return written


#: the file beside a notebook's figures that records what each one draws
#: (:func:`fairlib.repro.plotting.figure_marks`), so a test can hold every caption against its
#: figure (:func:`fairlib.repro.plotting.caption_problems`) without a new
#: run
MARKS_FILE = "marks.json"


def _record_marks(folder: Path, name: str, marks: dict) -> None:
    path = folder / MARKS_FILE
    recorded = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    recorded[name] = marks
    tmp = folder / f".{MARKS_FILE}.{os.getpid()}.tmp"
    tmp.write_text(
        json.dumps(dict(sorted(recorded.items())), indent=1, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )
    os.replace(tmp, path)


def _round_significant(values: np.ndarray, digits: int) -> np.ndarray:
    """``values`` rounded to ``digits`` significant digits (through the decimal text, so the result
    is the float the CSV shows); nan and ±inf stay."""
    return np.array([float(f"{v:.{digits}g}") for v in values.tolist()], dtype=float)


def reported(df: pd.DataFrame, key: str, name: str) -> pd.DataFrame:
    """``df`` as :func:`save_table` writes it: every float column at the significant digits its
    declared tolerance guarantees (:attr:`fairlib.repro.verify.Tolerance.digits`: fewer than the
    format's 10 for an iterative solver's output, so a table reports no digit the solver's
    certificate does not bound), except the declaration's ``inputs`` and columns of whole numbers
    (time stamps, counts), which keep the format's digits.

    Parameters
    ----------
    df : pandas.DataFrame
        The table.
    key : str
        The notebook's key (where its tolerances are declared).
    name : str
        The table's file name without extension.

    Returns
    -------
    pandas.DataFrame
        ``df`` itself when no column is rounded, else a rounded copy.

    Raises
    ------
    InvalidInputError
        When ``df`` is not a DataFrame, has no columns, a column label that is blank or given
        twice, or a complex number; or when ``key`` or ``name`` is invalid.

    Examples
    --------
    >>> reported(
    ...     pd.DataFrame({"nash_residual": [1.234567891e-7], "users": [5.0]}),
    ...     "khamseashari2018",
    ...     "equilibrium_rates",
    ... ).to_dict("list")
    {'nash_residual': [1.23457e-07], 'users': [5.0]}
    """
    from .verify import declared_tolerance

    if not isinstance(df, pd.DataFrame):
        raise InvalidInputError(
            f"df = {_short(df)}: expected a pandas DataFrame, got {type(df).__name__}"
        )
    if df.shape[1] == 0:
        raise InvalidInputError(f"df: a table without columns ({len(df)} rows, nothing to show)")
    check_column_labels(df, "df", text=False)  # a CSV or a page with two columns of one name
    check_no_complex(df, "df")  # read back as text, never as a number
    paths.check_key(key)
    paths._check_file_name(name, "name")
    out = None
    for column in df.columns:
        declared = declared_tolerance(key, name, str(column))
        if (
            declared is None
            or declared.digits >= 10
            or str(column) in declared.inputs
            or not pd.api.types.is_float_dtype(df[column].dtype)
        ):
            continue
        values = df[column].to_numpy(dtype=float)
        finite = values[np.isfinite(values)]
        if np.array_equal(
            finite, np.round(finite)
        ):  # time stamps and counts: no solver digit to drop
            continue
        out = df.copy() if out is None else out
        out[column] = _round_significant(df[column].to_numpy(dtype=float), declared.digits)
    return df if out is None else out


def save_table(df: pd.DataFrame, key: str, name: str, *, mode: str = "full") -> Path:
    """Write ``df`` as tidy CSV ``<name>.csv`` with fixed float formatting (:data:`FLOAT_FORMAT`),
    each float column at the precision its solver's certificate guarantees (:func:`reported`).

    The file is written whole, then renamed, so no reader ever sees half of it.

    Parameters
    ----------
    df : pandas.DataFrame
        The table, tidy: one row per observation.
    key : str
        The notebook's key.
    name : str
        The file name without extension: letters, digits, ``_`` and ``-``, at most
        :data:`fairlib.paths.MAX_FILE_NAME_LENGTH` characters.
    mode : str
        ``"full"`` (the tracked ``data/results/<key>/``) or ``"quick"`` (under ``build/quick/``).

    Returns
    -------
    Path
        The CSV written.

    Raises
    ------
    InvalidInputError
        When ``df`` is not a DataFrame, has no columns, a column label that is blank or given
        twice, or a complex number (no reader reads one back as a number); or when ``key``,
        ``name`` or ``mode`` is invalid.
    """
    paths._check_file_name(name, "name")
    df = reported(df, key, name)  # refuses a df that is not a DataFrame, by name
    out = paths.results_dir(key, mode)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.csv"
    tmp = out / f".{name}.csv.{os.getpid()}.tmp"  # written whole, then renamed: never half a file
    try:
        df.to_csv(tmp, index=False, float_format=FLOAT_FORMAT, lineterminator="\n")
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    os.replace(tmp, path)
    return path
