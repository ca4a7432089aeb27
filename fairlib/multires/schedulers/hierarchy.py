"""Hierarchical DRF: progressive filling over a weight tree of queues, by H-DRF or by the naive
recursive rule.

Schedulers nest their clients: Mesos roles (``eng/dev``), YARN queues (``root.eng.dev``), Volcano's
``hdrf`` queue hierarchy. Each user is a leaf of a tree whose nodes carry weights; one task at a
time is given to the leaf reached by walking down from the root, at every node taking the child,
among those that can still run a task, with the lowest weighted share ``share / weight`` (ties: the
child that appears first in ``paths``). The two variants differ only in a node's share:

``variant="naive"`` — the dominant share of everything the node's subtree holds, ``max_r
consumed[r] / capacity[r]``: Mesos's hierarchical sorter (a role's share is that of the sum of its
subtree's allocations). A subtree that holds much of a resource nobody else wants keeps a high share
for ever, so its siblings' demands on *other* resources can starve it (Bhattacharya et al.,
"Hierarchical Scheduling for Diverse Datacenter Workloads", SoCC 2013, §4: naive hierarchical DRF;
the known-answer tests show such a case).

``variant="hdrf"`` — H-DRF (same paper, §4, dynamic H-DRF with its two fixes): an internal node's
share is that of its children's allocations *rescaled to the minimum* and *ignoring blocked
children*. With ``dir_c`` the direction of child c's allocation (its share vector divided by its
dominant share; a leaf's is its demand's) and ``m = min_c share_c / w_c`` over the children that can
still run a task, the node's share is ``m · max_r Σ_c w_c dir_c[r]``: the dominant share the node
would hold if every unblocked child stood at the minimum's weighted share. A child that can run no
more tasks (blocked: a resource it needs is full, or it is at its cap) no longer counts, so one
saturated resource cannot starve its siblings.

Choices (the paper's text is not in this repository; the rules above are our reading of its §4
``[MEM]``, checked against Volcano's implementation and tests, and each is tested here):

- weighted rescaling (children scaled to equal ``share / weight``), so that a flat tree is exactly
  weighted DRF; Volcano's ``hdrf`` rescales to the minimum *unweighted* share, the same whenever
  siblings have equal weights;
- blocked children are left out of the sum (Volcano adds them unscaled) and a child holding nothing
  counts with share 0 (Volcano skips it), as the paper's definition of the guarantee does: a
  demanding child is owed its part;
- indivisible tasks, "blocked" is "cannot fit one more task" (the paper's static H-DRF is divisible:
  a leaf is blocked when a resource it demands is saturated);
- shares are compared in floating point (``tasks * share_per_task / weight`` for a leaf, as
  :func:`drf` does with non-integer inputs); equal floats go to the child that appears first.

An internal node's share changes only along the path of the leaf that got the task (H-DRF: only
through the minimum, since a leaf's direction is constant) and where a child becomes blocked, so
each internal node keeps an indexed heap of its unblocked children; a run costs O(T · depth · (m +
log d)) for T tasks and fan-out d, plus O(d m) per node whose children become blocked (H-DRF
recomputes its direction from scratch there, which keeps the kernel's floats identical to the
reference's), plus O(n m) to find each resource's largest demand, O(n) per resource that fills (its
max-heap of the users by demand, built when a task first stops fitting it) and O(log n) per user
taken off one as its task stops fitting.

Quotas (``quotas=Quotas(...)``, :mod:`.quotas`) sit on the leaves, with ``drf``'s rules: each user's
whole tasks within its guarantee first (the tree's order among them), then the tree's filling; a
limit caps a user's tasks; the unlent part of a guarantee is held back, so a task fits while ``Σ_j
max(tasks_j d_j, reserved_j) <= capacity`` after it. A user may then fit a resource only thanks to
its own reservation, and stop fitting after its own next task: such users wait in a second
per-resource heap keyed by what their next task would commit. This mirrors Mesos's quota on roles
that are leaves of its role tree and YARN's min/max resources on leaf queues; quotas on inner queues
and Kueue's borrowed share over a tree of cohorts are not modelled.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike

from ..._jit import interpreted_when_small, njit
from ..._validate import (
    as_flag,
    as_label,
    InvalidInputError,
    _short,
    as_capacities,
    as_demands,
    as_number,
    as_sequence,
    check_choice,
    check_labels,
    result_type,
    scale_weights,
)
from .._engine.filling import (
    FIT_RTOL,
    _check_reservations,
    _committed,
    _few_tasks,
    _growth,
    _start_tasks,
    committed_amounts,
    held_resources,
)
from ..progressive_filling import (
    MAX_ALLOCATIONS,
    filling_bounds,
    order_buffer,
    pool_summary,
)
from .quotas import Quotas

__all__ = [
    "hierarchical_drf",
    "HierarchicalDRFResult",
    "QueueTree",
    "queue_tree",
    "HIERARCHY_VARIANTS",
]

HIERARCHY_VARIANTS = ("hdrf", "naive")
#: the guarantees' phase is skipped (its end state written down) when what it commits is this far
#: within capacity
_MARGIN = 1e-9


@result_type
@dataclass(frozen=True, eq=False)
class QueueTree:
    """A weight tree with one leaf per user, nodes numbered breadth first.

    The root is 0, a node's children are consecutive, in the order they first appear in the paths.

    Parameters
    ----------
    nodes : tuple of str
        Each node's path; the root is ``""``.
    parent : numpy.ndarray
        Int64, shape (n_nodes,): parent node (-1 for the root).
    first_child : numpy.ndarray
        Int64, shape (n_nodes,): a node's children are ``first_child .. first_child + n_children -
        1``.
    n_children : numpy.ndarray
        Int64, shape (n_nodes,): the number of children.
    weight : numpy.ndarray
        Float64, shape (n_nodes,): each node's weight among its siblings.
    user : numpy.ndarray
        Int64, shape (n_nodes,): the user at a leaf, -1 at an internal node.
    leaf : numpy.ndarray
        Int64, shape (n_users,): each user's node.
    """

    nodes: tuple
    parent: np.ndarray
    first_child: np.ndarray
    n_children: np.ndarray
    weight: np.ndarray
    user: np.ndarray
    leaf: np.ndarray

    def depth(self) -> npt.NDArray[np.int64]:
        """Edges from the root to each node.

        Returns
        -------
        numpy.ndarray
            Int64, shape (n_nodes,).
        """
        out = np.zeros(len(self.nodes), dtype=np.int64)
        while True:  # each pass settles one more level (a parent is numbered before its children)
            deeper = out.copy()
            deeper[1:] = out[self.parent[1:]] + 1
            if np.array_equal(deeper, out):
                return out
            out = deeper


def queue_tree(paths: Sequence[str], weights: Mapping[str, float] | None = None) -> QueueTree:
    """The tree of queues whose leaves are the users at ``paths``.

    Parameters
    ----------
    paths : sequence of str
        User i's leaf, as ``/``-separated node names (``"eng/dev/job1"``), none blank (empty or only
        whitespace); every prefix is a queue. Leaves are distinct and no user's path lies under
        another's (a user has no children). An ordered sequence (a list, a tuple, a generator read
        once), never a set.
    weights : Mapping[str, float] or None, default None
        Weight of any node (queue or user) by its path; a positive finite number (as
        :func:`fairlib._validate.as_number` reads it: text and booleans are refused). Unlisted
        nodes weigh 1. A node's weight counts among its siblings: a family whose largest weight is
        outside ``WEIGHT_RANGE`` is scaled by a power of two (``scale_weights``).

    Returns
    -------
    QueueTree
        The tree, nodes numbered breadth first.

    Raises
    ------
    InvalidInputError
        On malformed (not text, or with a blank node name) or repeated paths, paths given as a set
        or a dict's view, a user under another, no users, a weight for no node, not a positive
        finite number, or below ``np.finfo(float).tiny`` times its largest sibling's.
    """
    # read once, in order: user i is paths[i], so a set (its order of strings changes from one
    # interpreter to the next) would hand users each other's leaves
    paths = as_sequence(paths, "paths", what="expected a sequence of strings (one leaf per user)")
    seen: dict[str, int] = {}
    children: dict[str, list[str]] = {"": []}
    for i, p in enumerate(paths):
        as_label(p, f"paths[{i}]", nested=True)  # '/'-separated node names, none blank
        if p in seen:
            raise InvalidInputError(
                f"paths[{i}] = {p!r} repeats paths[{seen[p]}]: each user is its own leaf"
            )
        seen[p] = i
        # walk up to the first known node; the new ones join their parents top-down, in order of
        # first appearance
        node, new = p, []
        while node not in children:
            children[node] = []
            up = node[: max(node.rfind("/"), 0)]
            new.append((up, node))
            node = up
        for up, node in reversed(new):
            children[up].append(node)
    if not seen:
        raise InvalidInputError("paths: no users")
    for p, i in seen.items():
        if children[p]:
            below = children[p][0]
            while below not in seen:
                below = children[below][0]
            raise InvalidInputError(
                f"paths[{seen[below]}] = {below!r} lies under paths[{i}] = {p!r}: a user is a "
                "leaf and has no children"
            )
    order = [""]
    for v in order:  # breadth first: the list grows while it is walked
        order.extend(children[v])
    index = {p: k for k, p in enumerate(order)}
    n_nodes, n_users = len(order), len(seen)
    # breadth-first numbering: node k's children are the next n_children[k] nodes after its elder
    # cousins'
    n_children = np.array([len(children[v]) for v in order], dtype=np.int64)
    first_child = np.cumsum(n_children) - n_children + 1
    parent = np.repeat(np.arange(n_nodes, dtype=np.int64), n_children)
    parent = np.concatenate([[-1], parent]).astype(np.int64)
    first_child[n_children == 0] = 0
    weight = np.ones(n_nodes)
    if weights is not None and not isinstance(weights, Mapping):
        raise InvalidInputError(
            f"weights = {_short(weights)}: expected a mapping of node path to weight, e.g. "
            "{'prod': 2.0}"
        )
    for key, value in dict(weights or {}).items():
        if key not in index or key == "":
            raise InvalidInputError(
                f"weights[{key!r}]: no such node (nodes are the paths' prefixes, the root "
                "has no weight)"
            )
        weight[index[key]] = as_number(value, f"weights[{key!r}]")
    # a node's weight counts among its siblings only: each family is brought to a scale the
    # filling computes with (scale_weights), exactly, by a power of two
    for k in np.flatnonzero(n_children).tolist():
        family = slice(int(first_child[k]), int(first_child[k] + n_children[k]))
        weight[family] = scale_weights(
            weight[family], "weights", labels=[repr(p) for p in order[family]]
        )
    leaf = np.array([index[p] for p in paths], dtype=np.int64)
    user = np.full(n_nodes, -1, dtype=np.int64)
    user[leaf] = np.arange(n_users)
    return QueueTree(tuple(order), parent, first_child, n_children, weight, user, leaf)


@result_type
@dataclass(frozen=True, eq=False)
class HierarchicalDRFResult:
    """Outcome of hierarchical progressive filling.

    Parameters
    ----------
    tasks : numpy.ndarray
        Int64, shape (n_users,): tasks each user holds (``start`` included).
    consumed : numpy.ndarray
        Float64, shape (n_resources,): resources used by all tasks.
    dominant_shares : numpy.ndarray
        Float64, shape (n_users,): each user's ``tasks * max_r demand[r] / capacity[r]``.
    dominant_resource : numpy.ndarray
        Int64, shape (n_users,): the resource attaining it (first of equals).
    n_allocations : int
        Tasks given by this run.
    variant : str
        ``"hdrf"`` or ``"naive"``.
    tree : QueueTree
        The nodes, in the order of the node arrays below.
    node_consumed : numpy.ndarray
        Float64, shape (n_nodes, n_resources): resources held by each node's subtree.
    node_dominant_shares : numpy.ndarray
        Float64, shape (n_nodes,): ``max_r node_consumed / capacity`` (unweighted).
    node_dominant_resource : numpy.ndarray
        Int64, shape (n_nodes,): the resource attaining it.
    decision_shares : numpy.ndarray
        Float64, shape (n_nodes,): the share each node was compared on at the end (unweighted): the
        naive variant's is ``node_dominant_shares``, H-DRF's the rescaled share of the module
        docstring (a blocked node's is its last). The root's is 0: it is never compared.
    order : numpy.ndarray or None, default None
        Int64, shape (n_allocations,): users in allocation order (``record_order=True``), else None.
    """

    tasks: np.ndarray
    consumed: np.ndarray
    dominant_shares: np.ndarray
    dominant_resource: np.ndarray
    n_allocations: int
    variant: str
    tree: QueueTree
    node_consumed: np.ndarray
    node_dominant_shares: np.ndarray
    node_dominant_resource: np.ndarray
    decision_shares: np.ndarray
    order: np.ndarray | None = None

    def node(self, path: str) -> int:
        """Index of the node at ``path`` in the node arrays.

        Parameters
        ----------
        path : str
            The node's path (``""``: the root).

        Returns
        -------
        int
            The node's index.

        Raises
        ------
        InvalidInputError
            When there is no such node.
        """
        try:
            return self.tree.nodes.index(path)
        except ValueError:
            raise InvalidInputError(f"path = {path!r}: no such node") from None


# Each internal node v keeps its unblocked children in a binary heap in rows first_child[v] ..
# first_child[v] + hsize[v] - 1 of ``slots``: (the child's key, the child's node number) side by
# side, so that a sift reads the keys where it reads the heap (a separate key array indexed by node
# doubled the cache lines a step touches); hpos[c] is child c's row. Node numbers are below 2⁵³,
# exact in a float.
@njit(cache=True, inline="always")
def _before(key_a, a, key_b, b):
    """Heap order: lower weighted share first, then the node appearing first (lower number); without
    a branch.

    Parameters
    ----------
    key_a : float
        Weighted share of node a.
    a : float
        Node number of a.
    key_b : float
        Weighted share of node b.
    b : float
        Node number of b.
    """
    return (key_a < key_b) | ((key_a == key_b) & (a < b))


@njit(cache=True)
def _sift(slots, hpos, base, size, j):
    """Restore the place of row ``base + j`` in the heap ``slots[base : base + size]`` (up, then
    down).

    Parameters
    ----------
    slots : float64[:, :]
        The children's heaps, shape (n_nodes, 2): rows (key, node).
    hpos : int64[:]
        Each node's row in ``slots``, shape (n_nodes,) (-1: in no heap).
    base : int
        The heap's first row in ``slots``.
    size : int
        Entries in the heap.
    j : int
        The entry to restore, relative to ``base``.
    """
    k, v = slots[base + j, 0], slots[base + j, 1]
    while j > 0:
        up = (j - 1) // 2
        k_up, u = slots[base + up, 0], slots[base + up, 1]
        if not _before(k, v, k_up, u):
            break
        slots[base + j, 0], slots[base + j, 1] = k_up, u
        hpos[int(u)] = base + j
        j = up
    while True:
        c = 2 * j + 1
        if c >= size:
            break
        if c + 1 < size:  # the smaller child, without a branch
            c += _before(
                slots[base + c + 1, 0],
                slots[base + c + 1, 1],
                slots[base + c, 0],
                slots[base + c, 1],
            )
        k_c, u = slots[base + c, 0], slots[base + c, 1]
        if not _before(k_c, u, k, v):
            break
        slots[base + j, 0], slots[base + j, 1] = k_c, u
        hpos[int(u)] = base + j
        j = c
    slots[base + j, 0], slots[base + j, 1] = k, v
    hpos[int(v)] = base + j


@njit(cache=True)
def _heap_remove(slots, hpos, hsize, first_child, parent, v):
    """Take node ``v`` out of its parent's heap.

    Parameters
    ----------
    slots : float64[:, :]
        The children's heaps, shape (n_nodes, 2): rows (key, node).
    hpos : int64[:]
        Each node's row in ``slots``, shape (n_nodes,) (-1: in no heap).
    hsize : int64[:]
        Each node's heap size, shape (n_nodes,).
    first_child : int64[:]
        Each node's first child, shape (n_nodes,).
    parent : int64[:]
        Each node's parent, shape (n_nodes,).
    v : int
        The node to remove.
    """
    p = parent[v]
    base = first_child[p]
    size = hsize[p] - 1
    hsize[p] = size
    j = hpos[v] - base
    hpos[v] = -1
    if j < size:
        slots[base + j, 0], slots[base + j, 1] = slots[base + size, 0], slots[base + size, 1]
        _sift(slots, hpos, base, size, j)


@njit(cache=True, inline="always")
def _held_share(held, v, capacity):
    """Naive rule: the dominant share of what node ``v``'s subtree holds, ``max_r held[v, r] /
    capacity[r]``.

    Parameters
    ----------
    held : float64[:, :]
        What each node's subtree holds, shape (n_nodes, n_resources).
    v : int
        The node.
    capacity : float64[:]
        Capacities, shape (n_resources,).
    """
    top = 0.0
    for r in range(capacity.shape[0]):
        top = max(top, held[v, r] / capacity[r])
    return top


@njit(cache=True)
def _refresh_direction(
    v, first_child, n_children, blocked, weight, direction, umax, share, key, slots
):
    """H-DRF: node ``v``'s direction ``Σ_c w_c dir_c`` over its unblocked children, from scratch,
    and its share.

    Parameters
    ----------
    v : int
        The internal node.
    first_child : int64[:]
        Each node's first child, shape (n_nodes,).
    n_children : int64[:]
        Each node's number of children, shape (n_nodes,).
    blocked : bool[:]
        Whether each node is blocked, shape (n_nodes,).
    weight : float64[:]
        Each node's weight, shape (n_nodes,).
    direction : float64[:, :]
        Each node's direction, shape (n_nodes, n_resources); row v rewritten.
    umax : float64[:]
        Each node's normalising maximum, shape (n_nodes,); entry v rewritten.
    share : float64[:]
        Each node's share, shape (n_nodes,); entry v rewritten.
    key : float64[:]
        Each node's weighted share, shape (n_nodes,); entry v rewritten.
    slots : float64[:, :]
        The children's heaps, shape (n_nodes, 2): rows (key, node).
    """
    m = direction.shape[1]
    for r in range(m):
        direction[v, r] = 0.0
    for c in range(first_child[v], first_child[v] + n_children[v]):
        if not blocked[c]:
            for r in range(m):
                direction[v, r] += weight[c] * direction[c, r]
    top = 0.0
    for r in range(m):
        if direction[v, r] > top:
            top = direction[v, r]
    for r in range(m):
        direction[v, r] /= top
    umax[v] = top
    share[v] = slots[first_child[v], 0] * top
    key[v] = share[v] / weight[v]


@njit(cache=True)
def _candidate_sift_up(cand, ckey, cpos, r, j, key):
    """Put ``key`` (the grown key of the candidate at entry ``j``) into resource r's max-heap of
    candidates, moving the candidate up to its place.

    Parameters
    ----------
    cand : int64[:, :]
        Per resource, a max-heap of candidate users, shape (n_resources, n_users).
    ckey : float64[:, :]
        The candidates' keys (their growth), shape (n_resources, n_users).
    cpos : int64[:, :]
        Each user's entry in each resource's candidate heap, shape (n_users, n_resources) (-1:
        none).
    r : int
        The resource.
    j : int
        The candidate's entry.
    key : float
        Its new (larger) key.
    """
    u = cand[r, j]
    while j > 0:
        up = (j - 1) // 2
        if ckey[r, up] >= key:
            break
        cand[r, j] = cand[r, up]
        ckey[r, j] = ckey[r, up]
        cpos[cand[r, j], r] = j
        j = up
    cand[r, j] = u
    ckey[r, j] = key
    cpos[u, r] = j


@njit(cache=True)
def _candidate_pop(cand, ckey, cpos, csize, r):
    """Take the candidate of largest key off resource r's heap and return it.

    Parameters
    ----------
    cand : int64[:, :]
        Per resource, a max-heap of candidate users, shape (n_resources, n_users).
    ckey : float64[:, :]
        The candidates' keys (their growth), shape (n_resources, n_users).
    cpos : int64[:, :]
        Each user's entry in each resource's candidate heap, shape (n_users, n_resources) (-1:
        none).
    csize : int64[:]
        Each resource's candidate heap size, shape (n_resources,).
    r : int
        The resource.
    """
    top = cand[r, 0]
    cpos[top, r] = -1
    size = csize[r] - 1
    csize[r] = size
    if size > 0:
        v, key = cand[r, size], ckey[r, size]
        j = 0
        while True:
            c = 2 * j + 1
            if c >= size:
                break
            if c + 1 < size and ckey[r, c + 1] > ckey[r, c]:
                c += 1
            if ckey[r, c] <= key:
                break
            cand[r, j] = cand[r, c]
            ckey[r, j] = ckey[r, c]
            cpos[cand[r, j], r] = j
            j = c
        cand[r, j] = v
        ckey[r, j] = key
        cpos[v, r] = j
    return top


@njit(cache=True)
def _demand_sift_down(heaps, r, j, size):
    """Move entry ``j`` of resource r's max-heap of users by demand (:func:`_demand_tops`) down to
    its place.

    Parameters
    ----------
    heaps : float64[:, :, :]
        Per resource, a max-heap of users by demand, shape (n_resources, n_users, 3): rows (demand,
        user, reservation).
    r : int
        The resource.
    j : int
        The entry to move down.
    size : int
        Entries in the heap.
    """
    key, v, held_back = heaps[r, j, 0], heaps[r, j, 1], heaps[r, j, 2]
    while True:
        c = 2 * j + 1
        if c >= size:
            break
        if c + 1 < size:  # the larger child, without a branch
            c += heaps[r, c + 1, 0] > heaps[r, c, 0]
        if heaps[r, c, 0] <= key:
            break
        heaps[r, j, 0], heaps[r, j, 1], heaps[r, j, 2] = (
            heaps[r, c, 0],
            heaps[r, c, 1],
            heaps[r, c, 2],
        )
        j = c
    heaps[r, j, 0], heaps[r, j, 1], heaps[r, j, 2] = key, v, held_back


@njit(cache=True)
def _demand_tops(demands):
    """Room for a max-heap of the users per resource, keyed by their demand on it, with only each
    top key written: the largest demand on r. That is all the filling reads of r's heap until a task
    stops fitting r (:func:`_demand_heap` then builds it); at 10⁵ x 10 building every heap up
    front was a tenth of a run in which one resource ever filled. Entry j of r's heap is row
    ``heaps[r, j]``: (user u's demand on r, u, u's reservation of r): a sift and a pop read one row,
    not rows of ``demands`` and ``reserved`` all over memory (node numbers and users are below
    2⁵³, exact in a float).

    Parameters
    ----------
    demands : float64[:, :]
        Per-task demands, shape (n_users, n_resources).
    """
    n, m = demands.shape
    heaps = np.empty((m, n, 3))
    for r in range(m):
        heaps[r, 0, 0] = demands[0, r]
    for i in range(1, n):
        for r in range(m):
            heaps[r, 0, 0] = max(heaps[r, 0, 0], demands[i, r])
    return heaps


@njit(cache=True)
def _demand_heap(heaps, demands, reserved, r):
    """Build resource r's max-heap of all users by demand, bottom-up in O(n): users whose task no
    longer fits come off the top as the resource fills, without sorting all of them first.

    Parameters
    ----------
    heaps : float64[:, :, :]
        Per resource, a max-heap of users by demand, shape (n_resources, n_users, 3): rows (demand,
        user, reservation).
    demands : float64[:, :]
        Per-task demands, shape (n_users, n_resources).
    reserved : float64[:, :]
        Reservations, shape (n_users, n_resources), or (0, m) for none.
    r : int
        The resource.
    """
    n = demands.shape[0]
    reserving = reserved.shape[0] > 0
    for i in range(n):
        heaps[r, i, 0], heaps[r, i, 1] = demands[i, r], i
        heaps[r, i, 2] = reserved[i, r] if reserving else 0.0
    for j in range(n // 2 - 1, -1, -1):
        _demand_sift_down(heaps, r, j, n)


@njit(cache=True)
def _newly_blocked(
    r,
    tasks,
    demands,
    committed,
    limit,
    heaps,
    heaped,
    unscanned,
    reserved,
    cand,
    ckey,
    cpos,
    csize,
    out,
    blocked,
    leaf,
):
    """Users whose next task no longer fits resource r, written to ``out`` (returns how many; a user
    may already be blocked for another reason). Without reservations they are the users of largest
    demand on r, taken off the top of r's max-heap of the ``unscanned[r]`` users not yet looked at
    (built on the first call for r, ``heaped[r]``: :func:`_demand_tops`) once.
    With them a task grows the committed amount by its demand less what falls inside its owner's
    reservation (``_engine.filling._growth``), which only grows as its owner gets tasks: a scanned
    user that still fits (thanks to its reservation) waits in r's max-heap of candidates, keyed by
    that growth, until the headroom falls below it. A user already blocked (``blocked[leaf[u]]``:
    for good, resources only fill up) is passed over.

    Parameters
    ----------
    r : int
        The resource.
    tasks : int64[:]
        Tasks per user, shape (n_users,).
    demands : float64[:, :]
        Per-task demands, shape (n_users, n_resources).
    committed : float64[:]
        Committed amounts, shape (n_resources,).
    limit : float64[:]
        Capacities with the fit tolerance, shape (n_resources,).
    heaps : float64[:, :, :]
        Per resource, a max-heap of users by demand, shape (n_resources, n_users, 3): rows (demand,
        user, reservation).
    heaped : bool[:]
        Whether each resource's heap is built, shape (n_resources,).
    unscanned : int64[:]
        Users not yet taken off each resource's heap, shape (n_resources,).
    reserved : float64[:, :]
        Reservations, shape (n_users, n_resources), or (0, m) for none.
    cand : int64[:, :]
        Per resource, a max-heap of candidate users, shape (n_resources, n_users).
    ckey : float64[:, :]
        The candidates' keys (their growth), shape (n_resources, n_users).
    cpos : int64[:, :]
        Each user's entry in each resource's candidate heap, shape (n_users, n_resources) (-1:
        none).
    csize : int64[:]
        Each resource's candidate heap size, shape (n_resources,).
    out : int64[:]
        Output: the newly blocked users, shape (n_users,).
    blocked : bool[:]
        Whether each node is blocked, shape (n_nodes,).
    leaf : int64[:]
        Each user's node, shape (n_users,).
    """
    reserving = reserved.shape[0] > 0
    if not heaped[r]:
        _demand_heap(heaps, demands, reserved, r)
        heaped[r] = True
    count = 0
    while unscanned[r] > 0 and committed[r] + heaps[r, 0, 0] > limit[r]:
        demand, u, held_back = heaps[r, 0, 0], int(heaps[r, 0, 1]), heaps[r, 0, 2]
        unscanned[r] -= 1
        if unscanned[r] > 0:
            last = unscanned[r]
            heaps[r, 0, 0], heaps[r, 0, 1], heaps[r, 0, 2] = (
                heaps[r, last, 0],
                heaps[r, last, 1],
                heaps[r, last, 2],
            )
            _demand_sift_down(heaps, r, 0, last)
        if blocked[leaf[u]]:
            continue
        if reserving:  # _growth, from the heap's copies of demands[u, r] and reserved[u, r]
            before = tasks[u] * demand
            growth = max(before + demand, held_back) - max(before, held_back)
            if committed[r] + growth <= limit[r]:
                cand[r, csize[r]] = u
                csize[r] += 1
                _candidate_sift_up(cand, ckey, cpos, r, csize[r] - 1, growth)
                continue
        out[count] = u
        count += 1
    while csize[r] > 0 and committed[r] + ckey[r, 0] > limit[r]:
        out[count] = _candidate_pop(cand, ckey, cpos, csize, r)
        count += 1
    return count


class HierarchyRule(NamedTuple):
    """Which share :func:`_hierarchical_filling` compares nodes on and whether it records the order:
    built by :func:`hierarchical_drf`, passed to the kernel as one argument (numba compiles it as a
    tuple).

    Parameters
    ----------
    naive : bool
        The naive rule (True) or H-DRF (False).
    record : bool
        Whether to write the allocation order into the kernel's ``order``.
    """

    naive: bool
    record: bool


@njit(cache=True)
def _hierarchical_filling(
    demands,
    capacity,
    per_task,
    step,
    parent,
    first_child,
    n_children,
    weight,
    user,
    leaf,
    caps,
    start,
    rule,
    order,
    reserved,
):
    """Hierarchical progressive filling from ``start`` (tasks per user); see the module docstring.

    ``reserved`` ((n, m), or (0, m) without quotas): the part of each user's guarantee held back for
    it; a task fits while ``Σ_j max(tasks_j demands_j, reserved_j) <= capacity`` after it
    (:mod:`.quotas`).

    ``per_task[i]`` is user i's dominant share of one task, ``step[i] = per_task[i] / weight`` of
    its leaf. Nodes are numbered breadth first, so a node's descendants have larger numbers:
    processing marked nodes from the largest number down updates every child before its parent.
    Returns (tasks, consumed, allocations, decision shares).

    Parameters
    ----------
    demands : float64[:, :]
        Per-task demands, shape (n_users, n_resources).
    capacity : float64[:]
        Capacities, shape (n_resources,).
    per_task : float64[:]
        Each user's dominant share of one task, shape (n_users,).
    step : float64[:]
        ``per_task`` over the leaf's weight, shape (n_users,).
    parent : int64[:]
        Each node's parent, shape (n_nodes,).
    first_child : int64[:]
        Each node's first child, shape (n_nodes,).
    n_children : int64[:]
        Each node's number of children, shape (n_nodes,).
    weight : float64[:]
        Each node's weight, shape (n_nodes,).
    user : int64[:]
        The user at each leaf, -1 elsewhere, shape (n_nodes,).
    leaf : int64[:]
        Each user's node, shape (n_users,).
    caps : int64[:]
        Per-user task caps, shape (n_users,).
    start : int64[:]
        Tasks each user holds at the start, shape (n_users,).
    rule : HierarchyRule
        The share nodes are compared on, and whether the order is recorded.
    order : int64[:]
        Output buffer for the allocation order.
    reserved : float64[:, :]
        Reservations, shape (n_users, n_resources), or (0, m) for none.
    """
    naive = rule.naive
    record = rule.record
    n, m = demands.shape
    n_nodes = parent.shape[0]
    tasks = start.copy()
    consumed = held_resources(tasks, demands)
    reserving = reserved.shape[0] > 0
    committed = _committed(tasks, demands, reserved) if reserving else consumed
    limit = capacity * (1.0 + FIT_RTOL)
    share = np.zeros(n_nodes)
    key = np.zeros(n_nodes)
    direction = np.empty(
        (n_nodes, m)
    )  # H-DRF: dir of each node; naive: what each node's subtree holds
    umax = np.zeros(n_nodes)
    blocked = np.zeros(n_nodes, dtype=np.bool_)
    slots = np.zeros((n_nodes, 2))  # the children's heaps, (key, node) rows
    hpos = np.full(n_nodes, -1, dtype=np.int64)
    hsize = np.zeros(n_nodes, dtype=np.int64)
    # leaves: share, key, direction; blocked at the cap here, and below where one more task does not
    # fit
    for i in range(n):
        v = leaf[i]
        share[v] = tasks[i] * per_task[i]
        key[v] = tasks[i] * step[i]
        for r in range(m):
            direction[v, r] = (
                tasks[i] * demands[i, r] if naive else demands[i, r] / capacity[r] / per_task[i]
            )
        blocked[v] = tasks[i] >= caps[i]
    # per resource, users by demand in a max-heap: as a resource fills, those whose task no longer
    # fits come off its top
    heaps = _demand_tops(demands)
    heaped = np.zeros(m, dtype=np.bool_)
    unscanned = np.full(m, n, dtype=np.int64)
    # per resource, a max-heap of the users fitting by their reservation (cand), keyed by the growth
    # of their next task (ckey); cpos[u, r]: u's entry in r's heap, valid only when cand[r, cpos[u,
    # r]] == u (a sparse set: none of the three is initialised, as writing 24 MB at 10⁵ x 10 cost
    # more than the filling's use of them)
    cand = np.empty((m, n) if reserving else (0, 0), dtype=np.int64)
    ckey = np.empty((m, n) if reserving else (0, 0))
    cpos = np.empty((n, m) if reserving else (0, 0), dtype=np.int64)
    csize = np.zeros(m, dtype=np.int64)
    found = np.empty(2 * n, dtype=np.int64)
    for r in range(m):
        if committed[r] + heaps[r, 0, 0] <= limit[r]:
            continue  # every task fits r (and no heap is needed yet)
        for k in range(
            _newly_blocked(
                r,
                tasks,
                demands,
                committed,
                limit,
                heaps,
                heaped,
                unscanned,
                reserved,
                cand,
                ckey,
                cpos,
                csize,
                found,
                blocked,
                leaf,
            )
        ):
            blocked[leaf[found[k]]] = True
    # internal nodes, deepest first: heaps of unblocked children, then the node's own share
    for v in range(n_nodes - 1, -1, -1):
        if user[v] >= 0:
            continue
        for r in range(m):  # the leaves' rows are written above
            direction[v, r] = 0.0
        base = first_child[v]
        size = 0
        for c in range(base, base + n_children[v]):
            if not blocked[c]:
                slots[base + size, 0], slots[base + size, 1] = key[c], c
                hpos[c] = base + size
                size += 1
                _sift(slots, hpos, base, size, size - 1)
            if naive:
                for r in range(m):
                    direction[v, r] += direction[c, r]
        hsize[v] = size
        blocked[v] = size == 0
        if v == 0:
            continue
        if naive:
            share[v] = _held_share(direction, v, capacity)
            key[v] = share[v] / weight[v]
        elif size > 0:
            _refresh_direction(
                v, first_child, n_children, blocked, weight, direction, umax, share, key, slots
            )
    count = 0
    marked = np.zeros(n_nodes, dtype=np.bool_)
    pending = np.empty(n_nodes, dtype=np.int64)  # max-heap of marked nodes, by number
    while not blocked[0]:
        v = 0
        while user[v] < 0:
            v = int(slots[first_child[v], 1])
        i = user[v]
        for r in range(m):
            if reserving:
                committed[r] += _growth(tasks[i], i, r, demands, reserved, True)
            consumed[r] += demands[i, r]
        tasks[i] += 1
        if reserving:  # its next task's growth may have grown: move it up its candidate heaps
            for r in range(m):
                j = cpos[i, r]
                if 0 <= j < csize[r] and cand[r, j] == i:
                    _candidate_sift_up(
                        cand, ckey, cpos, r, j, _growth(tasks[i], i, r, demands, reserved, True)
                    )
        if record:
            order[count] = i
        count += 1
        share[v] = tasks[i] * per_task[i]
        key[v] = tasks[i] * step[i]
        # (naive: the leaf's own row of what it holds is read only while the heaps are built, above)
        c = v
        while (
            c != 0
        ):  # c is at the top of its parent's heap (the walk took it): sift it down from there
            p = parent[c]
            slots[first_child[p], 0] = key[c]
            _sift(slots, hpos, first_child[p], hsize[p], 0)
            if p == 0:
                break
            if naive:
                for r in range(m):
                    direction[p, r] += demands[i, r]
                share[p] = _held_share(direction, p, capacity)
            else:  # the direction is unchanged: only the minimum moved
                share[p] = slots[first_child[p], 0] * umax[p]
            key[p] = share[p] / weight[p]
            c = p
        # newly blocked leaves: this one at its cap, and everyone whose task no longer fits some
        # resource
        n_pending = 0
        if tasks[i] >= caps[i]:
            blocked[v] = True
            _heap_remove(slots, hpos, hsize, first_child, parent, v)
            n_pending = _mark(parent[v], marked, pending, n_pending)
        for r in range(m):
            if not (
                (unscanned[r] > 0 and committed[r] + heaps[r, 0, 0] > limit[r])
                or (csize[r] > 0 and committed[r] + ckey[r, 0] > limit[r])
            ):
                continue  # nobody's next task stopped fitting r (most steps): skip the call
            for k in range(
                _newly_blocked(
                    r,
                    tasks,
                    demands,
                    committed,
                    limit,
                    heaps,
                    heaped,
                    unscanned,
                    reserved,
                    cand,
                    ckey,
                    cpos,
                    csize,
                    found,
                    blocked,
                    leaf,
                )
            ):
                u = leaf[found[k]]
                if not blocked[u]:
                    blocked[u] = True
                    _heap_remove(slots, hpos, hsize, first_child, parent, u)
                    n_pending = _mark(parent[u], marked, pending, n_pending)
        while (
            n_pending > 0
        ):  # deepest first (largest number): children are settled before their parent
            p = pending[0]
            n_pending -= 1
            marked[p] = False
            if n_pending > 0:
                _pop_largest(pending, n_pending)
            if hsize[p] == 0:
                blocked[p] = True
                if p != 0:
                    _heap_remove(slots, hpos, hsize, first_child, parent, p)
                    n_pending = _mark(parent[p], marked, pending, n_pending)
            elif not naive and p != 0:
                _refresh_direction(
                    p, first_child, n_children, blocked, weight, direction, umax, share, key, slots
                )
                q = parent[p]
                slots[hpos[p], 0] = key[p]
                _sift(slots, hpos, first_child[q], hsize[q], hpos[p] - first_child[q])
                n_pending = _mark(q, marked, pending, n_pending)
    return tasks, consumed, count, share


@njit(cache=True)
def _mark(v, marked, pending, size):
    """Add node ``v`` to the max-heap ``pending[:size]`` unless it is there; returns the new size.

    Parameters
    ----------
    v : int
        The node.
    marked : bool[:]
        Whether each node is in the heap, shape (n_nodes,).
    pending : int64[:]
        The max-heap of node numbers, shape (n_nodes,).
    size : int
        Entries in the heap.
    """
    if marked[v]:
        return size
    marked[v] = True
    j = size
    while j > 0:
        up = (j - 1) // 2
        if pending[up] >= v:
            break
        pending[j] = pending[up]
        j = up
    pending[j] = v
    return size + 1


@njit(cache=True)
def _pop_largest(pending, size):
    """Remove the root of the max-heap ``pending[:size + 1]``, leaving ``size`` entries.

    Parameters
    ----------
    pending : int64[:]
        The max-heap of node numbers.
    size : int
        Entries left after the pop.
    """
    v = pending[size]
    j = 0
    while True:
        c = 2 * j + 1
        if c >= size:
            break
        if c + 1 < size and pending[c + 1] > pending[c]:
            c += 1
        if pending[c] <= v:
            break
        pending[j] = pending[c]
        j = c
    pending[j] = v


@njit(cache=True)
def _node_totals(tasks, demands, capacity, first_child, n_children, user, leaf):
    """What each node's subtree holds (children summed in order, deepest nodes first: a node's
    children have larger numbers), its dominant share and the resource attaining it (the first of
    equals). The leaves' rows are written user by user, reading ``demands`` in order.

    Parameters
    ----------
    tasks : int64[:]
        Tasks per user, shape (n_users,).
    demands : float64[:, :]
        Per-task demands, shape (n_users, n_resources).
    capacity : float64[:]
        Capacities, shape (n_resources,).
    first_child : int64[:]
        Each node's first child, shape (n_nodes,).
    n_children : int64[:]
        Each node's number of children, shape (n_nodes,).
    user : int64[:]
        The user at each leaf, -1 elsewhere, shape (n_nodes,).
    leaf : int64[:]
        Each user's node, shape (n_users,).
    """
    n_nodes, m = first_child.shape[0], demands.shape[1]
    held = np.empty((n_nodes, m))
    shares = np.empty(n_nodes)
    dominant = np.empty(n_nodes, dtype=np.int64)
    for i in range(demands.shape[0]):
        for r in range(m):
            held[leaf[i], r] = tasks[i] * demands[i, r]
    for v in range(n_nodes - 1, -1, -1):
        if user[v] < 0:
            for r in range(m):
                held[v, r] = 0.0
            for c in range(first_child[v], first_child[v] + n_children[v]):
                for r in range(m):
                    held[v, r] += held[c, r]
        top, best = held[v, 0] / capacity[0], 0
        for r in range(1, m):
            share = held[v, r] / capacity[r]
            best = r if share > top else best
            top = max(top, share)
        shares[v], dominant[v] = top, best
    return held, shares, dominant


@interpreted_when_small(bounded=_few_tasks)  # as drf: its extra arguments are ignored
def hierarchical_drf(
    demands: ArrayLike,
    capacity: ArrayLike,
    paths: Sequence[str] | QueueTree,
    *,
    weights: Mapping[str, float] | None = None,
    variant: str = "hdrf",
    max_tasks: ArrayLike | None = None,
    start: ArrayLike | None = None,
    quotas: Quotas | None = None,
    record_order: bool = False,
    max_allocations: int = MAX_ALLOCATIONS,
) -> HierarchicalDRFResult:
    """DRF over a tree of weighted queues, one indivisible task at a time (module docstring).

    Parameters
    ----------
    demands : array_like
        Shape (n_users, n_resources): per-task demand of each user, >= 0, no all-zero row.
    capacity : array_like
        Shape (n_resources,): total of each resource, > 0.
    paths : sequence of str, or QueueTree
        Each user's leaf, ``"queue/subqueue/user"`` (:func:`queue_tree`), in the users' order (a
        list or tuple; a set, whose order changes with the interpreter's hash seed, is refused); or
        the tree already built
        by :func:`queue_tree` (a scheduler's queues change rarely: building the tree of 10⁵ users
        costs about as much as filling it).
    weights : Mapping[str, float] or None, default None
        Node weights by path (queues and users); unlisted nodes weigh 1. With a QueueTree, give them
        to :func:`queue_tree` instead.
    variant : {"hdrf", "naive"}, default "hdrf"
        H-DRF (rescaled shares, blocked children ignored) or the naive rule (a subtree's own
        dominant share).
    max_tasks : array_like or None, default None
        Shape (n_users,): per-user task caps (integers); None: none.
    start : array_like or None, default None
        Shape (n_users,): tasks each user already holds; filling continues from there (and the
        result counts them).
    quotas : Quotas or None, default None
        Each user's (leaf's) guarantee, limit and lending limit as resource vectors, with the rules
        ``drf`` gives them (:mod:`.quotas`): the whole tasks within every guarantee first (in the
        tree's order), then the tree's filling; a limit caps the user's tasks; the unlent part of a
        guarantee is held back for its user. Mesos's nested roles with quota on their leaves, YARN's
        nested queues with min/max resources on leaf queues. Only ``share="dominant"``: Kueue's
        borrowed share over a tree of cohorts is another rule (refused), and quotas on inner queues
        are not modelled.
    record_order : bool, default False
        Also return the users in allocation order.
    max_allocations : int, default MAX_ALLOCATIONS
        Refuse pools on which filling could take more steps than this (as :func:`drf`).

    Returns
    -------
    HierarchicalDRFResult
        Tasks per user and what every node of the tree holds.

    Raises
    ------
    InvalidInputError
        On invalid input, weights given with a QueueTree, a tree of another number of users, quotas
        with ``share="borrowed"``, or a pool on which filling could take more than
        ``max_allocations`` steps.

    References
    ----------
    .. [1] A. A. Bhattacharya, D. Culler, E. Friedman, A. Ghodsi, S. Shenker, I. Stoica,
       "Hierarchical Scheduling for Diverse Datacenter Workloads", SoCC, 2013.

    Examples
    --------
    Volcano's ``TestHDRF`` "rescaling test": 10 CPUs and 10 GB; ``sci`` runs <1 CPU, 1 GB> tasks,
    ``eng/dev`` <1 CPU, 0> and ``eng/prod`` <0, 1 GB>; ``sci`` and ``eng`` weigh the same. ``eng``
    is owed half: its two children hold 5 CPUs and 5 GB, ``sci`` the other half.

    >>> res = hierarchical_drf([[1, 1], [1, 0], [0, 1]], [10, 10], ["sci", "eng/dev", "eng/prod"])
    >>> res.tasks.tolist()
    [5, 5, 5]

    Flattening the tree to users weighted by their share of the root (2, 1, 1) gives ``sci`` more
    than half:

    >>> from fairlib import drf
    >>> drf([[1, 1], [1, 0], [0, 1]], [10, 10], weights=[2, 1, 1]).tasks.tolist()
    [7, 3, 3]
    """
    record_order = as_flag(record_order, "record_order")
    check_choice(variant, HIERARCHY_VARIANTS, "variant")
    d = as_demands(demands)
    n, m = d.shape
    cap = as_capacities(capacity, n_resources=m, aligned_to=("demands", demands, 1))
    check_labels(("demands", demands, 0), paths=paths, max_tasks=max_tasks, start=start)
    if isinstance(paths, QueueTree):
        if weights is not None:
            raise InvalidInputError(
                "weights: a QueueTree carries its weights (give them to queue_tree)"
            )
        if len(paths.leaf) != n:
            raise InvalidInputError(
                f"paths: a QueueTree with {len(paths.leaf)} users, expected {n} (one per user)"
            )
        tree = paths
    else:
        paths = as_sequence(paths, "paths", what=f"expected {n} leaf paths (one per user)")
        if len(paths) != n:
            raise InvalidInputError(
                f"paths: expected {n} leaf paths (one per user), got {len(paths)}"
            )
        tree = queue_tree(paths, weights)
    per_task, alone, dominant = pool_summary(d, cap)
    step = per_task / tree.weight[tree.leaf]
    caps, steps_bound = filling_bounds(d, cap, per_task, max_tasks, max_allocations, alone=alone)
    reserved = np.empty((0, m))
    if quotas is not None:
        if not isinstance(quotas, Quotas):
            raise InvalidInputError(
                f"quotas: expected a fairlib.multires.Quotas, got {type(quotas).__name__}"
            )
        if quotas.share != "dominant":
            raise InvalidInputError(
                f"quotas.share = {quotas.share!r}: hierarchical_drf compares queues by dominant "
                "shares; Kueue's borrowed share over a tree of cohorts is not modelled"
            )
        quotas._check_labels("demands", demands)
        quota = quotas.resolve(d, cap)
        caps = np.minimum(caps, quota.limit_tasks)
        reserved = quota.reserved
    held = _start_tasks(start, d, cap, caps)
    phases, count = [caps], 0
    if quotas is not None:
        _check_reservations(held, d, cap, reserved)
        # the guarantees first (a user already beyond its guarantee waits), then everyone, as drf
        # does
        guaranteed = np.maximum(held, np.minimum(quota.guaranteed_tasks, caps))
        phases = [guaranteed, caps] if (guaranteed > held).any() else [caps]
        committed = committed_amounts(guaranteed, d, reserved)
        if len(phases) == 2 and not record_order and (committed <= cap * (1 - _MARGIN)).all():
            # every guaranteed task fits with room to spare (committed amounts only grow), so the
            # first phase ends with everyone at its guaranteed tasks: only the order in which they
            # came needs the tree
            count, held, phases = int((guaranteed - held).sum()), guaranteed, [caps]
    tasks, orders = held, []
    for phase_caps in phases:
        order = order_buffer(record_order, steps_bound)
        tasks, consumed, steps, decision = _hierarchical_filling(
            d,
            cap,
            per_task,
            step,
            tree.parent,
            tree.first_child,
            tree.n_children,
            tree.weight,
            tree.user,
            tree.leaf,
            phase_caps,
            tasks,
            HierarchyRule(variant == "naive", bool(record_order)),
            order,
            reserved,
        )
        orders.append(order[:steps])
        count += steps
    node_consumed, node_shares, node_dominant = _node_totals(
        tasks, d, cap, tree.first_child, tree.n_children, tree.user, tree.leaf
    )
    return HierarchicalDRFResult(
        tasks=tasks,
        consumed=consumed,
        dominant_shares=tasks * per_task,
        dominant_resource=dominant,
        n_allocations=int(count),
        variant=variant,
        tree=tree,
        node_consumed=node_consumed,
        node_dominant_shares=node_shares,
        node_dominant_resource=node_dominant,
        decision_shares=np.where(np.arange(len(tree.nodes)) == 0, 0.0, decision),
        order=np.concatenate(orders) if record_order else None,
    )
