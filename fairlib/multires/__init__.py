"""Static multi-resource fair allocation: one contract, ``mechanism(cluster, **options) ->
Allocation``.

Mechanisms (each also registered in :mod:`fairlib.mechanisms`):

- one pool (a one-server :class:`Cluster`, :meth:`Cluster.single_pool`): :func:`drf` (progressive
  filling, indivisible tasks), :func:`edrf` (divisible), :func:`pdrf` (Precomputed DRF),
  :func:`asset_fairness`, :func:`ceei` (with prices). ``drf``/``edrf``/``pdrf`` also keep their
  array form, ``drf(demands, capacity)``;
- heterogeneous servers with placement constraints (Khamse-Ashari et al.): :func:`drfh`, :func:`tsf`
  (weighted max-min on totals), :func:`drfh_best_fit` (the DRFH paper's task-by-task Best-Fit
  placement heuristic), :func:`drf_machine_offers` (pooled DRF served machine by machine, as Mesos's
  and YARN's offer loops run it), :func:`psdsf` (per-server max-min on virtual dominant shares),
  :func:`pfvds` (the α-fair per-server game; α = ∞ is PS-DSF), :func:`psmfa` (the distributed
  heuristic).

Checkers: :func:`property_violations` (SI, EF, PO, BF of an allocation), :func:`misreports`,
:func:`leontief_tasks` (a mechanism's properties, strategy-proofness included, are checked one layer
up, in :mod:`fairlib.properties`, where a registered name is resolved: nothing in this package
imports the registry). Schedulers: :class:`DRFSorter` (who Mesos's, YARN's, Kueue's or Volcano's DRF
sorter offers resources to next, with allocation counts, nested roles, weights, minimum shares,
quotas and zero-capacity resources as those schedulers treat them);
:func:`drf`'s ``tie_break="allocation_count"`` / ``"lexicographic"`` and ``start`` are its
progressive-filling form; :func:`hierarchical_drf` fills a tree of weighted queues (H-DRF, or the
naive rule of Mesos's nested roles); :class:`Quotas` (``drf(..., quotas=...)``) adds guarantees,
limits and lending limits as resource vectors (YARN's min/max shares, Mesos's quota, Kueue's nominal
quota with borrowing and lending limits). References: :func:`maxmin_lp` (HiGHS). The private kernels
the mechanisms share live in ``fairlib.multires._engine``.
"""

from .best_fit import drfh_best_fit
from .machine_offers import drf_machine_offers
from .cluster import (
    Allocation,
    Cluster,
    ServerAllocation,
    keeps_servers,
    leontief_tasks,
    merge_identical_servers,
    monopoly_tasks,
    on_merged_servers,
    per_server_alpha,
    random_cluster,
    random_pool,
)
from .edrf import EDRFResult, PDRFResult, edrf, pdrf
from .schedulers.hierarchy import (
    HIERARCHY_VARIANTS,
    HierarchicalDRFResult,
    QueueTree,
    hierarchical_drf,
    queue_tree,
)
from .global_maxmin import drfh, drfh_coefficients, tsf, tsf_coefficients, weighted_maxmin_totals
from .lp import maxmin_lp
from .pfvds import (
    best_response_column,
    merit,
    nash_residual,
    pfvds,
    proportional_fair_objective,
    psmfa,
)
from .pfvds.conditions import least_merit, marginal_utilities, server_multipliers, variational_gap
from .pooled import asset_fairness, asset_share_per_task, ceei
from .progressive_filling import DRFResult, drf
from .checks.utilisation_range import UtilisationRange, utilisation_range
from .psdsf import psdsf, psdsf_violation
from .schedulers.quotas import QUOTA_SHARES, Quotas
from .schedulers.sorter import SORTER_SEMANTICS, DRFSorter
from .checks.server_properties import (
    bottleneck_fairness_violation,
    envy_violation,
    misreports,
    pareto_violation,
    property_violations,
    sharing_incentive_violation,
)
# new mechanisms are imported above this line (python -m fairlib.repro.scaffold mechanism NAME ...)

__all__ = [
    # the result and the instance
    "Cluster",
    "Allocation",
    "ServerAllocation",
    "random_cluster",
    "random_pool",
    "leontief_tasks",
    "monopoly_tasks",
    "merge_identical_servers",
    "on_merged_servers",
    "keeps_servers",
    "per_server_alpha",
    # single pool
    "drf",
    "DRFResult",
    "edrf",
    "EDRFResult",
    "pdrf",
    "PDRFResult",
    "asset_fairness",
    "asset_share_per_task",
    "ceei",
    # heterogeneous servers
    "drfh",
    "drfh_best_fit",
    "drf_machine_offers",
    "tsf",
    "drfh_coefficients",
    "tsf_coefficients",
    "weighted_maxmin_totals",
    "psdsf",
    "psdsf_violation",
    "pfvds",
    "nash_residual",
    "best_response_column",
    "merit",
    "proportional_fair_objective",
    "psmfa",
    "marginal_utilities",
    "variational_gap",
    "server_multipliers",
    "least_merit",
    "utilisation_range",
    "UtilisationRange",
    # properties and references
    "property_violations",
    "sharing_incentive_violation",
    "envy_violation",
    "pareto_violation",
    "bottleneck_fairness_violation",
    "misreports",
    "maxmin_lp",
    # production schedulers' offer order
    "DRFSorter",
    "SORTER_SEMANTICS",
    "Quotas",
    "QUOTA_SHARES",
    # hierarchical DRF over a tree of queues
    "hierarchical_drf",
    "HierarchicalDRFResult",
    "queue_tree",
    "QueueTree",
    "HIERARCHY_VARIANTS",
]
