"""Rules the documentation states about an input, each refused by name when an input breaks it,
where every argument on its own has the right type: a row naming no machine, a status in the wrong
case, a timestamp that a float64 rounds into range, a job's shape not scaled to its dominant
resource, two jobs with one id, resource names that do not match the columns, shares of a machine
above 1, a sorter's holding that overflows, a list passed for ``*capabilities``, a masked entry."""

from __future__ import annotations

import gzip
import re

import numpy as np
import pandas as pd
import pytest

from fairlib import games, mechanisms, metrics, sim
from fairlib._validate import InvalidInputError
from fairlib.multires import DRFSorter
from fairlib.traces import TraceFormatError, read_machine_meta, read_vm, write_vm
from fairlib.traces.bitbrains import BITBRAINS_COLUMNS, BITBRAINS_HEADER


def _meta(tmp_path, rows: str):
    path = tmp_path / "cluster-trace-v2018" / "machine_meta.csv.gz"
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt") as f:
        f.write(rows)
    return read_machine_meta(directory=tmp_path)


@pytest.mark.parametrize(
    "row,match",
    [
        (",0,219,17,96,100,USING", r"line 2, column machine_id = <NA>: empty"),
        ("m_2,0,219,17,96,150,USING", r"line 2, column mem_size = 150.0: above 100"),
        ("m_2,0,219,17,0,100,USING", r"line 2, column cpu_num = 0.0: not a whole number of cores"),
        # a CPU count is written in digits: 1.5 (and 96.0) are refused as no integer's text
        ("m_2,0,219,17,1.5,100,USING", r"line 2, column 'cpu_num': '1\.5' is not an integer"),
        ("m_2,0,219,17,96.0,100,USING", r"line 2, column 'cpu_num': '96\.0' is not an integer"),
        ("m_2,0,219,17,96,,USING", r"line 2, column mem_size = nan: empty"),
        ("m_2,0,219,17,,100,USING", r"line 2, column cpu_num = nan: not a whole number"),
        ("m_2,0,219,17,96,100,using", r"line 2, column status = 'using'"),
        ("m_2,0,219,17,96,100,USING ", r"line 2, column status = 'USING '"),
    ],
)
def test_machine_meta_refuses_what_its_format_forbids(tmp_path, row, match):
    assert len(_meta(tmp_path, "m_1,0,219,17,96,100,IMPORT_INSTALLING\n")) == 1
    with pytest.raises(TraceFormatError, match=match):
        _meta(tmp_path, f"m_1,0,219,17,96,100,USING\n{row}\n")


def _vm(times) -> pd.DataFrame:
    frame = pd.DataFrame({c: np.ones(len(times)) for c in BITBRAINS_COLUMNS})
    frame["time"] = np.asarray(times, dtype=np.int64)
    return frame


def test_a_bitbrains_timestamp_past_2_53_is_refused_even_where_a_float_rounds_it_in(tmp_path):
    """2⁵³ + 1 reads as 2⁵³ in a float64: the reader and the writer decide on the integer."""
    path = write_vm(tmp_path / "7.csv.gz", _vm([0, 2**53]))
    assert read_vm(path)["time"].tolist() == [0, 2**53]
    with pytest.raises(InvalidInputError, match=r"frame\['time'\]\[1\]"):
        write_vm(tmp_path / "8.csv.gz", _vm([0, 2**53 + 1]))
    text = gzip.open(path, "rt").read().replace(str(2**53), str(2**53 + 1))
    with gzip.open(tmp_path / "9.csv.gz", "wt") as f:
        f.write(text)
    with pytest.raises(TraceFormatError, match=re.escape(f"{BITBRAINS_HEADER[0]} = '{2**53 + 1}'")):
        read_vm(tmp_path / "9.csv.gz")


def _jobs(**change):
    fields = dict(
        ids=np.array([0, 1]),
        arrival=np.array([0.0, 0.0]),
        trace_end=np.array([100.0, 100.0]),
        offsets=np.array([0, 1, 2]),
        work=np.array([10.0, 5.0]),
        shape=np.array([[1.0, 0.5], [0.5, 1.0]]),
        resources=("cpu", "memory"),
        source="test",
    )
    return sim.Jobs(**{**fields, **change})


@pytest.mark.parametrize(
    "change,match",
    [
        ({"shape": np.array([[0.5, 0.5], [0.5, 1.0]])}, r"jobs.shape\[0\] = \[0.5, 0.5\]"),
        ({"ids": np.array([1, 1])}, r"jobs.ids\[0\] = 1: appears 2 times"),
        ({"resources": ("cpu",)}, r"jobs.resources = \('cpu',\)"),
        ({"resources": ("cpu", "cpu")}, r"jobs.resources = \('cpu', 'cpu'\)"),
        ({"resources": ["cpu", "memory"]}, r"jobs.resources"),
    ],
)
def test_jobs_refuse_fields_that_disagree(change, match):
    assert _jobs().ids.tolist() == [0, 1]
    with pytest.raises(InvalidInputError, match=match):
        _jobs(**change)


def test_shares_of_one_machine_add_up_to_at_most_one():
    assert metrics.utilities(np.ones((2, 2)), np.full((2, 2), 0.5)).tolist() == [1.0, 1.0]
    for call in (metrics.utilities, metrics.envy_freeness):
        with pytest.raises(InvalidInputError, match=r"shares\[:, 0\] sums to 2.0"):
            call(np.ones((2, 2)), np.ones((2, 2)))


def test_a_sorter_holding_that_would_overflow_is_refused_and_nothing_changes():
    sorter = DRFSorter([10.0, 10.0])
    sorter.add("a")
    sorter.allocated("a", [1e308, 0.0])
    before = sorter.allocation("a").copy()
    with pytest.raises(InvalidInputError, match=r"allocated\('a'\): 'r0' held would overflow"):
        sorter.allocated("a", [1e308, 0.0])
    with pytest.raises(InvalidInputError, match=r"update\('a'\): 'r0' held would overflow"):
        sorter.update("a", [0.0, 0.0], [1e308, 0.0])
    np.testing.assert_array_equal(sorter.allocation("a"), before)


@pytest.mark.parametrize("select", [games.select, games.names, mechanisms.select])
def test_a_list_for_capabilities_is_named(select):
    with pytest.raises(InvalidInputError, match=r"capabilities\[0\] = \['pooled'\]"):
        select(["pooled"])


def test_a_masked_entry_is_refused_not_read_as_data():
    from fairlib.multires import drf

    demands = np.ma.array([[1.0, 4.0], [3.0, 1.0]], mask=[[0, 1], [0, 0]])
    with pytest.raises(InvalidInputError, match=r"\[0, 1\] is masked"):
        drf(demands, [9.0, 18.0])
    unmasked = np.ma.array([[1.0, 4.0], [3.0, 1.0]], mask=False)
    assert (
        drf(unmasked, [9.0, 18.0]).tasks.tolist() == drf(unmasked.data, [9.0, 18.0]).tasks.tolist()
    )


def test_a_placement_refusal_suggests_only_the_remedies_the_call_has():
    from fairlib.multires import Cluster, drf_machine_offers, drfh_best_fit

    cluster = Cluster([[1e6, 1e6]], [[1.0, 1.0], [1.0, 1.0]])
    with pytest.raises(InvalidInputError, match="max_placements = 1;") as offers:
        drf_machine_offers(cluster, max_placements=1)
    assert "quantum" not in str(offers.value) and "up to" in str(offers.value)
    with pytest.raises(InvalidInputError, match="raise quantum, or use drfh") as best_fit:
        drfh_best_fit(cluster, quantum=1e-3, max_placements=10**8)
    assert "raise max_placements" not in str(best_fit.value)


def test_a_fleet_needs_as_many_configurations_as_classes():
    from fairlib.traces import google_fleet

    configurations = pd.DataFrame({"cpus": [0.5, 1.0], "memory": [0.5, 1.0], "machines": [3, 1]})
    assert google_fleet(4, 2, rng=0, configurations=configurations).capacity.shape == (4, 2)
    for few in (configurations.iloc[:0], configurations.iloc[:1]):
        with pytest.raises(
            InvalidInputError, match=r"configurations: \d .* fewer than classes = 2"
        ):
            google_fleet(4, 2, rng=0, configurations=few)


def _job_demand_fields(**change) -> dict:
    """The fields of a valid two-segment ``JobDemands`` of one job, with ``change`` applied."""
    return (
        dict(
            job=np.array([1, 1]),
            demand=np.array([[0.1, 0.1], [0.2, 0.1]]),
            start=np.array([0.0, 10.0]),
            end=np.array([10.0, 20.0]),
            held=np.array([10.0, 10.0]),
            window_end=np.array([20.0, 20.0]),
            scheduling_class=None,
            source="test",
        )
        | change
    )


def test_job_demands_refuse_fields_of_different_lengths():
    from fairlib.traces.google import JobDemands

    fields = _job_demand_fields()
    assert len(sim.jobs_from_demands(JobDemands(**fields)).ids) == 1
    for name, value, match in (
        ("start", np.array([0.0]), r"start: expected one value per segment \(2, as job\)"),
        ("demand", np.array([[0.1, 0.1]]), r"demand: expected shape \(2, 2\)"),
        ("job", np.array([[1, 1]]), r"job: expected one job per segment"),
    ):
        with pytest.raises(InvalidInputError, match=match):
            JobDemands(**{**fields, name: value})


def test_a_catalogue_headline_over_200_characters_is_refused_where_it_is_written():
    from fairlib.repro.catalog import Notebook

    fields = dict(key="demo", path="notebooks/demo.ipynb", title="A title")
    assert Notebook(**fields, headline="x" * 200).headline == "x" * 200
    with pytest.raises(InvalidInputError, match=r"headline of 'demo': 201 characters, at most 200"):
        Notebook(**fields, headline="x" * 201)


def _labelled_calls():
    """Every entry point that pairs a labelled argument with another's labels: a pandas capacity
    with the demands' columns, per-user weights, caps or budgets with the demands' (or the game's
    weights') index."""
    from fairlib import Cluster, drf, edrf, hierarchical_drf, pdrf
    from fairlib.market import Game, weight_proportional_bids
    from fairlib.multires import maxmin_lp

    demands = pd.DataFrame([[1.0, 4.0], [3.0, 1.0]], columns=["cpu", "mem"], index=["a", "b"])
    crosswise = pd.Series([18.0, 9.0], index=["mem", "cpu"])
    users_swapped = pd.Series([1.0, 2.0], index=["b", "a"])
    game_weights = pd.DataFrame([[1.0, 2.0], [3.0, 4.0]], index=["a", "b"])
    return {
        "drf capacity": (lambda: drf(demands, crosswise), "capacity"),
        "drf weights": (lambda: drf(demands, [9, 18], weights=users_swapped), "weights"),
        "drf zeros capacity": (lambda: drf(demands, crosswise, zeros="scheduler"), "capacity"),
        "drf zeros weights": (
            lambda: drf(demands, [9, 18], weights=users_swapped, zeros="scheduler"),
            "weights",
        ),
        "edrf capacity": (lambda: edrf(demands, crosswise), "capacity"),
        "edrf weights": (lambda: edrf(demands, [9, 18], weights=users_swapped), "weights"),
        "pdrf capacity": (lambda: pdrf(demands, crosswise), "capacity"),
        "hierarchical_drf capacity": (
            lambda: hierarchical_drf(demands, crosswise, ["q/a", "q/b"]),
            "capacity",
        ),
        "maxmin_lp capacity": (lambda: maxmin_lp(demands, crosswise), "capacity"),
        "maxmin_lp weights": (
            lambda: maxmin_lp(demands, [9, 18], weights=users_swapped),
            "weights",
        ),
        "Cluster capacity": (
            lambda: Cluster(pd.DataFrame([[18.0, 9.0]], columns=["mem", "cpu"]), demands),
            "capacity",
        ),
        "Cluster weight": (
            lambda: Cluster([[9.0, 18.0]], demands, weight=users_swapped),
            "weight",
        ),
        "Cluster max_tasks": (
            lambda: Cluster([[9.0, 18.0]], demands, max_tasks=users_swapped),
            "max_tasks",
        ),
        "Game budgets": (lambda: Game(game_weights, budgets=users_swapped), "budgets"),
        "weight_proportional_bids budgets": (
            lambda: weight_proportional_bids(game_weights, users_swapped),
            "budgets",
        ),
        **_labelled_calls_sharing_an_axis(),
    }


def _labelled_calls_sharing_an_axis():
    """Every other public callable reading two labelled arguments along one axis: the pools and
    clusters (and the mechanisms on them), quotas, per-user options, sorters, games, metrics and
    the trace containers."""
    from fairlib import Cluster, drf, edrf, hierarchical_drf
    from fairlib.market import (
        Game,
        GameOutcome,
        best_response,
        best_response_finite,
        run_dynamics,
        utility,
        weight_proportional_bids,
    )
    from fairlib.multires import Quotas
    from fairlib.multires.lp import quota_maxmin_lp
    from fairlib.multires.cluster import monopoly_tasks
    from fairlib.repro.experiments.mechanism_atlas import Cell
    from fairlib.repro.experiments.precomputed_drf import (
        first_blocked_deviation_bound,
        pdrf_edrf_identity,
    )
    from fairlib.traces import Fleet, Workload

    cpu_mem, mem_cpu = ["cpu", "mem"], ["mem", "cpu"]
    demands = pd.DataFrame([[1.0, 4.0], [3.0, 1.0]], columns=cpu_mem, index=["a", "b"])
    unnamed_users = pd.DataFrame([[1.0, 4.0], [3.0, 1.0]], columns=cpu_mem)
    crosswise = pd.Series([18.0, 9.0], index=mem_cpu)
    swapped = pd.Series([1, 2], index=["b", "a"])
    quota = pd.DataFrame([[0.0, 0.0], [4.0, 16.0]], index=["b", "a"], columns=cpu_mem)
    game_weights = pd.DataFrame([[1.0, 2.0], [3.0, 4.0]], index=["a", "b"])
    bids = pd.DataFrame([[0.5, 0.5], [0.5, 0.5]], index=["b", "a"])
    machines = pd.Series([1.0, 2.0], index=["m1", "m2"])
    machines_swapped = pd.Series([1.0, 2.0], index=["m2", "m1"])
    eligible = pd.DataFrame([[1, 0], [0, 1]], index=["b", "a"])
    fleet = Fleet(np.array([[64.0, 64.0]]), ("cpu", "mem"), np.array(["A"]), "given")
    workload = Workload(
        np.array([1, 2]), np.array([[1.0, 1.0], [2.0, 2.0]]), [0.0, 0.0], [100.0, 100.0],
        ("cpu", "mem"), "synthetic",
    )  # fmt: skip

    def sorter(call):
        s = DRFSorter([10, 10], resources=cpu_mem)
        s.add("a")
        s.allocated("a", [1, 1])
        return getattr(s, call)

    def sorter_of_a_series():
        s = DRFSorter(pd.Series([10.0, 10.0], index=cpu_mem))
        s.add("a")
        s.allocated("a", crosswise)

    return {
        "Cluster.single_pool capacity": (
            lambda: drf(Cluster.single_pool(crosswise, unnamed_users)),
            "capacity",
        ),
        "monopoly_tasks demand": (
            lambda: monopoly_tasks(pd.DataFrame([[1, 2]], columns=mem_cpu), demands),
            "demand",
        ),
        "Cluster eligible users": (
            lambda: Cluster([[9.0, 18.0], [9.0, 18.0]], demands, eligible=eligible),
            "eligible",
        ),
        "Cluster eligible servers": (
            lambda: Cluster(
                pd.DataFrame([[9.0, 18.0], [9.0, 18.0]], index=["s1", "s2"]),
                demands,
                eligible=pd.DataFrame([[1, 0], [0, 1]], columns=["s2", "s1"]),
            ),
            "eligible",
        ),
        "drf quotas": (
            lambda: drf(demands, [9, 18], quotas=Quotas.yarn(min_share=quota)),
            "min_share",
        ),
        "drf quotas on a cluster": (
            lambda: drf(Cluster.single_pool([9, 18], demands), quotas=Quotas.yarn(min_share=quota)),
            "min_share",
        ),
        "Quotas limit against guarantee": (
            lambda: Quotas(quota.reindex(["a", "b"]), limit=quota + 1),
            "quotas.limit",
        ),
        "Quotas.kueue borrowing_limit": (
            lambda: Quotas.kueue(quota.reindex(["a", "b"]), borrowing_limit=quota),
            "borrowing_limit",
        ),
        "quota_maxmin_lp quotas": (
            lambda: quota_maxmin_lp(demands, [9, 18], Quotas.yarn(min_share=quota)),
            "min_share",
        ),
        "quota_maxmin_lp max_tasks": (
            lambda: quota_maxmin_lp(demands, [9, 18], Quotas(), max_tasks=swapped),
            "max_tasks",
        ),
        "hierarchical_drf quotas": (
            lambda: hierarchical_drf(
                demands, [9, 18], ["q/a", "q/b"], quotas=Quotas.yarn(min_share=quota)
            ),
            "min_share",
        ),
        "hierarchical_drf paths": (
            lambda: hierarchical_drf(demands, [9, 18], pd.Series(["q/a", "q/b"], index=["b", "a"])),
            "paths",
        ),
        "drf max_tasks": (lambda: drf(demands, [9, 18], max_tasks=swapped), "max_tasks"),
        "drf start": (lambda: drf(demands, [9, 18], start=swapped), "start"),
        "drf zeros max_tasks": (
            lambda: drf(demands, [9, 18], max_tasks=swapped, zeros="scheduler"),
            "max_tasks",
        ),
        "drf start on a cluster": (
            lambda: drf(Cluster.single_pool([9, 18], demands), start=swapped),
            "start",
        ),
        "edrf max_tasks": (lambda: edrf(demands, [9, 18], max_tasks=swapped), "max_tasks"),
        "edrf start": (lambda: edrf(demands, [9, 18], start=swapped), "start"),
        "edrf start on a cluster": (
            lambda: edrf(Cluster.single_pool([9, 18], demands), start=swapped),
            "start",
        ),
        "first_blocked_deviation_bound capacity": (
            lambda: first_blocked_deviation_bound(demands, crosswise),
            "capacity",
        ),
        "pdrf_edrf_identity capacity": (
            lambda: pdrf_edrf_identity(demands, crosswise),
            "capacity",
        ),
        "DRFSorter capacity": (
            lambda: DRFSorter(crosswise, resources=cpu_mem),
            "capacity",
        ),
        "DRFSorter allocated": (
            lambda: sorter("allocated")("a", crosswise),
            "amounts of allocated('a')",
        ),
        "DRFSorter unallocated": (
            lambda: sorter("unallocated")("a", crosswise),
            "amounts of unallocated('a')",
        ),
        "DRFSorter set_capacity": (lambda: sorter("set_capacity")(crosswise), "capacity"),
        "DRFSorter of a labelled capacity": (sorter_of_a_series, "amounts of allocated('a')"),
        "Game parallelism": (lambda: Game(game_weights, parallelism=swapped), "parallelism"),
        "weight_proportional_bids parallelism": (
            lambda: weight_proportional_bids(game_weights, parallelism=swapped),
            "parallelism",
        ),
        "run_dynamics initial_bids": (
            lambda: run_dynamics(Game(game_weights, reserve=1e-6), initial_bids=bids),
            "initial_bids",
        ),
        "GameOutcome bids": (lambda: GameOutcome(Game(game_weights), bids, "x"), "bids"),
        "best_response y": (lambda: best_response(machines_swapped, machines, 1.0), "y"),
        "best_response_finite y": (
            lambda: best_response_finite(machines_swapped, machines, 1.0, 1),
            "y",
        ),
        "utility x": (lambda: utility(machines, machines_swapped, machines), "x"),
        "envy_freeness shares": (
            lambda: metrics.envy_freeness(game_weights, bids),
            "shares",
        ),
        "utilities parallelism": (
            lambda: metrics.utilities(game_weights, bids.reindex(["a", "b"]), swapped),
            "parallelism",
        ),
        "bundle_values shares": (
            lambda: metrics.bundle_values(
                pd.DataFrame([[1.0, 2.0]], columns=["m1", "m2"]),
                pd.DataFrame([[1.0, 0.0]], columns=["m2", "m1"]),
            ),
            "shares",
        ),
        "snapshot_cluster weight": (
            lambda: sim.snapshot_cluster(
                fleet, workload, 50.0, weight=pd.Series([1.0, 2.0], index=[2, 1])
            ),
            "weight",
        ),
        "snapshot_cluster eligible": (
            lambda: sim.snapshot_cluster(
                fleet, workload, 50.0, eligible=pd.DataFrame([[1], [1]], index=[2, 1])
            ),
            "eligible",
        ),
        "Fleet capacity": (
            lambda: Fleet(
                pd.DataFrame([[8.0, 4.0]], columns=mem_cpu), ("cpu", "mem"), ["A"], "given"
            ),
            "capacity",
        ),
        "Cell eligible": (
            lambda: Cell(
                "google",
                0.0,
                [[9.0, 18.0], [9.0, 18.0]],
                ("cpu", "mem"),
                demands,
                None,
                eligible,
                "synthetic",
            ),  # fmt: skip
            "eligible",
        ),
        "Cell caps": (
            lambda: Cell(
                "google", 0.0, [[9.0, 18.0]], ("cpu", "mem"), demands, swapped, None, "synthetic"
            ),
            "caps",
        ),
        "Cell demand": (
            lambda: Cell(
                "google", 0.0, [[9.0, 18.0]], ("mem", "cpu"), demands, None, None, "synthetic"
            ),
            "demand",
        ),
        "Workload demand": (
            lambda: Workload(
                [1],
                pd.DataFrame([[8.0, 4.0]], columns=mem_cpu),
                [0.0],
                [1.0],
                ("cpu", "mem"),
                "synthetic",
            ),  # fmt: skip
            "demand",
        ),
    }


@pytest.mark.parametrize("case", list(_labelled_calls()))
def test_labels_that_disagree_with_another_arguments_are_refused_not_read_by_position(case):
    call, name = _labelled_calls()[case]
    with pytest.raises(InvalidInputError, match=rf"^{re.escape(name)}: label"):
        call()


def test_labels_in_the_same_order_or_none_at_all_are_read_by_position():
    from fairlib import drf

    demands = pd.DataFrame([[1.0, 4.0], [3.0, 1.0]], columns=["cpu", "mem"], index=["a", "b"])
    expected = [3, 2]
    assert drf(demands, pd.Series([9.0, 18.0], index=["cpu", "mem"])).tasks.tolist() == expected
    assert drf(demands, pd.Series([9.0, 18.0])).tasks.tolist() == expected  # a RangeIndex
    assert drf(demands.to_numpy(), [9, 18]).tasks.tolist() == expected
    with pytest.raises(InvalidInputError, match=r"labels \['mem', 'cpu'\] are the columns of "):
        drf(demands, pd.Series([18.0, 9.0], index=["mem", "cpu"]))
    with pytest.raises(InvalidInputError, match=r"label 'gpu' at position 1 is not 'mem'"):
        drf(demands, pd.Series([9.0, 18.0], index=["cpu", "gpu"]))


def test_labels_kept_by_a_cluster_a_game_and_a_sorter_accept_the_same_order():
    from fairlib import Cluster, drf
    from fairlib.market import Game, GameOutcome, weight_proportional_bids
    from fairlib.multires import Quotas

    demands = pd.DataFrame([[1.0, 4.0], [3.0, 1.0]], columns=["cpu", "mem"], index=["a", "b"])
    pool = Cluster.single_pool(pd.Series([9.0, 18.0], index=["cpu", "mem"]), demands.to_numpy())
    assert pool.labels == (None, ("cpu", "mem"))  # the capacity's labels, kept
    assert Cluster.single_pool([9, 18], demands).labels == (("a", "b"), ("cpu", "mem"))
    quota = pd.DataFrame([[4.0, 16.0], [0.0, 0.0]], index=["a", "b"], columns=["cpu", "mem"])
    on_cluster = drf(Cluster.single_pool([9, 18], demands), quotas=Quotas.yarn(min_share=quota))
    assert on_cluster.tasks.ravel().tolist() == [4, 1]
    assert drf(demands, [9, 18], quotas=Quotas.yarn(min_share=quota)).tasks.tolist() == [4, 1]
    weights = pd.DataFrame([[1.0, 2.0], [3.0, 4.0]], index=["a", "b"])
    game = Game(weights, parallelism=pd.Series([2, 2], index=["a", "b"]))
    bids = pd.DataFrame(weight_proportional_bids(weights), index=["a", "b"])
    assert GameOutcome(game, bids, "x").bids.shape == (2, 2)
    sorter = DRFSorter([10, 10], resources=["cpu", "mem"])
    sorter.add("a")
    sorter.allocated("a", pd.Series([4.0, 1.0], index=["cpu", "mem"]))
    assert sorter.allocation("a").tolist() == [4.0, 1.0]


@pytest.mark.parametrize(
    "call, match",
    [
        (
            lambda: __import__("fairlib").dynamic_drf(
                [[1, 0.5], [0.5, 1]], method="lp", sums="rescan"
            ),
            r"sums='rescan' applies to method='linear' only",
        ),
        (
            lambda: __import__("fairlib").dynamic_drf(
                [[1, 0.5], [0.5, 1]], method="waterfill", sums="rescan"
            ),
            r"sums='rescan' applies to method='linear' only",
        ),
        (
            lambda: _dynamics(step=0.02),
            r"step=0\.02 \(local_greedy only\): not read by method='best_response'",
        ),
        (lambda: _dynamics(gap_tol=0.01), r"gap_tol=0\.01 \(local_greedy only\)"),
        (lambda: _dynamics(rng=3), r"rng=3 \(order='random' only\)"),
        (
            lambda: _dynamics("local_greedy", order="simultaneous", rng=3),
            r"rng=3 \(order='random' only\): not read by method='local_greedy'",
        ),
        (lambda: _proportional_share(order="sequential", rng=1), r"rng=1 \(order='random' only\)"),
    ],
)
def test_an_option_the_chosen_method_does_not_read_is_refused_not_ignored(call, match):
    with pytest.raises(InvalidInputError, match=match):
        call()


def _dynamics(method="best_response", **options):
    from fairlib.market import Game, run_dynamics

    return run_dynamics(Game([[0.7, 0.3], [0.4, 0.6]], reserve=1e-6), method, **options)


def _proportional_share(**options):
    from fairlib.market import Game, proportional_share

    return proportional_share(Game([[0.7, 0.3], [0.4, 0.6]], reserve=1e-6), **options)


def test_options_a_method_reads_are_still_taken():
    _dynamics("local_greedy", step=0.02, gap_tol=0.01, max_iter=3)
    _dynamics(order="random", rng=3, max_iter=3)
    _proportional_share(order="random", rng=1)
    __import__("fairlib").dynamic_drf([[1, 0.5], [0.5, 1]], sums="rescan")


def test_a_repeated_mechanism_or_alpha_is_refused_not_collapsed_into_one_row():
    from fairlib.repro.experiments.google_open_loop import route_mechanisms

    with pytest.raises(InvalidInputError, match=r"mechanisms\[1\] = 'drfh': repeated"):
        mechanisms.resolve_runs(["drfh", "drfh"])
    # names are case-insensitive: two spellings of one mechanism are two rows of it
    with pytest.raises(InvalidInputError, match=r"mechanisms\[1\] = 'EDRF': repeated"):
        mechanisms.resolve_runs(["edrf", "EDRF"])
    with pytest.raises(InvalidInputError, match=r"mechanisms\[1\] = 'PFVDS_2': repeated"):
        mechanisms.resolve_runs(["pfvds_2", "PFVDS_2"])
    for label in ("", " ", " edrf"):
        with pytest.raises(InvalidInputError, match=f"mechanisms key = {label!r}"):
            mechanisms.resolve_runs({label: mechanisms.get("edrf")})
    with pytest.raises(InvalidInputError, match=r"alphas\[1\] = 2\.0000001: repeats PF-VDS\(2\)"):
        route_mechanisms([2.0, 2.0000001])
    assert list(route_mechanisms([1.0, 2.0])[0]) == ["PF-VDS(1)", "PF-VDS(2)", "PS-DSF"]


def test_a_count_for_an_n_the_sweep_does_not_run_is_refused():
    from fairlib.repro.experiments.dynamic_drf import random_order_runs

    pool = [[1.0, 0.5], [0.5, 1.0], [1.0, 1.0]]
    with pytest.raises(InvalidInputError, match=r"orders\[3\]: a count for an n not in ns = \[2\]"):
        random_order_runs(pool, [2], {2: 1, 3: 1}, 0, progress=False, n_jobs=1)


def test_a_directory_variable_that_names_one_directory_refuses_a_list(monkeypatch):
    import os

    from fairlib import paths

    monkeypatch.setenv("FAIRLIB_SHARED_TRACES", f"a{os.pathsep}b")
    with pytest.raises(InvalidInputError, match=r"FAIRLIB_SHARED_TRACES = .*names one directory"):
        paths._env_dir("FAIRLIB_SHARED_TRACES")
    monkeypatch.setenv("FAIRLIB_TRACE_DIR", f"/nonexistent-a{os.pathsep}/nonexistent-b")
    assert "/nonexistent-a (does not exist)" in paths.missing_traces_message("google")


def test_a_ratio_past_float64_is_refused_not_read_as_no_demand_or_a_missing_resource():
    from fairlib.multires.cluster import monopoly_tasks

    with pytest.raises(InvalidInputError, match=r"capacity\[0, 0\] / demand\[0, 0\] = 1e\+200"):
        monopoly_tasks([[1e200, 1.0]], [[1e-200, 1.0]])
    with pytest.raises(InvalidInputError, match=r"capacity\[0, 0\] / demand\[0, 0\] = 1e-200"):
        monopoly_tasks([[1e-200, 1.0]], [[1e200, 1.0]])
    assert monopoly_tasks([[4.0, 0.0]], [[1.0, 2.0], [2.0, 0.0]]).tolist() == [[0.0], [2.0]]


def test_more_server_types_than_servers_is_refused():
    from fairlib.multires import random_cluster

    with pytest.raises(InvalidInputError, match=r"server_types = 3: .*<= 2"):
        random_cluster(0, 2, 2, server_types=3)


@pytest.mark.parametrize("register", ["mechanism", "game"])
def test_a_function_that_cannot_take_the_instance_and_options_is_refused_at_registration(register):
    if register == "mechanism":

        def add(function, **kw):
            return mechanisms.register("probe_zero", function, capabilities=("pooled",), **kw)
    else:

        def add(function, **kw):
            return games.register_game("probe_zero", function, **kw)

    with pytest.raises(InvalidInputError, match=r"'probe_zero' must be callable as function\("):
        add(lambda: None)
    with pytest.raises(InvalidInputError, match=r"options \['depth'\]"):
        add(lambda instance: None, options={"depth": 2})
    assert "probe_zero" not in (mechanisms.names() if register == "mechanism" else games.names())


def test_envy_with_one_user_is_zero_not_minus_infinity():
    from fairlib import Cluster, drfh
    from fairlib.multires import property_violations

    cluster = Cluster([[9.0, 18.0]], [[1.0, 4.0]])
    assert property_violations(cluster, drfh(cluster).tasks)["EF"] == 0.0


def test_a_segment_demanding_nothing_is_named_where_it_is():
    from fairlib.traces.google import JobDemands

    fields = _job_demand_fields(job=np.array([1, 2]), demand=np.array([[0.1, 0.1], [0.0, 0.0]]))
    with pytest.raises(
        InvalidInputError, match=r"demands\.demand\[1\] = \[0\.0, 0\.0\]: segment 1"
    ):
        sim.jobs_from_demands(JobDemands(**fields))


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: __import__("fairlib.repro.prose").repro.prose.number(1.5, sign="yes"), "sign"),
        (lambda: __import__("fairlib.repro.prose").repro.prose.percent(0.5, sign="yes"), "sign"),
        (
            lambda: __import__("fairlib.repro.prose").repro.prose.span(0.1, 0.2, percent=1),
            "percent",
        ),
        (
            lambda: __import__("fairlib.repro.prose").repro.prose.running_note(
                "feldman2005", "quick", traces="no"
            ),
            "traces",
        ),
    ],
)
def test_a_flag_is_true_or_false_not_any_truthy_value(call, name):
    with pytest.raises(InvalidInputError, match=rf"^{name} = "):
        call()


def test_utilisation_bounds_flags_are_true_or_false():
    from fairlib import Cluster
    from fairlib.multires.checks.psdsf_range import psdsf_utilisation_bounds

    cluster = Cluster([[9.0, 18.0], [18.0, 9.0]], [[1.0, 4.0], [3.0, 1.0]])
    for flag in ("grouped", "ordered"):
        with pytest.raises(InvalidInputError, match=rf"^{flag} = 'yes'"):
            psdsf_utilisation_bounds(cluster, 0, **{flag: "yes"})


# --- refusals no other test reaches ---------------------------------------------------------------


class _OneLink:
    """The smallest game model that is not a ``Game``: what ``scaffold mechanism --new-model``
    registers."""

    def __init__(self, weights, reserve=0.0):
        self.weights, self.reserve = np.asarray(weights, dtype=float), float(reserve)
        self.n_users, self.n_machines = self.weights.shape

    @classmethod
    def from_weights(cls, weights, reserve=0.0):
        return cls(weights, reserve)


def test_a_model_game_without_the_reserve_capability_refuses_a_reserve():
    with games.registered("probe_model", lambda game: None, instance=_OneLink) as game:
        with pytest.raises(InvalidInputError, match=r"game\.reserve = 0\.5: probe_model plays"):
            game.refuse_unsupported(_OneLink([[1.0]], reserve=0.5))
        game.refuse_unsupported(_OneLink([[1.0]]))


def test_a_model_game_cannot_claim_a_games_budgets_or_parallelism():
    with pytest.raises(InvalidInputError, match=r"\['budgets'\] are a Game's; 'probe_model' plays"):
        games.register_game(
            "probe_model", lambda game: None, instance=_OneLink, capabilities=("budgets",)
        )
    assert "probe_model" not in games.names()


def test_initial_bids_of_the_wrong_shape_are_refused():
    with pytest.raises(
        InvalidInputError, match=r"initial_bids: expected shape \(2, 2\), got \(2, 3\)"
    ):
        _dynamics(initial_bids=np.full((2, 3), 1 / 3))


def test_utilisation_range_names_totals_no_placement_can_give():
    from fairlib import Cluster
    from fairlib.multires.checks.utilisation_range import utilisation_range

    cluster = Cluster([[9.0, 18.0]], [[1.0, 4.0], [3.0, 1.0]])
    assert utilisation_range(cluster, [1.0, 1.0], [0], 0).low <= 4 / 9 + 1e-6
    with pytest.raises(InvalidInputError, match=r"totals: no placement gives every user its total"):
        utilisation_range(cluster, [100.0, 100.0], [0], 0)


def test_pfvds_iterations_given_twice_is_refused():
    from fairlib import Cluster, pfvds

    cluster = Cluster([[9.0, 18.0]], [[1.0, 4.0], [3.0, 1.0]])
    with pytest.raises(InvalidInputError, match=r"iterations: given twice"):
        pfvds(cluster, 1.0, method="distributed", iterations=5, options={"iterations": 5})


def test_ceei_takes_a_start_or_caps_not_both():
    from fairlib import Cluster, ceei

    cluster = Cluster.single_pool([9.0, 18.0], [[1.0, 4.0], [3.0, 1.0]], max_tasks=[1.0, 1.0])
    with pytest.raises(InvalidInputError, match=r"start: ceei takes a start or per-user caps"):
        ceei(cluster, start=[0.5, 0.5])


def test_a_cell_sample_that_keeps_nothing_is_refused_and_its_seed_checked():
    from fairlib.repro.experiments import scheduler_semantics as semantics

    jobs = pd.DataFrame(
        {
            "job_id": [0, 1],
            "tenant": ["t0", "t1"],
            "priority": [0, 0],
            "scheduling_class": 0,
            "tasks": [1, 1],
            "running": [0, 0],
            "cpu": [0.1, 0.1],
            "memory": [0.1, 0.1],
        }
    )
    snap = semantics.CellSnapshot(0.0, jobs, np.array([[1.0, 1.0]]), "synthetic", 0)
    with pytest.raises(InvalidInputError, match=r"fraction = 1e-300: left 0 jobs and 0 machines"):
        snap.sample(1e-300, rng=0)
    with pytest.raises(InvalidInputError, match=r"^rng = 'abc'"):
        snap.sample(0.5, rng="abc")


def test_a_variants_name_runs_the_variant_not_its_mechanisms_defaults():
    """``"pfvds_4"`` is PF-VDS at α = 4 wherever a name is read (resolve, resolve_runs), as in
    ``runs()``; it used to run the registered default α = 1 under the variant's name."""
    seen = []

    def probe(cluster, alpha=1.0):
        seen.append(alpha)
        return mechanisms.get("edrf")(cluster)

    from fairlib.multires import Cluster

    cluster = Cluster([[1.0, 1.0]], [[1.0, 0.5], [0.5, 1.0]])
    with mechanisms.registered(
        "probe_x", probe, capabilities=("multi_server",), variants={"probe_x4": {"alpha": 4.0}}
    ):
        mechanisms.resolve("probe_x4")(cluster)
        mechanisms.resolve_runs(["PROBE_X4"])["PROBE_X4"](cluster)
        mechanisms.resolve("probe_x")(cluster)
    assert seen == [4.0, 4.0, 1.0]
