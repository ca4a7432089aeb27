"""The reader's side of the repository: executed notebooks and a static site built from them.

A full-mode ``run_all.py`` run publishes each executed notebook, outputs included, to ``executed/<key>.ipynb``
(:func:`publish_executed`): GitHub renders it, and its metadata records a digest of the source notebook's cells, so a
test can tell whether it still comes from the current sources (:func:`executed_problems`). :func:`build_site` turns
the committed executed notebooks, figures and ledgers into static HTML under ``build/site/`` — a landing page, one
page per notebook with its figures, the claims ledger (each claim linked to the cell that measured it) and the data
provenance — without executing anything.

The site is made by nbconvert's HTML exporter (JupyterLab's page style, with a template of ours that loads nothing
from the network), not by Jupyter Book: the committed executed notebooks already are the content, so one exporter
and a small index are enough, the build takes seconds, and it adds no Sphinx tool chain to the dependencies.
"""

from __future__ import annotations

import argparse
import hashlib
import html
import json
import os
import posixpath
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from . import paths

__all__ = ["SiteNotebook", "source_digest", "publish_executed", "executed_problems", "claim_cells",
           "executed_markdown", "cell_heading", "build_site"]

_TEMPLATES = Path(__file__).with_name("site_template")
_INJECTED = "injected-parameters"
_CLEARED_LINE = re.compile(r"^[ \t]*\r(?:\n|$)", re.MULTILINE)  # what a progress bar leaves when it clears itself
_STATUS_CLASS = {"held": "held", "not reproduced": "not-reproduced", "not tested": "not-tested"}


@dataclass(frozen=True)
class SiteNotebook:
    """A notebook the site publishes: registry key, title and source path (relative to the repository root, as in
    ``fairlib.catalog.NOTEBOOKS``, or absolute)."""

    key: str
    title: str
    source: str


def _cells(nb) -> list:
    """The cells of a notebook as its author wrote them (papermill's injected-parameters cell left out)."""
    return [c for c in nb.cells if _INJECTED not in c.get("metadata", {}).get("tags", [])]


def source_digest(nb) -> str:
    """SHA-256 of a notebook's cells (type and source, in order; papermill's injected cell left out): equal for a
    source notebook and every executed copy made from it, and different after any edit of a cell."""
    h = hashlib.sha256()
    for cell in _cells(nb):
        h.update(json.dumps([cell.cell_type, cell.source]).encode())
    return h.hexdigest()


def _read(path: Path):
    import nbformat

    return nbformat.read(str(path), as_version=4)


def _scrub(text: str) -> str:
    """Paths of this machine out of an output: the repository's becomes relative, its parent's ``..``."""
    return text.replace(str(paths.ROOT) + os.sep, "").replace(str(paths.ROOT.parent) + os.sep, ".." + os.sep)


def publish_executed(nb: SiteNotebook, executed: Path, dest_dir: Path | None = None) -> Path:
    """Copy a full-mode executed notebook to ``<dest_dir>/<key>.ipynb`` for readers (default ``dest_dir``:
    :func:`fairlib.paths.executed_dir`), with its text view ``<key>.md`` beside it (:func:`executed_markdown`).

    Progress-bar updates are collapsed to their last state (nbconvert's ``CoalesceStreamsPreprocessor``), this
    machine's paths are made relative, and ``metadata.fairlib`` records the key, title, source and
    :func:`source_digest` of the source notebook as it was run.
    """
    import nbformat
    from nbconvert.preprocessors import CoalesceStreamsPreprocessor

    doc = _read(executed)
    digest = source_digest(_read(_resolve(nb.source)))
    if source_digest(doc) != digest:
        raise ValueError(f"{executed}: its cells differ from {nb.source}'s (edited during the run?); not published")
    coalesce = CoalesceStreamsPreprocessor()
    for i, cell in enumerate(doc.cells):
        if cell.cell_type != "code":
            continue
        cell, _ = coalesce.preprocess_cell(cell, {}, i)
        for out in cell.outputs:
            if out.output_type == "stream":
                out.text = _scrub(_CLEARED_LINE.sub("", out.text))
            elif "text/plain" in out.get("data", {}):
                out.data["text/plain"] = _scrub(out.data["text/plain"])
        cell.outputs = [o for o in cell.outputs if o.output_type != "stream" or o.text]
        doc.cells[i] = cell
    pm = doc.metadata.get("papermill", {})
    pm["input_path"], pm["output_path"] = nb.source, f"executed/{nb.key}.ipynb"
    doc.metadata["fairlib"] = {"key": nb.key, "title": nb.title, "source": nb.source,
                               "source_digest": digest, "mode": "full"}
    dest = (dest_dir or paths.executed_dir()) / f"{nb.key}.ipynb"
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(f".{dest.name}.{os.getpid()}.tmp")
    nbformat.write(doc, str(tmp))
    _write_text_atomic(dest.with_suffix(".md"), executed_markdown(doc, nb.key))
    os.replace(tmp, dest)
    return dest


_STYLE = re.compile(r"<style[^>]*>.*?</style>\s*", re.DOTALL)


def cell_heading(execution_count) -> str:
    """The heading :func:`executed_markdown` puts above a code cell, ``In [n]``, and its anchor as GitHub derives it
    from the heading (``in-n``): how a row of ``CLAIMS.md`` links to the cell that measured the claim.

    >>> cell_heading(14)
    ('In [14]', 'in-14')
    """
    return f"In [{execution_count}]", f"in-{execution_count}"


def _fence(text: str, lang: str = "") -> str:
    ticks = "```" if "```" not in text else "~~~~"
    return f"{ticks}{lang}\n{text.rstrip()}\n{ticks}"


def executed_markdown(doc, key: str) -> str:
    """A Markdown view of an executed notebook, for reading on GitHub, where a notebook's cells have no anchors:
    markdown cells as written, each code cell under a heading ``In [n]`` (:func:`cell_heading`) with its source and
    its text, table and markdown outputs. Figures are not repeated (they are in the notebook and under
    ``figures/<key>/``)."""
    title = doc.metadata.get("fairlib", {}).get("title", key)
    parts = [f"<!-- generated from executed/{key}.ipynb by fairlib.site; do not edit -->",
             f"*A text view of [`executed/{key}.ipynb`]({key}.ipynb) ({title}), so that every cell has an anchor: "
             f"open the notebook for its figures.*"]
    for cell in _cells(doc):
        if cell.cell_type == "markdown":
            parts.append(cell.source)
            continue
        if cell.cell_type != "code":
            continue
        heading, _ = cell_heading(cell.execution_count)
        parts += [f"#### {heading}", _fence(cell.source, "python")]
        for out in cell.outputs:
            if out.output_type == "stream":
                parts.append(_fence(out.text))
            elif out.output_type == "error":
                parts.append(_fence(f"{out.ename}: {out.evalue}"))
            else:
                data = out.get("data", {})
                if "text/markdown" in data:
                    parts.append(data["text/markdown"])
                elif "text/html" in data:
                    parts.append(_STYLE.sub("", data["text/html"]).strip())
                elif any(k.startswith("image/") for k in data):
                    parts.append(f"*(figure: in the notebook and under `figures/{key}/`)*")
                elif "text/plain" in data:
                    parts.append(_fence(data["text/plain"]))
    return "\n\n".join(parts) + "\n"


def _write_text_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _resolve(path: str) -> Path:
    p = Path(path)
    return p if p.is_absolute() else paths.ROOT / p


def executed_problems(nb: SiteNotebook, executed_dir: Path | None = None) -> list[str]:
    """Why ``executed/<key>.ipynb`` does not stand for the current source notebook (empty if it does): missing, run
    from other cells, not in full mode, with an error output, or its text view ``<key>.md`` out of date."""
    path = (executed_dir or paths.executed_dir()) / f"{nb.key}.ipynb"
    if not path.is_file():
        return [f"{path} is missing: run `python run_all.py --only {nb.key}` (full mode) and commit it"]
    doc, digest = _read(path), source_digest(_read(_resolve(nb.source)))
    problems = []
    if doc.metadata.get("fairlib", {}).get("source_digest") != digest or source_digest(doc) != digest:
        problems.append(f"{path} was run from other cells than {nb.source} has now: rerun "
                        f"`python run_all.py --only {nb.key}` and commit executed/{nb.key}.ipynb")
    if doc.metadata.get("papermill", {}).get("parameters", {}).get("MODE") != "full":
        problems.append(f"{path} was not run in full mode")
    errors = [i for i, c in enumerate(_cells(doc)) if c.cell_type == "code"
              and any(o.output_type == "error" for o in c.outputs)]
    if errors:
        problems.append(f"{path}: cells {errors} end in an error")
    if not any(c.cell_type == "code" and c.outputs for c in doc.cells):
        problems.append(f"{path} has no outputs")
    text_view = path.with_suffix(".md")
    if not text_view.is_file() or text_view.read_text(encoding="utf-8") != executed_markdown(doc, nb.key):
        problems.append(f"{text_view} is missing or does not match {path.name}: rerun "
                        f"`python run_all.py --only {nb.key}` (or publish it again) and commit both")
    return problems


def claim_cells(doc) -> dict:
    """:func:`fairlib.report.cell_key` of each code cell's source → the cell: how a claim's recorded ``cell`` finds
    the cell that measured it (its ``id`` is the anchor ``#cell-id=<id>`` of its page, its ``execution_count`` the
    ``In [n]`` a reader sees)."""
    from .report import cell_key

    out: dict = {}
    for cell in _cells(doc):
        if cell.cell_type == "code":
            out.setdefault(cell_key(cell.source), cell)
    return out


# --------------------------------------------------------------------------------------------------- the site

_LINK = re.compile(r'(href|src)="([^"#:]*)(#[^"]*)?"')
_SITE = "@site/"  # marks a link written as a path from the site's root


class _Site:
    """Builds the pages; every internal link is written as a repository path and mapped to the page that shows it."""

    def __init__(self, out: Path, notebooks: list[SiteNotebook], executed_dir: Path, results: Path, figures: Path):
        from nbconvert import HTMLExporter

        self.out, self.notebooks, self.executed_dir = out, notebooks, executed_dir
        self.results, self.figures = results, figures
        self.exporter = HTMLExporter(template_name="fairlib-site", extra_template_basedirs=[str(_TEMPLATES)])
        # repository path -> site path (both relative, '/'-separated)
        self.pages = {"README.md": "index.html", "data/results/CLAIMS.md": "claims.html",
                      "data/README.md": "data.html", "docs/claims-coverage.md": "coverage.html",
                      "docs/reconstructions.md": "reconstructions.html"}
        for nb in notebooks:
            page = f"notebooks/{nb.key}.html"
            self.pages[f"executed/{nb.key}.ipynb"] = self.pages[nb.source] = page
            self.pages[f"figures/{nb.key}"] = page + "#Figures"
            self.pages[f"data/results/{nb.key}"] = f"claims.html#{nb.key}"
        self.nav = [("fairlib", "index.html"), ("claims ledger", "claims.html")]
        self.nav += [(nb.key, f"notebooks/{nb.key}.html") for nb in notebooks]
        self.nav += [("coverage", "coverage.html"), ("data", "data.html")]

    def ledger(self, key: str) -> dict | None:
        """The committed ``claims.json`` of notebook ``key`` (None if there is none)."""
        f = self.results / key / "claims.json"
        return json.loads(f.read_text()) if f.is_file() else None

    def _link(self, attr: str, target: str, anchor: str | None, repo_dir: str, site_dir: str) -> str:
        """One ``href``/``src`` rewritten relative to the page in the site (``repo_dir``: where the content's
        relative links start in the repository; ``site_dir``: the page's folder in the site)."""
        if not target:  # a same-page anchor
            return f'{attr}="{anchor or ""}"'
        if target.startswith(_SITE):                 # a path from the site's root
            site_path = target[len(_SITE):]
        else:                                        # a repository path, relative to the page's source
            repo_path = posixpath.normpath(posixpath.join(repo_dir, html.unescape(target))).rstrip("/")
            # pages show repository files; a figure is copied under its own path
            site_path = self.pages.get(repo_path, repo_path)
        path, _, own_anchor = site_path.partition("#")
        rel = posixpath.relpath(path, site_dir or ".")
        anchor = anchor or (f"#{own_anchor}" if own_anchor else "")
        return f'{attr}="{html.escape(rel)}{anchor}"'

    def write_page(self, doc, site_path: str, repo_dir: str, title: str) -> Path:
        """Export notebook ``doc`` as the page ``site_path`` with the site's template, its links rewritten."""
        site_dir = posixpath.dirname(site_path)
        doc.metadata["title"] = title
        resources = {"site_nav": self.nav, "metadata": {"name": title}}
        body, _ = self.exporter.from_notebook_node(doc, resources=resources)
        # data: URIs never match (no ':' in a target); protocol-relative URLs are left alone
        body = _LINK.sub(lambda m: self._link(m.group(1), m.group(2), m.group(3), repo_dir, site_dir)
                         if not m.group(2).startswith("//") else m.group(0), body)
        dest = self.out / site_path
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(body, encoding="utf-8")
        return dest

    def markdown_page(self, text: str, site_path: str, repo_dir: str, title: str) -> Path:
        """A page of markdown ``text`` (exported as a one-cell notebook, so every page has the same style)."""
        import nbformat

        doc = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(text)])
        return self.write_page(doc, site_path, repo_dir, title)

    # ---- pages
    def notebook_page(self, nb: SiteNotebook) -> Path:
        """The executed notebook's page: a header linking its figures and claims, its cells and outputs, and a
        gallery of its committed figures (copied into the site)."""
        import nbformat

        doc = _read(self.executed_dir / f"{nb.key}.ipynb")
        figures = sorted((self.figures / nb.key).glob("*.png"))
        ledger = self.ledger(nb.key)
        head = [f"*Executed notebook* `{nb.source}` (full mode, outputs as committed in `executed/{nb.key}.ipynb`) · "
                f"[figures](#Figures) · [its claims in the ledger](../data/results/{nb.key})"]
        if ledger:
            head.append(" · " + _counts_text(ledger))
        doc.cells.insert(1 if doc.cells and doc.cells[0].cell_type == "markdown" else 0,
                         nbformat.v4.new_markdown_cell("".join(head)))
        gallery = ["## Figures", "",
                   f"Every figure this notebook wrote to `figures/{nb.key}/` (PNG; a PDF beside each)."]
        for f in figures:
            gallery += ["", f"### {f.stem}", "", f"![{f.stem}](../figures/{nb.key}/{f.name})"]
            for ext in (".png", ".pdf"):
                if f.with_suffix(ext).is_file():
                    dest = self.out / "figures" / nb.key / f.with_suffix(ext).name
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(f.with_suffix(ext), dest)
        doc.cells.append(nbformat.v4.new_markdown_cell("\n".join(gallery)))
        return self.write_page(doc, f"notebooks/{nb.key}.html", "executed", nb.title)

    def claims_page(self) -> Path:
        """The claims ledger: one table per notebook, each claim linked to the cell that measured it."""
        from .report import display_value

        lines = ["# Claims ledger", "",
                 "Every claim the notebooks check, as declared before any run in `notebooks/claims/<key>.toml` and "
                 "measured in the full-mode run (`data/results/<key>/claims.json`; the same ledger as "
                 "`data/results/CLAIMS.md`). **held**: our measurement meets the declared rule; **not "
                 "reproduced**: it does not (the note says what we measured); **not tested**: our data cannot "
                 "measure it (the note says why). Kinds: **paper** (the paper says it), **finding** (ours), "
                 "**check** (our solvers). Each claim links to the notebook cell that measured it.", ""]
        for nb in self.notebooks:
            ledger = self.ledger(nb.key)
            if ledger is None:
                continue
            cells = claim_cells(_read(self.executed_dir / f"{nb.key}.ipynb"))
            lines += [f'<h2 id="{nb.key}">{html.escape(nb.key)}: {html.escape(nb.title)}</h2>', "",
                      _counts_text(ledger) + f" · [notebook]({_SITE}notebooks/{nb.key}.html)", "",
                      "| claim | kind | source | statement | paper | ours | status | rule and note |",
                      "|---|---|---|---|---|---|---|---|"]
            for c in ledger["claims"]:
                cell = cells.get(c.get("cell") or "")
                name = f"`{c['claim_id']}`"
                if cell is not None:
                    name = f"[{name}]({_SITE}notebooks/{nb.key}.html#cell-id={cell.id})"
                status = (f'<span class="fairlib-status-{_STATUS_CLASS.get(c["status"], "other")}">'
                          f'{html.escape(c["status"])}</span>')
                note = f"rule: {c['rule']}" + (f"; {c['note']}" if c.get("note") else "")
                row = [name, c.get("kind", ""), _cell(c["source"]), _cell(c.get("statement", "")),
                       _cell(display_value(c["paper"])), _cell(display_value(c["ours"])), status, _cell(note)]
                lines.append("| " + " | ".join(row) + " |")
            lines.append("")
        page = self.markdown_page("\n".join(lines), "claims.html", "data/results", "Claims ledger")
        page.write_text(page.read_text(encoding="utf-8").replace("<table>", '<table class="fairlib-ledger">'),
                        encoding="utf-8")
        return page

    def index_page(self) -> Path:
        """The landing page: the README's introduction, the notebooks with their claim counts, how to rerun."""
        readme = (paths.ROOT / "README.md").read_text(encoding="utf-8")
        intro = readme.split("\n## ", 1)[0]
        rows = ["| notebook | what it reproduces | paper claims held / not reproduced / not tested | all claims "
                "| figures |", "|---|---|---|---|---|"]
        totals = {"held": 0, "not_reproduced": 0, "not_tested": 0, "total": 0}
        for nb in self.notebooks:
            ledger = self.ledger(nb.key) or {"summary": {}}
            s = ledger["summary"]
            paper = s.get("paper", {})
            for k in totals:
                totals[k] += s.get(k, 0)
            n_fig = len(list((self.figures / nb.key).glob("*.png")))
            rows.append(f"| [{nb.key}]({_SITE}notebooks/{nb.key}.html) | {_cell(nb.title)} | "
                        + (f"{paper.get('held', 0)} / {paper.get('not_reproduced', 0)} / {paper.get('not_tested', 0)}"
                           if sum(paper.values()) else "— (no paper claims)") + " | "
                        f"[{_counts_text(ledger)}]({_SITE}claims.html#{nb.key}) | {n_fig} |")
        text = [intro.strip(), "", "## Notebooks", "",
                "One notebook per paper (and one on production schedulers), executed in full mode; each page shows "
                "its outputs, its figures and links to its claims.", "", *rows, "",
                f"In all: {totals['total']} claims, {totals['held']} held, {totals['not_reproduced']} not "
                f"reproduced, {totals['not_tested']} not tested — the [claims ledger]({_SITE}claims.html) lists "
                "each with the paper's statement, the rule, the paper's value and ours; "
                f"[coverage]({_SITE}coverage.html) maps every statement of the papers to its claim or says why it "
                f"is none; [reconstructions]({_SITE}reconstructions.html) lists what we had to reconstruct; "
                f"[data]({_SITE}data.html) says where the traces come from.", "",
                "## Rerun it", "",
                "With Python 3.11 and `make`, from a clone of the repository:", "",
                "```bash\nmake         # creates .venv, installs, runs every notebook in full mode, builds this site\n"
                "make test    # the test suite\n"
                "python run_all.py --only metin2025   # one notebook\n"
                "python run_all.py --verify           # rerun and compare with the committed tables and claims\n"
                "make site    # this site again, from the committed executed notebooks (nothing re-executed)\n```"]
        return self.markdown_page("\n".join(text), "index.html", "", "fairlib")


def _cell(value) -> str:
    """Text for a markdown table cell."""
    return html.escape(str(value)).replace("|", "\\|").replace("\n", " ")


def _counts_text(ledger: dict) -> str:
    s = ledger.get("summary", {})
    return (f"{s.get('total', 0)} claims: {s.get('held', 0)} held, {s.get('not_reproduced', 0)} not reproduced, "
            f"{s.get('not_tested', 0)} not tested")


def build_site(notebooks: list[SiteNotebook], out: Path | None = None, *, executed_dir: Path | None = None,
               results: Path | None = None, figures: Path | None = None) -> Path:
    """Build the static site into ``out`` (default ``build/site``) from the committed executed notebooks, ledgers
    and figures; nothing is executed. Returns the landing page. Raises ``FileNotFoundError`` naming any notebook
    whose executed copy is missing."""
    out = Path(out) if out is not None else paths.build_dir() / "site"
    executed_dir = Path(executed_dir) if executed_dir is not None else paths.executed_dir()
    missing = [nb.key for nb in notebooks if not (executed_dir / f"{nb.key}.ipynb").is_file()]
    if missing:
        raise FileNotFoundError(f"no executed notebook for {', '.join(missing)} under {executed_dir}: run "
                                f"`python run_all.py --only {' '.join(missing)}` (full mode) first")
    shutil.rmtree(out, ignore_errors=True)
    site = _Site(out, notebooks, executed_dir, Path(results) if results else paths.RESULTS,
                 Path(figures) if figures else paths.FIGURES)
    for nb in notebooks:
        site.notebook_page(nb)
    site.claims_page()
    for repo_path, site_path, title in (("data/README.md", "data.html", "Data and provenance"),
                                        ("docs/claims-coverage.md", "coverage.html", "Claims coverage"),
                                        ("docs/reconstructions.md", "reconstructions.html", "Reconstructions")):
        f = paths.ROOT / repo_path
        if f.is_file():
            site.markdown_page(f.read_text(encoding="utf-8"), site_path, posixpath.dirname(repo_path), title)
    return site.index_page()


def main(argv=None) -> int:
    """``python -m fairlib.site``: the site for the notebooks of the catalogue (:mod:`fairlib.catalog`)."""
    ap = argparse.ArgumentParser(description="Build the static site from the committed executed notebooks.")
    ap.add_argument("--out", type=Path, default=None, help="output folder (default build/site)")
    ap.add_argument("--text-views", action="store_true",
                    help="only rewrite executed/<key>.md, the text view of each committed executed notebook")
    args = ap.parse_args(argv)
    from .catalog import NOTEBOOKS

    notebooks = [SiteNotebook(nb.key, nb.title, nb.path) for nb in NOTEBOOKS.values()]
    if args.text_views:
        for nb in notebooks:
            path = paths.executed_dir() / f"{nb.key}.ipynb"
            _write_text_atomic(path.with_suffix(".md"), executed_markdown(_read(path), nb.key))
            print(f"text view: {path.with_suffix('.md')}")
        return 0
    index = build_site(notebooks, args.out)
    print(f"site: {index}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
