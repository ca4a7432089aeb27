"""The template notebook's experiment driver: the sample mean of uniform draws, and the claim it measures.

``python -m fairlib.scaffold paper KEY --driver TOPIC`` copies this module to ``fairlib/experiments/<TOPIC>.py`` (and
``tests/test_template_findings.py`` to ``tests/test_<TOPIC>_findings.py``) as the start of a new paper's driver.
A driver holds everything the notebook computes: functions that run the experiments and return tidy tables, and
``*findings`` functions that turn those tables into the ledger's measurements, one
:class:`fairlib.report.Measurement` per declared claim (the notebook hands them to
:meth:`fairlib.report.ClaimLog.measure_all`), so the arithmetic behind every claim is library code with a test.

>>> table = sample_means(100, 3, rng=0)
>>> list(table.columns), len(table)
(['repeat', 'mean'], 3)
>>> round(findings(table)["mean_near_half"].value, 2)
0.5
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._validate import InvalidInputError, as_count
from ..report import Measurement

__all__ = ["sample_means", "findings"]


def sample_means(n_users: int, n_repeats: int, rng=None) -> pd.DataFrame:
    """The mean of ``n_users`` uniform draws on [0, 1], repeated ``n_repeats`` times.

    Parameters
    ----------
    n_users : int
        Draws per repeat (>= 1).
    n_repeats : int
        Repeats (>= 1).
    rng : seed or numpy Generator
        Randomness (``np.random.default_rng(rng)``).

    Returns
    -------
    pandas.DataFrame
        One row per repeat: ``repeat``, ``mean``.
    """
    n_users = as_count(n_users, "n_users", minimum=1)
    n_repeats = as_count(n_repeats, "n_repeats", minimum=1)
    rng = np.random.default_rng(rng)
    means = rng.uniform(0.0, 1.0, size=(n_repeats, n_users)).mean(axis=1)
    return pd.DataFrame({"repeat": np.arange(n_repeats), "mean": means})


def findings(table: pd.DataFrame) -> dict[str, Measurement]:
    """The claims of ``notebooks/claims/template.toml`` measured on :func:`sample_means`'s table.

    Returns
    -------
    dict
        ``{"mean_near_half": Measurement(mean of the repeats' means)}``.
    """
    if not isinstance(table, pd.DataFrame) or "mean" not in table.columns or table.empty:
        raise InvalidInputError(f"table: expected sample_means' table (a non-empty DataFrame with a 'mean' column), "
                                f"got {type(table).__name__}")
    return {"mean_near_half": Measurement(float(table["mean"].mean()), note=f"over {len(table)} repeats")}
