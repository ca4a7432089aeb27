"""The mechanism atlas: every registered mechanism on the same jobs of three real clusters, whole
cells included.

A *cell* (:class:`Cell`) is one instant of one cluster: the machines up then, with their capacities,
and the users present then, with their per-task demands, their caps (the tasks they ask for, or
none) and where they may run.

- **Google clusterdata-2011-2** (:func:`google_cells`): every machine up at the instant (about
  12,500) and every job with tasks pending or running, as
  :func:`.scheduler_semantics.cell_snapshots` builds them: per-task demand the median (CPU, memory)
  *request* of its present tasks (``task_usage`` is not in the excerpt), cap its present tasks.
- **Alibaba** (:func:`alibaba_cells`): the machines of v2018 ``machine_meta`` up at the instant
  (:func:`fairlib.traces.machines_up`) and the v2017 ``batch_task`` tasks present then
  (:func:`fairlib.traces.tasks_present`): a task is a group of identical instances, one user with
  its per-instance plan as demand and its instance count as cap. The two tables come from different
  trace releases (the excerpt holds no v2018 ``batch_task``), so the jobs are v2017's on v2018's
  machines at the same trace time.
- **Bitbrains GWA-T-12** (:func:`bitbrains_cells`): §6.1's 250-server fleet as the trace notebook
  builds it (:func:`fairlib.traces.bitbrains_fleet` with storage and network sized from the VMs) and
  the VMs active at the instant, each demanding its peak usage, at a random one of 3 locations and
  eligible for its own and adjacent ones (:func:`fairlib.sim.location_eligibility`); uncapped, as
  the paper's users are.

:func:`atlas_table` runs every mechanism of :func:`mechanism_runs` on each cell (:func:`cell_rows`):
the pooled mechanisms on the cell's pooled capacity (what a scheduler that pools its machines
promises), the multi-server ones on the merged identical machines
(:func:`fairlib.multires.merge_identical_servers`, exact for them) and the whole-task placement
heuristics (:func:`fairlib.multires.keeps_servers`) on every machine as it is. Every allocation is
then measured the same way: utilisation per resource, tasks and users served, the spread of dominant
shares (Jain's index, smallest and largest), and the library's property checkers
(:func:`fairlib.multires.property_violations`: sharing incentive, envy-freeness, Pareto slack,
bottleneck fairness) on the cluster it was computed for, a machine-level allocation summed over each
class of identical machines first (exact for SI, EF and PO, which depend on the per-class totals
only). :func:`strategyproofness_spot_checks` runs
:func:`fairlib.properties.strategyproofness_violation` on small random sub-cells. A mechanism that
refuses a cell (a cap it does not honour, an instance beyond its placement cap, a size above the
atlas's :data:`SIZE_CAPS`) is a row with its ``status`` saying why, never a silent gap.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ... import mechanisms as registry
from ..._validate import (
    read_only_state,
    as_table,
    MAX_SECONDS,
    InvalidInputError,
    _check_aligned,
    as_count,
    as_eligibility,
    as_flag,
    as_instance,
    as_labels,
    as_number,
    as_rng,
    as_values,
    check_choice,
    check_labels,
    as_sequence,
    _store_read_only,
)
from ...metrics import jain_index
from ...multires.cluster import Cluster, _checked_run, keeps_servers, merge_identical_servers
from ...multires.checks.server_properties import property_violations
from ...multires.psdsf import psdsf_violation
from ...properties import strategyproofness_violation
from ...sim import location_eligibility, snapshot_cluster
from ...sweep import sweep
from ...traces.alibaba import machines_up, tasks_present
from ...traces.workload import bitbrains_fleet, bitbrains_workload
from ..plotting import new_figure
from ..prose import number, percent, span
from ..ledger import Measurement
from ...sweep import MAX_CELLS
from .scheduler_semantics import _check_events, cell_snapshots

__all__ = [
    "SIZES",
    "BATCH",
    "batches",
    "concat_tables",
    "TRACES",
    "MEASURES",
    "Cell",
    "google_cells",
    "alibaba_cells",
    "bitbrains_cells",
    "mechanism_runs",
    "cell_rows",
    "atlas_table",
    "strategyproofness_spot_checks",
    "per_mechanism",
    "PER_MECHANISM_NAMES",
    "run_labels",
    "leaders",
    "spread",
    "complete_runs",
    "distinct_instants",
    "normalised_measures",
    "findings",
    "figure",
    "summary",
    "check_mode",
    "SIZE_CAPS",
    "SERVED_TOL",
    "PROPERTY_TOL",
    "TIE_TOL",
    "UNCERTIFIED",
]

#: the three clusters, in the order of the notebook's sections and the figure's panels
TRACES = ("google", "alibaba", "bitbrains")
#: where a cell's data come from
_SOURCES = ("real", "synthetic")

#: instants per trace (seconds of trace time; Bitbrains: days into the excerpt) and the sub-cells of
#: the strategy-proofness spot checks, per mode
SIZES = {
    "quick": {
        "google": [3600.0],
        "alibaba": [7200.0],
        # inside the quick stand-in's two days (fairlib.traces.synthetic.STAND_IN_SIZES), so a
        # reader's clone runs it too
        "bitbrains": [1.0],
        "fraction": 0.05,
        "alibaba_fraction": 0.25,
        "spot_users": 2,
        "spot_checks": 1,
    },
    "full": {
        "google": [3600.0 * h for h in range(1, 8)],
        "alibaba": [7200.0, 21600.0, 36000.0, 50400.0],
        "bitbrains": [3.0, 9.0, 15.0, 21.0, 27.0],
        "fraction": 1.0,
        "alibaba_fraction": 1.0,
        "spot_users": 4,
        "spot_checks": 1,
    },
}

#: the instants one notebook cell runs (:func:`batches`): two, one per core, so that a cell of
#: Google's whole cell stays within a few minutes
BATCH = 2

#: the largest problem (users × servers it solves: distinct machines, or 1 for a pool) the atlas
#: gives each mechanism that has a cap here; a larger cell is a row saying so. PF-VDS's interior
#: point on a whole Google cell (about 4,000 jobs × 10 classes, every registered α) does not
#: finish within the notebook's time budget.
SIZE_CAPS = {"pfvds": 10_000}

#: a capped user is served in full when its tasks reach its cap within this share of it (at least of
#: one task): the divisible solvers' totals carry rounding (as in
#: :func:`.scheduler_semantics.machine_allocations`)
SERVED_TOL = 1e-6

#: a property holds when its checker's relative violation is at most this (the checkers' solvers
#: round)
PROPERTY_TOL = 1e-6

#: two mechanisms' measures within this of each other are a tie when a sentence names the highest or
#: lowest (the per-trace tables print three decimals)
TIE_TOL = 1e-3

#: how a row's ``status`` opens when the mechanism's solver returned an allocation it does not
#: certify (``converged`` False): the allocation is in the row, but it is not the mechanism's, so no
#: mean or claim reads it
UNCERTIFIED = "solver did not certify"

#: the envy checker divides a user's gain by its own tasks floored at 1e-300, so a user holding
#: nothing who would gain from another's bundle comes out near 1e300: such envy is unbounded and the
#: row says inf
_UNBOUNDED_ENVY = 1e250

#: the measures of the summary figure: column -> (reader's name, higher is better). Bottleneck
#: fairness is not one: its checker (Definition 4) says nothing with per-user caps (Google, Alibaba)
#: or when some machine has no bottleneck resource (Bitbrains' fleet), so it is NaN on every cell of
#: the atlas; the tables keep its column.
MEASURES = {
    "util_mean": ("utilisation (mean)", True),
    "served_full": ("users served in full", True),
    "jain": ("Jain's index", True),
    "min_share": ("smallest dominant share", True),
    "SI": ("sharing-incentive violation", False),
    "EF": ("envy violation", False),
    "PO": ("Pareto slack", False),
    "seconds": ("run time", False),
}


@read_only_state
@dataclass(frozen=True, eq=False)
class Cell:
    """One instant of one cluster.

    Parameters
    ----------
    trace : str
        One of :data:`TRACES`.
    at_s : float
        The instant, in seconds of trace time, from 0 (the trace's start) to 2**53.
    capacity : numpy.ndarray
        ``capacity[machine, resource]``.
    resources : tuple of str
        The names of the resource columns.
    demand : numpy.ndarray
        ``demand[user, resource]``, per task.
    caps : numpy.ndarray or None
        ``caps[user]``: the tasks each user asks for (None: uncapped).
    eligible : numpy.ndarray or None
        ``eligible[user, machine]`` (None: every user anywhere).
    source : str
        "real" or "synthetic".

    Raises
    ------
    InvalidInputError
        When a field is malformed (a shape that does not match the others, a negative or
        non-finite entry, an unknown trace or source), naming it.
    """

    trace: str
    at_s: float
    capacity: np.ndarray
    resources: tuple
    demand: np.ndarray
    caps: np.ndarray | None
    eligible: np.ndarray | None
    source: str

    def __post_init__(self) -> None:
        """Checks every field (trace, instant, the capacity and demand tables with their resource
        and user labels, caps, eligibility) and stores read-only copies."""
        check_choice(self.trace, TRACES, "trace")
        as_number(self.at_s, "at_s", inclusive=True, maximum=MAX_SECONDS)
        capacity = as_values(self.capacity, "capacity", ndim=2)
        resources = as_labels(
            self.resources, "resources", length=capacity.shape[1], allow_empty=False
        )
        for name, frame in (("capacity", self.capacity), ("demand", self.demand)):
            _check_aligned(frame, name, 1, ("resources", resources, None))
        demand = as_values(self.demand, "demand", ndim=2, shape=(-1, capacity.shape[1]))
        users = ("demand", self.demand, 0)
        check_labels(users, caps=self.caps)
        caps = eligible = None
        if self.caps is not None:
            caps = as_values(self.caps, "caps", ndim=1, shape=(demand.shape[0],))
        if self.eligible is not None:
            eligible = as_eligibility(
                self.eligible,
                demand.shape[0],
                capacity.shape[0],
                aligned_to=users,
                servers=("capacity", self.capacity, 0),
            )
        check_choice(self.source, _SOURCES, "source")
        # the validated arrays, as read-only copies (the caller's, shared, could change a cell
        # already checked)
        _store_read_only(
            self,
            capacity=capacity,
            resources=resources,
            demand=demand,
            caps=caps,
            eligible=eligible,
        )

    @property
    def cluster(self) -> Cluster:
        """The cell on its machines."""
        # Cluster takes None for "no caps" and "every pair" (its fields are typed by what it stores)
        return Cluster(
            self.capacity,
            self.demand,
            max_tasks=self.caps,  # type: ignore[arg-type]
            eligible=self.eligible,  # type: ignore[arg-type]
        )

    @property
    def pooled_capacity(self) -> np.ndarray:
        """The machines' capacities summed per resource (``math.fsum``: the same last bit on every
        CPU)."""
        return np.array([math.fsum(column) for column in self.capacity.T])

    @property
    def pool(self) -> Cluster:
        """The cell on its pooled capacity (one server), as a pooling scheduler sees it."""
        return Cluster.single_pool(self.pooled_capacity, self.demand, max_tasks=self.caps)


#: an :func:`atlas_table`'s columns of a property's violation: any sign (<= :data:`PROPERTY_TOL`
#: holds), -inf or inf where unbounded (envy of a user holding nothing, Pareto slack with room)
_VIOLATIONS = ("SI", "EF", "PO", "BF")


def _atlas_table(
    value: object, name: str, columns: Iterable[str], numeric: Iterable[str] = ()
) -> pd.DataFrame:
    """``value`` when it is an :func:`atlas_table` holding ``columns``, those of ``numeric``
    numbers (:func:`as_table`): >= 0 (instants, counts, utilisations, shares, seconds) but for a
    property's violation (:data:`_VIOLATIONS`)."""
    numeric = list(numeric)
    violations = [c for c in numeric if c in _VIOLATIONS]
    # every column read is looked for at once, so a refusal names all those missing
    table = as_table(
        value,
        name,
        [*columns, *violations],
        [c for c in numeric if c not in violations],
        sign=">= 0",
    )
    as_table(table, name, (), violations, infinite=True)
    return table


def _tables(
    tables: object, columns: Iterable[str], numeric: Iterable[str], name: str = "tables"
) -> dict:
    """``tables``, trace -> its :func:`atlas_table`, checked: one table for each of :data:`TRACES`
    and none for another, each with ``columns``, those of ``numeric`` numbers
    (:func:`_atlas_table`)."""
    given: Mapping = as_instance(tables, Mapping, name)
    for trace in given:
        check_choice(trace, TRACES, f"{name} key")
    missing = [t for t in TRACES if t not in given]
    if missing:
        raise InvalidInputError(f"{name}: no table for {missing}")
    columns, numeric = list(columns), list(numeric)
    for trace in TRACES:
        _atlas_table(given[trace], f"{name}[{trace!r}]", columns, numeric)
    return dict(given)


def _cells(cells: object, name: str = "cells") -> list:
    """``cells`` as a list of at least one :class:`Cell`."""
    out = list(as_sequence(cells, name, what="expected a non-empty list of Cell"))
    if not out:
        raise InvalidInputError(f"{name}: expected a non-empty list of Cell, got an empty one")
    for i, cell in enumerate(out):
        if not isinstance(cell, Cell):
            raise InvalidInputError(f"{name}[{i}]: expected a Cell, got {type(cell).__name__}")
    return out


def _instants(instants: object, name: str) -> list:
    """``instants``, a non-empty sequence of trace times in seconds, each from 0 (the trace's start)
    to :data:`fairlib._validate.MAX_SECONDS`, as given."""
    out = list(as_sequence(instants, name, what="expected a sequence of times (seconds)"))
    if not out:
        raise InvalidInputError(f"{name}: no instant (at least one)")
    for i, at in enumerate(out):
        as_number(at, f"{name}[{i}]", inclusive=True, maximum=MAX_SECONDS)
    return out


def _runs(runs: object) -> dict:
    """``runs`` checked (run name -> (registered mechanism name, callable of a cluster)), or
    :func:`mechanism_runs` when None."""
    if runs is None:
        return mechanism_runs()
    given: Mapping = as_instance(runs, Mapping, "runs")
    if not given:
        raise InvalidInputError("runs: empty (at least one run)")
    for name, run in given.items():
        if not isinstance(name, str):
            raise InvalidInputError(f"runs: key {name!r} is not text (a run's name)")
        if not isinstance(run, tuple) or len(run) != 2 or not callable(run[1]):
            raise InvalidInputError(
                f"runs[{name!r}]: must be a pair (mechanism name, callable of a cluster), got "
                f"{type(run).__name__}"
            )
        try:
            registry.get(run[0])
        except InvalidInputError as exc:
            raise InvalidInputError(f"runs[{name!r}][0]: {exc}") from None
    return dict(given)


def google_cells(
    task_events: pd.DataFrame,
    machine_events: pd.DataFrame,
    instants: Sequence[float],
    *,
    fraction: float = 1.0,
    rng: int | np.random.SeedSequence | None = None,
    source: str = "real",
) -> list[Cell]:
    """One :class:`Cell` per instant (seconds of trace time) of Google's cell: every machine up and
    every job with tasks pending or running (:func:`.scheduler_semantics.cell_snapshots`), capped at
    its present tasks.

    Parameters
    ----------
    task_events, machine_events : pandas.DataFrame
        Rows of :func:`fairlib.traces.read_task_events` and
        :func:`fairlib.traces.read_machine_events`.
    instants : sequence of float
        Trace times in seconds, at least one, each from 0 to 2**53.
    fraction : float
        Share of the jobs and of the machines kept, in (0, 1] (1: the whole cell; less: a random
        sample, contention kept on average, for quick runs).
    rng : int or numpy SeedSequence, optional
        The samples' randomness.
    source : str
        "real" or "synthetic".

    Returns
    -------
    list of Cell

    Raises
    ------
    InvalidInputError
        When an argument is malformed, naming it.
    """
    # fraction is checked by cell_snapshots and the source by Cell, with these names
    _check_events(task_events, machine_events)
    _instants(instants, "instants")
    if isinstance(rng, (np.random.Generator, np.random.BitGenerator)):
        raise InvalidInputError(
            f"rng = {rng!r}: must be None, an integer >= 0 or a SeedSequence (each instant's "
            "sample takes a child seed of it)"
        )
    as_rng(rng)
    snaps = cell_snapshots(
        task_events, machine_events, instants, fraction=fraction, rng=rng, source=source
    )
    return [
        Cell(
            "google",
            at,
            snap.machines,
            ("cpu", "memory"),
            snap.demand,
            snap.tasks.astype(float),
            None,
            source,
        )
        for at, snap in snaps.items()
    ]


def alibaba_cells(
    machine_meta: pd.DataFrame,
    batch_task: pd.DataFrame,
    instants: Sequence[float],
    *,
    fraction: float = 1.0,
    rng: int | np.random.SeedSequence | None = None,
    source: str = "real",
) -> list[Cell]:
    """One :class:`Cell` per instant of the Alibaba cluster: the machines up
    (:func:`fairlib.traces.machines_up`) and the batch tasks present
    (:func:`fairlib.traces.tasks_present`), each capped at its instances.

    Parameters
    ----------
    machine_meta, batch_task : pandas.DataFrame
        Rows of :func:`fairlib.traces.read_machine_meta` and :func:`fairlib.traces.read_batch_task`.
    instants : sequence of float
        Trace times in seconds, at least one, each from 0 to 2**53.
    fraction : float
        Share of the tasks and of the machines kept, in (0, 1] (1: all; less: a random sample, for
        quick runs).
    rng : seed or numpy Generator, optional
        The samples' randomness.
    source : str
        "real" or "synthetic".

    Returns
    -------
    list of Cell

    Raises
    ------
    InvalidInputError
        When an argument is malformed, naming it.
    """
    # the tables are checked by machines_up and tasks_present, the source by Cell, with these names
    instants = _instants(instants, "instants")
    fraction = as_number(fraction, "fraction", maximum=1.0)
    gen = as_rng(rng)
    out = []
    for at in instants:
        machines = machines_up(machine_meta, float(at))
        tasks = tasks_present(batch_task, float(at))
        if fraction < 1:
            machines = machines[gen.random(len(machines)) < fraction]
            tasks = tasks[gen.random(len(tasks)) < fraction]
        if len(machines) == 0 or tasks.empty:
            kept = f" (fraction = {fraction} of them kept)" if fraction < 1 else ""
            raise InvalidInputError(
                f"instants: at {at} s {len(machines)} machines are up and {len(tasks)} tasks "
                f"present{kept}"
            )
        out.append(
            Cell(
                "alibaba",
                float(at),
                machines,
                ("cpu", "memory"),
                tasks[["cpu", "memory"]].to_numpy(float),
                tasks.instances.to_numpy(float),
                None,
                source,
            )
        )
    return out


def bitbrains_cells(
    vms: pd.DataFrame,
    days: Sequence[float],
    rng: int | np.random.SeedSequence | None = None,
    *,
    reach: int = 1,
) -> list[Cell]:
    """One :class:`Cell` per instant (``days`` after the excerpt's first sample) of §6.1's
    Bitbrains set-up: the 250-server fleet over 3 locations, storage and network sized from ``vms``
    (:func:`fairlib.traces.bitbrains_fleet`), the VMs active then demanding their peaks
    (:func:`fairlib.traces.bitbrains_workload`), each at a random location (one draw of ``rng`` for
    the whole run) and eligible within ``reach`` of it; uncapped.

    Parameters
    ----------
    vms : pandas.DataFrame
        Rows of :func:`fairlib.traces.read_vms`.
    days : sequence of float
        Instants, in days after the first sample: at least one, each from 0 to 2**53 s in days.
    rng : seed or numpy Generator
        The VMs' locations.
    reach : int
        Adjacent locations a VM may use, >= 0 (:func:`fairlib.sim.location_eligibility`).

    Returns
    -------
    list of Cell

    Raises
    ------
    InvalidInputError
        When an argument is malformed, naming it.
    """
    as_instance(vms, pd.DataFrame, "vms")
    days = list(as_sequence(days, "days", what="expected a sequence of days"))
    if not days:
        raise InvalidInputError("days: no instant (at least one)")
    for i, day in enumerate(days):
        as_number(day, f"days[{i}]", inclusive=True, maximum=MAX_SECONDS / 86_400.0)
    fleet = bitbrains_fleet(locations=3, size_from=vms)
    workload = bitbrains_workload(vms)
    eligible = location_eligibility(fleet, workload.n_users, rng, reach=reach)
    start = float(workload.arrival.min())
    out = []
    for day in days:
        at = start + 86_400.0 * float(day)
        snap = snapshot_cluster(fleet, workload, at, eligible)
        if snap.cluster is None:
            raise InvalidInputError(f"days: no VM is active {day} days into the excerpt")
        out.append(
            Cell(
                "bitbrains",
                at,
                fleet.capacity,
                tuple(fleet.resources),
                snap.cluster.demand,
                None,
                snap.cluster.eligible,
                workload.source,
            )
        )
    return out


def mechanism_runs() -> dict:
    """Every registered mechanism with its registered variants (:func:`fairlib.mechanisms.runs`).

    Returns
    -------
    dict
        Run name -> ``(mechanism name, callable of a cluster)``, in registration order.
    """
    out = {}
    for mech in registry.select():
        for run_name, run in mech.runs().items():
            out[run_name] = (mech.name, run)
    return out


def _label(run_name: str, mech: registry.Mechanism) -> str:
    """The reader's name of a run: the mechanism's label, with a variant's options (α per server as
    a list)."""
    options = mech.variants.get(run_name)
    if not options:
        return mech.label
    shown = [
        f"{k} = " + ("/".join(f"{x:g}" for x in v.values) if hasattr(v, "values") else f"{v:g}")
        for k, v in options.items()
    ]
    return f"{mech.label} ({', '.join(shown)})".replace("alpha", "α")


def _per_class(tasks: np.ndarray, group: np.ndarray, n_classes: int) -> np.ndarray:
    """``tasks[user, machine]`` summed over each class of identical machines."""
    out = np.zeros((tasks.shape[0], n_classes))
    np.add.at(out.T, group, tasks.T)
    return out


def cell_rows(cell: Cell, runs: dict | None = None, *, checks: bool = True) -> list[dict]:
    """Every run of ``runs`` (:func:`mechanism_runs` when None) on ``cell``, one row each (module
    docstring).

    Columns: ``trace``, ``at_s``, ``mechanism`` (run name), ``label``, ``model`` ("pool", "merged
    machines" or "machines"), ``status`` ("ran" or why not), ``users``, ``machines``, ``classes``
    (distinct machines), ``tasks``, ``served_full`` (share of capped users given all their tasks,
    within :data:`SERVED_TOL`; NaN uncapped), ``served_any`` (share given at least one task's
    worth), ``util_<resource>`` and ``util_mean`` (of the pooled capacity), ``jain``, ``min_share``,
    ``max_share`` (dominant shares of the pooled capacity), ``SI``, ``EF``, ``PO``, ``BF`` (relative
    violations, <= :data:`PROPERTY_TOL` holds; EF inf where a user holding nothing would gain from
    another's bundle; BF NaN where Definition 4 says nothing: caps or a machine without a
    bottleneck), ``converged``, ``seconds`` (the mechanism's wall time) and ``cpu_seconds`` (its
    process time), ``check_seconds``; for PS-DSF ``definition4``, whether its allocation meets
    Definition 4 (:func:`fairlib.multires.psdsf.psdsf_violation`). A run whose solver does not
    certify its allocation (``converged`` False) keeps its measures but its ``status`` opens with
    :data:`UNCERTIFIED` and the solver's message: it is not counted as a run of the mechanism.

    Parameters
    ----------
    cell : Cell
        The cell.
    runs : dict, optional
        Run name -> (registered mechanism name, callable of a cluster), as :func:`mechanism_runs`.
    checks : bool
        Whether to run the property checkers.

    Returns
    -------
    list of dict

    Raises
    ------
    InvalidInputError
        When an argument is malformed, naming it.
    """
    as_instance(cell, Cell, "cell")
    runs = _runs(runs)
    checks = as_flag(checks, "checks")
    cluster = cell.cluster
    merged, group, counts = merge_identical_servers(cluster)
    pool = cell.pool
    capacity = cell.pooled_capacity
    per_task = (cell.demand / capacity).max(axis=1)
    base = {
        "trace": cell.trace,
        "at_s": cell.at_s,
        "users": int(cluster.n_users),
        "machines": int(cluster.n_servers),
        "classes": int(merged.n_servers),
    }
    rows = []
    for run_name, (mech_name, run) in runs.items():
        mech = registry.get(mech_name)
        if "pooled" in mech.capabilities:
            model, target = "pool", pool
        elif keeps_servers(run):
            model, target = "machines", cluster
        else:
            model, target = "merged machines", merged
        row = {**base, "mechanism": run_name, "label": _label(run_name, mech), "model": model}
        size = target.n_users * target.n_servers
        if size > SIZE_CAPS.get(mech_name, np.inf):
            rows.append(
                {
                    **row,
                    "status": f"not run: {target.n_users:,} users × {target.n_servers:,} servers "
                    f"= {size:,}, above "
                    f"the atlas's cap of {SIZE_CAPS[mech_name]:,} for {mech.label} (its "
                    "solver does not finish "
                    "within the notebook's time budget at that size)",
                }
            )
            continue
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            alloc = _checked_run(run, target)
        except InvalidInputError as exc:
            rows.append({**row, "status": f"refused: {exc}"})
            continue
        row["seconds"] = time.perf_counter() - t0
        row["cpu_seconds"] = time.process_time() - c0
        tasks = np.asarray(alloc.tasks, dtype=float)
        checked = _per_class(tasks, group, merged.n_servers) if model == "machines" else tasks
        checked_on = merged if model == "machines" else target
        totals = tasks.sum(axis=1)
        used = totals @ cell.demand / capacity
        shares = totals * per_task
        row.update(
            status="ran",
            converged=bool(alloc.converged),
            tasks=float(totals.sum()),
            served_full=float(
                (totals >= cell.caps - SERVED_TOL * np.maximum(cell.caps, 1.0)).mean()
            )
            if cell.caps is not None
            else float("nan"),
            served_any=float((totals >= 1 - 1e-9).mean()),
            **{f"util_{r}": float(u) for r, u in zip(cell.resources, used)},
            util_mean=float(used.mean()),
            jain=jain_index(shares) if (shares > 0).any() else float("nan"),
            min_share=float(shares.min()),
            max_share=float(shares.max()),
        )
        if not alloc.converged:
            row["status"] = f"{UNCERTIFIED}: " + (alloc.message or "converged is False")
        if checks:
            c0 = time.process_time()
            if mech_name == "psdsf":
                # PS-DSF is not Pareto optimal in general: whether its slack is the mechanism's or
                # its solver's is whether the allocation meets the mechanism's own condition
                row["definition4"] = bool(psdsf_violation(target, tasks)["holds"])
            found = property_violations(checked_on, checked)
            if found["EF"] > _UNBOUNDED_ENVY:
                found["EF"] = float("inf")
            row.update(found)
            row["check_seconds"] = time.process_time() - c0
        rows.append(row)
    return rows


def _cell_task(seed, index, cells, runs, checks):
    return cell_rows(cells[index], runs, checks=checks)


def atlas_table(
    cells: Sequence[Cell], runs: dict | None = None, *, checks: bool = True, progress: bool = False
) -> pd.DataFrame:
    """:func:`cell_rows` of every cell, the cells in parallel on :func:`fairlib.sweep.sweep`: the
    tidy table, one row per (cell, run), with the data's ``source``.

    Parameters
    ----------
    cells : list of Cell
        The cells of one trace, at least one.
    runs : dict, optional
        As :func:`mechanism_runs` (the default).
    checks : bool
        Whether to run the property checkers.
    progress : bool
        A progress bar over cells.

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    InvalidInputError
        When an argument is malformed, naming it.
    """
    cells = _cells(cells)
    runs = _runs(runs)
    checks = as_flag(checks, "checks")
    out = sweep(
        _cell_task,
        [{"index": i} for i in range(len(cells))],
        rng=0,
        fixed=dict(cells=cells, runs=runs, checks=checks),
        progress=progress,
        desc=f"{cells[0].trace} cells",
        cache=False,
    )
    out = out.drop(columns=["rep", "index"], errors="ignore")
    out["source"] = cells[0].source
    return out.sort_values(["at_s"], kind="stable").reset_index(drop=True)


def batches(cells: Sequence[Cell], size: int = BATCH) -> list[list[Cell]]:
    """``cells`` in consecutive groups of ``size`` (the last may be shorter), one
    :func:`atlas_table` each: a notebook runs a long trace's instants over several cells.

    Parameters
    ----------
    cells : list of Cell
        The cells of one trace, in order, at least one.
    size : int
        Cells per group, 1 to 1,000,000 (:data:`fairlib.sweep.MAX_CELLS`: a group is one sweep).

    Returns
    -------
    list of list of Cell

    Raises
    ------
    InvalidInputError
        When an argument is malformed, naming it.
    """
    cells = _cells(cells)
    size = as_count(size, "size", minimum=1, maximum=MAX_CELLS)
    return [cells[i : i + size] for i in range(0, len(cells), size)]


def concat_tables(parts: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """The :func:`atlas_table` tables of one trace's :func:`batches` as one table, ordered by
    instant as :func:`atlas_table` orders it.

    Parameters
    ----------
    parts : list of pandas.DataFrame
        :func:`atlas_table` of each batch (column ``at_s``), at least one.

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    InvalidInputError
        When ``parts`` is not such a list.
    """
    parts = list(
        as_sequence(parts, "parts", what="expected a non-empty list of atlas_table tables")
    )
    if not parts:
        raise InvalidInputError("parts: expected a non-empty list of atlas_table tables")
    for i, part in enumerate(parts):
        as_table(part, f"parts[{i}]", (), ["at_s"], sign=">= 0")
    out = pd.concat(parts, ignore_index=True)
    return out.sort_values(["at_s"], kind="stable").reset_index(drop=True)


def _sub_cell(cell: Cell, n_users: int, rng: np.random.Generator) -> Cell:
    """``n_users`` random users of ``cell`` on a random share of its machines in the same proportion
    (at least two), uncapped: strategy-proofness is defined for users who take all they are given (a
    capped user's gain beyond its cap would count)."""
    users = np.sort(
        rng.choice(len(cell.demand), size=min(n_users, len(cell.demand)), replace=False)
    )
    n_machines = max(2, int(round(len(cell.capacity) * len(users) / len(cell.demand))))
    machines = np.sort(
        rng.choice(len(cell.capacity), size=min(n_machines, len(cell.capacity)), replace=False)
    )
    eligible = None if cell.eligible is None else cell.eligible[np.ix_(users, machines)]
    if eligible is not None:
        eligible[~eligible.any(axis=1), :] = (
            True  # a user with no machine left may use the sampled ones
        )
    return Cell(
        cell.trace,
        cell.at_s,
        cell.capacity[machines],
        cell.resources,
        cell.demand[users],
        None,
        eligible,
        cell.source,
    )


def strategyproofness_spot_checks(
    cells: Sequence[Cell],
    runs: dict | None = None,
    *,
    n_users: int = 5,
    n_checks: int = 2,
    rng: int | np.random.SeedSequence | None = None,
) -> pd.DataFrame:
    """Strategy-proofness by search (:func:`fairlib.properties.strategyproofness_violation`, 2
    random misreports per user besides the scaled ones) of every run on ``n_checks`` small random
    sub-cells of the first cell: ``n_users`` users, uncapped, on machines drawn in the cell's
    proportion. One row per (check, run): ``SP`` (> :data:`PROPERTY_TOL`: some user gains by lying),
    the sub-cell's ``users`` and ``machines``, or ``status`` when the mechanism refuses it.

    Parameters
    ----------
    cells : list of Cell
        The cells of one trace (the first is sampled), at least one.
    runs : dict, optional
        As :func:`mechanism_runs` (the default).
    n_users : int
        Users per sub-cell, 2 to 50.
    n_checks : int
        Sub-cells, 1 to 100.
    rng : seed or numpy Generator
        The sub-cells' randomness.

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    InvalidInputError
        When an argument is malformed, naming it.
    """
    cell = _cells(cells)[0]
    n_users = as_count(n_users, "n_users", minimum=2, maximum=50)
    n_checks = as_count(n_checks, "n_checks", minimum=1, maximum=100)
    runs = _runs(runs)
    gen = as_rng(rng)
    rows = []
    for k in range(n_checks):
        sub = _sub_cell(cell, n_users, gen)
        cluster = sub.cluster
        for run_name, (mech_name, run) in runs.items():
            mech = registry.get(mech_name)
            target = sub.pool if "pooled" in mech.capabilities else cluster
            row = {
                "trace": cell.trace,
                "at_s": cell.at_s,
                "check": k,
                "mechanism": run_name,
                "users": int(cluster.n_users),
                "machines": int(cluster.n_servers),
            }
            try:
                row["SP"] = strategyproofness_violation(run, target, n_random=2, rng=k)
                row["status"] = "ran"
            except InvalidInputError as exc:
                row["status"] = f"refused: {exc}"
            rows.append(row)
    out = pd.DataFrame(rows)
    out["source"] = cell.source
    return out


#: reader's column names of :func:`per_mechanism`
PER_MECHANISM_NAMES = {
    "label": "mechanism",
    "model": "allocates",
    "instants": "instants run",
    "util_mean": "utilisation (mean)",
    "served_full": "served in full",
    "jain": "Jain's index",
    "SI_violated": "SI violated",
    "EF_violated": "EF violated",
    "PO_violated": "PO violated",
    "BF_violated": "BF violated",
    "worst": "largest violation",
    "seconds": "seconds",
}


#: the columns of an :func:`atlas_table` that :func:`per_mechanism` reads, and those it reads as
#: numbers (with the properties' violations, where the table has them)
_PER_MECHANISM_COLUMNS = ("mechanism", "label", "model", "status")
_PER_MECHANISM_NUMBERS = ("util_mean", "served_full", "jain", "seconds")


def per_mechanism(table: pd.DataFrame) -> pd.DataFrame:
    """One trace's :func:`atlas_table` per mechanism: the instants it ran (a solve its solver did
    not certify is not a run), the means over them of utilisation (mean of the resources), users
    served in full and Jain's index; per property (SI, EF, PO, BF) the instants where it is violated
    (beyond :data:`PROPERTY_TOL`; "—" where the property says nothing at any instant) and the
    largest violation over all four (inf: a user holding nothing would gain from another's bundle);
    the mean run time; and ``status``, why a mechanism did not run at some instant. The smallest
    dominant share is left out: it stays in :func:`atlas_table` and the figure (relative to the best
    mechanism's), but as a mean it prints 0.0000 on the capped cells, where a job of one small task
    holds about 1e-6 of the cell.

    Parameters
    ----------
    table : pandas.DataFrame
        One trace's :func:`atlas_table`.

    Returns
    -------
    pandas.DataFrame
        One row per mechanism run, in the table's order.

    Raises
    ------
    InvalidInputError
        When ``table`` is not a table with the columns read, naming the missing ones, or one read
        as numbers holds something else (naming the row).
    """
    table = _atlas_table(table, "table", _PER_MECHANISM_COLUMNS, _PER_MECHANISM_NUMBERS)
    _atlas_table(table, "table", (), [p for p in _VIOLATIONS if p in table.columns])
    rows = []
    for name, g in table.groupby("mechanism", sort=False):
        ran = g[g.status == "ran"]
        row = {
            "mechanism": name,
            "label": g.label.iloc[0],
            "model": g.model.iloc[0],
            "instants": int(len(ran)),
            "status": "ran"
            if len(ran) == len(g)
            else f"{int((g.status != 'ran').sum())} of {len(g)} instants: "
            + g.status[g.status != "ran"].iloc[0],
        }
        if len(ran):
            row.update({c: float(ran[c].mean()) for c in ("util_mean", "served_full", "jain")})
            worst = -np.inf
            for p in ("SI", "EF", "PO", "BF"):
                v = ran[p].astype(float) if p in ran else pd.Series(dtype=float)
                row[f"{p}_violated"] = (
                    str(int((v > PROPERTY_TOL).sum())) if v.notna().any() else "—"
                )
                if v.notna().any():
                    worst = max(worst, float(v.max()))
            row["worst"] = worst if np.isfinite(worst) or worst == np.inf else float("nan")
            row["seconds"] = float(ran.seconds.mean())
        rows.append(row)
    return pd.DataFrame(rows)


def run_labels(runs: dict | None = None) -> dict:
    """The reader's name of every run: the mechanism's label, with a variant's options (α per
    server as a list).

    Parameters
    ----------
    runs : dict, optional
        As :func:`mechanism_runs` (the default).

    Returns
    -------
    dict
        Run name -> label.

    Raises
    ------
    InvalidInputError
        When ``runs`` is malformed, naming it.
    """
    runs = _runs(runs)
    return {name: _label(name, registry.get(mech)) for name, (mech, _) in runs.items()}


def _finite_values(values: object) -> pd.Series:
    """``values`` (a Series or a mapping, name -> number) as floats without NaN, at least one, none
    infinite."""
    if not isinstance(values, (pd.Series, Mapping)):
        raise InvalidInputError(
            f"values: expected a pandas Series of numbers, got {type(values).__name__}"
        )
    try:
        out = pd.Series(values, dtype=float).dropna()
    except (TypeError, ValueError):
        raise InvalidInputError(f"values: must hold numbers, got {values!r}") from None
    if out.empty:
        raise InvalidInputError("values: no finite value")
    if np.isinf(out).any():
        raise InvalidInputError(f"values[{out.index[np.isinf(out)][0]!r}]: must be finite")
    return out


def leaders(values: pd.Series, *, highest: bool = True, tol: float = TIE_TOL) -> str:
    """The name of the highest (or lowest) of ``values``, or, when others are within ``tol`` of it,
    "a tie of" all of them: a sentence never names one winner among equals.

    Parameters
    ----------
    values : pandas.Series
        Name -> value, at least one finite.
    highest : bool
        The highest (else the lowest).
    tol : float
        Values within this of the best tie with it, a finite number >= 0.

    Returns
    -------
    str

    Raises
    ------
    InvalidInputError
        When an argument is malformed, naming it.

    Examples
    --------
    >>> leaders(pd.Series({"A": 0.5, "B": 0.4}))
    'A'
    >>> leaders(pd.Series({"A": 0.5, "B": 0.4995, "C": 0.3}))
    'a tie (within 0.001) of A and B'
    """
    values = _finite_values(values)
    highest = as_flag(highest, "highest")
    tol = as_number(tol, "tol", inclusive=True)
    best = values.max() if highest else values.min()
    tied = [str(name) for name in values.index[(values - best).abs() <= tol]]
    if len(tied) == 1:
        return tied[0]
    return f"a tie (within {tol:g}) of " + ", ".join(tied[:-1]) + f" and {tied[-1]}"


def spread(values: pd.Series, *, decimals: int = 3, tol: float = TIE_TOL) -> str:
    """How ``values`` (one per mechanism) spread, for a sentence: "spans a–b across mechanisms,
    highest …, lowest …" (:func:`leaders`), or, when every value is within ``tol`` of every
    other, "is x for every mechanism".

    Parameters
    ----------
    values : pandas.Series
        Mechanism -> value, at least one finite.
    decimals : int
        Decimals shown, 0 to 17 (a float64 holds 17 significant digits).
    tol : float
        Values within this of each other tie, a finite number >= 0.

    Returns
    -------
    str

    Raises
    ------
    InvalidInputError
        When an argument is malformed, naming it.

    Examples
    --------
    >>> spread(pd.Series({"A": 0.2594, "B": 0.2591}))
    'is 0.259 for every mechanism (all within 0.001)'
    """
    values = _finite_values(values)
    decimals = as_count(decimals, "decimals", minimum=0, maximum=17)
    tol = as_number(tol, "tol", inclusive=True)
    if values.max() - values.min() <= tol:
        return f"is {number(values.mean(), decimals)} for every mechanism (all within {tol:g})"
    return (
        f"spans {span(values.min(), values.max(), decimals)} across mechanisms, highest "
        f"{leaders(values, tol=tol)}, lowest {leaders(values, highest=False, tol=tol)}"
    )


def complete_runs(table: pd.DataFrame) -> tuple[pd.Series, str]:
    """Mean utilisation per mechanism over the mechanisms that ran (certified) at every instant of
    ``table``, and a clause naming the others with their instant counts: a mean over fewer instants
    is not comparable with the others', so those are left out of a ranking rather than ranked.

    Parameters
    ----------
    table : pandas.DataFrame
        One trace's rows (:func:`atlas_table`): columns ``label``, ``status``, ``at_s`` and
        ``util_mean``.

    Returns
    -------
    means : pandas.Series
        Label -> mean utilisation, for the mechanisms that ran at every instant.
    left_out : str
        "" when every mechanism did, else " among the mechanisms that ran at every instant (left
        out: label, k of n instants; ...)".

    Raises
    ------
    InvalidInputError
        When ``table`` is not a table with those columns, ``at_s`` and ``util_mean`` numbers >= 0
        (a refusal names the row).

    Examples
    --------
    >>> t = pd.DataFrame({"label": ["A", "A", "B", "B"], "status": ["ran", "ran", "ran", "capped"],
    ...                   "at_s": [0, 1, 0, 1], "util_mean": [0.5, 0.7, 0.9, None]})
    >>> means, left_out = complete_runs(t)
    >>> means.to_dict(), left_out
    ({'A': 0.6}, ' among the mechanisms that ran at every instant (left out: B, 1 of 2 instants)')
    """
    _atlas_table(table, "table", ["label", "status"], ["at_s", "util_mean"])
    ran = table[table.status == "ran"]
    n_at = table.at_s.nunique()
    runs = ran.groupby("label").at_s.nunique().reindex(table.label.unique(), fill_value=0)
    means = ran[ran.label.isin(runs.index[runs == n_at])].groupby("label").util_mean.mean()
    partial = runs[runs < n_at]
    left_out = (
        ""
        if partial.empty
        else " among the mechanisms that ran at every instant (left out: "
        + "; ".join(f"{k}, {v} of {n_at} instants" for k, v in partial.items())
        + ")"
    )
    return means, left_out


def distinct_instants(cells: Sequence[Cell]) -> list[list[float]]:
    """The instants of ``cells`` grouped by identical cells (the same machines, users, demands, caps
    and eligibility): a trace whose users and demands do not change between instants repeats one
    cell.

    Parameters
    ----------
    cells : list of Cell
        The cells of one trace, at least one.

    Returns
    -------
    list of list of float
        The instants of each distinct cell, in order of first appearance.

    Raises
    ------
    InvalidInputError
        When ``cells`` is not a non-empty list of Cell.
    """
    groups: dict[bytes, list[float]] = {}
    for cell in _cells(cells):
        digest = b"".join(
            np.ascontiguousarray(a).tobytes() + str(np.shape(a)).encode()
            for a in (cell.capacity, cell.demand, cell.caps, cell.eligible)
            if a is not None
        ) + bytes([cell.caps is None, cell.eligible is None])
        groups.setdefault(digest, []).append(cell.at_s)
    return list(groups.values())


#: the columns of an :func:`atlas_table` that :func:`normalised_measures` reads (the measures, as
#: numbers)
_MEASURED_COLUMNS = ("mechanism", "status")


def normalised_measures(table: pd.DataFrame) -> pd.DataFrame:
    """Mechanisms (rows) × :data:`MEASURES` (columns) of one trace's :func:`atlas_table` on one
    scale, 1 the best: each measure's mean over the instants a mechanism ran; utilisation, users
    served in full and Jain's index as they are (shares); a property's violation as 1 − violation,
    a violation within :data:`PROPERTY_TOL` counting as 0 and one above 1 (more than the user's own
    tasks, or envy of a user holding nothing) as 1; the smallest dominant share relative to the
    largest among the mechanisms; run time log-scaled from the fastest (1) to the slowest (0). NaN
    where the measure says nothing (service without caps) or the mechanism did not run.

    Parameters
    ----------
    table : pandas.DataFrame
        One trace's :func:`atlas_table`.

    Returns
    -------
    pandas.DataFrame
        Mechanism runs (rows) × measures (columns), values in [0, 1] or NaN.

    Raises
    ------
    InvalidInputError
        When ``table`` lacks a column read, a measure holds something other than numbers (naming
        the row), or no mechanism ran in it.
    """
    _atlas_table(table, "table", _MEASURED_COLUMNS, MEASURES)
    ran = table[table.status == "ran"].copy()
    if ran.empty:
        raise InvalidInputError("table: no mechanism ran")
    properties = [c for c in ("SI", "EF", "PO", "BF") if c in MEASURES]
    for column in properties:
        ran[column] = ran[column].where(~(ran[column] <= PROPERTY_TOL), 0.0).clip(upper=1.0)
    means = ran.groupby("mechanism", sort=False)[list(MEASURES)].mean()
    out = means[["util_mean", "served_full", "jain"]].astype(float).clip(0.0, 1.0)
    best_share = means.min_share.max()
    out["min_share"] = means.min_share / best_share if best_share > 0 else np.nan
    for column in properties:
        out[column] = 1.0 - means[column].astype(float)
    t = np.log10(means.seconds.astype(float).clip(lower=1e-4))
    out["seconds"] = 1.0 - (t - t.min()) / (t.max() - t.min()) if t.max() > t.min() else 1.0
    return out[list(MEASURES)]


def _mean_util(table: pd.DataFrame, mechanism: str, name: str = "tables['google']") -> pd.Series:
    rows = table[(table.mechanism == mechanism) & (table.status == "ran")]
    if rows.empty:
        raise InvalidInputError(f"{name}: no row of {mechanism!r} that ran")
    return rows.set_index("at_s").util_mean


def _uncertified(table: pd.DataFrame) -> pd.DataFrame:
    return table[table.status.str.startswith(UNCERTIFIED)]


#: the columns of every trace's :func:`atlas_table` that :func:`findings` reads, and those it reads
#: as numbers
_FINDINGS_COLUMNS = ("mechanism", "label", "status")
_FINDINGS_NUMBERS = ("at_s", "util_mean", "served_full", "PO", "EF")


def findings(tables: dict) -> dict:
    """The atlas's claims (``notebooks/claims/atlas.toml``) from the per-trace :func:`atlas_table`
    tables.

    - ``psdsf_lead_over_drfh_google``: the smallest, over the Google instants, of PS-DSF's
      utilisation (mean of CPU and memory) minus DRFH's, on the whole cell; the note gives PS-DSF's
      Pareto slack on the same cells;
    - ``offers_gap_to_drfh_google``: the smallest, over the Google instants, of DRFH's utilisation
      minus that of pooled DRF served machine by machine
      (:func:`fairlib.multires.drf_machine_offers`), in points (hundredths of the capacity); the
      note gives the gap to Best-Fit DRFH too, whole tasks on both sides;
    - ``alibaba_served_full``: the smallest share of tasks given all their instances, over every
      mechanism that ran and every Alibaba instant (a solve its solver did not certify,
      :data:`UNCERTIFIED`, is not a run: the note names them);
    - ``drfh_tsf_pareto_slack``: the largest Pareto slack of DRFH and TSF over every instant of
      every trace;
    - ``edrf_pooled_envy``: the largest envy violation of EDRF (on the pooled capacity) over every
      instant of every trace.

    Parameters
    ----------
    tables : dict
        Trace -> its :func:`atlas_table`, for every trace of :data:`TRACES`.

    Returns
    -------
    dict
        Claim id -> :class:`fairlib.repro.ledger.Measurement`.

    Raises
    ------
    InvalidInputError
        When a table is missing, lacks a column read or has no row of a mechanism a claim compares,
        naming it.
    """
    tables = _tables(tables, _FINDINGS_COLUMNS, _FINDINGS_NUMBERS)
    google = tables["google"]
    lead = _mean_util(google, "psdsf") - _mean_util(google, "drfh")
    psdsf_po = google[(google.mechanism == "psdsf") & (google.status == "ran")].PO.astype(float)
    gap = _mean_util(google, "drfh") - _mean_util(google, "drf_machine_offers")
    whole_gap = _mean_util(google, "drfh_best_fit") - _mean_util(google, "drf_machine_offers")
    ali = tables["alibaba"]
    ali_ran = ali[ali.status == "ran"]
    served = ali_ran.groupby("mechanism").served_full.min()
    uncertified = _uncertified(ali).groupby("label", sort=False).at_s.nunique()
    every = pd.concat(list(tables.values()), ignore_index=True)
    every = every[every.status == "ran"]
    po = every[every.mechanism.isin(["drfh", "tsf"])]
    ef = every[every.mechanism == "edrf"]
    n = google.at_s.nunique()
    offers = _mean_util(google, "drf_machine_offers")
    return {
        "psdsf_lead_over_drfh_google": Measurement(
            float(lead.min()),
            note=f"PS-DSF minus DRFH, mean of CPU and memory utilisation, over {n} instants: "
            f"{lead.min():+.4f} to {lead.max():+.4f}; PS-DSF's Pareto slack on the same cells "
            f"{psdsf_po.min():.3f} to {psdsf_po.max():.3f} (relative tasks; PS-DSF is not "
            "Pareto "
            "optimal in general, Khamse-Ashari et al., TPDS 2018, §2.3)",
        ),
        "offers_gap_to_drfh_google": Measurement(
            float(100 * gap.min()),
            note="DRFH (divisible tasks) minus DRF served machine by machine (whole tasks), over "
            f"{n} instants: "
            f"{100 * gap.min():.1f} to {100 * gap.max():.1f} points; whole tasks on both "
            "sides, Best-Fit DRFH "
            f"minus the offer loop: {100 * whole_gap.min():.1f} to "
            f"{100 * whole_gap.max():.1f} "
            "points; machine "
            f"offers leave {1 - offers.max():.4f} to {1 - offers.min():.4f} of the capacity "
            "unused "
            "(mean of CPU and memory)",
        ),
        "alibaba_served_full": Measurement(
            float(served.min()),
            note=f"over {ali.at_s.nunique()} instants and {len(served)} mechanisms that ran; "
            "lowest: "
            + ", ".join(f"{m} {v:.4f}" for m, v in served.nsmallest(3).items())
            + (
                "; not runs of the mechanism, their solver not certifying its allocation: "
                + ", ".join(
                    f"{m} at {k} of {ali.at_s.nunique()} instants" for m, k in uncertified.items()
                )
                if len(uncertified)
                else ""
            ),
        ),
        "drfh_tsf_pareto_slack": Measurement(
            float(po.PO.max()),
            note=f"{len(po)} allocations (DRFH and TSF, every instant of every trace); slack "
            f"{po.PO.min():.2e} to {po.PO.max():.2e}",
        ),
        "edrf_pooled_envy": Measurement(
            float(ef.EF.max()),
            note=f"{len(ef)} allocations (every instant of every trace); envy violation "
            f"{ef.EF.min():.2e} to {ef.EF.max():.2e}",
        ),
    }


def figure(tables: dict, labels: dict | None = None) -> Figure:
    """The atlas's summary figure: one heatmap panel per trace, mechanisms × :data:`MEASURES` on
    the common scale of :func:`normalised_measures` (1 the best; grey where a measure says nothing
    or a mechanism did not run).

    Parameters
    ----------
    tables : dict
        Trace -> its :func:`atlas_table`, for every trace of :data:`TRACES`.
    labels : dict, optional
        Run name -> the reader's name (text).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    InvalidInputError
        When an argument is malformed, naming it.
    """
    tables = _tables(tables, (*_MEASURED_COLUMNS, "source"), MEASURES)
    if labels is not None:
        as_instance(labels, Mapping, "labels")
        for run, text in labels.items():
            if not isinstance(run, str) or not isinstance(text, str):
                raise InvalidInputError(
                    f"labels[{run!r}] = {text!r}: run names and labels must be text"
                )
    order = list(dict.fromkeys(pd.concat([tables[t].mechanism for t in TRACES])))
    labels = labels or {}
    fig, axes = new_figure(
        "The mechanism atlas: every registered mechanism on three real clusters (1 = best)",
        nrows=3,
        width=6.2,
        height=3 * (0.2 * len(order) + 0.8) + 1.2,
    )
    cmap = matplotlib.colormaps["viridis"].copy()
    cmap.set_bad("#dddddd")
    image = None
    for k, trace in enumerate(TRACES):
        ax = axes[k, 0]
        values = normalised_measures(tables[trace]).reindex(order)
        image = ax.imshow(values.to_numpy(float), cmap=cmap, vmin=0, vmax=1, aspect="auto")
        ax.grid(False)
        ax.set_yticks(range(len(order)), [labels.get(m, m) for m in order], fontsize=7)
        ax.set_xticks(range(len(MEASURES)))
        ax.set_xticklabels(
            [name for name, _ in MEASURES.values()] if k == len(TRACES) - 1 else [],
            rotation=35,
            ha="right",
            fontsize=8,
        )
        ax.set_title(f"{trace.capitalize()} ({tables[trace].source.iloc[0]} data)", fontsize=9)
    assert image is not None  # TRACES is never empty: every panel drew one
    fig.colorbar(
        image,
        ax=axes[:, 0].tolist(),
        orientation="horizontal",
        location="bottom",
        shrink=0.6,
        label="measure on a common scale (1 = best)",
    )
    return fig


def summary(tables: dict, measured: dict) -> str:
    """The summary section's "What we found" paragraph.

    Parameters
    ----------
    tables : dict
        Trace -> its :func:`atlas_table`, for every trace of :data:`TRACES`.
    measured : dict
        :func:`findings` of the same tables.

    Returns
    -------
    str

    Raises
    ------
    InvalidInputError
        When an argument is malformed, naming it.
    """
    tables = _tables(tables, ("mechanism", "status"), ("at_s", "users", "machines", "util_mean"))
    as_instance(measured, Mapping, "measured")
    for claim in ("psdsf_lead_over_drfh_google", "alibaba_served_full"):
        if claim not in measured:
            raise InvalidInputError(f"measured: no {claim!r} (findings of the same tables)")
        as_instance(measured[claim], Measurement, f"measured[{claim!r}]")
    google = tables["google"]
    n = google.at_s.nunique()
    offers = _mean_util(google, "drf_machine_offers")
    return (
        f"On Google's cell ({n} instant{'s' if n > 1 else ''}, "
        f"{number(google.users.mean(), 0)} jobs and {number(google.machines.mean(), 0)} "
        "machines on average), PS-DSF's utilisation minus DRFH's is at least "
        f"{number(measured['psdsf_lead_over_drfh_google'].value, 4, sign=True)}; DRF served "
        f"machine by machine leaves {percent(1 - offers.max(), 1)} to "
        f"{percent(1 - offers.min(), 1)} of the capacity unused (mean of CPU and memory). On "
        "Alibaba every mechanism that ran gives at least "
        f"{percent(measured['alibaba_served_full'].value, 1)} of the tasks all their "
        "instances."
    )


def check_mode(mode: str) -> dict:
    """The sizes of a run.

    Parameters
    ----------
    mode : {"quick", "full"}
        The run's mode.

    Returns
    -------
    dict
        :data:`SIZES` of ``mode``.

    Raises
    ------
    InvalidInputError
        When ``mode`` is neither.

    Examples
    --------
    >>> check_mode("quick")["fraction"]
    0.05
    """
    check_choice(mode, tuple(SIZES), "mode")
    return SIZES[mode]
