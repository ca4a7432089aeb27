"""Every public callable has a numpydoc docstring that documents what it takes and returns.

numpydoc's own validator (``numpydoc.validate``, the one numpy, scipy and pandas run) reads each
docstring against the callable's signature: every parameter documented (PR01) and none invented
(PR02), each with a type and a description (PR04, PR07), a Returns section where the callable
returns a value (RT01) or a Yields section where it yields (YD01), and a docstring at all (GL08).
The numba kernels are checked the same way through the Python function they compile (``py_func``): a
kernel's arguments are its interface to the code that calls it. Registered mechanisms and games cite
what they implement in a ``References`` section.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import numpydoc.docscrape
import numpydoc.validate
import pytest

import fairlib

#: the numpydoc checks the house enforces (numpydoc.validate.ERROR_MSGS); the others are matters of
#: style
CHECKS = ("GL08", "PR01", "PR02", "PR04", "PR07", "RT01", "YD01")


def _modules() -> list[str]:
    names = ["fairlib"]
    for info in pkgutil.walk_packages(fairlib.__path__, "fairlib."):
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


def _is_kernel(obj) -> bool:
    return hasattr(obj, "py_func") and callable(getattr(obj, "py_func"))


def _public_callables() -> list[tuple[str, object]]:
    """(dotted name, object) of every public function, class and public method defined in
    fairlib."""
    seen: set[int] = set()
    out = []
    for modname in _modules():
        module = importlib.import_module(modname)
        for name in _public_names(module):
            obj = getattr(module, name, None)
            if obj is None or id(obj) in seen:
                continue
            defined_in = getattr(obj, "__module__", "") or ""
            if not defined_in.startswith("fairlib") or _is_kernel(obj):
                continue
            if inspect.isclass(obj):
                seen.add(id(obj))
                out.append((f"{defined_in}.{obj.__qualname__}", obj))
                for attr, member in vars(obj).items():
                    if attr.startswith("_") or not (
                        inspect.isfunction(member)
                        or isinstance(member, (classmethod, staticmethod))
                    ):
                        continue
                    out.append((f"{defined_in}.{obj.__qualname__}.{attr}", member))
            elif inspect.isfunction(obj):
                seen.add(id(obj))
                out.append((f"{defined_in}.{obj.__qualname__}", obj))
    return sorted(out, key=lambda t: t[0])


def _kernels() -> list[tuple[str, object]]:
    """(dotted name, Python function) of every numba kernel defined in fairlib, public or
    private."""
    seen: set[int] = set()
    out = []
    for modname in _modules():
        module = importlib.import_module(modname)
        for name, obj in vars(module).items():
            if _is_kernel(obj) and getattr(obj.py_func, "__module__", None) == modname:
                if id(obj) not in seen:
                    seen.add(id(obj))
                    out.append((f"{modname}.{name}", obj.py_func))
    return sorted(out, key=lambda t: t[0])


PUBLIC = _public_callables()
KERNELS = _kernels()


def _errors(name: str) -> list[str]:
    result = numpydoc.validate.validate(name)
    return [f"{code}: {msg}" for code, msg in result["errors"] if code in CHECKS]


@pytest.mark.parametrize("name", [n for n, _ in PUBLIC])
def test_public_callable_docstring(name):
    errors = _errors(name)
    assert not errors, f"{name}:\n  " + "\n  ".join(errors)


@pytest.mark.parametrize("name,func", KERNELS, ids=[n for n, _ in KERNELS])
def test_kernel_documents_its_arguments(name, func):
    doc = numpydoc.docscrape.FunctionDoc(func)
    documented = {
        part.strip() for p in doc["Parameters"] for part in p.name.replace("*", "").split(",")
    }
    arguments = list(inspect.signature(func).parameters)
    missing = [a for a in arguments if a not in documented]
    assert not missing, f"{name}: arguments not in its Parameters section: {missing}"


def _registered():
    from fairlib import games, mechanisms

    return [(f"mechanism {n}", mechanisms.get(n).function) for n in mechanisms.names()] + [
        (f"game {n}", games.get(n).function) for n in games.names()
    ]


@pytest.mark.parametrize("label,func", _registered(), ids=[label for label, _ in _registered()])
def test_registered_callable_cites_its_source(label, func):
    doc = numpydoc.docscrape.FunctionDoc(inspect.unwrap(func))
    assert doc["References"], (
        f"{label}: no References section naming the paper or algorithm it implements"
    )
