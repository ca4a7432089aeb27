"""The mechanism contract and registry: every static mechanism as ``mechanism(cluster) ->
Allocation``, asset fairness and CEEI against their slow references, the generic property checkers,
and a toy mechanism registered in a few lines that appears in the property table, a replay and the
benchmark list with no other edit. The rules every registered mechanism must meet are in
tests/test_registry.py."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairlib import mechanisms
from fairlib._validate import InvalidInputError
from fairlib.repro.experiments import heterogeneous_servers
from fairlib.multires import (
    Allocation,
    Cluster,
    asset_fairness,
    asset_share_per_task,
    ceei,
    drf,
    edrf,
    leontief_tasks,
    maxmin_lp,
    pdrf,
    random_cluster,
)
from fairlib.properties import mechanism_properties, strategyproofness_violation
from fairlib.repro.plotting import color, label
from tests.reference import proportional_fair_slsqp

DRF_EXAMPLE = Cluster.single_pool([9, 18], [[1, 4], [3, 1]])  # Ghodsi et al. 2011, §4


def random_pool(seed, n_users=5, n_resources=3):
    rng = np.random.default_rng(seed)
    return Cluster.single_pool(
        rng.uniform(5, 20, n_resources),
        rng.uniform(0.1, 1.0, (n_users, n_resources)),
        weight=rng.choice([1.0, 2.0, 4.0], n_users),
    )


def test_array_signatures_agree_with_the_contract():
    d, c = [[1, 4], [3, 1]], [9, 18]
    assert drf(DRF_EXAMPLE).tasks.ravel().tolist() == drf(d, c).tasks.tolist() == [3, 2]
    # every result reports each user's dominant resource and share (DRF paper §4: RAM for A, CPU
    # for B, 2/3 each)
    assert drf(DRF_EXAMPLE).dominant_resource.tolist() == [1, 0]
    assert np.allclose(drf(DRF_EXAMPLE).dominant_shares, [2 / 3, 2 / 3])
    assert np.allclose(edrf(DRF_EXAMPLE).tasks.ravel(), edrf(d, c).tasks)
    # EDRF's and PDRF's array results report it too, computed when asked
    assert edrf(d, c).dominant_resource.tolist() == pdrf(d, c).dominant_resource.tolist() == [1, 0]
    assert edrf([[1, 0], [0, 2], [3, 3]], [4, 8]).dominant_resource.tolist() == [0, 1, 0]
    assert pdrf(DRF_EXAMPLE).tasks.ravel().tolist() == pdrf(d, c).tasks.tolist()
    with pytest.raises(InvalidInputError, match="capacity: required"):
        drf(d)
    with pytest.raises(InvalidInputError, match="a Cluster carries its own"):
        drf(DRF_EXAMPLE, c)


def test_pooled_mechanisms_refuse_multi_server_clusters_and_unsupported_weights():
    two = Cluster([[9, 18], [9, 18]], [[1, 4], [3, 1]])
    for fn in (drf, edrf, pdrf, asset_fairness, ceei):
        with pytest.raises(InvalidInputError, match="single pool, this cluster has 2 servers"):
            fn(two)
    with pytest.raises(InvalidInputError, match=r"weight\[1\] = 2.0: pdrf has no weights"):
        pdrf(Cluster.single_pool([9, 18], [[1, 4], [3, 1]], weight=[1, 2]))


def test_asset_fairness_known_answer_and_equal_asset_shares():
    res = asset_fairness(DRF_EXAMPLE)  # a_A = 1/3, a_B = 7/18; CPU saturates
    assert np.allclose(res.tasks.ravel(), [2.52, 2.16])
    assert np.allclose(res.extras["asset_shares"], [0.84, 0.84])


@pytest.mark.parametrize("seed", range(40))
def test_asset_fairness_matches_the_lexicographic_maxmin_lp(seed):
    pool = random_pool(seed)
    if seed % 4 == 0:  # zero demands: several water-filling rounds
        demand = pool.demand.copy()
        demand[::2, seed % 3] = 0.0
        pool = Cluster.single_pool(pool.capacity[0], demand, weight=pool.weight)
    ours = asset_fairness(pool).tasks.ravel()
    ref = maxmin_lp(
        pool.demand,
        pool.capacity[0],
        weights=pool.weight,
        per_task_share=asset_share_per_task(pool),
    )
    assert np.allclose(ours, ref, rtol=1e-6, atol=1e-9)


def test_ceei_known_answer_prices_and_budgets():
    res = ceei(DRF_EXAMPLE)  # both resources saturate: x_A + 3 x_B = 9, 4 x_A + x_B = 18
    assert np.allclose(res.tasks.ravel(), [45 / 11, 18 / 11], rtol=1e-7)
    assert np.allclose(res.extras["prices"], [0.2, 1 / 90], rtol=1e-6)
    assert res.converged and res.residual < 1e-6


@pytest.mark.parametrize("seed", range(25))
def test_ceei_is_a_competitive_equilibrium_and_matches_the_convex_program(seed):
    pool = random_pool(seed)
    res = ceei(pool)
    x, p = res.totals, res.extras["prices"]
    # slow reference: Eisenberg-Gale by SLSQP
    ref = proportional_fair_slsqp(pool).sum(axis=1)
    assert np.allclose(x, ref, rtol=2e-4)
    # the defining axioms: each user spends its budget on the bundle that runs the most tasks, the
    # market clears
    assert np.allclose(x * (pool.demand @ p), pool.weight, rtol=1e-6)
    used = pool.demand.T @ x
    assert (used <= pool.capacity[0] * (1 + 1e-7)).all()
    assert np.all((p <= 1e-12) | (used >= pool.capacity[0] * (1 - 1e-6)))


def test_leontief_tasks():
    assert leontief_tasks([6.0, 4.0, 9.0], [2.0, 2.0, 0.0]) == 2.0
    assert np.allclose(leontief_tasks([[6.0, 4.0], [1.0, 8.0]], [2.0, 2.0]), [2.0, 0.5])
    with pytest.raises(InvalidInputError):
        leontief_tasks([1.0, -1.0], [1.0, 1.0])


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 10_000))
def test_edrf_drfh_and_asset_fairness_resist_every_misreport_searched(seed):
    pool = random_pool(seed, n_users=4)
    for name in ("edrf", "drfh", "asset_fairness"):
        assert strategyproofness_violation(name, pool, n_random=4, rng=seed) <= 1e-6, name


def test_ceei_is_manipulable_and_asset_fairness_breaks_sharing_incentive_somewhere():
    ceei_gain = max(strategyproofness_violation("ceei", random_pool(s, 5), rng=s) for s in range(6))
    assert ceei_gain > 1e-3  # Ghodsi et al. 2011, §6.2: CEEI is not strategy-proof
    # §6.1: asset fairness can leave a user below its 1/n slice of every resource
    si = [
        mechanism_properties("asset_fairness", random_pool(s, 3), strategyproofness=False)["SI"]
        for s in range(40)
    ]
    assert max(si) > 1e-3


def test_mechanism_properties_takes_any_registered_mechanism_on_a_pool_or_a_cluster():
    cluster = random_cluster(3, 4, 2, 2)
    for name in ("drfh", "psdsf"):
        props = mechanism_properties(name, cluster, n_random=2)
        assert set(props) == {"SI", "EF", "PO", "BF", "SP"} and np.isfinite(props["SP"])
    assert (
        mechanism_properties("drfh", cluster, strategyproofness=False)["PO"] <= 1e-6
    )  # DRFH is PO
    props = mechanism_properties("edrf", DRF_EXAMPLE)
    assert props["SI"] <= 1e-9 and props["EF"] <= 1e-9 and props["SP"] <= 1e-9
    with pytest.raises(InvalidInputError, match="not an Allocation"):
        mechanism_properties(lambda c: np.zeros((2, 1)), DRF_EXAMPLE)


def test_registry_errors_name_the_problem():
    with pytest.raises(InvalidInputError, match="already registered"):
        mechanisms.register("drf", drf, capabilities=("pooled",))
    with pytest.raises(InvalidInputError, match="unknown"):
        mechanisms.register("x", drf, capabilities=("pooled", "fast"))
    with pytest.raises(InvalidInputError, match="'pooled' or 'multi_server'"):
        mechanisms.register("x", drf, capabilities=("integral",))
    with pytest.raises(InvalidInputError, match="not registered"):
        mechanisms.get("nope")
    with pytest.raises(InvalidInputError, match=r"^mechanism = 'nope': no house colour"):
        color("nope")


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(variants={1: {}}), "variants key = 1: must be a non-empty string"),
        (dict(variants={"": {}}), "variants key = '': must be a non-empty string"),
        (dict(variants={" v": {}}), "variants key = ' v'"),
        (dict(variants={"v": 5}), r"variants\['v'\]"),
        (dict(variants={"v": {}, "V": {}}), "'v' and 'V' name one run"),
        (dict(variants={"v": {"nope": 1}}), "must be callable as"),
        (dict(variants={"drf": {}}), "registered mechanisms' names"),
        (dict(variants=[("v", {})]), "variants"),
        (dict(color="notacolor"), "color = 'notacolor': not a matplotlib colour"),
        (dict(color=""), "color = '': not a matplotlib colour"),
        (dict(label=" "), r"label = ' ': blank \(a label is a legend entry\)"),
        (dict(name=" "), "name = ' '"),
    ],
)
def test_register_refuses_malformed_variants_and_display_by_name(kwargs, message):
    def myx(cluster, alpha=1.0):
        return equal_split(cluster)

    args = dict(name="myx", function=myx, capabilities=["pooled"]) | kwargs
    before = mechanisms.names()
    with pytest.raises(InvalidInputError, match=message):
        mechanisms.register(**args)
    assert mechanisms.names() == before
    if "name" not in kwargs:
        from fairlib import games

        game_args = {k: v for k, v in kwargs.items() if k in ("color", "label")}
        if game_args:
            with pytest.raises(InvalidInputError, match=message):
                games.register_game("toyx", lambda game: None, **game_args)


def equal_split(cluster, **options):
    """A toy mechanism: every server's time split equally among the users who can use it."""
    share = cluster.eligible / np.maximum(cluster.eligible.sum(axis=0), 1)
    return Allocation(cluster, share * cluster.gamma, "equal_split")


def test_a_registered_toy_mechanism_appears_in_tables_replays_and_benchmarks_with_no_other_edit():
    from benchmarks.bench_mechanisms import cases
    from fairlib import sim
    from tests.test_sim import _jobs, _one_server_fleet

    with mechanisms.registered(
        "equal_split",
        equal_split,
        label="equal split",
        capabilities=("multi_server", "divisible", "weights"),
    ):
        table = heterogeneous_servers.property_table(2, 7, n_users=4, n_servers=2, n_resources=2)
        assert "equal_split" in set(table["mechanism"])
        assert set(mechanisms.runs("multi_server")) <= set(table["mechanism"])
        assert [n for _, n, _ in cases(pool_users=20, users=10, servers=3)].count(
            "equal_split"
        ) == 1
        assert color("equal_split").startswith("#") and label("equal_split") == "equal split"
        # one server (1, 1), A: 10 quanta of (1, 0.5), B: 5 of (0.5, 1); equal split gives each half
        # the server: A runs 0.5 quanta/s (CPU-bound), B 0.5 (RAM-bound): B done at 10 s, then A
        # alone at 1/s: 15 s
        res = sim.replay(
            _one_server_fleet(),
            _jobs([0, 0], [10, 5], [[1, 0.5], [0.5, 1]]),
            "equal_split",
            horizon=1000,
        )
        np.testing.assert_allclose(res.jobs.completion, [15.0, 10.0])
    assert "equal_split" not in mechanisms.names()


def test_the_pool_property_table_lists_every_registered_mechanism_it_can_run():
    weighted = heterogeneous_servers.property_table(2, 5, kind="pool", n_users=4, n_resources=2)
    unweighted = heterogeneous_servers.property_table(
        2, 5, kind="pool", n_users=4, n_resources=2, weighted=False
    )
    # a mechanism without weights (PDRF) is left out on weighted pools and in on unweighted ones
    assert set(mechanisms.runs("weights")) <= set(weighted["mechanism"])
    assert set(mechanisms.runs()) - set(mechanisms.runs("weights")) <= (
        set(unweighted["mechanism"]) - set(weighted["mechanism"])
    )
    edrf_rows = unweighted[unweighted["mechanism"] == "edrf"]
    assert (
        (edrf_rows[["SI", "EF", "PO"]] <= 1e-7).all().all()
    )  # DRF's properties on divisible tasks


def _five(cluster):
    """Not a mechanism: it returns a number, not an Allocation."""
    return 5


def _transposed(cluster):
    """Not a mechanism: an Allocation of another cluster's shape."""
    other = Cluster(np.ones((cluster.n_servers, 2)), np.full((cluster.n_users + 1, 2), 0.1))
    return Allocation(other, np.zeros((cluster.n_users + 1, cluster.n_servers)), "transposed")


def _every_caller_of_a_mechanism():
    """Every place the library runs a mechanism its user hands it, as a call of that mechanism."""
    from fairlib import properties, sim
    from fairlib.multires import on_merged_servers
    from fairlib.repro.experiments import heterogeneous_servers
    from tests.test_mechanism_atlas_findings import _cell, atlas
    from tests.test_sim import _jobs, _one_server_fleet, _timed_jobs

    fleet, jobs = _one_server_fleet(), _jobs([0, 0], [10, 5], [[1, 0.5], [0.5, 1]])
    cluster = Cluster([[1.0, 1.0], [2.0, 1.0]], [[0.1, 0.2], [0.2, 0.1]])
    return {
        "on_merged_servers": lambda m: on_merged_servers(m, cluster),
        "sim.replay": lambda m: sim.replay(fleet, jobs, m),
        "sim.replay merged": lambda m: sim.replay(fleet, jobs, m, merge=True),
        "sim.replay reference": lambda m: sim.replay(fleet, jobs, "edrf", reference=m),
        "sim.open_loop": lambda m: sim.open_loop(
            fleet, _timed_jobs([[(0, 700, (1, 0.5))], [(0, 100, (0.5, 1))]]), {"m": m}
        ),
        "mechanism_properties": lambda m: properties.mechanism_properties(m, cluster),
        "strategyproofness_violation": lambda m: properties.strategyproofness_violation(m, cluster),
        "property_table": lambda m: heterogeneous_servers.property_table(
            1, 0, n_users=2, n_servers=2, n_resources=2, mechanisms={"m": m}
        ),
        "atlas cell_rows": lambda m: _atlas_status(atlas.cell_rows(_cell(), {"m": ("edrf", m)})),
    }


def _atlas_status(rows):
    """The atlas records a refused run as its row's status: raised here to compare."""
    raise InvalidInputError(rows[0]["status"])


@pytest.mark.parametrize(
    "mechanism, message",
    [
        (_five, "returned 5 \\(int\\), not an Allocation"),
        (_transposed, "returned an Allocation of"),
    ],
)
@pytest.mark.parametrize("caller", sorted(_every_caller_of_a_mechanism()))
def test_a_mechanism_that_breaks_the_contract_is_refused_by_name_wherever_it_runs(
    caller, mechanism, message
):
    from fairlib.sweep import SweepError

    call = _every_caller_of_a_mechanism()[caller]
    with pytest.raises(
        (InvalidInputError, SweepError), match=f"mechanism '{mechanism.__name__}' {message}"
    ):
        call(mechanism)


@pytest.mark.parametrize(
    "fields, message",
    [
        (dict(tasks=[[11.0, 0.0], [0.0, 10.0]]), r"server 0 uses 1.1 of resource 0, capacity 1"),
        (dict(tasks=[[-1.0, 0.0], [0.0, 0.0]]), r"tasks\[0, 0\] = -1.0"),
        (dict(tasks=[[np.nan, 0.0], [0.0, 0.0]]), r"tasks\[0, 0\] = nan"),
        (dict(tasks=[[1.0, 0.0]]), r"expected shape \(2, 2\)"),
        (dict(converged="yes"), r"converged = 'yes'"),
        (dict(iterations=-1), r"iterations = -1"),
        (dict(iterations=2.5), r"iterations = 2.5"),
        (dict(residual=-1.0), r"residual = -1.0"),
        (dict(residual="0"), r"residual = '0'"),
        (dict(extras={1: 2}), r"extras: key 1"),
        (dict(extras=[("a", 1)]), r"extras"),
        (dict(method=""), r"method = ''"),
        (dict(method=None), r"method = None"),
        (dict(message=None), r"message = None"),
        (dict(cluster="c"), r"cluster = 'c'"),
    ],
)
def test_an_allocation_holds_what_its_fields_say(fields, message):
    """An Allocation is feasible on its cluster (finite, >= 0, eligible, within capacity up to
    FEASIBILITY_RTOL) and its fields are of their types: refused by name otherwise."""
    cluster = Cluster([[1.0, 1.0], [1.0, 1.0]], [[0.1, 0.1], [0.1, 0.1]])
    args = dict(cluster=cluster, tasks=[[1.0, 0.0], [0.0, 1.0]], method="x") | fields
    with pytest.raises(InvalidInputError, match=message):
        Allocation(**args)


def test_an_allocation_tolerates_round_off_at_capacity():
    from fairlib.multires.cluster import FEASIBILITY_RTOL

    cluster = Cluster([[1.0, 1.0]], [[0.1, 0.1]])
    Allocation(cluster, [[10.0 * (1 + FEASIBILITY_RTOL / 2)]], "x", residual=float("nan"))
    with pytest.raises(InvalidInputError, match="server 0 uses"):
        Allocation(cluster, [[10.0 * (1 + 10 * FEASIBILITY_RTOL)]], "x")
    # an uncertified iterate (a penalty heuristic's) may overuse a capacity; it says so
    assert not Allocation(cluster, [[11.0]], "x", converged=False, message="overused").converged
