"""Pooled mechanisms continuing from held allocations (every registered one keeps a ``start`` or
refuses it: tests/test_registry.py). CEEI (``ceei(cluster, start=...)``) is the Eisenberg–Gale
program with the holdings as lower bounds, checked against a general convex solver (scipy's SLSQP on
the same program), the optimality conditions that define it (free users spend their budgets at
clearing prices, held users would want no more than they hold, priced resources are full), the plain
market when nothing binds, and bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize

from fairlib import mechanisms
from fairlib._validate import InvalidInputError
from fairlib.multires import Cluster, ceei

DOC = ([9, 18], [[1, 4], [3, 1]])


def eisenberg_gale_with_floors(cap, dem, w, held):
    """max Σ w log x subject to dem.T x <= cap and x >= held, by SLSQP from a feasible interior
    point."""
    cap, dem, w, held = (np.asarray(a, dtype=float) for a in (cap, dem, w, held))
    room = cap - held @ dem
    x0 = held + 0.5 * np.min(
        np.where(dem > 0, room / np.where(dem > 0, dem, 1) / len(w), np.inf), axis=1
    )
    res = minimize(
        lambda x: -(w * np.log(x)).sum(),
        x0,
        jac=lambda x: -w / x,
        method="SLSQP",
        bounds=[(max(h, 1e-12), None) for h in held],
        constraints=[{"type": "ineq", "fun": lambda x: cap - x @ dem, "jac": lambda x: -dem.T}],
        options={"ftol": 1e-13, "maxiter": 2000},
    )
    # status 8 ("positive directional derivative in line search") is SLSQP stopping at the optimum
    # it cannot improve
    assert res.success or res.status == 8, res.message
    return res.x


@st.composite
def markets_with_holdings(draw):
    n, m = draw(st.integers(1, 5)), draw(st.integers(1, 3))
    dem = np.array(
        draw(
            st.lists(
                st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0]), min_size=m, max_size=m).filter(
                    any
                ),
                min_size=n,
                max_size=n,
            )
        )
    )
    cap = np.array(draw(st.lists(st.sampled_from([6.0, 10.0, 16.0]), min_size=m, max_size=m)))
    w = np.array(draw(st.lists(st.sampled_from([1.0, 2.0, 3.0]), min_size=n, max_size=n)))
    frac = np.array(
        draw(st.lists(st.sampled_from([0.0, 0.1, 0.3, 0.6, 0.9]), min_size=n, max_size=n))
    )
    # holdings: a share of what each user could hold alone, scaled down until they fit together with
    # room left
    alone = np.min(np.where(dem > 0, cap / np.where(dem > 0, dem, 1), np.inf), axis=1)
    held = frac * alone
    used = held @ dem
    held *= min(1.0, 0.95 / max(float((used / cap).max()), 1e-300))
    return cap, dem, w, held


@settings(max_examples=60, deadline=None)
@given(args=markets_with_holdings())
def test_matches_a_convex_solver(args):
    cap, dem, w, held = args
    res = ceei(Cluster.single_pool(cap, dem, weight=w), start=held)
    assert res.converged, res.message
    ref = eisenberg_gale_with_floors(cap, dem, w, held)
    x = res.tasks.ravel()
    assert (x >= held * (1 - 1e-9)).all() and (x @ dem <= cap * (1 + 1e-7)).all()
    # at least as good as the general solver (the optimum is unique: the objective is strictly
    # concave in x)
    assert (w * np.log(x)).sum() >= (w * np.log(ref)).sum() - 1e-8
    scale = np.min(np.where(dem > 0, cap / np.where(dem > 0, dem, 1), np.inf), axis=1)
    np.testing.assert_allclose(x, ref, rtol=0, atol=1e-4 * scale.max())


@settings(max_examples=80, deadline=None)
@given(args=markets_with_holdings())
def test_optimality_conditions(args):
    """The conditions that define the program's optimum, at the reported prices: nothing taken back;
    capacities kept; free users spend exactly their budgets (w / x = d . p); held users would want
    no more than they hold (w / x <= d . p); a resource with a positive price is full."""
    cap, dem, w, held = args
    res = ceei(Cluster.single_pool(cap, dem, weight=w), start=held)
    x, p, fixed = res.tasks.ravel(), res.extras["prices"], res.extras["held"]
    assert (x >= held * (1 - 1e-9)).all()
    assert (x @ dem <= cap * (1 + 1e-7)).all()
    np.testing.assert_allclose((x * (dem @ p))[~fixed], w[~fixed], rtol=1e-6)
    assert (w[fixed] <= (x * (dem @ p))[fixed] * (1 + 1e-6)).all()
    assert ((p <= 1e-9) | (x @ dem >= cap * (1 - 1e-6))).all()


@settings(max_examples=40, deadline=None)
@given(args=markets_with_holdings(), shrink=st.sampled_from([0.0, 0.5, 0.99]))
def test_holdings_below_the_market_change_nothing(args, shrink):
    """Holdings below the plain market's allocation bind nobody: the same allocation (``start=0`` is
    the plain market itself)."""
    cap, dem, w, _ = args
    cluster = Cluster.single_pool(cap, dem, weight=w)
    plain = ceei(cluster)
    res = ceei(cluster, start=shrink * plain.tasks.ravel())
    np.testing.assert_allclose(res.tasks, plain.tasks, rtol=1e-7, atol=1e-9)
    assert not res.extras.get("held", np.zeros(1, bool)).any()


def test_known_answer_and_registry():
    """The DRF paper's pool: the market gives (4.09, 1.64); holding 2 tasks, the second user keeps
    them and the first buys the 3 CPUs left (3 tasks) at 1/3 per CPU, spending its budget; the held
    user's 2 tasks are worth 2 at those prices."""
    res = mechanisms.get("ceei")(Cluster.single_pool(*DOC), start=[1, 2])
    np.testing.assert_allclose(res.tasks.ravel(), [3, 2], rtol=1e-9)
    np.testing.assert_allclose(res.extras["prices"], [1 / 3, 0], atol=1e-9)
    np.testing.assert_allclose(res.extras["spending"], [1, 2], rtol=1e-9)
    assert res.extras["held"].tolist() == [False, True] and res.converged


def test_no_finite_optimum_is_reported():
    """Holdings that fill the CPU leave a user holding nothing at 0 whatever happens: log 0, not an
    optimum."""
    res = ceei(Cluster.single_pool(*DOC), start=[0, 3])
    assert not res.converged and "user 0 holds nothing" in res.message
    np.testing.assert_allclose(res.tasks.ravel(), [0, 3])


@pytest.mark.parametrize(
    "start, match",
    [
        ([1, -1], r"start\[1\] = -1.0: must be finite and >= 0"),
        ([1, np.nan], r"start\[1\] = nan"),
        ([1], r"start: expected 2 numbers"),
        ([5, 0], r"start: uses 20 of resource 1, more than its capacity 18"),
    ],
)
def test_bad_start(start, match):
    with pytest.raises(InvalidInputError, match=match):
        ceei(Cluster.single_pool(*DOC), start=start)


def test_a_cluster_results_tasks_are_a_start_as_they_come():
    """On a single-pool Cluster a result's tasks have shape (n_users, 1); passed back as ``start``
    (the round trip docs/library.md shows) they were refused as "got shape (2, 1)". They are the
    tasks each user holds, the same start as their (n_users,) column."""
    from fairlib import Cluster, asset_fairness, ceei, drf, edrf

    pool = Cluster.single_pool([9.0, 18.0], [[1.0, 4.0], [3.0, 1.0]])
    for mechanism, held in ((drf, [[1], [1]]), (edrf, [[1.0], [0.5]])):
        column = np.asarray(held)
        assert np.array_equal(
            mechanism(pool, start=column).tasks, mechanism(pool, start=column[:, 0]).tasks
        )
    for mechanism in (asset_fairness, ceei):
        column = np.array([[1.0], [0.5]])
        assert np.array_equal(
            mechanism(pool, start=column).tasks, mechanism(pool, start=column[:, 0]).tasks
        )
    assert np.array_equal(drf(pool, start=drf(pool).tasks).tasks, drf(pool).tasks)
    with pytest.raises(InvalidInputError, match=r"start: expected 2 integers"):
        drf(pool, start=[[1, 1]])
