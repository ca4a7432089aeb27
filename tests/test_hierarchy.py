"""Hierarchical DRF (fairlib.multires.schedulers.hierarchy): known answers, the kernel against a
from-scratch reference, the properties that tie it to flat weighted DRF, and bad input.

Known answers: Volcano's ``TestHDRF`` (volcano-sh/volcano,
``pkg/scheduler/plugins/drf/hdrf_test.go``), whose two cases are the two fixes H-DRF makes to naive
hierarchical DRF (Bhattacharya et al., SoCC 2013, §4); and hand-derived cases where the naive rule
starves a queue and H-DRF does not. Mapping of Volcano's test to fairlib: a queue with ``hierarchy:
"root/a/b"`` and ``weights: "100/x/y"`` → nodes ``a`` (weight x) and ``a/b`` (weight y); a pod
group of ``taskNum`` pods with request (cpu, mem) in that queue → a user at path ``"a/b/<pg>"``
with demand (cpu, mem) and ``max_tasks = taskNum`` (a job is done when all its pods run); one node
→ the capacity; ``job.Allocated`` → ``tasks · demand``.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairlib._jit import compiled
from fairlib._validate import InvalidInputError
from fairlib.multires import Quotas, drf, hierarchical_drf, queue_tree
from tests.reference import hierarchical_filling_reference

VOLCANO = ("volcano-sh/volcano", "pkg/scheduler/plugins/drf/hdrf_test.go", "TestHDRF")


# ---- known answers -------------------------------------------------------------------------------
@pytest.mark.parametrize("variant", ["hdrf", "naive"])
def test_volcano_rescaling_case(variant):
    """TestHDRF "rescaling test": 10 CPUs, 10 GB. sci (weight 50) runs <1, 1G> pods; eng (50) has
    dev (50) with <1, 0> pods and prod (50) with <0, 1G>; ten pods each. Expected: pg1 5 CPUs and 5
    GB, pg21 5 CPUs, pg22 5 GB. (From zero the naive rule reaches the same: the rescaling matters
    once a queue is ahead, see the starvation cases below.)"""
    res = hierarchical_drf(
        [[1, 1], [1, 0], [0, 1]],
        [10, 10],
        ["sci/pg1", "eng/dev/pg21", "eng/prod/pg22"],
        weights={"sci": 50, "eng": 50, "eng/dev": 50, "eng/prod": 50},
        max_tasks=[10, 10, 10],
        variant=variant,
    )
    assert res.tasks.tolist() == [5, 5, 5]
    np.testing.assert_array_equal(
        res.tasks[:, None] * np.array([[1, 1], [1, 0], [0, 1]]), [[5, 5], [5, 0], [0, 5]]
    )


@pytest.mark.parametrize("variant", ["hdrf", "naive"])
def test_volcano_blocking_case(variant):
    """TestHDRF "blocking nodes test": 30 CPUs, 30 GB; pg1, pg2, pg3, pg4 weigh 25 each; pg1, pg2
    and pg3/pg31 run CPU-only pods, pg3/pg32 and pg4 memory-only pods, thirty each. Expected: 10
    CPUs to each CPU group, 15 GB to each memory group — once the CPUs are gone, pg3 competes for
    memory through pg32 alone."""
    res = hierarchical_drf(
        [[1, 0], [1, 0], [1, 0], [0, 1], [0, 1]],
        [30, 30],
        ["pg1/j", "pg2/j", "pg3/pg31/j", "pg3/pg32/j", "pg4/j"],
        weights={"pg1": 25, "pg2": 25, "pg3": 25, "pg4": 25, "pg3/pg31": 50, "pg3/pg32": 50},
        max_tasks=[30] * 5,
        variant=variant,
    )
    assert res.tasks.tolist() == [10, 10, 10, 15, 15]


def test_naive_starves_where_hdrf_does_not_from_zero():
    """Hand-derived: 10 CPUs, 10 GB, 1 GPU. n1 runs <1, 1, 0>; n2 has a <0, 0, 1> leaf (one task
    takes the GPU) and a <1, 1, 0> leaf. After its first task the GPU leaf holds share 1, so under
    the naive rule n2's share is 1 for ever and n1 takes all ten CPU-and-memory tasks: n2/b gets
    none. H-DRF ignores the blocked GPU leaf, so n2 competes through n2/b and the two split the
    rest, 5 and 5 (n2's entitlement, half, in that resource pair)."""
    args = ([[1, 1, 0], [0, 0, 1], [1, 1, 0]], [10, 10, 1], ["n1", "n2/a", "n2/b"])
    naive = hierarchical_drf(*args, variant="naive")
    hdrf = hierarchical_drf(*args, variant="hdrf")
    assert naive.tasks.tolist() == [10, 1, 0]
    assert hdrf.tasks.tolist() == [5, 1, 5]


def test_naive_starves_where_hdrf_does_not_from_a_start():
    """Hand-derived: n2/a holds all 10 CPUs (it came first); n1 and n2/b then both want memory.
    Naive: n2's share is 1 (its CPUs), so n1 gets all the memory. H-DRF: n2/a is blocked and
    ignored, n2 competes through n2/b, and memory is split 5 / 5 — the rescaling example of the
    paper's §4, as a scheduler meets it."""
    args = ([[0, 1], [1, 0], [0, 1]], [10, 10], ["n1", "n2/a", "n2/b"])
    assert hierarchical_drf(*args, variant="naive", start=[0, 10, 0]).tasks.tolist() == [10, 10, 0]
    assert hierarchical_drf(*args, variant="hdrf", start=[0, 10, 0]).tasks.tolist() == [5, 10, 5]


def test_hierarchy_is_not_a_flattened_tree():
    """The docstring example: a tree's split differs from DRF over its leaves weighted by their
    fraction of the root (sci 1/2 → 2, eng/dev and eng/prod 1/4 → 1), which gives sci 7 tasks
    against the tree's 5."""
    d, cap = [[1, 1], [1, 0], [0, 1]], [10, 10]
    assert hierarchical_drf(d, cap, ["sci", "eng/dev", "eng/prod"]).tasks.tolist() == [5, 5, 5]
    assert drf(d, cap, weights=[2, 1, 1]).tasks.tolist() == [7, 3, 3]


def test_entitlement_is_a_floor_not_a_ceiling():
    """Work conservation: a queue may hold more than its entitlement when its siblings want none of
    what is left (Volcano's blocking case: pg4 is owed a quarter but takes half the memory, as
    nobody else but pg3/pg32 wants it). So "a leaf's share never exceeds its parent's entitlement"
    holds only while every sibling still demands; the property tests below check the rule that makes
    the floor hold instead (the lowest weighted share is served)."""
    res = hierarchical_drf(
        [[1, 0], [1, 0], [1, 0], [0, 1], [0, 1]],
        [30, 30],
        ["pg1", "pg2", "pg3/pg31", "pg3/pg32", "pg4"],
    )
    pg4 = res.node("pg4")
    assert (
        res.node_dominant_shares[pg4] == pytest.approx(0.5) and res.node_dominant_resource[pg4] == 1
    )


def test_result_reports_nodes_and_dominant_resources():
    res = hierarchical_drf([[1, 1], [1, 0], [0, 1]], [10, 10], ["sci", "eng/dev", "eng/prod"])
    assert res.tree.nodes == ("", "sci", "eng", "eng/dev", "eng/prod")
    np.testing.assert_array_equal(res.node_consumed[res.node("eng")], [5, 5])
    np.testing.assert_array_equal(res.node_consumed[0], res.consumed)
    assert res.dominant_resource.tolist() == [0, 0, 1]
    assert res.decision_shares[res.node("eng")] == pytest.approx(
        0.5
    )  # rescaled: 5 CPUs and 5 GB, both 1/2


# ---- the kernel against the reference ------------------------------------------------------------
@st.composite
def hierarchies(draw, max_users=7):
    n = draw(st.integers(1, max_users))
    m = draw(st.integers(1, 3))
    rows = draw(
        st.lists(
            st.lists(st.integers(0, 4), min_size=m, max_size=m).filter(any), min_size=n, max_size=n
        )
    )
    cap = draw(st.lists(st.sampled_from([8, 16, 32]), min_size=m, max_size=m))
    groups = draw(st.lists(st.lists(st.sampled_from("ab"), max_size=2), min_size=n, max_size=n))
    paths = ["/".join([*g, f"u{i}"]) for i, g in enumerate(groups)]
    tree = queue_tree(paths)
    weights = {p: draw(st.sampled_from([1, 2, 4])) for p in tree.nodes[1:] if draw(st.booleans())}
    caps = draw(st.none() | st.lists(st.integers(0, 6), min_size=n, max_size=n))
    return np.array(rows, dtype=float), np.array(cap, dtype=float), paths, weights, caps


def _start_from(args, variant, cut):
    """A reachable allocation: the first ``cut`` tasks of the reference's own run."""
    d, cap, paths, weights, caps = args
    _, order = hierarchical_filling_reference(
        d, cap, paths, weights=weights, variant=variant, max_tasks=caps
    )
    return np.bincount(order[:cut], minlength=len(d)).astype(np.int64)


@settings(max_examples=120, deadline=None)
@given(args=hierarchies(), variant=st.sampled_from(["hdrf", "naive"]), cut=st.integers(0, 40))
def test_kernel_matches_reference(args, variant, cut):
    """Same tasks in the same order as the from-scratch reference, from zero and from a start
    (H-DRF's incremental minimum and direction updates, the per-resource blocking scan and the heaps
    are what this checks)."""
    d, cap, paths, weights, caps = args
    held = _start_from(args, variant, cut) if cut else None
    res = hierarchical_drf(
        d,
        cap,
        paths,
        weights=weights,
        variant=variant,
        max_tasks=caps,
        start=held,
        record_order=True,
    )
    tasks, order = hierarchical_filling_reference(
        d, cap, paths, weights=weights, variant=variant, max_tasks=caps, start=held
    )
    np.testing.assert_array_equal(res.tasks, tasks)
    np.testing.assert_array_equal(res.order, order)


@settings(max_examples=15, deadline=None)
@given(args=hierarchies(), variant=st.sampled_from(["hdrf", "naive"]))
def test_compiled_kernel_matches_reference(args, variant):
    """The same, compiled (small problems run the kernel's Python source, fairlib._jit)."""
    d, cap, paths, weights, caps = args
    with compiled():
        res = hierarchical_drf(
            d, cap, paths, weights=weights, variant=variant, max_tasks=caps, record_order=True
        )
    tasks, order = hierarchical_filling_reference(
        d, cap, paths, weights=weights, variant=variant, max_tasks=caps
    )
    np.testing.assert_array_equal(res.tasks, tasks)
    np.testing.assert_array_equal(res.order, order)


def test_reference_differs_between_variants():
    """The differential test can tell the variants apart (so it would catch one computed as the
    other)."""
    args = ([[1, 1, 0], [0, 0, 1], [1, 1, 0]], [10, 10, 1], ["n1", "n2/a", "n2/b"])
    assert (
        hierarchical_filling_reference(*args, variant="naive")[0].tolist()
        != hierarchical_filling_reference(*args, variant="hdrf")[0].tolist()
    )


# ---- properties ----------------------------------------------------------------------------------
@settings(max_examples=120, deadline=None)
@given(args=hierarchies(), variant=st.sampled_from(["hdrf", "naive"]))
def test_flat_tree_is_weighted_drf(args, variant):
    """With every user a child of the root, both variants are weighted DRF (lowest index first on
    equal shares). Capacities are made non-integer so that drf also compares shares as ``tasks *
    step`` in floating point."""
    d, cap, _, _, caps = args
    w = np.arange(len(d)) % 3 + 1.0
    paths = [f"u{i}" for i in range(len(d))]
    cap = cap + 0.5
    res = hierarchical_drf(
        d, cap, paths, weights=dict(zip(paths, w)), variant=variant, max_tasks=caps
    )
    flat = drf(d, cap, weights=w, max_tasks=caps)
    assert flat.share_arithmetic == "float"
    np.testing.assert_array_equal(res.tasks, flat.tasks)


@settings(max_examples=120, deadline=None)
@given(args=hierarchies(), variant=st.sampled_from(["hdrf", "naive"]))
def test_single_child_nodes_change_nothing(args, variant):
    """A node with one child is its child: putting each user under its own unit-weight node (and
    moving the user's weight to it) leaves every allocation unchanged. Weights are powers of two and
    capacities too, so the shares' floats are exact and the comparison is exact."""
    d, cap, paths, weights, caps = args
    wrapped = [
        "/".join([*p.split("/")[:-1], f"x{i}", p.split("/")[-1]]) for i, p in enumerate(paths)
    ]
    moved = {}
    for key, value in weights.items():
        moved[wrapped[paths.index(key)].rsplit("/", 1)[0] if key in paths else key] = value
    res = hierarchical_drf(d, cap, paths, weights=weights, variant=variant, max_tasks=caps)
    res_wrapped = hierarchical_drf(d, cap, wrapped, weights=moved, variant=variant, max_tasks=caps)
    np.testing.assert_array_equal(res.tasks, res_wrapped.tasks)


@settings(max_examples=80, deadline=None)
@given(args=hierarchies(), variant=st.sampled_from(["hdrf", "naive"]))
def test_scaling_siblings_weights_changes_nothing(args, variant):
    """Only ratios of sibling weights matter: doubling every node's weight gives the same
    allocation."""
    d, cap, paths, weights, caps = args
    tree = queue_tree(paths, weights)
    doubled = {p: 2 * w for p, w in zip(tree.nodes[1:], tree.weight[1:])}
    res = hierarchical_drf(d, cap, paths, weights=weights, variant=variant, max_tasks=caps)
    np.testing.assert_array_equal(
        res.tasks,
        hierarchical_drf(d, cap, paths, weights=doubled, variant=variant, max_tasks=caps).tasks,
    )


@settings(max_examples=80, deadline=None)
@given(args=hierarchies(), variant=st.sampled_from(["hdrf", "naive"]))
def test_work_conserving(args, variant):
    """At the end every user is at its cap or its next task does not fit."""
    d, cap, paths, weights, caps = args
    res = hierarchical_drf(d, cap, paths, weights=weights, variant=variant, max_tasks=caps)
    assert (res.consumed <= cap * (1 + 1e-12)).all()
    for i in range(len(d)):
        capped = caps is not None and res.tasks[i] >= caps[i]
        assert capped or (res.consumed + d[i] > cap * (1 + 1e-12)).any()


@settings(max_examples=80, deadline=None)
@given(args=hierarchies())
def test_hdrf_serves_the_lowest_rescaled_share(args):
    """The defining rule, checked on the result's own trace: replaying the recorded order, every
    task went down the path of lowest weighted (rescaled) share among the unblocked children — the
    reference's choice at each step is the recorded user (a mutation of the tie rule or of the
    rescaling breaks this)."""
    d, cap, paths, weights, caps = args
    res = hierarchical_drf(d, cap, paths, weights=weights, max_tasks=caps, record_order=True)
    for k in range(len(res.order)):
        held = np.bincount(res.order[:k], minlength=len(d)).astype(np.int64)
        _, nxt = hierarchical_filling_reference(
            d, cap, paths, weights=weights, max_tasks=caps, start=held
        )
        assert nxt[0] == res.order[k]
        if k > 12:
            break


@settings(max_examples=120, deadline=None)
@given(
    args=hierarchies(),
    variant=st.sampled_from(["hdrf", "naive"]),
    scale=st.sampled_from([10, 50, 250]),
)
def test_hierarchical_share_guarantee(args, variant, scale):
    """H-DRF's hierarchical share guarantee (Bhattacharya et al., §3 ``[MEM]``): every leaf's
    dominant share is at least its entitlement, the product of its and its ancestors' weight
    fractions among their siblings. That is a statement about divisible tasks; with whole tasks
    every user can stand up to one task above the water level when a resource fills, so the
    allowance is (n + 1) times the largest per-task share (which ``scale`` makes small: capacities
    10-250 times the generated ones, tens to thousands of tasks). No caps: a capped leaf is owed
    nothing beyond its cap."""
    d, cap, paths, weights, _ = args
    cap = cap * scale
    tree = queue_tree(paths, weights)
    entitlement = np.ones(len(tree.nodes))
    for v in range(1, len(tree.nodes)):  # parents are numbered before their children
        p = tree.parent[v]
        siblings = tree.weight[tree.first_child[p] : tree.first_child[p] + tree.n_children[p]]
        entitlement[v] = entitlement[p] * tree.weight[v] / siblings.sum()
    res = hierarchical_drf(d, cap, paths, weights=weights, variant=variant)
    allowance = (len(d) + 1) * (d / cap).max()
    assert (res.dominant_shares >= entitlement[tree.leaf] - allowance).all()


# ---- quotas on the leaves ------------------------------------------------------------------------
INF = np.inf
VOLCANO_TREE = ([[1, 1], [1, 0], [0, 1]], [10, 10], ["sci", "eng/dev", "eng/prod"])


@pytest.mark.parametrize("variant", ["hdrf", "naive"])
def test_quotas_in_a_tree_known_answers(variant):
    """Volcano's rescaling tree (5/5/5 without quotas) with quotas on its leaves, derived by hand:

    - ``eng/dev`` limited to 2 CPUs: it stops at 2 tasks and ``sci`` and ``eng/prod`` split the
      memory, 5 and 5;
    - ``eng/prod`` guaranteed 8 GB (YARN min share): its 8 tasks come first, ``sci`` then fits only
      2 tasks of memory and ``eng/dev`` takes the 8 CPUs left;
    - the same guarantee on a job of 3 tasks: YARN lends the unused 5 GB (``sci`` 5, ``eng/dev`` 5,
      CPU full), Mesos holds it back for its owner (``sci`` 2: 2 + max(3, 8) = 10 GB committed).
    """
    d, cap, paths = VOLCANO_TREE

    def run(q, mt=None):
        return hierarchical_drf(
            d, cap, paths, variant=variant, quotas=q, max_tasks=mt
        ).tasks.tolist()

    assert run(Quotas.yarn(max_share=[[INF, INF], [2, INF], [INF, INF]])) == [5, 2, 5]
    assert run(Quotas.yarn(min_share=[[0, 0], [0, 0], [0, 8]])) == [2, 8, 8]
    assert run(Quotas.yarn(min_share=[[0, 0], [0, 0], [0, 8]]), [10, 10, 3]) == [5, 5, 3]
    assert run(Quotas.mesos(guarantee=[[0, 0], [0, 0], [0, 8]]), [10, 10, 3]) == [2, 8, 3]


@pytest.mark.parametrize("variant", ["hdrf", "naive"])
def test_a_reservation_that_runs_out(variant):
    """One resource of 12, tasks of 4, 3, 4, 3, Mesos guarantees 3, 0, 6, 0 (held back: 9 committed
    from the start). User 2's one guaranteed task comes first. Then user 0's first task fits thanks
    to its own 3 held back (it commits 1 more), users 1 and 3 no longer fit (10 + 3 > 12), user 0's
    second task would commit 4 more and does not fit, user 2's second commits 2 (8 over its 6): [1,
    0, 2, 0]. A user that fits only by its reservation, and stops fitting after its own task, is
    what the kernel's candidate heaps track."""
    res = hierarchical_drf(
        [[4], [3], [4], [3]],
        [12],
        ["a/u0", "a/u1", "b/u2", "b/u3"],
        variant=variant,
        quotas=Quotas.mesos(guarantee=[[3], [0], [6], [0]]),
    )
    assert res.tasks.tolist() == [1, 0, 2, 0]


@st.composite
def hierarchies_with_quotas(draw):
    """A tree of :func:`hierarchies` with guarantees that fit together, limits above them (or none)
    and lending limits below them (or everything lendable)."""
    d, cap, paths, weights, caps = draw(hierarchies())
    n, m = d.shape
    frac = np.array(
        draw(st.lists(st.lists(st.integers(0, 10), min_size=m, max_size=m), min_size=n, max_size=n))
    )
    g = np.floor(frac / 10 * cap / n)
    lend = np.floor(g * draw(st.integers(0, 10)) / 10) if draw(st.booleans()) else None
    lim = (
        g
        + np.array(
            draw(
                st.lists(
                    st.lists(st.integers(0, 12), min_size=m, max_size=m), min_size=n, max_size=n
                )
            )
        )
        if draw(st.booleans())
        else None
    )
    return d, cap, paths, weights, caps, g, lim, lend


@settings(max_examples=150, deadline=None)
@given(
    args=hierarchies_with_quotas(),
    variant=st.sampled_from(["hdrf", "naive"]),
    cut=st.integers(0, 30),
)
def test_kernel_with_quotas_matches_reference(args, variant, cut):
    """Same tasks in the same order as the from-scratch reference with quotas (guarantees first,
    limits as caps, the unlent part of each guarantee held back: the kernel's candidate heaps are
    what this checks), from zero and from a start the reference reached after ``cut`` tasks."""
    d, cap, paths, weights, caps, g, lim, lend = args
    quota = dict(guarantee=g, limit=lim, lending_limit=lend)
    tasks, order = hierarchical_filling_reference(
        d, cap, paths, weights=weights, variant=variant, max_tasks=caps, **quota
    )
    res = hierarchical_drf(
        d,
        cap,
        paths,
        weights=weights,
        variant=variant,
        max_tasks=caps,
        quotas=Quotas(g, lim, lend),
        record_order=True,
    )
    np.testing.assert_array_equal(res.tasks, tasks)
    np.testing.assert_array_equal(res.order, order)
    # without the order, the guarantees' phase is written down instead of run: same tasks, same
    # count
    fast = hierarchical_drf(
        d, cap, paths, weights=weights, variant=variant, max_tasks=caps, quotas=Quotas(g, lim, lend)
    )
    np.testing.assert_array_equal(fast.tasks, tasks)
    assert fast.n_allocations == res.n_allocations == len(order)
    held = np.bincount(order[:cut], minlength=len(d)).astype(np.int64)
    tasks2, order2 = hierarchical_filling_reference(
        d, cap, paths, weights=weights, variant=variant, max_tasks=caps, start=held, **quota
    )
    res2 = hierarchical_drf(
        d,
        cap,
        paths,
        weights=weights,
        variant=variant,
        max_tasks=caps,
        start=held,
        quotas=Quotas(g, lim, lend),
        record_order=True,
    )
    np.testing.assert_array_equal(res2.tasks, tasks2)
    np.testing.assert_array_equal(res2.order, order2)


@settings(max_examples=15, deadline=None)
@given(args=hierarchies_with_quotas(), variant=st.sampled_from(["hdrf", "naive"]))
def test_compiled_kernel_with_quotas_matches_reference(args, variant):
    d, cap, paths, weights, caps, g, lim, lend = args
    tasks, order = hierarchical_filling_reference(
        d,
        cap,
        paths,
        weights=weights,
        variant=variant,
        max_tasks=caps,
        guarantee=g,
        limit=lim,
        lending_limit=lend,
    )
    with compiled():
        res = hierarchical_drf(
            d,
            cap,
            paths,
            weights=weights,
            variant=variant,
            max_tasks=caps,
            quotas=Quotas(g, lim, lend),
            record_order=True,
        )
    np.testing.assert_array_equal(res.tasks, tasks)
    np.testing.assert_array_equal(res.order, order)


def test_reference_with_quotas_catches_dropped_reservations():
    """The differential test can fail: the same guarantees lent out entirely differ from the
    reference that holds them back (Mesos) on the known-answer tree."""
    d, cap, paths = VOLCANO_TREE
    g, nothing_lent = [[0, 0], [0, 0], [0, 8]], np.zeros((3, 2))
    ref, _ = hierarchical_filling_reference(
        d, cap, paths, max_tasks=[10, 10, 3], guarantee=g, lending_limit=nothing_lent
    )
    lent = hierarchical_drf(d, cap, paths, max_tasks=[10, 10, 3], quotas=Quotas(g))
    assert lent.tasks.tolist() != ref.tolist()


@settings(max_examples=120, deadline=None)
@given(args=hierarchies_with_quotas(), variant=st.sampled_from(["hdrf", "naive"]))
def test_flat_tree_with_quotas_is_drf_with_quotas(args, variant):
    """With every user a child of the root, the tree with quotas is ``drf`` with the same quotas and
    weights."""
    d, cap, _, _, caps, g, lim, lend = args
    w = np.arange(len(d)) % 3 + 1.0
    paths = [f"u{i}" for i in range(len(d))]
    q = Quotas(g, lim, lend)
    res = hierarchical_drf(
        d, cap, paths, weights=dict(zip(paths, w)), variant=variant, max_tasks=caps, quotas=q
    )
    np.testing.assert_array_equal(res.tasks, drf(d, cap, weights=w, max_tasks=caps, quotas=q).tasks)


@settings(max_examples=120, deadline=None)
@given(args=hierarchies_with_quotas(), variant=st.sampled_from(["hdrf", "naive"]))
def test_quotas_are_honoured_and_filling_stops_only_when_nothing_fits(args, variant):
    """The axioms of filling with quotas: every user holds at least its guaranteed whole tasks (they
    fit together) and never more than its limit; what is committed (``Σ max(tasks d, reserved)``)
    fits; and every user is at its cap or its next task would commit more than the capacity."""
    d, cap, paths, weights, caps, g, lim, lend = args
    res = hierarchical_drf(
        d, cap, paths, weights=weights, variant=variant, max_tasks=caps, quotas=Quotas(g, lim, lend)
    )
    reserved = g - (g if lend is None else lend)
    held = res.tasks[:, None] * d
    limit = np.full_like(g, INF) if lim is None else lim
    cap_tasks = np.full(len(d), 10**9) if caps is None else np.array(caps)
    assert (held <= limit * (1 + 1e-12)).all()
    within = np.where(d > 0, np.floor(np.where(d > 0, g / np.where(d > 0, d, 1), INF)), INF).min(
        axis=1
    )
    assert (
        res.tasks
        >= np.minimum(
            np.minimum(within, cap_tasks),
            np.where(d > 0, np.floor(limit / np.where(d > 0, d, 1)), INF).min(axis=1),
        )
    ).all()
    committed = np.maximum(held, reserved).sum(axis=0)
    assert (committed <= cap * (1 + 1e-12)).all()
    for i in range(len(d)):
        more = held.copy()
        more[i] += d[i]
        at_cap = res.tasks[i] >= cap_tasks[i] or (more[i] > limit[i] * (1 + 1e-12)).any()
        assert at_cap or (np.maximum(more, reserved).sum(axis=0) > cap * (1 + 1e-12)).any()


def test_quotas_bad_input():
    d, cap, paths = VOLCANO_TREE
    with pytest.raises(
        InvalidInputError, match="quotas: expected a fairlib.multires.Quotas, got dict"
    ):
        hierarchical_drf(d, cap, paths, quotas={"guarantee": None})
    with pytest.raises(InvalidInputError, match="quotas.share = 'borrowed'.*not modelled"):
        hierarchical_drf(d, cap, paths, quotas=Quotas.kueue(nominal=np.zeros((3, 2))))
    with pytest.raises(
        InvalidInputError, match=r"min_share: the guarantees of resource 1 add up to 12"
    ):
        hierarchical_drf(d, cap, paths, quotas=Quotas.yarn(min_share=[[0, 6], [0, 0], [0, 6]]))
    with pytest.raises(
        InvalidInputError,
        match=r"start: with the guarantees' reserved parts, commits 14 of "
        r"resource 1",
    ):
        hierarchical_drf(
            d, cap, paths, start=[6, 0, 0], quotas=Quotas.mesos(guarantee=[[0, 0], [0, 0], [0, 8]])
        )
    with pytest.raises(
        InvalidInputError, match=r"start\[1\] = 3: must be within max_tasks\[1\] = 2"
    ):
        hierarchical_drf(
            d,
            cap,
            paths,
            start=[0, 3, 0],
            quotas=Quotas.yarn(max_share=[[INF, INF], [2, INF], [INF, INF]]),
        )


# ---- bad input -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "paths, weights, match",
    [
        (["a", "a"], None, r"paths\[1\] = 'a' repeats paths\[0\]"),
        (["a", "a/b"], None, r"paths\[1\] = 'a/b' lies under paths\[0\] = 'a'"),
        (["a//b", "c"], None, r"paths\[0\] = 'a//b'"),
        (["a", ""], None, r"paths\[1\] = ''"),
        (["a", 3], None, r"paths\[1\] = 3"),
        (["a", "b"], {"c": 1}, r"weights\['c'\]: no such node"),
        (["a", "b"], {"a": 0}, r"weights\['a'\] = 0\.0: must be a finite number > 0"),
        (["a", "b"], {"a": float("nan")}, r"weights\['a'\] = nan"),
        (["a", "b"], {"a": "x"}, r"weights\['a'\] = 'x': must be a finite number"),
        # text and booleans are no weights (as for every number): "2" is not read as 2.0
        (["a", "b"], {"a": "2"}, r"weights\['a'\] = '2': must be a finite number"),
        (["a", "b"], {"a": " 2 "}, r"weights\['a'\] = ' 2 ': must be a finite number"),
        (["a", "b"], {"a": True}, r"weights\['a'\] = True: must be a finite number"),
        (["a", "b"], {"a": 1e300, "b": 1e-300}, r"weights\['b'\] = 1e-300: a weight must be"),
    ],
)
def test_bad_trees(paths, weights, match):
    with pytest.raises(InvalidInputError, match=match):
        hierarchical_drf([[1, 1], [1, 2]], [4, 4], paths, weights=weights)


def test_bad_arguments():
    d, cap = [[1, 1], [1, 2]], [4, 4]
    with pytest.raises(InvalidInputError, match=r"paths: expected 2 leaf paths .* got 1"):
        hierarchical_drf(d, cap, ["a"])
    with pytest.raises(InvalidInputError, match=r"paths = 'ab': expected 2 leaf paths .* got str"):
        hierarchical_drf(d, cap, "ab")
    # user i is paths[i]: a set's order (by hash seed) would hand users each other's leaves
    for unordered in ({"q/alice", "q/bob"}, {"q/alice": 1, "q/bob": 2}.keys()):
        with pytest.raises(InvalidInputError, match=r"paths = .*has no fixed order"):
            hierarchical_drf(d, cap, unordered)
        with pytest.raises(InvalidInputError, match=r"paths = .*has no fixed order"):
            queue_tree(unordered)
    # a generator is read once, in order
    assert queue_tree(p for p in ["q/a", "q/b"]).nodes == queue_tree(["q/a", "q/b"]).nodes
    with pytest.raises(InvalidInputError, match="variant"):
        hierarchical_drf(d, cap, ["a", "b"], variant="flat")
    with pytest.raises(InvalidInputError, match=r"start\[1\] = -1"):
        hierarchical_drf(d, cap, ["a", "b"], start=[0, -1])
    with pytest.raises(InvalidInputError, match=r"start: uses 6 of resource 1"):
        hierarchical_drf(d, cap, ["a", "b"], start=[0, 3])
    with pytest.raises(InvalidInputError, match=r"max_tasks\[0\] = -2"):
        hierarchical_drf(d, cap, ["a", "b"], max_tasks=[-2, 1])
    with pytest.raises(InvalidInputError, match="demands"):
        hierarchical_drf([[0, 0], [1, 1]], cap, ["a", "b"])
