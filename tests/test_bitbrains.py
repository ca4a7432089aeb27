"""Bitbrains GWA-T-12 reader: round trip through the real format, format errors, and the real
excerpt."""

import gzip

import numpy as np
import pandas as pd
import pytest

from fairlib._validate import InvalidInputError
from fairlib.traces import (
    BITBRAINS_COLUMNS,
    TraceFormatError,
    iter_vms,
    read_vm,
    read_vms,
    write_vm,
)
from tests.realdata import real_traces

REAL, real = real_traces("bitbrains_gwa_t12", needs="rnd/2013-8/1.csv.gz")


def _frame(n=5, seed=0):
    rng = np.random.default_rng(seed)
    f = pd.DataFrame({c: rng.uniform(0, 100, n) for c in BITBRAINS_COLUMNS})
    f["time"] = 1375308176 + 300 * np.arange(n)
    f["cpu_cores"] = 2.0
    f.loc[1, ["cpu_cores", "memory_capacity_kb"]] = 0.0  # a powered-off sample
    return f


def test_round_trip_in_the_real_format(tmp_path):
    f = _frame()
    path = write_vm(tmp_path / "rnd" / "2013-8" / "7.csv.gz", f)
    text = gzip.open(path, "rt").read()
    assert text.startswith("Timestamp [ms];\tCPU cores;\t") and ";\t" in text.splitlines()[1]
    back = read_vm(path)
    np.testing.assert_allclose(
        back[BITBRAINS_COLUMNS].to_numpy(dtype=float), f[BITBRAINS_COLUMNS].to_numpy(dtype=float)
    )
    assert back.time.dtype == np.int64 and back.vm.unique().tolist() == ["7"]
    assert back.active.tolist() == [True, False, True, True, True]  # kept and flagged, not dropped
    write_vm(tmp_path / "rnd" / "2013-8" / "12.csv.gz", _frame(seed=1))
    assert [v.vm[0] for v in iter_vms(directory=tmp_path)] == ["7", "12"]
    assert len(read_vms([12, 7], directory=tmp_path)) == 10


def _write_text(path, text):
    with gzip.open(path, "wt") as f:
        f.write(text)
    return path


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda lines: ["Timestamp;CPU"] + lines[1:], r"x\.csv\.gz:1: header"),
        (
            lambda lines: lines[:3] + [lines[3] + ";\t5"] + lines[4:],
            r"x\.csv\.gz:4: 12 fields, expected 11",
        ),
        (
            lambda lines: (
                lines[:2]
                + [";".join([lines[2].split(";")[0], "\ttwo"] + lines[2].split(";")[2:])]
                + lines[3:]
            ),
            r"x\.csv\.gz:3: CPU cores = 'two'",
        ),
        (lambda lines: lines[:2] + [""] + lines[2:], r"x\.csv\.gz:3: empty line"),
        (
            lambda lines: (
                lines[:2]
                + [";".join([lines[2].split(";")[0], "\t-4"] + lines[2].split(";")[2:])]
                + lines[3:]
            ),
            r"x\.csv\.gz:3: CPU cores = '-4' must be finite and >= 0",
        ),
        (
            lambda lines: (
                lines[:2]
                + [";".join(lines[2].split(";")[:3] + ["\tinf"] + lines[2].split(";")[4:])]
                + lines[3:]
            ),
            r"x\.csv\.gz:3: CPU usage \[MHZ\] = 'inf' must be finite and >= 0",
        ),
        (
            lambda lines: lines[:3] + [";".join(lines[3].split(";")[:-1])] + lines[4:],
            r"x\.csv\.gz:4: 10 fields, expected 11",
        ),
    ],
)
def test_format_errors_name_file_and_line(tmp_path, edit, message):
    good = gzip.open(write_vm(tmp_path / "good.csv.gz", _frame()), "rt").read().splitlines()
    path = _write_text(tmp_path / "x.csv.gz", "\n".join(edit(good)) + "\n")
    with pytest.raises(TraceFormatError, match=message):
        read_vm(path)


def test_truncated_gzip_and_missing_files(tmp_path):
    data = gzip.compress(("\n".join(["x"] * 1000)).encode())
    (tmp_path / "cut.csv.gz").write_bytes(data[: len(data) // 2])
    with pytest.raises(TraceFormatError, match=r"cut\.csv\.gz: truncated or corrupt"):
        read_vm(tmp_path / "cut.csv.gz")
    with pytest.raises(FileNotFoundError, match="Bitbrains VM 3 not found"):
        read_vms([3], directory=tmp_path)
    with pytest.raises(FileNotFoundError, match="no Bitbrains VM files"):
        read_vms(directory=tmp_path)


@pytest.mark.realdata
@real
def test_real_excerpt():
    vm = read_vm(REAL / "rnd" / "2013-8" / "1.csv.gz")
    gaps = np.diff(vm.time.to_numpy())
    assert 8000 < len(vm) < 9000 and np.median(gaps) == 300  # 5-minute samples, ~30 days
    start = pd.to_datetime(vm.time.iloc[0], unit="s")  # Unix seconds despite "[ms]"
    assert (start.year, start.month) in ((2013, 7), (2013, 8))
    assert vm.active.mean() > 0.5


def test_synthetic_bitbrains_is_read_back_labelled_and_calibrated(tmp_path):
    from fairlib.traces import synthetic_bitbrains

    folder = synthetic_bitbrains(tmp_path / "bb", 120, rng=5, days=2)
    frame = read_vms(directory=tmp_path / "bb")
    assert (
        frame.attrs["source"] == "synthetic"
        and frame.vm.nunique() == 120
        and len(frame) == 120 * 576
    )
    per_vm = frame.groupby("vm").agg(
        cores=("cpu_cores", "first"),
        cpu=("cpu_usage_pct", "mean"),
        mem=("memory_capacity_kb", "first"),
    )
    assert set(per_vm.cores.unique()) <= {1, 2, 4, 6, 8, 16, 32}
    # SCHEMAS.md §4.2: 78 % of VMs average under 5 % CPU, median provisioned memory 3.87 GB
    assert 0.6 < (per_vm.cpu < 5).mean() < 0.95
    assert 1.0 < per_vm.mem.median() / 1024**2 < 10.0
    again = synthetic_bitbrains(tmp_path / "bb2", 3, rng=5, days=2)
    assert (folder / "1.csv.gz").read_bytes() == (again / "1.csv.gz").read_bytes()  # deterministic
    assert read_vm(again / "2.csv.gz").attrs["source"] == "synthetic"
    assert read_vm(write_vm(tmp_path / "plain" / "1.csv.gz", _frame())).attrs["source"] == "real"


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"vms": "x"}, r"vms = 'x': must be a list of VM numbers"),
        ({"vms": np.ones((2, 2))}, r"vms: array\(\[1\., 1\.\]\) is not a VM number"),
        ({"vms": [1.0]}, r"vms: 1\.0 is not a VM number"),
        ({"vms": [0]}, r"vms: 0 is not a VM number"),
        ({"vms": ["../x"]}, r"vms: '\.\./x' is not a VM number"),
        ({"vms": []}, r"vms: no VM numbers given"),
        ({"month": None}, r"month = None: must be one of \['2013-7', '2013-8', '2013-9'\]"),
        ({"month": "no-such-choice"}, r"month = 'no-such-choice'"),
        ({"month": ["x"]}, r"month = \['x'\]"),
    ],
)
@pytest.mark.parametrize("reader", [iter_vms, read_vms])
def test_vm_readers_refuse_bad_arguments_by_name_before_reading(tmp_path, reader, kwargs, message):
    with pytest.raises(InvalidInputError, match=message):
        reader(directory=tmp_path, **kwargs)  # iter_vms too: when called, not at the first frame


def test_vms_may_be_named_as_the_vm_column_holds_them(tmp_path):
    write_vm(tmp_path / "rnd" / "2013-8" / "7.csv.gz", _frame())
    assert read_vms(["7"], directory=tmp_path).vm.unique().tolist() == ["7"]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"n_vms": True}, r"n_vms = True: must be an integer >= 1"),
        ({"n_vms": 10**20}, r"n_vms = 100000000000000000000: must be an integer >= 1 and <= "),
        ({"rng": "abc"}, r"rng = 'abc'"),
        ({"month": "no-such-choice"}, r"month = 'no-such-choice': must be one of"),
        ({"days": float("inf")}, r"days = inf: must be a finite number > 0"),
        ({"days": [1.0]}, r"days = \[1\.0\]: must be a finite number > 0"),
        ({"start": -1}, r"start = -1: must be an integer >= 0"),
        ({"start": 2.5}, r"start = 2\.5: must be an integer >= 0"),
        (
            {"start": 10**20},
            r"start = 100000000000000000000: must be an integer >= 0 and <= 9007199254740992",
        ),
    ],
)
def test_synthetic_bitbrains_refuses_each_bad_argument_by_name(tmp_path, kwargs, message):
    from fairlib.traces import synthetic_bitbrains

    with pytest.raises(InvalidInputError, match=message):
        synthetic_bitbrains(tmp_path / "bb", **kwargs)
    assert not (tmp_path / "bb").exists()


# --- the writer writes only what the reader reads back --------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from fairlib.traces.bitbrains import MAX_TIMESTAMP  # noqa: E402

_AMOUNT = st.floats(min_value=0.0, max_value=1e300, allow_nan=False, allow_infinity=False)


@st.composite
def _vm_frames(draw):
    """Any frame read_vm accepts: times whole seconds in [0, 2^53], whole core counts, finite
    amounts >= 0 (subnormals, zeros and powered-off rows included)."""
    n = draw(st.integers(0, 6))
    frame = {
        "time": draw(st.lists(st.integers(0, MAX_TIMESTAMP), min_size=n, max_size=n)),
        "cpu_cores": draw(st.lists(st.integers(0, 2**53).map(float), min_size=n, max_size=n)),
    }
    for name in BITBRAINS_COLUMNS[2:]:
        frame[name] = draw(st.lists(_AMOUNT, min_size=n, max_size=n))
    return pd.DataFrame(frame).astype({"time": np.int64, "cpu_cores": np.float64})


@settings(max_examples=60, deadline=None)
@given(frame=_vm_frames(), gz=st.booleans())
def test_what_write_vm_writes_read_vm_reads_back_unchanged(tmp_path_factory, frame, gz):
    path = write_vm(tmp_path_factory.mktemp("vm") / ("9.csv.gz" if gz else "9.csv"), frame)
    back = read_vm(path)
    assert len(back) == len(frame)
    assert back.time.tolist() == frame.time.tolist()
    for name in BITBRAINS_COLUMNS[1:]:
        assert back[name].tolist() == frame[name].tolist(), name  # bit for bit, not approximately
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left


@pytest.mark.parametrize(
    "column, value, message",
    [
        (
            "time",
            1375308176.5,
            r"frame\['time'\]\[2\] = 1375308176\.5: must be a whole number of seconds",
        ),
        (
            "time",
            2.0**63,
            r"frame\['time'\]\[2\] = 9\.2\d+e\+18: must be a whole number of seconds in",
        ),
        ("time", -300.0, r"frame\['time'\]\[2\] = -300\.0: must be a whole number"),
        ("cpu_cores", 2.5, r"frame\['cpu_cores'\]\[2\] = 2\.5: must be a whole number >= 0"),
        (
            "cpu_usage_mhz",
            np.nan,
            r"frame\['cpu_usage_mhz'\]\[2\] = nan: must be a finite number >= 0",
        ),
        ("net_tx_kbps", -1.0, r"frame\['net_tx_kbps'\]\[2\] = -1\.0: must be a finite number >= 0"),
        ("disk_read_kbps", np.inf, r"frame\['disk_read_kbps'\]\[2\] = inf: must be a finite"),
        ("cpu_usage_pct", "7", r"frame\['cpu_usage_pct'\]: dtype object is not real numbers"),
        # complex numbers are not numbers: the float cast would drop the imaginary part
        ("cpu_usage_mhz", 1 + 5j, r"frame\['cpu_usage_mhz'\]: dtype complex128 is not real"),
        ("time", 1 + 0j, r"frame\['time'\]: dtype complex128 is not real numbers"),
    ],
)
def test_write_vm_refuses_what_read_vm_refuses_and_writes_nothing(tmp_path, column, value, message):
    """It truncated fractional times and cores (int()) and wrote NaN, negative and infinite values
    that read_vm then refused; now it refuses them, naming the column, the row and the value, and
    leaves no file behind."""
    frame = _frame()
    kind = object if isinstance(value, str) else complex if isinstance(value, complex) else float
    frame[column] = frame[column].astype(kind)
    frame.loc[2, column] = value
    for name in ("x.csv.gz", "x.csv"):
        with pytest.raises(InvalidInputError, match=message):
            write_vm(tmp_path / name, frame)
    assert list(tmp_path.iterdir()) == []


def test_write_vm_shows_an_integer_time_exactly_and_writes_integers_as_given(tmp_path):
    """An int64 time of 2^53 + 1 was shown rounded to a float (2^53, inside the range the message
    states); it is shown as given. An integer core count past 2^53, which read_vm would read back
    as the float nearest it, is refused, shown as given, and nothing is written."""
    frame = _frame()
    frame["time"] = frame["time"].astype(np.int64)
    frame.loc[2, "time"] = 2**53 + 1
    with pytest.raises(InvalidInputError, match=r"frame\['time'\]\[2\] = 9007199254740993: must"):
        write_vm(tmp_path / "x.csv", frame)
    assert list(tmp_path.iterdir()) == []
    frame = _frame()
    frame["cpu_cores"] = frame["cpu_cores"].astype(np.int64)
    frame.loc[2, "cpu_cores"] = 2**53 + 1
    with pytest.raises(
        InvalidInputError, match=r"frame\['cpu_cores'\]\[2\] = 9007199254740993: an integer beyond"
    ):
        write_vm(tmp_path / "x.csv", frame)
    assert list(tmp_path.iterdir()) == []


def test_read_vm_says_what_is_at_a_path_that_is_no_file(tmp_path):
    """/dev/null was "not found"; a missing file's message names the argument and the path."""
    import os

    with pytest.raises(TraceFormatError, match=r"path = '/dev/null': .* is a character device"):
        read_vm("/dev/null")
    os.mkfifo(tmp_path / "pipe.csv")  # a read would wait for a writer
    with pytest.raises(TraceFormatError, match=r"pipe\.csv': .* is a named pipe"):
        read_vm(tmp_path / "pipe.csv")
    with pytest.raises(TraceFormatError, match=r"is a directory, not a file"):
        read_vm(tmp_path)
    with pytest.raises(
        FileNotFoundError, match=r"path = '.*nope\.csv': Bitbrains VM file not found"
    ):
        read_vm(tmp_path / "nope.csv")
    (tmp_path / "loop.csv").symlink_to(tmp_path / "loop.csv")
    with pytest.raises(InvalidInputError, match=r"path = .*loop\.csv': a symlink loop"):
        read_vm(tmp_path / "loop.csv")
    # the Google and Alibaba readers' files, by the same check
    from pathlib import Path

    from fairlib.traces._source import read_bytes

    with pytest.raises(TraceFormatError, match=r"^/dev/null: task_events part 0 is a character"):
        read_bytes(Path("/dev/null"), "task_events part 0", "hint")


def test_a_file_that_fails_to_write_leaves_the_old_one_whole(tmp_path, monkeypatch):
    """Written beside the target, then renamed: an error half-way leaves the previous file as it
    was."""
    path = write_vm(tmp_path / "x.csv.gz", _frame())
    before = path.read_bytes()

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr("gzip.GzipFile.write", broken)
    with pytest.raises(OSError, match="disk full"):
        write_vm(path, _frame(seed=3))
    assert path.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["x.csv.gz"]


@pytest.mark.parametrize(
    "field, value, message",
    [
        (1, "2.5", r"x\.csv\.gz:3: CPU cores = '2\.5' is not a whole number"),
        (
            0,
            "12345678901234567890",
            r"x\.csv\.gz:3: Timestamp \[ms\] = '12345678901234567890' is beyond",
        ),
        (
            0,
            "1375308176.5",
            r"x\.csv\.gz:3: Timestamp \[ms\] = '1375308176\.5' is not a whole number",
        ),
    ],
)
def test_read_vm_refuses_fractional_cores_and_timestamps_beyond_int64(
    tmp_path, field, value, message
):
    """A 20-digit timestamp wrapped around int64 into a negative time; fractional cores were read as
    they came."""
    good = gzip.open(write_vm(tmp_path / "good.csv.gz", _frame()), "rt").read().splitlines()
    fields = good[2].split(";")
    fields[field] = ("\t" if field else "") + value
    good[2] = ";".join(fields)
    path = _write_text(tmp_path / "x.csv.gz", "\n".join(good) + "\n")
    with pytest.raises(TraceFormatError, match=message):
        read_vm(path)


@pytest.mark.parametrize("reader", [False, True])
def test_a_vm_path_ending_in_a_separator_is_refused_and_nothing_is_written(tmp_path, reader):
    """``write_vm(".../ts.csv/", frame)`` wrote the file ``ts.csv``, and ``read_vm`` read it back:
    a trailing separator names a directory."""
    if reader:
        write_vm(tmp_path / "ts.csv", _frame())
        with pytest.raises(InvalidInputError, match=r"path = .*ts\.csv/': names a directory"):
            read_vm(str(tmp_path / "ts.csv") + "/")
        return
    with pytest.raises(InvalidInputError, match=r"path = .*ts\.csv/': names a directory"):
        write_vm(str(tmp_path / "ts.csv") + "/", _frame())
    assert list(tmp_path.iterdir()) == []


def _google_machine_part(path, frame):
    from fairlib.traces.google import _write_part

    return _write_part(path, frame, "machine_events")


def _machines():
    return pd.DataFrame(
        {"time": [0], "machine_id": [1], "event_type": [0], "platform_id": ["p"], "cpus": [0.5],
         "memory": [0.5]}
    )  # fmt: skip


WRITERS = [(write_vm, _frame), (_google_machine_part, _machines)]


def _relabelled(frame, how):
    frame = frame.copy()
    if how == "duplicate":
        return pd.concat([frame, frame.iloc[:, [1]]], axis=1)
    if how == "multiindex":
        frame.columns = pd.MultiIndex.from_tuples([(c, "x") for c in frame.columns])
        return frame
    return frame.rename(columns={frame.columns[-1]: 7})


@pytest.mark.parametrize("how", ["duplicate", "multiindex", "not text"])
@pytest.mark.parametrize("writer,frame", WRITERS, ids=["write_vm", "_write_part"])
def test_a_writer_refuses_a_column_label_given_twice_or_not_text(writer, frame, how, tmp_path):
    """Two 'cpu_cores' columns or MultiIndex columns failed with AttributeError 'DataFrame' object
    has no attribute 'dtype'."""
    with pytest.raises(InvalidInputError, match=r"frame\.columns\[\d+\] = "):
        writer(tmp_path / "x.csv.gz", _relabelled(frame(), how))
    assert not list(tmp_path.iterdir())


class _BytesPath:
    def __fspath__(self):
        return b"/tmp/x.csv"


@pytest.mark.parametrize("path", [_BytesPath(), b"/tmp/x.csv", "~/out.csv.gz"])
@pytest.mark.parametrize("writer,frame", WRITERS, ids=["write_vm", "_write_part"])
def test_a_writer_refuses_a_path_of_bytes_or_starting_with_a_tilde(
    writer, frame, path, tmp_path, monkeypatch
):
    """A PathLike of bytes raised a raw TypeError; "~/out.csv" wrote ./~/out.csv."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InvalidInputError, match=r"^path = "):
        writer(path, frame())
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("writer,frame", WRITERS, ids=["write_vm", "_write_part"])
def test_a_writer_that_cannot_write_names_the_path_given(writer, frame, tmp_path, monkeypatch):
    """A read-only folder raised PermissionError naming the temporary ``.x.csv.<uuid>.part``."""
    import os

    def refuse(src, dst):
        raise PermissionError(13, "Permission denied", str(src))

    monkeypatch.setattr(os, "replace", refuse)
    monkeypatch.setattr("pathlib.Path.replace", refuse)
    target = tmp_path / "x.csv.gz"
    with pytest.raises(PermissionError, match=rf"path = {str(target)!r}: cannot be written") as e:
        writer(target, frame())
    assert ".part" not in str(e.value)
    assert [p.name for p in tmp_path.iterdir()] == []


def test_read_vm_refuses_an_integer_float64_would_round(tmp_path):
    """A core count or any other field written as an integer beyond 2**53 was read as the float
    nearest it (2**53 + 1 as 2**53): refused, naming the file, line and column."""
    frame = _frame()
    path = write_vm(tmp_path / "x.csv", frame)
    lines = path.read_text().splitlines()
    for column in (1, 4):
        fields = lines[2].split(";\t")
        fields[column] = str(2**53 + 1)
        changed = [*lines[:2], ";\t".join(fields), *lines[3:]]
        bad = tmp_path / f"bad{column}.csv"
        bad.write_text("\n".join(changed) + "\n")
        with pytest.raises(
            TraceFormatError,
            match=rf"bad{column}\.csv:3: .* = '9007199254740993' is an integer beyond 2\*\*53",
        ):
            read_vm(bad)


def test_write_vm_refuses_an_integer_read_vm_would_read_as_another(tmp_path):
    frame = _frame()
    frame["memory_usage_kb"] = np.arange(len(frame), dtype=np.uint64)
    frame.loc[1, "memory_usage_kb"] = np.uint64(2**64 - 1)
    with pytest.raises(
        InvalidInputError, match=r"frame\['memory_usage_kb'\]\[1\] = 18446744073709551615: an"
    ):
        write_vm(tmp_path / "x.csv", frame)
    assert list(tmp_path.iterdir()) == []
