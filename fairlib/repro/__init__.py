"""fairlib.repro: the reproduction pipeline, which turns the library's results into the papers'
reproductions.

It sits on top of the library (:mod:`fairlib`) and imports it; the library never imports it
(``tests/test_import_graph.py`` checks every arrow, lazy imports included). Its modules:

- :mod:`~fairlib.repro.ledger`: the claims registry and ledger (one class per rule) and measured
  values;
- :mod:`~fairlib.repro.outputs`: the figures and tables a notebook saves;
- :mod:`~fairlib.repro.prose`: the wording of numbers and the "What we found" and Findings cells;
- :mod:`~fairlib.repro.plotting` and :mod:`~fairlib.repro.tables`: the house figure style and the
  tables readers see;
- :mod:`~fairlib.repro.executed`: the executed notebooks readers open and the book renders;
- :mod:`~fairlib.repro.landing`: the README's and the book's rendered blocks (the landing page);
- :mod:`~fairlib.repro.catalog`: the papers and their notebooks, declared once;
- :mod:`~fairlib.repro.verify`: ``run_all.py --verify``, the committed tables and claims against a
  fresh run;
- :mod:`~fairlib.repro.scaffold`: ``python -m fairlib.repro.scaffold``, a new paper's or mechanism's
  files;
- :mod:`~fairlib.repro.warm`: ``python -m fairlib.repro.warm``, every numba kernel compiled once
  (``make install``);
- :mod:`~fairlib.repro.experiments`: the papers' experiment drivers, one per notebook;
- :mod:`~fairlib.repro.report`: the old name of :mod:`~fairlib.repro.ledger` and
  :mod:`~fairlib.repro.outputs`, which it re-exports for older notebooks.

Nothing is imported here: import the module you use (``from fairlib.repro import ledger``); the
submodules also load on first attribute access (``fairlib.repro.ledger``).
"""

#: the pipeline's modules and packages, loaded on first use (PEP 562)
_SUBMODULES = (
    "ledger",
    "outputs",
    "report",
    "prose",
    "plotting",
    "tables",
    "executed",
    "landing",
    "catalog",
    "verify",
    "scaffold",
    "warm",
    "experiments",
)

__all__ = list(_SUBMODULES)


def __getattr__(name: str) -> object:
    import importlib

    if name in _SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'fairlib.repro' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
