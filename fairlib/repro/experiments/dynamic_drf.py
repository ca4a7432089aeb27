"""Experiment drivers for the li2019 notebook: random arrival orders of real demands, running
times."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from typing import cast

import numpy as np
import numpy.typing as npt
import pandas as pd

from ..._jit import compiled
from ..._validate import (
    as_table,
    as_counts,
    InvalidInputError,
    as_count,
    as_labels,
    as_number,
    as_rng,
    as_values,
    check_choice,
)
from ...dynamic.analysis import (
    check_properties,
    maxmin_tight_example,
    maxsum_counterexample,
    strategyproofness_spot_check,
)
from ...dynamic.baselines import waterfill_step_fixed_increment, waterfill_step_sorted
from ...dynamic.cautious import cautious_lp
from ...dynamic.drf import (
    _linear_prefix_block,
    _linear_prefix_state,
    _linear_step,
    _lp_one_step,
    dynamic_drf,
    normalize_demands,
    static_drf_levels,
)
from ...sweep import sweep
from ..ledger import Measurement

__all__ = [
    "random_order_experiment",
    "random_order_runs",
    "order_summary",
    "agreement_runs",
    "strategyproofness_runs",
    "per_step_times",
    "total_times",
    "instance_share_findings",
    "fixed_increment_work",
    "waterfill_baseline_findings",
]

#: the most random orders (samples) per n, random instances per run, agents or trials a driver
#: takes: 100 times the notebook's full sizes; more is a typo that would run for days
MAX_SAMPLES = 100_000
#: the most resources (m) of an instance, and the largest step k or number of arrivals n timed
#: (the notebook's full sizes: m = 2, k and n up to 100,000)
MAX_RESOURCES, MAX_ARRIVALS = 100, 1_000_000
#: the largest m of §4's worked instances (n = m + 1 and n = m² + 1 agents; the notebook: 12)
MAX_EXAMPLE_M = 100
#: the largest numeric scale S of the fixed-increment water-filling (its raises grow with S; the
#: notebook's full run: 10,000)
MAX_SCALE = 100_000.0


def _per_n(
    value: int | Mapping[int, int], ns: list[int], name: str, *, minimum: int
) -> dict[int, int]:
    """``value``, one count for every n or a mapping n → count covering ``ns``, as n → count (each
    from ``minimum`` to :data:`MAX_SAMPLES`)."""
    if isinstance(value, Mapping):
        missing = [n for n in ns if n not in value]
        if missing:
            raise InvalidInputError(f"{name}: no count for n = {missing[0]} (a count per n)")
        extra = [n for n in value if n not in ns]
        if extra:
            # a count for an n the sweep does not run is a typo, not a request
            raise InvalidInputError(
                f"{name}[{extra[0]!r}]: a count for an n not in ns = {ns} (a count per n "
                "of ns, no other)"
            )
        return {
            n: as_count(value[n], f"{name}[{n}]", minimum=minimum, maximum=MAX_SAMPLES) for n in ns
        }
    count = as_count(value, name, minimum=minimum, maximum=MAX_SAMPLES)
    return dict.fromkeys(ns, count)


def _methods(methods: object, known: Iterable[str]) -> tuple[str, ...]:
    """``methods``, a non-empty tuple or list of distinct names among ``known``."""
    methods = as_labels(methods, "methods", allow_empty=False)
    for i, method in enumerate(methods):
        check_choice(method, tuple(known), f"methods[{i}]")
    return methods


def _order_cell(seed, n, order, pool, cautious):
    """One random order: n demands drawn from ``pool`` (the draw depends on (n, order) only),
    dynamic DRF and, when ``cautious``, the cautious LP; per-step ratios to the static benchmark as
    arrays."""
    g = np.random.default_rng(seed)
    d = pool[g.choice(len(pool), size=n, replace=False)]
    k = np.arange(1, n + 1)
    static = static_drf_levels(d, n)
    res = dynamic_drf(d, n, method="waterfill")
    out = {
        "dynamic_drf_maxsum": res.maxsum / (k * static),
        "dynamic_drf_maxmin": res.levels / static,
    }
    if cautious:
        c = cautious_lp(d, n)
        out.update(
            cautious_lp_maxsum=c["maxsum"] / (k * static), cautious_lp_maxmin=c["levels"] / static
        )
    return out


def random_order_runs(
    pool: npt.ArrayLike,
    ns: Iterable[int],
    orders: int | dict[int, int],
    rng: int | np.random.SeedSequence,
    *,
    cautious_orders: int | dict[int, int] | None = None,
    progress: bool = False,
    n_jobs: int | None = None,
    backend: str | None = None,
) -> pd.DataFrame:
    """Kash et al.-style experiment: n demands drawn at random from ``pool`` arrive in random order.

    For each n in ``ns`` and each of ``orders[n]`` (or ``orders``) samples, runs dynamic DRF (and
    the cautious-LP reconstruction [INF] on the first ``cautious_orders[n]`` samples, on the same
    draws) and records, per step k, maxsum and maxmin divided by the static-DRF benchmark (k ẋ^k
    and ẋ^k). Returns one row per (n, order, mechanism, objective, k) with that ``ratio``: the raw
    runs, for plots that show their spread (seaborn's percentile interval); :func:`order_summary`
    aggregates them. Runs on :func:`fairlib.sweep.sweep` (one cell per sample).

    Parameters
    ----------
    pool : array_like, shape (P, m)
        Demand vectors (one per row) the arrivals are drawn from (normalised as dynamic DRF takes
        them).
    ns : iterable of int
        Numbers of agents, each from 1 to P.
    orders : int or dict of int to int
        Samples (random orders) per n, one count for every n or n → count (one for each n of
        ``ns``), each from 1 to :data:`MAX_SAMPLES` (100,000).
    rng : int or numpy.random.SeedSequence
        The sweep's root seed (an integer >= 0 or a SeedSequence); a sample's draw depends on (n,
        order) only.
    cautious_orders : int or dict of int to int, optional
        Samples per n (the first ones) on which the cautious LP also runs, from 0 to
        :data:`MAX_SAMPLES`, as ``orders`` (default none).
    progress : bool, default False
        Show the sweep's progress bar.
    n_jobs : int, optional
        Local processes of the sweep.
    backend : {"serial", "loky", "dask"}, optional
        The sweep's backend.

    Returns
    -------
    pandas.DataFrame
        Columns ``n``, ``order``, ``mechanism``, ``objective``, ``k``, ``ratio``.

    Raises
    ------
    InvalidInputError
        When the pool is not valid demands, an n is not an integer from 1 to the pool's size, a
        count is out of its range, or a seed or sweep option is not one.
    """
    pool = normalize_demands(pool, "pool")
    ns = as_counts(ns, "ns", maximum=len(pool))
    n_orders = _per_n(orders, ns, "orders", minimum=1)
    n_caut = _per_n(
        0 if cautious_orders is None else cautious_orders, ns, "cautious_orders", minimum=0
    )
    grid = [{"n": n, "order": i, "cautious": i < n_caut[n]} for n in ns for i in range(n_orders[n])]
    cells = sweep(
        _order_cell,
        grid,
        rng=rng,
        seed_by=["n", "order"],
        fixed={"pool": pool},
        n_jobs=n_jobs,
        backend=backend,
        progress=progress,
        desc="random orders",
    )
    parts = []
    for n in ns:
        mine = cells[cells.n == n]
        for mech in ("dynamic_drf", "cautious_lp"):
            for obj in ("maxsum", "maxmin"):
                col = f"{mech}_{obj}"
                kept = [
                    (o, v)
                    for o, v in zip(mine.order, mine.get(col, pd.Series(dtype=object)))
                    if isinstance(v, np.ndarray)
                ]
                if not kept:
                    continue
                a = np.vstack([v for _, v in kept])
                parts.append(
                    pd.DataFrame(
                        {
                            "n": n,
                            "order": np.repeat([o for o, _ in kept], n),
                            "mechanism": mech,
                            "objective": obj,
                            "k": np.tile(np.arange(1, n + 1), len(kept)),
                            "ratio": a.ravel(),
                        }
                    )
                )
    columns = list(_RUN_COLUMNS)
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=columns)


#: the columns of :func:`random_order_runs`' table, which :func:`order_summary` reads
_RUN_COLUMNS = ("n", "order", "mechanism", "objective", "k", "ratio")


def order_summary(runs: pd.DataFrame) -> pd.DataFrame:
    """:func:`random_order_runs` per (n, mechanism, objective, k), in that order: the mean ratio
    over the orders, its 10th and 90th percentiles (``q10``, ``q90``) and the number of orders
    (``samples``).

    Parameters
    ----------
    runs : pandas.DataFrame
        :func:`random_order_runs`' rows: columns ``n``, ``order``, ``mechanism``, ``objective``,
        ``k`` and ``ratio`` (numbers >= 0 but the labels), one row per (n, order, mechanism,
        objective, k).

    Returns
    -------
    pandas.DataFrame
        Columns ``n``, ``mechanism``, ``objective``, ``k``, ``mean``, ``q10``, ``q90``, ``samples``.

    Raises
    ------
    InvalidInputError
        When ``runs`` is not such a table (a column missing, not numeric, or a row repeated).
    """
    as_table(runs, "runs", _RUN_COLUMNS, ("n", "order", "k", "ratio"), sign=">= 0")
    rows = []
    for (n, mech, obj), g in runs.groupby(["n", "mechanism", "objective"], sort=False):
        try:
            a = g.pivot(index="order", columns="k", values="ratio").to_numpy()
        except ValueError:  # pandas: an (order, k) pair twice
            raise InvalidInputError(
                f"runs: more than one row for an (order, k) of n = {n}, {mech}, {obj}"
            ) from None
        for j in range(a.shape[1]):
            rows.append(
                {
                    "n": n,
                    "mechanism": mech,
                    "objective": obj,
                    "k": j + 1,
                    "mean": a[:, j].mean(),
                    "q10": np.quantile(a[:, j], 0.1),
                    "q90": np.quantile(a[:, j], 0.9),
                    "samples": a.shape[0],
                }
            )
    return pd.DataFrame(rows)


def random_order_experiment(
    pool: npt.ArrayLike,
    ns: Iterable[int],
    orders: int | dict[int, int],
    rng: int | np.random.SeedSequence,
    *,
    cautious_orders: int | dict[int, int] | None = None,
    progress: bool = False,
    n_jobs: int | None = None,
    backend: str | None = None,
) -> pd.DataFrame:
    """:func:`order_summary` of :func:`random_order_runs` (same arguments): one row per (n,
    mechanism, objective, k) with the mean, 10th and 90th percentiles of the ratio to static DRF,
    and the sample count.

    Parameters
    ----------
    pool : array_like, shape (P, m)
        Demand vectors (one per row) the arrivals are drawn from (normalised as dynamic DRF takes
        them).
    ns : iterable of int
        Numbers of agents, each from 1 to P.
    orders : int or dict of int to int
        Samples (random orders) per n, one count for every n or n → count (one for each n of
        ``ns``), each from 1 to :data:`MAX_SAMPLES` (100,000).
    rng : int or numpy.random.SeedSequence
        The sweep's root seed (an integer >= 0 or a SeedSequence); a sample's draw depends on (n,
        order) only.
    cautious_orders : int or dict of int to int, optional
        Samples per n (the first ones) on which the cautious LP also runs, from 0 to
        :data:`MAX_SAMPLES`, as ``orders`` (default none).
    progress : bool, default False
        Show the sweep's progress bar.
    n_jobs : int, optional
        Local processes of the sweep.
    backend : {"serial", "loky", "dask"}, optional
        The sweep's backend.

    Returns
    -------
    pandas.DataFrame
        :func:`order_summary`'s table.

    Raises
    ------
    InvalidInputError
        When the pool is not valid demands, an n is not an integer from 1 to the pool's size, a
        count is out of its range, or a seed or sweep option is not one.
    """
    return order_summary(
        random_order_runs(
            pool,
            ns,
            orders,
            rng,
            cautious_orders=cautious_orders,
            progress=progress,
            n_jobs=n_jobs,
            backend=backend,
        )
    )


def _agreement_cell(seed, run):
    g = np.random.default_rng(seed)
    K, m = int(g.integers(2, 16)), int(g.integers(1, 5))
    d = g.uniform(0.01, 1.0, size=(K, m))
    if run % 4 == 0:  # ties and equal demands
        d = np.round(d, 1) + 0.1
        d[g.integers(K)] = d[0]
    n = K + int(g.integers(0, 3))
    res = {meth: dynamic_drf(d, n, method=meth) for meth in ("linear", "waterfill", "lp")}
    diff = max(
        np.abs(res["linear"].shares(k) - res[meth].shares(k)).max()
        for meth in ("waterfill", "lp")
        for k in range(1, K + 1)
    )
    rescan = dynamic_drf(d, n, sums="rescan")
    diff = max(
        diff, max(np.abs(res["linear"].shares(k) - rescan.shares(k)).max() for k in range(1, K + 1))
    )
    printed = dynamic_drf(d, n, method="linear", line6="as_printed")
    over = max((printed.used(k) - k / n).max() for k in range(1, K + 1))
    share_err = max(np.abs(printed.shares(k) - res["lp"].shares(k)).max() for k in range(1, K + 1))
    return {
        "agents": K,
        "resources": m,
        "n": n,
        "max_share_difference": diff,
        **check_properties(res["linear"]),
        "printed_capacity_violation": max(over, 0.0),
        "printed_share_error": share_err,
    }


def agreement_runs(
    runs: int,
    rng: int | np.random.SeedSequence,
    *,
    n_jobs: int | None = None,
    backend: str | None = None,
) -> pd.DataFrame:
    """Random small instances (2-15 agents, 1-4 resources, every fourth with ties and repeated
    demand vectors, n = K..K+2): the largest share difference between Algorithm 1 (prefix sums and
    printed loops), water-filling and the LP over every step; SI/DEF/DPO/capacity violations of
    Algorithm 1; and what the printed line 6 does (capacity violation, share error against the LP).
    One row per run.

    Parameters
    ----------
    runs : int
        Number of random instances, from 1 to :data:`MAX_SAMPLES` (100,000).
    rng : int or numpy.random.SeedSequence
        The sweep's root seed (an integer >= 0 or a SeedSequence).
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
        When ``runs`` is out of its range, or a seed or sweep option is not one.
    """
    runs = as_count(runs, "runs", maximum=MAX_SAMPLES)
    return sweep(
        _agreement_cell,
        [{"run": i} for i in range(runs)],
        rng=rng,
        n_jobs=n_jobs,
        backend=backend,
        progress=False,
    ).drop(columns="rep")


def _strategyproofness_cell(seed, agents, resources, trials):
    g = np.random.default_rng(seed)
    demands = g.uniform(0.05, 1, size=(agents, resources))
    return {"largest_gain": strategyproofness_spot_check(demands, rng=g, trials=trials)}


def strategyproofness_runs(
    runs: int,
    rng: int | np.random.SeedSequence,
    *,
    agents: int = 12,
    resources: int = 3,
    trials: int = 10,
    n_jobs: int | None = None,
    backend: str | None = None,
) -> pd.DataFrame:
    """``runs`` random instances, each with ``trials`` random misreports
    (``strategyproofness_spot_check``); one row per instance with the largest gain from lying.

    Parameters
    ----------
    runs : int
        Number of random instances, from 1 to :data:`MAX_SAMPLES` (100,000).
    rng : int or numpy.random.SeedSequence
        The sweep's root seed (an integer >= 0 or a SeedSequence).
    agents : int, default 12
        Agents per instance, from 1 to :data:`MAX_SAMPLES`.
    resources : int, default 3
        Resources per instance, from 1 to :data:`MAX_RESOURCES` (100).
    trials : int, default 10
        Misreports tried per instance, from 1 to :data:`MAX_SAMPLES`.
    n_jobs : int, optional
        Local processes of the sweep.
    backend : {"serial", "loky", "dask"}, optional
        The sweep's backend.

    Returns
    -------
    pandas.DataFrame
        One row per instance.

    Raises
    ------
    InvalidInputError
        When a count is out of its range, or a seed or sweep option is not one.
    """
    runs = as_count(runs, "runs", maximum=MAX_SAMPLES)
    agents = as_count(agents, "agents", maximum=MAX_SAMPLES)
    resources = as_count(resources, "resources", maximum=MAX_RESOURCES)
    trials = as_count(trials, "trials", maximum=MAX_SAMPLES)
    return sweep(
        _strategyproofness_cell,
        [{}],
        seeds=runs,
        rng=rng,
        fixed=dict(agents=agents, resources=resources, trials=trials),
        n_jobs=n_jobs,
        backend=backend,
        progress=False,
    )


def per_step_times(
    ks: Iterable[int],
    *,
    m: int = 2,
    rng: int | np.random.Generator | np.random.SeedSequence | None = None,
    methods: Iterable[str] = ("linear", "linear_rescan", "sorted_waterfill", "lp"),
    lp_max_k: int = 3000,
    repeat: int = 5,
    block: int | None = None,
) -> pd.DataFrame:
    """Median time of one arrival step at each k, kernels called directly (no input validation).

    ``linear``: Algorithm 1 with prefix sums kept across steps — its state carries over from step
    to step, so it is timed over ``block`` consecutive steps from k (state copied afresh each
    repeat, the copy included) and divided by ``block`` (default max(64, k // 16), so the O(k) copy
    stays a small share of the block); ``linear_rescan``: one step of Algorithm 1 with the printed
    O(k m) loops; ``sorted_waterfill``: the sort-based water-filling step; ``lp``: HiGHS on eq. (1)
    (only for k <= ``lp_max_k``); ``waterfill``: the event-driven water-filling, whose cost is
    amortised, reported as (time of K arrivals) / K. Uniform random demands; capacity k/n with n = k
    (n = k + block - 1 for the ``linear`` block). Rows for one k share one demand matrix.

    Column ``work`` (``linear`` and ``linear_rescan``): the element operations of one step, counted
    by the kernel (the ``linear`` block's count divided by ``block``) — deterministic, so the
    complexity claims are tested on it; ``seconds`` depends on the machine and its load and is shown
    beside it.

    Parameters
    ----------
    ks : iterable of int
        The steps timed, each from 1 to :data:`MAX_ARRIVALS` (1,000,000).
    m : int, default 2
        Resources, from 1 to :data:`MAX_RESOURCES` (100).
    rng : int, numpy.random.Generator, numpy.random.SeedSequence or None, optional
        Randomness of the demands.
    methods : tuple or list of str, default ("linear", "linear_rescan", "sorted_waterfill", "lp")
        The methods timed, distinct (see above; ``"waterfill"`` also accepted).
    lp_max_k : int, default 3000
        The largest k the LP is timed at, an integer >= 0.
    repeat : int, default 5
        Samples per median (:func:`fairlib.timing.median_time`), from 1 to
        :data:`fairlib.timing.MAX_SAMPLES` (1,000).
    block : int, optional
        Steps per ``linear`` sample, from 1 to :data:`MAX_ARRIVALS` (default max(64, k // 16)).

    Returns
    -------
    pandas.DataFrame
        One row per (k, method): ``k``, ``method``, ``seconds``, ``work``.

    Raises
    ------
    InvalidInputError
        When a step, count or method is not one, or ``rng`` is not a seed.
    """
    from ...timing import MAX_SAMPLES as MAX_REPEAT, median_time

    ks = as_counts(ks, "ks", maximum=MAX_ARRIVALS)
    m = as_count(m, "m", maximum=MAX_RESOURCES)
    rng = as_rng(rng)
    methods = _methods(methods, ("linear", "linear_rescan", "sorted_waterfill", "lp", "waterfill"))
    lp_max_k = as_count(lp_max_k, "lp_max_k", minimum=0)
    repeat = as_count(repeat, "repeat", maximum=MAX_REPEAT)
    if block is not None:
        block = as_count(block, "block", maximum=MAX_ARRIVALS)
    rows = []
    for k in ks:
        blk = block if block is not None else max(64, k // 16)
        d = normalize_demands(rng.uniform(0.01, 1.0, size=(k + blk - 1, m)))
        prev = dynamic_drf(d[: k - 1], k, method="waterfill").final_shares if k > 1 else np.zeros(0)
        x0 = np.append(prev, 0.0)
        a, b = np.zeros(m), np.zeros(m)
        n_block = k + blk - 1
        x_block, demand_prefix, usage_prefix = _linear_prefix_state(d, k - 1, n_block)

        def linear_block(work=None):
            _linear_prefix_block(
                d,
                x_block.copy(),
                float(n_block),
                demand_prefix,
                usage_prefix.copy(),
                k - 1,
                n_block,
                np.zeros(1, np.int64) if work is None else work,
            )

        counted = {"linear": np.zeros(1, np.int64), "linear_rescan": np.zeros(1, np.int64)}
        linear_block(counted["linear"])
        _linear_step(
            d[:k],
            x0.copy(),
            k - 1,
            float(k),
            True,
            np.zeros(m),
            np.zeros(m),
            counted["linear_rescan"],
        )
        spare = np.zeros(1, np.int64)

        dk = d[:k]
        steps = {
            "linear": linear_block,
            "linear_rescan": lambda: _linear_step(
                dk, x0.copy(), k - 1, float(k), True, a, b, spare
            ),
            "sorted_waterfill": lambda: waterfill_step_sorted(dk, prev, k),
            "lp": lambda: _lp_one_step(dk, prev, k),
            "waterfill": lambda: dynamic_drf(dk, k, method="waterfill"),
        }
        for name in methods:
            if name == "lp" and k > lp_max_k:
                continue
            secs = median_time(steps[name], repeat=repeat if name != "lp" else 3)
            per = {"waterfill": k, "linear": blk}.get(name, 1)
            work = float(counted[name][0]) / per if name in counted else np.nan
            rows.append({"k": k, "method": name, "seconds": secs / per, "work": work})
    return pd.DataFrame(rows)


def total_times(
    ns: Iterable[int],
    *,
    m: int = 2,
    rng: int | np.random.Generator | np.random.SeedSequence | None = None,
    methods: Iterable[str] = ("linear", "linear_rescan", "waterfill"),
) -> pd.DataFrame:
    """Wall time of processing all n arrivals (one run each, after a warm-up on a small instance).
    ``linear_rescan`` is Algorithm 1 with the printed O(k m) loops (``sums="rescan"``). Column
    ``work``: the element operations counted by Algorithm 1's kernel over all steps (NaN for
    water-filling).

    Parameters
    ----------
    ns : iterable of int
        Numbers of arrivals, each from 1 to :data:`MAX_ARRIVALS` (1,000,000).
    m : int, default 2
        Resources, from 1 to :data:`MAX_RESOURCES` (100).
    rng : int, numpy.random.Generator, numpy.random.SeedSequence or None, optional
        Randomness of the demands.
    methods : tuple or list of str, default ("linear", "linear_rescan", "waterfill")
        The methods timed, distinct.

    Returns
    -------
    pandas.DataFrame
        One row per (n, method): ``n``, ``method``, ``seconds``, ``work``.

    Raises
    ------
    InvalidInputError
        When an n, ``m`` or a method is not one, or ``rng`` is not a seed.
    """
    options = {
        "linear": dict(method="linear"),
        "linear_rescan": dict(method="linear", sums="rescan"),
        "waterfill": dict(method="waterfill"),
    }
    ns = as_counts(ns, "ns", maximum=MAX_ARRIVALS)
    m = as_count(m, "m", maximum=MAX_RESOURCES)
    rng = as_rng(rng)
    methods = _methods(methods, options)
    rows = []
    with (
        compiled()
    ):  # compiled kernels at every n, also below the interpreter's size rule (fairlib._jit)
        for method in methods:
            dynamic_drf(rng.uniform(0.1, 1, size=(50, m)), **options[method])
        for n in ns:
            d = rng.uniform(0.01, 1.0, size=(int(n), m))
            for method in methods:
                t0 = time.perf_counter()
                res = dynamic_drf(d, **options[method])
                rows.append(
                    {
                        "n": int(n),
                        "method": method,
                        "seconds": time.perf_counter() - t0,
                        "work": float(res.work) if res.work is not None else np.nan,
                    }
                )
    return pd.DataFrame(rows)


def instance_share_findings(cr1_ms: Iterable[int], cr2_ms: Iterable[int]) -> dict[str, Measurement]:
    """§4's two instances agent by agent (ε = 1e-9): on the n = m + 1 instance (m in ``cr1_ms``)
    the largest distance of the last step's shares from the paper's limits (x_1 = … = x_m →
    m/(m + 1), x_n = x_1/m → 1/(m + 1); static DRF's common share → 1/2), and on the n = m² + 1
    instance (m in ``cr2_ms``) the largest distance of every share at step k = m² from m/(m² + 1).

    Parameters
    ----------
    cr1_ms : iterable of int
        The m of the n = m + 1 instances, each from 1 to :data:`MAX_EXAMPLE_M` (100).
    cr2_ms : iterable of int
        The m of the n = m² + 1 instances, each from 1 to :data:`MAX_EXAMPLE_M`.

    Returns
    -------
    dict of str to Measurement
        ``cr1_individual_shares`` and ``cr2_step_m2_shares``.

    Raises
    ------
    InvalidInputError
        When either is empty or holds anything but integers in that range.
    """
    cr1_ms = as_counts(cr1_ms, "cr1_ms", maximum=MAX_EXAMPLE_M)
    cr2_ms = as_counts(cr2_ms, "cr2_ms", maximum=MAX_EXAMPLE_M)
    dyn_gap, static_gap, step_gap = 0.0, 0.0, 0.0
    for m in cr1_ms:
        d = maxsum_counterexample(int(m))
        x = dynamic_drf(d).shares(int(m) + 1)
        limits = np.append(np.full(int(m), m / (m + 1)), 1 / (m + 1))
        dyn_gap = max(
            dyn_gap, float(np.abs(x - limits).max()), float(abs(x[-1] * m - x[:-1].max()))
        )
        static_gap = max(static_gap, float(abs(static_drf_levels(d)[-1] - 0.5)))
    for m in cr2_ms:
        k = int(m) * int(m)
        step_gap = max(
            step_gap,
            float(np.abs(dynamic_drf(maxmin_tight_example(int(m))).shares(k) - m / (k + 1)).max()),
        )
    cr1_list, cr2_list = (
        ", ".join(str(int(m)) for m in cr1_ms),
        ", ".join(str(int(m)) for m in cr2_ms),
    )
    return {
        "cr1_individual_shares": Measurement(
            max(dyn_gap, static_gap),
            note=f"m = {cr1_list}: largest distance of dynamic DRF's last-step shares from m/(m + "
            "1) (agents 1..m) and 1/(m + 1) (agent n), and of x_n m from x_1: "
            f"{dyn_gap:.2g}; of static DRF's share from 1/2: {static_gap:.2g}",
        ),
        "cr2_step_m2_shares": Measurement(
            step_gap,
            note=f"m = {cr2_list}: largest |x_i^k - m/(m² + 1)| over the k = m² agents at step m²",
        ),
    }


def fixed_increment_work(
    scales: Iterable[float],
    *,
    k: int = 1000,
    m: int = 2,
    rng: int | np.random.Generator | np.random.SeedSequence | None = None,
) -> pd.DataFrame:
    """One arrival step at k (n = k, uniform random demands on 0.01-1, previous shares from the
    exact water-filling) computed by Kash, Procaccia and Shah's water-filling with a fixed increment
    (Li et al.'s [6], :func:`fairlib.dynamic.baselines.waterfill_step_fixed_increment`) at each
    numeric scale S of ``scales``: every resource counted in n S units, shares raised one unit (1/(n
    S)) at a time; and by Algorithm 1 with the printed loops (line 6 corrected), whose work does not
    depend on S. One row per S: ``raises``, counted ``work`` of the fixed-increment step,
    ``alg1_work``, ``gap`` (exact level minus the fixed-increment minimum share).

    Parameters
    ----------
    scales : iterable of float
        The numeric scales S, each from 1 to :data:`MAX_SCALE` (100,000) units per fair share.
    k : int, default 1000
        The step, from 1 to :data:`MAX_ARRIVALS` (1,000,000).
    m : int, default 2
        Resources, from 1 to :data:`MAX_RESOURCES` (100).
    rng : int, numpy.random.Generator, numpy.random.SeedSequence or None, optional
        Randomness of the demands.

    Returns
    -------
    pandas.DataFrame
        One row per S (see above).

    Raises
    ------
    InvalidInputError
        When a scale, ``k`` or ``m`` is out of its range, or ``rng`` is not a seed.
    """
    scales = as_values(cast("npt.ArrayLike", scales), "scales", ndim=1, sign="> 0")
    if scales.size == 0:
        raise InvalidInputError("scales: empty (at least one scale S)")
    for i, scale in enumerate(scales):
        as_number(float(scale), f"scales[{i}]", minimum=1.0, inclusive=True, maximum=MAX_SCALE)
    k = as_count(k, "k", maximum=MAX_ARRIVALS)
    m = as_count(m, "m", maximum=MAX_RESOURCES)
    rng = as_rng(rng)
    d = normalize_demands(rng.uniform(0.01, 1.0, size=(k, m)))
    prev = dynamic_drf(d[: k - 1], k, method="waterfill").final_shares if k > 1 else np.zeros(0)
    exact = dynamic_drf(d, k, method="waterfill").final_shares
    counted = np.zeros(1, np.int64)
    _linear_step(d, np.append(prev, 0.0), k - 1, float(k), True, np.zeros(m), np.zeros(m), counted)
    rows = []
    for scale in scales:
        x, raises, work = waterfill_step_fixed_increment(d, prev, k, 1.0 / (k * float(scale)))
        rows.append(
            {
                "scale": float(scale),
                "k": k,
                "raises": raises,
                "work": float(work),
                "alg1_work": float(counted[0]),
                "gap": float(exact.min() - x.min()),
            }
        )
    return pd.DataFrame(rows)


#: the columns of :func:`fixed_increment_work`'s table that :func:`waterfill_baseline_findings`
#: reads
_FIXED_COLUMNS = ("scale", "k", "raises", "work", "alg1_work")


def waterfill_baseline_findings(
    fixed: pd.DataFrame, per_step: pd.DataFrame, *, ks: Iterable[int] = (3000, 10000)
) -> dict[str, Measurement]:
    """Algorithm 1 against the water-fillings: [6]'s fixed increment (:func:`fixed_increment_work`:
    raises and the work ratio to Algorithm 1 against the numeric scale) and our exact event-driven
    one, the fastest we have (:func:`per_step_times` rows ``linear`` and ``waterfill``: wall-time
    ratio event-driven / Algorithm 1 at ``ks``).

    Parameters
    ----------
    fixed : pandas.DataFrame
        :func:`fixed_increment_work`'s rows, two scales or more (columns ``scale``, ``k``,
        ``raises``, ``work``, ``alg1_work``, numbers >= 0).
    per_step : pandas.DataFrame
        :func:`per_step_times`' rows, with ``linear`` and ``waterfill`` at each of ``ks`` (columns
        ``k``, ``method``, ``seconds``; one row per (k, method)).
    ks : iterable of int, default (3000, 10000)
        The steps compared, each from 1 to :data:`MAX_ARRIVALS`.

    Returns
    -------
    dict of str to Measurement
        Claim id → measurement.

    Raises
    ------
    InvalidInputError
        When a table lacks a column it reads or holds anything but numbers >= 0 there, ``fixed``
        has fewer than two scales, ``per_step`` repeats a (k, method) or lacks a time at one of
        ``ks``, or a step of ``ks`` is out of range.
    """
    from ..plotting import log_log_slope

    as_table(fixed, "fixed", _FIXED_COLUMNS, _FIXED_COLUMNS, sign=">= 0")
    as_table(per_step, "per_step", ("k", "method", "seconds"), ("k", "seconds"), sign=">= 0")
    ks = as_counts(ks, "ks", maximum=MAX_ARRIVALS)
    if len(fixed) < 2:
        raise InvalidInputError(f"fixed: needs two scales or more, has {len(fixed)}")
    fixed = fixed.sort_values("scale")
    slope = float(log_log_slope(fixed.scale, fixed.raises.clip(lower=1)))
    ratio = (fixed.work / fixed.alg1_work).tolist()
    cross = fixed.scale[fixed.work > fixed.alg1_work]
    try:
        per_k = per_step.pivot(index="k", columns="method", values="seconds")
    except ValueError:  # pandas: a (k, method) twice
        raise InvalidInputError("per_step: more than one row for a (k, method)") from None
    missing = [
        kk
        for kk in ks
        if kk not in per_k.index or not {"linear", "waterfill"} <= set(per_k.columns)
    ]
    if missing:
        raise InvalidInputError(f"per_step: needs 'linear' and 'waterfill' times at k = {missing}")
    event = [float(per_k.loc[kk, "waterfill"] / per_k.loc[kk, "linear"]) for kk in ks]
    scales = ", ".join(f"{s:,.0f}" for s in fixed.scale)
    return {
        "waterfill_pseudo_polynomial": Measurement(
            slope,
            note=f"raises of one fixed-increment step at k = {int(fixed.k.iloc[0]):,} for S = "
            f"{scales} units per fair share: {', '.join(str(int(r)) for r in fixed.raises)} "
            f"(log-log slope {slope:.2f})",
        ),
        "linear_improves_on_fixed_increment_waterfill": Measurement(
            ratio,
            note="counted work of the fixed-increment step over Algorithm 1's (printed loops) "
            f"for S = {scales}: "
            + ", ".join(f"{r:.3g}" for r in ratio)
            + (f"; above 1 from S = {cross.iloc[0]:,.0f}" if len(cross) else "; never above 1"),
        ),
        "linear_vs_event_waterfill": Measurement(
            event,
            note="wall time of one event-driven water-filling step (amortised) over one Algorithm "
            "1 step (prefix sums): "
            + ", ".join(f"{r:.2f} at k = {kk:,}" for r, kk in zip(event, ks)),
        ),
    }
