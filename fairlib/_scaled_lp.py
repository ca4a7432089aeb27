"""HiGHS's LPs and MILPs in units where its tolerances hold: :func:`scaled_linprog` and
:func:`scaled_milp`.

HiGHS's tolerances are absolute: it drops matrix entries below 1e-9, meets constraints to 1e-7
and reads a dual below 1e-7 as zero. An LP written in the user's units (tasks of demand 1 beside a
capacity of 1e12; demands and capacities of 1e-12) puts its entries, right-hand sides and solution
outside the scales those tolerances are meant for, and HiGHS answers it wrongly: zero tasks, or
"unbounded". Both helpers solve the same program in other units, exactly: every variable in a unit
``unit[j]`` the caller knows (for tasks on a server, the tasks the user could run alone there,
so that the variable is a share of that server), then every row divided by its largest entry, and
the objective by its largest coefficient, each factor a power of two (so the scaled program is the
same, bit for bit, whatever power of two the user's units differ by). The solution, the optimal
value and the duals are converted back: a caller reads them in its own units.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp
from numpy.typing import ArrayLike
from scipy.optimize import Bounds, LinearConstraint, OptimizeResult, linprog, milp

__all__ = ["power_of_two", "scaled_linprog", "scaled_milp"]


def power_of_two(value: ArrayLike) -> npt.NDArray[np.float64]:
    """The power of two at or below each ``value`` (``2**floor(log2(value))``), 1 where ``value``
    is not finite and positive: a factor that changes units exactly.

    Parameters
    ----------
    value : array_like
        The scales.

    Returns
    -------
    numpy.ndarray
        Float64 powers of two, the shape of ``value``.

    Examples
    --------
    >>> power_of_two([3.0, 0.25, 0.0, np.inf]).tolist()
    [2.0, 0.25, 1.0, 1.0]
    """
    v = np.asarray(value, dtype=np.float64)
    ok = np.isfinite(v) & (v > 0)
    exponent = np.frexp(np.where(ok, v, 1.0))[1] - 1
    return np.where(ok, np.ldexp(1.0, exponent), 1.0)


def _row_factors(a) -> npt.NDArray[np.float64]:
    """One over a power of two near each row's largest absolute entry (1 for an empty row)."""
    if sp.issparse(a):
        top = np.asarray(abs(sp.csr_matrix(a)).max(axis=1).todense()).ravel()
    else:
        top = np.abs(a).max(axis=1) if a.shape[1] else np.zeros(a.shape[0])
    return 1.0 / power_of_two(top)


def _scale(a, row, col):
    """diag(row) a diag(col), sparse when ``a`` is."""
    if sp.issparse(a):
        return (sp.diags(row) @ sp.csr_matrix(a) @ sp.diags(col)).tocsr()
    return np.asarray(a, dtype=np.float64) * row[:, None] * col[None, :]


def _scaled_rows(a, unit):
    """(a diag(unit) scaled by rows, row factors), or (None, None) without a matrix."""
    if a is None:
        return None, None
    a = a if sp.issparse(a) else np.atleast_2d(np.asarray(a, dtype=np.float64))
    with_units = _scale(a, np.ones(a.shape[0]), unit)
    row = _row_factors(with_units)
    return _scale(with_units, row, np.ones(len(unit))), row


def _scaled_bounds(bounds, unit) -> list[tuple[float | None, float | None]]:
    """linprog's ``bounds`` (None, one pair, or a pair per variable) divided by the variables'
    units."""
    n = len(unit)
    if bounds is None:
        pairs = [(0.0, None)] * n
    elif len(bounds) == 2 and not isinstance(bounds[0], (tuple, list, np.ndarray)):
        pairs = [tuple(bounds)] * n
    else:
        pairs = [tuple(pair) for pair in bounds]
    return [
        (None if lo is None else lo / u, None if hi is None else hi / u)
        for (lo, hi), u in zip(pairs, unit)
    ]


def scaled_linprog(
    c: ArrayLike,
    *,
    unit: ArrayLike | None = None,
    A_ub: Any = None,
    b_ub: ArrayLike | None = None,
    A_eq: Any = None,
    b_eq: ArrayLike | None = None,
    bounds: Any = (0, None),
    options: dict | None = None,
) -> OptimizeResult:
    """``scipy.optimize.linprog(..., method="highs")`` solved in the units of the module
    docstring, its answer read in the caller's units.

    Parameters
    ----------
    c : array_like
        The objective (minimised), shape (n,).
    unit : array_like or None, default None
        Shape (n,): each variable's natural unit (> 0; for tasks of a user on a server, the tasks
        it could run alone there), rounded to a power of two; None: all 1.
    A_ub : array_like or sparse matrix, optional
        The inequality rows, as :func:`scipy.optimize.linprog` takes them.
    b_ub : array_like, optional
        The inequality bounds, as linprog takes them.
    A_eq : array_like or sparse matrix, optional
        The equality rows, as linprog takes them.
    b_eq : array_like, optional
        The equality right-hand sides, as linprog takes them.
    bounds : sequence or tuple, default (0, None)
        Each variable's bounds, as linprog takes them (in the caller's units).
    options : dict, optional
        HiGHS's options, as linprog takes them.

    Returns
    -------
    scipy.optimize.OptimizeResult
        linprog's result, with ``x``, ``fun`` and the duals (``ineqlin.marginals``,
        ``eqlin.marginals``) in the caller's units.

    Examples
    --------
    The most tasks for DRF's users, in units of 1e-12 (``linprog`` alone drops the entries below
    1e-9 and answers "unbounded"):

    >>> a = np.array([[1.0, 3.0], [4.0, 1.0]]) * 1e-12
    >>> res = scaled_linprog([-1.0, -1.0], A_ub=a, b_ub=np.array([9.0, 18.0]) * 1e-12)
    >>> res.x.round(6).tolist()
    [4.090909, 1.636364]
    """
    c = np.asarray(c, dtype=np.float64)
    n = c.size
    u = np.ones(n) if unit is None else power_of_two(unit)
    a_ub, row_ub = _scaled_rows(A_ub, u)
    a_eq, row_eq = _scaled_rows(A_eq, u)
    c_u = c * u
    obj = 1.0 / float(power_of_two(np.abs(c_u).max() if n else 1.0))
    kwargs: dict[str, Any] = {}
    if a_ub is not None:
        kwargs.update(A_ub=a_ub, b_ub=np.asarray(b_ub, dtype=np.float64) * row_ub)
    if a_eq is not None:
        kwargs.update(A_eq=a_eq, b_eq=np.asarray(b_eq, dtype=np.float64) * row_eq)
    res = linprog(
        c_u * obj,
        bounds=_scaled_bounds(bounds, u),
        method="highs",
        options=options,
        **kwargs,
    )
    if res.x is not None:
        res.x = res.x * u
    if res.fun is not None:
        res.fun = res.fun / obj
    for name, row in (("ineqlin", row_ub), ("eqlin", row_eq)):
        part = res.get(name)
        if row is not None and part is not None and part.get("marginals") is not None:
            part.marginals = part.marginals * row / obj
    for name in ("lower", "upper"):
        part = res.get(name)
        if part is not None and part.get("marginals") is not None:
            part.marginals = part.marginals / u / obj
    return res


def scaled_milp(
    c: ArrayLike,
    *,
    constraints: LinearConstraint,
    integrality: ArrayLike,
    bounds: Bounds,
    unit: ArrayLike | None = None,
    options: dict | None = None,
) -> OptimizeResult:
    """``scipy.optimize.milp`` solved in the units of the module docstring (integer variables
    keep their unit), its answer read in the caller's units.

    Parameters
    ----------
    c : array_like
        The objective (minimised), shape (n,).
    constraints : scipy.optimize.LinearConstraint
        One block of rows ``lb <= A x <= ub``.
    integrality : array_like
        Shape (n,): milp's integrality (0: continuous).
    bounds : scipy.optimize.Bounds
        The variables' bounds.
    unit : array_like or None, default None
        Shape (n,): each continuous variable's natural unit (> 0), rounded to a power of two;
        None: all 1.
    options : dict or None
        milp's options.

    Returns
    -------
    scipy.optimize.OptimizeResult
        milp's result, with ``x``, ``fun`` and ``mip_dual_bound`` in the caller's units.

    Examples
    --------
    >>> row = LinearConstraint([[1e-12, 1e-12]], -np.inf, 2.5e-12)
    >>> res = scaled_milp([-1.0, -1.0], constraints=row, integrality=[0, 1],
    ...     bounds=Bounds([0, 0], [np.inf, 1]))
    >>> round(-res.fun, 6)
    2.5
    """
    c = np.asarray(c, dtype=np.float64)
    integer = np.asarray(integrality) != 0
    u = np.where(integer, 1.0, np.ones(c.size) if unit is None else power_of_two(unit))
    a, row = _scaled_rows(constraints.A, u)
    assert a is not None and row is not None
    c_u = c * u
    obj = 1.0 / float(power_of_two(np.abs(c_u).max() if c.size else 1.0))
    res = milp(
        c_u * obj,
        constraints=LinearConstraint(
            a,
            np.broadcast_to(constraints.lb, row.shape) * row,
            np.broadcast_to(constraints.ub, row.shape) * row,
        ),
        integrality=integrality,
        bounds=Bounds(
            np.broadcast_to(bounds.lb, u.shape) / u, np.broadcast_to(bounds.ub, u.shape) / u
        ),
        options=options,
    )
    if res.get("x") is not None:
        res.x = res.x * u
    if res.get("fun") is not None:
        res.fun = res.fun / obj
    if res.get("mip_dual_bound") is not None:
        res.mip_dual_bound = res.mip_dual_bound / obj
    return res
