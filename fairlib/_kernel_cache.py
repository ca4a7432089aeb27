"""numba's cache locator for fairlib's kernels: each module's kernels under
``<NUMBA_CACHE_DIR>/<module>-<key>``.

numba checks a cached kernel against its own source file only (its stamp is the file's hash), not
against the kernels it calls in other files, so after an edit of a callee it would load stale
machine code. The key of a module (:func:`fairlib.kernel_keys`) hashes its source and every fairlib
module it imports at any depth, so an edit moves exactly the modules that can see it to a new
directory: their kernels recompile, every other kernel loads as it was. numba's
``NUMBA_CACHE_LOCATOR_CLASSES`` setting puts this locator first (``import fairlib`` sets it);
functions outside fairlib fall through to numba's own locators.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any
from pathlib import Path

from numba.core import config
from numba.core.caching import UserProvidedCacheLocator

_PACKAGE = Path(__file__).resolve().parent


def _numba_cache_dir() -> str:
    """numba's ``config.CACHE_DIR`` ("" when unset): numba.config assigns its settings at run time,
    out of sight of a type checker, so the attribute is read by name."""
    return str(getattr(config, "CACHE_DIR", ""))


def module_key(py_file: str) -> str | None:
    """``"<module>-<key>"`` for a fairlib source file (``multires.edrf-3f4ded701c6b9130``), None for
    any other file.

    A kernel module fairlib's import did not see (written since) is keyed from the sources as they
    are now.

    Parameters
    ----------
    py_file : str
        Path of the source file that defines a kernel.

    Returns
    -------
    str or None
        The cache folder's name, or None for a file outside fairlib or one that defines no kernel.
    """
    import fairlib

    path = Path(py_file).resolve()
    if _PACKAGE not in path.parents:
        return None
    rel = str(path.relative_to(_PACKAGE))
    key = fairlib.KERNEL_KEYS.get(rel) or fairlib.kernel_keys().get(rel)
    if key is None:
        return None
    return f"{rel[:-3].replace(os.sep, '.')}-{key}"


class KernelModuleLocator(UserProvidedCacheLocator):
    """numba's locator for a directory of the user's choice, each fairlib module's kernels in a
    folder of their own.

    The folder is keyed on the module's sources (:func:`module_key`).

    Parameters
    ----------
    py_func : function
        The kernel's Python function.
    py_file : str
        Path of the source file that defines it.
    """

    def __init__(self, py_func: Callable[..., Any], py_file: str) -> None:
        super().__init__(py_func, py_file)
        key = module_key(py_file)
        if key is None:  # from_function returns no locator for a file outside fairlib
            raise ValueError(f"{py_file}: not a module of fairlib")
        self._cache_path = os.path.join(_numba_cache_dir(), key)

    @classmethod
    def from_function(cls, py_func: Callable[..., Any], py_file: str) -> KernelModuleLocator | None:
        """The locator for a kernel of fairlib when a cache directory is set, else None (numba tries
        its next locator).

        Parameters
        ----------
        py_func : function
            The kernel's Python function.
        py_file : str
            Path of the source file that defines it.

        Returns
        -------
        KernelModuleLocator or None
            The locator, or None outside fairlib or without ``NUMBA_CACHE_DIR``.
        """
        if not _numba_cache_dir() or module_key(py_file) is None:
            return None
        return super().from_function(py_func, py_file)


def stale_folders(cache_dir: str | os.PathLike[str]) -> list[Path]:
    """The folders of ``cache_dir`` no current source can use.

    A kernel module's folder under another key than its current one (left by an edit since), and the
    folders of the earlier cache layout (one folder per hash of every kernel source, named by 16
    hexadecimal digits). Folders of modules fairlib does not have are left alone (another checkout
    or branch sharing the directory may use them).

    Parameters
    ----------
    cache_dir : str or os.PathLike
        The numba cache directory; a missing directory has no stale folders.

    Returns
    -------
    list of pathlib.Path
        The stale folders, sorted.
    """
    import re

    import fairlib

    current = {f"{rel[:-3].replace(os.sep, '.')}-{key}" for rel, key in fairlib.KERNEL_KEYS.items()}
    modules = {name.rsplit("-", 1)[0] for name in current}
    root = Path(cache_dir)
    stale = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []:
        module, _, key = folder.name.rpartition("-")
        if re.fullmatch(r"[0-9a-f]{16}", folder.name) or (
            module in modules and re.fullmatch(r"[0-9a-f]{16}", key) and folder.name not in current
        ):
            stale.append(folder)
    return stale
