"""How many positional parameters the numba kernels of ``fairlib.multires`` take, against a ceiling.

A kernel that grows a long positional list invites swapped arguments that no type check catches (two
float64 tolerances, two int64 caps). The scalar options a method passes to its kernels travel in one
bundle (a ``typing.NamedTuple`` of scalars, which numba compiles as a tuple) built by the Python
wrapper from the method's options; data arrays stay positional. The scan reads the source with
:mod:`ast` (nothing is imported or compiled) and counts the positional parameters of every function
decorated with ``njit``. The ceilings are the scan's result today: a new or widened kernel above
them fails here, and a ceiling is lowered when the kernels shrink.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "fairlib" / "multires"

#: a kernel with this many positional parameters or more counts as long
LONG = 10
#: the most positional parameters any kernel of fairlib.multires takes
#: (maxmin_interior._newton_solve's)
MAX_POSITIONAL = 27
#: how many kernels of fairlib.multires take LONG positional parameters or more
MAX_LONG_KERNELS = 37


def _kernels() -> list[tuple[int, str]]:
    """(positional parameters, "path:name") of every ``njit`` function under fairlib/multires,
    longest first."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and any(
                "njit" in ast.unparse(d) for d in node.decorator_list
            ):
                count = len(node.args.posonlyargs) + len(node.args.args)
                out.append((count, f"{path.relative_to(ROOT)}:{node.name}"))
    return sorted(out, reverse=True)


def test_the_scan_finds_the_kernels():
    assert len(_kernels()) > 50


def test_no_kernel_exceeds_the_positional_ceiling():
    over = [f"{name} ({n})" for n, name in _kernels() if n > MAX_POSITIONAL]
    assert not over, f"kernels above {MAX_POSITIONAL} positional parameters: {over}"


def test_long_kernels_within_their_ceiling():
    long = [f"{name} ({n})" for n, name in _kernels() if n >= LONG]
    assert len(long) <= MAX_LONG_KERNELS, (
        f"{len(long)} kernels take {LONG} positional parameters or more, more than "
        f"{MAX_LONG_KERNELS}: bundle their scalar options. They are:\n  " + "\n  ".join(long)
    )
