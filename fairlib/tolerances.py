"""How far a number may move when only the order of its floating-point operations changes.

Two runs of the same computation round differently on another CPU (other vectorisation, another BLAS
kernel, other thread counts) and along the interpreted and compiled paths of a kernel
(:mod:`fairlib._jit`). Two such numbers ``a`` and ``b`` are equal when ``|a - b| <= DEFAULT_RTOL *
max(|a|, |b|)`` or ``|a - b| <= DEFAULT_ATOL``:
:func:`fairlib.testing.check_game_kernels_agree_interpreted_and_compiled` holds a game's two paths
to them, and ``run_all.py --verify`` (:mod:`fairlib.repro.verify`) holds the columns of a notebook's
tables it declares no tolerance for to them.

>>> DEFAULT_RTOL, DEFAULT_ATOL
(1e-06, 1e-09)
"""

__all__ = ["DEFAULT_RTOL", "DEFAULT_ATOL"]

#: relative tolerance: numbers equal when |a - b| <= rtol·max(|a|, |b|) (or within
#: :data:`DEFAULT_ATOL`)
DEFAULT_RTOL = 1e-6
#: absolute tolerance, for values that are zero up to rounding
DEFAULT_ATOL = 1e-9
