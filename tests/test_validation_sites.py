"""One bad input per validation site that neither the API contract's probes nor another bad-input
test makes raise (``tests/mutation_audit.py trace`` lists them): each refusal below is the one a
site makes, so a site removed or made a pass-through fails its test."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fairlib._validate import InvalidInputError
from fairlib.multires import Cluster


def _cluster():
    return Cluster([[4.0, 4.0], [6.0, 2.0]], [[1.0, 2.0], [2.0, 1.0], [1.0, 1.0]])


def _pool():
    return Cluster.single_pool([9.0, 18.0], [[1.0, 4.0], [3.0, 1.0]])


def _game():
    from fairlib.market import Game

    return Game([[0.5, 0.5], [0.2, 0.8], [0.9, 0.1]], reserve=1e-6)


def _run_dynamics_bad_shape():
    from fairlib.market import run_dynamics

    run_dynamics(_game(), initial_bids=np.ones((2, 2)))


def _equilibrium_violation_idle_user():
    from fairlib.market import equilibrium_violation

    equilibrium_violation([[0.5, 0.5], [0.2, 0.8]], [[0.5, 0.5], [0.0, 0.0]], reserve=1e-6)


def _game_outcome_method():
    from fairlib.market.outcome import GameOutcome

    GameOutcome(_game(), np.full((3, 2), 0.5), 1)


def _register_start_without_argument():
    from fairlib.mechanisms import register

    register("site_probe", lambda cluster: None, capabilities=("multi_server", "start"))


def _register_variant_clash():
    from fairlib.mechanisms import register

    register(
        "site_probe", lambda cluster: None, capabilities=("multi_server",), variants={"drf": {}}
    )


def _select_unknown():
    from fairlib.mechanisms import select

    select("no_such_capability")


def _jain_all_zero():
    from fairlib.metrics import jain_index

    jain_index([0.0, 0.0])


def _leontief_shapes():
    from fairlib.multires.cluster import leontief_tasks

    leontief_tasks(np.ones((2, 3)), np.ones((4, 3)))


def _leontief_no_demand():
    from fairlib.multires.cluster import leontief_tasks

    leontief_tasks([1.0, 1.0], [0.0, 0.0])


def _placement_rows_not_a_cluster():
    from fairlib.multires.cluster import placement_capacity_rows

    placement_capacity_rows("cluster")


def _random_cluster_reversed_range():
    from fairlib.multires.cluster import random_cluster

    random_cluster(0, 3, 2, demand_range=(0.9, 0.1))


def _drawn(call):
    """A generator asked for more numbers than MAX_DRAWN: refused before it allocates (a raw
    MemoryError, or swapping, before)."""

    def site():
        import importlib

        module, _, name = call[0].rpartition(".")
        args = call[1]() if callable(call[1]) else call[1]  # built when the case runs
        getattr(importlib.import_module(module), name)(*args, **call[2])

    return site


#: (site, call, the counts its message names): one past MAX_DRAWN per check_drawn site
_DRAWN = [
    (
        "market.game:uniform_preferences",
        ("fairlib.market.game.uniform_preferences", (0, 10**6, 10**6), {}),
        "n_users x n_machines",
    ),
    (
        "market.game:correlated_preferences users x machines",
        ("fairlib.market.game.correlated_preferences", (0, 10**6, 10**6), {}),
        "n_users x n_machines",
    ),
    (
        "market.game:correlated_preferences users x dim",
        ("fairlib.market.game.correlated_preferences", (0, 10**5, 1), {"dim": 10**4}),
        "n_users x dim",
    ),
    (
        "market.game:correlated_preferences dim x machines",
        ("fairlib.market.game.correlated_preferences", (0, 1, 10**5), {"dim": 10**4}),
        "dim x n_machines",
    ),
    (
        "multires.cluster:random_cluster users x servers",
        ("fairlib.multires.cluster.random_cluster", (0, 10**6, 10**6), {}),
        "n_users x n_servers",
    ),
    (
        "multires.cluster:random_cluster users x resources",
        ("fairlib.multires.cluster.random_cluster", (0, 10**5, 1, 10**4), {}),
        "n_users x n_resources",
    ),
    (
        "multires.cluster:random_cluster servers x resources",
        ("fairlib.multires.cluster.random_cluster", (0, 1, 10**5, 10**4), {}),
        "n_servers x n_resources",
    ),
    (
        "multires.cluster:random_pool",
        ("fairlib.multires.cluster.random_pool", (0, 10**12), {}),
        "n_users x n_resources",
    ),
    (
        "traces.google:synthetic_task_requests",
        ("fairlib.traces.google.synthetic_task_requests", (0, 10**12), {}),
        "size x columns",
    ),
    (
        "traces.google:task_request_pool",
        (
            "fairlib.traces.google.task_request_pool",
            (),
            {"directory": "/nonexistent-fairlib-traces", "synthetic_size": 10**12},
        ),
        "synthetic_size x columns",
    ),
    (
        "repro.experiments.heterogeneous_servers:random_bottleneck_cluster users x servers",
        (
            "fairlib.repro.experiments.heterogeneous_servers.random_bottleneck_cluster",
            (0, 10**6, 1000),
            {},
        ),
        "n_users x n_servers",
    ),
    (
        "repro.experiments.heterogeneous_servers:random_bottleneck_cluster users x resources",
        (
            "fairlib.repro.experiments.heterogeneous_servers.random_bottleneck_cluster",
            (0, 10**6, 2, 1000),
            {},
        ),
        "n_users x n_resources",
    ),
    (
        "repro.experiments.precomputed_drf:random_single_pool",
        ("fairlib.repro.experiments.precomputed_drf.random_single_pool", (0, 10**6, 1000), {}),
        "n_users x n_resources",
    ),
    (
        "repro.experiments.precomputed_drf:DeviationExperiment",
        (
            "fairlib.repro.experiments.precomputed_drf.DeviationExperiment",
            (),
            {"n_users": 10**6, "n_resources": 1000},
        ),
        "n_users x n_resources",
    ),
    (
        "dynamic.analysis:maxsum_counterexample",
        ("fairlib.dynamic.analysis.maxsum_counterexample", (10**7,), {}),
        r"\(m \+ 1\) x m",
    ),
    (
        "dynamic.analysis:maxmin_tight_example",
        ("fairlib.dynamic.analysis.maxmin_tight_example", (10**5,), {}),
        r"\(m\^2 \+ 1\) x m",
    ),
    (
        "market.equilibrium:sqrt_m_construction",
        ("fairlib.market.equilibrium.sqrt_m_construction", (10**5,), {}),
        r"\(n\^2 \+ n\) x n",
    ),
    (
        "sim:location_eligibility",
        (
            "fairlib.sim.location_eligibility",
            lambda: (__import__("fairlib.traces", fromlist=["x"]).bitbrains_fleet(), 10**12, 0),
            {},
        ),
        r"n_users x fleet\.n_servers",
    ),
    (
        "traces.workload:google_fleet",
        ("fairlib.traces.workload.google_fleet", (10**14,), {}),
        "n_servers x resources",
    ),
]


def _edrf_allocation_not_a_cluster():
    from fairlib.multires.edrf import edrf_allocation

    edrf_allocation("cluster")


def _pdrf_task_overflow():
    # valid: user 0's task is 1e-30 of the pool, so its task count would pass int64
    from fairlib import pdrf

    pdrf([[1e-30, 1e-30], [1.0, 1.0]], [1.0, 1.0])


def _pdrf_rate_overflow():
    # valid alone: user 0 demands 1e300 times the pool (no task), user 1 a whole one
    from fairlib import pdrf

    pdrf([[1e300, 1.0], [1.0, 1.0]], [1.0, 1.0])


def _pdrf_allocation_not_a_cluster():
    from fairlib.multires.edrf import pdrf_allocation

    pdrf_allocation("cluster")


def _psmfa_start(x0):
    from fairlib.multires import psmfa

    psmfa(Cluster([[4.0, 4.0], [6.0, 2.0]], [[1.0, 2.0], [2.0, 1.0]]), 2.0, x0=x0)


def _psmfa_capped():
    from fairlib.multires import psmfa

    psmfa(Cluster([[4.0, 4.0]], [[1.0, 2.0], [2.0, 1.0]], max_tasks=[1.0, np.inf]), 2.0)


def _pfvds_time_shared_psmfa():
    from fairlib.multires import pfvds

    pfvds(_cluster(), 2.0, method="psmfa", time_shared=True)


def _pfvds_mixed_inf():
    from fairlib.multires import pfvds

    pfvds(_cluster(), [np.inf, 2.0])


def _penalty_prices_not_a_cluster():
    from fairlib.multires.pfvds._distributed import penalty_prices

    penalty_prices("cluster", np.ones((3, 2)), 1e3)


def _saturated_not_a_cluster():
    from fairlib.multires.pfvds.conditions import saturated_resources

    saturated_resources("cluster", np.ones((3, 2)))


def _feasible_start_not_a_cluster():
    from fairlib.multires.pfvds.conditions import random_feasible_start

    random_feasible_start(0, "cluster")


def _feasible_start_bad_rng():
    from fairlib.multires.pfvds.conditions import random_feasible_start

    random_feasible_start("seed", _cluster())


def _descent_rate_not_a_cluster():
    from fairlib.multires.pfvds.stalls import descent_rate

    descent_rate("cluster", 2.0, np.ones((3, 2)), np.ones((2, 2)), [1.0, 0.5])


def _descent_rate_bad_tol():
    from fairlib.multires.pfvds.stalls import descent_rate

    descent_rate(_cluster(), 2.0, np.ones((3, 2)), np.ones((2, 2)), [1.0, 0.5], tol=float("nan"))


def _drf_cluster_with_zeros():
    from fairlib.multires import drf

    drf(_pool(), zeros="scheduler")


def _drf_scheduler_zeros_bad_demands():
    from fairlib.multires import drf

    drf([[1.0, float("nan")], [0.0, 0.0]], [4.0, 0.0], zeros="scheduler")


def _drf_allocation_not_a_cluster():
    from fairlib.multires.progressive_filling import drf_allocation

    drf_allocation("cluster")


def _drf_allocation_weights():
    from fairlib.multires.progressive_filling import drf_allocation

    drf_allocation(_pool(), weights=[1.0, 2.0])


def _psdsf_violation_infeasible():
    from fairlib.multires.psdsf import psdsf_violation

    psdsf_violation(_cluster(), np.full((3, 2), 100.0))


def _hierarchical_tree_with_weights():
    from fairlib.multires.schedulers.hierarchy import hierarchical_drf, queue_tree

    tree = queue_tree(["a/x", "a/y"])
    hierarchical_drf([[1.0, 2.0], [2.0, 1.0]], [9.0, 9.0], tree, weights={"a": 1.0})


def _hierarchical_tree_of_another_size():
    from fairlib.multires.schedulers.hierarchy import hierarchical_drf, queue_tree

    tree = queue_tree(["a/x", "a/y", "b"])
    hierarchical_drf([[1.0, 2.0], [2.0, 1.0]], [9.0, 9.0], tree)


def _sorter_resources():
    from fairlib.multires.schedulers.sorter import DRFSorter

    DRFSorter([9.0, 18.0], resources=["cpu", "mem", "disk"])


def _sorter_empty_client():
    from fairlib.multires.schedulers.sorter import DRFSorter

    DRFSorter([9.0, 18.0]).add("")


def _psdsf_bounds_time_limit():
    from fairlib.multires.checks.psdsf_range import psdsf_utilisation_bounds

    psdsf_utilisation_bounds(_cluster(), 0, time_limit=float("nan"))


def _utilisation_range_resourceless_servers():
    from fairlib.multires.checks.utilisation_range import utilisation_range

    c = Cluster([[4.0, 0.0], [6.0, 2.0]], [[1.0, 2.0], [2.0, 1.0]])
    utilisation_range(c, [1.0, 1.0], [0], 1)


def _psdsf_bounds_resourceless_servers():
    from fairlib.multires.checks.psdsf_range import psdsf_utilisation_bounds

    c = Cluster([[4.0, 0.0], [6.0, 2.0]], [[1.0, 2.0], [2.0, 1.0]])
    psdsf_utilisation_bounds(c, 1, [0])


def _fleet(location=True):
    from fairlib.traces import Fleet

    return Fleet(
        np.array([[1.0, 1.0], [0.5, 0.5]]),
        ("cpu_normalised", "memory_normalised"),
        np.array(["A", "B"]),
        "synthetic",
        location=np.array([0, 1]) if location else None,
    )


def _location_eligibility_no_locations():
    from fairlib.sim import location_eligibility

    location_eligibility(_fleet(location=False), 3, 0)


def _jobs(**fields):
    from fairlib.sim import Jobs

    base = dict(
        ids=np.array([1, 2]),
        arrival=np.array([0.0, 5.0]),
        trace_end=np.array([600.0, 900.0]),
        offsets=np.array([0, 1, 2]),
        work=np.array([10.0, 10.0]),
        shape=np.array([[1.0, 0.5], [1.0, 0.5]]),
        resources=("cpu_normalised", "memory_normalised"),
        source="synthetic",
    )
    return Jobs(**{**base, **fields})


def _jobs_empty_job():
    _jobs(offsets=np.array([0, 0, 2]))


def _jobs_segment_times_text():
    _jobs(segment_start=np.array(["a", "b"]), segment_end=np.array([600.0, 900.0]))


def _replay_resources_differ():
    from fairlib.sim import open_loop, replay

    fleet = _fleet()
    fleet = type(fleet)(
        fleet.capacity, ("cpu", "memory"), fleet.server_class, fleet.source, location=fleet.location
    )
    jobs = _jobs()
    for run in (lambda: replay(fleet, jobs, "drfh"), lambda: open_loop(fleet, jobs, ["drfh"])):
        with pytest.raises(InvalidInputError, match=r"fleet\.resources"):
            run()
    raise InvalidInputError("both refused")


def _open_loop_no_mechanism():
    from fairlib.sim import open_loop

    open_loop(_fleet(), _jobs(), {})


def _write_vm_missing_columns(tmp_path):
    from fairlib.traces.bitbrains import write_vm

    write_vm(tmp_path / "1.csv", pd.DataFrame({"time": [0]}))


def _files_for_unknown_table():
    from fairlib.traces.fetch import files_for

    files_for("google", tables=["no_such_table"])


def _fetch_dest_not_a_path():
    from fairlib.traces.fetch import fetch

    fetch("google", dest=3)


def _fetch_dest_under_a_file(tmp_path):
    from fairlib.traces.fetch import fetch

    (tmp_path / "file").write_text("x")
    fetch("google", dest=tmp_path / "file" / "below")


def _machine_configurations_missing():
    from fairlib.traces.google import machine_configurations

    machine_configurations(pd.DataFrame({"time": [0]}))


def _task_event_demands_missing():
    from fairlib.traces import task_event_demands

    task_event_demands(pd.DataFrame({"time": [0]}))


def _task_event_demands_nothing_runs():
    from fairlib.traces import task_event_demands

    events = pd.DataFrame(
        {
            "time": [600_000_000],
            "job_id": [7],
            "task_index": [0],
            "event_type": [4],
            "cpu_request": [0.25],
            "memory_request": [0.5],
            "scheduling_class": [2],
        }
    )
    task_event_demands(events, horizon=900.0)


def _task_usage_demands_missing():
    from fairlib.traces.google import task_usage_demands

    task_usage_demands(pd.DataFrame({"start_time": [0]}))


def _google_fleet_configurations_missing():
    from fairlib.traces import google_fleet

    google_fleet(4, 2, 0, configurations=pd.DataFrame({"cpus": [0.5]}))


def _google_fleet_configurations_text():
    from fairlib.traces import google_fleet

    google_fleet(
        4,
        2,
        0,
        configurations=pd.DataFrame({"cpus": ["a"], "memory": [0.5], "machines": [3]}),
    )


def _google_workload_missing():
    from fairlib.traces import google_workload

    google_workload(pd.DataFrame({"time": [0]}))


def _peak_bandwidth_text():
    from fairlib.traces.workload import peak_total_bandwidth

    peak_total_bandwidth(
        pd.DataFrame(
            {
                "vm": [1],
                "time": [0],
                "active": [True],
                "disk_read_kbps": ["a"],
                "disk_write_kbps": [0.0],
                "net_rx_kbps": [0.0],
                "net_tx_kbps": [0.0],
            }
        )
    )


def _bitbrains_workload_missing():
    from fairlib.traces import bitbrains_workload

    bitbrains_workload(pd.DataFrame({"vm": [1]}))


def _single_pool_capacity():
    Cluster.single_pool([9.0, -1.0], [[1.0, 4.0]])


def _allocation_shape():
    from fairlib.multires import Allocation

    Allocation(_cluster(), np.ones((2, 2)), "probe")


def _quota_lp_quotas():
    from fairlib.multires.lp import quota_maxmin_lp

    quota_maxmin_lp([[1, 4], [3, 1]], [9, 18], None)


def _quota_lp(**kwargs):
    from fairlib.multires import Quotas
    from fairlib.multires.lp import quota_maxmin_lp

    quota_maxmin_lp([[1, 4], [3, 1]], [9, 18], Quotas.yarn(min_share=[[4, 16], [0, 0]]), **kwargs)


def _hierarchy_node():
    from fairlib.multires.schedulers.hierarchy import hierarchical_drf

    hierarchical_drf([[1.0, 2.0], [2.0, 1.0]], [9.0, 9.0], ["a/x", "a/y"]).node("no/such")


def _files_for_single_part():
    from fairlib.traces.fetch import files_for

    files_for("google", tables=["schema"], parts=[3])


def _files_for_endless_parts():
    from fairlib.traces.fetch import files_for

    files_for("google", parts=range(10**12))


def _synthetic_usage_endless_parts():
    from fairlib.traces.synthetic import synthetic_task_usage

    synthetic_task_usage(None, 0, parts=range(10**12))


def _warm_jobs():
    from fairlib.repro.warm import MAX_JOBS, warm

    warm(progress=False, jobs=MAX_JOBS + 1, only=[])


def _save_figure_too_wide():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from fairlib.repro.outputs import save_figure
    from fairlib.repro.plotting import MAX_SAVED_WIDTH

    fig = plt.figure(figsize=(MAX_SAVED_WIDTH + 5, 2))
    try:
        save_figure(fig, "probe", "wide", mode="quick")
    finally:
        plt.close(fig)


def _register_capabilities_not_text():
    from fairlib.mechanisms import register

    register("site_probe", lambda cluster: None, capabilities=[1, "no_such_capability"])


def _register_game_capabilities_not_text():
    from fairlib.games import register_game

    register_game("site_probe", lambda game: None, capabilities=[1, "no_such_capability"])


def _refuse_unsupported_not_a_game():
    from fairlib.games import get

    get("proportional_share").refuse_unsupported("game")


def _proportional_share_exact_eps():
    from fairlib.market import proportional_share

    proportional_share(_game(), eps=0.0)


def _table(**kwargs):
    from fairlib.repro.tables import table

    table(kwargs.pop("df", pd.DataFrame({"a": [1.0]})), **kwargs)


def _scientific_digits():
    from fairlib.repro.prose import scientific

    scientific(1.0, 0)


def _claim_log(rule: str):
    from fairlib.repro.ledger import ClaimLog

    return ClaimLog(
        "demo",
        write=False,
        registry=f'[[claim]]\nid = "t"\nkind = "paper"\nsource = "§1"\nstatement = "s"\n{rule}\n',
    )


def _table_two_columns(names):
    from fairlib.repro.tables import table

    table(pd.DataFrame({"a": [1], "b": [2]}), names=names)


def _running_note_mode():
    from fairlib.repro.prose import running_note

    running_note("feldman2005", "medium", seconds=300)


def _warm_unknown_step():
    from fairlib.repro.warm import warm

    warm(progress=False, only=["no_such_step"])


def _save_figure_not_a_figure():
    from fairlib.repro.outputs import save_figure

    save_figure("figure", "probe", "narrow", mode="quick")


def _edrf_scan_error():
    from fairlib.multires import edrf

    edrf([[np.nan, 1.0], [1.0, 1.0]], [1.0, 1.0])


def _percent_sign_of_zero():
    from fairlib.repro.prose import percent

    percent(0, sign="yes")


def _refresh_findings_root():
    from fairlib.repro.executed import refresh_findings

    refresh_findings("feldman2005", 123)


def _filling_task_bound():
    from fairlib.multires import drf

    drf(Cluster.single_pool([1.0], [[2.0**-62]]))


class _CountedMechanism:
    """DRF, counting its runs: a refusal of the other arguments must come before any run."""

    def __init__(self):
        self.runs = 0

    def __call__(self, cluster):
        from fairlib.multires import drf

        self.runs += 1
        return drf(cluster)


def _refused_before_a_run(call):
    mechanism = _CountedMechanism()
    try:
        call(mechanism)
    finally:
        assert mechanism.runs == 0, f"the mechanism ran {mechanism.runs} times before the refusal"


def _strategyproofness_cluster():
    from fairlib.properties import strategyproofness_violation

    _refused_before_a_run(lambda m: strategyproofness_violation(m, "pool"))


def _strategyproofness_rng():
    from fairlib.properties import strategyproofness_violation

    _refused_before_a_run(lambda m: strategyproofness_violation(m, _pool(), rng="abc"))


def _mechanism_properties_cluster():
    from fairlib.properties import mechanism_properties

    _refused_before_a_run(lambda m: mechanism_properties(m, "pool"))


def _paper(**change):
    from fairlib.repro.catalog import Paper

    fields = dict(
        authors=(("Doe", "Jane"),),
        title="A Title",
        venue_kind="article",
        venue="A Journal",
        year=2024,
        url="https://example.org/paper",
    )
    Paper(**{**fields, **change})


def _allocation(**change):
    from fairlib.multires import Allocation

    fields = {"cluster": _pool(), "tasks": np.zeros((2, 1)), "method": "m", **change}
    Allocation(**fields)


def _contract_example(name):
    """A valid call's arguments from the API contract's baselines (built on first use)."""
    from tests import test_api_contract as contract

    return contract.EXAMPLES[name]()


def _with_cell(frame, column, value, row=0):
    frame = frame.copy()
    if value is not None and not isinstance(value, (int, float)):
        frame[column] = frame[column].astype(object)
    frame.loc[frame.index[row], column] = value
    return frame


def _random_single_pool(**change):
    from fairlib.repro.experiments.precomputed_drf import random_single_pool

    random_single_pool(0, 2, 2, **change)


def _claim_changes(committed=(), sensitive=None):
    from fairlib.repro.verify import claim_changes

    claim_changes(list(committed), [], sensitive=sensitive)


def _drf_zeros(**change):
    from fairlib.multires import drf

    call = {"demands": [[1.0, 1.0], [1.0, 0.0]], "capacity": [1.0, 1.0], **change}
    drf(**call, zeros="scheduler")


def _per_step_times(**change):
    from fairlib.repro.experiments.dynamic_drf import per_step_times

    per_step_times([2], **{"methods": ["linear"], "repeat": 1, **change})


def _random_order_runs_negative_count(per_n=True):
    from fairlib.repro.experiments.dynamic_drf import random_order_runs

    (pool, ns, _, rng), options = _contract_example(
        "fairlib.repro.experiments.dynamic_drf.random_order_runs"
    )
    random_order_runs(pool, ns, {n: -1 for n in ns} if per_n else -1, rng, **options)


def _run_dynamics_rng():
    from fairlib.market import run_dynamics

    run_dynamics(_game(), rng="abc")


def _driver_table(name, column, value, position=0):
    """The contract's valid call of driver ``name`` with one cell of its ``position``-th table
    argument replaced."""
    import importlib

    args, options = _contract_example(name)
    args = list(args)
    args[position] = _with_cell(args[position], column, value)
    module, _, function = name.rpartition(".")
    getattr(importlib.import_module(module), function)(*args, **options)


_HS = "fairlib.repro.experiments.heterogeneous_servers."
_ATLAS = "fairlib.repro.experiments.mechanism_atlas."


def _theorem_findings_without_solver():
    from fairlib.repro.experiments.heterogeneous_servers import theorem_findings

    (theorem, alpha_table), options = _contract_example(_HS + "theorem_findings")
    theorem_findings(theorem, alpha_table.drop(columns="solver"), **options)


def _atlas_violation_text():
    from fairlib.repro.experiments.mechanism_atlas import per_mechanism

    (parts,), _ = _contract_example(_ATLAS + "concat_tables")
    per_mechanism(_with_cell(parts[0], "SI", "x"))


def _concat_negative_instant():
    from fairlib.repro.experiments.mechanism_atlas import concat_tables

    (parts,), _ = _contract_example(_ATLAS + "concat_tables")
    concat_tables([_with_cell(parts[0], "at_s", -1.0), *parts[1:]])


def _definition4_negative():
    from fairlib.repro.experiments.heterogeneous_traces import definition4_finding

    (summary,), _ = _contract_example(
        "fairlib.repro.experiments.heterogeneous_traces.definition4_finding"
    )
    column = next(c for c in summary.columns if "definition4" in c)
    definition4_finding(_with_cell(summary, column, -1.0))


def _negative_cpu_request(reader):
    from fairlib import traces
    from tests import test_api_contract as contract

    events = contract.EXAMPLES["fairlib.traces.task_event_demands"]()[0][0]
    getattr(traces, reader)(_with_cell(events, "cpu_request", -0.1))


def _queue_tree_weight_text():
    from fairlib.multires import queue_tree

    queue_tree(["a", "b"], weights={"a": "x"})


#: site (module:function) -> (the bad call, what its refusal says)
SITES = {
    # a count of steps is whole: a bound of 7.5 tasks is 7 steps
    "multires.progressive_filling:filling_bounds whole steps": (
        lambda: __import__("fairlib").drf([[1.0]], [7.5], max_allocations=6),
        r"could take up to 7 steps \(one per task\), more than max_allocations = 6",
    ),
    "market.dynamics:run_dynamics initial_bids shape": (
        _run_dynamics_bad_shape,
        r"initial_bids: expected shape \(3, 2\)",
    ),
    "market.equilibrium:equilibrium_violation idle user": (
        _equilibrium_violation_idle_user,
        r"bids\[1\]: user 1 bids nothing",
    ),
    "market.outcome:GameOutcome method": (_game_outcome_method, r"method = 1: must be a str"),
    "mechanisms:register start": (_register_start_without_argument, r"declares 'start'"),
    "mechanisms:register variants": (_register_variant_clash, r"variants: \['drf'\]"),
    "mechanisms:register capabilities": (
        _register_capabilities_not_text,
        r"every capability is a name",
    ),
    "games:register_game capabilities": (
        _register_game_capabilities_not_text,
        r"every capability is a name",
    ),
    "games:GameMechanism.refuse_unsupported": (_refuse_unsupported_not_a_game, r"game = 'game'"),
    "market.proportional_share:eps": (
        _proportional_share_exact_eps,
        r"eps = 0\.0: must be a finite number > 0",
    ),
    "mechanisms:select": (_select_unknown, r"capabilities: \['no_such_capability'\] unknown"),
    "metrics:jain_index zeros": (_jain_all_zero, r"values: all zero"),
    "multires.cluster:leontief_tasks shapes": (_leontief_shapes, r"do not broadcast"),
    "multires.cluster:leontief_tasks demand": (_leontief_no_demand, r"demand: a user must demand"),
    "multires.cluster:placement_capacity_rows": (
        _placement_rows_not_a_cluster,
        r"cluster = 'cluster'",
    ),
    "multires.cluster:random_cluster demand_range": (
        _random_cluster_reversed_range,
        r"demand_range = \(0\.9, 0\.1\)",
    ),
    "multires.edrf:edrf_allocation": (_edrf_allocation_not_a_cluster, r"cluster = 'cluster'"),
    "multires.edrf:pdrf_allocation": (_pdrf_allocation_not_a_cluster, r"cluster = 'cluster'"),
    "multires.edrf:_check_rates": (_pdrf_rate_overflow, r"the largest rate\) = 1e\+300"),
    "multires.edrf:pdrf task bound": (_pdrf_task_overflow, r"capacity / demands\[0\] = 1e\+30"),
    "multires.pfvds:pfvds time_shared": (_pfvds_time_shared_psmfa, r"time_shared=True needs"),
    "multires.pfvds:pfvds mixed alpha": (_pfvds_mixed_inf, r"alpha: mixing np\.inf"),
    "multires.pfvds._psmfa:psmfa x0 over capacity": (
        lambda: _psmfa_start([[100.0, 100.0], [100.0, 100.0]]),
        r"^x0: server 0 uses 300 of resource 0, capacity 4",
    ),
    "multires.pfvds._psmfa:psmfa x0 idle user": (
        lambda: _psmfa_start([[1.0, 0.5], [0.0, 0.0]]),
        r"^x0\[1\] = \[0\.0, 0\.0\]: user 1 holds no tasks",
    ),
    "multires.pfvds._psmfa:psmfa x0 overflow": (
        lambda: _psmfa_start([[1e-300, 0.0], [1.0, 1.0]]),
        r"^x0\[0\] = \[1e-300, 0\.0\]: user 0 holds so few tasks that its marginal",
    ),
    "multires.pfvds._psmfa:psmfa caps": (
        _psmfa_capped,
        r"^max_tasks\[0\] = 1\.0: psmfa does not honour per-user caps",
    ),
    "multires.pfvds._distributed:penalty_prices": (
        _penalty_prices_not_a_cluster,
        r"cluster = 'cluster'",
    ),
    "multires.pfvds.conditions:saturated_resources": (
        _saturated_not_a_cluster,
        r"cluster = 'cluster'",
    ),
    "multires.pfvds.conditions:random_feasible_start cluster": (
        _feasible_start_not_a_cluster,
        r"cluster = 'cluster'",
    ),
    "multires.pfvds.conditions:random_feasible_start rng": (
        _feasible_start_bad_rng,
        r"rng = 'seed'",
    ),
    "multires.pfvds.stalls:descent_rate cluster": (
        _descent_rate_not_a_cluster,
        r"cluster = 'cluster'",
    ),
    "multires.pfvds.stalls:descent_rate tol": (_descent_rate_bad_tol, r"tol = nan"),
    "multires.progressive_filling:drf zeros": (_drf_cluster_with_zeros, r"zeros = 'scheduler'"),
    "multires.progressive_filling:_drf_with_zeros demands": (
        _drf_scheduler_zeros_bad_demands,
        r"demands\[0, 1\] = nan",
    ),
    "multires.progressive_filling:drf_allocation cluster": (
        _drf_allocation_not_a_cluster,
        r"cluster = 'cluster'",
    ),
    "multires.progressive_filling:drf_allocation weights": (
        _drf_allocation_weights,
        r"weights: on a cluster",
    ),
    "multires.psdsf:psdsf_violation": (_psdsf_violation_infeasible, r"tasks: infeasible"),
    "multires.schedulers.hierarchy:hierarchical_drf weights": (
        _hierarchical_tree_with_weights,
        r"weights: a QueueTree carries its weights",
    ),
    "multires.schedulers.hierarchy:hierarchical_drf paths": (
        _hierarchical_tree_of_another_size,
        r"paths: a QueueTree with 3 users, expected 2",
    ),
    "multires.schedulers.sorter:DRFSorter resources": (_sorter_resources, r"resources: expected 2"),
    "multires.schedulers.sorter:DRFSorter client": (_sorter_empty_client, r"name = '': blank"),
    "multires.checks.psdsf_range:time_limit": (_psdsf_bounds_time_limit, r"time_limit = nan"),
    "multires.checks.psdsf_range:servers": (
        _psdsf_bounds_resourceless_servers,
        r"servers: hold none of resource 1",
    ),
    "multires.checks.utilisation_range:servers": (
        _utilisation_range_resourceless_servers,
        r"servers: hold none of resource 1",
    ),
    "sim:location_eligibility": (_location_eligibility_no_locations, r"fleet: has no server"),
    "sim:Jobs offsets": (_jobs_empty_job, r"jobs\.offsets\[0:2\] = \[0, 0\]"),
    "sim:Jobs segment times": (_jobs_segment_times_text, r"jobs\.segment_start"),
    "sim:replay and open_loop resources": (_replay_resources_differ, r"both refused"),
    "sim:open_loop mechanisms": (_open_loop_no_mechanism, r"mechanisms: none to run"),
    "traces.fetch:files_for table": (_files_for_unknown_table, r"table = 'no_such_table'"),
    "traces.fetch:files_for parts": (_files_for_single_part, r"has a single part"),
    "multires.checks.utilisation_range:utilisation_range servers": (
        lambda: __import__(
            "fairlib.multires.checks.utilisation_range", fromlist=["x"]
        ).utilisation_range(Cluster([[4.0, 4.0], [6.0, 2.0]], [[1.0, 2.0]]), [1.0], [1, True], 0),
        r"servers\[1\] = True: booleans are not numbers",
    ),
    "multires.checks.psdsf_range:psdsf_utilisation_bounds servers": (
        lambda: __import__(
            "fairlib.multires.checks.psdsf_range", fromlist=["x"]
        ).psdsf_utilisation_bounds(Cluster([[4.0, 4.0], [6.0, 2.0]], [[1.0, 2.0]]), 0, [1, 1]),
        r"servers\[1\] = 1: server 1 is given more than once",
    ),
    "traces.fetch:files_for endless parts": (_files_for_endless_parts, r"parts: more than 500 "),
    "traces.synthetic:synthetic_task_usage endless parts": (
        _synthetic_usage_endless_parts,
        r"parts: more than 500 items",
    ),
    "multires.cluster:Cluster.single_pool": (_single_pool_capacity, r"capacity\[1\] = -1\.0"),
    "multires.cluster:Allocation tasks": (
        _allocation_shape,
        r"tasks = .*: expected shape \(3, 2\)",
    ),
    "multires.lp:quota_maxmin_lp quotas": (_quota_lp_quotas, r"quotas: expected a Quotas"),
    "multires.lp:quota_maxmin_lp per_task_share shape": (
        lambda: _quota_lp(per_task_share=[1.0]),
        r"per_task_share: expected shape \(2,\)",
    ),
    "multires.lp:quota_maxmin_lp per_task_share value": (
        lambda: _quota_lp(per_task_share=[1.0, 0.0]),
        r"per_task_share\[1\] = 0\.0",
    ),
    "multires.schedulers.hierarchy:HierarchicalDRFResult.node": (
        _hierarchy_node,
        r"path = 'no/such': no such node",
    ),
    "repro.tables:table df": (
        lambda: _table(df="frame"),
        r"df = 'frame': expected a pandas DataFrame",
    ),
    "repro.tables:table names": (
        lambda: _table(names={"b": "B"}),
        r"names: \['b'\] are not columns",
    ),
    "repro.tables:table decimals": (
        lambda: _table(decimals={"b": 1}),
        r"decimals: \['b'\] are not columns",
    ),
    "repro.prose:scientific digits": (_scientific_digits, r"digits = 0: must be an integer >= 1"),
    "repro.prose:running_note mode": (_running_note_mode, r"mode = 'medium'"),
    "repro.warm:warm only": (_warm_unknown_step, r"only: no warm-up step named 'no_such_step'"),
    "repro.outputs:save_figure fig": (
        _save_figure_not_a_figure,
        r"fig = 'figure': expected a matplotlib",
    ),
    "repro.warm:warm jobs": (_warm_jobs, r"jobs = 65: must be an integer from 1 to 64"),
    "repro.outputs:save_figure width": (_save_figure_too_wide, r"inches wide as saved"),
    "traces.fetch:fetch dest": (_fetch_dest_not_a_path, r"dest = 3: must be a directory path"),
    "traces.google:machine_configurations": (
        _machine_configurations_missing,
        r"machine_events: missing columns",
    ),
    "traces.google:task_event_demands columns": (
        _task_event_demands_missing,
        r"task_events: missing columns",
    ),
    "traces.google:task_event_demands nothing runs": (
        _task_event_demands_nothing_runs,
        r"task_events: no task runs at any interval start",
    ),
    "traces.google:task_usage_demands": (
        _task_usage_demands_missing,
        r"task_usage: missing columns",
    ),
    "traces.workload:google_fleet missing": (
        _google_fleet_configurations_missing,
        r"configurations: missing columns",
    ),
    "traces.workload:google_fleet text": (
        _google_fleet_configurations_text,
        r"configurations row 0 \(index 0\), column 'cpus' = 'a': must be a number",
    ),
    "traces.workload:google_workload": (_google_workload_missing, r"task_events: missing columns"),
    "traces.workload:peak_total_bandwidth": (
        _peak_bandwidth_text,
        r"vms row 0 \(index 0\), column 'disk_read_kbps' = 'a': must be a number",
    ),
    "traces.workload:bitbrains_workload": (_bitbrains_workload_missing, r"vms: missing columns"),
    "multires.edrf:edrf scan error": (_edrf_scan_error, r"demands\[0, 0\] = nan"),
    "repro.prose:percent sign": (_percent_sign_of_zero, r"sign = 'yes'"),
    "repro.executed:refresh_findings root": (_refresh_findings_root, r"executed_dir = 123"),
    "multires.progressive_filling:filling_bounds task bound": (
        _filling_task_bound,
        r"capacity / demands\[0\] = 4\.6",
    ),
    "properties:strategyproofness_violation cluster": (
        _strategyproofness_cluster,
        r"cluster = 'pool'",
    ),
    "properties:strategyproofness_violation rng": (_strategyproofness_rng, r"rng = 'abc'"),
    "properties:mechanism_properties cluster": (_mechanism_properties_cluster, r"cluster = 'pool'"),
    "multires.cluster:Allocation cluster": (
        lambda: _allocation(cluster="pool"),
        r"^cluster = 'pool': must be a Cluster",
    ),
    "multires.cluster:Allocation iterations": (
        lambda: _allocation(iterations=-1),
        r"^iterations = -1: must be an integer >= 0",
    ),
    "multires.cluster:Allocation method": (
        lambda: _allocation(method="\u200b"),
        r"^method = '\\u200b': blank",
    ),
    "multires.cluster:Allocation extras": (
        lambda: _allocation(extras=[("a", 1)]),
        r"^extras = \[\('a', 1\)\]: must be a Mapping",
    ),
    "repro.experiments.precomputed_drf:_int_range low": (
        lambda: _random_single_pool(reserve_range=(0, 5)),
        r"reserve_range\[0\] = 0: must be an integer >= 1",
    ),
    "repro.experiments.precomputed_drf:_int_range high": (
        lambda: _random_single_pool(reserve_range=(5, 2)),
        r"reserve_range\[1\] = 2: must be an integer >= 5",
    ),
    "sweep:_grid_points invisible name": (
        lambda: __import__("fairlib.sweep").sweep.sweep(
            lambda seed, x: {"y": 1.0}, [{"\u200b": 1}]
        ),
        r"^grid point 0: parameter name = '\\u200b': blank",
    ),
    "sweep:sweep fixed key": (
        lambda: __import__("fairlib.sweep").sweep.sweep(
            lambda seed, x, y: {"z": 1.0}, {"x": [1]}, fixed={"y ": 1}
        ),
        r"^fixed: key = 'y ': has whitespace at an end",
    ),
    "repro.plotting:caption_problems marks text": (
        lambda: __import__("fairlib.repro.plotting").repro.plotting.caption_problems(
            "PS-DSF", {"texts": ["PS-DSF", 1], "markers": [], "linestyles": []}
        ),
        r"^marks\['texts'\]\[1\] = 1",
    ),
    "repro.catalog:Paper author name": (
        lambda: _paper(authors=(("Feldman", "\u200b"),)),
        r"^authors\[0\]\[1\] = '\\u200b': blank",
    ),
    "repro.verify:_text_mapping key": (
        lambda: _claim_changes(sensitive={1: "x"}),
        r"sensitive \(a key\) = 1",
    ),
    "repro.verify:_text_mapping reason": (
        lambda: _claim_changes(sensitive={"k": 1}),
        r"sensitive\['k'\] = 1",
    ),
    "repro.verify:_claims": (lambda: _claim_changes(committed=[1]), r"committed\[0\] = 1"),
    "multires.progressive_filling:_drf_with_zeros capacity": (
        lambda: _drf_zeros(capacity=[np.nan, 1.0]),
        r"capacity\[0\] = nan",
    ),
    "multires.progressive_filling:_drf_with_zeros weights": (
        lambda: _drf_zeros(weights=[-1.0, 1.0]),
        r"weights\[0\] = -1\.0: weights must be >= 0",
    ),
    "repro.experiments.dynamic_drf:_methods": (
        lambda: _per_step_times(methods=["nope"]),
        r"methods\[0\] = 'nope': must be one of",
    ),
    "repro.experiments.dynamic_drf:per_step_times repeat": (
        lambda: _per_step_times(methods=["lp"], repeat=0),
        r"repeat = 0: must be an integer >= 1",
    ),
    "repro.experiments.dynamic_drf:_per_n": (
        _random_order_runs_negative_count,
        r"orders\[2\] = -1: must be an integer >= 1",
    ),
    "repro.experiments.dynamic_drf:_per_n one count": (
        lambda: _random_order_runs_negative_count(per_n=False),
        r"orders = -1: must be an integer >= 1",
    ),
    "market.dynamics:run_dynamics rng": (_run_dynamics_rng, r"rng = 'abc'"),
    "repro.experiments.heterogeneous_servers:theorem_findings": (
        _theorem_findings_without_solver,
        r"alpha_table: no column 'solver'",
    ),
    "repro.experiments.heterogeneous_servers:approach_per_instance": (
        lambda: _driver_table(_HS + "approach_per_instance", "definition4_gap", -1.0),
        r"alpha_table row 0 \(index 0\), column 'definition4_gap' = -1\.0",
    ),
    "repro.experiments.mechanism_atlas:_atlas_table violations": (
        _atlas_violation_text,
        r"table row 0 \(index 0\), column 'SI' = 'x': must be a number",
    ),
    "repro.experiments.mechanism_atlas:concat_tables": (
        _concat_negative_instant,
        r"parts\[0\] row 0 \(index 0\), column 'at_s' = -1\.0",
    ),
    "repro.experiments.heterogeneous_traces:_definition4_table": (
        _definition4_negative,
        r"summary row 0 \(index 'PS-DSF'\), column 'cpu_definition4_low' = -1\.0",
    ),
    "traces.google:task_event_demands request": (
        lambda: _negative_cpu_request("task_event_demands"),
        r"task_events row 0 \(index 0\), column 'cpu_request' = -0\.1: must be finite and >= 0",
    ),
    "traces.workload:google_workload request": (
        lambda: _negative_cpu_request("google_workload"),
        r"task_events row 0 \(index 0\), column 'cpu_request' = -0\.1: must be finite and >= 0",
    ),
    "multires.cluster:Allocation converged": (
        lambda: _allocation(converged="yes"),
        r"^converged = 'yes': must be True or False",
    ),
    "multires.schedulers.hierarchy:queue_tree weights": (
        _queue_tree_weight_text,
        r"weights\['a'\] = 'x': must be a finite number > 0",
    ),
    "repro.tables:table names one header twice": (
        lambda: _table_two_columns({"a": "X", "b": "X"}),
        r"^names = \{'a': 'X', 'b': 'X'\}: columns \['a', 'b'\] show under one header 'X'",
    ),
    "repro.tables:table names another column's header": (
        lambda: _table_two_columns({"a": "b"}),
        r"^names = \{'a': 'b'\}: columns \['a', 'b'\] show under one header 'b'",
    ),
    "repro.tables:table two columns of one human header": (
        lambda: __import__("fairlib.repro.tables").repro.tables.table(
            pd.DataFrame({"a b": [1], "a_b": [2]})
        ),
        r"^df: columns \['a b', 'a_b'\] show under one header 'a b'",
    ),
    "repro.ledger:ClaimLog.measure runs a tol rule does not read": (
        lambda: _claim_log("paper_value = 0.5\ntol = 0.01").measure("t", 0.5, runs=7),
        r"^claim 't': runs = 7 given, but its rule .* does not read the number of runs",
    ),
    "repro.ledger:ClaimLog.measure monotone Series out of order": (
        lambda: _claim_log('monotone = { direction = "increasing" }').measure(
            "t", pd.Series([1.0, 2.0, 3.0], index=[3, 1, 2])
        ),
        r"^ours = .*: claim 't': rule .* reads the series by position.*index \[3, 1, 2\] is not "
        r"sorted",
    ),
    "repro.ledger:ClaimLog.measure converges Series repeated index": (
        lambda: _claim_log("paper_value = 1.0\nconverges = { final_gap = 0.1 }").measure(
            "t", pd.Series([0.5, 0.9, 0.95], index=[1, 2, 2])
        ),
        r"index \[1, 2, 2\] is not sorted ascending without repeats",
    ),
    "repro.ledger:ClaimLog.measure ordered series out of order": (
        lambda: _claim_log('ordered = { series = ["a", "b"], direction = "descending" }').measure(
            "t",
            {"a": pd.Series([3.0, 2.0], index=[2, 1]), "b": pd.Series([1.0, 0.0], index=[2, 1])},
        ),
        r"^ours\['a'\] = .*: claim 't'.*index \[2, 1\] is not sorted",
    ),
    "repro.ledger:ClaimLog.measure ordered series of other indexes": (
        lambda: _claim_log('ordered = { series = ["a", "b"], direction = "descending" }').measure(
            "t",
            {"a": pd.Series([3.0, 2.0], index=[1, 2]), "b": pd.Series([1.0, 0.0], index=[2, 3])},
        ),
        r"compares its series point by point, but their indexes differ",
    ),
    "repro.ledger:ClaimLog empty registry text": (
        lambda: __import__("fairlib.repro.ledger").repro.ledger.ClaimLog(
            "demo", write=False, registry=""
        ),
        r"^registry = '': declares no claims",
    ),
    "repro.ledger:ClaimLog empty registry list": (
        lambda: __import__("fairlib.repro.ledger").repro.ledger.ClaimLog(
            "demo", write=False, registry=[]
        ),
        r"^registry = \[\]: declares no claims",
    ),
    "repro.ledger:ClaimLog registry a path as str": (
        lambda: __import__("fairlib.repro.ledger").repro.ledger.ClaimLog(
            "demo", write=False, registry="/tmp/x.toml"
        ),
        r"^registry = '/tmp/x.toml': .* is not TOML .*a str is read as TOML text, not as a path",
    ),
    "repro.experiments.google_open_loop:time_averaged": (
        lambda: _driver_table(
            "fairlib.repro.experiments.google_open_loop.time_averaged", "active_jobs", -1.0
        ),
        r"table row 0 \(index 0\), column 'active_jobs' = -1\.0",
    ),
}

SITES.update(
    {
        f"{site} MAX_DRAWN": (
            _drawn(call),
            rf"{names} = .* numbers to draw: must be at most MAX_DRAWN",
        )
        for site, call, names in _DRAWN
    }
)

#: the sites whose bad input needs a scratch folder
PATH_SITES = {
    "traces.bitbrains:write_vm columns": (_write_vm_missing_columns, r"frame: missing columns"),
    "traces.fetch:fetch dest under a file": (
        _fetch_dest_under_a_file,
        r"is a file, not a directory",
    ),
}


def test_a_directory_variable_naming_a_file_is_refused(tmp_path, monkeypatch):
    from fairlib import paths

    (tmp_path / "file").write_text("x")
    monkeypatch.setenv("FAIRLIB_OUTPUT_DIR", str(tmp_path / "file"))
    with pytest.raises(InvalidInputError, match=r"FAIRLIB_OUTPUT_DIR = .*: must name a directory"):
        paths.results_dir("k", "full")


@pytest.mark.parametrize("site", sorted(SITES))
def test_the_site_refuses_by_name(site):
    call, message = SITES[site]
    with pytest.raises(InvalidInputError, match=message):
        call()


@pytest.mark.parametrize("site", sorted(PATH_SITES))
def test_the_site_refuses_a_path_by_name(site, tmp_path):
    call, message = PATH_SITES[site]
    with pytest.raises(InvalidInputError, match=message):
        call(tmp_path)
