"""Where trace data came from: folders written by the synthetic generators carry a marker file."""

from __future__ import annotations

from pathlib import Path

from .. import paths

SYNTHETIC_MARKER = "SYNTHETIC.md"


def is_synthetic(folder) -> bool:
    """Whether ``folder`` or one of its three nearest parents carries :data:`SYNTHETIC_MARKER`."""
    folder = Path(folder)
    return any((p / SYNTHETIC_MARKER).is_file() for p in [folder, *folder.parents][:4])


def source_of(folder) -> str:
    """``"synthetic"`` or ``"real"``."""
    return "synthetic" if is_synthetic(folder) else "real"


def trace_folder(folder: str, directory=None, name: str = "directory") -> Path:
    """``directory`` when given; else the first ``<dir>/<folder>`` over :func:`fairlib.paths.trace_dirs`
    (``$FAIRLIB_TRACE_DIR``, ``data/traces``, ``../shared/data/traces``); else ``data/traces/<folder>``, whose
    absence the readers report with :func:`missing_hint`. ``name``: the argument's name in the error for a
    ``directory`` that is not a path."""
    if directory is not None:
        import os

        if not isinstance(directory, (str, os.PathLike)):
            from .._validate import InvalidInputError, _short

            raise InvalidInputError(
                f"{name} = {_short(directory)}: expected a folder path (str or Path), got "
                f"{type(directory).__name__}"
            )
        return Path(directory)
    return paths.find_traces(folder) or paths.trace_dir() / folder


def missing_hint(folder: str) -> str:
    """The end of a reader's FileNotFoundError: where it looked and how to get the data."""
    return paths.missing_traces_message(folder)


class TraceFormatError(ValueError):
    """A trace file does not have the documented format; the message names the file (and line)."""


def read_bytes(path: Path, what: str, hint: str) -> bytes:
    """The whole (gunzipped) file: FileNotFoundError with ``hint`` when it is not there, a TraceFormatError when
    it is a directory, truncated, corrupt or empty; a PermissionError names the file."""
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
    """Every line has exactly ``n_fields`` comma-separated fields (a blank line has one empty field): else a
    TraceFormatError naming file and line. Counted on the raw bytes (no quoting in these traces), in blocks of
    about ``block`` bytes cut at line ends, so the memory it needs does not grow with the file."""
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


#: the int64 range, in which the integer columns (ids, times, counts) are read
_INT64 = (-(2**63), 2**63 - 1)


def _beyond_int64(text):
    """Whether each integer text lies outside int64 (a 20-digit id): exact, on Python ints, for the few values
    whose float is near the bounds."""
    import numpy as np

    values = text.to_numpy()
    near = np.abs(_to_float(text)) >= 2.0**62
    out = np.zeros(len(values), dtype=bool)
    for k in np.flatnonzero(near):
        try:
            number = int(values[k])
        except ValueError:  # "1e19": a float's text, refused as not an integer elsewhere
            number = int(float(values[k]))
        out[k] = not _INT64[0] <= number <= _INT64[1]
    return out


def _to_float(text):
    """Texts as float64 (NaN where empty or not a number)."""
    import numpy as np
    import pandas as pd

    return pd.to_numeric(text.where(text != ""), errors="coerce").to_numpy(dtype=np.float64)


def locate_bad_number(
    data: bytes,
    path: Path,
    names,
    numeric,
    required=(),
    skiprows: int = 0,
    *,
    first_line: int | None = None,
    integer=(),
) -> None:
    """After a parse failure: raise a TraceFormatError naming the first line and column whose non-empty value
    is not a number (``numeric``: the columns that must be numbers), whose value is missing where one is
    ``required`` (the integer columns), or is not an integer within int64 there or, where present, in ``integer``
    (the integer columns that may be empty): ``1.5``, ``inf``, a 20-digit id. ``first_line``: the 1-based line
    number of the first line of ``data`` in the file (default ``1 + skiprows``; a header cut off before ``data``
    counts)."""
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
    for col in [*required, *(c for c in integer if c not in required)]:
        values = text[col].str.strip()
        parsed = _to_float(values)
        present = values.to_numpy() != ""
        bad = present & (~np.isfinite(parsed) | (parsed != np.round(parsed)))
        if bad.any():
            k = int(bad.argmax())
            raise TraceFormatError(
                f"{path}, line {k + first}, column {col!r}: {values.iloc[k]!r} is not an integer"
            )
        beyond = present & _beyond_int64(values.where(present, "0"))
        if beyond.any():
            k = int(beyond.argmax())
            raise TraceFormatError(
                f"{path}, line {k + first}, column {col!r}: {values.iloc[k]!r} is beyond the int64 "
                f"range ({_INT64[0]} to {_INT64[1]})"
            )


def check_values(df, path: Path, nonnegative=(), first_line: int = 1) -> None:
    """Columns in ``nonnegative`` must be finite and >= 0 where present (NaN = an empty field, allowed):
    else a TraceFormatError naming file, line, column and value."""
    import numpy as np

    for col in nonnegative:
        v = df[col].to_numpy(dtype=np.float64, na_value=np.nan)
        bad = (v < 0) | np.isinf(v)
        if bad.any():
            k = int(np.argmax(bad))
            raise TraceFormatError(
                f"{path}, line {k + first_line}, column {col!r}: {v[k]} must be finite and >= 0"
            )


def check_ranges(df, path: Path, ranges, first_line: int = 1) -> None:
    """Columns of ``ranges`` (column -> (lowest, highest), the documented codes) hold values within them where
    present (NaN = an empty field, allowed): else a TraceFormatError naming file, line, column, value and range."""
    import numpy as np

    for col, (low, high) in ranges.items():
        if col not in df:
            continue
        v = df[col].to_numpy(dtype=np.float64, na_value=np.nan)
        bad = (v < low) | (v > high)
        if bad.any():
            k = int(np.argmax(bad))
            raise TraceFormatError(
                f"{path}, line {k + first_line}, column {col!r}: {v[k]:g} is outside the documented "
                f"range {low} to {high}"
            )


def check_order(df, path: Path, start: str, end: str, first_line: int = 1, slack: int = 0) -> None:
    """Rows end no earlier than they start, less ``slack`` seconds; an end of 0 (not ended within the trace's
    window) is not checked: else a TraceFormatError naming file, line and both columns."""
    import numpy as np

    s_, e_ = df[start].to_numpy(np.float64), df[end].to_numpy(np.float64)
    bad = (e_ != 0) & (e_ < s_ - slack)
    if bad.any():
        k = int(np.argmax(bad))
        raise TraceFormatError(
            f"{path}, line {k + first_line}, column {end!r}: {e_[k]:g} is before {start} "
            f"{s_[k]:g}" + (f" (by more than {slack} s)" if slack else "")
        )
