"""A full rerun: the wall time of every notebook's last full-mode run and of its longest cell, as
``make`` runs them.

Nothing is re-executed: the rows are read from the papermill metadata of the executed notebooks
(``executed/*.ipynb``, or ``$FAIRLIB_OUTPUT_DIR/executed``; ``--executed DIR`` reads another
folder): each notebook's ``metadata.papermill.duration``, ``start_time`` and ``end_time``
(:func:`fairlib.repro.landing.notebook_durations`, :func:`fairlib.repro.landing.notebook_spans`) and
each code cell's duration (:func:`fairlib.repro.landing.cell_durations`). ``make`` runs the
notebooks side by side (``run_all.py --jobs``), so the wall time is the time their runs cover,
overlaps counted once (:func:`fairlib.repro.landing.wall_seconds`); notebooks rerun apart add up.
Installation aside.

Targets (on 2 cores, no result cached across runs): the whole full-mode reproduction in at most 30
minutes, no cell over 4 minutes. Reported: each notebook's minutes and its longest cell. The results
file's date is the span of the runs' end dates and its machine what the notebooks record of theirs
(processor, cores, the kernel's Python version); the README's ``make`` line is rendered from this
file (``python -m fairlib.repro.landing``).
"""

from __future__ import annotations

from pathlib import Path

from benchmarks._results import Row, standalone
from fairlib import paths
from fairlib.repro import landing
from fairlib._validate import as_argv

#: minutes: the whole full-mode reproduction on 2 cores, and any one cell of it
TOTAL_TARGET = 30
CELL_TARGET = 4


def minutes(seconds: float) -> str:
    """A duration in minutes as a reader takes it in (``"1.3 min"``, ``"60 min"``)."""
    return f"{seconds / 60:.0f} min" if seconds >= 600 else f"{seconds / 60:.1f} min"


def _cell(count: int | None) -> str:
    return f"In [{count}]" if count is not None else "an unnumbered cell"


def _executed(argv: list[str]) -> Path:
    if "--executed" in argv:
        return Path(argv[argv.index("--executed") + 1])
    return paths.executed_dir()


def rows(executed: Path | None = None) -> list[Row]:
    """The full-run rows of the executed notebooks in ``executed`` (default:
    :func:`fairlib.paths.executed_dir`)."""
    executed = Path(executed or paths.executed_dir())
    durations = landing.notebook_durations(executed)
    if not durations:
        raise SystemExit(
            f"no executed notebook with papermill's duration in {executed}: a full run (python "
            "run_all.py) publishes them"
        )
    cells = landing.cell_durations(executed)
    longest = {key: max(cells.get(key) or [(None, 0.0)], key=lambda c: c[1]) for key in durations}
    busy = sum(s for s, _ in durations.values())
    spans = landing.notebook_spans(executed)
    total = landing.wall_seconds(spans.values()) if set(spans) == set(durations) else busy
    key, (count, seconds) = max(longest.items(), key=lambda kv: kv[1][1])
    over = [(k, c, s) for k in durations for c, s in cells.get(k, []) if s > CELL_TARGET * 60]
    listed = "; ".join(f"{k} {_cell(c)} {minutes(s)}" for k, c, s in over)
    over_text = f"{len(over)} {'cell' if len(over) == 1 else 'cells'} over {CELL_TARGET} min" + (
        f": {listed}" if over else ""
    )
    out = [
        Row(
            landing.FULL_RUN_TOTAL,
            minutes(total),
            f"{len(durations)} notebooks' papermill runs, from start to end, time side by "
            "side counted once",
            total / 60,
            "min",
            f"<= {TOTAL_TARGET}",
            note="read from the executed notebooks' metadata (nothing re-executed): "
            f"{minutes(busy)} of notebook time "
            f"in all, {minutes(total)} of wall time (run_all.py runs notebooks side by "
            "side); the target is the "
            "whole full-mode reproduction on 2 cores with no result cached across runs",
        ),
        Row(
            landing.FULL_RUN_CELL,
            minutes(seconds),
            f"{key}, {_cell(count)}",
            seconds / 60,
            "min",
            f"<= {CELL_TARGET}",
            note=over_text,
        ),
    ]
    for k, (s, _) in durations.items():
        c, cs = longest[k]
        out.append(
            Row(
                f"{landing.FULL_RUN_NOTEBOOK}{k}",
                minutes(s),
                f"longest cell {_cell(c)}, {minutes(cs)}",
                s / 60,
                "min",
            )
        )
    return out


def runs_span(executed: Path | None = None) -> str:
    """The runs' end dates: ``"2026-11-26 to 2026-11-28"``, or the one date."""
    dates = sorted(
        d for _, d in landing.notebook_durations(executed or paths.executed_dir()).values() if d
    )
    if not dates:
        return "unknown"
    return dates[0] if dates[0] == dates[-1] else f"{dates[0]} to {dates[-1]}"


def _pythons(executed: Path) -> list[str]:
    """The Python versions the executed notebooks' kernels report
    (``metadata.language_info.version``)."""
    import json

    found = {
        json.loads(f.read_text(encoding="utf-8"))
        .get("metadata", {})
        .get("language_info", {})
        .get("version")
        for f in sorted(executed.glob("*.ipynb"))
    }
    return sorted(v for v in found if v)


def _machines(executed: Path) -> tuple[str, str]:
    """The processors and core counts the executed notebooks record (``metadata.fairlib.machine``),
    each joined."""
    import json

    cpus, cores = set(), set()
    for f in sorted(executed.glob("*.ipynb")):
        machine = (
            json.loads(f.read_text(encoding="utf-8"))
            .get("metadata", {})
            .get("fairlib", {})
            .get("machine", {})
        )
        cpus.add(machine.get("cpu") or "not recorded")
        cores.add(str(machine.get("cores") or "not recorded"))
    return "; ".join(sorted(cpus)) or "not recorded", "; ".join(sorted(cores)) or "not recorded"


def context(argv=None) -> dict:
    """What the results file says instead of this process's run: the date is the span of the
    notebooks' runs, and the machine and versions are theirs as the notebooks record them (processor
    and cores in ``metadata.fairlib.machine``, the kernel's Python version)."""
    executed = _executed(list(argv or []))
    cpu, cores = _machines(executed)
    return {
        "date": runs_span(executed),
        "cpu": cpu,
        "cores": cores,
        "versions": {"python": ", ".join(_pythons(executed))},
    }


def main(argv=None) -> list[Row]:
    argv = as_argv(argv)
    executed = _executed(list(argv or []))
    out = rows(executed)
    for r in out:
        print(
            f"{r.row}: {r.ours} ({r.baseline})" + (f", target {r.target} min" if r.target else ""),
            flush=True,
        )
    return out


if __name__ == "__main__":
    standalone("full_run", main, context)
