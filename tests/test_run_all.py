"""run_all.py end to end on tiny fixture notebooks (quick mode, outputs in a temporary build
dir)."""

import json
import os
import re
import subprocess
import sys

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from fairlib.paths import ROOT


@pytest.fixture(autouse=True)
def _keep_the_workers_environment(monkeypatch):
    """run_all.main sets the variables its notebook kernels inherit (numba's threads, the sweeps'
    processes, where outputs go) in os.environ; a test that calls it in this process gets them back
    afterwards, or a later test's numba kernels would meet another thread count than the one they
    launched with."""
    for name in (
        "NUMBA_NUM_THREADS",
        "FAIRLIB_SWEEP_JOBS",
        "FAIRLIB_OUTPUT_DIR",
        "FAIRLIB_DASK_SCHEDULER",
        "FAIRLIB_SWEEP_CACHE",
        "FAIRLIB_BUILD_DIR",
    ):
        # setenv records the value to restore, absent included (delenv of an absent variable records
        # nothing)
        absent = name not in os.environ
        monkeypatch.setenv(name, os.environ.get(name, ""))
        if absent:
            monkeypatch.delenv(name)


pytestmark = pytest.mark.notebook


def _notebook(path, cells):
    nb = new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "fairlib",
        "display_name": "fairlib (.venv)",
        "language": "python",
    }
    params = new_code_cell('MODE = "full"\nSEED = 7')
    params.metadata["tags"] = ["parameters"]
    nb.cells = [params] + [new_code_cell(c) for c in cells]
    nbformat.write(nb, path)


def _registry(claim_id, rule):
    return (
        f"[[claim]]\nid = '{claim_id}'\nkind = 'paper'\nsource = 'fixture'\nstatement = "
        "'fixture claim'\n" + rule + "\n"
    )


QUICK_RULE = 'paper_value = "quick"\nequals = true'
SUM_RULE = "paper_value = 1.0\ntol = 1e-12"
WRONG_RULE = "paper_value = 1\nequals = true"
OK_CELLS = [
    "from fairlib.repro.report import ClaimLog, save_table\nimport pandas as pd",
    f"log = ClaimLog(KEY, mode=MODE, registry={_registry('mode_is_quick', QUICK_RULE)!r})\n"
    "log.measure('mode_is_quick', MODE)\n"
    "save_table(pd.DataFrame({'seed': [SEED]}), KEY, 'seed', mode=MODE)\nlog.finish()",
]


@pytest.fixture(scope="module")
def fixtures(tmp_path_factory):
    d = tmp_path_factory.mktemp("nbs")
    _notebook(d / "ok_a.ipynb", ["KEY = 'ok_a'"] + OK_CELLS)
    _notebook(d / "ok_b.ipynb", ["KEY = 'ok_b'"] + OK_CELLS)
    _notebook(d / "bad.ipynb", ["x = 1", "raise RuntimeError('deliberate failure')", "y = 2"])
    _notebook(d / "slow.ipynb", ["import time\ntime.sleep(20)"])
    _notebook(
        d / "sweeping.ipynb",
        [
            "import pandas as pd\nfrom fairlib.repro.report import save_table\nfrom "
            "fairlib.sweep import sweep\nfrom fairlib.repro.experiments.dynamic_drf import "
            "_strategyproofness_cell",
            "df = sweep(_strategyproofness_cell, [{}], seeds=4, rng=SEED, "
            "fixed=dict(agents=5, resources=2, "
            "trials=2))\nsave_table(df.assign(backend=df.attrs['sweep']['backend']), "
            "'sweeping', 'sweep', mode=MODE)",
        ],
    )
    _notebook(
        d / "verifiable.ipynb",
        [
            "from fairlib.repro.report import ClaimLog, save_table\nimport pandas as pd\n"
            "log = ClaimLog('verifiable', mode=MODE, "
            f"registry={_registry('third_sums_to_one', SUM_RULE)!r})\n"
            "log.measure('third_sums_to_one', 3 * (0.1 + 0.2) / 0.9)\n"
            "save_table(pd.DataFrame({'n': [1, 2], 'x': [0.1 + 0.2, 1 / 3]}), 'verifiable', 't',"
            " mode=MODE)\nlog.finish()"
        ],
    )
    _notebook(
        d / "traced.ipynb",
        [
            "import os\nfrom fairlib.repro.report import ClaimLog, save_table\nimport pandas "
            "as pd\n"
            "DATA = os.environ.get('FIXTURE_DATA', 'real')\n"
            "log = ClaimLog('traced', mode=MODE, data=DATA, "
            f"registry={_registry('third_sums_to_one', SUM_RULE)!r})\n"
            "log.measure('third_sums_to_one', 3 * (0.1 + 0.2) / "
            "0.9)\nsave_table(pd.DataFrame({'x': [1.0 if DATA == 'real' else 2.0]}), "
            "'traced', 't', mode=MODE)\nlog.finish()"
        ],
    )
    _notebook(
        d / "bad_claim.ipynb",
        [
            "import os\nfrom fairlib.repro.report import ClaimLog\n"
            f"log = ClaimLog('bad_claim', mode=MODE, registry={_registry('wrong', WRONG_RULE)!r})\n"
            "log.measure('wrong', int(os.environ.get('FIXTURE_VALUE', '2')))\nlog.finish()"
        ],
    )
    _notebook(
        d / "unmeasured.ipynb",
        [
            "from fairlib.repro.report import ClaimLog\n"
            "log = ClaimLog('unmeasured', mode=MODE, "
            f"registry={_registry('forgotten', 'at_least = 1')!r})"
            "\nlog.finish()"
        ],
    )
    _notebook(
        d / "flaky.ipynb",
        [
            "import os\nfrom fairlib.repro.report import ClaimLog\n"
            f"log = ClaimLog('flaky', mode=MODE, registry={_registry('one', SUM_RULE)!r})",
            "if os.environ.get('FIXTURE_FAIL') == '1':\n    raise RuntimeError('fails before "
            "its claims')",
            "log.measure('one', 1.0)\nlog.finish()",
        ],
    )
    _notebook(
        d / "truncated.ipynb",
        [
            "from fairlib import paths\nout = paths.results_dir('truncated', MODE)\n"
            "out.mkdir(parents=True, exist_ok=True)\n"
            "(out / 'claims.json').write_text('{\"summ')",
            "raise RuntimeError('dies after leaving half a ledger')",
        ],
    )
    registry = [
        # first: beside the failing 'bad' (taken from the queue's other end), it is still running
        # when 'bad' fails
        {"key": "slow", "path": str(d / "slow.ipynb"), "title": "sleeps 20 s"},
        {"key": "ok_a", "path": str(d / "ok_a.ipynb"), "title": "fixture a"},
        {
            "key": "truncated",
            "path": str(d / "truncated.ipynb"),
            "title": "leaves a truncated claims.json, fails",
        },
        {
            "key": "flaky",
            "path": str(d / "flaky.ipynb"),
            "title": "fails before its claims when FIXTURE_FAIL=1",
        },
        {"key": "ok_b", "path": str(d / "ok_b.ipynb"), "title": "fixture b"},
        {"key": "bad", "path": str(d / "bad.ipynb"), "title": "fails in cell 2"},
        {
            "key": "bad_claim",
            "path": str(d / "bad_claim.ipynb"),
            "title": "a claim fails (FIXTURE_VALUE=1: holds)",
        },
        {
            "key": "unmeasured",
            "path": str(d / "unmeasured.ipynb"),
            "title": "a declared claim is not measured",
        },
        {
            "key": "verifiable",
            "path": str(d / "verifiable.ipynb"),
            "title": "a table and a claim to verify",
        },
        {"key": "sweeping", "path": str(d / "sweeping.ipynb"), "title": "runs a sweep"},
        {
            "key": "traced",
            "path": str(d / "traced.ipynb"),
            "title": "reads real data (FIXTURE_DATA=synthetic: not)",
        },
        {
            "key": "template",
            "path": str(ROOT / "notebooks" / "_template.ipynb"),
            "title": "the template",
        },
    ]
    reg = d / "registry.json"
    reg.write_text(json.dumps(registry))
    return reg


def run(args, build, **env_vars):
    env = dict(os.environ, FAIRLIB_BUILD_DIR=str(build), **env_vars)
    return subprocess.run(
        [sys.executable, str(ROOT / "run_all.py"), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=600,
    )


def test_success_writes_outputs_table_and_manifest(fixtures, tmp_path):
    p = run(["--quick", "--registry", str(fixtures), "--only", "ok_a", "template"], tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "ok_a" in p.stdout and "1/1" in p.stdout
    assert (tmp_path / "executed" / "quick" / "ok_a.ipynb").is_file()
    assert (tmp_path / "quick" / "results" / "ok_a" / "seed.csv").read_text() == "seed\n7\n"
    assert (tmp_path / "quick" / "figures" / "template" / "fig1_example.png").is_file()
    manifest = json.loads((tmp_path / "run_manifest.json").read_text())
    assert manifest["mode"] == "quick" and manifest["versions"]["numpy"]
    assert [n["seed"] for n in manifest["notebooks"]] == [7, 20250101]
    claims = (tmp_path / "quick" / "results" / "claims.csv").read_text()
    assert "ok_a,,paper,mode_is_quick" in claims and "template,,paper,mean_near_half" in claims
    ledger = (tmp_path / "quick" / "results" / "CLAIMS.md").read_text()
    assert "| paper | 2 | 0 | 0 | 0 | 2 |" in ledger and "## ok_a" in ledger
    assert (
        '| paper | <a id="claim-mode_is_quick"></a>mode_is_quick | fixture | fixture claim | '
        "ours == paper | "
        "quick | quick | held (quick: provisional) |  |"
    ) in ledger
    assert (
        "Quick mode: every status here is provisional" in ledger
        and "1/1 (quick: provisional)" in p.stdout
    )


def test_a_quick_status_that_differs_from_the_committed_full_one_is_warned_about(
    fixtures, tmp_path
):
    committed = tmp_path / "committed"
    for key, claim_id in (("bad_claim", "wrong"), ("ok_a", "mode_is_quick")):
        (committed / key).mkdir(parents=True)
        (committed / key / "claims.json").write_text(
            json.dumps({"claims": [{"claim_id": claim_id, "status": "held"}]})
        )
    p = run(
        [
            "--quick",
            "--registry",
            str(fixtures),
            "--only",
            "bad_claim",
            "ok_a",
            "--committed-results",
            str(committed),
        ],
        tmp_path / "build",
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert (
        "WARNING: 1 quick-mode claim status(es) differ from the committed full-mode ledger"
        in p.stderr
    )
    assert "bad_claim/wrong: quick 'not reproduced', committed full 'held'" in p.stderr
    assert "ok_a/" not in p.stderr and "0/1 (1 not reproduced) (quick: provisional)" in p.stdout


def test_an_environment_reached_through_a_symlink_is_the_same_interpreter(tmp_path):
    sys.path.insert(0, str(ROOT))
    import run_all

    env = tmp_path / "real-venv"
    (env / "bin").mkdir(parents=True)
    (env / "bin" / "python3.11").write_text("")
    (env / "bin" / "python").symlink_to("python3.11")
    (tmp_path / "checkout").mkdir()
    (tmp_path / "checkout" / ".venv").symlink_to(env)
    linked = tmp_path / "checkout" / ".venv" / "bin" / "python"
    assert run_all.same_interpreter(str(linked), str(env / "bin" / "python"))
    assert run_all.same_interpreter(
        str(linked), str(env / "bin" / "python3.11")
    )  # python -> python3.11
    other = tmp_path / "other-venv" / "bin"
    other.mkdir(parents=True)
    (other / "python").symlink_to(
        env / "bin" / "python3.11"
    )  # another environment of the same base interpreter
    assert not run_all.same_interpreter(str(other / "python"), str(linked))


def test_failing_cell_is_named_and_exit_nonzero(fixtures, tmp_path):
    p = run(["--quick", "--registry", str(fixtures), "--only", "bad", "ok_a"], tmp_path)
    assert p.returncode == 1
    assert "FAILED bad" in p.stderr
    assert "cell 2" in p.stderr and "RuntimeError: deliberate failure" in p.stderr
    assert "ok_a" in p.stdout and "1/1" in p.stdout  # every notebook runs even when one fails
    stop = run(
        [
            "--quick",
            "--registry",
            str(fixtures),
            "--only",
            "bad",
            "ok_a",
            "--stop-on-failure",
            "--jobs",
            "1",
        ],
        tmp_path / "s",
    )
    assert stop.returncode == 1 and "skipped" in stop.stdout
    # side by side: the notebook running beside the failed one finishes, none starts after it
    both = run(
        [
            "--quick",
            "--registry",
            str(fixtures),
            "--only",
            "bad",
            "ok_a",
            "slow",
            "--stop-on-failure",
            "--jobs",
            "2",
        ],
        tmp_path / "p",
    )
    assert both.returncode == 1 and "FAILED bad" in both.stderr
    assert re.search(r"^ok_a\s+quick\s+-\s+skipped", both.stdout, flags=re.M)
    assert re.search(r"^slow\s+quick\s+-\s+ok", both.stdout, flags=re.M)


def test_not_reproduced_claim_is_reported_and_unmeasured_claim_fails(fixtures, tmp_path):
    p = run(
        ["--quick", "--registry", str(fixtures), "--only", "bad_claim", "unmeasured", "ok_a"],
        tmp_path,
    )
    assert p.returncode == 1
    assert (
        "bad_claim" in p.stdout and "0/1 (1 not reproduced)" in p.stdout
    )  # reported, not a failure
    assert "FAILED unmeasured" in p.stderr and "were not measured: forgotten" in p.stderr
    assert "ok_a" in p.stdout and "1/1" in p.stdout


def test_claim_that_stops_holding_fails_a_full_run_unless_accepted(fixtures, tmp_path):
    """The ledger a full run replaces is its baseline: held -> not reproduced fails, naming the
    claim."""
    out = dict(FAIRLIB_OUTPUT_DIR=str(tmp_path / "out"))
    first = run(
        ["--registry", str(fixtures), "--only", "bad_claim"], tmp_path, FIXTURE_VALUE="1", **out
    )
    assert first.returncode == 0, first.stdout + first.stderr
    ledger = tmp_path / "out" / "results" / "bad_claim" / "claims.json"
    assert json.loads(ledger.read_text())["claims"][0]["status"] == "held"
    broken = run(
        ["--registry", str(fixtures), "--only", "bad_claim"], tmp_path, FIXTURE_VALUE="2", **out
    )
    assert broken.returncode == 1
    assert "wrong: held -> not reproduced" in broken.stderr and "--accept-claims" in broken.stderr
    accepted = run(
        ["--registry", str(fixtures), "--only", "bad_claim", "--accept-claims"],
        tmp_path,
        FIXTURE_VALUE="2",
        **out,
    )
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert json.loads(ledger.read_text())["claims"][0]["status"] == "not reproduced"


def test_parallel_jobs(fixtures, tmp_path):
    p = run(
        ["--quick", "--registry", str(fixtures), "--only", "ok_a", "ok_b", "--jobs", "2"], tmp_path
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert "2 job(s)" in p.stdout
    for key in ("ok_a", "ok_b"):
        assert (tmp_path / "quick" / "results" / key / "claims.json").is_file()


def test_sweeps_go_to_the_dask_scheduler_given(fixtures, tmp_path):
    """--dask ADDRESS reaches the kernels' sweeps; the results equal a local run's."""
    from distributed import LocalCluster

    local = run(
        ["--quick", "--registry", str(fixtures), "--only", "sweeping", "--resume"],
        tmp_path / "local",
    )
    assert local.returncode == 0, local.stdout + local.stderr
    manifest = json.loads((tmp_path / "local" / "run_manifest.json").read_text())
    assert manifest["sweeps"]["cache"] is True and manifest["sweeps"]["dask_scheduler"] is None
    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    ) as cluster:
        p = run(
            [
                "--quick",
                "--registry",
                str(fixtures),
                "--only",
                "sweeping",
                "--dask",
                cluster.scheduler_address,
            ],
            tmp_path / "dask",
        )
    assert p.returncode == 0, p.stdout + p.stderr
    assert f"sweeps on {cluster.scheduler_address}" in p.stdout
    on_dask = (tmp_path / "dask" / "quick" / "results" / "sweeping" / "sweep.csv").read_text()
    on_local = (tmp_path / "local" / "quick" / "results" / "sweeping" / "sweep.csv").read_text()
    assert ",dask\n" in on_dask and on_dask.replace(",dask", "") == on_local.replace(
        ",loky", ""
    ).replace(",serial", "")
    bad = run(
        ["--only", "sweeping", "--registry", str(fixtures), "--dask", "localhost:8786"],
        tmp_path / "bad",
    )
    assert bad.returncode == 2 and "expected a Dask scheduler address" in bad.stderr


@pytest.mark.parametrize(
    "address, why",
    [
        ("tcp://", "no host"),
        ("tcp://host", "no port"),
        ("tcp://host:port", "port 'port' is not a number from 1 to 65535"),
        ("tcp://host:70000", "port '70000' is not a number from 1 to 65535"),
        ("", "not an address"),
    ],
)
def test_a_dask_address_without_a_host_or_a_valid_port_is_refused(capsys, address, why):
    """--dask is parsed as the sweeps parse FAIRLIB_DASK_SCHEDULER, before any notebook starts: a
    scheme alone ("tcp://") used to pass and fail later, in every notebook's sweeps."""
    sys.path.insert(0, str(ROOT))
    import run_all

    assert run_all.main(["--only", "li2019", "--dask", address]) == 2
    assert f"--dask = {address!r}: {why}" in capsys.readouterr().err


def test_unknown_key_lists_valid_ones(tmp_path):
    p = run(["--only", "nope"], tmp_path)
    assert p.returncode == 2
    assert "unknown notebook key(s): nope" in p.stderr and "valid keys:" in p.stderr


def test_list_shows_registry(tmp_path):
    p = run(["--list"], tmp_path)
    assert p.returncode == 0
    sys.path.insert(0, str(ROOT))
    import run_all

    for key, nb in run_all.REGISTRY.items():
        assert key in p.stdout and nb.path in p.stdout
        assert (ROOT / nb.path).is_file()


def test_verify_reports_identical_then_a_hand_edited_table_and_a_changed_claim(fixtures, tmp_path):
    """--verify re-runs into build/verify (never over the committed outputs) and compares table by
    table."""
    committed = tmp_path / "committed"
    env = dict(
        os.environ, FAIRLIB_BUILD_DIR=str(tmp_path / "b0"), FAIRLIB_OUTPUT_DIR=str(committed)
    )
    first = subprocess.run(
        [
            sys.executable,
            str(ROOT / "run_all.py"),
            "--registry",
            str(fixtures),
            "--only",
            "verifiable",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=600,
    )
    assert first.returncode == 0, first.stdout + first.stderr
    table = committed / "results" / "verifiable" / "t.csv"
    before = table.read_text()
    args = [
        "--verify",
        "--registry",
        str(fixtures),
        "--only",
        "verifiable",
        "--committed-results",
        str(committed / "results"),
    ]
    same = run(args, tmp_path / "b1")
    assert same.returncode == 0, same.stdout + same.stderr
    assert "t.csv: identical" in same.stdout and "all unchanged" in same.stdout
    assert (tmp_path / "b1" / "verify" / "results" / "verifiable" / "t.csv").read_text() == before
    assert table.read_text() == before  # the committed table was not touched

    table.write_text(
        before.replace("0.3333333333", "0.3333343")
    )  # one number edited by hand, 6th digit
    edited = run(args, tmp_path / "b2")
    assert edited.returncode == 1 and "DIFFERENCES FOUND" in edited.stdout
    assert (
        "t.csv: DIFFERS: row 1, column 'x': committed '0.3333343', fresh '0.3333333333'"
        in edited.stdout
    )
    table.write_text(before)
    claims = committed / "results" / "verifiable" / "claims.json"
    claims.write_text(claims.read_text().replace('"status": "held"', '"status": "not reproduced"'))
    changed = run(args, tmp_path / "b4")
    assert changed.returncode == 1
    assert "claim third_sums_to_one: 'not reproduced' -> 'held'" in changed.stdout
    assert run(["--verify", "--quick", "--only", "li2019"], tmp_path / "b5").returncode == 2


def test_a_notebook_failing_before_its_claims_shows_them_not_re_measured(fixtures, tmp_path):
    out = dict(FAIRLIB_OUTPUT_DIR=str(tmp_path / "out"))
    first = run(["--registry", str(fixtures), "--only", "flaky"], tmp_path, **out)
    assert first.returncode == 0, first.stdout + first.stderr
    ledger = (tmp_path / "out" / "results" / "CLAIMS.md").read_text()
    assert '<a id="claim-one"></a>one | fixture | fixture claim |' in ledger
    assert "| held |" in (tmp_path / "out" / "results" / "CLAIMS.md").read_text()
    failed = run(
        ["--registry", str(fixtures), "--only", "flaky"], tmp_path, FIXTURE_FAIL="1", **out
    )
    assert failed.returncode == 1 and "fails before its claims" in failed.stderr
    ledger = (tmp_path / "out" / "results" / "CLAIMS.md").read_text()
    row = next(line for line in ledger.splitlines() if "</a>one |" in line)
    assert (
        "| not re-measured |" in row
        and "| held |" not in row
        and "an earlier run had 'held'" in row
    )
    assert "| paper | 0 | 0 | 0 | 0 |" in ledger  # not counted under any status


def test_a_key_given_twice_is_refused_by_name(fixtures, tmp_path):
    """A repeated key is more likely a typo for another one than a wish to run it twice: refused,
    named."""
    p = run(
        ["--quick", "--registry", str(fixtures), "--only", "ok_a", "ok_b", "ok_a", "--jobs", "2"],
        tmp_path,
    )
    assert p.returncode == 2
    assert "--only: 'ok_a' is given twice (entries 0 and 2)" in p.stderr, p.stderr
    assert not (tmp_path / "executed").exists()  # nothing ran


def test_verify_without_the_real_data_says_could_not_verify_not_differs(fixtures, tmp_path):
    """Committed results from real data, a fresh run on synthetic stand-ins: "could not verify" with
    the fetch command and exit status 3, never "DIFFERENCES FOUND" (exit 1)."""
    committed = tmp_path / "committed"
    env = dict(
        os.environ, FAIRLIB_BUILD_DIR=str(tmp_path / "b0"), FAIRLIB_OUTPUT_DIR=str(committed)
    )
    first = subprocess.run(
        [sys.executable, str(ROOT / "run_all.py"), "--registry", str(fixtures), "--only", "traced"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=600,
    )
    assert first.returncode == 0, first.stdout + first.stderr
    args = [
        "--verify",
        "--registry",
        str(fixtures),
        "--only",
        "traced",
        "--committed-results",
        str(committed / "results"),
    ]
    real = run(args, tmp_path / "b1")
    assert real.returncode == 0, real.stdout + real.stderr
    assert "every committed table and claim status reproduced" in real.stdout
    stand_in = run(args, tmp_path / "b2", FIXTURE_DATA="synthetic")
    assert stand_in.returncode == 3, stand_in.stdout + stand_in.stderr
    assert "traced: COULD NOT VERIFY — could not verify" in stand_in.stdout
    assert "python -m fairlib.traces.fetch --notebooks" in stand_in.stdout
    assert "DIFFERENCES FOUND" not in stand_in.stdout
    assert "verify: could not verify traced: needs the real trace excerpts" in stand_in.stdout
    # a difference elsewhere (verifiable has no committed tables here: "new") still wins: exit 1,
    # both said
    both = run(args[:4] + ["verifiable"] + args[4:], tmp_path / "b3", FIXTURE_DATA="synthetic")
    assert both.returncode == 1, both.stdout + both.stderr
    assert (
        "verify: DIFFERENCES FOUND (and could not verify traced: needs the real trace excerpts)"
        in both.stdout
    )


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_truncated_ledger_fails_only_its_notebook(fixtures, tmp_path, jobs):
    p = run(
        [
            "--quick",
            "--registry",
            str(fixtures),
            "--only",
            "truncated",
            "ok_a",
            "--keep-going",
            "--jobs",
            jobs,
        ],
        tmp_path,
    )
    # the unreadable ledger is reported in one line, never as a traceback (a kernel's own log may
    # print one of its transport's under load: only a traceback about the ledger fails the test)
    before = p.stderr.split("FAILED truncated")[0]
    about_ledger = [
        block for block in _tracebacks(before) if "claims" in block or "JSONDecodeError" in block
    ]
    assert p.returncode == 1 and not about_ledger, before
    assert "FAILED truncated" in p.stderr and "unreadable claims ledger" in p.stderr
    assert "ok_a" in p.stdout and "1/1" in p.stdout  # the other notebook ran
    assert (tmp_path / "run_manifest.json").is_file() and (
        tmp_path / "quick" / "results" / "claims.csv"
    ).is_file()


def _tracebacks(text: str) -> list[str]:
    """Each Python traceback in ``text``: its header, the indented frames and the exception line
    after them."""
    blocks = []
    for start in (m.start() for m in re.finditer(r"Traceback \(most recent call last\):", text)):
        lines = text[start:].splitlines()
        end = 1
        while end < len(lines) and lines[end].startswith(" "):
            end += 1
        blocks.append("\n".join(lines[: end + 1]))
    return blocks


def test_tracebacks_are_found_with_their_exception_line():
    text = (
        'x\nTraceback (most recent call last):\n  File "a.py", line 1\n    f()\nValueError: '
        "claims\nafter\n"
    )
    assert _tracebacks(text) == [
        'Traceback (most recent call last):\n  File "a.py", line 1\n    f()\nValueError: claims'
    ]
    assert _tracebacks("no traceback here") == []


def test_kernels_talk_over_unix_sockets_each_with_its_own_files():
    """Over TCP, kernels started together by different processes can race for one port (a kernel
    that dies with "Address already in use"); run_all's kernels use IPC with a random socket prefix
    per kernel."""
    sys.path.insert(0, str(ROOT))
    import run_all

    manager = run_all._ipc_kernel_manager()
    first, second = manager(kernel_name="python3"), manager(kernel_name="python3")
    assert first.transport == second.transport == "ipc"
    assert first.ip != second.ip and len(first.ip) < 90


def test_a_progress_line_names_the_notebook_its_status_time_and_what_is_left():
    """One line per finished notebook; the estimate adds the last full run's durations of the
    notebooks not finished yet and divides by the jobs; a quick run counts them; a notebook never
    timed before is named."""
    sys.path.insert(0, str(ROOT))
    import run_all

    last = {"li2019": 297.0, "metin2025": 128.0, "khamseashari2018_traces": 3576.0}
    done = run_all.Outcome("li2019", "full", status="ok", wall_s=294.0)
    left = ["metin2025", "khamseashari2018_traces"]
    assert (
        run_all.progress_line(3, 6, done, left, last)
        == "[3/6] li2019 ok in 4.9 min — about 62 min left (from the last full run)"
    )
    assert (
        run_all.progress_line(3, 6, done, left, last, jobs=2)
        == "[3/6] li2019 ok in 4.9 min — about 31 min left (from the last full run)"
    )
    assert (
        run_all.progress_line(3, 6, done, ["metin2025", "new"], last)
        == "[3/6] li2019 ok in 4.9 min — about 2.1 min left (from the last full run; new not "
        "timed before)"
    )
    assert (
        run_all.progress_line(1, 2, done, ["new"], last)
        == "[1/2] li2019 ok in 4.9 min — 1 left, none of them timed in a full run before"
    )
    failed = run_all.Outcome("schedulers", "full", status="FAILED", wall_s=899.4)
    assert run_all.progress_line(6, 6, failed, [], last) == "[6/6] schedulers FAILED in 15 min"
    quick = run_all.Outcome("ok_a", "quick", status="ok", wall_s=3.2)
    assert (
        run_all.progress_line(1, 3, quick, ["ok_b", "bad"], last) == "[1/3] ok_a ok in 3 s — 2 left"
    )


def _executed_with_duration(path, seconds):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(
            {
                "metadata": {
                    "papermill": {"duration": seconds, "end_time": "2026-01-01T00:00:00+00:00"}
                },
                "cells": [],
            }
        )
    )


def test_a_full_run_prints_a_progress_line_per_notebook_from_the_last_runs_durations(
    tmp_path, monkeypatch, capsys
):
    """main's wiring, without executing anything: run_one is replaced by a stand-in that returns
    outcomes."""
    sys.path.insert(0, str(ROOT))
    import run_all

    out = tmp_path / "out"
    _executed_with_duration(out / "executed" / "a.ipynb", 300.0)
    _executed_with_duration(out / "executed" / "b.ipynb", 3700.0)
    registry = tmp_path / "registry.json"
    registry.write_text(
        json.dumps([{"key": k, "path": f"{k}.ipynb", "title": k} for k in ("a", "b")])
    )
    for name, value in (
        ("FAIRLIB_OUTPUT_DIR", str(out)),
        ("FAIRLIB_BUILD_DIR", str(tmp_path / "build")),
        ("NUMBA_NUM_THREADS", "1"),
        ("FAIRLIB_SWEEP_JOBS", "1"),
    ):
        monkeypatch.setenv(name, value)  # main sets some of them: restored after the test
    monkeypatch.setattr(run_all, "check_kernel", lambda: None)
    walls = {"a": 294.0, "b": 30.0}
    monkeypatch.setattr(
        run_all,
        "run_one",
        lambda nb, mode, *args: run_all.Outcome(nb.key, mode, status="ok", wall_s=walls[nb.key]),
    )
    assert run_all.main(["--registry", str(registry), "--jobs", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "[1/2] a ok in 4.9 min — about 62 min left (from the last full run)" in lines
    assert "[2/2] b ok in 30 s" in lines
    assert any(
        line.startswith("key") and "wall s" in line for line in lines
    )  # the final table is kept


def test_a_full_run_renders_what_quotes_its_notebooks_and_only_into_the_repository(
    monkeypatch, tmp_path
):
    """After a full run publishes into executed/, the full_run benchmark row and the README's and
    docs' rendered blocks are rendered again (so they are committed with the notebooks); with the
    outputs redirected, nothing is."""
    import run_all
    from fairlib import paths

    calls = []
    monkeypatch.setattr(
        run_all.subprocess,
        "run",
        lambda cmd, **kw: (
            calls.append(cmd[1:]) or run_all.subprocess.CompletedProcess(cmd, 0, "", "")
        ),
    )
    run_all.refresh_renderings()
    assert calls == [["-m", "benchmarks", "full_run"], ["-m", "fairlib.repro.landing"]]
    calls.clear()
    monkeypatch.setenv("FAIRLIB_OUTPUT_DIR", str(tmp_path))
    assert paths.executed_dir().resolve() != (paths.ROOT / "executed").resolve()
    run_all.refresh_renderings()
    assert calls == []


def test_notebooks_run_side_by_side_by_default_the_longest_first(monkeypatch, tmp_path, capsys):
    """A full run starts one notebook per core: one worker takes the longest notebook left (by the
    last full run), the other the shortest; each notebook's sweeps keep every core (oversubscribed
    on purpose) while numba's threads are split."""
    import os

    import run_all

    out = tmp_path / "out"
    for key, seconds in (("a", 60.0), ("b", 3000.0), ("c", 600.0)):
        _executed_with_duration(out / "executed" / f"{key}.ipynb", seconds)
    registry = tmp_path / "registry.json"
    registry.write_text(
        json.dumps([{"key": k, "path": f"{k}.ipynb", "title": k} for k in ("a", "b", "c")])
    )
    for name, value in (
        ("FAIRLIB_OUTPUT_DIR", str(out)),
        ("FAIRLIB_BUILD_DIR", str(tmp_path / "build")),
    ):
        monkeypatch.setenv(name, value)
    for name in ("NUMBA_NUM_THREADS", "FAIRLIB_SWEEP_JOBS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(run_all, "check_kernel", lambda: None)
    started = []

    def run_one(nb, mode, *args):  # long enough for both workers to have taken one
        started.append(nb.key)
        __import__("time").sleep(0.3)
        return run_all.Outcome(nb.key, mode, status="ok", wall_s=1.0)

    monkeypatch.setattr(run_all, "run_one", run_one)
    assert run_all.main(["--registry", str(registry)]) == 0
    assert (
        "3 notebook(s), full mode, 2 job(s); sweeps on 2 local process(es)"
        in capsys.readouterr().out
    )
    assert (
        set(started[:2]) == {"b", "a"} and started[2] == "c"
    )  # the longest and the shortest first
    assert run_all.side_by_side_order(
        ["a", "b", "c", "new"], {"a": 60.0, "b": 3000.0, "c": 600.0}
    ) == ["new", "b", "c", "a"]
    assert os.environ["NUMBA_NUM_THREADS"] == "1" and os.environ["FAIRLIB_SWEEP_JOBS"] == "2"
