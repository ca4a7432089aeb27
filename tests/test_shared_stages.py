"""PF-VDS's shared continuation stages: solving an α list inside shared_stages() gives, bit for
bit, what solving each α alone gives, with fewer stages solved."""

import importlib

import numpy as np
import pytest

from fairlib.repro.experiments.heterogeneous_servers import with_random_caps
from fairlib.multires import pfvds
from fairlib.multires.cluster import random_cluster
from fairlib.multires.pfvds import shared_stages

interior = importlib.import_module("fairlib.multires._engine.pfvds_interior")
ALPHAS = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 64.0)


@pytest.mark.parametrize("capped", [False, True])
@pytest.mark.parametrize("time_shared", [False, True])
def test_an_alpha_list_solved_with_shared_stages_equals_each_alpha_alone(
    capped, time_shared, monkeypatch
):
    solved = []
    original = interior._interior_point
    monkeypatch.setattr(
        interior, "_interior_point", lambda *a, **k: solved.append(1) or original(*a, **k)
    )
    for seed in range(4):
        rng = np.random.default_rng(seed)
        cluster = random_cluster(rng, 6, 3, 3, weights=True)
        if capped:
            cluster = with_random_caps(rng, cluster)
        start = len(solved)
        alone = [pfvds(cluster, a, time_shared=time_shared) for a in ALPHAS]
        middle = len(solved)
        with shared_stages():
            shared = [pfvds(cluster, a, time_shared=time_shared) for a in ALPHAS]
        assert len(solved) - middle < middle - start  # fewer stages solved
        for a, one, other in zip(ALPHAS, alone, shared):
            np.testing.assert_array_equal(one.tasks, other.tasks, err_msg=f"alpha {a}")
            assert one.diagnostics.keys() == other.diagnostics.keys()


def test_stages_are_shared_only_inside_the_block():
    cluster = random_cluster(np.random.default_rng(3), 6, 3, 3, weights=True)
    assert interior._SHARED.get() is None
    with shared_stages():
        pfvds(cluster, 8.0)
        kept = len(interior._SHARED.get())
        assert kept >= 3  # the stages at α caps 2, 4 and 8
        pfvds(cluster, 4.0)  # its stages were solved on the way to 8
        assert len(interior._SHARED.get()) == kept
    assert interior._SHARED.get() is None
