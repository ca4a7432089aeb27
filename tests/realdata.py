"""Where the tests find the real trace excerpts: the library's own lookup order
(:func:`fairlib.paths.trace_dirs`: ``$FAIRLIB_TRACE_DIR``, ``data/traces``,
``../shared/data/traces``). A test that needs one is skipped, with a message saying where it looked
and how to get the data, when the folder is in none of them."""

from pathlib import Path

import pytest

from fairlib import paths


def real_traces(folder: str, needs: str = "") -> tuple[Path, pytest.MarkDecorator]:
    """``(path of the real folder, skip marker)``; ``needs``: a file inside the folder that must
    exist too.

    The path is the folder's would-be location when it is absent (so module-level constants stay
    paths)."""
    found = paths.find_traces(folder)
    if found is not None and (found / "SYNTHETIC.md").is_file():
        found = None  # a synthetic stand-in is never taken for the real excerpt
    present = found is not None and (not needs or (found / needs).exists())
    mark = pytest.mark.skipif(
        not present,
        reason=paths.missing_traces_message(folder) + (f" (needs {needs})" if needs else ""),
    )
    return (found if found is not None else paths.trace_dir() / folder), mark
