"""Certified bounds on the utilisation of every Definition-4 (PS-DSF) allocation
(``fairlib.multires.checks.psdsf_range``): the premise (every PS-DSF allocation has each usable user
at its cap or blocked by a saturated resource it needs), bounds that contain both of our PS-DSF
constructions, the grouped program's bounds containing the per-server program's (the reference), a
hand-computed case, and the open-loop columns."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairlib import sim
from fairlib._validate import InvalidInputError
from fairlib.multires import Cluster, psdsf, psdsf_violation, random_cluster
from fairlib.multires.checks.psdsf_range import psdsf_utilisation_bounds


def _capped_cluster(seed, n_users=5, n_servers=5, server_types=2):
    rng = np.random.default_rng(seed)
    base = random_cluster(rng, n_users, n_servers, 2, server_types=server_types)
    caps = np.where(rng.random(n_users) < 0.5, rng.uniform(0.3, 4.0, n_users), np.inf)
    return Cluster(base.capacity, base.demand, eligible=base.eligible, max_tasks=caps)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), method=st.sampled_from(["market", "fixed_point"]))
def test_every_psdsf_allocation_is_blocked_everywhere_and_inside_the_bounds(seed, method):
    cluster = _capped_cluster(seed)
    if (
        method == "market"
    ):  # the market has no caps: lift them (a capped cluster goes to the fixed point)
        cluster = dataclasses.replace(cluster, max_tasks=None)
    alloc = psdsf(cluster, method=method)
    assert psdsf_violation(cluster, alloc.tasks)["holds"]
    assert (
        psdsf_violation(cluster, alloc.tasks, tol=1e-6)["free_pairs"] == 0
    )  # the relaxation's premise
    some = np.arange(cluster.n_servers) < cluster.n_servers // 2 + 1
    for r in range(2):
        for servers in (None, some):
            mask = np.ones(cluster.n_servers, bool) if servers is None else servers
            if not cluster.capacity[mask, r].sum() > 0:
                continue
            u = alloc.used[mask, r].sum() / cluster.capacity[mask, r].sum()
            for ordered in (False, True):
                b = psdsf_utilisation_bounds(cluster, r, servers, ordered=ordered)
                assert b.proven and b.low - 1e-7 <= u <= b.high + 1e-7


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_grouped_bounds_contain_the_per_server_bounds(seed):
    cluster = _capped_cluster(seed, n_users=4, n_servers=6)
    for r in range(2):
        loose = psdsf_utilisation_bounds(cluster, r)
        for ordered in (False, True):
            grouped = psdsf_utilisation_bounds(cluster, r, ordered=ordered)
            single = psdsf_utilisation_bounds(cluster, r, grouped=False, ordered=ordered)
            assert grouped.low <= single.low + 1e-7 and single.high <= grouped.high + 1e-7
            assert single.low <= single.high + 1e-9
        assert (
            loose.low <= grouped.low + 1e-7 and grouped.high <= loose.high + 1e-7
        )  # the order only tightens


def test_one_server_hand_computed():
    """One server (9, 18), A (1, 4), B (3, 1), no caps (DRF's example: 3 tasks of A and 2 of B, CPU
    1, RAM 7/9). Blocked means CPU or RAM saturated: CPU is lowest (1/2) with RAM saturated by A
    alone (4.5 tasks), RAM lowest (1/6) with CPU saturated by B alone (3 tasks); both can be
    saturated."""
    cluster = Cluster([[9.0, 18.0]], [[1.0, 4.0], [3.0, 1.0]])
    cpu, ram = (psdsf_utilisation_bounds(cluster, r, ordered=False) for r in (0, 1))
    assert cpu.low == pytest.approx(0.5) and cpu.high == pytest.approx(1.0)
    assert ram.low == pytest.approx(1 / 6) and ram.high == pytest.approx(1.0)
    # with the order on VDS kept: both hold tasks at equal dominant shares (a non-holder would need
    # a VDS at least a holder's) -> DRF's allocation, the only one: CPU 1, RAM 7/9
    cpu, ram = (psdsf_utilisation_bounds(cluster, r, ordered=True) for r in (0, 1))
    assert cpu.low == pytest.approx(1.0) and cpu.high == pytest.approx(1.0)
    assert ram.low == pytest.approx(7 / 9) and ram.high == pytest.approx(7 / 9)
    # a cap that A reaches: A at its cap (2) need not be blocked; B must be -> CPU or RAM saturated
    # by B's tasks
    capped = Cluster([[9.0, 18.0]], [[1.0, 4.0], [3.0, 1.0]], max_tasks=[2.0, np.inf])
    b = psdsf_utilisation_bounds(capped, 0)
    # B fills CPU (7/3 tasks beside A's 2) or RAM (10 tasks: more CPU than there is) -> CPU
    # saturated; A below its cap is blocked too; lowest CPU is therefore 1
    assert b.low == pytest.approx(1.0) and b.high == pytest.approx(1.0)


def test_bad_input_is_named():
    cluster = Cluster([[9.0, 18.0]], [[1.0, 4.0], [3.0, 1.0]])
    with pytest.raises(InvalidInputError, match="resource = 2"):
        psdsf_utilisation_bounds(cluster, 2)
    with pytest.raises(InvalidInputError, match="resource = True"):
        psdsf_utilisation_bounds(cluster, True)
    # (an unnamed refusal would follow: an empty selection holds none of the resource)
    with pytest.raises(
        InvalidInputError, match=r"servers\[0\] = 5: must be an index of the 1 servers"
    ):
        psdsf_utilisation_bounds(cluster, 0, [5])
    with pytest.raises(
        InvalidInputError, match=r"servers\[1\] = 0: server 0 is given more than once"
    ):
        psdsf_utilisation_bounds(cluster, 0, [0, 0])
    with pytest.raises(InvalidInputError, match="cluster"):
        psdsf_utilisation_bounds("cluster", 0)


def test_open_loop_reports_the_bounds_around_psdsf():
    from fairlib.repro.experiments import google_open_loop as gol
    from fairlib.traces.workload import Fleet

    fleet = Fleet(
        np.array([[1.0, 1.0], [1.0, 0.5], [0.5, 1.0]]),
        ("cpu_normalised", "memory_normalised"),
        np.array(["A", "C", "D"]),
        "test",
    )
    offsets = np.arange(4)
    start, end = np.zeros(3), np.array([300.0, 600.0, 600.0])
    jobs = sim.Jobs(
        np.arange(3),
        start,
        end,
        offsets,
        end - start,
        np.array([[1, 0.5], [0.5, 1], [1, 1]], float),
        ("cpu_normalised", "memory_normalised"),
        "test",
        np.array([0, 2, 2]),
        start,
        end,
    )
    jobs = dataclasses.replace(jobs, segment_cap=np.array([0.4, np.inf, 0.5]))
    eligible = sim.class_eligibility(fleet, jobs.scheduling_class)
    table = sim.open_loop(fleet, jobs, {"PS-DSF": psdsf}, eligible=eligible, definition4=True)
    for _, row in table.iterrows():
        for res in ("cpu_normalised", "memory_normalised"):
            assert (
                row[f"psdsf_low_{res}"] - 1e-7
                <= row[f"utilisation_{res}"]
                <= row[f"psdsf_high_{res}"] + 1e-7
            )
            assert (
                row[f"psdsf_reserved_low_{res}"] - 1e-7
                <= row[f"reserved_utilisation_{res}"]
                <= row[f"psdsf_reserved_high_{res}"] + 1e-7
            )
    averaged = gol.time_averaged(table).loc["PS-DSF"]
    assert (
        averaged.cpu_definition4_low - 1e-7 <= averaged.cpu <= averaged.cpu_definition4_high + 1e-7
    )
    assert (
        averaged.ram_CD_definition4_low - 1e-7
        <= averaged.ram_CD
        <= averaged.ram_CD_definition4_high + 1e-7
    )
