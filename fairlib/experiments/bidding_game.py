"""Experiment drivers for the feldman2005 notebook (EC'05 §5): sweeps over users and seeds."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .. import metrics
from .._validate import InvalidInputError, check_choice
from ..market.dynamics import run_dynamics
from ..market.equilibrium import equilibrium_violation, proportional_guarantee_bids
from ..market.game import (Game, allocation, correlated_preferences, social_optimum, uniform_preferences,
                           weight_proportional_bids)
from ..sweep import sweep

__all__ = ["settling_iteration", "median_by_users", "outcome_metrics", "infinite_parallelism_sweep",
           "finite_parallelism_sweep", "finite_efficiency_trajectories", "efficiency_over_time",
           "proportional_guarantee_runs", "PREFERENCES"]

PREFERENCES = {"uniform": uniform_preferences, "correlated": correlated_preferences,
               "correlated_unnormalised": lambda rng, m, n: correlated_preferences(rng, m, n, normalize=False)}


#: best response continued from the paper's stopping point until utilities change by less than this (Nash
#: residual ~1e-8 on the notebook's instances), at most TIGHT_MAX_ITER more rounds
TIGHT_EPS = 1e-12
TIGHT_MAX_ITER = 5000


def outcome_metrics(weights, shares, optimum: float, parallelism=None) -> dict:
    """Efficiency, utility uniformity and envy-freeness of one allocation."""
    u = metrics.utilities(weights, shares, parallelism)
    return {"efficiency": metrics.efficiency(u.sum(), optimum), "uniformity": metrics.utility_uniformity(u),
            "envy_freeness": metrics.envy_freeness(weights, shares, parallelism)}


def _sweep_options(n_jobs, backend, progress, desc):
    return dict(n_jobs=n_jobs, backend=backend, progress=progress, desc=desc)


def _infinite_cell(seed, users, preference, order, step, n_machines, reserve, gap_tol):
    w = PREFERENCES[preference](seed, int(users), n_machines)
    game = Game(w, reserve=reserve)
    opt = game.optimum()
    dynamics_seed = np.random.SeedSequence(seed.entropy, spawn_key=tuple(seed.spawn_key) + (1,))
    rows = []
    for method in ("best_response", "local_greedy"):
        res = run_dynamics(game, method, order=order, step=step, gap_tol=gap_tol,
                           rng=np.random.default_rng(dynamics_seed))
        r = allocation(res.bids, reserve)
        rows.append({"mechanism": method, "iterations": res.iterations, "converged": res.converged,
                     "stabilised": res.stabilised, "residual": equilibrium_violation(w, res.bids, reserve),
                     **outcome_metrics(w, r, opt)})
        if method == "best_response":
            # the paper's test (utility change < 0.001) stops short of the equilibrium: continue to a tight one
            tight = run_dynamics(game, method, order=order, initial_bids=res.bids, eps=TIGHT_EPS,
                                 max_iter=TIGHT_MAX_ITER, rng=np.random.default_rng(dynamics_seed))
            rows.append({"mechanism": "best_response_tight", "iterations": res.iterations + tight.iterations,
                         "converged": tight.converged, "stabilised": np.nan,
                         "residual": equilibrium_violation(w, tight.bids, reserve),
                         **outcome_metrics(w, allocation(tight.bids, reserve), opt)})
    r_opt, _ = social_optimum(w)
    rows.append({"mechanism": "social_optimum", **outcome_metrics(w, r_opt, opt)})
    proportional = allocation(weight_proportional_bids(w))
    rows.append({"mechanism": "weight_proportional", **outcome_metrics(w, proportional, opt)})
    return rows


def _as_list(value):
    return list(value) if isinstance(value, (list, tuple, np.ndarray)) else [value]


def infinite_parallelism_sweep(users, seeds: int, rng, *, preference: str = "uniform", n_machines: int = 100,
                               reserve: float = 1e-6, order="sequential", step=0.01,
                               gap_tol: float = 0.05, progress: bool = False, n_jobs: int | None = None,
                               backend: str | None = None) -> pd.DataFrame:
    """EC Fig. 2 (arXiv Fig. 3): for each number of users and seed, best response and local greedy from
    weight-proportional bids, plus the social optimum and weight-proportional baselines.

    ``order`` and ``step`` may be lists: every value runs on the same random instances (the seeds
    depend on ``users`` and ``preference`` only), so their effect is compared pairwise.

    One row per (users, order, step, seed, mechanism) with ``iterations`` (convergence; the cap when
    not converged), ``converged``, ``stabilised``, and the outcome metrics; mechanisms: best_response (stopped by
    the paper's test, utility change < 0.001), best_response_tight (continued from there to a tight equilibrium,
    ``residual`` = Nash residual), local_greedy, social_optimum, weight_proportional. Runs on
    :func:`fairlib.sweep.sweep`.
    """
    check_choice(preference, PREFERENCES, "preference")
    grid = {"users": [int(u) for u in users], "preference": [preference], "order": _as_list(order),
            "step": _as_list(step)}
    df = sweep(_infinite_cell, grid, seeds=seeds, rng=rng, seed_by=["users", "preference"],
               fixed=dict(n_machines=n_machines, reserve=reserve, gap_tol=gap_tol),
               **_sweep_options(n_jobs, backend, progress, preference))
    return df.rename(columns={"rep": "seed"})


def _finite_cell(seed, users, delta, n_machines, reserve, burn_in):
    u = int(users)
    w = uniform_preferences(seed, u, n_machines)
    k = min(delta, n_machines)
    game = Game(w, parallelism=k, reserve=reserve)
    res = run_dynamics(game, "best_response", record_bids=True)
    opt = res.optimum
    if res.converged:
        m = outcome_metrics(w, allocation(res.bids, reserve), opt, game.parallelism)
    else:
        snaps = [outcome_metrics(w, allocation(b, reserve), opt, game.parallelism)
                 for b in res.history[min(burn_in, len(res.history) - 1):]]
        m = {key: min(sn[key] for sn in snaps) for key in snaps[0]}
    calls = np.maximum(1, len(res.swaps) - 1) * u
    return {"competition": u * delta / n_machines,
            "iterations": res.iterations, "converged": res.converged,
            "swaps_per_call": float(res.swaps[1:].sum() / calls),
            "calls_within_two_swaps": float(1 - res.swaps_over_two[1:].sum() / calls), **m}


def finite_parallelism_sweep(users, seeds: int, rng, *, delta: int, n_machines: int = 100, reserve: float = 1e-6,
                             burn_in: int = 10, n_jobs: int | None = None, backend: str | None = None,
                             progress: bool = False) -> pd.DataFrame:
    """EC Figs. 4 and 6: best response by local search with parallelism bound ``delta``, uniform preferences.

    One row per (users, seed): convergence iteration (200 = not converged), mean local-search swaps per
    best-response call and the share of calls that stopped within two swaps, and efficiency / uniformity /
    envy-freeness —
    at convergence, or (as the paper does when the system does not converge) the minimum over the
    iterations after ``burn_in``. Also the competitors-per-machine ratio δ = m Δ / n.
    """
    df = sweep(_finite_cell, {"users": [int(u) for u in users], "delta": [int(delta)]}, seeds=seeds, rng=rng,
               fixed=dict(n_machines=n_machines, reserve=reserve, burn_in=burn_in),
               **_sweep_options(n_jobs, backend, progress, f"delta={delta}"))
    return df.rename(columns={"rep": "seed"})


def _trajectory_cell(seed, delta, users, n_machines, reserve, iterations):
    game = Game(uniform_preferences(seed, users, n_machines), parallelism=delta, reserve=reserve)
    res = run_dynamics(game, max_iter=iterations, stop_at_convergence=False)
    return [{"iteration": t, "efficiency": e} for t, e in enumerate(res.efficiency)]


def finite_efficiency_trajectories(configs, seeds: int, rng, *, n_machines: int = 100, reserve: float = 1e-6,
                                   iterations: int = 100, n_jobs: int | None = None,
                                   backend: str | None = None) -> pd.DataFrame:
    """EC Fig. 5: efficiency over iterations for each (delta, users) in ``configs``, ``seeds`` runs each
    (local-search best response, uniform preferences, run for ``iterations`` whether or not it converges)."""
    grid = [{"delta": int(d), "users": int(u)} for d, u in configs]
    df = sweep(_trajectory_cell, grid, seeds=seeds, rng=rng,
               fixed=dict(n_machines=n_machines, reserve=reserve, iterations=iterations),
               **_sweep_options(n_jobs, backend, False, "fig5"))
    return df.rename(columns={"rep": "seed"})


def _efficiency_over_time_cell(seed, users, n_machines, reserve, max_iter, order):
    game = Game(uniform_preferences(seed, users, n_machines), reserve=reserve)
    dynamics_seed = np.random.SeedSequence(seed.entropy, spawn_key=tuple(seed.spawn_key) + (1,))
    rows = []
    for method in ("best_response", "local_greedy"):
        res = run_dynamics(game, method, order=order, rng=np.random.default_rng(dynamics_seed), max_iter=max_iter,
                           stop_at_convergence=False)
        rows += [{"mechanism": method, "iteration": t, "efficiency": e} for t, e in enumerate(res.efficiency)]
    return rows


def efficiency_over_time(users: int, seeds: int, rng, *, n_machines: int = 100, reserve: float = 1e-6,
                         max_iter: int = 100, order: str = "random", n_jobs: int | None = None,
                         backend: str | None = None) -> pd.DataFrame:
    """EC Fig. 3: welfare efficiency per iteration of best response and local greedy (infinite
    parallelism, uniform preferences), both from the same instance in each run, run for ``max_iter``
    iterations whether or not they converge. One row per (seed, mechanism, iteration)."""
    df = sweep(_efficiency_over_time_cell, {"users": [int(users)]}, seeds=seeds, rng=rng,
               fixed=dict(n_machines=n_machines, reserve=reserve, max_iter=max_iter, order=order),
               **_sweep_options(n_jobs, backend, False, "fig3"))
    return df.rename(columns={"rep": "seed"})


def _guarantee_cell(seed, reserve):
    g = np.random.default_rng(seed)
    m_users = int(g.integers(2, 30))
    w = uniform_preferences(g, m_users, int(g.integers(2, 20)))
    res = run_dynamics(Game(w, reserve=reserve), order="random", rng=g)
    others = res.bids.sum(axis=0) - res.bids[0]
    prop = proportional_guarantee_bids(others)
    return {"users": m_users, "min_utility_times_m": res.utilities[-1].min() * m_users,
            "proportional_share_times_m": (prop / (prop + others)).min() * m_users}


def proportional_guarantee_runs(runs: int, rng, *, reserve: float = 1e-6, n_jobs: int | None = None,
                                backend: str | None = None) -> pd.DataFrame:
    """EC'05 §3.2 (1/m guarantee): random games (2-29 users, 2-19 machines, uniform preferences) run to
    equilibrium by best response; per run, m times the smallest equilibrium utility and m times user 0's
    guaranteed share from proportional bidding against the others' equilibrium bids. One row per run."""
    df = sweep(_guarantee_cell, [{}], seeds=runs, rng=rng, fixed=dict(reserve=reserve),
               **_sweep_options(n_jobs, backend, False, "guarantee"))
    return df.rename(columns={"rep": "run"})


def median_by_users(results, column: str):
    """Median of ``column`` per number of users (a Series indexed by ``users``): how Fig. 2's curves and the claims
    about them read a table of runs."""
    return results.groupby("users")[column].median()


def settling_iteration(curve, within: float = 0.01) -> int:
    """First iteration from which ``curve`` (a pandas Series indexed by iteration, e.g. a median efficiency per
    iteration) stays within ``within`` of its last value — when the curve has "got there" (EC Fig. 3).

    >>> import pandas as pd
    >>> settling_iteration(pd.Series([0.5, 0.8, 0.905, 0.908, 0.91], index=[0, 1, 2, 3, 4]))
    2
    """
    values = np.asarray(curve, dtype=np.float64)
    if values.ndim != 1 or values.size == 0 or not np.isfinite(values).all():
        raise InvalidInputError(f"curve: expected a non-empty 1-D series of finite values, got {values!r}")
    if not within >= 0:
        raise InvalidInputError(f"within = {within}: must be >= 0")
    off = np.abs(values - values[-1]) > within
    return int(curve.index[np.flatnonzero(off)[-1] + 1]) if off.any() else int(curve.index[0])
