"""A game registered from a module outside fairlib (``FAIRLIB_GAMES``) is tested by every
registry-wide game test (``pytest -m games``) unchanged: each one has an instance for it, and they
pass.

The toy stands in for a contributor's: every user spreads its budget evenly over the machines it
values (over its k_i highest-weight ones under finite parallelism), a static rule that claims no
equilibrium."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections import defaultdict

from fairlib.paths import ROOT
from fairlib.testing import GAME_CHECKS

PLUGIN = textwrap.dedent('''
    """A toy game registered from outside fairlib."""
    import numpy as np

    from fairlib.games import register_game
    from fairlib.market import Game, GameOutcome


    def toy_even_bids(game: Game) -> GameOutcome:
        """Every user spreads its budget evenly over the machines it values (its k_i best under \
finite parallelism).

        Returns
        -------
        GameOutcome
            The even bids and what they imply.
        """
        w = game.weights
        rank = np.argsort(np.argsort(-w, axis=1, kind="stable"), axis=1)
        k = np.full(game.n_users, game.n_machines) if game.parallelism is None else game.parallelism
        used = (w > 0) & (rank < k[:, None])
        return GameOutcome(game, game.budgets[:, None] * used / used.sum(axis=1, keepdims=True), \
"toy_even_bids")


    register_game("toy_even_bids", toy_even_bids, label="toy even bids", capabilities=("budgets", \
"parallelism"))
''')


def _pytest(args, tmp_path):
    env = dict(
        os.environ,
        FAIRLIB_GAMES="fairlib_toy_game_plugin",
        PYTHONPATH=os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]).rstrip(
            os.pathsep
        ),
    )
    # the registry-wide game tests only (no doctests, no parallel workers inside this test)
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
            "games",
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
    """A test's node id without its game: ``test_game[g-check_x]`` -> ``test_game[check_x]`` (one
    rule per check of fairlib.testing), ``test_y[g]`` -> ``test_y``."""
    test, _, params = node.partition("[")
    check = params.rstrip("]").split("-", 1)[1] if "-" in params else ""
    return f"{test}[{check}]" if check else test


def test_a_game_from_another_module_meets_every_registry_wide_game_test_unchanged(tmp_path):
    (tmp_path / "fairlib_toy_game_plugin.py").write_text(PLUGIN)
    listed = _pytest(["--collect-only", "-q"], tmp_path)
    assert listed.returncode == 0, listed.stdout[-3000:] + listed.stderr[-3000:]
    ids = [line for line in listed.stdout.splitlines() if "::" in line]
    by_test = defaultdict(list)
    for node in ids:
        by_test[_rule(node)].append(node)
    assert len(by_test) >= 8, sorted(by_test)
    # every registry-wide game test is parametrised by game: each has an instance for the toy,
    # except those for the "equilibrium" capability, which the toy does not claim
    needs_equilibrium = [
        c.__name__ for c in GAME_CHECKS if getattr(c, "requires", None) == "equilibrium"
    ]
    equilibrium = {
        test
        for test in by_test
        if "equilibrium" in test or any(c in test for c in needs_equilibrium)
    }
    missing = [
        test
        for test, nodes in by_test.items()
        if test not in equilibrium and not any("toy_even_bids" in n for n in nodes)
    ]
    assert not missing, (
        f"registry-wide game tests that do not run on a newly registered game: {missing}"
    )
    assert equilibrium, sorted(by_test)
    toy = [n for n in ids if "toy_even_bids" in n]
    run = _pytest(["-q", "-k", "toy_even_bids"], tmp_path)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-3000:]
    assert f"{len(toy)} passed" in run.stdout, run.stdout[-2000:]
