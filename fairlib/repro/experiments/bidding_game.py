"""Experiment drivers for the feldman2005 notebook (EC'05 §5): sweeps over users and seeds."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations
from typing import cast

import numpy as np
import numpy.typing as npt
import pandas as pd

from ... import metrics
from ..._validate import (
    as_table,
    as_counts,
    MAX_ITERATIONS,
    TOL_MIN,
    InvalidInputError,
    _short,
    as_amount,
    as_count,
    as_instance,
    as_number,
    as_tolerance,
    as_values,
    check_choice,
    as_sequence,
)
from ...market.dynamics import ORDERS, run_dynamics
from ...market.best_response import best_response, best_response_finite, utility
from ...market.equilibrium import (
    equilibrium_violation,
    proportional_guarantee_bids,
    two_player_equilibria,
    two_player_equilibria_numeric,
)
from ...market.game import (
    Game,
    allocation,
    correlated_preferences,
    social_optimum,
    uniform_preferences,
    weight_proportional_bids,
)
from ..ledger import Measurement
from ...sweep import sweep

__all__ = [
    "settling_iteration",
    "median_by_users",
    "outcome_metrics",
    "infinite_parallelism_sweep",
    "finite_parallelism_sweep",
    "finite_efficiency_trajectories",
    "efficiency_over_time",
    "proportional_guarantee_runs",
    "PREFERENCES",
    "infinite_parallelism_findings",
    "efficiency_over_time_findings",
    "finite_parallelism_findings",
    "finite_convergence",
    "two_player_findings",
    "theorem3_findings",
    "random_two_player_games",
    "local_search_swaps_per_call",
    "two_player_fixed_points",
    "CERTIFIED_RESIDUAL",
    "local_search_vs_exhaustive",
    "local_search_conjecture_findings",
]

PREFERENCES = {
    "uniform": uniform_preferences,
    "correlated": correlated_preferences,
    "correlated_unnormalised": lambda rng, m, n: correlated_preferences(rng, m, n, normalize=False),
}


#: best response continued from the paper's stopping point until utilities change by less than this
#: (Nash residual ~1e-8 on the notebook's instances), at most TIGHT_MAX_ITER more rounds
TIGHT_EPS = 1e-12
TIGHT_MAX_ITER = 5000
#: a stopping point whose Nash residual (largest relative violation of condition (1),
#: :func:`fairlib.market.equilibrium_violation`) is at most this is taken as a certified equilibrium
CERTIFIED_RESIDUAL = 1e-6


#: the most users, machines, seeds or runs a sweep of this driver takes: about 100 times the
#: notebook's full sizes (150 users on 100 machines, 10 seeds, 200 games); more is a typo that
#: would run for days
MAX_USERS = MAX_MACHINES = MAX_RUNS = 10_000
#: the most machines of :func:`local_search_vs_exhaustive`, whose brute force tries every set of k
#: of them (C(20, 10) = 184,756 sets; the notebook: 10 machines)
MAX_EXHAUSTIVE_MACHINES = 20
#: the finest grid of :func:`two_player_fixed_points` (the notebook: 400): with 3 machines it
#: starts ``fsolve`` from about grid / 8 points
MAX_FIXED_POINT_GRID = 10_000
#: the most values of α :func:`two_player_findings` cross-checks (each solves for the equilibria
#: twice; the notebook: 7)
MAX_CHECK_ALPHAS = 1_000
#: what a reserve bid is measured against: every game of this driver gives its users budget 1
_BUDGET = "a user's budget (1)"


def _reserve(reserve: float) -> float:
    """The reserve bid of a game of this driver: > 0 (the dynamics need it) and within
    :data:`fairlib._validate.MONEY_RATIO` of the users' budget 1."""
    return as_amount(reserve, "reserve", scale=1.0, of=_BUDGET)


#: damped best response, the second method where continued best response cycles: the share of the
#: way each user moves to its best response per round, and the most rounds
DAMPING = 0.5
DAMPED_MAX_ITER = 5000


def damped_best_response(
    game: Game,
    bids: npt.ArrayLike,
    *,
    damping: float = DAMPING,
    max_iter: int = DAMPED_MAX_ITER,
    tol: float = 1e-9,
    check_every: int = 10,
) -> np.ndarray:
    """Sequential damped best response (infinite parallelism): each user in turn moves ``damping``
    of the way from its bids to its best response (:func:`fairlib.market.best_response`) against the
    others' bids plus the reserve, until the Nash residual
    (:func:`fairlib.market.equilibrium_violation`, read every ``check_every`` rounds) is at most
    ``tol`` or ``max_iter`` rounds have run. Plain best response can cycle; a damped step can settle
    where it does. Returns the bids (the caller certifies them by their residual)."""
    if not 0 < damping <= 1:
        raise InvalidInputError(f"damping = {damping}: must be in (0, 1]")
    x = np.array(bids, dtype=np.float64)
    w, budgets, reserve = game.weights, game.budgets, game.reserve
    for t in range(int(max_iter)):
        for i in range(w.shape[0]):
            y = x.sum(axis=0) - x[i] + reserve
            x[i] = (1 - damping) * x[i] + damping * best_response(w[i], y, budgets[i])
        if (t + 1) % check_every == 0 and equilibrium_violation(w, x, reserve) <= tol:
            break
    return x


def outcome_metrics(
    weights: npt.ArrayLike,
    shares: npt.ArrayLike,
    optimum: float,
    parallelism: npt.ArrayLike | None = None,
) -> dict[str, float]:
    """Efficiency, utility uniformity and envy-freeness of one allocation.

    Parameters
    ----------
    weights : array_like, shape (n_users, n_machines)
        The users' preference weights.
    shares : array_like, shape (n_users, n_machines)
        The allocation's shares of each machine.
    optimum : float
        The social optimum's welfare: > 0, at least the allocation's welfare and at most
        Σ_j max_i weights[i, j] (every machine to a user who values it most), up to a relative
        rounding of :data:`fairlib.metrics.WELFARE_SLACK`.
    parallelism : array_like of int, shape (n_users,), optional
        Machines each user can use at once (None: infinite parallelism).

    Returns
    -------
    dict of str to float
        ``efficiency`` (welfare over the optimum), ``uniformity`` and ``envy_freeness``.

    Raises
    ------
    InvalidInputError
        When the matrices or ``parallelism`` are not valid (:func:`fairlib.metrics.utilities`), or
        ``optimum`` is out of its range.
    """
    u = metrics.utilities(weights, shares, parallelism)
    optimum = as_number(optimum, "optimum")
    # no allocation's welfare exceeds giving every machine to a user who values it most
    most = float(np.asarray(weights, dtype=np.float64).max(axis=0).sum())
    if optimum > most * (1 + metrics.WELFARE_SLACK):
        raise InvalidInputError(
            f"optimum = {optimum!r}: above {most!r}, the welfare of every machine given to a user "
            "who values it most"
        )
    return {
        "efficiency": metrics.efficiency(u.sum(), optimum),
        "uniformity": metrics.utility_uniformity(u),
        "envy_freeness": metrics.envy_freeness(weights, shares, parallelism),
    }


def _sweep_options(n_jobs, backend, progress, desc):
    return dict(n_jobs=n_jobs, backend=backend, progress=progress, desc=desc)


def _infinite_cell(seed, users, preference, order, step, n_machines, reserve, gap_tol):
    """One Fig. 2 instance (a seeded preference matrix of ``users`` on ``n_machines``): best
    response at the paper's test and continued until tight (certified, where it cycles, by damped
    best response), local greedy with ``step``, weight-proportional bids and the social optimum; one
    row per mechanism with its efficiency, fairness metrics, iterations and Nash residual."""
    w = PREFERENCES[preference](seed, int(users), n_machines)
    game = Game(w, reserve=reserve)
    opt = game.optimum()
    dynamics_seed = np.random.SeedSequence(seed.entropy, spawn_key=tuple(seed.spawn_key) + (1,))
    rows = []
    for method in ("best_response", "local_greedy"):
        # each rule is given only the options it reads (run_dynamics refuses the others)
        res = run_dynamics(
            game,
            method,
            order=order,
            **(dict(step=step, gap_tol=gap_tol) if method == "local_greedy" else {}),
            rng=np.random.default_rng(dynamics_seed) if order == "random" else None,
        )
        r = allocation(res.bids, reserve)
        rows.append(
            {
                "mechanism": method,
                "iterations": res.iterations,
                "converged": res.converged,
                "stabilised": res.stabilised,
                "residual": equilibrium_violation(w, res.bids, reserve),
                **outcome_metrics(w, r, opt),
            }
        )
        if method == "best_response":
            # the paper's test (utility change < 0.001) stops short of the equilibrium: continue to
            # a tight one
            tight = run_dynamics(
                game,
                method,
                order=order,
                initial_bids=res.bids,
                eps=TIGHT_EPS,
                max_iter=TIGHT_MAX_ITER,
                rng=np.random.default_rng(dynamics_seed) if order == "random" else None,
            )
            residual = equilibrium_violation(w, tight.bids, reserve)
            # Theorem 1 (existence), instance by instance: where best response cycles, damped best
            # response from its last bids is a second method; ``certified_residual`` is the residual
            # of whichever stopped last
            certified = (
                residual
                if residual <= CERTIFIED_RESIDUAL
                else equilibrium_violation(w, damped_best_response(game, tight.bids), reserve)
            )
            rows.append(
                {
                    "mechanism": "best_response_tight",
                    "iterations": res.iterations + tight.iterations,
                    "converged": tight.converged,
                    "stabilised": np.nan,
                    "residual": residual,
                    "certified_residual": certified,
                    **outcome_metrics(w, allocation(tight.bids, reserve), opt),
                }
            )
    r_opt, _ = social_optimum(w)
    rows.append({"mechanism": "social_optimum", **outcome_metrics(w, r_opt, opt)})
    proportional = allocation(weight_proportional_bids(w))
    rows.append({"mechanism": "weight_proportional", **outcome_metrics(w, proportional, opt)})
    return rows


def _is_list(value):
    return isinstance(value, (list, tuple, np.ndarray))


def _as_list(value):
    return list(value) if _is_list(value) else [value]


def infinite_parallelism_sweep(
    users: Iterable[int],
    seeds: int,
    rng: int | np.random.SeedSequence,
    *,
    preference: str = "uniform",
    n_machines: int = 100,
    reserve: float = 1e-6,
    order: str | list[str] = "sequential",
    step: float | list[float] = 0.01,
    gap_tol: float = 0.05,
    progress: bool = False,
    n_jobs: int | None = None,
    backend: str | None = None,
) -> pd.DataFrame:
    """EC Fig. 2 (arXiv Fig. 3): for each number of users and seed, best response and local greedy
    from weight-proportional bids, plus the social optimum and weight-proportional baselines.

    ``order`` and ``step`` may be lists: every value runs on the same random instances (the seeds
    depend on ``users`` and ``preference`` only), so their effect is compared pairwise.

    One row per (users, order, step, seed, mechanism) with ``iterations`` (convergence; the cap when
    not converged), ``converged``, ``stabilised``, and the outcome metrics; mechanisms:
    best_response (stopped by the paper's test, utility change < 0.001), best_response_tight
    (continued from there to a tight equilibrium, ``residual`` = Nash residual;
    ``certified_residual``: the same, or where that is above :data:`CERTIFIED_RESIDUAL` the residual
    :func:`damped_best_response` reaches from there), local_greedy, social_optimum,
    weight_proportional. Runs on :func:`fairlib.sweep.sweep`.

    Parameters
    ----------
    users : iterable of int
        Numbers of users, each from 1 to :data:`MAX_USERS` (10,000).
    seeds : int
        Instances per number of users, from 1 to :data:`MAX_RUNS` (10,000).
    rng : int or numpy.random.SeedSequence
        The sweep's root seed (an integer >= 0 or a SeedSequence).
    preference : {"uniform", "correlated", "correlated_unnormalised"}, default "uniform"
        The preference model (:data:`PREFERENCES`).
    n_machines : int, default 100
        Machines, from 1 to :data:`MAX_MACHINES` (10,000).
    reserve : float, default 1e-6
        The reserve bid of the perturbed game, > 0 and within a factor 1e12 of the users' budget 1
        (:func:`fairlib._validate.as_amount`).
    order : str or list of str, default "sequential"
        Best response's update order(s), each of :data:`fairlib.market.dynamics.ORDERS`.
    step : float or list of float, default 0.01
        Local greedy's step(s), each a share of the budget from 1e-15 to 1
        (:func:`fairlib.market.run_dynamics`).
    gap_tol : float, default 0.05
        The gap at which an instance's best response counts as stabilised, a tolerance from 1e-15
        to 0.1.
    progress : bool, default False
        Show the sweep's progress bar.
    n_jobs : int, optional
        Local processes of the sweep.
    backend : {"serial", "loky", "dask"}, optional
        The sweep's backend.

    Returns
    -------
    pandas.DataFrame
        See above.

    Raises
    ------
    InvalidInputError
        When an argument is out of its range or not one of its choices, or a seed or sweep option
        is not one.
    """
    check_choice(preference, PREFERENCES, "preference")
    users = as_counts(users, "users", maximum=MAX_USERS)
    seeds = as_count(seeds, "seeds", maximum=MAX_RUNS)
    n_machines = as_count(n_machines, "n_machines", maximum=MAX_MACHINES)
    reserve = _reserve(reserve)
    orders, steps = _as_list(order), _as_list(step)
    for what, values in (("order", orders), ("step", steps)):
        if not values:
            raise InvalidInputError(f"{what} = []: empty (at least one value)")
    for i, o in enumerate(orders):
        check_choice(o, ORDERS, f"order[{i}]" if _is_list(order) else "order")
    for i, st in enumerate(steps):
        name = f"step[{i}]" if _is_list(step) else "step"
        as_number(st, name, minimum=TOL_MIN, inclusive=True, maximum=1.0)
    gap_tol = as_tolerance(gap_tol, "gap_tol")
    grid = {
        "users": users,
        "preference": [preference],
        "order": orders,
        "step": steps,
    }
    df = sweep(
        _infinite_cell,
        grid,
        seeds=seeds,
        rng=rng,
        seed_by=["users", "preference"],
        fixed=dict(n_machines=n_machines, reserve=reserve, gap_tol=gap_tol),
        **_sweep_options(n_jobs, backend, progress, preference),
    )
    return df.rename(columns={"rep": "seed"})


def local_search_swaps_per_call(game: Game, history: npt.ArrayLike) -> np.ndarray:
    """The improving swaps of every local-search call of a sequential best-response run under finite
    parallelism (EC §4.2), in call order: each round's calls are replayed against the prices the
    user faced, read from the recorded bids ``history`` (``run_dynamics(..., record_bids=True)``,
    sequential order), so every call is counted, including those after which the run stopped
    improving. The local search makes ``swaps + 1`` passes of its loop ("go to 2"): a call with at
    most one swap discovers its local maximum within two iterations.

    Parameters
    ----------
    game : Game
        The game, with finite parallelism.
    history : array_like, shape (rounds + 1, n_users, n_machines)
        The run's recorded bids, round by round.

    Returns
    -------
    numpy.ndarray of int64
        The swaps of each call, in call order.

    Raises
    ------
    InvalidInputError
        When ``game`` is not a Game, has infinite parallelism, or ``history`` is not a stack of
        bid matrices of the game's shape (finite, >= 0).
    """
    as_instance(game, Game, "game")
    if game.parallelism is None:
        raise InvalidInputError(
            "game: local search needs finite parallelism (game.parallelism is None)"
        )
    hist = as_values(history, "history", ndim=3, shape=(-1, *game.weights.shape))
    w, budgets, k = game.weights, game.budgets, game.parallelism
    out = []
    for t in range(1, hist.shape[0]):
        bids = hist[t - 1].copy()
        total = bids.sum(axis=0)
        for i in range(w.shape[0]):
            y = total - bids[i] + game.reserve
            out.append(best_response_finite(w[i], y, budgets[i], int(k[i])).swaps)
            total += hist[t, i] - bids[i]
            bids[i] = hist[t, i]
    return np.asarray(out, dtype=np.int64)


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
        snaps = [
            outcome_metrics(w, allocation(b, reserve), opt, game.parallelism)
            for b in res.history[min(burn_in, len(res.history) - 1) :]
        ]
        m = {key: min(sn[key] for sn in snaps) for key in snaps[0]}
    calls = np.maximum(1, len(res.swaps) - 1) * u
    per_call = local_search_swaps_per_call(game, res.history)
    return {
        "competition": u * delta / n_machines,
        "iterations": res.iterations,
        "converged": res.converged,
        "swaps_per_call": float(res.swaps[1:].sum() / calls),
        "calls_within_two_swaps": float(1 - res.swaps_over_two[1:].sum() / calls),
        "local_search_calls": int(per_call.size),
        "calls_within_two_iterations": int((per_call <= 1).sum()),
        **m,
    }


def finite_parallelism_sweep(
    users: Iterable[int],
    seeds: int,
    rng: int | np.random.SeedSequence,
    *,
    delta: int,
    n_machines: int = 100,
    reserve: float = 1e-6,
    burn_in: int = 10,
    n_jobs: int | None = None,
    backend: str | None = None,
    progress: bool = False,
) -> pd.DataFrame:
    """EC Figs. 4 and 6: best response by local search with parallelism bound ``delta``, uniform
    preferences.

    One row per (users, seed): convergence iteration (200 = not converged), mean local-search swaps
    per best-response call and the share of calls that stopped within two swaps, the number of
    local-search calls (``local_search_calls``, every call of the run) and how many of them found
    their local maximum within two iterations of the local search's loop, i.e. with at most one swap
    (``calls_within_two_iterations``, :func:`local_search_swaps_per_call`), and efficiency /
    uniformity / envy-freeness — at convergence, or (as the paper does when the system does not
    converge) the minimum over the iterations after ``burn_in``. Also the competitors-per-machine
    ratio δ = m Δ / n.

    Parameters
    ----------
    users : iterable of int
        Numbers of users, each from 1 to :data:`MAX_USERS` (10,000).
    seeds : int
        Instances per number of users, from 1 to :data:`MAX_RUNS` (10,000).
    rng : int or numpy.random.SeedSequence
        The sweep's root seed (an integer >= 0 or a SeedSequence).
    delta : int
        The parallelism bound Δ, from 1 to :data:`MAX_MACHINES` (capped at ``n_machines``).
    n_machines : int, default 100
        Machines, from 1 to :data:`MAX_MACHINES` (10,000).
    reserve : float, default 1e-6
        The reserve bid, > 0 and within a factor 1e12 of the users' budget 1.
    burn_in : int, default 10
        Iterations skipped before the minimum of a run that does not converge, an integer >= 0.
    n_jobs : int, optional
        Local processes of the sweep.
    backend : {"serial", "loky", "dask"}, optional
        The sweep's backend.
    progress : bool, default False
        Show the sweep's progress bar.

    Returns
    -------
    pandas.DataFrame
        See above.

    Raises
    ------
    InvalidInputError
        When a count or the reserve is out of its range, or a seed or sweep option is not one.
    """
    users = as_counts(users, "users", maximum=MAX_USERS)
    seeds = as_count(seeds, "seeds", maximum=MAX_RUNS)
    delta = as_count(delta, "delta", maximum=MAX_MACHINES)
    n_machines = as_count(n_machines, "n_machines", maximum=MAX_MACHINES)
    reserve = _reserve(reserve)
    burn_in = as_count(burn_in, "burn_in", minimum=0)
    df = sweep(
        _finite_cell,
        {"users": users, "delta": [delta]},
        seeds=seeds,
        rng=rng,
        fixed=dict(n_machines=n_machines, reserve=reserve, burn_in=burn_in),
        **_sweep_options(n_jobs, backend, progress, f"delta={delta}"),
    )
    return df.rename(columns={"rep": "seed"})


def _trajectory_cell(seed, delta, users, n_machines, reserve, iterations):
    game = Game(uniform_preferences(seed, users, n_machines), parallelism=delta, reserve=reserve)
    res = run_dynamics(game, max_iter=iterations, stop_at_convergence=False)
    return [{"iteration": t, "efficiency": e} for t, e in enumerate(res.efficiency)]


def finite_efficiency_trajectories(
    configs: Iterable[tuple[int, int]],
    seeds: int,
    rng: int | np.random.SeedSequence,
    *,
    n_machines: int = 100,
    reserve: float = 1e-6,
    iterations: int = 100,
    n_jobs: int | None = None,
    backend: str | None = None,
) -> pd.DataFrame:
    """EC Fig. 5: efficiency over iterations for each (delta, users) in ``configs``, ``seeds`` runs
    each (local-search best response, uniform preferences, run for ``iterations`` whether or not it
    converges).

    Parameters
    ----------
    configs : iterable of (int, int)
        ``(delta, users)`` pairs, at least one: Δ from 1 to ``n_machines``, users from 1 to
        :data:`MAX_USERS`.
    seeds : int
        Runs per pair, from 1 to :data:`MAX_RUNS` (10,000).
    rng : int or numpy.random.SeedSequence
        The sweep's root seed (an integer >= 0 or a SeedSequence).
    n_machines : int, default 100
        Machines, from 1 to :data:`MAX_MACHINES` (10,000).
    reserve : float, default 1e-6
        The reserve bid, > 0 and within a factor 1e12 of the users' budget 1.
    iterations : int, default 100
        Iterations per run, from 1 to :data:`fairlib._validate.MAX_ITERATIONS` (1,000,000).
    n_jobs : int, optional
        Local processes of the sweep.
    backend : {"serial", "loky", "dask"}, optional
        The sweep's backend.

    Returns
    -------
    pandas.DataFrame
        One row per (delta, users, seed, iteration) with ``efficiency``.

    Raises
    ------
    InvalidInputError
        When a pair, count or the reserve is out of its range, or a seed or sweep option is not
        one.
    """
    configs = list(as_sequence(configs, "configs", what="expected (delta, users) pairs"))
    if not configs:
        raise InvalidInputError("configs: empty (at least one (delta, users) pair)")
    n_machines = as_count(n_machines, "n_machines", maximum=MAX_MACHINES)
    grid = []
    for i, pair in enumerate(configs):
        if not isinstance(pair, (tuple, list, np.ndarray)) or len(pair) != 2:
            raise InvalidInputError(
                f"configs[{i}] = {_short(pair)}: expected a (delta, users) pair"
            )
        # Δ is a user's parallelism bound in a game of n_machines machines
        delta = as_count(pair[0], f"configs[{i}][0] (delta)", maximum=n_machines)
        users = as_count(pair[1], f"configs[{i}][1] (users)", maximum=MAX_USERS)
        grid.append({"delta": delta, "users": users})
    seeds = as_count(seeds, "seeds", maximum=MAX_RUNS)
    reserve = _reserve(reserve)
    iterations = as_count(iterations, "iterations", maximum=MAX_ITERATIONS)
    df = sweep(
        _trajectory_cell,
        grid,
        seeds=seeds,
        rng=rng,
        fixed=dict(n_machines=n_machines, reserve=reserve, iterations=iterations),
        **_sweep_options(n_jobs, backend, False, "fig5"),
    )
    return df.rename(columns={"rep": "seed"})


def _efficiency_over_time_cell(seed, users, n_machines, reserve, max_iter, order):
    game = Game(uniform_preferences(seed, users, n_machines), reserve=reserve)
    dynamics_seed = np.random.SeedSequence(seed.entropy, spawn_key=tuple(seed.spawn_key) + (1,))
    rows = []
    for method in ("best_response", "local_greedy"):
        res = run_dynamics(
            game,
            method,
            order=order,
            rng=np.random.default_rng(dynamics_seed) if order == "random" else None,
            max_iter=max_iter,
            stop_at_convergence=False,
        )
        rows += [
            {"mechanism": method, "iteration": t, "efficiency": e}
            for t, e in enumerate(res.efficiency)
        ]
    return rows


def efficiency_over_time(
    users: int,
    seeds: int,
    rng: int | np.random.SeedSequence,
    *,
    n_machines: int = 100,
    reserve: float = 1e-6,
    max_iter: int = 100,
    order: str = "random",
    n_jobs: int | None = None,
    backend: str | None = None,
) -> pd.DataFrame:
    """EC Fig. 3: welfare efficiency per iteration of best response and local greedy (infinite
    parallelism, uniform preferences), both from the same instance in each run, run for ``max_iter``
    iterations whether or not they converge. One row per (seed, mechanism, iteration).

    Parameters
    ----------
    users : int
        Users, from 1 to :data:`MAX_USERS` (10,000).
    seeds : int
        Runs, from 1 to :data:`MAX_RUNS` (10,000).
    rng : int or numpy.random.SeedSequence
        The sweep's root seed (an integer >= 0 or a SeedSequence).
    n_machines : int, default 100
        Machines, from 1 to :data:`MAX_MACHINES` (10,000).
    reserve : float, default 1e-6
        The reserve bid, > 0 and within a factor 1e12 of the users' budget 1.
    max_iter : int, default 100
        Iterations per run, from 1 to :data:`fairlib._validate.MAX_ITERATIONS` (1,000,000).
    order : str, default "random"
        The update order, one of :data:`fairlib.market.dynamics.ORDERS`.
    n_jobs : int, optional
        Local processes of the sweep.
    backend : {"serial", "loky", "dask"}, optional
        The sweep's backend.

    Returns
    -------
    pandas.DataFrame
        Columns ``users``, ``seed``, ``mechanism``, ``iteration``, ``efficiency``.

    Raises
    ------
    InvalidInputError
        When a count or the reserve is out of its range, ``order`` is not an order, or a seed or
        sweep option is not one.
    """
    users = as_count(users, "users", maximum=MAX_USERS)
    seeds = as_count(seeds, "seeds", maximum=MAX_RUNS)
    n_machines = as_count(n_machines, "n_machines", maximum=MAX_MACHINES)
    reserve = _reserve(reserve)
    max_iter = as_count(max_iter, "max_iter", maximum=MAX_ITERATIONS)
    check_choice(order, ORDERS, "order")
    df = sweep(
        _efficiency_over_time_cell,
        {"users": [users]},
        seeds=seeds,
        rng=rng,
        fixed=dict(n_machines=n_machines, reserve=reserve, max_iter=max_iter, order=order),
        **_sweep_options(n_jobs, backend, False, "fig3"),
    )
    return df.rename(columns={"rep": "seed"})


def _guarantee_cell(seed, reserve):
    g = np.random.default_rng(seed)
    m_users = int(g.integers(2, 30))
    w = uniform_preferences(g, m_users, int(g.integers(2, 20)))
    res = run_dynamics(Game(w, reserve=reserve), order="random", rng=g)
    others = res.bids.sum(axis=0) - res.bids[0]
    prop = proportional_guarantee_bids(others)
    return {
        "users": m_users,
        "min_utility_times_m": res.utilities[-1].min() * m_users,
        "proportional_share_times_m": (prop / (prop + others)).min() * m_users,
    }


def proportional_guarantee_runs(
    runs: int,
    rng: int | np.random.SeedSequence,
    *,
    reserve: float = 1e-6,
    n_jobs: int | None = None,
    backend: str | None = None,
) -> pd.DataFrame:
    """EC'05 §3.2 (1/m guarantee): random games (2-29 users, 2-19 machines, uniform preferences)
    run to equilibrium by best response; per run, m times the smallest equilibrium utility and m
    times user 0's guaranteed share from proportional bidding against the others' equilibrium bids.
    One row per run.

    Parameters
    ----------
    runs : int
        Random games, from 1 to :data:`MAX_RUNS` (10,000).
    rng : int or numpy.random.SeedSequence
        The sweep's root seed (an integer >= 0 or a SeedSequence).
    reserve : float, default 1e-6
        The reserve bid, > 0 and within a factor 1e12 of the users' budget 1.
    n_jobs : int, optional
        Local processes of the sweep.
    backend : {"serial", "loky", "dask"}, optional
        The sweep's backend.

    Returns
    -------
    pandas.DataFrame
        Columns ``run``, ``users``, ``min_utility_times_m``, ``proportional_share_times_m``.

    Raises
    ------
    InvalidInputError
        When ``runs`` or the reserve is out of its range, or a seed or sweep option is not one.
    """
    runs = as_count(runs, "runs", maximum=MAX_RUNS)
    reserve = _reserve(reserve)
    df = sweep(
        _guarantee_cell,
        [{}],
        seeds=runs,
        rng=rng,
        fixed=dict(reserve=reserve),
        **_sweep_options(n_jobs, backend, False, "guarantee"),
    )
    return df.rename(columns={"rep": "run"})


#: the two-player fixed-point solver's grid: points on user 0's simplex (2 machines) or starts per
#: axis (3 machines)
FIXED_POINT_GRID = 400


def _reply_map(game: Game, x0: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """User 1's best response to user 0's bids ``x0``, and user 0's best response to that (infinite
    parallelism, against the other's bids plus the reserve): an equilibrium is a fixed point x0 of
    the composition."""
    w, budgets, reserve = game.weights, game.budgets, game.reserve
    x1 = best_response(w[1], x0 + reserve, budgets[1])
    return best_response(w[0], x1 + reserve, budgets[0]), x1


def two_player_fixed_points(game: Game, grid: int = FIXED_POINT_GRID) -> list[np.ndarray]:
    """Equilibria of a two-user game (2 or 3 machines, infinite parallelism) as fixed points of user
    0's bids under best response to best response (:func:`_reply_map`), a second method besides
    iterated best response, which can cycle. With 2 machines every sign change of the map along a
    grid of ``grid`` points of user 0's bids on machine 0 is refined by Brent's method (every
    equilibrium the grid separates); with 3 machines ``scipy.optimize.fsolve`` starts from a grid of
    points of user 0's simplex. Returns the distinct bid matrices (2 × machines) found; the caller
    certifies each by its Nash residual.

    Parameters
    ----------
    game : Game
        A two-user game on 2 or 3 machines, infinite parallelism.
    grid : int, default FIXED_POINT_GRID
        Grid points (2 machines) or starts per axis (3 machines), from 2 to
        :data:`MAX_FIXED_POINT_GRID` (10,000).

    Returns
    -------
    list of numpy.ndarray
        Each equilibrium's bids, shape (2, n_machines).

    Raises
    ------
    InvalidInputError
        When ``game`` is not a two-user Game on 2 or 3 machines with infinite parallelism, or
        ``grid`` is out of its range.
    """
    from scipy.optimize import brentq, fsolve

    as_instance(game, Game, "game")
    grid = as_count(grid, "grid", minimum=2, maximum=MAX_FIXED_POINT_GRID)
    n = game.weights.shape[1]
    if game.weights.shape[0] != 2 or n not in (2, 3):
        raise InvalidInputError(
            f"game: two users on 2 or 3 machines, got shape {game.weights.shape}"
        )
    if game.parallelism is not None:
        raise InvalidInputError(
            "game: the fixed points are of infinite parallelism's best response"
        )
    budget = float(game.budgets[0])

    def full(head):
        head = np.clip(np.asarray(head, dtype=np.float64), 0.0, budget)
        return np.append(head, max(budget - head.sum(), 0.0))

    def gap(head):
        x0 = full(head)
        return _reply_map(game, x0)[0][:-1] - x0[:-1]

    found: list[np.ndarray] = []
    if n == 2:
        pts = np.linspace(0.0, budget, grid)
        vals = np.array([gap([p])[0] for p in pts])
        roots = [p for p, v in zip(pts, vals) if v == 0.0]
        roots += [
            brentq(lambda t: gap([t])[0], lo, hi, xtol=1e-15)
            for lo, hi, vlo, vhi in zip(pts[:-1], pts[1:], vals[:-1], vals[1:])
            if vlo * vhi < 0
        ]
        heads = [np.array([r]) for r in roots]
    else:
        side = max(2, int(round(np.sqrt(grid) / 2)))
        grid_points = np.linspace(0.02, 0.96, side)
        starts = [
            np.array([a, b]) * budget for a in grid_points for b in grid_points if a + b < 0.98
        ]
        heads = []
        for s0 in starts:
            sol, _, ier, _ = fsolve(gap, s0, full_output=True, xtol=1e-14)
            if ier == 1 and np.abs(gap(sol)).max() < 1e-10:
                heads.append(sol)
    for head in heads:
        x0 = full(head)
        bids = np.vstack([x0, _reply_map(game, x0)[1]])
        if not any(np.abs(bids - f).max() < 1e-7 for f in found):
            found.append(bids)
    return found


def _two_player_cell(seed, machines, grid, reserve):
    g = np.random.default_rng(seed)
    w = uniform_preferences(
        g, 2, int(machines)
    )  # Theorem 2's setting (§3): X_i = 1 and sum_j w_ij = 1
    game = Game(w, reserve=reserve)
    opt = game.optimum()
    # the paper's dynamics from weight-proportional bids, continued to a tight stopping point, and
    # the fixed points
    found = [
        (
            "best_response",
            run_dynamics(game, "best_response", eps=TIGHT_EPS, max_iter=TIGHT_MAX_ITER).bids,
        )
    ]
    found += [("fixed_point", bids) for bids in two_player_fixed_points(game, grid)]
    return [
        {
            "method": method,
            "residual": equilibrium_violation(w, bids, reserve),
            **outcome_metrics(w, allocation(bids, reserve), opt),
        }
        for method, bids in found
    ]


def random_two_player_games(
    games: int,
    rng: int | np.random.SeedSequence,
    *,
    machines: Iterable[int] = (2, 3),
    grid: int = FIXED_POINT_GRID,
    reserve: float = 1e-6,
    n_jobs: int | None = None,
    backend: str | None = None,
) -> pd.DataFrame:
    """Theorem 2 on random two-player games: ``games`` random games per number of ``machines`` (2
    users, weights U(0, 1) normalised per user, budgets 1 as §3 assumes). Per game: best response
    from weight-proportional bids continued to a tight stopping point (utility change < 1e-12, at
    most 5,000 rounds; it can cycle), and every equilibrium :func:`two_player_fixed_points` finds.
    One row per (machines, game, stopping point): ``method``, the Nash ``residual`` (a row with
    residual <= :data:`CERTIFIED_RESIDUAL` is a certified equilibrium) and efficiency, uniformity
    and envy-freeness there.

    Parameters
    ----------
    games : int
        Random games per number of machines, from 1 to :data:`MAX_RUNS` (10,000).
    rng : int or numpy.random.SeedSequence
        The sweep's root seed (an integer >= 0 or a SeedSequence).
    machines : iterable of int, default (2, 3)
        Numbers of machines, each 2 or 3.
    grid : int, default FIXED_POINT_GRID
        :func:`two_player_fixed_points`' grid, from 2 to :data:`MAX_FIXED_POINT_GRID`.
    reserve : float, default 1e-6
        The reserve bid, > 0 and within a factor 1e12 of the users' budget 1.
    n_jobs : int, optional
        Local processes of the sweep.
    backend : {"serial", "loky", "dask"}, optional
        The sweep's backend.

    Returns
    -------
    pandas.DataFrame
        See above.

    Raises
    ------
    InvalidInputError
        When a count or the reserve is out of its range, or a seed or sweep option is not one.
    """
    games = as_count(games, "games", maximum=MAX_RUNS)
    machines = as_counts(machines, "machines", minimum=2, maximum=3)
    grid = as_count(grid, "grid", minimum=2, maximum=MAX_FIXED_POINT_GRID)
    reserve = _reserve(reserve)
    df = sweep(
        _two_player_cell,
        {"machines": machines},
        seeds=games,
        rng=rng,
        fixed=dict(grid=grid, reserve=reserve),
        **_sweep_options(n_jobs, backend, False, "two-player"),
    )
    return df.rename(columns={"rep": "game"})


def _exhaustive_cell(seed, machines, k, others, reserve):
    g = np.random.default_rng(seed)
    w = g.random(machines)
    w /= w.sum()
    y = np.full(machines, reserve)
    for _ in range(
        others
    ):  # each other user bids its budget on k random machines (finite parallelism)
        on = g.choice(machines, size=k, replace=False)
        y[on] += g.dirichlet(np.ones(k))
    local = best_response_finite(w, y, 1.0, k)
    best = 0.0
    for subset in combinations(
        range(machines), k
    ):  # every set of k machines: the user's global optimum
        idx = np.array(subset)
        best = max(best, utility(w[idx], best_response(w[idx], y[idx], 1.0), y[idx]))
    found = utility(w, local.bids, y)
    return {
        "local_search": found,
        "exhaustive": best,
        "relative_gap": (best - found) / best,
        "swaps": local.swaps,
    }


def local_search_vs_exhaustive(
    instances: int,
    rng: int | np.random.SeedSequence,
    *,
    machines: Iterable[int] = (6, 8, 10),
    k: Iterable[int] = (2, 3, 5),
    others: Iterable[int] = (1, 3, 10),
    reserve: float = 1e-6,
    n_jobs: int | None = None,
    backend: str | None = None,
) -> pd.DataFrame:
    """EC §4.2's conjecture ("the local maxima this algorithm finds are also the global maximum,
    with respect to an individual user"), by brute force on small instances: one user (weights
    U(0, 1) normalised, budget 1) against ``others`` users who each bid a random split of budget 1
    on ``k`` random machines (plus the reserve), for every (machines, k, others); the local search's
    utility against the best over every set of k machines of the best response restricted to it. One
    row per instance with ``relative_gap`` = (best − local) / best.

    Parameters
    ----------
    instances : int
        Instances per (machines, k, others), from 1 to :data:`MAX_RUNS` (10,000).
    rng : int or numpy.random.SeedSequence
        The sweep's root seed (an integer >= 0 or a SeedSequence).
    machines : iterable of int, default (6, 8, 10)
        Numbers of machines, each from 1 to :data:`MAX_EXHAUSTIVE_MACHINES` (20).
    k : iterable of int, default (2, 3, 5)
        The user's parallelism bounds, each from 1 to the fewest machines.
    others : iterable of int, default (1, 3, 10)
        Numbers of other users, each from 0 to :data:`MAX_USERS` (10,000).
    reserve : float, default 1e-6
        The reserve bid, > 0 and within a factor 1e12 of the users' budget 1.
    n_jobs : int, optional
        Local processes of the sweep.
    backend : {"serial", "loky", "dask"}, optional
        The sweep's backend.

    Returns
    -------
    pandas.DataFrame
        One row per instance (see above).

    Raises
    ------
    InvalidInputError
        When a count or the reserve is out of its range, or a seed or sweep option is not one.
    """
    instances = as_count(instances, "instances", maximum=MAX_RUNS)
    machines = as_counts(machines, "machines", maximum=MAX_EXHAUSTIVE_MACHINES)
    # every k is tried on every number of machines: a user bids on k of them
    k = as_counts(k, "k", maximum=min(machines))
    others = as_counts(others, "others", minimum=0, maximum=MAX_USERS)
    reserve = _reserve(reserve)
    df = sweep(
        _exhaustive_cell,
        {"machines": machines, "k": k, "others": others},
        seeds=instances,
        rng=rng,
        fixed=dict(reserve=reserve),
        **_sweep_options(n_jobs, backend, False, "local-search"),
    )
    return df.rename(columns={"rep": "instance"})


def local_search_conjecture_findings(exhaustive: pd.DataFrame) -> dict[str, Measurement]:
    """The §4.2 conjecture's claim on :func:`local_search_vs_exhaustive`'s table: the largest
    relative shortfall of the local search's utility from the exhaustive optimum.

    Parameters
    ----------
    exhaustive : pandas.DataFrame
        :func:`local_search_vs_exhaustive`' table, non-empty.

    Returns
    -------
    dict of str to Measurement
        Claim id → measurement, for :meth:`fairlib.repro.ledger.ClaimLog.measure_all`.

    Raises
    ------
    InvalidInputError
        When the table is not a DataFrame, lacks a column it reads (``relative_gap``, ``k``,
        ``machines``) or is empty.
    """
    as_table(
        exhaustive,
        "exhaustive",
        ("relative_gap", "k", "machines"),
        ("relative_gap", "k", "machines"),
    )
    if exhaustive.empty:
        raise InvalidInputError("exhaustive: no instances")
    short = exhaustive[exhaustive.relative_gap > 1e-9]
    return {
        "local_search_local_max_is_global": Measurement(
            float(exhaustive.relative_gap.max()),
            note=f"{len(exhaustive)} instances; the local search falls short of the best set of k "
            "machines on "
            f"{len(short)} ({len(short) / len(exhaustive):.1%}), by at most "
            f"{exhaustive.relative_gap.max():.2g} of "
            "the optimum"
            + (
                ""
                if short.empty
                else " (k, machines: "
                + ", ".join(sorted({f"{int(a)}/{int(b)}" for a, b in zip(short.k, short.machines)}))
                + ")"
            ),
        )
    }


def median_by_users(results: pd.DataFrame, column: str) -> pd.Series:
    """Median of ``column`` per number of users (a Series indexed by ``users``): how Fig. 2's curves
    and the claims about them read a table of runs.

    Parameters
    ----------
    results : pandas.DataFrame
        A table of runs with a ``users`` column.
    column : str
        The column, of numbers.

    Returns
    -------
    pandas.Series
        The medians, indexed by ``users``.

    Raises
    ------
    InvalidInputError
        When ``results`` is not a DataFrame with ``users`` and ``column``, or ``column`` holds
        anything but numbers.
    """
    as_instance(column, str, "column")
    as_table(results, "results", ("users", column), (column,))
    return results.groupby("users")[column].median()


def settling_iteration(curve: pd.Series, within: float = 0.01) -> int:
    """First iteration from which ``curve`` (a pandas Series indexed by iteration, e.g. a median
    efficiency per iteration) stays within ``within`` of its last value — when the curve has "got
    there" (EC Fig. 3).

    Parameters
    ----------
    curve : pandas.Series
        Finite values indexed by iteration, non-empty.
    within : float, default 0.01
        The distance from the last value that counts as settled, >= 0.

    Returns
    -------
    int
        The iteration (an index label of ``curve``).

    Raises
    ------
    InvalidInputError
        When ``curve`` is empty or not finite, or ``within`` is negative.

    Examples
    --------
    >>> import pandas as pd
    >>> settling_iteration(pd.Series([0.5, 0.8, 0.905, 0.908, 0.91], index=[0, 1, 2, 3, 4]))
    2
    """
    as_instance(curve, pd.Series, "curve")
    within = as_number(within, "within", inclusive=True)
    try:
        values = np.asarray(curve, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidInputError(f"curve: expected numbers, got dtype {curve.dtype}") from None
    if values.ndim != 1 or values.size == 0 or not np.isfinite(values).all():
        raise InvalidInputError(
            f"curve: expected a non-empty 1-D series of finite values, got {values!r}"
        )
    off = np.abs(values - values[-1]) > within
    return int(curve.index[np.flatnonzero(off)[-1] + 1]) if off.any() else int(curve.index[0])


def _median_range(series: pd.Series) -> str:
    return f"{series.min():.3f}-{series.max():.3f}"


#: the columns of :func:`infinite_parallelism_sweep`'s table that
#: :func:`infinite_parallelism_findings` reads
_INFINITE_COLUMNS = (
    "preference",
    "mechanism",
    "users",
    "efficiency",
    "uniformity",
    "envy_freeness",
    "iterations",
    "converged",
    "stabilised",
    "residual",
)


def infinite_parallelism_findings(
    results: pd.DataFrame, *, mid_users: int = 60
) -> dict[str, Measurement]:
    """The §5.1 / EC Fig. 2 claims of the feldman2005 ledger, measured on
    :func:`infinite_parallelism_sweep`'s table for both preference models (``preference`` "uniform"
    and "correlated"; mechanisms best response, its tight continuation, local greedy,
    weight-proportional bidding and the social optimum).

    Every number is a median over seeds per number of users, one claim per preference model, as Fig.
    2 shows them. ``mid_users``: where "uniformity decreases, then flattens out" is split (it must
    be one of the users run). Returns ``{claim_id: Measurement}`` for
    :meth:`fairlib.repro.ledger.ClaimLog.measure_all`.

    Parameters
    ----------
    results : pandas.DataFrame
        :func:`infinite_parallelism_sweep`'s table, both preference models (the columns it reads:
        ``preference``, ``mechanism``, ``users``, ``efficiency``, ``uniformity``,
        ``envy_freeness``, ``iterations``, ``converged``, ``stabilised``, ``residual``).
    mid_users : int, default 60
        See above: an integer, one of the table's ``users``.

    Returns
    -------
    dict of str to Measurement
        Claim id → measurement, for :meth:`fairlib.repro.ledger.ClaimLog.measure_all`.

    Raises
    ------
    InvalidInputError
        When ``results`` is not a DataFrame with those columns and rows for every preference model
        and mechanism, or ``mid_users`` is not one of its numbers of users.
    """
    as_table(results, "results", _INFINITE_COLUMNS, ("users",))
    mid_users = as_count(mid_users, "mid_users")
    prefs = ("uniform", "correlated")
    missing = sorted(
        {
            (p, m)
            for p in prefs
            for m in (
                "best_response",
                "best_response_tight",
                "local_greedy",
                "weight_proportional",
                "social_optimum",
            )
        }
        - set(zip(results.preference, results.mechanism))
    )
    if missing:
        raise InvalidInputError(f"results: no rows for (preference, mechanism) {missing}")
    if mid_users not in set(results.users):
        raise InvalidInputError(
            f"mid_users = {mid_users}: not among the users run {sorted(set(results.users))}"
        )
    by = {
        m: results[results.mechanism == m]
        for m in (
            "best_response",
            "best_response_tight",
            "local_greedy",
            "weight_proportional",
            "social_optimum",
        )
    }
    br, tight, lg, wp, so = (
        by[m]
        for m in (
            "best_response",
            "best_response_tight",
            "local_greedy",
            "weight_proportional",
            "social_optimum",
        )
    )
    med = median_by_users
    out: dict[str, Measurement] = {}
    for p in prefs:  # the abstract's and §5.1's numbers, per preference model
        brp = br[br.preference == p]
        eff, uni = med(brp, "efficiency"), med(brp, "uniformity")
        out[f"efficiency_about_0_9_{p}"] = Measurement(eff.tolist())
        out[f"efficiency_at_least_0_90_{p}"] = Measurement(
            eff.tolist(),
            note=f"median equilibrium efficiency per number of users ranges {_median_range(eff)}",
        )
        out[f"uniformity_at_least_0_65_{p}"] = Measurement(
            uni.tolist(), note=f"median uniformity per number of users ranges {_median_range(uni)}"
        )
        out[f"envy_freeness_at_least_0_97_{p}"] = Measurement(med(brp, "envy_freeness").tolist())
        out[f"best_response_within_5_iterations_{p}"] = Measurement(med(brp, "iterations").tolist())
    uni = {p: med(br[br.preference == p], "uniformity") for p in prefs}
    out["uniformity_uniform_above_0_7"] = Measurement(uni["uniform"].tolist())
    out["uniformity_correlated_above_0_6"] = Measurement(uni["correlated"].tolist())
    out["envy_free_uniform"] = Measurement(
        med(br[br.preference == "uniform"], "envy_freeness").tolist()
    )
    stuck = tight[tight.residual > 1e-6]
    out["tight_equilibria_reached"] = Measurement(
        float(tight.residual.max()),
        note=f"median Nash residual at the paper's test: {br.residual.median():.3f}; after "
        f"continuing: {tight.residual.median():.1e}"
        + (
            ""
            if stuck.empty
            else f"; best response, continued for up to {TIGHT_MAX_ITER:,} more rounds, did not "
            f"reach 1e-6 on {len(stuck)} of {len(tight)} instances (users "
            f"{sorted(set(stuck.users.astype(int)))}; largest residual "
            f"{stuck.residual.max():.2g}): our dynamics cycle there, which says nothing "
            "against existence"
        ),
    )
    if "certified_residual" not in tight.columns:
        raise InvalidInputError(
            "results: best_response_tight rows need certified_residual (infinite_parallelism_sweep)"
        )
    damped = tight[tight.residual > CERTIFIED_RESIDUAL]
    out["equilibrium_exists_strong_competition"] = Measurement(
        float(tight.certified_residual.max()),
        note=f"{int((tight.certified_residual <= CERTIFIED_RESIDUAL).sum())} of {len(tight)} "
        f"instances have a certified equilibrium (Nash residual <= {CERTIFIED_RESIDUAL:g}): "
        f"{len(tight) - len(damped)} by best response continued, "
        f"{int((damped.certified_residual <= CERTIFIED_RESIDUAL).sum())} of the other "
        f"{len(damped)} by damped best response from where it stopped",
    )
    out["envy_freeness_at_least_2sqrt2_minus_2"] = Measurement(
        float(tight.envy_freeness.min()),
        note=f"smallest envy-freeness over the {len(tight)} tight equilibria of Fig. 2's instances",
    )
    for (
        p
    ) in prefs:  # §5.1: weight-proportional bidding is the fairest, the equilibrium close behind
        # the paper's fairness is both of its metrics (Fig. 2e-h): uniformity and envy-freeness
        gaps = {
            metric: med(wp[wp.preference == p], metric) - med(br[br.preference == p], metric)
            for metric in ("uniformity", "envy_freeness")
        }
        out[f"weight_proportional_fairest_{p}"] = Measurement(
            float(min(g.min() for g in gaps.values())),
            note="weight-proportional median minus the equilibrium's, per number of users: "
            + "; ".join(
                f"{metric.replace('_', '-')} {g.min():+.3f} to {g.max():+.3f}"
                + (
                    ""
                    if g.min() >= 0
                    else f" (below at {', '.join(str(int(u)) for u in g.index[g < 0])} users)"
                )
                for metric, g in gaps.items()
            ),
        )
    for p in (
        prefs
    ):  # §5.1: stabilises "within 100 iterations" whether or not it converges: every run counts
        runs = lg[lg.preference == p]
        stab = med(runs, "stabilised")
        out[f"local_greedy_stabilises_in_25_to_90_{p}"] = Measurement(
            stab.tolist(),
            note=f"medians over all {len(runs) // max(len(stab), 1)} runs per number of users, "
            f"converged or not: {stab.min():.0f} to {stab.max():.0f} iterations ("
            + ", ".join(f"{int(u)} users {v:.0f}" for u, v in stab.items())
            + "). The step is not given in the paper (ours: 1% of the budget); the sensitivity "
            "figure shows larger steps stabilise sooner",
        )
    for p in prefs:
        # §5.1: a threshold at 60 users: the median run does not converge below it and does from it
        # on
        conv = lg[lg.preference == p].groupby("users").converged.mean()
        below, above = conv[conv.index < 60], conv[conv.index >= 60]
        out[f"local_greedy_convergence_threshold_{p}"] = Measurement(
            bool((below <= 0.5).all() and (above > 0.5).all()),
            note="fraction of seeds converging within 500 iterations: "
            + ", ".join(f"{int(u)} users {f:.0%}" for u, f in conv.items())
            + (
                ""
                if p == "uniform"
                else "; the threshold depends on the step and gap, which the paper does not give"
            ),
        )
    gain = {
        p: float(
            (
                med(br[br.preference == p], "efficiency")
                / med(wp[wp.preference == p], "efficiency")
            ).median()
            - 1
        )
        for p in prefs
    }
    wp_uniform = med(wp[wp.preference == "uniform"], "efficiency")
    out["better_than_weight_proportional_uniform"] = Measurement(
        gain["uniform"],
        note=f"median gain {gain['uniform']:.0%}: it grows with users (weight-proportional "
        f"efficiency falls from {wp_uniform.max():.2f} to {wp_uniform.min():.2f}); ≈ 43% at "
        "150 users",
    )
    out["better_than_weight_proportional_correlated"] = Measurement(
        gain["correlated"],
        note=f"median gain {gain['correlated']:.0%}: our weight-proportional baseline is more "
        "efficient under correlated preferences than the paper's (≈0.7 implied); unnormalised "
        "weights do not change the gain (see the normalisation check)",
    )
    for p in prefs:
        # §5.1: uniformity "can be infinitely poor"; "the same is true with respect to
        # envy-freeness"
        so_p = so[so.preference == p]
        low = {metric: med(so_p, metric) for metric in ("uniformity", "envy_freeness")}
        out[f"social_optimum_fairness_collapses_{p}"] = Measurement(
            [float(low["uniformity"].min()), float(low["envy_freeness"].min())],
            note="smallest median of the social optimum over the numbers of users: "
            + "; ".join(
                f"{metric.replace('_', '-')} {g.min():.3f} (at {int(g.idxmin())} users)"
                for metric, g in low.items()
            ),
        )
    so_few = so[(so.preference == "correlated") & (so.users == so.users.min())]
    out["social_optimum_correlated_zero_with_few_users"] = Measurement(
        [float(so_few.uniformity.median()), float(so_few.envy_freeness.median())],
        note=f"medians at {int(so_few.users.min())} users over {len(so_few)} instances",
    )
    # §5.1: uniformity decreases with the number of users, then flattens out
    most_users = int(results.users.max())
    for p in prefs:
        u = uni[p]
        drop, late = (
            float(u.iloc[0] - u.loc[mid_users]),
            float(abs(u.loc[mid_users] - u.loc[most_users])),
        )
        out[f"uniformity_decreases_with_users_{p}"] = Measurement(
            drop,
            note=f"median uniformity {u.iloc[0]:.3f} at {int(u.index[0])} users, "
            f"{u.loc[mid_users]:.3f} at {mid_users}, {u.loc[most_users]:.3f} at {most_users}",
        )
        out[f"uniformity_flattens_{p}"] = Measurement(
            late / drop if drop > 0 else np.nan,
            note=f"change {late:.3f} from {mid_users} to {most_users} users against a drop of "
            f"{drop:.3f} from {int(u.index[0])} to {mid_users}",
        )
    out["uniformity_uniform_above_correlated"] = Measurement(
        (uni["uniform"] - uni["correlated"]).tolist()
    )
    return out


def efficiency_over_time_findings(trajectories: pd.DataFrame) -> dict[str, Measurement]:
    """EC Fig. 3's claims (same welfare, best response faster) on :func:`efficiency_over_time`'s
    table: the median efficiency per iteration of best response and local greedy, compared at the
    last iteration and by when each settles within 0.01 of its last value
    (:func:`settling_iteration`).

    Parameters
    ----------
    trajectories : pandas.DataFrame
        :func:`efficiency_over_time`'s table (columns ``mechanism``, ``iteration``,
        ``efficiency``).

    Returns
    -------
    dict of str to Measurement
        Claim id → measurement, for :meth:`fairlib.repro.ledger.ClaimLog.measure_all`.

    Raises
    ------
    InvalidInputError
        When ``trajectories`` is not a DataFrame with those columns and rows of both mechanisms.
    """
    as_table(
        trajectories,
        "trajectories",
        ("mechanism", "iteration", "efficiency"),
        ("iteration", "efficiency"),
    )
    curve = trajectories.groupby(["mechanism", "iteration"]).efficiency.median()
    mechs = ("best_response", "local_greedy")
    absent = [m for m in mechs if m not in curve.index.get_level_values(0)]
    if absent:
        raise InvalidInputError(f"trajectories: no rows for mechanism(s) {absent}")
    final = {m: float(curve[m].iloc[-1]) for m in mechs}
    settle = {m: settling_iteration(curve[m], within=0.01) for m in mechs}
    return {
        "fig3_same_welfare": Measurement(
            abs(final["best_response"] - final["local_greedy"]),
            note=f"median efficiency after {int(curve['best_response'].index[-1])} iterations: "
            f"best response {final['best_response']:.4f}, local greedy "
            f"{final['local_greedy']:.4f}",
        ),
        "fig3_best_response_faster": Measurement(
            settle["local_greedy"] - settle["best_response"],
            note="settled (within 0.01 of the final median) at iteration "
            f"{settle['best_response']} (best response) and {settle['local_greedy']} (local "
            "greedy)",
        ),
    }


#: the columns of :func:`finite_parallelism_sweep`'s table that the findings read
_FINITE_COLUMNS = (
    "delta",
    "users",
    "competition",
    "iterations",
    "converged",
    "efficiency",
    "uniformity",
    "envy_freeness",
    "local_search_calls",
    "calls_within_two_iterations",
)


def finite_parallelism_findings(
    finite: pd.DataFrame, trajectories: pd.DataFrame, infinite: pd.DataFrame
) -> dict[str, Measurement]:
    """The §5.2 / EC Figs. 4–6 claims of the feldman2005 ledger: ``finite`` from
    :func:`finite_parallelism_sweep` (Δ = 5 and 20, stacked), ``trajectories`` from
    :func:`finite_efficiency_trajectories` ((Δ, users) = (5, 40) and (20, 10)), ``infinite`` from
    :func:`infinite_parallelism_sweep` (its uniform best-response rows are Fig. 6's
    infinite-parallelism reference at the same numbers of users).

    Non-convergence is judged where at most half the seeds converge. The paper's simulations vary
    the users "from 5 to 250" (§5), so the Fig. 4 band claims read users from 5 on; runs below 5
    users (our extension) count in ``low_competition_converges``, the paper's explanation, which is
    about competition δ rather than a range of users. Returns ``{claim_id: Measurement}``.

    Parameters
    ----------
    finite : pandas.DataFrame
        :func:`finite_parallelism_sweep`'s rows, every Δ.
    trajectories : pandas.DataFrame
        :func:`finite_efficiency_trajectories`' table.
    infinite : pandas.DataFrame
        :func:`infinite_parallelism_sweep`'s table.

    Returns
    -------
    dict of str to Measurement
        Claim id → measurement, for :meth:`fairlib.repro.ledger.ClaimLog.measure_all`.

    Raises
    ------
    InvalidInputError
        When a table is not a DataFrame with the columns it is read by, or ``finite`` lacks Δ = 5
        or 20.
    """
    as_table(finite, "finite", _FINITE_COLUMNS, ("delta", "users"))
    as_table(
        trajectories, "trajectories", ("delta", "iteration", "efficiency"), ("delta", "iteration")
    )
    as_table(
        infinite,
        "infinite",
        ("mechanism", "preference", "users", "efficiency", "uniformity", "envy_freeness"),
        ("users",),
    )
    deltas = set(finite.delta)
    if not {5, 20} <= deltas:
        raise InvalidInputError(f"finite: needs Δ = 5 and 20, has {sorted(deltas)}")
    out: dict[str, Measurement] = {}
    for delta, users in (
        (5, 40),
        (20, 10),
    ):  # EC Fig. 5: high efficiency maintained without convergence
        c5 = trajectories[trajectories.delta == delta].groupby("iteration").efficiency.median()
        out[f"fig5_efficiency_stays_high_delta{delta}_{users}_users"] = Measurement(
            float(c5[c5.index >= 5].min())
        )
    # EC Fig. 6 against infinite parallelism (Fig. 2, uniform preferences, same numbers of users)
    fin_med = (
        finite.assign(ef1=np.minimum(finite.envy_freeness, 1.0))
        .groupby(["delta", "users"])[["efficiency", "uniformity", "envy_freeness", "ef1"]]
        .median()
    )
    br = infinite[(infinite.mechanism == "best_response") & (infinite.preference == "uniform")]
    inf_med = (
        br.assign(ef1=np.minimum(br.envy_freeness, 1.0))
        .groupby("users")[["efficiency", "uniformity", "ef1"]]
        .median()
    )
    d5 = fin_med.loc[5]
    d5 = d5[d5.index >= 5]
    band = (d5.index >= 20) & (d5.index <= 40)
    out["fig6_delta5_envy_freeness_drop_20_40_users"] = Measurement(
        float(d5.envy_freeness[band].min() - d5.envy_freeness[~band].min()),
        note=f"smallest median envy-freeness {d5.envy_freeness[band].min():.3f} at 20-40 users, "
        f"{d5.envy_freeness[~band].min():.3f} elsewhere",
    )
    many = [u for u in d5.index if u > 40 and u in inf_med.index]
    gap_many = (
        d5.loc[many, ["efficiency", "ef1"]] - inf_med.loc[many, ["efficiency", "ef1"]]
    ).abs()
    out["fig6_delta5_many_users_like_infinite_parallelism"] = Measurement(
        float(gap_many.values.max()) if many else np.nan,
        note=f"shared numbers of users {many}; largest gap in efficiency "
        f"{gap_many.efficiency.max():.3f}, in min(ρ, 1) {gap_many.ef1.max():.3f}"
        if many
        else "no shared numbers of users above 40",
    )
    out["fig6_delta5_many_users_lower_uniformity"] = Measurement(
        (d5.loc[many, "uniformity"] - inf_med.loc[many, "uniformity"]).tolist()
        if many
        else [np.nan]
    )
    d20 = fin_med.loc[20]
    shared20 = [u for u in d20.index if u in inf_med.index]
    gap20 = (d20.loc[shared20, ["efficiency", "uniformity", "ef1"]] - inf_med.loc[shared20]).abs()
    out["fig6_delta20_close_to_infinite_parallelism"] = Measurement(
        float(gap20.values.max()) if shared20 else np.nan,
        note=f"shared numbers of users {shared20}; largest gaps: efficiency "
        f"{gap20.efficiency.max():.3f}, uniformity {gap20.uniformity.max():.3f}, min(ρ, 1) "
        f"{gap20.ef1.max():.3f}"
        if shared20
        else "no shared numbers of users",
    )
    fin = finite_convergence(finite)
    for delta, lo, hi in ((5, 20, 40), (20, 5, 10)):
        d = fin[(fin.delta == delta) & (fin.users >= 5)]  # the paper's users start at 5
        inside, outside = d[(d.users >= lo) & (d.users <= hi)], d[(d.users < lo) | (d.users > hi)]
        out[f"delta{delta}_no_convergence_for_{lo}_{hi}_users"] = Measurement(
            float(inside.conv.max()) if len(inside) else 1.0
        )
        out[f"delta{delta}_converges_elsewhere"] = Measurement(float(outside.conv.min()))
    nonconv = fin[(fin.conv < 0.5) & (fin.users >= 5)]
    below5 = fin[(fin.conv < 0.5) & (fin.users < 5)]
    out["non_convergence_at_competition_1_to_2"] = Measurement(
        [float(nonconv.comp.min()), float(nonconv.comp.max())]
        if len(nonconv)
        else [np.nan, np.nan],
        note="users 5 and more (the paper's range); "
        + (
            "below 5 users (outside it) no convergence also at δ = "
            + ", ".join(
                f"{c:g} (Δ = {int(d)}, {int(u)} users)"
                for c, d, u in zip(below5.comp, below5.delta, below5.users)
            )
            if len(below5)
            else "no setting below 5 users fails to converge"
        ),
    )
    low = fin[
        fin.comp < 1
    ]  # §5.2: "the absence of competition lets the system equilibrate quickly"
    out["low_competition_converges"] = Measurement(
        float(low.conv.min()) if len(low) else np.nan,
        note="share of seeds converged where δ = mΔ/n < 1: "
        + ", ".join(
            f"Δ = {int(d)}, {int(u)} users (δ = {c:g}) {f:.0%}"
            for d, u, c, f in zip(low.delta, low.users, low.comp, low.conv)
        ),
    )
    if not {"local_search_calls", "calls_within_two_iterations"} <= set(finite.columns):
        raise InvalidInputError(
            "finite: needs the columns local_search_calls and calls_within_two_iterations"
        )
    calls = finite.groupby("delta")[["local_search_calls", "calls_within_two_iterations"]].sum()
    share_two = calls.calls_within_two_iterations / calls.local_search_calls
    out["local_search_within_two_iterations"] = Measurement(
        [float(share_two.loc[5]), float(share_two.loc[20])],
        note="every local-search call of every run, pooled per Δ: "
        + "; ".join(
            f"Δ = {int(d)}: {int(calls.calls_within_two_iterations[d]):,} of "
            f"{int(calls.local_search_calls[d]):,} calls ({share_two[d]:.1%}) with at most "
            "one swap"
            for d in (5, 20)
        ),
    )
    out["finite_parallelism_efficiency_at_least_0_7"] = Measurement(float(fin.eff.min()))
    quick = finite[finite.converged.astype(bool)].groupby(["delta", "users"]).iterations.median()
    out["finite_converges_quickly_when_it_converges"] = Measurement(
        quick.tolist() if len(quick) else [np.nan],
        note="median iterations of the runs that converge, per (Δ, users): "
        + ", ".join(f"Δ = {int(d)}, {int(u)} users {v:g}" for (d, u), v in quick.items()),
    )
    return out


def finite_convergence(finite: pd.DataFrame) -> pd.DataFrame:
    """Per (Δ, users) of :func:`finite_parallelism_sweep`'s table: the share of seeds that
    converged (``conv``), the competition δ = mΔ/n (``comp``) and the median efficiency (``eff``).

    Parameters
    ----------
    finite : pandas.DataFrame
        :func:`finite_parallelism_sweep`'s rows, with a ``delta`` column (and ``users``,
        ``converged``, ``competition``, ``efficiency``).

    Returns
    -------
    pandas.DataFrame
        One row per (delta, users): ``conv``, ``comp``, ``eff``.

    Raises
    ------
    InvalidInputError
        When ``finite`` is not a DataFrame with those columns.
    """
    as_table(
        finite,
        "finite",
        ("delta", "users", "converged", "competition", "efficiency"),
        ("delta", "users"),
    )
    return (
        finite.groupby(["delta", "users"])
        .agg(
            conv=("converged", "mean"), comp=("competition", "first"), eff=("efficiency", "median")
        )
        .reset_index()
    )


def _asymmetric_minus_symmetric(opposite: pd.DataFrame) -> Measurement:
    """§3.1: the asymmetric equilibria are "bad" (less efficient than the symmetric one): the
    largest efficiency of an asymmetric equilibrium minus the symmetric one's at the same α, over
    the α of the grid that have both."""
    symmetric = np.isclose(opposite.delta, 1.0)  # the symmetric equilibrium has δ = 1
    sym = opposite[symmetric].set_index("alpha").efficiency
    asym = opposite[~symmetric].groupby("alpha").efficiency.max()
    if asym.empty:
        return Measurement(np.nan, note="no asymmetric equilibrium on the grid of α")
    gap = asym - sym.reindex(asym.index)
    return Measurement(
        float(gap.max()),
        note=f"over the {len(gap)} values of α in [{asym.index.min():.3f}, "
        f"{asym.index.max():.3f}] with asymmetric equilibria: the asymmetric "
        f"ones are {-gap.max():.2g} to {-gap.min():.2g} less efficient",
    )


def _random_two_player(random_games: pd.DataFrame, metric: str) -> tuple[float, str]:
    """The smallest ``metric`` over the certified equilibria of :func:`random_two_player_games`'
    table, and a note saying how many stopping points were certified."""
    ok = random_games.residual <= CERTIFIED_RESIDUAL
    games = random_games.groupby(["machines", "game"]).ngroups
    certified_games = random_games[ok].groupby(["machines", "game"]).ngroups
    note = (
        f"random games: {int(ok.sum())} of {len(random_games)} stopping points certified "
        f"(Nash residual <= {CERTIFIED_RESIDUAL:g}) in {certified_games} of {games} games ("
        + ", ".join(
            f"{int(n)} machines: smallest {metric.replace('_', '-')} {g[metric].min():.4f}"
            for n, g in random_games[ok].groupby("machines")
        )
        + ")"
    )
    return (float(random_games.loc[ok, metric].min()) if ok.any() else np.nan), note


def two_player_findings(
    opposite: pd.DataFrame,
    equal: pd.DataFrame,
    check_alphas: Iterable[float],
    random_games: pd.DataFrame,
) -> dict[str, Measurement]:
    """The §3.1 / Theorem 2 claims of the feldman2005 ledger. ``opposite`` and ``equal``: the
    equilibria of the opposite- and equal-weight games over a grid of α (rows of
    :func:`fairlib.market.two_player_equilibria`, the symmetric one where ``delta`` is 1);
    ``check_alphas``: where the closed-form equilibria are counted against
    :func:`fairlib.market.two_player_equilibria_numeric`. The symmetric equilibrium's lowest
    efficiency and where it falls are read from the grid; the count just below and above α₀ = (2
    + √2)/4 and the limits at α = 0.9999 come from the closed form itself. ``random_games``:
    :func:`random_two_player_games`' table; Theorem 2's bounds are read on the families and on its
    certified equilibria, as [families, random games].

    Parameters
    ----------
    opposite, equal : pandas.DataFrame
        The equilibria of the opposite- and equal-weight games over a grid of α (columns
        ``alpha``, ``delta``, ``efficiency``, ``uniformity``, ``envy_freeness``).
    check_alphas : iterable of float
        Where the closed-form equilibria are counted against the numeric ones: at least one and at
        most :data:`MAX_CHECK_ALPHAS` values of α, each in [1/2, 1 - 1e-9] (the opposite-weight
        game's range, :func:`fairlib.market.two_player_equilibria`).
    random_games : pandas.DataFrame
        :func:`random_two_player_games`' table (columns ``machines``, ``game``, ``residual``,
        ``efficiency``, ``envy_freeness``).

    Returns
    -------
    dict of str to Measurement
        Claim id → measurement, for :meth:`fairlib.repro.ledger.ClaimLog.measure_all`.

    Raises
    ------
    InvalidInputError
        When a table is not a DataFrame with those columns or is empty, or an α is out of range.
    """
    family = ("alpha", "delta", "efficiency", "uniformity", "envy_freeness")
    as_table(opposite, "opposite", family, family)
    as_table(equal, "equal", family, family)
    as_table(
        random_games,
        "random_games",
        ("machines", "game", "residual", "efficiency", "envy_freeness"),
        ("machines", "game"),
    )
    alphas = as_values(cast("npt.ArrayLike", check_alphas), "check_alphas", ndim=1, sign=None)
    if not 1 <= alphas.size <= MAX_CHECK_ALPHAS:
        raise InvalidInputError(
            f"check_alphas: {alphas.size} values of α (from 1 to {MAX_CHECK_ALPHAS:,})"
        )
    for i, a in enumerate(alphas):
        as_number(float(a), f"check_alphas[{i}]", minimum=0.5, inclusive=True, maximum=1 - 1e-9)
    if opposite.empty or equal.empty:
        raise InvalidInputError(
            "opposite and equal: need the equilibria over a grid of α (got an empty table)"
        )
    symmetric = opposite[np.isclose(opposite.delta, 1.0)]
    alpha0 = (2 + np.sqrt(2)) / 4
    near_one = two_player_equilibria(0.9999)
    if random_games.empty:
        raise InvalidInputError(
            "random_games: need random_two_player_games' table (got an empty table)"
        )
    random_eff, random_ef = (
        _random_two_player(random_games, m) for m in ("efficiency", "envy_freeness")
    )
    equal_counts = [
        len(two_player_fixed_points(Game(np.array([[a, 1 - a], [a, 1 - a]]), reserve=1e-9)))
        for a in check_alphas
    ]
    return {
        # the symmetric equilibrium's lowest efficiency over the grid of α, wherever it falls (not
        # evaluated at the paper's α = 1/√2, which would take the paper's answer as given)
        "two_player_min_efficiency_2sqrt2_minus_2": Measurement(
            float(symmetric.efficiency.min()),
            note=f"over {len(symmetric)} values of α in [{symmetric.alpha.min():.3f}, "
            f"{symmetric.alpha.max():.3f}]",
        ),
        "two_player_min_at_alpha_1_over_sqrt2": Measurement(
            float(symmetric.sort_values("efficiency").alpha.iloc[0])
        ),
        "asymmetric_equilibria_from_alpha0": Measurement(
            [len(two_player_equilibria(a)) for a in (alpha0 - 1e-4, alpha0 + 1e-4)]
        ),
        "asymmetric_equilibria_less_efficient": _asymmetric_minus_symmetric(opposite),
        # the equilibria's measures are floats (their dicts also hold the kind's label)
        "two_player_efficiency_limit_3_4": Measurement(
            min(cast(float, e["efficiency"]) for e in near_one)
        ),
        "two_player_uniformity_limit_1_2": Measurement(
            min(cast(float, e["uniformity"]) for e in near_one)
        ),
        "two_player_efficiency_at_least_3_4": Measurement(
            [float(min(opposite.efficiency.min(), equal.efficiency.min())), random_eff[0]],
            note="2×2 families: smallest "
            f"{min(opposite.efficiency.min(), equal.efficiency.min()):.4f}; " + random_eff[1],
        ),
        "two_player_envy_free": Measurement(
            [float(min(opposite.envy_freeness.min(), equal.envy_freeness.min())), random_ef[0]],
            note="2×2 families: smallest "
            f"{min(opposite.envy_freeness.min(), equal.envy_freeness.min()):.4f}; " + random_ef[1],
        ),
        "equal_weight_game_perfect": Measurement(
            [
                float(equal.efficiency.min()),
                float(equal.uniformity.min()),
                float(equal.envy_freeness.min()),
            ]
        ),
        "equal_weight_game_unique_equilibrium": Measurement(
            [min(equal_counts), max(equal_counts)],
            note="equilibria found as fixed points of best response to best response at α = "
            + ", ".join(f"{a:.3f}" for a in check_alphas)
            + ": "
            + ", ".join(map(str, equal_counts)),
        ),
        "two_player_equilibria_cross_checked": Measurement(
            bool(
                all(
                    len(two_player_equilibria_numeric(a)) == len(two_player_equilibria(a))
                    for a in check_alphas
                )
            )
        ),
    }


def theorem3_findings(
    construction: pd.DataFrame, guarantee: pd.DataFrame
) -> dict[str, Measurement]:
    """Theorem 3's claims: ``construction`` has one row per n of the m = n² + n construction (its
    efficiency, ``bound_2_over_n_plus_1`` and ``condition1_violation``); ``guarantee`` is
    :func:`proportional_guarantee_runs`'s table (utilities times m).

    Parameters
    ----------
    construction : pandas.DataFrame
        One row per n of the construction (see above).
    guarantee : pandas.DataFrame
        :func:`proportional_guarantee_runs`' table.

    Returns
    -------
    dict of str to Measurement
        Claim id → measurement, for :meth:`fairlib.repro.ledger.ClaimLog.measure_all`.

    Raises
    ------
    InvalidInputError
        When a table is not a DataFrame with the columns it is read by, or is empty.
    """
    built = ("efficiency", "bound_2_over_n_plus_1", "condition1_violation")
    as_table(construction, "construction", built, built)
    utilities = ("min_utility_times_m", "proportional_share_times_m")
    as_table(guarantee, "guarantee", utilities, utilities)
    for name, table in (("construction", construction), ("guarantee", guarantee)):
        if table.empty:
            raise InvalidInputError(f"{name}: no rows")
    return {
        "sqrt_m_construction_is_equilibrium": Measurement(
            float(construction.condition1_violation.max())
        ),
        "sqrt_m_efficiency_2_over_n_plus_1": Measurement(
            float(np.abs(construction.efficiency - construction.bound_2_over_n_plus_1).max())
        ),
        "uniformity_at_least_1_over_m": Measurement(float(guarantee.min_utility_times_m.min())),
        "proportional_bidding_gets_1_over_m": Measurement(
            float(guarantee.proportional_share_times_m.min())
        ),
    }
