"""Experiment drivers for the ``schedulers`` notebook: one real moment of a cluster allocated under
the DRF semantics production schedulers implement, and on its real machines by the
heterogeneity-aware mechanisms.

A snapshot (:func:`cell_snapshot`) is every job with tasks pending or running at one instant of
Google's clusterdata-2011-2 ``task_events`` and every machine up at that instant. A job is a
scheduler's client (a Mesos framework, a YARN application, a Kueue workload, a Volcano job): its
per-task demand is the median (CPU, memory) request of its present tasks (a job's tasks almost
always share one request; :attr:`CellSnapshot.mixed_requests` counts the exceptions), its cap is the
number of its present tasks, and its tenant is the trace's (hashed) user — the queue, role or
namespace it would belong to.

:func:`semantics_allocations` allocates the snapshot's pooled capacity under each scheduler's rule
(:data:`SEMANTICS`); :func:`semantics_summary` says how far each lands from the DRF paper's rule;
:func:`machine_allocations` places the same jobs on the real machines.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..._validate import (
    InvalidInputError,
    as_number,
    as_rng,
    as_table,
    as_tally,
    check_choice,
    read_only_state,
)
from ...metrics import jain_index
from ...multires.best_fit import drfh_best_fit
from ...multires.cluster import Cluster, on_merged_servers
from ...multires.global_maxmin import drfh, tsf
from ...multires.schedulers.hierarchy import hierarchical_drf
from ...multires.machine_offers import drf_machine_offers
from ...multires.progressive_filling import drf
from ...multires.psdsf import psdsf
from ...multires.schedulers.quotas import Quotas

__all__ = [
    "CellSnapshot",
    "cell_snapshot",
    "cell_snapshots",
    "SEMANTICS",
    "TIE_RULES",
    "QUOTA_RULES",
    "HIERARCHY_RULES",
    "semantics_allocations",
    "semantics_summary",
    "tenant_totals",
    "machine_allocations",
    "findings",
    "PRODUCTION_PRIORITY",
    "HIERARCHY_MARKERS",
    "SUMMARY_NAMES",
    "SUMMARY_GROUPS",
    "SUMMARY_DECIMALS",
    "summary_groups",
    "MACHINE_NAMES",
    "MACHINE_DECIMALS",
]

#: task event types after which a task is waiting (SUBMIT, UPDATE_PENDING) or running (SCHEDULE,
#: UPDATE_RUNNING)
PENDING_EVENTS, RUNNING_EVENTS = (0, 7), (1, 8)
#: the trace's production tier: priorities 9-11 (clusterdata-2011-2 schema notes)
PRODUCTION_PRIORITY = 9
RESOURCES = ("cpu", "memory")


@read_only_state
@dataclass(frozen=True, eq=False)
class CellSnapshot:
    """Jobs present at one instant (``jobs``: one row per job) and the machines up then
    (``machines``: capacity rows, normalised CPU and memory). ``skipped`` counts what was left out
    and why.

    Parameters
    ----------
    at_s : float
        The instant, trace seconds.
    jobs : pandas.DataFrame
        One row per job: its tenant, priority, tasks present and running, per-task (CPU, memory)
        request.
    machines : numpy.ndarray, shape (K, 2)
        ``machines[machine, (cpu, memory)]``, normalised capacities of the machines up.
    source : str
        ``"real"`` or ``"synthetic"``.
    mixed_requests : int
        Jobs whose tasks request different amounts (their median request is used).
    skipped : dict of str to int, optional
        What was left out, by reason, each count >= 0; empty (the default) when nothing was.

    Raises
    ------
    InvalidInputError
        When ``skipped`` is not a dict of reason -> count (None included).
    """

    at_s: float
    jobs: pd.DataFrame
    machines: np.ndarray
    source: str
    mixed_requests: int
    skipped: dict[str, int] = field(default_factory=dict)

    def __post_init__(self):
        as_tally(self.skipped, "skipped")

    @property
    def demand(self) -> np.ndarray:
        """Per-task (CPU, memory) demand of each job."""
        return self.jobs[list(RESOURCES)].to_numpy(float)

    @property
    def tasks(self) -> np.ndarray:
        """Tasks present (pending or running) per job: its cap."""
        return self.jobs.tasks.to_numpy(np.int64)

    @property
    def capacity(self) -> np.ndarray:
        """The pooled capacity of the machines up at the instant, summed exactly (``math.fsum``):
        NumPy's pairwise sum may differ by an ulp between CPUs, and DRF's whole-task ties follow the
        shares' last bits."""
        return np.array([math.fsum(column) for column in self.machines.T])

    @property
    def per_task_share(self) -> np.ndarray:
        """Each job's dominant share of the pooled capacity per task, ``max_r demand[r] /
        capacity[r]``."""
        return (self.demand / self.capacity).max(axis=1)

    @property
    def tenant_paths(self) -> list[str]:
        """``tenant<k>/<job id>`` leaf paths for hierarchical DRF (tenants numbered in job order:
        the trace's user hashes contain ``/``)."""
        codes = pd.factorize(self.jobs.tenant)[0]
        return [f"tenant{k}/{j}" for k, j in zip(codes, self.jobs.job_id)]

    def sample(
        self,
        fraction: float,
        rng: int | np.random.SeedSequence | np.random.Generator | None = None,
    ) -> CellSnapshot:
        """A scaled-down cell: each job and each machine kept with probability ``fraction``
        (contention is kept on average). ``fraction = 1`` returns the snapshot itself.

        Parameters
        ----------
        fraction : float
            The chance each job and each machine is kept, in (0, 1].
        rng : int, numpy.random.SeedSequence, numpy.random.Generator or None, optional
            Randomness of the draw.

        Returns
        -------
        CellSnapshot
            The scaled-down snapshot (``skipped`` counts the jobs sampled out).

        Raises
        ------
        InvalidInputError
            When ``fraction`` is not in (0, 1] or the sample keeps no job or no machine.
        """
        fraction = as_number(fraction, "fraction")
        if fraction > 1:
            raise InvalidInputError(f"fraction = {fraction}: must be in (0, 1]")
        rng = as_rng(rng)
        if fraction == 1:
            return self
        jobs = self.jobs[rng.random(len(self.jobs)) < fraction].reset_index(drop=True)
        machines = self.machines[rng.random(len(self.machines)) < fraction]
        if jobs.empty or len(machines) == 0:
            raise InvalidInputError(
                f"fraction = {fraction}: left {len(jobs)} jobs and {len(machines)} machines"
            )
        return CellSnapshot(
            self.at_s,
            jobs,
            machines,
            self.source,
            self.mixed_requests,
            {**self.skipped, "sampled out (jobs)": len(self.jobs) - len(jobs)},
        )

    def requested(self, which: str = "present") -> np.ndarray:
        """Requested (CPU, memory) of the ``"present"`` or ``"running"`` tasks, over the pooled
        capacity.

        Parameters
        ----------
        which : {"present", "running"}, default "present"
            Whose tasks.

        Returns
        -------
        numpy.ndarray, shape (2,)
            (CPU, memory) requested over the pooled capacity.

        Raises
        ------
        InvalidInputError
            When ``which`` is neither ``"present"`` nor ``"running"``.
        """
        check_choice(which, ("present", "running"), "which")
        count = self.jobs.tasks if which == "present" else self.jobs.running
        return (self.demand * count.to_numpy(float)[:, None]).sum(axis=0) / self.capacity


def _check_events(task_events: object, machine_events: object) -> None:
    """Refuse Google task and machine events without the columns :func:`cell_snapshot` reads, or
    with something other than numbers >= 0 in a time, an event code, a priority, a scheduling
    class, a request or a capacity (naming the row)."""
    as_table(
        task_events,
        "task_events",
        ["job_id", "task_index", "user"],
        ["time", "event_type", "priority", "scheduling_class", "cpu_request", "memory_request"],
        sign=">= 0",
    )
    as_table(
        machine_events,
        "machine_events",
        ["machine_id"],
        ["time", "event_type", "cpus", "memory"],
        sign=">= 0",
    )


def _machines_up(machine_events: pd.DataFrame, at_us: int) -> np.ndarray:
    """Capacities of the machines whose last event at or before ``at_us`` is not a REMOVE, at their
    last non-empty capacities so far."""
    ev = machine_events[machine_events.time <= at_us].sort_values(
        ["machine_id", "time"], kind="stable"
    )
    if ev.empty:
        raise InvalidInputError(f"at_s = {at_us / 1e6}: no machine event at or before it")
    up = ev.groupby("machine_id").event_type.last() != 1
    caps = ev.dropna(subset=["cpus", "memory"]).groupby("machine_id")[["cpus", "memory"]].last()
    caps = caps[caps.index.isin(up[up].index)]
    return caps.to_numpy(float)


def cell_snapshot(
    task_events: pd.DataFrame, machine_events: pd.DataFrame, at_s: float, *, source: str = "real"
) -> CellSnapshot:
    """Jobs with tasks pending or running at trace time ``at_s`` seconds and the machines up then
    (module docstring). A task's request missing from an event is carried over from its previous
    event. Left out, and counted in ``skipped``: tasks with no known request, and jobs whose median
    request is zero in every resource (no DRF share is defined for them).

    Parameters
    ----------
    task_events : pandas.DataFrame
        Google task events (``time`` in µs, ``job_id``, ``task_index``, ``event_type``, ``user``,
        ``priority``, ``scheduling_class``, ``cpu_request``, ``memory_request``).
    machine_events : pandas.DataFrame
        Google machine events.
    at_s : float
        The instant, trace seconds.
    source : str, default "real"
        Provenance label.

    Returns
    -------
    CellSnapshot
        The jobs present and the machines up at ``at_s``.

    Raises
    ------
    InvalidInputError
        When a table is not a DataFrame, a column is missing or one read as numbers holds something
        other than numbers >= 0 (naming the row), or no job or no machine is present at ``at_s``.
    """
    # both tables refused before the tasks' work, not as a KeyError after it
    _check_events(task_events, machine_events)
    at_s = as_number(at_s, "at_s")
    at_us = int(round(at_s * 1e6))
    ev = task_events[task_events.time <= at_us].sort_values(
        ["job_id", "task_index", "time"], kind="stable"
    )
    requests = ev.groupby(["job_id", "task_index"], sort=False)[
        ["cpu_request", "memory_request"]
    ].ffill()
    ev = ev.assign(cpu=requests.cpu_request, memory=requests.memory_request)
    last = ev.groupby(["job_id", "task_index"], sort=False).tail(1)
    present = last[last.event_type.isin(PENDING_EVENTS + RUNNING_EVENTS)]
    if present.empty:
        raise InvalidInputError(f"at_s = {at_s}: no task is pending or running at this instant")
    known = present.cpu.notna() & present.memory.notna()
    skipped = {"tasks without a request": int((~known).sum())}
    present = present[known].assign(running=present.event_type.isin(RUNNING_EVENTS))
    jobs = (
        present.groupby("job_id", sort=True)
        .agg(
            tenant=("user", "first"),
            priority=("priority", "max"),
            scheduling_class=("scheduling_class", "max"),
            tasks=("task_index", "size"),
            running=("running", "sum"),
            cpu=("cpu", "median"),
            memory=("memory", "median"),
            cpu_spread=("cpu", np.ptp),
            memory_spread=("memory", np.ptp),
        )
        .reset_index()
    )
    mixed = int(((jobs.cpu_spread > 0) | (jobs.memory_spread > 0)).sum())
    zero = (jobs.cpu <= 0) & (jobs.memory <= 0)
    skipped["jobs with a zero request"] = int(zero.sum())
    jobs = jobs[~zero].drop(columns=["cpu_spread", "memory_spread"]).reset_index(drop=True)
    return CellSnapshot(at_s, jobs, _machines_up(machine_events, at_us), source, mixed, skipped)


def cell_snapshots(
    task_events: pd.DataFrame,
    machine_events: pd.DataFrame,
    instants: Sequence[float],
    *,
    fraction: float = 1.0,
    rng: int | np.random.SeedSequence | None = None,
    source: str = "real",
) -> dict[float, CellSnapshot]:
    """:func:`cell_snapshot` at each instant (seconds), each scaled down by
    :meth:`CellSnapshot.sample` with its own child seed of ``rng`` (an int, a ``SeedSequence`` or
    ``None``): ``{at_s: CellSnapshot}``.

    Parameters
    ----------
    task_events : pandas.DataFrame
        Google task events.
    machine_events : pandas.DataFrame
        Google machine events.
    instants : sequence of float
        The instants, trace seconds.
    fraction : float, default 1.0
        Each snapshot's sampling fraction (:meth:`CellSnapshot.sample`).
    rng : int, numpy.random.SeedSequence or None, optional
        The parent seed of the instants' samples.
    source : str, default "real"
        Provenance label.

    Returns
    -------
    dict of float to CellSnapshot
        Instant → snapshot.
    """
    parent = rng if isinstance(rng, np.random.SeedSequence) else np.random.SeedSequence(rng)
    seeds = parent.spawn(len(instants))
    return {
        float(at): cell_snapshot(task_events, machine_events, at, source=source).sample(
            fraction, seed
        )
        for at, seed in zip(instants, seeds)
    }


def _production_guarantee(snapshot: CellSnapshot, production_priority: int) -> np.ndarray:
    """Each production job is guaranteed the tasks it runs now (as resource vectors), scaled down
    together when they do not fit the pool (a guarantee cannot exceed the capacity)."""
    prod = (snapshot.jobs.priority >= production_priority).to_numpy()
    guarantee = snapshot.demand * (snapshot.jobs.running.to_numpy(float) * prod)[:, None]
    over = (guarantee.sum(axis=0) / snapshot.capacity).max()
    return guarantee / over if over > 1 else guarantee


def _timed(runs: dict, desc: str, progress: bool) -> Iterator[tuple[str, Any, float]]:
    """Call each of ``runs`` (name -> callable) in turn, yielding ``(name, result, seconds)``; a
    progress bar named ``desc`` when ``progress``."""
    items = list(runs.items())
    if progress:
        from tqdm import tqdm

        items = tqdm(items, desc=desc)
    for name, run in items:
        t0 = time.perf_counter()
        result = run()
        yield name, result, time.perf_counter() - t0


#: the rules compared: name -> (scheduler mirrored, what it changes); :func:`semantics_allocations`
#: runs them
SEMANTICS = {
    "DRF, lowest index": (
        "DRF paper's Algorithm 1; Volcano's drf job order (jobs by creation)",
        "ties to the lowest index (job id order)",
    ),
    "DRF, higher share first": (
        "Metin's reading of the DRF paper",
        "ties to the higher per-task share",
    ),
    "YARN lexicographic": (
        "Hadoop YARN DominantResourceFairnessPolicy",
        "ties by the next-largest share",
    ),
    "Mesos allocation count": ("Apache Mesos DRFSorter", "ties by fewer allocations, then name"),
    "YARN min share (production)": (
        "Hadoop YARN minResources",
        "production jobs' running tasks served first, lent while unused",
    ),
    "Mesos quota (production)": (
        "Apache Mesos quota guarantee",
        "production jobs' running tasks served first, held back while unused",
    ),
    "Kueue nominal quota (production)": (
        "Kubernetes Kueue fair sharing",
        "production nominal quota, borrowed share beyond it",
    ),
    "hierarchical, naive": ("Mesos nested roles", "tenant/job tree, a tenant's own dominant share"),
    "hierarchical, H-DRF": ("Volcano hdrf; H-DRF (SoCC 2013)", "tenant/job tree, rescaled shares"),
}


#: the rules of :data:`SEMANTICS` that differ only in how they break ties, change guarantees, or add
#: a tree
TIE_RULES = (
    "DRF, lowest index",
    "DRF, higher share first",
    "YARN lexicographic",
    "Mesos allocation count",
)
QUOTA_RULES = (
    "YARN min share (production)",
    "Mesos quota (production)",
    "Kueue nominal quota (production)",
)
HIERARCHY_RULES = ("hierarchical, naive", "hierarchical, H-DRF")
#: the marker of each tree rule in the notebook's per-tenant scatter (a marker per group, not colour
#: alone)
HIERARCHY_MARKERS = {"hierarchical, naive": "o", "hierarchical, H-DRF": "^"}

#: reader's column names and decimals of :func:`semantics_summary` (for
#: :func:`fairlib.repro.tables.show_table`), and its columns in narrow groups, one table each
#: (caption -> columns)
SUMMARY_NAMES = {
    "jobs_changed": "jobs changed",
    "tasks_moved": "tasks moved",
    "max_job_change": "most for one job",
    "tenants_changed": "tenants changed",
    "cpu_utilisation": "CPU used",
    "memory_utilisation": "memory used",
    "jobs_satisfied": "jobs served in full",
    "jobs_short": "jobs short",
    "min_share_short": "lowest dominant share",
    "jain_short": "Jain's index",
    "production_kept": "production kept",
}
SUMMARY_GROUPS = {
    "Tasks moved from the lowest-index allocation": [
        "jobs_changed",
        "tasks_moved",
        "max_job_change",
    ],
    "Who is served": ["tenants_changed", "jobs_satisfied", "jobs_short"],
    "The pool's CPU and memory used, production jobs' running tasks kept (shares)": [
        "cpu_utilisation",
        "memory_utilisation",
        "production_kept",
    ],
    "The jobs short of their tasks: their dominant shares": ["min_share_short", "jain_short"],
}
SUMMARY_DECIMALS = {
    "cpu_utilisation": 3,
    "memory_utilisation": 3,
    "jobs_satisfied": 3,
    "min_share_short": 4,
    "jain_short": 3,
    "production_kept": 3,
}


def summary_groups(summary: pd.DataFrame) -> Iterator[tuple[str, pd.DataFrame, dict[str, int]]]:
    """One instant's :func:`semantics_summary` for a reader, in the narrow groups of
    :data:`SUMMARY_GROUPS`: per group ``(caption, frame with human column names, decimals per
    column)``, for :func:`fairlib.repro.tables.show_table`.

    Parameters
    ----------
    summary : pandas.DataFrame
        One instant's :func:`semantics_summary`.

    Yields
    ------
    tuple of (str, pandas.DataFrame, dict of str to int)
        Caption, frame and decimals per column of each group.
    """
    for caption, columns in SUMMARY_GROUPS.items():
        frame = summary[["rule", *columns]].rename(columns=SUMMARY_NAMES)
        yield (
            caption,
            frame,
            {SUMMARY_NAMES[c]: SUMMARY_DECIMALS[c] for c in columns if c in SUMMARY_DECIMALS},
        )


#: reader's column names and decimals of :func:`machine_allocations` averaged over instants
MACHINE_NAMES = {
    "tasks": "tasks placed",
    "cpu_utilisation": "CPU used",
    "memory_utilisation": "memory used",
    "jobs_satisfied": "jobs served in full",
    "seconds": "run time (s)",
}
MACHINE_DECIMALS = {
    "tasks": 0,
    "cpu_utilisation": 3,
    "memory_utilisation": 3,
    "jobs_satisfied": 4,
    "seconds": 2,
}


def semantics_allocations(
    snapshot: CellSnapshot,
    *,
    production_priority: int = PRODUCTION_PRIORITY,
    progress: bool = False,
) -> pd.DataFrame:
    """Every rule of :data:`SEMANTICS` on the snapshot's pooled capacity, each job capped at its
    present tasks.

    Returns one row per (rule, job): ``rule``, ``job`` (row of ``snapshot.jobs``), ``tasks``,
    ``dominant_share`` (tasks × the job's per-task dominant share of the pool) and ``seconds`` (the
    rule's run time, repeated on its rows).

    Parameters
    ----------
    snapshot : CellSnapshot
        One instant's jobs and machines.
    production_priority : int, default PRODUCTION_PRIORITY
        Jobs of this priority or above are production jobs (their running tasks guaranteed by the
        quota rules).
    progress : bool, default False
        Show a progress bar over the rules.

    Returns
    -------
    pandas.DataFrame
        See above.
    """
    d, cap, caps = snapshot.demand, snapshot.capacity, snapshot.tasks
    guarantee = _production_guarantee(snapshot, production_priority)
    runs = {
        "DRF, lowest index": lambda: drf(d, cap, max_tasks=caps).tasks,
        "DRF, higher share first": lambda: (
            drf(d, cap, max_tasks=caps, tie_break="higher_share").tasks
        ),
        "YARN lexicographic": lambda: drf(d, cap, max_tasks=caps, tie_break="lexicographic").tasks,
        "Mesos allocation count": lambda: (
            drf(d, cap, max_tasks=caps, tie_break="allocation_count").tasks
        ),
        "YARN min share (production)": lambda: (
            drf(d, cap, max_tasks=caps, quotas=Quotas.yarn(min_share=guarantee)).tasks
        ),
        "Mesos quota (production)": lambda: (
            drf(d, cap, max_tasks=caps, quotas=Quotas.mesos(guarantee=guarantee)).tasks
        ),
        "Kueue nominal quota (production)": lambda: (
            drf(d, cap, max_tasks=caps, quotas=Quotas.kueue(nominal=guarantee)).tasks
        ),
        "hierarchical, naive": lambda: (
            hierarchical_drf(d, cap, snapshot.tenant_paths, variant="naive", max_tasks=caps).tasks
        ),
        "hierarchical, H-DRF": lambda: (
            hierarchical_drf(d, cap, snapshot.tenant_paths, variant="hdrf", max_tasks=caps).tasks
        ),
    }
    per_task = snapshot.per_task_share
    rows = []
    for name, result, seconds in _timed(runs, "semantics", progress):
        tasks = np.asarray(result, dtype=np.int64)
        rows.append(
            pd.DataFrame(
                {
                    "rule": name,
                    "job": np.arange(len(tasks)),
                    "tasks": tasks,
                    "dominant_share": tasks * per_task,
                    "seconds": seconds,
                }
            )
        )
    return pd.concat(rows, ignore_index=True)


def semantics_summary(
    snapshot: CellSnapshot,
    allocations: pd.DataFrame,
    *,
    baseline: str = "DRF, lowest index",
    production_priority: int = PRODUCTION_PRIORITY,
) -> pd.DataFrame:
    """Per rule, against ``baseline``: jobs whose tasks differ, tasks moved (half the L1 distance),
    the largest change of one job, tenants whose total changes; the pool's CPU and memory
    utilisation; jobs given all their tasks; among the jobs short of their tasks (the contended
    ones), the lowest dominant share and Jain's index of dominant shares; production jobs' tasks as
    a share of what they run now.

    Parameters
    ----------
    snapshot : CellSnapshot
        One instant's jobs and machines.
    allocations : pandas.DataFrame
        :func:`semantics_allocations` of the snapshot.
    baseline : str, default "DRF, lowest index"
        The rule the others are compared with.
    production_priority : int, default PRODUCTION_PRIORITY
        Jobs of this priority or above are production jobs.

    Returns
    -------
    pandas.DataFrame
        One row per rule.

    Raises
    ------
    InvalidInputError
        When ``baseline`` is not a rule of the allocations.
    """
    if baseline not in set(allocations.rule):
        raise InvalidInputError(
            f"baseline = {baseline!r}: not a rule of the allocations "
            f"({sorted(set(allocations.rule))})"
        )
    wide = allocations.pivot(index="job", columns="rule", values="tasks")
    base = wide[baseline].to_numpy()
    tenant = snapshot.jobs.tenant.to_numpy()
    demand, cap, caps = snapshot.demand, snapshot.capacity, snapshot.tasks
    per_task = snapshot.per_task_share
    prod = (snapshot.jobs.priority >= production_priority).to_numpy()
    running = snapshot.jobs.running.to_numpy()
    rows = []
    for rule in dict.fromkeys(allocations.rule):
        t = wide[rule].to_numpy()
        diff = t - base
        by_tenant = pd.Series(diff).groupby(tenant).sum()
        short, shares = t < caps, t * per_task
        used = (t[:, None] * demand).sum(axis=0) / cap
        rows.append(
            {
                "rule": rule,
                "jobs_changed": int((diff != 0).sum()),
                "tasks_moved": int(np.abs(diff).sum() // 2),
                "max_job_change": int(np.abs(diff).max()),
                "tenants_changed": int((by_tenant != 0).sum()),
                "cpu_utilisation": float(used[0]),
                "memory_utilisation": float(used[1]),
                "jobs_satisfied": float((~short).mean()),
                "jobs_short": int(short.sum()),
                "min_share_short": float(shares[short].min()) if short.any() else float("nan"),
                "jain_short": jain_index(shares[short])
                if (shares[short] > 0).any()
                else float("nan"),
                "production_kept": float(
                    np.minimum(t, running)[prod].sum() / max(running[prod].sum(), 1)
                ),
            }
        )
    return pd.DataFrame(rows)


def tenant_totals(snapshot: CellSnapshot, allocations: pd.DataFrame) -> pd.DataFrame:
    """Tasks and dominant share per (rule, tenant), with the tenant's job count.

    Parameters
    ----------
    snapshot : CellSnapshot
        One instant's jobs and machines.
    allocations : pandas.DataFrame
        :func:`semantics_allocations` of the snapshot.

    Returns
    -------
    pandas.DataFrame
        One row per (rule, tenant): ``tasks``, ``dominant_share``, ``jobs``.
    """
    jobs = snapshot.jobs.tenant.rename("tenant")
    frame = allocations.assign(tenant=jobs.to_numpy()[allocations.job.to_numpy()])
    out = frame.groupby(["rule", "tenant"], sort=False).agg(
        tasks=("tasks", "sum"), dominant_share=("dominant_share", "sum")
    )
    counts = (
        jobs.value_counts().astype(np.int64).rename("jobs")
    )  # pandas gives string columns' counts as Int64
    return out.join(counts, on="tenant").reset_index()


def machine_allocations(snapshot: CellSnapshot, *, progress: bool = False) -> pd.DataFrame:
    """The same jobs on the snapshot's real machines: pooled DRF (whole tasks on the pooled capacity
    — what a scheduler that pools its machines promises, ignoring that a task must fit one
    machine); pooled DRF as Mesos's and YARN's offer loops run it (machine by machine, users in DRF
    order: :func:`drf_machine_offers`); Best-Fit DRFH (DRF's order, each whole task on the machine
    whose leftover has its shape); and DRFH, TSF and PS-DSF (divisible, heterogeneity-aware; on
    merged identical machines).

    Returns one row per mechanism: tasks allocated, CPU and memory utilisation of the machines, jobs
    given all their tasks, the lowest dominant share among jobs short of their tasks (pooled
    shares), and seconds.

    Parameters
    ----------
    snapshot : CellSnapshot
        One instant's jobs and machines.
    progress : bool, default False
        Show a progress bar over the mechanisms.

    Returns
    -------
    pandas.DataFrame
        See above.
    """
    d, caps = snapshot.demand, snapshot.tasks
    cluster = Cluster(snapshot.machines, d, max_tasks=caps)
    cap = snapshot.capacity
    per_task = snapshot.per_task_share
    runs = {
        "pooled DRF (no placement)": lambda: drf(d, cap, max_tasks=caps).tasks.astype(float),
        "DRF machine offers (whole tasks)": lambda: drf_machine_offers(cluster).totals,
        "Best-Fit DRFH (whole tasks)": lambda: drfh_best_fit(cluster).totals,
        "DRFH": lambda: on_merged_servers(drfh, cluster).totals,
        "TSF": lambda: on_merged_servers(tsf, cluster).totals,
        "PS-DSF": lambda: on_merged_servers(psdsf, cluster).totals,
    }
    rows = []
    for name, result, seconds in _timed(runs, "mechanisms", progress):
        totals = np.asarray(result, dtype=float)
        short = totals < caps - 1e-6 * np.maximum(caps, 1)
        used = (totals[:, None] * d).sum(axis=0) / cap
        rows.append(
            {
                "mechanism": name,
                "tasks": float(totals.sum()),
                "cpu_utilisation": float(used[0]),
                "memory_utilisation": float(used[1]),
                "jobs_satisfied": float((~short).mean()),
                "min_share_short": float((totals * per_task)[short].min())
                if short.any()
                else float("nan"),
                "seconds": seconds,
            }
        )
    return pd.DataFrame(rows)


def findings(
    summaries: pd.DataFrame,
    machines: pd.DataFrame,
    snapshots: Mapping[float, CellSnapshot],
    allocations: pd.DataFrame,
    *,
    production_priority: int = PRODUCTION_PRIORITY,
) -> dict[str, float]:
    """The named numbers the notebook's claims and prose use, from :func:`semantics_summary` and
    :func:`machine_allocations` tables stacked over instants (column ``at_s``), the snapshots, and
    the per-job allocations of every instant (column ``at_s``).

    - ``tie_max_job_change``: the most tasks one job gains or loses between any tie rule and the
      lowest-index rule; ``tie_jobs_changed`` and ``tie_tasks_moved``: the most jobs changed and
      tasks moved by one tie rule at one instant;
    - ``quota_min_guarantee_margin``: over the quota rules, production jobs and instants, the fewest
      tasks above the whole tasks its guarantee covers;
    - ``yarn_vs_mesos_tasks_moved``: tasks moved between YARN's and Mesos's quota rules, summed over
      instants;
    - ``hdrf_minus_ties_tasks_moved``: the fewest tasks H-DRF moves (against the lowest-index rule)
      minus the most any tie rule moves, over the *contended* instants (some job short of its tasks
      under the lowest-index rule; where every job gets all its tasks no rule can move any); NaN
      when no instant is contended;
    - ``aware_lead_over_offers``: the smallest lead, over DRFH, TSF, PS-DSF and instants, of the
      machines' mean (CPU, memory) utilisation over pooled DRF served machine by machine;
      ``offers_loss_cpu``: the largest CPU utilisation DRFH has over the machine-offer loop;
    - ``running_cpu_over_capacity``: the smallest, over instants, of the running tasks' CPU requests
      over the machines' CPU.

    Parameters
    ----------
    summaries : pandas.DataFrame
        :func:`semantics_summary` tables stacked over instants (column ``at_s``).
    machines : pandas.DataFrame
        :func:`machine_allocations` tables stacked over instants.
    snapshots : dict of float to CellSnapshot
        The snapshots, by instant.
    allocations : pandas.DataFrame
        :func:`semantics_allocations` stacked over instants.
    production_priority : int, default PRODUCTION_PRIORITY
        Jobs of this priority or above are production jobs.

    Returns
    -------
    dict of str to float
        Name → number, for the names listed above.
    """
    ties = summaries[summaries.rule.isin(TIE_RULES)]
    base = summaries[summaries.rule == TIE_RULES[0]].set_index("at_s")
    contended = base.index[base.jobs_short > 0]
    hdrf = summaries[summaries.rule == "hierarchical, H-DRF"].set_index("at_s").tasks_moved
    hdrf_lead = (hdrf - ties.groupby("at_s").tasks_moved.max())[contended]
    margins, yarn_mesos = [], 0
    for at, snap in snapshots.items():
        alloc = allocations[allocations.at_s == at].pivot(
            index="job", columns="rule", values="tasks"
        )
        guarantee = _production_guarantee(snap, production_priority)
        prod = (snap.jobs.priority >= production_priority).to_numpy()
        with np.errstate(divide="ignore", invalid="ignore"):
            covered = np.floor(
                np.min(np.where(snap.demand > 0, guarantee / snap.demand, np.inf), axis=1) + 1e-9
            )
        for rule in QUOTA_RULES:
            margins.append(
                float((alloc[rule].to_numpy() - covered)[prod].min())
                if prod.any()
                else float("inf")
            )
        yarn_mesos += int(np.abs(alloc[QUOTA_RULES[0]] - alloc[QUOTA_RULES[1]]).sum() // 2)
    util = machines.assign(mean=(machines.cpu_utilisation + machines.memory_utilisation) / 2)
    wide = util.pivot(index="at_s", columns="mechanism", values="mean")
    offers = "DRF machine offers (whole tasks)"
    cpu = util.pivot(index="at_s", columns="mechanism", values="cpu_utilisation")
    return {
        "tie_max_job_change": int(ties.max_job_change.max()),
        "tie_jobs_changed": int(ties.jobs_changed.max()),
        "tie_tasks_moved": int(ties.tasks_moved.max()),
        "quota_min_guarantee_margin": min(margins),
        "yarn_vs_mesos_tasks_moved": yarn_mesos,
        "hdrf_minus_ties_tasks_moved": float(hdrf_lead.min()) if len(hdrf_lead) else float("nan"),
        "contended_instants": int(len(contended)),
        "aware_lead_over_offers": float(
            min((wide[m] - wide[offers]).min() for m in ("DRFH", "TSF", "PS-DSF"))
        ),
        "offers_loss_cpu": float((cpu["DRFH"] - cpu[offers]).max()),
        "running_cpu_over_capacity": float(
            min(s.requested("running")[0] for s in snapshots.values())
        ),
    }
