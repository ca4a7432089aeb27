"""The static site: ``make site`` as a reader runs it, beside nbconvert's plain HTML export of the
same notebooks.

Target: ``make site`` builds the book from the committed executed notebooks in under two minutes.
Measured as the command itself (``make site``: fresh processes, imports included, nothing
re-executed), three times, median; beside it in the same run the baseline: nbconvert's plain HTML
export of the same executed notebooks in a fresh interpreter, so the ratio shows what the book adds
to converting the notebooks at all.
"""

from __future__ import annotations

import statistics
import subprocess
import time

from benchmarks._results import ROOT, Row, fmt_seconds, standalone
from benchmarks._timing import run_fresh, write_results
from fairlib._validate import as_argv

_EXPORT = """
import json, time
t0 = time.perf_counter()
from nbconvert import HTMLExporter
from fairlib import paths
exporter = HTMLExporter()
for f in sorted(paths.executed_dir().glob("*.ipynb")):
    exporter.from_filename(str(f))
print(json.dumps({"seconds": time.perf_counter() - t0}))
"""


def _make_site() -> float:
    t0 = time.perf_counter()
    subprocess.run(["make", "-s", "site"], cwd=ROOT, check=True, capture_output=True, text=True)
    return time.perf_counter() - t0


def main(argv=None) -> list[Row]:
    argv = as_argv(argv)
    site = statistics.median(_make_site() for _ in range(3))
    export = statistics.median(run_fresh(_EXPORT)["seconds"] for _ in range(3))
    write_results(
        "site",
        [
            {"what": "make site", "median_s": site, "runs": 3},
            {"what": "nbconvert HTML export only", "median_s": export, "runs": 3},
        ],
    )
    print(
        f"make site: {site:.1f} s median of 3 (target < 120 s); nbconvert export alone "
        f"{export:.1f} s"
    )
    return [
        Row(
            "`make site`: the book from the committed executed notebooks",
            fmt_seconds(site),
            f"nbconvert export alone {fmt_seconds(export)}",
            site,
            "s",
            "< 120",
        )
    ]


if __name__ == "__main__":
    standalone("site", main)
