"""Trace-driven allocation experiments on a :class:`~fairlib.traces.Fleet` and a :class:`~fairlib.traces.Workload`.

So far the *semi-static* experiment of Khamse-Ashari et al. §6.1 (Bitbrains): take the set of users active at
random instants, allocate with each mechanism, and record per-resource utilisation. Users sit at a random
location and may use the servers of their own and of nearby locations (placement constraints). Any
mechanism from :mod:`fairlib.multires` that maps a :class:`~fairlib.multires.Cluster` to an allocation plugs in.

The time-stepped replay of §6.2 (reallocation every 5 minutes and on departures, quanta, completion times) is
not implemented yet.
"""

from __future__ import annotations

from typing import Callable, Mapping

import numpy as np
import pandas as pd

from ._validate import InvalidInputError
from .multires.cluster import Cluster
from .sweep import sweep

__all__ = ["location_eligibility", "snapshot_cluster", "snapshot_utilisation"]


def location_eligibility(fleet, n_users: int, rng=None, *, reach: int = 1) -> np.ndarray:
    """``eligible[user, server]``: each user gets a uniformly random location and may use servers whose
    location is within ``reach`` steps of it on the ring of locations (0: own location only)."""
    if fleet.location is None:
        raise InvalidInputError("fleet: has no server locations (location is None)")
    rng = np.random.default_rng(rng)
    sites = np.unique(fleet.location)
    home = rng.choice(sites, size=n_users)
    gap = np.abs(home[:, None] - fleet.location[None, :])
    ring = np.minimum(gap, len(sites) - gap)
    return ring <= reach


def snapshot_cluster(fleet, workload, t: float, eligible=None, weight=None) -> tuple[Cluster | None, np.ndarray]:
    """The cluster of the users active at ``t`` (users with an all-zero demand are left out), and their
    indices into the workload. Returns (None, empty) when nobody with a demand is active."""
    if tuple(fleet.resources) != tuple(workload.resources):
        raise InvalidInputError(f"fleet.resources {fleet.resources} != workload.resources {workload.resources}")
    idx = np.flatnonzero(workload.active_at(t) & (workload.demand > 0).any(axis=1))
    if idx.size == 0:
        return None, idx
    elig = None if eligible is None else np.asarray(eligible)[idx]
    w = None if weight is None else np.asarray(weight)[idx]
    return Cluster(fleet.capacity, workload.demand[idx], weight=w, eligible=elig), idx


def _snapshot_cell(seed, run, fleet, workload, mechanisms, reach):
    rng = np.random.default_rng(seed)
    t = rng.uniform(workload.arrival.min(), workload.departure.max())
    eligible = location_eligibility(fleet, workload.n_users, rng, reach=reach)
    cluster, idx = snapshot_cluster(fleet, workload, t, eligible)
    if cluster is None:
        return []
    rows = []
    for name, mechanism in mechanisms.items():
        util = mechanism(cluster).utilisation      # the snapshot cluster has the fleet's capacities
        rows += [{"time": t, "active_users": int(idx.size), "mechanism": name, "resource": resource,
                  "utilisation": float(u)} for resource, u in zip(fleet.resources, util)]
    return rows


def snapshot_utilisation(fleet, workload, mechanisms: Mapping[str, Callable], n_runs: int, rng, *, reach: int = 1,
                         progress: bool = False) -> pd.DataFrame:
    """§6.1-style experiment: ``n_runs`` random instants (uniform over the workload's span), a random
    location per user, every mechanism on the active users; one row per (run, mechanism, resource) with
    the cluster-wide utilisation. Runs on :func:`fairlib.sweep.sweep`. Label with ``workload.source``."""
    out = sweep(_snapshot_cell, [{"run": i} for i in range(int(n_runs))], rng=rng,
                fixed=dict(fleet=fleet, workload=workload, mechanisms=dict(mechanisms), reach=reach),
                progress=progress, desc="snapshots", cache=False)
    out = out.drop(columns="rep")
    out["source"] = workload.source
    return out
