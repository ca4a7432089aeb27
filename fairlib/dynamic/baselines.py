"""A straightforward sort-based water-filling step (benchmark baseline and test reference).

No structure is assumed (not even Lemma 2): sort the present shares, raise the lowest group level by
level through the sorted breakpoints until a resource reaches k/n. O(k log k + k m) per step.
"""

from __future__ import annotations

import numpy as np

__all__ = ["waterfill_step_sorted"]


def waterfill_step_sorted(demands, previous_shares, n: int) -> np.ndarray:
    """Shares after agent k = len(previous_shares) + 1 arrives; ``demands`` rows already normalised.

    The newcomer rises alone to 0.5, then both rise together until resource 0 is full:

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
    raised = np.zeros(d.shape[1])          # sum of demands of the agents being raised
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
