"""The static site (issue: notebooks people read).

Target: ``make site`` builds the site from the committed executed notebooks in under a minute. Measured as
``make site`` runs it — a fresh interpreter (imports included) building every page into a scratch folder — three
times, median; beside it the baseline in the same run: nbconvert's plain HTML export of the same executed notebooks
(no index, ledger, gallery or link rewriting), so the ratio shows what the site adds to the export itself.
"""

from __future__ import annotations

import statistics
import tempfile

from benchmarks._timing import run_fresh, write_results

_SITE = """
import json, sys, time
from pathlib import Path
from fairlib import paths
sys.path.insert(0, str(paths.ROOT))
t0 = time.perf_counter()
from run_all import REGISTRY
from fairlib.site import SiteNotebook, build_site
build_site([SiteNotebook(nb.key, nb.title, nb.path) for nb in REGISTRY.values()], Path({out!r}))
print(json.dumps({{"seconds": time.perf_counter() - t0}}))
"""

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


def main(argv=None) -> int:
    rows = []
    for name, code in (("make site (fairlib.site.build_site)", _SITE), ("nbconvert HTML export only", _EXPORT)):
        times = []
        for _ in range(3):
            with tempfile.TemporaryDirectory() as out:
                times.append(run_fresh(code.format(out=out) if code is _SITE else code)["seconds"])
        rows.append({"what": name, "median_s": statistics.median(times), "runs": len(times)})
    site, export = rows[0]["median_s"], rows[1]["median_s"]
    print(f"site: {site:.1f} s median of 3 fresh interpreters (target < 60 s); nbconvert export alone {export:.1f} s; "
          f"ratio {site / export:.2f}")
    print(f"results: {write_results('site', rows)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
