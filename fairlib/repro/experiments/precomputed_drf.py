"""PDRF against DRF: per-user task deviations counted as in Metin's Tables 1–2, and the
experiment.

The author's scripts (reconstructions §2.2) print ten integers per run; :func:`deviation_counts`
returns the same fields, and :func:`table_row` aggregates runs exactly as the paper's tables do
(column means; "Maximum" = max over runs of the per-run maximum; "Avg."/"St. Dev." = mean and
population std of the per-run number of users under- or over-allocated).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
import pandas as pd

from ..._validate import (
    as_table,
    InvalidInputError,
    as_capacities,
    as_count,
    as_demands,
    as_flag,
    as_instance,
    as_number,
    as_rng,
    check_drawn,
    as_values,
    check_choice,
    as_sequence,
    as_label,
)
from ...multires.edrf import edrf, pdrf
from ...multires.progressive_filling import SHARE_ARITHMETIC, STOP_RULES, TIE_BREAKS, drf
from ..ledger import Measurement
from ...sweep import MAX_CELLS, sweep

__all__ = [
    "DEVIATION_FIELDS",
    "deviation_counts",
    "table_row",
    "random_single_pool",
    "DeviationExperiment",
    "run_deviation_experiment",
    "deviation_runs",
    "identity_runs",
    "first_blocked_deviation_bound",
    "pdrf_edrf_identity",
    "PAPER_TABLES",
    "speed_sweep",
    "scaled_instances",
    "row_distance",
    "parameter_search",
    "MATCH_FIELDS",
    "over_allocation_profile",
    "RATE_EDGES",
    "TABLE_COLUMNS",
    "SUBCOUNT_SD",
    "table_findings",
    "over_allocation_search_findings",
    "parameter_search_findings",
    "identity_findings",
    "drf_work_per_task_findings",
    "repository_example_findings",
    "over_allocation_findings",
    "subcycle_lower_counts",
    "SECTION_6_1",
    "worked_example_findings",
    "TAIL_CLAIMS",
    "sd_bootstrap_interval",
    "max_plausibility",
    "table1_tail_findings",
    "median_interval",
    "variant_time_ratios",
    "variant_speed_findings",
    "MAX_USERS",
    "MAX_RESOURCES",
    "MAX_ROUNDS",
    "MAX_RESERVE_SCALE",
]

DEVIATION_FIELDS = (
    "under_1",
    "under_2",
    "under_gt2",
    "under_max",
    "under_total",
    "over_1",
    "over_2",
    "over_gt2",
    "over_max",
    "over_total",
)

#: Metin (2025) Tables 1–2 as printed (reconstructions §2.3); "Over >2" of the 1–100 row prints
#: the std (0.48), the mean in the author's data is 0.13, and "Over 1" of the 1–1000 row is 56.451
#: in the data.
PAPER_TABLES = pd.DataFrame(
    [
        # table, resources, demand_low, demand_high, under_1, under_2, under_gt2, under_max,
        # under_avg, under_sd, over_1, over_2, over_gt2, over_max, over_avg, over_sd
        (1, 10, 1, 10, 477.623, 0, 0, 1, 477.623, 86.373, 0.693, 0.001, 0, 2, 0.694, 2.137),
        (1, 10, 1, 20, 474.932, 0, 0, 1, 474.932, 38.381, 0.191, 0.001, 0, 2, 0.192, 0.526),
        (1, 10, 10, 20, 486.521, 0, 0, 1, 486.521, 50.526, 0, 0, 0, 0, 0, 0),
        (2, 2, 1, 100, 423.517, 0, 0, 1, 423.517, 36.429, 44.689, 5.588, 0.48, 3, 50.407, 25.814),
        (
            2,
            2,
            1,
            1000,
            407.902,
            0,
            0,
            1,
            407.902,
            26.373,
            56.541,
            14.519,
            12.989,
            32,
            83.959,
            36.376,
        ),
    ],
    columns=[
        "table",
        "resources",
        "demand_low",
        "demand_high",
        "under_1",
        "under_2",
        "under_gt2",
        "under_max",
        "under_avg",
        "under_sd",
        "over_1",
        "over_2",
        "over_gt2",
        "over_max",
        "over_avg",
        "over_sd",
    ],
)


#: the most users and resources of a random instance: a million users or a thousand resources is
#: beyond any table of the paper (a typo, and a matrix of gigabytes)
MAX_USERS, MAX_RESOURCES = 1_000_000, 1_000
#: PDRF's forms (:func:`fairlib.multires.pdrf`)
_PDRF_VARIANTS = ("ds_max", "simplified")
#: the most timing rounds of :func:`variant_time_ratios`: a few dozen make a median's interval
MAX_ROUNDS = 1_000
#: the largest factor on the paper's reserves of :func:`scaled_instances`: a million times them is
#: beyond any figure of the paper
MAX_RESERVE_SCALE = 1e6


def _column_name(value: object, name: str) -> str:
    """``value`` when it is a label that shows: the name of a column the call adds."""
    return as_label(value, name)


def _task_counts(tasks: npt.ArrayLike, name: str, n: int | None = None) -> np.ndarray:
    """Tasks per user: a 1-D array of whole numbers >= 0 (``n`` of them when given), as int64."""
    arr = as_values(tasks, name, ndim=1, shape=None if n is None else (n,))
    if not (arr == np.round(arr)).all() or (arr > 2.0**62).any():
        i = int(np.argmax((arr != np.round(arr)) | (arr > 2.0**62)))
        raise InvalidInputError(f"{name}[{i}] = {arr[i]!r}: must be a whole number of tasks")
    return arr.astype(np.int64)


def deviation_counts(
    drf_tasks: npt.ArrayLike,
    pdrf_tasks: npt.ArrayLike,
    *,
    n_resources: int = 1,
    entries_quirk: bool = False,
) -> dict[str, int]:
    """Count per-user task differences ``diff = drf_tasks - pdrf_tasks`` as the paper's scripts do.

    Under-allocation is ``diff > 0`` (PDRF gave fewer tasks), over-allocation ``diff < 0``.
    ``entries_quirk=True`` reproduces the scripts' third field, which counts (user, resource)
    entries with diff > 2 over all ``n_resources`` columns (a factor ``n_resources`` too large; zero
    in all the paper's data).

    Parameters
    ----------
    drf_tasks, pdrf_tasks : array_like of int, shape (n_users,)
        Tasks per user under DRF and PDRF.
    n_resources : int, default 1
        Resources (the factor of the quirk).
    entries_quirk : bool, default False
        Reproduce the scripts' entry count (see above).

    Returns
    -------
    dict of str to int
        The counts of :data:`DEVIATION_FIELDS` (under/over-allocated users by size of the
        difference, totals, maxima).

    Examples
    --------
    >>> (
    ...     deviation_counts([3, 5, 2, 7], [2, 5, 3, 7])["under_1"],
    ...     deviation_counts([3, 5, 2, 7], [2, 5, 3, 7])["over_1"],
    ... )
    (1, 1)
    """
    drf_tasks = _task_counts(drf_tasks, "drf_tasks")
    pdrf_tasks = _task_counts(pdrf_tasks, "pdrf_tasks", len(drf_tasks))
    n_resources = as_count(n_resources, "n_resources")
    entries_quirk = as_flag(entries_quirk, "entries_quirk")
    diff = drf_tasks - pdrf_tasks
    under, over = diff[diff > 0], -diff[diff < 0]
    mult = n_resources if entries_quirk else 1
    return {
        "under_1": int((under == 1).sum()),
        "under_2": int((under == 2).sum()),
        "under_gt2": int((under > 2).sum()) * mult,
        "under_max": int(under.max(initial=0)),
        "under_total": int(under.size),
        "over_1": int((over == 1).sum()),
        "over_2": int((over == 2).sum()),
        "over_gt2": int((over > 2).sum()),
        "over_max": int(over.max(initial=0)),
        "over_total": int(over.size),
    }


def table_row(runs: pd.DataFrame) -> dict[str, float]:
    """Aggregate per-run :func:`deviation_counts` into one row of the paper's tables.

    Parameters
    ----------
    runs : pandas.DataFrame
        One row per run with :data:`DEVIATION_FIELDS`.

    Returns
    -------
    dict of str to float
        Per side (under, over): the fields' means and standard deviations, the maximum, the total's
        mean and standard deviation; and ``runs``.

    Raises
    ------
    InvalidInputError
        When ``runs`` is not a table of at least one run with those columns, each holding counts
        (numbers >= 0; a refusal names the row).
    """
    as_table(runs, "runs", (), DEVIATION_FIELDS, sign=">= 0")
    if runs.empty:
        raise InvalidInputError("runs: no run (an empty table)")
    row = {}
    for side in ("under", "over"):
        for f in ("1", "2", "gt2"):
            row[f"{side}_{f}"] = float(runs[f"{side}_{f}"].mean())
            # the paper prints no spread for these columns; their claims' rule pools ours with it
            # (SUBCOUNT_SD)
            row[f"{side}_{f}_sd"] = float(runs[f"{side}_{f}"].std(ddof=0))
        row[f"{side}_max"] = int(runs[f"{side}_max"].max())
        row[f"{side}_avg"] = float(runs[f"{side}_total"].mean())
        row[f"{side}_sd"] = float(runs[f"{side}_total"].std(ddof=0))
    row["runs"] = int(len(runs))
    return row


class SinglePool(NamedTuple):
    """A random single-pool instance: per-task demands and capacities."""

    demands: np.ndarray
    capacity: np.ndarray


def _int_range(value: object, name: str) -> tuple[int, int]:
    """An inclusive range of integers, ``(low, high)`` with 1 <= low <= high < 2**62."""
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise InvalidInputError(f"{name} = {value!r}: must be a pair (low, high) of integers")
    low = as_count(value[0], f"{name}[0]", maximum=2**62)
    high = as_count(value[1], f"{name}[1]", minimum=low, maximum=2**62)
    return low, high


def random_single_pool(
    rng: int | np.random.Generator | np.random.SeedSequence | None,
    n_users: int,
    n_resources: int,
    reserve_range: tuple[int, int] = (50_000, 100_000),
    demand_range: tuple[int, int] = (1, 10),
) -> SinglePool:
    """One random instance as in Metin §4: integer reserves and demands, uniform on inclusive
    ranges.

    Returns ``(demands, capacity)`` as float64 arrays of shapes (n_users, n_resources),
    (n_resources,).

    Parameters
    ----------
    rng : int, numpy.random.Generator, numpy.random.SeedSequence or None
        Randomness.
    n_users : int
        Users, from 1 to :data:`MAX_USERS` (1,000,000).
    n_resources : int
        Resources, from 1 to :data:`MAX_RESOURCES` (1,000).
    reserve_range : (int, int), default (50000, 100000)
        Inclusive range of each resource's reserve.
    demand_range : (int, int), default (1, 10)
        Inclusive range of each per-task demand.

    Returns
    -------
    SinglePool
        ``(demands, capacity)``.

    Raises
    ------
    InvalidInputError
        On an invalid argument, ``n_users`` x ``n_resources`` above
        :data:`~fairlib._validate.MAX_DRAWN` (10**8 numbers to draw) included.
    """
    rng = as_rng(rng)
    n_users = as_count(n_users, "n_users", maximum=MAX_USERS)
    n_resources = as_count(n_resources, "n_resources", maximum=MAX_RESOURCES)
    check_drawn(("n_users", n_users), ("n_resources", n_resources))
    (r_lo, r_hi), (d_lo, d_hi) = (
        _int_range(reserve_range, "reserve_range"),
        _int_range(demand_range, "demand_range"),
    )
    if not (0 < r_lo <= r_hi and 0 < d_lo <= d_hi):
        raise InvalidInputError(
            f"reserve_range = {reserve_range}, demand_range = {demand_range}: need 0 < low <= high"
        )
    capacity = rng.integers(r_lo, r_hi + 1, size=n_resources).astype(np.float64)
    demands = rng.integers(d_lo, d_hi + 1, size=(n_users, n_resources)).astype(np.float64)
    return SinglePool(demands, capacity)


@dataclass(frozen=True)
class DeviationExperiment:
    """Settings of one table row (DRF semantics default to the author's scripts: the literal stop
    rule, ties to the lowest index, shares accumulated as ``s += ds`` in floating point;
    ``share_arithmetic="exact"`` compares them exactly, see :func:`fairlib.multires.drf`).

    Parameters
    ----------
    n_users : int, default 1000
        Users per instance, from 1 to :data:`MAX_USERS` (1,000,000).
    n_resources : int, default 10
        Resources per instance, from 1 to :data:`MAX_RESOURCES` (1,000).
    reserve_range : (int, int), default (50000, 100000)
        Inclusive range of the reserves, integers with 1 <= low <= high <= 2**62.
    demand_range : (int, int), default (1, 10)
        Inclusive range of the per-task demands, integers with 1 <= low <= high <= 2**62.
    stop : {"first_blocked", "skip_blocked"}, default "first_blocked"
        DRF's stop rule (:func:`fairlib.multires.drf`).
    tie_break : str, default "lowest_index"
        DRF's tie rule: "lowest_index", "higher_share", "lexicographic" or "allocation_count".
    pdrf_variant : {"ds_max", "simplified"}, default "ds_max"
        PDRF's form (:func:`fairlib.multires.pdrf`).
    share_arithmetic : {"accumulated", "exact"}, default "accumulated"
        How DRF adds up shares.

    Raises
    ------
    InvalidInputError
        When a field is out of its range or not one of its choices, naming it (``n_users`` x
        ``n_resources`` at most :data:`~fairlib._validate.MAX_DRAWN`, the instances' size).
    """

    n_users: int = 1000
    n_resources: int = 10
    reserve_range: tuple = (50_000, 100_000)
    demand_range: tuple = (1, 10)
    stop: str = "first_blocked"
    tie_break: str = "lowest_index"
    pdrf_variant: str = "ds_max"
    share_arithmetic: str = "accumulated"

    def __post_init__(self) -> None:
        as_count(self.n_users, "n_users", maximum=MAX_USERS)
        as_count(self.n_resources, "n_resources", maximum=MAX_RESOURCES)
        check_drawn(("n_users", self.n_users), ("n_resources", self.n_resources))
        _int_range(self.reserve_range, "reserve_range")
        _int_range(self.demand_range, "demand_range")
        check_choice(self.stop, STOP_RULES, "stop")
        check_choice(self.tie_break, TIE_BREAKS, "tie_break")
        check_choice(self.pdrf_variant, _PDRF_VARIANTS, "pdrf_variant")
        check_choice(self.share_arithmetic, SHARE_ARITHMETIC, "share_arithmetic")


def _deviation_cell(
    seed,
    n_users,
    n_resources,
    reserve_range,
    demand_range,
    stop,
    tie_break,
    pdrf_variant,
    share_arithmetic,
    **_,
):
    d, cap = random_single_pool(
        np.random.default_rng(seed), n_users, n_resources, reserve_range, demand_range
    )
    base = drf(d, cap, stop=stop, tie_break=tie_break, share_arithmetic=share_arithmetic)
    pre = pdrf(d, cap, variant=pdrf_variant)
    return {
        **deviation_counts(base.tasks, pre.tasks, n_resources=n_resources),
        "drf_tasks": int(base.tasks.sum()),
        "cycles": pre.cycles,
    }


def _setup_grid(setups: Mapping[str, DeviationExperiment], key: str) -> list[dict]:
    """One sweep grid point per named :class:`DeviationExperiment` (tuples as lists, the name under
    ``key``)."""
    from dataclasses import asdict

    as_instance(setups, Mapping, "setups")
    if not setups:
        raise InvalidInputError("setups: empty (at least one named DeviationExperiment)")
    for name, setup in setups.items():
        if not isinstance(name, str):
            raise InvalidInputError(f"setups: key {name!r} is not text (a setup's name)")
        if not isinstance(setup, DeviationExperiment):
            raise InvalidInputError(f"setups[{name!r}] = {setup!r}: expected a DeviationExperiment")
    return [
        {
            key: name,
            **{f: (list(v) if isinstance(v, tuple) else v) for f, v in asdict(setup).items()},
        }
        for name, setup in setups.items()
    ]


def deviation_runs(
    setups: Mapping[str, DeviationExperiment],
    n_runs: int,
    rng: int | np.random.SeedSequence,
    *,
    key: str = "setup",
    progress: bool = False,
    n_jobs: int | None = None,
    backend: str | None = None,
) -> pd.DataFrame:
    """Run ``n_runs`` random instances of every setup in ``setups`` (name ->
    :class:`DeviationExperiment`) as one sweep (:func:`fairlib.sweep.sweep`). One row per (setup,
    run): the name in column ``key``, ``run``, :data:`DEVIATION_FIELDS` and diagnostics. A run's
    instance depends on its setup's name and run number only, so run i is the same whatever
    ``n_runs`` is and whichever other setups run beside it.

    Parameters
    ----------
    setups : dict of str to DeviationExperiment
        Name → setup, at least one.
    n_runs : int
        Runs per setup, from 1 to :data:`fairlib.sweep.MAX_CELLS` (1,000,000).
    rng : int or numpy.random.SeedSequence
        The sweep's root seed.
    key : str, default "setup"
        The column naming the setup.
    progress : bool, default False
        Show the sweep's progress bar.
    n_jobs : int, optional
        Local processes of the sweep.
    backend : {"serial", "loky", "dask"}, optional
        The sweep's backend.

    Returns
    -------
    pandas.DataFrame
        One row per (setup, run).

    Raises
    ------
    InvalidInputError
        When an argument is out of its range, naming it.
    """
    from dataclasses import asdict

    key = _column_name(key, "key")
    grid = _setup_grid(setups, key)
    n_runs = as_count(n_runs, "n_runs", maximum=MAX_CELLS)
    runs = sweep(
        _deviation_cell,
        grid,
        seeds=n_runs,
        rng=rng,
        seed_by=[key],
        n_jobs=n_jobs,
        backend=backend,
        progress=progress,
        desc="runs",
    )
    fields = list(asdict(DeviationExperiment()))
    return runs.drop(columns=fields).rename(columns={"rep": "run"})


def run_deviation_experiment(
    setup: DeviationExperiment,
    n_runs: int,
    rng: int | np.random.SeedSequence,
    *,
    progress: bool = False,
    n_jobs: int | None = None,
    backend: str | None = None,
) -> pd.DataFrame:
    """Run ``n_runs`` random instances of one setup; one row per run with :data:`DEVIATION_FIELDS`
    and diagnostics (see :func:`deviation_runs`).

    Parameters
    ----------
    setup : DeviationExperiment
        The setup.
    n_runs : int
        Runs, from 1 to :data:`fairlib.sweep.MAX_CELLS` (1,000,000).
    rng : int or numpy.random.SeedSequence
        The sweep's root seed.
    progress : bool, default False
        Show the sweep's progress bar.
    n_jobs : int, optional
        Local processes of the sweep.
    backend : {"serial", "loky", "dask"}, optional
        The sweep's backend.

    Returns
    -------
    pandas.DataFrame
        One row per run.

    Raises
    ------
    InvalidInputError
        When an argument is out of its range, naming it.
    """
    return deviation_runs(
        {"_": setup}, n_runs, rng, key="_", progress=progress, n_jobs=n_jobs, backend=backend
    ).drop(columns="_")


#: bins of the rate ds*/ds_i (Metin §3.3) for :func:`over_allocation_profile`: [1, 1.5), [1.5, 2),
#: ..., [500, inf)
RATE_EDGES = (1.0, 1.5, 2.0, 3.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0)


def _profile_cell(
    seed,
    n_users,
    n_resources,
    reserve_range,
    demand_range,
    stop,
    tie_break,
    pdrf_variant,
    share_arithmetic,
    edges,
    **_,
):
    """One run of :func:`over_allocation_profile`: DRF and PDRF on a random pool, and per rate bin
    of ds*/ds_i (and for the all-ones users, the over-allocated users and all users) the users, the
    over-allocated ones among them and the sum of their rates."""
    d, cap = random_single_pool(
        np.random.default_rng(seed), n_users, n_resources, reserve_range, demand_range
    )
    diff = (
        drf(d, cap, stop=stop, tie_break=tie_break, share_arithmetic=share_arithmetic).tasks
        - pdrf(d, cap, variant=pdrf_variant).tasks
    )
    ds = (d / cap).max(axis=1)
    rate = ds.max() / ds
    over = diff < 0
    ones = (d == 1).all(axis=1)
    where = np.digitize(rate, edges) - 1  # rate >= 1 always, so bin >= 0
    rows = [
        {
            "group": f"rate [{edges[b]:g}, {edges[b + 1] if b + 1 < len(edges) else np.inf:g})",
            "rate_low": float(edges[b]),
            "users": int((where == b).sum()),
            "over": int(over[where == b].sum()),
            "rate_sum": float(rate[where == b].sum()),
        }
        for b in range(len(edges))
    ]
    rows.append(
        {
            "group": "all ones",
            "rate_low": np.nan,
            "users": int(ones.sum()),
            "over": int(over[ones].sum()),
            "rate_sum": float(rate[ones].sum()),
        }
    )
    rows.append(
        {
            "group": "over-allocated",
            "rate_low": np.nan,
            "users": int(over.sum()),
            "over": int(over.sum()),
            "rate_sum": float(rate[over].sum()),
        }
    )
    rows.append(
        {
            "group": "all",
            "rate_low": np.nan,
            "users": int(n_users),
            "over": int(over.sum()),
            "rate_sum": float(rate.sum()),
        }
    )
    return rows


def over_allocation_profile(
    setups: Mapping[str, DeviationExperiment],
    n_runs: int,
    rng: int | np.random.SeedSequence,
    *,
    key: str = "setup",
    edges: Iterable[float] = (1.0, 1.5, 2.0, 3.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0),
    progress: bool = False,
    n_jobs: int | None = None,
    backend: str | None = None,
) -> pd.DataFrame:
    """Who PDRF over-allocates (Metin §4: users with a small dominant share, i.e. a large rate
    ds*/ds_i, "especially the demands containing 1"). The same instances as :func:`deviation_runs`
    with the same ``setups``, ``rng`` and ``key`` (a run's seed depends on its setup's name and
    number only).

    One row per (setup, group) summed over the runs: groups are the rate bins ``[edges[j],
    edges[j+1])``, users whose demand is 1 on every resource, the over-allocated users and all
    users; columns ``users``, ``over`` (over-allocated users among them), ``over_rate`` (their
    fraction) and ``mean_rate`` (mean ds*/ds_i).

    Parameters
    ----------
    setups : dict of str to DeviationExperiment
        Name → setup, at least one.
    n_runs : int
        Runs per setup, from 1 to :data:`fairlib.sweep.MAX_CELLS` (1,000,000).
    rng : int or numpy.random.SeedSequence
        The sweep's root seed.
    key : str, default "setup"
        The column naming the setup.
    edges : iterable of float, optional
        The rate bins' edges, finite and increasing from 1; by default (1.0, 1.5, 2.0, 3.0, 5.0,
        10.0, 20.0, 50.0, 100.0, 200.0, 500.0).
    progress : bool, default False
        Show the sweep's progress bar.
    n_jobs : int, optional
        Local processes of the sweep.
    backend : {"serial", "loky", "dask"}, optional
        The sweep's backend.

    Returns
    -------
    pandas.DataFrame
        One row per (setup, group).

    Raises
    ------
    InvalidInputError
        When an argument is out of its range, naming it.
    """
    if not isinstance(edges, np.ndarray):
        # a generator's values, once
        edges = list(as_sequence(edges, "edges", what="need increasing bin edges starting at 1"))
    edges = as_values(edges, "edges", ndim=1, sign=None)
    if edges.size < 1 or edges[0] != 1.0 or (np.diff(edges) <= 0).any():
        raise InvalidInputError(
            f"edges = {edges.tolist()}: need increasing bin edges starting at 1"
        )
    key = _column_name(key, "key")
    grid = _setup_grid(setups, key)
    n_runs = as_count(n_runs, "n_runs", maximum=MAX_CELLS)
    cells = sweep(
        _profile_cell,
        grid,
        seeds=n_runs,
        rng=rng,
        seed_by=[key],
        fixed={"edges": edges},
        n_jobs=n_jobs,
        backend=backend,
        progress=progress,
        desc="runs",
    )
    out = (
        cells.groupby([key, "group"], sort=False)
        .agg(
            rate_low=("rate_low", "first"),
            users=("users", "sum"),
            over=("over", "sum"),
            rate_sum=("rate_sum", "sum"),
            runs=("rep", "nunique"),
        )
        .reset_index()
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        out["over_rate"] = out.over / out.users
        out["mean_rate"] = out.rate_sum / out.users
    return out.drop(columns="rate_sum")


class DeviationBounds(NamedTuple):
    """Per-user bounds ``lower < edrf - drf < upper`` (lower inclusive)."""

    lower: np.ndarray
    upper: np.ndarray


def first_blocked_deviation_bound(
    demands: npt.ArrayLike, capacity: npt.ArrayLike
) -> DeviationBounds:
    """Per-user bounds on ``edrf - drf(stop="first_blocked")`` for strictly positive demands.

    Derivation (any tie-break): the heap minimum never decreases, so when the loop halts on user i
    with share s_i every user holds s_j <= s_i + ds_j, and s_i <= x* (else the resource EDRF
    saturates would be over-full). Hence ``drf_j <= edrf_j + 1``. The task that did not fit needs
    some resource r: R_r - d_ir < sum_j t_j d_jr <= s_i C_r + D_r with C_r = sum_j d_jr/ds_j and D_r
    = sum_j d_jr, so ``edrf_j - drf_j < max_r (D_r + max_i d_ir) / (C_r ds_j)`` — roughly (mean
    ds)/ds_j: users with small per-task shares can fall far behind EDRF, which is where PDRF
    over-allocates.

    Parameters
    ----------
    demands : array_like, shape (n_users, n_resources)
        Per-task demands, strictly positive.
    capacity : array_like, shape (n_resources,)
        The pool's capacity.

    Returns
    -------
    DeviationBounds
        ``(lower, upper)``, arrays of shape (n_users,) with ``lower < edrf - drf < upper`` (lower =
        -1, inclusive).
    """
    d = as_demands(demands)
    cap = as_capacities(capacity, n_resources=d.shape[1], aligned_to=("demands", demands, 1))
    if (d <= 0).any():
        raise InvalidInputError("demands: the bound is derived for strictly positive demands")
    ds = (d / cap).max(axis=1)
    C = (d / ds[:, None]).sum(axis=0)
    D = d.sum(axis=0)
    upper = ((D + d.max(axis=0)) / C).max() / ds
    return DeviationBounds(np.full(d.shape[0], -1.0), upper)


def pdrf_edrf_identity(
    demands: npt.ArrayLike, capacity: npt.ArrayLike, *, variant: str = "ds_max"
) -> dict[str, int]:
    """Compare PDRF (``variant`` as in :func:`pdrf`) with ``floor(EDRF tasks)``; mismatches are
    allowed only at float boundaries.

    Returns counts: ``equal`` users, ``boundary`` users whose EDRF task count lies within 1e-9
    (relative) of an integer and differ by one, and ``other`` (a genuine violation; always 0).

    Parameters
    ----------
    demands : array_like, shape (n_users, n_resources)
        Per-task demands.
    capacity : array_like, shape (n_resources,)
        The pool's capacity.
    variant : {"ds_max", "simplified"}, default "ds_max"
        PDRF's form.

    Returns
    -------
    dict of str to int
        ``equal``, ``boundary`` and ``other``.

    Raises
    ------
    InvalidInputError
        When an argument is malformed, naming it.
    """
    # variant is checked by pdrf, with this name
    given = demands  # its labels, if any, for the capacity's
    demands = as_demands(demands)
    capacity = as_capacities(
        capacity, n_resources=demands.shape[1], aligned_to=("demands", given, 1)
    )
    p = pdrf(demands, capacity, variant=variant).tasks
    e = edrf(demands, capacity).tasks
    f = np.floor(e)
    near_int = np.abs(e - np.round(e)) <= 1e-9 * np.maximum(1.0, np.abs(e))
    differ = p != f
    boundary = differ & near_int & (np.abs(p - f) <= 1)
    return {
        "equal": int((~differ).sum()),
        "boundary": int(boundary.sum()),
        "other": int((differ & ~boundary).sum()),
    }


def _identity_cell(seed, run, n_users, keep_points):
    """One sweep cell of the PDRF/EDRF identity check: a random single pool from ``seed`` (2 or 10
    resources, demands up to 10, 20 or 100); DRF both ways (stopping at the first blocked user, and
    skipping blocked users), EDRF and PDRF, the identity's two forms and the deviation bound, as one
    row (with the grid points when ``run < keep_points``)."""
    g = np.random.default_rng(seed)
    m = int(g.choice([2, 10]))
    d, c = random_single_pool(g, n_users, m, demand_range=(1, int(g.choice([10, 20, 100]))))
    literal_run = drf(d, c, stop="first_blocked")
    skip_run = drf(d, c, stop="skip_blocked")
    e = edrf(d, c).tasks
    lower, upper = first_blocked_deviation_bound(d, c)
    gap = e - literal_run.tasks
    identity = pdrf_edrf_identity(d, c)
    # Metin §3.4: the algebraically equal k' = k ds* form is "less accurate": users off
    # floor(EDRF), each form
    simplified = pdrf_edrf_identity(d, c, variant="simplified")
    row = {
        "resources": m,
        **identity,
        "ds_max_off_floor_edrf": n_users - identity["equal"],
        "simplified_off_floor_edrf": n_users - simplified["equal"],
        "topup_equals_corrected_drf": bool(
            np.array_equal(pdrf(d, c, top_up=True).tasks, skip_run.tasks)
        ),
        "pdrf_over_allocates": bool((pdrf(d, c).tasks > literal_run.tasks).any()),
        "bound_violations": int(((gap <= lower) | (gap >= upper)).sum()),
        "max_gap_over_bound": float((gap / upper).max()),
        "drf_minus_edrf_max": float((literal_run.tasks - e).max()),
        "corrected_drf_minus_edrf_max": float((skip_run.tasks - e).max()),
    }
    if run < keep_points:
        ds = (d / c).max(axis=1)
        row["points"] = np.column_stack([ds.max() / ds, gap, upper])
    return row


class IdentityRuns(NamedTuple):
    """Per-run rows and the grid points they came from."""

    runs: pd.DataFrame
    points: pd.DataFrame


def identity_runs(
    runs: int,
    rng: int | np.random.SeedSequence,
    *,
    n_users: int = 1000,
    keep_points: int = 20,
    n_jobs: int | None = None,
    backend: str | None = None,
) -> IdentityRuns:
    """Random instances (2 or 10 resources; demands up to 10, 20 or 100): the PDRF = EDRF identity
    (:func:`pdrf_edrf_identity`), whether PDRF with top-up equals DRF with blocked users skipped,
    whether PDRF over-allocates against the literal loop, and EDRF − literal DRF against
    :func:`first_blocked_deviation_bound`. Returns (one row per run, per-user points of the first
    ``keep_points`` runs: ``ratio`` = ds*/ds_j, ``gap``, ``bound``).

    Parameters
    ----------
    runs : int
        Random instances, from 1 to :data:`fairlib.sweep.MAX_CELLS` (1,000,000).
    rng : int or numpy.random.SeedSequence
        The sweep's root seed.
    n_users : int, default 1000
        Users per instance, from 1 to :data:`MAX_USERS` (1,000,000).
    keep_points : int, default 20
        Runs whose per-user points are kept, from 0 to :data:`fairlib.sweep.MAX_CELLS` (1,000,000).
    n_jobs : int, optional
        Local processes of the sweep.
    backend : {"serial", "loky", "dask"}, optional
        The sweep's backend.

    Returns
    -------
    IdentityRuns
        See above.

    Raises
    ------
    InvalidInputError
        When an argument is out of its range, naming it.
    """
    runs = as_count(runs, "runs", maximum=MAX_CELLS)
    n_users = as_count(n_users, "n_users", maximum=MAX_USERS)
    keep_points = as_count(keep_points, "keep_points", minimum=0, maximum=MAX_CELLS)
    out = sweep(
        _identity_cell,
        [{"run": i} for i in range(int(runs))],
        rng=rng,
        fixed=dict(n_users=n_users, keep_points=keep_points),
        n_jobs=n_jobs,
        backend=backend,
        progress=False,
    ).drop(columns="rep")
    arrays = [p for p in out.pop("points") if isinstance(p, np.ndarray)] if "points" in out else []
    points = pd.DataFrame(
        np.vstack(arrays) if arrays else np.zeros((0, 3)), columns=["ratio", "gap", "bound"]
    )
    return IdentityRuns(out, points)


def _speed_methods(baselines: dict) -> dict[str, Callable]:
    from ...multires.baselines import drf_argmin_loop, drf_heapq

    methods = {
        "drf": lambda d, c: drf(d, c, stop="first_blocked"),
        "pdrf": lambda d, c: pdrf(d, c),
        "edrf": lambda d, c: edrf(d, c),
        "heapq_drf": drf_heapq,
        "argmin_drf": drf_argmin_loop,
        "numpy_sum": lambda d, c: d.sum(axis=0),
    }
    return {k: v for k, v in methods.items() if k in baselines}


def _speed_instances(instances: object) -> list[tuple[dict, np.ndarray, np.ndarray]]:
    """``instances`` of :func:`speed_sweep` checked: a non-empty list of ``(label, demands,
    capacity)``, text labels, a single pool each."""
    if isinstance(instances, (str, bytes)) or not isinstance(instances, Sequence) or not instances:
        raise InvalidInputError(
            f"instances = {instances!r}: must be a non-empty list of (label, demands, capacity)"
        )
    out = []
    for i, item in enumerate(instances):
        if not isinstance(item, (tuple, list)) or len(item) != 3:
            raise InvalidInputError(
                f"instances[{i}] = {item!r}: must be a triple (label, demands, capacity)"
            )
        label = as_instance(item[0], Mapping, f"instances[{i}][0]")
        if not all(isinstance(k, str) for k in label):
            raise InvalidInputError(f"instances[{i}][0] = {label!r}: column names must be text")
        d = as_demands(item[1], name=f"instances[{i}][1]")
        cap = as_capacities(item[2], f"instances[{i}][2]", n_resources=d.shape[1])
        out.append((label, d, cap))
    return out


def speed_sweep(
    instances: Sequence[tuple[dict, npt.ArrayLike, npt.ArrayLike]],
    *,
    max_size: dict[str, int] | None = None,
    repeat: int = 3,
    progress: bool = False,
) -> pd.DataFrame:
    """Time every method on every instance, side by side in one run.

    Parameters
    ----------
    instances : list of (dict, array_like, array_like)
        ``(label, demands, capacity)``, at least one: ``label`` columns (text keys) are copied into
        each result row (e.g. ``{"n": 1000}``); ``demands`` and ``capacity`` a single pool as
        :func:`fairlib.multires.drf` takes it.
    max_size : dict of str to int, optional
        Method (``"drf"``, ``"pdrf"``, ``"edrf"``, ``"heapq_drf"``, ``"argmin_drf"`` or
        ``"numpy_sum"``) → the most users of an instance it is timed on (an integer >= 0): slow
        baselines are skipped above their limit (``None``: time everything).
    repeat : int, default 3
        Median of this many samples, 1 to 1,000 (:data:`fairlib.timing.MAX_SAMPLES`; slow baselines
        above 1 s use one sample).
    progress : bool, default False
        Show a progress bar.

    Returns
    -------
    pandas.DataFrame
        Label columns, ``method``, ``seconds`` (median), ``tasks`` allocated, ``work``: the element
        operations counted by ``drf`` and ``pdrf`` (:attr:`DRFResult.work`, :attr:`PDRFResult.work`;
        NaN for the baselines) — deterministic, so complexity claims are tested on it, not on
        ``seconds``.

    Raises
    ------
    InvalidInputError
        When an argument is out of its range, naming it.
    """
    progress = as_flag(progress, "progress")
    from tqdm import tqdm

    from ...timing import median_time

    limits: dict[str, int | None] = {
        "drf": None,
        "pdrf": None,
        "edrf": None,
        "numpy_sum": None,
        "heapq_drf": None,
        "argmin_drf": None,
    }
    if max_size is not None:
        as_instance(max_size, Mapping, "max_size")
        for name, limit in max_size.items():
            check_choice(name, tuple(limits), "max_size key")
            limits[name] = as_count(limit, f"max_size[{name!r}]", minimum=0)
    # repeat is checked by median_time, which times every instance, with this name and range
    instances = _speed_instances(instances)
    methods = _speed_methods(limits)
    rows = []
    for label, d, c in tqdm(instances, disable=not progress, desc="instances", leave=False):
        n_tasks = int(drf(d, c, stop="first_blocked").tasks.sum())
        for name, fn in methods.items():
            lim = limits[name]
            if lim is not None and d.shape[0] > lim:
                continue
            secs = median_time(lambda: fn(d, c), repeat=repeat)
            work = float(fn(d, c).work) if name in ("drf", "pdrf") else np.nan
            rows.append({**label, "method": name, "seconds": secs, "tasks": n_tasks, "work": work})
    return pd.DataFrame(rows)


def work_in_resources(
    rng: int | np.random.Generator | np.random.SeedSequence | None,
    resource_counts: Iterable[int] = (2, 5, 10, 20, 50),
    *,
    n_users: int = 1000,
) -> pd.DataFrame:
    """§5's O(nm) in m: the element operations PDRF and DRF count (:attr:`PDRFResult.work`,
    :attr:`DRFResult.work`) on one :func:`scaled_instances` instance per number of resource types,
    ``n_users`` users each. Counted work is deterministic, so the exponent in m is a property of the
    kernels, not of the machine.

    >>> t = work_in_resources(0, (2, 4), n_users=50)
    >>> sorted(t.columns), sorted(set(t.method))
    (['m', 'method', 'tasks', 'work'], ['drf', 'pdrf'])
    """
    counts = [
        as_count(m, f"resource_counts[{i}]", minimum=1) for i, m in enumerate(resource_counts)
    ]
    seeds = np.random.SeedSequence(as_rng(rng).integers(2**63)).spawn(len(counts))
    rows = []
    for m, seed in zip(counts, seeds):
        ((_, d, c),) = scaled_instances(np.random.default_rng(seed), n_users=n_users, n_resources=m)
        for name, run in (("pdrf", pdrf), ("drf", drf)):
            res = run(d, c)
            rows.append(
                {"m": m, "method": name, "tasks": int(res.tasks.sum()), "work": float(res.work)}
            )
    return pd.DataFrame(rows)


def _sequence_of(value: object, name: str) -> tuple[list, bool]:
    """``value``'s numbers, one (a scalar) or a non-empty 1-D sequence of them, and whether it is a
    sequence; each number is the caller's to check."""
    if isinstance(value, (str, bytes)):
        raise InvalidInputError(f"{name} = {value!r}: must be a number or a sequence of numbers")
    if isinstance(value, np.ndarray):
        if value.ndim > 1:
            raise InvalidInputError(f"{name}: must be a number or 1-D, got shape {value.shape}")
        items, many = (value.tolist() if value.ndim else [value.item()]), value.ndim == 1
    elif isinstance(value, Sequence):
        items, many = list(value), True
    else:
        items, many = [value], False
    if not items:
        raise InvalidInputError(f"{name} = {value!r}: empty (at least one number)")
    return [x.item() if isinstance(x, np.generic) else x for x in items], many


def scaled_instances(
    rng: int | np.random.Generator | np.random.SeedSequence | None,
    *,
    n_users: int | Sequence[int],
    n_resources: int = 10,
    reserve_scale: float | Sequence[float] = 1.0,
    demand_range: tuple[int, int] = (1, 10),
    reserve_range: tuple[int, int] = (50_000, 100_000),
) -> list[tuple[dict, np.ndarray, np.ndarray]]:
    """Instances for the speed figures: reserves ``U(reserve_range) * reserve_scale``.

    ``n_users`` and ``reserve_scale`` may be sequences (one instance per pair, zipped after
    broadcasting); with ``reserve_scale = n_users / 1000`` every user gets about the same number of
    tasks whatever ``n_users`` is.

    Parameters
    ----------
    rng : int, numpy.random.Generator, numpy.random.SeedSequence or None
        Randomness.
    n_users : int or sequence of int
        Users per instance, each from 1 to :data:`MAX_USERS` (1,000,000).
    n_resources : int, default 10
        Resources, from 1 to :data:`MAX_RESOURCES` (1,000).
    reserve_scale : float or sequence of float, default 1.0
        Multiplies the reserves: each > 0 and at most :data:`MAX_RESERVE_SCALE` (1e6).
    demand_range : (int, int), default (1, 10)
        Inclusive range of the per-task demands, integers with 1 <= low <= high <= 2**62.
    reserve_range : (int, int), default (50000, 100000)
        Inclusive range of the reserves before scaling, integers with 1 <= low <= high <= 2**62.

    Returns
    -------
    list of (dict, numpy.ndarray, numpy.ndarray)
        ``(label, demands, capacity)`` per instance, as :func:`speed_sweep` takes them.

    Raises
    ------
    InvalidInputError
        When an argument is out of its range, naming it, or ``n_users`` and ``reserve_scale`` are
        sequences of different lengths.
    """
    rng = as_rng(rng)
    sizes, many_sizes = _sequence_of(n_users, "n_users")
    factors, many_factors = _sequence_of(reserve_scale, "reserve_scale")
    for i, n in enumerate(sizes):
        as_count(n, f"n_users[{i}]" if many_sizes else "n_users", maximum=MAX_USERS)
    for i, x in enumerate(factors):
        name = f"reserve_scale[{i}]" if many_factors else "reserve_scale"
        as_number(x, name, maximum=MAX_RESERVE_SCALE)
    if len(sizes) != len(factors) and 1 not in (len(sizes), len(factors)):
        raise InvalidInputError(
            f"n_users ({len(sizes)} values) and reserve_scale ({len(factors)} values): one value, "
            "or as many of each"
        )
    n_resources = as_count(n_resources, "n_resources", maximum=MAX_RESOURCES)
    demand_range = _int_range(demand_range, "demand_range")
    reserve_range = _int_range(reserve_range, "reserve_range")
    ns, scales = np.broadcast_arrays(np.atleast_1d(n_users), np.atleast_1d(reserve_scale))
    seeds = np.random.SeedSequence(np.random.default_rng(rng).integers(2**63)).spawn(len(ns))
    out = []
    for n, s, seed in zip(ns, scales, seeds):
        g = np.random.default_rng(seed)
        cap = g.integers(reserve_range[0], reserve_range[1] + 1, size=n_resources) * float(s)
        d = g.integers(demand_range[0], demand_range[1] + 1, size=(int(n), n_resources)).astype(
            np.float64
        )
        out.append(({"n": int(n), "reserve_scale": float(s)}, d, cap))
    return out


#: statistics compared when matching a table row (scaled by max(1, paper value))
MATCH_FIELDS = ("under_avg", "over_1", "over_2", "over_gt2", "over_avg")


def _match_row(value: object, name: str) -> None:
    """Check that ``value`` is a table row (a mapping or a Series) with a finite number in each of
    :data:`MATCH_FIELDS`."""
    row: Mapping | pd.Series = (
        value if isinstance(value, pd.Series) else as_instance(value, Mapping, name)
    )
    for f in MATCH_FIELDS:
        if f not in row:
            raise InvalidInputError(f"{name}: no {f!r} (needs {list(MATCH_FIELDS)})")
        as_number(row[f], f"{name}[{f!r}]", minimum=-np.inf)


def row_distance(
    row: Mapping[str, float] | pd.Series, paper_row: Mapping[str, float] | pd.Series
) -> float:
    """Mean relative distance of a measured table row from a paper row over :data:`MATCH_FIELDS`.

    Parameters
    ----------
    row : dict of str to float, or pandas.Series
        A measured row (:func:`table_row`).
    paper_row : mapping of str to float, or pandas.Series
        The published row (a row of a table of them).

    Returns
    -------
    float
        The mean relative distance.
    """
    for name, value in (("row", row), ("paper_row", paper_row)):
        _match_row(value, name)
    return float(
        np.mean([abs(row[f] - paper_row[f]) / max(1.0, abs(paper_row[f])) for f in MATCH_FIELDS])
    )


def parameter_search(
    paper_row: Mapping[str, float] | pd.Series,
    grid: Sequence[tuple[tuple[int, int], tuple[int, int]]],
    n_runs: int,
    rng: int | np.random.SeedSequence,
    *,
    n_users: int = 1000,
    n_resources: int = 2,
    progress: bool = False,
    n_jobs: int | None = None,
    backend: str | None = None,
) -> pd.DataFrame:
    """Which (reserve range, demand range) reproduce a published row? One table row per grid cell.

    ``grid`` is a list of ``(reserve_range, demand_range)`` pairs; the result has the measured row,
    the settings and ``distance`` (:func:`row_distance`), sorted by distance. All cells x runs form
    one sweep.

    Parameters
    ----------
    paper_row : mapping of str to float, or pandas.Series
        The published row (a row of a table of them), a finite number in each of
        :data:`MATCH_FIELDS`.
    grid : list of ((int, int), (int, int))
        ``(reserve_range, demand_range)`` pairs, at least one, each once; ranges as in
        :class:`DeviationExperiment`.
    n_runs : int
        Runs per cell, from 1 to :data:`fairlib.sweep.MAX_CELLS` (1,000,000).
    rng : int or numpy.random.SeedSequence
        The sweep's root seed.
    n_users : int, default 1000
        Users per instance, from 1 to :data:`MAX_USERS` (1,000,000).
    n_resources : int, default 2
        Resources per instance, from 1 to :data:`MAX_RESOURCES` (1,000).
    progress : bool, default False
        Show the sweep's progress bar.
    n_jobs : int, optional
        Local processes of the sweep.
    backend : {"serial", "loky", "dask"}, optional
        The sweep's backend.

    Returns
    -------
    pandas.DataFrame
        One row per cell, sorted by distance.

    Raises
    ------
    InvalidInputError
        When an argument is out of its range, naming it.
    """
    _match_row(paper_row, "paper_row")
    if isinstance(grid, (str, bytes)) or not isinstance(grid, Sequence) or not grid:
        raise InvalidInputError(
            f"grid = {grid!r}: must be a non-empty list of (reserve_range, demand_range) pairs"
        )
    cells = []
    for i, cell in enumerate(grid):
        if not isinstance(cell, (tuple, list)) or len(cell) != 2:
            raise InvalidInputError(
                f"grid[{i}] = {cell!r}: must be a pair (reserve_range, demand_range)"
            )
        ranges = (_int_range(cell[0], f"grid[{i}][0]"), _int_range(cell[1], f"grid[{i}][1]"))
        if ranges in cells:
            raise InvalidInputError(f"grid[{i}] = {cell!r}: repeated (each cell once)")
        cells.append(ranges)
    # n_users and n_resources are checked by DeviationExperiment, with these names and ranges
    setups = {
        f"{tuple(r)}|{tuple(d)}": DeviationExperiment(
            n_users=n_users, n_resources=n_resources, reserve_range=tuple(r), demand_range=tuple(d)
        )
        for r, d in grid
    }
    runs = deviation_runs(
        setups, n_runs, rng, key="cell", progress=progress, n_jobs=n_jobs, backend=backend
    )
    rows = []
    for (reserve, demand), name in zip(grid, setups):
        row = table_row(runs[runs.cell == name])
        rows.append(
            {
                "reserve_low": reserve[0],
                "reserve_high": reserve[1],
                "demand_low": demand[0],
                "demand_high": demand[1],
                **row,
                "distance": row_distance(row, paper_row),
            }
        )
    return pd.DataFrame(rows).sort_values("distance", kind="stable").reset_index(drop=True)


#: Table 1–2 columns the claims compare with the paper, one claim per (table, row, column)
TABLE_COLUMNS = (
    "under_1",
    "under_2",
    "under_gt2",
    "under_max",
    "under_avg",
    "under_sd",
    "over_1",
    "over_2",
    "over_gt2",
    "over_max",
    "over_avg",
    "over_sd",
)
#: the count columns whose spread the paper does not print: their claims' standard-error rule pools
#: the column's standard deviation over our runs with the paper's least (``se = {sd = "pooled"}``,
#: :func:`fairlib.repro.ledger.pooled_count_sd`); :func:`table_row` measures ours as ``<column>_sd``
SUBCOUNT_SD = ("over_1", "over_2", "over_gt2")
_TABLE2_NOTE = (
    "; Table 2 does not follow from its stated parameters (see the parameter search: the "
    "1-1000 row matches reserves 10^6-10^7 with demands 1-100)"
)
#: Table 1's columns of a rare count whose claims are decided on the runs themselves
#: (:func:`table1_tail_findings`): the standard deviation of the over-allocated users per run and
#: the largest over-allocation
TAIL_CLAIMS = ("over_sd", "over_max")


def table_findings(table1: pd.DataFrame, table2: pd.DataFrame) -> dict[str, Measurement]:
    """One claim per cell of Tables 1–2 (§4): ``table1`` and ``table2`` have a row per demand
    range (column ``demands``, e.g. "1-10") of :func:`table_row` statistics and ``runs``; each cell
    is measured with its number of runs where its rule reads it (four standard errors of a
    difference of run-means; the registry's other rules, such as ``equals``, take none) and, for
    the columns of :data:`SUBCOUNT_SD`, with its standard deviation over our runs. Table 1's
    columns of :data:`TAIL_CLAIMS` are left to :func:`table1_tail_findings`, which needs the runs
    themselves.

    Parameters
    ----------
    table1, table2 : pandas.DataFrame
        Our Tables 1 and 2: a row of :func:`table_row` statistics per demand range (column
        ``demands``).

    Returns
    -------
    dict of str to Measurement
        Claim id → measurement, for :meth:`fairlib.repro.ledger.ClaimLog.measure_all`.

    Raises
    ------
    InvalidInputError
        When a table is not a DataFrame, lacks a column or holds something other than numbers >= 0
        in a statistic's column or ``runs`` (naming the row).
    """
    from ..ledger import load_registry, registry_path

    # a claim's run count goes with its measurement only where its rule reads it (a standard-error
    # rule): the others (equals, bounds) refuse it
    declared = load_registry(registry_path("metin2025"), "metin2025")
    out = {}
    for table_no, table in ((1, table1), (2, table2)):
        as_table(
            table,
            f"table{table_no}",
            ["demands"],
            (*TABLE_COLUMNS, *(f"{c}_sd" for c in SUBCOUNT_SD), "runs"),
            sign=">= 0",
        )
    for table_no, table in ((1, table1), (2, table2)):
        for name, row in table.set_index("demands").iterrows():
            for col in TABLE_COLUMNS:
                if table_no == 1 and col in TAIL_CLAIMS:
                    continue  # measured on the runs themselves: table1_tail_findings
                note = (
                    f"{row[col]:.4g} over {int(row['runs'])} runs of the stated parameters "
                    "(scripts' DRF)" + (_TABLE2_NOTE if table_no == 2 else "")
                )
                sd = float(row[f"{col}_sd"]) if col in SUBCOUNT_SD else None
                if sd is not None:
                    note += f"; the column's standard deviation over our runs: {sd:.4g}"
                claim_id = f"table{table_no}_{name}_{col}"
                rule = declared[claim_id].rule if claim_id in declared else None
                reads_runs = rule is None or rule.takes_runs
                out[claim_id] = Measurement(
                    row[col], note=note, runs=int(row["runs"]) if reads_runs else None, sd=sd
                )
    return out


def over_allocation_search_findings(
    table_runs: pd.DataFrame,
    extra_runs: pd.DataFrame,
    exact_table_runs: pd.DataFrame,
    exact_extra_runs: pd.DataFrame,
) -> dict[str, Measurement]:
    """§4's "demands of at least 10 are never over-allocated": over-allocated users in the Table 1
    runs with demands 10-20 plus the extra runs searching for one, with the scripts' accumulated
    shares and with exact shares (the same instances; tables of :func:`deviation_runs`).

    Parameters
    ----------
    table_runs, extra_runs : pandas.DataFrame
        :func:`deviation_runs`' tables of the Table 1 runs and the extra runs, accumulated shares
        (column ``over_total``).
    exact_table_runs, exact_extra_runs : pandas.DataFrame
        The same instances with exact shares.

    Returns
    -------
    dict of str to Measurement
        Claim id → measurement, for :meth:`fairlib.repro.ledger.ClaimLog.measure_all`.

    Raises
    ------
    InvalidInputError
        When an argument is not a table with ``over_total``, counts (numbers >= 0), naming it
        (and the row).
    """
    for name, runs in (
        ("table_runs", table_runs),
        ("extra_runs", extra_runs),
        ("exact_table_runs", exact_table_runs),
        ("exact_extra_runs", exact_extra_runs),
    ):
        as_table(runs, name, (), ["over_total"], sign=">= 0")
    out = {}
    for suffix, runs_1, runs_2 in (
        ("", table_runs, extra_runs),
        ("_exact_shares", exact_table_runs, exact_extra_runs),
    ):
        n_over = int(runs_1["over_total"].sum()) + int(runs_2.over_total.sum())
        arithmetic = "exact" if suffix else "accumulated (the scripts')"
        out[f"table1_10-20_never_over_allocates{suffix}"] = Measurement(
            n_over,
            note=f"{n_over} over-allocated user(s) in {len(runs_1) + len(runs_2)} runs (the "
            f"{len(runs_1)} "
            f"Table 1 runs and {len(runs_2)} more) with {arithmetic} shares; the derived "
            "bound allows "
            "over-allocation whenever ds*/ds_j > 1",
        )
    return out


def parameter_search_findings(
    searches: Mapping[str, pd.DataFrame], grid_runs: int, *, ranked: bool = True
) -> dict[str, Measurement]:
    """Which settings reproduce Table 2's rows: ``searches`` maps each published row ("1-100",
    "1-1000") to :func:`parameter_search`'s table scored against it (sorted by distance).
    ``ranked``: whether ``grid_runs`` runs per grid cell are enough to rank the settings (False in
    quick mode: the note says so).

    Parameters
    ----------
    searches : dict of str to pandas.DataFrame
        Published row ("1-100" and "1-1000", Table 2's) → :func:`parameter_search`'s table
        (columns ``reserve_low``, ``reserve_high``, ``demand_low``, ``demand_high``,
        ``distance``); the "1-1000" table holds the stated reserves (50,000-100,000) and reserves
        from 1,000,000 with demands up to 100.
    grid_runs : int
        Runs per grid cell, from 1 to :data:`fairlib.sweep.MAX_CELLS` (1,000,000).
    ranked : bool, default True
        See above.

    Returns
    -------
    dict of str to Measurement
        Claim id → measurement, for :meth:`fairlib.repro.ledger.ClaimLog.measure_all`.

    Raises
    ------
    InvalidInputError
        When an argument is out of its range or a table lacks a column or row it reads or holds
        something other than numbers >= 0 in a column (naming it and the row).
    """
    as_instance(searches, Mapping, "searches")
    rows = ("1-100", "1-1000")
    for key in searches:
        check_choice(key, rows, "searches key")
    columns = ("reserve_low", "reserve_high", "demand_low", "demand_high", "distance")
    for key in rows:
        if key not in searches:
            raise InvalidInputError(f"searches: no table for Table 2's row {key!r}")
        as_table(searches[key], f"searches[{key!r}]", (), columns, sign=">= 0")
        if searches[key].empty:
            raise InvalidInputError(f"searches[{key!r}]: no grid cell (an empty table)")
    grid_runs = as_count(grid_runs, "grid_runs", maximum=MAX_CELLS)
    ranked = as_flag(ranked, "ranked")
    s1000, best_100 = searches["1-1000"], searches["1-100"].iloc[0]
    ref_setting = s1000[(s1000.reserve_low == 1_000_000) & (s1000.demand_high == 100)]
    stated = s1000[(s1000.reserve_low == 50_000) & (s1000.reserve_high == 100_000)]
    if ref_setting.empty or stated.empty:
        raise InvalidInputError(
            "searches['1-1000']: needs a cell of reserves from 1,000,000 with demands up to 100 "
            "and one of the stated reserves 50,000-100,000"
        )
    ref_setting = ref_setting.iloc[0]
    close = s1000[s1000.distance <= 0.1]
    return {
        "table2_1-1000_row_from_reserves_1e6_1e7_demands_1_100": Measurement(
            float(ref_setting.distance),
            note=f"mean relative distance {ref_setting.distance:.3f} over {grid_runs} runs per "
            "grid cell",
        ),
        "table2_1-1000_row_needs_reserves_above_stated": Measurement(
            float(stated.distance.min()),
            note=(
                "no demand range with the stated reserves comes within 0.1 (closest: "
                f"demands {int(stated.iloc[0].demand_low)}-{int(stated.iloc[0].demand_high)} "
                f"at {stated.distance.min():.2f}); with reserves 10^6-10^7 the demand range "
                f"barely matters ({int((close.reserve_low == 1_000_000).sum())} of 5 demand "
                "ranges within 0.1)"
            )
            if ranked
            else "quick mode: too few runs per grid cell to rank the settings reliably",
        ),
        "table2_1-100_row_found_in_grid": Measurement(
            float(best_100.distance),
            note="no setting of the grid reproduces the 1-100 row: the closest (reserves "
            f"{int(best_100.reserve_low):,}-{int(best_100.reserve_high):,}, demands "
            f"{int(best_100.demand_low)}-{int(best_100.demand_high)}) is at mean relative "
            f"distance {best_100.distance:.2f}",
        ),
    }


def identity_findings(identity: pd.DataFrame) -> dict[str, Measurement]:
    """PDRF = ⌊EDRF⌋ (§3.4), the simplified k' form, the derived bound on the literal loop and
    the top-up round, on :func:`identity_runs`' table.

    Parameters
    ----------
    identity : pandas.DataFrame
        :func:`identity_runs`' per-run rows, at least one.

    Returns
    -------
    dict of str to Measurement
        Claim id → measurement, for :meth:`fairlib.repro.ledger.ClaimLog.measure_all`.

    Raises
    ------
    InvalidInputError
        When ``identity`` is not such a table, naming the columns it lacks or the row of one read
        as numbers that holds something else.
    """
    # DRF minus EDRF may be negative
    as_table(
        identity,
        "identity",
        ["pdrf_over_allocates", "topup_equals_corrected_drf"],
        [
            "other",
            "simplified_off_floor_edrf",
            "ds_max_off_floor_edrf",
            "bound_violations",
            "drf_minus_edrf_max",
            "corrected_drf_minus_edrf_max",
        ],
    )
    if identity.empty:
        raise InvalidInputError("identity: no run (an empty table)")
    simplified, ds_max = (
        int(identity["simplified_off_floor_edrf"].sum()),
        int(identity["ds_max_off_floor_edrf"].sum()),
    )
    return {
        "pdrf_equals_floor_edrf": Measurement(int(identity["other"].sum())),
        "simplified_variant_less_accurate": Measurement(
            simplified - ds_max,
            note=f"users off ⌊EDRF⌋ over {len(identity)} random instances: k' form {simplified}, "
            f"ds* form {ds_max}",
        ),
        "literal_drf_within_derived_bound": Measurement(int(identity["bound_violations"].sum())),
        "drf_never_exceeds_edrf_plus_one": Measurement(
            float(identity["drf_minus_edrf_max"].max()),
            note=f"largest literal-DRF minus EDRF tasks over {len(identity)} random instances: "
            f"{identity['drf_minus_edrf_max'].max():.3g}; with blocked users skipped "
            "(corrected DRF, not the claim's loop): "
            f"{identity['corrected_drf_minus_edrf_max'].max():.3g}",
        ),
        "topup_equals_corrected_drf_when_no_over_allocation": Measurement(
            bool(identity.loc[~identity.pdrf_over_allocates, "topup_equals_corrected_drf"].all())
        ),
    }


def drf_work_per_task_findings(speed_n: pd.DataFrame) -> dict[str, Measurement]:
    """§5: DRF's counted work per allocated task against log2 n (the slope of a least-squares
    line), on :func:`speed_sweep`'s table over n (rows of method "drf" with counted ``work``).

    Parameters
    ----------
    speed_n : pandas.DataFrame
        :func:`speed_sweep`'s table over the number of users (columns ``method``, ``n``,
        ``tasks``, ``work``).

    Returns
    -------
    dict of str to Measurement
        Claim id → measurement, for :meth:`fairlib.repro.ledger.ClaimLog.measure_all`.

    Raises
    ------
    InvalidInputError
        When ``speed_n`` lacks a column, holds something other than numbers >= 0 in ``n``,
        ``tasks`` or ``work`` (naming the row) or has DRF's work at fewer than two sizes.
    """
    as_table(speed_n, "speed_n", ["method"], ["n", "tasks", "work"], sign=">= 0")
    drf_n = speed_n[speed_n.method == "drf"].dropna(subset=["work"])
    if len(drf_n) < 2:
        raise InvalidInputError(
            f"speed_n: needs DRF's counted work at two sizes or more, has {len(drf_n)}"
        )
    per_task = drf_n.work / drf_n.tasks
    slope = float(np.polyfit(np.log2(drf_n.n), per_task, 1)[0])
    return {
        "drf_heap_work_grows_with_log_n": Measurement(
            slope,
            note="counted work per allocated task: "
            + ", ".join(f"{w:.1f} at n = {n:,}" for n, w in zip(drf_n.n, per_task)),
        )
    }


def repository_example_findings() -> dict[str, Measurement]:
    """The author's repository example (demands ⟨1, 4⟩ and ⟨3, 1⟩, reserves ⟨7583,
    4649⟩): PDRF and the scripts' literal DRF (first blocked user stops it, ties to the lowest
    index, accumulated shares).

    Returns
    -------
    dict of str to Measurement
        Claim id → measurement, for :meth:`fairlib.repro.ledger.ClaimLog.measure_all`.
    """
    demands, reserves = np.array([[1.0, 4.0], [3.0, 1.0]]), np.array([7583.0, 4649.0])
    return {
        "repository_example_pdrf_752_1637": Measurement(pdrf(demands, reserves).tasks.tolist()),
        "repository_example_drf_753_1637": Measurement(
            drf(
                demands,
                reserves,
                stop="first_blocked",
                tie_break="lowest_index",
                share_arithmetic="accumulated",
            ).tasks.tolist()
        ),
    }


def over_allocation_findings(
    profile: pd.DataFrame, types_table: pd.DataFrame
) -> dict[str, Measurement]:
    """Who PDRF over-allocates (§4, after Table 1), from :func:`over_allocation_profile`'s table
    for Tables 1–2 (column ``table``) and the over-allocations per run by number of resource types
    (``types_table``: columns ``resource_types`` and ``over_avg``, in increasing order of types).
    Bins of ds*/ds_i with fewer than 100 users are left out of the rate comparisons.

    Parameters
    ----------
    profile : pandas.DataFrame
        :func:`over_allocation_profile`'s table for Tables 1–2 (column ``table``), with Table 2's
        row "1-100".
    types_table : pandas.DataFrame
        Over-allocations per run by number of resource types (``resource_types``, ``over_avg``).

    Returns
    -------
    dict of str to Measurement
        Claim id → measurement, for :meth:`fairlib.repro.ledger.ClaimLog.measure_all`.

    Raises
    ------
    InvalidInputError
        When a table lacks a column or a row it reads, or holds something other than numbers >= 0
        in a column read as numbers, naming it (and the row).
    """
    as_table(
        profile,
        "profile",
        ["demands", "group"],
        ["table", "rate_low", "users", "over", "over_rate", "mean_rate"],
        sign=">= 0",
    )
    as_table(types_table, "types_table", (), ["over_avg"], sign=">= 0")
    if (
        not pd.api.types.is_string_dtype(profile.group)
        or not (
            (profile.table == 2) & (profile.demands == "1-100") & (profile.group == "all ones")
        ).any()
    ):
        raise InvalidInputError(
            "profile: needs the group 'all ones' of Table 2's row '1-100' "
            "(over_allocation_profile's table)"
        )
    summary_rows = profile[profile.group.isin(["over-allocated", "all"])].pivot_table(
        index=["table", "demands"], columns="group", values="mean_rate", sort=False
    )
    t2 = profile[(profile.table == 2) & (profile.demands == "1-100")]
    ones = t2[t2.group == "all ones"].iloc[0]
    full_bins = t2[t2.group.str.startswith("rate") & (t2.users >= 100)]
    bins = profile[profile.group.str.startswith("rate")]
    spearman = {}
    for (t, name), g in bins[bins.users >= 100].groupby(["table", "demands"], sort=False):
        spearman[f"Table {t} {name}"] = (
            float(
                pd.Series(g.rate_low.values).corr(pd.Series(g.over_rate.values), method="spearman")
            )
            if len(g) > 1
            else np.nan
        )
    return {
        "over_allocation_favours_small_dominant_share": Measurement(
            (summary_rows["over-allocated"] / summary_rows["all"]).tolist(),
            note="; ".join(
                f"Table {t} {name}: {r['over-allocated']:.2f} vs {r['all']:.2f}"
                for (t, name), r in summary_rows.iterrows()
            ),
        ),
        "all_ones_demand_most_favoured": Measurement(
            bool(ones.over_rate > full_bins.over_rate.max()),
            note=f"{int(ones.over)} of {int(ones.users)} all-ones users over-allocated "
            f"({ones.over_rate:.0%}); the highest bin rate is "
            f"{full_bins.over_rate.max():.0%} (ds*/ds_i from "
            f"{full_bins.loc[full_bins.over_rate.idxmax(), 'rate_low']:g})",
        ),
        "over_allocation_grows_with_rate": Measurement(
            list(spearman.values()), note="; ".join(f"{k}: {v:.2f}" for k, v in spearman.items())
        ),
        "more_resource_types_fewer_over_allocations": Measurement(
            np.diff(types_table.over_avg.values).tolist(),
            note="over-allocated users per run for 2, 3, 5, 10 resource types: "
            + ", ".join(f"{v:.3f}" for v in types_table.over_avg),
        ),
    }


#: Metin §6.1's single-resource example: reserve 35, demands of A, B, C, and the cycle counts the
#: text prints for them
SECTION_6_1: dict[str, Any] = {"reserve": 35, "demands": (2, 4, 10), "printed_counts": (4, 2, 1)}


def subcycle_lower_counts(ds_high: int, ds_low: int, n_subcycles: int = 20) -> list[int]:
    """Metin §3.3's subcycles of two users on one resource whose per-task dominant shares are
    ``ds_high`` > ``ds_low`` (integers, ratio ds_high/ds_low): DRF's progressive filling with the
    paper's tie rule (higher per-task share first), its allocation sequence split into subcycles
    each starting at an allocation of the ds* user; returns how many tasks the other user takes in
    each of the first ``n_subcycles`` subcycles.

    Parameters
    ----------
    ds_high, ds_low : int
        The two users' per-task dominant shares, ``ds_high > ds_low``.
    n_subcycles : int, default 20
        Subcycles counted.

    Returns
    -------
    list of int
        Tasks of the lower-share user per subcycle.

    Raises
    ------
    InvalidInputError
        When the filling does not complete the subcycles asked for.

    Examples
    --------
    >>> # ratio 1.25: an extra task in the first and every 4th subcycle
    >>> subcycle_lower_counts(5, 4, 6)
    [2, 1, 1, 1, 2, 1]
    """
    ds_high, ds_low, n_subcycles = (
        as_count(ds_high, "ds_high"),
        as_count(ds_low, "ds_low"),
        as_count(n_subcycles, "n_subcycles"),
    )
    if not ds_high > ds_low > 0:
        raise InvalidInputError(f"need ds_high > ds_low > 0, got {ds_high} and {ds_low}")
    # each subcycle uses ds_high plus at most (ratio + 1) ds_low < 2 ds_high: room for n_subcycles +
    # 1 of them
    capacity = 3.0 * ds_high * (n_subcycles + 2)
    order = drf(
        np.array([[float(ds_high)], [float(ds_low)]]),
        np.array([capacity]),
        tie_break="higher_share",
        record_order=True,
    ).order
    starts = np.flatnonzero(order == 0)
    if len(starts) < n_subcycles + 1 or starts[0] != 0:
        raise InvalidInputError(
            "the filling did not complete the subcycles asked for"
        )  # cannot happen
    return [
        int((order[a:b] == 1).sum())
        for a, b in zip(starts[:n_subcycles], starts[1 : n_subcycles + 1])
    ]


def worked_example_findings() -> dict[str, Measurement]:
    """The paper's small examples that need no table: §3.3's subcycles for ratios 1.25 and 1.4,
    §6.1's cycle (its printed counts' units, and the reserve one cycle leaves with the counts of
    the paper's basic-subcycle formula ⌊ds*/ds_i⌋) and §6.2's count of iterations before the
    literal loop halts.

    Returns
    -------
    dict of str to Measurement
        Claim id → measurement, for :meth:`fairlib.repro.ledger.ClaimLog.measure_all`.
    """
    reserve, dem, printed = (
        SECTION_6_1["reserve"],
        np.array(SECTION_6_1["demands"]),
        np.array(SECTION_6_1["printed_counts"]),
    )
    ds = dem / reserve
    basic = np.floor(ds.max() / ds + 1e-12).astype(
        int
    )  # the basic subcycle's counts, |l*| = sum ⌊ds*/ds_i⌋
    printed_units, basic_units = int(printed @ dem), int(basic @ dem)
    pdrf_left = float(
        reserve - pdrf(dem[:, None].astype(float), np.array([float(reserve)])).tasks @ dem
    )
    counts = "(" + ", ".join(str(c) for c in basic) + ")"
    literal = drf(
        np.array([[1.0, 4.0], [3.0, 1.0]]),
        np.array([59.0, 19.0]),
        stop="first_blocked",
        tie_break="lowest_index",
    )
    higher = drf(
        np.array([[1.0, 4.0], [3.0, 1.0]]),
        np.array([59.0, 19.0]),
        stop="first_blocked",
        tie_break="higher_share",
    )
    return {
        "subcycle_ratio_1_25": Measurement(
            subcycle_lower_counts(5, 4),
            note="per-task shares 5 and 4 (ratio 1.25): tasks of the lower-share user "
            "in each of the first 20 subcycles",
        ),
        "subcycle_ratio_1_4": Measurement(
            subcycle_lower_counts(7, 5),
            note="per-task shares 7 and 5 (ratio 1.4): tasks of the lower-share user "
            "in each of the first 20 subcycles",
        ),
        "higher_order_cycle_uses_26_units": Measurement(
            printed_units,
            note=f"the printed counts (A, B, C) = ({', '.join(str(c) for c in printed)}) use "
            f"{printed_units} units; the paper's own basic-subcycle counts ⌊ds*/ds_i⌋ are "
            f"{counts} (rates {', '.join(f'{r:g}' for r in ds.max() / ds)}), which use "
            f"{basic_units}",
        ),
        "higher_order_nine_units_left": Measurement(
            int(reserve - basic_units),
            note=f"one cycle of the counts ⌊ds*/ds_i⌋ = {counts} uses {basic_units} of {reserve} "
            f"units and leaves {reserve - basic_units} (PDRF leaves {pdrf_left:g}); the "
            f"printed counts would leave {reserve - printed_units}",
        ),
        "pareto_halts_after_10_iterations": Measurement(
            int(literal.n_allocations),
            note=f"tasks the literal loop allocates before it halts: {literal.n_allocations} with "
            f"ties to the lowest index, {higher.n_allocations} with ties to the higher share",
        ),
    }


def sd_bootstrap_interval(
    per_run: npt.ArrayLike,
    *,
    n_paper: int = 1000,
    resamples: int = 2000,
    level: float = 0.99,
    seed: int = 0,
) -> tuple[float, float]:
    """Where another sample of ``n_paper`` runs from the distribution of ``per_run`` puts its
    (population) standard deviation, given ours: the percentile interval [ours − q_hi, ours −
    q_lo] of D = sd(resample of len(per_run) runs) − sd(resample of n_paper runs), both resampled
    with replacement from ``per_run`` (``resamples`` pairs, ``level`` central mass, a fixed
    ``seed``). A paper's printed standard deviation outside it is not what the runs' distribution
    gives; no normality is assumed (a rare, skewed count's sd has a much wider spread than the
    normal approximation sd/√(2n)).

    Parameters
    ----------
    per_run : array_like of float
        Our runs' values.
    n_paper : int, default 1000
        The paper's number of runs.
    resamples : int, default 2000
        Resampled pairs.
    level : float, default 0.99
        Central mass of the interval.
    seed : int, default 0
        The resampling's seed, an integer >= 0 (None, fresh entropy, is refused: the interval
        could not be computed again).

    Returns
    -------
    tuple of float
        ``(low, high)``.

    Raises
    ------
    InvalidInputError
        When ``per_run`` holds fewer than two runs or an argument is out of its range, ``seed``
        None included.
    """
    x = as_values(per_run, "per_run", ndim=1, sign=None)
    if x.size < 2:
        raise InvalidInputError(
            f"per_run: needs a 1-d sample of 2 runs or more, got shape {x.shape}"
        )
    # resamples x runs are drawn at once: a billion draws is the most one call makes
    n_paper = as_count(n_paper, "n_paper", maximum=10**9)
    resamples = as_count(resamples, "resamples", maximum=10**9 // max(n_paper, x.size))
    level = as_number(level, "level", maximum=1.0)
    if level == 1.0:
        raise InvalidInputError(f"level = {level}: must lie in (0, 1)")
    g = as_rng(seed, "seed", reproducible=True)
    ours = x.std()
    d = x[g.integers(0, x.size, size=(int(resamples), x.size))].std(axis=1) - x[
        g.integers(0, x.size, size=(int(resamples), int(n_paper)))
    ].std(axis=1)
    q_lo, q_hi = np.quantile(d, [(1 - level) / 2, (1 + level) / 2])
    return float(ours - q_hi), float(ours - q_lo)


def max_plausibility(
    per_run_max: npt.ArrayLike, paper_max: int, *, n_paper: int = 1000, alpha: float = 0.01
) -> dict[str, float]:
    """How likely ``n_paper`` runs end with largest value exactly ``paper_max``, given our runs'
    per-run maxima: P = (1 − p_gt)^n − (1 − p_ge)^n with p_ge, p_gt the per-run rates of a
    maximum >= and > ``paper_max``, each anywhere in its exact (Clopper–Pearson) 1 − ``alpha``
    interval from our counts. Returns ``p_low``, ``p_high`` (the least and largest P over those
    intervals), the counts and ``score``: ``p_low`` when at least ``alpha`` (the paper's maximum is
    a likely outcome at any plausible rate), ``p_high`` when below ``alpha`` (unlikely at every
    plausible rate), else ``alpha`` itself (our runs cannot decide). With no more runs than
    ``n_paper`` and none above ``paper_max``, ``p_low`` < ``alpha`` always (a rate of exceeding it
    that makes ``n_paper`` runs without one unlikely cannot be excluded): a maximum is confirmed
    only by more runs than it was printed from.

    Parameters
    ----------
    per_run_max : array_like of int
        Our runs' maxima.
    paper_max : int
        The paper's printed maximum.
    n_paper : int, default 1000
        The paper's number of runs.
    alpha : float, default 0.01
        One minus the intervals' confidence.

    Returns
    -------
    dict of str to float
        ``p_low``, ``p_high``, the counts and ``score``.
    """
    from scipy.stats import beta

    x = as_values(per_run_max, "per_run_max", ndim=1)
    n_ours = x.size
    if n_ours < 1:
        raise InvalidInputError("per_run_max: needs at least one run")
    paper_max = as_count(paper_max, "paper_max", minimum=0)
    n_paper = as_count(n_paper, "n_paper")
    alpha = as_number(alpha, "alpha", maximum=0.5)

    def interval(c):
        lo = 0.0 if c == 0 else float(beta.ppf(alpha / 2, c, n_ours - c + 1))
        hi = 1.0 if c == n_ours else float(beta.ppf(1 - alpha / 2, c + 1, n_ours - c))
        return lo, hi

    c_ge, c_gt = int((x >= paper_max).sum()), int((x > paper_max).sum())
    (l_ge, u_ge), (l_gt, u_gt) = interval(c_ge), interval(c_gt)
    p_high = (1 - l_gt) ** n_paper - (1 - u_ge) ** n_paper
    p_low = max(0.0, (1 - u_gt) ** n_paper - (1 - l_ge) ** n_paper)
    score = p_low if p_low >= alpha else (p_high if p_high < alpha else alpha)
    return {
        "p_low": float(p_low),
        "p_high": float(p_high),
        "runs_at_least": c_ge,
        "runs_above": c_gt,
        "runs": int(n_ours),
        "score": float(score),
    }


def table1_tail_findings(
    table1_runs: pd.DataFrame, *, n_paper: int = 1000, resamples: int = 2000, seed: int = 2025
) -> dict[str, Measurement]:
    """Table 1's tail cells on the runs themselves (:func:`deviation_runs`' table: ``demands``,
    ``over_total``, ``over_max`` per run): ``over_sd`` — the paper's printed value against
    :func:`sd_bootstrap_interval` (99%, ``resamples`` pairs, ``seed``), measured as [paper − low,
    high − paper] (both >= 0: inside); ``over_max`` — :func:`max_plausibility`'s score of the
    paper's printed maximum.

    Parameters
    ----------
    table1_runs : pandas.DataFrame
        :func:`deviation_runs`' table of Table 1, at least two runs of each row ("1-10", "1-20",
        "10-20" in column ``demands``).
    n_paper : int, default 1000
        The paper's number of runs, 1 to 10**9.
    resamples : int, default 2000
        Resampled pairs of :func:`sd_bootstrap_interval`, 1 to 10**9 // max(n_paper, runs).
    seed : int, default 2025
        Its seed, an integer >= 0 (None, fresh entropy, is refused: the measurements could not be
        repeated).

    Returns
    -------
    dict of str to Measurement
        Claim id → measurement, for :meth:`fairlib.repro.ledger.ClaimLog.measure_all`.

    Raises
    ------
    InvalidInputError
        When an argument is out of its range or the table lacks a column or row or holds
        something other than counts (numbers >= 0) in ``over_total`` or ``over_max``, naming it
        (and the row).
    """
    # n_paper, resamples and seed are checked by sd_bootstrap_interval, which every row calls
    # first, with these names and ranges
    as_table(table1_runs, "table1_runs", ["demands"], ["over_total", "over_max"], sign=">= 0")
    paper = PAPER_TABLES[PAPER_TABLES.table == 1]
    rows = {f"{r.demand_low}-{r.demand_high}": r for r in paper.itertuples()}
    groups = list(table1_runs.groupby("demands", sort=False))
    if not groups:
        raise InvalidInputError("table1_runs: no run (an empty table)")
    for name, runs in groups:
        if str(name) not in rows:
            raise InvalidInputError(f"table1_runs: demands {name!r} is not a row of Table 1")
        if len(runs) < 2:
            raise InvalidInputError(f"table1_runs: demands {name!r} has {len(runs)} run (needs 2)")
    out = {}
    for name, runs in groups:
        row = rows[str(name)]
        lo, hi = sd_bootstrap_interval(
            runs.over_total.to_numpy(), n_paper=n_paper, resamples=resamples, seed=seed
        )
        sd_paper = float(row.over_sd)
        out[f"table1_{name}_over_sd"] = Measurement(
            [sd_paper - lo, hi - sd_paper],
            note=f"our sd {runs.over_total.std(ddof=0):.4g} over {len(runs)} runs; a sample of "
            f"{n_paper} runs from their distribution has sd in [{lo:.4g}, {hi:.4g}] (99% "
            f"percentile bootstrap, {resamples} resamples); the paper prints {sd_paper:g}",
        )
        m_paper = int(row.over_max)
        pl = max_plausibility(runs.over_max.to_numpy(), m_paper, n_paper=n_paper)
        verdict = (
            "likely at any plausible rate"
            if pl["p_low"] >= 0.01
            else "unlikely at every plausible rate"
            if pl["p_high"] < 0.01
            else "our runs cannot decide"
        )
        out[f"table1_{name}_over_max"] = Measurement(
            pl["score"],
            note=f"our largest over-allocation {int(runs.over_max.max())} over {len(runs)} runs; "
            f"{pl['runs_at_least']} run(s) reach the paper's {m_paper}, {pl['runs_above']} "
            f"exceed it; the chance that {n_paper} runs end with maximum exactly {m_paper} "
            f"is {pl['p_low']:.2g} to {pl['p_high']:.2g} over 99% exact intervals of those "
            f"rates: {verdict}",
        )
    return out


def median_interval(
    values: npt.ArrayLike, level: float = 0.95
) -> tuple[float, float, float, float]:
    """The median of ``values`` and a distribution-free confidence interval for it from order
    statistics: [x_(j), x_(R+1-j)] with the largest j such that P(Binomial(R, 1/2) < j) <= (1 -
    level)/2; returns (median, low, high, coverage). With too few values for ``level`` (R < 6 at
    95%) the interval is the full range, with its coverage.

    Parameters
    ----------
    values : array_like of float
        The sample.
    level : float, default 0.95
        The interval's confidence.

    Returns
    -------
    tuple of float
        ``(median, low, high, coverage)``.

    Examples
    --------
    >>> # R = 15: the 4th and 12th values, coverage 1 - 2 P(Bin(15, 1/2) <= 3)
    >>> median_interval(range(1, 16))
    (8.0, 4.0, 12.0, 0.96484375)
    """
    from scipy.stats import binom

    x = np.sort(as_values(values, "values", ndim=1, sign=None))
    r = x.size
    if r < 1:
        raise InvalidInputError("values: needs at least one value")
    level = as_number(level, "level", maximum=1.0)
    if level == 1.0:
        raise InvalidInputError(f"level = {level}: must lie in (0, 1)")
    j = 1
    while j + 1 <= (r + 1) // 2 and binom.cdf(j, r, 0.5) <= (1 - level) / 2:
        j += 1
    coverage = 1 - 2 * float(binom.cdf(j - 1, r, 0.5))
    return float(np.median(x)), float(x[j - 1]), float(x[r - j]), coverage


def variant_time_ratios(
    demands: npt.ArrayLike, capacity: npt.ArrayLike, *, repetitions: int = 15, repeat: int = 5
) -> pd.DataFrame:
    """§3.4's two PDRF forms timed in alternation on one instance: ``repetitions`` rounds, each the
    :func:`fairlib.timing.median_time` (``repeat`` samples) of the simplified k' form and of the ds*
    form, in an order that alternates between rounds (so a load change on the machine hits both);
    one row per round with both times and ``ratio`` = simplified / ds*.

    Parameters
    ----------
    demands : array_like, shape (n_users, n_resources)
        Per-task demands.
    capacity : array_like, shape (n_resources,)
        The pool's capacity.
    repetitions : int, default 15
        Rounds, from 1 to :data:`MAX_ROUNDS` (1,000).
    repeat : int, default 5
        Samples per median, 1 to 1,000 (:data:`fairlib.timing.MAX_SAMPLES`).

    Returns
    -------
    pandas.DataFrame
        One row per round.

    Raises
    ------
    InvalidInputError
        When an argument is out of its range, naming it.
    """
    from functools import partial

    from ...timing import median_time

    given = demands  # its labels, if any, for the capacity's
    demands = as_demands(demands)
    capacity = as_capacities(
        capacity, n_resources=demands.shape[1], aligned_to=("demands", given, 1)
    )
    repetitions = as_count(repetitions, "repetitions", maximum=MAX_ROUNDS)
    # repeat is checked by median_time, which every round calls, with this name and range

    forms = {
        "simplified": partial(pdrf, demands, capacity, variant="simplified"),
        "ds_max": partial(pdrf, demands, capacity, variant="ds_max"),
    }
    rows = []
    for r in range(int(repetitions)):
        order = ("simplified", "ds_max") if r % 2 == 0 else ("ds_max", "simplified")
        t = {name: median_time(forms[name], repeat=repeat) for name in order}
        rows.append(
            {
                "round": r,
                "simplified": t["simplified"],
                "ds_max": t["ds_max"],
                "ratio": t["simplified"] / t["ds_max"],
            }
        )
    return pd.DataFrame(rows)


def variant_speed_findings(ratios: pd.DataFrame) -> dict[str, Measurement]:
    """§3.4 "poorer algorithm performance" of the simplified form, on :func:`variant_time_ratios`'
    table: the low end of the 95% distribution-free interval of the median ratio simplified / ds*
    (above 1: slower beyond the rounds' spread).

    Parameters
    ----------
    ratios : pandas.DataFrame
        :func:`variant_time_ratios`' table (column ``ratio``, one row per round, at least one).

    Returns
    -------
    dict of str to Measurement
        Claim id → measurement, for :meth:`fairlib.repro.ledger.ClaimLog.measure_all`.

    Raises
    ------
    InvalidInputError
        When ``ratios`` is not such a table (a refusal of a ratio names its row).
    """
    as_table(ratios, "ratios", (), ["ratio"], sign=">= 0")
    if len(ratios) < 1:
        raise InvalidInputError("ratios: needs a column 'ratio' with one row per round")
    med, lo, hi, cover = median_interval(ratios.ratio)
    return {
        "simplified_variant_slower": Measurement(
            lo,
            note=f"time of the simplified form over the ds* form: median {med:.3f} over "
            f"{len(ratios)} alternating rounds, {cover:.0%} interval [{lo:.3f}, {hi:.3f}] "
            "(one shared machine)",
        )
    }
