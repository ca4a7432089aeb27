"""Best-Fit DRFH and DRF's machine offers place one task (or quantum) at a time: an instance whose
placements could exceed ``max_placements`` is refused by name before any work, at and past the
cap."""

import time

import pytest

from fairlib import Cluster, InvalidInputError
from fairlib.multires import drf_machine_offers, drfh_best_fit
from fairlib.multires.best_fit import MAX_PLACEMENTS, placement_bound

DRF_EXAMPLE = Cluster([[9, 18]], [[1, 4], [3, 1]])


@pytest.mark.parametrize(
    "mechanism,options",
    [(drfh_best_fit, {}), (drfh_best_fit, {"quantum": 1e-300}), (drf_machine_offers, {})],
)
def test_an_instance_past_the_cap_is_refused_at_once(mechanism, options):
    huge = Cluster([[1e10, 1e10]], [[1.0, 1.0], [1.0, 1.0]])
    cluster = DRF_EXAMPLE if options else huge
    t0 = time.process_time()
    with pytest.raises(InvalidInputError, match="max_placements = 100000000"):
        mechanism(cluster, **options)
    assert time.process_time() - t0 < 5  # refused before the filling, not after it


@pytest.mark.parametrize("mechanism", [drfh_best_fit, drf_machine_offers])
def test_at_the_cap_it_runs_and_past_it_it_refuses(mechanism):
    bound = placement_bound(DRF_EXAMPLE)
    assert bound == 4.5 + 3  # 4.5 tasks of <1, 4> alone on <9, 18>, 3 of <3, 1>
    assert mechanism(DRF_EXAMPLE, max_placements=8).tasks.sum() <= bound
    with pytest.raises(InvalidInputError, match=r"up to 7.5 placements .* max_placements = 7"):
        mechanism(DRF_EXAMPLE, max_placements=7)
    for bad in (0, -1, 1.5, True, None):
        with pytest.raises(InvalidInputError, match="max_placements"):
            mechanism(DRF_EXAMPLE, max_placements=bad)
    assert MAX_PLACEMENTS == 100_000_000
