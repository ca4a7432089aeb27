"""The benchmark harness measures what it says: a fresh interpreter's own peak memory, not its
parent's."""

import numpy as np

from benchmarks._timing import run_fresh


def test_peak_memory_of_a_fresh_interpreter_does_not_inherit_the_parents():
    ballast = np.ones(400_000_000 // 8)  # 400 MB resident in this (parent) process
    ballast[::512] = 2.0
    small = run_fresh("import json\nprint(json.dumps({'answer': 42}))")
    big = run_fresh(
        "import json\nx = bytearray(300_000_000)\nx[::4096] = b'1' * len(x[::4096])\n"
        "print(json.dumps({'held': len(x)}))"
    )
    assert small["answer"] == 42 and small["peak_rss_gb"] < 0.2
    assert big["held"] == 300_000_000 and 0.3 <= big["peak_rss_gb"] < 0.5
    assert ballast.sum() > 0


def _executed_notebook(path, duration_s, end_time, cells):
    """A fake executed notebook: papermill's run metadata and one code cell per (execution count,
    cell metadata)."""
    import json

    import datetime as dt

    start = (
        dt.datetime.fromisoformat(end_time.replace("Z", "+00:00"))
        - dt.timedelta(seconds=duration_s)
    ).isoformat()
    nb = {
        "metadata": {
            "papermill": {"duration": duration_s, "start_time": start, "end_time": end_time},
            "language_info": {"version": "3.11.7"},
        },
        "cells": [{"cell_type": "markdown", "metadata": {}, "source": "# title"}]
        + [
            {
                "cell_type": "code",
                "execution_count": n,
                "metadata": meta,
                "outputs": [],
                "source": "",
            }
            for n, meta in cells
        ],
    }
    path.write_text(json.dumps(nb))


def test_the_full_run_row_is_read_from_the_executed_notebooks_and_gated(tmp_path):
    """Papermill's durations become minutes per notebook and in all (against 30 min) and the longest
    cell (against 4 min, from papermill's cell duration or, without it, the kernel's execution
    stamps); nothing is executed."""
    import json

    from benchmarks import _results, bench_full_run
    from fairlib.repro import landing

    stamps = {
        "iopub.execute_input": "2026-01-02T10:00:00.000000Z",
        "shell.execute_reply": "2026-01-02T10:05:00Z",
    }
    _executed_notebook(
        tmp_path / "alpha.ipynb",
        600.0,
        "2026-01-01T12:00:00+00:00",
        [(1, {"papermill": {"duration": 30.0}}), (2, {"papermill": {"duration": 570.0}})],
    )
    _executed_notebook(
        tmp_path / "beta.ipynb",
        1500.0,
        "2026-01-02T12:00:00+00:00",
        [(1, {"execution": stamps}), (2, {"papermill": {"duration": 60.0}}), (3, {})],
    )
    rows = {r.row: r for r in bench_full_run.rows(tmp_path)}
    total, cell = rows[landing.FULL_RUN_TOTAL], rows[landing.FULL_RUN_CELL]
    assert (
        total.value == 35.0
        and total.unit == "min"
        and total.ours == "35 min"
        and total.target == "<= 30"
    )
    assert total.met is False and _results._met(total) == "**not met**, 0.85×"
    assert (
        cell.value == 9.5
        and cell.ours == "9.5 min"
        and cell.baseline == "alpha, In [2]"
        and cell.met is False
    )
    assert cell.note == "2 cells over 4 min: alpha In [2] 9.5 min; beta In [1] 5.0 min"
    assert rows["notebook alpha"].value == 10.0 and rows["notebook alpha"].target == ""
    assert (
        rows["notebook beta"].ours == "25 min"
        and rows["notebook beta"].baseline == "longest cell In [1], 5.0 min"
    )
    fast = tmp_path / "fast"
    fast.mkdir()
    _executed_notebook(
        fast / "alpha.ipynb",
        120.0,
        "2026-01-03T00:00:00+00:00",
        [(1, {"papermill": {"duration": 90}})],
    )
    quick = {r.row: r for r in bench_full_run.rows(fast)}
    assert quick[landing.FULL_RUN_TOTAL].met
    assert (
        quick[landing.FULL_RUN_CELL].met
        and quick[landing.FULL_RUN_CELL].note == "0 cells over 4 min"
    )
    # the results file: the date is the span of the runs, the machine what the notebooks record of
    # theirs
    path = _results.run_one(
        "full_run",
        bench_full_run.main,
        ["--executed", str(tmp_path)],
        tmp_path / "results",
        context=bench_full_run.context,
    )
    record = json.loads(path.read_text())
    assert record["date"] == "2026-01-01 to 2026-01-02" and record["versions"] == {
        "python": "3.11.7"
    }
    assert (
        record["cpu"] == "not recorded"
        and record["cores"] == "not recorded"
        and len(record["rows"]) == 4
    )
    for f in tmp_path.glob("*.ipynb"):  # what publish_executed records of the machine
        doc = json.loads(f.read_text())
        doc["metadata"]["fairlib"] = {
            "machine": {"cpu": "x86_64 AuthenticAMD family 26, AVX-512", "cores": 2}
        }
        f.write_text(json.dumps(doc))
    recorded = bench_full_run.context(["--executed", str(tmp_path)])
    assert recorded["cpu"] == "x86_64 AuthenticAMD family 26, AVX-512" and recorded["cores"] == "2"
    # notebooks run side by side: the wall time counts their overlap once, the note gives the
    # notebook time
    side = tmp_path / "side"
    side.mkdir()
    one_cell = [(1, {"papermill": {"duration": 60}})]
    _executed_notebook(side / "alpha.ipynb", 1200.0, "2026-01-03T10:20:00+00:00", one_cell)
    _executed_notebook(side / "beta.ipynb", 1500.0, "2026-01-03T10:30:00+00:00", one_cell)
    both = {r.row: r for r in bench_full_run.rows(side)}[landing.FULL_RUN_TOTAL]
    assert both.value == 30.0 and both.met and "45 min of notebook time" in both.note
    assert landing.wall_seconds([(0, 10), (5, 12), (20, 21)]) == 13


def test_the_committed_full_run_results_are_those_of_the_executed_notebooks():
    """benchmarks/results/full_run.json equals its rendering from the committed executed/*.ipynb."""
    import json

    from benchmarks import _results, bench_full_run

    record = json.loads((_results.RESULTS_DIR / "full_run.json").read_text(encoding="utf-8"))
    stale = (
        "benchmarks/results/full_run.json is stale: run python -m benchmarks full_run, then "
        "python -m fairlib.repro.landing"
    )
    assert [_results.Row(**r) for r in record["rows"]] == bench_full_run.rows(), stale
    assert record["date"] == bench_full_run.runs_span(), stale


def _scale_rows(seconds: float, memory_gb: float) -> list:
    from benchmarks._results import Row

    label = "10 users × 2 servers"
    rows = []
    for name in ("DRFH", "PF-VDS(1)"):
        rows += [
            Row(f"{name} at {label} (14 pairs), 2 threads", f"{seconds} s", "", seconds, "s"),
            Row(f"{name}: 1 → 2 threads at {label}", "", "", 1.5, "×"),
            Row(f"{name}: peak memory at {label}", "", "", memory_gb, "GB"),
            Row(f"{name}: time exponent in pairs, 2 threads", "", "", 1.3, ""),
        ]
    return rows + [
        Row(
            "DRFH vs HiGHS at 10 × 2 (largest size HiGHS finishes within 10 min)", "", "", 90.0, "×"
        )
    ]


def test_scale_gates_peak_memory_and_regression_against_the_committed_result_only():
    """At the largest size DRFH, TSF and PS-DSF are held to their peak memory and to their 2-thread
    time against the committed run's; the time itself, the 1 → 2 thread speed-up and the exponent
    are reported."""
    from dataclasses import asdict

    from benchmarks import bench_scale

    committed = {
        "commit": "abc1234",
        "date": "2026-01-01",
        "rows": [asdict(r) for r in _scale_rows(10.0, 2.0)],
    }
    rows = {r.row: r for r in bench_scale.apply_targets(_scale_rows(13.0, 4.5), committed)}
    time = rows["DRFH at 10 users × 2 servers (14 pairs), 2 threads"]
    assert time.target == "" and time.met is None and "BLAS peak" in time.note
    assert rows["DRFH: 1 → 2 threads at 10 users × 2 servers"].target == ""
    assert rows["DRFH: time exponent in pairs, 2 threads"].target == ""
    memory = rows["DRFH: peak memory at 10 users × 2 servers"]
    assert memory.target == "<= 4" and memory.met is False
    regression = rows[
        "DRFH at 10 users × 2 servers (14 pairs), 2 threads: time against the committed result"
    ]
    assert regression.value == 1.3 and regression.target == "<= 1.2" and regression.met is False
    assert regression.baseline == "committed 10.0 s (run at abc1234, 2026-01-01)"
    assert not [
        r for name, r in rows.items() if name.startswith("PF-VDS(1)") and r.target
    ]  # reported
    assert not any(name.startswith("PF-VDS(1)") and "committed" in name for name in rows)
    kept = {r.row: r for r in bench_scale.apply_targets(_scale_rows(11.0, 1.0), committed)}
    assert kept[
        "DRFH at 10 users × 2 servers (14 pairs), 2 threads: time against the committed result"
    ].met
    assert kept["DRFH: peak memory at 10 users × 2 servers"].met
    first = bench_scale.apply_targets(_scale_rows(11.0, 1.0), None)  # nothing committed yet
    assert len(first) == len(_scale_rows(11.0, 1.0)) and not any(
        "committed" in r.row for r in first
    )


def test_the_committed_scale_rows_carry_the_targets_bench_scale_declares():
    import json

    from benchmarks import _results, bench_scale

    record = json.loads((_results.RESULTS_DIR / "scale.json").read_text(encoding="utf-8"))
    for r in record["rows"]:
        assert r["target"] == bench_scale.target(r["row"]), (
            f"{r['row']}: committed target {r['target']!r}, bench_scale declares "
            f"{bench_scale.target(r['row'])!r}"
        )
    assert any(bench_scale.row_kind(r["row"])[1] == "regression" for r in record["rows"])


def test_a_results_file_is_read_strictly_naming_the_file_and_the_key(tmp_path):
    """A hand-edited ``"gated": "false"`` would count as gated (a non-empty string is true): every
    field of a row has its JSON type exactly, and a wrong one is refused naming the file, the row
    and the key."""
    import json

    import pytest

    from benchmarks import _results

    good = {
        "row": "speed",
        "ours": "1 s",
        "baseline": "2 s",
        "value": 2.0,
        "unit": "×",
        "target": ">= 1",
        "gated": False,
        "note": "",
    }
    path = tmp_path / "x.json"
    path.write_text(json.dumps({"benchmark": "x", "rows": [good]}))
    assert _results.load(tmp_path)[0]["rows"][0].gated is False
    for key, bad in [("gated", "false"), ("gated", 0), ("value", "2.0"), ("value", True)]:
        path.write_text(json.dumps({"benchmark": "x", "rows": [good | {key: bad}]}))
        with pytest.raises(ValueError, match=rf"x\.json: rows\[0\] \('speed'\), key {key} = "):
            _results.load(tmp_path)
    path.write_text(json.dumps({"benchmark": "x", "rows": [good | {"gate": True}]}))
    with pytest.raises(ValueError, match=r"x\.json: rows\[0\].*'gate'"):
        _results.load(tmp_path)
