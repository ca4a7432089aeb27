"""Dynamic DRF (Kash, Procaccia, Shah 2014; Li, Liu, Zhang, Zhang): agents arrive one per step.

At step k the k present agents share k/n of every (unit) resource. Dynamic DRF raises the lowest
dominant shares together until some resource reaches k/n, never taking anything back; equivalently
it solves LP (1) of Li et al. at every step. By Lemma 1, ``x_i^k = max(M^k, x_i^{k-1})``, and the
new agent sits at the level, so the whole history follows from the levels alone:
``x_i^k = max(M^i, ..., M^k)``. Results therefore store the levels M^k (O(n) memory) and rebuild any
step's shares on demand.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike

from .._jit import interpreted_when_small, njit
from .._validate import (
    InvalidInputError,
    _short,
    as_count,
    as_demands,
    as_real_array,
    check_choice,
    result_type,
    as_text,
)

__all__ = [
    "dynamic_drf",
    "dynamic_drf_step",
    "DynamicDRFResult",
    "METHODS",
    "normalize_demands",
    "static_drf_levels",
    "suffix_max_shares",
]

METHODS = ("linear", "waterfill", "lp")
_DENSE_LIMIT = 5000


def normalize_demands(demands: ArrayLike, name: str = "demands") -> npt.NDArray[np.float64]:
    """Validate and scale each row so its largest entry is 1: d_ir = D_ir / max_r D_ir.

    Parameters
    ----------
    demands : array_like
        Shape (K, m): per-task demands, >= 0 with no all-zero row.
    name : str, default "demands"
        The argument's name, used in error messages.

    Returns
    -------
    numpy.ndarray
        Float64, shape (K, m), every row's largest entry 1.

    Raises
    ------
    InvalidInputError
        On invalid demands or a ``name`` that is not a str.

    References
    ----------
    .. [1] W. Li, X. Liu, X. Zhang, X. Zhang, "A note on dynamic fair division of multiple
       resources", arXiv preprint arXiv:1509.07935, 2019, §2.

    Examples
    --------
    >>> normalize_demands([[2, 1], [1, 4]]).tolist()
    [[1.0, 0.5], [0.25, 1.0]]
    """
    as_text(name, "name", what="the argument's name, shown in messages")
    d = as_demands(demands, name)
    return d / d.max(axis=1, keepdims=True)


@njit(cache=True)
def suffix_max_shares(levels, k):
    """Shares x_i^k = max(levels[i..k-1]) of the first k agents (0-based agents, step k >= 1).

    Parameters
    ----------
    levels : float64[:]
        The levels M^1..M^K, shape (K,).
    k : int
        The step, 1 <= k <= K.

    Returns
    -------
    float64[:]
        The shares, shape (k,).
    """
    out = np.empty(k)
    run = 0.0
    for i in range(k - 1, -1, -1):
        if levels[i] > run:
            run = levels[i]
        out[i] = run
    return out


@result_type
@dataclass(frozen=True, eq=False)
class DynamicDRFResult:
    """Dynamic DRF over all arrival steps.

    Parameters
    ----------
    demands : numpy.ndarray
        Shape (K, m): normalised demands (row max 1), in arrival order.
    n : int
        The number of agents the mechanism plans for (capacity at step k is k/n).
    levels : numpy.ndarray
        Shape (K,): M^k, the level of step k = 1..K (the newest agent's share, the minimum share).
    split : numpy.ndarray
        Shape (K,), int64: τ^k as a 0-based agent index: agents ``i >= split[k-1]`` sit at M^k (on
        exact ties, where an earlier agent already held M^k, methods may place τ differently).
    maxsum : numpy.ndarray
        Shape (K,): the sum of the present agents' dominant shares after each step.
    final_shares : numpy.ndarray
        Shape (K,): x_i^K.
    method : str
        The method that computed it: ``"linear"``, ``"waterfill"`` or ``"lp"``.
    step_shares : list of numpy.ndarray or None, default None
        Every step's shares as computed by the method itself (``method="lp"`` only; the others
        rebuild them from ``levels``).
    work : int or None, default None
        Element operations Algorithm 1 did over all steps (one per demand entry, share or prefix-sum
        row entry visited; ``method="linear"`` only): the counted work behind its complexity, the
        same on every machine and under any load.
    """

    demands: np.ndarray
    n: int
    levels: np.ndarray
    split: np.ndarray
    maxsum: np.ndarray
    final_shares: np.ndarray
    method: str
    step_shares: list | None = field(default=None, repr=False)
    work: int | None = None

    @property
    def n_steps(self) -> int:
        """Number of arrivals (steps) the result covers."""
        return len(self.levels)

    def _check_step(self, k: int) -> int:
        k = as_count(k, "k")
        if not 1 <= k <= self.n_steps:
            raise InvalidInputError(f"k = {k}: steps run from 1 to {self.n_steps}")
        return int(k)

    def shares(self, k: int) -> npt.NDArray[np.float64]:
        """Dominant shares (x_1^k, ..., x_k^k) after step k.

        Parameters
        ----------
        k : int
            The step, 1-based, from 1 to ``n_steps``.

        Returns
        -------
        numpy.ndarray
            Float64, shape (k,).

        Raises
        ------
        InvalidInputError
            When ``k`` is not an integer in [1, n_steps].
        """
        k = self._check_step(k)
        if self.step_shares is not None:
            return self.step_shares[k - 1].copy()
        return suffix_max_shares(self.levels, k)

    def allocation(self, k: int) -> npt.NDArray[np.float64]:
        """Allocation A^k[i, r] = x_i^k d_ir of the first k agents.

        Parameters
        ----------
        k : int
            The step, 1-based, from 1 to ``n_steps``.

        Returns
        -------
        numpy.ndarray
            Float64, shape (k, m): agents x resources, in units of the (unit) capacity.

        Raises
        ------
        InvalidInputError
            When ``k`` is not an integer in [1, n_steps].
        """
        return self.shares(k)[:, None] * self.demands[:k]

    def used(self, k: int) -> npt.NDArray[np.float64]:
        """Resources in use after step k (each must be <= k/n).

        Parameters
        ----------
        k : int
            The step, 1-based, from 1 to ``n_steps``.

        Returns
        -------
        numpy.ndarray
            Float64, shape (m,).

        Raises
        ------
        InvalidInputError
            When ``k`` is not an integer in [1, n_steps].
        """
        return self.shares(k) @ self.demands[:k]

    def dense_shares(self) -> npt.NDArray[np.float64]:
        """The lower-triangular matrix X[k-1, i] = x_i^k (small instances only: K^2 memory).

        Returns
        -------
        numpy.ndarray
            Float64, shape (K, K).

        Raises
        ------
        InvalidInputError
            When there are more than 5000 steps.
        """
        if self.n_steps > _DENSE_LIMIT:
            raise InvalidInputError(
                f"dense_shares: {self.n_steps} steps need {self.n_steps}^2 floats; "
                f"limited to {_DENSE_LIMIT} steps (use shares(k))"
            )
        out = np.zeros((self.n_steps, self.n_steps))
        for k in range(1, self.n_steps + 1):
            out[k - 1, :k] = self.shares(k)
        return out


# --- linear: Li et al., Algorithm 1 ---------------------------------------------------------------


@njit(cache=True)
def _fits(alpha, beta, x, cap):
    """Whether alpha[r] + beta[r] x <= cap for every resource r (the binary search's test of
    Algorithm 1).

    Parameters
    ----------
    alpha : float64[:]
        Shape (m,): usage of the agents kept at their shares.
    beta : float64[:]
        Shape (m,): demand of the agents raised to ``x``.
    x : float
        The share tested.
    cap : float
        The step's capacity k/n.
    """
    for r in range(alpha.shape[0]):
        if alpha[r] + beta[r] * x > cap:
            return False
    return True


@njit(cache=True)
def _linear_step(d, x, k, n, corrected_line6, alpha, beta, work):
    """One step of Algorithm 1 (0-based: agents 0..k present, x[k] = 0 on entry); updates x in
    place.

    ``work[0]`` is increased by the element operations done (one per d[i, r] or x[i] visited): the
    counted work behind the O(k m) per-step claim, independent of the machine and its load.
    Returns (level M, split τ as 0-based index, sum of shares).

    Parameters
    ----------
    d : float64[:, :]
        Normalised demands, shape (K, m), one row per agent in arrival order.
    x : float64[:]
        Shares, shape (K,) (the present agents' first); updated in place.
    k : int
        The 0-based index of the arriving agent (agents 0..k are present).
    n : float
        The number of agents planned for (capacity (k+1)/n at 0-based step k).
    corrected_line6 : bool
        Whether line 6 uses the corrected test (False: as printed).
    alpha : float64[:]
        Shape (m,): scratch for α_r.
    beta : float64[:]
        Shape (m,): scratch for β_r.
    work : int64[:]
        Shape (1,): ``work[0]`` accumulates the element operations done.
    """
    m = d.shape[1]
    cap = (k + 1) / n
    # line 6: can every present agent be raised to the largest previous share x_1^{k-1}?
    work[0] += m * (k + 1)
    for r in range(m):
        alpha[r] = 0.0
        beta[r] = 0.0
        for i in range(k + 1):
            beta[r] += d[i, r]
    if corrected_line6:
        ok = _fits(alpha, beta, x[0], cap)
    else:  # as printed: sum_i d_ir x_i^{k-1} <= k/n, always true (x_k^{k-1} = 0)
        ok = True
        work[0] += m * (k + 1)
        for r in range(m):
            s = 0.0
            for i in range(k + 1):
                s += d[i, r] * x[i]
            if s > cap:
                ok = False
    tau = 0
    if not ok:
        # lines 9-19: binary search on the split, alpha/beta updated incrementally (0-based LB/UB);
        # invariant: the test fails at lb and holds at ub; tau = ceil((lb + ub) / 2) ends equal to
        # ub
        lb, ub = 0, k
        tau = (lb + ub + 1) // 2
        work[0] += m * (k + 1)
        for r in range(m):
            alpha[r] = 0.0
            beta[r] = 0.0
            for i in range(tau):
                alpha[r] += d[i, r] * x[i]
            for i in range(tau, k + 1):
                beta[r] += d[i, r]
        while ub - lb > 1:
            work[0] += m
            if _fits(alpha, beta, x[tau], cap):
                ub = tau
                tau = (lb + ub + 1) // 2
                work[0] += m * (ub - tau)
                for r in range(m):
                    for i in range(tau, ub):
                        alpha[r] -= d[i, r] * x[i]
                        beta[r] += d[i, r]
            else:
                lb = tau
                tau = (lb + ub + 1) // 2
                work[0] += m * (tau - lb)
                for r in range(m):
                    for i in range(lb, tau):
                        alpha[r] += d[i, r] * x[i]
                        beta[r] -= d[i, r]
    level = np.inf
    for r in range(m):
        if beta[r] > 0.0:
            level = min(level, (cap - alpha[r]) / beta[r])
    total = 0.0
    work[0] += m + k + 1
    for i in range(k + 1):
        if level > x[i]:
            x[i] = level
        total += x[i]
    return level, tau, total


@njit(cache=True)
def _linear_step_prefix(d, x, k, n, corrected_line6, demand_prefix, usage_prefix, work):
    """One step of Algorithm 1 with its sums read off prefix sums kept across steps.

    ``demand_prefix[t, r] = sum_{i<t} d_ir`` (fixed once agent t - 1 has arrived) and
    ``usage_prefix[t, r] = sum_{i<t} d_ir x_i`` (valid for t <= k on entry). Then line 6's
    ``sum_{i<=k} d_ir`` and the α_r = sum_{i<τ} d_ir x_i, β_r = sum_{i>=τ} d_ir of lines 9-19
    are O(m) reads, and the binary search visits the same τ as the printed loops. Agents before τ
    keep shares above the level (the test fails at τ - 1), so only the suffix i >= τ changes, and
    only its prefix rows are rebuilt: O(m log k + m (k - τ)) per step instead of O(m k).
    ``work[0]`` is increased by the element operations done (as in ``_linear_step``).

    Returns (level M, split τ as 0-based index, change in the sum of shares).

    Parameters
    ----------
    d : float64[:, :]
        Normalised demands, shape (K, m), one row per agent in arrival order.
    x : float64[:]
        Shares, shape (K,) (the present agents' first); updated in place.
    k : int
        The 0-based index of the arriving agent (agents 0..k are present).
    n : float
        The number of agents planned for (capacity (k+1)/n at 0-based step k).
    corrected_line6 : bool
        Whether line 6 uses the corrected test (False: as printed).
    demand_prefix : float64[:, :]
        Shape (K+1, m): ``demand_prefix[t, r] = sum_{i<t} d_ir``; row k+1 written here.
    usage_prefix : float64[:, :]
        Shape (K+1, m): ``usage_prefix[t, r] = sum_{i<t} d_ir x_i``; the rows from τ+1 rebuilt
        here.
    work : int64[:]
        Shape (1,): ``work[0]`` accumulates the element operations done.
    """
    m = d.shape[1]
    cap = (k + 1) / n
    work[0] += 2 * m
    for r in range(m):
        demand_prefix[k + 1, r] = demand_prefix[k, r] + d[k, r]
        usage_prefix[k + 1, r] = usage_prefix[k, r]  # x_k = 0 on entry
    ok = True
    if corrected_line6:
        for r in range(m):
            if demand_prefix[k + 1, r] * x[0] > cap:
                ok = False
    else:  # as printed: sum_i d_ir x_i^{k-1} <= k/n, always true (x_k^{k-1} = 0)
        for r in range(m):
            if usage_prefix[k + 1, r] > cap:
                ok = False
    tau = 0
    if not ok:
        lb, ub = 0, k  # the test fails at lb and holds at ub
        while ub - lb > 1:
            tau = (lb + ub + 1) // 2
            work[0] += m
            fits = True
            for r in range(m):
                if (
                    usage_prefix[tau, r]
                    + (demand_prefix[k + 1, r] - demand_prefix[tau, r]) * x[tau]
                    > cap
                ):
                    fits = False
                    break
            if fits:
                ub = tau
            else:
                lb = tau
        tau = ub
    level = np.inf
    for r in range(m):
        beta = demand_prefix[k + 1, r] - demand_prefix[tau, r]
        if beta > 0.0:
            level = min(level, (cap - usage_prefix[tau, r]) / beta)
    change = 0.0
    work[0] += m + (m + 1) * (k + 1 - tau)
    for i in range(tau, k + 1):
        if level > x[i]:
            change += level - x[i]
            x[i] = level
        for r in range(m):
            usage_prefix[i + 1, r] = usage_prefix[i, r] + d[i, r] * x[i]
    return level, tau, change


@njit(cache=True)
def _linear_prefix_block(d, x, n, demand_prefix, usage_prefix, start, stop, work):
    """Steps ``start..stop-1`` (0-based arrivals) of the prefix-sum Algorithm 1 from a given state
    (for timing a step at large k without rerunning the steps before it). Returns the last level.

    Parameters
    ----------
    d : float64[:, :]
        Normalised demands, shape (K, m), one row per agent in arrival order.
    x : float64[:]
        Shares, shape (K,) (the present agents' first); updated in place.
    n : float
        The number of agents planned for (capacity (k+1)/n at 0-based step k).
    demand_prefix : float64[:, :]
        Shape (K+1, m): ``demand_prefix[t, r] = sum_{i<t} d_ir``; row k+1 written here.
    usage_prefix : float64[:, :]
        Shape (K+1, m): ``usage_prefix[t, r] = sum_{i<t} d_ir x_i``; the rows from τ+1 rebuilt
        here.
    start : int
        First 0-based arrival to run.
    stop : int
        One past the last.
    work : int64[:]
        Shape (1,): ``work[0]`` accumulates the element operations done.
    """
    level = 0.0
    for k in range(start, stop):
        level, _, _ = _linear_step_prefix(d, x, k, n, True, demand_prefix, usage_prefix, work)
    return level


def _linear_prefix_state(d, k, n):
    """State of the prefix-sum Algorithm 1 after the first ``k`` of the arrivals ``d`` (normalised)
    with capacity planned for ``n``: (shares padded to len(d), demand_prefix, usage_prefix)."""
    K, m = d.shape
    x = np.zeros(K)
    if k > 0:
        x[:k] = _waterfill_kernel(d[:k], float(n))[0]
    demand_prefix = np.zeros((K + 1, m))
    demand_prefix[1:] = np.cumsum(d, axis=0)
    usage_prefix = np.zeros((K + 1, m))
    usage_prefix[1 : k + 1] = np.cumsum(d[:k] * x[:k, None], axis=0)
    return x, demand_prefix, usage_prefix


@njit(cache=True)
def _linear_kernel(d, n, corrected_line6, rescan, work):
    """Algorithm 1 over all arrivals; ``corrected_line6=False`` runs the printed test;
    ``rescan=True`` recomputes every sum by loops over the present agents (the printed O(k m) per
    step), otherwise prefix sums are kept across steps (``_linear_step_prefix``). ``work[0]``:
    element operations, summed.

    Parameters
    ----------
    d : float64[:, :]
        Normalised demands, shape (K, m), one row per agent in arrival order.
    n : float
        The number of agents planned for (capacity (k+1)/n at 0-based step k).
    corrected_line6 : bool
        Whether line 6 uses the corrected test (False: as printed).
    rescan : bool
        Whether every sum is recomputed by loops (else prefix sums).
    work : int64[:]
        Shape (1,): ``work[0]`` accumulates the element operations done.
    """
    K, m = d.shape
    x = np.zeros(K)
    levels = np.zeros(K)
    split = np.zeros(K, dtype=np.int64)
    maxsum = np.zeros(K)
    alpha = np.zeros(m)
    beta = np.zeros(m)
    demand_prefix = np.zeros((K + 1, m))
    usage_prefix = np.zeros((K + 1, m))
    x[0] = 1.0 / n
    levels[0] = x[0]
    maxsum[0] = x[0]
    for r in range(m):
        demand_prefix[1, r] = d[0, r]
        usage_prefix[1, r] = d[0, r] * x[0]
    for k in range(1, K):  # step k + 1 in the paper's numbering
        if rescan:
            levels[k], split[k], maxsum[k] = _linear_step(
                d, x, k, n, corrected_line6, alpha, beta, work
            )
        else:
            levels[k], split[k], change = _linear_step_prefix(
                d, x, k, n, corrected_line6, demand_prefix, usage_prefix, work
            )
            maxsum[k] = maxsum[k - 1] + change
    return x, levels, split, maxsum


# --- waterfill: exact, event-driven ---------------------------------------------------------------


@njit(cache=True)
def _waterfill_kernel(d, n):
    """Water-filling by events: raise the lowest segment of equal shares to the next share up,
    merge, ...

    Segments (runs of agents with equal share, shares falling with arrival order by Lemma 2) live on
    a stack; each is created once and merged once, so a step costs O(m) amortised.

    Parameters
    ----------
    d : float64[:, :]
        Normalised demands, shape (K, m), one row per agent in arrival order.
    n : float
        The number of agents planned for (capacity (k+1)/n at 0-based step k).
    """
    K, m = d.shape
    seg_start = np.zeros(K, dtype=np.int64)
    seg_value = np.zeros(K)
    seg_d = np.zeros((K, m))
    top = -1
    used = np.zeros(m)
    levels = np.zeros(K)
    split = np.zeros(K, dtype=np.int64)
    maxsum = np.zeros(K)
    total = 0.0
    for k in range(K):
        cap = (k + 1) / n
        top += 1
        seg_start[top] = k
        seg_value[top] = 0.0
        for r in range(m):
            seg_d[top, r] = d[k, r]
        # event loop: can the lowest segment rise to the segment above it?
        while top > 0:
            rise = seg_value[top - 1] - seg_value[top]
            ok = True
            for r in range(m):
                if used[r] + rise * seg_d[top, r] > cap:
                    ok = False
                    break
            if not ok:
                break
            count = (k + 1) - seg_start[top]
            total += rise * count
            for r in range(m):
                used[r] += rise * seg_d[top, r]
                seg_d[top - 1, r] += seg_d[top, r]
            top -= 1  # merged into the segment above (which keeps its start and value)
        rise = np.inf
        for r in range(m):
            if seg_d[top, r] > 0.0:
                rise = min(rise, (cap - used[r]) / seg_d[top, r])
        if rise < 0.0:
            rise = 0.0
        count = (k + 1) - seg_start[top]
        total += rise * count
        for r in range(m):
            used[r] += rise * seg_d[top, r]
        seg_value[top] += rise
        levels[k] = seg_value[top]
        split[k] = seg_start[top]
        maxsum[k] = total
    x = np.empty(K)
    for s in range(top + 1):
        end = seg_start[s + 1] if s < top else K
        for i in range(seg_start[s], end):
            x[i] = seg_value[s]
    return x, levels, split, maxsum


# --- lp: HiGHS on eq. (1) -------------------------------------------------------------------------
# The LP works in units of 1/n (y_i = n x_i, capacity k at step k): shares of order 1/n fall below
# HiGHS's absolute tolerances (1e-7 feasibility, 1e-9 for a matrix entry) once n is large, while in
# these units every quantity lies in [1/k, k] whatever n is, and n enters only in the final
# division.


def _lp_one_step(d, prev, k):
    """LP (1) at step k = len(prev) + 1 with HiGHS, in units of 1/n: ``prev`` and the result are
    n times the shares. Returns (scaled shares, scaled level)."""
    from scipy.optimize import linprog

    m = d.shape[1]
    # variables y_1..y_k, M; maximise M
    c = np.zeros(k + 1)
    c[k] = -1.0
    a_cap = np.hstack([d[:k].T, np.zeros((m, 1))])
    a_min = np.hstack([-np.eye(k), np.ones((k, 1))])  # M - y_i <= 0
    bounds = [(p, None) for p in prev] + [(0, None), (0, None)]  # irrevocable: y_i >= y_i^{k-1}
    res = linprog(
        c,
        A_ub=np.vstack([a_cap, a_min]),
        b_ub=np.concatenate([np.full(m, float(k)), np.zeros(k)]),
        bounds=bounds,
        method="highs",
    )
    if res.status != 0:
        raise RuntimeError(f"dynamic_drf(method='lp'): HiGHS failed at step {k}: {res.message}")
    level = res.x[k]
    # eq. (1) leaves shares above the level free; Lemma 1 pins the DRF solution: max(M, previous)
    return np.maximum(np.append(prev, 0.0), level), level


def _lp_steps(d, n):
    K = d.shape[0]
    prev = np.zeros(0)
    levels, split, maxsum, shares = np.zeros(K), np.zeros(K, dtype=np.int64), np.zeros(K), []
    for k in range(1, K + 1):
        y, level = _lp_one_step(d, prev, k)  # in units of 1/n
        levels[k - 1], maxsum[k - 1] = level / float(n), y.sum() / float(n)
        split[k - 1] = int(np.argmax(y <= level * (1 + 1e-12) + 1e-15))
        shares.append(y / float(n))
        prev = y
    return prev / float(n), levels, split, maxsum, shares


@interpreted_when_small
def dynamic_drf(
    demands: ArrayLike,
    n: int | None = None,
    method: str = "linear",
    *,
    line6: str = "corrected",
    sums: str = "prefix",
) -> DynamicDRFResult:
    """Dynamic DRF allocation of agents arriving in row order.

    Parameters
    ----------
    demands : array_like
        Shape (K, m): per-task demands, one row per agent in arrival order, >= 0 with no all-zero
        row. Each row is normalised here so its largest entry is 1 (already-normalised rows are
        unchanged).
    n : int or None, default None
        Number of agents the mechanism plans for (capacity k/n at step k); None: K. Must be >= K.
    method : {"linear", "waterfill", "lp"}, default "linear"
        ``"linear"``: Li et al.'s Algorithm 1 (binary search for the split τ, O(k m) per step) with
        line 6 corrected to test ``sum_{i<=k} d_ir x_1^{k-1} <= k/n`` (reconstructions §3.3
        erratum: as printed the test is always true and capacity is violated). ``"waterfill"``: Kash
        et al.'s water-filling computed exactly by events (segments of equal shares merged
        bottom-up; O(m) amortised per step). ``"lp"``: HiGHS on LP (1) at every step (slow; keeps
        every step's shares), solved in units of 1/n so that HiGHS's tolerances hold at every n.
    line6 : {"corrected", "as_printed"}, default "corrected"
        ``"as_printed"`` (``method="linear"`` only) reproduces the erratum, to show its effect.
    sums : {"prefix", "rescan"}, default "prefix"
        ``method="linear"`` only: how Algorithm 1's sums (line 6's total demand, the α_r, β_r of
        the binary search) are obtained. ``"prefix"``: prefix sums kept across steps, O(m) per
        probe, so a step costs O(m log k + m (k - τ)). ``"rescan"``: loops over the present agents
        as printed, O(m k) per step (the paper's bound). Both visit the same τ; results agree to
        rounding. ``line6="as_printed"`` always rescans: once the printed test has broken capacity,
        agents before τ may sit below the level, which the prefix version assumes cannot happen.

    Returns
    -------
    DynamicDRFResult
        Levels, splits and final shares of every step (any step's shares rebuilt on demand).

    Raises
    ------
    InvalidInputError
        On invalid demands, ``n`` below K, an unknown method, line6 or sums, or
        ``line6="as_printed"`` or ``sums="rescan"`` with another method than ``"linear"``.

    References
    ----------
    .. [1] W. Li, X. Liu, X. Zhang, X. Zhang, "A note on dynamic fair division of multiple
       resources", arXiv preprint arXiv:1509.07935, 2019, Algorithm 1, LP (1).
    .. [2] I. Kash, A. D. Procaccia, N. Shah, "No Agent Left Behind: Dynamic Fair Division of
       Multiple Resources", Journal of Artificial Intelligence Research 51, 2014.

    Examples
    --------
    The maxsum counterexample of Li et al. §4 with m = 2 (ε = 1e-9): agents 1-2 end near 2/3,
    agent 3 near 1/3.

    >>> res = dynamic_drf([[1, 1e-9], [1e-9, 1], [1, 1]])
    >>> res.final_shares.round(6).tolist(), res.levels.round(6).tolist()
    ([0.666667, 0.666667, 0.333333], [0.333333, 0.666667, 0.333333])
    """
    check_choice(method, METHODS, "method")
    check_choice(line6, ("corrected", "as_printed"), "line6")
    if line6 == "as_printed" and method != "linear":
        raise InvalidInputError("line6='as_printed' applies to method='linear' only")
    check_choice(sums, ("prefix", "rescan"), "sums")
    if sums != "prefix" and method != "linear":
        raise InvalidInputError(
            f"sums={sums!r} applies to method='linear' only (method={method!r} has no such sums)"
        )
    d = normalize_demands(demands)
    K = d.shape[0]
    n = _planned_agents(K if n is None else n, K)
    step_shares = None
    work = np.zeros(1, np.int64)
    if method == "linear":
        x, levels, split, maxsum = _linear_kernel(
            d, float(n), line6 == "corrected", sums == "rescan" or line6 == "as_printed", work
        )
    elif method == "waterfill":
        x, levels, split, maxsum = _waterfill_kernel(d, float(n))
    else:
        x, levels, split, maxsum, step_shares = _lp_steps(d, n)
    return DynamicDRFResult(
        demands=d,
        n=n,
        levels=levels,
        split=split,
        maxsum=maxsum,
        final_shares=x,
        method=method,
        step_shares=step_shares,
        work=int(work[0]) if method == "linear" else None,
    )


def _planned_agents(n, present: int) -> int:
    """``n`` (the agents the mechanism plans for) as an int >= ``present``. None is refused here:
    a caller whose signature takes None for "those present" says so and passes ``present``."""
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
        raise InvalidInputError(f"n = {_short(n)}: must be an integer")
    if n < present:
        raise InvalidInputError(f"n = {n}: must be >= the number of arriving agents ({present})")
    return as_count(n, "n", minimum=present)  # and within the int64 range the kernels count in


def dynamic_drf_step(
    demands: ArrayLike, previous_shares: ArrayLike, n: int, method: str = "linear"
) -> npt.NDArray[np.float64]:
    """One step alone: the shares after agent k = len(previous_shares) + 1 arrives.

    For timing single steps (Li et al.'s O(k) per-step claim) and for checking a step in isolation.

    Parameters
    ----------
    demands : array_like
        Shape (k, m): the first k agents' demands (normalised here).
    previous_shares : array_like
        Shape (k - 1,): the previous step's shares, finite, >= 0, within its capacity (k - 1)/n.
    n : int
        The number of agents planned for, >= k (no default: a step belongs to a run planned for
        a given number of agents).
    method : {"linear", "lp"}, default "linear"
        ``"linear"``: Algorithm 1 with line 6 corrected; ``"lp"``: HiGHS on LP (1).

    Returns
    -------
    numpy.ndarray
        Float64 shares, shape (k,).

    Raises
    ------
    InvalidInputError
        On invalid demands, shares of the wrong length, negative, non-finite or over the previous
        capacity, ``n`` not an integer (None included) or below k, or an unknown method.

    References
    ----------
    .. [1] W. Li, X. Liu, X. Zhang, X. Zhang, "A note on dynamic fair division of multiple
       resources", arXiv preprint arXiv:1509.07935, 2019, Algorithm 1, eq. (1).
    """
    d = normalize_demands(demands)
    k = d.shape[0]
    prev = as_real_array(previous_shares, "previous_shares")
    if prev.shape != (k - 1,):
        raise InvalidInputError(
            f"previous_shares = {_short(previous_shares)}: expected {k - 1} shares (one per "
            f"earlier agent), got shape {prev.shape}"
        )
    n = _planned_agents(n, k)
    bad = ~np.isfinite(prev) | (prev < 0)
    if bad.any():
        i = int(np.argmax(bad))
        raise InvalidInputError(f"previous_shares[{i}] = {prev[i]}: shares must be finite and >= 0")
    # the previous step's allocation must fit its capacity (k - 1)/n, or no step from it is feasible
    # (compared in units of 1/n, capacity k - 1, so that the slack means the same at every n)
    used = (prev * float(n)) @ d[: k - 1] if k > 1 else np.zeros(d.shape[1])
    over = used > (k - 1) * (1 + 1e-9)
    if over.any():
        r = int(np.argmax(over))
        raise InvalidInputError(
            f"previous_shares: use {used[r] / n:g} of resource {r}, more than the capacity "
            f"(k - 1)/n = {(k - 1) / n:g} of step {k - 1}"
        )
    if method == "linear":
        x = np.append(prev, 0.0)
        if k == 1:
            x[0] = 1.0 / n
            return x
        m = d.shape[1]
        _linear_step(d, x, k - 1, float(n), True, np.zeros(m), np.zeros(m), np.zeros(1, np.int64))
        return x
    if method == "lp":
        return _lp_one_step(d, prev * float(n), k)[0] / float(n)
    raise InvalidInputError(f"method = {method!r}: must be 'linear' or 'lp'")


def static_drf_levels(demands: ArrayLike, n: int | None = None) -> npt.NDArray[np.float64]:
    """Offline benchmark: static DRF of agents 1..k on capacity k/n, ẋ^k = min_r (k/n) /
    sum_{i<=k} d_ir.

    Parameters
    ----------
    demands : array_like
        Shape (K, m): per-task demands, one row per agent in arrival order, >= 0 with no all-zero
        row; normalised here so each row's largest entry is 1.
    n : int or None, default None
        The number of agents planned for, >= K; None: K.

    Returns
    -------
    numpy.ndarray
        Float64, shape (K,): every step's common share.

    Raises
    ------
    InvalidInputError
        On invalid demands or ``n`` below K.

    References
    ----------
    .. [1] W. Li, X. Liu, X. Zhang, X. Zhang, "A note on dynamic fair division of multiple
       resources", arXiv preprint arXiv:1509.07935, 2019, §4.

    Examples
    --------
    >>> static_drf_levels([[1, 1e-9], [1e-9, 1], [1, 1]]).round(6).tolist()
    [0.333333, 0.666667, 0.5]
    """
    d = normalize_demands(demands)
    K = d.shape[0]
    n = _planned_agents(K if n is None else n, K)
    k = np.arange(1, K + 1)
    with np.errstate(divide="ignore"):  # a resource nobody has demanded yet does not bind
        return (k / n / np.cumsum(d, axis=0).T).T.min(axis=1)
