import os
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairlib._validate import (
    FRESH_ENTROPY,
    InvalidInputError,
    as_budgets,
    as_capacities,
    as_counts,
    as_demands,
    as_eligibility,
    as_array,
    as_identifiers,
    as_selection,
    as_label,
    as_labels,
    as_parts,
    as_sequence,
    as_list_of,
    as_rng,
    as_tally,
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


# --- iterables: read once, in order ---------------------------------------------------------------


def test_iterable_helpers_return_the_items_read_once():
    """A generator is read once into the returned value (the caller uses it in its place): checked
    and then read again, it would be empty."""
    assert as_sequence((c for c in ["a", "b"]), "columns") == ("a", "b")
    assert as_labels((c for c in ["a", "b"]), "columns") == ("a", "b")
    assert as_counts((n for n in [2, 4]), "users", maximum=10) == [2, 4]
    assert as_parts((p for p in [0, 3]), count=5, where="t") == [0, 3]
    assert as_sequence(range(3), "x") == (0, 1, 2)
    assert as_labels(np.array(["cpu", "mem"]), "resources") == ("cpu", "mem")
    with pytest.raises(InvalidInputError, match=r"x: more than MAX_CELLS = 3 items"):
        as_sequence(iter(int, 1), "x", maximum=3, cap="MAX_CELLS")  # endless: refused, not drained


@pytest.mark.parametrize(
    "unordered",
    [{"cpu", "mem"}, frozenset({"cpu", "mem"}), {"cpu": 1, "mem": 2}.keys(), {0: "cpu"}.values()],
)
def test_sets_and_dict_views_are_refused_where_order_matters(unordered):
    """A set of text iterates in an order that changes with PYTHONHASHSEED: where order matters it
    is refused by name; where it does not, it is read sorted."""
    refused = rf"resources = .*: a {type(unordered).__name__} has no fixed order"
    for helper in (as_sequence, as_labels):
        with pytest.raises(InvalidInputError, match=refused):
            helper(unordered, "resources")
    with pytest.raises(InvalidInputError, match=r"users = .*has no fixed order"):
        as_counts({1, 2}, "users", maximum=10)
    assert as_labels({"mem", "cpu"}, "seed_by", ordered=False) == ("cpu", "mem")


@pytest.mark.parametrize("bad", ["cpu", b"cpu", {"cpu": 1}, 3, np.float64(1.0), np.array(1.0)])
def test_text_mappings_and_scalars_are_not_sequences(bad):
    with pytest.raises(InvalidInputError, match=r"^resources = "):
        as_sequence(bad, "resources")


def test_labels_refuse_what_is_not_text():
    for bad, kind in ((b"cpu", "bytes"), (0, "int")):
        with pytest.raises(InvalidInputError, match=rf"resources\[1\] = .*got {kind}"):
            as_labels(["mem", bad], "resources")


@pytest.mark.parametrize("blank", ["", " ", "\t", "\u3000"])
def test_labels_refuse_a_blank_label(blank):
    """``Fleet(resources=("", " "))`` and ``DRFSorter(..., resources=["", " "])`` were accepted: a
    label is shown text, so an empty or whitespace-only one is refused (also where labels may
    repeat)."""
    for distinct in (True, False):
        with pytest.raises(
            InvalidInputError, match=rf"resources\[1\] = {re.escape(repr(blank))}: blank"
        ):
            as_labels(["mem", blank], "resources", distinct=distinct)
    assert as_labels(["A", "A"], "server_class", distinct=False) == ("A", "A")


def test_drf_sorter_refuses_blank_resource_names():
    from fairlib.multires.schedulers.sorter import DRFSorter

    with pytest.raises(InvalidInputError, match=r"resources\[0\] = '': blank"):
        DRFSorter([1, 1], resources=["", " "])


def test_every_iterable_argument_is_read_by_the_shared_helper():
    """No module of fairlib checks an argument for iterability itself (``isinstance(x, Iterable)``,
    ``hasattr(x, "__iter__")``): such a check, then a read of ``x``, consumed a generator
    (``sweep(seed_by=...)`` fell back to common random numbers, ``read_task_events(columns=...)``
    kept no column) and let a set's hash order through. Every iterable argument goes through
    :func:`fairlib._validate.as_sequence` (or a helper built on it), whose returned tuple the caller
    uses."""
    import ast
    from pathlib import Path

    import fairlib

    offenders = []
    for path in sorted(Path(fairlib.__file__).parent.rglob("*.py")):
        if path.name == "_validate.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            if len(node.args) != 2:
                continue
            second = ast.unparse(node.args[1])
            if (node.func.id == "isinstance" and "Iterable" in second) or (
                node.func.id == "hasattr" and second in ("'__iter__'", '"__iter__"')
            ):
                offenders.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
    assert not offenders, offenders


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


def test_as_table_names_the_missing_column_and_the_row_column_and_value_of_a_non_number():
    import pandas as pd

    from fairlib._validate import as_table

    frame = pd.DataFrame(
        {"user": ["a", "b", "c"], "tasks": [2, 3, 1], "share": [0.5, np.nan, 0.25]},
        index=[10, 11, 12],
    )
    # the table itself comes back, an empty field (NaN, pd.NA) allowed in a number column
    assert as_table(frame, "runs", ["user"], ["tasks", "share"], sign=">= 0") is frame
    as_table(pd.DataFrame({"tasks": pd.array([2, None, 1], dtype="Int64")}), "runs", (), ["tasks"])
    with pytest.raises(InvalidInputError, match=r"^runs = .*: must be a DataFrame, got dict"):
        as_table(frame.to_dict(), "runs", ["user"])
    with pytest.raises(
        InvalidInputError,
        match=r"^runs: no column 'seconds' \(needs \['user', 'seconds'\]; its columns: "
        r"\['user', 'tasks', 'share'\]\)",
    ):
        as_table(frame, "runs", ["user"], ["seconds"])
    text = frame.astype({"tasks": object})
    text.at[11, "tasks"] = "x"
    with pytest.raises(
        InvalidInputError,
        match=r"^runs row 1 \(index 11\), column 'tasks' = 'x': must be a number \(the column's "
        r"dtype is object\)",
    ):
        as_table(text, "runs", ["user"], ["tasks"])
    # a column not declared a number is not read as one
    as_table(text, "runs", ["user", "tasks"], ["share"])
    with pytest.raises(
        InvalidInputError, match=r"^runs row 0 \(index 10\), column 'done' = True: must be a number"
    ):
        as_table(frame.assign(done=[True, False, True]), "runs", (), ["done"])
    # complex numbers are not numbers: a float cast would drop the imaginary part (with a warning)
    for column in (
        [1 + 5j, 2 - 7j, 0j],
        pd.Categorical([1 + 0j, 2 + 0j, 1 + 0j]),
        np.array([1, 2, 3], dtype=np.complex64),
    ):
        with pytest.raises(
            InvalidInputError,
            match=r"^runs row 0 \(index 10\), column 'cpu' = \(1(\+5|\+0)j\): must be a number "
            r"\(the column's dtype is (complex|category)",
        ):
            as_table(frame.assign(cpu=column), "runs", (), ["cpu"])


@pytest.mark.parametrize(
    "values, options, message",
    [
        ([1.0, -2.0], {"sign": ">= 0"}, r"= -2\.0: must be finite and >= 0"),
        ([1.0, 0.0], {"sign": "> 0"}, r"= 0\.0: must be finite and > 0"),
        ([1.0, np.inf], {}, r"= inf: must be finite"),
        ([1.0, -np.inf], {"sign": ">= 0", "infinite": True}, r"= -inf: must be a number and >= 0"),
    ],
)
def test_as_table_honours_the_sign_and_inf_only_where_asked(values, options, message):
    import pandas as pd

    from fairlib._validate import as_table

    frame = pd.DataFrame({"gap": values})
    with pytest.raises(InvalidInputError, match=r"^t row 1 \(index 1\), column 'gap' " + message):
        as_table(frame, "t", (), ["gap"], **options)
    as_table(pd.DataFrame({"gap": [-2.0, 0.0]}), "t", (), ["gap"])  # no sign: any finite number
    as_table(pd.DataFrame({"gap": [0.5, np.inf]}), "t", (), ["gap"], sign="> 0", infinite=True)


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


def test_as_path_refuses_a_symlink_loop_naming_the_argument_and_the_path(tmp_path):
    """``Path.exists()`` reads a symlink loop as absent: an input was "no such file", an output
    was accepted and its ``open`` failed later with a raw OSError. Either is refused here, naming
    the argument and the path; so is a path through a file."""
    from fairlib._validate import as_path

    a, b = tmp_path / "a", tmp_path / "b"
    os.symlink(a, b)
    os.symlink(b, a)
    for kind in ("file", "directory"):
        for must_exist in (False, True):
            with pytest.raises(
                InvalidInputError, match=rf"path = '{re.escape(str(a))}': a symlink loop"
            ):
                as_path(a, "path", kind=kind, must_exist=must_exist)
    (tmp_path / "f.csv").write_text("x\n")
    with pytest.raises(InvalidInputError, match=r"out = '.*f\.csv/x\.csv': a part of it is a file"):
        as_path(tmp_path / "f.csv" / "x.csv", "out")
    with pytest.raises(
        InvalidInputError, match=r"folder = '.*f\.csv': a file, expected a directory"
    ):
        as_path(tmp_path / "f.csv", "folder", kind="directory")
    os.symlink(tmp_path / "nowhere", tmp_path / "dangling")  # nothing there: an output may be made
    assert as_path(tmp_path / "dangling", "out").name == "dangling"


def test_a_reproducible_seed_refuses_none_and_says_why():
    assert as_rng(None).random() != as_rng(None).random()  # fresh entropy, call by call
    assert as_rng(5, "seed", reproducible=True).random() == as_rng(5).random()
    with pytest.raises(InvalidInputError, match=rf"seed = None: {FRESH_ENTROPY}"):
        as_rng(None, "seed", reproducible=True)
    # the kinds it lists leave out None when None is refused
    with pytest.raises(InvalidInputError, match=r"seed = -1: must be an integer >= 0, a Seed"):
        as_rng(-1, "seed", reproducible=True)


@pytest.mark.parametrize(
    "bad, message",
    [
        (None, r"skipped = None: expected a dict of reason -> count \({} for none\)"),
        ([("a", 1)], r"skipped = \[\('a', 1\)\]: expected a dict"),
        ({"": 1}, r"skipped \(a key\) = '': blank"),
        ({"\u200b": 1}, r"skipped \(a key\) = '\\u200b': blank"),
        ({2: 1}, r"skipped: key 2 must be text"),
        ({"a": -1}, r"skipped\['a'\] = -1: must be an integer >= 0"),
        ({"a": 1.0}, r"skipped\['a'\] = 1\.0: must be an integer >= 0"),
        ({"a": True}, r"skipped\['a'\] = True: must be an integer >= 0"),
    ],
)
def test_a_tally_is_text_reasons_to_whole_counts(bad, message):
    with pytest.raises(InvalidInputError, match=message):
        as_tally(bad, "skipped")
    assert as_tally({}, "skipped") == {} and as_tally({"a": np.int64(2)}, "skipped") == {"a": 2}


def test_a_list_of_instances_names_the_element():
    assert as_list_of([], float, "times") == [] and as_list_of([0.5], float, "times") == [0.5]
    with pytest.raises(InvalidInputError, match=r"times = None: must be a list, got NoneType"):
        as_list_of(None, float, "times")
    with pytest.raises(InvalidInputError, match=r"times = \(0\.5,\): must be a list, got tuple"):
        as_list_of((0.5,), float, "times")
    with pytest.raises(InvalidInputError, match=r"times\[1\] = '2': must be a float, got str"):
        as_list_of([0.5, "2"], float, "times")


# --- one rule for numbers ------------------------------------------------------------------------

from decimal import Decimal  # noqa: E402
from fractions import Fraction  # noqa: E402

import pandas as pd  # noqa: E402

from fairlib._validate import (  # noqa: E402
    as_finite,
    as_number,
    as_weight,
    is_real,
    scale_weights,
)


@pytest.mark.parametrize("value", [Fraction(9), Decimal("9"), np.float32(9), np.int8(9), 9, 9.0])
def test_scalars_and_arrays_read_every_real_number_alike(value):
    # a Fraction or Decimal is a number wherever one is read: alone, in a list, in an object array
    assert is_real(value)
    assert as_number(value, "x") == as_finite(value, "x") == 9.0
    np.testing.assert_array_equal(as_capacities([value, 18]), [9.0, 18.0])
    np.testing.assert_array_equal(as_capacities(np.array([value, 18], dtype=object)), [9, 18])


@pytest.mark.parametrize("value", [True, np.bool_(False), "2", " 2 ", b"2", 1j, None, [1]])
def test_what_is_no_real_number_is_refused_alone_and_in_an_array(value):
    assert not is_real(value)
    with pytest.raises(InvalidInputError, match=r"x = .*: must be a finite number"):
        as_number(value, "x")
    with pytest.raises(InvalidInputError, match=r"capacity = .*ragged or object data"):
        as_capacities(np.array([9, value], dtype=object))


@pytest.mark.parametrize(
    "value, message",
    [
        (Fraction(10**400), r"capacity\[0\] = Fraction\(1000.*beyond the float range"),
        (Decimal("sNaN"), r"capacity\[0\] = Decimal\('sNaN'\).*beyond the float range"),
        (Decimal("NaN"), r"capacity\[0\] = nan: capacity must be finite"),
        (Decimal("-Infinity"), r"capacity\[0\] = -inf: capacity must be finite"),
    ],
)
def test_real_numbers_beyond_the_float_range_are_named_by_index(value, message):
    with pytest.raises(InvalidInputError, match=message):
        as_capacities(np.array([value, 18], dtype=object))


@pytest.mark.parametrize("dtype", ["Int64", "Float64", "Int32", "UInt8"])
def test_pandas_nullable_numbers_are_numbers_and_na_is_named(dtype):
    frame = pd.DataFrame([[1, 4], [3, 1]]).astype(dtype)
    np.testing.assert_array_equal(as_demands(frame), [[1, 4], [3, 1]])
    assert as_array(frame, "demands").dtype.kind in "if"
    holed = frame.astype(object)
    holed.iloc[1, 0] = pd.NA
    with pytest.raises(InvalidInputError, match=r"demands\[1, 0\] = <NA>: demands must be finite"):
        as_demands(holed.astype(dtype))


def test_weights_outside_the_range_are_scaled_exactly_or_named():
    # integers after a power of two when one makes them so (exact rational shares still apply)
    np.testing.assert_array_equal(scale_weights(np.ldexp([1.0, 3.0], -1070), "w"), [1, 3])
    np.testing.assert_array_equal(as_weights(np.ldexp([2.0, 6.0], 1000), 2), [1, 3])
    small = as_weights([1e-310, 2e-310], 2)
    assert small.min() >= 1.0 and small[1] / small[0] == pytest.approx(2.0, rel=1e-12)
    assert as_weights([0.5, 0.25], 2).tolist() == [0.5, 0.25]  # inside the range: as given
    with pytest.raises(InvalidInputError, match=r"weights\[1\] = 1e-300: a weight must be at"):
        as_weights([1e300, 1e-300], 2)
    with pytest.raises(InvalidInputError, match=r"w = 5e-324: subnormal"):
        as_weight(5e-324, "w")
    assert as_weight(0, "w", allow_zero=True) == 0.0


def _bool_cases():
    """Representative callables, each with one list argument given as nested Python lists: the
    argument's name, its valid value, and a call taking it."""
    import fairlib
    from fairlib.dynamic import dynamic_drf
    from fairlib.multires import Quotas
    from fairlib.multires.lp import quota_maxmin_lp
    from fairlib.properties import property_violations

    dem, cap = [[1, 4], [3, 1]], [9, 18]
    pool = fairlib.Cluster.single_pool(cap, dem)
    w = [[1.0, 2.0], [3.0, 1.0]]
    return [
        ("capacity", [9, 18], lambda v: fairlib.Cluster.single_pool(v, dem)),
        ("demand", [[1, 4], [3, 1]], lambda v: fairlib.Cluster.single_pool(cap, v)),
        ("max_tasks", [5, 3], lambda v: fairlib.Cluster.single_pool(cap, dem, max_tasks=v)),
        ("weight", [1, 2.5], lambda v: fairlib.Cluster.single_pool(cap, dem, weight=v)),
        ("start", [1, 0], lambda v: fairlib.drf(dem, cap, start=v)),
        ("max_tasks", [5, 3], lambda v: fairlib.drf(dem, cap, max_tasks=v)),
        ("max_tasks", [5, 3], lambda v: quota_maxmin_lp(dem, cap, Quotas(), max_tasks=v)),
        ("budgets", [1, 2], lambda v: fairlib.Game(w, budgets=v)),
        ("parallelism", [1, 2], lambda v: fairlib.Game(w, parallelism=v)),
        ("guarantee", [[1, 1], [0, 0]], lambda v: Quotas.mesos(guarantee=v)),
        ("tasks", [[1], [1]], lambda v: property_violations(pool, v)),
        ("demands", [[1, 0.5], [0.2, 1]], lambda v: dynamic_drf(v)),
    ]


@given(st.data())
def test_a_boolean_in_a_list_of_numbers_is_refused_naming_the_argument_and_index(data):
    """NumPy reads ``[True, 3]`` as ``[1, 3]``; a list mixing booleans with numbers is refused by
    the shared funnel (``as_array``), naming the argument and the boolean's index."""
    name, value, call = data.draw(st.sampled_from(_bool_cases()))
    call(value)  # the valid value is accepted
    nested = isinstance(value[0], list)
    i = data.draw(st.integers(0, len(value) - 1))
    j = data.draw(st.integers(0, len(value[i]) - 1)) if nested else None
    flag = data.draw(st.sampled_from([True, False, np.True_, np.False_]))
    bad = [list(row) for row in value] if nested else list(value)
    if nested:
        bad[i][j] = flag
    else:
        bad[i] = flag
    if data.draw(st.booleans()):  # tuples are read as lists are
        bad = tuple(tuple(row) for row in bad) if nested else tuple(bad)
    at = f"{i}, {j}" if nested else f"{i}"
    with pytest.raises(
        InvalidInputError, match=re.escape(f"{name}[{at}] = {bool(flag)}: booleans")
    ):
        call(bad)


@pytest.mark.parametrize("binary", [b"\x09\x12", bytearray(b"\x09\x12"), memoryview(b"\x09\x12")])
def test_binary_data_is_not_numbers(binary):
    """Bytes were refused as text, but NumPy reads a bytearray or a memoryview of the same bytes as
    the numbers 9 and 18: ``Cluster.single_pool(capacity=memoryview(b"\\x09\\x12"), ...)`` ran on
    a capacity of (9, 18). All three are binary data, refused wherever an array or a sequence is
    read, also as a row of a matrix."""
    from fairlib.multires import Cluster

    kind = type(binary).__name__
    with pytest.raises(InvalidInputError, match=rf"capacity = .*binary data \({kind}\)"):
        as_array(binary, "capacity")
    with pytest.raises(InvalidInputError, match=rf"demand\[1\] = .*binary data \({kind}\)"):
        as_array([[1, 4], binary], "demand")
    with pytest.raises(InvalidInputError, match=rf"capacity = .*binary data \({kind}\)"):
        Cluster.single_pool(binary, [[1.0, 4.0], [3.0, 1.0]])
    with pytest.raises(InvalidInputError, match=rf"users = .*binary data \({kind}\)"):
        as_identifiers(binary, "users")
    with pytest.raises(InvalidInputError, match=rf"resources = .*got {kind}"):
        as_sequence(binary, "resources")
    # the numbers themselves, and a typed buffer read as numbers, are accepted
    assert as_array(np.frombuffer(bytes(binary), dtype=np.uint8), "capacity").tolist() == [9, 18]


def test_a_selection_is_a_mask_or_distinct_indices_in_range():
    mask = np.array([True, False, True])
    out = as_selection(mask, "servers", 3)
    assert out.tolist() == [True, False, True] and out is not mask
    assert as_selection(np.array([2, 0], dtype=np.uint8), "servers", 3).tolist() == [
        True,
        False,
        True,
    ]
    assert as_selection([], "servers", 3).tolist() == [False] * 3
    for bad, message in [
        ([1, True], r"servers\[1\] = True: booleans are not numbers"),
        ([2, 2], r"servers\[1\] = 2: server 2 is given more than once"),
        ([3], r"servers\[0\] = 3: must be an index of the 3 servers, from 0 to 2"),
        ([-3], r"servers\[0\] = -3: must be an index"),
        (["a"], r"servers = \['a'\]: expected a mask or integer indices of 3 servers, got text"),
        ([True, False], r"a mask of 3 servers has shape \(3,\), got \(2,\)"),
        (bytearray(b"\x00"), r"binary data"),
    ]:
        with pytest.raises(InvalidInputError, match=message):
            as_selection(bad, "servers", 3)


@pytest.mark.parametrize("blank", ["", " ", "\n", "\u3000"])
def test_a_blank_label_or_path_part_is_refused(blank):
    """``DRFSorter.add(" ")``, ``add("a/ ")`` and ``hierarchical_drf`` paths ``[" ", "  "]`` were
    accepted while ``""`` was refused: a label, and every part of a ``/``-separated path, is shown
    text, so an empty or whitespace-only one is refused, and a refused ``add`` changes nothing."""
    from fairlib import hierarchical_drf
    from fairlib.multires import DRFSorter

    for semantics in ("mesos", "yarn"):
        sorter = DRFSorter(capacity=[10.0, 10.0], semantics=semantics)
        with pytest.raises(InvalidInputError, match=rf"name = {re.escape(repr(blank))}: blank"):
            sorter.add(blank)
        # no client can have the name: asking is refused the same way
        with pytest.raises(InvalidInputError, match=rf"name = {re.escape(repr(blank))}: blank"):
            sorter.contains(blank)
        assert sorter.order() == []
    sorter = DRFSorter(capacity=[10.0, 10.0], semantics="mesos")
    for path, part in ((f"a/{blank}", 1), (f"{blank}/a", 0), (f"a/{blank}/b", 1)):
        with pytest.raises(InvalidInputError, match=rf"part {part} is blank"):
            sorter.add(path)
        with pytest.raises(InvalidInputError, match=rf"part {part} is blank"):
            sorter.update_weight(path, 2.0)
    assert sorter.order() == []
    with pytest.raises(InvalidInputError, match=rf"paths\[0\] = {re.escape(repr(blank))}: blank"):
        hierarchical_drf([[1, 4], [3, 1]], [9, 18], [blank, blank * 2 + "x"])
    with pytest.raises(InvalidInputError, match=r"paths\[1\] = .*part 1 is blank"):
        hierarchical_drf([[1, 4], [3, 1]], [9, 18], ["q/a", f"q/{blank}"])
    with pytest.raises(InvalidInputError, match=rf"label = {re.escape(repr(blank))}: blank"):
        as_label(blank, "label")
    assert as_label("a b", "label") == "a b" and as_label("q/a", "label", nested=True) == "q/a"


@pytest.mark.parametrize(
    "label", ["\u200b", "\ufeff", "\u2060", "\u00ad", "\u180e", " \u200c\u200d ", "\u3000"]
)
def test_a_label_of_invisible_characters_is_blank(label):
    from fairlib._validate import as_label, as_labels

    with pytest.raises(InvalidInputError, match="blank"):
        as_label(label, "name")
    with pytest.raises(InvalidInputError, match=r"names\[1\] = .*blank"):
        as_labels(["a", label], "names")
    with pytest.raises(InvalidInputError, match="part 1 is blank"):
        as_label(f"a/{label}", "name", nested=True)


@pytest.mark.parametrize("label", ["a\x00", "a\x1bb", "a\tb", "a\nb", "m\x7f"])
def test_a_label_holding_a_control_character_is_refused(label):
    from fairlib._validate import as_label

    with pytest.raises(InvalidInputError, match="control character"):
        as_label(label, "name")


def test_a_label_with_a_joiner_between_visible_characters_is_kept():
    from fairlib._validate import as_label

    assert as_label("a\u200db", "name") == "a\u200db"


def _special_entries(tmp_path):
    """A named pipe, a socket and a character device: entries that are neither a file nor a
    directory."""
    import socket

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp_path / "sock"))
    return sock, {
        "a named pipe": fifo,
        "a socket": tmp_path / "sock",
        "a character device": "/dev/null",
    }


def test_a_directory_argument_is_a_directory_only(tmp_path):
    """``as_path(kind="directory")`` read a named pipe, a socket or ``/dev/null`` as a directory
    (only a file was refused), so ``verify_results("li2019", "/dev/null", "/dev/null")`` found
    nothing to verify and ``importing_tests(..., root="/dev/null")`` nothing to run; each is
    refused by what it is, at every caller."""
    from fairlib import traces
    from fairlib._validate import as_path
    from fairlib.repro import catalog, executed, verify

    sock, entries = _special_entries(tmp_path)
    with sock:
        for what, entry in entries.items():
            for must_exist in (False, True):
                with pytest.raises(
                    InvalidInputError, match=rf"x = .*: {what}.*, expected a directory"
                ):
                    as_path(entry, "x", kind="directory", must_exist=must_exist)
                with pytest.raises(InvalidInputError, match=rf"x = .*not a regular file \({what}"):
                    as_path(entry, "x", kind="file", must_exist=must_exist)
            calls = {
                "committed_dir": lambda e=entry: verify.verify_results("li2019", e, tmp_path),
                "fresh_dir": lambda e=entry: verify.verify_results("li2019", tmp_path, e),
                "root": lambda e=entry: catalog.importing_tests(["fairlib/paths.py"], root=e),
                "folder": lambda e=entry: traces.is_synthetic(e),
                "executed_dir": lambda e=entry: executed.refresh_findings("li2019", executed_dir=e),
                "directory": lambda e=entry: traces.google_dir(e),
            }
            for name, call in calls.items():
                with pytest.raises(InvalidInputError, match=rf"{name} = .*{what}"):
                    call()
            with pytest.raises(InvalidInputError, match=rf"root = .*{what}"):
                catalog.changed_modules(root=entry)
    assert as_path(tmp_path, "x", kind="directory", must_exist=True) == tmp_path


@pytest.mark.parametrize("blank", ["", " ", "\t"])
def test_a_blank_path_is_refused_by_name(blank):
    """``google_dir("")`` was the working directory and ``read_vm("  ")`` a FileNotFoundError:
    a blank path is refused by name wherever a path argument is read."""
    from fairlib import traces
    from fairlib._validate import as_path
    from fairlib.traces import fetch

    calls = {
        "directory": [
            lambda: traces.google_dir(blank),
            lambda: traces.bitbrains_dir(blank),
            lambda: traces.alibaba_dir(blank),
            lambda: traces.read_machine_events(directory=blank),
            lambda: traces.read_vms([1], directory=blank),
        ],
        "path": [lambda: traces.read_vm(blank), lambda: as_path(blank, "path")],
        "dest": [lambda: fetch.fetch("google", dest=blank, progress=False)],
    }
    for name, group in calls.items():
        for call in group:
            with pytest.raises(
                InvalidInputError, match=rf"{name} = {re.escape(repr(blank))}: blank"
            ):
                call()


def test_a_path_of_another_systems_flavour_is_refused(tmp_path):
    """A ``PureWindowsPath`` on POSIX was read as one odd name (``C:\\/x``); a path of another
    system's flavour is refused by name, while a ``PurePosixPath`` is a path here."""
    from pathlib import PurePath, PurePosixPath, PureWindowsPath

    from fairlib import traces
    from fairlib._validate import as_path
    from fairlib.traces import fetch

    foreign = PureWindowsPath if isinstance(PurePath(), PurePosixPath) else PurePosixPath
    calls = {
        "directory": lambda: traces.google_dir(foreign("C:/x")),
        "path": lambda: traces.read_vm(foreign("C:/x/y.csv")),
        "folder": lambda: as_path(foreign("C:/x"), "folder", kind="directory"),
        "dest": lambda: fetch.fetch("google", dest=foreign("C:/x"), progress=False),
    }
    for name, call in calls.items():
        with pytest.raises(
            InvalidInputError, match=rf"{name} = {foreign.__name__}\(.*a {foreign.__name__}"
        ):
            call()
    assert as_path(PurePath(tmp_path), "x", kind="directory") == tmp_path


def test_trace_directories_are_listed_once_compared_resolved(tmp_path, monkeypatch):
    """``FAIRLIB_TRACE_DIR=/t:/t/../t`` or ``/t://t`` listed one folder twice, and naming
    ``data/traces`` there searched it twice: repeats are compared resolved (refused in the
    variable, dropped from the built-in entries)."""
    from fairlib import paths

    (tmp_path / "t").mkdir()
    os.symlink(tmp_path / "t", tmp_path / "link")
    for second in (
        f"{tmp_path}/t/../t",
        f"/{tmp_path}/t",
        f"{tmp_path}/link",
        f"{tmp_path}/t/x/..",
    ):
        monkeypatch.setenv("FAIRLIB_TRACE_DIR", os.pathsep.join([f"{tmp_path}/t", second]))
        with pytest.raises(InvalidInputError, match=r"FAIRLIB_TRACE_DIR = .*named twice"):
            paths.trace_dirs()
    built_in = paths.DATA / "traces"
    for named in (built_in, f"{built_in}/", f"{paths.DATA}/x/../traces"):
        monkeypatch.setenv("FAIRLIB_TRACE_DIR", os.pathsep.join([str(tmp_path), str(named)]))
        found = paths.trace_dirs()
        assert found[0] == tmp_path
        assert [os.path.realpath(d) for d in found].count(os.path.realpath(built_in)) == 1
        assert len({os.path.realpath(d) for d in found}) == len(found)


BEYOND = "an integer beyond 2**53 that float64"


@given(
    st.integers(min_value=2**53 + 1, max_value=2**80).filter(lambda v: int(float(v)) != v),
    st.sampled_from([1, -1]),
    st.sampled_from(["list", "int64", "object", "mixed"]),
)
def test_an_integer_float64_cannot_hold_is_refused_by_index_and_value(big, sign, kind):
    """2**53 + 1 read as float64 is 2**53: a number array refuses it, naming index and value, in a
    list, an int64/uint64 array, an object array or one mixing it with floats."""
    from fairlib._validate import as_real_array, as_values

    v = sign * big
    if kind == "int64" and not -(2**63) <= v < 2**63:
        v = np.uint64(big) if big < 2**64 else big
    x = {
        "list": [1, v],
        "int64": np.array([1, v]) if isinstance(v, int) and -(2**63) <= v < 2**63 else [1, v],
        "object": np.array([1, v], dtype=object),
        "mixed": [0.5, v],
    }[kind]
    text = re.escape(f"[1] = {int(v)}"[:60])
    for convert in (
        lambda: as_array(x, "x"),
        lambda: as_real_array(x, "x"),
        lambda: as_values(x, "x", ndim=1, sign=None),
    ):
        with pytest.raises(InvalidInputError, match=text + ".*" + re.escape(BEYOND)):
            convert()


@given(st.integers(min_value=-(2**63), max_value=2**63 - 1))
def test_an_integer_is_refused_exactly_when_float64_does_not_hold_it(value):
    """The rule is the conversion's own: refused when float64 reads another number, whatever the
    magnitude (2**54 is held, 2**53 + 1 is not)."""
    from fairlib._validate import as_number, as_real_array

    if int(float(value)) == value:
        assert as_number(value, "x", minimum=-np.inf) == float(value)
        assert as_real_array(np.array([value], dtype=np.int64), "x")[0] == float(value)
    else:
        with pytest.raises(InvalidInputError, match=re.escape(BEYOND)):
            as_number(value, "x")
        with pytest.raises(InvalidInputError, match=re.escape(BEYOND)):
            as_real_array(np.array([value], dtype=np.int64), "x")


def test_integers_up_to_2_53_are_read_and_the_limit_is_a_constant():
    from fairlib._validate import EXACT_INTEGER_MAX, as_number, as_real_array

    assert EXACT_INTEGER_MAX == 2**53
    assert as_real_array([2**53, -(2**53)], "x").tolist() == [2.0**53, -(2.0**53)]
    # beyond it, an integer float64 holds is read as it is
    assert as_real_array([2**54, 3 * 2**60], "x").tolist() == [2.0**54, 3 * 2.0**60]
    assert as_number(np.int64(2**53), "x") == 2.0**53
    assert as_array(np.array([2**63], dtype=np.uint64), "k", exact=False).dtype == np.uint64


@pytest.mark.parametrize(
    "value", [2**53 + 1, np.int64(-(2**53) - 1), np.uint64(2**64 - 1), 10**400]
)
def test_a_scalar_integer_float64_cannot_hold_is_refused(value):
    """10**400 raised a bare OverflowError from float(); every such integer is named."""
    from fairlib._validate import as_finite, as_number

    for convert in (lambda: as_number(value, "step"), lambda: as_finite(value, "t")):
        with pytest.raises(InvalidInputError, match=r"^(step|t) = -?\d+.*" + re.escape(BEYOND)):
            convert()


def test_the_drf_family_refuses_an_integer_it_would_round():
    """drf([[2**53 + 1, 1]], [2**54 + 1, 10]) gave 2 tasks, which need 2**54 + 2 > capacity."""
    import fairlib
    from fairlib.multires import Cluster, drfh

    demands, capacity = [[2**53 + 1, 1]], [2**54 + 1, 10]
    for mechanism in (fairlib.drf, fairlib.edrf, fairlib.pdrf):
        with pytest.raises(InvalidInputError, match=r"demands\[0, 0\] = 9007199254740993: an"):
            mechanism(demands, capacity)
    with pytest.raises(InvalidInputError, match=r"= 9007199254740993: an integer beyond 2\*\*53"):
        drfh(Cluster(np.array([[2**53 + 1, 1]]), np.array([[2**60, 10]])))
    with pytest.raises(InvalidInputError, match=r"^demands\[0, 0\] = 10000.*\.\.\.: an integer"):
        fairlib.drf([[10**400, 1]], [10**401, 10])


def test_drf_names_a_task_cap_beyond_64_bits_and_keeps_large_caps():
    import fairlib

    with pytest.raises(InvalidInputError, match=r"max_tasks\[0\] = 18446744073709551616: an int"):
        fairlib.drf([[1, 1]], [10, 10], max_tasks=[2**64])
    caps = np.array([2**63], dtype=np.uint64)  # never binds: read as given, not as a float
    assert fairlib.drf([[1, 1]], [10, 10], max_tasks=caps).tasks.tolist() == [10]


def test_a_table_column_of_integers_float64_cannot_hold_is_refused():
    import pandas as pd

    from fairlib._validate import check_columns

    for column in (
        np.array([1, 2**53 + 1], dtype=np.int64),
        pd.array([1, 2**53 + 1], dtype="Int64"),
        np.array([1, 2**64 - 1], dtype=np.uint64),
    ):
        with pytest.raises(
            InvalidInputError, match=r"jobs row 1 \(index 1\), column 'cpu' = \d+: an"
        ):
            check_columns(pd.DataFrame({"cpu": column}), "jobs", ["cpu"])


def test_an_integer_of_too_many_digits_is_refused_by_name():
    """int() refuses text of more than 4,300 digits (leading zeros counted) with a ValueError naming
    no argument; a command line or an environment variable is refused by name first."""
    import argparse

    from fairlib._validate import MAX_INTEGER_DIGITS, as_integer_text, cli_integer

    for text in ("0" * 5000 + "1", "-" + "9" * (MAX_INTEGER_DIGITS + 1)):
        with pytest.raises(InvalidInputError, match=r"^--n = .*digits, must be at most"):
            as_integer_text(text, "--n")
        with pytest.raises(argparse.ArgumentTypeError, match="must be at most MAX_INTEGER"):
            cli_integer(text)
    assert as_integer_text("9" * MAX_INTEGER_DIGITS, "--n") == 10**MAX_INTEGER_DIGITS - 1


def test_bitbrains_vm_text_of_too_many_digits_is_refused_by_name():
    from fairlib.traces.bitbrains import _vm_numbers

    with pytest.raises(InvalidInputError, match=r"^vms = .*digits, must be at most"):
        _vm_numbers(["0" * 5000 + "1"])


@pytest.mark.parametrize("label", [" a", "a ", "a\u3000", "\u00a0a"])
def test_a_label_with_whitespace_at_an_end_is_refused(label):
    """``DRFSorter.add(" a")`` and ``add("a")`` made two clients no listing tells apart; a
    table's header ``" b"`` showed as ``"b"``."""
    import pandas as pd

    from fairlib._validate import as_label, as_labels
    from fairlib.multires import DRFSorter
    from fairlib.repro import tables

    pattern = rf"{re.escape(repr(label))}: has whitespace at an end"
    with pytest.raises(InvalidInputError, match=rf"^name = {pattern}"):
        as_label(label, "name")
    with pytest.raises(InvalidInputError, match=rf"^names\[1\] = {pattern}"):
        as_labels(["b", label], "names")
    with pytest.raises(InvalidInputError, match=r"part 1 \(.*\) has whitespace at an end"):
        as_label(f"q/{label}", "name", nested=True)
    for semantics in ("mesos", "yarn"):
        sorter = DRFSorter(capacity=[10.0, 10.0], semantics=semantics)
        sorter.add("a")
        with pytest.raises(InvalidInputError, match=rf"^name = {pattern}"):
            sorter.add(label)
        assert sorter.order() == ["a"]
    with pytest.raises(InvalidInputError, match=rf"^names\['a'\] = {pattern}"):
        tables.table(pd.DataFrame({"a": [1]}), names={"a": label})


@pytest.mark.parametrize("label", ["\u0301", "\u0301\u0300", " \u0301"])
def test_a_lone_combining_mark_is_blank(label):
    """A combining mark marks the character before it; alone it shows nothing."""
    from fairlib._validate import as_label, path_text

    with pytest.raises(InvalidInputError, match="blank"):
        as_label(label, "name")
    with pytest.raises(InvalidInputError, match="part 1 .* is blank"):
        path_text(f"out/{label}/x.csv", "path")
    assert as_label("q\u0301", "name") == "q\u0301"  # a mark on a letter (NFC has no "q́")


@pytest.mark.parametrize("path", ["out/a.csv ", "out/ a.csv", "out /a.csv"])
def test_a_path_part_with_whitespace_at_an_end_is_refused(path, tmp_path):
    import pandas as pd

    from fairlib._validate import path_text
    from fairlib.traces.bitbrains import write_vm

    with pytest.raises(InvalidInputError, match=r"^path = .*: part \d \(.*\) has whitespace"):
        path_text(path, "path")
    with pytest.raises(InvalidInputError, match=r"^path = .*: part \d+ \(.*\) has whitespace"):
        write_vm(str(tmp_path / path), pd.DataFrame())
    assert list(tmp_path.iterdir()) == []


def test_a_path_part_longer_than_a_file_system_takes_is_refused(tmp_path):
    import pandas as pd

    from fairlib._validate import MAX_PATH_PART_BYTES, path_text
    from fairlib.traces.bitbrains import write_vm

    assert path_text("a" * MAX_PATH_PART_BYTES, "path") == "a" * MAX_PATH_PART_BYTES
    for part in ("a" * 300, "é" * 128):  # 256 bytes of UTF-8
        with pytest.raises(InvalidInputError, match=r"^path = .*: part 1 is \d+ bytes long"):
            path_text(f"out/{part}", "path")
    with pytest.raises(InvalidInputError, match=r"^path = .* bytes long, must be at most"):
        write_vm(str(tmp_path / ("a" * 300 + ".csv")), pd.DataFrame())


def test_a_name_that_becomes_a_file_name_has_a_length_cap(tmp_path):
    """``ClaimLog("k" * 300, write=True)`` was accepted and its ``finish`` failed with ``OSError:
    File name too long``: a key or a file name is refused by name up front."""
    from fairlib import paths
    from fairlib.repro import outputs
    from fairlib.repro.ledger import ClaimLog

    assert paths.check_key("k" * paths.MAX_KEY_LENGTH) == "k" * paths.MAX_KEY_LENGTH
    with pytest.raises(InvalidInputError, match=r"^key = .*: 65 characters, must be at most 64"):
        paths.check_key("k" * 65)
    with pytest.raises(InvalidInputError, match=r"^key = .*: 300 characters, must be at most 64"):
        ClaimLog("k" * 300, write=True, registry=[])
    long_name = "n" * (paths.MAX_FILE_NAME_LENGTH + 1)
    with pytest.raises(InvalidInputError, match=r"^name = .*characters, must be at most 128"):
        outputs.save_table(pd.DataFrame({"a": [1]}), "k", long_name, mode="quick")
    with pytest.raises(InvalidInputError, match=r"^folder = .*characters, must be at most 128"):
        paths.find_traces(long_name)


@pytest.mark.parametrize("text", ["1e-400", "0.000001e-330", "-5e-999"])
def test_a_number_text_below_the_float_range_is_refused_showing_the_text(text):
    """``--equilibrium 1e-400`` read as 0.0, and the tolerance's message spoke of 0.0."""
    import argparse

    from fairlib._validate import as_number_text, cli_number

    with pytest.raises(InvalidInputError, match=rf"^--tol = '{text}': below the float range"):
        as_number_text(text, "--tol")
    with pytest.raises(argparse.ArgumentTypeError, match=rf"^'{text}': below the float range"):
        cli_number(text)
    assert as_number_text("0e-400", "--tol") == 0.0 and as_number_text("0.0", "--tol") == 0.0


def test_a_0d_array_refused_as_a_number_is_named_so():
    """A 0-d array prints as a number: refused as one with "must be a finite number >= 0.0", which
    its value satisfies, it left the user puzzled. The message says what it is and what to pass."""
    from fairlib import DRFSorter, best_response
    from fairlib._validate import as_count, as_finite

    hint = r"got a 0-d array, not a number \(pass x\.item\(\)"
    sorter = DRFSorter([1.0, 1.0])
    with pytest.raises(InvalidInputError, match=rf"weight of client 'a' = array\(2\.\): .*{hint}"):
        sorter.add("a", weight=np.array(2.0))
    for call in (
        lambda: as_count(np.array(3), "n"),
        lambda: as_finite(np.array(1.0), "x"),
        lambda: best_response([1.0, 2.0], [1.0, 1.0], np.array(1.0)),
    ):
        with pytest.raises(InvalidInputError, match=hint):
            call()
