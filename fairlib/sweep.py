"""Parameter sweeps over a grid x seeds: serial, on local cores (joblib/loky) or on a Dask cluster.

One call runs ``fn(seed=..., **params)`` for every grid point and repetition and gathers the rows
into a tidy DataFrame::

    from fairlib.sweep import sweep

    def cell(seed, users, delta):
        rng = np.random.default_rng(seed)
        ...
        return {"efficiency": e, "iterations": t}      # or a list of such dicts

    df = sweep(cell, {"users": [10, 50], "delta": [1, 5]}, seeds=20, rng=2005)
    # columns: users, delta, rep, efficiency, iterations — one row per (users, delta, rep)

**Seeds.** Each cell's ``seed`` is a ``np.random.SeedSequence`` derived from the root seed ``rng``,
the cell's parameters (a hash of their canonical JSON, types included: ``1`` and ``1.0``, which
``fn`` may treat differently, seed differently, so a grid's values are best written in one type) and
its repetition number, never from its position in the grid or in the schedule. So results do not
depend on the backend, the worker count or the order cells finish in, and a cell keeps its seed when
the grid around it grows.

**Backends.** ``backend=None`` picks Dask when a scheduler address is configured
(``scheduler=`` or ``FAIRLIB_DASK_SCHEDULER=tcp://host:8786``), else joblib/loky on ``n_jobs``
local processes (default: every core; ``FAIRLIB_SWEEP_JOBS`` overrides), else serial for a single
job or a single cell. Cheap cells are batched (joblib's automatic batching; for Dask, chunks sized
to a few per worker) so the per-cell overhead stays small. ``fn`` must be importable by the workers
(a module-level function; functions defined in a notebook are shipped by value with cloudpickle).
Numba kernels are compiled, or loaded from the on-disk cache, once per worker process.

**Failures.** A cell that raises is recorded with its parameters, repetition and traceback; the
others complete. Then, with ``errors="raise"`` (default), :class:`SweepError` is raised carrying
the finished rows (``.results``) and the failures (``.failures``); with ``errors="keep"`` the rows
are returned, the failures are attached as ``df.attrs["failures"]`` and a warning names them.

**Cache.** With ``cache=True`` (or ``FAIRLIB_SWEEP_CACHE=1``; ``run_all.py --resume`` sets it) each
finished cell is written at once to ``build/sweep-cache/<name>/``, keyed by the function, its
source, the fairlib sources, the parameters, the repetition and the root seed. A rerun after an
interruption loads the finished cells and runs only the rest; any code change starts afresh. Inputs
the key cannot see (files a cell reads) are the caller's responsibility: clear the directory.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import itertools
import json
import math
import os
import pickle
import re
import time
import traceback
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, NamedTuple

import numpy as np
import pandas as pd

from ._validate import (
    FRESH_ENTROPY,
    InvalidInputError,
    _short,
    as_count,
    as_label,
    as_labels,
    as_sequence,
    check_choice,
    _shows,
)

__all__ = ["sweep", "SweepError", "cell_seed", "default_backend", "BACKENDS"]

BACKENDS = ("serial", "loky", "dask")
#: the most cells (grid points x seeds) one sweep runs: each holds its parameters and seed in memory
#: before the first runs, so a grid or ``seeds`` far beyond any experiment's is refused, naming it,
#: rather than filling memory
MAX_CELLS = 1_000_000
_SCHEDULER_ENV = "FAIRLIB_DASK_SCHEDULER"
_JOBS_ENV = "FAIRLIB_SWEEP_JOBS"
_CACHE_ENV = "FAIRLIB_SWEEP_CACHE"


class SweepError(RuntimeError):
    """Some cells of a sweep failed; the others finished.

    Parameters
    ----------
    message : str
        What failed: how many cells, and the first error.
    results : pandas.DataFrame
        The rows of the cells that finished (as :func:`sweep` would return them).
    failures : pandas.DataFrame
        One row per failed cell: its parameters, ``rep``, ``error`` and ``traceback``.
    """

    def __init__(self, message: str, results: pd.DataFrame, failures: pd.DataFrame):
        super().__init__(message)
        self.results = results
        self.failures = failures


@dataclass(frozen=True)
class _Cell:
    index: int
    params: dict
    rep: int
    seed: np.random.SeedSequence


# --- cells and seeds ------------------------------------------------------------------------------


def _plain(value):
    """JSON-able canonical form of a parameter value (numpy scalars and arrays included)."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray) and value.dtype.hasobject:
        # an object array's bytes are pointers (equal arrays, different keys): by its values,
        # each of which needs a canonical form of its own
        return {"ndarray": _plain(value.tolist()), "shape": list(value.shape), "dtype": "object"}
    if isinstance(
        value, np.ndarray
    ):  # by content hash: large arrays (demand pools) stay cheap to key
        data = np.ascontiguousarray(value)
        return {
            "ndarray_sha256": hashlib.sha256(data.tobytes()).hexdigest(),
            "shape": list(data.shape),
            "dtype": str(data.dtype),
        }
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if hasattr(value, "sweep_key"):  # e.g. a registered mechanism (fairlib.mechanisms.Mechanism)
        return _plain(value.sweep_key())
    if isinstance(value, functools.partial):
        return {
            "partial": _plain(value.func),
            "args": _plain(value.args),
            "keywords": _plain(value.keywords),
        }
    if callable(
        value
    ):  # a function by name and code: two lambdas of one function share a name, not a key
        return {
            "callable": f"{getattr(value, '__module__', '?')}."
            f"{getattr(value, '__qualname__', repr(value))}",
            "code": hashlib.sha256(_code_text(value).encode()).hexdigest(),
        }
    raise InvalidInputError(
        f"grid: parameter value {value!r} of type {type(value).__name__} has no canonical "
        "form for seeding and caching (use numbers, strings, tuples, lists, dicts or arrays)"
    )


def _canonical(obj: Any) -> str:
    return json.dumps(_plain(obj), sort_keys=True, separators=(",", ":"))


def _root_sequence(rng: object) -> np.random.SeedSequence:
    if isinstance(rng, np.random.SeedSequence):
        return rng
    if rng is None:  # the reason as_rng gives where a result must be reproducible
        raise InvalidInputError(f"rng = None: {FRESH_ENTROPY}")
    if isinstance(rng, (bool, np.bool_)) or not isinstance(rng, (int, np.integer)) or rng < 0:
        raise InvalidInputError(
            f"rng = {rng!r}: the root seed must be a non-negative integer or a SeedSequence "
            "(a Generator would make the cells' seeds depend on its state)"
        )
    return np.random.SeedSequence(int(rng))


def cell_seed(
    rng: int | np.random.SeedSequence, params: Mapping[str, Any], rep: int
) -> np.random.SeedSequence:
    """The seed a sweep gives the cell ``params`` at repetition ``rep`` under root seed ``rng``.

    It depends on the root seed, a hash of the parameters' canonical JSON and the repetition only,
    never on the cell's position in the grid or the schedule. An array enters by its content: its
    bytes' hash, or an object array's values (its bytes are pointers), each with a canonical form.

    Parameters
    ----------
    rng : int or numpy.random.SeedSequence
        The sweep's root seed (an integer >= 0 or a SeedSequence).
    params : mapping of str to object
        The cell's parameters (the ones its seed depends on: ``seed_by`` of :func:`sweep`).
    rep : int
        The repetition, >= 0.

    Returns
    -------
    numpy.random.SeedSequence
        The root's entropy, spawned by the parameters' hash and ``rep``.

    Raises
    ------
    InvalidInputError
        When ``params`` is not a mapping, ``rep`` is negative or ``rng`` is not a seed.

    Examples
    --------
    >>> a = cell_seed(7, {"users": 10}, 0).generate_state(1)
    >>> b = cell_seed(7, {"users": 10}, 0).generate_state(1)
    >>> bool((a == b).all()), bool((a == cell_seed(7, {"users": 10}, 1).generate_state(1)).all())
    (True, False)
    """
    if not isinstance(params, Mapping):
        raise InvalidInputError(
            f"params = {_short(params)}: expected a dict of parameter name -> value"
        )
    for key, value in params.items():
        if not isinstance(key, str):
            raise InvalidInputError(
                f"params: key {key!r} is not a string (a cell's parameters are keyword arguments)"
            )
        try:
            _plain(value)
        except (
            InvalidInputError
        ):  # _plain's message speaks of the grid; here the cell is the argument
            raise InvalidInputError(
                f"params[{key!r}] = {_short(value)}: no canonical form for seeding (use numbers, "
                "strings, tuples, lists, dicts or arrays)"
            ) from None
    rep = as_count(rep, "rep", minimum=0)
    root = _root_sequence(rng)
    digest = hashlib.sha256(_canonical(params).encode()).digest()
    words = tuple(int.from_bytes(digest[i : i + 4], "little") for i in range(0, 16, 4))
    return np.random.SeedSequence(
        root.entropy, spawn_key=tuple(root.spawn_key) + words + (int(rep),)
    )


def _at_most(values: object, name: str, what: str) -> list[Any]:
    """``values`` read once (:func:`~fairlib._validate.as_sequence`: a set, whose order of strings
    changes from one interpreter to the next and with it the table's rows, refused) as a list of at
    most :data:`MAX_CELLS` items (an endless generator is refused, not drained)."""
    return list(as_sequence(values, name, what=what, maximum=MAX_CELLS, cap="MAX_CELLS"))


def _grid_points(grid: object) -> list[dict]:
    """The sweep's points: the product of a dict of value lists, or a list of dicts, checked."""
    if isinstance(grid, Mapping):
        lists = {}
        for name, values in grid.items():
            lists[name] = _at_most(values, f"grid[{name!r}]", "expected a list of values")
            if not lists[name]:
                raise InvalidInputError(
                    f"grid[{name!r}]: no values (the grid would have no points)"
                )
        size = math.prod(len(v) for v in lists.values())
        if size > MAX_CELLS:
            raise InvalidInputError(
                f"grid: {size:,} points ({' x '.join(str(len(v)) for v in lists.values())}), "
                f"more than MAX_CELLS = {MAX_CELLS:,}"
            )
        names = list(lists)
        points = [dict(zip(names, combo)) for combo in itertools.product(*lists.values())]
    else:
        points = _at_most(grid, "grid", "expected a dict of name -> values or a list of dicts")
        if not points:
            raise InvalidInputError("grid: no points (an empty list of parameter dicts)")
        for i, p in enumerate(points):
            if not isinstance(p, Mapping):
                raise InvalidInputError(
                    f"grid[{i}] = {p!r}: a list grid must hold dicts of parameters"
                )
        points = [dict(p) for p in points]
    for i, p in enumerate(points):
        for key in p:
            if not isinstance(key, str):
                raise InvalidInputError(
                    f"grid point {i}: parameter name {key!r} is not a string (a keyword "
                    "argument of fn)"
                )
            as_label(key, f"grid point {i}: parameter name")  # a column of the table, shown
        for reserved in ("seed", "rep"):
            if reserved in p:
                raise InvalidInputError(
                    f"grid point {i}: parameter name {reserved!r} is reserved by the sweep"
                )
    # equal values are one point: 1 and 1.0 would be two rows of x = 1.0, and NaN is NaN
    keys = [json.dumps(_by_value(_plain(p)), sort_keys=True) for p in points]
    first: dict[str, int] = {}
    for i, key in enumerate(keys):
        if key in first:
            raise InvalidInputError(
                f"grid: the point {_short(points[i])} appears more than once (points "
                f"{first[key]} and {i} are equal as values, so the table would hold it twice)"
            )
        first[key] = i
    return points


def _by_value(plain: object) -> object:
    """A canonical form (:func:`_plain`) with numbers compared by value: an integral float is its
    integer (``1.0`` is ``1``, ``-0.0`` is ``0``), NaN and infinities their names; a bool stays
    itself."""
    if isinstance(plain, float):
        if not math.isfinite(plain):
            return ["float", repr(plain)]
        return int(plain) if plain.is_integer() else plain
    if isinstance(plain, list):
        return [_by_value(v) for v in plain]
    if isinstance(plain, dict):
        return {k: _by_value(v) for k, v in plain.items()}
    return plain


# --- cache ----------------------------------------------------------------------------------------


def _code_text(fn: Callable[..., Any]) -> str:
    """A function's source, or its bytecode and constants when the source is not available."""
    try:
        return inspect.getsource(fn)
    except (OSError, TypeError):
        code = getattr(fn, "__code__", None)
        return repr(code.co_code) + repr(code.co_consts) if code is not None else repr(fn)


def _function_fingerprint(fn: Callable[..., Any]) -> str:
    body = _code_text(fn)
    from . import SOURCE_HASH

    name = f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', repr(fn))}"
    return hashlib.sha256(f"{name}\n{body}\n{SOURCE_HASH}".encode()).hexdigest()


def _cache_key(fingerprint: str, fixed_key: str, root: np.random.SeedSequence, cell: _Cell) -> str:
    text = "\n".join(
        [
            fingerprint,
            fixed_key,
            _canonical(cell.params),
            str(cell.rep),
            repr(root.entropy),
            repr(tuple(root.spawn_key)),
        ]
    )
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _cache_enabled(cache: object) -> bool:
    if cache is None:
        value = os.environ.get(_CACHE_ENV, "")
        if value not in ("", "0", "1"):  # "false" or "no" must not turn the cache on
            raise InvalidInputError(
                f"{_CACHE_ENV} = {value!r}: must be 1 (cache on), or 0 or empty (off)"
            )
        return value == "1"
    return bool(cache)


def _cache_dir(name: str) -> Path:
    from .paths import build_dir

    return build_dir() / "sweep-cache" / name


def _write_atomic(path: Path, payload: object) -> None:
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    with open(tmp, "wb") as f:
        pickle.dump(payload, f, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(tmp, path)


# --- execution ------------------------------------------------------------------------------------

#: what a cell comes back as: (index, rows, None), or (index, None, (error, traceback)) when it
#: raised
_Outcome = tuple[int, "list[dict] | None", "tuple[str, str] | None"]


def _run_cell(fn: Callable[..., Any], fixed: Mapping[str, Any], cell: _Cell) -> _Outcome:
    """(index, rows, None) or (index, None, (error, traceback)); never raises for an ordinary
    exception."""
    try:
        out = fn(seed=cell.seed, **cell.params, **fixed)
        return cell.index, _as_rows(out, cell.params), None
    except Exception as exc:  # noqa: BLE001 - reported with the cell's parameters
        return cell.index, None, (f"{type(exc).__name__}: {exc}", traceback.format_exc())


def _run_cell_spooled(
    fn: Callable[..., Any], fixed: Mapping[str, Any], cell: _Cell, spool: str
) -> _Outcome:
    """:func:`_run_cell`, its outcome also written to ``spool/<index>.pkl`` as soon as the cell
    finishes: loky returns a batch's results together, so when a worker dies the cells it had
    finished are read back from there instead of being reported lost with the rest of the batch."""
    out = _run_cell(fn, fixed, cell)
    try:
        _write_atomic(Path(spool) / f"{cell.index}.pkl", out)
    except Exception:  # noqa: BLE001
        # the spool is a safety net; the result still goes back the normal way
        pass
    return out


def _read_spool(spool: Path | None, index: int) -> _Outcome | None:
    """The outcome a worker spooled for cell ``index`` before the pool broke, or None."""
    if spool is None:
        return None
    try:
        with open(spool / f"{index}.pkl", "rb") as f:
            out = pickle.load(f)
    except Exception:  # noqa: BLE001 - missing or half-written: the cell did not finish
        return None
    return out if isinstance(out, tuple) and len(out) == 3 and out[0] == index else None


def _run_chunk(fn, fixed, cells):
    return [_run_cell(fn, fixed, c) for c in cells]


def _as_rows(out: object, params: Mapping[str, Any]) -> list[dict]:
    """A cell's result (a DataFrame, a mapping or a list of mappings) as rows, refused when a
    column name is blank or no text, names one of the cell's parameters ``params`` or ``rep`` (the
    table's columns for them), or a value is complex (a row a table could not hold). Raised in the
    cell, so it is that cell's failure, kept with ``errors="keep"`` like any other."""
    if isinstance(out, pd.DataFrame):
        rows = out.to_dict("records")
        names = list(out.columns)
    elif isinstance(out, Mapping):
        rows = [dict(out)]
        names = list(out)
    elif isinstance(out, (list, tuple)) and all(isinstance(r, Mapping) for r in out):
        rows = [dict(r) for r in out]
        names = [k for r in rows for k in r]
    else:
        raise TypeError(
            "a sweep function must return a dict, a list of dicts or a DataFrame, got "
            f"{type(out).__name__}"
        )
    # a column is named by text: a blank name has no header, a number one mixes with the
    # parameters' names
    bad = [k for k in names if not isinstance(k, str) or not _shows(k)]
    if bad:
        raise ValueError(
            f"a sweep function's columns are named by non-blank text; it returned a column "
            f"named {bad[0]!r}"
        )
    clash = sorted(set(names) & (set(params) | {"rep"}))
    if clash:
        raise ValueError(
            f"a sweep function's columns name no grid parameter (nor 'rep'), the table's columns "
            f"for them; it returned column(s) {clash}: rename them"
        )
    # no result of the library is complex, and no written table reads one back as a number
    for row in rows:
        for key, value in row.items():
            if isinstance(value, (complex, np.complexfloating)) or (
                isinstance(value, np.ndarray) and value.dtype.kind == "c"
            ):
                raise ValueError(
                    f"a sweep function's results are not complex; it returned {key!r} = "
                    f"{_short(value)}"
                )
    return rows


class Backend(NamedTuple):
    """The backend a sweep uses by default and its number of local processes (0 for Dask)."""

    name: str
    jobs: int


def default_backend(scheduler: str | Any | None = None, n_jobs: int | None = None) -> Backend:
    """The backend and worker count that ``sweep(backend=None)`` would use.

    Parameters
    ----------
    scheduler : str or distributed.Client, optional
        A Dask scheduler address (``tcp://host:port``) or client; default
        ``$FAIRLIB_DASK_SCHEDULER``.
    n_jobs : int, optional
        Local processes, 1 to :data:`MAX_JOBS` or -1 for every core (default
        ``$FAIRLIB_SWEEP_JOBS``, else every core).

    Returns
    -------
    Backend
        ``("dask", 0)`` when a scheduler is configured, else ``("loky", n)`` for n > 1 local
        processes or ``("serial", 1)``.

    Raises
    ------
    InvalidInputError
        When ``scheduler`` is not an address or client, or ``n_jobs`` is out of range.
    """
    _check_scheduler(scheduler)
    if n_jobs is not None:
        _resolve_jobs(n_jobs)
    if scheduler or os.environ.get(_SCHEDULER_ENV):
        return Backend("dask", 0)
    jobs = _resolve_jobs(n_jobs)
    return Backend(("loky" if jobs > 1 else "serial"), jobs)


#: more local processes than any machine has cores is a typo, not a request (loky would try to start
#: them all)
MAX_JOBS = 4096


#: the protocols of a Dask scheduler address (``distributed.comm``'s backends), each with whether
#: its address must give a port: tcp, tls and ucx connect to ``host:port`` (``distributed`` reads
#: no default port); ws and wss are URLs (80 and 443 by default); an inproc address is the
#: in-process scheduler's id, ``inproc://<ip>/<pid>/<n>``, with no port
_PROTOCOLS = {"tcp": True, "tls": True, "ucx": True, "ws": False, "wss": False, "inproc": False}


def _scheduler_address(value: str, name: str) -> str:
    """``value``, a Dask scheduler address ``protocol://host:port`` (``tcp://10.0.0.5:8786``,
    ``tls://[::1]:8786``, ``inproc://10.0.0.5/4242/1``), as given; else an error naming ``name``
    (the argument, option or variable) and the value: an unknown protocol, no host, a port that is
    not a number from 1 to 65535 or is missing where the protocol needs one, or anything after the
    host and port (a typo there would otherwise wait for a connection timeout)."""
    from urllib.parse import urlsplit

    def refuse(why: str) -> InvalidInputError:
        return InvalidInputError(
            f"{name} = {_short(value)}: {why}; expected a Dask scheduler address "
            "protocol://host:port (e.g. tcp://10.0.0.5:8786)"
        )

    if not isinstance(value, str) or not re.fullmatch(r"[!-~]+", value):
        raise refuse("not an address (printable ASCII, no spaces)")
    protocol, sep, _ = value.partition("://")
    if not sep or protocol not in _PROTOCOLS:
        raise refuse(f"no protocol of {sorted(_PROTOCOLS)}")
    try:
        parts = urlsplit(value)
    except ValueError as exc:  # an IPv6 host in brackets that is no IPv6 address
        raise refuse(str(exc)) from None
    netloc = parts.netloc
    if "@" in netloc or parts.query or parts.fragment or "?" in value or "#" in value:
        raise refuse("a user, query or fragment is no part of a scheduler address")
    if protocol == "inproc":
        if not re.fullmatch(r"[^/:]+/[0-9]+/[0-9]+", value[len("inproc://") :]):
            raise refuse("an inproc address is inproc://<ip>/<pid>/<n>")
        return value
    if parts.path:
        raise refuse(f"{parts.path!r} after the host and port")
    # the port follows the last colon, outside an IPv6 address's brackets
    host, colon, port = (netloc, "", "") if netloc.endswith("]") else netloc.rpartition(":")
    if not colon:
        host = netloc
    if not host or not re.fullmatch(r"\[[0-9A-Fa-f:.]+\]|[^:\[\]]+", host):
        raise refuse("no host" if not host else f"host {host!r} is not a name or an address")
    if colon and not (re.fullmatch(r"[0-9]{1,5}", port) and 1 <= int(port) <= 65535):
        raise refuse(f"port {port!r} is not a number from 1 to 65535")
    if not colon and _PROTOCOLS[protocol]:
        raise refuse(f"no port ({protocol}:// connects to host:port)")
    return value


def _check_scheduler(scheduler: object) -> None:
    """None, a Dask scheduler address (:func:`_scheduler_address`), or a ``distributed.Client``
    (anything with ``submit``); and ``FAIRLIB_DASK_SCHEDULER``, when set, an address."""
    if (
        scheduler is not None
        and not isinstance(scheduler, str)
        and not callable(getattr(scheduler, "submit", None))
    ):
        raise InvalidInputError(
            f"scheduler = {_short(scheduler)}: expected a Dask scheduler address (str) or a "
            f"distributed.Client, got {type(scheduler).__name__}"
        )
    if isinstance(scheduler, str):
        _scheduler_address(scheduler, "scheduler")
    env = os.environ.get(_SCHEDULER_ENV)
    if env:
        _scheduler_address(env, _SCHEDULER_ENV)


def _resolve_jobs(n_jobs: object) -> int:
    name = "n_jobs"
    if n_jobs is None:
        env = os.environ.get(_JOBS_ENV)
        if env:
            name = _JOBS_ENV
            try:  # as written: plain ASCII digits, an optional minus, no spaces
                if not re.fullmatch(r"-?[0-9]+", env):
                    raise ValueError(env)
                n_jobs = int(env)
            except ValueError:
                raise InvalidInputError(
                    f"{_JOBS_ENV} = {env!r}: must be an integer from 1 to {MAX_JOBS}, or -1 "
                    "(every core)"
                ) from None
        else:
            n_jobs = os.cpu_count() or 1
    if (
        isinstance(n_jobs, bool)
        or not isinstance(n_jobs, (int, np.integer))
        or n_jobs == 0
        or n_jobs < -1
        or n_jobs > MAX_JOBS
    ):
        raise InvalidInputError(
            f"{name} = {_short(n_jobs)}: must be an integer from 1 to {MAX_JOBS}, or -1 "
            "(every core)"
        )
    return (os.cpu_count() or 1) if n_jobs == -1 else int(n_jobs)


def _execute_serial(fn, fixed, cells):
    for cell in cells:
        yield _run_cell(fn, fixed, cell)


def _execute_loky(fn, fixed, cells, n_jobs, spool=None):
    from joblib import Parallel, delayed, parallel_config

    # Each worker gets cores // n_jobs threads for numba, OpenMP and BLAS even when the parent's
    # environment sets more (run_all.py gives each kernel its share of the cores): oversubscribed
    # numba threads spin-wait, which made small solves 4-6x slower in the workers.
    threads = max(1, (os.cpu_count() or 1) // n_jobs)
    with parallel_config(backend="loky", inner_max_num_threads=threads):
        parallel = Parallel(n_jobs=n_jobs, batch_size="auto", return_as="generator_unordered")
        if spool is None:
            yield from parallel(delayed(_run_cell)(fn, fixed, c) for c in cells)
        else:
            yield from parallel(delayed(_run_cell_spooled)(fn, fixed, c, str(spool)) for c in cells)


def _execute_dask(fn, fixed, cells, scheduler):
    """Cells in chunks on a Dask cluster, yielded as they finish.

    Kept instead of joblib's Dask backend (``parallel_config("dask")``): that backend sends one task
    per joblib batch and re-raises the first worker exception, cancelling the rest — here every
    cell's failure is reported with its traceback while the others finish and are cached, and each
    chunk carries its cells' own seeds, so results do not depend on how the scheduler batches or
    orders them.
    """
    from distributed import Client, as_completed

    address = scheduler or os.environ.get(_SCHEDULER_ENV)
    client = Client(address) if isinstance(address, str) else address
    try:
        workers = max(1, sum(client.nthreads().values()))
        size = max(
            1, len(cells) // (4 * workers)
        )  # a few chunks per worker: batching without idling
        chunks = [cells[i : i + size] for i in range(0, len(cells), size)]
        futures = client.map(
            _run_chunk, [fn] * len(chunks), [fixed] * len(chunks), chunks, pure=False
        )
        for future in as_completed(futures):
            yield from future.result()
    finally:
        if isinstance(address, str):
            client.close()


def sweep(
    fn: Callable[..., Any],
    grid: Mapping[str, Iterable[Any]] | Iterable[Mapping[str, Any]],
    *,
    seeds: int = 1,
    rng: int | np.random.SeedSequence = 0,
    fixed: Mapping[str, Any] | None = None,
    seed_by: Iterable[str] | None = None,
    backend: str | None = None,
    n_jobs: int | None = None,
    scheduler: str | Any | None = None,
    progress: bool = True,
    desc: str | None = None,
    errors: str = "raise",
    cache: bool | None = None,
    cache_name: str | None = None,
) -> pd.DataFrame:
    """Run ``fn(seed=SeedSequence, **point, **fixed)`` for every grid point x ``seeds`` repetitions.

    Parameters
    ----------
    fn : callable
        Called as ``fn(seed=..., **point, **fixed)`` (checked against its signature before any cell
        runs); returns a dict (one row), a list of dicts or a DataFrame, its columns named by
        non-blank text and none of its values complex (else the cell fails); it must be
        importable by the workers.
    grid : dict of str to list, or list of dict
        name -> list of values (the cartesian product), or a list of dicts (explicit points); at
        least one point; a set of values is refused (it has no fixed order); names are non-blank
        text.
    seeds : int, default 1
        Repetitions per point (the ``rep`` column, 0-based); at most :data:`MAX_CELLS` cells in all.
    rng : int or numpy.random.SeedSequence, default 0
        The root seed (an integer >= 0 or a SeedSequence); each cell's seed is :func:`cell_seed`.
    fixed : mapping of str to object, optional
        Constant keyword arguments for ``fn`` (names that are strings, neither ``seed`` nor a grid
        parameter); part of the cache key, not of the seeds or columns.
    seed_by : iterable of str, optional
        The parameters a cell's seed depends on (default: all). Leaving a parameter out gives every
        value of it the same seeds — common random numbers, for paired comparisons (e.g. the same
        random instances under several update orders).
    backend : {"serial", "loky", "dask"}, optional
        Where the cells run; None picks one (:func:`default_backend`, and serial for a single cell).
    n_jobs : int, optional
        Local processes for loky (default every core, or ``FAIRLIB_SWEEP_JOBS``).
    scheduler : str or distributed.Client, optional
        Dask scheduler address or a ``distributed.Client`` (default ``FAIRLIB_DASK_SCHEDULER``).
    progress : bool, default True
        Show a progress bar of finished cells.
    desc : str, optional
        The progress bar's label.
    errors : {"raise", "keep"}, default "raise"
        ``"raise"``: :class:`SweepError` after every cell has run; ``"keep"``: return the finished
        rows, the failures in ``attrs["failures"]``, with a warning naming them.
    cache : bool, optional
        A resumable per-cell cache under ``build/sweep-cache/<cache_name>`` (default: on when
        ``FAIRLIB_SWEEP_CACHE=1``).
    cache_name : str, optional
        The cache's folder name (letters, digits, ``_``, ``-``, at most
        :data:`fairlib.paths.MAX_FILE_NAME_LENGTH` characters; default ``fn``'s qualified name).

    Returns
    -------
    pandas.DataFrame
        The grid's parameters, ``rep`` and ``fn``'s fields, in grid order x rep (never in completion
        order); ``attrs["sweep"]`` records the backend, workers, cells, cells run and seconds.

    Raises
    ------
    InvalidInputError
        When an argument has the wrong type or value, naming it.
    SweepError
        When a cell failed and ``errors="raise"``.
    """
    if not callable(fn):
        raise InvalidInputError(f"fn = {fn!r}: must be callable")
    seeds = as_count(seeds, "seeds")
    check_choice(errors, ("raise", "keep"), "errors")
    if backend is not None:
        check_choice(backend, BACKENDS, "backend")
    if fixed is not None and not isinstance(fixed, Mapping):
        raise InvalidInputError(
            f"fixed = {_short(fixed)}: expected a dict of keyword arguments for fn"
        )
    fixed = dict(fixed or {})
    for key in fixed:
        if not isinstance(key, str):
            raise InvalidInputError(
                f"fixed: key {key!r} is not a string (fixed holds keyword arguments for fn)"
            )
        as_label(key, "fixed: key")
        if key == "seed":
            raise InvalidInputError(
                "fixed: 'seed' is reserved by the sweep (it passes each cell its own seed)"
            )
    if seed_by is not None:
        # read once (a generator checked here would reach the cells empty: common random numbers
        # for every cell); its order does not matter, the seeds hash the parameters' sorted JSON
        seed_by = as_labels(seed_by, "seed_by", ordered=False)
    if n_jobs is not None:
        _resolve_jobs(n_jobs)
    _check_scheduler(scheduler)
    if cache is not None and not isinstance(cache, (bool, np.bool_)):
        raise InvalidInputError(
            f"cache = {_short(cache)}: expected True, False or None (FAIRLIB_SWEEP_CACHE)"
        )
    if cache_name is not None:
        from .paths import _check_file_name

        _check_file_name(cache_name, "cache_name")
    if not isinstance(progress, (bool, np.bool_)):
        raise InvalidInputError(f"progress = {_short(progress)}: expected True or False")
    root = _root_sequence(rng)
    points = _grid_points(grid)
    if len(points) * seeds > MAX_CELLS:
        raise InvalidInputError(
            f"seeds = {seeds}: {len(points):,} grid points x {seeds:,} seeds are more than "
            f"MAX_CELLS = {MAX_CELLS:,} cells"
        )
    clash = set(fixed) & (set().union(*points) if points else set())
    if clash:
        raise InvalidInputError(f"fixed: {sorted(clash)} also vary in the grid")
    _check_signature(fn, points, fixed)
    cells = _make_cells(points, seeds, root, seed_by)
    backend, jobs = _choose_backend(backend, scheduler, n_jobs, len(cells))

    # 1. what the cache already holds (resumable sweeps); 2. run the rest; 3. one table in grid
    # order
    paths = _cache_paths(fn, fixed, root, cells, cache_name) if _cache_enabled(cache) else None
    rows_of = _read_cache(cells, paths) if paths is not None else {}
    todo = [c for c in cells if c.index not in rows_of]
    started = time.perf_counter()
    failures = _run_cells(
        fn, fixed, cells, todo, rows_of, paths, backend, jobs, scheduler, progress, desc
    )
    by_index = {c.index: c for c in cells}
    table = pd.DataFrame(
        [
            {**by_index[i].params, "rep": by_index[i].rep, **row}
            for i in sorted(rows_of)
            for row in rows_of[i]
        ]
    )
    table.attrs["sweep"] = {
        "backend": backend,
        "n_jobs": jobs,
        "cells": len(cells),
        "ran": len(todo),
        "seconds": time.perf_counter() - started,
    }
    if failures:
        _report_failures(fn, table, by_index, failures, len(cells), len(rows_of), errors)
    return table


def _check_signature(
    fn: Callable[..., Any], points: list[dict[str, Any]], fixed: Mapping[str, Any]
) -> None:
    """Here, before any worker starts: ``fn`` takes ``seed``, every grid point's parameters and
    ``fixed`` as keyword arguments (a mismatch would fail every cell, in the workers). A callable
    whose signature Python cannot read is not checked."""
    import inspect

    try:
        signature = inspect.signature(fn, follow_wrapped=False)  # what the call itself accepts
    except (TypeError, ValueError):
        return
    name = getattr(fn, "__qualname__", None) or type(fn).__name__
    seen = set()
    for i, point in enumerate(points):
        names = tuple(point)
        if names in seen:
            continue
        seen.add(names)
        try:
            signature.bind(seed=None, **point, **fixed)
        except TypeError as exc:
            where = f"grid point {i} ({', '.join(names)})" if names else "an empty grid point"
            raise InvalidInputError(
                f"fn = {name}{signature}: cannot be called as fn(seed=..., **point, **fixed) with "
                f"{where}{' and fixed ' + str(sorted(fixed)) if fixed else ''}: {exc}"
            ) from None


def _make_cells(
    points: list[dict], seeds: int, root: np.random.SeedSequence, seed_by: Iterable[str] | None
) -> list[_Cell]:
    """Every (grid point, repetition) with its seed, derived from the root and the parameters in
    ``seed_by``."""
    names = set().union(*points) if points else set()
    if seed_by is not None:
        seed_by = list(seed_by)
        unknown = [k for k in seed_by if k not in names]
        if unknown:
            raise InvalidInputError(f"seed_by: {unknown} are not grid parameters ({sorted(names)})")

    def seed_params(p):
        return p if seed_by is None else {k: p[k] for k in seed_by if k in p}

    return [
        _Cell(i * seeds + r, p, r, cell_seed(root, seed_params(p), r))
        for i, p in enumerate(points)
        for r in range(seeds)
    ]


def _choose_backend(
    backend: str | None, scheduler: object, n_jobs: int | None, n_cells: int
) -> tuple[str, int]:
    """The backend and its local processes: the default (Dask when a scheduler is set, else loky on
    every core) falls back to serial for a single cell; an explicit backend is kept."""
    if backend is None:
        backend, jobs = default_backend(scheduler, n_jobs)
        if backend == "loky" and n_cells < 2:
            backend = "serial"
        return backend, jobs
    return backend, _resolve_jobs(n_jobs) if backend == "loky" else 1


def _cache_paths(
    fn: Callable[..., Any],
    fixed: Mapping[str, Any],
    root: np.random.SeedSequence,
    cells: list[_Cell],
    cache_name: str | None,
) -> dict[int, Path]:
    """Per cell, its cache file: keyed on the function's code, the fixed arguments, the root seed
    and the cell."""
    folder = _cache_dir(
        cache_name or getattr(fn, "__qualname__", "sweep").replace("<", "").replace(">", "")
    )
    folder.mkdir(parents=True, exist_ok=True)
    fingerprint, fixed_key = _function_fingerprint(fn), _canonical(fixed)
    return {c.index: folder / f"{_cache_key(fingerprint, fixed_key, root, c)}.pkl" for c in cells}


def _read_cache(cells: list[_Cell], paths: dict[int, Path]) -> dict[int, list[dict]]:
    """The rows of every cell found in the cache; a half-written or stale entry is recomputed, never
    trusted."""
    rows_of = {}
    for c in cells:
        if paths[c.index].exists():
            try:
                with open(paths[c.index], "rb") as f:
                    rows = pickle.load(f)
                if not (isinstance(rows, list) and all(isinstance(r, dict) for r in rows)):
                    raise TypeError(
                        f"holds a {type(rows).__name__}, not a cell's rows (a list of dicts)"
                    )
                rows_of[c.index] = rows
            except Exception as exc:  # noqa: BLE001
                # any unreadable or foreign file: recompute, never trust
                warnings.warn(
                    f"sweep cache: {paths[c.index]} is unreadable ({type(exc).__name__}: {exc}); "
                    "recomputing that cell",
                    RuntimeWarning,
                    stacklevel=3,
                )
                paths[c.index].unlink(missing_ok=True)
    return rows_of


def _run_cells(
    fn: Callable[..., Any],
    fixed: Mapping[str, Any],
    cells: list[_Cell],
    todo: list[_Cell],
    rows_of: dict[int, list[dict]],
    paths: dict[int, Path] | None,
    backend: str,
    jobs: int,
    scheduler: object,
    progress: bool,
    desc: str | None,
) -> dict:
    """Run ``todo`` on the backend, filling ``rows_of`` (and the cache) as cells finish, with a
    progress bar; a broken worker pool keeps what finished and names what did not. Returns failures:
    index -> (error, traceback).
    """
    from tqdm import tqdm

    import shutil
    import tempfile

    failures: dict[int, tuple[str, str]] = {}
    spool = None
    if backend == "serial":
        stream = _execute_serial(fn, fixed, todo)
    elif backend == "loky":
        spool = Path(tempfile.mkdtemp(prefix="fairlib-sweep-spool-"))
        stream = _execute_loky(fn, fixed, todo, jobs, spool)
    else:
        stream = _execute_dask(fn, fixed, todo, scheduler)
    bar = tqdm(
        total=len(cells),
        initial=len(cells) - len(todo),
        disable=not progress,
        leave=False,
        desc=desc or getattr(fn, "__name__", "sweep"),
    )

    def record(index, rows, failure):
        if failure is not None:
            failures[index] = failure
        else:
            rows_of[index] = rows
            if paths is not None:
                _write_atomic(paths[index], rows)
        bar.update(1)

    try:
        for index, rows, failure in stream:
            record(index, rows, failure)
    except (ValueError, TypeError):
        raise
    except Exception as exc:  # noqa: BLE001
        # a broken worker pool: keep what finished, name what did not
        lost = f"{type(exc).__name__}: {exc} (the workers stopped; this cell did not finish)"
        for c in todo:
            if c.index not in rows_of and c.index not in failures:
                spooled = _read_spool(spool, c.index)
                if spooled is not None:  # finished in a worker whose batch never came back
                    record(*spooled)
                else:
                    failures[c.index] = (lost, traceback.format_exc())
    finally:
        bar.close()
        if hasattr(stream, "close"):
            stream.close()
        if spool is not None:
            shutil.rmtree(spool, ignore_errors=True)
    return failures


def _report_failures(
    fn: Callable[..., Any],
    table: pd.DataFrame,
    by_index: dict[int, _Cell],
    failures: dict[int, tuple[str, str]],
    n_cells: int,
    n_finished: int,
    errors: str,
) -> None:
    """Raise :class:`SweepError` naming the failed cells (``errors="raise"``), or warn and attach
    them to ``table.attrs["failures"]``."""
    failed = pd.DataFrame(
        [
            {
                **by_index[i].params,
                "rep": by_index[i].rep,
                "error": failures[i][0],
                "traceback": failures[i][1],
            }
            for i in sorted(failures)
        ]
    )
    lines = [
        f"  {_canonical(by_index[i].params)} rep {by_index[i].rep}: {failures[i][0]}"
        for i in sorted(failures)[:10]
    ]
    more = f"\n  ... and {len(failures) - 10} more" if len(failures) > 10 else ""
    message = (
        f"sweep({getattr(fn, '__name__', fn)!s}): {len(failures)} of {n_cells} cells failed "
        f"(the other {n_finished} finished):\n" + "\n".join(lines) + more
    )
    if errors == "raise":
        raise SweepError(message, table, failed)
    warnings.warn(message, RuntimeWarning, stacklevel=3)
    table.attrs["failures"] = failed
