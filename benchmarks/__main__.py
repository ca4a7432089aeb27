"""Run every benchmark script (``python -m benchmarks [NAME ...]``); each prints its own ratios.

Benchmarks are plain modules ``benchmarks/bench_<name>.py`` with a ``main(argv)`` function.  They
measure medians of repeated runs side by side with their baselines in the same process, and report
ratios and scaling exponents (absolute times on a shared machine are noise).  Results are also
written as CSV under ``build/benchmarks/``.
"""

import importlib
import pkgutil
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    here = Path(__file__).parent
    names = sorted(m.name[len("bench_"):] for m in pkgutil.iter_modules([str(here)])
                   if m.name.startswith("bench_"))
    wanted = argv or names
    unknown = [w for w in wanted if w not in names]
    if unknown:
        print(f"unknown benchmark(s) {unknown}; available: {names}", file=sys.stderr)
        return 2
    for name in wanted:
        print(f"=== benchmarks.bench_{name}", flush=True)
        importlib.import_module(f"benchmarks.bench_{name}").main([])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
