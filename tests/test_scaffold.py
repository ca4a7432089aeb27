"""python -m fairlib.repro.scaffold in a copy of this checkout: a new paper and a new mechanism are
green at once (ruff, the import graph, their tests, the registry-wide tests, the README's, the
citation's and the coverage page's tests, ``make test-paper`` and the quick run), and ``--remove``
gives the checkout back as it was."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fairlib.repro import scaffold
from fairlib.paths import ROOT
from tests.test_import_graph import cycles, import_graph

# names no contributor would choose, least of all the guide's examples, with which a checkout may
# already hold a paper or a mechanism; a name of the longest length allowed (24) also checks the
# generated files against ruff's line
# length
KEY, DRIVER, MECH = "scaffoldcheck2024", "scaffold_check_driver", "scaffold_check_mechanism"
#: the paper's metadata as the command line gives it (what CITATION.cff cites)
OPTIONS = [
    "--authors",
    "Doe, Jane; Roe, Richard",
    "--title",
    "An α-fair family on dominant shares",
    "--year",
    "2024",
    "--venue-kind",
    "article",
    "--venue",
    "arXiv preprint",
    "--url",
    "https://arxiv.org/abs/2401.00001",
    "--notes",
    "arXiv:2401.00001",
]
PAPER = scaffold.paper_from_options(
    "Doe, Jane; Roe, Richard",
    "An α-fair family on dominant shares",
    2024,
    "article",
    "arXiv preprint",
    "https://arxiv.org/abs/2401.00001",
    "arXiv:2401.00001",
)
_SKIP = shutil.ignore_patterns(
    ".venv", "build", ".git", "__pycache__", ".hypothesis", ".pytest_cache", "*.egg-info"
)


@pytest.fixture
def checkout(tmp_path):
    """A copy of this checkout (sources, notebooks, docs, results), with this checkout's environment
    linked in."""
    copy = tmp_path / "checkout"
    shutil.copytree(ROOT, copy, ignore=_SKIP, symlinks=True)
    if (ROOT / ".venv").is_dir():
        (copy / ".venv").symlink_to(ROOT / ".venv")
    return copy


def _texts(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and ".venv" not in p.parts and "__pycache__" not in p.parts
    }


def _run(args, cwd, timeout=1200, **env):
    # PYTHONPATH: every process of the copy (and the ones its tests start) imports the copy's
    # fairlib, not the checkout's that the linked environment has installed
    return subprocess.run(
        args,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={
            **os.environ,
            "FAIRLIB_BUILD_DIR": str(Path(cwd) / "build"),
            "PYTHONPATH": str(cwd),
            **env,
        },
    )


def test_a_scaffolded_paper_and_mechanism_are_clean_and_their_tests_pass(checkout):
    from fairlib.repro import catalog

    written = scaffold.scaffold_paper(KEY, PAPER, DRIVER, root=checkout)
    assert {
        f"notebooks/{KEY}.ipynb",
        f"notebooks/claims/{KEY}.toml",
        f"fairlib/repro/experiments/{DRIVER}.py",
        f"tests/test_{DRIVER}_findings.py",
        "fairlib/repro/catalog.py",
        "docs/claims-coverage.md",
        "docs/reconstructions.md",
        "README.md",
        "CITATION.cff",
    } <= set(written)
    # the catalogue holds the paper, and the README and CITATION.cff are rendered from it
    readme = (checkout / "README.md").read_text(encoding="utf-8")
    assert (
        f"{len(catalog.NOTEBOOKS) + 1} notebooks reproduce {len(catalog.PAPERS) + 1} papers"
        in readme
    )
    assert (
        f"| {KEY} | [Doe, Roe — An α-fair family on dominant shares (2024)]({PAPER.url}) | "
        f"not run yet | {scaffold.HEADLINE} |" in readme
    )
    assert f"Doe, Roe, 2024 ([arXiv:2401.00001]({PAPER.url}))" in " ".join(
        readme.split()
    )  # wrapped as it falls
    citation = (checkout / "CITATION.cff").read_text(encoding="utf-8")
    assert (
        '  - type: article\n    title: "An α-fair family on dominant shares"\n    authors:\n'
        "      - family-names: Doe\n        given-names: Jane\n"
    ) in citation
    assert (
        _run([sys.executable, "-m", "fairlib.repro.landing", "--check"], checkout).returncode == 0
    )
    # the paper's reconstructions are its registry's, rendered into the reference page
    assert (
        'reconstructions = """' in (checkout / "notebooks" / "claims" / f"{KEY}.toml").read_text()
    )
    assert (
        f'### Doe, Roe, "An α-fair family on dominant shares" — `{KEY}`\n\nNothing is reconstructed'
        in (checkout / "docs" / "reconstructions.md").read_text(encoding="utf-8")
    )
    notebook = (checkout / "notebooks" / f"{KEY}.ipynb").read_text(encoding="utf-8")
    assert "# Doe, Roe — An α-fair family on dominant shares (2024)" in notebook
    assert (
        '**Citation.** Jane Doe, Richard Roe, \\"An α-fair family on dominant shares\\", '
        "arXiv preprint" in notebook
    )
    scaffold.scaffold_mechanism(MECH, "pooled", paper=KEY, label="α-dominant", root=checkout)
    scaffold.scaffold_mechanism("equal_time", "multi_server", root=checkout)
    lint = _run([sys.executable, "-m", "ruff", "check", "fairlib", "tests", "run_all.py"], checkout)
    assert lint.returncode == 0, lint.stdout[-3000:]
    assert not cycles(import_graph(checkout))
    # every test of the README, the citation and the coverage page holds in the scaffolded checkout
    front = _run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            "-q",
            "tests/test_docs.py",
            "tests/test_claims_coverage.py",
            "tests/test_contributing.py",
            "-k",
            "not library_example and not performance_page and not benchmark_blocks",
        ],
        checkout,
    )
    assert front.returncode == 0, front.stdout[-4000:] + front.stderr[-2000:]
    tests = _run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            "-q",
            f"tests/test_{DRIVER}_findings.py",
            f"tests/test_{MECH}.py",
            "tests/test_equal_time.py",
            f"fairlib/multires/{MECH}.py",
            "fairlib/multires/equal_time.py",
            f"fairlib/repro/experiments/{DRIVER}.py",
            "tests/test_notebooks.py",
            "--paper",
            KEY,
            "-m",
            "not notebook",
        ],
        checkout,
    )
    assert tests.returncode == 0, tests.stdout[-4000:] + tests.stderr[-2000:]
    registry = _run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            "-o",
            "addopts=--strict-markers",
            "-q",
            "-m",
            "registry",
            "-k",
            f"{MECH} or equal_time",
            "tests",
        ],
        checkout,
    )
    assert registry.returncode == 0 and " passed" in registry.stdout, registry.stdout[-4000:]
    catalog = _run([sys.executable, "-m", "fairlib.repro.catalog", "--mechanisms", KEY], checkout)
    assert catalog.stdout.strip() == MECH
    colours = _run(
        [
            sys.executable,
            "-c",
            "from fairlib import games, mechanisms; print(*[m.name + ' ' + m.color.lower() "
            "for m in mechanisms.select() + games.select()], sep='\\n')",
        ],
        checkout,
    )
    by_name = dict(line.split() for line in colours.stdout.splitlines())
    others = {c for n, c in by_name.items() if n not in (MECH, "equal_time")}
    # the house colours no registered mechanism or game uses, taken in order: each new one its own
    free = [c.lower() for c in scaffold._house_colors() if c.lower() not in others]
    assert [by_name[MECH], by_name["equal_time"]] == free[:2]
    modules = _run([sys.executable, "-m", "fairlib.repro.catalog", "--modules", KEY], checkout)
    assert modules.stdout.split() == [
        f"fairlib/repro/experiments/{DRIVER}.py",
        f"fairlib/multires/{MECH}.py",
    ]


def test_a_name_taken_or_malformed_is_refused_and_nothing_is_written(checkout):
    before = _texts(checkout)
    options = [
        "Doe, Jane",
        "A title",
        2024,
        "article",
        "arXiv preprint",
        "https://arxiv.org/abs/2401.00001",
    ]
    for call, message in [
        (lambda: scaffold.scaffold_paper("li2019", PAPER, DRIVER, root=checkout), "already in"),
        (lambda: scaffold.scaffold_paper("Doe-2024", PAPER, DRIVER, root=checkout), "identifier"),
        (lambda: scaffold.scaffold_paper(KEY, PAPER, "template", root=checkout), "already exists"),
        (lambda: scaffold.scaffold_paper(KEY, PAPER, KEY, root=checkout), "by what it studies"),
        (
            lambda: scaffold.scaffold_paper(
                KEY, PAPER, DRIVER, citation="two\nlines", root=checkout
            ),
            "--citation",
        ),
        (
            lambda: scaffold.scaffold_paper(KEY, "Doe, A title", DRIVER, root=checkout),
            "must be a fairlib.repro.catalog",
        ),
        (
            lambda: scaffold.paper_from_options("Doe Jane", *options[1:]),
            "--authors: 'Doe Jane' is not 'Family, Given'",
        ),
        (
            lambda: scaffold.paper_from_options("Doe, Jane;", *options[1:]),
            "--authors: '' is not 'Family, Given'",
        ),
        (
            lambda: scaffold.paper_from_options(options[0], "two\nlines", *options[2:]),
            "--title = .*one non-empty line",
        ),
        (
            lambda: scaffold.paper_from_options(*options[:2], "20x4", *options[3:]),
            "--year = '20x4': must be a year",
        ),
        (  # int() reads other scripts' digits and a sign; a float was cut to a whole year
            lambda: scaffold.paper_from_options(
                *options[:2], "\u0662\u0660\u0662\u0664", *options[3:]
            ),
            "--year = '\u0662\u0660\u0662\u0664': must be a year",
        ),
        (
            lambda: scaffold.paper_from_options(*options[:2], "+2024", *options[3:]),
            r"--year = '\+2024': must be a year",
        ),
        (
            lambda: scaffold.paper_from_options(*options[:2], 2024.5, *options[3:]),
            r"--year = 2024\.5: must be a year",
        ),
        (
            lambda: scaffold.paper_from_options(*options[:3], "book", *options[4:]),
            "--venue-kind = 'book': must be 'conference-paper'",
        ),
        (
            lambda: scaffold.paper_from_options(*options[:4], "", options[5]),
            "--venue = '': must be one non-empty",
        ),
        (
            lambda: scaffold.paper_from_options(*options[:5], "arxiv.org/1"),
            "--url = 'arxiv.org/1': must be a web",
        ),
        # no notes is the empty text (the option's default); None is not read as it
        (
            lambda: scaffold.paper_from_options(*options, notes=None),
            "--notes = None: must be text",
        ),
        (
            lambda: scaffold.scaffold_mechanism("drf", "pooled", root=checkout),
            "already a public name",
        ),
        (
            lambda: scaffold.scaffold_mechanism(MECH, "both", root=checkout),
            "'pooled' or 'multi_server'",
        ),
        (
            lambda: scaffold.scaffold_mechanism(MECH, "pooled", paper="li2019", root=checkout),
            "scaffold the paper",
        ),
        (lambda: scaffold.remove_paper("li2019", root=checkout), "not made by the scaffold"),
        (lambda: scaffold.remove_paper("nope", root=checkout), "not in fairlib/repro/catalog.py"),
    ]:
        with pytest.raises(scaffold.ScaffoldError, match=message):
            call()
    assert _texts(checkout) == before


def test_remove_gives_the_checkout_back(checkout):
    """Everything the scaffold wrote and rendered, and what a full run adds: its outputs and its
    rows in the aggregated ledger (claims.csv, and CLAIMS.md's section and counts)."""
    import re

    before = _texts(checkout)
    scaffold.scaffold_paper(KEY, PAPER, DRIVER, root=checkout)
    (checkout / "figures" / KEY).mkdir(parents=True)
    (checkout / "figures" / KEY / "fig1_example.png").write_bytes(b"png")
    claims_csv = checkout / "data" / "results" / "claims.csv"
    header = claims_csv.read_text(encoding="utf-8").splitlines()[0].split(",")
    row = {"paper": KEY, "kind": "paper", "claim": "mean_near_half", "status": "held"}
    claims_csv.write_text(
        claims_csv.read_text(encoding="utf-8") + ",".join(row.get(h, "") for h in header) + "\n",
        encoding="utf-8",
    )
    ledger = checkout / "data" / "results" / "CLAIMS.md"
    text = re.sub(
        r"^\| paper \| (\d+) \|(.*) \| (\d+) \|$",
        lambda m: f"| paper | {int(m.group(1)) + 1} |{m.group(2)} | {int(m.group(3)) + 1} |",
        ledger.read_text(encoding="utf-8"),
        count=1,
        flags=re.M,
    )
    ledger.write_text(
        text + f"\n## {KEY}\n\n| kind | claim |\n|---|---|\n| paper | mean_near_half |\n",
        encoding="utf-8",
    )
    assert _texts(checkout) != before
    run = _run(
        [sys.executable, "-m", "fairlib.repro.scaffold", "--root", str(checkout), "--remove", KEY],
        checkout,
    )
    assert run.returncode == 0, run.stderr
    assert _texts(checkout) == before


def test_the_command_line_names_a_bad_call(checkout):
    run = _run(
        [
            sys.executable,
            "-m",
            "fairlib.repro.scaffold",
            "--root",
            str(checkout),
            "paper",
            "li2019",
            *OPTIONS,
            "--driver",
            "x_topic",
        ],
        checkout,
    )
    assert (
        run.returncode == 2 and "KEY = 'li2019': already in fairlib/repro/catalog.py" in run.stderr
    )
    bad = [*OPTIONS[:1], "Doe", *OPTIONS[2:]]
    run = _run(
        [
            sys.executable,
            "-m",
            "fairlib.repro.scaffold",
            "--root",
            str(checkout),
            "paper",
            KEY,
            *bad,
            "--driver",
            DRIVER,
        ],
        checkout,
    )
    assert run.returncode == 2 and "--authors: 'Doe' is not 'Family, Given'" in run.stderr
    run = _run(
        [
            sys.executable,
            "-m",
            "fairlib.repro.scaffold",
            "--root",
            str(checkout),
            "paper",
            KEY,
            "--title",
            "t",
            "--citation",
            "c",
            "--driver",
            DRIVER,
        ],
        checkout,
    )
    assert (
        run.returncode == 2 and "--authors" in run.stderr and "--venue-kind" in run.stderr
    )  # what is missing


@pytest.mark.notebook
@pytest.mark.skipif(
    not (ROOT / ".venv" / "bin" / "python").exists(),
    reason="needs this checkout's .venv (make install)",
)
def test_make_test_paper_and_the_quick_run_are_green_on_a_fresh_scaffold(checkout):
    """The loop CONTRIBUTING.md gives, in the copy (its .venv a link to this checkout's: run_all.py
    accepts it)."""
    assert (
        _run(
            [
                sys.executable,
                "-m",
                "fairlib.repro.scaffold",
                "--root",
                str(checkout),
                "paper",
                KEY,
                *OPTIONS,
                "--driver",
                DRIVER,
            ],
            checkout,
        ).returncode
        == 0
    )
    assert (
        _run(
            [
                sys.executable,
                "-m",
                "fairlib.repro.scaffold",
                "--root",
                str(checkout),
                "mechanism",
                MECH,
                "--pooled",
                "--paper",
                KEY,
            ],
            checkout,
        ).returncode
        == 0
    )
    # -o: the linked environment is installed; never rebuild it from the copy's newer pyproject.toml
    loop = _run(["make", "-o", ".venv/.fairlib-installed", "test-paper", f"KEY={KEY}"], checkout)
    assert loop.returncode == 0, loop.stdout[-5000:] + loop.stderr[-3000:]
    assert (
        f"test_paper_notebook_quick_mode[{KEY}] PASSED" in loop.stdout or " passed" in loop.stdout
    )
    # the bad-input contract on the modules it adds (its driver and mechanism), registered or not
    contract = [
        line for line in (loop.stdout + loop.stderr).splitlines() if "--contract-modules" in line
    ]
    added = (f"fairlib/repro/experiments/{DRIVER}.py", f"fairlib/multires/{MECH}.py")
    assert contract and all(f in contract[0] for f in added)
    run = _run(
        [str(checkout / ".venv" / "bin" / "python"), "run_all.py", "--quick", "--only", KEY],
        checkout,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "1/1 (quick: provisional)" in run.stdout


def test_what_would_not_parse_or_would_shadow_a_public_name_is_refused_and_nothing_is_written(
    checkout,
):
    before = _texts(checkout)
    quoted = scaffold.paper_from_options(
        "Doe, Jane",
        'A title with """ three quotes',
        2024,
        "article",
        "arXiv preprint",
        "https://arxiv.org/abs/2401.00001",
    )
    # a backslash in a title or label (a regular expression's group reference, a trailing one) is
    # escaped where it is written, not refused: tests/test_scaffold_labels.py reads such text back
    for call, message in [
        (lambda: scaffold.scaffold_paper(KEY, quoted, DRIVER, root=checkout), "would not parse"),
        (lambda: scaffold.scaffold_mechanism("best_response", "game", root=checkout), "shadow"),
        (lambda: scaffold.scaffold_mechanism("dynamic_drf", "pooled", root=checkout), "shadow"),
    ]:
        with pytest.raises(scaffold.ScaffoldError, match=message):
            call()
        assert _texts(checkout) == before


def test_a_tolerance_is_declared_by_command_and_removed_with_the_paper(checkout):
    """``scaffold tolerance KEY`` writes the notebook-wide ``TOLERANCES`` entry a paper with
    CPU-dependent results needs (so ``fairlib/repro/verify.py`` is not edited by hand) and renders
    ``docs/verify.md``; a bad value is refused by name with nothing written, a second declaration is
    refused, and ``--remove`` takes the entry away with the paper."""
    before = _texts(checkout)
    scaffold.scaffold_paper(KEY, PAPER, DRIVER, root=checkout)
    scaffolded = _texts(checkout)
    reason = "an iterative solver stopped at a relative residual of 1e-7 (a factor 10 left)"
    for args, message in (
        (["no_such_key", "--rtol", "1e-6", "--atol", "1e-9"], "KEY = 'no_such_key'"),
        ([KEY, "--rtol", "0.5", "--atol", "1e-9"], "--rtol"),
        ([KEY, "--rtol", "1e-6", "--atol", "nan"], "--atol"),
        ([KEY, "--rtol", "1e-6", "--atol", "1e-9", "--digits", "40"], "--digits"),
    ):
        run = _run(
            [sys.executable, "-m", "fairlib.repro.scaffold", "--root", str(checkout), "tolerance"]
            + args
            + ["--reason", reason],
            checkout,
        )
        assert run.returncode == 2 and message in run.stderr, (args, run.stderr[-2000:])
    with pytest.raises(scaffold.ScaffoldError, match="--reason"):
        scaffold.scaffold_tolerance(KEY, 1e-6, 1e-9, "rounding", root=checkout)
    assert _texts(checkout) == scaffolded
    run = _run(
        [sys.executable, "-m", "fairlib.repro.scaffold", "--root", str(checkout), "tolerance", KEY]
        + ["--rtol", "1e-6", "--atol", "1e-9", "--digits", "7", "--reason", reason * 2],
        checkout,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert "fairlib/repro/verify.py" in run.stdout and "docs/verify.md" in run.stdout
    declared = _run(
        [
            sys.executable,
            "-c",
            "from fairlib.repro.verify import declared_tolerance as d; "
            f"print(tuple(d({KEY!r}, 'any_table', 'any_column'))); "
            "print(d('no_such_key', 'any_table', 'any_column'))",
        ],
        checkout,
    )
    assert declared.stdout.splitlines() == [
        repr((1e-6, 1e-9, reason * 2, 7, ())),
        "None",
    ], declared.stderr[-2000:]
    assert KEY in (checkout / "docs" / "verify.md").read_text(encoding="utf-8")
    assert max(map(len, (checkout / "fairlib/repro/verify.py").read_text().splitlines())) <= 100
    with pytest.raises(scaffold.ScaffoldError, match="already has tolerances"):
        scaffold.scaffold_tolerance(KEY, 1e-6, 1e-9, reason, root=checkout)
    scaffold.remove_paper(KEY, root=checkout)
    assert _texts(checkout) == before


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda root: scaffold.scaffold_paper("smith2024\n", PAPER, DRIVER, root=root), "KEY"),
        (lambda root: scaffold.scaffold_paper(KEY, PAPER, "drv\n", root=root), "--driver"),
        (lambda root: scaffold.scaffold_mechanism("probe_mech\n", "pooled", root=root), "NAME"),
        (
            lambda root: scaffold.scaffold_mechanism(
                "probe_mech", "model", model="Post\n", root=root
            ),
            "--new-model",
        ),
    ],
)
def test_a_name_with_a_trailing_newline_is_refused_by_name(tmp_path, call, message):
    """A name check matches the whole text: ``$`` would let a final newline through, and the
    failure would come later, blaming another option."""
    with pytest.raises(scaffold.ScaffoldError, match=rf"^{message} = '.*\\n': must be"):
        call(tmp_path)
    assert list(tmp_path.iterdir()) == []
