"""What every registered mechanism must do, derived from the registry and its capabilities (fairlib.mechanisms).

These tests (and every other test marked ``registry``, e.g. the interpreted-vs-compiled agreement in
tests/test_interpreted_kernels.py) are parametrised by mechanism name at collection time, so a new mechanism is
tested by them with no edit here: ``tests/test_registry_plugin.py`` registers one from a temporary module and runs
every one of them on it. The rules, as CONTRIBUTING.md states them:

- the default options converge on the DRF paper's example and return a feasible, read-only
  :class:`~fairlib.multires.Allocation` (whole tasks when ``"integral"``; ``extras["prices"]`` when ``"prices"``);
- ``"start"``: held tasks are kept and the result stays feasible; a pooled mechanism without it refuses ``start=``
  with an InvalidInputError naming ``start``;
- without ``"weights"``: weights other than 1 are refused with an InvalidInputError;
- a pooled mechanism refuses a cluster of several servers;
- a documented function (numpydoc summary line).
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from fairlib import mechanisms
from fairlib._validate import InvalidInputError
from fairlib.multires import Allocation, Cluster
from fairlib.plotting import color, label

pytestmark = pytest.mark.registry

#: Ghodsi et al. 2011, §4: 9 CPUs, 18 GB; A = <1 CPU, 4 GB>, B = <3 CPUs, 1 GB>
DRF_EXAMPLE = ([9, 18], [[1, 4], [3, 1]])


def _drf_example(mech, weight=None) -> Cluster:
    """The DRF example as a pool, or (multi-server mechanisms) as two servers of half the capacity each."""
    cap, dem = DRF_EXAMPLE
    if "pooled" in mech.capabilities:
        return Cluster.single_pool(cap, dem, weight=weight)
    return Cluster([[c / 2 for c in cap]] * 2, dem, weight=weight)


@pytest.mark.parametrize("name", mechanisms.names())
def test_default_options_converge_on_the_drf_example(name):
    mech = mechanisms.get(name)
    cluster = _drf_example(mech)
    for run_name, run in mech.runs().items():
        res = run(cluster)
        assert isinstance(res, Allocation), f"{run_name} returned {type(res).__name__}, not an Allocation"
        assert res.tasks.shape == (2, cluster.n_servers) and res.converged, (run_name, res.message)
        assert cluster.feasible(res.tasks) and not res.tasks.flags.writeable, run_name
        assert res.tasks.sum() > 0, f"{run_name} allocates nothing"
        with pytest.raises(TypeError):
            res.extras["new"] = 1                       # extras are immutable
        if "integral" in mech.capabilities:
            assert np.issubdtype(res.tasks.dtype, np.integer), run_name
        if "prices" in mech.capabilities:
            assert np.asarray(res.extras["prices"]).shape == (len(DRF_EXAMPLE[0]),), run_name
    assert color(name) == mech.color and label(name)


@pytest.mark.parametrize("name", mechanisms.names("pooled"))
def test_a_pooled_mechanism_keeps_a_start_or_refuses_it(name):
    """Held tasks (one each) are kept and the capacities respected; without the capability, a clear refusal."""
    mech = mechanisms.get(name)
    cluster = _drf_example(mech)
    held = np.ones(2, dtype=np.int64 if "integral" in mech.capabilities else np.float64)
    if "start" not in mech.capabilities:
        with pytest.raises(InvalidInputError, match="start"):
            mech(cluster, start=held)
        return
    res = mech(cluster, start=held)
    assert (res.tasks.ravel() >= held - 1e-9).all(), res.tasks
    assert cluster.feasible(res.tasks)
    assert res.tasks.sum() >= held.sum() - 1e-9


@pytest.mark.parametrize("name", mechanisms.names())
def test_weights_are_honoured_or_refused(name):
    mech = mechanisms.get(name)
    cluster = _drf_example(mech, weight=[1.0, 2.0])
    if "weights" not in mech.capabilities:
        with pytest.raises(InvalidInputError, match="weight"):
            mech(cluster)
        return
    res = mech(cluster)
    assert cluster.feasible(res.tasks) and res.converged


@pytest.mark.parametrize("name", mechanisms.names("pooled"))
def test_a_pooled_mechanism_refuses_several_servers(name):
    cap, dem = DRF_EXAMPLE
    with pytest.raises(InvalidInputError, match="server"):
        mechanisms.get(name)(Cluster([cap, cap], dem))


@pytest.mark.parametrize("name", mechanisms.names())
def test_a_registered_function_is_documented(name):
    doc = inspect.getdoc(mechanisms.get(name).function) or ""
    assert doc.strip() and doc.splitlines()[0].strip(), f"{name}: its function needs a numpydoc docstring"
