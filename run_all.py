#!/usr/bin/env python
"""Execute every paper notebook end to end with papermill and report what reproduced.

    python run_all.py                      # every notebook, full mode (paper parameters)
    python run_all.py --quick              # every notebook, quick mode (seconds; outputs under
                                           # build/)
    python run_all.py --only metin2025     # a subset
    python run_all.py --jobs 1             # one notebook at a time (default: one per core, side by
                                           # side)
    python run_all.py --list               # the registry
    python run_all.py --dask tcp://host:8786   # parameter sweeps on a Dask cluster (see README)
    python run_all.py --resume             # reuse sweep cells finished by an interrupted run
    python run_all.py --verify [--only KEY ...]   # re-run into build/verify and compare with the
                                                  # committed tables

Each notebook runs into ``build/executed/<mode>/<key>.ipynb`` with ``MODE`` injected. Full mode
writes the tracked ``figures/<key>/`` and ``data/results/<key>/`` and publishes the executed
notebook, outputs included, to the tracked ``executed/<key>.ipynb`` (what a reader opens; ``make
site`` builds the book from those); quick mode writes only under ``build/``. As each notebook
finishes, one line: its key, status and wall time and, in full mode, about how long the rest takes,
from the last full run's durations (``executed/<key>.ipynb``) of the notebooks not finished yet,
divided by the jobs (:func:`progress_line`). At the end: a table (key, mode, status, wall time,
claims held/expected, outputs), the aggregated claims table (``claims.csv`` and ``CLAIMS.md`` in the
mode's results root) and ``build/run_manifest.json``. The exit code is non-zero if any notebook
failed (the failing cell and error are named) or, in a full run, if a claim "held" in the committed
ledger is not held any more (each one named; ``--accept-claims`` accepts the new statuses, which
then show in the diff of ``claims.json``). Every notebook runs even when one fails
(``--stop-on-failure`` stops at the first).

``--verify`` checks the published numbers on this machine: it re-executes the notebooks in full mode
with their outputs redirected to ``build/verify/`` (``FAIRLIB_OUTPUT_DIR``; the committed
``figures/`` and ``data/results/`` are never touched) and compares every committed table of
``data/results/<key>/`` with the fresh one (:mod:`fairlib.repro.verify`: same columns and rows,
numbers equal within ``--rtol``/``--atol``, the wall-clock columns of
:data:`fairlib.repro.verify.TIMING_COLUMNS` excluded, :data:`fairlib.repro.verify.SENSITIVE`
quantities reported but not failed) and every claim's status. It prints a report per table. A
notebook whose committed results come from the real trace excerpts but which ran here on synthetic
stand-ins (the excerpts were not found) is not compared as if it could differ: it is reported as
"could not verify", naming the excerpts and the fetch command (``python -m fairlib.traces.fetch
--notebooks``).

Exit status:

- 0: every notebook ran (and, with ``--verify``, every committed table and claim status reproduced);
- 1: a notebook failed, a claim held in the committed ledger is not held any more, or ``--verify``
  found a difference;
- 2: a usage error (an unknown or repeated ``--only`` key, a bad option value);
- 3: ``--verify`` found no difference, but some notebooks could not be verified: they need the real
  trace excerpts (fetch them and rerun).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import platform
import queue as queue_module
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))  # this checkout's fairlib, also when run from elsewhere

from fairlib._validate import (  # noqa: E402
    InvalidInputError,
    as_argv,
    command_parser,
    as_tolerance,
    cli_integer,
    cli_number,
)
from fairlib.repro.catalog import NOTEBOOKS, Notebook  # noqa: E402


def _notebook_key(text: str) -> str:
    """An ``argparse`` type for ``--only``: a key that shows (``--only ''`` was reported as the
    unknown key ``''``, a list that reads as nothing)."""
    import argparse

    if not text.strip():
        raise argparse.ArgumentTypeError(f"{text!r}: blank, expected a notebook key")
    return text


KERNEL_NAME = "fairlib"


#: the explicit registry: every paper notebook that run_all executes, in order
#: (fairlib.repro.catalog, which the site builder reads too)
REGISTRY: dict[str, Notebook] = NOTEBOOKS


#: packages whose versions go into the run manifest
MANIFEST_PACKAGES = [
    "fairlib",
    "numpy",
    "scipy",
    "numba",
    "pandas",
    "matplotlib",
    "seaborn",
    "papermill",
    "ipykernel",
    "nbformat",
    "tqdm",
    "joblib",
    "dask",
    "distributed",
]


def load_registry(path: str | None) -> dict[str, Notebook]:
    """The built-in registry, or one read from a JSON list of {key, path, title, cell_timeout_s}."""
    if path is None:
        return REGISTRY
    entries = json.loads(Path(path).read_text())
    return {e["key"]: Notebook(**e) for e in entries}


def _nb_path(nb: Notebook) -> Path:
    p = Path(nb.path)
    return p if p.is_absolute() else ROOT / p


@dataclass
class Outcome:
    key: str
    mode: str
    status: str = "not run"  # ok | FAILED
    wall_s: float = 0.0
    claims_held: int = 0
    claims_total: int = 0
    claims_regressed: list = field(
        default_factory=list
    )  # claims held in the committed ledger and not any more
    claims_fresh: bool = False  # this run wrote the notebook's claims.json
    quick_differs: list = field(
        default_factory=list
    )  # quick mode: claims whose status differs from the full ledger
    claims_not_reproduced: int = 0
    claims_inconclusive: int = 0
    claims_not_tested: int = 0
    outputs: int = 0
    error: str = ""
    seed: object = None
    executed: str = ""
    data: str = ""  # trace data the notebook read: real | synthetic | "" (none)


def check_kernel() -> None:
    """Make sure papermill will use this interpreter through the 'fairlib' kernel.

    The venv's own kernel directory is put first on JUPYTER_PATH so a user-wide kernel of the same
    name cannot shadow it; then the spec's interpreter must be ``sys.executable``.
    """
    venv_share = Path(sys.prefix) / "share" / "jupyter"
    os.environ["JUPYTER_PATH"] = os.pathsep.join(
        [str(venv_share)] + [p for p in os.environ.get("JUPYTER_PATH", "").split(os.pathsep) if p]
    )
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    fix = (
        f"register it with: {sys.executable} -m ipykernel install --sys-prefix --name {KERNEL_NAME}"
        " (the Makefile does this)"
    )
    try:
        spec = KernelSpecManager().get_kernel_spec(KERNEL_NAME)
    except NoSuchKernel:
        sys.exit(f"run_all.py: no Jupyter kernel named {KERNEL_NAME!r}; {fix}")
    kernel_python = spec.argv[0]
    if not same_interpreter(kernel_python, sys.executable):
        shared = (
            ""
            if Path(sys.prefix).resolve().is_relative_to(ROOT)
            else (
                f" (this environment, {Path(sys.prefix).resolve()}, is outside this checkout: "
                "registering the kernel there changes it for every checkout that uses it; "
                "`make install` in this checkout makes its own .venv)"
            )
        )
        sys.exit(
            f"run_all.py: kernel {KERNEL_NAME!r} runs {kernel_python}, not this interpreter "
            f"{sys.executable}; {fix}{shared}"
        )


def same_interpreter(a: str, b: str) -> bool:
    """Whether two interpreter paths run in one environment: their directories are the same once
    symbolic links are resolved (a symlinked ``.venv``), and the programs are the same (``python``
    vs ``python3.11`` there). The files themselves are not resolved: a virtual environment's
    ``python`` links to the base interpreter, which every environment made from it shares."""
    pa, pb = Path(a).expanduser().absolute(), Path(b).expanduser().absolute()
    if pa.parent.resolve() != pb.parent.resolve():
        return False
    return pa.name == pb.name or pa.resolve() == pb.resolve()


def _count_outputs(key: str, mode: str, since: float) -> int:
    from fairlib import paths

    n = 0
    for d in (paths.figures_dir(key, mode), paths.results_dir(key, mode)):
        if d.is_dir():
            n += sum(1 for p in d.rglob("*") if p.is_file() and p.stat().st_mtime >= since - 1)
    return n


def _describe_error(exc: BaseException, executed: Path) -> str:
    """Name the failing cell and the error (papermill's PapermillExecutionError carries both).

    The index is given in the source notebook's numbering (0-based): papermill's injected-parameters
    cell, present only in the executed copy, is discounted.
    """
    cell = getattr(exc, "cell_index", None)
    if cell is not None:
        try:
            import nbformat

            cells = nbformat.read(str(executed), as_version=4).cells[:cell]
            cell -= sum("injected-parameters" in c.metadata.get("tags", []) for c in cells)
        except Exception:  # the executed copy is unreadable: keep papermill's index
            pass
        ename, evalue = getattr(exc, "ename", type(exc).__name__), getattr(exc, "evalue", str(exc))
        source = (getattr(exc, "source", "") or "").strip().splitlines()
        first = source[0][:80] if source else ""
        return (
            f"cell {cell} (execution count {getattr(exc, 'exec_count', '?')}; starts {first!r}) "
            f"raised {ename}: {evalue}"
        )
    return f"{type(exc).__name__}: {exc}".strip()


def _shown(path: Path) -> str:
    """``path`` relative to the repository when inside it (as git shows it), else absolute."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def ledger_claims(f: Path) -> list[dict]:
    """The claims of the ledger ``f`` (a claims.json); empty if there is none."""
    try:
        return json.loads(f.read_text())["claims"]
    except (OSError, ValueError, KeyError):
        return []


def claim_regressions(key: str, baseline: list[dict], fresh: list[dict]) -> list[str]:
    """Claims "held" in ``baseline`` that are not "held" in ``fresh`` (or are gone), as ``"id: held
    -> status"``; claims decided by wall-clock time or declared ulp-sensitive are left out
    (:func:`fairlib.repro.verify.claim_changes`, :data:`fairlib.repro.verify.SENSITIVE`), as
    ``--verify`` leaves them out."""
    from fairlib.repro.verify import SENSITIVE, claim_changes

    changes = claim_changes(baseline, fresh, sensitive=SENSITIVE.get(key, {}).get("claims"))
    return [
        f"{c.claim_id}: {c.committed} -> {c.fresh}"
        for c in changes
        if c.committed == "held" and not c.sensitive
    ]


def _ipc_kernel_manager():
    """A kernel manager whose kernels talk over Unix sockets instead of TCP ports. Over TCP each
    kernel picks free ports by binding and releasing them, so kernels started at the same moment by
    other processes on the machine (another run_all, a test suite) can take the same port: "Address
    already in use", a kernel that dies before replying. Each kernel's socket files get their own
    random prefix (jupyter_client's default prefix, ``kernel-ipc`` in the working directory, would
    be shared by kernels started together); the manager removes them when the kernel shuts down."""
    import tempfile
    import uuid

    from jupyter_client.manager import AsyncKernelManager
    from traitlets import default

    class IPCKernelManager(AsyncKernelManager):
        @default("transport")
        def _default_transport(self):
            return "ipc"

        @default("ip")
        def _default_ip(self):  # short: a Unix socket path has at most 107 characters
            return os.path.join(tempfile.gettempdir(), f"fairlib-kernel-{uuid.uuid4().hex[:16]}")

    return IPCKernelManager


def run_one(
    nb: Notebook,
    mode: str,
    build: Path,
    show_cells: bool,
    accept_claims: bool = False,
    gate: bool = True,
) -> Outcome:
    import papermill as pm

    from fairlib import paths

    out = Outcome(nb.key, mode)
    src = _nb_path(nb)
    dest = build / "executed" / mode / f"{nb.key}.ipynb"
    dest.parent.mkdir(parents=True, exist_ok=True)
    out.executed = str(dest)
    try:
        out.seed = ast.literal_eval(pm.inspect_notebook(str(src))["SEED"]["default"])
    except Exception:  # a notebook without a literal SEED parameter
        out.seed = None
    claims_file = paths.results_dir(nb.key, mode) / "claims.json"
    # the ledger a full run is about to replace (the committed one, data/results/<key>) is its
    # baseline; --verify compares with the committed ledger itself, quick mode has no baseline
    baseline = ledger_claims(claims_file) if gate and mode == "full" else []
    before = _file_identity(claims_file)
    start_wall = time.time()  # outputs written since (counted for the run table)
    t0 = time.perf_counter()
    try:
        pm.execute_notebook(
            str(src),
            str(dest),
            parameters={"MODE": mode},
            kernel_name=KERNEL_NAME,
            progress_bar=show_cells,
            execution_timeout=nb.cell_timeout_s,
            cwd=str(ROOT),
            log_output=False,
            kernel_manager_class=_ipc_kernel_manager(),
        )
        out.status = "ok"
        if mode == "full":  # the reader's copy, outputs included (fairlib.paths.executed_dir)
            from fairlib.repro.executed import PublishedNotebook, publish_executed

            publish_executed(PublishedNotebook(nb.key, nb.title, nb.path), dest)
    except BaseException as exc:  # noqa: BLE001 - reported, never swallowed
        out.status = "FAILED"
        out.error = _describe_error(exc, dest)
        if isinstance(exc, KeyboardInterrupt):
            raise
    out.wall_s = time.perf_counter() - t0
    if claims_file.is_file() and _file_identity(claims_file) != before:
        out.claims_fresh = True
        try:
            doc = json.loads(claims_file.read_text())
            summary = doc["summary"]
            out.claims_held = summary["held"]
            out.claims_total = summary["total"]
            out.claims_not_reproduced = summary["not_reproduced"]
            out.claims_inconclusive = summary.get("inconclusive", 0)
            out.claims_not_tested = summary.get("not_tested", 0)
            out.data = doc.get("data") or ""
            out.claims_regressed = claim_regressions(nb.key, baseline, doc["claims"])
            if out.claims_regressed and not accept_claims:
                out.status = "FAILED"
                out.error = (
                    (out.error + "; " if out.error else "")
                    + f"{len(out.claims_regressed)} claim(s) held in "
                    f"the ledger this run replaces ({_shown(claims_file)}, as it was on disk: the "
                    "last run's, committed or not) are not any more: "
                    + "; ".join(out.claims_regressed)
                    + " (rerun with --accept-claims to accept the new statuses; the change "
                    "then shows in "
                    f"the diff of {_shown(claims_file)})"
                )
        except (
            ValueError,
            KeyError,
        ) as exc:  # unreadable ledger: a failure of this notebook, not of the run
            out.status = "FAILED"
            out.error = (
                out.error + "; " if out.error else ""
            ) + f"{claims_file}: unreadable claims ledger ({exc})"
    out.outputs = _count_outputs(nb.key, mode, start_wall)
    return out


#: the status shown for the claims of a notebook that failed in this run before writing its ledger
STALE = "not re-measured"


def _write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path``, then rename: a crash never leaves half a
    file."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def _file_identity(path: Path):
    """(inode, mtime in ns, size) of ``path``, None if missing: whether a run wrote a file, whatever
    the clock says (``ClaimLog.finish`` replaces the ledger atomically, so a new one is a new
    inode)."""
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return st.st_ino, st.st_mtime_ns, st.st_size


def _measuring_cells(key: str, mode: str) -> dict[str, str]:
    """A claim's recorded cell -> a markdown link to that cell, ``[In [n]](...#in-n)`` (full mode):
    the cell's heading in ``executed/<key>.md``, the executed notebook's text view, where GitHub
    gives every cell an anchor (its notebook view gives none; the site links to the cell of the
    notebook page itself); empty where there is no executed notebook."""
    from fairlib import paths
    from fairlib.repro.executed import cell_heading, claim_cells

    executed = paths.executed_dir() / f"{key}.ipynb" if mode == "full" else None
    if executed is None or not executed.is_file():
        return {}
    import nbformat

    link = (
        "../../executed" if paths.executed_dir() == ROOT / "executed" else str(paths.executed_dir())
    )
    return {
        k: f"[{cell_heading(c.execution_count)[0]}]({link}/{key}.md#"
        f"{cell_heading(c.execution_count)[1]})"
        for k, c in claim_cells(nbformat.read(str(executed), as_version=4)).items()
    }


#: a claim the registry no longer declares (its notebook has not been rerun since): no quote, scope
#: or history
_NO_PROVENANCE = {"quote": "", "scope": "", "history": ""}


def _declarations(key: str) -> dict[str, dict[str, str]]:
    """Each declared claim's provenance as the ledger prints it, read from its registry
    (declarations, not measurements: a changed quote shows without a rerun): the quotes in quotation
    marks (several joined by " … "), the scope, and the history as "date: change (why)" entries
    joined by "; "."""
    from fairlib.repro.ledger import load_registry, quotes_of, registry_path

    path = registry_path(key)
    if not path.is_file():
        return {}
    return {
        cid: {
            "quote": " … ".join(f"“{q}”" for q in quotes_of(d)),
            "scope": d.scope,
            "history": "; ".join(f"{e['date']}: {e['change']} ({e['why']})" for e in d.history),
        }
        for cid, d in load_registry(path, key).items()
    }


def aggregate_claims(registry: dict[str, Notebook], mode: str, stale=()) -> Path | None:
    """Gather every notebook's claims.json for ``mode`` into claims.csv and CLAIMS.md.

    CLAIMS.md reads on its own: counts per status and kind at the top, then one section per paper
    with the paper's own claims first (kinds: paper, finding, check). The notebooks in ``stale``
    failed in this run before writing a ledger: their earlier claims are listed as ``not
    re-measured`` (with the earlier status in the note), never counted as held.
    """
    import pandas as pd

    from fairlib import paths
    from fairlib.repro.ledger import KINDS, STATUSES, claim_anchor, display_value

    rows = []
    for key in registry:
        f = paths.results_dir(key, mode) / "claims.json"
        if not f.is_file():
            continue
        try:
            doc = json.loads(f.read_text())
        except ValueError:  # reported by run_one for the notebook that wrote it
            continue
        where = _measuring_cells(key, mode)
        declared = _declarations(key)
        for c in doc["claims"]:
            status, note = c["status"], c["note"]
            if key in stale:
                status, note = (
                    STALE,
                    (
                        f"the notebook failed in this run before measuring; an earlier run had "
                        f"'{c['status']}'" + (f" ({note})" if note else "")
                    ),
                )
            rows.append(
                {
                    "paper": key,
                    "data": doc.get("data") or "",
                    "kind": c.get("kind", ""),
                    "claim": c["claim_id"],
                    "source": c["source"],
                    "statement": c.get("statement", ""),
                    "rule": c["rule"],
                    "paper_value": c["paper"],
                    "our_value": c["ours"],
                    "status": status,
                    "note": note,
                    **declared.get(c["claim_id"], _NO_PROVENANCE),
                    "measured_in": where.get(c.get("cell") or "", ""),
                }
            )
    if not rows:
        return None
    root = paths.results_root(mode)
    root.mkdir(parents=True, exist_ok=True)
    df = pd.DataFrame(rows)
    shown = df.drop(columns="measured_in")
    if mode == "quick":  # every quick status is provisional, wherever it is shown
        shown = shown.assign(status=shown.status + PROVISIONAL_MARK)
    tmp = root / f".claims.csv.{os.getpid()}.tmp"
    shown.to_csv(tmp, index=False, lineterminator="\n", float_format="%.10g")
    os.replace(tmp, root / "claims.csv")

    def cell(v) -> str:
        return display_value(v).replace("|", "\\|").replace("\n", " ")

    counts = df.groupby(["kind", "status"]).size()
    lines = [
        "# Claims ledger",
        "",
        f"Every claim the notebooks check ({mode} mode), generated by `run_all.py` from the "
        "registries in "
        "`notebooks/claims/`, where each claim's statement and rule are declared before any "
        "run. **held**: our measurement meets the rule; **not reproduced**: it does not (the "
        "note says what we measured); **not tested**: our data cannot measure it (the note "
        "says why). Kinds: **paper** (the paper says it), **finding** (ours, not in the "
        "paper), **check** (our solvers and speed targets).",
        "",
        *(
            [
                "**Quick mode: every status here is provisional.** Quick mode shrinks sizes "
                "and repetitions so the notebooks run in seconds; the committed full-mode "
                "ledger (`data/results/CLAIMS.md`) is the one that counts.",
                "",
            ]
            if mode == "quick"
            else []
        ),
        "| kind | " + " | ".join(STATUSES) + " | total |",
        "|---|" + "---|" * (len(STATUSES) + 1),
    ]
    for kind in KINDS:
        n = [int(counts.get((kind, s), 0)) for s in STATUSES]
        lines.append(f"| {kind} | " + " | ".join(map(str, n)) + f" | {sum(n)} |")
    for key in dict.fromkeys(df.paper):
        part = df[df.paper == key]
        data = part.data.iloc[0]
        lines += [
            "",
            f"## {key}" + (f" (data: {data})" if data else ""),
            "",
            "| kind | claim | source | paper statement | rule | paper value | our value | "
            "status | note | measured in |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        part = part.assign(_k=part.kind.map({k: i for i, k in enumerate(KINDS)})).sort_values(
            "_k", kind="stable"
        )
        for r in part.itertuples():
            status = r.status + (PROVISIONAL_MARK if mode == "quick" else "")
            # each claim's row carries its anchor: a notebook's Claims list and the coverage page
            # link to it
            anchor = f'<a id="{claim_anchor(r.claim)}"></a>{cell(r.claim)}'
            # the statement with the paper's words it tests and what our measurement covers; the
            # note with the claim's history (rule, kind and status changes after its first full run)
            statement = cell(r.statement) + "".join(
                f"<br>{label} {cell(v)}"
                for label, v in (("*Paper:*", r.quote), ("*Scope:*", r.scope))
                if v
            )
            note = cell(r.note) + (f"<br>*History:* {cell(r.history)}" if r.history else "")
            lines.append(
                "| "
                + " | ".join(
                    [cell(r.kind), anchor, cell(r.source), statement]
                    + [cell(v) for v in (r.rule, r.paper_value, r.our_value, status)]
                    + [note]
                )
                + f" | {r.measured_in} |"
            )
    _write_text_atomic(root / "CLAIMS.md", "\n".join(lines) + "\n")
    return root / "claims.csv"


def _git(*args: str) -> str:
    try:
        return subprocess.run(
            ["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=20
        ).stdout.strip()
    except Exception:
        return ""


def write_manifest(build: Path, mode: str, jobs: int, outcomes: list[Outcome]) -> Path:
    versions = {}
    for pkg in MANIFEST_PACKAGES:
        try:
            versions[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            versions[pkg] = None
    manifest = {
        "git_sha": _git("rev-parse", "HEAD") or None,
        "git_dirty": bool(_git("status", "--porcelain")),
        "mode": mode,
        "jobs": jobs,
        "python": sys.version,
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "versions": versions,
        "sweeps": {
            "dask_scheduler": os.environ.get("FAIRLIB_DASK_SCHEDULER"),
            "local_jobs": os.environ.get("FAIRLIB_SWEEP_JOBS"),
            "cache": os.environ.get("FAIRLIB_SWEEP_CACHE", "") == "1",
        },
        "notebooks": [
            {
                "key": o.key,
                "status": o.status,
                "data": o.data,
                "wall_s": round(o.wall_s, 2),
                "seed": o.seed,
                "claims_held": o.claims_held,
                "claims_total": o.claims_total,
                "outputs": o.outputs,
                "executed": o.executed,
                "error": o.error,
            }
            for o in outcomes
        ],
    }
    path = build / "run_manifest.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    _write_text_atomic(path, json.dumps(manifest, indent=1, default=str) + "\n")
    return path


def _other_claims(o: Outcome) -> str:
    parts = [
        f"{k} {what}"
        for k, what in (
            (o.claims_not_reproduced, "not reproduced"),
            (o.claims_inconclusive, "inconclusive"),
            (o.claims_not_tested, "not tested"),
        )
        if k
    ]
    return f" ({', '.join(parts)})" if parts else ""


#: how a quick-mode claim count or status is marked wherever run_all shows it: quick mode's sizes
#: are too small to decide statistical claims; the full run's ledger is the one that counts
#: (fairlib.repro.ledger.PROVISIONAL)
PROVISIONAL_MARK = " (quick: provisional)"


def quick_differences(key: str, committed: list[dict], quick: list[dict]) -> list[str]:
    """Claims whose quick-mode status differs from the committed full-mode ledger's, as
    ``"key/id: quick 'status', committed full 'status'"`` (claims absent on one side are left out: a
    new claim has no committed status yet)."""
    full = {c["claim_id"]: c["status"] for c in committed}
    return [
        f"{key}/{c['claim_id']}: quick {c['status']!r}, committed full {full[c['claim_id']]!r}"
        for c in quick
        if c["claim_id"] in full and full[c["claim_id"]] != c["status"]
    ]


def last_full_run() -> dict[str, float]:
    """Each notebook's wall time in seconds in its last full-mode run: papermill's duration in the
    published ``executed/<key>.ipynb`` (:func:`fairlib.repro.landing.notebook_durations`); empty
    where there is none."""
    from fairlib import paths
    from fairlib.repro.landing import notebook_durations

    try:
        return {
            key: seconds for key, (seconds, _) in notebook_durations(paths.executed_dir()).items()
        }
    except (OSError, ValueError):  # an unreadable notebook: no estimate, never a failed run
        return {}


def _wall(seconds: float) -> str:
    """A wall time as a progress line shows it: ``"42 s"``, ``"4.9 min"``, ``"62 min"``."""
    if seconds < 60:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.1f} min" if seconds < 600 else f"{seconds / 60:.0f} min"


def progress_line(
    done: int, total: int, outcome: Outcome, left: list[str], last: dict[str, float], jobs: int = 1
) -> str:
    """The line printed as a notebook finishes: ``[3/6] li2019 ok in 4.9 min — about 62 min left
    (from the last full run)``. The estimate adds the last full run's durations (``last``, seconds
    by key) of the notebooks ``left`` (not finished yet) and divides by the ``jobs`` running at
    once; a quick run, whose notebooks take seconds, counts them instead."""
    line = f"[{done}/{total}] {outcome.key} {outcome.status} in {_wall(outcome.wall_s)}"
    if not left:
        return line
    if outcome.mode != "full":
        return f"{line} — {len(left)} left"
    known = [last[key] for key in left if key in last]
    unknown = [key for key in left if key not in last]
    if not known:
        return f"{line} — {len(left)} left, none of them timed in a full run before"
    untimed = f"; {', '.join(unknown)} not timed before" if unknown else ""
    return (
        f"{line} — about {_wall(sum(known) / max(1, jobs))} left (from the last full run{untimed})"
    )


def format_table(outcomes: list[Outcome]) -> str:
    head = ("key", "mode", "data", "status", "wall s", "claims held/total", "outputs")
    rows = [
        (
            o.key,
            o.mode,
            o.data.upper() if o.data == "synthetic" else (o.data or "-"),
            o.status,
            f"{o.wall_s:.1f}",
            f"{o.claims_held}/{o.claims_total}"
            + _other_claims(o)
            + (PROVISIONAL_MARK if o.mode == "quick" else ""),
            str(o.outputs),
        )
        for o in outcomes
    ]
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    fmt = "  ".join("{:<%d}" % w for w in widths)
    return "\n".join(
        [fmt.format(*head), fmt.format(*("-" * w for w in widths)), *(fmt.format(*r) for r in rows)]
    )


def side_by_side_order(keys: list[str], last: dict[str, float]) -> list[str]:
    """The notebooks longest first by their last full run's duration (``last``; a notebook without
    one counts as longest, so a new paper is not left for the end); ties and quick runs keep the
    registry's order."""
    return sorted(keys, key=lambda k: -last.get(k, float("inf")))


def parse_args(argv=None):
    ap = command_parser(
        description=__doc__.split("\n")[0],
        epilog=__doc__[__doc__.index("Exit status:") :],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument(
        "--quick", action="store_true", help="quick mode: small sizes, outputs under build/"
    )
    ap.add_argument(
        "--only",
        nargs="+",
        type=_notebook_key,
        metavar="KEY",
        help="run only these notebooks (each key once)",
    )
    ap.add_argument(
        "--jobs",
        type=cli_integer,
        default=None,
        metavar="N",
        help="at most N notebooks executed side by side, never more than are run (default: one per "
        "core; one worker takes the longest "
        "notebook left by the last full run, the others the shortest; numba's threads are split "
        "between them, the sweeps' processes are not)",
    )
    ap.add_argument(
        "--keep-going",
        action="store_true",
        help="run the remaining notebooks after a failure (the default; kept for compatibility)",
    )
    ap.add_argument(
        "--stop-on-failure",
        action="store_true",
        help="start no notebook after the first failure (side by side, the ones already running "
        "finish)",
    )
    ap.add_argument(
        "--verify",
        action="store_true",
        help="re-execute in full mode into build/verify and compare every committed table and "
        "claim status with the fresh ones; exit 1 if anything differs, 3 if nothing differs "
        "but some notebooks need the real trace excerpts to be verified",
    )
    ap.add_argument(
        "--rtol",
        type=cli_number,
        default=None,
        metavar="R",
        help="--verify: compare every number with this relative tolerance instead of the "
        "tolerances declared per table (fairlib.repro.verify.TOLERANCES; undeclared columns: "
        "DEFAULT_RTOL = 1e-6)",
    )
    ap.add_argument(
        "--atol",
        type=cli_number,
        default=None,
        metavar="A",
        help="--verify: with --rtol (required), the absolute tolerance for numbers that are zero "
        "up to rounding (default 1e-9)",
    )
    ap.add_argument(
        "--accept-claims",
        action="store_true",
        help="full run: accept claims that went from held to another status since the committed "
        "ledger (otherwise such a notebook fails, naming them); not with --quick or --verify, "
        "which gate no claims",
    )
    ap.add_argument("--list", action="store_true", help="list the registry and exit")
    ap.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="run the notebooks' parameter sweeps on this Dask scheduler (tcp://host:8786); "
        "sets FAIRLIB_DASK_SCHEDULER for the kernels",
    )
    ap.add_argument(
        "--sweep-jobs",
        type=cli_integer,
        metavar="N",
        help="local processes per sweep (default: every core for each notebook, not split between "
        "the notebooks --jobs runs side by side); not with --dask",
    )
    ap.add_argument(
        "--resume",
        action="store_true",
        help="cache finished sweep cells under build/sweep-cache and reuse them "
        "(FAIRLIB_SWEEP_CACHE=1)",
    )
    ap.add_argument(
        "--registry", metavar="FILE", help=argparse.SUPPRESS
    )  # tests: JSON registry of fixtures
    ap.add_argument(
        "--committed-results", metavar="DIR", help=argparse.SUPPRESS
    )  # tests: stands in for data/results
    args = ap.parse_args(argv)
    # options that contradict each other, or that the mode given would silently ignore
    defaults = ap.parse_args([])
    if args.list:
        given = [
            "--" + name.replace("_", "-")
            for name, value in vars(args).items()
            if name not in ("list", "registry") and value != getattr(defaults, name)
        ]
        if given:
            ap.error(f"--list lists the registry and runs nothing: it takes no {', '.join(given)}")
    if not args.verify:
        for name in ("rtol", "atol"):
            if getattr(args, name) is not None:
                ap.error(f"--{name} is a tolerance of --verify, which is not given")
    if args.keep_going and args.stop_on_failure:
        ap.error("--keep-going and --stop-on-failure contradict each other: give one")
    if args.verify and args.quick:
        ap.error("--verify compares full-mode results; it cannot be combined with --quick")
    if args.atol is not None and args.rtol is None:
        # without --rtol every table's declared tolerances apply, and an --atol alone would
        # replace them all with DEFAULT_RTOL
        ap.error(
            "--atol is the absolute tolerance that goes with --rtol, which is not given "
            "(without --rtol each table's declared tolerances apply)"
        )
    for mode in ("quick", "verify"):
        if args.accept_claims and getattr(args, mode):
            ap.error(
                f"--accept-claims accepts the claim changes of a full run, which --{mode} does not "
                f"gate: --accept-claims and --{mode} cannot be combined"
            )
    if args.dask is not None and args.sweep_jobs is not None:
        ap.error(
            "--dask runs the sweeps on the Dask scheduler, so --sweep-jobs (local processes) "
            "would be ignored: --dask and --sweep-jobs cannot be combined"
        )
    if args.committed_results is not None and not (args.quick or args.verify):
        ap.error(
            "--committed-results is the ledger --quick and --verify compare with; a full run "
            "reads none: give --quick or --verify"
        )
    return args


def refresh_renderings() -> None:
    """After a full run has published executed notebooks into the repository: the files rendered
    from them, the ``full_run`` benchmark row (``python -m benchmarks full_run``, read from the
    executed notebooks' metadata) and the README's and docs' rendered blocks (``python -m
    fairlib.repro.landing``), so the published numbers and the pages that quote them are committed
    together. Nothing is rendered when the outputs went elsewhere (``FAIRLIB_OUTPUT_DIR``)."""
    from fairlib import paths

    if paths.executed_dir().resolve() != (paths.ROOT / "executed").resolve():
        return
    for command in (["-m", "benchmarks", "full_run"], ["-m", "fairlib.repro.landing"]):
        done = subprocess.run(
            [sys.executable, *command], cwd=paths.ROOT, capture_output=True, text=True
        )
        if done.returncode != 0:
            print(
                f"could not render `python {' '.join(command)}` (exit {done.returncode}): "
                f"{(done.stderr or done.stdout).strip()[-400:]}",
                file=sys.stderr,
            )


def check_environment() -> str | None:
    """The ``FAIRLIB_*`` variables the notebooks' kernels inherit, parsed as the library parses
    them: the first one it refuses (its message names the variable), or None. Checked before any
    notebook starts, so a typo there fails the run at once, not every notebook in turn."""
    from fairlib import paths, sweep
    from fairlib._validate import InvalidInputError

    try:
        paths.build_dir(), paths.results_root(), paths.trace_dirs()
        sweep._cache_enabled(None)
        sweep._check_scheduler(None)
        if os.environ.get("FAIRLIB_SWEEP_JOBS"):
            sweep._resolve_jobs(None)
    except InvalidInputError as exc:
        return str(exc)
    return None


def _check_path_options(args) -> str | None:
    """--registry names a JSON file and --committed-results a directory: either the first problem or
    None."""
    if args.registry is not None:
        registry = Path(args.registry)
        if not registry.is_file():
            return f"--registry = {args.registry!r}: " + (
                "a directory, expected a JSON file" if registry.is_dir() else "no such file"
            )
        try:
            entries = json.loads(registry.read_text())
            if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
                raise ValueError("expected a list of {key, path, title, cell_timeout_s}")
            {e["key"]: Notebook(**e) for e in entries}
        except (ValueError, KeyError, TypeError, UnicodeDecodeError) as exc:
            return f"--registry = {args.registry!r}: not a registry ({type(exc).__name__}: {exc})"
    if args.committed_results is not None and not Path(args.committed_results).is_dir():
        return f"--committed-results = {args.committed_results!r}: not a directory"
    return None


def main(argv=None) -> int:
    argv = as_argv(argv)
    args = parse_args(argv)
    problem = _check_path_options(args)
    if problem:
        print(f"run_all.py: {problem}", file=sys.stderr)
        return 2
    registry = load_registry(args.registry)
    if args.list:
        for nb in registry.values():
            print(f"{nb.key:<20} {nb.path:<48} {nb.title}")
        return 0
    # a key given twice (a typo for another key, more likely than a wish to run it twice) is
    # refused by the parser (command_parser), naming it
    keys = list(args.only) if args.only else list(registry)
    unknown = [k for k in keys if k not in registry]
    if unknown:
        print(
            f"run_all.py: unknown notebook key(s): {', '.join(unknown)}; valid keys: "
            f"{', '.join(registry)}",
            file=sys.stderr,
        )
        return 2
    if args.jobs is not None and args.jobs < 1:
        print(f"run_all.py: --jobs = {args.jobs}: must be >= 1", file=sys.stderr)
        return 2
    for name in ("rtol", "atol"):
        value = getattr(args, name)
        # the tolerances verify itself accepts (0: exact, else 1e-15 to 0.1), checked before any
        # notebook runs: an infinite or huge one would pass every comparison
        try:
            if value is not None:
                as_tolerance(value, f"--{name}", zero=True)
        except InvalidInputError as exc:
            print(f"run_all.py: {exc}", file=sys.stderr)
            return 2
    from fairlib.sweep import MAX_JOBS, _scheduler_address

    if args.sweep_jobs is not None and not 1 <= args.sweep_jobs <= MAX_JOBS:
        print(
            f"run_all.py: --sweep-jobs = {args.sweep_jobs}: must be from 1 to {MAX_JOBS}",
            file=sys.stderr,
        )
        return 2
    if args.dask is not None:
        try:  # the parser the kernels' sweeps apply to FAIRLIB_DASK_SCHEDULER
            _scheduler_address(args.dask, "--dask")
        except InvalidInputError as exc:
            print(f"run_all.py: {exc}", file=sys.stderr)
            return 2
    problem = check_environment()
    if problem:
        print(f"run_all.py: {problem}", file=sys.stderr)
        return 2
    mode = "quick" if args.quick else "full"
    sys.path.insert(0, str(ROOT))
    check_kernel()
    from tqdm import tqdm

    from fairlib import paths

    build = paths.build_dir()
    last = last_full_run() if mode == "full" else {}  # read before this run publishes over them
    if (
        args.verify
    ):  # full-mode outputs of this run go under build/verify, never over the committed ones
        verify_root = build / "verify"
        for key in keys:
            for sub in ("figures", "results"):
                shutil.rmtree(verify_root / sub / key, ignore_errors=True)
        os.environ["FAIRLIB_OUTPUT_DIR"] = str(verify_root)
    default_jobs = os.cpu_count() or 1
    jobs = min(args.jobs if args.jobs is not None else default_jobs, len(keys)) or 1
    # split the cores between concurrently running kernels (they inherit this environment); fewer
    # threads asked for (NUMBA_NUM_THREADS=1: another CPU's code path, see docs/verify.md) are kept
    share = max(1, (os.cpu_count() or 1) // jobs)
    asked = os.environ.get("NUMBA_NUM_THREADS", "")
    os.environ["NUMBA_NUM_THREADS"] = str(
        min(share, int(asked))
        if asked.isascii() and asked.isdigit() and len(asked) <= 9 and int(asked) > 0
        else share
    )
    if args.sweep_jobs is not None:
        os.environ["FAIRLIB_SWEEP_JOBS"] = str(args.sweep_jobs)
    else:
        # results never depend on it (per-cell seeds); only the wall time does. Every core for each
        # notebook's sweeps, not a share: a notebook in a serial cell (reading a trace, a plot, one
        # large solve) then leaves its core to the other's sweep, and two sweeps at once share the
        # cores as well as split ones would
        os.environ.setdefault("FAIRLIB_SWEEP_JOBS", str(max(1, os.cpu_count() or 1)))
    if args.dask is not None:
        os.environ["FAIRLIB_DASK_SCHEDULER"] = args.dask
    if args.resume:
        os.environ["FAIRLIB_SWEEP_CACHE"] = "1"
    sweeps_on = (
        os.environ.get("FAIRLIB_DASK_SCHEDULER")
        or f"{os.environ['FAIRLIB_SWEEP_JOBS']} local process(es)"
    )
    print(
        f"run_all.py: {len(keys)} notebook(s), {mode} mode, {jobs} job(s); sweeps on {sweeps_on}",
        flush=True,
    )

    outcomes: dict[str, Outcome] = {}
    show_cells = jobs == 1 and sys.stderr.isatty()
    with tqdm(total=len(keys), desc="notebooks", unit="nb", disable=None) as bar:
        if jobs == 1:
            for key in keys:
                bar.set_postfix_str(key)
                outcomes[key] = o = run_one(
                    registry[key], mode, build, show_cells, args.accept_claims, not args.verify
                )
                bar.update()
                tqdm.write(
                    progress_line(
                        len(outcomes), len(keys), o, [k for k in keys if k not in outcomes], last
                    )
                )
                if o.status != "ok":
                    tqdm.write(f"FAILED {key}: {o.error}")
                    if args.stop_on_failure:
                        break
        else:
            queue = side_by_side_order(keys, last if mode == "full" else {})
            done: "queue_module.Queue[Outcome | None]" = queue_module.Queue()
            lock = threading.Lock()
            stop = threading.Event()  # --stop-on-failure: no notebook starts after a failure

            def worker(first: bool) -> None:
                # one worker takes the longest notebook left, the others the shortest: two long
                # notebooks (and their heavy sweeps) then rarely run at once, and the short ones
                # fill the other cores
                try:
                    while True:
                        with lock:
                            if not queue or stop.is_set():
                                return
                            key = queue.pop(0) if first else queue.pop()
                        run_key(key)
                finally:
                    done.put(None)  # this worker is finished

            def run_key(key: str) -> None:
                try:
                    outcome = run_one(
                        registry[key], mode, build, False, args.accept_claims, not args.verify
                    )
                except (
                    BaseException
                ) as exc:  # never leave the main thread waiting for this notebook
                    outcome = Outcome(
                        key, mode, status="FAILED", error=f"{type(exc).__name__}: {exc}"
                    )
                if outcome.status != "ok" and args.stop_on_failure:
                    stop.set()  # before this worker takes another: the ones already running finish
                done.put(outcome)

            threads = [
                threading.Thread(target=worker, args=(i == 0,), daemon=True) for i in range(jobs)
            ]
            for t in threads:
                t.start()
            running = len(threads)
            while running:
                o = done.get()
                if o is None:
                    running -= 1
                    continue
                outcomes[o.key] = o
                bar.update()
                tqdm.write(
                    progress_line(
                        len(outcomes),
                        len(keys),
                        o,
                        [k for k in keys if k not in outcomes],
                        last,
                        jobs,
                    )
                )
                if o.status != "ok":
                    tqdm.write(f"FAILED {o.key}: {o.error}")
            for t in threads:
                t.join()
    ordered = [outcomes.get(k, Outcome(k, mode, status="skipped")) for k in keys]
    claims_csv = aggregate_claims(
        registry,
        mode,
        stale={o.key for o in ordered if o.status == "FAILED" and not o.claims_fresh},
    )
    manifest = write_manifest(build, mode, jobs, ordered)
    print()
    print(format_table(ordered))
    print()
    if claims_csv:
        print(f"claims: {claims_csv} and {claims_csv.with_name('CLAIMS.md')}")
    print(f"manifest: {manifest}")
    if mode == "full" and not args.verify and any(o.status == "ok" for o in ordered):
        refresh_renderings()
    synthetic = [o.key for o in ordered if o.data == "synthetic"]
    if synthetic:
        print(
            f"SYNTHETIC DATA: {', '.join(synthetic)} ran on synthetic stand-ins in the real "
            "trace formats (no real "
            "excerpt found; `python -m fairlib.traces.fetch --notebooks` gets it): their "
            "claims about the paper's data are 'not tested'"
        )
    if mode == "quick":
        committed_root = Path(args.committed_results) if args.committed_results else paths.RESULTS
        for o in ordered:
            if o.claims_fresh:
                o.quick_differs = quick_differences(
                    o.key,
                    ledger_claims(committed_root / o.key / "claims.json"),
                    ledger_claims(paths.results_dir(o.key, "quick") / "claims.json"),
                )
    differs = [line for o in ordered for line in o.quick_differs]
    if differs:
        print(
            f"WARNING: {len(differs)} quick-mode claim status(es) differ from the committed "
            "full-mode ledger "
            "(data/results/<key>/claims.json). Quick mode shrinks sizes and repetitions, so "
            "its statuses are provisional; a full run (python run_all.py --only KEY) decides:",
            file=sys.stderr,
        )
        for line in differs:
            print(f"  {line}", file=sys.stderr)
    failed = [o for o in ordered if o.status != "ok"]
    for o in failed:
        if o.status == "FAILED":
            print(f"FAILED {o.key} ({registry[o.key].path}): {o.error}", file=sys.stderr)
    verified = "ok"
    if args.verify:
        verified = report_verification(
            [o for o in ordered if o.status == "ok"], args.rtol, args.atol, args.committed_results
        )
    return 1 if failed or verified == "differs" else 3 if verified == "unverifiable" else 0


def unverifiable_reason(key: str, committed_dir: Path, fresh_data: str) -> str:
    """Why notebook ``key`` cannot be verified here, or "" when it can: its committed ledger says
    its results come from real trace data while this run read synthetic stand-ins (the excerpts were
    not found)."""
    try:
        committed_data = json.loads((committed_dir / "claims.json").read_text()).get("data")
    except (OSError, ValueError):
        return ""
    if committed_data != "real" or fresh_data != "synthetic":
        return ""
    from fairlib import paths
    from fairlib.traces.fetch import NOTEBOOK_DATA, SOURCES

    missing = [
        f"{SOURCES[name].folder} ({', '.join(tables)})"
        for name, (tables, _) in NOTEBOOK_DATA.items()
        if paths.find_traces(SOURCES[name].folder) is None
    ]
    where = ", ".join(str(d) for d in paths.trace_dirs())
    return (
        "could not verify: the committed results come from the real trace excerpts, this "
        "run found "
        f"{'none of ' if missing else 'not all of '}them and ran on synthetic stand-ins; "
        "needs the real excerpt "
        f"{' and '.join(missing) or 'the notebook reads'} (looked in {where}): fetch with "
        "`python -m fairlib.traces.fetch --notebooks` (or set FAIRLIB_TRACE_DIR) and rerun --verify"
    )


def report_verification(
    outcomes: list[Outcome], rtol: float | None, atol: float | None, committed: str | None = None
) -> str:
    """Compare the committed ``data/results/<key>/`` with this run's
    ``build/verify/results/<key>/``; print the report; returns ``"ok"`` (everything matched),
    ``"differs"`` (a table or claim differs in a notebook that could be verified) or
    ``"unverifiable"`` (no difference, but some notebooks need the real trace excerpts)."""
    from fairlib import paths
    from fairlib.repro import verify

    override = (
        rtol is not None or atol is not None
    )  # the reader's own tolerance, in place of the declared ones
    rtol = verify.DEFAULT_RTOL if rtol is None else rtol
    atol = verify.DEFAULT_ATOL if atol is None else atol
    fresh_root = paths.results_root(
        "full"
    )  # redirected to build/verify/results by FAIRLIB_OUTPUT_DIR
    committed_root = Path(committed) if committed else paths.RESULTS
    tolerances = (
        f"rtol {rtol:g}, atol {atol:g} for every number"
        if override
        else "the tolerances declared per table, docs/verify.md"
    )
    print(f"\nverify: committed {committed_root} vs fresh {fresh_root} ({tolerances})")
    all_ok, unverified = True, []
    for o in outcomes:
        report = verify.verify_results(
            o.key,
            committed_root / o.key,
            fresh_root / o.key,
            rtol=rtol,
            atol=atol,
            declared=not override,
        )
        reason = unverifiable_reason(o.key, committed_root / o.key, o.data)
        if reason:
            unverified.append(o.key)
            print(f"{o.key}: COULD NOT VERIFY — {reason}")
            print("  (the comparison below is with synthetic data, shown for information only)")
        else:
            print(f"{o.key}: {'OK' if report.ok else 'DIFFERS'}")
            all_ok &= report.ok
        for line in report.lines():
            print(line)
    if not all_ok:
        print(
            "verify: DIFFERENCES FOUND"
            + (
                f" (and could not verify {', '.join(unverified)}: needs the real trace excerpts)"
                if unverified
                else ""
            )
        )
        return "differs"
    if unverified:
        print(
            f"verify: could not verify {', '.join(unverified)}: needs the real trace "
            "excerpts (`python -m "
            "fairlib.traces.fetch --notebooks`); everything else reproduced"
        )
        return "unverifiable"
    print("verify: every committed table and claim status reproduced")
    return "ok"


if __name__ == "__main__":
    sys.exit(main())
