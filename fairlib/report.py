"""Deterministic outputs of the paper notebooks: figures, tables and the claims ledger.

Every notebook writes through these three entry points, so that full-mode outputs land in the
tracked ``figures/<key>/`` and ``data/results/<key>/`` and quick-mode outputs under ``build/quick/``
(see :mod:`fairlib.paths`): byte-identical for the same seed on the same machine; on another CPU equal within the
tolerances of :mod:`fairlib.verify` (``run_all.py --verify``).
"""

from __future__ import annotations

import json
import math
import os
import numbers
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from . import paths

__all__ = ["save_figure", "save_table", "ClaimLog", "Claim", "ClaimsFailed", "FLOAT_FORMAT"]

#: float format of every CSV written by :func:`save_table` (fixed, so output is byte-stable on one machine)
FLOAT_FORMAT = "%.10g"

_PNG_METADATA = {"Software": "fairlib"}
_PDF_METADATA = {"Creator": "fairlib", "Producer": "fairlib", "CreationDate": None, "ModDate": None}


def save_figure(fig, key: str, name: str, *, mode: str = "full", dpi: int = 150) -> list[Path]:
    """Save ``fig`` as ``<name>.png`` and ``<name>.pdf`` under :func:`fairlib.paths.figures_dir`.

    Metadata that would change between runs (creation dates, library versions) is fixed, so the
    same figure gives the same bytes.  Returns the written paths.
    """
    out = paths.figures_dir(key, mode)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for ext, meta in (("png", _PNG_METADATA), ("pdf", _PDF_METADATA)):
        path = out / f"{name}.{ext}"
        fig.savefig(path, dpi=dpi, metadata=meta, bbox_inches="tight")
        written.append(path)
    return written


def save_table(df: pd.DataFrame, key: str, name: str, *, mode: str = "full") -> Path:
    """Write ``df`` as tidy CSV ``<name>.csv`` with fixed float formatting; returns the path."""
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"df: expected a pandas DataFrame, got {type(df).__name__}")
    out = paths.results_dir(key, mode)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.csv"
    df.to_csv(path, index=False, float_format=FLOAT_FORMAT, lineterminator="\n")
    return path


def _plain(value):
    """Convert numpy scalars/arrays to JSON-friendly Python values."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _is_number(x) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


@dataclass(frozen=True)
class Claim:
    """One checked statement of a paper."""

    claim_id: str
    paper: object          # the paper's value or statement
    ours: object           # what we measured
    rule: str              # how ``ours`` was compared
    satisfied: bool        # whether ``ours`` meets the rule
    expect: str            # "hold" or "differs"
    status: str            # "held" | "FAILED" | "not reproduced" | "held (expected to differ)" | "not tested"
    source: str
    note: str = ""


class ClaimsFailed(AssertionError):
    """Raised by :meth:`ClaimLog.finish` when claims expected to hold did not."""


@dataclass
class ClaimLog:
    """The claims ledger of one notebook.

    Each :meth:`check` records the paper's statement, our value, the rule and the outcome.
    :meth:`finish` writes ``claims.json`` and raises :class:`ClaimsFailed` listing every claim that
    was expected to hold and did not.  Claims recorded with ``expect="differs"`` (a paper number we
    could not reproduce, with a note saying what we measured and why) never fail the run.

    >>> log = ClaimLog("demo", mode="quick", write=False)
    >>> log.check("two_player_min", paper=0.828, ours=2 * 2**0.5 - 2, tol=1e-3, source="§3.1")
    True
    >>> log.check("speedup", paper=">= 10x", ours=4.0, at_least=10, expect="differs",
    ...           source="§5", note="measured 4x: the baseline is vectorised")
    False
    >>> [c.status for c in log.claims]
    ['held', 'not reproduced']

    ``data``: where the notebook's trace data came from (``"real"``, ``"synthetic"``; None when it reads none).
    With synthetic data, a claim about the paper's data (``on_data=True``) is measured and recorded as
    **not tested**: a number computed on a stand-in says nothing about the paper's trace.

    >>> log = ClaimLog("demo", mode="full", write=False, data="synthetic")
    >>> log.check("share_within_5_min", paper=0.38, ours=0.49, tol=0.1, source="§6.2", on_data=True)
    False
    >>> log.claims[0].status
    'not tested'
    """

    key: str
    mode: str = "full"
    write: bool = True
    claims: list[Claim] = field(default_factory=list)
    data: str | None = None

    def __post_init__(self):
        if self.data not in (None, "real", "synthetic"):
            raise ValueError(f"data = {self.data!r}: must be 'real', 'synthetic' or None")

    def check(self, claim_id: str, *, paper, ours, tol: float | None = None,
              at_least: float | None = None, at_most: float | None = None,
              expect: str = "hold", source: str, note: str = "", on_data: bool = False) -> bool:
        """Record one claim; returns whether ``ours`` satisfies the rule.

        Rules: ``tol`` — ``|ours - paper| <= tol`` (``paper`` numeric); ``at_least`` / ``at_most`` —
        bounds on ``ours`` (both may be given); none of them — ``ours == paper`` exactly.
        ``on_data``: the claim is about the paper's trace data; measured on synthetic data it is "not tested".
        """
        if expect not in ("hold", "differs"):
            raise ValueError(f"expect = {expect!r}: must be 'hold' or 'differs'")
        if not source:
            raise ValueError(f"claim {claim_id!r}: source must name the paper section/figure")
        if expect == "differs" and not note:
            raise ValueError(f"claim {claim_id!r}: a claim expected to differ needs a note saying why")
        if any(c.claim_id == claim_id for c in self.claims):
            raise ValueError(f"claim {claim_id!r} recorded twice")
        paper, ours = _plain(paper), _plain(ours)
        if tol is not None and (at_least is not None or at_most is not None):
            raise ValueError(f"claim {claim_id!r}: give tol or at_least/at_most, not both")
        if tol is not None:
            if not (_is_number(paper) and _is_number(ours)):
                raise ValueError(f"claim {claim_id!r}: tol needs numeric paper and ours values")
            satisfied = bool(abs(ours - paper) <= tol)
            rule = f"|ours - paper| <= {tol:g}"
        elif at_least is not None or at_most is not None:
            if not _is_number(ours):
                raise ValueError(f"claim {claim_id!r}: at_least/at_most need a numeric ours value")
            satisfied = not math.isnan(ours)
            parts = []
            if at_least is not None:
                satisfied &= ours >= at_least
                parts.append(f"ours >= {at_least:g}")
            if at_most is not None:
                satisfied &= ours <= at_most
                parts.append(f"ours <= {at_most:g}")
            rule = " and ".join(parts)
            satisfied = bool(satisfied)
        else:
            satisfied = bool(ours == paper)
            rule = "ours == paper"
        if on_data and self.data == "synthetic":
            status = "not tested"
            note = ("measured on synthetic stand-in data (the real excerpt was not found), which says nothing about "
                    "the paper's trace" + (f"; {note}" if note else ""))
        elif expect == "hold":
            status = "held" if satisfied else "FAILED"
        else:
            status = "held (expected to differ)" if satisfied else "not reproduced"
        self.claims.append(Claim(claim_id, paper, ours, rule, satisfied, expect, status, source, note))
        return satisfied

    @property
    def failed(self) -> list[Claim]:
        return [c for c in self.claims if c.status == "FAILED"]

    def summary(self) -> dict:
        count = lambda s: sum(c.status == s for c in self.claims)  # noqa: E731
        return {
            "total": len(self.claims),
            "held": count("held") + count("held (expected to differ)"),
            "failed": count("FAILED"),
            "not_reproduced": count("not reproduced"),
            "not_tested": count("not tested"),
            "expected_to_hold": sum(c.expect == "hold" for c in self.claims),
        }

    def table(self) -> pd.DataFrame:
        """The ledger as a DataFrame (for display in the notebook)."""
        cols = ["claim_id", "source", "paper", "ours", "rule", "status", "note"]
        return pd.DataFrame([{k: _display(getattr(c, k)) for k in cols} for c in self.claims], columns=cols)

    def finish(self) -> dict:
        """Write ``claims.json`` and raise :class:`ClaimsFailed` if a claim expected to hold failed."""
        summary = self.summary()
        if self.write:
            out = paths.results_dir(self.key, self.mode)
            out.mkdir(parents=True, exist_ok=True)
            doc = {"key": self.key, "mode": self.mode, "data": self.data, "summary": summary,
                   "claims": [asdict(c) for c in self.claims]}
            # atomic: a kernel killed mid-write must not leave a truncated claims.json for run_all to read
            tmp = out / f".claims.json.{os.getpid()}.tmp"
            tmp.write_text(json.dumps(doc, indent=1, ensure_ascii=False, default=str) + "\n")
            os.replace(tmp, out / "claims.json")
        if self.failed:
            lines = [f"  {c.claim_id} ({c.source}): paper {c.paper!r}, ours {_display(c.ours)}, rule {c.rule}"
                     for c in self.failed]
            raise ClaimsFailed(f"{len(self.failed)} claim(s) expected to hold failed in {self.key}:\n"
                               + "\n".join(lines))
        return summary


def _display(value) -> str:
    if _is_number(value) and not float(value).is_integer():
        return f"{value:.6g}"
    return str(value)
