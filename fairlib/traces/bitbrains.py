"""Bitbrains GWA-T-12 (Shen, van Beek, Iosup, CCGrid 2015): one CSV per VM, 5-minute samples.

Format (SCHEMAS.md §4): a header line, then one row per observation with 11 fields separated by
``";\\t"``. Two quirks are handled here and documented in the returned columns:

- the column headed "Timestamp [ms]" holds **Unix seconds** (returned as ``time``, int64 seconds);
- powered-off VMs report rows of zeros; they are kept and flagged ``active = False`` (cores > 0 and
  provisioned memory > 0 is active), never dropped.

Units of the returned columns: CPU in MHz (``cpu_capacity_mhz``, ``cpu_usage_mhz``) and percent,
memory in KB, disk and network throughput in KB/s — as in the files.
"""

from __future__ import annotations

import gzip
import io
from decimal import Decimal
from pathlib import Path
import os
from typing import Iterable, Iterator

import numpy as np
import pandas as pd

from .._validate import (
    BEYOND_EXACT,
    InvalidInputError,
    _names_a_directory,
    _short,
    as_flag,
    as_integer_text,
    as_path,
    as_sequence,
    check_choice,
    check_column_labels,
    inexact_row,
    is_real_dtype,
    path_text,
    writing_to,
)
from ._source import (
    check_trace_file,
    inexact_integer_texts,
    missing_hint,
    parse_number_texts,
    source_of,
    trace_folder,
)
from .google import TraceFormatError

__all__ = [
    "BITBRAINS_HEADER",
    "BITBRAINS_COLUMNS",
    "RND_MONTHS",
    "bitbrains_dir",
    "read_vm",
    "iter_vms",
    "read_vms",
    "write_vm",
]

#: the months of the Rnd trace, named as its folders are (``rnd/<month>/<vm>.csv``)
RND_MONTHS = ("2013-7", "2013-8", "2013-9")

#: the header line's fields, as in the files
BITBRAINS_HEADER = [
    "Timestamp [ms]",
    "CPU cores",
    "CPU capacity provisioned [MHZ]",
    "CPU usage [MHZ]",
    "CPU usage [%]",
    "Memory capacity provisioned [KB]",
    "Memory usage [KB]",
    "Disk read throughput [KB/s]",
    "Disk write throughput [KB/s]",
    "Network received throughput [KB/s]",
    "Network transmitted throughput [KB/s]",
]
#: the latest timestamp the readers and :func:`write_vm` accept (Unix seconds; 2^53, exact in a
#: float64)
MAX_TIMESTAMP = 2**53

#: the columns holding integers (a time in seconds, a count), written in digits as
#: :data:`fairlib.traces._source.INTEGER_TEXT` says
_INTEGER_COLUMNS = ("time", "cpu_cores")

#: the returned column names, in file order
BITBRAINS_COLUMNS = [
    "time",
    "cpu_cores",
    "cpu_capacity_mhz",
    "cpu_usage_mhz",
    "cpu_usage_pct",
    "memory_capacity_kb",
    "memory_usage_kb",
    "disk_read_kbps",
    "disk_write_kbps",
    "net_rx_kbps",
    "net_tx_kbps",
]


def bitbrains_dir(directory: os.PathLike[str] | str | None = None) -> Path:
    """The GWA-T-12 folder: ``directory``, else the first ``bitbrains_gwa_t12`` over
    :func:`fairlib.paths.trace_dirs`.

    Parameters
    ----------
    directory : str or os.PathLike, optional
        An explicit folder, used as it is.

    Returns
    -------
    pathlib.Path
        The folder.

    Raises
    ------
    InvalidInputError
        When ``directory`` is neither a string nor a path, is blank, starts with ``~``, is a
        ``PurePath`` of another system's flavour, or names an entry other than a directory.
    """
    return trace_folder("bitbrains_gwa_t12", directory)


def _as_path(path: object, name: str) -> Path:
    """``path`` as a Path: text that :func:`fairlib._validate.path_text` accepts and that does not
    name a directory by its form, else an error naming ``name`` and the value."""
    text = path_text(path, name, "file")
    if _names_a_directory(text):  # Path("1.csv/") would be the file 1.csv
        raise InvalidInputError(
            f"{name} = {text!r}: names a directory (it ends in a separator, '.' or "
            "'..'), expected a file"
        )
    return Path(text)


def _read_text(path: Path) -> str:
    try:
        if path.suffix == ".gz":
            with gzip.open(path, "rt", encoding="utf-8", newline="") as f:
                return f.read()
        return path.read_text(encoding="utf-8")
    except (EOFError, OSError) as exc:
        raise TraceFormatError(f"{path}: truncated or corrupt file ({exc})") from None
    except UnicodeDecodeError as exc:
        raise TraceFormatError(f"{path}: not UTF-8 text ({exc})") from None


def read_vm(path: str | os.PathLike[str]) -> pd.DataFrame:
    """One VM file (``.csv`` or ``.csv.gz``) as a DataFrame.

    Parameters
    ----------
    path : str or os.PathLike
        The VM's file (``<n>.csv`` or ``<n>.csv.gz``).

    Returns
    -------
    pandas.DataFrame
        One row per 5-minute sample: :data:`BITBRAINS_COLUMNS` (``time`` in Unix seconds, CPU in MHz
        and percent, memory in KB, disk and network in KB/s), ``active`` (cores > 0 and provisioned
        memory > 0) and ``vm`` (the file name's stem); ``attrs["source"]`` is "synthetic" under a
        synthetic folder, else "real".

    Raises
    ------
    FileNotFoundError
        The file does not exist; the message names ``path`` and where the traces are looked for.
    InvalidInputError
        ``path`` is not a str or Path, is blank, starts with ``~``, is a ``PurePath`` of another
        system's flavour (``PureWindowsPath`` on POSIX), names a directory by its form (it ends
        in a separator), or cannot be looked up (a symlink loop, a part of it that is a file).
    TraceFormatError
        ``path`` is a directory or another entry than a regular file (``/dev/null``, a named
        pipe), naming what it is; wrong header, a row with the wrong number of fields (separated by
        ``;`` and a tab), a value that is not a number (pandas' NA strings such as ``NaN`` are
        not), a timestamp or core count not written in digits (``1e3``, ``2.0`` and ``+2`` are
        refused), an integer float64 would read as another number (beyond 2**53), or a
        truncated gzip stream — the message names the file and the line (1-based,
        header = line 1).
    """
    path = _as_path(path, "path")
    check_trace_file(path, "Bitbrains VM file", missing_hint("bitbrains_gwa_t12"), "path")
    text = _read_text(path)
    lines = text.splitlines()
    if not lines:
        raise TraceFormatError(f"{path}: empty file (expected the GWA-T-12 header)")
    header = [h.strip() for h in lines[0].split(";")]
    if header != BITBRAINS_HEADER:
        raise TraceFormatError(
            f"{path}:1: header {header} is not the GWA-T-12 header {BITBRAINS_HEADER}"
        )
    rows = []
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            raise TraceFormatError(f"{path}:{number}: empty line")
        # the documented separator, ";" and a tab: a field then holds its value alone
        fields = line.split(";\t")
        if len(fields) != len(BITBRAINS_COLUMNS):
            raise TraceFormatError(
                f"{path}:{number}: {len(fields)} fields, expected {len(BITBRAINS_COLUMNS)} "
                "(separated by ';' and a tab)"
            )
        rows.append(fields)
    raw = np.array(rows, dtype=object).reshape(-1, len(BITBRAINS_COLUMNS))
    out = {}
    for j, name in enumerate(BITBRAINS_COLUMNS):
        integer = name in _INTEGER_COLUMNS
        arr, bad = parse_number_texts(pd.Series(raw[:, j], dtype=str), integer=integer)
        if bad.any():
            i = int(np.argmax(bad))
            what = (
                "not a whole number written in digits (a time or count holds digits, with a minus "
                "sign at most)"
                if integer
                else "not a number"
            )
            raise TraceFormatError(
                f"{path}:{i + 2}: {BITBRAINS_HEADER[j]} = {raw[i, j]!r} is {what}"
            )
        inexact = inexact_integer_texts(pd.Series(raw[:, j], dtype=str), arr)
        if inexact.any() and name != "time":  # a time past 2^53 is refused below, as one
            i = int(np.argmax(inexact))
            raise TraceFormatError(
                f"{path}:{i + 2}: {BITBRAINS_HEADER[j]} = {raw[i, j].strip()!r} is {BEYOND_EXACT}"
            )
        bad = np.isinf(arr) | (arr < 0)
        if bad.any():
            i = int(np.argmax(bad))
            raise TraceFormatError(
                f"{path}:{i + 2}: {BITBRAINS_HEADER[j]} = {raw[i, j].strip()!r} must be finite "
                "and >= 0"
            )
        out[name] = arr
    frame = pd.DataFrame(out)
    seconds = frame["time"].to_numpy()
    # read as float64, exact only up to 2^53: a larger timestamp (a 20-digit one would even wrap
    # around int64) is no time the trace can hold
    late = seconds > MAX_TIMESTAMP
    # a text above 2^53 can round down to 2^53 itself: at that float, the text decides
    for at in np.flatnonzero(seconds == MAX_TIMESTAMP).tolist():
        late[at] = Decimal(raw[at, 0].strip()) > MAX_TIMESTAMP
    if late.any():
        i = int(np.argmax(late))
        raise TraceFormatError(
            f"{path}:{i + 2}: {BITBRAINS_HEADER[0]} = {raw[i, 0].strip()!r} is beyond "
            f"{MAX_TIMESTAMP} s (2^53, the last whole second a float64 holds exactly)"
        )
    frame["time"] = seconds.astype(np.int64)
    frame["active"] = (frame["cpu_cores"] > 0) & (frame["memory_capacity_kb"] > 0)
    frame["vm"] = path.name.split(".")[0]
    frame.attrs["source"] = source_of(path.parent)
    return frame


def _vm_numbers(vms: object) -> list:
    """``vms`` as a list of VM numbers: a non-empty iterable of integers >= 1 or their text ("7", as
    the ``vm`` column holds them), else an error naming ``vms`` and the value."""
    vms = list(
        as_sequence(vms, "vms", what="must be a list of VM numbers (the file names of rnd/<month>)")
    )
    if not vms:
        raise InvalidInputError("vms: no VM numbers given")
    for vm in vms:
        number = (
            isinstance(vm, (int, np.integer)) and not isinstance(vm, (bool, np.bool_)) and vm >= 1
        )
        # ASCII digits only: str.isdecimal accepts other scripts' digits, which name no file of the
        # trace
        if not (number or isinstance(vm, str) and vm.isascii() and vm.isdecimal()):
            raise InvalidInputError(
                f"vms: {_short(vm)} is not a VM number (an integer >= 1 or its text)"
            )
    seen = set()
    for vm in vms:
        # text through as_integer_text: int() refuses over 4,300 digits naming no argument
        key = as_integer_text(vm, "vms", minimum=1) if isinstance(vm, str) else int(vm)
        if key in seen:
            raise InvalidInputError(
                f"vms: VM {vm!r} is given more than once (its rows would be read twice)"
            )
        seen.add(key)
    return vms


def _vm_paths(
    vms: Iterable[int | str] | None, month: str, directory: os.PathLike[str] | str | None
) -> list[Path]:
    check_choice(month, RND_MONTHS, "month")
    if vms is not None:
        vms = _vm_numbers(vms)
    folder = bitbrains_dir(directory) / "rnd" / month
    if vms is None:
        found = sorted(folder.glob("*.csv*"), key=lambda p: (len(p.name), p.name))
        if not found:
            raise FileNotFoundError(
                f"{folder}: no Bitbrains VM files ({missing_hint('bitbrains_gwa_t12')})"
            )
        return found
    out = []
    for vm in vms:
        candidates = [folder / f"{vm}.csv.gz", folder / f"{vm}.csv"]
        hit = next((p for p in candidates if p.is_file()), None)
        if hit is None:
            raise FileNotFoundError(f"{candidates[0]}: Bitbrains VM {vm} not found")
        out.append(hit)
    return out


def iter_vms(
    vms: Iterable[int | str] | None = None,
    *,
    month: str = "2013-8",
    directory: os.PathLike[str] | str | None = None,
) -> Iterator[pd.DataFrame]:
    """One VM's frame at a time (memory stays at one file), in VM-number order.

    The arguments are checked and the files located when it is called, before the first frame.

    Parameters
    ----------
    vms : iterable of int or str, optional
        VM numbers, integers >= 1 or their text (``"7"``, as the ``vm`` column holds them); default
        every file of ``rnd/<month>``.
    month : str, default "2013-8"
        One of :data:`RND_MONTHS`.
    directory : str or os.PathLike, optional
        The trace folder (default :func:`bitbrains_dir`).

    Returns
    -------
    iterator of pandas.DataFrame
        :func:`read_vm` of each VM's file, read as the iterator advances.

    Raises
    ------
    FileNotFoundError
        A requested VM's file, or any VM file of the month, is not there.
    InvalidInputError
        When ``vms`` is empty or holds a value that is not a VM number, or ``month`` is unknown.
    """
    paths_ = _vm_paths(vms, month, directory)
    return (read_vm(path) for path in paths_)


def read_vms(
    vms: Iterable[int | str] | None = None,
    *,
    month: str = "2013-8",
    directory: os.PathLike[str] | str | None = None,
    progress: bool = False,
) -> pd.DataFrame:
    """Every requested VM in one frame (see :func:`iter_vms`).

    Parameters
    ----------
    vms : iterable of int or str, optional
        VM numbers, integers >= 1 or their text (``"7"``, as the ``vm`` column holds them); default
        every file of ``rnd/<month>``.
    month : str, default "2013-8"
        One of :data:`RND_MONTHS`.
    directory : str or os.PathLike, optional
        The trace folder (default :func:`bitbrains_dir`).
    progress : bool, default False
        Show a progress bar over the files.

    Returns
    -------
    pandas.DataFrame
        The frames of :func:`read_vm`, concatenated in VM-number order; ``attrs["source"]`` as
        theirs.

    Raises
    ------
    FileNotFoundError
        A requested VM's file, or any VM file of the month, is not there.
    TraceFormatError
        A file does not have the GWA-T-12 format (:func:`read_vm`).
    InvalidInputError
        When ``vms`` is empty or holds a value that is not a VM number, or ``month`` is unknown.
    """
    progress = as_flag(progress, "progress")
    from tqdm import tqdm

    paths_ = _vm_paths(vms, month, directory)
    frames = [
        read_vm(p) for p in tqdm(paths_, disable=not progress, desc="Bitbrains VMs", leave=False)
    ]
    out = pd.concat(frames, ignore_index=True)
    out.attrs["source"] = source_of(paths_[0].parent)
    return out


def write_vm(path: str | os.PathLike[str], frame: pd.DataFrame) -> Path:
    """Write ``frame`` (:data:`BITBRAINS_COLUMNS`) in exactly the GWA-T-12 format (header,
    ``";\\t"`` separators, gzip when the name ends in ``.gz``): synthetic VMs and test fixtures are
    read back by :func:`read_vm` like the real files, every value as it was.

    What :func:`read_vm` would refuse is refused here, naming the column, the row and the value, and
    nothing is written: a value that is not a finite number >= 0, a time that is not a whole number
    of seconds up to :data:`MAX_TIMESTAMP`, a core count that is not a whole number, an integer
    float64 does not hold exactly (beyond :data:`fairlib._validate.EXACT_INTEGER_MAX`: read back
    as another number).
    The file appears whole or not at all (written beside it, then renamed).

    Parameters
    ----------
    path : str or Path
        The file to write (``.csv``, or ``.csv.gz`` for gzip); its folder is created.
    frame : DataFrame
        One row per observation with the columns :data:`BITBRAINS_COLUMNS` (others are ignored).

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    InvalidInputError
        When ``path`` is not a str or Path, is a directory or names one by its form (``"ts.csv/"``,
        which would have written the file ``ts.csv``), is of bytes, blank, starts with ``~`` or
        is a ``PurePath`` of another system's flavour, when
        ``frame`` is not a DataFrame, has a column label that is not a str or is given twice, or
        lacks a column or has one of booleans, complex numbers or anything but real numbers,
        or when a value is one :func:`read_vm` refuses; nothing is written.
    OSError
        Of the type raised, naming ``path`` as given, when the file or its folder cannot be
        written (a read-only folder, a full disk).
    """
    import os
    import uuid

    path = Path(as_path(path, "path", kind="file"))  # a Path: narrows the argument's type
    if not isinstance(frame, pd.DataFrame):
        raise InvalidInputError(
            f"frame = {_short(frame)}: expected a DataFrame of {BITBRAINS_COLUMNS}, got "
            f"{type(frame).__name__}"
        )
    check_column_labels(frame, "frame")
    missing = [c for c in BITBRAINS_COLUMNS if c not in frame]
    if missing:
        raise InvalidInputError(f"frame: missing columns {missing}")
    values = {}
    whole: dict[str, list[int]] = {}  # time and cores as written: exact, whatever the dtype
    for name in BITBRAINS_COLUMNS:
        column = frame[name]
        if not is_real_dtype(column.dtype):  # booleans and complex numbers are not numbers
            raise InvalidInputError(
                f"frame[{name!r}]: dtype {column.dtype} is not real numbers (GWA-T-12 holds "
                "real numbers; booleans and complex numbers are not numbers)"
            )
        # read_vm reads numbers as float64: it would read another one (an integer time past 2^53 is
        # refused below, with the range of times)
        k = inexact_row(column)
        if k is not None and not (name == "time" and pd.api.types.is_integer_dtype(column)):
            raise InvalidInputError(
                f"frame[{name!r}][{k}] = {int(column.iloc[k])}: {BEYOND_EXACT} (read_vm would "
                "read it back as another number)"
            )
        v = column.to_numpy(dtype=np.float64, na_value=np.nan)
        bad = ~(np.isfinite(v) & (v >= 0))
        if name == "time":
            bad |= (v != np.round(v)) | (v > MAX_TIMESTAMP)
            if pd.api.types.is_integer_dtype(column):  # 2^53 + 1 is 2^53 as a float: ask the int
                bad |= column.gt(MAX_TIMESTAMP).fillna(False).to_numpy(dtype=bool)
        elif name == "cpu_cores":
            bad |= v != np.round(v)
        integer = pd.api.types.is_integer_dtype(column)
        if bad.any():
            i = int(np.argmax(bad))
            need = {
                "time": f"a whole number of seconds in [0, {MAX_TIMESTAMP}]",
                "cpu_cores": "a whole number >= 0",
            }.get(name, "a finite number >= 0")
            given = column.iloc[i]
            # an integer as given: 2^53 + 1 shown as a float would be 2^53, inside the range
            shown = repr(int(given)) if integer and not pd.isna(given) else repr(float(v[i]))
            raise InvalidInputError(
                f"frame[{name!r}][{i}] = {shown}: must be {need} (read_vm refuses it)"
            )
        values[name] = v
        if name in ("time", "cpu_cores"):
            # an integer column's own values (a core count past 2^53 is not rounded to a float's)
            whole[name] = [int(x) for x in (column.tolist() if integer else v)]
    buf = io.StringIO()
    buf.write(";\t".join(BITBRAINS_HEADER) + "\n")
    rows = zip(whole["time"], whole["cpu_cores"], *(values[name] for name in BITBRAINS_COLUMNS[2:]))
    for row in rows:
        # time and cores are whole numbers, written as integers as in the real files; the rest as
        # the shortest decimal that reads back to the same float
        fields = [str(row[0]), str(row[1])] + [repr(float(v)) for v in row[2:]]
        buf.write(";\t".join(fields) + "\n")
    data = buf.getvalue().encode("utf-8")
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.part")
    with writing_to(path, "path"):
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            with open(tmp, "xb") as raw:
                if path.suffix == ".gz":
                    # mtime 0 and the final name in the header (not the temporary one): the same
                    # bytes on every run
                    with gzip.GzipFile(str(path), mode="wb", fileobj=raw, mtime=0) as f:
                        f.write(data)
                else:
                    raw.write(data)
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
    return path
