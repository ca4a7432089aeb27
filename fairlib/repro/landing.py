"""The rendered blocks of the README, the reference docs and the citation file: numbers and lists
never typed by hand.

``README.md``, ``docs/verify.md`` and ``docs/reconstructions.md`` hold blocks between ``<!-- BEGIN
name -->`` and ``<!-- END name -->`` markers, ``CITATION.cff`` between the comment lines ``# BEGIN
name`` and ``# END name``. This module renders each from a committed source of truth:

- ``results``: how many notebooks reproduce how many papers, then one row per notebook (how the
  catalogue, :mod:`fairlib.repro.catalog`, names what it reproduces, and its headline) with its
  paper claims held / not reproduced / not tested, counted from ``data/results/claims.csv`` (what
  ``run_all.py`` aggregates from the ledgers), and the totals by kind;
- ``papers``: the README's list of the papers, their authors, venues and links, from the catalogue;
- ``references`` (``CITATION.cff``): the papers as CFF references, from the catalogue;
- ``timings``: the wall time of the notebooks' last full-mode runs, in all and per notebook, against
  the full rerun's targets, from ``benchmarks/results/full_run.json`` (``python -m benchmarks
  full_run`` reads the papermill metadata of ``executed/<key>.ipynb``: :func:`notebook_durations`,
  :func:`cell_durations`), and the test suite's wall time from ``benchmarks/results/suite.json``
  (``python -m benchmarks suite``);
- ``citation``: the repository's BibTeX entry, from ``CITATION.cff``;
- ``tolerances``, ``timing``, ``sensitive`` (docs/verify.md): ``run_all.py --verify``'s tolerances,
  the wall-clock columns it leaves out and the quantities it reports but does not fail, from
  :mod:`fairlib.repro.verify`.
- ``reconstructions`` (docs/reconstructions.md): the sections of the papers whose claims registry
  declares what the code relies on beyond the paper's text (its ``reconstructions`` entry).

``python -m fairlib.repro.landing`` rewrites the blocks in place; ``python -m fairlib.repro.landing
--check`` exits 1 when a committed file differs from its rendering (a test does the same).
"""

from __future__ import annotations

import datetime as dt
import csv
import io
import json
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import TypeVar
from dataclasses import dataclass
from pathlib import Path

from .. import paths
from .._validate import (
    InvalidInputError,
    _short,
    as_argv,
    command_parser,
    as_instance,
    as_path,
    as_time,
    result_type,
)
from . import catalog
from .ledger import KINDS, STATUSES

README = paths.ROOT / "README.md"
#: the files whose marked blocks this module renders
CITATION = paths.ROOT / "CITATION.cff"
RENDERED = (
    README,
    paths.ROOT / "docs" / "verify.md",
    paths.ROOT / "docs" / "reconstructions.md",
    CITATION,
)
SUITE_RESULTS = paths.ROOT / "benchmarks" / "results" / "suite.json"
FULL_RUN_RESULTS = paths.ROOT / "benchmarks" / "results" / "full_run.json"

__all__ = [
    "PaperRow",
    "rows",
    "count_line",
    "RENDERED",
    "claim_counts",
    "notebook_durations",
    "notebook_spans",
    "wall_seconds",
    "cell_durations",
    "results_block",
    "papers_block",
    "book_papers_block",
    "references_block",
    "timings_block",
    "citation_block",
    "tolerances_block",
    "timing_block",
    "sensitive_block",
    "render",
    "main",
]


@result_type
@dataclass(frozen=True)
class PaperRow:
    """One row of the results table: the notebook key, what it reproduces as a reader finds it, and
    its headline.

    Parameters
    ----------
    key : str
        The notebook's key.
    paper : str
        What it reproduces, as the catalogue lists it.
    url : str
        The paper's link; empty for a study of our own.
    headline : str
        The notebook's headline (the table's last column).
    """

    key: str
    paper: str
    url: str
    headline: str


def _catalogue(notebooks=None, papers=None):
    """The catalogue's notebooks and papers, or the given mappings, checked."""
    if notebooks is None:
        notebooks = catalog.NOTEBOOKS
    if papers is None:
        papers = catalog.PAPERS
    return as_instance(notebooks, Mapping, "notebooks"), as_instance(papers, Mapping, "papers")


def _input(
    value: object, default: Path, name: str, kind: str = "file", must_exist: bool = True
) -> Path:
    """``value`` (default ``default`` when None) as a path to read: a ``kind`` of entry, which must
    exist when ``must_exist``."""
    if value is None:
        return Path(default)
    return as_path(value, name, kind=kind, must_exist=must_exist)


class _Malformed(Exception):
    """A file's content is not what its reader expects (raised inside :func:`_parsed`)."""


#: what a block's parser returns (:func:`_parsed` returns it unchanged)
_Parsed = TypeVar("_Parsed")


def _parsed(path: Path, name: str, parse: Callable[[str], _Parsed], what: str) -> _Parsed:
    """``parse`` of the UTF-8 text of ``path``; any failure — not text, not the format, a field
    missing (KeyError, TypeError, :class:`_Malformed`) — is an :class:`InvalidInputError` naming the
    argument ``name`` and the file: every file a block reads goes through here, so a malformed one
    is refused the same way wherever it is read."""
    try:
        return parse(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise InvalidInputError(
            f"{name} = {str(path)!r}: not UTF-8 text (byte {exc.start}: {exc.reason}); expected "
            f"{what}"
        ) from None
    except (ValueError, KeyError, TypeError, IndexError, StopIteration, _Malformed) as exc:
        raise InvalidInputError(
            f"{name} = {str(path)!r}: not {what} ({type(exc).__name__}: {exc})"
        ) from None
    except Exception as exc:  # noqa: BLE001 - a parser's own error class (yaml's), named
        if type(exc).__module__.split(".")[0] in ("yaml", "tomllib", "json", "csv"):
            raise InvalidInputError(
                f"{name} = {str(path)!r}: not {what} ({type(exc).__name__}: {exc})"
            ) from None
        raise


def rows(
    notebooks: Mapping[str, catalog.Notebook] | None = None,
    papers: Mapping[str, catalog.Paper] | None = None,
) -> tuple[PaperRow, ...]:
    """The results table's rows, from the catalogue (:mod:`fairlib.repro.catalog`): each paper's
    notebooks, papers in :data:`~fairlib.repro.catalog.PAPERS`' order, then the notebooks that
    reproduce no paper.

    Parameters
    ----------
    notebooks : mapping of str to Notebook, optional
        The catalogue's notebooks (default :data:`fairlib.repro.catalog.NOTEBOOKS`).
    papers : mapping of str to Paper, optional
        The catalogue's papers (default :data:`fairlib.repro.catalog.PAPERS`).

    Returns
    -------
    tuple of PaperRow
        One row per notebook.
    """
    notebooks, papers = _catalogue(notebooks, papers)
    ordered = [nb for key in papers for nb in notebooks.values() if nb.paper == key]
    ordered += [nb for nb in notebooks.values() if nb.paper is None]
    return tuple(
        PaperRow(nb.key, nb.listed_as, papers[nb.paper].url if nb.paper else "", nb.headline)
        for nb in ordered
    )


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def count_line(notebooks: Mapping[str, catalog.Notebook] | None = None) -> str:
    """How many notebooks reproduce how many papers, and which notebooks are studies of our own.

    Parameters
    ----------
    notebooks : mapping of str to Notebook, optional
        The catalogue's notebooks (default :data:`fairlib.repro.catalog.NOTEBOOKS`).

    Returns
    -------
    str
        One sentence (``"4 notebooks reproduce 4 papers."``).
    """
    notebooks, _ = _catalogue(notebooks)
    reproducing = [nb for nb in notebooks.values() if nb.paper is not None]
    ours = [nb.key for nb in notebooks.values() if nb.paper is None]
    line = (
        f"{_count(len(notebooks), 'notebook reproduces', 'notebooks reproduce')} "
        f"{_count(len({nb.paper for nb in reproducing}), 'paper', 'papers')}"
    )
    if ours:
        line += (
            f" and run {_count(len(ours), 'study', 'studies')} of our own "
            f"({', '.join(f'`{k}`' for k in ours)})"
        )
    return line + "."


def claim_counts(claims_csv: Path | None = None) -> dict[str, Counter[tuple[str, str]]]:
    """``{paper key: Counter({(kind, status): n})}`` from the aggregated ledger
    (``data/results/claims.csv``).

    Parameters
    ----------
    claims_csv : pathlib.Path, optional
        The aggregated ledger (default ``data/results/claims.csv``).

    Returns
    -------
    dict of str to collections.Counter
        Per notebook key, the claims counted by (kind, status).

    Raises
    ------
    InvalidInputError
        When ``claims_csv`` is no file, not UTF-8 text, or a CSV without the ``paper``, ``kind``
        and ``status`` columns.
    """
    path = _input(claims_csv, paths.RESULTS / "claims.csv", "claims_csv")

    def parse(text: str) -> dict[str, Counter[tuple[str, str]]]:
        reader = csv.DictReader(io.StringIO(text, newline=""))
        missing = {"paper", "kind", "status"} - set(reader.fieldnames or ())
        if missing:
            raise _Malformed(f"no column {', '.join(sorted(missing))}")
        counts: dict[str, Counter[tuple[str, str]]] = {}
        for row in reader:
            counts.setdefault(row["paper"], Counter())[row["kind"], row["status"]] += 1
        return counts

    return _parsed(path, "claims_csv", parse, "the aggregated ledger (a CSV)")


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def results_block(claims_csv: Path | None = None) -> str:
    """How many notebooks reproduce how many papers, then the results-at-a-glance table (paper
    claims per notebook) and the totals by kind. A notebook not yet in the ledger shows "not run
    yet", its key without a link.

    Parameters
    ----------
    claims_csv : pathlib.Path, optional
        The aggregated ledger (default ``data/results/claims.csv``).

    Returns
    -------
    str
        The block's Markdown.

    Raises
    ------
    ValueError
        When the ledger counts a notebook the catalogue does not list.
    """
    counts = claim_counts(claims_csv)
    table = rows()
    unknown = sorted(set(counts) - {p.key for p in table})
    if unknown:
        raise ValueError(
            f"claims.csv has notebooks the catalogue does not list: {unknown}; add them to "
            "fairlib/repro/catalog.py (python -m fairlib.repro.scaffold paper)"
        )
    lines = [
        count_line(),
        "",
        "| key | paper | paper claims: " + " / ".join(STATUSES) + " | headline |",
        "|---|---|---|---|",
    ]
    for p in table:
        c = counts.get(p.key, Counter())
        paper = f"[{_cell(p.paper)}]({p.url})" if p.url else _cell(p.paper)
        held = " / ".join(str(c["paper", s]) for s in STATUSES)
        if not c:
            held = "not run yet"
        elif not any(c["paper", s] for s in STATUSES):
            ours = sum(c.values())
            held = f"— ({ours} findings and checks of ours)"
        key = f"[{p.key}](executed/{p.key}.ipynb)" if c else p.key
        lines.append(f"| {key} | {paper} | {held} | {_cell(p.headline)} |")
    total: Counter[tuple[str, str]] = Counter()
    for c in counts.values():
        total.update(c)
    lines.append("")
    for kind in KINDS:
        n = sum(total[kind, s] for s in STATUSES)
        parts = ", ".join(f"{total[kind, s]} {s}" for s in STATUSES)
        lines.append(f"- **{kind}** claims: {n} ({parts})")
    return "\n".join(lines)


def papers_block(papers: Mapping[str, catalog.Paper] | None = None) -> str:
    """The README's list of papers, from the catalogue: each one's authors, venue and year, and its
    link.

    Parameters
    ----------
    papers : mapping of str to Paper, optional
        The catalogue's papers (default :data:`fairlib.repro.catalog.PAPERS`).

    Returns
    -------
    str
        One paragraph, wrapped at 120 columns.
    """
    _, papers = _catalogue(None, papers)
    import textwrap

    cited = [
        f"{', '.join(family for family, _ in p.authors)}, {p.short or p.year} "
        f"([{p.link_text}]({p.url}))"
        for p in papers.values()
    ]
    return textwrap.fill(
        "The papers: " + "; ".join(cited) + ".",
        width=120,
        break_long_words=False,
        break_on_hyphens=False,
    )


def book_papers_block(
    notebooks: Mapping[str, catalog.Notebook] | None = None,
    papers: Mapping[str, catalog.Paper] | None = None,
) -> str:
    """The book landing page's list of what the notebooks reproduce, from the catalogue: each
    paper's citation (:attr:`fairlib.repro.catalog.Paper.citation`) with the notebooks that
    reproduce it, then each notebook that reproduces no paper, as the results table names it.

    Parameters
    ----------
    notebooks : mapping of str to Notebook, optional
        The catalogue's notebooks (default :data:`fairlib.repro.catalog.NOTEBOOKS`).
    papers : mapping of str to Paper, optional
        The catalogue's papers (default :data:`fairlib.repro.catalog.PAPERS`).

    Returns
    -------
    str
        A Markdown list.
    """
    notebooks, papers = _catalogue(notebooks, papers)
    lines = []
    for key, paper in papers.items():
        pages = ", ".join(
            f"[{nb.key}](executed/{nb.key}.ipynb)" for nb in notebooks.values() if nb.paper == key
        )
        lines.append(f"- {paper.citation} Notebooks: {pages}.")
    lines += [
        f"- {nb.listed_as} ([{nb.key}](executed/{nb.key}.ipynb))."
        for nb in notebooks.values()
        if nb.paper is None
    ]
    return "\n".join(lines)


def _yaml(text: str) -> str:
    """``text`` as a YAML scalar: plain when it is a name YAML reads as a string, double-quoted
    otherwise."""
    plain = re.fullmatch(r"[A-Z][A-Za-z'-]*\.?( [A-Z][A-Za-z'-]*\.?)*", text)
    special = text.lower() in {"yes", "no", "y", "n", "true", "false", "on", "off", "null"}
    return text if plain and not special else _quoted(text)


def references_block(papers: Mapping[str, catalog.Paper] | None = None) -> str:
    """``CITATION.cff``'s ``references:`` list, one entry per paper of the catalogue.

    Parameters
    ----------
    papers : mapping of str to Paper, optional
        The catalogue's papers (default :data:`fairlib.repro.catalog.PAPERS`).

    Returns
    -------
    str
        The YAML lines of the list.
    """
    _, papers = _catalogue(None, papers)
    lines = []
    for p in papers.values():
        lines += [f"  - type: {p.venue_kind}", f"    title: {_quoted(p.title)}", "    authors:"]
        for family, given in p.authors:
            lines += [
                f"      - family-names: {_yaml(family)}",
                f"        given-names: {_yaml(given)}",
            ]
        lines += [
            f"    {catalog.VENUE_KINDS[p.venue_kind]}: {_quoted(p.venue)}",
            f"    year: {p.year}",
            f"    url: {_quoted(p.url)}",
        ]
        if p.notes:
            lines.append(f"    notes: {_quoted(p.notes)}")
    return "\n".join(lines)


def _quoted(text: str) -> str:
    """``text`` as a double-quoted YAML scalar (a JSON string is one)."""
    return json.dumps(text, ensure_ascii=False)


def notebook_durations(executed: Path | None = None) -> dict[str, tuple[float, str]]:
    """``{key: (seconds, ISO date)}`` of each executed notebook's last full-mode run (papermill's
    metadata).

    Parameters
    ----------
    executed : pathlib.Path, optional
        The folder of executed notebooks (default ``executed/``).

    Returns
    -------
    dict of str to (float, str)
        Per key, the run's seconds and date; a notebook without a duration is left out.
    """
    out = {}
    executed = _input(executed, paths.ROOT / "executed", "executed", "directory", False)
    for f in sorted(executed.glob("*.ipynb")):
        meta = json.loads(f.read_text(encoding="utf-8")).get("metadata", {}).get("papermill", {})
        if meta.get("duration") is not None:
            out[f.stem] = (float(meta["duration"]), str(meta.get("end_time", ""))[:10])
    return out


def _stamp(text: str) -> dt.datetime:
    """A Jupyter or papermill ISO time stamp (``...Z`` for UTC) as an aware datetime."""
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


def notebook_spans(executed: Path | None = None) -> dict[str, tuple[float, float]]:
    """``{key: (start, end)}`` in POSIX seconds of each executed notebook's last full-mode run
    (papermill's ``start_time`` and ``end_time``); a notebook without both is left out.

    Parameters
    ----------
    executed : pathlib.Path, optional
        The folder of executed notebooks (default ``executed/``).

    Returns
    -------
    dict of str to (float, float)
        Per key, the run's start and end.
    """
    out = {}
    executed = _input(executed, paths.ROOT / "executed", "executed", "directory", False)
    for f in sorted(executed.glob("*.ipynb")):
        meta = json.loads(f.read_text(encoding="utf-8")).get("metadata", {}).get("papermill", {})
        if meta.get("start_time") and meta.get("end_time"):
            start, end = (_stamp(str(meta[k])).timestamp() for k in ("start_time", "end_time"))
            out[f.stem] = (start, end)
    return out


def wall_seconds(spans: Iterable[tuple[float, float]]) -> float:
    """The wall time covered by ``spans`` (``(start, end)`` pairs): overlapping runs (notebooks run
    side by side by ``run_all.py --jobs``) count once, runs apart (notebooks rerun on different
    days) add up.

    Parameters
    ----------
    spans : iterable of (float, float)
        ``(start, end)`` pairs, POSIX seconds, ``start <= end``.

    Returns
    -------
    float
        Seconds covered by their union (0 for no span).

    Raises
    ------
    InvalidInputError
        When a span is not a pair of finite times (:func:`fairlib._validate.as_time`) or ends
        before it starts.
    """
    if isinstance(spans, (str, bytes)):
        raise InvalidInputError(f"spans = {spans!r}: expected (start, end) pairs, got text")
    pairs = []
    for i, span in enumerate(as_instance(spans, Iterable, "spans")):
        if isinstance(span, (str, bytes)) or not hasattr(span, "__len__") or len(span) != 2:
            raise InvalidInputError(f"spans[{i}] = {_short(span)}: expected a (start, end) pair")
        start, end = (as_time(t, f"spans[{i}][{j}]") for j, t in enumerate(span))
        if end < start:
            raise InvalidInputError(f"spans[{i}] = ({start:g}, {end:g}): ends before it starts")
        pairs.append((start, end))
    total, reach = 0.0, -float("inf")
    for start, end in sorted(pairs):
        if end > reach:
            total += end - max(start, reach)
            reach = end
    return total


def cell_durations(executed: Path | None = None) -> dict[str, list[tuple[int | None, float]]]:
    """``{key: [(execution count, seconds), ...]}``: every code cell of each executed notebook's
    last full-mode run, in order, with its wall time (papermill's ``metadata.papermill.duration``,
    else the kernel's ``metadata.execution`` stamps from ``iopub.execute_input`` to
    ``shell.execute_reply``); a cell with neither is left out.

    Parameters
    ----------
    executed : pathlib.Path, optional
        The folder of executed notebooks (default ``executed/``).

    Returns
    -------
    dict of str to list of (int or None, float)
        Per key, each timed code cell's execution count and seconds.
    """
    out = {}
    executed = _input(executed, paths.ROOT / "executed", "executed", "directory", False)
    for f in sorted(executed.glob("*.ipynb")):
        cells = []
        for cell in json.loads(f.read_text(encoding="utf-8")).get("cells", []):
            if cell.get("cell_type") != "code":
                continue
            meta = cell.get("metadata", {})
            seconds = meta.get("papermill", {}).get("duration")
            stamps = meta.get("execution", {})
            if (
                seconds is None
                and "iopub.execute_input" in stamps
                and "shell.execute_reply" in stamps
            ):
                began, ended = (
                    _stamp(stamps["iopub.execute_input"]),
                    _stamp(stamps["shell.execute_reply"]),
                )
                seconds = (ended - began).total_seconds()
            if seconds is not None:
                cells.append((cell.get("execution_count"), float(seconds)))
        out[f.stem] = cells
    return out


#: the full-run benchmark's row names (``benchmarks/bench_full_run.py`` writes them,
#: :func:`full_run_line` reads them)
FULL_RUN_TOTAL = "every notebook, as `make` runs them (wall time)"
FULL_RUN_CELL = "the longest cell"
FULL_RUN_NOTEBOOK = "notebook "
_SHOWN_OP = {"<=": "≤", ">=": "≥", "<": "<", ">": ">"}


def _shown_target(row: dict) -> str:
    op, _, threshold = row["target"].partition(" ")
    return f"{_SHOWN_OP[op]} {float(threshold):g} {row['unit']}"


def _met(row: dict) -> bool:
    import operator

    op, _, threshold = row["target"].partition(" ")
    ops = {"<=": operator.le, "<": operator.lt, ">=": operator.ge, ">": operator.gt}
    return bool(ops[op](row["value"], float(threshold)))


def _benchmark_record(text: str) -> dict:
    """A benchmark result file's record: a JSON object whose ``rows`` are objects with a ``row``
    name and the ``ours``/``baseline`` texts, plus ``date`` and ``cores``."""
    rec = json.loads(text)
    if not isinstance(rec, dict) or not isinstance(rec.get("rows"), list):
        raise _Malformed("no list of rows")
    for k, row in enumerate(rec["rows"]):
        if not isinstance(row, dict) or not {"row", "ours", "baseline"} <= set(row):
            raise _Malformed(f"rows[{k}] is not a row (row, ours, baseline)")
    if not {"date", "cores"} <= set(rec):
        raise _Malformed("no date or cores")
    return rec


def full_run_line(full_run: Path | None = None) -> str:
    """The ``make`` line of the timings block, from the full-run benchmark's rows (``python -m
    benchmarks full_run``): the notebooks' time in all and each one's, the longest cell, each
    against its target."""
    path = _input(full_run, FULL_RUN_RESULTS, "full_run", must_exist=False)
    if not path.exists():
        return "- `make`: not measured yet (`python -m benchmarks full_run`)."
    rec = _parsed(path, "full_run", _benchmark_record, "a benchmark result (JSON with rows)")
    rows = {r["row"]: r for r in rec["rows"]}
    if FULL_RUN_TOTAL not in rows or FULL_RUN_CELL not in rows:
        raise InvalidInputError(
            f"full_run = {str(path)!r}: no row {FULL_RUN_TOTAL!r} or {FULL_RUN_CELL!r} (the "
            "full-run benchmark's rows)"
        )
    total, cell = rows[FULL_RUN_TOTAL], rows[FULL_RUN_CELL]
    per = ", ".join(
        f"{r['row'][len(FULL_RUN_NOTEBOOK) :]} {r['ours']}"
        for r in rec["rows"]
        if r["row"].startswith(FULL_RUN_NOTEBOOK)
    )
    return _item(
        f"`make`: the notebooks' last full-mode runs took {total['ours']} of wall time in "
        "all (target "
        f"{_shown_target(total)}: {'met' if _met(total) else 'not met'}; {per}); the longest cell "
        f"{cell['ours']} ({cell['baseline']}; target {_shown_target(cell)}: "
        f"{'met' if _met(cell) else 'not met'}). Runs of {rec['date']}, from "
        "`benchmarks/results/full_run.json`; plus a few minutes of installation."
    )


def timings_block(full_run: Path | None = None, suite: Path | None = None) -> str:
    """The two commands' wall times on 2 cores, from the last full run and the last suite benchmark.

    Parameters
    ----------
    full_run : pathlib.Path, optional
        The full-run benchmark's results (default ``benchmarks/results/full_run.json``).
    suite : pathlib.Path, optional
        The suite benchmark's results (default ``benchmarks/results/suite.json``).

    Returns
    -------
    str
        The block's Markdown: a ``make`` line and, when measured, a ``make test`` line.

    Raises
    ------
    InvalidInputError
        When ``full_run`` or ``suite`` is not a path, or names a file that is not a benchmark
        result (UTF-8 JSON whose rows include the block's).
    """
    suite_path = _input(suite, SUITE_RESULTS, "suite", must_exist=False)
    lines = [full_run_line(full_run)]
    if suite_path.exists():
        rec = _parsed(suite_path, "suite", _benchmark_record, "a benchmark result (JSON with rows)")
        row = next((r for r in rec["rows"] if str(r["row"]).startswith("make test")), None)
        if row is None:
            raise InvalidInputError(
                f"suite = {str(suite_path)!r}: no 'make test' row (the suite benchmark's)"
            )
        lines.append(
            f"- `make test`: {row['ours']} on {rec['cores']} cores with the kernel cache warm "
            f"({row['baseline']}; {rec['date']}, from `benchmarks/results/suite.json`)."
        )
    else:
        lines.append("- `make test`: not measured yet (`python -m benchmarks suite`).")
    return "\n".join(lines)


def citation_block(citation: Path | None = None) -> str:
    """The repository's BibTeX entry, rendered from ``CITATION.cff``.

    Parameters
    ----------
    citation : pathlib.Path, optional
        The citation file (default ``CITATION.cff``).

    Returns
    -------
    str
        The ``@software`` BibTeX entry, in a fenced ``bibtex`` block.

    Raises
    ------
    InvalidInputError
        When ``citation`` is no file, not UTF-8 text, or not CFF YAML with ``authors``,
        ``title``, ``date-released`` and ``version``.
    """
    import yaml

    def parse(text: str) -> list[tuple[str, str]]:
        cff = yaml.safe_load(text)
        if not isinstance(cff, dict):
            raise _Malformed("not a mapping of CFF fields")
        authors = " and ".join(
            a.get("name") or f"{a['family-names']}, {a['given-names']}" for a in cff["authors"]
        )
        fields = [
            ("author", authors),
            ("title", cff["title"]),
            ("year", str(cff["date-released"])[:4]),
            ("version", str(cff["version"])),
        ]
        if cff.get("repository-code"):
            fields.append(("url", cff["repository-code"]))
        return fields

    path = _input(citation, CITATION, "citation")
    fields = _parsed(path, "citation", parse, "a CITATION.cff (YAML with authors, title, ...)")
    body = ",\n".join(f"  {k:<7} = {{{v}}}" for k, v in fields)
    return f"```bibtex\n@software{{fairlib,\n{body}\n}}\n```"


def tolerances_block() -> str:
    """``run_all.py --verify``'s default tolerances and every per-table one declared in
    :mod:`fairlib.repro.verify`.

    Returns
    -------
    str
        A Markdown list.
    """
    from . import verify

    lines = [
        _item(
            f"numbers: equal when |a − b| ≤ {verify.DEFAULT_RTOL:g} · max(|a|, |b|) "
            "(relative, `--rtol`) or "
            f"|a − b| ≤ {verify.DEFAULT_ATOL:g} (absolute, for values that are zero up to "
            "rounding, `--atol`), "
            "except where a tolerance is declared below;"
        ),
        "- integers, labels and every claim's status: exactly.",
    ]
    for key, tables in verify.TOLERANCES.items():
        for table, columns in tables.items():
            for column, tol in columns.items():
                what = "every column" if column == "*" else f"`{column}`"
                where = (
                    f"table `{table}`"
                    if table != "*"
                    else ("every other table" if len(tables) > 1 else "every table")
                )
                inputs = (
                    f" (inputs as they are: {', '.join(f'`{c}`' for c in tol.inputs)})"
                    if tol.inputs
                    else ""
                )
                lines.append(
                    _item(
                        f"`{key}`, {where}, {what}: rtol {tol.rtol:g}, atol {tol.atol:g}, "
                        f"reported at {tol.digits} significant digits{inputs} — {tol.reason}"
                    )
                )
    return "\n".join(lines)


def timing_block() -> str:
    """The wall-clock columns ``--verify`` leaves out, by notebook and table.

    Returns
    -------
    str
        A Markdown list.
    """
    from . import verify

    return "\n".join(
        _item(
            f"`{key}`: "
            + "; ".join(
                f"`{table}` ({', '.join(f'`{c}`' for c in cols)})" for table, cols in tables.items()
            )
        )
        for key, tables in verify.TIMING_COLUMNS.items()
    )


def sensitive_block() -> str:
    """Every quantity ``--verify`` reports but does not fail, with its reason.

    Returns
    -------
    str
        A Markdown list.
    """
    from . import verify

    items = []
    for key, groups in verify.SENSITIVE.items():
        for table, entries in groups.get("tables", {}).items():
            for what, why in entries.items():
                items.append(f"`{key}`, table `{table}`, `{what}`: {why}")
        for claim, why in groups.get("claims", {}).items():
            items.append(f"`{key}`, claim `{claim}`: {why}")
    return "\n".join(_item(text) for text in items)


def _item(text: str) -> str:
    """A Markdown list item wrapped at 116 columns (no line of a rendered page runs past 400
    characters)."""
    import textwrap

    return textwrap.fill(
        text,
        width=116,
        initial_indent="- ",
        subsequent_indent="  ",
        break_long_words=False,
        break_on_hyphens=False,
    )


def reconstructions_block(notebooks: Mapping[str, catalog.Notebook] | None = None) -> str:
    """``docs/reconstructions.md``'s sections of the papers whose claims registry declares what the
    code relies on beyond the paper's text (its ``reconstructions`` entry): one section per paper,
    in the catalogue's order, so the paper's reconstructions are written beside its claims.

    Parameters
    ----------
    notebooks : mapping of str to Notebook, optional
        The catalogue's notebooks (default :data:`fairlib.repro.catalog.NOTEBOOKS`).

    Returns
    -------
    str
        Markdown: a ``###`` heading per paper and its text, or a sentence saying none declares any.

    Raises
    ------
    InvalidInputError
        When a registry's ``reconstructions`` entry is not text, or names no provenance tag and
        does not say that nothing is reconstructed.
    """
    import tomllib

    from .._validate import InvalidInputError
    from .ledger import registry_path

    notebooks, _ = _catalogue(notebooks)
    sections = []
    for key, nb in notebooks.items():
        path = registry_path(key)
        if not path.is_file():
            continue
        text = tomllib.loads(path.read_text(encoding="utf-8")).get("reconstructions")
        if text is None:
            continue
        if not isinstance(text, str) or not text.strip():
            raise InvalidInputError(f"{path}: reconstructions must be Markdown text")
        if not re.search(r"\[(INF|MEM|DRV|NR)\]", text) and not text.startswith("Nothing"):
            raise InvalidInputError(
                f"{path}: reconstructions names no provenance tag ([INF], [MEM], [DRV] or [NR]); "
                "tag each item, or say that nothing is reconstructed"
            )
        paper = catalog.paper_of(nb)
        title = f'{paper.names}, "{paper.title}"' if paper is not None else nb.title
        sections.append(f"### {title} — `{key}`\n\n{text.strip()}\n")
    if not sections:
        return "No paper declares reconstructions in its registry yet."
    return "\n".join(sections).rstrip("\n")


BLOCKS: dict[str, Callable[[], str]] = {
    "results": results_block,
    "papers": papers_block,
    "timings": timings_block,
    "citation": citation_block,
    "tolerances": tolerances_block,
    "timing": timing_block,
    "sensitive": sensitive_block,
    "references": references_block,
    "reconstructions": reconstructions_block,
}
#: the markers of a block: an HTML comment in Markdown, a comment line in YAML (``CITATION.cff``)
_BLOCKS = (
    re.compile(
        r"(<!-- BEGIN (?P<name>[a-z]+) -->\n)(?P<body>.*?\n)?(<!-- END (?P=name) -->)", re.DOTALL
    ),
    re.compile(
        r"(^# BEGIN (?P<name>[a-z]+)\n)(?P<body>.*?\n)?(^# END (?P=name)$)",
        re.DOTALL | re.MULTILINE,
    ),
)


def render(text: str) -> str:
    """``text`` with every marked block rendered afresh (an unknown block name is an error).

    Parameters
    ----------
    text : str
        A file's text with ``BEGIN``/``END`` markers.

    Returns
    -------
    str
        The text, each block replaced by its rendering.

    Raises
    ------
    InvalidInputError
        When ``text`` is not text, or a block's name is not one of :data:`BLOCKS`.
    """
    as_instance(text, str, "text")

    def one(m: re.Match) -> str:
        name = m.group("name")
        if name not in BLOCKS:
            raise InvalidInputError(
                f"text: the rendered block {name!r} is not one of {sorted(BLOCKS)}"
            )
        return m.group(1) + BLOCKS[name]() + "\n" + m.group(4)

    for block in _BLOCKS:
        text = block.sub(one, text)
    return text


def main(argv: list[str] | None = None) -> int:
    """``python -m fairlib.repro.landing [--check]``: rewrite the rendered blocks, or check them.

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default ``sys.argv[1:]``): ``--check`` to check instead of rewriting.

    Returns
    -------
    int
        The exit status: 1 when ``--check`` finds a stale file, else 0.

    Raises
    ------
    InvalidInputError
        When ``argv`` is not a list of str (an unknown option ends the process as argparse does,
        with status 2 and a message naming it).
    """
    parser = command_parser(
        prog="python -m fairlib.repro.landing",
        description=" ".join(__doc__.split("\n\n")[0].split()),
    )
    parser.add_argument(
        "--check", action="store_true", help="exit 1 if a file differs from its rendering"
    )
    args = parser.parse_args(as_argv(argv))
    stale = []
    for path in RENDERED:
        text = path.read_text(encoding="utf-8")
        fresh = render(text)
        name = path.relative_to(paths.ROOT)
        if fresh == text:
            print(f"{name} is up to date")
        elif args.check:
            stale.append(name)
            print(f"{name} is stale: run python -m fairlib.repro.landing", file=sys.stderr)
        else:
            path.write_text(fresh, encoding="utf-8")
            print(f"{name} rendered")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
