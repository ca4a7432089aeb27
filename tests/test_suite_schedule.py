"""``make test``'s schedule: every unit the suite hands out first (``conftest.LONGEST_FIRST``) is a
unit the suite has, so a renamed test file or paper cannot silently fall back to the end of the
queue."""

import re

from fairlib.repro.catalog import NOTEBOOKS
from fairlib.paths import ROOT
from tests.conftest import LONGEST_FIRST


def test_every_unit_started_first_exists():
    notebook_tests = re.findall(
        r"^def (test_\w+)\(paper_key", (ROOT / "tests" / "test_notebooks.py").read_text(), re.M
    )
    missing = []
    for unit in LONGEST_FIRST:
        call = re.fullmatch(r"(\w+)\[(\w+)\]", unit)
        exists = (
            (call.group(1) in notebook_tests and call.group(2) in NOTEBOOKS)
            if call
            else (ROOT / unit).is_file()
        )
        if not exists:
            missing.append(unit)
    assert notebook_tests and not missing, missing
