"""The metin2025 claims' arithmetic (fairlib.repro.experiments.precomputed_drf.*_findings): known answers on hand-built
tables, one claim per declared id, bad input named."""

import numpy as np
import pandas as pd
import pytest

from fairlib import InvalidInputError
from fairlib.repro.experiments import precomputed_drf as pd_drf
from fairlib.repro.report import ClaimLog, load_registry, measured_values, registry_path


def _table(names, runs=1000):
    return pd.DataFrame([{"demands": name, "runs": runs, **{c: float(i) for i, c in enumerate(pd_drf.TABLE_COLUMNS)},
                          **{f"{c}_sd": 0.5 for c in pd_drf.SUBCOUNT_SD}} for name in names])


def test_table_findings_one_claim_per_cell_with_its_runs():
    found = pd_drf.table_findings(_table(["1-10", "1-20", "10-20"]), _table(["1-100", "1-1000"], runs=20))
    assert len(found) == 5 * len(pd_drf.TABLE_COLUMNS)
    declared = load_registry(registry_path("metin2025"), "metin2025")
    assert set(found) <= set(declared)
    assert found["table2_1-1000_over_sd"].runs == 20 and found["table1_1-10_under_1"].runs == 1000
    assert "rare event" in found["table1_1-20_over_max"].note
    assert "does not follow from its stated parameters" in found["table2_1-100_over_1"].note
    assert "rare event" not in found["table2_1-100_over_max"].note
    assert found["table1_10-20_over_avg"].value == float(pd_drf.TABLE_COLUMNS.index("over_avg"))
    assert found["table2_1-100_over_2"].sd == 0.5 and found["table2_1-100_over_avg"].sd is None
    log = ClaimLog("metin2025", write=False)
    log.measure_all(found)   # the se rules get their runs, and the sub-count columns our runs' standard deviation
    over_2 = next(c for c in log.claims if c.claim_id == "table2_1-100_over_2")
    assert "sd = pooled = " in over_2.rule and over_2.rule.endswith("runs = 20")
    with pytest.raises(InvalidInputError, match=r"table2: missing column\(s\) \['runs'\]"):
        pd_drf.table_findings(_table(["1-10"]), _table(["1-100"]).drop(columns="runs"))


def test_identity_findings_count_what_the_claims_say():
    identity = pd.DataFrame({"other": [0, 1], "simplified_off_floor_edrf": [3, 2], "ds_max_off_floor_edrf": [1, 0],
                             "bound_violations": [0, 0], "drf_minus_edrf_max": [0.5, 1.0],
                             "pdrf_over_allocates": [False, True], "topup_equals_corrected_drf": [True, False]})
    v = measured_values(pd_drf.identity_findings(identity))
    assert v == {"pdrf_equals_floor_edrf": 1, "simplified_variant_less_accurate": 4,
                 "literal_drf_within_derived_bound": 0, "drf_never_exceeds_edrf_plus_one": 1.0,
                 "topup_equals_corrected_drf_when_no_over_allocation": True}


def test_drf_work_per_task_slope_per_doubling():
    n = np.array([1_000, 2_000, 4_000, 8_000])
    speed = pd.DataFrame({"method": "drf", "n": n, "tasks": 10 * n, "work": 10 * n * (3 + 2 * np.log2(n))})
    found = pd_drf.drf_work_per_task_findings(pd.concat([speed, speed.assign(method="pdrf")]))
    assert found["drf_heap_work_grows_with_log_n"].value == pytest.approx(2.0)
    assert "at n = 8,000" in found["drf_heap_work_grows_with_log_n"].note
    with pytest.raises(InvalidInputError, match="has 1"):
        pd_drf.drf_work_per_task_findings(speed.iloc[:1])


def test_repository_example_is_the_papers():
    v = measured_values(pd_drf.repository_example_findings())
    assert v == {"repository_example_pdrf_752_1637": [752, 1637], "repository_example_drf_753_1637": [753, 1637]}


def test_over_allocation_search_adds_both_searches():
    runs = pd.DataFrame({"over_total": [0, 1, 0]})
    found = pd_drf.over_allocation_search_findings(runs, runs.iloc[:2], runs.iloc[:1], runs.iloc[:1])
    assert found["table1_10-20_never_over_allocates"].value == 2
    assert found["table1_10-20_never_over_allocates_exact_shares"].value == 0
    assert "in 5 runs (the 3 Table 1 runs and 2 more)" in found["table1_10-20_never_over_allocates"].note


def test_parameter_search_findings_read_the_ranked_grid():
    rows = [(50_000, 100_000, 1, 100, 0.9), (50_000, 100_000, 1, 1000, 0.5), (1_000_000, 10_000_000, 1, 100, 0.05),
            (1_000_000, 10_000_000, 1, 1000, 0.08)]
    grid = pd.DataFrame(rows, columns=["reserve_low", "reserve_high", "demand_low", "demand_high", "distance"])
    ranked = grid.sort_values("distance").reset_index(drop=True)
    found = pd_drf.parameter_search_findings({"1-1000": ranked, "1-100": ranked.iloc[::-1].reset_index(drop=True)},
                                             grid_runs=7)
    v = measured_values(found)
    assert v["table2_1-1000_row_from_reserves_1e6_1e7_demands_1_100"] == 0.05
    assert v["table2_1-1000_row_needs_reserves_above_stated"] == 0.5
    assert v["table2_1-100_row_found_in_grid"] == 0.9
    assert "2 of 5 demand ranges within 0.1" in found["table2_1-1000_row_needs_reserves_above_stated"].note
    quick = pd_drf.parameter_search_findings({"1-1000": ranked, "1-100": ranked}, grid_runs=2, ranked=False)
    assert quick["table2_1-1000_row_needs_reserves_above_stated"].note.startswith("quick mode")
