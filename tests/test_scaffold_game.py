"""python -m fairlib.repro.scaffold mechanism NAME --game (a game on the bidding game's model) and
``--new-model MODEL`` (a game on a model of its own) in a copy of this checkout: the new game
imports, registers, is clean (ruff format and check, the import graph) and passes its differential
test, its doctests, its numpydoc docstrings, every registry-wide game test and the API contract, as
``make test-paper`` runs them for the paper it was added to."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fairlib.repro import scaffold
from fairlib.paths import ROOT
from tests.test_import_graph import cycles, import_graph

# names no contributor would choose; a name of the longest length allowed (24) also checks the
# generated files against ruff's line length
KEY, DRIVER, GAME = "scaffoldgame2024", "scaffold_game_driver", "scaffold_check_game_mech"
# a game on a model of its own: its name of the longest length allowed, and its model's class
MODEL_GAME, MODEL = "scaffold_check_model_gam", "ScaffoldCheckTradingPost"
PAPER = scaffold.paper_from_options(
    "Doe, Jane; Roe, Richard",
    "A budgeted bidding game",
    2024,
    "article",
    "arXiv preprint",
    "https://arxiv.org/abs/2401.00002",
    "arXiv:2401.00002",
)
_SKIP = shutil.ignore_patterns(
    ".venv", "build", ".git", "__pycache__", ".hypothesis", ".pytest_cache", "*.egg-info"
)


@pytest.fixture
def checkout(tmp_path):
    """A copy of this checkout (sources, notebooks, docs, results)."""
    copy = tmp_path / "checkout"
    shutil.copytree(ROOT, copy, ignore=_SKIP, symlinks=True)
    return copy


def _run(args, cwd, timeout=1800):
    env = {**os.environ, "FAIRLIB_BUILD_DIR": str(Path(cwd) / "build"), "PYTHONPATH": str(cwd)}
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)


def _fill_placeholders(checkout: Path, name: str) -> None:
    """Stand in for the contributor: every ``TODO(scaffold):`` mark of game ``name``'s module and
    reference is replaced (a comment line dropped, the References entry's mark removed), the
    placeholder rule kept."""
    for rel in (f"fairlib/market/{name}.py", "tests/reference.py"):
        path = checkout / rel
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        kept = [
            line.replace("TODO(scaffold): ", "")
            for line in lines
            if not line.lstrip().startswith("# TODO(scaffold):")
        ]
        path.write_text("".join(kept), encoding="utf-8")


def _colours(checkout: Path) -> dict[str, str]:
    """{name: colour} of every registered mechanism and game of ``checkout``."""
    run = _run(
        [
            sys.executable,
            "-c",
            "from fairlib import games, mechanisms; print(*[m.name + ' ' + m.color.lower() "
            "for m in mechanisms.select() + games.select()], sep='\\n')",
        ],
        checkout,
    )
    return dict(line.split() for line in run.stdout.splitlines())


def test_a_scaffolded_game_imports_registers_and_passes_its_tests(checkout):
    scaffold.scaffold_paper(KEY, PAPER, DRIVER, root=checkout)
    written = scaffold.scaffold_mechanism(
        GAME, "game", paper=KEY, label="budgeted bids", root=checkout
    )
    assert set(written) == {
        f"fairlib/market/{GAME}.py",
        "fairlib/market/__init__.py",
        "fairlib/games.py",
        "tests/reference.py",
        f"tests/test_{GAME}.py",
        "fairlib/repro/catalog.py",
    }
    for lint in (["format", "--check"], ["check"]):
        run = _run(
            [sys.executable, "-m", "ruff", *lint, "fairlib", "tests", "run_all.py"], checkout
        )
        assert run.returncode == 0, run.stdout[-3000:]
    assert not cycles(import_graph(checkout))
    registered = _run(
        [
            sys.executable,
            "-c",
            f"from fairlib import games, market; g = games.get({GAME!r}); "
            f"print(g.label, sorted(g.capabilities), g.function is market.{GAME})",
        ],
        checkout,
    )
    assert (
        registered.stdout.split("\n")[0]
        == "budgeted bids ['budgets', 'parallelism', 'reserve'] True"
    ), registered.stderr[-2000:]
    catalog = _run([sys.executable, "-m", "fairlib.repro.catalog", "--mechanisms", KEY], checkout)
    assert catalog.stdout.strip() == GAME
    modules = _run([sys.executable, "-m", "fairlib.repro.catalog", "--modules", KEY], checkout)
    assert modules.stdout.split() == [
        f"fairlib/repro/experiments/{DRIVER}.py",
        f"fairlib/market/{GAME}.py",
    ]
    tests = _run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            "-q",
            f"tests/test_{GAME}.py",
            f"fairlib/market/{GAME}.py",
        ],
        checkout,
    )
    # the placeholder rule passes every test but the one that names what the contributor replaces
    assert tests.returncode == 1 and "1 failed" in tests.stdout, tests.stdout[-4000:]
    assert "test_the_scaffold_placeholders_are_replaced" in tests.stdout
    for left in (
        f"fairlib/market/{GAME}.py:",
        "the paper's rule in place of the placeholder",
        "the paper whose rule this implements",
        "tests/reference.py:",
        "the paper's rule, computed another way than the kernel",
    ):
        assert left in tests.stdout, left
    _fill_placeholders(checkout, GAME)
    tests = _run(tests.args, checkout)
    assert tests.returncode == 0, tests.stdout[-4000:] + tests.stderr[-2000:]
    # a colour of the house palette that no other mechanism or game has
    colours = _colours(checkout)
    others = {c for n, c in colours.items() if n != GAME}
    free = [c.lower() for c in scaffold._house_colors() if c.lower() not in others]
    assert colours[GAME] == free[0] and colours[GAME] != "#000000"
    # what make test-paper runs on the mechanisms and games a paper introduces (the Makefile's
    # test-paper target)
    mechs = catalog.stdout.strip()
    registry = _run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            "-o",
            "addopts=-ra --strict-markers",
            "-q",
            "-m",
            "registry or games",
            "-k",
            mechs,
            "tests",
        ],
        checkout,
    )
    assert registry.returncode == 0 and " passed" in registry.stdout, registry.stdout[-4000:]
    assert (
        "check_game_is_feasible_on_small_random_games"
        in _run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-p",
                "no:cacheprovider",
                "-p",
                "no:xdist",
                "-o",
                "addopts=--strict-markers",
                "-q",
                "--collect-only",
                "-m",
                "registry or games",
                "-k",
                mechs,
                "tests",
            ],
            checkout,
        ).stdout
    )
    contract_modules = " ".join(modules.stdout.split())
    contract = _run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            "-o",
            "addopts=-ra --strict-markers",
            "-q",
            "tests/test_api_contract.py",
            "tests/test_docstrings.py",
            "--contract-modules",
            contract_modules,
        ],
        checkout,
    )
    assert contract.returncode == 0 and " passed" in contract.stdout, contract.stdout[-4000:]
    assert (
        f"fairlib.market.{GAME}"
        in _run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-p",
                "no:cacheprovider",
                "-p",
                "no:xdist",
                "-o",
                "addopts=--strict-markers",
                "-q",
                "--collect-only",
                "tests/test_api_contract.py",
                "--contract-modules",
                contract_modules,
            ],
            checkout,
        ).stdout
    )


def test_a_game_name_taken_is_refused_and_nothing_is_written(checkout):
    before = {
        str(p.relative_to(checkout)): p.read_bytes() for p in checkout.rglob("*") if p.is_file()
    }
    for name, message in (
        ("proportional_share", "already a public name"),
        ("drf", "already a public name"),
        ("weight_proportional", "already (registered in fairlib/games.py|a public name)"),
    ):
        with pytest.raises(scaffold.ScaffoldError, match=message):
            scaffold.scaffold_mechanism(name, "game", root=checkout)
    with pytest.raises(scaffold.ScaffoldError, match="'game'"):
        scaffold.scaffold_mechanism(GAME, "auction", root=checkout)
    assert {
        str(p.relative_to(checkout)): p.read_bytes() for p in checkout.rglob("*") if p.is_file()
    } == before


def test_the_command_line_scaffolds_a_game(checkout):
    run = _run(
        [
            sys.executable,
            "-m",
            "fairlib.repro.scaffold",
            "--root",
            str(checkout),
            "mechanism",
            GAME,
            "--game",
        ],
        checkout,
    )
    assert run.returncode == 0, run.stderr
    assert f"fairlib/market/{GAME}.py" in run.stdout and f"pytest -m games -k {GAME}" in run.stdout
    both = _run(
        [
            sys.executable,
            "-m",
            "fairlib.repro.scaffold",
            "--root",
            str(checkout),
            "mechanism",
            "other",
            "--game",
            "--pooled",
        ],
        checkout,
    )
    assert both.returncode == 2 and "not allowed with argument" in both.stderr


def _collected(checkout: Path, *args: str) -> list[str]:
    run = _run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            "-o",
            "addopts=--strict-markers",
            "-q",
            "--collect-only",
            *args,
        ],
        checkout,
    )
    assert run.returncode in (0, 5), run.stdout[-3000:] + run.stderr[-2000:]
    return [line.strip() for line in run.stdout.splitlines() if "::" in line]


@pytest.mark.parametrize(
    "kinds",
    [(), ("pooled",), ("multi_server",), ("game",), ("model",)],
    ids=["reuse", "pooled", "multi_server", "game", "model"],
)
def test_the_paper_loop_covers_every_test_the_new_paper_adds_to_the_suite(checkout, kinds):
    """``make test-paper`` predicts ``make test``: a paper of each kind (one reusing existing
    mechanisms, one with a pooled or multi-server mechanism, one with a game, one with a game on a
    model of its own) is scaffolded in a copy, and every test of the whole suite that names what the
    paper adds (its key, driver or mechanism, as test ids and doctests do) is one the loop runs: in
    a file it runs whole, a registry-wide test it runs for the paper's mechanisms, or the API
    contract and the docstring checks of the modules it adds."""
    scaffold.scaffold_paper(KEY, PAPER, DRIVER, root=checkout)
    names = [f"{kind}_{KEY}"[:24].rstrip("_") for kind in kinds]
    for kind, name in zip(kinds, names):
        model = "ScaffoldLoopModel" if kind == "model" else None
        scaffold.scaffold_mechanism(name, kind, paper=KEY, model=model, root=checkout)
    catalog = {
        opt: _run(
            [sys.executable, "-m", "fairlib.repro.catalog", f"--{opt}", KEY], checkout
        ).stdout.split()
        for opt in ("tests", "modules")
    }
    mechanisms = _run(
        [sys.executable, "-m", "fairlib.repro.catalog", "--mechanisms", KEY], checkout
    ).stdout.strip()
    assert mechanisms == " or ".join(names)
    new = [KEY, DRIVER, *names] + (["ScaffoldLoopModel"] if "model" in kinds else [])
    suite = _collected(checkout, "tests", "fairlib", "-k", " or ".join(new))
    assert suite, "the suite has no test of the new paper"
    in_files = set(catalog["tests"]) | set(catalog["modules"])
    loop_registry = (
        set(_collected(checkout, "-m", "registry or games", "-k", mechanisms, "tests"))
        if names
        else set()
    )
    loop_contract = set(  # the API contract and the docstrings of the modules it adds
        _collected(
            checkout,
            "tests/test_api_contract.py",
            "tests/test_docstrings.py",
            "--contract-modules",
            " ".join(catalog["modules"]),
        )
    )
    missed = [
        i
        for i in suite
        if i.split("::")[0] not in in_files and i not in loop_registry | loop_contract
    ]
    assert not missed, (
        f"tests of the new paper that make test runs and make test-paper does not: {missed[:10]}"
    )


def _pytest(checkout, *args: str):
    return _run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            "-o",
            "addopts=-ra --strict-markers",
            "-q",
            *args,
        ],
        checkout,
    )


def test_a_scaffolded_model_passes_what_make_test_paper_runs_on_it(checkout):
    """A game on a model of its own (``--new-model``): every file written within the house's 100
    characters without ``noqa`` (the catalogue's entries too), and what ``make test-paper`` runs on
    it green: ruff format and check, the import graph, its own tests, its doctests, the numpydoc
    docstrings and the API contract of its module (the instance type, the outcome type, the game and
    its kernel), and every registry-wide game test, the warm-up's among them."""
    scaffold.scaffold_paper(KEY, PAPER, DRIVER, root=checkout)
    written = scaffold.scaffold_mechanism(
        MODEL_GAME, "model", model=MODEL, paper=KEY, label="trading post", root=checkout
    )
    module = f"fairlib/market/{MODEL_GAME}.py"
    assert set(written) == {
        module,
        "fairlib/market/__init__.py",
        "fairlib/games.py",
        "tests/reference.py",
        f"tests/test_{MODEL_GAME}.py",
        "fairlib/repro/catalog.py",
    }
    for rel in (module, f"tests/test_{MODEL_GAME}.py"):
        text = (checkout / rel).read_text(encoding="utf-8")
        assert "noqa" not in text and max(map(len, text.splitlines())) <= 100, rel
    # the outcome type checks its fields like an input type: the API contract probes it, no
    # exemption
    assert "result_type" not in (checkout / module).read_text(encoding="utf-8")
    catalog_text = (checkout / "fairlib/repro/catalog.py").read_text(encoding="utf-8")
    notebooks, papers = scaffold._catalog_entries(catalog_text)
    for first, last in (notebooks[KEY][:2], papers[KEY]):
        entry = scaffold._lines(catalog_text, first, last)
        assert "noqa" not in entry and max(map(len, entry.splitlines())) <= 100, entry
    for lint in (["format", "--check"], ["check"]):
        run = _run(
            [sys.executable, "-m", "ruff", *lint, "fairlib", "tests", "benchmarks", "run_all.py"],
            checkout,
        )
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert not cycles(import_graph(checkout))
    registered = _run(
        [
            sys.executable,
            "-c",
            f"from fairlib import games, market; g = games.get({MODEL_GAME!r}); "
            f"print(g.label, sorted(g.capabilities), g.instance is market.{MODEL}, "
            f"g.function is market.{MODEL_GAME})",
        ],
        checkout,
    )
    assert registered.stdout.split("\n")[0] == "trading post ['reserve'] True True", (
        registered.stderr[-2000:]
    )
    modules = _run(
        [sys.executable, "-m", "fairlib.repro.catalog", "--modules", KEY], checkout
    ).stdout.split()
    assert modules == [f"fairlib/repro/experiments/{DRIVER}.py", module]
    own_tests = (
        "-rA",
        f"tests/test_{MODEL_GAME}.py",
        *modules,
        "tests/test_docstrings.py",
        "tests/test_api_contract.py",
        "--contract-modules",
        " ".join(modules),
    )
    own = _pytest(checkout, *own_tests)
    # every placeholder the contributor replaces is named: the model, its certificate, the rule, the
    # reference
    assert own.returncode == 1 and "1 failed" in own.stdout, own.stdout[-5000:]
    for left in (
        "the paper's fields and their checks",
        "the model's certificate",
        "the paper's rule in place of the placeholder",
        "the paper whose rule this implements",
        "the paper's rule, computed another way than the kernel",
    ):
        assert left in own.stdout, left
    _fill_placeholders(checkout, MODEL_GAME)
    own = _pytest(checkout, *own_tests)
    assert own.returncode == 0, own.stdout[-5000:] + own.stderr[-2000:]
    for probed in (
        f"test_public_callable_docstring[fairlib.market.{MODEL_GAME}.{MODEL}]",
        f"test_public_callable_docstring[fairlib.market.{MODEL_GAME}.{MODEL}Outcome]",
        f"test_public_callable_docstring[fairlib.market.{MODEL_GAME}.{MODEL}.from_weights]",
        f"test_kernel_documents_its_arguments[fairlib.market.{MODEL_GAME}._{MODEL_GAME}_kernel]",
        f"test_registered_callable_cites_its_source[game {MODEL_GAME}]",
        f"fairlib.market.{MODEL_GAME}.{MODEL}]",
        f"fairlib.market.{MODEL_GAME}.{MODEL}Outcome]",
        f"fairlib.market.{MODEL_GAME}.{MODEL_GAME}]",
    ):
        assert probed in own.stdout, probed
    registry = _pytest(checkout, "-m", "registry or games", "-k", MODEL_GAME, "tests")
    assert registry.returncode == 0 and " passed" in registry.stdout, registry.stdout[-4000:]


def test_the_command_line_scaffolds_a_model_and_refuses_a_bad_class_name(checkout):
    before = {
        str(p.relative_to(checkout)): p.read_bytes() for p in checkout.rglob("*") if p.is_file()
    }
    for model, message in (
        ("tradingPost", "CamelCase"),
        ("Trading_Post", "CamelCase"),
        ("Game", "Game is already a public name"),
    ):
        with pytest.raises(scaffold.ScaffoldError, match=message):
            scaffold.scaffold_mechanism(MODEL_GAME, "model", model=model, root=checkout)
    with pytest.raises(scaffold.ScaffoldError, match="--new-model"):
        scaffold.scaffold_mechanism(MODEL_GAME, "game", model=MODEL, root=checkout)
    with pytest.raises(scaffold.ScaffoldError, match="--new-model"):
        scaffold.scaffold_mechanism(MODEL_GAME, "model", root=checkout)
    assert {
        str(p.relative_to(checkout)): p.read_bytes() for p in checkout.rglob("*") if p.is_file()
    } == before
    run = _run(
        [
            sys.executable,
            "-m",
            "fairlib.repro.scaffold",
            "--root",
            str(checkout),
            "mechanism",
            MODEL_GAME,
            "--new-model",
            MODEL,
        ],
        checkout,
    )
    assert run.returncode == 0, run.stderr
    assert f"fairlib/market/{MODEL_GAME}.py" in run.stdout
    assert f"pytest -m games -k {MODEL_GAME}" in run.stdout and "TODO(scaffold)" in run.stdout
    both = _run(
        [
            sys.executable,
            "-m",
            "fairlib.repro.scaffold",
            "--root",
            str(checkout),
            "mechanism",
            "other",
            "--new-model",
            "Other",
            "--game",
        ],
        checkout,
    )
    assert both.returncode == 2 and "not allowed with argument" in both.stderr


def test_equilibrium_registers_the_capability_and_its_tolerance(checkout):
    """``--equilibrium TOL`` registers a game with the ``equilibrium`` capability and ``tol=TOL``,
    so the paper's registration needs no edit; the registry's equilibrium checks then hold the rule
    to it: the placeholder, which certifies nothing, fails them. A tolerance out of range, or one
    given to a mechanism on a ``Cluster``, is refused and nothing is written."""
    before = {
        str(p.relative_to(checkout)): p.read_bytes() for p in checkout.rglob("*") if p.is_file()
    }
    for kind, tol, message in (
        ("pooled", 1e-9, "only a game"),
        ("model", 0.5, "--equilibrium = 0.5"),
        ("model", float("nan"), "--equilibrium = nan"),
    ):
        with pytest.raises(scaffold.ScaffoldError, match=message):
            scaffold.scaffold_mechanism(
                MODEL_GAME,
                kind,
                model=MODEL if kind == "model" else None,
                equilibrium=tol,
                root=checkout,
            )
    assert {
        str(p.relative_to(checkout)): p.read_bytes() for p in checkout.rglob("*") if p.is_file()
    } == before
    scaffold.scaffold_mechanism(MODEL_GAME, "model", model=MODEL, equilibrium=1e-9, root=checkout)
    scaffold.scaffold_mechanism(GAME, "game", equilibrium=1e-8, root=checkout)
    registered = _run(
        [
            sys.executable,
            "-c",
            "from fairlib import games; "
            f"print(*[sorted(games.get(n).capabilities) + [games.get(n).tol] "
            f"for n in ({MODEL_GAME!r}, {GAME!r})], sep='\\n')",
        ],
        checkout,
    )
    assert registered.stdout.splitlines() == [
        "['equilibrium', 'reserve', 1e-09]",
        "['budgets', 'equilibrium', 'parallelism', 'reserve', 1e-08]",
    ], registered.stderr[-2000:]
    _fill_placeholders(checkout, MODEL_GAME)
    checks = _pytest(checkout, "-m", "games", "-k", f"{MODEL_GAME} and certifies", "tests")
    assert checks.returncode == 1 and "check_game_certifies_small_random_games" in checks.stdout, (
        checks.stdout[-4000:]
    )


def test_without_leaves_capabilities_the_rule_does_not_define_out_of_the_registration(
    checkout, capsys
):
    """``--without`` drops capabilities from a game's registration (so ``fairlib/games.py`` is not
    edited by hand); a name the kind does not register, a name given twice, or ``--without`` on a
    mechanism on a ``Cluster`` is refused by name and nothing is written."""
    before = {
        str(p.relative_to(checkout)): p.read_bytes() for p in checkout.rglob("*") if p.is_file()
    }
    for kind, without, message in (
        ("pooled", "reserve", "only a game"),
        ("game", "budgets,equilibrium", "'equilibrium' is not a capability"),
        ("model", "budgets", "'budgets' is not a capability"),
        ("game", "reserve,reserve", "twice"),
        ("game", 3, "capability names"),
        ("game", "", "a blank capability name"),  # --without '': not the same as leaving it out
        ("game", "reserve,", "a blank capability name"),
        ("game", ("reserve", " "), "a blank capability name"),
    ):
        with pytest.raises(scaffold.ScaffoldError, match=message):
            scaffold.scaffold_mechanism(
                GAME,
                kind,
                model=MODEL if kind == "model" else None,
                without=without,
                root=checkout,
            )
    assert {
        str(p.relative_to(checkout)): p.read_bytes() for p in checkout.rglob("*") if p.is_file()
    } == before
    # the command line: a blank value is refused naming the option, nothing written
    argv = ["--root", str(checkout), "mechanism", GAME, "--game", "--without", ""]
    assert scaffold.main(argv) == 2
    assert "--without = '': a blank capability name" in capsys.readouterr().err
    assert {
        str(p.relative_to(checkout)): p.read_bytes() for p in checkout.rglob("*") if p.is_file()
    } == before
    made = _run(
        [sys.executable, "-m", "fairlib.repro.scaffold", "--root", str(checkout), "mechanism"]
        + [GAME, "--game", "--without", "budgets, parallelism"],
        checkout,
    )
    assert made.returncode == 0, made.stderr[-2000:]
    scaffold.scaffold_mechanism(
        MODEL_GAME, "model", model=MODEL, without=("reserve",), root=checkout
    )
    registered = _run(
        [
            sys.executable,
            "-c",
            "from fairlib import games; "
            f"print(*[sorted(games.get(n).capabilities) for n in ({GAME!r}, {MODEL_GAME!r})], "
            "sep='\\n')",
        ],
        checkout,
    )
    assert registered.stdout.splitlines() == ["['reserve']", "[]"], registered.stderr[-2000:]
    # the paper's rule refuses what it was registered without: the game's own tests and the
    # repository's tests of every game must then build only games it accepts
    _fill_placeholders(checkout, GAME)
    module = checkout / "fairlib" / "market" / f"{GAME}.py"
    text = module.read_text(encoding="utf-8")
    check = '    as_instance(game, Game, "game")\n'
    assert text.count(check) == 1
    module.write_text(
        text.replace(
            check,
            check
            + "    if game.parallelism is not None or np.ptp(game.budgets) > 0:\n"
            + "        raise ValueError('finite parallelism and unequal budgets: not this rule')\n",
        ),
        encoding="utf-8",
    )
    suite = _pytest(
        checkout,
        f"tests/test_{GAME}.py",
        "tests/test_interpreted_kernels.py",
        "tests/test_games.py",
    )
    assert suite.returncode == 0, suite.stdout[-4000:] + suite.stderr[-2000:]
    marked = _pytest(checkout, "-m", "games", "-k", GAME, "tests")
    assert marked.returncode == 0, marked.stdout[-4000:] + marked.stderr[-2000:]
