"""Semi-static trace-driven experiment (Khamse-Ashari et al. §6.1 style) on synthetic Bitbrains
VMs."""

import dataclasses

import numpy as np
import pandas as pd
import pytest

from fairlib import sim
from fairlib._validate import InvalidInputError
from fairlib.multires import drfh, pfvds, psdsf, tsf
from fairlib.traces import (
    bitbrains_fleet,
    bitbrains_workload,
    read_vms,
    synthetic_bitbrains,
    task_event_demands,
    task_usage_demands,
)
from tests.realdata import real_traces

REAL_GOOGLE, REAL_GOOGLE_MARK = real_traces(
    "google_clusterdata_2011_2", needs="task_events/part-00000-of-00500.csv.gz"
)


def test_location_eligibility_line_and_ring():
    fleet = bitbrains_fleet(locations=3)
    own = sim.location_eligibility(fleet, 50, rng=1, reach=0)
    near = sim.location_eligibility(fleet, 50, rng=1, reach=1)
    ring = sim.location_eligibility(fleet, 50, rng=1, reach=1, topology="ring")
    assert own.shape == (50, 250) and (own.sum(axis=1) > 0).all()
    assert (
        (near >= own).all() and (ring >= near).all() and ring.all()
    )  # a ring of 3: every site is near
    # on the line, users at the ends cannot use the far end: a third of the servers
    ends = near.sum(axis=1) < 250
    assert ends.any() and set(near.sum(axis=1)) <= {166, 167, 250}  # sites hold 84, 83, 83 servers
    with pytest.raises(InvalidInputError, match="topology = 'star'"):
        sim.location_eligibility(fleet, 5, topology="star")


def test_snapshot_utilisation_on_synthetic_vms(tmp_path):
    synthetic_bitbrains(tmp_path, 12, rng=4, days=1)
    workload = bitbrains_workload(read_vms(directory=tmp_path))
    fleet = bitbrains_fleet(locations=3)
    out = sim.snapshot_utilisation(fleet, workload, {"psdsf": psdsf, "tsf": tsf}, 3, rng=7, reach=0)
    assert set(out.mechanism) == {"psdsf", "tsf"} and set(out.resource) == set(fleet.resources)
    assert out.utilisation.between(0, 1 + 1e-9).all() and (out.source == "synthetic").all()
    assert len(out) == 3 * 2 * 4
    cluster, idx = sim.snapshot_cluster(fleet, workload, workload.arrival.min())
    assert cluster.n_users == idx.size > 0


def test_resources_must_match():
    fleet = bitbrains_fleet()
    other = fleet.__class__(
        fleet.capacity[:, :2], ("cpu", "mem"), fleet.server_class, "paper", fleet.location
    )
    from fairlib.traces import Workload

    workload = object.__new__(
        Workload
    )  # only its resources matter here: they differ from the fleet's
    object.__setattr__(
        workload, "resources", ("cpu_ghz", "memory_gb", "storage_mbps", "network_mbps")
    )
    with pytest.raises(InvalidInputError, match="fleet.resources"):
        sim.snapshot_cluster(other, workload, 0.0)


# --- replay ---------------------------------------------------------------------------------------


def _one_server_fleet():
    from fairlib.traces.workload import Fleet

    return Fleet(
        np.array([[1.0, 1.0]]), ("cpu_normalised", "memory_normalised"), np.array(["A"]), "test"
    )


def _jobs(arrival, work, shape, cls=None):
    n = len(arrival)
    return sim.Jobs(
        np.arange(n),
        np.array(arrival, float),
        np.array(arrival, float) + 100.0,
        np.arange(n + 1),
        np.array(work, float),
        np.array(shape, float),
        ("cpu_normalised", "memory_normalised"),
        "test",
        None if cls is None else np.array(cls),
    )


def test_replay_hand_computed_completions():
    """One server (1, 1); A: 10 quanta of (1, 0.5), B: 5 of (0.5, 1). DRF-like sharing gives both
    2/3 per second: B completes at 7.5 s; the reallocation on its departure gives A the whole
    server: 5 more quanta, 12.5 s. C arrives at 1 s and waits for that reallocation (at 7.5 s), then
    shares with A."""
    fleet = _one_server_fleet()
    res = sim.replay(fleet, _jobs([0, 0], [10, 5], [[1, 0.5], [0.5, 1]]), psdsf, horizon=1000)
    np.testing.assert_allclose(res.jobs.completion, [12.5, 7.5])
    assert res.unfinished == 0 and res.jobs.finished.all()
    # at 0, at B's departure, at A's departure, then (idle) every 300 s until the horizon
    assert (
        res.epochs.start.tolist() == [0.0, 7.5, 12.5, 300.0, 600.0, 900.0]
        and res.reallocations == 6
    )
    np.testing.assert_allclose(res.epochs.utilisation_cpu_normalised.iloc[:2], [1.0, 1.0])
    late = sim.replay(
        fleet, _jobs([0, 0, 1], [10, 5, 1], [[1, 0.5], [0.5, 1], [1, 1]]), psdsf, horizon=1000
    )
    # at 7.5 s A (5 quanta left) and C (1 quantum of (1, 1)) share equal dominant shares: 0.5 each;
    # C completes at 9.5 s, then A alone: 4 quanta left at rate 1 -> 13.5 s
    np.testing.assert_allclose(late.jobs.completion, [13.5, 7.5, 9.5])
    assert late.epochs.start.iloc[1] == 7.5 and late.epochs.active_jobs.iloc[1] == 2


def test_completions_an_ulp_apart_are_one_event():
    """Two jobs that finish together, and a completion that lands on a reallocation tick: perturbing
    the work by an ulp (another CPU's rounding) changes neither the number of reallocations nor the
    completion times."""
    fleet = _one_server_fleet()
    shapes = [[1, 0.5], [1, 0.5], [0.5, 1]]
    exact = sim.replay(fleet, _jobs([0, 0, 0], [5, 5, 150], shapes), psdsf, horizon=1000)
    for factor in (1 + 2**-52, 1 - 2**-53):
        nudged = sim.replay(
            fleet, _jobs([0, 0, 0], [5 * factor, 5, 150 * factor], shapes), psdsf, horizon=1000
        )
        assert nudged.reallocations == exact.reallocations
        np.testing.assert_allclose(nudged.jobs.completion, exact.jobs.completion, rtol=1e-12)
    assert exact.jobs.completion[0] == exact.jobs.completion[1]


def test_replay_reports_unfinished_jobs_and_deviation():
    fleet = _one_server_fleet()
    jobs = _jobs([0, 0], [1e6, 5], [[1, 0.5], [0.5, 1]])
    res = sim.replay(fleet, jobs, lambda c: pfvds(c, 1.0), horizon=600, reference=psdsf)
    assert res.unfinished == 1 and not res.jobs.finished[0] and res.jobs.finished[1]
    assert {"deviation_mean", "deviation_max"} <= set(res.epochs.columns)
    assert res.epochs.start.tolist()[:2] == [0.0, pytest.approx(res.jobs.completion[1])]
    assert (res.epochs.end.diff().dropna() > 0).all() and res.epochs.end.iloc[-1] == 600


def test_replay_respects_placement_and_capacity():
    """Classes C/D serve only latency-sensitive jobs; the replay checks capacity and eligibility
    itself."""
    from fairlib.traces.workload import Fleet

    fleet = Fleet(
        np.array([[1.0, 1.0], [0.5, 0.5], [0.5, 1.0]]),
        ("cpu_normalised", "memory_normalised"),
        np.array(["A", "C", "D"]),
        "test",
    )
    jobs = _jobs([0, 0, 50], [300, 200, 100], [[1, 0.2], [0.3, 1], [1, 1]], cls=[0, 2, 3])
    elig = sim.class_eligibility(fleet, jobs.scheduling_class)
    assert elig.tolist() == [[True, False, False], [True, True, True], [True, True, True]]
    for mech in (psdsf, drfh, lambda c: pfvds(c, 2.0)):
        res = sim.replay(fleet, jobs, mech, eligible=elig, horizon=10_000, interval=60)
        assert res.jobs.finished.all()
        assert (res.epochs.filter(like="utilisation") <= 1 + 1e-9).all().all()
        assert "reserved_utilisation_cpu_normalised" in res.epochs
        # per class: C holds only job 1 (class 2) and job 2; A is used by everyone
        per_class = res.epochs[[f"class_{c}_utilisation_cpu_normalised" for c in "ACD"]]
        assert (per_class <= 1 + 1e-9).all().all() and per_class.to_numpy().max() > 0
    with pytest.raises(InvalidInputError, match="eligible: expected shape"):
        sim.replay(fleet, jobs, psdsf, eligible=elig[:, :2])


def test_jobs_from_workload_and_task_usage(tmp_path):
    from fairlib.traces.workload import Workload

    wl = Workload(
        np.array([1, 2]),
        np.array([[0.2, 0.1], [0.05, 0.1]]),
        np.array([0.0, 10.0]),
        np.array([100.0, 40.0]),
        ("cpu_normalised", "memory_normalised"),
        "real",
        np.array([0, 3]),
    )
    jobs = sim.jobs_from_workload(wl)
    np.testing.assert_allclose(jobs.total_work, [100 * 0.2, 30 * 0.1])
    np.testing.assert_allclose(jobs.shape, [[1, 0.5], [0.5, 1]])
    bad = Workload(
        np.array([1]),
        np.array([[0.0, 0.0]]),
        np.array([0.0]),
        np.array([1.0]),
        wl.resources,
        "real",
    )
    with pytest.raises(InvalidInputError, match=r"workload.demand\[0\]"):
        sim.jobs_from_workload(bad)
    usage = pd.DataFrame(
        {
            "start_time": [600_000_000, 900_000_000, 900_000_000, 600_000_000],
            "end_time": [900_000_000, 1_200_000_000, 1_050_000_000, 900_000_000],
            "job_id": [7, 7, 7, 8],
            "cpu_rate": [0.1, 0.2, 0.1, 0.0],
            "canonical_memory": [0.05, 0.1, 0.3, 0.0],
        }
    )
    jobs = sim.jobs_from_demands(
        task_usage_demands(usage, scheduling_class=pd.Series({7: 2, 8: 0}))
    )
    assert jobs.ids.tolist() == [7] and jobs.offsets.tolist() == [0, 2]  # job 8 never used anything
    np.testing.assert_allclose(jobs.work, [300 * 0.1, 300 * 0.4])
    np.testing.assert_allclose(jobs.shape, [[1.0, 0.5], [0.75, 1.0]])
    assert jobs.arrival.tolist() == [600.0] and jobs.trace_end.tolist() == [1200.0]
    assert jobs.scheduling_class.tolist() == [2]


@pytest.mark.realdata
@REAL_GOOGLE_MARK
def test_replay_on_the_real_google_excerpt():
    """One hour of the §6.2 replay on 2% of the real jobs: every job that arrived either completed
    or is reported, completions follow arrivals, the fleet is never over capacity (checked inside
    the replay)."""
    from fairlib.traces import google_fleet, google_workload, read_task_events

    directory = REAL_GOOGLE
    workload = google_workload(read_task_events([0], directory=directory))
    pick = np.random.default_rng(0).random(workload.n_users) < 0.02
    jobs = sim.jobs_from_workload(workload.subset(pick))
    fleet = google_fleet(120, 4, directory=directory)
    res = sim.replay(
        fleet,
        jobs,
        psdsf,
        eligible=sim.class_eligibility(fleet, jobs.scheduling_class),
        horizon=3600.0,
    )
    arrived = res.jobs.arrival < 3600.0
    assert res.jobs.finished.sum() + res.unfinished == arrived.sum() > 10
    done = res.jobs[res.jobs.finished]
    assert (done.completion >= done.arrival).all() and (done.completion <= 3600.0).all()
    assert res.epochs.utilisation_cpu_normalised.max() <= 1 + 1e-9


def test_binned_utilisation_and_workload_subset():
    fleet = _one_server_fleet()
    res = sim.replay(fleet, _jobs([0, 0], [10, 5], [[1, 0.5], [0.5, 1]]), psdsf, horizon=1000)
    # busy (CPU 1.0) for 12.5 s, then idle: bins of 10 s -> 1.0, 0.25, 0, ...; the last bin ends at
    # the horizon
    binned = res.binned("utilisation_cpu_normalised", 10.0)
    np.testing.assert_allclose(binned.iloc[:3], [1.0, 0.25, 0.0])
    assert binned.index[0] == 0.0 and len(binned) == 100
    np.testing.assert_allclose((binned * 10).sum(), 12.5)
    with pytest.raises(InvalidInputError, match="width = 0"):
        res.binned("utilisation_cpu_normalised", 0)
    from fairlib.traces.workload import Workload

    wl = Workload(
        np.array([1, 2, 3]),
        np.ones((3, 2)),
        np.zeros(3),
        np.ones(3),
        ("a", "b"),
        "real",
        np.array([0, 2, 3]),
        {"no_request": 4},
    )
    sub = wl.subset(np.array([True, False, True]))
    assert (
        sub.users.tolist() == [1, 3]
        and sub.scheduling_class.tolist() == [0, 3]
        and sub.skipped == wl.skipped
    )
    with pytest.raises(InvalidInputError, match="keep = .*: expected a boolean mask"):
        wl.subset([0, 2])


# --- open-loop scoring ----------------------------------------------------------------------------


def _timed_jobs(segments, cls=None):
    """segments: per job a list of (start, end, shape); work is the held time at unit rate (unused
    here)."""
    offsets = np.r_[0, np.cumsum([len(s) for s in segments])]
    flat = [seg for job in segments for seg in job]
    start = np.array([s[0] for s in flat], float)
    end = np.array([s[1] for s in flat], float)
    shape = np.array([s[2] for s in flat], float)
    n = len(segments)
    return sim.Jobs(
        np.arange(n),
        start[offsets[:-1]],
        end[offsets[1:] - 1],
        offsets,
        np.abs(end - start),
        shape,
        ("cpu_normalised", "memory_normalised"),
        "test",
        None if cls is None else np.array(cls),
        start,
        end,
    )


def test_open_loop_hand_computed_epochs():
    """One server (1, 1). A holds (1, 0.5) over [0, 700); B (0.5, 1) over [0, 100); C (1, 1) arrives
    at 50 and leaves at 400. Epochs: 0 (A, B), 100 (B left; C, waiting since 50, joins A), 300
    (tick), 400 (C left), 600 (tick), until 700. Every mechanism sees exactly these sets."""
    fleet = _one_server_fleet()
    jobs = _timed_jobs([[(0, 700, (1, 0.5))], [(0, 100, (0.5, 1))], [(50, 400, (1, 1))]])
    table = sim.open_loop(fleet, jobs, {"psdsf": psdsf, "drfh": drfh}, interval=300.0)
    for name, part in table.groupby("mechanism"):
        assert part.start.tolist() == [0.0, 100.0, 300.0, 400.0, 600.0], name
        assert part.end.tolist() == [100.0, 300.0, 400.0, 600.0, 700.0], name
        assert part.active_jobs.tolist() == [2, 2, 2, 1, 1], name
        # A and B share the server at equal dominant shares 2/3: CPU 2/3 + 1/3 = 1, RAM 1/3 + 2/3 =
        # 1; A and C: equal dominant shares 1/2: CPU 1, RAM 0.75; A alone: CPU 1, RAM 0.5
        np.testing.assert_allclose(
            part.utilisation_cpu_normalised, [1.0, 1.0, 1.0, 1.0, 1.0], atol=1e-7
        )
        np.testing.assert_allclose(
            part.utilisation_memory_normalised, [1.0, 0.75, 0.75, 0.5, 0.5], atol=1e-7
        )
        np.testing.assert_allclose(part.jain_dominant_share, [1.0, 1.0, 1.0, 1.0, 1.0], atol=1e-7)
    # the same epochs and sets for both mechanisms, whatever they allocate
    by = {name: part.reset_index(drop=True) for name, part in table.groupby("mechanism")}
    pd.testing.assert_frame_equal(
        by["psdsf"][["epoch", "start", "end", "active_jobs"]],
        by["drfh"][["epoch", "start", "end", "active_jobs"]],
    )


def test_open_loop_follows_per_window_demands_and_reserved_classes():
    """A job whose demand changes with the 5-minute window is scheduled with each window's shape; a
    reserved class serves only the privileged job."""
    from fairlib.traces.workload import Fleet

    fleet = Fleet(
        np.array([[1.0, 1.0], [1.0, 1.0]]),
        ("cpu_normalised", "memory_normalised"),
        np.array(["A", "C"]),
        "test",
    )
    jobs = _timed_jobs(
        [[(0, 300, (1, 0.25)), (300, 600, (0.25, 1))], [(0, 600, (1, 1))]], cls=[0, 2]
    )
    eligible = sim.class_eligibility(fleet, jobs.scheduling_class, reserved=("C",))
    table = sim.open_loop(fleet, jobs, {"drfh": drfh}, eligible=eligible)
    assert table.start.tolist() == [0.0, 300.0] and table.active_jobs.tolist() == [2, 2]
    # job 0 (class 0) may only use server A; job 1 (privileged) takes what is left there and all of
    # C
    np.testing.assert_allclose(table.class_C_utilisation_cpu_normalised, [1.0, 1.0], atol=1e-7)
    np.testing.assert_allclose(table.reserved_utilisation_memory_normalised, [1.0, 1.0], atol=1e-7)
    np.testing.assert_allclose(table.class_A_utilisation_memory_normalised.iloc[0] < 1.0, True)


def test_open_loop_and_replay_never_give_a_job_more_than_its_segment_cap():
    """One server (1, 1): A (1, 0.5) capped at 0.25, B (0.5, 1) capped at 0.75 — both fit, so each
    gets exactly its cap: CPU 0.25 + 0.375 = 0.625, RAM 0.125 + 0.75 = 0.875. Uncapped (caps=False)
    they share the server at equal dominant shares 2/3 (CPU and RAM 1). PF-VDS (its variational
    equilibrium under caps) gives the same; its best responses refuse caps, naming max_tasks."""
    fleet = _one_server_fleet()
    base = _timed_jobs([[(0, 300, (1, 0.5))], [(0, 300, (0.5, 1))]])
    jobs = dataclasses.replace(base, segment_cap=np.array([0.25, 0.75]))
    for name, mech in {
        "psdsf": psdsf,
        "drfh": drfh,
        "tsf": tsf,
        "pfvds": lambda c: pfvds(c, 2.0),
    }.items():
        capped = sim.open_loop(fleet, jobs, {name: mech})
        np.testing.assert_allclose(capped.utilisation_cpu_normalised, [0.625], atol=1e-7)
        np.testing.assert_allclose(capped.utilisation_memory_normalised, [0.875], atol=1e-7)
        free = sim.open_loop(fleet, jobs, {name: mech}, caps=False)
        np.testing.assert_allclose(free.utilisation_memory_normalised, [1.0], atol=1e-7)
        first = sim.replay(fleet, jobs, mech).epochs.iloc[0]
        np.testing.assert_allclose(first.utilisation_cpu_normalised, 0.625, atol=1e-7)
    with pytest.raises(
        InvalidInputError, match=r"max_tasks\[0\] = 0.25: method='best_response' does not honour"
    ):
        sim.open_loop(fleet, jobs, {"pfvds": lambda c: pfvds(c, 1.0, method="best_response")})
    with pytest.raises(InvalidInputError, match=r"jobs.segment_cap\[1\] = -1.0"):
        dataclasses.replace(base, segment_cap=np.array([1.0, -1.0]))


def test_open_loop_rejects_what_it_cannot_score():
    fleet = _one_server_fleet()
    untimed = _jobs([0, 0], [10, 5], [[1, 0.5], [0.5, 1]])
    with pytest.raises(InvalidInputError, match="no segment times"):
        sim.open_loop(fleet, untimed, {"drfh": drfh})
    with pytest.raises(InvalidInputError, match="segment_end\\[1\\] = 40.0: before its start 50.0"):
        _timed_jobs([[(0, 100, (1, 1)), (50, 40, (1, 1))]])
    with pytest.raises(
        InvalidInputError, match="segment_start\\[1\\] = 50.0: before the job's previous segment"
    ):
        _timed_jobs([[(0, 100, (1, 1)), (50, 150, (1, 0.5))]])
    _timed_jobs([[(0, 100, (1, 1))], [(50, 150, (1, 0.5))]])  # two jobs may overlap
    with pytest.raises(InvalidInputError, match="interval"):
        sim.open_loop(fleet, _timed_jobs([[(0, 10, (1, 1))]]), {"drfh": drfh}, interval=0.0)


def test_jobs_builders_record_segment_times():
    task_usage = pd.DataFrame(
        {
            "start_time": [600_000_000, 900_000_000, 600_000_000],
            "end_time": [900_000_000, 1_000_000_000, 900_000_000],
            "job_id": [7, 7, 8],
            "cpu_rate": [0.2, 0.1, 0.3],
            "canonical_memory": [0.1, 0.1, 0.3],
        }
    )
    jobs = sim.jobs_from_demands(task_usage_demands(task_usage))
    np.testing.assert_allclose(jobs.segment_start, [600.0, 900.0, 600.0])
    np.testing.assert_allclose(
        jobs.segment_end, [900.0, 1000.0, 900.0]
    )  # the partial window: 100 s


# --- per-interval demands from task_events (§6.2 [INF]) ------------------------------------------

_EVENT_COLUMNS = [
    "time",
    "job_id",
    "task_index",
    "event_type",
    "cpu_request",
    "memory_request",
    "scheduling_class",
]


def test_jobs_from_task_event_demands_hand_computed():
    """Job 1: task 0 runs 600-1250 s, task 1 is submitted at 700, scheduled at 1000, killed at 1500.
    Job 2: running at the snapshot (t = 0), its request updated at 1200 with the CPU request missing
    (carried over), done at 2000."""
    s = 1_000_000
    rows = [
        (600 * s, 1, 0, 0, 0.1, 0.2, 1),
        (600 * s, 1, 0, 1, 0.1, 0.2, 1),
        (1250 * s, 1, 0, 4, 0.1, 0.2, 1),
        (700 * s, 1, 1, 0, 0.3, 0.1, 1),
        (1000 * s, 1, 1, 1, 0.3, 0.1, 1),
        (1500 * s, 1, 1, 5, 0.3, 0.1, 1),
        (0, 2, 0, 1, 0.5, 0.5, 3),
        (1200 * s, 2, 0, 8, np.nan, 0.25, 3),
        (2000 * s, 2, 0, 4, 0.5, 0.25, 3),
    ]
    jobs = sim.jobs_from_demands(task_event_demands(pd.DataFrame(rows, columns=_EVENT_COLUMNS)))
    assert jobs.ids.tolist() == [1, 2] and jobs.offsets.tolist() == [0, 3, 8]
    # job 1 at 600 and 900: task 0 only (0.1, 0.2); at 1200 both (0.4, 0.3); at 1500 nothing runs
    # (killed at 1500)
    np.testing.assert_allclose(jobs.segment_start, [600, 900, 1200, 600, 900, 1200, 1500, 1800])
    np.testing.assert_allclose(jobs.segment_end, [900, 1200, 1500, 900, 1200, 1500, 1800, 2000])
    np.testing.assert_allclose(
        jobs.shape, [[0.5, 1], [0.5, 1], [1, 0.75], [1, 1], [1, 1], [1, 0.5], [1, 0.5], [1, 0.5]]
    )
    # quanta: interval length x dominant demand (the last interval cut at the trace's end, 2000 s)
    np.testing.assert_allclose(jobs.work, [60, 60, 120, 150, 150, 150, 150, 100])
    # at most the dominant demand at once: a job is never given more than its running tasks request
    np.testing.assert_allclose(jobs.segment_cap, [0.2, 0.2, 0.4, 0.5, 0.5, 0.5, 0.5, 0.5])
    assert jobs.scheduling_class.tolist() == [1, 3]
    assert jobs.arrival.tolist() == [600.0, 600.0] and jobs.trace_end.tolist() == [1500.0, 2000.0]


def _running_demand_reference(events, window=300.0, origin=600.0):
    """Slow reference: at every interval start, each task's last event at or before it (input order
    breaks ties in time), requests carried over from earlier events; sum over running tasks per
    job."""
    horizon = events.time.max() / 1e6
    out = {}
    for (job, _), task in events.groupby(["job_id", "task_index"], sort=False):
        task = task.sort_values("time", kind="stable")
        cpu = task.cpu_request.ffill().to_numpy()
        mem = task.memory_request.ffill().to_numpy()
        times, types = task.time.to_numpy() / 1e6, task.event_type.to_numpy()
        k = 0
        while origin + k * window < horizon:
            t = origin + k * window
            at = np.flatnonzero(times <= t)
            if at.size and types[at[-1]] in (1, 8):
                c, m = np.nan_to_num(cpu[at[-1]]), np.nan_to_num(mem[at[-1]])
                if c + m > 0:
                    got = out.setdefault((job, k), [0.0, 0.0])
                    got[0] += c
                    got[1] += m
            k += 1
    return out


def test_jobs_from_task_event_demands_against_a_slow_reference():
    rng = np.random.default_rng(19)
    rows = []
    for job in range(12):
        for task in range(int(rng.integers(1, 5))):
            t = int(rng.integers(0, 3000))
            for _ in range(int(rng.integers(1, 7))):
                rows.append(
                    (
                        t * 1_000_000,
                        job,
                        task,
                        int(rng.choice([0, 1, 1, 8, 2, 4, 5])),
                        np.nan if rng.random() < 0.15 else float(rng.uniform(0.0, 0.5)),
                        float(rng.uniform(0.01, 0.5)),
                        int(rng.integers(0, 4)),
                    )
                )
                t += int(rng.integers(0, 900))
    events = pd.DataFrame(rows, columns=_EVENT_COLUMNS)
    jobs = sim.jobs_from_demands(task_event_demands(events))
    want = _running_demand_reference(events)
    got = {}
    seg_job = np.repeat(jobs.ids, np.diff(jobs.offsets))
    k = np.round((jobs.segment_start - 600.0) / 300.0).astype(int)
    length = jobs.segment_end - jobs.segment_start
    dominant = jobs.work / length
    for j, kk, shape, d in zip(seg_job, k, jobs.shape, dominant):
        got[(int(j), int(kk))] = shape * d
    assert got.keys() == want.keys()
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=1e-12, err_msg=str(key))


def test_open_loop_ranges_span_every_placement_of_the_same_totals():
    """Servers A (public) and C (reserved), both (1, 1). A privileged job capped at 0.5 of shape
    (1, 1) gets 0.5 from every mechanism; it may sit on A, on C or across both, so C's utilisation
    ranges over [0, 0.5] whatever the mechanism chose. With a public job beside it (capped at 1.5,
    more than A holds) DRFH gives the public job all of A and the privileged one its 0.5, which only
    C can then hold: C's range is [0.5, 0.5]."""
    from fairlib.traces.workload import Fleet

    fleet = Fleet(
        np.array([[1.0, 1.0], [1.0, 1.0]]),
        ("cpu_normalised", "memory_normalised"),
        np.array(["A", "C"]),
        "test",
    )
    alone = dataclasses.replace(
        _timed_jobs([[(0, 300, (1, 1))]], cls=[2]), segment_cap=np.array([0.5])
    )
    table = sim.open_loop(
        fleet,
        alone,
        {"psdsf": psdsf, "drfh": drfh},
        ranges=True,
        eligible=sim.class_eligibility(fleet, alone.scheduling_class, reserved=("C",)),
    )
    for col in ("cpu_normalised", "memory_normalised"):
        np.testing.assert_allclose(table[f"reserved_low_{col}"], 0.0, atol=1e-7)
        np.testing.assert_allclose(table[f"reserved_high_{col}"], 0.5, atol=1e-6)
        assert (table[f"reserved_low_{col}"] <= table[f"reserved_utilisation_{col}"] + 1e-7).all()
        assert (table[f"reserved_utilisation_{col}"] <= table[f"reserved_high_{col}"] + 1e-7).all()
    pair = dataclasses.replace(
        _timed_jobs([[(0, 300, (1, 1))], [(0, 300, (1, 1))]], cls=[2, 0]),
        segment_cap=np.array([0.5, 1.5]),
    )
    table = sim.open_loop(
        fleet,
        pair,
        {"drfh": drfh},
        ranges=True,
        eligible=sim.class_eligibility(fleet, pair.scheduling_class, reserved=("C",)),
    )
    # DRFH: the public job takes A (1 task), the privileged one its cap 0.5, which only C can still
    # hold
    np.testing.assert_allclose(table.reserved_low_cpu_normalised, 0.5, atol=1e-6)
    np.testing.assert_allclose(table.reserved_high_cpu_normalised, 0.5, atol=1e-6)
    assert "reserved_low_cpu_normalised" not in sim.open_loop(fleet, pair, {"drfh": drfh}).columns


def test_unconverged_allocations_are_reported_once_per_mechanism():
    """A solver that stops short is used (its allocation is feasible) but never silently: one
    RuntimeWarning per mechanism at the end of the run, with the count and the largest residual;
    converged runs warn nothing."""
    import warnings

    from fairlib.traces.workload import Fleet

    def stops_short(cluster):
        return dataclasses.replace(drfh(cluster), converged=False, residual=0.25)

    fleet = Fleet(
        np.array([[1.0, 1.0], [1.0, 0.5]]),
        ("cpu_normalised", "memory_normalised"),
        np.array(["A", "C"]),
        "test",
    )
    start, end = np.array([0.0, 0.0]), np.array([600.0, 300.0])
    jobs = sim.Jobs(
        np.array([1, 2]),
        start,
        end,
        np.array([0, 1, 2]),
        end - start,
        np.array([[1, 1], [1, 0.5]]),
        ("cpu_normalised", "memory_normalised"),
        "test",
        np.array([0, 2]),
        start,
        end,
    )
    with pytest.warns(
        RuntimeWarning,
        match=r"open_loop: short's solver did not converge on 2 of 2 allocations "
        r"\(largest residual 0.25\)",
    ):
        sim.open_loop(fleet, jobs, {"short": stops_short, "exact": drfh}, start=0.0, horizon=600.0)
    with pytest.warns(RuntimeWarning, match="replay: stops_short's solver did not converge"):
        sim.replay(fleet, jobs, stops_short, start=0.0, horizon=600.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        sim.open_loop(fleet, jobs, {"exact": drfh}, start=0.0, horizon=600.0)


# --- bad input: refused up front, by name ---------------------------------------------------------


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("ids", None, r"jobs\.ids = None: expected a 1-D array of identifiers"),
        ("ids", np.array([], dtype=int), r"jobs\.ids = .*: empty"),
        ("ids", np.array([0.0, np.nan]), r"jobs\.ids = .*: identifiers must be integers or text"),
        ("arrival", "abc", r"jobs\.arrival: must be numeric, got dtype <U3: 'abc'"),
        (
            "arrival",
            np.array([0, 1j]),
            r"jobs\.arrival = .*: must be real numbers, got dtype complex128",
        ),
        (
            "work",
            np.ones((2, 2)),
            r"jobs\.work: expected one number per segment \(1-D\), got shape \(2, 2\)",
        ),
        ("offsets", None, r"jobs\.offsets = None"),
        ("shape", [[1.0, 0.5], [0.5]], r"jobs\.shape = .*ragged"),
        (
            "scheduling_class",
            np.array([0.0, np.nan]),
            r"jobs\.scheduling_class\[1\] = nan: a scheduling class is an "
            r"integer >= 0",
        ),
        ("scheduling_class", np.array([2.5, 0.0]), r"jobs\.scheduling_class\[0\] = 2\.5"),
        ("scheduling_class", np.array([0, 2, 3]), r"jobs\.scheduling_class: expected shape \(2,\)"),
        ("source", 1, r"jobs\.source = 1: must be text"),
        ("source", "\u200b", r"jobs\.source = '\\u200b': blank"),
    ],
)
def test_jobs_refuse_malformed_fields_by_name(field, value, message):
    good = _jobs([0, 0], [10, 5], [[1, 0.5], [0.5, 1]], cls=[0, 2])
    fields = {f.name: getattr(good, f.name) for f in dataclasses.fields(good)}
    fields[field] = value
    with pytest.raises(InvalidInputError, match=message):
        sim.Jobs(**fields)


def test_jobs_take_string_ids():
    """Bitbrains VMs are named by file stems: string identifiers are ids as good as integers."""
    good = _jobs([0, 0], [10, 5], [[1, 0.5], [0.5, 1]])
    named = dataclasses.replace(good, ids=np.array(["vm1", "vm2"], dtype=object))
    assert named.n_jobs == 2 and named.subset(np.array([False, True])).ids.tolist() == ["vm2"]


def test_task_usage_demands_and_jobs_from_demands_refuse_bad_input_by_name():
    usage = pd.DataFrame(
        {
            "start_time": [600_000_000, 600_000_000],
            "end_time": [900_000_000, 900_000_000],
            "job_id": [7, 8],
            "cpu_rate": [0.1, 0.2],
            "canonical_memory": [0.05, 0.1],
        }
    )
    with pytest.raises(InvalidInputError, match=r"task_usage = None: must be a DataFrame"):
        sim.jobs_from_demands(task_usage_demands(None))
    with pytest.raises(
        InvalidInputError, match=r"scheduling_class = \[0, 2\]: expected a Series or mapping"
    ):
        sim.jobs_from_demands(task_usage_demands(usage, scheduling_class=[0, 2]))
    # a job missing from the classes would be NaN, which class_eligibility cannot place: said here,
    # by job
    with pytest.raises(
        InvalidInputError, match=r"scheduling_class: no class for job 8 \(1 of 2 jobs"
    ):
        sim.jobs_from_demands(task_usage_demands(usage, scheduling_class={7: 2}))
    with pytest.raises(InvalidInputError, match=r"scheduling_class\[1\] = -1"):
        sim.jobs_from_demands(task_usage_demands(usage, scheduling_class=pd.Series({7: 2, 8: -1})))
    with pytest.raises(InvalidInputError, match=r"source = 1: must be text"):
        sim.jobs_from_demands(task_usage_demands(usage, source=1))
    with pytest.raises(
        InvalidInputError, match=r"task_usage row 1 \(index 1\), column 'cpu_rate' = -0\.2"
    ):
        sim.jobs_from_demands(task_usage_demands(usage.assign(cpu_rate=[0.1, -0.2])))
    with pytest.raises(InvalidInputError, match="task_usage: no job used anything"):
        sim.jobs_from_demands(task_usage_demands(usage.assign(cpu_rate=0.0, canonical_memory=0.0)))


def test_class_eligibility_refuses_unknown_classes_by_name():
    fleet = _one_server_fleet()
    with pytest.raises(InvalidInputError, match=r"scheduling_class\[0\] = nan"):
        sim.class_eligibility(fleet, np.array([np.nan, 2.0]))
    with pytest.raises(InvalidInputError, match=r"scheduling_class = None"):
        sim.class_eligibility(fleet, None)
    with pytest.raises(InvalidInputError, match=r"privileged: expected at least one class"):
        sim.class_eligibility(fleet, [0, 2], privileged=())
    with pytest.raises(InvalidInputError, match=r"privileged\[0\] = -1"):
        sim.class_eligibility(fleet, [0, 2], privileged=[-1, 2])
    assert sim.class_eligibility(fleet, [0, 2], reserved=("A",), privileged=2).ravel().tolist() == [
        False,
        True,
    ]
    # privileged as any iterable, read once as a list is (a generator was "ragged or object data")
    listed = sim.class_eligibility(fleet, [0, 2], reserved=("A",), privileged=[2, 3])
    for given in ((c for c in [2, 3]), iter([2, 3]), {3, 2}, range(2, 4)):
        assert (
            sim.class_eligibility(fleet, [0, 2], reserved=("A",), privileged=given) == listed
        ).all()
    with pytest.raises(InvalidInputError, match=r"privileged: expected at least one class"):
        sim.class_eligibility(fleet, [0, 2], privileged=(c for c in ()))
    with pytest.raises(InvalidInputError, match=r"privileged\[1\] = -1"):
        sim.class_eligibility(fleet, [0, 2], privileged=(c for c in [2, -1]))
    with pytest.raises(InvalidInputError, match=r"privileged = \{2: 3\}: must be a numeric array"):
        sim.class_eligibility(fleet, [0, 2], privileged={2: 3})
    # a label no server has reserved nothing, silently; each is refused by name and value
    for reserved, i, label in ((("Z",), 0, "Z"), (("A", "a"), 1, "a")):
        with pytest.raises(
            InvalidInputError, match=rf"reserved\[{i}\] = '{label}': no server of the fleet has"
        ):
            sim.class_eligibility(fleet, [0, 2], reserved=reserved)
    assert sim.class_eligibility(fleet, [0, 2], reserved=()).all()


def test_replay_and_open_loop_refuse_a_reserved_class_no_server_has():
    """``reserved`` names the classes whose utilisation is reported on its own: a label no server of
    the fleet has would report nothing, silently, and is refused as class_eligibility refuses it;
    the default is the classes C and D the fleet has."""
    from fairlib.traces.workload import Fleet

    fleet = Fleet(
        np.array([[1.0, 1.0], [1.0, 1.0]]),
        ("cpu_normalised", "memory_normalised"),
        np.array(["A", "C"]),
        "test",
    )
    jobs = _timed_jobs([[(0.0, 100.0, [1.0, 0.5])]])
    message = r"reserved\[1\] = 'D': no server of the fleet has this class \(its classes: \['A'"
    with pytest.raises(InvalidInputError, match=message):
        sim.replay(fleet, jobs, psdsf, reserved=("C", "D"))
    with pytest.raises(InvalidInputError, match=message):
        sim.open_loop(fleet, jobs, {"drfh": drfh}, reserved=("C", "D"))
    with pytest.raises(InvalidInputError, match=r"reserved = None: expected a list of labels"):
        sim.class_eligibility(fleet, [0], reserved=None)
    # the default: C, the one of C and D this fleet has; none on a fleet without either
    assert "reserved_utilisation_cpu_normalised" in sim.replay(fleet, jobs, psdsf).epochs
    table = sim.open_loop(fleet, jobs, {"drfh": drfh}, reserved=None)
    np.testing.assert_allclose(table.reserved_utilisation_cpu_normalised, 1.0, atol=1e-7)
    public = _one_server_fleet()
    assert not sim.replay(public, jobs, psdsf).epochs.filter(like="reserved_").columns.size
    assert not sim.open_loop(public, jobs, {"drfh": drfh}).filter(like="reserved_").columns.size


def test_replay_open_loop_and_results_refuse_bad_scalars_by_name():
    fleet = _one_server_fleet()
    jobs = _jobs([0, 0], [10, 5], [[1, 0.5], [0.5, 1]])
    for bad, message in (
        (True, r"interval = True"),
        ("300", r"interval = '300'"),
        (1e-4, r"interval = 0\.0001"),
    ):
        with pytest.raises(InvalidInputError, match=message):
            sim.replay(fleet, jobs, psdsf, interval=bad)
    with pytest.raises(InvalidInputError, match=r"start = '0': must be a finite number"):
        sim.replay(fleet, jobs, psdsf, start="0")
    with pytest.raises(
        InvalidInputError, match=r"horizon = 10000.*(beyond the float range|cannot hold exactly)"
    ):
        sim.replay(fleet, jobs, psdsf, horizon=10**400)
    timed = _timed_jobs([[(0.0, 100.0, [1.0, 0.5])]])
    with pytest.raises(InvalidInputError, match=r"interval = nan"):
        sim.open_loop(fleet, timed, {"drfh": drfh}, interval=float("nan"))
    res = sim.replay(fleet, jobs, psdsf, horizon=1000)
    with pytest.raises(InvalidInputError, match=r"column = 'cpu': must be one of"):
        res.mean_utilisation("cpu")
    with pytest.raises(InvalidInputError, match=r"column = None"):
        res.binned(None, 10.0)
    with pytest.raises(InvalidInputError, match=r"width = True"):
        res.binned("utilisation_cpu_normalised", True)
    with pytest.raises(InvalidInputError, match=r"width = 1e-09: .* more than 10,000,000 bins"):
        res.binned("utilisation_cpu_normalised", 1e-9)


def test_snapshot_and_location_arguments_are_checked_up_front():
    from fairlib.traces.workload import Fleet, Workload

    resources = ("cpu_normalised", "memory_normalised")
    fleet = Fleet(
        np.array([[1.0, 1.0], [0.5, 0.5]]),
        resources,
        np.array(["A", "B"]),
        "test",
        location=np.array([0, 1]),
    )
    workload = Workload(
        np.array([1, 2]),
        np.array([[0.5, 0.25], [0.2, 0.1]]),
        np.array([0.0, 5.0]),
        np.array([600.0, 900.0]),
        resources,
        "synthetic",
    )
    with pytest.raises(InvalidInputError, match=r"rng = 'abc'"):
        sim.location_eligibility(fleet, 5, rng="abc")
    # one error, not a sweep of failed runs
    for n_runs, kwargs, message in (
        (2.5, {}, r"n_runs = 2\.5"),
        (0, {}, r"n_runs = 0"),
        (1, {"reach": -1}, r"^reach = -1"),
        (1, {"topology": "star"}, r"^topology = 'star'"),
    ):
        with pytest.raises(InvalidInputError, match=message):
            sim.snapshot_utilisation(fleet, workload, {"drfh": drfh}, n_runs, 0, **kwargs)


def test_task_usage_windows_beyond_the_trace_clock_are_refused_by_name():
    """A window of 9.2e12 s is longer than an int64 of microseconds (it overflowed), and one below a
    microsecond is no tick at all: both are refused naming ``window``."""
    import pandas as pd
    import pytest

    from fairlib import sim
    from fairlib._validate import InvalidInputError

    usage = pd.DataFrame(
        {
            "start_time": [600_000_000],
            "end_time": [900_000_000],
            "job_id": [1],
            "cpu_rate": [0.5],
            "canonical_memory": [0.25],
        }
    )
    for window in (9223372036855.0, 1e-9):
        with pytest.raises(InvalidInputError, match="window"):
            sim.jobs_from_demands(task_usage_demands(usage, scheduling_class={1: 2}, window=window))


def test_windows_far_shorter_than_the_trace_are_refused_before_anything_is_allocated():
    """A tiny interval or window over a long span made the epochs (open_loop's ticks) or the (task
    run, interval) pairs (task_event_demands) explode: numpy was asked for terabytes before any cap
    was checked. Both are counted first and refused naming the argument."""
    from fairlib.traces import google

    fleet = _one_server_fleet()
    timed = _timed_jobs([[(0.0, 1e9, [1.0, 0.5])]])
    with pytest.raises(
        InvalidInputError,
        match=r"interval = 0\.001 s: up to 1,000,000,000,001 epochs, more than 10,000,000",
    ):
        sim.open_loop(fleet, timed, {"drfh": drfh}, interval=1e-3)
    s = 1_000_000
    rows = [(600 * s, 1, 0, 1, 0.1, 0.2, 1), (30 * 86400 * s, 1, 0, 4, 0.1, 0.2, 1)]
    events = pd.DataFrame(rows, columns=_EVENT_COLUMNS)
    with pytest.raises(
        InvalidInputError, match=r"window = 0\.01: .* more than MAX_TASK_INTERVALS = 50,000,000"
    ):
        task_event_demands(events, window=0.01)
    assert task_event_demands(events, window=86400.0).demand.shape == (30, 2)
    assert google.MAX_TASK_INTERVALS == 50_000_000


def test_replay_progress_is_true_or_false():
    fleet = _one_server_fleet()
    jobs = _jobs([0, 0], [10, 5], [[1, 0.5], [0.5, 1]])
    with pytest.raises(InvalidInputError, match=r"^progress = 'yes'"):
        sim.replay(fleet, jobs, psdsf, horizon=1000, progress="yes")
