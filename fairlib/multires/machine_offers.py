"""Pooled DRF as offer-based schedulers run it on machines: each machine in turn is offered to the
users in DRF order.

Apache Mesos's allocator and Hadoop YARN's node heartbeats do not place a pooled DRF allocation;
they walk the machines and, on each, serve the clients in the order of their dominant shares of the
*pooled* cluster. This module models that loop with one whole task per offer:

1. take the machines in index order (Mesos shuffles its agents each cycle; YARN serves nodes as they
   heartbeat);
2. on the current machine, give one task to the user with the lowest weighted pooled dominant share
   s_n = x_n max_r d[n, r] / C_r / φ_n (C the pooled capacities, x_n the user's tasks on every
   machine so far) among those that may use the machine, are below their cap and whose task fits
   what is left of it (ties: the lowest index, YARN's and Mesos's fallback to submission order and
   name); a user whose task does not fit declines the offer and the next one is asked;
3. repeat until no user's task fits the machine, then move to the next machine.

Our choices, where the schedulers are not one rule: one task per offer (a Mesos framework may launch
several tasks on one offer, a YARN node heartbeat may assign several containers), machines in index
order, no revocation. A cap below a whole task gives no task (tasks are whole). Fit uses
:data:`~.best_fit.FIT_SLACK`, as Best-Fit DRFH.

Unlike DRFH (:func:`~.global_maxmin.drfh`), which chooses each user's total with every machine in
view, and Best-Fit DRFH (:func:`~.best_fit.drfh_best_fit`), which chooses a machine per task, the
machine is chosen first here: a user whose tasks fit only the machines visited early can be served
there before users with lower shares that fit anywhere. Like Best-Fit DRFH it keeps its servers
(never merged).
"""

from __future__ import annotations

import numpy as np

from .._jit import interpreted_when_small, njit
from .._validate import as_instance
from ._engine.placements import MAX_PLACEMENTS, _bounded_steps, check_placements
from .best_fit import FIT_SLACK
from .cluster import Allocation, Cluster
from .global_maxmin import drfh_coefficients

__all__ = ["drf_machine_offers"]


@njit(cache=True)
def _offer_fill(capacity, demand, usable, share_per_task, caps, slack):
    """Whole tasks per (user, server) and the number of placements (module docstring).

    Parameters
    ----------
    capacity : float64[:, :]
        Machine capacities, shape (n_servers, n_resources).
    demand : float64[:, :]
        Per-task demands, shape (n_users, n_resources).
    usable : bool[:, :]
        Usable (user, machine) pairs, shape (n_users, n_servers).
    share_per_task : float64[:]
        Weighted pooled dominant share of one task, shape (n_users,).
    caps : float64[:]
        Per-user caps on tasks, shape (n_users,) (``inf``: none).
    slack : float
        Relative slack of the fit test (:data:`~.best_fit.FIT_SLACK`).
    """
    n_users, n_resources = demand.shape
    n_servers = capacity.shape[0]
    available = capacity.copy()
    tasks = np.zeros((n_users, n_servers))
    total = np.zeros(n_users)
    steps = 0
    for i in range(n_servers):
        while True:
            user, lowest = -1, np.inf
            for n in range(n_users):
                if not usable[n, i] or total[n] + 1.0 > caps[n]:
                    continue
                key = share_per_task[n] * total[n]
                if key >= lowest:
                    continue
                fits = True
                for r in range(n_resources):
                    if demand[n, r] > available[i, r] + slack * capacity[i, r]:
                        fits = False
                        break
                if fits:
                    user, lowest = n, key
            if user < 0:
                break
            tasks[user, i] += 1.0
            total[user] += 1.0
            for r in range(n_resources):
                available[i, r] = max(available[i, r] - demand[user, r], 0.0)
            steps += 1
    return tasks, steps


@interpreted_when_small(bounded=_bounded_steps)
def drf_machine_offers(cluster: Cluster, *, max_placements: int = MAX_PLACEMENTS) -> Allocation:
    """Pooled DRF served machine by machine, one whole task per offer, to the lowest weighted pooled
    dominant share.

    Each machine in index order is offered to the user with the lowest weighted pooled dominant
    share whose task fits it (module docstring). Honours weights, placement constraints and per-user
    caps (``Cluster.max_tasks``, whole tasks).

    A CPU-heavy and a memory-heavy user, the memory-rich machine offered first: DRF's order serves
    both users on both machines and each ends with 5 tasks, where DRFH and Best-Fit DRFH give each 8
    on the machine of its shape.

    Parameters
    ----------
    cluster : Cluster
        The cluster; it is never merged (identical machines are not interchangeable once partly
        filled).
    max_placements : int, default MAX_PLACEMENTS
        An instance that could take more placements
        (:func:`fairlib.multires.best_fit.placement_bound`) is refused before any work, naming the
        bound; >= 1.

    Returns
    -------
    Allocation
        Whole tasks per (user, machine). ``extras["steps"]``: placements made.

    Raises
    ------
    InvalidInputError
        When ``cluster`` is not a Cluster or the instance could take more than ``max_placements``
        placements.

    References
    ----------
    .. [1] A. Ghodsi, M. Zaharia, B. Hindman, A. Konwinski, S. Shenker, I. Stoica, "Dominant
       Resource Fairness: Fair Allocation of Multiple Resource Types", NSDI, 2011.
    .. [2] B. Hindman, A. Konwinski, M. Zaharia, A. Ghodsi, A. D. Joseph, R. Katz, S. Shenker, I.
       Stoica, "Mesos: A Platform for Fine-Grained Resource Sharing in the Data Center", NSDI, 2011.
    .. [3] V. K. Vavilapalli et al., "Apache Hadoop YARN: Yet Another Resource Negotiator", SoCC,
           2013.

    Examples
    --------
    >>> c = Cluster([[2, 8], [8, 2]], [[1, 0.25], [0.25, 1]])
    >>> drf_machine_offers(c).tasks.tolist()
    [[1.0, 4.0], [4.0, 1.0]]
    """
    as_instance(cluster, Cluster, "cluster")
    check_placements(cluster, 1.0, max_placements, "drf_machine_offers", with_quantum=False)
    share_per_task = drfh_coefficients(cluster) / cluster.weight
    tasks, steps = _offer_fill(
        cluster.capacity,
        cluster.demand,
        cluster.eligible,
        share_per_task,
        np.asarray(cluster.max_tasks, dtype=np.float64),
        FIT_SLACK,
    )
    return Allocation.from_diagnostics(cluster, tasks, "drf_machine_offers", {"steps": int(steps)})


drf_machine_offers.keeps_servers = (
    True  # identical machines are not interchangeable once partly filled
)
