"""Synthetic traces written in exactly the real formats, so the same loaders read them.

Every folder written here carries a ``SYNTHETIC.md`` marker; the loaders report ``source =
"synthetic"`` for data read from such a folder, and results derived from it must say so.

- :func:`synthetic_bitbrains` — GWA-T-12 VM files (SCHEMAS.md §4.2/§4.4): (cores, memory) from
  the measured joint table of the Rnd trace, per-core MHz 2,600 or 2,926, per-VM mean CPU %
  lognormal (log-mean 0.155, log-sd 2.30), an AR(1) series (φ = 0.6) with a weak daily sinusoid (20
  % of the mean), memory-usage fractions and I/O rates lognormal with the measured medians and 90th
  percentiles. ``fast_storage=True`` emulates the missing fastStorage trace by keeping only VMs
  whose mean CPU exceeds 1 % (an assumption stated in SCHEMAS.md §4.4).
- :func:`synthetic_task_usage` — Google ``task_usage`` from the real task runs (SCHEMAS.md §3.6).
- :func:`synthetic_google` — Google ``task_events`` and ``machine_events`` calibrated to the
  excerpt (SCHEMAS.md §3.3-3.4), for a clone without the real excerpt.
- :func:`synthetic_alibaba` — Alibaba v2018 ``machine_meta`` (96 cores, memory 100, as every real
  row) and v2017 ``batch_task`` (instances per task, CPU plans of 50 or 100 hundredths of a core,
  memory plans with the excerpt's median), for a clone without the real excerpt.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._validate import (
    Seed,
    as_flag,
    InvalidInputError,
    as_count,
    as_number,
    as_rng,
    as_values,
    check_choice,
)
from ._source import SYNTHETIC_MARKER, trace_folder
from .bitbrains import BITBRAINS_COLUMNS, RND_MONTHS, bitbrains_dir, write_vm

__all__ = [
    "synthetic_bitbrains",
    "synthetic_task_usage",
    "synthetic_google",
    "synthetic_alibaba",
    "real_or_synthetic",
    "STAND_IN_SIZES",
]


# SCHEMAS.md §4.2: VM-months by provisioned cores (rows) and memory bin (columns, upper bounds in
# GB)
_CORES = np.array([1, 2, 4, 6, 8, 16, 32])
_MEM_EDGES = np.array([0.125, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64, 128])
_JOINT = np.array(
    [
        [220, 80, 92, 112, 177, 3, 2, 0, 0, 0],
        [0, 0, 9, 17, 93, 152, 11, 0, 0, 0],
        [0, 2, 1, 30, 88, 29, 184, 12, 0, 0],
        [0, 0, 0, 0, 0, 0, 3, 3, 0, 0],
        [0, 0, 0, 0, 12, 6, 3, 108, 39, 0],
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 3],
        [0, 0, 0, 0, 0, 1, 5, 0, 0, 3],
    ],
    dtype=float,
)
_Z90 = 1.2815515655446004


def _lognormal(rng, median, p90, size):
    return median * np.exp(rng.normal(0.0, np.log(p90 / median) / _Z90, size))


# The caps on the generators' size arguments: the work and memory of a call grow with them, so each
# is bounded where a call still finishes in minutes on a laptop (the refusal names the argument, its
# value and the cap).
#: at most this many VMs per synthetic Bitbrains month: the fastStorage trace, the larger of
#: GWA-T-12's two, has 1,250
MAX_VMS = 1_250
#: at most this many days of 5-minute samples per VM: one month folder (``rnd/<month>``) holds one
#: month
MAX_DAYS = 31.0
#: at most this many hours of synthetic Google trace: a month (the real clusterdata-2011-2 trace
#: spans 29 days)
MAX_HOURS = 744.0
#: at most this many jobs expected (``initial_jobs + hours × jobs_per_hour``), ten times the
#: excerpt's ~10,000
MAX_JOBS = 100_000
#: at most this ``machine_scale``: 100 times the excerpt's 14,583 machines is 1,458,300 rows of
#: machine_events
MAX_MACHINE_SCALE = 100.0


def synthetic_bitbrains(
    dest: os.PathLike[str] | str | None = None,
    n_vms: int = 150,
    rng: int | np.random.Generator | np.random.SeedSequence | None = None,
    *,
    month: str = "2013-8",
    days: float = 30.0,
    start: int = 1375308120,
    fast_storage: bool = False,
) -> Path:
    """Write ``n_vms`` synthetic VM files in the GWA-T-12 format, and the synthetic marker.

    Deterministic for a seed. Each file holds at least one sample, however small ``days``. The work
    grows with ``n_vms`` × ``days``, so both are capped; a value outside is refused by name before
    anything is written.

    Parameters
    ----------
    dest : str or os.PathLike, optional
        The Bitbrains folder (default :func:`~fairlib.traces.bitbrains.bitbrains_dir`); files go to
        ``<dest>/rnd/<month>/<i>.csv.gz``.
    n_vms : int, default 150
        Number of VMs, 1 to :data:`MAX_VMS` (1,250).
    rng : int, numpy.random.Generator, numpy.random.SeedSequence or None, optional
        Seed or generator.
    month : str, default "2013-8"
        One of the Rnd trace's months (:data:`~fairlib.traces.bitbrains.RND_MONTHS`).
    days : float, default 30.0
        Days of 5-minute samples, > 0 and at most :data:`MAX_DAYS` (31, one month folder).
    start : int, default 1375308120
        First sample's time, Unix seconds, >= 0 (the files hold whole seconds, read back as float64,
        so at most 2**53).
    fast_storage : bool, default False
        Emulate the missing fastStorage trace by keeping only VMs whose mean CPU exceeds 1 % (an
        assumption stated in SCHEMAS.md §4.4).

    Returns
    -------
    pathlib.Path
        The month folder, ``<dest>/rnd/<month>``.

    Raises
    ------
    InvalidInputError
        When an argument is out of range, naming it, its value and the cap.
    """
    fast_storage = as_flag(fast_storage, "fast_storage")
    n_vms = as_count(n_vms, "n_vms", maximum=MAX_VMS)
    rng = as_rng(rng)
    check_choice(month, RND_MONTHS, "month")
    as_number(days, "days", maximum=MAX_DAYS)
    as_count(start, "start", minimum=0, maximum=2**53)
    # dest is checked by trace_folder (a path, not a file), before any folder is made
    root = trace_folder("bitbrains_gwa_t12", dest, "dest") if dest is not None else bitbrains_dir()
    folder = root / "rnd" / month
    folder.mkdir(parents=True, exist_ok=True)
    (root / SYNTHETIC_MARKER).write_text(
        "# Synthetic Bitbrains GWA-T-12 data\n\nWritten by "
        "`fairlib.traces.synthetic.synthetic_bitbrains`; not real measurements. Results "
        "derived from these files must be labelled synthetic.\n"
    )
    steps = max(1, int(days * 288))
    t = start + 300 * np.arange(steps)
    flat = _JOINT.ravel() / _JOINT.sum()
    for vm in range(1, n_vms + 1):
        cell = rng.choice(flat.size, p=flat)
        cores = float(_CORES[cell // _JOINT.shape[1]])
        lo, hi = _MEM_EDGES[cell % _JOINT.shape[1]], _MEM_EDGES[cell % _JOINT.shape[1] + 1]
        mem_gb = float(np.exp(rng.uniform(np.log(lo), np.log(hi))))
        mhz = float(rng.choice([2600.0, 2926.0]))
        mean_cpu = float(np.exp(rng.normal(0.155, 2.30)))
        while fast_storage and mean_cpu <= 1.0:
            mean_cpu = float(np.exp(rng.normal(0.155, 2.30)))
        mean_cpu = min(mean_cpu, 95.0)
        noise = np.empty(steps)
        noise[0] = rng.normal()
        shocks = rng.normal(size=steps) * np.sqrt(1 - 0.6**2)
        for k in range(1, steps):
            noise[k] = 0.6 * noise[k - 1] + shocks[k]
        daily = 0.2 * np.sin(2 * np.pi * (t - t[0]) / 86_400 + rng.uniform(0, 2 * np.pi))
        cpu_pct = np.clip(mean_cpu * (1 + daily + 0.5 * noise), 0.0, 100.0)
        mem_frac = float(np.clip(_lognormal(rng, 0.056, 0.29, 1)[0], 0.001, 1.0))
        mem_pct = np.clip(mem_frac * (1 + 0.05 * rng.normal(size=steps)), 0.0, 1.0)
        capacity_kb = mem_gb * 1024**2
        io = {
            name: _lognormal(rng, median, p90, 1)[0] * np.abs(1 + 0.3 * rng.normal(size=steps))
            for name, median, p90 in (
                ("disk_read_kbps", 0.46, 34.0),
                ("disk_write_kbps", 8.2, 113.0),
                ("net_rx_kbps", 3.8, 142.0),
                ("net_tx_kbps", 1.8, 71.0),
            )
        }
        frame = pd.DataFrame(
            {
                "time": t,
                "cpu_cores": cores,
                "cpu_capacity_mhz": cores * mhz,
                "cpu_usage_mhz": cpu_pct / 100 * cores * mhz,
                "cpu_usage_pct": cpu_pct,
                "memory_capacity_kb": capacity_kb,
                "memory_usage_kb": mem_pct * capacity_kb,
                **io,
            }
        )
        write_vm(folder / f"{vm}.csv.gz", frame[BITBRAINS_COLUMNS])
    return folder


_SCHEDULE = 1
_RUN_ENDS = (2, 3, 4, 5, 6)  # EVICT, FAIL, FINISH, KILL, LOST
_WINDOW_US = 300_000_000
_OFFSET_US = 600_000_000


def synthetic_task_usage(
    dest: os.PathLike[str] | str | None = None,
    rng: int | np.random.Generator | np.random.SeedSequence | None = None,
    *,
    parts: Iterable[int] = range(5),
    source_directory: os.PathLike[str] | str | None = None,
    job_fraction: float = 0.02,
    cpu_fraction: npt.ArrayLike = (0.3, 0.8),
    memory_fraction: npt.ArrayLike = (4.0, 2.0),
) -> Path:
    """Write a synthetic Google ``task_usage`` (20 columns, headerless gzip) from the real task
    runs.

    The recipe of SCHEMAS.md §3.6: every task run of a random ``job_fraction`` of the jobs in the
    ``task_events`` parts (SCHEDULE on machine M until EVICT/FAIL/FINISH/KILL/LOST or the end of the
    excerpt) gets one row per 300 s window aligned at k·300 s + 600 s. CPU rate = min(request ·
    U_c, capacity of M) with U_c lognormal per task times a per-window lognormal wobble (σ 0.1;
    independent across windows — the recipe's AR(1) wobble is simplified); canonical memory =
    request · U_m with U_m ~ Beta(``memory_fraction``) per task; assigned memory = request; maximum
    CPU = CPU · (1 + |N(0, 0.3)|); sampled CPU = CPU · lognormal(0, 0.3); the other columns small
    positive noise; sample portion 1, aggregation type 0. **The usage-to-request fractions are
    assumptions** (SCHEMAS.md §3.6), and results built on this table must say synthetic. Rows go to
    part files by window start, following the source parts' time ranges. Refused: ``job_fraction``
    outside (0, 1], a ``cpu_fraction`` median <= 0 or log-sd < 0, Beta parameters
    ``memory_fraction`` <= 0, ``parts`` that are not task_events part numbers, or that would hold no
    row (the readers refuse an empty part; nothing is written then).

    Parameters
    ----------
    dest : str or os.PathLike, optional
        The Google folder written into (default :func:`~fairlib.traces.google.google_dir`): rows go
        to ``<dest>/task_usage/part-NNNNN-of-00500.csv.gz``, and the synthetic marker to ``<dest>``.
    rng : int, numpy.random.Generator, numpy.random.SeedSequence or None, optional
        Seed or generator.
    parts : iterable of int, default range(5)
        The task_events part numbers read (and written).
    source_directory : str or os.PathLike, optional
        Where the real ``task_events`` and ``machine_events`` are read (default: the Google folder
        found).
    job_fraction : float, default 0.02
        Fraction of the jobs kept, in (0, 1]; a fraction that keeps none of the parts' jobs is
        refused.
    cpu_fraction : array_like of 2 floats, default (0.3, 0.8)
        Median (> 0) and log-sd (>= 0) of the per-task CPU usage fraction U_c.
    memory_fraction : array_like of 2 floats, default (4.0, 2.0)
        Beta parameters (both > 0) of the per-task memory usage fraction U_m.

    Returns
    -------
    pathlib.Path
        The task_usage folder.

    Raises
    ------
    InvalidInputError
        When an argument is out of range or ``parts`` are not task_events part numbers.
    FileNotFoundError
        When the real task_events or machine_events are not found.
    """
    from .google import (
        _part_numbers,
        _write_part,
        google_dir,
        read_machine_events,
        read_task_events,
    )

    rng = as_rng(rng)
    parts = _part_numbers(parts)
    if source_directory is not None:
        trace_folder("google_clusterdata_2011_2", source_directory, "source_directory")
    as_number(job_fraction, "job_fraction", maximum=1.0)
    cpu_fraction = as_values(cpu_fraction, "cpu_fraction", ndim=1, shape=(2,))
    if not cpu_fraction[0] > 0:
        raise InvalidInputError(
            f"cpu_fraction[0] = {cpu_fraction[0]}: the median usage fraction must be > 0"
        )
    memory_fraction = as_values(memory_fraction, "memory_fraction", ndim=1, shape=(2,), sign="> 0")
    cols = [
        "time",
        "job_id",
        "task_index",
        "machine_id",
        "event_type",
        "cpu_request",
        "memory_request",
    ]
    per_part = [read_task_events([p], directory=source_directory, columns=cols) for p in parts]
    part_end = np.array([int(f.time.max()) for f in per_part])
    ev = pd.concat(per_part, ignore_index=True)
    jobs = np.sort(ev.job_id.unique())
    kept = jobs[rng.random(len(jobs)) < job_fraction]
    if not kept.size:
        raise InvalidInputError(
            f"job_fraction = {job_fraction!r}: keeps none of the {len(jobs)} jobs of parts "
            f"{list(parts)}"
        )
    ev = ev[ev.job_id.isin(kept)]
    try:
        machines = read_machine_events(directory=source_directory).dropna(subset=["cpus"])
        cpu_cap = machines.sort_values("time", kind="stable").groupby("machine_id").cpus.last()
    except FileNotFoundError:
        cpu_cap = pd.Series(dtype=float)
    requests = ev[ev.event_type == 0][
        ["time", "job_id", "task_index", "cpu_request", "memory_request"]
    ]
    runs = (
        ev[ev.event_type == _SCHEDULE][["time", "job_id", "task_index", "machine_id"]]
        .rename(columns={"time": "start"})
        .sort_values("start", kind="stable")
    )
    ends = ev[ev.event_type.isin(_RUN_ENDS)][["time", "job_id", "task_index"]].rename(
        columns={"time": "end"}
    )
    runs = pd.merge_asof(
        runs,
        ends.sort_values("end", kind="stable"),
        left_on="start",
        right_on="end",
        by=["job_id", "task_index"],
        direction="forward",
    )
    runs = pd.merge_asof(
        runs,
        requests.sort_values("time", kind="stable").rename(columns={"time": "req_time"}),
        left_on="start",
        right_on="req_time",
        by=["job_id", "task_index"],
        direction="backward",
    )
    runs = runs.dropna(subset=["cpu_request", "memory_request", "machine_id"])
    runs = runs[(runs.cpu_request > 0) | (runs.memory_request > 0)]
    horizon = int(part_end.max())
    start = runs.start.to_numpy(np.int64)
    end = np.minimum(np.nan_to_num(runs.end.to_numpy(float), nan=horizon), horizon).astype(np.int64)
    first = np.maximum(start - _OFFSET_US, 0) // _WINDOW_US
    last = np.maximum(end - 1 - _OFFSET_US, 0) // _WINDOW_US
    count = np.maximum(last - first + 1, 0) * (end > start)
    row_run = np.repeat(np.arange(len(runs)), count)
    k = first[row_run] + (np.arange(row_run.size) - np.repeat(np.cumsum(count) - count, count))
    w_start = np.maximum(k * _WINDOW_US + _OFFSET_US, start[row_run])
    w_end = np.minimum((k + 1) * _WINDOW_US + _OFFSET_US, end[row_run])
    n_runs, n_rows = len(runs), row_run.size
    u_cpu = cpu_fraction[0] * np.exp(rng.normal(0.0, cpu_fraction[1], n_runs))
    u_mem = rng.beta(memory_fraction[0], memory_fraction[1], n_runs)
    cap = runs.machine_id.map(cpu_cap).fillna(1.0).to_numpy(float)
    cpu = np.minimum(
        runs.cpu_request.to_numpy(float)[row_run]
        * u_cpu[row_run]
        * np.exp(rng.normal(0, 0.1, n_rows)),
        cap[row_run],
    )
    mem_req = runs.memory_request.to_numpy(float)[row_run]
    mem = mem_req * u_mem[row_run]
    small = lambda scale: scale * rng.random(n_rows)  # noqa: E731 - positive noise columns
    table = pd.DataFrame(
        {
            "start_time": w_start,
            "end_time": w_end,
            "job_id": runs.job_id.to_numpy(np.int64)[row_run],
            "task_index": runs.task_index.to_numpy(np.int64)[row_run],
            "machine_id": runs.machine_id.to_numpy(np.int64)[row_run],
            "cpu_rate": cpu,
            "canonical_memory": mem,
            "assigned_memory": mem_req,
            "unmapped_page_cache": small(1e-4),
            "total_page_cache": small(1e-3),
            "maximum_memory": mem * (1 + np.abs(rng.normal(0, 0.1, n_rows))),
            "disk_io_time": small(1e-3),
            "local_disk_space": small(1e-4),
            "maximum_cpu_rate": cpu * (1 + np.abs(rng.normal(0, 0.3, n_rows))),
            "maximum_disk_io_time": small(1e-2),
            "cpi": 1 + small(2.0),
            "mai": small(1e-2),
            "sample_portion": 1.0,
            "aggregation_type": 0,
            "sampled_cpu_usage": cpu * np.exp(rng.normal(0, 0.3, n_rows)),
        }
    )
    # a run that ended before the trace window opens (600 s) has no window of its own: no row for it
    table = table[table.end_time > table.start_time]
    table = table.sort_values(["start_time", "job_id", "task_index"], kind="stable")
    which = np.searchsorted(part_end, table.start_time.to_numpy(), side="left").clip(
        0, len(parts) - 1
    )
    empty = [p for j, p in enumerate(parts) if not (which == j).any()]
    if empty:  # checked before any file is written: the readers refuse an empty part
        raise InvalidInputError(
            f"parts: {empty} would hold no task_usage rows (no task run of the sampled jobs "
            "in their "
            "time range after the window opens at 600 s)"
        )
    # dest is checked by trace_folder (a path, not a file), before any folder is made
    root = (
        trace_folder("google_clusterdata_2011_2", dest, "dest")
        if dest is not None
        else google_dir()
    )
    folder = root / "task_usage"
    folder.mkdir(parents=True, exist_ok=True)
    (root / SYNTHETIC_MARKER).write_text(
        "# Synthetic Google task_usage\n\nWritten by "
        "`fairlib.traces.synthetic.synthetic_task_usage` from the real task_events runs; "
        "usage-to-request fractions are assumptions. Results derived from it must be "
        "labelled synthetic. (The other tables in this folder, if any, are whatever was "
        "placed here.)\n"
    )
    for j, p in enumerate(parts):
        _write_part(folder / f"part-{p:05d}-of-00500.csv.gz", table[which == j], "task_usage")
    return folder


# SCHEMAS.md §3.3: the machine configurations of the excerpt (count, CPU, memory), normalised units
_MACHINE_CONFIGURATIONS = (
    (6732, 0.5, 0.4995),
    (3863, 0.5, 0.2493),
    (1001, 0.5, 0.749),
    (795, 1.0, 1.0),
    (126, 0.25, 0.2498),
    (52, 0.5, 0.1241),
    (5, 0.5, 0.03085),
    (5, 0.5, 0.9678),
    (3, 1.0, 0.5),
    (1, 0.5, 0.06158),
)
# SCHEMAS.md §3.4: SUBMIT rows by scheduling class and by priority; task run outcomes; run length
# quantiles
_CLASS_P = np.array([207_439, 45_257, 77_781, 29_153], float)
_PRIORITIES = np.array([0, 1, 2, 8, 9, 10, 11])
_PRIORITY_P = np.array([119_072, 31_522, 144_822, 4_943, 51_801, 915, 6_555], float)
_END_TYPES = np.array([4, 5, 2, 3])  # FINISH, KILL, EVICT, FAIL
_END_P = np.array([0.63, 0.28, 0.046, 0.039]) / 0.995  # as published: 99.5 %


def synthetic_google(
    dest: os.PathLike[str] | str | None = None,
    rng: int | np.random.Generator | np.random.SeedSequence | None = None,
    *,
    hours: float = 7.1,
    initial_jobs: int = 3_981,
    jobs_per_hour: float = 837.0,
    max_tasks: int = 1_000,
    parts: int = 5,
    machine_scale: float = 1.0,
) -> Path:
    """Write a synthetic Google clusterdata-2011-2 folder (``task_events`` parts and
    ``machine_events``) in the real formats.

    Calibrated to the excerpt's statistics (SCHEMAS.md §3.3–3.4). ``initial_jobs`` jobs are
    present at t = 0 (the trace's initial snapshot), then jobs arrive as a Poisson process at
    ``jobs_per_hour`` from 600 s to ``hours``. Per job: tasks lognormal (median 1, 90th percentile
    25, at most ``max_tasks``), one (CPU, memory) request shared by its tasks
    (:func:`~fairlib.traces.google.synthetic_task_requests`), scheduling class and priority with the
    excerpt's SUBMIT frequencies. Per task: SUBMIT, SCHEDULE 1-30 s later (at once at t = 0) on a
    random machine, and an end event (FINISH 63 %, KILL 28 %, EVICT 4.6 %, FAIL 3.9 %) after a
    lognormal run (median 261 s, 90th percentile 2,846 s) unless it falls after the window
    (censored, as in the excerpt). Rows go to ``parts`` part files by equal time spans. Machines:
    the excerpt's configuration counts × ``machine_scale``, all added at t = 0. **Not real data**:
    the folder carries the synthetic marker and everything read from it reports ``source =
    "synthetic"``. Deterministic for a seed. The work and memory grow with the number of jobs and of
    machines, so the sizes are capped.

    Parameters
    ----------
    dest : str or os.PathLike, optional
        The folder to write (default ``<trace dir>/google_clusterdata_2011_2``).
    rng : int, numpy.random.Generator, numpy.random.SeedSequence or None, optional
        Seed or generator.
    hours : float, default 7.1
        End of the window, hours; above 1/6 (the window opens at 600 s) and at most
        :data:`MAX_HOURS` (744, a month).
    initial_jobs : int, default 3981
        Jobs present at t = 0, >= 0.
    jobs_per_hour : float, default 837.0
        Arrival rate, >= 0; ``initial_jobs + hours × jobs_per_hour`` (the jobs expected) is at most
        :data:`MAX_JOBS` (100,000, ten times the excerpt).
    max_tasks : int, default 1000
        Most tasks per job, >= 1 (tasks per job are lognormal whatever ``max_tasks``: about 17 per
        job on average at the default, at most 24 for any, so it needs no cap of its own).
    parts : int, default 5
        Part files of ``task_events``, 1 to 500.
    machine_scale : float, default 1.0
        Multiplies the excerpt's machine counts, > 0 and at most :data:`MAX_MACHINE_SCALE` (100,
        1,458,300 machines).

    Returns
    -------
    pathlib.Path
        The folder written.

    Raises
    ------
    InvalidInputError
        When an argument is out of range, naming it, its value and the cap.

    Examples
    --------
    >>> synthetic_google(machine_scale=10598.0)
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: machine_scale = 10598.0: must be a finite number > 0.0 and
    <= 100.0
    """
    from .google import _write_part, google_dir, synthetic_task_requests

    # the values themselves are used below, not the checked copies: the marker text shows them as
    # given
    rng = as_rng(rng)
    checked_hours = as_number(hours, "hours", minimum=600 / 3600, maximum=MAX_HOURS)
    as_count(initial_jobs, "initial_jobs", minimum=0, maximum=MAX_JOBS)
    rate = as_number(jobs_per_hour, "jobs_per_hour", inclusive=True)
    expected = initial_jobs + checked_hours * rate
    if not expected <= MAX_JOBS:
        raise InvalidInputError(
            f"jobs_per_hour = {rate!r} with hours = {checked_hours!r} and initial_jobs = "
            f"{initial_jobs}: {initial_jobs} + {checked_hours!r} × {rate!r} = {expected:.6g} "
            f"jobs expected, at most {MAX_JOBS}"
        )
    as_count(max_tasks, "max_tasks")
    as_count(parts, "parts", maximum=500)
    as_number(machine_scale, "machine_scale", maximum=MAX_MACHINE_SCALE)
    # dest is checked by trace_folder (a path, not a file), before any folder is made
    folder = (
        trace_folder("google_clusterdata_2011_2", dest, "dest")
        if dest is not None
        else google_dir()
    )
    end_us = int(hours * 3600e6)
    # machines
    counts = [max(1, int(round(c * machine_scale))) for c, _, _ in _MACHINE_CONFIGURATIONS]
    cpus = np.repeat([c for _, c, _ in _MACHINE_CONFIGURATIONS], counts)
    memory = np.repeat([m for _, _, m in _MACHINE_CONFIGURATIONS], counts)
    machine_ids = 1_000_000 + np.arange(len(cpus))
    (folder / "machine_events").mkdir(parents=True, exist_ok=True)
    machines = pd.DataFrame(
        {
            "time": 0,
            "machine_id": machine_ids,
            "event_type": 0,
            "platform_id": "synthetic",
            "cpus": cpus,
            "memory": memory,
        }
    )
    _write_part(
        folder / "machine_events" / "part-00000-of-00001.csv.gz",
        machines,
        "machine_events",
        float_format="%.10g",
    )
    # jobs
    arrivals = 600e6 + np.cumsum(
        rng.exponential(3600e6 / jobs_per_hour, size=int(hours * jobs_per_hour * 1.5) + 10)
        if jobs_per_hour > 0
        else np.array([np.inf])
    )
    arrivals = arrivals[arrivals < end_us]
    submit = np.concatenate([np.zeros(initial_jobs), np.floor(arrivals)]).astype(np.int64)
    n_jobs = len(submit)
    tasks = np.minimum(
        np.floor(np.exp(rng.normal(0.0, np.log(25) / _Z90, n_jobs))), max_tasks
    ).astype(np.int64)
    tasks = np.maximum(tasks, 1)
    requests = synthetic_task_requests(rng, n_jobs)
    cls = rng.choice(4, size=n_jobs, p=_CLASS_P / _CLASS_P.sum())
    priority = rng.choice(_PRIORITIES, size=n_jobs, p=_PRIORITY_P / _PRIORITY_P.sum())
    # tasks
    job_of = np.repeat(np.arange(n_jobs), tasks)
    task_index = np.arange(len(job_of)) - np.repeat(np.cumsum(tasks) - tasks, tasks)
    t_submit = submit[job_of]
    delay = np.where(t_submit == 0, 0, rng.integers(1, 31, size=len(job_of)) * 1_000_000)
    t_start = t_submit + delay
    run = (
        np.maximum(1, np.round(_lognormal(rng, 261.0, 2846.0, len(job_of)))).astype(np.int64)
        * 1_000_000
    )
    t_end = t_start + run
    end_type = rng.choice(_END_TYPES, size=len(job_of), p=_END_P)
    machine = rng.choice(machine_ids, size=len(job_of))
    started, ended = t_start < end_us, t_end < end_us
    job_ids = 6_000_000_000 + np.arange(n_jobs, dtype=np.int64)

    def rows(times, event, mask, placed):
        j = job_of[mask]
        return pd.DataFrame(
            {
                "time": times[mask],
                "missing": "",
                "job_id": job_ids[j],
                "task_index": task_index[mask],
                "machine_id": machine[mask] if placed else "",
                "event_type": event,
                "user": "user" + pd.Series(j % 530).astype(str).to_numpy(),
                "scheduling_class": cls[j],
                "priority": priority[j],
                "cpu_request": np.round(requests[j, 0], 6),
                "memory_request": np.round(requests[j, 1], 6),
                "disk_request": 0.0002,
                "different_machines": 0,
            }
        )

    every = np.ones(len(job_of), bool)
    frames = [
        rows(t_submit, 0, every, False),
        rows(t_start, 1, started, True),
        rows(t_end, end_type[ended], ended, True),
    ]
    events = pd.concat(frames, ignore_index=True).sort_values("time", kind="stable")
    edges = np.linspace(0, end_us, parts + 1)
    part_of = np.clip(
        np.searchsorted(edges, events.time.to_numpy(), side="right") - 1, 0, parts - 1
    )
    (folder / "task_events").mkdir(parents=True, exist_ok=True)
    for p in range(parts):
        _write_part(
            folder / "task_events" / f"part-{p:05d}-of-00500.csv.gz",
            events[part_of == p],
            "task_events",
            float_format="%.10g",
        )
    (folder / SYNTHETIC_MARKER).write_text(
        "# Synthetic Google clusterdata-2011-2 data\n\nWritten by "
        "`fairlib.traces.synthetic.synthetic_google` "
        f"(hours = {hours}, initial jobs = {initial_jobs}, {jobs_per_hour} jobs/h, {n_jobs} "
        f"jobs, {len(job_of)} "
        "tasks); not real data. Results derived from these files must be labelled synthetic.\n"
    )
    return folder


#: sizes of the synthetic stand-ins written when a notebook finds no real excerpt, by mode
#: the most machines and tasks :func:`synthetic_alibaba` writes (the v2018 cell has 4,034 machines;
#: the v2017 batch_task excerpt 80,553 tasks)
MAX_ALIBABA_MACHINES, MAX_ALIBABA_TASKS = 100_000, 1_000_000


def synthetic_alibaba(
    dest: str | os.PathLike[str] | None = None,
    rng: Seed | None = None,
    *,
    n_machines: int = 4034,
    n_tasks: int = 20_000,
) -> Path:
    """Write a synthetic Alibaba folder (``dest``, default ``data/traces/alibaba_clusterdata``) in
    the real formats: ``cluster-trace-v2018/machine_meta.csv.gz`` (``n_machines`` machines of 96
    cores and memory 100, every one ``USING`` at time 0, as in the real table) and
    ``cluster-trace-v2017/batch_task.csv.gz`` (``n_tasks`` tasks over 12 hours with the header line
    of the shared excerpt), and the marker. Returns the folder.

    Tasks: creation uniform over the 12 hours, durations lognormal (median 10 minutes), instances
    lognormal (median 20, at most 5,000), CPU plan 50 or 100 hundredths of a core, memory plan
    lognormal around the excerpt's median 0.0054 (SCHEMAS.md §5); about one in ten with no plan, as
    in the excerpt. Deterministic for a seed; label results synthetic.

    Parameters
    ----------
    dest : path-like, optional
        The folder to write (default: ``alibaba_clusterdata`` under
        :func:`fairlib.paths.trace_dir`).
    rng : int, numpy.random.Generator, numpy.random.SeedSequence or None, default None
        Randomness; None: fresh OS entropy, a different draw on every call (pass an integer to
        repeat it).
    n_machines : int
        Machines, from 1 to :data:`MAX_ALIBABA_MACHINES` (100,000).
    n_tasks : int
        Batch tasks, from 1 to :data:`MAX_ALIBABA_TASKS` (1,000,000).

    Returns
    -------
    pathlib.Path
        The folder written.
    """
    import gzip

    from .. import paths

    n_machines = as_count(n_machines, "n_machines", maximum=MAX_ALIBABA_MACHINES)
    n_tasks = as_count(n_tasks, "n_tasks", maximum=MAX_ALIBABA_TASKS)
    rng = as_rng(rng)
    # dest is checked by trace_folder (a path, not a file), before any folder is made
    # never the folder a real excerpt was found in: the default is the fetch target, data/traces
    root = (
        trace_folder("alibaba_clusterdata", dest, "dest")
        if dest is not None
        else paths.trace_dir() / "alibaba_clusterdata"
    )
    (root / "cluster-trace-v2018").mkdir(parents=True, exist_ok=True)
    (root / "cluster-trace-v2017").mkdir(parents=True, exist_ok=True)
    (root / SYNTHETIC_MARKER).write_text(
        "# Synthetic Alibaba cluster-trace data\n\nWritten by "
        "`fairlib.traces.synthetic.synthetic_alibaba`; not real records. Results derived "
        "from these files must be labelled synthetic.\n"
    )
    domains = rng.integers(0, 300, n_machines)
    meta = "".join(f"m_{i + 1},0,{domains[i]},{i % 20},96,100,USING\n" for i in range(n_machines))
    with gzip.open(
        root / "cluster-trace-v2018" / "machine_meta.csv.gz", "wt", compresslevel=9
    ) as f:
        f.write(meta)
    create = np.sort(rng.integers(0, 12 * 3600, n_tasks))
    end = create + np.maximum(1, np.round(_lognormal(rng, 600.0, 3600.0, n_tasks))).astype(np.int64)
    instances = np.clip(np.round(_lognormal(rng, 20.0, 400.0, n_tasks)), 1, 5000).astype(np.int64)
    cpu = rng.choice([50, 100], n_tasks)
    memory = np.clip(_lognormal(rng, 0.0054, 0.02, n_tasks), 1e-4, 0.12)
    unplanned = rng.random(n_tasks) < 0.1
    job = np.cumsum(rng.random(n_tasks) < 0.2) + 1
    lines = [
        "task_create_time, task_end_time, job_id, task_id,number_of_instances, status, "
        "number_of_cpus_requested_per_instance_in_the_task,normalized_memory_requested_per_in"
        "stance_in_the_task\n"
    ]
    for k in range(n_tasks):
        plan = "," if unplanned[k] else f"{cpu[k]},{memory[k]:.9f}"
        lines.append(f"{create[k]},{end[k]},{job[k]},{k + 1},{instances[k]},Terminated,{plan}\n")
    (root / "cluster-trace-v2017" / "batch_task.csv.gz").write_bytes(
        gzip.compress("".join(lines).encode(), compresslevel=9, mtime=0)
    )
    return root


STAND_IN_SIZES: dict[str, dict[str, dict[str, Any]]] = {
    "full": {
        "bitbrains": dict(n_vms=150, days=30.0),
        "google": dict(hours=7.1),
        "alibaba": dict(n_machines=4034, n_tasks=20_000),
    },
    "quick": {
        "bitbrains": dict(n_vms=150, days=2.0),
        "alibaba": dict(n_machines=400, n_tasks=2_000),
        "google": dict(
            hours=2.5, initial_jobs=1_000, jobs_per_hour=837.0, max_tasks=200, machine_scale=0.1
        ),
    },
}


def real_or_synthetic(name: str, *, mode: str = "full", seed: int = 0) -> Path:
    """The trace folder a notebook should read for ``name``: the real excerpt, else a synthetic
    stand-in.

    Fetch the real data first with ``python -m fairlib.traces.fetch --notebooks``.

    Parameters
    ----------
    name : {"google", "bitbrains", "alibaba"}
        The trace.
    mode : {"full", "quick"}, default "full"
        The stand-in's size (:data:`STAND_IN_SIZES`).
    seed : int, default 0
        The stand-in's seed, >= 0 (checked whether or not the real excerpt is found).

    Returns
    -------
    pathlib.Path
        The real excerpt when :func:`fairlib.paths.find_traces` finds it (``$FAIRLIB_TRACE_DIR``,
        ``data/traces``, ``../shared/data/traces``, in that order); otherwise a synthetic stand-in
        in the real formats (:func:`synthetic_google` / :func:`synthetic_bitbrains` /
        :func:`synthetic_alibaba`, sizes :data:`STAND_IN_SIZES`), written once under
        ``build/synthetic_traces/<mode>/seed<seed>/`` and marked, so everything read from it reports
        ``source = "synthetic"``.

    Raises
    ------
    InvalidInputError
        When ``name`` or ``mode`` is unknown or ``seed`` negative.
    """
    from .. import paths

    check_choice(name, ("google", "bitbrains", "alibaba"), "name")
    check_choice(mode, STAND_IN_SIZES, "mode")
    # checked before the lookup so a bad seed fails whether or not the real excerpt is found
    seed = as_count(seed, "seed", minimum=0)
    folder = paths.TRACE_FOLDERS[name]
    found = paths.find_traces(folder)
    if found is not None:
        return found
    sizes = STAND_IN_SIZES[mode][name]
    target = paths.build_dir() / "synthetic_traces" / mode / f"seed{seed}" / folder
    done = target / ".complete"
    if not done.is_file():
        if name == "google":
            synthetic_google(target, rng=seed, **sizes)
        elif name == "alibaba":
            synthetic_alibaba(target, rng=seed, **sizes)
        else:
            synthetic_bitbrains(target, rng=seed, **sizes)
        done.write_text(repr(sizes) + "\n")
    return target
