"""Trace-driven allocation experiments on a :class:`~fairlib.traces.Fleet` and a
:class:`~fairlib.traces.Workload`.

- :func:`snapshot_utilisation` — the *semi-static* experiment of Khamse-Ashari et al. §6.1
  (Bitbrains): the users active at random instants, each mechanism on them, per-resource
  utilisation. Users sit at a random location and may use the servers of their own and of nearby
  locations (placement constraints).
- :func:`open_loop` — every mechanism on the same sequence of active sets, taken from the trace
  (arrivals, departures, per-window demands), so utilisation and fairness compare epoch by epoch.
- :func:`replay` — the time-stepped replay of §6.2 (Google): jobs as users, reallocation every 5
  minutes and whenever a job leaves, work measured in quanta, completion times, utilisation over
  time, deviation from a reference mechanism (PS-DSF), conservation checked at every reallocation.
  Jobs come as :class:`Jobs` (:func:`jobs_from_workload` for constant request-based demands,
  :func:`jobs_from_demands` for a trace's per-interval demands:
  :func:`fairlib.traces.task_event_demands` for the requests of the tasks running at each 5-minute
  interval's start, :func:`fairlib.traces.task_usage_demands` for per-window usage).

Any mechanism from :mod:`fairlib.multires` that maps a :class:`~fairlib.multires.Cluster` to a
:class:`~fairlib.multires.ServerAllocation` plugs in. Fleets are a few server types, so every
mechanism is run on the distinct servers (:func:`fairlib.multires.cluster.on_merged_servers`, exact)
unless ``merge=False``.

**The job model is a reconstruction [INF]** (reconstructions §5.8): a *quantum* of job n is a block
of resources shaped like its demand vector D_n, scaled so its dominant component is one normalised
unit, held for one second. A job that used D_n for T seconds in the trace needs T · max_r D_n,r
quanta; the mechanisms allocate quanta per second (``x_n``) on the unit-dominant shapes, and a job
completes when its quanta are served.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, NamedTuple, Sequence, cast

import numpy as np
import numpy.typing as npt
import pandas as pd

from ._validate import (
    read_only_state,
    _check_aligned,
    as_labels,
    as_flag,
    InvalidInputError,
    _read_once,
    _short,
    _store_read_only,
    as_array,
    as_count,
    as_eligibility,
    MAX_SECONDS,
    as_identifiers,
    as_instance,
    as_number,
    as_real_array,
    as_rng,
    as_task_caps,
    as_time,
    check_choice,
    check_drawn,
    result_type,
    as_text,
)
from .metrics import jain_index
from .multires.cluster import Allocation, Cluster, _checked_run, on_merged_servers
from .sweep import sweep
from .traces.google import JobDemands
from .traces.workload import Fleet, Workload

__all__ = [
    "location_eligibility",
    "snapshot_cluster",
    "snapshot_utilisation",
    "Jobs",
    "jobs_from_workload",
    "jobs_from_demands",
    "class_eligibility",
    "replay",
    "ReplayResult",
    "open_loop",
    "SIMULTANEOUS_S",
]

#: events of a replay (job completions, reallocation ticks, the horizon) less than this many seconds
#: apart are simultaneous: the Google trace's resolution is 1 µs, and an ulp of rounding must not
#: split one event into two
SIMULTANEOUS_S = 1e-6
#: the shortest reallocation interval replay accepts (seconds), well above SIMULTANEOUS_S
MIN_INTERVAL_S = 1e-3
#: the most reallocations one replay may do (ticks + completions)
MAX_EPOCHS = 10_000_000


def location_eligibility(
    fleet: Fleet,
    n_users: int,
    rng: int | np.random.Generator | np.random.SeedSequence | None = None,
    *,
    reach: int = 1,
    topology: str = "line",
) -> np.ndarray:
    """``eligible[user, server]`` from a random location per user and a reach over the fleet's
    sites.

    Each user gets a uniformly random site among the fleet's locations and may use the servers whose
    location is within ``reach`` steps of it.

    Parameters
    ----------
    fleet : Fleet
        The servers; ``fleet.location`` (one site number per server) must be set.
    n_users : int
        Number of users (rows), >= 1.
    rng : int, numpy.random.Generator, numpy.random.SeedSequence or None, optional
        Seed or generator for the users' sites.
    reach : int, default 1
        Steps from a user's site to the farthest site it may use, >= 0 (0: its own site only).
    topology : {"line", "ring"}, default "line"
        ``"line"`` puts the sites on a line (with 3 sites, the middle one is near both ends, the
        ends are not near each other); ``"ring"`` closes it (with 3 sites every site is then near
        every other).

    Returns
    -------
    numpy.ndarray
        ``eligible[user, server]``, bool, shape (n_users, fleet.n_servers).

    Raises
    ------
    InvalidInputError
        When the fleet has no locations or an argument is out of range, naming it, or when
        ``n_users`` x ``fleet.n_servers`` is above :data:`~fairlib._validate.MAX_DRAWN` (10**8).
    """
    as_instance(fleet, Fleet, "fleet")
    if fleet.location is None:
        raise InvalidInputError("fleet: has no server locations (location is None)")
    check_choice(topology, ("line", "ring"), "topology")
    reach, n_users = as_count(reach, "reach", minimum=0), as_count(n_users, "n_users")
    check_drawn(("n_users", n_users), ("fleet.n_servers", fleet.n_servers))
    rng = as_rng(rng)
    sites = np.unique(fleet.location)
    home = rng.choice(sites, size=n_users)
    gap = np.abs(home[:, None] - fleet.location[None, :])
    if topology == "ring":
        gap = np.minimum(gap, len(sites) - gap)
    return gap <= reach


def _check_fleet_and_workload(fleet: Fleet, workload: Workload) -> None:
    """A :class:`~fairlib.traces.Fleet` and a :class:`~fairlib.traces.Workload` over the same
    resources."""
    as_instance(fleet, Fleet, "fleet")
    as_instance(workload, Workload, "workload")
    if tuple(fleet.resources) != tuple(workload.resources):
        raise InvalidInputError(
            f"fleet.resources {fleet.resources} != workload.resources {workload.resources}"
        )


def _per_user_rows(
    values: npt.ArrayLike | None, name: str, workload: Workload, width: int | None = None
) -> np.ndarray | None:
    """None, or an array with one row (or entry) per workload user, indexable by the active
    users; a pandas one indexed by the workload's users in their order (labels are not
    reindexed)."""
    if values is None:
        return None
    n_users = workload.n_users
    users = workload.users.tolist()
    _check_aligned(values, name, 0, ("workload.users", users, None))
    arr = as_array(values, name)
    want = (n_users,) if width is None else (n_users, width)
    if arr.shape != want:
        raise InvalidInputError(
            f"{name}: expected shape {want} (one per workload user), got {arr.shape}"
        )
    return arr


class Snapshot(NamedTuple):
    """The cluster of the users active at an instant (None if none is) and their indices."""

    cluster: Cluster | None
    active: np.ndarray


def snapshot_cluster(
    fleet: Fleet,
    workload: Workload,
    t: float,
    eligible: npt.ArrayLike | None = None,
    weight: npt.ArrayLike | None = None,
) -> Snapshot:
    """The cluster of the users active at ``t``, and their indices into the workload.

    Users with an all-zero demand are left out.

    Parameters
    ----------
    fleet : Fleet
        The servers (``capacity[server, resource]``).
    workload : Workload
        The users, over the same resources as ``fleet``.
    t : float
        The instant, in the workload's time unit (seconds for the readers of :mod:`fairlib.traces`),
        within ±2**53 (:data:`~fairlib._validate.MAX_SECONDS`).
    eligible : array_like of bool, shape (workload.n_users, fleet.n_servers), optional
        ``eligible[user, server]`` for every workload user (default: every server).
    weight : array_like, shape (workload.n_users,), optional
        A weight > 0 per workload user (default 1).

    Returns
    -------
    Snapshot
        ``(cluster, active)``: the :class:`~fairlib.multires.Cluster` of the active users (rows in
        the order of ``active``) and their indices; ``(None, empty)`` when nobody with a demand is
        active.

    Raises
    ------
    InvalidInputError
        When the fleet and workload disagree on their resources, an array has the wrong shape, or
        a pandas ``eligible`` or ``weight`` is not indexed by the workload's users in their order.
    """
    _check_fleet_and_workload(fleet, workload)
    eligible = _per_user_rows(eligible, "eligible", workload, fleet.n_servers)
    weight = _per_user_rows(weight, "weight", workload)
    # t is checked by active_at, under the same name
    idx = np.flatnonzero(workload.active_at(t) & (workload.demand > 0).any(axis=1))
    if idx.size == 0:
        return Snapshot(None, idx)
    elig = None if eligible is None else eligible[idx]
    w = None if weight is None else weight[idx]
    # Cluster takes None for its defaults; its field annotations name the arrays it holds
    cluster = Cluster(
        fleet.capacity,
        workload.demand[idx],
        weight=w,  # type: ignore[arg-type]
        eligible=elig,  # type: ignore[arg-type]
    )
    return Snapshot(cluster, idx)


def _snapshot_cell(seed, run, fleet, workload, mechanisms, reach, topology, merge):
    rng = np.random.default_rng(seed)
    t = rng.uniform(workload.arrival.min(), workload.departure.max())
    eligible = location_eligibility(fleet, workload.n_users, rng, reach=reach, topology=topology)
    cluster, idx = snapshot_cluster(fleet, workload, t, eligible)
    if cluster is None:
        return []
    rows = []
    for name, mechanism in mechanisms.items():
        alloc = on_merged_servers(mechanism, cluster) if merge else _checked_run(mechanism, cluster)
        util = alloc.utilisation  # the snapshot cluster has the fleet's capacities
        rows += [
            {
                "time": t,
                "active_users": int(idx.size),
                "mechanism": name,
                "resource": resource,
                "utilisation": float(u),
            }
            for resource, u in zip(fleet.resources, util)
        ]
    return rows


def snapshot_utilisation(
    fleet: Fleet,
    workload: Workload,
    mechanisms: Mapping[str, Callable] | Iterable[str] | None,
    n_runs: int,
    rng: int | np.random.SeedSequence,
    *,
    reach: int = 1,
    topology: str = "line",
    merge: bool = True,
    progress: bool = False,
) -> pd.DataFrame:
    """§6.1-style semi-static experiment: every mechanism on the users active at random instants.

    ``n_runs`` random instants (uniform over the workload's span), a random location per user
    (:func:`location_eligibility`), every mechanism on the active users. Runs on
    :func:`fairlib.sweep.sweep`.

    Parameters
    ----------
    fleet : Fleet
        The servers, with locations.
    workload : Workload
        The users, over the same resources as ``fleet``.
    mechanisms : mapping of str to callable, iterable of str, or None
        name -> callable of a cluster, names of registered mechanisms, or None for every run of the
        registered multi-server mechanisms (:func:`fairlib.mechanisms.runs`).
    n_runs : int
        Number of instants, >= 1.
    rng : int or numpy.random.SeedSequence
        Root seed of the sweep, an integer >= 0 or a SeedSequence (each run's seed is
        :func:`fairlib.sweep.cell_seed`).
    reach : int, default 1
        Sites a user reaches beyond its own (:func:`location_eligibility`).
    topology : {"line", "ring"}, default "line"
        How the sites are arranged (:func:`location_eligibility`).
    merge : bool, default True
        Run each mechanism on the distinct servers
        (:func:`fairlib.multires.cluster.on_merged_servers`, exact).
    progress : bool, default False
        Show a progress bar.

    Returns
    -------
    pandas.DataFrame
        One row per (run, mechanism, resource): ``run``, ``time``, ``active_users``, ``mechanism``,
        ``resource``, ``utilisation`` (cluster-wide, 0 to 1) and ``source`` (``workload.source``, to
        label the data).

    Raises
    ------
    InvalidInputError
        When an argument is of the wrong type or out of range, naming it.
    """
    merge = as_flag(merge, "merge")
    as_instance(fleet, Fleet, "fleet")
    as_instance(workload, Workload, "workload")
    n_runs = as_count(n_runs, "n_runs")
    # checked here as well as in each run: a bad value is then one error, not a sweep of failed
    # cells
    as_count(reach, "reach", minimum=0)
    check_choice(topology, ("line", "ring"), "topology")
    from .mechanisms import resolve_runs

    out = sweep(
        _snapshot_cell,
        [{"run": i} for i in range(n_runs)],
        rng=rng,
        fixed=dict(
            fleet=fleet,
            workload=workload,
            mechanisms=resolve_runs(mechanisms, "multi_server"),
            reach=reach,
            topology=topology,
            merge=merge,
        ),
        progress=progress,
        desc="snapshots",
        cache=False,
    )
    out = out.drop(columns="rep")
    out["source"] = workload.source
    return out


# --- time-stepped replay (§6.2) ------------------------------------------------------------------


def _check_interval_times(
    start_name: str,
    start: np.ndarray,
    end_name: str,
    end: np.ndarray,
    count: int,
    per: str,
    start_phrase: str,
) -> None:
    """One finite time per ``per`` in each array, and no end before its start; errors name field and
    index."""
    for name, arr in ((start_name, start), (end_name, end)):
        if arr.shape != (count,):
            raise InvalidInputError(
                f"jobs.{name}: expected shape ({count},) (one per {per}), got {arr.shape}"
            )
        bad = ~np.isfinite(arr)
        if bad.any():
            j = int(np.argmax(bad))
            raise InvalidInputError(f"jobs.{name}[{j}] = {arr[j]}: must be finite")
    early = end < start
    if early.any():
        j = int(np.argmax(early))
        raise InvalidInputError(
            f"jobs.{end_name}[{j}] = {end[j]}: before {start_phrase} {start[j]}"
        )


def _scheduling_classes(
    values: npt.ArrayLike, name: str, n: int | None = None, *, what: str = "one per job"
) -> np.ndarray:
    """A non-empty 1-D array of scheduling classes (``n`` of them when given): whole numbers >= 0
    (Google's are 0-3), returned as given (an integer array stays one). ``what`` says in an error
    what the array holds."""
    arr = as_array(values, name, exact=False)  # classes, compared as given
    if arr.dtype.kind not in "iuf":
        raise InvalidInputError(
            f"{name} = {_short(values)}: scheduling classes must be integers, got dtype {arr.dtype}"
        )
    if arr.ndim != 1 or arr.size == 0 or (n is not None and arr.shape != (n,)):
        want = what if n is None else f"shape ({n},), {what}"
        raise InvalidInputError(f"{name}: expected {want}, got shape {arr.shape}")
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(arr) | (arr < 0) | (arr != np.round(arr))
    if bad.any():
        j = int(np.argmax(bad))
        raise InvalidInputError(f"{name}[{j}] = {arr[j]}: a scheduling class is an integer >= 0")
    return arr


@read_only_state
@dataclass(frozen=True, eq=False)
class Jobs:
    """Jobs for :func:`replay` and :func:`open_loop`, each a sequence of segments of constant shape.

    Parameters
    ----------
    ids : numpy.ndarray, shape (J,)
        Job identifiers (integers within int64, or strings), at least one.
    arrival : numpy.ndarray, shape (J,)
        When each job arrives (seconds).
    trace_end : numpy.ndarray, shape (J,)
        When each job left in the trace (for comparison; the replay finds its own completion
        time), >= arrival.
    offsets : numpy.ndarray, shape (J + 1,)
        Job j's segments are ``offsets[j]:offsets[j + 1]`` (integers, from 0, non-decreasing).
    work : numpy.ndarray, shape (S,)
        Quanta each segment needs, >= 0.
    shape : numpy.ndarray, shape (S, R)
        Per-quantum demand of each segment over the resources, its dominant component 1.
    resources : tuple of str
        The R resource names, in column order.
    source : str
        A provenance label ("real", "synthetic", ...).
    scheduling_class : numpy.ndarray, shape (J,), optional
        One integer >= 0 per job (Google's are 0-3).
    segment_start, segment_end : numpy.ndarray, shape (S,), optional
        When each segment's demand held in the trace (seconds): what :func:`open_loop` schedules by.
    segment_cap : numpy.ndarray, shape (S,), optional
        The most quanta per second a segment can use at once (``inf`` for none): its dominant demand
        for the per-interval models (a job is never given more than its running tasks request);
        :func:`open_loop` and :func:`replay` pass it to the mechanisms as ``Cluster.max_tasks``.

    Raises
    ------
    InvalidInputError
        When a field has the wrong type or shape, a time is not finite, segments overlap or work is
        negative, naming the field and the job.
    """

    ids: np.ndarray
    arrival: np.ndarray
    trace_end: np.ndarray
    offsets: np.ndarray
    work: np.ndarray
    shape: np.ndarray
    resources: tuple
    source: str
    scheduling_class: np.ndarray | None = None
    segment_start: np.ndarray | None = None
    segment_end: np.ndarray | None = None
    segment_cap: np.ndarray | None = None

    def __post_init__(self):
        """Validate every field (types, shapes, finite times, segments, work >= 0, classes, source);
        errors name field and job."""
        ids = as_identifiers(self.ids, "jobs.ids")
        n = len(ids)
        _, first, counts = np.unique(ids, return_index=True, return_counts=True)
        if (counts > 1).any():
            j = int(np.sort(first[counts > 1])[0])
            shown = ids[j].item() if isinstance(ids[j], np.generic) else ids[j]
            raise InvalidInputError(
                f"jobs.ids[{j}] = {shown!r}: appears {int(counts[first == j][0])} times; a job "
                "has one id (the replay reports by id)"
            )
        arrival = as_real_array(self.arrival, "jobs.arrival")
        trace_end = as_real_array(self.trace_end, "jobs.trace_end")
        offsets, work = (
            as_array(self.offsets, "jobs.offsets", exact=False),  # indices, range checked
            as_real_array(self.work, "jobs.work"),
        )
        shape = as_real_array(self.shape, "jobs.shape")
        _check_interval_times("arrival", arrival, "trace_end", trace_end, n, "job", "its arrival")
        if work.ndim != 1:
            raise InvalidInputError(
                f"jobs.work: expected one number per segment (1-D), got shape {work.shape}"
            )
        if (
            offsets.shape != (n + 1,)
            or offsets.dtype.kind not in "iu"
            or offsets[0] != 0
            or offsets[-1] != len(work)
        ):
            raise InvalidInputError(
                f"jobs.offsets = {_short(self.offsets)}: expected {n + 1} integers from 0 to "
                f"len(work) = {len(work)}"
            )
        if (np.diff(offsets) < 1).any():
            j = int(np.argmax(np.diff(offsets) < 1))
            raise InvalidInputError(
                f"jobs.offsets[{j}:{j + 2}] = {offsets[j : j + 2].tolist()}: every job needs a "
                "segment"
            )
        bad = ~np.isfinite(work) | (work < 0)
        if bad.any():
            k = int(np.argmax(bad))
            raise InvalidInputError(f"jobs.work[{k}] = {work[k]}: must be finite and >= 0")
        if shape.ndim != 2 or shape.shape[0] != len(work):
            raise InvalidInputError(
                f"jobs.shape: expected one row per segment ({len(work)}), got {shape.shape}"
            )
        bad = ~np.isfinite(shape) | (shape < 0)
        if bad.any():
            k, r = map(int, np.argwhere(bad)[0])
            raise InvalidInputError(
                f"jobs.shape[{k}, {r}] = {shape[k, r]}: must be finite and >= 0"
            )
        empty = ~(shape.max(axis=1, initial=0.0) > 0)
        if empty.any():
            k = int(np.argmax(empty))
            raise InvalidInputError(
                f"jobs.shape[{k}] = {shape[k].tolist()}: a segment must demand some resource"
            )
        off = np.abs(shape.max(axis=1) - 1.0) > 1e-12
        if off.any():
            k = int(np.argmax(off))
            raise InvalidInputError(
                f"jobs.shape[{k}] = {shape[k].tolist()}: its dominant component must be 1 (a "
                "row is one quantum's demand, divided by its largest entry)"
            )
        names = self.resources
        if (
            not isinstance(names, tuple)
            or len(names) != shape.shape[1]
            or not all(isinstance(r, str) for r in names)
            or len(set(names)) != len(names)
        ):
            raise InvalidInputError(
                f"jobs.resources = {_short(names)}: expected a tuple of {shape.shape[1]} distinct "
                "names, one per column of jobs.shape"
            )
        seg_start, seg_end = self._check_segment_times(len(work))
        seg_cap = None
        if self.segment_cap is not None:
            seg_cap = as_task_caps(self.segment_cap, len(work), "jobs.segment_cap")
        classes = None
        if self.scheduling_class is not None:
            classes = _scheduling_classes(self.scheduling_class, "jobs.scheduling_class", n)
        as_text(self.source, "jobs.source", what="a provenance label is shown text")
        # the validated arrays, as read-only copies: lists given here would fail the replays, and
        # the caller's arrays, shared, could change jobs already checked
        _store_read_only(
            self,
            ids=ids,
            arrival=arrival,
            trace_end=trace_end,
            offsets=offsets,
            work=work,
            shape=shape,
            scheduling_class=classes,
            segment_start=seg_start,
            segment_end=seg_end,
            segment_cap=seg_cap,
        )

    def _check_segment_times(self, n_segments: int) -> tuple:
        """Both or neither of segment_start/segment_end; one finite time per segment; no segment
        ends first. Returns both as float64 arrays, or (None, None)."""
        if (self.segment_start is None) != (self.segment_end is None):
            raise InvalidInputError("jobs.segment_start and jobs.segment_end: give both or neither")
        # neither (both or neither, checked above)
        if self.segment_start is None or self.segment_end is None:
            return None, None
        seg_start = as_real_array(self.segment_start, "jobs.segment_start")
        seg_end = as_real_array(self.segment_end, "jobs.segment_end")
        _check_interval_times(
            "segment_start", seg_start, "segment_end", seg_end, n_segments, "segment", "its start"
        )
        # a job's segments follow one another: each starts once the previous one has ended
        same_job = np.ones(n_segments - 1, dtype=bool) if n_segments else np.zeros(0, dtype=bool)
        same_job[np.asarray(self.offsets)[1:-1] - 1] = False
        overlap = same_job & (seg_start[1:] < seg_end[:-1] - SIMULTANEOUS_S)
        if overlap.any():
            k = int(np.argmax(overlap)) + 1
            raise InvalidInputError(
                f"jobs.segment_start[{k}] = {seg_start[k]}: before the job's previous segment "
                f"ends ({seg_end[k - 1]})"
            )
        return seg_start, seg_end

    @property
    def n_jobs(self) -> int:
        """Number of jobs."""
        return len(self.ids)

    @property
    def total_work(self) -> np.ndarray:
        """Quanta per job."""
        return np.add.reduceat(self.work, self.offsets[:-1]) if len(self.work) else np.zeros(0)

    def subset(self, keep: npt.ArrayLike) -> Jobs:
        """The jobs where ``keep`` is True, with all their segments (e.g. a random 2% of the jobs).

        Parameters
        ----------
        keep : numpy.ndarray of bool, shape (n_jobs,)
            Which jobs to keep; at least one.

        Returns
        -------
        Jobs
            The kept jobs in their order, every field restricted to them.

        Raises
        ------
        InvalidInputError
            When ``keep`` is not a boolean mask of one entry per job, or keeps none.
        """
        given, keep = keep, np.asarray(keep)
        if keep.dtype != bool or keep.shape != (self.n_jobs,):
            raise InvalidInputError(
                f"keep = {_short(given)}: expected a boolean mask of shape ({self.n_jobs},), "
                f"got {keep.dtype} {keep.shape}"
            )
        if not keep.any():
            raise InvalidInputError("keep: selects no job")
        counts = np.diff(self.offsets)
        segments = np.repeat(keep, counts)

        def pick(field, mask):
            return None if field is None else np.asarray(field)[mask]

        return Jobs(
            self.ids[keep],
            self.arrival[keep],
            self.trace_end[keep],
            np.r_[0, np.cumsum(counts[keep])],
            self.work[segments],
            self.shape[segments],
            self.resources,
            self.source,
            pick(self.scheduling_class, keep),
            pick(self.segment_start, segments),
            pick(self.segment_end, segments),
            pick(self.segment_cap, segments),
        )


def _unit_dominant(demand: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    dominant = demand.max(axis=1)
    return demand / dominant[:, None], dominant


def jobs_from_workload(workload: Workload) -> Jobs:
    """Jobs of one segment each, from a workload's constant demands.

    Job n holds its demand D_n from arrival to departure: (departure - arrival) · max_r D_n,r
    quanta of shape D_n / max_r D_n,r. Jobs with zero duration are kept (zero work: they complete at
    their first reallocation).

    Parameters
    ----------
    workload : Workload
        The jobs as users; every demand row positive somewhere.

    Returns
    -------
    Jobs
        One segment per job, its segment times the job's arrival and departure, its scheduling class
        the workload's.

    Raises
    ------
    InvalidInputError
        When a job's demand is all zero or it departs before it arrives, naming the job.
    """
    as_instance(workload, Workload, "workload")
    demand = np.asarray(workload.demand, dtype=np.float64)
    bad = ~(demand.max(axis=1) > 0)
    if bad.any():
        j = int(np.argmax(bad))
        raise InvalidInputError(
            f"workload.demand[{j}] = {demand[j].tolist()}: every job needs a positive demand"
        )
    shape, dominant = _unit_dominant(demand)
    duration = np.asarray(workload.departure, float) - np.asarray(workload.arrival, float)
    if (duration < 0).any():
        j = int(np.argmax(duration < 0))
        raise InvalidInputError(
            f"workload: job {j} departs ({workload.departure[j]}) before it arrives "
            f"({workload.arrival[j]})"
        )
    n = len(demand)
    arrival, departure = np.asarray(workload.arrival, float), np.asarray(workload.departure, float)
    return Jobs(
        np.asarray(workload.users),
        arrival,
        departure,
        np.arange(n + 1),
        duration * dominant,
        shape,
        tuple(workload.resources),
        workload.source,
        workload.scheduling_class,
        arrival,
        departure,
    )


def jobs_from_demands(demands: JobDemands) -> Jobs:
    """Jobs from a trace's per-interval demands.

    Each segment of :func:`fairlib.traces.task_event_demands` or
    :func:`fairlib.traces.task_usage_demands` holds from its start to its end and needs its ``held``
    seconds × its dominant demand in quanta of its unit-dominant shape, D_n(k) / max_r D_n,r(k) (at
    most its dominant demand at once: ``segment_cap``); a job arrives with its first segment and
    leaves in the trace at its last segment's ``window_end``. Segment times are recorded for
    :func:`open_loop`.

    Parameters
    ----------
    demands : JobDemands
        The per-interval demands. Their ``scheduling_class`` (job id -> class, or None) must give a
        class to every job.

    Returns
    -------
    Jobs
        One job per distinct job id, in the order of the demands.

    Raises
    ------
    InvalidInputError
        When ``demands`` is not a :class:`~fairlib.traces.JobDemands`, a segment demands nothing,
        or a job has no scheduling class.

    Examples
    --------
    >>> from fairlib.traces import task_usage_demands
    >>> usage = pd.DataFrame({"start_time": [600_000_000], "end_time": [900_000_000], "job_id": [7],
    ...                       "cpu_rate": [0.25], "canonical_memory": [0.5]})
    >>> jobs = jobs_from_demands(task_usage_demands(usage))
    >>> jobs.work.tolist(), jobs.shape.tolist()
    ([150.0], [[0.5, 1.0]])
    """
    as_instance(demands, JobDemands, "demands")
    job_of_segment, demand, seg_start, seg_end, held, window_end, scheduling_class, source = (
        demands.job,
        demands.demand,
        demands.start,
        demands.end,
        demands.held,
        demands.window_end,
        demands.scheduling_class,
        demands.source,
    )
    idle = ~(np.asarray(demand) > 0).any(axis=1)
    if idle.any():
        # its unit-dominant shape would be 0/0: named here, where the segment is, not as a NaN in
        # the jobs' shape
        i = int(np.argmax(idle))
        raise InvalidInputError(
            f"demands.demand[{i}] = {np.asarray(demand)[i].tolist()}: segment {i} (job "
            f"{job_of_segment[i]!r}) demands nothing; drop segments with no demand first"
        )
    shape, dominant = _unit_dominant(demand)
    starts = np.flatnonzero(np.r_[True, job_of_segment[1:] != job_of_segment[:-1]])
    offsets = np.r_[starts, len(job_of_segment)]
    ids = job_of_segment[starts]
    cls = None
    if scheduling_class is not None:
        classes = pd.Series(scheduling_class)
        if classes.dtype.kind not in "iuf":
            raise InvalidInputError(
                f"scheduling_class = {_short(scheduling_class)}: scheduling classes must be "
                f"integers, got dtype {classes.dtype}"
            )
        classes = classes.reindex(ids)
        unknown = classes.isna().to_numpy()
        if unknown.any():
            job = ids[int(np.argmax(unknown))]
            job = job.item() if isinstance(job, np.generic) else job
            raise InvalidInputError(
                f"scheduling_class: no class for job {job!r} ({int(unknown.sum())} of {ids.size} "
                "jobs have none)"
            )
        cls = _scheduling_classes(classes.to_numpy(), "scheduling_class")
    return Jobs(
        ids,
        seg_start[starts],
        window_end[offsets[1:] - 1],
        offsets,
        held * dominant,
        shape,
        tuple(demands.resources),
        source,
        cls,
        seg_start,
        seg_end,
        dominant,
    )


#: the server classes §6.2 keeps for latency-sensitive jobs (:func:`class_eligibility`'s default;
#: :func:`replay` and :func:`open_loop` report those of them a fleet has)
_RESERVED = ("C", "D")


def _reserved_classes(
    fleet: Fleet, reserved: Sequence[str] | None, *, none_is_present: bool
) -> tuple[str, ...]:
    """``reserved`` as a tuple of labels, each a class of ``fleet``: a label no server has would
    reserve (or report) nothing, silently, and is refused naming it. With ``none_is_present``, None
    means the classes of ``_RESERVED`` the fleet has (none, for a fleet without C and D)."""
    classes = sorted({str(label) for label in np.asarray(fleet.server_class).tolist()})
    if reserved is None and none_is_present:
        return tuple(label for label in _RESERVED if label in classes)
    reserved = as_labels(reserved, "reserved")
    for i, label in enumerate(reserved):
        if label not in classes:
            raise InvalidInputError(
                f"reserved[{i}] = {label!r}: no server of the fleet has this class (its classes: "
                f"{classes})"
            )
    return reserved


def class_eligibility(
    fleet: Fleet,
    scheduling_class: npt.ArrayLike,
    *,
    reserved: Sequence[str] = ("C", "D"),
    privileged: npt.ArrayLike = (2, 3),
) -> np.ndarray:
    """§6.2 placement: servers of the ``reserved`` classes serve only jobs of a ``privileged``
    scheduling class.

    Every other server serves everyone.

    Parameters
    ----------
    fleet : Fleet
        The servers, with ``server_class``.
    scheduling_class : array_like of int, shape (J,)
        One scheduling class (an integer >= 0) per job.
    reserved : sequence of str, default ("C", "D")
        Server classes kept for the privileged jobs, each a class of ``fleet`` (pass ``("C",)``
        for a fleet without D, ``()`` to reserve none).
    privileged : int or array_like of int, default (2, 3)
        The latency-sensitive scheduling classes (one or several, at least one; any iterable, a
        generator or a set included, is read once).

    Returns
    -------
    numpy.ndarray
        ``eligible[job, server]``, bool, shape (J, fleet.n_servers).

    Raises
    ------
    InvalidInputError
        When a class is not a whole number >= 0, an array is empty, or a ``reserved`` label is no
        class of ``fleet`` (it would reserve nothing, silently).
    """
    as_instance(fleet, Fleet, "fleet")
    sc = _scheduling_classes(scheduling_class, "scheduling_class")
    # a generator or a set read once, as a list is read (their order does not matter here)
    privileged = _read_once(
        privileged, "privileged", what="expected scheduling classes", ordered=False
    )
    privileged = as_array(privileged, "privileged", exact=False)  # classes
    privileged = _scheduling_classes(
        privileged.reshape(1) if privileged.ndim == 0 else privileged,
        "privileged",
        what="at least one class whose jobs may use the reserved servers",
    )
    reserved = _reserved_classes(fleet, reserved, none_is_present=False)
    open_server = ~np.isin(fleet.server_class, reserved)
    return open_server[None, :] | np.isin(sc, privileged)[:, None]


@result_type
@dataclass(frozen=True, eq=False)
class ReplayResult:
    """What :func:`replay` measured.

    Parameters
    ----------
    epochs : pandas.DataFrame
        One row per reallocation: start, end, active jobs, utilisation per resource overall, on the
        reserved classes and per server class, deviation from the reference.
    jobs : pandas.DataFrame
        One row per job: arrival, completion (NaN when unfinished), quanta, trace duration, delay.
    unfinished : int
        Jobs still running at the horizon (reported, not dropped).
    reallocations : int
        Number of reallocations (rows of ``epochs``).
    source : str
        The jobs' provenance label.
    """

    epochs: pd.DataFrame
    jobs: pd.DataFrame
    unfinished: int
    reallocations: int
    source: str

    def mean_utilisation(self, column: str) -> float:
        """Time-weighted mean of an ``epochs`` column.

        Parameters
        ----------
        column : str
            A column of ``epochs`` (e.g. ``"utilisation_cpu"``).

        Returns
        -------
        float
            The mean weighted by each epoch's length; NaN when the epochs span no time.

        Raises
        ------
        InvalidInputError
            When ``column`` is not a column of ``epochs``.
        """
        check_choice(column, tuple(self.epochs.columns), "column")
        span = (self.epochs.end - self.epochs.start).to_numpy()
        return (
            float(np.average(self.epochs[column], weights=span)) if span.sum() > 0 else float("nan")
        )

    def binned(self, column: str, width: float) -> pd.Series:
        """Exact time-weighted means of an ``epochs`` column over consecutive bins of ``width``
        seconds.

        The bins run from the first reallocation to the horizon (the last bin may be shorter); the
        running integral of a step function is piecewise linear, so the means are exact.

        Parameters
        ----------
        column : str
            A column of ``epochs``.
        width : float
            Bin width in seconds, in (0, 2**53] (:data:`~fairlib._validate.MAX_SECONDS`); at most
            :data:`MAX_EPOCHS` bins.

        Returns
        -------
        pandas.Series
            The mean per bin, indexed by bin start, named ``column``.

        Raises
        ------
        InvalidInputError
            When ``column`` is unknown, ``width`` is not positive or makes too many bins.
        """
        check_choice(column, tuple(self.epochs.columns), "column")
        width = as_number(width, "width", maximum=MAX_SECONDS)
        e = self.epochs
        start, end = float(e.start.iloc[0]), float(e.end.iloc[-1])
        if (end - start) / width > MAX_EPOCHS:
            raise InvalidInputError(
                f"width = {width:g}: {end - start:g} s in bins of {width:g} s are more than "
                f"{MAX_EPOCHS:,} bins"
            )
        edges = np.r_[np.arange(start, end, width), end]
        integral = np.r_[0.0, np.cumsum(e[column].to_numpy() * (e.end - e.start).to_numpy())]
        at = np.interp(edges, np.r_[start, e.end.to_numpy()], integral)
        return pd.Series(np.diff(at) / np.diff(edges), index=edges[:-1], name=column)


class _Usage:
    """Utilisation columns of an epoch: per resource overall, on the ``reserved`` classes (when the
    fleet has any) and per server class (servers of a class are identical, so these are also
    per-server values)."""

    def __init__(self, fleet, reserved):
        self.fleet = fleet
        self.reserved = np.isin(fleet.server_class, reserved)
        self.pooled = fleet.capacity.sum(axis=0)
        self.pooled_reserved = fleet.capacity[self.reserved].sum(axis=0)
        self.classes = {
            str(label): np.flatnonzero(fleet.server_class == label)
            for label in np.unique(fleet.server_class)
        }

    def columns(self, used: np.ndarray | None) -> dict:
        """``used[server, resource]`` -> the epoch's utilisation columns (None: an idle epoch, all
        zero)."""
        row = {}
        capacity = self.fleet.capacity
        for r, name in enumerate(self.fleet.resources):
            row[f"utilisation_{name}"] = (
                0.0 if used is None else float(used[:, r].sum() / self.pooled[r])
            )
            if self.reserved.any():
                row[f"reserved_utilisation_{name}"] = (
                    0.0
                    if used is None
                    else float(used[self.reserved, r].sum() / self.pooled_reserved[r])
                )
            for label, members in self.classes.items():
                row[f"class_{label}_utilisation_{name}"] = (
                    0.0
                    if used is None
                    else float(used[members, r].sum() / max(capacity[members, r].sum(), 1e-300))
                )
        return row


def replay(
    fleet: Fleet,
    jobs: Jobs,
    mechanism: Callable | str,
    *,
    eligible: npt.ArrayLike | None = None,
    start: float | None = None,
    horizon: float | None = None,
    interval: float = 300.0,
    reference: Callable | str | None = None,
    reserved: Sequence[str] | None = None,
    merge: bool = True,
    caps: bool = True,
    progress: bool = False,
) -> ReplayResult:
    """Replay ``jobs`` on ``fleet`` with ``mechanism``, §6.2 style.

    Reallocation at ``start`` and every ``interval`` seconds, and whenever a job completes; a job
    arriving in between waits for the next reallocation. Between reallocations each active job is
    served at the rate the mechanism gave it (``tasks`` = quanta per second, on the unit-dominant
    shape of the segment it is in at the reallocation). At every reallocation the allocation is
    checked: no server over capacity, nothing on an ineligible server (``AssertionError``
    otherwise); allocations whose solver did not converge are used and reported in one
    ``RuntimeWarning`` at the end. Jobs unfinished at ``horizon`` are counted, not dropped.
    Completions and reallocation times less than :data:`SIMULTANEOUS_S` apart are one event (the
    trace's own resolution is 1 µs), so the number of reallocations does not depend on the last
    bits of a float.

    Parameters
    ----------
    fleet : Fleet
        The servers (``capacity[server, resource]``, ``server_class``).
    jobs : Jobs
        The jobs, over the fleet's resources.
    mechanism : str or callable
        A registered name (:mod:`fairlib.mechanisms`) or a callable Cluster -> Allocation.
    eligible : array_like of bool, shape (n_jobs, n_servers), optional
        ``eligible[job, server]`` (default: every server; :func:`class_eligibility` for §6.2's
        placement).
    start : float, optional
        First reallocation, seconds, within ±2**53 (:data:`~fairlib._validate.MAX_SECONDS`;
        default: the first arrival).
    horizon : float, optional
        End of the replay, seconds, after ``start`` and within ±2**53 (default: the last
        ``trace_end``).
    interval : float, default 300.0
        Seconds between periodic reallocations, in [:data:`MIN_INTERVAL_S`, 2**53].
    reference : str or callable, optional
        A mechanism run on the same clusters (e.g. PS-DSF) for the deviation columns: mean and max
        over active jobs of
        |x_n - x_n^ref| / x_n^ref (our stand-in for the lost eq. 58, [INF]).
    reserved : sequence of str or None, default None
        Server classes whose utilisation is also reported on its own, each a class of ``fleet``
        (``()`` for none); None: the classes C and D that the fleet has (§6.2's reserved classes).
    merge : bool, default True
        Run the mechanisms on the distinct servers
        (:func:`fairlib.multires.cluster.on_merged_servers`, exact).
    caps : bool, default True
        Give no job more than its segment's ``jobs.segment_cap`` (``Cluster.max_tasks``; mechanisms
        without caps refuse); False ignores the caps (the uncapped ablation).
    progress : bool, default False
        Show a progress bar over simulated time.

    Returns
    -------
    ReplayResult
        The epochs, the jobs, the unfinished count and the number of reallocations.

    Raises
    ------
    InvalidInputError
        When the fleet and jobs disagree on their resources, a time or the interval is out of
        range, or a ``reserved`` label is no class of ``fleet``.
    RuntimeError
        When the replay would exceed :data:`MAX_EPOCHS` reallocations.
    """
    caps = as_flag(caps, "caps")
    merge = as_flag(merge, "merge")
    progress = as_flag(progress, "progress")
    as_instance(fleet, Fleet, "fleet")
    reserved = _reserved_classes(fleet, reserved, none_is_present=True)
    as_instance(jobs, Jobs, "jobs")
    from tqdm import tqdm

    from .mechanisms import resolve

    # names resolved to their callables
    mechanism = cast(Callable, resolve(mechanism, "mechanism"))
    reference = resolve(reference, "reference")
    if tuple(fleet.resources) != tuple(jobs.resources):
        raise InvalidInputError(
            f"fleet.resources {fleet.resources} != jobs.resources {jobs.resources}"
        )
    interval = as_number(
        interval, "interval", minimum=MIN_INTERVAL_S, inclusive=True, maximum=MAX_SECONDS
    )
    n = jobs.n_jobs
    elig = as_eligibility(
        eligible, n, fleet.n_servers, aligned_to=("jobs.ids", jobs.ids.tolist(), None)
    )
    segment_cap = jobs.segment_cap if caps else None
    start = float(jobs.arrival.min()) if start is None else as_time(start, "start")
    horizon = float(jobs.trace_end.max()) if horizon is None else as_time(horizon, "horizon")
    if not horizon > start:
        raise InvalidInputError(f"horizon = {horizon}: must be after start = {start}")
    # every epoch ends at a tick, a completion or the horizon: this bounds the loop
    max_epochs = int(np.ceil((horizon - start) / interval)) + n + 2
    if max_epochs > MAX_EPOCHS:
        raise InvalidInputError(
            f"horizon - start = {horizon - start:g} s at interval = {interval:g} s: up to "
            f"{max_epochs:,} reallocations, more than {MAX_EPOCHS:,}"
        )
    total = jobs.total_work
    seg_end = np.cumsum(jobs.work)  # cumulative work at each segment's end (global)
    seg_base = np.r_[0.0, seg_end][
        jobs.offsets[:-1]
    ]  # cumulative work before each job's first segment
    done = np.zeros(n)
    completion = np.full(n, np.nan)
    usage = _Usage(fleet, reserved)
    rows: list[dict] = []
    t = start
    next_tick = start
    name = getattr(mechanism, "name", getattr(mechanism, "__name__", "mechanism"))
    bar = tqdm(total=horizon - start, desc=f"replay {name}", disable=not progress, unit="s")
    unconverged = _Unconverged()
    while t < horizon:
        if (
            len(rows) >= max_epochs
        ):  # cannot happen: each epoch ends at a tick, a completion or the horizon
            raise RuntimeError(f"replay: more than {max_epochs} reallocations at t = {t}")
        if t >= next_tick:
            next_tick += interval * np.floor((t - next_tick) / interval + 1)
        active = np.flatnonzero((jobs.arrival <= t) & np.isnan(completion))
        rate = np.zeros(n)
        row = {"start": t, "active_jobs": int(active.size)}
        row.update(usage.columns(None))  # idle epochs use nothing
        if active.size:
            # segment each active job is in: the first whose end exceeds its work done (seg_end is
            # one cumulative sum over all jobs' segments, so one search finds every job's)
            seg = np.minimum(
                np.searchsorted(seg_end, seg_base[active] + done[active], side="right"),
                jobs.offsets[active + 1] - 1,
            )
            cluster = Cluster(
                fleet.capacity,
                jobs.shape[seg],
                eligible=elig[active],
                max_tasks=(
                    None if segment_cap is None else segment_cap[seg]  # type: ignore[arg-type]
                ),
            )
            alloc = (
                on_merged_servers(mechanism, cluster) if merge else _checked_run(mechanism, cluster)
            )
            unconverged.see(name, alloc)
            used = alloc.used
            assert (used <= fleet.capacity * (1 + 1e-7) + 1e-12).all(), f"over capacity at t = {t}"
            assert (alloc.tasks[~cluster.eligible] <= 1e-12).all(), (
                f"tasks on ineligible servers at t = {t}"
            )
            rate[active] = alloc.totals
            row.update(usage.columns(used))
            if reference is not None:
                ref = (
                    on_merged_servers(reference, cluster)
                    if merge
                    else _checked_run(reference, cluster)
                )
                unconverged.see(f"reference {getattr(reference, 'name', 'reference')}", ref)
                dev = np.abs(alloc.totals - ref.totals) / np.maximum(ref.totals, 1e-300)
                row.update(deviation_mean=float(dev.mean()), deviation_max=float(dev.max()))
        remaining = total - done
        with np.errstate(divide="ignore", invalid="ignore"):
            finish = np.where(rate > 0, t + remaining / rate, np.inf)
        finish[np.isnan(completion) & (remaining <= 0) & (jobs.arrival <= t)] = t  # zero-work jobs
        t_next = min(next_tick, float(finish.min()) if n else np.inf, horizon)
        # events less than SIMULTANEOUS_S apart happen together: an ulp of difference in a
        # completion time (another CPU's rounding) must not add or remove a reallocation
        for boundary in (next_tick, horizon):
            if t_next < boundary <= t_next + SIMULTANEOUS_S:
                t_next = boundary
        done += rate * (t_next - t)
        ended = np.flatnonzero(np.isnan(completion) & (finish <= t_next + SIMULTANEOUS_S))
        completion[ended] = finish[ended]
        done[ended] = total[ended]
        row["end"] = t_next
        rows.append(row)
        bar.update(t_next - t)
        t = t_next
    bar.close()
    unconverged.warn("replay")
    finished = ~np.isnan(completion)
    started = jobs.arrival < horizon
    table = pd.DataFrame(
        {
            "job_id": jobs.ids,
            "arrival": jobs.arrival,
            "completion": completion,
            "quanta": total,
            "trace_duration": jobs.trace_end - jobs.arrival,
            "delay": completion - jobs.arrival,
            "finished": finished,
        }
    )
    if jobs.scheduling_class is not None:
        table["scheduling_class"] = jobs.scheduling_class
    return ReplayResult(
        pd.DataFrame(rows), table, int((started & ~finished).sum()), len(rows), jobs.source
    )


class _Unconverged:
    """Allocations whose solver did not meet its tolerance (``Allocation.converged`` False), per
    mechanism: a run uses them (they are feasible: checked) but says so once at its end, with the
    count and the largest residual."""

    def __init__(self):
        self.count, self.worst, self.total = {}, {}, {}

    def see(self, name: str, alloc: Allocation) -> None:
        self.total[name] = self.total.get(name, 0) + 1
        if not alloc.converged:
            self.count[name] = self.count.get(name, 0) + 1
            residual = float(alloc.residual)
            self.worst[name] = max(
                self.worst.get(name, -np.inf), residual if np.isfinite(residual) else np.inf
            )

    def warn(self, where: str) -> None:
        import warnings

        for name, count in self.count.items():
            warnings.warn(
                f"{where}: {name}'s solver did not converge on {count} of {self.total[name]} "
                f"allocations (largest residual {self.worst[name]:.3g}); they are used as "
                "returned",
                RuntimeWarning,
                stacklevel=3,
            )


# --- open-loop scoring: every mechanism on the trace's own active sets ----------------------------


def open_loop(
    fleet: Fleet,
    jobs: Jobs,
    mechanisms: Mapping[str, Callable] | Iterable[str] | None = None,
    *,
    eligible: npt.ArrayLike | None = None,
    start: float | None = None,
    horizon: float | None = None,
    interval: float = 300.0,
    reserved: Sequence[str] | None = None,
    merge: bool = True,
    caps: bool = True,
    ranges: bool = False,
    definition4: bool = False,
    progress: bool = False,
) -> pd.DataFrame:
    """Every mechanism on the *same* sequence of active sets, taken from the trace; a row per
    (epoch, mechanism).

    In :func:`replay` a job leaves when the mechanism has served its quanta, so late in a replay
    mechanisms are compared on different sets of jobs. Here the trace decides: a job is active while
    one of its segments holds (``jobs.segment_start <= t < jobs.segment_end``, its demand then that
    segment's shape), so utilisation and fairness compare epoch by epoch. Epochs start at ``start``,
    every ``interval`` seconds and whenever a segment ends (a job leaving, or its demand changing
    with the next 5-minute window) — the replay's rule, with the trace's departures in place of
    the replay's completions; a segment starting between two epochs waits for the next one. Events
    less than :data:`SIMULTANEOUS_S` apart are one. At most :data:`MAX_EPOCHS` epochs (ticks and
    segment ends, counted before any is built): a shorter ``interval`` is refused, naming it. An
    epoch whose active set equals the previous one's reuses its allocations (mechanisms are
    deterministic). Each allocation is checked as in :func:`replay`, and allocations whose solver
    did not converge are counted and reported in one ``RuntimeWarning`` at the end.

    Parameters
    ----------
    fleet : Fleet
        The servers.
    jobs : Jobs
        The jobs, with segment times (:func:`jobs_from_workload`, :func:`jobs_from_demands`).
    mechanisms : mapping of str to callable, iterable of str, or None, optional
        name -> callable, registered names, or None for every registered multi-server run.
    eligible : array_like of bool, shape (n_jobs, n_servers), optional
        ``eligible[job, server]`` (default: every server).
    start : float, optional
        First epoch, seconds, within ±2**53 (:data:`~fairlib._validate.MAX_SECONDS`; default: the
        first segment start).
    horizon : float, optional
        End, seconds, after ``start`` and within ±2**53 (default: the last segment end).
    interval : float, default 300.0
        Seconds between periodic epochs, in [:data:`MIN_INTERVAL_S`, 2**53].
    reserved : sequence of str or None, default None
        Server classes whose utilisation is also reported on its own, each a class of ``fleet``
        (``()`` for none); None: the classes C and D that the fleet has (§6.2's reserved classes).
    merge : bool, default True
        Run the mechanisms on the distinct servers (exact).
    caps : bool, default True
        As in :func:`replay`: each active segment's ``jobs.segment_cap`` becomes its ``max_tasks``.
    ranges : bool, default False
        Also ``reserved_low_<resource>`` / ``reserved_high_<resource>``, the lowest and highest
        utilisation on the reserved classes over every placement of the mechanism's per-job totals
        (:func:`fairlib.multires.utilisation_range`, two HiGHS LPs per resource and epoch): how much
        of a reserved-class difference between mechanisms is only *where* the same totals were
        placed.
    definition4 : bool, default False
        Also ``psdsf_low_<resource>`` / ``psdsf_high_<resource>`` and
        ``psdsf_reserved_low_<resource>`` / ``psdsf_reserved_high_<resource>``: certified lower and
        upper bounds on the utilisation, overall and on the reserved classes, of *every* allocation
        meeting PS-DSF's Definition 4 on the epoch's cluster
        (:func:`fairlib.multires.checks.psdsf_range.psdsf_utilisation_bounds`; one pair of small
        MILPs per resource and measure). They depend on the epoch, not on the mechanism: every row
        of the epoch carries the same values.
    progress : bool, default False
        Show a progress bar.

    Returns
    -------
    pandas.DataFrame
        Columns ``epoch``, ``start``, ``end``, ``active_jobs``, ``mechanism``, the utilisation
        columns of :func:`replay` (overall, reserved classes, per class), ``jain_dominant_share``
        (Jain's index of the active jobs' dominant shares of the pooled cluster),
        ``min_dominant_share``, and the columns ``ranges`` and ``definition4`` add.

    Raises
    ------
    InvalidInputError
        When no mechanism is given, the fleet and jobs disagree on their resources, the jobs have no
        segment times, a time or the interval is out of range, or a ``reserved`` label is no class
        of ``fleet``.
    """
    progress = as_flag(progress, "progress")
    caps = as_flag(caps, "caps")
    definition4 = as_flag(definition4, "definition4")
    merge = as_flag(merge, "merge")
    ranges = as_flag(ranges, "ranges")
    as_instance(fleet, Fleet, "fleet")
    reserved = _reserved_classes(fleet, reserved, none_is_present=True)
    as_instance(jobs, Jobs, "jobs")
    from tqdm import tqdm

    from .mechanisms import resolve_runs

    mechanisms = resolve_runs(mechanisms, "multi_server")
    if not mechanisms:
        raise InvalidInputError("mechanisms: none to run")
    if tuple(fleet.resources) != tuple(jobs.resources):
        raise InvalidInputError(
            f"fleet.resources {fleet.resources} != jobs.resources {jobs.resources}"
        )
    if jobs.segment_start is None:
        raise InvalidInputError(
            "jobs: no segment times (segment_start/segment_end); build them with "
            "jobs_from_workload or jobs_from_demands"
        )
    interval = as_number(
        interval, "interval", minimum=MIN_INTERVAL_S, inclusive=True, maximum=MAX_SECONDS
    )
    seg_start, seg_end = np.asarray(jobs.segment_start, float), np.asarray(jobs.segment_end, float)
    seg_job = np.repeat(np.arange(jobs.n_jobs), np.diff(jobs.offsets))
    elig = as_eligibility(
        eligible, jobs.n_jobs, fleet.n_servers, aligned_to=("jobs.ids", jobs.ids.tolist(), None)
    )
    start = float(seg_start.min()) if start is None else as_time(start, "start")
    horizon = float(seg_end.max()) if horizon is None else as_time(horizon, "horizon")
    if not horizon > start:
        raise InvalidInputError(f"horizon = {horizon}: must be after start = {start}")
    # counted before the ticks are built: an interval far shorter than the span would allocate them
    # all first
    n_ticks = np.ceil((horizon - start) / interval)
    if n_ticks + seg_end.size > MAX_EPOCHS:
        raise InvalidInputError(
            f"horizon - start = {horizon - start:g} s at interval = {interval:g} s: up to "
            f"{n_ticks + seg_end.size:,.0f} epochs, more than {MAX_EPOCHS:,}"
        )
    ticks = start + interval * np.arange(int(n_ticks))
    events = np.unique(np.r_[ticks, seg_end[(seg_end > start) & (seg_end < horizon)], horizon])
    # events less than SIMULTANEOUS_S apart are one (the earlier one stands for both)
    events = events[np.r_[True, np.diff(events) > SIMULTANEOUS_S]]
    usage = _Usage(fleet, reserved)
    rows, previous, cached, unconverged = [], None, {}, _Unconverged()
    for e, (t, t_end) in enumerate(
        tqdm(
            list(zip(events[:-1], events[1:])),
            desc="open-loop epochs",
            disable=not progress,
            unit="epoch",
        )
    ):
        live = np.flatnonzero((seg_start <= t + SIMULTANEOUS_S) & (seg_end > t + SIMULTANEOUS_S))
        key = live.tobytes()
        if key != previous:
            cached = _open_loop_epoch(
                fleet,
                jobs,
                mechanisms,
                live,
                seg_job,
                elig,
                usage,
                merge,
                t,
                jobs.segment_cap if caps else None,
                ranges,
                definition4,
                unconverged,
            )
            previous = key
        for name, columns in cached.items():
            rows.append(
                {
                    "epoch": e,
                    "start": float(t),
                    "end": float(t_end),
                    "active_jobs": int(live.size),
                    "mechanism": name,
                    **columns,
                }
            )
    unconverged.warn("open_loop")
    table = pd.DataFrame(rows)
    table.attrs["source"] = jobs.source
    return table


def _open_loop_epoch(
    fleet: Fleet,
    jobs: Jobs,
    mechanisms: Mapping[str, Callable],
    live: np.ndarray,
    seg_job: np.ndarray,
    elig: np.ndarray,
    usage: _Usage,
    merge: bool,
    t: float,
    segment_cap: np.ndarray | None,
    ranges: bool,
    definition4: bool,
    unconverged: _Unconverged,
) -> dict:
    """Every mechanism on one epoch's active segments: name -> its columns (utilisation,
    fairness)."""
    if live.size == 0:
        idle = (
            {f"reserved_{end}_{r}": 0.0 for r in fleet.resources for end in ("low", "high")}
            if ranges
            else {}
        )
        if definition4:
            idle.update(
                {
                    f"psdsf_{where}{end}_{r}": 0.0
                    for r in fleet.resources
                    for end in ("low", "high")
                    for where in ("", "reserved_")
                }
            )
        return {
            name: {
                **usage.columns(None),
                "jain_dominant_share": np.nan,
                "min_dominant_share": np.nan,
                **idle,
            }
            for name in mechanisms
        }
    owners = seg_job[
        live
    ]  # one segment per job at a time (Jobs checks that a job's segments do not overlap)
    cluster = Cluster(
        fleet.capacity,
        jobs.shape[live],
        eligible=elig[owners],
        max_tasks=None if segment_cap is None else segment_cap[live],  # type: ignore[arg-type]
    )
    out = {}
    for name, mechanism in mechanisms.items():
        alloc = on_merged_servers(mechanism, cluster) if merge else _checked_run(mechanism, cluster)
        unconverged.see(name, alloc)
        used = alloc.used
        assert (used <= fleet.capacity * (1 + 1e-7) + 1e-12).all(), (
            f"{name}: over capacity at t = {t}"
        )
        assert (alloc.tasks[~cluster.eligible] <= 1e-12).all(), (
            f"{name}: tasks on ineligible servers at t = {t}"
        )
        shares = alloc.dominant_shares
        out[name] = {
            **usage.columns(used),
            "jain_dominant_share": jain_index(shares) if (shares > 0).any() else np.nan,
            "min_dominant_share": float(shares.min()),
        }
        if ranges:
            out[name].update(
                _reserved_ranges(cluster, alloc.tasks.sum(axis=1), usage.reserved, fleet.resources)
            )
    if definition4:
        bounds = _definition4_bounds(cluster, usage.reserved, fleet.resources)
        for columns in out.values():
            columns.update(bounds)
    return out


def _definition4_bounds(cluster: Cluster, reserved: np.ndarray, resources: Sequence[str]) -> dict:
    """Certified bounds on every Definition-4 allocation's utilisation, overall and on the
    ``reserved`` servers."""
    from .multires.checks.psdsf_range import psdsf_utilisation_bounds

    out = {}
    for where, servers in (("", None), ("reserved_", reserved if reserved.any() else None)):
        if where and servers is None:
            continue
        for r, name in enumerate(resources):
            if servers is not None and not cluster.capacity[servers, r].sum() > 0:
                continue
            b = psdsf_utilisation_bounds(cluster, r, servers)
            out[f"psdsf_{where}low_{name}"], out[f"psdsf_{where}high_{name}"] = b.low, b.high
    return out


def _reserved_ranges(
    cluster: Cluster, totals: np.ndarray, reserved: np.ndarray, resources: Sequence[str]
) -> dict:
    """Lowest and highest utilisation of each resource on the ``reserved`` servers over placements
    of ``totals``, on the merged servers when no merged server mixes reserved and other servers
    (same range, far smaller LPs)."""
    from .multires.cluster import merge_identical_servers
    from .multires.checks.utilisation_range import utilisation_range

    if not reserved.any():
        return {}
    merged, group, _ = merge_identical_servers(cluster)
    reserved_group = np.zeros(merged.n_servers, dtype=bool)
    reserved_group[group[reserved]] = True
    pure = (reserved_group[group] == reserved).all()
    where, mask = (merged, reserved_group) if pure else (cluster, reserved)
    out = {}
    for r, name in enumerate(resources):
        if not where.capacity[mask, r].sum() > 0:
            continue
        span = utilisation_range(where, totals, mask, r)
        out[f"reserved_low_{name}"], out[f"reserved_high_{name}"] = span.low, span.high
    return out
