"""Bad input and faults: every call ends in one of two ways — a documented exception naming the
argument, index and value, or a result that passes the mechanism's own invariants. Each reproducer
of issue-listed failures is a regression test here; hypothesis strategies push magnitudes, zeros and
ties."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairlib import sim
from fairlib._validate import InvalidInputError
from fairlib.multires import drf, psdsf
from tests.test_sim import _jobs, _one_server_fleet

# --- hangs ----------------------------------------------------------------------------------------


def test_drf_refuses_instances_beyond_its_step_bound():
    with pytest.raises(
        InvalidInputError, match=r"up to 10,000,000,000,000 steps .* max_allocations = 2000000000"
    ):
        drf([[1.0]], [1e13])
    assert drf([[1.0]], [1e6]).tasks.tolist() == [1_000_000]
    with pytest.raises(InvalidInputError, match="max_allocations"):
        drf([[1.0]], [1e6], max_allocations=10)
    with pytest.raises(InvalidInputError, match=r"max_allocations = 0"):
        drf([[1.0]], [5], max_allocations=0)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"horizon": np.inf}, r"horizon = inf: must be a finite number"),
        ({"horizon": np.nan}, r"horizon = nan: must be a finite number"),
        ({"start": np.nan}, r"start = nan: must be a finite number"),
        ({"start": 50.0, "horizon": 10.0}, r"horizon = 10\.0: must be after start = 50\.0"),
        ({"interval": 1e-300}, r"interval = 1e-300: must be a finite number >= 0\.001"),
        ({"interval": np.inf}, r"interval = inf"),
        ({"horizon": 1e12, "interval": 1.0}, r"more than 10,000,000"),
        ({"eligible": [[0.5], [1.0]]}, r"eligible\[0, 0\] = 0\.5"),
        ({"eligible": [[np.nan], [1.0]]}, r"eligible\[0, 0\] = nan"),
    ],
)
def test_replay_refuses_unbounded_or_meaningless_times(kwargs, message):
    fleet = _one_server_fleet()
    with pytest.raises(InvalidInputError, match=message):
        sim.replay(fleet, _jobs([0, 0], [10, 5], [[1, 0.5], [0.5, 1]]), psdsf, **kwargs)


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("arrival", [np.nan, 0.0], r"jobs\.arrival\[0\] = nan: must be finite"),
        ("work", [-1.0, 5.0], r"jobs\.work\[0\] = -1\.0: must be finite and >= 0"),
        ("work", [np.inf, 5.0], r"jobs\.work\[0\] = inf"),
        ("shape", [[-1.0, 1.0], [1.0, 1.0]], r"jobs\.shape\[0, 0\] = -1\.0"),
        (
            "shape",
            [[0.0, 0.0], [1.0, 1.0]],
            r"jobs\.shape\[0\] = \[0\.0, 0\.0\]: a segment must demand some resource",
        ),
        ("trace_end", [-5.0, 100.0], r"jobs\.trace_end\[0\] = -5\.0: before its arrival"),
    ],
)
def test_jobs_reject_nonsense(field, value, message):
    good = _jobs([0, 0], [10, 5], [[1, 0.5], [0.5, 1]])
    fields = {
        f: getattr(good, f)
        for f in ("ids", "arrival", "trace_end", "offsets", "work", "shape", "resources", "source")
    }
    fields[field] = np.array(value, dtype=float)
    with pytest.raises(InvalidInputError, match=message):
        sim.Jobs(**fields)


# --- silent wrong answers -------------------------------------------------------------------------


def test_drf_uint64_caps_do_not_wrap():
    caps = np.array([2**64 - 1, 5], dtype=np.uint64)
    assert drf([[1, 1], [1, 1]], [10, 10], max_tasks=caps).tasks.tolist() == [5, 5]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.lists(st.integers(0, 6), min_size=2, max_size=2), min_size=1, max_size=5),
    st.lists(st.floats(1e-3, 1e6), min_size=2, max_size=2),
    st.lists(st.integers(0, 2**63 - 1), min_size=5, max_size=5),
)
def test_drf_either_refuses_or_allocates_feasibly(demands, capacity, caps):
    d = np.array(demands, dtype=float)
    d[d.sum(axis=1) == 0, 0] = 1.0
    try:
        res = drf(
            d, capacity, max_tasks=np.array(caps[: len(d)], dtype=np.int64), max_allocations=10**6
        )
    except InvalidInputError as e:
        assert "max_allocations" in str(e) or "overflow" in str(e)
        return
    assert (res.tasks >= 0).all() and (res.tasks <= np.array(caps[: len(d)])).all()
    assert (res.tasks @ d <= np.array(capacity) * (1 + 1e-9)).all()


# --- overflow and underflow in kernels ------------------------------------------------------------

from fairlib import market  # noqa: E402
from fairlib.multires import Cluster, edrf, pdrf, pfvds  # noqa: E402
from fairlib.multires.pfvds import nash_residual  # noqa: E402


@pytest.mark.parametrize(
    "w, y, budget",
    [
        ([1e300] * 3, [1e300] * 3, 1e300),
        ([1, 1], [1, 1], 1e-17),
        ([5e-324], [2.0], 1.0),
        ([1, 1, 1], [1, 2, 3], 1e-12),
        ([1e-300, 1.0], [1.0, 1.0], 1.0),
    ],
)
def test_best_response_at_extreme_magnitudes_spends_the_budget(w, y, budget):
    bids = market.best_response(w, y, budget)
    assert np.isfinite(bids).all() and (bids >= 0).all()
    assert bids.sum() == pytest.approx(budget, rel=1e-9)
    k_bids, _ = market.best_response_finite(w, y, budget, 2)
    assert np.isfinite(k_bids).all() and k_bids.sum() == pytest.approx(budget, rel=1e-9)


def test_best_response_names_a_bid_below_the_float_range():
    with pytest.raises(
        InvalidInputError, match=r"y\[0\] = 1e-300: more than the float range below"
    ):
        market.best_response([1, 1], [1e-300, 1e300], 1.0)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(1e-6, 1.0), min_size=1, max_size=6),
    st.integers(-300, 300),
    st.integers(-300, 300),
    st.integers(0, 2**32 - 1),
)
def test_best_response_is_scale_free(w, wexp, yexp, seed):
    # bids scale with (y, X) and do not depend on the scale of w (the closed form is homogeneous)
    g = np.random.default_rng(seed)
    w = np.array(w)
    y = g.uniform(0.1, 1.0, len(w))
    ref = market.best_response(w, y, 1.0)
    got = market.best_response(w * 10.0**wexp, y * 10.0**yexp, 10.0**yexp)
    np.testing.assert_allclose(got / 10.0**yexp, ref, rtol=1e-9, atol=1e-12)


def test_dynamics_with_budgets_near_the_float_range():
    w = market.uniform_preferences(np.random.default_rng(0), 5, 8)
    small = market.run_dynamics(market.Game(w, budgets=1.0, reserve=1e-6))
    huge = market.run_dynamics(market.Game(w, budgets=1e300, reserve=1e294))
    np.testing.assert_allclose(huge.bids.sum(axis=1), 1e300, rtol=1e-12)
    np.testing.assert_allclose(huge.efficiency, small.efficiency, rtol=1e-9)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"eps": np.nan}, r"eps = nan"),
        ({"eps": -1.0}, r"eps = -1\.0"),
        ({"max_iter": 2.5}, r"max_iter = 2\.5"),
        ({"gap_tol": 0.0}, r"gap_tol = 0\.0"),
        ({"initial_bids": np.full((3, 4), np.nan)}, r"initial_bids\[0, 0\] = nan"),
        ({"initial_bids": -np.ones((3, 4))}, r"initial_bids\[0, 0\] = -1\.0"),
        ({"initial_bids": np.ones((3, 4))}, r"initial_bids\[0\] sums to 4\.0"),
    ],
)
def test_dynamics_secondary_parameters(kwargs, message):
    game = market.Game(market.uniform_preferences(np.random.default_rng(1), 3, 4), reserve=1e-6)
    with pytest.raises(InvalidInputError, match=message):
        market.run_dynamics(game, **kwargs)


def test_pdrf_overflowing_share_is_named():
    with pytest.raises(
        InvalidInputError, match=r"demands\[0\] / capacity: a per-task share overflows"
    ):
        pdrf([[1e300, 1], [1, 1]], [1e-300, 10])


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.lists(st.integers(0, 6), min_size=3, max_size=3), min_size=1, max_size=6),
    st.lists(st.integers(1, 60), min_size=3, max_size=3),
)
def test_pdrf_documented_guarantee_with_zero_demands(demands, capacity):
    # PDRF = floor(first round of EDRF) <= floor(EDRF); equality when every user demands every
    # resource
    d = np.array(demands, dtype=float)
    d[d.sum(axis=1) == 0, 0] = 1.0
    p, e = pdrf(d, capacity).tasks, edrf(d, capacity).tasks
    assert (p <= np.floor(e + 1e-9)).all()
    if (
        d > 0
    ).all():  # one EDRF round: PDRF is its floor (an exact integer EDRF value may round either way)
        assert (p >= np.floor(e - 1e-9)).all()


# --- results that said converged when they did not ------------------------------------------------


@pytest.mark.parametrize(
    "alpha, message",
    [
        (1e-300, r"alpha\[0\] = 1e-300: below 0\.01"),
        (1e-4, r"alpha\[0\] = 0\.0001"),
        ("1", r"alpha = '1'"),
        (True, r"alpha = True"),
    ],
)
def test_pfvds_alpha_range(alpha, message):
    with pytest.raises(InvalidInputError, match=message):
        pfvds(Cluster([[9, 18]], [[1, 4], [3, 1]]), alpha)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"method": "distributed", "options": {"step": np.nan}}, r"options\['step'\] = nan"),
        ({"method": "distributed", "options": {"kappa": -1.0}}, r"options\['kappa'\] = -1\.0"),
        ({"options": {"max_sweeps": 0}}, r"options\['max_sweeps'\] = 0"),
        ({"options": {"tol": np.nan}}, r"options\['tol'\] = nan"),
        ({"method": "psmfa", "iterations": 2.5}, r"iterations = 2\.5"),
        ({"method": "psmfa", "options": {"iterations": 2.5}}, r"options\['iterations'\] = 2\.5"),
    ],
)
def test_pfvds_secondary_parameters(kwargs, message):
    with pytest.raises(InvalidInputError, match=message):
        pfvds(Cluster([[9, 18]], [[1, 4], [3, 1]]), 1.0, **kwargs)


def test_psdsf_tolerance_checked():
    with pytest.raises(InvalidInputError, match=r"options\['tol'\] = nan"):
        psdsf(Cluster([[9, 18]], [[1, 4], [3, 1]]), method="fixed_point", options={"tol": np.nan})


def test_nash_residual_sees_nan_tasks():
    c = Cluster([[9, 18]], [[1, 4], [3, 1]])
    assert nash_residual(c, [[np.nan], [1.0]], 1.0) == np.inf


# --- trace loaders against generated corruptions --------------------------------------------------

import gzip  # noqa: E402
import os  # noqa: E402

import pandas as pd  # noqa: E402

from fairlib.traces import TraceFormatError, read_batch_task, read_task_events  # noqa: E402
from tests.test_traces import ROW, _write  # noqa: E402

SHORT = ROW.rsplit(",", 1)[0] + "\n"  # the trailing field missing


@pytest.mark.parametrize(
    "text, message",
    [
        (ROW + SHORT, r"part-00000-of-00500\.csv\.gz, line 2: 12 field\(s\), expected 13"),
        (ROW + "\n" + ROW, r"line 2: 1 field\(s\), expected 13 \(a blank line\)"),
        (ROW + ROW.replace("0.125", "abc"), r"line 2, column 'cpu_request': 'abc' is not a number"),
        (
            ROW + ROW.replace("0.125", "-0.5"),
            r"line 2, column 'cpu_request': -0\.5 must be finite and >= 0",
        ),
        (
            ROW + ROW.replace("0.125", "inf"),
            r"line 2, column 'cpu_request': inf must be finite and >= 0",
        ),
        (
            ROW + ROW.replace(",3418309,", ",,"),
            r"line 2, column 'job_id': empty, a value is required",
        ),
        ("", r"is empty \(no rows\)"),
        ("\n\n", r"is empty \(no rows\)"),
    ],
)
def test_google_loader_names_file_and_line(tmp_path, text, message):
    _write(tmp_path, text)
    with pytest.raises(TraceFormatError, match=message):
        read_task_events([0], directory=tmp_path)


def test_google_loader_file_faults(tmp_path):
    folder = tmp_path / "task_events"
    (folder / "part-00000-of-00500.csv.gz").mkdir(parents=True)
    with pytest.raises(TraceFormatError, match="is a directory, not a file"):
        read_task_events([0], directory=tmp_path)
    _write(tmp_path, ROW, part=1)
    path = folder / "part-00001-of-00500.csv.gz"
    (folder / "part-00002-of-00500.csv.gz").write_bytes(b"")
    with pytest.raises(TraceFormatError, match=r"part-00002-of-00500\.csv\.gz: .*(empty|corrupt)"):
        read_task_events([2], directory=tmp_path)
    if os.geteuid() != 0:  # root reads anything: the permission case needs a normal user
        path.chmod(0)
        with pytest.raises(
            PermissionError, match=r"part-00001-of-00500\.csv\.gz: .*cannot be read"
        ):
            read_task_events([1], directory=tmp_path)
    with pytest.raises(InvalidInputError, match=r"parts: 500 is not a part of task_events"):
        read_task_events([500], directory=tmp_path)


def test_alibaba_loader_negative_request(tmp_path):
    path = tmp_path / "cluster-trace-v2017" / "batch_task.csv.gz"
    path.parent.mkdir(parents=True)
    with gzip.open(path, "wt") as f:
        f.write("1,2,3,4,5,Terminated,100,0.5\n1,2,3,4,5,Terminated,-100,0.5\n")
    with pytest.raises(
        TraceFormatError, match=r"line 2, column 'plan_cpu': -100\.0 must be finite and >= 0"
    ):
        read_batch_task("2017", directory=tmp_path)


@settings(max_examples=40, deadline=None)
@given(
    st.integers(0, 5),
    st.sampled_from(["drop_field", "extra_field", "blank", "text", "negative", "truncate"]),
)
def test_google_loader_any_corruption_is_an_error_or_clean(tmp_path_factory, row, kind):
    tmp = tmp_path_factory.mktemp("corrupt")
    rows = [ROW] * 6
    if kind == "drop_field":
        rows[row] = rows[row].rsplit(",", 1)[0] + "\n"
    elif kind == "extra_field":
        rows[row] = rows[row].rstrip("\n") + ",7\n"
    elif kind == "blank":
        rows[row] = "\n"
    elif kind == "text":
        rows[row] = rows[row].replace("0.07446", "x")
    elif kind == "negative":
        rows[row] = rows[row].replace("0.07446", "-1")
    _write(tmp, "".join(rows))
    if kind == "truncate":
        path = tmp / "task_events" / "part-00000-of-00500.csv.gz"
        path.write_bytes(path.read_bytes()[: -(row + 8)])
    with pytest.raises((TraceFormatError, InvalidInputError)) as err:
        read_task_events([0], directory=tmp)
    assert "part-00000-of-00500.csv.gz" in str(err.value)


# --- unvalidated helpers and secondary parameters -------------------------------------------------

from fairlib import metrics  # noqa: E402
from fairlib.multires import drfh, tsf  # noqa: E402
from fairlib.multires.checks.server_properties import property_violations  # noqa: E402


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: market.two_player_equilibria(1 - 1e-16),
            r"alpha = 0\.9999999999999999: must be a finite number >= 0\.5",
        ),
        (lambda: market.two_player_equilibria_numeric(2.0), r"alpha = 2\.0"),
        (lambda: market.allocation([[-1.0, 1.0], [1.0, 1.0]]), r"bids\[0, 0\] = -1\.0"),
        (lambda: market.weight_proportional_bids([[np.nan, 1.0]], [1.0]), r"weights\[0, 0\] = nan"),
        (lambda: market.welfare_optimum([[np.nan, 1.0]]), r"weights\[0, 0\] = nan"),
        (lambda: market.social_optimum(np.ones((2, 3)), 0), r"parallelism\[0\] = 0"),
        (lambda: metrics.jain_index([]), r"values: expected a non-empty vector"),
        (
            lambda: metrics.envy_freeness(np.ones((2, 3)), np.ones((3, 2))),
            r"weights, shares: expected two",
        ),
        (
            lambda: market.best_response(np.array([1 + 1j, 1]), [1, 1], 1),
            r"w = .*: expected real numbers, got dtype c",
        ),
        (
            lambda: market.best_response(["1", "1"], [1, 1], 1),
            r"w: must be numeric, got dtype <U1: \[.1., .1.\]",
        ),
        (
            lambda: market.best_response([True, True], [1, 1], 1),
            r"w = .*: expected real numbers, got dtype bool",
        ),
        (lambda: market.best_response([1, 1], [1, 1], True), r"budget = True"),
    ],
)
def test_helpers_name_bad_arguments(call, message):
    with pytest.raises(InvalidInputError, match=message):
        call()


FIG1 = Cluster([[12, 4, 75], [8, 16, 0]], [[1, 1, 5], [0.5, 0.5, 2], [1, 3, 0], [2, 5, 0]])


@pytest.mark.parametrize(
    "tasks, message",
    [
        (np.full((4, 2), np.nan), r"tasks\[0, 0\] = nan"),
        (-np.ones((4, 2)), r"tasks\[0, 0\] = -1\.0"),
        (
            np.array([[0, 1.0], [0, 0], [0, 0], [0, 0]]),
            r"tasks\[0, 1\] = 1\.0: .*cannot use server 1",
        ),
        (
            np.array([[100.0, 0], [0, 0], [0, 0], [0, 0]]),
            r"server 0 uses 100 of resource 0, capacity 12",
        ),
        (np.ones((3, 2)), r"tasks = .*: expected shape \(4, 2\)"),
    ],
)
def test_property_checkers_refuse_non_allocations(tasks, message):
    with pytest.raises(InvalidInputError, match=message):
        property_violations(FIG1, tasks)


@pytest.mark.parametrize("scale", [1e300, 1e-300])
def test_clusters_outside_the_solvers_range_are_named(scale):
    with pytest.raises(
        InvalidInputError, match=r"capacity\[0\] / demand\[0\]: user 0 could run .* tasks alone"
    ):
        Cluster(FIG1.capacity * scale, FIG1.demand)


@pytest.mark.parametrize("scale", [1e25, 1e-25])
def test_mechanisms_scale_with_units_inside_the_range(scale):
    big = Cluster(FIG1.capacity * scale, FIG1.demand)
    for mech in (drfh, tsf, psdsf, lambda c: pfvds(c, 2.0)):
        np.testing.assert_allclose(mech(big).totals / scale, mech(FIG1).totals, rtol=1e-5)


from fairlib.dynamic import dynamic_drf, dynamic_drf_step, static_drf_levels  # noqa: E402

D3 = np.array([[1, 0.5], [0.5, 1], [1, 1.0]])


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: dynamic_drf_step(D3, [5, 5], 3),
            r"previous_shares: use 7\.5 of resource 0, more than the capacity",
        ),
        (lambda: dynamic_drf_step(D3, [np.nan, 0.1], 3), r"previous_shares\[0\] = nan"),
        (lambda: dynamic_drf_step(D3, [0.1, 0.1], 2.5), r"n = 2\.5: must be an integer"),
        (lambda: static_drf_levels(D3, 3.9), r"n = 3\.9: must be an integer"),
        (lambda: dynamic_drf(D3, 3.5), r"n = 3\.5: must be an integer"),
        (lambda: dynamic_drf(D3, float("nan")), r"n = nan: must be an integer"),
    ],
)
def test_dynamic_drf_arguments(call, message):
    with pytest.raises(InvalidInputError, match=message):
        call()


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.lists(st.floats(0.0, 1.0), min_size=2, max_size=2), min_size=1, max_size=8),
    st.integers(0, 3),
)
def test_dynamic_drf_step_from_a_feasible_state_stays_feasible(rows, extra):
    d = np.array(rows)
    d[d.max(axis=1) == 0, 0] = 1.0
    d = d / d.max(axis=1, keepdims=True)
    k, n = len(d), len(d) + extra
    prev = dynamic_drf(d[: k - 1], n).shares(k - 1) if k > 1 else np.zeros(0)
    x = dynamic_drf_step(d, prev, n)
    assert np.isfinite(x).all() and (x >= prev.tolist() + [0.0]).all()
    assert (x @ d <= k / n * (1 + 1e-9) + 1e-12).all()


# --- sweep, report and run_all faults -------------------------------------------------------------

from fairlib.repro.ledger import ClaimLog  # noqa: E402
from fairlib.sweep import SweepError, sweep  # noqa: E402
from tests.test_sweep import draw_cell  # noqa: E402


def clashing_cell(seed, users):
    return {"users": users + 1, "value": 1.0}


def dying_cell(seed, x):
    import os as _os

    if x == 2:
        _os._exit(3)  # the worker process dies, as an out-of-memory kill would
    return {"value": x}


def test_sweep_refuses_a_column_named_like_the_grid():
    """A column naming a grid parameter is that cell's failure, like any other: a SweepError after
    the cells ran, and with errors="keep" a failure row; it was a bare ValueError that aborted the
    sweep, even with errors="keep"."""
    from fairlib.sweep import SweepError

    with pytest.raises(SweepError, match=r"returned column\(s\) \['users'\]"):
        sweep(clashing_cell, {"users": [1, 2]}, backend="serial", progress=False)
    with pytest.warns(RuntimeWarning, match="2 of 2 cells failed"):
        kept = sweep(
            clashing_cell, {"users": [1, 2]}, backend="serial", progress=False, errors="keep"
        )
    assert len(kept) == 0 and len(kept.attrs["failures"]) == 2


def test_sweep_recomputes_a_truncated_cache_entry(tmp_path, monkeypatch):
    monkeypatch.setenv("FAIRLIB_BUILD_DIR", str(tmp_path))
    first = sweep(
        draw_cell,
        {"users": [3], "scale": [1.0]},
        rng=1,
        backend="serial",
        cache=True,
        progress=False,
    )
    (entry,) = (tmp_path / "sweep-cache").rglob("*.pkl")
    entry.write_bytes(entry.read_bytes()[:5])
    with pytest.warns(RuntimeWarning, match=rf"{entry.name} is unreadable"):
        again = sweep(
            draw_cell,
            {"users": [3], "scale": [1.0]},
            rng=1,
            backend="serial",
            cache=True,
            progress=False,
        )
    assert again.attrs["sweep"]["ran"] == 1
    pd.testing.assert_frame_equal(first, again)


def test_sweep_keeps_finished_rows_when_a_worker_dies():
    with pytest.raises(SweepError) as err:
        sweep(dying_cell, {"x": list(range(8))}, backend="loky", n_jobs=2, progress=False)
    e = err.value
    assert len(e.results) + len(e.failures) == 8 and len(e.failures) >= 1
    assert e.failures.error.str.contains("did not finish").all()


def test_claim_log_key_cannot_leave_the_output_folders():
    with pytest.raises(ValueError, match=r"key = '\.\./\.\./x'"):
        ClaimLog("../../x", registry=[])


def test_outputs_are_written_whole_then_renamed(tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from fairlib.repro.outputs import save_figure, save_table

    monkeypatch.setenv("FAIRLIB_BUILD_DIR", str(tmp_path))
    path = save_table(pd.DataFrame({"a": [1.0]}), "atomic", "t", mode="quick")
    fig, ax = plt.subplots()
    ax.plot([0, 1])
    figs = save_figure(fig, "atomic", "f", mode="quick")
    plt.close(fig)
    assert path.read_text() == "a\n1\n" and all(p.stat().st_size > 0 for p in figs)
    assert not [p for p in tmp_path.rglob("*") if ".tmp" in p.name]


def test_a_failed_table_write_leaves_the_old_file(tmp_path, monkeypatch):
    from fairlib.repro.outputs import save_table

    monkeypatch.setenv("FAIRLIB_BUILD_DIR", str(tmp_path))
    path = save_table(pd.DataFrame({"a": [1]}), "atomic", "t", mode="quick")

    class Broken(pd.DataFrame):
        def to_csv(self, target, **kw):
            with open(target, "w") as f:
                f.write("a\\n")
            raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        save_table(Broken({"a": [2]}), "atomic", "t", mode="quick")
    assert path.read_text() == "a\n1\n" and not [p for p in tmp_path.rglob("*") if ".tmp" in p.name]


# --- every mechanism at extreme magnitudes: a named error or a result meeting its invariants ------

MAGNITUDE = st.sampled_from([1e-300, 1e-150, 1e-30, 1e-6, 1.0, 1e6, 1e30, 1e150, 1e300])


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.lists(st.integers(0, 4), min_size=2, max_size=2), min_size=1, max_size=4),
    MAGNITUDE,
    MAGNITUDE,
    st.lists(st.integers(1, 50), min_size=2, max_size=2),
)
def test_single_pool_mechanisms_at_extreme_magnitudes(demands, d_scale, c_scale, capacity):
    d = np.array(demands, dtype=float)
    d[d.sum(axis=1) == 0, 0] = 1.0
    d, cap = d * d_scale, np.array(capacity, dtype=float) * c_scale
    for mech in (edrf, pdrf, lambda a, b: drf(a, b, max_allocations=10**6)):
        try:
            res = mech(d, cap)
        except InvalidInputError as e:
            assert str(e)  # named, never empty
            continue
        t = np.asarray(res.tasks, dtype=float)
        assert np.isfinite(t).all() and (t >= 0).all()
        with np.errstate(over="ignore"):
            used = t @ d
        assert (used <= cap * (1 + 1e-9)).all()


@settings(max_examples=40, deadline=None)
@given(MAGNITUDE, MAGNITUDE, st.integers(0, 2**32 - 1))
def test_cluster_mechanisms_at_extreme_magnitudes(c_scale, d_scale, seed):
    from fairlib.multires.cluster import random_cluster

    base = random_cluster(np.random.default_rng(seed), 4, 2, 2)
    try:
        c = Cluster(base.capacity * c_scale, base.demand * d_scale, eligible=base.eligible)
    except InvalidInputError as e:
        assert "rescale the units" in str(e) or "must be" in str(e)
        return
    for mech in (drfh, tsf, psdsf, lambda c: pfvds(c, 2.0)):
        x = mech(c).tasks
        assert (
            np.isfinite(x).all()
            and (x >= -1e-12 * x.max()).all()
            and c.feasible(np.maximum(x, 0), tol=1e-7)
        )


# --- secondary parameters across the public API ---------------------------------------------------

from fairlib import dynamic as _dyn  # noqa: E402
from fairlib import sim as _sim  # noqa: E402
from fairlib.traces import bitbrains_fleet, synthetic_task_requests  # noqa: E402

_W = market.uniform_preferences(np.random.default_rng(0), 3, 4)
_X = market.weight_proportional_bids(_W)
SECONDARY = {
    "drfh tol": lambda v: drfh(FIG1, options={"tol": v}),
    "tsf tol": lambda v: tsf(FIG1, options={"tol": v}),
    "equilibrium_violation tol": lambda v: market.equilibrium_violation(
        _W, _X, tol=v, reserve=1e-6
    ),
    "equilibrium_violation reserve": lambda v: market.equilibrium_violation(_W, _X, reserve=v),
    "marginal_utilities reserve": lambda v: market.marginal_utilities(_W, _X, reserve=v),
    "proportional_guarantee_bids budget": lambda v: market.proportional_guarantee_bids(
        np.ones(4), budget=v
    ),
    "correlated_preferences dim": lambda v: market.correlated_preferences(0, 3, 4, dim=v),
    "uniform_preferences n_users": lambda v: market.uniform_preferences(0, v, 4),
    "maxsum_counterexample eps": lambda v: _dyn.maxsum_counterexample(3, eps=v),
    "check_properties tol": lambda v: _dyn.check_properties(_dyn.dynamic_drf(D3), tol=v),
    "strategyproofness_spot_check trials": lambda v: _dyn.strategyproofness_spot_check(
        D3, rng=0, trials=v
    ),
    "location_eligibility reach": lambda v: _sim.location_eligibility(
        bitbrains_fleet(), 10, rng=0, reach=v
    ),
    "synthetic_task_requests size": lambda v: synthetic_task_requests(0, v),
    "bitbrains_fleet locations": lambda v: bitbrains_fleet(locations=v),
    "pfvds max_sweeps": lambda v: pfvds(FIG1, 1.0, options={"max_sweeps": v}),
    "run_dynamics max_iter": lambda v: market.run_dynamics(
        market.Game(_W, reserve=1e-6), max_iter=v
    ),
}


@pytest.mark.parametrize("name", sorted(SECONDARY))
@pytest.mark.parametrize("value", [float("nan"), -1, True, float("inf")])
def test_secondary_parameters_refuse_nonsense(name, value):
    with pytest.raises(InvalidInputError):
        SECONDARY[name](value)


# --- weights and units at every magnitude ---------------------------------------------------------

from fairlib.multires import ceei, hierarchical_drf, maxmin_lp  # noqa: E402
from fairlib.multires.cluster import leontief_tasks  # noqa: E402
from fairlib.multires.schedulers.sorter import DRFSorter  # noqa: E402

#: exponents of two for a common factor of the weights: subnormal (2⁻¹⁰⁷⁴ to 2⁻¹⁰²²), just inside
#: the normal range, around 1 and near the top of the float range
WEIGHT_EXPONENTS = st.one_of(
    st.integers(-1066, -1022),
    st.integers(-1022, -990),
    st.integers(-70, 70),
    st.integers(960, 1015),
)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.integers(1, 5), min_size=2, max_size=4),
    st.lists(st.lists(st.integers(0, 4), min_size=2, max_size=2), min_size=4, max_size=4),
    WEIGHT_EXPONENTS,
)
def test_weighted_pool_mechanisms_read_weights_up_to_a_common_factor(w, rows, e):
    # weights count up to a common factor: the same allocation at every magnitude, subnormal and
    # near the top of the float range included (a power of two keeps the ratios exact)
    n = len(w)
    d = np.array(rows[:n], dtype=float)
    d[d.sum(axis=1) == 0, 0] = 1.0
    cap = [20.0, 30.0]
    scaled = np.ldexp(np.array(w, dtype=float), e)
    assert (scaled > 0).all() and np.isfinite(scaled).all()
    np.testing.assert_array_equal(drf(d, cap, weights=scaled).tasks, drf(d, cap, weights=w).tasks)
    np.testing.assert_allclose(
        maxmin_lp(d, cap, weights=scaled), maxmin_lp(d, cap, weights=w), rtol=1e-7, atol=1e-9
    )
    got = ceei(Cluster.single_pool(cap, d, weight=scaled))
    ref = ceei(Cluster.single_pool(cap, d, weight=w))
    assert got.converged == ref.converged
    np.testing.assert_allclose(got.totals, ref.totals, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("weight", [1e-310, 1e-300, 1e-280, 1e300])
def test_equal_weights_at_any_magnitude_are_equal_weights(weight):
    # decimal magnitudes as a caller writes them (not powers of two)
    d, cap = [[1, 4], [3, 1]], [9, 18]
    np.testing.assert_array_equal(
        drf([[1, 0], [1, 0]], [10, 1], weights=[weight, 2 * weight]).tasks, [4, 6]
    )
    np.testing.assert_allclose(maxmin_lp(d, cap, weights=[weight] * 2), [3, 2], rtol=1e-7)
    got = ceei(Cluster.single_pool(cap, d, weight=[weight] * 2))
    assert got.converged
    np.testing.assert_allclose(got.totals, [4.0909090909, 1.6363636364], rtol=1e-6)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4), st.integers(1, 4), st.integers(1, 4), WEIGHT_EXPONENTS)
def test_hierarchical_drf_reads_a_familys_weights_up_to_a_common_factor(a, b, c, e):
    D, C, P = [[1, 0], [0, 1], [1, 1]], [10, 10], ["eng/a", "eng/b", "sci/c"]
    ref = hierarchical_drf(D, C, P, weights={"eng": a, "sci": b, "eng/a": c})
    got = hierarchical_drf(
        D, C, P, weights={"eng": np.ldexp(a, e), "sci": np.ldexp(b, e), "eng/a": c}
    )
    np.testing.assert_array_equal(got.tasks, ref.tasks)


def test_hierarchical_drf_names_weights_whose_ratio_leaves_the_float_range():
    D, C, P = [[1, 0], [0, 1], [1, 1]], [10, 10], ["eng/a", "eng/b", "sci/c"]
    np.testing.assert_array_equal(
        hierarchical_drf(D, C, P, weights={"eng": 1e-310, "sci": 1e-310}).tasks, [5, 5, 5]
    )
    with pytest.raises(InvalidInputError, match=r"weights\['eng'\] = 1e-300: a weight must be"):
        hierarchical_drf(D, C, P, weights={"eng": 1e-300, "sci": 1e300})


@pytest.mark.parametrize("semantics", ["mesos", "yarn"])
@pytest.mark.parametrize("weight", [1e-300, 2.2250738585072014e-308, 1e300])
def test_sorters_order_by_weighted_share_at_extreme_weights(semantics, weight):
    s = DRFSorter([10, 10], semantics=semantics)
    s.add("b", weight)
    s.add("a", weight)
    s.allocated("a", [5, 0])
    s.allocated("b", [10, 0])
    assert np.isfinite(s.share("a")) and s.share("a") < s.share("b")
    assert s.order() == ["a", "b"]


@pytest.mark.parametrize("semantics", ["mesos", "yarn"])
def test_sorters_name_a_subnormal_weight(semantics):
    s = DRFSorter([10, 10], semantics=semantics)
    with pytest.raises(InvalidInputError, match=r"weight of client 'a' = 1e-310: .*subnormal"):
        s.add("a", 1e-310)
    assert not s.contains("a")


#: exponents of two for a resource's unit: far beyond the solvers' own range on both sides
UNIT_EXPONENTS = st.one_of(st.integers(-1000, -900), st.integers(-64, 64), st.integers(900, 990))


@settings(max_examples=30, deadline=None)
@given(st.lists(UNIT_EXPONENTS, min_size=3, max_size=3))
def test_cluster_mechanisms_read_each_resource_in_any_unit(exponents):
    # a resource measured in another unit (capacity and demand alike) runs the same tasks
    factor = np.ldexp(1.0, np.array(exponents))
    big = Cluster(FIG1.capacity * factor, FIG1.demand * factor)
    for mech in (drfh, tsf, psdsf, lambda c: pfvds(c, 2.0)):
        np.testing.assert_allclose(mech(big).totals, mech(FIG1).totals, rtol=1e-6, atol=1e-9)
    pool = Cluster.single_pool([9, 18], [[1, 4], [3, 1]])
    got = ceei(Cluster.single_pool(pool.capacity[0] * factor[:2], pool.demand * factor[:2]))
    ref = ceei(pool)
    assert got.converged
    np.testing.assert_allclose(got.totals, ref.totals, rtol=1e-6)
    np.testing.assert_allclose(got.extras["prices"] * factor[:2], ref.extras["prices"], rtol=1e-6)


def test_ceei_at_units_near_the_top_of_the_float_range():
    res = ceei(Cluster.single_pool([1e300, 2e300], [[1e280, 4e280], [3e280, 1e280]]))
    assert res.converged
    np.testing.assert_allclose(res.totals, np.array([4.0909090909, 1.6363636364]) * 1e20 / 9)


def test_results_beyond_the_float_range_are_named():
    with pytest.raises(InvalidInputError, match=r"bundle / demand: the task count overflows"):
        leontief_tasks([1e300], [1e-300])
    with pytest.raises(InvalidInputError, match=r"weights\[0\]: user 0's utility overflows"):
        metrics.utilities([[1e308, 1e308]], [[1, 1]])
    with pytest.raises(InvalidInputError, match=r"weights\[0\]: user 0's value for bundle 0"):
        metrics.bundle_values([[1e308, 1e308]], [[1, 1]])
    # envy-freeness compares a user's values with one another: any magnitude has an answer
    assert metrics.envy_freeness([[1e308, 1e308], [1, 1]], [[0.5, 0.5], [0.5, 0.5]]) == 1.0


# --- HiGHS's programs in any unit: the LP references and checkers scale exactly with the units ----

from scipy.optimize import linprog  # noqa: E402

from fairlib._scaled_lp import scaled_linprog  # noqa: E402
from fairlib.multires import Quotas  # noqa: E402
from fairlib.multires.checks.psdsf_range import psdsf_utilisation_bounds  # noqa: E402
from fairlib.multires.checks.server_properties import pareto_violation  # noqa: E402
from fairlib.multires.checks.utilisation_range import utilisation_range  # noqa: E402
from fairlib.multires.lp import quota_maxmin_lp  # noqa: E402
from fairlib.multires.pfvds.conditions import variational_gap  # noqa: E402

_PLACED = Cluster(FIG1.capacity, FIG1.demand, eligible=[[1, 1], [1, 0], [1, 1], [0, 1]])
_POOL_D, _POOL_C = np.array([[1.0, 4.0], [3.0, 1.0], [2.0, 2.0]]), np.array([9.0, 18.0])


def _lp_results(unit, tasks):
    """Every HiGHS program's answer with each resource measured in ``unit[r]`` (capacities and
    demands alike) and capacities ``tasks`` times larger (``tasks`` times the tasks): the tasks
    divided by ``tasks``, the unit-free answers as they are."""
    c = Cluster(_PLACED.capacity * unit * tasks, _PLACED.demand * unit, eligible=_PLACED.eligible)
    d, cap = _POOL_D * unit[:2], _POOL_C * unit[:2] * tasks
    guarantee = np.array([[4.0, 16.0], [0, 0], [0, 0]]) * unit[:2] * tasks
    floors = Quotas.yarn(min_share=np.array([[2.0, 2, 10], [0, 0, 0], [0, 0, 0], [0, 0, 0]]))
    floors = Quotas.yarn(min_share=floors.guarantee * unit * tasks)
    x = drfh(c, method="highs").tasks
    return {
        "maxmin_lp": maxmin_lp(d, cap, weights=[1, 2, 3]) / tasks,
        "quota_maxmin_lp": quota_maxmin_lp(d, cap, Quotas.yarn(min_share=guarantee)) / tasks,
        "quota_maxmin_lp held": quota_maxmin_lp(
            d,
            cap,
            Quotas.mesos(guarantee=guarantee, limit=[[9, 18], [9, 18], [3, 3]] * unit[:2] * tasks),
        )
        / tasks,
        "drfh": x / tasks,
        "tsf": tsf(c, method="highs").tasks / tasks,
        "drfh quotas": drfh(c, method="highs", quotas=floors).tasks / tasks,
        "utilisation_range": np.array(utilisation_range(c, x.sum(axis=1), [0, 1], 0)[:2]),
        "psdsf_utilisation_bounds": np.array(psdsf_utilisation_bounds(c, 0)[:2]),
        "pareto_violation": pareto_violation(c, x),
        "variational_gap": variational_gap(c, pfvds(_PLACED, 2.0).tasks * tasks, 2.0),
    }


_LP_UNIT = st.one_of(st.integers(-40, 40).map(lambda e: 2.0**e), st.sampled_from([1e12, 1e-12]))


@settings(max_examples=25, deadline=None)
@given(st.lists(_LP_UNIT, min_size=3, max_size=3), _LP_UNIT)
def test_highs_programs_scale_exactly_with_the_units(unit, tasks):
    got, ref = _lp_results(np.array(unit), tasks), _lp_results(np.ones(3), 1.0)
    for name, value in ref.items():
        # a pair's tasks may hold a solver's 1e-9 of a user's total at one scale, 0 at another; a
        # gap of 0 is a roundoff's 1e-14
        np.testing.assert_allclose(
            got[name], value, rtol=1e-9, atol=1e-9 * max(np.abs(value).max(), 1.0), err_msg=name
        )


@pytest.mark.parametrize("method", ["highs", "interior_point"])
@pytest.mark.parametrize("scale", [1e12, 1e-12])
def test_lp_references_at_capacities_far_from_one(scale, method):
    # one task of 1 beside a capacity of 1e12: HiGHS in the user's units answered [0, 0]
    np.testing.assert_allclose(maxmin_lp([[1.0, 1.0]], [1e12, 1e12]), [1e12], rtol=1e-9)
    np.testing.assert_allclose(
        quota_maxmin_lp([[1.0, 1.0]], [1e12, 1e12], Quotas()), [1e12], rtol=1e-9
    )
    one = Cluster([[1e12, 1e12]], [[1.0, 1.0]])
    for mech in (drfh, tsf):
        np.testing.assert_allclose(mech(one, method=method).totals, [1e12], rtol=1e-9)
    # DRF's users with demands and capacities in units of 1e-12 or 1e12: "unbounded" before
    d, cap = np.array([[1.0, 4.0], [3.0, 1.0]]) * scale, np.array([9.0, 18.0]) * scale
    np.testing.assert_allclose(maxmin_lp(d, cap), [3.0, 2.0], rtol=1e-9)
    np.testing.assert_allclose(quota_maxmin_lp(d, cap, Quotas()), [3.0, 2.0], rtol=1e-9)
    for mech in (drfh, tsf):
        np.testing.assert_allclose(mech(Cluster([cap], d), method=method).totals, [3.0, 2.0])


def test_scaled_linprog_answers_in_the_callers_units():
    # the same program as linprog, solution, value and duals, in the caller's units
    a_ub, b_ub = np.array([[1.0, 4.0], [3.0, 1.0], [1.0, 1.0]]), np.array([9.0, 18.0, 5.0])
    a_eq, b_eq = np.array([[1.0, -2.0]]), np.array([1.0])
    ref = linprog([-1.0, -2.0], A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=b_eq, method="highs")
    got = scaled_linprog(
        [-1.0, -2.0], unit=[3.0, 0.1], A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=b_eq, bounds=None
    )
    for name in ("x", "fun"):
        np.testing.assert_allclose(got[name], ref[name], rtol=1e-12)
    for part in ("ineqlin", "eqlin", "lower", "upper"):
        np.testing.assert_allclose(got[part].marginals, ref[part].marginals, atol=1e-12)


def test_the_scaffolds_linprog_reference_holds_at_any_units():
    from fairlib.repro.scaffold import _POOLED_REFERENCE

    space: dict = {"np": np}
    exec(_POOLED_REFERENCE.format(name="mine"), space)
    for scale in (1.0, 1e12, 1e-12):
        pool = Cluster.single_pool(
            np.array([9.0, 18.0]) * scale, [[1 * scale, 4 * scale], [3 * scale, scale]]
        )
        np.testing.assert_allclose(space["mine_reference"](pool), [3.0, 2.0], rtol=1e-9)
