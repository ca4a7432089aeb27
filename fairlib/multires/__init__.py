"""Static multi-resource fair allocation.

Single resource pool: :func:`drf` (progressive filling, indivisible tasks), :func:`edrf` (divisible
tasks), :func:`pdrf` (Precomputed DRF), and :mod:`~fairlib.multires.pdrf_comparison` (counting
PDRF's deviations from DRF as in Metin's tables).

Heterogeneous servers with placement constraints (Khamse-Ashari et al.): :class:`Cluster`,
:func:`drfh`, :func:`tsf` (weighted max-min on totals: a structured interior point, HiGHS as the
reference), :func:`psdsf` (per-server max-min on virtual dominant shares), :func:`pfvds` (α-fair
per-server game; α = ∞ is PS-DSF), property checkers in :mod:`~fairlib.multires.server_properties`.
"""

from .cluster import Cluster, ServerAllocation
from .edrf import EDRFResult, PDRFResult, edrf, pdrf
from .global_maxmin import drfh, tsf
from .pfvds import pfvds
from .progressive_filling import DRFResult, drf
from .psdsf import psdsf

__all__ = ["drf", "DRFResult", "edrf", "EDRFResult", "pdrf", "PDRFResult", "Cluster", "ServerAllocation", "drfh",
           "tsf", "psdsf", "pfvds"]
