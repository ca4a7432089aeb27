"""The li2019 claims' arithmetic (fairlib.repro.experiments.dynamic_drf.*_findings): known answers,
one claim per declared id."""

import numpy as np
import pandas as pd
import pytest

from fairlib import InvalidInputError
from fairlib.repro.experiments import dynamic_drf
from fairlib.repro.ledger import ClaimLog, load_registry, measured_values, registry_path


def test_instance_shares_reach_the_papers_limits():
    found = dynamic_drf.instance_share_findings([1, 2, 3], [2, 3])
    v = measured_values(found)
    assert v["cr1_individual_shares"] == pytest.approx(0.0, abs=1e-7)
    assert v["cr2_step_m2_shares"] == pytest.approx(0.0, abs=1e-7)
    assert "m = 1, 2, 3:" in found["cr1_individual_shares"].note
    assert set(found) <= set(load_registry(registry_path("li2019"), "li2019"))


def test_instance_shares_can_fail(monkeypatch):
    # a mechanism that splits the capacity evenly instead would miss the limits: the measurement
    # sees it
    class Even:
        def __init__(self, d):
            self.d = np.asarray(d)

        def shares(self, k):
            return np.full(k, k / len(self.d) / k)

    monkeypatch.setattr(dynamic_drf, "dynamic_drf", lambda d: Even(d))
    v = measured_values(dynamic_drf.instance_share_findings([2], [2]))
    assert v["cr1_individual_shares"] > 0.3 and v["cr2_step_m2_shares"] > 0.05


def test_fixed_increment_waterfill_closed_form_and_exact_level():
    from fairlib.dynamic.baselines import waterfill_step_fixed_increment
    from fairlib.dynamic.drf import normalize_demands

    # one agent alone, capacity 1: floor(1/δ) raises of δ (closed form)
    for inc in (0.25, 0.1, 0.03):
        x, raises, work = waterfill_step_fixed_increment(np.array([[1.0, 0.3]]), [], 1, inc)
        assert raises == int(np.floor(1 / inc + 1e-9)) and x[0] == pytest.approx(raises * inc)
        assert work == (raises + 1) * (1 + 1 * 2 + 2)
    rng = np.random.default_rng(5)
    for _ in range(20):
        k, m = int(rng.integers(2, 30)), int(rng.integers(1, 4))
        n = k + int(rng.integers(0, 3))
        d = normalize_demands(rng.uniform(0.01, 1.0, size=(k, m)))
        prev = dynamic_drf.dynamic_drf(d[: k - 1], n, method="waterfill").final_shares
        exact = dynamic_drf.dynamic_drf(d, n, method="lp").shares(k)
        for inc in (1e-2, 1e-3):
            x, raises, _ = waterfill_step_fixed_increment(d, prev, n, inc)
            assert (
                exact.min() - inc - 1e-12 <= x.min() <= exact.min() + 1e-9
            )  # within one increment below LP (1)
            assert (x @ d <= k / n * (1 + 1e-9)).all() and (x[:-1] >= prev).all()
    with pytest.raises(InvalidInputError, match=r"^increment = 0\.0: must be > 0"):
        waterfill_step_fixed_increment(np.ones((1, 1)), [], 1, 0.0)


def test_fixed_increment_work_grows_with_the_scale():
    fixed = dynamic_drf.fixed_increment_work([10, 100, 1000], k=200, rng=0)
    assert fixed.alg1_work.nunique() == 1 and (np.diff(fixed.raises) > 0).all()
    assert (fixed.gap >= -1e-12).all() and (fixed.gap <= 1 / (200 * fixed.scale) + 1e-12).all()


def test_waterfill_baseline_findings_read_both_baselines():
    fixed = pd.DataFrame(
        {
            "scale": [10.0, 100.0, 1000.0],
            "k": 1000,
            "raises": [10, 100, 1000],
            "work": [500.0, 5000.0, 50000.0],
            "alg1_work": 1000.0,
            "gap": 0.0,
        }
    )
    steps = pd.DataFrame(
        {
            "k": [3000, 3000, 10000, 10000],
            "method": ["linear", "waterfill"] * 2,
            "seconds": [2.0, 1.0, 4.0, 1.0],
            "work": np.nan,
        }
    )
    found = dynamic_drf.waterfill_baseline_findings(fixed, steps)
    v = measured_values(found)
    assert v["waterfill_pseudo_polynomial"] == pytest.approx(1.0)
    assert v["linear_improves_on_fixed_increment_waterfill"] == [0.5, 5.0, 50.0]
    assert "above 1 from S = 100" in found["linear_improves_on_fixed_increment_waterfill"].note
    assert v["linear_vs_event_waterfill"] == [0.5, 0.25]
    log = ClaimLog("li2019", write=False)
    log.measure_all(found)
    status = {c.claim_id: c.status for c in log.claims}
    assert status["waterfill_pseudo_polynomial"] == "held"
    assert status["linear_improves_on_fixed_increment_waterfill"] == "held"
    assert status["linear_vs_event_waterfill"] != "held"  # the event-driven one is faster here
    with pytest.raises(InvalidInputError, match="k = \\[10000\\]"):
        dynamic_drf.waterfill_baseline_findings(fixed, steps[steps.k == 3000])
