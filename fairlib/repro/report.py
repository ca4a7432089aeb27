"""Deterministic outputs of the paper notebooks: figures, tables and the claims ledger.

Every notebook writes through these three entry points, so that full-mode outputs land in the
tracked ``figures/<key>/`` and ``data/results/<key>/`` and quick-mode outputs under ``build/quick/``
(see :mod:`fairlib.paths`): byte-identical for the same seed on the same machine; on another CPU equal within the
tolerances of :mod:`fairlib.repro.verify` (``run_all.py --verify``).
"""

from __future__ import annotations

import hashlib
import json
import math
import numbers
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

import numpy as np
import pandas as pd

from .. import paths
from .._validate import InvalidInputError, _short, as_count, as_flag, as_instance, result_type

__all__ = [
    "save_figure",
    "save_table",
    "ClaimLog",
    "Claim",
    "ClaimsFailed",
    "Declared",
    "Measurement",
    "load_registry",
    "quotes_of",
    "registry_path",
    "reported",
    "display_value",
    "cell_key",
    "measured_values",
    "FLOAT_FORMAT",
    "KINDS",
    "STATUSES",
    "PROVISIONAL",
    "ClaimListing",
    "LEDGER_LINK",
    "claim_anchor",
    "MARKS_FILE",
]

#: float format of every CSV written by :func:`save_table` (fixed, so output is byte-stable on one machine)
FLOAT_FORMAT = "%.10g"

_PNG_METADATA = {"Software": "fairlib"}
_PDF_METADATA = {"Creator": "fairlib", "Producer": "fairlib", "CreationDate": None, "ModDate": None}


def save_figure(fig, key: str, name: str, *, mode: str = "full", dpi: int = 150) -> list[Path]:
    """Save ``fig`` as ``<name>.png`` and ``<name>.pdf`` under :func:`fairlib.paths.figures_dir`.

    Metadata that would change between runs (creation dates, library versions) is fixed, so the
    same figure gives the same bytes. A legend over data is moved first (:func:`fairlib.repro.plotting.place_legends`).
    Returns the written paths.
    """
    # matplotlib only where a figure is saved
    from .plotting import MAX_SAVED_WIDTH, figure_marks, place_legends

    paths._check_file_name(name, "name")
    dpi = as_count(
        dpi, "dpi", maximum=2400
    )  # beyond print resolution: a typo, and a figure of gigapixels
    if not hasattr(fig, "savefig"):
        raise InvalidInputError(
            f"fig = {_short(fig)}: expected a matplotlib Figure, got {type(fig).__name__}"
        )
    place_legends(fig)
    # the width the page shows: bbox_inches="tight" grows a figure by the legends placed outside its axes
    shown = fig.get_tightbbox(fig.canvas.get_renderer()).width
    if shown > MAX_SAVED_WIDTH:
        raise InvalidInputError(
            f"fig: {name!r} is {shown:.1f} inches wide as saved (its legends or labels included); "
            f"the book shows at most {MAX_SAVED_WIDTH} at their own size: draw it narrower "
            f"(fairlib.repro.plotting.new_figure stacks panels) or put its legend below"
        )
    out = paths.figures_dir(key, mode)
    out.mkdir(parents=True, exist_ok=True)
    _record_marks(out, name, figure_marks(fig))
    written = []
    for ext, meta in (("png", _PNG_METADATA), ("pdf", _PDF_METADATA)):
        path = out / f"{name}.{ext}"
        tmp = (
            out / f".{name}.{os.getpid()}.tmp.{ext}"
        )  # written whole, then renamed: never half a file
        try:
            fig.savefig(tmp, dpi=dpi, metadata=meta, bbox_inches="tight", format=ext)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        os.replace(tmp, path)
        written.append(path)
    return written


#: the file beside a notebook's figures that records what each one draws (:func:`fairlib.repro.plotting.figure_marks`),
#: so a test can hold every caption against its figure (:func:`fairlib.repro.plotting.caption_problems`) without a new
#: run
MARKS_FILE = "marks.json"


def _record_marks(folder: Path, name: str, marks: dict) -> None:
    path = folder / MARKS_FILE
    recorded = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    recorded[name] = marks
    tmp = folder / f".{MARKS_FILE}.{os.getpid()}.tmp"
    tmp.write_text(
        json.dumps(dict(sorted(recorded.items())), indent=1, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )
    os.replace(tmp, path)


def _round_significant(values: np.ndarray, digits: int) -> np.ndarray:
    """``values`` rounded to ``digits`` significant digits (through the decimal text, so the result is the float the
    CSV shows); nan and ±inf stay."""
    return np.array([float(f"{v:.{digits}g}") for v in values.tolist()], dtype=float)


def reported(df: pd.DataFrame, key: str, name: str) -> pd.DataFrame:
    """``df`` as :func:`save_table` writes it: every float column at the significant digits its declared tolerance
    guarantees (:attr:`fairlib.repro.verify.Tolerance.digits`: fewer than the format's 10 for an iterative solver's
    output, so a table reports no digit the solver's certificate does not bound), except the declaration's
    ``inputs`` and columns of whole numbers (time stamps, counts), which keep the format's digits.

    >>> reported(pd.DataFrame({"nash_residual": [1.234567891e-7], "users": [5.0]}), "khamseashari2018",
    ...          "equilibrium_rates").to_dict("list")
    {'nash_residual': [1.23457e-07], 'users': [5.0]}
    """
    from .verify import declared_tolerance

    if not isinstance(df, pd.DataFrame):
        raise InvalidInputError(
            f"df = {_short(df)}: expected a pandas DataFrame, got {type(df).__name__}"
        )
    paths.check_key(key)
    paths._check_file_name(name, "name")
    out = None
    for column in df.columns:
        declared = declared_tolerance(key, name, str(column))
        if (
            declared is None
            or declared.digits >= 10
            or str(column) in declared.inputs
            or not pd.api.types.is_float_dtype(df[column].dtype)
        ):
            continue
        values = df[column].to_numpy(dtype=float)
        finite = values[np.isfinite(values)]
        if np.array_equal(
            finite, np.round(finite)
        ):  # time stamps and counts: no solver digit to drop
            continue
        out = df.copy() if out is None else out
        out[column] = _round_significant(df[column].to_numpy(dtype=float), declared.digits)
    return df if out is None else out


def save_table(df: pd.DataFrame, key: str, name: str, *, mode: str = "full") -> Path:
    """Write ``df`` as tidy CSV ``<name>.csv`` with fixed float formatting (:data:`FLOAT_FORMAT`), each float column
    at the precision its solver's certificate guarantees (:func:`reported`); returns the path."""
    if not isinstance(df, pd.DataFrame):
        raise InvalidInputError(
            f"df = {_short(df)}: expected a pandas DataFrame, got {type(df).__name__}"
        )
    paths._check_file_name(name, "name")
    df = reported(df, key, name)
    out = paths.results_dir(key, mode)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.csv"
    tmp = out / f".{name}.csv.{os.getpid()}.tmp"  # written whole, then renamed: never half a file
    try:
        df.to_csv(tmp, index=False, float_format=FLOAT_FORMAT, lineterminator="\n")
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    os.replace(tmp, path)
    return path


def _plain(value):
    """Convert numpy scalars/arrays to JSON-friendly Python values."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if hasattr(value, "to_numpy") and not isinstance(
        value, (str, bytes)
    ):  # a pandas Series: its values in order
        return _plain(value.to_numpy())
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def _is_number(x) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


KINDS = ("paper", "finding", "check")
#: appended to every status shown from a quick-mode ledger (its claims.json keeps the plain status and mode "quick")
PROVISIONAL = " (quick: provisional)"
STATUSES = ("held", "not reproduced", "inconclusive", "not tested")
#: ``se = {sd = "pooled"}``: the paper prints no standard deviation of the count; the common one is estimated from
#: both samples together (:func:`pooled_count_sd`)
OUR_SD = "pooled"
_RULES = ("equals", "tol", "at_least", "at_most", "se", "monotone", "converges", "ordered")
_DIRECTIONS = {"monotone": ("increasing", "decreasing"), "ordered": ("descending", "ascending")}


def registry_path(key: str) -> Path:
    """The claims registry of notebook ``key``: ``notebooks/claims/<key>.toml``."""
    paths.check_key(key)
    return paths.NOTEBOOKS / "claims" / f"{key}.toml"


def _exact(bound) -> str:
    """A rule's number exactly as declared (the shortest text that reads back as the same float): a bound of
    1.000000001 must not print as 1, or a value of 1.0000000000000902 would look held against "<= 1"."""
    text = repr(float(bound))
    return text[:-2] if text.endswith(".0") else text


@result_type
@dataclass(frozen=True)
class Declared:
    """One claim as declared in a registry, before any measurement: the paper's statement and our rule.

    Rules (exactly one, unless the claim is declared ``not_tested``):

    - ``equals = true`` — ours == paper_value exactly;
    - ``tol = t`` — |ours − paper_value| ≤ t (every element when ours is a list; a list paper_value element by
      element);
    - ``at_least`` / ``at_most`` — bounds on ours (every element when ours is a list; both may be given);
    - ``se = {k, sd, n_paper}`` — a mean reported by the paper as paper_value ± sd over ``n_paper`` runs, ours a mean
      over ``runs`` (given with the measurement): |ours − paper_value| ≤ k·sd·√(1/n_paper + 1/runs). Where the paper
      prints no standard deviation of a count per run, ``sd = "pooled"``: under the claim both samples draw from
      one distribution, whose spread is estimated from them together (:func:`pooled_count_sd`: ours in full, given
      with the measurement as ``sd``; the paper's at the least spread a whole-number count with its mean can have);
    - ``monotone = {direction, tol}`` — trends ("more efficient as λ grows"): ours is the series of values in the order
      of the parameter; ``"increasing"``: no step goes down by more than ``tol`` (``"decreasing"``: up), and the
      series moves in that direction overall (last beyond first);
    - ``converges = {final_gap}`` and/or ``{rate}`` — limits ("approaches DRF as β → ∞"): ours is the series in the
      order of the parameter and paper_value the limit; the gaps g_k = |ours_k − paper_value| end at most
      ``final_gap`` below a first gap they shrank from, and/or shrink at least geometrically, g_{k+1} ≤ rate·g_k;
    - ``ordered = {series, direction, tol}`` — an ordering of several series ("DRFH above TSF above DRF"): ours maps
      each name of ``series`` to a number or a list (compared point by point); ``"descending"``: each series is at
      least the next one minus ``tol`` (``"ascending"``: at most plus ``tol``).
    """

    id: str
    kind: str
    source: str
    statement: str
    paper_value: object = None
    equals: bool = False
    tol: float | None = None
    at_least: float | None = None
    at_most: float | None = None
    se: dict | None = None
    monotone: dict | None = None
    converges: dict | None = None
    ordered: dict | None = None
    on_data: bool = (
        False  # about the paper's trace data: "not tested" when measured on a synthetic stand-in
    )
    wall_clock: bool = (
        False  # decided by wall-clock time: reported, never gates a run (machines differ)
    )
    not_tested: str = (
        ""  # why it cannot be measured with our data (then no measurement is expected)
    )
    #: an equivalence margin for an ``at_least`` / ``at_most`` rule, from the paper's printed precision: a value
    #: within it of a bound (on either side) cannot decide the claim, which is then **inconclusive**; a value beyond
    #: a bound by more than it is not reproduced
    margin: float | None = None
    #: the claim as a notebook's Findings bullet says it, in plain words with units and the comparison (at most 35
    #: words once filled); ``{ours}``, ``{paper}``, ``{ours_min}``, ``{ours_max}``, ``{n}`` take the ledger's values,
    #: with format specs (``{ours:.2f}``). Presentation only: the rule and statement stay what decides the claim
    headline: str = ""
    #: a paper claim's words in the paper: the sentence, table cell or formula it tests, verbatim from the paper's
    #: text (one string, or a list where the claim joins several places); ``tests/test_claim_quotes.py`` finds each
    #: in our copy of the paper, whitespace and line-break hyphenation normalised
    quote: str | list[str] = ""
    #: which instances, metrics and parameters the measurement covers (what ``ours`` is computed over)
    scope: str = ""
    #: every change of the claim's rule, kind or status after its first full run, oldest first: tables with
    #: ``date`` (YYYY-MM-DD), ``change`` ("status held -> not tested", "kind paper -> finding", "rule ...") and ``why``
    history: tuple = ()

    def rule_text(self, runs: int | None = None, sd: float | None = None) -> str:
        """The claim's rule in words, as CLAIMS.md prints it (the run count, and for ``sd = "pooled"`` the pooled
        standard deviation, fill a standard-error rule)."""
        if self.not_tested:
            return "not measurable here"
        if self.equals:
            return "ours == paper"
        if self.tol is not None:
            return f"|ours - paper| <= {_exact(self.tol)}"
        if self.se is not None:
            if self.se["sd"] == OUR_SD:
                spread = (
                    "sd = pooled"
                    + (f" = {_exact(sd)}" if sd is not None else "")
                    + " (the paper prints none: ours and the least its mean allows)"
                )
            else:
                spread = f"sd = {_exact(self.se['sd'])}"
            return (
                f"|ours - paper| <= {_exact(self.se['k'])} sd sqrt(1/{self.se['n_paper']} + 1/runs), "
                + spread
                + (f", runs = {runs}" if runs else "")
            )
        if self.monotone is not None:
            return (
                f"ours {self.monotone['direction']} along its parameter (steps against it at most "
                f"{_exact(self.monotone.get('tol', 0.0))})"
            )
        if self.converges is not None:
            parts = []
            if "final_gap" in self.converges:
                parts.append(
                    f"final |ours - paper| <= {_exact(self.converges['final_gap'])}, below the first"
                )
            if "rate" in self.converges:
                parts.append(f"each gap <= {_exact(self.converges['rate'])} x the one before")
            return "ours converges to paper: " + " and ".join(parts)
        if self.ordered is not None:
            sign = " >= " if self.ordered["direction"] == "descending" else " <= "
            tol = self.ordered.get("tol", 0.0)
            return sign.join(self.ordered["series"]) + (f" (within {_exact(tol)})" if tol else "")
        parts = []
        if self.at_least is not None:
            parts.append(f"ours >= {_exact(self.at_least)}")
        if self.at_most is not None:
            parts.append(f"ours <= {_exact(self.at_most)}")
        margin = (
            f"; inconclusive within {_exact(self.margin)} of the bound (the paper's precision)"
            if self.margin is not None
            else ""
        )
        return " and ".join(parts) + margin


_FIELDS = {f.name for f in fields(Declared)}


def _check_headline(entry: dict, where: str) -> None:
    """Fill a declared headline with a value of the shape its rule measures (a series for ``monotone`` and
    ``converges``, a mapping for ``ordered``; a number or a list of them for the other rules, which take either), so
    a replacement field or format spec that cannot take it (``{ours:.1e}`` on a series) is refused when the registry
    loads, not when a later run's Findings are rendered."""
    paper = entry.get("paper_value")
    if "ordered" in entry:
        shapes = [{"a": 1.0, "b": 0.5}]
    elif "monotone" in entry or "converges" in entry:
        shapes = [[1.0, 0.5]]
    else:
        shapes = [1.0, [1.0, 0.5]]
    errors = []
    for ours in shapes:
        values = {"ours": ours, "paper": paper}
        if isinstance(ours, list):
            values.update(ours_min=0.5, ours_max=1.0, n=2)
        try:
            entry["headline"].format(**values)
            return
        except (KeyError, IndexError, ValueError, TypeError) as exc:
            errors.append(f"{type(exc).__name__}: {exc}")
    hint = (
        " (this rule measures a series: use {ours_min}, {ours_max} or {n} with a format spec)"
        if shapes == [[1.0, 0.5]]
        else ""
    )
    raise ValueError(
        f"{where}: headline {entry['headline']!r} cannot be filled with a value of this rule's shape "
        f"({'; '.join(errors)}){hint}"
    )


def _declared(entry: dict, where: str) -> Declared:
    """A registry entry checked field by field (errors name the file and the claim) and turned into a Declared."""
    cid = entry.get("id")
    if not isinstance(cid, str) or not cid:
        raise ValueError(f"{where}: every claim needs a string id, got {cid!r}")
    where = f"{where}, claim {cid!r}"
    unknown = set(entry) - _FIELDS
    if unknown:
        raise ValueError(f"{where}: unknown field(s) {sorted(unknown)}; allowed: {sorted(_FIELDS)}")
    if "headline" in entry and (
        not isinstance(entry["headline"], str) or not entry["headline"].strip()
    ):
        raise ValueError(f"{where}: headline must be a non-empty sentence")
    if "headline" in entry:
        _check_headline(entry, where)
    if entry.get("kind") not in KINDS:
        raise ValueError(f"{where}: kind = {entry.get('kind')!r}, must be one of {KINDS}")
    for name in ("source", "statement"):
        if not isinstance(entry.get(name), str) or not entry[name].strip():
            raise ValueError(f"{where}: {name} must be a non-empty string")
    rules = [r for r in _RULES if r in entry]
    if "not_tested" in entry:
        if not isinstance(entry["not_tested"], str) or not entry["not_tested"].strip():
            raise ValueError(f"{where}: not_tested must give the reason")
    elif not rules:
        raise ValueError(f"{where}: no rule (one of {_RULES}) and not declared not_tested")
    if len(rules) > 1 and set(rules) != {"at_least", "at_most"}:
        raise ValueError(
            f"{where}: rules {rules} given together; give one (at_least and at_most may pair)"
        )
    if "equals" in entry and entry["equals"] is not True:
        raise ValueError(f"{where}: equals must be true")
    if ("equals" in entry or "tol" in entry or "se" in entry) and "paper_value" not in entry:
        raise ValueError(f"{where}: rule {rules[0]!r} compares with paper_value, which is missing")
    for name in ("tol", "at_least", "at_most"):
        if name in entry and not _is_number(entry[name]):
            raise ValueError(f"{where}: {name} = {entry[name]!r} must be a number")
    if "margin" in entry and not (
        _is_number(entry["margin"])
        and entry["margin"] >= 0
        and ("at_least" in entry or "at_most" in entry)
    ):
        raise ValueError(
            f"{where}: margin = {entry['margin']!r}: an equivalence margin is a number >= 0 and goes with "
            "an at_least or at_most rule"
        )
    if "se" in entry:
        se = entry["se"]
        if not (
            isinstance(se, dict)
            and set(se) == {"k", "sd", "n_paper"}
            and _is_number(se["k"])
            and _is_number(se["n_paper"])
            and (_is_number(se["sd"]) or se["sd"] == OUR_SD)
        ):
            raise ValueError(
                f"{where}: se must be a table with numbers k, n_paper and sd (a number, or {OUR_SD!r} "
                f"where the paper prints no standard deviation); got {se!r}"
            )
    paper_value = entry.get("paper_value")
    vector = (
        isinstance(paper_value, list)
        and len(paper_value) > 0
        and all(_is_number(v) for v in paper_value)
    )
    if "tol" in entry and not (_is_number(paper_value) or vector):
        raise ValueError(
            f"{where}: tol needs a numeric paper_value or a list of numbers (compared element by "
            f"element), got {paper_value!r}"
        )
    if ("se" in entry or "converges" in entry) and not _is_number(paper_value):
        raise ValueError(f"{where}: se/converges need a numeric paper_value, got {paper_value!r}")
    _check_trend_rules(entry, where)
    _check_provenance(entry, where)
    return Declared(**entry)


def _check_provenance(entry: dict, where: str) -> None:
    """A claim's ``quote``, ``scope`` and ``history`` fields, checked (and ``history`` frozen into a tuple)."""
    import datetime

    quote = entry.get("quote", "")
    quotes = quote if isinstance(quote, list) else [quote]
    if not all(isinstance(q, str) for q in quotes) or (
        isinstance(quote, list) and not all(q.strip() for q in quotes)
    ):
        raise ValueError(
            f"{where}: quote must be the paper's words, a string or a list of non-empty strings; got "
            f"{quote!r}"
        )
    if isinstance(quote, list):
        entry["quote"] = tuple(quote)
    if not isinstance(entry.get("scope", ""), str):
        raise ValueError(f"{where}: scope must be a string, got {entry['scope']!r}")
    history = entry.get("history", [])
    if not isinstance(history, list):
        raise ValueError(
            f"{where}: history must be a list of tables {{date, change, why}}, got {history!r}"
        )
    for i, event in enumerate(history):
        if not (
            isinstance(event, dict)
            and set(event) == {"date", "change", "why"}
            and all(isinstance(event[k], str) and event[k].strip() for k in ("change", "why"))
        ):
            raise ValueError(
                f"{where}: history[{i}] = {event!r}: must be a table with date, change and why (strings)"
            )
        date = event["date"]
        try:
            datetime.date.fromisoformat(date if isinstance(date, str) else date.isoformat())
        except (TypeError, ValueError, AttributeError):
            raise ValueError(
                f"{where}: history[{i}].date = {date!r}: must be a date YYYY-MM-DD"
            ) from None
    entry["history"] = tuple(dict(e, date=str(e["date"])) for e in history)


def quotes_of(declared: "Declared") -> tuple[str, ...]:
    """A claim's quotes as a tuple (none, one or several).

    >>> quotes_of(Declared("a", "paper", "§1", "s", quote="the mean is about 1/2"))
    ('the mean is about 1/2',)
    """
    q = as_instance(declared, Declared, "declared").quote
    return tuple(q) if isinstance(q, (list, tuple)) else ((q,) if q else ())


def _check_trend_rules(entry: dict, where: str) -> None:
    """The tables of the monotone, converges and ordered rules, checked key by key."""

    def table(name, required, optional):
        spec = entry[name]
        if not isinstance(spec, dict):
            raise ValueError(f"{where}: {name} must be a table, got {spec!r}")
        unknown = set(spec) - set(required) - set(optional)
        missing = set(required) - set(spec)
        if unknown or missing:
            raise ValueError(
                f"{where}: {name} takes {sorted(required)} (required) and {sorted(optional)} (optional);"
                f" got {sorted(spec)}"
            )
        for key in ("tol", "final_gap", "rate"):
            if key in spec and not (_is_number(spec[key]) and spec[key] >= 0):
                raise ValueError(f"{where}: {name}.{key} = {spec[key]!r} must be a number >= 0")
        if "direction" in spec and spec["direction"] not in _DIRECTIONS[name]:
            raise ValueError(
                f"{where}: {name}.direction = {spec['direction']!r}, must be one of {_DIRECTIONS[name]}"
            )
        return spec

    if "monotone" in entry:
        table("monotone", ("direction",), ("tol",))
    if "converges" in entry:
        spec = table("converges", (), ("final_gap", "rate"))
        if not spec:
            raise ValueError(f"{where}: converges needs final_gap, rate or both")
        if spec.get("rate", 0.0) >= 1:
            raise ValueError(
                f"{where}: converges.rate = {spec['rate']!r} must be below 1 (gaps that shrink)"
            )
    if "ordered" in entry:
        spec = table("ordered", ("series", "direction"), ("tol",))
        series = spec["series"]
        if not (
            isinstance(series, list)
            and len(series) >= 2
            and all(isinstance(s, str) and s for s in series)
            and len(set(series)) == len(series)
        ):
            raise ValueError(
                f"{where}: ordered.series must list two or more distinct names, got {series!r}"
            )


def load_registry(source, key: str = "") -> dict[str, Declared]:
    """Read a claims registry (a TOML path, TOML text, or a list of claim tables) into ``{id: Declared}``."""
    import tomllib

    where = key or "registry"
    if isinstance(source, Path):
        if not source.is_file():
            raise FileNotFoundError(
                f"claims registry of {key!r} not found: {source} (declare the notebook's "
                "claims there before measuring them)"
            )
        where = str(source)
        source = source.read_text()
    entries = tomllib.loads(source).get("claim", []) if isinstance(source, str) else source
    out: dict[str, Declared] = {}
    for entry in entries:
        d = _declared(dict(entry), where)
        if d.id in out:
            raise ValueError(f"{where}: claim {d.id!r} declared twice")
        out[d.id] = d
    return out


@result_type
@dataclass(frozen=True)
class Claim:
    """One claim of the ledger: as declared, with our measurement and its status."""

    claim_id: str
    kind: str
    source: str
    statement: str
    paper: object  # the paper's value (None where the statement has no number)
    ours: object  # what we measured (None when not tested)
    rule: str  # how ``ours`` was compared
    status: str  # "held" | "not reproduced" | "inconclusive" | "not tested"
    note: str = ""
    wall_clock: bool = False
    cell: str | None = (
        None  # the notebook cell that measured it (:func:`cell_key` of its source); None outside one
    )


def cell_key(source: str) -> str:
    """A short key of a notebook cell's source (its stripped text hashed): how a claim names the cell that measured
    it, so the site can link each claim of the ledger to that cell of the executed notebook.

    >>> cell_key("x = 1\\n") == cell_key("x = 1")
    True
    """
    if not isinstance(source, str):
        raise InvalidInputError(
            f"source = {_short(source)}: expected a cell's source text (str), got "
            f"{type(source).__name__}"
        )
    return hashlib.sha1(source.strip().encode()).hexdigest()[:12]


def _current_cell() -> str | None:
    """:func:`cell_key` of the notebook cell being executed (IPython keeps its source in ``_ih``); None outside
    IPython."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with ipykernel
        return None
    shell = get_ipython()
    history = shell.user_ns.get("_ih") if shell is not None else None
    return cell_key(history[-1]) if history else None


@result_type
@dataclass(frozen=True)
class Measurement:
    """What an experiment driver measured for one declared claim: the value the claim's rule is applied to and,
    where a reader needs it, a note saying what was measured (and why a mismatch happens, where known).

    Drivers return ``{claim_id: Measurement}`` from the tables they made, so that the arithmetic behind a claim is
    library code with tests, and a notebook's claims cell only hands it over (:meth:`ClaimLog.measure_all`).
    ``runs``: the number of runs behind ``value``, for ``se`` rules only; ``sd``: the standard deviation over those
    runs, for ``se`` rules declared with ``sd = "pooled"`` only. ``cell``: the notebook cell where it was
    measured (:func:`cell_key` of its source; by default the cell running when the measurement is made, so a claim
    links to the section that computed it, not to the claims cell that hands it over; None outside a notebook).
    """

    value: object
    note: str = ""
    runs: int | None = None
    cell: str | None = field(default_factory=_current_cell, compare=False)
    sd: float | None = None


class ClaimsFailed(AssertionError):
    """Raised by :meth:`ClaimLog.finish` when the ledger is incomplete (a declared claim was not measured)."""


def _numbers(ours) -> list | None:
    """``ours`` as a list of numbers (a scalar is a one-element list), or None if it is not numeric."""
    values = ours if isinstance(ours, list) else [ours]
    return values if values and all(_is_number(v) for v in values) else None


def _series(d: Declared, ours, minimum: int = 2) -> list:
    """``ours`` as a series of at least ``minimum`` numbers, or an error naming the claim."""
    values = ours if isinstance(ours, list) else None
    if values is None or len(values) < minimum or _numbers(values) is None:
        raise ValueError(
            f"claim {d.id!r}: rule {d.rule_text()!r} needs a list of at least {minimum} numbers "
            f"(the series in the order of its parameter), got {ours!r}"
        )
    return values


def _monotone(d: Declared, ours) -> bool:
    values = _series(d, ours)
    if any(math.isnan(v) for v in values):
        return False
    sign = 1.0 if d.monotone["direction"] == "increasing" else -1.0
    tol = d.monotone.get("tol", 0.0)
    steps = [sign * (b - a) for a, b in zip(values, values[1:])]
    return all(s >= -tol for s in steps) and sign * (values[-1] - values[0]) > 0


def _converges(d: Declared, ours) -> bool:
    values = _series(d, ours)
    if any(math.isnan(v) for v in values):
        return False
    gaps = [abs(v - d.paper_value) for v in values]
    ok = True
    if "final_gap" in d.converges:
        ok &= gaps[-1] <= d.converges["final_gap"] and (gaps[-1] < gaps[0] or gaps[0] == 0.0)
    if "rate" in d.converges:
        ok &= all(b <= d.converges["rate"] * a for a, b in zip(gaps, gaps[1:]) if a > 0) and all(
            b == 0.0 for a, b in zip(gaps, gaps[1:]) if a == 0
        )
    return bool(ok)


def _ordered(d: Declared, ours) -> bool:
    names = d.ordered["series"]
    if not isinstance(ours, dict) or set(ours) != set(names):
        raise ValueError(
            f"claim {d.id!r}: rule {d.rule_text()!r} needs a mapping of exactly {names} to numbers or "
            f"lists, got {ours!r}"
        )
    columns = [ours[name] if isinstance(ours[name], list) else [ours[name]] for name in names]
    if len({len(c) for c in columns}) != 1 or any(_numbers(c) is None for c in columns):
        raise ValueError(
            f"claim {d.id!r}: the series of {names} must be numbers or lists of one length, got {ours!r}"
        )
    if any(math.isnan(v) for c in columns for v in c):
        return False
    sign = 1.0 if d.ordered["direction"] == "descending" else -1.0
    tol = d.ordered.get("tol", 0.0)
    return all(
        sign * (a - b) >= -tol
        for upper, lower in zip(columns, columns[1:])
        for a, b in zip(upper, lower)
    )


def pooled_count_sd(
    paper_mean: float, n_paper: int, our_mean: float, runs: int, our_sd, *, claim: str = ""
) -> float:
    """The standard deviation of a count per run estimated from two samples together, as under the hypothesis that
    they draw from one distribution: the combined sample's variance (within both samples and between their means),
    with the paper's unprinted spread taken at its least — a whole-number count with a mean whose fractional part is
    f has variance at least f(1 - f). Our ``our_sd`` is the population standard deviation over our ``runs``.

    A count the paper saw once in 1,000 runs (mean 0.001) and we never saw keeps a spread, so the rule does not ask
    for an exact match; the paper's spread at its least makes the bound no wider than the true pooled one. The
    between-means term keeps the bound above k·|d|/√(n_paper + runs): with n_paper + runs <= k² no difference could
    fail the rule, so it is meant for the paper's hundreds of runs, not a handful.

    >>> round(pooled_count_sd(0.001, 1000, 0.0, 1000, 0.0), 4)
    0.0224
    """
    if not (_is_number(our_sd) and our_sd >= 0 and math.isfinite(our_sd)):
        raise ValueError(
            f"claim {claim!r}: its se rule pools our runs' spread with the paper's (the paper prints "
            f"none): give sd = the standard deviation over our runs, got {our_sd!r}"
        )
    frac = paper_mean - math.floor(paper_mean)
    n = n_paper + runs
    between = n_paper * runs / n * (our_mean - paper_mean) ** 2
    return math.sqrt((runs * our_sd**2 + n_paper * frac * (1 - frac) + between) / n)


def _pooled_spread(d: Declared, ours, runs, our_sd) -> float | None:
    """The pooled standard deviation an ``sd = "pooled"`` rule judges ``ours`` with (:func:`pooled_count_sd`); None
    where ours is not one finite number (:func:`_evaluate` then refuses it or finds it not reproduced)."""
    values = _numbers(ours)
    if values is None or math.isnan(values[0]):
        return None
    if len(values) != 1:
        raise ValueError(
            f"claim {d.id!r}: a pooled se rule judges one mean per run set, got {ours!r}"
        )
    if not (isinstance(runs, numbers.Integral) and runs > 0):
        raise ValueError(
            f"claim {d.id!r}: an se rule needs runs = the number of runs behind ours, got {runs!r}"
        )
    return pooled_count_sd(d.paper_value, d.se["n_paper"], values[0], runs, our_sd, claim=d.id)


def _undecided(d: Declared, ours) -> bool:
    """Whether ``ours`` sits within ``d``'s equivalence margin of one of its bounds, none of its values beyond a bound
    by more than the margin: the data cannot decide the claim (status **inconclusive**).

    >>> d = Declared("x", "paper", "§1", "s", at_most=0.0, margin=0.001)
    >>> _undecided(d, [-0.2, 0.0009]), _undecided(d, [-0.2, 0.002]), _undecided(d, [-0.2, -0.1])
    (True, False, False)
    """
    values = _numbers(ours)
    if d.margin is None or values is None or any(math.isnan(v) for v in values):
        return False
    beyond = [
        bound - v for v in values for bound in ([d.at_least] if d.at_least is not None else [])
    ]
    beyond += [
        v - bound for v in values for bound in ([d.at_most] if d.at_most is not None else [])
    ]
    if any(b > d.margin for b in beyond):
        return False
    return any(abs(b) <= d.margin for b in beyond)


def _evaluate(d: Declared, ours, runs: int | None, pooled: float | None = None) -> bool:
    """Whether ``ours`` meets ``d``'s declared rule (a NaN never does); ``runs`` fills a standard-error rule, and
    ``pooled`` (:func:`_pooled_spread`) is its spread where declared ``sd = "pooled"``; a measurement of the wrong
    shape for its rule is a ValueError."""
    if d.equals:
        return bool(ours == d.paper_value)
    if d.monotone is not None:
        return _monotone(d, ours)
    if d.converges is not None:
        return _converges(d, ours)
    if d.ordered is not None:
        return _ordered(d, ours)
    values = _numbers(ours)
    if values is None:
        raise ValueError(
            f"claim {d.id!r}: rule {d.rule_text()!r} needs a number or a list of numbers, got {ours!r}"
        )
    if any(math.isnan(v) for v in values):
        return False
    if d.tol is not None:
        if isinstance(d.paper_value, list):  # a vector of the paper's values: element by element
            if len(values) != len(d.paper_value):
                raise ValueError(
                    f"claim {d.id!r}: paper_value has {len(d.paper_value)} numbers, ours "
                    f"{len(values)}: {ours!r}"
                )
            return all(abs(v - p) <= d.tol for v, p in zip(values, d.paper_value))
        return all(abs(v - d.paper_value) <= d.tol for v in values)
    if d.se is not None:
        if not (isinstance(runs, numbers.Integral) and runs > 0):
            raise ValueError(
                f"claim {d.id!r}: an se rule needs runs = the number of runs behind ours, got {runs!r}"
            )
        spread = pooled if d.se["sd"] == OUR_SD else d.se["sd"]
        bound = d.se["k"] * spread * math.sqrt(1 / d.se["n_paper"] + 1 / runs)
        return all(abs(v - d.paper_value) <= bound for v in values)
    ok = True
    if d.at_least is not None:
        ok &= all(v >= d.at_least for v in values)
    if d.at_most is not None:
        ok &= all(v <= d.at_most for v in values)
    return bool(ok)


@dataclass
class ClaimLog:
    """The claims ledger of one notebook: declared claims (the registry), measured by the notebook.

    Every claim's statement, paper value and rule are declared beforehand in ``notebooks/claims/<key>.toml``
    (:func:`registry_path`); the notebook can only :meth:`measure`. A claim is **held** (the rule holds),
    **not reproduced** (it does not: the note says what we measured and, where known, why) or **not tested**
    (declared ``not_tested`` with the reason, or ``on_data`` and measured on a synthetic stand-in), or **inconclusive**
    (within the declared equivalence ``margin`` of a bound: the data cannot decide).
    :meth:`finish` writes ``claims.json`` and raises :class:`ClaimsFailed` if a declared claim was not measured.
    Whether a status changed since the committed ledger is checked by ``run_all.py`` (``--accept-claims``).

    >>> reg = '''
    ... [[claim]]
    ... id = "two_player_min"
    ... kind = "paper"
    ... source = "§3.1"
    ... statement = "the worst two-player efficiency is 2√2 − 2"
    ... paper_value = 0.828
    ... tol = 1e-3
    ... '''
    >>> log = ClaimLog("demo", write=False, registry=reg)
    >>> log.measure("two_player_min", 2 * 2**0.5 - 2)
    True
    >>> log.claims[0].status
    'held'

    ``data``: where the notebook's trace data came from (``"real"``, ``"synthetic"``; None when it reads none).
    ``registry``: a path, TOML text or list of claim tables; by default :func:`registry_path` (``key``).
    """

    key: str
    mode: str = "full"
    write: bool = True
    data: str | None = None
    registry: object = None
    claims: list[Claim] = field(default_factory=list)

    def __post_init__(self):
        paths.check_key(self.key)
        paths._check_mode(self.mode)
        self.write = as_flag(self.write, "write")
        if self.data not in (None, "real", "synthetic"):
            raise InvalidInputError(f"data = {self.data!r}: must be 'real', 'synthetic' or None")
        self.declared = load_registry(
            registry_path(self.key) if self.registry is None else self.registry, self.key
        )

    def measure(
        self,
        claim_id: str,
        ours,
        *,
        note: str = "",
        runs: int | None = None,
        cell: str | None = None,
        sd: float | None = None,
    ) -> bool:
        """Record our measurement of declared claim ``claim_id``; returns whether its declared rule holds.

        ``note``: what we measured and why, for a reader (shown with every status). ``runs``: the number of
        runs behind ``ours`` (only for ``se`` rules). ``sd``: our runs' standard deviation, for an ``se`` rule declared
        with ``sd = "pooled"`` only. ``cell``: the notebook cell that measured it (default: the
        cell running now).
        """
        d = self.declared.get(claim_id)
        if d is None:
            raise KeyError(
                f"claim {claim_id!r} is not declared in the registry of {self.key!r}; declare its "
                f"statement and rule in {registry_path(self.key)} first"
            )
        if d.not_tested:
            raise ValueError(
                f"claim {claim_id!r} is declared not_tested ({d.not_tested}); it cannot be measured"
            )
        if any(c.claim_id == claim_id for c in self.claims):
            raise ValueError(f"claim {claim_id!r} measured twice")
        if sd is not None and not (d.se is not None and d.se["sd"] == OUR_SD):
            raise ValueError(
                f"claim {claim_id!r}: sd = {sd!r} given, but its rule ({d.rule_text()}) does not take our "
                'runs\' standard deviation (only an se rule declared with sd = "pooled" does)'
            )
        ours = _plain(ours)
        # a pooled rule's spread, computed once: judged with, and shown in the rule (none for a NaN: not reproduced)
        pooled = (
            _pooled_spread(d, ours, runs, sd) if d.se is not None and d.se["sd"] == OUR_SD else None
        )
        satisfied = _evaluate(d, ours, runs, pooled)
        if d.on_data and self.data == "synthetic":
            status = "not tested"
            note = (
                "measured on synthetic stand-in data (the real excerpt was not found), which says nothing about "
                "the paper's trace" + (f"; {note}" if note else "")
            )
        elif _undecided(d, ours):
            status = "inconclusive"
        else:
            status = "held" if satisfied else "not reproduced"
        self.claims.append(
            Claim(
                claim_id,
                d.kind,
                d.source,
                d.statement,
                _plain(d.paper_value),
                ours,
                d.rule_text(runs, pooled),
                status,
                note,
                d.wall_clock,
                cell or _current_cell(),
            )
        )
        return satisfied

    def measure_all(self, measured) -> dict[str, bool]:
        """:meth:`measure` every claim of ``measured`` (``{claim_id: Measurement}``, as experiment drivers return
        them), in its order, each linked to the cell where it was measured; returns whether each claim's rule holds.

        >>> reg = '''
        ... [[claim]]
        ... id = "worst_efficiency"
        ... kind = "paper"
        ... source = "§3.1"
        ... statement = "the worst efficiency is 3/4"
        ... paper_value = 0.75
        ... tol = 1e-3
        ... '''
        >>> log = ClaimLog("demo", write=False, registry=reg)
        >>> log.measure_all({"worst_efficiency": Measurement(0.7502, note="over 100 games")})
        {'worst_efficiency': True}
        """
        out = {}
        for claim_id, m in measured.items():
            if not isinstance(m, Measurement):
                raise TypeError(
                    f"measured[{claim_id!r}] = {m!r}: expected a fairlib.repro.report.Measurement"
                )
            out[claim_id] = self.measure(
                claim_id, m.value, note=m.note, runs=m.runs, cell=m.cell, sd=m.sd
            )
        return out

    def _complete(self) -> list[str]:
        """Add the declared not-tested claims (their cell: the one that finishes the ledger, where they are listed);
        returns the ids of declared claims never measured."""
        measured = {c.claim_id for c in self.claims}
        cell = _current_cell()
        missing = []
        for d in self.declared.values():
            if d.id in measured:
                continue
            if d.not_tested:
                self.claims.append(
                    Claim(
                        d.id,
                        d.kind,
                        d.source,
                        d.statement,
                        _plain(d.paper_value),
                        None,
                        d.rule_text(),
                        "not tested",
                        d.not_tested,
                        d.wall_clock,
                        cell,
                    )
                )
            else:
                missing.append(d.id)
        rank = {cid: i for i, cid in enumerate(self.declared)}
        self.claims.sort(key=lambda c: rank[c.claim_id])
        return missing

    def summary(self) -> dict:
        """Claim counts: ``total`` and one per status."""
        out = {"total": len(self.claims)}
        for status in STATUSES:
            out[status.replace(" ", "_")] = sum(c.status == status for c in self.claims)
        for kind in KINDS:
            out[kind] = {
                status.replace(" ", "_"): sum(
                    c.status == status and c.kind == kind for c in self.claims
                )
                for status in STATUSES
            }
        return out

    def table(self) -> pd.DataFrame:
        """The ledger as a DataFrame (for display in the notebook); in quick mode every status is marked
        provisional (quick mode's sizes cannot decide the paper's claims; the full run's ledger counts)."""
        cols = ["claim_id", "kind", "source", "paper", "ours", "rule", "status", "note"]
        mark = PROVISIONAL if self.mode == "quick" else ""
        return pd.DataFrame(
            [
                {k: display_value(getattr(c, k)) + (mark if k == "status" else "") for k in cols}
                for c in self.claims
            ],
            columns=cols,
        )

    def listing(self) -> "ClaimListing":
        """The notebook's **Claims** section: its claims as a short list per status, each id linking to its row of
        the ledger (``data/results/CLAIMS.md#claim-<id>``; the book points it at its ledger page), the statement
        shown when the pointer rests on it. Rules, values and notes are the ledger's; in quick mode every status is
        marked provisional."""
        measured = {c.claim_id for c in self.claims}
        rows = [(c.claim_id, c.kind, c.status, c.statement) for c in self.claims]
        # the declared not-tested claims, listed by finish() (the ledger has them): the list shows them too
        rows += [
            (d.id, d.kind, "not tested", d.statement)
            for d in self.declared.values()
            if d.not_tested and d.id not in measured
        ]
        rank = {cid: i for i, cid in enumerate(self.declared)}
        return ClaimListing(tuple(sorted(rows, key=lambda r: rank.get(r[0], len(rank)))), self.mode)

    def finish(self) -> dict:
        """Write ``claims.json``; raise :class:`ClaimsFailed` if a declared claim was not measured."""
        missing = self._complete()
        summary = self.summary()
        if self.write:
            out = paths.results_dir(self.key, self.mode)
            out.mkdir(parents=True, exist_ok=True)
            doc = {
                "key": self.key,
                "mode": self.mode,
                "data": self.data,
                "summary": summary,
                "claims": [asdict(c) for c in self.claims],
            }
            # atomic: a kernel killed mid-write must not leave a truncated claims.json for run_all to read
            tmp = out / f".claims.json.{os.getpid()}.tmp"
            tmp.write_text(json.dumps(doc, indent=1, ensure_ascii=False, default=str) + "\n")
            os.replace(tmp, out / "claims.json")
        if missing:
            raise ClaimsFailed(
                f"{len(missing)} declared claim(s) of {self.key} were not measured: "
                + ", ".join(missing)
            )
        return summary


#: where a notebook's Markdown links a claim (relative to ``executed/<key>.ipynb``): its row of the ledger
LEDGER_LINK = "../data/results/CLAIMS.md#claim-{claim_id}"


def claim_anchor(claim_id: str) -> str:
    """The HTML anchor of a claim's row in the ledger (``CLAIMS.md`` and the book's ledger page).

    >>> claim_anchor("table1_1-20_over_sd")
    'claim-table1_1-20_over_sd'
    """
    if (
        not isinstance(claim_id, str)
        or not claim_id
        or any(ch.isspace() or ch in "\"'<>#" for ch in claim_id)
    ):
        raise InvalidInputError(
            f"claim_id = {_short(claim_id)}: expected a claim id (a string without spaces, "
            f"quotes, angle brackets or #)"
        )
    return f"claim-{claim_id}"


@dataclass(frozen=True)
class ClaimListing:
    """A notebook's claims as a short list per status (:meth:`ClaimLog.listing`); shown as Markdown.

    >>> print(ClaimListing((("a", "paper", "held", "x"), ("b", "finding", "not reproduced", "y")), "full").markdown())
    **Held** (1): [`a`](../data/results/CLAIMS.md#claim-a "x")
    <BLANKLINE>
    **Not reproduced** (1): [`b`](../data/results/CLAIMS.md#claim-b "y") (finding)
    <BLANKLINE>
    Rules, the paper's values and ours, and notes: the [claims ledger](../data/results/CLAIMS.md).
    """

    claims: tuple
    mode: str = "full"

    def __post_init__(self):
        paths._check_mode(self.mode)
        if not isinstance(self.claims, tuple):
            raise InvalidInputError(
                f"claims = {_short(self.claims)}: expected a tuple of (claim id, kind, status, "
                f"statement)"
            )
        for i, c in enumerate(self.claims):
            if not (isinstance(c, tuple) and len(c) == 4 and c[2] in STATUSES and c[1] in KINDS):
                raise InvalidInputError(
                    f"claims[{i}] = {_short(c)}: expected (claim id, kind, status, statement) "
                    f"with a kind of {KINDS} and a status of {STATUSES}"
                )

    def markdown(self) -> str:
        """The list as Markdown (one paragraph per status that has claims, then the link to the ledger)."""
        words = {
            "held": "Held",
            "not reproduced": "Not reproduced",
            "inconclusive": "Inconclusive",
            "not tested": "Not tested",
        }
        mark = PROVISIONAL if self.mode == "quick" else ""
        parts = []
        for status in STATUSES:
            chosen = [c for c in self.claims if c[2] == status]
            if not chosen:
                continue
            items = []
            for claim_id, kind, _, statement in chosen:
                title = " ".join(str(statement).split()).replace('"', "'")
                link = LEDGER_LINK.format(claim_id=claim_id)
                # the id as code: its underscores stay visible under a link's underline
                items.append(
                    f'[`{claim_id}`]({link} "{title}")' + ("" if kind == "paper" else f" ({kind})")
                )
            parts.append(f"**{words[status]}{mark}** ({len(chosen)}): " + ", ".join(items))
        parts.append(
            "Rules, the paper's values and ours, and notes: the [claims ledger](../data/results/CLAIMS.md)."
        )
        return "\n\n".join(parts)

    @classmethod
    def from_ledger(cls, claims: list, mode: str = "full") -> "ClaimListing":
        """The list of a ledger as ``claims.json`` holds it (every claim, the not-tested ones included)."""
        return cls(
            tuple((c["claim_id"], c["kind"], c["status"], c["statement"]) for c in claims), mode
        )

    def _repr_markdown_(self) -> str:
        return self.markdown()

    def __repr__(self) -> str:
        return self.markdown()


def display_value(value) -> str:
    """A measured or paper value as shown in ledgers: 6 significant digits, long numeric lists as their range."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return str(value)  # exact, with no float in between (10**400 has none)
    if _is_number(value) and not float(value).is_integer():
        return f"{value:.6g}"
    if isinstance(value, list) and len(value) > 4 and _numbers(value):
        return f"{min(value):.4g} to {max(value):.4g} ({len(value)} values)"
    if isinstance(value, list) and _numbers(value):
        return "[" + ", ".join(display_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "; ".join(f"{k}: {display_value(v)}" for k, v in value.items())
    return "" if value is None else str(value)


def measured_values(measured) -> dict:
    """``{claim_id: value}`` of ``{claim_id: Measurement}``: the numbers a notebook's "What we found" prose quotes.

    >>> measured_values({"worst_efficiency": Measurement(0.75, note="over 100 games")})
    {'worst_efficiency': 0.75}
    """
    if not isinstance(measured, Mapping):
        raise InvalidInputError(
            f"measured = {_short(measured)}: expected a dict of claim id -> Measurement"
        )
    for claim_id, m in measured.items():
        if not isinstance(claim_id, str):
            raise InvalidInputError(
                f"measured: key {_short(claim_id)} is not a claim id (text), got {type(claim_id).__name__}"
            )
        as_instance(m, Measurement, f"measured[{claim_id!r}]")
    return {claim_id: m.value for claim_id, m in measured.items()}
