"""The catalogue of paper notebooks: which notebooks ``run_all.py`` executes and the site publishes, in order.

One explicit list, imported by both ``run_all.py`` and the site builder, so neither imports the other.
``python -m fairlib.scaffold paper KEY`` adds an entry above the marker line at the end of :data:`NOTEBOOKS`
and ``python -m fairlib.scaffold --remove KEY`` takes it out.

>>> NOTEBOOKS["li2019"].path
'notebooks/li2019_dynamic_drf.ipynb'
>>> get("nope")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
KeyError: "notebook key 'nope' is not in the catalogue (fairlib/catalog.py); known: feldman2005, ..."
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from . import paths

__all__ = ["Notebook", "NOTEBOOKS", "get", "source_path", "MARKER"]

#: the line above which ``python -m fairlib.scaffold paper`` inserts a new entry
MARKER = "# new paper notebooks go above this line (python -m fairlib.scaffold paper KEY ...)"


@dataclass(frozen=True)
class Notebook:
    """One paper notebook: its key (``figures/<key>/``, ``data/results/<key>/``, ``notebooks/claims/<key>.toml``),
    its source path relative to the repository root (or absolute), a title, and papermill's per-cell timeout."""

    key: str
    path: str
    title: str
    cell_timeout_s: int = 1800  # per cell; full-mode sweeps are the long ones


#: every paper notebook, in the order run_all.py runs them
NOTEBOOKS: dict[str, Notebook] = {nb.key: nb for nb in [
    Notebook("feldman2005", "notebooks/feldman2005_price_anticipating.ipynb",
             "Feldman, Lai, Zhang — price-anticipating proportional-share game"),
    Notebook("li2019", "notebooks/li2019_dynamic_drf.ipynb", "Li, Liu, Zhang, Zhang — dynamic DRF"),
    Notebook("metin2025", "notebooks/metin2025_pdrf.ipynb", "Metin — Precomputed Dominant Resource Fairness"),
    Notebook("khamseashari2018", "notebooks/khamseashari2018_pfvds.ipynb",
             "Khamse-Ashari et al. — PF-VDS on heterogeneous servers (analytical part)"),
    # an hour per cell: on the synthetic stand-ins (a clone without the excerpts) on a busy 2-core machine the
    # 100 Bitbrains snapshots took ~27 s each
    Notebook("khamseashari2018_traces", "notebooks/khamseashari2018_traces.ipynb",
             "Khamse-Ashari et al. — PF-VDS on the Bitbrains and Google traces (§6)", cell_timeout_s=3600),
    Notebook("schedulers", "notebooks/schedulers_drf_semantics.ipynb",
             "Production schedulers' DRF semantics (Mesos, YARN, Kueue, Volcano) on a real Google cell",
             cell_timeout_s=3600),
    # new paper notebooks go above this line (python -m fairlib.scaffold paper KEY ...)
]}


def get(key: str) -> Notebook:
    """The catalogued notebook ``key``; a KeyError listing the known keys otherwise."""
    try:
        return NOTEBOOKS[key]
    except KeyError:
        raise KeyError(f"notebook key {key!r} is not in the catalogue (fairlib/catalog.py); known: "
                       f"{', '.join(NOTEBOOKS)}") from None


def source_path(nb: Notebook) -> Path:
    """The notebook's source file (a relative path is taken from the repository root)."""
    p = Path(nb.path)
    return p if p.is_absolute() else paths.ROOT / p
