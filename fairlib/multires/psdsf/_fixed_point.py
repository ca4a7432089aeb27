"""PS-DSF by per-server progressive filling on the weighted VDS, iterated over servers to a fixed
point (Gauss-Seidel): ``psdsf(..., method="fixed_point")``, and the market's hand-over where the
market does not apply.

For server i, with the other servers' totals x_{n,-i} fixed, raise a level L; usable user n gets
x[n, i](L) = max(0, φ_n γ[n, i] L - x_{n,-i}), so its weighted VDS is
max(L, x_{n,-i}/(φ_n γ[n, i])). At the first L where a resource saturates, every still-active user
demanding it is frozen; the rest continue. A fixed point satisfies Definition 4 at every server
(checked by :func:`.conditions.psdsf_violation`). Convergence of the outer loop is not proven: it is
capped and the residual reported (it cycles on ~1% of small random instances). The front door is
:func:`fairlib.multires.psdsf.psdsf`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..._jit import njit
from ..._validate import InvalidInputError
from .._engine.options import MethodOptions
from ..cluster import Allocation, Cluster
from .conditions import psdsf_violation


class FixedPointLimits(NamedTuple):
    """When the fixed point's sweeps (:func:`_psdsf_kernel`) stop, and whether they extrapolate:
    built by the Python wrapper from :class:`FixedPointOptions` (:func:`limits_of`), passed to the
    kernel as one argument (numba compiles it as a tuple).

    Parameters
    ----------
    max_sweeps : int
        Sweep cap.
    tol : float
        The stopping rule: a sweep's largest change relative to the largest total.
    accelerate : bool
        Whether to extrapolate linear convergence and drift (:func:`_psdsf_kernel`).
    """

    max_sweeps: int
    tol: float
    accelerate: bool


@njit(cache=True)
def _fill_server(
    i, d3, cap, coef, usable, x_other, out, order, rising, frozen, used, slope, max_tasks
):
    """Progressive filling of server i on the weighted VDS; writes out[:] = x[:, i].

    d3[n, i, r]: per-task demand of n on server i; cap[r]: capacity; coef[n] = φ_n γ[n, i];
    max_tasks[n]: the user's cap on its total (inf: none). Event-driven: between events every rising
    user grows at coef[n] per unit of level; events are a user's breakpoint x_other/coef (it starts
    rising), a resource saturating (its users freeze) or a user's total reaching its cap at level
    max_tasks/coef (it freezes there). A user whose other servers already give it its cap takes
    nothing here.

    Parameters
    ----------
    i : int
        The server.
    d3 : (N, K, C) ndarray
        d3[n, i, r]: per-task use of server i's constraint r by user n.
    cap : (K, C) ndarray
        Each server's constraints' capacities.
    coef : (N, K) ndarray
        φ_n γ[n, i]: user n's rise per unit of weighted VDS on server i.
    usable : (N, K) bool ndarray
        Which (user, server) pairs may hold tasks.
    x_other : (N,) ndarray
        Each user's tasks on the other servers (scratch in :func:`_sweep`).
    out : (N,) ndarray
        The server's column x[:, i] (written).
    order : (N,) int64 ndarray
        Scratch: the users ordered by breakpoint.
    rising : (N,) bool ndarray
        Scratch: the users rising.
    frozen : (N,) bool ndarray
        Scratch: the users frozen.
    used : (C,) ndarray
        Scratch: the server's use of each constraint.
    slope : (C,) ndarray
        Scratch: the rate at which each constraint fills.
    max_tasks : (N,) ndarray
        Each user's cap on its total tasks (inf: none).
    """
    n_users = x_other.shape[0]
    m = cap.shape[0]
    count = 0
    for n in range(n_users):
        out[n] = 0.0
        rising[n] = False
        frozen[n] = not usable[n] or x_other[n] >= max_tasks[n]
        if not frozen[n]:
            order[count] = n
            count += 1
    if count == 0:
        return
    # sort the usable users by breakpoint (insertion into a sorted prefix; counts are small per
    # server)
    keys = np.empty(count)
    for t in range(count):
        keys[t] = x_other[order[t]] / coef[order[t]]
    perm = np.argsort(keys, kind="mergesort")
    sorted_users = np.empty(count, dtype=np.int64)
    for t in range(count):
        sorted_users[t] = order[perm[t]]
    for r in range(m):
        used[r] = 0.0
        slope[r] = 0.0
    saturated = np.zeros(m, dtype=np.bool_)
    nxt = 0  # next user (in breakpoint order) not yet rising
    level = keys[perm[0]]
    active = count
    while active > 0:
        # users whose breakpoint has been reached start rising
        while nxt < count and x_other[sorted_users[nxt]] / coef[sorted_users[nxt]] <= level:
            n = sorted_users[nxt]
            nxt += 1
            if frozen[n]:
                continue
            rising[n] = True
            for r in range(m):
                slope[r] += coef[n] * d3[n, i, r]
        next_break = np.inf
        while nxt < count and frozen[sorted_users[nxt]]:
            nxt += 1
        if nxt < count:
            next_break = x_other[sorted_users[nxt]] / coef[sorted_users[nxt]]
        rise = np.inf
        hit = -1
        for r in range(m):
            if slope[r] > 0.0 and not saturated[r]:
                room = (cap[r] - used[r]) / slope[r]
                if room < rise:
                    rise = room
                    hit = r
        if rise < 0.0:
            rise = 0.0
        next_cap = np.inf  # the lowest level at which a rising user's total reaches its cap
        for n in range(n_users):
            if rising[n] and max_tasks[n] / coef[n] < next_cap:
                next_cap = max_tasks[n] / coef[n]
        if next_cap < np.inf and next_cap <= next_break and next_cap <= level + rise:
            for r in range(m):
                used[r] += slope[r] * (next_cap - level)
            level = next_cap
            for n in range(n_users):
                if rising[n] and max_tasks[n] / coef[n] <= level:
                    frozen[n] = True
                    active -= 1
                    rising[n] = False
                    out[n] = max(0.0, max_tasks[n] - x_other[n])
                    for r in range(m):
                        slope[r] -= coef[n] * d3[n, i, r]
                        if slope[r] < 0.0:
                            slope[r] = 0.0
            continue
        if hit < 0 or level + rise > next_break:
            if next_break == np.inf:
                break  # nothing rising and nobody left: cannot happen for usable users
            for r in range(m):
                used[r] += slope[r] * (next_break - level)
            level = next_break
            continue
        level += rise
        for r in range(m):
            used[r] += slope[r] * rise
        # every resource full at this level (ties) saturates together
        for r in range(m):
            if not saturated[r] and slope[r] > 0.0 and used[r] >= cap[r] * (1.0 - 1e-12):
                saturated[r] = True
                used[r] = cap[r]
        for n in range(n_users):
            if frozen[n]:
                continue
            blocked = False
            for r in range(m):
                if saturated[r] and d3[n, i, r] > 0.0:
                    blocked = True
                    break
            if not blocked:
                continue
            frozen[n] = True
            active -= 1
            if rising[n]:
                out[n] = coef[n] * level - x_other[n]
                if out[n] < 0.0:
                    out[n] = 0.0
                rising[n] = False
                for r in range(m):
                    slope[r] -= coef[n] * d3[n, i, r]
                    if slope[r] < 0.0:
                        slope[r] = 0.0
    for n in range(n_users):  # users still rising when the loop ends (none in practice)
        if rising[n]:
            out[n] = max(0.0, coef[n] * level - x_other[n])


#: a jump needs this many consecutive sweeps whose changes point the same way and shrink by the same
#: ratio
_STEADY_SWEEPS = 3
#: ... to within this much; the ratio must be below _JUMP_RATIO for an Aitken jump (at most ratio /
#: (1 - ratio) = 199 changes at once) or within _DRIFT_RATIO of 1 for a drift (the same change sweep
#: after sweep)
_RATIO_STEADY = 1e-7
_JUMP_RATIO = 0.995
_DRIFT_RATIO = 1e-6
#: a drift jump is kept when the sweep after it changes x by the drift's own change, to this much
#: (relative)
_DRIFT_CHECK = 1e-6


@njit(cache=True)
def _sweep(
    d3, cap, coef, usable, x, totals, col, x_other, order, rising, frozen, used, slope, max_tasks
):
    """One Gauss-Seidel sweep over the servers, in place; returns (largest change of an x[n, i],
    largest total).

    Parameters
    ----------
    d3 : (N, K, C) ndarray
        d3[n, i, r]: per-task use of server i's constraint r by user n.
    cap : (K, C) ndarray
        Each server's constraints' capacities.
    coef : (N, K) ndarray
        φ_n γ[n, i]: user n's rise per unit of weighted VDS on server i.
    usable : (N, K) bool ndarray
        Which (user, server) pairs may hold tasks.
    x : (N, K) ndarray
        Tasks per (user, server), updated in place.
    totals : (N,) ndarray
        Each user's total, updated in place.
    col : (N,) ndarray
        Scratch: one server's column.
    x_other : (N,) ndarray
        Each user's tasks on the other servers (scratch in :func:`_sweep`).
    order : (N,) int64 ndarray
        Scratch: the users ordered by breakpoint.
    rising : (N,) bool ndarray
        Scratch: the users rising.
    frozen : (N,) bool ndarray
        Scratch: the users frozen.
    used : (C,) ndarray
        Scratch: the server's use of each constraint.
    slope : (C,) ndarray
        Scratch: the rate at which each constraint fills.
    max_tasks : (N,) ndarray
        Each user's cap on its total tasks (inf: none).

    Returns
    -------
    change : float
        The largest change of an x[n, i].
    scale : float
        The largest total.
    """
    n_users, n_servers, _ = d3.shape
    change = 0.0
    scale = 0.0
    for i in range(n_servers):
        for n in range(n_users):
            x_other[n] = totals[n] - x[n, i]
        _fill_server(
            i,
            d3,
            cap[i],
            coef[:, i],
            usable[:, i],
            x_other,
            col,
            order,
            rising,
            frozen,
            used,
            slope,
            max_tasks,
        )
        for n in range(n_users):
            delta = abs(col[n] - x[n, i])
            if delta > change:
                change = delta
            x[n, i] = col[n]
            totals[n] = x_other[n] + col[n]
            if totals[n] > scale:
                scale = totals[n]
    return change, scale


@njit(cache=True)
def _step_along(x, totals, step, factor):
    """x += factor · step, in place, clamped at 0, with each user's total recomputed (a jump of the
    fixed point).

    Parameters
    ----------
    x : (N, K) ndarray
        Tasks per (user, server), moved in place.
    totals : (N,) ndarray
        Each user's total, moved in place.
    step : (N, K) ndarray
        The direction.
    factor : float
        The multiple of ``step`` added.
    """
    n_users, n_servers = x.shape
    for n in range(n_users):
        total = 0.0
        for i in range(n_servers):
            x[n, i] = max(0.0, x[n, i] + factor * step[n, i])
            total += x[n, i]
        totals[n] = total


@njit(cache=True)
def _psdsf_kernel(d3, cap, coef, usable, start, max_tasks, limits):
    """Gauss-Seidel over servers from ``start``; returns (tasks[n, i], sweeps, last change, jumps).

    The iteration has two slow regimes, and ``limits.accelerate`` skips both where it sees them
    (three sweeps whose changes point the same way and shrink by the same ratio ρ):

    - linear convergence (ρ < 0.995): the remaining geometric series is added in one step (Aitken's
      Δ², x + Δ·ρ/(1 - ρ)), and the sweeps go on from there;
    - drift (ρ = 1: x moves by the same Δ sweep after sweep, along a face of the allocation's
      piecewise-linear map, until some user's level crosses another's): x jumps k sweeps ahead, x +
      k·Δ, and the sweep from there must move it by Δ again; if it does, the jump stood on the
      plain iteration's own path and the next jump is twice as long, else x goes back and k is
      halved.

    A jump is kept when the sweep after it moves x by Δ to within 1e-6 of Δ: a drift is rarely
    exact (its direction turns by ~1e-9 per sweep), while a jump past the face's end changes some
    user's move by a share of Δ. The stopping rule is still a sweep's own change. On the Google
    open-loop epochs this takes ~2,000 sweeps to ~400, and on a whole Google cell's capped jobs
    (4,000 users on 10 machine kinds) ~800 to ~320, within 1e-10 (relative) of the plain iteration's
    limit, about where the plain iteration stops short of it (tests/test_psdsf_acceleration.py;
    docs/performance.md).

    Parameters
    ----------
    d3 : (N, K, C) ndarray
        d3[n, i, r]: per-task use of server i's constraint r by user n.
    cap : (K, C) ndarray
        Each server's constraints' capacities.
    coef : (N, K) ndarray
        φ_n γ[n, i]: user n's rise per unit of weighted VDS on server i.
    usable : (N, K) bool ndarray
        Which (user, server) pairs may hold tasks.
    start : (N, K) ndarray
        The starting allocation.
    max_tasks : (N,) ndarray
        Each user's cap on its total tasks (inf: none).
    limits : FixedPointLimits
        When the sweeps stop, and whether they extrapolate.

    Returns
    -------
    tasks : (N, K) ndarray
        The allocation.
    sweeps : int
        Sweeps made.
    change : float
        The last sweep's largest relative change.
    jumps : int
        Extrapolations kept.
    """
    max_sweeps = limits.max_sweeps
    tol = limits.tol
    accelerate = limits.accelerate
    n_users, n_servers, m = d3.shape
    x = start.copy()
    totals = x.sum(axis=1)
    col = np.zeros(n_users)
    x_other = np.zeros(n_users)
    order = np.zeros(n_users, dtype=np.int64)
    rising = np.zeros(n_users, dtype=np.bool_)
    frozen = np.zeros(n_users, dtype=np.bool_)
    used = np.zeros(m)
    slope = np.zeros(m)
    before = x.copy()
    saved = x.copy()
    saved_totals = totals.copy()
    last = np.zeros_like(x)  # the previous sweep's change
    last_norm = -1.0
    last_ratio = -1.0
    steady = 0
    jumps = 0
    drift_steps = 16
    change = np.inf
    sweeps = 0
    while sweeps < max_sweeps:
        sweeps += 1
        before[:, :] = x
        change, scale = _sweep(
            d3,
            cap,
            coef,
            usable,
            x,
            totals,
            col,
            x_other,
            order,
            rising,
            frozen,
            used,
            slope,
            max_tasks,
        )
        if change <= tol * max(scale, 1e-300):
            break
        if not accelerate:
            continue
        dot = 0.0
        now_sq = 0.0
        last_sq = 0.0
        for n in range(n_users):
            for i in range(n_servers):
                d = x[n, i] - before[n, i]
                dot += d * last[n, i]
                now_sq += d * d
                last_sq += last[n, i] * last[n, i]
                last[n, i] = d
        if not (last_norm > 0.0 and now_sq > 0.0 and last_sq > 0.0):
            last_norm = change
            continue
        ratio = change / last_norm
        aligned = dot / np.sqrt(now_sq * last_sq) > 1.0 - 1e-9
        if last_ratio >= 0.0 and abs(ratio - last_ratio) < _RATIO_STEADY and aligned:
            steady += 1
        else:
            steady = 0
            drift_steps = 16  # a new regime: drift jumps start short again
        last_ratio = ratio
        last_norm = change
        if steady < _STEADY_SWEEPS:
            continue
        if ratio < _JUMP_RATIO:
            _step_along(x, totals, last, ratio / (1.0 - ratio))
            jumps += 1
            steady = 0
            last_ratio = -1.0
            last_norm = -1.0
        elif abs(ratio - 1.0) < _DRIFT_RATIO and drift_steps >= 2 and sweeps < max_sweeps:
            # k sweeps ahead, no further than where a component would turn negative or a total pass
            # its cap
            k = float(drift_steps)
            for n in range(n_users):
                step_total = 0.0
                for i in range(n_servers):
                    step_total += last[n, i]
                    if (
                        last[n, i] < 0.0 and x[n, i] > 0.0
                    ):  # one at 0 already stays there (clamped below)
                        k = min(k, np.floor(x[n, i] / -last[n, i]))
                if step_total > 0.0 and max_tasks[n] < np.inf:
                    k = min(k, np.floor((max_tasks[n] - totals[n]) / step_total))
            if k < 2.0:
                drift_steps = 0  # a boundary is near: plain sweeps take it from here
                continue
            saved[:, :] = x
            saved_totals[:] = totals
            _step_along(x, totals, last, k)
            sweeps += 1
            before[:, :] = x
            change, scale = _sweep(
                d3,
                cap,
                coef,
                usable,
                x,
                totals,
                col,
                x_other,
                order,
                rising,
                frozen,
                used,
                slope,
                max_tasks,
            )
            off = 0.0
            for n in range(n_users):
                for i in range(n_servers):
                    off = max(off, abs(x[n, i] - before[n, i] - last[n, i]))
            if off <= _DRIFT_CHECK * max(last_norm, 1e-300):
                jumps += 1
                drift_steps *= 2
                if change <= tol * max(scale, 1e-300):
                    break
            else:  # past the face's end: back, and half as far next time
                x[:, :] = saved
                totals[:] = saved_totals
                drift_steps //= 2
                steady = 0
                last_ratio = -1.0
    return x, sweeps, change, jumps


@dataclass(frozen=True)
class FixedPointOptions(MethodOptions):
    """``psdsf``'s ``options`` with ``method="fixed_point"``.

    Parameters
    ----------
    max_sweeps : int >= 1
        Gauss-Seidel sweeps of per-server progressive filling.
    tol : float in [1e-15, 0.1]
        The stopping rule: no x[n, i] moved by more than ``tol`` times the largest total in a sweep.
    """

    max_sweeps: int = 50_000
    tol: float = 1e-12

    def __post_init__(self):
        self._count("max_sweeps")
        self._tolerance("tol")


OPTIONS = FixedPointOptions


def limits_of(options: FixedPointOptions, accelerate: bool = True) -> FixedPointLimits:
    """The kernel's limits from the method's options (the market's hand-over uses those of the fixed
    point).

    Parameters
    ----------
    options : FixedPointOptions
        The options (``max_sweeps``, ``tol``).
    accelerate : bool
        Whether the sweeps extrapolate linear convergence and drift.

    Returns
    -------
    FixedPointLimits
        The bundle :func:`_psdsf_kernel` takes.
    """
    return FixedPointLimits(int(options.max_sweeps), float(options.tol), bool(accelerate))


def run(cluster: Cluster, time_shared: bool, options: FixedPointOptions) -> Allocation:
    """``method="fixed_point"``: the sweeps from no tasks.

    Parameters
    ----------
    cluster : Cluster
        The instance.
    time_shared : bool
        Problem 2: each server's one constraint Σ_n x[n, i]/γ[n, i] <= 1.
    options : FixedPointOptions
        The method's options.

    Returns
    -------
    Allocation
        The allocation (:func:`solve`).
    """
    return solve(
        cluster,
        time_shared,
        limits_of(options),
        np.zeros((cluster.n_users, cluster.n_servers)),
        {"method": "fixed_point"},
    )


def solve(
    cluster: Cluster, time_shared: bool, limits: FixedPointLimits, start, diagnostics: dict
) -> Allocation:
    """PS-DSF by the fixed-point sweeps of its per-server max-min, from ``start``.

    Parameters
    ----------
    cluster : Cluster
        The instance.
    time_shared : bool
        Problem 2: each server's one constraint Σ_n x[n, i]/γ[n, i] <= 1.
    limits : FixedPointLimits
        When the sweeps stop, and whether they extrapolate.
    start : (N, K) array_like
        The starting allocation.
    diagnostics : dict
        What the caller adds to the allocation's diagnostics (``method``, ``handover``).

    Returns
    -------
    Allocation
        Tasks per (user, server), with diagnostics ``sweeps``, ``jumps``, ``last_change``,
        ``converged`` and ``message``.
    """
    max_sweeps, tol = limits.max_sweeps, limits.tol
    coef = np.ascontiguousarray(cluster.weight[:, None] * cluster.gamma)
    usable = np.ascontiguousarray(cluster.eligible)
    d3, cap = cluster.server_constraints(time_shared)
    x, sweeps, change, jumps = _psdsf_kernel(
        d3,
        cap,
        coef,
        usable,
        np.ascontiguousarray(start),
        np.ascontiguousarray(cluster.max_tasks),
        limits,
    )
    converged = bool(sweeps < max_sweeps or change <= tol * max(x.sum(1).max(), 1e-300))
    message = (
        ""
        if converged
        else _not_converged_reason(
            cluster, x, time_shared, int(sweeps), float(change), diagnostics.get("handover")
        )
    )
    return Allocation.from_diagnostics(
        cluster,
        x,
        "psdsf_time_shared" if time_shared else "psdsf",
        {
            **diagnostics,
            "sweeps": int(sweeps),
            "jumps": int(jumps),
            "last_change": float(change),
            "converged": converged,
            "message": message,
        },
    )


def _not_converged_reason(cluster, x, time_shared, sweeps, change, handover):
    """Why a fixed point stopped short, and what the caller can do: the iteration can cycle between
    allocations (Gauss-Seidel over servers has no contraction guarantee), so the result is the last
    sweep's, with its Definition-4 gap."""
    try:
        gap = f"{psdsf_violation(cluster, x, time_shared=time_shared, tol=1e-7)['gap']:.2g}"
    except InvalidInputError:  # the last sweep is not even feasible to the checker's tolerance
        gap = "not measured (infeasible to 1e-7)"
    scale = max(float(x.sum(axis=1).max()), 1e-300)
    why = (
        f"the per-server fixed point did not converge in {sweeps} sweeps (last change "
        f"{change / scale:.2g} of the largest total; Definition-4 gap of the last sweep "
        f"{gap})"
    )
    if handover is not None:
        return (
            f"{why}; it was used because the market cannot ({handover}); no further method applies"
        )
    if cluster.capped:
        return f"{why}; the market does not honour per-user caps, so no other method applies"
    return f"{why}; method='market' (the default) computes PS-DSF without this iteration"
