import numpy as np
import pytest

from fairlib._validate import (
    InvalidInputError,
    as_budgets,
    as_capacities,
    as_demands,
    as_eligibility,
    as_weights,
    check_task_bound,
)


def test_demands_ok_and_contiguous():
    d = as_demands(np.asfortranarray([[1, 4], [3, 1]]))
    assert d.dtype == np.float64 and d.flags.c_contiguous


@pytest.mark.parametrize(
    "bad, message",
    [
        ([[1, 4], [3, -2]], r"demands\[1, 1\] = -2\.0: demands must be >= 0"),
        ([[1, np.nan]], r"demands\[0, 1\] = nan: demands must be finite"),
        ([[1, np.inf]], r"demands\[0, 1\] = inf: demands must be finite"),
        ([[1, 4], [0, 0]], r"demands\[1\] = \[0\. 0\.\]: every user must demand some resource"),
        ([1, 2], r"demands: must be 2-D, got shape \(2,\)"),
        (np.zeros((0, 2)), r"demands: must not be empty"),
        ([[1, 2], [3]], r"demands: cannot be converted|ragged"),
        ([["a", "b"]], r"demands: must be numeric"),
        ([[True, False]], r"demands: must be numeric, got a boolean"),
    ],
)
def test_demands_errors_name_argument_and_index(bad, message):
    with pytest.raises(InvalidInputError, match=message):
        as_demands(bad)


def test_demands_resource_count_and_custom_name():
    with pytest.raises(
        InvalidInputError, match=r"tasks: expected 3 resource columns, got shape \(1, 2\)"
    ):
        as_demands([[1, 2]], "tasks", n_resources=3)
    assert as_demands([[0, 0], [1, 0]], allow_zero_rows=True).shape == (2, 2)


@pytest.mark.parametrize(
    "bad, message",
    [
        ([9, 0], r"capacity\[1\] = 0\.0: capacity must be > 0"),
        ([9, -1], r"capacity\[1\] = -1\.0: capacity must be > 0"),
        ([9, np.nan], r"capacity\[1\] = nan: capacity must be finite"),
    ],
)
def test_capacity_errors(bad, message):
    with pytest.raises(InvalidInputError, match=message):
        as_capacities(bad)


def test_capacity_matrix_allows_missing_resource_but_not_empty_server():
    c = as_capacities([[12, 4, 75], [8, 16, 0]], ndim=2, allow_zero=True)
    assert c.shape == (2, 3)
    with pytest.raises(
        InvalidInputError, match=r"capacity\[1\] = \[0\. 0\.\]: a server must have some capacity"
    ):
        as_capacities([[1, 1], [0, 0]], ndim=2, allow_zero=True)
    with pytest.raises(InvalidInputError, match=r"capacity\[1, 2\] = -1\.0"):
        as_capacities([[1, 1, 1], [1, 1, -1]], ndim=2, allow_zero=True)
    with pytest.raises(InvalidInputError, match=r"expected 2 resources"):
        as_capacities([1, 2, 3], n_resources=2)


def test_weights_and_budgets():
    assert as_weights(None, 2).tolist() == [1, 1]
    with pytest.raises(InvalidInputError, match=r"weights\[1\] = 0\.0: weights must be > 0"):
        as_weights([1, 0], 2)
    with pytest.raises(
        InvalidInputError, match=r"weights: expected length 3 \(one per user\), got shape \(2,\)"
    ):
        as_weights([1, 1], 3)
    assert as_budgets(None, 2).tolist() == [1, 1]
    assert as_budgets(3, 2).tolist() == [3, 3]
    with pytest.raises(InvalidInputError, match=r"budgets\[0\] = -1\.0: budgets must be > 0"):
        as_budgets([-1, 1], 2)


def test_eligibility():
    assert as_eligibility(None, 2, 3).all()
    with pytest.raises(InvalidInputError, match=r"eligible\[1\]: user 1 is eligible for no server"):
        as_eligibility([[1, 0], [0, 0]], 2, 2)
    with pytest.raises(
        InvalidInputError, match=r"eligible\[0, 1\] = 2: eligible must be 0/1 or boolean"
    ):
        as_eligibility([[1, 2], [1, 1]], 2, 2)
    with pytest.raises(
        InvalidInputError, match=r"expected shape \(2, 3\) \(users x servers\), got \(2, 2\)"
    ):
        as_eligibility([[1, 1], [1, 1]], 2, 3)


def test_task_bound():
    check_task_bound(1e12)
    with pytest.raises(InvalidInputError, match="overflow int64"):
        check_task_bound(1e19, "capacity / demand")
    with pytest.raises(InvalidInputError, match="overflow int64"):
        check_task_bound(float("inf"))


@pytest.mark.parametrize(
    "values, options, message",
    [
        ([1.0, 2.5], {"whole": True}, r"column 'x' = 2\.5: must be finite, whole"),
        (
            [1.0, 101.0],
            {"maximum": 100.0},
            r"column 'x' = 101\.0: must be finite and >= 0 and <= 100",
        ),
        ([1.0, np.nan], {"allow_missing": False}, r"column 'x' = nan: must be present, finite"),
        ([1.0, -3.0], {"sign": None, "whole": True, "maximum": 0.0}, r"column 'x' = 1\.0"),
    ],
)
def test_check_columns_refuses_fractions_values_above_a_maximum_and_missing_values(
    values, options, message
):
    import pandas as pd

    from fairlib._validate import check_columns

    with pytest.raises(InvalidInputError, match=r"t row \d \(index \d\), " + message):
        check_columns(pd.DataFrame({"x": values}), "t", ["x"], **options)
    check_columns(pd.DataFrame({"x": [1.0, np.nan, 100.0]}), "t", ["x"], whole=True, maximum=100.0)


@pytest.mark.parametrize("text", ["٢٠٢٤", "+5", " 5", "5 ", "1_000", "5.0", "1e3", "0x10", "", "-"])
def test_as_integer_text_takes_ascii_digits_with_a_minus_sign_at_most(text):
    """int() reads all of these but the last four; a command line, an environment variable and a
    trace write an integer in ASCII digits."""
    import argparse

    from fairlib._validate import as_integer_text, cli_integer

    with pytest.raises(
        InvalidInputError, match="--year = .*: must be an integer written in digits"
    ):
        as_integer_text(text, "--year")
    with pytest.raises(argparse.ArgumentTypeError, match="must be an integer written in digits"):
        cli_integer(text)
    assert as_integer_text("-12", "n") == -12 and cli_integer("2024") == 2024
    with pytest.raises(InvalidInputError, match=r"n = 0: must be an integer from 1 to 5"):
        as_integer_text("0", "n", minimum=1, maximum=5)


@pytest.mark.parametrize("text", ["inf", "nan", "-inf", "1e400", "١.٥", "1_0", "0x10", "", "."])
def test_as_number_text_takes_finite_numbers_in_ascii_digits(text):
    import argparse

    from fairlib._validate import as_number_text, cli_number

    with pytest.raises(InvalidInputError, match="--rtol = "):
        as_number_text(text, "--rtol")
    with pytest.raises(argparse.ArgumentTypeError):
        cli_number(text)
    assert [cli_number(t) for t in ("1e-9", "0.5", ".5", "5.", "-2E+3")] == [
        1e-9,
        0.5,
        0.5,
        5.0,
        -2e3,
    ]


@pytest.mark.parametrize("suffix", ["/", "/.", "/..", "//"])
def test_as_path_refuses_a_file_path_that_names_a_directory_by_its_form(tmp_path, suffix):
    """``Path("out/ts.csv/")`` is ``out/ts.csv``: a writer given a trailing separator wrote a file
    where a directory was meant. Every file argument checked by ``as_path`` refuses it."""
    from fairlib._validate import as_path

    with pytest.raises(InvalidInputError, match="path = .*: names a directory"):
        as_path(str(tmp_path / "ts.csv") + suffix, "path", kind="file")
    as_path(str(tmp_path / "ts.csv") + suffix, "folder", kind="directory")  # a folder may
    assert as_path(tmp_path / "ts.csv", "path").name == "ts.csv"
