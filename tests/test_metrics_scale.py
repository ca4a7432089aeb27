"""Metrics of valid extremes: Jain's index is scale-free, so any finite magnitude gives the answer
of the same values near 1."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from fairlib.metrics import jain_index

_VALUES = st.lists(st.floats(0.0, 1.0), min_size=1, max_size=20).filter(lambda v: max(v) > 0)


@given(_VALUES, st.integers(-300, 300))
def test_jain_index_is_the_same_at_every_scale(values, exponent):
    scaled = np.asarray(values) * 10.0**exponent
    if not np.isfinite(scaled).all() or scaled.max() == 0:
        return
    # rounding of the scaled values themselves (subnormals at 1e-300 keep few digits) bounds the
    # agreement
    expected = jain_index(values)
    assert abs(jain_index(scaled) - expected) <= 1e-9 + (
        1e-3 if scaled[scaled > 0].min() < 1e-290 else 0.0
    )
    assert 0.0 < jain_index(scaled) <= 1.0 + 1e-12


def test_jain_index_of_equal_extremes_is_one():
    assert jain_index([1e200, 1e200]) == 1.0 and jain_index([1e-200, 1e-200]) == 1.0
    assert jain_index([1.7e308, 1.7e308, 0.0]) == 2.0 / 3.0
