"""Project paths that never depend on the working directory.

Full-mode outputs are tracked in git (``figures/<key>/``, ``data/results/<key>/``); quick-mode
outputs go under ``build/quick/`` so a smoke run never touches tracked files.  Two environment
variables redirect output for tests and for users who keep data elsewhere:

``FAIRLIB_BUILD_DIR``
    replaces ``build/`` (quick-mode outputs, executed notebooks, run manifest, caches).
``FAIRLIB_TRACE_DIR``
    where real trace files are looked for (see :func:`trace_dir`).
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data"
FIGURES = ROOT / "figures"
RESULTS = DATA / "results"
NOTEBOOKS = ROOT / "notebooks"
SHARED_TRACES = ROOT.parent / "shared" / "data" / "traces"

MODES = ("quick", "full")


def build_dir() -> Path:
    """Scratch directory for quick-mode outputs, executed notebooks and caches."""
    return Path(os.environ.get("FAIRLIB_BUILD_DIR", ROOT / "build"))


def _check_mode(mode: str) -> str:
    if mode not in MODES:
        raise ValueError(f"mode = {mode!r}: mode must be one of {MODES}")
    return mode


def figures_dir(key: str, mode: str = "full") -> Path:
    """Directory for the figures of notebook ``key``: ``figures/<key>`` (full) or under build (quick)."""
    root = FIGURES if _check_mode(mode) == "full" else build_dir() / "quick" / "figures"
    return root / key


def results_root(mode: str = "full") -> Path:
    """Directory holding every notebook's results directory for ``mode``."""
    return RESULTS if _check_mode(mode) == "full" else build_dir() / "quick" / "results"


def results_dir(key: str, mode: str = "full") -> Path:
    """Directory for the tables and ``claims.json`` of notebook ``key``."""
    return results_root(mode) / key


def trace_dir() -> Path:
    """Directory where real trace excerpts are looked for.

    ``FAIRLIB_TRACE_DIR`` if set; else ``data/traces`` when it holds any trace folder; else the shared
    reference copy ``../shared/data/traces`` beside the checkout when present; else ``data/traces``.
    """
    env = os.environ.get("FAIRLIB_TRACE_DIR")
    if env:
        return Path(env)
    local = DATA / "traces"
    if local.is_dir() and any(p.is_dir() for p in local.iterdir()):
        return local
    if SHARED_TRACES.is_dir():
        return SHARED_TRACES
    return local
