"""Single-pool DRF family: progressive filling, EDRF, PDRF (Metin 2025; reconstructions §1–2)."""

import numba
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from fairlib._validate import InvalidInputError
from fairlib.repro.experiments import precomputed_drf as cmp
from fairlib.multires import drf, edrf, pdrf
from tests.reference import drf_argmin_loop, drf_heapq, maxmin_lp, progressive_filling_exact


@st.composite
def pools(draw, max_users=8, max_resources=3, positive=False, weighted=False):
    n = draw(st.integers(1, max_users))
    m = draw(st.integers(1, max_resources))
    lo = 1 if positive else 0
    d = np.array(
        draw(
            st.lists(st.lists(st.integers(lo, 6), min_size=m, max_size=m), min_size=n, max_size=n)
        ),
        dtype=float,
    )
    d[d.sum(axis=1) == 0, 0] = 1.0
    cap = np.array(draw(st.lists(st.integers(1, 60), min_size=m, max_size=m)), dtype=float)
    w = (
        np.array(draw(st.lists(st.sampled_from([0.5, 1.0, 2.0, 3.0]), min_size=n, max_size=n)))
        if weighted
        else None
    )
    return d, cap, w


# --- known answers --------------------------------------------------------------------------------


def test_worked_example_trace_and_tie_breaks():
    """Metin §3.1 / DRF paper: 9 CPUs, 18 GB; A=<1,4>, B=<3,1> -> 3 and 2 tasks, shares 2/3."""
    hi = drf([[1, 4], [3, 1]], [9, 18], tie_break="higher_share", record_order=True)
    lo = drf([[1, 4], [3, 1]], [9, 18], tie_break="lowest_index", record_order=True)
    assert hi.order.tolist() == [1, 0, 0, 1, 0]  # B, A, A, B, A (reconstructions §1.1 table)
    assert lo.order.tolist() == [0, 1, 0, 1, 0]
    assert hi.tasks.tolist() == lo.tasks.tolist() == [3, 2]
    np.testing.assert_allclose(hi.dominant_shares, [2 / 3, 2 / 3])
    np.testing.assert_allclose(hi.consumed, [9, 14])
    np.testing.assert_allclose(edrf([[1, 4], [3, 1]], [9, 18]).tasks, [3, 2])


def test_pareto_counterexample():
    """Metin §6.2: capacities <59, 19>: the literal loop stops at A 2, B 8 with <33, 3> unused."""
    lit = drf([[1, 4], [3, 1]], [59, 19], stop="first_blocked")
    fix = drf([[1, 4], [3, 1]], [59, 19], stop="skip_blocked")
    assert lit.tasks.tolist() == [2, 8] and lit.n_allocations == 10 and lit.blocked_user == 0
    np.testing.assert_allclose([59, 19] - lit.consumed, [33, 3])
    assert fix.tasks.tolist() == [2, 11] and fix.blocked_user == -1


def test_repository_example_pdrf_752_1637():
    """reconstructions §2.1: R=<7583, 4649>: PDRF A 752, B 1637 (752 cycles); discrete DRF A
    753."""
    res = pdrf([[1, 4], [3, 1]], [7583, 4649])
    assert res.tasks.tolist() == [752, 1637] and int(res.cycles) == 752
    assert drf([[1, 4], [3, 1]], [7583, 4649]).tasks.tolist() == [753, 1637]
    np.testing.assert_allclose(
        edrf([[1, 4], [3, 1]], [7583, 4649]).dominant_shares, 0.64779, atol=5e-6
    )


def test_higher_order_example():
    """Metin §6.1: reserve 35, demands 2, 4, 10: DRF (6, 3, 1); PDRF (5, 2, 1); rates 5, 2.5, 1."""
    d, c = [[2], [4], [10]], [35]
    assert drf(d, c).tasks.tolist() == [6, 3, 1]
    p = pdrf(d, c)
    assert p.tasks.tolist() == [5, 2, 1] and p.rates.tolist() == [5, 2.5, 1]
    assert pdrf(d, c, top_up=True).tasks.tolist() == [6, 3, 1]
    ho = pdrf(d, c, higher_order=True)
    assert ho.tasks.tolist() == [8, 2, 1] and ho.stages == 2  # over-allocates A (documented)
    assert ho.consumed[0] <= 35


def test_simplified_variant_and_caps():
    d, c = [[1, 4], [3, 1]], [7583, 4649]
    assert abs(pdrf(d, c, variant="simplified").tasks - pdrf(d, c).tasks).max() <= 1
    capped = drf([[1, 1], [1, 1]], [10, 10], max_tasks=np.array([2, 100]))
    assert capped.tasks.tolist() == [2, 8]
    assert drf([[1, 1]], [10, 10], max_tasks=np.array([0])).tasks.tolist() == [0]


def test_edrf_multi_round_with_zero_demands():
    # user 0 only needs resource 0 (saturates first with user 1), user 2 only needs resource 1
    res = edrf([[1, 0], [1, 1], [0, 1]], [2, 10])
    np.testing.assert_allclose(res.tasks, [1, 1, 9])
    assert res.rounds == 2
    np.testing.assert_allclose(res.tasks, maxmin_lp([[1, 0], [1, 1], [0, 1]], [2, 10]), atol=1e-9)


# --- differential ---------------------------------------------------------------------------------


@given(pools(max_users=12), st.sampled_from(["first_blocked", "skip_blocked"]))
def test_drf_matches_heapq_and_argmin_references_on_non_integer_inputs(pool, stop):
    """The float baselines compare ``tasks * step`` in floating point, which is what ``drf`` does on
    non-integer inputs (capacities shifted by 0.37 here); integer inputs are compared exactly
    (below)."""
    d, c, _ = pool
    c = c + 0.37
    res = drf(d, c, stop=stop)
    assert res.share_arithmetic == "float"
    assert (
        res.tasks.tolist()
        == drf_heapq(d, c, stop=stop).tolist()
        == drf_argmin_loop(d, c, stop=stop).tolist()
    )


def test_exact_ties_follow_the_tie_rule():
    """One resource, capacity 20, demands 1, 5, 6, 3: 3 × 1/20 = 3/20 exactly, so user 0 keeps
    winning ties by index; floating point (3 × 0.05 = 0.15000000000000002 > 0.15) would hand them
    to user 3."""
    exact = drf([[1], [5], [6], [3]], [20])
    assert exact.share_arithmetic == "rational" and exact.tasks.tolist() == [6, 1, 1, 1]
    assert progressive_filling_exact([[1], [5], [6], [3]], [20])[0].tolist() == [6, 1, 1, 1]
    scripts = drf([[1], [5], [6], [3]], [20], share_arithmetic="accumulated")
    assert scripts.share_arithmetic == "accumulated"
    assert (
        scripts.tasks.tolist()
        == progressive_filling_exact([[1], [5], [6], [3]], [20], accumulated=True)[0].tolist()
    )
    with pytest.raises(InvalidInputError, match="share_arithmetic = 'fast'"):
        drf([[1]], [2], share_arithmetic="fast")


def _random_integer_pools(count, seed):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n, m = int(rng.integers(1, 9)), int(rng.integers(1, 4))
        d = rng.integers(0, 7, size=(n, m)).astype(float)
        d[d.sum(axis=1) == 0, int(rng.integers(m))] = float(rng.integers(1, 7))
        cap = rng.integers(1, 61, size=m).astype(float)
        w = rng.integers(1, 4, size=n).astype(float) if rng.random() < 0.5 else None
        caps = rng.integers(0, 12, size=n) if rng.random() < 0.3 else None
        yield d, cap, w, caps


@pytest.mark.parametrize("stop", ["first_blocked", "skip_blocked"])
@pytest.mark.parametrize("tie_break", ["lowest_index", "higher_share"])
def test_drf_equals_exact_fraction_reference_on_integer_instances(stop, tie_break):
    """Every stop rule and tie break, weights and caps included: allocation and order equal the
    Fraction reference on 1,000 random integer instances each (ties are common with small
    integers)."""
    for d, cap, w, caps in _random_integer_pools(1000, seed=hash((stop, tie_break)) % 2**32):
        res = drf(
            d, cap, weights=w, stop=stop, tie_break=tie_break, max_tasks=caps, record_order=True
        )
        ref, order = progressive_filling_exact(
            d, cap, weights=w, stop=stop, tie_break=tie_break, max_tasks=caps
        )
        assert res.share_arithmetic == "rational"
        assert res.tasks.tolist() == ref.tolist(), (d, cap, w, caps)
        assert res.order.tolist() == order, (d, cap, w, caps)


@pytest.mark.parametrize("stop", ["first_blocked", "skip_blocked"])
def test_accumulated_shares_equal_the_scripts_float_sums(stop):
    """``share_arithmetic="accumulated"`` is the author's ``s += ds`` with ``argmin`` (lowest index
    on ties)."""
    for d, cap, w, caps in _random_integer_pools(500, seed=11 if stop == "first_blocked" else 12):
        res = drf(
            d,
            cap,
            weights=w,
            stop=stop,
            max_tasks=caps,
            record_order=True,
            share_arithmetic="accumulated",
        )
        ref, order = progressive_filling_exact(
            d, cap, weights=w, stop=stop, max_tasks=caps, accumulated=True
        )
        assert res.tasks.tolist() == ref.tolist() and res.order.tolist() == order, (d, cap, w, caps)


def test_pdrf_top_up_equals_exact_reference():
    """PDRF's final round (§5) continues progressive filling from the PDRF allocation with exact
    shares."""
    for d, cap, _, _ in _random_integer_pools(1000, seed=13):
        d = np.maximum(d, 1.0)  # PDRF's cycle needs every user to demand every resource it scans
        base = pdrf(d, cap).tasks
        ref, _ = progressive_filling_exact(d, cap, start=base)
        assert pdrf(d, cap, top_up=True).tasks.tolist() == ref.tolist(), (d, cap)


@given(pools(weighted=True))
def test_edrf_matches_lexicographic_lp(pool):
    d, c, w = pool
    np.testing.assert_allclose(
        edrf(d, c, weights=w).tasks, maxmin_lp(d, c, weights=w), rtol=1e-9, atol=1e-9
    )


@given(pools(weighted=True), st.lists(st.integers(0, 10), min_size=8, max_size=8))
def test_edrf_from_a_start_matches_the_lp_with_the_start_as_floors(pool, parts):
    """Continuing water-filling from an allocation: each user keeps at least what it holds and the
    rest is the lexicographic max-min — the LP reference with the start as guarantees
    (``quota_maxmin_lp``)."""
    from fairlib.multires import Quotas
    from fairlib.multires.lp import quota_maxmin_lp

    d, c, w = pool
    n = len(d)
    start = (
        np.array(parts[:n], dtype=float) / 10 * (c / np.maximum(d.sum(axis=0), 1e-300)).min() * 2
    )
    start *= min(1.0, float((c / np.maximum(start @ d, 1e-300)).min()))  # fit the capacity
    res = edrf(d, c, weights=w, start=start)
    ref = quota_maxmin_lp(d, c, Quotas.yarn(min_share=start[:, None] * d), weights=w)
    np.testing.assert_allclose(res.tasks, ref, rtol=1e-7, atol=1e-9)
    assert (res.tasks >= start * (1 - 1e-12)).all()


@given(pools(weighted=True), st.floats(0.0, 1.0))
def test_edrf_continued_from_its_own_path_changes_nothing(pool, fraction):
    """Any point on EDRF's own water-filling path (every user at the same fraction of its final
    tasks is one, up to the first freezing) continues to the same allocation."""
    d, c, w = pool
    full = edrf(d, c, weights=w)
    first = full.levels.min()
    start = np.minimum(
        full.tasks, fraction * first * (w if w is not None else 1.0) / (d / c).max(axis=1)
    )
    np.testing.assert_allclose(
        edrf(d, c, weights=w, start=start).tasks, full.tasks, rtol=1e-9, atol=1e-12
    )


def test_asset_fairness_continues_from_a_start():
    """Asset fairness runs on EDRF's kernel: from half of its own allocation it reaches the same
    allocation, and a user given more than its share at the start keeps it."""
    from fairlib.multires import Cluster, asset_fairness

    pool = Cluster.single_pool([9, 18], [[1, 4], [3, 1]])
    full = asset_fairness(pool).totals
    np.testing.assert_allclose(asset_fairness(pool, start=full / 2).totals, full, rtol=1e-12)
    ahead = asset_fairness(pool, start=[4.0, 0.0]).totals
    assert ahead[0] == 4.0 and np.isclose(ahead[1], (9 - 4) / 3)


def test_edrf_start_bad_input():
    d, c = [[1, 4], [3, 1]], [9, 18]
    with pytest.raises(InvalidInputError, match=r"start\[1\] = -1.0: must be finite and >= 0"):
        edrf(d, c, start=[1, -1])
    with pytest.raises(InvalidInputError, match="start: expected 2 numbers"):
        edrf(d, c, start=[1, 1, 1])
    with pytest.raises(
        InvalidInputError, match="start: uses 12 of resource 0, more than its capacity 9"
    ):
        edrf(d, c, start=[3, 3])


@given(pools(max_users=10, positive=True))
def test_pdrf_is_floor_of_edrf(pool):
    d, c, _ = pool
    res = cmp.pdrf_edrf_identity(d, c)
    assert res["other"] == 0


@given(pools(max_users=10, positive=True))
def test_first_blocked_within_derived_bound(pool):
    """-1 <= edrf - drf(first_blocked) < (D_r + max d_ir) / (C_r ds_j), see
    first_blocked_deviation_bound."""
    d, c, _ = pool
    gap = edrf(d, c).tasks - drf(d, c, stop="first_blocked").tasks
    lower, upper = cmp.first_blocked_deviation_bound(d, c)
    assert (gap >= lower - 1e-9).all() and (gap < upper).all()


def test_bound_requires_positive_demands():
    with pytest.raises(InvalidInputError, match="strictly positive"):
        cmp.first_blocked_deviation_bound([[1, 0], [1, 1]], [5, 5])


@given(pools(max_users=12))
def test_skip_blocked_dominates_first_blocked_and_fills(pool):
    d, c, _ = pool
    lit = drf(d, c, stop="first_blocked")
    fix = drf(d, c, stop="skip_blocked")
    assert (fix.tasks >= lit.tasks).all()
    leftover = c - fix.consumed
    fits_more = (d <= leftover * (1 + 1e-12)).all(axis=1)
    assert not fits_more.any(), "skip_blocked left room for another task"


@given(pools(max_users=10, positive=True))
def test_pdrf_top_up_equals_corrected_drf_without_over_allocation(pool):
    d, c, _ = pool
    assume(not (pdrf(d, c).tasks > drf(d, c, stop="first_blocked").tasks).any())
    assert pdrf(d, c, top_up=True).tasks.tolist() == drf(d, c, stop="skip_blocked").tasks.tolist()


# --- axioms ---------------------------------------------------------------------------------------


@given(pools(weighted=True), st.sampled_from(["first_blocked", "skip_blocked"]))
def test_feasibility(pool, stop):
    d, c, w = pool
    for consumed in (
        drf(d, c, weights=w, stop=stop).consumed,
        edrf(d, c, weights=w).consumed,
        pdrf(d, c).consumed if (d > 0).any(axis=1).all() else c,
    ):
        assert (consumed <= c * (1 + 1e-9)).all()


@given(pools(weighted=True))
def test_edrf_sharing_incentive_envy_freeness_pareto(pool):
    d, c, w = pool
    res = edrf(d, c, weights=w)
    # SI: weighted dominant share at least the user's weight share
    assert (res.dominant_shares >= w / w.sum() * (1 - 1e-9)).all() if w is not None else True
    # EF (Leontief): i cannot run more tasks with j's bundle scaled to i's weight
    t = res.tasks
    for i in range(len(d)):
        need = d[i] > 0
        for j in range(len(d)):
            could = np.min(t[j] * d[j, need] / d[i, need]) * (w[i] / w[j])
            assert could <= t[i] * (1 + 1e-9) + 1e-9
    # PO: every user demands some saturated resource
    saturated = res.consumed >= c * (1 - 1e-9)
    assert ((d > 0) & saturated).any(axis=1).all()


@given(pools(max_users=12))
def test_drf_approximate_sharing_incentive(pool):
    """Derived for indivisible tasks: n s_i > 1 - ds_i - sum_j ds_j for every user
    (skip_blocked)."""
    d, c, _ = pool
    res = drf(d, c, stop="skip_blocked")
    ds = (d / c).max(axis=1)
    assert (len(d) * res.dominant_shares > 1 - ds - ds.sum() - 1e-12).all()


@given(pools(max_users=12))
def test_first_blocked_envy_free_up_to_one_task(pool):
    d, c, _ = pool
    t = drf(d, c, stop="first_blocked").tasks
    for i in range(len(d)):
        need = d[i] > 0
        for j in range(len(d)):
            if t[j] > 0:
                assert np.min((t[j] - 1) * d[j, need] / d[i, need]) <= t[i] + 1e-9


@given(pools(weighted=True), st.sampled_from([2.0, 4.0, 0.5]))
def test_weight_scaling_invariance(pool, factor):
    d, c, w = pool
    w = np.ones(len(d)) if w is None else w
    assert drf(d, c, weights=w).tasks.tolist() == drf(d, c, weights=w * factor).tasks.tolist()
    np.testing.assert_allclose(
        edrf(d, c, weights=w).tasks, edrf(d, c, weights=w * factor * 1.7).tasks, rtol=1e-12
    )


@given(pools(max_users=10, positive=True), st.randoms(use_true_random=False))
def test_permutation_equivariance(pool, random):
    d, c, _ = pool
    perm = np.array(random.sample(range(len(d)), len(d)))
    np.testing.assert_allclose(edrf(d[perm], c).tasks, edrf(d, c).tasks[perm], rtol=1e-12)
    assert pdrf(d[perm], c).tasks.tolist() == pdrf(d, c).tasks[perm].tolist()
    ds = (d / c).max(axis=1)
    if len(np.unique(ds)) == len(ds):  # higher_share breaks every tie by value, not index
        assert (
            drf(d[perm], c, tie_break="higher_share").tasks.tolist()
            == drf(d, c, tie_break="higher_share").tasks[perm].tolist()
        )


# --- comparison counting --------------------------------------------------------------------------


def test_deviation_counts_and_table_row():
    drf_t = np.array([5, 5, 5, 5, 5, 5])
    pdrf_t = np.array([4, 3, 1, 6, 7, 5])  # under 1, 2, 4; over 1, 2; equal
    c = cmp.deviation_counts(drf_t, pdrf_t, n_resources=3)
    assert c == {
        "under_1": 1,
        "under_2": 1,
        "under_gt2": 1,
        "under_max": 4,
        "under_total": 3,
        "over_1": 1,
        "over_2": 1,
        "over_gt2": 0,
        "over_max": 2,
        "over_total": 2,
    }
    assert cmp.deviation_counts(drf_t, pdrf_t, n_resources=3, entries_quirk=True)["under_gt2"] == 3
    import pandas as pd

    runs = pd.DataFrame([c, {**c, "under_total": 5, "under_max": 1}])
    row = cmp.table_row(runs)
    assert (
        row["under_avg"] == 4
        and row["under_sd"] == 1.0
        and row["under_max"] == 4
        and row["runs"] == 2
    )


def test_experiment_runs_are_seed_stable():
    setup = cmp.DeviationExperiment(n_users=50, n_resources=3)
    a = cmp.run_deviation_experiment(setup, 5, 42)
    b = cmp.run_deviation_experiment(setup, 8, 42)
    assert a.equals(b.iloc[:5])


# --- validation -----------------------------------------------------------------------------------


@pytest.mark.parametrize("fn", [drf, edrf, pdrf])
@pytest.mark.parametrize(
    "demands, capacity, message",
    [
        ([[1, -1]], [5, 5], r"demands\[0, 1\] = -1\.0: demands must be >= 0"),
        ([[1, np.nan]], [5, 5], r"demands\[0, 1\] = nan: demands must be finite"),
        (
            [[1, 1], [0, 0]],
            [5, 5],
            r"demands\[1\] = \[0\. 0\.\]: every user must demand some resource",
        ),
        ([[1, 1]], [5, 0], r"capacity\[1\] = 0\.0: capacity must be > 0"),
        ([[1, 1]], [5, -2], r"capacity\[1\] = -2\.0"),
        ([[1, 1]], [5, np.inf], r"capacity\[1\] = inf: capacity must be finite"),
        ([[1, 1]], [5, 5, 5], r"capacity: expected 2 resources"),
        ([1, 1], [5, 5], r"demands: must be 2-D"),
    ],
)
def test_validation_errors(fn, demands, capacity, message):
    with pytest.raises(InvalidInputError, match=message):
        fn(demands, capacity)


def test_overflow_and_option_errors():
    with pytest.raises(InvalidInputError, match="overflow int64"):
        drf([[1e-300, 1.0]], [1e300, 1e300])
    with pytest.raises(InvalidInputError, match="overflow int64"):
        pdrf([[1e-300, 1e-300]], [1e300, 1e300])
    with pytest.raises(InvalidInputError, match=r"demands\[0\] / capacity underflows"):
        edrf([[1e-300, 1e-300]], [1e300, 1e300])
    with pytest.raises(InvalidInputError, match="stop = 'never'"):
        drf([[1]], [1], stop="never")
    with pytest.raises(InvalidInputError, match="tie_break = 'random'"):
        drf([[1]], [1], tie_break="random")
    with pytest.raises(InvalidInputError, match=r"max_tasks\[1\] = -1"):
        drf([[1], [1]], [5], max_tasks=np.array([1, -1]))
    with pytest.raises(InvalidInputError, match="max_tasks: expected 2 integers"):
        drf([[1], [1]], [5], max_tasks=np.array([1.0, 2.0]))
    with pytest.raises(InvalidInputError, match="record_order"):
        drf([[1]], [1e9], record_order=True)
    with pytest.raises(InvalidInputError, match="variant = 'fast'"):
        pdrf([[1]], [1], variant="fast")
    with pytest.raises(InvalidInputError, match=r"weights\[0\] = 0\.0"):
        edrf([[1]], [1], weights=[0.0])


def test_counted_work_of_drf_and_pdrf():
    """DRF's kernel counts O(m + log n) operations per allocated task; PDRF's passes are n·m each,
    whatever the reserves: the machine-independent measure behind Metin §5's complexity claims."""
    from fairlib.multires import drf, pdrf

    rng = np.random.default_rng(8)
    d = rng.integers(1, 11, size=(200, 4)).astype(float)
    cap = rng.uniform(50_000, 100_000, size=4)
    small, large = drf(d, cap, stop="first_blocked"), drf(d, 4 * cap, stop="first_blocked")
    for res in (small, large):
        assert (
            4 * res.n_allocations <= res.work <= res.n_allocations * (4 + 4 * 4 + 4)
        )  # m + ≤ 4 log4(n) + 4
    assert (
        3.5 <= large.work / small.work <= 4.5
        and drf(d, cap, stop="first_blocked").work == small.work
    )
    n, m = d.shape
    assert pdrf(d, cap).work == pdrf(d, 10 * cap).work == 2 * n * m + n + m
    assert pdrf(d, cap, top_up=True).work > 2 * n * m + n + m


def test_over_allocation_profile_counts_the_table_runs_instances():
    setups = {"1-100": cmp.DeviationExperiment(n_users=200, n_resources=2, demand_range=(1, 100))}
    runs = cmp.deviation_runs(setups, 6, 11, key="demands")
    prof = cmp.over_allocation_profile(setups, 6, 11, key="demands").set_index("group")
    assert prof.loc["all", "over"] == runs.over_total.sum() == prof.loc["over-allocated", "users"]
    bins = prof[prof.index.str.startswith("rate")]
    assert bins.users.sum() == 6 * 200 and bins.over.sum() == runs.over_total.sum()
    assert (bins.over <= bins.users).all() and prof.loc["all", "runs"] == 6
    with pytest.raises(InvalidInputError, match=r"edges = \[2\.0, 3\.0\]"):
        cmp.over_allocation_profile(setups, 1, 0, edges=[2.0, 3.0])


# --- per-user caps (Khamse-Ashari et al. §5.8: a job is never given more than its running tasks
# request)


@given(
    pools(weighted=True),
    st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.5, 4.0, np.inf]), min_size=8, max_size=8),
    st.booleans(),
)
def test_edrf_with_caps_matches_the_lp_with_upper_bounds(pool, cap_list, from_start):
    """Weighted max-min with each user at most its cap: the lexicographic LP with the caps as upper
    bounds (``quota_maxmin_lp(max_tasks=...)``), from zero or from a start below the caps."""
    from fairlib.multires import Quotas
    from fairlib.multires.lp import quota_maxmin_lp

    d, c, w = pool
    caps = np.array(cap_list[: len(d)])
    start = None
    if from_start:
        start = np.minimum(caps, 0.3 * (c / np.maximum(d.sum(axis=0), 1e-300)).min())
        start = np.where(np.isfinite(start), start, 0.0)
    res = edrf(d, c, weights=w, max_tasks=caps, start=start)
    quotas = Quotas() if start is None else Quotas.yarn(min_share=start[:, None] * d)
    ref = quota_maxmin_lp(d, c, quotas, weights=w, max_tasks=caps)
    np.testing.assert_allclose(res.tasks, ref, rtol=1e-7, atol=1e-9)
    assert (res.tasks <= caps).all()
    assert (res.consumed <= c * (1 + 1e-12)).all() and np.allclose(
        res.consumed, res.tasks @ d, rtol=1e-9
    )


@given(pools(weighted=True))
def test_edrf_with_caps_it_never_reaches_is_edrf(pool):
    """Caps above what a user gets change nothing (the one-round closed form and the rounds
    agree)."""
    d, c, w = pool
    free = edrf(d, c, weights=w)
    np.testing.assert_allclose(
        edrf(d, c, weights=w, max_tasks=free.tasks * 2 + 1).tasks, free.tasks, rtol=1e-9, atol=1e-12
    )


def test_edrf_and_asset_fairness_honour_the_clusters_caps():
    """On a capped single-pool cluster: a known answer (A capped at 2 tasks, B rises until CPU is
    full), the allocation's totals within the caps, asset fairness against its LP with caps; bad
    caps named."""
    from fairlib.multires import Cluster, Quotas, asset_fairness
    from fairlib.multires.lp import quota_maxmin_lp
    from fairlib.multires.pooled import asset_share_per_task

    pool = Cluster.single_pool([9, 18], [[1, 4], [3, 1]], max_tasks=[2, np.inf])
    assert np.allclose(edrf(pool).totals, [2, 7 / 3])
    af = asset_fairness(pool).totals
    ref = quota_maxmin_lp(
        pool.demand,
        pool.capacity[0],
        Quotas(),
        max_tasks=pool.max_tasks,
        per_task_share=asset_share_per_task(pool),
    )
    assert np.allclose(af, ref, rtol=1e-7) and af[0] == 2.0
    with pytest.raises(
        InvalidInputError, match="max_tasks: on a cluster the caps are the cluster's"
    ):
        edrf(pool, max_tasks=[1, 1])
    with pytest.raises(InvalidInputError, match=r"max_tasks\[1\] = -1.0: max_tasks must be >= 0"):
        edrf([[1, 4], [3, 1]], [9, 18], max_tasks=[1, -1])
    with pytest.raises(InvalidInputError, match=r"start\[0\] = 2.0: above max_tasks\[0\] = 1.0"):
        edrf([[1, 4], [3, 1]], [9, 18], max_tasks=[1, 5], start=[2, 0])
    with pytest.raises(InvalidInputError, match="pdrf does not honour per-user caps; drf, edrf"):
        pdrf(pool)


@pytest.mark.parametrize("seed", range(6))
def test_edrf_with_caps_compiled_matches_the_lp(seed):
    """The compiled kernel (forced, and on a problem above the interpreter's size rule) with caps,
    zero demands and a start, against the LP with upper bounds."""
    from fairlib._jit import compiled
    from fairlib.multires import Quotas
    from fairlib.multires.lp import quota_maxmin_lp

    g = np.random.default_rng(seed)
    n, m = 30, 3
    d = g.integers(0, 5, size=(n, m)).astype(float)
    d[d.sum(axis=1) == 0, 0] = 1.0
    c = g.integers(20, 80, size=m).astype(float)
    w = g.choice([0.5, 1.0, 2.0], size=n)
    caps = np.where(g.random(n) < 0.5, g.uniform(0, 3, size=n), np.inf)
    start = np.minimum(caps, 0.2) if seed % 2 else None
    start = (
        None if start is None else np.where(np.isfinite(start), start, 0.2) * (g.random(n) < 0.5)
    )
    with compiled():
        res = edrf(d, c, weights=w, max_tasks=caps, start=start)
    quotas = Quotas() if start is None else Quotas.yarn(min_share=start[:, None] * d)
    np.testing.assert_allclose(
        res.tasks, quota_maxmin_lp(d, c, quotas, weights=w, max_tasks=caps), rtol=1e-7, atol=1e-9
    )


@numba.njit
def _kernel_start_order(keys, sec0):
    """The starting order as the filling kernel computed it before it was sorted in Python (the
    reference)."""
    perm = np.argsort(sec0)
    return perm[np.argsort(keys[perm], kind="mergesort")]


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 40), st.integers(1, 6), st.integers(1, 40), st.integers(0, 2**32 - 1))
def test_the_starting_heap_order_is_the_compiled_sorts(n, distinct_keys, distinct_secondary, seed):
    """drf sorts its starting heap in Python (NumPy where secondary keys are distinct, numba's
    quicksort where some repeat); the order must be the one the filling kernel's own sorts gave —
    numba's np.argsort by secondary key, then a stable sort by share — including among exact ties
    (few distinct values of each)."""
    from fairlib.multires._engine.filling import _start_order

    rng = np.random.default_rng(seed)
    keys = rng.integers(0, distinct_keys, n) * 0.1
    sec0 = (
        rng.permutation(n) if distinct_secondary >= n else rng.integers(0, distinct_secondary, n)
    ).astype(np.int64)
    assert _start_order(keys, sec0).tolist() == _kernel_start_order(keys, sec0).tolist()


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 12), st.integers(1, 4), st.integers(0, 2**32 - 1), st.booleans())
def test_pdrf_cycle_is_metins_formula_with_numpys_largest_share(n, m, seed, simplified):
    """The cycle kernel finds ds* = max_i ds_i by a loop (numba's array max compiles for ~0.5 s):
    tasks and k equal Algorithm 1 written in Python with NumPy's ``ds.max()``, the same additions in
    the same order (ties in ds included)."""
    from fairlib.multires.edrf import _pdrf_cycle

    rng = np.random.default_rng(seed)
    d = rng.integers(0, 5, (n, m)).astype(float)
    d[:, 0] += 1.0
    cap = rng.integers(5, 60, m).astype(float)
    ds = (d / cap).max(axis=1)
    tasks, k = _pdrf_cycle(d, cap, ds, simplified)
    ds_max = float(ds.max())
    cycle = [0.0] * m
    for i in range(n):
        f = 1.0 / ds[i] if simplified else ds_max / ds[i]
        for r in range(m):
            cycle[r] += f * d[i, r]
    want_k = min([cap[r] / cycle[r] for r in range(m) if cycle[r] > 0.0], default=np.inf)
    want = [
        int(np.floor(want_k / ds[i] if simplified else want_k * (ds_max / ds[i]))) for i in range(n)
    ]
    assert k == want_k and tasks.tolist() == want


@pytest.mark.parametrize(
    "row, message",
    [
        ([0.0, -1.0], "demands[1, 1] = -1.0"),
        ([np.nan, 1.0], "demands[1, 0] = nan"),
        ([np.inf, 0.0], "demands[1, 0] = inf"),
        ([-np.inf, 1.0], "demands[1, 0] = -inf"),
        ([0.0, 0.0], "demands[1]"),
    ],
)
@pytest.mark.parametrize("mechanism", [pdrf, edrf])
def test_the_branch_free_row_scan_names_every_bad_entry_without_a_warning(mechanism, row, message):
    """The row scan of EDRF and PDRF validates by comparisons (no floating-point flag, interpreted
    or compiled)."""
    import re
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(InvalidInputError, match=re.escape(message)):
            mechanism([[1.0, 2.0], row], [5.0, 5.0])


def test_a_negative_zero_demand_is_a_zero_demand():
    res = pdrf([[1.0, -0.0], [0.0, 1.0]], [4.0, 4.0])
    np.testing.assert_array_equal(res.tasks, pdrf([[1.0, 0.0], [0.0, 1.0]], [4.0, 4.0]).tasks)


def test_pdrf_consumption_and_rates_are_its_own():
    """``consumed`` is computed when PDRF returns (the caller may change its demands afterwards),
    equal to ``tasks @ demands`` exactly for integer demands; ``rates`` (computed on first access)
    from shares the result owns."""
    rng = np.random.default_rng(5)
    d = np.round(rng.uniform(1, 100, (500, 3)))
    cap = d.sum(axis=0) * 0.3
    res = pdrf(d, cap)
    expected_use = res.tasks @ d
    d *= 2.0
    np.testing.assert_array_equal(res.consumed, expected_use)
    shares = (d / 2.0 / cap).max(axis=1)
    np.testing.assert_array_equal(res.rates, shares.max() / shares)
    floats = rng.uniform(0.1, 1.0, (500, 3))
    res = pdrf(floats, floats.sum(axis=0) * 0.3)
    np.testing.assert_allclose(res.consumed, res.tasks @ floats, rtol=1e-13)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 30), st.integers(1, 6), st.integers(0, 2**32 - 1))
def test_pool_summary_is_the_numpy_expressions(n, m, seed):
    """The one-pass kernel drf's set-up uses gives what the NumPy expressions it replaced give, bit
    for bit: the per-task dominant share, the tasks each user could run alone (inf demanding
    nothing) and the dominant resource (the first of equals; ratios beyond the float range are inf
    and still the largest)."""
    from fairlib.multires.progressive_filling import dominant_resources, pool_summary

    rng = np.random.default_rng(seed)
    d = rng.integers(0, 4, (n, m)).astype(float) * 10.0 ** rng.integers(-300, 300, (n, m))
    d[rng.random((n, m)) < 0.3] = 0.0
    d[:, rng.integers(m)] = d[:, 0]  # repeated columns: ties between resources
    cap = rng.uniform(0.5, 2.0, m) * 10.0 ** rng.integers(-300, 300, m)
    with np.errstate(divide="ignore", over="ignore", under="ignore"):
        per_task = (d / cap).max(axis=1)
        alone = np.where(d > 0, cap / np.where(d > 0, d, 1.0), np.inf).min(axis=1)
    got = pool_summary(d, cap)
    assert got[0].tobytes() == per_task.tobytes() and got[1].tobytes() == alone.tobytes()
    assert got[2].tolist() == dominant_resources(d, cap).tolist()
