"""DRFSorter as a state machine (hypothesis's RuleBasedStateMachine), under each semantics: clients
added, given and returning resources, updated, weighted, removed, with bad calls interleaved. A
refused call raises InvalidInputError naming the problem and changes nothing; holdings never go
negative; the order lists exactly the active clients."""

import copy

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, invariant, precondition, rule

from fairlib import InvalidInputError
from fairlib.multires import DRFSorter

CAPACITY = [10.0, 20.0]
_AMOUNT = st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0]), min_size=2, max_size=2)
_BAD_VECTOR = st.sampled_from([[1.0, float("nan")], [-1.0, 0.0], [1.0], [[1.0, 1.0]], "ab", None])
_BAD_NAME = st.sampled_from([None, 1, 1.5, ("a",), ["a"], b"a", ""])


def _snapshot(sorter: DRFSorter):
    return copy.deepcopy(vars(sorter))


def _same(a, b) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray):
        return np.array_equal(a, b)
    if hasattr(a, "__dict__"):
        return _same(vars(a), vars(b))
    return a == b


def machine(semantics: str):
    class Sorter(RuleBasedStateMachine):
        clients = Bundle("clients")

        def __init__(self):
            super().__init__()
            self.sorter = DRFSorter(CAPACITY, semantics=semantics)
            self.count = 0

        def _refused(self, call):
            before = _snapshot(self.sorter)
            with pytest.raises(InvalidInputError):
                call()
            assert _same(before, _snapshot(self.sorter)), "a refused call changed the sorter"

        @rule(target=clients)
        def add(self):
            name = f"c{self.count}"
            self.count += 1
            self.sorter.add(name, nominal=[5.0, 10.0] if semantics == "kueue" else None)
            return name

        @rule(name=_BAD_NAME)
        def add_a_bad_name(self, name):
            self._refused(
                lambda: self.sorter.add(name, nominal=[5.0, 10.0] if semantics == "kueue" else None)
            )

        @rule(name=clients, amounts=_AMOUNT)
        def allocate(self, name, amounts):
            if self.sorter.contains(name):
                self.sorter.allocated(name, amounts)

        @rule(name=clients, amounts=_BAD_VECTOR)
        def allocate_bad(self, name, amounts):
            self._refused(lambda: self.sorter.allocated(name, amounts))

        @rule(name=clients, old=_AMOUNT, new=_AMOUNT)
        def update(self, name, old, new):
            if not self.sorter.contains(name):
                return
            if (np.asarray(old) > self.sorter.allocation(name) + 1e-9).any():
                self._refused(lambda: self.sorter.update(name, old, new))
            else:
                count = self.sorter.allocation_count(name)
                self.sorter.update(name, old, new)
                assert self.sorter.allocation_count(name) == count

        @rule(name=clients, new=_BAD_VECTOR)
        def update_bad_new(self, name, new):
            self._refused(lambda: self.sorter.update(name, [0.0, 0.0], new))

        @rule(name=clients, amounts=_AMOUNT)
        def give_back(self, name, amounts):
            if not self.sorter.contains(name):
                return
            if (np.asarray(amounts) > self.sorter.allocation(name) + 1e-9).any():
                self._refused(lambda: self.sorter.unallocated(name, amounts))
            else:
                self.sorter.unallocated(name, amounts)

        @rule(
            name=clients,
            weight=st.sampled_from([0.5, 1.0, 2.0, -1.0, float("nan"), "2", None, True]),
        )
        def reweight(self, name, weight):
            valid = (
                isinstance(weight, float)
                and weight > 0
                and (semantics != "volcano" or weight == 1.0)
            )
            if not self.sorter.contains(name):
                return
            if valid:
                self.sorter.update_weight(name, weight)
            else:
                self._refused(lambda: self.sorter.update_weight(name, weight))

        @rule(name=clients, active=st.booleans())
        def toggle(self, name, active):
            if self.sorter.contains(name):
                (self.sorter.activate if active else self.sorter.deactivate)(name)

        @precondition(lambda self: len(self.sorter) > 0)
        @rule(name=clients)
        def remove(self, name):
            if self.sorter.contains(name):
                self.sorter.remove(name)
            else:
                self._refused(lambda: self.sorter.remove(name))

        @invariant()
        def holdings_are_never_negative_and_the_order_is_the_active_clients(self):
            names = [n for n in self.sorter._clients]
            for n in names:
                assert (self.sorter.allocation(n) >= 0).all()
            active = {n for n, c in self.sorter._clients.items() if c.active}
            assert set(self.sorter.order()) == active

    Sorter.TestCase.settings = settings(max_examples=40, stateful_step_count=25, deadline=None)
    return Sorter


TestMesos = machine("mesos").TestCase
TestYarn = machine("yarn").TestCase
TestKueue = machine("kueue").TestCase
TestVolcano = machine("volcano").TestCase
#: the semantics with a state machine above
MACHINES = ("mesos", "yarn", "kueue", "volcano")


def test_every_semantics_has_a_state_machine():
    """A semantics added to the sorter needs its machine here."""
    from fairlib.multires import SORTER_SEMANTICS

    assert set(SORTER_SEMANTICS) == set(MACHINES)


def test_resource_names_are_text_in_order():
    """b"cpu" or 0 became "b'cpu'" or "0" (names the caller never gave), and a set paired names
    with capacities by hash seed: each is refused, naming ``resources``."""
    for bad, message in (
        ([b"cpu", b"mem"], r"resources\[0\] = b'cpu': must be text"),
        ([0, 1], r"resources\[0\] = 0: must be text"),
        ({"cpu", "mem"}, r"resources = .*: a set has no fixed order"),
        ({"cpu": 1, "mem": 2}.keys(), r"resources = .*has no fixed order"),
    ):
        with pytest.raises(InvalidInputError, match=message):
            DRFSorter([1.0, 100.0], resources=bad)
    assert DRFSorter([1.0, 100.0], resources=(r for r in ["cpu", "mem"])).resources == (
        "cpu",
        "mem",
    )


def test_returning_more_than_held_is_refused_relative_to_what_is_held():
    """The rounding allowed was 1e-12 of the pool's total: with a total of 1e15 a client holding
    nothing could return 500 (clipped to 0, silently). It is relative to what the client holds."""
    sorter = DRFSorter([1e15, 1e15])
    sorter.add("a")
    with pytest.raises(InvalidInputError, match=r"returns 500 of 'r0', more than the 0 it holds"):
        sorter.unallocated("a", [500.0, 0.0])
    sorter.allocated("a", [1e6, 0.0])
    with pytest.raises(InvalidInputError, match=r"more than the 1e\+06 it holds"):
        sorter.unallocated("a", [1e6 + 1e-3, 0.0])
    assert sorter.allocation("a").tolist() == [1e6, 0.0]  # refused: nothing changed
    # the rounding of the sums that made what it holds is not an error: 1e6 + 0.3 - 1e6 is
    # 0.3 + 4.7e-11, and 1e6 + 0.7 - 1e6 is 0.7 - 2.3e-11 (less than the 0.7 returned)
    sorter.allocated("a", [0.3, 0.0])
    sorter.unallocated("a", [1e6, 0.0])
    sorter.unallocated("a", [0.1, 0.0])
    sorter.unallocated("a", [0.2, 0.0])
    np.testing.assert_allclose(sorter.allocation("a"), 0.0, atol=1e-10)
    sorter.allocated("a", [1e6, 0.0])
    sorter.allocated("a", [0.7, 0.0])
    sorter.unallocated("a", [1e6, 0.0])
    assert sorter.allocation("a")[0] < 0.7
    sorter.unallocated("a", [0.7, 0.0])
    assert sorter.allocation("a").tolist() == [0.0, 0.0]
    # emptied, it holds nothing to return
    with pytest.raises(InvalidInputError, match=r"returns 1 of 'r0', more than the 0 it holds"):
        sorter.unallocated("a", [1.0, 0.0])


def test_the_probes_that_found_the_gaps():
    sorter = DRFSorter(CAPACITY)
    sorter.add("a")
    sorter.allocated("a", [1.0, 1.0])
    with pytest.raises(InvalidInputError, match="update"):
        sorter.update("a", [1.0, 1.0], [float("nan"), 1.0])
    assert sorter.allocation("a").tolist() == [1.0, 1.0]  # the old allocation kept
    for bad in (None, 1):
        with pytest.raises(InvalidInputError, match="string"):
            sorter.add(bad)
    kueue = DRFSorter(CAPACITY, semantics="kueue")
    with pytest.raises(
        InvalidInputError, match=r"lending_limit\['q'\]\[0\] = 6: above the nominal quota 5"
    ):
        kueue.add("q", nominal=[5.0, 10.0], lending_limit=[6.0, 1.0])
    assert not kueue.contains("q")


def test_a_copy_of_a_stateful_object_is_independent():
    # copy.copy shared the clients and the claims with the original
    from fairlib.repro.ledger import ClaimLog

    sorter = DRFSorter([10.0, 10.0])
    sorter.add("a")
    for twin in (copy.copy(sorter), copy.deepcopy(sorter)):
        twin.add("b")
        twin.allocated("a", [1.0, 1.0])
        assert not sorter.contains("b") and sorter.allocation("a").tolist() == [0.0, 0.0]
        assert twin.contains("b") and twin.allocation("a").tolist() == [1.0, 1.0]
    registry = '[[claim]]\nid = "x"\nkind = "paper"\nsource = "s"\nstatement = "t"\n'
    registry += "paper_value = 1.0\ntol = 0.1\n"
    log = ClaimLog("demo", write=False, registry=registry)
    for twin in (copy.copy(log), copy.deepcopy(log)):
        assert twin.measure("x", 1.0)
        assert log.claims == [] and len(twin.claims) == 1


def test_quotas_above_the_capacity_are_kept_as_the_schedulers_keep_them():
    """YARN accepts a minResources, Kueue a nominalQuota, larger than the cluster: the sorter keeps
    it. A YARN client whose minimum exceeds the capacity stays below it, so it is ordered before a
    client that is not, however much it holds; a Kueue client's nominal quota is kept as given."""
    yarn = DRFSorter([10.0, 10.0], semantics="yarn")
    yarn.add("a", min_share=[20.0, 20.0])
    yarn.add("b")
    yarn.allocated("a", [9.0, 9.0])
    assert yarn.order() == ["a", "b"]
    kueue = DRFSorter([10.0, 10.0], semantics="kueue")
    kueue.add("q", nominal=[50.0, 50.0])
    assert kueue.contains("q")


@pytest.mark.parametrize("semantics", ["mesos", "yarn", "volcano"])
def test_what_is_left_within_the_rounding_of_a_return_is_none(semantics):
    """Three grants of 0.1 returned as one 0.3 left 5.6e-17 held, a share that ordered the client
    after one that holds nothing; what is left within the return's rounding is none."""
    sorter = DRFSorter([1.0, 1.0], semantics=semantics)
    sorter.add("x")
    sorter.add("y")
    for _ in range(3):
        sorter.allocated("x", [0.1, 0.1])
    sorter.unallocated("x", [0.3, 0.3])
    assert sorter.allocation("x").tolist() == [0.0, 0.0] and sorter.share("x") == 0.0
    # equal shares: Mesos then orders by how many allocations a client has had (x: 3, y: 0)
    assert sorter.order() == (["y", "x"] if semantics == "mesos" else ["x", "y"])


def test_a_name_that_prints_like_another_is_refused():
    """'cafe' + a combining accent and 'café' were two clients that print alike: a name not in
    Unicode normal form NFC is refused, naming it and the form to write."""
    sorter = DRFSorter([1.0, 1.0])
    sorter.add("caf\u00e9")
    with pytest.raises(InvalidInputError, match=r"name = 'cafe\u0301': not in Unicode normal form"):
        sorter.add("cafe\u0301")
    assert sorter.order() == ["caf\u00e9"]
