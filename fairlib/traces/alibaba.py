"""Alibaba cluster traces: v2018 ``machine_meta`` and ``batch_task``, v2017 ``batch_task``
(SCHEMAS.md §5), and one instant of a cell (:func:`machines_up`, :func:`tasks_present`).

Units as in the files: CPU counts in cores for machines and in hundredths of a core for tasks
(``plan_cpu`` 100 = 1 core); memory normalised (v2018: 0-100; v2017: a fraction); times in seconds
from the trace start (0 = outside the window). v2018 files are headerless; the shared v2017
``batch_task`` excerpt carries a header line (added by its source repository), which is recognised
and skipped.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from .._validate import InvalidInputError, as_instance, as_number, check_columns
from ._source import (
    TraceFormatError,
    check_exact_numbers,
    check_field_counts,
    _check_integer_text,
    check_order,
    check_values,
    locate_bad_number,
    missing_hint,
    read_csv_text,
    read_bytes,
    trace_folder,
)

__all__ = [
    "MACHINE_META_COLUMNS",
    "BATCH_TASK_2018_COLUMNS",
    "BATCH_TASK_2017_COLUMNS",
    "alibaba_dir",
    "read_machine_meta",
    "read_batch_task",
    "machines_up",
    "tasks_present",
]

MACHINE_META_COLUMNS = [
    "machine_id",
    "time",
    "failure_domain_1",
    "failure_domain_2",
    "cpu_num",
    "mem_size",
    "status",
]
_MACHINE_META_DTYPES = {
    "machine_id": "string",
    "time": "int64",
    "failure_domain_1": "int64",
    "failure_domain_2": "string",
    "cpu_num": "float64",
    "mem_size": "float64",
    "status": "string",
}
BATCH_TASK_2018_COLUMNS = [
    "task_name",
    "instance_num",
    "job_name",
    "task_type",
    "status",
    "start_time",
    "end_time",
    "plan_cpu",
    "plan_mem",
]
_BATCH_2018_DTYPES = {
    "task_name": "string",
    "instance_num": "Int64",
    "job_name": "string",
    "task_type": "string",
    "status": "string",
    "start_time": "int64",
    "end_time": "int64",
    "plan_cpu": "float64",
    "plan_mem": "float64",
}
BATCH_TASK_2017_COLUMNS = [
    "create_time",
    "end_time",
    "job_id",
    "task_id",
    "instance_num",
    "status",
    "plan_cpu",
    "plan_mem",
]
_BATCH_2017_DTYPES = {
    "create_time": "int64",
    "end_time": "int64",
    "job_id": "int64",
    "task_id": "int64",
    "instance_num": "int64",
    "status": "string",
    "plan_cpu": "float64",
    "plan_mem": "float64",
}
_V2017_HEADER_START = "task_create_time"


def alibaba_dir(directory: os.PathLike[str] | str | None = None) -> Path:
    """The Alibaba folder: ``directory``, else the first ``alibaba_clusterdata`` over
    :func:`fairlib.paths.trace_dirs`.

    Parameters
    ----------
    directory : str or os.PathLike, optional
        An explicit folder, used as it is.

    Returns
    -------
    pathlib.Path
        The folder (:func:`fairlib.traces._source.trace_folder`).

    Raises
    ------
    InvalidInputError
        When ``directory`` is neither a string nor a path, is blank, starts with ``~``, is a
        ``PurePath`` of another system's flavour, or names an entry other than a directory.
    """
    return trace_folder("alibaba_clusterdata", directory)


#: amounts, counts and v2018 machine_meta's times: finite and >= 0 where present (v2017's times are
#: not checked: its excerpt has negative create and end times, e.g. -55, for tasks that ended before
#: the window)
_NONNEGATIVE = ["cpu_num", "mem_size", "instance_num", "plan_cpu", "plan_mem", "time"]


#: the counts read as floats (a whole number checked after the read, with its own message) whose
#: text is still an integer's: a machine's CPU count is written ``96``, never ``96.0`` or ``+96``
_COUNTS = ("cpu_num",)


#: an end this many seconds before its start is accepted: the v2017 excerpt holds a task that ends 1
#: s before it was created (the trace's times are whole seconds); any earlier end is refused
_END_SLACK_S = 1


def _read(
    path: Path,
    names: list[str],
    dtypes: dict[str, str],
    what: str,
    order: tuple[str, str] | None = None,
) -> pd.DataFrame:
    """One Alibaba table, strictly; ``order``: its (start, end) columns, an end no earlier than its
    start (less :data:`_END_SLACK_S`; an end of 0 is not checked: the task had not ended within the
    window)."""
    data = read_bytes(path, f"Alibaba {what}", missing_hint("alibaba_clusterdata"))
    first = data.split(b"\n", 1)[0].decode("utf-8", "replace")
    skip = 1 if first.replace(" ", "").startswith(_V2017_HEADER_START) else 0
    body = data.split(b"\n", 1)[1] if skip else data
    if not body.strip():
        raise TraceFormatError(f"{path}: Alibaba {what} has a header but no rows")
    check_field_counts(body, path, len(names), first_line=1 + skip)
    _check_integer_text(
        body,
        path,
        names,
        [c for c, t in dtypes.items() if t in ("int64", "Int64") or c in _COUNTS],
        1 + skip,
    )
    try:
        # an empty field is the only missing value (a plan left out): "NaN" or "null" in a number
        # column is no number, "NA" in a status is text
        df = read_csv_text(body, names, dtypes, skipinitialspace=True)
    # pandas: OverflowError for an id beyond int64, TypeError for 1.5 in a nullable integer column
    except (ValueError, TypeError, OverflowError, pd.errors.ParserError) as exc:
        locate_bad_number(
            body,
            path,
            names,
            [c for c, t in dtypes.items() if t != "string"],
            [c for c, t in dtypes.items() if t == "int64"],
            first_line=1 + skip,
            integer=[c for c, t in dtypes.items() if t == "Int64"],
        )
        raise TraceFormatError(f"{path}: {exc}") from None
    check_values(df, path, [c for c in _NONNEGATIVE if c in df], first_line=1 + skip)
    check_exact_numbers(
        df,
        body,
        path,
        names,
        [c for c, t in dtypes.items() if t == "float64"],
        first_line=1 + skip,
        skipinitialspace=True,
    )
    if order is not None:
        check_order(df, path, *order, first_line=1 + skip, slack=_END_SLACK_S)
    return df


def read_machine_meta(*, directory: os.PathLike[str] | str | None = None) -> pd.DataFrame:
    """v2018 ``machine_meta``: one row per machine event.

    Parameters
    ----------
    directory : str or os.PathLike, optional
        The trace folder (default :func:`alibaba_dir`).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`MACHINE_META_COLUMNS`: CPU counts in cores, memory normalised 0-100, times in
        seconds from the trace start.

    Raises
    ------
    FileNotFoundError
        When the file is not there, saying where the reader looked and how to fetch the data.
    TraceFormatError
        When the file is a directory, truncated, corrupt or empty, a line has the wrong number of
        fields, or a value is not a number (pandas' NA strings such as ``NaN`` and ``null`` are
        not) or an integer float64 cannot hold exactly, missing where required or negative, a time
        or CPU count is not written in digits, a row names no machine or no memory, a memory is
        above 100 or a status is not written in upper case (e.g. ``USING``), naming the file, line
        and column.
    """
    path = alibaba_dir(directory) / "cluster-trace-v2018" / "machine_meta.csv.gz"
    df = _read(path, MACHINE_META_COLUMNS, _MACHINE_META_DTYPES, "v2018 machine_meta")
    _check_machine_meta(df, path)
    return df


#: what a v2018 machine_meta status is written as: upper-case words joined by "_" (the excerpt holds
#: USING and IMPORT_INSTALLING); :func:`machines_up` counts the machines whose last row is USING
_STATUS = r"[A-Z]+(?:_[A-Z]+)*"


def _check_machine_meta(df: pd.DataFrame, path: Path) -> None:
    """The rules docs/data.md states for v2018 machine_meta that a number's format does not carry:
    every row names its machine, a machine has a whole number of cores >= 1 and a memory, memory is
    normalised to at most 100, and a status is written as the
    trace writes it (:data:`_STATUS`); the first offence is named with its line (headerless file:
    row ``i`` is line ``i + 1``)."""
    rules = (
        ("machine_id", df["machine_id"].isna(), "empty: every row names its machine"),
        (
            "cpu_num",
            df["cpu_num"].isna() | (df["cpu_num"] < 1) | (df["cpu_num"] % 1 != 0),
            "not a whole number of cores >= 1: a machine has cores",
        ),
        ("mem_size", df["mem_size"].isna(), "empty: every machine has a memory"),
        ("mem_size", df["mem_size"] > 100, "above 100: memory is normalised 0-100"),
        (
            "status",
            df["status"].isna() | ~df["status"].fillna("").str.fullmatch(_STATUS),
            "not a status as the trace writes it (upper-case words joined by _, e.g. USING)",
        ),
    )
    for column, bad, why in rules:
        bad = np.asarray(bad, dtype=bool)
        if bad.any():
            i = int(np.argmax(bad))
            value = df[column].iloc[i]
            value = (
                value.item() if isinstance(value, np.generic) else value
            )  # 150.0, not np.float64
            raise TraceFormatError(f"{path}: line {i + 1}, column {column} = {value!r}: {why}")


def read_batch_task(
    version: str = "2017", *, directory: os.PathLike[str] | str | None = None
) -> pd.DataFrame:
    """``batch_task`` of v2017 or v2018.

    Only v2017's is in the shared excerpt; v2018's is read when placed at
    ``cluster-trace-v2018/batch_task.csv.gz`` (e.g. by the fetch command).

    Parameters
    ----------
    version : {"2017", "2018"}, default "2017"
        Which trace.
    directory : str or os.PathLike, optional
        The trace folder (default :func:`alibaba_dir`).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`BATCH_TASK_2017_COLUMNS` or :data:`BATCH_TASK_2018_COLUMNS`: CPU in
        hundredths of a core (``plan_cpu`` 100 = 1 core), memory normalised (v2018: 0-100; v2017: a
        fraction), times in seconds from the trace start (0 = outside the window).

    Raises
    ------
    FileNotFoundError
        When the file is not there, saying where the reader looked and how to fetch the data.
    TraceFormatError
        When the file is a directory, truncated, corrupt or empty, a line has the wrong number of
        fields, or a value is not a number (only an empty plan is missing: ``NaN`` and ``null`` are
        refused) or an integer float64 cannot hold exactly, missing where required or negative, or
        an id, time or count is not written in digits, naming the file, line and column.
    InvalidInputError
        When ``version`` is neither ``"2017"`` nor ``"2018"``.
    """
    if version == "2017":
        return _read(
            alibaba_dir(directory) / "cluster-trace-v2017" / "batch_task.csv.gz",
            BATCH_TASK_2017_COLUMNS,
            _BATCH_2017_DTYPES,
            "v2017 batch_task",
            ("create_time", "end_time"),
        )
    if version == "2018":
        return _read(
            alibaba_dir(directory) / "cluster-trace-v2018" / "batch_task.csv.gz",
            BATCH_TASK_2018_COLUMNS,
            _BATCH_2018_DTYPES,
            "v2018 batch_task",
            ("start_time", "end_time"),
        )
    raise InvalidInputError(f"version = {version!r}: must be '2017' or '2018'")


def machines_up(machine_meta: pd.DataFrame, at_s: float) -> np.ndarray:
    """Capacities ``[machine, (cores, memory)]`` of the machines up at trace time ``at_s`` seconds.

    A machine is up when its last ``machine_meta`` row at or before ``at_s`` has status ``USING``;
    its capacities are that row's: CPU in cores, memory as ``mem_size / 100`` (v2018 normalises
    memory to 0-100; 1.0 is the largest machine's memory). Machines in the order of their
    identifiers.

    Parameters
    ----------
    machine_meta : pandas.DataFrame
        Rows of :func:`read_machine_meta` (columns ``machine_id``, ``time``, ``cpu_num``,
        ``mem_size``, ``status``).
    at_s : float
        Trace time in seconds (>= 0).

    Returns
    -------
    numpy.ndarray
        ``(machines, 2)`` float64 capacities.

    Raises
    ------
    InvalidInputError
        When ``machine_meta`` is not a DataFrame or lacks a column, ``at_s`` is not a finite number
        >= 0, or a column breaks the rules :func:`read_machine_meta` applies (docs/data.md): a
        ``time`` that is not a present whole number, a ``cpu_num`` that is not a whole number >= 1,
        a ``mem_size`` missing, negative or above 100, a ``machine_id`` or ``status`` that is not
        text — naming the column, the row and the value.

    Examples
    --------
    >>> meta = pd.DataFrame({"machine_id": ["m_1", "m_2", "m_1"], "time": [0, 0, 50],
    ...                      "cpu_num": [96.0, 64.0, 96.0], "mem_size": [100.0, 50.0, 100.0],
    ...                      "status": ["USING", "USING", "IMPORT_INSTALLING"]})
    >>> machines_up(meta, 10).tolist(), machines_up(meta, 60).tolist()
    ([[96.0, 1.0], [64.0, 0.5]], [[64.0, 0.5]])
    """
    meta = as_instance(machine_meta, pd.DataFrame, "machine_meta")
    missing = {"machine_id", "time", "cpu_num", "mem_size", "status"} - set(meta.columns)
    if missing:
        raise InvalidInputError(f"machine_meta: missing columns {sorted(missing)}")
    at_s = as_number(at_s, "at_s", inclusive=True)
    # the rules read_machine_meta applies to the file, for a frame built or edited by hand: a
    # negative core count or a NaN memory would become a capacity, a machine without an id would be
    # dropped by the grouping
    check_columns(meta, "machine_meta", ["time"], whole=True, allow_missing=False)
    check_columns(meta, "machine_meta", ["cpu_num"], sign="> 0", whole=True, allow_missing=False)
    check_columns(meta, "machine_meta", ["mem_size"], maximum=100.0, allow_missing=False)
    _check_text_columns(meta, "machine_meta", ["machine_id", "status"])
    seen = meta[meta.time <= at_s].sort_values(["machine_id", "time"], kind="stable")
    last = seen.groupby("machine_id", sort=True).tail(1)
    up = last[last.status == "USING"]
    return np.column_stack(
        [up.cpu_num.to_numpy(float), up.mem_size.to_numpy(float) / 100.0]
    ).reshape(-1, 2)


def _check_text_columns(frame: pd.DataFrame, name: str, columns: list[str]) -> None:
    """Each of ``columns`` holds text in every row: a missing or non-text value is refused naming
    the table, the row and the column."""
    for col in columns:
        text = frame[col].map(lambda v: isinstance(v, str), na_action=None).to_numpy(dtype=bool)
        if not text.all():
            k = int(np.argmin(text))
            value, label = frame[col].iloc[k], frame.index[k]
            label = label.item() if isinstance(label, np.generic) else label
            raise InvalidInputError(
                f"{name} row {k} (index {label!r}), column {col!r} = {value!r}: must be text (an "
                "id or status, as read_machine_meta reads it)"
            )


def tasks_present(batch_task: pd.DataFrame, at_s: float) -> pd.DataFrame:
    """The batch tasks present at trace time ``at_s`` seconds: created (v2017) or started (v2018) at
    or before it and ending after it. A task is a group of identical instances, so it is one user
    with a per-instance demand and a cap of its instance count.

    Parameters
    ----------
    batch_task : pandas.DataFrame
        Rows of :func:`read_batch_task` (v2017 or v2018 columns).
    at_s : float
        Trace time in seconds (>= 0).

    Returns
    -------
    pandas.DataFrame
        One row per task: ``job``, ``task``, ``instances``, ``cpu`` (cores per instance, ``plan_cpu
        / 100``), ``memory`` (per instance, normalised as the machines' memory: v2017's fraction as
        it is, v2018's 0-100 divided by 100). ``attrs["skipped"]`` counts the present tasks left
        out: without a plan (empty ``plan_cpu`` or ``plan_mem``), or with a zero plan or no
        instance.

    Raises
    ------
    InvalidInputError
        When ``batch_task`` is not a DataFrame with the v2017 or v2018 columns, ``at_s`` is not a
        finite number >= 0, or a column breaks the rules :func:`read_batch_task` applies
        (docs/data.md): a start or end time that is not a present whole number, an
        ``instance_num`` that is not a whole number >= 0, a ``plan_cpu`` or ``plan_mem`` that is
        negative or infinite (an empty one is a task without a plan) — naming the column, the row
        and the value.

    Examples
    --------
    >>> batch = pd.DataFrame(
    ...     {
    ...         "create_time": [0, 5, 20],
    ...         "end_time": [30, 40, 50],
    ...         "job_id": [1, 1, 2],
    ...         "task_id": [1, 2, 3],
    ...         "instance_num": [4, 2, 1],
    ...         "status": ["Terminated"] * 3,
    ...         "plan_cpu": [50.0, None, 100.0],
    ...         "plan_mem": [0.01, None, 0.02],
    ...     }
    ... )
    >>> present = tasks_present(batch, 10)
    >>> present.instances.tolist(), present.cpu.tolist(), present.attrs["skipped"]
    ([4], [0.5], {'without a plan': 1, 'with a zero plan or no instance': 0})
    """
    batch = as_instance(batch_task, pd.DataFrame, "batch_task")
    at_s = as_number(at_s, "at_s", inclusive=True)
    if set(BATCH_TASK_2017_COLUMNS) <= set(batch.columns):
        begin, job, task, memory_scale = "create_time", "job_id", "task_id", 1.0
    elif set(BATCH_TASK_2018_COLUMNS) <= set(batch.columns):
        begin, job, task, memory_scale = "start_time", "job_name", "task_name", 100.0
    else:
        raise InvalidInputError(
            f"batch_task: expected the v2017 or v2018 columns of read_batch_task, got "
            f"{list(batch.columns)}"
        )
    # the rules read_batch_task applies to the file, for a frame built or edited by hand: a
    # negative plan would become a negative demand, 2.7 instances would be cut to 2
    check_columns(
        batch, "batch_task", [begin, "end_time"], sign=None, whole=True, allow_missing=False
    )
    check_columns(batch, "batch_task", ["instance_num"], whole=True)
    check_columns(batch, "batch_task", ["plan_cpu", "plan_mem"])
    present = batch[(batch[begin] <= at_s) & (batch.end_time > at_s)]
    planned = present.plan_cpu.notna() & present.plan_mem.notna()
    out = pd.DataFrame(
        {
            "job": present[job].to_numpy(),
            "task": present[task].to_numpy(),
            "instances": present.instance_num.fillna(0).to_numpy(np.int64),
            "cpu": present.plan_cpu.to_numpy(float) / 100.0,
            "memory": present.plan_mem.to_numpy(float) / memory_scale,
        }
    )[planned.to_numpy()]
    usable = ((out.cpu > 0) | (out.memory > 0)) & (out.instances > 0)
    out = out[usable.to_numpy()].reset_index(drop=True)
    out.attrs["skipped"] = {
        "without a plan": int((~planned).sum()),
        "with a zero plan or no instance": int((~usable).sum()),
    }
    return out
