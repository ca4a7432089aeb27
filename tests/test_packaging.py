"""The conda environment mirrors the pip pins, and every direct dependency is pinned exactly."""

import re
import tomllib

from fairlib.paths import ROOT


def _pyproject_pins():
    proj = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    deps = proj["dependencies"] + [
        d for extra in proj["optional-dependencies"].values() for d in extra
    ]
    return deps


def test_direct_dependencies_pinned():
    for dep in _pyproject_pins():
        assert re.fullmatch(r"[A-Za-z0-9_.-]+==[0-9][0-9A-Za-z.]*", dep), dep


def test_environment_yml_mirrors_pins():
    text = (ROOT / "environment.yml").read_text()
    env_pins = set(re.findall(r"^\s+- ([A-Za-z0-9_.-]+==\S+)\s*$", text, flags=re.M))
    assert env_pins == set(_pyproject_pins())
    assert "python=3.11" in text and "- -e ." in text


def test_numba_cache_keyed_on_sources():
    """Kernels calling kernels in other files are not re-validated by numba: the cache dir must
    change with them."""
    import os

    import fairlib

    assert (
        os.environ["NUMBA_CACHE_DIR"] == fairlib.KERNEL_CACHE_DIR
        and "numba-cache" in fairlib.KERNEL_CACHE_DIR
    )
    assert os.environ["NUMBA_CACHE_LOCATOR_CLASSES"].startswith(
        "fairlib._kernel_cache.KernelModuleLocator,"
    )
    assert (
        fairlib.KERNEL_KEYS == fairlib.kernel_keys()
        and "multires/psdsf/_fixed_point.py" in fairlib.KERNEL_KEYS
    )


def test_long_library_functions_say_what_they_compute():
    """Every library function over 30 lines has a docstring (numpy-style rules for public names run
    in ruff)."""
    import ast

    from fairlib.paths import ROOT

    missing = []
    for path in sorted((ROOT / "fairlib").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.FunctionDef)
                and node.end_lineno - node.lineno + 1 > 30
                and not ast.get_docstring(node)
            ):
                missing.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert not missing, f"functions over 30 lines without a docstring: {missing}"


def test_kernels_cache_in_the_keyed_directory_even_when_numba_is_imported_first(tmp_path):
    """A script that imports numba before fairlib (a test module, a plugin, a worker) used to cache
    fairlib's kernels beside the sources, unkeyed: a stale callee could then be run after an
    edit."""
    import subprocess
    import sys

    from fairlib.paths import ROOT

    code = (
        "import numba, sys\n"
        "import fairlib\n"
        "import inspect\nfrom fairlib.multires import edrf\n"
        "import numba.core.config as c\n"
        "print(c.CACHE_DIR == fairlib.KERNEL_CACHE_DIR)\n"
        "locator = inspect.unwrap(edrf).__globals__['_scan_rows']._cache._cache_path\n"
        "key = fairlib.KERNEL_KEYS['multires/edrf.py']\n"
        "print(locator == fairlib.KERNEL_CACHE_DIR + '/multires.edrf-' + key)\n"
        "print(fairlib.KERNEL_CACHE_DIR)\n"
    )
    # nothing inherited: no cache directory of a parent process, and this checkout's fairlib
    env = {
        k: v
        for k, v in __import__("os").environ.items()
        if k not in ("NUMBA_CACHE_DIR", "PYTHONPATH")
    }
    env["PYTHONPATH"] = str(ROOT)
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert out == ["True", "True", str(ROOT / "build" / "numba-cache")], out


def test_warm_compiles_every_kernel():
    """``python -m fairlib.repro.warm`` (run by ``make install``) reaches every numba kernel of the
    library, so a reader's first call loads compiled code; exit status 1 would name the kernels it
    missed."""
    import subprocess
    import sys

    from fairlib.paths import ROOT

    run = subprocess.run(
        [sys.executable, "-m", "fairlib.repro.warm", "--quiet"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert "fairlib kernels ready in" in run.stdout


def test_warm_in_two_processes_leaves_every_kernel_for_the_next_process(tmp_path):
    """``python -m fairlib.repro.warm --jobs 2`` (``make install``): two worker processes compile
    into the keyed cache, then the parent loads their kernels; a later process running the same
    steps compiles nothing. Two cheap steps on an empty cache directory; the full set runs in every
    ``make install``."""
    import subprocess
    import sys

    steps = ["drfh (best fit), drf (machine offers)", "dynamic DRF: per-step kernels"]
    first = (
        "from fairlib.repro.warm import warm\ntimes = warm(progress=False, jobs=2, "
        f"only={steps!r})\n"
        "print(sorted(times))\n"
    )
    again = (
        "from numba.core import event\nfrom fairlib.repro.warm import warm\n"
        "with event.install_recorder('numba:compile') as rec:\n"
        f"    warm(progress=False, only={steps!r})\n"
        "print(sorted({e.data['dispatcher'].py_func.__qualname__ for _, e in rec.buffer\n"
        "              if e.is_start and e.data.get('dispatcher') is not None\n"
        "              and e.data['dispatcher'].py_func.__module__.startswith('fairlib')}))\n"
    )
    env = {**__import__("os").environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", first], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == repr(sorted(steps))
    compiled = subprocess.run(
        [sys.executable, "-c", again], env=env, capture_output=True, text=True
    )
    assert compiled.returncode == 0, compiled.stderr[-2000:]
    assert compiled.stdout.strip() == "[]", compiled.stdout


def test_warm_names_a_bad_step_or_job_count():
    import pytest

    from fairlib.repro.warm import warm

    with pytest.raises(ValueError, match="no warm-up step named 'drfx'"):
        warm(progress=False, only=["drfx"])
    with pytest.raises(ValueError, match=r"jobs = 0: must be an integer from 1 to 64"):
        warm(progress=False, jobs=0, only=[])


def test_a_step_failing_in_a_worker_fails_the_warm_up(monkeypatch):
    """A step that raises in a worker process raises from :func:`fairlib.repro.warm.warm` (the
    queued steps cancelled). Here the parent lists a step the workers do not know: the worker's
    KeyError comes back."""
    import pytest

    import fairlib.repro.warm

    monkeypatch.setattr(
        fairlib.repro.warm,
        "warm_steps",
        lambda: [("only the parent knows this step", lambda: None)],
    )
    with pytest.raises(KeyError, match="only the parent knows this step"):
        fairlib.repro.warm.warm(progress=False, jobs=2)


def test_an_unguarded_script_warming_in_two_processes_is_told_why_its_workers_died(tmp_path):
    """The workers are spawned and import the calling script again: a script calling
    ``warm(jobs=2)`` at its top level makes each worker fail while starting. The error names the
    step and the remedy, not just a broken pool."""
    import subprocess
    import sys

    script = tmp_path / "unguarded.py"
    script.write_text(
        "from fairlib.repro.warm import warm\nwarm(progress=False, jobs=2, only=['tsf'])\n"
    )
    run = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True
    )
    assert run.returncode == 1
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith(
        "RuntimeError: warm(jobs=2): a worker process ended before finishing step 'tsf'"
    ), last
    assert 'if __name__ == "__main__":' in last and "python -m fairlib.repro.warm --jobs N" in last


def test_a_cache_directory_set_by_the_user_is_keyed_too(tmp_path):
    """NUMBA_CACHE_DIR set by the user (or by the cold-start benchmark, or inherited by a worker)
    holds fairlib's kernels under ``<module>-<key>``: an edit still starts those modules afresh."""
    import subprocess
    import sys

    import fairlib

    code = (
        "import fairlib, os\n"
        "import inspect\nfrom fairlib.multires import edrf\n"
        "print(fairlib.KERNEL_CACHE_DIR, os.environ['NUMBA_CACHE_DIR'])\n"
        "print(inspect.unwrap(edrf).__globals__['_scan_rows']._cache._cache_path)\n"
    )
    env = {**__import__("os").environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    chosen, inherited, kernel_path = out.stdout.split()
    assert chosen == inherited == str(tmp_path)
    assert kernel_path == str(tmp_path / f"multires.edrf-{fairlib.KERNEL_KEYS['multires/edrf.py']}")


def test_the_mechanisms_compile_each_kernel_for_one_set_of_argument_types(tmp_path):
    """numba compiles a kernel once per distinct argument types, and a first call pays for each
    (0.2–0.6 s): every registered mechanism on the cold-start benchmark's compiled problems, in
    one process, leaves one signature per kernel. A constant argument where other calls pass a
    variable, an array read-only in one caller and not in another, an omitted optional argument, a
    transposed (Fortran-ordered) view, a varying number of arguments, or partial sums of another
    dimension would each add one. Run on an empty kernel cache: a caller loaded from the cache
    brings its callees compiled in, so only a cold start compiles (and shows) a callee twice."""
    import os
    import subprocess
    import sys

    from benchmarks.bench_cold_start import first_call_script, public_mechanisms

    code = (
        first_call_script(public_mechanisms(), large=True)
        + """
import gc
from numba.core.registry import CPUDispatcher
for kernel in gc.get_objects():
    if isinstance(kernel, CPUDispatcher) and kernel.py_func.__module__.startswith("fairlib"):
        print("kernel", kernel.py_func.__qualname__, len(kernel.signatures))
"""
    )
    run = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba-cache")},
    )
    rows = [line.split() for line in run.stdout.splitlines() if line.startswith("kernel ")]
    counts = {name: int(n) for _, name, n in rows}
    assert len(counts) > 40, counts  # the solvers' kernels were reached
    twice = {name for name, n in counts.items() if n > 1}
    assert not twice, twice


def test_binder_environment_is_the_runtime_pins():
    """Binder builds the notebooks' environment from binder/environment.yml: exactly the library's
    runtime pins (pyproject's dependencies), Python 3.11, and postBuild registers the kernel every
    notebook names."""
    import json
    import os

    proj = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    text = (ROOT / "binder" / "environment.yml").read_text()
    pins = set(re.findall(r"^\s+- ([A-Za-z0-9_.-]+==\S+)\s*$", text, flags=re.M))
    assert pins == set(proj["dependencies"]) and "python=3.11" in text
    post = ROOT / "binder" / "postBuild"
    assert os.access(post, os.X_OK)
    kernels = {
        json.loads(p.read_text())["metadata"]["kernelspec"]["name"]
        for p in (ROOT / "notebooks").glob("*.ipynb")
    }
    assert kernels == {"fairlib"} and "--name fairlib" in post.read_text()


def test_stale_cache_folders_are_those_no_current_source_can_use(tmp_path):
    import fairlib
    from fairlib._kernel_cache import stale_folders

    current = f"multires.psdsf._fixed_point-{fairlib.KERNEL_KEYS['multires/psdsf/_fixed_point.py']}"
    names = [
        current,
        "multires.psdsf._fixed_point-0123456789abcdef",
        "0123456789abcdef",
        "other.module-0123456789abcdef",
        "multires.psdsf._fixed_point-notakey",
    ]
    for name in names:
        (tmp_path / name).mkdir()
    assert [p.name for p in stale_folders(tmp_path)] == [
        "0123456789abcdef",
        "multires.psdsf._fixed_point-0123456789abcdef",
    ]
    assert stale_folders(tmp_path / "absent") == []
