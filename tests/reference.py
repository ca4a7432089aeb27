"""Slow, obviously-correct references for the fast kernels (differential tests).

The single-pool DRF references live in the library because the benchmarks and notebooks use them as
baselines; they are re-exported here so every test imports its reference from one place.
"""

from fairlib.multires.baselines import drf_argmin_loop, drf_heapq  # noqa: F401
from fairlib.multires.lp import maxmin_lp  # noqa: F401
