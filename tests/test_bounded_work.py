"""Every loop whose trip count depends on a value has a documented cap, and an input past it is
refused by name.

Each case of :data:`CASES` calls one function at its cap (it must finish) and just past it (it must
raise :class:`~fairlib.InvalidInputError` naming the argument or the cap). Each call runs in a child
process under ``signal.alarm`` (:data:`ALARM_SECONDS`): a guard against a hang, not a timing
assertion — every call here takes a second or less. The caps themselves are listed in
:data:`CAPS`, read from the modules, so a cap that changes its value changes the cases with it, and
:func:`test_every_cap_has_a_case` keeps the two lists together.

:func:`test_every_cap_is_probed` finds every cap by its name (a module-level ``MAX_*`` or ``*_MAX``
in ``fairlib/``) and requires a test of each: a case here, the contract's probe just past the cap a
public parameter's description names (``tests/test_api_contract.py``), or, for a bound on a value's
range that bounds no work, an entry of :data:`VALUE_RANGES` with the reason.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import multiprocessing
import re
import signal
from pathlib import Path

import numpy as np
import pytest

#: seconds before a call in the child process counts as a hang (every call takes about a second at
#: most; compiling a kernel on an empty cache can take a minute)
ALARM_SECONDS = 300
#: seconds the parent waits for the child (the alarm cannot stop compiled code; the parent's wait
#: can)
GUARD_SECONDS = ALARM_SECONDS + 60

#: every cap on value-driven work: (module, name)
CAPS = [
    ("fairlib._validate", "MAX_ITERATIONS"),
    # the size of a random generator's array: a product of counts, which no one parameter reaches
    ("fairlib._validate", "MAX_DRAWN"),
    ("fairlib.multires.best_fit", "MAX_PLACEMENTS"),
    ("fairlib.multires.progressive_filling", "MAX_ALLOCATIONS"),
    ("fairlib.multires.progressive_filling", "_MAX_RECORDED"),
    ("fairlib.sim", "MAX_EPOCHS"),
    ("fairlib.sweep", "MAX_JOBS"),
    ("fairlib.sweep", "MAX_CELLS"),
    ("fairlib.timing", "MAX_SAMPLES"),
    ("fairlib.repro.warm", "MAX_JOBS"),
    ("fairlib.repro.experiments.bidding_game", "MAX_CHECK_ALPHAS"),
    ("fairlib.traces.google", "MAX_TASK_INTERVALS"),
    # caps of parameters that take a sequence: the contract probes a number just past a cap, not a
    # sequence holding one
    ("fairlib.repro.experiments.bidding_game", "MAX_EXHAUSTIVE_MACHINES"),
    ("fairlib.repro.experiments.dynamic_drf", "MAX_EXAMPLE_M"),
    ("fairlib.repro.experiments.dynamic_drf", "MAX_SCALE"),
    ("fairlib.repro.experiments.precomputed_drf", "MAX_RESERVE_SCALE"),
    ("fairlib.traces.synthetic", "MAX_VMS"),
    ("fairlib.traces.synthetic", "MAX_DAYS"),
    ("fairlib.traces.synthetic", "MAX_HOURS"),
    ("fairlib.traces.synthetic", "MAX_JOBS"),
    ("fairlib.traces.synthetic", "MAX_MACHINE_SCALE"),
]


#: bounds that limit the range of a value and not the work done with it: (module, name) -> why. Each
#: is checked where it applies; what the work depends on is capped elsewhere.
VALUE_RANGES = {
    ("fairlib._validate", "EXACT_INTEGER_MAX"): (
        "the magnitude up to which float64 holds every integer: it bounds which integers are read "
        "as numbers, not work (tests/test_validate.py: an integer float64 does not hold is refused)"
    ),
    ("fairlib._validate", "MAX_INTEGER_DIGITS"): (
        "the most digits of an integer read from text (a command line, a variable): it bounds a "
        "value's text, not work (tests/test_validate.py, tests/test_entry_points.py)"
    ),
    ("fairlib._validate", "MAX_PATH_PART_BYTES"): (
        "the longest name of one folder or file a file system takes: it bounds a path's text, not "
        "work (tests/test_validate.py)"
    ),
    ("fairlib.paths", "MAX_FILE_NAME_LENGTH"): (
        "the longest name the library gives a file it writes: it bounds a name, not work "
        "(tests/test_validate.py)"
    ),
    ("fairlib.paths", "MAX_KEY_LENGTH"): (
        "the longest notebook key, which names files and folders: it bounds a name, not work "
        "(tests/test_validate.py)"
    ),
    ("fairlib._jit", "MAX_INTERPRET_AT_MOST"): (
        "the largest FAIRLIB_INTERPRET_AT_MOST, a threshold on a problem's cells that picks the "
        "path its kernels take, not the work they do; no problem held in memory has more cells, "
        "and a larger value is refused naming the variable (tests/test_interpreted_kernels.py)"
    ),
    ("fairlib._validate", "INT64_MAX"): (
        "as_count's default maximum, a count int64 arrays and kernels hold; the work a count "
        "drives is capped by the maximum its caller passes"
    ),
    ("fairlib._validate", "MAX_SECONDS"): (
        "the largest time in seconds, 2**53, the last float64 at which one second is resolved; "
        "the epochs or bins a span of time makes are capped by MAX_EPOCHS and MAX_TASK_INTERVALS"
    ),
    ("fairlib.multires.global_maxmin", "MAX_WEIGHT_RATIO"): (
        "the widest spread of weights (largest over smallest) the HiGHS rounds solve to 1e-6 of "
        "edrf: a bound on a ratio of values, refused naming weight "
        "(tests/test_heterogeneous.py), not on work"
    ),
    ("fairlib._validate", "TOL_MAX"): (
        "the largest tolerance: above 0.1 it asks a different question; a looser tolerance means "
        "less work, never more"
    ),
    ("fairlib.multires.cluster", "MAX_ALPHA"): (
        "the largest finite α the PF-VDS solvers are accurate for; their sweeps are capped by "
        "max_sweeps (MAX_ITERATIONS)"
    ),
    ("fairlib.traces.bitbrains", "MAX_TIMESTAMP"): (
        "the latest timestamp a float64 holds exactly (2**53 s); a trace's rows are read from its "
        "file, none is made from its times"
    ),
    ("fairlib.repro.plotting", "MAX_WIDTH"): (
        "the widest figure (inches) the book shows at its own size; new_figure narrows or stacks "
        "a wider one"
    ),
    ("fairlib.repro.plotting", "MAX_SAVED_WIDTH"): (
        "the widest figure (inches, legends outside the axes included) save_figure writes; a "
        "wider one is refused"
    ),
}

#: a module-level name taken for a cap
CAP_NAME = re.compile(r"^_?MAX_|_MAX$")
#: the package's source
PACKAGE = Path(__file__).resolve().parents[1] / "fairlib"


def _cap(module: str, name: str):
    return getattr(importlib.import_module(module), name)


def _assigned(statements) -> list[str]:
    """The names bound by the assignments among ``statements`` and the blocks (if, try, with) they
    hold, never inside a function or class."""
    out = []
    for node in statements:
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            # MAX_A, MAX_B = 1, 2 and MAX_A = MAX_B = 1 bind several
            for name in ast.walk(target):
                if isinstance(name, ast.Name):
                    out.append(name.id)
        if isinstance(node, (ast.If, ast.Try, ast.With)):
            for block in ("body", "orelse", "finalbody"):
                out += _assigned(getattr(node, block, []))
            for handler in getattr(node, "handlers", []):
                out += _assigned(handler.body)
    return out


def module_caps() -> dict[tuple[str, str], object]:
    """Every module-level name of ``fairlib/`` that :data:`CAP_NAME` matches: (module, name) ->
    its value. Template files of the scaffold (a ``fairlib/repro/scaffold/`` folder) are no module
    of the library; ``fairlib/repro/scaffold.py`` is scanned, its templates being text the syntax
    tree does not enter."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE.parent)
        if relative.parts[:3] == ("fairlib", "repro", "scaffold"):
            continue
        names = [n for n in _assigned(ast.parse(path.read_text()).body) if CAP_NAME.search(n)]
        if not names:
            continue
        module = ".".join(relative.with_suffix("").parts).removesuffix(".__init__")
        for name in names:
            out[module, name] = _cap(module, name)
    return out


def _holder(name: str, value, near: str, caps: dict) -> tuple[str, str] | None:
    """The key of ``caps`` that defines cap ``name`` whose value is ``value`` — the very object: a
    re-export binds the one its module defines — preferring module ``near`` when two modules
    define equal ones (None when none does)."""
    found = [key for key, cap in caps.items() if key[1] == name and cap is value]
    if (near, name) in found:
        return near, name
    return found[0] if len(found) == 1 else None


def _drf_example():
    from fairlib.multires import Cluster

    return Cluster([[9.0, 18.0]], [[1.0, 4.0], [3.0, 1.0]])


def _game():
    from fairlib.market import Game

    return Game([[0.5, 0.5], [0.2, 0.8], [0.9, 0.1]], reserve=1e-6)


def _iterations(function, argument, cluster=True, option=False, **fixed):
    """A call of ``function`` with ``argument`` (an entry of ``options=`` when ``option``) set to
    ``n`` (it converges long before)."""

    def call(n):
        import fairlib

        fn = eval(function, {"fairlib": fairlib})  # noqa: S307 - a dotted name from this file
        first = _drf_example() if cluster else _game()
        given = {"options": {argument: n}} if option else {argument: n}
        return fn(first, **fixed, **given)

    return call


def _placements(function):
    def call(n):
        from fairlib import multires

        return getattr(multires, function)(_drf_example(), max_placements=n)

    return call


def _drawn(module, function, counts):
    """A random generator asked for ``n`` numbers and more: its last of ``counts`` count arguments
    ``n // 2 + 1`` (the one before it, if any, 2)."""

    def call(n):
        import importlib

        sizes = [2] * (counts - 1) + [n // 2 + 1]
        return getattr(importlib.import_module(module), function)(0, *sizes)

    return call


def _allocations(n):
    from fairlib.multires import drf

    return drf([[1.0, 4.0], [3.0, 1.0]], [9.0, 18.0], max_allocations=n)


def _recorded(n):
    from fairlib.multires import drf

    # one user of demand 1 on a capacity of n: progressive filling's bound is n steps, and it takes
    # them all
    return drf([[1.0]], [float(n)], record_order=True)


def _cell(seed, x):
    return {"y": x}


def _sweep_cells(n):
    from fairlib.sweep import sweep

    return sweep(_cell, {"x": [0]}, seeds=n, backend="serial", progress=False)


def _sweep_jobs(n):
    from fairlib.sweep import default_backend

    return default_backend(n_jobs=n)


def _timing_samples(n):
    from fairlib.timing import median_time

    return median_time(lambda: None, repeat=n, warmup=0, min_time=0.0)


def _warm_jobs(n):
    from fairlib.repro.warm import warm

    return warm(progress=False, jobs=n, only=[])


def _check_alphas(n):
    import pandas as pd

    from fairlib.market import two_player_equilibria
    from fairlib.repro.experiments.bidding_game import two_player_findings

    opposite, equal = (
        pd.DataFrame(two_player_equilibria(0.6, kind)) for kind in ("opposite", "equal")
    )
    random_games = pd.DataFrame(
        [
            {
                "machines": 2,
                "game": 0,
                "method": "fixed_point",
                "residual": 1e-12,
                "efficiency": 0.8,
                "envy_freeness": 1.0,
            }
        ]
    )
    return two_player_findings(opposite, equal, [0.6] * n, random_games)


def _task_intervals(n):
    import pandas as pd

    from fairlib.traces.google import task_event_demands

    # one task running from 600 s to the horizon, cut into windows of 2**-10 s (exact in binary):
    # n (task, interval) pairs
    window = 2.0**-10
    events = pd.DataFrame(
        {
            "time": [600_000_000],
            "job_id": [7],
            "task_index": [0],
            "event_type": [1],
            "cpu_request": [0.25],
            "memory_request": [0.5],
            "scheduling_class": [2],
        }
    )
    return task_event_demands(events, window=window, origin=600.0, horizon=600.0 + n * window)


def _exhaustive_machines(n):
    from fairlib.repro.experiments.bidding_game import local_search_vs_exhaustive

    return local_search_vs_exhaustive(1, 0, machines=[n], k=[1], others=[1], backend="serial")


def _example_m(n):
    from fairlib.repro.experiments.dynamic_drf import instance_share_findings

    return instance_share_findings([n], [1])


def _increment_scale(scale):
    from fairlib.repro.experiments.dynamic_drf import fixed_increment_work

    return fixed_increment_work([scale], k=1, m=1, rng=0)


def _reserve_scale(scale):
    from fairlib.repro.experiments.precomputed_drf import scaled_instances

    return scaled_instances(0, n_users=[2], n_resources=2, reserve_scale=[scale])


def _replay_horizon(horizon):
    from fairlib import sim
    from fairlib.traces import Fleet, Workload

    fleet = Fleet(np.array([[1.0, 1.0]]), ("cpu", "memory"), np.array(["A"]), "synthetic")
    workload = Workload(
        np.array([1]),
        np.array([[0.5, 0.25]]),
        np.array([0.0]),
        np.array([60.0]),
        ("cpu", "memory"),
        "synthetic",
    )
    return sim.replay(
        fleet,
        sim.jobs_from_workload(workload),
        "drfh",
        interval=sim.MIN_INTERVAL_S,
        horizon=horizon,
        progress=False,
    )


def _synthetic(function, argument, **fixed):
    def call(n):
        import tempfile

        from fairlib import traces

        with tempfile.TemporaryDirectory() as tmp:
            return getattr(traces, function)(tmp, **fixed, **{argument: n})

    return call


#: id -> (cap (module, name), the call at n, n at the cap, n just past it, the text the refusal
#: names). A cap whose call at the cap is heavy by design (1,250 VMs for a month) is called past it
#: only: None at the cap.
CASES = {
    # past the cap only: an array of MAX_DRAWN numbers is 800 MB, no case for a test to allocate
    "uniform_preferences n_users x n_machines": (
        ("fairlib._validate", "MAX_DRAWN"),
        _drawn("fairlib.market.game", "uniform_preferences", 2),
        None,
        "cap+1",
        "n_users x n_machines",
    ),
    "random_cluster n_users x n_servers": (
        ("fairlib._validate", "MAX_DRAWN"),
        _drawn("fairlib.multires.cluster", "random_cluster", 2),
        None,
        "cap+1",
        "n_users x n_servers",
    ),
    "synthetic_task_requests size x columns": (
        ("fairlib._validate", "MAX_DRAWN"),
        _drawn("fairlib.traces.google", "synthetic_task_requests", 1),
        None,
        "cap+1",
        "size x columns",
    ),
    "psmfa iterations": (
        ("fairlib._validate", "MAX_ITERATIONS"),
        _iterations("fairlib.multires.psmfa", "iterations", alphas=2.0),
        "cap",
        "cap+1",
        "iterations",
    ),
    "pfvds max_sweeps": (
        ("fairlib._validate", "MAX_ITERATIONS"),
        _iterations("fairlib.multires.pfvds", "max_sweeps", option=True, alpha=2.0),
        "cap",
        "cap+1",
        "max_sweeps",
    ),
    "psdsf max_sweeps": (
        ("fairlib._validate", "MAX_ITERATIONS"),
        _iterations("fairlib.multires.psdsf", "max_sweeps", option=True),
        "cap",
        "cap+1",
        "max_sweeps",
    ),
    "run_dynamics max_iter": (
        ("fairlib._validate", "MAX_ITERATIONS"),
        _iterations("fairlib.market.run_dynamics", "max_iter", cluster=False),
        "cap",
        "cap+1",
        "max_iter",
    ),
    "proportional_share max_iter": (
        ("fairlib._validate", "MAX_ITERATIONS"),
        _iterations("fairlib.market.proportional_share", "max_iter", cluster=False),
        "cap",
        "cap+1",
        "max_iter",
    ),
    "drfh_best_fit max_placements": (
        ("fairlib.multires.best_fit", "MAX_PLACEMENTS"),
        _placements("drfh_best_fit"),
        "cap",
        "cap+1",
        "max_placements",
    ),
    "drf_machine_offers max_placements": (
        ("fairlib.multires.best_fit", "MAX_PLACEMENTS"),
        _placements("drf_machine_offers"),
        "cap",
        "cap+1",
        "max_placements",
    ),
    "drf max_allocations": (
        ("fairlib.multires.progressive_filling", "MAX_ALLOCATIONS"),
        _allocations,
        "cap",
        "cap+1",
        "max_allocations",
    ),
    "drf record_order": (
        ("fairlib.multires.progressive_filling", "_MAX_RECORDED"),
        _recorded,
        "cap",
        "cap+1",
        "record_order",
    ),
    # replay's epochs: (horizon - start) / interval + jobs + 2; at interval = MIN_INTERVAL_S, a
    # horizon of MAX_EPOCHS × interval is past the cap by the jobs' epochs, one below it well under
    "replay epochs": (
        ("fairlib.sim", "MAX_EPOCHS"),
        _replay_horizon,
        None,
        "cap*1e-3",
        "reallocations",
    ),
    "sweep n_jobs": (("fairlib.sweep", "MAX_JOBS"), _sweep_jobs, "cap", "cap+1", "n_jobs"),
    # a million cells of one grid point, run one by one, take minutes: past the cap only
    "sweep seeds": (("fairlib.sweep", "MAX_CELLS"), _sweep_cells, None, "cap+1", "seeds"),
    "median_time repeat": (
        ("fairlib.timing", "MAX_SAMPLES"),
        _timing_samples,
        "cap",
        "cap+1",
        "repeat",
    ),
    "warm jobs": (("fairlib.repro.warm", "MAX_JOBS"), _warm_jobs, None, "cap+1", "jobs"),
    # a thousand numeric fixed-point searches take most of a minute: past the cap only
    "two_player_findings check_alphas": (
        ("fairlib.repro.experiments.bidding_game", "MAX_CHECK_ALPHAS"),
        _check_alphas,
        None,
        "cap+1",
        "check_alphas",
    ),
    "local_search_vs_exhaustive machines": (
        ("fairlib.repro.experiments.bidding_game", "MAX_EXHAUSTIVE_MACHINES"),
        _exhaustive_machines,
        "cap",
        "cap+1",
        "machines[0]",
    ),
    "instance_share_findings cr1_ms": (
        ("fairlib.repro.experiments.dynamic_drf", "MAX_EXAMPLE_M"),
        _example_m,
        "cap",
        "cap+1",
        "cr1_ms[0]",
    ),
    # the cap bounds the unit raises of one step, seconds of them at the cap: past it only
    "fixed_increment_work scales": (
        ("fairlib.repro.experiments.dynamic_drf", "MAX_SCALE"),
        _increment_scale,
        None,
        "cap*1.01",
        "scales[0]",
    ),
    "scaled_instances reserve_scale": (
        ("fairlib.repro.experiments.precomputed_drf", "MAX_RESERVE_SCALE"),
        _reserve_scale,
        "cap",
        "cap*1.01",
        "reserve_scale[0]",
    ),
    # 50 million (task, interval) pairs are gigabytes at their peak: past the cap only
    "task_event_demands window": (
        ("fairlib.traces.google", "MAX_TASK_INTERVALS"),
        _task_intervals,
        None,
        "cap+1",
        "window",
    ),
    "synthetic_bitbrains n_vms": (
        ("fairlib.traces.synthetic", "MAX_VMS"),
        _synthetic("synthetic_bitbrains", "n_vms", rng=0, days=0.01),
        None,
        "cap+1",
        "n_vms",
    ),
    "synthetic_bitbrains days": (
        ("fairlib.traces.synthetic", "MAX_DAYS"),
        _synthetic("synthetic_bitbrains", "days", rng=0, n_vms=1),
        None,
        "cap*1.01",
        "days",
    ),
    "synthetic_google hours": (
        ("fairlib.traces.synthetic", "MAX_HOURS"),
        _synthetic("synthetic_google", "hours", rng=0, jobs_per_hour=0.0, initial_jobs=1),
        None,
        "cap*1.01",
        "hours",
    ),
    "synthetic_google initial_jobs": (
        ("fairlib.traces.synthetic", "MAX_JOBS"),
        _synthetic("synthetic_google", "initial_jobs", rng=0, hours=1.0),
        None,
        "cap+1",
        "initial_jobs",
    ),
    "synthetic_google machine_scale": (
        ("fairlib.traces.synthetic", "MAX_MACHINE_SCALE"),
        _synthetic("synthetic_google", "machine_scale", rng=0, hours=1.0, initial_jobs=1),
        None,
        "cap*1.01",
        "machine_scale",
    ),
}


def _n(spec: str, cap):
    return {"cap": cap, "cap+1": cap + 1, "cap*1.01": cap * 1.01, "cap*1e-3": cap * 1e-3}[spec]


def _run_case(case: str, which: str):
    """In the child: the call of ``case`` at ``which`` ("at" or "past") under an alarm; ("ok", ""),
    ("refused", message), ("raised", type and message) or ("hang", "")."""
    import warnings

    from fairlib import InvalidInputError

    (module, name), call, at, past, _ = CASES[case]
    n = _n(at if which == "at" else past, _cap(module, name))

    def on_alarm(signum, frame):
        raise TimeoutError

    signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(ALARM_SECONDS)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call(n)
    except TimeoutError:
        return "hang", ""
    except InvalidInputError as exc:
        return "refused", str(exc)
    except Exception as exc:  # noqa: BLE001 - the finding
        return "raised", f"{type(exc).__name__}: {exc}"
    finally:
        signal.alarm(0)
    return "ok", ""


@pytest.fixture(scope="module")
def pool():
    from concurrent.futures import ProcessPoolExecutor

    # spawned: numba's threads do not survive a fork
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as executor:
        yield executor


def test_every_cap_has_a_case():
    covered = {spec[0] for spec in CASES.values()}
    assert covered == set(CAPS), {"caps without a case": set(CAPS) - covered}
    for module, name in CAPS:
        assert isinstance(_cap(module, name), (int, float)), (module, name)


def test_every_cap_is_probed():
    """Every module-level cap of ``fairlib/`` is found by a test, so removing one fails it."""
    from tests import test_api_contract as contract

    caps = module_caps()
    probed = {}
    for module, name in CAPS:
        holder = _holder(name, _cap(module, name), module, caps)
        assert holder is not None, f"CAPS lists {module}.{name}, which no module of fairlib defines"
        probed[holder] = f"CASES ({module}.{name})"
    for target in contract.TARGETS:
        try:
            parameters = inspect.signature(target.obj).parameters
        except (TypeError, ValueError):  # no signature: nothing documented to probe
            continue
        for parameter in parameters:
            found = contract.documented_cap(target, parameter)
            holder = found and _holder(*found, getattr(target.obj, "__module__", ""), caps)
            if holder:
                probed.setdefault(holder, f"the contract ({target.name}, {parameter})")
    unprobed = sorted(set(caps) - set(probed) - set(VALUE_RANGES))
    assert not unprobed, (
        f"caps no test probes: {[f'{m}.{n}' for m, n in unprobed]}. For each, either (1) name it "
        "in the numpydoc description of the public parameter it caps, as 'from 1 to "
        ":data:`MAX_FOO` (1,000)' or '> 0 and at most :data:`MAX_FOO` (2.5)': the API contract "
        "then requires a value just past it to be refused by name; or (2) when no one parameter "
        "reaches it alone, add (module, name) to CAPS and a case to CASES in "
        "tests/test_bounded_work.py, a call at the cap and one just past it; or (3) when it bounds "
        "a value's range and no work, add it to VALUE_RANGES there with the reason."
    )
    stale = sorted(set(VALUE_RANGES) - set(caps))
    assert not stale, f"VALUE_RANGES lists names fairlib no longer defines: {stale}"
    both = {key: probed[key] for key in set(VALUE_RANGES) & set(probed)}
    assert not both, f"in VALUE_RANGES but probed as a cap on work (remove them there): {both}"


@pytest.mark.parametrize("case", sorted(CASES))
def test_at_the_cap_it_finishes_and_past_it_it_refuses_by_name(case, pool):
    _, _, at, _, names = CASES[case]
    if at is not None:
        outcome, message = pool.submit(_run_case, case, "at").result(timeout=GUARD_SECONDS)
        assert outcome == "ok", f"{case} at the cap: {outcome} {message}"
    outcome, message = pool.submit(_run_case, case, "past").result(timeout=GUARD_SECONDS)
    assert outcome == "refused", f"{case} past the cap: {outcome} {message}"
    assert names in message, message
