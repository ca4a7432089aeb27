"""Where trace data came from: folders written by the synthetic generators carry a marker file."""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import _validate, paths

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
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
    from .._validate import as_path

    where: Path = as_path(folder, "folder", kind="directory")
    return any((p / SYNTHETIC_MARKER).is_file() for p in [where, *where.parents][:4])


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
        ``directory``; else the first ``<dir>/<folder>`` over :func:`fairlib.paths.trace_dirs`
        (``$FAIRLIB_TRACE_DIR``, ``data/traces``, ``../shared/data/traces``) that holds data; else
        ``data/traces/<folder>``, whose absence the readers report with :func:`missing_hint`.

    Raises
    ------
    InvalidInputError
        When ``directory`` is neither a string nor a path, is blank, starts with ``~``, is a
        ``PurePath`` of another system's flavour (``PureWindowsPath`` on POSIX), names an entry
        other than a directory (a file, a device, a named pipe, a socket), or cannot be looked up
        (a symlink loop, a part of it that is a file).
    """
    if directory is not None:
        import stat

        text = _validate.path_text(directory, name, "folder")
        mode = _validate._path_mode(text, name)
        if mode is not None and not stat.S_ISDIR(mode):
            # a file where the folder is meant: refused here, before a reader looks inside it for
            # files that cannot be there (a missing folder is the readers' to report, with where
            # the data come from)
            raise _validate.InvalidInputError(
                f"{name} = {text!r}: {_validate._entry_kind(mode)}, not a folder (a trace "
                "folder is meant)"
            )
        return Path(text)
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


def check_trace_file(path: Path, what: str, hint: str, name: str | None = None) -> None:
    """Refuse anything but a regular file at ``path``, saying what is there: nothing (the message
    ends with ``hint``), a directory, or another kind of entry (a device such as ``/dev/null``, a
    named pipe, whose read would wait for a writer, or a socket).

    Parameters
    ----------
    path : pathlib.Path
        The file.
    what : str
        What the file is, for the messages (``"Bitbrains VM file"``).
    hint : str
        Where the reader looked and how to get the data (:func:`missing_hint`), for a missing file.
    name : str or None, default None
        The argument that gave ``path``, named first in the messages (None: a path the reader made
        itself, named by its text).

    Raises
    ------
    FileNotFoundError
        When nothing is at ``path``.
    TraceFormatError
        When ``path`` is a directory or not a regular file.
    InvalidInputError
        When ``path`` cannot be looked up (a symlink loop, a part of it that is a file), naming it.
    """
    import stat

    where = f"{name} = {str(path)!r}" if name else str(path)
    mode = _validate._path_mode(path, name or "path")
    if mode is None:
        raise FileNotFoundError(f"{where}: {what} not found ({hint})")
    if stat.S_ISDIR(mode):
        raise TraceFormatError(f"{where}: {what} is a directory, not a file")
    if not stat.S_ISREG(mode):
        kind = (
            "a character device"
            if stat.S_ISCHR(mode)
            else "a block device"
            if stat.S_ISBLK(mode)
            else "a named pipe (FIFO)"
            if stat.S_ISFIFO(mode)
            else "a socket"
            if stat.S_ISSOCK(mode)
            else "not a regular file"
        )
        raise TraceFormatError(f"{where}: {what} is {kind}, not a regular file")


def read_bytes(path: Path, what: str, hint: str) -> bytes:
    """The whole (gunzipped) file, refused with an error naming it when it is absent, unreadable or
    empty.

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
        When ``path`` is a directory or another entry than a regular file (a device, a named pipe),
        or the file is truncated, corrupt or empty.
    PermissionError
        When it cannot be read, naming the file.
    """
    import gzip
    import zlib

    path = Path(path)
    check_trace_file(path, what, hint)
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
    """Check that every line has exactly ``n_fields`` comma-separated fields (a blank line has one
    empty field).

    Counted on the raw bytes (no quoting in these traces), in blocks of about ``block`` bytes cut at
    line ends, so the memory it needs does not grow with the file.

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
    _check_text(data, raw, path, first_line)
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


def _check_text(data: bytes, raw: npt.NDArray[np.uint8], path: Path, first_line: int) -> None:
    """The traces are UTF-8 text without NUL bytes: a byte that is neither (a file saved as Latin-1,
    a binary file) is refused naming the line, rather than read into a text field or failing in the
    decoder."""
    import numpy as np

    nul = np.flatnonzero(raw == 0) if raw.size else raw
    try:
        data.decode("utf-8")
        where = int(nul[0]) if nul.size else -1
        what = "a NUL byte"
    except UnicodeDecodeError as exc:
        where = exc.start if not nul.size else min(exc.start, int(nul[0]))
        what = "a NUL byte" if nul.size and where == int(nul[0]) else f"byte {data[where]:#04x}"
    if where >= 0:
        line = first_line + data.count(b"\n", 0, where)
        raise TraceFormatError(f"{path}, line {line}: {what} (the trace is UTF-8 text)")


#: an integer field's text (an id, time or count, in every format): ASCII digits, with a minus for a
#: negative value (which the range checks then refuse where the format forbids it); a float's
#: notation (``1e3``, ``5.0``), a plus sign or a blank, which the parsers would read as an integer,
#: is not what the formats write. The library's one rule for integers written as text.
INTEGER_TEXT = _validate.INTEGER_TEXT

#: the only text every reader reads as a missing value: an empty field. pandas would also read its
#: default NA strings (``NA``, ``NaN``, ``null``, ``N/A``, ``None``, ...) as missing: in a text
#: column they are text (a name may read ``NA``), and in a number column they are no number
MISSING_VALUES = ("",)


def read_csv_text(
    data: bytes, names: list[str], dtypes: Mapping[str, str] | type, **options: Any
) -> Any:
    """``pandas.read_csv`` of a headerless trace table, as every CSV reader parses one: ``names``
    in file order, ``dtypes`` per column, only :data:`MISSING_VALUES` read as missing (or, with
    ``dtypes=str``, every field as its text, an empty one ``""``), a line with too many fields an
    error.

    Parameters
    ----------
    data : bytes
        The table's lines (a header already cut off).
    names : list of str
        The column names, in file order.
    dtypes : mapping of str to str, or str
        Each column's dtype, or ``str`` to read every field as its text.
    **options
        Further ``pandas.read_csv`` options (``usecols``, ``chunksize``, ``skiprows``,
        ``skipinitialspace``).

    Returns
    -------
    pandas.DataFrame or pandas.io.parsers.TextFileReader
        The table (an iterator of chunks with ``chunksize``).
    """
    import io

    import pandas as pd

    # read as text, every field is its text (an empty one ""); read as values, only an empty field
    # is missing
    missing = {"na_filter": False} if dtypes is str else {"na_values": list(MISSING_VALUES)}
    return pd.read_csv(
        io.BytesIO(data),
        header=None,
        names=names,
        dtype=dtypes,
        on_bad_lines="error",
        keep_default_na=False,
        **missing,
        **options,
    )


def not_integer_text(values: pd.Series) -> np.ndarray:
    """Which texts are present (not :data:`MISSING_VALUES`) but no :data:`INTEGER_TEXT`.

    Parameters
    ----------
    values : pandas.Series of str
        The fields' texts, as in the file.

    Returns
    -------
    numpy.ndarray
        Bool, one per value.
    """
    present = ~values.isin(MISSING_VALUES)
    return (present & ~values.str.fullmatch(INTEGER_TEXT).fillna(False)).to_numpy(dtype=bool)


def parse_number_texts(values: pd.Series, *, integer: bool) -> tuple[np.ndarray, np.ndarray]:
    """Fields' texts as numbers, by the rules every reader applies: an integer field holds
    :data:`INTEGER_TEXT`; a number field a decimal or scientific number (blanks around it are
    dropped), never one of pandas' NA strings (``NaN``, ``null``, ``NA``), another script's digits,
    ``0x10`` or ``1_0``; an infinity is read as one, for the callers' range checks to refuse.

    Parameters
    ----------
    values : pandas.Series of str
        The fields' texts, as in the file.
    integer : bool
        Whether the fields are integers (ids, times, counts).

    Returns
    -------
    values : numpy.ndarray
        The numbers, float64 (NaN where bad).
    bad : numpy.ndarray
        Bool: the fields that are not such a number (an empty one included).
    """
    import numpy as np
    import pandas as pd

    numbers = pd.to_numeric(values, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    bad = np.isnan(numbers)
    if integer and values.size:
        # only digits and minus signs in the whole column (a look at its bytes, a fraction of the
        # per-field pattern match): then a text that is no integer is no number either ("-",
        # "5-3", ""), already bad
        odd = np.ones(256, dtype=bool)
        odd[list(b"0123456789-\n")] = False
        joined = np.frombuffer("\n".join(values.tolist()).encode("utf-8"), dtype=np.uint8)
        if odd[joined].any():
            bad |= not_integer_text(values)
    return np.where(bad, np.nan, numbers), bad


def inexact_integer_texts(values: pd.Series, numbers: np.ndarray) -> np.ndarray:
    """Which texts are integers written in digits beyond
    :data:`fairlib._validate.EXACT_INTEGER_MAX` in magnitude, which a float64 column would hold
    as another number (``9007199254740993`` read as ``9007199254740992.0``).

    Parameters
    ----------
    values : pandas.Series of str
        The fields' texts, as in the file.
    numbers : numpy.ndarray
        Their float64 reading (:func:`parse_number_texts`): only those at or beyond 2**53 in
        magnitude are read again, as Python ints.

    Returns
    -------
    numpy.ndarray
        Bool, one per value.
    """
    import re

    import numpy as np

    from .._validate import EXACT_INTEGER_MAX, _inexact

    out = np.zeros(len(values), dtype=bool)
    with np.errstate(invalid="ignore"):
        near = np.flatnonzero(np.abs(numbers) >= EXACT_INTEGER_MAX)
    texts = values.to_numpy()
    for k in near.tolist():
        text = str(texts[k]).strip()
        if re.fullmatch(INTEGER_TEXT, text):
            out[k] = _inexact(int(text))
    return out


#: the bytes an integer field may hold without a closer look: digits and a minus (and the carriage
#: return of a CRLF line end, which the parser drops); a misplaced minus fails the integer parse
_PLAIN_INTEGER_BYTES = frozenset(b"0123456789-\r")


def _integer_fields_are_plain(data: bytes, names: list[str], integer: Collection[str]) -> bool:
    """Whether every field of the ``integer`` columns holds only digits and minus signs — then
    none can be a float's notation, and :func:`_check_integer_text` need not read them as text (a
    per-cell pattern match over the Google excerpt's 4.6 million integer fields takes about 8 s;
    this look at the bytes, a fraction of a second). Assumes what
    :func:`check_field_counts` has checked: every line has ``len(names)`` comma-separated fields
    (no quoting)."""
    import numpy as np

    raw = np.frombuffer(data, dtype=np.uint8)
    if raw.size == 0:
        return True
    odd = np.ones(256, dtype=bool)
    odd[list(_PLAIN_INTEGER_BYTES | frozenset(b",\n"))] = False
    ends = np.flatnonzero(raw == 10)
    if raw[-1] != 10:
        ends = np.r_[ends, raw.size]
    starts = np.r_[0, ends[:-1] + 1]
    n_fields = len(names)
    commas = np.flatnonzero(raw == 44)
    if commas.size != ends.size * (n_fields - 1):
        return False  # not the shape assumed: let the text check decide
    # every field's first byte, line by line; whether a field holds an odd byte before the next one
    # (the delimiters count as plain), over the bytes and one newline more (a last field may be
    # empty)
    firsts = np.hstack([starts[:, None], commas.reshape(ends.size, n_fields - 1) + 1]).ravel()
    counts = np.logical_or.reduceat(odd[np.r_[raw, np.uint8(10)]], firsts).reshape(
        ends.size, n_fields
    )
    return not counts[:, [names.index(c) for c in integer]].any()


def _check_integer_text(
    data: bytes, path: Path, names: list[str], integer: Collection[str], first_line: int = 1
) -> None:
    """The integer columns (ids, times, counts) hold integers written as integers: a number in a
    float's notation (``1e3``, ``5.0``), which the CSV parser would turn into an integer, is refused
    naming the file, line, column and value. Empty fields and texts that are not numbers at all are
    left to the callers' other checks."""
    import pandas as pd

    if not integer or _integer_fields_are_plain(data, names, integer):
        return
    text = read_csv_text(data, names, str, usecols=list(integer))
    for col in [c for c in names if c in integer]:
        values = text[col]
        odd = not_integer_text(values)
        if not odd.any():
            continue
        number = pd.to_numeric(values.where(odd, "0").str.strip(), errors="coerce").notna()
        bad = odd & number.to_numpy()
        if bad.any():
            k = int(bad.argmax())
            raise TraceFormatError(
                f"{path}, line {k + first_line}, column {col!r}: {values.iloc[k]!r} is not an "
                "integer (an id, time or count is written in digits, with no plus sign or blank)"
            )


#: the int64 range, in which the integer columns (ids, times, counts) are read
_INT64 = (-(2**63), 2**63 - 1)


def _beyond_int64(text):
    """Whether each integer text lies outside int64 (a 20-digit id): exact, on Python ints, for the
    few values whose float is near the bounds."""
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
    names: list[str],
    numeric: Iterable[str],
    required: Iterable[str] = (),
    skiprows: int = 0,
    *,
    first_line: int | None = None,
    integer: Iterable[str] = (),
) -> None:
    """After a parse failure: raise a TraceFormatError naming the first bad line and column.

    Bad is a non-empty value that is not a number in a ``numeric`` column, a missing value in a
    ``required`` column (the integer columns), or a value there or in an ``integer`` column that is
    not an integer within int64 (``1.5``, ``inf``, a 20-digit id).

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
        The 1-based line number of the first line of ``data`` in the file (default ``1 + skiprows``;
        a header cut off before ``data`` counts).
    integer : iterable of str, default ()
        The integer columns that may be empty: a value, where present, must be whole and within
        int64.

    Raises
    ------
    TraceFormatError
        Naming file, line, column and value, when a bad value is found (it returns only when none
        is).
    """
    import numpy as np
    import pandas as pd

    first = 1 + skiprows if first_line is None else first_line + skiprows
    text = read_csv_text(data, names, str, skiprows=skiprows)
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


def check_values(
    df: pd.DataFrame, path: Path, nonnegative: Iterable[str] = (), first_line: int = 1
) -> None:
    """Check that the columns in ``nonnegative`` are finite and >= 0 where present (NaN, an empty
    field, is allowed).

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


def check_exact_numbers(
    df: pd.DataFrame,
    data: bytes,
    path: Path,
    names: list[str],
    columns: Iterable[str],
    first_line: int = 1,
    first_row: int = 0,
    **options: Any,
) -> None:
    """Check that no field of the float ``columns`` is an integer written in digits that float64
    holds as another number (``9007199254740993`` read as ``9007199254740992.0``): the same rule
    the library applies to every number it is given (:data:`fairlib._validate.EXACT_INTEGER_MAX`).
    The text is read again only for the columns holding a value that large, so an ordinary table
    costs one comparison per field.

    Parameters
    ----------
    df : pandas.DataFrame
        The parsed rows (a chunk of the table or all of it).
    data : bytes
        The table's lines, as parsed (a header already cut off).
    path : pathlib.Path
        The file, for the message.
    names : list of str
        The column names, in file order.
    columns : iterable of str
        The float columns to check.
    first_line : int, default 1
        The 1-based line number of ``df``'s first row in the file.
    first_row : int, default 0
        The 0-based position of ``df``'s first row among the rows of ``data``.
    **options
        The ``pandas.read_csv`` options the rows were parsed with (``skipinitialspace``).

    Raises
    ------
    TraceFormatError
        Naming file, line, column and the field's text at the first such field.
    """
    import numpy as np
    import pandas as pd

    from .._validate import BEYOND_EXACT, EXACT_INTEGER_MAX

    for col in columns:
        numbers = df[col].to_numpy(dtype=np.float64, na_value=np.nan)
        with np.errstate(invalid="ignore"):
            if not (np.abs(numbers) >= EXACT_INTEGER_MAX).any():
                continue
        text = read_csv_text(data, names, str, usecols=[col], **options)[col]
        text = pd.Series(text.to_numpy()[first_row : first_row + len(df)], dtype=str)
        inexact = inexact_integer_texts(text, numbers)
        if inexact.any():
            k = int(np.argmax(inexact))
            raise TraceFormatError(
                f"{path}, line {k + first_line}, column {col!r}: {text.iloc[k].strip()!r} is "
                f"{BEYOND_EXACT}"
            )


def check_ranges(
    df: pd.DataFrame, path: Path, ranges: Mapping[str, tuple[int, int]], first_line: int = 1
) -> None:
    """Columns of ``ranges`` hold values within them where present (NaN, an empty field, is
    allowed).

    Parameters
    ----------
    df : pandas.DataFrame
        The table as read.
    path : pathlib.Path
        Its file, for the message.
    ranges : mapping of str to (int, int)
        Column -> (lowest, highest): the documented codes.
    first_line : int, default 1
        The file's line number of the table's first row.

    Raises
    ------
    TraceFormatError
        Naming file, line, column, value and range, at the first value out of its range.
    """
    import numpy as np

    for col, (low, high) in ranges.items():
        if col not in df:
            continue
        v = df[col].to_numpy(dtype=np.float64, na_value=np.nan)
        bad = (v < low) | (v > high)
        if bad.any():
            k = int(np.argmax(bad))
            raise TraceFormatError(
                f"{path}, line {k + first_line}, column {col!r}: {v[k]:g} is outside the "
                f"documented range {low} to {high}"
            )


def check_order(
    df: pd.DataFrame, path: Path, start: str, end: str, first_line: int = 1, slack: int = 0
) -> None:
    """Rows end no earlier than they start, less ``slack`` seconds; an end of 0 (not ended within
    the trace's window) is not checked.

    Parameters
    ----------
    df : pandas.DataFrame
        The table as read.
    path : pathlib.Path
        Its file, for the message.
    start, end : str
        The start and end time columns, seconds.
    first_line : int, default 1
        The file's line number of the table's first row.
    slack : int, default 0
        Seconds an end may fall before its start (the trace's own rounding).

    Raises
    ------
    TraceFormatError
        Naming file, line and both columns, at the first row that ends before it starts.
    """
    import numpy as np

    s_, e_ = df[start].to_numpy(np.float64), df[end].to_numpy(np.float64)
    bad = (e_ != 0) & (e_ < s_ - slack)
    if bad.any():
        k = int(np.argmax(bad))
        raise TraceFormatError(
            f"{path}, line {k + first_line}, column {end!r}: {e_[k]:g} is before {start} "
            f"{s_[k]:g}" + (f" (by more than {slack} s)" if slack else "")
        )
