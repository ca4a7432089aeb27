"""Where trace data came from: folders written by the synthetic generators carry a marker file."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from .. import paths

if TYPE_CHECKING:
    import pandas as pd

SYNTHETIC_MARKER = "SYNTHETIC.md"


def is_synthetic(folder: str | os.PathLike[str]) -> bool:
    """Whether ``folder`` or one of its three nearest parents carries :data:`SYNTHETIC_MARKER`.

    Parameters
    ----------
    folder : str or os.PathLike
        A trace folder or file.

    Returns
    -------
    bool
        True when a synthetic generator wrote it.
    """
    folder = Path(folder)
    return any((p / SYNTHETIC_MARKER).is_file() for p in [folder, *folder.parents][:4])


def source_of(folder: str | os.PathLike[str]) -> str:
    """The provenance label of the data under ``folder``.

    Parameters
    ----------
    folder : str or os.PathLike
        A trace folder or file.

    Returns
    -------
    str
        ``"synthetic"`` when :func:`is_synthetic`, else ``"real"``.
    """
    return "synthetic" if is_synthetic(folder) else "real"


def trace_folder(
    folder: str, directory: os.PathLike[str] | str | None = None, name: str = "directory"
) -> Path:
    """The folder a reader reads: ``directory`` when given, else where the trace excerpts are found.

    Parameters
    ----------
    folder : str
        The trace folder name (a value of :data:`fairlib.paths.TRACE_FOLDERS`).
    directory : str or os.PathLike, optional
        An explicit folder, used as it is.
    name : str, default "directory"
        The argument's name in the error for a ``directory`` that is not a path.

    Returns
    -------
    pathlib.Path
        ``directory``; else the first ``<dir>/<folder>`` over :func:`fairlib.paths.trace_dirs` (``$FAIRLIB_TRACE_DIR``,
        ``data/traces``, ``../shared/data/traces``) that holds data; else ``data/traces/<folder>``, whose absence the
        readers report with :func:`missing_hint`.

    Raises
    ------
    InvalidInputError
        When ``directory`` is neither a string nor a path.
    """
    if directory is not None:
        if not isinstance(directory, (str, os.PathLike)):
            from .._validate import InvalidInputError, _short

            raise InvalidInputError(
                f"{name} = {_short(directory)}: expected a folder path (str or Path), got "
                f"{type(directory).__name__}"
            )
        return Path(directory)
    return paths.find_traces(folder) or paths.trace_dir() / folder


def missing_hint(folder: str) -> str:
    """The end of a reader's FileNotFoundError: where it looked and how to get the data.

    Parameters
    ----------
    folder : str
        The trace folder name.

    Returns
    -------
    str
        :func:`fairlib.paths.missing_traces_message` of ``folder``.
    """
    return paths.missing_traces_message(folder)


class TraceFormatError(ValueError):
    """A trace file does not have the documented format; the message names the file (and line)."""


def read_bytes(path: Path, what: str, hint: str) -> bytes:
    """The whole (gunzipped) file, refused with an error naming it when it is absent, unreadable or empty.

    Parameters
    ----------
    path : pathlib.Path
        The file; a ``.gz`` suffix is decompressed.
    what : str
        What the file is, for the messages (``"machine_events part 0"``).
    hint : str
        Where the reader looked and how to get the data (:func:`missing_hint`), for a missing file.

    Returns
    -------
    bytes
        The file's contents.

    Raises
    ------
    FileNotFoundError
        When the file is not there (the message ends with ``hint``).
    TraceFormatError
        When ``path`` is a directory, or the file is truncated, corrupt or empty.
    PermissionError
        When it cannot be read, naming the file.
    """
    import gzip
    import zlib

    path = Path(path)
    if path.is_dir():
        raise TraceFormatError(f"{path}: {what} is a directory, not a file")
    if not path.is_file():
        raise FileNotFoundError(f"{path}: {what} not found ({hint})")
    try:
        with (gzip.open if path.suffix == ".gz" else open)(path, "rb") as f:
            data = f.read()
    except PermissionError as exc:
        raise PermissionError(f"{path}: {what} cannot be read ({exc.strerror})") from None
    except (EOFError, zlib.error, gzip.BadGzipFile, OSError) as exc:
        kind = "gzip file" if path.suffix == ".gz" else "file"
        raise TraceFormatError(f"{path}: truncated or corrupt {kind} ({exc})") from None
    if not data.strip():
        raise TraceFormatError(f"{path}: {what} is empty (no rows)")
    return data


def check_field_counts(
    data: bytes, path: Path, n_fields: int, first_line: int = 1, block: int = 1 << 23
) -> None:
    """Check that every line has exactly ``n_fields`` comma-separated fields (a blank line has one empty field).

    Counted on the raw bytes (no quoting in these traces), in blocks of about ``block`` bytes cut at line ends, so the
    memory it needs does not grow with the file.

    Parameters
    ----------
    data : bytes
        The file's contents.
    path : pathlib.Path
        The file, for the message.
    n_fields : int
        Fields each line must have.
    first_line : int, default 1
        The 1-based line number of the first line of ``data`` in the file.
    block : int, default 8 MiB
        Bytes counted at a time.

    Raises
    ------
    TraceFormatError
        At the first line with another count, naming file, line and the line's text.
    """
    import numpy as np

    raw = np.frombuffer(data, dtype=np.uint8)
    pos, line_no = 0, first_line
    while pos < raw.size:
        stop = min(pos + block, raw.size)
        if stop < raw.size:  # extend to the end of the line
            nxt = data.find(b"\n", stop)
            stop = raw.size if nxt < 0 else nxt + 1
        chunk = raw[pos:stop]
        ends = np.flatnonzero(chunk == 10)
        if chunk[-1] != 10:
            ends = np.r_[ends, chunk.size]
        starts = np.r_[0, ends[:-1] + 1]
        commas = np.flatnonzero(chunk == 44)
        fields = np.searchsorted(commas, ends) - np.searchsorted(commas, starts) + 1
        bad = np.flatnonzero(fields != n_fields)
        if bad.size:
            k = int(bad[0])
            line = bytes(chunk[starts[k] : ends[k]]).decode("utf-8", "replace").rstrip("\r")
            shown = line if len(line) <= 120 else line[:117] + "..."
            raise TraceFormatError(
                f"{path}, line {line_no + k}: {int(fields[k])} field(s), expected {n_fields}"
                + (" (a blank line)" if not line.strip() else f": {shown!r}")
            )
        line_no += ends.size
        pos = stop


def locate_bad_number(
    data: bytes,
    path: Path,
    names: list[str],
    numeric: Iterable[str],
    required: Iterable[str] = (),
    skiprows: int = 0,
    *,
    first_line: int | None = None,
) -> None:
    """After a parse failure: raise a TraceFormatError naming the first bad line and column.

    Bad is a non-empty value that is not a number in a ``numeric`` column, a missing value in a ``required`` column (the
    integer columns), or a value there that is not an integer (``1.5``, ``inf``).

    Parameters
    ----------
    data : bytes
        The file's contents.
    path : pathlib.Path
        The file, for the message.
    names : list of str
        The column names, in file order.
    numeric : iterable of str
        The columns whose non-empty values must be numbers.
    required : iterable of str, default ()
        The integer columns: a value required, and whole.
    skiprows : int, default 0
        Lines of ``data`` to skip first (a header).
    first_line : int, optional
        The 1-based line number of the first line of ``data`` in the file (default ``1 + skiprows``; a header cut off
        before ``data`` counts).

    Raises
    ------
    TraceFormatError
        Naming file, line, column and value, when a bad value is found (it returns only when none is).
    """
    import io

    import numpy as np
    import pandas as pd

    first = 1 + skiprows if first_line is None else first_line + skiprows
    text = pd.read_csv(
        io.BytesIO(data),
        header=None,
        names=names,
        dtype=str,
        skiprows=skiprows,
        keep_default_na=False,
    )
    for col in required:
        empty = text[col].str.strip() == ""
        if empty.any():
            k = int(empty.to_numpy().argmax())
            raise TraceFormatError(
                f"{path}, line {k + first}, column {col!r}: empty, a value is required"
            )
    for col in numeric:
        values = text[col].str.strip()
        parsed = pd.to_numeric(values.where(values != ""), errors="coerce")
        bad = parsed.isna() & (values != "")
        if bad.any():
            k = int(bad.to_numpy().argmax())
            raise TraceFormatError(
                f"{path}, line {k + first}, column {col!r}: {values.iloc[k]!r} is not a number"
            )
    for col in required:
        parsed = pd.to_numeric(text[col].str.strip(), errors="coerce").to_numpy(dtype=np.float64)
        bad = ~np.isfinite(parsed) | (parsed != np.round(parsed))
        if bad.any():
            k = int(bad.argmax())
            raise TraceFormatError(
                f"{path}, line {k + first}, column {col!r}: {text[col].iloc[k].strip()!r} is "
                "not an integer"
            )


def check_values(
    df: pd.DataFrame, path: Path, nonnegative: Iterable[str] = (), first_line: int = 1
) -> None:
    """Check that the columns in ``nonnegative`` are finite and >= 0 where present (NaN, an empty field, is allowed).

    Parameters
    ----------
    df : pandas.DataFrame
        The parsed rows, in file order.
    path : pathlib.Path
        The file, for the message.
    nonnegative : iterable of str, default ()
        The columns to check.
    first_line : int, default 1
        The 1-based line number of ``df``'s first row in the file.

    Raises
    ------
    TraceFormatError
        Naming file, line, column and value at the first bad value.
    """
    import numpy as np

    for col in nonnegative:
        v = df[col].to_numpy(dtype=np.float64, na_value=np.nan)
        bad = (v < 0) | np.isinf(v)
        if bad.any():
            k = int(np.argmax(bad))
            raise TraceFormatError(
                f"{path}, line {k + first_line}, column {col!r}: {v[k]} must be finite and >= 0"
            )
