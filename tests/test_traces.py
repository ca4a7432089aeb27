"""Google task_events reader: format errors, fallback, and the real excerpt when present."""

import gzip

import numpy as np
import pandas as pd
import pytest

from fairlib._validate import InvalidInputError
from fairlib.traces import (
    TraceFormatError,
    read_task_events,
    synthetic_task_requests,
    task_request_pool,
)
from tests.realdata import real_traces

ROW = "600000000,,3418309,0,4155527081,0,user=,3,9,0.125,0.07446,0.0004244,0\n"


def _write(tmp_path, text, part=0):
    folder = tmp_path / "task_events"
    folder.mkdir(exist_ok=True)
    with gzip.open(folder / f"part-{part:05d}-of-00500.csv.gz", "wt") as f:
        f.write(text)


def test_reads_fixture(tmp_path):
    _write(tmp_path, ROW * 3)
    _write(tmp_path, ROW.replace(",0,user=", ",4,user="), part=1)
    ev = read_task_events([0, 1], directory=tmp_path)
    assert len(ev) == 4 and ev.event_type.tolist() == [0, 0, 0, 4]
    pool, source = task_request_pool(directory=tmp_path, parts=[0, 1], allow_synthetic=False)
    assert source == "real" and pool.shape == (3, 2)  # SUBMIT rows with CPU and memory > 0


def test_non_numeric_field_names_file(tmp_path):
    _write(tmp_path, ROW + ROW.replace("0.125", "abc"))
    with pytest.raises(TraceFormatError, match=r"part-00000-of-00500\.csv\.gz"):
        read_task_events([0], directory=tmp_path)


def test_truncated_gzip(tmp_path):
    _write(tmp_path, ROW * 200)
    path = tmp_path / "task_events" / "part-00000-of-00500.csv.gz"
    path.write_bytes(path.read_bytes()[:-30])
    with pytest.raises(
        TraceFormatError, match=r"part-00000-of-00500\.csv\.gz: truncated or corrupt gzip"
    ):
        read_task_events([0], directory=tmp_path)


def test_missing_part_and_synthetic_fallback(tmp_path):
    with pytest.raises(FileNotFoundError, match="task_events part 0 not found"):
        read_task_events([0], directory=tmp_path)
    pool, source = task_request_pool(directory=tmp_path, rng=1, synthetic_size=5000)
    assert source == "synthetic" and pool.shape == (5000, 2) and (pool > 0).all()
    med = np.median(synthetic_task_requests(2, 20000), axis=0)
    assert med[0] == pytest.approx(0.025, rel=0.1) and med[1] == pytest.approx(0.0207, rel=0.1)


REAL_GOOGLE, real = real_traces(
    "google_clusterdata_2011_2", needs="task_events/part-00004-of-00500.csv.gz"
)


@pytest.mark.realdata
@real
def test_real_excerpt_row_counts():
    ev = read_task_events(directory=REAL_GOOGLE)
    assert len(ev) == 919_519  # SCHEMAS.md §2
    assert int((ev.event_type == 0).sum()) == 359_630  # SCHEMAS.md §3.4
    pool, source = task_request_pool(directory=REAL_GOOGLE)
    assert source == "real" and (pool > 0).all() and len(pool) == 357_872


def test_machine_events_and_configurations_fixture(tmp_path):
    from fairlib.traces import machine_configurations, read_machine_events

    folder = tmp_path / "machine_events"
    folder.mkdir()
    rows = [
        "0,1,0,pA,0.5,0.5",
        "0,2,0,pA,0.5,0.25",
        "0,3,0,pB,,",
        "5,3,2,pB,1,1",
        "9,1,2,pA,0.5,0.25",
        "0,4,0,pA,0.5,0.25",
    ]
    with gzip.open(folder / "part-00000-of-00001.csv.gz", "wt") as f:
        f.write("\n".join(rows) + "\n")
    ev = read_machine_events(directory=tmp_path)
    assert len(ev) == 6 and np.isnan(ev.cpus[2])
    conf = machine_configurations(ev)
    # machine 1 ends at (0.5, 0.25); machine 3's empty ADD is skipped
    assert conf[["cpus", "memory", "machines"]].values.tolist() == [
        [0.5, 0.25, 3.0],
        [1.0, 1.0, 1.0],
    ]


def test_chunked_task_events(tmp_path):
    from fairlib.traces import iter_task_events

    _write(tmp_path, ROW * 7)
    chunks = list(iter_task_events([0], directory=tmp_path, chunksize=3, columns=["job_id"]))
    assert [len(c) for c in chunks] == [3, 3, 1]
    # None reads each part whole: one frame per file
    whole = list(iter_task_events([0], directory=tmp_path, chunksize=None, columns=["job_id"]))
    assert [len(c) for c in whole] == [7]


@pytest.mark.realdata
@real
def test_real_machine_configurations_and_jobs():
    from fairlib.traces import machine_configurations, read_job_events

    conf = machine_configurations(directory=REAL_GOOGLE)
    assert conf.machines.head(5).tolist() == [6732, 3863, 1001, 795, 126]  # SCHEMAS.md §3.3
    assert conf.machines.sum() == 12_583
    jobs = read_job_events(directory=REAL_GOOGLE)
    assert len(jobs) == 25_437 and set(jobs.scheduling_class.unique()) <= {0, 1, 2, 3}


def test_synthetic_task_usage_from_task_runs(tmp_path):
    from fairlib.traces import is_synthetic, read_task_usage, synthetic_task_usage

    src = tmp_path / "src"
    src.mkdir()
    # job 7 task 0: SUBMIT at 0.7e9 us, SCHEDULE on machine 5 at 0.7e9, FINISH at 1.6e9 -> windows
    # [0.7e9, 0.9e9), [0.9e9, 1.2e9), [1.2e9, 1.5e9), [1.5e9, 1.6e9); job 8 is never scheduled
    rows = [
        "700000000,,7,0,,0,u,0,0,0.5,0.2,0,0",
        "700000000,,7,0,5,1,u,0,0,0.5,0.2,0,0",
        "1600000000,,7,0,5,4,u,0,0,0.5,0.2,0,0",
        "800000000,,8,0,,0,u,0,0,0.1,0.1,0,0",
    ]
    _write(src, "\n".join(rows) + "\n")
    machines = src / "machine_events"
    machines.mkdir()
    with gzip.open(machines / "part-00000-of-00001.csv.gz", "wt") as f:
        f.write("0,5,0,p,0.25,0.5\n")
    out = synthetic_task_usage(
        tmp_path / "out", rng=3, parts=[0], source_directory=src, job_fraction=1.0
    )
    usage = read_task_usage([0], directory=tmp_path / "out")
    assert usage[["start_time", "end_time"]].values.tolist() == [
        [700_000_000, 900_000_000],
        [900_000_000, 1_200_000_000],
        [1_200_000_000, 1_500_000_000],
        [1_500_000_000, 1_600_000_000],
    ]
    assert (usage.job_id == 7).all() and (usage.machine_id == 5).all()
    assert (usage.cpu_rate <= 0.25).all() and (
        usage.assigned_memory == 0.2
    ).all()  # capped by the machine
    assert is_synthetic(out)


def test_synthetic_google_is_deterministic_labelled_and_calibrated(tmp_path):
    from fairlib.traces import machine_configurations, synthetic_google
    from fairlib.traces._source import source_of

    kw = dict(hours=1.0, initial_jobs=200, jobs_per_hour=300.0, max_tasks=50, machine_scale=0.01)
    a = synthetic_google(tmp_path / "a" / "google_clusterdata_2011_2", rng=5, **kw)
    b = synthetic_google(tmp_path / "b" / "google_clusterdata_2011_2", rng=5, **kw)
    ev_a, ev_b = read_task_events(range(5), directory=a), read_task_events(range(5), directory=b)
    assert ev_a.equals(ev_b) and source_of(a) == "synthetic"
    submits = ev_a[ev_a.event_type == 0]
    jobs = submits.groupby("job_id").time.min()
    assert (jobs == 0).sum() == 200 and 200 <= (
        jobs > 0
    ).sum() <= 400  # t = 0 snapshot, ~300 arrivals
    assert submits.groupby("job_id").size().median() <= 3  # median tasks per job ~1
    assert ev_a.time.max() < 3600e6 and set(ev_a.event_type) <= {0, 1, 2, 3, 4, 5}
    conf = machine_configurations(directory=a)
    assert (
        conf.cpus.iloc[0] == 0.5 and conf.memory.iloc[0] == 0.4995
    )  # the excerpt's commonest machine
    with pytest.raises(InvalidInputError, match="parts"):
        synthetic_google(tmp_path / "c", parts=0)


def test_real_or_synthetic_prefers_real_data_then_writes_a_labelled_stand_in(tmp_path, monkeypatch):
    from fairlib import paths
    from fairlib.traces import real_or_synthetic, synthetic

    monkeypatch.setattr(paths, "SHARED_TRACES", tmp_path / "no_shared")
    monkeypatch.setattr(paths, "DATA", tmp_path / "data")
    monkeypatch.setenv("FAIRLIB_TRACE_DIR", str(tmp_path / "traces"))
    monkeypatch.setenv("FAIRLIB_BUILD_DIR", str(tmp_path / "build"))
    monkeypatch.setitem(
        synthetic.STAND_IN_SIZES,
        "quick",
        {
            "bitbrains": dict(n_vms=3, days=0.5),
            "google": dict(
                hours=0.5, initial_jobs=20, jobs_per_hour=40.0, max_tasks=5, machine_scale=0.01
            ),
        },
    )
    google = real_or_synthetic("google", mode="quick")
    assert google.parent.parent == tmp_path / "build" / "synthetic_traces" / "quick"
    assert (google / "SYNTHETIC.md").is_file() and (google / ".complete").is_file()
    stamp = (google / "task_events" / "part-00000-of-00500.csv.gz").stat().st_mtime_ns
    assert real_or_synthetic("google", mode="quick") == google  # written once, then reused
    assert (google / "task_events" / "part-00000-of-00500.csv.gz").stat().st_mtime_ns == stamp
    bitbrains = real_or_synthetic("bitbrains", mode="quick")
    assert (bitbrains / "rnd" / "2013-8" / "3.csv.gz").is_file()
    real = tmp_path / "traces" / "google_clusterdata_2011_2" / "task_events"
    real.mkdir(parents=True)
    (real / "part-00000-of-00500.csv.gz").write_bytes(b"")
    assert real_or_synthetic("google") == real.parent  # real data found first
    with pytest.raises(InvalidInputError, match="name = 'azure'"):
        real_or_synthetic("azure")


def test_synthetic_task_usage_skips_runs_that_end_before_the_window(tmp_path):
    # a run in the initial snapshot that ends at 300 s, before the window opens at 600 s, has no
    # window: writing one gave end_time < start_time, and a negative amount of work in the replay
    from fairlib import sim
    from fairlib.traces import read_task_usage, synthetic_task_usage, task_usage_demands

    src = tmp_path / "src"
    src.mkdir()
    rows = [
        "0,,7,0,,0,u,0,0,0.5,0.2,0,0",
        "0,,7,0,5,1,u,0,0,0.5,0.2,0,0",
        "300000000,,7,0,5,4,u,0,0,0.5,0.2,0,0",
        "700000000,,9,0,,0,u,0,0,0.5,0.2,0,0",
        "700000000,,9,0,5,1,u,0,0,0.5,0.2,0,0",
        "1000000000,,9,0,5,4,u,0,0,0.5,0.2,0,0",
    ]
    _write(src, "\n".join(rows) + "\n")
    synthetic_task_usage(tmp_path / "out", rng=3, parts=[0], source_directory=src, job_fraction=1.0)
    usage = read_task_usage([0], directory=tmp_path / "out")
    assert (usage.end_time > usage.start_time).all() and usage.job_id.tolist() == [9, 9]
    assert (sim.jobs_from_demands(task_usage_demands(usage)).work > 0).all()
    backwards = usage.assign(end_time=usage.start_time - 1)
    with pytest.raises(
        InvalidInputError, match=r"task_usage row 0: end_time .* is before start_time"
    ):
        sim.jobs_from_demands(task_usage_demands(backwards))


def test_task_usage_reader_refuses_backwards_windows(tmp_path):
    folder = tmp_path / "task_usage"
    folder.mkdir()
    row = "900000000,600000000,7,0,5" + ",0.1" * 13 + ",0,0.1\n"
    with gzip.open(folder / "part-00000-of-00500.csv.gz", "wt") as f:
        f.write(row)
    from fairlib.traces import read_task_usage

    with pytest.raises(
        TraceFormatError, match=r"line 1: end_time 600000000 is before start_time 900000000"
    ):
        read_task_usage([0], directory=tmp_path)


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda tmp: synthetic_task_requests("abc", 3),
            r"rng = 'abc': must be None, an integer >= 0",
        ),
        (lambda tmp: task_request_pool(directory=tmp, rng=-1), r"rng = -1"),
        (
            lambda tmp: task_request_pool(directory=tmp, synthetic_size=2.5),
            r"synthetic_size = 2\.5: must be an integer",
        ),
        (
            lambda tmp: task_request_pool(directory=tmp, synthetic_size=0),
            r"synthetic_size = 0: must be an integer >= 1",
        ),
    ],
)
def test_request_pool_arguments_are_checked_with_or_without_the_excerpt(tmp_path, call, message):
    _write(tmp_path, ROW)  # the real path is taken: the synthetic-only arguments are still checked
    with pytest.raises(InvalidInputError, match=message):
        call(tmp_path)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"hours": True}, r"hours = True: must be a finite number > 0\.1666"),
        ({"hours": float("nan")}, r"hours = nan"),
        ({"initial_jobs": 2.5}, r"initial_jobs = 2\.5: must be an integer >= 0"),
        ({"jobs_per_hour": float("inf")}, r"jobs_per_hour = inf: must be a finite number >= 0"),
        ({"max_tasks": 0}, r"max_tasks = 0: must be an integer >= 1"),
        ({"parts": 501}, r"parts = 501: must be an integer >= 1 and <= 500"),
        ({"machine_scale": 0.0}, r"machine_scale = 0\.0: must be a finite number > 0"),
        ({"rng": 2.5}, r"rng = 2\.5"),
    ],
)
def test_synthetic_google_refuses_each_bad_argument_by_name(tmp_path, kwargs, message):
    from fairlib.traces import synthetic_google

    with pytest.raises(InvalidInputError, match=message):
        synthetic_google(tmp_path / "g", **kwargs)
    assert not (tmp_path / "g").exists()  # refused before anything is written


@pytest.mark.parametrize(
    "generator, kwargs, message",
    [
        # a hypothesis draw of the API contract: 14,583 × 10,598 machines would allocate ~3 GiB of
        # machine_events
        (
            "google",
            {"machine_scale": 10598.0},
            r"machine_scale = 10598\.0: must be a finite number > 0\.0 and <= 100\.0$",
        ),
        ("google", {"machine_scale": 1e300}, r"machine_scale = 1e\+300: .* <= 100\.0"),
        (
            "google",
            {"hours": 745.0},
            r"hours = 745\.0: must be a finite number > 0\.1666\d* and <= 744\.0$",
        ),
        ("google", {"hours": 1e305, "jobs_per_hour": 0.0}, r"hours = 1e\+305: .* <= 744\.0"),
        (
            "google",
            {"initial_jobs": 100_001},
            r"initial_jobs = 100001: must be an integer >= 0 and <= 100000$",
        ),
        (
            "google",
            {"hours": 200.0},
            r"jobs_per_hour = 837\.0 with hours = 200\.0 and initial_jobs = 3981: "
            r"3981 \+ 200\.0 × 837\.0 = 171381 jobs expected, at most 100000$",
        ),
        (
            "google",
            {"jobs_per_hour": 1e308, "hours": 744.0},
            r"jobs_per_hour = 1e\+308 .* = inf jobs expected, at most 100000$",
        ),
        ("bitbrains", {"n_vms": 1_251}, r"n_vms = 1251: must be an integer >= 1 and <= 1250$"),
        (
            "bitbrains",
            {"days": 32.0},
            r"days = 32\.0: must be a finite number > 0\.0 and <= 31\.0$",
        ),
        ("bitbrains", {"days": 1e300}, r"days = 1e\+300: .* <= 31\.0"),
    ],
)
def test_synthetic_generators_cap_their_sizes_by_name_before_any_work(
    tmp_path, generator, kwargs, message
):
    """Refused up front: nothing written and nothing large allocated (peak traced memory, not
    wall-clock time)."""
    import tracemalloc

    from fairlib.traces import synthetic_bitbrains, synthetic_google

    make = {"google": synthetic_google, "bitbrains": synthetic_bitbrains}[generator]
    tracemalloc.start()
    try:
        with pytest.raises(InvalidInputError, match=message):
            make(tmp_path / "out", rng=0, **kwargs)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64e6, f"{peak / 1e6:.0f} MB allocated before the refusal"
    assert not (tmp_path / "out").exists()


def test_synthetic_generators_accept_their_caps(tmp_path):
    from fairlib.traces import read_vm, synthetic, synthetic_bitbrains, synthetic_google

    # at the caps of hours and of the jobs expected: one job over a month-long window
    folder = synthetic_google(
        tmp_path / "g",
        rng=0,
        hours=synthetic.MAX_HOURS,
        initial_jobs=1,
        jobs_per_hour=0.0,
        max_tasks=1,
        parts=1,
        machine_scale=0.001,
    )
    assert len(read_task_events([0], directory=folder)) >= 2
    month = synthetic_bitbrains(tmp_path / "bb", 1, rng=0, days=synthetic.MAX_DAYS)
    assert len(read_vm(month / "1.csv.gz")) == 31 * 288
    # however small, a positive number of days gives each VM one sample (it gave an empty series
    # that failed)
    month = synthetic_bitbrains(tmp_path / "tiny", 2, rng=0, days=1e-9)
    assert len(read_vm(month / "2.csv.gz")) == 1


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"parts": [float("nan")]}, r"parts: nan is not a part of task_events"),
        ({"parts": "abc"}, r"parts = 'abc': must be an iterable of part numbers"),
        ({"parts": []}, r"parts: no part numbers given"),
        (
            {"source_directory": object()},
            r"source_directory = <object object at .*>: expected a folder path",
        ),
        ({"job_fraction": 1.5}, r"job_fraction = 1\.5: must be a finite number > 0\.0 and <= 1\.0"),
        ({"job_fraction": True}, r"job_fraction = True"),
        ({"cpu_fraction": (0.3,)}, r"cpu_fraction: expected shape \(2\), got \(1,\)"),
        (
            {"cpu_fraction": (0.0, 0.8)},
            r"cpu_fraction\[0\] = 0\.0: the median usage fraction must be > 0",
        ),
        ({"cpu_fraction": (0.3, -1.0)}, r"cpu_fraction\[1\] = -1\.0: cpu_fraction must be >= 0"),
        (
            {"memory_fraction": (4.0, float("nan"))},
            r"memory_fraction\[1\] = nan: memory_fraction must be finite",
        ),
        (
            {"memory_fraction": (0.0, 2.0)},
            r"memory_fraction\[0\] = 0\.0: memory_fraction must be > 0",
        ),
        ({"rng": "abc"}, r"rng = 'abc'"),
    ],
)
def test_synthetic_task_usage_refuses_each_bad_argument_by_name(tmp_path, kwargs, message):
    from fairlib.traces import synthetic_task_usage

    _write(tmp_path, ROW)
    kwargs = {"parts": [0], "source_directory": tmp_path, **kwargs}
    with pytest.raises(InvalidInputError, match=message):
        synthetic_task_usage(tmp_path / "out", **kwargs)


@pytest.mark.parametrize("seed", ["abc", -1, 2.5, 1 + 1j])
def test_real_or_synthetic_checks_the_seed_even_when_real_data_is_found(
    tmp_path, monkeypatch, seed
):
    from fairlib.traces import real_or_synthetic

    real = tmp_path / "google_clusterdata_2011_2" / "task_events"
    real.mkdir(parents=True)
    (real / "part-00000-of-00500.csv.gz").write_bytes(b"")
    monkeypatch.setenv("FAIRLIB_TRACE_DIR", str(tmp_path))
    assert real_or_synthetic("google") == real.parent
    with pytest.raises(InvalidInputError, match=r"seed = .*: must be an integer >= 0"):
        real_or_synthetic("google", seed=seed)


def _fields(row, **changes):
    """ROW with the named task_events fields replaced."""
    from fairlib.traces import TASK_EVENT_COLUMNS

    fields = row.rstrip("\n").split(",")
    for name, value in changes.items():
        fields[TASK_EVENT_COLUMNS.index(name)] = value
    return ",".join(fields) + "\n"


@pytest.mark.parametrize(
    "changes, message",
    [
        (
            {"scheduling_class": "4"},
            r"column 'scheduling_class': 4 is outside the documented range 0 to 3",
        ),
        ({"event_type": "9"}, r"column 'event_type': 9 is outside the documented range 0 to 8"),
        ({"priority": "12"}, r"column 'priority': 12 is outside the documented range 0 to 11"),
        ({"priority": "-1"}, r"column 'priority': -1 is outside the documented range 0 to 11"),
        ({"different_machines": "2"}, r"column 'different_machines': 2 is outside .* 0 to 1"),
        ({"missing_info": "3"}, r"column 'missing_info': 3 is outside the documented range 0 to 2"),
        (
            {"job_id": "12345678901234567890"},
            r"column 'job_id': '12345678901234567890' is beyond the int64",
        ),
        ({"machine_id": "99999999999999999999"}, r"column 'machine_id': '9+' is beyond the int64"),
        ({"machine_id": "1.5"}, r"column 'machine_id': '1\.5' is not an integer"),
        # the trace writes a missing number as an empty field: the text NaN is not one
        ({"cpu_request": "NaN"}, r"column 'cpu_request': 'NaN' is not a number"),
    ],
)
def test_task_events_codes_and_ids_outside_the_schema_name_file_line_and_column(
    tmp_path, changes, message
):
    """Codes outside the schema's ranges were read as they came; an id beyond int64 raised pandas'
    bare OverflowError; a fractional machine id a message without a line."""
    _write(tmp_path, ROW + _fields(ROW, **changes))
    with pytest.raises(TraceFormatError, match=r"part-00000-of-00500\.csv\.gz, line 2, " + message):
        read_task_events([0], directory=tmp_path)


def test_job_and_machine_event_codes_outside_the_schema_are_refused(tmp_path):
    from fairlib.traces import read_job_events, read_machine_events

    folder = tmp_path / "job_events"
    folder.mkdir()
    with gzip.open(folder / "part-00000-of-00500.csv.gz", "wt") as f:
        f.write("0,,6251812952,0,user=,1,name=,logical=\n0,,6251812953,0,user=,7,name=,logical=\n")
    with pytest.raises(TraceFormatError, match=r"line 2, column 'scheduling_class': 7 is outside"):
        read_job_events([0], directory=tmp_path)
    folder = tmp_path / "machine_events"
    folder.mkdir()
    with gzip.open(folder / "part-00000-of-00001.csv.gz", "wt") as f:
        f.write("0,5,0,platform=,0.5,0.5\n0,6,3,platform=,0.5,0.5\n")
    with pytest.raises(
        TraceFormatError, match=r"line 2, column 'event_type': 3 is outside .* 0 to 2"
    ):
        read_machine_events(directory=tmp_path)


# --- the Google writer (the synthetic tables) writes only what the readers read back --------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from fairlib.traces import google  # noqa: E402

#: hashes and names as the trace writes them (salted SHA-256 in base64), words a CSV reader might
#: take for missing
_TEXT = st.one_of(
    st.text(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=", min_size=1, max_size=44
    ),
    st.sampled_from(["NA", "nan", "null", "None", "N/A"]),
)
_INT64 = (-(2**63), 2**63 - 1)


def _column(table, name, dtype, n):
    low, high = google._RANGES[table].get(name, _INT64)
    if name in google._NONNEGATIVE[table]:
        low = max(low, 0)
    if dtype == "string":
        values = st.one_of(st.none(), _TEXT)
    elif dtype == "float64":
        finite = st.floats(
            min_value=0.0 if name in google._NONNEGATIVE[table] else None,
            allow_nan=False,
            allow_infinity=False,
        )
        values = st.one_of(st.none(), finite)
    else:
        values = st.integers(low, high)
        if dtype == "Int64":
            values = st.one_of(st.none(), values)
    return st.lists(values, min_size=n, max_size=n)


@st.composite
def _google_tables(draw):
    table = draw(st.sampled_from(sorted(google._TABLES)))
    names, dtypes, _ = google._TABLES[table]
    n = draw(st.integers(1, 5))
    columns = {name: draw(_column(table, name, dtypes[name], n)) for name in names}
    frame = pd.DataFrame(columns).astype(dtypes)
    if table == "task_usage":  # a window ends no earlier than it starts
        frame["end_time"] = np.maximum(frame.start_time, frame.end_time)
    return table, frame


@settings(max_examples=80, deadline=None)
@given(drawn=_google_tables())
def test_what_the_google_writer_writes_the_readers_read_back_unchanged(tmp_path_factory, drawn):
    table, frame = drawn
    folder = tmp_path_factory.mktemp("google")
    total = google._TABLES[table][2]
    path = folder / table / f"part-00000-of-{total:05d}.csv.gz"
    google._write_part(path, frame, table)
    back = google._read_parts(table, [0], folder, None)
    back = pd.concat(list(back), ignore_index=True)
    pd.testing.assert_frame_equal(back, frame, check_exact=True)
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # nothing else left beside it


@pytest.mark.parametrize(
    "change, message",
    [
        ({"user": "a,b"}, r"line 2: 14 field\(s\), expected 13"),
        ({"scheduling_class": 5}, r"line 2, column 'scheduling_class': 5 is outside"),
        ({"cpu_request": -0.5}, r"line 2, column 'cpu_request': -0\.5 must be finite and >= 0"),
        ({"time": -1}, r"line 2, column 'time': -1\.0 must be finite and >= 0"),
    ],
)
def test_the_google_writer_refuses_what_the_readers_refuse_and_writes_nothing(
    tmp_path, change, message
):
    frame = google.read_task_events([0], directory=_fixture_copy(tmp_path)).head(3)
    for name, value in change.items():
        frame[name] = frame[name].astype(object)
        frame.loc[1, name] = value
    out = tmp_path / "out" / "task_events" / "part-00000-of-00500.csv.gz"
    with pytest.raises(InvalidInputError, match=r"frame: the reader would refuse .*" + message):
        google._write_part(out, frame, "task_events")
    assert not out.parent.exists() or list(out.parent.iterdir()) == []
    with pytest.raises(InvalidInputError, match=r"frame: no rows"):
        google._write_part(out, frame.head(0), "task_events")


def _fixture_copy(tmp_path):
    _write(tmp_path, ROW * 3)
    return tmp_path


def test_synthetic_task_usage_refuses_parts_that_would_hold_no_row(tmp_path):
    """A part whose time range ends before the first 300 s window (600 s) was written as an empty
    file, which read_task_usage refuses; now the parts are named and nothing is written."""
    from fairlib.traces import synthetic_google, synthetic_task_usage

    src = synthetic_google(
        tmp_path / "src", rng=3, hours=0.5, initial_jobs=30, jobs_per_hour=20.0, max_tasks=5
    )
    with pytest.raises(InvalidInputError, match=r"parts: \[0\] would hold no task_usage rows"):
        synthetic_task_usage(tmp_path / "out", rng=4, source_directory=src, job_fraction=1.0)
    assert not (tmp_path / "out").exists()


def test_google_readers_refuse_an_integer_float64_would_round(tmp_path):
    """A CPU or memory field written as an integer beyond 2**53 was read as the float nearest it
    (2**53 + 1 as 2**53), in one read and in chunks alike: refused, naming the file, line, column
    and the field as written. 2**53 itself, which float64 holds, is read."""
    from fairlib.traces import read_machine_events

    folder = tmp_path / "machine_events"
    folder.mkdir()
    part = folder / "part-00000-of-00001.csv.gz"
    for value, refused in ((2**53 + 1, True), (2**53, False)):
        with gzip.open(part, "wt") as f:
            f.write(f"0,5,0,platform=,0.5,0.5\n0,6,0,platform=,{value},0.5\n")
        if refused:
            with pytest.raises(
                TraceFormatError,
                match=r"line 2, column 'cpus': '9007199254740993' is an integer beyond 2\*\*53",
            ):
                read_machine_events(directory=tmp_path)
            chunks = google._read_parts("machine_events", [0], tmp_path, None, chunksize=1)
            with pytest.raises(TraceFormatError, match=r"line 2, column 'cpus': '9007199254740993"):
                list(chunks)
        else:
            assert read_machine_events(directory=tmp_path).cpus[1] == 2.0**53
