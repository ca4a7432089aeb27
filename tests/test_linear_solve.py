"""fairlib._linear_solve.solve: inside a kernel, bit for bit numba's compiled np.linalg.solve (its
slow reference), with the same errors; as Python, NumPy's."""

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairlib._jit import compiled
from fairlib._linear_solve import solve, solve_compiled


@numba.njit
def _lean(a, b):
    return solve(a, b)


@numba.njit
def _numba_solve(a, b):
    return np.linalg.solve(a, b)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 8), st.integers(0, 2**32 - 1), st.booleans())
def test_compiled_solve_is_numbas_np_linalg_solve_bit_for_bit(n, seed, transposed):
    """Random systems over 16 orders of magnitude, C- and F-ordered matrices: the same LU (LAPACK's
    dgesv on the same copy), so the same bits."""
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(n, n)) * 10.0 ** rng.integers(-8, 8, size=(n, n)) + np.eye(n)
    if transposed:
        a = a.T
    b = rng.normal(size=n)
    assert _lean(a, b).tobytes() == _numba_solve(a, b).tobytes()
    with (
        compiled()
    ):  # the kernel called from Python (steered drivers): the compiled call, not NumPy's
        assert solve_compiled(a, b).tobytes() == _numba_solve(a, b).tobytes()
    assert np.allclose(solve(a, b), np.linalg.solve(a, b), rtol=1e-8, atol=0.0) or n == 0


@pytest.mark.parametrize(
    "a, b",
    [
        (np.zeros((2, 2)), np.ones(2)),  # singular
        (np.array([[1.0, np.nan], [0.0, 1.0]]), np.ones(2)),  # NaN in the matrix
        (np.eye(2), np.array([1.0, np.inf])),  # inf in the right-hand side
    ],
)
def test_errors_are_np_linalg_solves(a, b):
    """A singular matrix or a non-finite entry raises numpy.linalg.LinAlgError, compiled as numba's
    solve does and as Python."""
    for run in (_lean, _numba_solve, solve):
        with pytest.raises(np.linalg.LinAlgError):
            run(a, b)


def test_shape_and_type_errors():
    """A non-square matrix is refused; a matrix of integers does not compile (the kernels pass
    float64)."""
    with pytest.raises(np.linalg.LinAlgError, match="square"):
        _lean(np.ones((2, 3)), np.ones(2))
    with pytest.raises(numba.core.errors.TypingError, match="float64"):
        _lean(np.eye(2, dtype=np.int64), np.ones(2))
