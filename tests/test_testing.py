"""fairlib.testing from a plugin author's side: a mechanism registered from a module outside fairlib passes
:func:`~fairlib.testing.check_mechanism`; a broken one fails it with the check and the mechanism named."""

from __future__ import annotations

import importlib
import subprocess
import sys
import textwrap

import pytest

from fairlib import games, mechanisms
from fairlib.testing import GAME_CHECKS, MECHANISM_CHECKS, check_mechanism, parametrize_with_checks

PLUGIN = textwrap.dedent('''
    """A toy mechanism registered from outside fairlib, and a broken one left unregistered."""
    import numpy as np

    from fairlib import InvalidInputError
    from fairlib.mechanisms import register
    from fairlib.multires import Allocation, Cluster


    def toy_split(cluster, **options):
        """Every server's time split equally among the users who can use it."""
        if not isinstance(cluster, Cluster):
            raise InvalidInputError(f"cluster: expected a Cluster, got {type(cluster).__name__}")
        share = cluster.eligible / np.maximum(cluster.eligible.sum(axis=0), 1)
        return Allocation(cluster, share * cluster.gamma, "toy_split")


    def toy_greedy(cluster, **options):
        """Twice each server's capacity to every user (infeasible)."""
        return Allocation(cluster, 2 * cluster.eligible * cluster.gamma + 1.0, "toy_greedy")


    register("toy_split", toy_split, label="toy split", capabilities=("multi_server", "divisible", "weights"))
''')


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    (tmp_path / "fairlib_toy_checks.py").write_text(PLUGIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("fairlib_toy_checks")
    try:
        yield module
    finally:
        mechanisms.unregister("toy_split")
        sys.modules.pop("fairlib_toy_checks", None)


def test_a_mechanism_registered_from_another_module_passes_by_name(plugin):
    assert check_mechanism("toy_split") is None


def test_a_callable_is_registered_for_the_checks_only(plugin):
    assert check_mechanism(_renamed(plugin.toy_split, "toy_split_again"),
                           capabilities=("multi_server", "divisible", "weights")) is None
    assert "toy_split_again" not in mechanisms.names()


def _renamed(function, name):
    def wrapper(cluster, **options):
        return function(cluster, **options)
    wrapper.__name__, wrapper.__doc__ = name, function.__doc__
    return wrapper


def test_an_infeasible_mechanism_fails_with_the_check_and_the_mechanism_named(plugin):
    with pytest.raises(AssertionError, match=r"mechanism 'toy_greedy' fails check_converges_on_the_drf_example: "
                                             r"toy_greedy: the allocation is infeasible"):
        check_mechanism(plugin.toy_greedy, capabilities=("multi_server", "divisible", "weights"))
    assert "toy_greedy" not in mechanisms.names()


def test_an_undocumented_mechanism_fails_the_documentation_check(plugin):
    undocumented = _renamed(plugin.toy_split, "toy_undocumented")
    undocumented.__doc__ = None
    with pytest.raises(AssertionError, match="'toy_undocumented' fails check_is_documented"):
        check_mechanism(undocumented, capabilities=("multi_server", "divisible", "weights"))


def test_register_options_are_for_a_callable():
    with pytest.raises(TypeError, match="register options"):
        check_mechanism("drf", capabilities=("pooled",))


def test_the_ids_name_the_mechanism_and_the_check_and_skip_checks_that_do_not_apply():
    mark = parametrize_with_checks(["drf", "drfh"])
    (name_arg, pairs), ids = mark.args, mark.kwargs["ids"]
    assert name_arg == "name, check"
    assert "drf-check_converges_on_the_drf_example" in ids and "drf-check_refuses_several_servers" in ids
    assert "drfh-check_refuses_several_servers" not in ids        # a pooled-only check
    assert len(ids) == len(pairs) == len(MECHANISM_CHECKS) * 2 - 2
    game_ids = parametrize_with_checks(kind="game").kwargs["ids"]
    assert {i.split("-", 1)[1] for i in game_ids} == {c.__name__ for c in GAME_CHECKS}
    assert {i.split("-", 1)[0] for i in game_ids} == set(games.names())


def test_fairlib_imports_without_pytest_and_without_fairlib_testing():
    probe = ("import sys; sys.modules['pytest'] = None; import fairlib, fairlib.mechanisms, fairlib.games, "
             "fairlib.testing; assert 'testing' in fairlib.__all__")
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
