"""Guarantees, limits and lending limits as resource vectors for pooled DRF
(fairlib.multires.schedulers.quotas): known answers per scheduler, the kernel against a from-scratch
reference (interpreted and compiled), the defining property of progressive filling with quotas, the
continuous references (an LP for the dominant share, water-filling for Kueue's borrowed share), and
bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairlib import InvalidInputError
from fairlib._jit import compiled
from fairlib.multires import Cluster, Quotas, drf
from fairlib.multires.lp import quota_maxmin_lp
from tests.reference import borrowed_waterfilling_reference, quota_filling_reference


# ---- known answers -------------------------------------------------------------------------------
def test_an_unused_guarantee_is_lent_by_yarn_held_by_mesos_and_partly_held_by_kueue():
    """10 CPUs, two users of one CPU per task; user 0 is guaranteed 6 but runs at most 2 tasks. YARN
    lends the idle 4 (user 1 gets 8), Mesos holds them back as headroom (user 1 gets 10 - 6 = 4);
    Kueue with lendingLimit 3 reserves 6 - 3 = 3 for user 0, which uses 2, so 1 is held back (user 1
    gets 7)."""
    d, cap, mt = [[1], [1]], [10], np.array([2, 100])
    g = [[6], [0]]
    assert drf(d, cap, max_tasks=mt, quotas=Quotas.yarn(min_share=g)).tasks.tolist() == [2, 8]
    assert drf(d, cap, max_tasks=mt, quotas=Quotas.mesos(guarantee=g)).tasks.tolist() == [2, 4]
    assert drf(
        d, cap, max_tasks=mt, quotas=Quotas.kueue(nominal=g, lending_limit=[[3], [0]])
    ).tasks.tolist() == [2, 7]


def test_limits_cap_a_user_as_whole_tasks_within_the_vector():
    """The DRF paper's example (9 CPUs, 18 GB; A = <1, 4>, B = <3, 1>) gives 3 and 2. A max share of
    8 GB for A stops it at two tasks; B then takes 3 CPUs per task from the 7 left: two tasks (a
    third needs 11 CPUs)."""
    base = drf([[1, 4], [3, 1]], [9, 18])
    assert base.tasks.tolist() == [3, 2]
    capped = drf([[1, 4], [3, 1]], [9, 18], quotas=Quotas.yarn(max_share=[[9, 8], [9, 18]]))
    assert capped.tasks.tolist() == [2, 2]
    # a limit that is not a whole number of tasks rounds down: 11 GB is two tasks of 4 GB
    assert drf(
        [[1, 4], [3, 1]], [9, 18], quotas=Quotas.yarn(max_share=[[9, 11], [9, 18]])
    ).tasks.tolist() == [2, 2]


def test_guaranteed_tasks_come_first_in_the_recorded_order():
    """YARN min share <4, 16> for A: A's four guaranteed tasks are served before anyone beyond a
    guarantee, then DRF by the whole allocation: B (share 0) takes one task, after which nothing
    fits."""
    res = drf(
        [[1, 4], [3, 1]],
        [9, 18],
        quotas=Quotas.yarn(min_share=[[4, 16], [0, 0]]),
        record_order=True,
    )
    assert res.tasks.tolist() == [4, 1]
    assert res.order.tolist() == [0, 0, 0, 0, 1]


def test_kueue_orders_by_the_borrowed_share():
    """Kueue: nominal <4, 9> for A and <5, 9> for B (the pool is their sum, 9 CPUs, 18 GB). Within
    nominal both have share 0 (index order): A two tasks, B one. Then borrowed shares: A's third
    task borrows 3 GB of the 18 lendable (1/6), B's second 1 CPU of 9 (1/9): A goes first at share
    0, B next; B's third and A's fourth need a tenth CPU."""
    res = drf(
        [[1, 4], [3, 1]], [9, 18], quotas=Quotas.kueue(nominal=[[4, 9], [5, 9]]), record_order=True
    )
    assert res.tasks.tolist() == [3, 2]
    assert res.order.tolist() == [0, 0, 1, 0, 1]
    assert res.share_arithmetic == "float"


def test_kueue_borrowing_limit_stops_borrowing():
    """With borrowingLimit 0 on memory for A, A cannot go beyond its nominal 9 GB: two tasks."""
    q = Quotas.kueue(nominal=[[4, 9], [5, 9]], borrowing_limit=[[5, 0], [np.inf, np.inf]])
    assert drf([[1, 4], [3, 1]], [9, 18], quotas=q).tasks.tolist() == [2, 2]


def test_quotas_on_a_single_pool_cluster():
    cluster = Cluster.single_pool([9, 18], [[1, 4], [3, 1]])
    alloc = drf(cluster, quotas=Quotas.mesos(guarantee=[[0, 0], [9, 3]]))
    assert alloc.totals.tolist() == [0, 3]


def test_no_quotas_is_plain_drf():
    d, cap = [[1, 4], [3, 1], [2, 2]], [19, 23]
    plain = drf(d, cap, record_order=True)
    with_empty = drf(d, cap, record_order=True, quotas=Quotas())
    assert with_empty.tasks.tolist() == plain.tasks.tolist()
    assert with_empty.order.tolist() == plain.order.tolist()


# ---- the kernel against the reference ------------------------------------------------------------
@st.composite
def quota_instances(draw, share=None):
    """Small integer instances with guarantees that fit, limits above them, lending limits below
    them."""
    n, m = draw(st.integers(1, 5)), draw(st.integers(1, 3))
    d = np.array(
        draw(st.lists(st.lists(st.integers(0, 4), min_size=m, max_size=m), min_size=n, max_size=n))
    )
    d[d.sum(axis=1) == 0, 0] = 1
    cap = np.array(draw(st.lists(st.integers(4, 30), min_size=m, max_size=m)))
    frac = np.array(
        draw(st.lists(st.lists(st.integers(0, 10), min_size=m, max_size=m), min_size=n, max_size=n))
    )
    g = np.floor(frac / 10 * cap / n)
    lend = np.floor(g * draw(st.integers(0, 10)) / 10) if draw(st.booleans()) else None
    lim = (
        g
        + np.array(
            draw(
                st.lists(
                    st.lists(st.integers(0, 15), min_size=m, max_size=m), min_size=n, max_size=n
                )
            )
        )
        if draw(st.booleans())
        else None
    )
    mt = (
        np.array(draw(st.lists(st.integers(0, 12), min_size=n, max_size=n)))
        if draw(st.booleans())
        else None
    )
    share = share or draw(st.sampled_from(["dominant", "borrowed"]))
    return d, cap, g, lim, lend, share, mt


@settings(max_examples=150, deadline=None)
@given(args=quota_instances(), cut=st.integers(0, 30))
def test_kernel_matches_the_reference(args, cut):
    """Same tasks in the same order, from zero and from a start the reference reached after ``cut``
    tasks."""
    d, cap, g, lim, lend, share, mt = args
    q = Quotas(g, lim, lend, share)
    ref, order = quota_filling_reference(
        d, cap, guarantee=g, limit=lim, lending_limit=lend, share=share, max_tasks=mt
    )
    res = drf(d, cap, quotas=q, max_tasks=mt, record_order=True)
    assert res.tasks.tolist() == ref.tolist()
    assert res.order.tolist() == order
    start = np.bincount(np.array(order[:cut], dtype=np.int64), minlength=len(d))
    ref2, order2 = quota_filling_reference(
        d, cap, guarantee=g, limit=lim, lending_limit=lend, share=share, max_tasks=mt, start=start
    )
    res2 = drf(d, cap, quotas=q, max_tasks=mt, record_order=True, start=start)
    assert res2.tasks.tolist() == ref2.tolist()
    assert res2.order.tolist() == order2


@settings(max_examples=10, deadline=None)
@given(args=quota_instances())
def test_compiled_kernel_matches_the_reference(args):
    d, cap, g, lim, lend, share, mt = args
    ref, order = quota_filling_reference(
        d, cap, guarantee=g, limit=lim, lending_limit=lend, share=share, max_tasks=mt
    )
    with compiled():
        res = drf(d, cap, quotas=Quotas(g, lim, lend, share), max_tasks=mt, record_order=True)
    assert res.tasks.tolist() == ref.tolist()
    assert res.order.tolist() == order


def test_the_reference_catches_a_kernel_that_ignores_reservations():
    """The differential test can fail: the same quotas with everything lendable (the reservation
    dropped) differ from the reference on the Mesos case."""
    d, cap, mt = [[1], [1]], [10], [2, 100]
    ref, _ = quota_filling_reference(
        d, cap, guarantee=[[6], [0]], lending_limit=[[0], [0]], max_tasks=mt
    )
    dropped = drf(d, cap, max_tasks=np.array(mt), quotas=Quotas([[6], [0]]))
    assert dropped.tasks.tolist() != ref.tolist()


# ---- the defining property -----------------------------------------------------------------------
def _share(share, d, cap, g, lendable, i, t):
    if share == "borrowed":
        keyed = lendable > 0
        return max(0.0, float(((t * d[i] - g[i])[keyed] / lendable[keyed]).max(initial=0.0)))
    return t * float((d[i] / cap).max())


@settings(max_examples=150, deadline=None)
@given(args=quota_instances())
def test_progressive_filling_with_quotas_property(args):
    """What the result must satisfy, checked on the result alone: the resources committed (with the
    unlent parts of guarantees) fit the capacity; every user holds its guaranteed tasks and stays
    within its limit; no user can take one more task; and no task beyond a guarantee went to a user
    j while some user i had a lower share and could have taken it: for every such j and every i,
    share_j(t_j - 1) <= share_i(t_i), or i cannot take a task in the allocation without j's last
    one."""
    d, cap, g, lim, lend, share, mt = args
    q = Quotas(g, lim, lend, share)
    resolved = q.resolve(d.astype(float), cap.astype(float))
    reserved = resolved.reserved if resolved.reserved.shape[0] else np.zeros(d.shape)
    lendable = cap - reserved.sum(axis=0)
    caps = resolved.limit_tasks if mt is None else np.minimum(resolved.limit_tasks, mt)
    guaranteed = np.minimum(resolved.guaranteed_tasks, caps)
    t = drf(d, cap, quotas=q, max_tasks=mt).tasks

    def committed(tasks):
        return np.maximum(tasks[:, None] * d, reserved).sum(axis=0)

    def can_take(tasks, i):
        more = tasks.copy()
        more[i] += 1
        return more[i] <= caps[i] and (committed(more) <= cap).all()

    assert (committed(t) <= cap).all()
    assert (t >= guaranteed).all() and (t <= caps).all()
    assert not any(can_take(t, i) for i in range(len(d)))
    for j in np.flatnonzero(t > guaranteed):
        before = t.copy()
        before[j] -= 1
        for i in range(len(d)):
            if i != j:
                assert _share(share, d, cap, g, lendable, j, t[j] - 1) <= _share(
                    share, d, cap, g, lendable, i, t[i]
                ) or not can_take(before, i), (i, j)


# ---- continuous references -----------------------------------------------------------------------
def _scaled_instance(seed):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(2, 5)), int(rng.integers(1, 4))
    d = rng.integers(1, 5, (n, m)).astype(float)
    cap = rng.integers(10, 30, m).astype(float)
    g = np.floor(rng.random((n, m)) * cap / n)
    lend = np.floor(g * rng.random((n, m))) if seed % 2 else None
    lim = g + rng.integers(0, 20, (n, m)) if seed % 3 else None
    return d, cap, g, lim, lend, rng.integers(1, 4, n).astype(float)


SCALE = 1000


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("share", ["dominant", "borrowed"])
def test_whole_tasks_converge_to_the_divisible_allocation(seed, share):
    """Capacities and quotas scaled by 1000, the tasks per user are within 2n tasks of 1000 × the
    divisible allocation: the LP reference (lexicographic max-min with floors, caps and the
    reservations' convex form) for the dominant share, water-filling for the borrowed share. The
    tolerance is fixed from granularity, not measured: each of the n users can stop up to one task
    early, and each such stop can pass up to one task to others."""
    d, cap, g, lim, lend, w = _scaled_instance(seed)
    q = Quotas(g, lim, lend, share)
    if share == "dominant":
        x = quota_maxmin_lp(d, cap, q, weights=w)
    else:
        x = borrowed_waterfilling_reference(
            d, cap, guarantee=g, limit=lim, lending_limit=lend, weights=w
        )
    scaled = Quotas(
        g * SCALE,
        None if lim is None else lim * SCALE,
        None if lend is None else lend * SCALE,
        share,
    )
    tasks = drf(d, cap * SCALE, weights=w, quotas=scaled).tasks
    assert np.abs(tasks - SCALE * x).max() <= 2 * len(d)


def test_lp_reference_without_quotas_is_edrf():
    from fairlib.multires import edrf

    d, cap, w = [[1, 4], [3, 1], [2, 2]], [19, 23], [1, 2, 1]
    np.testing.assert_allclose(
        quota_maxmin_lp(d, cap, Quotas(), weights=w),
        edrf(d, cap, weights=w).tasks,
        rtol=1e-7,
        atol=1e-9,
    )


# ---- bad input -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "make, match",
    [
        (
            lambda: Quotas(guarantee=[[1, 1]]),
            # the quotas keep read-only float copies of what they were given
            r"quotas.guarantee = array\(\[\[1\., 1\.\]\]\): expected shape \(2, 2\)",
        ),
        (lambda: Quotas(guarantee=[[1, -1], [0, 0]]), r"quotas.guarantee\[0, 1\] = -1.0"),
        (lambda: Quotas(guarantee=[[1, np.nan], [0, 0]]), r"quotas.guarantee\[0, 1\] = nan"),
        (
            lambda: Quotas(guarantee=[[1, np.inf], [0, 0]]),
            r"quotas.guarantee\[0, 1\] = inf: must be finite",
        ),
        (lambda: Quotas(limit=[[1, -2], [0, 0]]), r"quotas.limit\[0, 1\] = -2.0"),
        (
            lambda: Quotas(guarantee=[[5, 0], [0, 0]], limit=[[4, 9], [9, 9]]),
            r"quotas.guarantee\[0, 0\] = 5.*must be <= quotas.limit",
        ),
        (
            lambda: Quotas(guarantee=[[5, 0], [0, 0]], lending_limit=[[6, 0], [0, 0]]),
            r"quotas.lending_limit must be <=",
        ),
        (
            lambda: Quotas(guarantee=[[5, 0], [5, 0]]),
            r"resource 0 add up to 10, more than its capacity 9",
        ),
        (
            lambda: Quotas.kueue(nominal=[[5, 0], [5, 0]]),
            r"nominal: the guarantees of resource 0 add up to 10",
        ),
        (lambda: Quotas.yarn(min_share=[[1, 1], [1, -1]]), r"min_share\[1, 1\] = -1.0"),
    ],
)
def test_bad_quotas_are_named(make, match):
    """Refused when built (signs, finiteness) or when resolved against the instance (shape, order,
    capacity)."""
    with pytest.raises(InvalidInputError, match=match):
        drf([[1, 4], [3, 1]], [9, 18], quotas=make())


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("m, order", [(3, "C"), (3, "F"), (1, "C")])
def test_guarantee_summary_matches_numpy(seed, m, order):
    """Resolution's one compiled pass against the NumPy expressions it replaced: the same first
    offending entries (row-major, as ``np.argwhere``) and the same answer to "is anything held
    back", in either memory order."""
    from fairlib.multires.schedulers.quotas import _guarantee_summary

    rng = np.random.default_rng(seed)
    n = 50
    guarantee = rng.integers(0, 4, (n, m)).astype(float) * rng.random((n, 1))
    limit = guarantee + rng.integers(-1, 3, (n, m)) * (rng.random((n, m)) < 0.05)
    lending = guarantee * (rng.random((n, m)) < 0.97) + (rng.random((n, m)) < 0.02)
    guarantee, limit, lending = (np.asarray(a, order=order) for a in (guarantee, limit, lending))
    over_limit, over_guarantee, reserving = _guarantee_summary(guarantee, limit, lending)

    def first(bad):
        return int(np.flatnonzero(bad)[0]) if bad.any() else -1

    assert over_limit == first(guarantee > limit) and over_guarantee == first(lending > guarantee)
    assert reserving == ((guarantee - lending) > 0).any()


def test_guarantees_that_numpy_adds_up_to_the_capacity_are_accepted():
    """10⁵ guarantees of 1/10⁵ of one resource: NumPy's pairwise sum is the capacity to the bit,
    a running sum drifts above it (a resolution that added them one by one refused them)."""
    n = 100_000
    guarantee, demands, capacity = (
        np.full((n, 1), 100 / n),
        np.full((n, 1), 5e-4),
        np.array([100.0]),
    )
    assert guarantee.sum(axis=0)[0] <= 100.0 * (1 + 1e-12)
    Quotas.mesos(guarantee=guarantee).resolve(demands, capacity)  # no error
    assert drf(demands, capacity, quotas=Quotas.yarn(min_share=guarantee)).tasks.sum() == 2 * n - 1


@pytest.mark.parametrize("seed", [0, 1])
def test_mesos_guarantees_of_whole_tasks_that_fill_the_pool_are_each_run(seed):
    """10⁵ users, each guaranteed 1-3 whole tasks of its own random demands, and a capacity that
    is their exactly rounded sum (``math.fsum``): every user runs its guaranteed tasks and nothing
    else fits. The fill adds the guarantees one by one, and over 10⁵ terms that running sum ends
    above the exact capacity on some resource (by ~1e-14 relative, checked here): only the fit
    tolerance (FIT_RTOL, relative 1e-12) lets the guaranteed tasks in, so a fill without it, or with
    one that does not cover such drift, runs no task at all."""
    import math

    from fairlib.multires._engine.filling import committed_amounts

    rng = np.random.default_rng(seed)
    n = 100_000
    demands = rng.uniform(0.1, 1.0, (n, 3))
    guaranteed = rng.integers(1, 4, n)
    guarantee = guaranteed[:, None] * demands
    capacity = np.array([math.fsum(guarantee[:, r]) for r in range(3)])
    assert (
        committed_amounts(np.zeros(n, dtype=np.int64), demands, guarantee) > capacity
    ).any()  # the drift is there
    tasks = drf(demands, capacity, quotas=Quotas.mesos(guarantee=guarantee)).tasks
    assert tasks.tolist() == guaranteed.tolist()


@pytest.mark.parametrize("n, m", [(100_000, 10), (5_000, 2), (777, 3), (100_000, 1), (3, 1)])
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("reserving", [True, False])
def test_committed_amounts_are_numpys_sums(n, m, order, reserving):
    """The committed amounts behind the start check and the guarantees' shortcut are NumPy's sums of
    ``np.maximum(held[:, None] * d, reserved)`` over users, bit for bit: the compiled pass adds row
    by row as NumPy does with two resources or more (this fails if NumPy ever sums otherwise), NumPy
    itself with one."""
    from fairlib.multires._engine.filling import committed_amounts

    rng = np.random.default_rng(n + m)
    d = rng.random((n, m)) * 10
    held = rng.integers(0, 5, n)
    reserved = np.asarray(rng.random((n, m)) * 20, order=order) if reserving else np.empty((0, m))
    expected = np.maximum(held[:, None] * d, reserved if reserving else 0.0).sum(axis=0)
    assert committed_amounts(held, d, reserved).tobytes() == expected.tobytes()


def test_resolving_keeps_none_of_the_callers_arrays():
    """Resolution reads the quota matrices in place; what it returns must not alias them."""
    guarantee = np.array([[2.0, 4.0], [0.0, 0.0]])
    for q in (Quotas.mesos(guarantee=guarantee), Quotas.kueue(nominal=guarantee)):
        resolved = q.resolve(np.array([[1.0, 2.0], [1.0, 1.0]]), np.array([9.0, 18.0]))
        for part in resolved:
            assert not np.shares_memory(part, q.guarantee)


def test_bad_combinations_are_refused():
    d, cap = [[1, 4], [3, 1]], [9, 18]
    with pytest.raises(InvalidInputError, match="quotas.share"):
        Quotas(share="total")
    with pytest.raises(
        InvalidInputError, match="quotas: expected a fairlib.multires.Quotas, got dict"
    ):
        drf(d, cap, quotas={"guarantee": [[1, 1], [1, 1]]})
    with pytest.raises(InvalidInputError, match="tie_break = 'higher_share'"):
        drf(d, cap, quotas=Quotas.kueue(nominal=[[1, 1], [1, 1]]), tie_break="higher_share")
    with pytest.raises(InvalidInputError, match="zeros='scheduler'"):
        drf(d, cap, quotas=Quotas(), zeros="scheduler")
    with pytest.raises(InvalidInputError, match=r"borrowing_limit\[0, 1\] = -1.0"):
        Quotas.kueue(nominal=[[1, 1], [1, 1]], borrowing_limit=[[0, -1], [0, 0]])
    # a start that lends out a reserved guarantee: user 1 holds 8 CPUs while 6 are held back for
    # user 0
    with pytest.raises(
        InvalidInputError,
        match="start: with the guarantees' reserved parts, commits 14 of resource 0",
    ):
        drf([[1], [1]], [10], quotas=Quotas.mesos(guarantee=[[6], [0]]), start=np.array([0, 8]))
    # a start beyond a limit is beyond the user's cap
    with pytest.raises(
        InvalidInputError, match=r"start\[0\] = 3: must be within max_tasks\[0\] = 2"
    ):
        drf(d, cap, quotas=Quotas.yarn(max_share=[[9, 8], [9, 18]]), start=np.array([3, 0]))


@pytest.mark.parametrize(
    "quotas, name",
    [
        (lambda g: Quotas.yarn(min_share=g), "min_share"),
        (lambda g: Quotas.mesos(guarantee=g), "guarantee"),
        (lambda g: Quotas.kueue(nominal=g), "nominal"),
    ],
)
def test_a_guarantee_is_an_amount_and_the_pool_must_honour_them_all(quotas, name):
    """Every constructor's guarantee is an amount of each resource, not a fraction of the pool: 2
    CPUs and 2 GB of a 9-CPU, 18-GB pool are a guarantee it can honour; guarantees adding up to
    more than a resource's capacity are refused by name, whichever scheduler's terms name them."""
    d, cap = [[1.0, 4.0], [3.0, 1.0]], [9.0, 18.0]
    assert drf(d, cap, quotas=quotas([[2.0, 2.0], [0.0, 0.0]])).tasks.sum() > 0
    with pytest.raises(
        InvalidInputError, match=rf"{name}: the guarantees of resource 0 add up to 10, more than"
    ):
        drf(d, cap, quotas=quotas([[5.0, 2.0], [5.0, 0.0]]))


# ---- DRFH and TSF: guarantees and limits on heterogeneous servers --------------------------------
def _heterogeneous_case(seed):
    from fairlib.multires import random_cluster

    rng = np.random.default_rng(seed)
    cluster = random_cluster(rng, 4, 3, 2, weights=True)
    g = np.floor(rng.random((4, 2)) * cluster.pooled_capacity / 4 * 0.8 * 100) / 100
    lim = g + rng.random((4, 2)) * cluster.pooled_capacity if seed % 2 else None
    return cluster, Quotas.yarn(min_share=g, max_share=lim)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("method", ["interior_point", "highs"])
@pytest.mark.parametrize("mechanism", ["drfh", "tsf"])
def test_heterogeneous_guarantees_and_limits_match_the_lp_reference(seed, method, mechanism):
    """Each user's total between its guaranteed tasks and its limit, and the lexicographic max-min
    of the mechanism's share among those: the same totals as the sequential-LP reference with floors
    and caps (to HiGHS's tolerance; the interior point stops at 1e-9)."""
    from dataclasses import replace

    from fairlib.multires import drfh, tsf
    from fairlib.multires.global_maxmin import drfh_coefficients, tsf_coefficients
    from fairlib.multires.schedulers.quotas import divisible_bounds
    from tests.reference import maxmin_levels_reference

    cluster, q = _heterogeneous_case(seed)
    run, coefficients = (
        (drfh, drfh_coefficients) if mechanism == "drfh" else (tsf, tsf_coefficients)
    )
    alloc = run(cluster, quotas=q, method=method)
    lower, upper = divisible_bounds(q, cluster.demand, cluster.max_tasks)
    coef = coefficients(cluster) / cluster.weight
    expected = maxmin_levels_reference(replace(cluster, max_tasks=upper), coef, lower) / coef
    assert cluster.feasible(alloc.tasks)
    assert (alloc.totals >= lower * (1 - 1e-7)).all() and (alloc.totals <= upper * (1 + 1e-7)).all()
    np.testing.assert_allclose(alloc.totals, expected, rtol=1e-5, atol=1e-7)


def test_guarantees_matter_on_heterogeneous_servers():
    """Without quotas DRFH equalises; a guarantee above that level holds (case seed 2 of the LP
    comparison: user 0's guarantee is about 20.3 tasks, above its 17.2 under plain DRFH)."""
    from fairlib.multires import drfh

    cluster, q = _heterogeneous_case(2)
    plain, guaranteed = drfh(cluster).totals, drfh(cluster, quotas=q).totals
    floor = np.min(np.asarray(q.guarantee)[0] / cluster.demand[0])
    assert plain[0] < floor <= guaranteed[0] * (1 + 1e-9)


def test_single_server_drfh_with_quotas_is_the_pooled_lp():
    from fairlib.multires import drfh

    d, cap, g, lim = (
        [[1, 4], [3, 1], [2, 2]],
        [19, 23],
        [[4, 16], [0, 0], [2, 2]],
        [[19, 23], [9, 5], [19, 23]],
    )
    q = Quotas.yarn(min_share=g, max_share=lim)
    alloc = drfh(Cluster([cap], d), quotas=q)
    np.testing.assert_allclose(alloc.totals, quota_maxmin_lp(d, cap, q), rtol=1e-6)


def test_heterogeneous_quotas_bad_input():
    from fairlib.multires import drfh

    two = Cluster([[10, 10], [10, 10]], [[6, 6], [1, 1]], eligible=[[True, False], [True, True]])
    with pytest.raises(
        InvalidInputError,
        match=r"min_share: the guaranteed tasks \[2.5, 0.0\] cannot all be placed",
    ):
        drfh(two, quotas=Quotas.yarn(min_share=[[15, 15], [0, 0]]))
    with pytest.raises(
        InvalidInputError, match="resource 1 add up to 21, more than its capacity 20"
    ):
        drfh(two, quotas=Quotas.yarn(min_share=[[5, 11], [5, 10]]))
    with pytest.raises(InvalidInputError, match="quotas.share = 'borrowed'"):
        drfh(two, quotas=Quotas.kueue(nominal=[[5, 5], [5, 5]]))
    with pytest.raises(InvalidInputError, match="lending_limit: below the guarantee"):
        drfh(two, quotas=Quotas.mesos(guarantee=[[5, 5], [5, 5]]))
    with pytest.raises(InvalidInputError, match="quotas: expected a fairlib.multires.Quotas"):
        drfh(two, quotas=[[5, 5], [5, 5]])
    from fairlib.multires import weighted_maxmin_totals

    with pytest.raises(
        InvalidInputError, match=r"floors\[1\] = -1.0: expected 2 finite numbers >= 0"
    ):
        weighted_maxmin_totals(two, [1.0, 1.0], floors=[0.0, -1.0])
    with pytest.raises(
        InvalidInputError, match=r"floors: expected 2 finite numbers >= 0 .* got shape \(3,\)"
    ):
        weighted_maxmin_totals(two, [1.0, 1.0], floors=[0.0, 1.0, 2.0])
