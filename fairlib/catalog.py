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

__all__ = ["Notebook", "NOTEBOOKS", "get", "source_path", "MARKER", "PAPER_CHECKS", "paper_tests", "importing_tests",
           "changed_modules", "library_modules"]

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
    #: registered mechanisms the paper introduces: make test-paper runs the registry-wide tests on them too
    mechanisms: tuple = ()
    #: its experiment driver, ``fairlib/experiments/<driver>.py`` (set by ``python -m fairlib.scaffold paper``)
    driver: str = ""


#: every paper notebook, in the order run_all.py runs them
NOTEBOOKS: dict[str, Notebook] = {nb.key: nb for nb in [
    Notebook("feldman2005", "notebooks/feldman2005_price_anticipating.ipynb",
             "Feldman, Lai, Zhang — price-anticipating proportional-share game",
             tests=("tests/test_bidding_game_findings.py", "tests/test_market.py")),
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


#: the test files every paper's loop (``make test-paper``) runs besides the paper's own: the repository-wide checks a
#: paper's files can break however little else they touch, each with what it holds the paper to. A test file that reads
#: the catalogue, a registry, the public API or the docs is here or says in tests/test_paper_loop.py why a paper cannot
#: break it, so that a paper green in ``make test-paper`` is green in ``make test``.
PAPER_CHECKS: dict[str, str] = {
    "tests/test_notebooks.py": "the notebook's form, its claims all measured, its quick run (run with --paper KEY)",
    "tests/test_import_graph.py": "the import graph stays a DAG with the paper's modules in it",
    "tests/test_contributing.py": "every path the guide names exists",
    "tests/test_docs.py": "README and docs: rendered blocks current (the papers' list and counts among them), links",
    "tests/test_claims_coverage.py": "docs/claims-coverage.md maps the paper's statements to claims that exist",
    "tests/test_book.py": "the book lists every catalogued notebook and renders the landing table once",
    "tests/test_executed.py": "an executed notebook, once committed, matches its source and links its claims",
    "tests/test_report.py": "every claims registry loads, and its rules and headlines are well formed",
    "tests/test_packaging.py": "the kernel warm-up reaches every kernel, the paper's included; CITATION.cff is valid",
    "tests/test_verify.py": "declared tolerances name catalogued notebooks and committed tables",
    "tests/test_suite_schedule.py": "the suite's schedule names notebooks and tests that exist",
    "tests/test_interpreted_kernels.py": "every registered mechanism's small instances run interpreted, no kernel "
                                         "compiled, and agree with the compiled kernels",
    "tests/test_paper_loop.py": "this list itself: every test that reads what a paper adds is in the loop",
}


def importing_tests(modules: list[str], root: Path | None = None) -> list[str]:
    """The test files (``tests/test_*.py``) that import any of ``modules`` (fairlib source files relative to the
    repository root), read from their import statements: a changed library module's own tests.

    >>> "tests/test_psdsf_range.py" in importing_tests(["fairlib/multires/psdsf.py"])
    True
    """
    import ast

    root = Path(root or paths.ROOT)
    dotted = set()
    for f in modules:
        parts = Path(f).with_suffix("").parts
        dotted.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    found = []
    for test in sorted((root / "tests").glob("test_*.py")):
        try:
            tree = ast.parse(test.read_text(encoding="utf-8"))
        except SyntaxError:
            found.append(test)          # pytest reports it; the loop must not skip it
            continue
        names = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module)
                names.update(f"{node.module}.{a.name}" for a in node.names)
            elif isinstance(node, ast.Import):
                names.update(a.name for a in node.names)
        if names & dotted:
            found.append(test)
    return [str(t.relative_to(root)) for t in found]


def paper_tests(nb: Notebook) -> list[str]:
    """Every test file ``make test-paper`` runs for notebook ``nb``, in order: its own tests (its findings test
    first), the repository-wide checks (:data:`PAPER_CHECKS`) and the tests of every module the paper adds or
    changes (:func:`importing_tests` of :func:`library_modules`)."""
    files = list(nb.tests) + list(PAPER_CHECKS) + importing_tests(library_modules(nb))
    return [f for f in dict.fromkeys(files) if (paths.ROOT / f).is_file()]


def changed_modules(root: Path | None = None) -> list[str]:
    """The fairlib source files new or changed on this branch (``git diff`` against where it left its upstream, or
    ``origin/main``, or ``main``; uncommitted edits and untracked files included), relative to the repository root;
    ``[]`` outside a git checkout. What a contributor wrote beside the paper's driver and mechanisms (a helper module,
    a game under ``fairlib/market/``) is tested by ``make test-paper`` through this list."""
    import subprocess

    root = Path(root or paths.ROOT)

    def git(*args: str) -> str | None:
        try:
            run = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.SubprocessError):
            return None
        return run.stdout if run.returncode == 0 else None

    if git("rev-parse", "--is-inside-work-tree") is None:
        return []
    base = next((out.strip() for ref in ("@{upstream}", "origin/main", "main")
                 if (out := git("merge-base", "HEAD", ref))), "HEAD")
    listed = (git("diff", "--name-only", base, "--", "fairlib") or "").split() + (
        git("ls-files", "--others", "--exclude-standard", "--", "fairlib") or "").split()
    return sorted({f for f in listed if f.endswith(".py") and (root / f).is_file()})


def library_modules(nb: Notebook) -> list[str]:
    """The library files behind notebook ``nb`` whose doctests and API contract ``make test-paper`` runs: the
    experiment drivers its source imports (``from fairlib.experiments import ...``), the modules defining the
    mechanisms it introduces (found through the registry, wherever they live) and every fairlib module new or changed
    on the branch (:func:`changed_modules`), as paths relative to the repository root."""
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
    mechanisms = importlib.import_module("fairlib.mechanisms")   # lazily: the registry sits above the catalogue
    defined = [importlib.import_module(mechanisms.get(name).function.__module__).__file__ for name in nb.mechanisms]
    files = drivers + [str(Path(f).resolve().relative_to(paths.ROOT)) for f in defined] + changed_modules()
    return [f for f in dict.fromkeys(files) if (paths.ROOT / f).exists()]


def main(argv=None) -> int:
    """``python -m fairlib.catalog [--tests KEY | --mechanisms KEY | --modules KEY]``: the catalogue, or what ``make
    test-paper`` runs for one paper."""
    import argparse
    import sys

    ap = argparse.ArgumentParser(prog="python -m fairlib.catalog", description="The paper notebooks run_all executes.")
    ap.add_argument("--tests", metavar="KEY",
                    help="print the test files make test-paper runs for paper KEY, one per line: its own, the "
                         "repository-wide checks (PAPER_CHECKS) and the tests of the modules it adds or changes")
    ap.add_argument("--mechanisms", metavar="KEY",
                    help="print the mechanisms paper KEY introduces as a pytest -k expression (empty if none)")
    ap.add_argument("--modules", metavar="KEY",
                    help="print the library modules of paper KEY whose doctests and API contract make test-paper "
                         "runs: the drivers its notebook imports, the modules of the mechanisms it introduces and "
                         "every fairlib module new or changed on the branch")
    args = ap.parse_args(argv)
    key = next((k for k in (args.tests, args.mechanisms, args.modules) if k is not None), None)
    if key is not None:
        try:
            nb = get(key)
        except KeyError as exc:
            print(f"python -m fairlib.catalog: {exc.args[0]}", file=sys.stderr)
            return 2
        if args.tests is not None:
            print("\n".join(paper_tests(nb)))
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
