"""Timing helpers: medians of repeated calls, for side-by-side speed comparisons."""

from __future__ import annotations

import platform
import statistics
import time
import timeit
from collections.abc import Callable
from pathlib import Path

from ._jit import compiled
from ._validate import InvalidInputError, _short, as_count, as_number

__all__ = ["median_time", "cpu_model"]


#: the most samples (``repeat``) and warm-up calls (``warmup``) a timing takes: a median needs a few
#: dozen; more is a typo that would time the machine for hours
MAX_SAMPLES = 1000


def median_time(
    fn: Callable[[], object],
    *,
    repeat: int = 5,
    min_time: float = 0.02,
    warmup: int = 1,
    slow: float = 0.5,
) -> float:
    """Median wall time of ``fn()`` in seconds, sampled with :class:`timeit.Timer` (garbage
    collection off).

    ``Timer.autorange`` is not used: its 0.2 s floor per sample would make the notebooks' speed
    sweeps (hundreds of cells) ten times longer for no better median.
    Every call runs the compiled kernels, whatever the problem's size
    (:func:`fairlib._jit.compiled`): a speed comparison is of the methods, not of numba against the
    interpreter that answers a mechanism's small problems.

    Parameters
    ----------
    fn : callable
        The call to time, taking no arguments (its result is discarded).
    repeat : int, default 5
        Samples whose median is returned (>= 1).
    min_time : float, default 0.02
        Seconds each sample lasts at least: calls cheaper than this are looped within a sample and
        the loop's time divided by its count (0 to 60).
    warmup : int, default 1
        Untimed calls first (numba compilation, caches), >= 0.
    slow : float, default 0.5
        Seconds above which a call is sampled three times at most, the (already compiled) first
        timed call counting as a sample (>= 0).

    Returns
    -------
    float
        The median over the samples of the seconds per call.

    Raises
    ------
    InvalidInputError
        When ``fn`` is not callable or a number is out of its range, naming the argument.
    """
    if not callable(fn):
        raise InvalidInputError(f"fn = {_short(fn)}: expected a callable of no arguments")
    repeat = as_count(repeat, "repeat", maximum=MAX_SAMPLES)
    warmup = as_count(warmup, "warmup", minimum=0, maximum=MAX_SAMPLES)
    min_time = as_number(min_time, "min_time", inclusive=True, maximum=60.0)
    slow = as_number(slow, "slow", inclusive=True)
    with compiled():
        return _median_time(fn, repeat, min_time, warmup, slow)


def _median_time(
    fn: Callable[[], object], repeat: int, min_time: float, warmup: int, slow: float
) -> float:
    for _ in range(warmup):
        fn()
    timer = timeit.Timer(fn)
    t0 = time.perf_counter()
    fn()
    once = time.perf_counter() - t0
    if once > slow:
        return statistics.median([once] + timer.repeat(repeat=min(repeat, 3) - 1, number=1))
    loops = max(1, int(min_time / max(once, 1e-9)))
    return statistics.median(t / loops for t in timer.repeat(repeat=repeat, number=loops))


def cpu_model() -> str:
    """The processor as what decides the numbers: architecture, vendor, family/model and widest
    vector unit.

    Described by these fields rather than by its marketing name, which virtual machines often
    truncate.

    Returns
    -------
    str
        For example ``"x86_64 GenuineIntel family 6 model 85, AVX-512"``; the architecture alone
        (:func:`platform.machine`) where ``/proc/cpuinfo`` cannot be read.
    """
    fields: dict[str, str] = {}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            fields.setdefault(key.strip(), value.strip())
    except OSError:
        return platform.machine()
    flags = set(fields.get("flags", "").split())
    vector = (
        "AVX-512"
        if "avx512f" in flags
        else "AVX2"
        if "avx2" in flags
        else "SSE"
        if "sse2" in flags
        else "?"
    )
    return (
        f"{platform.machine()} {fields.get('vendor_id', '')} family "
        f"{fields.get('cpu family', '?')} model {fields.get('model', '?')}, {vector}"
    )
