"""Dynamic DRF (Li et al.; Kash, Procaccia, Shah): agreement of methods, lemmas, properties, worst
cases."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairlib import dynamic
from fairlib._validate import InvalidInputError
from fairlib.dynamic.baselines import waterfill_step_sorted


@st.composite
def arrivals(draw, max_agents=10, max_resources=3):
    K = draw(st.integers(1, max_agents))
    m = draw(st.integers(1, max_resources))
    # small integer grid: many ties and equal demand vectors
    d = np.array(
        draw(st.lists(st.lists(st.integers(0, 4), min_size=m, max_size=m), min_size=K, max_size=K)),
        dtype=float,
    )
    d[d.sum(axis=1) == 0, 0] = 1.0
    n = K + draw(st.integers(0, 3))
    return d, n


@given(arrivals())
def test_linear_waterfill_lp_agree(case):
    d, n = case
    res = {m: dynamic.dynamic_drf(d, n, method=m) for m in dynamic.METHODS}
    for k in range(1, len(d) + 1):
        for m in ("waterfill", "lp"):
            np.testing.assert_allclose(res[m].shares(k), res["linear"].shares(k), atol=1e-12)
    np.testing.assert_allclose(res["waterfill"].maxsum, res["linear"].maxsum, atol=1e-12)
    # the split τ is ambiguous on exact ties; each method's must satisfy its definition (eq. 2)
    for m, r in res.items():
        for k in range(1, len(d) + 1):
            x, tau, level = r.shares(k), r.split[k - 1], r.levels[k - 1]
            np.testing.assert_allclose(x[tau:], level, atol=1e-12)
            assert (x[:tau] >= level - 1e-12).all()


# the planned agents n over the whole accepted range: near K, every power of ten, and up to int64's
# largest value (shares of order 1/n, far below HiGHS's absolute tolerances)
_ANY_N = st.one_of(
    st.integers(0, 3),
    st.integers(1, 18).map(lambda e: 10**e),
    st.integers(0, 2**63 - 1),
    st.just(2**63 - 1),
)


@given(arrivals(max_agents=6), _ANY_N)
def test_lp_agrees_with_linear_and_waterfill_at_every_n(case, extra):
    d, K = case[0], len(case[0])
    n = min(K + extra, 2**63 - 1) if extra <= 3 else max(extra, K)
    res = {m: dynamic.dynamic_drf(d, n, method=m) for m in dynamic.METHODS}
    for k in range(1, K + 1):
        # compared in units of 1/n, where every share is of order 1 whatever n is
        ref = res["linear"].shares(k) * n
        for m in ("waterfill", "lp"):
            np.testing.assert_allclose(res[m].shares(k) * n, ref, rtol=1e-9, atol=1e-9)
        prev = res["linear"].shares(k - 1) if k > 1 else np.zeros(0)
        step = dynamic.dynamic_drf_step(d[:k], prev, n, method="lp")
        np.testing.assert_allclose(step * n, ref, rtol=1e-9, atol=1e-9)
    for m in ("waterfill", "lp"):
        np.testing.assert_allclose(res[m].levels * n, res["linear"].levels * n, rtol=1e-9)
        np.testing.assert_allclose(res[m].maxsum * n, res["linear"].maxsum * n, rtol=1e-9)
    assert (res["lp"].used(K) * n <= K * (1 + 1e-9)).all()


def test_lp_at_large_n_matches_the_other_methods():
    d = [[1, 0.5], [0.2, 1], [0.5, 0.5]]
    for n in (10**7, 10**8, 10**15, 2**63 - 1):
        lp = dynamic.dynamic_drf(d, n, method="lp").shares(3) * n
        np.testing.assert_allclose(lp, [4 / 3, 4 / 3, 1.0], rtol=1e-12)


def test_single_step_refuses_previous_shares_over_capacity_at_large_n():
    # the previous step's capacity (k - 1)/n = 1e-15 here: a use of twice that is refused
    with pytest.raises(InvalidInputError, match="more than the capacity"):
        dynamic.dynamic_drf_step([[1, 1], [1, 1]], [2e-15], 10**15)


@given(arrivals(max_agents=30))
def test_prefix_sums_agree_with_the_printed_loops(case):
    d, n = case
    fast = dynamic.dynamic_drf(d, n, sums="prefix")
    loops = dynamic.dynamic_drf(d, n, sums="rescan")
    np.testing.assert_allclose(fast.levels, loops.levels, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(fast.maxsum, loops.maxsum, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(fast.final_shares, loops.final_shares, rtol=1e-12, atol=1e-15)


def test_prefix_sums_on_many_arrivals():
    d = np.random.default_rng(3).uniform(0.01, 1.0, size=(3000, 3))
    fast, loops = (dynamic.dynamic_drf(d, sums=s) for s in ("prefix", "rescan"))
    # τ itself may differ where consecutive shares tie (the test is tie-invariant up to rounding)
    assert np.mean(fast.split == loops.split) > 0.9
    # level = (k/n - α) / β cancels when a resource is nearly full: compare absolutely (shares are
    # <= 1)
    np.testing.assert_allclose(fast.levels, loops.levels, rtol=0, atol=1e-13)
    np.testing.assert_allclose(fast.maxsum, loops.maxsum, rtol=1e-10)
    np.testing.assert_allclose(
        fast.final_shares, dynamic.dynamic_drf(d, method="waterfill").final_shares, rtol=1e-10
    )


def test_prefix_block_from_a_rebuilt_state():
    """The timing harness resumes Algorithm 1 at step k from a rebuilt state: same levels as a full
    run."""
    from fairlib.dynamic.drf import _linear_prefix_block, _linear_prefix_state

    d = dynamic.normalize_demands(np.random.default_rng(5).uniform(0.01, 1.0, size=(400, 2)))
    full = dynamic.dynamic_drf(d)
    x, dp, up = _linear_prefix_state(d, 300, 400)
    last = _linear_prefix_block(d, x, 400.0, dp, up, 300, 400, np.zeros(1, np.int64))
    assert last == pytest.approx(full.levels[-1], abs=1e-13)
    np.testing.assert_allclose(x, full.final_shares, atol=1e-13)


@given(arrivals())
def test_lemmas_1_and_2(case):
    """L1: x_i^k = max(M^k, x_i^{k-1}); L2: shares non-increasing in arrival order."""
    d, n = case
    res = dynamic.dynamic_drf(d, n)
    prev = np.zeros(0)
    for k in range(1, len(d) + 1):
        x = res.shares(k)
        np.testing.assert_allclose(
            x, np.maximum(np.append(prev, 0.0), res.levels[k - 1]), atol=1e-12
        )
        assert (np.diff(x) <= 1e-12).all()
        assert x[-1] == pytest.approx(res.levels[k - 1]) == pytest.approx(x.min())
        prev = x


@given(arrivals(max_agents=8))
def test_properties_si_def_dpo(case):
    d, n = case
    props = dynamic.check_properties(dynamic.dynamic_drf(d, n))
    assert props["holds"], props


@given(arrivals(max_agents=8))
def test_single_step_functions(case):
    d, n = case
    d = dynamic.normalize_demands(d)
    res = dynamic.dynamic_drf(d, n)
    for k in range(1, len(d) + 1):
        prev = res.shares(k - 1) if k > 1 else np.zeros(0)
        np.testing.assert_allclose(
            dynamic.dynamic_drf_step(d[:k], prev, n), res.shares(k), atol=1e-12
        )
        if k > 1:
            np.testing.assert_allclose(
                waterfill_step_sorted(d[:k], prev, n), res.shares(k), atol=1e-12
            )


def test_printed_line6_violates_capacity():
    """reconstructions §3.3: the printed test never triggers the binary search and breaks
    capacity."""
    d = np.array([[1.0, 0.1], [0.1, 1.0], [1.0, 1.0], [1.0, 0.2]])
    printed = dynamic.dynamic_drf(d, method="linear", line6="as_printed")
    over = max((printed.used(k) - k / 4).max() for k in range(1, 5))
    assert over > 1e-3
    fixed = dynamic.dynamic_drf(d)
    assert max((fixed.used(k) - k / 4).max() for k in range(1, 5)) <= 1e-12


@pytest.mark.parametrize("m", [2, 3, 5, 8])
def test_maxsum_counterexample_closed_forms(m):
    res = dynamic.dynamic_drf(dynamic.maxsum_counterexample(m))
    cr = dynamic.competitive_ratios(res)
    assert res.maxsum[-1] == pytest.approx((m * m + 1) / (m + 1), abs=1e-6)
    assert cr["static"][-1] * (m + 1) == pytest.approx((m + 1) / 2, abs=1e-6)
    np.testing.assert_allclose(res.final_shares[:m], m / (m + 1), atol=1e-6)
    assert cr["cr1"][-1] > 1  # dynamic beats the offline benchmark: CR1 is ill-posed


@pytest.mark.parametrize("m", [2, 3, 4, 6])
def test_maxmin_tight_example(m):
    res = dynamic.dynamic_drf(dynamic.maxmin_tight_example(m))
    cr = dynamic.competitive_ratios(res)
    assert cr["CR2"] == pytest.approx((m + 1) / (m * m + 1), abs=1e-6)
    assert res.levels[-1] == pytest.approx(1 / (m * m + 1), abs=1e-9)
    k = np.arange(1, res.n_steps + 1)
    assert (cr["cr2"] >= np.ceil(k / m) / k - 1e-9).all()


@given(arrivals(max_agents=12))
def test_cr2_lower_bound_on_random_instances(case):
    d, n = case
    m = d.shape[1]
    cr = dynamic.competitive_ratios(dynamic.dynamic_drf(d, n))
    k = np.arange(1, len(d) + 1)
    # x_k^k >= 1/n (SI) and ẋ^k <= (k/n)/ceil(k/m) (pigeonhole): the ratio is at least ceil(k/m)/k
    assert (cr["cr2"] >= np.ceil(k / m) / k - 1e-9).all()
    assert (cr["cr2"] <= 1 + 1e-9).all()


def test_strategyproofness_spot_check():
    rng = np.random.default_rng(3)
    assert (
        dynamic.strategyproofness_spot_check(rng.uniform(0.05, 1, size=(8, 3)), rng=4, trials=15)
        <= 1e-9
    )


def test_compact_representation_scales():
    """10^5 arrivals with O(n m) memory: no n^2 array is built."""
    d = np.random.default_rng(0).uniform(0.01, 1, size=(100_000, 2))
    res = dynamic.dynamic_drf(d, method="waterfill")
    assert res.levels.shape == (100_000,) and res.final_shares.shape == (100_000,)
    assert res.used(100_000).max() == pytest.approx(1.0)
    with pytest.raises(InvalidInputError, match="dense_shares"):
        res.dense_shares()


def test_cautious_lp_reconstruction_is_feasible_and_fair():
    d = np.random.default_rng(5).uniform(0.05, 1, size=(8, 2))
    out = dynamic.cautious_lp(d)
    assert (out["used_max"] <= 1 + 1e-9).all()
    assert (out["levels"] >= 1 / 8 - 1e-9).all()  # SI
    assert out["used_max"][-1] == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize("n", [8, 10**7, 10**8, 10**12, 10**15, 2**63 - 1])
def test_cautious_lp_is_feasible_and_fair_at_every_n(n):
    d = np.random.default_rng(5).uniform(0.05, 1, size=(8, 2))
    out = dynamic.cautious_lp(d, n)
    x = out["final_shares"]
    assert (out["levels"] * n >= 1 - 1e-9).all()  # SI: z >= 1/n and EF keep everyone at 1/n
    # the reserve for the n - K agents to come fits, in units of 1/n (no cancellation at large n)
    y = x * n
    use = y @ dynamic.normalize_demands(d)
    assert ((use + (n - 8) * y.max()) / n <= 1 + 1e-7).all()
    assert (x * n <= 8).all()  # nothing above the whole pool


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (
            dict(demands=[[1, 0], [0, 0]]),
            r"demands\[1\] = \[0\. 0\.\]: every user must demand some resource",
        ),
        (dict(demands=[[1, -1]]), r"demands\[0, 1\] = -1\.0"),
        (dict(demands=[[1, np.nan]]), r"demands\[0, 1\] = nan"),
        (
            dict(demands=[[1, 1], [1, 1]], n=1),
            r"n = 1: must be >= the number of arriving agents \(2\)",
        ),
        (dict(demands=[[1, 1]], n=2.5), r"n = 2\.5: must be an integer"),
        (dict(demands=[[1, 1]], method="fast"), r"method = 'fast'"),
        (
            dict(demands=[[1, 1]], method="lp", line6="as_printed"),
            r"applies to method='linear' only",
        ),
        (
            dict(demands=[[1, 1]], sums="cumulative"),
            r"sums = 'cumulative': must be one of \['prefix', 'rescan'\]",
        ),
    ],
)
def test_validation(kwargs, message):
    with pytest.raises(InvalidInputError, match=message):
        dynamic.dynamic_drf(**kwargs)


def test_step_and_shares_errors():
    res = dynamic.dynamic_drf([[1, 1], [1, 0.5]])
    with pytest.raises(InvalidInputError, match=r"k = 3: steps run from 1 to 2"):
        res.shares(3)
    with pytest.raises(
        InvalidInputError, match=r"previous_shares = \[0.5, 0.5\]: expected 1 shares"
    ):
        dynamic.dynamic_drf_step([[1, 1], [1, 0.5]], [0.5, 0.5], 2)


def test_counted_work_of_algorithm_1_is_linear_per_step_and_quadratic_in_total():
    """The complexity claims are tested on counted work: the printed loops do Θ(m k) element
    operations per step, so all n steps Θ(m n²); prefix sums never do more than the printed
    loops."""
    from fairlib.repro.experiments.dynamic_drf import per_step_times, total_times

    steps = per_step_times([500, 1000, 2000], rng=3, methods=("linear", "linear_rescan"), repeat=1)
    rescan = steps[steps.method == "linear_rescan"].set_index("k").work
    assert (
        (rescan >= 2 * (rescan.index + 1)) & (rescan <= 3 * 2 * (rescan.index + 1) + 64)
    ).all()  # m = 2
    prefix = steps[steps.method == "linear"].set_index("k").work
    assert (prefix <= rescan).all()
    totals = total_times([400, 800], rng=4, methods=("linear_rescan",)).set_index("n").work
    assert 3.5 <= totals[800] / totals[400] <= 4.5
    d = np.random.default_rng(6).uniform(0.1, 1, size=(300, 3))
    assert dynamic.dynamic_drf(d).work == dynamic.dynamic_drf(d).work > 0  # deterministic
    assert dynamic.dynamic_drf(d, method="waterfill").work is None


def test_the_cautious_lp_holds_its_last_step_within_the_solver_tolerance():
    """Each step's program bounds y_i below by the last step's answer, which holds its rows only up
    to HiGHS's feasibility tolerance: held exactly, step 4 of this order (n = 20, two resources)
    was infeasible and cautious_lp raised."""
    from fairlib.dynamic.cautious import cautious_lp

    d = [
        [0.0125, 0.01901],
        [0.02499, 0.03339],
        [0.04688, 0.03979],
        [0.02499, 0.03339],
        [0.0125, 0.0159],
        [0.0625, 0.0318],
    ]
    out = cautious_lp(d, 20)
    assert (out["levels"] > 0).all() and (out["used_max"] <= 1 + 1e-6).all()
