"""The template notebook's experiment driver: the sample mean of uniform draws, and the claim it
measures.

``python -m fairlib.repro.scaffold paper KEY --driver TOPIC`` copies this module to
``fairlib/repro/experiments/<TOPIC>.py`` (and ``tests/test_template_findings.py`` to
``tests/test_<TOPIC>_findings.py``) as the start of a new paper's driver. A driver holds everything
the notebook computes: functions that run the experiments and return tidy tables, and ``*findings``
functions that turn those tables into the ledger's measurements, one
:class:`fairlib.repro.ledger.Measurement` per declared claim (the notebook hands them to
:meth:`fairlib.repro.ledger.ClaimLog.measure_all`), so the arithmetic behind every claim is library
code with a test.

The notebook calls four functions, whatever the paper: :func:`experiment` (the experiment at quick
or full size, a tidy table), :func:`findings` (the claims measured on it), :func:`figure` (its
figure, drawn with :mod:`fairlib.repro.plotting`) and :func:`summary` (the "What we found"
sentence). Replace their bodies with the paper's and the scaffolded notebook runs unchanged; add a
section per further figure or table of the paper.

>>> table = experiment("quick", seed=0)
>>> list(table.columns), len(table)
(['repeat', 'mean'], 5)
>>> round(findings(table)["mean_near_half"].value, 2)
0.5
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ..._validate import (
    InvalidInputError,
    as_count,
    as_instance,
    as_rng,
    as_table,
    check_choice,
)
from ..plotting import color, new_figure
from ..prose import number
from ..ledger import Measurement

__all__ = ["SIZES", "experiment", "sample_means", "findings", "figure", "summary"]

#: Users and repeats of :func:`experiment` per mode: quick mode must finish in seconds.
SIZES = {"quick": (50, 5), "full": (1000, 100)}

#: the most draws per repeat and repeats :func:`sample_means` takes (the full mode's times 100 and
#: 10): a table of 10**8 draws (800 MB) at most; a larger count is a typo, not an experiment
MAX_USERS, MAX_REPEATS = 100_000, 1_000

#: the claims :func:`findings` measures (the keys of its answer): :func:`summary` takes these and
#: no others (a paper's driver lists its own)
_CLAIMS = ("mean_near_half",)


def experiment(mode: str, seed: int | np.random.Generator) -> pd.DataFrame:
    """The notebook's experiment at the size of ``mode`` (:data:`SIZES`): :func:`sample_means`.

    Parameters
    ----------
    mode : {"quick", "full"}
        Quick mode runs in seconds (reduced sizes); full mode at the paper's sizes.
    seed : int or numpy.random.Generator
        Randomness of the run: an integer >= 0 or a Generator. The same seed gives the same table
        (None, fresh entropy, is refused: the run could not be repeated).

    Returns
    -------
    pandas.DataFrame
        :func:`sample_means`' table.

    Raises
    ------
    InvalidInputError
        When ``mode`` is neither ``"quick"`` nor ``"full"``, or ``seed`` is not a seed (None
        included).

    Examples
    --------
    >>> experiment("quick", seed=0).shape
    (5, 2)
    """
    check_choice(mode, tuple(SIZES), "mode")
    rng = as_rng(seed, "seed", reproducible=True)
    n_users, n_repeats = SIZES[mode]
    return sample_means(n_users, n_repeats, rng=rng)


def sample_means(
    n_users: int, n_repeats: int, rng: int | np.random.Generator | None = None
) -> pd.DataFrame:
    """The mean of ``n_users`` uniform draws on [0, 1], repeated ``n_repeats`` times.

    Parameters
    ----------
    n_users : int
        Draws per repeat, from 1 to :data:`MAX_USERS` (100,000).
    n_repeats : int
        Repeats, from 1 to :data:`MAX_REPEATS` (1,000).
    rng : int, numpy.random.Generator or None, optional
        Randomness (``np.random.default_rng(rng)``): an integer >= 0, a Generator, or None for
        fresh entropy.

    Returns
    -------
    pandas.DataFrame
        One row per repeat: ``repeat``, ``mean``.

    Raises
    ------
    InvalidInputError
        When a count is not an integer in its range, or ``rng`` is not a seed.

    Examples
    --------
    >>> sample_means(3, 2, rng=0)["repeat"].tolist()
    [0, 1]
    """
    n_users = as_count(n_users, "n_users", minimum=1, maximum=MAX_USERS)
    n_repeats = as_count(n_repeats, "n_repeats", minimum=1, maximum=MAX_REPEATS)
    rng = as_rng(rng)
    means = rng.uniform(0.0, 1.0, size=(n_repeats, n_users)).mean(axis=1)
    return pd.DataFrame({"repeat": np.arange(n_repeats), "mean": means})


def findings(table: pd.DataFrame) -> dict[str, Measurement]:
    """The claims of ``notebooks/claims/template.toml`` measured on :func:`sample_means`'s table.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`sample_means`'s table (a ``mean`` column of numbers >= 0, one row per repeat).

    Returns
    -------
    dict of str to Measurement
        ``{"mean_near_half": Measurement(mean of the repeats' means)}``.

    Raises
    ------
    InvalidInputError
        When ``table`` is not a DataFrame, has no rows, lacks the ``mean`` column or holds
        anything but numbers >= 0 there.

    Examples
    --------
    >>> findings(pd.DataFrame({"repeat": [0, 1], "mean": [0.4, 0.6]}))["mean_near_half"].value
    0.5
    """
    table = _checked(table)
    return {
        "mean_near_half": Measurement(
            float(table["mean"].mean()), note=f"over {len(table)} repeats"
        )
    }


def _checked(table: object) -> pd.DataFrame:
    """``table`` when it is :func:`sample_means`' table: a DataFrame with rows and a ``mean``
    column of numbers >= 0 (the columns the functions read)."""
    # a driver checks every table it reads with as_table: the columns it reads and, among them,
    # those it reads as numbers (a refusal names the row, the column and the value)
    frame = as_table(table, "table", (), ["mean"], sign=">= 0")
    if frame.empty:
        raise InvalidInputError("table: no rows (expected sample_means' table, one per repeat)")
    return frame


def _measured(measured: object) -> Mapping[str, Any]:
    """``measured`` when it is :func:`findings`' answer: a mapping of exactly its claims, each to a
    :class:`~fairlib.repro.ledger.Measurement`."""
    claims: Mapping[str, Any] = as_instance(measured, Mapping, "measured")
    unknown = [key for key in claims if key not in _CLAIMS]
    if unknown:
        raise InvalidInputError(
            f"measured: unknown claim {unknown[0]!r} (findings measures {list(_CLAIMS)})"
        )
    for key in _CLAIMS:
        if key not in claims:
            raise InvalidInputError(f"measured: missing claim {key!r} (findings' measurements)")
        as_instance(claims[key], Measurement, f"measured[{key!r}]")
    return claims


def figure(table: pd.DataFrame) -> Figure:
    """Fig. 1 of the template: the histogram of the repeats' sample means (a matplotlib Figure).

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`sample_means`' table.

    Returns
    -------
    matplotlib.figure.Figure
        The figure, one panel.

    Raises
    ------
    InvalidInputError
        When ``table`` is not :func:`sample_means`' table (as :func:`findings`).

    Examples
    --------
    >>> figure(experiment("quick", seed=0)).axes[0].get_xlabel()
    'mean of N uniform draws'
    """
    table = _checked(table)
    fig, ax = new_figure("Fig. 1 (template): an example figure")
    ax.hist(table["mean"], color=color("edrf"), label="sample mean")
    ax.set_xlabel("mean of N uniform draws")
    ax.set_ylabel("runs")
    ax.legend()
    return fig


def summary(table: pd.DataFrame, measured: Mapping[str, Any]) -> str:
    """The "What we found" sentence of the notebook's section, from the table and :func:`findings`'
    measurements.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`sample_means`' table.
    measured : dict of str to Measurement
        :func:`findings` of the table: its claims, each a Measurement.

    Returns
    -------
    str
        One sentence.

    Raises
    ------
    InvalidInputError
        When ``table`` is not :func:`sample_means`' table (as :func:`findings`), or ``measured``
        is not a mapping of :func:`findings`' claims to measurements.

    Examples
    --------
    >>> table = experiment("quick", seed=0)
    >>> summary(table, findings(table))[:38]
    'Over 5 runs the sample mean of the uni'
    """
    table = _checked(table)
    measured = _measured(measured)
    return (
        f"Over {len(table)} runs the sample mean of the uniform draws is "
        f"{number(measured['mean_near_half'].value, 4)} on average (the paper: 1/2)."
    )
