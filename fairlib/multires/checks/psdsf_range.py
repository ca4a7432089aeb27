"""Certified bounds on a utilisation over *every* allocation that meets PS-DSF's Definition 4.

Definition 4 (Khamse-Ashari et al. §2) does not pin down one allocation: on some clusters our
market and the fixed point both meet it and differ, and the paper's own algorithm may land
elsewhere. A utilisation measured on one of them is then one point of a range. The range itself is a
non-convex set (Definition 4 compares virtual dominant shares), but it lies inside a set a
mixed-integer program describes exactly:

In an allocation meeting Definition 4 with per-user caps, a user n below its cap that may run on
server i is *blocked* there — some resource it needs is saturated on i — for otherwise x[n, i]
could grow without taking anything from anyone (the same test as
:func:`~fairlib.multires.psdsf_violation`'s ``free_pairs``). So every such allocation is feasible,
respects the caps, and for every usable pair (n, i) either n is at its cap or a resource n needs is
saturated on i. Minimising and maximising the utilisation over that relaxation (binaries: "n at its
cap", "r saturated on i"; HiGHS's MILP) gives a lower and an upper bound that hold for every
Definition-4 allocation, whichever algorithm found it. They are bounds, not the range: the
relaxation drops Definition 4's comparison of virtual dominant shares, so it may contain allocations
that are not PS-DSF.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike
from scipy.optimize import Bounds, LinearConstraint
from scipy.sparse import coo_matrix, csr_matrix

from ..._scaled_lp import scaled_milp
from ..._validate import InvalidInputError, as_flag, as_instance, as_number, as_selection
from ..cluster import Cluster

__all__ = ["psdsf_utilisation_bounds", "UtilisationBounds"]


class UtilisationBounds(NamedTuple):
    """A lower and an upper bound on a utilisation over every Definition-4 allocation.

    Parameters
    ----------
    low : float
        The lower bound.
    high : float
        The upper bound.
    proven : bool
        True when both are the relaxation's optima; False when HiGHS stopped at its time limit and a
        bound is its dual bound (looser).
    """

    low: float
    high: float
    proven: bool


def _groups(cluster: Cluster, mask: np.ndarray):
    """Servers grouped by (capacities, which users may use them, measured or not): (group of each
    server, representative server of each group, size of each group)."""
    key = np.column_stack([cluster.capacity, cluster.eligible.T.astype(float), mask.astype(float)])
    _, first, group, size = np.unique(
        key, axis=0, return_index=True, return_inverse=True, return_counts=True
    )
    return group.ravel(), first, size


def psdsf_utilisation_bounds(
    cluster: Cluster,
    resource: int,
    servers: ArrayLike | None = None,
    *,
    grouped: bool = True,
    ordered: bool = False,
    time_limit: float = 60.0,
) -> UtilisationBounds:
    """Lower and upper bounds on a resource's utilisation on chosen servers over every Definition-4
    allocation.

    The utilisation is Σ_{i in servers} Σ_n x[n, i] d[n, r] / Σ_{i in servers} c[i, r], over
    every allocation meeting Definition 4 with the cluster's caps (``max_tasks``); see the module's
    doc for why the bounds hold.

    Parameters
    ----------
    cluster : Cluster
        The cluster.
    resource : int
        The resource's column, in [0, n_resources).
    servers : array_like or None, default None
        A boolean mask or indices of the servers measured, each from 0 to n_servers - 1 and each
        once (:func:`~fairlib._validate.as_selection`); None: every server.
    grouped : bool, default True
        Identical servers (same capacities, same users, both measured or both not) are one block of
        the program — its tasks per user, and how many of its servers have each resource
        saturated, k[g, r]; a user below its cap is blocked on all |g| of them only if Σ_{r it
        needs} k[g, r] >= |g|. That keeps every Definition-4 allocation (so the bounds still hold),
        may admit more (so they may be wider than the per-server program's) and is far smaller: a
        fleet of a few server classes is a few blocks. False: one block per server (the reference).
    ordered : bool, default False
        Also keep Definition 4's order on virtual dominant shares where it is linear — a user n
        below its cap, usable on a block, has a weighted VDS there at least that of any user m
        holding tasks on it whose demand covers every resource n needs; one binary per usable pair
        says whether m holds tasks there (big-M from m's most tasks). Tighter bounds, still bounds
        (on one server it leaves DRF's allocation only), but far slower: on a Google paper-setup
        epoch (70 jobs, 120 servers in 8 blocks) each MILP ran into a 60-s limit where the unordered
        one takes under a second.
    time_limit : float, default 60.0
        Seconds per MILP, > 0; when HiGHS stops there, the bound is its proven dual bound (still a
        bound, only looser) and ``proven`` says so.

    Returns
    -------
    UtilisationBounds
        ``(low, high, proven)``.

    Raises
    ------
    InvalidInputError
        On an invalid cluster, resource, server selection or time limit, or servers that hold none
        of the resource.

    References
    ----------
    .. [1] J. Khamse-Ashari, I. Lambadaris, G. Kesidis, B. Urgaonkar, Y. Zhao, "An Efficient and
       Fair Multi-Resource Allocation Mechanism for Heterogeneous Servers", IEEE TPDS, 2018,
       Definition 4.
    """
    grouped = as_flag(grouped, "grouped")
    ordered = as_flag(ordered, "ordered")
    as_instance(cluster, Cluster, "cluster")
    if (
        isinstance(resource, bool)
        or not isinstance(resource, (int, np.integer))
        or not 0 <= resource < cluster.n_resources
    ):
        raise InvalidInputError(
            f"resource = {resource!r}: must be a column index in [0, {cluster.n_resources})"
        )
    time_limit = as_number(time_limit, "time_limit")
    mask = (
        np.ones(cluster.n_servers, dtype=bool)
        if servers is None
        else as_selection(servers, "servers", cluster.n_servers)
    )
    held = cluster.capacity[mask, resource].sum()
    if not held > 0:
        raise InvalidInputError(f"servers: hold none of resource {resource}")
    if grouped:
        _, first, size = _groups(cluster, mask)
    else:
        first, size = np.arange(cluster.n_servers), np.ones(cluster.n_servers, dtype=int)
    cap, eligible, measured = cluster.capacity[first], cluster.eligible[:, first], mask[first]
    n_users, n_blocks, n_res = cluster.n_users, first.size, cluster.n_resources
    users, where = np.nonzero(eligible)
    n_pairs = users.size
    capped = np.flatnonzero(np.isfinite(cluster.max_tasks))
    present = np.argwhere(cap > 0)  # (block, resource) pairs that can saturate
    # columns: tasks per usable (user, block), then a_n per capped user, then k[g, r] per present
    # (block, resource)
    n_cap, n_sat = capped.size, len(present)
    n_hold = n_pairs if ordered else 0  # y per usable pair: the user holds tasks there
    n_vars = n_pairs + n_cap + n_sat + n_hold
    cap_col = np.full(n_users, -1)
    cap_col[capped] = n_pairs + np.arange(n_cap)
    sat_col = np.full((n_blocks, n_res), -1)
    sat_col[present[:, 0], present[:, 1]] = n_pairs + n_cap + np.arange(n_sat)

    rows, cols, vals, upper = [], [], [], []
    lower: list[float] = []

    def add(r_cols, r_vals, lo, hi):
        rows.extend([len(lower)] * len(r_cols))
        cols.extend(r_cols)
        vals.extend(r_vals)
        lower.append(lo)
        upper.append(hi)

    pairs_on = [np.flatnonzero(where == g) for g in range(n_blocks)]
    for g, r in present:
        on = pairs_on[g]
        use = cluster.demand[users[on], r]
        # within the block's capacity, and at least k[g, r] servers' worth used (k of them
        # saturated)
        add(on.tolist(), use.tolist(), -np.inf, float(cap[g, r] * size[g]))
        add(on.tolist() + [int(sat_col[g, r])], use.tolist() + [-float(cap[g, r])], 0.0, np.inf)
    for n in capped:
        mine = np.flatnonzero(users == n)
        # at most its cap; at its cap when a_n = 1
        add(mine.tolist(), [1.0] * mine.size, -np.inf, float(cluster.max_tasks[n]))
        add(
            mine.tolist() + [int(cap_col[n])],
            [1.0] * mine.size + [-float(cluster.max_tasks[n])],
            0.0,
            np.inf,
        )
    needs = cluster.demand > 0
    for p in range(n_pairs):
        n, g = users[p], where[p]
        blockers = [int(sat_col[g, r]) for r in np.flatnonzero(needs[n]) if sat_col[g, r] >= 0]
        # a Cluster keeps a (user, server) pair only where the server has every resource the user
        # needs, so each needed resource of an eligible pair has a saturation column
        assert blockers or cap_col[n] >= 0, (n, int(first[g]))
        # Σ_{r n needs} k[g, r] + |g| a_n >= |g|: below its cap, n is blocked on every server of
        # the
        # block
        add(
            blockers + ([int(cap_col[n])] if cap_col[n] >= 0 else []),
            [1.0] * len(blockers) + ([float(size[g])] if cap_col[n] >= 0 else []),
            float(size[g]),
            np.inf,
        )
    if ordered:
        _add_order(cluster, cap, size, users, where, cap_col, n_pairs + n_cap + n_sat, add)
    a = csr_matrix(coo_matrix((vals, (rows, cols)), shape=(len(lower), n_vars)))
    constraints = LinearConstraint(a, np.array(lower), np.array(upper))
    integrality = np.r_[np.zeros(n_pairs), np.ones(n_cap + n_sat + n_hold)]
    sat_size = size[present[:, 0]] if n_sat else np.zeros(0)
    bounds = Bounds(
        np.zeros(n_vars), np.r_[np.full(n_pairs, np.inf), np.ones(n_cap), sat_size, np.ones(n_hold)]
    )
    weight = np.where(measured[where], cluster.demand[users, resource], 0.0) / held
    # HiGHS solves in units where its tolerances hold: a pair's tasks in the tasks the user could
    # run alone on one server of the block (the binaries as they are)
    unit = np.r_[cluster.gamma[:, first][users, where], np.ones(n_cap + n_sat + n_hold)]
    out, proven = [], True
    for sign in (1.0, -1.0):
        res = scaled_milp(
            np.r_[sign * weight, np.zeros(n_cap + n_sat + n_hold)],
            constraints=constraints,
            integrality=integrality,
            bounds=bounds,
            unit=unit,
            options={"time_limit": time_limit, "mip_rel_gap": 0.0},
        )
        bound = getattr(res, "mip_dual_bound", None)
        if res.status not in (0, 1) or bound is None or not np.isfinite(bound):
            raise RuntimeError(
                f"psdsf_utilisation_bounds: HiGHS proved no {'lower' if sign > 0 else 'upper'} "
                f"bound (status {res.status}: {res.message})"
            )
        proven &= res.status == 0
        value = np.nan if res.x is None else float(weight @ np.maximum(res.x[:n_pairs], 0.0))
        # the proven (dual) bound, on the outer side of the best allocation found
        out.append(
            float(np.nanmin([value, bound])) if sign > 0 else float(np.nanmax([value, -bound]))
        )
    return UtilisationBounds(max(out[0], 0.0), min(out[1], 1.0), proven)


def _add_order(cluster, cap, size, users, where, cap_col, hold_start, add) -> None:
    """Definition 4's order where it is linear (see :func:`psdsf_utilisation_bounds`, ``ordered``):
    per usable pair p = (m, g) a binary y_p (column ``hold_start + p``) with tasks[p] <= most[m]
    y_p, and for every n usable on g, below its cap, whose needs m's demand covers: VDS_m(g) -
    VDS_n(g) <= M (1 - y_p + a_n), M = most[m] / (φ_m γ)."""
    from ..cluster import monopoly_tasks

    gamma = monopoly_tasks(cap, cluster.demand)  # per block, one server's worth
    reach = np.zeros(cluster.n_users)
    np.add.at(reach, users, size[where] * gamma[users, where])
    most = np.minimum(reach, cluster.max_tasks)  # the most tasks a user can hold
    needs = cluster.demand > 0
    covers = (needs[:, None, :] <= needs[None, :, :]).all(
        axis=2
    )  # covers[n, m]: m needs all n needs
    weight = cluster.weight
    mine = [np.flatnonzero(users == n) for n in range(cluster.n_users)]
    on_block = [np.flatnonzero(where == g) for g in range(cap.shape[0])]
    for p in range(users.size):
        m, g = users[p], where[p]
        add([p, hold_start + p], [1.0, -float(most[m])], -np.inf, 0.0)
        big = most[m] / (weight[m] * gamma[m, g])
        c_m = 1.0 / (weight[m] * gamma[m, g])
        for q in on_block[g]:
            n = users[q]
            if n == m or not covers[n, m]:
                continue
            c_n = 1.0 / (weight[n] * gamma[n, g])
            cols = mine[m].tolist() + mine[n].tolist() + [hold_start + p]
            vals = [c_m] * mine[m].size + [-c_n] * mine[n].size + [big]
            if cap_col[n] >= 0:
                cols.append(int(cap_col[n]))
                vals.append(-big)
            add(cols, vals, -np.inf, float(big))
