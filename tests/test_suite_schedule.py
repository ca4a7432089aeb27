"""``make test``'s schedule: every unit the suite hands out first (``conftest.LONGEST_FIRST``) is a unit the suite
collects, so a renamed test file or notebook cannot silently fall back to the end of the queue."""

import subprocess
import sys

from tests.conftest import LONGEST_FIRST

from fairlib.paths import ROOT


def test_every_unit_started_first_is_collected():
    listing = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
                             capture_output=True, text=True, cwd=ROOT, check=True).stdout.splitlines()
    node_ids = [line for line in listing if "::" in line]
    files = {node.split("::")[0] for node in node_ids}
    missing = [name for name in LONGEST_FIRST
               if name not in files and not any(node.endswith("::" + name) for node in node_ids)]
    assert node_ids and not missing, missing
