"""The atlas driver (fairlib.repro.experiments.mechanism_atlas): cells on the committed fixtures,
every registered run measured on a small cell, the claims' arithmetic on hand-built tables, bad
input named."""

import numpy as np
import pandas as pd
import pytest

from fairlib import InvalidInputError
from fairlib.repro.experiments import mechanism_atlas as atlas
from fairlib.repro.report import ClaimLog, Measurement, load_registry, registry_path
from fairlib.traces import read_batch_task, read_machine_meta, read_vms
from tests.fixtures.make_fixtures import HERE

KEY = "atlas"


def _rows(trace, mechanism, util, *, at=(1.0, 2.0), served=1.0, po=0.0, ef=0.0):
    return [
        {
            "trace": trace,
            "at_s": t,
            "mechanism": mechanism,
            "label": mechanism,
            "model": "pool",
            "status": "ran",
            "users": 10,
            "machines": 5,
            "classes": 2,
            "util_mean": u,
            "served_full": served,
            "jain": 0.9,
            "min_share": 0.1,
            "SI": 0.0,
            "EF": ef,
            "PO": po,
            "BF": np.nan,
            "seconds": 0.1,
        }
        for t, u in zip(at, util)
    ]


def _tables():
    google = pd.DataFrame(
        _rows("google", "psdsf", [0.90, 0.95])
        + _rows("google", "drfh", [0.92, 0.94])
        + _rows("google", "drf_machine_offers", [0.80, 0.90])
        + _rows("google", "drfh_best_fit", [0.91, 0.93])
        + _rows("google", "tsf", [0.92, 0.94], po=2e-7)
        + _rows("google", "edrf", [0.9, 0.9], ef=3e-9)
    )
    alibaba = pd.DataFrame(
        _rows("alibaba", "drfh", [0.3, 0.3]) + _rows("alibaba", "pfvds_4", [0.3, 0.2], served=0.5)
    )
    bitbrains = pd.DataFrame(_rows("bitbrains", "edrf", [0.5, 0.6], ef=1e-3))
    tables = {"google": google, "alibaba": alibaba, "bitbrains": bitbrains}
    for t in tables.values():
        t["source"] = "real"
    return tables


def _cell(**fields):
    """A cell of two users on two machines (fields overridden by keyword)."""
    values = {
        "trace": "google",
        "at_s": 0.0,
        "capacity": np.array([[1.0, 1.0], [1.0, 1.0]]),
        "resources": ("cpu", "memory"),
        "demand": np.array([[0.1, 0.1], [0.1, 0.05]]),
        "caps": np.array([4.0, 5.0]),
        "eligible": None,
        "source": "synthetic",
    }
    return atlas.Cell(**{**values, **fields})


def test_findings_known_answer():
    found = atlas.findings(_tables())
    assert found["psdsf_lead_over_drfh_google"].value == pytest.approx(
        -0.02
    )  # 0.90 - 0.92 at the first
    assert found["offers_gap_to_drfh_google"].value == pytest.approx(
        4.0
    )  # 0.94 - 0.90 at the second, in points
    assert "whole tasks on both sides, Best-Fit DRFH minus the offer loop: 3.0 to 11.0 points" in (
        found["offers_gap_to_drfh_google"].note
    )
    assert found["alibaba_served_full"].value == pytest.approx(0.5)
    assert found["drfh_tsf_pareto_slack"].value == pytest.approx(2e-7)
    assert found["edrf_pooled_envy"].value == pytest.approx(1e-3)  # the largest over every trace


def test_a_solve_its_solver_does_not_certify_is_not_a_run():
    """A row whose status says the solver did not certify its allocation is left out of the means
    and the claims, and the claim's note names it."""
    tables = _tables()
    ali = tables["alibaba"]
    ali.loc[ali.mechanism == "pfvds_4", "status"] = (
        atlas.UNCERTIFIED + ": the interior point stopped short"
    )
    found = atlas.findings(tables)
    assert found["alibaba_served_full"].value == pytest.approx(1.0)
    assert "pfvds_4 at 2 of 2 instants" in found["alibaba_served_full"].note
    per = atlas.per_mechanism(ali).set_index("mechanism")
    assert per.instants["pfvds_4"] == 0 and per.status["pfvds_4"].startswith(
        "2 of 2 instants: solver did not"
    )


def test_ties_are_named_as_ties():
    assert atlas.leaders(pd.Series({"CEEI": 0.3804, "DRF": 0.3800, "TSF": 0.2})) == (
        "a tie (within 0.001) of CEEI and DRF"
    )
    assert atlas.leaders(pd.Series({"CEEI": 0.9, "DRF": 0.8})) == "CEEI"
    assert atlas.leaders(pd.Series({"CEEI": 0.9, "DRF": 0.8}), highest=False) == "DRF"
    with pytest.raises(InvalidInputError, match="values"):
        atlas.leaders(pd.Series(dtype=float))


def test_every_declared_claim_is_measured_once():
    found = atlas.findings(_tables())
    declared = load_registry(registry_path(KEY), KEY)
    assert all(isinstance(m, Measurement) for m in found.values())
    assert set(found) == set(declared)
    log = ClaimLog(KEY, write=False)
    log.measure_all(found)
    assert not log._complete(), "declared claims no driver measures"


def test_bad_tables_are_named():
    with pytest.raises(InvalidInputError, match=r"no table for \['bitbrains'\]"):
        atlas.findings({k: v for k, v in _tables().items() if k != "bitbrains"})
    tables = _tables()
    tables["google"] = tables["google"][tables["google"].mechanism != "psdsf"]
    with pytest.raises(InvalidInputError, match="no row of 'psdsf'"):
        atlas.findings(tables)
    with pytest.raises(InvalidInputError, match="mode"):
        atlas.check_mode("fast")


def test_cells_on_the_fixtures_and_every_run_measured():
    meta = read_machine_meta(directory=HERE / "alibaba_clusterdata")
    batch = read_batch_task("2017", directory=HERE / "alibaba_clusterdata")
    (cell,) = atlas.alibaba_cells(meta, batch, [8000.0], source="synthetic")
    assert cell.capacity.shape == (6, 2) and cell.caps.tolist() == [4.0]
    rows = pd.DataFrame(atlas.cell_rows(cell))
    assert list(rows.mechanism) == list(atlas.mechanism_runs())
    ran = rows[rows.status == "ran"]
    # one task of 4 instances of one core on 6 idle machines: every mechanism that runs serves it in
    # full
    assert (ran.served_full == 1.0).all() and np.allclose(ran.tasks, 4.0)
    assert rows.set_index("mechanism").status["pdrf"].startswith("refused: max_tasks[0] = 4.0")
    assert set(rows.model) == {"pool", "merged machines", "machines"}
    vms = read_vms(directory=HERE / "bitbrains_gwa_t12", progress=False)
    (bb,) = atlas.bitbrains_cells(vms, [0.1], rng=0)
    twice = atlas.bitbrains_cells(vms, [0.1, 0.1], rng=0)
    assert atlas.distinct_instants(twice) == [[twice[0].at_s, twice[1].at_s]]
    assert bb.caps is None and bb.capacity.shape == (250, 4) and bb.eligible.shape[1] == 250
    per = atlas.per_mechanism(pd.DataFrame(atlas.cell_rows(bb)))
    assert (per.status == "ran").all() and per.instants.eq(1).all()
    values = atlas.normalised_measures(pd.DataFrame(atlas.cell_rows(bb)))
    assert values.min().min() >= 0 and values.max().max() <= 1
    # bottleneck fairness says nothing on the atlas's cells (caps, or a machine without a
    # bottleneck): not a measure
    assert list(values.columns) == list(atlas.MEASURES) and "BF" not in values


def test_batches_split_the_instants_and_concat_restores_one_table():
    tables = _tables()
    parts = [tables["google"][tables["google"].at_s == t] for t in (2.0, 1.0)]
    whole = atlas.concat_tables(parts)
    assert whole.at_s.is_monotonic_increasing and len(whole) == len(tables["google"])
    cells = [_cell(at_s=float(t)) for t in range(7)]
    assert [[c.at_s for c in b] for b in atlas.batches(cells, 2)] == [[0, 1], [2, 3], [4, 5], [6]]
    assert atlas.batches(cells[:1]) == [cells[:1]]
    with pytest.raises(InvalidInputError, match="size"):
        atlas.batches(cells, 0)
    with pytest.raises(InvalidInputError, match=r"cells\[1\]: expected a Cell, got str"):
        atlas.batches([cells[0], "b"])
    with pytest.raises(InvalidInputError, match="parts"):
        atlas.concat_tables([])


def test_strategyproofness_spot_checks_run_uncapped():
    meta = read_machine_meta(directory=HERE / "alibaba_clusterdata")
    batch = read_batch_task("2017", directory=HERE / "alibaba_clusterdata")
    cells = atlas.alibaba_cells(meta, batch, [6700.0], source="synthetic")
    runs = {k: v for k, v in atlas.mechanism_runs().items() if k in ("drf", "pdrf", "drfh")}
    spot = atlas.strategyproofness_spot_checks(cells, runs, n_users=2, n_checks=1, rng=0)
    assert (spot.status == "ran").all()  # PDRF too: the sub-cells are uncapped
    assert (spot.SP <= 1e-9).all()  # DRF, PDRF and DRFH are strategy-proof on two users


def test_a_total_within_rounding_of_its_cap_is_served_in_full():
    """A divisible solver's total a hair below the cap (interior-point rounding) is served in full;
    a whole task short is not (regression: a tolerance of 1e-9 counted DRFH's and TSF's rounded
    totals as short)."""
    from fairlib.multires import Allocation

    cell = atlas.Cell(
        "google",
        0.0,
        np.array([[1.0, 1.0], [1.0, 1.0]]),
        ("cpu", "memory"),
        np.array([[0.1, 0.1], [0.1, 0.05]]),
        np.array([4.0, 5.0]),
        None,
        "synthetic",
    )
    runs = {
        "rounded": ("drfh", lambda c: Allocation(c, np.array([[4 * (1 - 1e-8)], [5.0]]), "x")),
        "short": ("drfh", lambda c: Allocation(c, np.array([[3.0], [5.0]]), "x")),
    }
    rows = pd.DataFrame(atlas.cell_rows(cell, runs, checks=False)).set_index("mechanism")
    assert rows.served_full["rounded"] == 1.0 and rows.served_full["short"] == 0.5


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"trace": "borg"}, "trace = 'borg'"),
        ({"at_s": float("nan")}, "at_s = nan"),
        ({"capacity": np.array([[1.0, -1.0]])}, r"capacity\[0, 1\] = -1.0"),
        ({"resources": ("cpu",)}, "resources = .*expected 2 labels"),
        ({"demand": np.ones((2, 3))}, r"demand: expected shape \(any, 2\)"),
        ({"caps": np.array([1.0])}, r"caps: expected shape \(2\), got \(1,\)"),
        ({"eligible": np.array([[True, False], [False, False]])}, "eligible"),
        ({"source": "made up"}, "source = 'made up'"),
    ],
)
def test_a_malformed_cell_is_refused_by_field(fields, message):
    with pytest.raises(InvalidInputError, match=message):
        _cell(**fields)


def test_the_atlas_functions_refuse_bad_arguments_by_name():
    tables = _tables()
    with pytest.raises(
        InvalidInputError, match=r"^tables\['alibaba'\]: no column 'PO' \(needs \['mechanism', "
    ):
        atlas.findings({**tables, "alibaba": tables["alibaba"].drop(columns="PO")})
    with pytest.raises(InvalidInputError, match="tables key = 'borg'"):
        atlas.findings({**tables, "borg": tables["google"]})
    with pytest.raises(
        InvalidInputError,
        match=r"^table: no column 'model' \(needs \['mechanism', 'label', 'model'",
    ):
        atlas.per_mechanism(tables["google"].drop(columns="model"))
    with pytest.raises(
        InvalidInputError, match=r"^table: no column 'seconds' \(needs \['mechanism'"
    ):
        atlas.normalised_measures(tables["google"].drop(columns="seconds"))
    with pytest.raises(InvalidInputError, match=r"runs\['x'\]\[0\]: name = 'nope'"):
        atlas.run_labels({"x": ("nope", len)})
    with pytest.raises(InvalidInputError, match="runs: key 1 is not text"):
        atlas.cell_rows(_cell(), {1: ("drf", len)})
    with pytest.raises(InvalidInputError, match="labels"):
        atlas.figure(tables, {"drf": 1})
    with pytest.raises(InvalidInputError, match="measured: no 'alibaba_served_full'"):
        atlas.summary(tables, {"psdsf_lead_over_drfh_google": Measurement(0.1)})
    with pytest.raises(InvalidInputError, match=r"values\['B'\]: must be finite"):
        atlas.spread(pd.Series({"A": 1.0, "B": np.inf}))
    with pytest.raises(InvalidInputError, match=r"^task_events: no column 'job_id', 'task_index'"):
        atlas.google_cells(pd.DataFrame(), pd.DataFrame(), [10.0])
    task_columns = ["time", "job_id", "task_index", "event_type", "user", "priority"]
    task_columns += ["scheduling_class", "cpu_request", "memory_request"]
    machine_columns = ["time", "machine_id", "event_type", "cpus", "memory"]
    with pytest.raises(InvalidInputError, match=r"instants\[0\] = 'x'"):
        atlas.google_cells(
            pd.DataFrame(columns=task_columns), pd.DataFrame(columns=machine_columns), ["x"]
        )
    with pytest.raises(InvalidInputError, match="days: no instant"):
        atlas.bitbrains_cells(pd.DataFrame(), [])
    with pytest.raises(
        InvalidInputError,
        match=r"^parts\[0\]: no column 'at_s' \(needs \['at_s'\]; its columns: \['x'\]\)",
    ):
        atlas.concat_tables([pd.DataFrame({"x": [1]})])


@pytest.mark.parametrize("mode", ["quick", "full"])
def test_every_instant_lies_inside_the_synthetic_stand_in_of_its_mode(mode):
    """A reader's clone has no trace excerpt: the notebook then reads the stand-ins of
    :data:`fairlib.traces.synthetic.STAND_IN_SIZES`, and an instant past their end has no job."""
    from fairlib.traces.synthetic import STAND_IN_SIZES

    sizes, stand_in = atlas.SIZES[mode], STAND_IN_SIZES[mode]
    assert max(sizes["bitbrains"]) < stand_in["bitbrains"]["days"]
    assert max(sizes["google"]) < stand_in["google"]["hours"] * 3600.0
