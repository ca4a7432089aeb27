import numpy as np
import pytest

from fairlib._validate import (
    FRESH_ENTROPY,
    InvalidInputError,
    as_budgets,
    as_capacities,
    as_demands,
    as_eligibility,
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
        ({"": 1}, r"skipped: key '' must be a non-empty text"),
        ({2: 1}, r"skipped: key 2 must be a non-empty text"),
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
