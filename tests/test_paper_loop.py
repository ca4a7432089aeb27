"""``make test-paper KEY=<key>`` predicts ``make test``: it runs every test a paper's files can
affect.

A paper adds a notebook, a claims registry, a driver, perhaps mechanisms or games, and catalogue,
docs and citation entries. The tests those can break are (1) its own, (2) the repository-wide checks
that read the catalogue, the registries, the public API or the docs
(:data:`fairlib.repro.catalog.PAPER_CHECKS`), (3) the doctests, API contract and own tests of every
module it adds or changes, and (4) the registry-wide tests of its mechanisms. This file holds the
suite to that split: a test file that reads what a paper adds is a paper check, or
:data:`NOT_PAPER_CHECKS` says how the loop covers it or why a paper cannot break it — so a new
repository-wide test cannot silently stay out of the loop.
"""

from __future__ import annotations

import re
import subprocess
import sys

from fairlib.repro import catalog
from fairlib.paths import ROOT

#: what in a test file's text shows that it reads what a paper adds: the catalogue, a registry
#: walked whole, the public API walked whole, the docs or the citation, the package's modules walked
#: whole
READS_WHAT_A_PAPER_ADDS = re.compile(
    r"catalog\b|NOTEBOOKS|mechanisms\.(names|select)\(|games\.(names|select)\(|"
    r"README|docs/|CITATION|__all__|_SUBMODULES|walk_packages|glob\(\"\*\.toml\"\)"
)

#: test files that match :data:`READS_WHAT_A_PAPER_ADDS` but are not in PAPER_CHECKS: how the loop
#: covers them, or why a paper's files cannot break them
NOT_PAPER_CHECKS = {
    "tests/test_validation_sites.py": "one refusal per validation site; it builds a catalogue "
    "Paper from literal fields and calls the prose and registry helpers with keys of its own, so "
    "a paper's entry changes none of them",
    "tests/test_validate.py": "the shared validation helpers; it calls the catalogue's "
    "importing_tests and changed_modules only with a path that is no directory, which a paper "
    "changes nothing of",
    "tests/test_stated_rules.py": "refusals of inputs that break a documented rule of library "
    "functions (readers, Jobs, metrics, the sorter, the registries' select): it calls the "
    "registries only with a malformed capability, so a paper's mechanism changes none of them",
    "tests/test_entry_points.py": "the command lines' refusals of bad arguments and the "
    "FAIRLIB_* variables': it names catalogued keys only to repeat one (li2019) and reads "
    "the variables from the source, so a new paper changes no refusal it checks",
    "tests/test_pooled_start.py": "start= of the single-pool mechanisms on fixed and generated "
    "pools: it names docs/ only in a docstring and reads no catalogue, registry or list of public "
    "names, so a paper cannot change what it checks",
    "tests/test_pdrf_floor.py": "PDRF against EDRF on fixed and generated pools: it reads no "
    "catalogue, registry or list of public names, so a paper cannot change what it checks",
    "tests/test_api_contract.py": "run by the loop on the callables of every module the paper "
    "adds or changes (--contract-modules); the callables it leaves alone are the same as on "
    "main",
    "tests/test_docstrings.py": "run by the loop on the callables and kernels of every module "
    "the paper adds or changes (--contract-modules), registered mechanisms and games "
    "included; the others are the same as on main",
    "tests/test_registry.py": "parametrised by mechanism name: the loop runs it with -m registry "
    "-k <the paper's mechanisms>",
    "tests/test_game_registry.py": "parametrised by game name: the loop runs it with -m games -k "
    "<the paper's mechanisms>",
    "tests/test_testing.py": "fairlib.testing on toy mechanisms of its own and on drf; the "
    "registry's checks, on the paper's mechanisms, run in tests/test_registry.py and "
    "tests/test_game_registry.py",
    "tests/test_mechanisms.py": "registers and removes a mechanism of its own inside one test; "
    "reads no other entry",
    "tests/test_run_all.py": "run_all.py on made-up notebooks in temporary folders; it names the "
    "README only in a docstring",
    "tests/test_workflows.py": "the CI workflow file; it names the README only in a docstring",
    "tests/test_scaffold.py": "scaffolds its own papers and mechanisms in a temporary copy of "
    "the checkout and runs the loop there; a paper of the checkout is one more file copied",
    "tests/test_scaffold_game.py": "scaffolds its own papers, mechanisms and games in a "
    "temporary copy and checks the loop there; a paper of the checkout is one more file "
    "copied",
}


def _test_files() -> list[str]:
    return sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").glob("test_*.py"))


def test_every_test_that_reads_what_a_paper_adds_is_in_the_loop_or_says_why_not():
    unaccounted = [
        f
        for f in _test_files()
        if READS_WHAT_A_PAPER_ADDS.search((ROOT / f).read_text(encoding="utf-8"))
        and f not in catalog.PAPER_CHECKS
        and f not in NOT_PAPER_CHECKS
    ]
    assert not unaccounted, (
        f"{unaccounted}: these tests read the catalogue, a registry, the public API or the "
        "docs, so a new paper can "
        "break them; add each to fairlib.repro.catalog.PAPER_CHECKS (make test-paper runs "
        "it) or to NOT_PAPER_CHECKS in tests/test_paper_loop.py with how the loop covers it"
    )
    for f in list(catalog.PAPER_CHECKS) + list(NOT_PAPER_CHECKS):
        assert (ROOT / f).is_file(), (
            f"{f}: listed as a paper check or an exception, but there is no such file"
        )
    assert not set(catalog.PAPER_CHECKS) & set(NOT_PAPER_CHECKS)


def test_the_loop_runs_a_papers_tests_the_checks_and_the_tests_of_what_it_changes(monkeypatch):
    nb = catalog.get("li2019")
    monkeypatch.setattr(
        catalog, "changed_modules", lambda root=None: ["fairlib/multires/psdsf/__init__.py"]
    )
    files = catalog.paper_tests(nb)
    assert files[: len(nb.tests)] == list(nb.tests)
    assert set(catalog.PAPER_CHECKS) <= set(files)
    assert "tests/test_psdsf_range.py" in files  # a changed module's own tests
    assert "fairlib/multires/psdsf/__init__.py" in catalog.library_modules(nb)
    assert len(files) == len(set(files))


def test_the_scaffolds_registration_lines_bring_in_no_importer(monkeypatch):
    """Every paper changes the catalogue and the drivers' package by the lines the scaffold adds:
    their readers are the paper checks, and their importers (the scaffold's nested loop, every other
    paper's findings) are not run."""
    nb = catalog.get("li2019")
    monkeypatch.setattr(
        catalog, "changed_modules", lambda root=None: list(catalog.REGISTRATION_FILES)
    )
    files = catalog.paper_tests(nb)
    assert (
        "tests/test_scaffold.py" not in files
        and "tests/test_heterogeneous_findings.py" not in files
    )
    assert set(catalog.PAPER_CHECKS) <= set(files)
    assert set(catalog.REGISTRATION_FILES) <= set(
        catalog.library_modules(nb)
    )  # their doctests still run


def test_contract_modules_keeps_the_contract_of_those_modules_only():
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            "-q",
            "--collect-only",
            "tests/test_api_contract.py",
            "--contract-modules",
            "fairlib/metrics.py fairlib/market/game.py",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    ids = [line for line in run.stdout.splitlines() if "::" in line]
    probed = [i for i in ids if "::test_contract[" in i or "::test_scalars_from_hypothesis" in i]
    assert probed and all(
        "fairlib.metrics." in i or "Game" in i or "fairlib.market." in i for i in probed
    ), probed
    assert any("jain_index" in i for i in probed) and any("Game" in i for i in probed)
    assert any(
        "test_every_public_callable_has_a_valid_baseline" in i for i in ids
    )  # the walk itself stays


def test_the_module_scoped_checks_run_on_the_papers_modules_only(monkeypatch):
    """A changed registry brings in its importers, but never the API contract or the docstring
    checks whole: the loop runs those on the paper's modules (--contract-modules), and the export
    lines a scaffold adds bring in nothing."""
    nb = catalog.get("feldman2005")
    monkeypatch.setattr(
        catalog,
        "changed_modules",
        lambda root=None: ["fairlib/games.py", "fairlib/market/__init__.py"],
    )
    files = catalog.paper_tests(nb)
    assert "tests/test_game_registry.py" in files
    assert not set(catalog.MODULE_SCOPED) & set(files)
    assert "fairlib/market/__init__.py" in catalog.REGISTRATION_FILES
