"""Production schedulers' DRF semantics: cases translated from the schedulers' own test suites, and
drf's scheduler tie rules and ``start`` checked against
:class:`fairlib.multires.schedulers.sorter.DRFSorter`.

Every translated case names its source (repository, file, test) and how the scheduler's calls map to
fairlib's:

- Mesos ``DRFSorter`` → ``DRFSorter(capacity, semantics="mesos")``: ``sorter.add(agent, r)`` /
  ``remove(agent, r)`` change the pool's totals → :meth:`set_capacity` with the new totals (agents
  pooled, as the sorter pools them); ``add(client)`` + ``activate`` → :meth:`add`;
  ``updateWeight`` → :meth:`update_weight`; ``allocated`` / ``unallocated`` → the same names
  with the resource vector; ``sort()`` → :meth:`order`. Revocable cpus and shared disk are
  separate scalar resources with their own totals (as Mesos accounts them); a shared volume held by
  several clients counts in each client's allocation once. ``update(client, old, new)`` →
  :meth:`update` (no allocation counted). Nested role names (``"b/e/f"``) are the same strings;
  ``updateWeight(role, w)`` on a role that has no client → :meth:`update_weight` on its path.
- Kueue ``dominantResourceShare`` → ``DRFSorter(capacity, semantics="kueue")``: a ClusterQueue in
  the cohort → :meth:`add` with ``nominal`` (its ``NominalQuota`` per resource), ``lending_limit``
  (its ``LendingLimit``, the nominal quota where none is set) and its ``FairWeight``; the
  ``lending-cq`` that gives the cohort lendable capacity → a second client; the admitted usage
  plus the workload passed to ``DominantResourceShareWith`` → :meth:`allocated`; ``wantDRValue``
  → ``⌊1000 · share⌋`` (``math.MaxInt`` → ``inf``), ``wantDRName`` →
  :meth:`dominant_resource` (``""`` → ``None``). CPU in millicores, as Kueue counts it.
- YARN ``DominantResourceFairnessComparator`` → ``DRFSorter(cluster, semantics="yarn",
  resources=["memory", "vcores"])``: a ``Schedulable`` with usage, weight and min share →
  :meth:`add` (weight, ``min_share``) + :meth:`allocated` (usage); ``compare(s1, s2) < 0`` →
  ``order() == ["s1", "s2"]`` with s2 added first, so the submit-time tie rule could only favour s2
  and the order must come from the shares.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairlib._validate import InvalidInputError
from fairlib.multires import drf
from fairlib.multires.schedulers.sorter import DRFSorter

MESOS = ("apache/mesos", "src/tests/sorter_tests.cpp")
YARN = (
    "apache/hadoop",
    "hadoop-yarn-project/hadoop-yarn/hadoop-yarn-server/hadoop-yarn-server-resourcemanager/src/"
    "test/java/org/apache/hadoop/yarn/server/resourcemanager/scheduler/fair/policies/"
    "TestDominantResourceFairnessPolicy.java",
)

# ---- Mesos: each source test as a script of sorter calls; every ("expect", order) is one case ----
# ops: ("total", vector) | ("add", name[, weight]) | ("alloc", name, vector) | ("unalloc", name,
# vector)
#      | ("remove", name) | ("activate", name) | ("deactivate", name) | ("weight", name, w) |
# ("expect", [names])
MESOS_SCRIPTS = {
    "DRFSorterTest.DRF": [
        ("total", [100, 100]),
        ("add", "a"),
        ("alloc", "a", [5, 5]),
        ("add", "b"),
        ("alloc", "b", [6, 6]),
        ("expect", ["a", "b"]),  # shares a = .05, b = .06
        ("add", "c"),
        ("alloc", "c", [1, 1]),
        ("add", "d"),
        ("alloc", "d", [3, 1]),
        ("expect", ["c", "d", "a", "b"]),
        ("remove", "a"),
        ("unalloc", "b", [4, 4]),
        ("expect", ["c", "b", "d"]),
        ("add", "e"),
        ("alloc", "e", [1, 5]),
        ("total", [50, 100]),  # agent loses cpus:50
        ("expect", ["c", "b", "e", "d"]),
        ("total", [50, 200]),
        ("add", "f"),
        ("alloc", "f", [5, 1]),
        ("alloc", "c", [0, 15]),
        ("expect", ["e", "b", "d", "c", "f"]),
        ("deactivate", "d"),
        ("expect", ["e", "b", "c", "f"]),
        ("activate", "d"),
        ("expect", ["e", "b", "d", "c", "f"]),
    ],
    "DRFSorterTest.WDRF": [
        ("total", [100, 100]),
        ("add", "a"),
        ("alloc", "a", [5, 5]),
        ("add", "b", 2),
        ("alloc", "b", [6, 6]),
        ("expect", ["b", "a"]),
        ("add", "c"),
        ("alloc", "c", [4, 4]),
        ("expect", ["b", "c", "a"]),
        ("add", "d", 10),
        ("alloc", "d", [10, 20]),
        ("expect", ["d", "b", "c", "a"]),
        ("remove", "b"),
        ("expect", ["d", "c", "a"]),
        ("alloc", "d", [10, 25]),
        ("expect", ["c", "d", "a"]),
        ("add", "e", 0.1),
        ("alloc", "e", [1, 1]),
        ("expect", ["c", "d", "a", "e"]),
        ("remove", "a"),
        ("expect", ["c", "d", "e"]),
    ],
    "DRFSorterTest.UpdateWeight": [
        ("total", [100, 100]),
        ("add", "a"),
        ("alloc", "a", [5, 5]),
        ("add", "b"),
        ("alloc", "b", [6, 6]),
        ("expect", ["a", "b"]),
        ("weight", "b", 2),
        ("expect", ["b", "a"]),
    ],
    "DRFSorterTest.AllocationCountTieBreak": [
        ("total", [100, 100]),
        ("add", "a"),
        ("add", "b"),
        ("add", "c"),
        ("add", "d"),
        ("add", "e"),
        ("alloc", "a", [3, 3]),
        ("alloc", "b", [3, 3]),
        ("alloc", "c", [1, 1]),
        ("alloc", "c", [1, 1]),
        ("alloc", "c", [1, 1]),
        ("alloc", "d", [2, 2]),
        ("alloc", "d", [1, 1]),
        ("alloc", "e", [3, 3]),
        ("expect", ["a", "b", "e", "d", "c"]),  # allocation counts {a,b,e} = 1, d = 2, c = 3
        ("unalloc", "c", [3, 3]),
        ("expect", ["c", "a", "b", "e", "d"]),
        ("alloc", "c", [3, 3]),  # the count is not reset by unallocating: c = 4
        ("expect", ["a", "b", "e", "d", "c"]),
        ("deactivate", "c"),
        ("activate", "c"),
        ("expect", ["a", "b", "e", "d", "c"]),
        ("unalloc", "c", [3, 3]),
        ("alloc", "c", [3, 3]),
        ("expect", ["a", "b", "e", "d", "c"]),
        ("deactivate", "a"),
        ("unalloc", "a", [1, 3]),
        ("alloc", "a", [1, 3]),  # an inactive client's count grows
        ("expect", ["b", "e", "d", "c"]),
        ("activate", "a"),
        ("expect", ["b", "e", "a", "d", "c"]),
    ],
    "DRFSorterTest.UpdateTotal": [
        ("total", [10, 100]),
        ("add", "a"),
        ("add", "b"),
        ("alloc", "a", [2, 1]),
        ("alloc", "b", [1, 2]),
        ("expect", ["b", "a"]),
        ("total", [100, 10]),
        ("expect", ["a", "b"]),
    ],
    "DRFSorterTest.MultipleSlavesUpdateTotal": [
        ("total", [10, 100]),  # agents A and B, cpus:5;mem:50 each, pooled
        ("add", "a"),
        ("add", "b"),
        ("alloc", "a", [2, 1]),
        ("alloc", "b", [1, 3]),
        ("expect", ["b", "a"]),
        ("total", [100, 100]),  # agent A becomes cpus:95;mem:50
        ("expect", ["a", "b"]),
    ],
    # resources: cpus, mem, revocable cpus
    "DRFSorterTest.RevocableResources": [
        ("total", [10, 100, 10]),
        ("add", "a"),
        ("add", "b"),
        ("alloc", "a", [2, 1, 0]),
        ("alloc", "b", [1, 1, 9]),
        ("expect", ["a", "b"]),
    ],
    # resources: cpus, mem, disk (a shared persistent volume of 100 counted in each holder's
    # allocation)
    "DRFSorterTest.SharedResources": [
        ("total", [100, 100, 1000]),
        ("add", "a"),
        ("alloc", "a", [5, 5, 100]),
        ("add", "b"),
        ("alloc", "b", [6, 6, 0]),
        ("expect", ["b", "a"]),
        ("add", "c"),
        ("alloc", "c", [1, 1, 100]),
        ("expect", ["b", "a", "c"]),  # a and c tie at .1 with one allocation each: by name
        ("remove", "a"),
        ("unalloc", "b", [4, 4, 0]),
        ("expect", ["b", "c"]),
        ("add", "d"),
        ("alloc", "d", [1, 5, 100]),
        ("expect", ["b", "c", "d"]),
        ("total", [50, 100, 1000]),
        ("expect", ["b", "c", "d"]),
        ("total", [50, 200, 1000]),
        ("expect", ["b", "c", "d"]),
    ],
    "DRFSorterTest.SameDominantSharedResourcesAcrossClients": [
        ("total", [100, 100, 1000]),
        ("add", "b"),
        ("alloc", "b", [5, 20, 900]),
        ("add", "c"),
        ("alloc", "c", [10, 6, 900]),
        ("expect", ["b", "c"]),
        ("add", "a"),
        ("alloc", "a", [50, 40, 900]),
        ("expect", ["a", "b", "c"]),  # all at .9 (disk), one allocation each: by name
    ],
    "DRFSorterTest.RemoveResources": [  # resources: cpus only
        ("total", [10]),
        ("add", "a"),
        ("add", "b"),
        ("alloc", "a", [6]),
        ("alloc", "b", [4]),
        ("expect", ["b", "a"]),
        ("total", [5]),
        ("update", "a", [6], [1]),  # 5 cpus leave the agent and a's allocation
        ("expect", ["a", "b"]),
    ],
    # ---- nested roles (names with '/'): the naive hierarchical rule,
    # hierarchical_drf(variant="naive")'s sorter
    "DRFSorterTest.DeepHierarchy": [
        ("total", [100, 100]),
        ("add", "a/a/a/a/a"),
        ("alloc", "a/a/a/a/a", [5, 5]),
        ("add", "b/b/b/b"),
        ("alloc", "b/b/b/b", [6, 6]),
        ("expect", ["a/a/a/a/a", "b/b/b/b"]),
        ("add", "c/c/c"),
        ("alloc", "c/c/c", [1, 1]),
        ("add", "d/d"),
        ("alloc", "d/d", [3, 1]),
        ("expect", ["c/c/c", "d/d", "a/a/a/a/a", "b/b/b/b"]),
        ("remove", "a/a/a/a/a"),
        ("unalloc", "b/b/b/b", [4, 4]),
        ("expect", ["c/c/c", "b/b/b/b", "d/d"]),
        ("add", "e/e/e/e/e/e"),
        ("alloc", "e/e/e/e/e/e", [1, 5]),
        ("total", [50, 100]),
        ("expect", ["c/c/c", "b/b/b/b", "e/e/e/e/e/e", "d/d"]),
        ("total", [50, 200]),
        ("add", "f/f"),
        ("alloc", "f/f", [5, 1]),
        ("alloc", "c/c/c", [0, 15]),
        ("expect", ["e/e/e/e/e/e", "b/b/b/b", "d/d", "c/c/c", "f/f"]),
        ("deactivate", "d/d"),
        ("expect", ["e/e/e/e/e/e", "b/b/b/b", "c/c/c", "f/f"]),
        ("activate", "d/d"),
        ("expect", ["e/e/e/e/e/e", "b/b/b/b", "d/d", "c/c/c", "f/f"]),
    ],
    "DRFSorterTest.HierarchicalAllocation": [
        ("total", [100, 100]),
        ("add", "a"),
        ("add", "b/c"),
        ("add", "b/d"),
        ("expect", ["a", "b/c", "b/d"]),
        ("alloc", "a", [6, 6]),
        ("expect", ["b/c", "b/d", "a"]),
        ("alloc", "b/c", [4, 4]),
        ("alloc", "b/d", [3, 3]),
        ("expect", ["a", "b/d", "b/c"]),  # role b holds .07 > a's .06
        ("alloc", "a", [2, 2]),
        ("expect", ["b/d", "b/c", "a"]),
        ("add", "b/e/f"),
        ("expect", ["b/e/f", "b/d", "b/c", "a"]),
        ("alloc", "b/e/f", [3.5, 3.5]),
        ("expect", ["a", "b/d", "b/e/f", "b/c"]),
        ("remove", "b/e/f"),
        ("expect", ["b/d", "b/c", "a"]),
        ("update", "b/c", [4, 4], [1, 1]),
        ("expect", ["b/c", "b/d", "a"]),
        ("add", "b/e/f"),
        ("alloc", "b/e/f", [3.5, 3.5]),
        ("expect", ["b/c", "b/d", "b/e/f", "a"]),
    ],
    "DRFSorterTest.HierarchicalIterationOrder": [
        ("total", [100, 100]),
        ("add", "a/b"),
        ("add", "c"),
        ("add", "d"),
        ("add", "d/e"),
        ("expect", ["a/b", "c", "d", "d/e"]),
        ("alloc", "c", [8, 8]),
        ("expect", ["a/b", "d", "d/e", "c"]),
        ("alloc", "d", [3, 3]),
        ("alloc", "d/e", [2, 2]),
        ("expect", ["a/b", "d/e", "d", "c"]),
        ("alloc", "a/b", [6, 6]),
        ("expect", ["d/e", "d", "a/b", "c"]),
    ],
    "DRFSorterTest.AddChildToLeaf": [
        ("total", [100, 100]),
        ("add", "a"),
        ("alloc", "a", [10, 10]),
        ("add", "b"),
        ("alloc", "b", [6, 6]),
        ("expect", ["b", "a"]),
        ("add", "a/c"),
        ("alloc", "a/c", [5, 5]),
        ("expect", ["b", "a/c", "a"]),
        ("remove", "a"),
        ("expect", ["a/c", "b"]),
        ("add", "a"),
        ("alloc", "a", [10, 10]),
        ("expect", ["b", "a/c", "a"]),
        ("weight", "a/c", 0.2),  # "a" competes inside its role with weight 1
        ("expect", ["b", "a", "a/c"]),
        ("weight", "a", 3),  # the role's weight: against b, not against a/c
        ("expect", ["a", "a/c", "b"]),
        ("weight", "a/c", 1),
        ("expect", ["a/c", "a", "b"]),
    ],
    "DRFSorterTest.AddChildToInternal": [
        ("total", [100, 100]),
        ("add", "x/a"),
        ("alloc", "x/a", [10, 10]),
        ("add", "x/b"),
        ("alloc", "x/b", [6, 6]),
        ("expect", ["x/b", "x/a"]),
        ("add", "x"),
        ("alloc", "x", [7, 7]),
        ("expect", ["x/b", "x", "x/a"]),
        ("add", "z"),
        ("alloc", "z", [20, 20]),
        ("expect", ["z", "x/b", "x", "x/a"]),
        ("remove", "x"),
        ("expect", ["x/b", "x/a", "z"]),
    ],
    "DRFSorterTest.AddChildToInactiveLeaf": [
        ("total", [100, 100]),
        ("add", "a"),
        ("alloc", "a", [10, 10]),
        ("add", "b"),
        ("alloc", "b", [6, 6]),
        ("deactivate", "a"),
        ("expect", ["b"]),
        ("add", "a/c"),
        ("alloc", "a/c", [5, 5]),
        ("expect", ["b", "a/c"]),  # inactive a still counts in its role's share
    ],
    "DRFSorterTest.ChangeWeightOnSubtree": [
        ("total", [100, 100]),
        ("weight", "b", 3),
        ("weight", "a", 2),  # roles weighted before any client exists
        ("add", "a/x"),
        ("add", "b/y"),
        ("expect", ["a/x", "b/y"]),
        ("alloc", "a/x", [10, 10]),
        ("alloc", "b/y", [10, 10]),
        ("expect", ["b/y", "a/x"]),
        ("add", "b/z"),
        ("alloc", "b/z", [5, 5]),
        ("expect", ["b/z", "b/y", "a/x"]),
        ("add", "b"),
        ("alloc", "b", [4, 4]),
        ("expect", ["a/x", "b", "b/z", "b/y"]),
        ("add", "a/zz"),
        ("alloc", "a/zz", [2, 2]),
        ("expect", ["a/zz", "a/x", "b", "b/z", "b/y"]),
    ],
}


def _mesos_cases():
    for test, script in MESOS_SCRIPTS.items():
        checks = [k for k, op in enumerate(script) if op[0] == "expect"]
        for n, k in enumerate(checks, 1):
            yield pytest.param(script[: k + 1], id=f"{test}#{n}")


def _replay(script, semantics="mesos", resources=None):
    sorter = None
    for op in script:
        kind = op[0]
        if kind == "total":
            if sorter is None:
                sorter = DRFSorter(op[1], semantics=semantics, resources=resources)
            else:
                sorter.set_capacity(op[1])
        elif kind == "add":
            sorter.add(op[1], *op[2:])
        elif kind == "alloc":
            sorter.allocated(op[1], op[2])
        elif kind == "unalloc":
            sorter.unallocated(op[1], op[2])
        elif kind == "remove":
            sorter.remove(op[1])
        elif kind == "activate":
            sorter.activate(op[1])
        elif kind == "deactivate":
            sorter.deactivate(op[1])
        elif kind == "weight":
            sorter.update_weight(op[1], op[2])
        elif kind == "update":
            sorter.update(op[1], op[2], op[3])
        elif kind == "expect":
            assert sorter.order() == op[1]
    return sorter


@pytest.mark.parametrize("script", list(_mesos_cases()))
def test_mesos_sorter_cases(script):
    """apache/mesos src/tests/sorter_tests.cpp: each ``EXPECT_EQ(..., sorter.sort())`` of the named
    test."""
    _replay(script)


def test_mesos_drf_case_bookkeeping():
    """DRFSorterTest.DRF's contains/count checks: a removed client is gone, a deactivated one is
    still counted."""
    sorter = _replay(MESOS_SCRIPTS["DRFSorterTest.DRF"][:-3])
    assert sorter.contains("b") and not sorter.contains("a") and len(sorter) == 5
    sorter.deactivate("d")
    assert sorter.contains("d") and len(sorter) == 5


def test_enough_translated_cases():
    """The issue asks for at least 30 translated cases: count them, so a deleted script cannot pass
    silently."""
    assert len(list(_mesos_cases())) + len(YARN_CASES) + len(KUEUE_CASES) >= 30


# ---- Kueue: each case of TestDominantResourceShare -----------------------------------------------
KUEUE = ("kubernetes-sigs/kueue", "pkg/cache/fair_sharing_test.go", "TestDominantResourceShare")
# (case, cq (nominal, lending limit, weight), lending cq (nominal, lending limit) or None, usage +
# workload,
#  wantDRValue, wantDRName); resources (cpu in millicores, example.com/gpu)
KUEUE_CASES = [
    (
        "no cohort",
        ([2000, 5], None, 1),
        None,
        [1000, 2],
        0,
        None,
    ),  # no other queue: nothing to borrow from
    ("usage below nominal", ([2000, 5], None, 1), ([8000, 5], None), [1000, 2], 0, None),
    (
        "usage above nominal",
        ([2000, 5], None, 1),
        ([8000, 5], None),
        [3000, 7],
        200,
        "gpu",
    ),  # (7-5)*1000/10
    ("one resource above nominal", ([2000, 5], None, 1), ([8000, 5], None), [3000, 3], 100, "cpu"),
    (
        "usage with workload above nominal",
        ([2000, 5], None, 1),
        ([8000, 5], None),
        [1000 + 4000, 2 + 4],
        300,
        "cpu",
    ),
    (
        "A resource with zero lendable",
        ([2000, 2], [2000, 0], 1),
        ([8000, 64], [8000, 0]),
        [1000 + 4000, 1 + 4],
        300,
        "cpu",
    ),
    ("above nominal with integer weight", ([0, 5], None, 2), ([0, 5], None), [0, 7], 100, "gpu"),
    ("above nominal with decimal weight", ([0, 5], None, 0.5), ([0, 5], None), [0, 7], 400, "gpu"),
    ("above nominal with zero weight", ([0, 5], None, 0), ([0, 10], None), [0, 7], np.inf, None),
]


@pytest.mark.parametrize("case", KUEUE_CASES, ids=[c[0] for c in KUEUE_CASES])
def test_kueue_dominant_resource_share_cases(case):
    """kubernetes-sigs/kueue pkg/cache TestDominantResourceShare (each case; "multiple flavors" is
    not translated: Kueue sums a resource's borrowing over its flavours, which one vector entry per
    resource does not model)."""
    _, (nominal, lending, weight), lender, usage, want_value, want_name = case
    sorter = DRFSorter([1, 1], semantics="kueue", resources=["cpu", "gpu"])
    sorter.add("cq", weight, nominal=nominal, lending_limit=lending)
    if lender is not None:
        sorter.add("lending-cq", nominal=lender[0], lending_limit=lender[1])
    sorter.allocated("cq", usage)
    share = sorter.share("cq")
    assert (share if np.isinf(share) else int(np.floor(1000 * share + 1e-9))) == want_value
    assert sorter.dominant_resource("cq") == want_name


def test_kueue_orders_by_borrowed_share():
    """Queues within their quota come first (share 0, by the order added), then by what they borrow
    per lendable unit, weighted; a zero-weight queue that borrows goes last."""
    s = DRFSorter([100, 100], semantics="kueue")
    for name, weight, held in (
        ("a", 1, [14, 10]),
        ("b", 1, [12, 13]),
        ("c", 2, [16, 10]),
        ("idle", 0, [11, 0]),
    ):
        s.add(name, weight, nominal=[10, 10])
        s.allocated(name, held)
    # lendable 40 each: a borrows 4 cpu (0.1), b 3 mem (0.075), c 6 cpu / 2 (0.075), idle borrows
    # with weight 0
    assert s.order() == ["b", "c", "a", "idle"]
    assert s.dominant_resource("b") == "r1" and s.dominant_resource("a") == "r0"
    s.unallocated("idle", [11, 0])
    assert s.order()[0] == "idle" and s.dominant_resource("idle") is None


def test_kueue_needs_quotas():
    s = DRFSorter([10], semantics="kueue")
    with pytest.raises(InvalidInputError, match="nominal of client 'a'"):
        s.add("a")
    with pytest.raises(InvalidInputError, match=r"nominal\['a'\]"):
        s.add("a", nominal=[-1])
    with pytest.raises(InvalidInputError, match="only semantics='kueue' has quotas"):
        DRFSorter([10]).add("a", nominal=[1])


# ---- YARN: each comparator assertion is one case -------------------------------------------------
# (source test, cluster (memory, vcores), s1 (usage, weight, min share), s2 (...), expected first)
YARN_CASES = [
    ("testSameDominantResource", [8000, 4], ([1000, 1], 1.0, None), ([2000, 1], 1.0, None), "s1"),
    (
        "testDifferentDominantResource",
        [8000, 8],
        ([4000, 3], 1.0, None),
        ([2000, 5], 1.0, None),
        "s1",
    ),
    ("testOneIsNeedy", [8000, 8], ([2000, 5], 1.0, [0, 6]), ([4000, 3], 1.0, [0, 0]), "s1"),
    ("testBothAreNeedy#1", [8000, 100], ([2000, 5], 1.0, None), ([4000, 3], 1.0, None), "s1"),
    (
        "testBothAreNeedy#2",
        [8000, 100],
        ([2000, 5], 1.0, [3000, 6]),
        ([4000, 3], 1.0, [5000, 4]),
        "s1",
    ),
    (
        "testEvenWeightsSameDominantResource#1",
        [8000, 8],
        ([3000, 1], 2.0, None),
        ([2000, 1], 1.0, None),
        "s1",
    ),
    (
        "testEvenWeightsSameDominantResource#2",
        [8000, 8],
        ([1000, 3], 2.0, None),
        ([1000, 2], 1.0, None),
        "s1",
    ),
    (
        "testEvenWeightsDifferentDominantResource#1",
        [8000, 8],
        ([1000, 3], 2.0, None),
        ([2000, 1], 1.0, None),
        "s1",
    ),
    (
        "testEvenWeightsDifferentDominantResource#2",
        [8000, 8],
        ([3000, 1], 2.0, None),
        ([1000, 2], 1.0, None),
        "s1",
    ),
    (
        "testCompareSchedulablesWithClusterResourceChanges#1",
        [4000, 5],
        ([2000, 1], 1.0, None),
        ([1000, 2], 1.0, None),
        "s2",
    ),
    (
        "testCompareSchedulablesWithClusterResourceChanges#2",
        [8000, 6],
        ([2000, 1], 1.0, None),
        ([1000, 2], 1.0, None),
        "s1",
    ),
]


@pytest.mark.parametrize("case", YARN_CASES, ids=[c[0] for c in YARN_CASES])
def test_yarn_comparator_cases(case):
    """apache/hadoop TestDominantResourceFairnessPolicy.java: ``compare(s1, s2)``'s sign in the
    named test. The expected-first client is added last, so submit order could only have favoured
    the other."""
    _, cluster, s1, s2, first = case
    sorter = DRFSorter(cluster, semantics="yarn", resources=["memory", "vcores"])
    late, early = ("s1", "s2") if first == "s1" else ("s2", "s1")
    spec = {"s1": s1, "s2": s2}
    for name in (early, late):
        usage, weight, min_share = spec[name]
        sorter.add(name, weight, min_share=min_share)
        sorter.allocated(name, usage)
    assert sorter.order() == [first, early]


def test_yarn_dominant_resource_of_three():
    """TestDominantResourceFairnessPolicy.testCalculateClusterAndFairRatios: usage (10 MB, 5 vcores,
    2 test) of (100, 10, 5): shares .1, .5, .4, the dominant resource is vcores."""
    sorter = DRFSorter([100, 10, 5], semantics="yarn", resources=["memory", "vcores", "test"])
    sorter.add("s")
    sorter.allocated("s", [10, 5, 2])
    assert sorter.dominant_resource("s") == "vcores"
    assert sorter.share("s") == pytest.approx(0.5)


def test_yarn_ties_by_submit_order_then_name():
    """Equal share vectors: YARN's comparator falls through to start time, then name
    (compareAttribrutes)."""
    sorter = DRFSorter([10, 10], semantics="yarn")
    for name in ("z", "a"):
        sorter.add(name)
        sorter.allocated(name, [1, 2])
    assert sorter.order() == ["z", "a"]


def test_yarn_lexicographic_next_share():
    """Equal dominant shares: the next-largest share decides (the policy's sortRatios +
    compareRatios)."""
    sorter = DRFSorter([10, 10, 10], semantics="yarn")
    sorter.add("a")
    sorter.allocated("a", [5, 3, 1])
    sorter.add("b")
    sorter.allocated("b", [1, 5, 2])
    assert sorter.order() == ["b", "a"]  # (.5, .2, .1) before (.5, .3, .1)
    mesos = DRFSorter([10, 10, 10])
    mesos.add("a")
    mesos.allocated("a", [5, 3, 1])
    mesos.add("b")
    mesos.allocated("b", [1, 5, 2])
    assert mesos.order() == ["a", "b"]  # Mesos: same share, same count, by name


# ---- state across rounds, zero cases -------------------------------------------------------------
def test_allocation_count_alternates_declined_offers_where_a_stateless_rule_does_not():
    """The issue's example: identical clients offered resources ten times, each declining. Mesos's
    count alternates (5/5); a stateless rule (share, then name) offers all ten to the same client
    (10/0)."""
    sorter = DRFSorter([10, 10])
    sorter.add("a")
    sorter.add("b")
    offers = {"a": 0, "b": 0}
    stateless = {"a": 0, "b": 0}
    for _ in range(10):
        who = sorter.next()
        offers[who] += 1
        sorter.allocated(who, [1, 1])
        sorter.unallocated(who, [1, 1])
        stateless[min(("a", "b"), key=lambda c: (sorter.share(c), c))] += 1
    assert offers == {"a": 5, "b": 5}
    assert stateless == {"a": 10, "b": 0}


@pytest.mark.parametrize("semantics", ["mesos", "yarn"])
def test_zero_capacity_resource_is_left_out_of_shares(semantics):
    """A resource with total 0 (e.g. GPUs on a cluster without any) is skipped, as Mesos's
    calculateShare does."""
    sorter = DRFSorter([10, 0, 20], semantics=semantics, resources=["cpus", "gpus", "mem"])
    sorter.add("a")
    sorter.allocated("a", [1, 0, 4])
    sorter.add("b")
    sorter.allocated("b", [3, 0, 2])
    assert sorter.share("a") == pytest.approx(0.2) and sorter.share("b") == pytest.approx(0.3)
    assert sorter.dominant_resource("a") == "mem" and sorter.order() == ["a", "b"]


def test_empty_client_is_served_first():
    sorter = DRFSorter([10, 10])
    sorter.add("busy")
    sorter.allocated("busy", [1, 0])
    sorter.add("idle")
    assert sorter.share("idle") == 0.0 and sorter.order() == ["idle", "busy"]


def test_zero_weight_served_last_in_yarn_and_refused_by_mesos():
    yarn = DRFSorter([10, 10], semantics="yarn")
    yarn.add("free", 0.0)
    yarn.allocated("free", [1, 1])
    yarn.add("big")
    yarn.allocated("big", [9, 9])
    assert yarn.share("free") == np.inf and yarn.order() == ["big", "free"]
    yarn.add(
        "new_free", 0.0
    )  # no usage: still after every positive weight, first among zero weights
    assert yarn.order() == ["big", "new_free", "free"]
    with pytest.raises(InvalidInputError, match=r"weight of client 'x' = 0.*positive"):
        DRFSorter([10, 10]).add("x", 0)


def test_sorter_bad_input_names_argument_and_value():
    sorter = DRFSorter([10, 10], resources=["cpus", "mem"])
    sorter.add("a")
    with pytest.raises(InvalidInputError, match=r"client 'zz' is not in the sorter"):
        sorter.allocated("zz", [1, 1])
    with pytest.raises(InvalidInputError, match=r"allocated\('a'\)\[1\] = -1.0"):
        sorter.allocated("a", [1, -1])
    with pytest.raises(InvalidInputError, match=r"expected a vector \(2 entries"):
        sorter.allocated("a", [1, 1, 1])
    sorter.allocated("a", [1, 1])
    with pytest.raises(InvalidInputError, match=r"returns 2 of 'mem', more than the 1 it holds"):
        sorter.unallocated("a", [0, 2])
    with pytest.raises(InvalidInputError, match=r"client 'a': already in the sorter"):
        sorter.add("a")
    with pytest.raises(InvalidInputError, match=r"min_share of client 'b': only semantics='yarn'"):
        sorter.add("b", min_share=[1, 1])
    with pytest.raises(InvalidInputError, match=r"capacity\[0\] = -1.0"):
        DRFSorter([-1, 1])
    with pytest.raises(InvalidInputError, match=r"semantics"):
        DRFSorter([1, 1], semantics="slurm")
    with pytest.raises(
        InvalidInputError, match=r"weight of client 'a' = 2: Volcano's drf plugin has no weights"
    ):
        DRFSorter([1, 1], semantics="volcano").add("a", 2)
    with pytest.raises(InvalidInputError, match=r"name = 'a//b': part 1 is blank"):
        DRFSorter([1, 1]).add("a//b")
    with pytest.raises(InvalidInputError, match=r"nested names \('a/b'\) are Mesos roles"):
        DRFSorter([1, 1], semantics="yarn").add("a/b")
    assert DRFSorter([1, 1]).next() is None


# ---- drf's scheduler tie rules and start, against the sorter -------------------------------------
def _fill_by_sorter(d, cap, w, semantics, start):
    """Progressive filling as a scheduler runs it: before each task, ask the sorter who is next;
    give that client one task if it fits, else take it out of the order for good (resources only
    fill up)."""
    n = len(d)
    names = [f"u{i:04d}" for i in range(n)]  # name order is index order
    sorter = DRFSorter(cap, semantics=semantics)
    for i in range(n):
        sorter.add(names[i], float(w[i]))
        for _ in range(int(start[i])):
            sorter.allocated(names[i], d[i])
    for i in np.flatnonzero(~(d > 0).any(axis=1)):  # demands nothing: no task to place
        sorter.deactivate(names[i])
    tasks = np.array(start, dtype=np.int64)
    used = tasks @ d
    while (who := sorter.next()) is not None:
        i = names.index(who)
        if np.all(used + d[i] <= cap * (1 + 1e-12)):
            used = used + d[i]
            tasks[i] += 1
            sorter.allocated(who, d[i])
        else:
            sorter.deactivate(who)
    return tasks


@st.composite
def _pools(draw):
    n = draw(st.integers(2, 6))
    m = draw(st.integers(1, 3))
    d = np.array(
        draw(st.lists(st.lists(st.integers(0, 3), min_size=m, max_size=m), min_size=n, max_size=n)),
        dtype=float,
    )
    d[d.sum(axis=1) == 0, 0] = 1.0
    # capacities from few values, so dominant shares often tie and the tie rules decide
    cap = np.array(
        draw(st.lists(st.sampled_from([6, 12, 24]), min_size=m, max_size=m)), dtype=float
    )
    # powers of two keep the sorter's float shares exactly tied where drf's exact fractions are
    w = np.array(draw(st.lists(st.sampled_from([1.0, 2.0, 4.0]), min_size=n, max_size=n)))
    return d, cap, w


@settings(max_examples=60, deadline=None)
@given(pool=_pools(), semantics=st.sampled_from(["mesos", "yarn"]), data=st.data())
def test_drf_scheduler_tie_rules_match_the_sorter(pool, semantics, data):
    """drf(tie_break="allocation_count" / "lexicographic") gives every user the tasks the Mesos /
    YARN sorter gives it, task by task, from zero and from a start allocation (a random prefix of a
    run). Fails with higher_share's order for either rule (Mesos ranks users with no task by index,
    YARN by the next shares)."""
    d, cap, w = pool
    tie = "allocation_count" if semantics == "mesos" else "lexicographic"
    full = drf(d, cap, weights=w, tie_break=tie, record_order=True)
    cut = data.draw(st.integers(0, int(full.n_allocations)))
    start = np.bincount(full.order[:cut], minlength=len(d))
    expected = _fill_by_sorter(d, cap, w, semantics, np.zeros(len(d), dtype=np.int64))
    assert full.tasks.tolist() == expected.tolist()
    resumed = drf(d, cap, weights=w, tie_break=tie, start=start)
    assert resumed.tasks.tolist() == full.tasks.tolist()
    assert resumed.n_allocations == full.n_allocations - cut
    assert _fill_by_sorter(d, cap, w, semantics, start).tolist() == full.tasks.tolist()


def test_scheduler_tie_rules_by_hand():
    """Where each scheduler rule departs from the older ones. Capacity (12, 12, 12); C = (1, 2, 2),
    A = (2, 1, 0), B = (2, 0, 1) all take 1/6 per task, so every round ties. YARN compares the next
    shares: ρ_A = ρ_B = (1, 1/2, 0) before ρ_C = (1, 1, 1/2), so from the second round C (user 0)
    comes last; at share 0 all fall through to index. Mesos: equal per-task shares mean equal
    allocation counts, so index order, as lowest_index."""
    d = np.array([[1, 2, 2], [2, 1, 0], [2, 0, 1]], dtype=float)
    cap = np.array([12, 12, 12], dtype=float)
    yarn = drf(d, cap, tie_break="lexicographic", record_order=True)
    assert yarn.order.tolist() == [0, 1, 2, 1, 2, 0, 1] and yarn.tasks.tolist() == [2, 3, 2]
    index = drf(d, cap, tie_break="lowest_index", record_order=True)
    assert index.order.tolist() == [0, 1, 2, 0, 1, 2, 0, 0] and index.tasks.tolist() == [4, 2, 2]
    assert (
        drf(d, cap, tie_break="allocation_count", record_order=True).order.tolist()
        == index.order.tolist()
    )
    # per-task shares 1/4 and 1/2: at share 0 Mesos goes by index (its name), higher_share by the
    # larger share
    d2, cap2 = np.array([[1, 0], [2, 0]], dtype=float), np.array([4, 4], dtype=float)
    assert drf(d2, cap2, tie_break="allocation_count", record_order=True).order.tolist() == [
        0,
        1,
        0,
    ]
    assert drf(d2, cap2, tie_break="higher_share", record_order=True).order.tolist() == [1, 0, 0]


def test_drf_start_bad_input():
    d, cap = [[1, 1], [1, 2]], [4, 4]
    with pytest.raises(InvalidInputError, match=r"start: expected 2 integers"):
        drf(d, cap, start=[1.0, 1.0])
    with pytest.raises(InvalidInputError, match=r"start\[1\] = -1"):
        drf(d, cap, start=[1, -1])
    with pytest.raises(
        InvalidInputError, match=r"start: uses 5 of resource 1, more than its capacity 4"
    ):
        drf(d, cap, start=[1, 2])
    with pytest.raises(
        InvalidInputError, match=r"start\[0\] = 2: must be within max_tasks\[0\] = 1"
    ):
        drf(d, cap, start=[2, 0], max_tasks=np.array([1, 5]))


# ---- drf's zeros="scheduler" ---------------------------------------------------------------------
@st.composite
def _pools_with_zeros(draw):
    d, cap, w = draw(_pools())
    n, m = d.shape
    if draw(st.booleans()):
        d[draw(st.integers(0, n - 1))] = 0.0  # a user demanding nothing
    zero_caps = draw(st.lists(st.booleans(), min_size=m, max_size=m))
    cap[np.array(zero_caps)] = 0.0
    if not (cap > 0).any():
        cap[0] = 12.0
    w[np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))] = 0.0
    return d, cap, w


@settings(max_examples=60, deadline=None)
@given(pool=_pools_with_zeros())
def test_drf_zero_rules_match_the_yarn_sorter(pool):
    """drf(zeros="scheduler", tie_break="lexicographic") against the YARN sorter driven task by
    task: zero capacities left out of shares (a user needing one runs nothing), users demanding
    nothing given nothing and listed, zero weights served after every positive weight. Fails if zero
    weights are served like weight 1."""
    d, cap, w = pool
    res = drf(d, cap, weights=w, tie_break="lexicographic", zeros="scheduler")
    expected = _fill_by_sorter(d, cap, w, "yarn", np.zeros(len(d), dtype=np.int64))
    assert res.tasks.tolist() == expected.tolist()
    needs_missing = (d[:, cap == 0] > 0).any(axis=1)
    idle = ~(d > 0).any(axis=1)
    assert res.left_out.tolist() == np.flatnonzero(idle | needs_missing).tolist()
    assert np.all(res.consumed <= cap * (1 + 1e-12)) and np.all(res.consumed[cap == 0] == 0)


def test_drf_zero_rules_by_hand():
    """Capacity (10 cpus, 0 gpus, 10 GB): user 1 demands nothing, user 2 needs a GPU, user 4 has
    weight 0. Users 0 and 3 share the pool by DRF; user 4 gets only what is left once they are
    blocked (nothing here)."""
    d = [[1, 0, 1], [0, 0, 0], [0, 1, 0], [2, 0, 1], [1, 0, 0]]
    res = drf(d, [10, 0, 10], weights=[1, 1, 1, 1, 0], zeros="scheduler", record_order=True)
    assert res.tasks.tolist() == [6, 0, 0, 2, 0] and res.left_out.tolist() == [1, 2]
    assert res.order.tolist() == [0, 3, 0, 0, 3, 0, 0, 0]
    # with room left after users 0 and 3 are blocked, the zero-weight user takes it
    res = drf(
        [[2, 2], [2, 2], [1, 0]], [5, 4], weights=[1, 1, 0], zeros="scheduler", record_order=True
    )
    assert res.tasks.tolist() == [1, 1, 1] and res.order.tolist() == [0, 1, 2]
    with pytest.raises(
        InvalidInputError, match=r"demands\[1\] = \[0. 0.\]: every user must demand some"
    ):
        drf([[1, 1], [0, 0]], [2, 2])  # the default still refuses it
    with pytest.raises(InvalidInputError, match=r"weights\[1\] = -1.0: weights must be >= 0"):
        drf([[1, 1], [1, 0]], [2, 2], weights=[1, -1], zeros="scheduler")
    with pytest.raises(InvalidInputError, match=r"start\[1\] = 1: user 1 demands nothing"):
        drf([[1, 1], [0, 0]], [2, 2], start=[0, 1], zeros="scheduler")
    with pytest.raises(InvalidInputError, match=r"every resource has zero capacity"):
        drf([[1, 1]], [0, 0], zeros="scheduler")


def test_scheduler_rules_compiled_equal_interpreted():
    """The pools above are small enough to run drf's kernel as Python; the compiled kernel (the
    second order for users with no task, the zero rules' second pass) must serve the same users in
    the same order."""
    from fairlib._jit import compiled, interpreted

    rng = np.random.default_rng(7)
    for _ in range(10):
        d = rng.integers(0, 4, (8, 3)).astype(float)
        d[d.sum(axis=1) == 0, 0] = 1.0
        cap = rng.choice([12.0, 24.0], 3)
        w = rng.choice([1.0, 2.0, 0.0], 8)
        for tie in ("lexicographic", "allocation_count"):
            runs = {}
            for name, mode in (("compiled", compiled), ("interpreted", interpreted)):
                with mode():
                    runs[name] = (
                        drf(
                            d,
                            cap,
                            weights=np.where(w == 0, 1.0, w),
                            tie_break=tie,
                            record_order=True,
                        ),
                        drf(d, cap, weights=w, tie_break=tie, zeros="scheduler", record_order=True),
                    )
            for fast, slow in zip(runs["compiled"], runs["interpreted"]):
                assert (
                    fast.order.tolist() == slow.order.tolist()
                    and fast.tasks.tolist() == slow.tasks.tolist()
                )


def test_yarn_order_fast_path_equals_fractions():
    """drf's lexicographic rule ranks users by ρ (each user's shares over its largest, sorted)
    vectorised in floating point, exact where floats collide; against a plain Fraction sort on
    random integer pools, and on a pair whose ρ differ by less than float rounding (x/(x+1) and
    (x+1)/(x+2), x = 2²⁸), where the float order alone is wrong."""
    from fractions import Fraction

    from fairlib.multires.progressive_filling import _by_next_shares

    def by_fractions(d, cap):
        rows = [
            sorted((Fraction(int(v), int(c)) for v, c in zip(row, cap)), reverse=True) for row in d
        ]
        rho = [tuple(x / r[0] for x in r) for r in rows]
        return sorted(range(len(d)), key=lambda i: (rho[i], i))

    rng = np.random.default_rng(3)
    for _ in range(300):
        n, m = int(rng.integers(2, 12)), int(rng.integers(1, 4))
        d = rng.integers(0, 5, (n, m)).astype(float)
        d[d.sum(axis=1) == 0, 0] = 1.0
        cap = rng.choice([3.0, 6.0, 7.0, 12.0], m)
        assert _by_next_shares(d, cap, True).tolist() == by_fractions(d, cap)
    x = 2**28
    d, cap = np.array([[x + 2, x + 1], [x + 1, x]], dtype=float), np.array([1.0, 1.0])
    assert _by_next_shares(d, cap, False).tolist() == [0, 1]  # the floats tie
    assert _by_next_shares(d, cap, True).tolist() == by_fractions(d, cap) == [1, 0]


def test_drf_reports_each_users_dominant_resource():
    """Issue #20: the dominant resource per user in the result, as schedulers report it; with
    zeros="scheduler" a zero-capacity resource is never dominant and a user left out has none
    (-1)."""
    res = drf([[1, 4], [3, 1], [2, 2]], [9, 18])
    assert res.dominant_resource.tolist() == [1, 0, 0]  # 4/18 > 1/9; 3/9 > 1/18; 2/9 > 2/18
    res = drf([[1, 0, 4], [0, 0, 0], [1, 1, 0], [2, 0, 1]], [9, 0, 18], zeros="scheduler")
    assert res.left_out.tolist() == [1, 2]
    assert res.dominant_resource.tolist() == [2, -1, -1, 0]


# ---- Volcano's drf plugin (flat job order) -------------------------------------------------------
# Volcano's repository has no test of the flat plugin's job order (its drf tests are hdrf_test.go,
# translated in tests/test_hierarchy.py); these cases follow drf.go's jobOrderFn and helpers.Share,
# read in volcano-sh/volcano.
def test_volcano_orders_jobs_by_unweighted_dominant_share_then_creation():
    s = DRFSorter([10, 20], semantics="volcano", resources=["cpu", "memory"])
    s.add("late")  # created first: ties go to it although its name sorts after
    s.add("early")
    s.add("big")
    s.allocated("big", [2, 2])  # share max(0.2, 0.1) = 0.2, dominant cpu
    s.allocated("late", [1, 4])  # 0.2 as well (memory)
    s.allocated("early", [1, 4])
    assert s.order() == ["late", "early", "big"]
    assert [s.dominant_resource(c) for c in ("big", "late")] == ["cpu", "memory"]
    s.allocated("big", [0, 0])
    s.unallocated("big", [2, 2])
    assert (
        s.order()[0] == "big" and s.dominant_resource("big") is None
    )  # share 0: Volcano's empty name


def test_volcano_counts_a_held_resource_with_zero_total_as_share_one():
    """helpers.Share(l, 0) is 1 when l > 0: a job holding GPUs the session's total does not list
    ranks last."""
    s = DRFSorter([10, 0], semantics="volcano", resources=["cpu", "gpu"])
    s.add("a")
    s.add("b")
    s.allocated("a", [9, 0])
    s.allocated("b", [1, 1])
    assert s.share("b") == 1.0 and s.dominant_resource("b") == "gpu"
    assert s.order() == ["a", "b"]
    mesos = DRFSorter(
        [10, 0], semantics="mesos", resources=["cpu", "gpu"]
    )  # Mesos leaves the zero total out
    mesos.add("a")
    mesos.add("b")
    mesos.allocated("a", [9, 0])
    mesos.allocated("b", [1, 1])
    assert mesos.order() == ["b", "a"]
