"""Inputs of unusual types and shapes for the trace readers and writers, the demand builders and the
sweeps: each is read as the format documents it or refused by name (file, line and column; or the
argument and its value)."""

from __future__ import annotations

import dataclasses
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
    read_machine_meta,
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


@pytest.mark.parametrize("table", ["task_events", "job_events", "machine_events"])
def test_a_google_part_starting_with_a_byte_order_mark_is_refused_naming_line_1(tmp_path, table):
    """pandas dropped a UTF-8 BOM and read the first field's number from what follows it: a file
    re-saved by an editor passed for the trace's own, which has none."""
    rows = {
        "task_events": ROW,
        "job_events": "600000000,,3418309,0,user=,3,name=,logical=",
        "machine_events": "0,11,0,p,0.5,0.5",
    }
    probe = _google_table(table, rows[table])
    probe.write(tmp_path, [rows[table]])
    probe.read(tmp_path)  # without the mark, the row is read
    part = next((tmp_path / table).iterdir())
    part.write_bytes(gzip.compress(b"\xef\xbb\xbf" + gzip.decompress(part.read_bytes())))
    with pytest.raises(
        TraceFormatError, match=rf"{re.escape(str(part))}, line 1: starts with a UTF-8 byte order"
    ):
        probe.read(tmp_path)


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
    with pytest.raises(TraceFormatError, match=r"2\.csv': Bitbrains VM file is a directory"):
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
        with pytest.raises(
            InvalidInputError, match=r"t row 0 \(index 0\), column 'cpu' = .+: must be a number"
        ):
            check_columns(pd.DataFrame({"cpu": values}), "t", ["cpu"])
    check_columns(pd.DataFrame({"cpu": pd.array([0.5, None], dtype="Float64")}), "t", ["cpu"])
    check_columns(pd.DataFrame({"cpu": pd.Categorical([0.5])}), "t", ["cpu"])
    check_columns(pd.DataFrame({"cpu": np.array([0.5, 1], dtype=object)}), "t", ["cpu"])
    frame = pd.DataFrame(
        {"time": [0], "machine_id": [1], "platform_id": ["p"], "cpus": ["0.5"], "memory": [0.5]}
    )
    with pytest.raises(InvalidInputError, match=r"column 'cpus' = '0\.5': must be a number"):
        machine_configurations(frame)


@pytest.mark.parametrize(
    "changes, message",
    [
        (
            {"time": ["600000000", "900000000"]},
            r"row 0 .*column 'time' = '600000000': must be a number",
        ),
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


# --- spellings the formats never write, in every reader -------------------------------------------

#: texts no id, time or count of any trace is written as (data.md: digits, with a minus sign at
#: most): a float's notation, a sign or blank the parsers skip, other scripts' digits, other bases,
#: digit separators and pandas' default NA strings
FORBIDDEN_INTEGERS = [
    "1e3", "5.0", "+5", " 5", "5 ", "١", "0x10", "1_0", "NaN", "nan", "null", "NA", "N/A", "None",
]  # fmt: skip
#: texts no amount of any trace is written as: pandas' default NA strings (only an empty field is
#: missing), other scripts' digits, other bases, digit separators
FORBIDDEN_NUMBERS = [
    "NaN", "nan", "-nan", "null", "NA", "N/A", "None", "#N/A", "<NA>", "١", "0x10", "1_0",
]  # fmt: skip


@dataclasses.dataclass
class _Table:
    """A reader under test: its column names and dtypes, a good row's fields and the separator, a
    writer of a file of lines, the reader of that file and how many header lines precede them."""

    names: list
    dtypes: dict
    good: list
    sep: str
    write: object
    read: object
    header: int = 0

    def probe(self, folder, k, value):
        """Write the good row and then the good row with field ``k`` replaced by ``value``."""
        bad = list(self.good)
        bad[k] = value
        self.write(folder, [self.sep.join(self.good), self.sep.join(bad)])
        return folder


def _google_table(table, row):
    from fairlib.traces import google

    names, dtypes, total = google._TABLES[table]
    reader = {
        "task_events": lambda d: read_task_events([0], directory=d),
        "job_events": lambda d: google.read_job_events([0], directory=d),
        "machine_events": lambda d: google.read_machine_events(directory=d),
    }[table]

    def write(folder, lines):
        (folder / table).mkdir(parents=True, exist_ok=True)
        part = folder / table / f"part-00000-of-{total:05d}.csv.gz"
        part.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))

    return _Table(names, dtypes, row.split(","), ",", write, reader)


def _alibaba_table(table, row):
    from fairlib.traces import alibaba

    names, dtypes, where = {
        "machine_meta": (
            alibaba.MACHINE_META_COLUMNS, alibaba._MACHINE_META_DTYPES, "v2018/machine_meta"
        ),
        "batch_task_2017": (
            alibaba.BATCH_TASK_2017_COLUMNS, alibaba._BATCH_2017_DTYPES, "v2017/batch_task"
        ),
        "batch_task_2018": (
            alibaba.BATCH_TASK_2018_COLUMNS, alibaba._BATCH_2018_DTYPES, "v2018/batch_task"
        ),
    }[table]  # fmt: skip
    version, name = where.split("/")
    dtypes = {c: ("int64" if c in alibaba._COUNTS else t) for c, t in dtypes.items()}

    def write(folder, lines):
        path = folder / f"cluster-trace-{version}" / f"{name}.csv.gz"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))

    def reader(folder):
        if table == "machine_meta":
            return read_machine_meta(directory=folder)
        return read_batch_task(version.removeprefix("v"), directory=folder)

    return _Table(names, dtypes, row.split(","), ",", write, reader)


def _bitbrains_table():
    from fairlib.traces import BITBRAINS_COLUMNS, bitbrains

    dtypes = {
        c: "int64" if c in bitbrains._INTEGER_COLUMNS else "float64" for c in BITBRAINS_COLUMNS
    }

    def write(folder, lines):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "1.csv").write_text(
            ";\t".join(BITBRAINS_HEADER) + "\n" + "\n".join(lines) + "\n", encoding="utf-8"
        )

    return _Table(
        BITBRAINS_COLUMNS,
        dtypes,
        VM_ROW.split(";\t"),
        ";\t",
        write,
        lambda folder: read_vm(folder / "1.csv"),
        header=1,
    )


#: every reader, its column kinds taken from the reader's own declarations, so a column added to a
#: table is probed with no edit here
READERS = {
    "google task_events": lambda: _google_table("task_events", ROW),
    "google job_events": lambda: _google_table("job_events", "0,,6251812952,0,user=,1,name=,lj="),
    "google machine_events": lambda: _google_table("machine_events", "0,5,0,platform,0.5,0.5"),
    "alibaba machine_meta": lambda: _alibaba_table("machine_meta", "m_1,0,219,17,96,100,USING"),
    "alibaba batch_task 2017": lambda: _alibaba_table("batch_task_2017", BATCH_ROW),
    "alibaba batch_task 2018": lambda: _alibaba_table(
        "batch_task_2018", "M1,10,j_1,1,Terminated,157297,157325,100,0.39"
    ),
    "bitbrains vm": _bitbrains_table,
}


def _kinds(dtypes):
    integer = [c for c, t in dtypes.items() if t in ("int64", "Int64")]
    number = [c for c, t in dtypes.items() if t == "float64"]
    text = [c for c, t in dtypes.items() if t == "string"]
    return integer, number, text


def _refused_at(table, folder, column, label):
    """The reader refuses the file, naming the bad row's line and the column (by name, or by its
    header)."""
    with pytest.raises(TraceFormatError) as caught:
        table.read(folder)
    message = str(caught.value)
    line = 2 + table.header
    assert re.search(rf"(line {line}\b|:{line}:)", message), message
    assert column in message or label in message, message


@pytest.mark.parametrize("reader_name", sorted(READERS))
def test_every_reader_reads_its_good_row_and_refuses_forbidden_spellings_by_line_and_column(
    tmp_path, reader_name
):
    """The formats page (data.md): an id, time or count is digits with a minus sign at most, and
    only an empty field is missing. Each reader read ``1e3``, ``5.0`` and ``+5`` in some integer
    column (Bitbrains' timestamps and cores) and pandas' NA strings as missing in some number
    column (Alibaba's ``mem_size``, ``plan_cpu``): every integer and number column of every reader
    is fed every forbidden spelling."""
    table = READERS[reader_name]()
    integer, number, _ = _kinds(table.dtypes)
    table.write(tmp_path / "good", [table.sep.join(table.good)] * 2)
    assert len(table.read(tmp_path / "good")) == 2
    for kind, columns, spellings in (
        ("integer", integer, FORBIDDEN_INTEGERS),
        ("number", number, FORBIDDEN_NUMBERS),
    ):
        for column in columns:
            k = list(table.names).index(column)
            label = BITBRAINS_HEADER[k] if reader_name.startswith("bitbrains") else column
            for n, spelling in enumerate(spellings):
                folder = table.probe(tmp_path / f"{kind}-{column}-{n}", k, spelling)
                _refused_at(table, folder, column, label)


@pytest.mark.parametrize(
    "reader_name", sorted(name for name in READERS if not name.startswith("bitbrains"))
)
@pytest.mark.parametrize("spelling", ["NA", "NaN", "null", "None"])
def test_every_reader_reads_pandas_na_strings_in_a_text_column_as_text(
    tmp_path, reader_name, spelling
):
    """A status or name that reads ``NA`` is text (the Google reader's rule, now every reader's):
    Alibaba's batch_task read it as missing. Where a text column's own rule refuses the spelling
    (a machine_meta status is upper-case words), the refusal names the line and the column."""
    table = READERS[reader_name]()
    for column in _kinds(table.dtypes)[2]:
        folder = table.probe(tmp_path / column, list(table.names).index(column), spelling)
        if reader_name == "alibaba machine_meta" and column == "status" and not spelling.isupper():
            with pytest.raises(TraceFormatError, match=r"line 2, column status"):
                table.read(folder)
            continue
        assert table.read(folder)[column].iloc[1] == spelling, (reader_name, column)


def test_an_empty_memory_in_machine_meta_is_refused(tmp_path):
    """An empty ``mem_size`` was read as missing, and ``machines_up`` then gave a machine of NaN
    memory; an empty ``failure_domain_2`` is read as missing, as the real table holds 34."""
    table = READERS["alibaba machine_meta"]()
    for column, refused in (("mem_size", True), ("failure_domain_2", False)):
        folder = table.probe(tmp_path / column, table.names.index(column), "")
        if refused:
            with pytest.raises(TraceFormatError, match=rf"line 2, column {column} = nan: empty"):
                table.read(folder)
        else:
            assert table.read(folder)[column].isna().tolist() == [False, True]
