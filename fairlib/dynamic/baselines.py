"""A straightforward sort-based water-filling step (benchmark baseline and test reference).

No structure is assumed (not even Lemma 2): sort the present shares, raise the lowest group level by
level through the sorted breakpoints until a resource reaches k/n. O(k log k + k m) per step.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike

from .._validate import InvalidInputError

__all__ = ["waterfill_step_sorted", "waterfill_step_fixed_increment"]


def waterfill_step_sorted(
    demands: ArrayLike, previous_shares: ArrayLike, n: int
) -> npt.NDArray[np.float64]:
    """Shares after agent k = len(previous_shares) + 1 arrives, by sorting and raising level by
    level.

    No input is checked (a test reference); ``demands`` rows are already normalised.

    Parameters
    ----------
    demands : array_like
        Shape (>= k, m): normalised demands, the first k rows read.
    previous_shares : array_like
        Shape (k - 1,): the previous step's shares.
    n : int
        The number of agents planned for (capacity k/n).

    Returns
    -------
    numpy.ndarray
        Float64 shares, shape (k,).

    Examples
    --------
    >>> waterfill_step_sorted(np.array([[1.0, 0.0], [0.0, 1.0]]), [0.5], 2).tolist()
    [1.0, 1.0]
    """
    d = np.asarray(demands, dtype=np.float64)
    x = np.append(np.asarray(previous_shares, dtype=np.float64), 0.0)
    k = len(x)
    cap = k / n
    order = np.argsort(x, kind="stable")
    xs = x[order]
    used = x @ d[:k]
    raised = np.zeros(d.shape[1])  # sum of demands of the agents being raised
    level = xs[0]
    j = 0
    while True:
        while j < k and xs[j] <= level:
            raised += d[order[j]]
            j += 1
        nxt = xs[j] if j < k else np.inf
        with np.errstate(divide="ignore"):
            room = np.where(raised > 0, (cap - used) / raised, np.inf).min()
        if level + room <= nxt:
            level += room
            break
        used += (nxt - level) * raised
        level = nxt
    return np.maximum(x, level)


def waterfill_step_fixed_increment(
    demands: ArrayLike, previous_shares: ArrayLike, n: int, increment: float
) -> tuple[npt.NDArray[np.float64], int, int]:
    """One arrival step of Kash, Procaccia and Shah's water-filling run with a fixed increment.

    Repeatedly raise every agent at the minimum share by ``increment`` together, while the raised
    agents' extra demand still fits the capacity k/n; stop at the first raise that would not fit (Li
    et al.'s [6], whose running time Li et al. call pseudo-polynomial). The smallest share it ends
    with lies within ``increment`` below the exact level M of LP (1) (raising the lowest agents by
    one more increment stays below the exact allocation max(x_i^{k-1}, M), which fits), and no
    resource exceeds k/n. Its number of raises grows as 1/``increment``: with the increment one unit
    of an integer grid of resolution S (increment 1/S) the work grows with S, not with its number of
    digits.

    Parameters
    ----------
    demands : array_like
        Shape (>= k, m): normalised demands, the first k rows read.
    previous_shares : array_like
        Shape (k - 1,): the previous step's shares.
    n : int
        The number of agents planned for (capacity k/n).
    increment : float
        The raise per round, > 0.

    Returns
    -------
    tuple of (numpy.ndarray, int, int)
        ``(shares, raises, work)``: float64 shares of shape (k,), the number of raises, and the
        element operations counted (per raise: k shares scanned, the m demands of each raised agent
        summed, m capacities tested).

    Raises
    ------
    InvalidInputError
        When ``demands`` has fewer than k rows or ``increment`` is not > 0.

    References
    ----------
    .. [1] I. Kash, A. D. Procaccia, N. Shah, "No Agent Left Behind: Dynamic Fair Division of
       Multiple Resources", Journal of Artificial Intelligence Research 51, 2014.

    Examples
    --------
    >>> shares, raises, work = waterfill_step_fixed_increment(np.array([[1.0, 0.5]]), [], 1, 0.25)
    >>> shares.tolist(), raises
    ([1.0], 4)
    """
    d = np.asarray(demands, dtype=np.float64)
    x = np.append(np.asarray(previous_shares, dtype=np.float64), 0.0)
    k = len(x)
    if d.ndim != 2 or d.shape[0] < k:
        raise InvalidInputError(
            f"demands: need at least {k} rows of an (agents, resources) array, got shape {d.shape}"
        )
    if not increment > 0:
        raise InvalidInputError(f"increment = {increment!r}: must be > 0")
    d = d[:k]
    m = d.shape[1]
    cap = k / n
    used = x @ d
    raises = work = 0
    while True:
        low = x.min()
        group = x <= low + 1e-12 * max(1.0, low)
        extra = increment * d[group].sum(axis=0)
        g = int(group.sum())
        work += k + g * m + m
        if np.any(used + extra > cap * (1 + 1e-12)):
            break
        x[group] += increment
        used += extra
        raises += 1
    return x, raises, work
