"""Products with the constraint matrix of a placement LP, stored per eligible (user, server) pair.

Pair p belongs to user ``pair_user[p]`` and loads up to K constraint rows: ``pair_rows[p, k]`` (-1 where
the coefficient is zero) with coefficients ``coef[p, k]``. A is the (rows x pairs) capacity matrix and E the
(users x pairs) matrix summing each user's pairs (PF-VDS's interior point; the max-min one forms its
coefficients on the fly). :func:`one_blas_thread` and :func:`numba_threads` serve every pair solver.
"""

from __future__ import annotations

import contextlib

import numba
import numpy as np
from numba import njit
from threadpoolctl import ThreadpoolController

__all__ = ["row_products", "column_products", "user_sums", "one_blas_thread", "numba_threads", "user_chunks"]

_BLAS = None
PARALLEL_PAIRS = 20_000  # problems with fewer eligible pairs run on one thread


def one_blas_thread():
    """Context limiting BLAS to one thread. The interior points' dense products and factorisations are small
    (rows = servers x resources): one thread is faster than two contending with the numba loops between calls
    (measured 2x on 2 cores). The controller is built once: scanning the loaded libraries costs ~2 ms."""
    global _BLAS
    if _BLAS is None:
        _BLAS = ThreadpoolController()
    return _BLAS.limit(limits=1, user_api="blas")


@contextlib.contextmanager
def numba_threads(n):
    """numba's thread count set to ``n`` inside the block (restored after). Solvers run small problems with
    one thread: numba's idle threads spin-wait, so a parallel region with spare threads beside a busy
    process (sweep workers on the same cores) can be 1,000x slower than the serial loop."""
    outer = numba.get_num_threads()
    numba.set_num_threads(n)
    try:
        yield
    finally:
        numba.set_num_threads(outer)


def user_chunks(user_start: np.ndarray) -> np.ndarray:
    """Boundaries (users) of contiguous user chunks with about equal pair counts, one per numba thread from
    :data:`PARALLEL_PAIRS` pairs on, else one chunk (a parallel region costs more than it saves on small
    problems, and far more when other processes hold the cores). Run the kernels inside
    ``numba_threads(len(chunks) - 1)``."""
    n_users, n_pairs = len(user_start) - 1, int(user_start[-1])
    threads = numba.get_num_threads() if n_pairs >= PARALLEL_PAIRS else 1
    n_chunks = max(1, min(threads, n_users))
    chunks = np.searchsorted(user_start, np.linspace(0, n_pairs, n_chunks + 1)).astype(np.int64)
    chunks[0], chunks[-1] = 0, n_users
    return chunks


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
