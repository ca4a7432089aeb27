"""Static multi-resource fair allocation.

Single resource pool: :func:`drf` (progressive filling, indivisible tasks), :func:`edrf` (divisible
tasks), :func:`pdrf` (Precomputed DRF), and :mod:`~fairlib.multires.pdrf_comparison` (counting
PDRF's deviations from DRF as in Metin's tables).
"""

from .edrf import EDRFResult, PDRFResult, edrf, pdrf
from .progressive_filling import DRFResult, drf

__all__ = ["drf", "DRFResult", "edrf", "EDRFResult", "pdrf", "PDRFResult"]
