"""Dynamic DRF: agents arrive over time (Kash, Procaccia, Shah 2014; Li, Liu, Zhang, Zhang).

:func:`dynamic_drf` (methods ``linear``, ``waterfill``, ``lp``), the static benchmark, competitive
ratios, worst-case instances, property checks and the cautious-LP reconstruction [INF].
"""

from .analysis import (
    check_properties,
    competitive_ratios,
    maxmin_tight_example,
    maxsum_counterexample,
    strategyproofness_spot_check,
)
from .cautious import cautious_lp
from .drf import (
    METHODS,
    DynamicDRFResult,
    dynamic_drf,
    dynamic_drf_step,
    normalize_demands,
    static_drf_levels,
)

__all__ = [
    "dynamic_drf",
    "dynamic_drf_step",
    "DynamicDRFResult",
    "METHODS",
    "normalize_demands",
    "static_drf_levels",
    "competitive_ratios",
    "maxsum_counterexample",
    "maxmin_tight_example",
    "check_properties",
    "strategyproofness_spot_check",
    "cautious_lp",
]
