"""fairlib: fair and market-based resource allocation for shared clusters.

The public API is :data:`__all__`: the subpackages (``market``, ``multires``, ``dynamic``, ``traces``,
``experiments``) and modules (``mechanisms``, ``games``, ``properties``, ``catalog``, ``sim``, ``sweep``, ``metrics``,
``report``, ``plotting``, ``paths``, ``timing``, ``verify``), and the names most code needs, importable from
``fairlib`` directly (``from fairlib import Cluster, drf, psdsf``). They load on first use, so ``import fairlib``
stays light.

Importing fairlib points numba's on-disk cache at ``<repo>/build/numba-cache/<hash of the kernel sources>``
(``<NUMBA_CACHE_DIR>/fairlib-<hash>`` when you set that variable), also when numba was imported first. numba does
not invalidate a cached kernel when a kernel it calls changes in another file; keying the cache on the kernel
sources — every module that defines a numba kernel and every fairlib module those import, transitively — makes an
edit there start afresh, while an edit to a driver, a notebook helper or the reporting code recompiles nothing.
"""

import hashlib
import os
import re
import sys
from pathlib import Path


def _read_sources() -> dict[Path, bytes]:
    """Every fairlib source file's bytes, by path, in path order (read once for both hashes)."""
    return {p: p.read_bytes() for p in sorted(Path(__file__).parent.rglob("*.py"))}


def _source_hash(texts: dict[Path, bytes] | None = None) -> str:
    h = hashlib.sha256()
    here = Path(__file__).parent
    for path, text in (texts or _read_sources()).items():
        h.update(str(path.relative_to(here)).encode())
        h.update(text)
    return h.hexdigest()[:16]


_SOURCES = _read_sources()
#: hash of every fairlib source file: keys the sweep cache (fairlib.sweep)
SOURCE_HASH = _source_hash(_SOURCES)

# a module defines a kernel when a line decorates with numba or calls njit(...)
_DEFINES_KERNEL = re.compile(rb"^[ \t]*@(?:njit|jit|numba\.)|\bnjit\(", re.M)


_FROM_IMPORT = re.compile(rb"^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]*)", re.M)
_PLAIN_IMPORT = re.compile(rb"^[ \t]*import[ \t]+([\w., \t]+)", re.M)


def _imported_files(here: Path, path: Path, text: bytes) -> list[Path]:
    """The fairlib source files the ``import`` and ``from ... import`` statements of ``path`` can load (at any
    indentation: function-level imports count)."""
    package = path.parent.relative_to(here).parts
    stems = []
    for dots, module, names in _FROM_IMPORT.findall(text):
        module = module.decode().split(".") if module else []
        if dots:
            base = package[:len(package) - len(dots) + 1]
        elif module and module[0] == "fairlib":
            base, module = (), module[1:]
        else:
            continue
        stems.append(base + tuple(module))
        for name in names.decode().strip("()").replace("\n", " ").split(","):
            if name.split():
                stems.append(base + tuple(module) + (name.split()[0],))
    for names in _PLAIN_IMPORT.findall(text):
        for name in names.decode().split(","):
            parts = name.split()[0].split(".") if name.split() else []
            if parts and parts[0] == "fairlib":
                stems.append(tuple(parts[1:]))
    found = []
    for stem in stems:
        for candidate in ((here.joinpath(*stem).with_suffix(".py"),) if stem else ()) + (
                here.joinpath(*stem, "__init__.py"),):
            if candidate.is_file():
                found.append(candidate)
    return found


def kernel_sources(texts: dict[Path, bytes] | None = None) -> list[str]:
    """The source files numba's cache depends on, relative to the package: every module that defines a kernel and
    every fairlib module those import, at any depth (function-level imports included), read from the sources'
    import statements (``texts``: the sources as :func:`_read_sources` gives them; default read afresh)."""
    here = Path(__file__).parent
    texts = texts or _read_sources()
    todo = [p for p, text in texts.items() if _DEFINES_KERNEL.search(text)]
    seen = set(todo)
    while todo:
        path = todo.pop()
        for other in _imported_files(here, path, texts[path]):
            if other not in seen:
                seen.add(other)
                todo.append(other)
    return sorted(str(p.relative_to(here)) for p in seen)


def _kernel_hash(texts: dict[Path, bytes] | None = None) -> str:
    h = hashlib.sha256()
    here = Path(__file__).parent
    texts = texts or _read_sources()
    for name in kernel_sources(texts):
        h.update(name.encode())
        h.update(texts[here / name])
    return h.hexdigest()[:16]


#: hash of the kernel sources (:func:`kernel_sources`): keys the numba cache
KERNEL_HASH = _kernel_hash(_SOURCES)
del _SOURCES


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
    # the game contract and its registered games (also in the registry, fairlib.games)
    "GameOutcome": "market", "proportional_share": "market",
    # adding a mechanism (fairlib.sweep.sweep runs experiments; the module name is kept for it), adding a game
    "register": "mechanisms", "register_game": "games",
}
_SUBMODULES = ("market", "multires", "dynamic", "traces", "experiments", "mechanisms", "games", "properties", "sim",
               "sweep", "metrics", "report", "plotting", "paths", "timing", "verify", "catalog")

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
