"""Executed notebooks for readers: what a full-mode run publishes to ``executed/`` and how a test
checks it.

A full-mode ``run_all.py`` run publishes each executed notebook, outputs included, to
``executed/<key>.ipynb`` (:func:`publish_executed`): GitHub renders it, the book (``book/``, built
by ``make site``) renders it as a page, and its metadata records a digest of the source notebook's
cells, so a test can tell whether it still comes from the current sources
(:func:`executed_problems`). Publishing removes what a reader should not see (progress bars and
warnings on stderr, this machine's paths) and renders the notebook's **Findings** cell from the
ledger the run just wrote (:func:`fairlib.repro.prose.findings_markdown`), so the summary at the top
always states this run's results.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .. import paths
from .._validate import (
    InvalidInputError,
    as_argv,
    as_count,
    command_parser,
    as_instance,
    as_path,
    as_text,
)

if TYPE_CHECKING:
    from nbformat import NotebookNode

__all__ = [
    "PublishedNotebook",
    "source_digest",
    "publish_executed",
    "refresh_findings",
    "executed_problems",
    "claim_cells",
    "cell_heading",
    "findings_choice",
    "FINDINGS_TAG",
]

_INJECTED = "injected-parameters"
_CLEARED_LINE = re.compile(
    r"^[ \t]*\r(?:\n|$)", re.MULTILINE
)  # what a progress bar leaves when it clears itself
#: tag of the cell that shows a notebook's Findings (fairlib.repro.prose.show_findings)
FINDINGS_TAG = "findings"


@dataclass(frozen=True)
class PublishedNotebook:
    """A notebook ``run_all.py`` publishes: registry key, title and source path (relative to the
    repository root, as in ``fairlib.repro.catalog.NOTEBOOKS``, or absolute).

    Parameters
    ----------
    key : str
        The notebook's registry key.
    title : str
        Its title.
    source : str
        The source notebook's path, relative to the repository root (as in
        ``fairlib.repro.catalog.NOTEBOOKS``) or absolute.

    Raises
    ------
    InvalidInputError
        When ``key`` is not a notebook key (:func:`fairlib.paths.check_key`) or ``title`` or
        ``source`` is not text.
    """

    key: str
    title: str
    source: str

    def __post_init__(self):
        from ..paths import check_key

        check_key(self.key)
        as_text(self.title, "title", what="the title is shown in the book")
        as_text(self.source, "source", what="a path relative to the repository root")


def _cells(nb: NotebookNode) -> list:
    """The cells of a notebook as its author wrote them (papermill's injected-parameters cell left
    out)."""
    return [c for c in nb.cells if _INJECTED not in c.get("metadata", {}).get("tags", [])]


def source_digest(nb: NotebookNode) -> str:
    """SHA-256 of a notebook's cells (type and source, in order; papermill's injected cell left
    out): equal for a source notebook and every executed copy made from it, and different after any
    edit of a cell.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        A notebook, source or executed.

    Returns
    -------
    str
        The hexadecimal digest.

    Raises
    ------
    InvalidInputError
        When ``nb`` is not a notebook (an ``nbformat.NotebookNode``).
    """
    _notebook(nb, "nb")
    h = hashlib.sha256()
    for cell in _cells(nb):
        h.update(json.dumps([cell.cell_type, cell.source]).encode())
    return h.hexdigest()


def _notebook(doc: object, name: str) -> NotebookNode:
    from nbformat import NotebookNode

    return as_instance(doc, NotebookNode, name)


def _read(path: Path, name: str = "path") -> NotebookNode:
    """The notebook at ``path`` (the argument ``name``); a file that is not one is an error naming
    it."""
    import nbformat

    try:
        return nbformat.read(str(path), as_version=4)
    except (ValueError, KeyError, AttributeError, UnicodeDecodeError) as exc:
        # nbformat's NotJSONError and a JSON document that is not a notebook
        raise InvalidInputError(f"{name} = {str(path)!r}: not a notebook ({exc})") from None


def _scrub(text: str) -> str:
    """Paths of this machine out of an output: the repository's becomes relative, its parent's
    ``..``, a trace folder's (:func:`fairlib.paths.trace_dirs`) the name of the trace under it, the
    home folder ``~``."""
    text = text.replace(str(paths.ROOT) + os.sep, "").replace(
        str(paths.ROOT.parent) + os.sep, ".." + os.sep
    )
    for folder in paths.trace_dirs():
        text = text.replace(str(folder) + os.sep, "")
    return text.replace(str(Path.home()) + os.sep, "~" + os.sep)


def publish_executed(nb: PublishedNotebook, executed: Path, dest_dir: Path | None = None) -> Path:
    """Copy a full-mode executed notebook to ``<dest_dir>/<key>.ipynb`` for readers (default
    ``dest_dir``: :func:`fairlib.paths.executed_dir`), with its text view ``<key>.md`` beside it
    (:func:`_executed_markdown`).

    Progress-bar updates are collapsed to their last state (nbconvert's
    ``CoalesceStreamsPreprocessor``), this machine's paths are made relative, and
    ``metadata.fairlib`` records the key, title, source and :func:`source_digest` of the source
    notebook as it was run, and the machine it ran on (processor and cores).

    Parameters
    ----------
    nb : PublishedNotebook
        The notebook's key, title and source.
    executed : pathlib.Path
        The executed copy papermill wrote.
    dest_dir : pathlib.Path, optional
        Where to publish (default :func:`fairlib.paths.executed_dir`).

    Returns
    -------
    pathlib.Path
        The published ``<dest_dir>/<key>.ipynb``.

    Raises
    ------
    InvalidInputError
        When ``nb`` is not a :class:`PublishedNotebook`, ``executed`` is not a notebook file or
        ``dest_dir`` is a file: nothing is published.
    ValueError
        When the executed copy's cells differ from the source's (edited during the run): nothing is
        published.
    """
    import nbformat
    from nbconvert.preprocessors import CoalesceStreamsPreprocessor

    from ..timing import cpu_model

    as_instance(nb, PublishedNotebook, "nb")
    executed = as_path(executed, "executed", must_exist=True)
    if dest_dir is not None:
        dest_dir = as_path(dest_dir, "dest_dir", kind="directory")
    doc = _read(executed, "executed")
    digest = source_digest(_read(_resolve(nb.source)))
    if source_digest(doc) != digest:
        raise ValueError(
            f"{executed}: its cells differ from {nb.source}'s (edited during the run?); not "
            "published"
        )
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
        # stderr holds progress bars and library warnings (with this machine's paths): not for a
        # reader
        cell.outputs = [
            o for o in cell.outputs if o.output_type != "stream" or (o.text and o.name != "stderr")
        ]
        doc.cells[i] = cell
    _render_presentation(doc, nb.key)
    pm = doc.metadata.get("papermill", {})
    pm["input_path"], pm["output_path"] = nb.source, f"executed/{nb.key}.ipynb"
    doc.metadata["fairlib"] = {
        "key": nb.key,
        "title": nb.title,
        "source": nb.source,
        "source_digest": digest,
        "mode": "full",
        # what the run's times belong to (the full_run benchmark row reads it)
        "machine": {"cpu": cpu_model(), "cores": os.cpu_count()},
    }
    dest = (dest_dir or paths.executed_dir()) / f"{nb.key}.ipynb"
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(f".{dest.name}.{os.getpid()}.tmp")
    nbformat.write(doc, str(tmp))
    _write_text_atomic(dest.with_suffix(".md"), _executed_markdown(doc, nb.key))
    os.replace(tmp, dest)
    return dest


def findings_choice(source: str) -> list[str]:
    """The claim ids a Findings cell shows: the list literal of its ``show_findings(key, MODE,
    [...])`` call.

    Parameters
    ----------
    source : str
        The Findings cell's source.

    Returns
    -------
    list of str
        The claim ids, in order.

    Raises
    ------
    InvalidInputError
        When ``source`` is not text or not Python, or the cell does not call
        ``show_findings(key, MODE, [claim ids])`` with a list literal.

    Examples
    --------
    >>> findings_choice('show_findings("demo", MODE, ["a", "b", "c"])')
    ['a', 'b', 'c']
    """
    as_instance(source, str, "source")
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise InvalidInputError(f"source = {source!r}: not Python ({exc.msg})") from None
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", getattr(node.func, "attr", "")) == "show_findings"
        ):
            args = list(node.args) + [k.value for k in node.keywords if k.arg == "chosen"]
            if len(args) >= 3:
                try:
                    return list(ast.literal_eval(args[2]))
                except (ValueError, TypeError, SyntaxError):
                    break  # not a literal list of claim ids
    raise InvalidInputError(
        f"source = {source!r}: a cell tagged {FINDINGS_TAG!r} must call "
        "show_findings(key, MODE, [claim ids])"
    )


def _findings_output(source: str, key: str) -> NotebookNode:
    """The Findings cell's output rendered from the full-mode ledger the run just wrote."""
    import nbformat

    from .prose import findings_markdown, registry_headlines

    ledger = json.loads(
        (paths.results_dir(key, "full") / "claims.json").read_text(encoding="utf-8")
    )["claims"]
    text = findings_markdown(ledger, findings_choice(source), registry_headlines(key))
    return nbformat.v4.new_output("display_data", data={"text/markdown": text, "text/plain": text})


#: the first line of papermill's injected cell once published: the parameters stay on record as
#: comments, so the copy a reader opens (on Binder, say) runs with the parameters cell's own mode,
#: quick, unless they change it
INJECTED_HEADER = (
    "# run_all.py ran this copy with these parameters (papermill's injected cell), "
    "kept as a record:"
)


def _record_injected(cell: NotebookNode) -> None:
    if cell.source.startswith(INJECTED_HEADER):
        return
    lines = [
        line if line.startswith("#") or not line.strip() else f"# {line}"
        for line in cell.source.splitlines()
    ]
    cell.source = "\n".join(
        [
            INJECTED_HEADER,
            *lines,
            "# Re-running it uses the parameters cell above (quick mode unless MODE is set there).",
        ]
    )


def _markdown_output(text: str) -> NotebookNode:
    import nbformat

    return nbformat.v4.new_output("display_data", data={"text/markdown": text, "text/plain": text})


def _listing_output(key: str) -> NotebookNode:
    """The Claims list rendered from the committed full-mode ledger (every claim, the not-tested
    ones included)."""
    from .ledger import ClaimListing

    ledger = json.loads(
        (paths.results_dir(key, "full") / "claims.json").read_text(encoding="utf-8")
    )["claims"]
    return _markdown_output(ClaimListing.from_ledger(ledger).markdown())


def _running_note_output(source: str, key: str, seconds: float | None) -> NotebookNode:
    from .prose import running_note

    traces = any(
        isinstance(n, ast.keyword)
        and n.arg == "traces"
        and isinstance(n.value, ast.Constant)
        and n.value.value is True
        for n in ast.walk(ast.parse(source))
    )
    return _markdown_output(running_note(key, "full", traces=traces, seconds=seconds))


#: how a running note's Markdown opens, in either mode (:func:`fairlib.repro.prose.running_note`)
_RUNNING_NOTE_OPENINGS = ("**This copy ran in full mode**", "**This run: quick mode**")


def _with_running_note(outputs: list, note: NotebookNode) -> list:
    """``outputs`` with the running note in place of the one the run displayed; the cell's other
    outputs (a notebook's own "Data." line after the note, say) are kept as they are, in their
    order."""
    kept = list(outputs)
    for k, output in enumerate(kept):
        text = output.get("data", {}).get("text/markdown", "")
        text = "".join(text) if isinstance(text, list) else text
        if text.startswith(_RUNNING_NOTE_OPENINGS):
            kept[k] = note
            return kept
    return [note, *kept]


def _render_presentation(doc: NotebookNode, key: str) -> None:
    """What a published notebook shows from its run's records rather than from its code: the
    Findings (from the ledger, :func:`fairlib.repro.prose.findings_markdown`), the Claims list
    (``claims.listing()``, from the ledger, every claim), the running note (``show_running_note``,
    with this run's own wall time) and papermill's injected cell (kept as a record in comments).
    Presentation only: re-rendering needs no new run."""
    seconds = doc.metadata.get("papermill", {}).get("duration")
    has_ledger = (paths.results_dir(key, "full") / "claims.json").is_file()
    for cell in doc.cells:
        if cell.cell_type != "code":
            continue
        tags = cell.get("metadata", {}).get("tags", [])
        if _INJECTED in tags:
            _record_injected(cell)
        elif FINDINGS_TAG in tags and has_ledger:
            cell.outputs = [_findings_output(cell.source, key)]
        elif "claims.listing()" in cell.source and has_ledger:
            kept = [o for o in cell.outputs if "text/markdown" not in o.get("data", {})]
            cell.outputs = kept + [_listing_output(key)]
        elif "show_running_note(" in cell.source:
            cell.outputs = _with_running_note(
                cell.outputs, _running_note_output(cell.source, key, seconds)
            )


_STYLE = re.compile(r"<style[^>]*>.*?</style>\s*", re.DOTALL)


def cell_heading(execution_count: int | None) -> tuple[str, str]:
    """The heading :func:`_executed_markdown` puts above a code cell, ``In [n]``, and its anchor as
    GitHub derives it from the heading (``in-n``): how a row of ``CLAIMS.md`` links to the cell that
    measured the claim.

    Parameters
    ----------
    execution_count : int or None
        The cell's execution count, >= 1 (None for a cell never run).

    Returns
    -------
    tuple of str
        ``(heading, anchor)``.

    Raises
    ------
    InvalidInputError
        When ``execution_count`` is neither None nor an integer >= 1.

    Examples
    --------
    >>> cell_heading(14)
    ('In [14]', 'in-14')
    """
    if execution_count is not None:
        as_count(execution_count, "execution_count")
    return f"In [{execution_count}]", f"in-{execution_count}"


def _fence(text: str, lang: str = "") -> str:
    ticks = "```" if "```" not in text else "~~~~"
    return f"{ticks}{lang}\n{text.rstrip()}\n{ticks}"


def _executed_markdown(doc: NotebookNode, key: str) -> str:
    """A Markdown view of an executed notebook, for reading on GitHub, where a notebook's cells have
    no anchors: markdown cells as written, each code cell under a heading ``In [n]``
    (:func:`cell_heading`) with its source and its text, table and markdown outputs. Figures are not
    repeated (they are in the notebook and under ``figures/<key>/``).

    Parameters
    ----------
    doc : nbformat.NotebookNode
        The executed notebook.
    key : str
        Its key (links and the title's fallback).

    Returns
    -------
    str
        The Markdown text, headed by a do-not-edit comment.
    """
    title = doc.metadata.get("fairlib", {}).get("title", key)
    parts = [
        f"<!-- generated from executed/{key}.ipynb by fairlib.repro.executed; do not edit -->",
        f"*A text view of [`executed/{key}.ipynb`]({key}.ipynb) ({title}), so that every "
        "cell has an anchor: open the notebook for its figures.*",
    ]
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


def refresh_findings(key: str, executed_dir: Path | None = None) -> Path:
    """Render what ``executed/<key>.ipynb`` (and its text view) shows from its run's records again
    (:func:`_render_presentation`: the Findings and the Claims list from the committed full-mode
    ledger, the running note, the injected cell as a record): wording is presentation, so a change
    to it needs no new run. ``python -m fairlib.repro.executed --refresh-findings [KEY ...]`` does
    it for the given (default: every) notebook.

    Parameters
    ----------
    key : str
        The notebook's key.
    executed_dir : pathlib.Path, optional
        Where the executed notebooks are (default :func:`fairlib.paths.executed_dir`).

    Returns
    -------
    pathlib.Path
        The rewritten notebook.

    Raises
    ------
    InvalidInputError
        When ``key`` is not a notebook key or ``executed_dir`` is not an existing folder.
    FileNotFoundError
        When the notebook has no executed copy.
    """
    import nbformat

    from ..paths import check_key

    check_key(key)
    if executed_dir is not None:
        executed_dir = as_path(executed_dir, "executed_dir", kind="directory", must_exist=True)
    path = (executed_dir or paths.executed_dir()) / f"{key}.ipynb"
    if not path.is_file():
        raise FileNotFoundError(
            f"key = {key!r}: {path} is missing: run `python run_all.py --only {key}` (full mode) "
            "first"
        )
    doc = _read(path)
    _render_presentation(doc, key)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    nbformat.write(doc, str(tmp))
    _write_text_atomic(path.with_suffix(".md"), _executed_markdown(doc, key))
    os.replace(tmp, path)
    return path


def _stale_presentation(doc: NotebookNode, key: str) -> bool:
    """Whether what ``doc`` shows from its run's records differs from their rendering now."""
    import copy

    fresh = copy.deepcopy(doc)
    _render_presentation(fresh, key)

    def shown(d):
        return [
            (c.source, [o.get("data", {}).get("text/markdown") for o in c.get("outputs", [])])
            for c in d.cells
        ]

    return shown(fresh) != shown(doc)


def executed_problems(nb: PublishedNotebook, executed_dir: Path | None = None) -> list[str]:
    """Why ``executed/<key>.ipynb`` does not stand for the current source notebook (empty if it
    does): missing, run from other cells, not in full mode, with an error output, or its text view
    ``<key>.md`` out of date.

    Parameters
    ----------
    nb : PublishedNotebook
        The notebook's key, title and source.
    executed_dir : pathlib.Path, optional
        Where the executed notebooks are (default :func:`fairlib.paths.executed_dir`).

    Returns
    -------
    list of str
        One sentence per problem, each naming the file.

    Raises
    ------
    InvalidInputError
        When ``nb`` is not a :class:`PublishedNotebook` or ``executed_dir`` is not an existing
        folder.
    """
    as_instance(nb, PublishedNotebook, "nb")
    if executed_dir is not None:
        executed_dir = as_path(executed_dir, "executed_dir", kind="directory", must_exist=True)
    path = (executed_dir or paths.executed_dir()) / f"{nb.key}.ipynb"
    if not path.is_file():
        return [
            f"{path} is missing: run `python run_all.py --only {nb.key}` (full mode) and commit it"
        ]
    doc, digest = _read(path), source_digest(_read(_resolve(nb.source)))
    problems = []
    if (
        doc.metadata.get("fairlib", {}).get("source_digest") != digest
        or source_digest(doc) != digest
    ):
        problems.append(
            f"{path} was run from other cells than {nb.source} has now: rerun "
            f"`python run_all.py --only {nb.key}` and commit executed/{nb.key}.ipynb"
        )
    if doc.metadata.get("papermill", {}).get("parameters", {}).get("MODE") != "full":
        problems.append(f"{path} was not run in full mode")
    errors = [
        i
        for i, c in enumerate(_cells(doc))
        if c.cell_type == "code" and any(o.output_type == "error" for o in c.outputs)
    ]
    if errors:
        problems.append(f"{path}: cells {errors} end in an error")
    if not any(c.cell_type == "code" and c.outputs for c in doc.cells):
        problems.append(f"{path} has no outputs")
    if (paths.results_dir(nb.key, "full") / "claims.json").is_file() and _stale_presentation(
        doc, nb.key
    ):
        problems.append(
            f"{path}: its Findings, Claims list, running note or injected cell differ from "
            "their rendering from the committed ledger and the run's records: run `python "
            f"-m fairlib.repro.executed --refresh-findings {nb.key}` and commit "
            f"executed/{nb.key}.*"
        )
    text_view = path.with_suffix(".md")
    if not text_view.is_file() or text_view.read_text(encoding="utf-8") != _executed_markdown(
        doc, nb.key
    ):
        problems.append(
            f"{text_view} is missing or does not match {path.name}: rerun "
            f"`python run_all.py --only {nb.key}` (or publish it again) and commit both"
        )
    return problems


def claim_cells(doc: NotebookNode) -> dict[str, NotebookNode]:
    """:func:`fairlib.repro.ledger.cell_key` of each code cell's source → the cell: how a claim's
    recorded ``cell`` finds the cell that measured it (its ``id`` is the anchor ``#cell-id=<id>`` of
    its page, its ``execution_count`` the ``In [n]`` a reader sees).

    Parameters
    ----------
    doc : nbformat.NotebookNode
        An executed notebook.

    Returns
    -------
    dict of str to nbformat.NotebookNode
        Cell key → code cell.

    Raises
    ------
    InvalidInputError
        When ``doc`` is not a notebook (an ``nbformat.NotebookNode``).
    """
    from .ledger import cell_key

    _notebook(doc, "doc")
    out: dict = {}
    for cell in _cells(doc):
        if cell.cell_type == "code":
            out.setdefault(cell_key(cell.source), cell)
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m fairlib.repro.executed --refresh-findings [KEY ...]``: see
    :func:`refresh_findings`."""
    argv = as_argv(argv)

    from .catalog import NOTEBOOKS

    ap = command_parser(prog="python -m fairlib.repro.executed", description=main.__doc__)
    ap.add_argument(
        "--refresh-findings",
        nargs="*",
        metavar="KEY",
        required=True,
        help="notebooks whose Findings to render again from their committed ledger (default: "
        "every one)",
    )
    args = ap.parse_args(argv)
    keys = args.refresh_findings or list(NOTEBOOKS)
    unknown = [k for k in keys if k not in NOTEBOOKS]
    if unknown:
        ap.error(f"unknown notebook key(s) {unknown}; known: {list(NOTEBOOKS)}")
    for key in keys:
        print(f"refreshed {refresh_findings(key).relative_to(paths.ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
