"""Why our reconstructions of PS-MFA and the distributed heuristic stall
(``fairlib.multires.pfvds.stalls``): the merit and the NCP are sound (Ψ = 0 at the equilibrium with
its multipliers, and the equilibrium is a fixed point of the distributed update with them), the
distributed heuristic's penalty prices vanish at the equilibrium (so it is not a fixed point of eqs.
55–57 as reconstructed, and Ψ > 0 there), and PS-MFA stops where its projected direction still
descends."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairlib._validate import InvalidInputError
from fairlib.multires import pfvds, random_cluster
from fairlib.multires.pfvds.stalls import descent_rate, equilibrium_merits, penalty_prices


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    alpha=st.sampled_from([0.5, 1.0, 2.0, 4.0]),
    kappa=st.sampled_from([10.0, 1e3, 1e6]),
)
def test_the_equilibrium_zeroes_the_merit_with_multipliers_not_with_penalty_prices(
    seed, alpha, kappa
):
    cluster = random_cluster(np.random.default_rng(seed), 4, 2, 2)
    m = equilibrium_merits(cluster, alpha, kappa=kappa)
    assert m["nash_residual"] <= 1e-6 and m["overuse"] <= 1e-9
    assert m["psi_multipliers"] <= 1e-10 and m["move_multipliers"] <= 1e-5
    # nothing overused -> penalty prices 0 -> every usable pair's F = -ŝ^-α/γ < 0: the update
    # moves, Ψ > 0
    assert m["psi_penalty"] > 1e-6 and m["move_penalty"] > 1e-6


def test_penalty_prices_price_only_overuse():
    cluster = random_cluster(np.random.default_rng(0), 3, 2, 2)
    x = pfvds(cluster, 1.0).tasks
    assert (penalty_prices(cluster, x, 1e3) == 0).all()
    over = penalty_prices(cluster, 1.5 * x, 1e3)
    assert (over > 0).any() and (over >= 0).all()
    np.testing.assert_allclose(penalty_prices(cluster, 1.5 * x, 2e3), 2 * over)


def test_psmfa_stops_where_its_direction_still_descends():
    """On the khamseashari2018 notebook's §5 cluster (20 users, 4 servers, α = 2), after 300
    iterations PS-MFA's projected direction is still a descent direction (so it is not at a
    stationary point of Ψ), yet Ψ falls by less than 0.1% per iteration: hundreds of thousands of
    iterations short of Ψ = 1e-10."""
    seed = np.random.SeedSequence(2018).spawn(7)[4]
    cluster = random_cluster(np.random.default_rng(seed), 20, 4, 3)
    run = pfvds(cluster, 2.0, method="psmfa", options={"iterations": 300})
    d = descent_rate(
        cluster, 2.0, run.tasks, run.diagnostics["prices"], run.diagnostics["psi"], tail=100
    )
    assert d["psi"] > 0.1 and d["slope"] < 0
    assert 0 < d["rate"] < 1e-3 and d["iterations_to_tol"] > 1e4
    assert 0 < d["best_step"] <= d["longest_step"] and d["best_gain"] > 0


def test_bad_input_is_named():
    cluster = random_cluster(np.random.default_rng(0), 3, 2, 2)
    with pytest.raises(InvalidInputError, match="kappa"):
        equilibrium_merits(cluster, 1.0, kappa=-1.0)
    with pytest.raises(InvalidInputError, match="cluster"):
        equilibrium_merits([[1.0]], 1.0)
    x = pfvds(cluster, 1.0).tasks
    with pytest.raises(InvalidInputError, match="trajectory"):
        descent_rate(cluster, 1.0, x, np.zeros((2, 2)), [1.0])
    with pytest.raises(InvalidInputError, match="tail"):
        descent_rate(cluster, 1.0, x, np.zeros((2, 2)), [1.0, 0.5], tail=0)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_diverging_distributed_iteration_is_a_result_not_bad_input(seed):
    # the penalty prices do not hold the update on these clusters: it overflows within a few
    # iterations
    cluster = random_cluster(np.random.default_rng(seed), 8, 2, 2)
    with np.errstate(all="raise"):
        res = pfvds(cluster, 4.0, method="distributed", options={"iterations": 200})
    assert not res.converged
    assert f"diverged at iteration {res.iterations}" in res.message
    assert 0 < res.iterations < 200 and len(res.diagnostics["psi"]) == res.iterations
    assert np.isfinite(res.tasks).all() and np.isfinite(res.diagnostics["prices"]).all()


def test_a_distributed_run_that_overuses_a_server_is_not_converged_and_says_so():
    """Its penalty prices hold the capacities only approximately: an iterate beyond a capacity (by
    more than FEASIBILITY_RTOL) is no allocation of the cluster, and is marked so."""
    from fairlib.multires.cluster import FEASIBILITY_RTOL

    cluster = random_cluster(3, 8, 3, 3)
    res = pfvds(cluster, 2.0, method="distributed", options={"iterations": 50})
    assert res.iterations == 50 and res.diagnostics["overuse"] > FEASIBILITY_RTOL
    assert not res.converged and "overused by" in res.message
    # a run whose iterate stays within every capacity is converged only where its merit fell
    # below tol (the documented stopping test), and says so otherwise
    within = random_cluster(1, 2, 1, 2)
    fine = pfvds(within, 1.0, method="distributed", options={"iterations": 50})
    assert fine.diagnostics["overuse"] <= FEASIBILITY_RTOL
    assert fine.diagnostics["psi"][-1] > 1e-10 and fine.diagnostics["nash_residual"] > 0.5
    assert not fine.converged and "not below tol = 1e-10" in fine.message


@pytest.mark.parametrize("scale", [2.0**-40, 2.0**40, 1e-12, 1e12])
@pytest.mark.parametrize("method", ["psmfa", "distributed"])
def test_a_merit_heuristic_says_converged_only_below_its_tolerance_at_every_scale(method, scale):
    """Resources counted in other units (capacities and demands scaled together) leave the merit
    Ψ unchanged; Ψ is computed without cancellation, so a price far above its scale does not read
    as Ψ = 0, and ``converged`` means Ψ < tol and an allocation close to an equilibrium."""
    from fairlib.multires import Cluster

    cap = np.array([[4.0, 4.0], [6.0, 2.0]])
    demand = np.array([[1.0, 2.0], [2.0, 1.0], [1.0, 1.0]])
    res = pfvds(Cluster(cap * scale, demand * scale), 2.0, method=method)
    assert res.converged == bool(res.diagnostics["psi"][-1] < 1e-10)
    if res.converged:
        assert res.diagnostics["nash_residual"] < 1e-3
    else:
        assert res.message


@pytest.mark.parametrize("seed", [7, 11, 13])
def test_psmfa_at_large_alpha_warns_of_no_overflow(seed):
    # its line search tries steps that empty a user's servers (ŝ^-α overflows) and rejects them
    cluster = random_cluster(np.random.default_rng(seed), 6, 3, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = pfvds(cluster, 16.0, method="psmfa", options={"iterations": 200})
    assert np.isfinite(res.tasks).all() and np.isfinite(res.diagnostics["psi"]).all()
