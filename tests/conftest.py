import os

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

# Derandomized: the suite has no unseeded randomness; deadline off because the first call of a
# numba kernel includes its compilation.
settings.register_profile("fairlib", derandomize=True, deadline=None, max_examples=60,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", derandomize=False, deadline=None, max_examples=1000,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fairlib"))


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


@pytest.fixture
def tmp_build(tmp_path, monkeypatch):
    """Redirect build/ (quick-mode outputs) into a temporary directory."""
    monkeypatch.setenv("FAIRLIB_BUILD_DIR", str(tmp_path / "build"))
    return tmp_path / "build"
