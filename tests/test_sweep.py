"""fairlib.sweep: deterministic seeds across backends, failures with their parameters, resumable
cache."""

import re
import warnings

import numpy as np
import pandas as pd
import pytest

from fairlib import sweep as sweep_module
from fairlib._validate import InvalidInputError
from fairlib.sweep import SweepError, cell_seed, sweep


def draw_cell(seed, users, scale):
    """A cell that uses numba (via fairlib) and its seed: a DRF instance on random demands."""
    from fairlib.multires import drf

    rng = np.random.default_rng(seed)
    demands = rng.integers(1, 10, size=(users, 2)).astype(float)
    tasks = drf(demands, np.array([100.0, 100.0]) * scale).tasks
    return {"draw": float(rng.random()), "tasks": int(tasks.sum()), "first": int(tasks[0])}


def failing_cell(seed, x):
    if x == 3:
        raise ValueError(f"bad x = {x}")
    return {"value": x * 10}


GRID = {"users": [3, 8, 20], "scale": [1.0, 2.5]}


def test_same_seed_same_results_serial_loky_dask():
    serial = sweep(draw_cell, GRID, seeds=4, rng=11, backend="serial", progress=False)
    assert len(serial) == 24 and list(serial.columns[:3]) == ["users", "scale", "rep"]
    loky = sweep(draw_cell, GRID, seeds=4, rng=11, backend="loky", n_jobs=2, progress=False)
    pd.testing.assert_frame_equal(serial, loky)

    from distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        ) as cluster,
        Client(cluster) as client,
    ):
        dask = sweep(
            draw_cell, GRID, seeds=4, rng=11, backend="dask", scheduler=client, progress=False
        )
        by_address = sweep(
            draw_cell, GRID, seeds=4, rng=11, scheduler=cluster.scheduler_address, progress=False
        )
    pd.testing.assert_frame_equal(serial, dask)
    pd.testing.assert_frame_equal(serial, by_address)
    assert by_address.attrs["sweep"]["backend"] == "dask"


def test_seeds_depend_on_parameters_not_on_position():
    full = sweep(draw_cell, GRID, seeds=2, rng=5, backend="serial", progress=False)
    part = sweep(
        draw_cell, {"users": [20], "scale": [2.5]}, seeds=2, rng=5, backend="serial", progress=False
    )
    pd.testing.assert_frame_equal(
        full[(full.users == 20) & (full.scale == 2.5)].reset_index(drop=True), part
    )
    other = sweep(draw_cell, GRID, seeds=2, rng=6, backend="serial", progress=False)
    assert not np.allclose(full.draw, other.draw)
    # the documented seed of a cell is the one it receives
    got = np.random.default_rng(cell_seed(5, {"users": 3, "scale": 1.0}, 1)).integers(
        1, 10, size=(3, 2)
    )
    want = np.random.default_rng(cell_seed(5, {"users": 3, "scale": 1.0}, 1)).integers(
        1, 10, size=(3, 2)
    )
    np.testing.assert_array_equal(got, want)


def test_seed_by_gives_common_random_numbers():
    out = sweep(
        draw_cell, GRID, seeds=2, rng=5, seed_by=["users"], backend="serial", progress=False
    )
    wide = out.pivot_table(index=["users", "rep"], columns="scale", values="draw")
    np.testing.assert_array_equal(wide[1.0], wide[2.5])
    with pytest.raises(InvalidInputError, match=r"seed_by: \['user'\] are not grid parameters"):
        sweep(draw_cell, GRID, seed_by=["user"], progress=False)
    # a generator is read once: checked, then read again, it reached the cells empty (every cell
    # then shared one seed); a set's order does not matter (the seeds hash sorted parameters)
    for same in ((k for k in ["users"]), {"users"}, ("users",)):
        again = sweep(
            draw_cell, GRID, seeds=2, rng=5, seed_by=same, backend="serial", progress=False
        )
        assert again["draw"].tolist() == out["draw"].tolist()
    with pytest.raises(InvalidInputError, match=r"seed_by\[0\] = b'users': must be text"):
        sweep(draw_cell, GRID, seed_by=[b"users"], progress=False)


@pytest.mark.parametrize("backend", ["serial", "loky"])
def test_failing_cell_reported_with_parameters_others_kept(backend):
    with pytest.raises(
        SweepError, match=r'(?s)1 of 6 cells failed.*\{"x":3\} rep 0: ValueError: bad x = 3'
    ) as info:
        sweep(failing_cell, {"x": range(6)}, backend=backend, n_jobs=2, progress=False)
    assert sorted(info.value.results.x) == [0, 1, 2, 4, 5]
    assert info.value.failures.x.tolist() == [3]
    assert "Traceback" in info.value.failures.traceback[0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        kept = sweep(
            failing_cell, {"x": range(6)}, backend=backend, n_jobs=2, progress=False, errors="keep"
        )
    assert kept.value.tolist() == [0, 10, 20, 40, 50]
    assert kept.attrs["failures"].x.tolist() == [3]
    assert any("bad x = 3" in str(w.message) for w in caught)


def test_cache_resume_keeps_finished_cells(tmp_path, monkeypatch):
    """Interrupted and resumed with identical arguments: only the unfinished cells run again."""
    monkeypatch.setenv("FAIRLIB_BUILD_DIR", str(tmp_path / "build"))
    log = tmp_path / "log"
    log.mkdir()
    stop = tmp_path / "stop"
    stop.touch()
    args = dict(
        fixed={"log_dir": log, "stop_file": stop},
        backend="serial",
        cache=True,
        cache_name="r2",
        progress=False,
    )
    with pytest.raises(KeyboardInterrupt):
        sweep(interruptible_cell, {"x": list(range(8))}, **args)
    assert len(list(log.iterdir())) == 6
    stop.unlink()
    for f in log.iterdir():
        f.unlink()
    out = sweep(interruptible_cell, {"x": list(range(8))}, **args)
    assert sorted(int(f.name.split("-")[1]) for f in log.iterdir()) == [5, 6, 7]
    assert out.attrs["sweep"]["ran"] == 3 and out.x.tolist() == list(range(8))


def interruptible_cell(seed, x, log_dir, stop_file):
    (log_dir / f"ran-{x}").touch()
    if x == 5 and stop_file.exists():
        raise KeyboardInterrupt
    return {"draw": float(np.random.default_rng(seed).random())}


def test_cache_key_follows_code_and_seed(tmp_path, monkeypatch):
    monkeypatch.setenv("FAIRLIB_BUILD_DIR", str(tmp_path))
    a = sweep(
        draw_cell,
        {"users": [3], "scale": [1.0]},
        rng=1,
        backend="serial",
        cache=True,
        progress=False,
    )
    b = sweep(
        draw_cell,
        {"users": [3], "scale": [1.0]},
        rng=1,
        backend="serial",
        cache=True,
        progress=False,
    )
    c = sweep(
        draw_cell,
        {"users": [3], "scale": [1.0]},
        rng=2,
        backend="serial",
        cache=True,
        progress=False,
    )
    assert (a.attrs["sweep"]["ran"], b.attrs["sweep"]["ran"], c.attrs["sweep"]["ran"]) == (1, 0, 1)
    monkeypatch.setattr(sweep_module, "_function_fingerprint", lambda fn: "edited")
    d = sweep(
        draw_cell,
        {"users": [3], "scale": [1.0]},
        rng=1,
        backend="serial",
        cache=True,
        progress=False,
    )
    assert d.attrs["sweep"]["ran"] == 1


def test_explicit_points_and_row_lists():
    out = sweep(failing_cell, [{"x": 1}, {"x": 7}], seeds=2, backend="serial", progress=False)
    assert out[["x", "rep", "value"]].values.tolist() == [
        [1, 0, 10],
        [1, 1, 10],
        [7, 0, 70],
        [7, 1, 70],
    ]


def test_default_backend(monkeypatch):
    monkeypatch.delenv("FAIRLIB_DASK_SCHEDULER", raising=False)
    monkeypatch.setenv("FAIRLIB_SWEEP_JOBS", "1")
    assert sweep_module.default_backend() == ("serial", 1)
    monkeypatch.setenv("FAIRLIB_SWEEP_JOBS", "2")
    assert sweep_module.default_backend() == ("loky", 2)
    monkeypatch.setenv("FAIRLIB_DASK_SCHEDULER", "tcp://127.0.0.1:8786")
    assert sweep_module.default_backend()[0] == "dask"
    monkeypatch.setenv("FAIRLIB_SWEEP_JOBS", "two")
    monkeypatch.delenv("FAIRLIB_DASK_SCHEDULER")
    with pytest.raises(InvalidInputError, match="FAIRLIB_SWEEP_JOBS = 'two'"):
        sweep_module.default_backend()


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(grid={"x": 3}), r"grid\['x'\] = 3: expected a list"),
        (dict(grid={"x": [1, 1]}), r"appears more than once"),
        # equal values are one point (both rows would read x = 1.0), whatever their types
        (dict(grid={"x": [1, 1.0]}), r"points 0 and 1 are equal"),
        (dict(grid={"x": [0.0, -0.0]}), r"points 0 and 1 are equal"),
        (dict(grid={"x": [2, np.float64(2.0)]}), r"points 0 and 1 are equal"),
        (dict(grid={"x": [(1, 2.5), [1.0, 2.5]]}), r"points 0 and 1 are equal"),
        (dict(grid={"x": [float("nan"), float("nan")]}), r"points 0 and 1 are equal"),
        (dict(grid=[{"x": 1, "y": "a"}, {"y": "a", "x": 1.0}]), r"points 0 and 1 are equal"),
        (dict(grid={"seed": [1]}), r"'seed' is reserved"),
        (dict(grid={"x": [object()]}), r"no canonical form"),
        (dict(grid={"x": [1]}, seeds=0), r"seeds = 0"),
        (dict(grid={"x": [1]}, rng=np.random.default_rng(1)), r"rng = Generator"),
        (dict(grid={"x": [1]}, backend="threads"), r"backend = 'threads'"),
        (dict(grid={"x": [1]}, errors="ignore"), r"errors = 'ignore'"),
        (dict(grid={"x": [1]}, fixed={"x": 2}), r"fixed: \['x'\] also vary"),
        (dict(grid={"x": [1]}, fixed=[("y", 2)]), r"fixed = \[\('y', 2\)\]: expected a dict"),
        (dict(grid={"x": [1]}, fixed={"seed": 2}), r"fixed: 'seed' is reserved"),
        (dict(grid={"x": [1]}, fixed={3: 2}), r"fixed: key 3 is not a string"),
        (dict(grid=[{"x": 1}, {4: 1}]), r"grid point 1: parameter name 4 is not a string"),
        (dict(grid={"x": [1]}, fixed={"y": 2}), r"fn = failing_cell\(seed, x\): cannot be called"),
        (dict(grid={"x": [1, 2]}, backend="loky", n_jobs=0), r"n_jobs = 0"),
    ],
)
def test_bad_arguments(kwargs, message):
    grid = kwargs.pop("grid")
    with pytest.raises(InvalidInputError, match=message):
        sweep(failing_cell, grid, progress=False, **kwargs)


def test_a_cell_function_that_cannot_take_its_arguments_is_refused_before_any_worker_starts():
    """A cell without ``seed``, or without a grid parameter, failed in every worker; it is refused
    in the caller's process, naming ``fn``, the grid point and the reason."""

    def no_seed(x):
        return {"y": x}

    def two(seed, x):
        return {"y": x}

    for fn, grid, message in [
        (no_seed, {"x": [1, 2]}, r"fn = .*no_seed\(x\): .*grid point 0 \(x\).*'seed'"),
        (two, [{"x": 1}, {"z": 2}], r"fn = .*two\(seed, x\): .*grid point 1 \(z\).*'x'"),
    ]:
        with pytest.raises(InvalidInputError, match=message):
            sweep(fn, grid, backend="loky", n_jobs=2, progress=False, cache=False)
    assert sweep(lambda **kw: {"ok": 1}, {"x": [1]}, backend="serial", progress=False).ok[0] == 1


def test_bad_return_type_is_a_cell_failure():
    with pytest.raises(SweepError, match="must return a dict"):
        sweep(lambda seed, x: x, {"x": [1]}, backend="serial", progress=False)


@pytest.mark.parametrize(
    "out",
    [
        {"": 1.0},
        {" ": 1.0},
        {1: 1.0},
        [{"a": 1.0}, {"": 2.0}],
        pd.DataFrame({"": [1.0]}),
    ],
)
def test_a_column_without_a_name_is_a_cell_failure(out):
    with pytest.raises(SweepError, match="columns are named by non-blank text"):
        sweep(lambda seed, x: out, {"x": [1]}, backend="serial", progress=False)


@pytest.mark.parametrize(
    "out",
    [
        {"y": 1 + 1j},
        {"y": np.complex128(1)},
        {"y": np.array([1j])},
        pd.DataFrame({"y": [1 + 0j]}),
        [{"y": 1.0}, {"y": 2j}],
    ],
)
def test_a_complex_result_is_a_cell_failure(out):
    with pytest.raises(SweepError, match="results are not complex; it returned 'y'"):
        sweep(lambda seed, x: out, {"x": [1]}, backend="serial", progress=False)


@pytest.mark.parametrize("name", ["", " ", "\t"])
def test_a_blank_parameter_name_is_refused(name):
    with pytest.raises(InvalidInputError, match=r"grid point 0: parameter name = .*: blank"):
        sweep(lambda seed, **k: {"y": 1}, {name: [1]}, backend="serial", progress=False)
    with pytest.raises(InvalidInputError, match=r"grid point 0: parameter name = .*: blank"):
        sweep(lambda seed, **k: {"y": 1}, [{name: 1}], backend="serial", progress=False)
    with pytest.raises(InvalidInputError, match=r"fixed: key = .*: blank"):
        sweep(
            lambda seed, **k: {"y": 1},
            {"x": [1]},
            fixed={name: 1},
            backend="serial",
            progress=False,
        )


def test_distinct_values_of_one_kind_are_distinct_points():
    table = sweep(
        lambda seed, x: {"y": 1},
        {"x": [1, 1.5, True, "1", float("inf"), -float("inf")]},
        backend="serial",
        progress=False,
    )
    assert len(table) == 6


@pytest.mark.parametrize(
    "grid, message",
    [
        ([1, 2], r"grid\[0\] = 1: a list grid must hold dicts"),
        ([{"x": 1}, [("x", 2)]], r"grid\[1\] = \[\('x', 2\)\]: a list grid must hold dicts"),
        (5, r"grid = 5: expected a dict of name -> values or a list of dicts"),
        ("xy", r"grid = 'xy': expected a dict"),
    ],
)
def test_a_grid_list_of_non_dicts_is_named(grid, message):
    with pytest.raises(InvalidInputError, match=message):
        sweep(failing_cell, grid, progress=False)


@pytest.mark.parametrize("foreign", [{"not": "rows"}, [1, 2, 3], "text", np.arange(3)])
def test_a_cache_file_of_foreign_content_is_recomputed_not_trusted(tmp_path, monkeypatch, foreign):
    import pickle

    monkeypatch.setenv("FAIRLIB_BUILD_DIR", str(tmp_path))
    args = dict(rng=1, backend="serial", cache=True, cache_name="foreign", progress=False)
    first = sweep(failing_cell, {"x": [1, 2]}, **args)
    files = sorted((tmp_path / "sweep-cache" / "foreign").glob("*.pkl"))
    assert len(files) == 2
    files[0].write_bytes(pickle.dumps(foreign))
    with pytest.warns(
        RuntimeWarning, match=r"is unreadable \(TypeError: holds a .*, not a cell's rows"
    ):
        again = sweep(failing_cell, {"x": [1, 2]}, **args)
    pd.testing.assert_frame_equal(first, again)
    assert again.attrs["sweep"]["ran"] == 1


def dying_cell(seed, x, n, spool_root):
    """Cell ``n - 1`` kills its worker (os._exit, as a segfault or the OOM killer would) once every
    other cell has finished and been spooled; the others return at once."""
    import os
    import time

    if x == n - 1:
        deadline = time.monotonic() + 120  # a guard, not a timing assertion: the others are quick
        while (
            time.monotonic() < deadline
            and len(list(spool_root.glob("fairlib-sweep-spool-*/*.pkl"))) < n - 1
        ):
            time.sleep(0.05)
        os._exit(3)
    return {"value": 10 * x}


def test_a_dead_worker_fails_only_the_cells_that_did_not_finish(tmp_path, monkeypatch):
    """One loky worker dies (os._exit) in the last cell after all the others finished, some of them
    possibly in the dying worker's own batch: only that cell is reported failed; every finished cell
    is kept, in grid order."""
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where the sweep spools finished cells
    n = 12
    with pytest.raises(SweepError) as info:
        sweep(
            dying_cell,
            {"x": list(range(n))},
            fixed={"n": n, "spool_root": tmp_path},
            backend="loky",
            n_jobs=2,
            progress=False,
        )
    err = info.value
    assert f"1 of {n} cells failed (the other {n - 1} finished)" in str(err)
    assert err.failures.x.tolist() == [n - 1]
    assert "the workers stopped; this cell did not finish" in err.failures.error.iloc[0]
    assert err.results.x.tolist() == list(range(n - 1))
    assert err.results.value.tolist() == [10 * x for x in range(n - 1)]
    assert not list(tmp_path.glob("fairlib-sweep-spool-*"))  # the spool is removed


def test_the_spool_recovers_cells_a_dead_worker_finished(tmp_path):
    """The pool's results never came back for a batch: its finished cells are read from the
    spool."""
    cells = sweep_module._make_cells([{"x": 1}, {"x": 2}], 1, np.random.SeedSequence(0), None)
    sweep_module._run_cell_spooled(failing_cell, {}, cells[0], str(tmp_path))
    assert sweep_module._read_spool(tmp_path, 0) == (0, [{"value": 10}], None)
    assert sweep_module._read_spool(tmp_path, 1) is None
    (tmp_path / "1.pkl").write_bytes(b"half a pick")
    assert sweep_module._read_spool(tmp_path, 1) is None


def test_the_cache_variable_is_read_strictly(monkeypatch):
    from fairlib import InvalidInputError
    from fairlib.sweep import _cache_enabled

    for value, on in (("", False), ("0", False), ("1", True)):
        monkeypatch.setenv("FAIRLIB_SWEEP_CACHE", value)
        assert _cache_enabled(None) is on
    for value in ("false", "no", "true", "2", " 1"):
        monkeypatch.setenv("FAIRLIB_SWEEP_CACHE", value)
        with pytest.raises(InvalidInputError, match=f"FAIRLIB_SWEEP_CACHE = {value!r}"):
            _cache_enabled(None)
    assert _cache_enabled(True) is True


@pytest.mark.parametrize(
    "value",
    [
        "localhost",
        "tcp//x:1",
        "8786",
        "tcp://host:port",
        "tcp://",
        "tcp://:8786",
        "tcp://host",
        "tcp://host:0",
        "tcp://host:65536",
        "tcp://host:8786/x",
        "tcp://a:b:8786",
        "inproc://",
    ],
)
def test_a_malformed_scheduler_address_is_refused_by_name(monkeypatch, value):
    """A typo in FAIRLIB_DASK_SCHEDULER (or scheduler=) is named at once, not found after a
    connection timeout: a scheme alone, a missing host, a port that is missing where the protocol
    needs one or is no number from 1 to 65535."""
    from fairlib.sweep import default_backend

    monkeypatch.setenv("FAIRLIB_DASK_SCHEDULER", value)
    shown = re.escape(repr(value))
    with pytest.raises(InvalidInputError, match=f"FAIRLIB_DASK_SCHEDULER = {shown}"):
        default_backend()
    monkeypatch.delenv("FAIRLIB_DASK_SCHEDULER")
    with pytest.raises(InvalidInputError, match=f"scheduler = {shown}"):
        default_backend(scheduler=value)
    assert default_backend(scheduler="tcp://10.0.0.5:8786").name == "dask"


@pytest.mark.parametrize(
    "value", ["tcp://10.0.0.5:8786", "tls://[::1]:8786", "ws://host", "inproc://10.0.0.5/4242/1"]
)
def test_every_dask_address_form_is_accepted(value):
    """distributed's address forms: host:port for tcp, tls and ucx, an IPv6 host in brackets, a
    URL's default port for ws, an in-process scheduler's id for inproc."""
    from fairlib.sweep import default_backend

    assert default_backend(scheduler=value).name == "dask"


def test_object_arrays_are_keyed_by_their_values():
    """An object array's bytes are pointers: two equal arrays got different seeds and a grid
    holding both was not seen to repeat a point. Keyed by value, they match; an element with no
    canonical form is refused by name."""
    a = np.array([1.5, 2.5], dtype=object)
    b = np.array([float("1.5"), float(" 2.5")], dtype=object)
    assert cell_seed(0, {"x": a}, 0).generate_state(2).tolist() == (
        cell_seed(0, {"x": b}, 0).generate_state(2).tolist()
    )
    other = np.array([1.5, 3.5], dtype=object)
    assert cell_seed(0, {"x": a}, 0).generate_state(2).tolist() != (
        cell_seed(0, {"x": other}, 0).generate_state(2).tolist()
    )
    structured = np.array([(1, "a")], dtype=[("n", "i8"), ("s", "O")])
    assert cell_seed(0, {"x": structured}, 0).generate_state(2).tolist() == (
        cell_seed(0, {"x": structured.copy()}, 0).generate_state(2).tolist()
    )
    with pytest.raises(
        InvalidInputError, match=r"grid: the point .* appears more than once .* equal as values"
    ):
        sweep(draw_cell, [{"users": 2, "scale": a}, {"users": 2, "scale": b}], progress=False)
    with pytest.raises(InvalidInputError, match=r"params\['x'\] = .*no canonical form"):
        cell_seed(0, {"x": np.array([object()], dtype=object)}, 0)
