"""fairlib: fair and market-based resource allocation for shared clusters.

Importing fairlib points numba's on-disk cache at ``<repo>/build/numba-cache/<hash of the fairlib sources>``
(unless ``NUMBA_CACHE_DIR`` is already set). numba does not invalidate a cached kernel when a kernel
it calls changes in another file; keying the cache on every source file makes any edit start afresh.
"""

import hashlib
import os
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

if "NUMBA_CACHE_DIR" not in os.environ:
    os.environ["NUMBA_CACHE_DIR"] = str(Path(__file__).resolve().parents[1] / "build" / "numba-cache" / SOURCE_HASH)

__version__ = "0.1.0"
