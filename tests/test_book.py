"""The book (``make site``): its staging from the committed executed notebooks, ledger and docs, every built page
scanned for what a reader must not see, and every page opened in a real browser (headless Chromium: console,
images, links, accessibility, the first screen of a paper page)."""
import html
import importlib.util
import re
import shutil
from pathlib import Path
from urllib.parse import unquote, urlparse

import nbformat
import pytest

from fairlib import paths
from fairlib.paths import ROOT


def _load_book():
    spec = importlib.util.spec_from_file_location("fairlib_book_build", ROOT / "book" / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


book = _load_book()
EXECUTED = sorted(p.stem for p in paths.executed_dir().glob("*.ipynb"))


# ------------------------------------------------------------------------------------------ staging, no Sphinx

def _executed_notebook():
    nb = nbformat.v4.new_notebook()
    out = nbformat.v4.new_output
    png = {"image/png": "iVBORw0KGgo=", "text/plain": "<Figure>"}
    injected = nbformat.v4.new_code_cell('MODE = "full"', execution_count=2)
    injected.metadata["tags"] = ["injected-parameters"]
    figs = nbformat.v4.new_code_cell('display(t)\nsave_figure(fig, KEY, "fig1_a")\nsave_figure(fig, KEY, "fig2_b")',
                                     execution_count=3)
    figs.metadata["fairlib"] = {"captions": ["First.", "Second."]}
    figs.outputs = [out("display_data", data={"text/html": "<table></table>"}), out("display_data", data=png),
                    out("stream", name="stdout", text="between\n"), out("display_data", data=png)]
    nb.cells = [nbformat.v4.new_markdown_cell("# Demo"), injected, figs]
    return nb


def test_a_page_keeps_the_order_of_outputs_and_captions_every_figure():
    page, names = book.stage_notebook(_executed_notebook(), "demo")
    cells = page.cells
    assert "remove-cell" in cells[1].metadata["tags"]                       # papermill's injected cell
    assert [c.source for c in cells if c.cell_type == "markdown"][1:] == ['<span id="in-3"></span>']
    code = [c for c in cells if c.cell_type == "code"]
    assert code[1].outputs[0].data == {"text/html": "<table></table>"} and len(code[1].outputs) == 1
    first, between, second = code[2:]
    assert first.metadata["mystnb"]["figure"] == {"caption": "First.", "name": "demo-fig1-a"}
    assert between.outputs[0].text == "between\n" and "remove-input" in between.metadata["tags"]
    assert second.metadata["mystnb"]["figure"]["caption"] == "Second."
    assert names == ["demo-fig1-a", "demo-fig2-b"]
    assert all(c.get("id") for c in cells)


def test_a_figure_without_its_caption_stops_the_build():
    nb = _executed_notebook()
    nb.cells[2].metadata["fairlib"]["captions"] = ["only one"]
    with pytest.raises(book.BookError, match="2 figure.* but 1 caption"):
        book.stage_notebook(nb, "demo")


def test_the_ledger_links_each_claim_to_its_cell_on_the_page():
    assert book.ledger_page("| a | [In [12]](../../executed/metin2025.md#in-12) |") == \
        '| a | <a href="executed/metin2025.html#in-12">In [12]</a> |'


def test_links_to_files_outside_the_book_go_to_the_repository_or_become_text():
    pages = {"docs/verify.md": "docs/verify.md", "executed/li2019.ipynb": "executed/li2019.ipynb",
             "data/results/CLAIMS.md": "claims.md"}
    text = ("[v](verify.md#tolerances) [n](../executed/li2019.md#in-4) [l](../data/results/CLAIMS.md) "
            "[r](../README.md) [w](https://example.org) [s](#here) [d](../benchmarks/results/)")
    assert book.rewrite_links(text, "docs/library.md", "docs/library.md", pages, "https://github.com/o/r") == (
        '[v](verify.md#tolerances) <a href="../executed/li2019.html#in-4">n</a> [l](../claims.md) '
        "[r](https://github.com/o/r/blob/main/README.md) [w](https://example.org) [s](#here) "
        "[d](https://github.com/o/r/tree/main/benchmarks/results)")
    assert book.rewrite_links("[r](../README.md) and ![img](x.png)", "docs/a.md", "docs/a.md", pages, None) == \
        "r and ![img](x.png)"


def test_the_landing_page_shows_the_readme_results_table(tmp_path):
    """One results table, rendered once (fairlib.landing): the book's landing page and the README show the same."""
    from fairlib.landing import results_block

    staged = book.stage(tmp_path / "src")
    index = (tmp_path / "src" / "index.md").read_text(encoding="utf-8")
    assert results_block() in index and "<!-- results at a glance -->" not in index
    assert staged


def test_repository_url_for_the_launch_buttons(monkeypatch, tmp_path):
    """The environment first (a fork's build points at the fork), then a GitHub origin remote, then the URL
    pyproject.toml declares; nothing at all: no buttons."""
    import subprocess
    import tomllib

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["urls"]
    assert declared["Repository"] == "https://github.com/fairlib/fairlib"
    monkeypatch.setenv("FAIRLIB_REPOSITORY_URL", "https://github.com/someone/fairlib/")
    monkeypatch.setenv("GITHUB_REPOSITORY", "org/fairlib")
    assert book.repository_url() == "https://github.com/someone/fairlib"
    monkeypatch.delenv("FAIRLIB_REPOSITORY_URL")
    assert book.repository_url() == "https://github.com/org/fairlib"
    monkeypatch.delenv("GITHUB_REPOSITORY")
    monkeypatch.delenv("GITHUB_SERVER_URL", raising=False)
    clone = tmp_path / "clone"   # no git repository, then one whose origin is not on GitHub, then one on GitHub
    clone.mkdir()
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))   # git looks for no repository above the clone
    monkeypatch.setattr(book, "ROOT", clone)
    (clone / "pyproject.toml").write_text('[project]\nname = "x"\n')
    assert book.repository_url() is None
    (clone / "pyproject.toml").write_text('[project]\nname = "x"\n[project.urls]\n'
                                          'Repository = "https://github.com/declared/fairlib/"\n')
    assert book.repository_url() == "https://github.com/declared/fairlib"
    git = ["git", "-C", str(clone)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "remote", "add", "origin", "https://gitlab.com/mirror/fairlib.git"], check=True)
    assert book.repository_url() == "https://github.com/declared/fairlib"
    subprocess.run([*git, "remote", "set-url", "origin", "git@github.com:clone/fairlib.git"], check=True)
    assert book.repository_url() == "https://github.com/clone/fairlib"


@pytest.fixture(scope="module")
def staged(tmp_path_factory):
    src = tmp_path_factory.mktemp("book-src")
    return src, book.stage(src)


def test_every_executed_notebook_and_every_docs_page_is_in_the_toc(staged):
    _, toc = staged
    files = {c["file"] for part in toc["parts"] for c in part["chapters"]}
    assert {f"executed/{key}" for key in EXECUTED} <= files
    assert {f"docs/{p.stem}" for p in (ROOT / "docs").glob("*.md")} <= files
    assert "claims" in files


def test_every_claim_links_to_an_anchor_of_its_page(staged):
    src, _ = staged
    ledger = (src / "claims.md").read_text(encoding="utf-8")
    links = re.findall(r'<a href="executed/(\w+)\.html#(in-\d+)">', ledger)
    rows = len(re.findall(r"^\| (?:paper|finding|check) \| [A-Za-z]", ledger, flags=re.M))   # a claim, not a count
    assert len(links) == rows > 0, "every row of the ledger links to its measuring cell"
    for key, anchor in set(links):
        page = (src / "executed" / f"{key}.ipynb").read_text(encoding="utf-8")
        assert f'id=\\"{anchor}\\"' in page, f"{key}: no anchor {anchor}"


# ---------------------------------------------------------------------------------------------- the built book

@pytest.fixture(scope="session")
def built_book(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    book.build(out, src=tmp_path_factory.mktemp("book-build-src"))
    return out


def _pages(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("*.html") if "_static" not in p.parts and p.name not in ("genindex.html",))


#: what a built page must never contain: a path of the machine that ran or built it, a Python repr of a path,
#: pandas' elision of a table, an stderr output box
_FORBIDDEN = [("a home folder path", re.compile(r"/root/|/home/\w")), ("a temporary folder path", re.compile(r"/tmp/")),
              ("a work folder path", re.compile(r"/work/")), ("site-packages", re.compile(r"site-packages")),
              ("a PosixPath repr", re.compile(r"PosixPath\(")),
              ("an elided table", re.compile(r"<p>\d+ rows × \d+ columns</p>")),
              ("an stderr box", re.compile(r'class="[^"]*\bstderr\b'))]


def test_no_page_shows_the_machine_an_elided_table_or_stderr(built_book):
    problems = []
    for page in _pages(built_book):
        text = page.read_text(encoding="utf-8")
        problems += [f"{page.relative_to(built_book)}: {what}" for what, rx in _FORBIDDEN if rx.search(text)]
    assert not problems, "\n".join(problems)


def test_the_book_has_every_page(built_book):
    pages = {p.relative_to(built_book).as_posix() for p in _pages(built_book)}
    assert {"index.html", "claims.html", "search.html"} <= pages
    assert {f"executed/{key}.html" for key in EXECUTED} <= pages
    assert {f"docs/{p.stem}.html" for p in (ROOT / "docs").glob("*.md")} <= pages


def test_every_paper_page_opens_with_its_findings_and_captions_its_figures(built_book):
    for key in EXECUTED:
        text = (built_book / "executed" / f"{key}.html").read_text(encoding="utf-8")
        findings = text.split('id="findings"', 1)
        assert len(findings) == 2, f"{key}: no Findings section"
        bullets = findings[1].split("<section", 1)[0].count("<li>")
        assert 3 <= bullets <= 5, f"{key}: {bullets} Findings bullets"
        figures = text.count("<figure")
        captions = text.count("<figcaption")
        images = len(re.findall(r'<img [^>]*src="[^"]*_images/', text))
        assert figures == captions == images > 0, f"{key}: {images} images, {figures} figures, {captions} captions"


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


_IDS = re.compile(r'\bid="([^"]*)"')
_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="session")
def served_book(built_book):
    """The built book over HTTP on a free local port, as GitHub Pages serves it (a page opened from file:// may not
    fetch its own stylesheets)."""
    import functools
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(built_book)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def browser():
    path = _chromium()
    if path is None:
        pytest.skip("no Chromium found (chromium, chromium-browser or google-chrome on PATH): install Debian's "
                    "package `chromium` (as root: apt-get install chromium); .ci/run does")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is a test dependency: make install")
    with sync_api.sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=path, args=_ARGS)
        yield chromium
        chromium.close()


def test_the_book_in_a_real_browser(built_book, served_book, browser):
    """Every page in headless Chromium: no console error or failed request, every image loads (non-zero natural
    size), every internal link (sidebar, in-page contents, ledger) resolves to a page and anchor, and axe-core finds
    no serious or critical accessibility violation. Screenshots of the landing page and of each paper page's first
    screen are saved under build/book-screenshots/."""
    from axe_playwright_python.sync_playwright import Axe

    shots = paths.build_dir() / "book-screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    pages = _pages(built_book)
    ids = {p.resolve(): {html.unescape(i) for i in _IDS.findall(p.read_text(encoding="utf-8"))} for p in pages}
    axe, problems = Axe(), []
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    events: list[str] = []
    page.on("console", lambda m: events.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: events.append(f"page error: {e}"))
    page.on("requestfailed", lambda r: events.append(f"request failed: {r.url}")
            if r.url.startswith(served_book) else None)
    page.on("response", lambda r: events.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None)
    for p in pages:
        events.clear()
        name = p.relative_to(built_book).as_posix()
        page.goto(f"{served_book}/{name}", wait_until="load")
        images = page.evaluate("Array.from(document.images).map(i => [(i.getAttribute('src') || '').slice(0, 80), "
                               "i.complete && i.naturalWidth > 0])")
        problems += [f"{name}: image {src} did not load" for src, ok in images if not ok]
        for href in page.evaluate("Array.from(document.querySelectorAll('a[href]')).map(a => a.href)"):
            url = urlparse(href)
            if not href.startswith(served_book):
                continue
            target = (built_book / unquote(url.path).lstrip("/")).resolve()
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                problems.append(f"{name}: link to a missing file {href}")
            elif url.fragment and target in ids and not {url.fragment, unquote(url.fragment)} & ids[target]:
                problems.append(f"{name}: link to a missing anchor {href}")
        # preload off: axe's own stylesheet fetch mis-resolves the theme's relative @import (a spurious 404)
        result = axe.run(page, options={"resultTypes": ["violations"], "preload": False})
        serious = [v for v in result.response["violations"] if v.get("impact") in ("serious", "critical")]
        problems += [f"{name}: accessibility ({v['impact']}) {v['id']}: {v['help']} "
                     f"({len(v['nodes'])}x, e.g. {v['nodes'][0]['html'][:100]})" for v in serious]
        problems += [f"{name}: {e}" for e in events]
        if name == "index.html":
            page.screenshot(path=str(shots / "index.png"))
        if name.startswith("executed/"):
            key = p.stem
            page.evaluate("window.scrollTo(0, 0)")
            page.screenshot(path=str(shots / f"{key}.png"))
            first = page.evaluate("""() => {
                const h = window.innerHeight, seen = el => { const r = el.getBoundingClientRect();
                    return el.checkVisibility() && r.height > 0 && r.top < h && r.bottom > 0; };
                const findings = document.getElementById('findings');
                return {title: Array.from(document.querySelectorAll('h1')).some(seen),
                        citation: Array.from(document.querySelectorAll('strong')).some(
                            // a paper cites; the schedulers notebook, not a paper, says what it is instead
                            s => /^(Citation|What this notebook is)/.test(s.textContent) && seen(s)),
                        bullets: findings ? Array.from(findings.querySelectorAll('li')).filter(seen).length : 0,
                        code: Array.from(document.querySelectorAll('.cell_input, div.highlight pre')).filter(seen)
                            .length};
            }""")
            if not (first["title"] and first["citation"] and first["bullets"] >= 1 and first["code"] == 0):
                problems.append(f"{name}: the first screen shows {first} (wanted the title, the citation, the "
                                f"Findings bullets and no code)")
    page.close()
    assert not problems, "\n".join(problems[:60])
    assert (shots / "index.png").stat().st_size > 10_000
    assert {f"{key}.png" for key in EXECUTED} <= {p.name for p in shots.glob("*.png")}
