"""PS-DSF's fixed point with Aitken jumps against the plain Gauss-Seidel iteration (its slow
reference): the same allocation, to well within the plain iteration's own stopping error, in fewer
sweeps where it converges slowly."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairlib.multires import Cluster
from fairlib.repro.experiments.heterogeneous_servers import with_random_caps
from fairlib.multires.cluster import random_cluster
from fairlib.multires import psdsf
from fairlib.multires.psdsf import _fixed_point, psdsf_violation


def _both(cluster, time_shared=False):
    start = np.zeros((cluster.n_users, cluster.n_servers))
    plain = _fixed_point.solve(
        cluster, time_shared, _fixed_point.FixedPointLimits(50_000, 1e-12, False), start, {}
    )
    fast = _fixed_point.solve(
        cluster, time_shared, _fixed_point.FixedPointLimits(50_000, 1e-12, True), start, {}
    )
    return plain, fast


@settings(max_examples=60, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.integers(2, 40),
    st.integers(1, 5),
    st.integers(1, 3),
    st.booleans(),
    st.booleans(),
)
def test_jumps_land_on_the_plain_iterations_limit(
    seed, n_users, n_servers, n_resources, time_shared, capped
):
    rng = np.random.default_rng(seed)
    cluster = random_cluster(rng, n_users, n_servers, n_resources, weights=True)
    if capped:
        cluster = with_random_caps(rng, cluster)
    plain, fast = _both(cluster, time_shared)
    assert fast.diagnostics["converged"] == plain.diagnostics["converged"]
    scale = max(plain.tasks.max(), 1e-300)
    np.testing.assert_allclose(fast.tasks, plain.tasks, rtol=0, atol=1e-8 * scale)
    if plain.diagnostics["converged"]:
        assert psdsf_violation(cluster, fast.tasks, time_shared=time_shared, tol=1e-6)["holds"]


def _slow_cluster():
    """Many users of two shapes on four servers of two kinds, each user eligible on a random half:
    the per-server fixed point converges linearly over hundreds of sweeps (as on the Google
    open-loop epochs)."""
    rng = np.random.default_rng(11)
    capacity = np.array([[8.0, 4.0], [8.0, 4.0], [2.0, 8.0], [4.0, 4.0]]) * 50
    demand = np.where(rng.random((120, 1)) < 0.5, [[1.0, 0.2]], [[0.2, 1.0]]) * rng.uniform(
        0.5, 2.0, (120, 1)
    )
    eligible = rng.random((120, 4)) < 0.5
    eligible[np.arange(120), rng.integers(0, 4, 120)] = True
    return Cluster(capacity, demand, eligible=eligible)


def test_a_slowly_converging_instance_jumps_and_needs_fewer_sweeps():
    plain, fast = _both(_slow_cluster())
    assert plain.diagnostics["sweeps"] > 100, plain.diagnostics  # the case the jumps are for
    assert fast.diagnostics["jumps"] >= 1
    assert fast.diagnostics["sweeps"] < plain.diagnostics["sweeps"]
    np.testing.assert_allclose(fast.tasks, plain.tasks, rtol=0, atol=1e-8 * plain.tasks.max())


@pytest.mark.parametrize("time_shared", [False, True])
def test_the_public_function_reports_its_jumps(time_shared):
    out = psdsf(_slow_cluster(), method="fixed_point", time_shared=time_shared)
    assert out.diagnostics["converged"] and out.diagnostics["jumps"] >= 0
