"""Per-user caps on tasks (Cluster.max_tasks): DRF, DRFH and TSF honour them (against a slow
sequential-LP reference of weighted max-min with upper bounds; EDRF and asset fairness in
tests/test_multires_single_pool.py), CEEI too (against SLSQP on the Eisenberg–Gale program with
upper bounds, and by its optimality conditions), the property checkers measure against them,
PF-VDS's variational equilibrium (against SLSQP with caps at α = 1, CEEI on one server, and eq.
(16) over the capped set by an LP at every α), and every other mechanism refuses a capped cluster
by name."""

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from fairlib import InvalidInputError
from fairlib._jit import compiled
from fairlib.multires import (
    Cluster,
    ceei,
    drf,
    drfh,
    merge_identical_servers,
    pdrf,
    pfvds,
    psdsf,
    tsf,
)
from fairlib.multires.global_maxmin import drfh_coefficients, tsf_coefficients
from fairlib.multires.psdsf import psdsf_violation
from fairlib.multires.checks.server_properties import (
    checked_allocation,
    pareto_violation,
    sharing_incentive_violation,
)
from fairlib.repro.experiments.heterogeneous_servers import proportional_fair_slsqp
from fairlib.multires._engine.pfvds_interior import pfvds_interior_point
from fairlib.multires.pfvds.conditions import variational_gap
from tests.reference import maxmin_levels_reference


def _capped_cluster(rng, users, servers, resources):
    capacity = rng.uniform(1.0, 6.0, (servers, resources))
    demand = rng.uniform(0.05, 1.0, (users, resources))
    eligible = rng.random((users, servers)) < 0.8
    eligible[np.arange(users), rng.integers(0, servers, users)] = True
    alone = Cluster(capacity, demand, eligible=eligible).gamma.sum(axis=1)
    caps = np.where(rng.random(users) < 0.6, rng.uniform(0.0, 0.6, users) * alone, np.inf)
    caps[rng.random(users) < 0.1] = 0.0
    return Cluster(
        capacity, demand, weight=rng.uniform(0.5, 2.0, users), eligible=eligible, max_tasks=caps
    )


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    users=st.integers(1, 7),
    servers=st.integers(1, 4),
    resources=st.integers(1, 3),
    method=st.sampled_from(["interior_point", "highs"]),
    mechanism=st.sampled_from(["drfh", "tsf"]),
)
def test_drfh_and_tsf_with_caps_match_the_reference(
    seed, users, servers, resources, method, mechanism
):
    """Each user's weighted level equals the reference's; no user exceeds its cap; the allocation is
    feasible."""
    cluster = _capped_cluster(np.random.default_rng(seed), users, servers, resources)
    run, q = (drfh, drfh_coefficients) if mechanism == "drfh" else (tsf, tsf_coefficients)
    coef = q(cluster) / cluster.weight
    with (
        compiled()
    ):  # the interpreted path is compared with this one in test_interpreted_kernels.py
        tasks = run(cluster, method=method).tasks
    checked_allocation(cluster, tasks)  # feasible, zero off-eligible, within every cap
    expected = maxmin_levels_reference(cluster, coef)
    np.testing.assert_allclose(
        coef * tasks.sum(axis=1), expected, rtol=2e-6, atol=1e-9 * max(1, expected.max())
    )


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), users=st.integers(1, 6), servers=st.integers(1, 4))
def test_drfh_with_caps_is_pareto_efficient_and_keeps_sharing_incentive(seed, users, servers):
    """With caps a user wants nothing beyond its cap: no user below its cap can gain without another
    losing (PO), and each user gets min(cap, its weighted share of running alone) (SI)."""
    cluster = _capped_cluster(np.random.default_rng(seed), users, servers, 2)
    tasks = drfh(cluster).tasks
    assert pareto_violation(cluster, tasks) <= 1e-6
    assert sharing_incentive_violation(cluster, tasks) <= 1e-6


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    users=st.integers(1, 7),
    mechanism=st.sampled_from(["edrf", "asset_fairness"]),
)
def test_pooled_water_filling_with_caps_is_pareto_efficient_and_keeps_sharing_incentive(
    seed, users, mechanism
):
    """EDRF and asset fairness on a capped pool: within every cap (the checker), Pareto efficient
    with caps (a user wants nothing beyond its cap) and each user at least min(cap, its weighted
    share of the pool)."""
    from fairlib.multires import asset_fairness, edrf

    pool = _capped_cluster(np.random.default_rng(seed), users, 1, 2)
    tasks = (edrf if mechanism == "edrf" else asset_fairness)(pool).tasks
    checked_allocation(pool, tasks)
    assert pareto_violation(pool, tasks) <= 1e-6
    if (
        mechanism == "edrf"
    ):  # asset fairness equalises asset shares, not dominant ones: no SI in this sense
        assert sharing_incentive_violation(pool, tasks) <= 1e-6


def test_a_cap_freezes_a_user_and_frees_the_rest_for_others():
    """Hand-computed: two servers (10, 10) and (6, 2); user 0 (1, 2) capped at 1, user 2 (1, 1) at
    2.5, user 1 (2, 1) uncapped runs 3.25 tasks on server 0 (CPU left 6.5) and 2 on server 1 (RAM
    2): 5.25."""
    cluster = Cluster(
        [[10.0, 10.0], [6.0, 2.0]],
        [[1.0, 2.0], [2.0, 1.0], [1.0, 1.0]],
        max_tasks=[1.0, np.inf, 2.5],
    )
    for method in ("interior_point", "highs"):
        for run in (drfh, tsf):
            np.testing.assert_allclose(
                run(cluster, method=method).tasks.sum(axis=1), [1.0, 5.25, 2.5], rtol=1e-7
            )


@pytest.mark.parametrize("method", ["interior_point", "highs"])
def test_users_below_the_round_level_freeze_at_their_caps_together(method):
    """Progressive filling freezes every user whose cap lies below the round's common level in that
    round (it reaches its cap whatever the others do), not one user per round: 30 users with
    distinct caps below the level they would reach uncapped finish in one round, and 30 users half
    of them capped match the reference."""
    rng = np.random.default_rng(11)
    capacity = rng.uniform(5.0, 10.0, (4, 2))
    demand = rng.uniform(0.1, 1.0, (30, 2))
    free = drfh(Cluster(capacity, demand), method=method)
    caps = free.tasks.sum(axis=1) * rng.uniform(0.2, 0.9, 30)
    capped = drfh(Cluster(capacity, demand, max_tasks=caps), method=method)
    np.testing.assert_allclose(capped.tasks.sum(axis=1), caps, rtol=1e-7)
    assert capped.diagnostics["rounds"] == 1
    cluster = Cluster(
        capacity, demand, max_tasks=np.where(rng.random(30) < 0.5, caps * 2.5, np.inf)
    )
    for run in (drfh, tsf):
        q = drfh_coefficients if run is drfh else tsf_coefficients
        coef = q(cluster) / cluster.weight
        tasks = run(cluster, method=method).tasks
        checked_allocation(cluster, tasks)
        expected = maxmin_levels_reference(cluster, coef)
        np.testing.assert_allclose(
            coef * tasks.sum(axis=1), expected, rtol=2e-6, atol=1e-9 * expected.max()
        )


def test_uncapped_cluster_is_unchanged_by_infinite_caps():
    rng = np.random.default_rng(5)
    base = Cluster(rng.uniform(1, 5, (3, 2)), rng.uniform(0.1, 1, (9, 2)))
    same = Cluster(base.capacity, base.demand, max_tasks=np.full(9, np.inf))
    assert not same.capped
    np.testing.assert_array_equal(drfh(base).tasks, drfh(same).tasks)


def test_drf_on_a_capped_pool_runs_floor_of_the_cap():
    pool = Cluster.single_pool([10.0, 10.0], [[1.0, 2.0], [2.0, 1.0]], max_tasks=[1.5, np.inf])
    np.testing.assert_array_equal(drf(pool).tasks.ravel(), [1, 4])
    np.testing.assert_array_equal(
        drf(pool).tasks.ravel(),
        drf([[1.0, 2.0], [2.0, 1.0]], [10.0, 10.0], max_tasks=[1, 10**6]).tasks,
    )
    with pytest.raises(InvalidInputError, match="the caps are the cluster's"):
        drf(pool, max_tasks=np.array([1, 1]))


@pytest.mark.parametrize("run", [pdrf])
def test_pooled_mechanisms_without_caps_refuse_them(run):
    pool = Cluster.single_pool([10.0, 10.0], [[1.0, 2.0], [2.0, 1.0]], max_tasks=[np.inf, 3.0])
    with pytest.raises(
        InvalidInputError, match=r"max_tasks\[1\] = 3.0: .* does not honour per-user caps"
    ):
        run(pool)


def test_pfvds_iterative_methods_refuse_caps():
    """Only the interior point computes the capped (variational) equilibrium; the others say so by
    name."""
    cluster = Cluster([[10.0, 10.0], [6.0, 2.0]], [[1.0, 2.0], [2.0, 1.0]], max_tasks=[2.0, np.inf])
    for method in ("best_response", "distributed", "psmfa"):
        with pytest.raises(
            InvalidInputError, match=rf"max_tasks\[0\] = 2.0: method='{method}' does not honour"
        ):
            pfvds(cluster, 1.0, method=method)
    with pytest.raises(InvalidInputError, match="continuation"):
        pfvds_interior_point(cluster, 4.0, continuation=(1.0, 1.0))


def _made_feasible(cluster, tasks):
    """SLSQP keeps constraints only to about 1e-9; at a cap priced ~600 (a tiny cap) that excess
    alone buys more objective than the 1e-8 the comparison allows. Scaled down into the caps and the
    capacities, the reference is a feasible point, which the optimum must match or beat."""
    totals = tasks.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        tasks = (
            tasks * np.where(totals > cluster.max_tasks, cluster.max_tasks / totals, 1.0)[:, None]
        )
        used = np.einsum("ni,nr->ir", tasks, cluster.demand)
        server_scale = np.where(used > cluster.capacity, cluster.capacity / used, 1.0).min(axis=1)
    return tasks * server_scale[None, :]


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    users=st.integers(1, 6),
    servers=st.integers(1, 4),
    resources=st.integers(1, 3),
)
@example(
    seed=5, users=5, servers=1, resources=3
)  # a cap of 2.9e-3 priced at 595: SLSQP's reference exceeds it
def test_pfvds_alpha_one_with_caps_is_the_capped_proportional_fair_optimum(
    seed, users, servers, resources
):
    """α = 1: the variational equilibrium is max Σ φ log x_n with the caps as constraints (SLSQP
    reference): the same totals (unique: strictly concave in them), an objective no worse, every cap
    kept."""
    cluster = _capped_cluster(np.random.default_rng(seed), users, servers, resources)
    with compiled():
        ours = pfvds(cluster, 1.0)
    assert ours.converged, ours.diagnostics
    checked_allocation(cluster, ours.tasks)
    ref = _made_feasible(cluster, proportional_fair_slsqp(cluster))
    playing = cluster.max_tasks > 0
    objective = lambda x: float(  # noqa: E731
        (cluster.weight[playing] * np.log(x.sum(axis=1)[playing])).sum()
    )
    assert objective(ours.tasks) >= objective(ref) - 1e-8 * cluster.weight.sum()
    np.testing.assert_allclose(ours.totals, ref.sum(axis=1), rtol=1e-4, atol=1e-7)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    users=st.integers(1, 6),
    servers=st.integers(1, 4),
    resources=st.integers(1, 3),
    alpha=st.sampled_from([0.25, 0.5, 1.0, 2.0, 4.0]),
    time_shared=st.booleans(),
)
def test_pfvds_with_caps_solves_definition_6_over_the_capped_set(
    seed, users, servers, resources, alpha, time_shared
):
    """The defining property, checked by an LP independent of the solver: no feasible x' (caps
    included) has a larger Σ g·x' than the allocation (eq. 16 over the capped set); a user charged
    a cap price holds its cap."""
    cluster = _capped_cluster(np.random.default_rng(seed), users, servers, resources)
    with compiled():
        res = pfvds(cluster, alpha, time_shared=time_shared)
    assert res.converged, res.diagnostics
    checked_allocation(cluster, res.tasks)
    assert variational_gap(cluster, res.tasks, alpha, time_shared=time_shared) <= 1e-7
    nu = res.diagnostics["cap_prices"]
    charged = nu > 1e-6 * max(nu.max(), res.diagnostics["prices"].max())
    np.testing.assert_allclose(res.totals[charged], cluster.max_tasks[charged], rtol=1e-6)


def test_pfvds_with_caps_selects_the_variational_equilibrium():
    """A capped user on two servers, each shared with one uncapped user: (0.5, 0) is a generalised
    equilibrium (each server's column is its best response under the cap the other leaves), but only
    the symmetric split, where both servers charge the capped user the same price, solves eq. (16)
    over the capped set."""
    cluster = Cluster(
        [[1.0], [1.0]],
        [[1.0], [1.0], [1.0]],
        eligible=[[1, 1], [1, 0], [0, 1]],
        max_tasks=[0.5, np.inf, np.inf],
    )
    res = pfvds(cluster, 1.0)
    np.testing.assert_allclose(res.tasks, [[0.25, 0.25], [0.75, 0.0], [0.0, 0.75]], atol=1e-8)
    np.testing.assert_allclose(
        res.diagnostics["cap_prices"], [2.0 - 4.0 / 3.0, 0.0, 0.0], rtol=1e-6
    )
    np.testing.assert_allclose(res.diagnostics["prices"], [[4.0 / 3.0], [4.0 / 3.0]], rtol=1e-6)
    other = np.array([[0.5, 0.0], [0.5, 0.0], [0.0, 1.0]])
    assert variational_gap(cluster, other, 1.0) == pytest.approx(1.0 / 6.0, rel=1e-9)
    assert variational_gap(cluster, res.tasks, 1.0) <= 1e-9


@pytest.mark.parametrize("alpha", [0.5, 2.0, 16.0])
def test_pfvds_with_caps_that_do_not_bind_is_pfvds(alpha):
    """Caps above the uncapped equilibrium's totals change nothing (cap prices 0); caps of 0 take
    the user out."""
    cluster = _capped_cluster(np.random.default_rng(3), 6, 3, 2)
    free = Cluster(
        cluster.capacity, cluster.demand, weight=cluster.weight, eligible=cluster.eligible
    )
    uncapped = pfvds(free, alpha)
    loose = Cluster(
        free.capacity,
        free.demand,
        weight=free.weight,
        eligible=free.eligible,
        max_tasks=uncapped.totals * 1.5,
    )
    res = pfvds(loose, alpha)
    assert res.converged and res.diagnostics["variational_gap"] <= 1e-7
    np.testing.assert_allclose(res.totals, uncapped.totals, rtol=1e-6)
    assert (res.diagnostics["cap_prices"] <= 1e-8 * res.diagnostics["prices"].max()).all()
    nobody = Cluster(
        free.capacity,
        free.demand,
        weight=free.weight,
        eligible=free.eligible,
        max_tasks=np.zeros(free.n_users),
    )
    assert pfvds(nobody, alpha).tasks.sum() == 0.0


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    users=st.integers(1, 7),
    servers=st.integers(1, 4),
    resources=st.integers(1, 3),
    time_shared=st.booleans(),
)
def test_psdsf_with_caps_satisfies_definition_4_below_the_caps(
    seed, users, servers, resources, time_shared
):
    """Per-server progressive filling with caps, iterated to its fixed point: within every cap and
    capacity, and Definition 4 holds for every user below its cap (none could grow on a server
    without taking from a user of lower or equal weighted VDS there)."""
    cluster = _capped_cluster(np.random.default_rng(seed), users, servers, resources)
    res = psdsf(cluster, time_shared=time_shared)
    assert res.converged
    assert res.extras.get("handover") == ("per-user caps" if cluster.capped else None)
    if (
        not time_shared
    ):  # a time-shared allocation is feasible for the server's time, not its resources
        checked_allocation(cluster, res.tasks)
    assert (res.tasks.sum(axis=1) <= cluster.max_tasks * (1 + 1e-12) + 1e-12).all()
    verdict = psdsf_violation(cluster, res.tasks, time_shared=time_shared)
    assert verdict["holds"], verdict


def test_psdsf_caps_above_what_users_get_change_nothing():
    rng = np.random.default_rng(11)
    for _ in range(10):
        base = Cluster(
            rng.uniform(1, 5, (3, 2)),
            rng.uniform(0.1, 1, (6, 2)),
            eligible=rng.random((6, 3)) < 0.8 + (np.arange(3) == 0),
        )
        free = psdsf(base, method="fixed_point").tasks
        loose = Cluster(
            base.capacity,
            base.demand,
            eligible=base.eligible,
            max_tasks=free.sum(axis=1) * 1.5 + 1e-9,
        )
        np.testing.assert_array_equal(psdsf(loose).tasks, free)


@pytest.mark.parametrize(
    "caps, match",
    [
        ([1.0], r"max_tasks: expected length 2"),
        ([1.0, -2.0], r"max_tasks\[1\] = -2.0"),
        ([np.nan, 1.0], r"max_tasks\[0\] = nan"),
        ([[1.0, 2.0]], r"max_tasks: expected 2 numbers"),
        (["a", "b"], r"max_tasks: expected 2 numbers"),
    ],
)
def test_bad_caps_are_named(caps, match):
    with pytest.raises(InvalidInputError, match=match):
        Cluster([[1.0, 1.0]], [[1.0, 1.0], [1.0, 0.5]], max_tasks=caps)


def test_checkers_reject_an_allocation_above_a_cap_and_merging_keeps_caps():
    cluster = Cluster(
        [[10.0, 10.0], [10.0, 10.0]], [[1.0, 1.0], [1.0, 1.0]], max_tasks=[1.0, np.inf]
    )
    with pytest.raises(
        InvalidInputError, match=r"user 0 is given 2 tasks, above its cap max_tasks\[0\] = 1"
    ):
        checked_allocation(cluster, [[1.0, 1.0], [0.0, 0.0]])
    merged = merge_identical_servers(cluster)[0]
    assert merged.n_servers == 1 and merged.max_tasks.tolist() == [1.0, np.inf]


def test_pareto_checker_when_every_user_is_capped_at_zero():
    """Regression: with every user capped at 0 the allocation holds nothing and nothing can be added
    — Pareto efficient (the checker divided 0 by 0); with a user free to run, an empty allocation
    is not."""
    capped = Cluster.single_pool([4.0, 4.0], [[1.0, 1.0], [1.0, 2.0]], max_tasks=[0.0, 0.0])
    assert pareto_violation(capped, np.zeros((2, 1))) == 0.0
    free = Cluster.single_pool([4.0, 4.0], [[1.0, 1.0], [1.0, 2.0]], max_tasks=[0.0, np.inf])
    assert pareto_violation(free, np.zeros((2, 1))) == np.inf


def eisenberg_gale_with_caps(cap, dem, w, limit):
    """max Σ w log x subject to dem.T x <= cap and 0 <= x <= limit, by SLSQP from a feasible
    interior point."""
    from scipy.optimize import minimize

    alone = np.min(np.where(dem > 0, cap / np.where(dem > 0, dem, 1), np.inf), axis=1)
    x0 = np.minimum(alone / (2 * len(w)), limit / 2)
    res = minimize(
        lambda x: -(w * np.log(x)).sum(),
        x0,
        jac=lambda x: -w / x,
        method="SLSQP",
        bounds=[(1e-12, u) for u in limit],
        constraints=[{"type": "ineq", "fun": lambda x: cap - x @ dem, "jac": lambda x: -dem.T}],
        options={"ftol": 1e-14, "maxiter": 3000},
    )
    assert res.success or res.status == 8, res.message  # 8: stopped at an optimum it cannot improve
    return res.x


@st.composite
def capped_markets(draw):
    n, m = draw(st.integers(1, 6)), draw(st.integers(1, 3))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    dem = rng.choice([0.0, 0.5, 1.0, 2.0, 3.0], (n, m))
    dem[~(dem > 0).any(axis=1), 0] = 1.0
    cap = rng.choice([6.0, 10.0, 16.0], m)
    w = rng.choice([1.0, 2.0, 3.0], n)
    alone = np.min(np.where(dem > 0, cap / np.where(dem > 0, dem, 1), np.inf), axis=1)
    limit = np.where(rng.random(n) < 0.6, rng.uniform(0.05, 0.8, n) * alone, np.inf)
    return cap, dem, w, limit


@settings(max_examples=60, deadline=None)
@given(capped_markets())
def test_ceei_with_caps_matches_the_convex_program(market):
    cap, dem, w, limit = market
    res = ceei(Cluster.single_pool(cap, dem, weight=w, max_tasks=limit))
    assert res.converged, res.message
    x = res.tasks.ravel()
    assert (x <= limit * (1 + 1e-9)).all() and (x @ dem <= cap * (1 + 1e-9)).all()
    ref = eisenberg_gale_with_caps(cap, dem, w, np.minimum(limit, 1e6))
    np.testing.assert_allclose(x, ref, rtol=2e-4, atol=1e-7)
    # optimality: free users spend their budgets; a user at its cap spends at most its budget;
    # priced resources full
    p, spend, capped = res.extras["prices"], res.extras["spending"], res.extras["capped"]
    np.testing.assert_allclose(spend[~capped], w[~capped], rtol=1e-6)
    assert (spend[capped] <= w[capped] * (1 + 1e-9)).all() and np.allclose(x[capped], limit[capped])
    assert (np.abs(x @ dem - cap)[p > 1e-12] <= cap[p > 1e-12] * 1e-6).all()


def test_ceei_caps_that_do_not_bind_change_nothing_and_a_binding_one_frees_the_rest():
    pool = ([9.0, 18.0], [[1.0, 4.0], [3.0, 1.0]])
    free = ceei(Cluster.single_pool(*pool)).tasks.ravel()  # (4.0909, 1.6364)
    loose = ceei(Cluster.single_pool(*pool, max_tasks=[5.0, 2.0])).tasks.ravel()
    np.testing.assert_allclose(loose, free, rtol=1e-9)
    # the first user capped at 2 tasks: the second buys what is left with its whole budget:
    # min(7/3, 10) tasks
    capped = ceei(Cluster.single_pool(*pool, max_tasks=[2.0, np.inf]))
    np.testing.assert_allclose(capped.tasks.ravel(), [2.0, 7 / 3], rtol=1e-7)
    assert capped.extras["capped"].tolist() == [True, False]
    with pytest.raises(InvalidInputError, match="start: ceei takes a start or per-user caps"):
        ceei(Cluster.single_pool(*pool, max_tasks=[2.0, np.inf]), start=[1.0, 1.0])


@settings(max_examples=25, deadline=None)
@given(capped_markets())
def test_pfvds_alpha_one_on_one_server_with_caps_is_ceei(market):
    """One server, α = 1: PF-VDS with caps and CEEI with caps solve the same Eisenberg-Gale
    program."""
    cap, dem, w, limit = market
    cluster = Cluster.single_pool(cap, dem, weight=w, max_tasks=limit)
    ours, theirs = pfvds(cluster, 1.0).totals, ceei(cluster).tasks.ravel()
    # the same program: the same optimum (Σ w log x) to the solvers' precision; the allocations
    # agree to its square root where the objective is flat along a face of binding resources
    # (two resources binding on three users: a gap of 1e-11 leaves x free by about 1e-5)
    np.testing.assert_allclose(
        np.dot(w, np.log(ours)), np.dot(w, np.log(theirs)), rtol=1e-9, atol=1e-9 * w.sum()
    )
    np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-9)
