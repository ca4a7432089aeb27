"""Start a new paper or a new mechanism from working templates: ``python -m
fairlib.repro.scaffold``.

A fresh scaffold is green at once (``make test-paper KEY=<key>``, ``python run_all.py --quick --only
<key>``); the contributor then replaces the examples it contains with the paper's own experiments,
claims and mechanism.

``python -m fairlib.repro.scaffold paper KEY --authors "Family, Given; ..." --title "..." --year
YEAR --venue-kind conference-paper|article --venue "..." --url URL [--notes "..."] [--citation
"..."] --driver TOPIC`` creates

- ``notebooks/<KEY>.ipynb`` from ``notebooks/_template.ipynb`` (title, citation, key and driver
  filled in);
- ``notebooks/claims/<KEY>.toml`` from ``notebooks/claims/template.toml`` (one example claim, with a
  ``headline``);
- ``fairlib/repro/experiments/<TOPIC>.py`` from ``fairlib/repro/experiments/template.py`` (the
  experiment driver: the tables and the ``findings`` that measure the claims) and
  ``tests/test_<TOPIC>_findings.py`` (its findings test), the driver imported in
  ``fairlib/repro/experiments/__init__.py``;
- the paper's entry in ``fairlib/repro/catalog.py``'s ``PAPERS`` (its metadata, as ``CITATION.cff``
  cites it) and its notebook's in ``NOTEBOOKS`` (what ``run_all.py`` runs and the site publishes;
  its tests and mechanisms are what ``make test-paper`` runs; how the results table names it, and a
  headline for the contributor to write);
- a section for the paper in ``docs/claims-coverage.md``;

then renders the README's results table, count and list of papers, ``CITATION.cff``'s references
from the catalogue and ``docs/reconstructions.md``'s section of the paper from its registry's
``reconstructions`` entry (``python -m fairlib.repro.landing`` in the checkout), so the landing and
citation tests pass at once.

``python -m fairlib.repro.scaffold mechanism NAME --pooled|--multi-server [--paper KEY] [--label
LABEL]`` creates

- ``fairlib/multires/<NAME>.py``: a kernel (``@njit(cache=True)``) and its public wrapper on the
  mechanism contract ``NAME(cluster, **options) -> Allocation``, with a placeholder rule that meets
  every registry-wide test (pooled: each user's weighted slice of its dominant resource, scaled
  until a resource is full, from held tasks; multi-server: every server's time split equally among
  the users who can use it);
- its export in ``fairlib/multires/__init__.py`` and its :func:`fairlib.mechanisms.register` call
  (with a colour of the house palette no registered mechanism uses, while one is left);
- its slow reference in ``tests/reference.py`` and ``tests/test_<NAME>.py``, the differential test
  against the reference, which needs no edit (the paper's known answer is a claim, asserted in the
  driver's findings test); with ``--paper KEY``, the mechanism and its test added to that paper's
  catalogue entry.

``python -m fairlib.repro.scaffold mechanism NAME --game [--paper KEY] [--label LABEL]
[--equilibrium TOL]`` creates

- ``fairlib/market/<NAME>.py``: a kernel (``@njit(cache=True)``) and its public wrapper on the game
  contract ``NAME(game) -> GameOutcome``, with a placeholder rule that meets every registry-wide
  game test (each user bids its budget in proportion to its weights, over its k_i highest-weight
  machines under finite parallelism);
- its export in ``fairlib/market/__init__.py`` and its :func:`fairlib.games.register_game` call (a
  colour of the house palette no registered mechanism or game uses; with ``--equilibrium TOL``, the
  ``equilibrium`` capability and ``tol=TOL``);
- its slow reference in ``tests/reference.py`` and ``tests/test_<NAME>.py``, the differential test
  against it, whose last test fails while a ``TODO(scaffold)`` mark (the placeholder rule, its
  reference, the References section) is left, naming each; with ``--paper KEY``, the game and its
  test added to that paper's catalogue entry (``mechanisms=`` lists games too).

``python -m fairlib.repro.scaffold mechanism NAME --new-model MODEL [--paper KEY] [--label LABEL]
[--equilibrium TOL]`` creates, for a paper whose model a ``Game`` cannot state (another strategy
space, allocation rule or utilities),

- ``fairlib/market/<NAME>.py``: the model's instance type ``MODEL`` (a frozen dataclass validating
  its fields, with ``n_users``, ``n_machines`` and ``from_weights``), its outcome type
  ``MODELOutcome`` (whose constructor checks every field and derives the certificate ``residual``
  from the bids) and a kernel and its public wrapper ``NAME(game: MODEL) -> MODELOutcome`` with a
  placeholder model and rule that meet every registry-wide game test (valuations and a reserve bid;
  each user splits one unit of bids in proportion to its weights, shares by the proportional-share
  rule);
- the three names exported in ``fairlib/market/__init__.py`` and its
  :func:`fairlib.games.register_game` call with ``instance=MODEL`` (the registry's checks, the API
  contract, the docstring checks and the kernel warm-up then take it up with no other edit);
- its slow reference in ``tests/reference.py`` and ``tests/test_<NAME>.py``: the differential test
  against it, the model's bad input named and the ``TODO(scaffold)`` marks left named; ``--paper
  KEY`` and ``--equilibrium`` as for a game.

With ``--game`` or ``--new-model``, ``--without CAP[,CAP]`` leaves out of the registration the
capabilities of :data:`GAME_CAPABILITIES` the paper's rule does not define.

``python -m fairlib.repro.scaffold tolerance KEY --rtol RTOL --atol ATOL --reason "..." [--digits
D]`` declares notebook ``KEY``'s tolerance for ``run_all.py --verify``'s "another CPU" check (a
notebook-wide entry in ``fairlib/repro/verify.py``'s ``TOLERANCES``) and renders
``docs/verify.md``.

Every Python file written is formatted by ``ruff format`` (lines of at most 100 characters; a long
title or headline is split into adjacent literals) and compiled before anything is written.

``python -m fairlib.repro.scaffold --remove KEY`` removes what ``paper KEY`` created (and the
paper's outputs under ``figures/``, ``data/results/`` and ``executed/``, its rows of the aggregated
ledger and its ``TOLERANCES`` entry), then renders the README and ``CITATION.cff`` again; it refuses
a paper the scaffold did not create.

``--root DIR`` works on another checkout (the tests scaffold into a temporary copy).
"""

from __future__ import annotations

import argparse
import ast
import json
import keyword
import numbers
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from .. import paths
from .._validate import (
    InvalidInputError,
    path_text,
    as_argv,
    as_integer_text,
    command_parser,
    as_tolerance,
    cli_integer,
    cli_number,
    as_text,
)
from .catalog import VENUE_KINDS, Paper

__all__ = [
    "scaffold_paper",
    "paper_from_options",
    "scaffold_mechanism",
    "scaffold_tolerance",
    "remove_paper",
    "ScaffoldError",
    "main",
    "HEADLINE",
]

_NAME = re.compile(r"[a-z][a-z0-9_]{0,23}")
_CLASS = re.compile(r"[A-Z][A-Za-z0-9]{0,31}")
_CATALOG_MARKER = "# new paper notebooks go above this line"
_PAPERS_MARKER = "# new papers go above this line"
#: the headline a scaffolded notebook's row shows until the contributor writes the paper's
HEADLINE = (
    "Not written yet: the paper's main result, reproduced or not, in one sentence "
    "(fairlib/repro/catalog.py)."
)
_DRIVERS_MARKER = "# new drivers are imported above this line"
_MULTIRES_MARKER = "# new mechanisms are imported above this line"
_REGISTRY_MARKER = "# new mechanisms are registered above this line"
_MARKET_MARKER = "# new games are imported above this line"
_GAMES_MARKER = "# new games are registered above this line"
_TOLERANCES_MARKER = "# new notebooks' tolerances are added above this line"
#: the capabilities a scaffolded game's placeholder honours, by kind: ``--without`` drops those the
#: paper's rule does not define, so the registry refuses them instead of the rule extending the
#: paper silently
GAME_CAPABILITIES = {"game": ("budgets", "parallelism", "reserve"), "model": ("reserve",)}


class ScaffoldError(ValueError):
    """A scaffold that cannot be made as asked (a name taken or malformed, a file in the way);
    nothing was written (unless the message says the files were written and only the rendering of
    the README failed)."""


def _root(root: object) -> Path:
    """The checkout to work on: ``root`` (text or a path) or this one."""
    if root is None:
        return paths.ROOT
    if isinstance(root, bytes) or not isinstance(root, (str, os.PathLike)):
        raise ScaffoldError(f"--root = {root!r}: must be a folder path")
    try:
        return Path(path_text(root, "--root", "directory"))  # blank, "~", another OS's PurePath
    except InvalidInputError as exc:
        raise ScaffoldError(str(exc)) from None


def _check_name(value: str, what: str) -> str:
    if not isinstance(value, str) or not _NAME.fullmatch(value) or keyword.iskeyword(value):
        raise ScaffoldError(
            f"{what} = {value!r}: must be a lower-case Python identifier of at most 24 characters "
            "(letters, digits, _; starting with a letter)"
        )
    return value


def _insert_before(text: str, marker: str, line: str, where: str) -> str:
    """``text`` with ``line`` (one line or several) inserted before the line holding ``marker``,
    indented as that line (a long value is split into adjacent literals by :func:`_literal`, and the
    file is formatted by ruff before it is written)."""
    for i, current in enumerate(lines := text.splitlines(keepends=True)):
        if current.strip().startswith(marker):
            indent = current[: len(current) - len(current.lstrip())]
            lines.insert(i, "".join(indent + one + "\n" for one in line.split("\n")))
            return "".join(lines)
    raise ScaffoldError(
        f"{where}: the marker line {marker!r} is missing; add it back where new entries go"
    )


def _add_to_all(text: str, name: str | list[str], where: str) -> str:
    """``text`` with ``__all__ += ["name", ...]`` as its last line."""
    names = [name] if isinstance(name, str) else list(name)
    if not re.search(r"^__all__ = \[", text, flags=re.M):
        raise ScaffoldError(f"{where}: no `__all__ = [` line to add {names[0]!r} to")
    return text.rstrip("\n") + "\n__all__ += [" + ", ".join(f'"{n}"' for n in names) + "]\n"


class _Writer:
    """Collects the new files and edits, checks nothing is in the way, then writes them all (so a
    refused scaffold leaves the checkout as it was)."""

    def __init__(self, root: Path):
        self.root = root
        self.new: dict[Path, str] = {}
        self.edits: dict[Path, str] = {}

    def read(self, rel: str) -> str:
        path = self.root / rel
        if path in self.edits:
            return self.edits[path]
        if not path.is_file():
            raise ScaffoldError(
                f"{rel} is missing under {self.root}: is --root a fairlib checkout?"
            )
        return path.read_text(encoding="utf-8")

    def create(self, rel: str, text: str) -> None:
        path = self.root / rel
        if path.exists():
            raise ScaffoldError(f"{rel} already exists; choose another name (or remove it first)")
        self.new[path] = text

    def edit(self, rel: str, text: str) -> None:
        self.edits[self.root / rel] = text

    def check(self) -> None:
        """Parse every file about to be written as what it is (Python compiled, TOML and notebook
        JSON read): a value that would break one (a title with three quotes, a label ending in a
        backslash) is refused before anything is written, naming the file and the line."""
        import tomllib
        import warnings

        for path, text in {**self.new, **self.edits}.items():
            rel = path.relative_to(self.root)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter(
                        "error"
                    )  # an invalid escape sequence is refused too, not warned of later
                    if path.suffix == ".py":
                        compile(text, str(rel), "exec")
                    elif path.suffix == ".toml":
                        tomllib.loads(text)
                    elif path.suffix == ".ipynb":
                        for cell in json.loads(text)["cells"]:
                            if cell["cell_type"] == "code":
                                compile("".join(cell["source"]), f"{rel} (a code cell)", "exec")
            except (SyntaxError, ValueError, SyntaxWarning, DeprecationWarning) as exc:
                lineno = getattr(exc, "lineno", None)  # SyntaxError's, not ValueError's
                where = f" line {lineno}" if lineno else ""
                why = getattr(exc, "msg", None) or str(exc)
                raise ScaffoldError(
                    f"{rel}{where}: the generated file would not parse ({why}); a title, "
                    "citation or "
                    "label holds characters that break it (quotes, a trailing backslash): change "
                    "them; nothing was written"
                ) from None

    def format(self) -> None:
        """Run every Python file about to be written through ``ruff format`` (the house format: the
        checkout's ``pyproject.toml``), so that ``ruff format --check`` passes on what the scaffold
        writes; where ruff is not installed the files are written as the templates spell them."""
        for files in (self.new, self.edits):
            for path, text in files.items():
                if path.suffix == ".py":
                    files[path] = _formatted(text, str(path.relative_to(self.root)), self.root)

    def commit(self) -> list[str]:
        """Check, format, then write every file (nothing is written when a check fails)."""
        self.check()
        self.format()
        for path, text in {**self.new, **self.edits}.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        return sorted(str(p.relative_to(self.root)) for p in {**self.new, **self.edits})


def _docstrings_wrapped(text: str, width: int = 100) -> str:
    """``text`` (Python source) with every line of a triple-quoted string longer than ``width``
    split after its last space that fits, the rest carried into the next line of the same paragraph
    (or onto a line of its own, indented as the line, or under a list item's text): the names a
    template is filled with can push a line past the house's 100 characters, and ruff format leaves
    docstrings as they are. Doctest lines are left as they are.

    >>> source = (
    ...     "def f():\\n    '''A summary line\\n    that goes on.\\n\\n"
    ...     "    - an item of a list\\n    '''\\n"
    ... )
    >>> print(_docstrings_wrapped(source, 16))
    def f():
        '''A summary
        line that
        goes on.
    <BLANKLINE>
        - an item of
          a list
        '''
    <BLANKLINE>
    """
    import io
    import tokenize

    quotes = ('"""', "'''")
    inside: set[int] = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.STRING and token.string.lstrip("rbuRBU").startswith(quotes):
                inside.update(range(token.start[0], token.end[0] + 1))
    except (tokenize.TokenError, SyntaxError):
        # source that does not tokenize (a title holding three quotes) is left as it is: the
        # compile check before anything is written refuses it, naming what would not parse
        return text
    out, carry, hanging = [], "", ""
    for number, line in enumerate(text.split("\n"), start=1):
        body = line.lstrip()
        prose = number in inside and not body.startswith((">>>", "..."))
        if carry:
            if (
                prose
                and body
                and line[: len(line) - len(body)] == hanging
                and not body.startswith(("- ", *quotes))
            ):
                line, body = hanging + carry + " " + body, carry + " " + body
            else:
                out.append(hanging + carry)
            carry = ""
        if not prose:
            out.append(line)
            continue
        indent = " " * (len(line) - len(body))
        hanging = indent + ("  " if body.startswith("- ") else "")
        start = len(indent) + (3 if body.startswith(quotes) else 0)
        split = False
        while len(line) > width and (cut := line.rfind(" ", start + 1, width + 1)) > 0:
            out.append(line[:cut])
            line, start, split = hanging + line[cut + 1 :], len(hanging), True
        if split:  # the rest of a split line joins the next line of its paragraph
            carry = line[len(hanging) :]
        else:
            out.append(line)
    if carry:
        out.append(hanging + carry)
    return "\n".join(out)


def _formatted(text: str, rel: str, root: Path) -> str:
    """``text``, the Python file ``rel`` of checkout ``root``, as ``ruff format`` writes it
    (``text`` itself where ruff is not installed)."""
    try:
        run = subprocess.run(
            [sys.executable, "-m", "ruff", "format", "--stdin-filename", rel, "-"],
            input=text,
            cwd=root,
            capture_output=True,
            text=True,
            timeout=120,
        )
    except (OSError, subprocess.SubprocessError):
        return text
    if run.returncode != 0:
        if "No module named ruff" in run.stderr:
            return text
        raise ScaffoldError(
            f"{rel}: ruff format refused the generated file ({run.stderr.strip()[-500:]}); nothing "
            "was written"
        )
    return run.stdout


def _public_names(root: Path) -> dict[str, str]:
    """The names ``fairlib``, ``fairlib.multires`` and ``fairlib.market`` export in checkout
    ``root`` (read from their ``__all__`` lists and ``__all__ += [...]`` lines, and fairlib's lazy
    exports), each with the module's name."""
    import ast

    found: dict[str, str] = {}
    for rel, module in (
        ("fairlib/multires/__init__.py", "fairlib.multires"),
        ("fairlib/market/__init__.py", "fairlib.market"),
        ("fairlib/__init__.py", "fairlib"),
    ):
        path = root / rel
        if not path.is_file():
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            value = None
            if isinstance(node, (ast.Assign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(
                    isinstance(t, ast.Name) and t.id in ("__all__", "_EXPORTS") for t in targets
                ):
                    value = node.value
            if isinstance(value, (ast.List, ast.Tuple)):
                found.update({e.value: module for e in value.elts if isinstance(e, ast.Constant)})
            elif isinstance(value, ast.Dict):
                found.update({k.value: module for k in value.keys if isinstance(k, ast.Constant)})
    return found


def _tuple_added(line: str, field: str, value: str) -> str:
    """A catalogue entry with ``value`` added to its tuple ``field=(...)`` (on one line: ruff
    format, run on the file before it is written, splits a long one)."""

    def rebuilt(match):
        items = re.findall(r'"([^"]*)"', match.group(1)) + [value]
        return (
            f"{field}=("
            + ", ".join(f'"{v}"' for v in items)
            + ("," if len(items) == 1 else "")
            + ")"
        )

    return re.sub(rf"\b{field}=\(([^)]*)\)", rebuilt, line, count=1)


def _wrapped(text: str) -> str:
    """``text`` as lines of at most 100 characters (the house's format), ending in a newline."""
    import textwrap

    return (
        "\n".join(textwrap.wrap(text, 100, break_long_words=False, break_on_hyphens=False)) + "\n"
    )


def _catalog_entries(text: str) -> tuple[dict, dict]:
    """``({notebook key: (first line, last line, call)}, {paper key: (first line, last line)})`` of
    ``fairlib/repro/catalog.py``'s text, line numbers from 1, found by parsing it (an entry may span
    lines)."""
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        raise ScaffoldError(
            f"fairlib/repro/catalog.py does not parse (line {exc.lineno}: {exc.msg}); fix it first"
        ) from None
    notebooks, papers = {}, {}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "Notebook"
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            notebooks[node.args[0].value] = (node.lineno, node.end_lineno, node)
        elif (
            isinstance(node, (ast.Assign, ast.AnnAssign))
            and isinstance(node.value, ast.Dict)
            and any(
                isinstance(t, ast.Name) and t.id == "PAPERS"
                for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
            )
        ):
            for k, v in zip(node.value.keys, node.value.values):
                if isinstance(k, ast.Constant):
                    papers[k.value] = (k.lineno, v.end_lineno)
    return notebooks, papers


def _keyword(call: ast.Call, name: str):
    """The constant value of keyword argument ``name`` of ``call`` (None when absent or not a
    constant)."""
    found = next((k.value for k in call.keywords if k.arg == name), None)
    return found.value if isinstance(found, ast.Constant) else None


def _lines(text: str, first: int, last: int) -> str:
    return "".join(text.splitlines(keepends=True)[first - 1 : last])


def _without_lines(text: str, first: int, last: int) -> str:
    lines = text.splitlines(keepends=True)
    return "".join(lines[: first - 1] + lines[last:])


def _field_lines(indent: str, fields: list[str]) -> list[str]:
    """``fields`` (``name=value``, a value perhaps on several lines: :func:`_literal`), one per line
    at ``indent``, comma-separated, the last closing the call."""
    out = []
    for i, field in enumerate(fields):
        *head, last = field.split("\n")
        out += [indent + one for one in head]
        out.append(indent + last + ("," if i < len(fields) - 1 else "),"))
    return out


def _py(value: str) -> str:
    """``value`` as a Python string literal."""
    return json.dumps(value, ensure_ascii=False)


#: the longest string literal a generated line holds: with the catalogue's indentation, a line stays
#: within the house's 100 characters
_LITERAL_WIDTH = 76


def _in_docstring(value: str) -> str:
    r"""``value`` as text inside a generated docstring (a plain, not raw, string literal): each
    backslash doubled, so the docstring reads back as ``value`` (``a\tb`` stays four characters,
    not ``a``, a tab and ``b``).

    >>> _in_docstring("a\\tb")
    'a\\\\tb'
    """
    return value.replace("\\", "\\\\")


def _literal(field: str, value: str) -> str:
    """``field=<value as a string literal>``; a long value as adjacent literals in parentheses, one
    per line, split after spaces (Python joins them into ``value``), so that no line exceeds the
    house's 100 characters.

    >>> print(_literal("headline", "short"))
    headline="short"
    >>> print(_literal("headline", "word " * 20))
    headline=(
        "word word word word word word word word word word word word word word "
        "word word word word word word "
    )
    """
    if len(_py(value)) <= _LITERAL_WIDTH:
        return f"{field}={_py(value)}"
    pieces = [""]
    for word in re.split(r"(?<= )", value):  # each word keeps the spaces that follow it
        if pieces[-1] and len(_py(pieces[-1] + word)) > _LITERAL_WIDTH:
            pieces.append(word)
        else:
            pieces[-1] += word
    return "\n".join([f"{field}=("] + [f"    {_py(p)}" for p in pieces] + [")"])


def _paper_entry(key: str, paper: Paper) -> str:
    authors = (
        "("
        + ", ".join(f"({_py(f)}, {_py(g)})" for f, g in paper.authors)
        + ("," if len(paper.authors) == 1 else "")
        + ")"
    )
    fields = [
        f"authors={authors}",
        _literal("title", paper.title),
        f"venue_kind={_py(paper.venue_kind)}",
        _literal("venue", paper.venue),
        f"year={paper.year}",
        _literal("url", paper.url),
    ]
    fields += [_literal("notes", paper.notes)] if paper.notes else []
    return "\n".join([f"{_py(key)}: Paper("] + _field_lines("    ", fields))


def _notebook_entry(key: str, paper: Paper, driver: str) -> str:
    fields = [
        _literal("title", paper.heading),
        f'tests=("tests/test_{driver}_findings.py",)',
        "mechanisms=()",
        f'driver="{driver}"',
        f'paper="{key}"',
        _literal("listed_as", paper.heading),
        _literal("headline", HEADLINE),
    ]
    return "\n".join(
        [f'Notebook("{key}", "notebooks/{key}.ipynb",'] + _field_lines("         ", fields)
    )


def paper_from_options(
    authors: str, title: str, year, venue_kind: str, venue: str, url: str, notes: str = ""
) -> Paper:
    """The :class:`~fairlib.repro.catalog.Paper` the command line describes: ``authors`` as
    ``"Family, Given; Family, Given"``; a ScaffoldError naming the option otherwise.

    Parameters
    ----------
    authors : str
        ``--authors``: ``"Family, Given"`` pairs separated by ``;``, in the paper's order.
    title : str
        ``--title``.
    year : int or str
        ``--year``: an integer, or its text in ASCII digits (``"٢٠٢٤"`` and ``"+2024"`` are
        refused).
    venue_kind : str
        ``--venue-kind``: ``"conference-paper"`` or ``"article"``.
    venue : str
        ``--venue``.
    url : str
        ``--url``.
    notes : str, default ""
        ``--notes``: one line, or empty for none (None is refused: the option's default is the
        empty text).

    Returns
    -------
    Paper
        The paper's metadata.

    Raises
    ------
    ScaffoldError
        When a field is malformed, naming its command-line option.

    Examples
    --------
    >>> paper_from_options(
    ...     "Johari, Ramesh; Tsitsiklis, John N.",
    ...     "Efficiency loss in a network resource allocation game",
    ...     "2004",
    ...     "article",
    ...     "Mathematics of Operations Research",
    ...     "https://doi.org/10.1287/moor.1040.0091",
    ... ).authors
    (('Johari', 'Ramesh'), ('Tsitsiklis', 'John N.'))
    >>> paper_from_options("Johari Ramesh", "T", 2004, "article", "V", "https://x.org")
    Traceback (most recent call last):
    ...
    fairlib.repro.scaffold.ScaffoldError: --authors: 'Johari Ramesh' is not 'Family, Given' (authors
    are separated by ';', e.g. "Johari, Ramesh; Tsitsiklis, John N.")
    """
    if not isinstance(authors, str):
        raise ScaffoldError(f"--authors = {authors!r}: must be text, 'Family, Given; ...'")
    pairs = []
    for one in (authors or "").split(";"):
        parts = [p.strip() for p in one.split(",")]
        if len(parts) != 2 or not all(parts):
            raise ScaffoldError(
                f"--authors: {one.strip()!r} is not 'Family, Given' (authors are separated by ';', "
                'e.g. "Johari, Ramesh; Tsitsiklis, John N.")'
            )
        pairs.append(tuple(parts))
    # a year given as text is written in ASCII digits: int() would also read "٢٠٢٤" or "+2024"
    try:
        if isinstance(year, str):
            year = as_integer_text(year, "--year")
        elif isinstance(year, bool) or not isinstance(year, numbers.Integral):
            raise ValueError(year)
        year = int(year)
    except ValueError:
        raise ScaffoldError(f"--year = {year!r}: must be a year, e.g. 2024") from None
    try:
        return Paper(tuple(pairs), title, venue_kind, venue, year, url, notes=notes)
    except ValueError as exc:  # Paper names the field; the option has the same name
        name, _, why = str(exc).partition(" = ")
        raise ScaffoldError(f"--{name.replace('_', '-')} = {why}") from None


def _render(root: Path) -> list[str]:
    """Render the README's and CITATION.cff's blocks in checkout ``root`` from its catalogue
    (``python -m fairlib.repro.landing`` there: the catalogue is that checkout's module); the files
    it rewrote."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(root), *filter(None, [os.environ.get("PYTHONPATH")])]),
    }
    run = subprocess.run(
        [sys.executable, "-m", "fairlib.repro.landing"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if run.returncode != 0:
        raise ScaffoldError(
            "the files are written, but rendering the README and CITATION.cff from the catalogue "
            f"failed (python -m fairlib.repro.landing in {root}):\n{run.stderr[-2000:]}\n"
            "fix it and run python -m fairlib.repro.landing"
        )
    return [
        line[: -len(" rendered")] for line in run.stdout.splitlines() if line.endswith(" rendered")
    ]


# --- a paper --------------------------------------------------------------------------------------


def _notebook(template: str, key: str, title: str, citation: str, driver: str) -> str:
    """The new paper's notebook: the template notebook ``template`` (JSON) with its title, citation,
    key and driver filled in, cell by cell."""
    nb = json.loads(template)
    for cell in nb["cells"]:
        src = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            if src.lstrip().startswith("# "):
                src = re.sub(r"^# .*$", lambda _: f"# {title}", src, count=1, flags=re.M)
                src = re.sub(
                    r"^\*\*Citation\.\*\* .*$",
                    lambda _: f"**Citation.** {citation}",
                    src,
                    count=1,
                    flags=re.M,
                )
            src = src.replace(
                "fairlib/repro/experiments/template.py", f"fairlib/repro/experiments/{driver}.py"
            )
        else:
            src = src.replace('KEY = "template"', f'KEY = "{key}"')
            src = src.replace(
                "from fairlib.repro.experiments import template",
                f"from fairlib.repro.experiments import {driver}",
            )
            # the registry's path first: "template.toml" would otherwise read as the driver's
            # attribute "toml"
            src = src.replace("notebooks/claims/template.toml", f"notebooks/claims/{key}.toml")
            src = re.sub(r"\btemplate\.(?=[A-Za-z_])", f"{driver}.", src)
        cell["source"] = src.splitlines(keepends=True)
        if cell["cell_type"] == "code":
            cell["outputs"], cell["execution_count"] = [], None
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n"


def scaffold_paper(
    key: str, paper: Paper, driver: str, *, citation: str | None = None, root: Path | None = None
) -> list[str]:
    """Create a new paper's notebook, claims registry, experiment driver and findings test,
    catalogue entries and docs sections, and render the README and CITATION.cff (see the module
    docstring); returns the paths written, relative to ``root``. ``paper`` is its metadata
    (:func:`paper_from_options` reads the command line's); ``citation``, the notebook's citation
    line, defaults to :attr:`Paper.citation <fairlib.repro.catalog.Paper.citation>`.

    Parameters
    ----------
    key : str
        The paper's key, a lower-case name (``smith2024``).
    paper : Paper
        Its metadata.
    driver : str
        The experiment driver's module name.
    citation : str, optional
        The notebook's citation line.
    root : pathlib.Path, optional
        The checkout to work on (default: this one).

    Returns
    -------
    list of str
        The paths written, relative to ``root``.

    Raises
    ------
    ScaffoldError
        When an argument is malformed (the message names its command-line option) or the
        checkout is not in the state it needs; nothing is written.
    """
    root = _root(root)
    key = _check_name(key, "KEY")
    driver = _check_name(driver, "--driver")
    if driver == key:
        raise ScaffoldError(
            f"--driver = {driver!r}: name the driver by what it studies, not by the paper's key"
        )
    if not isinstance(paper, Paper):
        raise ScaffoldError(
            f"paper = {paper!r}: must be a fairlib.repro.catalog.Paper (paper_from_options "
            "builds one)"
        )
    citation = paper.citation if citation is None else citation
    try:
        as_text(citation, "--citation", what="the notebook's citation line is one line that shows")
    except InvalidInputError as exc:
        raise ScaffoldError(str(exc)) from None
    title = paper.heading
    w = _Writer(root)
    catalog = w.read("fairlib/repro/catalog.py")
    notebooks, papers = _catalog_entries(catalog)
    if key in notebooks or key in papers:
        raise ScaffoldError(f"KEY = {key!r}: already in fairlib/repro/catalog.py")
    w.create(
        f"notebooks/{key}.ipynb",
        _notebook(w.read("notebooks/_template.ipynb"), key, title, citation, driver),
    )
    toml = w.read("notebooks/claims/template.toml")
    toml = re.sub(
        r"\A(#[^\n]*\n)+",
        # a function, not a template: a backslash in the title is text, not a group reference
        lambda _: (
            f"# Claims of {title}, declared before any run; the experiment driver "
            f"fairlib/repro/experiments/{driver}.py measures them.\n# Rules and kinds: "
            "notebooks/claims/template.toml and CONTRIBUTING.md. Replace the example claim "
            "with the paper's.\n# headline (optional): a Findings bullet's words, filled "
            "from the ledger ({ours}, {paper}, {ours_min}, {ours_max}, {n};\n# format specs "
            "allowed), at most 35 words: plain words, units, the comparison with the paper.\n"
        ),
        toml,
    )
    if not re.search(r"^headline\s*=", toml, flags=re.M):  # the example claim shows one
        toml = re.sub(
            r"^(statement = .*\n)",
            lambda m: (
                m.group(1) + 'headline = "the sample mean of uniform draws '
                'on [0, 1] is {ours:.3f}; the paper: {paper}"\n'
            ),
            toml,
            count=1,
            flags=re.M,
        )
    # what the code relies on beyond the paper's text, beside the claims that rest on it: rendered
    # into docs/reconstructions.md (a top-level key, so before the first [[claim]] table)
    toml = toml.replace(
        "\n[[claim]]",
        "\n# reconstructions: what the code relies on that the paper does not print, each item "
        "tagged [INF] (inferred),\n# [MEM] (recalled), [DRV] (derived) or [NR] (not recovered); "
        "rendered into docs/reconstructions.md\n"
        'reconstructions = """\nNothing is reconstructed: every equation and number used is read '
        'from the paper\'s printed text.\n"""\n\n[[claim]]',
        1,
    )
    w.create(f"notebooks/claims/{key}.toml", toml)
    module = w.read("fairlib/repro/experiments/template.py")
    module = re.sub(  # the template's whole first paragraph, however many lines it wraps to
        r'\A"""[^\n]*(?:\n[^\n]+)*\n',
        lambda _: _wrapped(
            f'"""{_in_docstring(title)}: the experiment driver of notebooks/{key}.ipynb '
            "(started from the template's example; replace it with "
            "the paper's experiments)."
        ),
        module,
    )
    w.create(
        f"fairlib/repro/experiments/{driver}.py",
        _docstrings_wrapped(
            module.replace("notebooks/claims/template.toml", f"notebooks/claims/{key}.toml")
        ),
    )
    test = w.read("tests/test_template_findings.py")
    test = test.replace(
        "from fairlib.repro.experiments import template",
        f"from fairlib.repro.experiments import {driver}",
    )
    test = re.sub(r"\btemplate\.(?=[A-Za-z_])", f"{driver}.", test).replace(
        'KEY = "template"', f'KEY = "{key}"'
    )
    test = re.sub(
        r'\A""".*?"""',
        lambda _: _wrapped(
            f'"""The {key} claims\' arithmetic (fairlib.repro.experiments.'
            f"{driver}.findings): a known answer, one measurement per "
            'declared claim, bad input named."""'
        ).rstrip("\n"),
        test,
        count=1,
        flags=re.S,
    )
    w.create(f"tests/test_{driver}_findings.py", _docstrings_wrapped(test))
    drivers_file = "fairlib/repro/experiments/__init__.py"
    drivers = w.read(drivers_file)
    drivers = _insert_before(drivers, _DRIVERS_MARKER, f"from . import {driver}", drivers_file)
    w.edit(drivers_file, _add_to_all(drivers, driver, drivers_file))
    catalog = _insert_before(
        catalog, _PAPERS_MARKER, _paper_entry(key, paper), "fairlib/repro/catalog.py"
    )
    catalog = _insert_before(
        catalog, _CATALOG_MARKER, _notebook_entry(key, paper, driver), "fairlib/repro/catalog.py"
    )
    w.edit("fairlib/repro/catalog.py", catalog)
    section = f'{paper.names}, "{paper.title}" — `{key}`'
    w.edit(
        "docs/claims-coverage.md",
        w.read("docs/claims-coverage.md").rstrip("\n")
        + (
            f"\n\n## {section}\n\n| paper | statement | claim(s) or reason |\n|---|---|---|\n"
            "| template §1 | the example claim of the scaffold (replace with the paper's "
            "statements, in its order) | `mean_near_half` |\n"
        ),
    )
    written = w.commit()
    return sorted(set(written + _render(root)))


def _section_removed(text: str, key: str) -> str:
    """``text`` without the ``## ... — `key``` section (up to the next ``## `` heading)."""
    return (
        re.sub(
            rf"\n*^## [^\n]*— `{re.escape(key)}`\n.*?(?=^## |\Z)", "\n\n", text, flags=re.M | re.S
        ).rstrip("\n")
        + "\n"
    )


def _ledger_without(w: _Writer, key: str) -> None:
    """Take notebook ``key``'s rows out of the aggregated ledger (``data/results/claims.csv``, and
    its section and counts in ``CLAIMS.md``) when a full run put them there, so the README renders
    without it."""
    import csv
    import io

    if not (w.root / "data/results/claims.csv").is_file():
        return
    records = list(csv.reader(io.StringIO(w.read("data/results/claims.csv"), newline="")))
    if not records or "paper" not in records[0]:
        return
    column = records[0].index("paper")
    kept = [r for r in records[1:] if r[column] != key]
    if len(kept) == len(records) - 1:
        return
    out = io.StringIO(newline="")
    csv.writer(out, lineterminator="\n").writerows([records[0], *kept])
    w.edit("data/results/claims.csv", out.getvalue())
    if not (w.root / "data/results/CLAIMS.md").is_file():
        return
    ledger = re.sub(
        rf"\n## {re.escape(key)}\b[^\n]*\n.*?(?=\n## |\Z)",
        "",
        w.read("data/results/CLAIMS.md"),
        flags=re.S,
    )
    header = re.search(
        r"^\| kind \| (.*) \| total \|$", ledger, flags=re.M
    )  # the counts: kind by status
    if header is not None:
        statuses, kind, status = (
            header.group(1).split(" | "),
            records[0].index("kind"),
            records[0].index("status"),
        )

        def recounted(m: re.Match) -> str:
            n = [sum(r[kind] == m.group(1) and r[status] == s for r in kept) for s in statuses]
            return f"| {m.group(1)} | " + " | ".join(map(str, n)) + f" | {sum(n)} |"

        end = ledger.find("\n\n", header.end())
        end = len(ledger) if end < 0 else end
        ledger = (
            ledger[: header.end()]
            + re.sub(
                r"^\| (\w+) \|(?: \d+ \|)+$", recounted, ledger[header.end() : end], flags=re.M
            )
            + ledger[end:]
        )
    w.edit("data/results/CLAIMS.md", ledger)


def remove_paper(key: str, *, root: Path | None = None) -> list[str]:
    """Undo :func:`scaffold_paper` for ``key`` (and remove its outputs, its rows of the aggregated
    ledger included), then render the README and CITATION.cff again; returns the paths removed or
    edited.

    Parameters
    ----------
    key : str
        The paper's key.
    root : pathlib.Path, optional
        The checkout to work on (default: this one).

    Returns
    -------
    list of str
        The paths removed or edited, relative to ``root``.

    Raises
    ------
    ScaffoldError
        When an argument is malformed (the message names its command-line option) or the
        checkout is not in the state it needs; nothing is removed or edited.
    """
    root = _root(root)
    key = _check_name(key, "KEY")
    w = _Writer(root)
    catalog = w.read("fairlib/repro/catalog.py")
    notebooks, papers = _catalog_entries(catalog)
    if key not in notebooks:
        raise ScaffoldError(f"KEY = {key!r}: not in fairlib/repro/catalog.py")
    first, last, call = notebooks[key]
    driver = _keyword(call, "driver")
    if not isinstance(driver, str) or not _NAME.fullmatch(driver):
        raise ScaffoldError(
            f"KEY = {key!r}: its catalogue entry was not made by the scaffold (no "
            "driver=...); remove "
            "it by hand"
        )
    paper = _keyword(call, "paper")
    shared = any(_keyword(c, "paper") == paper for k, (_, _, c) in notebooks.items() if k != key)
    spans = [(first, last)] + ([papers[paper]] if paper in papers and not shared else [])
    for span in sorted(
        spans, reverse=True
    ):  # the later entry first, so the earlier one's lines stay put
        catalog = _without_lines(catalog, *span)
    w.edit("fairlib/repro/catalog.py", catalog)
    drivers = w.read("fairlib/repro/experiments/__init__.py").replace(
        f"from . import {driver}\n", ""
    )
    w.edit(
        "fairlib/repro/experiments/__init__.py", drivers.replace(f'__all__ += ["{driver}"]\n', "")
    )
    for doc in ("docs/claims-coverage.md", "docs/reconstructions.md"):
        w.edit(doc, _section_removed(w.read(doc), key))
    verify = w.read("fairlib/repro/verify.py")
    if (kept := _without_tolerances(verify, key)) != verify:
        w.edit("fairlib/repro/verify.py", kept)
    _ledger_without(w, key)
    gone = []
    for rel in (
        f"notebooks/{key}.ipynb",
        f"notebooks/claims/{key}.toml",
        f"fairlib/repro/experiments/{driver}.py",
        f"tests/test_{driver}_findings.py",
        f"figures/{key}",
        f"data/results/{key}",
        f"executed/{key}.ipynb",
        f"executed/{key}.md",
    ):
        path = root / rel
        if path.is_dir():
            shutil.rmtree(path)
            gone.append(rel)
        elif path.exists():
            path.unlink()
            gone.append(rel)
    edited = w.commit()
    return sorted(set(gone + edited + _render(root)))


def scaffold_tolerance(
    key: str,
    rtol: float,
    atol: float,
    reason: str,
    *,
    digits: int = 10,
    root: Path | None = None,
) -> list[str]:
    """Declare notebook ``key``'s tolerance for ``run_all.py --verify``'s "another CPU" check: a
    notebook-wide entry ``{key: {"*": {"*": Tolerance(rtol, atol, reason, digits)}}}`` in
    :data:`fairlib.repro.verify.TOLERANCES`, then render ``docs/verify.md`` again; returns the paths
    written, relative to ``root``.

    Name tables and columns by hand once the notebook's tables are committed; before that only a
    notebook-wide entry is accepted.

    Parameters
    ----------
    key : str
        The notebook's key, in the catalogue.
    rtol, atol : float
        Relative and absolute tolerance, each from 1e-15 to 0.1.
    reason : str
        What bounds the move between CPUs (a solver's stopping test, a sum's order), one line of
        20 to 400 characters.
    digits : int, default 10
        Significant digits the notebook's tables report (from 3 to 17).
    root : pathlib.Path, optional
        The checkout to work on (default: this one).

    Returns
    -------
    list of str
        The paths written, relative to ``root``.

    Raises
    ------
    ScaffoldError
        When an argument is malformed (the message names its command-line option) or the
        checkout is not in the state it needs; nothing is written.
    """
    root = _root(root)
    key = _check_name(key, "KEY")
    try:
        rtol = as_tolerance(rtol, "--rtol")
        atol = as_tolerance(atol, "--atol")
    except ValueError as exc:
        raise ScaffoldError(str(exc)) from None
    if not isinstance(reason, str) or "\n" in reason or not 20 <= len(reason.strip()) <= 400:
        raise ScaffoldError(
            f"--reason = {reason!r}: one line of 20 to 400 characters saying what bounds the move "
            "between CPUs"
        )
    if isinstance(digits, bool) or not isinstance(digits, int) or not 3 <= digits <= 17:
        raise ScaffoldError(f"--digits = {digits!r}: must be a whole number from 3 to 17")
    w = _Writer(root)
    notebooks, _ = _catalog_entries(w.read("fairlib/repro/catalog.py"))
    if key not in notebooks:
        raise ScaffoldError(f"KEY = {key!r}: not in fairlib/repro/catalog.py (scaffold the paper)")
    source = w.read("fairlib/repro/verify.py")
    if re.search(rf'^    "{key}": {{', source, flags=re.M):
        raise ScaffoldError(
            f"KEY = {key!r}: already has tolerances in fairlib/repro/verify.py; edit them there"
        )
    entry = "\n".join(
        [
            f'"{key}": {{',
            '    "*": {',
            '        "*": Tolerance(',
            f"            {rtol!r},",
            f"            {atol!r},",
            *(
                f"            {line}"
                for line in (_literal("reason", reason.strip()) + ",").split("\n")
            ),
            f"            digits={digits},",
            "        )",
            "    }",
            "},",
        ]
    )
    w.edit(
        "fairlib/repro/verify.py",
        _insert_before(source, _TOLERANCES_MARKER, entry, "fairlib/repro/verify.py"),
    )
    return sorted(set(w.commit() + _render(root)))


def _without_tolerances(text: str, key: str) -> str:
    """``text`` (``fairlib/repro/verify.py``) without notebook ``key``'s ``TOLERANCES`` entry, when
    it has one (from its ``    "key": {`` line to the ``    },`` that closes it)."""
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.startswith(f'    "{key}": {{'):
            end = next(j for j in range(i, len(lines)) if lines[j].rstrip() == "    },")
            return "".join(lines[:i] + lines[end + 1 :])
    return text


# --- a mechanism ----------------------------------------------------------------------------------

_POOLED = '''"""{label}: a pooled mechanism.

Contract: ``{name}(cluster, *, start=None) -> Allocation``.

Started by ``python -m fairlib.repro.scaffold mechanism ... --pooled`` with a placeholder rule —
each user's weighted slice of its dominant resource, w_n / Σw / s_n tasks (s_n: one task's dominant
share), all scaled by one factor until a resource is full, on top of the tasks it holds (``start``)
— which meets every registry-wide test. Replace the kernel's rule with the paper's, keeping the
split: the kernel computes on contiguous float64 arrays, the wrapper validates, converts and wraps.
Its slow reference is in ``tests/reference.py``.
"""

from __future__ import annotations

import numpy as np

from .._jit import interpreted_when_small, njit
from .._validate import InvalidInputError, as_values
from .cluster import Allocation, Cluster, pool_arrays, pool_column

__all__ = ["{name}"]


@njit(cache=True)
def _{name}_kernel(capacity, demand, weight, held):
    """The placeholder rule's task counts.

    Parameters
    ----------
    capacity : (n_resources,) float64 array
        The pool's capacities.
    demand : (n_users, n_resources) float64 array
        One task's demands.
    weight : (n_users,) float64 array
        The users' weights.
    held : (n_users,) float64 array
        Tasks each user holds.

    Returns
    -------
    (n_users,) float64 array
        Task counts.
    """
    n, m = demand.shape
    total_weight = 0.0
    for i in range(n):
        total_weight += weight[i]
    slices = np.empty(n)
    for i in range(n):
        dominant = 0.0
        for r in range(m):
            dominant = max(dominant, demand[i, r] / capacity[r])
        slices[i] = weight[i] / total_weight / dominant
    scale = np.inf
    for r in range(m):
        use, held_use = 0.0, 0.0
        for i in range(n):
            use += slices[i] * demand[i, r]
            held_use += held[i] * demand[i, r]
        if use > 0.0:
            scale = min(scale, (capacity[r] - held_use) / use)
    if not scale > 0.0 or scale == np.inf:
        scale = 0.0
    tasks = np.empty(n)
    for i in range(n):
        tasks[i] = held[i] + scale * slices[i]
    return tasks


@interpreted_when_small
def {name}(cluster: Cluster, *, start=None) -> Allocation:
    """{label} on a single pool (placeholder rule, see the module docstring).

    Parameters
    ----------
    cluster : Cluster
        A single pool (:meth:`Cluster.single_pool`), weights honoured.
    start : (n_users,) array_like, optional
        Tasks each user holds: kept, never taken back.

    Returns
    -------
    Allocation
        ``tasks[user, 0]``, real task counts.

    References
    ----------
    .. [1] The paper whose rule this implements: replace with its authors, title, venue and
       the section or equation (the placeholder rule is the scaffold's own).

    Examples
    --------
    The DRF paper's pool (9 CPUs, 18 GB; A needs <1, 4>, B <3, 1>):

    >>> out = {name}(Cluster.single_pool([9, 18], [[1, 4], [3, 1]]))
    >>> out.tasks.ravel().round(6).tolist()
    [3.0, 2.0]
    """
    cap, dem, w = pool_arrays(cluster, "{name}")
    held = np.zeros(cluster.n_users)
    if start is not None:
        # one number per user (tasks held), finite and >= 0: errors name the entry and its value
        held = as_values(start, "start", ndim=1, shape=(cluster.n_users,))
        used = held @ dem
        if (used > cap * (1 + 1e-12)).any():
            r = int(np.argmax(used - cap))
            raise InvalidInputError(
                f"start: uses {{used[r]:g}} of resource {{r}}, "
                f"more than its capacity {{cap[r]:g}}"
            )
    tasks = _{name}_kernel(
        np.ascontiguousarray(cap, dtype=np.float64), np.ascontiguousarray(dem, dtype=np.float64),
        np.ascontiguousarray(w, dtype=np.float64), held)
    return Allocation(cluster, pool_column(tasks), "{name}")
'''

_MULTI = '''"""{label}: a multi-server mechanism.

Contract: ``{name}(cluster) -> Allocation``.

Started by ``python -m fairlib.repro.scaffold mechanism ... --multi-server`` with a placeholder
rule — every server's time split equally among the users who can use it (user n gets γ[n, i] /
k_i tasks on server i, k_i the users eligible there) — which meets every registry-wide test.
Replace the kernel's rule with the paper's, keeping the split: the kernel computes on contiguous
arrays, the wrapper validates, converts and wraps. Its slow reference is in
``tests/reference.py``.
"""

from __future__ import annotations

import numpy as np

from .._jit import interpreted_when_small, njit
from .._validate import InvalidInputError
from .cluster import Allocation, Cluster

__all__ = ["{name}"]


@njit(cache=True)
def _{name}_kernel(gamma, eligible):
    """The placeholder rule's task counts.

    Parameters
    ----------
    gamma : (n_users, n_servers) float64 array
        Tasks of each user a server holds alone.
    eligible : (n_users, n_servers) bool array
        Placement constraints.

    Returns
    -------
    (n_users, n_servers) float64 array
        Task counts.
    """
    n, s = gamma.shape
    tasks = np.zeros((n, s))
    for i in range(s):
        users = 0
        for u in range(n):
            if eligible[u, i]:
                users += 1
        for u in range(n):
            if eligible[u, i]:
                tasks[u, i] = gamma[u, i] / users
    return tasks


@interpreted_when_small
def {name}(cluster: Cluster) -> Allocation:
    """{label} on a cluster of servers (placeholder rule, see the module docstring).

    Parameters
    ----------
    cluster : Cluster
        Servers ``capacity[server, resource]``, users ``demand[user, resource]``, placement
        ``eligible[user, server]``.

    Returns
    -------
    Allocation
        ``tasks[user, server]``, real task counts.

    References
    ----------
    .. [1] The paper whose rule this implements: replace with its authors, title, venue and
       the section or equation (the placeholder rule is the scaffold's own).

    Examples
    --------
    The DRF paper's users on two servers of half its pool each (4.5 CPUs, 9 GB):

    >>> out = {name}(Cluster([[4.5, 9], [4.5, 9]], [[1, 4], [3, 1]]))
    >>> out.tasks.round(6).tolist()
    [[1.125, 1.125], [0.75, 0.75]]
    """
    if not isinstance(cluster, Cluster):
        raise InvalidInputError(f"cluster: expected a Cluster, got {{type(cluster).__name__}}")
    cluster.refuse_caps("{name}")
    tasks = _{name}_kernel(
        np.ascontiguousarray(cluster.gamma, dtype=np.float64),
        np.ascontiguousarray(cluster.eligible, dtype=np.bool_),
    )
    return Allocation(cluster, tasks, "{name}")
'''

_POOLED_REFERENCE = '''

def {name}_reference(cluster, start=None):
    """Slow reference of ``fairlib.multires.{name}``:
    the largest common scale of the weighted dominant slices that fits on top of ``start``, as a
    linear program (HiGHS), each resource's row in shares of its capacity (HiGHS's tolerances are
    absolute: in the user's units they would not hold at capacities of 1e12 or 1e-12)."""
    from scipy.optimize import linprog

    cap, dem, w = cluster.capacity[0], cluster.demand, cluster.weight
    held = np.zeros(len(w)) if start is None else np.asarray(start, dtype=float)
    share = dem / cap
    slices = w / w.sum() / share.max(axis=1)
    res = linprog(
        [-1.0],
        A_ub=(slices @ share)[:, None],
        b_ub=1.0 - held @ share,
        bounds=[(0, None)],
        method="highs",
    )
    return held + res.x[0] * slices
'''

_MULTI_REFERENCE = '''

def {name}_reference(cluster):
    """Slow reference of ``fairlib.multires.{name}``:
    server by server, user by user, in Python."""
    tasks = np.zeros((cluster.n_users, cluster.n_servers))
    for i in range(cluster.n_servers):
        users = [u for u in range(cluster.n_users) if cluster.eligible[u, i]]
        for u in users:
            tasks[u, i] = min(
                cluster.capacity[i, r] / cluster.demand[u, r]
                for r in range(cluster.n_resources)
                if cluster.demand[u, r] > 0
            ) / len(users)
    return tasks
'''

# the head every scaffolded mechanism test shares: what it tests, why it needs no edit
_TEST_HEADER = '''"""The differential test of ``fairlib.multires.{name}``
against its slow reference (tests/reference.py).

Written by the scaffold so that it needs no edit: it holds for any rule whose reference says the
same.
The paper's worked example (its known answer) is a claim of the paper,
measured by the driver and asserted in the driver's findings test.
The rules every mechanism meets: ``pytest -m registry -k {name}``.
"""

import numpy as np
import pytest

from fairlib import InvalidInputError
'''

_POOLED_TEST = (
    _TEST_HEADER
    + '''from fairlib.multires import Cluster, {name}
from tests.reference import {name}_reference


def test_matches_the_reference_on_the_drf_example():
    """The DRF paper's pool (9 CPUs, 18 GB; tasks ⟨1, 4⟩ and ⟨3, 1⟩), with nothing held and
    with a held task."""
    cluster = Cluster.single_pool([9, 18], [[1, 4], [3, 1]])
    for start in (None, np.array([1.0, 0.0])):
        ours = {name}(cluster, start=start).tasks.ravel()
        np.testing.assert_allclose(ours, {name}_reference(cluster, start), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("seed", range(30))
def test_matches_the_reference(seed):
    rng = np.random.default_rng(seed)
    n, m = rng.integers(1, 8), rng.integers(1, 4)
    cluster = Cluster.single_pool(rng.uniform(5, 20, m), rng.uniform(0.1, 1.0, (n, m)),
                                  weight=rng.choice([1.0, 2.0, 4.0], n))
    start = rng.uniform(0, 0.5, n) * (seed % 2)
    ours = {name}(cluster, start=start).tasks.ravel()
    np.testing.assert_allclose(ours, {name}_reference(cluster, start), rtol=1e-9, atol=1e-12)


def test_a_start_beyond_the_capacity_is_named():
    with pytest.raises(InvalidInputError, match="start: uses"):
        {name}(Cluster.single_pool([9, 18], [[1, 4], [3, 1]]), start=[10, 0])
'''
)

_MULTI_TEST = (
    _TEST_HEADER
    + """from fairlib.multires import Cluster, random_cluster, {name}
from tests.reference import {name}_reference


def test_matches_the_reference_on_the_drf_example_split_over_two_servers():
    cluster = Cluster([[4.5, 9], [4.5, 9]], [[1, 4], [3, 1]])
    ours = {name}(cluster).tasks
    np.testing.assert_allclose(ours, {name}_reference(cluster), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("seed", range(30))
def test_matches_the_reference(seed):
    rng = np.random.default_rng(seed)
    cluster = random_cluster(
        rng, int(rng.integers(1, 8)), int(rng.integers(1, 4)), int(rng.integers(1, 4))
    )
    ours = {name}(cluster).tasks
    np.testing.assert_allclose(ours, {name}_reference(cluster), rtol=1e-9, atol=1e-12)


def test_anything_but_a_cluster_is_named():
    with pytest.raises(InvalidInputError, match="cluster: expected a Cluster"):
        {name}(np.ones((2, 2)))
"""
)


_GAME = '''"""{label}: a game-type mechanism.

Contract: ``{name}(game) -> GameOutcome``.

Started by ``python -m fairlib.repro.scaffold mechanism ... --game`` with a placeholder rule — \
each user bids its budget
in proportion to its weights, over its k_i highest-weight machines under finite parallelism \
(EC'05's static baseline) —
which meets every registry-wide game test. Replace the kernel's rule with the paper's, keeping the \
split: the kernel
computes the bids on contiguous arrays, the wrapper validates, converts and wraps them in a \
``GameOutcome`` (which
derives the shares, prices, utilities and the certificate ``residual``). Its slow reference is in
``tests/reference.py``. Each ``TODO(scaffold)`` mark names what to replace; \
``tests/test_{name}.py`` fails until
none is left.
"""

from __future__ import annotations

import numpy as np

from .._jit import interpreted_when_small, njit
from .._validate import as_instance
from .game import Game
from .outcome import GameOutcome

__all__ = ["{name}"]


@njit(cache=True)
def _{name}_kernel(weights, budgets, parallelism):
    """The placeholder rule's bids.

    Parameters
    ----------
    weights : (n_users, n_machines) float64 array
        Valuations.
    budgets : (n_users,) float64 array
        Budgets.
    parallelism : (n_users,) int64 array
        Machines each user bids on at most.

    Returns
    -------
    (n_users, n_machines) float64 array
        Bids.
    """
    # TODO(scaffold): the paper's rule in place of the placeholder (weight-proportional bids)
    m, n = weights.shape
    bids = np.zeros((m, n))
    for i in range(m):
        # highest weight first, ties to the lower index
        order = np.argsort(-weights[i], kind="mergesort")
        k = min(parallelism[i], n)
        total = 0.0
        for t in range(k):
            total += weights[i, order[t]]
        for t in range(k):
            j = order[t]
            bids[i, j] = budgets[i] * weights[i, j] / total
    return bids


@interpreted_when_small
def {name}(game: Game) -> GameOutcome:
    """{label} on a game (placeholder rule, see the module docstring).

    Parameters
    ----------
    game : Game
        Weights ``w[user, machine]``, budgets, parallelism (None: infinite) and the reserve bid.

    Returns
    -------
    GameOutcome
        ``bids[user, machine]`` (each user's summing to its budget) and the shares, prices,
        utilities and certificate they imply.

    References
    ----------
    .. [1] TODO(scaffold): the paper whose rule this implements: its authors, title, venue and
       the section or equation (the placeholder rule is EC'05's weight-proportional baseline).

    Examples
    --------
    Two users on two machines, budgets 1 and 2:

    >>> out = {name}(Game([[0.7, 0.3], [0.4, 0.6]], budgets=[1.0, 2.0]))
    >>> out.bids.round(6).tolist()
    [[0.7, 0.3], [0.8, 1.2]]
    """
    as_instance(game, Game, "game")
    k = np.full(game.n_users, game.n_machines) if game.parallelism is None else game.parallelism
    bids = _{name}_kernel(np.ascontiguousarray(game.weights, dtype=np.float64),
                          np.ascontiguousarray(game.budgets, dtype=np.float64),
                          np.ascontiguousarray(k, dtype=np.int64))
    return GameOutcome(game, bids, "{name}")
'''

_GAME_REFERENCE = '''

def {name}_reference(game):
    """Slow reference of ``fairlib.market.{name}``:
    user by user in Python, each budget in proportion to the weights of the user's k_i \
highest-weight machines (ties
    to the lower index)."""
    # TODO(scaffold): the paper's rule, computed another way than the kernel
    m, n = game.weights.shape
    bids = np.zeros((m, n))
    for i in range(m):
        k = n if game.parallelism is None else int(game.parallelism[i])
        chosen = sorted(range(n), key=lambda j, i=i: (-game.weights[i, j], j))[:k]
        total = sum(game.weights[i, j] for j in chosen)
        for j in chosen:
            bids[i, j] = game.budgets[i] * game.weights[i, j] / total
    return bids
'''

_GAME_TEST = '''"""The differential test of ``fairlib.market.{name}``
against its slow reference (tests/reference.py).

Written by the scaffold so that it needs no edit: it holds for any rule whose reference says the
same.
The paper's worked example (its known answer) is a claim of the paper,
measured by the driver and asserted in the driver's findings test.
The rules every game meets: ``pytest -m games -k {name}``.
"""

import importlib
import inspect

import numpy as np
import pytest

from fairlib import InvalidInputError, games
from fairlib.market import Game, uniform_preferences, {name}
from tests.reference import {name}_reference

#: what the game is registered for: the games below use a Game's budgets, finite parallelism and
#: reserve bid only where the registration declares them (``scaffold mechanism --without`` leaves
#: one out, and the rule may then refuse it)
CAPABILITIES = games.get("{name}").capabilities


def test_matches_the_reference_on_the_two_player_game():
    """EC'05 §3.3: two users with opposite weights (0.7, 0.3) and (0.3, 0.7) on two machines."""
    game = Game([[0.7, 0.3], [0.3, 0.7]], reserve=1e-9 if "reserve" in CAPABILITIES else 0.0)
    ours = {name}(game).bids
    np.testing.assert_allclose(ours, {name}_reference(game), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("seed", range(30))
def test_matches_the_reference(seed):
    rng = np.random.default_rng(seed)
    # without a reserve bid, a game needs two users valuing every machine (EC'05 Thm 1)
    m = int(rng.integers(1 if "reserve" in CAPABILITIES else 2, 8))
    n = int(rng.integers(1, 6))
    game = Game(
        uniform_preferences(rng, m, n),
        budgets=rng.choice([1.0, 2.0, 4.0], m) if "budgets" in CAPABILITIES else None,
        parallelism=(
            rng.integers(1, n + 1, m) if seed % 2 and "parallelism" in CAPABILITIES else None
        ),
        reserve=1e-6 if "reserve" in CAPABILITIES else 0.0,
    )
    ours = {name}(game).bids
    np.testing.assert_allclose(ours, {name}_reference(game), rtol=1e-9, atol=1e-12)


def test_anything_but_a_game_is_named():
    with pytest.raises(InvalidInputError, match="game = .*must be a Game"):
        {name}(np.ones((2, 2)))
'''


# the last test of every scaffolded game's test file, filled by _fill: a placeholder left in place
# fails it, with the file, the line and what to write there
_PLACEHOLDER_TEST = '''

#: the mark the scaffold leaves wherever the paper's text must replace its placeholder
MARK = "TODO(scaffold):"


def test_the_scaffold_placeholders_are_replaced():
    """Fails while a ``TODO(scaffold)`` mark is left in the module or its reference, naming each
    place and what to write there: the placeholder rule passes every other test, so this one
    keeps it from passing for the paper's."""
    module = importlib.import_module("fairlib.market.{name}")
    left = []
    for where in (module, {name}_reference):
        lines, first = inspect.getsourcelines(where)
        path = inspect.getsourcefile(where)
        first = max(first, 1)  # a module's source starts at line 1, reported as 0
        left += [f"{path}:{first + k}: {line.strip()}" for k, line in enumerate(lines) if MARK in \
line]
    assert not left, "replace the scaffold's placeholders with the paper's:\\n" + "\\n".join(left)
'''


# --- a game on a model of its own (--new-model) ---------------------------------------------------
# These templates are filled by _fill (plain replacement of {name}, {Model} and {label}), so braces
# in them are literal, and they are written as ruff formats them: every line at most 100 characters.

_MODEL = '''"""{label}: a game on a model of its own, ``{Model}``.

Contract: ``{name}(game: {Model}) -> {Model}Outcome``.

Started by ``python -m fairlib.repro.scaffold mechanism ... --new-model {Model}`` with a
placeholder model and rule that meet every registry-wide game test. The model, ``{Model}``,
holds the valuations ``weights[user, machine]`` and a reserve bid ε; the rule has each user
split one unit of bids in proportion to its weights, and machine j's shares are
x_ij / (Σ_k x_kj + ε), the proportional-share rule.

Replace, keeping the split between kernel and wrapper (each ``TODO(scaffold)`` mark names the
place; ``tests/test_{name}.py`` fails until none is left):

- the model's fields and checks with the paper's (``{Model}.__init__``, with the helpers of
  ``fairlib._validate``: errors name the argument, the index and the value), and
  ``{Model}.from_weights``, which builds the small instances the registry's checks and the
  kernel warm-up play from a users x machines weight matrix;
- the kernel's rule with the paper's (the kernel computes on contiguous float64 arrays, the
  wrapper validates, converts and wraps), and ``_certificate`` with the model's certificate,
  the outcome's ``residual`` (0 at an equilibrium);
- its slow reference in ``tests/reference.py`` (``{name}_reference``).

``{Model}Outcome`` checks what it is given (the contract of ``tests/test_api_contract.py``
probes its constructor as any other) and derives its ``residual`` from the bids, so no rule
can report a certificate its bids do not earn.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from .._jit import interpreted_when_small, njit
from .._validate import (
    MAX_ITERATIONS,
    InvalidInputError,
    _short,
    as_count,
    as_flag,
    as_instance,
    as_number,
    as_values,
    check_choice,
    read_only_state,
)
from .game import as_weight_matrix

__all__ = ["{Model}", "{Model}Outcome", "{name}"]

#: this module's rules: the ``method`` of the outcomes ``{Model}Outcome`` records
METHODS = ("{name}",)


@read_only_state
@dataclass(frozen=True, init=False, eq=False)
class {Model}:
    """An instance of the model: the users' valuations of the machines and a reserve bid.

    Parameters
    ----------
    weights : (n_users, n_machines) array_like
        ``weights[user, machine]``: finite, >= 0, every user valuing some machine.
    reserve : float
        The bid ε a dummy bidder places on every machine: 0 (none) or from 1e-9 to 1e6.

    Examples
    --------
    >>> {Model}([[0.7, 0.3], [0.4, 0.6]], reserve=0.1).n_machines
    2
    """

    weights: np.ndarray
    reserve: float = 0.0

    def __init__(self, weights, reserve: float = 0.0):
        # TODO(scaffold): the paper's fields and their checks (the placeholder's valuations here)
        # a read-only copy: the instance cannot change under an outcome, the caller's array stays
        # writeable
        w = as_weight_matrix(weights).copy()
        w.flags.writeable = False
        object.__setattr__(self, "weights", w)
        # the range the rule answers: 0 (none) or a bid from 1e-9 to 1e6 (users bid one unit each)
        reserve = as_number(reserve, "reserve", inclusive=True, maximum=1e6)
        if 0 < reserve < 1e-9:
            raise InvalidInputError(f"reserve = {reserve!r}: must be 0 or from 1e-9 to 1e6")
        object.__setattr__(self, "reserve", reserve)

    @property
    def n_users(self) -> int:
        """Number of users (rows of ``weights``)."""
        return int(self.weights.shape[0])

    @property
    def n_machines(self) -> int:
        """Number of machines (columns of ``weights``)."""
        return int(self.weights.shape[1])

    @classmethod
    def from_weights(cls, weights, reserve: float = 0.0) -> {Model}:
        """A small instance built from a users x machines weight matrix.

        The registry's checks (``fairlib.testing``) and the kernel warm-up build the instances
        they play through it.

        Parameters
        ----------
        weights : (n_users, n_machines) array_like
            Finite, >= 0, every user valuing some machine.
        reserve : float
            The reserve bid ε >= 0.

        Returns
        -------
        {Model}
            The instance whose valuations are ``weights``.

        Examples
        --------
        >>> {Model}.from_weights([[1.0, 0.0], [0.5, 0.5]]).n_users
        2
        """
        return cls(weights, reserve=reserve)


def _certificate(game: {Model}, bids: np.ndarray, shares: np.ndarray) -> float:
    """The outcome's ``residual``: 0 at an equilibrium of the model, > 0 elsewhere."""
    # TODO(scaffold): the model's certificate (e.g. the largest gain of a user's best response);
    # the placeholder rule claims no equilibrium, and inf says so
    return float("inf")


@read_only_state
@dataclass(frozen=True, eq=False)
class {Model}Outcome:
    """What ``{name}`` returns: the bids, the shares they buy and a certificate.

    Built by ``{name}``; its constructor checks every field, as the library's input types do.

    Parameters
    ----------
    game : {Model}
        The instance played.
    bids : (n_users, n_machines) array_like
        ``bids[user, machine]``: finite, >= 0; stored as a read-only float64 array.
    shares : (n_users, n_machines) array_like
        ``shares[user, machine]``, the fraction of machine j user i receives: finite, >= 0, each
        machine's summing to at most 1; stored as a read-only float64 array.
    method : str
        The rule that produced it, one of :data:`METHODS`.
    converged : bool, default True
        Whether the rule reached what it computes.
    iterations : int, default 0
        Iterations run (0 for a closed form), at most ``fairlib._validate.MAX_ITERATIONS``.
    message : str, default ""
        Why the rule stopped short: empty when it converged, and required when it did not.
    extras : Mapping, default empty
        Method-specific values, stored read-only.

    Attributes
    ----------
    residual : float
        The certificate, derived from the bids: 0 at an equilibrium of the model.

    Raises
    ------
    InvalidInputError
        When a field does not fit the game or its type, naming it.

    Examples
    --------
    >>> game = {Model}([[1.0], [1.0]])
    >>> out = {Model}Outcome(
    ...     game, [[0.5], [0.5]], [[0.5], [0.5]], "{name}"
    ... )
    >>> out.shares.tolist(), out.converged
    ([[0.5], [0.5]], True)
    """

    game: {Model}
    bids: np.ndarray
    shares: np.ndarray
    method: str
    converged: bool = True
    iterations: int = 0
    message: str = ""
    extras: Mapping = field(default_factory=lambda: MappingProxyType({}))
    residual: float = field(init=False)

    def __post_init__(self):
        game = as_instance(self.game, {Model}, "game")
        shape = (game.n_users, game.n_machines)
        for name in ("bids", "shares"):
            array = as_values(getattr(self, name), name, ndim=2, shape=shape).copy()
            array.flags.writeable = False
            object.__setattr__(self, name, array)
        over = self.shares.sum(axis=0) - 1.0
        if (over > 1e-12).any():
            j = int(np.argmax(over))
            raise InvalidInputError(
                f"shares[:, {j}] sums to {over[j] + 1.0!r}: a machine's shares sum to at most 1"
            )
        check_choice(self.method, METHODS, "method")
        object.__setattr__(self, "converged", as_flag(self.converged, "converged"))
        if not isinstance(self.message, str) or bool(self.message) == self.converged:
            raise InvalidInputError(
                f"message = {_short(self.message)}: must be a str, empty when the rule converged "
                "and saying why when it did not"
            )
        iterations = as_count(self.iterations, "iterations", minimum=0, maximum=MAX_ITERATIONS)
        object.__setattr__(self, "iterations", iterations)
        extras = as_instance(self.extras, Mapping, "extras")
        object.__setattr__(self, "extras", MappingProxyType(dict(extras)))
        object.__setattr__(self, "residual", _certificate(game, self.bids, self.shares))


@njit(cache=True)
def _{name}_kernel(weights, reserve):
    """The placeholder rule's bids and shares.

    Parameters
    ----------
    weights : (n_users, n_machines) float64 array
        The valuations, every row with a positive entry.
    reserve : float
        The reserve bid ε on every machine.

    Returns
    -------
    bids, shares : (n_users, n_machines) float64 arrays
        Each user's unit split in proportion to its weights, and x_ij / (Σ_k x_kj + ε).
    """
    # TODO(scaffold): the paper's rule in place of the placeholder (a unit split by the weights)
    m, n = weights.shape
    bids = np.zeros((m, n))
    for i in range(m):
        total = 0.0
        for j in range(n):
            total += weights[i, j]
        for j in range(n):
            bids[i, j] = weights[i, j] / total
    shares = np.zeros((m, n))
    for j in range(n):
        price = reserve
        for i in range(m):
            price += bids[i, j]
        if price > 0.0:
            for i in range(m):
                shares[i, j] = bids[i, j] / price
    return bids, shares


@interpreted_when_small
def {name}(game: {Model}) -> {Model}Outcome:
    """{label} on a ``{Model}`` (placeholder rule, see the module docstring).

    Parameters
    ----------
    game : {Model}
        The instance: valuations ``weights[user, machine]`` and the reserve bid.

    Returns
    -------
    {Model}Outcome
        ``bids[user, machine]`` (each user's summing to 1), the shares they buy and the
        certificate ``residual``.

    References
    ----------
    .. [1] TODO(scaffold): the paper whose rule this implements: its authors, title, venue and
       the section or equation (the placeholder rule is the scaffold's own).

    Examples
    --------
    Two users on two machines:

    >>> out = {name}({Model}([[0.7, 0.3], [0.4, 0.6]]))
    >>> out.bids.round(4).tolist()
    [[0.7, 0.3], [0.4, 0.6]]
    >>> out.shares.round(4).tolist()
    [[0.6364, 0.3333], [0.3636, 0.6667]]
    """
    as_instance(game, {Model}, "game")
    bids, shares = _{name}_kernel(
        np.ascontiguousarray(game.weights, dtype=np.float64), float(game.reserve)
    )
    return {Model}Outcome(game, bids, shares, "{name}")
'''

_MODEL_REFERENCE = '''

def {name}_reference(game):
    """Slow reference of ``fairlib.market.{name}``: (bids, shares), user by user and machine by
    machine in Python."""
    # TODO(scaffold): the paper's rule, computed another way than the kernel
    weights = game.weights.tolist()
    m, n = len(weights), len(weights[0])
    bids = [[w / sum(row) for w in row] for row in weights]
    shares = np.zeros((m, n))
    for j in range(n):
        price = game.reserve + sum(bids[i][j] for i in range(m))
        for i in range(m):
            shares[i, j] = bids[i][j] / price if price > 0 else 0.0
    return np.array(bids), shares
'''

_MODEL_TEST = '''\
"""``fairlib.market.{name}`` and its model ``{Model}``: the differential test against the
slow reference (tests/reference.py) and bad input named.

Written by the scaffold so that it needs no edit: it builds its instances through
``{Model}.from_weights`` and holds for any rule whose reference says the same. The API contract
(tests/test_api_contract.py) feeds every argument of ``{Model}`` and ``{name}`` bad values. The
paper's worked example (its known answer) is a claim of the paper, measured by the driver and
asserted in the driver's findings test. The rules every game meets: ``pytest -m games -k {name}``.
"""

import importlib
import inspect

import numpy as np
import pytest

from fairlib import InvalidInputError, games
from fairlib.market import {Model}, uniform_preferences, {name}
from fairlib.testing import RESERVE
from tests.reference import {name}_reference

#: the reserve the instances are played with, as the registry's checks play them: the perturbed
#: game's when the registration has the "reserve" capability (a rule that needs a reserve to have a
#: best response may then refuse 0), else none
PLAYED_RESERVE = RESERVE if "reserve" in games.get("{name}").capabilities else 0.0


def _assert_matches_the_reference(game):
    out = {name}(game)
    bids, shares = {name}_reference(game)
    np.testing.assert_allclose(out.bids, bids, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(out.shares, shares, rtol=1e-9, atol=1e-12)
    assert out.game is game


def test_matches_the_reference_on_two_users():
    _assert_matches_the_reference(
        {Model}.from_weights([[0.7, 0.3], [0.3, 0.7]], reserve=PLAYED_RESERVE)
    )


@pytest.mark.parametrize("seed", range(30))
def test_matches_the_reference(seed):
    rng = np.random.default_rng(seed)
    users, machines = int(rng.integers(1, 8)), int(rng.integers(1, 6))
    weights = uniform_preferences(rng, users, machines)
    _assert_matches_the_reference({Model}.from_weights(weights, reserve=PLAYED_RESERVE))


def test_anything_but_the_model_is_named():
    with pytest.raises(InvalidInputError, match="game = .*must be a {Model}"):
        {name}(np.ones((2, 2)))


@pytest.mark.parametrize(
    ("weights", "reserve", "named"),
    [
        ([[0.5, -1.0]], 0.0, r"\\[0, 1\\] = -1.0"),
        ([[0.5, np.nan]], 0.0, r"\\[0, 1\\] = nan"),
        ([[1.0, 0.0], [0.0, 0.0]], 0.0, r"\\[1\\]"),
        ([[1.0]], -0.5, "reserve"),
    ],
)
def test_bad_input_is_named(weights, reserve, named):
    with pytest.raises(InvalidInputError, match=named):
        {Model}.from_weights(weights, reserve=reserve)
'''


def _house_colors() -> list[str]:
    """The colours a new mechanism or game may take, in the order it takes them: Okabe–Ito
    (:data:`fairlib.repro.plotting.OKABE_ITO`; yellow, too light on white, and black, the colour of
    the optimum and the reference lines, left out), then Paul Tol's muted palette
    (:data:`fairlib.repro.plotting.TOL_MUTED`; sand left out), each told apart with every common
    colour-vision deficiency."""
    from .plotting import OKABE_ITO, TOL_MUTED

    return [c for k, c in OKABE_ITO.items() if k not in ("yellow", "black")] + [
        c for k, c in TOL_MUTED.items() if k != "sand"
    ]


def _free_color(*registry_texts: str) -> str | None:
    """The first colour of :func:`_house_colors` that no registered mechanism or game uses (in this
    process's registries, and in ``registry_texts``, the registries of the checkout being scaffolded
    into: a literal ``color="#RRGGBB"`` or an Okabe–Ito colour by name), or None when all are
    taken (the registry then gives the new entry the colour its name fixes, and its marker and line
    style tell it apart)."""
    from .. import games, mechanisms
    from .plotting import OKABE_ITO

    used = {m.color.lower() for m in mechanisms.select()} | {
        g.color.lower() for g in games.select()
    }
    for text in registry_texts:
        used |= {c.lower() for c in re.findall(r'color="(#[0-9A-Fa-f]{6})"', text)}
        used |= {
            OKABE_ITO[k].lower()
            for k in re.findall(r'_OKABE_ITO\["(\w+)"\]', text)
            if k in OKABE_ITO
        }
    return next((c for c in _house_colors() if c.lower() not in used), None)


def _game_registration(
    name: str,
    label: str,
    capabilities: tuple[str, ...],
    tol: float | None,
    model: str | None,
    color: str | None,
) -> str:
    """The ``register_game(...)`` call of a scaffolded game, one argument a line (ruff formats the
    file)."""
    caps = ", ".join(f'"{c}"' for c in capabilities) + ("," if len(capabilities) == 1 else "")
    fields = [f'"{name}"', f"market.{name}", _literal("label", label)]
    fields += [f'color="{color}"'] if color else []
    fields += [f"capabilities=({caps})"]
    fields += [f"tol={tol!r}"] if tol is not None else []
    fields += [f"instance=market.{model}"] if model else []
    return "\n".join(["register_game("] + _field_lines("    ", fields)).removesuffix(",")


def scaffold_mechanism(
    name: str,
    kind: str,
    *,
    label: str | None = None,
    paper: str | None = None,
    model: str | None = None,
    equilibrium: float | None = None,
    without: str | tuple[str, ...] = (),
    root: Path | None = None,
) -> list[str]:
    """Create mechanism ``name`` (``kind``: ``"pooled"``, ``"multi_server"``, ``"game"`` or
    ``"model"``, a game on a model of its own, whose instance type is the class ``model``): module,
    export, registration, reference and test (see the module docstring); returns the paths written,
    relative to ``root``.

    Parameters
    ----------
    name : str
        The function's name, a lower-case identifier.
    kind : {"pooled", "multi_server", "game", "model"}
        What it is.
    label : str, optional
        Its name in legends and tables (default ``name``), at most 40 characters.
    paper : str, optional
        The key of the paper whose loop runs its tests.
    model : str, optional
        With kind ``"model"``: the instance type's class name.
    equilibrium : float, optional
        With kind ``"game"`` or ``"model"``: the game reaches a Nash equilibrium, certified within
        this tolerance (from 1e-15 to 0.1); it is registered with the ``"equilibrium"`` capability
        and ``tol=``.
    without : tuple of str, default ()
        With kind ``"game"`` or ``"model"``: capabilities of :data:`GAME_CAPABILITIES` the paper's
        rule does not define, left out of the registration (the registry then refuses an instance
        that uses one, naming it); a comma-separated string too. A blank name (``""``, ``"a,,b"``)
        is refused.
    root : pathlib.Path, optional
        The checkout to work on (default: this one).

    Returns
    -------
    list of str
        The paths written, relative to ``root``.

    Raises
    ------
    ScaffoldError
        When an argument is malformed (the message names its command-line option) or the
        checkout is not in the state it needs; nothing is written.
    """
    root = _root(root)
    name = _check_name(name, "NAME")
    if not isinstance(kind, str) or kind not in ("pooled", "multi_server", "game", "model"):
        raise ScaffoldError(
            f"kind = {kind!r}: must be 'pooled' or 'multi_server' (a mechanism on a Cluster), "
            "'game' (a game-type mechanism on a Game) or 'model' (a game on a model of its own)"
        )
    without = _check_without(without, kind)
    if paper is not None:
        _check_name(paper, "--paper")
    if label is not None and not isinstance(label, str):
        raise ScaffoldError(f"--label = {label!r}: must be text")
    if (kind == "model") != (model is not None):
        raise ScaffoldError(
            f"--new-model = {model!r}: a class name goes with kind 'model', and only with it"
        )
    if equilibrium is not None:
        if kind not in ("game", "model"):
            raise ScaffoldError(
                f"--equilibrium = {equilibrium!r}: only a game (--game or --new-model) reaches an "
                "equilibrium"
            )
        try:
            equilibrium = as_tolerance(equilibrium, "--equilibrium")
        except ValueError as exc:
            raise ScaffoldError(
                f"{exc} (the residual the game's default run guarantees, e.g. 1e-9)"
            ) from None
    if label == "":
        raise ScaffoldError(
            "--label = '': empty (the name legends and tables show; leave --label out for NAME)"
        )
    label = name if label is None else label
    if "\n" in label or '"' in label or "{" in label or "'" in label or len(label) > 40:
        raise ScaffoldError(
            f"--label = {label!r}: one line of at most 40 characters without quotes or braces (the "
            "name legends and tables show)"
        )
    from ..mechanisms import _check_display

    try:  # the rule the registries apply to the label when the generated registration runs
        _check_display(label, None)
    except InvalidInputError as exc:
        raise ScaffoldError(f"--label: {exc}") from None
    taken = _public_names(root)
    if name in taken:
        raise ScaffoldError(
            f"NAME = {name!r}: already a public name of {taken[name]} (the new function "
            "would shadow "
            "it); choose another name"
        )
    if model is not None:
        if not isinstance(model, str) or not _CLASS.fullmatch(model):
            raise ScaffoldError(
                f"--new-model = {model!r}: must be a class name in CamelCase of at most 32 "
                "characters (letters and digits, starting with a capital), e.g. TradingPost"
            )
        for public in (model, f"{model}Outcome"):
            if public in taken:
                raise ScaffoldError(
                    f"--new-model = {model!r}: {public} is already a public name of "
                    f"{taken[public]}; "
                    "choose another name"
                )
    w = _Writer(root)
    registry = w.read("fairlib/mechanisms.py")
    if re.search(rf'^register\("{name}",', registry, flags=re.M):
        raise ScaffoldError(f"NAME = {name!r}: already registered in fairlib/mechanisms.py")
    if re.search(rf'^register_game\("{name}",', w.read("fairlib/games.py"), flags=re.M):
        raise ScaffoldError(f"NAME = {name!r}: already registered in fairlib/games.py")
    if kind == "game":
        _scaffold_game(w, name, label, equilibrium, without)
    elif (
        model is not None
    ):  # kind "model" (checked above: the class name goes with it and only with it)
        _scaffold_model(w, name, label, model, equilibrium, without)
    else:
        _scaffold_cluster_mechanism(w, name, label, kind, registry)
    if paper is not None:
        catalog = w.read("fairlib/repro/catalog.py")
        notebooks, _ = _catalog_entries(catalog)
        entry = _lines(catalog, *notebooks[paper][:2]) if paper in notebooks else ""
        if "mechanisms=(" not in entry or "tests=(" not in entry:
            raise ScaffoldError(
                f"--paper = {paper!r}: no catalogue entry with tests=(...) and mechanisms=(...) in "
                "fairlib/repro/catalog.py (scaffold the paper first)"
            )
        new = _tuple_added(
            _tuple_added(entry, "tests", f"tests/test_{name}.py"), "mechanisms", name
        )
        w.edit("fairlib/repro/catalog.py", catalog.replace(entry, new))
    return w.commit()


def _check_without(without: tuple[str, ...] | list[str] | str, kind: str) -> tuple[str, ...]:
    """``without`` (``--without``: a comma-separated string or a sequence) as a tuple of
    capabilities the kind's placeholder honours, each once."""
    items = without.split(",") if isinstance(without, str) else without
    if not isinstance(items, (tuple, list)) or not all(isinstance(c, str) for c in items):
        raise ScaffoldError(f"--without = {without!r}: must be capability names, comma-separated")
    # a blank name (``--without ''``, ``a,,b``, a trailing comma) is refused, not dropped: the
    # option given drops nothing the caller meant it to
    if any(not c.strip() for c in items):
        raise ScaffoldError(
            f"--without = {without!r}: a blank capability name; give capability names, "
            "comma-separated, or leave the option out"
        )
    items = [c.strip() for c in items]
    if items and kind not in GAME_CAPABILITIES:
        raise ScaffoldError(
            f"--without = {without!r}: only a game (--game or --new-model) drops capabilities"
        )
    allowed = GAME_CAPABILITIES.get(kind, ())
    for c in items:
        if c not in allowed:
            raise ScaffoldError(
                f"--without = {without!r}: {c!r} is not a capability this kind registers "
                f"(one of {', '.join(allowed)})"
            )
    if len(set(items)) != len(items):
        raise ScaffoldError(f"--without = {without!r}: names a capability twice")
    return tuple(items)


def _scaffold_game(
    w: _Writer, name: str, label: str, equilibrium: float | None, without: tuple[str, ...] = ()
) -> None:
    """A game's module, export, registration, reference and test (:func:`scaffold_mechanism` with
    ``--game``)."""
    fmt = {"name": name, "label": _in_docstring(label)}
    w.create(f"fairlib/market/{name}.py", _docstrings_wrapped(_GAME.format(**fmt)))
    exports = _insert_before(
        w.read("fairlib/market/__init__.py"),
        _MARKET_MARKER,
        f"from .{name} import {name}",
        "fairlib/market/__init__.py",
    )
    w.edit("fairlib/market/__init__.py", _add_to_all(exports, name, "fairlib/market/__init__.py"))
    registry = w.read("fairlib/games.py")
    caps = tuple(c for c in GAME_CAPABILITIES["game"] if c not in without)
    caps += ("equilibrium",) if equilibrium else ()
    color = _free_color(registry, w.read("fairlib/mechanisms.py"))
    call = _game_registration(name, label, caps, equilibrium, None, color)
    w.edit("fairlib/games.py", _insert_before(registry, _GAMES_MARKER, call, "fairlib/games.py"))
    w.edit(
        "tests/reference.py",
        w.read("tests/reference.py").rstrip("\n")
        + "\n"
        + _docstrings_wrapped(_GAME_REFERENCE.format(**fmt)),
    )
    w.create(
        f"tests/test_{name}.py",
        _docstrings_wrapped(_GAME_TEST.format(**fmt) + _fill(_PLACEHOLDER_TEST, **fmt)),
    )


def _fill(template: str, **values: str) -> str:
    """``template`` with each ``{key}`` replaced by its value (other braces kept as they are)."""
    for key, value in values.items():
        template = template.replace("{" + key + "}", value)
    return template


def _scaffold_model(
    w: _Writer,
    name: str,
    label: str,
    model: str,
    equilibrium: float | None,
    without: tuple[str, ...] = (),
) -> None:
    """A game on a model of its own (:func:`scaffold_mechanism` with ``--new-model``): the module
    holding the model ``model``, its outcome type and the game, its exports, its registration with
    ``instance=``, its reference and its test."""
    fmt = {"name": name, "label": _in_docstring(label), "Model": model}
    w.create(f"fairlib/market/{name}.py", _docstrings_wrapped(_fill(_MODEL, **fmt)))
    public = [model, f"{model}Outcome", name]
    exports = _insert_before(
        w.read("fairlib/market/__init__.py"),
        _MARKET_MARKER,
        f"from .{name} import {', '.join(public)}",
        "fairlib/market/__init__.py",
    )
    w.edit("fairlib/market/__init__.py", _add_to_all(exports, public, "fairlib/market/__init__.py"))
    registry = w.read("fairlib/games.py")
    caps = tuple(c for c in GAME_CAPABILITIES["model"] if c not in without)
    caps += ("equilibrium",) if equilibrium else ()
    color = _free_color(registry, w.read("fairlib/mechanisms.py"))
    call = _game_registration(name, label, caps, equilibrium, model, color)
    w.edit("fairlib/games.py", _insert_before(registry, _GAMES_MARKER, call, "fairlib/games.py"))
    w.edit(
        "tests/reference.py",
        w.read("tests/reference.py").rstrip("\n")
        + "\n"
        + _docstrings_wrapped(_fill(_MODEL_REFERENCE, **fmt)),
    )
    w.create(
        f"tests/test_{name}.py",
        _docstrings_wrapped(_fill(_MODEL_TEST + _PLACEHOLDER_TEST, **fmt)),
    )


def _scaffold_cluster_mechanism(
    w: _Writer, name: str, label: str, kind: str, registry: str
) -> None:
    """A pooled or multi-server mechanism's module, export, registration, reference and test."""
    pooled = kind == "pooled"
    fmt = {"name": name, "label": _in_docstring(label)}
    w.create(
        f"fairlib/multires/{name}.py",
        _docstrings_wrapped((_POOLED if pooled else _MULTI).format(**fmt)),
    )
    exports = _insert_before(
        w.read("fairlib/multires/__init__.py"),
        _MULTIRES_MARKER,
        f"from .{name} import {name}",
        "fairlib/multires/__init__.py",
    )
    w.edit(
        "fairlib/multires/__init__.py", _add_to_all(exports, name, "fairlib/multires/__init__.py")
    )
    caps = (
        '("pooled", "divisible", "weights", "start")'
        if pooled
        else '("multi_server", "divisible", "weights")'
    )
    free = _free_color(registry, w.read("fairlib/games.py"))
    color = f'color="{free}", ' if free else ""
    registry = _insert_before(
        registry,
        _REGISTRY_MARKER,
        f'register("{name}", multires.{name}, label={_py(label)},',
        "fairlib/mechanisms.py",
    )
    w.edit(
        "fairlib/mechanisms.py",
        _insert_before(
            registry,
            _REGISTRY_MARKER,
            f"         {color}capabilities={caps})",
            "fairlib/mechanisms.py",
        ),
    )
    w.edit(
        "tests/reference.py",
        w.read("tests/reference.py").rstrip("\n")
        + "\n"
        + _docstrings_wrapped((_POOLED_REFERENCE if pooled else _MULTI_REFERENCE).format(**fmt)),
    )
    w.create(
        f"tests/test_{name}.py",
        _docstrings_wrapped((_POOLED_TEST if pooled else _MULTI_TEST).format(**fmt)),
    )


def main(argv=None) -> int:
    """Command line (see the module docstring).

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default: the process's).

    Returns
    -------
    int
        The exit status: 0, or 2 for a refused call.

    Raises
    ------
    InvalidInputError
        When ``argv`` is not a list of str (an unknown option ends the process as argparse does,
        with status 2 and a message naming it).
    """
    ap = command_parser(
        prog="python -m fairlib.repro.scaffold",
        description=" ".join(__doc__.split("\n\n")[0].split()),
    )
    ap.add_argument("--root", type=Path, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--remove", metavar="KEY", help="remove what `paper KEY` created")
    sub = ap.add_subparsers(dest="what")
    p = sub.add_parser(
        "paper",
        help="a new paper: notebook, claims, driver and its test, catalogue, docs, README and "
        "CITATION.cff",
    )
    p.add_argument("key", metavar="KEY", help="the paper's key: author and year, e.g. smith2024")
    p.add_argument(
        "--authors",
        required=True,
        metavar='"FAMILY, GIVEN; ..."',
        help='the authors in the paper\'s order, e.g. "Johari, Ramesh; Tsitsiklis, John N."',
    )
    p.add_argument("--title", required=True, help="the paper's title, as printed")
    p.add_argument("--year", required=True, help="the year of the version reproduced")
    p.add_argument(
        "--venue-kind",
        required=True,
        choices=sorted(VENUE_KINDS),
        help="conference-paper (--venue: the proceedings) or article (--venue: the journal, or "
        "'arXiv preprint')",
    )
    p.add_argument(
        "--venue", required=True, help="the proceedings or journal, as CITATION.cff names it"
    )
    p.add_argument(
        "--url",
        required=True,
        help="where a reader finds the paper: its arXiv abstract or DOI link",
    )
    p.add_argument(
        "--notes", default="", help="CITATION.cff's notes, e.g. the arXiv id or a related paper"
    )
    p.add_argument(
        "--citation", help="the notebook's citation line (default: built from the options above)"
    )
    p.add_argument(
        "--driver",
        required=True,
        metavar="TOPIC",
        help="the experiment driver's module name, by what it studies (e.g. alpha_fair_drf)",
    )
    m = sub.add_parser(
        "mechanism", help="a new mechanism or game: module, registration, reference and test"
    )
    m.add_argument("name", metavar="NAME")
    kind = m.add_mutually_exclusive_group(required=True)
    kind.add_argument("--pooled", action="store_const", const="pooled", dest="kind")
    kind.add_argument("--multi-server", action="store_const", const="multi_server", dest="kind")
    kind.add_argument(
        "--game",
        action="store_const",
        const="game",
        dest="kind",
        help="a game or market mechanism on the bidding game's model: NAME(game: Game) -> "
        "GameOutcome (fairlib.games)",
    )
    kind.add_argument(
        "--new-model",
        metavar="MODEL",
        dest="model",
        help="a game on a model of its own: the instance type MODEL (a class name, e.g. "
        "TradingPost), its outcome type MODELOutcome and NAME(game: MODEL) -> MODELOutcome",
    )
    m.add_argument("--label", help="the name plots and tables show (default NAME)")
    m.add_argument(
        "--equilibrium",
        metavar="TOL",
        type=cli_number,
        help="with --game or --new-model: the rule reaches a Nash equilibrium, its residual at "
        "most TOL (e.g. 1e-9); registered with the equilibrium capability and tol=TOL",
    )
    m.add_argument(
        "--paper",
        metavar="KEY",
        help="add its test and registry-wide tests to that paper's make test-paper",
    )
    m.add_argument(
        "--without",
        metavar="CAP[,CAP]",
        default=(),
        help="with --game or --new-model: capabilities the paper's rule does not define, left out "
        "of the registration (--game: budgets, parallelism, reserve; --new-model: reserve)",
    )
    t = sub.add_parser(
        "tolerance",
        help="declare a notebook's tolerance for run_all.py --verify's another-CPU check "
        "(fairlib/repro/verify.py, docs/verify.md)",
    )
    t.add_argument("key", metavar="KEY", help="the notebook's key, in the catalogue")
    t.add_argument("--rtol", required=True, type=cli_number, help="relative tolerance, e.g. 1e-6")
    t.add_argument("--atol", required=True, type=cli_number, help="absolute tolerance, e.g. 1e-9")
    t.add_argument(
        "--reason",
        required=True,
        help="what bounds the move between CPUs, e.g. the solver's stopping test",
    )
    t.add_argument(
        "--digits",
        type=cli_integer,
        default=10,
        help="significant digits the tables report (default 10)",
    )
    args = ap.parse_args(as_argv(argv))
    try:
        if args.remove is not None:  # "--remove ''" is a key too (refused by name), not absent
            if args.what:
                ap.error("--remove KEY takes no sub-command")
            done, verb = remove_paper(args.remove, root=args.root), "removed or edited"
        elif args.what == "paper":
            paper = paper_from_options(
                args.authors,
                args.title,
                args.year,
                args.venue_kind,
                args.venue,
                args.url,
                args.notes,
            )
            done, verb = (
                scaffold_paper(
                    args.key, paper, args.driver, citation=args.citation, root=args.root
                ),
                "written",
            )
        elif args.what == "mechanism":
            done, verb = (
                scaffold_mechanism(
                    args.name,
                    "model" if args.model is not None else args.kind,
                    label=args.label,
                    paper=args.paper,
                    model=args.model,
                    equilibrium=args.equilibrium,
                    without=args.without,
                    root=args.root,
                ),
                "written",
            )
        elif args.what == "tolerance":
            done, verb = (
                scaffold_tolerance(
                    args.key,
                    args.rtol,
                    args.atol,
                    args.reason,
                    digits=args.digits,
                    root=args.root,
                ),
                "written",
            )
        else:
            ap.print_help()
            return 2
    except ScaffoldError as exc:
        print(f"python -m fairlib.repro.scaffold: {exc}", file=sys.stderr)
        return 2
    print(f"{verb}:\n  " + "\n  ".join(done))
    if args.what == "paper":
        print(
            f"next: make test-paper KEY={args.key}; python run_all.py --quick --only "
            f"{args.key} (CONTRIBUTING.md)"
        )
    elif args.what == "mechanism":
        marker = "registry" if args.kind in ("pooled", "multi_server") else "games"
        todo = (
            ""
            if marker == "registry"
            else "; replace each TODO(scaffold) mark (the test names them)"
        )
        print(
            f"next: pytest tests/test_{args.name}.py; pytest -m {marker} -k {args.name}{todo} "
            "(CONTRIBUTING.md)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
