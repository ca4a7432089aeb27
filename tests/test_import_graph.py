"""The import graph of fairlib's modules and run_all.py is a DAG, and the library never imports the
pipeline.

fairlib is two packages with one import direction: the library (``fairlib`` and every ``fairlib.*``
module outside ``fairlib.repro``) and the reproduction pipeline (``fairlib.repro``: ledger, prose,
figures, executed notebooks, catalogue, verify, scaffold, warm-up, the papers' drivers), which
imports the library and is never imported by it.

Every ``import`` and ``from ... import`` statement counts, wherever it stands: at the top of a
module, inside a function (a lazy import is still an arrow: it only moves the circle from import
time to call time), or under ``if TYPE_CHECKING``. ``from pkg import name`` is an arrow to the
submodule ``pkg.name`` only when ``pkg`` does not bind ``name`` itself (``from .multires import
pfvds`` takes the function that ``fairlib/multires/__init__.py`` imports, not the module
``fairlib.multires.pfvds``) — which is what Python does. The graph is read from the source with
:mod:`ast` (nothing is imported); a general tool such as grimp scans only packages, not the
top-level script ``run_all.py``, and resolves ``from pkg import name`` to the submodule whenever one
exists.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _modules(root: Path) -> dict[str, tuple[Path, bool]]:
    """Dotted name -> (file, is a package) for fairlib's modules and run_all.py."""
    out = {}
    for path in sorted((root / "fairlib").rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        package = parts[-1] == "__init__"
        out[".".join(parts[:-1] if package else parts)] = (path, package)
    out["run_all"] = (root / "run_all.py", False)
    return out


def _bound_names(tree: ast.Module) -> set[str]:
    """Names a module binds at its top level (imports, definitions, assignments)."""
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return names


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """module -> the modules of the project it imports (see the module docstring for the rules)."""
    modules = _modules(root)
    trees = {name: ast.parse(path.read_text(), str(path)) for name, (path, _) in modules.items()}
    bound = {name: _bound_names(tree) for name, tree in trees.items() if modules[name][1]}
    graph = {}
    for name, tree in trees.items():
        package = name if modules[name][1] else name.rpartition(".")[0]
        edges = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    # `import a.b.c` runs a, a.b and a.b.c; the arrow that matters is to the module
                    # named
                    target = alias.name
                    while target and target not in modules:
                        target = target.rpartition(".")[0]
                    if target:
                        edges.add(target)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                if source not in modules:
                    continue
                for alias in node.names:
                    sub = f"{source}.{alias.name}"
                    shadowed = modules[source][1] and alias.name in bound.get(source, ())
                    edges.add(sub if sub in modules and not shadowed else source)
        edges.discard(name)
        graph[name] = edges
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each as a sorted
    list."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_import_graph_has_no_cycle():
    graph = import_graph()
    found = cycles(graph)
    detail = ["; ".join(f"{v} -> {sorted(graph[v] & set(c))}" for v in c) for c in found]
    assert not found, "import cycles (every arrow, lazy imports included):\n" + "\n".join(detail)


def is_pipeline(module: str) -> bool:
    """Whether ``module`` belongs to the reproduction pipeline (``fairlib.repro`` and everything
    under it)."""
    return module == "fairlib.repro" or module.startswith("fairlib.repro.")


def library_to_pipeline(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """Every arrow from a module of the library (``fairlib`` itself and every ``fairlib.*`` module
    outside ``fairlib.repro``) to a module of the pipeline, as ``(importer, imported)``, sorted."""
    library = [
        m for m in graph if (m == "fairlib" or m.startswith("fairlib.")) and not is_pipeline(m)
    ]
    return sorted((m, t) for m in library for t in graph[m] if is_pipeline(t))


def test_the_library_never_imports_the_pipeline():
    graph = import_graph()
    assert "fairlib" in graph and "fairlib.repro" in graph and "fairlib.testing" in graph
    arrows = library_to_pipeline(graph)
    assert not arrows, (
        "the library imports the reproduction pipeline (every arrow counts, lazy imports "
        "included; move what both need into the library, or the check that needs the "
        "pipeline into it or into tests/):\n" + "\n".join(f"{m} -> {t}" for m, t in arrows)
    )


def test_the_pipeline_imports_the_library():
    graph = import_graph()
    assert "fairlib.sweep" in graph["fairlib.repro.experiments.precomputed_drf"]
    assert "fairlib.repro.catalog" in graph["run_all"]


@pytest.mark.parametrize(
    "source",
    [
        "from .repro import report\n",
        "def f():\n    from fairlib.repro.report import x\n",  # a lazy import is an arrow
        "import fairlib.repro.report\n",
    ],
)
def test_an_arrow_from_the_library_to_the_pipeline_is_found(tmp_path, source):
    pkg = tmp_path / "fairlib"
    (pkg / "repro").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "repro" / "__init__.py").write_text("")
    (pkg / "repro" / "report.py").write_text(
        "from .. import lib\nx = 1\n"
    )  # the pipeline may import the library
    (pkg / "lib.py").write_text(source)
    (tmp_path / "run_all.py").write_text("")
    assert library_to_pipeline(import_graph(tmp_path)) == [("fairlib.lib", "fairlib.repro.report")]


def test_the_registry_sits_above_the_mechanisms():
    graph = import_graph()
    assert "fairlib.multires" in graph["fairlib.mechanisms"]
    below = [m for m in graph if m.startswith("fairlib.multires")]
    assert below and not [m for m in below if "fairlib.mechanisms" in graph[m]]
    # run_all and the site share the notebook catalogue; neither imports the other's module
    assert "fairlib.repro.catalog" in graph["run_all"] and not any(
        "run_all" in graph[m] for m in graph
    )


def test_the_game_registry_sits_above_the_games():
    graph = import_graph()
    assert "fairlib.market" in graph["fairlib.games"]
    below = [m for m in graph if m.startswith("fairlib.market")]
    assert below and not [m for m in below if "fairlib.games" in graph[m]]
    assert (
        "fairlib.games" not in graph["fairlib.mechanisms"]
    )  # the two registries: games above mechanisms


@pytest.mark.parametrize(
    "source, expected",
    [
        ("from . import b\n", {"p.b"}),
        ("def f():\n    from .b import x\n", {"p.b"}),  # a lazy import is an arrow
        ("from . import thing\n", {"p"}),  # a name the package binds, not a module
        ("import p.b\n", {"p.b"}),
        ("from p import shadowed\n", {"p"}),  # the package binds it: no arrow to p.shadowed
    ],
)
def test_the_arrows_are_read_as_python_resolves_them(tmp_path, source, expected):
    pkg = tmp_path / "fairlib"
    (pkg / "p").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "p" / "__init__.py").write_text("thing = 1\nfrom .shadowed import shadowed\n")
    (pkg / "p" / "b.py").write_text("x = 1\n")
    (pkg / "p" / "shadowed.py").write_text("def shadowed(): pass\n")
    source = source.replace("import p", "import fairlib.p").replace("from p ", "from fairlib.p ")
    (pkg / "p" / "a.py").write_text(source)
    (tmp_path / "run_all.py").write_text("")
    graph = import_graph(tmp_path)
    assert graph["fairlib.p.a"] == {e.replace("p", "fairlib.p", 1) for e in expected}
    assert not cycles(graph)


def test_a_cycle_is_found(tmp_path):
    pkg = tmp_path / "fairlib"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from . import b\n")
    (pkg / "b.py").write_text("def f():\n    from .a import g\n")
    (tmp_path / "run_all.py").write_text("import fairlib.a\n")
    assert cycles(import_graph(tmp_path)) == [["fairlib.a", "fairlib.b"]]


def _is_private(part: str) -> bool:
    return part.startswith("_") and not (part.startswith("__") and part.endswith("__"))


def private_crossings(
    root: Path = ROOT, package: str = "fairlib.multires"
) -> list[tuple[str, str, str]]:
    """Every ``from M import _name`` in ``package``'s modules whose ``M`` is another module than the
    importer and is not a private module of a package the importer belongs to, as ``(importer, M,
    _name)``, sorted.

    A private module is one with a private component in its dotted name (``fairlib._validate``,
    ``fairlib.multires._engine.pair_kernels``, ``fairlib.multires.pfvds._best_response``); the
    package it is private to is the part of the name before that component. A private name is an
    implementation detail of the module that defines it: where two modules share one, it lives in
    such a private module, so that a reader sees from the file's place what else may depend on
    it."""
    modules = _modules(root)
    out = []
    for name, (path, package_flag) in modules.items():
        if not (name == package or name.startswith(package + ".")):
            continue
        parent = name if package_flag else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                base = parent.split(".")[: len(parent.split(".")) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if source not in modules:
                continue
            for alias in node.names:
                if not _is_private(alias.name) or f"{source}.{alias.name}" in modules:
                    continue  # a public name, or a (private) module itself
                parts = source.split(".")
                owner = next((i for i, p in enumerate(parts) if _is_private(p)), None)
                if source == name:
                    continue
                if owner is not None:
                    scope = ".".join(parts[:owner])
                    if name == scope or name.startswith(scope + "."):
                        continue
                out.append((name, source, alias.name))
    return sorted(out)


def test_private_names_cross_modules_only_from_private_modules():
    found = private_crossings()
    assert not found, (
        "a private name imported from another module that is not a private module of the "
        "importer's package (move the shared helper into the package's _engine/ or a private "
        "module, or make it public):\n"
        + "\n".join(f"{m} imports {n} from {s}" for m, s, n in found)
    )


@pytest.mark.parametrize(
    "importer, source, flagged",
    [
        ("b.py", "from .a import _helper\n", True),  # a sibling's private name
        ("b.py", "def f():\n    from .a import _helper\n", True),  # lazily: the same
        ("b.py", "from .a import helper\n", False),  # a public name
        ("b.py", "from ._engine.k import _kernel\n", False),  # from the package's private module
        ("fam/c.py", "from ._p import _step\n", False),  # from its own package's private module
        ("b.py", "from .fam._p import _step\n", True),  # another package's private module
        ("fam/c.py", "from .._engine.k import _kernel\n", False),  # an enclosing package's
        ("b.py", "from .. import _validate\n", False),  # a private module itself
    ],
)
def test_a_private_name_crossing_modules_is_found(tmp_path, importer, source, flagged):
    pkg = tmp_path / "fairlib" / "multires"
    for folder in (pkg / "_engine", pkg / "fam"):
        folder.mkdir(parents=True)
        (folder / "__init__.py").write_text("")
    (tmp_path / "fairlib" / "__init__.py").write_text("")
    (tmp_path / "fairlib" / "_validate.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def _helper(): pass\ndef helper(): pass\n")
    (pkg / "_engine" / "k.py").write_text("def _kernel(): pass\n")
    (pkg / "fam" / "_p.py").write_text("def _step(): pass\n")
    (pkg / importer).write_text(source)
    (tmp_path / "run_all.py").write_text("")
    found = private_crossings(tmp_path)
    assert bool(found) == flagged, found
