"""fairlib: fair and market-based resource allocation for shared clusters.

The public API is :data:`__all__`: the subpackages (``market``, ``multires``, ``dynamic``,
``traces``) and modules (``mechanisms``, ``games``, ``properties``, ``sim``, ``sweep``, ``metrics``,
``paths``, ``timing``, ``tolerances``, ``testing``), and
the names most code needs, importable from ``fairlib`` directly (``from fairlib import Cluster, drf,
psdsf``). They load on first use, so ``import fairlib`` stays light. The reproduction pipeline
(ledger, figures, notebooks, the papers' drivers) is the package :mod:`fairlib.repro`, imported
explicitly (``from fairlib.repro import ledger``); the library never imports it.

Importing fairlib points numba's on-disk cache at ``<repo>/build/numba-cache`` (or the
``NUMBA_CACHE_DIR`` you set), also when numba was imported first, and keys each kernel module's
entries on its sources. numba does not invalidate a cached kernel when a kernel it calls changes in
another file; keying each module's kernels on its source and every fairlib module it imports,
transitively (:func:`kernel_keys`, :mod:`fairlib._kernel_cache`), makes an edit recompile the
kernels that can see it and no other, and an edit to a driver, a notebook helper or the reporting
code recompiles nothing.
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


_FROM_IMPORT = re.compile(
    rb"^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]*)", re.M
)
_PLAIN_IMPORT = re.compile(rb"^[ \t]*import[ \t]+([\w., \t]+)", re.M)


def _imported_files(here: Path, path: Path, text: bytes) -> list[Path]:
    """The fairlib source files the ``import`` and ``from ... import`` statements of ``path`` can
    load (at any indentation: function-level imports count)."""
    package = path.parent.relative_to(here).parts
    stems = []
    for dots, module, names in _FROM_IMPORT.findall(text):
        module = module.decode().split(".") if module else []
        if dots:
            base = package[: len(package) - len(dots) + 1]
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
            here.joinpath(*stem, "__init__.py"),
        ):
            if candidate.is_file():
                found.append(candidate)
    return found


def _closure(here: Path, path: Path, texts: dict[Path, bytes]) -> set[Path]:
    """``path`` and every fairlib source file its imports load, at any depth."""
    seen, todo = {path}, [path]
    while todo:
        current = todo.pop()
        for other in _imported_files(here, current, texts[current]):
            if other not in seen and other in texts:
                seen.add(other)
                todo.append(other)
    return seen


def kernel_keys(texts: dict[Path, bytes] | None = None) -> dict[str, str]:
    """``{kernel module: key}``: for every module that defines a numba kernel, a hash of what its
    kernels can read.

    The hash covers the module's source and every fairlib module it imports at any depth — all a
    kernel of it can call or read. numba's cache holds each module's kernels under
    ``<module>-<key>`` (:mod:`fairlib._kernel_cache`), so an edit recompiles the kernels of the
    modules that depend on the edited file, and nothing else.

    Parameters
    ----------
    texts : dict of pathlib.Path to bytes or None, default None
        Every fairlib source file's contents by absolute path; None: read from the package now.

    Returns
    -------
    dict of str to str
        Module path relative to the package (``"multires/edrf.py"``) -> 16 hexadecimal digits.
    """
    here = Path(__file__).parent
    texts = texts or _read_sources()
    keys = {}
    for path, text in texts.items():
        # the pipeline defines no kernel (tests/test_cache_entry_points.py), but the scaffold's
        # templates hold kernels' source as text, which a look at the lines cannot tell from code
        if path.relative_to(here).parts[0] != "repro" and _DEFINES_KERNEL.search(text):
            h = hashlib.sha256()
            for dep in sorted(_closure(here, path, texts)):
                h.update(str(dep.relative_to(here)).encode())
                h.update(texts[dep])
            keys[str(path.relative_to(here))] = h.hexdigest()[:16]
    return keys


#: each kernel module's cache key (:func:`kernel_keys`), read by :mod:`fairlib._kernel_cache`
KERNEL_KEYS = kernel_keys(_SOURCES)
del _SOURCES


def kernel_sources(texts: dict[Path, bytes] | None = None) -> list[str]:
    """The source files numba's cache depends on, relative to the package.

    Every module that defines a kernel and every fairlib module those import, at any depth
    (function-level imports included; the union of the files :func:`kernel_keys` hashes).

    Parameters
    ----------
    texts : dict of pathlib.Path to bytes or None, default None
        Every fairlib source file's contents by absolute path; None: read from the package now.

    Returns
    -------
    list of str
        The paths, sorted.
    """
    here = Path(__file__).parent
    texts = texts or _read_sources()
    seen = set().union(
        *(_closure(here, p, texts) for p, text in texts.items() if _DEFINES_KERNEL.search(text))
    )
    return sorted(str(p.relative_to(here)) for p in seen)


def _cache_dir() -> str:
    """``<repo>/build/numba-cache``, or the directory ``NUMBA_CACHE_DIR`` names (a user's own cache,
    a benchmark's empty one, or the one a worker inherits from its parent): fairlib's kernels sit
    there under ``<module>-<key>`` (:func:`kernel_keys`), so a directory can be shared by checkouts
    and edits without reusing a stale callee."""
    return os.environ.get("NUMBA_CACHE_DIR") or str(
        Path(__file__).resolve().parents[1] / "build" / "numba-cache"
    )


#: where numba caches compiled code; fairlib's kernels under ``<module>-<key>`` in it
#: (:mod:`fairlib._kernel_cache`)
KERNEL_CACHE_DIR = _cache_dir()
# numba's own locators after ours, for code outside fairlib (numba.core.caching._CacheImpl's default
# order)
_LOCATORS = (
    "fairlib._kernel_cache.KernelModuleLocator,UserProvidedCacheLocator,InTreeCacheLocator,"
    "UserWideCacheLocator,IPythonCacheLocator,ZipCacheLocator"
)
os.environ["NUMBA_CACHE_DIR"] = (
    KERNEL_CACHE_DIR  # read by numba when it is imported, and by child processes
)
if "fairlib._kernel_cache" not in os.environ.get("NUMBA_CACHE_LOCATOR_CLASSES", ""):
    os.environ["NUMBA_CACHE_LOCATOR_CLASSES"] = ",".join(
        filter(None, [_LOCATORS, os.environ.get("NUMBA_CACHE_LOCATOR_CLASSES", "")])
    )
if "numba" in sys.modules:
    # numba read its configuration when it was imported (by a script, a test module or a plugin
    # before fairlib); its cache locators read the config when a kernel is decorated, which for
    # fairlib's kernels is after this line: without it they would be cached beside the sources,
    # unkeyed (stale callees)
    from numba.core import config as _numba_config

    _numba_config.CACHE_DIR = KERNEL_CACHE_DIR
    _numba_config.CACHE_LOCATOR_CLASSES = os.environ["NUMBA_CACHE_LOCATOR_CLASSES"]

__version__ = "0.1.0"

#: name -> module it comes from (loaded on first access, PEP 562)
_EXPORTS = {
    # instances, results, errors
    "Cluster": "multires",
    "Allocation": "multires",
    "InvalidInputError": "_validate",
    # static mechanisms (also in the registry, fairlib.mechanisms)
    "drf": "multires",
    "edrf": "multires",
    "pdrf": "multires",
    "asset_fairness": "multires",
    "ceei": "multires",
    "drfh": "multires",
    "drfh_best_fit": "multires",
    "tsf": "multires",
    "psdsf": "multires",
    "pfvds": "multires",
    "psmfa": "multires",
    # pooled DRF served machine by machine, as Mesos's and YARN's offer loops run it
    "drf_machine_offers": "multires",
    # the offer order of production schedulers' DRF sorters (Mesos, YARN, Kueue), with state across
    # rounds
    "DRFSorter": "multires",
    # DRF over a tree of weighted queues (H-DRF, or the naive rule of Mesos's nested roles)
    "hierarchical_drf": "multires",
    # guarantees, limits and lending limits as resource vectors for drf (YARN, Mesos, Kueue)
    "Quotas": "multires",
    "leontief_tasks": "multires",
    "property_violations": "multires",
    "mechanism_properties": "properties",
    # dynamic DRF and the bidding game
    "dynamic_drf": "dynamic",
    "best_response": "market",
    "run_dynamics": "market",
    "Game": "market",
    # the game contract and its registered games (also in the registry, fairlib.games)
    "GameOutcome": "market",
    "proportional_share": "market",
    # adding a mechanism (fairlib.sweep.sweep runs experiments; the module name is kept for it),
    # adding a game
    "register": "mechanisms",
    "register_game": "games",
}
_SUBMODULES = (
    "market",
    "multires",
    "dynamic",
    "traces",
    "mechanisms",
    "games",
    "properties",
    "sim",
    "sweep",
    "metrics",
    "paths",
    "timing",
    "tolerances",
    "testing",
)

__all__ = sorted(_EXPORTS) + list(_SUBMODULES) + ["KERNEL_KEYS", "SOURCE_HASH", "__version__"]


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
