import json

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from fairlib import paths  # noqa: E402
from fairlib.report import ClaimLog, ClaimsFailed, save_figure, save_table  # noqa: E402


def test_claim_rules_and_statuses(tmp_build):
    log = ClaimLog("demo", mode="quick")
    assert log.check("exact", paper=3, ours=np.int64(3), source="§1")
    assert log.check("tol", paper=0.828, ours=0.8284, tol=1e-3, source="§2")
    assert not log.check("tol_bad", paper=0.828, ours=0.9, tol=1e-3, expect="differs", source="§2",
                         note="we measure 0.9 because ...")
    assert log.check("range", paper="25-90", ours=40, at_least=25, at_most=90, source="§5")
    assert not log.check("below", paper=">= 0.9", ours=0.8, at_least=0.9, source="§5")
    assert log.check("unexpected", paper=1, ours=1, expect="differs", source="§6", note="n")
    statuses = [c.status for c in log.claims]
    assert statuses == ["held", "held", "not reproduced", "held", "FAILED", "held (expected to differ)"]
    with pytest.raises(ClaimsFailed, match=r"1 claim\(s\) expected to hold failed in demo:\n  below \(§5\)"):
        log.finish()
    doc = json.loads((paths.results_dir("demo", "quick") / "claims.json").read_text())
    assert doc["summary"] == {"total": 6, "held": 4, "failed": 1, "not_reproduced": 1, "not_tested": 0,
                              "expected_to_hold": 4}
    assert doc["claims"][2]["note"] == "we measure 0.9 because ..."
    assert str(paths.results_dir("demo", "quick")).startswith(str(tmp_build))


def test_claims_pass_returns_summary(tmp_build):
    log = ClaimLog("ok", mode="quick")
    log.check("a", paper=True, ours=np.bool_(True), source="Thm 1")
    assert log.finish()["held"] == 1
    assert list(log.table().columns) == ["claim_id", "source", "paper", "ours", "rule", "status", "note"]


@pytest.mark.parametrize("kwargs, message", [
    (dict(paper=1, ours=1, source=""), "source"),
    (dict(paper=1, ours=2, source="s", expect="differs"), "needs a note"),
    (dict(paper=1, ours=1, source="s", expect="maybe"), "expect"),
    (dict(paper="x", ours=1, tol=0.1, source="s"), "numeric"),
    (dict(paper=1, ours=1, tol=0.1, at_least=0, source="s"), "not both"),
])
def test_claim_argument_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ClaimLog("x", write=False).check("c", **kwargs)


def test_duplicate_claim_rejected():
    log = ClaimLog("x", write=False)
    log.check("c", paper=1, ours=1, source="s")
    with pytest.raises(ValueError, match="twice"):
        log.check("c", paper=1, ours=1, source="s")


def test_quick_mode_never_writes_tracked_dirs(tmp_build):
    assert paths.figures_dir("k", "quick").is_relative_to(tmp_build)
    assert paths.results_dir("k", "full") == paths.RESULTS / "k"
    with pytest.raises(ValueError, match="mode"):
        paths.figures_dir("k", "fast")


def _table(seed):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"x": np.arange(5), "y": rng.random(5) / 3, "name": list("abcde")})


def test_same_seed_gives_byte_identical_csv(tmp_build):
    a = save_table(_table(7), "det", "t1", mode="quick").read_bytes()
    b = save_table(_table(7), "det", "t1", mode="quick").read_bytes()
    c = save_table(_table(8), "det", "t1", mode="quick").read_bytes()
    assert a == b and a != c
    assert b"\r\n" not in a


def test_save_figure_deterministic(tmp_build):
    def draw():
        fig, ax = plt.subplots()
        ax.plot([0, 1, 2], [1, 3, 2])
        ax.set_title("t")
        return fig

    first = [p.read_bytes() for p in save_figure(draw(), "det", "f", mode="quick")]
    second = save_figure(draw(), "det", "f", mode="quick")
    assert [p.suffix for p in second] == [".png", ".pdf"]
    assert first == [p.read_bytes() for p in second]
    plt.close("all")


def test_save_table_rejects_non_frame(tmp_build):
    with pytest.raises(TypeError, match="DataFrame"):
        save_table([1, 2], "x", "y", mode="quick")


def test_claims_on_synthetic_data_are_not_tested_and_never_fail(tmp_build):
    log = ClaimLog("synthetic_demo", mode="quick", data="synthetic")
    log.check("on_the_trace", paper=0.38, ours=0.9, tol=0.01, source="§6.2", on_data=True)
    log.check("solver_check", paper=0, ours=0.0, at_most=1e-9, source="ours")
    assert [c.status for c in log.claims] == ["not tested", "held"]
    assert "synthetic stand-in" in log.claims[0].note
    summary = log.finish()
    assert summary["not_tested"] == 1 and summary["failed"] == 0
    doc = json.loads((tmp_build / "quick" / "results" / "synthetic_demo" / "claims.json").read_text())
    assert doc["data"] == "synthetic"
    with pytest.raises(ValueError, match="data = 'fake'"):
        ClaimLog("x", data="fake")
