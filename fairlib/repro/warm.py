"""Compile every numba kernel of fairlib once, into the keyed cache: ``python -m
fairlib.repro.warm``.

``make install`` (so ``make`` and ``make test``) runs it with ``--jobs 2`` (two compiling
processes), and so can a Dask worker before its first task: the first call a reader makes in a
notebook then loads compiled code instead of compiling it. Each step calls a public entry point on a
tiny instance with the argument types real instances have (float64 / int64, C order), so the cached
specialisations are the ones later calls use. :func:`uncompiled_kernels` lists any kernel no step
reached; the test suite checks it is empty.
"""

from __future__ import annotations

import importlib
import multiprocessing
import os
import pkgutil
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .._validate import (
    InvalidInputError,
    as_argv,
    as_flag,
    command_parser,
    as_instance,
    as_labels,
    cli_integer,
)

if TYPE_CHECKING:
    from ..games import GameMechanism
    from ..multires import Cluster

__all__ = ["warm_steps", "warm", "uncompiled_kernels", "check_game_is_warmed_up", "main"]


def warm_steps() -> list[tuple[str, Callable[[], object]]]:
    """(name, call) for every entry point whose first call compiles kernels.

    Returns
    -------
    list of (str, callable)
        Each step's name and a call of no arguments that runs its entry points on small instances.
    """
    from ..dynamic import dynamic_drf
    from .experiments.dynamic_drf import per_step_times
    from ..market import Game, best_response, best_response_finite, run_dynamics
    from ..multires import (
        Cluster,
        Quotas,
        asset_fairness,
        ceei,
        drf,
        drf_machine_offers,
        drfh,
        drfh_best_fit,
        edrf,
        hierarchical_drf,
        pdrf,
        pfvds,
        psdsf,
        random_cluster,
        tsf,
    )
    from ..multires._engine.maxmin_interior import compile_refinement_kernels

    rng = np.random.default_rng(0)
    int_pool = ([[1, 4], [3, 1], [2, 2]], [9, 18])
    float_pool = Cluster.single_pool([10.0, 10.0, 10.0], rng.uniform(0.1, 1.0, (6, 3)))
    zero_demands = ([[1.0, 0.0], [1.0, 0.0], [0.0, 2.0]], [1.0, 3.0])
    cluster = random_cluster(rng, 8, 3, 3, weights=True)
    weights = rng.uniform(0.0, 1.0, (6, 4))
    demands = rng.uniform(0.01, 1.0, (12, 3))

    def parallel_kernels() -> None:
        drfh(cluster)
        tsf(cluster)
        psdsf(cluster)
        psdsf(cluster, time_shared=True)
        compile_refinement_kernels()
        pfvds(cluster, 1.0)
        pfvds(cluster, 2.0)

    return [
        # a start with and without tasks under YARN's ties repeats secondary keys: the starting
        # order's own sort
        (
            "drf (exact shares)",
            lambda: (
                drf(*int_pool, record_order=True),
                drf(*int_pool, tie_break="lexicographic", start=[1, 0, 0]),
            ),
        ),
        (
            "drf (float, accumulated)",
            lambda: (drf(float_pool), drf(*zero_demands, share_arithmetic="accumulated")),
        ),
        (
            "hierarchical drf (H-DRF, naive), quotas",
            lambda: [
                hierarchical_drf(*int_pool, ["a", "b/c", "b/d"], variant=v, quotas=q)
                for v in ("hdrf", "naive")
                for q in (None, Quotas.mesos(guarantee=[[2, 4], [0, 0], [0, 0]]))
            ],
        ),
        (
            "edrf, pdrf",
            lambda: (edrf(*zero_demands), edrf(float_pool), pdrf(*int_pool, top_up=True)),
        ),
        ("asset fairness, CEEI", lambda: (asset_fairness(float_pool), ceei(float_pool))),
        # the interior point refines its corrector only near convergence (merit below 1e-6): a
        # problem that gets there before converging compiles the refinement's kernel too (drfh on
        # the 8 x 3 x 3 cluster does not)
        (
            "drfh",
            lambda: (
                drfh(cluster),
                drfh(random_cluster(np.random.default_rng(1), 12, 4, 2, weights=True)),
            ),
        ),
        ("tsf", lambda: tsf(cluster)),
        (
            "drfh (best fit), drf (machine offers)",
            lambda: (drfh_best_fit(cluster, quantum=0.5), drf_machine_offers(cluster)),
        ),
        ("psdsf (market)", lambda: (psdsf(cluster), psdsf(cluster, time_shared=True))),
        (
            "drfh, tsf, psdsf, pfvds: parallel kernels (problems from 20,000 pairs)",
            lambda: _parallel(parallel_kernels),
        ),
        ("psdsf (fixed point)", lambda: psdsf(cluster, method="fixed_point")),
        ("pfvds (interior point)", lambda: (pfvds(cluster, 1.0), pfvds(cluster, 2.0))),
        (
            "pfvds (best responses)",
            lambda: (pfvds(cluster, 2.0, method="best_response"), _price_hand_over()),
        ),
        (
            "pfvds (distributed)",
            lambda: pfvds(cluster, 1.0, method="distributed", options={"iterations": 50}),
        ),
        (
            "bidding game: best response",
            lambda: (
                best_response(weights[0], np.ones(4), 1.0),
                best_response_finite(weights[0], np.ones(4), 1.0, 2),
            ),
        ),
        (
            "bidding game: dynamics",
            lambda: [
                run_dynamics(
                    Game(weights, parallelism=k, reserve=1e-6),
                    method,
                    order=order,
                    rng=0 if order == "random" else None,
                )
                for k, method in (
                    (None, "best_response"),
                    (2, "best_response"),
                    (None, "local_greedy"),
                )
                for order in ("sequential", "random", "simultaneous")
            ],
        ),
        (
            "dynamic DRF",
            lambda: (
                [dynamic_drf(demands, method=m).shares(5) for m in ("linear", "waterfill")]
                + [dynamic_drf(demands, sums="rescan")]
            ),
        ),
        (
            "dynamic DRF: per-step kernels",
            lambda: per_step_times(
                [8], rng=0, methods=("linear", "linear_rescan"), repeat=1, block=4
            ),
        ),
        # mechanisms registered since (fairlib.mechanisms, FAIRLIB_MECHANISMS): every run on a small
        # instance
        (
            "other registered mechanisms",
            lambda: _other_registered(
                {
                    asset_fairness,
                    ceei,
                    drf,
                    drf_machine_offers,
                    drfh,
                    drfh_best_fit,
                    edrf,
                    pdrf,
                    pfvds,
                    psdsf,
                    tsf,
                },
                float_pool,
                cluster,
            ),
        ),
        # every registered game (fairlib.games, FAIRLIB_GAMES), the built-in ones included: the
        # certificate's kernels are reached through them
        ("registered games", lambda: _registered_games(weights)),
    ]


def _other_registered(warmed: set, pool: Cluster, cluster: Cluster) -> list:
    """Every run of the registered mechanisms whose function no step above calls, on ``pool`` or
    ``cluster``."""
    from .. import mechanisms

    out = []
    for name in mechanisms.names():
        mech = mechanisms.get(name)
        if mech.function not in warmed:
            out += [
                run(pool if "pooled" in mech.capabilities else cluster)
                for run in mech.runs().values()
            ]
    return out


def _registered_games(weights: np.ndarray) -> list:
    """Every registered game on a small game with the weights ``weights`` (a reserve where it plays
    the perturbed game), and with finite parallelism where it has that capability."""
    from .. import games
    from ..market import Game

    out = []
    for name in games.names():
        game = games.get(name)
        reserve = 1e-6 if "reserve" in game.capabilities else 0.0
        out.append(
            game(game.example(weights, reserve=reserve))
        )  # a Game, or the model's own instance type
        if "parallelism" in game.capabilities:
            out.append(game(Game(weights, parallelism=2, reserve=reserve)))
    return out


def check_game_is_warmed_up(entry: GameMechanism) -> None:
    """``python -m fairlib.repro.warm`` calls the registered game ``entry`` (its kernels are then in
    the keyed cache): raises ``AssertionError`` if not. The game is re-registered around a spy for
    the check and restored after it (``tests/test_game_registry.py`` runs it on every registered
    game).

    Parameters
    ----------
    entry : GameMechanism
        A registered game (:func:`fairlib.games.get`).

    Raises
    ------
    InvalidInputError
        When ``entry`` is not a registered game's entry.
    AssertionError
        When no warm-up step calls the game.

    Examples
    --------
    >>> from fairlib import games
    >>> check_game_is_warmed_up(games.get(games.names()[0]))
    """
    from .. import games

    as_instance(entry, games.GameMechanism, "entry")
    calls = []

    def spy(game, **options):
        calls.append(game)
        return entry.function(game, **options)

    spy.__doc__ = entry.function.__doc__
    games.register_game(
        entry.name,
        spy,
        label=entry.label,
        color=entry.color,
        capabilities=entry.capabilities,
        options=entry.options,
        tol=entry.tol,
        replace=True,
        instance=entry.instance,
    )
    try:
        _registered_games(np.random.default_rng(0).uniform(0.0, 1.0, (6, 4)))
    finally:
        games.register_game(
            entry.name,
            entry.function,
            label=entry.label,
            color=entry.color,
            capabilities=entry.capabilities,
            options=entry.options,
            tol=entry.tol,
            replace=True,
            instance=entry.instance,
        )
    assert calls, f"the warm-up does not call {entry.name}"
    assert "registered games" in dict(warm_steps())


def _parallel(call):
    """``call`` with every problem split over numba's threads (nothing to compile when there is one
    thread)."""
    import numba

    from ..multires._engine.pair_kernels import parallel_from

    if numba.get_num_threads() > 1:
        with parallel_from(0):
            call()


#: compiling processes at most: each is a Python process with numba loaded (hundreds of MB), and
#: there are a few dozen steps to share, so more is a typo, not a request (it would start them all
#: before the first step ends)
MAX_JOBS = 64


def warm(progress: bool = True, jobs: int = 1, only: list[str] | None = None) -> dict[str, float]:
    """Run every :func:`warm_steps` step once (``only``: those named); returns seconds per step
    (compiling, or loading from the cache).

    ``jobs`` > 1 first runs the steps in that many worker processes (spawned, taking the next step
    as each finishes), which compile into the same keyed cache; numba compiles on one core per
    process, so two cores take about half the time. Then every step runs again in this process,
    loading what the workers compiled: kernels shared by steps in two workers are compiled by both
    (numba writes its cache files atomically), and an index entry lost to two workers saving the
    same kernel's signatures at once is compiled again here, so the result is the same as with one
    process. The workers are spawned, so they import the calling script again: a script calling
    ``warm(jobs=...)`` keeps its top level under ``if __name__ == "__main__":`` (or runs ``python -m
    fairlib.repro.warm --jobs N`` instead).

    Parameters
    ----------
    progress : bool, default True
        Show a progress bar.
    jobs : int, default 1
        Worker processes compiling at once, >= 1.
    only : list of str, optional
        The names of the steps to run, each once (default: every step; empty: none).

    Returns
    -------
    dict of str to float
        Seconds per step, in the steps' order (the workers' time and this process's, with ``jobs`` >
        1).

    Raises
    ------
    ValueError
        When ``only`` is not a list of distinct step names or ``jobs`` is not an integer from 1
        to :data:`MAX_JOBS`.
    RuntimeError
        When a worker process ended before finishing its step.
    """
    progress = as_flag(progress, "progress")
    from tqdm import tqdm

    steps = warm_steps()
    if only is not None:
        known = [name for name, _ in steps]
        for name in as_labels(only, "only"):
            if name not in known:
                raise InvalidInputError(
                    f"only: no warm-up step named {name!r}; the steps are {known}"
                )
        steps = [(name, call) for name, call in steps if name in only]
    if not isinstance(jobs, int) or isinstance(jobs, bool) or not 1 <= jobs <= MAX_JOBS:
        raise InvalidInputError(f"jobs = {jobs!r}: must be an integer from 1 to {MAX_JOBS}")
    times = {}
    if jobs > 1:
        context = multiprocessing.get_context(
            "spawn"
        )  # not fork: numba's threads and compiler state
        with (
            ProcessPoolExecutor(jobs, mp_context=context) as pool,
            tqdm(
                total=len(steps),
                desc=f"compiling fairlib's kernels ({jobs} processes)",
                disable=not progress,
                unit="step",
            ) as bar,
        ):
            futures = {pool.submit(_run_step, name): name for name, _ in steps}
            for future in as_completed(futures):
                try:
                    times[futures[future]] = future.result()
                except (
                    BaseException
                ) as error:  # a failed step fails the warm-up now, not after the queued ones
                    pool.shutdown(cancel_futures=True)
                    if isinstance(error, BrokenProcessPool):
                        raise RuntimeError(
                            f"warm(jobs={jobs}): a worker process ended before finishing "
                            f"step {futures[future]!r} "
                            "(its own error is printed above). A common cause: the workers "
                            "are spawned and import the calling script again, so a script "
                            "calling warm(jobs > 1) must keep its top level under 'if "
                            "__name__ == \"__main__\":' (or run 'python -m "
                            "fairlib.repro.warm --jobs N')"
                        ) from error
                    raise
                bar.set_postfix_str(futures[future])
                bar.update()
    desc = "loading fairlib's kernels" if jobs > 1 else "compiling fairlib's kernels"
    with tqdm(steps, desc=desc, disable=not progress, unit="step") as bar:
        for name, call in bar:
            bar.set_postfix_str(name)
            times[name] = times.get(name, 0.0) + _timed(call)
    return {name: times[name] for name, _ in steps}


def _timed(call: Callable[[], object]) -> float:
    """Seconds to run one warm-up step's call, its kernels compiled (the steps' instances are small:
    they would run interpreted, see :mod:`fairlib._jit`)."""
    from .._jit import compiled

    t0 = time.perf_counter()
    with compiled():
        call()
    return time.perf_counter() - t0


def _run_step(name: str) -> float:
    """Seconds to run the warm-up step ``name`` in this process (a worker of :func:`warm`)."""
    return _timed(dict(warm_steps())[name])


def _price_hand_over() -> bool:
    """Compile the log-price Newton's price hand-over, which the steered best response (run as
    Python) calls as a kernel only where prices are not unique — a path no warm-up instance takes:
    one user on two resources, both priced."""
    import numpy as np

    from fairlib.multires.pfvds._best_response import _handed_over_price

    theta = np.log(np.array([0.2, 0.04]))
    return bool(
        _handed_over_price(
            0, theta, np.ones(2, dtype=np.bool_), np.array([[1.2, 2.5]]), np.ones(1), theta.copy()
        )
    )


def uncompiled_kernels() -> list[str]:
    """Every numba kernel of fairlib (module.function) with no entry in the on-disk cache —
    neither compiled by this process nor found there (a kernel only called from other kernels is
    cached too: its own index file).

    Returns
    -------
    list of str
        The kernels missing from the cache, as ``module.function``; kernels compiled only inside
        their callers and parallel chains unused with one thread are not counted.
    """
    import numba
    from numba.core.registry import CPUDispatcher

    import fairlib
    from fairlib._jit import STEERED_CALLS
    from fairlib.multires._engine import pair_kernels

    def cached(kernel):  # numba's cache layout: one index file per kernel
        return kernel.signatures or os.path.exists(kernel._cache._cache_file._index_path)

    def inlined(
        kernel,
    ):  # compiled only inside its callers (unless a steered driver calls it): no cache entry
        return kernel.targetoptions.get("inline") == "always" and kernel not in STEERED_CALLS

    missing = []
    for info in pkgutil.walk_packages(fairlib.__path__, "fairlib."):
        if info.name.endswith(".warm"):
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if (
                isinstance(value, CPUDispatcher)
                and value.__module__ == info.name
                and not inlined(value)
            ):
                # with one numba thread every problem is one chunk: the parallel chains are never
                # used
                unused = numba.get_num_threads() == 1 and value in pair_kernels.PARALLEL_CHAINS
                if not cached(value) and not unused:
                    missing.append(f"{info.name}.{name}")
    missing += [
        f"{twin.py_func.__module__}.{twin.py_func.__qualname__}"
        for twin in pair_kernels.TWINS
        if not cached(twin) and not inlined(twin)
    ]
    return missing


def main(argv: list[str] | None = None) -> int:
    """Command line: compile (or load) every kernel, print the time per step; exit 1 if a kernel was
    missed.

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default ``sys.argv[1:]``): ``--quiet`` (no progress bar), ``--jobs N``
        (worker processes).

    Returns
    -------
    int
        The exit status: 0 when every kernel is in the cache, 1 when a kernel was missed.

    Raises
    ------
    InvalidInputError
        When ``argv`` is not a list of str (an unknown option or a ``--jobs`` out of range ends the
        process as argparse does, with status 2 and a message naming it).
    """
    ap = command_parser(
        prog="python -m fairlib.repro.warm", description=" ".join(__doc__.split("\n\n")[0].split())
    )
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    ap.add_argument(
        "--jobs",
        type=cli_integer,
        default=1,
        help="worker processes compiling at once (default 1; make install uses 2)",
    )
    args = ap.parse_args(as_argv(argv))
    if not 1 <= args.jobs <= MAX_JOBS:
        ap.error(f"--jobs = {args.jobs}: must be from 1 to {MAX_JOBS}")
    from numba.core import config

    import fairlib  # noqa: F401 - sets the keyed cache directory before numba compiles anything

    import shutil

    from .._kernel_cache import stale_folders

    from ..paths import ROOT

    if Path(fairlib.KERNEL_CACHE_DIR) == ROOT / "build" / "numba-cache":
        # this checkout's own cache (not a directory the user shares): folders of sources edited
        # since are never read
        for folder in stale_folders(fairlib.KERNEL_CACHE_DIR):
            shutil.rmtree(folder, ignore_errors=True)
    t0 = time.perf_counter()
    times = warm(progress=not args.quiet, jobs=args.jobs)
    total = time.perf_counter() - t0
    print(
        f"fairlib kernels ready in {getattr(config, 'CACHE_DIR')}: {total:.1f} s "
        f"({', '.join(f'{k} {v:.1f} s' for k, v in times.items())})"
    )
    missing = uncompiled_kernels()
    if missing:
        print(f"kernels no warm-up step compiled: {missing}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
