"""Best-Fit DRFH (fairlib.multires.best_fit): the kernel against a slow step-by-step NumPy
reference, hand-computed placements, the termination axiom (every user stops at its cap or with no
usable server that has room), caps, weights, and that it is never run on merged servers."""

import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairlib import InvalidInputError, mechanisms
from fairlib._jit import compiled, interpreted
from fairlib.multires import Cluster, drfh, drfh_best_fit, keeps_servers, on_merged_servers
from fairlib.multires.best_fit import FIT_SLACK

from .reference import best_fit_reference, random_capped_cluster


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    users=st.integers(1, 8),
    servers=st.integers(1, 5),
    resources=st.integers(1, 3),
    capped=st.booleans(),
    weighted=st.booleans(),
    quantum=st.sampled_from([1.0, 0.5, 2.5]),
)
def test_matches_the_reference_and_stops_for_a_reason(
    seed, users, servers, resources, capped, weighted, quantum
):
    cluster = random_capped_cluster(seed, users, servers, resources, capped, weighted)
    with compiled():
        fast = drfh_best_fit(cluster, quantum=quantum)
    np.testing.assert_allclose(fast.tasks, best_fit_reference(cluster, quantum), rtol=0, atol=1e-9)
    with interpreted():
        np.testing.assert_array_equal(drfh_best_fit(cluster, quantum=quantum).tasks, fast.tasks)
    # feasible: capacities, placement constraints, caps
    assert (fast.used <= cluster.capacity * (1 + 1e-8) + 1e-12).all()
    assert (fast.tasks[~cluster.eligible] == 0).all()
    totals = fast.tasks.sum(axis=1)
    assert (totals <= cluster.max_tasks * (1 + 1e-12)).all()
    # termination axiom: a user below its cap has no usable server with room for its next step
    left = cluster.capacity - fast.used
    for n in np.flatnonzero(totals < cluster.max_tasks):
        step = min(quantum, cluster.max_tasks[n] - totals[n])
        room = (cluster.demand[n] * step <= left + FIT_SLACK * cluster.capacity).all(axis=1)
        assert not (room & cluster.eligible[n]).any(), (
            f"user {n} stopped with room on a usable server"
        )


def test_each_task_goes_where_the_leftover_has_its_shape():
    # CPU-heavy user 0 and RAM-heavy user 1; server 0 CPU-rich, server 1 RAM-rich: each fills its
    # own server
    cluster = Cluster([[4, 1], [1, 4]], [[1, 0.25], [0.25, 1]])
    assert drfh_best_fit(cluster).tasks.tolist() == [[4.0, 0.0], [0.0, 4.0]]
    # with the servers swapped in order the same pairing holds (fitness, not index, decides)
    swapped = Cluster([[1, 4], [4, 1]], [[1, 0.25], [0.25, 1]])
    assert drfh_best_fit(swapped).tasks.tolist() == [[0.0, 4.0], [4.0, 0.0]]


def test_fragmentation_leaves_what_no_task_fits():
    # one server (3 CPU, 3 RAM), user 0 needs (2, 1) per task, user 1 (1, 2): after one task each,
    # (0, 0) is left; with quantum 0.5 the same totals; DRFH (divisible) also gives 1 each here
    cluster = Cluster([[3, 3]], [[2, 1], [1, 2]])
    assert drfh_best_fit(cluster).tasks.ravel().tolist() == [1.0, 1.0]
    # a server with 3 CPU, 2 RAM and whole tasks of (2, 1), (1, 2): user 0 places one task (share
    # 2/3); user 1's task (1, 2) does not fit in the leftover (1, 1), so it gets nothing where
    # DRFH's divisible tasks give it 4/7
    cluster = Cluster([[3, 2]], [[2, 1], [1, 2]])
    best_fit = drfh_best_fit(cluster).tasks.ravel()
    assert best_fit.tolist() == [1.0, 0.0]
    assert drfh(cluster).tasks.ravel()[1] > 0.4


def test_caps_cut_the_last_step_and_zero_caps_get_nothing():
    # users alternate whole tasks; user 0's third step is cut to 0.3 at its cap; user 2 then takes
    # whole tasks until the 0.7 left holds none (no cut step without a cap)
    cluster = Cluster([[10, 10]], [[1, 1], [1, 1], [1, 1]], max_tasks=[2.3, 0.0, np.inf])
    assert drfh_best_fit(cluster).tasks.ravel().tolist() == pytest.approx(
        [2.3, 0.0, 7.0], abs=1e-12
    )


def test_weights_order_the_filling():
    # equal users, one server holding 3 tasks: weight 2 gets two, weight 1 one (lowest share s_n /
    # φ_n first)
    cluster = Cluster([[3.0]], [[1.0], [1.0]], weight=[2.0, 1.0])
    assert drfh_best_fit(cluster).tasks.ravel().tolist() == [2.0, 1.0]


def test_never_run_on_merged_servers():
    # two identical servers: merged, one big server would take a task neither half has room for
    cluster = Cluster([[1.5, 1.5], [1.5, 1.5]], [[1.0, 1.0]])
    assert drfh_best_fit(cluster).tasks.sum() == 2.0
    for mechanism in (
        drfh_best_fit,
        mechanisms.get("drfh_best_fit"),
        functools.partial(mechanisms.get("drfh_best_fit"), quantum=1.0),
    ):
        assert keeps_servers(mechanism)
        np.testing.assert_array_equal(
            on_merged_servers(mechanism, cluster).tasks, drfh_best_fit(cluster).tasks
        )
    assert not keeps_servers(drfh) and not keeps_servers(mechanisms.get("drfh"))


@pytest.mark.parametrize("quantum", [0, -1.0, np.nan, "1", True])
def test_bad_quantum_is_named(quantum):
    with pytest.raises(InvalidInputError, match="quantum"):
        drfh_best_fit(Cluster([[1.0]], [[1.0]]), quantum=quantum)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.one_of(st.just(0.0), st.just(np.nan), st.floats(0.0, 1e6)), min_size=1, max_size=5)
)
def test_the_fitness_scale_is_the_first_component_else_numpys_max(values):
    """A shape is normalised by its first component, or by its largest when the first is zero: the
    loop that finds it agrees with NumPy's ``max`` (a NaN anywhere wins, as there)."""
    from fairlib.multires.best_fit import _shape_scale

    vector = np.array(values)
    with compiled():
        got = _shape_scale(vector)
    want = vector[0] if vector[0] > 0 else vector.max()
    assert got == want or (np.isnan(got) and np.isnan(want))
