"""CONTRIBUTING.md stays current: every path it names exists (a path with a placeholder such as
``<key>`` must have an existing folder up to the placeholder), and every command it gives names a
real module, make target or option."""

import re

from fairlib.paths import ROOT

GUIDE = ROOT / "CONTRIBUTING.md"
_PATH = re.compile(r"`([A-Za-z_.][\w./<>-]*/[\w./<>-]*|[\w-]+\.(?:py|md|toml|ipynb|yml|cff))`")


def _paths(text: str) -> list[str]:
    return sorted({m for m in _PATH.findall(text) if not m.startswith(("http", "."))})


def test_every_path_the_guide_names_exists():
    text = GUIDE.read_text(encoding="utf-8")
    named = _paths(text)
    assert len(named) > 25, named
    missing = []
    for path in named:
        if "<" in path:  # a placeholder: the folder before it exists
            fixed = path[: path.index("<")].rsplit("/", 1)[0]
            if not (ROOT / fixed).is_dir():
                missing.append(path)
        elif not (ROOT / path).exists():
            missing.append(path)
    assert not missing, f"CONTRIBUTING.md names paths that do not exist: {missing}"


def test_the_commands_it_gives_exist():
    text = GUIDE.read_text(encoding="utf-8")
    makefile = (ROOT / "Makefile").read_text()
    for target in re.findall(r"^make ([\w-]+)", text, flags=re.M):
        assert re.search(rf"^{target}:", makefile, flags=re.M), f"make {target}"
    for module in set(re.findall(r"python -m (fairlib\.[\w.]+)", text)):
        assert (ROOT / (module.replace(".", "/") + ".py")).is_file(), module
    for marker in set(re.findall(r"-m (registry|games|notebook|realdata)\b", text)):
        assert f'"{marker}:' in (ROOT / "pyproject.toml").read_text(), marker


def test_the_path_pattern_finds_placeholders_and_plain_files():
    assert _paths(
        "`notebooks/<key>.ipynb` and `fairlib/mechanisms.py`, `CONTRIBUTING.md`, `x = 1`"
    ) == ["CONTRIBUTING.md", "fairlib/mechanisms.py", "notebooks/<key>.ipynb"]
