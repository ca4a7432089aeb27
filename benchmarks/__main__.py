"""Run the benchmarks and render the performance page.

    python -m benchmarks                 # every benchmark (what `make bench` runs)
    python -m benchmarks NAME [NAME ...] # some of them (each run re-renders docs/performance.md)
    python -m benchmarks --report        # render docs/performance.md from benchmarks/results/*.json
    python -m benchmarks --list          # the benchmarks there are

Benchmarks are plain modules ``benchmarks/bench_<name>.py`` with a ``main(argv)`` that measures
medians of repeated runs side by side with their baselines in one process, prints what it measured
and returns its speed rows (:class:`benchmarks._results.Row`); a module's optional ``context(argv)``
returns record fields it knows better than the run itself (the full-run benchmark, which reads the
executed notebooks, gives their runs' dates). Each run writes ``benchmarks/results/<name>.json``
(machine, date, command, load, rows); raw per-method times also go to
``build/benchmarks/<name>.csv``.
"""

import importlib
import pkgutil
import sys
from pathlib import Path

from benchmarks import _results


def available() -> list[str]:
    """The benchmark names (``bench_<name>.py`` beside this file)."""
    here = Path(__file__).parent
    return sorted(
        m.name[len("bench_") :]
        for m in pkgutil.iter_modules([str(here)])
        if m.name.startswith("bench_")
    )


def main(argv: list[str]) -> int:
    names = available()
    if "--list" in argv:
        print("\n".join(names))
        return 0
    if "--report" in argv:
        print(f"wrote {_results.report().relative_to(_results.ROOT)}")
        return 0
    wanted = argv or names
    unknown = [w for w in wanted if w not in names]
    if unknown:
        print(f"unknown benchmark(s) {unknown}; available: {names}", file=sys.stderr)
        return 2
    for name in wanted:
        print(f"=== benchmarks.bench_{name}", flush=True)
        module = importlib.import_module(f"benchmarks.bench_{name}")
        _results.run_one(name, module.main, [], context=getattr(module, "context", None))
        # the page follows every result as it is written: the suite benchmark runs the test that
        # compares them
        print(f"wrote {_results.report().relative_to(_results.ROOT)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
