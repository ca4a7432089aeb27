"""Pooled DRF served machine by machine (fairlib.multires.machine_offers): the kernel against a slow
NumPy reference that follows the offer loop literally, the termination axiom (no user below its cap
fits anywhere it may run), a known answer where serving machine by machine loses against DRFH, caps,
weights and bad input."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairlib import InvalidInputError
from fairlib._jit import compiled, interpreted
from fairlib.multires import Cluster, drf, drfh, drfh_best_fit, keeps_servers, on_merged_servers
from fairlib.multires.best_fit import FIT_SLACK
from fairlib.multires.machine_offers import drf_machine_offers

from .reference import machine_offers_reference, random_capped_cluster


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    users=st.integers(1, 8),
    servers=st.integers(1, 5),
    resources=st.integers(1, 3),
    capped=st.booleans(),
    weighted=st.booleans(),
)
def test_matches_the_reference_and_stops_for_a_reason(
    seed, users, servers, resources, capped, weighted
):
    cluster = random_capped_cluster(
        seed, users, servers, resources, capped, weighted, whole_caps=True
    )
    with compiled():
        fast = drf_machine_offers(cluster)
    np.testing.assert_array_equal(fast.tasks, machine_offers_reference(cluster))
    with interpreted():
        np.testing.assert_array_equal(drf_machine_offers(cluster).tasks, fast.tasks)
    assert (fast.tasks == np.round(fast.tasks)).all()  # whole tasks
    assert (fast.used <= cluster.capacity * (1 + 1e-8) + 1e-12).all()
    assert (fast.tasks[~cluster.eligible] == 0).all()
    totals = fast.tasks.sum(axis=1)
    assert (totals <= cluster.max_tasks).all()
    # termination axiom: a user below its cap by a whole task has no usable machine with room for
    # one
    left = cluster.capacity - fast.used
    for n in np.flatnonzero(totals + 1 <= cluster.max_tasks):
        room = (cluster.demand[n] <= left + FIT_SLACK * cluster.capacity).all(axis=1)
        assert not (room & cluster.eligible[n]).any(), (
            f"user {n} stopped with room on a usable machine"
        )


def test_machine_first_order_loses_where_drfh_and_best_fit_do_not():
    # the memory-rich machine is offered first; DRF's order puts the CPU-heavy user's task there
    cluster = Cluster([[2, 8], [8, 2]], [[1, 0.25], [0.25, 1]])
    assert drf_machine_offers(cluster).tasks.tolist() == [[1.0, 4.0], [4.0, 1.0]]
    assert drfh_best_fit(cluster).tasks.sum(axis=1).tolist() == [8.0, 8.0]
    np.testing.assert_allclose(drfh(cluster).totals, [8.0, 8.0])
    # offered in the other order, each machine goes to the user of its shape
    swapped = Cluster([[8, 2], [2, 8]], [[1, 0.25], [0.25, 1]])
    assert drf_machine_offers(swapped).tasks.sum(axis=1).tolist() == [5.0, 5.0]


def test_one_machine_is_pooled_drf():
    rng = np.random.default_rng(7)
    for _ in range(20):
        demand = rng.integers(1, 6, size=(5, 2)).astype(float)
        capacity = rng.integers(20, 60, size=2).astype(float)
        offers = drf_machine_offers(Cluster([capacity], demand)).tasks.ravel()
        np.testing.assert_array_equal(offers, drf(demand, capacity).tasks)


def test_weights_caps_and_constraints():
    # user 1 weighs 2: it takes two tasks for each of user 0's while both fit
    cluster = Cluster([[6.0]], [[1.0], [1.0]], weight=[1.0, 2.0])
    assert drf_machine_offers(cluster).tasks.ravel().tolist() == [2.0, 4.0]
    # a cap of 2.5 allows two whole tasks; user 0 may not use machine 1
    cluster = Cluster(
        [[10.0], [10.0]],
        [[1.0], [1.0]],
        eligible=[[True, False], [True, True]],
        max_tasks=[2.5, 100],
    )
    got = drf_machine_offers(cluster).tasks
    assert got.tolist() == [[2.0, 0.0], [8.0, 10.0]]


def test_never_merged_and_bad_input():
    cluster = Cluster([[2, 8], [2, 8], [8, 2]], [[1, 0.25], [0.25, 1]])
    assert keeps_servers(drf_machine_offers)
    np.testing.assert_array_equal(
        on_merged_servers(drf_machine_offers, cluster).tasks, drf_machine_offers(cluster).tasks
    )
    with pytest.raises(InvalidInputError, match=r"demand\[0, 1\]"):
        drf_machine_offers(Cluster([[1.0, 1.0]], [[1.0, -1.0]]))
