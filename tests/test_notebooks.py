"""Committed notebooks are stripped, follow the house structure, and run in quick mode.

``pytest tests/test_notebooks.py --paper KEY`` (or ``FAIRLIB_PAPER=KEY``) checks one catalogued
paper's notebook only; every notebook runs in its own test (so pytest-xdist spreads them over the
workers) with its own build folder."""

import json
import os
import subprocess
import sys

import pytest

from fairlib import paths
from fairlib.repro import catalog
from fairlib.paths import ROOT

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def pytest_generate_tests(metafunc):
    """Parametrise by notebook: the file tests by path (the template always, papers as selected),
    the quick run by catalogued key."""
    from tests.conftest import selected_papers

    keys = selected_papers(metafunc.config)
    chosen = {catalog.source_path(catalog.NOTEBOOKS[k]) for k in keys}
    everything = not (metafunc.config.getoption("--paper") or os.environ.get("FAIRLIB_PAPER"))
    if "path" in metafunc.fixturenames:
        paths = [p for p in NOTEBOOKS if everything or p in chosen or p.name == "_template.ipynb"]
        metafunc.parametrize("path", paths, ids=[p.name for p in paths])
    if "paper_key" in metafunc.fixturenames:
        metafunc.parametrize("paper_key", keys)


def test_there_are_notebooks():
    assert (ROOT / "notebooks" / "_template.ipynb") in NOTEBOOKS


def test_committed_notebook_outputs_are_stripped(path):
    nb = json.loads(path.read_text())
    dirty = [
        i
        for i, c in enumerate(nb["cells"])
        if c["cell_type"] == "code" and (c.get("outputs") or c.get("execution_count") is not None)
    ]
    assert not dirty, f"{path.name}: code cells {dirty} carry outputs; strip them before committing"


def test_house_structure(path):
    nb = json.loads(path.read_text())
    params = [c for c in nb["cells"] if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(params) == 1, f"{path.name}: needs exactly one cell tagged 'parameters'"
    src = "".join(params[0]["source"])
    # a notebook opened by hand (or launched on Binder) runs in quick mode; run_all.py injects the
    # mode it runs
    assert 'MODE = "quick"' in src and "SEED =" in src
    text = "".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    # a notebook tied to no paper (the atlas) states its modelling choices under "Choices and
    # limits"
    assert "## Claims" in text and (
        "## Deviations from the paper" in text or "## Choices and limits" in text
    )
    code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    import ast

    helpers = [
        type(n).__name__
        for n in ast.walk(ast.parse(code))
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef))
    ]
    assert not helpers, (
        f"{path.name}: thin notebooks only — move functions, lambdas, classes into fairlib "
        f"({helpers})"
    )


#: what a notebook may import from: fairlib, its public subpackages and top-level public modules
PUBLIC_MODULES = {
    "fairlib",
    "fairlib.market",
    "fairlib.multires",
    "fairlib.dynamic",
    "fairlib.traces",
    "fairlib.mechanisms",
    "fairlib.sim",
    "fairlib.sweep",
    "fairlib.metrics",
    "fairlib.paths",
    "fairlib.timing",
    "fairlib.repro",
    "fairlib.repro.experiments",
    "fairlib.repro.ledger",
    "fairlib.repro.outputs",
    "fairlib.repro.report",
    "fairlib.repro.plotting",
    "fairlib.repro.verify",
    "fairlib.repro.prose",
    "fairlib.repro.tables",
}


def test_notebooks_import_only_from_public_packages(path):
    import ast

    nb = json.loads(path.read_text())
    code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    bad = []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("fairlib"):
            modules = [node.module] + [
                f"{node.module}.{a.name}" for a in node.names if node.module == "fairlib"
            ]
            bad += [m for m in modules[:1] if m not in PUBLIC_MODULES]
            bad += [f"{node.module}.{a.name}" for a in node.names if a.name.startswith("_")]
        elif isinstance(node, ast.Import):
            bad += [
                a.name
                for a in node.names
                if a.name.startswith("fairlib") and a.name not in PUBLIC_MODULES
            ]
    assert not bad, (
        f"{path.name}: imports {bad}; import from the public packages ({sorted(PUBLIC_MODULES)})"
    )
    assert " as mx" not in code and " as sx" not in code and " as cmp" not in code


def test_a_notebook_reads_as_a_lecture(path):
    """Title and citation, then the Findings from the ledger; the parameters cell removed from the
    book and every other code cell folded or its code hidden; "What we found" rendered through
    fairlib.repro.prose (no visible f-string); every saved figure captioned (cell metadata
    ``fairlib.captions``, one per ``save_figure``, in order)."""
    import re

    from fairlib.repro.executed import FINDINGS_TAG, findings_choice

    nb = json.loads(path.read_text())
    cells = [(c["cell_type"], "".join(c["source"]), c.get("metadata", {})) for c in nb["cells"]]
    tags = [set(m.get("tags", [])) for _, _, m in cells]
    assert cells[0][0] == "markdown" and cells[0][1].startswith("# ")
    assert "**Citation.**" in cells[0][1] or "What this notebook is" in cells[0][1]
    first_md_after = next(i for i, (t, s, _) in enumerate(cells) if i > 0 and t == "markdown")
    assert cells[first_md_after][1] == "## Findings", (
        f"{path.name}: the first section after the title is Findings"
    )
    findings = [i for i, t in enumerate(tags) if FINDINGS_TAG in t]
    assert findings == [first_md_after + 1] and "remove-input" in tags[findings[0]]
    chosen = findings_choice(cells[findings[0]][1])
    assert len(chosen) <= 5
    if (
        not chosen
    ):  # [] shows the registry's first claims: a new paper's, until its first full run is committed
        key = next(
            (
                nb.key
                for nb in catalog.NOTEBOOKS.values()
                if catalog.source_path(nb).resolve() == path.resolve()
            ),
            None,
        )
        assert key is None or not (paths.results_dir(key, "full") / "claims.json").exists(), (
            f"{path.name}: its full-mode ledger is committed; name the paper's 3-5 main "
            "claims in show_findings"
        )
    for i, ((kind, source, meta), t) in enumerate(zip(cells, tags)):
        if kind != "code":
            continue
        assert t & {"remove-cell", "hide-cell", "hide-input", "remove-input"}, (
            f"{path.name}: code cell {i} is shown to the reader; tag it hide-input (or "
            "remove-input)"
        )
        if "parameters" in t:
            assert "remove-cell" in t
        if "What we found" in source or "show_found(" in source:
            assert "remove-input" in t, f"{path.name}: cell {i} shows the code of its prose"
        saved = re.findall(r'save_figure\(\s*\w+\s*,\s*\w+\s*,\s*f?"', source)
        captions = meta.get("fairlib", {}).get("captions", [])
        assert len(captions) == len(saved), (
            f"{path.name}: cell {i} saves {len(saved)} figure(s), has "
            f"{len(captions)} caption(s) in metadata.fairlib.captions"
        )
        assert all(len(c) >= 40 for c in captions), (
            f"{path.name}: cell {i}: a caption says what the figure shows"
        )
        assert "**What we found.**" not in source, (
            f"{path.name}: cell {i}: write it with fairlib.repro.prose.show_found"
        )


def test_figures_named_in_the_prose_are_the_ones_saved(path):
    """Every `fig...` name the markdown cites (the "What is reproduced" tables) is a figure the
    notebook saves — literally, or by the literal start of an f-string name — so a reader finds
    it under figures/<key>/."""
    import re

    nb = json.loads(path.read_text())
    code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    text = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    saved = set(re.findall(r'save_figure\(\s*\w+\s*,\s*\w+\s*,\s*"([^"]+)"', code))
    prefixes = set(re.findall(r'save_figure\(\s*\w+\s*,\s*\w+\s*,\s*f"([^"{]*)', code))
    cited = set(re.findall(r"`(fig[\w]*)`", text))
    missing = sorted(
        name
        for name in cited
        if name not in saved and not any(name.startswith(p) for p in prefixes if p)
    )
    assert not missing, f"{path.name}: the text cites figures the notebook never saves: {missing}"


@pytest.mark.notebook
def test_paper_notebook_quick_mode(paper_key, tmp_path):
    """The paper notebook runs end to end in quick mode, claims included (its own build folder:
    notebooks run side by side under pytest-xdist)."""
    env = dict(os.environ, FAIRLIB_BUILD_DIR=str(tmp_path))
    p = subprocess.run(
        [sys.executable, str(ROOT / "run_all.py"), "--quick", "--only", paper_key],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=1800,
    )
    assert p.returncode == 0, p.stdout[-4000:] + p.stderr[-4000:]
    # where the real excerpts are absent (a reader's clone), the trace notebooks run on labelled
    # stand-ins
    from fairlib import paths

    manifest = json.loads((tmp_path / "run_manifest.json").read_text())
    data = manifest["notebooks"][0]["data"]
    real = all(
        paths.find_traces(f) is not None for f in ("google_clusterdata_2011_2", "bitbrains_gwa_t12")
    )
    synthetic = next(
        (line for line in p.stdout.splitlines() if line.startswith("SYNTHETIC DATA:")), ""
    )
    assert (data == "synthetic") == (paper_key in synthetic)
    if (
        data
    ):  # a notebook that reads traces says which; synthetic exactly where the excerpts are missing
        assert (data == "synthetic") is not real, p.stdout[-2000:]
    # "another CPU" on this one: the same quick run with numba's kernels compiled for a generic
    # x86-64, OpenBLAS on an old core's code path and one thread everywhere gives the same tables
    # and claims, within the declared tolerances (fairlib.repro.verify), as the native run above
    from fairlib.repro.verify import ANOTHER_CPU, verify_results

    other = tmp_path / "another-cpu"
    env = dict(os.environ, FAIRLIB_BUILD_DIR=str(other), **ANOTHER_CPU)
    q = subprocess.run(
        [sys.executable, str(ROOT / "run_all.py"), "--quick", "--only", paper_key],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=1800,
    )
    assert q.returncode == 0, q.stdout[-4000:] + q.stderr[-4000:]
    native, generic = (folder / "quick" / "results" / paper_key for folder in (tmp_path, other))
    assert native.is_dir() and generic.is_dir(), sorted(
        str(p) for p in tmp_path.rglob("claims.json")
    )
    report = verify_results(paper_key, native, generic)
    assert report.ok, "\n".join(report.lines())


def test_no_cell_shows_a_return_value_by_accident(path):
    """A cell whose last line saves a figure or table ends in ``;``: else the notebook shows the
    list of written paths (a ``PosixPath`` repr) to the reader."""
    import ast

    nb = json.loads(path.read_text())
    shown = []
    for i, cell in enumerate(nb["cells"]):
        source = "".join(cell["source"]).rstrip()
        if cell["cell_type"] != "code" or not source or source.endswith(";"):
            continue
        last = ast.parse(source).body[-1] if ast.parse(source).body else None
        if isinstance(last, ast.Expr) and isinstance(last.value, ast.Call):
            name = getattr(last.value.func, "id", getattr(last.value.func, "attr", ""))
            if name in ("save_figure", "save_table"):
                shown.append(f"cell {i}: {source.splitlines()[-1][:80]}")
    assert not shown, f"{path.name}: end these cells with ';' so no return value is shown: {shown}"
