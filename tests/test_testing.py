"""fairlib.testing from a plugin author's side: a mechanism registered from a module outside fairlib
passes :func:`~fairlib.testing.check_mechanism`; a broken one fails it with the check and the
mechanism named."""

from __future__ import annotations

import importlib
import subprocess
import sys
import textwrap
from types import MappingProxyType, SimpleNamespace

import numpy as np
import pytest

from fairlib import InvalidInputError

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


    register("toy_split", toy_split, label="toy split", capabilities=("multi_server", "divisible", \
"weights"))
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
    assert (
        check_mechanism(
            _renamed(plugin.toy_split, "toy_split_again"),
            capabilities=("multi_server", "divisible", "weights"),
        )
        is None
    )
    assert "toy_split_again" not in mechanisms.names()


def _renamed(function, name):
    def wrapper(cluster, **options):
        return function(cluster, **options)

    wrapper.__name__, wrapper.__doc__ = name, function.__doc__
    return wrapper


def test_an_infeasible_mechanism_fails_with_the_check_and_the_mechanism_named(plugin):
    with pytest.raises(
        AssertionError,
        match=r"mechanism 'toy_greedy' fails check_converges_on_the_drf_example: "
        r"toy_greedy raised on the DRF example: tasks: server 0 uses .* of resource 0",
    ):
        check_mechanism(plugin.toy_greedy, capabilities=("multi_server", "divisible", "weights"))
    assert "toy_greedy" not in mechanisms.names()


def test_an_undocumented_mechanism_fails_the_documentation_check(plugin):
    undocumented = _renamed(plugin.toy_split, "toy_undocumented")
    undocumented.__doc__ = None
    with pytest.raises(AssertionError, match="'toy_undocumented' fails check_is_documented"):
        check_mechanism(undocumented, capabilities=("multi_server", "divisible", "weights"))


def test_register_options_are_for_a_callable():
    with pytest.raises(InvalidInputError, match=r"^register_options = \['capabilities'\]: for a"):
        check_mechanism("drf", capabilities=("pooled",))


def test_the_ids_name_the_mechanism_and_the_check_and_skip_checks_that_do_not_apply():
    mark = parametrize_with_checks(["drf", "drfh"])
    (name_arg, pairs), ids = mark.args, mark.kwargs["ids"]
    assert name_arg == "name, check"
    assert (
        "drf-check_converges_on_the_drf_example" in ids
        and "drf-check_refuses_several_servers" in ids
    )
    assert "drfh-check_refuses_several_servers" not in ids  # a pooled-only check
    assert len(ids) == len(pairs) == len(MECHANISM_CHECKS) * 2 - 2
    game_ids = parametrize_with_checks(kind="game").kwargs["ids"]
    assert {i.split("-", 1)[1] for i in game_ids} == {c.__name__ for c in GAME_CHECKS}
    assert {i.split("-", 1)[0] for i in game_ids} == set(games.names())


def test_fairlib_imports_without_pytest_and_without_fairlib_testing():
    probe = (
        "import sys; sys.modules['pytest'] = None; import fairlib, fairlib.mechanisms, "
        "fairlib.games, fairlib.testing; assert 'testing' in fairlib.__all__"
    )
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]


class _Link:
    """A model the bidding game's ``Game`` cannot state: one link, users who pay their bid (no
    budget)."""

    def __init__(self, slopes, reserve=0.0):
        self.slopes = np.asarray(slopes, dtype=float)
        self.reserve = float(reserve)
        self.n_users, self.n_machines = len(self.slopes), 1

    @classmethod
    def from_weights(cls, weights, reserve=0.0):
        return cls(np.asarray(weights, dtype=float).sum(axis=1), reserve=reserve)


def equal_bids(link):
    """Every user bids 1 on the link: an equal split.

    Returns
    -------
    SimpleNamespace
        bids and shares (users x 1), residual 0, converged.
    """
    from fairlib._validate import as_instance

    as_instance(link, _Link, "game")
    bids = np.ones((link.n_users, 1))
    shares = bids / (bids.sum() + link.reserve)
    for array in (bids, shares):
        array.flags.writeable = False
    return SimpleNamespace(
        bids=bids,
        shares=shares,
        residual=0.0,
        converged=True,
        iterations=0,
        method="equal",
        message="",
        extras=MappingProxyType({}),
        game=link,
    )


def test_a_game_of_another_instance_type_meets_the_checks_that_apply_to_it():
    from fairlib.testing import _applies, check_game

    with games.registered(
        "equal_bids", equal_bids, capabilities=("reserve",), instance=_Link
    ) as entry:
        assert entry.example([[0.5, 0.5], [1.0, 0.0]], reserve=1e-6).slopes.tolist() == [1.0, 1.0]
        check_game("equal_bids")
        applied = [c.__name__ for c in GAME_CHECKS if _applies(c, entry)]
        assert "check_game_finds_the_two_player_equilibria" not in applied and len(applied) >= 7
        assert games.names(instance=_Link) == ["equal_bids"]
    with pytest.raises(InvalidInputError, match="budgets"):
        games.register_game("bad_link", equal_bids, capabilities=("budgets",), instance=_Link)
    with pytest.raises(InvalidInputError, match="from_weights"):
        games.register_game("bad_link", equal_bids, instance=dict)
