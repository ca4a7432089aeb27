"""Small problems run their kernels as Python (fairlib._jit): same answers as the compiled kernels,
nothing compiled below the size rule, compiled above it, and the rule depends on the problem
only."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairlib import _jit, mechanisms
from fairlib._jit import (
    INTERPRET_AT_MOST,
    MAX_INTERPRET_AT_MOST,
    compiled,
    interpreted,
    problem_cells,
)
from fairlib.dynamic import dynamic_drf
from fairlib.market import Game, best_response
from fairlib import InvalidInputError
from fairlib.multires import Cluster, drfh
from fairlib.testing import _random_instance
from fairlib.tolerances import DEFAULT_ATOL, DEFAULT_RTOL

ROOT = Path(__file__).resolve().parents[1]


# the small random pools and clusters the registry's checks draw (one generator for both)
_instance = _random_instance


def _agree(mech, a, b):
    """Integral allocations identical; divisible ones within the tolerance results are held to
    across machines (fairlib.tolerances: the two paths round differently, as two CPUs do). A
    placement on a non-unique optimal face (DRFH/TSF's centre) moves by ~1e-7 with the rounding;
    each user's total is checked tighter.

    PS-DSF and PF-VDS do not pin the placement (Definition 4 and Lemma 2 allow a set of placements;
    for PS-DSF Definition 4 can even allow several totals): there each path's allocation must meet
    the defining condition (Definition 4; a Nash residual of at most 1e-6) and the totals must agree
    within fairlib.tolerances (PF-VDS's totals are unique, Theorem 7: 1e-8). Regression: on an AMD
    EPYC the two paths' PS-DSF placements differed by 1.7e-6 of the largest total (seed 0, 2 users,
    3 servers, 2 resources) and PF-VDS's by 4.3e-6 (seed 0, 2 users, 4 servers, 1 resource), every
    one of them an equilibrium."""
    if "integral" in mech.capabilities:
        np.testing.assert_array_equal(a.tasks, b.tasks)
        return
    scale = max(1.0, float(np.abs(b.tasks).max()))
    if mech.name in ("psdsf", "pfvds"):
        from fairlib.multires import psdsf_violation

        for alloc in (a, b):
            if mech.name == "psdsf":
                assert psdsf_violation(alloc.cluster, alloc.tasks, tol=1e-7)["holds"]
            else:
                assert alloc.diagnostics["nash_residual"] <= 1e-6
        rtol = DEFAULT_RTOL if mech.name == "psdsf" else 1e-8
        np.testing.assert_allclose(
            a.tasks.sum(axis=1), b.tasks.sum(axis=1), rtol=rtol, atol=1e-10 * scale
        )
        return
    np.testing.assert_allclose(a.tasks, b.tasks, rtol=DEFAULT_RTOL, atol=DEFAULT_ATOL * scale)
    np.testing.assert_allclose(
        a.tasks.sum(axis=1), b.tasks.sum(axis=1), rtol=1e-8, atol=1e-10 * scale
    )


@pytest.mark.registry
@pytest.mark.parametrize("name", mechanisms.names())
@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    users=st.integers(1, 7),
    servers=st.integers(1, 4),
    resources=st.integers(1, 3),
)
def test_interpreted_and_compiled_kernels_agree(name, seed, users, servers, resources):
    """Every registered mechanism, the same instance both ways, sizes on both sides of the rule (up
    to 84 cells)."""
    mech = mechanisms.get(name)
    cluster = _instance(mech, np.random.default_rng(seed), users, servers, resources)
    with interpreted():
        slow = mech(cluster)
    with compiled():
        fast = mech(cluster)
    _agree(mech, slow, fast)
    assert slow.converged == fast.converged


def test_dynamic_drf_and_best_response_agree_both_ways():
    rng = np.random.default_rng(3)
    for _ in range(5):
        demands = rng.uniform(0.05, 1.0, (6, 3))
        w, y = rng.uniform(0.1, 2.0, 5), rng.uniform(0.1, 2.0, 5)
        with interpreted():
            slow = dynamic_drf(demands).shares(6), best_response(w, y, 1.0)
        with compiled():
            fast = dynamic_drf(demands).shares(6), best_response(w, y, 1.0)
        np.testing.assert_allclose(slow[0], fast[0], rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(slow[1], fast[1], rtol=1e-9, atol=1e-12)


def test_problem_cells_counts_users_servers_resources():
    cluster = Cluster(np.ones((3, 2)), np.ones((5, 2)))
    assert problem_cells(cluster) == 5 * 3 * 2
    assert problem_cells(Game(np.ones((4, 3)))) == 4 * 3  # a game: users x machines
    assert problem_cells(np.ones((7, 4))) == 28
    assert problem_cells([1.0, 2.0, 3.0]) == 3
    assert problem_cells(object()) is None
    assert problem_cells(None) is None


def test_the_problem_may_be_passed_by_keyword():
    assert np.allclose(
        dynamic_drf(demands=[[1.0, 0.5], [0.5, 1.0]]).final_shares,
        dynamic_drf([[1.0, 0.5], [0.5, 1.0]]).final_shares,
    )


def _record_interpreted_calls(monkeypatch) -> list:
    """Names of the mechanisms whose calls run interpreted from now on (in order)."""
    entered, original = [], _jit._interpreting

    def spy(name):
        entered.append(name)
        return original(name)

    monkeypatch.setattr(_jit, "_interpreting", spy)
    return entered


def test_the_rule_sets_the_path_per_call_and_resets_it(monkeypatch):
    """Below the rule the kernels run as Python, above it compiled, a failing call leaves nothing
    set, and the kernels are plain numba dispatchers again after an interpreted call."""
    entered = _record_interpreted_calls(monkeypatch)
    rng = np.random.default_rng(0)
    small = Cluster(rng.uniform(1, 4, (2, 2)), rng.uniform(0.1, 1, (3, 2)))  # 12 cells
    large = Cluster(rng.uniform(1, 4, (4, 2)), rng.uniform(0.1, 1, (9, 2)))  # 72 cells
    assert problem_cells(small) <= INTERPRET_AT_MOST < problem_cells(large)
    drfh(small)
    assert entered == ["drfh"]
    drfh(large)
    assert entered == ["drfh"]
    with pytest.raises(InvalidInputError, match="tol"):
        drfh(small, options={"tol": -1.0})
    assert _jit._INTERPRET.get() is False and _jit._DEPTH == 0
    assert all(type(kernel) is _jit.CPUDispatcher for kernel in _jit.KERNELS)
    with interpreted():
        assert all(type(kernel) is _jit.Kernel for kernel in _jit.KERNELS)
        drfh(large)
    assert all(type(kernel) is _jit.CPUDispatcher for kernel in _jit.KERNELS)


def test_work_the_size_does_not_bound_stays_compiled(monkeypatch):
    """PF-VDS's best-response sweeps (thousands of iterations), PS-DSF's fixed point and progressive
    filling of a pool holding many tasks run compiled however small the problem; the default PF-VDS
    and PS-DSF and a pool of a few tasks run interpreted."""
    from fairlib.multires import drf, pfvds, psdsf

    entered = _record_interpreted_calls(monkeypatch)
    cluster = Cluster([[4.0, 4.0], [6.0, 2.0]], [[1.0, 2.0], [2.0, 1.0]])
    for call, name, interpreted_ in [
        (lambda: pfvds(cluster, 1.0), "pfvds", True),
        (lambda: pfvds(cluster, 1.0, method="best_response"), "pfvds", False),
        (lambda: psdsf(cluster), "psdsf", True),
        (lambda: psdsf(cluster, method="fixed_point"), "psdsf", False),
        (lambda: drf([[1.0, 2.0], [2.0, 1.0]], [10.0, 10.0]), "drf", True),
        (lambda: drf([[1.0, 2.0], [2.0, 1.0]], [1e5, 1e5]), "drf", False),
    ]:
        entered.clear()
        call()
        assert (entered[:1] == [name]) is interpreted_, (name, entered)


def test_njit_rejects_signatures():
    with pytest.raises(TypeError, match="keyword options only"):
        _jit.njit("float64(float64)")


_PROBE = textwrap.dedent("""
    import json, sys
    from numba.core.registry import CPUDispatcher
    import importlib, pkgutil
    import fairlib
    from fairlib import games, mechanisms
    from fairlib.dynamic import dynamic_drf
    from fairlib.market import Game, best_response
    from fairlib.multires import Cluster

    def compiled_kernels():
        out = []
        for info in pkgutil.walk_packages(fairlib.__path__, "fairlib."):
            if info.name.endswith(".warm"):
                continue
            for name, value in vars(importlib.import_module(info.name)).items():
                if isinstance(value, CPUDispatcher) and value.signatures:
                    out.append(f"{info.name}.{name}")
        from fairlib.multires._engine.pair_kernels import TWINS
        out += [twin.py_func.__qualname__ for twin in TWINS if twin.signatures]
        return sorted(set(out))

    for name in mechanisms.names():
        mech = mechanisms.get(name)
        pool = "pooled" in mech.capabilities
        mech(Cluster.single_pool([4.0, 4.0], [[1.0, 2.0], [2.0, 1.0]]) if pool
             else Cluster([[4.0, 4.0], [6.0, 2.0]], [[1.0, 2.0], [2.0, 1.0]]))
    dynamic_drf([[1.0, 0.5], [0.5, 1.0]])
    best_response([1.0, 2.0], [1.0, 1.0], 1.0)
    for name in games.names():
        entry = games.get(name)
        # finite parallelism only for a game registered with it (scaffold --without leaves it out)
        finite = entry.instance is Game and "parallelism" in entry.capabilities
        for parallelism in (None, 1) if finite else (None,):
            kwargs = {"parallelism": parallelism} if entry.instance is Game else {}
            entry(entry.example([[0.7, 0.3], [0.4, 0.6]], reserve=1e-9 if "reserve" in \
entry.capabilities else 0.0,
                                **kwargs))
    small = compiled_kernels()
    import numpy as np
    rng = np.random.default_rng(0)
    mechanisms.get("drfh")(Cluster(rng.uniform(2, 6, (4, 2)), rng.uniform(0.1, 1, (12, 2))))
    print(json.dumps({"small": small, "large": compiled_kernels()}))
""")


def test_a_small_first_call_loads_or_compiles_no_kernel():
    """In a fresh interpreter every public mechanism and registered game on a 2-user problem leaves
    every kernel without a compiled specialisation (nothing compiled, nothing loaded from the
    cache); one 12-user DRFH call then has some."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    run = subprocess.run(
        [sys.executable, "-c", _PROBE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    kernels = json.loads(run.stdout.strip().splitlines()[-1])
    assert kernels["small"] == []
    assert "_newton_solve__serial" in kernels["large"], kernels["large"]


@pytest.mark.parametrize(
    "value, expected",
    [
        ("0", "0"),
        ("12", "12"),
        ("abc", "FAIRLIB_INTERPRET_AT_MOST"),
        ("-1", "FAIRLIB_INTERPRET_AT_MOST"),
        ("1000000000", "1000000000"),
        ("1000000001", "FAIRLIB_INTERPRET_AT_MOST"),
        ("1" + "0" * 29, "MAX_INTERPRET_AT_MOST = 1,000,000,000"),
        ("9" * 5000, "FAIRLIB_INTERPRET_AT_MOST"),
    ],
)
def test_the_rule_can_be_set_by_the_environment(value, expected):
    """FAIRLIB_INTERPRET_AT_MOST=0 compiles every problem (a sweep of many small ones); anything but
    a count up to MAX_INTERPRET_AT_MOST is an error naming the variable."""
    env = dict(os.environ, FAIRLIB_INTERPRET_AT_MOST=value)
    run = subprocess.run(
        [sys.executable, "-c", "import fairlib._jit as j; print(j.INTERPRET_AT_MOST)"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert expected in (run.stdout if run.returncode == 0 else run.stderr)
    counted = value.isdigit() and len(value) < 20 and int(value) <= MAX_INTERPRET_AT_MOST
    assert (run.returncode == 0) == counted
