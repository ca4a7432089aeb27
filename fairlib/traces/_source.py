"""Where trace data came from: folders written by the synthetic generators carry a marker file."""

from __future__ import annotations

from pathlib import Path

SYNTHETIC_MARKER = "SYNTHETIC.md"


def is_synthetic(folder) -> bool:
    """Whether ``folder`` or one of its three nearest parents carries :data:`SYNTHETIC_MARKER`."""
    folder = Path(folder)
    return any((p / SYNTHETIC_MARKER).is_file() for p in [folder, *folder.parents][:4])


def source_of(folder) -> str:
    """``"synthetic"`` or ``"real"``."""
    return "synthetic" if is_synthetic(folder) else "real"
