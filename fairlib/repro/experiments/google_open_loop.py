"""The Google experiment of Khamse-Ashari et al. (§6.2–6.3, Figs. 13–14) in open loop, over its
setups.

The trace notebook's closed-loop replay lets each mechanism decide when a job finishes, so late in
the window mechanisms are compared on different jobs. Here every mechanism allocates the *same*
active sets, taken from the trace (:func:`fairlib.sim.open_loop`), and the comparison is repeated
over the choices the paper leaves open or our copy lost:

- **demand model** — ``"per-interval"``: §6.2 as reconstructed [INF]
  (:func:`fairlib.traces.task_event_demands`: the requests of the tasks running at the start of each
  5-minute interval, a job never given more than that); ``"lifetime"``: the earlier model, one
  demand per job (the sum of all its tasks' requests, :func:`fairlib.traces.google_workload`) held
  from arrival to departure, no cap (a job may absorb any share);
- **class labels** — ``"proportionality"`` (§6.2: A/B near the total's direction serve everyone,
  C/D the heterogeneous ones reserved for latency-sensitive jobs) or ``"frequency"`` (A–D by
  count, the earlier mapping);
- **job sample** — the fraction of jobs and the seed.

Jobs are sampled by job id, so both demand models see the same jobs (the per-interval model drops
jobs with no task running at any interval start). :func:`sensitivity` runs the grid on
:func:`fairlib.sweep.sweep`; :func:`leads` turns it into PS-DSF's lead over the better of DRFH and
TSF.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from ..._validate import (
    MAX_SECONDS,
    InvalidInputError,
    as_identifiers,
    as_instance,
    as_labels,
    as_number,
    as_rng,
    as_time,
    as_values,
    check_choice,
    as_sequence,
    as_table,
    as_label,
)
from ...sweep import sweep

if TYPE_CHECKING:
    from ...multires import Allocation, Cluster
    from ...sim import Jobs
    from ...traces import Fleet

DEMAND_MODELS = ("per-interval", "lifetime")
LABELS = ("proportionality", "frequency")
#: time-averaged columns of :func:`time_averaged` (normalised CPU and RAM, overall and on classes
#: C/D)
UTILISATION = {
    "cpu": "utilisation_cpu_normalised",
    "ram": "utilisation_memory_normalised",
    "cpu_CD": "reserved_utilisation_cpu_normalised",
    "ram_CD": "reserved_utilisation_memory_normalised",
}
#: the columns of an open_loop table that :func:`time_averaged` reads where the table has them: the
#: C/D placement ranges (``ranges=True``), the Definition-4 bounds (``definition4=True``) and
#: Jain's index of dominant shares
_READ_WHERE_PRESENT = (
    *(
        col.replace("utilisation", end)
        for short, col in UTILISATION.items()
        if short.endswith("_CD")
        for end in ("low", "high")
    ),
    *(
        ("psdsf_reserved_" if short.endswith("_CD") else "psdsf_")
        + f"{end}_"
        + col.split("utilisation_")[1]
        for short, col in UTILISATION.items()
        for end in ("low", "high")
    ),
    "jain_dominant_share",
)


def time_averaged(table: pd.DataFrame) -> pd.DataFrame:
    """Per mechanism of an :func:`fairlib.sim.open_loop` table: utilisation averaged over time (each
    epoch weighted by its length; idle epochs count as zero), ``utilisation`` = mean of CPU and RAM
    (the paper's Fig. 13 plots both; we rank by their mean), the same on C/D, the time-averaged
    number of active jobs and Jain's index of dominant shares, and the number of epochs. From a
    table run with ``ranges=True``, also ``cpu_CD_low``/``cpu_CD_high`` and
    ``ram_CD_low``/``ram_CD_high``: the time-averaged lowest and highest C/D utilisation over
    placements of the same per-job totals (epochs are independent, so these bound the average
    exactly). From a table run with ``definition4=True``, also
    ``<measure>_definition4_low``/``_high`` for cpu, ram, cpu_CD and ram_CD: time-averaged certified
    bounds on the utilisation of every allocation meeting PS-DSF's Definition 4 (the same for every
    mechanism).

    Parameters
    ----------
    table : pandas.DataFrame
        An :func:`fairlib.sim.open_loop` table.

    Returns
    -------
    pandas.DataFrame
        One row per mechanism: ``cpu``, ``ram``, ``utilisation``, their ``_CD`` counterparts,
        ``mean_active_jobs``, ``jain_dominant_share``, ``epochs``, and the range and Definition-4
        columns where the table has them.

    Raises
    ------
    InvalidInputError
        When ``table`` is not a DataFrame, a column is missing or holds something other than
        numbers (>= 0 but for the epochs' times; naming the row), or a mechanism's epochs have no
        length.
    """
    # an epoch's start and end are instants of the trace, whose clock may start below 0
    table = as_table(table, "table", ["mechanism"], ["start", "end"])
    present = [c for c in _READ_WHERE_PRESENT if c in table.columns]
    as_table(table, "table", (), ["active_jobs", *UTILISATION.values(), *present], sign=">= 0")
    rows = {}
    for name, part in table.groupby("mechanism", sort=False):
        length = (part.end - part.start).to_numpy(float)
        if not length.sum() > 0:
            raise InvalidInputError(f"table: the epochs of {name!r} have no length")
        w = length / length.sum()
        row = {
            short: float((part[col].to_numpy(float) * w).sum())
            for short, col in UTILISATION.items()
        }
        for (
            short,
            col,
        ) in UTILISATION.items():  # placement ranges, when open_loop ran with ranges=True
            if short.endswith("_CD") and col.replace("utilisation", "low") in part:
                for end in ("low", "high"):
                    values = part[col.replace("utilisation", end)].to_numpy(float)
                    row[f"{short}_{end}"] = float((values * w).sum())
        for (
            short,
            col,
        ) in UTILISATION.items():  # Definition-4 bounds, when open_loop ran with definition4=True
            bound = (
                ("psdsf_reserved_" if short.endswith("_CD") else "psdsf_")
                + "{}_"
                + col.split("utilisation_")[1]
            )
            if bound.format("low") in part:
                for end in ("low", "high"):
                    row[f"{short}_definition4_{end}"] = float(
                        (part[bound.format(end)].to_numpy(float) * w).sum()
                    )
        row["utilisation"] = (row["cpu"] + row["ram"]) / 2
        row["utilisation_CD"] = (row["cpu_CD"] + row["ram_CD"]) / 2
        row["mean_active_jobs"] = float((part.active_jobs.to_numpy(float) * w).sum())
        jain = (
            part.jain_dominant_share.to_numpy(float)
            if "jain_dominant_share" in part
            else np.full(len(part), np.nan)
        )
        seen = ~np.isnan(jain)
        row["jain_dominant_share"] = (
            float((jain[seen] * w[seen]).sum() / w[seen].sum()) if seen.any() else np.nan
        )
        row["epochs"] = len(part)
        rows[name] = row
    return pd.DataFrame(rows).T.rename_axis("mechanism")


def typical_task(task_events: pd.DataFrame) -> float:
    """The median task's dominant request (normalised units) among the tasks of ``task_events`` that
    ever run (SCHEDULE or UPDATE_RUNNING), each task counted once with its last such request: the
    size of one task for :func:`fairlib.multires.drfh_best_fit` on jobs whose demand unit is a whole
    dominant unit (:func:`fairlib.traces.task_event_demands`). Our choice: the per-job task counts
    are not carried into the jobs, so every job's tasks are taken to be this size.

    Parameters
    ----------
    task_events : pandas.DataFrame
        Task events with ``job_id``, ``task_index``, ``event_type``, ``cpu_request`` and
        ``memory_request``.

    Returns
    -------
    float
        The median dominant request, normalised units.

    Raises
    ------
    InvalidInputError
        When ``task_events`` is not a DataFrame, a column is missing, ``event_type`` or a request
        holds something other than numbers >= 0 (naming the row), or no running task requests any
        resource.
    """
    from ...traces.google import _RUNNING_EVENTS

    as_table(
        task_events,
        "task_events",
        ["job_id", "task_index"],
        ["event_type", "cpu_request", "memory_request"],
        sign=">= 0",
    )
    running = task_events[task_events.event_type.isin(_RUNNING_EVENTS)]
    dominant = np.maximum(running.cpu_request.fillna(0.0), running.memory_request.fillna(0.0))
    per_task = dominant.groupby([running.job_id, running.task_index], sort=False).last()
    per_task = per_task[per_task > 0]
    if per_task.empty:
        raise InvalidInputError("task_events: no running task requests any resource")
    return float(per_task.median())


def paper_setup_mechanisms(task: float) -> dict[str, Callable[[Cluster], Allocation]]:
    """The mechanisms of the request-based reconstruction of §6.2: PS-DSF, DRFH and TSF (name ->
    callable of a cluster), and Best-Fit DRFH (:func:`fairlib.multires.drfh_best_fit`, the DRFH
    paper's own scheduler) placing tasks of ``task`` dominant units (:func:`typical_task`).

    Parameters
    ----------
    task : float
        The size of one task in dominant units, > 0.

    Returns
    -------
    dict of str to callable
        ``{"PS-DSF": ..., "DRFH": ..., "TSF": ..., "Best-Fit DRFH": ...}``, each a callable of a
        cluster.
    """
    from ...multires import drfh, drfh_best_fit, psdsf, tsf

    # Best-Fit DRFH steps by this quantum: a task below a millionth of a machine would take millions
    # of steps
    task = as_number(task, "task", minimum=1e-6, inclusive=True, maximum=1.0)
    return {
        "PS-DSF": psdsf,
        "DRFH": drfh,
        "TSF": tsf,
        "DRFH Best-Fit": functools.partial(drfh_best_fit, quantum=float(task)),
    }


def route_mechanisms(
    alphas: Iterable[float],
) -> tuple[dict[str, Callable[[Cluster], Allocation]], dict[str, list[bool]]]:
    """The paper's route to PS-DSF (PF-VDS(α) as α grows, Theorem 2) under the request-based
    reconstruction's per-job caps: ``({"PF-VDS(α)": callable, ..., "PS-DSF": psdsf}, certified)``.
    With caps PF-VDS is our variational equilibrium (:func:`fairlib.multires.pfvds`);
    ``certified[name]`` collects, call by call, whether the allocation was certified (``converged``:
    eq. (16)'s gap over the capped set <= ``CAPPED_GAP`` and no job short of its cap with room left
    on a server it may use, ``CAPPED_SHORTFALL``; PS-DSF: its fixed point's ``converged``), so a
    table built from uncertified allocations says so. Run them on unmerged servers (``open_loop(...,
    merge=False)``): a cap price that every server charges makes the equilibrium depend on each
    server's utility scale, which merging identical servers changes for α != 1.

    Parameters
    ----------
    alphas : iterable of float
        The values of α, finite and > 0, at least one.

    Returns
    -------
    tuple of (dict of str to callable, dict of str to list of bool)
        The mechanisms, and the certificates each call appends to.

    Raises
    ------
    InvalidInputError
        When ``alphas`` is empty, holds a value that is not finite and > 0, or repeats one (to the 6
        significant digits of its label).
    """
    from ...multires import pfvds, psdsf
    from ...multires.cluster import _checked_run

    given = list(as_sequence(alphas, "alphas", what="need an iterable of finite values > 0"))
    checked = as_values(given, "alphas", ndim=1, sign="> 0")
    values = checked.tolist()
    if not values:
        raise InvalidInputError(f"alphas = {given}: need finite values > 0")
    labels = [f"PF-VDS({a:g})" for a in values]
    for i, label in enumerate(labels):
        if label in labels[:i]:
            # the rows are keyed by the label: two α that print alike would share one row
            raise InvalidInputError(
                f"alphas[{i}] = {values[i]!r}: repeats {label} (alphas[{labels.index(label)}] = "
                f"{values[labels.index(label)]!r}); each α once, distinct to 6 significant digits"
            )
    certified: dict[str, list[bool]] = {}

    def recording(name, run):
        def call(cluster):
            result = _checked_run(run, cluster)
            certified.setdefault(name, []).append(bool(result.converged))
            return result

        return call

    runs = {
        f"PF-VDS({a:g})": recording(f"PF-VDS({a:g})", functools.partial(pfvds, alpha=a))
        for a in values
    }
    runs["PS-DSF"] = recording("PS-DSF", psdsf)
    return runs, certified


def sample_ids(
    ids: npt.ArrayLike,
    fraction: float,
    seed: int | np.random.SeedSequence | np.random.Generator,
) -> np.ndarray:
    """A Bernoulli(``fraction``) sample of the unique job ``ids`` (sorted), drawn from ``seed``.

    Parameters
    ----------
    ids : array_like
        Job ids (repeats allowed).
    fraction : float
        Each unique id's chance of being kept, in (0, 1].
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
        Randomness of the draw: the same seed gives the same sample (None, fresh entropy, is
        refused: the sample could not be drawn again).

    Returns
    -------
    numpy.ndarray
        The kept ids, sorted.

    Raises
    ------
    InvalidInputError
        When ``fraction`` is not in (0, 1], ``ids`` are not identifiers or ``seed`` is not a seed
        (None included).
    """
    fraction = as_number(fraction, "fraction", maximum=1.0)
    generator = as_rng(seed, "seed", reproducible=True)
    unique = np.unique(as_identifiers(ids, "ids"))
    return unique[generator.random(unique.size) < fraction]


def _setup_cell(
    seed,
    fraction,
    demand_model,
    labels,
    jobs_by_model,
    fleets,
    mechanisms,
    start,
    horizon,
    interval,
    reserved=("C", "D"),
):
    """One job sample in one demand model on one fleet labelling: one row per mechanism."""
    from ... import sim

    # the sample is drawn over every model's ids, so the models of one (fraction, rep) see the same
    # jobs
    ids = sample_ids(np.concatenate([j.ids for j in jobs_by_model.values()]), fraction, seed)
    all_jobs, fleet = jobs_by_model[demand_model], fleets[labels]
    keep = np.isin(all_jobs.ids, ids)
    if not keep.any():
        raise InvalidInputError(
            f"fraction = {fraction}: the sample holds no job of the {demand_model} model"
        )
    jobs = all_jobs.subset(keep)
    eligible = sim.class_eligibility(fleet, jobs.scheduling_class, reserved=reserved)
    t0 = time.perf_counter()
    table = sim.open_loop(
        fleet,
        jobs,
        mechanisms,
        eligible=eligible,
        start=start,
        horizon=horizon,
        interval=interval,
        reserved=reserved,
        caps=demand_model == "per-interval",
    )
    seconds = time.perf_counter() - t0
    return [
        {"mechanism": name, "jobs": jobs.n_jobs, **row.to_dict(), "seconds": seconds}
        for name, row in time_averaged(table).iterrows()
    ]


def sensitivity(
    jobs_by_model: Mapping[str, Jobs],
    fleets: Mapping[str, Fleet],
    *,
    fractions: Iterable[float] = (0.02, 0.05, 0.10),
    seeds: int = 3,
    rng: int | np.random.SeedSequence = 0,
    mechanisms: Mapping[str, Callable[[Cluster], Allocation]] | None = None,
    start: float | None = None,
    horizon: float | None = None,
    interval: float = 300.0,
    reserved: Iterable[str] = ("C", "D"),
    n_jobs: int | None = None,
    progress: bool = False,
) -> pd.DataFrame:
    """PS-DSF, DRFH and TSF (or ``mechanisms``) in open loop on every (job fraction, seed) × demand
    model × labels; one row per (fraction, rep, demand_model, labels, mechanism) with
    :func:`time_averaged`'s columns, the job count and the open-loop run's seconds (all its
    mechanisms).

    ``jobs_by_model``: demand model name (:data:`DEMAND_MODELS`) -> all jobs in that model
    (:class:`fairlib.sim.Jobs` with segment times); the per-interval model runs capped, the lifetime
    model uncapped. ``fleets``: label mapping (:data:`LABELS`) -> :class:`fairlib.traces.Fleet`. A
    cell's seed depends on its fraction and rep only (:func:`fairlib.sweep.sweep`'s ``seed_by``), so
    every model and mapping of one (fraction, rep) sees the same job ids.

    Parameters
    ----------
    jobs_by_model : dict of str to Jobs
        Demand model name → all jobs in that model, with segment times (see above); at least one.
    fleets : dict of str to Fleet
        Label mapping → fleet (see above); at least one.
    fractions : iterable of float, default (0.02, 0.05, 0.10)
        Fractions of the jobs sampled (:func:`sample_ids`), each in (0, 1]; at least one.
    seeds : int, default 3
        Samples per fraction, >= 1; at most :data:`fairlib.sweep.MAX_CELLS` cells in all.
    rng : int or numpy.random.SeedSequence, default 0
        The sweep's root seed (an integer >= 0 or a SeedSequence).
    mechanisms : dict of str to callable, optional
        Name → callable of a cluster, at least one (default PS-DSF, DRFH, TSF).
    start, horizon : float, optional
        The open loop's first epoch and end, seconds within ±2**53, ``horizon`` more than
        :data:`fairlib.sim.SIMULTANEOUS_S` after ``start`` (default: the sampled jobs' own; the
        check takes the earliest segment start of all the jobs for a missing ``start``).
    interval : float, default 300.0
        Seconds between periodic epochs, from :data:`fairlib.sim.MIN_INTERVAL_S` (1 ms) to 2**53.
    reserved : tuple or list of str, default ("C", "D")
        The server classes §6.2 keeps for the privileged jobs
        (:func:`fairlib.sim.class_eligibility`) and whose utilisation is reported on its own: at
        least one, each a class of every fleet.
    n_jobs : int, optional
        Local processes of the sweep (-1: every core).
    progress : bool, default False
        Show the sweep's progress bar.

    Returns
    -------
    pandas.DataFrame
        One row per (fraction, rep, demand_model, labels, mechanism).

    Raises
    ------
    InvalidInputError
        When an argument has the wrong type or value, naming it: ``jobs_by_model`` or ``fleets``
        empty, naming an unknown model or labelling, or holding something other than jobs with
        segment times or a fleet; a fraction outside (0, 1]; a time out of range; a ``reserved``
        class that a fleet has no server of (checked before any cell runs).
    """
    from ... import sim
    from ...mechanisms import resolve_runs
    from ...multires import drfh, psdsf, tsf
    from ...traces import Fleet

    as_instance(jobs_by_model, Mapping, "jobs_by_model")
    as_instance(fleets, Mapping, "fleets")
    if not jobs_by_model or not fleets:
        raise InvalidInputError("jobs_by_model and fleets: need at least one of each")
    for model, jobs in jobs_by_model.items():
        check_choice(model, DEMAND_MODELS, "jobs_by_model")
        as_instance(jobs, sim.Jobs, f"jobs_by_model[{model!r}]")
        if jobs.segment_start is None:
            raise InvalidInputError(
                f"jobs_by_model[{model!r}]: no segment times (segment_start/segment_end); build "
                "them with fairlib.sim.jobs_from_workload or jobs_from_demands"
            )
    # at least one: the rows report the utilisation of the reserved classes (time_averaged)
    reserved = as_labels(reserved, "reserved", allow_empty=False)
    for labels, fleet in fleets.items():
        check_choice(labels, LABELS, "fleets")
        as_instance(fleet, Fleet, f"fleets[{labels!r}]")
        classes = {str(c) for c in np.asarray(fleet.server_class).tolist()}
        absent = [c for c in reserved if c not in classes]
        if absent:
            raise InvalidInputError(
                f"reserved = {reserved!r}: fleets[{labels!r}] has no server of class "
                f"{', '.join(absent)} (its classes: {sorted(classes)})"
            )
    fractions = list(
        as_sequence(fractions, "fractions", what="need an iterable of fractions in (0, 1]")
    )
    shares = as_values(fractions, "fractions", ndim=1, sign="> 0")
    if shares.size == 0:
        raise InvalidInputError("fractions = []: need at least one fraction in (0, 1]")
    if (shares > 1.0).any():
        i = int(np.argmax(shares > 1.0))
        raise InvalidInputError(f"fractions[{i}] = {shares[i]}: a fraction is in (0, 1]")
    if start is not None:
        start = as_time(start, "start")
    if horizon is not None:
        horizon = as_time(horizon, "horizon")
        # a horizon within SIMULTANEOUS_S of the start leaves no epoch to average
        first = (
            min(float(np.min(np.asarray(jobs.segment_start))) for jobs in jobs_by_model.values())
            if start is None
            else start
        )
        if not horizon - first > sim.SIMULTANEOUS_S:
            raise InvalidInputError(
                f"horizon = {horizon}: must be more than {sim.SIMULTANEOUS_S:g} s after start = "
                f"{first}"
            )
    as_number(interval, "interval", minimum=sim.MIN_INTERVAL_S, inclusive=True, maximum=MAX_SECONDS)
    if mechanisms is None:
        mechanisms = {"PS-DSF": psdsf, "DRFH": drfh, "TSF": tsf}
    else:
        if not isinstance(mechanisms, Mapping):
            raise InvalidInputError(
                f"mechanisms = {mechanisms!r}: expected a dict name -> callable of a cluster"
            )
        mechanisms = resolve_runs(mechanisms)
        if not mechanisms:
            raise InvalidInputError("mechanisms = {}: need at least one mechanism")
    grid: dict[str, list[Any]] = {
        "fraction": [float(f) for f in shares],
        "demand_model": list(jobs_by_model),
        "labels": list(fleets),
    }
    return sweep(
        _setup_cell,
        grid,
        seeds=seeds,
        rng=rng,
        seed_by=("fraction",),
        fixed=dict(
            jobs_by_model=jobs_by_model,
            fleets=fleets,
            mechanisms=mechanisms,
            start=start,
            horizon=horizon,
            interval=interval,
            reserved=reserved,
        ),
        n_jobs=n_jobs,
        progress=progress,
        desc="open-loop setups",
        cache_name="google_open_loop",
    )


def leads(
    grid: pd.DataFrame, *, leader: str = "PS-DSF", others: Iterable[str] = ("DRFH", "TSF")
) -> pd.DataFrame:
    """From :func:`sensitivity`'s rows: per (fraction, rep, demand_model, labels), ``leader``'s
    utilisation minus the best of ``others`` — overall (``lead``), on CPU and RAM, and on classes
    C/D (``lead_CD``) — and the mean number of active jobs. Positive: the leader utilises more.

    Parameters
    ----------
    grid : pandas.DataFrame
        :func:`sensitivity`'s rows.
    leader : str, default "PS-DSF"
        The mechanism whose lead is measured, a mechanism of every setup of ``grid``.
    others : iterable of str, default ("DRFH", "TSF")
        The mechanisms it is measured against: distinct, at least one, each in every setup of
        ``grid``.

    Returns
    -------
    pandas.DataFrame
        One row per (fraction, rep, demand_model, labels): ``lead``, ``lead_cpu``, ``lead_ram``,
        ``lead_CD``, ``mean_active_jobs``, ``jobs``.

    Raises
    ------
    InvalidInputError
        When ``grid`` is not a DataFrame, a column is missing or one read as numbers holds
        something other than numbers >= 0 (naming the row), or ``leader`` or one of ``others`` is
        not text or is missing from a setup.
    """
    keys = ["fraction", "rep", "demand_model", "labels"]
    as_table(
        grid,
        "grid",
        [*keys, "mechanism"],
        ["utilisation", "utilisation_CD", "cpu", "ram", "mean_active_jobs", "jobs"],
        sign=">= 0",
    )
    as_label(leader, "leader")
    others = as_labels(others, "others", allow_empty=False)
    out = []
    for key, part in grid.groupby(keys, sort=True):
        by = part.set_index("mechanism")
        where = dict(zip(keys, key))
        absent = {leader, *others} - set(by.index)
        if absent:
            raise InvalidInputError(
                f"grid: {sorted(absent)} missing at {where} (leader = {leader!r}, others = "
                f"{list(others)})"
            )
        row = where.copy()
        for col, out_col in (
            ("utilisation", "lead"),
            ("cpu", "lead_cpu"),
            ("ram", "lead_ram"),
            ("utilisation_CD", "lead_CD"),
        ):
            row[out_col] = float(by.loc[leader, col] - by.loc[list(others), col].max())
        row["mean_active_jobs"] = float(by.loc[leader, "mean_active_jobs"])
        row["jobs"] = int(by.loc[leader, "jobs"])
        out.append(row)
    return pd.DataFrame(out)
