"""Slow, obviously-correct references for the fast kernels (differential tests).

The single-pool DRF references live in the library because the benchmarks and notebooks use them as
baselines; they are re-exported here so every test imports its reference from one place.
"""

import numpy as np

from fairlib.experiments.heterogeneous_servers import proportional_fair_slsqp  # noqa: F401
from fairlib.multires.baselines import drf_argmin_loop, drf_heapq  # noqa: F401
from fairlib.multires.lp import maxmin_lp  # noqa: F401


def progressive_filling_exact(demands, capacity, *, weights=None, stop="skip_blocked", tie_break="lowest_index",
                              max_tasks=None, start=None, accumulated=False):
    """Progressive filling in exact rational arithmetic (``fractions.Fraction``), the obvious O(n) scan per task.

    Every share is compared exactly, so users whose shares are equal as fractions are tied and the tie rule
    decides: lowest index, or (``"higher_share"``) the higher per-task weighted share, then the lowest index.
    ``accumulated=True`` instead keeps each share as the float running sum ``s += step`` (the author's scripts).
    Returns ``(tasks, order)``.
    """
    from fractions import Fraction

    d = [[Fraction(x) for x in row] for row in np.asarray(demands, dtype=float).tolist()]
    cap = [Fraction(c) for c in np.asarray(capacity, dtype=float).tolist()]
    n, m = len(d), len(cap)
    w = [Fraction(x) for x in (np.ones(n) if weights is None else np.asarray(weights, dtype=float)).tolist()]
    step = [max(d[i][r] / cap[r] for r in range(m)) / w[i] for i in range(n)]
    step_f = [float(max(float(d[i][r]) / float(cap[r]) for r in range(m)) / float(w[i])) for i in range(n)]
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


def hierarchical_filling_reference(demands, capacity, paths, *, weights=None, variant="hdrf", max_tasks=None,
                                   start=None):
    """Hierarchical progressive filling recomputed from scratch before every task (O(nodes · m) per task).

    Every node's blocked flag, share and (H-DRF) direction are rebuilt bottom-up from the tasks held, by the
    definitions in :mod:`fairlib.multires.hierarchy`'s docstring; then the root's path of lowest (weighted share,
    node number) unblocked children is walked to a leaf. The floating-point operations are those of the definitions,
    in child order, so the kernel, which updates them incrementally, must match exactly (with integer demands the
    naive rule's sums are exact in any order). Returns ``(tasks, order)``.
    """
    from fairlib.multires.hierarchy import queue_tree
    from fairlib.multires.progressive_filling import FIT_RTOL

    d = np.asarray(demands, dtype=float)
    cap = np.asarray(capacity, dtype=float)
    n, m = d.shape
    tree = queue_tree(paths, weights)
    n_nodes = len(tree.nodes)
    kids = [range(tree.first_child[v], tree.first_child[v] + tree.n_children[v]) if tree.user[v] < 0 else range(0)
            for v in range(n_nodes)]
    per_task = (d / cap).max(axis=1)
    step = per_task / tree.weight[tree.leaf]
    caps = [None] * n if max_tasks is None else [int(x) for x in max_tasks]
    tasks = [0] * n if start is None else [int(x) for x in start]
    consumed = np.zeros(m)
    for i in range(n):
        for r in range(m):
            consumed[r] += tasks[i] * d[i, r]
    limit = cap * (1.0 + FIT_RTOL)
    order = []
    while True:
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
                blocked[v] = (caps[i] is not None and tasks[i] >= caps[i]) or bool((consumed + d[i] > limit).any())
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
            return np.array(tasks, dtype=np.int64), np.array(order, dtype=np.int64)
        v = 0
        while tree.user[v] < 0:
            v = min((c for c in kids[v] if not blocked[c]), key=lambda c: (key[c], c))
        i = int(tree.user[v])
        tasks[i] += 1
        for r in range(m):
            consumed[r] += d[i, r]
        order.append(i)
