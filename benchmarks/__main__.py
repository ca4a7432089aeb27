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

import argparse
import importlib
import pkgutil
import sys
from pathlib import Path

from benchmarks import _results
from fairlib._validate import as_argv, command_parser


def available() -> list[str]:
    """The benchmark names (``bench_<name>.py`` beside this file)."""
    here = Path(__file__).parent
    return sorted(
        m.name[len("bench_") :]
        for m in pkgutil.iter_modules([str(here)])
        if m.name.startswith("bench_")
    )


def parser(names: list[str]) -> argparse.ArgumentParser:
    """The command line: benchmark names, or one of ``--list`` and ``--report``."""
    p = command_parser(
        prog="python -m benchmarks",
        description="Run the benchmarks (all of them, or the NAMEs given) and render "
        "docs/performance.md.",
    )
    p.add_argument(
        "names",
        nargs="*",
        metavar="NAME",
        help=f"a benchmark to run (default: all): {', '.join(names)}",
    )
    what = p.add_mutually_exclusive_group()
    what.add_argument("--list", action="store_true", help="print the benchmarks there are")
    what.add_argument(
        "--report",
        action="store_true",
        help="render docs/performance.md from benchmarks/results/*.json",
    )
    return p


def main(argv: list[str]) -> int:
    argv = as_argv(argv)
    names = available()
    p = parser(names)
    args = p.parse_args(argv)
    if (args.list or args.report) and args.names:
        p.error(f"benchmark names {args.names} go without --list and --report")
    if args.list:
        print("\n".join(names))
        return 0
    if args.report:
        print(f"wrote {_results.report().relative_to(_results.ROOT)}")
        return 0
    wanted = args.names or names
    unknown = [w for w in wanted if w not in names]
    if unknown:
        p.error(f"unknown benchmark(s) {unknown}; available: {names}")
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
