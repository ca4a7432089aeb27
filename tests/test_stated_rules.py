"""Rules the documentation states about an input, each refused by name when an input breaks it,
where every argument on its own has the right type: a row naming no machine, a status in the wrong
case, a timestamp that a float64 rounds into range, a job's shape not scaled to its dominant
resource, two jobs with one id, resource names that do not match the columns, shares of a machine
above 1, a sorter's holding that overflows, a list passed for ``*capabilities``, a masked entry."""

from __future__ import annotations

import gzip
import re

import numpy as np
import pandas as pd
import pytest

from fairlib import games, mechanisms, metrics, sim
from fairlib._validate import InvalidInputError
from fairlib.multires import DRFSorter
from fairlib.traces import TraceFormatError, read_machine_meta, read_vm, write_vm
from fairlib.traces.bitbrains import BITBRAINS_COLUMNS, BITBRAINS_HEADER


def _meta(tmp_path, rows: str):
    path = tmp_path / "cluster-trace-v2018" / "machine_meta.csv.gz"
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt") as f:
        f.write(rows)
    return read_machine_meta(directory=tmp_path)


@pytest.mark.parametrize(
    "row,match",
    [
        (",0,219,17,96,100,USING", r"line 2, column machine_id = <NA>: empty"),
        ("m_2,0,219,17,96,150,USING", r"line 2, column mem_size = 150.0: above 100"),
        ("m_2,0,219,17,96,100,using", r"line 2, column status = 'using'"),
        ("m_2,0,219,17,96,100,USING ", r"line 2, column status = 'USING '"),
    ],
)
def test_machine_meta_refuses_what_its_format_forbids(tmp_path, row, match):
    assert len(_meta(tmp_path, "m_1,0,219,17,96,100,IMPORT_INSTALLING\n")) == 1
    with pytest.raises(TraceFormatError, match=match):
        _meta(tmp_path, f"m_1,0,219,17,96,100,USING\n{row}\n")


def _vm(times) -> pd.DataFrame:
    frame = pd.DataFrame({c: np.ones(len(times)) for c in BITBRAINS_COLUMNS})
    frame["time"] = np.asarray(times, dtype=np.int64)
    return frame


def test_a_bitbrains_timestamp_past_2_53_is_refused_even_where_a_float_rounds_it_in(tmp_path):
    """2⁵³ + 1 reads as 2⁵³ in a float64: the reader and the writer decide on the integer."""
    path = write_vm(tmp_path / "7.csv.gz", _vm([0, 2**53]))
    assert read_vm(path)["time"].tolist() == [0, 2**53]
    with pytest.raises(InvalidInputError, match=r"frame\['time'\]\[1\]"):
        write_vm(tmp_path / "8.csv.gz", _vm([0, 2**53 + 1]))
    text = gzip.open(path, "rt").read().replace(str(2**53), str(2**53 + 1))
    with gzip.open(tmp_path / "9.csv.gz", "wt") as f:
        f.write(text)
    with pytest.raises(TraceFormatError, match=re.escape(f"{BITBRAINS_HEADER[0]} = '{2**53 + 1}'")):
        read_vm(tmp_path / "9.csv.gz")


def _jobs(**change):
    fields = dict(
        ids=np.array([0, 1]),
        arrival=np.array([0.0, 0.0]),
        trace_end=np.array([100.0, 100.0]),
        offsets=np.array([0, 1, 2]),
        work=np.array([10.0, 5.0]),
        shape=np.array([[1.0, 0.5], [0.5, 1.0]]),
        resources=("cpu", "memory"),
        source="test",
    )
    return sim.Jobs(**{**fields, **change})


@pytest.mark.parametrize(
    "change,match",
    [
        ({"shape": np.array([[0.5, 0.5], [0.5, 1.0]])}, r"jobs.shape\[0\] = \[0.5, 0.5\]"),
        ({"ids": np.array([1, 1])}, r"jobs.ids\[0\] = 1: appears 2 times"),
        ({"resources": ("cpu",)}, r"jobs.resources = \('cpu',\)"),
        ({"resources": ("cpu", "cpu")}, r"jobs.resources = \('cpu', 'cpu'\)"),
        ({"resources": ["cpu", "memory"]}, r"jobs.resources"),
    ],
)
def test_jobs_refuse_fields_that_disagree(change, match):
    assert _jobs().ids.tolist() == [0, 1]
    with pytest.raises(InvalidInputError, match=match):
        _jobs(**change)


def test_shares_of_one_machine_add_up_to_at_most_one():
    assert metrics.utilities(np.ones((2, 2)), np.full((2, 2), 0.5)).tolist() == [1.0, 1.0]
    for call in (metrics.utilities, metrics.envy_freeness):
        with pytest.raises(InvalidInputError, match=r"shares\[:, 0\] sums to 2.0"):
            call(np.ones((2, 2)), np.ones((2, 2)))


def test_a_sorter_holding_that_would_overflow_is_refused_and_nothing_changes():
    sorter = DRFSorter([10.0, 10.0])
    sorter.add("a")
    sorter.allocated("a", [1e308, 0.0])
    before = sorter.allocation("a").copy()
    with pytest.raises(InvalidInputError, match=r"allocated\('a'\): 'r0' held would overflow"):
        sorter.allocated("a", [1e308, 0.0])
    with pytest.raises(InvalidInputError, match=r"update\('a'\): 'r0' held would overflow"):
        sorter.update("a", [0.0, 0.0], [1e308, 0.0])
    np.testing.assert_array_equal(sorter.allocation("a"), before)


@pytest.mark.parametrize("select", [games.select, games.names, mechanisms.select])
def test_a_list_for_capabilities_is_named(select):
    with pytest.raises(InvalidInputError, match=r"capabilities\[0\] = \['pooled'\]"):
        select(["pooled"])


def test_a_masked_entry_is_refused_not_read_as_data():
    from fairlib.multires import drf

    demands = np.ma.array([[1.0, 4.0], [3.0, 1.0]], mask=[[0, 1], [0, 0]])
    with pytest.raises(InvalidInputError, match=r"\[0, 1\] is masked"):
        drf(demands, [9.0, 18.0])
    unmasked = np.ma.array([[1.0, 4.0], [3.0, 1.0]], mask=False)
    assert (
        drf(unmasked, [9.0, 18.0]).tasks.tolist() == drf(unmasked.data, [9.0, 18.0]).tasks.tolist()
    )


def test_a_placement_refusal_suggests_only_the_remedies_the_call_has():
    from fairlib.multires import Cluster, drf_machine_offers, drfh_best_fit

    cluster = Cluster([[1e6, 1e6]], [[1.0, 1.0], [1.0, 1.0]])
    with pytest.raises(InvalidInputError, match="max_placements = 1;") as offers:
        drf_machine_offers(cluster, max_placements=1)
    assert "quantum" not in str(offers.value) and "up to" in str(offers.value)
    with pytest.raises(InvalidInputError, match="raise quantum, or use drfh") as best_fit:
        drfh_best_fit(cluster, quantum=1e-3, max_placements=10**8)
    assert "raise max_placements" not in str(best_fit.value)


def test_a_fleet_needs_as_many_configurations_as_classes():
    from fairlib.traces import google_fleet

    configurations = pd.DataFrame({"cpus": [0.5, 1.0], "memory": [0.5, 1.0], "machines": [3, 1]})
    assert google_fleet(4, 2, rng=0, configurations=configurations).capacity.shape == (4, 2)
    for few in (configurations.iloc[:0], configurations.iloc[:1]):
        with pytest.raises(
            InvalidInputError, match=r"configurations: \d .* fewer than classes = 2"
        ):
            google_fleet(4, 2, rng=0, configurations=few)


def test_job_demands_refuse_fields_of_different_lengths():
    from fairlib.traces.google import JobDemands

    fields = dict(
        job=np.array([1, 1]),
        demand=np.array([[0.1, 0.1], [0.2, 0.1]]),
        start=np.array([0.0, 10.0]),
        end=np.array([10.0, 20.0]),
        held=np.array([10.0, 10.0]),
        window_end=np.array([20.0, 20.0]),
        scheduling_class=None,
        source="test",
    )
    assert len(sim.jobs_from_demands(JobDemands(**fields)).ids) == 1
    for name, value, match in (
        ("start", np.array([0.0]), r"start: expected one value per segment \(2, as job\)"),
        ("demand", np.array([[0.1, 0.1]]), r"demand: expected shape \(2, 2\)"),
        ("job", np.array([[1, 1]]), r"job: expected one job per segment"),
    ):
        with pytest.raises(InvalidInputError, match=match):
            JobDemands(**{**fields, name: value})


def test_a_catalogue_headline_over_200_characters_is_refused_where_it_is_written():
    from fairlib.repro.catalog import Notebook

    fields = dict(key="demo", path="notebooks/demo.ipynb", title="A title")
    assert Notebook(**fields, headline="x" * 200).headline == "x" * 200
    with pytest.raises(InvalidInputError, match=r"headline of 'demo': 201 characters, at most 200"):
        Notebook(**fields, headline="x" * 201)
