"""Experiment drivers for the feldman2005 notebook (EC'05 §5): sweeps over users and seeds."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .. import metrics
from .._validate import InvalidInputError
from .dynamics import run_dynamics
from .equilibrium import equilibrium_violation
from .game import Game, allocation, correlated_preferences, social_optimum, uniform_preferences, weight_proportional_bids

__all__ = ["outcome_metrics", "infinite_parallelism_sweep", "finite_parallelism_sweep",
           "finite_efficiency_trajectories", "PREFERENCES"]

PREFERENCES = {"uniform": uniform_preferences, "correlated": correlated_preferences,
               "correlated_unnormalised": lambda rng, m, n: correlated_preferences(rng, m, n, normalize=False)}


def outcome_metrics(weights, shares, optimum: float, parallelism=None) -> dict:
    """Efficiency, utility uniformity and envy-freeness of one allocation."""
    u = metrics.utilities(weights, shares, parallelism)
    return {"efficiency": metrics.efficiency(u.sum(), optimum), "uniformity": metrics.utility_uniformity(u),
            "envy_freeness": metrics.envy_freeness(weights, shares, parallelism)}


def _seeds(rng, count):
    return np.random.SeedSequence(np.random.default_rng(rng).integers(2**63)).spawn(count)


def infinite_parallelism_sweep(users, seeds: int, rng, *, preference: str = "uniform", n_machines: int = 100,
                               reserve: float = 1e-6, order: str = "sequential", step: float = 0.01,
                               gap_tol: float = 0.05, progress: bool = False) -> pd.DataFrame:
    """EC Fig. 2 (arXiv Fig. 3): for each number of users and seed, best response and local greedy from
    weight-proportional bids, plus the social optimum and weight-proportional baselines.

    One row per (users, seed, mechanism) with ``iterations`` (convergence; the cap when not converged),
    ``converged``, ``stabilised``, and the outcome metrics; mechanisms: best_response, local_greedy,
    social_optimum, weight_proportional.
    """
    from tqdm.auto import tqdm

    if preference not in PREFERENCES:
        raise InvalidInputError(f"preference = {preference!r}: must be one of {sorted(PREFERENCES)}")
    rows = []
    cells = [(u, s) for u in users for s in range(seeds)]
    for (u, s), seed in tqdm(list(zip(cells, _seeds(rng, len(cells)))), disable=not progress, leave=False,
                             desc=preference):
        w = PREFERENCES[preference](seed, int(u), n_machines)
        game = Game(w, reserve=reserve)
        opt = game.optimum()
        base = {"users": int(u), "seed": s, "preference": preference}
        for method in ("best_response", "local_greedy"):
            res = run_dynamics(game, method, order=order, step=step, gap_tol=gap_tol,
                               rng=np.random.default_rng(seed.spawn(1)[0]))
            r = allocation(res.bids, reserve)
            rows.append({**base, "mechanism": method, "iterations": res.iterations, "converged": res.converged,
                         "stabilised": res.stabilised, "residual": equilibrium_violation(w, res.bids, reserve),
                         **outcome_metrics(w, r, opt)})
        r_opt, _ = social_optimum(w)
        rows.append({**base, "mechanism": "social_optimum", **outcome_metrics(w, r_opt, opt)})
        rows.append({**base, "mechanism": "weight_proportional",
                     **outcome_metrics(w, allocation(weight_proportional_bids(w)), opt)})
    return pd.DataFrame(rows)


def _finite_cell(u, s, seed, delta, n_machines, reserve, burn_in):
    u = int(u)
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
    return {"users": u, "seed": s, "delta": delta, "competition": u * delta / n_machines,
            "iterations": res.iterations, "converged": res.converged,
            "swaps_per_call": float(res.swaps[1:].sum() / calls),
            "calls_within_two_swaps": float(1 - res.swaps_over_two[1:].sum() / calls), **m}


def finite_parallelism_sweep(users, seeds: int, rng, *, delta: int, n_machines: int = 100, reserve: float = 1e-6,
                             burn_in: int = 10, n_jobs: int = 1, progress: bool = False) -> pd.DataFrame:
    """EC Figs. 4 and 6: best response by local search with parallelism bound ``delta``, uniform preferences.

    One row per (users, seed): convergence iteration (200 = not converged), mean local-search swaps per
    best-response call and the share of calls that stopped within two swaps, and efficiency / uniformity / envy-freeness —
    at convergence, or (as the paper does when the system does not converge) the minimum over the
    iterations after ``burn_in``. Also the competitors-per-machine ratio δ = m Δ / n.
    """
    cells = [(u, s) for u in users for s in range(seeds)]
    tasks = [(u, s, seed, delta, n_machines, reserve, burn_in) for (u, s), seed in zip(cells, _seeds(rng, len(cells)))]
    return pd.DataFrame(_map(_finite_cell, tasks, n_jobs, progress, f"delta={delta}"))


def _map(fn, tasks, n_jobs, progress, desc):
    """Run ``fn(*task)`` for every task, serially or on ``n_jobs`` local processes (order preserved).

    Each task carries its own child seed, so the results do not depend on scheduling or worker count.
    """
    from tqdm.auto import tqdm

    if n_jobs == 1:
        return [fn(*t) for t in tqdm(tasks, disable=not progress, leave=False, desc=desc)]
    from joblib import Parallel, delayed

    return Parallel(n_jobs=n_jobs)(delayed(fn)(*t) for t in tqdm(tasks, disable=not progress, leave=False, desc=desc))


def _trajectory_cell(label: dict, seed, users, delta, n_machines, reserve, iterations):
    game = Game(uniform_preferences(seed, users, n_machines), parallelism=delta, reserve=reserve)
    res = run_dynamics(game, max_iter=iterations, stop_at_convergence=False)
    return [{**label, "iteration": t, "efficiency": e} for t, e in enumerate(res.efficiency)]


def finite_efficiency_trajectories(configs, seeds: int, rng, *, n_machines: int = 100, reserve: float = 1e-6,
                                   iterations: int = 100, n_jobs: int = 1) -> pd.DataFrame:
    """EC Fig. 5: efficiency over iterations for each (delta, users) in ``configs``, ``seeds`` runs each
    (local-search best response, uniform preferences, run for ``iterations`` whether or not it converges)."""
    tasks = []
    for c, cseed in zip(configs, _seeds(rng, len(configs))):
        delta, users = c
        for s, seed in enumerate(cseed.spawn(seeds)):
            tasks.append(({"delta": delta, "users": users, "seed": s}, seed, users, delta, n_machines, reserve,
                          iterations))
    return pd.DataFrame([row for rows in _map(_trajectory_cell, tasks, n_jobs, False, "fig5") for row in rows])
