"""The reader's side: executed notebooks from the current sources, every claim linked to the cell that measured it,
the static site, and the site opened in a real browser (headless Chromium)."""
import html
import json
import re
import shutil
import sys
from pathlib import Path
from urllib.parse import unquote, urlparse

import nbformat
import pytest

from fairlib import paths, site
from fairlib.paths import ROOT

sys.path.insert(0, str(ROOT))
import run_all  # noqa: E402

NOTEBOOKS = [site.SiteNotebook(nb.key, nb.title, nb.path) for nb in run_all.REGISTRY.values()]


def _key(nb):
    return nb.key


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=_key)
def test_executed_notebook_comes_from_the_current_source(nb):
    """executed/<key>.ipynb was run in full mode from exactly the cells the source notebook has now, without errors."""
    assert site.executed_problems(nb) == []


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=_key)
def test_every_claim_links_to_the_cell_that_measured_it(nb):
    """Each claim of the committed ledger names a cell of the committed executed notebook (the site links to it)."""
    ledger = json.loads((paths.RESULTS / nb.key / "claims.json").read_text())
    cells = site.claim_cells(nbformat.read(str(paths.executed_dir() / f"{nb.key}.ipynb"), as_version=4))
    unlinked = [c["claim_id"] for c in ledger["claims"] if c.get("cell") not in cells]
    assert not unlinked, f"{nb.key}: claims whose measuring cell is not in the executed notebook: {unlinked}"


def test_claims_md_links_every_claim_to_its_cell_in_one_click():
    """Each row of data/results/CLAIMS.md links to the heading of the cell that measured it in executed/<key>.md
    (GitHub gives that heading the anchor; its notebook view has no cell anchors): the heading exists, and the cell
    under it is the one the claim recorded."""
    from fairlib.report import cell_key

    ledger = (paths.RESULTS / "CLAIMS.md").read_text(encoding="utf-8")
    for nb in NOTEBOOKS:
        claims = json.loads((paths.RESULTS / nb.key / "claims.json").read_text())["claims"]
        section = ledger.split(f"\n## {nb.key}", 1)[1].split("\n## ", 1)[0]
        view = (paths.executed_dir() / f"{nb.key}.md").read_text(encoding="utf-8")
        for c in claims:
            row = next(line for line in section.splitlines() if line.startswith(f"| {c['kind']} | {c['claim_id']} |"))
            link = re.search(r"\[In \[(\d+)\]\]\(\.\./\.\./executed/([\w]+)\.md#in-(\d+)\)", row)
            assert link, f"{nb.key}/{c['claim_id']}: no link to its cell in CLAIMS.md: {row[-80:]}"
            n, key, anchor = link.groups()
            assert key == nb.key and n == anchor
            source = view.split(f"\n#### In [{n}]\n\n```python\n", 1)[1].split("\n```", 1)[0]
            assert cell_key(source) == c["cell"], f"{nb.key}/{c['claim_id']}: In [{n}] is not its measuring cell"


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=_key)
def test_figures_named_in_the_reproduced_table_exist(nb):
    """Every `fig...` name the notebook's markdown cites is a committed figure (`fig2_*` names a group)."""
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
    src.cells = [nbformat.v4.new_markdown_cell("# Demo"), params, nbformat.v4.new_code_cell("run()")]
    nbformat.write(src, str(tmp_path / "demo.ipynb"))
    done = nbformat.read(str(tmp_path / "demo.ipynb"), as_version=4)
    injected = nbformat.v4.new_code_cell('MODE = "full"')
    injected.metadata["tags"] = ["injected-parameters"]
    done.cells.insert(2, injected)
    done.cells[3].outputs = outputs
    done.metadata["papermill"] = {"parameters": {"MODE": "full"}, "input_path": str(tmp_path / "demo.ipynb")}
    nbformat.write(done, str(tmp_path / "done.ipynb"))
    return site.SiteNotebook("demo", "Demo", str(tmp_path / "demo.ipynb"))


def test_publish_collapses_progress_bars_and_records_its_source(tmp_path):
    out = nbformat.v4.new_output
    nb = _notebook(tmp_path, [out("stream", name="stderr", text="\rwork:  10%|#"),
                              out("stream", name="stderr", text="\rwork: 100%|##########\n"),
                              out("stream", name="stderr", text="\rnested: 50%"),   # a bar that clears itself
                              out("stream", name="stderr", text="\r            \r"),
                              out("stream", name="stdout",
                                  text=f"read {ROOT}/data/x.csv and {ROOT.parent}/shared/y\n")])
    published = site.publish_executed(nb, tmp_path / "done.ipynb", tmp_path / "executed")
    doc = nbformat.read(str(published), as_version=4)
    stderr, stdout = doc.cells[3].outputs
    assert stderr.text == "work: 100%|##########\n"
    assert stdout.text == "read data/x.csv and ../shared/y\n"
    assert doc.metadata["fairlib"]["source_digest"] == site.source_digest(nbformat.read(nb.source, as_version=4))
    assert site.executed_problems(nb, tmp_path / "executed") == []
    # the source changes after the run: the published copy no longer stands for it
    src = nbformat.read(nb.source, as_version=4)
    src.cells[2].source = "run(faster=True)"
    nbformat.write(src, nb.source)
    problems = site.executed_problems(nb, tmp_path / "executed")
    assert len(problems) == 1 and "other cells" in problems[0]
    with pytest.raises(ValueError, match="differ"):
        site.publish_executed(nb, tmp_path / "done.ipynb", tmp_path / "executed")


def test_text_view_gives_every_code_cell_a_heading(tmp_path):
    out = nbformat.v4.new_output
    nb = _notebook(tmp_path, [out("stream", name="stdout", text="done\n"),
                              out("display_data", data={"text/markdown": "**What we found.** 3 of 4."}),
                              out("display_data", data={"text/html": "<style scoped>td {}</style><table></table>",
                                                        "text/plain": "frame"}),
                              out("display_data", data={"image/png": "iVBOR", "text/plain": "<Figure>"})])
    done = nbformat.read(str(tmp_path / "done.ipynb"), as_version=4)
    for i, cell in enumerate(c for c in done.cells if c.cell_type == "code"):
        cell.execution_count = i + 1
    nbformat.write(done, str(tmp_path / "done.ipynb"))
    site.publish_executed(nb, tmp_path / "done.ipynb", tmp_path / "executed")
    view = (tmp_path / "executed" / "demo.md").read_text()
    assert "# Demo" in view and "#### In [1]" in view and "#### In [3]" in view
    assert "#### In [2]" not in view                                      # papermill's injected cell left out
    assert "```python\nrun()\n```\n\n```\ndone\n```" in view
    assert "**What we found.** 3 of 4." in view and "<table></table>" in view and "<style" not in view
    assert "*(figure: in the notebook and under `figures/demo/`)*" in view and "iVBOR" not in view
    assert site.executed_problems(nb, tmp_path / "executed") == []
    (tmp_path / "executed" / "demo.md").write_text(view + "edited\n")
    assert any("does not match" in p for p in site.executed_problems(nb, tmp_path / "executed"))


def test_an_executed_notebook_with_an_error_or_in_quick_mode_is_reported(tmp_path):
    nb = _notebook(tmp_path, [nbformat.v4.new_output("error", ename="ValueError", evalue="x", traceback=[])])
    site.publish_executed(nb, tmp_path / "done.ipynb", tmp_path / "executed")
    problems = site.executed_problems(nb, tmp_path / "executed")
    assert any("end in an error" in p for p in problems)
    assert "missing" in site.executed_problems(site.SiteNotebook("other", "", nb.source), tmp_path)[0]


def test_claim_log_records_no_cell_outside_a_notebook():
    from fairlib.report import ClaimLog

    log = ClaimLog("demo", write=False, registry='[[claim]]\nid = "c"\nkind = "check"\nsource = "s"\n'
                                                 'statement = "t"\nat_least = 0\n')
    log.measure("c", 1.0)
    assert log.claims[0].cell is None


# ------------------------------------------------------------------------------------------------ the site

@pytest.fixture(scope="module")
def built_site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    site.build_site(NOTEBOOKS, out)
    return out


def test_site_has_every_page(built_site):
    pages = {p.relative_to(built_site).as_posix() for p in built_site.rglob("*.html")}
    expected = {"index.html", "claims.html", "data.html", "coverage.html", "reconstructions.html"}
    expected |= {f"notebooks/{nb.key}.html" for nb in NOTEBOOKS}
    assert expected <= pages
    claims_page = (built_site / "claims.html").read_text()
    for nb in NOTEBOOKS:
        ledger = json.loads((paths.RESULTS / nb.key / "claims.json").read_text())
        assert f'id="{nb.key}"' in claims_page
        linked = claims_page.count(f'href="notebooks/{nb.key}.html#cell-id=')
        assert linked == len(ledger["claims"]), f"{nb.key}: {linked} of {len(ledger['claims'])} claims link to a cell"
    for page in built_site.rglob("*.html"):
        text = page.read_text()
        assert "cdnjs" not in text and "<script src=" not in text, f"{page}: loads a script from the network"


def test_site_build_refuses_a_missing_executed_notebook(tmp_path):
    with pytest.raises(FileNotFoundError, match="run_all.py --only demo"):
        site.build_site([site.SiteNotebook("demo", "Demo", "notebooks/_template.ipynb")], tmp_path / "s",
                        executed_dir=tmp_path)


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


_IDS = re.compile(r'\bid="([^"]*)"')


def test_site_in_a_real_browser(built_site):
    """Every page in headless Chromium: every image loads (non-zero natural size), every internal link resolves
    (file and anchor), no console error, no failed request; screenshots of the landing page and one notebook page
    are saved under build/site-screenshots/ to look at."""
    browser_path = _chromium()
    if browser_path is None:
        pytest.skip("no Chromium found (chromium, chromium-browser, google-chrome on PATH): install Debian's "
                    "package `chromium` (as root: apt-get install chromium); .ci/run does")
    playwright = pytest.importorskip("playwright.sync_api", reason="playwright is a test dependency: make install")
    shots = paths.build_dir() / "site-screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    pages = sorted(built_site.rglob("*.html"))
    ids = {p.resolve(): {html.unescape(i) for i in _IDS.findall(p.read_text())} for p in pages}
    problems = []
    with playwright.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=browser_path, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--no-first-run"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        events = []
        page.on("console", lambda m: events.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
        page.on("pageerror", lambda e: events.append(f"page error: {e}"))
        page.on("requestfailed", lambda r: events.append(f"request failed: {r.url}"))
        for p in pages:
            events.clear()
            page.goto(p.as_uri(), wait_until="load")
            name = p.relative_to(built_site).as_posix()
            images = page.evaluate("Array.from(document.images).map(i => [i.getAttribute('src').slice(0, 80), "
                                   "i.complete && i.naturalWidth > 0])")
            problems += [f"{name}: image {src} did not load" for src, ok in images if not ok]
            for href in page.evaluate("Array.from(document.querySelectorAll('a[href]')).map(a => a.href)"):
                url = urlparse(href)
                if url.scheme != "file":
                    continue
                target = Path(unquote(url.path)).resolve()
                if not target.is_file():
                    problems.append(f"{name}: link to a missing file {href}")
                # a browser looks the fragment up as written, then percent-decoded (nbconvert writes ids encoded)
                elif url.fragment and target in ids and not {url.fragment, unquote(url.fragment)} & ids[target]:
                    problems.append(f"{name}: link to a missing anchor {href}")
            problems += [f"{name}: {e}" for e in events]
            if name == "index.html":
                page.screenshot(path=str(shots / "index.png"))
            if name == f"notebooks/{NOTEBOOKS[-1].key}.html":
                page.screenshot(path=str(shots / f"notebook-{NOTEBOOKS[-1].key}.png"))
        browser.close()
    assert len(pages) >= 5 + len(NOTEBOOKS)
    assert not problems, "\n".join(problems[:40])
    assert (shots / "index.png").stat().st_size > 10_000
