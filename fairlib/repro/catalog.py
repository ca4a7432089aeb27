"""The catalogue: which papers the repository reproduces and which notebooks ``run_all.py`` executes
and the site publishes, in order.

Every paper is declared once, here: :data:`PAPERS` holds what ``CITATION.cff`` cites (authors,
title, venue, year, link) and :data:`NOTEBOOKS` the notebooks, each naming the paper it reproduces
(or none, for a study of our own), how the README's results table names it and its headline.
``python -m fairlib.repro.landing`` renders the README's results table, its count of notebooks and
papers, its list of papers and ``CITATION.cff``'s ``references:`` from them; nothing else lists or
counts the papers. One module, imported by ``run_all.py``, the site builder and
:mod:`fairlib.repro.landing`, so none imports another.

``python -m fairlib.repro.scaffold paper KEY`` adds a paper above the marker line at the end of
:data:`PAPERS` and its notebook above the one at the end of :data:`NOTEBOOKS`; ``python -m
fairlib.repro.scaffold --remove KEY`` takes both out.

>>> NOTEBOOKS["li2019"].path
'notebooks/li2019_dynamic_drf.ipynb'
>>> paper_of(NOTEBOOKS["khamseashari2018_traces"]).year
2018
>>> paper_of(NOTEBOOKS["schedulers"]) is None
True
>>> get("nope")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
fairlib._validate.InvalidInputError: key = 'nope': not in the catalogue (fairlib/repro/catalog.py);
known: feldman2005, ...
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .. import paths
from .._validate import (
    InvalidInputError,
    _short,
    as_argv,
    command_parser,
    as_count,
    as_instance,
    as_labels,
    as_path,
    as_text,
    check_shown_text,
)

__all__ = [
    "Paper",
    "Notebook",
    "PAPERS",
    "NOTEBOOKS",
    "VENUE_KINDS",
    "get",
    "paper_of",
    "source_path",
    "MARKER",
    "PAPERS_MARKER",
    "PAPER_CHECKS",
    "REGISTRATION_FILES",
    "paper_tests",
    "importing_tests",
    "changed_modules",
    "library_modules",
]

#: the line above which ``python -m fairlib.repro.scaffold paper`` inserts a new notebook
MARKER = "# new paper notebooks go above this line (python -m fairlib.repro.scaffold paper KEY ...)"
#: the line above which ``python -m fairlib.repro.scaffold paper`` inserts a new paper
PAPERS_MARKER = "# new papers go above this line (python -m fairlib.repro.scaffold paper KEY ...)"
#: a paper's kind of venue, as CITATION.cff types it -> the CFF key that names the venue
VENUE_KINDS = {"conference-paper": "collection-title", "article": "journal"}
_YEAR = range(1900, 2200)


@dataclass(frozen=True)
class Paper:
    """A paper the repository reproduces, as ``CITATION.cff`` cites it.

    ``authors`` are ``(family names, given names)`` pairs in the paper's order; ``venue_kind`` is
    ``"conference-paper"`` (``venue``: the proceedings, CFF's ``collection-title``) or ``"article"``
    (``venue``: the journal, or ``"arXiv preprint"``); ``url`` is where a reader finds it (an arXiv
    abstract or a DOI), ``notes`` what CFF's ``notes`` say (the arXiv id, a related paper).
    ``short`` is how the README's list of papers names its venue and year (``"EC'05"``, ``"IEEE TPDS
    2018"``); the year alone when empty.

    Parameters
    ----------
    authors : tuple of (str, str)
        ``(family names, given names)`` pairs, in the paper's order.
    title : str
        The title, as printed.
    venue_kind : {"conference-paper", "article"}
        What ``venue`` names.
    venue : str
        The proceedings or the journal (or ``"arXiv preprint"``).
    year : int
        The year of the version reproduced.
    url : str
        Its arXiv abstract or DOI link.
    notes : str
        CFF's notes.
    short : str
        Its venue and year in the README's list of papers.

    Examples
    --------
    >>> Paper((("Doe", "Jane"),), "A title", "book", "Somewhere", 2024, "https://example.org")
    Traceback (most recent call last):
    ...
    fairlib._validate.InvalidInputError: venue_kind = 'book': must be 'conference-paper' (venue: its
    collection-title) or 'article' (venue: its journal)
    """

    authors: tuple
    title: str
    venue_kind: str
    venue: str
    year: int
    url: str
    notes: str = ""
    short: str = ""

    def __post_init__(self):
        """Refuse an entry whose fields could not render the README, the book or CITATION.cff."""
        if not isinstance(self.authors, tuple) or not self.authors:
            raise InvalidInputError(
                f"authors = {self.authors!r}: must be a non-empty tuple of (family names, "
                "given names) "
                "pairs"
            )
        for i, author in enumerate(self.authors):
            if (
                not isinstance(author, tuple)
                or len(author) != 2
                or not all(isinstance(n, str) and n == n.strip() for n in author)
            ):
                raise InvalidInputError(
                    f"authors[{i}] = {author!r}: must be a (family names, given names) pair of "
                    "non-empty one-line names"
                )
            for j, part in enumerate(author):
                as_text(part, f"authors[{i}][{j}]", what="an author's name is shown text")
        for name in ("title", "venue", "url"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value.strip() or "\n" in value:
                raise InvalidInputError(f"{name} = {value!r}: must be one non-empty line of text")
            check_shown_text(value, name, what=f"the {name} is shown text")
        for name in ("notes", "short"):
            as_text(
                getattr(self, name),
                name,
                what=f"the {name} is one line of shown text, or empty",
                optional=True,
            )
        if not isinstance(self.venue_kind, str) or self.venue_kind not in VENUE_KINDS:
            raise InvalidInputError(
                f"venue_kind = {self.venue_kind!r}: must be "
                + " or ".join(f"{k!r} (venue: its {v})" for k, v in VENUE_KINDS.items())
            )
        if isinstance(self.year, bool) or not isinstance(self.year, int) or self.year not in _YEAR:
            raise InvalidInputError(f"year = {self.year!r}: must be a year, e.g. 2024")
        if not re.fullmatch(r"https?://[^\s/]+\.[^\s]+", self.url):
            raise InvalidInputError(
                f"url = {self.url!r}: must be a web address (https://...), e.g. the arXiv "
                "abstract or "
                "the DOI link"
            )

    @property
    def names(self) -> str:
        """The authors' family names as a heading gives them: all of them up to four, else the first
        et al."""
        families = [family for family, _ in self.authors]
        return ", ".join(families) if len(families) <= 4 else f"{families[0]} et al."

    @property
    def link_text(self) -> str:
        """``arXiv:<id>`` for an arXiv abstract, ``doi:<doi>`` for a DOI link, else the address
        without its scheme."""
        for prefix, name in (("https://arxiv.org/abs/", "arXiv:"), ("https://doi.org/", "doi:")):
            if self.url.startswith(prefix):
                return name + self.url[len(prefix) :]
        return re.sub(r"^https?://", "", self.url)

    @property
    def citation(self) -> str:
        """The paper in one line, as a notebook's citation gives it (Markdown, linked)."""
        authors = ", ".join(f"{given} {family}" for family, given in self.authors)
        return (
            f'{authors}, "{self.title}", {self.venue}, {self.year} '
            f"([{self.link_text}]({self.url}))."
        )

    @property
    def heading(self) -> str:
        """``"Families — Title (year)"``: how a new notebook's title and the results table name
        the paper."""
        return f"{self.names} — {self.title} ({self.year})"


#: every paper a notebook reproduces, by key, in the order CITATION.cff and the README list them
PAPERS: dict[str, Paper] = {
    "feldman2005": Paper(
        (("Feldman", "Michal"), ("Lai", "Kevin"), ("Zhang", "Li")),
        "A Price-Anticipating Resource Allocation Mechanism for Distributed Shared Clusters",
        "conference-paper",
        "Proceedings of the 6th ACM Conference on Electronic Commerce (EC '05)",
        2005,
        "https://arxiv.org/abs/cs/0502019",
        notes="arXiv:cs/0502019",
        short="EC'05",
    ),
    "khamseashari2018": Paper(
        (
            ("Khamse-Ashari", "Jalal"),
            ("Lambadaris", "Ioannis"),
            ("Kesidis", "George"),
            ("Urgaonkar", "Bhuvan"),
            ("Zhao", "Yiqiang"),
        ),
        "An Efficient and Fair Multi-Resource Allocation Mechanism for Heterogeneous Servers",
        "article",
        "IEEE Transactions on Parallel and Distributed Systems",
        2018,
        "https://arxiv.org/abs/1712.10114",
        notes="arXiv:1712.10114",
        short="IEEE TPDS 2018",
    ),
    "li2019": Paper(
        (("Li", "Weidong"), ("Liu", "Xi"), ("Zhang", "Xiaolu"), ("Zhang", "Xuejie")),
        "A note on dynamic fair division of multiple resources",
        "article",
        "arXiv preprint",
        2019,
        "https://arxiv.org/abs/1509.07935",
        notes="arXiv:1509.07935; it revisits Kash, Procaccia and Shah, No Agent Left Behind: "
        "Dynamic Fair Division of Multiple Resources, JAIR 51 (2014)",
    ),
    "metin2025": Paper(
        (("Metin", "Serdar"),),
        "Precomputed Dominant Resource Fairness",
        "article",
        "arXiv preprint",
        2025,
        "https://arxiv.org/abs/2507.08846",
        notes="arXiv:2507.08846",
    ),
    # new papers go above this line (python -m fairlib.repro.scaffold paper KEY ...)
}


@dataclass(frozen=True)
class Notebook:
    """One paper notebook: its key (``figures/<key>/``, ``data/results/<key>/``,
    ``notebooks/claims/<key>.toml``), its source path relative to the repository root (or absolute),
    a title, papermill's per-cell timeout, and the test files of its experiment driver (its findings
    test first), which ``make test-paper KEY=<key>`` runs with the notebook in quick mode.

    ``paper`` is the key in :data:`PAPERS` of the paper it reproduces (None for a study of our own),
    ``listed_as`` how the README's results table names what it reproduces (with a link to the paper,
    if any) and ``headline`` its result in one sentence (at most 200 characters), the table's last
    column.

    Parameters
    ----------
    key : str
        The notebook's key.
    path : str
        Its source, relative to the repository root or absolute.
    title : str
        Its title.
    cell_timeout_s : int
        Papermill's timeout per cell, in seconds.
    tests : tuple of str
        The test files of its experiment driver, its findings test first.
    mechanisms : tuple of str
        The registered mechanisms and games the paper introduces.
    driver : str
        Its experiment driver's module name.
    paper : str or None
        The key in :data:`PAPERS` of the paper it reproduces.
    listed_as : str
        How the README's results table names it.
    headline : str
        Its result in one sentence.
    """

    key: str
    path: str
    title: str
    cell_timeout_s: int = 1800  # per cell; full-mode sweeps are the long ones
    tests: tuple[str, ...] = ()
    #: registered mechanisms and games the paper introduces: make test-paper runs the registry-wide
    #: tests on them too
    mechanisms: tuple[str, ...] = ()
    #: its experiment driver, ``fairlib/repro/experiments/<driver>.py`` (set by
    #: ``python -m fairlib.repro.scaffold paper``)
    driver: str = ""
    paper: str | None = None
    listed_as: str = ""
    headline: str = ""

    def __post_init__(self):
        """Refuse an entry whose fields could not run the notebook or render the README's table
        (each field named)."""
        paths.check_key(self.key)
        for name in ("path", "title"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value.strip() or "\n" in value:
                raise InvalidInputError(
                    f"{name} = {_short(value)}: must be one non-empty line of text"
                )
            check_shown_text(value, name, what=f"the {name} is shown text")
        for name in ("listed_as", "headline"):
            as_text(
                getattr(self, name),
                name,
                what=f"the {name} is one line of shown text, or empty",
                optional=True,
            )
        if len(self.headline) > 200:  # the results table's last column, one sentence
            raise InvalidInputError(
                f"headline of {self.key!r}: {len(self.headline)} characters, at most 200 (the "
                "README's results table shows it in one cell)"
            )
        # a day per cell is the most any notebook needs: more is a typo
        as_count(self.cell_timeout_s, "cell_timeout_s", maximum=24 * 3600)
        for name in ("tests", "mechanisms"):
            value = getattr(self, name)
            if not isinstance(value, tuple):
                raise InvalidInputError(
                    f"{name} = {_short(value)}: must be a tuple of text, got {type(value).__name__}"
                )
            as_labels(value, name)
        if not isinstance(self.driver, str) or (self.driver and not self.driver.isidentifier()):
            raise InvalidInputError(
                f"driver = {_short(self.driver)}: must be a module name of "
                "fairlib/repro/experiments (or empty)"
            )
        if self.paper is not None:
            paths._check_file_name(self.paper, "paper")


#: every paper notebook, in the order run_all.py runs them
NOTEBOOKS: dict[str, Notebook] = {
    nb.key: nb
    for nb in [
        Notebook(
            "feldman2005",
            "notebooks/feldman2005_price_anticipating.ipynb",
            "Feldman, Lai, Zhang — price-anticipating proportional-share game",
            tests=(
                "tests/test_bidding_game_findings.py",
                "tests/test_market.py",
                "tests/test_games.py",
            ),
            mechanisms=("proportional_share", "weight_proportional"),
            paper="feldman2005",
            listed_as="Feldman, Lai, Zhang — A Price-Anticipating Resource Allocation Mechanism "
            "for Distributed Shared Clusters (EC'05)",
            headline="The closed-form worst cases (2√2 − 2, 3/4, the m = n² + n construction) "
            "reproduce exactly; the simulated efficiency and fairness mostly do; "
            "local-greedy convergence speed does not.",
        ),
        Notebook(
            "li2019",
            "notebooks/li2019_dynamic_drf.ipynb",
            "Li, Liu, Zhang, Zhang — dynamic DRF",
            tests=("tests/test_dynamic.py",),
            paper="li2019",
            listed_as="Li, Liu, Zhang, Zhang — A note on dynamic fair division of multiple "
            "resources",
            headline="Algorithm 1, with its line-6 erratum corrected, equals water-filling and "
            "the LP; the competitive-ratio bounds and their tight examples reproduce.",
        ),
        Notebook(
            "metin2025",
            "notebooks/metin2025_pdrf.ipynb",
            "Metin — Precomputed Dominant Resource Fairness",
            tests=("tests/test_precomputed_drf_findings.py",),
            paper="metin2025",
            listed_as="Metin — Precomputed Dominant Resource Fairness",
            headline="PDRF equals ⌊EDRF⌋ on the paper's instances; Table 1 reproduces; Table 2 "
            "does not follow from its stated parameters.",
        ),
        Notebook(
            "khamseashari2018",
            "notebooks/khamseashari2018_pfvds.ipynb",
            "Khamse-Ashari et al. — PF-VDS on heterogeneous servers (analytical part)",
            tests=("tests/test_heterogeneous_findings.py",),
            paper="khamseashari2018",
            listed_as="Khamse-Ashari et al. — An Efficient and Fair Multi-Resource Allocation "
            "Mechanism for Heterogeneous Servers (TPDS 2018)",
            headline="PF-VDS and PS-DSF are solved to certified equilibria and the recoverable "
            "theorems hold; TSF fails placement-aware sharing incentive; PS-MFA and the "
            "heuristic stall.",
        ),
        # an hour per cell: on the synthetic stand-ins (a clone without the excerpts) on a busy
        # 2-core machine the 100 Bitbrains snapshots took ~27 s each
        Notebook(
            "khamseashari2018_traces",
            "notebooks/khamseashari2018_traces.ipynb",
            "Khamse-Ashari et al. — PF-VDS on the Bitbrains and Google traces (§6)",
            cell_timeout_s=3600,
            tests=("tests/test_heterogeneous_traces_findings.py", "tests/test_google_open_loop.py"),
            paper="khamseashari2018",
            listed_as="the same paper, §6: Bitbrains and Google trace experiments",
            headline="On the real trace excerpts PS-DSF does not lead DRFH and TSF in "
            "utilisation as §6 reports; certified bounds show Definition 4 alone does not "
            "force the gap.",
        ),
        Notebook(
            "schedulers",
            "notebooks/schedulers_drf_semantics.ipynb",
            "Production schedulers' DRF semantics (Mesos, YARN, Kueue, Volcano) on a real "
            "Google cell",
            cell_timeout_s=3600,
            tests=("tests/test_scheduler_semantics.py",),
            listed_as="not a paper: the DRF rules of Mesos, YARN, Kueue and Volcano on a real "
            "Google cell",
            headline="Pooled DRF served machine by machine, as offer-based schedulers run it, "
            "trails DRFH, TSF and PS-DSF in utilisation at every instant.",
        ),
        Notebook(
            "atlas",
            "notebooks/atlas.ipynb",
            "The mechanism atlas: every registered mechanism on whole cells of three real clusters",
            tests=("tests/test_mechanism_atlas_findings.py", "tests/test_alibaba.py"),
            driver="mechanism_atlas",
            listed_as="not a paper: every registered mechanism on the same jobs of three real "
            "clusters (Google, Alibaba, Bitbrains)",
            headline="On Google's whole cell PS-DSF trails DRFH (with Pareto slack of its own) "
            "and machine-by-machine DRF trails it more; on Alibaba every certified mechanism "
            "serves every task in full.",
        ),
        # new paper notebooks go above this line (python -m fairlib.repro.scaffold paper KEY ...)
    ]
}


def _check_catalogue(papers: dict[str, Paper], notebooks: dict[str, Notebook]) -> None:
    """Every notebook's paper is declared and every declared paper has a notebook (a ValueError
    naming it)."""
    for nb in notebooks.values():
        if nb.paper is not None and nb.paper not in papers:
            raise ValueError(
                f"fairlib/repro/catalog.py: notebook {nb.key!r} reproduces paper "
                f"{nb.paper!r}, which PAPERS does not declare; declared: {', '.join(papers)}"
            )
        if not nb.listed_as or not nb.headline:
            raise ValueError(
                f"fairlib/repro/catalog.py: notebook {nb.key!r} needs listed_as (how the "
                "results table "
                "names it) and headline (its result in one sentence)"
            )
    orphans = [key for key in papers if not any(nb.paper == key for nb in notebooks.values())]
    if orphans:
        raise ValueError(
            f"fairlib/repro/catalog.py: papers no notebook reproduces: {', '.join(orphans)}"
        )


_check_catalogue(PAPERS, NOTEBOOKS)


def get(key: str) -> Notebook:
    """The catalogued notebook ``key``; an error listing the known keys otherwise.

    Parameters
    ----------
    key : str
        A key of :data:`NOTEBOOKS`.

    Returns
    -------
    Notebook
        Its entry.

    Raises
    ------
    InvalidInputError
        ``key`` is not text, shows nothing, or is not catalogued (the message lists the known
        keys).
    """
    as_text(key, "key", what="a notebook key")
    try:
        return NOTEBOOKS[key]
    except KeyError:
        raise InvalidInputError(
            f"key = {key!r}: not in the catalogue (fairlib/repro/catalog.py); known: "
            f"{', '.join(NOTEBOOKS)}"
        ) from None


def paper_of(nb: Notebook) -> Paper | None:
    """The paper notebook ``nb`` reproduces, or None for a study of our own.

    Parameters
    ----------
    nb : Notebook
        A catalogued notebook (:func:`get`).

    Returns
    -------
    Paper or None
        Its entry in :data:`PAPERS`.
    """
    as_instance(nb, Notebook, "nb")
    return None if nb.paper is None else PAPERS[nb.paper]


def source_path(nb: Notebook) -> Path:
    """The notebook's source file (a relative path is taken from the repository root).

    Parameters
    ----------
    nb : Notebook
        A catalogued notebook (:func:`get`).

    Returns
    -------
    pathlib.Path
        The source file.
    """
    as_instance(nb, Notebook, "nb")
    p = Path(nb.path)
    return p if p.is_absolute() else paths.ROOT / p


#: the test files every paper's loop (``make test-paper``) runs besides the paper's own: the
#: repository-wide checks a paper's files can break however little else they touch, each with what
#: it holds the paper to. A test file that reads the catalogue, a registry, the public API or the
#: docs is here or says in tests/test_paper_loop.py why a paper cannot break it, so that a paper
#: green in ``make test-paper`` is green in ``make test``.
PAPER_CHECKS: dict[str, str] = {
    "tests/test_notebooks.py": "the notebook's form, its claims all measured, its quick run (run "
    "with --paper KEY)",
    "tests/test_import_graph.py": "the import graph stays a DAG with the paper's modules in it",
    "tests/test_contributing.py": "every path the guide names exists",
    "tests/test_docs.py": "README and docs: rendered blocks current (the papers' list and counts "
    "among them), links",
    "tests/test_claims_coverage.py": "docs/claims-coverage.md maps the paper's statements to "
    "claims that exist",
    "tests/test_book.py": "the book lists every catalogued notebook and renders the landing "
    "table once",
    "tests/test_executed.py": "an executed notebook, once committed, matches its source and "
    "links its claims",
    "tests/test_report.py": "every claims registry loads, and its rules and headlines are well "
    "formed",
    "tests/test_claim_quotes.py": "every paper claim of the paper's registry quotes the paper "
    "and states its scope",
    "tests/test_packaging.py": "the kernel warm-up reaches every kernel, the paper's included; "
    "CITATION.cff is valid",
    "tests/test_verify.py": "declared tolerances name catalogued notebooks and committed tables",
    "tests/test_suite_schedule.py": "the suite's schedule names notebooks and tests that exist",
    "tests/test_interpreted_kernels.py": "every registered mechanism's small instances run "
    "interpreted, no kernel compiled, and agree with the compiled kernels",
    "tests/test_paper_loop.py": "this list itself: every test that reads what a paper adds is in "
    "the loop",
    "tests/test_games.py": "the game registry's own rules: no name both a game and a mechanism",
    "tests/test_aliasing.py": "every public class taking arrays (a paper's model among them) keeps "
    "read-only copies, never the caller's arrays",
    "tests/test_annotations.py": "the public callables of the annotated modules (the drivers "
    "among them) are annotated",
}


def importing_tests(modules: list[str], root: Path | None = None) -> list[str]:
    """The test files (``tests/test_*.py``) that import any of ``modules`` (fairlib source files
    relative to the repository root), read from their import statements: a changed library module's
    own tests.

    Parameters
    ----------
    modules : list of str
        Source files, relative to the repository root.
    root : pathlib.Path, optional
        The checkout (default: this one).

    Returns
    -------
    list of str
        The test files, relative to the root.

    Examples
    --------
    >>> "tests/test_psdsf_range.py" in importing_tests(["fairlib/multires/psdsf/__init__.py"])
    True
    """
    import ast

    files = as_labels(modules, "modules")
    root = paths.ROOT if root is None else as_path(root, "root", kind="directory", must_exist=True)
    dotted = set()
    for f in files:
        parts = Path(f).with_suffix("").parts
        dotted.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    found = []
    for test in sorted((root / "tests").glob("test_*.py")):
        try:
            tree = ast.parse(test.read_text(encoding="utf-8"))
        except SyntaxError:
            found.append(test)  # pytest reports it; the loop must not skip it
            continue
        names = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module)
                names.update(f"{node.module}.{a.name}" for a in node.names)
            elif isinstance(node, ast.Import):
                names.update(a.name for a in node.names)
        if names & dotted:
            found.append(test)
    return [str(t.relative_to(root)) for t in found]


#: files every new paper changes only by the lines the scaffold adds to them (its catalogue entry,
#: its driver's import, its mechanism's or game's export): what reads those lines is in
#: :data:`PAPER_CHECKS`, and the tests that import them otherwise test their code, which a paper
#: leaves alone (the catalogue's importers include the scaffold's own test, a whole nested ``make
#: test-paper`` on a fresh scaffold: about 8 of a paper loop's 16 minutes, predicting nothing the
#: loop itself does not run; every test of the games imports ``fairlib.market``). Their doctests
#: still run.
REGISTRATION_FILES = (
    "fairlib/repro/catalog.py",
    "fairlib/repro/experiments/__init__.py",
    "fairlib/market/__init__.py",
    "fairlib/multires/__init__.py",
)

#: test files the loop runs kept to the paper's modules (``--contract-modules``), never whole as
#: importers of a changed module: the API contract and the docstring checks of the callables the
#: paper leaves alone are the same as on the branch it started from
MODULE_SCOPED = ("tests/test_api_contract.py", "tests/test_docstrings.py")


def paper_tests(nb: Notebook) -> list[str]:
    """Every test file ``make test-paper`` runs for notebook ``nb``, in order: its own tests (its
    findings test first), the repository-wide checks (:data:`PAPER_CHECKS`) and the tests of every
    module the paper adds or changes (:func:`importing_tests` of :func:`library_modules`, but for
    :data:`REGISTRATION_FILES`; the :data:`MODULE_SCOPED` checks run on those modules in a step of
    their own).

    Parameters
    ----------
    nb : Notebook
        A catalogued notebook (:func:`get`).

    Returns
    -------
    list of str
        The test files, relative to the repository root.
    """
    # nb is library_modules's to check (source_path refuses what is not a Notebook, by name)
    changed = [m for m in library_modules(nb) if m not in REGISTRATION_FILES]
    importers = [t for t in importing_tests(changed) if t not in MODULE_SCOPED]
    files = list(nb.tests) + list(PAPER_CHECKS) + importers
    return [f for f in dict.fromkeys(files) if (paths.ROOT / f).is_file()]


def changed_modules(root: Path | None = None) -> list[str]:
    """The fairlib source files new or changed on this branch (``git diff`` against where it left
    its upstream, or ``origin/main``, or ``main``; uncommitted edits and untracked files included),
    relative to the repository root; ``[]`` outside a git checkout. What a contributor wrote beside
    the paper's driver and mechanisms (a helper module, a game under ``fairlib/market/``) is tested
    by ``make test-paper`` through this list.

    Parameters
    ----------
    root : pathlib.Path, optional
        The checkout (default: this one).

    Returns
    -------
    list of str
        The source files, relative to the root.
    """
    import subprocess

    root = paths.ROOT if root is None else as_path(root, "root", kind="directory", must_exist=True)

    def git(*args: str) -> str | None:
        try:
            run = subprocess.run(
                ["git", *args], cwd=root, capture_output=True, text=True, timeout=60
            )
        except (OSError, subprocess.SubprocessError):
            return None
        return run.stdout if run.returncode == 0 else None

    if git("rev-parse", "--is-inside-work-tree") is None:
        return []
    base = next(
        (
            out.strip()
            for ref in ("@{upstream}", "origin/main", "main")
            if (out := git("merge-base", "HEAD", ref))
        ),
        "HEAD",
    )
    listed = (git("diff", "--name-only", base, "--", "fairlib") or "").split() + (
        git("ls-files", "--others", "--exclude-standard", "--", "fairlib") or ""
    ).split()
    return sorted({f for f in listed if f.endswith(".py") and (root / f).is_file()})


def library_modules(nb: Notebook) -> list[str]:
    """The library files behind notebook ``nb`` whose doctests and API contract ``make test-paper``
    runs: the experiment drivers its source imports (``from fairlib.repro.experiments import ...``),
    the modules defining the mechanisms and games it introduces (found through their registries,
    wherever they live) and every fairlib module new or changed on the branch
    (:func:`changed_modules`), as paths relative to the repository root.

    Parameters
    ----------
    nb : Notebook
        A catalogued notebook (:func:`get`).

    Returns
    -------
    list of str
        The source files, relative to the repository root.
    """
    import ast
    import importlib
    import json

    drivers = []
    # source_path refuses an nb that is not a Notebook, by name, before anything is read
    for cell in json.loads(source_path(nb).read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] != "code":
            continue
        try:
            tree = ast.parse("".join(cell["source"]))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "fairlib.repro.experiments":
                drivers += [f"fairlib/repro/experiments/{alias.name}.py" for alias in node.names]
    mechanisms = importlib.import_module(
        "fairlib.mechanisms"
    )  # lazily: the registries sit above the catalogue
    games = importlib.import_module("fairlib.games")
    game_names = {name.lower() for name in games.names()}
    entries = [
        (games if name.lower() in game_names else mechanisms).get(name) for name in nb.mechanisms
    ]
    defined = [importlib.import_module(entry.function.__module__).__file__ for entry in entries]
    files = (
        drivers
        + [str(Path(f).resolve().relative_to(paths.ROOT)) for f in defined]
        + changed_modules()
    )
    return [f for f in dict.fromkeys(files) if (paths.ROOT / f).exists()]


def main(argv=None) -> int:
    """``python -m fairlib.repro.catalog [--tests KEY | --mechanisms KEY | --modules KEY]``: the
    catalogue, or what ``make test-paper`` runs for one paper (one of the three modes at most: two
    together are a usage error, exit 2)."""
    argv = as_argv(argv)
    import sys

    ap = command_parser(
        prog="python -m fairlib.repro.catalog", description="The paper notebooks run_all executes."
    )
    # one mode per call: two would print one list and silently drop the other
    modes = ap.add_mutually_exclusive_group()
    modes.add_argument(
        "--tests",
        metavar="KEY",
        help="print the test files make test-paper runs for paper KEY, one per line: its own, the "
        "repository-wide checks (PAPER_CHECKS) and the tests of the modules it adds or changes",
    )
    modes.add_argument(
        "--mechanisms",
        metavar="KEY",
        help="print the mechanisms and games paper KEY introduces as a pytest -k expression "
        "(empty if none)",
    )
    modes.add_argument(
        "--modules",
        metavar="KEY",
        help="print the library modules of paper KEY whose doctests and API contract make "
        "test-paper runs: the drivers its notebook imports, the modules of the mechanisms it "
        "introduces and every fairlib module new or changed on the branch",
    )
    args = ap.parse_args(argv)
    key = next((k for k in (args.tests, args.mechanisms, args.modules) if k is not None), None)
    if key is not None:
        try:
            nb = get(key)
        except InvalidInputError as exc:
            print(f"python -m fairlib.repro.catalog: {exc}", file=sys.stderr)
            return 2
        if args.tests is not None:
            print("\n".join(paper_tests(nb)))
        elif args.mechanisms is not None:
            print(" or ".join(nb.mechanisms))
        else:
            print("\n".join(library_modules(nb)))
        return 0
    for nb in NOTEBOOKS.values():
        print(f"{nb.key:<24} {nb.path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
