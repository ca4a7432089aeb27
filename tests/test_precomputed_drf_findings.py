"""The metin2025 claims' arithmetic (fairlib.repro.experiments.precomputed_drf.*_findings): known
answers on hand-built tables, one claim per declared id, bad input named."""

import numpy as np
import pandas as pd
import pytest

from fairlib import InvalidInputError
from fairlib.repro.experiments import precomputed_drf as pd_drf
from fairlib.repro.ledger import ClaimLog, load_registry, measured_values, registry_path


def _table(names, runs=1000):
    return pd.DataFrame(
        [
            {
                "demands": name,
                "runs": runs,
                **{c: float(i) for i, c in enumerate(pd_drf.TABLE_COLUMNS)},
                **{f"{c}_sd": 0.5 for c in pd_drf.SUBCOUNT_SD},
            }
            for name in names
        ]
    )


def test_table_findings_one_claim_per_cell_with_its_runs():
    found = pd_drf.table_findings(
        _table(["1-10", "1-20", "10-20"]), _table(["1-100", "1-1000"], runs=20)
    )
    assert len(found) == 5 * len(pd_drf.TABLE_COLUMNS) - 3 * len(pd_drf.TAIL_CLAIMS)
    declared = load_registry(registry_path("metin2025"), "metin2025")
    assert set(found) <= set(declared)
    assert found["table2_1-1000_over_sd"].runs == 20 and found["table1_1-10_under_1"].runs == 1000
    # a claim whose rule does not read a run count (equals) is measured without one: the ledger
    # refuses runs= there
    assert declared["table1_1-10_under_2"].rule.takes_runs is False
    assert found["table1_1-10_under_2"].runs is None
    log = ClaimLog("metin2025", write=False)
    log.measure_all({k: v for k, v in found.items() if not declared[k].not_tested})
    assert (
        "table1_1-20_over_max" not in found and "table1_1-20_over_sd" not in found
    )  # table1_tail_findings
    assert "does not follow from its stated parameters" in found["table2_1-100_over_1"].note
    assert found["table1_10-20_over_avg"].value == float(pd_drf.TABLE_COLUMNS.index("over_avg"))
    assert found["table2_1-100_over_2"].sd == 0.5 and found["table2_1-100_over_avg"].sd is None
    log = ClaimLog("metin2025", write=False)
    log.measure_all(
        found
    )  # the se rules get their runs, and the sub-count columns our runs' standard deviation
    over_2 = next(c for c in log.claims if c.claim_id == "table2_1-100_over_2")
    assert "sd = pooled = " in over_2.rule and over_2.rule.endswith("runs = 20")
    with pytest.raises(
        InvalidInputError, match=r"^table2: no column 'runs' \(needs \['demands', 'under_1'"
    ):
        pd_drf.table_findings(_table(["1-10"]), _table(["1-100"]).drop(columns="runs"))


def test_identity_findings_count_what_the_claims_say():
    identity = pd.DataFrame(
        {
            "other": [0, 1],
            "simplified_off_floor_edrf": [3, 2],
            "ds_max_off_floor_edrf": [1, 0],
            "bound_violations": [0, 0],
            "drf_minus_edrf_max": [0.5, 1.0],
            "corrected_drf_minus_edrf_max": [1.5, 0.25],
            "pdrf_over_allocates": [False, True],
            "topup_equals_corrected_drf": [True, False],
        }
    )
    v = measured_values(pd_drf.identity_findings(identity))
    assert v == {
        "pdrf_equals_floor_edrf": 1,
        "simplified_variant_less_accurate": 4,
        "literal_drf_within_derived_bound": 0,
        "drf_never_exceeds_edrf_plus_one": 1.0,
        "topup_equals_corrected_drf_when_no_over_allocation": True,
    }
    note = pd_drf.identity_findings(identity)["drf_never_exceeds_edrf_plus_one"].note
    assert (
        "over 2 random instances: 1;" in note
        and "corrected DRF, not the claim's loop): 1.5" in note
    )


def test_drf_work_per_task_slope_per_doubling():
    n = np.array([1_000, 2_000, 4_000, 8_000])
    speed = pd.DataFrame(
        {"method": "drf", "n": n, "tasks": 10 * n, "work": 10 * n * (3 + 2 * np.log2(n))}
    )
    found = pd_drf.drf_work_per_task_findings(pd.concat([speed, speed.assign(method="pdrf")]))
    assert found["drf_heap_work_grows_with_log_n"].value == pytest.approx(2.0)
    assert "at n = 8,000" in found["drf_heap_work_grows_with_log_n"].note
    with pytest.raises(InvalidInputError, match="has 1"):
        pd_drf.drf_work_per_task_findings(speed.iloc[:1])


def test_repository_example_is_the_papers():
    v = measured_values(pd_drf.repository_example_findings())
    assert v == {
        "repository_example_pdrf_752_1637": [752, 1637],
        "repository_example_drf_753_1637": [753, 1637],
    }


def test_over_allocation_search_adds_both_searches():
    runs = pd.DataFrame({"over_total": [0, 1, 0]})
    found = pd_drf.over_allocation_search_findings(
        runs, runs.iloc[:2], runs.iloc[:1], runs.iloc[:1]
    )
    assert found["table1_10-20_never_over_allocates"].value == 2
    assert found["table1_10-20_never_over_allocates_exact_shares"].value == 0
    assert (
        "in 5 runs (the 3 Table 1 runs and 2 more)"
        in found["table1_10-20_never_over_allocates"].note
    )


def test_parameter_search_findings_read_the_ranked_grid():
    rows = [
        (50_000, 100_000, 1, 100, 0.9),
        (50_000, 100_000, 1, 1000, 0.5),
        (1_000_000, 10_000_000, 1, 100, 0.05),
        (1_000_000, 10_000_000, 1, 1000, 0.08),
    ]
    grid = pd.DataFrame(
        rows, columns=["reserve_low", "reserve_high", "demand_low", "demand_high", "distance"]
    )
    ranked = grid.sort_values("distance").reset_index(drop=True)
    found = pd_drf.parameter_search_findings(
        {"1-1000": ranked, "1-100": ranked.iloc[::-1].reset_index(drop=True)}, grid_runs=7
    )
    v = measured_values(found)
    assert v["table2_1-1000_row_from_reserves_1e6_1e7_demands_1_100"] == 0.05
    assert v["table2_1-1000_row_needs_reserves_above_stated"] == 0.5
    assert v["table2_1-100_row_found_in_grid"] == 0.9
    assert (
        "2 of 5 demand ranges within 0.1"
        in found["table2_1-1000_row_needs_reserves_above_stated"].note
    )
    quick = pd_drf.parameter_search_findings(
        {"1-1000": ranked, "1-100": ranked}, grid_runs=2, ranked=False
    )
    assert quick["table2_1-1000_row_needs_reserves_above_stated"].note.startswith("quick mode")


def test_subcycles_follow_the_hand_traced_filling():
    # shares 5 and 4, ties to the higher share: C L L | C L | C L | C L | C L L  (extras at
    # subcycles 1 and 5)
    assert pd_drf.subcycle_lower_counts(5, 4, 5) == [2, 1, 1, 1, 2]
    # shares 7 and 5: C L L | C L | C L L | C L | C L | C L L  (gaps 2, 3)
    assert pd_drf.subcycle_lower_counts(7, 5, 6) == [2, 1, 2, 1, 1, 2]
    assert pd_drf.subcycle_lower_counts(4, 2, 3) == [
        2,
        2,
        2,
    ]  # an integer ratio: no extra subcycles
    with pytest.raises(InvalidInputError, match="ds_high > ds_low"):
        pd_drf.subcycle_lower_counts(4, 5)


def test_worked_example_findings_measure_the_papers_counts_and_the_formulas():
    found = pd_drf.worked_example_findings()
    v = measured_values(found)
    assert v["higher_order_cycle_uses_26_units"] == 2 * 4 + 4 * 2 + 10 * 1
    assert v["higher_order_nine_units_left"] == 35 - (2 * 5 + 4 * 2 + 10 * 1)
    assert "⌊ds*/ds_i⌋ are (5, 2, 1)" in found["higher_order_cycle_uses_26_units"].note
    assert "would leave 9" in found["higher_order_nine_units_left"].note
    assert v["pareto_halts_after_10_iterations"] == 10
    assert len(v["subcycle_ratio_1_25"]) == 20 and v["subcycle_ratio_1_4"][:6] == [2, 1, 2, 1, 1, 2]
    assert set(found) <= set(load_registry(registry_path("metin2025"), "metin2025"))


def test_sd_bootstrap_interval_is_wider_than_the_normal_rule_for_a_rare_count():
    rng = np.random.default_rng(3)
    rare = (
        rng.poisson(0.2, size=1000) * (rng.random(1000) < 0.05) * 20
    )  # mostly 0, a few large counts
    lo, hi = pd_drf.sd_bootstrap_interval(rare, n_paper=1000, resamples=2000, seed=1)
    sd = rare.std()
    assert lo < sd < hi
    normal_half = (
        2.576 * sd * np.sqrt(1 / 2000 + 1 / 2000)
    )  # 99% of a difference of two sd's, normal data
    assert (hi - lo) / 2 > 1.5 * normal_half
    assert pd_drf.sd_bootstrap_interval(np.zeros(50)) == (0.0, 0.0)
    # deterministic: the seed fixes the interval
    assert pd_drf.sd_bootstrap_interval(rare, seed=1) == pd_drf.sd_bootstrap_interval(rare, seed=1)
    with pytest.raises(InvalidInputError, match="2 runs or more"):
        pd_drf.sd_bootstrap_interval([1.0])


def test_max_plausibility_three_ways():
    # the maximum 2 reached in 40 of 1000 runs, never exceeded: 100 runs end at 2 at any plausible
    # rate
    held = pd_drf.max_plausibility(np.r_[np.full(40, 2), np.ones(960)], 2, n_paper=100)
    assert held["p_low"] >= 0.01 and held["score"] == held["p_low"]
    # ... but not 1000 runs: as many runs as ours, never exceeding 2, cannot exclude a 0.5% rate of
    # exceeding it
    assert pd_drf.max_plausibility(np.r_[np.full(40, 2), np.ones(960)], 2)["score"] == 0.01
    # exceeded in 200 of 1000 runs: 1000 runs without one above 2 are impossible
    no = pd_drf.max_plausibility(np.r_[np.full(200, 3), np.ones(800)], 2)
    assert no["p_high"] < 0.01 and no["score"] == no["p_high"]
    # never reached in our 1000 runs: a rare rate cannot be excluded, nor confirmed
    open_ = pd_drf.max_plausibility(np.ones(1000), 2)
    assert open_["p_low"] == 0.0 and open_["p_high"] > 0.01 and open_["score"] == 0.01
    assert (open_["runs_at_least"], open_["runs_above"]) == (0, 0)


def test_table1_tail_findings_decide_the_tail_claims():
    runs = pd.DataFrame(
        {
            "demands": ["10-20"] * 1000 + ["1-10"] * 1000,
            "over_total": np.r_[np.zeros(1000), np.tile([0, 0, 0, 20], 250)],
            "over_max": np.r_[np.zeros(1000), np.full(1000, 3)],
        }
    )
    found = pd_drf.table1_tail_findings(runs, resamples=500)
    log = ClaimLog("metin2025", write=False)
    log.measure_all(found)
    status = {c.claim_id: c.status for c in log.claims}
    assert status["table1_10-20_over_sd"] == "held"  # all zero, as the paper prints
    assert (
        status["table1_10-20_over_max"] == "inconclusive"
    )  # 0 in 1000 runs: a rate up to 0.5% stays possible
    assert (
        status["table1_1-10_over_sd"] == "not reproduced"
    )  # sd 8.7 here: the printed 2.137 is far outside
    assert status["table1_1-10_over_max"] == "not reproduced"  # every run above the printed 2
    near = runs.assign(
        over_total=np.r_[np.zeros(1000), np.tile([0, 0, 0, 5], 250)]
    )  # sd 2.17 vs 2.137
    assert (
        measured_values(pd_drf.table1_tail_findings(near, resamples=500))["table1_1-10_over_sd"][0]
        > 0
    )
    with pytest.raises(InvalidInputError, match="not a row of Table 1"):
        pd_drf.table1_tail_findings(runs.assign(demands="2-30"))


def test_median_interval_order_statistics():
    assert pd_drf.median_interval(range(1, 16)) == (8.0, 4.0, 12.0, 0.96484375)
    med, lo, hi, cover = pd_drf.median_interval([3.0, 1.0, 2.0])
    assert (med, lo, hi) == (
        2.0,
        1.0,
        3.0,
    ) and cover == 0.75  # too few rounds: the range, with its coverage
    with pytest.raises(InvalidInputError):
        pd_drf.median_interval([])


def test_variant_speed_findings_take_the_interval_low_end():
    ratios = pd.DataFrame(
        {"ratio": [0.9, 1.2, 1.1, 1.3, 1.05, 1.15, 1.25, 1.0, 1.1, 1.2, 1.3, 1.4, 1.1, 1.2, 0.95]}
    )
    found = pd_drf.variant_speed_findings(ratios)["simplified_variant_slower"]
    assert found.value == pytest.approx(sorted(ratios.ratio)[3])  # the 4th of 15
    assert "over 15 alternating rounds" in found.note
    log = ClaimLog("metin2025", write=False)
    log.measure_all({"simplified_variant_slower": found})
    assert next(c for c in log.claims if c.claim_id == "simplified_variant_slower").status == "held"
    slow = pd_drf.variant_speed_findings(ratios.assign(ratio=ratios.ratio - 0.2))[
        "simplified_variant_slower"
    ]
    assert slow.value < 1


def test_variant_time_ratios_alternate_and_divide():
    d, c = pd_drf.random_single_pool(np.random.default_rng(0), 200, 3)
    t = pd_drf.variant_time_ratios(d, c, repetitions=3, repeat=1)
    assert list(t["round"]) == [0, 1, 2] and np.allclose(t.ratio, t.simplified / t.ds_max)


def _frame(**columns):
    return pd.DataFrame(columns)


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: pd_drf.table_row(_frame(under_1=[0])),
            r"^runs: no column 'under_2', 'under_gt2', .*; its columns: \['under_1'\]\)",
        ),
        (lambda: pd_drf.table_row(_frame(**dict.fromkeys(pd_drf.DEVIATION_FIELDS, []))), "no run"),
        (
            lambda: pd_drf.identity_findings(_frame(other=[0])),
            r"^identity: no column 'pdrf_over_allocates', 'topup_equals_corrected_drf', "
            r"'simplified_off_floor_edrf', .*; its columns: \['other'\]\)",
        ),
        (
            lambda: pd_drf.drf_work_per_task_findings(_frame(method=["drf"])),
            r"^speed_n: no column 'n', 'tasks', 'work' \(needs \['method', 'n', 'tasks', 'work'\]; "
            r"its columns: \['method'\]\)",
        ),
        (
            lambda: pd_drf.over_allocation_search_findings(
                *[_frame(over_total=[0])] * 3, _frame(runs=[1])
            ),
            r"^exact_extra_runs: no column 'over_total' \(needs \['over_total'\]; its columns: "
            r"\['runs'\]\)",
        ),
        (
            lambda: pd_drf.variant_speed_findings(_frame(seconds=[1.0])),
            r"^ratios: no column 'ratio' \(needs \['ratio'\]; its columns: \['seconds'\]\)",
        ),
        (
            lambda: pd_drf.table1_tail_findings(_frame(demands=["1-10"])),
            r"^table1_runs: no column 'over_total', 'over_max' \(needs \['demands', 'over_total', "
            r"'over_max'\]; its columns: \['demands'\]\)",
        ),
        (
            lambda: pd_drf.over_allocation_findings(_frame(table=[2]), _frame(over_avg=[1.0])),
            r"^profile: no column 'demands', 'group', 'rate_low', .*; its columns: \['table'\]\)",
        ),
        (
            lambda: pd_drf.parameter_search_findings({"1-100": _frame(distance=[0.1])}, 2),
            r"^searches\['1-100'\]: no column 'reserve_low', 'reserve_high', 'demand_low', "
            r"'demand_high' \(needs .*; its columns: \['distance'\]\)",
        ),
    ],
)
def test_findings_refuse_a_table_missing_a_column_they_read(call, message):
    with pytest.raises(InvalidInputError, match=message):
        call()


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: pd_drf.table_row(
                _frame(**dict.fromkeys(pd_drf.DEVIATION_FIELDS, [0, 1]))
                .astype(object)
                .assign(over_total=[0, "x"])
            ),
            r"^runs row 1 \(index 1\), column 'over_total' = 'x': must be a number",
        ),
        (
            lambda: pd_drf.variant_speed_findings(_frame(ratio=[1.0, -0.5])),
            r"^ratios row 1 \(index 1\), column 'ratio' = -0\.5: must be finite and >= 0",
        ),
        (
            lambda: pd_drf.over_allocation_search_findings(
                *[_frame(over_total=[0])] * 3, _frame(over_total=[True])
            ),
            r"^exact_extra_runs row 0 \(index 0\), column 'over_total' = True: must be a number",
        ),
    ],
)
def test_findings_refuse_a_number_column_holding_something_else_by_row(call, message):
    with pytest.raises(InvalidInputError, match=message):
        call()


def test_findings_refuse_tables_without_the_rows_they_read():
    runs = _frame(demands=["1-10"], over_total=[0], over_max=[0])
    with pytest.raises(InvalidInputError, match="has 1 run"):
        pd_drf.table1_tail_findings(runs)
    grid = _frame(
        reserve_low=[1], reserve_high=[2], demand_low=[1], demand_high=[5], distance=[0.1]
    )
    with pytest.raises(InvalidInputError, match="reserves from 1,000,000"):
        pd_drf.parameter_search_findings({"1-100": grid, "1-1000": grid}, 2)
    with pytest.raises(InvalidInputError, match="searches key = 'x'"):
        pd_drf.parameter_search_findings({"1-100": grid, "1-1000": grid, "x": grid}, 2)
    profile = _frame(
        table=[1], demands=["1-10"], group=["all"], rate_low=[np.nan], users=[1], over=[0],
        over_rate=[0.0], mean_rate=[1.0],
    )  # fmt: skip
    with pytest.raises(InvalidInputError, match="'all ones' of Table 2's row '1-100'"):
        pd_drf.over_allocation_findings(profile, _frame(over_avg=[1.0]))


def test_the_experiments_refuse_bad_settings_by_name():
    with pytest.raises(InvalidInputError, match="stop = 'x'"):
        pd_drf.DeviationExperiment(stop="x")
    with pytest.raises(InvalidInputError, match="n_users = 2000000"):
        pd_drf.DeviationExperiment(n_users=2_000_000)
    with pytest.raises(InvalidInputError, match="setups: key 1 is not text"):
        pd_drf.deviation_runs({1: pd_drf.DeviationExperiment()}, 1, 0)
    with pytest.raises(InvalidInputError, match=r"grid\[1\] .* repeated"):
        pd_drf.parameter_search(
            dict.fromkeys(pd_drf.MATCH_FIELDS, 1.0), [((20, 40), (1, 5)), ([20, 40], [1, 5])], 1, 0
        )
    with pytest.raises(InvalidInputError, match=r"n_users \(2 values\) and reserve_scale \(3"):
        pd_drf.scaled_instances(0, n_users=[4, 5], reserve_scale=[1.0, 2.0, 3.0])
    with pytest.raises(InvalidInputError, match="max_size key = 'heap'"):
        pd_drf.speed_sweep([({"n": 1}, [[1.0]], [5.0])], max_size={"heap": 0})
    with pytest.raises(InvalidInputError, match=r"instances\[0\]\[0\] = \['n'\]"):
        pd_drf.speed_sweep([(["n"], [[1.0]], [5.0])])
    with pytest.raises(InvalidInputError, match=r"instances\[0\]\[1\]\[0, 0\] = -1.0"):
        pd_drf.speed_sweep([({"n": 1}, [[-1.0]], [5.0])])
    with pytest.raises(InvalidInputError, match=r"instances\[0\]\[2\]"):
        pd_drf.speed_sweep([({"n": 1}, [[1.0]], [5.0, 5.0])])
    with pytest.raises(InvalidInputError, match="edges = "):
        pd_drf.over_allocation_profile({"a": pd_drf.DeviationExperiment()}, 1, 0, edges=(2.0, 3.0))


def test_scaled_instances_take_one_scale_or_one_size_for_many():
    one = pd_drf.scaled_instances(3, n_users=[4, 6], reserve_scale=0.5, n_resources=2)
    assert [label for label, _, _ in one] == [
        {"n": 4, "reserve_scale": 0.5},
        {"n": 6, "reserve_scale": 0.5},
    ]
    many = pd_drf.scaled_instances(3, n_users=4, reserve_scale=np.array([0.5, 2.0]), n_resources=2)
    assert [label["reserve_scale"] for label, _, _ in many] == [0.5, 2.0]
