"""No public object shares memory with its caller's arrays.

Every public class that takes arrays validates them and keeps read-only copies: constructing it
leaves the caller's arrays writable and unchanged, and changing them afterwards changes nothing in
the object (a Cluster built from a view used to mark the view read-only and share it, so writing
through its base made ``psdsf`` return zero tasks, converged, on a negative demand). A result type
(``fairlib._validate.result_type``) keeps read-only copies too. The classes are found by their
signatures, so a new public class that takes arrays fails here until it has a builder below.
"""

from __future__ import annotations

import copy
import dataclasses
import importlib
import inspect
import pickle
from collections.abc import Mapping
from types import MappingProxyType

import numpy as np
import pandas as pd
import pytest

import fairlib
from fairlib._validate import is_result_type, result_type


def _cluster():
    from fairlib.multires import Cluster

    cap_base = np.array([[9.0, 18.0, 0.0], [4.0, 4.0, 0.0]])
    dem_base = np.array([[1.0, 4.0, 9.0], [3.0, 1.0, 9.0]])
    arrays = {
        "capacity": cap_base[:, :2],  # views: their bases must stay the caller's, writable
        "demand": dem_base[:, :2],
        "weight": np.array([1.0, 2.0]),
        "eligible": np.array([[True, True], [True, False]]),
        "max_tasks": np.array([np.inf, 3.0]),
    }
    return (lambda: Cluster(**arrays)), arrays, [cap_base, dem_base]


def _game():
    from fairlib.market import Game

    arrays = {
        "weights": np.array([[1.0, 2.0], [3.0, 1.0]]),
        "budgets": np.array([1.0, 2.0]),
        "parallelism": np.array([1, 2]),
    }
    return (lambda: Game(**arrays)), arrays, []


def _quotas():
    from fairlib.multires import Quotas

    arrays = {
        "guarantee": np.array([[1.0, 1.0], [0.0, 0.0]]),
        "limit": np.array([[5.0, 5.0], [np.inf, np.inf]]),
        "lending_limit": np.array([[1.0, 0.5], [0.0, 0.0]]),
    }
    return (lambda: Quotas(**arrays)), arrays, []


def _fleet():
    from fairlib.traces import Fleet

    arrays = {
        "capacity": np.array([[10.0, 10.0], [10.0, 20.0]]),
        "server_class": np.array(["A", "C"]),
        "location": np.array([0.0, 1.0]),
    }
    return (lambda: Fleet(resources=("cpu", "mem"), source="given", **arrays)), arrays, []


def _workload():
    from fairlib.traces import Workload

    arrays = {
        "users": np.array([1, 2]),
        "demand": np.array([[1.0, 2.0], [3.0, 4.0]]),
        "arrival": np.array([0.0, 0.0]),
        "departure": np.array([100.0, 100.0]),
        "scheduling_class": np.array([0, 3]),
    }
    return (lambda: Workload(resources=("cpu", "mem"), source="real", **arrays)), arrays, []


def _jobs():
    from fairlib.sim import Jobs

    arrays = {
        "ids": np.array([7, 8]),
        "arrival": np.array([0.0, 5.0]),
        "trace_end": np.array([10.0, 20.0]),
        "offsets": np.array([0, 1, 3]),
        "work": np.array([4.0, 2.0, 1.0]),
        "shape": np.array([[1.0, 0.5], [0.5, 1.0], [1.0, 1.0]]),
        "scheduling_class": np.array([0, 2]),
        "segment_start": np.array([0.0, 5.0, 8.0]),
        "segment_end": np.array([10.0, 8.0, 20.0]),
        "segment_cap": np.array([2.0, np.inf, 1.0]),
    }
    return (lambda: Jobs(resources=("cpu", "mem"), source="synthetic", **arrays)), arrays, []


def _cell():
    from fairlib.repro.experiments.mechanism_atlas import Cell

    arrays = {
        "capacity": np.array([[10.0, 10.0]]),
        "demand": np.array([[1.0, 2.0], [2.0, 1.0]]),
        "caps": np.array([3.0, 4.0]),
        "eligible": np.array([[1], [1]]),
    }
    fields = {"trace": "google", "at_s": 0.0, "resources": ("cpu", "mem"), "source": "synthetic"}
    return (lambda: Cell(**fields, **arrays)), arrays, []


def _sorter():
    from fairlib.multires import DRFSorter

    arrays = {"capacity": np.array([10.0, 10.0])}
    return (lambda: DRFSorter(**arrays)), arrays, []


#: public class -> builder: (construct, the caller's arrays by argument, their bases)
BUILDERS = {
    "fairlib.multires.cluster.Cluster": _cluster,
    "fairlib.market.game.Game": _game,
    "fairlib.multires.schedulers.quotas.Quotas": _quotas,
    "fairlib.traces.workload.Fleet": _fleet,
    "fairlib.traces.workload.Workload": _workload,
    "fairlib.sim.Jobs": _jobs,
    "fairlib.repro.experiments.mechanism_atlas.Cell": _cell,
    "fairlib.multires.schedulers.sorter.DRFSorter": _sorter,
}


def _takes_arrays(cls) -> bool:
    """Whether a constructor parameter is annotated as an array (``ArrayLike``, ``np.ndarray``)."""
    try:
        params = inspect.signature(cls).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(any(word in str(p.annotation) for word in ("ArrayLike", "ndarray")) for p in params)


def _public_classes() -> dict[str, type]:
    modules = [f"fairlib.{m}" for m in fairlib._SUBMODULES] + ["fairlib.repro.experiments"]
    found, queue, seen = {}, [importlib.import_module(m) for m in modules], set()
    while queue:
        module = queue.pop(0)
        if module.__name__ in seen:
            continue
        seen.add(module.__name__)
        for attr in getattr(module, "__all__", []):
            obj = getattr(module, attr)
            if inspect.ismodule(obj):
                queue.append(obj)
            elif inspect.isclass(obj) and not issubclass(obj, BaseException):
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return found


def test_every_public_class_taking_arrays_has_a_builder():
    takes = {
        name
        for name, cls in _public_classes().items()
        if not is_result_type(cls) and _takes_arrays(cls)
    }
    assert takes <= set(BUILDERS), sorted(takes - set(BUILDERS))


def _arrays_of(obj) -> dict[str, np.ndarray]:
    return {k: v for k, v in vars(obj).items() if isinstance(v, np.ndarray)}


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_an_object_keeps_read_only_copies_of_its_callers_arrays(name):
    build, arrays, bases = BUILDERS[name]()
    given = {k: a.copy() for k, a in arrays.items()}
    obj = build()
    for key, a in arrays.items():
        assert a.flags.writeable, f"{name}: the caller's {key} was made read-only"
        np.testing.assert_array_equal(a, given[key], err_msg=f"{name}: the caller's {key} changed")
    assert all(b.flags.writeable for b in bases), f"{name}: a view's base was made read-only"
    kept = {k: v.copy() for k, v in _arrays_of(obj).items()}
    assert kept, f"{name}: keeps no array"
    for key, v in _arrays_of(obj).items():
        for a in [*arrays.values(), *bases]:
            assert not np.shares_memory(v, a), f"{name}.{key} shares the caller's memory"
        if key.startswith("_"):  # private state the object updates itself (DRFSorter's totals)
            continue
        assert not v.flags.writeable, f"{name}.{key} is writable"
    # the caller changes its arrays afterwards (through the bases too): the object does not
    for a in [*arrays.values(), *bases]:
        a[...] = a.dtype.type(0) if a.dtype.kind in "biuf" else a.flat[0]
    for key, v in _arrays_of(obj).items():
        np.testing.assert_array_equal(v, kept[key], err_msg=f"{name}.{key} followed the caller")


def test_lists_are_stored_as_the_validated_arrays():
    """Workload and Fleet built from lists passed validation but kept the lists: ``n_users``,
    ``n_servers``, ``active_at``, ``subset`` and ``snapshot_cluster`` then raised AttributeError or
    TypeError."""
    from fairlib.sim import snapshot_cluster
    from fairlib.traces import Fleet, Workload

    workload = Workload(
        users=[1, 2],
        demand=[[1.0, 2.0], [3.0, 4.0]],
        arrival=[0.0, 0.0],
        departure=[100.0, 100.0],
        resources=("cpu", "mem"),
        source="real",
        scheduling_class=[0, 3],
    )
    assert workload.n_users == 2
    assert workload.active_at(1.0).tolist() == [True, True]
    assert workload.subset(np.array([True, False])).users.tolist() == [1]
    assert workload.scheduling_class.dtype.kind == "i"
    fleet = Fleet([[10.0, 10.0], [10.0, 20.0]], ["cpu", "mem"], ["A", "C"], "given")
    assert fleet.n_servers == 2 and fleet.resources == ("cpu", "mem")
    snap = snapshot_cluster(fleet, workload, 1.0)
    assert snap.active.tolist() == [0, 1]


def test_result_types_keep_read_only_copies():
    @result_type
    @dataclasses.dataclass(frozen=True)
    class Outcome:
        values: np.ndarray
        label: str = ""

    given = np.array([1.0, 2.0])
    out = Outcome(given)
    assert given.flags.writeable and not out.values.flags.writeable
    assert not np.shares_memory(given, out.values)
    from fairlib import drf, edrf, hierarchical_drf

    for res in (
        drf([[1, 4], [3, 1]], [9, 18]),
        edrf([[1, 4], [3, 1]], [9, 18]),
        hierarchical_drf([[1, 4], [3, 1]], [9, 18], ["q/a", "q/b"]),
    ):
        writable = [k for k, v in _arrays_of(res).items() if v.flags.writeable]
        assert not writable, (type(res).__name__, writable)


# Equality, copies and pickles. Every public class that holds arrays (an input type or a result)
# compares and hashes by identity: a dataclass's own == compared the arrays and raised NumPy's
# ambiguous-truth ValueError, and hash raised. Each round-trips through pickle and copy with its
# contents, its arrays still read-only and its derived fields those of the original (a
# MappingProxyType ``extras`` made Allocation and GameOutcome unpicklable, and an unpickled
# Cluster's arrays were writable, so a write made ``gamma`` stale).


def _single_pool():
    from fairlib.multires import Cluster

    return Cluster.single_pool([9.0, 18.0], [[1.0, 4.0], [3.0, 1.0]])


def _game_instance():
    from fairlib.market import Game

    return Game([[1.0, 2.0], [3.0, 1.0]], budgets=[1.0, 2.0], parallelism=[1, 2], reserve=0.01)


def _job_demands():
    from fairlib.traces.google import JobDemands
    from tests.test_stated_rules import _job_demand_fields

    return JobDemands(**_job_demand_fields())


def _replay():
    from fairlib import sim
    from fairlib.multires import psdsf
    from fairlib.traces import Fleet

    fleet = Fleet([[1.0, 1.0]], ("cpu_normalised", "memory_normalised"), ["A"], "test")
    jobs = sim.Jobs(
        np.arange(2),
        np.zeros(2),
        np.full(2, 100.0),
        np.arange(3),
        np.array([10.0, 5.0]),
        np.array([[1.0, 0.5], [0.5, 1.0]]),
        ("cpu_normalised", "memory_normalised"),
        "test",
    )
    return sim.replay(fleet, jobs, psdsf, horizon=600)


def _utilisation_range():
    from fairlib.multires import Cluster
    from fairlib.multires.checks.utilisation_range import utilisation_range

    return utilisation_range(
        Cluster([[9.0, 18.0], [4.0, 4.0]], [[1.0, 4.0], [3.0, 1.0]]), [1.0, 1.0], [0], 0
    )


def _sorter_instance():
    from fairlib.multires import DRFSorter

    sorter = DRFSorter(capacity=[10.0, 10.0])
    sorter.add("a")
    return sorter


#: public class holding arrays (or read-only mappings) -> a baseline instance
BASELINES = {
    "fairlib.multires.cluster.Cluster": lambda: BUILDERS["fairlib.multires.cluster.Cluster"]()[0](),
    "fairlib.multires.cluster.Allocation": lambda: fairlib.drf(_single_pool()),
    "fairlib.multires.progressive_filling.DRFResult": lambda: fairlib.drf(
        [[1, 4], [3, 1]], [9, 18]
    ),
    "fairlib.multires.edrf.EDRFResult": lambda: fairlib.edrf([[1, 4], [3, 1]], [9, 18]),
    "fairlib.multires.edrf.PDRFResult": lambda: fairlib.pdrf([[1, 4], [3, 1]], [9, 18]),
    "fairlib.multires.schedulers.hierarchy.HierarchicalDRFResult": lambda: fairlib.hierarchical_drf(
        [[1, 4], [3, 1]], [9, 18], ["q/a", "q/b"]
    ),
    "fairlib.multires.schedulers.hierarchy.QueueTree": lambda: (
        fairlib.hierarchical_drf([[1, 4], [3, 1]], [9, 18], ["q/a", "q/b"]).tree
    ),
    "fairlib.multires.schedulers.quotas.Quotas": lambda: BUILDERS[
        "fairlib.multires.schedulers.quotas.Quotas"
    ]()[0](),
    "fairlib.multires.checks.utilisation_range.UtilisationRange": _utilisation_range,
    "fairlib.multires.schedulers.sorter.DRFSorter": _sorter_instance,
    "fairlib.dynamic.drf.DynamicDRFResult": lambda: fairlib.dynamic_drf(
        [[1, 0.5], [0.2, 1], [0.5, 0.5]]
    ),
    "fairlib.market.game.Game": _game_instance,
    "fairlib.market.outcome.GameOutcome": lambda: fairlib.proportional_share(_game_instance()),
    "fairlib.market.dynamics.DynamicsResult": lambda: fairlib.market.dynamics.run_dynamics(
        _game_instance(), max_iter=3
    ),
    "fairlib.mechanisms.Mechanism": lambda: fairlib.mechanisms.get("drf"),
    "fairlib.games.GameMechanism": lambda: fairlib.games.get("proportional_share"),
    "fairlib.traces.workload.Fleet": lambda: BUILDERS["fairlib.traces.workload.Fleet"]()[0](),
    "fairlib.traces.workload.Workload": lambda: BUILDERS["fairlib.traces.workload.Workload"]()[0](),
    "fairlib.traces.google.JobDemands": _job_demands,
    "fairlib.sim.Jobs": lambda: BUILDERS["fairlib.sim.Jobs"]()[0](),
    "fairlib.sim.ReplayResult": _replay,
    "fairlib.repro.experiments.mechanism_atlas.Cell": lambda: BUILDERS[
        "fairlib.repro.experiments.mechanism_atlas.Cell"
    ]()[0](),
}

#: public records of text and numbers only: they compare by value
VALUE_RECORDS = {
    "fairlib.mechanisms.ByServer",
    "fairlib.repro.experiments.precomputed_drf.DeviationExperiment",
}

_ARRAY_WORDS = ("ndarray", "ArrayLike", "DataFrame", "Mapping", "Cluster", "Game", "QueueTree")


def _annotations(cls) -> list[str]:
    if dataclasses.is_dataclass(cls):
        return [str(f.type) for f in dataclasses.fields(cls)]
    return [str(a) for a in getattr(cls, "__annotations__", {}).values()]


def test_every_public_class_holding_arrays_has_a_baseline():
    """A public dataclass, result type or class taking arrays is either listed in ``BASELINES``
    (and checked below) or a record of text and numbers in ``VALUE_RECORDS``."""
    found = {
        name
        for name, cls in _public_classes().items()
        if dataclasses.is_dataclass(cls) or is_result_type(cls) or _takes_arrays(cls)
    }
    assert found <= set(BASELINES) | VALUE_RECORDS, sorted(found - set(BASELINES) - VALUE_RECORDS)
    classes = _public_classes()
    for name in VALUE_RECORDS:
        held = [a for a in _annotations(classes[name]) if any(w in a for w in _ARRAY_WORDS)]
        assert not held, f"{name} holds {held}: give it eq=False and a baseline"


@pytest.mark.parametrize("name", sorted(BASELINES))
def test_a_class_holding_arrays_compares_and_hashes_by_identity(name):
    obj = BASELINES[name]()
    assert f"{type(obj).__module__}.{type(obj).__qualname__}" == name
    if dataclasses.is_dataclass(obj):
        assert not type(obj).__dataclass_params__.eq, f"{name}: declare it eq=False"
    twin = copy.deepcopy(obj)
    assert obj == obj and not obj != obj
    assert (obj == twin) is False and (obj != twin) is True
    assert hash(obj) == hash(obj) and isinstance(hash(twin), int)
    assert len({obj, twin, obj}) == 2


def _same(a, b, where: str, *, kept: bool = True) -> None:
    """``a`` and ``b`` hold the same contents; ``b``'s arrays read-only where ``kept`` (not in the
    private state an object updates itself: a DRFSorter's totals and clients)."""
    assert type(a) is type(b), where
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"), where
        assert not (kept and b.flags.writeable), f"{where} is writable"
    elif isinstance(a, pd.DataFrame):
        pd.testing.assert_frame_equal(a, b, obj=where)
    elif isinstance(a, Mapping):
        assert list(a) == list(b), where
        for k in a:
            _same(a[k], b[k], f"{where}[{k!r}]", kept=kept)
    elif isinstance(a, (tuple, list)):
        assert len(a) == len(b), where
        for k, (x, y) in enumerate(zip(a, b)):
            _same(x, y, f"{where}[{k}]", kept=kept)
    elif hasattr(a, "__dict__") and type(a).__module__.startswith("fairlib"):
        assert vars(a).keys() == vars(b).keys(), where
        for k, v in vars(a).items():
            _same(v, vars(b)[k], f"{where}.{k}", kept=kept and not k.startswith("_"))
    elif isinstance(a, float) and a != a:
        assert b != b, where
    else:
        assert a == b, where


@pytest.mark.parametrize("how", ["pickle", "deepcopy", "copy"])
@pytest.mark.parametrize("name", sorted(BASELINES))
def test_a_class_holding_arrays_round_trips_read_only(name, how):
    obj = BASELINES[name]()
    if how == "pickle":
        back = pickle.loads(pickle.dumps(obj))
    else:
        back = getattr(copy, how)(obj)
    _same(obj, back, name)
    if hasattr(obj, "extras"):
        assert isinstance(back.extras, MappingProxyType), f"{name}.extras is not read-only"


def test_a_copied_cluster_keeps_its_derived_fields():
    """A deep-copied Cluster's arrays used to be writable: a write left ``gamma`` stale."""
    from fairlib.multires import Cluster

    cluster = Cluster([[9.0, 18.0], [4.0, 4.0]], [[1.0, 4.0], [3.0, 1.0]])
    for back in (copy.deepcopy(cluster), pickle.loads(pickle.dumps(cluster))):
        with pytest.raises(ValueError, match="read-only"):
            back.capacity[1, 1] = 200.0
        np.testing.assert_array_equal(back.gamma, cluster.gamma)


@pytest.mark.parametrize("name", sorted(VALUE_RECORDS))
def test_records_of_text_and_numbers_compare_by_value(name):
    from fairlib.mechanisms import ByServer
    from fairlib.repro.experiments.precomputed_drf import DeviationExperiment

    obj = {"fairlib.mechanisms.ByServer": lambda: ByServer((1.0, 2.0))}.get(
        name, lambda: DeviationExperiment()
    )()
    assert obj == copy.deepcopy(obj) == pickle.loads(pickle.dumps(obj))
    assert hash(obj) == hash(copy.deepcopy(obj))
