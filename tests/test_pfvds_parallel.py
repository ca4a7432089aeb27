"""PF-VDS's interior point split over numba's threads (fairlib.multires._engine.pfvds_parallel):
each fused kernel against the serial path's NumPy expressions and products on any split of the users
into chunks (per-pair and per-user values bit for bit, sums over chunks to rounding), and whole
solves against the serial path."""

import sys
from dataclasses import replace

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairlib.multires import pfvds, random_cluster
from fairlib.multires.pfvds import CAPPED_GAP, nash_residual
from fairlib.multires._engine import pfvds_interior as pi
from fairlib.multires._engine import pfvds_parallel as par
from fairlib.multires._engine.pair_kernels import (
    column_products,
    parallel_from,
    row_products,
    user_sums,
)

CLOSE = dict(rtol=1e-12, atol=1e-12)


def _instance(seed, chunks):
    """A random pair system: users with 0-5 pairs each loading 2 of 4 rows (-1: none), and a user
    split."""
    rng = np.random.default_rng(seed)
    n_users, n_rows, kk = 9, 4, 2
    counts = rng.integers(0, 6, n_users)
    user_start = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    n = int(user_start[-1])
    pair_user = np.repeat(np.arange(n_users), counts).astype(np.int64)
    pair_rows = rng.integers(-1, n_rows, (n, kk)).astype(np.int64)
    coef, price_coef = rng.random((n, kk)), rng.random((n, kk))
    split = np.unique(
        np.concatenate([[0, n_users], rng.integers(0, n_users + 1, chunks - 1)])
    ).astype(np.int64)
    vectors = {
        name: rng.random(n) + 0.1 for name in ("x", "z", "dx", "dz", "u", "r_d", "r_xz", "log_coef")
    }
    vectors["dx"] -= 0.6
    vectors["dz"] -= 0.6
    alpha = rng.choice([0.5, 1.0, 2.0], n)
    return user_start, pair_user, pair_rows, coef, price_coef, split, vectors, alpha, n_rows, rng


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 4))
def test_fused_kernels_match_the_serial_expressions(seed, chunks):
    user_start, pair_user, pair_rows, coef, price_coef, split, v, alpha, n_rows, rng = _instance(
        seed, chunks
    )
    x, z, dx, dz, u = v["x"], v["z"], v["dx"], v["dz"], v["u"]
    n_users, y, dy = len(user_start) - 1, rng.random(n_rows), rng.random(n_rows) - 0.5
    args = (user_start, split)
    np.testing.assert_allclose(
        par.load(x, pair_rows, coef, n_rows, *args),
        row_products(x, pair_rows, coef, n_rows),
        **CLOSE,
    )
    g, gu, finite = par.marginals(x, v["log_coef"], alpha, *args)
    expected = pi._marginals(user_sums(x, pair_user, n_users), pair_user, v["log_coef"], alpha)
    assert finite and np.array_equal(g, expected[0]) and np.array_equal(gu, expected[1])
    r_d, worst, top = par.dual_residual(g, y, z, pair_rows, price_coef, *args)
    serial_r_d = g - column_products(y, pair_rows, price_coef) + z
    assert np.array_equal(r_d, serial_r_d) and worst == np.abs(serial_r_d).max() and top == g.max()
    # the Newton system's parts, solve and refinement
    d_inv, beta, diag_part, v1, vub = par.newton_parts(
        x, z, u, pair_rows, coef, price_coef, n_rows, *args
    )
    serial_d_inv = x / z
    serial_beta = 1.0 / (1.0 + user_sums(serial_d_inv * u, pair_user, n_users))
    s_diag, s_v1, s_vu = pi._reduced_matrix_parts(
        serial_d_inv, u, pair_user, pair_rows, coef, price_coef, n_users, n_rows
    )
    assert np.array_equal(d_inv, serial_d_inv) and np.array_equal(beta, serial_beta)
    assert np.array_equal(v1, s_v1) and np.array_equal(vub, s_vu * serial_beta[:, None])
    np.testing.assert_allclose(diag_part, s_diag, **CLOSE)
    b1, load_w = par.reduced_rhs(
        v["r_d"], v["r_xz"], x, d_inv, u, beta, pair_rows, coef, n_rows, *args
    )
    serial_b1 = v["r_d"] - v["r_xz"] / x
    assert np.array_equal(b1, serial_b1)
    np.testing.assert_allclose(
        load_w,
        row_products(pi._solve_m(serial_b1, d_inv, pair_user, u, beta), pair_rows, coef, n_rows),
        **CLOSE,
    )
    got_dx, got_dz = par.back_substitute(
        b1, dy, v["r_xz"], x, z, d_inv, u, beta, pair_rows, price_coef, *args
    )
    serial_dx = pi._solve_m(
        b1 - column_products(dy, pair_rows, price_coef), d_inv, pair_user, u, beta
    )
    assert np.array_equal(got_dx, serial_dx) and np.array_equal(
        got_dz, (-v["r_xz"] - z * serial_dx) / x
    )
    e_d, e_xz, load_dx = par.refinement_residuals(
        dx, dy, dz, u, x, z, v["r_d"], v["r_xz"], pair_rows, coef, price_coef, n_rows, *args
    )
    h_dx = u * user_sums(dx, pair_user, n_users)[pair_user]
    assert np.array_equal(e_d, -h_dx - column_products(dy, pair_rows, price_coef) + dz + v["r_d"])
    assert np.array_equal(e_xz, z * dx + x * dz + v["r_xz"])
    np.testing.assert_allclose(load_dx, row_products(dx, pair_rows, coef, n_rows), **CLOSE)
    # the step, the trial point's residual and complementarity, the right-hand sides
    t = float(rng.uniform(0.0, 1.0))
    assert par.step_to_boundary(x, dx, z, dz, *args) == min(
        pi._max_step(x, dx), pi._max_step(z, dz)
    )
    np.testing.assert_allclose(
        par.trial_complementarity(x, dx, z, dz, t, *args), (x + t * dx) @ (z + t * dz), **CLOSE
    )
    target, y_t = float(rng.uniform(0.0, 1.0)), y + t * dy
    pair_sq, load_t = par.centred_pair_residual(
        target,
        x,
        dx,
        z,
        dz,
        t,
        y_t,
        v["log_coef"],
        alpha,
        pair_rows,
        coef,
        price_coef,
        n_rows,
        *args,
    )
    x_t, z_t = x + t * dx, z + t * dz
    g_t = pi._marginals(user_sums(x_t, pair_user, n_users), pair_user, v["log_coef"], alpha)[0]
    expected_sq = np.sum((g_t - column_products(y_t, pair_rows, price_coef) + z_t) ** 2) + np.sum(
        (x_t * z_t - target) ** 2
    )
    np.testing.assert_allclose(pair_sq, expected_sq, rtol=1e-12)
    np.testing.assert_allclose(load_t, row_products(x_t, pair_rows, coef, n_rows), **CLOSE)
    assert np.array_equal(par.complementarity_rhs(x, z, dx, dz, 0.0, False, False, *args), x * z)
    assert np.array_equal(
        par.complementarity_rhs(x, z, dx, dz, target, False, True, *args), x * z - target
    )
    assert np.array_equal(
        par.complementarity_rhs(x, z, dx, dz, target, True, True, *args), x * z + dx * dz - target
    )
    assert par.all_finite(dx, dz, *args) == (np.isfinite(dx).all() and np.isfinite(dz).all())
    if len(x):
        broken = dz.copy()
        broken[int(rng.integers(len(x)))] = np.nan
        assert not par.all_finite(dx, broken, *args)
    moved_x, moved_z = x.copy(), z.copy()
    par.advance(moved_x, dx, moved_z, dz, t, *args)
    assert np.array_equal(moved_x, x + t * dx) and np.array_equal(moved_z, z + t * dz)
    summed_x, summed_z = dx.copy(), dz.copy()
    par.advance(summed_x, x, summed_z, z, 1.0, *args)
    assert np.array_equal(summed_x, dx + x) and np.array_equal(summed_z, dz + z)


def test_an_emptied_user_gets_infinite_marginals():
    user_start, split = np.array([0, 2, 3], dtype=np.int64), np.array([0, 1, 2], dtype=np.int64)
    g, u, finite = par.marginals(
        np.array([1.0, -1.0, 2.0]), np.zeros(3), np.ones(3), user_start, split
    )
    assert not finite and np.isinf(g[:2]).all() and np.isinf(u[:2]).all() and np.isfinite(g[2])


@pytest.mark.skipif(
    numba.config.NUMBA_NUM_THREADS < 2, reason="one numba thread: every problem is one chunk"
)
@pytest.mark.parametrize(
    "case", ["alpha 1", "alpha 2 with caps", "time-shared", "per-server alpha"]
)
def test_the_parallel_path_solves_as_the_serial_one(case):
    """Whole solves split over the threads (every size, here) against the serial path: the same
    totals to rounding (a user's split over servers may differ where the equilibrium leaves it
    free), the same equilibrium quality."""
    cluster = random_cluster(7, 60, 8, 3)
    options = {}
    alpha = 1.0
    if case == "alpha 2 with caps":  # every third user capped at a little under its uncapped total
        alpha = 2.0
        uncapped = pi.pfvds_interior_point(cluster, alpha).tasks.sum(axis=1)
        cluster = replace(
            cluster, max_tasks=np.where(np.arange(cluster.n_users) % 3 == 0, 0.8 * uncapped, np.inf)
        )
    elif case == "time-shared":
        options["time_shared"] = True
    elif case == "per-server alpha":
        alpha = np.array([0.5, 1.0, 2.0, 1.0, 0.5, 2.0, 1.0, 3.0])
    serial = pi.pfvds_interior_point(cluster, alpha, **options)
    with parallel_from(0):
        system = pi._pair_system(
            cluster, pi._alphas_per_server(cluster, alpha), options.get("time_shared", False)
        )
        assert system.parallel
        split = pi.pfvds_interior_point(cluster, alpha, **options)
    assert serial.diagnostics["converged"] and split.diagnostics["converged"]
    np.testing.assert_allclose(split.tasks.sum(axis=1), serial.tasks.sum(axis=1), rtol=1e-8)
    assert cluster.feasible(split.tasks, tol=1e-12)
    serial = pfvds(cluster, alpha, **options)  # and the interior point and its certificate together
    with parallel_from(0):
        split = pfvds(cluster, alpha, **options)
    np.testing.assert_allclose(split.tasks.sum(axis=1), serial.tasks.sum(axis=1), rtol=1e-8)
    assert split.diagnostics["converged"]
    if case == "alpha 2 with caps":  # certified by Definition 6's inequality over the capped set
        assert split.diagnostics["variational_gap"] <= CAPPED_GAP
    else:
        assert split.diagnostics["nash_residual"] < 1e-7


@pytest.mark.skipif(
    numba.config.NUMBA_NUM_THREADS < 2, reason="one numba thread: the certificate runs serially"
)
@pytest.mark.parametrize("alpha", [1.0, 4.0])
def test_the_threaded_certificate_is_the_serial_one(alpha, monkeypatch):
    """The Nash residual with the servers' best responses on the threads equals the serial loop's,
    bit for bit, at an equilibrium and away from it."""
    module = sys.modules["fairlib.multires.pfvds._best_response"]
    pools = []

    class Recorded(module.ThreadPoolExecutor):
        def __init__(self, workers):
            pools.append(workers)
            super().__init__(workers)

    monkeypatch.setattr(module, "ThreadPoolExecutor", Recorded)
    cluster = random_cluster(11, 40, 9, 3)
    tasks = pfvds(cluster, alpha).tasks
    for x in (tasks, tasks * np.random.default_rng(0).uniform(0.5, 1.0, tasks.shape)):
        serial = nash_residual(cluster, x, alpha)
        assert not pools
        with parallel_from(0):
            threaded = nash_residual(cluster, x, alpha)
        assert pools.pop() >= 2 and threaded == serial
