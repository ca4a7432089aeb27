"""The price-anticipating proportional-share game: model, baselines and preference generators.

m users (axis 0) bid on n machines (axis 1). User i's bids x_i sum to its budget X_i; machine j's
price is Y_j = sum_i x_ij and user i receives r_ij = x_ij / Y_j (Feldman, Lai, Zhang, EC'05 §2).
With a reserve ε > 0, a dummy bidder places ε on every machine (the existence proof's
perturbation, reconstructions §4.1): prices become Y_j + ε and a best response always exists.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike
from scipy.optimize import linear_sum_assignment

from .._validate import (
    read_only_state,
    Aligned,
    Labels,
    _check_aligned,
    as_amount,
    as_flag,
    InvalidInputError,
    Seed,
    as_array,
    as_budgets,
    as_count,
    as_integers,
    as_rng,
    _store_read_only,
    check_drawn,
)
from ..metrics import _parallelism as _uncapped_parallelism

__all__ = [
    "Game",
    "allocation",
    "social_optimum",
    "weight_proportional_bids",
    "uniform_preferences",
    "correlated_preferences",
    "welfare_optimum",
]


@read_only_state
@dataclass(frozen=True, init=False, eq=False)
class Game:
    """A validated instance of the proportional-share bidding game.

    Parameters
    ----------
    weights : array_like
        Shape (n_users, n_machines): w[i, j], user i's value for the whole of machine j; finite, >=
        0, every user valuing some machine.
    budgets : float or array_like or None, default None
        Shape (n_users,), or one budget for all: X_i > 0. None: all 1.
    parallelism : int or array_like or None, default None
        Shape (n_users,), or one bound for all: finite parallelism bounds k_i, integers in [1,
        n_machines]. None: infinite parallelism.
    reserve : float, default 0.0
        The dummy bid ε on every machine: 0 (none), or within a factor
        :data:`~fairlib._validate.MONEY_RATIO` (1e12) of the largest budget either way. With
        ``reserve = 0`` the game must be strongly competitive (every machine valued by at least two
        users), else no equilibrium exists and construction fails naming the machine.

    Raises
    ------
    InvalidInputError
        On an invalid argument, or ``reserve = 0`` with a machine valued by fewer than two users.

    References
    ----------
    .. [1] M. Feldman, K. Lai, L. Zhang, "A Price-Anticipating Resource Allocation Mechanism for
       Distributed Shared Clusters", EC '05, 2005, §2 (the game), Theorem 1 (existence).
    """

    weights: np.ndarray
    budgets: np.ndarray
    parallelism: np.ndarray | None = None
    reserve: float = 0.0
    #: the pandas labels of ``weights`` (users, machines); None where none were given
    labels: Labels = field(default=Labels(None, None), repr=False, compare=False)

    def __init__(
        self,
        weights: ArrayLike,
        budgets: ArrayLike | None = None,
        parallelism: int | ArrayLike | None = None,
        reserve: float = 0.0,
    ) -> None:
        w = as_weight_matrix(weights)
        m, n = w.shape
        X = as_budgets(budgets, m, aligned_to=("weights", weights, 0))
        k = as_parallelism(parallelism, m, n, aligned_to=("weights", weights, 0))
        reserve = as_amount(
            reserve, "reserve", scale=float(X.max()), zero=True, of="the largest budget"
        )
        if reserve == 0:
            wanted = (w > 0).sum(axis=0)
            lonely = wanted < 2
            if lonely.any():
                j = int(np.argmax(lonely))
                raise InvalidInputError(
                    f"machine {j} is valued by {int(wanted[j])} user(s): the game is not "
                    "strongly competitive and "
                    "has no equilibrium (EC'05 Thm 1); pass reserve=eps > 0 for the perturbed game"
                )
        # read-only copies: a frozen game that its caller's arrays, or a reader, could change
        # would change its equilibrium under it
        _store_read_only(self, weights=w, budgets=X, parallelism=k, reserve=float(reserve))
        # the users' and machines' pandas labels, against which bids given later are checked
        object.__setattr__(self, "labels", Labels.of(weights))

    @property
    def n_users(self) -> int:
        """Number of users (rows of ``weights``)."""
        return self.weights.shape[0]

    @property
    def n_machines(self) -> int:
        """Number of machines (columns of ``weights``)."""
        return self.weights.shape[1]

    def optimum(self) -> float:
        """Social optimum U*: sum_j max_i w_ij (infinite parallelism) or the maximum-weight matching
        (finite).

        Returns
        -------
        float
            U*, the largest social welfare any allocation reaches (:func:`welfare_optimum`).
        """
        return welfare_optimum(self.weights, self.parallelism)


def as_weight_matrix(weights, name: str = "weights") -> np.ndarray:
    """Valuations ``w[user, machine]``: a non-empty numeric matrix, finite, >= 0, every user valuing
    some machine."""
    w = as_array(weights, name)
    if w.ndim != 2 or w.size == 0 or w.dtype.kind not in "iuf":
        raise InvalidInputError(
            f"{name}: expected a numeric (users x machines) matrix, got shape {w.shape} "
            f"dtype {w.dtype}"
        )
    w = np.array(w, dtype=np.float64, order="C")  # a copy, never the caller's array
    bad = ~np.isfinite(w) | (w < 0)
    if bad.any():
        i, j = (int(v) for v in np.argwhere(bad)[0])
        raise InvalidInputError(f"{name}[{i}, {j}] = {w[i, j]}: weights must be finite and >= 0")
    zero = ~(w > 0).any(axis=1)
    if zero.any():
        i = int(np.argmax(zero))
        raise InvalidInputError(f"{name}[{i}]: user {i} values no machine")
    return w


def as_parallelism(
    parallelism,
    m: int,
    n: int,
    *,
    at_most_machines: bool = True,
    aligned_to: Aligned | None = None,
):
    """``None`` (infinite parallelism) or one integer bound per user, checked.

    Each bound is >= 1 and (``at_most_machines``) at most n_machines; the helpers that only use it
    as a cap accept larger bounds (they do not bind). ``aligned_to``: the weights (name, value,
    axis of the users), whose pandas user labels a pandas ``parallelism`` must repeat."""
    if parallelism is None:
        return None
    _check_aligned(parallelism, "parallelism", 0, aligned_to)
    if at_most_machines:
        return as_integers(
            parallelism,
            "parallelism",
            length=m,
            minimum=1,
            maximum=n,
            maximum_label=f"n_machines = {n}",
            what="bound per user",
        )
    # a bound at or past n_machines binds nothing: the metrics' own reading of a cap
    return _uncapped_parallelism(parallelism, m, n)


def allocation(bids: ArrayLike, reserve: float = 0.0) -> npt.NDArray[np.float64]:
    """Shares r_ij = x_ij / (Y_j + reserve); a machine with no bid is allocated to nobody.

    Parameters
    ----------
    bids : array_like
        Shape (n_users, n_machines): x[i, j], finite and >= 0.
    reserve : float, default 0.0
        The reserve bid ε added to every machine's price: 0 (none), or within a factor
        :data:`~fairlib._validate.MONEY_RATIO` (1e12) of the largest user's total bid (its budget)
        either way; any ε >= 0 when nobody bids.

    Returns
    -------
    numpy.ndarray
        Float64 shares, shape (n_users, n_machines); each column sums to at most 1.

    Raises
    ------
    InvalidInputError
        On a non-2-D or non-numeric ``bids``, a negative or non-finite bid, or an invalid
        ``reserve``.

    References
    ----------
    .. [1] M. Feldman, K. Lai, L. Zhang, "A Price-Anticipating Resource Allocation Mechanism for
       Distributed Shared Clusters", EC '05, 2005, §2.

    Examples
    --------
    >>> allocation([[1.0, 0.0], [1.0, 2.0]]).tolist()
    [[0.5, 0.0], [0.5, 1.0]]
    """
    x = as_array(bids, "bids")
    if x.ndim != 2 or x.dtype.kind not in "iuf":
        raise InvalidInputError(
            f"bids: expected a numeric (users x machines) matrix, got shape {x.shape} "
            f"dtype {x.dtype}"
        )
    x = x.astype(np.float64)
    bad = ~np.isfinite(x) | (x < 0)
    if bad.any():
        i, j = (int(v) for v in np.argwhere(bad)[0])
        raise InvalidInputError(f"bids[{i}, {j}] = {x[i, j]}: bids must be finite and >= 0")
    reserve = as_reserve_of_bids(reserve, x)
    Y = x.sum(axis=0) + reserve
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(Y > 0, x / np.where(Y > 0, Y, 1.0), 0.0)


def as_reserve_of_bids(reserve, bids: np.ndarray) -> float:
    """``reserve``, checked against the game's scale of money read from checked ``bids``: the
    largest user's total bid, its budget (:func:`fairlib._validate.as_amount`)."""
    scale = float(bids.sum(axis=1).max()) if bids.size else 0.0
    return as_amount(reserve, "reserve", scale=scale, zero=True, of="the largest user's total bid")


def welfare_optimum(weights: ArrayLike, parallelism: int | ArrayLike | None = None) -> float:
    """U*, the optimal social welfare.

    Infinite parallelism: each machine to a user who values it most; finite: Lemma 1's
    maximum-weight matching of k_i copies of user i to machines (Hungarian algorithm, SciPy's
    ``linear_sum_assignment``).

    Parameters
    ----------
    weights : array_like
        Shape (n_users, n_machines): finite, >= 0, every user valuing some machine.
    parallelism : int or array_like or None, default None
        The bounds k_i >= 1, one per user (shape (n_users,)) or one for all; None: infinite
        parallelism.

    Returns
    -------
    float
        U*.

    Raises
    ------
    InvalidInputError
        On invalid weights or parallelism.

    References
    ----------
    .. [1] M. Feldman, K. Lai, L. Zhang, "A Price-Anticipating Resource Allocation Mechanism for
       Distributed Shared Clusters", EC '05, 2005, §2, Lemma 1.
    """
    w = as_weight_matrix(weights)
    if parallelism is None:
        return float(w.max(axis=0).sum())
    return float(social_optimum(w, parallelism)[1])


class SocialOptimum(NamedTuple):
    """The welfare-maximising allocation ``[user, machine]`` and its welfare.

    Parameters
    ----------
    allocation : numpy.ndarray
        Float64 shares, shape (n_users, n_machines): 1 where the machine goes wholly to the user,
        else 0.
    welfare : float
        Its social welfare U*.
    """

    allocation: np.ndarray
    welfare: float


def social_optimum(weights: ArrayLike, parallelism: int | ArrayLike | None = None) -> SocialOptimum:
    """The socially optimal allocation r (one machine per user copy) and its welfare U*.

    Infinite parallelism: machine j goes wholly to argmax_i w_ij (lowest index on ties). Finite: the
    maximum-weight matching of k_i copies of user i to machines.

    Parameters
    ----------
    weights : array_like
        Shape (n_users, n_machines): finite, >= 0, every user valuing some machine.
    parallelism : int or array_like or None, default None
        The bounds k_i >= 1, one per user (shape (n_users,)) or one for all (bounds above n_machines
        do not bind); None: infinite parallelism.

    Returns
    -------
    SocialOptimum
        ``(allocation, welfare)``: shares of shape (n_users, n_machines) and U*.

    Raises
    ------
    InvalidInputError
        On invalid weights or parallelism.

    References
    ----------
    .. [1] M. Feldman, K. Lai, L. Zhang, "A Price-Anticipating Resource Allocation Mechanism for
       Distributed Shared Clusters", EC '05, 2005, §2, Lemma 1.
    """
    w = as_weight_matrix(weights)
    m, n = w.shape
    parallelism = as_parallelism(
        parallelism, m, n, at_most_machines=False, aligned_to=("weights", weights, 0)
    )
    r = np.zeros((m, n))
    if parallelism is None:
        r[w.argmax(axis=0), np.arange(n)] = 1.0
        return SocialOptimum(r, float(w.max(axis=0).sum()))
    k = np.broadcast_to(np.asarray(parallelism, dtype=np.int64), (m,))
    owner = np.repeat(np.arange(m), k)
    rows, cols = linear_sum_assignment(w[owner], maximize=True)
    keep = w[owner[rows], cols] > 0
    r[owner[rows[keep]], cols[keep]] = 1.0
    return SocialOptimum(r, float(w[owner[rows], cols].sum()))


def weight_proportional_bids(
    weights: ArrayLike,
    budgets: ArrayLike | None = None,
    parallelism: int | ArrayLike | None = None,
) -> npt.NDArray[np.float64]:
    """Static baseline: x_ij = X_i w_ij / sum_j w_ij (on the k_i highest-weight machines when
    finite).

    Parameters
    ----------
    weights : array_like
        Shape (n_users, n_machines): finite, >= 0, every user valuing some machine.
    budgets : float or array_like or None, default None
        Shape (n_users,) or one for all, > 0; None: all 1.
    parallelism : int or array_like or None, default None
        The bounds k_i >= 1, one per user or one for all; None: infinite parallelism.

    Returns
    -------
    numpy.ndarray
        Float64 bids, shape (n_users, n_machines), each row summing to the user's budget.

    Raises
    ------
    InvalidInputError
        On invalid weights, budgets or parallelism.
    """
    w = as_weight_matrix(weights).copy()
    m, n = w.shape
    X = as_budgets(budgets, m, aligned_to=("weights", weights, 0))
    parallelism = as_parallelism(
        parallelism, m, n, at_most_machines=False, aligned_to=("weights", weights, 0)
    )
    if parallelism is not None:
        k = np.broadcast_to(np.asarray(parallelism, dtype=np.int64), (m,))
        rank = np.argsort(np.argsort(-w, axis=1, kind="stable"), axis=1)
        w[rank >= k[:, None]] = 0.0
    return X[:, None] * w / w.sum(axis=1, keepdims=True)


def uniform_preferences(rng: Seed | None, n_users: int, n_machines: int) -> npt.NDArray[np.float64]:
    """Random weights w_ij ~ U(0, 1) i.i.d., each row normalised to sum 1.

    Parameters
    ----------
    rng : int, numpy.random.Generator or None
        Seed or generator; None: fresh OS entropy, a different draw on every call (pass an integer
        to repeat it).
    n_users : int
        Number of users, >= 1.
    n_machines : int
        Number of machines, >= 1.

    Returns
    -------
    numpy.ndarray
        Float64 weights, shape (n_users, n_machines), rows summing to 1.

    Raises
    ------
    InvalidInputError
        On a count below 1, ``n_users`` x ``n_machines`` above
        :data:`~fairlib._validate.MAX_DRAWN` (10**8), or an invalid seed.

    References
    ----------
    .. [1] M. Feldman, K. Lai, L. Zhang, "A Price-Anticipating Resource Allocation Mechanism for
       Distributed Shared Clusters", EC '05, 2005, §5.
    """
    n_users, n_machines = as_count(n_users, "n_users"), as_count(n_machines, "n_machines")
    check_drawn(("n_users", n_users), ("n_machines", n_machines))
    w = as_rng(rng).random((n_users, n_machines))
    return w / w.sum(axis=1, keepdims=True)


def correlated_preferences(
    rng: Seed | None, n_users: int, n_machines: int, dim: int = 3, *, normalize: bool = True
) -> npt.NDArray[np.float64]:
    """Random weights w_ij = p_i . q_j with user and machine profiles in U(0, 1)^dim, rows
    normalised to 1.

    The paper does not say whether these weights were normalised; the analysis assumes sum_j w_ij =
    1, so they are normalised by default [INF]; ``normalize=False`` keeps the raw products.

    Parameters
    ----------
    rng : int, numpy.random.Generator or None
        Seed or generator; None: fresh OS entropy, a different draw on every call (pass an integer
        to repeat it).
    n_users : int
        Number of users, >= 1.
    n_machines : int
        Number of machines, >= 1.
    dim : int, default 3
        Dimension of the profiles (the paper's 3), >= 1.
    normalize : bool, default True
        Whether each row is divided by its sum.

    Returns
    -------
    numpy.ndarray
        Float64 weights, shape (n_users, n_machines).

    Raises
    ------
    InvalidInputError
        On a count below 1, an array of more than :data:`~fairlib._validate.MAX_DRAWN` (10**8)
        numbers (``n_users`` x ``n_machines``, ``n_users`` x ``dim`` or ``dim`` x
        ``n_machines``), or an invalid seed.

    References
    ----------
    .. [1] M. Feldman, K. Lai, L. Zhang, "A Price-Anticipating Resource Allocation Mechanism for
       Distributed Shared Clusters", EC '05, 2005, §5.
    """
    normalize = as_flag(normalize, "normalize")
    n_users, n_machines, dim = (
        as_count(n_users, "n_users"),
        as_count(n_machines, "n_machines"),
        as_count(dim, "dim"),
    )
    check_drawn(("n_users", n_users), ("n_machines", n_machines))
    check_drawn(("n_users", n_users), ("dim", dim))
    check_drawn(("dim", dim), ("n_machines", n_machines))
    g = as_rng(rng)
    w = g.random((n_users, dim)) @ g.random((dim, n_machines))
    return w / w.sum(axis=1, keepdims=True) if normalize else w
