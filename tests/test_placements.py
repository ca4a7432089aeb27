"""utilisation_range: a per-class utilisation over every placement of fixed totals (two HiGHS
LPs)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairlib._validate import InvalidInputError
from fairlib.multires import Cluster, drfh, random_cluster, tsf, utilisation_range


def test_two_identical_servers_hand_computed():
    """One task of (1, 1) on two servers (1, 1): server 0's CPU use can be anything from 0 to 1."""
    cluster = Cluster([[1.0, 1.0], [1.0, 1.0]], [[1.0, 1.0]])
    low, high, low_tasks, high_tasks = utilisation_range(cluster, [1.0], [0], 0)
    assert low == pytest.approx(0.0, abs=1e-9) and high == pytest.approx(1.0, abs=1e-7)
    np.testing.assert_allclose(low_tasks.sum(axis=1), [1.0], rtol=1e-6)
    np.testing.assert_allclose(high_tasks[0], [1.0, 0.0], atol=1e-6)
    # both servers together: the placement cannot matter
    both = utilisation_range(cluster, [1.0], [True, True], 1)
    assert both.low == pytest.approx(0.5, rel=1e-6) and both.high == pytest.approx(0.5, rel=1e-6)


def test_a_full_server_pins_the_range():
    """Two users fill both servers exactly: only one placement exists, so the range is a point."""
    cluster = Cluster(
        [[2.0, 1.0], [1.0, 2.0]], [[1.0, 0.0], [0.0, 1.0]], eligible=[[True, False], [False, True]]
    )
    r = utilisation_range(cluster, [2.0, 2.0], [0], 0)
    assert r.low == pytest.approx(1.0, rel=1e-6) and r.high == pytest.approx(1.0, rel=1e-6)


@settings(max_examples=15)
@given(seed=st.integers(0, 10_000), mechanism=st.sampled_from([drfh, tsf]))
def test_the_mechanisms_own_placement_lies_in_the_range(seed, mechanism):
    """The defining property: the interior point's placement is one feasible placement of its
    totals, so its per-class utilisation lies between the two LP optima; and over all servers the
    range is one number."""
    rng = np.random.default_rng(seed)
    cluster = random_cluster(
        rng, int(rng.integers(2, 12)), int(rng.integers(2, 6)), 2, server_types=2
    )
    alloc = mechanism(cluster)
    servers = rng.random(cluster.n_servers) < 0.5
    servers[0] = True
    for r in range(cluster.n_resources):
        if not cluster.capacity[servers, r].sum() > 0:
            continue
        rng_r = utilisation_range(cluster, alloc.totals, servers, r)
        own = alloc.used[servers, r].sum() / cluster.capacity[servers, r].sum()
        assert rng_r.low - 1e-6 <= own <= rng_r.high + 1e-6
        whole = utilisation_range(cluster, alloc.totals, np.ones(cluster.n_servers, bool), r)
        assert whole.high - whole.low <= 1e-5


def test_bad_input_is_named():
    cluster = Cluster([[1.0, 1.0], [1.0, 1.0]], [[1.0, 1.0]])
    with pytest.raises(InvalidInputError, match=r"totals\[0\] = -1.0"):
        utilisation_range(cluster, [-1.0], [0], 0)
    with pytest.raises(InvalidInputError, match=r"totals = \[1.0, 1.0\]: expected shape"):
        utilisation_range(cluster, [1.0, 1.0], [0], 0)
    with pytest.raises(InvalidInputError, match="no placement"):
        utilisation_range(cluster, [5.0], [0], 0)
    with pytest.raises(InvalidInputError, match="resource = 2"):
        utilisation_range(cluster, [1.0], [0], 2)
    with pytest.raises(InvalidInputError, match=r"servers\[0\] = 7: must be an index"):
        utilisation_range(cluster, [1.0], [7], 0)


@pytest.mark.parametrize(
    "servers, message",
    [
        ([1, True], r"servers\[1\] = True: booleans are not numbers"),
        ([0, np.True_], r"servers\[1\] = True: booleans are not numbers"),
        ([1, 1], r"servers\[1\] = 1: server 1 is given more than once"),
        ([-1], r"servers\[0\] = -1: must be an index of the 2 servers, from 0 to 1"),
        ([0, 1.0], r"servers\[1\] = 1\.0: identifiers must be integers"),
        (np.array([True]), r"a mask of 2 servers has shape \(2,\), got \(1,\)"),
    ],
)
def test_a_server_list_is_a_mask_or_distinct_indices(servers, message):
    # a bool among indices was read as 1, a repeat or an index from the end accepted
    cluster = Cluster([[4.0, 4.0], [6.0, 2.0]], [[1.0, 2.0], [2.0, 1.0]])
    with pytest.raises(InvalidInputError, match=message):
        utilisation_range(cluster, [1.0, 1.0], servers, 0)
