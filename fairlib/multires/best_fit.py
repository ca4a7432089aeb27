"""Best-Fit DRFH: DRFH's progressive filling one task at a time, each task placed on the server that
fits it best.

DRFH (:func:`fairlib.multires.drfh`) fixes each user's *total* tasks and leaves their placement to
any point of the optimal face. The DRFH paper (Wang, Liang and Li, "Multi-resource fair allocation
in heterogeneous cloud computing systems", IEEE TPDS 2015 — not among the papers reproduced here;
its rule is taken from that paper's description of its Best-Fit heuristic) evaluates a concrete
scheduler instead:

1. among the users that can still run a task, pick the one with the lowest global dominant share
   s_n = x_n max_r d[n, r] / C_r / φ_n (pooled capacities C, weight φ; ties: the lowest index);
2. among its usable servers with room for the task, pick the one minimising the fitness
   H(n, i) = Σ_r | d[n, r] / d[n, 1] − a[i, r] / a[i, 1] |, a[i] the server's *available*
   resources — the server whose leftover has the task's shape (ties: the lowest index);
3. place the task; a user none of whose usable servers has room, or at its cap
   (``Cluster.max_tasks``), stops.

Our choices, where the rule is silent: the normalising component is the *first* resource, as the
paper writes it, and a vector whose first component is zero is normalised by its largest one
instead; tasks are ``quantum`` tasks at a time (the DRFH paper's tasks are whole; a trace whose task
unit is a whole dominant unit passes the typical task's size), and a user's last step is cut at its
cap. A task fits when every resource it needs is available up to a relative :data:`FIT_SLACK` of the
server's capacity (rounding), and availability never goes below zero.

Unlike every other multi-server mechanism the allocation depends on individual servers — identical
servers are not interchangeable once partly filled — so it is never run on merged servers
(:func:`~fairlib.multires.on_merged_servers` runs it as given). It is a heuristic: its totals need
not be DRFH's, and it is neither Pareto optimal nor envy-free in general (fragmentation leaves
resources no single task fits).
"""

from __future__ import annotations

import numpy as np

from .._jit import interpreted_when_small, njit
from .._validate import as_instance, as_number, check_task_bound
from ._engine.pair_kernels import largest
from ._engine.placements import (  # noqa: F401 (placement_bound: shown from here)
    MAX_PLACEMENTS,
    _bounded_steps,
    check_placements,
    placement_bound,
)
from .cluster import Allocation, Cluster
from .global_maxmin import drfh_coefficients

__all__ = ["drfh_best_fit", "FIT_SLACK"]

#: relative slack of the fit test (a task fits when d · quantum <= available + FIT_SLACK ·
#: capacity)
FIT_SLACK = 1e-9


@njit(
    cache=True, inline="always"
)  # called on read-only demands and writable capacities: two compilations if not
def _shape_scale(vector):
    """The component the fitness normalises by: the first, or the largest when the first is zero.

    Parameters
    ----------
    vector : float64[:]
        A demand or availability vector, shape (n_resources,).
    """
    if vector[0] > 0:
        return vector[0]
    return largest(vector)


@njit(cache=True)
def _best_fit_fill(capacity, demand, usable, share_per_task, caps, quantum, slack):
    """Tasks per (user, server) and the number of placements (see the module docstring).

    Parameters
    ----------
    capacity : float64[:, :]
        Server capacities, shape (n_servers, n_resources).
    demand : float64[:, :]
        Per-task demands, shape (n_users, n_resources).
    usable : bool[:, :]
        Usable (user, server) pairs, shape (n_users, n_servers).
    share_per_task : float64[:]
        Weighted global dominant share of one task, shape (n_users,).
    caps : float64[:]
        Per-user caps on tasks, shape (n_users,) (``inf``: none).
    quantum : float
        Tasks placed per step, > 0.
    slack : float
        Relative slack of the fit test (:data:`FIT_SLACK`).
    """
    n_users, n_resources = demand.shape
    n_servers = capacity.shape[0]
    available = capacity.copy()
    tasks = np.zeros((n_users, n_servers))
    total = np.zeros(n_users)
    active = caps > 0
    steps = 0
    while True:
        user, lowest = -1, np.inf
        for n in range(n_users):
            if active[n] and share_per_task[n] * total[n] < lowest:
                user, lowest = n, share_per_task[n] * total[n]
        if user < 0:
            break
        amount = min(quantum, caps[user] - total[user])
        d_scale = _shape_scale(demand[user])
        server, best = -1, np.inf
        for i in range(n_servers):
            if not usable[user, i]:
                continue
            fits = True
            for r in range(n_resources):
                if demand[user, r] * amount > available[i, r] + slack * capacity[i, r]:
                    fits = False
                    break
            if not fits:
                continue
            a_scale = _shape_scale(available[i])
            fitness = 0.0
            for r in range(n_resources):
                a = available[i, r] / a_scale if a_scale > 0 else 0.0
                fitness += abs(demand[user, r] / d_scale - a)
            if fitness < best:
                server, best = i, fitness
        if server < 0:
            active[user] = False
            continue
        tasks[user, server] += amount
        total[user] += amount
        for r in range(n_resources):
            available[server, r] = max(available[server, r] - demand[user, r] * amount, 0.0)
        if total[user] >= caps[user]:
            active[user] = False
        steps += 1
    return tasks, steps


@interpreted_when_small(bounded=_bounded_steps)
def drfh_best_fit(
    cluster: Cluster, *, quantum: float = 1.0, max_placements: int = MAX_PLACEMENTS
) -> Allocation:
    """Best-Fit DRFH: lowest global dominant share first, each task on the usable server that best
    matches its shape.

    The DRFH paper's placement heuristic (module docstring). Honours weights, placement constraints
    and per-user caps (``Cluster.max_tasks``).

    Parameters
    ----------
    cluster : Cluster
        The cluster; it is never merged (the allocation depends on individual servers).
    quantum : float, default 1.0
        Tasks placed per step, > 0 (1: whole tasks) and below a quarter of int64's maximum (task
        counts are int64-bounded, :func:`~fairlib._validate.check_task_bound`).
    max_placements : int, default MAX_PLACEMENTS
        An instance that could take more placements (:func:`placement_bound`) is refused before any
        work, naming the bound; >= 1.

    Returns
    -------
    Allocation
        Tasks per (user, server). ``extras["steps"]``: placements made.

    Raises
    ------
    InvalidInputError
        When ``cluster`` is not a Cluster, ``quantum`` is not > 0, or the instance could take more
        than ``max_placements`` placements.

    References
    ----------
    .. [1] W. Wang, B. Liang, B. Li, "Multi-resource fair allocation in heterogeneous cloud
       computing systems", IEEE Transactions on Parallel and Distributed Systems, 2015 (its Best-Fit
       heuristic).

    Examples
    --------
    >>> # CPU-heavy and RAM-heavy users, two servers
    >>> c = Cluster([[4, 1], [1, 4]], [[1, 0.25], [0.25, 1]])
    >>> drfh_best_fit(c).tasks.tolist()                           # each on the server of its shape
    [[4.0, 0.0], [0.0, 4.0]]
    """
    as_instance(cluster, Cluster, "cluster")
    quantum = as_number(quantum, "quantum")
    check_task_bound(quantum, "quantum")
    check_placements(cluster, quantum, max_placements, "drfh_best_fit")
    share_per_task = drfh_coefficients(cluster) / cluster.weight
    tasks, steps = _best_fit_fill(
        cluster.capacity,
        cluster.demand,
        cluster.eligible,
        share_per_task,
        np.asarray(cluster.max_tasks, dtype=np.float64),
        float(quantum),
        FIT_SLACK,
    )
    return Allocation.from_diagnostics(cluster, tasks, "drfh_best_fit", {"steps": int(steps)})


drfh_best_fit.keeps_servers = (
    True  # never merged: identical servers are not interchangeable (module docstring)
)
