"""fairlib's numba kernels, and the rule that runs a small problem's kernels as plain Python
instead.

numba compiles a kernel, with everything it calls, on its first call; for the interior-point and
market solvers that is 10–30 s with an empty cache (``benchmarks/bench_cold_start.py``), while the
same Python source run by the interpreter answers a problem of a few users and servers in
milliseconds. So every public mechanism decides by the size of its own problem
(:func:`interpreted_when_small`): at most :data:`INTERPRET_AT_MOST` cells (users x servers x
resources for a cluster, the demand matrix's size for a pool, users x machines for a game, the
machines for a best response) its kernels run interpreted — the same source, nothing compiled —
and above it compiled; so do calls whose work the size does not bound (an iterative method's
thousands of iterations, progressive filling of many tasks: ``bounded``). The rule depends only on
the problem and the options, so a problem takes the same path on every machine and in every run,
warm or cold; the two paths agree as two CPUs do (``tests/test_interpreted_kernels.py``: integral
allocations identical, divisible ones within ``run_all.py --verify``'s tolerances).

Every kernel is made by :func:`njit` (numba's; a plain dispatcher except while an interpreted call
runs, see :class:`Kernel`). Inside :func:`compiled` every kernel
is compiled whatever the size (``python -m fairlib.repro.warm`` and the benchmarks use it); inside
:func:`interpreted` every kernel runs as Python. :func:`steered` is the third arrangement, whatever
the size: a driver's loop as Python over compiled kernels, so that a first compilation does not
optimise the kernels it calls a second time.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import inspect
import os
import threading
import types
from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba.core.registry import CPUDispatcher

__all__ = [
    "njit",
    "Kernel",
    "KERNELS",
    "INTERPRET_AT_MOST",
    "MAX_INTERPRET_AT_MOST",
    "interpreted_when_small",
    "problem_cells",
    "compiled",
    "interpreted",
    "interpreting",
    "steered",
    "STEERED_CALLS",
    "referenced_names",
]

#: a public mechanism's kernels run interpreted when its problem has at most this many cells (see
#: module doc): a 4-user, 4-server, 2-resource cluster is 32 cells, 8 users on 4 servers 64.
#: Measured (AMD EPYC, one thread): 2 users x 2 servers x 2 resources DRFH 4.6 ms interpreted vs 1.8
#: ms compiled, PF-VDS 25 vs 11 ms; 5 x 3 x 2 DRFH 13 vs 2.2 ms, PF-VDS 52 vs 13 ms; an empty cache
#: costs 10-30 s per mechanism compiled.
INTERPRET_AT_MOST = 64
#: the largest ``FAIRLIB_INTERPRET_AT_MOST``, in cells: no problem fairlib holds in memory has more
#: (one float64 array of 10**9 cells is 8 GB), so a larger value interprets nothing more than this
#: one does and is a typo, refused rather than read
MAX_INTERPRET_AT_MOST = 10**9
if os.environ.get(
    "FAIRLIB_INTERPRET_AT_MOST"
):  # 0: always compiled (a sweep of many small problems)
    _value = os.environ["FAIRLIB_INTERPRET_AT_MOST"]
    # "١" is a digit to str.isdigit, not to us; the length is compared first, as int() refuses
    # text of more than 4,300 digits with a message naming no variable
    if not (
        _value.isascii()
        and _value.isdigit()
        and len(_value) <= 100  # fairlib._validate.MAX_INTEGER_DIGITS, leading zeros included
        and int(_value) <= MAX_INTERPRET_AT_MOST
    ):
        # the error is fairlib._errors' (re-exported by _validate): importing _validate here would
        # tie every kernel's cache key to it
        from ._errors import InvalidInputError

        _shown = repr(_value) if len(_value) <= 80 else f"{_value[:40]!r}... ({len(_value)} chars)"
        raise InvalidInputError(
            f"FAIRLIB_INTERPRET_AT_MOST = {_shown}: must be a count of cells (an integer from 0 "
            f"to MAX_INTERPRET_AT_MOST = {MAX_INTERPRET_AT_MOST:,})"
        )
    INTERPRET_AT_MOST = int(_value)

# None: each public mechanism decides by its size; True / False: forced by interpreted() /
# compiled()
_FORCED: contextvars.ContextVar[bool | None] = contextvars.ContextVar(
    "fairlib_forced_tier", default=None
)
# whether the kernels called now run as Python (set by the public mechanism being run, per thread
# and task)
_INTERPRET: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "fairlib_interpret", default=False
)


#: every kernel made by :func:`njit` (their class is switched while an interpreted call runs, see
#: _interpreting)
KERNELS: list = []
_SWITCH = threading.Lock()
_DEPTH = 0  # interpreted calls running now, in any thread


class Kernel(CPUDispatcher):
    """The class of fairlib's kernels while some call runs interpreted.

    A call from Python runs the kernel's Python source when this thread's (or task's) call is
    interpreted, numba's compiled dispatch otherwise. The rest of the time the kernels are plain
    numba dispatchers: a Python-level ``__call__`` costs ~2 µs per call, which loops calling small
    kernels (a per-step timing, a best-response sweep) would pay. Calls from compiled kernels never
    go through ``__call__`` (numba links them directly), so compiled code stays compiled all the way
    down; an interpreted kernel calls the others through ``__call__``, so they run interpreted too.
    Instances are never built directly: :func:`njit` makes numba dispatchers and their class is
    switched to this one (same layout).

    Parameters
    ----------
    py_func : function
        The kernel's Python source function (numba's ``Dispatcher`` argument).
    locals : dict
        numba's type declarations of local variables.
    targetoptions : dict
        numba's compilation options (``cache``, ``nogil``, ...).
    pipeline_class : type, optional
        numba's compiler pipeline class.
    """

    def __call__(self, *args, **kwargs):
        """Run interpreted while :data:`_INTERPRET` is set, compiled (numba's dispatch)
        otherwise."""
        if _INTERPRET.get():
            return self.py_func(*args, **kwargs)
        return super().__call__(*args, **kwargs)


def njit(*args: Callable[..., Any], **options: Any) -> Any:
    """``numba.njit`` (same options, same cache files), with the kernel registered in
    :data:`KERNELS`.

    Parameters
    ----------
    *args : function
        Either nothing (``@njit(cache=True)``) or the function to compile (``@njit``); signatures
        are refused.
    **options
        numba's ``njit`` options (``cache``, ``nogil``, ``inline``, ...).

    Returns
    -------
    numba.core.registry.CPUDispatcher or callable
        The kernel, or a decorator making one when called with options only.

    Raises
    ------
    TypeError
        When a positional argument other than the function (an explicit signature) is given.
    """

    def make(function):
        kernel = numba.njit(**options)(function)
        with _SWITCH:
            KERNELS.append(kernel)
            if _DEPTH:  # made (a module imported) during an interpreted call
                kernel.__class__ = Kernel
        return kernel

    if args and callable(args[0]):
        return make(args[0])
    if args:
        raise TypeError(
            f"fairlib._jit.njit takes keyword options only (no signatures); got {args!r}"
        )
    return make


#: kernels called from Python by a :func:`steered` driver: each has a cache entry of its own even
#: when it is ``inline="always"`` for compiled callers (``python -m fairlib.repro.warm`` checks
#: them)
STEERED_CALLS: set = set()


def referenced_names(code: types.CodeType) -> set[str]:
    """Global names a function's bytecode reads, nested code objects included.

    Parameters
    ----------
    code : types.CodeType
        The function's code object (``function.__code__``).

    Returns
    -------
    set of str
        The names in ``co_names`` of ``code`` and of every code object nested in it.
    """
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= referenced_names(const)
    return names


def steered(kernel: CPUDispatcher, *inner: str) -> types.FunctionType:
    """``kernel``'s Python source as a plain Python function, in which the kernels named ``inner``
    run as Python too.

    Everything else it calls stays compiled. numba compiles a kernel with a copy of every kernel it
    calls linked in and optimised again as part of it, so a driver that only sequences a few heavy
    kernels (a Newton loop: evaluate, solve, line search) costs its callees' optimisation a second
    time on its first compilation. Steered from Python, each callee compiles once, for a few
    microseconds per call. Use it where the driver runs a few dozen iterations per call and its own
    arithmetic is plain IEEE operations (no ``exp``/``log``, sums or ``solve``: NumPy's can round
    differently from the compiled ones); the compiled kernel stays for compiled callers.

    Parameters
    ----------
    kernel : numba.core.registry.CPUDispatcher
        The driver kernel.
    *inner : str
        Names, in the kernel's module, of kernels it calls that run as Python as well.

    Returns
    -------
    function
        A copy of ``kernel.py_func`` whose globals map each ``inner`` name to its Python function.

    Raises
    ------
    ValueError
        When a name in ``inner`` is not a kernel of the driver's module.
    """
    scope = dict(kernel.py_func.__globals__)
    for name in inner:
        if not isinstance(scope.get(name), CPUDispatcher):
            raise ValueError(f"steered: {name!r} is not a kernel of {kernel.py_func.__module__}")
        scope[name] = scope[name].py_func
    function = kernel.py_func
    for code in [function.__code__] + [scope[name].__code__ for name in inner]:
        STEERED_CALLS.update(
            value
            for name, value in scope.items()
            if name in referenced_names(code) and isinstance(value, CPUDispatcher)
        )
    copy = types.FunctionType(
        function.__code__, scope, function.__name__, function.__defaults__, function.__closure__
    )
    copy.__qualname__, copy.__doc__ = f"{function.__qualname__}__steered", function.__doc__
    return copy


@contextlib.contextmanager
def _interpreting(name: str):
    """Run the block's kernels interpreted (``name``: the mechanism, for tests). The first
    interpreted call in the process switches every kernel's class to :class:`Kernel` (same layout:
    only ``__call__`` differs), the last one switches them back; other threads meanwhile still run
    compiled code (their context says so)."""
    global _DEPTH
    with _SWITCH:
        _DEPTH += 1
        if _DEPTH == 1:
            for kernel in KERNELS:
                kernel.__class__ = Kernel
    token = _INTERPRET.set(True)
    try:
        yield
    finally:
        _INTERPRET.reset(token)
        with _SWITCH:
            _DEPTH -= 1
            if _DEPTH == 0:
                for kernel in KERNELS:
                    kernel.__class__ = CPUDispatcher


def problem_cells(problem: object) -> int | None:
    """Cells of a mechanism's first argument, the size :func:`interpreted_when_small` decides by.

    Parameters
    ----------
    problem : object
        A cluster (users x servers x resources), a game (:class:`fairlib.market.Game`, users x
        machines), or an array-like (its size).

    Returns
    -------
    int or None
        The number of cells; None when ``problem`` is none of these (the mechanism's own validation
        then reports the argument).
    """
    if (
        type(problem) is np.ndarray
    ):  # the common case first: a microsecond matters for a small kernel's call
        return int(problem.size)
    shape = (
        getattr(problem, "n_users", None),
        getattr(problem, "n_servers", None),
        getattr(problem, "n_resources", None),
    )
    if all(isinstance(n, int) for n in shape):
        return shape[0] * shape[1] * shape[2]
    machines = getattr(problem, "n_machines", None)
    if isinstance(shape[0], int) and isinstance(machines, int):
        return shape[0] * machines
    if problem is None:
        return None
    try:
        return int(np.asarray(problem, dtype=float).size)
    except (TypeError, ValueError, OverflowError):  # an int beyond the float range: validation's
        return None


def interpreted_when_small(
    function: Callable[..., Any] | None = None, *, bounded: Callable[..., bool] | None = None
) -> Callable[..., Any]:
    """Decorate a public mechanism so that its kernels run interpreted on a small problem.

    Its kernels run interpreted when its first argument has at most :data:`INTERPRET_AT_MOST` cells
    (:func:`problem_cells`) and, if given, ``bounded(*args, **kwargs)`` is true, compiled otherwise,
    unless :func:`compiled` or :func:`interpreted` forces one path. A mechanism called by another
    decides by its own problem.

    Parameters
    ----------
    function : callable or None, default None
        The mechanism; None when the decorator is called with ``bounded`` only.
    bounded : callable or None, default None
        Called with the mechanism's arguments, it says whether the call's work is bounded by the
        problem's size: an iterative method run for thousands of iterations (PF-VDS's best-response
        sweeps) or progressive filling of a pool that holds millions of tasks is slow in the
        interpreter however few users it has, so it stays compiled. None: always bounded.

    Returns
    -------
    callable
        The wrapped mechanism, or a decorator when ``function`` is None.
    """
    if function is None:
        return functools.partial(interpreted_when_small, bounded=bounded)
    first = next(iter(inspect.signature(function).parameters))

    @functools.wraps(function)
    def run(*args, **kwargs):
        forced = _FORCED.get()
        if forced is None:
            cells = problem_cells(args[0] if args else kwargs.get(first))
            forced = (
                cells is not None and cells <= INTERPRET_AT_MOST and _bounded(bounded, args, kwargs)
            )
        if forced:
            with _interpreting(function.__name__):
                return function(*args, **kwargs)
        if (
            not _INTERPRET.get()
        ):  # compiled already: no context to set (it costs more than a small kernel)
            return function(*args, **kwargs)
        with _compiling():
            return function(*args, **kwargs)

    return run


def _bounded(bounded, args, kwargs) -> bool:
    """``bounded(*args, **kwargs)``, False where it cannot tell (bad input: the mechanism then
    reports it)."""
    if bounded is None:
        return True
    try:
        return bool(bounded(*args, **kwargs))
    except Exception:  # noqa: BLE001
        # any failure here is the mechanism's to report, with its own message
        return False


@contextlib.contextmanager
def _compiling():
    """Run the block's kernels compiled, also inside an interpreted call (a larger problem solved
    within it)."""
    token = _INTERPRET.set(False)
    try:
        yield
    finally:
        _INTERPRET.reset(token)


@contextlib.contextmanager
def _forced(value: bool):
    token = _FORCED.set(value)
    try:
        with _interpreting("interpreted()") if value else _compiling():
            yield
    finally:
        _FORCED.reset(token)


def compiled() -> contextlib.AbstractContextManager[None]:
    """Context: every kernel compiled, whatever the problem's size (the warm-up, speed
    measurements).

    Returns
    -------
    contextlib.AbstractContextManager
        The context; on entering it, kernels called in this thread or task run compiled.
    """
    return _forced(False)


def interpreting() -> bool:
    """Whether the kernels called now run as Python (an interpreted public call is running in this
    thread or task).

    A driver with a compiled fast path and a vectorised Python one takes the Python one then.

    Returns
    -------
    bool
        True inside an interpreted call.
    """
    return _INTERPRET.get()


def interpreted() -> contextlib.AbstractContextManager[None]:
    """Context: every kernel run as Python, whatever the problem's size (tests comparing the two
    paths).

    Returns
    -------
    contextlib.AbstractContextManager
        The context; on entering it, kernels called in this thread or task run as Python.
    """
    return _forced(True)
