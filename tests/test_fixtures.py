"""The committed trace fixtures: regenerated with the same content, read by the real loaders,
replayed end to end.

Regenerating gives the same bytes on the machine that wrote them; another CPU may round a synthetic
float one ulp differently (vectorised math differs by architecture), so the fixtures are compared by
content: integers and strings exactly, floats to 1e-9 relative
(:func:`fairlib.repro.verify.compare_text`).
"""

import gzip

import numpy as np
import pytest

from fairlib import sim
from fairlib.multires import pfvds, psdsf
from fairlib.traces import (
    bitbrains_workload,
    google_fleet,
    google_workload,
    machine_configurations,
    read_task_events,
    read_task_usage,
    read_vms,
    task_usage_demands,
)
from fairlib.repro.verify import compare_text, compare_values
from tests.fixtures.make_fixtures import HERE, make

GOOGLE = HERE / "google_clusterdata_2011_2"


FIXTURE_RTOL = 1e-9


def _text(path):
    data = path.read_bytes()
    return (gzip.decompress(data) if path.suffix == ".gz" else data).decode()


def fixture_differences(committed_root, fresh_root) -> dict:
    """``{relative path: [differences]}`` between two fixture trees, compared by content."""
    committed = sorted(
        p.relative_to(committed_root) for p in committed_root.rglob("*") if p.is_file()
    )
    fresh = sorted(p.relative_to(fresh_root) for p in fresh_root.rglob("*") if p.is_file())
    assert committed == fresh, f"file lists differ: {committed} vs {fresh}"
    found = {}
    for rel in committed:
        diffs = compare_text(
            _text(committed_root / rel), _text(fresh_root / rel), rtol=FIXTURE_RTOL
        )
        if diffs:
            found[str(rel)] = diffs
    return found


def test_fixtures_regenerate_with_the_same_content(tmp_path):
    make(tmp_path)
    assert len(list(HERE.rglob("*.gz"))) == 8
    found = fixture_differences(HERE, tmp_path)
    assert not found, {k: [str(d) for d in v[:3]] for k, v in found.items()}


def _perturb(tmp_path, factor_digits):
    """A copy of the fixtures with one float of the Bitbrains file changed (by one ulp, or in a
    given digit)."""
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(HERE, copy)
    path = copy / "bitbrains_gwa_t12" / "rnd" / "2013-8" / "2.csv.gz"
    lines = _text(path).splitlines(keepends=True)
    fields = lines[1].split(";\t")
    value = float(fields[5])
    fields[5] = repr(
        float(np.nextafter(value, np.inf) if factor_digits is None else value * (1 + factor_digits))
    )
    lines[1] = ";\t".join(fields)
    path.write_bytes(gzip.compress("".join(lines).encode(), mtime=0))
    return copy


def test_fixture_comparison_tolerates_one_ulp(tmp_path):
    assert fixture_differences(HERE, _perturb(tmp_path, None)) == {}


def test_fixture_comparison_catches_a_change_in_the_6th_digit(tmp_path):
    found = fixture_differences(HERE, _perturb(tmp_path, 3e-6))
    assert list(found) == ["bitbrains_gwa_t12/rnd/2013-8/2.csv.gz"]
    (d,) = found["bitbrains_gwa_t12/rnd/2013-8/2.csv.gz"]
    assert (d.row, d.column) == (1, 5) and 1e-6 < d.relative < 1e-5


@pytest.mark.parametrize(
    "committed, fresh, equal",
    [
        ("12", "12", True),
        ("12", "13", False),
        ("abc", "abd", False),
        ("1.0", "1.0000000000000002", True),
        ("1.0", "1.00001", False),
        ("nan", "nan", True),
        ("inf", "-inf", False),
    ],
)
def test_cells_compare_integers_and_text_exactly_floats_within_tolerance(committed, fresh, equal):
    assert compare_values(committed, fresh, rtol=FIXTURE_RTOL)[0] is equal


def test_loaders_read_the_fixtures():
    vms = read_vms(directory=HERE / "bitbrains_gwa_t12")
    assert vms.vm.nunique() == 3 and len(vms) == 3 * 144 and vms.attrs["source"] == "synthetic"
    assert bitbrains_workload(vms).source == "synthetic"
    events = read_task_events([0], directory=GOOGLE)
    assert events.job_id.nunique() == 12 and set(events.event_type) <= {0, 1, 2, 4, 5}
    assert len(events) == 3 * events.groupby(["job_id", "task_index"]).ngroups
    usage = read_task_usage([0], directory=GOOGLE)
    assert set(usage.job_id) <= set(events.job_id) and (usage.end_time > usage.start_time).all()
    conf = machine_configurations(directory=GOOGLE)
    assert conf.machines.sum() == 3


def test_replay_on_the_fixtures():
    events = read_task_events([0], directory=GOOGLE)
    workload = google_workload(events, source="synthetic")
    fleet = google_fleet(4, 3, configurations=machine_configurations(directory=GOOGLE))
    jobs = sim.jobs_from_workload(workload)
    eligible = sim.class_eligibility(fleet, jobs.scheduling_class, reserved=("C",))
    for mechanism in (psdsf, lambda c: pfvds(c, 2.0)):
        res = sim.replay(
            fleet, jobs, mechanism, eligible=eligible, horizon=jobs.trace_end.max() + 86_400
        )
        assert res.jobs.finished.all() and res.unfinished == 0 and res.source == "synthetic"
    usage = read_task_usage([0], directory=GOOGLE)
    usage_jobs = sim.jobs_from_demands(
        task_usage_demands(usage, scheduling_class=events.groupby("job_id").scheduling_class.max())
    )
    res = sim.replay(
        fleet,
        usage_jobs,
        psdsf,
        eligible=sim.class_eligibility(fleet, usage_jobs.scheduling_class, reserved=("C",)),
        horizon=usage_jobs.trace_end.max() + 86_400,
    )
    assert res.jobs.finished.all()
    np.testing.assert_allclose(res.jobs.quanta, usage_jobs.total_work)
