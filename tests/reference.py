"""Slow, obviously-correct references for the fast kernels (differential tests).

The single-pool DRF references live in the library because the benchmarks and notebooks use them as
baselines; they are re-exported here so every test imports its reference from one place.
"""

import numpy as np

from fairlib.repro.experiments.heterogeneous_servers import proportional_fair_slsqp  # noqa: F401
from fairlib.multires.baselines import drf_argmin_loop, drf_heapq  # noqa: F401
from fairlib.multires import Cluster, random_cluster
from fairlib.multires.best_fit import FIT_SLACK
from fairlib.multires.lp import maxmin_lp  # noqa: F401


def progressive_filling_exact(
    demands,
    capacity,
    *,
    weights=None,
    stop="skip_blocked",
    tie_break="lowest_index",
    max_tasks=None,
    start=None,
    accumulated=False,
):
    """Progressive filling in exact rational arithmetic (``fractions.Fraction``), the obvious O(n)
    scan per task.

    Every share is compared exactly, so users whose shares are equal as fractions are tied and the
    tie rule decides: lowest index, or (``"higher_share"``) the higher per-task weighted share, then
    the lowest index. ``accumulated=True`` instead keeps each share as the float running sum ``s +=
    step`` (the author's scripts). Returns ``(tasks, order)``.
    """
    from fractions import Fraction

    d = [[Fraction(x) for x in row] for row in np.asarray(demands, dtype=float).tolist()]
    cap = [Fraction(c) for c in np.asarray(capacity, dtype=float).tolist()]
    n, m = len(d), len(cap)
    w = [
        Fraction(x)
        for x in (np.ones(n) if weights is None else np.asarray(weights, dtype=float)).tolist()
    ]
    step = [max(d[i][r] / cap[r] for r in range(m)) / w[i] for i in range(n)]
    step_f = [
        float(max(float(d[i][r]) / float(cap[r]) for r in range(m)) / float(w[i])) for i in range(n)
    ]
    caps = [None] * n if max_tasks is None else [int(x) for x in max_tasks]
    tasks = [0] * n if start is None else [int(x) for x in start]
    used = [sum(tasks[i] * d[i][r] for i in range(n)) for r in range(m)]
    acc = [0.0] * n
    for i in range(n):
        for _ in range(tasks[i]):
            acc[i] += step_f[i]
    active = [caps[i] is None or tasks[i] < caps[i] for i in range(n)]
    order = []
    while any(active):

        def key(i):
            share = acc[i] if accumulated else tasks[i] * step[i]
            rank = -(step_f[i] if accumulated else step[i]) if tie_break == "higher_share" else 0
            return (share, rank, i)

        i = min((j for j in range(n) if active[j]), key=key)
        if any(used[r] + d[i][r] > cap[r] for r in range(m)):
            if stop == "first_blocked":
                break
            active[i] = False
            continue
        for r in range(m):
            used[r] += d[i][r]
        tasks[i] += 1
        acc[i] += step_f[i]
        order.append(i)
        if caps[i] is not None and tasks[i] >= caps[i]:
            active[i] = False
    return np.array(tasks, dtype=np.int64), order


def hierarchical_filling_reference(
    demands,
    capacity,
    paths,
    *,
    weights=None,
    variant="hdrf",
    max_tasks=None,
    start=None,
    guarantee=None,
    limit=None,
    lending_limit=None,
):
    """Hierarchical progressive filling recomputed from scratch before every task (O(nodes · m) per
    task).

    Every node's blocked flag, share and (H-DRF) direction are rebuilt bottom-up from the tasks
    held, by the definitions in :mod:`fairlib.multires.schedulers.hierarchy`'s docstring; then the
    root's path of lowest (weighted share, node number) unblocked children is walked to a leaf. The
    floating-point operations are those of the definitions, in child order, so the kernel, which
    updates them incrementally, must match exactly (with integer demands the naive rule's sums are
    exact in any order). Returns ``(tasks, order)``.

    Quotas (``guarantee``, ``limit``, ``lending_limit``: (n, m) or None, as ``Quotas``): caps are
    the most whole tasks within the limit (and ``max_tasks``); phase 1 fills up to the whole tasks
    within the guarantee, phase 2 up to the caps; a leaf is blocked when ``Σ_j max(tasks_j d_j,
    guarantee_j - lending_limit_j)`` with one more of its tasks exceeds the capacity on some
    resource (recomputed from scratch).
    """
    from fairlib.multires.schedulers.hierarchy import queue_tree

    d = np.asarray(demands, dtype=float)
    cap = np.asarray(capacity, dtype=float)
    n, m = d.shape
    tree = queue_tree(paths, weights)
    n_nodes = len(tree.nodes)
    kids = [
        range(tree.first_child[v], tree.first_child[v] + tree.n_children[v])
        if tree.user[v] < 0
        else range(0)
        for v in range(n_nodes)
    ]
    per_task = (d / cap).max(axis=1)
    step = per_task / tree.weight[tree.leaf]
    caps = [None] * n if max_tasks is None else [int(x) for x in max_tasks]
    g = np.zeros((n, m)) if guarantee is None else np.asarray(guarantee, dtype=float)
    reserved = g - (g if lending_limit is None else np.asarray(lending_limit, dtype=float))

    def most_within(i, bound):  # most whole tasks with t d_i <= bound (None: no bound)
        counts = [
            int(bound[r] // d[i, r]) for r in range(m) if d[i, r] > 0 and np.isfinite(bound[r])
        ]
        return min(counts) if counts else None

    def least(a, b):
        return a if b is None else b if a is None else min(a, b)

    if limit is not None:
        caps = [least(caps[i], most_within(i, np.asarray(limit, dtype=float)[i])) for i in range(n)]
    tasks = [0] * n if start is None else [int(x) for x in start]
    order = []
    phases = [caps]
    if guarantee is not None:
        phases = [[max(tasks[i], least(caps[i], most_within(i, g[i]))) for i in range(n)], caps]
    for phase_caps in phases:
        _hierarchical_phase(
            d, cap, tree, kids, per_task, step, phase_caps, reserved, variant, tasks, order
        )
    return np.array(tasks, dtype=np.int64), np.array(order, dtype=np.int64)


def _hierarchical_phase(d, cap, tree, kids, per_task, step, caps, reserved, variant, tasks, order):
    """One phase of :func:`hierarchical_filling_reference`: fill until the root is blocked
    (``tasks`` and ``order`` are updated in place)."""
    from fairlib.multires.progressive_filling import FIT_RTOL

    n, m = d.shape
    n_nodes = len(tree.nodes)
    limit = cap * (1.0 + FIT_RTOL)
    while True:
        consumed = np.zeros(m)
        for i in range(n):
            for r in range(m):
                consumed[r] += max(tasks[i] * d[i, r], reserved[i, r])
        key = np.zeros(n_nodes)
        direction = np.zeros((n_nodes, m))
        held = np.zeros((n_nodes, m))
        blocked = np.zeros(n_nodes, dtype=bool)
        for v in range(n_nodes - 1, -1, -1):
            i = tree.user[v]
            if i >= 0:
                key[v] = tasks[i] * step[i]
                direction[v] = d[i] / cap / per_task[i]
                held[v] = tasks[i] * d[i]
                growth = np.maximum((tasks[i] + 1) * d[i], reserved[i]) - np.maximum(
                    tasks[i] * d[i], reserved[i]
                )
                blocked[v] = (caps[i] is not None and tasks[i] >= caps[i]) or bool(
                    (consumed + growth > limit).any()
                )
                continue
            open_kids = [c for c in kids[v] if not blocked[c]]
            blocked[v] = not open_kids
            for c in kids[v]:
                held[v] = held[v] + held[c]
            if v == 0:
                continue
            if variant == "naive":
                key[v] = float((held[v] / cap).max()) / tree.weight[v]
            elif open_kids:
                total = np.zeros(m)
                for c in open_kids:
                    total = total + tree.weight[c] * direction[c]
                top = float(total.max())
                direction[v] = total / top
                key[v] = min(key[c] for c in open_kids) * top / tree.weight[v]
        if blocked[0]:
            return
        v = 0
        while tree.user[v] < 0:
            v = min((c for c in kids[v] if not blocked[c]), key=lambda c: (key[c], c))
        i = int(tree.user[v])
        tasks[i] += 1
        order.append(i)


def quota_filling_reference(
    demands,
    capacity,
    *,
    guarantee=None,
    limit=None,
    lending_limit=None,
    share="dominant",
    weights=None,
    max_tasks=None,
    start=None,
):
    """``drf(..., quotas=Quotas(guarantee, limit, lending_limit, share))`` written from its
    definition, in exact rational arithmetic with an O(n) scan per task (ties: lowest index).

    Caps: the most whole tasks within the limit (and ``max_tasks``); guaranteed tasks: the most
    within the guarantee too. A task fits when ``Σ_j max(tasks_j d_j, guarantee_j -
    lending_limit_j) <= capacity`` after it. Phase 1 fills up to the guaranteed tasks, phase 2 up to
    the caps, each by the lowest share: the weighted dominant share of all tasks held, or
    (``share="borrowed"``) ``max(0, max_r (t d_ir - G_ir) / lendable_r) / w_i`` over the resources
    with ``lendable_r = capacity_r - Σ_j reserved_jr > 0``. Returns ``(tasks, order)``.
    """
    from fractions import Fraction

    d = [[Fraction(x) for x in row] for row in np.asarray(demands, dtype=float).tolist()]
    cap = [Fraction(c) for c in np.asarray(capacity, dtype=float).tolist()]
    n, m = len(d), len(cap)

    def matrix(x, fill):
        return [
            [Fraction(fill) if x is None else Fraction(v) for v in row]
            for row in (np.zeros((n, m)) if x is None else np.asarray(x, dtype=float)).tolist()
        ]

    g_vec, lend_vec = (
        matrix(guarantee, 0),
        matrix(lending_limit if lending_limit is not None else guarantee, 0),
    )
    lim = None if limit is None else np.asarray(limit, dtype=float).tolist()
    w = [
        Fraction(x)
        for x in (np.ones(n) if weights is None else np.asarray(weights, dtype=float)).tolist()
    ]
    reserved = [[g_vec[i][r] - lend_vec[i][r] for r in range(m)] for i in range(n)]
    lendable = [cap[r] - sum(reserved[i][r] for i in range(n)) for r in range(m)]

    def most_within(
        i, bound
    ):  # most whole tasks with t d_i <= bound on every resource (bound None: inf)
        best = None
        for r in range(m):
            if d[i][r] > 0 and bound[r] is not None:
                t = int(bound[r] // d[i][r])
                best = t if best is None else min(best, t)
        return best

    caps = []
    for i in range(n):
        c = most_within(
            i,
            [
                None if lim is None or lim[i][r] == float("inf") else Fraction(lim[i][r])
                for r in range(m)
            ],
        )
        if max_tasks is not None:
            c = int(max_tasks[i]) if c is None else min(c, int(max_tasks[i]))
        caps.append(c)
    guaranteed = [
        min(most_within(i, g_vec[i]), caps[i]) if caps[i] is not None else most_within(i, g_vec[i])
        for i in range(n)
    ]

    def key(i, t):
        if share == "borrowed":
            over = [(t * d[i][r] - g_vec[i][r]) / lendable[r] for r in range(m) if lendable[r] > 0]
            return max([Fraction(0)] + over) / w[i]
        return t * max(d[i][r] / cap[r] for r in range(m)) / w[i]

    tasks = [0] * n if start is None else [int(x) for x in start]
    order = []
    for phase_caps in ([max(tasks[i], guaranteed[i]) for i in range(n)], caps):
        active = [phase_caps[i] is None or tasks[i] < phase_caps[i] for i in range(n)]
        while any(active):
            i = min((j for j in range(n) if active[j]), key=lambda j: (key(j, tasks[j]), j))
            after = [tasks[j] + (j == i) for j in range(n)]
            committed = [
                sum(max(after[j] * d[j][r], reserved[j][r]) for j in range(n)) for r in range(m)
            ]
            if any(committed[r] > cap[r] for r in range(m)):
                active[i] = False
                continue
            tasks[i] += 1
            order.append(i)
            if phase_caps[i] is not None and tasks[i] >= phase_caps[i]:
                active[i] = False
    return np.array(tasks, dtype=np.int64), order


def borrowed_waterfilling_reference(
    demands, capacity, *, guarantee, limit=None, lending_limit=None, weights=None
):
    """Divisible-task counterpart of ``drf(..., quotas=Quotas(guarantee, limit, lending_limit,
    "borrowed"))`` (Kueue's fair sharing), by water-filling with bisection on the level (the
    borrowed share is a maximum over resources, so "share >= level" is not a linear constraint and
    this is not an LP).

    Every user starts at its guarantee in tasks (``min_r G_ir / d_ir``, within its limit); the
    unfrozen users sit at the most tasks whose borrowed share is at most the level λ, ``min_r
    (G_ir + λ w_i lendable_r) / d_ir`` over the resources with something to lend, within their
    limits; λ is raised (bisection) until a resource is committed in full (``Σ_j max(x_j d_j,
    reserved_j) = capacity``); users at their limit or needing a full resource freeze. Returns tasks
    per user (float). Assumes every user demands some resource with ``lendable_r > 0``.
    """
    d, cap = np.asarray(demands, dtype=float), np.asarray(capacity, dtype=float)
    n, m = d.shape
    g = np.asarray(guarantee, dtype=float)
    lend_lim = g if lending_limit is None else np.asarray(lending_limit, dtype=float)
    lim = np.full((n, m), np.inf) if limit is None else np.asarray(limit, dtype=float)
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    reserved = g - lend_lim
    lendable = cap - reserved.sum(axis=0)
    pos = d > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        upper = np.where(pos, lim / np.where(pos, d, 1.0), np.inf).min(axis=1)
        lower = np.minimum(np.where(pos, g / np.where(pos, d, 1.0), np.inf).min(axis=1), upper)
    keyed = pos & (lendable > 0)

    def at_level(lam, free, x):
        y = x.copy()
        with np.errstate(divide="ignore", invalid="ignore"):
            h = np.where(
                keyed, (g + lam * w[:, None] * lendable) / np.where(pos, d, 1.0), np.inf
            ).min(axis=1)
        y[free] = np.clip(h, lower, upper)[free]
        return y

    def committed(x):
        return np.maximum(x[:, None] * d, reserved).sum(axis=0)

    x, frozen = lower.copy(), np.zeros(n, dtype=bool)
    for _ in range(n + 1):
        free = ~frozen
        if not free.any():
            break
        hi = 1.0
        while (committed(at_level(hi, free, x)) <= cap * (1 + 1e-12)).all():
            if (at_level(hi, free, x)[free] >= upper[free]).all():
                return at_level(hi, free, x)
            hi *= 2.0
        lo = 0.0
        for _ in range(200):
            mid = (lo + hi) / 2
            if (committed(at_level(mid, free, x)) <= cap * (1 + 1e-12)).all():
                lo = mid
            else:
                hi = mid
        x = at_level(lo, free, x)
        full = committed(x) >= cap * (1 - 1e-9)
        grows = free & (
            ((x[:, None] * d >= reserved - 1e-9) & pos & full[None, :]).any(axis=1)
            | (x >= upper * (1 - 1e-12))
        )
        frozen |= grows if grows.any() else free
    return x


def maxmin_levels_reference(cluster, coef, floors=None):
    """Weighted max-min of coef_n x_n (x_n a user's total tasks) with ``floors_n <= x_n <=
    max_tasks_n``, by progressive filling written as LPs: raise the common level t of the unfrozen
    users as far as capacities, caps and floors allow, then freeze every unfrozen user that cannot
    exceed t while the others keep theirs (one LP each; a user whose floor is above t can, so it
    stays unfrozen). Variables: x per eligible pair, then t. Returns levels."""
    from scipy.optimize import linprog

    n, (users, servers) = cluster.n_users, np.nonzero(cluster.eligible)
    p = len(users)
    a_cap = np.zeros((cluster.n_servers * cluster.n_resources, p + 1))
    for k, (u, i) in enumerate(zip(users, servers)):
        a_cap[i * cluster.n_resources : (i + 1) * cluster.n_resources, k] = cluster.demand[u]
    total = np.zeros((n, p + 1))
    total[users, np.arange(p)] = 1.0
    caps = np.isfinite(cluster.max_tasks)
    lower = np.zeros(n) if floors is None else np.asarray(floors, dtype=float)
    level = np.full(n, np.nan)
    for _ in range(n + 1):
        active = np.isnan(level)
        if not active.any():
            return level
        floor = np.where(active, 0.0, np.nan_to_num(level)) * (1 - 1e-9)
        rows = [a_cap, total[caps], -total, -(coef[:, None] * total)]
        rhs = [cluster.capacity.ravel(), cluster.max_tasks[caps], -lower * (1 - 1e-9), -floor]
        raise_t = -(coef[:, None] * total)
        raise_t[active, p] = 1.0
        c = np.zeros(p + 1)
        c[p] = -1.0
        res = linprog(
            c,
            A_ub=np.vstack(rows[:3] + [raise_t]),
            b_ub=np.concatenate(rhs[:3] + [-floor]),
            bounds=[(0, None)] * (p + 1),
            method="highs",
        )
        assert res.status == 0
        t = res.x[p]
        floor_t = np.where(active, t, np.nan_to_num(level)) * (1 - 1e-9)
        for j in np.flatnonzero(active):
            c = np.zeros(p + 1)
            c[:p] = -coef[j] * total[j, :p]
            best = linprog(
                c,
                A_ub=np.vstack(rows[:3] + [-(coef[:, None] * total)]),
                b_ub=np.concatenate(rhs[:3] + [-floor_t]),
                bounds=[(0, None)] * p + [(0, 0)],
                method="highs",
            )
            # infeasible: HiGHS's t (met to its tolerance) is a hair above what all can keep, so j
            # cannot exceed it
            if best.status == 2 or -best.fun <= t * (1 + 1e-6) + 1e-12:
                level[j] = t
    raise AssertionError("reference did not converge")


def best_fit_reference(cluster, quantum):
    """Best-Fit DRFH written step by step with NumPy: shares and fitness as whole vectors, argmin
    picks."""
    pooled = cluster.capacity.sum(axis=0)
    share_per_task = np.max(
        np.where(pooled > 0, cluster.demand / np.where(pooled > 0, pooled, 1), 0), axis=1
    )
    share_per_task = share_per_task / cluster.weight
    caps = np.asarray(cluster.max_tasks, float)
    available = cluster.capacity.astype(float).copy()
    tasks = np.zeros((cluster.n_users, cluster.n_servers))
    active = caps > 0
    while active.any():
        share = np.where(active, share_per_task * tasks.sum(axis=1), np.inf)
        user = int(np.argmin(share))
        amount = min(quantum, caps[user] - tasks[user].sum())
        need = cluster.demand[user] * amount
        room = cluster.eligible[user] & (
            need[None, :] <= available + FIT_SLACK * cluster.capacity
        ).all(axis=1)
        if not room.any():
            active[user] = False
            continue
        demand = cluster.demand[user]
        d = demand / (demand[0] if demand[0] > 0 else demand.max())
        scale = np.where(available[:, 0] > 0, available[:, 0], available.max(axis=1))
        shape = np.divide(
            available, scale[:, None], out=np.zeros_like(available), where=scale[:, None] > 0
        )
        fitness = np.where(room, np.abs(d[None, :] - shape).sum(axis=1), np.inf)
        server = int(np.argmin(fitness))
        tasks[user, server] += amount
        available[server] = np.maximum(available[server] - need, 0.0)
        if tasks[user].sum() >= caps[user]:
            active[user] = False
    return tasks


def machine_offers_reference(cluster):
    """The offer loop with NumPy vectors: for each machine, argmin of the shares of the users that
    may still take a task there (lexicographic on (share, index) by argmin's first-minimum rule)."""
    pooled = cluster.capacity.sum(axis=0)
    share_per_task = np.max(
        np.where(pooled > 0, cluster.demand / np.where(pooled > 0, pooled, 1), 0), axis=1
    )
    share_per_task = share_per_task / cluster.weight
    caps = np.asarray(cluster.max_tasks, float)
    tasks = np.zeros((cluster.n_users, cluster.n_servers))
    for i in range(cluster.n_servers):
        available = cluster.capacity[i].astype(float).copy()
        while True:
            totals = tasks.sum(axis=1)
            fits = (cluster.demand <= available + FIT_SLACK * cluster.capacity[i]).all(axis=1)
            may = cluster.eligible[:, i] & (totals + 1 <= caps) & fits
            if not may.any():
                break
            user = int(np.argmin(np.where(may, share_per_task * totals, np.inf)))
            tasks[user, i] += 1
            available = np.maximum(available - cluster.demand[user], 0.0)
    return tasks


def random_capped_cluster(seed, users, servers, resources, capped, weighted, *, whole_caps=False):
    """A random cluster (:func:`fairlib.multires.random_cluster`) where, if ``capped``, about half
    the users have a task cap: whole numbers 0-29 (``whole_caps``) or reals in [0.5, 30)."""
    rng = np.random.default_rng(seed)
    base = random_cluster(rng, users, servers, resources, weights=weighted)
    caps = None
    if capped:
        some = rng.random(users) < 0.5
        caps = np.where(
            some,
            rng.integers(0, 30, users) if whole_caps else rng.uniform(0.5, 30.0, users),
            np.inf,
        )
    return Cluster(
        base.capacity, base.demand, weight=base.weight, eligible=base.eligible, max_tasks=caps
    )
