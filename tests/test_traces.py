"""Google task_events reader: format errors, fallback, and the real excerpt when present."""
import gzip

import numpy as np
import pytest

from fairlib.traces import TraceFormatError, read_task_events, synthetic_task_requests, task_request_pool
from tests.realdata import real_traces

ROW = "600000000,,3418309,0,4155527081,0,user=,3,9,0.125,0.07446,0.0004244,0\n"


def _write(tmp_path, text, part=0):
    folder = tmp_path / "task_events"
    folder.mkdir(exist_ok=True)
    with gzip.open(folder / f"part-{part:05d}-of-00500.csv.gz", "wt") as f:
        f.write(text)


def test_reads_fixture(tmp_path):
    _write(tmp_path, ROW * 3)
    _write(tmp_path, ROW.replace(",0,user=", ",4,user="), part=1)
    ev = read_task_events([0, 1], directory=tmp_path)
    assert len(ev) == 4 and ev.event_type.tolist() == [0, 0, 0, 4]
    pool, source = task_request_pool(directory=tmp_path, parts=[0, 1], allow_synthetic=False)
    assert source == "real" and pool.shape == (3, 2)   # SUBMIT rows with CPU and memory > 0


def test_non_numeric_field_names_file(tmp_path):
    _write(tmp_path, ROW + ROW.replace("0.125", "abc"))
    with pytest.raises(TraceFormatError, match=r"part-00000-of-00500\.csv\.gz"):
        read_task_events([0], directory=tmp_path)


def test_truncated_gzip(tmp_path):
    _write(tmp_path, ROW * 200)
    path = tmp_path / "task_events" / "part-00000-of-00500.csv.gz"
    path.write_bytes(path.read_bytes()[:-30])
    with pytest.raises(TraceFormatError, match=r"part-00000-of-00500\.csv\.gz: truncated or corrupt gzip"):
        read_task_events([0], directory=tmp_path)


def test_missing_part_and_synthetic_fallback(tmp_path):
    with pytest.raises(FileNotFoundError, match="task_events part 0 not found"):
        read_task_events([0], directory=tmp_path)
    pool, source = task_request_pool(directory=tmp_path, rng=1, synthetic_size=5000)
    assert source == "synthetic" and pool.shape == (5000, 2) and (pool > 0).all()
    med = np.median(synthetic_task_requests(2, 20000), axis=0)
    assert med[0] == pytest.approx(0.025, rel=0.1) and med[1] == pytest.approx(0.0207, rel=0.1)


REAL_GOOGLE, real = real_traces("google_clusterdata_2011_2", needs="task_events/part-00004-of-00500.csv.gz")


@pytest.mark.realdata
@real
def test_real_excerpt_row_counts():
    ev = read_task_events(directory=REAL_GOOGLE)
    assert len(ev) == 919_519                              # SCHEMAS.md §2
    assert int((ev.event_type == 0).sum()) == 359_630      # SCHEMAS.md §3.4
    pool, source = task_request_pool(directory=REAL_GOOGLE)
    assert source == "real" and (pool > 0).all() and len(pool) == 357_872


def test_machine_events_and_configurations_fixture(tmp_path):
    from fairlib.traces import machine_configurations, read_machine_events

    folder = tmp_path / "machine_events"
    folder.mkdir()
    rows = ["0,1,0,pA,0.5,0.5", "0,2,0,pA,0.5,0.25", "0,3,0,pB,,", "5,3,2,pB,1,1", "9,1,2,pA,0.5,0.25",
            "0,4,0,pA,0.5,0.25"]
    with gzip.open(folder / "part-00000-of-00001.csv.gz", "wt") as f:
        f.write("\n".join(rows) + "\n")
    ev = read_machine_events(directory=tmp_path)
    assert len(ev) == 6 and np.isnan(ev.cpus[2])
    conf = machine_configurations(ev)
    # machine 1 ends at (0.5, 0.25); machine 3's empty ADD is skipped
    assert conf[["cpus", "memory", "machines"]].values.tolist() == [[0.5, 0.25, 3.0], [1.0, 1.0, 1.0]]


def test_chunked_task_events(tmp_path):
    from fairlib.traces import iter_task_events

    _write(tmp_path, ROW * 7)
    chunks = list(iter_task_events([0], directory=tmp_path, chunksize=3, columns=["job_id"]))
    assert [len(c) for c in chunks] == [3, 3, 1]


@pytest.mark.realdata
@real
def test_real_machine_configurations_and_jobs():
    from fairlib.traces import machine_configurations, read_job_events

    conf = machine_configurations(directory=REAL_GOOGLE)
    assert conf.machines.head(5).tolist() == [6732, 3863, 1001, 795, 126]      # SCHEMAS.md §3.3
    assert conf.machines.sum() == 12_583
    jobs = read_job_events(directory=REAL_GOOGLE)
    assert len(jobs) == 25_437 and set(jobs.scheduling_class.unique()) <= {0, 1, 2, 3}


def test_synthetic_task_usage_from_task_runs(tmp_path):
    from fairlib.traces import is_synthetic, read_task_usage, synthetic_task_usage

    src = tmp_path / "src"
    src.mkdir()
    # job 7 task 0: SUBMIT at 0.7e9 us, SCHEDULE on machine 5 at 0.7e9, FINISH at 1.6e9 -> windows
    # [0.7e9, 0.9e9), [0.9e9, 1.2e9), [1.2e9, 1.5e9), [1.5e9, 1.6e9); job 8 is never scheduled
    rows = ["700000000,,7,0,,0,u,0,0,0.5,0.2,0,0", "700000000,,7,0,5,1,u,0,0,0.5,0.2,0,0",
            "1600000000,,7,0,5,4,u,0,0,0.5,0.2,0,0", "800000000,,8,0,,0,u,0,0,0.1,0.1,0,0"]
    _write(src, "\n".join(rows) + "\n")
    machines = src / "machine_events"
    machines.mkdir()
    with gzip.open(machines / "part-00000-of-00001.csv.gz", "wt") as f:
        f.write("0,5,0,p,0.25,0.5\n")
    out = synthetic_task_usage(tmp_path / "out", rng=3, parts=[0], source_directory=src, job_fraction=1.0)
    usage = read_task_usage([0], directory=tmp_path / "out")
    assert usage[["start_time", "end_time"]].values.tolist() == [
        [700_000_000, 900_000_000], [900_000_000, 1_200_000_000], [1_200_000_000, 1_500_000_000],
        [1_500_000_000, 1_600_000_000]]
    assert (usage.job_id == 7).all() and (usage.machine_id == 5).all()
    assert (usage.cpu_rate <= 0.25).all() and (usage.assigned_memory == 0.2).all()   # capped by the machine
    assert is_synthetic(out)
