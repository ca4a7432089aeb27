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


@pytest.mark.parametrize(
    "table, row, message",
    [
        (
            "2017",
            "6459,6400,3,4,15,Terminated,50,0.0079\n",
            r"column 'end_time': 6400 is before create_time",
        ),
        (
            "2017",
            "6459,6524,3,4,1.5,Terminated,50,0.0079\n",
            r"column 'instance_num': '1\.5' is not an integer",
        ),
        (
            "2017",
            "6459,6524,3,4,-2,Terminated,50,0.0079\n",
            r"column 'instance_num': -2\.0 must be",
        ),
        (
            "2017",
            "6459,6524,12345678901234567890,4,15,Terminated,50,0.0079\n",
            r"column 'job_id': '12345678901234567890' is beyond the int64 range",
        ),
        (
            "2018",
            "M1,10,j_1,1,Terminated,157297,157200,100,0.39\n",
            r"column 'end_time': 157200 is before",
        ),
        (
            "2018",
            "M1,1.5,j_1,1,Terminated,157297,157325,100,0.39\n",
            r"column 'instance_num': '1\.5' is not an",
        ),
        (
            "2018",
            "M1,-3,j_1,1,Terminated,157297,157325,100,0.39\n",
            r"column 'instance_num': -3\.0 must be",
        ),
        ("meta", "m_2,-5,3,x,48,50,USING\n", r"column 'time': -5\.0 must be finite and >= 0"),
    ],
)
def test_rows_the_documentation_rules_out_name_file_line_and_column(tmp_path, table, row, message):
    """A task that ends before it starts (more than the 1 s the v2017 excerpt itself holds; an end
    of 0 is a task not ended within the window), a fractional or negative instance count, an id
    beyond int64 (pandas' bare OverflowError) and a negative v2018 time are refused."""
    good = {
        "2017": "6459,6524,3,4,15,Terminated,50,0.0079\n",
        "2018": "M1,10,j_1,1,Terminated,157297,0,100,0.39\n",
        "meta": "m_1,0,219,17,96,100,USING\n",
    }[table]
    path = {
        "2017": tmp_path / "cluster-trace-v2017" / "batch_task.csv.gz",
        "2018": tmp_path / "cluster-trace-v2018" / "batch_task.csv.gz",
        "meta": tmp_path / "cluster-trace-v2018" / "machine_meta.csv.gz",
    }[table]
    read = read_machine_meta if table == "meta" else lambda **kw: read_batch_task(table, **kw)
    _gz(path, good)
    assert len(read(directory=tmp_path)) == 1  # an end of 0 (2018) is not checked
    _gz(path, good + row)
    with pytest.raises(TraceFormatError, match=r"\.csv\.gz, line 2, " + message):
        read(directory=tmp_path)


def test_an_end_one_second_before_the_start_is_read_as_the_v2017_excerpt_holds_one(tmp_path):
    _gz(
        tmp_path / "cluster-trace-v2017" / "batch_task.csv.gz",
        "53176,53175,8561,1,1,Terminated,,\n",
    )
    assert read_batch_task("2017", directory=tmp_path).end_time.tolist() == [53175]


def test_machines_up_and_tasks_present_on_the_fixture():
    """One instant of the committed synthetic Alibaba fixture (tests/fixtures/make_fixtures.py)."""
    from fairlib.traces import is_synthetic, machines_up, tasks_present
    from tests.fixtures.make_fixtures import HERE

    folder = HERE / "alibaba_clusterdata"
    assert is_synthetic(folder)
    machines = machines_up(read_machine_meta(directory=folder), 7000)
    assert machines.tolist() == [[96.0, 1.0]] * 6  # 96 cores, memory 100 / 100
    batch = read_batch_task("2017", directory=folder)
    present = tasks_present(batch, 8000)
    # created at or before 8,000 s and ending after it: tasks 2 (4 instances) and 3 (no plan: left
    # out)
    assert present.task.tolist() == [2] and present.instances.tolist() == [4]
    assert present.cpu.tolist() == [1.0] and present.memory.tolist() == [pytest.approx(0.006013019)]
    assert present.attrs["skipped"] == {"without a plan": 1, "with a zero plan or no instance": 0}


def test_machines_up_follows_the_last_status():
    import pandas as pd

    from fairlib.traces import machines_up

    meta = pd.DataFrame(
        {
            "machine_id": ["a", "a", "b"],
            "time": [0, 100, 50],
            "cpu_num": [96.0, 96.0, 48.0],
            "mem_size": [100.0, 100.0, 50.0],
            "status": ["USING", "IMPORT_INSTALLING", "USING"],
        }
    )
    assert machines_up(meta, 10).tolist() == [[96.0, 1.0]]  # b not yet seen
    assert machines_up(meta, 60).tolist() == [[96.0, 1.0], [48.0, 0.5]]
    assert machines_up(meta, 100).tolist() == [[48.0, 0.5]]  # a installing
    with pytest.raises(InvalidInputError, match="machine_meta: missing columns"):
        machines_up(meta.drop(columns="status"), 10)
    with pytest.raises(InvalidInputError, match="at_s"):
        machines_up(meta, float("nan"))


def test_tasks_present_reads_v2018_units_and_refuses_other_tables():
    import pandas as pd

    from fairlib.traces import tasks_present

    v2018 = pd.DataFrame(
        {
            "task_name": ["M1", "R2_1"],
            "instance_num": [10.0, 0.0],
            "job_name": ["j_1", "j_1"],
            "task_type": ["1", "1"],
            "status": ["Terminated"] * 2,
            "start_time": [100, 100],
            "end_time": [200, 200],
            "plan_cpu": [100.0, 50.0],
            "plan_mem": [0.39, 0.2],
        }
    )
    present = tasks_present(v2018, 150)
    assert present.task.tolist() == ["M1"] and present.memory.tolist() == [pytest.approx(0.0039)]
    assert present.attrs["skipped"]["with a zero plan or no instance"] == 1  # no instance
    assert tasks_present(v2018, 200).empty  # ended
    with pytest.raises(InvalidInputError, match="v2017 or v2018 columns"):
        tasks_present(pd.DataFrame({"x": [1]}), 0)


def test_synthetic_alibaba_is_deterministic_and_read_by_the_loaders(tmp_path):
    from fairlib.traces import is_synthetic, synthetic_alibaba

    a = synthetic_alibaba(tmp_path / "a", rng=5, n_machines=4, n_tasks=30)
    b = synthetic_alibaba(tmp_path / "b", rng=5, n_machines=4, n_tasks=30)
    for name in (
        "cluster-trace-v2018/machine_meta.csv.gz",
        "cluster-trace-v2017/batch_task.csv.gz",
    ):
        assert (a / name).read_bytes() == (b / name).read_bytes()
    assert is_synthetic(a) and read_machine_meta(directory=a).machine_id.nunique() == 4
    assert len(read_batch_task("2017", directory=a)) == 30
    with pytest.raises(InvalidInputError, match="n_tasks"):
        synthetic_alibaba(tmp_path / "c", n_tasks=0)


def _meta():
    import pandas as pd

    return pd.DataFrame(
        {
            "machine_id": ["a", "b"],
            "time": [0, 0],
            "cpu_num": [96.0, 48.0],
            "mem_size": [100.0, 50.0],
            "status": ["USING", "USING"],
        }
    )


def _batch():
    import pandas as pd

    return pd.DataFrame(
        {
            "create_time": [0, 0],
            "end_time": [30, 30],
            "job_id": [1, 1],
            "task_id": [1, 2],
            "instance_num": [2, 3],
            "status": ["Terminated"] * 2,
            "plan_cpu": [50.0, 100.0],
            "plan_mem": [0.01, 0.02],
        }
    )


@pytest.mark.parametrize(
    "column, value, message",
    [
        ("cpu_num", -5.0, r"row 1 \(index 1\), column 'cpu_num' = -5\.0"),
        ("cpu_num", 0.0, r"row 1 \(index 1\), column 'cpu_num' = 0\.0"),
        ("cpu_num", 2.5, r"row 1 \(index 1\), column 'cpu_num' = 2\.5: must be .*whole"),
        ("mem_size", float("nan"), r"row 1 \(index 1\), column 'mem_size' = nan: must be present"),
        ("mem_size", 150.0, r"row 1 \(index 1\), column 'mem_size' = 150\.0: .*<= 100"),
        ("mem_size", float("inf"), r"row 1 \(index 1\), column 'mem_size' = inf"),
        ("time", 0.5, r"row 1 \(index 1\), column 'time' = 0\.5: must be .*whole"),
        ("time", float("nan"), r"row 1 \(index 1\), column 'time' = nan"),
        ("machine_id", None, r"row 1 \(index 1\), column 'machine_id' = None: must be text"),
        ("status", 3, r"row 1 \(index 1\), column 'status' = 3: must be text"),
    ],
)
def test_machines_up_refuses_a_frame_read_would_refuse_by_column_and_row(column, value, message):
    """A hand-built frame with a negative core count or a NaN memory gave a machine of that
    capacity; a machine without an id was dropped by the grouping."""
    from fairlib.traces import machines_up

    meta = _meta()
    meta[column] = meta[column].astype(object)
    meta.loc[1, column] = value
    with pytest.raises(InvalidInputError, match="machine_meta " + message):
        machines_up(meta, 10)


@pytest.mark.parametrize(
    "column, value, message",
    [
        ("plan_cpu", -50.0, r"column 'plan_cpu' = -50\.0: must be finite and >= 0"),
        ("plan_mem", float("inf"), r"column 'plan_mem' = inf"),
        ("instance_num", 2.7, r"column 'instance_num' = 2\.7: must be finite, whole and >= 0"),
        ("instance_num", -1, r"column 'instance_num' = -1\.0"),
        ("create_time", float("nan"), r"column 'create_time' = nan: must be present"),
        ("end_time", 30.5, r"column 'end_time' = 30\.5: must be .*whole"),
    ],
)
def test_tasks_present_refuses_a_frame_read_would_refuse_by_column_and_row(column, value, message):
    """A plan of -50 gave a demand of -0.5 cores; 2.7 instances were cut to 2."""
    from fairlib.traces import tasks_present

    batch = _batch()
    batch[column] = batch[column].astype(float)
    batch.loc[1, column] = value
    with pytest.raises(InvalidInputError, match=r"batch_task row 1 \(index 1\), " + message):
        tasks_present(batch, 10)


@pytest.mark.parametrize("column", ["time", "cpu_num", "mem_size"])
def test_machines_up_names_a_column_of_text_numbers(column):
    """A ``time`` of text ("0") raised pandas' bare TypeError from the comparison with ``at_s``."""
    from fairlib.traces import machines_up

    meta = _meta()
    meta[column] = meta[column].astype(str)
    with pytest.raises(
        InvalidInputError,
        match=rf"machine_meta row \d+ \(index \d+\), column '{column}' = .+: must be a number",
    ):
        machines_up(meta, 10)


@pytest.mark.parametrize("column", ["create_time", "end_time", "instance_num", "plan_cpu"])
def test_tasks_present_names_a_column_of_text_numbers(column):
    from fairlib.traces import tasks_present

    batch = _batch()
    batch[column] = batch[column].astype(str)
    with pytest.raises(
        InvalidInputError,
        match=rf"batch_task row \d+ \(index \d+\), column '{column}' = .+: must be a number",
    ):
        tasks_present(batch, 10)


def test_an_integer_float64_would_round_is_refused(tmp_path):
    """A CPU count or plan written as an integer beyond 2**53 was read as the float nearest it
    (2**53 + 1 as 2**53): refused, naming the file, line, column and the field as written (a
    header line counted)."""
    _gz(
        tmp_path / "cluster-trace-v2017" / "batch_task.csv.gz",
        "task_create_time, task_end_time, job_id, task_id,number_of_instances, status, a,b\n"
        "6459,6524,3,4,15740,Terminated,50,0.007956928\n"
        "6459,6524,3,5,15740,Terminated, 9007199254740993,0.007956928\n",
    )
    with pytest.raises(
        TraceFormatError,
        match=r"line 3, column 'plan_cpu': '9007199254740993' is an integer beyond 2\*\*53",
    ):
        read_batch_task("2017", directory=tmp_path)
    _gz(
        tmp_path / "cluster-trace-v2018" / "machine_meta.csv.gz",
        "m_1,0,219,17,96,100,USING\nm_2,5,3,x,9007199254740993,50,USING\n",
    )
    with pytest.raises(TraceFormatError, match=r"line 2, column 'cpu_num': '9007199254740993'"):
        read_machine_meta(directory=tmp_path)
