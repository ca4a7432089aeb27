import collections
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

# Derandomized: the suite has no unseeded randomness; deadline off because the first call of a
# numba kernel includes its compilation.
settings.register_profile(
    "fairlib",
    derandomize=True,
    deadline=None,
    max_examples=60,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "thorough",
    derandomize=False,
    deadline=None,
    max_examples=1000,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fairlib"))


def pytest_addoption(parser):
    parser.addoption(
        "--paper",
        action="append",
        default=[],
        metavar="KEY",
        help="notebook tests (tests/test_notebooks.py) for these catalogued papers only "
        "(repeatable; default: every paper, or $FAIRLIB_PAPER)",
    )
    parser.addoption(
        "--contract-modules",
        default="",
        metavar="FILES",
        help="tests/test_api_contract.py probes, and tests/test_docstrings.py checks, only the "
        "public callables (and kernels) defined in these fairlib source files (paths "
        "relative to the repository, separated by spaces, commas or newlines: what `python "
        "-m fairlib.repro.catalog --modules KEY` prints; make test-paper passes them)",
    )


def contract_modules(config) -> set[str] | None:
    """The source files ``--contract-modules`` names, as absolute paths, or None when the option is
    not given."""
    from pathlib import Path

    text = config.getoption("--contract-modules")
    if not text.strip():
        return None
    root = Path(__file__).resolve().parents[1]
    return {str((root / f).resolve()) for f in text.replace(",", " ").split()}


def _defined_in(item) -> str | None:
    """The source file that defines the callable a contract test probes (None for the file's other
    tests)."""
    import inspect

    params = getattr(getattr(item, "callspec", None), "params", {})
    target = params.get("target")
    if target is None and "name" in params:
        from tests.test_api_contract import TARGETS

        target = next((t for t in TARGETS if t.name == params["name"]), None)
    if target is None:
        return None
    module = inspect.getmodule(target.owner if target.owner is not None else target.obj)
    return getattr(module, "__file__", None)


def _documented_in(item) -> str | None:
    """The source file that defines the callable a docstring test checks (None for the file's other
    tests)."""
    import inspect
    import sys

    params = getattr(getattr(item, "callspec", None), "params", {})
    if "func" in params:  # a kernel's Python function, or a registered mechanism or game
        module = inspect.getmodule(inspect.unwrap(params["func"]))
    elif isinstance(params.get("name"), str):  # a dotted name: its longest prefix that is a module
        dotted = params["name"]
        while dotted and dotted not in sys.modules:
            dotted = dotted.rpartition(".")[0]
        module = sys.modules.get(dotted)
    else:
        return None
    return getattr(module, "__file__", None)


def selected_papers(config) -> list[str]:
    """The paper keys the notebook tests run for: ``--paper`` options, else ``$FAIRLIB_PAPER``
    (comma-separated), else every catalogued paper; an unknown key is a usage error listing the
    known ones."""
    from fairlib.repro.catalog import NOTEBOOKS

    keys = config.getoption("--paper") or [
        k for k in os.environ.get("FAIRLIB_PAPER", "").split(",") if k
    ]
    unknown = [k for k in keys if k not in NOTEBOOKS]
    if unknown:
        raise pytest.UsageError(
            f"--paper {', '.join(unknown)}: not in fairlib/repro/catalog.py; "
            f"known: {', '.join(NOTEBOOKS)}"
        )
    return keys or list(NOTEBOOKS)


def pytest_configure(config):
    """Under pytest-xdist every worker is already one of the machine's cores: a sweep in a test (or
    in a notebook's quick run, which inherits the environment) runs its cells in the worker's own
    process instead of starting a loky pool of one process per core on top of it — that doubled
    the busy processes and paid each pool's start-up and kernel loading. Tests of the process
    backends ask for them by name (``backend="loky", n_jobs=2``); results do not depend on the
    backend (tests/test_sweep.py).

    A run given ``FAIRLIB_MUTANT_SITE`` tests that mutant (tests/mutants.py), made before any test
    module is imported."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        os.environ.setdefault("FAIRLIB_SWEEP_JOBS", "1")
    from tests.mutants import apply_from_environment

    apply_from_environment()


#: the work units that take longest under ``make test``, longest first (each 15-65 s on the 2-core
#: machine; the rest take under 15 s each). They are handed out first so that the two workers finish
#: together (longest processing time first): pytest-xdist's own order, units with the most tests
#: first, left the one-test notebook runs to the end and one worker idle for half a minute.
LONGEST_FIRST = (
    "tests/test_scaffold.py",
    "tests/test_scaffold_game.py",
    "test_paper_notebook_quick_mode[khamseashari2018_traces]",
    "tests/test_run_all.py",
    "test_paper_notebook_quick_mode[khamseashari2018]",
    "tests/test_book.py",
    "tests/test_psdsf_range.py",
    "test_paper_notebook_quick_mode[metin2025]",
    "tests/test_packaging.py",
    "test_paper_notebook_quick_mode[feldman2005]",
    "tests/test_api_contract.py",
    "tests/test_cache_entry_points.py",
    "test_paper_notebook_quick_mode[li2019]",
)


def _work_unit(item) -> str:
    """The unit pytest-xdist's ``loadgroup`` hands to one worker: its group name as pytest-xdist
    forms it (every ``xdist_group`` marker's name, positional or ``name=``, sorted and joined by
    ``_``), else the item itself."""
    names = {
        str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
        for mark in item.iter_markers("xdist_group")
    }
    return "_".join(sorted(names)) if names else item.nodeid


def _long_rank(unit: str) -> int:
    return next(
        (k for k, name in enumerate(LONGEST_FIRST) if unit == name or unit.endswith("::" + name)),
        len(LONGEST_FIRST),
    )


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups into the node ids
def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist (``make test``: ``-n 2 --dist loadgroup --no-loadscope-reorder``) the
    tests of one file run on one worker, as they share module fixtures and files; the quick runs of
    the paper notebooks are spread one by one (each has its own build folder). Units are handed out
    in the order of ``items``: the longest (:data:`LONGEST_FIRST`) first, then the others with the
    most tests first (pytest-xdist's own order).

    With ``--contract-modules``, the per-callable tests of ``tests/test_api_contract.py`` and
    ``tests/test_docstrings.py`` are kept only for the callables those files define (a callable
    whose module is not a file, or whose target is unknown, is kept)."""
    chosen = contract_modules(config)
    if chosen is not None:
        from pathlib import Path

        kept, dropped = [], []
        for item in items:
            defined = (
                _defined_in(item)
                if item.nodeid.startswith("tests/test_api_contract.py::")
                else _documented_in(item)
                if item.nodeid.startswith("tests/test_docstrings.py::")
                else None
            )
            (
                dropped
                if defined is not None and str(Path(defined).resolve()) not in chosen
                else kept
            ).append(item)
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = kept
    if not config.pluginmanager.hasplugin("xdist"):
        return
    for item in items:
        if "paper_key" in getattr(item, "fixturenames", ()) or item.get_closest_marker(
            "xdist_group"
        ):
            continue
        item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))
    if not os.environ.get(
        "PYTEST_XDIST_WORKER"
    ):  # the workers' collections are what pytest-xdist schedules
        return
    sizes = collections.Counter(_work_unit(item) for item in items)
    items.sort(key=lambda item: (_long_rank(_work_unit(item)), -sizes[_work_unit(item)]))


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


@pytest.fixture
def tmp_build(tmp_path, monkeypatch):
    """Redirect build/ (quick-mode outputs) into a temporary directory."""
    monkeypatch.setenv("FAIRLIB_BUILD_DIR", str(tmp_path / "build"))
    return tmp_path / "build"


_SESSION_START = None


def pytest_sessionstart(session):
    global _SESSION_START
    import time

    _SESSION_START = time.time() - 1.0


def pytest_sessionfinish(session, exitstatus):
    """Fail the run if any numba cache file was written beside fairlib's sources: every entry point
    must cache in keyed ``build/numba-cache/<module>-<key>`` folders (see fairlib/_kernel_cache.py),
    or an edited callee can run stale."""
    from pathlib import Path

    here = Path(__file__).resolve().parents[1] / "fairlib"
    stray = sorted(
        str(p.relative_to(here.parent))
        for p in here.rglob("*.nb[ic]")
        if _SESSION_START is not None and p.stat().st_mtime >= _SESSION_START
    )
    if stray:
        print(
            "\nnumba cache files written under fairlib/ during this run (not in the keyed "
            f"cache): {stray[:5]}{' ...' if len(stray) > 5 else ''}"
        )
        session.exitstatus = 1
