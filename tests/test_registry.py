"""What every registered mechanism must do: the checks of :mod:`fairlib.testing`, one test per
(mechanism, check).

These tests (and every other test marked ``registry``, e.g. the interpreted-vs-compiled agreement in
tests/test_interpreted_kernels.py) are parametrised by mechanism name at collection time, so a new
mechanism is tested by them with no edit here: ``tests/test_registry_plugin.py`` registers one from
a temporary module and runs every one of them on it. The rules
(:data:`fairlib.testing.MECHANISM_CHECKS`), as CONTRIBUTING.md states them:

- the default options converge on the DRF paper's example and return a feasible, read-only
  :class:`~fairlib.multires.Allocation` (whole tasks when ``"integral"``; ``extras["prices"]`` when
  ``"prices"``);
- ``"start"``: held tasks are kept and the result stays feasible; a pooled mechanism without it
  refuses ``start=`` with an InvalidInputError naming ``start``;
- without ``"weights"``: weights other than 1 are refused with an InvalidInputError;
- a pooled mechanism refuses a cluster of several servers;
- a documented function (numpydoc summary line);
- a feasible Allocation on small seeded random pools and clusters.

A plugin author runs the same checks with :func:`fairlib.testing.check_mechanism`
(tests/test_testing.py). One more rule here is the reproduction pipeline's (:mod:`fairlib.repro`),
which the library's checks do not import: the house palette (:mod:`fairlib.repro.plotting`) draws
every mechanism in its registered colour and has a label for it.
"""

from __future__ import annotations

import pytest

from fairlib import mechanisms
from fairlib.testing import parametrize_with_checks

pytestmark = pytest.mark.registry


@parametrize_with_checks()
def test_mechanism(name, check):
    check(mechanisms.get(name))


@pytest.mark.parametrize("name", mechanisms.names())
def test_the_plotting_palette_draws_the_mechanism_as_registered(name):
    from fairlib.repro.plotting import color, label

    mech = mechanisms.get(name)
    assert color(mech.name) == mech.color and label(mech.name), f"{mech.name}: no colour or label"
