"""Iterated bidding: best response (infinite and finite parallelism) and local greedy adjustment
(EC'05 §4–5).

Every user starts from bids proportional to its weights and then updates, in the chosen order, once
per iteration. Convergence is tested as the paper states it, made scale-free: best response —
every user's utility changes by less than ε = 0.001 between iterations, relative to the utility's
scale (the sum of the user's weights, 1 on the paper's normalised weights, so its test is
unchanged there); local greedy — the marginal-utility
gap (highest marginal utility over the lowest one among machines the user bids on, relative) falls
below a threshold for every user. Welfare *stabilisation* is tracked separately.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._jit import njit
from .._validate import (
    _check_aligned,
    as_flag,
    MAX_ITERATIONS,
    InvalidInputError,
    Seed,
    TOL_MIN,
    as_count,
    as_instance,
    as_number,
    as_rng,
    as_values,
    check_choice,
    result_type,
    as_tolerance,
)
from .best_response import _best_response, _local_search
from .game import Game, weight_proportional_bids

__all__ = ["run_dynamics", "DynamicsResult", "ORDERS", "METHODS"]

ORDERS = ("sequential", "simultaneous", "random")
METHODS = ("best_response", "local_greedy")
_SEQ, _SIM, _RAND = 0, 1, 2


@njit(cache=True)
def _utilities(w, bids, reserve, k):
    """Every user's utility under ``bids``: the sum of its k[i] largest w_ij x_ij / (Y_j + reserve).

    Parameters
    ----------
    w : float64[:, :]
        Weights, shape (n_users, n_machines).
    bids : float64[:, :]
        Current bids, shape (n_users, n_machines).
    reserve : float
        The reserve bid added to every machine's price.
    k : int64[:]
        Parallelism per user, shape (n_users,); k[i] >= n_machines sums every term.

    Returns
    -------
    float64[:]
        Utilities, shape (n_users,).
    """
    m, n = w.shape
    Y = np.zeros(n)
    for i in range(m):
        for j in range(n):
            Y[j] += bids[i, j]
    u = np.zeros(m)
    v = np.empty(n)
    for i in range(m):
        for j in range(n):
            tot = Y[j] + reserve
            v[j] = w[i, j] * bids[i, j] / tot if tot > 0.0 else 0.0
        if k[i] >= n:
            u[i] = v.sum()
        else:
            s = np.sort(v)
            for t in range(n - k[i], n):
                u[i] += s[t]
    return u


@njit(cache=True)
def _mu_gap(w, bids, Y, reserve, i):
    """Relative gap between the highest marginal utility and the lowest one on machines user i bids
    on.

    Parameters
    ----------
    w : float64[:, :]
        Weights, shape (n_users, n_machines).
    bids : float64[:, :]
        Current bids, shape (n_users, n_machines).
    Y : float64[:]
        Bids summed per machine (without the reserve), shape (n_machines,).
    reserve : float
        The reserve bid added to every machine's price.
    i : int
        The user.
    """
    n = w.shape[1]
    hi = 0.0
    lo = np.inf
    for j in range(n):
        if w[i, j] <= 0.0:
            continue
        y = Y[j] - bids[i, j] + reserve
        tot = bids[i, j] + y
        mu = w[i, j] * y / (tot * tot)
        if mu > hi:
            hi = mu
        if bids[i, j] > 0.0 and mu < lo:
            lo = mu
    if hi <= 0.0 or lo == np.inf:
        return 0.0
    return (hi - lo) / hi


@njit(cache=True)
def _local_greedy_step(w_i, bids_i, y, budget, step):
    """Local greedy adjustment (EC'05 §4.2): move ``step`` × budget from the machine with the
    lowest marginal utility μ_j = w_j y_j / (x_j + y_j)² among those the user bids on to the one
    with the highest.

    Parameters
    ----------
    w_i : float64[:]
        The user's weights, shape (n_machines,).
    bids_i : float64[:]
        The user's current bids, shape (n_machines,).
    y : float64[:]
        The other users' bids plus the reserve, per machine, shape (n_machines,).
    budget : float
        The user's budget.
    step : float
        The amount moved, as a fraction of the budget, in (0, 1].
    """
    nb = bids_i.copy()
    hi_j, lo_j = -1, -1
    hi, lo = -1.0, np.inf
    for j in range(w_i.shape[0]):
        if w_i[j] <= 0.0:
            continue
        tot = bids_i[j] + y[j]
        mu = w_i[j] * y[j] / (tot * tot)
        if mu > hi:
            hi, hi_j = mu, j
        if bids_i[j] > 0.0 and mu < lo:
            lo, lo_j = mu, j
    if hi_j >= 0 and lo_j >= 0 and hi_j != lo_j:
        amount = min(step * budget, bids_i[lo_j])
        nb[lo_j] -= amount
        nb[hi_j] += amount
    return nb


@njit(cache=True)
def _next_bids(w, budgets, bids, y, i, k, finite, method, step):
    """User i's next bids against the others' prices ``y``: its best response (§3.1's closed form,
    or local search with finite parallelism ``k[i]``) or a local greedy step; with the swaps local
    search made (0 otherwise).

    Parameters
    ----------
    w : float64[:, :]
        Weights, shape (n_users, n_machines).
    budgets : float64[:]
        Budgets, shape (n_users,).
    bids : float64[:, :]
        Current bids, shape (n_users, n_machines).
    y : float64[:]
        The other users' bids plus the reserve, per machine, shape (n_machines,).
    i : int
        The user.
    k : int64[:]
        Parallelism per user, shape (n_users,).
    finite : bool
        Whether parallelism is finite (local search).
    method : int
        0 best response, 1 local greedy.
    step : float
        Local greedy's step, a fraction of the budget.
    """
    if method == 0:
        if finite:
            return _local_search(w[i], y, budgets[i], k[i])
        return _best_response(w[i], y, budgets[i]), 0
    return _local_greedy_step(w[i], bids[i], y, budgets[i], step), 0


@njit(cache=True)
def _largest_mu_gap(w, bids, Y, reserve):
    """max over users of the relative marginal-utility gap (:func:`_mu_gap`), 0 at an equilibrium.

    Parameters
    ----------
    w : float64[:, :]
        Weights, shape (n_users, n_machines).
    bids : float64[:, :]
        Current bids, shape (n_users, n_machines).
    Y : float64[:]
        Bids summed per machine (without the reserve), shape (n_machines,).
    reserve : float
        The reserve bid added to every machine's price.
    """
    gap = 0.0
    for i in range(w.shape[0]):
        g = _mu_gap(w, bids, Y, reserve, i)
        if g > gap:
            gap = g
    return gap


@njit(cache=True)
def _run(
    w,
    budgets,
    bids0,
    reserve,
    k,
    finite,
    method,
    order_mode,
    perms,
    max_iter,
    eps,
    scales,
    step,
    gap_tol,
    stop_at_convergence,
    record_bids,
):
    """Iterated bidding (EC'05 §4): up to ``max_iter`` rounds, each user in turn (``order_mode``:
    sequential, in ``perms``' random order, or all simultaneously against the previous round's
    prices) replacing its bids by :func:`_next_bids`. Converged when no user's utility changes by
    ``eps`` × ``scales[i]`` or more (best response; the paper's test, relative) or the largest
    marginal-utility gap is below ``gap_tol`` (local greedy). Returns the final bids and per-round
    utilities, bids (if ``record_bids``), swaps, calls over two swaps, gaps, and the round it
    converged (-1).

    Parameters
    ----------
    w : float64[:, :]
        Weights, shape (n_users, n_machines).
    budgets : float64[:]
        Budgets at unit scale, shape (n_users,).
    bids0 : float64[:, :]
        Initial bids at unit scale, shape (n_users, n_machines).
    reserve : float
        The reserve bid added to every machine's price.
    k : int64[:]
        Parallelism per user, shape (n_users,) (n_machines when infinite).
    finite : bool
        Whether parallelism is finite (best response by local search).
    method : int
        0 best response, 1 local greedy.
    order_mode : int
        0 sequential, 1 simultaneous, 2 random order.
    perms : int64[:, :]
        Random update orders, shape (max_iter, n_users) (read only with order_mode 2).
    max_iter : int
        The most rounds.
    eps : float
        Best response's convergence threshold on every utility's change, relative to ``scales``.
    scales : float64[:]
        Each user's utility scale (the sum of its weights), shape (n_users,).
    step : float
        Local greedy's step, a fraction of the budget.
    gap_tol : float
        Local greedy's convergence threshold on the largest marginal-utility gap, from 1e-15 to 0.1.
    stop_at_convergence : bool
        Whether to stop at the first converged round.
    record_bids : bool
        Whether to keep every round's bids.
    """
    m, n = w.shape
    bids = bids0.copy()
    Y = np.zeros(n)
    for i in range(m):
        for j in range(n):
            Y[j] += bids[i, j]
    T = max_iter + 1
    utils = np.zeros((T, m))
    history = np.zeros((T if record_bids else 1, m, n))
    utils[0] = _utilities(w, bids, reserve, k)
    if record_bids:
        history[0] = bids
    swaps = np.zeros(T, dtype=np.int64)
    over_two = np.zeros(T, dtype=np.int64)  # local-search calls needing more than two swaps
    gaps = np.zeros(T)
    converged_at = -1
    last = 0
    new_bids = np.empty((m, n))
    y = np.empty(n)
    for t in range(1, T):
        for idx in range(m):
            i = perms[t - 1, idx] if order_mode == _RAND else idx
            for j in range(n):
                y[j] = Y[j] - bids[i, j] + reserve
            nb, s = _next_bids(w, budgets, bids, y, i, k, finite, method, step)
            swaps[t] += s
            if s > 2:
                over_two[t] += 1
            if order_mode == _SIM:
                new_bids[i] = nb
            else:
                for j in range(n):
                    Y[j] += nb[j] - bids[i, j]
                    bids[i, j] = nb[j]
        if order_mode == _SIM:
            for i in range(m):
                for j in range(n):
                    bids[i, j] = new_bids[i, j]
            Y[:] = 0.0
            for i in range(m):
                for j in range(n):
                    Y[j] += bids[i, j]
        utils[t] = _utilities(w, bids, reserve, k)
        if record_bids:
            history[t] = bids
        gap = _largest_mu_gap(w, bids, Y, reserve)
        gaps[t] = gap
        last = t
        if method == 0:
            done = True
            for i in range(m):
                if abs(utils[t, i] - utils[t - 1, i]) >= eps * scales[i]:
                    done = False
                    break
        else:
            done = gap < gap_tol
        if done and converged_at < 0:
            converged_at = t
            if stop_at_convergence:
                break
    return (
        bids,
        utils[: last + 1],
        history[: last + 1] if record_bids else history,
        swaps[: last + 1],
        over_two[: last + 1],
        gaps[: last + 1],
        converged_at,
    )


@result_type
@dataclass(frozen=True, eq=False)
class DynamicsResult:
    """Trajectory of iterated bidding; T is the number of iterations run.

    Parameters
    ----------
    bids : numpy.ndarray
        Final bids, shape (n_users, n_machines).
    utilities : numpy.ndarray
        Shape (T+1, n_users): utilities after each iteration (row 0: the initial bids).
    welfare : numpy.ndarray
        Shape (T+1,): the sum of utilities.
    efficiency : numpy.ndarray
        Shape (T+1,): welfare / U*.
    converged : bool
        Whether the convergence test held.
    iterations : int
        The iteration at which the convergence test first held (the cap when it never did: the
        paper's "200 means non-convergence").
    stabilised : int
        The first iteration after which efficiency never changes by more than ``eps`` again.
    swaps : numpy.ndarray
        Shape (T+1,), int64: local-search swaps made per iteration (finite parallelism).
    swaps_over_two : numpy.ndarray
        Shape (T+1,), int64: local-search calls per iteration that needed more than two swaps.
    mu_gap : numpy.ndarray
        Shape (T+1,): the largest relative marginal-utility gap over users.
    history : numpy.ndarray or None
        Shape (T+1, n_users, n_machines): bids after every iteration, or None unless
        ``record_bids``.
    optimum : float
        U*, the optimal welfare.
    """

    bids: np.ndarray
    utilities: np.ndarray
    welfare: np.ndarray
    efficiency: np.ndarray
    converged: bool
    iterations: int
    stabilised: int
    swaps: np.ndarray
    swaps_over_two: np.ndarray
    mu_gap: np.ndarray
    history: np.ndarray | None
    optimum: float


def run_dynamics(
    game: Game,
    method: str = "best_response",
    *,
    order: str = "sequential",
    max_iter: int | None = None,
    eps: float = 1e-3,
    step: float = 0.01,
    gap_tol: float = 0.05,
    initial_bids: ArrayLike | None = None,
    rng: Seed | None = None,
    stop_at_convergence: bool = True,
    record_bids: bool = False,
) -> DynamicsResult:
    """Iterate best responses or local greedy adjustments from weight-proportional bids.

    Parameters
    ----------
    game : Game
        The instance; it needs ``reserve > 0``. With ``game.parallelism`` set, best response is the
        local-search heuristic (EC §4.2).
    method : {"best_response", "local_greedy"}, default "best_response"
        The update rule; local greedy needs infinite parallelism.
    order : {"sequential", "simultaneous", "random"}, default "sequential"
        Users update one after another on the latest bids, all at once on the previous iteration's
        bids, or one after another in a fresh random order each iteration (``rng``). The paper does
        not say which it used [NR].
    max_iter : int or None, default None
        The cap on iterations, >= 1 (None: 200 for best response, 500 for local greedy, the paper's
        horizons).
    eps : float, default 1e-3
        Utility-change threshold of best response's convergence (paper: 0.001): converged when
        every user's utility changes by less than ``eps`` times the sum of its weights (its utility
        were it alone on every machine) in a round, so the test does not depend on the weights'
        scale (on weights summing to 1 per user it is the paper's absolute test). Also the
        efficiency-change threshold of welfare stabilisation [INF]; 0 (exact) or from 1e-15 to 0.1.
    step : float, default 0.01
        Local greedy: the money moved per adjustment, as a fraction of the budget, in [1e-15, 1] (a
        smaller fraction is lost in the rounding of bids of the budget's order:
        :data:`~fairlib._validate.TOL_MIN`). Not given in the paper [NR] ("a fixed small amount").
    gap_tol : float, default 0.05
        Local greedy's convergence: the largest relative marginal-utility gap, > 0 (not given in the
        paper [NR]).
    initial_bids : array_like or None, default None
        Shape (n_users, n_machines): starting bids, finite, >= 0, each row summing to the user's
        budget. None: the weight-proportional bids.
    rng : int, numpy.random.Generator or None, default None
        Seed of the random update orders (``order="random"``); None: fresh OS entropy, a different
        draw on every call (pass an integer to repeat it).
    stop_at_convergence : bool, default True
        Whether to stop at the first iteration the convergence test holds (False: run ``max_iter``
        iterations).
    record_bids : bool, default False
        Whether to keep every iteration's bids in ``history``.

    Returns
    -------
    DynamicsResult
        The trajectory.

    Raises
    ------
    InvalidInputError
        On an invalid argument, a game without a reserve, local greedy with finite parallelism,
        initial bids of the wrong shape, not spending the budgets or with pandas labels that are
        not the game's weights', or an option the chosen rule
        does not read (``step`` or ``gap_tol`` with best response, ``rng`` without
        ``order="random"``).

    References
    ----------
    .. [1] M. Feldman, K. Lai, L. Zhang, "A Price-Anticipating Resource Allocation Mechanism for
       Distributed Shared Clusters", EC '05, 2005, §4–5.
    """
    record_bids = as_flag(record_bids, "record_bids")
    stop_at_convergence = as_flag(stop_at_convergence, "stop_at_convergence")
    as_instance(game, Game, "game")
    check_choice(method, METHODS, "method")
    check_choice(order, ORDERS, "order")
    if method == "local_greedy" and game.parallelism is not None:
        raise InvalidInputError("local_greedy is defined for infinite parallelism only (EC §4.3)")
    step = as_number(step, "step", minimum=TOL_MIN, inclusive=True, maximum=1.0)
    g = as_rng(rng)
    eps, gap_tol = as_tolerance(eps, "eps", zero=True), as_tolerance(gap_tol, "gap_tol")
    # an option the chosen rule never reads is refused, not ignored: a caller who set it expected
    # it to change the run
    unread = [
        f"{name}={value!r} (local_greedy only)"
        for name, value, default in (("step", step, 0.01), ("gap_tol", gap_tol, 0.05))
        if method == "best_response" and value != default
    ]
    if rng is not None and order != "random":
        unread.append(f"rng={rng!r} (order='random' only)")
    if unread:
        raise InvalidInputError(
            f"{', '.join(unread)}: not read by method={method!r}, order={order!r}; leave it out "
            "or choose the rule that reads it"
        )
    if max_iter is None:
        max_iter = 200 if method == "best_response" else 500
    max_iter = as_count(max_iter, "max_iter", maximum=MAX_ITERATIONS)
    if game.reserve == 0:
        raise InvalidInputError(
            f"game.reserve = {game.reserve!r}: must be > 0 for best-response dynamics: a user "
            "alone on a machine has no best response otherwise (build the game with e.g. "
            "reserve=1e-9, the existence proof's perturbation)"
        )
    m, n = game.weights.shape
    k = game.parallelism if game.parallelism is not None else np.full(m, n, dtype=np.int64)
    for axis in (0, 1):  # users and machines, as the game's weights label them
        _check_aligned(initial_bids, "initial_bids", axis, ("game.weights", game.labels, axis))
    x0 = (
        weight_proportional_bids(game.weights, game.budgets, game.parallelism)
        if initial_bids is None
        else as_values(initial_bids, "initial_bids", ndim=2, sign=None)
    )
    if x0.shape != (m, n):
        raise InvalidInputError(f"initial_bids: expected shape {(m, n)}, got {x0.shape}")
    bad = ~np.isfinite(x0) | (x0 < 0)
    if bad.any():
        i, j = map(int, np.argwhere(bad)[0])
        raise InvalidInputError(
            f"initial_bids[{i}, {j}] = {x0[i, j]}: bids must be finite and >= 0"
        )
    off = ~np.isclose(x0.sum(axis=1), game.budgets, rtol=1e-9, atol=0.0)
    if off.any():
        i = int(np.argmax(off))
        raise InvalidInputError(
            f"initial_bids[{i}] sums to {x0[i].sum()}: a user bids its whole budget "
            f"{game.budgets[i]}"
        )
    # shares, utilities and efficiency do not change when budgets, bids and the reserve are scaled
    # together: iterate at unit scale so budgets near the float range neither overflow nor underflow
    # (a Game's reserve is within MONEY_RATIO of its largest budget, so reserve / scale is a normal
    # number)
    scale = float(max(game.budgets.max(), game.reserve))
    # utilities scale with the weights: iterate on weights at unit scale too (no subnormal
    # utilities at 1e-300) and test each user's utility change relative to the sum of its weights,
    # so the stopping test reads the same at every scale of the weights
    wscale = float(game.weights.max())
    w_unit = game.weights / wscale
    scales = w_unit.sum(axis=1)
    perms = (
        np.array([g.permutation(m) for _ in range(max_iter)], dtype=np.int64)
        if order == "random"
        else np.zeros((1, m), dtype=np.int64)
    )
    mode = {"sequential": _SEQ, "simultaneous": _SIM, "random": _RAND}[order]
    bids, utils, hist, swaps, over_two, gaps, conv = _run(
        w_unit,
        game.budgets / scale,
        x0 / scale,
        game.reserve / scale,
        k,
        game.parallelism is not None,
        0 if method == "best_response" else 1,
        mode,
        perms,
        int(max_iter),
        float(eps),
        scales,
        float(step),
        float(gap_tol),
        bool(stop_at_convergence),
        bool(record_bids),
    )
    bids = bids * scale
    utils = utils * wscale
    if record_bids:
        hist = hist * scale
    optimum = game.optimum()
    welfare = utils.sum(axis=1)
    eff = welfare / optimum
    change = np.abs(np.diff(eff))
    big = np.flatnonzero(change > eps)
    stabilised = int(big[-1] + 1) if big.size else 0
    return DynamicsResult(
        bids=bids,
        utilities=utils,
        welfare=welfare,
        efficiency=eff,
        converged=conv >= 0,
        iterations=int(conv) if conv >= 0 else int(max_iter),
        stabilised=stabilised,
        swaps=swaps,
        swaps_over_two=over_two,
        mu_gap=gaps,
        history=hist if record_bids else None,
        optimum=optimum,
    )
