"""Products with the constraint matrix of a placement LP, stored per eligible (user, server) pair.

Pair p belongs to user ``pair_user[p]`` and loads up to K constraint rows: ``pair_rows[p, k]`` (-1
where the coefficient is zero) with coefficients ``coef[p, k]``. A is the (rows x pairs) capacity
matrix and E the (users x pairs) matrix summing each user's pairs (PF-VDS's interior point; the
max-min one forms its coefficients on the fly). :func:`one_blas_thread`, :func:`numba_threads`,
:func:`user_chunks` and :func:`serial_twins` serve every pair solver.
"""

from __future__ import annotations

import contextlib
import types
from collections.abc import Iterator

import numba
import numpy as np
from numba.core.registry import CPUDispatcher
from threadpoolctl import ThreadpoolController

from ..._jit import njit
from ..._jit import referenced_names as _references

__all__ = [
    "row_products",
    "column_products",
    "user_sums",
    "one_blas_thread",
    "blas_threads",
    "numba_threads",
    "user_chunks",
    "serial_twins",
    "parallel_from",
    "sum_chunks",
    "TWINS",
    "PARALLEL_CHAINS",
    "THREADED_BLAS_FLOPS",
]

_BLAS = None
PARALLEL_PAIRS = 20_000  # problems with fewer eligible pairs run on one thread


#: a dense product or factorisation of at least this many floating-point operations runs BLAS on as
#: many threads as the solver's numba loops (:func:`blas_threads`): at 10,000 users x 3,000 capacity
#: rows (10,000 users x 1,000 servers x 3 resources) the max-min normal matrix's single-precision
#: product took 0.60 s on one thread and 0.29 s on two. Below it BLAS keeps one thread, so problems
#: of the notebooks' and the tests' sizes round as before.
THREADED_BLAS_FLOPS = 1e10


def blas_threads(n: int) -> contextlib.AbstractContextManager[object]:
    """Context setting BLAS to ``n`` threads (inside :func:`one_blas_thread`, for products above the
    threshold).

    The products above :data:`THREADED_BLAS_FLOPS` use it. The controller is built once: scanning
    the loaded libraries costs ~2 ms.

    Parameters
    ----------
    n : int
        Number of BLAS threads, >= 1.

    Returns
    -------
    threadpoolctl context manager
        The limit, applied on entering it and undone on leaving.
    """
    global _BLAS
    if _BLAS is None:
        _BLAS = ThreadpoolController()
    return _BLAS.limit(limits=int(n), user_api="blas")


def one_blas_thread() -> contextlib.AbstractContextManager[object]:
    """Context limiting BLAS to one thread.

    The interior points' dense products and factorisations are small (rows = servers x resources):
    one thread is faster than two contending with the numba loops between calls (measured 2x on 2
    cores).

    Returns
    -------
    threadpoolctl context manager
        The limit, applied on entering it and undone on leaving.
    """
    return blas_threads(1)


@contextlib.contextmanager
def numba_threads(n: int) -> Iterator[None]:
    """numba's thread count set to ``n`` inside the block (restored after).

    Solvers run small problems with one thread: numba's idle threads spin-wait, so a parallel region
    with spare threads beside a busy process (sweep workers on the same cores) can be 1,000x slower
    than the serial loop.

    Parameters
    ----------
    n : int
        Number of numba threads, >= 1 and at most numba's configured maximum.

    Yields
    ------
    None
        Control, with the thread count set.
    """
    outer = numba.get_num_threads()
    numba.set_num_threads(n)
    try:
        yield
    finally:
        numba.set_num_threads(outer)


@contextlib.contextmanager
def parallel_from(n_pairs: int) -> Iterator[None]:
    """:data:`PARALLEL_PAIRS` set to ``n_pairs`` inside the block (restored after).

    ``python -m fairlib.repro.warm`` compiles the parallel kernels on a tiny instance this way.

    Parameters
    ----------
    n_pairs : int
        The pair count from which problems are split over numba threads.

    Yields
    ------
    None
        Control, with the threshold set.
    """
    global PARALLEL_PAIRS
    outer = PARALLEL_PAIRS
    PARALLEL_PAIRS = n_pairs
    try:
        yield
    finally:
        PARALLEL_PAIRS = outer


def user_chunks(user_start: np.ndarray) -> np.ndarray:
    """Boundaries (users) of contiguous user chunks with about equal pair counts, one per numba
    thread.

    One chunk per thread from :data:`PARALLEL_PAIRS` pairs on, else one chunk (a parallel region
    costs more than it saves on small problems, and far more when other processes hold the cores).
    Run the kernels inside ``numba_threads(len(chunks) - 1)``.

    Parameters
    ----------
    user_start : numpy.ndarray
        Int64, shape (n_users + 1,): user n's pairs are ``user_start[n] .. user_start[n + 1] - 1``.

    Returns
    -------
    numpy.ndarray
        Int64, shape (n_chunks + 1,): chunk c holds users ``chunks[c] .. chunks[c + 1] - 1``.
    """
    n_users, n_pairs = len(user_start) - 1, int(user_start[-1])
    threads = numba.get_num_threads() if n_pairs >= PARALLEL_PAIRS else 1
    n_chunks = max(1, min(threads, n_users))
    chunks = np.searchsorted(user_start, np.linspace(0, n_pairs, n_chunks + 1)).astype(np.int64)
    chunks[0], chunks[-1] = 0, n_users
    return chunks


#: every serial twin made by :func:`serial_twins` (``python -m fairlib.repro.warm`` checks each has
#: a cache entry)
TWINS: list = []
#: the kernels they stand in for: used only when a problem is split over two or more numba threads
PARALLEL_CHAINS: list = []


def serial_twins(
    namespace: dict, in_numpy: dict | None = None
) -> tuple[types.SimpleNamespace, types.SimpleNamespace]:
    """Serial copies of a module's parallel kernels and of every kernel that calls one, directly or
    not.

    numba compiles a kernel together with everything it calls, so one ``parallel=True`` kernel deep
    in a solver makes the solver's first call compile parallel regions (parfors, thread dispatch)
    even for a problem that runs on one thread — about half of DRFH's and TSF's cold-start time.
    The twins run the same source compiled without ``parallel`` (``prange`` is ``range`` there) and
    call each other, so a problem below :data:`PARALLEL_PAIRS` (one chunk, see :func:`user_chunks`)
    never compiles a parallel region, and a large one compiles the parallel kernels on first use.
    Each twin is a copy of the Python function with its own name (``<name>__serial``, hence its own
    cache file) and a copy of the module's globals in which the chain's names point at the twins.
    With one chunk the serial and parallel kernels compute the same values (parallel regions run on
    one thread, in order; ``tests/test_serial_twins.py`` compares them bit for bit).

    Parameters
    ----------
    namespace : dict
        The module's ``globals()``, after its kernels are defined.
    in_numpy : dict or None, default None
        Parallel kernels called only from Python whose one-chunk work NumPy does as well, by name,
        with the function standing in for each twin (same arguments, same values bit for bit): an
        element-wise pass gains nothing from compilation on a small problem, and its twin would cost
        the first call its compilation.

    Returns
    -------
    tuple of types.SimpleNamespace
        ``(serial, parallel)``: the twins and the original kernels of the chain, by name.

    Raises
    ------
    ValueError
        When a name in ``in_numpy`` is not a parallel kernel of the module, or some kernel calls it.
    """
    module = namespace["__name__"]
    in_numpy = in_numpy or {}
    kernels = {
        name: value
        for name, value in namespace.items()
        if isinstance(value, CPUDispatcher) and value.py_func.__module__ == module
    }
    for name in in_numpy:
        callers = [
            other
            for other, kernel in kernels.items()
            if name in _references(kernel.py_func.__code__)
        ]
        if name not in kernels or not kernels[name].targetoptions.get("parallel") or callers:
            raise ValueError(
                f"in_numpy[{name!r}]: only a parallel kernel of {module} that no kernel "
                f"calls can run in NumPy (called by {callers})"
            )
    chain = {
        name for name, kernel in kernels.items() if kernel.targetoptions.get("parallel")
    } - set(in_numpy)
    grown = True
    while grown:  # callers of the chain join it until nothing changes
        callers = {
            name for name, kernel in kernels.items() if _references(kernel.py_func.__code__) & chain
        }
        grown = not callers <= chain
        chain |= callers
    scope = dict(namespace)  # the twins' globals: the chain's names rebound to the twins below
    twins = {}
    for name in sorted(chain):
        original = kernels[name].py_func
        copy = types.FunctionType(
            original.__code__, scope, original.__name__, original.__defaults__, original.__closure__
        )
        copy.__qualname__ = f"{original.__qualname__}__serial"
        copy.__module__, copy.__doc__ = module, original.__doc__
        options = {
            k: v
            for k, v in kernels[name].targetoptions.items()
            if k not in ("parallel", "nopython")
        }
        if kernels[name].targetoptions.get("parallel"):
            # a chunk loop's twin is one plain loop: inlined into its callers, not compiled, linked
            # and re-optimised as a function of its own under each of them
            options["inline"] = "always"
        twins[name] = njit(cache=True, **options)(copy)
    scope.update(twins)
    TWINS.extend(twins.values())
    PARALLEL_CHAINS.extend(kernels[name] for name in twins)
    PARALLEL_CHAINS.extend(kernels[name] for name in in_numpy)
    return (
        types.SimpleNamespace(**twins, **in_numpy),
        types.SimpleNamespace(**{name: kernels[name] for name in [*twins, *in_numpy]}),
    )


@njit(cache=True, inline="always")
def largest(values):
    """``values.max()`` of a non-empty vector by a loop, without compiling numba's general array
    reduction.

    That reduction is about 0.5 s of a first compilation; this is the same maximum, and a NaN
    anywhere wins, as there.

    Parameters
    ----------
    values : float64[:]
        A non-empty vector.
    """
    top = values[0]
    for i in range(1, values.shape[0]):
        if not (values[i] <= top or np.isnan(top)):
            top = values[i]
    return top


@njit(cache=True)
def sum_chunks(parts):
    """Σ over the rows of per-chunk partial sums ``parts``, added in chunk order from zero.

    The same additions as ``parts.sum(axis=0)`` compiled, without compiling numba's general axis
    reduction (its axis checks and error messages cost about a second of every solver's first
    compilation). Callers pass their parts flattened to two dimensions (``parts.reshape((n_chunks,
    -1))``): one compilation serves them all.

    Parameters
    ----------
    parts : float64[:, :]
        Per-chunk partial sums, shape (n_chunks, size), C-contiguous.
    """
    out = np.zeros(parts.shape[1])
    for c in range(parts.shape[0]):
        for j in range(parts.shape[1]):
            out[j] += parts[c, j]
    return out


@njit(cache=True)
def row_products(x, pair_rows, coef, n_rows):
    """A x.

    Parameters
    ----------
    x : float64[:]
        One value per pair, shape (n_pairs,).
    pair_rows : int64[:, :]
        Shape (n_pairs, K): the constraint rows each pair loads, -1 where the coefficient is zero.
    coef : float64[:, :]
        Shape (n_pairs, K): the coefficients.
    n_rows : int
        Number of constraint rows.

    Returns
    -------
    float64[:]
        Shape (n_rows,).
    """
    out = np.zeros(n_rows)
    for p in range(x.shape[0]):
        for k in range(coef.shape[1]):
            if pair_rows[p, k] >= 0:
                out[pair_rows[p, k]] += coef[p, k] * x[p]
    return out


@njit(cache=True)
def column_products(y, pair_rows, coef):
    """Aᵀ y per pair.

    Parameters
    ----------
    y : float64[:]
        One value per constraint row, shape (n_rows,).
    pair_rows : int64[:, :]
        Shape (n_pairs, K): the constraint rows each pair loads, -1 where the coefficient is zero.
    coef : float64[:, :]
        Shape (n_pairs, K): the coefficients.

    Returns
    -------
    float64[:]
        Shape (n_pairs,).
    """
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
    """E v.

    Parameters
    ----------
    v : float64[:]
        One value per pair, shape (n_pairs,).
    pair_user : int64[:]
        Each pair's user, shape (n_pairs,).
    n_users : int
        Number of users.

    Returns
    -------
    float64[:]
        Shape (n_users,).
    """
    out = np.zeros(n_users)
    for p in range(v.shape[0]):
        out[pair_user[p]] += v[p]
    return out
