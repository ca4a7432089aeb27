"""The scaffold's labels and titles: what it writes into generated source passes the rules the
registries apply when that source is imported, and reads back as the text given (escaped, never
pasted). Fast: refusals come before any file is read, and the one written scaffold goes into a
folder holding only the files it edits."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

from fairlib.paths import ROOT
from fairlib.repro import scaffold

#: the files a mechanism's scaffold reads or edits (the rest of a checkout is not needed)
_FILES = (
    "fairlib/__init__.py",
    "fairlib/mechanisms.py",
    "fairlib/games.py",
    "fairlib/multires/__init__.py",
    "fairlib/market/__init__.py",
    "tests/reference.py",
    "pyproject.toml",
)


@pytest.fixture
def skeleton(tmp_path) -> Path:
    """A folder with the files :func:`scaffold.scaffold_mechanism` edits, copied from this
    checkout."""
    for rel in _FILES:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / rel, tmp_path / rel)
    return tmp_path


@pytest.mark.parametrize(
    ("label", "named"),
    [
        ("", r"--label = '': empty"),
        ("   ", r"--label: label = '   ': blank"),
        ("\u200b", r"--label: label = '\\u200b': blank"),
        ("a\u00adb\x0b", r"--label: label = .*control character '\\x0b'"),
        ("a\tb", r"--label: label = 'a\\tb': holds the control character"),
        ("x\x00", r"--label: label = 'x\\x00': holds the control character"),
    ],
)
def test_a_label_the_registry_refuses_is_refused_and_nothing_is_written(tmp_path, label, named):
    with pytest.raises(scaffold.ScaffoldError, match=named):
        scaffold.scaffold_mechanism("foo_rule", "pooled", label=label, root=tmp_path)
    assert not any(tmp_path.iterdir())


def test_the_command_line_refuses_an_empty_label_naming_it(tmp_path, capsys):
    code = scaffold.main(
        ["--root", str(tmp_path), "mechanism", "foo_rule", "--pooled", "--label", ""]
    )
    assert code == 2 and "--label = '': empty" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def _registered_label(source: str, call: str, name: str) -> str:
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == call
            and isinstance(node.args[0], ast.Constant)
            and node.args[0].value == name
        ):
            return next(k.value.value for k in node.keywords if k.arg == "label")
    raise AssertionError(f"no {call}({name!r}, ...)")


@pytest.mark.parametrize(
    ("kind", "module", "registry", "call"),
    [
        ("pooled", "fairlib/multires/foo_rule.py", "fairlib/mechanisms.py", "register"),
        ("game", "fairlib/market/foo_rule.py", "fairlib/games.py", "register_game"),
    ],
)
def test_a_label_with_a_backslash_reads_back_as_written(skeleton, kind, module, registry, call):
    label = "a\\tb \\N x\\"  # a backslash and t, \N, a trailing backslash: text, not escapes
    scaffold.scaffold_mechanism("foo_rule", kind, label=label, root=skeleton)
    source = (skeleton / registry).read_text(encoding="utf-8")
    assert _registered_label(source, call, "foo_rule") == label
    doc = ast.get_docstring(ast.parse((skeleton / module).read_text(encoding="utf-8")))
    assert doc.startswith(f"{label}: a ")


def test_a_title_with_a_backslash_reads_back_as_written_in_the_driver():
    assert scaffold._in_docstring("a\\tb") == "a\\\\tb"
    title = "On x\\y and \\N"
    source = '"""' + scaffold._in_docstring(title) + ': more."""'
    assert ast.get_docstring(ast.parse(source)) == "On x\\y and \\N: more."


@pytest.mark.parametrize("title", ["\u200b", "\ufeff\u2060", "a\x1bb"])
def test_a_title_that_shows_nothing_or_holds_a_control_character_is_refused(title):
    with pytest.raises(scaffold.ScaffoldError, match="--title = "):
        scaffold.paper_from_options(
            "Doe, Jane", title, 2024, "article", "V", "https://arxiv.org/abs/2401.00001"
        )
