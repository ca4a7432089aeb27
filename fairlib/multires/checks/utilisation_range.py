"""How much a placement can move a per-class utilisation when every user's total tasks are fixed.

DRFH and TSF fix each user's total tasks x_n = Σ_i x[n, i] (their max-min levels are unique), but
not where the tasks run: the optimal face holds many placements, and the interior point returns the
centre of it. A utilisation over *all* servers does not depend on the placement (Σ_i Σ_n x[n, i]
d[n, r] = Σ_n x_n d[n, r]); one over a *subset* of servers — a server class, the reserved classes
— does. :func:`utilisation_range` gives its minimum and maximum over every feasible placement of
the given totals, by two linear programs (HiGHS).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike
from scipy.sparse import coo_matrix, eye, hstack

from ..._scaled_lp import scaled_linprog
from ..._validate import (
    InvalidInputError,
    _short,
    as_instance,
    as_number,
    as_real_array,
    as_selection,
    result_type,
)
from ..cluster import Cluster, placement_capacity_rows

__all__ = ["utilisation_range", "UtilisationRange"]


@result_type
class UtilisationRange(NamedTuple):
    """Lowest and highest utilisation of ``resource`` on the chosen servers, and a placement
    attaining each.

    Parameters
    ----------
    low : float
        The lowest utilisation, in [0, 1].
    high : float
        The highest utilisation, in [0, 1].
    low_tasks : numpy.ndarray
        Float64, shape (n_users, n_servers): a placement attaining ``low``.
    high_tasks : numpy.ndarray
        Float64, shape (n_users, n_servers): a placement attaining ``high``.
    """

    low: float
    high: float
    low_tasks: np.ndarray
    high_tasks: np.ndarray

    # a result holding arrays compares and hashes by identity (fairlib._validate.result_type);
    # a tuple's own == would compare the arrays and raise on their ambiguous truth value
    def __eq__(self, other: object) -> bool:
        return self is other

    def __ne__(self, other: object) -> bool:
        return self is not other

    def __hash__(self) -> int:
        return object.__hash__(self)


def utilisation_range(
    cluster: Cluster, totals: ArrayLike, servers: ArrayLike, resource: int, *, slack: float = 1e-7
) -> UtilisationRange:
    """Min and max utilisation of a resource on chosen servers over the placements of given per-user
    totals.

    Min and max of Σ_{i in servers} Σ_n x[n, i] d[n, r] / Σ_{i in servers} c[i, r] over
    placements x >= 0 on eligible pairs that respect every server's capacities and give user n
    between ``totals[n] (1 - slack)`` and ``totals[n] (1 + slack)`` tasks (a solver's totals are
    feasible only to its tolerance).

    Parameters
    ----------
    cluster : Cluster
        The cluster.
    totals : array_like
        Shape (n_users,): each user's total tasks, finite and >= 0.
    servers : array_like
        A boolean mask of shape (n_servers,) or indices of the servers measured, each from 0 to
        n_servers - 1 and each once (:func:`~fairlib._validate.as_selection`).
    resource : int
        The resource's column, in [0, n_resources).
    slack : float, default 1e-7
        Relative slack on the totals, in [0, 0.5].

    Returns
    -------
    UtilisationRange
        The range and a placement attaining each end.

    Raises
    ------
    InvalidInputError
        On invalid input, when no placement of ``totals`` exists, or when the servers hold none of
        the resource.
    """
    as_instance(cluster, Cluster, "cluster")
    totals_in, totals = totals, as_real_array(totals, "totals")
    if totals.shape != (cluster.n_users,):
        raise InvalidInputError(
            f"totals = {_short(totals_in)}: expected shape ({cluster.n_users},) (one per user), "
            f"got {totals.shape}"
        )
    bad = ~np.isfinite(totals) | (totals < 0)
    if bad.any():
        n = int(np.argmax(bad))
        raise InvalidInputError(f"totals[{n}] = {totals[n]}: must be finite and >= 0")
    slack = as_number(slack, "slack", inclusive=True, maximum=0.5)
    mask = as_selection(servers, "servers", cluster.n_servers)
    if (
        isinstance(resource, bool)
        or not isinstance(resource, (int, np.integer))
        or not 0 <= resource < cluster.n_resources
    ):
        raise InvalidInputError(
            f"resource = {resource!r}: must be a column index in [0, {cluster.n_resources})"
        )
    held = cluster.capacity[mask, resource].sum()
    if not held > 0:
        raise InvalidInputError(f"servers: hold none of resource {resource}")
    users, where, a_cap = placement_capacity_rows(cluster)
    n_pairs, n = len(users), cluster.n_users
    # variables: tasks per pair, then each user's total, its bounds the totals' band (a band of two
    # rows as thin as the slack is declared infeasible by HiGHS's presolve); HiGHS solves with a
    # pair's tasks in the tasks its user could run alone there, a total in the most of those, and
    # meets the capacities to 1e-10 of each (its default 1e-7 is the slack's size)
    gamma = cluster.gamma[users, where]
    most = np.zeros(n)
    np.maximum.at(most, users, gamma)
    a_ub = hstack([a_cap, coo_matrix((a_cap.shape[0], n))]).tocsr()
    a_eq = hstack(
        [coo_matrix((np.ones(n_pairs), (users, np.arange(n_pairs))), shape=(n, n_pairs)), -eye(n)]
    ).tocsr()
    bounds = [(0.0, None)] * n_pairs + list(zip(totals * (1 - slack), totals * (1 + slack)))
    weight = np.where(mask[where], cluster.demand[users, resource], 0.0) / held
    out = []
    for sign in (1.0, -1.0):
        res = scaled_linprog(
            np.r_[sign * weight, np.zeros(n)],
            unit=np.r_[gamma, most],
            A_ub=a_ub,
            b_ub=cluster.capacity.ravel(),
            A_eq=a_eq,
            b_eq=np.zeros(n),
            bounds=bounds,
            options={"primal_feasibility_tolerance": 1e-10},
        )
        if res.status != 0:
            raise InvalidInputError(
                f"totals: no placement gives every user its total ({res.message})"
            )
        x = np.maximum(
            res.x[:n_pairs], 0.0
        )  # HiGHS meets bounds to its feasibility tolerance (1e-7): no negative tasks
        tasks = np.zeros((cluster.n_users, cluster.n_servers))
        tasks[users, where] = x
        out.append((float(weight @ x), tasks))
    (low, low_tasks), (high, high_tasks) = out
    return UtilisationRange(low, high, low_tasks, high_tasks)
