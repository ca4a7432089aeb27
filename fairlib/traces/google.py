"""Google clusterdata-2011-2: ``task_events``, ``job_events``, ``machine_events`` (headerless gzip
CSV, schema from the trace's schema.csv; timestamps in µs since 600 s before the trace window, 0 =
initial snapshot).

CPU and memory requests are normalised by the largest machine capacity of each resource (SCHEMAS.md
§3.1), so a task's (CPU, memory) request is directly a demand vector.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from .._validate import (
    as_flag,
    as_path,
    check_column_labels,
    writing_to,
    MAX_SECONDS,
    InvalidInputError,
    _short,
    as_count,
    as_instance,
    as_number,
    as_parts,
    as_rng,
    check_drawn,
    as_sequence,
    check_columns,
    result_type,
    as_text,
)
from ._source import (
    TraceFormatError,
    check_exact_numbers,
    check_field_counts,
    _check_integer_text,
    check_ranges,
    check_values,
    locate_bad_number,
    read_csv_text,
    missing_hint,
    read_bytes,
    trace_folder,
)

__all__ = [
    "TASK_EVENT_COLUMNS",
    "JOB_EVENT_COLUMNS",
    "MACHINE_EVENT_COLUMNS",
    "TraceFormatError",
    "google_dir",
    "read_task_events",
    "iter_task_events",
    "read_job_events",
    "read_machine_events",
    "machine_configurations",
    "read_task_usage",
    "TASK_USAGE_COLUMNS",
    "task_request_pool",
    "synthetic_task_requests",
    "SUBMIT",
    "ADD",
    "REMOVE",
    "UPDATE",
    "JobDemands",
    "task_event_demands",
    "task_usage_demands",
]

#: task_events fields in file order (schema.csv, fields 1-13)
TASK_EVENT_COLUMNS = [
    "time",
    "missing_info",
    "job_id",
    "task_index",
    "machine_id",
    "event_type",
    "user",
    "scheduling_class",
    "priority",
    "cpu_request",
    "memory_request",
    "disk_request",
    "different_machines",
]
_DTYPES = {
    "time": "int64",
    "missing_info": "Int64",
    "job_id": "int64",
    "task_index": "int64",
    "machine_id": "Int64",
    "event_type": "int64",
    "user": "string",
    "scheduling_class": "int64",
    "priority": "int64",
    "cpu_request": "float64",
    "memory_request": "float64",
    "disk_request": "float64",
    "different_machines": "Int64",
}
SUBMIT = 0


def google_dir(directory: os.PathLike[str] | str | None = None) -> Path:
    """The clusterdata-2011-2 folder: ``directory``, else the first ``google_clusterdata_2011_2``
    over the trace dirs.

    Parameters
    ----------
    directory : str or os.PathLike, optional
        An explicit folder, used as it is.

    Returns
    -------
    pathlib.Path
        The folder (:func:`fairlib.paths.trace_dirs` says where it is looked for).

    Raises
    ------
    InvalidInputError
        When ``directory`` is neither a string nor a path, is blank, starts with ``~``, is a
        ``PurePath`` of another system's flavour, or names an entry other than a directory.
    """
    return trace_folder("google_clusterdata_2011_2", directory)


#: machine_events and job_events fields in file order (schema.csv)
MACHINE_EVENT_COLUMNS = ["time", "machine_id", "event_type", "platform_id", "cpus", "memory"]
_MACHINE_DTYPES = {
    "time": "int64",
    "machine_id": "int64",
    "event_type": "int64",
    "platform_id": "string",
    "cpus": "float64",
    "memory": "float64",
}
JOB_EVENT_COLUMNS = [
    "time",
    "missing_info",
    "job_id",
    "event_type",
    "user",
    "scheduling_class",
    "job_name",
    "logical_job_name",
]
_JOB_DTYPES = {
    "time": "int64",
    "missing_info": "Int64",
    "job_id": "int64",
    "event_type": "int64",
    "user": "string",
    "scheduling_class": "int64",
    "job_name": "string",
    "logical_job_name": "string",
}
#: task_usage fields in file order (schema.csv, fields 1-20)
TASK_USAGE_COLUMNS = [
    "start_time",
    "end_time",
    "job_id",
    "task_index",
    "machine_id",
    "cpu_rate",
    "canonical_memory",
    "assigned_memory",
    "unmapped_page_cache",
    "total_page_cache",
    "maximum_memory",
    "disk_io_time",
    "local_disk_space",
    "maximum_cpu_rate",
    "maximum_disk_io_time",
    "cpi",
    "mai",
    "sample_portion",
    "aggregation_type",
    "sampled_cpu_usage",
]
_USAGE_DTYPES = {c: "float64" for c in TASK_USAGE_COLUMNS} | {
    "start_time": "int64",
    "end_time": "int64",
    "job_id": "int64",
    "task_index": "int64",
    "machine_id": "int64",
    "aggregation_type": "Int64",
}
#: machine event types
ADD, REMOVE, UPDATE = 0, 1, 2
_TABLES = {
    "task_events": (TASK_EVENT_COLUMNS, _DTYPES, 500),
    "job_events": (JOB_EVENT_COLUMNS, _JOB_DTYPES, 500),
    "machine_events": (MACHINE_EVENT_COLUMNS, _MACHINE_DTYPES, 1),
    "task_usage": (TASK_USAGE_COLUMNS, _USAGE_DTYPES, 500),
}


#: columns that hold amounts, counts or times: finite and >= 0 where present
_NONNEGATIVE = {
    "task_events": ["time", "cpu_request", "memory_request", "disk_request"],
    "job_events": ["time"],
    "machine_events": ["time", "cpus", "memory"],
    "task_usage": [
        "start_time",
        "end_time",
        "cpu_rate",
        "canonical_memory",
        "assigned_memory",
        "maximum_memory",
        "maximum_cpu_rate",
        "local_disk_space",
    ],
}


#: codes the schema documents (Reiss, Wilkes, Hellerstein 2011; docs/data.md): each within its range
#: where present
_EVENT_TYPES = (
    0,
    8,
)  # SUBMIT, SCHEDULE, EVICT, FAIL, FINISH, KILL, LOST, UPDATE_PENDING, UPDATE_RUNNING
_RANGES = {
    "task_events": {
        "missing_info": (0, 2),
        "event_type": _EVENT_TYPES,
        "scheduling_class": (0, 3),
        "priority": (0, 11),
        "different_machines": (0, 1),
    },
    "job_events": {"missing_info": (0, 2), "event_type": _EVENT_TYPES, "scheduling_class": (0, 3)},
    "machine_events": {"event_type": (0, 2)},
    "task_usage": {"aggregation_type": (0, 1)},
}


def _part_numbers(parts: object, table: str = "task_events") -> list[int]:
    """``parts`` as a list of part numbers of ``table`` (0 to 499; 0 for machine_events): a
    non-empty iterable of increasing integers in range, else an error naming ``parts`` and the part
    (:func:`fairlib._validate.as_parts`)."""
    return as_parts(parts, count=_TABLES[table][2], where=table)


def _refuse_repeats(values: Iterable[object], name: str, why: str) -> None:
    """An error naming ``name`` and the first value given more than once."""
    seen = set()
    for value in values:
        if value in seen:
            raise InvalidInputError(f"{name}: {value!r} is given more than once ({why})")
        seen.add(value)


def _read_parts(
    table: str,
    parts: object,
    directory: os.PathLike[str] | str | None,
    columns: list[str] | None,
    chunksize: int | None = None,
) -> Iterator[pd.DataFrame]:
    """Read parts of a Google table strictly (field counts and values checked, errors name file and
    line); one DataFrame, or an iterator of chunks of ``chunksize`` rows."""
    names, dtypes, total = _TABLES[table]
    if columns is not None:
        # read once: a generator checked here and read again below would select no column
        columns = list(
            as_sequence(columns, "columns", what=f"must be a list of column names of {table}")
        )
        if not all(isinstance(c, str) for c in columns):
            raise InvalidInputError(
                f"columns = {columns!r}: must be a list of column names of {table}"
            )
        _refuse_repeats(columns, "columns", "a frame holds each column once")
        unknown = [c for c in columns if c not in names]
        if unknown:
            raise InvalidInputError(
                f"columns = {columns!r}: {unknown} are not columns of {table} ({names})"
            )
    if chunksize is not None:
        chunksize = as_count(chunksize, "chunksize")
    folder = google_dir(directory) / table
    for part in _part_numbers(parts, table):
        path = folder / f"part-{int(part):05d}-of-{total:05d}.csv.gz"
        data = read_bytes(
            path, f"Google {table} part {part}", missing_hint("google_clusterdata_2011_2")
        )
        for df in _parse_part(data, path, table, chunksize):
            yield df if columns is None else df[columns]


def _parse_part(
    data: bytes, path: Path, table: str, chunksize: int | None = None
) -> Iterator[pd.DataFrame]:
    """The rows of one part's bytes, strictly (what :func:`_read_parts` reads and
    :func:`_write_part` checks)."""
    names, dtypes, _ = _TABLES[table]
    if data.startswith(b"\xef\xbb\xbf"):
        # pandas drops a byte order mark and reads the first field's number from what follows:
        # accepted silently, a file re-saved by an editor passed for the trace's own
        raise TraceFormatError(
            f"{path}, line 1: starts with a UTF-8 byte order mark (the trace's files have none: "
            "save it as UTF-8 without one)"
        )
    check_field_counts(data, path, len(names))
    _check_integer_text(
        data, path, names, [c for c, t in dtypes.items() if t in ("int64", "Int64")]
    )
    numeric = [c for c, t in dtypes.items() if t != "string"]
    floats = [c for c, t in dtypes.items() if t == "float64"]
    try:
        # an empty field is the trace's only missing value: a hash or name that reads "NA" or
        # "null" is text, and "NaN" in a number column is no number
        reader = read_csv_text(data, names, dtypes, chunksize=chunksize)
        chunks = reader if chunksize else [reader]
        first_line = 1
        for df in chunks:
            check_values(df, path, _NONNEGATIVE[table], first_line)
            check_ranges(df, path, _RANGES[table], first_line)
            check_exact_numbers(df, data, path, names, floats, first_line, first_row=first_line - 1)
            if table == "task_usage":
                backwards = (df.end_time < df.start_time).to_numpy()
                if backwards.any():
                    k = int(backwards.argmax())
                    raise TraceFormatError(
                        f"{path}, line {first_line + k}: end_time {df.end_time.iloc[k]} is "
                        f"before start_time {df.start_time.iloc[k]}"
                    )
            first_line += len(df)
            yield df
    # pandas: OverflowError for an id beyond int64, TypeError for 1.5 in a nullable integer column
    except (ValueError, TypeError, OverflowError, pd.errors.ParserError) as exc:
        if isinstance(exc, TraceFormatError):
            raise
        locate_bad_number(
            data,
            path,
            names,
            numeric,
            [c for c, t in dtypes.items() if t == "int64"],
            integer=[c for c, t in dtypes.items() if t == "Int64"],
        )
        raise TraceFormatError(f"{path}: {exc}") from None


def _write_part(
    path: str | os.PathLike[str],
    frame: pd.DataFrame,
    table: str,
    *,
    float_format: str | None = None,
) -> Path:
    """Write ``frame`` (the columns of ``table`` in file order, whatever their names; an empty
    string or NaN is an empty field) as one part in the trace's format: headerless CSV, gzip with
    mtime 0. The text is parsed as the readers parse it before anything is written, so what they
    would refuse (an empty part, a field holding the separator, a code outside its range, a negative
    amount, a fractional id) is refused here, an ``InvalidInputError`` naming ``frame``, its row and
    column; the file appears whole or not at all. ``float_format``: as pandas' (default: the
    shortest text that reads back to the same float)."""
    import uuid

    names = _TABLES[table][0]
    as_instance(frame, pd.DataFrame, "frame")
    check_column_labels(frame, "frame")
    if frame.shape[1] != len(names):
        raise InvalidInputError(
            f"frame: {frame.shape[1]} columns, expected the {len(names)} of {table} ({names})"
        )
    if frame.empty:
        raise InvalidInputError(f"frame: no rows (the readers refuse an empty {table} part)")
    path = Path(as_path(path, "path", kind="file"))  # a Path: narrows the argument's type
    text = frame.to_csv(
        None, header=False, index=False, lineterminator="\n", float_format=float_format
    )
    data = text.encode("utf-8")
    try:
        for _ in _parse_part(data, path, table):
            pass
    except TraceFormatError as exc:
        raise InvalidInputError(
            f"frame: the reader would refuse what it writes (line k is frame's row k - 1): {exc}"
        ) from None
    # written under its own name in a folder beside it, then moved: gzip's header holds the file's
    # name, and a reader never sees half a file
    staging = path.parent / f".{path.name}.{uuid.uuid4().hex}.part"
    with writing_to(path, "path"):
        path.parent.mkdir(parents=True, exist_ok=True)
        staging.mkdir()
        try:
            frame.to_csv(
                staging / path.name,
                header=False,
                index=False,
                compression={"method": "gzip", "mtime": 0},
                lineterminator="\n",
                float_format=float_format,
            )
            (staging / path.name).replace(path)
        finally:
            (staging / path.name).unlink(missing_ok=True)
            staging.rmdir()
    return path


def read_task_events(
    parts: Iterable[int] = range(5),
    *,
    directory: os.PathLike[str] | str | None = None,
    columns: list[str] | None = None,
) -> pd.DataFrame:
    """Read ``task_events/part-NNNNN-of-00500.csv.gz`` for the given part numbers.

    Parameters
    ----------
    parts : iterable of int, default range(5)
        Part numbers, 0 to 499 (the excerpt holds 0-4).
    directory : str or os.PathLike, optional
        The trace folder (default :func:`google_dir`).
    columns : list of str, optional
        The columns to keep (default: all of the table's).

    Returns
    -------
    pandas.DataFrame
        One row per task event (:data:`TASK_EVENT_COLUMNS`): ``time`` in µs since 600 s before the
        trace window (0 = initial snapshot), requests normalised by the largest machine's capacity.

    Raises
    ------
    FileNotFoundError
        When a part's file is not there, saying where the reader looked and how to fetch the data.
    TraceFormatError
        When a file is truncated or corrupt, a line has the wrong number of fields, or a value is
        not a number, an integer float64 cannot hold exactly, missing where required or negative,
        naming the file, line and column.
    InvalidInputError
        When ``parts`` holds a number out of range or ``columns`` an unknown column.
    """
    return pd.concat(_read_parts("task_events", parts, directory, columns), ignore_index=True)


def iter_task_events(
    parts: Iterable[int] = range(5),
    *,
    directory: os.PathLike[str] | str | None = None,
    columns: list[str] | None = None,
    chunksize: int | None = 200_000,
) -> Iterator[pd.DataFrame]:
    """:func:`read_task_events` in chunks of ``chunksize`` rows (memory-safe for the full 500
    parts).

    Parameters
    ----------
    parts : iterable of int, default range(5)
        Part numbers, 0 to 499 (the excerpt holds 0-4).
    directory : str or os.PathLike, optional
        The trace folder (default :func:`google_dir`).
    columns : list of str, optional
        The columns to keep (default: all of the table's).
    chunksize : int or None, default 200000
        Rows per chunk, >= 1; None: each part whole, one frame per file (memory grows with the
        part).

    Yields
    ------
    pandas.DataFrame
        The next chunk of task events, in file order.

    Raises
    ------
    FileNotFoundError
        When a part's file is not there, saying where the reader looked and how to fetch the data.
    TraceFormatError
        When a file is truncated or corrupt, a line has the wrong number of fields, or a value is
        not a number, an integer float64 cannot hold exactly, missing where required or negative,
        naming the file, line and column.
    InvalidInputError
        When ``parts`` holds a number out of range, ``columns`` an unknown column or
        ``chunksize`` is not an integer >= 1 or None.
    """
    yield from _read_parts("task_events", parts, directory, columns, chunksize=chunksize)


def read_job_events(
    parts: Iterable[int] = range(5),
    *,
    directory: os.PathLike[str] | str | None = None,
    columns: list[str] | None = None,
) -> pd.DataFrame:
    """``job_events`` parts: one row per job event.

    Parameters
    ----------
    parts : iterable of int, default range(5)
        Part numbers, 0 to 499 (the excerpt holds 0-4).
    directory : str or os.PathLike, optional
        The trace folder (default :func:`google_dir`).
    columns : list of str, optional
        The columns to keep (default: all of the table's).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`JOB_EVENT_COLUMNS` (scheduling class 0-3, 3 most latency-sensitive).

    Raises
    ------
    FileNotFoundError
        When a part's file is not there, saying where the reader looked and how to fetch the data.
    TraceFormatError
        When a file is truncated or corrupt, a line has the wrong number of fields, or a value is
        not a number, an integer float64 cannot hold exactly, missing where required or negative,
        naming the file, line and column.
    InvalidInputError
        When ``parts`` holds a number out of range or ``columns`` an unknown column.
    """
    return pd.concat(_read_parts("job_events", parts, directory, columns), ignore_index=True)


def read_task_usage(
    parts: Iterable[int] = range(5),
    *,
    directory: os.PathLike[str] | str | None = None,
    columns: list[str] | None = None,
) -> pd.DataFrame:
    """``task_usage`` parts: one row per task and measurement window.

    The real table is not in the shared excerpt (92 MB per part): fetch it, or write a labelled
    synthetic one with :func:`fairlib.traces.synthetic.synthetic_task_usage`.

    Parameters
    ----------
    parts : iterable of int, default range(5)
        Part numbers, 0 to 499 (the excerpt holds 0-4).
    directory : str or os.PathLike, optional
        The trace folder (default :func:`google_dir`).
    columns : list of str, optional
        The columns to keep (default: all of the table's).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`TASK_USAGE_COLUMNS` (300 s windows, rates normalised like requests).

    Raises
    ------
    FileNotFoundError
        When a part's file is not there, saying where the reader looked and how to fetch the data.
    TraceFormatError
        When a file is truncated or corrupt, a line has the wrong number of fields, or a value is
        not a number, an integer float64 cannot hold exactly, missing where required or negative,
        naming the file, line and column.
    InvalidInputError
        When ``parts`` holds a number out of range or ``columns`` an unknown column.
    """
    return pd.concat(_read_parts("task_usage", parts, directory, columns), ignore_index=True)


def read_machine_events(*, directory: os.PathLike[str] | str | None = None) -> pd.DataFrame:
    """The complete ``machine_events`` table (one part).

    Parameters
    ----------
    directory : str or os.PathLike, optional
        The trace folder (default :func:`google_dir`).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`MACHINE_EVENT_COLUMNS`: capacities normalised to the largest machine, per
        resource; empty capacities read as NaN.

    Raises
    ------
    FileNotFoundError
        When the file is not there.
    TraceFormatError
        When the file does not have the documented format, naming the file, line and column.
    """
    return pd.concat(_read_parts("machine_events", [0], directory, None), ignore_index=True)


def machine_configurations(
    machine_events: pd.DataFrame | None = None, *, directory: os.PathLike[str] | str | None = None
) -> pd.DataFrame:
    """Count machines by (platform, CPU, memory) at each machine's **last non-empty** capacity
    (SCHEMAS.md §3.3).

    Parameters
    ----------
    machine_events : pandas.DataFrame, optional
        The ``machine_events`` table (with ``machine_id``, ``time``, ``platform_id``, ``cpus``,
        ``memory``); default :func:`read_machine_events` of ``directory``.
    directory : str or os.PathLike, optional
        The trace folder, when ``machine_events`` is not given.

    Returns
    -------
    pandas.DataFrame
        Columns ``platform_id``, ``cpus``, ``memory`` (normalised), ``machines`` and ``share`` (of
        all machines), most common first.

    Raises
    ------
    InvalidInputError
        When ``machine_events`` is not a DataFrame or lacks a column.
    """
    if machine_events is None:
        ev = read_machine_events(directory=directory)
    else:
        ev = as_instance(machine_events, pd.DataFrame, "machine_events")
        missing = {"time", "machine_id", "platform_id", "cpus", "memory"} - set(ev.columns)
        if missing:
            raise InvalidInputError(f"machine_events: missing columns {sorted(missing)}")
        check_columns(ev, "machine_events", ["time", "cpus", "memory"])
    known = ev.dropna(subset=["cpus", "memory"])
    last = known.sort_values(["machine_id", "time"], kind="stable").groupby("machine_id").tail(1)
    out = (
        last.groupby(["platform_id", "cpus", "memory"], dropna=False)
        .size()
        .rename("machines")
        .reset_index()
    )
    out["share"] = out["machines"] / out["machines"].sum()
    return out.sort_values("machines", ascending=False, kind="stable").reset_index(drop=True)


# Quantiles of per-task requests at SUBMIT in parts 0-4 (SCHEMAS.md §3.4): used by the synthetic
# fallback.
_CPU_Q = (
    [0.0, 0.10, 0.25, 0.50, 0.75, 0.90, 0.99, 1.0],
    [0.001, 0.00625, 0.0125, 0.025, 0.0625, 0.0687, 0.241, 0.5],
)
_MEM_Q = (
    [0.0, 0.10, 0.25, 0.50, 0.75, 0.90, 0.99, 1.0],
    [0.0005, 0.0039, 0.0119, 0.0207, 0.0334, 0.0714, 0.159, 0.955],
)


def synthetic_task_requests(
    rng: int | np.random.Generator | np.random.SeedSequence | None, size: int
) -> np.ndarray:
    """Synthetic (CPU, memory) task requests with the marginal quantiles of the real SUBMIT rows.

    CPU and memory are drawn independently by inverse-CDF interpolation of the quantiles in
    SCHEMAS.md §3.4, so the marginals match the excerpt but their dependence does not. Label
    results SYNTHETIC.

    Parameters
    ----------
    rng : int, numpy.random.Generator, numpy.random.SeedSequence or None
        Seed or generator.
    size : int
        Number of tasks, >= 0.

    Returns
    -------
    numpy.ndarray
        ``requests[task, (cpu, memory)]``, shape (size, 2), normalised units.

    Raises
    ------
    InvalidInputError
        When ``size`` is negative, ``size`` x 2 is above :data:`~fairlib._validate.MAX_DRAWN`
        (10**8 numbers), or ``rng`` is not a seed.
    """
    size = as_count(size, "size", minimum=0)
    check_drawn(("size", size), ("columns", 2))
    rng = as_rng(rng)
    u = rng.random((size, 2))
    return np.column_stack([np.interp(u[:, 0], *_CPU_Q), np.interp(u[:, 1], *_MEM_Q)])


class RequestPool(NamedTuple):
    """Task requests ``[task, (cpu, memory)]`` and whether they are ``real`` or ``synthetic``."""

    requests: np.ndarray
    source: str


def task_request_pool(
    *,
    directory: os.PathLike[str] | str | None = None,
    parts: Iterable[int] = range(5),
    allow_synthetic: bool = True,
    rng: int | np.random.Generator | np.random.SeedSequence | None = None,
    synthetic_size: int = 200_000,
) -> RequestPool:
    """(CPU, memory) requests of submitted tasks with both > 0, and their source: "real" or
    "synthetic".

    Real: every SUBMIT row of the given task_events parts with CPU > 0 and memory > 0. ``rng`` and
    ``synthetic_size`` are checked even when the real excerpt is found.

    Parameters
    ----------
    directory : str or os.PathLike, optional
        The trace folder (default :func:`google_dir`).
    parts : iterable of int, default range(5)
        The task_events parts read.
    allow_synthetic : bool, default True
        When the excerpt is not found, return :func:`synthetic_task_requests` instead (source
        "synthetic").
    rng : int, numpy.random.Generator, numpy.random.SeedSequence or None, optional
        Seed of the synthetic requests.
    synthetic_size : int, default 200000
        Number of synthetic requests, >= 1.

    Returns
    -------
    RequestPool
        ``requests[task, (cpu, memory)]`` (normalised units) and ``source``.

    Raises
    ------
    FileNotFoundError
        When the excerpt is not found and ``allow_synthetic`` is False.
    InvalidInputError
        When ``rng`` or ``synthetic_size`` is invalid (``synthetic_size`` x 2 above
        :data:`~fairlib._validate.MAX_DRAWN` included).
    """
    allow_synthetic = as_flag(allow_synthetic, "allow_synthetic")
    # checked here, not only on the synthetic path, so a bad value fails on every machine, with or
    # without the data
    rng = as_rng(rng)
    synthetic_size = as_count(synthetic_size, "synthetic_size")
    check_drawn(("synthetic_size", synthetic_size), ("columns", 2))
    try:
        ev = read_task_events(
            parts, directory=directory, columns=["event_type", "cpu_request", "memory_request"]
        )
    except FileNotFoundError:
        if not allow_synthetic:
            raise
        return RequestPool(synthetic_task_requests(rng, synthetic_size), "synthetic")
    sub = ev[(ev.event_type == SUBMIT) & (ev.cpu_request > 0) & (ev.memory_request > 0)]
    return RequestPool(sub[["cpu_request", "memory_request"]].to_numpy(dtype=np.float64), "real")


# --- per-interval job demands, for the replays (fairlib.sim.jobs_from_demands) --------------------


@result_type
@dataclass(frozen=True, eq=False)
class JobDemands:
    """Per-interval demands of a trace's jobs, one row per segment (rows grouped by job, in time
    order).

    :func:`task_event_demands` and :func:`task_usage_demands` read them;
    :func:`fairlib.sim.jobs_from_demands` turns them into the jobs of a replay.

    Parameters
    ----------
    job : numpy.ndarray, shape (S,)
        The job of each segment.
    demand : numpy.ndarray, shape (S, 2)
        Each segment's (CPU, memory) demand in normalised units (``resources``).
    start, end : numpy.ndarray, shape (S,)
        When each segment's demand holds, seconds.
    held : numpy.ndarray, shape (S,)
        Seconds the demand is held (``end - start``).
    window_end : numpy.ndarray, shape (S,)
        The end of the interval each segment was measured in (a job leaves the trace at its last
        segment's).
    scheduling_class : pandas.Series, mapping or None
        job id -> scheduling class, or None.
    source : str
        A provenance label ("real", "synthetic", ...).
    resources : tuple of str, default ("cpu_normalised", "memory_normalised")
        The names of ``demand``'s columns.
    """

    job: np.ndarray
    demand: np.ndarray
    start: np.ndarray
    end: np.ndarray
    held: np.ndarray
    window_end: np.ndarray
    scheduling_class: object
    source: str
    resources: tuple = ("cpu_normalised", "memory_normalised")

    def __post_init__(self) -> None:
        """One entry per segment in every per-segment field, and one demand column per resource:
        fields that disagree are refused by name here, not met as an IndexError downstream."""
        n = np.shape(self.job)[0] if np.ndim(self.job) == 1 else None
        if n is None:
            raise InvalidInputError(
                f"job: expected one job per segment (1-D), got shape {np.shape(self.job)}"
            )
        for name in ("start", "end", "held", "window_end"):
            if np.shape(getattr(self, name)) != (n,):
                raise InvalidInputError(
                    f"{name}: expected one value per segment ({n}, as job), got shape "
                    f"{np.shape(getattr(self, name))}"
                )
        if not isinstance(self.resources, tuple) or np.shape(self.demand) != (
            n,
            len(self.resources),
        ):
            raise InvalidInputError(
                f"demand: expected shape ({n}, {len(self.resources)}) (segments x resources "
                f"{self.resources!r}), got {np.shape(self.demand)}"
            )


def _check_event_times(frame: pd.DataFrame, name: str) -> None:
    """A frame's ``time`` column holds trace times: at least one row, numbers (not text), each a
    whole number of µs from 0 to 2⁶³ − 1; else an error naming ``name``, the row and the
    value."""
    if len(frame) == 0:
        raise InvalidInputError(f"{name}: no rows")
    check_columns(frame, name, ["time"])
    t = frame["time"].to_numpy(dtype=np.float64, na_value=np.nan)
    bad = ~((t == np.round(t)) & (t <= 2.0**63))
    if bad.any():
        i = int(np.argmax(bad))
        raise InvalidInputError(
            f"{name} row {i} (index {frame.index[i]!r}), column 'time' = {t[i]}: must be a "
            "whole number "
            "of µs from 0 to 2**63 - 1 (the trace's times)"
        )


#: task_events event types after which a task is running (SCHEDULE, UPDATE_RUNNING)
_RUNNING_EVENTS = (1, 8)
#: the most (task run, interval) pairs :func:`task_event_demands` expands (about 64 bytes each at
#: its peak): the shared 7-hour excerpt at 5-minute windows has 11.4 million; a window far shorter
#: than the trace multiplies them
MAX_TASK_INTERVALS = 50_000_000


def task_event_demands(
    task_events: pd.DataFrame,
    *,
    window: float = 300.0,
    origin: float = 600.0,
    horizon: float | None = None,
    source: str = "real",
) -> JobDemands:
    """Per-interval job demands from ``task_events``: the model of the paper's §6.2 as
    reconstructed [INF].

    For each ``window``-second interval starting at ``origin + k · window`` (the trace's first
    instant is 600 s), a job's demand D_n(k) is the sum of the CPU and memory requests of its tasks
    *running at the interval's start* (their last event at or before it is SCHEDULE or
    UPDATE_RUNNING; a request missing from an event is carried over from the task's previous one),
    held for the interval (the last one cut at ``horizon``). Intervals in which none of a job's
    tasks runs are not segments; a job runs from its first such interval to its last. Each job's
    scheduling class is the largest its events give it. At most :data:`MAX_TASK_INTERVALS` (task
    run, interval) pairs: a shorter ``window`` is refused, naming it.
    :func:`fairlib.sim.jobs_from_demands` turns the demands into the replay's jobs.

    Parameters
    ----------
    task_events : pandas.DataFrame
        Task events with ``time`` (µs), ``job_id``, ``task_index``, ``event_type``,
        ``cpu_request``, ``memory_request`` and ``scheduling_class``.
    window : float, default 300.0
        Interval length, seconds, in (0, 2**53] (:data:`~fairlib._validate.MAX_SECONDS`).
    origin : float, default 600.0
        Start of the first interval, seconds, in [0, 2**53].
    horizon : float, optional
        End of the last interval, seconds, after ``origin`` and at most 2**53 (default: the last
        event).
    source : str, default "real"
        A provenance label.

    Returns
    -------
    JobDemands
        One segment per (job, interval with a running task).

    Raises
    ------
    InvalidInputError
        When ``task_events`` is not a DataFrame, lacks a column, a number is out of range, or no
        task runs at any interval start.

    Examples
    --------
    >>> events = pd.DataFrame(
    ...     {
    ...         "time": [600_000_000],
    ...         "job_id": [7],
    ...         "task_index": [0],
    ...         "event_type": [1],
    ...         "cpu_request": [0.25],
    ...         "memory_request": [0.5],
    ...         "scheduling_class": [2],
    ...     }
    ... )
    >>> demands = task_event_demands(events, horizon=900.0)
    >>> demands.demand.tolist(), demands.start.tolist(), demands.end.tolist()
    ([[0.25, 0.5]], [600.0], [900.0])
    """
    as_instance(task_events, pd.DataFrame, "task_events")
    as_text(source, "source", what="a provenance label is shown text")
    need = {
        "time",
        "job_id",
        "task_index",
        "event_type",
        "cpu_request",
        "memory_request",
        "scheduling_class",
    }
    missing = need - set(task_events.columns)
    if missing:
        raise InvalidInputError(f"task_events: missing columns {sorted(missing)}")
    _check_event_times(task_events, "task_events")
    check_columns(task_events, "task_events", ["cpu_request", "memory_request"])
    window = as_number(window, "window", maximum=MAX_SECONDS)
    origin = as_number(origin, "origin", inclusive=True, maximum=MAX_SECONDS)
    if horizon is not None and as_number(horizon, "horizon", maximum=MAX_SECONDS) <= origin:
        raise InvalidInputError(
            f"horizon = {horizon}: not after origin = {origin} (no interval would start before it)"
        )
    ev = task_events.sort_values(["job_id", "task_index", "time"], kind="stable")
    time = ev.time.to_numpy(np.int64) / 1e6
    end_of_trace = float(time.max()) if horizon is None else float(horizon)  # checked above
    task = ev.job_id.to_numpy(np.int64), ev.task_index.to_numpy(np.int64)
    same_task = np.r_[(task[0][1:] == task[0][:-1]) & (task[1][1:] == task[1][:-1]), False]
    next_time = np.where(same_task, np.r_[time[1:], end_of_trace], end_of_trace)
    requests = ev.groupby(["job_id", "task_index"], sort=False)[
        ["cpu_request", "memory_request"]
    ].ffill()
    cpu, memory = requests.cpu_request.to_numpy(float), requests.memory_request.to_numpy(float)
    running = ev.event_type.isin(_RUNNING_EVENTS).to_numpy() & (
        np.nan_to_num(cpu) + np.nan_to_num(memory) > 0
    )
    start, stop = time[running], np.minimum(next_time[running], end_of_trace)
    # counted in floats before any cast: a tiny window makes interval numbers beyond int64, which a
    # cast would wrap
    first = np.maximum(np.ceil((start - origin) / window), 0)  # first interval start covered
    last = np.ceil((stop - origin) / window) - 1  # last one before the task stops
    total = float(np.maximum(last - first + 1, 0).sum())
    if total > MAX_TASK_INTERVALS:
        raise InvalidInputError(
            f"window = {window:g}: the task runs cover {total:,.0f} (task, interval) pairs, "
            f"more than MAX_TASK_INTERVALS = {MAX_TASK_INTERVALS:,}; use a longer window or "
            "fewer events"
        )
    first, last = first.astype(np.int64), last.astype(np.int64)
    count = np.maximum(last - first + 1, 0)
    rows = np.repeat(np.arange(count.size), count)
    k = first[rows] + (np.arange(rows.size) - np.repeat(np.cumsum(count) - count, count))
    held = (
        pd.DataFrame(
            {
                "job_id": task[0][running][rows],
                "k": k,
                "cpu": np.nan_to_num(cpu[running][rows]),
                "memory": np.nan_to_num(memory[running][rows]),
            }
        )
        .groupby(["job_id", "k"], sort=True)
        .sum()
    )
    held = held[(held.cpu > 0) | (held.memory > 0)]
    if held.empty:
        raise InvalidInputError("task_events: no task runs at any interval start")
    seg_start = origin + held.index.get_level_values(1).to_numpy() * window
    seg_end = np.minimum(seg_start + window, end_of_trace)
    return JobDemands(
        held.index.get_level_values(0).to_numpy(),
        held[["cpu", "memory"]].to_numpy(float),
        seg_start,
        seg_end,
        seg_end - seg_start,
        seg_end,
        ev.groupby("job_id").scheduling_class.max(),
        source,
    )


def task_usage_demands(
    task_usage: pd.DataFrame,
    *,
    scheduling_class: pd.Series | Mapping[object, int] | None = None,
    source: str = "synthetic",
    window: float = 300.0,
) -> JobDemands:
    """Per-window job demands from ``task_usage`` rows: per job and window, the sum of its tasks'
    mean usage.

    D_n(k) is held for the window (pro rata for partial windows). Windows with zero usage are
    skipped.

    Parameters
    ----------
    task_usage : pandas.DataFrame
        Rows with ``start_time`` and ``end_time`` (µs), ``job_id``, ``cpu_rate`` and
        ``canonical_memory`` (normalised units).
    scheduling_class : pandas.Series or mapping, optional
        job_id -> class (from task_events), with a class for every job that used something (checked
        when :func:`fairlib.sim.jobs_from_demands` builds the jobs).
    source : str, default "synthetic"
        A provenance label ("real", "synthetic", ...).
    window : float, default 300.0
        Seconds, in [10⁻⁶, 10⁹]: at least one of the trace's microsecond ticks, and short
        enough that its length in ticks is an int64.

    Returns
    -------
    JobDemands
        One segment per (job, window with usage).

    Raises
    ------
    InvalidInputError
        When ``task_usage`` is not a DataFrame or lacks a column, ``scheduling_class`` is not a
        mapping, or ``window`` is out of range.

    Examples
    --------
    >>> usage = pd.DataFrame({"start_time": [600_000_000], "end_time": [900_000_000], "job_id": [7],
    ...                       "cpu_rate": [0.25], "canonical_memory": [0.5]})
    >>> task_usage_demands(usage).demand.tolist()
    [[0.25, 0.5]]
    """
    as_instance(task_usage, pd.DataFrame, "task_usage")
    as_text(source, "source", what="a provenance label is shown text")
    need = {"start_time", "end_time", "job_id", "cpu_rate", "canonical_memory"}
    missing = need - set(task_usage.columns)
    if missing:
        raise InvalidInputError(f"task_usage: missing columns {sorted(missing)}")
    if scheduling_class is not None and not isinstance(scheduling_class, (pd.Series, Mapping)):
        raise InvalidInputError(
            f"scheduling_class = {_short(scheduling_class)}: expected a Series or mapping "
            f"job_id -> class, got {type(scheduling_class).__name__}"
        )
    u = task_usage
    # an empty field (NaN) counts as no usage, as the sums below treat it
    check_columns(u, "task_usage", ["start_time", "end_time", "cpu_rate", "canonical_memory"])
    # the trace counts microseconds in int64: a window is at least one tick, and at most 10^9 s (32
    # years, far beyond any trace) so that its length in ticks stays an int64
    window = as_number(window, "window", minimum=1e-6, inclusive=True, maximum=1e9)
    length = (u.end_time.to_numpy() - u.start_time.to_numpy()) / 1e6
    backwards = ~(length >= 0)
    if backwards.any():
        i = int(np.argmax(backwards))
        raise InvalidInputError(
            f"task_usage row {i}: end_time {u.end_time.iloc[i]} is before start_time "
            f"{u.start_time.iloc[i]}"
        )
    win = ((u.start_time.to_numpy() - 600_000_000) // int(window * 1e6)).astype(np.int64)
    frame = pd.DataFrame(
        {
            "job_id": u.job_id.to_numpy(),
            "win": win,
            "cpu": u.cpu_rate.to_numpy(float),
            "memory": u.canonical_memory.to_numpy(float),
            "length": length,
        }
    )
    g = frame.groupby(["job_id", "win"], sort=True).agg(
        cpu=("cpu", "sum"), memory=("memory", "sum"), length=("length", "max")
    )
    g = g[(g.cpu > 0) | (g.memory > 0)]
    if g.empty:
        raise InvalidInputError("task_usage: no job used anything (every window's usage is zero)")
    seg_start = (
        600.0 + g.index.get_level_values(1).to_numpy() * window
    )  # the window each demand was measured in
    held = np.minimum(g.length.to_numpy(float), window)  # partial windows pro rata
    return JobDemands(
        g.index.get_level_values(0).to_numpy(),
        g[["cpu", "memory"]].to_numpy(float),
        seg_start,
        seg_start + held,
        held,
        seg_start + window,
        scheduling_class,
        source,
    )
