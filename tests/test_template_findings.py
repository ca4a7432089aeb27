"""The template driver's claims (fairlib.repro.experiments.template): a known answer on a hand-built
table, one measurement per declared claim (the ledger is complete with them), bad input named.
``python -m fairlib.repro.scaffold paper`` copies this file for a new paper's driver: keep its three
kinds of test."""

import pandas as pd
import pytest

from fairlib import InvalidInputError
from fairlib.repro.experiments import template
from fairlib.repro.ledger import (
    ClaimLog,
    Measurement,
    load_registry,
    measured_values,
    registry_path,
)

KEY = "template"


def test_findings_known_answer():
    table = pd.DataFrame({"repeat": [0, 1, 2], "mean": [0.4, 0.5, 0.6]})
    assert measured_values(template.findings(table))["mean_near_half"] == pytest.approx(0.5)


def test_every_declared_claim_is_measured_once():
    found = template.findings(template.experiment("quick", seed=1))
    declared = load_registry(registry_path(KEY), KEY)
    assert all(isinstance(m, Measurement) for m in found.values())
    assert set(found) <= set(declared)
    log = ClaimLog(KEY, write=False)
    log.measure_all(found)
    assert not log._complete(), "declared claims no driver measures"


@pytest.mark.parametrize(
    "bad, match",
    [
        (pd.DataFrame(), r"^table: no column 'mean' \(needs \['mean'\]; its columns: \[\]\)"),
        (pd.DataFrame({"mean": []}), "table: no rows"),
        (
            pd.DataFrame({"mean": ["0.5"]}),
            r"^table row 0 \(index 0\), column 'mean' = '0.5': must be a number",
        ),
        (
            pd.DataFrame({"mean": [0.5, -0.1]}),
            r"^table row 1 \(index 1\), column 'mean' = -0\.1: must be finite and >= 0",
        ),
        ([0.5], "table = \\[0.5\\]: must be a DataFrame, got list"),
    ],
)
def test_bad_tables_are_named(bad, match):
    with pytest.raises(InvalidInputError, match=match):
        template.findings(bad)


def test_the_summary_refuses_measurements_that_are_not_findings():
    table = template.experiment("quick", seed=1)
    measured = template.findings(table)
    any_claim = next(iter(measured.values()))
    with pytest.raises(InvalidInputError, match="measured: unknown claim 'no_such_claim'"):
        template.summary(table, {**measured, "no_such_claim": any_claim})
    with pytest.raises(InvalidInputError, match="measured: missing claim"):
        template.summary(table, {})


def test_the_experiment_refuses_an_unknown_mode():
    with pytest.raises(InvalidInputError, match="mode"):
        template.experiment("fast", seed=1)


def test_the_experiment_refuses_a_seed_it_could_not_repeat():
    """The same seed gives the same table; None (fresh entropy) would not, so it is refused."""
    assert template.experiment("quick", seed=1).equals(template.experiment("quick", seed=1))
    with pytest.raises(InvalidInputError, match=r"seed = None: pass an integer seed"):
        template.experiment("quick", None)


def test_the_example_refuses_nonsense_sizes():
    """The template's own example (a paper replacing it drops this test with it)."""
    with pytest.raises(InvalidInputError, match=r"n_users = 0: must be an integer >= 1"):
        template.sample_means(0, 3)


def test_the_notebook_calls_figure_and_summary_on_any_run():
    """The four functions the scaffolded notebook calls: a paper that replaces their bodies keeps
    them working."""
    table = template.experiment("quick", seed=1)
    measured = template.findings(table)
    assert template.figure(table).axes and template.summary(table, measured).endswith(".")
