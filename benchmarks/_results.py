"""Machine-readable benchmark results and the performance page rendered from them.

Every benchmark's ``main(argv)`` returns a list of :class:`Row`: one speed row each (what is
compared, our measurement, the baseline's, the number the target is about, the target). ``python -m
benchmarks NAME`` writes them to ``benchmarks/results/NAME.json`` together with the machine (CPU
model, cores), the date, the exact command, the commit and the load average around the run; ``python
-m benchmarks --report`` renders ``docs/performance.md`` from every committed results file (and the
``bench:NAME`` blocks of :data:`DOC_PAGES` from the benchmarks' ``doc_block``), and a test checks
that the committed pages equal that rendering. Whether a row is met is computed from its value and
its target here, never typed by hand.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import numbers
import operator
import os
import platform
import re
import subprocess
import sys
import textwrap
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from fairlib.timing import cpu_model

ROOT = Path(__file__).resolve().parent.parent
RESULTS_DIR = ROOT / "benchmarks" / "results"
PAGE = ROOT / "docs" / "performance.md"
#: reference pages with blocks rendered from the committed results: between ``<!-- BEGIN bench:NAME
#: -->`` and ``<!-- END bench:NAME -->``, ``benchmarks.bench_NAME.doc_block(record)`` of
#: ``benchmarks/results/NAME.json``
DOC_PAGES = (ROOT / "docs" / "scale.md",)
_DOC_BLOCK = re.compile(
    r"(<!-- BEGIN bench:(?P<name>[a-z_]+) -->\n)(?P<body>.*?\n)?(<!-- END bench:(?P=name) -->)",
    re.DOTALL,
)

_OPS = {">=": operator.ge, ">": operator.gt, "<=": operator.le, "<": operator.lt, "==": operator.eq}
_SHOWN_OP = {">=": "≥", ">": ">", "<=": "≤", "<": "<", "==": "="}


@dataclass(frozen=True)
class Row:
    """One speed row: ``value`` (in ``unit``) is what ``target`` is about.

    ``target`` is an operator and a threshold (``">= 100"``), or empty for a row that is reported
    without a target. ``ours`` and ``baseline`` are short human-readable measurements ("54 ms",
    "HiGHS max-min LP, 5.7 s"). ``gated`` is False for a row whose target is reported but not held
    to (e.g. a cold start that ``make install`` makes moot).
    """

    row: str
    ours: str
    baseline: str
    value: float
    unit: str
    target: str = ""
    gated: bool = True
    note: str = ""

    def __post_init__(self):
        # a results file is JSON written by hand as often as by a run: "false" or "1" would read as
        # true, so every field has its type exactly (a bool is not a number here, nor a number a
        # bool)
        for name in ("row", "ours", "baseline", "unit", "target", "note"):
            if not isinstance(getattr(self, name), str):
                raise ValueError(f"{name} = {getattr(self, name)!r}: must be a string")
        if not isinstance(self.gated, bool):
            raise ValueError(f"gated = {self.gated!r}: must be true or false (a JSON boolean)")
        if isinstance(self.value, (bool, np.bool_)) or not isinstance(self.value, numbers.Real):
            raise ValueError(f"value = {self.value!r}: must be a number")
        if self.target:
            op, _, threshold = self.target.partition(" ")
            if op not in _OPS:
                raise ValueError(
                    f"target {self.target!r}: the operator must be one of {sorted(_OPS)}"
                )
            float(threshold)

    @property
    def met(self) -> bool | None:
        """Whether ``value`` meets ``target`` (None for a reported row)."""
        if not self.target:
            return None
        op, _, threshold = self.target.partition(" ")
        return bool(_OPS[op](self.value, float(threshold)))

    @property
    def margin(self) -> float | None:
        """How far ``value`` is on the right side of ``target``, as a factor: ``value / threshold``
        for ``>=``, ``threshold / value`` for ``<=`` (1.2: 20% to spare; below 1: missed). None for
        a reported row, ``==``, and a row without a unit (an exponent, a difference of utilities),
        where a ratio to the threshold means nothing."""
        if not self.target or not self.unit:
            return None
        op, _, threshold = self.target.partition(" ")
        t, v = float(threshold), float(self.value)
        if op in (">=", ">"):
            return v / t if t > 0 else None
        if op in ("<=", "<"):
            return t / v if v > 0 else float("inf")
        return None


def ratio(numerator: float, denominator: float) -> float:
    """``numerator / denominator`` (a speed ratio: the baseline's time over ours)."""
    return float(numerator) / float(denominator)


def fmt_seconds(seconds: float) -> str:
    """A time with a unit a reader takes in at once (``"54 ms"``, ``"5.7 s"``, ``"3.8 µs"``)."""
    s = float(seconds)
    if s >= 100:
        return f"{s:,.0f} s"
    if s >= 1:
        return f"{s:.3g} s"
    if s >= 1e-3:
        return f"{s * 1e3:.3g} ms"
    if s >= 1e-6:
        return f"{s * 1e6:.3g} µs"
    return f"{s * 1e9:.3g} ns"


def _commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        )
        return out.stdout.strip()
    except OSError:
        return ""


def _versions() -> dict[str, str]:
    from importlib import metadata

    out = {"python": platform.python_version()}
    for name in ("numpy", "scipy", "numba"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return out


def run_context() -> dict:
    """What a results file says about its run: machine, versions, commit and the load when it
    started."""
    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "versions": _versions(),
        "commit": _commit(),
        "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d"),
        "load_before": round(os.getloadavg()[0], 2),
    }


def save(
    name: str, rows: list[Row], context: dict, command: str, results_dir: Path | None = None
) -> Path:
    """Write ``rows`` and their run's ``context`` to ``<results_dir>/<name>.json`` (written
    whole)."""
    if not all(isinstance(r, Row) for r in rows):
        raise TypeError(f"benchmark {name!r} must return a list of benchmarks._results.Row")
    out_dir = Path(results_dir or RESULTS_DIR)
    out_dir.mkdir(parents=True, exist_ok=True)
    record = {
        "benchmark": name,
        "command": command,
        **context,
        "load_after": round(os.getloadavg()[0], 2),
        "rows": [asdict(r) for r in rows],
    }
    path = out_dir / f"{name}.json"
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
    tmp.replace(path)
    return path


def load(results_dir: Path | None = None) -> list[dict]:
    """Every results file under ``results_dir``, by benchmark name; rows as :class:`Row`."""
    records = []
    for path in sorted(Path(results_dir or RESULTS_DIR).glob("*.json")):
        try:
            record = json.loads(path.read_text())
        except ValueError as exc:
            raise ValueError(f"{path}: not a JSON results file ({exc})") from None
        if not isinstance(record, dict) or not isinstance(record.get("rows"), list):
            raise ValueError(f"{path}: key 'rows' must hold a list of rows")
        rows = []
        for i, r in enumerate(record["rows"]):
            if not isinstance(r, dict):
                raise ValueError(f"{path}: rows[{i}] = {r!r}: must be an object of Row fields")
            try:
                rows.append(Row(**r))
            except TypeError as exc:  # a missing or unknown key
                raise ValueError(f"{path}: rows[{i}] ({r.get('row', '?')!r}): {exc}") from None
            except ValueError as exc:
                raise ValueError(f"{path}: rows[{i}] ({r.get('row', '?')!r}), key {exc}") from None
        record["rows"] = rows
        records.append(record)
    return records


def _value(row: Row) -> str:
    v = row.value
    if row.unit == "×":
        text = f"{v:,.0f}" if abs(v) >= 100 else f"{v:.3g}"
        return text + "×"
    if abs(v) >= 1e4 or (v and abs(v) < 1e-3):
        return f"{v:.3g} {row.unit}".strip()
    return f"{v:.3g} {row.unit}".strip()


def _target(row: Row) -> str:
    if not row.target:
        return "reported"
    op, _, threshold = row.target.partition(" ")
    t = float(threshold)
    shown = f"{t:g}" if abs(t) < 1e5 else f"{t:.0e}"
    return f"{_SHOWN_OP[op]} {shown}{row.unit if row.unit == '×' else ' ' + row.unit}".rstrip()


def _met(row: Row) -> str:
    if row.met is None:
        return "—"
    word = "met" if row.met else "**not met**"
    margin = row.margin
    if margin is not None and margin != float(
        "inf"
    ):  # rounded down: 1.199 is not shown as the 1.2 it misses
        word += (
            f", {math.floor(margin * 100) / 100:.2f}×"
            if margin < 10
            else f", {math.floor(margin):,}×"
        )
    return word if row.gated else f"{word} (not gated)"


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


#: The margin every gated row should keep: met by this factor, so that a quieter or busier run does
#: not flip it.
MARGIN = 1.2

INTRO = f"""# Performance

Every row below is rendered by `python -m benchmarks --report` from the machine-readable results \
committed under
`benchmarks/results/`, which `make bench` (`python -m benchmarks`) writes; a test checks that this \
page equals that
rendering, so no number here is typed by hand. Each benchmark times our method and its baseline \
side by side in one
run (medians of repeated runs; generic solvers that take minutes once); read the **ratios**: \
absolute times on a
shared machine move with its load, which each run records. Whether a row is met is computed from \
its value and its
target, and so is its margin, the factor by which it is met (value over target for "≥", target \
over value for "≤";
every gated row should be met by {MARGIN:g}×, so that a busier run does not flip it; a speed-up \
from one thread or
worker to two is about 2× at most (a little more where two caches hold what one cannot), so \
against a 1.7× target
its margin is about 1.2× at most). A row marked "not gated" is
reported against its target but does not decide anything (the cold start: `make install` compiles \
every kernel
beforehand).

To re-measure one benchmark: `python -m benchmarks NAME` (then `python -m benchmarks --report`); \
every benchmark:
`make bench`.
"""


#: why a full rerun takes the time it does: the profile behind the full_run rows, kept as design
#: rationale (the timings themselves are the full_run rows above it, rendered from the executed
#: notebooks)
RERUN_PROFILE = """## Where a full rerun's time goes

The full_run rows above are read from the executed notebooks. Behind them, profiled with \
`cProfile` on the cells
that take longest, the design choices that keep a rerun within its budget without running less: \
every instant,
seed, user and epoch of the notebooks is computed, at the solvers' own tolerances, and nothing is \
cached across
runs.

- **PS-DSF's per-server fixed point** (the Google open loop's sensitivity grid, paper setup and \
route; the schedulers
  notebook's capped jobs) has two slow regimes, each worth hundreds to thousands of Gauss-Seidel \
sweeps per epoch: a
  *drift*, where every sweep moves the allocation by the same step along a face of its \
piecewise-linear map, and a
  *linear tail*, where the change shrinks by a constant ratio near 0.99. The kernel recognises \
both (three sweeps
  with the same ratio and direction) and jumps: to the geometric series' limit (Aitken's Δ²) in \
a tail, k sweeps
  ahead in a drift, kept only if the next sweep moves by the same step (else back, k halved). The \
stopping rule is
  a sweep's own change; the allocation lands within 1e-10 (relative) of the plain iteration's on \
the traces' epochs
  and random clusters (`tests/test_psdsf_acceleration.py`), except where Definition 4 has several \
allocations and
  the path decides which one (a declared sensitive quantity, [verify.md](verify.md)). About 2.5× \
fewer sweeps.
- **PF-VDS's interior point** follows a continuation in α (stages at α capped at 2, 4, 8, ...). \
A stage that stops
  short is retried at a smaller step (the factor's square root) or from α = 1, up to three times \
and up to α = 16:
  on Bitbrains snapshots at α = 2 a retry converges in tens of Newton steps where best responses \
from the stopped
  stage need thousands of sweeps. Above α = 16 the marginals x^-α span more orders of magnitude \
than a smaller step
  bridges, and retries cost more than they save. A driver that solves an α list on one cluster \
solves the shared
  stages once (`fairlib.multires.pfvds.shared_stages`; bit-identical answers, \
`tests/test_shared_stages.py`).
  On a small cluster (the property tables' 6 users on 3 servers) a Newton step is a few \
microseconds of arithmetic
  inside some fifty numpy calls on arrays of a few dozen entries, and a capped PF-VDS solve takes \
about fifty stages
  of a dozen steps: the interpreter was most of the time. Such a stage runs as one compiled loop
  (`fairlib/multires/_engine/pfvds_interior_serial.py`), the same equations in the same order with \
the reduced
  matrix factorised in the kernel; the numpy loop stays the reference and the path of large \
systems, whose passes
  over the pairs are threaded kernels (`tests/test_pfvds_interior.py` compares the two). About 4× \
less time per
  capped instance, the rest being eq. (16)'s certificate (one HiGHS LP per solve, half of it \
scipy's set-up).
- **Merging identical servers** keys each server on bytes (its capacities and its eligible users \
packed into bits):
  a float row per user made the sort take seconds on a whole Google cell (12,000 machines, 4,000 \
jobs).
- **Compilation**: numba's cache is keyed per kernel module on its source and what it imports, so \
a changed driver or
  report recompiles nothing, a changed kernel module recompiles its own kernels and its \
importers', and `make
  install` compiles every kernel once.
- **Cores**: `run_all.py` runs one notebook per core; one worker takes the longest notebook left, \
the others the
  shortest, so two long notebooks' heavy sweeps rarely overlap; and each notebook's sweeps use \
every core
  (oversubscribed on purpose), so a notebook in a serial cell leaves its core to the other's sweep.

What remains is solver work proper: Python-level interior-point iterations on many small instances \
(the property
and equilibrium tables), whole-task placement over every machine (Best-Fit DRFH), and the timing \
benchmarks inside
the metin2025 notebook, which measure baselines that are slow by design.
"""


def render(records: list[dict]) -> str:
    """The performance page for ``records`` (see :func:`load`)."""
    lines = [
        INTRO,
        "## Results",
        "",
        "| benchmark | row | ours | baseline | value | target | met |",
        "|---|---|---|---|---|---|---|",
    ]
    for record in records:
        for r in record["rows"]:
            lines.append(
                "| "
                + " | ".join(
                    _cell(x)
                    for x in (
                        record["benchmark"],
                        r.row,
                        r.ours,
                        r.baseline,
                        _value(r),
                        _target(r),
                        _met(r),
                    )
                )
                + " |"
            )
    gated = [r for rec in records for r in rec["rows"] if r.target and r.gated]
    missed = [
        f"{rec['benchmark']}: {r.row}"
        for rec in records
        for r in rec["rows"]
        if r.target and r.gated and not r.met
    ]
    thin = [
        f"{rec['benchmark']}: {r.row}"
        for rec in records
        for r in rec["rows"]
        if r.target and r.gated and r.met and r.margin is not None and r.margin < MARGIN
    ]
    lines += [
        "",
        f"{len(gated) - len(missed)} of {len(gated)} gated rows met; "
        f"{len(gated) - len(missed) - len(thin)} of them with the {MARGIN:g}× margin.",
    ]
    if missed:
        lines += ["", "Not met:", ""] + [f"- {m}" for m in missed]
    if thin:
        lines += ["", f"Met with less than the {MARGIN:g}× margin:", ""] + [f"- {m}" for m in thin]
    notes = [(rec["benchmark"], r.row, r.note) for rec in records for r in rec["rows"] if r.note]
    if notes:
        lines += ["", "## Notes on rows", ""]
        lines += [f"- **{b}, {row}**: {note}" for b, row, note in notes]
    lines += ["", RERUN_PROFILE.rstrip("\n")]
    lines += [
        "",
        "## Runs",
        "",
        "| benchmark | command | date | CPU | cores | Python, NumPy, numba | load (1 min) "
        "before / after | commit |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for rec in records:
        v = rec.get("versions", {})
        versions = ", ".join(v[k] for k in ("python", "numpy", "numba") if k in v)
        lines.append(
            "| "
            + " | ".join(
                _cell(x)
                for x in (
                    rec["benchmark"],
                    f"`{rec['command']}`",
                    rec["date"],
                    rec["cpu"],
                    rec["cores"],
                    versions,
                    f"{rec['load_before']:g} / {rec['load_after']:g}",
                    rec.get("commit", ""),
                )
            )
            + " |"
        )
    return "\n".join(lines) + "\n"


def item(text: str) -> str:
    """A Markdown list item wrapped at 116 columns (a doc block's line)."""
    return textwrap.fill(
        text,
        width=116,
        initial_indent="- ",
        subsequent_indent="  ",
        break_long_words=False,
        break_on_hyphens=False,
    )


def render_doc(text: str, records: list[dict]) -> str:
    """``text`` (a page of :data:`DOC_PAGES`) with every ``bench:NAME`` block rendered afresh from
    ``records``."""
    import importlib

    by_name = {r["benchmark"]: r for r in records}

    def one(m: re.Match) -> str:
        name = m.group("name")
        if name not in by_name:
            raise ValueError(f"block bench:{name}: there is no benchmarks/results/{name}.json")
        module = importlib.import_module(f"benchmarks.bench_{name}")
        return m.group(1) + module.doc_block(by_name[name]) + "\n" + m.group(4)

    return _DOC_BLOCK.sub(one, text)


def report(results_dir: Path | None = None, page: Path | None = None, doc_pages=None) -> Path:
    """Render the committed results into ``docs/performance.md`` (or ``page``) and the
    ``bench:NAME`` blocks of ``doc_pages`` (default :data:`DOC_PAGES`)."""
    records = load(results_dir)
    page = Path(page or PAGE)
    page.write_text(render(records))
    for doc in DOC_PAGES if doc_pages is None else doc_pages:
        text = Path(doc).read_text(encoding="utf-8")
        fresh = render_doc(text, records)
        if fresh != text:
            Path(doc).write_text(fresh, encoding="utf-8")
    return page


def run_one(
    name: str, main, argv: list[str], results_dir: Path | None = None, context=None
) -> Path:
    """Run one benchmark's ``main`` and save what it returns (the entry point of ``python -m
    benchmarks``).

    ``context(argv)``, when the benchmark defines one, returns fields of the run's record that it
    knows better than this process (the full-run benchmark's date is the span of the notebook runs
    it reads)."""
    run = run_context()
    rows = main(list(argv))
    if context is not None:
        run.update(context(list(argv)))
    command = "python -m benchmarks " + " ".join([name, *argv])
    path = save(name, rows, run, command, results_dir)
    print(f"results: {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}", flush=True)
    return path


def standalone(name: str, main, context=None) -> None:
    """``python -m benchmarks.bench_NAME [ARGS]``: the same as ``python -m benchmarks NAME
    [ARGS]``."""
    run_one(name, main, sys.argv[1:], context=context)
