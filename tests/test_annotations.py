"""Every public callable of the annotated modules names the type of each parameter and of what it
returns.

The modules in :data:`ANNOTATED` are also held by mypy to ``disallow_incomplete_defs``
(``[tool.mypy]`` in ``pyproject.toml``): here, a public function whose parameters carry no
annotation at all (which mypy would leave unchecked) fails too. A module joins :data:`ANNOTATED`
once its public callables are annotated; list it in the strict ``[[tool.mypy.overrides]]`` of
``pyproject.toml`` at the same time.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import fairlib

#: modules (or packages, with every module under them) whose public callables are fully annotated
ANNOTATED = (
    "fairlib.paths",
    "fairlib.sim",
    "fairlib.sweep",
    "fairlib.testing",
    "fairlib.timing",
    "fairlib.tolerances",
    "fairlib.traces",
    "fairlib.repro.executed",
    "fairlib.repro.experiments",
    "fairlib.repro.landing",
    "fairlib.repro.plotting",
    "fairlib.repro.prose",
    "fairlib.repro.tables",
    "fairlib.repro.verify",
    "fairlib.repro.warm",
)


def _modules() -> list[str]:
    names = []
    for info in pkgutil.walk_packages(fairlib.__path__, "fairlib."):
        if any(info.name == m or info.name.startswith(m + ".") for m in ANNOTATED):
            names.append(info.name)
    return sorted(names)


def _public_names(module) -> list[str]:
    if hasattr(module, "__all__"):
        return list(module.__all__)
    return [
        n
        for n, v in vars(module).items()
        if not n.startswith("_") and getattr(v, "__module__", None) == module.__name__
    ]


def _callables() -> list[tuple[str, object]]:
    """(dotted name, function) of every public function, public method and class constructor defined
    there."""
    out = {}
    for modname in _modules():
        module = importlib.import_module(modname)
        for name in _public_names(module):
            obj = getattr(module, name, None)
            if getattr(obj, "__module__", None) != modname or hasattr(obj, "py_func"):
                continue
            if inspect.isclass(obj):
                if "__init__" in vars(obj) and not issubclass(obj, BaseException):
                    out[f"{modname}.{name}.__init__"] = vars(obj)["__init__"]
                for attr, member in vars(obj).items():
                    if isinstance(member, (classmethod, staticmethod)):
                        member = member.__func__
                    elif isinstance(member, property):
                        member = member.fget
                    if not attr.startswith("_") and inspect.isfunction(member):
                        out[f"{modname}.{name}.{attr}"] = member
            elif inspect.isfunction(obj):
                out[f"{modname}.{name}"] = obj
    return sorted(out.items())


CALLABLES = _callables()


def test_the_annotated_modules_exist():
    missing = [m for m in ANNOTATED if not any(n == m or n.startswith(m + ".") for n in _modules())]
    assert not missing, f"ANNOTATED names no module: {missing}"


@pytest.mark.parametrize("name,func", CALLABLES, ids=[n for n, _ in CALLABLES])
def test_public_callable_is_annotated(name, func):
    sig = inspect.signature(func)
    missing = [
        p.name
        for i, p in enumerate(sig.parameters.values())
        if p.annotation is inspect.Parameter.empty and not (i == 0 and p.name in ("self", "cls"))
    ]
    if sig.return_annotation is inspect.Signature.empty:
        missing.append("return")
    assert not missing, f"{name}: no annotation for {missing}"
