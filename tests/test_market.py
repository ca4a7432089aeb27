"""The proportional-share bidding game (Feldman, Lai, Zhang EC'05): best responses, equilibria,
metrics."""

import itertools
import re
import warnings

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from fairlib import market, metrics
from fairlib._validate import InvalidInputError
from fairlib.market.baselines import best_response_numpy, best_response_slsqp
from fairlib.market.best_response import _br_value, _candidate_order


@st.composite
def br_inputs(draw, max_n=12):
    n = draw(st.integers(1, max_n))
    w = np.array(draw(st.lists(st.floats(0.0, 1.0), min_size=n, max_size=n)))
    w[0] = max(w[0], 0.05)
    y = np.array(draw(st.lists(st.floats(0.01, 3.0), min_size=n, max_size=n)))
    budget = draw(st.floats(0.1, 5.0))
    return w, y, budget


def _kkt_violation(w, x, y):
    mu = w * y / (x + y) ** 2
    bid = x > 1e-12
    lam = mu[bid].max()
    return max(lam - mu[bid].min(), (mu[~bid] - lam).max(initial=0.0)) / lam


@given(br_inputs())
def test_best_response_properties_and_kkt(case):
    w, y, budget = case
    x = market.best_response(w, y, budget)
    assert (x >= 0).all() and x.sum() == pytest.approx(budget, rel=1e-12)
    assert (x[w == 0] == 0).all()
    assert _kkt_violation(w, x, y) < 1e-9
    np.testing.assert_allclose(best_response_numpy(w, y, budget), x, atol=1e-12)
    value = _br_value(w, y, np.sqrt(w * y), budget, _candidate_order(w, y), int((w > 0).sum()))
    assert value == pytest.approx(market.utility(w, x, y), rel=1e-12, abs=1e-15)


@given(
    st.integers(1, 4000),
    st.sampled_from(["uniform", "heavy", "ties", "sparse"]),
    st.integers(0, 2**32 - 1),
    st.floats(1e-3, 1e3),
)
def test_sort_free_best_response_matches_the_sorted_scan(n, shape, seed, budget):
    """The threshold fixed point (no sort) against the sorted closed form, on sizes and shapes that
    exercise the strided start, its rebuild when the guess cuts into the optimum, and ties."""
    rng = np.random.default_rng(seed)
    w, y = rng.random(n), rng.uniform(1e-3, 1.0, n)
    if shape == "heavy":
        w, y = rng.pareto(1.2, n), rng.random(n) ** 4 + 1e-9
    elif shape == "ties":
        w, y = rng.integers(0, 3, n).astype(float), rng.integers(1, 3, n).astype(float)
    elif shape == "sparse":
        w[rng.random(n) < 0.9] = 0.0
    w[0] = max(w[0], 0.5)
    x = market.best_response(w, y, budget)
    ref = best_response_numpy(w, y, budget)
    np.testing.assert_allclose(x, ref, rtol=1e-9, atol=1e-12 * budget)
    # x_j = sqrt(w y) scale - y cancels when y_j >> x_j (hundreds of tied machines): 1e-9, as the
    # reference
    assert x.sum() == pytest.approx(budget, rel=1e-9)


def test_best_response_at_least_slsqp(rng):
    for _ in range(20):
        n = int(rng.integers(2, 30))
        w, y, budget = rng.random(n), rng.uniform(0.05, 2, n), float(rng.uniform(0.2, 3))
        ours = market.utility(w, market.best_response(w, y, budget), y)
        assert ours >= market.utility(w, best_response_slsqp(w, y, budget), y) - 1e-9


def test_best_response_ties_and_zero_weights():
    x = market.best_response([1.0, 1.0, 0.0], [1.0, 1.0, 5.0], 2.0)
    np.testing.assert_allclose(x, [1.0, 1.0, 0.0])


def test_local_search_is_exact_for_small_k_against_brute_force(rng):
    for _ in range(30):
        n, k = int(rng.integers(3, 8)), int(rng.integers(1, 4))
        w, y = rng.random(n), rng.uniform(0.05, 2, n)
        bids, swaps = market.best_response_finite(w, y, 1.0, k)
        assert (bids > 0).sum() <= k and bids.sum() == pytest.approx(1.0)
        best = max(
            market.utility(
                w,
                np.where(
                    np.isin(np.arange(n), s),
                    market.best_response(np.where(np.isin(np.arange(n), s), w, 0.0), y, 1.0),
                    0.0,
                ),
                y,
            )
            for s in itertools.combinations(range(n), k)
            if w[list(s)].max() > 0
        )
        # a local optimum: never better than the best subset, usually equal on these sizes
        assert market.utility(w, bids, y) <= best + 1e-12
        assert swaps >= 0


def test_local_search_pruning_is_exact(rng):
    from fairlib.market.best_response import _local_search

    for _ in range(200):
        n, k = int(rng.integers(2, 40)), int(rng.integers(1, 12))
        w, y = rng.random(n) ** 2, rng.uniform(0.01, 3, n)
        w[rng.random(n) < 0.2] = 0.0
        w[0] = max(w[0], 0.1)
        b1, s1 = _local_search(w, y, 1.0, k, True)
        b2, s2 = _local_search(w, y, 1.0, k, False)
        assert s1 == s2
        np.testing.assert_array_equal(b1, b2)


def test_best_response_errors():
    with pytest.raises(
        InvalidInputError, match=r"y\[1\] = 0\.0 with w\[1\] = 0\.5: no best response exists"
    ):
        market.best_response([0.5, 0.5], [1.0, 0.0], 1.0)
    with pytest.raises(InvalidInputError, match=r"w\[0\] = -1\.0"):
        market.best_response([-1.0, 0.5], [1.0, 1.0], 1.0)
    with pytest.raises(InvalidInputError, match=r"y\[2\] = inf"):
        market.best_response(np.ones(300), np.r_[1.0, 1.0, np.inf, np.ones(297)], 1.0)
    with pytest.raises(InvalidInputError, match=r"w\[299\] = nan"):
        market.best_response(np.r_[np.ones(299), np.nan], np.ones(300), 1.0)
    with pytest.raises(InvalidInputError, match=r"y\[150\] = 0\.0 with w\[150\] = 1\.0"):
        market.best_response(np.ones(300), np.r_[np.ones(150), 0.0, np.ones(149)], 1.0)
    with pytest.raises(InvalidInputError, match="budget = 'a'"):
        market.best_response([0.5, 0.5], [1.0, 1.0], "a")
    with pytest.raises(InvalidInputError, match="budget = 0"):
        market.best_response([0.5, 0.5], [1.0, 1.0], 0)
    with pytest.raises(InvalidInputError, match="values no machine"):
        market.best_response([0.0, 0.0], [1.0, 1.0], 1.0)
    with pytest.raises(InvalidInputError, match="k = 0"):
        market.best_response_finite([0.5, 0.5], [1.0, 1.0], 1.0, 0)


def test_game_validation():
    with pytest.raises(InvalidInputError, match="machine 1 is valued by 1 user"):
        market.Game([[1.0, 1.0], [1.0, 0.0]])
    market.Game([[1.0, 1.0], [1.0, 0.0]], reserve=1e-6)  # perturbed game is fine
    with pytest.raises(InvalidInputError, match=r"weights\[0, 1\] = nan"):
        market.Game([[1.0, np.nan], [1.0, 1.0]])
    with pytest.raises(InvalidInputError, match=r"weights\[1\]: user 1 values no machine"):
        market.Game([[1.0, 1.0], [0.0, 0.0]], reserve=1e-6)
    with pytest.raises(
        InvalidInputError, match=r"parallelism\[0\] = 3: must be between 1 and n_machines = 2"
    ):
        market.Game([[1.0, 1.0], [1.0, 1.0]], parallelism=3)
    with pytest.raises(InvalidInputError, match=r"budgets\[1\] = -1\.0"):
        market.Game([[1.0, 1.0], [1.0, 1.0]], budgets=[1.0, -1.0])
    with pytest.raises(InvalidInputError, match=r"game\.reserve = 0\.0: must be > 0"):
        market.run_dynamics(market.Game([[1.0, 1.0], [1.0, 1.0]]))


# --- scale invariance of the stopping tests -------------------------------------------------------

_SCALE_GAMES = (
    [[1.0, 2.0], [2.0, 1.0], [1.0, 1.0]],
    [[0.5, 0.3, 0.2], [0.2, 0.5, 0.3], [0.3, 0.2, 0.5], [0.4, 0.4, 0.2]],
    [[3.0, 1.0, 0.0], [1.0, 2.0, 5.0]],
)
_SCALES = st.one_of(
    st.integers(-40, 40).map(lambda e: 2.0**e), st.sampled_from([1e-12, 1e12, 1e-15, 1e150])
)


@given(game=st.sampled_from(_SCALE_GAMES), scale=_SCALES, budget_scale=_SCALES)
def test_proportional_share_is_the_same_equilibrium_at_every_scale(game, scale, budget_scale):
    """Scaling the weights (and, separately, the budgets with the reserve) changes no best
    response: the dynamics stop on the same test, say converged, and every user's bids are a best
    response to the others' within the registered tolerance."""
    w = np.array(game)
    base = market.proportional_share(market.Game(w, reserve=1e-9))
    budgets = np.full(len(w), budget_scale)
    g = market.Game(w * scale, budgets=budgets, reserve=1e-9 * budget_scale)
    out = market.proportional_share(g)
    assert out.converged and out.iterations == base.iterations
    assert out.residual <= 1e-8
    np.testing.assert_allclose(out.bids / budget_scale, base.bids, rtol=1e-9, atol=1e-12)
    total = out.bids.sum(axis=0)
    for i in range(len(w)):
        y = total - out.bids[i] + g.reserve
        np.testing.assert_allclose(
            market.best_response(g.weights[i], y, budget_scale),
            out.bids[i],
            rtol=1e-6,
            atol=1e-7 * budget_scale,
        )


@given(scale=_SCALES)
def test_equilibrium_violation_reads_bids_relative_to_the_budget(scale):
    """Bids of a small currency are not "no bid": the violation is the same at every scale."""
    w = [[1.0, 2.0], [2.0, 1.0], [1.0, 1.0]]
    x = np.array([[0.2, 0.8], [0.7, 0.3], [0.5, 0.5]])
    expected = market.equilibrium_violation(w, x, 1e-9)
    got = market.equilibrium_violation(w, x * scale, 1e-9 * scale)
    assert got == pytest.approx(expected, rel=1e-9)


@given(inputs=br_inputs(max_n=8), k=st.integers(1, 4), scale=_SCALES)
@example(
    inputs=(np.array([0.96, 0.72, 0.54, 0.28]), np.array([0.26, 1.07, 0.62, 0.22]), 1.0),
    k=2,
    scale=1e-15,
)
def test_local_search_stops_on_the_same_test_at_every_scale_of_the_weights(inputs, k, scale):
    """The dynamics call the local search on one user's weights as the game gives them: an
    improvement beyond rounding is judged relative to the weights' scale, so weights scaled by
    1e-15 swap where weights of order 1 do."""
    from fairlib.market.best_response import _local_search

    w, y, budget = inputs
    kk = min(k, len(w))
    at_one, _ = _local_search(w, y, budget, kk)
    scaled, _ = _local_search(w * scale, y, budget, kk)
    np.testing.assert_allclose(scaled, at_one, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("scale", [2.0**-40, 2.0**40, 1e-12, 1e12])
def test_best_response_slsqp_does_not_depend_on_the_weights_scale(scale):
    w, y = np.array([1.0, 2.0, 0.5]), np.array([0.5, 1.0, 0.3])
    np.testing.assert_allclose(
        best_response_slsqp(w * scale, y, 1.0), best_response_numpy(w, y, 1.0), atol=1e-6
    )


# --- equilibria and worst cases -------------------------------------------------------------------


@pytest.mark.parametrize("alpha", [0.55, 1 / np.sqrt(2), 0.85, 0.9, 0.97])
def test_two_player_closed_forms(alpha):
    eqs = market.two_player_equilibria(alpha)
    sym = [e for e in eqs if e["delta"] == pytest.approx(1.0)][0]
    assert sym["x"] == pytest.approx(alpha) and sym["y"] == pytest.approx(1 - alpha)
    assert sym["efficiency"] == pytest.approx(2 * alpha + 1 / alpha - 2)
    assert len(eqs) == (3 if alpha > (2 + np.sqrt(2)) / 4 else 1)
    for e in eqs:
        assert e["residual"] < 1e-9 and e["envy_freeness"] >= 1 - 1e-12 and e["efficiency"] >= 0.75
        # each user's bids are a best response to the other's
        x, y = e["x"], e["y"]
        w1 = np.array([alpha, 1 - alpha])
        np.testing.assert_allclose(market.best_response(w1, [y, 1 - y], 1.0), [x, 1 - x], atol=1e-9)
    assert len(market.two_player_equilibria_numeric(alpha)) == len(eqs)


def test_two_player_reference_values():
    """reconstructions §4.3 [DRV]: α = 0.9 roots δ ∈ {0.308, 1, 3.248}, efficiencies {0.833,
    0.911, 0.833}."""
    eqs = market.two_player_equilibria(0.9)
    np.testing.assert_allclose([e["delta"] for e in eqs], [0.308, 1.0, 3.248], atol=1e-3)
    np.testing.assert_allclose([e["efficiency"] for e in eqs], [0.833, 0.911, 0.833], atol=1e-3)
    assert min(e["efficiency"] for e in market.two_player_equilibria(0.99)) == pytest.approx(
        0.758, abs=1e-3
    )


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8])
def test_sqrt_m_construction_is_equilibrium(n):
    w, x = market.sqrt_m_construction(n)
    assert market.equilibrium_violation(w, x) == pytest.approx(0.0, abs=1e-12)
    welfare = metrics.utilities(w, market.allocation(x)).sum()
    assert welfare == pytest.approx(2 * n / (n + 1))
    assert welfare / market.welfare_optimum(w) == pytest.approx(2 / (n + 1))


def test_best_response_is_fixed_point_at_equilibrium():
    w, x = market.sqrt_m_construction(3)
    Y = x.sum(axis=0)
    for i in range(len(w)):
        np.testing.assert_allclose(market.best_response(w[i], Y - x[i], 1.0), x[i], atol=1e-12)


def test_proportional_guarantee(rng):
    others = rng.uniform(0.1, 2.0, size=7)
    others *= 4 / others.sum()  # 4 other users with unit budgets
    p = market.proportional_guarantee_bids(others)
    np.testing.assert_allclose(p / (p + others), 1 / 5)


# --- optimum, baselines, metrics ------------------------------------------------------------------


def test_matching_optimum_vs_brute_force(rng):
    for _ in range(15):
        m, n = int(rng.integers(1, 4)), int(rng.integers(1, 6))
        k = rng.integers(1, 3, size=m)
        w = rng.random((m, n))
        best = 0.0
        for assign in itertools.product(range(-1, m), repeat=n):  # machine -> user or nobody
            counts = np.bincount([a for a in assign if a >= 0], minlength=m)
            if (counts <= k).all():
                best = max(best, sum(w[a, j] for j, a in enumerate(assign) if a >= 0))
        r, opt = market.social_optimum(w, k)
        assert opt == pytest.approx(best)
        assert (r.sum(axis=1) <= k).all() and (r.sum(axis=0) <= 1).all()


def test_allocation_columns_sum_to_one_where_bid(rng):
    x = rng.random((4, 6))
    x[:, 2] = 0
    r = market.allocation(x)
    np.testing.assert_allclose(r.sum(axis=0), [1, 1, 0, 1, 1, 1])


def test_metrics_hand_computed():
    w = np.array([[0.5, 0.5], [0.9, 0.1]])
    r = np.array([[0.0, 1.0], [1.0, 0.0]])
    np.testing.assert_allclose(metrics.utilities(w, r), [0.5, 0.9])
    assert metrics.utility_uniformity([0.5, 0.9]) == pytest.approx(5 / 9)
    assert metrics.envy_freeness(w, r) == pytest.approx(
        1.0
    )  # user 0 indifferent, user 1 prefers its own
    r2 = np.array([[1.0, 0.0], [0.0, 1.0]])
    assert metrics.envy_freeness(w, r2) == pytest.approx(0.1 / 0.9)
    np.testing.assert_allclose(
        metrics.bundle_values(w, r, parallelism=[1, 1]), [[0.5, 0.5], [0.1, 0.9]]
    )
    assert metrics.jain_index([1, 1, 1]) == pytest.approx(1.0)


def test_weight_proportional_and_generators():
    w = market.uniform_preferences(1, 5, 8)
    np.testing.assert_allclose(w.sum(axis=1), 1)
    c = market.correlated_preferences(2, 5, 8)
    np.testing.assert_allclose(c.sum(axis=1), 1)
    x = market.weight_proportional_bids(w, budgets=2.0, parallelism=3)
    assert ((x > 0).sum(axis=1) == 3).all()
    np.testing.assert_allclose(x.sum(axis=1), 2.0)


# --- dynamics -------------------------------------------------------------------------------------


def test_best_response_dynamics_reach_an_equilibrium():
    w = market.uniform_preferences(3, 20, 30)
    game = market.Game(w, reserve=1e-9)
    res = market.run_dynamics(game, order="random", rng=1, eps=1e-12, max_iter=2000)
    assert res.converged
    assert market.equilibrium_violation(w, res.bids, 1e-9) < 1e-4
    np.testing.assert_allclose(res.bids.sum(axis=1), 1.0)
    assert res.efficiency[-1] <= 1 + 1e-12


def test_finite_sweep_same_results_serial_and_parallel():
    from fairlib.repro.experiments.bidding_game import finite_parallelism_sweep

    a = finite_parallelism_sweep([4, 8], 2, 7, delta=3, n_machines=12)
    b = finite_parallelism_sweep([4, 8], 2, 7, delta=3, n_machines=12, n_jobs=2)
    assert a.equals(b)


def test_dynamics_are_seed_stable_and_orders_differ():
    game = market.Game(market.uniform_preferences(4, 8, 20), reserve=1e-6)
    a = market.run_dynamics(game, order="random", rng=5)
    b = market.run_dynamics(game, order="random", rng=5)
    np.testing.assert_array_equal(a.utilities, b.utilities)
    lg = market.run_dynamics(game, "local_greedy", max_iter=50, stop_at_convergence=False)
    assert len(lg.efficiency) == 51 and (np.abs(lg.bids.sum(axis=1) - 1) < 1e-12).all()
    fin = market.run_dynamics(market.Game(game.weights, parallelism=3, reserve=1e-6), max_iter=5)
    assert ((fin.bids > 0).sum(axis=1) <= 3).all()
    with pytest.raises(InvalidInputError, match="order = 'fifo'"):
        market.run_dynamics(game, order="fifo")
    with pytest.raises(InvalidInputError, match="local_greedy is defined for infinite parallelism"):
        market.run_dynamics(market.Game(game.weights, parallelism=3, reserve=1e-6), "local_greedy")


def _in_safe_range(w, y, budget) -> bool:
    """The documented rule, in NumPy: every positive weight and bid and the budget within
    SAFE_MAGNITUDE."""
    from fairlib.market.best_response import SAFE_MAGNITUDE

    positive = np.concatenate([w[w > 0], y[y > 0], [budget]])
    return bool(positive.min() >= 1 / SAFE_MAGNITUDE and positive.max() <= SAFE_MAGNITUDE)


def _best_response_by_parts(w, y, budget):
    """best_response composed of separately tested parts (the reference of bit-identity): inside the
    safe range the dynamics loop's kernel on the inputs themselves; beyond, _unit_scale, then that
    kernel at unit scale, scaled back."""
    from fairlib.market.best_response import _best_response_into, _coerce_inputs, _unit_scale

    w, y, budget = _coerce_inputs(w, y, budget)
    out = np.zeros(len(w))
    if _in_safe_range(w, y, budget):
        code, _ = _best_response_into(w, y, budget, out)
        assert code == 0
        return out
    w_unit, y_unit, budget_unit, scale = _unit_scale(w, y, budget)
    code, _ = _best_response_into(w_unit, y_unit, budget_unit, out)
    assert code == 0
    return out * scale


@pytest.mark.parametrize("mode", ["compiled", "interpreted"])
def test_best_response_in_the_safe_range_is_the_closed_form_on_the_inputs_and_scale_invariant(mode):
    """Inside the safe range the bids are the dynamics kernel's on the same inputs, bit for bit, and
    agree with the unit-scale computation to rounding: within n ε max(X, max y), the scale of the
    closed form's cancellation x_j = sqrt(w_j y_j) (X + Σ y) / Σ sqrt(w y) - y_j. An entry outside
    the range sends the call to unit scale."""
    from fairlib._jit import compiled, interpreted
    from fairlib.market.best_response import _best_response, _unit_scale

    rng = np.random.default_rng(12)
    context = compiled if mode == "compiled" else interpreted
    inside = outside = 0
    with context():
        for trial in range(120):
            n = int(rng.integers(1, 300 if mode == "compiled" else 40))
            w = rng.random(n) * 10.0 ** rng.uniform(-15, 15, n)
            y = rng.random(n) * 10.0 ** rng.uniform(-15, 15, n) + 1e-3 * 10.0 ** rng.uniform(
                -15, 15
            )
            budget = float(10.0 ** rng.uniform(-10, 10))
            if trial % 4 == 0:  # one entry beyond the safe range: subnormal, tiny or huge
                (w if trial % 8 else y)[int(rng.integers(n))] = float(
                    rng.choice([5e-324, 1e-30, 1e30])
                )
            try:
                bids = market.best_response(w, y, budget)
            except InvalidInputError as exc:  # the precision limit, or a bid lost at unit scale
                assert "too small beside the other bids" in str(
                    exc
                ) or "more than the float range" in str(exc)
                continue
            np.testing.assert_array_equal(bids, _best_response_by_parts(w, y, budget))
            if _in_safe_range(w, y, budget):
                inside += 1
                np.testing.assert_array_equal(bids, _best_response(w, y, budget))
                w_unit, y_unit, budget_unit, scale = _unit_scale(w, y, budget)
                at_unit_scale = _best_response(w_unit, y_unit, budget_unit)
                np.testing.assert_allclose(
                    bids,
                    at_unit_scale * scale,
                    rtol=0,
                    atol=n * np.finfo(float).eps * max(budget, float(y.max())),
                )
            else:
                outside += 1
    assert inside >= 40 and outside >= 20


@pytest.mark.parametrize("mode", ["compiled", "interpreted"])
def test_best_response_is_bit_identical_to_scaling_then_solving(mode):
    """One kernel, the same operations as its parts: the same bids, bit for bit, at magnitudes from
    1e-300 to 1e300, with zeros, negative zeros and subnormals among the weights and bids."""
    from fairlib._jit import compiled, interpreted

    rng = np.random.default_rng(11)
    context = compiled if mode == "compiled" else interpreted
    with context():
        for trial in range(120):
            n = int(rng.integers(1, 300 if mode == "compiled" else 40))
            w = rng.random(n) * 10.0 ** rng.uniform(-300, 300)
            y = rng.random(n) * 10.0 ** rng.uniform(-300, 300) + (5e-324 if trial % 7 == 0 else 0.0)
            if trial % 3 == 0:
                w[rng.random(n) < 0.3] = 0.0 if trial % 2 else -0.0
                w[0] = 1.0
            budget = float(10.0 ** rng.uniform(-300, 300))
            try:
                expected = _best_response_by_parts(w, y, budget)
            except InvalidInputError as exc:
                with pytest.raises(InvalidInputError, match=re.escape(str(exc))):
                    market.best_response(w, y, budget)
                continue
            np.testing.assert_array_equal(market.best_response(w, y, budget), expected)


@pytest.mark.parametrize(
    "w, y, budget, message",
    [
        ([np.inf, 1.0], [1.0, 1.0], 1.0, "w[0] = inf: w must be finite and >= 0"),
        ([1.0, 1.0], [1.0, np.inf], 1.0, "y[1] = inf: y must be finite and >= 0"),
        ([np.nan, 1.0], [1.0, 1.0], 1.0, "w[0] = nan"),
        ([1.0, -np.inf], [1.0, 1.0], 1.0, "w[1] = -inf"),
        ([1.0, 1.0], [1e300, 1e-300], 1.0, "y[1] = 1e-300: more than the float range below"),
        ([1.0, 1.0], [1e300, 1.0], 1e-300, "budget = 1e-300: more than the float range below"),
        ([1.0, 1.0], [5e-324, 1.0], 4.0, "y[0] = 5e-324: more than the float range below"),
        ([1.0, 1.0], [1.0, 2.0], 5e-324, "budget = 5e-324: more than the float range below"),
    ],
)
def test_best_response_names_bad_input_without_a_floating_point_warning(w, y, budget, message):
    """Validation by comparisons: an interpreted (small) call raises the named error and warns of
    nothing first."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(InvalidInputError, match=re.escape(message)):
            market.best_response(w, y, budget)


def test_the_best_response_is_answered_at_both_ends_of_the_float_range():
    """A huge budget is spread in proportion to sqrt(w y) (the interior solution with y negligible);
    a tiny one goes whole to the machine of the largest w / y; so in the NumPy reference; SLSQP
    refuses such budgets by name."""
    import pytest

    from fairlib._validate import InvalidInputError
    from fairlib.market import best_response, best_response_numpy, best_response_slsqp

    w, y = np.array([1.0, 2.0, 3.0]), np.array([1.0, 1.0, 2.0])
    root = np.sqrt(w * y)
    np.testing.assert_allclose(best_response(w, y, 1e300) / 1e300, root / root.sum(), rtol=1e-12)
    np.testing.assert_array_equal(best_response(w, y, 1e-300) / 1e-300, [0.0, 1.0, 0.0])
    np.testing.assert_allclose(
        best_response_numpy(w, y, 1e300) / 1e300, root / root.sum(), rtol=1e-12
    )
    np.testing.assert_array_equal(best_response_numpy(w, y, 1e-300) / 1e-300, [0.0, 1.0, 0.0])
    for budget in (1e300, 1e-300):
        with pytest.raises(InvalidInputError, match="budget = "):
            best_response_slsqp(w, y, budget)
