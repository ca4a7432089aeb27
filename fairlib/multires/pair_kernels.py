"""Products with the constraint matrix of a placement LP, stored per eligible (user, server) pair.

Pair p belongs to user ``pair_user[p]`` and loads up to K constraint rows: ``pair_rows[p, k]`` (-1 where
the coefficient is zero) with coefficients ``coef[p, k]``. A is the (rows x pairs) capacity matrix and E the
(users x pairs) matrix summing each user's pairs. Shared by the interior-point solvers, with
:func:`one_blas_thread`.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from threadpoolctl import ThreadpoolController

__all__ = ["row_products", "column_products", "user_sums", "linear_parts", "one_blas_thread"]

_BLAS = None


def one_blas_thread():
    """Context limiting BLAS to one thread. The interior points' dense products and factorisations are small
    (rows = servers x resources): one thread is faster than two contending with the numba loops between calls
    (measured 2x on 2 cores). The controller is built once: scanning the loaded libraries costs ~2 ms."""
    global _BLAS
    if _BLAS is None:
        _BLAS = ThreadpoolController()
    return _BLAS.limit(limits=1, user_api="blas")


@njit(cache=True)
def row_products(x, pair_rows, coef, n_rows):
    """A x."""
    out = np.zeros(n_rows)
    for p in range(x.shape[0]):
        for k in range(coef.shape[1]):
            if pair_rows[p, k] >= 0:
                out[pair_rows[p, k]] += coef[p, k] * x[p]
    return out


@njit(cache=True)
def column_products(y, pair_rows, coef):
    """Aᵀ y per pair."""
    out = np.empty(coef.shape[0])
    for p in range(coef.shape[0]):
        acc = 0.0
        for k in range(coef.shape[1]):
            if pair_rows[p, k] >= 0:
                acc += coef[p, k] * y[pair_rows[p, k]]
        out[p] = acc
    return out


@njit(cache=True)
def user_sums(v, pair_user, n_users):
    """E v."""
    out = np.zeros(n_users)
    for p in range(v.shape[0]):
        out[pair_user[p]] += v[p]
    return out


@njit(cache=True)
def linear_parts(x, y, u, z, pair_user, pair_rows, coef, n_rows):
    """(A x, E x, Aᵀy - Eᵀu - z, max Aᵀy) in one pass over the pairs."""
    n_pairs, kk = coef.shape
    ax = np.zeros(n_rows)
    ex = np.zeros(u.shape[0])
    dual = np.empty(n_pairs)
    aty_max = 0.0
    for p in range(n_pairs):
        acc = 0.0
        for k in range(kk):
            rk = pair_rows[p, k]
            if rk >= 0:
                ax[rk] += coef[p, k] * x[p]
                acc += coef[p, k] * y[rk]
        ex[pair_user[p]] += x[p]
        dual[p] = acc - u[pair_user[p]] - z[p]
        if acc > aty_max:
            aty_max = acc
    return ax, ex, dual, aty_max
