"""The reader's copies: executed notebooks from the current sources, with their Findings from the
run's ledger, and every claim linked to the cell that measured it."""

import json
import os
import re

import nbformat
import pytest

from fairlib import paths, timing
from fairlib.repro import catalog, executed
from fairlib.paths import ROOT

ALL = [executed.PublishedNotebook(nb.key, nb.title, nb.path) for nb in catalog.NOTEBOOKS.values()]


def _ran(nb) -> bool:
    """Whether the notebook has been run in full mode: its committed ledger or its executed copy
    exists. A paper just scaffolded has neither (the README's table says "not run yet"); once either
    exists, every check here holds."""
    return (paths.RESULTS / nb.key / "claims.json").is_file() or (
        paths.executed_dir() / f"{nb.key}.ipynb"
    ).is_file()


#: every catalogued notebook, those never run in full mode skipped with the command that runs them
NOTEBOOKS = [
    nb
    if _ran(nb)
    else pytest.param(
        nb,
        marks=pytest.mark.skip(
            reason=f"{nb.key}: not run in full mode yet (python run_all.py --only {nb.key} "
            f"publishes executed/{nb.key}.ipynb "
            "and its ledger)"
        ),
    )
    for nb in ALL
]


def _key(nb):
    return nb.key


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=_key)
def test_executed_notebook_comes_from_the_current_source(nb):
    """executed/<key>.ipynb was run in full mode from exactly the cells the source notebook has now,
    without errors."""
    assert executed.executed_problems(nb) == []


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=_key)
def test_every_claim_links_to_the_cell_that_measured_it(nb):
    """Each claim of the committed ledger names a cell of the committed executed notebook (the site
    links to it)."""
    ledger = json.loads((paths.RESULTS / nb.key / "claims.json").read_text())
    cells = executed.claim_cells(
        nbformat.read(str(paths.executed_dir() / f"{nb.key}.ipynb"), as_version=4)
    )
    unlinked = [c["claim_id"] for c in ledger["claims"] if c.get("cell") not in cells]
    assert not unlinked, (
        f"{nb.key}: claims whose measuring cell is not in the executed notebook: {unlinked}"
    )


def test_claims_md_links_every_claim_to_its_cell_in_one_click():
    """Each row of data/results/CLAIMS.md links to the heading of the cell that measured it in
    executed/<key>.md (GitHub gives that heading the anchor; its notebook view has no cell anchors):
    the heading exists, and the cell under it is the one the claim recorded."""
    from fairlib.repro.ledger import cell_key

    ledger = (paths.RESULTS / "CLAIMS.md").read_text(encoding="utf-8")
    for nb in filter(_ran, ALL):
        claims = json.loads((paths.RESULTS / nb.key / "claims.json").read_text())["claims"]
        section = ledger.split(f"\n## {nb.key}", 1)[1].split("\n## ", 1)[0]
        view = (paths.executed_dir() / f"{nb.key}.md").read_text(encoding="utf-8")
        for c in claims:
            # the claim's cell carries its anchor (claim-<id>), which the notebooks' Claims lists
            # link to
            start = f'| {c["kind"]} | <a id="claim-{c["claim_id"]}"></a>{c["claim_id"]} |'
            row = next(line for line in section.splitlines() if line.startswith(start))
            link = re.search(r"\[In \[(\d+)\]\]\(\.\./\.\./executed/([\w]+)\.md#in-(\d+)\)", row)
            assert link, f"{nb.key}/{c['claim_id']}: no link to its cell in CLAIMS.md: {row[-80:]}"
            n, key, anchor = link.groups()
            assert key == nb.key and n == anchor
            source = view.split(f"\n#### In [{n}]\n\n```python\n", 1)[1].split("\n```", 1)[0]
            assert cell_key(source) == c["cell"], (
                f"{nb.key}/{c['claim_id']}: In [{n}] is not its measuring cell"
            )


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=_key)
def test_figures_named_in_the_reproduced_table_exist(nb):
    """Every `fig...` name the notebook's markdown cites is a committed figure (`fig2_*` names a
    group)."""
    doc = json.loads((ROOT / nb.source).read_text())
    text = "\n".join("".join(c["source"]) for c in doc["cells"] if c["cell_type"] == "markdown")
    cited = set(re.findall(r"`(fig[\w*]*)`", text))
    assert cited, f"{nb.source} cites no figure"
    missing = sorted(n for n in cited if not list((paths.FIGURES / nb.key).glob(f"{n}.png")))
    assert not missing, f"{nb.source} cites figures that are not under figures/{nb.key}/: {missing}"


def _notebook(tmp_path, outputs):
    kernel = {"name": "python3", "display_name": "Python 3", "language": "python"}
    src = nbformat.v4.new_notebook(metadata={"kernelspec": kernel})
    params = nbformat.v4.new_code_cell('MODE = "full"')
    params.metadata["tags"] = ["parameters"]
    src.cells = [
        nbformat.v4.new_markdown_cell("# Demo"),
        params,
        nbformat.v4.new_code_cell("run()"),
    ]
    nbformat.write(src, str(tmp_path / "demo.ipynb"))
    done = nbformat.read(str(tmp_path / "demo.ipynb"), as_version=4)
    injected = nbformat.v4.new_code_cell('MODE = "full"')
    injected.metadata["tags"] = ["injected-parameters"]
    done.cells.insert(2, injected)
    done.cells[3].outputs = outputs
    done.metadata["papermill"] = {
        "parameters": {"MODE": "full"},
        "input_path": str(tmp_path / "demo.ipynb"),
    }
    nbformat.write(done, str(tmp_path / "done.ipynb"))
    return executed.PublishedNotebook("demo", "Demo", str(tmp_path / "demo.ipynb"))


def test_publish_drops_stderr_makes_paths_relative_and_records_its_source(tmp_path):
    out = nbformat.v4.new_output
    nb = _notebook(
        tmp_path,
        [
            out("stream", name="stderr", text="\rwork:  10%|#"),
            out("stream", name="stderr", text="\rwork: 100%|##########\n"),
            out("stream", name="stderr", text="\rnested: 50%"),  # a bar that clears itself
            out("stream", name="stderr", text="\r            \r"),
            out(
                "stream", name="stdout", text=f"read {ROOT}/data/x.csv and {ROOT.parent}/shared/y\n"
            ),
        ],
    )
    published = executed.publish_executed(nb, tmp_path / "done.ipynb", tmp_path / "executed")
    doc = nbformat.read(str(published), as_version=4)
    (stdout,) = doc.cells[3].outputs  # progress bars and warnings (stderr) are not for a reader
    assert stdout.text == "read data/x.csv and ../shared/y\n"
    assert doc.metadata["fairlib"]["source_digest"] == executed.source_digest(
        nbformat.read(nb.source, as_version=4)
    )
    assert doc.metadata["fairlib"]["machine"] == {
        "cpu": timing.cpu_model(),
        "cores": os.cpu_count(),
    }
    assert executed.executed_problems(nb, tmp_path / "executed") == []
    # the source changes after the run: the published copy no longer stands for it
    src = nbformat.read(nb.source, as_version=4)
    src.cells[2].source = "run(faster=True)"
    nbformat.write(src, nb.source)
    problems = executed.executed_problems(nb, tmp_path / "executed")
    assert len(problems) == 1 and "other cells" in problems[0]
    with pytest.raises(ValueError, match="differ"):
        executed.publish_executed(nb, tmp_path / "done.ipynb", tmp_path / "executed")


def test_text_view_gives_every_code_cell_a_heading(tmp_path):
    out = nbformat.v4.new_output
    nb = _notebook(
        tmp_path,
        [
            out("stream", name="stdout", text="done\n"),
            out("display_data", data={"text/markdown": "**What we found.** 3 of 4."}),
            out(
                "display_data",
                data={
                    "text/html": "<style scoped>td {}</style><table></table>",
                    "text/plain": "frame",
                },
            ),
            out("display_data", data={"image/png": "iVBOR", "text/plain": "<Figure>"}),
        ],
    )
    done = nbformat.read(str(tmp_path / "done.ipynb"), as_version=4)
    for i, cell in enumerate(c for c in done.cells if c.cell_type == "code"):
        cell.execution_count = i + 1
    nbformat.write(done, str(tmp_path / "done.ipynb"))
    executed.publish_executed(nb, tmp_path / "done.ipynb", tmp_path / "executed")
    view = (tmp_path / "executed" / "demo.md").read_text()
    assert "# Demo" in view and "#### In [1]" in view and "#### In [3]" in view
    assert "#### In [2]" not in view  # papermill's injected cell left out
    assert "```python\nrun()\n```\n\n```\ndone\n```" in view
    assert (
        "**What we found.** 3 of 4." in view and "<table></table>" in view and "<style" not in view
    )
    assert "*(figure: in the notebook and under `figures/demo/`)*" in view and "iVBOR" not in view
    assert executed.executed_problems(nb, tmp_path / "executed") == []
    (tmp_path / "executed" / "demo.md").write_text(view + "edited\n")
    assert any("does not match" in p for p in executed.executed_problems(nb, tmp_path / "executed"))


def test_an_executed_notebook_with_an_error_or_in_quick_mode_is_reported(tmp_path):
    nb = _notebook(
        tmp_path, [nbformat.v4.new_output("error", ename="ValueError", evalue="x", traceback=[])]
    )
    executed.publish_executed(nb, tmp_path / "done.ipynb", tmp_path / "executed")
    problems = executed.executed_problems(nb, tmp_path / "executed")
    assert any("end in an error" in p for p in problems)
    assert (
        "missing"
        in executed.executed_problems(
            executed.PublishedNotebook("other", "Other", nb.source), tmp_path
        )[0]
    )


def test_claim_log_records_no_cell_outside_a_notebook():
    from fairlib.repro.ledger import ClaimLog

    log = ClaimLog(
        "demo",
        write=False,
        registry='[[claim]]\nid = "c"\nkind = "check"\nsource = "s"\n'
        'statement = "t"\nat_least = 0\n',
    )
    log.measure("c", 1.0)
    assert log.claims[0].cell is None


def test_publish_renders_the_findings_from_the_ledger_the_run_wrote(tmp_path, monkeypatch):
    """The Findings cell ran before the notebook measured anything; publishing renders it again from
    the ledger the run just wrote, so the executed copy states this run's results."""
    out = nbformat.v4.new_output
    nb = _notebook(tmp_path, [])
    src = nbformat.read(nb.source, as_version=4)
    findings = nbformat.v4.new_code_cell('show_findings(KEY, MODE, ["a", "b", "c"])')
    findings.metadata["tags"] = ["findings", "remove-input"]
    src.cells.insert(1, findings)
    nbformat.write(src, nb.source)
    done = nbformat.read(str(tmp_path / "done.ipynb"), as_version=4)
    stale = findings.copy()
    stale.outputs = [out("display_data", data={"text/markdown": "- stale", "text/plain": "stale"})]
    done.cells.insert(1, stale)
    nbformat.write(done, str(tmp_path / "done.ipynb"))
    monkeypatch.setenv("FAIRLIB_OUTPUT_DIR", str(tmp_path))
    ledger = [
        {
            "claim_id": c,
            "kind": "paper",
            "source": "§1",
            "statement": f"claim {c}",
            "status": "held",
            "ours": 1.5,
            "note": "",
        }
        for c in "abc"
    ]
    (tmp_path / "results" / "demo").mkdir(parents=True)
    (tmp_path / "results" / "demo" / "claims.json").write_text(json.dumps({"claims": ledger}))
    doc = nbformat.read(
        str(executed.publish_executed(nb, tmp_path / "done.ipynb", tmp_path / "executed")), 4
    )
    (shown,) = doc.cells[1].outputs
    assert shown.data["text/markdown"].startswith("- **Held** (§1): claim a — we measure 1.5.")
    assert "stale" not in json.dumps(shown)
    assert executed.executed_problems(nb, tmp_path / "executed") == []
    # the wording changes, or the ledger is re-rendered: the Findings are stale until refreshed,
    # with no new run
    ledger[0]["statement"] = "claim a, reworded [setup: open loop [INF]]"
    (tmp_path / "results" / "demo" / "claims.json").write_text(json.dumps({"claims": ledger}))
    assert any(
        "--refresh-findings demo" in p
        for p in executed.executed_problems(nb, tmp_path / "executed")
    )
    executed.refresh_findings("demo", tmp_path / "executed")
    assert executed.executed_problems(nb, tmp_path / "executed") == []
    (shown,) = nbformat.read(str(tmp_path / "executed" / "demo.ipynb"), 4).cells[1].outputs
    assert shown.data["text/markdown"].startswith(
        "- **Held** (§1): claim a, reworded — we measure 1.5."
    )
    assert executed.findings_choice(findings.source) == ["a", "b", "c"]
    with pytest.raises(ValueError, match="show_findings"):
        executed.findings_choice("display(1)")


def test_publish_renders_the_running_note_and_keeps_the_cells_other_outputs(tmp_path, monkeypatch):
    """The running note is rendered again with the run's own time; what else the cell displayed (a
    notebook's "Data." line after the note) stays, in its place."""
    out = nbformat.v4.new_output
    nb = _notebook(tmp_path, [])
    # a running note is about a catalogued notebook (running_note refuses any other key)
    nb = executed.PublishedNotebook("feldman2005", nb.title, nb.source)
    src = nbformat.read(nb.source, as_version=4)
    note = nbformat.v4.new_code_cell(
        'show_running_note(KEY, MODE)\nshow_found("reads x", lead="Data.")'
    )
    src.cells.insert(1, note)
    nbformat.write(src, nb.source)
    done = nbformat.read(str(tmp_path / "done.ipynb"), as_version=4)
    ran = note.copy()
    ran.outputs = [
        out(
            "display_data",
            data={"text/markdown": "**This run: quick mode** — stale", "text/plain": "x"},
        ),
        out("display_data", data={"text/markdown": "**Data.** reads x", "text/plain": "y"}),
    ]
    done.cells.insert(1, ran)
    done.metadata["papermill"]["duration"] = 300.0
    nbformat.write(done, str(tmp_path / "done.ipynb"))
    monkeypatch.setenv("FAIRLIB_OUTPUT_DIR", str(tmp_path))
    doc = nbformat.read(
        str(executed.publish_executed(nb, tmp_path / "done.ipynb", tmp_path / "executed")), 4
    )
    shown = [o.data["text/markdown"] for o in doc.cells[1].outputs]
    assert len(shown) == 2 and shown[1] == "**Data.** reads x"
    assert shown[0].startswith("**This copy ran in full mode**") and "about 5 min" in shown[0]


def _source_cells(nb):
    return [
        c for c in json.loads((ROOT / nb.source).read_text())["cells"] if c["cell_type"] == "code"
    ]


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=_key)
def test_every_caption_names_only_what_its_figure_draws(nb):
    """Each saved figure's caption (the source cell's ``metadata.fairlib.captions``) names only
    marks the figure draws and mechanisms its text names
    (:func:`fairlib.repro.plotting.caption_problems` against the last full run's
    ``figures/<key>/marks.json``)."""
    from fairlib.repro.plotting import caption_problems
    from fairlib.repro.outputs import MARKS_FILE

    marks_file = paths.figures_dir(nb.key, "full") / MARKS_FILE
    assert marks_file.is_file(), f"{marks_file} is missing: the last full run predates it"
    marks = json.loads(marks_file.read_text(encoding="utf-8"))
    problems = []
    for cell in _source_cells(nb):
        captions = cell["metadata"].get("fairlib", {}).get("captions", [])
        names = re.findall(
            r'save_figure\(\s*\w+\s*,\s*\w+\s*,\s*f?"([^"{]+)', "".join(cell["source"])
        )
        for name, caption in zip(names, captions):
            if name not in marks:
                problems.append(f"{name}: not in {MARKS_FILE}")
                continue
            problems += [f"{name}: {p}" for p in caption_problems(caption, marks[name])]
    assert not problems, f"{nb.key}:\n" + "\n".join(problems)


@pytest.mark.parametrize(
    "nb", ALL, ids=_key
)  # the source and the registry only: a paper not yet run too
def test_every_findings_bullet_is_a_declared_headline(nb):
    """The claims a notebook's Findings show each declare a ``headline`` (plain words, units, the
    comparison with the paper; at most 35 words once filled, which ``findings_markdown`` enforces):
    a bullet is never a rule's wording."""
    from fairlib.repro.prose import registry_headlines

    cell = next(
        c for c in _source_cells(nb) if executed.FINDINGS_TAG in c["metadata"].get("tags", [])
    )
    chosen = executed.findings_choice("".join(cell["source"]))
    missing = [claim_id for claim_id in chosen if claim_id not in registry_headlines(nb.key)]
    assert not missing, f"{nb.key}: Findings claims without a headline in its registry: {missing}"


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=_key)
def test_a_published_copy_lists_every_claim_and_reruns_in_quick_mode(nb):
    """The Claims list of a published copy names every claim of its ledger (the not-tested ones
    too), and papermill's injected cell is kept as a record only: re-running the copy (on Binder,
    say) uses the parameters cell's mode."""
    doc = nbformat.read(str(paths.executed_dir() / f"{nb.key}.ipynb"), as_version=4)
    ledger = json.loads((paths.RESULTS / nb.key / "claims.json").read_text())["claims"]
    listing = next(
        o.data["text/markdown"]
        for c in doc.cells
        if c.cell_type == "code" and "claims.listing()" in c.source
        for o in c.outputs
        if "text/markdown" in o.get("data", {})
    )
    assert not [c["claim_id"] for c in ledger if f"#claim-{c['claim_id']} " not in listing]
    injected = [c for c in doc.cells if "injected-parameters" in c.metadata.get("tags", [])]
    assert injected and all(
        line.startswith("#") or not line.strip() for c in injected for line in c.source.splitlines()
    )


def test_findings_before_the_run_that_measures_a_newly_declared_claim(monkeypatch, capsys):
    """A claim declared (or renamed) since the last ledger was written is not refused as a typo: the
    Findings wait for the next run; an id the registry does not declare still is."""
    from fairlib.repro import prose

    ledger = [
        {"claim_id": "a", "kind": "paper", "source": "§1", "statement": "claim a", "status": "held"}
    ]
    monkeypatch.setattr(prose, "_ledger", lambda key, mode: ledger)
    monkeypatch.setattr(prose, "registry_headlines", lambda key: {"a": "A {ours}", "b": "B {ours}"})
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda obj: shown.append(obj.data))
    prose.show_findings("demo", "full", ["a", "b"])
    assert "predates `b`" in shown[-1] and "after the next run" in shown[-1]
    with pytest.raises(Exception, match="not a claim of the ledger"):
        prose.show_findings("demo", "full", ["a", "typo"])
