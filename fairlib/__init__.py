"""fairlib: fair and market-based resource allocation for shared clusters.

The public API is :data:`__all__`: the subpackages (``market``, ``multires``, ``dynamic``, ``traces``,
``experiments``) and modules (``mechanisms``, ``properties``, ``catalog``, ``sim``, ``sweep``, ``metrics``, ``report``,
``plotting``, ``paths``, ``timing``, ``verify``), and the names most code needs, importable from ``fairlib`` directly
(``from fairlib import Cluster, drf, psdsf``). They load on first use, so ``import fairlib`` stays light.

Importing fairlib points numba's on-disk cache at ``<repo>/build/numba-cache/<hash of the kernel sources>``
(``<NUMBA_CACHE_DIR>/fairlib-<hash>`` when you set that variable), also when numba was imported first. numba does
not invalidate a cached kernel when a kernel it calls changes in another file; keying the cache on the kernel
sources — every module that defines a numba kernel and every fairlib module those import, transitively — makes an
edit there start afresh, while an edit to a driver, a notebook helper or the reporting code recompiles nothing.
"""

import ast
import hashlib
import os
import re
import sys
from pathlib import Path


def _source_hash() -> str:
    h = hashlib.sha256()
    here = Path(__file__).parent
    for path in sorted(here.rglob("*.py")):
        h.update(str(path.relative_to(here)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


#: hash of every fairlib source file: keys the sweep cache (fairlib.sweep)
SOURCE_HASH = _source_hash()

# a module defines a kernel when a line decorates with numba or calls njit(...)
_DEFINES_KERNEL = re.compile(rb"^[ \t]*@(?:njit|jit|numba\.)|\bnjit\(", re.M)


def _imported_files(here: Path, path: Path, node) -> list[Path]:
    """The fairlib source files an ``import`` or ``from ... import`` statement in ``path`` can load."""
    if isinstance(node, ast.ImportFrom):
        package = path.parent.relative_to(here).parts
        if node.level:
            base = package[:len(package) - node.level + 1]
            module = tuple(node.module.split(".")) if node.module else ()
        elif node.module and node.module.split(".")[0] == "fairlib":
            base, module = (), tuple(node.module.split(".")[1:])
        else:
            return []
        stems = [base + module] + [base + module + (alias.name,) for alias in node.names]
    else:
        stems = [tuple(a.name.split(".")[1:]) for a in node.names if a.name.split(".")[0] == "fairlib"]
    found = []
    for stem in stems:
        for candidate in ((here.joinpath(*stem).with_suffix(".py"),) if stem else ()) + (
                here.joinpath(*stem, "__init__.py"),):
            if candidate.is_file():
                found.append(candidate)
    return found


def kernel_sources() -> list[str]:
    """The source files numba's cache depends on, relative to the package: every module that defines a kernel and
    every fairlib module those import, at any depth (function-level imports included). Found by parsing the
    sources, once per :data:`SOURCE_HASH` (the list is kept in ``build/kernel-sources``)."""
    here = Path(__file__).parent
    listing = here.parent / "build" / "kernel-sources" / f"{SOURCE_HASH}.txt"
    if listing.is_file():
        return listing.read_text(encoding="utf-8").split()
    todo = [p for p in sorted(here.rglob("*.py")) if _DEFINES_KERNEL.search(p.read_bytes())]
    seen = set(todo)
    while todo:
        path = todo.pop()
        for node in ast.walk(ast.parse(path.read_bytes(), filename=str(path))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for other in _imported_files(here, path, node):
                    if other not in seen:
                        seen.add(other)
                        todo.append(other)
    names = sorted(str(p.relative_to(here)) for p in seen)
    try:
        listing.parent.mkdir(parents=True, exist_ok=True)
        tmp = listing.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text("\n".join(names), encoding="utf-8")
        tmp.replace(listing)
    except OSError:   # a read-only checkout: parsed again next time
        pass
    return names


def _kernel_hash() -> str:
    h = hashlib.sha256()
    here = Path(__file__).parent
    for name in kernel_sources():
        h.update(name.encode())
        h.update((here / name).read_bytes())
    return h.hexdigest()[:16]


#: hash of the kernel sources (:func:`kernel_sources`): keys the numba cache
KERNEL_HASH = _kernel_hash()


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


#: where fairlib's kernels are cached: keyed on the kernel sources (see :func:`_keyed_cache_dir`)
KEYED_CACHE_DIR = _keyed_cache_dir(KERNEL_HASH)
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

__all__ = sorted(_EXPORTS) + list(_SUBMODULES) + ["KERNEL_HASH", "SOURCE_HASH", "__version__"]


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
