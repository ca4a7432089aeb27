"""Properties of a *mechanism*, not of one allocation: run a registered mechanism (or any callable
``cluster -> Allocation``) and check what its allocations satisfy.

:func:`mechanism_properties` runs it on a pool or a cluster and measures sharing incentive,
envy-freeness, Pareto optimality and bottleneck fairness
(:func:`fairlib.multires.property_violations`, which checks one allocation) and, if asked,
strategy-proofness by a search over misreports (:func:`strategyproofness_violation`). This module
sits above the registry (:mod:`fairlib.mechanisms`), which sits above the mechanisms themselves, so
it is the layer where a name such as ``"drfh"`` is resolved; nothing in :mod:`fairlib.multires`
imports the registry.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ._validate import InvalidInputError, Seed, as_flag, as_instance, as_rng
from .mechanisms import resolve
from .multires import Allocation, Cluster, leontief_tasks, misreports, property_violations
from .multires.cluster import _checked_run

__all__ = ["mechanism_properties", "strategyproofness_violation"]


def _resolve(mechanism):
    if mechanism is None:
        raise InvalidInputError(
            "mechanism: expected a registered name or a callable Cluster -> Allocation, got None"
        )
    return resolve(mechanism)


def _run(mechanism, cluster: Cluster) -> np.ndarray:
    return _checked_run(mechanism, cluster).tasks


def strategyproofness_violation(
    mechanism: str | Callable[[Cluster], Allocation],
    cluster: Cluster,
    *,
    n_random: int = 8,
    rng: Seed | None = 0,
) -> float:
    """The largest relative gain any user gets by misreporting its demand, found by search.

    max over users n and :func:`~fairlib.multires.misreports` d' of (true tasks with the misreported
    allocation - x_n) / x_n. With demand d' reported, user n receives x'[n, i] tasks of d' on server
    i; with its true demand d it runs min_{r: d_r > 0} d'_r / d_r of its own tasks per task of d'
    (:func:`fairlib.multires.leontief_tasks`), rounded down per server when the mechanism allocates
    whole tasks.

    Parameters
    ----------
    mechanism : str or callable
        A registered mechanism's name or a callable ``cluster -> Allocation``.
    cluster : Cluster
        The pool (one server) or cluster, with the users' true demands.
    n_random : int, default 8
        Random misreports tried per user on top of the structured ones
        (:func:`~fairlib.multires.misreports`).
    rng : int, numpy.random.Generator or None, default 0
        Seed of the random misreports; None: fresh OS entropy, a different draw on every call (pass
        an integer to repeat it).

    Returns
    -------
    float
        > 0 means some user gains by lying; <= 0 is evidence of strategy-proofness on this instance,
        not proof.

    Raises
    ------
    InvalidInputError
        When ``cluster`` is not a Cluster, ``mechanism`` is neither a registered name nor a
        callable, or the mechanism returns something other than an Allocation.
    """
    as_instance(cluster, Cluster, "cluster")
    mech = _resolve(mechanism)
    rng = as_rng(rng)  # before the mechanism runs: a bad seed costs no run
    truthful = _run(mech, cluster)
    integral = np.issubdtype(truthful.dtype, np.integer)
    honest = truthful.sum(axis=1).astype(np.float64)
    worst = -np.inf
    for n in range(cluster.n_users):
        for lie in misreports(cluster.demand[n], rng, n_random):
            demand = cluster.demand.copy()
            demand[n] = lie
            lied = Cluster(
                cluster.capacity,
                demand,
                weight=cluster.weight,
                eligible=cluster.eligible,
                max_tasks=cluster.max_tasks,
            )
            per_task = float(leontief_tasks(lie, cluster.demand[n]))
            got = _run(mech, lied)[n] * per_task
            value = float((np.floor(got + 1e-9) if integral else got).sum())
            worst = max(worst, (value - honest[n]) / max(honest[n], 1e-300))
    return float(worst)


def mechanism_properties(
    mechanism: str | Callable[[Cluster], Allocation],
    cluster: Cluster,
    *,
    strategyproofness: bool = True,
    n_random: int = 8,
    rng: Seed | None = 0,
) -> dict[str, float]:
    """Run ``mechanism`` on ``cluster`` and check SI, EF, PO, BF and, if asked, strategy-proofness
    by search ("SP").

    Parameters
    ----------
    mechanism : str or callable
        A registered mechanism's name or a callable ``cluster -> Allocation``.
    cluster : Cluster
        A pool (one server) or a cluster.
    strategyproofness : bool, default True
        Whether to search for profitable misreports (:func:`strategyproofness_violation`; the slow
        part).
    n_random : int, default 8
        Random misreports tried per user in that search.
    rng : int, numpy.random.Generator or None, default 0
        Seed of the random misreports; None: fresh OS entropy, a different draw on every call (pass
        an integer to repeat it).

    Returns
    -------
    dict of str to float
        Property -> violation (:func:`fairlib.multires.property_violations`, plus ``"SP"``): <= 0
        (or within a tolerance) means the property holds, NaN that it says nothing here (BF without
        bottlenecks).

    Raises
    ------
    InvalidInputError
        When ``cluster`` is not a Cluster, ``mechanism`` is neither a registered name nor a
        callable, or the mechanism returns something other than an Allocation.
    """
    strategyproofness = as_flag(strategyproofness, "strategyproofness")
    as_instance(cluster, Cluster, "cluster")
    mech = _resolve(mechanism)
    out = property_violations(cluster, _run(mech, cluster))
    if strategyproofness:
        out["SP"] = strategyproofness_violation(mech, cluster, n_random=n_random, rng=rng)
    return out
