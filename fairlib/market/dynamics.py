"""Iterated bidding: best response (infinite and finite parallelism) and local greedy adjustment (EC'05 §4–5).

Every user starts from bids proportional to its weights and then updates, in the chosen order, once
per iteration. Convergence is tested exactly as the paper states it: best response — every user's
utility changes by less than ε = 0.001 between iterations; local greedy — the marginal-utility gap
(highest marginal utility over the lowest one among machines the user bids on, relative) falls below
a threshold for every user. Welfare *stabilisation* is tracked separately.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._jit import njit
from .._validate import (
    as_flag,
    MAX_ITERATIONS,
    InvalidInputError,
    as_count,
    as_instance,
    as_number,
    as_rng,
    as_values,
    check_choice,
    result_type,
)
from .best_response import _best_response, _local_search
from .game import Game, weight_proportional_bids

__all__ = ["run_dynamics", "DynamicsResult", "ORDERS", "METHODS"]

ORDERS = ("sequential", "simultaneous", "random")
METHODS = ("best_response", "local_greedy")
_SEQ, _SIM, _RAND = 0, 1, 2


@njit(cache=True)
def _utilities(w, bids, reserve, k):
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
    """Relative gap between the highest marginal utility and the lowest one on machines user i bids on."""
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
    """Local greedy adjustment (EC'05 §4.2): move ``step`` × budget from the machine with the lowest marginal
    utility μ_j = w_j y_j / (x_j + y_j)² among those the user bids on to the one with the highest."""
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
    """User i's next bids against the others' prices ``y``: its best response (§3.1's closed form, or local search
    with finite parallelism ``k[i]``) or a local greedy step; with the swaps local search made (0 otherwise)."""
    if method == 0:
        if finite:
            return _local_search(w[i], y, budgets[i], k[i])
        return _best_response(w[i], y, budgets[i]), 0
    return _local_greedy_step(w[i], bids[i], y, budgets[i], step), 0


@njit(cache=True)
def _largest_mu_gap(w, bids, Y, reserve):
    """max over users of the relative marginal-utility gap (:func:`_mu_gap`), 0 at an equilibrium."""
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
    step,
    gap_tol,
    stop_at_convergence,
    record_bids,
):
    """Iterated bidding (EC'05 §4): up to ``max_iter`` rounds, each user in turn (``order_mode``: sequential, in
    ``perms``' random order, or all simultaneously against the previous round's prices) replacing its bids by
    :func:`_next_bids`. Converged when no utility changes by ``eps`` or more (best response; the paper's test) or
    the largest marginal-utility gap is below ``gap_tol`` (local greedy). Returns the final bids and per-round
    utilities, bids (if ``record_bids``), swaps, calls over two swaps, gaps, and the round it converged (-1)."""
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
                if abs(utils[t, i] - utils[t - 1, i]) >= eps:
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
@dataclass(frozen=True)
class DynamicsResult:
    """Trajectory of iterated bidding.

    Attributes
    ----------
    bids : (m, n) final bids.
    utilities : (T+1, m) utilities after each iteration (row 0: the initial bids).
    welfare : (T+1,) sum of utilities; efficiency : (T+1,) welfare / U*.
    converged : bool; iterations : int — iteration at which the convergence test first held (the cap
        when it never did, the paper's "200 means non-convergence").
    stabilised : int — first iteration after which efficiency never changes by more than ``eps`` again.
    swaps : (T+1,) local-search swaps made per iteration (finite parallelism).
    swaps_over_two : (T+1,) local-search calls per iteration that needed more than two swaps.
    mu_gap : (T+1,) largest relative marginal-utility gap over users.
    history : (T+1, m, n) bids after every iteration, or None.
    optimum : float — U*.
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
    initial_bids=None,
    rng=None,
    stop_at_convergence: bool = True,
    record_bids: bool = False,
) -> DynamicsResult:
    """Iterate best responses or local greedy adjustments from weight-proportional bids.

    Parameters
    ----------
    game : Game
        With ``game.parallelism`` set, best response is the local-search heuristic (EC §4.2).
    method : {"best_response", "local_greedy"}
    order : {"sequential", "simultaneous", "random"}
        Users update one after another on the latest bids (default), all at once on the previous
        iteration's bids, or one after another in a fresh random order each iteration (``rng``).
        The paper does not say which it used [NR].
    max_iter : int, optional
        Cap (default 200 for best response, 500 for local greedy — the paper's horizons).
    eps : float
        Utility-gap threshold for best response (paper: 0.001), also the efficiency-change threshold
        of welfare stabilisation [INF].
    step : float
        Local greedy: the money moved per adjustment, as a fraction of the budget. Not given in the
        paper [NR]; default 0.01 ("a fixed small amount").
    gap_tol : float
        Local greedy convergence: largest relative marginal-utility gap (not given in the paper [NR];
        default 0.05).
    """
    record_bids = as_flag(record_bids, "record_bids")
    stop_at_convergence = as_flag(stop_at_convergence, "stop_at_convergence")
    as_instance(game, Game, "game")
    check_choice(method, METHODS, "method")
    check_choice(order, ORDERS, "order")
    if method == "local_greedy" and game.parallelism is not None:
        raise InvalidInputError("local_greedy is defined for infinite parallelism only (EC §4.3)")
    step = as_number(step, "step", maximum=1.0)
    as_rng(rng)  # checked before the run; drawn from below
    eps, gap_tol = as_number(eps, "eps", inclusive=True), as_number(gap_tol, "gap_tol")
    if max_iter is None:
        max_iter = 200 if method == "best_response" else 500
    max_iter = as_count(max_iter, "max_iter", maximum=MAX_ITERATIONS)
    if game.reserve == 0:
        raise InvalidInputError(
            "run_dynamics needs game.reserve > 0: a user alone on a machine has no best "
            "response otherwise (use e.g. reserve=1e-6, the existence proof's perturbation)"
        )
    m, n = game.weights.shape
    k = game.parallelism if game.parallelism is not None else np.full(m, n, dtype=np.int64)
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
    # shares, utilities and efficiency do not change when budgets, bids and the reserve are scaled together:
    # iterate at unit scale so budgets near the float range neither overflow nor underflow
    scale = float(max(game.budgets.max(), game.reserve))
    if game.reserve / scale == 0.0:
        raise InvalidInputError(
            f"reserve = {game.reserve}: more than the float range below the largest budget "
            f"({scale:g})"
        )
    g = as_rng(rng)
    perms = (
        np.array([g.permutation(m) for _ in range(max_iter)], dtype=np.int64)
        if order == "random"
        else np.zeros((1, m), dtype=np.int64)
    )
    mode = {"sequential": _SEQ, "simultaneous": _SIM, "random": _RAND}[order]
    bids, utils, hist, swaps, over_two, gaps, conv = _run(
        game.weights,
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
        float(step),
        float(gap_tol),
        bool(stop_at_convergence),
        bool(record_bids),
    )
    bids = bids * scale
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
