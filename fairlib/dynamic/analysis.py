"""Competitive ratios, worst-case instances and property checks for dynamic DRF (Li et al. §2,
§4)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike

from .._validate import (
    InvalidInputError,
    Seed,
    as_count,
    as_instance,
    as_number,
    as_rng,
    as_tolerance,
    check_drawn,
)
from .drf import DynamicDRFResult, dynamic_drf, normalize_demands, static_drf_levels

__all__ = [
    "competitive_ratios",
    "maxsum_counterexample",
    "maxmin_tight_example",
    "check_properties",
    "strategyproofness_spot_check",
]


def competitive_ratios(result: DynamicDRFResult) -> dict[str, object]:
    """Per-step objective ratios of a dynamic DRF run against the static DRF benchmark ẋ^k.

    Parameters
    ----------
    result : DynamicDRFResult
        The run (:func:`~fairlib.dynamic.dynamic_drf`).

    Returns
    -------
    dict
        Arrays of shape (K,) over steps k = 1..K: ``maxsum`` (sum of shares), ``maxmin`` (min share
        = M^k by Lemma 2), ``static`` (ẋ^k), ``cr1`` = maxsum / (k ẋ^k) and ``cr2`` = M^k /
        ẋ^k; and floats ``CR1``, ``CR2``, their minima over steps.

    Raises
    ------
    InvalidInputError
        When ``result`` is not a DynamicDRFResult.

    References
    ----------
    .. [1] W. Li, X. Liu, X. Zhang, X. Zhang, "A note on dynamic fair division of multiple
       resources", arXiv preprint arXiv:1509.07935, 2019, §2, §4.
    """
    as_instance(result, DynamicDRFResult, "result")
    static = static_drf_levels(result.demands, result.n)
    k = np.arange(1, result.n_steps + 1)
    cr1 = result.maxsum / (k * static)
    cr2 = result.levels / static
    return {
        "maxsum": result.maxsum,
        "maxmin": result.levels,
        "static": static,
        "cr1": cr1,
        "cr2": cr2,
        "CR1": float(cr1.min()),
        "CR2": float(cr2.min()),
    }


def _unit_types(m: int, eps: float) -> np.ndarray:
    # m is checked by both callers (maxmin_tight_example caps it); eps only here
    as_number(eps, "eps", maximum=0.5)
    types = np.full((m, m), eps)
    np.fill_diagonal(types, 1.0)
    return types


def maxsum_counterexample(m: int, eps: float = 1e-9) -> npt.NDArray[np.float64]:
    """The maxsum counterexample: n = m + 1 agents, d_i = e_i (ε elsewhere) for i <= m, d_{m+1} =
    (1, ..., 1).

    Dynamic DRF ends with sum of shares -> (m^2 + 1)/(m + 1), static DRF with (m + 1)/2.

    Parameters
    ----------
    m : int
        Number of resources, >= 1.
    eps : float, default 1e-9
        The small demand ε, in (0, 0.5].

    Returns
    -------
    numpy.ndarray
        Float64 demands, shape (m + 1, m), in arrival order.

    Raises
    ------
    InvalidInputError
        On ``m`` below 1 or ``eps`` out of range, or an array of more than
        :data:`~fairlib._validate.MAX_DRAWN` (10**8) numbers.

    References
    ----------
    .. [1] W. Li, X. Liu, X. Zhang, X. Zhang, "A note on dynamic fair division of multiple
       resources", arXiv preprint arXiv:1509.07935, 2019, §4.
    """
    m = as_count(m, "m")
    check_drawn(("(m + 1)", m + 1), ("m", m))
    return np.vstack([_unit_types(m, eps), np.ones((1, m))])


def maxmin_tight_example(m: int, eps: float = 1e-9) -> npt.NDArray[np.float64]:
    """The tight maxmin instance: n = m^2 + 1 agents cycling through the m unit-dominant types (ε
    elsewhere).

    Any DPO mechanism gives the last agent <= 1/(m^2 + 1); static DRF gives 1/(m + 1).

    Parameters
    ----------
    m : int
        Number of resources, in [1, 2^31].
    eps : float, default 1e-9
        The small demand ε, in (0, 0.5].

    Returns
    -------
    numpy.ndarray
        Float64 demands, shape (m^2 + 1, m), in arrival order.

    Raises
    ------
    InvalidInputError
        On ``m`` out of range or ``eps`` out of range, or an array of more than
        :data:`~fairlib._validate.MAX_DRAWN` (10**8) numbers.

    References
    ----------
    .. [1] W. Li, X. Liu, X. Zhang, X. Zhang, "A note on dynamic fair division of multiple
       resources", arXiv preprint arXiv:1509.07935, 2019, Theorem 2.
    """
    m = as_count(m, "m", maximum=2**31)  # n = m^2 + 1 agents
    n = m * m + 1
    check_drawn(("(m^2 + 1)", n), ("m", m))
    return _unit_types(m, eps)[np.arange(n) % m]


def check_properties(result: DynamicDRFResult, *, tol: float = 1e-9) -> dict[str, object]:
    """Largest violation of SI, DEF and DPO over every step (0 means the property holds).

    - SI: x_i^k >= 1/n for every present agent.
    - DEF: if x_j^k > x_i^k then j < i and x_j^k = x_j^{i-1}.
    - DPO: some resource is fully used, max_r sum_i x_i^k d_ir = k/n.
    - capacity: sum_i x_i^k d_ir <= k/n.

    Cost O(K^2 m + K^3) for the DEF check: meant for K up to a few hundred.

    Parameters
    ----------
    result : DynamicDRFResult
        The run, at most 2000 steps.
    tol : float, default 1e-9
        Violations up to ``tol`` count as holding: 0 (exact) or from 1e-15 to 0.1.

    Returns
    -------
    dict
        ``"SI"``, ``"DEF"``, ``"DPO"``, ``"capacity"``: the largest violation of each (float, >= 0),
        and ``"holds"``: whether all are within ``tol``.

    Raises
    ------
    InvalidInputError
        When ``result`` is not a DynamicDRFResult, ``tol`` is invalid, or the run has more than 2000
        steps.

    References
    ----------
    .. [1] W. Li, X. Liu, X. Zhang, X. Zhang, "A note on dynamic fair division of multiple
       resources", arXiv preprint arXiv:1509.07935, 2019, §2.
    """
    as_instance(result, DynamicDRFResult, "result")
    tol = as_tolerance(tol, "tol", zero=True)
    K, n = result.n_steps, result.n
    if K > 2000:
        raise InvalidInputError(
            f"check_properties: {K} steps is too many for the O(K^3) DEF check (<= 2000)"
        )
    X = result.dense_shares()
    si = dpo = cap = defv = 0.0
    for k in range(1, K + 1):
        x = X[k - 1, :k]
        si = max(si, float(np.max(1.0 / n - x)))
        used = x @ result.demands[:k]
        cap = max(cap, float(np.max(used - k / n)))
        dpo = max(dpo, float(k / n - used.max()))
        # DEF: for each envied pair (x_j > x_i + tol) need j < i and x_j^k == x_j^{i-1}
        for i in range(k):
            envied = np.flatnonzero(x > x[i] + tol)
            if envied.size == 0:
                continue
            if (envied > i).any():
                defv = max(defv, float(x[envied[envied > i]].max() - x[i]))
            earlier = envied[envied < i]
            if i >= 1 and earlier.size:
                defv = max(defv, float(np.abs(x[earlier] - X[i - 1, earlier]).max()))
    return {
        "SI": max(si, 0.0),
        "DEF": defv,
        "DPO": max(dpo, 0.0),
        "capacity": max(cap, 0.0),
        "holds": bool(si <= tol and defv <= tol and dpo <= tol and cap <= tol),
    }


def strategyproofness_spot_check(
    demands: ArrayLike,
    n: int | None = None,
    *,
    rng: Seed | None = None,
    trials: int = 20,
    method: str = "waterfill",
) -> float:
    """Largest gain any agent gets by misreporting, over ``trials`` random (agent, lie) pairs.

    An agent's utility under Leontief preferences is the number of its tasks it can run: x'_i min_r
    (d'_ir / d_ir) with reported d' and true d (both normalised). Strategy-proofness means the gain
    is <= 0 at every step.

    Parameters
    ----------
    demands : array_like
        Shape (K, m): true demands in arrival order, >= 0 with no all-zero row.
    n : int or None, default None
        The number of agents planned for, >= K; None: K.
    rng : int, numpy.random.Generator or None, default None
        Seed of the random agents and lies; None: fresh OS entropy, a different draw on every call
        (pass an integer to repeat it).
    trials : int, default 20
        Number of (agent, lie) pairs tried, >= 1.
    method : {"waterfill", "linear", "lp"}, default "waterfill"
        The :func:`~fairlib.dynamic.dynamic_drf` method run.

    Returns
    -------
    float
        The largest gain seen (<= ~1e-12 when SP holds on these trials).

    Raises
    ------
    InvalidInputError
        On invalid demands, ``n``, seed, ``trials`` or method.
    """
    trials = as_count(trials, "trials")
    rng = as_rng(rng)
    d = normalize_demands(demands)
    K = d.shape[0]
    truthful = dynamic_drf(d, n, method=method)
    worst = -np.inf
    for _ in range(trials):
        i = int(rng.integers(K))
        lie = d.copy()
        lie[i] = rng.uniform(0.05, 1.0, size=d.shape[1]) ** rng.uniform(0.2, 3.0)
        lie[i] /= lie[i].max()
        other = dynamic_drf(lie, n, method=method)
        ratio = np.min(lie[i] / d[i])
        for k in range(i + 1, K + 1):
            gain = other.shares(k)[i] * ratio - truthful.shares(k)[i]
            worst = max(worst, float(gain))
    return worst
