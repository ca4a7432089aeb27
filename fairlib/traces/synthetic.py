"""Synthetic traces written in exactly the real formats, so the same loaders read them.

Every folder written here carries a ``SYNTHETIC.md`` marker; the loaders report ``source =
"synthetic"`` for data read from such a folder, and results derived from it must say so.

- :func:`synthetic_bitbrains` — GWA-T-12 VM files (SCHEMAS.md §4.2/§4.4): (cores, memory) from the
  measured joint table of the Rnd trace, per-core MHz 2,600 or 2,926, per-VM mean CPU % lognormal
  (log-mean 0.155, log-sd 2.30), an AR(1) series (φ = 0.6) with a weak daily sinusoid (20 % of the
  mean), memory-usage fractions and I/O rates lognormal with the measured medians and 90th
  percentiles. ``fast_storage=True`` emulates the missing fastStorage trace by keeping only VMs whose
  mean CPU exceeds 1 % (an assumption stated in SCHEMAS.md §4.4).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .._validate import InvalidInputError
from ._source import SYNTHETIC_MARKER, is_synthetic
from .bitbrains import BITBRAINS_COLUMNS, bitbrains_dir, write_vm

__all__ = ["synthetic_bitbrains", "SYNTHETIC_MARKER", "is_synthetic"]


# SCHEMAS.md §4.2: VM-months by provisioned cores (rows) and memory bin (columns, upper bounds in GB)
_CORES = np.array([1, 2, 4, 6, 8, 16, 32])
_MEM_EDGES = np.array([0.125, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64, 128])
_JOINT = np.array([
    [220, 80, 92, 112, 177, 3, 2, 0, 0, 0],
    [0, 0, 9, 17, 93, 152, 11, 0, 0, 0],
    [0, 2, 1, 30, 88, 29, 184, 12, 0, 0],
    [0, 0, 0, 0, 0, 0, 3, 3, 0, 0],
    [0, 0, 0, 0, 12, 6, 3, 108, 39, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 3],
    [0, 0, 0, 0, 0, 1, 5, 0, 0, 3],
], dtype=float)
_Z90 = 1.2815515655446004


def _lognormal(rng, median, p90, size):
    return median * np.exp(rng.normal(0.0, np.log(p90 / median) / _Z90, size))


def synthetic_bitbrains(dest=None, n_vms: int = 150, rng=None, *, month: str = "2013-8", days: float = 30.0,
                        start: int = 1375308120, fast_storage: bool = False) -> Path:
    """Write ``n_vms`` synthetic VM files to ``<dest>/rnd/<month>/<i>.csv.gz`` (dest: the Bitbrains folder,
    default ``bitbrains_dir()``) and the marker; returns the month folder. Deterministic for a seed."""
    if n_vms < 1 or days <= 0:
        raise InvalidInputError(f"n_vms = {n_vms}, days = {days}: need n_vms >= 1 and days > 0")
    rng = np.random.default_rng(rng)
    root = bitbrains_dir(dest)
    folder = root / "rnd" / month
    folder.mkdir(parents=True, exist_ok=True)
    (root / SYNTHETIC_MARKER).write_text(
        "# Synthetic Bitbrains GWA-T-12 data\n\nWritten by `fairlib.traces.synthetic.synthetic_bitbrains`; not real "
        "measurements. Results derived from these files must be labelled synthetic.\n")
    steps = int(days * 288)
    t = start + 300 * np.arange(steps)
    flat = _JOINT.ravel() / _JOINT.sum()
    for vm in range(1, n_vms + 1):
        cell = rng.choice(flat.size, p=flat)
        cores = float(_CORES[cell // _JOINT.shape[1]])
        lo, hi = _MEM_EDGES[cell % _JOINT.shape[1]], _MEM_EDGES[cell % _JOINT.shape[1] + 1]
        mem_gb = float(np.exp(rng.uniform(np.log(lo), np.log(hi))))
        mhz = float(rng.choice([2600.0, 2926.0]))
        mean_cpu = float(np.exp(rng.normal(0.155, 2.30)))
        while fast_storage and mean_cpu <= 1.0:
            mean_cpu = float(np.exp(rng.normal(0.155, 2.30)))
        mean_cpu = min(mean_cpu, 95.0)
        noise = np.empty(steps)
        noise[0] = rng.normal()
        shocks = rng.normal(size=steps) * np.sqrt(1 - 0.6 ** 2)
        for k in range(1, steps):
            noise[k] = 0.6 * noise[k - 1] + shocks[k]
        daily = 0.2 * np.sin(2 * np.pi * (t - t[0]) / 86_400 + rng.uniform(0, 2 * np.pi))
        cpu_pct = np.clip(mean_cpu * (1 + daily + 0.5 * noise), 0.0, 100.0)
        mem_frac = float(np.clip(_lognormal(rng, 0.056, 0.29, 1)[0], 0.001, 1.0))
        mem_pct = np.clip(mem_frac * (1 + 0.05 * rng.normal(size=steps)), 0.0, 1.0)
        capacity_kb = mem_gb * 1024 ** 2
        io = {name: _lognormal(rng, median, p90, 1)[0] * np.abs(1 + 0.3 * rng.normal(size=steps))
              for name, median, p90 in (("disk_read_kbps", 0.46, 34.0), ("disk_write_kbps", 8.2, 113.0),
                                        ("net_rx_kbps", 3.8, 142.0), ("net_tx_kbps", 1.8, 71.0))}
        frame = pd.DataFrame({"time": t, "cpu_cores": cores, "cpu_capacity_mhz": cores * mhz,
                              "cpu_usage_mhz": cpu_pct / 100 * cores * mhz, "cpu_usage_pct": cpu_pct,
                              "memory_capacity_kb": capacity_kb, "memory_usage_kb": mem_pct * capacity_kb, **io})
        write_vm(folder / f"{vm}.csv.gz", frame[BITBRAINS_COLUMNS])
    return folder
