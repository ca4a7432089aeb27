"""Inputs of unusual types and shapes for the trace readers and writers, the demand builders and the
sweeps: each is read as the format documents it or refused by name (file, line and column; or the
argument and its value)."""

from __future__ import annotations

import gzip
import re

import numpy as np
import pandas as pd
import pytest

from fairlib._validate import InvalidInputError, check_columns
from fairlib.sweep import sweep
from fairlib.traces import (
    BITBRAINS_HEADER,
    TraceFormatError,
    bitbrains_workload,
    google_workload,
    machine_configurations,
    read_batch_task,
    read_task_events,
    read_vm,
    read_vms,
    task_event_demands,
    write_vm,
)

ROW = "600000000,,3418309,0,4155527081,0,user=,3,9,0.125,0.07446,0.0004244,0"
VM_ROW = "1376314846;\t4;\t11703.99;\t10.4;\t0.09;\t67108864;\t6129.3;\t0;\t2.1;\t0;\t0"
BATCH_ROW = "100,200,1,2,3,Terminated,100,0.5"


def _task_events(tmp_path, data: bytes):
    folder = tmp_path / "task_events"
    folder.mkdir(exist_ok=True)
    (folder / "part-00000-of-00500.csv.gz").write_bytes(gzip.compress(data))
    return tmp_path


def _row(**changes) -> str:
    from fairlib.traces import TASK_EVENT_COLUMNS

    fields = ROW.split(",")
    for name, value in changes.items():
        fields[TASK_EVENT_COLUMNS.index(name)] = value
    return ",".join(fields)


def _vm_file(tmp_path, text: str, name: str = "1.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# --- integers written as floats -------------------------------------------------------------------


@pytest.mark.parametrize(
    "changes, column, value",
    [
        ({"job_id": "1e3"}, "job_id", "1e3"),
        ({"job_id": "3418309.0"}, "job_id", r"3418309\.0"),
        ({"time": "6e8"}, "time", "6e8"),
        ({"machine_id": "1e3"}, "machine_id", "1e3"),  # a nullable integer column
        ({"missing_info": "1.0"}, "missing_info", r"1\.0"),
    ],
)
def test_an_integer_column_written_in_a_floats_notation_is_refused_naming_line_and_column(
    tmp_path, changes, column, value
):
    """pandas' integer parser reads "1e3" and "5.0" as integers: an id, time or count in a float's
    notation was accepted (it is no integer text of the trace)."""
    rows = [ROW] * 1200
    rows[999] = _row(**changes)
    folder = _task_events(tmp_path, ("\n".join(rows) + "\n").encode())
    with pytest.raises(
        TraceFormatError, match=rf"line 1000, column '{column}': '{value}' is not an integer"
    ):
        read_task_events([0], directory=folder)


def test_the_shared_check_covers_alibaba_integer_columns(tmp_path):
    path = tmp_path / "cluster-trace-v2017" / "batch_task.csv.gz"
    path.parent.mkdir()
    path.write_bytes(gzip.compress(f"{BATCH_ROW}\n{BATCH_ROW.replace(',3,', ',1e3,')}\n".encode()))
    with pytest.raises(
        TraceFormatError, match=r"line 2, column 'instance_num': '1e3' is not an integer"
    ):
        read_batch_task("2017", directory=tmp_path)


@pytest.mark.parametrize("text", ["+5", " 5", "5 "])
def test_an_integer_with_a_plus_sign_or_blanks_is_refused_the_formats_write_digits(tmp_path, text):
    """The parser would skip a plus sign or a blank; the traces write none, and neither does
    ``write_task_events``."""
    folder = _task_events(tmp_path, f"{ROW}\n{_row(job_id=text)}\n".encode())
    with pytest.raises(
        TraceFormatError, match=rf"line 2, column 'job_id': '{re.escape(text)}' is not an integer"
    ):
        read_task_events([0], directory=folder)


def test_negative_integers_in_digits_reach_the_range_checks(tmp_path):
    folder = _task_events(tmp_path, f"{ROW}\n{_row(time='-5')}\n".encode())
    with pytest.raises(TraceFormatError, match=r"line 2, column 'time'"):
        read_task_events([0], directory=folder)


# --- bytes that are no UTF-8 text -----------------------------------------------------------------


@pytest.mark.parametrize(
    "raw, what", [(b"us\x00er=", "a NUL byte"), ("usér=".encode("latin-1"), "byte 0xe9")]
)
def test_a_nul_or_non_utf8_byte_is_refused_naming_the_line(tmp_path, raw, what):
    """A NUL byte was read into the user field; a Latin-1 byte raised the decoder's bare
    UnicodeDecodeError."""
    data = (ROW + "\n").encode() + (ROW + "\n").encode().replace(b"user=", raw)
    folder = _task_events(tmp_path, data)
    with pytest.raises(TraceFormatError, match=rf"line 2: {what}"):
        read_task_events([0], directory=folder)


# --- selectors given twice ------------------------------------------------------------------------


def test_a_part_a_column_or_a_vm_given_twice_is_refused(tmp_path):
    """parts=[0, 0] read the part's rows twice, columns=["time", "time"] gave a frame with one
    column twice and vms=[1, 1] a VM's rows twice."""
    folder = _task_events(tmp_path, f"{ROW}\n".encode())
    with pytest.raises(
        InvalidInputError,
        match=r"parts: 0 is not after 0 \(part numbers are increasing, each once\)",
    ):
        read_task_events([0, 0], directory=folder)
    with pytest.raises(InvalidInputError, match=r"columns: 'time' is given more than once"):
        read_task_events([0], directory=folder, columns=["time", "time"])
    # a generator is read once: checked, then read again, it selected no column
    picked = read_task_events([0], directory=folder, columns=(c for c in ["time", "job_id"]))
    assert list(picked.columns) == ["time", "job_id"]
    with pytest.raises(InvalidInputError, match=r"columns = .*has no fixed order"):
        read_task_events([0], directory=folder, columns={"time", "job_id"})
    month = tmp_path / "rnd" / "2013-8"
    month.mkdir(parents=True)
    _vm_file(month, ";\t".join(BITBRAINS_HEADER) + "\n" + VM_ROW + "\n")
    with pytest.raises(InvalidInputError, match=r"vms: VM '1' is given more than once"):
        read_vms([1, "1"], directory=tmp_path)
    with pytest.raises(InvalidInputError, match=r"vms: '٣' is not a VM number"):
        read_vms(["٣"], directory=tmp_path)


# --- Bitbrains paths and files without rows -------------------------------------------------------


def test_read_vm_names_a_bad_path_and_a_directory(tmp_path):
    with pytest.raises(InvalidInputError, match=r"path = b'.*: expected a file path"):
        read_vm(b"/tmp/1.csv")
    with pytest.raises(InvalidInputError, match=r"path = 3: expected a file path"):
        read_vm(3)
    (tmp_path / "2.csv").mkdir()
    with pytest.raises(TraceFormatError, match=r"2\.csv: Bitbrains VM file is a directory"):
        read_vm(tmp_path / "2.csv")


def test_write_vm_refuses_what_read_vm_would_and_names_a_bad_path(tmp_path):
    frame = read_vm(_vm_file(tmp_path, ";\t".join(BITBRAINS_HEADER) + "\n" + VM_ROW + "\n"))
    with pytest.raises(InvalidInputError, match=r"path = b'.*: expected a file path"):
        write_vm(bytes(tmp_path / "w.csv"), frame)
    (tmp_path / "d.csv").mkdir()
    with pytest.raises(InvalidInputError, match=r"path = '.*d\.csv': a directory, expected a file"):
        write_vm(tmp_path / "d.csv", frame)


# --- frames handed to the builders ----------------------------------------------------------------


def _events(**changes):
    columns = {
        "time": [600_000_000, 900_000_000],
        "job_id": [7, 7],
        "task_index": [0, 0],
        "event_type": [1, 4],
        "cpu_request": [0.25, 0.25],
        "memory_request": [0.5, 0.5],
        "scheduling_class": [2, 2],
    }
    return pd.DataFrame(columns | changes)


def test_check_columns_refuses_text_of_numbers_and_booleans():
    """A column of the text "0.5" converted to floats and was read as amounts."""
    for values in (["0.5"], pd.array(["0.5"], dtype="string"), [True]):
        with pytest.raises(InvalidInputError, match=r"t, column 'cpu': must hold numbers"):
            check_columns(pd.DataFrame({"cpu": values}), "t", ["cpu"])
    check_columns(pd.DataFrame({"cpu": pd.array([0.5, None], dtype="Float64")}), "t", ["cpu"])
    check_columns(pd.DataFrame({"cpu": pd.Categorical([0.5])}), "t", ["cpu"])
    check_columns(pd.DataFrame({"cpu": np.array([0.5, 1], dtype=object)}), "t", ["cpu"])
    frame = pd.DataFrame(
        {"time": [0], "machine_id": [1], "platform_id": ["p"], "cpus": ["0.5"], "memory": [0.5]}
    )
    with pytest.raises(InvalidInputError, match=r"column 'cpus': must hold numbers"):
        machine_configurations(frame)


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"time": ["600000000", "900000000"]}, r"column 'time': must hold numbers"),
        ({"time": [600_000_000.0, np.nan]}, r"row 1 .*column 'time' = nan: must be a whole number"),
        ({"time": [600_000_000.5, 9e8]}, r"row 0 .*column 'time' = 600000000.5: must be a whole"),
        ({"cpu_request": [-0.25, 0.25]}, r"column 'cpu_request' = -0.25: must be finite and >= 0"),
    ],
)
def test_task_event_frames_with_bad_times_or_requests_are_refused_by_both_builders(
    changes, message
):
    """task_event_demands read text times, a NaN time (then 'no task runs') and negative requests;
    google_workload a time between the trace's microseconds."""
    with pytest.raises(InvalidInputError, match=message):
        task_event_demands(_events(**changes))
    with pytest.raises(InvalidInputError, match=message):
        google_workload(_events(**changes | {"event_type": [0, 4]}))


def test_task_event_demands_names_an_empty_frame_a_tiny_window_and_an_early_horizon():
    """An empty frame raised numpy's bare ValueError; a window of 1e-300 overflowed the interval
    numbers in a cast and passed the cap; a horizon before the origin said 'no task runs'."""
    with pytest.raises(InvalidInputError, match=r"task_events: no rows"):
        task_event_demands(_events().iloc[:0])
    with pytest.raises(InvalidInputError, match=r"window = 1e-300: .* MAX_TASK_INTERVALS"):
        task_event_demands(_events(), window=1e-300)
    with pytest.raises(InvalidInputError, match=r"horizon = 1.0: not after origin = 600.0"):
        task_event_demands(_events(), horizon=1.0)


def test_bitbrains_workload_names_an_active_column_that_is_not_boolean_and_an_empty_frame(tmp_path):
    """Text in ``active`` raised pandas' KeyError; an empty frame gave a workload of no users."""
    frame = read_vm(_vm_file(tmp_path, ";\t".join(BITBRAINS_HEADER) + "\n" + VM_ROW + "\n"))
    with pytest.raises(InvalidInputError, match=r"column 'active': must hold True or False"):
        bitbrains_workload(frame.assign(active=frame.active.astype(str)))
    with pytest.raises(InvalidInputError, match=r"vms: no rows"):
        bitbrains_workload(frame.iloc[:0])


# --- sweeps ---------------------------------------------------------------------------------------


def _cell(seed, x):
    return {"y": x}


@pytest.mark.parametrize(
    "grid, kwargs, message",
    [
        ({"x": []}, {}, r"grid\['x'\]: no values"),
        ([], {}, r"grid: no points"),
        ({"x": {"a", "b"}}, {}, r"grid\['x'\] = .*: a set has no fixed order"),
        ({"x": range(10**4), "z": range(10**4)}, {}, r"grid: 100,000,000 points .* MAX_CELLS"),
        ({"x": iter(int, 1)}, {}, r"grid\['x'\]: more than MAX_CELLS"),
        ({"x": [1]}, {"seeds": 10**12}, r"seeds = 1000000000000: .* more than MAX_CELLS"),
        ({"x": [1]}, {"progress": "no"}, r"progress = 'no': expected True or False"),
    ],
)
def test_sweep_refuses_empty_unordered_and_oversized_grids_by_name(grid, kwargs, message):
    """An empty grid returned an empty table; a set's order changes between interpreters; a huge
    grid, an endless generator or a huge ``seeds`` filled memory before the first cell ran."""
    with pytest.raises(InvalidInputError, match=message):
        sweep(_cell, grid, backend="serial", **{"progress": False} | kwargs)


def test_sweep_still_takes_generators_arrays_and_series_as_value_lists():
    table = sweep(_cell, {"x": (i for i in range(3))}, backend="serial", progress=False)
    assert table.y.tolist() == [0, 1, 2]
    table = sweep(_cell, {"x": pd.Series([3, 4], index=[10, 11])}, backend="serial", progress=False)
    assert table.y.tolist() == [3, 4]


@pytest.mark.parametrize(
    "text, plain",
    [
        (b"1,abc,3\n-4,x y,+5\n", False),
        (b"1,abc,3\n-4,x y,5\n", True),
        (b"1,abc,3\n4,x,5.0\n", False),
        (b"1e3,abc,3\n", False),
        (b"1,abc,\n2,abc,", True),
        (b"1,abc, 7 \r\n2,def,8\r\n", False),
        (b"1,abc,7\r\n2,def,8\r\n", True),
        (b"1," + b"z" * 300 + b",2\n3,q,0x10\n", False),
        (b"1," + b"z" * 256 + b",2\n", True),
    ],
)
def test_the_byte_precheck_of_integer_fields_agrees_with_reading_them(text, plain):
    """The vectorised look at the bytes (which lets the per-cell text check be skipped) says
    "plain" exactly when every field of the integer columns (here the first and last) holds only
    digits and minus signs, whatever the text columns hold (256 odd bytes in one included)."""
    from fairlib.traces._source import _PLAIN_INTEGER_BYTES, _integer_fields_are_plain

    names, integer = ["a", "text", "b"], ["a", "b"]
    lines = [line.rstrip(b"\r").split(b",") for line in text.split(b"\n") if line]
    slow = all(set(row[k]) <= _PLAIN_INTEGER_BYTES for row in lines for k in (0, 2))
    assert slow == plain
    assert _integer_fields_are_plain(text, names, integer) == plain
