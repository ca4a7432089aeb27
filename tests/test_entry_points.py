"""The command lines and the ``FAIRLIB_*`` environment variables are boundaries too.

Every command line given a bad argument (an unknown key, a negative count, a file where a directory
is meant, ...) exits with status 2 and a message naming the option. Every ``FAIRLIB_*`` variable the
code reads is parsed strictly: an unrecognised value is an error naming the variable. The variables
are enumerated from the source (``fairlib/``, ``run_all.py``, ``benchmarks/``, ``book/``), so a new
variable without a case in :data:`ENVIRONMENT` fails
:func:`test_every_environment_variable_has_a_case`.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: seconds before a command is reported as hanging (a guard, not a timing assertion: each refuses in
#: about a second of imports)
GUARD = 300


def _run(args, tmp_path, env=None, **kwargs):
    environ = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        # outputs of a command that wrongly starts work go to the test's folder, never the checkout
        "FAIRLIB_BUILD_DIR": str(tmp_path / "build"),
        "FAIRLIB_OUTPUT_DIR": str(tmp_path / "out"),
        **(env or {}),
    }
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=GUARD,
        **kwargs,
    )


def _a_file(tmp_path) -> str:
    path = tmp_path / "a_file.txt"
    path.write_text("not a directory\n")
    return str(path)


#: (command line, text the message must hold); ``{file}`` is an existing file, ``{dir}`` an existing
#: directory
COMMANDS = [
    (["run_all.py", "--only", "no_such_key"], "no_such_key"),
    (["run_all.py", "--only", "li2019", "li2019"], "--only"),
    # a blank key was reported as the unknown key '' ("unknown notebook key(s): ;")
    (["run_all.py", "--only", ""], "--only: '': blank, expected a notebook key"),
    # a number below the float range read as 0.0, and the message showed 0.0, not the text given
    (
        ["-m", "fairlib.repro.scaffold", "mechanism", "x", "--game", "--equilibrium", "1e-400"],
        "--equilibrium: '1e-400': below the float range",
    ),
    (["run_all.py", "--jobs", "-1"], "--jobs"),
    (["run_all.py", "--jobs", "x"], "--jobs"),
    (["run_all.py", "--sweep-jobs", "0"], "--sweep-jobs"),
    (["run_all.py", "--sweep-jobs", "100000"], "--sweep-jobs"),
    (["run_all.py", "--rtol", "nan"], "--rtol"),
    (["run_all.py", "--atol", "-1"], "--atol"),
    (["run_all.py", "--dask", "localhost"], "--dask"),
    (["run_all.py", "--verify", "--quick"], "--verify"),
    (["run_all.py", "--list", "--only", "no_such_key"], "--list"),
    (["run_all.py", "--list", "--jobs", "0"], "--list"),
    (["run_all.py", "--quick", "--rtol", "1e-3"], "--rtol"),
    (["run_all.py", "--quick", "--atol", "1e-3"], "--atol"),
    (["run_all.py", "--keep-going", "--stop-on-failure"], "--stop-on-failure"),
    (["run_all.py", "--no-such-option"], "--no-such-option"),
    (["run_all.py", "--registry", "{dir}"], "--registry"),
    (["run_all.py", "--registry", "{file}"], "--registry"),
    (["run_all.py", "--quick", "--committed-results", "{file}"], "--committed-results"),
    (["-m", "benchmarks", "no_such_benchmark"], "no_such_benchmark"),
    (["-m", "fairlib.repro.scaffold", "--remove", "no_such_key"], "no_such_key"),
    (["-m", "fairlib.repro.scaffold", "paper"], "KEY"),
    (["-m", "fairlib.repro.scaffold", "mechanism", "x"], "--pooled"),
    (["-m", "fairlib.repro.landing", "--no-such-option"], "--no-such-option"),
    (["-m", "fairlib.repro.catalog", "--tests", "no_such_key"], "no_such_key"),
    (["-m", "fairlib.repro.catalog", "--modules", "no_such_key"], "no_such_key"),
    (["-m", "fairlib.repro.warm", "--jobs", "-1"], "--jobs"),
    (["-m", "fairlib.repro.warm", "--jobs", "100000"], "--jobs"),
    (["-m", "fairlib.traces.fetch", "no_such_trace"], "name"),
    (["-m", "fairlib.traces.fetch", "google", "--dest", "{file}"], "dest"),
    (["-m", "fairlib.traces.fetch", "google", "--tables", "nope", "--dest", "{dir}"], "table"),
    (["-m", "fairlib.traces.fetch", "google", "--parts", "x"], "--parts"),
    # integers and numbers are written in ASCII digits (int() and float() read other scripts'
    # digits, float() "inf" and "nan"), and a tolerance is one verify accepts
    (["-m", "fairlib.traces.fetch", "google", "--parts", "\u0661"], "--parts"),
    (["-m", "fairlib.traces.fetch", "google", "--base-url", "not a url"], "--base-url"),
    (["-m", "fairlib.traces.fetch", "--notebooks", "--base-url", "ftp://host/x"], "--base-url"),
    (["-m", "fairlib.repro.warm", "--jobs", "\u0662"], "--jobs"),
    (["run_all.py", "--jobs", "+2"], "--jobs"),
    (["run_all.py", "--sweep-jobs", "\u0662"], "--sweep-jobs"),
    (["run_all.py", "--verify", "--rtol", "inf"], "--rtol"),
    (["run_all.py", "--verify", "--rtol", "1e400"], "--rtol"),
    (["run_all.py", "--verify", "--rtol", "10"], "--rtol"),
    (["run_all.py", "--verify", "--rtol", "1e-6", "--atol", "1e300"], "--atol"),
    (
        ["-m", "fairlib.repro.scaffold", "tolerance", "li2019", "--rtol", "inf", "--atol", "0"],
        "--rtol",
    ),
    (
        [
            "-m",
            "fairlib.repro.scaffold",
            "--root",
            "{dir}",
            "paper",
            "smith2024",
            "--authors",
            "Smith, J",
            "--title",
            "T",
            "--year",
            "\u0662\u0660\u0662\u0664",
            "--venue-kind",
            "article",
            "--venue",
            "J",
            "--url",
            "https://doi.org/10.1/x",
            "--driver",
            "topic_x",
        ],
        "--year",
    ),  # fmt: skip
    # --dest follows the FAIRLIB_TRACE_DIR rule: a blank, relative, "~" or space-ended directory
    # was created under the working directory (or as a folder named "~")
    (["-m", "fairlib.traces.fetch", "google", "--dest", ""], "--dest"),
    (["-m", "fairlib.traces.fetch", "google", "--dest", "~/x"], "--dest"),
    (["-m", "fairlib.traces.fetch", "google", "--dest", "rel"], "--dest"),
    (["-m", "fairlib.traces.fetch", "google", "--dest", "{dir} "], "--dest"),
    # an option the mode given would ignore, and an unknown name or table, are refused
    (["-m", "fairlib.traces.fetch", "google", "--notebooks"], "takes no name"),
    (["-m", "fairlib.traces.fetch", "--notebooks", "--tables", "task_events"], "--tables"),
    (["-m", "fairlib.traces.fetch", "--notebooks", "--parts", "3"], "--parts"),
    (["-m", "fairlib.traces.fetch", "--notebooks", "--dest", "{dir}"], "--dest"),
    (["-m", "fairlib.traces.fetch", "--notebooks", "--list"], "--list"),
    (["-m", "fairlib.traces.fetch", "--list", "--tables", "nosuch"], "--tables"),
    (["-m", "fairlib.traces.fetch", "GOOGLE", "--list"], "takes no name"),
    (["-m", "fairlib.traces.fetch", "GOOGLE"], "name = 'GOOGLE'"),
    (["-m", "fairlib.traces.fetch", "google", "--tables", "nosuch"], "'nosuch'"),
    # argparse took a prefix for the option and kept the last of a repeated one
    (["run_all.py", "--lis"], "--lis"),
    (["run_all.py", "--only", "li2019", "--only", "nosuchkey"], "--only"),
    (["-m", "benchmarks", "--lis"], "--lis"),
    (["-m", "benchmarks", "market", "market"], "'market'"),
    (["-m", "fairlib.repro.landing", "--chec"], "--chec"),
    (["-m", "fairlib.traces.fetch", "google", "--parts", "0", "--parts", "1"], "--parts"),
    # modes that exclude each other: one was printed and the other silently dropped
    (["-m", "fairlib.repro.catalog", "--tests", "feldman2005", "--modules", "li2019"], "--modules"),
    (
        ["-m", "fairlib.repro.catalog", "--mechanisms", "feldman2005", "--tests", "li2019"],
        "--tests",
    ),
    (
        ["-m", "fairlib.repro.catalog", "--modules", "li2019", "--mechanisms", "li2019"],
        "--mechanisms",
    ),
    (["book/build.py", "--stage-only", "--out", "{dir}"], "--out"),
    # an empty --remove key is a key (refused by name), not an absent option beside a sub-command
    (
        ["-m", "fairlib.repro.scaffold", "--root", "{dir}", "--remove", "", "tolerance", "li2019"]
        + ["--rtol", "1e-3", "--atol", "0", "--reason", "r"],
        "--remove",
    ),
    # options without the trace they are for: the list was printed with nothing on stderr
    (["-m", "fairlib.traces.fetch", "--tables", "task_events"], "NAME is missing"),
    (["-m", "fairlib.traces.fetch", "--dest", "{dir}"], "--dest needs a NAME"),
]


@pytest.mark.parametrize("argv,names", COMMANDS, ids=[" ".join(c[0]) for c in COMMANDS])
def test_a_bad_argument_exits_2_naming_the_option(argv, names, tmp_path):
    argv = [a.format(file=_a_file(tmp_path), dir=str(tmp_path)) for a in argv]
    done = _run(argv, tmp_path)
    assert done.returncode == 2, (done.returncode, done.stdout[-400:], done.stderr[-800:])
    assert names in done.stderr, done.stderr[-800:]
    assert "Traceback" not in done.stderr, done.stderr[-800:]


#: every command line -> the arguments that start it (a script's path, or ``-m`` and a module)
ENTRY_POINTS = {
    "run_all.py": ["run_all.py"],
    "book/build.py": ["book/build.py"],
    "benchmarks/__main__.py": ["-m", "benchmarks"],
    "fairlib/traces/fetch.py": ["-m", "fairlib.traces.fetch"],
    "fairlib/repro/landing.py": ["-m", "fairlib.repro.landing"],
    "fairlib/repro/warm.py": ["-m", "fairlib.repro.warm"],
    "fairlib/repro/executed.py": ["-m", "fairlib.repro.executed"],
    "fairlib/repro/catalog.py": ["-m", "fairlib.repro.catalog"],
    "fairlib/repro/scaffold.py": ["-m", "fairlib.repro.scaffold"],
}


def _entry_points_in_source() -> set[str]:
    """The files with a ``__main__`` block; the ``benchmarks/bench_*.py`` modules are started
    through ``python -m benchmarks NAME``, whose command line is the one entry point of the
    benchmarks."""
    files = [ROOT / "run_all.py"] + [
        f for d in ("fairlib", "benchmarks", "book") for f in (ROOT / d).rglob("*.py")
    ]
    return {
        str(f.relative_to(ROOT))
        for f in files
        if 'if __name__ == "__main__"' in f.read_text() and not f.name.startswith("bench_")
    }


def test_every_command_line_has_a_case():
    found = _entry_points_in_source()
    missing, stale = sorted(found - set(ENTRY_POINTS)), sorted(set(ENTRY_POINTS) - found)
    assert not missing, f"command lines with no case in ENTRY_POINTS: {missing}"
    assert not stale, f"ENTRY_POINTS names files with no __main__ block: {stale}"


@pytest.mark.parametrize("flag", ["--help", "-h"])
@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_help_prints_the_usage_and_exits_0(entry, flag, tmp_path):
    done = _run([*ENTRY_POINTS[entry], flag], tmp_path)
    assert done.returncode == 0, (done.returncode, done.stdout[-400:], done.stderr[-800:])
    assert done.stdout.startswith("usage:"), done.stdout[:400]
    assert not done.stderr.strip(), done.stderr[-800:]


#: every FAIRLIB_* variable -> (an unrecognised value, Python code that reads it); ``{file}`` is an
#: existing file
ENVIRONMENT = {
    "FAIRLIB_BUILD_DIR": ("{file}", "from fairlib import paths; paths.build_dir()"),
    "FAIRLIB_OUTPUT_DIR": ("{file}", "from fairlib import paths; paths.results_root()"),
    "FAIRLIB_TRACE_DIR": (
        "{dir}" + os.pathsep + "{file}",
        "from fairlib import paths; paths.trace_dirs()",
    ),
    "FAIRLIB_SHARED_TRACES": ("{file}", "import fairlib.paths"),
    "FAIRLIB_GAMES": ("no_such_module_for_games", "import fairlib.games"),
    "FAIRLIB_MECHANISMS": ("no_such_module_for_mechanisms", "import fairlib.mechanisms"),
    "FAIRLIB_INTERPRET_AT_MOST": ("many", "from fairlib.multires import drf"),
    "FAIRLIB_DASK_SCHEDULER": ("localhost", "from fairlib import sweep; sweep.default_backend()"),
    "FAIRLIB_SWEEP_JOBS": ("0", "from fairlib import sweep; sweep.default_backend()"),
    "FAIRLIB_SWEEP_CACHE": (
        "false",
        "from fairlib import sweep; "
        "sweep.sweep(lambda seed, x: {'y': x}, {'x': [1]}, backend='serial', progress=False)",
    ),
    "FAIRLIB_REPOSITORY_URL": ("github.com/x", "import book.build as b; b.repository_url()"),
}

#: the variables only the book's builder reads (its errors are book.build.BookError)
BOOK_VARIABLES = {"FAIRLIB_REPOSITORY_URL"}

#: more unrecognised values per variable, each refused the same way
MORE_VALUES = [
    ("FAIRLIB_SWEEP_JOBS", "many"),
    ("FAIRLIB_SWEEP_JOBS", "100000"),
    ("FAIRLIB_SWEEP_JOBS", "-2"),
    ("FAIRLIB_SWEEP_CACHE", "yes"),
    ("FAIRLIB_SWEEP_JOBS", " 2"),
    ("FAIRLIB_SWEEP_JOBS", "\u0661"),  # ARABIC-INDIC DIGIT ONE: a digit to int(), not to us
    ("FAIRLIB_INTERPRET_AT_MOST", "-1"),
    ("FAIRLIB_INTERPRET_AT_MOST", "\u0661"),
    ("FAIRLIB_DASK_SCHEDULER", "tcp://"),
    # a directory is an absolute path: blank, relative and "~" (which no shell expanded there)
    # values made the outputs depend on the working directory
    ("FAIRLIB_BUILD_DIR", " "),
    ("FAIRLIB_BUILD_DIR", "relative/dir"),
    ("FAIRLIB_BUILD_DIR", "~/fl"),
    ("FAIRLIB_BUILD_DIR", "{dir} "),  # a trailing space named another folder
    ("FAIRLIB_TRACE_DIR", "{dir}\t"),
    ("FAIRLIB_OUTPUT_DIR", " "),
    ("FAIRLIB_OUTPUT_DIR", "rel"),
    ("FAIRLIB_TRACE_DIR", " "),
    ("FAIRLIB_TRACE_DIR", "{dir}" + os.pathsep + "rel"),
    ("FAIRLIB_SHARED_TRACES", "~/traces"),
    # a plugin is a module's name: a file path raised importlib's TypeError naming neither
    ("FAIRLIB_MECHANISMS", "./plugin.py"),
    ("FAIRLIB_GAMES", "./plugin.py"),
    # a list's empty entry was dropped and a repeated directory searched twice, silently
    ("FAIRLIB_TRACE_DIR", "{dir}" + os.pathsep + os.pathsep + "/tmp"),
    ("FAIRLIB_TRACE_DIR", "{dir}" + os.pathsep),
    ("FAIRLIB_TRACE_DIR", os.pathsep + "{dir}"),
    ("FAIRLIB_TRACE_DIR", os.pathsep),
    ("FAIRLIB_TRACE_DIR", "{dir}" + os.pathsep + "{dir}"),
    ("FAIRLIB_TRACE_DIR", "{dir}" + os.pathsep + "{dir}/"),
    # repeats are compared resolved: "..", a doubled separator and a link name the same folder
    ("FAIRLIB_TRACE_DIR", "{dir}" + os.pathsep + "{dir}/sub/.."),
    ("FAIRLIB_TRACE_DIR", "{dir}" + os.pathsep + "/{dir}"),
    ("FAIRLIB_MECHANISMS", ","),
    ("FAIRLIB_MECHANISMS", " "),
    ("FAIRLIB_MECHANISMS", "json,,csv"),
    ("FAIRLIB_MECHANISMS", "nosuch.module"),
    ("FAIRLIB_GAMES", ","),
    ("FAIRLIB_GAMES", " "),
    ("FAIRLIB_GAMES", "json,"),
    ("FAIRLIB_GAMES", "nosuch.module"),
    ("FAIRLIB_INTERPRET_AT_MOST", "1e3"),
    ("FAIRLIB_INTERPRET_AT_MOST", " 5"),
    ("FAIRLIB_INTERPRET_AT_MOST", str(10**23)),
    # int() refuses over 4,300 digits (leading zeros counted) with a message naming no variable
    ("FAIRLIB_INTERPRET_AT_MOST", "0" * 5000 + "1"),
    ("FAIRLIB_SWEEP_JOBS", "0" * 5000 + "1"),
    # a directory variable takes what a path argument takes (path_text): no control character,
    # no part with whitespace at an end
    ("FAIRLIB_BUILD_DIR", "{dir}/a\x01b"),
    ("FAIRLIB_OUTPUT_DIR", "{dir}/a\x01b"),
    ("FAIRLIB_TRACE_DIR", "{dir}" + os.pathsep + "{dir}/a\x01b"),
    ("FAIRLIB_SHARED_TRACES", "{dir}/a\x01b"),
    ("FAIRLIB_BUILD_DIR", "{dir}/a /b"),
]

#: values a variable may well be given by mistake: each is accepted, or refused naming the variable
#: (never a bare error that leaves the reader to guess which setting is wrong)
ODD_VALUES = [" ", "./plugin.py", "~/x", "\u0661", "relative/dir"]


def _variables_in_source() -> set[str]:
    found = set()
    files = [ROOT / "run_all.py"] + [
        f for d in ("fairlib", "benchmarks", "book") for f in (ROOT / d).rglob("*.py")
    ]
    for path in files:
        found |= set(re.findall(r"FAIRLIB_[A-Z][A-Z0-9_]*[A-Z0-9]", path.read_text()))
    return found


def test_every_environment_variable_has_a_case():
    found = _variables_in_source()
    missing, stale = sorted(found - set(ENVIRONMENT)), sorted(set(ENVIRONMENT) - found)
    assert not missing, (
        f"FAIRLIB_* variables read in the source with no case in ENVIRONMENT: {missing}"
    )
    assert not stale, f"ENVIRONMENT names variables the source no longer reads: {stale}"


def _refused(variable, value, code, tmp_path):
    value = value.format(file=_a_file(tmp_path), dir=str(tmp_path))
    done = _run(["-c", code], tmp_path, env={variable: value})
    assert done.returncode != 0, f"{variable}={value!r} was accepted by: {code}"
    last = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ""
    assert variable in last, f"{variable}={value!r}: the error does not name it: {last}"
    # the library's bad-input error, not a plain ValueError or ImportError of the same words (the
    # book's builder, outside the library, reports its own BookError)
    error = (
        "book.build.BookError"
        if variable in BOOK_VARIABLES
        else "fairlib._validate.InvalidInputError"
    )
    assert last.startswith(f"{error}: "), last


@pytest.mark.parametrize("variable", sorted(ENVIRONMENT))
def test_an_unrecognised_value_is_an_error_naming_the_variable(variable, tmp_path):
    value, code = ENVIRONMENT[variable]
    _refused(variable, value, code, tmp_path)


@pytest.mark.parametrize("variable,value", MORE_VALUES)
def test_more_unrecognised_values(variable, value, tmp_path):
    _refused(variable, value, ENVIRONMENT[variable][1], tmp_path)


@pytest.mark.parametrize("value", ODD_VALUES)
@pytest.mark.parametrize("variable", sorted(ENVIRONMENT))
def test_every_variable_accepts_an_odd_value_or_names_itself(variable, value, tmp_path):
    """Over every variable the source reads (ENVIRONMENT, kept whole by
    test_every_environment_variable_has_a_case): whatever a value does, a failure names the
    variable."""
    done = _run(["-c", ENVIRONMENT[variable][1]], tmp_path, env={variable: value})
    if done.returncode != 0:
        last = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ""
        assert variable in last, f"{variable}={value!r}: the error does not name it: {last}"


@pytest.mark.parametrize(
    "variable", ["FAIRLIB_SWEEP_CACHE", "FAIRLIB_SWEEP_JOBS", "FAIRLIB_DASK_SCHEDULER"]
)
def test_run_all_refuses_a_bad_inherited_variable_before_any_notebook(variable, tmp_path):
    value = ENVIRONMENT[variable][0]
    done = _run(["run_all.py", "--quick", "--only", "li2019"], tmp_path, env={variable: value})
    assert done.returncode == 2 and variable in done.stderr, done.stderr[-800:]


def test_empty_means_unset_and_a_new_directory_is_accepted(tmp_path):
    code = (
        "from fairlib import paths; import sys; "
        "print(paths.build_dir(), paths.results_root(), paths.trace_dirs()[0])"
    )
    new = tmp_path / "not_yet"
    done = _run(
        ["-c", code],
        tmp_path,
        env={
            "FAIRLIB_BUILD_DIR": "",
            "FAIRLIB_OUTPUT_DIR": str(new),
            "FAIRLIB_TRACE_DIR": str(new),
        },
    )
    assert done.returncode == 0, done.stderr
    build, results, traces = done.stdout.split()
    assert build == str(ROOT / "build") and results == str(new / "results") and traces == str(new)


def _mains_in_source():
    """Every ``def main(argv...)`` at the top of a module of the library, the runner, the
    benchmarks and the book: (file, function node)."""
    import ast

    files = [ROOT / "run_all.py"] + [
        f for d in ("fairlib", "benchmarks", "book") for f in sorted((ROOT / d).rglob("*.py"))
    ]
    for path in files:
        tree = ast.parse(path.read_text())
        for node in tree.body:
            if (
                isinstance(node, ast.FunctionDef)
                and node.name == "main"
                and node.args.args
                and node.args.args[0].arg == "argv"
            ):
                yield path, node


def test_every_main_checks_its_argv_with_as_argv_before_reading_it():
    """CONTRIBUTING: a ``main(argv)`` refuses an argv that is not a list of str by name. Only the
    scaffold, warm and landing called ``fairlib._validate.as_argv``: the others read a str letter by
    letter (``fetch.main("--list")``) and argparse failed on a non-str with a raw TypeError. The
    first read of ``argv`` in every main is ``as_argv(argv)``."""
    import ast

    found, unchecked = [], []
    for path, node in _mains_in_source():
        found.append(path)
        reads = sorted(
            (n for n in ast.walk(node) if isinstance(n, ast.Name) and n.id == "argv"),
            key=lambda n: (n.lineno, n.col_offset),
        )
        checked = {
            id(call.args[0])
            for call in ast.walk(node)
            if isinstance(call, ast.Call)
            and getattr(call.func, "id", getattr(call.func, "attr", None)) == "as_argv"
            and call.args
        }
        first = next((n for n in reads if isinstance(n.ctx, ast.Load)), None)
        if first is None or id(first) not in checked:
            unchecked.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert len(found) >= 9, found  # the entry points and the benchmarks' modules
    assert not unchecked, f"main(argv) reading argv before as_argv(argv): {unchecked}"


@pytest.mark.parametrize("argv", ["--help", ("--help",), ["--help", 1]])
def test_every_main_refuses_an_argv_that_is_not_a_list_of_text_by_name(argv):
    import importlib

    from fairlib._validate import InvalidInputError

    for path, _ in _mains_in_source():
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        main = importlib.import_module(module).main
        with pytest.raises(InvalidInputError, match=r"argv(\[1\])? = "):
            main(argv)


def test_no_command_line_parses_a_number_with_int_or_float():
    """argparse's ``type=int`` reads "٢٠٢٤" as 2024 and ``type=float`` "inf" and "nan": every
    option takes ``fairlib._validate.cli_integer`` or ``cli_number``."""
    import ast

    files = [ROOT / "run_all.py"] + [
        f for d in ("fairlib", "benchmarks", "book") for f in sorted((ROOT / d).rglob("*.py"))
    ]
    loose = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path in files
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "add_argument"
        for kw in node.keywords
        if kw.arg == "type" and isinstance(kw.value, ast.Name) and kw.value.id in ("int", "float")
    ]
    assert not loose, f"options parsed with int or float: {loose}"


def test_every_command_line_builds_its_parser_with_command_parser():
    """``fairlib._validate.command_parser`` is the one parser factory: no file builds an
    ``argparse.ArgumentParser`` itself (one that does takes ``--lis`` for ``--list`` and keeps the
    last of a repeated option)."""
    import ast

    files = [ROOT / "run_all.py"] + [
        f for d in ("fairlib", "benchmarks", "book") for f in sorted((ROOT / d).rglob("*.py"))
    ]
    direct = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path in files
        if path != ROOT / "fairlib" / "_validate.py"
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call)
        and getattr(node.func, "attr", getattr(node.func, "id", None)) == "ArgumentParser"
    ]
    assert not direct, f"parsers built without command_parser: {direct}"


class _Caught(Exception):
    def __init__(self, parser):
        self.parser = parser


def _command_line_parsers(monkeypatch):
    """Every ``main(argv)`` that builds a parser, and the parser it builds (caught as it parses,
    before anything runs): (module, parser) for it and each of its subcommands."""
    import argparse
    import importlib

    from fairlib._validate import CommandParser

    def catch(self, args=None, namespace=None):
        raise _Caught(self)

    found = []
    for path, _ in _mains_in_source():
        if "command_parser(" not in path.read_text():
            continue
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        main = importlib.import_module(module).main
        with monkeypatch.context() as m:
            m.setattr(CommandParser, "parse_known_args", catch)
            with pytest.raises(_Caught) as caught:
                main([])
        todo = [(module, caught.value.parser)]
        while todo:
            name, parser = todo.pop()
            found.append((name, parser))
            for action in parser._actions:
                if isinstance(action, argparse._SubParsersAction):
                    todo += [(f"{name} {k}", p) for k, p in action.choices.items()]
    return found


def _a_value(action) -> str:
    from fairlib._validate import cli_integer, cli_number

    if action.choices:
        return str(next(iter(action.choices)))
    return "1" if action.type in (cli_integer, cli_number) else "x1"


def test_no_command_line_takes_an_abbreviation_a_repeated_option_or_a_repeated_entry(
    monkeypatch, capsys
):
    """argparse took ``--lis`` for ``--list``, kept only the last of ``--only a --only b`` (and of
    ``--tables``, ``--parts``, ``--jobs``, ``--rtol``) and ran ``benchmarks market market`` twice.
    Every option of every command line (and subcommand) is refused abbreviated and given twice, and
    every list (an option's or a positional's) refuses an entry given twice: status 2, the message
    naming the option and the value."""
    import argparse

    from fairlib._validate import CommandParser

    parsers = _command_line_parsers(monkeypatch)
    assert {name for name, _ in parsers} >= {
        "run_all",
        "benchmarks.__main__",
        "fairlib.traces.fetch",
        "fairlib.repro.landing",
        "fairlib.repro.scaffold",
    }
    lists = 0
    for name, parser in parsers:
        assert isinstance(parser, CommandParser) and parser.allow_abbrev is False, name
        for action in parser._actions:
            if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
                continue
            for opt in action.option_strings:
                if opt.startswith("--") and len(opt) > 3:
                    match = parser._parse_optional(opt[:-1])
                    match = match[0] if isinstance(match, list) else match
                    assert match is None or match[0] is None, (name, opt[:-1])
                value = [] if action.nargs == 0 else [_a_value(action)]
                with pytest.raises(SystemExit) as ended:
                    parser.parse_args([opt, *value, opt, *value])
                err = capsys.readouterr().err
                assert ended.value.code == 2 and f"{opt} is given more than once" in err, (
                    name,
                    opt,
                    err,
                )
            if action.nargs in ("+", "*"):
                lists += 1
                v = _a_value(action)
                argv = [*action.option_strings[:1], v, v]
                opt_or = action.option_strings[0] if action.option_strings else action.metavar
                with pytest.raises(SystemExit) as ended:
                    parser.parse_args(argv)
                err = capsys.readouterr().err
                assert ended.value.code == 2 and re.search(
                    rf"{opt_or}: '?{v}'? is given twice", err
                ), err
    assert lists >= 5, lists  # run_all --only, fetch --tables and --parts, the NAMEs, the keys


#: run_all.py options of which the other silently made one do nothing: (argv, the two options)
IGNORED_PAIRS = [
    (["--quick", "--accept-claims"], ("--accept-claims", "--quick")),
    (["--verify", "--accept-claims"], ("--accept-claims", "--verify")),
    (["--dask", "tcp://127.0.0.1:8786", "--sweep-jobs", "2"], ("--dask", "--sweep-jobs")),
    (["--verify", "--atol", "1e-9"], ("--atol", "--rtol")),
    (["--committed-results", "/tmp"], ("--committed-results", "--quick")),
    (["--verify", "--quick"], ("--verify", "--quick")),
]


@pytest.mark.parametrize("argv,options", IGNORED_PAIRS)
def test_run_all_refuses_an_option_another_makes_ignored(argv, options, capsys):
    """``--quick --accept-claims``, ``--dask A --sweep-jobs 2`` and ``--verify --atol A`` were
    accepted though the first option did nothing (``--atol`` alone even replaced every table's
    declared tolerance with DEFAULT_RTOL): each such pair is a usage error naming both."""
    import importlib

    run_all = importlib.import_module("run_all")
    with pytest.raises(SystemExit) as ended:
        run_all.parse_args(argv)
    err = capsys.readouterr().err
    assert ended.value.code == 2 and all(o in err.splitlines()[-1] for o in options), err
    assert run_all.parse_args(["--verify", "--rtol", "1e-6", "--atol", "1e-9"]).atol == 1e-9
    assert run_all.parse_args(["--accept-claims"]).accept_claims
