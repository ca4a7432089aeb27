"""One contract over the whole public API, in the pirit of scikit-learn's ``check_estimator``.

The test walks ``fairlib.__all__`` and the ``__all__`` of every public subpackage and module (a
module without ``__all__``: its public names defined there). For every public function and
constructor, and every public method with arguments of a type the API returns
(``DynamicDRFResult.shares``), it first finds a **valid baseline call**:

1. an entry of :data:`EXAMPLES` (the contributor's fallback), else
2. the first call of the function in its own docstring examples (doctests), else
3. arguments built by parameter name from :data:`FACTORIES` (a small valid Cluster, Game, Workload,
   demand matrix, ...), trying the candidates until one call succeeds.

A public callable with no derivable baseline **fails**
:func:`test_every_public_callable_has_a_valid_baseline` naming what to add (a doctest example, a
factory, or an EXAMPLES entry). Then, on top of the baseline, each argument in turn gets a battery
of bad values chosen by the kind of its valid value (:func:`battery`): None, a wrong type, a bool
where a number is meant, text, complex, NaN, ±inf, a negative, zero where the function's own
message says positive, a float where an integer is meant, a huge integer, empty and ragged arrays,
wrong shapes and dimensions, and a wrong object in place of a Cluster/Game/Workload/DataFrame. On
top of these, :func:`type_battery` derives bad values from the argument's annotation (from its valid
value's kind where it has none): 0, 1 and "false" for a bool, 2**63 for an int, 1e±300 for a float,
missing, wrong-kind and garbage paths, wrong keys and values in mappings, empty, repeated and
wrong-typed labels, empty and reversed ranges, and None where the annotation does not allow it. A
stateful class's methods (:data:`STATEFUL`, the sorter) get a fresh instance per call. Each call
must end in

- an :class:`~fairlib._validate.InvalidInputError` (or an exception the docstring's *Raises* section
  documents) whose message names the argument and, for a scalar, the value; or
- a result, only where :data:`ACCEPTED` says that value is valid for that argument, with the reason;
  or
- for a command line's ``main(argv)``, argparse's exit with a non-zero status whose message on
  stderr names the option or value it refuses (``unrecognized arguments: --no-such-option``): the
  command line's own convention for a malformed command (:func:`_names_in_exit`). Any other
  ``SystemExit``, ``KeyboardInterrupt`` or such ``BaseException`` fails the target, and never ends
  the probing process. An ``argv`` gets a str where a list is meant, a list with a non-str element
  and an unknown option (never the empty list: a ``main`` run with no options does its default
  work); its baseline is an :data:`EXAMPLES` entry that cannot write into the checkout.

No callable is exempt by name. What the walk leaves out, it leaves out by what it is
(:func:`_takes_input`: an exception class, an abstract class, a callable with no parameters) or
because it is a class marked by :func:`fairlib._validate.result_type` (a type the library returns;
its methods with arguments are probed); values valid for an argument are in :data:`ACCEPTED` with
the reason — nothing is skipped silently or expected to fail, and
:func:`test_exemptions_name_public_callables` keeps the list current. A hypothesis test
(:func:`test_scalars_from_hypothesis_never_raise_raw_errors`) adds arbitrary scalars, one test per
callable, its draws seeded from the callable's name: a public function added or removed elsewhere
changes no other callable's draws
(:func:`test_scalar_draws_of_a_callable_do_not_depend_on_the_others`).

The probes run in a child process (:class:`_Prober`): a value a callable does not check can crash or
hang compiled code, and that must fail one target, not end the test run.

Mutation evidence: :func:`test_the_contract_fails_a_target_whose_validation_is_removed` makes one
validator of each of three passing targets (:data:`MUTATIONS`) a pass-through and asserts that the
contract then fails that target;
:func:`test_the_contract_fails_a_callable_whose_validation_site_is_removed` does the same site by
site, for a fixed window (FAIRLIB_MUTATION_WINDOW picks another) of every call of a
``fairlib._validate`` helper in ``fairlib/`` (:func:`validation_sites`). A site whose pass-through
the battery cannot see (a value only that check refuses, a path no baseline takes) is listed in
:data:`UNSEEN_SITES` with the reason and the tests that see it; the same test runs those tests on
the mutant, in a fresh pytest process (:func:`killed_by`), and fails unless one of them fails —
so every site's removal fails some test, checked, not claimed.
"""

from __future__ import annotations

import contextlib
import doctest
import fnmatch
import hashlib
import importlib
import inspect
import io
import math
import re
import signal
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, seed, settings
from hypothesis import strategies as st

import fairlib
from tests.mutants import MUTANT_SITE, NotMutable, mutate, site_text
from tests.test_validation_sites import _DRAWN
from fairlib._validate import InvalidInputError, is_result_type

#: modules walked besides fairlib itself (fairlib.__all__ names them), and the pipeline modules
#: whose functions take user input (fairlib.repro); packages are walked through their __all__
MODULES = [f"fairlib.{m}" for m in fairlib._SUBMODULES] + [
    f"fairlib.repro.{m}"
    for m in (
        "experiments",
        "ledger",
        "outputs",
        "plotting",
        "verify",
        "catalog",
        "prose",
        "tables",
        "landing",
        "executed",
        "report",
        "warm",
        "scaffold",
    )
]

#: values that are valid for an argument: (callable pattern, argument pattern, probe label pattern)
#: -> reason
#: the battery's label of text that shows nothing (a zero-width space), for a name, label or choice
INVISIBLE = "'\\u200b' (invisible str)"

ACCEPTED = {
    **{
        ("fairlib.repro.verify.compare_text", arg, INVISIBLE): "a file's whole text, compared "
        "as it is: text that shows nothing is content too (and differs from the other side's)"
        for arg in ("committed", "fresh")
    },
    **{
        ("fairlib.repro.verify.compare_values", arg, INVISIBLE): "a cell's text, compared as it "
        "is: a cell that shows nothing is content too"
        for arg in ("committed", "fresh")
    },
    ("fairlib.repro.verify.compare_text", "sep", INVISIBLE): "a regular expression: a file may "
    "separate its fields by any character, an invisible one too",
    ("fairlib.repro.landing.render", "text", INVISIBLE): "a file's whole text: one without a "
    "marked block is rendered as it is",
    ("fairlib.repro.ledger.cell_key", "source", INVISIBLE): "a hash of any text: a blank cell "
    "has a key too (the cell that runs a measurement holds code)",
    (
        "fairlib.repro.verify.compare_table",
        "tolerances",
        "an unknown key",
    ): 'verify_results passes each table a notebook\'s tolerances for all its tables ("*") as '
    "well as its own, so a declared column some table lacks is expected; a column neither table "
    "has is compared by no rule",
    ("fairlib.repro.catalog.Notebook", "tests", "empty labels"): "a notebook with no test "
    "file of its own (the default)",
    ("fairlib.repro.catalog.Notebook", "mechanisms", "empty labels"): "a notebook that "
    "registers no mechanism (the default)",
    (
        "fairlib.traces.machines_up",
        "at_s",
        "2.5 (float)",
    ): "a time in seconds: any instant, between the trace's whole seconds too",
    (
        "fairlib.traces.machines_up",
        "at_s",
        "10**20 (huge)",
    ): "an answer, not an error: after the window every machine keeps its last row's status",
    (
        "fairlib.traces.tasks_present",
        "at_s",
        "2.5 (float)",
    ): "a time in seconds: any instant, between the trace's whole seconds too",
    (
        "fairlib.traces.tasks_present",
        "at_s",
        "10**20 (huge)",
    ): "an answer, not an error: after the window no task is present",
    ("fairlib.sweep.sweep", "desc", "*"): "free text: the progress bar's label",
    ("fairlib.traces.write_vm", "path", "a missing file"): "an output file: the call writes it",
    (
        "fairlib.repro.catalog.importing_tests",
        "modules",
        "empty labels",
    ): "no module: no test imports it ([])",
    (
        "fairlib.*.register*",
        "name",
        "'no-such-choice'*",
    ): "a new registration's name: any non-empty text",
    ("fairlib.*.registered", "name", "'no-such-choice'*"): "a new registration's name: any text",
    ("fairlib.*.register*", "label", "'no-such-choice'*"): "free text: the legend's entry",
    (
        "fairlib.*.register*",
        "color",
        "'no-such-choice'*",
    ): "a matplotlib colour name, which matplotlib checks when a figure draws it",
    (
        "fairlib.*.register*",
        "capabilities",
        "a duplicate label",
    ): "a set: a capability named twice is the same capability",
    (
        "fairlib.games.register_game",
        "capabilities",
        "empty labels",
    ): "a game needs no capability (budgets, parallelism, reserve and equilibrium are extras)",
    (
        "fairlib.paths.find_traces",
        "folder",
        "'no-such-choice'*",
    ): "an answer, not an error: a folder found in no trace directory is None",
    (
        "fairlib.paths.missing_traces_message",
        "folder",
        "'no-such-choice'*",
    ): "an answer, not an error: any folder name is one a test may look for and not find",
    (
        "fairlib.multires.DRFSorter.*",
        "weight",
        "1e*",
    ): "any finite weight > 0: a share is divided by it",
    (
        "fairlib.multires.DRFSorter.update_weight",
        "name",
        "'no-such-choice'*",
    ): "a role's weight: under Mesos it may be set for a role no client has yet (its clients "
    "take it)",
    (
        "fairlib.multires.DRFSorter.contains",
        "name",
        "'no-such-choice'*",
    ): "an answer, not an error: a name that is no client (False)",
    (
        "fairlib.multires.DRFSorter.add",
        "name",
        "'no-such-choice'*",
    ): "a new client's name: any text (Mesos nests roles with '/')",
    (
        "*",
        "mechanisms",
        "an unknown key",
    ): "a label of the caller's choosing: the mapping's keys name the rows of the result",
    (
        "fairlib.traces.write_vm",
        "path",
        "a file of garbage",
    ): "an output file: the call writes over it",
    (
        "fairlib.market.best_response",
        "budget",
        "1e*",
    ): "the best response is scale-free: its kernels run at the unit scale of the largest of y "
    "and the budget, so any positive finite budget is answered (tests/test_market.py checks "
    "both ends of the float range)",
    (
        "fairlib.market.best_response_numpy",
        "budget",
        "1e*",
    ): "the closed form of the best response holds at any positive budget (tests/test_market.py "
    "checks both ends of the float range against the unit-scale kernels)",
    (
        "fairlib.market.best_response_finite",
        "budget",
        "1e*",
    ): "the best response is scale-free: its kernels run at the unit scale of the largest of y "
    "and the budget, so any positive finite budget is answered (tests/test_market.py checks "
    "both ends of the float range)",
    (
        "fairlib.traces.*",
        "at_s",
        "1e*",
    ): "a trace time in seconds: any finite time >= 0 is one (before a machine's or task's "
    "first row it is absent, after its last row it keeps its last status)",
    (
        "fairlib.dynamic.maxmin_tight_example",
        "eps",
        "1e-300 (tiny)",
    ): "the worked example's small demand, any eps in (0, 0.5] (the paper: eps -> 0); 1e-300 is "
    "a normal double",
    (
        "fairlib.dynamic.maxsum_counterexample",
        "eps",
        "1e-300 (tiny)",
    ): "the worked example's small demand, any eps in (0, 0.5] (the paper: eps -> 0); 1e-300 is "
    "a normal double",
    (
        "fairlib.multires.random_cluster",
        "eligible_fraction",
        "1e-300 (tiny)",
    ): "a probability in (0, 1]: a tiny one leaves each user the one server it always keeps",
    (
        "fairlib.multires.utilisation_range",
        "slack",
        "1e-300 (tiny)",
    ): "a relative slack in [0, 0.5]: a tiny one is slack 0 after rounding (the same range)",
    (
        "fairlib.sweep.cell_seed",
        "params",
        "an unknown key",
    ): "a cell's parameters are the sweep function's keyword arguments: any name is one",
    (
        "fairlib.sweep.cell_seed",
        "params",
        "a NaN value",
    ): "a parameter's value is the sweep function's to judge; NaN has a canonical form, so a seed",
    (
        "fairlib.repro.ledger.measured_values",
        "measured",
        "an unknown key",
    ): "any claim id: it only reads the values; ClaimLog.measure_all checks ids against the "
    "registry",
    (
        "fairlib.traces.synthetic_*",
        "dest",
        "a missing directory",
    ): "an output folder: the call makes it",
    (
        "fairlib.traces.synthetic_alibaba",
        "dest",
        "'no-such-choice'*",
    ): "an output folder's name: the call makes it",
    (
        "fairlib.traces.is_synthetic",
        "folder",
        "a missing directory",
    ): "an answer, not an error: a folder that is not there carries no marker (False)",
    (
        "fairlib.sim.*",
        "reserved",
        "empty labels",
    ): "no server class reserved: every server serves every job",
    (
        "fairlib.timing.median_time",
        "slow",
        "1e*",
    ): "a threshold in seconds: any finite value >= 0 is one (a call slower than it is sampled "
    "three times)",
    (
        "fairlib.timing.median_time",
        "min_time",
        "1e-300 (tiny)",
    ): "a floor in seconds: below one call's time, each sample is one call",
    (
        "fairlib.traces.*_vms",
        "vms",
        "[[]2[]] (list)",
    ): "a list of VM numbers: [2] reads VM 2 (its annotation, "
    "Iterable[int | str], draws the integer battery)",
    (
        "fairlib.sweep.sweep",
        "cache_name",
        "'no-such-choice'*",
    ): "a folder name under build/sweep-cache",
    ("fairlib.sweep.*", "n_jobs", "-1 (negative)"): "-1 is joblib's 'every core'",
    (
        "fairlib.repro.experiments.bidding_game.infinite_parallelism_sweep",
        "step",
        "[[]1.0[]] (list)",
    ): "a list of local greedy's steps: [1.0] is one step, the whole budget (run_dynamics' "
    "largest)",
    (
        "fairlib.repro.experiments.dynamic_drf.*",
        "n_jobs",
        "-1 (negative)",
    ): "the sweep's n_jobs: -1 is joblib's 'every core'",
    (
        "fairlib.repro.experiments.bidding_game.*",
        "n_jobs",
        "-1 (negative)",
    ): "the sweep's n_jobs: -1 is joblib's 'every core'",
    (
        "fairlib.sweep.default_backend",
        "scheduler",
        "'no-such-choice'*",
    ): "a Dask scheduler's address: contacted only when a sweep runs on it",
    (
        "fairlib.repro.ledger.*",
        "key",
        "'no-such-choice'*",
    ): "a notebook key is any folder name (a new notebook's is "
    "not catalogued yet); check_key refuses what could leave "
    "the folder",
    (
        "fairlib.repro.outputs.*",
        "key",
        "'no-such-choice'*",
    ): "a notebook key is any folder name (a new notebook's is "
    "not catalogued yet); check_key refuses what could leave "
    "the folder",
    (
        "fairlib.paths.*",
        "key",
        "'no-such-choice'*",
    ): "a notebook key is any folder name (a new notebook's is not "
    "catalogued yet); check_key refuses what could leave the folder",
    (
        "fairlib.repro.outputs.save_*",
        "name",
        "'no-such-choice'*",
    ): "a file name: letters, digits, '_' and '-'",
    (
        "fairlib.repro.outputs.reported",
        "name",
        "'no-such-choice'*",
    ): "a table's file name: letters, digits, '_' and '-'",
    **{
        (f"fairlib.repro.outputs.{f}", "df", "text in its number columns"): "any table is "
        "written as it is: a column may hold text (a label, a note); nothing reads it as numbers"
        for f in ("save_table", "reported")
    },
    **{
        (f"fairlib.repro.tables.{f}", "df", "text in its number columns"): "any table is shown "
        "as it is: a column may hold text (a label, a note); nothing reads it as numbers"
        for f in ("table", "show_table")
    },
    (
        "fairlib.repro.ledger.claim_anchor",
        "claim_id",
        "'no-such-choice'*",
    ): "a claim id is any registry id (a new "
    "claim's too); claim_anchor refuses what "
    "would break the HTML anchor",
    ("fairlib.repro.ledger.cell_key", "source", "'no-such-choice'*"): "any text is a cell's source",
    (
        "fairlib.repro.ledger.display_value",
        "value",
        "*",
    ): "formats any value for a ledger (NaN, text and lists included)",
    (
        "fairlib.mechanisms.resolve",
        "name",
        "'no-such-choice'*",
    ): "free text: the argument's name as messages show it",
    (
        "fairlib.dynamic.normalize_demands",
        "name",
        "'no-such-choice'*",
    ): "free text: the argument's name as messages show it",
    (
        "fairlib.multires.Cluster.refuse_caps",
        "mechanism",
        "'*'*",
    ): "free text: the mechanism's name for the message",
    (
        "fairlib.traces.task_event_demands",
        "source",
        "'no-such-choice'*",
    ): "free text: a provenance label",
    (
        "fairlib.sim.snapshot_cluster",
        "t",
        "-1.0 (negative)",
    ): "an answer, not an error: a time before the first "
    "arrival has no active user (a workload's clock may "
    "start below 0)",
    ("fairlib.sim.Jobs", "source", "'no-such-choice'*"): "free text: a provenance label",
    (
        "fairlib.traces.task_usage_demands",
        "source",
        "'no-such-choice'*",
    ): "free text: a provenance label",
    ("fairlib.sim.Jobs", "arrival", "negative*entry"): "a time: a trace's clock may start below 0",
    (
        "fairlib.sim.Jobs",
        "segment_start",
        "negative*entry",
    ): "a time: a trace's clock may start below 0 (the segment ends after it)",
    (
        "fairlib.sim.replay",
        "start",
        "-1.0 (negative)",
    ): "a time: replaying from before the first arrival starts with "
    "idle epochs (a trace's clock may start below 0)",
    (
        "fairlib.sim.open_loop",
        "start",
        "-1.0 (negative)",
    ): "a time: scoring from before the first segment starts "
    "with idle epochs (a trace's clock may start below 0)",
    (
        "fairlib.sim.snapshot_cluster",
        "t",
        "1e-300 (tiny)",
    ): "a time in seconds, within ±2**53 (fairlib._validate.MAX_SECONDS): an instant just after "
    "0 is one",
    (
        "fairlib.sim.*",
        "start",
        "1e-300 (tiny)",
    ): "a time in seconds, within ±2**53 (fairlib._validate.MAX_SECONDS): an instant just after "
    "0 is one",
    (
        "fairlib.sim.*",
        "horizon",
        "1e-300 (tiny)",
    ): "a time in seconds, within ±2**53: the baseline starts at 0, and a horizon just after it "
    "ends the run there",
    (
        "fairlib.repro.experiments.google_open_loop.sensitivity",
        "start",
        "-1.0 (negative)",
    ): "a time: scoring from before the first segment starts with idle epochs (a trace's clock "
    "may start below 0)",
    (
        "fairlib.repro.experiments.google_open_loop.sensitivity",
        "start",
        "1e-300 (tiny)",
    ): "a time in seconds, within ±2**53: an instant just after 0 is one",
    (
        "fairlib.repro.experiments.google_open_loop.sensitivity",
        "n_jobs",
        "-1 (negative)",
    ): "-1 is joblib's 'every core' (fairlib.sweep.sweep's n_jobs)",
    (
        "fairlib.repro.experiments.heterogeneous_traces.setup_findings",
        "sampled_share",
        "1e-300 (tiny)",
    ): "a share in (0, 1]: a tiny one is a sample of almost none of the jobs, reported as drawn",
    (
        "fairlib.repro.experiments.heterogeneous_servers.alpha_sweep",
        "alphas",
        "inf entry",
    ): "α = inf is PS-DSF, the limit the sweep compares every finite α with",
    (
        "fairlib.repro.experiments.heterogeneous_servers.fds_kkt_residual",
        "tasks",
        "negative*entry",
    ): "an answer, not an error: a negative task count is infeasible, so the residual is infinite "
    "(documented)",
    (
        "fairlib.traces.Workload.active_at",
        "t",
        "1e-300 (tiny)",
    ): "a time in seconds, within ±2**53 (fairlib._validate.MAX_SECONDS): an instant just after "
    "0 is one",
    (
        "fairlib.traces.task_event_demands",
        "origin",
        "1e-300 (tiny)",
    ): "a time in seconds, in [0, 2**53]: intervals may start at any instant",
    (
        "fairlib.metrics.efficiency",
        "welfare",
        "1e-300 (tiny)",
    ): "a welfare from 0 to the optimum: a tiny one is an efficiency near 0",
    (
        "fairlib.metrics.efficiency",
        "optimum",
        "1e300 (huge)",
    ): "an optimum > 0 of any scale (a game's weights are any finite values >= 0): the "
    "baseline's welfare over it is an efficiency near 0",
    (
        "fairlib.traces.synthetic_bitbrains",
        "days",
        "1e-300 (tiny)",
    ): "however small, a positive number of days gives each VM one sample (tests/test_traces.py)",
    (
        "fairlib.traces.synthetic_google",
        "jobs_per_hour",
        "1e-300 (tiny)",
    ): "an arrival rate >= 0: a tiny one, like 0, adds no job to the initial ones",
    (
        "fairlib.traces.synthetic_google",
        "machine_scale",
        "1e-300 (tiny)",
    ): "a scale in (0, 100]: however small, each machine configuration keeps one machine",
    (
        "fairlib.traces.Fleet",
        "source",
        "'no-such-choice'*",
    ): "free text: a provenance label (the builders write real, synthetic, given or paper)",
    ("fairlib.traces.Fleet", "notes", "'no-such-choice'*"): "free text: how the fleet was built",
    (
        "fairlib.traces.Workload",
        "arrival",
        "negative*entry",
    ): "a time: a trace's clock may start below 0 (as for fairlib.sim.Jobs)",
    (
        "fairlib.traces.Workload.active_at",
        "t",
        "-1.0 (negative)",
    ): "an answer, not an error: a time before the first "
    "arrival has no active user (a workload's clock "
    "may start below 0)",
    ("fairlib.multires.psmfa", "alphas", "inf"): "α = ∞ is PS-DSF on that server (Theorem 2)",
    (
        "fairlib.multires.*",
        "alpha",
        "[[]1.0] (list)",
    ): "one α per server: the baseline's cluster has one server",
    (
        "fairlib.multires.nash_residual",
        "tasks",
        "nan entry",
    ): "an answer, not an error: a diverged solver's NaN task "
    "counts are no equilibrium (residual inf)",
    (
        "fairlib.multires.nash_residual",
        "tasks",
        "inf entry",
    ): "an answer, not an error: infinite task counts are no equilibrium (residual inf)",
    ("fairlib.multires.*", "alpha", "inf"): "α = ∞ is PS-DSF, the limit of Theorem 2 "
    "(fairlib.multires.per_server_alpha documents it)",
    (
        "fairlib.multires.Cluster.feasible",
        "tasks",
        "negative*entry",
    ): "an answer, not an error: an allocation with a negative entry is not feasible (False)",
    (
        "fairlib.repro.experiments.bidding_game.settling_iteration",
        "within",
        "1e*",
    ): "a tolerance on the curve's scale: any finite number >= 0 (a huge one: settled from the "
    "start)",
    (
        "fairlib.repro.experiments.heterogeneous_servers.random_bottleneck_cluster",
        "eligible_fraction",
        "1e-300 (tiny)",
    ): "a probability in (0, 1]: a tiny one leaves each user the bandwidth server it always keeps",
    (
        "fairlib.repro.experiments.heterogeneous_servers.with_random_caps",
        "*",
        "1e-300 (tiny)",
    ): "a fraction in [0, 1]: a tiny share caps the one user always capped, a tiny high caps it "
    "near 0 tasks",
    (
        "fairlib.repro.experiments.google_open_loop.sample_ids",
        "fraction",
        "1e-300 (tiny)",
    ): "a fraction in (0, 1]: a tiny one keeps (almost surely) no id",
    (
        "fairlib.repro.experiments.precomputed_drf.row_distance",
        "*row",
        "an unknown key",
    ): "a table row (table_row): its fields beyond MATCH_FIELDS are not compared",
    (
        "fairlib.repro.experiments.mechanism_atlas.Cell",
        "at_s",
        "1e-300 (tiny)",
    ): "an instant in seconds of trace time: any from 0, the trace's start",
    (
        "fairlib.repro.experiments.mechanism_atlas.*",
        "tol",
        "1e*",
    ): "a tie tolerance on the values' scale: any finite number >= 0 (a huge one ties every "
    "value, a tiny one only equal ones)",
    (
        "fairlib.repro.experiments.mechanism_atlas.*",
        "runs",
        "an unknown key",
    ): "a run's name: any text (one more run of a registered mechanism)",
    (
        "fairlib.repro.experiments.mechanism_atlas.summary",
        "measured",
        "an unknown key",
    ): "findings' measurements: claims beyond the two the paragraph quotes are not read",
    (
        "fairlib.repro.experiments.mechanism_atlas.figure",
        "labels",
        "an unknown key",
    ): "a reader's name for a run no table holds: unused",
    (
        "fairlib.repro.experiments.precomputed_drf.parameter_search",
        "paper_row",
        "an unknown key",
    ): "a table row (table_row): its fields beyond MATCH_FIELDS are not compared",
    (
        "fairlib.repro.experiments.precomputed_drf.*",
        "setups",
        "an unknown key",
    ): "a setup's name: any text (one more setup, run beside the others)",
    (
        "fairlib.repro.experiments.precomputed_drf.*",
        "key",
        "'no-such-choice'*",
    ): "the name of the column the call adds for the setup's name: any text",
    (
        "fairlib.repro.experiments.precomputed_drf.*",
        "n_jobs",
        "-1 (negative)",
    ): "-1 is joblib's 'every core' (fairlib.sweep.sweep's n_jobs)",
    (
        "fairlib.repro.experiments.precomputed_drf.sd_bootstrap_interval",
        "per_run",
        "negative*entry",
    ): "a sample: any finite values (their spread is what is resampled)",
    (
        "fairlib.repro.experiments.precomputed_drf.*",
        "level",
        "1e-300 (tiny)",
    ): "a central mass in (0, 1): a tiny one is the interval about the median",
    (
        "fairlib.repro.experiments.precomputed_drf.max_plausibility",
        "alpha",
        "1e-300 (tiny)",
    ): "a significance level in (0, 0.5]: a tiny one widens the intervals to the whole range",
    (
        "fairlib.repro.experiments.*",
        "seed",
        "2**63*",
    ): "a seed: any integer >= 0 (numpy's SeedSequence takes integers of any size)",
    (
        "fairlib.repro.ledger.*",
        "ours",
        "*",
    ): "a measurement: any number or list of numbers is decided by its rule (NaN and inf never "
    "hold); one of another shape is refused by name",
    (
        "fairlib.repro.ledger.*",
        "spread",
        "1e*",
    ): "a spread: any finite number >= 0 (a huge one holds any measurement, a tiny one none but "
    "the value)",
    ("fairlib.repro.ledger.*", "sd", "1e*"): "a standard deviation: any finite number >= 0",
    ("fairlib.repro.ledger.ClaimLog.measure", "note", "'no-such-choice'*"): "free text: the note",
    (
        "fairlib.repro.ledger.ClaimLog.measure",
        "cell",
        "'no-such-choice'*",
    ): "free text: a cell's key",
    (
        "fairlib.repro.catalog.Paper",
        "*",
        "'no-such-choice'*",
    ): "free text: one line (title, venue, notes, short)",
    (
        "fairlib.repro.catalog.Notebook",
        "*",
        "'no-such-choice'*",
    ): "a folder or file name, or free text: one line (key, path, title, paper, listed_as, "
    "headline); the catalogue checks the paper's key against PAPERS when it loads",
    (
        "fairlib.repro.plotting.label",
        "mechanism",
        "'no-such-choice'*",
    ): "a name no table or registry knows is its own label",
    ("fairlib.repro.plotting.new_figure", "title", "'no-such-choice'*"): "free text: the title",
    (
        "fairlib.repro.plotting.spread_band",
        "label_",
        "'no-such-choice'*",
    ): "free text: the legend's entry",
    (
        "fairlib.repro.plotting.caption_problems",
        "caption",
        "'no-such-choice'*",
    ): "free text: a caption",
    (
        "fairlib.repro.plotting.new_figure",
        "width",
        "2.5 (float)",
    ): "inches: any from 0.5 to MAX_INCHES (a width above MAX_WIDTH is capped)",
    (
        "fairlib.repro.plotting.spread_band",
        "interval",
        "2.5 (float)",
    ): "a percentage of the runs: any in (0, 100]",
    (
        "fairlib.repro.plotting.spread_band",
        "interval",
        "1e-300 (tiny)",
    ): "a percentage of the runs in (0, 100]: a tiny one draws the band as thin as the line",
    (
        "fairlib.repro.verify.*",
        "*tol",
        "1e*",
    ): "a tolerance: any finite number >= 0 (0: exact; a huge one lets any two numbers agree)",
    (
        "fairlib.repro.verify.compare_*",
        "committed",
        "'no-such-choice'*",
    ): "a cell's or a file's text: any text",
    ("fairlib.repro.verify.compare_*", "fresh", "'no-such-choice'*"): "a cell's or a file's text",
    (
        "fairlib.repro.verify.compare_text",
        "sep",
        "'no-such-choice'*",
    ): "a regular expression: any that does not match the empty string",
    (
        "fairlib.repro.verify.declared_tolerance",
        "*",
        "'no-such-choice'*",
    ): "an answer, not an error: nothing is declared for it (None)",
    (
        "fairlib.repro.verify.compare_table",
        "name",
        "'no-such-choice'*",
    ): "free text: the report's name",
    (
        "fairlib.repro.verify.verify_results",
        "key",
        "'no-such-choice'*",
    ): "a notebook key is any folder name (a new notebook's is not catalogued yet): nothing "
    "declared for it",
    (
        "fairlib.repro.verify.verify_results",
        "*_dir",
        "a missing directory",
    ): "an answer, not an error: a comparison of nothing, which is not a pass "
    "(tests/test_verify.py)",
    # the pipeline's prose, tables and scaffolds
    **{
        ("fairlib.repro.prose.*", arg, label): "prose writes any real number: NaN reads 'n/a', "
        "±inf '∞' and '−∞', a tiny or huge one a power of ten"
        for arg in ("value", "difference", "low", "high")
        for label in (
            "nan",
            "inf",
            "-inf",
            "-1.0 (negative)",
            "-1 (negative)",
            "2.5 (float)",
            "10**20 (huge)",
            "1e300 (huge)",
            "1e-300 (tiny)",
        )
    },
    **{
        (f"fairlib.repro.{f}", arg, "'no-such-choice'*"): "free text"
        for f, arg in (
            ("prose.span", "sep"),
            ("prose.*found", "text"),
            ("prose.found", "lead"),
            ("landing.render", "text"),
            ("tables.table", "caption"),
            ("executed.PublishedNotebook", "title"),
            ("scaffold.paper_from_options", "title"),
            ("scaffold.paper_from_options", "venue"),
            ("scaffold.paper_from_options", "notes"),
            ("scaffold.scaffold_paper", "citation"),
            ("scaffold.scaffold_mechanism", "label"),
        )
    },
    (
        "fairlib.repro.prose.*",
        "key",
        "'no-such-choice'*",
    ): "a notebook key is any folder name (a new paper's notebook has no registry, ledger or run "
    "yet): no headlines, no time",
    (
        "fairlib.repro.executed.PublishedNotebook",
        "*",
        "'no-such-choice'*",
    ): "a notebook key is any folder name, its source any path: publish_executed reads it",
    (
        "fairlib.repro.prose.*findings*",
        "chosen",
        "empty labels",
    ): "none chosen yet (a new paper's notebook): the ledger's first claims",
    (
        "fairlib.repro.prose.running_note",
        "seconds",
        "*(float)",
    ): "a wall time in seconds, any from 0 (under a minute reads 'about 1 min')",
    (
        "fairlib.repro.prose.running_note",
        "seconds",
        "1e-300 (tiny)",
    ): "a wall time in seconds, any from 0 (under a minute reads 'about 1 min')",
    **{
        ("fairlib.repro.tables.table", "width_px", label): "any width > 0: a narrow one splits "
        "the table into a frame per column, a huge one never reshapes it"
        for label in ("2.5 (float)", "10**20 (huge)", "1e300 (huge)", "1e-300 (tiny)")
    },
    ("fairlib.repro.landing.wall_seconds", "spans", "[] (empty)"): "no run: no wall time (0)",
    ("fairlib.repro.warm.warm", "only", "empty labels"): "no step: nothing to compile",
    (
        "fairlib.repro.tables.table",
        "decimals",
        "1 (int)",
    ): "one count for every numeric column",
    (
        "fairlib.repro.executed.publish_executed",
        "dest_dir",
        "a missing directory",
    ): "an output folder: the call makes it",
    (
        "fairlib.repro.landing.wall_seconds",
        "spans",
        "negative*entry",
    ): "a POSIX time of either sign (before 1970 is still a time)",
}


# --- valid examples -------------------------------------------------------------------------------


def _cluster():
    from fairlib.multires import Cluster

    return Cluster([[4.0, 4.0], [6.0, 2.0]], [[1.0, 2.0], [2.0, 1.0], [1.0, 1.0]])


def _game():
    from fairlib.market import Game

    return Game([[0.5, 0.5], [0.2, 0.8], [0.9, 0.1]], reserve=1e-6)


def _fleet():
    from fairlib.traces import Fleet

    return Fleet(
        np.array([[1.0, 1.0], [0.5, 0.5]]),
        ("cpu_normalised", "memory_normalised"),
        np.array(["A", "B"]),
        "synthetic",
        location=np.array([0, 1]),
    )


def _workload():
    from fairlib.traces import Workload

    return Workload(
        np.array([1, 2]),
        np.array([[0.5, 0.25], [0.2, 0.1]]),
        np.array([0.0, 5.0]),
        np.array([600.0, 900.0]),
        ("cpu_normalised", "memory_normalised"),
        "synthetic",
        scheduling_class=np.array([0, 2]),
    )


def _task_events():
    return pd.DataFrame(
        {
            "time": [0, 5_000_000, 9_000_000, 600_000_000],
            "missing_info": [pd.NA] * 4,
            "job_id": [1, 1, 2, 1],
            "task_index": [0, 1, 0, 0],
            "machine_id": [5, 5, 6, 5],
            "event_type": [0, 0, 0, 4],
            "user": ["u"] * 4,
            "scheduling_class": [0, 0, 1, 0],
            "priority": [9] * 4,
            "cpu_request": [0.1, 0.2, 0.3, 0.1],
            "memory_request": [0.1, 0.1, 0.2, 0.1],
            "disk_request": [0.0] * 4,
            "different_machines": [0] * 4,
        }
    )


def _vms():
    return pd.DataFrame(
        {
            "vm": [1, 1],
            "time": [0, 300],
            "active": [True, True],
            "cpu_usage_mhz": [100.0, 200.0],
            "memory_usage_kb": [1024.0, 2048.0],
            "disk_read_kbps": [0.0, 1.0],
            "disk_write_kbps": [0.0, 0.0],
            "net_rx_kbps": [1.0, 1.0],
            "net_tx_kbps": [0.0, 0.0],
        }
    )


def _machine_events():
    return pd.DataFrame(
        {
            "time": [0, 0],
            "machine_id": [1, 2],
            "event_type": [0, 0],
            "platform_id": ["a", "a"],
            "cpus": [0.5, 0.5],
            "memory": [0.5, 0.25],
        }
    )


def _jobs():
    from fairlib import sim

    return sim.jobs_from_workload(_workload())


def _dynamic_result():
    from fairlib.dynamic import dynamic_drf

    return dynamic_drf([[1.0, 0.5], [0.5, 1.0], [1.0, 1.0]])


def _tasks():
    from fairlib.multires import psdsf

    return psdsf(_cluster()).tasks


def _noop():
    return None


def _cell(seed, x):
    return {"y": x}


#: candidate valid values by parameter name (tried in order); a callable is called once per baseline
#: search
FACTORIES: dict[str, list] = {
    "cluster": [_cluster],
    "game": [_game],
    "fleet": [_fleet],
    "workload": [_workload],
    "jobs": [_jobs],
    "task_events": [_task_events],
    "vms": [_vms],
    "machine_events": [_machine_events],
    "result": [_dynamic_result],
    "tasks": [_tasks],
    "demands": [[[1.0, 4.0], [3.0, 1.0]], [[1.0, 0.5], [0.5, 1.0], [1.0, 1.0]]],
    "demand": [[[1.0, 4.0], [3.0, 1.0]], [1.0, 2.0]],
    "capacity": [[9.0, 18.0], [[4.0, 4.0], [6.0, 2.0]]],
    "weights": [[[0.5, 0.5], [0.2, 0.8], [0.9, 0.1]]],
    "bids": [[[0.5, 0.5], [0.2, 0.8], [0.9, 0.1]]],
    "w": [[0.5, 0.5]],
    "y": [[1.0, 2.0]],
    "x": [[0.5, 0.5]],
    "budget": [1.0],
    "k": [1],
    "others_bids": [[[0.5, 0.5], [0.2, 0.8]]],
    "alpha": [2.0],
    "alphas": [[2.0, 2.0]],
    "prices": [[[1.0, 1.0]] * 2],
    "server": [0],
    "resource": [0],
    "totals": [lambda: _tasks().sum(axis=1)],
    "servers": [[0, 1]],
    "q": [[1.0, 1.0, 1.0]],
    "bundle": [[2.0, 2.0]],
    "mechanism": [lambda: fairlib.multires.drfh],
    "mechanisms": [lambda: {"drfh": fairlib.multires.drfh}],
    "rng": [0],
    "seed": [0],
    "n_users": [3],
    "n_servers": [2],
    "n_machines": [3],
    "n_resources": [2],
    "n": [3],
    "m": [2],
    "size": [4],
    "n_runs": [1],
    "n_random": [2],
    "t": [10.0],
    "scheduling_class": [[0, 2]],
    "paths": [["a/x", "a/y", "b"]],
    "values": [[1.0, 2.0]],
    "previous_shares": [[0.25]],
    "keep": [lambda: np.array([True, False])],  # noqa: E501
    "column": ["utilisation_cpu_normalised", "y"],
    "width": [600.0],
    "node": ["a"],
    "directory": [None],
    "path": [lambda: _tmp() / "vm.csv"],
    "folder": [lambda: _tmp()],  # noqa: E501
    "fn": [lambda: _cell],
    "grid": [{"x": [1, 2]}],
    "params": [{"x": 1}],
    "rep": [0],
    "key": ["demo"],
    "name": ["drfh", "demo", "google"],
    "df": [pd.DataFrame({"a": [1]})],
    "fig": [lambda: __import__("matplotlib.pyplot").pyplot.figure()],
    "source": ["real", "drfh"],
    "value": [0.5],
    "committed": ["1.0"],
    "fresh": ["1.0"],
    "task_usage": [lambda: _task_usage()],
    "frame": [lambda: __import__("fairlib.traces").traces.read_vm(_write_vm())],
}


def _tmp() -> Path:
    return _STATE["tmp"]


def _write_vm():
    from fairlib.traces import BITBRAINS_HEADER

    path = _tmp() / "vm_in.csv"
    if not path.exists():
        path.write_text(
            ";\t".join(BITBRAINS_HEADER)
            + "\n1375308120;\t4;\t10400.0;\t100.0;\t1.0;\t16000.0;\t1000.0;\t0.0;"
            "\t0.0;\t1.0;\t0.0\n"
        )
    return path


def _task_usage():
    from fairlib.traces import TASK_USAGE_COLUMNS

    row = dict.fromkeys(TASK_USAGE_COLUMNS, 0.1)
    row.update(
        start_time=600_000_000,
        end_time=900_000_000,
        job_id=7,
        task_index=0,
        machine_id=5,
        aggregation_type=0,
    )
    return pd.DataFrame([row])


def _write_traces(root: Path) -> None:
    """Small synthetic traces in the real formats where the readers look (FAIRLIB_TRACE_DIR)."""
    import gzip

    from fairlib.traces import synthetic_bitbrains, synthetic_google, synthetic_task_usage

    google = synthetic_google(
        root / "google_clusterdata_2011_2",
        rng=0,
        hours=1.0,
        initial_jobs=5,
        jobs_per_hour=200.0,
        max_tasks=3,
        parts=5,
    )
    synthetic_task_usage(google, rng=0, source_directory=google, job_fraction=0.5)
    synthetic_bitbrains(root / "bitbrains_gwa_t12", n_vms=2, rng=0, days=0.01)
    folder = root / "alibaba_clusterdata"
    for rel, text in (
        ("cluster-trace-v2018/machine_meta.csv.gz", "m_1,0,219,17,96,100,USING\n"),
        (
            "cluster-trace-v2018/batch_task.csv.gz",
            "M1,10,j_1,1,Terminated,157297,157325,100,0.39\n",
        ),
        (
            "cluster-trace-v2017/batch_task.csv.gz",
            "6459,6524,3,4,15740,Terminated,50,0.007956928\n",
        ),
    ):
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        with gzip.open(folder / rel, "wt") as f:
            f.write(text)
    (google / "job_events").mkdir(exist_ok=True)
    for part in range(5):
        with gzip.open(google / "job_events" / f"part-{part:05d}-of-00500.csv.gz", "wt") as f:
            f.write(f"{600_000_000 + part},,{part + 1},0,user=,2,name=,lname=\n")


#: explicit valid calls for callables nothing else derives one for: name -> () -> (args, kwargs)
EXAMPLES = {
    "fairlib.multires.Cluster.refuse_caps": lambda: (("pdrf",), {}),
    "fairlib.multires.Quotas": lambda: ((), {"guarantee": [[1.0, 1.0], [1.0, 1.0], [1.0, 1.0]]}),
    "fairlib.sweep.sweep": lambda: (
        (_cell, {"x": [1, 2]}),
        {"backend": "serial", "progress": False},
    ),
    # a registry declaring one claim (an empty one is refused: a ledger checks at least one)
    "fairlib.repro.ledger.ClaimLog": lambda: (
        ("demo",),
        {"write": False, "registry": [dict(_REGISTRY_ENTRY)]},
    ),
    "fairlib.repro.outputs.save_table": lambda: (
        (pd.DataFrame({"a": [1]}), "demo", "t"),
        {"mode": "quick"},
    ),
    "fairlib.repro.outputs.save_figure": lambda: (
        (__import__("matplotlib.pyplot").pyplot.figure(), "demo", "f"),
        {"mode": "quick"},
    ),
    "fairlib.traces.write_vm": lambda: (
        (_tmp() / "out.csv", __import__("fairlib.traces").traces.read_vm(_write_vm())),
        {},
    ),
    "fairlib.traces.synthetic_google": lambda: (
        (_tmp() / "google",),
        {
            "rng": 0,
            "hours": 0.5,
            "initial_jobs": 3,
            "jobs_per_hour": 10.0,
            "max_tasks": 3,
            "parts": 1,
        },
    ),
    "fairlib.traces.synthetic_bitbrains": lambda: (
        (_tmp() / "bitbrains",),
        {"n_vms": 2, "rng": 0, "days": 0.01},
    ),
    "fairlib.multires.psmfa": lambda: ((_cluster(), 2.0), {"iterations": 50}),
    "fairlib.market.proportional_guarantee_bids": lambda: (([0.5, 0.25],), {}),
    "fairlib.multires.asset_share_per_task": lambda: (
        (fairlib.multires.Cluster([[9.0, 18.0]], [[1.0, 4.0], [3.0, 1.0]]),),
        {},
    ),
    "fairlib.traces.Fleet": lambda: (
        (np.array([[1.0, 1.0]]), ("cpu", "memory"), np.array(["A"]), "synthetic"),
        {},
    ),
    "fairlib.traces.Workload": lambda: (
        (
            np.array([1]),
            np.array([[0.5, 0.25]]),
            np.array([0.0]),
            np.array([60.0]),
            ("cpu", "memory"),
            "synthetic",
        ),
        {},
    ),
    "fairlib.sim.Jobs": lambda: (
        (),
        {
            f: getattr(_jobs(), f)
            for f in (
                "ids",
                "arrival",
                "trace_end",
                "offsets",
                "work",
                "shape",
                "resources",
                "source",
            )
        },
    ),
    "fairlib.traces.google_fleet": lambda: (
        (4, 1),
        {
            "configurations": __import__("fairlib.traces").traces.machine_configurations(
                _machine_events()
            )
        },
    ),
    "fairlib.traces.read_vm": lambda: ((_write_vm(),), {}),
    "fairlib.traces.synthetic_task_usage": lambda: (
        (_tmp() / "usage",),
        {"rng": 0, "parts": [0], "job_fraction": 0.5},
    ),
    # a task scheduled at the trace's first instant (600 s, the default origin) runs at the first
    # interval start whatever the window, so a valid window never meets "no task runs at any
    # interval start"
    "fairlib.traces.task_event_demands": lambda: (
        (
            _task_events().assign(
                time=[600_000_000, 600_000_000, 600_000_001, 1_200_000_000],
                event_type=[0, 1, 1, 4],
                task_index=[0, 0, 0, 0],
                job_id=[1, 1, 1, 1],
            ),
        ),
        {},
    ),
    "fairlib.timing.median_time": lambda: ((_noop,), {"repeat": 1, "min_time": 0.0}),
    "fairlib.paths.find_traces": lambda: (("google_clusterdata_2011_2",), {}),
    "fairlib.repro.catalog.get": lambda: (("li2019",), {}),
    "fairlib.repro.catalog.paper_of": lambda: ((fairlib.repro.catalog.get("li2019"),), {}),
    "fairlib.repro.catalog.source_path": lambda: ((fairlib.repro.catalog.get("li2019"),), {}),
    "fairlib.repro.catalog.paper_tests": lambda: ((fairlib.repro.catalog.get("li2019"),), {}),
    "fairlib.repro.catalog.library_modules": lambda: ((fairlib.repro.catalog.get("li2019"),), {}),
    "fairlib.repro.catalog.importing_tests": lambda: ((["fairlib/multires/edrf.py"],), {}),
    "fairlib.repro.catalog.changed_modules": lambda: ((), {}),
    "fairlib.mechanisms.register": lambda: (
        ("probe_mechanism", fairlib.multires.drfh),
        {"capabilities": ("multi_server",)},
    ),
    "fairlib.mechanisms.registered": lambda: (
        ("probe_mechanism", fairlib.multires.drfh),
        {"capabilities": ("multi_server",)},
    ),
    "fairlib.mechanisms.unregister": lambda: (("drfh",), {}),
    # with the equilibrium capability, so that the probes of tol reach its check rather than the
    # refusal of a tol without one
    "fairlib.games.register_game": lambda: (
        ("probe_game", fairlib.market.proportional_share),
        {"capabilities": ("budgets", "equilibrium"), "tol": 1e-8},
    ),
    "fairlib.games.registered": lambda: (
        ("probe_game", fairlib.market.proportional_share),
        {"capabilities": ("budgets",)},
    ),
    "fairlib.games.unregister_game": lambda: (("proportional_share",), {}),
    # the sorter's methods, on a fresh sorter with client "a" holding <1, 2> (STATEFUL)
    "fairlib.multires.DRFSorter.add": lambda: (("b",), {}),
    "fairlib.multires.DRFSorter.remove": lambda: (("a",), {}),
    "fairlib.multires.DRFSorter.activate": lambda: (("a",), {}),
    "fairlib.multires.DRFSorter.deactivate": lambda: (("a",), {}),
    "fairlib.multires.DRFSorter.update_weight": lambda: (("a", 2.0), {}),
    "fairlib.multires.DRFSorter.contains": lambda: (("a",), {}),
    "fairlib.multires.DRFSorter.set_capacity": lambda: (([10.0, 20.0],), {}),
    "fairlib.multires.DRFSorter.allocated": lambda: (("a", [1.0, 1.0]), {}),
    "fairlib.multires.DRFSorter.update": lambda: (("a", [1.0, 2.0], [2.0, 2.0]), {}),
    "fairlib.multires.DRFSorter.unallocated": lambda: (("a", [1.0, 1.0]), {}),
    "fairlib.multires.DRFSorter.allocation": lambda: (("a",), {}),
    "fairlib.multires.DRFSorter.allocation_count": lambda: (("a",), {}),
    "fairlib.multires.DRFSorter.share": lambda: (("a",), {}),
    "fairlib.multires.DRFSorter.dominant_resource": lambda: (("a",), {}),
    "fairlib.market.two_player_equilibria": lambda: ((0.5,), {}),
    "fairlib.market.two_player_equilibria_numeric": lambda: ((0.5,), {"grid": 5}),
    "fairlib.sim.jobs_from_demands": lambda: (
        (fairlib.traces.task_usage_demands(_task_usage()),),
        {},
    ),
    "fairlib.sim.replay": lambda: ((_fleet(), _jobs(), "drfh"), {}),
    "fairlib.sim.open_loop": lambda: ((_fleet(), _jobs()), {}),
    # the fleet has classes A and B: the default reserved classes (C, D) are no classes of it
    "fairlib.sim.class_eligibility": lambda: ((_fleet(), [0, 2]), {"reserved": ("B",)}),
    "fairlib.sim.snapshot_utilisation": lambda: (
        (_fleet(), _workload(), {"drfh": fairlib.multires.drfh}, 1, 0),
        {},
    ),
}


def _csv(name: str, text: str = "a,b\n1,2.5\n") -> Path:
    path = _tmp() / "tables" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(text)
    return path


def _claims_json(name: str) -> Path:
    import json

    path = _tmp() / name / "claims.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps({"claims": [{"claim_id": "a", "status": "held"}]}))
    return path


def _results_dir(name: str) -> Path:
    folder = _claims_json(name).parent
    (folder / "t.csv").write_text("a,b\n1,2.5\n")
    return folder


EXAMPLES.update(
    {
        "fairlib.multires.Quotas.resolve": lambda: (([[1.0, 1.0]] * 3, [9.0, 9.0]), {}),
        "fairlib.multires.HierarchicalDRFResult.node": lambda: (("",), {}),
        "fairlib.repro.verify.declared_tolerance": lambda: (("li2019", "t", "a"), {}),
        "fairlib.repro.verify.compare_table": lambda: ((_csv("c.csv"), _csv("f.csv")), {}),
        "fairlib.repro.verify.claim_changes": lambda: (
            ([{"claim_id": "a", "status": "held"}], [{"claim_id": "a", "status": "not held"}]),
            {},
        ),
        "fairlib.repro.verify.compare_claims": lambda: (
            (_claims_json("claims_c"), _claims_json("claims_f")),
            {},
        ),
        "fairlib.repro.verify.verify_results": lambda: (
            ("li2019", _results_dir("committed"), _results_dir("fresh")),
            {},
        ),
    }
)


def _checkout_copy(name: str, *, scaffolded: bool = False) -> Path:
    """A copy of this checkout's sources under the test's folder, for a scaffold to write into (a
    baseline never writes into the checkout itself); with ``scaffolded``, the demo paper
    ``doe2024`` scaffolded into it. Made afresh from a pristine copy on every call: a scaffold's
    call changes its checkout (the next call would find the paper it wrote), so each call of a
    target in :data:`FRESH_CHECKOUTS` gets the checkout as its baseline found it."""
    import shutil

    from fairlib.paths import ROOT

    folder = _tmp() / "checkouts"
    pristine = folder / ("pristine-scaffolded" if scaffolded else "pristine")
    if not pristine.is_dir():
        if scaffolded:
            from fairlib.repro import scaffold

            shutil.copytree(_checkout_copy("pristine-source"), pristine, symlinks=True)
            scaffold.scaffold_paper("doe2024", _scaffold_paper(), "demo_topic", root=pristine)
        else:
            skip = (".venv", "build", ".git", "__pycache__", ".hypothesis", ".pytest_cache")
            shutil.copytree(ROOT, pristine, symlinks=True, ignore=shutil.ignore_patterns(*skip))
    copy = folder / name
    if copy.is_dir():
        shutil.rmtree(copy)
    shutil.copytree(pristine, copy, symlinks=True)
    return copy


def _scaffold_paper():
    from fairlib.repro import scaffold

    return scaffold.paper_from_options(
        "Doe, Jane", "A demo", 2024, "article", "arXiv preprint", "https://arxiv.org/abs/2401.00001"
    )


def _executed_copy() -> Path:
    """A folder holding a copy of one published notebook (and its text view)."""
    import shutil

    from fairlib import paths

    folder = _tmp() / "executed"
    if not folder.is_dir():
        folder.mkdir(parents=True)
        for suffix in (".ipynb", ".md"):
            shutil.copy(paths.ROOT / "executed" / f"li2019{suffix}", folder)
    return folder


def _published() -> object:
    from fairlib.repro.catalog import NOTEBOOKS
    from fairlib.repro.executed import PublishedNotebook

    nb = NOTEBOOKS["li2019"]
    return PublishedNotebook("li2019", nb.title, nb.path)


def _notebook_node():
    import nbformat

    from fairlib import paths

    return nbformat.read(paths.ROOT / "executed" / "li2019.ipynb", as_version=4)


_PIPE = "fairlib.repro."

#: the scaffolds, each with the checkout copy its baseline writes into (:func:`_checkout_copy`):
#: every call gets it afresh
FRESH_CHECKOUTS = {
    _PIPE + "scaffold.scaffold_paper": ("paper", False),
    _PIPE + "scaffold.scaffold_mechanism": ("mechanism", False),
    _PIPE + "scaffold.scaffold_tolerance": ("tolerance", True),
    _PIPE + "scaffold.remove_paper": ("remove", True),
}

EXAMPLES.update(
    {
        # the command lines: a baseline that reads the checkout and never writes into it
        _PIPE + "landing.main": lambda: ((["--check"],), {}),  # --check: compare, never rewrite
        _PIPE + "warm.main": lambda: ((["--quiet"],), {}),  # compiles into the kernel cache only
        # no sub-command: the help, with the root a folder of the test's
        _PIPE + "scaffold.main": lambda: ((["--root", str(_tmp() / "scaffold-root")],), {}),
        _PIPE + "warm.warm": lambda: ((), {"progress": False, "only": ["tsf"]}),
        _PIPE + "tables.table": lambda: (
            (pd.DataFrame({"a": [1.25, 2.5], "b": ["x", "y"]}),),
            {"names": {"a": "A"}, "decimals": {"a": 1}, "caption": "c"},
        ),
        _PIPE + "scaffold.scaffold_paper": lambda: (
            ("doe2024", _scaffold_paper(), "demo_topic"),
            {"root": _checkout_copy("paper")},
        ),
        _PIPE + "scaffold.remove_paper": lambda: (
            ("doe2024",),
            {"root": _checkout_copy("remove", scaffolded=True)},
        ),
        _PIPE + "scaffold.scaffold_mechanism": lambda: (
            ("demo_share", "pooled"),
            {"root": _checkout_copy("mechanism")},
        ),
        _PIPE + "scaffold.scaffold_tolerance": lambda: (
            ("doe2024", 1e-6, 1e-9, "the solver's own tolerance"),
            {"root": _checkout_copy("tolerance", scaffolded=True)},
        ),
        _PIPE + "prose.show_findings": lambda: (("li2019", "full", []), {}),
        _PIPE + "prose.show_running_note": lambda: (("li2019", "full"), {}),
        _PIPE + "prose.show_found": lambda: (("All runs converge.",), {}),
        _PIPE + "prose.registry_headlines": lambda: (("li2019",), {}),
        _PIPE + "landing.wall_seconds": lambda: (([(0.0, 2.0), (1.0, 3.0)],), {}),
        _PIPE + "landing.render": lambda: (("no block here\n",), {}),
        _PIPE + "executed.publish_executed": lambda: (
            (_published(), _executed_copy() / "li2019.ipynb"),
            {"dest_dir": _tmp() / "published"},
        ),
        _PIPE + "executed.refresh_findings": lambda: (
            ("li2019",),
            {"executed_dir": _executed_copy()},
        ),
        _PIPE + "executed.executed_problems": lambda: (
            (_published(),),
            {"executed_dir": _executed_copy()},
        ),
        _PIPE + "executed.source_digest": lambda: ((_notebook_node(),), {}),
        _PIPE + "executed.claim_cells": lambda: ((_notebook_node(),), {}),
        _PIPE + "executed.PublishedNotebook": lambda: (
            ("li2019", "A title", "notebooks/x.ipynb"),
            {},
        ),
    }
)


def _axes():
    import matplotlib.pyplot as plt

    _, ax = plt.subplots()
    ax.plot([1, 2], [1, 2], label="drf")
    ax.legend()
    return ax


def _band_table():
    return pd.DataFrame({"x": [1, 1, 2, 2], "y": [1.0, 2.0, 3.0, 4.0]})


EXAMPLES.update(
    {
        **{
            f"fairlib.repro.plotting.{name}": lambda: (("drf",), {})
            for name in ("color", "marker", "linestyle", "label")
        },
        "fairlib.repro.plotting.spread_band": lambda: (
            (_axes(), _band_table(), "x", "y", "drf"),
            {},
        ),
        "fairlib.repro.plotting.legend_covers_data": lambda: ((_axes(),), {}),
        "fairlib.repro.plotting.place_legends": lambda: ((_axes().figure,), {}),
        "fairlib.repro.plotting.figure_marks": lambda: ((_axes().figure,), {}),
    }
)

#: a claims registry of one claim decided by a tolerance, as TOML text and as a list of tables
_REGISTRY_ENTRY = {
    "id": "c",
    "kind": "paper",
    "source": "§1",
    "statement": "the value is 1/2",
    "paper_value": 0.5,
    "tol": 0.1,
}
_REGISTRY_TOML = (
    '[[claim]]\nid = "c"\nkind = "paper"\nsource = "§1"\nstatement = "the value is 1/2"\n'
    "paper_value = 0.5\ntol = 0.1\n"
)


def _claim_log():
    from fairlib.repro.ledger import ClaimLog

    return ClaimLog("demo", write=False, registry=[dict(_REGISTRY_ENTRY)])


def _declared():
    from fairlib.repro.ledger import load_registry

    return load_registry([dict(_REGISTRY_ENTRY)])["c"]


EXAMPLES.update(
    {
        "fairlib.repro.ledger.load_registry": lambda: ((_REGISTRY_TOML,), {"key": "demo"}),
        "fairlib.repro.ledger.ClaimLog.measure": lambda: (("c", 0.5), {"note": "n"}),
        "fairlib.repro.ledger.ClaimLog.measure_all": lambda: (
            ({"c": fairlib.repro.ledger.Measurement(0.5)},),
            {},
        ),
        "fairlib.repro.ledger.Rule.holds": lambda: ((0.5,), {}),
        "fairlib.repro.ledger.Rule.undecided": lambda: ((0.5,), {}),
        "fairlib.repro.ledger.Rule.spread": lambda: ((0.5, None, None), {}),
        "fairlib.repro.catalog.Paper": lambda: (
            ((("Doe", "Jane"),), "A title", "article", "A journal", 2024, "https://example.org"),
            {},
        ),
        "fairlib.repro.catalog.Notebook": lambda: (
            ("demo", "notebooks/demo.ipynb", "A title"),
            {"tests": ("tests/test_demo.py",), "driver": "demo", "paper": "demo"},
        ),
    }
)

_DRIVERS = "fairlib.repro.experiments."
#: the drivers' valid calls: small and fast (a driver's default sizes are a notebook's)
EXAMPLES.update(
    {
        _DRIVERS + "precomputed_drf.random_single_pool": lambda: ((0, 4, 2), {}),
        _DRIVERS + "precomputed_drf.row_distance": lambda: (
            (dict.fromkeys(fairlib.repro.experiments.precomputed_drf.MATCH_FIELDS, 1.0),)
            + (dict.fromkeys(fairlib.repro.experiments.precomputed_drf.MATCH_FIELDS, 2.0),),
            {},
        ),
        _DRIVERS + "precomputed_drf.sd_bootstrap_interval": lambda: (
            ([1.0, 2.0, 3.0, 5.0],),
            {"n_paper": 10, "resamples": 20},
        ),
        _DRIVERS + "precomputed_drf.max_plausibility": lambda: (([3, 4, 5], 4), {}),
        _DRIVERS + "precomputed_drf.first_blocked_deviation_bound": lambda: (
            ([[1.0, 2.0], [2.0, 1.0]], [10.0, 10.0]),
            {},
        ),
        _DRIVERS + "heterogeneous_servers.relative_gap": lambda: (([1.0, 2.0], [1.0, 2.5]), {}),
        _DRIVERS + "heterogeneous_servers.random_bottleneck_cluster": lambda: ((0, 4, 2), {}),
        _DRIVERS + "google_open_loop.sample_ids": lambda: (([3, 1, 2, 3], 0.5, 0), {}),
        _DRIVERS + "google_open_loop.paper_setup_mechanisms": lambda: ((0.01,), {}),
        _DRIVERS + "google_open_loop.route_mechanisms": lambda: (([1.0, 2.0],), {}),
        _DRIVERS + "heterogeneous_servers.fig1_checks": lambda: (
            (fairlib.repro.experiments.heterogeneous_servers.fig1_instance(),),
            {},
        ),
        _DRIVERS + "heterogeneous_servers.with_random_caps": lambda: ((0, _cluster()), {}),
    }
)

#: the bidding_game driver's valid calls (small and fast)
_BIDDING = _DRIVERS + "bidding_game."


def _bidding_tables() -> dict:
    """Tiny runs of the bidding_game driver's sweeps, whose tables its findings read (made once)."""
    if "bidding" not in _STATE:
        from fairlib.market import two_player_equilibria
        from fairlib.repro.experiments import bidding_game as bg

        serial = {"backend": "serial"}
        families = {
            kind: pd.DataFrame([e for a in (0.6, 0.8) for e in two_player_equilibria(a, kind)])
            for kind in ("opposite", "equal")
        }
        _STATE["bidding"] = {
            "infinite": pd.concat(
                [
                    bg.infinite_parallelism_sweep(
                        [2, 3], 1, 0, preference=p, n_machines=2, **serial
                    )
                    for p in ("uniform", "correlated")
                ],
                ignore_index=True,
            ),
            "finite": pd.concat(
                [
                    bg.finite_parallelism_sweep([2], 1, 0, delta=d, n_machines=3, **serial)
                    for d in (5, 20)
                ],
                ignore_index=True,
            ),
            "trajectories": bg.finite_efficiency_trajectories(
                [(5, 2), (20, 2)], 1, 0, n_machines=20, iterations=6, **serial
            ),
            "over_time": bg.efficiency_over_time(2, 1, 0, n_machines=2, max_iter=3, **serial),
            "random_games": bg.random_two_player_games(1, 0, machines=(2,), grid=20, **serial),
            "exhaustive": bg.local_search_vs_exhaustive(
                1, 0, machines=(4,), k=(2,), others=(1,), **serial
            ),
            "guarantee": bg.proportional_guarantee_runs(1, 0, **serial),
            **families,
        }
    return {name: table.copy() for name, table in _STATE["bidding"].items()}


def _finite_game():
    from fairlib.market import Game, run_dynamics

    game = Game([[0.5, 0.5], [0.2, 0.8], [0.9, 0.1]], parallelism=1, reserve=1e-6)
    return game, run_dynamics(game, "best_response", record_bids=True).history


def _theorem3_construction():
    return pd.DataFrame(
        {
            "n": [1, 2],
            "efficiency": [1.0, 2 / 3],
            "bound_2_over_n_plus_1": [1.0, 2 / 3],
            "condition1_violation": [0.0, 1e-12],
        }
    )


EXAMPLES.update(
    {
        _BIDDING + "outcome_metrics": lambda: (
            ([[0.5, 0.5], [0.2, 0.8]], [[0.5, 0.5], [0.5, 0.5]], 1.3),
            {},
        ),
        _BIDDING + "median_by_users": lambda: (
            (pd.DataFrame({"users": [5, 5, 10], "efficiency": [0.9, 0.8, 0.7]}), "efficiency"),
            {},
        ),
        _BIDDING + "infinite_parallelism_sweep": lambda: (
            ([2], 1, 0),
            {"n_machines": 2, "backend": "serial"},
        ),
        _BIDDING + "local_search_swaps_per_call": lambda: (_finite_game(), {}),
        _BIDDING + "finite_parallelism_sweep": lambda: (
            ([2], 1, 0),
            {"delta": 1, "n_machines": 2, "backend": "serial"},
        ),
        _BIDDING + "finite_efficiency_trajectories": lambda: (
            ([(1, 2)], 1, 0),
            {"n_machines": 2, "iterations": 3, "backend": "serial"},
        ),
        _BIDDING + "efficiency_over_time": lambda: (
            (2, 1, 0),
            {"n_machines": 2, "max_iter": 3, "backend": "serial"},
        ),
        _BIDDING + "proportional_guarantee_runs": lambda: ((1, 0), {"backend": "serial"}),
        _BIDDING + "two_player_fixed_points": lambda: (
            (fairlib.market.Game([[0.6, 0.4], [0.3, 0.7]], reserve=1e-6),),
            {"grid": 20},
        ),
        _BIDDING + "random_two_player_games": lambda: (
            (1, 0),
            {"machines": (2,), "grid": 20, "backend": "serial"},
        ),
        _BIDDING + "local_search_vs_exhaustive": lambda: (
            (1, 0),
            {"machines": (4,), "k": (2,), "others": (1,), "backend": "serial"},
        ),
        _BIDDING + "local_search_conjecture_findings": lambda: (
            (_bidding_tables()["exhaustive"],),
            {},
        ),
        _BIDDING + "infinite_parallelism_findings": lambda: (
            (_bidding_tables()["infinite"],),
            {"mid_users": 2},
        ),
        _BIDDING + "efficiency_over_time_findings": lambda: (
            (_bidding_tables()["over_time"],),
            {},
        ),
        _BIDDING + "finite_parallelism_findings": lambda: (
            tuple(_bidding_tables()[t] for t in ("finite", "trajectories", "infinite")),
            {},
        ),
        _BIDDING + "finite_convergence": lambda: ((_bidding_tables()["finite"],), {}),
        _BIDDING + "two_player_findings": lambda: (
            (
                _bidding_tables()["opposite"],
                _bidding_tables()["equal"],
                [0.6],
                _bidding_tables()["random_games"],
            ),
            {},
        ),
        _BIDDING + "theorem3_findings": lambda: (
            (_theorem3_construction(), _bidding_tables()["guarantee"]),
            {},
        ),
    }
)
#: (end of the bidding_game driver's valid calls)


#: the dynamic_drf driver's valid calls (small and fast)
_DYNAMIC_POOL = [[1.0, 0.5], [0.5, 1.0], [1.0, 1.0]]
_DYNAMIC = _DRIVERS + "dynamic_drf."


def _order_runs():
    return pd.DataFrame(
        {
            "n": [2] * 4,
            "order": [0, 0, 1, 1],
            "mechanism": "dynamic_drf",
            "objective": "maxsum",
            "k": [1, 2, 1, 2],
            "ratio": [1.0, 0.9, 1.0, 0.95],
        }
    )


def _fixed_increment():
    return pd.DataFrame(
        {
            "scale": [10.0, 100.0],
            "k": [20, 20],
            "raises": [5, 50],
            "work": [10.0, 100.0],
            "alg1_work": [20.0, 20.0],
        }
    )


def _per_step():
    return pd.DataFrame(
        {
            "k": [3, 3],
            "method": ["linear", "waterfill"],
            "seconds": [1e-6, 2e-6],
            "work": [4.0, NAN],
        }
    )


EXAMPLES.update(
    {
        _DYNAMIC + "random_order_runs": lambda: (
            (_DYNAMIC_POOL, [2, 3], 1, 0),
            {"backend": "serial"},
        ),
        _DYNAMIC + "random_order_experiment": lambda: (
            (_DYNAMIC_POOL, [2], 1, 0),
            {"backend": "serial"},
        ),
        _DYNAMIC + "order_summary": lambda: ((_order_runs(),), {}),
        _DYNAMIC + "agreement_runs": lambda: ((1, 0), {"backend": "serial"}),
        _DYNAMIC + "strategyproofness_runs": lambda: (
            (1, 0),
            {"agents": 3, "resources": 2, "trials": 2, "backend": "serial"},
        ),
        _DYNAMIC + "per_step_times": lambda: (
            ([5],),
            {"rng": 0, "methods": ("linear", "lp", "waterfill"), "repeat": 1, "block": 2},
        ),
        _DYNAMIC + "total_times": lambda: (([20],), {"rng": 0}),
        _DYNAMIC + "instance_share_findings": lambda: (([2],), {"cr2_ms": [2]}),
        _DYNAMIC + "fixed_increment_work": lambda: (([10.0, 100.0],), {"k": 20, "rng": 0}),
        _DYNAMIC + "waterfill_baseline_findings": lambda: (
            (_fixed_increment(), _per_step()),
            {"ks": (3,)},
        ),
    }
)
#: (end of the dynamic_drf driver's valid calls)


#: the template driver's valid calls (small and fast)
EXAMPLES.update({})
#: (end of the template driver's valid calls)


#: the heterogeneous_servers driver's valid calls (small and fast)
def _hs():
    from fairlib.repro.experiments import heterogeneous_servers

    return heterogeneous_servers


#: a small cluster's sizes for the heterogeneous_servers sweeps
_HS_SMALL = {"n_users": 2, "n_servers": 2, "n_resources": 3}


def _hs_alpha_table():
    return _hs().alpha_sweep(1, 0, [1.0, 4.0, np.inf], **_HS_SMALL)


def _hs_theorem():
    return pd.DataFrame([_hs().theorem_checks(np.random.SeedSequence(0), 0, alphas=(1.0,))])


def _hs_rates_table():
    return _hs().equilibrium_rates(1, 0, [1.0], **_HS_SMALL)


def _hs_property_rates():
    mechanisms = sorted({m for m, _ in _hs().NEVER_VIOLATED} | {"pfvds_0.5"})
    return pd.DataFrame(0.0, index=mechanisms, columns=["SI", "EF", "PO", "BF"])


def _hs_property_tables():
    random_table = pd.DataFrame(
        {"mechanism": ["drfh", "tsf"], "SI": [0.0, 0.1], "EF": 0.0, "PO": [0.2, 0.0], "BF": 0.0}
    )
    return random_table, random_table.assign(BF=[0.0, 0.3])


def _hs_fig1_arguments():
    checks = _hs().fig1_checks(_hs().fig1_instance())
    utilisation = pd.DataFrame({"PS-DSF": [0.9, 0.8], "DRFH": [0.7, 0.8], "TSF": [0.6, 0.7]})
    fig3 = pd.DataFrame(
        {
            "instance": ["Fig. 1 instance"] * 2 + ["variant"] * 2,
            "alpha": [1.0, 4.0, 1.0, 4.0],
            "user": [3, 3, 3, 3],
            "server_2": [1.0, 1.0, 1.0, 2.0],
        }
    )
    return checks, {"PS-DSF": 0.0, "DRFH": 0.1, "TSF": 0.2}, utilisation, fig3


EXAMPLES.update(
    {
        _DRIVERS + "heterogeneous_servers.property_table": lambda: (
            (1, 0),
            {**_HS_SMALL, "mechanisms": {"drfh": fairlib.multires.drfh}},
        ),
        _DRIVERS + "heterogeneous_servers.alpha_sweep": lambda: (
            (1, 0, [1.0, np.inf]),
            _HS_SMALL,
        ),
        _DRIVERS + "heterogeneous_servers.proportional_fair_slsqp": lambda: ((_cluster(),), {}),
        _DRIVERS + "heterogeneous_servers.theorem_checks": lambda: (
            (np.random.SeedSequence(0), 0),
            {"alphas": (1.0,)},
        ),
        _DRIVERS + "heterogeneous_servers.definition4_route": lambda: ((1, 0, (4.0,)), _HS_SMALL),
        _DRIVERS + "heterogeneous_servers.capped_equilibrium_rates": lambda: (
            (1, 0, [1.0]),
            _HS_SMALL,
        ),
        _DRIVERS + "heterogeneous_servers.equilibrium_conditions": lambda: (
            (1, 0),
            {"alphas": (1.0,), "n_starts": 1, **_HS_SMALL},
        ),
        _DRIVERS + "heterogeneous_servers.one_server_reductions": lambda: (
            (1, 0),
            {"n_users": 2, "n_resources": 2},
        ),
        _DRIVERS + "heterogeneous_servers.one_server_fds": lambda: (
            (1, 0, (1.0,)),
            {"n_users": 2, "n_resources": 2},
        ),
        _DRIVERS + "heterogeneous_servers.convergence_findings": lambda: (
            (
                fairlib.multires.pfvds(_cluster(), 2.0),
                fairlib.multires.pfvds(_cluster(), 2.0, method="best_response"),
            ),
            {},
        ),
        _DRIVERS + "heterogeneous_servers.fig1_findings": lambda: (_hs_fig1_arguments(), {}),
        _DRIVERS + "heterogeneous_servers.property_rates": lambda: (
            _hs_property_tables(),
            {"tol": 1e-6},
        ),
        _DRIVERS + "heterogeneous_servers.property_findings": lambda: (
            (_hs_property_rates(),),
            {},
        ),
        _DRIVERS + "heterogeneous_servers.approach_per_instance": lambda: (
            (_hs_alpha_table(),),
            {},
        ),
        _DRIVERS + "heterogeneous_servers.alpha_means": lambda: ((_hs_alpha_table(),), {}),
        _DRIVERS + "heterogeneous_servers.theorem_findings": lambda: (
            (_hs_theorem(), _hs_alpha_table()),
            {},
        ),
        _DRIVERS + "heterogeneous_servers.solver_rates": lambda: ((_hs_rates_table(),), {}),
        _DRIVERS + "heterogeneous_servers.solver_findings": lambda: ((_hs_rates_table(),), {}),
        _DRIVERS + "heterogeneous_servers.route_findings": lambda: (
            (_hs().definition4_route(1, 0, (4.0,), **_HS_SMALL),),
            {},
        ),
        _DRIVERS + "heterogeneous_servers.condition_findings": lambda: (
            (_hs().equilibrium_conditions(1, 0, alphas=(1.0,), n_starts=1, **_HS_SMALL),),
            {},
        ),
        _DRIVERS + "heterogeneous_servers.capped_solver_findings": lambda: (
            (_hs().capped_equilibrium_rates(1, 0, [1.0], **_HS_SMALL),),
            {},
        ),
    }
)
#: (end of the heterogeneous_servers driver's valid calls)


#: the google_open_loop driver's valid calls (small and fast)
def _gol_table():
    return pd.DataFrame(
        {
            "mechanism": ["m", "m"],
            "start": [0.0, 100.0],
            "end": [100.0, 400.0],
            "active_jobs": [2, 4],
            "utilisation_cpu_normalised": [1.0, 0.2],
            "utilisation_memory_normalised": [0.5, 0.5],
            "reserved_utilisation_cpu_normalised": [0.0, 1.0],
            "reserved_utilisation_memory_normalised": [0.0, 0.0],
        }
    )


def _gol_reserved_fleet():
    """:func:`_fleet` with its second machine in class C (reserved for latency-sensitive jobs)."""
    from fairlib.traces import Fleet

    fleet = _fleet()
    return Fleet(fleet.capacity, fleet.resources, np.array(["A", "C"]), fleet.source)


def _gol_grid():
    return pd.DataFrame(
        {
            "fraction": [0.5] * 3,
            "rep": [0] * 3,
            "demand_model": ["lifetime"] * 3,
            "labels": ["frequency"] * 3,
            "mechanism": ["PS-DSF", "DRFH", "TSF"],
            "utilisation": [0.5, 0.4, 0.3],
            "utilisation_CD": [0.2, 0.1, 0.3],
            "cpu": [0.5, 0.4, 0.3],
            "ram": [0.5, 0.4, 0.3],
            "mean_active_jobs": [2.0] * 3,
            "jobs": [3] * 3,
        }
    )


EXAMPLES.update(
    {
        _DRIVERS + "google_open_loop.time_averaged": lambda: ((_gol_table(),), {}),
        _DRIVERS + "google_open_loop.typical_task": lambda: (
            (_task_events().assign(event_type=[1, 1, 1, 4]),),
            {},
        ),
        _DRIVERS + "google_open_loop.leads": lambda: ((_gol_grid(),), {}),
        _DRIVERS + "google_open_loop.sensitivity": lambda: (
            ({"lifetime": _jobs()}, {"frequency": _gol_reserved_fleet()}),
            {"fractions": [1.0], "seeds": 1, "n_jobs": 1, "reserved": ("C",)},
        ),
    }
)
#: (end of the google_open_loop driver's valid calls)


#: the heterogeneous_traces driver's valid calls (small and fast)
_HT_VARIANTS = ["PF-VDS(1)", "PF-VDS(4)", "PS-DSF"]


def _ht_utilisation():
    return pd.DataFrame(
        {"cpu": [0.9, 0.8, 0.7, 0.75, 0.74], "ram": [0.9, 0.8, 0.7, 0.6, 0.5]},
        index=[*_HT_VARIANTS, "DRFH", "TSF"],
    )


def _ht_replay_summary():
    return _ht_utilisation().assign(
        cpu_CD=[0.8, 0.8, 0.7, 0.9, 0.9],
        ram_CD=[0.8, 0.8, 0.9, 0.7, 0.7],
        deviation_mean=[0.2, 0.1, 0.0, 0.0, 0.0],
    )


def _ht_paper_summary():
    """time_averaged of the request-based reconstruction: PS-DSF, DRFH, TSF, DRFH Best-Fit, with
    the C/D placement ranges and the Definition-4 bounds."""
    summary = pd.DataFrame(
        [
            [0.86, 0.8, 0.92, 0.75, 0.7, 0.8, 0.8, 0.85],
            [0.93, 1.0, 0.86, 0.7, 0.9, 0.5, 0.98, 0.97],
            [0.92, 1.0, 0.84, 0.7, 0.9, 0.5, 0.96, 0.9],
            [0.90, 0.95, 0.85, 0.85, 0.9, 0.8, 0.9, 0.8],
        ],
        index=["PS-DSF", "DRFH", "TSF", "DRFH Best-Fit"],
        columns=[
            "utilisation",
            "cpu",
            "ram",
            "utilisation_CD",
            "cpu_CD",
            "ram_CD",
            "cpu_CD_high",
            "ram_CD_high",
        ],
    )
    return summary.assign(
        **{
            f"{measure}_definition4_{end}": value
            for measure in ("cpu", "ram", "cpu_CD", "ram_CD")
            for end, value in (("low", 0.3), ("high", 0.9))
        }
    )


def _ht_leads():
    return pd.DataFrame(
        {
            "demand_model": ["per-interval", "per-interval"],
            "labels": "proportionality",
            "fraction": [0.02, 0.05],
            "rep": [0, 0],
            "lead": [-0.07, 0.01],
        }
    )


def _ht_setup_arguments():
    from fairlib import sim
    from fairlib.traces import Fleet
    from fairlib.traces.workload import bitbrains_fleet

    google = Fleet(np.ones((4, 2)), ("cpu", "memory"), np.array(["A", "B", "C", "D"]), "real")
    classes = np.array([0, 2])
    return (
        bitbrains_fleet(locations=3),
        pd.DataFrame({"run": [0, 0, 1], "mechanism": "PS-DSF"}),
        google,
        sim.class_eligibility(google, classes),
        classes,
        0.021,
    )


EXAMPLES.update(
    {
        _DRIVERS + "heterogeneous_traces.bitbrains_findings": lambda: (
            (
                fairlib.multires.pfvds(_cluster(), 2.0),
                _ht_utilisation(),
                _HT_VARIANTS,
                ("cpu", "ram"),
            ),
            {},
        ),
        _DRIVERS + "heterogeneous_traces.replay_findings": lambda: (
            (
                _ht_replay_summary(),
                _HT_VARIANTS,
                [1, 4],
                pd.DataFrame(
                    {"mechanism": np.repeat(_HT_VARIANTS, 2), "delay": [10, 200, 50, 60, 1, 2]}
                ),
            ),
            {},
        ),
        _DRIVERS + "heterogeneous_traces.definition4_finding": lambda: ((_ht_paper_summary(),), {}),
        _DRIVERS + "heterogeneous_traces.route_finding": lambda: (
            (
                pd.DataFrame(
                    {"cpu": [1.0, 0.97, 0.95], "ram": [0.9, 0.8, 0.78]}, index=_HT_VARIANTS
                ),
                {"PF-VDS(1)": [True, True], "PF-VDS(4)": [True, False], "PS-DSF": [True]},
                _ht_paper_summary(),
            ),
            {},
        ),
        _DRIVERS + "heterogeneous_traces.paper_setup_findings": lambda: (
            (_ht_paper_summary(), 0.0123, _ht_leads()),
            {},
        ),
        _DRIVERS + "heterogeneous_traces.setup_findings": lambda: (_ht_setup_arguments(), {}),
    }
)
#: (end of the heterogeneous_traces driver's valid calls)


#: the precomputed_drf driver's valid calls (small and fast)
def _precomputed_drf():
    return importlib.import_module(_DRIVERS + "precomputed_drf")


def _pdrf_setup(**fields):
    """A DeviationExperiment of 5 users on 2 resources with small reserves: runs in milliseconds."""
    return _precomputed_drf().DeviationExperiment(
        n_users=5, n_resources=2, reserve_range=(20, 40), **fields
    )


def _pdrf_table(names, runs=4):
    """Table 1 or 2 as ``table_findings`` reads it: a row of statistics per demand range."""
    module = _precomputed_drf()
    return pd.DataFrame(
        [
            {
                "demands": name,
                "runs": runs,
                **{c: float(i) for i, c in enumerate(module.TABLE_COLUMNS)},
                **{f"{c}_sd": 0.5 for c in module.SUBCOUNT_SD},
            }
            for name in names
        ]
    )


def _pdrf_searches():
    """``parameter_search``'s tables scored against Table 2's two rows."""
    grid = pd.DataFrame(
        [
            (50_000, 100_000, 1, 100, 0.9),
            (50_000, 100_000, 1, 1000, 0.5),
            (1_000_000, 10_000_000, 1, 100, 0.05),
            (1_000_000, 10_000_000, 1, 1000, 0.08),
        ],
        columns=["reserve_low", "reserve_high", "demand_low", "demand_high", "distance"],
    )
    return {"1-1000": grid, "1-100": grid.iloc[::-1].reset_index(drop=True)}


def _pdrf_profile():
    """``over_allocation_profile``'s table for one row of each table, two rate bins each."""
    groups = [
        ("rate [1, 1.5)", 1.0, 200, 10, 1.2),
        ("rate [1.5, 2)", 1.5, 150, 15, 1.7),
        ("all ones", np.nan, 20, 10, 10.0),
        ("over-allocated", np.nan, 25, 25, 3.0),
        ("all", np.nan, 400, 25, 2.0),
    ]
    return pd.DataFrame(
        [
            {
                "table": table,
                "demands": demands,
                "group": group,
                "rate_low": low,
                "users": users,
                "over": over,
                "over_rate": over / users,
                "mean_rate": rate,
            }
            for table, demands in ((1, "1-10"), (2, "1-100"))
            for group, low, users, over, rate in groups
        ]
    )


_PDRF = _DRIVERS + "precomputed_drf."
_PDRF_POOL = ([[1.0, 2.0], [2.0, 1.0], [1.0, 1.0]], [20.0, 20.0])
EXAMPLES.update(
    {
        _PDRF + "table_row": lambda: (
            (pd.DataFrame(dict.fromkeys(_precomputed_drf().DEVIATION_FIELDS, [0, 1])),),
            {},
        ),
        _PDRF + "DeviationExperiment": lambda: ((), {"n_users": 5, "n_resources": 2}),
        _PDRF + "deviation_runs": lambda: (({"a": _pdrf_setup()}, 2, 0), {"backend": "serial"}),
        _PDRF + "run_deviation_experiment": lambda: ((_pdrf_setup(), 2, 0), {"backend": "serial"}),
        _PDRF + "over_allocation_profile": lambda: (
            ({"a": _pdrf_setup()}, 2, 0),
            {"backend": "serial"},
        ),
        _PDRF + "identity_runs": lambda: (
            (2, 0),
            {"n_users": 5, "keep_points": 1, "backend": "serial"},
        ),
        _PDRF + "pdrf_edrf_identity": lambda: (_PDRF_POOL, {}),
        _PDRF + "speed_sweep": lambda: (
            ([({"n": 3}, np.array(_PDRF_POOL[0]), np.array(_PDRF_POOL[1]))],),
            {"max_size": {"heapq_drf": 0, "argmin_drf": 0}, "repeat": 1},
        ),
        _PDRF + "scaled_instances": lambda: (
            (0,),
            {"n_users": [4], "reserve_scale": [0.5], "n_resources": 2},
        ),
        _PDRF + "parameter_search": lambda: (
            (
                dict.fromkeys(_precomputed_drf().MATCH_FIELDS, 1.0),
                [((20, 40), (1, 5))],
                2,
                0,
            ),
            {"n_users": 5, "backend": "serial"},
        ),
        _PDRF + "table_findings": lambda: (
            (_pdrf_table(["1-10", "1-20", "10-20"]), _pdrf_table(["1-100", "1-1000"])),
            {},
        ),
        _PDRF + "over_allocation_search_findings": lambda: (
            tuple(pd.DataFrame({"over_total": [0, k]}) for k in range(4)),
            {},
        ),
        _PDRF + "parameter_search_findings": lambda: ((_pdrf_searches(), 2), {}),
        _PDRF + "identity_findings": lambda: (
            (
                pd.DataFrame(
                    {
                        "other": [0, 1],
                        "simplified_off_floor_edrf": [3, 2],
                        "ds_max_off_floor_edrf": [1, 0],
                        "bound_violations": [0, 0],
                        "drf_minus_edrf_max": [0.5, 1.0],
                        "corrected_drf_minus_edrf_max": [1.5, 0.25],
                        "pdrf_over_allocates": [False, True],
                        "topup_equals_corrected_drf": [True, False],
                    }
                ),
            ),
            {},
        ),
        _PDRF + "drf_work_per_task_findings": lambda: (
            (
                pd.DataFrame(
                    {
                        "method": "drf",
                        "n": [1_000, 2_000, 4_000],
                        "tasks": [10_000, 20_000, 40_000],
                        "work": [5e4, 1.2e5, 2.6e5],
                    }
                ),
            ),
            {},
        ),
        _PDRF + "over_allocation_findings": lambda: (
            (_pdrf_profile(), pd.DataFrame({"resource_types": [2, 3], "over_avg": [1.0, 0.5]})),
            {},
        ),
        _PDRF + "table1_tail_findings": lambda: (
            (
                pd.DataFrame(
                    {"demands": "1-10", "over_total": [0, 1, 0, 2], "over_max": [0, 1, 0, 2]}
                ),
            ),
            {"resamples": 20},
        ),
        _PDRF + "variant_time_ratios": lambda: (_PDRF_POOL, {"repetitions": 2, "repeat": 1}),
        _PDRF + "variant_speed_findings": lambda: ((pd.DataFrame({"ratio": [1.1, 0.9, 1.2]}),), {}),
    }
)
#: (end of the precomputed_drf driver's valid calls)


#: the mechanism_atlas driver's valid calls (small and fast)
def _atlas():
    return importlib.import_module(_DRIVERS + "mechanism_atlas")


def _atlas_cell():
    """Google's cell of the task and machine events above at 10 s: two jobs on two machines."""
    return _atlas().Cell(
        "google",
        10.0,
        np.array([[0.5, 0.5], [0.5, 0.25]]),
        ("cpu", "memory"),
        np.array([[0.15, 0.1], [0.3, 0.2]]),
        np.array([2.0, 1.0]),
        None,
        "synthetic",
    )


def _atlas_runs():
    """Two runs of the atlas, a pooled one and a multi-server one."""
    runs = _atlas().mechanism_runs()
    return {name: runs[name] for name in ("drf", "drfh")}


def _atlas_tables():
    """Per-trace atlas tables of two instants, with every mechanism the claims compare."""

    def rows(trace, mechanism, util, served=1.0):
        return [
            {
                "trace": trace,
                "at_s": at,
                "mechanism": mechanism,
                "label": mechanism,
                "model": "pool",
                "status": "ran",
                "users": 10,
                "machines": 5,
                "classes": 2,
                "util_mean": u,
                "served_full": served,
                "jain": 0.9,
                "min_share": 0.1,
                "SI": 0.0,
                "EF": 0.0,
                "PO": 0.0,
                "BF": np.nan,
                "seconds": 0.1 * (1 + k),
                "source": "synthetic",
            }
            for k, (at, u) in enumerate(zip((1.0, 2.0), util))
        ]

    google = [
        ("psdsf", [0.90, 0.95]),
        ("drfh", [0.92, 0.94]),
        ("drf_machine_offers", [0.80, 0.90]),
        ("drfh_best_fit", [0.91, 0.93]),
        ("tsf", [0.92, 0.94]),
        ("edrf", [0.9, 0.9]),
    ]
    return {
        "google": pd.DataFrame([r for m, u in google for r in rows("google", m, u)]),
        "alibaba": pd.DataFrame(rows("alibaba", "drfh", [0.3, 0.3], served=0.5)),
        "bitbrains": pd.DataFrame(rows("bitbrains", "edrf", [0.5, 0.6])),
    }


def _atlas_alibaba():
    """The fixture's Alibaba tables (machine_meta of v2018, batch_task of v2017)."""
    from fairlib.traces import read_batch_task, read_machine_meta

    folder = Path(__file__).resolve().parent / "fixtures" / "traces" / "alibaba_clusterdata"
    return read_machine_meta(directory=folder), read_batch_task("2017", directory=folder)


_ATLAS = _DRIVERS + "mechanism_atlas."
EXAMPLES.update(
    {
        _ATLAS + "Cell": lambda: (
            (),
            {
                "trace": "google",
                "at_s": 10.0,
                "capacity": np.array([[0.5, 0.5], [0.5, 0.25]]),
                "resources": ("cpu", "memory"),
                "demand": np.array([[0.15, 0.1], [0.3, 0.2]]),
                "caps": np.array([2.0, 1.0]),
                "eligible": np.array([[True, False], [True, True]]),
                "source": "synthetic",
            },
        ),
        _ATLAS + "google_cells": lambda: (
            (_task_events(), _machine_events(), [10.0]),
            {"fraction": 1.0, "rng": 0, "source": "synthetic"},
        ),
        _ATLAS + "alibaba_cells": lambda: (
            (*_atlas_alibaba(), [8000.0]),
            {"fraction": 1.0, "rng": 0, "source": "synthetic"},
        ),
        _ATLAS + "bitbrains_cells": lambda: ((_vms(), [0.001], 0), {"reach": 1}),
        _ATLAS + "cell_rows": lambda: ((_atlas_cell(), _atlas_runs()), {"checks": True}),
        _ATLAS + "atlas_table": lambda: (([_atlas_cell()], _atlas_runs()), {"checks": False}),
        _ATLAS + "batches": lambda: (([_atlas_cell()] * 3,), {"size": 2}),
        _ATLAS + "concat_tables": lambda: (
            ([_atlas_tables()["google"], _atlas_tables()["alibaba"]],),
            {},
        ),
        _ATLAS + "strategyproofness_spot_checks": lambda: (
            ([_atlas_cell()], _atlas_runs()),
            {"n_users": 2, "n_checks": 1, "rng": 0},
        ),
        _ATLAS + "per_mechanism": lambda: ((_atlas_tables()["google"],), {}),
        _ATLAS + "run_labels": lambda: ((_atlas_runs(),), {}),
        _ATLAS + "distinct_instants": lambda: (([_atlas_cell(), _atlas_cell()],), {}),
        _ATLAS + "normalised_measures": lambda: ((_atlas_tables()["google"],), {}),
        _ATLAS + "findings": lambda: ((_atlas_tables(),), {}),
        _ATLAS + "figure": lambda: ((_atlas_tables(), {"drf": "DRF"}), {}),
        _ATLAS + "summary": lambda: (
            (_atlas_tables(), _atlas().findings(_atlas_tables())),
            {},
        ),
    }
)
#: (end of the mechanism_atlas driver's valid calls)


#: instances whose methods are probed, made before the baselines are searched (besides those the
#: baselines return)
INSTANCES = [
    lambda: fairlib.mechanisms.ByServer((1.0, 2.0)),
    lambda: fairlib.games.get("proportional_share"),
    _declared,
    lambda: _declared().rule,
    lambda: fairlib.multires.hierarchical_drf([[1.0, 2.0], [2.0, 1.0]], [9.0, 9.0], ["a", "b"]),
]

_STATE: dict = {}


# --- walking the API ------------------------------------------------------------------------------


@dataclass
class Target:
    """One public callable: its qualified name, the object, and (for a method) the type whose
    instances carry it."""

    name: str
    obj: object
    owner: type | None = None
    method: str = ""
    exempt: str = ""
    baseline: tuple | None = None
    problems: list = field(default_factory=list)
    #: for a method whose baseline comes from its doctest: the instance the doctest called it on
    #: (its arguments fit that instance, not necessarily another of the type)
    instance: object = None


def _public_names(module) -> list[str]:
    names = getattr(module, "__all__", None)
    if names is None:
        names = [
            k
            for k, v in vars(module).items()
            if not k.startswith("_") and getattr(v, "__module__", None) == module.__name__
        ]
    return list(names)


#: the reason every class marked by fairlib._validate.result_type is left out (its methods with
#: arguments are probed)
RESULT_TYPE = "a result or record type the library builds and returns (marked @result_type)"


def _exempt_reason(name: str, obj=None) -> str:
    return RESULT_TYPE if is_result_type(obj) else ""


def _takes_input(obj) -> bool:
    """Whether a public callable takes data the contract can probe. Left out by what they are, not
    by name: an exception class (raised by the library, built from its own message); an abstract
    class (never called: its methods are probed on an instance of a concrete subclass); a callable
    with no parameters (no input to refuse)."""
    if inspect.isclass(obj) and (issubclass(obj, BaseException) or inspect.isabstract(obj)):
        return False
    try:
        return bool(inspect.signature(obj).parameters)
    except (
        TypeError,
        ValueError,
    ):  # no signature to read: probed, and reported if no call can be derived
        return True


def public_targets() -> list[Target]:
    """Every public function and class (each object once, under its first public name) that takes
    input (:func:`_takes_input`), then the public methods with arguments of the public classes."""
    seen, out, classes = set(), [], []
    # the subpackages first: a name re-exported by fairlib is known by the module that defines it
    queue = [importlib.import_module(m) for m in MODULES] + [fairlib]
    done_modules = set()
    while queue:
        module = queue.pop(0)
        if module.__name__ in done_modules:
            continue
        done_modules.add(module.__name__)
        for attr in _public_names(module):
            obj = getattr(module, attr)
            name = f"{module.__name__}.{attr}"
            if inspect.ismodule(obj):
                queue.append(obj)
                continue
            if not callable(obj) or id(obj) in seen:
                continue
            seen.add(id(obj))
            if inspect.isclass(obj) and not issubclass(obj, BaseException):
                classes.append(Target(name, obj))
            if _takes_input(obj):
                out.append(Target(name, obj, exempt=_exempt_reason(name, obj)))
    methods = []
    for t in classes:
        for mname, member in vars(t.obj).items():
            if mname.startswith("_") or not inspect.isfunction(member):
                continue
            params = list(inspect.signature(member).parameters.values())[1:]
            if any(p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) for p in params):
                qual = f"{t.name}.{mname}"
                methods.append(
                    Target(qual, member, owner=t.obj, method=mname, exempt=_exempt_reason(qual))
                )
    return out + methods


TARGETS = public_targets()


# --- baselines ------------------------------------------------------------------------------------


class _Recorder:
    """Stands in for a callable while its doctests run: records the first call's arguments."""

    def __init__(self, fn):
        self.fn, self.calls = fn, []

    def __call__(self, *args, **kwargs):
        out = self.fn(*args, **kwargs)
        self.calls.append((args, kwargs))
        return out


def _doctest_method_call(target: Target):
    """A method's first call in its own doctest (``Model(...).method(...)``), recorded by standing
    in for the method on its class while the examples run; the instance it was called on becomes the
    target's."""
    cls, name = target.owner, target.method
    original = cls.__dict__.get(name)
    if not inspect.isfunction(original):  # inherited, a property, a static or class method
        return None
    examples = doctest.DocTestParser().get_examples(inspect.getdoc(original) or "")
    if not examples:
        return None
    calls = []

    def recorder(self, *args, **kwargs):
        out = original(self, *args, **kwargs)
        calls.append((self, args, kwargs))
        return out

    namespace = dict(vars(importlib.import_module(cls.__module__)))
    setattr(cls, name, recorder)
    try:
        for ex in examples:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    exec(compile(ex.source, "<doctest>", "exec"), namespace)
            except BaseException:  # noqa: BLE001 - an example expected to raise
                pass
            if calls:
                break
    finally:
        setattr(cls, name, original)
    if not calls:
        return None
    target.instance, args, kwargs = calls[0]
    return args, kwargs


def _doctest_call(target: Target):
    if target.owner is not None:
        return _doctest_method_call(target)
    examples = doctest.DocTestParser().get_examples(inspect.getdoc(target.obj) or "")
    if not examples:
        return None
    module = importlib.import_module(target.obj.__module__)
    short = target.name.rsplit(".", 1)[1]
    recorder = _Recorder(target.obj)
    namespace = dict(vars(module))
    namespace[short] = recorder
    namespace[target.obj.__name__] = recorder
    for ex in examples:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                exec(compile(ex.source, "<doctest>", "exec"), namespace)
        except BaseException:  # noqa: BLE001
            # an example expected to raise, or one needing earlier state
            pass
        if recorder.calls:
            return recorder.calls[0]
    return None


def _materialise(value):
    # by identity: ``in`` compares with ==, which a DataFrame answers element by element
    return (
        value()
        if callable(value)
        and getattr(value, "__name__", "") == "<lambda>"
        or any(
            value is make
            for make in (
                _cluster,
                _game,
                _fleet,
                _workload,
                _jobs,
                _task_events,
                _vms,
                _machine_events,
                _dynamic_result,
                _tasks,
            )
        )
        else value
    )


def _signature(target: Target):
    obj = target.obj
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    params = list(sig.parameters.values())
    return params[1:] if target.owner is not None else params


def _factory_call(target: Target):
    params = _signature(target)
    if params is None:
        return None
    required = [
        p
        for p in params
        if p.default is p.empty
        and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY, p.POSITIONAL_ONLY)
    ]
    if any(p.name not in FACTORIES for p in required):
        return None
    import itertools

    options = [FACTORIES[p.name] for p in required]
    for combo in itertools.islice(itertools.product(*options), 24):
        args, kwargs = [], {}
        try:
            values = [_materialise(v) for v in combo]
        except Exception:  # noqa: BLE001 - a factory that does not fit here
            continue
        for p, v in zip(required, values):
            if p.kind == p.KEYWORD_ONLY:
                kwargs[p.name] = v
            else:
                args.append(v)
        if _succeeds(target, tuple(args), kwargs):
            return tuple(args), kwargs
    return None


def _instance_of(cls):
    """An instance of a public class, from its baseline constructor or from any baseline that
    returns one; for an abstract class, an instance of a concrete subclass."""
    if cls in _STATE["instances"]:
        return _STATE["instances"][cls]
    found = next((v for k, v in _STATE["instances"].items() if issubclass(k, cls)), None)
    if found is None:
        raise LookupError(cls)
    return found


def _sorter():
    from fairlib.multires import DRFSorter

    sorter = DRFSorter([10.0, 20.0])
    sorter.add("a")
    sorter.allocated("a", [1.0, 2.0])
    return sorter


#: stateful classes, by qualified name: each call of one of their methods (a baseline or a probe)
#: gets a fresh instance from the factory, so a probe's refused (or wrongly accepted) call cannot
#: change the next one's state
STATEFUL = {"fairlib.multires.DRFSorter": _sorter, "fairlib.repro.ledger.ClaimLog": _claim_log}

#: callables that change the process-wide registries: each call's changes are undone after it
REGISTRY_MUTATORS = (
    "fairlib.mechanisms.register",
    "fairlib.mechanisms.unregister",
    "fairlib.mechanisms.registered",
    "fairlib.games.register_game",
    "fairlib.games.unregister_game",
    "fairlib.games.registered",
)


def _registries() -> list[dict]:
    from fairlib import games, mechanisms

    return [mechanisms._REGISTRY, games._REGISTRY]


def _invoke(target: Target, args, kwargs):
    fn = target.obj
    if target.owner is not None:
        owner = f"{target.name.rsplit('.', 1)[0]}"
        if owner in STATEFUL:
            instance = STATEFUL[owner]()
        elif target.instance is not None:
            instance = target.instance
        else:
            instance = _instance_of(target.owner)
        fn = getattr(instance, target.method)
    kept = [dict(r) for r in _registries()] if target.name in REGISTRY_MUTATORS else None
    if target.name in FRESH_CHECKOUTS:
        name, scaffolded = FRESH_CHECKOUTS[target.name]
        _checkout_copy(name, scaffolded=scaffolded)
    try:
        out = fn(*args, **kwargs)
        if inspect.isgenerator(out):
            out = list(out)
        elif target.name in REGISTRY_MUTATORS and hasattr(out, "__enter__"):
            with out:  # a context manager registers on entry
                pass
        return out
    finally:
        if kept is not None:
            for registry, before in zip(_registries(), kept):
                registry.clear()
                registry.update(before)


def _succeeds(target, args, kwargs) -> bool:
    try:
        with warnings.catch_warnings():  # no time limit: a hang is the probing process's guard
            warnings.simplefilter("ignore")
            out = _invoke(target, args, kwargs)
    except Exception:  # noqa: BLE001 - not a valid call
        return False
    except (SystemExit, KeyboardInterrupt) as exc:
        # a command line's exit (argparse reading the probing process's own sys.argv): not a valid
        # call, and never the end of the probing process
        target.problems.append(f"the call raised {type(exc).__name__}({exc})")
        return False
    _remember(out)
    return True


def _remember(out):
    for value in (out,) + (tuple(out) if isinstance(out, tuple) else ()):
        if type(value).__module__.startswith("fairlib"):
            _STATE["instances"].setdefault(type(value), value)


class _Timeout(BaseException):
    """The hang guard's alarm: a BaseException, as KeyboardInterrupt is, so that no ``except
    Exception`` of the code it interrupts (a sweep that records a failed cell and raises its own
    SweepError) turns a slow call into an error of that call."""


class _deadline:
    """A guard against a hang (SIGALRM), not a timing assertion: a probe still running after it is
    reported."""

    def __init__(self, seconds):
        self.seconds, self.fired = seconds, False

    def __enter__(self):
        def on_alarm(signum, frame):
            self.fired = True
            raise _Timeout(f"still running after {self.seconds} s")

        self.previous = signal.signal(signal.SIGALRM, on_alarm)
        signal.alarm(self.seconds)

    def __exit__(self, *exc):
        signal.alarm(0)
        signal.signal(signal.SIGALRM, self.previous)
        return False


#: seconds before a probe call is reported as running on with a bad value. A callable that validates
#: refuses up front (in milliseconds), so for one that meets the contract the limit only catches a
#: hang and is far above any machine's time; a known gap's probes may compute on with nonsense, and
#: are cut sooner to keep the run short (their outcome is an expected failure either way).
PROBE_SECONDS = 600
#: the same limit while a validation site is a pass-through (the mutation tests): the intact call
#: refuses the value in milliseconds, so a mutant still running after this long is doing the work
#: the removed check (often a cap) exists to prevent — the removal is seen, and the run stays short
MUTANT_PROBE_SECONDS = 20
#: seconds one site's mutant may keep the (warm) probing process: SIGALRM cannot cut compiled code,
#: so a removed cap's loop in a kernel runs on until this guard stops the process, and the site
#: counts as seen (its probes hang). A site's probes refuse in milliseconds when intact; even
#: a dozen probes cut at MUTANT_PROBE_SECONDS stay well inside it.
MUTANT_SITE_GUARD = 300
#: the limit in force (the mutation tests lower it to MUTANT_PROBE_SECONDS)
_CALL_SECONDS = [PROBE_SECONDS]


def _guarded_invoke(target, args, kwargs):
    """One probe call: warnings silenced, numpy's floating-point errors ignored, a hang cut
    (SIGALRM; compiled code is cut by the probing process's guard instead)."""
    with warnings.catch_warnings(), _deadline(_CALL_SECONDS[0]), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return _invoke(target, tuple(args), kwargs)


#: further valid calls a target is probed at, beyond its baseline: a check that only another path
#: reaches (an option one method reads, a branch one mode takes) is probed there, so removing it
#: fails the contract instead of being listed in UNSEEN_SITES. name -> [() -> (args, kwargs)]
OTHER_BASELINES = {
    # step and gap_tol are local greedy's: best response (the baseline) refuses them unread
    "fairlib.market.run_dynamics": [
        lambda: ((_game(), "local_greedy"), {"step": 0.05, "gap_tol": 0.05}),
    ],
    # the segments' own times are optional: checked only when given
    "fairlib.sim.Jobs": [lambda: _jobs_with_segment_times()],
    # a table's declared tolerances are none by default: their keys and values are probed when
    # given
    "fairlib.repro.verify.compare_table": [
        lambda: (
            (_csv("c.csv"), _csv("f.csv")),
            {"tolerances": {"b": _verify().Tolerance(1e-9, 0.0, "rounding")}},
        )
    ],
    # a notebook's tests and mechanisms are empty by default: their labels are probed when given
    "fairlib.repro.catalog.Notebook": [
        lambda: (
            ("demo", "notebooks/demo.ipynb", "A title"),
            {"tests": ("tests/test_demo.py",), "mechanisms": ("drf", "edrf")},
        )
    ],
}


def _verify():
    import fairlib.repro.verify as verify

    return verify


def _jobs_with_segment_times():
    import dataclasses

    jobs = _jobs()
    fields = {f.name: getattr(jobs, f.name) for f in dataclasses.fields(jobs) if f.init}
    start = np.repeat(np.asarray(jobs.arrival, float), np.diff(jobs.offsets))
    fields.update(segment_start=start, segment_end=start + 60.0)
    return (), fields


def _other_baselines(target: Target) -> list[tuple[tuple, dict]]:
    """The valid calls of :data:`OTHER_BASELINES` for ``target``; a failing one is a problem."""
    out = []
    for k, make in enumerate(OTHER_BASELINES.get(target.name, [])):
        args, kwargs = make()
        if not _succeeds(target, tuple(args), dict(kwargs)):
            raise AssertionError(f"OTHER_BASELINES[{target.name!r}][{k}] is not a valid call")
        out.append((tuple(args), dict(kwargs)))
    return out


def baseline(target: Target):
    """(args, kwargs) of a valid call of ``target``, or None."""
    if target.name in EXAMPLES:
        try:
            args, kwargs = EXAMPLES[target.name]()
        except Exception as exc:  # noqa: BLE001 - reported as a missing baseline
            target.problems.append(f"EXAMPLES entry failed: {type(exc).__name__}: {exc}")
            return None
        return (tuple(args), dict(kwargs)) if _succeeds(target, tuple(args), kwargs) else None
    found = _doctest_call(target)
    if found is not None and _succeeds(target, tuple(found[0]), dict(found[1])):
        return tuple(found[0]), dict(found[1])
    target.instance = None  # the factories' arguments fit the type's shared instance
    return _factory_call(target)


def _find_baselines(tmp: Path) -> dict:
    """Every target's baseline (classes first, so their instances exist for their methods), with the
    files and folders the calls write redirected under ``tmp``; changes this process's
    environment."""
    import os

    os.environ.update(
        FAIRLIB_BUILD_DIR=str(tmp / "build"),
        FAIRLIB_OUTPUT_DIR=str(tmp / "out"),
        FAIRLIB_TRACE_DIR=str(tmp / "traces"),
    )
    _STATE.update(tmp=tmp, instances={})
    for make in (_dynamic_result, _cluster, _game, _fleet, _workload, _jobs, *INSTANCES):
        _remember(make())
    _write_traces(tmp / "traces")
    return {
        t.name: baseline(t)
        for t in sorted(TARGETS, key=lambda t: t.owner is not None)
        if not t.exempt
    }


# --- the probing process --------------------------------------------------------------------------
# A probe feeds nonsense to callables that may not check it (the known gaps): an unchecked array can
# reach a compiled kernel and read out of bounds, and an unchecked size can allocate without limit.
# Neither a segmentation fault nor the kernel's out-of-memory killer can be caught in the process
# that suffers it, and SIGALRM cannot stop compiled code. So the probes run in one child process
# (spawned, not forked: numba's threads do not survive a fork), with its address space capped; if it
# dies or hangs, the target in hand fails with the reason and a new child takes over.

_PROBE_MEMORY = (
    8 << 30
)  # bytes of address space for the probing process: ample for every valid call
_BASELINE_GUARD = (
    1800  # seconds: hang guards (not timing assertions), far above a loaded machine's time
)
_PROBE_GUARD = 900


_CHILD: dict = {}


def _serve(conn, tmp: str) -> None:
    """The probing process: answers each ``(function, args)`` it is sent with ``function(*args)``
    until the pipe closes."""
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (_PROBE_MEMORY, _PROBE_MEMORY))
    _CHILD["tmp"] = Path(tmp)
    # the probes run in an empty working directory of their own, never the checkout: a call that
    # writes to a relative path shows there (:func:`_left_in_working_directory`) instead of changing
    # the repository
    import os
    import sys

    sys.path[:] = [os.path.abspath(entry) for entry in sys.path]
    _CHILD["cwd"] = Path(tmp) / "cwd"
    _CHILD["cwd"].mkdir(parents=True, exist_ok=True)
    os.chdir(_CHILD["cwd"])
    while True:
        try:
            fn, args = conn.recv()
        except EOFError:
            return
        conn.send(fn(*args))


def _left_in_working_directory() -> list[str]:
    """What the calls since the last look left in the probing process's working directory (removed,
    so the next target is not blamed for it): every file a call writes belongs under the test's
    folder, by absolute path."""
    import shutil

    left = sorted(entry.name for entry in _CHILD["cwd"].iterdir())
    for name in left:
        entry = _CHILD["cwd"] / name
        shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()
    return left


def _child_baselines() -> dict:
    if "baselines" not in _CHILD:
        _CHILD["baselines"] = _find_baselines(_CHILD["tmp"])
        _CHILD["left_by_baselines"] = _left_in_working_directory()
    return _CHILD["baselines"]


def _missing_in_child() -> dict:
    """The targets with no baseline, each with what was tried (a known gap's missing baseline is
    part of its gap)."""
    found = _child_baselines()
    return {t.name: t.problems for t in TARGETS if t.name in found and found[t.name] is None}


def _left_by_baselines_in_child() -> list[str]:
    """What the baseline calls left in the working directory."""
    _child_baselines()
    return _CHILD["left_by_baselines"]


def _probe_in_child(name: str):
    """:func:`probe` of the target ``name`` on its baseline, and what its calls left in the working
    directory; None when it has no baseline."""
    base = _child_baselines().get(name)
    if base is None:
        return None
    target = next(t for t in TARGETS if t.name == name)
    problems = probe(target, base)
    for k, other in enumerate(_other_baselines(target)):
        problems += [f"(at OTHER_BASELINES[{k}]) {problem}" for problem in probe(target, other)]
    left = _left_in_working_directory()
    if left:
        problems.append(
            f"{name}: its probes wrote {left} into the working directory (a relative path): "
            "a probe's path must be "
            "absolute, under the test's folder, and a bad value refused before anything is written"
        )
    return problems


class _ProbeLost(Exception):
    pass


class _Prober:
    """The parent's end of the probing process, started on first use and again after one is lost."""

    def __init__(self, tmp: Path):
        self.tmp, self.proc, self.started = tmp, None, 0
        #: whether the running process has answered a call (its baselines are then built)
        self.warm = False

    def _start(self) -> None:
        import multiprocessing

        ctx = multiprocessing.get_context("spawn")
        self.started += 1
        self.warm = False
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(
            target=_serve,
            args=(child, str(self.tmp / f"child{self.started}")),
            name="contract-probes",
        )
        self.proc.start()
        child.close()

    def call(self, fn, *args, guard: float = _PROBE_GUARD):
        """``fn(*args)`` in the probing process. Raises :class:`_ProbeLost` if the process dies, or
        is still at it after ``guard`` seconds (it is then stopped); the next call starts
        another."""
        if self.proc is None:
            self._start()
        doing = f"running {getattr(fn, '__name__', fn)}{args!r}"
        try:
            self.conn.send((fn, args))
            answered = self.conn.poll(guard)
        except OSError:  # the process ended before it could read the call
            answered = True
        if answered:
            try:
                answer = self.conn.recv()
                self.warm = True
                return answer
            except (EOFError, OSError):
                self.proc.join(10)
                code = self.proc.exitcode
                self.close()
                raise _ProbeLost(
                    f"the probing process died {doing} (exit code {code}; a negative code is "
                    "the signal "
                    "that ended it: -11 a segmentation fault, -9 killed)"
                ) from None
        self.close()
        raise _ProbeLost(f"the probing process was still {doing} after {guard} s and was stopped")

    def close(self) -> None:
        if self.proc is not None:
            self.conn.close()
            self.proc.join(10)
            if self.proc.is_alive():
                self.proc.kill()
                self.proc.join()
            self.proc = None


@pytest.fixture(scope="module")
def prober(tmp_path_factory):
    p = _Prober(tmp_path_factory.mktemp("contract"))
    yield p
    p.close()


def test_every_public_callable_has_a_valid_baseline(prober):
    missing = [
        name + "".join(f" [{p}]" for p in problems)
        for name, problems in prober.call(_missing_in_child, guard=_BASELINE_GUARD).items()
    ]
    assert not missing, (
        "no valid example call could be derived for: "
        + ", ".join(missing)
        + ".\nAdd a doctest example that calls it to its docstring, a valid value per required "
        "argument name to FACTORIES, or an entry to EXAMPLES in tests/test_api_contract.py."
    )


def test_the_baselines_leave_the_working_directory_unchanged(prober):
    """The valid calls write under the test's folder only (each target's probes are checked the same
    way, in :func:`test_contract`): a run of the contract never changes the directory it is started
    in."""
    left = prober.call(_left_by_baselines_in_child, guard=_BASELINE_GUARD)
    assert not left, f"the baseline calls wrote {left} into the working directory (a relative path)"


def test_a_probe_that_ends_its_process_fails_alone(tmp_path):
    """A crash or a hang in the probing process fails the call in hand; the next call gets a new
    process."""
    import os
    import time

    p = _Prober(tmp_path)
    try:
        first = p.call(os.getpid)
        with pytest.raises(_ProbeLost, match="exit code -6"):
            p.call(os.abort)
        with pytest.raises(_ProbeLost, match="still running sleep"):
            p.call(time.sleep, 60, guard=2)
        assert p.call(os.getpid) not in (first, None) and p.started == 3
    finally:
        p.close()


def _command_line(argv=None):
    """A command line that checks nothing itself: argparse's own refusals only."""
    import argparse

    parser = argparse.ArgumentParser(prog="demo")
    parser.add_argument("--check", action="store_true")
    parser.parse_args(argv)
    return 0


def _exits(x=1.0):
    raise SystemExit(0)


def test_an_exit_fails_its_target_and_the_probing_goes_on():
    """A ``SystemExit`` from a probed call is judged, not let through: argparse's exit naming the
    unknown option is a refusal; its exit for a str read letter by letter names nothing (the usage
    line's ``--check`` does not count), a non-str element is a raw TypeError, and an exit with
    status 0 on a bad value is a failure."""
    problems = probe(Target("demo.main", _command_line), ((["--check"],), {}))
    assert len(problems) == 2, problems
    assert "a str (a list is meant)) raised SystemExit(2) without naming" in problems[0]
    assert "non-str element) raised TypeError" in problems[1]
    problems = probe(Target("demo.exits", _exits), ((1.0,), {}))
    assert problems and all("raised SystemExit(0)" in p for p in problems), problems


# Mutation evidence: with one validator of a passing target made a pass-through (it returns its
# argument unchecked), the contract must fail that target. (target, module whose name the target
# calls, validator's name there)
MUTATIONS = [
    ("fairlib.metrics.efficiency", "fairlib.metrics", "as_number"),
    ("fairlib.sim.jobs_from_workload", "fairlib.sim", "as_instance"),
    ("fairlib.market.sqrt_m_construction", "fairlib.market.equilibrium", "as_count"),
]


def _probe_mutated_in_child(name: str, module: str, validator: str):
    """:func:`_probe_in_child` with ``module.validator`` replaced by a pass-through for the one
    probe."""
    mod = importlib.import_module(module)
    kept = getattr(mod, validator)
    setattr(mod, validator, lambda value, *args, **kwargs: value)
    try:
        return _probe_in_child(name)
    finally:
        setattr(mod, validator, kept)


@pytest.mark.parametrize("name,module,validator", MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_the_contract_fails_a_target_whose_validation_is_removed(prober, name, module, validator):
    assert prober.call(_probe_in_child, name, guard=_BASELINE_GUARD) == [], (
        f"{name} must meet the contract before its mutation can show anything"
    )
    mutated = prober.call(_probe_mutated_in_child, name, module, validator, guard=_PROBE_GUARD)
    assert mutated, (
        f"{name} still meets the contract with {module}.{validator} removed: the test cannot see it"
    )


# Mutation evidence, site by site: every call of a fairlib._validate helper in fairlib/ (found with
# ast), made a pass-through (the call replaced by its first argument, in that one function's code),
# must make the contract fail the callable it guards — the public callable whose own body holds
# the call, or one in the same module that calls the function holding it. All sites take about 15
# minutes of probes, beyond make test's budget (2 minutes of CPU), so the sites are dealt into
# MUTATION_WINDOWS windows and a run probes one: window 0, or FAIRLIB_MUTATION_WINDOW when set (an
# audit runs every window in turn; a failure names the window to rerun). A site's window is a hash
# of where it is (module, function, helper, and which call of that helper in the function), not of
# its line or of the other sites: a site added, removed or moved elsewhere — a new paper's driver,
# say — moves no other site between windows, so make test stays put. Set MUTATION_WINDOWS = None
# to run them all.

#: how many windows the sites are dealt into (about 14 sites each); a constant, so that no site's
#: window depends on how many others there are (None: one window of every site)
MUTATION_WINDOWS: int | None = 64


class Unseen(NamedTuple):
    """A site whose pass-through the battery cannot see: why, and the tests that see it (pytest node
    ids or files). Both are checked: the contract must miss the mutant (else the entry is stale) and
    one of ``killers``, run on the mutant (:func:`killed_by`), must fail."""

    why: str
    killers: tuple[str, ...]


def site_case(case: str) -> str:
    """The node id of ``tests/test_validation_sites.py``'s refusal ``case``."""
    return f"tests/test_validation_sites.py::test_the_site_refuses_by_name[{case}]"


#: sites whose pass-through the contract cannot see, each with the reason and the tests that fail
#: with it (:class:`Unseen`): (module, function, helper) -> Unseen for every call of that helper in
#: the function, or (module, function, helper, k) for its k-th call alone (:func:`site_keys`).
#: Strict: a listed site the contract catches fails until it is removed, and one whose tests pass
#: on the mutant fails.
UNSEEN_SITES = {
    **{
        (module, function, "check_no_complex"): Unseen(
            "no probe gives a table a complex column (the battery's tables hold real numbers and "
            "text); tests/test_report.py refuses one, of complex dtype and in an object column",
            (
                "tests/test_report.py::"
                "test_a_table_with_complex_numbers_or_a_blank_column_is_neither_written_nor_shown",
            ),
        )
        for module, function in (
            ("fairlib.repro.tables", "table"),
            ("fairlib.repro.outputs", "reported"),
        )
    },
    ("fairlib.multires.pfvds.conditions", "saturated_resources", "as_instance"): Unseen(
        "least_merit and server_multipliers, its probed callers, check cluster by the same name "
        "before they call it; tests/test_validation_sites.py refuses a non-Cluster given it "
        "directly",
        (site_case("multires.pfvds.conditions:saturated_resources"),),
    ),
    ("fairlib.multires.edrf", "pdrf", "check_task_bound"): Unseen(
        "a task count overflows only for a demand ~2**-61 of the capacity, valid on its own, "
        "which no probe draws; tests/test_validation_sites.py refuses it",
        (site_case("multires.edrf:pdrf task bound"),),
    ),
    ("fairlib.multires.edrf", "_check_rates", "check_task_bound"): Unseen(
        "a PDRF cycle's rate overflows only beside a user demanding ~2**61 times another's share,"
        " each valid alone, which no probe draws; tests/test_validation_sites.py refuses it",
        (site_case("multires.edrf:_check_rates"),),
    ),
    ("fairlib.traces.workload", "Fleet.__post_init__", "as_labels"): Unseen(
        "no probe gives server_class a blank or non-text label (a label array of the right "
        "length); tests/test_workload.py refuses each",
        ("tests/test_workload.py",),
    ),
    ("fairlib.repro.executed", "refresh_findings", "as_path"): Unseen(
        "a missing folder or a file in its place is refused again when the notebook under it is "
        "not found (FileNotFoundError naming the path); the site also refuses a value that is no "
        "path, which no probe of a path argument passes",
        (site_case("repro.executed:refresh_findings root"),),
    ),
    ("fairlib.repro.prose", "percent", "as_flag"): Unseen(
        "sign is checked again by number(), to which percent passes it for the baseline's value, "
        "with the same name",
        (site_case("repro.prose:percent sign"),),
    ),
    ("fairlib.repro.scaffold", "scaffold_mechanism", "as_tolerance"): Unseen(
        "reached only for a game (kind 'game' or 'model'), which the baseline, the cheapest "
        "scaffold (a pooled mechanism), is not; tests/test_scaffold_game.py refuses a bad "
        "--equilibrium on that path",
        ("tests/test_scaffold_game.py",),
    ),
    ("fairlib.multires.progressive_filling", "_drf_with_zeros", "as_demands"): Unseen(
        "reached only with zeros='scheduler', which the contract's one baseline of drf does not "
        "take; tests/test_validation_sites.py refuses bad demands on that path",
        (site_case("multires.progressive_filling:_drf_with_zeros demands"),),
    ),
    ("fairlib.multires.edrf", "_raise_scan_error", "as_demands"): Unseen(
        "an error path: it runs only after the fast scan failed, to name the bad value precisely;"
        " made a pass-through, the function still refuses, naming demands[i]",
        (site_case("multires.edrf:edrf scan error"),),
    ),
    ("fairlib.properties", "strategyproofness_violation", "as_rng"): Unseen(
        "rng is checked again by misreports, which the function calls with it before any draw, "
        "with the same name",
        (site_case("properties:strategyproofness_violation rng"),),
    ),
    ("fairlib.properties", "strategyproofness_violation", "as_instance"): Unseen(
        "cluster is checked again by the mechanism, which the function runs on it first, with the"
        " same name",
        (site_case("properties:strategyproofness_violation cluster"),),
    ),
    ("fairlib.properties", "mechanism_properties", "as_instance"): Unseen(
        "cluster is checked again by the mechanism, which the function runs on it first, with the"
        " same name",
        (site_case("properties:mechanism_properties cluster"),),
    ),
    ("fairlib.multires.progressive_filling", "drf_allocation", "as_instance"): Unseen(
        "drf, the callable that guards it, dispatches here only when it has found a Cluster, so "
        "no other value reaches this check through drf",
        (site_case("multires.progressive_filling:drf_allocation cluster"),),
    ),
    ("fairlib.multires.edrf", "edrf_allocation", "as_instance"): Unseen(
        "edrf, the callable that guards it, dispatches here only when it has found a Cluster, so "
        "no other value reaches this check through edrf",
        (site_case("multires.edrf:edrf_allocation"),),
    ),
    ("fairlib.multires.edrf", "pdrf_allocation", "as_instance"): Unseen(
        "pdrf, the callable that guards it, dispatches here only when it has found a Cluster, so "
        "no other value reaches this check through pdrf",
        (site_case("multires.edrf:pdrf_allocation"),),
    ),
    ("fairlib.multires.progressive_filling", "filling_bounds", "check_task_bound"): Unseen(
        "a valid instance's task bound (capacity / demand) overflows int64 only at a ratio of "
        "about 2**61, which no probe draws: the probes' bad demands and capacities are refused "
        "before (as_demands, as_capacities)",
        (site_case("multires.progressive_filling:filling_bounds task bound"),),
    ),
    ("fairlib.multires.psdsf", "psdsf", "as_flag"): Unseen(
        "time_shared is checked again, with the same name, by Cluster.load and "
        "server_constraints, which the function calls with it before any result; an array, which "
        "the market would branch on before them, is refused here alone "
        "(tests/test_named_errors.py)",
        (
            "tests/test_named_errors.py::test_the_boundary_refuses_what_the_code_after_it_would_miss",
        ),
    ),
    ("fairlib.multires.pooled", "asset_share_per_task", "as_instance"): Unseen(
        "pool_arrays refuses a non-Cluster next, by name but without its value, which this check "
        "names (tests/test_named_errors.py)",
        (
            "tests/test_named_errors.py::test_the_boundary_refuses_what_the_code_after_it_would_miss",
        ),
    ),
    ("fairlib.multires.pooled", "asset_fairness", "as_instance"): Unseen(
        "pool_arrays refuses a non-Cluster next, by name but without its value, which this check "
        "names (tests/test_named_errors.py)",
        (
            "tests/test_named_errors.py::test_the_boundary_refuses_what_the_code_after_it_would_miss",
        ),
    ),
    ("fairlib.multires.pooled", "ceei", "as_instance"): Unseen(
        "pool_arrays refuses a non-Cluster next, by name but without its value, which this check "
        "names (tests/test_named_errors.py)",
        (
            "tests/test_named_errors.py::test_the_boundary_refuses_what_the_code_after_it_would_miss",
        ),
    ),
    ("fairlib.multires.cluster", "on_merged_servers", "as_instance"): Unseen(
        "merge_identical_servers refuses a non-Cluster by the same name next, unless the "
        "mechanism keeps its servers and is run on the cluster as given "
        "(tests/test_named_errors.py)",
        (
            "tests/test_named_errors.py::test_the_boundary_refuses_what_the_code_after_it_would_miss",
        ),
    ),
    ("fairlib.multires.pfvds._best_response", "nash_residual", "as_flag"): Unseen(
        "Cluster.server_constraints refuses time_shared by the same name later, unless non-finite"
        " tasks are answered (inf) before it (tests/test_named_errors.py)",
        (
            "tests/test_named_errors.py::test_the_boundary_refuses_what_the_code_after_it_would_miss",
        ),
    ),
    ("fairlib.repro.experiments.mechanism_atlas", "Cell.__post_init__", "as_eligibility"): Unseen(
        "a boolean matrix draws no array probes (the battery's are numeric) and None is valid; "
        "tests/test_mechanism_atlas_findings.py refuses a user eligible for no machine",
        ("tests/test_mechanism_atlas_findings.py::test_a_malformed_cell_is_refused_by_field",),
    ),
    ("fairlib.repro.experiments.precomputed_drf", "_speed_instances", "as_instance"): Unseen(
        "instances' one probe is None (a list of triples draws no battery); "
        "tests/test_precomputed_drf_findings.py refuses a label that is not a mapping",
        (
            "tests/test_precomputed_drf_findings.py::test_the_experiments_refuse_bad_settings_by_name",
        ),
    ),
    ("fairlib.repro.experiments.precomputed_drf", "_speed_instances", "as_demands"): Unseen(
        "instances' one probe is None (a list of triples draws no battery); "
        "tests/test_precomputed_drf_findings.py refuses an instance's negative demand",
        (
            "tests/test_precomputed_drf_findings.py::test_the_experiments_refuse_bad_settings_by_name",
        ),
    ),
    ("fairlib.repro.experiments.precomputed_drf", "_speed_instances", "as_capacities"): Unseen(
        "instances' one probe is None (a list of triples draws no battery); "
        "tests/test_precomputed_drf_findings.py refuses an instance's capacity of the wrong "
        "length",
        (
            "tests/test_precomputed_drf_findings.py::test_the_experiments_refuse_bad_settings_by_name",
        ),
    ),
    ("fairlib.traces.alibaba", "machines_up", "check_columns"): Unseen(
        "the contract varies machine_meta's type, not the values of its columns; "
        "tests/test_alibaba.py refuses each column rule (time, cpu_num, mem_size) by name and row",
        (
            "tests/test_alibaba.py::test_machines_up_refuses_a_frame_read_would_refuse_by_column_and_row",
        ),
    ),
    ("fairlib.traces.alibaba", "tasks_present", "check_columns"): Unseen(
        "the contract varies batch_task's type, not the values of its columns; "
        "tests/test_alibaba.py refuses each column rule (times, instance_num, plans) by name and "
        "row",
        (
            "tests/test_alibaba.py::test_tasks_present_refuses_a_frame_read_would_refuse_by_column_and_row",
        ),
    ),
    ("fairlib.repro.scaffold", "paper_from_options", "as_integer_text"): Unseen(
        "the contract's text probes of year are no numbers, which int() refuses as well; what "
        "only this call refuses (other scripts' digits, a sign: '٢٠٢٤', '+2024') "
        "tests/test_scaffold.py probes",
        (
            "tests/test_scaffold.py::test_a_name_taken_or_malformed_is_refused_and_nothing_is_written",
        ),
    ),
    ("fairlib.multires.cluster", "Allocation.__post_init__", "as_instance"): Unseen(
        "Allocation is a result type (fairlib._validate.result_type), whose constructor the "
        "contract does not call; a mechanism's author builds one, and "
        "tests/test_validation_sites.py gives it a cluster that is no Cluster and extras that are "
        "no mapping",
        (
            site_case("multires.cluster:Allocation cluster"),
            site_case("multires.cluster:Allocation extras"),
        ),
    ),
    ("fairlib.multires.cluster", "Allocation.__post_init__", "as_text"): Unseen(
        "Allocation is a result type, whose constructor the contract does not call; "
        "tests/test_validation_sites.py gives it a method named by an invisible string",
        (site_case("multires.cluster:Allocation method"),),
    ),
    ("fairlib.multires.cluster", "Allocation.__post_init__", "as_count"): Unseen(
        "Allocation is a result type, whose constructor the contract does not call; "
        "tests/test_validation_sites.py gives it a negative iteration count",
        (site_case("multires.cluster:Allocation iterations"),),
    ),
    ("fairlib.repro.experiments.precomputed_drf", "_int_range", "as_count"): Unseen(
        "the battery puts one bad value in both ends of a range, which the later rule (0 < low <= "
        "high) refuses by the range's name as well; a low end of 0, or a high end below the low, "
        "only these checks name by entry",
        (
            site_case("repro.experiments.precomputed_drf:_int_range low"),
            site_case("repro.experiments.precomputed_drf:_int_range high"),
        ),
    ),
    ("fairlib.repro.verify", "_text_mapping", "as_text", 0): Unseen(
        "sensitive's probes are whole values of other types, not a dict whose key is no text",
        (site_case("repro.verify:_text_mapping key"),),
    ),
    ("fairlib.repro.verify", "_text_mapping", "as_text", 1): Unseen(
        "sensitive's probes are whole values of other types, not a dict whose reason is no text",
        (site_case("repro.verify:_text_mapping reason"),),
    ),
    ("fairlib.sweep", "_grid_points", "as_label"): Unseen(
        "the battery varies the grid as a whole value, not one parameter name inside a point",
        (site_case("sweep:_grid_points invisible name"),),
    ),
    ("fairlib.sweep", "sweep", "as_label"): Unseen(
        "the battery varies fixed as a whole value, not one key of it that is text but no label",
        (site_case("sweep:sweep fixed key"),),
    ),
    ("fairlib.repro.plotting", "caption_problems", "as_instance", 1): Unseen(
        "the battery varies marks as a whole value, not one text inside one of its lists",
        (site_case("repro.plotting:caption_problems marks text"),),
    ),
    ("fairlib.repro.catalog", "Paper.__post_init__", "as_text", 0): Unseen(
        "the battery varies authors as a whole value, not one name inside a (family, given) pair",
        (site_case("repro.catalog:Paper author name"),),
    ),
    ("fairlib.repro.verify", "_claims", "as_instance", 1): Unseen(
        "a list of claims draws no battery of lists holding something other than a claim",
        (site_case("repro.verify:_claims"),),
    ),
    ("fairlib.market.proportional_share", "proportional_share", "as_tolerance"): Unseen(
        "run_dynamics, to which eps is passed, refuses every battery value by the same name; only "
        "eps = 0, which run_dynamics takes and this function does not, is refused here alone",
        (site_case("market.proportional_share:eps"),),
    ),
    ("fairlib.multires.progressive_filling", "_drf_with_zeros", "as_capacities"): Unseen(
        "reached only with zeros='scheduler', which the contract's one baseline of drf does not "
        "take",
        (site_case("multires.progressive_filling:_drf_with_zeros capacity"),),
    ),
    ("fairlib.multires.progressive_filling", "_drf_with_zeros", "as_weights"): Unseen(
        "reached only with zeros='scheduler', which the contract's one baseline of drf does not "
        "take",
        (site_case("multires.progressive_filling:_drf_with_zeros weights"),),
    ),
    ("fairlib.repro.experiments.dynamic_drf", "_methods", "check_choice"): Unseen(
        "the battery's labels for methods are refused by as_labels first; an unknown name, "
        "which only this check refuses (else a KeyError where it is looked up), is no battery "
        "value",
        (site_case("repro.experiments.dynamic_drf:_methods"),),
    ),
    ("fairlib.repro.experiments.dynamic_drf", "per_step_times", "as_count", 2): Unseen(
        "median_time checks repeat again by the same name, except for the LP, timed three times "
        "whatever repeat says, which the baseline's methods do not include alone",
        (site_case("repro.experiments.dynamic_drf:per_step_times repeat"),),
    ),
    ("fairlib.repro.experiments.dynamic_drf", "_per_n", "as_count", 0): Unseen(
        "orders' probes are values of other types, not a per-n mapping holding a bad count",
        (site_case("repro.experiments.dynamic_drf:_per_n"),),
    ),
    ("fairlib.market.dynamics", "run_dynamics", "as_rng"): Unseen(
        "a bad rng is refused again, by name, as an option the sequential rule does not read; "
        "tests/test_validation_sites.py asks for the seed's own refusal",
        (site_case("market.dynamics:run_dynamics rng"),),
    ),
    ("fairlib.repro.experiments.heterogeneous_servers", "theorem_findings", "as_table", 1): Unseen(
        "alpha_means and approach_per_instance, called next, check alpha_table's other columns by "
        "the same name; only the solver column is this check's alone, and the battery drops no "
        "column",
        (site_case("repro.experiments.heterogeneous_servers:theorem_findings"),),
    ),
    (
        "fairlib.repro.experiments.heterogeneous_servers",
        "approach_per_instance",
        "as_table",
        1,
    ): Unseen(
        "the battery's bad table values are refused by the check of the columns read first; a "
        "negative Definition-4 gap alone is not a battery value",
        (site_case("repro.experiments.heterogeneous_servers:approach_per_instance"),),
    ),
    ("fairlib.repro.experiments.mechanism_atlas", "_atlas_table", "as_table", 1): Unseen(
        "the battery puts text in every number column, which the first check refuses; text in a "
        "property's violation column alone is not a battery value",
        (site_case("repro.experiments.mechanism_atlas:_atlas_table violations"),),
    ),
    ("fairlib.repro.experiments.heterogeneous_traces", "_definition4_table", "as_table"): Unseen(
        "the battery's bad table values are refused by the check of the columns read first; a "
        "negative Definition-4 bound alone is not a battery value",
        (site_case("repro.experiments.heterogeneous_traces:_definition4_table"),),
    ),
    ("fairlib.repro.experiments.mechanism_atlas", "concat_tables", "as_table"): Unseen(
        "the battery gives parts whole values of other types, not a list holding a table with a "
        "negative instant",
        (site_case("repro.experiments.mechanism_atlas:concat_tables"),),
    ),
    ("fairlib.traces.workload", "google_workload", "check_columns"): Unseen(
        "the battery's text in number columns is refused first by the check of event times; a "
        "negative request alone is not a battery value",
        (site_case("traces.workload:google_workload request"),),
    ),
    ("fairlib.traces.google", "task_event_demands", "check_columns"): Unseen(
        "the battery's text in number columns is refused first by the check of event times; a "
        "negative request alone is not a battery value",
        (site_case("traces.google:task_event_demands request"),),
    ),
    ("fairlib.mechanisms", "_check_variants", "as_instance", 1): Unseen(
        "variants' probes are whole values of other types, not a mapping whose options are no "
        "mapping",
        ("tests/test_mechanisms.py::test_register_refuses_malformed_variants_and_display_by_name",),
    ),
    ("fairlib.multires.cluster", "Allocation.__post_init__", "as_flag"): Unseen(
        "Allocation is a result type, whose constructor the contract does not call; "
        "tests/test_validation_sites.py gives it a converged that is no flag",
        (site_case("multires.cluster:Allocation converged"),),
    ),
    ("fairlib.multires.schedulers.hierarchy", "queue_tree", "as_number"): Unseen(
        "weights' probes are whole values of other types, not a mapping of a node to a weight "
        "that is no number",
        (site_case("multires.schedulers.hierarchy:queue_tree weights"),),
    ),
    ("fairlib.repro.experiments.google_open_loop", "time_averaged", "as_table", 1): Unseen(
        "the battery's text in number columns is refused first by the check of the epochs' "
        "times; a negative count of active jobs alone is not a battery value",
        (site_case("repro.experiments.google_open_loop:time_averaged"),),
    ),
    ("fairlib.repro.ledger", "load_registry", "as_path"): Unseen(
        "no probe gives source a path object naming a folder or a device (a str is TOML text, and "
        "a path to no file is a FileNotFoundError with or without it)",
        ("tests/test_report.py::test_registry_takes_any_path_object",),
    ),
}


def _validators() -> frozenset[str]:
    from fairlib import _validate

    return frozenset(n for n in _validate.__all__ if n.startswith(("as_", "check_")))


def validation_sites() -> list[tuple[str, str, int, int, str]]:
    """(module, function's qualified name, line, column, helper) of every call of a
    :mod:`fairlib._validate` helper inside a function of ``fairlib/``, sorted."""
    import ast

    helpers, root, sites = _validators(), Path(fairlib.__file__).parent, []
    for path in sorted(root.rglob("*.py")):
        if path.name == "_validate.py":
            continue
        module = ".".join(("fairlib", *path.relative_to(root).with_suffix("").parts))
        module = module.removesuffix(".__init__")

        def walk(node, stack):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.ClassDef)):
                    walk(child, [*stack, child.name])
                    continue
                if (
                    isinstance(child, ast.Call)
                    and isinstance(child.func, ast.Name)
                    and child.func.id in helpers
                    and stack
                ):
                    sites.append(
                        (module, ".".join(stack), child.lineno, child.col_offset, child.func.id)
                    )
                walk(child, stack)

        walk(ast.parse(path.read_text()), [])
    return sorted(sites)


def site_keys(sites: list) -> dict:
    """Each site's identity for dealing it into a window: (module, function, helper, k) for the k-th
    call of that helper in that function (counted down the function). Lines, columns and the other
    functions' sites do not enter it, so an edited docstring or a new function elsewhere changes no
    key."""
    keys, seen = {}, {}
    for site in sorted(sites, key=lambda s: (s[0], s[1], s[4], s[2], s[3])):
        where = (site[0], site[1], site[4])
        seen[where] = seen.get(where, -1) + 1
        keys[site] = (*where, seen[where])
    return keys


def site_window(key: tuple, windows: int) -> int:
    """The window of a site with identity ``key`` (:func:`site_keys`): a SHA-256 of the key, modulo
    ``windows``."""
    return int.from_bytes(hashlib.sha256(repr(key).encode()).digest()[:8], "big") % windows


def mutation_window(windows: int | None) -> int:
    """The window this run probes: ``FAIRLIB_MUTATION_WINDOW`` when set, else window 0, modulo
    ``windows``. It depends on the code alone, so a run gives the same answer on every day and
    machine; an audit of every site sets the variable to each window in turn (``for w in $(seq 0
    63); do FAIRLIB_MUTATION_WINDOW=$w pytest ... ; done``)."""
    import os

    if windows is None:
        return 0
    chosen = os.environ.get("FAIRLIB_MUTATION_WINDOW")
    if chosen is not None and not chosen.isdigit():
        raise ValueError(
            f"FAIRLIB_MUTATION_WINDOW = {chosen!r}: must be a window number (0, 1, ...)"
        )
    return (int(chosen) if chosen else 0) % windows


def mutation_subset(sites: list, windows: int | None, window: int = 0) -> list:
    """The sites of window ``window`` of ``windows`` (:func:`site_window`), in the order of
    ``sites``; every site is in exactly one window, and which one depends on the site alone."""
    if windows is None:
        return list(sites)
    keys = site_keys(sites)
    return [s for s in sites if site_window(keys[s], windows) == window % windows]


def _functions_of(target: Target) -> list:
    obj = target.obj
    if inspect.isclass(obj):
        found = [vars(obj).get(n) for n in ("__init__", "__post_init__", "__new__")]
        return [inspect.unwrap(f) for f in found if inspect.isfunction(f)]
    return [inspect.unwrap(obj)] if callable(obj) else []


def _names_used(code) -> set[str]:
    """The global and attribute names ``code`` uses, its nested functions, comprehensions and
    lambdas included (a call of the site's function inside a comprehension of ``__post_init__``
    is a call by ``__post_init__``)."""
    names = set(code.co_names)
    for const in code.co_consts:
        if inspect.iscode(const):
            names |= _names_used(const)
    return names


def _site_targets(module: str, qualname: str) -> list[str]:
    """The probed callables that guard a site: those whose own code holds it, else those of the same
    module that call its function by name."""
    direct, hop = [], []
    short = qualname.rsplit(".", 1)[-1]
    for t in TARGETS:
        if t.exempt:
            continue
        for fn in _functions_of(t):
            code = getattr(fn, "__code__", None)
            if code is None or getattr(fn, "__module__", None) != module:
                continue
            if fn.__qualname__ == qualname:
                direct.append(t.name)
            elif short in _names_used(code):
                hop.append(t.name)
    return sorted(set(direct or hop))


def _probe_site_in_child(site) -> tuple[str, str]:
    """("caught", target) when a guarding target fails its probes with the site a pass-through;
    ("missed", targets), ("unguarded", "") or ("not mutable", why)."""
    module, qualname, line, col, _ = site
    names = [n for n in _site_targets(module, qualname) if _child_baselines().get(n) is not None]
    if not names:
        return "unguarded", ""
    try:
        fn, kept = mutate(module, qualname, line, col)
    except NotMutable as exc:
        return "not mutable", str(exc)
    _CALL_SECONDS[0] = MUTANT_PROBE_SECONDS
    try:
        for name in names:
            if _probe_in_child(name):
                return "caught", name
    finally:
        fn.__code__ = kept
        _CALL_SECONDS[0] = PROBE_SECONDS
        _stop_pool_workers()
    return "missed", ", ".join(names)


def _stop_pool_workers() -> None:
    """Ends the local worker processes a cut probe may have left computing (a sweep's loky pool),
    so they do not slow the probes after it."""
    import sys

    reusable = sys.modules.get("joblib.externals.loky.reusable_executor")
    executor = getattr(reusable, "_executor", None)
    if executor is not None:  # never made here: only one a probe started is ended
        executor.shutdown(wait=False, kill_workers=True)


SITES = validation_sites()
SITE_KEYS = site_keys(SITES)

# every check that pandas arguments carry the same labels in the same order (check_labels): the
# battery has no labelled input in another order (which labels an argument should carry depends
# on what its axes mean); tests/test_stated_rules.py (_labelled_calls) gives each function such a
# call and expects the refusal naming the argument
UNSEEN_SITES.update(
    {
        (module, function, helper): Unseen(
            "labels in another order are no battery value; tests/test_stated_rules.py refuses "
            "them for this function",
            (
                "tests/test_stated_rules.py::"
                "test_labels_that_disagree_with_another_arguments_are_refused_not_read_by_position",
            ),
        )
        for module, function, _, _, helper in SITES
        if helper == "check_labels"
    }
)

# every cap on a random generator's array (check_drawn): the battery's huge count, 2**63, is refused
# by as_count first, and counts within int64 whose product is past MAX_DRAWN are no battery value
# (an array of that size is what the check keeps from being allocated);
# tests/test_validation_sites.py refuses one past the cap at every site, tests/test_bounded_work.py
# probes the cap
UNSEEN_SITES.update(
    {
        (module, function, helper): Unseen(
            "a product of counts past MAX_DRAWN is no battery value; "
            "tests/test_validation_sites.py refuses it at this site",
            tuple(
                site_case(f"{case} MAX_DRAWN")
                for case, call, _ in _DRAWN
                if call[0].startswith(module + ".")
            ),
        )
        for module, function, _, _, helper in SITES
        if helper == "check_drawn"
    }
)


def unseen_entry(site: tuple) -> Unseen | None:
    """The :data:`UNSEEN_SITES` entry of ``site``: the one naming it alone (module, function,
    helper, k — its k-th call of that helper in the function, as :func:`site_keys` counts), else the
    one for every call of that helper in the function."""
    key = SITE_KEYS.get(site) or (site[0], site[1], site[4], 0)
    return UNSEEN_SITES.get(key, UNSEEN_SITES.get(key[:3]))


#: seconds the tests named for an unseen site may take on its mutant (a mutant that loops fails)
KILLER_SECONDS = 900


def _limit_memory() -> None:
    """Caps the killer run's address space as the probing process's is: a mutant that allocates
    what its check refused fails at once (MemoryError) and never takes the machine's memory."""
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (_PROBE_MEMORY, _PROBE_MEMORY))


def killed_by(site: tuple, killers: tuple[str, ...]) -> tuple[bool, str]:
    """Whether one of the pytest node ids or files ``killers`` fails with ``site`` a pass-through,
    in a fresh pytest process (``FAIRLIB_MUTANT_SITE``, tests/mutants.py), and the last line of its
    report. A killer that names no test, or a site that cannot be mutated, is an error (never a
    pass): the evidence must be a test failing, not pytest refusing to start."""
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, MUTANT_SITE: site_text(*site[:4])}
    env.pop("PYTEST_XDIST_WORKER", None)
    env.pop("PYTEST_ADDOPTS", None)
    try:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-x",
                "-p",
                "no:cacheprovider",
                "--no-header",
                "-o",
                "addopts=",
                *killers,
            ],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            timeout=KILLER_SECONDS,
            preexec_fn=_limit_memory,
        )
    except subprocess.TimeoutExpired:
        return True, f"past {KILLER_SECONDS} s on the mutant: it loops"
    lines = (done.stdout + done.stderr).strip().splitlines()
    failed = next(
        (line for line in lines if line.startswith("FAILED ")), lines[-1] if lines else ""
    )
    if done.returncode == 1:
        return True, failed
    if done.returncode < 0:  # the mutant crashed the process (a signal): no test passed on it
        return True, f"ended by signal {-done.returncode}"
    if done.returncode != 0:
        raise AssertionError(
            f"pytest could not run {killers} on the mutant of {site}: exit {done.returncode}: "
            + "\n".join(lines[-15:])
        )
    return False, lines[-1] if lines else ""


def test_killed_by_tells_a_test_that_sees_the_mutant_from_one_that_does_not():
    """The evidence for an unseen site can fail: its own case fails on the mutant, a case of
    another function passes on it, and a killer naming no test is an error, not a pass."""
    site = next(s for s in SITES if s[1] == "_drf_with_zeros" and s[4] == "as_demands")
    own = site_case("multires.progressive_filling:_drf_with_zeros demands")
    assert killed_by(site, (own,))[0]
    assert not killed_by(site, (site_case("repro.prose:percent sign"),))[0]
    with pytest.raises(AssertionError, match="could not run"):
        killed_by(site, ("tests/test_validation_sites.py::no_such_test",))


def test_every_unseen_site_names_tests_that_exist():
    """Each :class:`Unseen` entry names at least one killer, and each is a test file, or a test
    function (and case) of one, that exists: a renamed test cannot leave a site without evidence."""
    import ast as ast_

    root = Path(__file__).resolve().parents[1]
    for key, unseen in UNSEEN_SITES.items():
        assert unseen.killers, f"{key}: names no test that fails with it a pass-through"
        for killer in unseen.killers:
            path, _, rest = killer.partition("::")
            assert (root / path).is_file(), f"{key}: {path} is not a test file"
            if not rest:
                continue
            name, _, case = rest.partition("[")
            tree = ast_.parse((root / path).read_text())
            assert any(isinstance(n, ast_.FunctionDef) and n.name == name for n in tree.body), (
                f"{key}: {path} has no test {name}"
            )
            if path.endswith("test_validation_sites.py") and case:
                from tests import test_validation_sites as v

                assert case[:-1] in v.SITES, f"{key}: no case {case[:-1]!r} in {path}"


def test_every_unseen_entry_names_a_site_that_exists():
    """An :class:`Unseen` entry whose site was removed, or became a call of another helper, would
    vouch for nothing and hide that the new call's mutant is never probed: each key names a site
    of :func:`validation_sites` (module, function, helper; with k, its k-th call)."""
    keys = set(SITE_KEYS.values())
    triples = {k[:3] for k in keys}
    stale = [key for key in UNSEEN_SITES if key not in (keys if len(key) == 4 else triples)]
    assert not stale, f"UNSEEN_SITES entries naming no validation site: {stale}"


def test_validation_sites_are_found():
    """The enumeration sees the helpers' calls (a refactoring that hid them from it would make the
    test vacuous)."""
    assert len(SITES) > 300 and {s[4] for s in SITES} >= {"as_count", "as_number", "as_instance"}
    assert mutation_subset(SITES, 4) == mutation_subset(list(SITES), 4)
    assert 0 < len(mutation_subset(SITES, 4)) < len(SITES) and mutation_subset(SITES, None) == SITES


def test_the_mutation_windows_cover_every_site_once():
    """Over ``MUTATION_WINDOWS`` runs (an audit), the windows probe every site, each once."""
    windows = MUTATION_WINDOWS or 1
    probed = [site for w in range(windows) for site in mutation_subset(SITES, windows, w)]
    assert sorted(probed) == sorted(SITES)
    assert 0 <= mutation_window(MUTATION_WINDOWS) < windows


def test_a_site_added_elsewhere_moves_no_site_between_windows():
    """A new function's validation (a new paper's driver) or a removed one changes no other site's
    window, and neither do the lines moving: make test probes the same sites as before plus, at
    most, the new one."""
    windows = MUTATION_WINDOWS or 1
    new = ("fairlib.repro.experiments.new_paper", "run", 10, 4, "as_count")
    moved = [(m, f, line + 7, col, h) for m, f, line, col, h in SITES]
    for w in range(windows):
        before = mutation_subset(SITES, windows, w)
        assert [s for s in mutation_subset([*SITES, new], windows, w) if s != new] == before
        assert mutation_subset(SITES[1:], windows, w) == [s for s in before if s != SITES[0]]
        assert [
            (m, f, line - 7, c, h) for m, f, line, c, h in mutation_subset(moved, windows, w)
        ] == (before)


@pytest.mark.parametrize(
    "site",
    mutation_subset(SITES, MUTATION_WINDOWS, mutation_window(MUTATION_WINDOWS)),
    ids=lambda s: f"{s[0]}.{s[1]}:{s[2]}:{s[4]}",
)
def test_the_contract_fails_a_callable_whose_validation_site_is_removed(prober, site):
    try:
        guard = MUTANT_SITE_GUARD + (0 if prober.warm else _BASELINE_GUARD)
        outcome, detail = prober.call(_probe_site_in_child, site, guard=guard)
    except _ProbeLost as exc:
        # the unchecked value crashed (or hung) compiled code: test_contract fails a target whose
        # probes do that
        outcome, detail = "lost", str(exc)
    if outcome in ("unguarded", "not mutable"):
        pytest.skip(f"{outcome}: {detail or 'no probed public callable reaches it directly'}")
    unseen = unseen_entry(site)
    if unseen and outcome == "lost":
        pytest.skip(f"the probing process was lost, which says nothing of this site: {detail}")
    if unseen:
        assert outcome == "missed", f"{site} is caught now ({detail}): remove it from UNSEEN_SITES"
        killed, report = killed_by(site, unseen.killers)
        assert killed, (
            f"{site[4]} at {site[0]}:{site[2]} ({site[1]}) made a pass-through: the tests "
            f"UNSEEN_SITES names for it, {', '.join(unseen.killers)}, pass on the mutant too "
            f"({report})"
        )
        return
    outcome = "caught" if outcome == "lost" else outcome
    assert outcome == "caught", (
        f"{site[4]} at {site[0]}:{site[2]} ({site[1]}) made a pass-through, and the contract "
        f"still passes {detail}: its probes do not reach what this call checks (rerun it "
        f"with FAIRLIB_MUTATION_WINDOW={mutation_window(MUTATION_WINDOWS)})"
    )


# --- the battery ----------------------------------------------------------------------------------

NAN, INF = float("nan"), float("inf")


def _same_container(valid, bad: np.ndarray):
    """``bad`` in the container ``valid`` came in: a tuple or list of plain numbers for a tuple or
    a list (a check of a pair's type stops an array before the check of its entries is reached)."""
    if isinstance(valid, (tuple, list)):
        return type(valid)(bad.tolist())
    return bad


#: a numeric range a parameter's description states, "from 1e-15 to 0.1", "(from 0 to 1)": both
#: ends numbers (a cap named by a constant is :func:`cap_battery`'s)
_RANGE_STATED = re.compile(
    r"\bfrom\s+(-?\d+(?:\.\d+)?(?:e[-+]?\d+)?)\s+to\s+(-?\d+(?:\.\d+)?(?:e[-+]?\d+)?)(?![\w.*^])"
)


def range_battery(target: Target, name: str, value) -> list[tuple[str, object]]:
    """A number just outside the range the parameter's description states ("from 1e-15 to 0.1"):
    below its low end and past its high end, each refused by name (documentation and check agree,
    and removing the check fails the contract)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(
        value, (int, float, np.integer, np.floating)
    ):
        return []
    found = _RANGE_STATED.findall(_param_description(target, name))
    if len(found) != 1:  # none, or several ranges (of several things): not this value's alone
        return []
    low, high = (float(x) for x in found[0])
    if not low < high:
        return []
    whole = isinstance(value, (int, np.integer)) and low.is_integer() and high.is_integer()
    if whole:
        below, above = int(low) - 1, int(high) + 1
    else:
        below = low / 10 if low > 0 else low - max(1.0, abs(high - low))
        above = high * 1.01 if high > 0 else high + max(1.0, abs(high - low))
    return [
        (f"{TYPED}{below!r} (below the documented range {found[0][0]} to {found[0][1]})", below),
        (f"{TYPED}{above!r} (past the documented range {found[0][0]} to {found[0][1]})", above),
    ]


def _text_in_numbers(frame: pd.DataFrame) -> list:
    """The frame with text in the first row of its number columns (what a reader of a table must
    refuse by column and row, not meet as a TypeError deep in arithmetic); none when it has none."""
    numeric = [
        c
        for c in frame.columns
        if pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c])
    ]
    if not numeric or frame.empty:
        return []
    bad = frame.astype({c: object for c in numeric})
    for c in numeric:
        bad.at[bad.index[0], c] = "x"
    return [("text in its number columns", bad)]


def _array_kind(v):
    if isinstance(v, (np.ndarray, list, tuple)) and not isinstance(v, str):
        try:
            a = np.asarray(v)
        except ValueError:
            return None
        if a.dtype.kind in "iuf" and a.size:
            return a
    return None


def battery(name: str, value, annotation) -> list[tuple[str, object]]:
    """(label, bad value) pairs for an argument whose valid value is ``value``."""
    ann = str(annotation)
    if name in ("rng", "seed"):
        return [
            ("'abc' (str)", "abc"),
            ("-1 (negative)", -1),
            ("2.5 (float)", 2.5),
            ("(1+1j) (complex)", 1 + 1j),
        ]
    if isinstance(value, (bool, np.bool_)):
        return []  # flags: see ACCEPTED's display switches; truthiness is Python's convention
    if value is None:
        if "int" in ann and "float" not in ann:
            value = 2
        elif "float" in ann:
            value = 1.0
        elif ann in ("str", "'str'") or ann.startswith("str |"):
            value = "x"
        elif name in FACTORIES:
            try:
                value = _materialise(FACTORIES[name][0])
            except Exception:  # noqa: BLE001
                return [("object()", object())]
        else:
            return [("object()", object())]
        bad = battery(name, value, annotation)
        return [(label, v) for label, v in bad if v is not None]
    common = [("None", None)]
    if isinstance(value, (int, np.integer)):
        return common + [
            ("'2' (str)", "2"),
            ("2.5 (float)", 2.5),
            ("True (bool)", True),
            ("(1+1j) (complex)", 1 + 1j),
            ("nan", NAN),
            ("inf", INF),
            ("-1 (negative)", -1),
            ("10**20 (huge)", 10**20),
            ("[2] (list)", [2]),
        ]
    if isinstance(value, (float, np.floating)):
        out = common + [
            ("'1.0' (str)", "1.0"),
            ("True (bool)", True),
            ("(1+1j) (complex)", 1 + 1j),
            ("nan", NAN),
            ("-inf", -INF),
            ("-1.0 (negative)", -1.0),
            ("10**400 (huge)", 10**400),
            ("[1.0] (list)", [1.0]),
        ]
        return out + ([("inf", INF)] if math.isfinite(value) else [])
    if isinstance(value, str):
        return common + [
            ("1 (int)", 1),
            ("'no-such-choice' (str)", "no-such-choice"),
            ("['x'] (list)", ["x"]),
            # text that shows nothing: a label, name or choice no reader can see
            (INVISIBLE, "\u200b"),
        ]
    if isinstance(value, pd.DataFrame):
        return (
            common
            + [
                ("array (ndarray)", np.ones((2, 2))),
                ("'x' (str)", "x"),
                # its rows without the columns a reader of the frame needs
                ("a frame without its columns", value.iloc[:, :0]),
                # a reader by label would see one of the two, a writer write both under one name
                ("a repeated column label", pd.concat([value, value.iloc[:, :1]], axis=1)),
            ]
            + _text_in_numbers(value)
        )
    arr = _array_kind(value)
    if arr is not None:
        out = common + [
            ("'abc' (str)", "abc"),
            ("[] (empty)", []),
            ("ragged", [[1.0, 2.0], [3.0]] if arr.ndim < 2 else [[[1.0, 2.0], [3.0]]]),
            ("extra dimension", np.ones(arr.shape + (2,))),
            ("complex", arr.astype(complex) + 1j),
        ]
        for label, fill in (("nan entry", NAN), ("inf entry", INF), ("negative entry", -1.0)):
            bad = arr.astype(float).copy()
            bad.flat[0] = fill
            out.append((label, _same_container(value, bad)))
        if arr.size > 1:
            # the last entry too: in a table of pairs (or rows) the first entry's check stops a
            # bad first value before the last column's check is reached
            bad = arr.astype(float).copy()
            bad.flat[-1] = -1.0
            out.append(("negative last entry", _same_container(value, bad)))
        return out
    if type(value).__module__.startswith("fairlib"):
        others = [("array (ndarray)", np.ones((2, 2))), ("'x' (str)", "x")]
        for make in (_cluster, _game, _workload):
            other = make()
            if type(other) is not type(value):
                others.append((f"a {type(other).__name__} (wrong object)", other))
                break
        return common + others
    if callable(value):
        return common + [("'x' (str)", "x"), ("1 (int)", 1)]
    if isinstance(value, dict):
        return [("'x' (str)", "x"), ("1 (int)", 1)]
    return []


#: the prefix of every probe :func:`type_battery` adds: the problems it finds say the value came
#: from the type
TYPED = "typed: "


def annotation_text(annotation) -> str:
    """A parameter's annotation as its source spells it (``from __future__ import annotations``
    keeps strings; a class is shown by its name); empty when there is none."""
    if annotation is inspect.Parameter.empty:
        return ""
    if isinstance(annotation, str):
        return annotation.strip("'\"")
    if isinstance(annotation, type):
        return annotation.__name__
    return str(annotation).replace("typing.", "")


#: annotations that name a container but not what it holds: the valid value tells the kind
_BARE_CONTAINERS = ("tuple", "list", "Sequence", "Iterable", "dict", "Mapping")


def _kind(ann: str, value) -> str:
    """The kind of bad values an argument gets: from its annotation when it has one (without ``|
    None``), else from its valid value."""
    parts = [a.strip() for a in ann.split("|") if a.strip() not in ("None", "")]
    base = " | ".join(parts)
    if base:
        if base == "bool":
            return "bool"
        if base == "int":
            return "int"
        if base == "float":
            return "float"
        if "Path" in base or "PathLike" in base:
            return "path"
        if base.startswith(("Mapping", "dict")):
            return "mapping"
        if base == "range":
            return "range"
        if re.match(r"(tuple|list|Sequence|Iterable)\[str", base):
            return "labels"
        if base not in _BARE_CONTAINERS:
            return ""
    # no annotation, or a bare container's (``tuple``, ``dict``): the valid value says which
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, Path):
        return "path"
    if isinstance(value, dict):
        return "mapping"
    if isinstance(value, range):
        return "range"
    if isinstance(value, (tuple, list)) and value and all(isinstance(v, str) for v in value):
        return "labels"
    return ""


def _missing(name: str) -> Path:
    """A path under the test's folder that nothing holds: a new one per probe, since a call that
    accepts a missing output path (``write_vm``) makes the file it names."""
    _STATE["missing"] = _STATE.get("missing", 0) + 1
    return _tmp() / f"{_STATE['missing']}" / name


def _garbage_file() -> Path:
    path = _tmp() / "garbage.bin"
    path.write_bytes(b"\x00\xff garbage, not what any reader expects \xfe\n" * 4)
    return path


def type_battery(name: str, value, annotation) -> list[tuple[str, object]]:
    """(label, bad value) pairs from the type of an argument: its annotation when it has one, else
    the kind of its valid ``value`` (:func:`_kind`) — on top of :func:`battery`'s, whose labels it
    does not repeat.

    - ``bool``: 0, 1, ``"false"``;
    - ``int``: 2**63 (past int64), -1, 1.5, True;
    - ``float``: NaN, ±inf, 1e300, 1e-300;
    - a path: a missing file, a directory where a file is meant and a file where a directory is
      meant, a file of garbage (for an input that exists; an output path, not there yet, gets the
      wrong kind of existing entry);
    - a mapping: a key of the wrong type, an unknown key, a value of the wrong type, a NaN value
      (for numbers);
    - labels (a tuple or list of text): empty, a duplicate, an element of the wrong type;
    - a range: empty, reversed;
    - None wherever the annotation does not say ``| None``.
    """
    ann = annotation_text(annotation)
    if name == "argv" and isinstance(value, (list, tuple)):
        # a command line's arguments: never the empty list (a main run with no options does its
        # default work, which may write into the checkout)
        return [
            (TYPED + label, bad)
            for label, bad in (
                ("a str (a list is meant)", " ".join(value) or "--help"),
                ("a list with a non-str element", [1, *value]),
                ("an unknown option", [*value, "--no-such-option"]),
            )
        ]
    kind = _kind(ann, value)
    out = [("None", None)] if ann and "None" not in ann else []
    if kind == "bool":
        out += [("0 (int for a bool)", 0), ("1 (int for a bool)", 1), ("'false' (str)", "false")]
    elif kind == "int":
        out += [
            ("2**63 (past int64)", 2**63),
            ("-1 (negative)", -1),
            ("1.5 (float)", 1.5),
            ("True (bool)", True),
        ]
    elif kind == "float":
        out += [
            ("nan", NAN),
            ("inf", INF),
            ("-inf", -INF),
            ("1e300 (huge)", 1e300),
            ("1e-300 (tiny)", 1e-300),
        ]
    elif kind == "path" and isinstance(value, (str, Path)):
        path = Path(value)
        if path.is_file():
            out += [
                ("a missing file", _missing("no_such_file.csv")),
                ("a directory (a file is meant)", _tmp()),
                ("a file of garbage", _garbage_file()),
            ]
        elif path.is_dir():
            out += [
                ("a missing directory", _missing("no_such_directory")),
                ("a file (a directory is meant)", _garbage_file()),
            ]
        elif path.suffix:  # an output file, written by the call
            out += [("a directory (a file is meant)", _tmp())]
        else:  # an output directory, made by the call
            out += [("a file (a directory is meant)", _garbage_file())]
    elif kind == "path" and value is None:
        # a path left to its default: whether a file or a folder is meant, an existing file of
        # garbage is neither a folder nor a file any reader reads
        out += [("a file of garbage (for a default path)", _garbage_file())]
    elif kind == "mapping" and value is None:
        # a mapping left to its default (none): a value of another kind in its place
        out += [("a list (a mapping is meant)", ["x"])]
    elif kind == "mapping" and isinstance(value, dict) and value:
        key, item = next(iter(value.items()))
        rest = {k: v for k, v in value.items() if k != key}
        out += [
            ("a key of the wrong type", {1: item, **rest}),
            ("an unknown key", {**value, "no_such_key": item}),
            ("a value of the wrong type", {**value, key: object()}),
        ]
        if isinstance(item, (int, float)) and not isinstance(item, bool):
            out.append(("a NaN value", {**value, key: NAN}))
    elif kind == "labels" and isinstance(value, (tuple, list)) and value:
        out += [
            ("empty labels", type(value)()),
            ("a duplicate label", type(value)([*value, value[0]])),
            ("a label of the wrong type", type(value)([1, *value[1:]])),
        ]
    elif kind == "range" and isinstance(value, range):
        out += [("range(0) (empty)", range(0)), ("a reversed range", range(5, 0, -1))]
    return [(TYPED + label, bad) for label, bad in out]


#: how a parameter's description names the cap of its own value: "from 1 to :data:`MAX_RUNS`",
#: "> 0 and at most :data:`MAX_DAYS`", then a parenthesis, punctuation or the end — not a cap of
#: something derived from it ("at most :data:`MAX_EPOCHS` bins", "``a x b`` is at most ...")
_CAP_REFERENCE = re.compile(
    r"(?:from\s+-?[\d.]+\s+to|and at most)\s+:data:`~?([\w.]+)`(?=\s*(?:\(|[.;,)]|or\b|$))"
)


def documented_cap(target: Target, name: str):
    """The cap the numpydoc description of parameter ``name`` of ``target`` names (a ``MAX_*`` or
    ``*_MAX`` constant, read from the module it names or the target's own), or None."""
    from numpydoc.docscrape import NumpyDocString

    try:
        sections = NumpyDocString(inspect.getdoc(target.obj) or "")
    except Exception:  # noqa: BLE001 - a docstring numpydoc cannot read: test_docstrings says so
        return None
    for param in sections["Parameters"]:
        if name not in [n.strip() for n in param.name.split(",")]:
            continue
        for dotted in _CAP_REFERENCE.findall(" ".join(param.desc)):
            last = dotted.rsplit(".", 1)[-1]
            if not (last.startswith("MAX_") or last.endswith("_MAX")):
                continue
            if "." in dotted:
                owner = importlib.import_module(dotted.rsplit(".", 1)[0])
            else:
                owner = importlib.import_module(getattr(target.obj, "__module__", "fairlib"))
            cap = getattr(owner, last, None)
            if isinstance(cap, (int, float)) and not isinstance(cap, bool):
                return last, cap
    return None


def _param_description(target: Target, name: str) -> str:
    """The numpydoc description of parameter ``name`` of ``target`` (empty when none)."""
    from numpydoc.docscrape import NumpyDocString

    try:
        sections = NumpyDocString(inspect.getdoc(target.obj) or "")
    except Exception:  # noqa: BLE001 - a docstring numpydoc cannot read: test_docstrings says so
        return ""
    for param in sections["Parameters"]:
        if name in [n.strip() for n in param.name.split(",")]:
            return " ".join(param.desc)
    return ""


def zero_battery(target: Target, name: str, value) -> list[tuple[str, object]]:
    """Zero, for a number whose description says it is ``> 0``: from the documentation, not from
    the message a negative value happens to get (a check removed in a mutant may leave a looser
    one behind, whose message says ``>= 0``)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(
        value, (int, float, np.integer, np.floating)
    ):
        return []
    # "> 0" or "> 0.0", not ">= 0" nor "> 0.5"
    if not re.search(r"(?<![<>=])>\s?0(?:\.0)?(?![\d.])", _param_description(target, name)):
        return []
    zero = 0 if isinstance(value, (int, np.integer)) else 0.0
    return [(f"{TYPED}0 (zero; documented > 0)", zero)]


def cap_battery(target: Target, name: str, value) -> list[tuple[str, object]]:
    """A value just past the cap the parameter's docstring names (:func:`documented_cap`): the
    cap + 1 for a count, 1 % past it for a float. Refused by name, or the call does the unbounded
    work the cap exists to prevent — so removing a cap fails the contract."""
    found = documented_cap(target, name)
    if found is None or isinstance(value, (bool, np.bool_)):
        return []
    cap_name, cap = found
    if isinstance(value, (int, np.integer)) and float(cap).is_integer():
        return [(f"{TYPED}{cap_name} + 1 (past the documented cap)", int(cap) + 1)]
    if isinstance(value, (int, float, np.integer, np.floating)):
        return [(f"{TYPED}{cap_name} x 1.01 (past the documented cap)", float(cap) * 1.01)]
    arr = _array_kind(value)
    if arr is not None and arr.size and np.issubdtype(arr.dtype, np.number):
        # "each from 1 to :data:`MAX_SCALE`": one element past the cap, the rest valid
        past = int(cap) + 1 if np.issubdtype(arr.dtype, np.integer) else float(cap) * 1.01
        out = []
        for where, k in (("first", 0), ("last", -1))[: 2 if arr.size > 1 else 1]:
            bad = arr.astype(type(past)).copy()
            bad.flat[k] = past
            out.append(
                (
                    f"{TYPED}the {where} element {cap_name} past its documented cap",
                    bad.tolist() if isinstance(value, (list, tuple)) else bad,
                )
            )
        return out
    return []


def _under_tmp(value):
    """A path probe as an absolute path under the test's folder: a relative one
    (``'no-such-choice'``, a name the call may take for a new folder) would be made in the working
    directory, the checkout."""
    import os

    if isinstance(value, (str, os.PathLike)) and not Path(value).is_absolute():
        anchored = _tmp() / value
        return str(anchored) if isinstance(value, str) else anchored
    return value


def _value_texts(value) -> list[str]:
    """Ways a message may show a scalar value."""
    if isinstance(value, Path):  # a message naming the file names the value
        return [str(value)]
    if isinstance(value, str) and len(value) > 40:  # shown cut short (fairlib._validate._short)
        return [repr(value)[:40], value[:40]]
    if isinstance(value, (bool, np.bool_, str, complex)) or value is None:
        return [repr(value), str(value)]
    if isinstance(value, (int, np.integer)):
        if abs(value) > 1e300:  # shown cut short (fairlib._validate._short) or in full
            return [str(value)[:40]]
        return [str(value), repr(float(value)), f"{float(value):g}"]
    if isinstance(value, float):
        return [repr(value), str(value), f"{value:g}"]
    return []


def _documented_errors(target: Target) -> tuple:
    doc = inspect.getdoc(target.obj) or ""
    names = set()
    if "Raises" in doc:
        section = doc.split("Raises", 1)[1].split("\n\n")[0:3]
        for line in "\n".join(section).splitlines():
            word = line.strip()
            if word.isidentifier() and (word.endswith("Error") or word.endswith("Exception")):
                names.add(word)
    errors = []
    for n in names:
        import builtins

        cls = getattr(builtins, n, None) or getattr(
            importlib.import_module(target.obj.__module__), n, None
        )
        if isinstance(cls, type) and issubclass(cls, BaseException):
            errors.append(cls)
    return (InvalidInputError, *errors)


def _accepted(target: Target, param: str, label: str) -> str:
    return next(
        (
            why
            for (f, p, lab), why in ACCEPTED.items()
            if fnmatch.fnmatchcase(target.name, f)
            and fnmatch.fnmatchcase(param, p)
            and fnmatch.fnmatchcase(label.removeprefix(TYPED), lab)
        ),
        "",
    )


def _spellings(name: str) -> tuple[str, ...]:
    """How a message may name the argument ``name``: as Python spells it, or as the command line
    that passes it does (``KEY`` for a positional ``key``, ``--venue-kind`` for ``venue_kind``: a
    function behind a command line names the option its user typed)."""
    return name, name.upper(), "--" + name.replace("_", "-")


def _names_in_exit(exc: SystemExit, said: str, name: str, bad, valid) -> bool:
    """Whether a ``SystemExit`` raised for the bad value ``bad`` of argument ``name`` is a refusal
    by name: a command line's ``main(argv)`` that argparse ends with a non-zero status (its
    convention for a malformed command line, exit 2), having printed to stderr an error naming the
    argument or what is wrong in the value (an element of ``bad`` that the valid ``valid`` does not
    hold: the unknown option, not one the usage line lists anyway). An exit with status 0 or None,
    or a message naming none of it, is a failure."""
    if exc.code in (0, None):
        return False
    message = said + ("" if isinstance(exc.code, int) else str(exc.code))
    if "error:" not in message:
        return False
    # argparse's error, not the usage line above it (which lists every option, the valid ones too)
    message = message.split("error:", 1)[1]
    if isinstance(bad, (list, tuple)):
        kept = valid if isinstance(valid, (list, tuple)) else ()
        texts = [str(v) for v in bad if str(v) and v not in kept]
    else:
        texts = _value_texts(bad)
    return any(t in message for t in (*_spellings(name), *texts))


def probe(target: Target, base) -> list[str]:
    """Every bad value of every argument on top of the baseline; returns the problems found."""
    params = _signature(target)
    args, kwargs = base
    bound_names = [p.name for p in params]
    problems = []
    allowed = _documented_errors(target)
    for i, p in enumerate(params):
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        positional = i < len(args) and p.kind != p.KEYWORD_ONLY
        if positional:
            valid = args[i]
        elif p.name in kwargs:
            valid = kwargs[p.name]
        elif p.default is not p.empty:
            valid = p.default
        else:
            continue
        probes = battery(p.name, valid, p.annotation)
        seen = {label for label, _ in probes}
        probes += [
            (label, bad)
            for label, bad in type_battery(p.name, valid, p.annotation)
            if label.removeprefix(TYPED) not in seen
        ]
        probes += cap_battery(target, p.name, valid)
        probes += [r for r in range_battery(target, p.name, valid) if r[0] not in seen]
        probes += [z for z in zero_battery(target, p.name, valid) if z[0] not in seen]
        if _kind(annotation_text(p.annotation), valid) == "path":
            probes = [(label, _under_tmp(bad)) for label, bad in probes]
        k = 0
        while k < len(probes):
            label, bad = probes[k]
            k += 1
            if label.removeprefix(TYPED) == "None" and (
                p.default is None or "None" in annotation_text(p.annotation).split(" | ")
            ):
                continue  # None is this argument's default, or a value its annotation allows
            call_args, call_kwargs = list(args), dict(kwargs)
            if positional:
                call_args[i] = bad
            else:
                call_kwargs[p.name] = bad
            stderr = io.StringIO()
            try:
                with contextlib.redirect_stderr(stderr):
                    _guarded_invoke(target, call_args, call_kwargs)
            except allowed as exc:
                message = str(exc)
                texts = _value_texts(bad)
                names_it = (
                    any(spelling in message for spelling in _spellings(p.name))
                    or any(t in message for t in texts)
                    and not isinstance(bad, str)
                )
                if not names_it:
                    problems.append(
                        f"{target.name}({p.name}={label}) raised {type(exc).__name__} "
                        f"without naming {p.name!r}: {message[:160]}"
                    )
                elif texts and not any(t in message for t in texts):
                    problems.append(
                        f"{target.name}({p.name}={label}) raised {type(exc).__name__} "
                        f"without the value: {message[:160]}"
                    )
                if label.endswith("(negative)") and ("> 0" in message or ">= 1" in message):
                    zero = 0 if isinstance(bad, int) else 0.0
                    probes.append((f"{zero} (zero; the message asks > 0)", zero))
            except _Timeout as exc:
                problems.append(
                    f"{target.name}({p.name}={label}) {exc}: a bad value must be refused up front"
                )
            except Exception as exc:  # noqa: BLE001 - the finding
                problems.append(
                    f"{target.name}({p.name}={label}) raised {type(exc).__name__}: {str(exc)[:160]}"
                )
            except SystemExit as exc:
                said = stderr.getvalue()
                if not _names_in_exit(exc, said, p.name, bad, valid):
                    problems.append(
                        f"{target.name}({p.name}={label}) raised SystemExit({exc.code}) "
                        f"without naming the option or value: {said.strip()[-160:]!r}"
                    )
            except BaseException as exc:  # noqa: BLE001 - KeyboardInterrupt and the like
                problems.append(
                    f"{target.name}({p.name}={label}) raised {type(exc).__name__}: a bad value "
                    "must be refused, never end the process"
                )
            else:
                if not _accepted(target, p.name, label):
                    problems.append(
                        f"{target.name}({p.name}={label}) returned a result: validate {p.name} "
                        "(fairlib._validate), or list the value in ACCEPTED with the reason "
                        "it is valid"
                    )
    del bound_names
    return problems


@pytest.mark.parametrize(
    "target",
    [t for t in TARGETS if not t.exempt],
    ids=lambda t: t.name,
)
def test_contract(target, prober):
    try:
        problems = prober.call(_probe_in_child, target.name, guard=_BASELINE_GUARD + _PROBE_GUARD)
    except _ProbeLost as exc:
        pytest.fail(f"{target.name}: {exc}; run probe() on it in a debugger to see which bad value")
    if problems is None:
        pytest.fail(
            f"{target.name}: no valid baseline (see "
            "test_every_public_callable_has_a_valid_baseline)"
        )
    assert not problems, f"{len(problems)} bad value(s) not refused by name:\n  " + "\n  ".join(
        problems
    )


def test_other_baselines_name_probed_callables():
    probed = {t.name for t in TARGETS if not t.exempt}
    assert set(OTHER_BASELINES) <= probed, set(OTHER_BASELINES) - probed


def test_exemptions_name_public_callables():
    names = [t.name for t in TARGETS]
    for (f, p, lab), why in ACCEPTED.items():
        assert why and any(fnmatch.fnmatchcase(n, f) for n in names), (f, p, lab)


# --- hypothesis: arbitrary scalars ----------------------------------------------------------------

#: any scalar a user could pass for a numeric argument. Integers are drawn within ±1000: a size
#: (users, servers, hours) of 10**12 is a request the machine cannot serve, not nonsense to refuse,
#: and the deterministic battery already tries the huge ones (10**20, 10**400) where they are
#: nonsense
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-1000, 1000),
    st.floats(allow_nan=True, allow_infinity=True),
    st.complex_numbers(),
    st.text(max_size=3),
)
#: seconds one hypothesis call may run in the probing process before it is discarded as slow (not
#: judged: a slow machine is not a raw error; hangs are the deterministic probes' concern)
SCALAR_SECONDS = 20
#: seconds before the parent stops a probing process still at one hypothesis call (compiled code,
#: which the alarm of SCALAR_SECONDS cannot stop); the baselines are found before the call, under
#: their own guard
SCALAR_GUARD = 3 * SCALAR_SECONDS


def _scalar_arguments(baselines) -> list[tuple[str, int, str]]:
    """(target, position, name) of every numeric argument of a probed callable with a baseline."""
    out = []
    for t in TARGETS:
        base = baselines.get(t.name)
        if t.exempt or base is None:
            continue
        args, kwargs = base
        for i, p in enumerate(_signature(t)):
            valid = args[i] if i < len(args) else kwargs.get(p.name, p.default)
            if (
                isinstance(valid, (int, float, np.integer, np.floating))
                and not isinstance(valid, bool)
                and p.name not in ("rng", "seed")
            ):
                out.append((t.name, i, p.name))
    return out


def _scalar_arguments_in_child() -> list[tuple[str, int, str]]:
    return _scalar_arguments(_child_baselines())


def _baselines_in_child() -> int:
    """How many baselines the probing process holds (found on first use)."""
    return len(_child_baselines())


def _call_with_scalar_in_child(name: str, i: int, pname: str, value):
    """Target ``name``'s baseline call with argument ``i`` (``pname``) replaced by ``value``, in the
    probing process: ("ok", ""), ("named", message) for a documented error, ("raw", type and
    message) or ("slow", "")."""
    target = next(t for t in TARGETS if t.name == name)
    args, kwargs = _child_baselines()[name]
    args, kwargs = list(args), dict(kwargs)
    if i < len(args):
        args[i] = value
    else:
        kwargs[pname] = value
    deadline = _deadline(SCALAR_SECONDS)
    try:
        with warnings.catch_warnings(), deadline, np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            _invoke(target, tuple(args), kwargs)
    except _Timeout:
        return "slow", ""
    except (SystemExit, KeyboardInterrupt) as exc:  # a raw exit; the probing process goes on
        return "raw", f"{type(exc).__name__}: {exc}"
    except Exception as exc:  # noqa: BLE001 - the finding
        if deadline.fired:
            # the deadline's exception, caught and reported as another: a sweep records a cell's
            # exception and raises SweepError after its other cells
            return "slow", ""
        if isinstance(exc, _documented_errors(target)):
            return "named", str(exc)
        return "raw", f"{type(exc).__name__}: {str(exc)[:200]}"
    return "ok", ""


@pytest.fixture(scope="module")
def scalar_arguments(prober):
    return prober.call(_scalar_arguments_in_child, guard=_BASELINE_GUARD)


#: examples drawn per numeric argument of a callable (each callable's budget: this times its numeric
#: arguments)
SCALAR_EXAMPLES_PER_ARGUMENT = 5


def _scalar_seed(name: str) -> int:
    """A stable seed for the draws of callable ``name``: its qualified name's SHA-256, so the same
    in every process and whichever other callables exist."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big")


def _scalar_test(scalar_arguments, name: str, check, *, seeded: bool | None = None):
    """A hypothesis test over the numeric arguments of callable ``name`` alone (the entries of
    ``scalar_arguments`` for it, in signature order): each example draws one argument and one of
    :data:`SCALARS` and calls ``check(name, position, argument, value)``. Seeded from the name
    (:func:`_scalar_seed`) when ``seeded``, by default when the active hypothesis profile
    derandomises: the draws then depend on this callable's arguments only, not on which other
    callables the registry holds or in which order. None when it has no numeric argument."""
    arguments = [a for a in scalar_arguments if a[0] == name]
    if not arguments:
        return None
    budget = SCALAR_EXAMPLES_PER_ARGUMENT * len(arguments)

    @settings(
        max_examples=budget, deadline=None, database=None, suppress_health_check=list(HealthCheck)
    )
    @given(data=st.data())
    def run(data):
        _, i, pname = data.draw(st.sampled_from(arguments))
        check(name, i, pname, data.draw(SCALARS))

    if settings.default.derandomize if seeded is None else seeded:
        run = seed(_scalar_seed(name))(run)
    return run


#: every callable the contract probes (known gaps are expected failures of test_contract); one whose
#: baseline has no numeric argument passes with nothing to draw
SCALAR_TARGETS = [t.name for t in TARGETS if not t.exempt]


@pytest.mark.parametrize("name", SCALAR_TARGETS)
def test_scalars_from_hypothesis_never_raise_raw_errors(name, scalar_arguments, prober):
    """Any scalar for a numeric argument: a result, or a named refusal — never a raw Python or
    NumPy error, never a crash. Each call runs in the probing process (its memory capped), so a
    value that makes a kernel abort fails this test alone; a call still running after
    :data:`SCALAR_SECONDS` (compiled code: :data:`SCALAR_GUARD`) is discarded. One test per
    callable, its draws its own (:func:`_scalar_test`)."""

    def check(name, i, pname, value):
        try:
            prober.call(
                _baselines_in_child, guard=_BASELINE_GUARD
            )  # a new process finds them first
            outcome, message = prober.call(
                _call_with_scalar_in_child, name, i, pname, value, guard=SCALAR_GUARD
            )
        except _ProbeLost as exc:
            assume("still running" not in str(exc))
            raise AssertionError(
                f"{name}({pname}={value!r}) ended the probing process: {exc}"
            ) from None
        assume(outcome != "slow")
        assert outcome != "raw", f"{name}({pname}={value!r}) raised {message}"
        if outcome == "named":
            assert pname in message or any(t in message for t in _value_texts(value)), (
                name,
                pname,
                message,
            )

    run = _scalar_test(scalar_arguments, name, check)
    if run is not None:
        run()


def test_scalar_draws_of_a_callable_do_not_depend_on_the_others():
    """Adding a public function (or reordering the registry) leaves another callable's draws as they
    were; the draws are the same on every run, and two callables draw from streams of their own."""

    def draws(registry, name):
        drawn = []
        _scalar_test(registry, name, lambda *call: drawn.append(repr(call)), seeded=True)()
        return drawn

    google = "fairlib.traces.synthetic_google"
    registry = [
        (google, 2, "hours"),
        (google, 7, "machine_scale"),
        ("fairlib.multires.psmfa", 1, "alpha"),
    ]
    grown = [
        ("fairlib.multires.added_later", 0, "size"),
        *registry[:2],
        ("fairlib.traces.added_later", 1, "n"),
        *registry[2:],
    ]
    before = draws(registry, google)
    assert len(before) == 2 * SCALAR_EXAMPLES_PER_ARGUMENT
    assert draws(grown, google) == before
    assert draws(registry[2:] + registry[:2], google) == before
    assert draws(registry, google) == before
    assert draws(grown, "fairlib.multires.psmfa") == draws(registry, "fairlib.multires.psmfa")
    renamed = [("fairlib.traces.other", i, p) for _, i, p in registry[:2]]
    assert draws(renamed, "fairlib.traces.other") != [
        d.replace("synthetic_google", "other") for d in before
    ]
    assert _scalar_test(registry, "fairlib.market.no_numeric_argument", None) is None


# --- values ACCEPTED for their scale, checked against what they must answer -----------------------


def test_a_tiny_eligibility_fraction_leaves_each_user_one_server():
    from fairlib.multires import random_cluster

    cluster = random_cluster(1, 6, 4, eligible_fraction=1e-300)
    assert cluster.eligible.sum(axis=1).tolist() == [1] * 6


def test_a_tiny_slack_is_no_slack():
    from fairlib.multires import random_cluster, utilisation_range

    cluster, totals = random_cluster(3, 4, 3), np.full(4, 0.5)
    exact = utilisation_range(cluster, totals, [0, 1, 2], 0, slack=0.0)
    tiny = utilisation_range(cluster, totals, [0, 1, 2], 0, slack=1e-300)
    assert all(np.array_equal(a, b) for a, b in zip(exact, tiny))


def test_a_tiny_eps_is_the_worked_examples_small_demand():
    from fairlib.dynamic import maxmin_tight_example, maxsum_counterexample

    m, eps = 3, 1e-300
    unit = np.full((m, m), eps) + np.diag(np.full(m, 1.0 - eps))
    assert np.array_equal(maxsum_counterexample(m, eps), np.vstack([unit, np.ones((1, m))]))
    assert (maxmin_tight_example(m, eps) > 0).all()


class _Model:
    """A stand-in for a new model's type, for the harness test below."""

    def __init__(self, size: int):
        self.size = size

    def scaled(self, factor: float) -> float:
        """The size times ``factor``.

        >>> _Model(3).scaled(2.0)
        6.0
        """
        return self.size * factor


def test_a_methods_doctest_gives_its_baseline_on_the_instance_it_was_called_on():
    """A new model's method documented as ``Model(...).method(...)`` is probed from that call (the
    scaffolded models are not among the contract's shared instances)."""
    target = Target("tests.test_api_contract._Model.scaled", _Model.scaled, _Model, "scaled")
    assert _doctest_method_call(target) == ((2.0,), {})
    assert isinstance(target.instance, _Model) and target.instance.size == 3
    assert _Model.__dict__["scaled"] is _Model.scaled  # the class is left as it was
