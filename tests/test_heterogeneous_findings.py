"""The khamseashari2018 claims' arithmetic
(fairlib.repro.experiments.heterogeneous_servers.*_findings): every declared claim is measured by a
driver, and the numbers mean what the claims say."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from fairlib import InvalidInputError
from fairlib.repro.experiments import heterogeneous_servers as hs
from fairlib.multires import pfvds, random_cluster
from fairlib.repro.ledger import (
    ClaimLog,
    Measurement,
    load_registry,
    measured_values,
    registry_path,
)
from fairlib.sweep import sweep


@pytest.fixture(scope="module")
def small_study():
    """Every khamseashari2018 driver at a size that runs in seconds."""
    fig1 = hs.fig1_instance()
    from fairlib.multires import drfh, property_violations, psdsf, tsf

    allocs = {"PS-DSF": psdsf(fig1), "DRFH": drfh(fig1), "TSF": tsf(fig1)}
    bf = {name: property_violations(fig1, a.tasks)["BF"] for name, a in allocs.items()}
    util = pd.DataFrame(
        {
            name: (a.used / np.where(fig1.capacity > 0, fig1.capacity, np.nan)).ravel()
            for name, a in allocs.items()
        }
    )
    fig3 = pd.DataFrame(
        [
            {"instance": label, "alpha": a, "user": n + 1, "server_2": pfvds(fig1, a).tasks[n, 1]}
            for label in ("Fig. 1 instance", "variant")
            for a in (1.0, np.inf)
            for n in (2, 3)
        ]
    )
    rates = hs.property_rates(
        hs.property_table(3, 1, kind="random"), hs.property_table(3, 2, kind="bottleneck")
    )
    theorem = sweep(hs.theorem_checks, [{"instance": i} for i in range(2)], rng=3).drop(
        columns="rep"
    )
    alpha = hs.alpha_sweep(2, 4, [1.0, 4.0, 64.0, np.inf], n_users=5, n_servers=3)
    conditions = hs.equilibrium_conditions(2, 5, alphas=(1.0, 2.0))
    solver = hs.equilibrium_rates(3, 1, [1.0, 64.0])
    route = hs.definition4_route(3, 6, (4.0, 16.0))
    cluster = random_cluster(np.random.default_rng(7), 6, 3, 3)
    exact = pfvds(cluster, 2.0)
    return {
        "fig1": hs.fig1_findings(hs.fig1_checks(fig1), bf, util, fig3),
        "property": hs.property_findings(rates),
        "theorem": hs.theorem_findings(theorem, alpha),
        "conditions": hs.condition_findings(conditions),
        "solver": hs.solver_findings(solver),
        "capped": hs.capped_solver_findings(hs.capped_equilibrium_rates(2, 1, [1.0, 4.0])),
        "route": hs.route_findings(route),
        "convergence": hs.convergence_findings(exact, pfvds(cluster, 2.0, method="best_response")),
        "one_server": hs.one_server_reductions(5, 0),
        "fds": {"pfvds_reduces_to_fds_on_one_server": hs.one_server_fds(2, 0)},
    }


def test_the_drivers_measure_every_declared_claim(small_study):
    """The notebook hands every measurement to ClaimLog.measure_all: the drivers measure exactly the
    declared, testable claims of the ledger, and the ledger accepts them."""
    declared = load_registry(registry_path("khamseashari2018"), "khamseashari2018")
    measured = [cid for found in small_study.values() for cid in found]
    assert len(measured) == len(set(measured))
    assert set(measured) == {cid for cid, d in declared.items() if not d.not_tested}
    log = ClaimLog("khamseashari2018", write=False)
    for found in small_study.values():
        assert all(isinstance(m, Measurement) for m in found.values())
        log.measure_all(found)
    assert not log._complete()


def test_fig1_findings_on_the_hypothetical_instance(small_study):
    v = measured_values(small_study["fig1"])
    assert v["fig1_hypothetical_instance_meets_constraints"] is True
    assert (
        v["fig1_psdsf_bottleneck_fair"]
        <= 1e-6
        < min(
            v["fig1_drfh_violates_bottleneck_fairness"], v["fig1_tsf_violates_bottleneck_fairness"]
        )
    )
    assert v["fig3_alpha_irrelevant_with_bottleneck"] < 1e-6


def test_property_findings_read_the_rates_table():
    mechs = ["drfh", "tsf", "psdsf", "pfvds_0.5", "pfvds_1", "pfvds_2", "pfvds_4", "pfvds_1_2_4"]
    rates = pd.DataFrame(0.0, index=mechs, columns=["SI", "EF", "PO", "BF"])
    rates.loc["tsf", "SI"], rates.loc["drfh", "BF"], rates.loc["psdsf", "EF"] = 0.25, 0.5, 0.125
    v = measured_values(hs.property_findings(rates))
    assert v["tsf_SI_placement_aware"] == 0.25 and v["drfh_violates_BF"] == 0.5
    assert v["psdsf_EF_never_violated"] == 0.125 and v["psdsf_SI_never_violated"] == 0.0


def test_property_rates_count_violations_above_the_tolerance():
    random_table = pd.DataFrame(
        {
            "mechanism": ["a", "a", "b", "b"],
            "SI": [0.0, 1e-3, 0.0, 0.0],
            "EF": [1e-7, 0.0, 0.0, 2.0],
            "PO": 0.0,
        }
    )
    bottleneck = pd.DataFrame({"mechanism": ["a", "b"], "BF": [0.5, 1e-9]})
    rates = hs.property_rates(random_table, bottleneck)
    assert rates.loc["a"].tolist() == [0.5, 0.0, 0.0, 1.0]
    assert rates.loc["b"].tolist() == [0.0, 0.5, 0.0, 0.0]


def test_capped_solver_findings_say_which_alpha_falls_short():
    table = pd.DataFrame(
        {
            "time_shared": [False, False, True, True],
            "alpha": [1.0, 64.0, 1.0, 64.0],
            "variational_gap": [1e-10, 0.2, 1e-10, 1e-9],
            "error": "",
        }
    )
    table["certified"] = table.variational_gap <= 1e-7
    found = hs.capped_solver_findings(table)["pfvds_capped_equilibrium_every_alpha"]
    assert (
        found.value == 0.0
        and "divisible: 1: 100.0%, 64: 0.0%" in found.note
        and "2.0e-01" in found.note
    )
    assert hs.capped_solver_findings(table.assign(certified=True))[
        "pfvds_capped_equilibrium_every_alpha"
    ] == Measurement(1.0, "")
    capped = hs.capped_equilibrium_rates(
        2, 5, [1.0]
    )  # α = 1: the capped program is convex, always certified
    assert capped.certified.all() and len(capped) == 4


def test_solver_findings_say_which_alpha_falls_short():
    table = pd.DataFrame(
        {
            "time_shared": [False, False, True, True],
            "alpha": [1.0, 64.0, 1.0, 64.0],
            "solved": [True, False, True, True],
            "nash_residual": [1e-9, 3e-4, 1e-9, 1e-8],
            "method": ["interior_point", "best_response", "interior_point", "interior_point"],
            "sweeps": [0, 2000, 0, 0],
            "error": "",
        }
    )
    found = hs.solver_findings(table)
    assert found["pfvds_equilibrium_every_alpha"].value == 0.0
    assert "1: 100.0%, 64: 0.0%" in found["pfvds_equilibrium_every_alpha"].note
    assert "1 finished by best_response" in found["pfvds_equilibrium_every_alpha"].note
    assert (
        "1 of them stopped at the best responses' budget"
        in found["pfvds_equilibrium_every_alpha"].note
    )
    assert found["pfvds_time_shared_equilibrium_every_alpha"] == Measurement(1.0, "")


def test_theorem_findings_need_psdsf_as_the_limit():
    theorem = pd.DataFrame(
        {
            "pf_objective_shortfall": [0.0],
            "bottleneck_distance": 0.0,
            "time_shared_distance": 0.0,
            "time_shared_definition4_gap": 0.0,
            "psdsf_converged": True,
            "psdsf_fixed_point_converged": True,
            "psdsf_solutions_distance": 0.0,
            "psdsf_fixed_point_definition4": True,
        }
    )
    alpha = pd.DataFrame(
        {
            "instance": 0,
            "solver": "interior_point",
            "alpha": [1.0, 4.0],
            "distance_to_psdsf": [0.1, 0.01],
            "utilisation_mean": 0.9,
            "utilisation_r0": 0.9,
            "utilisation_r1": 0.9,
            "utilisation_r2": 0.9,
            "nash_residual": 0.0,
        }
    )
    with pytest.raises(InvalidInputError, match="needs α = inf"):
        hs.theorem_findings(theorem, alpha)


def test_relative_gap():
    assert hs.relative_gap([1.0, 2.5], [1.0, 2.0]) == pytest.approx(0.25)


def test_convergence_findings_judge_only_the_recoverable_solvers():
    """PS-MFA and the distributed heuristic were lost with the paper's equations: their claims are
    declared not tested (the ledger refuses a measurement of them) and the driver measures only the
    two exact solvers' agreement."""
    exact = SimpleNamespace(totals=np.array([1.0, 2.0]))
    other = SimpleNamespace(totals=np.array([1.0, 2.5]))
    found = hs.convergence_findings(exact, other)
    assert list(found) == ["interior_point_equals_best_responses"]
    assert found["interior_point_equals_best_responses"].value == pytest.approx(0.25)
    declared = load_registry(registry_path("khamseashari2018"), "khamseashari2018")
    for cid in (
        "psmfa_decreases_merit",
        "distributed_converges",
        "lemma3_strict_descent_direction",
    ):
        assert declared[cid].not_tested.startswith("not tested (algorithm not recoverable)")
        with pytest.raises(ValueError, match="declared not_tested"):
            ClaimLog("khamseashari2018", write=False).measure(cid, 0.0)


def test_random_caps_cap_at_least_one_user():
    """A capped instance has a cap (with six users and share 0.6 about 1 draw in 250 would have
    none)."""
    cluster = random_cluster(np.random.default_rng(0), 6, 3, 3)
    for seed in range(300):
        capped = hs.with_random_caps(seed, cluster)
        assert (
            capped.capped
            and (
                capped.max_tasks[np.isfinite(capped.max_tasks)]
                < cluster.gamma.sum(axis=1)[np.isfinite(capped.max_tasks)]
            ).all()
        )
    assert hs.with_random_caps(1, cluster, share=0.0).capped


def _alpha_table(distances: dict) -> pd.DataFrame:
    """An alpha_sweep-like table: per instance its distances along α = 1, 4, 64, PS-DSF (α = inf)
    last."""
    rows = []
    for instance, ds in distances.items():
        for a, d in zip((1.0, 4.0, 64.0, np.inf), [*ds, 0.0]):
            rows.append(
                {
                    "instance": instance,
                    "alpha": a,
                    "distance_to_psdsf": d,
                    "definition4_gap": d / 2,
                    "utilisation_mean": 0.9 - 0.01 * np.log(a) if np.isfinite(a) else 0.8,
                    "utilisation_r0": 0.9,
                    "utilisation_r1": 0.9,
                    "utilisation_r2": 0.9,
                    "nash_residual": 0.0,
                    "solver": "interior_point",
                }
            )
    return pd.DataFrame(rows)


def test_theorem2_is_judged_instance_by_instance():
    """Theorem 2 is a limit for each instance: one far cluster fails the claim even where the mean
    is small, and a cluster whose distance rises somewhere along α counts against the trend finding
    (the mean may still fall)."""
    theorem = pd.DataFrame(
        {
            "pf_objective_shortfall": [0.0],
            "bottleneck_distance": [0.0],
            "time_shared_definition4_gap": [0.0],
            "psdsf_converged": [True],
            "psdsf_fixed_point_converged": [True],
            "psdsf_fixed_point_definition4": [True],
            "psdsf_solutions_distance": [0.0],
            "time_shared_distance": [0.0],
        }
    )
    # 9 close clusters and one at 0.2 at α = 64: the mean 0.029 would pass a mean rule at 0.05
    table = _alpha_table({**{i: [0.3, 0.1, 0.01] for i in range(9)}, 9: [0.3, 0.1, 0.2]})
    per = hs.approach_per_instance(table)
    assert per.final.tolist() == pytest.approx([0.01] * 9 + [0.2])
    assert per.non_increasing.tolist() == [True] * 9 + [False]
    assert per.definition4_gap.iloc[-1] == pytest.approx(0.1)
    found = hs.theorem_findings(theorem, table)
    assert found["theorem2_alpha_to_infinity_psdsf"].value == pytest.approx(0.2)
    assert "1 of 10 clusters are more than 0.05" in found["theorem2_alpha_to_infinity_psdsf"].note
    assert (
        "cluster 9: distance along α 0.3, 0.1, 0.2"
        in found["theorem2_alpha_to_infinity_psdsf"].note
    )
    assert found["theorem2_distance_decreases_with_alpha"].value == pytest.approx(0.9)
    log = ClaimLog("khamseashari2018", write=False)
    log.measure_all(
        {
            k: found[k]
            for k in ("theorem2_alpha_to_infinity_psdsf", "theorem2_distance_decreases_with_alpha")
        }
    )
    assert [c.status for c in log.claims] == ["not reproduced", "not reproduced"]
    # a step up within the solvers' tolerance is no rise; every cluster close: both hold
    fine = _alpha_table({i: [0.3, 0.01, 0.01 + 5e-7] for i in range(3)})
    ok = hs.theorem_findings(theorem, fine)
    assert ok["theorem2_alpha_to_infinity_psdsf"].value == pytest.approx(0.01 + 5e-7)
    assert ok["theorem2_distance_decreases_with_alpha"].value == 1.0
    with pytest.raises(InvalidInputError, match="no finite"):
        hs.approach_per_instance(table[~np.isfinite(table.alpha)])


def test_fds_kkt_residual_tells_fds_from_other_allocations():
    """PF-VDS on one server meets FDS's optimality conditions; DRF's allocation, PS-DSF's and PF-VDS
    at another α do not, and an infeasible one is infinitely far."""
    from fairlib.multires import psdsf

    cluster = random_cluster(np.random.default_rng(3), 6, 1, 3, eligible_fraction=1.0)
    d, c = cluster.demand, cluster.capacity[0]
    for alpha in (0.5, 1.0, 4.0):
        assert hs.fds_kkt_residual(d, c, pfvds(cluster, alpha).tasks, alpha) < 1e-6
    assert hs.fds_kkt_residual(d, c, psdsf(cluster).tasks, 1.0) > 1e-2
    assert hs.fds_kkt_residual(d, c, pfvds(cluster, 4.0).tasks, 1.0) > 1e-2
    assert hs.fds_kkt_residual(d, c, 2 * pfvds(cluster, 1.0).tasks, 1.0) == np.inf
    found = hs.one_server_fds(3, 0, alphas=(1.0, 2.0))
    assert found.value < 1e-6 and "3 unweighted one-server clusters" in found.note
    log = ClaimLog("khamseashari2018", write=False)
    log.measure("pfvds_reduces_to_fds_on_one_server", found.value)
    log.measure("psdsf_reduces_to_drf_on_one_server", 0.0)
    assert log.claims[0].status == "held"
