"""The front door: README and docs/ are short, current reference whose numbers are rendered, never
typed.

Checked here: the README is a landing page (at most 12 KB, no line over 400 characters), neither it
nor any page of docs/ speaks of history, every rendered block equals its rendering from the
committed results and the catalogue (the README's results table, count and list of papers,
CITATION.cff's references), no page types a count of papers, the performance page equals the
rendering of the committed benchmark results, the citation validates, every relative link resolves
and the README's library example runs and prints what its comments say.
"""

import contextlib
import io
import re
import shutil
import subprocess

import pytest

from benchmarks import _results
from fairlib import paths
from fairlib._validate import InvalidInputError
from fairlib.repro import landing

ROOT = paths.ROOT
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
HISTORY_WORDS = [
    "this round",
    "earlier round",
    "previous round",
    "before it",
    "reference machine",
    "EPYC",
    "issue #",
]


def test_readme_is_a_landing_page():
    size = len(README.read_bytes())
    assert size <= 12 * 1024, (
        f"README.md is {size} bytes: a landing page is at most 12 KB (reference goes to docs/)"
    )


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_line_over_400_characters(page):
    long = [
        (n, len(line))
        for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
        if len(line) > 400
    ]
    assert not long, f"{page.name}: lines over 400 characters (line, length): {long}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_reference_pages_speak_of_the_present(page):
    text = page.read_text(encoding="utf-8").lower()
    found = [w for w in HISTORY_WORDS if w.lower() in text]
    assert not found, (
        f"{page.name} speaks of history ({found}): say what is true now; history goes to "
        "CHANGELOG.md"
    )


@pytest.mark.parametrize("path", landing.RENDERED, ids=lambda p: str(p.relative_to(ROOT)))
def test_rendered_blocks_equal_their_rendering(path):
    text = path.read_text(encoding="utf-8")
    assert "<!-- BEGIN " in text or "\n# BEGIN " in text
    assert landing.render(text) == text, (
        f"{path.name} is stale: run python -m fairlib.repro.landing"
    )


def test_what_the_catalogue_declares_is_rendered_in_the_readme_and_the_citation():
    """The README's results block counts the catalogue's notebooks and papers, its papers block and
    CITATION.cff's references list every paper of the catalogue, and those blocks exist (so the test
    above covers them)."""
    import yaml

    from fairlib.repro import catalog

    readme = README.read_text(encoding="utf-8")
    for name in ("results", "papers"):
        assert f"<!-- BEGIN {name} -->" in readme and f"<!-- END {name} -->" in readme, name
    assert (
        landing.count_line()
        in readme.split("<!-- BEGIN results -->")[1].split("<!-- END results -->")[0]
    )
    text = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    assert "\n# BEGIN references\n" in text and "\n# END references\n" in text
    refs = yaml.safe_load(text)["references"]
    assert [r["url"] for r in refs] == [p.url for p in catalog.PAPERS.values()]
    for ref, paper in zip(refs, catalog.PAPERS.values()):
        assert (
            ref["title"] == paper.title
            and ref["year"] == paper.year
            and ref["type"] == paper.venue_kind
        )
        assert [(a["family-names"], a["given-names"]) for a in ref["authors"]] == list(
            paper.authors
        )
        assert ref[catalog.VENUE_KINDS[paper.venue_kind]] == paper.venue


def test_references_read_back_as_written():
    """Names and titles YAML would misread plain (``No``, a colon, quotes) are quoted: the rendered
    references parse back to the catalogue's values."""
    import yaml

    from fairlib.repro.catalog import Paper

    odd = Paper(
        (("No", "Yes"), ("O'Brien", "John N."), ("van der Berg", "José"), ('Q "x"', "A: b")),
        'A title: with "quotes" and # a hash',
        "conference-paper",
        "Proc. of: Something",
        2024,
        "https://doi.org/10.1/x",
        notes="doi:10.1/x",
    )
    ref = yaml.safe_load("references:\n" + landing.references_block({"odd2024": odd}))[
        "references"
    ][0]
    assert [(a["family-names"], a["given-names"]) for a in ref["authors"]] == list(odd.authors)
    assert (ref["title"], ref["collection-title"], ref["year"], ref["url"], ref["notes"]) == (
        odd.title,
        odd.venue,
        2024,
        odd.url,
        odd.notes,
    )


def test_the_count_line_is_derived():
    from fairlib.repro.catalog import Notebook

    one = {"a": Notebook("a", "a.ipynb", "A", paper="p")}
    assert landing.count_line(one) == "1 notebook reproduces 1 paper."
    two = {
        **one,
        "b": Notebook("b", "b.ipynb", "B", paper="p"),
        "c": Notebook("c", "c.ipynb", "C"),
        "d": Notebook("d", "d.ipynb", "D"),
    }
    assert landing.count_line(two) == (
        "4 notebooks reproduce 1 paper and run 2 studies of our own (`c`, `d`)."
    )


#: a count of papers typed into prose ("four papers", "4 papers", "two published papers"): the
#: catalogue counts them
TYPED_COUNT = re.compile(
    r"\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d+)\s+(?:[\w'-]+\s+)?"
    r"papers?\b",
    re.IGNORECASE,
)
PROSE = [
    README,
    ROOT / "CONTRIBUTING.md",
    *sorted((ROOT / "docs").glob("*.md")),
    *sorted((ROOT / "book").glob("*.md")),
    ROOT / "book" / "_config.yml",
]


@pytest.mark.parametrize("page", PROSE, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_page_types_a_count_of_papers(page):
    """How many papers there are is rendered from the catalogue (the README's results block), never
    typed: a page says "the papers" (or "every claim of the papers listed below"), and a rendered
    block is left out of the check."""
    text = page.read_text(encoding="utf-8")
    for block in landing._BLOCKS:
        text = block.sub("", text)
    typed = sorted({m.group(0) for m in TYPED_COUNT.finditer(" ".join(text.split()))})
    assert not typed, (
        f"{page.relative_to(ROOT)} types a count of papers ({typed}): the catalogue counts them "
        "(fairlib/repro/catalog.py, rendered into the README's results block); reword "
        "without a number, e.g. 'every claim of the papers listed below'"
    )


def test_the_typed_count_pattern():
    found = [
        bool(TYPED_COUNT.search(t))
        for t in (
            "four papers",
            "the 4 papers",
            "Two published papers",
            "12 papers",
            "one notebook per paper",
            "the papers listed below",
            "6 notebooks",
            "§2 of the paper",
        )
    ]
    assert found == [True, True, True, True, False, False, False, False]


def test_the_make_line_states_the_full_run_against_its_targets(tmp_path):
    """The README's ``make`` line is rendered from the full-run benchmark's rows: the time in all
    and per notebook, the longest cell, each against its target and whether it is met."""
    rows = [
        _results.Row(landing.FULL_RUN_TOTAL, "35 min", "2 notebooks", 35.0, "min", "<= 30"),
        _results.Row(landing.FULL_RUN_CELL, "3.5 min", "beta, In [2]", 3.5, "min", "<= 4"),
        _results.Row(landing.FULL_RUN_NOTEBOOK + "alpha", "10 min", "", 10.0, "min"),
        _results.Row(landing.FULL_RUN_NOTEBOOK + "beta", "25 min", "", 25.0, "min"),
    ]
    context = {
        "cpu": "x",
        "cores": 2,
        "versions": {},
        "commit": "",
        "date": "2026-01-01 to 2026-01-02",
        "load_before": 0.0,
    }
    path = _results.save("full_run", rows, context, "python -m benchmarks full_run", tmp_path)
    block = landing.timings_block(full_run=path, suite=tmp_path / "none.json")
    assert all(len(line) <= 118 for line in block.splitlines())
    line = block.split("\n- ")[0].replace("\n  ", " ")
    assert line == (
        "- `make`: the notebooks' last full-mode runs took 35 min of wall time in all "
        "(target ≤ 30 min: not met; alpha 10 min, beta 25 min); the longest cell 3.5 min "
        "(beta, In [2]; target ≤ 4 min: met). Runs of 2026-01-01 to 2026-01-02, from "
        "`benchmarks/results/full_run.json`; plus a few minutes of installation."
    )
    assert landing.full_run_line(tmp_path / "none.json") == (
        "- `make`: not measured yet (`python -m benchmarks full_run`)."
    )


def test_results_table_counts_every_paper_claim_of_the_ledger():
    import csv

    rows = list(csv.DictReader((paths.RESULTS / "claims.csv").open(encoding="utf-8")))
    table = landing.results_block()
    paper = [r for r in rows if r["kind"] == "paper"]
    assert f"**paper** claims: {len(paper)} (" in table
    for p in landing.rows():
        mine = [r for r in paper if r["paper"] == p.key]
        if mine:
            counts = " / ".join(str(sum(r["status"] == s for r in mine)) for s in landing.STATUSES)
            assert f"| {counts} |" in table.split(f"[{p.key}]")[1].split("\n")[0]
        assert len(p.headline) <= 200, f"{p.key}: a headline is at most 200 characters"


def test_readme_links_every_paper_and_where_to_read_the_results():
    import yaml

    text = README.read_text(encoding="utf-8")
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    for ref in cff["references"]:
        assert ref["url"] in text, f"the README does not link {ref['title']!r} ({ref['url']})"
    for where in ("executed/", "build/site/index.html", "data/results/CLAIMS.md", "make test"):
        assert where in text


@pytest.mark.parametrize(
    "page",
    [*PAGES, ROOT / "CHANGELOG.md", ROOT / "data" / "README.md"],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_relative_links_resolve(page):
    text = page.read_text(encoding="utf-8")
    broken = []
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if "://" in target or target.startswith("mailto:"):
            continue
        if not (page.parent / target).exists():
            broken.append(target)
    assert not broken, f"{page.name}: links to files that do not exist: {broken}"


def test_readme_library_example_runs_and_prints_what_it_says():
    block = re.search(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL).group(
        1
    )
    assert len(block.strip().splitlines()) <= 10
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, "README.md", "exec"), {})
    assert out.getvalue().splitlines()[0] == "[3 2]"


def test_performance_page_is_the_rendering_of_the_committed_results():
    records = _results.load()
    assert records, "benchmarks/results/ holds no results: run make bench"
    page = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    assert page == _results.render(records), (
        "docs/performance.md is stale: run python -m benchmarks --report"
    )


@pytest.mark.parametrize("page", _results.DOC_PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_benchmark_blocks_of_the_docs_are_the_rendering_of_the_committed_results(page):
    text = page.read_text(encoding="utf-8")
    assert "<!-- BEGIN bench:" in text
    assert _results.render_doc(text, _results.load()) == text, (
        f"{page.name} is stale: run python -m benchmarks --report"
    )


def test_a_doc_block_names_a_benchmark_with_results():
    text = "a\n<!-- BEGIN bench:nothing -->\nold\n<!-- END bench:nothing -->\n"
    with pytest.raises(
        ValueError, match="bench:nothing: there is no benchmarks/results/nothing.json"
    ):
        _results.render_doc(text, _results.load())


def test_a_row_is_met_by_its_value_and_target_alone():
    row = _results.Row("r", "1 s", "2 s", 99.9, "×", ">= 100")
    assert row.met is False and _results.Row("r", "", "", 100.0, "×", ">= 100").met is True
    assert _results.Row("r", "", "", 3.0, "×").met is None
    with pytest.raises(ValueError, match="operator"):
        _results.Row("r", "", "", 1.0, "s", "~ 3")
    page = _results.render(
        [
            {
                "benchmark": "b",
                "command": "python -m benchmarks b",
                "date": "2026-01-01",
                "cpu": "x86_64",
                "cores": 2,
                "versions": {},
                "load_before": 0.1,
                "load_after": 0.2,
                "rows": [row],
            }
        ]
    )
    assert (
        "**not met**, 0.99×" in page
        and "0 of 1 gated rows met; 0 of them with the 1.2× margin." in page
    )
    thin = _results.Row(
        "r", "", "", 119.9, "×", ">= 100"
    )  # 1.199: met, shown rounded down, listed as thin
    assert thin.met and _results._met(thin) == "met, 1.19×"
    page = _results.render(
        [
            {
                "benchmark": "b",
                "command": "c",
                "date": "d",
                "cpu": "x",
                "cores": 2,
                "versions": {},
                "load_before": 0.1,
                "load_after": 0.2,
                "rows": [thin],
            }
        ]
    )
    assert (
        "1 of 1 gated rows met; 0 of them with the 1.2× margin." in page
        and "less than the 1.2× margin" in page
    )
    exponent = _results.Row("r", "", "", 1.1, "", "<= 1.15")
    assert exponent.margin is None and _results._met(exponent) == "met"


def _cffconvert() -> str | None:
    local = ROOT / ".venv" / "cffconvert" / "bin" / "cffconvert"
    return str(local) if local.exists() else shutil.which("cffconvert")


def test_citation_validates_with_cffconvert():
    exe = _cffconvert()
    assert exe, (
        "cffconvert is missing: `make test` installs it into .venv/cffconvert "
        "(make .venv/cffconvert/bin/cffconvert)"
    )
    run = subprocess.run(
        [exe, "--validate", "-i", str(ROOT / "CITATION.cff")], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_changelog_keeps_a_changelog():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert text.startswith("# Changelog") and "## [Unreleased]" in text
    assert re.search(r"^## \d{4}-\d{2}-\d{2}", text, re.MULTILINE)


def test_a_papers_reconstructions_are_rendered_from_its_registry_and_must_be_tagged(
    tmp_path, monkeypatch
):
    from fairlib.repro import catalog, ledger

    nb = catalog.NOTEBOOKS["feldman2005"]
    registry = tmp_path / "demo.toml"
    monkeypatch.setattr(ledger, "registry_path", lambda key: registry)
    registry.write_text('reconstructions = "The random instances are ours [INF]."\n')
    block = landing.reconstructions_block({"demo": nb})
    assert block.startswith("### Feldman, Lai, Zhang, ") and block.endswith("are ours [INF].")
    assert "— `demo`" in block
    registry.write_text('reconstructions = "The random instances are ours."\n')
    with pytest.raises(InvalidInputError, match=r"names no provenance tag"):
        landing.reconstructions_block({"demo": nb})
    registry.write_text("[[claim]]\nid = 'x'\n")
    assert landing.reconstructions_block({"demo": nb}).startswith("No paper declares")
