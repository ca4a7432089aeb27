"""Trace loaders and synthetic workload generators.

Real trace excerpts are looked up with :func:`fairlib.paths.trace_dirs` (``$FAIRLIB_TRACE_DIR``, ``data/traces``,
``../shared/data/traces``); they are never copied into the repository. :func:`real_or_synthetic` gives the
notebooks a synthetic stand-in in the real formats where no real excerpt is found. Every function returning
trace-derived data says whether it is real or synthetic.
"""

from .google import (JOB_EVENT_COLUMNS, MACHINE_EVENT_COLUMNS, TASK_EVENT_COLUMNS, TraceFormatError, google_dir,
                     iter_task_events, machine_configurations, read_job_events, read_machine_events,
                     read_task_events, synthetic_task_requests, task_request_pool)

__all__ = ["TASK_EVENT_COLUMNS", "JOB_EVENT_COLUMNS", "MACHINE_EVENT_COLUMNS", "TraceFormatError", "google_dir",
           "read_task_events", "iter_task_events", "read_job_events", "read_machine_events", "machine_configurations",
           "synthetic_task_requests", "task_request_pool"]
from .bitbrains import BITBRAINS_COLUMNS, BITBRAINS_HEADER, bitbrains_dir, iter_vms, read_vm, read_vms, write_vm

__all__ += ["BITBRAINS_COLUMNS", "BITBRAINS_HEADER", "bitbrains_dir", "iter_vms", "read_vm", "read_vms", "write_vm"]
from .alibaba import alibaba_dir, read_batch_task, read_machine_meta

__all__ += ["alibaba_dir", "read_batch_task", "read_machine_meta"]
from ._source import is_synthetic
from .google import TASK_USAGE_COLUMNS, read_task_usage
from .synthetic import real_or_synthetic, synthetic_bitbrains, synthetic_google, synthetic_task_usage

__all__ += ["is_synthetic", "real_or_synthetic", "synthetic_bitbrains", "synthetic_google", "synthetic_task_usage", "TASK_USAGE_COLUMNS", "read_task_usage"]
from .workload import Fleet, Workload, bitbrains_fleet, bitbrains_workload, google_fleet, google_workload

__all__ += ["Fleet", "Workload", "bitbrains_fleet", "bitbrains_workload", "google_fleet", "google_workload"]
