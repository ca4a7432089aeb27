"""Regression tests: nonsense that public functions used to accept silently, or refused with a bare
Python or NumPy error, now gets an InvalidInputError (or a TraceFormatError for a file) naming the
argument, the index or line and the value. One test per case found by probing as a user would;
tests/test_api_contract.py checks the whole public API the same way."""

import gzip

import numpy as np
import pandas as pd
import pytest

from fairlib import metrics, sim
from fairlib._validate import (
    MAX_ITERATIONS,
    InvalidInputError,
    as_budgets,
    as_count,
    as_finite,
    as_flag,
    as_instance,
    as_rng,
    as_values,
    check_columns,
)
from fairlib.dynamic import dynamic_drf, maxmin_tight_example, maxsum_counterexample
from fairlib.market import Game, best_response_finite, run_dynamics, sqrt_m_construction
from fairlib.multires import (
    Cluster,
    Quotas,
    asset_fairness,
    asset_share_per_task,
    ceei,
    drfh,
    edrf,
    leontief_tasks,
    nash_residual,
    on_merged_servers,
    pdrf,
    pfvds,
    psdsf,
    psmfa,
    tsf,
)
from fairlib.repro.ledger import ClaimLog
from fairlib.traces import (
    TraceFormatError,
    Workload,
    bitbrains_workload,
    google_fleet,
    google_workload,
    machine_configurations,
    read_batch_task,
    read_job_events,
    read_task_events,
)
from fairlib.traces.fetch import main as fetch_main

W = [[0.5, 0.5], [0.2, 0.8], [0.9, 0.1]]


# --- the validation helpers -----------------------------------------------------------------------


def test_helpers_name_argument_and_value():
    with pytest.raises(
        InvalidInputError, match=r"k = 100000000000000000000: must be an integer >= 1 and <= 922"
    ):
        as_count(10**20, "k")
    with pytest.raises(InvalidInputError, match=r"k = 2\.5: must be an integer >= 1"):
        as_count(2.5, "k")
    with pytest.raises(InvalidInputError, match=r"t = inf: must be a finite number"):
        as_finite(float("inf"), "t")
    with pytest.raises(InvalidInputError, match=r"t = True: must be a finite number"):
        as_finite(True, "t")
    with pytest.raises(InvalidInputError, match=r"t = 1000.*: an integer beyond 2\*\*53"):
        as_finite(10**400, "t")
    with pytest.raises(InvalidInputError, match=r"rng = -1: must be None, an integer >= 0"):
        as_rng(-1)
    assert as_rng(np.random.default_rng(3)).random() == np.random.default_rng(3).random()
    with pytest.raises(InvalidInputError, match=r"game = \[\[1\]\]: must be a Game, got list"):
        as_instance([[1]], Game, "game")
    with pytest.raises(InvalidInputError, match=r"x: must be real numbers, got complex"):
        as_values([1j], "x", ndim=1)
    with pytest.raises(InvalidInputError, match=r"x: expected shape \(any, 3\), got \(2, 2\)"):
        as_values(np.ones((2, 2)), "x", ndim=2, shape=(-1, 3))
    with pytest.raises(InvalidInputError, match=r"x\[1\] = -1\.0: x must be > 0"):
        as_values([1, -1], "x", ndim=1, sign="> 0")
    frame = pd.DataFrame({"cpu": [0.5, np.nan, -np.inf]}, index=[10, 11, 12])
    with pytest.raises(
        InvalidInputError, match=r"jobs row 2 \(index 12\), column 'cpu' = -inf: must be finite"
    ):
        check_columns(frame, "jobs", ["cpu"])


def test_a_missing_column_is_refused_naming_the_table_and_its_columns():
    """Not a KeyError from deep inside the caller: every reader of a frame's columns checks them
    here."""
    frame = pd.DataFrame({"memory": [1.0]})
    with pytest.raises(
        InvalidInputError, match=r"jobs: no column 'cpu' \(its columns: \['memory'\]"
    ):
        check_columns(frame, "jobs", ["cpu"])


def test_a_file_where_a_trace_folder_is_meant_is_refused(tmp_path):
    from fairlib.traces import google_dir

    path = tmp_path / "events.csv"
    path.write_text("not a folder\n")
    with pytest.raises(InvalidInputError, match=r"directory = .*events.csv.*a file, not a folder"):
        google_dir(path)


def test_a_symlink_loop_where_a_trace_folder_is_meant_is_refused(tmp_path, monkeypatch):
    """A loop read as a missing folder sent the reader to report missing files ("not found"), or
    raised a raw OSError; it is refused naming the argument (or variable) and the path."""
    import os

    from fairlib import paths
    from fairlib.traces import google_dir
    from fairlib.traces._source import trace_folder

    a, b = tmp_path / "a", tmp_path / "b"
    os.symlink(a, b)
    os.symlink(b, a)
    with pytest.raises(InvalidInputError, match=r"directory = '.*a': a symlink loop"):
        google_dir(a)
    with pytest.raises(InvalidInputError, match=r"source_directory = '.*b': a symlink loop"):
        trace_folder("google", b, "source_directory")
    monkeypatch.setenv("FAIRLIB_BUILD_DIR", str(a))
    with pytest.raises(InvalidInputError, match=r"FAIRLIB_BUILD_DIR = '.*a': a symlink loop"):
        paths.build_dir()


@pytest.mark.parametrize(
    "content",
    [b"\xff\xfe not text", b"{}", b'{"rows": [1]}', b"[1, 2]"],
    ids=["not UTF-8", "no rows", "a row that is no row", "not an object"],
)
def test_a_malformed_benchmark_result_is_refused_naming_the_argument(tmp_path, content):
    from fairlib.repro.landing import timings_block

    path = tmp_path / "suite.json"
    path.write_bytes(content)
    with pytest.raises(InvalidInputError, match=r"suite = .*suite.json"):
        timings_block(suite=path)


@pytest.mark.parametrize("value", [0, 1, "false", None, 1.0, [True]])
def test_a_flag_is_a_bool(value):
    assert as_flag(True, "merge") is True and as_flag(np.bool_(False), "merge") is False
    with pytest.raises(InvalidInputError, match=r"merge = .*: must be True or False"):
        as_flag(value, "merge")


def test_flags_of_the_library_refuse_truthy_stand_ins():
    """'false' is truthy: accepted as a flag, it would turn the option on."""
    with pytest.raises(InvalidInputError, match=r"time_shared = 'false': must be True or False"):
        pfvds(Cluster([[4.0, 4.0]], [[1.0, 2.0]]), 2.0, time_shared="false")
    with pytest.raises(InvalidInputError, match=r"top_up = 1: must be True or False"):
        pdrf(Cluster([[9.0, 18.0]], [[1.0, 4.0], [3.0, 1.0]]), top_up=1)


def test_iteration_counts_are_capped():
    game = Game(W, reserve=1e-6)
    with pytest.raises(
        InvalidInputError, match=rf"max_iter = {MAX_ITERATIONS + 1}: .* <= {MAX_ITERATIONS}"
    ):
        run_dynamics(game, max_iter=MAX_ITERATIONS + 1)


# --- silent answers -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "reserve, message",
    [
        (True, r"reserve = True: must be a finite number >= 0"),
        ("x", r"reserve = 'x': must be a finite number"),
        (None, r"reserve = None: must be a finite number"),
        (-1.0, r"reserve = -1\.0: must be a finite number >= 0"),
        (1 + 1j, r"reserve = \(1\+1j\)"),
    ],
)
def test_game_reserve(reserve, message):
    with pytest.raises(InvalidInputError, match=message):
        Game(W, reserve=reserve)


def test_game_ragged_weights_and_parallelism_of_the_wrong_length():
    with pytest.raises(
        InvalidInputError, match=r"weights = \[\[0\.5, 0\.5\], \[0\.2\]\]: must be a numeric array"
    ):
        Game([[0.5, 0.5], [0.2]], reserve=1e-6)
    with pytest.raises(
        InvalidInputError,
        match=r"parallelism: expected a scalar or one bound per user \(3\), got "
        r"shape \(2,\)",
    ):
        Game(W, parallelism=[1, 2], reserve=1e-6)
    with pytest.raises(InvalidInputError, match=r"parallelism = 1\.5: must be integers"):
        Game(W, parallelism=1.5, reserve=1e-6)


def test_metrics_refuse_nan_negative_and_zero_optimum():
    with pytest.raises(InvalidInputError, match=r"welfare = nan: must be a finite number >= 0"):
        metrics.efficiency(float("nan"), 1.0)
    with pytest.raises(InvalidInputError, match=r"optimum = 0(\.0)?: must be a finite number > 0"):
        metrics.efficiency(1.0, 0)
    with pytest.raises(InvalidInputError, match=r"utils\[0\] = -1\.0: utils must be >= 0"):
        metrics.utility_uniformity([-1.0, 1.0])
    with pytest.raises(InvalidInputError, match=r"utils: must not be empty|utils: no utilities"):
        metrics.utility_uniformity([])
    with pytest.raises(InvalidInputError, match=r"shares\[0, 1\] = nan: shares must be finite"):
        metrics.utilities(W, [[0.5, np.nan], [0.2, 0.8], [0.3, 0.2]])
    with pytest.raises(
        InvalidInputError,
        match=r"shares: expected shape \(3, 2\)|weights, shares: expected two .* got \(3, 2\) and "
        r"\(1, 2\)",
    ):  # noqa: E501
        metrics.utilities(W, [[0.5, 0.5]])
    with pytest.raises(InvalidInputError, match=r"parallelism\[0\] = 0: must be >= 1"):
        metrics.bundle_values(W, W, parallelism=0)
    assert metrics.efficiency(1.5, 2.0) == 0.75  # valid input: unchanged
    assert metrics.utility_uniformity([0.5, 0.25]) == 0.5


@pytest.mark.parametrize(
    "k, message",
    [
        (1.5, r"k = 1\.5: must be an integer >= 1"),
        ("1", r"k = '1': must be an integer >= 1"),
        (True, r"k = True"),
        (9, r"k = 9: steps run from 1 to 3"),
    ],
)
def test_dynamic_result_step_must_be_an_integer(k, message):
    result = dynamic_drf([[1.0, 0.5], [0.5, 1.0], [1.0, 1.0]])
    with pytest.raises(InvalidInputError, match=message):
        result.shares(k)
    np.testing.assert_array_equal(result.shares(2), result.shares(np.int64(2)))


def _fleet_and_workload():
    from fairlib.traces import Fleet

    fleet = Fleet(np.array([[1.0, 1.0]]), ("cpu", "memory"), np.array(["A"]), "synthetic")
    workload = Workload(
        np.array([1, 2]),
        np.array([[0.5, 0.5], [0.2, 0.1]]),
        np.array([0.0, 5.0]),
        np.array([10.0, 20.0]),
        ("cpu", "memory"),
        "synthetic",
    )
    return fleet, workload


@pytest.mark.parametrize("t", [np.nan, np.inf, "3", None])
def test_snapshot_time_must_be_finite(t):
    fleet, workload = _fleet_and_workload()
    with pytest.raises(InvalidInputError, match=r"t = .*: must be a finite number"):
        sim.snapshot_cluster(fleet, workload, t)
    assert sim.snapshot_cluster(fleet, workload, 6.0).active.tolist() == [0, 1]


def test_snapshot_wrong_objects_and_shapes():
    fleet, workload = _fleet_and_workload()
    with pytest.raises(InvalidInputError, match=r"workload = .*: must be a Workload, got Fleet"):
        sim.snapshot_cluster(fleet, fleet, 1.0)
    with pytest.raises(
        InvalidInputError, match=r"eligible: expected shape \(2, 1\) \(one per workload user\)"
    ):
        sim.snapshot_cluster(fleet, workload, 6.0, eligible=[[1]])


def test_machine_configurations_refuse_negative_capacity():
    events = pd.DataFrame(
        {
            "time": [0, 0],
            "machine_id": [1, 2],
            "event_type": [0, 0],
            "platform_id": ["a", "a"],
            "cpus": [0.5, -0.5],
            "memory": [0.5, 0.5],
        }
    )
    with pytest.raises(
        InvalidInputError,
        match=r"machine_events row 1 \(index 1\), column 'cpus' = -0\.5: must "
        r"be finite and >= 0",
    ):
        machine_configurations(events)
    assert machine_configurations(events.assign(cpus=0.5)).machines.tolist() == [2]


def _vms(cpu):
    return pd.DataFrame(
        {
            "vm": [1, 1],
            "time": [0, 300],
            "active": [True, True],
            "cpu_usage_mhz": cpu,
            "memory_usage_kb": [1024.0, 2048.0],
            "disk_read_kbps": [0.0, 1.0],
            "disk_write_kbps": [0.0, 0.0],
            "net_rx_kbps": [1.0, 1.0],
            "net_tx_kbps": [0.0, 0.0],
        }
    )


def test_bitbrains_workload_refuses_negative_usage():
    with pytest.raises(
        InvalidInputError, match=r"vms row 1 \(index 1\), column 'cpu_usage_mhz' = -5\.0"
    ):
        bitbrains_workload(_vms([100.0, -5.0]))
    assert bitbrains_workload(_vms([100.0, 5.0])).demand[0, 0] == pytest.approx(0.1)


# --- raw Python or NumPy errors -------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: best_response_finite([1, 1], [1, 1], 1.0, 10**20),
            r"k = 100000000000000000000: must be an integer",
        ),
        (
            lambda: run_dynamics(Game(W, reserve=1e-6), rng="abc"),
            r"rng = 'abc': must be None, an integer >= 0",
        ),
        (lambda: run_dynamics(np.array(W)), r"game = array\(.*\): must be a Game, got ndarray"),
        (lambda: run_dynamics(Game(W, reserve=1e-6), step=True), r"step = True"),
        (lambda: sqrt_m_construction(2.5), r"n = 2\.5: must be an integer >= 1"),
        (lambda: maxsum_counterexample("2"), r"m = '2': must be an integer >= 1"),
        (
            lambda: maxmin_tight_example(10**12),
            r"m = 1000000000000: must be an integer >= 1 and <= 2147483648",
        ),
        (
            lambda: edrf([[1, 2], [3]], [10, 10]),
            r"demands = \[\[1, 2\], \[3\]\]: must be a numeric array, got ragged",
        ),
        (
            lambda: pdrf([[1, 2], [3]], [10, 10]),
            r"demands = \[\[1, 2\], \[3\]\]: must be a numeric array, got ragged",
        ),
        (lambda: drfh(None), r"cluster = None: must be a Cluster, got NoneType"),
        (lambda: tsf(np.ones((2, 2))), r"cluster = array\(.*\): must be a Cluster, got ndarray"),
        (
            lambda: pfvds(Cluster([[4, 4]], [[1, 2], [2, 1]]), 1 + 1j),
            r"alpha = \(1\+1j\): must be a real number",
        ),
        (
            lambda: google_fleet(
                2.5, configurations=pd.DataFrame({"cpus": [0.5], "memory": [0.5], "machines": [3]})
            ),
            r"n_servers = 2\.5: must be an integer >= 1",
        ),
        (
            lambda: ClaimLog("demo", mode="bogus", write=False, registry=[]),
            r"mode = 'bogus': must be one of",
        ),
        (
            lambda: __import__("fairlib.timing").timing.median_time(lambda: None, warmup=-1),
            r"warmup = -1: must be",
        ),
        (
            lambda: __import__("fairlib.timing").timing.median_time(None),
            r"fn = None: expected a callable",
        ),
        (
            lambda: __import__("fairlib.mechanisms").mechanisms.resolve_runs({"x": 5}),
            r"mechanisms\['x'\] = 5: expected",
        ),
        # a ragged list reached numpy's ndim/shape before any check (a bare ValueError)
        (lambda: as_budgets([[1, 2], [3]], 2), r"budgets = \[\[1, 2\], \[3\]\]: must be"),
        (lambda: Quotas.mesos([[1, 2], [3]]), r"guarantee = \[\[1, 2\], \[3\]\]"),
        (lambda: Quotas.kueue([[1, 2], [3]]), r"nominal = \[\[1, 2\], \[3\]\]"),
    ],
)
def test_raw_errors_became_named(call, message):
    with pytest.raises(InvalidInputError, match=message):
        call()


ROW = "600000000,,3418309,0,4155527081,0,user=,3,9,0.125,0.07446,0.0004244,0\n"


def _events(tmp_path, table, text):
    folder = tmp_path / table
    folder.mkdir(exist_ok=True)
    with gzip.open(folder / "part-00000-of-00500.csv.gz", "wt") as f:
        f.write(text)


def test_read_task_events_unknown_column_is_named(tmp_path):
    _events(tmp_path, "task_events", ROW)
    with pytest.raises(
        InvalidInputError,
        match=r"columns = \['nonexistent'\]: \['nonexistent'\] are not columns "
        r"of task_events",
    ):
        read_task_events([0], directory=tmp_path, columns=["nonexistent"])
    assert read_task_events(
        [0], directory=tmp_path, columns=["cpu_request"]
    ).cpu_request.tolist() == [0.125]


def _task_events_frame(cpu):
    return pd.DataFrame(
        {
            "time": [0, 5_000_000, 9_000_000],
            "job_id": [1, 1, 2],
            "task_index": [0, 1, 0],
            "event_type": [0, 0, 0],
            "cpu_request": cpu,
            "memory_request": [0.1, 0.1, 0.1],
            "scheduling_class": [0, 0, 1],
        },
        index=[7, 8, 9],
    )


def test_google_workload_names_the_row_and_column_and_refuses_a_nan_horizon():
    with pytest.raises(
        InvalidInputError,
        match=r"task_events row 1 \(index 8\), column 'cpu_request' = -0\.5: "
        r"must be finite and >= 0",
    ):
        google_workload(_task_events_frame([0.1, -0.5, 0.2]))
    with pytest.raises(InvalidInputError, match=r"horizon = nan: must be a finite number"):
        google_workload(_task_events_frame([0.1, 0.5, 0.2]), horizon=float("nan"))
    assert google_workload(_task_events_frame([0.1, 0.5, 0.2])).demand[:, 0].tolist() == [0.6, 0.2]
    # a frame given directly meets the schema's codes as the readers check them
    for column, value in (("scheduling_class", 4), ("event_type", 9), ("event_type", 1.5)):
        frame = _task_events_frame([0.1, 0.5, 0.2])
        frame[column] = frame[column].astype(float)
        frame.loc[9, column] = value
        with pytest.raises(
            InvalidInputError,
            match=rf"task_events row 2 \(index 9\), column '{column}' = {value}: must be a code",
        ):
            google_workload(frame)


@pytest.mark.parametrize(
    "time, message",
    [
        ("-5", r"line 2, column 'time': -5\.0 must be finite and >= 0"),
        ("inf", r"line 2, column 'time': 'inf' is not an integer"),
        ("1.5", r"line 2, column 'time': '1\.5' is not an integer"),
    ],
)
def test_job_events_bad_time_names_file_and_line(tmp_path, time, message):
    good = "0,,1,0,user=,2,name=,lname=\n"
    _events(tmp_path, "job_events", good + good.replace("0,,1", f"{time},,1", 1))
    with pytest.raises(
        TraceFormatError, match=r"job_events/part-00000-of-00500\.csv\.gz, " + message
    ):
        read_job_events([0], directory=tmp_path)


def test_alibaba_2017_error_names_the_line_counting_the_header(tmp_path):
    path = tmp_path / "cluster-trace-v2017" / "batch_task.csv.gz"
    path.parent.mkdir(parents=True)
    rows = ["6459,6524,3,4,15740,Terminated,50,0.007956928"] * 498 + [
        "6459,6524,3,x,15740,Terminated,50,0.01"
    ]
    with gzip.open(
        path, "wt"
    ) as f:  # header = line 1, rows = lines 2..499, the bad one is line 500
        f.write(
            "task_create_time, task_end_time, job_id, task_id,number_of_instances, status, a,b\n"
            + "\n".join(rows)
            + "\n"
        )
    with pytest.raises(
        TraceFormatError,
        match=r"batch_task\.csv\.gz, line 500, column 'task_id': 'x' is not a "
        r"number",
    ):
        read_batch_task("2017", directory=tmp_path)


def test_fetch_dest_that_is_a_file_is_refused(tmp_path, capsys):
    target = tmp_path / "a_file"
    target.write_text("not a directory")
    assert fetch_main(["google", "--tables", "schema", "--dest", str(target)]) == 2
    err = capsys.readouterr().err
    assert f"fetch: --dest = {str(target)!r}: must name a directory, not a file" in err
    assert fetch_main(["google", "--tables", "schema", "--dest", str(target / "sub")]) == 2
    assert "a part of it is a file, not a folder" in capsys.readouterr().err


@pytest.mark.parametrize(
    "sep, message",
    [
        ("[", r"sep = '\[': not a regular expression"),
        ("x*", r"sep = 'x\*': matches the empty string"),
        (b",", r"sep = b',': expected a regular expression \(str\)"),
    ],
)
def test_compare_text_names_a_separator_that_is_no_regular_expression(sep, message):
    """``re.error`` (or a TypeError) leaked from the separator; a pattern that matches the empty
    string split every line into characters."""
    from fairlib.repro.verify import compare_text

    with pytest.raises(InvalidInputError, match=message):
        compare_text("1,2\n", "1,2\n", sep=sep)


# --- refusals at the boundary that the code after it would miss or misname ------------------------


def _pool():
    return Cluster.single_pool([9.0, 18.0], [[1.0, 4.0], [3.0, 1.0]])


def _servers():
    return Cluster([[4.0, 4.0], [6.0, 2.0]], [[1.0, 2.0], [2.0, 1.0]])


def _keeps_servers(cluster):
    return cluster


_keeps_servers.keeps_servers = True


class _HoldsAFunction:
    """Not callable, but holding a callable ``function``, which keeps_servers follows."""

    function = staticmethod(_keeps_servers)


def _guarantees():
    return Quotas.yarn(min_share=[[1.0, 1.0], [1.0, 1.0]])


@pytest.mark.parametrize(
    "call, message",
    [
        # the quotas are resolved against the cluster's demands before the coefficients see it
        (lambda: drfh("pool", quotas=_guarantees()), r"cluster = 'pool': must be a Cluster"),
        (lambda: tsf("pool", quotas=_guarantees()), r"cluster = 'pool': must be a Cluster"),
        # the single-pool helper after it refuses too, but without the value
        (lambda: asset_share_per_task("pool"), r"cluster = 'pool': must be a Cluster"),
        (lambda: asset_fairness("pool"), r"cluster = 'pool': must be a Cluster"),
        (lambda: ceei("pool"), r"cluster = 'pool': must be a Cluster"),
        # the check of alphas after it would blame alphas
        (lambda: psmfa("pool", 1.0), r"^cluster = 'pool': must be a Cluster"),
        # a scalar or a one-resource demand broadcasts against a bundle of three resources
        (
            lambda: leontief_tasks([6.0, 4.0, 9.0], [2.0]),
            r"demand = \[2\.0\]: expected one entry per resource in both",
        ),
        (lambda: leontief_tasks(6.0, [2.0, 3.0]), r"expected one entry per resource in both"),
        # a mechanism that keeps the servers runs on the cluster as given
        (
            lambda: on_merged_servers(_keeps_servers, "pool"),
            r"cluster = 'pool': must be a Cluster",
        ),
        (
            lambda: on_merged_servers(_HoldsAFunction(), _servers()),
            r"mechanism = .*: expected a callable",
        ),
        # non-finite tasks are answered (inf) before the constraints that read time_shared
        (
            lambda: nash_residual(_servers(), [[np.nan, 1.0], [1.0, 1.0]], 1.0, time_shared="yes"),
            r"time_shared = 'yes': must be True or False",
        ),
        # the market branches on time_shared before the constraints that check it
        (
            lambda: psdsf(_servers(), time_shared=np.array([True, False])),
            r"time_shared = array\(.*\): must be True or False",
        ),
    ],
)
def test_the_boundary_refuses_what_the_code_after_it_would_miss(call, message):
    with pytest.raises(InvalidInputError, match=message):
        call()


def test_integer_bounds_are_checked_as_given_before_the_int64_cast():
    """A uint64 past 2**63 - 1 was cast to int64 first: parallelism = 2**63 (a valid bound, beyond
    any number of machines) was refused as ``parallelism[0] = -9223372036854775808``, and a start
    of 2**63 tasks as a negative count. The shared helper (``as_integers``) compares the input's own
    values: a bound that binds nothing is read as the number of machines, an out-of-range value is
    refused showing the value given."""
    from fairlib.multires import drf

    shares = [[0.5, 0.2], [0.2, 0.3], [0.3, 0.5]]
    huge = np.uint64(2**63)
    assert metrics.envy_freeness(W, shares, parallelism=huge) == metrics.envy_freeness(W, shares)
    np.testing.assert_array_equal(
        metrics.bundle_values(W, shares, parallelism=np.array([2**64 - 1, 1, 2], np.uint64)),
        metrics.bundle_values(W, shares, parallelism=[2, 1, 2]),
    )
    with pytest.raises(
        InvalidInputError, match=r"parallelism\[0\] = 9223372036854775808: must be between 1 and"
    ):
        Game(W, parallelism=huge, reserve=1e-6)
    with pytest.raises(InvalidInputError, match=r"start\[0\] = 9223372036854775808: must be betw"):
        drf([[1.0, 4.0], [3.0, 1.0]], [9.0, 18.0], start=np.array([2**63, 0], np.uint64))


# --- None where the signature does not say it is a value ----------------------------------------


def _seeded_calls():
    """Every function whose result a seed must repeat (experiment drivers, measurements behind
    claims, sweep roots), as ``seed -> result``."""
    from fairlib import sweep
    from fairlib.repro.experiments import (
        google_open_loop,
        heterogeneous_servers,
        precomputed_drf,
        template,
    )

    runs = pd.DataFrame({"demands": "1-10", "over_total": [0, 1, 0, 2], "over_max": [0, 1, 0, 2]})
    return {
        "sample_ids": lambda seed: google_open_loop.sample_ids([3, 1, 2], 0.5, seed),
        "sd_bootstrap_interval": lambda seed: precomputed_drf.sd_bootstrap_interval(
            [1.0, 2.0, 3.0], resamples=20, seed=seed
        ),
        "table1_tail_findings": lambda seed: precomputed_drf.table1_tail_findings(
            runs, resamples=20, seed=seed
        ),
        "template.experiment": lambda seed: template.experiment("quick", seed),
        "theorem_checks": lambda seed: heterogeneous_servers.theorem_checks(seed, 0),
        "cell_seed": lambda seed: sweep.cell_seed(seed, {"users": 1}, 0),
    }


@pytest.mark.parametrize(
    "name",
    [
        "sample_ids",
        "sd_bootstrap_interval",
        "table1_tail_findings",
        "template.experiment",
        "theorem_checks",
        "cell_seed",
    ],
)
def test_a_seed_that_must_repeat_its_result_refuses_none_saying_why(name):
    """None would draw fresh OS entropy: the run could not be repeated. One rule
    (``as_rng(..., reproducible=True)``, :data:`fairlib._validate.FRESH_ENTROPY`), one message."""
    seed_name = "rng" if name == "cell_seed" else "seed"
    with pytest.raises(
        InvalidInputError,
        match=rf"{seed_name} = None: pass an integer seed; None would draw fresh entropy and the "
        "result could not be reproduced",
    ):
        _seeded_calls()[name](None)


def test_a_library_generator_documented_to_take_none_draws_fresh_entropy():
    from fairlib.market import uniform_preferences
    from fairlib.multires import random_pool

    assert uniform_preferences(None, 2, 3).shape == (2, 3)
    assert random_pool(None, 3).n_users == 3


def test_a_step_refuses_n_none_and_a_run_reads_it_as_the_agents_present():
    """A step belongs to a run planned for n agents: the shared helper no longer reads None, and
    the functions whose signature takes None map it to the agents present themselves."""
    from fairlib.dynamic import cautious_lp, dynamic_drf_step, static_drf_levels

    with pytest.raises(InvalidInputError, match=r"n = None: must be an integer"):
        dynamic_drf_step([[1, 1], [1, 0.5]], [0.5], None)
    d = [[1, 1e-9], [1e-9, 1], [1, 1]]
    np.testing.assert_array_equal(dynamic_drf(d, None).levels, dynamic_drf(d, 3).levels)
    np.testing.assert_array_equal(static_drf_levels(d, None), static_drf_levels(d, 3))
    np.testing.assert_array_equal(cautious_lp(d, None)["levels"], cautious_lp(d, 3)["levels"])


def test_proportional_share_refuses_max_iter_none():
    """run_dynamics would read None as its own 200 rounds, not this function's default 5000."""
    from fairlib.market import proportional_share

    with pytest.raises(InvalidInputError, match=r"max_iter = None: must be an integer >= 1"):
        proportional_share(Game([[0.7, 0.3], [0.7, 0.3]], reserve=1e-9), max_iter=None)


def test_reader_value_shows_none_as_the_missing_value():
    from fairlib.repro.tables import MISSING, reader_value

    assert reader_value(None) == MISSING and reader_value([1, None]) == f"1, {MISSING}"


_REGISTRY = """
[[claim]]
id = "one"
kind = "finding"
source = "§1"
statement = "one"
paper_value = 1.0
tol = 0.1
"""


@pytest.mark.parametrize(
    "claims, message",
    [
        (None, r"claims = None: must be a list, got NoneType"),
        (["one"], r"claims\[0\] = 'one': must be a Claim, got str"),
    ],
)
def test_a_claim_log_refuses_claims_that_are_not_a_list_of_claims(claims, message):
    with pytest.raises(InvalidInputError, match=message):
        ClaimLog("demo", write=False, registry=_REGISTRY, claims=claims)
    assert ClaimLog("demo", write=False, registry=_REGISTRY).claims == []


def test_missing_traces_message_refuses_what_is_no_folder_name():
    from fairlib.paths import missing_traces_message

    for bad in (None, "", "../google"):
        with pytest.raises(InvalidInputError, match=r"folder = .*: must be letters, digits"):
            missing_traces_message(bad)
