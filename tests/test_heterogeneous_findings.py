"""The khamseashari2018 claims' arithmetic (fairlib.repro.experiments.heterogeneous_servers.*_findings): every declared
claim is measured by a driver, and the numbers mean what the claims say."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from fairlib import InvalidInputError
from fairlib.repro.experiments import heterogeneous_servers as hs
from fairlib.multires import pfvds, random_cluster
from fairlib.repro.report import ClaimLog, Measurement, load_registry, measured_values, registry_path
from fairlib.sweep import sweep


@pytest.fixture(scope="module")
def small_study():
    """Every khamseashari2018 driver at a size that runs in seconds."""
    fig1 = hs.fig1_instance()
    from fairlib.multires import drfh, property_violations, psdsf, tsf

    allocs = {"PS-DSF": psdsf(fig1), "DRFH": drfh(fig1), "TSF": tsf(fig1)}
    bf = {name: property_violations(fig1, a.tasks)["BF"] for name, a in allocs.items()}
    util = pd.DataFrame({name: (a.used / np.where(fig1.capacity > 0, fig1.capacity, np.nan)).ravel()
                         for name, a in allocs.items()})
    fig3 = pd.DataFrame([{"instance": label, "alpha": a, "user": n + 1, "server_2": pfvds(fig1, a).tasks[n, 1]}
                         for label in ("Fig. 1 instance", "variant") for a in (1.0, np.inf) for n in (2, 3)])
    rates = hs.property_rates(hs.property_table(3, 1, kind="random"), hs.property_table(3, 2, kind="bottleneck"))
    theorem = sweep(hs.theorem_checks, [{"instance": i} for i in range(2)], rng=3).drop(columns="rep")
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
        "convergence": hs.convergence_findings(exact, pfvds(cluster, 2.0, method="best_response"),
                                               pfvds(cluster, 2.0, method="psmfa", iterations=30),
                                               pfvds(cluster, 2.0, method="distributed", iterations=30)),
        "one_server": hs.one_server_reductions(5, 0),
    }


def test_the_drivers_measure_every_declared_claim(small_study):
    """The notebook hands every measurement to ClaimLog.measure_all: the drivers measure exactly the declared,
    testable claims of the ledger, and the ledger accepts them."""
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
    assert v["fig1_psdsf_bottleneck_fair"] <= 1e-6 < min(v["fig1_drfh_violates_bottleneck_fairness"],
                                                         v["fig1_tsf_violates_bottleneck_fairness"])
    assert v["fig3_alpha_irrelevant_with_bottleneck"] < 1e-6


def test_property_findings_read_the_rates_table():
    mechs = ["drfh", "tsf", "psdsf", "pfvds_0.5", "pfvds_1", "pfvds_2", "pfvds_4", "pfvds_1_2_4"]
    rates = pd.DataFrame(0.0, index=mechs, columns=["SI", "EF", "PO", "BF"])
    rates.loc["tsf", "SI"], rates.loc["drfh", "BF"], rates.loc["psdsf", "EF"] = 0.25, 0.5, 0.125
    v = measured_values(hs.property_findings(rates))
    assert v["tsf_SI_placement_aware"] == 0.25 and v["drfh_violates_BF"] == 0.5
    assert v["psdsf_EF_never_violated"] == 0.125 and v["psdsf_SI_never_violated"] == 0.0


def test_property_rates_count_violations_above_the_tolerance():
    random_table = pd.DataFrame({"mechanism": ["a", "a", "b", "b"], "SI": [0.0, 1e-3, 0.0, 0.0],
                                 "EF": [1e-7, 0.0, 0.0, 2.0], "PO": 0.0})
    bottleneck = pd.DataFrame({"mechanism": ["a", "b"], "BF": [0.5, 1e-9]})
    rates = hs.property_rates(random_table, bottleneck)
    assert rates.loc["a"].tolist() == [0.5, 0.0, 0.0, 1.0]
    assert rates.loc["b"].tolist() == [0.0, 0.5, 0.0, 0.0]


def test_capped_solver_findings_say_which_alpha_falls_short():
    table = pd.DataFrame({"time_shared": [False, False, True, True], "alpha": [1.0, 64.0, 1.0, 64.0],
                          "variational_gap": [1e-10, 0.2, 1e-10, 1e-9], "error": ""})
    table["certified"] = table.variational_gap <= 1e-7
    found = hs.capped_solver_findings(table)["pfvds_capped_equilibrium_every_alpha"]
    assert found.value == 0.0 and "divisible: 1: 100.0%, 64: 0.0%" in found.note and "2.0e-01" in found.note
    assert hs.capped_solver_findings(table.assign(certified=True))["pfvds_capped_equilibrium_every_alpha"] == \
        Measurement(1.0, "")
    capped = hs.capped_equilibrium_rates(2, 5, [1.0])   # α = 1: the capped program is convex, always certified
    assert capped.certified.all() and len(capped) == 4


def test_solver_findings_say_which_alpha_falls_short():
    table = pd.DataFrame({"time_shared": [False, False, True, True], "alpha": [1.0, 64.0, 1.0, 64.0],
                          "solved": [True, False, True, True], "nash_residual": [1e-9, 3e-4, 1e-9, 1e-8],
                          "method": ["interior_point", "best_response", "interior_point", "interior_point"],
                          "sweeps": [0, 2000, 0, 0], "error": ""})
    found = hs.solver_findings(table)
    assert found["pfvds_equilibrium_every_alpha"].value == 0.0
    assert "1: 100.0%, 64: 0.0%" in found["pfvds_equilibrium_every_alpha"].note
    assert "1 finished by best_response" in found["pfvds_equilibrium_every_alpha"].note
    assert "1 of them stopped at the best responses' budget" in found["pfvds_equilibrium_every_alpha"].note
    assert found["pfvds_time_shared_equilibrium_every_alpha"] == Measurement(1.0, "")


def test_theorem_findings_need_psdsf_as_the_limit():
    theorem = pd.DataFrame()
    alpha = pd.DataFrame({"alpha": [1.0, 4.0], "distance_to_psdsf": [0.1, 0.01], "utilisation_mean": 0.9,
                          "utilisation_r0": 0.9, "utilisation_r1": 0.9, "utilisation_r2": 0.9, "nash_residual": 0.0})
    with pytest.raises(InvalidInputError, match="needs α = inf"):
        hs.theorem_findings(theorem, alpha)


def test_relative_gap():
    assert hs.relative_gap([1.0, 2.5], [1.0, 2.0]) == pytest.approx(0.25)


def test_convergence_notes_give_the_measured_reasons():
    run = SimpleNamespace(totals=np.array([1.0, 2.0]), diagnostics={"psi": np.array([10.0, 1.0])})
    merits = {"psi_penalty": 5.06e4, "psi_multipliers": 4e-20, "move_penalty": 1.01, "move_multipliers": 7e-12}
    descent = {"slope": -5e-4, "longest_step": 40.0, "best_step": 0.0156, "best_gain": 1.5e-5, "rate": 1.4e-5,
               "iterations_to_tol": 1.6e6}
    found = hs.convergence_findings(run, run, run, run, merits, descent)
    note = found["psmfa_decreases_merit"].note
    assert "step rule" in note and "1.6e+06" in note and "1.5e-05" in note and "ill-conditioned" in note
    limited = hs.convergence_findings(run, run, run, run, merits, dict(descent, best_step=40.0))
    assert "active-set zig-zag" in limited["psmfa_decreases_merit"].note
    assert "penalty prices" in found["distributed_converges"].note and "5.06e+04" in found[
        "distributed_converges"].note
    assert "not recovered" in hs.convergence_findings(run, run, run, run)["distributed_converges"].note


def test_random_caps_cap_at_least_one_user():
    """A capped instance has a cap (with six users and share 0.6 about 1 draw in 250 would have none)."""
    cluster = random_cluster(np.random.default_rng(0), 6, 3, 3)
    for seed in range(300):
        capped = hs.with_random_caps(seed, cluster)
        assert capped.capped and (capped.max_tasks[np.isfinite(capped.max_tasks)] < cluster.gamma.sum(axis=1)[
            np.isfinite(capped.max_tasks)]).all()
    assert hs.with_random_caps(1, cluster, share=0.0).capped
