"""The schedulers notebook's drivers (fairlib.repro.experiments.scheduler_semantics): a cell
snapshot read from hand-written task and machine events, the rules on a small cell (tie rules agree,
a guarantee is kept, the tree moves tasks between tenants), the machine comparison, the named
findings, bad input, and the real cell's counts."""

import numpy as np
import pandas as pd
import pytest

from fairlib import InvalidInputError
from fairlib.repro.experiments import scheduler_semantics as semantics
from fairlib.traces import read_machine_events, read_task_events

from .realdata import real_traces

GOOGLE, needs_google = real_traces(
    "google_clusterdata_2011_2", "task_events/part-00004-of-00500.csv.gz"
)
S = 1_000_000  # µs per second


def _event(t_s, job, task, kind, user="u", priority=0, cpu=None, memory=None):
    return {
        "time": int(t_s * S),
        "job_id": job,
        "task_index": task,
        "event_type": kind,
        "user": user,
        "priority": priority,
        "scheduling_class": 0,
        "cpu_request": cpu,
        "memory_request": memory,
    }


def _events():
    return pd.DataFrame(
        [
            # job 1: two tasks, one running, one pending; the second event carries no request
            # (carried over)
            _event(0, 1, 0, 0, "alice", 9, 0.1, 0.2),
            _event(5, 1, 0, 1, "alice", 9),
            _event(0, 1, 1, 0, "alice", 9, 0.1, 0.2),
            # job 2: one task finished before the instant, one running with another request (median
            # of one: its own)
            _event(0, 2, 0, 0, "bob", 0, 0.3, 0.1),
            _event(1, 2, 0, 1, "bob"),
            _event(50, 2, 0, 4, "bob"),
            _event(0, 2, 1, 0, "bob", 0, 0.2, 0.1),
            _event(2, 2, 1, 1, "bob"),
            # job 3: requests zero in both resources (no dominant share): left out, counted
            _event(0, 3, 0, 0, "carol", 0, 0.0, 0.0),
            _event(1, 3, 0, 1, "carol"),
            # job 4: submitted after the instant
            _event(200, 4, 0, 0, "dave", 0, 0.1, 0.1),
        ]
    )


def _machines():
    return pd.DataFrame(
        {
            "time": [0, 0, 0, 90 * S],
            "machine_id": [10, 11, 12, 12],
            "event_type": [0, 0, 0, 1],
            "platform_id": "p",
            "cpus": [0.5, 1.0, 0.5, np.nan],
            "memory": [0.5, 1.0, 0.25, np.nan],
        }
    )


def test_snapshot_reads_present_tasks_requests_and_machines():
    snap = semantics.cell_snapshot(_events(), _machines(), 100.0)
    assert snap.jobs.job_id.tolist() == [1, 2]
    assert snap.jobs.tasks.tolist() == [2, 1] and snap.jobs.running.tolist() == [1, 1]
    np.testing.assert_allclose(snap.demand, [[0.1, 0.2], [0.2, 0.1]])
    assert snap.skipped == {"tasks without a request": 0, "jobs with a zero request": 1}
    np.testing.assert_allclose(snap.capacity, [1.5, 1.5])  # machine 12 was removed at 90 s
    assert snap.tenant_paths == ["tenant0/1", "tenant1/2"]
    np.testing.assert_allclose(snap.requested(), [0.4 / 1.5, 0.5 / 1.5])
    np.testing.assert_allclose(snap.requested("running"), [0.3 / 1.5, 0.3 / 1.5])
    before = semantics.cell_snapshot(_events(), _machines(), 60.0)
    assert len(before.machines) == 3


def test_bad_input_is_named():
    with pytest.raises(
        InvalidInputError,
        match=r"^task_events: no column 'user' \(needs \['job_id', 'task_index', 'user'",
    ):
        semantics.cell_snapshot(_events().drop(columns="user"), _machines(), 100.0)
    with pytest.raises(InvalidInputError, match="at_s = 0.5: no task is pending or running"):
        semantics.cell_snapshot(_events()[_events().time > 1 * S], _machines(), 0.5)
    # a negative or boolean instant would be read as a time (True as 1 s)
    for bad in (-1.0, True, "100"):
        with pytest.raises(InvalidInputError, match=rf"at_s = {bad!r}: must be"):
            semantics.cell_snapshot(_events(), _machines(), bad)
    snap = semantics.cell_snapshot(_events(), _machines(), 100.0)
    # 0 would keep nothing, True would read as 1 (the snapshot itself)
    for bad in (0.0, 1.5, True, "0.5"):
        with pytest.raises(InvalidInputError, match=rf"fraction = {bad!r}: must"):
            snap.sample(bad)
    assert snap.sample(1.0) is snap
    with pytest.raises(InvalidInputError, match="which"):
        snap.requested("pending")
    with pytest.raises(InvalidInputError, match="baseline = 'nope'"):
        semantics.semantics_summary(snap, semantics.semantics_allocations(snap), baseline="nope")


def test_a_snapshot_refuses_a_tally_that_is_not_one():
    """``skipped`` is checked as a Workload's is (one helper for every count of what was left
    out): None is not "nothing skipped", the empty dict is."""
    jobs, machines = _contended_cell().jobs, np.array([[1.0, 1.0]])
    for bad, message in (
        (None, r"skipped = None: expected a dict of reason -> count"),
        ({"sampled out (jobs)": 1.5}, r"skipped\['sampled out \(jobs\)'\] = 1\.5: must be an"),
    ):
        with pytest.raises(InvalidInputError, match=message):
            semantics.CellSnapshot(3600.0, jobs, machines, "synthetic", 0, bad)
    assert semantics.CellSnapshot(3600.0, jobs, machines, "synthetic", 0).skipped == {}


def _contended_cell():
    """Six jobs of three tenants on two machines, wanting twice the cell; tenant t0 has four small
    jobs."""
    jobs = pd.DataFrame(
        {
            "job_id": np.arange(6),
            "tenant": ["t0"] * 4 + ["t1", "t2"],
            "priority": [9, 0, 0, 0, 0, 0],
            "scheduling_class": 0,
            "tasks": [10, 10, 10, 10, 40, 40],
            "running": [4, 0, 0, 0, 0, 0],
            "cpu": [0.05, 0.05, 0.05, 0.05, 0.05, 0.02],
            "memory": [0.02, 0.02, 0.02, 0.02, 0.02, 0.05],
        }
    )
    return semantics.CellSnapshot(3600.0, jobs, np.array([[1.0, 1.0], [0.5, 0.25]]), "synthetic", 0)


def test_rules_on_a_contended_cell():
    snap = _contended_cell()
    allocations = semantics.semantics_allocations(snap)
    assert set(allocations.rule) == set(semantics.SEMANTICS)
    summary = semantics.semantics_summary(snap, allocations).set_index("rule")
    tasks = allocations.pivot(index="job", columns="rule", values="tasks")
    # tie rules differ by at most a task per job here
    assert summary.loc[list(semantics.TIE_RULES), "max_job_change"].max() <= 1
    # the production job keeps its 4 running tasks under every quota rule
    assert (tasks.loc[0, list(semantics.QUOTA_RULES)] >= 4).all()
    assert (summary.loc[list(semantics.QUOTA_RULES), "production_kept"] == 1.0).all()
    # the tree gives tenant t0's four jobs together one tenant's share: they lose tasks to t1 and t2
    flat, tree = tasks["DRF, lowest index"], tasks["hierarchical, H-DRF"]
    assert tree[:4].sum() < flat[:4].sum() and tree[4:].sum() > flat[4:].sum()
    assert summary.loc["hierarchical, H-DRF", "tenants_changed"] == 3
    tenants = semantics.tenant_totals(snap, allocations)
    assert tenants[tenants.rule == "DRF, lowest index"].set_index("tenant").jobs.to_dict() == {
        "t0": 4,
        "t1": 1,
        "t2": 1,
    }
    machines = semantics.machine_allocations(snap).set_index("mechanism")
    assert (machines.cpu_utilisation <= 1 + 1e-9).all() and (
        machines.memory_utilisation <= 1 + 1e-9
    ).all()
    assert (
        machines.loc["pooled DRF (no placement)", "tasks"]
        == allocations[allocations.rule == "DRF, lowest index"].tasks.sum()
    )
    found = semantics.findings(
        summary.reset_index().assign(at_s=3600.0),
        machines.reset_index().assign(at_s=3600.0),
        {3600.0: snap},
        allocations.assign(at_s=3600.0),
    )
    assert found["tie_max_job_change"] <= 1 and found["quota_min_guarantee_margin"] >= 0
    assert found["yarn_vs_mesos_tasks_moved"] == 0 and found["contended_instants"] == 1
    assert found["hdrf_minus_ties_tasks_moved"] >= 1


@needs_google
def test_the_real_cell_at_one_hour():
    snap = semantics.cell_snapshot(
        read_task_events(range(5), directory=GOOGLE), read_machine_events(directory=GOOGLE), 3600.0
    )
    # counted once from the excerpt (SCHEMAS.md: 12,583 machines in all, some removed by then)
    assert (
        len(snap.jobs) == 3978 and len(snap.machines) == 12475 and snap.jobs.tenant.nunique() == 508
    )
    assert snap.skipped["jobs with a zero request"] == 2 and snap.mixed_requests == 9
    assert snap.requested("running")[0] > 1  # Borg over-commits CPU requests
