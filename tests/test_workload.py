"""Fleet and Workload builders for the trace-driven experiments."""

import numpy as np
import pandas as pd
import pytest

from fairlib._validate import InvalidInputError
from fairlib.traces import (
    bitbrains_fleet,
    bitbrains_workload,
    google_fleet,
    google_workload,
    read_task_events,
    read_vms,
    synthetic_bitbrains,
)
from tests.realdata import real_traces

GOOGLE, real = real_traces(
    "google_clusterdata_2011_2", needs="task_events/part-00000-of-00500.csv.gz"
)


def test_google_fleet_from_configurations():
    conf = pd.DataFrame(
        {
            "platform_id": ["a", "a", "b", "c", "a"],
            "cpus": [0.5, 0.5, 1.0, 0.25, 0.5],
            "memory": [0.5, 0.25, 1.0, 0.25, 0.75],
            "machines": [6732, 3863, 795, 126, 1001],
        }
    )
    fleet = google_fleet(120, 4, configurations=conf)
    assert fleet.n_servers == 120 and fleet.source == "given"
    classes, counts = np.unique(fleet.server_class, return_counts=True)
    assert classes.tolist() == ["A", "B", "C", "D"] and counts.tolist() == [
        65,
        37,
        10,
        8,
    ]  # reconstructions §5.8
    assert fleet.capacity[fleet.server_class == "A"][0].tolist() == [0.5, 0.5]
    with pytest.raises(InvalidInputError, match="need 1 <= classes <= n_servers"):
        google_fleet(3, 4, configurations=conf)


def test_google_fleet_classes_labelled_as_the_paper_describes_them():
    """§6.2: A and B almost proportional to the overall capacities, C and D more heterogeneous (and
    reserved)."""
    conf = pd.DataFrame(
        {
            "cpus": [0.5, 0.5, 1.0, 0.25, 0.5],
            "memory": [0.5, 0.25, 1.0, 0.25, 0.75],
            "machines": [6732, 3863, 795, 126, 1001],
        }
    )
    fleet = google_fleet(120, 4, configurations=conf, labels="proportionality")
    shape = {c: fleet.capacity[fleet.server_class == c] for c in "ABCD"}
    assert {c: (len(v), tuple(v[0])) for c, v in shape.items()} == {
        "A": (65, (0.5, 0.5)),
        "B": (8, (1.0, 1.0)),
        "C": (37, (0.5, 0.25)),
        "D": (10, (0.5, 0.75)),
    }
    # the defining property: every public class is closer in direction to the fleet's total than
    # every reserved one
    total = fleet.capacity.sum(axis=0)
    angle = {
        c: np.arccos(v[0] @ total / np.linalg.norm(v[0]) / np.linalg.norm(total))
        for c, v in shape.items()
    }
    assert max(angle["A"], angle["B"]) < min(angle["C"], angle["D"])
    # same servers as the frequency labelling, only the names differ
    by_frequency = google_fleet(120, 4, configurations=conf)
    np.testing.assert_array_equal(fleet.capacity, by_frequency.capacity)
    assert "proportionality" in fleet.notes and "proportionality" not in by_frequency.notes
    with pytest.raises(InvalidInputError, match="labels"):
        google_fleet(120, 4, configurations=conf, labels="size")


def test_google_workload_jobs_as_users():
    rows = [
        (0, 1, 0, 0, 0.1, 0.2, 2),
        (0, 1, 1, 0, 0.3, 0.1, 2),
        (5_000_000, 1, 0, 4, 0.1, 0.2, 2),
        (9_000_000, 1, 1, 5, 0.3, 0.1, 2),
        (2_000_000, 2, 0, 0, 0.2, 0.0, 0),
        (3_000_000, 3, 0, 0, 0.0, 0.0, 1),
    ]
    ev = pd.DataFrame(
        rows,
        columns=[
            "time",
            "job_id",
            "task_index",
            "event_type",
            "cpu_request",
            "memory_request",
            "scheduling_class",
        ],
    )
    w = google_workload(ev)
    assert w.users.tolist() == [1, 2] and w.skipped == {"no_request": 1}
    np.testing.assert_allclose(w.demand, [[0.4, 0.3], [0.2, 0.0]])
    assert w.arrival.tolist() == [0.0, 2.0] and w.departure.tolist() == [
        9.0,
        9.0,
    ]  # job 2 never ends: horizon
    assert w.active_at(1.0).tolist() == [True, False]


def test_bitbrains_fleet_and_workload(tmp_path):
    fleet = bitbrains_fleet()
    assert fleet.n_servers == 250 and sorted(
        np.unique(fleet.server_class, return_counts=True)[1]
    ) == [75, 75, 100]
    assert "not recovered" in fleet.notes and set(fleet.location) == {0, 1, 2}
    synthetic_bitbrains(tmp_path, 6, rng=2, days=1)
    vms = read_vms(directory=tmp_path)
    vms.loc[vms.vm == "3", ["cpu_cores", "memory_capacity_kb"]] = 0.0
    vms["active"] = (vms.cpu_cores > 0) & (vms.memory_capacity_kb > 0)
    w = bitbrains_workload(vms)
    assert w.source == "synthetic" and w.n_users == 5 and w.skipped == {"never_active": 1}
    one = vms[vms.vm == "1"]
    assert w.demand[0, 0] == pytest.approx(one.cpu_usage_mhz.max() / 1000)
    assert w.resources == fleet.resources


def test_bitbrains_fleet_spreads_over_every_site_it_accepts():
    # the largest server type has 100 servers: 100 sites each hold one, a 101st would hold none
    assert set(bitbrains_fleet(locations=100).location) == set(range(100))
    for locations in (101, 1000, 10**9):
        with pytest.raises(
            InvalidInputError, match=rf"locations = {locations}: must be at most 100"
        ):
            bitbrains_fleet(locations=locations)


@pytest.mark.realdata
@real
def test_real_google_fleet_and_workload():
    fleet = google_fleet(120, 4, rng=0, directory=GOOGLE)
    assert fleet.source == "real" and fleet.n_servers == 120
    w = google_workload(read_task_events([0], directory=GOOGLE))
    assert w.n_users > 1000 and (w.demand >= 0).all() and (w.departure >= w.arrival).all()


def test_bitbrains_storage_and_network_sized_to_the_peak_total_usage():
    """§6.1: capacity sized so the maximum overall usage is met — the largest total over VMs at
    one instant (not the sum of per-VM peaks, which would be 2 + 3 = 5 MB/s of storage here), split
    over the 250 servers."""
    kb = 1024.0
    vms = pd.DataFrame(
        {
            "vm": ["a", "a", "b", "b", "b"],
            "time": [0, 300, 0, 300, 600],
            "active": [True, True, True, True, False],
            "disk_read_kbps": [2 * kb, 0.5 * kb, 1 * kb, 3 * kb, 99 * kb],
            "disk_write_kbps": [0.0] * 5,
            "net_rx_kbps": [1 * kb, 1 * kb, 1 * kb, 4 * kb, 99 * kb],
            "net_tx_kbps": [0.0, 1 * kb, 0, 0, 0],
        }
    )
    from fairlib.traces import peak_total_bandwidth

    # storage: t=0 -> 2 + 1 = 3, t=300 -> 0.5 + 3 = 3.5 (the inactive sample at 600 is not usage);
    # network: 2, 6
    assert peak_total_bandwidth(vms) == (3.5, 6.0)
    fleet = bitbrains_fleet(size_from=vms)
    np.testing.assert_allclose(fleet.capacity[:, 2:].sum(axis=0), [3.5, 6.0])
    assert np.ptp(fleet.capacity[:, 2]) == 0 and "sizing rule" in fleet.notes
    assert (
        "not recovered, chosen" in bitbrains_fleet().notes
    )  # the default stays the labelled choice
    with pytest.raises(InvalidInputError, match="no active sample"):
        peak_total_bandwidth(vms.assign(active=False))
    with pytest.raises(InvalidInputError, match="missing columns"):
        peak_total_bandwidth(vms.drop(columns="net_tx_kbps"))


def _fleet(**change):
    from fairlib.traces import Fleet

    args = dict(
        capacity=np.array([[1.0, 1.0], [0.5, 0.5]]),
        resources=("cpu", "memory"),
        server_class=np.array(["A", "B"]),
        source="synthetic",
        location=np.array([0, 1]),
    )
    return Fleet(**{**args, **change})


def _workload(**change):
    from fairlib.traces import Workload

    args = dict(
        users=np.array([1, 2]),
        demand=np.array([[0.5, 0.25], [0.2, 0.1]]),
        arrival=np.array([0.0, 5.0]),
        departure=np.array([600.0, 900.0]),
        resources=("cpu", "memory"),
        source="synthetic",
        scheduling_class=np.array([0, 2]),
    )
    return Workload(**{**args, **change})


@pytest.mark.parametrize(
    "change, message",
    [
        ({"capacity": None}, r"capacity = None: must be a numeric array"),
        (
            {"capacity": [[1.0, 2.0], [3.0]]},
            r"capacity = \[\[1\.0, 2\.0\], \[3\.0\]\]: must be a numeric array",
        ),
        ({"capacity": np.array([[1.0, 1j], [1.0, 1.0]])}, r"capacity: must be real numbers"),
        ({"capacity": np.array([[1.0, np.nan], [1.0, 1.0]])}, r"capacity\[0, 1\] = nan"),
        (
            {"capacity": np.ones((2, 3))},
            r"capacity: expected \(servers, 2\) for resources \('cpu', 'memory'\)",
        ),
        ({"server_class": np.array(["A"])}, r"server_class = .*: expected 2 labels"),
        ({"source": 1}, r"source = 1: must be text"),
        ({"notes": ["x"]}, r"notes = \['x'\]: must be text"),
        ({"location": object()}, r"location = <object object at .*>: must be a numeric array"),
        ({"location": np.array([0.5, 1.0])}, r"location\[0\] = 0\.5: must be a whole number"),
        ({"location": np.array([0])}, r"location: expected shape \(2\)"),
        ({"resources": "cpu"}, r"resources = 'cpu': must be a non-empty tuple of resource names"),
        # labels are distinct, non-blank text: these were accepted
        ({"resources": ("cpu", "cpu")}, r"resources\[1\] = 'cpu': repeated"),
        ({"resources": ("", "memory")}, r"resources\[0\] = '': blank"),
        ({"resources": ("cpu", " ")}, r"resources\[1\] = ' ': blank"),
        ({"server_class": ["A", 1]}, r"server_class\[1\] = 1: must be text"),
        ({"server_class": np.array(["A", " "])}, r"server_class\[1\] = ' ': blank"),
    ],
)
def test_fleet_refuses_each_bad_field_by_name(change, message):
    with pytest.raises(InvalidInputError, match=message):
        _fleet(**change)
    assert (
        _fleet(source="paper", notes="any text").n_servers == 2
    )  # provenance and notes are free text


@pytest.mark.parametrize(
    "change, message",
    [
        ({"users": None}, r"users = None: expected a 1-D array of identifiers"),
        ({"users": "ab"}, r"users = 'ab': expected a 1-D array of identifiers"),
        (
            {"users": np.array([1.0, np.nan])},
            r"users = .*: identifiers must be integers or text, got dtype float64",
        ),
        (
            {"users": np.array([1, 2, 3])},
            r"demand: expected shape \(3, 2\) \(one row per entry of users",
        ),
        ({"demand": "abc"}, r"demand: must be numeric"),
        ({"demand": np.array([[0.5, 1j], [0.2, 0.1]])}, r"demand: must be real numbers"),
        (
            {"demand": np.array([[0.5, -1.0], [0.2, 0.1]])},
            r"demand\[0, 1\] = -1\.0: demand must be >= 0",
        ),
        ({"arrival": None}, r"arrival = None: must be a numeric array"),
        ({"arrival": [0.0, [1.0]]}, r"arrival = .*: must be a numeric array"),
        (
            {"departure": np.array([600.0, np.inf])},
            r"departure\[1\] = inf: departure must be finite",
        ),
        (
            {"departure": np.array([600.0, 1.0])},
            r"departure\[1\] = 1\.0: before arrival\[1\] = 5\.0",
        ),
        (
            {"source": "no-such-source"},
            r"source = 'no-such-source': must be one of \['real', 'synthetic'\]",
        ),
        ({"scheduling_class": "ab"}, r"scheduling_class: must be numeric"),
        ({"scheduling_class": np.array([0, 2, 3])}, r"scheduling_class: expected shape \(2\)"),
        (
            {"scheduling_class": np.array([0.0, 1.5])},
            r"scheduling_class\[1\] = 1\.5: must be a whole number",
        ),
        (
            {"scheduling_class": np.array([0, -1])},
            r"scheduling_class\[1\] = -1\.0: scheduling_class must be >= 0",
        ),
        # nothing left out is the empty dict, not None
        ({"skipped": None}, r"skipped = None: expected a dict of reason -> count"),
        ({"skipped": {"no_request": -1}}, r"skipped\['no_request'\] = -1: must be an integer >= 0"),
        ({"skipped": {1: 2}}, r"skipped: key 1 must be text"),
    ],
)
def test_workload_refuses_each_bad_field_by_name(change, message):
    with pytest.raises(InvalidInputError, match=message):
        _workload(**change)


@pytest.mark.parametrize(
    "users, message",
    [
        ([2**70, 1], r"users\[0\] = 1180591620717411303424: an integer identifier is within int64"),
        (
            np.array([1, -(2**63) - 1], dtype=object),
            r"users\[1\] = -9223372036854775809: an integer identifier is within int64",
        ),
        (
            np.array([2**63, 1], dtype=np.uint64),
            r"users\[0\] = 9223372036854775808: an integer identifier is within int64",
        ),
        ([1, "x"], r"users\[1\] = 'x': text among integers \(users\[0\] = 1\)"),
        (np.array(["x", 1], dtype=object), r"users\[1\] = 1: an integer among text"),
        ([7, True], r"users\[1\] = True: booleans are not numbers"),
    ],
)
def test_workload_refuses_user_ids_beyond_int64_or_of_mixed_kinds(users, message):
    """2**70 was kept as an object array (no int64 column, reader or sort holds it) and [1, "x"]
    as the text ["1", "x"]; each is refused naming the index and the value. The other fields are
    numbers, which an object array of real numbers holds as well as a float one (one rule for
    numbers, ``fairlib._validate.is_real``)."""
    with pytest.raises(InvalidInputError, match=message):
        _workload(users=users)
    plain = _workload()
    as_objects = _workload(
        **{
            field: np.array(getattr(plain, field).tolist(), dtype=object)
            for field in ("demand", "arrival", "departure")
        }
    )
    for field in ("demand", "arrival", "departure"):
        assert np.array_equal(getattr(as_objects, field), getattr(plain, field))
    with pytest.raises(InvalidInputError, match=r"arrival\[0\] = 'x'|arrival = .*'x'"):
        _workload(arrival=np.array(["x", 1], dtype=object))
    # integers within int64 of any kind are kept as int64
    assert _workload(users=np.array([7, 2**63 - 1], dtype=object)).users.dtype == np.int64
    assert _workload(users=np.array([7, 12], dtype=np.uint32)).users.dtype == np.int64


def test_workload_identifiers_may_be_text_and_a_workload_may_be_empty():
    names = _workload(users=np.array(["7", "12"], dtype=object))
    assert names.users.tolist() == ["7", "12"]
    empty = names.subset(np.array([False, False]))
    assert empty.n_users == 0 and empty.active_at(1.0).tolist() == []


@pytest.mark.parametrize("t", [None, "1.0", True, 1 + 1j, np.nan, np.inf, -np.inf, 10**400, [1.0]])
def test_active_at_refuses_a_time_that_is_not_a_finite_number(t):
    with pytest.raises(
        InvalidInputError, match=r"t = .*: (must be a finite number|an integer beyond 2\*\*53)"
    ):
        _workload().active_at(t)
    assert _workload().active_at(-1.0).tolist() == [False, False]  # before every arrival: nobody


@pytest.mark.parametrize(
    "horizon, message",
    [
        (2.5, r"horizon = 2\.5: must be a whole number of µs"),
        (10**20, r"horizon = 1e\+20: must be a finite number >= 0\.0 and <= 9223372036854775807"),
        (5_000_000, r"horizon = 5000000: before the last event of task_events \(9000000 µs\)"),
    ],
)
def test_google_workload_horizon_is_a_whole_time_after_the_last_event(horizon, message):
    rows = [(0, 1, 0, 0, 0.1, 0.2, 2), (9_000_000, 2, 0, 0, 0.2, 0.1, 0)]
    ev = pd.DataFrame(
        rows,
        columns=[
            "time",
            "job_id",
            "task_index",
            "event_type",
            "cpu_request",
            "memory_request",
            "scheduling_class",
        ],
    )
    with pytest.raises(InvalidInputError, match=message):
        google_workload(ev, horizon=horizon)
    assert google_workload(ev, horizon=12_000_000.0).departure.tolist() == [12.0, 12.0]
