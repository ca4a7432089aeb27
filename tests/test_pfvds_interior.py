"""PF-VDS(α) by the interior-point method: against best responses, SLSQP and PS-DSF (Theorem 5)."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairlib._validate import InvalidInputError
from fairlib.repro.experiments.heterogeneous_servers import proportional_fair_slsqp
from fairlib.multires import Cluster, pfvds, psdsf
from fairlib.multires._engine.pfvds_interior import pfvds_interior_point
from fairlib.multires.cluster import random_cluster
from fairlib.multires.pfvds import nash_residual, proportional_fair_objective
from tests.test_heterogeneous import clusters


@settings(max_examples=30, deadline=None)
@given(clusters(max_users=6, max_servers=4), st.sampled_from([0.25, 0.5, 1.0, 2.0, 5.0, 8.0]))
def test_interior_point_is_a_nash_equilibrium(cluster, alpha):
    """The defining property: every server's column is its exact best response to the others."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow or singular-matrix warnings escape
        res = pfvds_interior_point(cluster, alpha)
    assert res.diagnostics["converged"], res.diagnostics["stages"]
    assert cluster.feasible(res.tasks, tol=1e-12)
    # an interior point leaves pairs of exactly indifferent users at O(sqrt(tol)) instead of 0
    assert nash_residual(cluster, res.tasks, alpha) < 1e-4
    assert pfvds(cluster, alpha).diagnostics["nash_residual"] < 1e-7  # after best-response sweeps


@settings(max_examples=20, deadline=None)
@given(clusters(max_users=6, max_servers=4), st.data())
def test_per_server_alpha(cluster, data):
    alphas = np.array(
        data.draw(
            st.lists(
                st.sampled_from([0.5, 1.0, 3.0]),
                min_size=cluster.n_servers,
                max_size=cluster.n_servers,
            )
        )
    )
    res = pfvds_interior_point(cluster, alphas)
    assert res.diagnostics["converged"]
    assert nash_residual(cluster, res.tasks, alphas) < 1e-4
    assert pfvds(cluster, alphas).diagnostics["nash_residual"] < 1e-7


@pytest.mark.parametrize("seed", range(4))
def test_alpha_one_matches_slsqp_and_best_responses(seed):
    c = random_cluster(seed, 25, 5, 3, weights=True)
    ours = pfvds_interior_point(c, 1.0)
    assert ours.diagnostics["gap"] <= 1e-10
    ref = proportional_fair_slsqp(c)
    best = pfvds(c, 1.0, method="best_response")
    f = proportional_fair_objective
    assert f(c, ours.tasks) >= max(f(c, ref), f(c, best.tasks)) - 1e-9 * c.weight.sum()
    # the optimum's totals are unique (strictly concave in the totals)
    np.testing.assert_allclose(ours.totals, ref.sum(axis=1), rtol=1e-4)
    if best.diagnostics["converged"]:
        np.testing.assert_allclose(ours.totals, best.totals, rtol=1e-6)


@pytest.mark.parametrize("alpha", [0.5, 2.0, 4.0])
def test_agrees_with_best_responses(alpha):
    compared = 0
    for seed in range(6):
        c = random_cluster(seed, 30, 6, 3)
        ours = pfvds_interior_point(c, alpha)
        best = pfvds(c, alpha, method="best_response")
        if (
            best.diagnostics["nash_residual"] < 1e-7
        ):  # the Gauss-Seidel iteration does not always get there
            np.testing.assert_allclose(ours.totals, best.totals, rtol=1e-5)
            compared += 1
    assert compared >= 2


def test_time_shared_alpha_one_is_time_shared_psdsf():
    """Theorem 5 through the convex program: Problem 2's equilibrium is PS-DSF (Definition 4) for
    every α."""
    from fairlib.multires.psdsf import psdsf_violation

    for seed in range(3):
        c = random_cluster(seed, 40, 8, 3)
        ours = pfvds_interior_point(c, 1.0, time_shared=True)
        assert psdsf_violation(c, ours.tasks, time_shared=True)["holds"]
        load = (ours.tasks / np.where(c.eligible, c.gamma, np.inf)).sum(axis=0)
        assert load.max() <= 1 + 1e-12
        ref = psdsf(c, time_shared=True)
        if ref.diagnostics[
            "converged"
        ]:  # the fixed-point iteration cycles on some instances (seed 2 here)
            np.testing.assert_allclose(ours.totals, ref.totals, rtol=1e-6)


def test_vacuous_rows_and_idle_servers():
    """A resource nobody needs and a server nobody may use leave no trace in the system."""
    c = Cluster(
        [[4.0, 0.0, 3.0], [2.0, 5.0, 1.0], [1.0, 1.0, 1.0]],
        [[1.0, 0.0, 1.0], [2.0, 0.0, 0.0]],
        eligible=[[1, 1, 0], [1, 1, 0]],
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = pfvds_interior_point(c, 2.0)
    assert res.diagnostics["converged"]
    assert (res.tasks[:, 2] == 0).all()
    assert res.diagnostics["prices"][:, 1].max() == 0.0  # resource 1 is never demanded
    assert nash_residual(c, res.tasks, 2.0) < 1e-7


def test_large_alpha_continuation_and_fallback():
    c = random_cluster(1, 20, 4, 3)
    res = pfvds_interior_point(c, 8.0)
    assert [a for a, _, _ in res.diagnostics["stages"]] == [2.0, 4.0, 8.0]
    assert res.diagnostics["converged"]
    # Far beyond the continuation's reach, pfvds finishes with best responses and reports it.
    big = pfvds(c, 256.0)
    assert big.diagnostics["method"] in ("interior_point", "interior_point+best_response")
    assert big.diagnostics["nash_residual"] < 1e-6


def test_prices_are_the_servers_multipliers():
    """On one server with α = 1: φ_n / x_n = λ·d_n for every user with tasks (KKT in the
    caller's units)."""
    c = Cluster([[9, 18]], [[1, 4], [3, 1]], weight=[1.0, 2.0])
    res = pfvds_interior_point(c, 1.0)
    lam = res.diagnostics["prices"][0]
    np.testing.assert_allclose(c.weight / res.totals, c.demand @ lam, rtol=1e-8)


def test_arguments():
    c = Cluster([[9, 18]], [[1, 4], [3, 1]])
    with pytest.raises(InvalidInputError, match=r"alpha\[0\] = inf"):
        pfvds_interior_point(c, np.inf)
    with pytest.raises(InvalidInputError, match=r"alpha\[0\] = -1\.0"):
        pfvds_interior_point(c, -1.0)
    with pytest.raises(InvalidInputError, match="tol = 0"):
        pfvds_interior_point(c, 1.0, tol=0)
    with pytest.raises(InvalidInputError, match="max_iterations = 0"):
        pfvds_interior_point(c, 1.0, max_iterations=0)
    with pytest.raises(InvalidInputError, match="max_iterations = 'many'"):
        pfvds_interior_point(c, 1.0, max_iterations="many")
    with pytest.raises(InvalidInputError, match="cluster: expected a Cluster"):
        pfvds_interior_point(np.ones((2, 2)), 1.0)


def _stage_both_ways(cluster, alpha, time_shared):
    """One stage from the same starting point by the reference loop and by the compiled one."""
    from fairlib._jit import compiled
    from fairlib.multires._engine import pfvds_interior as pi
    from fairlib.multires._engine.pair_kernels import user_sums

    alphas = np.full(cluster.n_servers, float(alpha))
    symmetric = alpha == 1.0
    with compiled():
        system, _, x, y, z, s = pi._starting_point(
            pi._pair_system(cluster, alphas, time_shared), cluster.n_servers, symmetric, None
        )
        reference = pi._iterate(
            system, x.copy(), y.copy(), z.copy(), s.copy(), symmetric, 1e-10, 200
        )
        fast = pi._iterate_compiled(
            x,
            y,
            z,
            s,
            symmetric,
            pi.StageLimits(1e-10, 200, pi._STALL_ITERATIONS, pi._BACKTRACKS),
            system.pair_user,
            system.pair_rows,
            system.coef,
            system.price_coef,
            system.log_coef,
            system.pair_alpha,
            system.n_users,
            system.n_rows,
        )
    totals = [user_sums(r[2], system.pair_user, system.n_users) for r in (reference, fast)]
    return reference, fast, totals


@pytest.mark.parametrize("capped", [False, True])
@pytest.mark.parametrize("alpha", [0.5, 1.0, 2.0])
def test_compiled_stage_agrees_with_the_reference_loop(alpha, capped):
    """The compiled loop is the reference loop's equations in its order: from the same start both
    converge or both stop short, and where they converge the users' totals (unique, Theorem 7;
    placements need not be) agree far inside the stopping tolerance's reach."""
    from fairlib.repro.experiments.heterogeneous_servers import with_random_caps

    for seed in range(12):
        rng = np.random.default_rng(seed)
        cluster = random_cluster(rng, 6, 3, 3, weights=True)
        if capped:
            cluster = with_random_caps(rng, cluster)
        for time_shared in (False, True):
            reference, fast, (t_ref, t_fast) = _stage_both_ways(cluster, alpha, time_shared)
            assert reference[1] == fast[1], (seed, time_shared, reference[0], fast[0])
            assert np.isfinite(fast[2]).all() and (fast[2] >= 0).all()
            if reference[1]:
                assert max(fast[4:]) <= 1e-10
                np.testing.assert_allclose(t_fast, t_ref, rtol=1e-7, atol=1e-9 * t_ref.max())


def test_compiled_factorisations_agree_with_lapack():
    """The compiled loop's Cholesky and LU solves against scipy's (LAPACK) on small random
    systems."""
    import scipy.linalg

    from fairlib.multires._engine import pfvds_interior_serial as serial

    rng = np.random.default_rng(3)
    for n in (1, 2, 5, 12):
        a = rng.normal(size=(n, n))
        b = rng.normal(size=n)
        spd = a @ a.T + n * np.eye(n)
        low, ok = serial._cholesky(spd)
        assert ok
        np.testing.assert_allclose(
            serial._cholesky_solve(low, b), scipy.linalg.solve(spd, b), rtol=1e-10
        )
        lu, piv = serial._lu(a)
        np.testing.assert_allclose(
            serial._lu_solve(lu, piv, b), scipy.linalg.solve(a, b), rtol=1e-8
        )
    indefinite = np.array([[1.0, 2.0], [2.0, 1.0]])
    assert not serial._cholesky(indefinite)[1]
    assert not serial._cholesky(np.array([[np.nan]]))[1]


def test_capped_shortfall_sees_a_user_short_of_its_cap_on_a_server_with_room():
    """The scale-free half of the capped certificate: a user below its cap where a server it may use
    has room left is not at the equilibrium, whatever its marginal; on a full server, or at its cap,
    it is."""
    from fairlib.multires.pfvds import CAPPED_SHORTFALL, capped_shortfall

    idle = Cluster([[10.0, 10.0]], [[1.0, 1.0], [1.0, 2.0]], max_tasks=[3.0, 2.0])
    assert capped_shortfall(idle, np.array([[3.0], [1.0]])) == pytest.approx(0.5)
    assert capped_shortfall(idle, np.array([[3.0], [2.0]])) == 0.0
    full = Cluster([[4.0, 10.0]], [[1.0, 1.0], [1.0, 2.0]], max_tasks=[3.0, 2.0])
    assert capped_shortfall(full, np.array([[3.0], [1.0]])) == 0.0  # the CPU is full
    res = pfvds(idle, 4.0)
    assert res.converged and res.diagnostics["capped_shortfall"] <= CAPPED_SHORTFALL


@pytest.mark.parametrize("instance, time_shared", [(361, False), (860, True)])
def test_a_stage_that_leaves_the_interior_is_finished_by_best_responses(instance, time_shared):
    """On two of the property table's thousand random clusters an interior-point stage's best
    iterate left the interior at α = 64 (a task count of -11.5); it is no allocation, so the stage
    is not converged and its projection onto tasks >= 0 starts the best responses, which reach the
    equilibrium (it used to raise: an Allocation refuses negative tasks)."""
    from fairlib._jit import compiled
    from fairlib.multires import pfvds, random_cluster
    from fairlib.multires.pfvds import shared_stages
    from fairlib.sweep import cell_seed

    # the notebook's seeds: SeedSequence(2018)'s first child is the property table's
    root = np.random.SeedSequence(2018).spawn(10)[0]
    seed = cell_seed(root, {"instance": instance, "kind": "random"}, 0)
    cluster = random_cluster(np.random.default_rng(seed), 6, 3, 3, weights=True)
    with compiled(), shared_stages():
        for alpha in (0.25, 0.5, 1, 2, 4, 8, 16, 64):
            alloc = pfvds(cluster, alpha, time_shared=time_shared)
    assert alloc.diagnostics["nash_residual"] <= 1e-6
