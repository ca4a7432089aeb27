"""PDRF against the floor of EDRF (docs/reconstructions.md §2.1): equal when every user demands
every resource (EDRF has one round), at most the floor otherwise."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from fairlib.multires import edrf, pdrf


def test_a_user_without_the_saturated_resource_leaves_pdrf_below_the_floor():
    demands, capacity = [[1, 0], [1, 0], [0, 2]], [1, 3]
    assert edrf(demands, capacity).tasks.tolist() == [0.5, 0.5, 1.5]
    assert pdrf(demands, capacity).tasks.tolist() == [0, 0, 0]  # the floor of EDRF is (0, 0, 1)


@st.composite
def pools(draw, positive: bool):
    n = draw(st.integers(1, 6))
    m = draw(st.integers(1, 4))
    low = 1 if positive else 0
    demands = np.array(
        draw(
            st.lists(st.lists(st.integers(low, 9), min_size=m, max_size=m), min_size=n, max_size=n)
        )
    )
    if not positive:
        for i in range(n):  # every user demands something
            if not demands[i].any():
                demands[i, draw(st.integers(0, m - 1))] = draw(st.integers(1, 9))
    capacity = np.array(draw(st.lists(st.integers(10, 200), min_size=m, max_size=m)))
    return demands, capacity


@settings(max_examples=60, deadline=None)
@given(pools(positive=False))
def test_pdrf_never_exceeds_the_floor_of_edrf(pool):
    demands, capacity = pool
    floor = np.floor(edrf(demands, capacity).tasks + 1e-9)
    assert (pdrf(demands, capacity).tasks <= floor).all()


@settings(max_examples=60, deadline=None)
@given(pools(positive=True))
def test_pdrf_is_the_floor_of_edrf_when_every_user_demands_every_resource(pool):
    demands, capacity = pool
    x = edrf(demands, capacity).tasks
    tasks = pdrf(demands, capacity).tasks
    # equal, except one task at a float boundary (EDRF's x an integer up to rounding)
    near_integer = np.abs(x - np.round(x)) < 1e-9
    ok = (tasks == np.floor(x + 1e-9)) | (near_integer & (np.abs(tasks - np.round(x)) <= 1))
    assert ok.all(), (demands.tolist(), capacity.tolist(), x.tolist(), tasks.tolist())
