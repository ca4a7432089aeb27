"""fairlib.repro.verify: committed tables and claims compared by content, within stated
tolerances."""

import json

import pytest

from fairlib.repro import verify


def _write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_identical_equal_within_tolerance_and_differs(tmp_path):
    a = _write(tmp_path / "a.csv", "m,x,y\nDRF,0.1,5\nTSF,0.2,6\n")
    assert (
        verify.compare_table(a, _write(tmp_path / "b.csv", "m,x,y\nDRF,0.1,5\nTSF,0.2,6\n")).status
        == "identical"
    )
    near = verify.compare_table(
        a, _write(tmp_path / "c.csv", "m,x,y\nDRF,0.10000000001,5\nTSF,0.2,6\n")
    )
    assert near.status == "equal" and 0 < near.max_relative < 1e-9 and near.ok
    far = verify.compare_table(a, _write(tmp_path / "d.csv", "m,x,y\nDRF,0.1,5\nTSF,0.2000003,6\n"))
    assert far.status == "differs" and not far.ok
    assert (
        str(far.first)
        == "row 1, column 'x': committed '0.2', fresh '0.2000003' (relative difference 1.50e-06)"
    )
    count = verify.compare_table(a, _write(tmp_path / "e.csv", "m,x,y\nDRF,0.1,5\nTSF,0.2,7\n"))
    assert count.status == "differs" and count.first.column == "y"  # integers compare exactly
    label = verify.compare_table(a, _write(tmp_path / "f.csv", "m,x,y\nDRF,0.1,5\nPSDSF,0.2,6\n"))
    assert label.status == "differs" and label.first.column == "m"


def test_shape_changes_are_differences(tmp_path):
    a = _write(tmp_path / "a.csv", "m,x\nDRF,0.1\n")
    assert "columns" in verify.compare_table(a, _write(tmp_path / "b.csv", "m,z\nDRF,0.1\n")).detail
    assert (
        "rows"
        in verify.compare_table(a, _write(tmp_path / "c.csv", "m,x\nDRF,0.1\nTSF,0.2\n")).detail
    )


def test_near_zero_values_compare_absolutely(tmp_path):
    a = _write(tmp_path / "a.csv", "residual\n2.1e-16\n")
    assert verify.compare_table(a, _write(tmp_path / "b.csv", "residual\n-3.3e-16\n")).ok
    assert not verify.compare_table(a, _write(tmp_path / "c.csv", "residual\n1e-6\n")).ok


def test_timing_columns_are_excluded_by_the_explicit_list(tmp_path):
    assert verify.TIMING_COLUMNS["li2019"]["per_step_times"] == ["seconds"]
    old, new = tmp_path / "old", tmp_path / "new"
    _write(old / "per_step_times.csv", "k,method,seconds\n100,linear,1.5e-06\n")
    _write(new / "per_step_times.csv", "k,method,seconds\n100,linear,9.1e-06\n")
    _write(old / "cr2.csv", "m,seconds\n2,0.5\n")  # not a listed timing column here
    _write(new / "cr2.csv", "m,seconds\n2,0.7\n")
    report = verify.verify_results("li2019", old, new)
    status = {t.name: t for t in report.tables}
    assert status["per_step_times.csv"].status == "identical" and status[
        "per_step_times.csv"
    ].excluded == ("seconds",)
    assert status["cr2.csv"].status == "differs" and not report.ok


def test_declared_sensitive_quantities_are_reported_not_failed(tmp_path):
    old, new = tmp_path / "old", tmp_path / "new"
    _write(old / "convergence.csv", "method,iteration,psi\npsmfa,0,10885\n")
    _write(new / "convergence.csv", "method,iteration,psi\npsmfa,0,3092\n")
    report = verify.verify_results("khamseashari2018", old, new)
    (table,) = report.tables
    assert table.status == "sensitive" and "chaotic" in table.detail and report.ok
    _write(
        new / "convergence.csv", "method,iteration,psi\npsmfa,1,3092\n"
    )  # other columns still count
    assert not verify.verify_results("khamseashari2018", old, new).ok


def test_claim_status_changes_are_named_and_missing_tables_reported(tmp_path):
    old, new = tmp_path / "old", tmp_path / "new"
    doc = {
        "claims": [
            {"claim_id": "a", "status": "held"},
            {"claim_id": "b", "status": "not reproduced"},
        ]
    }
    _write(old / "claims.json", json.dumps(doc))
    doc["claims"][0]["status"] = "FAILED"
    doc["claims"].append({"claim_id": "c", "status": "held"})
    _write(new / "claims.json", json.dumps(doc))
    _write(old / "t.csv", "x\n1\n")
    report = verify.verify_results("demo", old, new)
    assert report.claims_compared == 3 and [str(c) for c in report.claims] == [
        "claim a: 'held' -> 'FAILED'",
        "claim c: 'absent' -> 'held'",
    ]
    assert [t.status for t in report.tables] == ["missing"] and not report.ok
    assert any("2 changed" in line for line in report.lines())


@pytest.mark.parametrize(
    "tokens, equal",
    [
        (("1", "1.0000000001"), True),
        (("7", "7.0"), True),
        (("1e300", "1.0000001e300"), False),
        (("-0.0", "0.0"), True),
    ],
)
def test_compare_values(tokens, equal):
    assert verify.compare_values(*tokens, rtol=1e-9)[0] is equal


def test_sensitive_rows_by_query(tmp_path):
    old, new = tmp_path / "old", tmp_path / "new"
    _write(old / "alpha_sweep.csv", "instance,alpha,distance_to_psdsf\n0,8,0.05\n0,64,0.0094\n")
    _write(new / "alpha_sweep.csv", "instance,alpha,distance_to_psdsf\n0,8,0.05\n0,64,0.0123\n")
    (table,) = verify.verify_results("khamseashari2018", old, new).tables
    assert table.status == "sensitive" and "α = 64" in table.detail
    _write(new / "alpha_sweep.csv", "instance,alpha,distance_to_psdsf\n0,8,0.06\n0,64,0.0094\n")
    assert verify.verify_results("khamseashari2018", old, new).tables[0].status == "differs"


def test_a_declared_tolerance_replaces_the_default_for_its_column_only(tmp_path):
    a = _write(tmp_path / "a.csv", "m,x,y\nDRF,0.2,0.5\n")
    b = _write(tmp_path / "b.csv", "m,x,y\nDRF,0.2000003,0.500001\n")
    loose = verify.Tolerance(1e-5, 0.0, "a best response stopped at residual 1e-6")
    assert verify.compare_table(a, b).status == "differs"
    only_x = verify.compare_table(a, b, tolerances={"x": loose})
    assert only_x.status == "differs" and only_x.first.column == "y"
    assert verify.compare_table(a, b, tolerances={"*": loose}).status == "equal"
    tight = verify.Tolerance(1e-9, 0.0, "closed form")
    c = _write(tmp_path / "c.csv", "m,x,y\nDRF,0.200000001,0.5\n")
    assert verify.compare_table(a, c).status == "equal"
    assert verify.compare_table(a, c, tolerances={"x": tight}).status == "differs"


def test_every_declared_tolerance_has_a_reason_and_names_real_tables():
    from fairlib import paths
    from fairlib.repro import catalog

    for key, tables in verify.TOLERANCES.items():
        assert key in catalog.NOTEBOOKS, key
        for table, columns in tables.items():
            if table == "*":
                assert set(columns) == {"*"}, (
                    f"{key}: a notebook-wide declaration covers every column"
                )
                header = []
            else:
                path = paths.ROOT / "data" / "results" / key / f"{table}.csv"
                assert path.is_file(), f"{key}: no committed table {table}"
                header = path.read_text(encoding="utf-8").splitlines()[0].split(",")
            for column, tol in columns.items():
                assert column == "*" or column in header, f"{key}/{table}: no column {column}"
                assert 0 <= tol.rtol < 1 and tol.atol >= 0 and len(tol.reason) > 20, (
                    key,
                    table,
                    column,
                )
                headers = {
                    c
                    for p in (paths.ROOT / "data" / "results" / key).glob("*.csv")
                    for c in p.read_text(encoding="utf-8").splitlines()[0].split(",")
                }
                assert set(tol.inputs) <= headers, (
                    f"{key}: inputs {set(tol.inputs) - headers} name no column"
                )


def test_verify_results_uses_the_declared_tolerances_unless_told_otherwise(tmp_path, monkeypatch):
    committed, fresh = tmp_path / "c", tmp_path / "f"
    _write(committed / "t.csv", "m,x\nDRF,0.2\n")
    _write(fresh / "t.csv", "m,x\nDRF,0.2000003\n")
    monkeypatch.setitem(
        verify.TOLERANCES, "demo", {"t": {"x": verify.Tolerance(1e-5, 0.0, "a residual of 1e-6")}}
    )
    assert verify.verify_results("demo", committed, fresh).ok
    assert not verify.verify_results("demo", committed, fresh, rtol=1e-6, declared=False).ok
    assert verify.verify_results("demo", committed, fresh, rtol=1e-5, declared=False).ok


def test_a_declared_precision_never_lets_rounding_alone_exceed_its_tolerance():
    for key, tables in verify.TOLERANCES.items():
        for table, columns in tables.items():
            for column, tol in columns.items():
                assert 1 <= tol.digits <= 10, (key, table, column)
                # one step of the last reported digit, relative to the smallest value with that many
                # digits
                assert 10.0 ** (1 - tol.digits) <= tol.rtol, (
                    key,
                    table,
                    column,
                    tol.digits,
                    tol.rtol,
                )


def test_tables_report_an_iterative_solvers_columns_at_their_declared_digits(tmp_path, monkeypatch):
    import pandas as pd

    from fairlib import paths
    from fairlib.repro import outputs

    monkeypatch.setenv("FAIRLIB_OUTPUT_DIR", str(tmp_path))
    monkeypatch.setitem(
        verify.TOLERANCES,
        "feldman2005",
        {
            "*": {"*": verify.Tolerance(1e-8, 1e-12, "closed form")},
            "solved": {"*": verify.Tolerance(1e-5, 1e-9, "a residual of 1e-6", 6, inputs=("y",))},
        },
    )
    df = pd.DataFrame(
        {
            "m": ["DRF", "TSF"],
            "x": [0.123456789012, -2.0 / 3e7],
            "y": [0.123456789012, 1.0],
            "n": [3, 4],
            "time": [1377798845.0, float("nan")],
        }
    )
    shown = outputs.reported(df, "feldman2005", "solved")
    assert shown["x"].tolist() == [0.123457, -6.66667e-08]
    assert shown["time"][0] == 1377798845.0  # whole numbers (a time stamp): as they are
    assert shown["y"].tolist() == df["y"].tolist() and shown["n"].tolist() == [3, 4]
    assert df["x"][0] == 0.123456789012  # the caller's frame is left as it was
    assert outputs.reported(df, "feldman2005", "other") is df  # closed form: the format's 10 digits
    path = outputs.save_table(df, "feldman2005", "solved", mode="full")
    assert path == paths.results_dir("feldman2005") / "solved.csv" and str(path).startswith(
        str(tmp_path)
    )
    assert path.read_text().splitlines()[1] == "DRF,0.123457,0.123456789,3,1377798845"
    assert pd.isna(
        outputs.reported(pd.DataFrame({"x": [float("nan")]}), "feldman2005", "solved")["x"][0]
    )


def test_a_comparison_of_nothing_is_not_a_pass(tmp_path):
    missing = tmp_path / "missing"
    report = verify.verify_results("li2019", missing, missing)
    assert not report.ok and any("NOTHING COMPARED" in line for line in report.lines())
    empty = tmp_path / "empty"
    empty.mkdir()
    assert not verify.verify_results("li2019", empty, empty).ok
    (tmp_path / "file").write_text("x")
    import pytest

    with pytest.raises(verify.InvalidInputError, match="committed_dir = "):
        verify.verify_results("li2019", tmp_path / "file", empty)


def test_a_rows_where_query_matches_the_fresh_run_too(tmp_path):
    """A solve that reached its equilibrium in the committed run and stopped short in the fresh one
    (the row the declared query names) is reported as sensitive, not as a difference."""
    from fairlib.repro.verify import compare_table

    committed, fresh = tmp_path / "c.csv", tmp_path / "f.csv"
    committed.write_text("alpha,nash_residual,to_market\n1,1e-12,0.5\n256,4.9e-12,0.00188414\n")
    fresh.write_text("alpha,nash_residual,to_market\n1,1e-12,0.5\n256,1.5e-05,0.000222192\n")
    reason = {"rows where nash_residual > 1e-6": "stopped short"}
    assert compare_table(committed, fresh, sensitive=reason).status != "differs"
    assert compare_table(committed, fresh).status == "differs"
