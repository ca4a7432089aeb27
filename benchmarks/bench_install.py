"""``make install`` on a fresh clone, and what an edit costs the kernel cache afterwards (targets:
install <= 3 min on 2 cores; reloading every kernel after editing a driver within 1.2x of reloading
it with nothing edited).

1. **Install**: ``git clone`` of this checkout's committed tree into a temporary folder, then ``make
   install`` there (a new ``.venv``, the pinned packages from the package registry with pip's own
   download cache as this machine has it, the Jupyter kernel, and ``python -m fairlib.repro.warm
   --jobs 2`` compiling every kernel into the clone's empty cache: nothing of this checkout's
   environment is passed on). Wall time of the whole command.
2. **Edits**: in that clone, ``python -m fairlib.repro.warm --jobs 2`` again with nothing edited
   (every kernel loads from the cache), after appending a comment to an experiment driver
   (``fairlib/repro/experiments/dynamic_drf.py``: no kernel module's key changes, nothing
   recompiles) and after appending one to a kernel module
   (``fairlib/multires/psdsf/_fixed_point.py``: its kernels and those of the modules importing it
   recompile, no other). Each a fresh process; the medians of ``--repeat`` runs (default 3) for the
   first two.
"""

from __future__ import annotations

import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from benchmarks._results import Row, fmt_seconds, standalone
from fairlib.paths import ROOT
from fairlib._validate import as_argv, as_integer_text

INSTALL_TARGET_MIN = 3
EDIT_RATIO_TARGET = 1.2


def _fresh_env() -> dict:
    """This process's environment without what would reach into this checkout: its numba cache
    (fairlib's cache keys name the sources, so a clone would load this checkout's compiled kernels),
    numba's locator setting, the module path and fairlib's own variables."""
    import os

    return {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("NUMBA_", "FAIRLIB_", "PYTHONPATH", "VIRTUAL_ENV"))
    }


def _timed(cmd: list[str], cwd: Path) -> float:
    t0 = time.perf_counter()
    run = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=_fresh_env())
    if run.returncode != 0:
        raise SystemExit(
            f"{' '.join(cmd)} failed in {cwd}:\n{run.stdout[-2000:]}\n{run.stderr[-2000:]}"
        )
    return time.perf_counter() - t0


def _append(path: Path) -> None:
    with path.open("a", encoding="utf-8") as f:
        f.write("\n# an edit (benchmarks/bench_install.py)\n")


def main(argv: list[str]) -> list[Row]:
    argv = as_argv(argv)
    repeat = (
        as_integer_text(argv[argv.index("--repeat") + 1], "--repeat", minimum=1)
        if "--repeat" in argv
        else 3
    )
    with tempfile.TemporaryDirectory() as tmp:
        clone = Path(tmp) / "fairlib"
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        install = _timed(["make", "install"], clone)
        print(f"make install on a fresh clone: {install / 60:.1f} min", flush=True)
        warm = [
            str(clone / ".venv" / "bin" / "python"),
            "-m",
            "fairlib.repro.warm",
            "--jobs",
            "2",
            "--quiet",
        ]
        unchanged = statistics.median(_timed(warm, clone) for _ in range(repeat))
        _append(clone / "fairlib" / "repro" / "experiments" / "dynamic_drf.py")
        driver = statistics.median(_timed(warm, clone) for _ in range(repeat))
        _append(clone / "fairlib" / "multires" / "psdsf" / "_fixed_point.py")
        kernel = _timed(warm, clone)
    ratio = driver / unchanged
    print(
        f"every kernel reloaded: {unchanged:.1f} s with nothing edited, {driver:.1f} s after "
        "editing a "
        "driver "
        f"({ratio:.2f}x), {kernel:.1f} s after editing "
        "multires/psdsf/_fixed_point.py",
        flush=True,
    )
    return [
        Row(
            "make install on a fresh clone (packages, Jupyter kernel, every kernel compiled)",
            f"{install / 60:.1f} min",
            "git clone, then make install; pip's download cache as the machine has it",
            install / 60,
            "min",
            f"<= {INSTALL_TARGET_MIN}",
        ),
        Row(
            "every kernel reloaded after editing an experiment driver, over nothing edited",
            f"{ratio:.2f}x",
            f"{fmt_seconds(driver)} vs {fmt_seconds(unchanged)} (python -m fairlib.repro.warm)",
            ratio,
            "x",
            f"<= {EDIT_RATIO_TARGET}",
        ),
        Row(
            "every kernel reloaded after editing a kernel module (multires/psdsf/_fixed_point.py)",
            fmt_seconds(kernel),
            "its kernels and its importers' recompile, the others load",
            kernel,
            "s",
        ),
    ]


if __name__ == "__main__":
    standalone("install", main)
