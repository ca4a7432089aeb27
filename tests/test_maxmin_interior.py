"""DRFH / TSF rounds by the structured interior point, against HiGHS on the full LP
(differential)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairlib._validate import InvalidInputError
from fairlib.multires import Cluster, drfh, tsf
from fairlib.multires.cluster import random_cluster
from fairlib.multires.global_maxmin import (
    drfh_coefficients,
    tsf_coefficients,
    weighted_maxmin_totals,
)
from tests.test_heterogeneous import clusters


def _levels(cluster, q, tasks):
    return q * tasks.sum(axis=1) / cluster.weight


def _random_instances(count, seed):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        users, servers, resources = (int(rng.integers(1, k)) for k in (40, 8, 4))
        yield random_cluster(
            rng,
            users,
            servers,
            resources,
            eligible_fraction=float(rng.uniform(0.1, 1.0)),
            weights=bool(rng.random() < 0.5),
            server_types=min(int(rng.integers(1, 5)), servers),  # up to 4, each with a server
        )


def test_interior_point_matches_highs_on_random_clusters():
    """Same levels as the HiGHS reference. HiGHS keeps frozen levels only to 1e-7 (its feasibility
    tolerance), and later levels move with earlier ones (up to ~25x here), hence the 1e-5; the first
    level is tighter."""
    rounds = fallbacks = multi_round = 0
    for cluster in _random_instances(60, 2018):
        for q in (drfh_coefficients(cluster), tsf_coefficients(cluster)):
            ours, diag = weighted_maxmin_totals(cluster, q)
            ref, _ = weighted_maxmin_totals(cluster, q, method="highs")
            assert cluster.feasible(ours, tol=1e-9)
            mine, theirs = _levels(cluster, q, ours), _levels(cluster, q, ref)
            np.testing.assert_allclose(mine, theirs, rtol=1e-5)
            assert mine.min() == pytest.approx(theirs.min(), rel=2e-7)
            rounds += diag["rounds"]
            fallbacks += diag["highs_fallbacks"]
            multi_round += diag["rounds"] > 1
    assert multi_round >= 5  # later rounds (frozen users) are exercised
    assert fallbacks <= 0.05 * rounds  # and solved by the interior point, not its HiGHS fallback


@settings(max_examples=40, deadline=None)
@given(clusters(max_users=6))
def test_interior_point_matches_highs_on_small_integer_clusters(cluster):
    """Small integer instances are often fully degenerate (every row and user tight at the
    optimum)."""
    for q in (drfh_coefficients(cluster), tsf_coefficients(cluster)):
        ours, _ = weighted_maxmin_totals(cluster, q)
        ref, _ = weighted_maxmin_totals(cluster, q, method="highs")
        np.testing.assert_allclose(
            _levels(cluster, q, ours), _levels(cluster, q, ref), rtol=1e-5, atol=1e-12
        )


def test_fully_degenerate_second_round():
    """Second round with every capacity row and user row tight at the optimum: the reduced matrix
    alone is singular there (the free level t covers the missing direction); the interior point
    still solves it."""
    c = Cluster(
        [[1.0, 1.0], [1.0, 1.0]],
        [[1.0, 0.0], [0.0, 3.0], [1.0, 4.0]],
        weight=[1, 1, 2],
        eligible=[[1, 0], [1, 0], [1, 1]],
    )
    res = drfh(c)
    assert res.diagnostics["rounds"] == 2 and res.diagnostics["highs_fallbacks"] == 0
    # by hand: users 1 and 2 share server 0's second resource at level 1/3 (user 2 fills server 1
    # first), user 0 takes what remains of server 0's first resource
    np.testing.assert_allclose(res.totals, [11 / 12, 2 / 9, 1 / 3], rtol=1e-9)
    np.testing.assert_allclose(
        res.totals, drfh(c, method="highs").totals, rtol=1e-6
    )  # HiGHS: to 1e-7 per round


def test_one_round_freezes_every_blocked_user():
    """Strict complementarity: at 1,000 users x 100 servers every user is blocked at the first
    level, and the interior point freezes them all in its single round."""
    c = random_cluster(2018, 300, 30, 3)
    res = tsf(c)
    assert res.diagnostics["rounds"] == 1 and res.diagnostics["highs_fallbacks"] == 0
    assert res.diagnostics["largest_residual"] <= 1e-9
    levels = _levels(c, tsf_coefficients(c), res.tasks)
    assert levels.max() - levels.min() <= 1e-9 * levels.max()


def test_method_and_tolerance_are_validated():
    c = Cluster([[9, 18]], [[1, 4], [3, 1]])
    with pytest.raises(InvalidInputError, match="method = 'simplex'"):
        drfh(c, method="simplex")
    with pytest.raises(InvalidInputError, match=r"options\['tol'\] = 0"):
        tsf(c, options={"tol": 0})
    with pytest.raises(
        InvalidInputError, match=r"options\['tolerance'\]: not an option of method='highs'"
    ):
        tsf(c, method="highs", options={"tolerance": 1e-9})
    assert drfh(c, method="highs").diagnostics["method"] == "highs"
    assert drfh(c).diagnostics["method"] == "interior_point"


def test_tsf_coefficients_use_every_server_with_the_needed_resources():
    """γ_n sums the monopoly tasks over every server that has the resources n demands, placement
    ignored."""
    rng = np.random.default_rng(5)
    for _ in range(30):
        cap = rng.uniform(1, 10, size=(5, 3)) * (rng.random((5, 3)) > 0.2)
        cap[:, 0] = np.maximum(cap[:, 0], 1.0)
        cap[0] = np.maximum(cap[0], 1.0)  # server 0 has everything: every user stays usable
        dem = rng.uniform(0.1, 1, size=(8, 3)) * (rng.random((8, 3)) > 0.3)
        dem[:, 0] = np.maximum(dem[:, 0], 0.1)
        eligible = rng.random((8, 5)) < 0.5
        eligible[:, 0] = True
        c = Cluster(cap, dem, eligible=eligible)
        everywhere = Cluster(cap, dem)
        np.testing.assert_allclose(
            tsf_coefficients(c), 1.0 / everywhere.gamma.sum(axis=1), rtol=1e-12
        )


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 4), st.integers(1, 6), st.integers(1, 3), st.integers(0, 2**32 - 1))
def test_the_solvers_fused_kernels_round_as_numpy_does(chunks, rows, depth, seed):
    """The interior point's Python orchestration calls small kernels for its per-pair arithmetic and
    chunk sums; each must give NumPy's expression bit for bit (so moving code between the two
    changes no result)."""
    from fairlib.multires._engine import maxmin_interior as mi
    from fairlib.multires._engine.pair_kernels import sum_chunks

    rng = np.random.default_rng(seed)
    parts = rng.normal(size=(chunks,) + (rows,) * depth) * 10.0 ** rng.integers(
        -8, 8, size=(chunks,) + (1,) * depth
    )
    assert (
        sum_chunks(parts.reshape(chunks, -1)).reshape(parts.shape[1:]).tobytes()
        == parts.sum(axis=0).tobytes()
    )
    n = rows * 7
    x, z, dx, dz, rxz, e_d, r_dual = (
        rng.normal(size=n) * 10.0 ** rng.integers(-6, 6) for _ in range(7)
    )
    dx[rng.random(n) < 0.2] = 0.0
    x, z = np.abs(x), np.abs(z)
    user_start = np.unique(np.concatenate([[0, n], rng.integers(0, n, size=chunks + 2)])).astype(
        np.int64
    )
    n_users = len(user_start) - 1
    split = np.unique(
        np.concatenate([[0, n_users], rng.integers(0, n_users + 1, size=chunks - 1)])
    ).astype(np.int64)
    target = float(rng.uniform(0.0, 1.0))
    tp, td = (float(rng.uniform(0.0, 1.0)) for _ in range(2))
    for kernels in (mi._SERIAL, mi._PARALLEL):
        # outputs go into the solve's workspace: every entry is overwritten (a stale NaN would fail
        # the comparison)
        out = np.full(n, np.nan)
        assert (
            kernels._pair_products(x, z, user_start, split, out) is out
            and out.tobytes() == (x * z).tobytes()
        )
        out = np.full(n, np.nan)
        assert kernels._complementarity(x, z, dx, dz, target, user_start, split, out) is out
        assert out.tobytes() == (x * z + dx * dz - target).tobytes()
        assert kernels._pair_step_lengths(x, dx, z, dz, user_start, split) == (
            mi._step(x, dx),
            mi._step(z, dz),
            mi._all_finite(dx) and mi._all_finite(dz),
        )
        for bad in (np.nan, np.inf, -np.inf):
            broken = dz.copy()
            broken[int(rng.integers(n))] = bad
            assert kernels._pair_step_lengths(x, dx, z, broken, user_start, split)[2] is False
            broken = dx.copy()
            broken[int(rng.integers(n))] = bad
            assert kernels._pair_step_lengths(x, broken, z, dz, user_start, split)[2] is False
        # the dual residual's largest magnitude is np.abs(dual).max(), a NaN included
        servers, kk = 3, 2
        pair_server = rng.integers(0, servers, n).astype(np.int32)
        dem, inv_cap = rng.random((n_users, kk)), rng.random((servers, kk))
        row_of = np.arange(servers * kk, dtype=np.int64).reshape(servers, kk)
        row_of[0, 1] = -1
        y, u = rng.random(servers * kk), rng.random(n_users)
        for dual_z in (z, np.where(rng.random(n) < 0.1, np.nan, z)):
            parts = kernels._linear_parts(
                x,
                y,
                u,
                dual_z,
                user_start,
                pair_server,
                dem,
                inv_cap,
                row_of,
                split,
                servers * kk,
                np.full(n, np.nan),
            )
            expected = np.abs(parts[2]).max()
            assert parts[4] == expected or (np.isnan(parts[4]) and np.isnan(expected))
        moved_x, moved_z = x.copy(), z.copy()
        kernels._pair_advance(moved_x, dx, tp, moved_z, dz, td, user_start, split)
        assert (
            moved_x.tobytes() == (x + tp * dx).tobytes()
            and moved_z.tobytes() == (z + td * dz).tobytes()
        )
        residual = e_d.copy()
        e_xz = kernels._pair_refinement_residuals(
            residual, r_dual, z, dx, x, dz, rxz, user_start, split
        )
        assert (
            residual.tobytes() == (e_d + r_dual).tobytes()
            and e_xz.tobytes() == (z * dx + x * dz + rxz).tobytes()
        )
        summed_x, summed_z = dx.copy(), dz.copy()
        kernels._pair_add(summed_x, x, summed_z, z, user_start, split)
        assert summed_x.tobytes() == (dx + x).tobytes() and summed_z.tobytes() == (dz + z).tobytes()
    assert (
        mi._all_finite(x)
        and not mi._all_finite(np.append(x, np.nan))
        and not mi._all_finite(np.append(x, -np.inf))
    )


def test_large_normal_matrices_use_the_numba_threads_for_blas(monkeypatch):
    """Above THREADED_BLAS_FLOPS the normal matrix's product and factorisation run BLAS on the numba
    loops' threads; the allocation is the one-thread one up to the solver's tolerance (below it
    nothing changes, bit for bit)."""
    from fairlib.multires._engine import maxmin_interior

    cluster = random_cluster(5, 600, 60, 3)  # above PARALLEL_PAIRS: the parallel kernels run
    one_thread = drfh(cluster).tasks
    used = []
    real = maxmin_interior.blas_threads

    def spy(n):
        used.append(n)
        return real(n)

    monkeypatch.setattr(maxmin_interior, "THREADED_BLAS_FLOPS", 0.0)
    monkeypatch.setattr(maxmin_interior, "blas_threads", spy)
    threaded = drfh(cluster).tasks
    assert used and all(n >= 1 for n in used)
    np.testing.assert_allclose(threaded, one_thread, rtol=1e-6, atol=1e-6)
