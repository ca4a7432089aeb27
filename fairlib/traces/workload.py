"""One representation for every trace: a :class:`Fleet` of servers and a :class:`Workload` of users.

Units are carried in ``resources`` (names with units, e.g. ``"cpu_ghz"``); ``source`` says "real" or
"synthetic"; ``skipped`` counts what a builder left out and why (nothing is dropped silently).

Builders:

- :func:`google_fleet` — servers drawn from the real machine-configuration distribution (Google
  clusterdata-2011-2, normalised CPU and memory), by class;
- :func:`google_workload` — jobs as users from ``task_events``: demand = the sum of the job's task
  requests at submission, arrival = first SUBMIT, departure = last end event (or the horizon);
- :func:`bitbrains_fleet` — the paper's §6.1 fleet: 75 × (4 GHz, 12 GB), 100 × (8 GHz, 8 GB),
  75 × (16 GHz, 4 GB) over 3 locations, with storage and network capacities that were *not
  recovered* (parameters, labelled);
- :func:`bitbrains_workload` — VMs as users: demand = each resource's peak usage over the VM's
  active samples ("users demand resources to cover their maximum usage", §6.1), arrival/departure =
  first and last active sample.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._validate import (
    read_only_state,
    INT64_MAX,
    InvalidInputError,
    _check_aligned,
    _short,
    _store_read_only,
    as_count,
    as_time,
    as_identifiers,
    as_instance,
    as_labels,
    as_number,
    as_rng,
    as_tally,
    as_values,
    check_choice,
    check_columns,
    check_drawn,
    as_text,
)

__all__ = [
    "Fleet",
    "Workload",
    "google_fleet",
    "google_workload",
    "bitbrains_fleet",
    "bitbrains_workload",
    "peak_total_bandwidth",
    "BITBRAINS_SERVER_TYPES",
]


def _check_resources(resources: object) -> tuple:
    """The resource names: a non-empty tuple or list of distinct text labels."""
    if (
        not isinstance(resources, (tuple, list))
        or not resources
        or not all(isinstance(r, str) for r in resources)
    ):
        raise InvalidInputError(
            f"resources = {_short(resources)}: must be a non-empty tuple of resource names "
            "(text, with units)"
        )
    return as_labels(resources, "resources", allow_empty=False)


def _check_codes(frame: pd.DataFrame, name: str, columns: Iterable[str]) -> None:
    """The schema's codes (event types, scheduling classes) within their documented ranges, as the
    readers check them, in a frame given here directly: else an error naming the column, the row and
    the value."""
    from .google import _RANGES

    for col in columns:
        low, high = _RANGES["task_events"][col]
        v = pd.to_numeric(frame[col], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
        bad = ~((v >= low) & (v <= high) & (v == np.round(v)))
        if bad.any():
            i = int(np.argmax(bad))
            raise InvalidInputError(
                f"{name} row {i} (index {frame.index[i]}), column {col!r} = {v[i]:g}: "
                f"must be a code from {low} to {high}"
            )


def _check_whole(arr: np.ndarray, name: str) -> None:
    fraction = arr != np.round(arr)
    if fraction.any():
        j = int(np.argmax(fraction))
        raise InvalidInputError(f"{name}[{j}] = {arr[j]}: must be a whole number")


@read_only_state
@dataclass(frozen=True, eq=False)
class Fleet:
    """Servers: ``capacity[server, resource]`` in the units named by ``resources``.

    Parameters
    ----------
    capacity : numpy.ndarray, shape (K, R)
        ``capacity[server, resource]``, finite and >= 0, one column per resource.
    resources : tuple of str
        The R resource names, with units (``"cpu_ghz"``).
    server_class : numpy.ndarray, shape (K,)
        One label per server (``"A"``, ``"B"``, ...).
    source : str
        Free text: where the fleet comes from (``"real"``, ``"synthetic"``, ``"paper"``,
        ``"given"``).
    location : numpy.ndarray, shape (K,), optional
        One site number (a whole number >= 0) per server, or None.
    notes : str, default ""
        Free text: the choices made in building it.

    Raises
    ------
    InvalidInputError
        When a field has the wrong type, shape or value, naming the field and the server, or a
        pandas ``capacity`` whose columns are not ``resources`` (same names, same order).
    """

    capacity: np.ndarray
    resources: tuple
    server_class: np.ndarray
    source: str
    location: np.ndarray | None = None
    notes: str = ""

    def __post_init__(self):
        """Validates every field (shapes, values, labels) and stores read-only copies."""
        resources = _check_resources(self.resources)
        _check_aligned(self.capacity, "capacity", 1, ("resources", resources, None))
        cap = as_values(self.capacity, "capacity", ndim=2)
        if cap.shape[1] != len(resources):
            raise InvalidInputError(
                f"capacity: expected (servers, {len(resources)}) for resources {resources}, "
                f"got shape {cap.shape}"
            )
        n = cap.shape[0]
        try:
            labels = np.asarray(self.server_class)
        except ValueError:  # a ragged list of labels
            labels = None
        if labels is None or labels.ndim != 1 or len(labels) != n:
            raise InvalidInputError(
                f"server_class = {_short(self.server_class)}: expected {n} labels (one per server)"
            )
        # text, not blank, as given (np.asarray(["A", 1]) would read 1 as "1")
        as_labels(list(self.server_class), "server_class", distinct=False)
        as_text(self.source, "source", what="a provenance label is shown text")
        location = None
        if self.location is not None:
            location = as_values(self.location, "location", ndim=1, shape=(n,))
            _check_whole(location, "location")
        as_text(
            self.notes, "notes", what="notes are shown text, or empty", optional=True, lines=True
        )
        # the validated arrays, as read-only copies: a list given here would have no .shape
        # (n_servers), and the caller's array, shared, could change a fleet already checked
        _store_read_only(
            self,
            capacity=cap,
            resources=resources,
            server_class=np.array(labels),
            location=location,
        )

    @property
    def n_servers(self) -> int:
        """Number of servers in the fleet."""
        return self.capacity.shape[0]


@read_only_state
@dataclass(frozen=True, eq=False)
class Workload:
    """Users: ``demand[user, resource]`` (same resources as the fleet), arrival and departure in
    seconds.

    Parameters
    ----------
    users : numpy.ndarray, shape (N,)
        Identifiers: integers within int64 (stored as int64) or text, not both.
    demand : numpy.ndarray, shape (N, R)
        ``demand[user, resource]``, finite and >= 0.
    arrival, departure : numpy.ndarray, shape (N,)
        Finite times (of either sign: the clock's origin is the caller's), no departure before its
        arrival.
    resources : tuple of str
        The R resource names, with units.
    source : str
        ``"real"`` or ``"synthetic"``.
    scheduling_class : numpy.ndarray, shape (N,), optional
        One whole number >= 0 per user (Google's 0-3), or None.
    skipped : dict of str to int, optional
        Rows left out while reading, by reason (``{"no_request": 12}``): text reasons, each count
        >= 0; empty (the default) when nothing was left out.

    Raises
    ------
    InvalidInputError
        When a field has the wrong type, shape or value, naming the field and the user, or a
        pandas ``demand`` whose columns are not ``resources`` (same names, same order).
    """

    users: np.ndarray
    demand: np.ndarray
    arrival: np.ndarray
    departure: np.ndarray
    resources: tuple
    source: str
    scheduling_class: np.ndarray | None = None

    def __post_init__(self):
        """Validates every field (shapes, values, times, labels, the tally) and stores read-only
        copies."""
        users = as_identifiers(self.users, "users", allow_empty=True)
        n = users.size
        resources = _check_resources(self.resources)
        _check_aligned(self.demand, "demand", 1, ("resources", resources, None))
        d = as_values(self.demand, "demand", ndim=2)
        if d.shape != (n, len(resources)):
            raise InvalidInputError(
                f"demand: expected shape ({n}, {len(resources)}) (one row per entry of users, "
                f"one column per resource), got {d.shape}"
            )
        arrival = as_values(self.arrival, "arrival", ndim=1, shape=(n,), sign=None)
        departure = as_values(self.departure, "departure", ndim=1, shape=(n,), sign=None)
        early = departure < arrival
        if early.any():
            j = int(np.argmax(early))
            raise InvalidInputError(
                f"departure[{j}] = {departure[j]}: before arrival[{j}] = {arrival[j]}"
            )
        check_choice(self.source, ("real", "synthetic"), "source")
        classes = None
        if self.scheduling_class is not None:
            _check_whole(
                as_values(self.scheduling_class, "scheduling_class", ndim=1, shape=(n,)),
                "scheduling_class",
            )
            classes = np.array(self.scheduling_class)  # as given (integers stay integers)
        skipped = as_tally(self.skipped, "skipped")
        # the validated arrays, as read-only copies: lists given here would have no .shape
        # (n_users, active_at, subset), and the caller's arrays, shared, could change a workload
        # already checked
        _store_read_only(
            self,
            users=users,
            demand=d,
            arrival=arrival,
            departure=departure,
            resources=resources,
            scheduling_class=classes,
            skipped=skipped,
        )

    skipped: dict[str, int] = field(default_factory=dict)

    @property
    def n_users(self) -> int:
        """Number of users (VMs or jobs) in the workload."""
        return self.demand.shape[0]

    def active_at(self, t: float) -> np.ndarray:
        """Users present at time ``t`` (arrival <= t < departure).

        Parameters
        ----------
        t : float
            The instant, in seconds on the workload's clock, within ±2**53
            (:data:`~fairlib._validate.MAX_SECONDS`).

        Returns
        -------
        numpy.ndarray
            Boolean mask, shape (n_users,).

        Raises
        ------
        InvalidInputError
            When ``t`` is not a finite number or is beyond ±2**53.
        """
        t = as_time(t, "t")
        return (self.arrival <= t) & (t < self.departure)

    def subset(self, keep: npt.ArrayLike) -> Workload:
        """The users where ``keep`` is True (e.g. a random 2% of the jobs); ``skipped`` is kept.

        Parameters
        ----------
        keep : numpy.ndarray of bool, shape (n_users,)
            Which users to keep.

        Returns
        -------
        Workload
            The kept users in their order.

        Raises
        ------
        InvalidInputError
            When ``keep`` is not a boolean mask of one entry per user.
        """
        given, keep = keep, np.asarray(keep)
        if keep.dtype != bool or keep.shape != (self.n_users,):
            raise InvalidInputError(
                f"keep = {_short(given)}: expected a boolean mask of shape ({self.n_users},), "
                f"got {keep.dtype} {keep.shape}"
            )
        return Workload(
            self.users[keep],
            self.demand[keep],
            self.arrival[keep],
            self.departure[keep],
            self.resources,
            self.source,
            None if self.scheduling_class is None else self.scheduling_class[keep],
            dict(self.skipped),
        )


def google_fleet(
    n_servers: int = 120,
    classes: int = 4,
    rng: int | np.random.Generator | np.random.SeedSequence | None = None,
    *,
    configurations: pd.DataFrame | None = None,
    directory: os.PathLike[str] | str | None = None,
    labels: str = "frequency",
) -> Fleet:
    """``n_servers`` servers of the ``classes`` most common (CPU, memory) configurations, in
    proportion to their counts.

    Counts are rounded by largest remainder. Closeness (for ``labels="proportionality"``) is the
    angle between a configuration's capacity vector and the fleet's total (ties: the more common
    first).

    Parameters
    ----------
    n_servers : int, default 120
        Servers in the fleet, >= 1.
    classes : int, default 4
        Configurations kept (the most common), >= 1.
    rng : int, numpy.random.Generator, numpy.random.SeedSequence or None, optional
        When given, the servers are put in a random order (default: grouped by class).
    configurations : pandas.DataFrame, optional
        The output of :func:`fairlib.traces.machine_configurations` (read from the trace when
        omitted).
    directory : str or os.PathLike, optional
        The Google folder, when ``configurations`` is omitted.
    labels : {"frequency", "proportionality"}, default "frequency"
        How the classes A, B, ... are named. ``"frequency"``: by how many machines have the
        configuration (A the most common). ``"proportionality"``: as the paper's §6.2 describes
        them — the first half of the labels (A, B for four classes) go to the configurations whose
        (CPU, memory) direction is closest to the fleet's total capacity ("almost proportional to
        the overall capacities"), the rest (C, D) to the more heterogeneous ones, each half in order
        of frequency. The paper gives no per-class numbers; this reading of its text is a
        reconstruction (the paper's Fig. 4 caption and §6.2), and with the 2011 trace's four
        commonest configurations it gives A/B = (0.5, 0.5)/(1, 1) and C/D = (0.5, 0.25)/(0.5, 0.75).
        The replay reserves C and D for latency-sensitive jobs
        (:func:`fairlib.sim.class_eligibility`), so the labelling decides which servers are public.

    Returns
    -------
    Fleet
        Resources ``("cpu_normalised", "memory_normalised")``; ``notes`` records the configurations'
        counts and the labelling.

    Raises
    ------
    InvalidInputError
        When a count or ``labels`` is invalid, ``n_servers`` x 2 is above
        :data:`~fairlib._validate.MAX_DRAWN` (10**8), or ``configurations`` lacks a column.
    FileNotFoundError
        When ``configurations`` is omitted and the trace's machine_events are not found.
    """
    from ._source import source_of
    from .google import google_dir, machine_configurations

    check_choice(labels, ("frequency", "proportionality"), "labels")
    n_servers, classes = as_count(n_servers, "n_servers"), as_count(classes, "classes")
    check_drawn(("n_servers", n_servers), ("resources", 2))
    rng = as_rng(rng) if rng is not None else None
    if directory is not None:
        google_dir(directory)  # a folder path, or an error naming it
    if configurations is None:
        conf = machine_configurations(directory=directory)
    else:
        conf = as_instance(configurations, pd.DataFrame, "configurations")
        missing = [c for c in ("cpus", "memory", "machines") if c not in conf]
        if missing:
            raise InvalidInputError(
                f"configurations: missing columns {missing} (the output of "
                "machine_configurations has cpus, memory and machines)"
            )
        check_columns(conf, "configurations", ["cpus", "memory", "machines"])
    if n_servers < classes or classes < 1:
        raise InvalidInputError(
            f"n_servers = {n_servers}, classes = {classes}: need 1 <= classes <= n_servers"
        )
    top = (
        conf.groupby(["cpus", "memory"], as_index=False)
        .machines.sum()
        .sort_values("machines", ascending=False, kind="stable")
        .head(classes)
    )
    if len(top) < classes or not (top.machines > 0).all():
        raise InvalidInputError(
            f"configurations: {int((top.machines > 0).sum())} (cpus, memory) configurations with "
            f"machines, fewer than classes = {classes}"
        )
    share = top.machines.to_numpy(float) / top.machines.sum()
    counts = np.floor(share * n_servers).astype(int)
    counts = np.maximum(counts, 1)
    while counts.sum() < n_servers:
        counts[np.argmax(share * n_servers - counts)] += 1
    while counts.sum() > n_servers:
        counts[np.argmax(counts)] -= 1
    shapes = top[["cpus", "memory"]].to_numpy(float)
    rank = np.arange(classes)  # position of each configuration in the label order (frequency order)
    if labels == "proportionality":
        total = counts @ shapes
        cosine = shapes @ total / (np.linalg.norm(shapes, axis=1) * np.linalg.norm(total))
        angle = np.arccos(np.clip(cosine, -1.0, 1.0))
        near = np.argsort(angle, kind="stable")[: (classes + 1) // 2]
        order = np.concatenate([np.sort(near), np.setdiff1d(np.arange(classes), near)])
        rank = np.argsort(order, kind="stable")
    capacity = np.repeat(shapes, counts, axis=0)
    names = np.array([chr(ord("A") + j) for j in range(classes)])
    server_labels = np.repeat(names[rank], counts)
    order = (
        np.random.default_rng(rng).permutation(n_servers)
        if rng is not None
        else np.arange(n_servers)
    )
    return Fleet(
        capacity[order],
        ("cpu_normalised", "memory_normalised"),
        server_labels[order],
        source_of(google_dir(directory)) if configurations is None else "given",
        notes=f"top {classes} configurations, counts {counts.tolist()}"
        + (
            ", labelled by proportionality (A/B near the total's direction)"
            if labels != "frequency"
            else ""
        ),
    )


def google_workload(
    task_events: pd.DataFrame, *, horizon: int | None = None, source: str = "real"
) -> Workload:
    """Jobs as users from ``task_events`` rows (times in µs; returned in seconds from the trace
    origin).

    A job's demand is the sum of its tasks' (CPU, memory) requests at their SUBMIT events; arrival
    is its first SUBMIT, departure its last FINISH/FAIL/KILL/EVICT/LOST event (or ``horizon`` when
    some task has not ended). Jobs whose requests are all empty or zero are skipped and counted in
    ``skipped["no_request"]``.

    Parameters
    ----------
    task_events : pandas.DataFrame
        Rows with ``time``, ``job_id``, ``task_index``, ``event_type``, ``cpu_request``,
        ``memory_request`` and ``scheduling_class``.
    horizon : int, optional
        The end for unfinished jobs, µs, a whole number not before the last event (default: the
        last event time).
    source : {"real", "synthetic"}, default "real"
        Provenance label.

    Returns
    -------
    Workload
        One user per job with requests, resources ``("cpu_normalised", "memory_normalised")``.

    Raises
    ------
    InvalidInputError
        When ``task_events`` is not a DataFrame, lacks a column or holds a bad value, or ``horizon``
        is invalid.
    """
    as_instance(task_events, pd.DataFrame, "task_events")
    need = {
        "time",
        "job_id",
        "task_index",
        "event_type",
        "cpu_request",
        "memory_request",
        "scheduling_class",
    }
    missing = need - set(task_events.columns)
    if missing:
        raise InvalidInputError(f"task_events: missing columns {sorted(missing)}")
    from .google import _check_event_times

    _check_event_times(task_events, "task_events")
    check_columns(task_events, "task_events", ["cpu_request", "memory_request"])
    _check_codes(task_events, "task_events", ("event_type", "scheduling_class"))
    # source is Workload's to check (the same choice, by the same name)
    ev = task_events
    last_event = int(ev.time.max())
    if horizon is None:
        horizon = last_event
    else:
        as_number(horizon, "horizon", inclusive=True, maximum=INT64_MAX)
        if horizon != round(horizon):
            raise InvalidInputError(
                f"horizon = {horizon}: must be a whole number of µs (trace times are integers)"
            )
        if horizon < last_event:
            raise InvalidInputError(
                f"horizon = {horizon}: before the last event of task_events ({last_event} µs); "
                "the horizon ends the observation"
            )
        horizon = int(horizon)
    sub = ev[ev.event_type == 0].sort_values("time", kind="stable")
    task = sub.groupby(["job_id", "task_index"]).agg(
        first_submit=("time", "min"),
        last_submit=("time", "max"),
        cpu=("cpu_request", "last"),
        memory=("memory_request", "last"),
        scheduling_class=("scheduling_class", "max"),
    )
    last_end = ev[ev.event_type.isin([2, 3, 4, 5, 6])].groupby(["job_id", "task_index"]).time.max()
    task["last_end"] = last_end.reindex(task.index)
    # a task has left when its last end event follows its last (re)submission
    task["ended"] = task.last_end >= task.last_submit
    per_job = task.groupby("job_id").agg(
        cpu=("cpu", "sum"),
        memory=("memory", "sum"),
        arrival=("first_submit", "min"),
        scheduling_class=("scheduling_class", "max"),
        all_ended=("ended", "all"),
        last_end=("last_end", "max"),
    )
    departure = np.where(
        per_job.all_ended.to_numpy(), per_job.last_end.to_numpy(float), float(horizon)
    )
    empty = (per_job.cpu.fillna(0) <= 0) & (per_job.memory.fillna(0) <= 0)
    keep = ~empty.to_numpy()
    return Workload(
        users=per_job.index.to_numpy()[keep],
        demand=per_job[["cpu", "memory"]].fillna(0).to_numpy(float)[keep],
        arrival=per_job.arrival.to_numpy(float)[keep] / 1e6,
        departure=departure[keep] / 1e6,
        resources=("cpu_normalised", "memory_normalised"),
        source=source,
        scheduling_class=per_job.scheduling_class.to_numpy()[keep],
        skipped={"no_request": int(empty.sum())},
    )


#: the range of a chosen storage or network bandwidth per server, MB/s: from 1 KB/s, the unit the
#: Bitbrains traces record bandwidths in, to 1e6 MB/s (1 TB/s), beyond any server's disk or network
#: link
BANDWIDTH_MBPS = (1e-3, 1e6)

#: §6.1: (count, CPU GHz, RAM GB) per server type
BITBRAINS_SERVER_TYPES = ((75, 4.0, 12.0), (100, 8.0, 8.0), (75, 16.0, 4.0))


def peak_total_bandwidth(vms: pd.DataFrame) -> tuple[float, float]:
    """The largest total (storage, network) bandwidth over all VMs at one sampling instant, in MB/s.

    The "maximum overall usage" §6.1 sizes the storage devices and network links to meet, over the
    active samples.

    Parameters
    ----------
    vms : pandas.DataFrame
        VM rows of :func:`fairlib.traces.read_vms` (``time``, ``active``, disk read/write and
        network rx/tx in KB/s).

    Returns
    -------
    tuple of float
        ``(storage, network)`` in MB/s.

    Raises
    ------
    InvalidInputError
        When ``vms`` is not a DataFrame, lacks a column, or has no active sample.
    """
    as_instance(vms, pd.DataFrame, "vms")
    need = {"time", "active", "disk_read_kbps", "disk_write_kbps", "net_rx_kbps", "net_tx_kbps"}
    missing = need - set(vms.columns)
    if missing:
        raise InvalidInputError(f"vms: missing columns {sorted(missing)}")
    check_columns(vms, "vms", sorted(need - {"time", "active"}))
    act = vms[vms.active]
    if act.empty:
        raise InvalidInputError("vms: no active sample to size the bandwidths from")
    per_time = (
        pd.DataFrame(
            {
                "time": act.time,
                "storage": (act.disk_read_kbps + act.disk_write_kbps) / 1024.0,
                "network": (act.net_rx_kbps + act.net_tx_kbps) / 1024.0,
            }
        )
        .groupby("time")
        .sum()
    )
    return float(per_time.storage.max()), float(per_time.network.max())


def bitbrains_fleet(
    *,
    locations: int = 3,
    storage_mbps: float = 2000.0,
    network_mbps: float = 1000.0,
    size_from: pd.DataFrame | None = None,
) -> Fleet:
    """The 250-server fleet of §6.1 over ``locations`` sites (types spread round-robin).

    Resources: CPU (GHz), RAM (GB), storage and network bandwidth (MB/s). Each server type at each
    location shares one storage device and one network link in the paper; their capacities were
    **not recovered**.

    Parameters
    ----------
    locations : int, default 3
        Number of sites, from 1 to 100: each server type is spread over the sites round-robin, and
        the largest type has 100 servers, so every site holds a server.
    storage_mbps : float, default 2000.0
        Storage bandwidth per server, MB/s, in [1e-3, 1e6] (:data:`BANDWIDTH_MBPS`; a labelled
        choice, see ``notes``).
    network_mbps : float, default 1000.0
        Network bandwidth per server, MB/s, in [1e-3, 1e6] (a labelled choice).
    size_from : pandas.DataFrame, optional
        VM rows of :func:`fairlib.traces.read_vms`: sizes the bandwidths instead as §6.1 says —
        "capacity sized so the maximum overall usage is met": the fleet's storage and network
        capacities equal the largest total usage of those VMs at one instant
        (:func:`peak_total_bandwidth`), split evenly over the servers. Reading "overall usage" as
        the total at one instant (not the sum of per-VM peaks) is our choice, said in ``notes``.

    Returns
    -------
    Fleet
        Resources ``("cpu_ghz", "memory_gb", "storage_mbps", "network_mbps")``, server classes by
        type, a location per server, source ``"paper"``.

    Raises
    ------
    InvalidInputError
        When a number is out of range (``locations`` above 100, the largest server type's count,
        would leave sites with no server) or ``size_from`` is not valid VM rows.
    """
    locations = as_count(locations, "locations")
    most = max(count for count, _, _ in BITBRAINS_SERVER_TYPES)
    if locations > most:
        raise InvalidInputError(
            f"locations = {locations}: must be at most {most} (the largest server type's "
            f"{most} servers spread round-robin; more sites would hold no server)"
        )
    low, high = BANDWIDTH_MBPS
    storage_mbps, network_mbps = (
        as_number(storage_mbps, "storage_mbps", minimum=low, inclusive=True, maximum=high),
        as_number(network_mbps, "network_mbps", minimum=low, inclusive=True, maximum=high),
    )
    n_servers = sum(count for count, _, _ in BITBRAINS_SERVER_TYPES)
    note = (
        f"storage {storage_mbps} MB/s and network {network_mbps} MB/s per server: not recovered, "
        "chosen"
    )
    if size_from is not None:
        as_instance(size_from, pd.DataFrame, "size_from")
        storage_total, network_total = peak_total_bandwidth(size_from)
        storage_mbps, network_mbps = storage_total / n_servers, network_total / n_servers
        note = (
            f"storage {storage_mbps:.4g} MB/s and network {network_mbps:.4g} MB/s per "
            f"server: the VMs' largest total usage at one instant ({storage_total:.4g} and "
            f"{network_total:.4g} MB/s, §6.1's sizing rule) split over {n_servers} servers"
        )
    rows, labels, where = [], [], []
    for t, (count, ghz, gb) in enumerate(BITBRAINS_SERVER_TYPES, start=1):
        for j in range(count):
            rows.append([ghz, gb, storage_mbps, network_mbps])
            labels.append(f"type {t}")
            where.append(j % locations)
    return Fleet(
        np.array(rows),
        ("cpu_ghz", "memory_gb", "storage_mbps", "network_mbps"),
        np.array(labels),
        "paper",
        np.array(where),
        notes=note,
    )


def bitbrains_workload(vms: pd.DataFrame) -> Workload:
    """VMs as users from :func:`fairlib.traces.read_vms` rows.

    Parameters
    ----------
    vms : pandas.DataFrame
        VM rows (``vm``, ``time``, ``active``, CPU in MHz, memory in KB, disk and network in KB/s).

    Returns
    -------
    Workload
        One user per VM ever active: demand = peak (CPU GHz, memory GB, disk MB/s, network MB/s)
        over its active samples, present from its first active sample to 300 s after its last;
        source ``vms.attrs["source"]`` (default "real"); VMs never active are skipped and counted in
        ``skipped["never_active"]``.

    Raises
    ------
    InvalidInputError
        When ``vms`` is not a DataFrame or lacks a column.
    """
    as_instance(vms, pd.DataFrame, "vms")
    need = {
        "vm",
        "time",
        "active",
        "cpu_usage_mhz",
        "memory_usage_kb",
        "disk_read_kbps",
        "disk_write_kbps",
        "net_rx_kbps",
        "net_tx_kbps",
    }
    missing = need - set(vms.columns)
    if missing:
        raise InvalidInputError(f"vms: missing columns {sorted(missing)}")
    if len(vms) == 0:
        raise InvalidInputError("vms: no rows")
    check_columns(vms, "vms", sorted(need - {"vm", "active"}))
    if not pd.api.types.is_bool_dtype(vms["active"]) or vms["active"].isna().any():
        raise InvalidInputError(
            f"vms, column 'active': must hold True or False (as read_vm writes it), got dtype "
            f"{vms['active'].dtype}"
        )
    act = vms[vms.active.to_numpy(dtype=bool)]
    frame = pd.DataFrame(
        {
            "vm": act.vm,
            "time": act.time,
            "cpu": act.cpu_usage_mhz / 1000.0,
            "memory": act.memory_usage_kb / 1024**2,
            "storage": (act.disk_read_kbps + act.disk_write_kbps) / 1024.0,
            "network": (act.net_rx_kbps + act.net_tx_kbps) / 1024.0,
        }
    )
    g = frame.groupby("vm", sort=False)
    peak = g[["cpu", "memory", "storage", "network"]].max()
    all_vms = pd.unique(vms.vm)
    return Workload(
        users=peak.index.to_numpy(),
        demand=peak.to_numpy(float),
        arrival=g.time.min().to_numpy(float),
        departure=g.time.max().to_numpy(float) + 300.0,
        resources=("cpu_ghz", "memory_gb", "storage_mbps", "network_mbps"),
        source=vms.attrs.get("source", "real"),
        skipped={"never_active": int(len(all_vms) - len(peak))},
    )
