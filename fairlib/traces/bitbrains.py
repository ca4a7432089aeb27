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
from pathlib import Path
import os
from typing import Iterable, Iterator

import numpy as np
import pandas as pd

from .._validate import InvalidInputError, _short, check_choice
from ._source import missing_hint, source_of, trace_folder
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
    """The GWA-T-12 folder: ``directory``, else the first ``bitbrains_gwa_t12`` over :func:`fairlib.paths.trace_dirs`.

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
        When ``directory`` is neither a string nor a path.
    """
    return trace_folder("bitbrains_gwa_t12", directory)


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
        One row per 5-minute sample: :data:`BITBRAINS_COLUMNS` (``time`` in Unix seconds, CPU in MHz and percent,
        memory in KB, disk and network in KB/s), ``active`` (cores > 0 and provisioned memory > 0) and ``vm`` (the file
        name's stem); ``attrs["source"]`` is "synthetic" under a synthetic folder, else "real".

    Raises
    ------
    FileNotFoundError
        The file does not exist.
    TraceFormatError
        Wrong header, a row with the wrong number of fields, a value that is not a number, or a
        truncated gzip stream — the message names the file and the line (1-based, header = line 1).
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(
            f"{path}: Bitbrains VM file not found ({missing_hint('bitbrains_gwa_t12')})"
        )
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
        fields = line.split(";")
        if len(fields) != len(BITBRAINS_COLUMNS):
            raise TraceFormatError(
                f"{path}:{number}: {len(fields)} fields, expected {len(BITBRAINS_COLUMNS)}"
            )
        rows.append(fields)
    raw = np.array(rows, dtype=object).reshape(-1, len(BITBRAINS_COLUMNS))
    out = {}
    for j, name in enumerate(BITBRAINS_COLUMNS):
        values = pd.to_numeric(pd.Series(raw[:, j], dtype="string").str.strip(), errors="coerce")
        bad = values.isna().to_numpy()
        if bad.any():
            i = int(np.argmax(bad))
            raise TraceFormatError(
                f"{path}:{i + 2}: {BITBRAINS_HEADER[j]} = {raw[i, j].strip()!r} is not a number"
            )
        arr = values.to_numpy(dtype=np.float64)
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
    if (seconds != np.round(seconds)).any():
        i = int(np.argmax(seconds != np.round(seconds)))
        raise TraceFormatError(
            f"{path}:{i + 2}: Timestamp = {seconds[i]} is not a whole number of seconds"
        )
    frame["time"] = seconds.astype(np.int64)
    frame["active"] = (frame["cpu_cores"] > 0) & (frame["memory_capacity_kb"] > 0)
    frame["vm"] = path.name.split(".")[0]
    frame.attrs["source"] = source_of(path.parent)
    return frame


def _vm_numbers(vms: object) -> list:
    """``vms`` as a list of VM numbers: a non-empty iterable of integers >= 1 or their text ("7", as the ``vm``
    column holds them), else an error naming ``vms`` and the value."""
    from collections.abc import Iterable

    if isinstance(vms, (str, bytes)) or not isinstance(vms, Iterable):
        raise InvalidInputError(
            f"vms = {_short(vms)}: must be a list of VM numbers (the file names of rnd/<month>)"
        )
    vms = list(vms)
    if not vms:
        raise InvalidInputError("vms: no VM numbers given")
    for vm in vms:
        number = (
            isinstance(vm, (int, np.integer)) and not isinstance(vm, (bool, np.bool_)) and vm >= 1
        )
        if not (number or isinstance(vm, str) and vm.isdecimal()):
            raise InvalidInputError(
                f"vms: {_short(vm)} is not a VM number (an integer >= 1 or its text)"
            )
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
        VM numbers, integers >= 1 or their text (``"7"``, as the ``vm`` column holds them); default every file of
        ``rnd/<month>``.
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
        VM numbers, integers >= 1 or their text (``"7"``, as the ``vm`` column holds them); default every file of
        ``rnd/<month>``.
    month : str, default "2013-8"
        One of :data:`RND_MONTHS`.
    directory : str or os.PathLike, optional
        The trace folder (default :func:`bitbrains_dir`).
    progress : bool, default False
        Show a progress bar over the files.

    Returns
    -------
    pandas.DataFrame
        The frames of :func:`read_vm`, concatenated in VM-number order; ``attrs["source"]`` as theirs.

    Raises
    ------
    FileNotFoundError
        A requested VM's file, or any VM file of the month, is not there.
    TraceFormatError
        A file does not have the GWA-T-12 format (:func:`read_vm`).
    InvalidInputError
        When ``vms`` is empty or holds a value that is not a VM number, or ``month`` is unknown.
    """
    from tqdm import tqdm

    paths_ = _vm_paths(vms, month, directory)
    frames = [
        read_vm(p) for p in tqdm(paths_, disable=not progress, desc="Bitbrains VMs", leave=False)
    ]
    out = pd.concat(frames, ignore_index=True)
    out.attrs["source"] = source_of(paths_[0].parent)
    return out


def write_vm(path: str | os.PathLike[str], frame: pd.DataFrame) -> Path:
    """Write ``frame`` in exactly the GWA-T-12 format, so that :func:`read_vm` reads it back like the real files.

    The header, ``";\\t"`` separators, and gzip when the name ends in ``.gz`` (with mtime 0: the bytes are
    reproducible); synthetic VMs and test fixtures are written with it.

    Parameters
    ----------
    path : str or os.PathLike
        The file to write (its folder is created).
    frame : pandas.DataFrame
        The samples, with at least :data:`BITBRAINS_COLUMNS` (``time`` and ``cpu_cores`` whole numbers).

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    InvalidInputError
        When ``frame`` is not a DataFrame or lacks a column.
    """
    if not isinstance(frame, pd.DataFrame):
        raise InvalidInputError(
            f"frame = {_short(frame)}: expected a DataFrame of {BITBRAINS_COLUMNS}, got "
            f"{type(frame).__name__}"
        )
    missing = [c for c in BITBRAINS_COLUMNS if c not in frame]
    if missing:
        raise InvalidInputError(f"frame: missing columns {missing}")
    buf = io.StringIO()
    buf.write(";\t".join(BITBRAINS_HEADER) + "\n")
    for row in frame[BITBRAINS_COLUMNS].itertuples(index=False):
        # time and cores are integers in the real files; the rest are decimals
        fields = [str(int(row[0])), str(int(row[1]))] + [repr(float(v)) for v in row[2:]]
        buf.write(";\t".join(fields) + "\n")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = buf.getvalue().encode("utf-8")
    if path.suffix == ".gz":
        with (
            open(path, "wb") as raw,
            gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as f,
        ):  # mtime 0: reproducible
            f.write(data)
    else:
        path.write_bytes(data)
    return path
