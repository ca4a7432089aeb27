"""The benchmark harness measures what it says: a fresh interpreter's own peak memory, not its parent's."""
import numpy as np

from benchmarks._timing import run_fresh


def test_peak_memory_of_a_fresh_interpreter_does_not_inherit_the_parents():
    ballast = np.ones(400_000_000 // 8)  # 400 MB resident in this (parent) process
    ballast[::512] = 2.0
    small = run_fresh("import json\nprint(json.dumps({'answer': 42}))")
    big = run_fresh("import json\nx = bytearray(300_000_000)\nx[::4096] = b'1' * len(x[::4096])\n"
                    "print(json.dumps({'held': len(x)}))")
    assert small["answer"] == 42 and small["peak_rss_gb"] < 0.2
    assert big["held"] == 300_000_000 and 0.3 <= big["peak_rss_gb"] < 0.5
    assert ballast.sum() > 0
