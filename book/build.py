"""Build the book (``make site``): Jupyter Book 1.x over the committed executed notebooks, ledger
and docs.

``python book/build.py [--out build/site]`` stages the book's sources under ``build/book/`` and runs
``jupyter-book build`` on them, with execution off: nothing is re-executed, the pages show the
outputs of the last full run (``executed/<key>.ipynb``). The staging step only arranges what is
committed elsewhere, so no content is duplicated in the repository:

- ``book/_config.yml``, ``book/_static/`` (the house CSS) and ``book/index.md`` (the landing page's
  prose; its results table is the README's, rendered by :func:`fairlib.repro.landing.results_block`
  from ``data/results/claims.csv``);
- one page per executed notebook at its repository path ``executed/<key>.ipynb`` (so the Binder
  button opens that notebook; sidebar order: the keys' order), each cell that measured a claim
  given the anchor ``in-<n>`` its ``In [n]`` label names, papermill's injected cell removed, and
  every figure of a cell moved into a figure of its own with the caption the source notebook gives
  in ``metadata.fairlib.captions`` (one caption per saved figure, in order; read from
  ``notebooks/``, so a caption is edited without a new run) — MyST-NB captions every image output
  of a cell, so each image gets a cell of its own, with its caption's first sentence as its
  alternative text and its natural width as its width (so Sphinx links it to its file); the links of
  its markdown cells and Markdown outputs (a Claims list's links to the ledger) pointed at the
  book's pages;
- ``claims.md``, the ledger page, written from ``data/results/claims.csv``: per notebook, per claim
  one block (status badge, statement, our value and the paper's, the link to the cell that measured
  it — found from the notebook's ``claims.json`` — and, folded, the rule and note), anchored
  ``claim-<id>``;
- every ``docs/*.md`` under ``docs/`` (the table of contents lists them all; :data:`DOCS_ORDER`
  first).

A relative link of a page to a file the book shows points at its page (``data/results/CLAIMS.md`` is
the ledger page, ``executed/<key>.md`` the notebook's page); to any other file of the repository, at
it on GitHub.

The table of contents (``_toc.yml``) is written from what was staged. The repository URL behind the
launch (Binder) and repository buttons comes from ``$FAIRLIB_REPOSITORY_URL``, else
``$GITHUB_REPOSITORY`` (set in GitHub Actions, so a fork publishes its own buttons), else a GitHub
``origin`` remote, else the repository ``pyproject.toml`` declares (``[project.urls] Repository``);
with none, the book is built without those buttons and says so.

Not a module of ``fairlib``: the book is built from the repository's files, not by the library, and
nothing in ``fairlib`` or ``run_all.py`` imports it.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from fairlib.repro.landing import (
    book_papers_block,
    results_block,
)  # one rendering for the README and the book
from fairlib._validate import as_argv, command_parser

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
#: reference pages shown first, in this order; any other docs/*.md follows alphabetically
DOCS_ORDER = [
    "library",
    "performance",
    "scale",
    "kernels",
    "verify",
    "data",
    "claims-coverage",
    "reconstructions",
]


class BookError(RuntimeError):
    """The book cannot be built from the repository as it is (what is missing or wrong, and what to
    do)."""


def _read_nb(path: Path):
    import nbformat

    return nbformat.read(str(path), as_version=4)


def _tags(cell) -> list:
    return cell.setdefault("metadata", {}).setdefault("tags", [])


def _is_image(output) -> bool:
    return output.get("output_type") in ("display_data", "execute_result") and any(
        k.startswith("image/") for k in output.get("data", {})
    )


def image_width(output) -> int | None:
    """The natural width in pixels of an image output (PNG, JPEG, GIF: read from the image's
    header), or None."""
    import base64
    import io

    from PIL import Image

    for mime, data in output.get("data", {}).items():
        if mime in ("image/png", "image/jpeg", "image/gif"):
            raw = base64.b64decode(data if isinstance(data, str) else "".join(data))
            try:
                with Image.open(io.BytesIO(raw)) as img:
                    return img.size[0]
            except (
                OSError
            ):  # not an image Pillow can read: shown without its width (and without its link)
                return None
    return None


_MD_MARKUP = re.compile(r"(?<!!)\[([^\]\n]*)\]\([^)\s]*\)|\*\*|`")


def alt_text(caption: str) -> str:
    """An image's alternative text, from its caption: the caption's first sentence, as plain text (a
    link's label; no bold or code marks). The whole caption follows the image as its figure caption.

    >>> alt_text(
    ...     "**EC Fig. 2** (arXiv Fig. 3): `ds*/ds_i` against [n](x.md). The band is `p10`-`p90`."
    ... )
    'EC Fig. 2 (arXiv Fig. 3): ds*/ds_i against n.'
    """
    plain = " ".join(_MD_MARKUP.sub(lambda m: m[1] or "", caption).split())
    first = re.split(r"(?<=[.!?])\s+(?=[A-Z\u00c0-\u024f])", plain, maxsplit=1)[0]
    return first


def _output_cell(outputs, metadata=None, note="outputs of the cell above"):
    import nbformat

    # a comment as source: MyST-NB drops a code cell whose source is empty, outputs and all
    cell = nbformat.v4.new_code_cell(f"# {note}", metadata=metadata or {})
    cell.pop("id", None)
    cell.outputs = outputs
    _tags(cell).append("remove-input")
    return cell


def _anchor_cell(n: int):
    import nbformat

    cell = nbformat.v4.new_markdown_cell(f'<span id="in-{n}"></span>')
    cell.pop("id", None)
    return cell


def _findings_first(cells: list) -> list:
    """The page's first screen: the title with its citation paragraph, then the Findings; the rest
    of the opening prose and the (hidden) set-up cells follow the Findings."""
    import nbformat

    heading = next(
        (
            i
            for i, c in enumerate(cells)
            if c.cell_type == "markdown" and c.source.strip() == "## Findings"
        ),
        None,
    )
    if heading is None or not cells or cells[0].cell_type != "markdown":
        return cells
    end = next(
        (
            i
            for i in range(heading + 1, len(cells))
            if "findings" in cells[i].metadata.get("tags", [])
        ),
        None,
    )
    if end is None:
        return cells
    paragraphs = cells[0].source.split("\n\n")
    cut = next(
        (
            i + 1
            for i, p in enumerate(paragraphs)
            if p.startswith(("**Citation.**", "**What this notebook is"))
        ),
        len(paragraphs),
    )
    title = copy.deepcopy(cells[0])
    title.source = "\n\n".join(paragraphs[:cut])
    moved = cells[1:heading]
    rest = "\n\n".join(paragraphs[cut:]).strip()
    if rest:
        tail = nbformat.v4.new_markdown_cell(rest)
        tail.pop("id", None)
        moved = [tail] + moved
    return [title] + cells[heading : end + 1] + moved + cells[end + 1 :]


def stage_notebook(doc, key: str, captions_by_source: dict | None = None, links=None) -> tuple:
    """The page of one executed notebook: its cells with anchors, figures and hidden cells arranged
    for the book (see the module docstring). Returns ``(notebook, figure names)``; raises
    :class:`BookError` when a cell shows more figures than it has captions.

    ``captions_by_source``: a code cell's source → its captions, as the source notebook has them
    now (captions are presentation: editing one needs no new run); a cell not found there keeps the
    captions it was run with. ``links``: ``links(text, output)`` rewrites the Markdown links of a
    text written at the notebook's repository path (see :func:`rewrite_links`), applied to every
    markdown cell (``output`` False) and every Markdown output (``text/markdown``, such as a Claims
    list's links to the ledger; ``output`` True)."""
    import nbformat

    out = copy.deepcopy(doc)
    cells, names = [], []
    for i, cell in enumerate(doc.cells):
        cell = copy.deepcopy(cell)
        tags = _tags(cell)
        if "injected-parameters" in tags and "remove-cell" not in tags:
            tags.append("remove-cell")
        if links and cell.cell_type == "markdown":
            cell.source = links(cell.source, False)
        if cell.cell_type != "code":
            cells.append(cell)
            continue
        if links:
            for o in cell.outputs:
                if "text/markdown" in o.get("data", {}):
                    text = o["data"]["text/markdown"]
                    o["data"]["text/markdown"] = links(
                        text if isinstance(text, str) else "".join(text), True
                    )
        if cell.get("execution_count") is not None and "remove-cell" not in tags:
            cells.append(_anchor_cell(cell.execution_count))
        images = [o for o in cell.outputs if _is_image(o)]
        captions = (captions_by_source or {}).get(
            cell.source, cell.metadata.get("fairlib", {}).get("captions", [])
        )
        if not images:
            cells.append(cell)
            continue
        if len(captions) != len(images):
            raise BookError(
                f"executed/{key}.ipynb, cell {i}: {len(images)} figure(s) but "
                f"{len(captions)} caption(s) in metadata.fairlib.captions; give every figure "
                "of the source notebook a caption (what it shows, what a band or bar means, "
                "which paper figure) and rerun the notebook"
            )
        saved = re.findall(r'save_figure\(\s*\w+\s*,\s*\w+\s*,\s*f?"([^"{]+)', cell.source)
        # the cell keeps its input and the outputs before its first figure; each figure becomes a
        # figure cell, followed by the outputs up to the next figure (so the order of the outputs is
        # kept)
        segments, current = [], []
        for o in cell.outputs:
            if _is_image(o):
                segments.append(current)
                segments.append(o)
                current = []
            else:
                current.append(o)
        segments.append(current)
        cell.outputs = segments[0]
        cells.append(cell)
        figure = 0
        for seg in segments[1:]:
            if isinstance(seg, list):
                if seg:
                    cells.append(_output_cell(seg))
                continue
            name = (
                f"{key}-{saved[figure] if figure < len(saved) else f'figure-{i}-{figure}'}".replace(
                    "_", "-"
                )
            )
            names.append(name)
            # the image's alternative text from its caption; its natural width as its width, which
            # never enlarges it, lets the page's CSS shrink it to a narrower column, and has Sphinx
            # link the image to its file (html_scaled_image_link: only an image with a width, height
            # or scale is linked)
            image = {"alt": alt_text(captions[figure])}
            width = image_width(seg)
            if width:
                image["width"] = f"{width}px"
            cells.append(
                _output_cell(
                    [seg],
                    {
                        "mystnb": {
                            "figure": {"caption": captions[figure], "name": name},
                            "image": image,
                        }
                    },
                    note=f"figure {name}",
                )
            )
            figure += 1
    cells = _findings_first(cells)
    out.cells = [nbformat.from_dict(c) for c in cells]
    out.nbformat, out.nbformat_minor = (
        4,
        max(out.get("nbformat_minor", 0), 5),
    )  # 4.5: every cell has an id
    for i, c in enumerate(out.cells):
        c.setdefault("id", f"{key}-{i}")
    return out, names


#: a claim's status → the class of its badge on the ledger page (book/_static/fairlib.css colours
#: them)
STATUS_CLASS = {
    "held": "held",
    "not reproduced": "not-reproduced",
    "inconclusive": "inconclusive",
    "not tested": "not-tested",
}


_FIGURE_LINK = re.compile(
    r'(<figure[^>]*\bid="([^"]+)"[^>]*>\s*<a class="reference internal image-reference" href=")'
    r'([^"]+)(")'
)


def link_full_size(page: str, full_size: dict, prefix: str) -> str:
    """The link around each figure of a built page pointed at the figure's full-size file
    (``full_size``: figure id → path under the site, ``prefix``: from the page to the site's
    root); a figure without one keeps its link.

    >>> link_full_size(
    ...     '<figure class="a" id="k-fig1">\\n<a class="reference internal image-reference" '
    ...     'href="../_images/h.png"><img',
    ...     {"k-fig1": "_static/figures/k/fig1.png"},
    ...     "../",
    ... )[-50:]
    'ference" href="../_static/figures/k/fig1.png"><img'
    """

    def repl(m):
        target = full_size.get(m[2])
        return f"{m[1]}{prefix}{target}{m[4]}" if target else m[0]

    return _FIGURE_LINK.sub(repl, page)


def link_claim_ids(text: str, claim_ids: set) -> str:
    """Every backticked claim id in the table rows of ``text`` as a link to the claim's row of the
    ledger (``../data/results/CLAIMS.md#claim-<id>``, which :func:`rewrite_links` points at the
    ledger page's block). The coverage page names its claims this way; linking them here keeps its
    rows short in the repository.

    >>> link_claim_ids("| a | `x_1` and `not_a_claim` |\\nprose `x_1`", {"x_1"})
    '| a | [`x_1`](../data/results/CLAIMS.md#claim-x_1) and `not_a_claim` |\\nprose `x_1`'
    """

    def row(line: str) -> str:
        if not line.startswith("|"):
            return line
        return re.sub(
            r"(?<!\[)`([^`\s]+)`(?!\])",
            lambda m: (
                f"[`{m[1]}`](../data/results/CLAIMS.md#claim-{m[1]})" if m[1] in claim_ids else m[0]
            ),
            line,
        )

    return "\n".join(row(line) for line in text.split("\n"))


def read_claims(path: Path) -> list[dict]:
    """The rows of ``claims.csv`` (every claim of every notebook, as ``run_all.py`` writes it), as
    strings."""
    import csv

    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def measuring_cells(claims: list, doc) -> dict[str, int]:
    """Claim id → the ``In [n]`` of the cell of the executed notebook ``doc`` that measured it:
    ``claims`` as a notebook's ``claims.json`` lists them
    (each names its cell by :func:`fairlib.repro.ledger.cell_key` of its source)."""
    from fairlib.repro.executed import claim_cells

    cells = claim_cells(doc)
    found = {c["claim_id"]: cells.get(c.get("cell") or "") for c in claims}
    return {
        claim: cell.execution_count
        for claim, cell in found.items()
        if cell is not None and cell.get("execution_count") is not None
    }


def _shown(value: str) -> str:
    """A value of ``claims.csv`` as the ledger page shows it
    (:func:`fairlib.repro.tables.reader_value`: yes/no, four significant digits, powers of ten, a
    long numeric list as its range); text as it is."""
    from fairlib.repro.tables import reader_value

    try:
        parsed = json.loads(value)
    except ValueError:
        return reader_value(value)
    return reader_value(parsed) if isinstance(parsed, (int, float, list, dict)) else value


def _claim_block(row: dict, cell: int | None) -> str:
    """One claim of the ledger page as one HTML block (no blank line inside, so Markdown leaves it
    as it is)."""
    import html

    def text(v) -> str:
        return html.escape(" ".join(str(v).split()))

    claim, status = row["claim"], " ".join(row["status"].split())
    badge = STATUS_CLASS.get(status, "other")
    meta = " · ".join(text(v) for v in (row["kind"], row["source"]) if v)
    values = [
        f'<span class="claim-value">{label} <strong>{text(_shown(row[k]))}</strong></span>'
        for label, k in (("ours", "our_value"), ("paper", "paper_value"))
        if row[k].strip()
    ]
    if cell is not None:
        # a claim not tested is listed by the cell that completes the ledger, not measured there
        where = "listed in" if status == "not tested" else "measured in"
        values.append(
            f'<span class="claim-value">{where} <a '
            f'href="executed/{text(row["paper"])}.html#in-{cell}">'
            f"In [{cell}]</a></span>"
        )
    note = text(row["note"])
    scope, history = text(row.get("scope", "")), text(row.get("history", ""))
    more = (
        f"<p>rule: <code>{text(row['rule'])}</code></p>"
        + (f"<p>scope: {scope}</p>" if scope else "")
        + (f"<p>{note}</p>" if note else "")
        + (f"<p>history: {history}</p>" if history else "")
    )
    quote = text(row.get("quote", ""))
    folded = ["rule"] + [
        name for name, v in (("scope", scope), ("note", note), ("history", history)) if v
    ]
    summary = folded[0] if len(folded) == 1 else ", ".join(folded[:-1]) + " and " + folded[-1]
    return "\n".join(
        [
            f'<div class="claim" id="claim-{text(claim)}">',
            f'<p class="claim-head"><span class="claim-status claim-{badge}">{text(status)}</span> '
            f'<a class="claim-id" href="#claim-{text(claim)}"><code>{text(claim)}</code></a> '
            f'<span class="claim-meta">{meta}</span></p>',
            f'<p class="claim-statement">{text(row["statement"])}</p>',
            f'<blockquote class="claim-quote">{quote}</blockquote>' if quote else "",
            f'<p class="claim-values">{" ".join(values)}</p>' if values else "",
            f'<details class="claim-more"><summary>{summary}</summary>{more}</details>',
            "</div>",
        ]
    ).replace("\n\n", "\n")


def ledger_page(rows: list[dict], cells: dict, titles: dict[str, str]) -> str:
    """The book's claims ledger: per notebook (``titles``: key → title, in the book's order; a
    notebook of ``rows`` not there follows under its key), per claim one block: its status as a
    badge, its id (an anchor ``claim-<id>``), kind and source, the statement, our value and the
    paper's, a link to the cell that measured it (``cells``: ``(key, claim id)`` → ``In [n]``),
    and, folded, the rule and the note. ``rows``: ``claims.csv``'s, in its order (within a notebook:
    paper claims, then findings, then checks, as ``CLAIMS.md``).

    A block per claim instead of ``CLAIMS.md``'s ten-column table, which no page column holds."""
    from fairlib.repro.ledger import KINDS, STATUSES

    seen = [r["claim"] for r in rows]
    twice = sorted({c for c in seen if seen.count(c) > 1})
    if twice:
        raise BookError(
            f"claims.csv: claim id(s) {twice} appear more than once; a claim's anchor on the "
            "ledger page (claim-<id>) must be unique: rename one in its "
            "notebooks/claims/<key>.toml"
        )
    rank = {k: i for i, k in enumerate(KINDS)}
    counts = {
        (kind, status): sum(r["kind"] == kind and r["status"] == status for r in rows)
        for kind in KINDS
        for status in STATUSES
    }
    lines = [
        "# Claims ledger",
        "",
        "Every claim the notebooks check, from the last full run's ledger "
        "(`data/results/claims.csv`). Each claim's statement and rule are declared in "
        "`notebooks/claims/<key>.toml` before any run; the notebook only measures. **held**: "
        "our measurement meets the rule; **not reproduced**: it does not (the note says what "
        "we measured); **not tested**: our data cannot measure it (the note says why). "
        "Kinds: **paper** (the paper says it), **finding** (ours, not in the paper), "
        "**check** (our solvers and speed targets). Each claim links to the cell of its "
        "notebook that measured it; its rule and note unfold below it.",
        "",
        "| kind | " + " | ".join(STATUSES) + " | total |",
        "|---|" + "---:|" * (len(STATUSES) + 1),
    ]
    for kind in KINDS:
        n = [counts[kind, s] for s in STATUSES]
        lines.append(f"| {kind} | " + " | ".join(map(str, n)) + f" | {sum(n)} |")
    keys = [k for k in titles if any(r["paper"] == k for r in rows)]
    keys += [k for k in dict.fromkeys(r["paper"] for r in rows) if k not in titles]
    for key in keys:
        part = sorted(
            (r for r in rows if r["paper"] == key), key=lambda r: rank.get(r["kind"], len(rank))
        )
        data = next((r["data"] for r in part if r.get("data")), "")
        tally = ", ".join(f"{sum(r['status'] == s for r in part)} {s}" for s in STATUSES)
        page = f"[the notebook](executed/{key}.ipynb)" if key in titles else "no page in the book"
        lines += [
            "",
            f"## {titles.get(key, key)}",
            "",
            f"`{key}`{f' (data: {data})' if data else ''}: {tally}; {page}.",
            "",
        ]
        for r in part:
            lines += [_claim_block(r, cells.get((key, r["claim"]))), ""]
    return "\n".join(lines).rstrip() + "\n"


#: a Markdown link, with its optional title: ``[label](target "title")`` (not an image:
#: ``![alt](src)``)
_MD_LINK = re.compile(r'(?<!!)\[([^\]\n]*)\]\(([^)\s]+)(?:\s+"([^"\n]*)")?\)')
#: the anchors the book writes into its pages as HTML ids (a claim of the ledger page): a link to
#: one is written as HTML, since MyST resolves a link's fragment among a page's headings only
_HTML_ANCHOR = re.compile(r"claim-[\w.-]+")


def rewrite_links(
    text: str,
    repo_path: str,
    staged_path: str,
    pages: dict[str, str],
    repo_url: str | None,
    html_links: bool = False,
) -> str:
    """The relative Markdown links of a page written as ``repo_path`` in the repository, for its
    staged copy at ``staged_path``: a link to a file the book shows (``pages``: repository path →
    staged path; a notebook's text view ``executed/<key>.md`` counts as its notebook) points at that
    page; a link to any other file of the repository points at it on GitHub (``repo_url``), or, with
    no repository URL, becomes its plain text. A link to an anchor the book writes as an HTML id (a
    cell's ``in-<n>`` on a notebook's page, a claim's ``claim-<id>`` on the ledger page) becomes an
    HTML link to the page's HTML file; a link's title is kept. ``html_links``: every link to a page
    becomes an HTML link to its HTML file (for a notebook's Markdown outputs, which MyST-NB renders
    as CommonMark: it would keep a link to ``claims.md`` as it is, to a file the site does not
    have).

    >>> pages = {
    ...     "docs/verify.md": "docs/verify.md",
    ...     "executed/li2019.ipynb": "executed/li2019.ipynb",
    ...     "data/results/CLAIMS.md": "claims.md",
    ... }
    >>> rewrite_links(
    ...     "[v](verify.md) [n](../executed/li2019.md#in-4) [r](../README.md)",
    ...     "docs/library.md",
    ...     "docs/library.md",
    ...     pages,
    ...     None,
    ... )
    '[v](verify.md) <a href="../executed/li2019.html#in-4">n</a> r'
    >>> rewrite_links(
    ...     '[a_1](../data/results/CLAIMS.md#claim-a_1 "the claim")',
    ...     "executed/li2019.ipynb",
    ...     "executed/li2019.ipynb",
    ...     pages,
    ...     None,
    ... )
    '<a href="../claims.html#claim-a_1" title="the claim">a_1</a>'
    """
    import html
    import posixpath

    def repl(m):
        label, target, title = m[1], m[2], m[3]
        if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            return m[0]
        path, _, fragment = target.partition("#")
        resolved = posixpath.normpath(posixpath.join(posixpath.dirname(repo_path), path))
        if resolved.startswith("executed/") and resolved.endswith(".md"):
            resolved = resolved[:-3] + ".ipynb"
        here = posixpath.dirname(staged_path) or "."
        titled = f' "{title}"' if title is not None else ""
        if resolved in pages:
            rel = posixpath.relpath(pages[resolved], here)
            if html_links or (
                fragment and (rel.endswith(".ipynb") or _HTML_ANCHOR.fullmatch(fragment))
            ):
                # a cell's or a claim's anchor: a plain link to the page's HTML
                attr = f' title="{html.escape(title)}"' if title is not None else ""
                href = posixpath.splitext(rel)[0] + ".html" + (f"#{fragment}" if fragment else "")
                return f'<a href="{href}"{attr}>{label}</a>'
            return f"[{label}]({rel}{'#' + fragment if fragment else ''}{titled})"
        if repo_url and not resolved.startswith(".."):
            kind = "tree" if path.endswith("/") else "blob"
            return (
                f"[{label}]({repo_url}/{kind}/main/{resolved}{'#' + fragment if fragment else ''}"
                f"{titled})"
            )
        return label

    return _MD_LINK.sub(repl, text)


def repository_url() -> str | None:
    """The GitHub URL the launch and repository buttons point at, or None:
    ``$FAIRLIB_REPOSITORY_URL``, else ``$GITHUB_REPOSITORY``, else a GitHub ``origin`` remote, else
    ``[project.urls] Repository`` of ``pyproject.toml`` (the environment comes first, so a fork's
    build points at the fork)."""
    if os.environ.get("FAIRLIB_REPOSITORY_URL"):
        url = os.environ["FAIRLIB_REPOSITORY_URL"]
        if not re.fullmatch(r"https?://[^\s/]+/\S+", url):
            raise BookError(
                f"FAIRLIB_REPOSITORY_URL = {url!r}: expected the repository's web address, "
                "https://host/owner/name"
            )
        return url.rstrip("/")
    if os.environ.get("GITHUB_REPOSITORY"):
        return (
            f"{os.environ.get('GITHUB_SERVER_URL', 'https://github.com')}/"
            f"{os.environ['GITHUB_REPOSITORY']}"
        )
    try:
        url = subprocess.run(
            ["git", "remote", "get-url", "origin"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        url = ""
    m = re.fullmatch(r"(?:https://|git@)github\.com[:/]([^/]+/[^/]+?)(?:\.git)?", url)
    if m:
        return f"https://github.com/{m[1]}"
    import tomllib

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"].get(
        "urls", {}
    )
    return declared["Repository"].rstrip("/") if declared.get("Repository") else None


def _title(doc, key: str) -> str:
    title = doc.metadata.get("fairlib", {}).get("title")
    if title:
        return title
    first = next((c.source for c in doc.cells if c.cell_type == "markdown"), "")
    m = re.match(r"#\s+(.+)", first)
    return m[1].strip() if m else key


def _md_title(path: Path) -> str:
    m = re.search(r"^#\s+(.+)$", path.read_text(encoding="utf-8"), re.MULTILINE)
    return m[1].strip() if m else path.stem


def docs_pages(docs_dir: Path) -> list[Path]:
    """Every ``docs/*.md``, :data:`DOCS_ORDER` first."""
    pages = sorted(docs_dir.glob("*.md"))
    rank = {name: i for i, name in enumerate(DOCS_ORDER)}
    return sorted(pages, key=lambda p: (rank.get(p.stem, len(rank)), p.stem))


def stage(src: Path, *, root: Path = ROOT, executed_dir: Path | None = None) -> dict:
    """Write the book's sources under ``src`` (emptied first); returns the table of contents
    written. ``executed_dir``: where the executed notebooks are (default
    :func:`fairlib.paths.executed_dir`, ``executed/`` or ``$FAIRLIB_OUTPUT_DIR/executed``; the
    ledger comes from :func:`fairlib.paths.results_root` the same way)."""
    import nbformat
    import yaml

    from fairlib import paths

    executed_dir = executed_dir or (paths.executed_dir() if root == ROOT else root / "executed")
    results = paths.results_root("full") if root == ROOT else root / "data" / "results"
    executed = sorted(executed_dir.glob("*.ipynb"))
    if not executed:
        raise BookError(
            f"no executed notebooks in {executed_dir}: run `python run_all.py` (full mode) first"
        )
    if src.exists():
        shutil.rmtree(src)
    (src / "executed").mkdir(parents=True)
    config = yaml.safe_load((BOOK / "_config.yml").read_text(encoding="utf-8"))
    url = repository_url()
    if url:
        config.setdefault("repository", {})["url"] = url
    else:
        print(
            "book: no repository URL ($FAIRLIB_REPOSITORY_URL, $GITHUB_REPOSITORY or a "
            "GitHub 'origin' remote): building without the launch (Binder) and repository "
            "buttons",
            file=sys.stderr,
        )
        config.pop("launch_buttons", None)
        config.get("html", {}).pop("use_repository_button", None)
        config.get("html", {}).pop("use_edit_page_button", None)
    (src / "_config.yml").write_text(
        yaml.safe_dump(config, sort_keys=False, allow_unicode=True), encoding="utf-8"
    )
    shutil.copytree(BOOK / "_static", src / "_static")

    # the Markdown pages: repository path -> (staged path, text); the ledger page is written from
    # claims.csv below
    index = (BOOK / "index.md").read_text(encoding="utf-8")
    if "<!-- results at a glance -->" not in index:
        raise BookError(
            "book/index.md has no '<!-- results at a glance -->' line for the results table"
        )
    # (book/index.md is written with the book's own paths: executed/<key>.ipynb, claims.md)
    if "<!-- the papers -->" not in index:
        raise BookError(
            "book/index.md has no '<!-- the papers -->' line for the list of papers (from "
            "the catalogue)"
        )
    markdown = {
        "index.md": (
            "index.md",
            index.replace(
                "<!-- results at a glance -->", results_block(results / "claims.csv")
            ).replace("<!-- the papers -->", book_papers_block()),
        )
    }
    reference = []
    claim_ids = {r["claim"] for r in read_claims(results / "claims.csv")}
    for page in docs_pages(root / "docs"):
        text = page.read_text(encoding="utf-8")
        if (
            page.name == "claims-coverage.md"
        ):  # its tables name claims by id: each links to the ledger's block
            text = link_claim_ids(text, claim_ids)
        markdown[f"docs/{page.name}"] = (f"docs/{page.name}", text)
        reference.append({"file": f"docs/{page.stem}"})
    if not (root / "docs" / "data.md").is_file() and (root / "data" / "README.md").is_file():
        markdown["data/README.md"] = (
            "docs/data-folder.md",
            (root / "data" / "README.md").read_text("utf-8"),
        )
        reference.append({"file": "docs/data-folder"})
    pages = {repo: staged for repo, (staged, _) in markdown.items()}
    pages.update({f"executed/{p.stem}.ipynb": f"executed/{p.stem}.ipynb" for p in executed})
    pages.update({"claims.md": "claims.md", "data/results/CLAIMS.md": "claims.md"})

    titles, papers, cells = {}, [], {}
    for path in executed:
        key = path.stem
        doc = _read_nb(path)
        titles[key] = _title(doc, key)
        source = root / doc.metadata.get("fairlib", {}).get("source", f"notebooks/{key}.ipynb")
        source_cells = _read_nb(source).cells if source.is_file() else []
        captions = {
            c.source: c.metadata["fairlib"]["captions"]
            for c in source_cells
            if c.cell_type == "code" and "captions" in c.metadata.get("fairlib", {})
        }
        repo_path = f"executed/{key}.ipynb"
        page, _ = stage_notebook(
            doc,
            key,
            captions,
            links=lambda text, output, p=repo_path: rewrite_links(
                text, p, p, pages, url, html_links=output
            ),
        )
        nbformat.write(page, str(src / "executed" / f"{key}.ipynb"))
        papers.append({"file": f"executed/{key}", "title": titles[key]})
        ledger = results / key / "claims.json"
        if ledger.is_file():
            measured = measuring_cells(
                json.loads(ledger.read_text(encoding="utf-8"))["claims"], doc
            )
            cells.update({(key, claim): n for claim, n in measured.items()})

    # each figure's full-size file (figures/<key>/<name>.png, saved at print resolution) beside the
    # pages, so a click on a figure opens it larger than the page shows it (link_full_size points
    # the figure's link at it)
    full_size = {}
    for key in titles:
        for png in sorted((root / "figures" / key).glob("*.png")):
            target = src / "_static" / "figures" / key / png.name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(png, target)
            full_size[f"{key}-{png.stem}".replace("_", "-")] = f"_static/figures/{key}/{png.name}"
    (src / "_full_size.json").write_text(json.dumps(full_size, indent=1), encoding="utf-8")
    (src / "claims.md").write_text(
        ledger_page(read_claims(results / "claims.csv"), cells, titles), encoding="utf-8"
    )
    (src / "docs").mkdir()
    for repo, (staged, text) in markdown.items():
        (src / staged).write_text(rewrite_links(text, repo, staged, pages, url), encoding="utf-8")

    toc = {
        "format": "jb-book",
        "root": "index",
        "parts": [
            {"caption": "Papers", "chapters": papers},
            {"caption": "Results", "chapters": [{"file": "claims"}]},
            {"caption": "Reference", "chapters": reference},
        ],
    }
    (src / "_toc.yml").write_text(
        yaml.safe_dump(toc, sort_keys=False, allow_unicode=True), encoding="utf-8"
    )
    return toc


def build(
    out: Path, *, src: Path | None = None, root: Path = ROOT, executed_dir: Path | None = None
) -> Path:
    """Stage the sources and run ``jupyter-book build``; the site ends up in ``out``
    (``out/index.html``)."""
    src = src or root / "build" / "book"
    t0 = time.perf_counter()
    stage(src, root=root, executed_dir=executed_dir)
    jb = Path(sys.executable).with_name("jupyter-book")
    cmd = [
        str(jb) if jb.exists() else "jupyter-book",
        "build",
        str(src),
        "--builder",
        "html",
        "--quiet",
        "--keep-going",
    ]
    env = dict(os.environ, PYDEVD_DISABLE_FILE_VALIDATION="1")
    p = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True)
    log = src / "_build" / "build.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(p.stdout + p.stderr, encoding="utf-8")
    if p.returncode != 0:
        raise BookError(
            f"jupyter-book build failed (exit {p.returncode}); its output is in {log}:\n"
            + (p.stdout + p.stderr)[-3000:]
        )
    html = src / "_build" / "html"
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(html, out)
    (out / ".nojekyll").touch()  # GitHub Pages serves _static/ and _images/ as they are
    full_size = json.loads((src / "_full_size.json").read_text(encoding="utf-8"))
    for page in (out / "executed").glob("*.html"):
        page.write_text(
            link_full_size(page.read_text(encoding="utf-8"), full_size, "../"), encoding="utf-8"
        )
    print(
        f"book: {out / 'index.html'} in {time.perf_counter() - t0:.0f} s (sources: {src}; "
        f"log: {log})"
    )
    return out / "index.html"


def main(argv=None) -> int:
    """Command line: build the book into ``--out`` (default ``build/site``), or with
    ``--stage-only`` only its sources under ``build/book`` (then ``--out`` is a usage error, exit
    2)."""
    argv = as_argv(argv)
    ap = command_parser(description=" ".join(__doc__.split("\n\n")[0].split()))
    ap.add_argument(
        "--out", type=Path, default=None, help="where the HTML goes (default build/site)"
    )
    ap.add_argument(
        "--executed",
        type=Path,
        default=None,
        help="folder of the executed notebooks (default: executed/, the last full run's)",
    )
    ap.add_argument(
        "--stage-only", action="store_true", help="only write the sources under build/book"
    )
    args = ap.parse_args(argv)
    if args.stage_only and args.out is not None:
        # --stage-only writes no HTML: an --out given with it would be silently ignored
        ap.error("--stage-only writes only the sources under build/book: it takes no --out")
    try:
        if args.stage_only:
            print(json.dumps(stage(ROOT / "build" / "book", executed_dir=args.executed), indent=1))
        else:
            build(
                ROOT / "build" / "site" if args.out is None else args.out,
                executed_dir=args.executed,
            )
    except BookError as exc:
        print(f"book: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
