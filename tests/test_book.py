"""The book (``make site``): its staging from the committed executed notebooks, ledger and docs,
every built page scanned for what a reader must not see, and every page opened in a real browser
(headless Chromium: console, images, links, accessibility, the first screen of a paper page)."""

import html
import importlib.util
import os
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


# ------------------------------------------------------------------------------- staging, no Sphinx


def _png(width: int, height: int) -> str:
    import base64
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (width, height), "white").save(buf, format="PNG")
    return base64.b64encode(buf.getvalue()).decode()


def _executed_notebook():
    nb = nbformat.v4.new_notebook()
    out = nbformat.v4.new_output
    png = {"image/png": _png(640, 480), "text/plain": "<Figure>"}
    injected = nbformat.v4.new_code_cell('MODE = "full"', execution_count=2)
    injected.metadata["tags"] = ["injected-parameters"]
    figs = nbformat.v4.new_code_cell(
        'display(t)\nsave_figure(fig, KEY, "fig1_a")\nsave_figure(fig, KEY, "fig2_b")',
        execution_count=3,
    )
    figs.metadata["fairlib"] = {"captions": ["First.", "Second."]}
    figs.outputs = [
        out("display_data", data={"text/html": "<table></table>"}),
        out("display_data", data=png),
        out("stream", name="stdout", text="between\n"),
        out("display_data", data=png),
    ]
    nb.cells = [nbformat.v4.new_markdown_cell("# Demo"), injected, figs]
    return nb


def test_a_page_keeps_the_order_of_outputs_and_captions_every_figure():
    page, names = book.stage_notebook(_executed_notebook(), "demo")
    cells = page.cells
    assert "remove-cell" in cells[1].metadata["tags"]  # papermill's injected cell
    assert [c.source for c in cells if c.cell_type == "markdown"][1:] == ['<span id="in-3"></span>']
    code = [c for c in cells if c.cell_type == "code"]
    assert code[1].outputs[0].data == {"text/html": "<table></table>"} and len(code[1].outputs) == 1
    first, between, second = code[2:]
    assert first.metadata["mystnb"]["figure"] == {"caption": "First.", "name": "demo-fig1-a"}
    assert first.metadata["mystnb"]["image"] == {"alt": "First.", "width": "640px"}
    assert between.outputs[0].text == "between\n" and "remove-input" in between.metadata["tags"]
    assert second.metadata["mystnb"]["figure"]["caption"] == "Second."
    assert names == ["demo-fig1-a", "demo-fig2-b"]
    assert all(c.get("id") for c in cells)


def test_a_figure_without_its_caption_stops_the_build():
    nb = _executed_notebook()
    nb.cells[2].metadata["fairlib"]["captions"] = ["only one"]
    with pytest.raises(book.BookError, match="2 figure.* but 1 caption"):
        book.stage_notebook(nb, "demo")


def test_a_figure_has_its_caption_as_alternative_text_and_its_natural_width():
    """The image's alternative text is its caption's first sentence as plain text (a reader hears
    what the figure shows, not its file's name); its width is its natural width in pixels, which
    never enlarges it and has Sphinx link it to its file."""
    nb = _executed_notebook()
    nb.cells[2].outputs[1]["data"]["image/png"] = _png(700, 300)
    nb.cells[2].metadata["fairlib"]["captions"] = [
        "**Fig. 2** (arXiv Fig. 3): efficiency of `drf` against [n](../docs/x.md), per run. "
        "The band: p10-p90.",
        "One sentence only, with ds*/ds_i",
    ]
    page, _ = book.stage_notebook(nb, "demo")
    images = [c.metadata["mystnb"]["image"] for c in page.cells if "mystnb" in c.metadata]
    assert images == [
        {"alt": "Fig. 2 (arXiv Fig. 3): efficiency of drf against n, per run.", "width": "700px"},
        {"alt": "One sentence only, with ds*/ds_i", "width": "640px"},
    ]
    assert (
        book.image_width({"data": {"image/png": "iVBORw0KGgo="}}) is None
    )  # not an image Pillow can read
    assert book.image_width({"data": {"text/plain": "x"}}) is None


def test_links_in_markdown_cells_and_markdown_outputs_point_at_the_book():
    """A notebook's Claims list is a Markdown output whose links go to the ledger's rows: the staged
    page points them at the ledger page's claim anchors, as it does for the links of its markdown
    cells. In an output every link to a page is HTML (MyST-NB renders an output as CommonMark, which
    would keep ``claims.md`` as it is)."""
    nb = _executed_notebook()
    claims = nbformat.v4.new_code_cell("log.listing()", execution_count=9)
    listing = (
        '**Held** (1): [a_1](../data/results/CLAIMS.md#claim-a_1 "a (statement)"), '
        "[b](../data/results/CLAIMS.md#claim-b)\n\nThe [claims ledger](../data/results/CLAIMS.md)."
    )
    claims.outputs = [
        nbformat.v4.new_output(
            "execute_result",
            data={"text/markdown": listing, "text/plain": listing},
            execution_count=9,
        ),
        nbformat.v4.new_output("display_data", data={"text/markdown": ["[r](../README", ".md)"]}),
    ]
    text = "See [the library](../docs/library.md#drf) and [v](../executed/li2019.md#in-4)."
    nb.cells += [nbformat.v4.new_markdown_cell(text), claims]
    pages = {
        "data/results/CLAIMS.md": "claims.md",
        "docs/library.md": "docs/library.md",
        "executed/li2019.ipynb": "executed/li2019.ipynb",
        "executed/demo.ipynb": "executed/demo.ipynb",
    }
    page, _ = book.stage_notebook(
        nb,
        "demo",
        links=lambda text, output: book.rewrite_links(
            text,
            "executed/demo.ipynb",
            "executed/demo.ipynb",
            pages,
            "https://github.com/o/r",
            html_links=output,
        ),
    )
    markdown = [c.source for c in page.cells if c.cell_type == "markdown"]
    assert (
        'See [the library](../docs/library.md#drf) and <a href="li2019.html#in-4">v</a>.'
    ) in markdown
    outputs = [
        o
        for c in page.cells
        if c.cell_type == "code"
        for o in c.outputs
        if "text/markdown" in o.get("data", {})
    ]
    assert outputs[0].data["text/markdown"] == (
        '**Held** (1): <a href="../claims.html#claim-a_1" title="a (statement)">a_1</a>, '
        '<a href="../claims.html#claim-b">b</a>\n\nThe <a href="../claims.html">claims ledger</a>.'
    )
    assert outputs[0].data["text/plain"] == listing  # only what the page renders changes
    assert outputs[1].data["text/markdown"] == "[r](https://github.com/o/r/blob/main/README.md)"


def _claim(paper, claim, status, kind="paper", **fields):
    row = {
        "paper": paper,
        "data": "",
        "kind": kind,
        "claim": claim,
        "source": "§3.1",
        "statement": f"{claim} holds",
        "rule": "ours <= 1",
        "paper_value": "",
        "our_value": "0.5",
        "status": status,
        "note": "",
    }
    return row | fields


def test_the_ledger_page_shows_one_block_per_claim_status_first():
    rows = [
        _claim("demo", "c_check", "held", kind="check"),
        _claim(
            "demo",
            "a-1",
            "not reproduced",
            paper_value="0.8284271247461903",
            our_value="[1, 2, 3, 4, 5]",
            rule="|ours - paper| <= 1e-9",
            note="we measure <less>\nthan that",
        ),
        _claim("other", "b.2", "not tested", our_value="", note="no data", data="real"),
    ]
    page = book.ledger_page(
        rows,
        {("demo", "a-1"): 7, ("demo", "c_check"): 3, ("other", "b.2"): 12},
        {"demo": "Demo — a paper", "other": "Other"},
    )
    blocks = re.findall(r'<div class="claim" id="claim-([^"]+)">\n(.*?)\n</div>', page, flags=re.S)
    assert [b[0] for b in blocks] == ["a-1", "c_check", "b.2"]  # paper claims before checks
    first = blocks[0][1]
    assert "\n\n" not in first  # one HTML block: Markdown leaves it be
    assert first.startswith(
        '<p class="claim-head"><span class="claim-status claim-not-reproduced">not reproduced'
        '</span> <a class="claim-id" href="#claim-a-1"><code>a-1</code></a>'
    )
    assert (
        "ours <strong>1 to 5 (5 values)</strong>" in first
        and "paper <strong>0.8284</strong>" in first
    )
    assert 'measured in <a href="executed/demo.html#in-7">In [7]</a>' in first
    assert (
        '<details class="claim-more"><summary>rule and note</summary><p>rule: <code>|ours - '
        "paper| &lt;= 1e-9"
        "</code></p><p>we measure &lt;less&gt; than that</p></details>"
    ) in first
    assert "<summary>rule</summary>" in blocks[1][1]
    third = blocks[2][1]
    assert "claim-not-tested" in third and "<strong>" not in third  # no value to show
    assert 'listed in <a href="executed/other.html#in-12">In [12]</a>' in third
    assert (
        page.index("## Demo — a paper") < page.index("## Other") and "`other` (data: real)" in page
    )
    assert "| paper | 0 | 1 | 0 | 1 | 2 |" in page and "| check | 1 | 0 | 0 | 0 | 1 |" in page
    with pytest.raises(book.BookError, match="more than once"):
        book.ledger_page(rows + [_claim("other", "a-1", "held")], {}, {})


def test_the_measuring_cell_of_a_claim_is_found_by_its_source():
    from fairlib.repro.ledger import cell_key

    nb = _executed_notebook()
    claims = [
        {"claim_id": "a", "cell": cell_key(nb.cells[2].source)},
        {"claim_id": "b", "cell": "0" * 12},
        {"claim_id": "c", "cell": None},
    ]
    assert book.measuring_cells(claims, nb) == {"a": 3}


def test_links_to_files_outside_the_book_go_to_the_repository_or_become_text():
    pages = {
        "docs/verify.md": "docs/verify.md",
        "executed/li2019.ipynb": "executed/li2019.ipynb",
        "data/results/CLAIMS.md": "claims.md",
    }
    text = (
        "[v](verify.md#tolerances) [n](../executed/li2019.md#in-4) [l](../data/results/CLAIMS.md) "
        "[r](../README.md) [w](https://example.org) [s](#here) [d](../benchmarks/results/) "
        '[`a_1`](../data/results/CLAIMS.md#claim-a_1) [t](verify.md "a title") '
        "[h](../data/results/CLAIMS.md#li2019)"
    )
    assert book.rewrite_links(
        text, "docs/library.md", "docs/library.md", pages, "https://github.com/o/r"
    ) == (
        '[v](verify.md#tolerances) <a href="../executed/li2019.html#in-4">n</a> [l](../claims.md) '
        "[r](https://github.com/o/r/blob/main/README.md) [w](https://example.org) [s](#here) "
        "[d](https://github.com/o/r/tree/main/benchmarks/results) "
        '<a href="../claims.html#claim-a_1">`a_1`</a> [t](verify.md "a title") '
        "[h](../claims.md#li2019)"
    )
    assert (
        book.rewrite_links(
            "[r](../README.md) and ![img](x.png)", "docs/a.md", "docs/a.md", pages, None
        )
        == "r and ![img](x.png)"
    )


def test_the_landing_page_shows_the_readme_results_table(tmp_path):
    """One results table, rendered once (fairlib.repro.landing): the book's landing page and the
    README show the same."""
    from fairlib.repro.landing import results_block

    staged = book.stage(tmp_path / "src")
    index = (tmp_path / "src" / "index.md").read_text(encoding="utf-8")
    assert results_block() in index and "<!-- results at a glance -->" not in index
    assert staged


def test_repository_url_for_the_launch_buttons(monkeypatch, tmp_path):
    """The environment first (a fork's build points at the fork), then a GitHub origin remote, then
    the URL pyproject.toml declares; nothing at all: no buttons."""
    import subprocess
    import tomllib

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "urls"
    ]
    assert declared["Repository"] == "https://github.com/fairlib/fairlib"
    monkeypatch.setenv("FAIRLIB_REPOSITORY_URL", "https://github.com/someone/fairlib/")
    monkeypatch.setenv("GITHUB_REPOSITORY", "org/fairlib")
    assert book.repository_url() == "https://github.com/someone/fairlib"
    monkeypatch.delenv("FAIRLIB_REPOSITORY_URL")
    assert book.repository_url() == "https://github.com/org/fairlib"
    monkeypatch.delenv("GITHUB_REPOSITORY")
    monkeypatch.delenv("GITHUB_SERVER_URL", raising=False)
    clone = (
        tmp_path / "clone"
    )  # no git repository, then one whose origin is not on GitHub, then one on GitHub
    clone.mkdir()
    monkeypatch.setenv(
        "GIT_CEILING_DIRECTORIES", str(tmp_path)
    )  # git looks for no repository above the clone
    monkeypatch.setattr(book, "ROOT", clone)
    (clone / "pyproject.toml").write_text('[project]\nname = "x"\n')
    assert book.repository_url() is None
    (clone / "pyproject.toml").write_text(
        '[project]\nname = "x"\n[project.urls]\n'
        'Repository = "https://github.com/declared/fairlib/"\n'
    )
    assert book.repository_url() == "https://github.com/declared/fairlib"
    git = ["git", "-C", str(clone)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run(
        [*git, "remote", "add", "origin", "https://gitlab.com/mirror/fairlib.git"], check=True
    )
    assert book.repository_url() == "https://github.com/declared/fairlib"
    subprocess.run(
        [*git, "remote", "set-url", "origin", "git@github.com:clone/fairlib.git"], check=True
    )
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
    """Every claim of claims.csv has one block on the ledger page, with its anchor claim-<id>,
    linked to the cell of its notebook's page that measured it."""
    src, _ = staged
    ledger = (src / "claims.md").read_text(encoding="utf-8")
    blocks = re.findall(
        r'<div class="claim" id="claim-([^"]+)">\n(.*?)\n</div>', ledger, flags=re.S
    )
    claims = book.read_claims(paths.results_root("full") / "claims.csv")
    assert sorted(b[0] for b in blocks) == sorted(r["claim"] for r in claims) and claims
    missing = []
    for claim, block in blocks:
        links = re.findall(r'<a href="executed/(\w+)\.html#(in-\d+)">', block)
        if len(links) != 1:
            missing.append(claim)
            continue
        key, anchor = links[0]
        page = (src / "executed" / f"{key}.ipynb").read_text(encoding="utf-8")
        assert f'id=\\"{anchor}\\"' in page, f"{key}: no anchor {anchor} for {claim}"
    assert not missing, f"{len(missing)} claim(s) link to no measuring cell: {missing[:10]}"


def test_the_coverage_page_links_every_claim_it_names_to_the_ledger(staged):
    """The staged coverage page: every claim id its tables name (in backticks) links to the claim's
    block of the ledger page (``claim-<id>``), and every such link names a claim of the ledger."""
    src, _ = staged
    ids = {r["claim"] for r in book.read_claims(paths.results_root("full") / "claims.csv")}
    text = (src / "docs" / "claims-coverage.md").read_text(encoding="utf-8")
    link = re.compile(r'<a href="[^"]*claims\.html#claim-([^"]+)">`([^`]+)`</a>')
    rows = [link.sub("", line) for line in text.splitlines() if line.startswith("|")]
    unlinked = sorted({m[1] for line in rows for m in re.finditer(r"`([^`\s]+)`", line)} & ids)
    assert not unlinked, f"claim ids named without a link to the ledger: {unlinked}"
    links = [(label, anchor) for anchor, label in link.findall(text)]
    assert links and all(label == anchor for label, anchor in links)
    assert not {anchor for _, anchor in links} - ids, "links to claims the ledger does not have"


# ----------------------------------------------------------------------------------- the built book


@pytest.fixture(scope="session")
def built_book(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    book.build(out, src=tmp_path_factory.mktemp("book-build-src"))
    return out


def _pages(site: Path) -> list[Path]:
    return sorted(
        p
        for p in site.rglob("*.html")
        if "_static" not in p.parts and p.name not in ("genindex.html",)
    )


#: what a built page must never contain: a path of the machine that ran or built it, a Python repr
#: of a path, pandas' elision of a table, an stderr output box
_FORBIDDEN = [
    ("a home folder path", re.compile(r"/root/|/home/\w")),
    ("a temporary folder path", re.compile(r"/tmp/")),
    ("a work folder path", re.compile(r"/work/")),
    ("site-packages", re.compile(r"site-packages")),
    ("a PosixPath repr", re.compile(r"PosixPath\(")),
    ("an elided table", re.compile(r"<p>\d+ rows × \d+ columns</p>")),
    ("an stderr box", re.compile(r'class="[^"]*\bstderr\b')),
]


def test_no_page_shows_the_machine_an_elided_table_or_stderr(built_book):
    problems = []
    for page in _pages(built_book):
        text = page.read_text(encoding="utf-8")
        problems += [
            f"{page.relative_to(built_book)}: {what}" for what, rx in _FORBIDDEN if rx.search(text)
        ]
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
        assert figures == captions == images > 0, (
            f"{key}: {images} images, {figures} figures, {captions} captions"
        )


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


_IDS = re.compile(r'\bid="([^"]*)"')
_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def served_book(built_book):
    """The built book over HTTP on a free local port, as GitHub Pages serves it (a page opened from
    file:// may not fetch its own stylesheets)."""
    import functools
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Quiet, directory=str(built_book))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def browser():
    path = _chromium()
    if path is None:
        pytest.skip(
            "no Chromium found (chromium, chromium-browser or google-chrome on PATH): "
            "install Debian's package `chromium` (as root: apt-get install chromium); "
            ".ci/run does"
        )
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright is a test dependency: make install"
    )
    with sync_api.sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=path, args=_ARGS)
        yield chromium
        chromium.close()


#: what the browser reads from each page after it loaded (see :func:`browser_report`)
_PAGE_FACTS = """() => {
    const describe = el => {
        let s = el.tagName.toLowerCase() + (el.id ? '#' + el.id : '');
        const cls = (typeof el.className === 'string' ? el.className : \
'').trim().split(/\\s+/).filter(Boolean);
        if (cls.length) s += '.' + cls.slice(0, 3).join('.');
        const text = (el.textContent || '').trim().replace(/\\s+/g, ' ').slice(0, 60);
        return text ? `${s} "${text}"` : s;
    };
    const facts = {
        captionNumbers: Array.from(document.querySelectorAll('.caption-number')).map(e => \
e.textContent.trim()),
        scrollWidth: document.scrollingElement.scrollWidth, viewport: window.innerWidth,
        launch: Array.from(document.querySelectorAll('a[href*="mybinder.org"]')).map(a => a.href),
        hrefs: Array.from(document.querySelectorAll('a[href]')).map(a => a.href),
        footer: Array.from(document.querySelectorAll('.extra_footer'))
            .map(e => e.textContent.trim().replace(/\\s+/g, ' ')),
        truncated: Array.from(document.querySelectorAll('td, th')).map(c => c.textContent.trim())
            .filter(t => /(\\.\\.\\.|\u2026)$/.test(t)).map(t => t.slice(-70)),
        images: [], wide: [], column: null};
    const article = document.querySelector('article.bd-article');
    if (!article) return facts;
    for (const img of article.querySelectorAll('img')) {
        const a = img.closest('a[href]');
        facts.images.push({src: (img.getAttribute('src') || '').slice(0, 90), url: img.src, \
natural: img.naturalWidth,
                           shown: img.clientWidth, alt: img.getAttribute('alt') || '', link: a ? \
a.href : null});
    }
    // the column: the article's content box; a block may pass its right edge only inside a box \
that scrolls
    const style = getComputedStyle(article), box = article.getBoundingClientRect();
    const right = box.right - parseFloat(style.paddingRight);
    facts.column = Math.round(right - box.left - parseFloat(style.paddingLeft));
    const scrolls = el => {
        for (let e = el.parentElement; e && e !== article; e = e.parentElement) {
            const o = getComputedStyle(e).overflowX;
            if (o === 'auto' || o === 'scroll') return true;
        }
        return false;
    };
    const reported = [];
    for (const el of article.querySelectorAll('*')) {
        const r = el.getBoundingClientRect();
        if (r.width === 0 || r.height === 0 || r.right <= right + 1) continue;
        if (reported.some(p => p.contains(el)) || scrolls(el)) continue;
        reported.push(el);
        facts.wide.push(`${describe(el)}: its right edge is ${Math.round(r.right - right)} px past \
the column ` +
                        `(${facts.column} px)`);
    }
    // nor does a box that scrolls hold a block wider than itself: a reader would scroll sideways \
to read it
    for (const el of article.querySelectorAll('*')) {
        const o = getComputedStyle(el).overflowX;
        if ((o === 'auto' || o === 'scroll') && el.getBoundingClientRect().width > 0
            && el.scrollWidth > el.clientWidth + 1) {
            facts.wide.push(`${describe(el)}: ${el.scrollWidth - el.clientWidth} px of it scroll \
sideways`);
        }
    }
    return facts;
}"""

#: the first screen of a paper page: its title, citation and Findings bullets, and no code
_FIRST_SCREEN = """() => {
    const h = window.innerHeight, seen = el => { const r = el.getBoundingClientRect();
        return el.checkVisibility() && r.height > 0 && r.top < h && r.bottom > 0; };
    const findings = document.getElementById('findings');
    return {title: Array.from(document.querySelectorAll('h1')).some(seen),
            citation: Array.from(document.querySelectorAll('strong')).some(
                // a paper cites; the schedulers notebook, not a paper, says what it is instead
                s => /^(Citation|What this notebook is)/.test(s.textContent) && seen(s)),
            bullets: findings ? Array.from(findings.querySelectorAll('li')).filter(seen).length : 0,
            code: Array.from(document.querySelectorAll('.cell_input, div.highlight \
pre')).filter(seen).length};
}"""

_FILE_PATH = re.compile(r"(^|/)[^\s/]+\.(png|jpe?g|gif|svg|webp)$|_images/", re.IGNORECASE)
#: the viewport of every page: a laptop's screen
_VIEWPORT = {"width": 1280, "height": 800}


def _screenshot_name(name: str) -> str:
    """``executed/li2019.html`` → ``executed-li2019.png``."""
    return name.removesuffix(".html").replace("/", "-") + ".png"


@pytest.fixture(scope="session")
def browser_report(built_book, served_book, browser):
    """Every page of the built book opened once in headless Chromium at 1280 × 800: what each check
    below needs, as ``{check: [(page, problem), ...]}``. A full-page screenshot of every page goes
    to build/book-screenshots/."""
    import yaml
    from axe_playwright_python.sync_playwright import Axe

    # under pytest-xdist each worker that runs a browser check opens the book itself: one folder per
    # worker, so one worker's clean-up never removes the other's screenshots
    shots = paths.build_dir() / "book-screenshots" / os.environ.get("PYTEST_XDIST_WORKER", "")
    if shots.exists():
        shutil.rmtree(shots)
    shots.mkdir(parents=True)
    pages = _pages(built_book)
    ids = {
        p.resolve(): {html.unescape(i) for i in _IDS.findall(p.read_text(encoding="utf-8"))}
        for p in pages
    }
    footer = " ".join(
        yaml.safe_load((ROOT / "book" / "_config.yml").read_text(encoding="utf-8"))["html"][
            "extra_footer"
        ].split()
    )
    repo = book.repository_url()
    axe, report = (
        Axe(),
        {
            check: []
            for check in (
                "browser",
                "first screen",
                "caption numbers",
                "buttons",
                "footer",
                "truncated cells",
                "images",
                "overflow",
                "accessibility",
            )
        },
    )
    page = browser.new_page(viewport=_VIEWPORT)
    events: list[str] = []
    page.on(
        "console",
        lambda m: events.append(f"console {m.type}: {m.text}") if m.type == "error" else None,
    )
    page.on("pageerror", lambda e: events.append(f"page error: {e}"))
    page.on(
        "requestfailed",
        lambda r: (
            events.append(f"request failed: {r.url}") if r.url.startswith(served_book) else None
        ),
    )
    page.on(
        "response",
        lambda r: events.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None,
    )
    for p in pages:
        events.clear()
        name = p.relative_to(built_book).as_posix()
        page.goto(f"{served_book}/{name}", wait_until="load")
        facts = page.evaluate(_PAGE_FACTS)
        add = {
            check: (lambda problem, check=check: report[check].append((name, problem)))
            for check in report
        }

        # images load; internal links resolve to a page and anchor
        for image in facts["images"]:
            if not image["natural"]:
                add["browser"](f"image {image['src']} did not load")
        for href in facts["hrefs"]:
            url = urlparse(href)
            if not href.startswith(served_book):
                continue
            target = (built_book / unquote(url.path).lstrip("/")).resolve()
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                add["browser"](f"link to a missing file {href}")
            elif (
                url.fragment
                and target in ids
                and not {url.fragment, unquote(url.fragment)} & ids[target]
            ):
                add["browser"](f"link to a missing anchor {href}")

        # (a) no figure number of the book's own before the paper's
        for number in facts["captionNumbers"]:
            add["caption numbers"](f"a caption numbered {number!r} by the book")
        # (b) launch (Binder) and repository buttons on a notebook's page; the footer on every page
        if name.startswith("executed/"):
            if not any(f"executed/{p.stem}.ipynb" in link for link in facts["launch"]):
                add["buttons"](
                    f"no Binder launch link to executed/{p.stem}.ipynb (links: {facts['launch']})"
                )
            if repo is None:
                add["buttons"](
                    "no repository URL to build the buttons from (book.repository_url() is None)"
                )
            elif not any(link.rstrip("/") == repo for link in facts["hrefs"]):
                add["buttons"](f"no link to the repository {repo}")
        if footer not in facts["footer"]:
            add["footer"](f"the footer does not say {footer!r} (found {facts['footer']})")
        # (c) no table cell cut short
        for text in facts["truncated"]:
            add["truncated cells"](f"a table cell ends in an ellipsis: ...{text!r}")
        # (d) every image of the page at (nearly) its own size, linked to its file, described by its
        # caption
        for image in facts["images"]:
            if image["natural"] and image["shown"] < 0.9 * image["natural"]:
                add["images"](
                    f"image {image['src']} shown at {image['shown']} of its {image['natural']} px "
                    f"({image['shown'] / image['natural']:.0%}; the column is {facts['column']} px)"
                )
            # linked to its own file or to the figure's full-size file (figures/<key>/<name>.png,
            # copied beside the pages); every internal link resolving to a file is checked with the
            # other links
            linked = urlparse(image["link"] or "").path
            if not (
                linked == urlparse(image["url"]).path
                or ("/_static/figures/" in linked and linked.endswith(".png"))
            ):
                add["images"](
                    f"image {image['src']} is not linked to its file (link: {image['link']})"
                )
            if not image["alt"].strip() or _FILE_PATH.search(image["alt"].strip()):
                add["images"](
                    f"image {image['src']} has no alternative text of its own "
                    f"(alt={image['alt']!r})"
                )
        # (e) the page never scrolls sideways; no block leaves the column unless inside a box that
        # scrolls
        if facts["scrollWidth"] > facts["viewport"]:
            add["overflow"](
                f"the page scrolls sideways: {facts['scrollWidth']} px wide in a "
                f"{facts['viewport']} px window"
            )
        for wide in facts["wide"]:
            add["overflow"](wide)
        # (f) accessibility; preload off: axe's own stylesheet fetch mis-resolves the theme's
        # relative @import (a spurious 404)
        result = axe.run(page, options={"resultTypes": ["violations"], "preload": False})
        for v in result.response["violations"]:
            if v.get("impact") in ("serious", "critical"):
                add["accessibility"](
                    f"({v['impact']}) {v['id']}: {v['help']} ({len(v['nodes'])}x, e.g. "
                    f"{v['nodes'][0]['html'][:100]})"
                )
        for e in events:
            add["browser"](e)

        if name.startswith("executed/"):
            page.evaluate("window.scrollTo(0, 0)")
            first = page.evaluate(_FIRST_SCREEN)
            if not (
                first["title"]
                and first["citation"]
                and first["bullets"] >= 1
                and first["code"] == 0
            ):
                add["first screen"](
                    f"the first screen shows {first} (wanted the title, the citation, the Findings "
                    f"bullets and no code)"
                )
        shot = shots / _screenshot_name(name)
        page.screenshot(path=str(shot), full_page=True)
        if not (shot.is_file() and shot.stat().st_size > 5_000):
            add["browser"](f"no screenshot written to {shot}")
    page.close()
    report["pages"] = [p.relative_to(built_book).as_posix() for p in pages]
    return report


def _problems(report: dict, check: str, what: str) -> str:
    """The problems of one check: a count per page first (worst first), then each problem."""
    from collections import Counter

    found = report[check]
    per_page = Counter(page for page, _ in found)
    head = f"{len(found)} {what} on {len(per_page)} of {len(report['pages'])} pages: " + ", ".join(
        f"{page} {n}" for page, n in per_page.most_common()
    )
    return "\n".join([head] + [f"{page}: {problem}" for page, problem in found[:80]])


def test_the_book_in_a_real_browser(browser_report):
    """Every page in headless Chromium: no console error or failed request, every image loads
    (non-zero natural size), every internal link (sidebar, in-page contents, ledger) resolves to a
    page and anchor; each paper page's first screen shows its title, citation and Findings and no
    code. Full-page screenshots of every page are saved under build/book-screenshots/."""
    assert not browser_report["browser"] + browser_report["first screen"], "\n".join(
        f"{page}: {problem}"
        for page, problem in (browser_report["browser"] + browser_report["first screen"])[:80]
    )
    # each screenshot is checked as it is written (a "browser" problem above if it is missing or
    # empty)
    assert "index.html" in browser_report["pages"] and len(browser_report["pages"]) > 10


def test_no_caption_carries_a_figure_number_of_the_book(browser_report):
    """A caption names the paper's figure; no "Fig. N" of the book's own (Sphinx's numfig) comes
    before it."""
    assert not browser_report["caption numbers"], _problems(
        browser_report, "caption numbers", "numbered captions"
    )


def test_every_notebook_page_has_its_launch_and_repository_buttons_and_every_page_the_footer(
    browser_report,
):
    assert not browser_report["buttons"], _problems(browser_report, "buttons", "missing buttons")
    assert not browser_report["footer"], _problems(browser_report, "footer", "missing footers")


def test_no_table_cell_is_cut_short(browser_report):
    """No table cell ends in an ellipsis (pandas' display.max_colwidth cuts a long cell to "..."): a
    reader cannot read what was cut."""
    assert not browser_report["truncated cells"], _problems(
        browser_report, "truncated cells", "cut cells"
    )


def test_every_image_is_shown_at_its_size_linked_to_its_file_and_described(browser_report):
    """Every image of a page's article is shown at 90% of its natural width or more (a figure is
    drawn at the size it is read at, at most the column's width), is a link to its image file (to
    open it at full size), and has an alternative text of its own (its caption's first sentence, not
    its file's name)."""
    assert not browser_report["images"], _problems(browser_report, "images", "image problems")


def test_no_page_scrolls_sideways_and_no_block_leaves_the_column(browser_report):
    """At 1280 px the page is never wider than the window, no block of the article (an output table,
    code, a printed block, a ledger entry) reaches past the article's column, and no box that
    scrolls sideways holds a block wider than itself."""
    assert not browser_report["overflow"], _problems(
        browser_report, "overflow", "blocks past the column"
    )


def test_no_serious_accessibility_violation(browser_report):
    """axe-core finds no serious or critical violation on any page."""
    assert not browser_report["accessibility"], _problems(
        browser_report, "accessibility", "violations"
    )


def test_a_malformed_repository_url_is_refused_by_name(monkeypatch):
    from book.build import BookError, repository_url

    monkeypatch.setenv("FAIRLIB_REPOSITORY_URL", "github.com/someone")
    with pytest.raises(BookError, match="FAIRLIB_REPOSITORY_URL"):
        repository_url()
