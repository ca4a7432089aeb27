"""Which validation sites of ``fairlib/`` the bad-input tests make raise, and which of them a test
notices removed.

A **site** is a call of a :mod:`fairlib._validate` helper inside a function of ``fairlib/``
(``test_api_contract.validation_sites``) or a ``raise InvalidInputError(...)`` there; a **cap** is a
site that refuses a value above a named bound (a ``MAX_*`` name in the ``if`` above the raise, or in
the helper's ``maximum=``). Two passes:

``trace``
    Runs every probe of the API contract (``tests/test_api_contract.py``, in this process, on the
    same baselines) and the bad-input tests given (pytest node ids or files, in this process), with
    ``InvalidInputError.__init__`` recording the innermost ``fairlib/`` frame outside
    ``_validate.py`` of every refusal: the site that raised, and the probe or test that made it
    raise (its **witness**). A site that never raises certainly survives its removal: it needs a
    probe (or it is dead). Writes ``raised.json``.
``mutate``
    For each site some witness made raise, in this process: replaces the site by a pass-through (a
    helper call by its first argument, a raise by ``pass``, in that one function's code object),
    reruns its witnesses (the contract's probes of the callable, the pytest node ids), and records
    it **killed** when one of them fails, else **survived**. Writes ``mutated.json``.

Run from the repository root (``FAIRLIB_AUDIT_DIR`` picks the output folder,
``build/mutation-audit`` by default)::

    python tests/mutation_audit.py trace tests/test_validate.py tests/test_named_errors.py ...
    python tests/mutation_audit.py mutate [--start K] [--count N]
    # ended by a signal: run hung, then mutate
    python tests/mutation_audit.py report

The contract's own mutation tests
(``test_the_contract_fails_a_callable_whose_validation_site_is_removed``) run a fixed window of the
helper sites against the contract alone on every ``make test``; this audit covers every site and
every test, when asked.
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import pkgutil
import resource
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
#: seconds a probe of a mutant may take before it counts as a failure (the contract's own deadline,
#: if shorter)
PROBE_SECONDS = 20
#: seconds of CPU one site's mutant may take in all before the kernel ends the audit (SIGXCPU):
#: killed, hung
CPU_SECONDS = 45
OUT = Path(os.environ.get("FAIRLIB_AUDIT_DIR", ROOT / "build" / "mutation-audit"))


def _import_all() -> None:
    import fairlib

    for info in pkgutil.walk_packages(fairlib.__path__, "fairlib."):
        if ".repro" in info.name and info.name.split(".")[2:3] == ["scaffold"]:
            continue
        try:
            importlib.import_module(info.name)
        except Exception:  # noqa: BLE001 - an optional dependency: its sites show as never raised
            pass


def _module_of(path: Path) -> str:
    import fairlib

    root = Path(fairlib.__file__).parent
    name = ".".join(("fairlib", *path.relative_to(root).with_suffix("").parts))
    return name.removesuffix(".__init__")


def _names_in(node) -> set[str]:
    out = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.Attribute):
            out.add(n.attr)
    return out


def _is_cap(names: set[str]) -> bool:
    return any(n.startswith("MAX_") or n.endswith("_MAX") for n in names)


def sites() -> list[dict]:
    """Every helper call and every ``raise InvalidInputError(...)`` inside a function of
    ``fairlib/``: module, function, line, column, kind (the helper's name, or ``raise``) and whether
    it is a cap."""
    import fairlib
    from fairlib._validate import __all__ as helpers_all

    helpers = {n for n in helpers_all if n.startswith(("as_", "check_"))}
    root, out = Path(fairlib.__file__).parent, []
    for path in sorted(root.rglob("*.py")):
        if path.name == "_validate.py":
            continue
        module = _module_of(path)

        def walk(node, stack, guards):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.ClassDef)):
                    walk(child, [*stack, child.name], [])
                    continue
                if not stack:
                    walk(child, stack, guards)
                    continue
                if (
                    isinstance(child, ast.Call)
                    and isinstance(child.func, ast.Name)
                    and child.func.id in helpers
                ):
                    maximum = [k.value for k in child.keywords if k.arg == "maximum"]
                    out.append(
                        dict(
                            module=module,
                            function=".".join(stack),
                            line=child.lineno,
                            col=child.col_offset,
                            kind=child.func.id,
                            cap=bool(maximum) and _is_cap(_names_in(maximum[0])),
                        )
                    )
                if (
                    isinstance(child, ast.Raise)
                    and isinstance(child.exc, ast.Call)
                    and isinstance(child.exc.func, ast.Name)
                    and child.exc.func.id == "InvalidInputError"
                ):
                    out.append(
                        dict(
                            module=module,
                            function=".".join(stack),
                            line=child.exc.lineno,
                            col=child.exc.col_offset,
                            kind="raise",
                            cap=any(_is_cap(_names_in(g)) for g in guards),
                            raise_line=child.lineno,
                            raise_col=child.col_offset,
                        )
                    )
                inner = [*guards, child.test] if isinstance(child, (ast.If, ast.While)) else guards
                walk(child, stack, inner)

        walk(ast.parse(path.read_text()), [], [])
    return out


def key(site: dict) -> str:
    return f"{site['module']}:{site['line']}:{site['col']}"


# --- trace ----------------------------------------------------------------------------------------

_WITNESS: list = [None]
_RAISED: dict[str, set] = {}


def _install_recorder() -> None:
    import fairlib
    from fairlib._validate import InvalidInputError

    root = str(Path(fairlib.__file__).parent)
    kept = InvalidInputError.__init__

    def record(self, *args, **kwargs):
        frame = sys._getframe(1)
        while frame is not None:
            f = frame.f_code.co_filename
            if f.startswith(root) and not f.endswith("_validate.py"):
                positions = list(frame.f_code.co_positions())
                line, _, col, _ = positions[frame.f_lasti // 2]
                path = Path(f)
                name = f"{_module_of(path)}:{line}:{col}"
                _RAISED.setdefault(name, set()).add(json.dumps(_WITNESS[0]))
                break
            frame = frame.f_back
        kept(self, *args, **kwargs)

    InvalidInputError.__init__ = record


def _contract():
    sys.path.insert(0, str(HERE))
    import test_api_contract as contract

    return contract


class _Sandbox:
    """The contract's baselines and probes run in their own folder and environment (its output
    folders), restored after: the pytest runs of the same process see the repository's."""

    def __init__(self):
        import tempfile

        self.tmp = Path(tempfile.mkdtemp(prefix="mutation-audit-"))
        self.env = None

    def __enter__(self):
        self.here, self.env = os.getcwd(), dict(os.environ)
        os.environ.update(self.sandbox_env)
        os.chdir(self.tmp)
        return self

    @property
    def sandbox_env(self) -> dict:
        return dict(
            FAIRLIB_BUILD_DIR=str(self.tmp / "build"),
            FAIRLIB_OUTPUT_DIR=str(self.tmp / "out"),
            FAIRLIB_TRACE_DIR=str(self.tmp / "traces"),
        )

    def __exit__(self, *exc):
        os.chdir(self.here)
        os.environ.clear()
        os.environ.update(self.env)


_SANDBOX: list = []


def _contract_baselines(contract):
    _SANDBOX[:] = [_Sandbox()]
    contract._CHILD["tmp"] = _SANDBOX[0].tmp
    with _SANDBOX[0]:
        return contract._find_baselines(_SANDBOX[0].tmp)


def _probe(contract, bases, name) -> list[str]:
    """The contract's problems with ``name``, probed in the baselines' sandbox."""
    target = next(t for t in contract.TARGETS if t.name == name)
    base = bases.get(name)
    if base is None:
        return []
    with _SANDBOX[0]:
        return contract.probe(target, base)


class _Witness:
    """A pytest plugin naming the test in hand as the witness of what it makes raise; it keeps only
    the tests whose own source expects an error (``raises``, ``InvalidInputError``): the bad-input
    tests."""

    def pytest_collection_modifyitems(self, config, items):
        import inspect

        def expects_an_error(item) -> bool:
            try:
                text = inspect.getsource(item.function)
            except (AttributeError, OSError, TypeError):
                return True
            return "raises" in text or "InvalidInputError" in text

        kept = [item for item in items if expects_an_error(item)]
        config.hook.pytest_deselected(items=[item for item in items if item not in kept])
        items[:] = kept

    def pytest_runtest_setup(self, item):
        _WITNESS[0] = ["pytest", item.nodeid]

    def pytest_runtest_teardown(self, item):
        _WITNESS[0] = None


def trace(tests: list[str]) -> None:
    import pytest

    _import_all()
    _install_recorder()
    contract = _contract()
    t0 = time.time()
    bases = _contract_baselines(contract)
    for target in contract.TARGETS:
        if not target.exempt:
            _WITNESS[0] = ["contract", target.name]
            _probe(contract, bases, target.name)
    _WITNESS[0] = None
    print(f"contract probes: {time.time() - t0:.0f} s", flush=True)
    if tests:
        pytest.main(
            ["-p", "no:cacheprovider", "-q", *tests],
            plugins=[_Witness()],
        )
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "raised.json").write_text(
        json.dumps({k: sorted(v) for k, v in sorted(_RAISED.items())}, indent=1)
    )
    report()


# --- mutate ---------------------------------------------------------------------------------------


class _Hang(BaseException):
    """A probe of a mutant ran past its deadline (a BaseException: the contract's probe catches
    every Exception)."""


def _mutate(site: dict):
    """Replace ``site`` by a pass-through in its function's code object (:func:`mutants.mutate`);
    returns (function, its original code)."""
    from tests.mutants import mutate

    return mutate(site["module"], site["function"], site["line"], site["col"], kind=site["kind"])


def hung() -> None:
    """Record the site ``mutate`` was on when its process ended (past :data:`CPU_SECONDS` of CPU, or
    a compiled kernel's crash on what the site should have refused) as killed."""
    path = OUT / "mutated.json"
    done = json.loads(path.read_text()) if path.exists() else {}
    k = (OUT / "current").read_text()
    done[k] = ["killed", f"ended the process (past {CPU_SECONDS} s of CPU, or a crash)"]
    path.write_text(json.dumps(done, indent=1))
    print(k, "killed (ended the process)", flush=True)


def _pytest_fails(args: list[str]) -> bool:
    """Whether pytest fails ``args``; a test running past :data:`PROBE_SECONDS` fails (a mutant that
    loops)."""
    import signal

    import pytest

    def on_alarm(signum, frame):
        raise TimeoutError(f"past {PROBE_SECONDS} s")

    kept = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, PROBE_SECONDS * 3)
    try:
        return pytest.main(args) == pytest.ExitCode.TESTS_FAILED
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, kept)


def mutate(start: int = 0, count: int | None = None) -> None:

    raised = json.loads((OUT / "raised.json").read_text())
    path = OUT / "mutated.json"
    done = json.loads(path.read_text()) if path.exists() else {}
    todo = [s for s in sites() if key(s) in raised]
    todo = todo[start : None if count is None else start + count]
    _import_all()
    from tests.mutants import NotMutable

    contract = _contract()
    bases = _contract_baselines(contract)
    # a mutant that loops on a huge count instead of refusing it fails its probe by the deadline,
    # sooner
    contract.PROBE_SECONDS = min(contract.PROBE_SECONDS, PROBE_SECONDS)
    guarded = contract._guarded_invoke

    def stop_at_a_hang(target, args, kwargs):
        try:
            return guarded(target, args, kwargs)
        except contract._Timeout:
            raise _Hang from None  # a failed probe: the rest of the target's probes need not run

    contract._guarded_invoke = stop_at_a_hang
    for site in todo:
        k = key(site)
        if k in done:
            continue
        witnesses = [json.loads(w) for w in raised[k]]
        # a mutant can loop in compiled code, which holds the interpreter: past CPU_SECONDS of CPU
        # the kernel ends the process (SIGXCPU), and ``hung`` records the site named in ``current``
        # as killed (it hangs where it should refuse); rerun ``mutate`` to go on from the next site
        (OUT / "current").write_text(k)
        usage = resource.getrusage(resource.RUSAGE_SELF)
        used = usage.ru_utime + usage.ru_stime
        resource.setrlimit(resource.RLIMIT_CPU, (int(used) + CPU_SECONDS, resource.RLIM_INFINITY))
        try:
            fn, kept = _mutate(site)
        except (NotMutable, StopIteration, KeyError, AttributeError) as exc:
            done[k] = ["not mutable", str(exc)]
            continue
        outcome = ["survived", ""]
        try:
            for kind, name in witnesses:
                try:
                    failed = kind == "contract" and bool(_probe(contract, bases, name))
                except _Hang:
                    failed = True
                if failed:
                    outcome = ["killed", name]
                    break
            else:
                nodeids = [name for kind, name in witnesses if kind == "pytest"]
                run = ["-p", "no:cacheprovider", "-q", "-x", *nodeids]
                if nodeids and _pytest_fails(run):
                    outcome = ["killed", nodeids[0]]
        finally:
            fn.__code__ = kept
        done[k] = outcome
        print(k, site["kind"], *outcome, flush=True)
        path.write_text(json.dumps(done, indent=1))
    report()


def report() -> None:
    every = sites()
    raised = json.loads((OUT / "raised.json").read_text()) if (OUT / "raised.json").exists() else {}
    path = OUT / "mutated.json"
    mutated = json.loads(path.read_text()) if path.exists() else {}
    caps = [s for s in every if s["cap"]]
    never = [s for s in every if key(s) not in raised]
    outcomes = [mutated[key(s)][0] for s in every if key(s) in mutated]
    print(
        f"sites {len(every)} (helper calls {sum(s['kind'] != 'raise' for s in every)}, "
        f"raises {sum(s['kind'] == 'raise' for s in every)}; caps {len(caps)}), made to "
        f"raise by a probe or test {len(every) - len(never)} (caps "
        f"{sum(key(s) in raised for s in caps)}), mutated {len(outcomes)}: killed "
        f"{outcomes.count('killed')}, survived {outcomes.count('survived')}, not mutable "
        f"{outcomes.count('not mutable')}"
    )
    for s in never:
        print("never raised:", key(s), s["function"], s["kind"], "(cap)" if s["cap"] else "")
    for s in every:
        if mutated.get(key(s), [""])[0] == "survived":
            print("survived:", key(s), s["function"], s["kind"])


if __name__ == "__main__":
    os.chdir(ROOT)
    command, *rest = sys.argv[1:] or ["report"]
    if command == "trace":
        trace(rest)
    elif command == "mutate":
        args = dict(zip(rest[::2], rest[1::2]))
        mutate(int(args.get("--start", 0)), int(args["--count"]) if "--count" in args else None)
    elif command == "hung":
        hung()
    else:
        report()
