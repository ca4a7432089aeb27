"""PS-DSF: per-server weighted max-min on virtual dominant shares (Khamse-Ashari et al. §2.3,
Definition 4).

An allocation is PS-DSF when it is feasible and no x[n, i] can be increased without decreasing some
x[m, i] on the same server with ŝ[m, i] <= ŝ[n, i] (ŝ = weighted VDS, :mod:`.cluster`).

The ICC'17 algorithm that computes it was not recovered (reconstructions §5.7, [NR]). Two
constructions of ours ([DRV]). **Default**: the limit of a smoothed market on per-server prices,
solved by Newton's method (:mod:`.psdsf_market`; ~20 Newton steps, Definition 4 to ~1e-9). It
describes servers with one VDS level (every usable user loads the constraint that fills the server:
always so when all users of a server load the same constraints). **Where that fails, and as the
cross-check: per-server progressive filling on the weighted VDS, iterated over servers to a fixed
point (Gauss-Seidel)**. For server i, with the other servers' totals x_{n,-i} fixed, raise a level
L; usable user n gets x[n, i](L) = max(0, φ_n γ[n, i] L - x_{n,-i}), so its weighted VDS is max(L,
x_{n,-i}/(φ_n γ[n, i])). At the first L where a resource saturates, every still-active user
demanding it is frozen; the rest continue. A fixed point satisfies Definition 4 at every server
(checked by :func:`psdsf_violation`). Convergence of the outer loop is not proven: it is capped and
the residual reported (it cycles on ~1% of small random instances).

Definition 4 does not determine the allocation uniquely: on random clusters the two constructions
return different Definition 4 allocations on ~10-15% of instances (totals up to a few percent apart,
neither always dominating). The market's is one principled selection (the limit of a unique smoothed
equilibrium); which one PF-VDS(α) tends to as α → ∞ is not established.

Time-shared (non-divisible) servers, Problem 2 / Theorem 5: each server's only constraint is
Σ_n x[n, i] / γ[n, i] <= 1; :func:`psdsf` with ``time_shared=True`` fills that constraint instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .._jit import interpreted_when_small, njit
from .._validate import as_flag, InvalidInputError, as_instance, check_choice
from ._engine.options import MethodOptions
from ._engine.psdsf_market import psdsf_market
from .cluster import Allocation, Cluster

__all__ = ["psdsf", "psdsf_violation"]


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
def _psdsf_kernel(d3, cap, coef, usable, max_sweeps, tol, start, max_tasks, accelerate):
    """Gauss-Seidel over servers from ``start``; returns (tasks[n, i], sweeps, last change, jumps).

    The iteration has two slow regimes, and ``accelerate`` skips both where it sees them (three
    sweeps whose changes point the same way and shrink by the same ratio ρ):

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
    max_sweeps : int
        Sweep cap.
    tol : float
        The stopping rule: a sweep's largest change relative to the largest total.
    start : (N, K) ndarray
        The starting allocation.
    max_tasks : (N,) ndarray
        Each user's cap on its total tasks (inf: none).
    accelerate : bool
        Whether to extrapolate linear convergence and drift (above).

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


@dataclass(frozen=True)
class MarketOptions(FixedPointOptions):
    """``psdsf``'s ``options`` with ``method="market"``: those of the fixed point it hands over to
    (where its allocation leaves a usable user without a full constraint, it did not converge, or
    the cluster has caps).

    Parameters
    ----------
    max_sweeps : int >= 1
        The fixed point's sweeps.
    tol : float in [1e-15, 0.1]
        The fixed point's stopping rule.
    """


#: each method's option type
METHOD_OPTIONS = {"market": MarketOptions, "fixed_point": FixedPointOptions}


@interpreted_when_small(bounded=lambda *args, method="market", **_: method == "market")
def psdsf(
    cluster: Cluster,
    *,
    time_shared: bool = False,
    method: str = "market",
    options: Mapping | None = None,
) -> Allocation:
    """PS-DSF allocation (Definition 4).

    Parameters
    ----------
    cluster : Cluster
        The instance (weights, placement constraints and per-user caps honoured).
    time_shared : bool
        Problem 2 (non-divisible servers, Theorem 5): server i's only constraint is Σ_n x[n, i] /
        γ[n, i] <= 1 instead of its per-resource capacities.
    method : {"market", "fixed_point"}
        ``"market"`` (default): Newton on the smoothed per-server price equations
        (:mod:`fairlib.multires._engine.psdsf_market`); where its allocation leaves a usable user
        without a full constraint on some server (several VDS levels there, possible only when users
        of a server load different constraints) or it did not converge, or the cluster has per-user
        caps (``max_tasks``), the fixed point computes the allocation instead and
        ``diagnostics["handover"]`` says why. ``"fixed_point"``: per-server progressive filling
        iterated to a fixed point (Gauss-Seidel).
    options : mapping, optional
        The method's own options, checked against ``METHOD_OPTIONS[method]`` (an option the method
        does not take is refused); for both methods those of the fixed point (the market hands over
        to it): ``max_sweeps`` (default 50,000) and ``tol`` (default 1e-12). The Gauss-Seidel loop
        stops when no x[n, i] moved by more than ``tol`` times the largest total in a sweep, or
        after ``max_sweeps`` sweeps. The iteration does not cycle on the instances we have seen, but
        it can drift for a long time before it settles (up to ~9,000 sweeps over 3,000 random 5-user
        clusters, divisible and time-shared), hence the large default; a sweep on a small cluster
        costs microseconds.

    Returns
    -------
    Allocation
        Tasks per (user, server), with diagnostics ``method``, ``converged``, and
        ``sweeps``/``last_change`` (fixed point) or ``newton_iterations``, ``evaluations``,
        ``stages``, ``retries``, ``mu``, ``residual`` (market).

    References
    ----------
    Khamse-Ashari, Lambadaris, Kesidis, Urgaonkar, Zhao, "An Efficient and Fair Multi-Resource
    Allocation Mechanism for Heterogeneous Servers", IEEE TPDS 2018, §2.3, Definition 4.

    Examples
    --------
    One server reduces to DRF: demands (1, 4) and (3, 1) on (9, 18) give 3 and 2 tasks.

    >>> psdsf(Cluster([[9, 18]], [[1, 4], [3, 1]])).tasks.round(9).ravel().tolist()
    [3.0, 2.0]
    """
    time_shared = as_flag(time_shared, "time_shared")
    as_instance(cluster, Cluster, "cluster")
    if not isinstance(cluster, Cluster):
        raise InvalidInputError(f"cluster: expected a Cluster, got {type(cluster).__name__}")
    check_choice(method, tuple(METHOD_OPTIONS), "method")
    opts = METHOD_OPTIONS[method].of(options, method)
    max_sweeps, tol = opts.max_sweeps, opts.tol
    name = "psdsf_time_shared" if time_shared else "psdsf"
    if method != "fixed_point" and cluster.capped:  # the market has no caps: the fixed point has
        return _fixed_point(
            cluster,
            time_shared,
            int(max_sweeps),
            float(tol),
            np.zeros((cluster.n_users, cluster.n_servers)),
            {"method": "market+fixed_point", "handover": "per-user caps"},
        )
    if method != "fixed_point":
        tasks, diag = psdsf_market(cluster, time_shared=time_shared)
        if diag["converged"] and not _free_pairs(cluster, tasks, time_shared):
            return Allocation.from_diagnostics(cluster, tasks, name, {"method": "market", **diag})
        reason = "not converged" if not diag["converged"] else "several VDS levels on a server"
        return _fixed_point(
            cluster,
            time_shared,
            int(max_sweeps),
            float(tol),
            np.zeros((cluster.n_users, cluster.n_servers)),
            {"method": "market+fixed_point", "market": diag, "handover": reason},
        )
    return _fixed_point(
        cluster,
        time_shared,
        int(max_sweeps),
        float(tol),
        np.zeros((cluster.n_users, cluster.n_servers)),
        {"method": "fixed_point"},
    )


def _free_pairs(cluster, tasks, time_shared):
    """Whether some usable user loads no full constraint of some server: the server has several VDS
    levels (its users do not all load the constraint that fills it), which the market does not
    describe."""
    full = (cluster.load(tasks, time_shared) >= 1 - 1e-9).astype(float)  # [server, k]
    needs = np.ones((cluster.n_users, 1)) if time_shared else (cluster.demand > 0).astype(float)
    return bool((cluster.eligible & (needs @ full.T == 0)).any())


def _fixed_point(cluster, time_shared, max_sweeps, tol, start, diagnostics, accelerate=True):
    """PS-DSF by the fixed-point sweeps of its per-server max-min, from ``start``; returns tasks per
    pair."""
    coef = np.ascontiguousarray(cluster.weight[:, None] * cluster.gamma)
    usable = np.ascontiguousarray(cluster.eligible)
    d3, cap = cluster.server_constraints(time_shared)
    x, sweeps, change, jumps = _psdsf_kernel(
        d3,
        cap,
        coef,
        usable,
        max_sweeps,
        tol,
        np.ascontiguousarray(start),
        np.ascontiguousarray(cluster.max_tasks),
        bool(accelerate),
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


def psdsf_violation(
    cluster: Cluster, tasks, *, time_shared: bool = False, tol: float = 1e-7
) -> dict:
    """How far ``tasks`` is from Definition 4.

    For each server i and usable user n below its cap (``max_tasks``; a user at its cap wants no
    more): if no resource n needs is saturated on i, x[n, i] could grow for free (``free_pairs``).
    Otherwise Definition 4 fails when, for every saturated resource r that n
    needs, some other user m with x[m, i] > 0 and d[m, r] > 0 has a larger weighted VDS: n could
    grow by taking r from users above it. ``gap`` is the largest such min_r max_m (ŝ_m / ŝ_n - 1).

    Returns {"free_pairs", "violating_pairs", "gap", "holds"}.

    Parameters
    ----------
    cluster : Cluster
        The instance.
    tasks : (N, K) array_like
        Tasks per (user, server).
    time_shared : bool
        Problem 2: each server's one constraint Σ_n x[n, i]/γ[n, i] <= 1.
    tol : float
        The gap at or below which Definition 4 holds.

    Returns
    -------
    dict
        ``{"free_pairs", "violating_pairs", "gap", "holds"}``.
    """
    time_shared = as_flag(time_shared, "time_shared")
    as_instance(cluster, Cluster, "cluster")
    x = cluster._tasks(tasks)
    if not cluster.feasible(x, tol=tol):
        raise InvalidInputError(
            "tasks: infeasible for this cluster (capacity, eligibility or sign)"
        )
    vds = cluster.vds(x.sum(axis=1))
    d3, caps = cluster.server_constraints(time_shared)
    scale = max(float(x.sum(axis=1).max()), 1e-300)
    free = violating = 0
    gap = 0.0
    for i in range(cluster.n_servers):
        users = np.flatnonzero(cluster.eligible[:, i])
        demand, cap = d3[users, i], caps[i]
        used = x[users, i] @ demand
        sat = used >= cap * (1 - tol) - tol * 1e-3
        holders = x[users, i] > tol * scale
        for a, n in enumerate(users):
            if x[n].sum() >= cluster.max_tasks[n] * (1 - tol):
                continue
            need = demand[a] > 0
            if not (need & sat).any():
                free += 1
                continue
            best = np.inf
            for r in np.flatnonzero(need & sat):
                above = holders & (demand[:, r] > 0) & (vds[users, i] > vds[n, i] * (1 + tol))
                above[a] = False
                best = min(
                    best, (vds[users[above], i] / vds[n, i] - 1).max() if above.any() else -np.inf
                )
            if best > 0:
                violating += 1
                gap = max(gap, float(best))
    return {
        "free_pairs": free,
        "violating_pairs": violating,
        "gap": gap,
        "holds": free == 0 and violating == 0,
    }
