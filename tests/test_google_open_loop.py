"""The open-loop sensitivity grid of the Google experiment
(fairlib.repro.experiments.google_open_loop)."""

import numpy as np
import pandas as pd
import pytest

from fairlib import sim
from fairlib._validate import InvalidInputError
from fairlib.repro.experiments import google_open_loop as gol
from fairlib.multires import drfh, psdsf, tsf
from fairlib.traces.workload import Fleet

RESOURCES = ("cpu_normalised", "memory_normalised")


def _jobs(segments, ids, cls, caps=None):
    """segments: per job a list of (start, end, shape); work = held seconds x unit rate."""
    offsets = np.r_[0, np.cumsum([len(s) for s in segments])]
    flat = [seg for job in segments for seg in job]
    start, end = np.array([s[0] for s in flat], float), np.array([s[1] for s in flat], float)
    shape = np.array([s[2] for s in flat], float)
    shape /= shape.max(axis=1, keepdims=True)  # one quantum: its dominant component 1
    return sim.Jobs(
        np.array(ids),
        start[offsets[:-1]],
        end[offsets[1:] - 1],
        offsets,
        end - start,
        shape,
        RESOURCES,
        "test",
        np.array(cls),
        start,
        end,
        None if caps is None else np.array(caps, float),
    )


def test_jobs_subset_keeps_whole_jobs_with_their_segments():
    jobs = _jobs(
        [[(0, 300, (1, 0.5)), (300, 600, (0.5, 1))], [(0, 100, (1, 1))], [(50, 350, (1, 0.25))]],
        [10, 11, 12],
        [0, 2, 1],
        caps=[0.5, 0.25, 1.0, 0.75],
    )
    sub = jobs.subset(np.array([True, False, True]))
    assert sub.ids.tolist() == [10, 12] and sub.offsets.tolist() == [0, 2, 3]
    assert sub.scheduling_class.tolist() == [0, 1]
    np.testing.assert_array_equal(sub.segment_start, [0, 300, 50])
    np.testing.assert_array_equal(sub.segment_cap, [0.5, 0.25, 0.75])
    np.testing.assert_array_equal(sub.shape, [[1, 0.5], [0.5, 1], [1, 0.25]])
    np.testing.assert_array_equal(sub.total_work, [600, 300])
    with pytest.raises(
        InvalidInputError, match="keep = .*: expected a boolean mask of shape \\(3,\\)"
    ):
        jobs.subset(np.array([1, 0, 1]))
    with pytest.raises(InvalidInputError, match="keep: selects no job"):
        jobs.subset(np.zeros(3, bool))


def test_time_averaged_weights_epochs_by_length():
    """Two epochs of 100 s and 300 s: CPU 1.0 then 0.2 -> (100 + 60) / 400 = 0.4."""
    table = pd.DataFrame(
        {
            "mechanism": ["m", "m"],
            "start": [0.0, 100.0],
            "end": [100.0, 400.0],
            "active_jobs": [2, 4],
            "utilisation_cpu_normalised": [1.0, 0.2],
            "utilisation_memory_normalised": [0.5, 0.5],
            "reserved_utilisation_cpu_normalised": [0, 1.0],
            "reserved_utilisation_memory_normalised": [0.0, 0.0],
            "jain_dominant_share": [np.nan, 0.5],
        }
    )
    row = gol.time_averaged(table).loc["m"]
    assert row.cpu == pytest.approx(0.4) and row.ram == pytest.approx(0.5)
    assert row.utilisation == pytest.approx(0.45) and row.cpu_CD == pytest.approx(0.75)
    assert row.utilisation_CD == pytest.approx(0.375) and row.mean_active_jobs == pytest.approx(3.5)
    assert row.jain_dominant_share == pytest.approx(0.5)  # idle epochs (NaN) do not count
    assert "cpu_CD_low" not in row
    ranged = table.assign(
        reserved_low_cpu_normalised=[0.0, 0.5],
        reserved_high_cpu_normalised=[0.5, 1.0],
        reserved_low_memory_normalised=0.0,
        reserved_high_memory_normalised=0.25,
    )
    row = gol.time_averaged(ranged).loc["m"]
    assert row.cpu_CD_low == pytest.approx(0.375) and row.cpu_CD_high == pytest.approx(0.875)
    assert row.ram_CD_low == 0.0 and row.ram_CD_high == pytest.approx(0.25)
    with pytest.raises(InvalidInputError, match="^table: no column 'active_jobs'"):
        gol.time_averaged(table.drop(columns="active_jobs"))


def test_sample_ids_is_seeded_and_validated():
    ids = np.repeat(np.arange(1000), 2)  # duplicates count once
    a, b = gol.sample_ids(ids, 0.1, 3), gol.sample_ids(ids, 0.1, 3)
    np.testing.assert_array_equal(a, b)
    assert 60 < a.size < 140 and np.unique(a).size == a.size
    assert gol.sample_ids(ids, 1.0, 0).size == 1000
    for bad in (0.0, 1.5, np.nan):
        with pytest.raises(InvalidInputError, match="fraction"):
            gol.sample_ids(ids, bad, 0)


def _fleets():
    """Two servers; in the "proportionality" mapping the CPU-rich one is reserved (C), in
    "frequency" it is public. Neither has a class D: the sensitivity runs reserve C alone."""
    capacity = np.array([[1.0, 1.0], [1.0, 0.25]])
    return {
        "proportionality": Fleet(capacity, RESOURCES, np.array(["A", "C"]), "test"),
        "frequency": Fleet(capacity, RESOURCES, np.array(["C", "A"]), "test"),
    }


def test_sensitivity_runs_every_setup_on_the_same_jobs_and_hand_checks_one():
    """Per-interval (capped): job 10 (public) wants (0.5, 0.5) at most; job 11 (privileged, class 2)
    wants (1, 0.25) at most. With fraction 1 both are sampled; every mechanism gives both their caps
    when they fit: CPU (0.5 + 1) / 2 = 0.75, RAM (0.5 + 0.25) / 1.25 = 0.6. Lifetime: the same jobs
    uncapped fill more."""
    per_interval = _jobs(
        [[(0, 300, (1, 1))], [(0, 300, (1, 0.25))]], [10, 11], [0, 2], caps=[0.5, 1.0]
    )
    lifetime = _jobs([[(0, 300, (1, 1))], [(0, 300, (1, 0.25))]], [10, 11], [0, 2])
    grid = gol.sensitivity(
        {"per-interval": per_interval, "lifetime": lifetime},
        _fleets(),
        fractions=[1.0],
        seeds=2,
        rng=1,
        horizon=300.0,
        reserved=("C",),
        n_jobs=1,
    )
    assert len(grid) == 2 * 2 * 2 * 3 and set(grid.mechanism) == {"PS-DSF", "DRFH", "TSF"}
    capped = grid[(grid.demand_model == "per-interval") & (grid.labels == "proportionality")]
    np.testing.assert_allclose(capped.cpu, 0.75, atol=1e-6)
    np.testing.assert_allclose(capped.ram, 0.6, atol=1e-6)
    free = grid[(grid.demand_model == "lifetime") & (grid.labels == "proportionality")]
    assert (free.utilisation > capped.utilisation.max() + 0.2).all()
    # frequency mapping: job 10 may use only the CPU-rich server (1, 0.25): 0.25 of its (1, 1); job
    # 11 fills the other server up to its CPU: CPU (0.25 + 1) / 2, RAM (0.25 + 0.25) / 1.25
    free = grid[(grid.demand_model == "lifetime") & (grid.labels == "frequency")]
    np.testing.assert_allclose(free.cpu, 0.625, atol=1e-6)
    np.testing.assert_allclose(free.ram, 0.4, atol=1e-6)
    lead = gol.leads(grid)
    assert len(lead) == 2 * 2 * 2
    np.testing.assert_allclose(lead[lead.demand_model == "per-interval"].lead, 0.0, atol=1e-6)


def test_sensitivity_samples_the_same_ids_in_every_model_and_mapping():
    rng = np.random.default_rng(0)
    n = 40
    segs = [[(0, 300, tuple(rng.uniform(0.1, 1, 2)))] for _ in range(n)]
    ids, cls = np.arange(100, 100 + n), rng.integers(0, 4, n)
    caps = rng.uniform(0.01, 0.05, n)
    models = {"per-interval": _jobs(segs, ids, cls, caps), "lifetime": _jobs(segs, ids, cls)}
    grid = gol.sensitivity(
        models,
        _fleets(),
        fractions=[0.3, 0.6],
        seeds=2,
        rng=5,
        horizon=300.0,
        reserved=("C",),
        n_jobs=1,
        mechanisms={"PS-DSF": psdsf, "DRFH": drfh, "TSF": tsf},
    )
    counts = grid.groupby(["fraction", "rep"]).jobs.nunique()
    assert (counts == 1).all()  # one sample per (fraction, rep), whatever the model and mapping
    assert grid.groupby("fraction").jobs.mean().is_monotonic_increasing


def test_sensitivity_and_leads_reject_bad_input():
    jobs = _jobs([[(0, 300, (1, 1))]], [1], [0])
    with pytest.raises(InvalidInputError, match="jobs_by_model = 'daily'"):
        gol.sensitivity({"daily": jobs}, _fleets(), fractions=[1.0], seeds=1, n_jobs=1)
    # the default reserves C and D, and these fleets have no D: refused before any cell runs
    with pytest.raises(
        InvalidInputError, match=r"fleets\['proportionality'\] has no server of class D"
    ):
        gol.sensitivity({"lifetime": jobs}, _fleets(), fractions=[1.0], seeds=1, n_jobs=1)
    with pytest.raises(InvalidInputError, match="fleets = 'size'"):
        gol.sensitivity(
            {"lifetime": jobs}, {"size": _fleets()["frequency"]}, fractions=[1.0], seeds=1, n_jobs=1
        )
    grid = pd.DataFrame(
        {
            "fraction": [0.1],
            "rep": [0],
            "demand_model": ["lifetime"],
            "labels": ["frequency"],
            "mechanism": ["DRFH"],
            "utilisation": [1.0],
            "utilisation_CD": [1.0],
            "cpu": [1.0],
            "ram": [1.0],
            "mean_active_jobs": [3.0],
            "jobs": [4],
        }
    )
    with pytest.raises(InvalidInputError, match="'PS-DSF', 'TSF'"):
        gol.leads(grid)
    with pytest.raises(InvalidInputError, match="^grid: no column 'jobs'"):
        gol.leads(grid.drop(columns="jobs"))


def test_typical_task_is_the_median_running_tasks_last_dominant_request():
    events = pd.DataFrame(
        {
            "job_id": [1, 1, 1, 1, 2, 2, 3],
            "task_index": [0, 0, 1, 2, 0, 1, 0],
            "event_type": [
                1,
                8,
                1,
                0,
                1,
                1,
                0,
            ],  # job 1 task 2 and job 3 only submitted: not counted
            "cpu_request": [0.1, 0.3, 0.05, 9.0, np.nan, 0.02, 9.0],
            "memory_request": [0.2, 0.1, 0.01, 9.0, 0.04, 0.01, 9.0],
        }
    )
    # tasks (1, 0): last running request (0.3, 0.1) -> 0.3; (1, 1): 0.05; (2, 0): NaN CPU -> 0.04;
    # (2, 1): 0.02
    assert gol.typical_task(events) == pytest.approx(np.median([0.3, 0.05, 0.04, 0.02]))
    with pytest.raises(InvalidInputError, match="^task_events: no column 'task_index'"):
        gol.typical_task(events.drop(columns="task_index"))
    with pytest.raises(InvalidInputError, match="no running task"):
        gol.typical_task(events.assign(event_type=0))


def test_paper_setup_runs_best_fit_drfh_on_the_servers_as_given():
    # two identical servers (1.5, 1.5) and one job capped at 3 of shape (1, 1): PS-DSF, DRFH and TSF
    # place all 3, so does Best-Fit with tasks of 0.5 (three per server); with whole tasks one fits
    # each server (2 of 3), where the merged server (3, 3) would take all three
    fleet = Fleet(np.array([[1.5, 1.5], [1.5, 1.5]]), RESOURCES, np.array(["A", "A"]), "test")
    jobs = _jobs([[(0, 300, (1, 1))]], [1], [0], caps=[3.0])
    mechanisms = gol.paper_setup_mechanisms(0.5)
    assert list(mechanisms) == ["PS-DSF", "DRFH", "TSF", "DRFH Best-Fit"]
    table = sim.open_loop(fleet, jobs, mechanisms, start=0.0, horizon=300.0, reserved=())
    used = table.set_index("mechanism").utilisation_cpu_normalised
    assert used.to_dict() == pytest.approx(
        {"PS-DSF": 1.0, "DRFH": 1.0, "TSF": 1.0, "DRFH Best-Fit": 1.0}
    )
    whole = sim.open_loop(
        fleet, jobs, gol.paper_setup_mechanisms(1.0), start=0.0, horizon=300.0, reserved=()
    )
    assert whole.set_index("mechanism").utilisation_cpu_normalised[
        "DRFH Best-Fit"
    ] == pytest.approx(2 / 3)
