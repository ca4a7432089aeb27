"""fairlib: fair and market-based resource allocation for shared clusters.

The public API is :data:`__all__`: the subpackages (``market``, ``multires``, ``dynamic``, ``traces``,
``experiments``) and modules (``mechanisms``, ``properties``, ``catalog``, ``sim``, ``sweep``, ``metrics``, ``report``,
``plotting``, ``paths``, ``timing``, ``verify``), and the names most code needs, importable from ``fairlib`` directly
(``from fairlib import Cluster, drf, psdsf``). They load on first use, so ``import fairlib`` stays light.

Importing fairlib points numba's on-disk cache at ``<repo>/build/numba-cache/<hash of the fairlib sources>``
(``<NUMBA_CACHE_DIR>/fairlib-<hash>`` when you set that variable), also when numba was imported first. numba does
not invalidate a cached kernel when a kernel it calls changes in another file; keying the cache on every source
file makes any edit start afresh.
"""

import hashlib
import os
import sys
from pathlib import Path


def _source_hash() -> str:
    h = hashlib.sha256()
    here = Path(__file__).parent
    for path in sorted(here.rglob("*.py")):
        h.update(str(path.relative_to(here)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


#: hash of every fairlib source file: keys the numba cache and the sweep cache (fairlib.sweep)
SOURCE_HASH = _source_hash()


def _keyed_cache_dir(source_hash: str) -> str:
    """``build/numba-cache/<hash>``, or ``<NUMBA_CACHE_DIR>/fairlib-<hash>`` when the variable names another
    directory (a user's own cache, a benchmark's empty one): keyed either way, so no edit can reuse a stale callee.
    A directory already keyed on this hash (inherited by a worker from its parent) is kept as it is."""
    chosen = os.environ.get("NUMBA_CACHE_DIR")
    if not chosen:
        return str(Path(__file__).resolve().parents[1] / "build" / "numba-cache" / source_hash)
    if Path(chosen).name in (source_hash, f"fairlib-{source_hash}"):
        return chosen
    return str(Path(chosen) / f"fairlib-{source_hash}")


#: where fairlib's kernels are cached: keyed on every source file (see :func:`_keyed_cache_dir`)
KEYED_CACHE_DIR = _keyed_cache_dir(SOURCE_HASH)
os.environ["NUMBA_CACHE_DIR"] = KEYED_CACHE_DIR  # read by numba when it is imported, and by child processes
if "numba" in sys.modules:
    # numba read its configuration when it was imported (by a script, a test module or a plugin before
    # fairlib); its cache locators read config.CACHE_DIR when a kernel is decorated, which for fairlib's
    # kernels is after this line: without it they would be cached beside the sources, unkeyed (stale callees)
    from numba.core import config as _numba_config

    _numba_config.CACHE_DIR = KEYED_CACHE_DIR

__version__ = "0.1.0"

#: name -> module it comes from (loaded on first access, PEP 562)
_EXPORTS = {
    # instances, results, errors
    "Cluster": "multires", "Allocation": "multires", "InvalidInputError": "_validate",
    # static mechanisms (also in the registry, fairlib.mechanisms)
    "drf": "multires", "edrf": "multires", "pdrf": "multires", "asset_fairness": "multires", "ceei": "multires",
    "drfh": "multires", "drfh_best_fit": "multires", "tsf": "multires", "psdsf": "multires", "pfvds": "multires",
    "psmfa": "multires",
    # pooled DRF served machine by machine, as Mesos's and YARN's offer loops run it
    "drf_machine_offers": "multires",
    # the offer order of production schedulers' DRF sorters (Mesos, YARN, Kueue), with state across rounds
    "DRFSorter": "multires",
    # DRF over a tree of weighted queues (H-DRF, or the naive rule of Mesos's nested roles)
    "hierarchical_drf": "multires",
    # guarantees, limits and lending limits as resource vectors for drf (YARN, Mesos, Kueue)
    "Quotas": "multires",
    "leontief_tasks": "multires", "property_violations": "multires", "mechanism_properties": "properties",
    # dynamic DRF and the bidding game
    "dynamic_drf": "dynamic", "best_response": "market", "run_dynamics": "market", "Game": "market",
    # adding a mechanism (fairlib.sweep.sweep runs experiments; the module name is kept for it)
    "register": "mechanisms",
}
_SUBMODULES = ("market", "multires", "dynamic", "traces", "experiments", "mechanisms", "properties", "sim", "sweep",
               "metrics", "report", "plotting", "paths", "timing", "verify", "catalog")

__all__ = sorted(_EXPORTS) + list(_SUBMODULES) + ["SOURCE_HASH", "__version__"]


def __getattr__(name: str):
    import importlib

    if name in _EXPORTS:
        value = getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'fairlib' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
