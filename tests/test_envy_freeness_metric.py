"""Envy-freeness is EC'05 §2's ρ = min over i, j of U_i(r_i) / U_i(r_j), the pair j = i included:
at most 1, equal to 1 exactly when nobody envies anybody (REFERENCE.md §4.2; Theorem 2's "ρ(Q) =
1" for two players)."""

import numpy as np
import pytest

from fairlib import metrics


def test_envy_free_allocation_scores_one_not_more():
    # each user gets all of its favourite machine: U_i(r_i) = 0.9 against U_i(r_j) = 0.1, ratio 9
    # for j != i
    w = np.array([[0.9, 0.1], [0.1, 0.9]])
    r = np.eye(2)
    assert metrics.envy_freeness(w, r) == 1.0


def test_envy_is_below_one():
    w = np.array([[0.9, 0.1], [0.1, 0.9]])
    r = np.array(
        [[0.0, 1.0], [1.0, 0.0]]
    )  # each user holds the machine it values at 0.1, and envies the other
    assert metrics.envy_freeness(w, r) == pytest.approx(0.1 / 0.9)


def test_never_above_one_on_random_allocations():
    g = np.random.default_rng(5)
    for _ in range(200):
        m, n = g.integers(2, 6), g.integers(2, 6)
        w = g.random((m, n))
        r = g.dirichlet(np.ones(m), size=n).T  # every machine's shares sum to 1
        rho = metrics.envy_freeness(w, r)
        assert 0 <= rho <= 1.0
        # equal to the off-diagonal minimum capped at 1, the definition without j = i
        V = w @ r.T
        off = min(V[i, i] / V[i, j] for i in range(m) for j in range(m) if i != j and V[i, j] > 0)
        assert rho == pytest.approx(min(off, 1.0))
