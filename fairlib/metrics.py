"""Welfare and fairness metrics of allocations (Feldman, Lai, Zhang EC'05 §2; reconstructions
§4.2).

Allocations are shares ``r[user, machine]``; valuations ``w[user, machine]``. With finite
parallelism ``k[user]``, a user values a bundle by the sum of its k largest w_ij r_ij.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike

from ._validate import (
    InvalidInputError,
    _check_aligned,
    as_array,
    as_integers,
    as_number,
    as_values,
    check_labels,
)

__all__ = [
    "bundle_values",
    "utilities",
    "efficiency",
    "utility_uniformity",
    "envy_freeness",
    "jain_index",
]


def bundle_values(
    weights: ArrayLike, shares: ArrayLike, parallelism: int | ArrayLike | None = None
) -> npt.NDArray[np.float64]:
    """V[i, j] = U_i(r_j): user i's value for user j's bundle.

    Parameters
    ----------
    weights : array_like
        Shape (n_users, n_machines): w[i, j], user i's value per unit share of machine j, finite
        and >= 0.
    shares : array_like
        Shape (n_bundles, n_machines): r[j, machine], the share of each machine in bundle j, finite
        and >= 0.
    parallelism : int or array_like or None, default None
        The most machines each user can use, an integer >= 1 or one per user (shape (n_users,)); a
        user values a bundle by the sum of its k largest w_ij r_ij. None: infinite parallelism (the
        plain sum).

    Returns
    -------
    numpy.ndarray
        Float64, shape (n_users, n_bundles).

    Raises
    ------
    InvalidInputError
        On non-finite or negative entries, mismatched machine columns (or pandas machine labels),
        a parallelism that is not an integer >= 1 per user (or has other pandas user labels), or a
        value beyond the float range (named by its user).

    References
    ----------
    .. [1] M. Feldman, K. Lai, L. Zhang, "A Price-Anticipating Resource Allocation Mechanism for
       Distributed Shared Clusters", EC '05, 2005, §2.

    Examples
    --------
    >>> bundle_values([[1, 0], [0, 1]], [[1, 0], [0, 1]]).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    _check_metric_labels(weights, shares, parallelism, users=False)
    w, r = _weights_and_shares(weights, shares)
    return _finite_values(_bundle_values(w, r, parallelism), "user {i}'s value for bundle {j}")


def _finite_values(values: np.ndarray, what: str) -> np.ndarray:
    """``values`` (users first), or an error naming the first user whose value overflowed the float
    range (the weights are finite: only their products and sums can overflow)."""
    bad = ~np.isfinite(values)
    if bad.any():
        at = tuple(int(a) for a in np.argwhere(bad)[0])
        raise InvalidInputError(
            f"weights[{at[0]}]: {what.format(i=at[0], j=at[-1])} overflows the float range "
            f"(above {np.finfo(np.float64).max:.3g}); give the weights in a larger unit"
        )
    return values


def _bundle_values(w: np.ndarray, r: np.ndarray, parallelism) -> np.ndarray:
    """:func:`bundle_values` of validated matrices (inf where a value overflows)."""
    if parallelism is None:
        with np.errstate(over="ignore", invalid="ignore"):
            return w @ r.T
    k = _parallelism(parallelism, *w.shape)
    n = w.shape[1]
    out = np.empty((w.shape[0], r.shape[0]))
    for kk in np.unique(k):  # users sharing a bound: top-k by partition, O(n) per pair
        rows = np.flatnonzero(k == kk)
        with np.errstate(over="ignore", invalid="ignore"):
            v = w[rows, None, :] * r[None, :, :]  # (i, j, machine)
            out[rows] = (
                v.sum(axis=2)
                if kk >= n
                else np.partition(v, n - kk, axis=2)[:, :, n - kk :].sum(axis=2)
            )
    return out


def _check_metric_labels(weights, shares, parallelism, *, users: bool) -> None:
    """Refuse pandas ``shares`` whose machines (columns) or, when they are one row per user
    (``users``), users (index) are not the weights', and a pandas ``parallelism`` whose users are
    not the weights': every matrix is read by position."""
    _check_aligned(shares, "shares", 1, ("weights", weights, 1))
    if users:
        _check_aligned(shares, "shares", 0, ("weights", weights, 0))
    check_labels(("weights", weights, 0), parallelism=parallelism)


def _weights_and_shares(weights, shares):
    """Valuations and shares: two finite, non-negative (users x machines) matrices; shares of one
    machine's users may have any number of rows (bundles of other users), but the same machines."""
    w = as_values(weights, "weights", ndim=2)
    r = as_values(shares, "shares", ndim=2, shape=(-1, w.shape[1]))
    return w, r


def _user_machine_matrices(weights, shares):
    """Valuations and one share per (user, machine): two finite, non-negative matrices of one shape,
    or an error naming the argument (the shape first, so a mismatch is named as one)."""
    w, r = as_array(weights, "weights"), as_array(shares, "shares")
    if w.ndim != 2 or r.shape != w.shape:
        raise InvalidInputError(
            f"weights, shares: expected two (users x machines) matrices of one shape, got "
            f"{w.shape} and {r.shape}"
        )
    w, r = _weights_and_shares(w, r)
    # a machine's shares add up to at most 1 (the rounding of a proportional split allowed)
    total = r.sum(axis=0)
    over = total > 1.0 + 1e-9
    if over.any():
        j = int(np.argmax(over))
        raise InvalidInputError(
            f"shares[:, {j}] sums to {float(total[j])!r}: the shares of one machine add up to at "
            "most 1"
        )
    return w, r


def _parallelism(parallelism, m: int, n: int) -> np.ndarray:
    """One integer bound >= 1 per user (a scalar is broadcast); a bound at or past the n machines
    binds nothing, so any such integer (a uint64 past int64 included) is read as n."""
    return as_integers(
        parallelism,
        "parallelism",
        length=m,
        minimum=1,
        maximum=np.iinfo(np.uint64).max,
        saturate=n,
        what="bound per user",
    )


def utilities(
    weights: ArrayLike, shares: ArrayLike, parallelism: int | ArrayLike | None = None
) -> npt.NDArray[np.float64]:
    """U_i(r_i) for every user: each user's value for its own bundle.

    Parameters
    ----------
    weights : array_like
        Shape (n_users, n_machines): w[i, j], user i's value per unit share of machine j, finite
        and >= 0.
    shares : array_like
        Shape (n_users, n_machines): r[i, j], user i's share of machine j, finite and >= 0; a
        machine's shares add up to at most 1.
    parallelism : int or array_like or None, default None
        The most machines each user can use, an integer >= 1 or one per user (shape (n_users,)); a
        user values a bundle by the sum of its k largest w_ij r_ij. None: infinite parallelism (the
        plain sum).

    Returns
    -------
    numpy.ndarray
        Float64, shape (n_users,).

    Raises
    ------
    InvalidInputError
        When ``weights`` and ``shares`` are not two matrices of one shape (and, when pandas, of
        the same labels), hold non-finite or negative entries, a machine's shares add up to more
        than 1, ``parallelism`` is not an integer >= 1 per user (in the weights' user order), or a
        utility is beyond the float range (named by its user).

    References
    ----------
    .. [1] M. Feldman, K. Lai, L. Zhang, "A Price-Anticipating Resource Allocation Mechanism for
       Distributed Shared Clusters", EC '05, 2005, §2.

    Examples
    --------
    >>> utilities([[1, 0], [0.5, 0.5]], [[1, 0], [0, 1]]).tolist()
    [1.0, 0.5]
    """
    _check_metric_labels(weights, shares, parallelism, users=True)
    w, r = _user_machine_matrices(weights, shares)
    if parallelism is None:
        with np.errstate(over="ignore", invalid="ignore"):
            own = np.einsum("ij,ij->i", w, r)
    else:
        own = np.diagonal(_bundle_values(w, r, parallelism)).copy()
    return _finite_values(own, "user {i}'s utility")


#: the relative rounding by which a computed welfare may exceed the optimum it is compared with
#: (both are sums of a few thousand products of order 1, exact to ~1e-13 relative); more is an
#: outcome no allocation reaches
WELFARE_SLACK = 1e-9


def efficiency(welfare: float, optimum: float) -> float:
    """π = U / U*, the price of anarchy of one outcome.

    Parameters
    ----------
    welfare : float
        The outcome's social welfare U = sum_i U_i, from 0 to ``optimum`` (up to a relative rounding
        of :data:`WELFARE_SLACK`): no outcome's welfare exceeds the optimum.
    optimum : float
        The optimal welfare U*, finite and > 0.

    Returns
    -------
    float
        U / U*.

    Raises
    ------
    InvalidInputError
        When ``welfare`` is negative or above ``optimum``, either is not a finite number, or
        ``optimum`` is 0.

    References
    ----------
    .. [1] M. Feldman, K. Lai, L. Zhang, "A Price-Anticipating Resource Allocation Mechanism for
       Distributed Shared Clusters", EC '05, 2005, §2.

    Examples
    --------
    >>> efficiency(1.5, 2.0)
    0.75
    """
    welfare = as_number(welfare, "welfare", inclusive=True)
    optimum = as_number(optimum, "optimum")
    if welfare > optimum * (1 + WELFARE_SLACK):
        raise InvalidInputError(
            f"welfare = {welfare!r}: above optimum = {optimum!r} (no outcome's welfare "
            "exceeds the optimum)"
        )
    return float(welfare / optimum)


def utility_uniformity(utils: ArrayLike) -> float:
    """τ = min_i U_i / max_i U_i (0 when every utility is 0).

    Parameters
    ----------
    utils : array_like
        Shape (n_users,): the users' utilities, finite and >= 0.

    Returns
    -------
    float
        The ratio, in [0, 1].

    Raises
    ------
    InvalidInputError
        On an empty, non-1-D, non-finite or negative vector.

    References
    ----------
    .. [1] M. Feldman, K. Lai, L. Zhang, "A Price-Anticipating Resource Allocation Mechanism for
       Distributed Shared Clusters", EC '05, 2005, §2.

    Examples
    --------
    >>> utility_uniformity([0.5, 0.25])
    0.5
    """
    u = as_values(utils, "utils", ndim=1)
    if u.size == 0:
        raise InvalidInputError("utils: no utilities (an empty vector has no uniformity)")
    return float(u.min() / u.max()) if u.max() > 0 else 0.0


def envy_freeness(
    weights: ArrayLike, shares: ArrayLike, parallelism: int | ArrayLike | None = None
) -> float:
    """ρ = min_{i,j} U_i(r_i) / U_i(r_j) over every pair, j = i included.

    So ρ <= 1, and ρ = 1 means envy-free; pairs with U_i(r_j) = 0 are skipped (1.0 when every pair
    is).

    Parameters
    ----------
    weights : array_like
        Shape (n_users, n_machines): w[i, j], user i's value per unit share of machine j, finite
        and >= 0.
    shares : array_like
        Shape (n_users, n_machines): r[i, j], user i's share of machine j, finite and >= 0; a
        machine's shares add up to at most 1.
    parallelism : int or array_like or None, default None
        The most machines each user can use, an integer >= 1 or one per user (shape (n_users,)); a
        user values a bundle by the sum of its k largest w_ij r_ij. None: infinite parallelism (the
        plain sum).

    Returns
    -------
    float
        ρ, in [0, 1].

    Raises
    ------
    InvalidInputError
        When ``weights`` and ``shares`` are not two matrices of one shape (and, when pandas, of
        the same labels), hold non-finite or negative entries, a machine's shares add up to more
        than 1, or ``parallelism`` is not an integer >= 1 per user (in the weights' user order).

    References
    ----------
    .. [1] M. Feldman, K. Lai, L. Zhang, "A Price-Anticipating Resource Allocation Mechanism for
       Distributed Shared Clusters", EC '05, 2005, §2 (the definition of envy-freeness ρ).

    Examples
    --------
    >>> envy_freeness([[0.5, 0.5], [0.5, 0.5]], [[0.5, 0.5], [0.5, 0.5]])
    1.0
    >>> # nobody envies: 1, not infinity
    >>> envy_freeness([[1.0, 0.0], [0.0, 1.0]], [[1.0, 0.0], [0.0, 1.0]])
    1.0
    """
    _check_metric_labels(weights, shares, parallelism, users=True)
    w, r = _user_machine_matrices(weights, shares)
    # ρ compares each user's values with one another: its row of weights is brought to a scale
    # whose sums cannot overflow, exactly, by a power of two (the ratios are the same)
    top = w.max(axis=1)
    w = np.ldexp(w, np.where(top > 0, 1 - np.frexp(top)[1], 0)[:, None])
    V = _bundle_values(w, r, parallelism)
    own = np.diagonal(V)[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(V > 0, own / np.where(V > 0, V, 1.0), np.inf)
    out = float(ratio.min())
    return out if np.isfinite(out) else 1.0


def jain_index(values: ArrayLike) -> float:
    """Jain's fairness index (sum x)^2 / (n sum x^2).

    It is computed on ``values / max(values)``, so any finite magnitude gives the right answer.

    Parameters
    ----------
    values : array_like
        Shape (n,), n >= 1: finite and >= 0, not all zero (e.g. dominant shares or utilities).

    Returns
    -------
    float
        The index, in [1/n, 1]; 1 when every value is equal.

    Raises
    ------
    InvalidInputError
        On an empty or non-1-D input, a non-finite or negative value, or all zeros.

    References
    ----------
    .. [1] R. Jain, D.-M. Chiu, W. Hawe, "A Quantitative Measure of Fairness and Discrimination for
       Resource Allocation in Shared Computer Systems", DEC Research Report TR-301, 1984.

    Examples
    --------
    >>> jain_index([1e200, 1e200]), jain_index([1e-200, 1e-200]), jain_index([1.0, 0.0])
    (1.0, 1.0, 0.5)
    """
    x = as_array(values, "values")
    if x.ndim != 1 or x.size == 0:
        raise InvalidInputError(f"values: expected a non-empty vector, got shape {x.shape}")
    x = as_values(x, "values", ndim=1, sign=None)
    bad = x < 0
    if bad.any():
        i = int(np.argmax(bad))
        raise InvalidInputError(f"values[{i}] = {x[i]}: must be finite and >= 0")
    if not (x > 0).any():
        raise InvalidInputError("values: all zero (Jain's index is 0/0)")
    # the index is scale-free: dividing by the largest value first keeps the squares finite and
    # normal for values from 1e-300 to 1e300 (squared directly, 1e200 overflowed and 1e-200
    # underflowed to 0/0)
    x = x / x.max()
    return float(x.sum() ** 2 / (len(x) * (x**2).sum()))
