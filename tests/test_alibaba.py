"""Alibaba trace readers: fixtures in the real formats, errors, and the shared excerpt."""

import gzip

import pytest

from fairlib._validate import InvalidInputError
from fairlib.traces import TraceFormatError, read_batch_task, read_machine_meta
from tests.realdata import real_traces

REAL, real = real_traces("alibaba_clusterdata", needs="cluster-trace-v2018/machine_meta.csv.gz")


def _gz(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt") as f:
        f.write(text)


def test_fixtures(tmp_path):
    _gz(
        tmp_path / "cluster-trace-v2018" / "machine_meta.csv.gz",
        "m_1,0,219,17,96,100,USING\nm_2,5,3,x,48,50,USING\n",
    )
    meta = read_machine_meta(directory=tmp_path)
    assert meta.machine_id.tolist() == ["m_1", "m_2"] and meta.cpu_num.tolist() == [96.0, 48.0]
    _gz(
        tmp_path / "cluster-trace-v2017" / "batch_task.csv.gz",
        "task_create_time, task_end_time, job_id, task_id,number_of_instances, status, a,b\n"
        "6459,6524,3,4,15740,Terminated,50,0.007956928\n",
    )
    tasks = read_batch_task("2017", directory=tmp_path)
    assert len(tasks) == 1 and tasks.plan_cpu[0] == 50 and tasks.status[0] == "Terminated"
    _gz(
        tmp_path / "cluster-trace-v2018" / "batch_task.csv.gz",
        "M1,10,j_1,1,Terminated,157297,157325,100,0.39\n",
    )
    assert read_batch_task("2018", directory=tmp_path).instance_num.tolist() == [10.0]


def test_errors(tmp_path):
    _gz(tmp_path / "cluster-trace-v2018" / "machine_meta.csv.gz", "m_1,zero,219,17,96,100,USING\n")
    with pytest.raises(TraceFormatError, match="machine_meta.csv.gz"):
        read_machine_meta(directory=tmp_path)
    _gz(tmp_path / "cluster-trace-v2017" / "batch_task.csv.gz", "1,2,3\n4,5,6,7,8,9,10,11,12\n")
    with pytest.raises(
        TraceFormatError, match=r"batch_task\.csv\.gz, line 1: 3 field\(s\), expected 8"
    ):
        read_batch_task("2017", directory=tmp_path)
    with pytest.raises(FileNotFoundError, match="v2018 batch_task not found"):
        read_batch_task("2018", directory=tmp_path / "nowhere")
    with pytest.raises(InvalidInputError, match="version = '2019'"):
        read_batch_task("2019", directory=tmp_path)


@pytest.mark.realdata
@real
def test_real_excerpt():
    meta = read_machine_meta(directory=REAL)
    assert meta.machine_id.nunique() == 4034 and set(meta.cpu_num.unique()) == {
        96.0
    }  # SCHEMAS.md §5
    tasks = read_batch_task("2017", directory=REAL)
    assert len(tasks) == 80_553 and tasks.job_id.nunique() == 12_951
