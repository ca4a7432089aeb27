"""Bad input and faults: every call ends in one of two ways — a documented exception naming the argument,
index and value, or a result that passes the mechanism's own invariants. Each reproducer of issue-listed
failures is a regression test here; hypothesis strategies push magnitudes, zeros and ties."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairlib import sim
from fairlib._validate import InvalidInputError
from fairlib.multires import drf, psdsf
from tests.test_sim import _jobs, _one_server_fleet


# --- hangs ------------------------------------------------------------------------------------------------

def test_drf_refuses_instances_beyond_its_step_bound():
    with pytest.raises(InvalidInputError, match=r"up to 1e\+13 steps .* max_allocations = 2000000000"):
        drf([[1.0]], [1e13])
    assert drf([[1.0]], [1e6]).tasks.tolist() == [1_000_000]
    with pytest.raises(InvalidInputError, match="max_allocations"):
        drf([[1.0]], [1e6], max_allocations=10)
    with pytest.raises(InvalidInputError, match=r"max_allocations = 0"):
        drf([[1.0]], [5], max_allocations=0)


@pytest.mark.parametrize("kwargs, message", [
    ({"horizon": np.inf}, r"horizon = inf: must be finite"),
    ({"horizon": np.nan}, r"horizon = nan: must be finite"),
    ({"start": np.nan}, r"start = nan: must be finite"),
    ({"start": 50.0, "horizon": 10.0}, r"horizon = 10\.0: must be after start = 50\.0"),
    ({"interval": 1e-300}, r"interval = 1e-300: must be finite and >= 0\.001"),
    ({"interval": np.inf}, r"interval = inf"),
    ({"horizon": 1e12, "interval": 1.0}, r"more than 10,000,000"),
    ({"eligible": [[0.5], [1.0]]}, r"eligible\[0, 0\] = 0\.5"),
    ({"eligible": [[np.nan], [1.0]]}, r"eligible\[0, 0\] = nan"),
])
def test_replay_refuses_unbounded_or_meaningless_times(kwargs, message):
    fleet = _one_server_fleet()
    with pytest.raises(InvalidInputError, match=message):
        sim.replay(fleet, _jobs([0, 0], [10, 5], [[1, 0.5], [0.5, 1]]), psdsf, **kwargs)


@pytest.mark.parametrize("field, value, message", [
    ("arrival", [np.nan, 0.0], r"jobs\.arrival\[0\] = nan: must be finite"),
    ("work", [-1.0, 5.0], r"jobs\.work\[0\] = -1\.0: must be finite and >= 0"),
    ("work", [np.inf, 5.0], r"jobs\.work\[0\] = inf"),
    ("shape", [[-1.0, 1.0], [1.0, 1.0]], r"jobs\.shape\[0, 0\] = -1\.0"),
    ("shape", [[0.0, 0.0], [1.0, 1.0]], r"jobs\.shape\[0\] = \[0\.0, 0\.0\]: a segment must demand some resource"),
    ("trace_end", [-5.0, 100.0], r"jobs\.trace_end\[0\] = -5\.0: before its arrival"),
])
def test_jobs_reject_nonsense(field, value, message):
    good = _jobs([0, 0], [10, 5], [[1, 0.5], [0.5, 1]])
    fields = {f: getattr(good, f) for f in ("ids", "arrival", "trace_end", "offsets", "work", "shape", "resources",
                                            "source")}
    fields[field] = np.array(value, dtype=float)
    with pytest.raises(InvalidInputError, match=message):
        sim.Jobs(**fields)


# --- silent wrong answers -----------------------------------------------------------------------------------

def test_drf_uint64_caps_do_not_wrap():
    caps = np.array([2**64 - 1, 5], dtype=np.uint64)
    assert drf([[1, 1], [1, 1]], [10, 10], max_tasks=caps).tasks.tolist() == [5, 5]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(0, 6), min_size=2, max_size=2), min_size=1, max_size=5),
       st.lists(st.floats(1e-3, 1e6), min_size=2, max_size=2),
       st.lists(st.integers(0, 2**63 - 1), min_size=5, max_size=5))
def test_drf_either_refuses_or_allocates_feasibly(demands, capacity, caps):
    d = np.array(demands, dtype=float)
    d[d.sum(axis=1) == 0, 0] = 1.0
    try:
        res = drf(d, capacity, max_tasks=np.array(caps[:len(d)], dtype=np.int64), max_allocations=10**6)
    except InvalidInputError as e:
        assert "max_allocations" in str(e) or "overflow" in str(e)
        return
    assert (res.tasks >= 0).all() and (res.tasks <= np.array(caps[:len(d)])).all()
    assert (res.tasks @ d <= np.array(capacity) * (1 + 1e-9)).all()
