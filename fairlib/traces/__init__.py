"""Trace loaders and synthetic workload generators.

Real trace excerpts are looked up with :func:`fairlib.paths.trace_dirs` (``$FAIRLIB_TRACE_DIR``,
``data/traces``, ``../shared/data/traces``); they are never copied into the repository.
:func:`real_or_synthetic` gives the notebooks a synthetic stand-in in the real formats where no real
excerpt is found. Every function returning trace-derived data says whether it is real or synthetic.
"""

from ._source import TraceFormatError, is_synthetic
from .alibaba import alibaba_dir, machines_up, read_batch_task, read_machine_meta, tasks_present
from .bitbrains import (
    BITBRAINS_COLUMNS,
    BITBRAINS_HEADER,
    bitbrains_dir,
    iter_vms,
    read_vm,
    read_vms,
    write_vm,
)
from .google import (
    JOB_EVENT_COLUMNS,
    MACHINE_EVENT_COLUMNS,
    TASK_EVENT_COLUMNS,
    TASK_USAGE_COLUMNS,
    JobDemands,
    google_dir,
    iter_task_events,
    machine_configurations,
    read_job_events,
    read_machine_events,
    read_task_events,
    read_task_usage,
    synthetic_task_requests,
    task_event_demands,
    task_request_pool,
    task_usage_demands,
)
from .synthetic import (
    real_or_synthetic,
    synthetic_alibaba,
    synthetic_bitbrains,
    synthetic_google,
    synthetic_task_usage,
)
from .workload import (
    Fleet,
    Workload,
    bitbrains_fleet,
    bitbrains_workload,
    google_fleet,
    google_workload,
    peak_total_bandwidth,
)

__all__ = [
    # Google clusterdata-2011-2
    "TASK_EVENT_COLUMNS",
    "JOB_EVENT_COLUMNS",
    "MACHINE_EVENT_COLUMNS",
    "TASK_USAGE_COLUMNS",
    "google_dir",
    "read_task_events",
    "iter_task_events",
    "read_job_events",
    "read_machine_events",
    "read_task_usage",
    "machine_configurations",
    "synthetic_task_requests",
    "task_request_pool",
    # per-interval job demands for the replays (fairlib.sim.jobs_from_demands)
    "JobDemands",
    "task_event_demands",
    "task_usage_demands",
    # Bitbrains GWA-T-12 and Alibaba
    "BITBRAINS_COLUMNS",
    "BITBRAINS_HEADER",
    "bitbrains_dir",
    "iter_vms",
    "read_vm",
    "read_vms",
    "write_vm",
    "alibaba_dir",
    "read_batch_task",
    "read_machine_meta",
    "machines_up",
    "tasks_present",
    # synthetic stand-ins, provenance and errors
    "is_synthetic",
    "real_or_synthetic",
    "synthetic_bitbrains",
    "synthetic_google",
    "synthetic_alibaba",
    "synthetic_task_usage",
    "TraceFormatError",
    # workloads and fleets for the replays
    "Fleet",
    "Workload",
    "bitbrains_fleet",
    "bitbrains_workload",
    "google_fleet",
    "google_workload",
    "peak_total_bandwidth",
]
