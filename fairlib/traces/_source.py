"""Where trace data came from: folders written by the synthetic generators carry a marker file."""

from __future__ import annotations

from pathlib import Path

from .. import paths

SYNTHETIC_MARKER = "SYNTHETIC.md"


def is_synthetic(folder) -> bool:
    """Whether ``folder`` or one of its three nearest parents carries :data:`SYNTHETIC_MARKER`."""
    folder = Path(folder)
    return any((p / SYNTHETIC_MARKER).is_file() for p in [folder, *folder.parents][:4])


def source_of(folder) -> str:
    """``"synthetic"`` or ``"real"``."""
    return "synthetic" if is_synthetic(folder) else "real"


def trace_folder(folder: str, directory=None) -> Path:
    """``directory`` when given; else the first ``<dir>/<folder>`` over :func:`fairlib.paths.trace_dirs`
    (``$FAIRLIB_TRACE_DIR``, ``data/traces``, ``../shared/data/traces``); else ``data/traces/<folder>``, whose
    absence the readers report with :func:`missing_hint`."""
    if directory is not None:
        return Path(directory)
    return paths.find_traces(folder) or paths.trace_dir() / folder


def missing_hint(folder: str) -> str:
    """The end of a reader's FileNotFoundError: where it looked and how to get the data."""
    return paths.missing_traces_message(folder)
