"""Semi-static trace-driven experiment (Khamse-Ashari et al. §6.1 style) on synthetic Bitbrains VMs."""
import numpy as np
import pytest

from fairlib import sim
from fairlib._validate import InvalidInputError
from fairlib.multires import psdsf, tsf
from fairlib.traces import bitbrains_fleet, bitbrains_workload, read_vms, synthetic_bitbrains


def test_location_eligibility_ring():
    fleet = bitbrains_fleet(locations=3)
    own = sim.location_eligibility(fleet, 50, rng=1, reach=0)
    near = sim.location_eligibility(fleet, 50, rng=1, reach=1)
    assert own.shape == (50, 250) and (own.sum(axis=1) > 0).all()
    assert (near >= own).all() and near.all()          # with 3 sites every site is within one step


def test_snapshot_utilisation_on_synthetic_vms(tmp_path):
    synthetic_bitbrains(tmp_path, 12, rng=4, days=1)
    workload = bitbrains_workload(read_vms(directory=tmp_path))
    fleet = bitbrains_fleet(locations=3)
    out = sim.snapshot_utilisation(fleet, workload, {"psdsf": psdsf, "tsf": tsf}, 3, rng=7, reach=0)
    assert set(out.mechanism) == {"psdsf", "tsf"} and set(out.resource) == set(fleet.resources)
    assert out.utilisation.between(0, 1 + 1e-9).all() and (out.source == "synthetic").all()
    assert len(out) == 3 * 2 * 4
    cluster, idx = sim.snapshot_cluster(fleet, workload, workload.arrival.min())
    assert cluster.n_users == idx.size > 0


def test_resources_must_match():
    fleet = bitbrains_fleet()
    other = fleet.__class__(fleet.capacity[:, :2], ("cpu", "mem"), fleet.server_class, "paper", fleet.location)
    workload = type("W", (), {"resources": ("cpu_ghz", "memory_gb", "storage_mbps", "network_mbps")})()
    with pytest.raises(InvalidInputError, match="fleet.resources"):
        sim.snapshot_cluster(other, workload, 0.0)
