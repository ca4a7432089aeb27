"""The test suite as a contributor runs it: ``make test`` (ruff, then pytest over tests/ and the
doctests).

Measured once, in fresh processes, with the kernel cache already warm (``make install`` compiles
every kernel): the wall time of the whole command and the counts pytest reports. Target: at most 6
minutes on 2 cores. The README's ``make test`` wall time is rendered from this result (``python -m
fairlib.repro.landing``).
"""

from __future__ import annotations

import re
import subprocess
import time

from benchmarks._results import ROOT, Row, standalone
from fairlib._validate import as_argv

_COUNTS = re.compile(r"(\d+) (passed|failed|skipped|xfailed|xpassed|errors?)")


def main(argv=None) -> list[Row]:
    argv = as_argv(argv)
    t0 = time.perf_counter()
    run = subprocess.run(["make", "-s", "test"], cwd=ROOT, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    last = [line for line in run.stdout.splitlines() if " in " in line and "passed" in line]
    counts = {kind: int(n) for n, kind in _COUNTS.findall(last[-1])} if last else {}
    summary = ", ".join(f"{n} {kind}" for kind, n in counts.items()) or "no pytest summary"
    print(f"make test: {seconds:.0f} s ({summary}; exit status {run.returncode})")
    if run.returncode != 0:
        print(run.stdout[-4000:], run.stderr[-2000:])
        raise SystemExit(
            f"make test failed (exit status {run.returncode}): its time is not a result"
        )
    minutes = seconds / 60
    return [
        Row(
            "make test: the whole suite, kernel cache warm",
            f"{minutes:.1f} min",
            summary,
            minutes,
            "min",
            "<= 6",
        )
    ]


if __name__ == "__main__":
    standalone("suite", main)
