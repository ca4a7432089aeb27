"""A mechanism registered from a module outside fairlib (``FAIRLIB_MECHANISMS``) is tested by every
registry-wide test (``pytest -m registry``) unchanged: each one (each check of fairlib.testing) has
an instance for it, and they pass.

Two toy mechanisms stand in for a contributor's: a pooled one that continues from a start (each
user's weighted slice of its dominant resource, scaled until a resource is full) and a multi-server
one (every server's time split equally among the users who can use it)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections import defaultdict

from fairlib.paths import ROOT

PLUGIN = textwrap.dedent('''
    """Two toy mechanisms registered from outside fairlib."""
    import numpy as np

    from fairlib import InvalidInputError
    from fairlib.mechanisms import register
    from fairlib.multires import Allocation, Cluster


    def toy_slices(cluster, *, start=None):
        """Each user's weighted slice of its dominant resource, scaled up until a resource is \
full, on top of
        ``start`` (held tasks, kept)."""
        if not isinstance(cluster, Cluster):
            raise InvalidInputError(f"cluster: expected a Cluster, got {type(cluster).__name__}")
        if not cluster.is_single_pool:
            raise InvalidInputError(f"cluster: toy_slices allocates a single pool, this one has "
                                    f"{cluster.n_servers} servers")
        cap, dem, w = cluster.capacity[0], cluster.demand, cluster.weight
        held = np.zeros(cluster.n_users) if start is None else np.asarray(start, dtype=np.float64)
        if held.shape != (cluster.n_users,) or not np.all(held >= 0):
            raise InvalidInputError(f"start: expected {cluster.n_users} numbers >= 0, got {held!r}")
        room = cap - held @ dem
        if (room < -1e-9 * cap).any():
            raise InvalidInputError("start: the held tasks exceed the capacity")
        per_task = (dem / cap).max(axis=1)
        slices = w / w.sum() / per_task
        use = slices @ dem
        t = min((room[r] / use[r] for r in range(len(cap)) if use[r] > 0), default=0.0)
        return Allocation(cluster, (held + max(t, 0.0) * slices)[:, None], "toy_slices")


    def toy_equal_split(cluster, **options):
        """Every server's time split equally among the users who can use it."""
        share = cluster.eligible / np.maximum(cluster.eligible.sum(axis=0), 1)
        return Allocation(cluster, share * cluster.gamma, "toy_equal_split")


    register("toy_slices", toy_slices, label="toy slices", capabilities=("pooled", "divisible", \
"weights", "start"))
    register("toy_equal_split", toy_equal_split, label="toy equal split",
             capabilities=("multi_server", "divisible", "weights"))
''')


def _pytest(args, tmp_path):
    env = dict(
        os.environ,
        FAIRLIB_MECHANISMS="fairlib_toy_plugin",
        PYTHONPATH=os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]).rstrip(
            os.pathsep
        ),
    )
    # the registry-wide tests only (no doctests, no parallel workers inside this test)
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            "-o",
            "addopts=--strict-markers",
            "-m",
            "registry",
            "tests",
            *args,
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )


def _rule(node: str) -> str:
    """A test's node id without its mechanism: ``test_mechanism[drf-check_x]`` ->
    ``test_mechanism[check_x]`` (one rule per check of fairlib.testing), ``test_y[drf]`` ->
    ``test_y``."""
    test, _, params = node.partition("[")
    check = params.rstrip("]").split("-", 1)[1] if "-" in params else ""
    return f"{test}[{check}]" if check else test


def test_a_mechanism_from_another_module_meets_every_registry_wide_test_unchanged(tmp_path):
    (tmp_path / "fairlib_toy_plugin.py").write_text(PLUGIN)
    listed = _pytest(["--collect-only", "-q"], tmp_path)
    assert listed.returncode == 0, listed.stdout[-3000:] + listed.stderr[-3000:]
    ids = [line for line in listed.stdout.splitlines() if "::" in line]
    by_test = defaultdict(list)
    for node in ids:
        by_test[_rule(node)].append(node)
    assert len(by_test) >= 6, sorted(by_test)
    # every registry-wide test is parametrised by mechanism: each has an instance for a toy
    missing = [test for test, nodes in by_test.items() if not any("toy_" in n for n in nodes)]
    assert not missing, (
        f"registry-wide tests that do not run on a newly registered mechanism: {missing}"
    )
    toy = [n for n in ids if "toy_" in n]
    run = _pytest(["-q", "-k", "toy_"], tmp_path)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-3000:]
    assert f"{len(toy)} passed" in run.stdout, run.stdout[-2000:]


def test_a_module_that_cannot_be_imported_is_named(tmp_path):
    env = dict(os.environ, FAIRLIB_MECHANISMS="fairlib_no_such_plugin")
    run = subprocess.run(
        [sys.executable, "-c", "import fairlib.mechanisms"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode != 0 and "FAIRLIB_MECHANISMS names 'fairlib_no_such_plugin'" in run.stderr


def _import_with(tmp_path, code, **variables):
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]).rstrip(
            os.pathsep
        ),
        **variables,
    )
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300
    )


def test_a_module_that_registers_no_mechanism_is_named(tmp_path):
    """A module named in FAIRLIB_MECHANISMS that registers nothing (a typo for another module, a
    games plugin) would leave every table without the mechanisms meant, silently; a plugin that
    imports fairlib before registering is still accepted."""
    (tmp_path / "fairlib_empty_plugin.py").write_text('"""Registers nothing."""\nimport fairlib\n')
    (tmp_path / "fairlib_toy_plugin.py").write_text(PLUGIN)
    for value, module in (
        ("fairlib_empty_plugin", "fairlib_empty_plugin"),
        ("json", "json"),
        ("fairlib_toy_plugin, fairlib_empty_plugin", "fairlib_empty_plugin"),
    ):
        run = _import_with(tmp_path, "import fairlib.mechanisms", FAIRLIB_MECHANISMS=value)
        last = run.stderr.strip().splitlines()[-1]
        assert run.returncode != 0 and (
            f"FAIRLIB_MECHANISMS names {module!r}, which registers no mechanism" in last
        ), run.stderr[-2000:]
    twice = _import_with(
        tmp_path,
        "import fairlib.mechanisms",
        FAIRLIB_MECHANISMS="fairlib_toy_plugin,fairlib_toy_plugin",
    )
    assert "'fairlib_toy_plugin' is named twice" in twice.stderr, twice.stderr[-2000:]
    # the plugin imported first: fairlib loads it while it runs its own import
    first = _import_with(
        tmp_path,
        "import fairlib_toy_plugin; from fairlib import mechanisms; "
        "print(mechanisms.get('toy_slices').name)",
        FAIRLIB_MECHANISMS="fairlib_toy_plugin",
    )
    assert first.returncode == 0 and "toy_slices" in first.stdout, first.stderr[-2000:]
