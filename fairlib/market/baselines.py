"""Reference best responses: a vectorised NumPy closed form and a generic solver (SLSQP).

Slow and obviously correct: used by the tests (differential), the benchmark and the notebook footer.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike
from scipy.optimize import minimize

from .._validate import InvalidInputError
from .best_response import _check_inputs  # the same named errors as the library's best response

__all__ = ["best_response_numpy", "best_response_slsqp"]


#: SLSQP solves budgets within this factor of the largest bid ``y`` either way: beyond it its steps
#: stall at the even split (best_response itself works at a unit scale and answers any positive
#: budget)
REFERENCE_SCALE = 1e6


def _check_reference_scale(y: npt.NDArray[np.float64], budget: float) -> None:
    """Refuse, naming ``budget``, a budget more than :data:`REFERENCE_SCALE` from the largest ``y``
    either way."""
    top = float(np.max(y))
    if top > 0 and not top / REFERENCE_SCALE <= budget <= top * REFERENCE_SCALE:
        raise InvalidInputError(
            f"budget = {budget!r}: SLSQP solves budgets within a factor {REFERENCE_SCALE:g} of the "
            f"largest y ({top:g}); fairlib.market.best_response answers any positive budget"
        )


def best_response_numpy(w: ArrayLike, y: ArrayLike, budget: float) -> npt.NDArray[np.float64]:
    """The closed-form best response with NumPy: sort by w/y, prefix sums, largest feasible prefix.

    Parameters
    ----------
    w : array_like
        Shape (n_machines,): the user's weights, finite and >= 0, not all 0.
    y : array_like
        Shape (n_machines,): the other users' bids summed per machine, finite and >= 0, and > 0
        where w > 0.
    budget : float
        The user's budget X > 0.

    Returns
    -------
    numpy.ndarray
        Float64 bids, shape (n_machines,), summing to ``budget``.

    Raises
    ------
    InvalidInputError
        On invalid ``w``, ``y`` or ``budget`` (the errors of :func:`~fairlib.market.best_response`).

    References
    ----------
    .. [1] M. Feldman, K. Lai, L. Zhang, "A Price-Anticipating Resource Allocation Mechanism for
       Distributed Shared Clusters", EC '05, 2005, §4.1.

    Examples
    --------
    >>> best_response_numpy([0.5, 0.5], [1.0, 1.0], 1.0).tolist()
    [0.5, 0.5]
    """
    w, y, budget = _check_inputs(w, y, budget)
    cand = np.flatnonzero(w > 0)
    order = cand[np.argsort(-w[cand] / y[cand], kind="stable")]
    s = np.sqrt(w[order] * y[order])
    cy, cs = np.cumsum(y[order]), np.cumsum(s)
    ok = np.flatnonzero(s * (budget + cy) / cs - y[order] > 0)
    # the best machine always bids (a positive budget); a budget below y's last bits rounds every
    # test to 0
    k = ok[-1] + 1 if ok.size else 1
    x = np.zeros_like(w)
    if (
        k == 1
    ):  # the closed form is the whole budget; computed, it loses a budget far below y to rounding
        x[order[0]] = budget
        return x
    x[order[:k]] = np.maximum(s[:k] * (budget + cy[k - 1]) / cs[k - 1] - y[order[:k]], 0.0)
    return x


def best_response_slsqp(w: ArrayLike, y: ArrayLike, budget: float) -> npt.NDArray[np.float64]:
    """Maximise sum_j w_j x_j / (x_j + y_j) s.t. sum x = budget, x >= 0 with SLSQP (generic
    baseline).

    SciPy's ``minimize(method="SLSQP")`` from the even split, with the analytic gradient; the bids
    are clipped at 0.

    Parameters
    ----------
    w : array_like
        Shape (n_machines,): the user's weights, finite and >= 0, not all 0.
    y : array_like
        Shape (n_machines,): the other users' bids summed per machine, finite and >= 0, and > 0
        where w > 0.
    budget : float
        The user's budget X > 0.

    Returns
    -------
    numpy.ndarray
        Float64 bids, shape (n_machines,), summing to ``budget``.

    Raises
    ------
    InvalidInputError
        On invalid ``w``, ``y`` or ``budget`` (the errors of :func:`~fairlib.market.best_response`),
        or a budget beyond :data:`REFERENCE_SCALE` of the largest ``y`` either way.
    """
    w, y, budget = _check_inputs(w, y, budget)
    _check_reference_scale(y, budget)
    n = len(w)
    # SLSQP's ftol is absolute on the objective, which scales with the weights: solve on weights
    # at unit scale (the same maximiser) so the precision does not depend on their scale
    w = w / w.max()

    def neg(x):
        return -np.sum(w * x / (x + y))

    def grad(x):
        return -w * y / (x + y) ** 2

    x0 = np.full(n, budget / n)
    res = minimize(
        neg,
        x0,
        jac=grad,
        method="SLSQP",
        bounds=[(0, budget)] * n,
        constraints=[
            {"type": "eq", "fun": lambda x: x.sum() - budget, "jac": lambda x: np.ones(n)}
        ],
        options={"ftol": 1e-14, "maxiter": 1000},
    )
    return np.maximum(res.x, 0.0)
