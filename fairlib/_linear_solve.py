"""``solve(a, b)``: a square linear system inside a kernel, by the LAPACK routine
``np.linalg.solve`` compiles to.

numba compiles ``np.linalg.solve`` with its general machinery (any dtype and layout, several
right-hand sides, formatted error messages): about 3 s of a solver's first compilation with an empty
cache, for the small Newton systems (a few resources, a few hundred servers) the kernels solve.
:func:`solve` makes the same call — LAPACK's ``dgesv`` through numba's own binding to SciPy's
LAPACK, on the same Fortran-ordered copy — so compiled results are bit for bit those of
``np.linalg.solve`` compiled (``tests/test_linear_solve.py``), for 0.5 s of compilation. Run as
Python (an interpreted kernel, see :mod:`fairlib._jit`) it is NumPy's ``np.linalg.solve``, with the
compiled path's errors.

Errors as ``np.linalg.solve``'s: :class:`numpy.linalg.LinAlgError` for a non-finite entry or a
singular matrix.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import types
from numba.core.errors import TypingError
from numba.extending import overload
from numba.np.linalg import _LAPACK, F_INT_nptype, ensure_lapack

from ._jit import njit

__all__ = ["solve", "solve_compiled"]


def solve(a: npt.NDArray[np.float64], b: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """x with a x = b, for a square float64 matrix ``a`` and a float64 vector ``b`` (compiled:
    module doc).

    As Python, NumPy's solve after the compiled path's check for non-finite entries (NumPy's would
    return NaN).

    Parameters
    ----------
    a : numpy.ndarray
        Square float64 matrix, shape (n, n).
    b : numpy.ndarray
        Float64 right-hand side, shape (n,).

    Returns
    -------
    numpy.ndarray
        The solution x, float64, shape (n,).

    Raises
    ------
    numpy.linalg.LinAlgError
        On a non-finite entry, a singular matrix, or (compiled) a non-square ``a`` or a ``b`` of the
        wrong length.
    """
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise np.linalg.LinAlgError("Array must not contain infs or NaNs.")
    # float64 in, float64 out (numpy's annotations widen it to floating); astype without a copy
    # returns x itself
    return np.linalg.solve(a, b).astype(np.float64, copy=False)


@overload(solve)
def _solve_compiled(a, b):
    """The compiled :func:`solve`: checks as numba's ``np.linalg.solve`` does (square, finite), then
    ``dgesv`` on a column-major copy of ``a`` with ``b``'s copy overwritten by the solution."""
    if not (
        isinstance(a, types.Array)
        and a.ndim == 2
        and a.dtype == types.float64
        and isinstance(b, types.Array)
        and b.ndim == 1
        and b.dtype == types.float64
    ):
        raise TypingError(f"fairlib solve: a float64 matrix and a float64 vector; got {a} and {b}")
    ensure_lapack()
    xgesv = _LAPACK().numba_xgesv(types.float64)
    kind = ord("d")

    def impl(a, b):
        n = a.shape[0]
        if a.shape[1] != n or b.shape[0] != n:
            raise np.linalg.LinAlgError(
                "solve: the matrix must be square and match the right-hand side"
            )
        for i in range(n):
            if not np.isfinite(b[i]):
                raise np.linalg.LinAlgError("Array must not contain infs or NaNs.")
            for j in range(n):
                if not np.isfinite(a[i, j]):
                    raise np.linalg.LinAlgError("Array must not contain infs or NaNs.")
        x = b.copy()
        if n == 0:
            return x
        column_major = np.empty((n, n)).T  # LAPACK overwrites its copy of a with the LU factors
        for i in range(n):
            for j in range(n):
                column_major[i, j] = a[i, j]
        pivots = np.empty(n, dtype=F_INT_nptype)
        info = xgesv(kind, n, 1, column_major.ctypes, n, pivots.ctypes, x.ctypes, n)
        if info != 0:
            raise np.linalg.LinAlgError("Matrix is singular to machine precision.")
        return x

    return impl


@njit(
    cache=True, inline="always", nogil=True
)  # nogil: PF-VDS's certificate calls it from worker threads
def solve_compiled(a, b):
    """:func:`solve` as a kernel: from Python, the compiled LAPACK call that kernels make, not
    NumPy's.

    A driver steered from Python (:func:`._jit.steered`) calls it; inside a kernel it is
    :func:`solve` itself (inlined).

    Parameters
    ----------
    a : float64[:, :]
        Square matrix, shape (n, n).
    b : float64[:]
        Right-hand side, shape (n,).

    Returns
    -------
    float64[:]
        The solution x, shape (n,).
    """
    return solve(a, b)
