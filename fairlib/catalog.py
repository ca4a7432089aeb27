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
    its source path relative to the repository root (or absolute), a title, papermill's per-cell timeout, and the
    test files of its experiment driver (its findings test first), which ``make test-paper KEY=<key>`` runs with the
    notebook in quick mode."""

    key: str
    path: str
    title: str
    cell_timeout_s: int = 1800  # per cell; full-mode sweeps are the long ones
    tests: tuple = ()
    #: registered mechanisms and games the paper introduces: make test-paper runs the registry-wide tests on them too
    mechanisms: tuple = ()
    #: its experiment driver, ``fairlib/experiments/<driver>.py`` (set by ``python -m fairlib.scaffold paper``)
    driver: str = ""


#: every paper notebook, in the order run_all.py runs them
NOTEBOOKS: dict[str, Notebook] = {nb.key: nb for nb in [
    Notebook("feldman2005", "notebooks/feldman2005_price_anticipating.ipynb",
             "Feldman, Lai, Zhang — price-anticipating proportional-share game",
             tests=("tests/test_bidding_game_findings.py", "tests/test_market.py", "tests/test_games.py"),
             mechanisms=("proportional_share", "weight_proportional")),
    Notebook("li2019", "notebooks/li2019_dynamic_drf.ipynb", "Li, Liu, Zhang, Zhang — dynamic DRF",
             tests=("tests/test_dynamic.py",)),
    Notebook("metin2025", "notebooks/metin2025_pdrf.ipynb", "Metin — Precomputed Dominant Resource Fairness",
             tests=("tests/test_precomputed_drf_findings.py",)),
    Notebook("khamseashari2018", "notebooks/khamseashari2018_pfvds.ipynb",
             "Khamse-Ashari et al. — PF-VDS on heterogeneous servers (analytical part)",
             tests=("tests/test_heterogeneous_findings.py",)),
    # an hour per cell: on the synthetic stand-ins (a clone without the excerpts) on a busy 2-core machine the
    # 100 Bitbrains snapshots took ~27 s each
    Notebook("khamseashari2018_traces", "notebooks/khamseashari2018_traces.ipynb",
             "Khamse-Ashari et al. — PF-VDS on the Bitbrains and Google traces (§6)", cell_timeout_s=3600,
             tests=("tests/test_heterogeneous_traces_findings.py", "tests/test_google_open_loop.py")),
    Notebook("schedulers", "notebooks/schedulers_drf_semantics.ipynb",
             "Production schedulers' DRF semantics (Mesos, YARN, Kueue, Volcano) on a real Google cell",
             cell_timeout_s=3600, tests=("tests/test_scheduler_semantics.py",)),
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


def library_modules(nb: Notebook) -> list[str]:
    """The library files behind notebook ``nb`` whose doctests ``make test-paper`` runs: the experiment drivers its
    source imports (``from fairlib.experiments import ...``) and the modules defining the mechanisms and games it
    introduces (found through their registries, wherever they live), as paths relative to the repository root."""
    import ast
    import importlib
    import json

    drivers = []
    for cell in json.loads(source_path(nb).read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] != "code":
            continue
        try:
            tree = ast.parse("".join(cell["source"]))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "fairlib.experiments":
                drivers += [f"fairlib/experiments/{alias.name}.py" for alias in node.names]
    mechanisms = importlib.import_module("fairlib.mechanisms")   # lazily: the registries sit above the catalogue
    games = importlib.import_module("fairlib.games")
    game_names = {name.lower() for name in games.names()}
    entries = [(games if name.lower() in game_names else mechanisms).get(name) for name in nb.mechanisms]
    defined = [importlib.import_module(entry.function.__module__).__file__ for entry in entries]
    files = drivers + [str(Path(f).resolve().relative_to(paths.ROOT)) for f in defined]
    return [f for f in dict.fromkeys(files) if (paths.ROOT / f).exists()]


def main(argv=None) -> int:
    """``python -m fairlib.catalog [--tests KEY | --mechanisms KEY | --modules KEY]``: the catalogue, or what ``make
    test-paper`` runs for one paper."""
    import argparse
    import sys

    ap = argparse.ArgumentParser(prog="python -m fairlib.catalog", description="The paper notebooks run_all executes.")
    ap.add_argument("--tests", metavar="KEY", help="print the test files of paper KEY, one per line")
    ap.add_argument("--mechanisms", metavar="KEY",
                    help="print the mechanisms and games paper KEY introduces as a pytest -k expression (empty if "
                         "none)")
    ap.add_argument("--modules", metavar="KEY",
                    help="print the library modules of paper KEY whose doctests make test-paper runs: the drivers "
                         "its notebook imports and the modules of the mechanisms it introduces")
    args = ap.parse_args(argv)
    key = next((k for k in (args.tests, args.mechanisms, args.modules) if k is not None), None)
    if key is not None:
        try:
            nb = get(key)
        except KeyError as exc:
            print(f"python -m fairlib.catalog: {exc.args[0]}", file=sys.stderr)
            return 2
        if args.tests is not None:
            print("\n".join(nb.tests))
        elif args.mechanisms is not None:
            print(" or ".join(nb.mechanisms))
        else:
            print("\n".join(library_modules(nb)))
        return 0
    for nb in NOTEBOOKS.values():
        print(f"{nb.key:<24} {nb.path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
