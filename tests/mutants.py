"""Mutants of ``fairlib/`` for the tests that check their own strength: a validation site (a call
of a :mod:`fairlib._validate` helper, or a ``raise``) made a pass-through in its function's code
object.

The API contract (``tests/test_api_contract.py``) probes each mutant with its battery;
``tests/mutation_audit.py`` reruns a site's witnesses on it; and a pytest run given
``FAIRLIB_MUTANT_SITE=module|qualname|line|col`` (:func:`apply_from_environment`, called by
``tests/conftest.py``) runs its tests on the mutant, which is how the contract checks that the test
it names for a site its battery cannot reach (``UNSEEN_SITES``) does fail without that site.
"""

from __future__ import annotations

import importlib
import inspect
import os
from pathlib import Path

#: the variable naming the one site a pytest run mutates before it collects anything
MUTANT_SITE = "FAIRLIB_MUTANT_SITE"


def site_text(module: str, qualname: str, line: int, col: int) -> str:
    """The value of :data:`MUTANT_SITE` for the call at (line, col) of ``module.qualname``."""
    return f"{module}|{qualname}|{line}|{col}"


def apply_from_environment() -> None:
    """Mutates the site :data:`MUTANT_SITE` names, if it is set (for the whole process)."""
    text = os.environ.get(MUTANT_SITE)
    if not text:
        return
    parts = text.split("|")
    if len(parts) != 4 or not parts[2].isdigit() or not parts[3].isdigit():
        raise ValueError(f"{MUTANT_SITE} = {text!r}: must be module|qualname|line|col")
    mutate(parts[0], parts[1], int(parts[2]), int(parts[3]), require=True)


class NotMutable(Exception):
    """The site's function cannot be mutated in place (not Python code, or a closure)."""


def mutate(
    module: str, qualname: str, line: int, col: int, kind: str = "call", *, require: bool = False
):
    """Replace the helper call at (line, col) of function ``module.qualname`` by its first argument
    (``kind="raise"``: the ``raise`` whose exception starts there by ``pass``), in the function's
    code object; returns (function, its original code). ``require``: refuse (NotMutable) when no
    call or raise starts at (line, col), rather than leave the function as it was."""
    import __future__
    import ast

    mod = importlib.import_module(module)
    obj = mod
    for part in qualname.split("."):
        obj = vars(obj)[part] if isinstance(obj, type) else getattr(obj, part)
    obj = getattr(obj, "__func__", None) or getattr(obj, "fget", None) or obj
    fn = inspect.unwrap(obj)
    if not inspect.isfunction(fn):
        raise NotMutable(f"{module}.{qualname} is not a Python function")
    tree = ast.parse(Path(mod.__file__).read_text())
    node = tree
    for part in qualname.split("."):
        node = next(
            c
            for c in ast.iter_child_nodes(node)
            if isinstance(c, (ast.FunctionDef, ast.ClassDef)) and c.name == part
        )

    replaced = []

    class PassThrough(ast.NodeTransformer):
        def visit_Call(self, call):
            if kind != "raise" and (call.lineno, call.col_offset) == (line, col):
                replaced.append(call)
                return call.args[0] if call.args else ast.Constant(None)
            return self.generic_visit(call)

        def visit_Raise(self, raise_):
            exc = raise_.exc
            if kind == "raise" and exc is not None and (exc.lineno, exc.col_offset) == (line, col):
                replaced.append(raise_)
                return ast.copy_location(ast.Pass(), raise_)
            return self.generic_visit(raise_)

    node = PassThrough().visit(node)
    if require and not replaced:
        raise NotMutable(f"{module}.{qualname} has no {kind} at line {line}, column {col}")
    node.decorator_list = []
    code = compile(
        ast.fix_missing_locations(ast.Module([node], [])),
        mod.__file__,
        "exec",
        flags=__future__.annotations.compiler_flag,
        dont_inherit=True,
    )
    namespace = dict(vars(mod))
    exec(code, namespace)
    new = namespace[node.name].__code__
    if new.co_freevars != fn.__code__.co_freevars:
        raise NotMutable(f"{module}.{qualname} uses a closure or super()")
    kept, fn.__code__ = fn.__code__, new
    return fn, kept
