"""One keyed numba cache for every way fairlib's kernels are reached, never a stale callee, and no
kernel recompiled that an edit cannot reach.

A clean copy of the tracked tree gets two probe kernels in two files (a caller and its callee: numba
does not invalidate a cached caller when the callee's file changes). Each entry point runs in a
fresh process with nothing inherited (no ``NUMBA_CACHE_DIR``), importing numba before fairlib where
it can — a script, pytest with hypothesis and doctests, a papermill kernel, loky and Dask sweep
workers, a benchmark script. After each: no ``.nbi``/``.nbc`` file under ``fairlib/``. Then the
callee is edited — same file size, so numba's own timestamp-and-size check could miss it — and
every entry point must see the new result.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

from fairlib.paths import ROOT

CALLEE = '''"""Probe callee (tests/test_cache_entry_points.py)."""
from numba import njit

STEP = {step}


@njit(cache=True)
def bump(x):
    """x + STEP."""
    return x + {step}.0
'''

CALLER = '''"""Probe caller (tests/test_cache_entry_points.py).

>>> from fairlib._probe_callee import STEP
>>> twice(1.0) == 2.0 * (1.0 + STEP)
True
"""
from numba import njit

from ._probe_callee import bump


@njit(cache=True)
def twice(x):
    """2 (x + STEP), through the callee."""
    return 2.0 * bump(x)


def cell(seed, x):
    """A sweep cell calling the kernels."""
    return {{"value": twice(x)}}
'''

PYTEST_FILE = """import numba  # before fairlib, as a test module or plugin may
from hypothesis import given, settings, strategies as st

import fairlib._probe_callee as callee
from fairlib._probe_caller import twice


@settings(max_examples=20, deadline=None)
@given(st.floats(0.0, 10.0))
def test_twice(x):
    assert twice(x) == 2.0 * (x + callee.STEP)
"""

SCRIPT = "import numba\nfrom fairlib._probe_caller import twice\nprint('RESULT', twice(1.0))\n"

SWEEP = """import numba
from fairlib.sweep import sweep
from fairlib._probe_caller import cell
table = sweep(cell, {{"x": [1.0]}}, seeds=4, backend={backend!r}, n_jobs=2, cache=False, \
progress=False)
print("RESULT", *sorted(set(table.value)))
"""

DASK = """import numba
from distributed import Client, LocalCluster
from fairlib.sweep import sweep
from fairlib._probe_caller import cell
if __name__ == "__main__":
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster, Client(cluster) as client:
        table = sweep(cell, {"x": [1.0]}, seeds=2, backend="dask", scheduler=client, cache=False, \
progress=False)
    print("RESULT", *sorted(set(table.value)))
"""

BENCHMARK = """import numba
from benchmarks._timing import write_results  # the benchmarks' own harness, imported as they \
import it
from fairlib._probe_caller import twice
print("RESULT", twice(1.0))
"""


def _notebook(path: Path) -> None:
    cell = {
        "cell_type": "code",
        "execution_count": None,
        "metadata": {},
        "outputs": [],
        "source": [
            "import numba\n",
            "from fairlib._probe_caller import twice\n",
            "print('RESULT', twice(1.0))",
        ],
    }
    nb = {
        "cells": [cell],
        "metadata": {
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(nb))


def _clean_copy(dest: Path) -> None:
    tracked = (
        subprocess.run(
            ["git", "ls-files", "-z", "fairlib", "benchmarks", "pyproject.toml"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, tracked):
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes((ROOT / name).read_bytes())


def _entry_points(tree: Path) -> dict[str, list[str]]:
    py = sys.executable
    (tree / "probe_test.py").write_text(PYTEST_FILE)
    (tree / "probe_script.py").write_text(SCRIPT)
    (tree / "probe_loky.py").write_text(SWEEP.format(backend="loky"))
    (tree / "probe_dask.py").write_text(DASK)
    (tree / "benchmarks" / "probe_bench.py").write_text(BENCHMARK)
    _notebook(tree / "probe.ipynb")
    papermill = (
        "import papermill, sys\nnb = papermill.execute_notebook('probe.ipynb', "
        "'probe_out.ipynb', progress_bar=False, cwd='.')\nprint(''.join(o.get('text', '') "
        "for o in nb.cells[0].outputs))\n"
    )
    return {
        "script": [py, "probe_script.py"],
        "pytest, hypothesis and doctests": [
            py,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "probe_test.py",
            "fairlib/_probe_caller.py",
        ],
        "papermill kernel": [py, "-c", papermill],
        "loky sweep workers": [py, "probe_loky.py"],
        "Dask sweep workers": [py, "probe_dask.py"],
        "benchmark script": [py, "-m", "benchmarks.probe_bench"],
    }


def _run_all(tree: Path, expected: float) -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("NUMBA_", "PYTHONPATH", "FAIRLIB_"))
    }
    env["PYTHONPATH"] = str(tree)
    for name, cmd in _entry_points(tree).items():
        run = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, f"{name}: {run.stdout[-1500:]}\n{run.stderr[-1500:]}"
        if "pytest" not in name:
            results = [
                line.split()[1:] for line in run.stdout.splitlines() if line.startswith("RESULT")
            ]
            assert results == [[repr(expected)]], (
                f"{name}: expected {expected}, printed {run.stdout[-800:]}"
            )
        stray = sorted(str(p.relative_to(tree)) for p in (tree / "fairlib").rglob("*.nb[ic]"))
        assert not stray, f"{name} cached kernels beside the sources: {stray}"


def test_every_entry_point_uses_the_keyed_cache_and_sees_an_edited_callee(tmp_path):
    tree = tmp_path / "clone"
    _clean_copy(tree)
    callee = tree / "fairlib" / "_probe_callee.py"
    callee.write_text(CALLEE.format(step=1))
    (tree / "fairlib" / "_probe_caller.py").write_text(CALLER.format())
    _run_all(tree, 4.0)
    cache = tree / "build" / "numba-cache"
    first = {p.name for p in cache.iterdir()}
    assert any(n.startswith("_probe_caller-") for n in first) and any(
        cache.rglob("*_probe_caller*.nbi")
    ), first

    stat = callee.stat()
    callee.write_text(
        CALLEE.format(step=2)
    )  # same size; the timestamp restored too: only the content differs
    os.utime(callee, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    _run_all(tree, 6.0)
    second = {p.name for p in cache.iterdir()}
    assert first <= second  # the old entries untouched
    # new keys for the edited module and the one that imports it; every other module's kernels
    # loaded as they were
    assert {name.rsplit("-", 1)[0] for name in second - first} == {
        "_probe_callee",
        "_probe_caller",
    }, second - first


def test_editing_a_driver_keeps_the_kernel_cache_and_editing_a_kernel_module_recompiles_its_users(
    tmp_path,
):
    """Each kernel module's cache key covers its source and the fairlib modules it imports: a
    changed experiment driver, report or notebook helper changes no key; a changed kernel module
    changes its own key and the keys of the modules that import it, and no other."""
    tree = tmp_path / "clone"
    _clean_copy(tree)
    code = (
        "import fairlib, json; print(json.dumps(fairlib.KERNEL_KEYS)); print(fairlib.SOURCE_HASH)"
    )
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("NUMBA_", "PYTHONPATH", "FAIRLIB_"))
    }
    env["PYTHONPATH"] = str(tree)

    def keys():
        run = subprocess.run(
            [sys.executable, "-c", code],
            cwd=tree,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        kernel_keys, source = run.stdout.splitlines()
        return json.loads(kernel_keys), source

    kernel, source = keys()
    for driver in ("repro/experiments/template.py", "repro/ledger.py", "repro/prose.py", "sim.py"):
        with open(tree / "fairlib" / driver, "a", encoding="utf-8") as f:
            f.write("\n# an edit\n")
        now, now_source = keys()
        assert now == kernel and now_source != source, (
            f"editing {driver} changed a kernel module's key"
        )
        source = now_source
    assert (
        "multires/cluster.py" in __import__("fairlib").kernel_sources()
    )  # imported by kernel modules
    assert not (tree / "build").exists()  # importing fairlib writes nothing into the checkout
    for edited, moves, stays in [
        (
            "multires/psdsf/_fixed_point.py",
            {"multires/psdsf/_fixed_point.py"},
            {"market/best_response.py", "dynamic/drf.py", "multires/edrf.py", "_jit.py"},
        ),
        (
            "multires/_engine/pair_kernels.py",
            {"multires/pfvds/_best_response.py", "multires/best_fit.py", "multires/edrf.py"},
            {"market/best_response.py", "dynamic/drf.py", "multires/_engine/filling.py", "_jit.py"},
        ),
        ("_validate.py", {"multires/psdsf/_fixed_point.py", "multires/edrf.py"}, {"_jit.py"}),
    ]:
        with open(tree / "fairlib" / edited, "a", encoding="utf-8") as f:
            f.write("\n# an edit\n")
        now, _ = keys()
        changed = {m for m in now if now[m] != kernel.get(m)}
        assert moves <= changed, f"editing {edited} kept the key of {sorted(moves - changed)}"
        assert not stays & changed, f"editing {edited} changed the key of {sorted(stays & changed)}"
        kernel = now


def test_the_pipeline_defines_no_kernel():
    """Kernels are the library's (fairlib/repro is skipped when the kernel modules are found): no
    pipeline module decorates a function with numba or calls njit, outside the scaffold's templates,
    which are text."""
    import ast

    import fairlib

    root = Path(fairlib.__file__).parent
    assert not [k for k in fairlib.KERNEL_KEYS if k.startswith("repro/")]
    for path in sorted((root / "repro").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            compiling = ("njit", "jit", "numba.njit", "numba.jit")
            for expr in getattr(node, "decorator_list", []):
                name = ast.unparse(expr.func if isinstance(expr, ast.Call) else expr)
                assert name not in compiling and not name.startswith("numba."), (
                    f"{path.relative_to(root)}:{node.lineno}: @{name}"
                )
            if isinstance(node, ast.Call):
                name = ast.unparse(node.func)
                assert name not in compiling, f"{path.relative_to(root)}:{node.lineno}: {name}()"
