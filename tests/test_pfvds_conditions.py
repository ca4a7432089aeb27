"""Optimality conditions of Problem 1 (Theorem 1, Lemmas 1–2, Theorem 7) against the solvers."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairlib._validate import InvalidInputError
from fairlib.multires import Cluster, pfvds
from fairlib.multires.cluster import random_cluster
from fairlib.multires.pfvds import merit, nash_residual
from fairlib.multires.pfvds.conditions import (
    least_merit,
    marginal_utilities,
    random_feasible_start,
    server_multipliers,
    variational_gap,
)
from tests.test_heterogeneous import clusters


def test_one_server_by_hand():
    # one server, α = 1: PF-VDS maximises log x0 + log x1 on x0 + 3 x1 <= 9, 4 x0 + x1 <= 18 (both
    # bind); DRF's (3, 2) is feasible but not proportional-fair, so eq. (16) must fail there
    c = Cluster([[9, 18]], [[1, 4], [3, 1]])
    eq = pfvds(c, 1.0).tasks
    assert variational_gap(c, eq, 1.0) < 1e-9
    assert variational_gap(c, [[3.0], [2.0]], 1.0) > 1e-3
    assert least_merit(c, eq, 1.0) < 1e-12
    assert least_merit(c, [[3.0], [2.0]], 1.0) > 1e-6
    # stationarity: λ·d_n = 1/x_n for both users (γ ŝ = x_n on one server with φ = 1)
    lam = server_multipliers(c, eq, 1.0)[0]
    np.testing.assert_allclose(c.demand @ lam, 1.0 / eq[:, 0], rtol=1e-6)


def test_no_tasks_means_unbounded_marginal():
    c = Cluster([[9, 18]], [[1, 4], [3, 1]])
    assert np.isinf(marginal_utilities(c, [[0.0], [2.0]], 2.0)[0, 0])
    assert variational_gap(c, [[0.0], [2.0]], 2.0) == np.inf
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an answer, not an overflow
        assert merit(c, [[0.0], [2.0]], [[0.0, 0.0]], 2.0) == np.inf


@settings(max_examples=25, deadline=None)
@given(clusters(max_users=5), st.sampled_from([1.0, 2.0, 4.0]))
def test_theorem_1_equilibria_satisfy_eq16_and_lemma_1(cluster, alpha):
    x = pfvds(cluster, alpha).tasks
    if (
        nash_residual(cluster, x, alpha) > 1e-7
    ):  # a solver miss is tested elsewhere, not a Theorem 1 failure
        return
    assert variational_gap(cluster, x, alpha) < 1e-5
    assert least_merit(cluster, x, alpha) < 1e-9


@settings(max_examples=15, deadline=None)
@given(clusters(max_users=5), st.sampled_from([1.0, 2.0]))
def test_eq16_on_time_shared_servers(cluster, alpha):
    """Problem 2 (time-shared servers): its equilibrium meets eq. (16) over the time-shared
    constraints (over the resources it generally does not: the time-shared constraint leaves
    resources idle)."""
    x = pfvds(cluster, alpha, time_shared=True).tasks
    if nash_residual(cluster, x, alpha, time_shared=True) > 1e-7:
        return
    assert variational_gap(cluster, x, alpha, time_shared=True) < 1e-5


@settings(max_examples=25, deadline=None)
@given(clusters(max_users=5), st.sampled_from([1.0, 2.0]), st.integers(0, 2**32 - 1))
def test_theorem_1_converse_on_perturbed_allocations(cluster, alpha, seed):
    # a feasible allocation that is far from every best response must fail eq. (16) and have Ψ > 0
    x = random_feasible_start(seed, cluster)
    if nash_residual(cluster, x, alpha) < 1e-3:
        return
    assert variational_gap(cluster, x, alpha) > 1e-9
    assert least_merit(cluster, x, alpha) > 1e-12


@pytest.mark.parametrize("seed", range(4))
def test_theorem_7_totals_unique_from_random_starts(seed):
    rng = np.random.default_rng(seed)
    c = random_cluster(rng, 5, 3, 3, weights=True)
    runs = [pfvds(c, 2.0)] + [
        pfvds(c, 2.0, method="best_response", options={"start": random_feasible_start(rng, c)})
        for _ in range(3)
    ]
    totals = np.array([r.totals for r in runs])
    assert np.abs(totals - totals[0]).max() <= 1e-6 * totals.max()
    # Lemma 2: the midpoint of two equilibria is one
    mid = 0.5 * (runs[0].tasks + runs[1].tasks)
    assert nash_residual(c, mid, 2.0) <= 1e-6


def test_random_feasible_start_is_feasible_and_fills_a_resource():
    c = random_cluster(np.random.default_rng(3), 6, 4, 3)
    x = random_feasible_start(7, c)
    assert c.feasible(x) and (x[~c.eligible] == 0).all()
    np.testing.assert_allclose(c.load(x).max(axis=1)[c.eligible.any(axis=0)], 1.0)


def test_arguments():
    c = Cluster([[9, 18]], [[1, 4], [3, 1]])
    with pytest.raises(
        InvalidInputError, match=r"tasks = \[\[1.0, 2.0\]\]: expected shape \(2, 1\)"
    ):
        variational_gap(c, [[1.0, 2.0]], 1.0)
    with pytest.raises(InvalidInputError, match=r"tasks\[1, 0\] = -1\.0"):
        least_merit(c, [[1.0], [-1.0]], 1.0)
    with pytest.raises(InvalidInputError, match="finite values only"):
        variational_gap(c, [[1.0], [1.0]], np.inf)
    with pytest.raises(InvalidInputError, match=r"options\['start'\]\[0, 0\] = nan"):
        pfvds(c, 1.0, method="best_response", options={"start": [[np.nan], [1.0]]})
    with pytest.raises(InvalidInputError, match=r"options\['start'\]: expected shape \(2, 1\)"):
        pfvds(c, 1.0, method="best_response", options={"start": [1.0, 1.0]})
    with pytest.raises(
        InvalidInputError, match=r"options\['start'\]: not an option of method='interior"
    ):
        pfvds(c, 1.0, options={"start": [[1.0], [1.0]]})
    c2 = Cluster([[9, 18], [9, 18]], [[1, 4], [3, 1]], eligible=[[True, False], [True, True]])
    with pytest.raises(
        InvalidInputError, match=r"options\['start'\]\[0, 1\] = 1\.0: .*unusable pair"
    ):
        pfvds(c2, 1.0, method="best_response", options={"start": [[1.0, 1.0], [1.0, 1.0]]})


@pytest.mark.parametrize("alpha", [8.0, 73.0, 300.0])
def test_variational_gap_at_large_alpha(alpha):
    """x^-α spans dozens of orders of magnitude at large α (1e69 beside 1 at α = 73): eq. (16)'s
    LP is solved in units of the largest marginal, so it answers (HiGHS failed on the raw objective)
    — 0 at the equilibrium, > 0 elsewhere."""
    c = Cluster([[9, 18]], [[1, 4], [3, 1]])
    assert variational_gap(c, pfvds(c, alpha).tasks, alpha) < 1e-8
    assert variational_gap(c, [[2.0], [1.0]], alpha) > 0.1
