"""Serial twins of the parallel solver kernels (pair_kernels.serial_twins): same values, no parallel
region."""

import sys

import numpy as np
import pytest

from fairlib.multires import drfh, psdsf, random_cluster, tsf
from fairlib.multires._engine import pair_kernels

MAXMIN = sys.modules["fairlib.multires._engine.maxmin_interior"]
MARKET = sys.modules["fairlib.multires._engine.psdsf_market"]


@pytest.mark.parametrize("module", [MAXMIN, MARKET], ids=["maxmin_interior", "psdsf_market"])
def test_twins_cover_every_kernel_that_reaches_a_parallel_one(module):
    serial, parallel = vars(module._SERIAL), vars(module._PARALLEL)
    assert serial.keys() == parallel.keys()
    assert any(kernel.targetoptions.get("parallel") for kernel in parallel.values())
    for name, twin in serial.items():
        if not hasattr(
            twin, "py_func"
        ):  # an element-wise pass NumPy does on one chunk (serial_twins' in_numpy)
            assert (
                parallel[name].targetoptions.get("parallel") and twin not in pair_kernels.TWINS
            ), name
            continue
        assert not twin.targetoptions.get("parallel"), name
        assert twin.py_func.__qualname__ == f"{name}__serial"
        assert twin in pair_kernels.TWINS
        # a chunk loop's twin (one chunk: a plain loop) is inlined into its callers; the others keep
        # their options
        chunk_loop = bool(parallel[name].targetoptions.get("parallel"))
        expected = "always" if chunk_loop else parallel[name].targetoptions.get("inline")
        assert twin.targetoptions.get("inline") == expected, name
        # every name of the chain the twin reads resolves to a twin, never to a parallel kernel
        for ref in pair_kernels._references(twin.py_func.__code__) & serial.keys():
            assert twin.py_func.__globals__[ref] is serial[ref], (name, ref)
    # the chain is closed: no kernel outside it calls into it
    for name, value in vars(module).items():
        if (
            hasattr(value, "py_func")
            and value.py_func.__module__ == module.__name__
            and name not in serial
        ):
            assert not pair_kernels._references(value.py_func.__code__) & serial.keys(), name


def test_serial_twins_and_parallel_kernels_agree_bit_for_bit(monkeypatch):
    """Below PARALLEL_PAIRS (one chunk) the solvers run the twins; the parallel kernels on one
    thread must give the very same numbers, or a problem's result would depend on which variant the
    process compiled."""
    rng = np.random.default_rng(44)
    clusters = [
        random_cluster(rng, n, k, r, weights=bool(i % 2))
        for i, (n, k, r) in enumerate([(2, 2, 2), (7, 3, 2), (15, 5, 3), (40, 8, 4)])
    ]
    mechanisms = (drfh, tsf, psdsf, lambda c: psdsf(c, time_shared=True))
    serial = [m(c).tasks for c in clusters for m in mechanisms]
    monkeypatch.setattr(MAXMIN, "_SERIAL", MAXMIN._PARALLEL)
    monkeypatch.setattr(MARKET, "_SERIAL", MARKET._PARALLEL)
    parallel = [m(c).tasks for c in clusters for m in mechanisms]
    for a, b in zip(serial, parallel):
        np.testing.assert_array_equal(a, b)
