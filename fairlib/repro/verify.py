"""Compare results by content, within stated tolerances: what "reproducible on another machine"
means here.

Same seed, same mode, same machine gives byte-identical tables (``tests/test_report.py``). Another
CPU gives results that differ in the last bits of a float (vectorised math and BLAS kernels differ
by architecture), so across machines the promise is *equal within a tolerance*, and that is what
this module checks:

- :func:`compare_text` — two delimited text files (CSV, the traces' ``;``-separated files) record
  by record: integers and strings exactly, floats to a relative tolerance. Used for the regenerated
  trace fixtures.
- :func:`compare_table` — a committed result table against a fresh one: same columns and rows,
  numbers equal within ``rtol`` (relative) or ``atol`` (absolute, for values that are zero up to
  rounding), some columns excluded by name (wall-clock timings, see :data:`TIMING_COLUMNS`).
- :func:`compare_claims` — every claim's status unchanged.
- :func:`verify_results` — all of a notebook's tables and claims; what ``python run_all.py
  --verify`` prints.

Quantities that can legitimately change on an ulp (a chaotic iteration's trace, a discrete count
decided by a near-tie) are declared in :data:`SENSITIVE` with the reason; they are reported, never
silently skipped.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import pandas as pd

from .._validate import (
    MAX_INTEGER_DIGITS,
    InvalidInputError,
    as_flag,
    as_instance,
    as_labels,
    as_path,
    as_tolerance,
    result_type,
    as_text,
)
from ..tolerances import DEFAULT_ATOL, DEFAULT_RTOL

__all__ = [
    "DEFAULT_RTOL",
    "DEFAULT_ATOL",
    "ANOTHER_CPU",
    "Tolerance",
    "TOLERANCES",
    "TIMING_COLUMNS",
    "SENSITIVE",
    "declared_tolerance",
    "Difference",
    "TableReport",
    "ClaimChange",
    "VerifyReport",
    "compare_values",
    "compare_text",
    "compare_table",
    "claim_changes",
    "compare_claims",
    "verify_results",
]

# default tolerances of ``run_all.py --verify`` (DEFAULT_RTOL, DEFAULT_ATOL, re-exported here): the
# library's (:mod:`fairlib.tolerances`), which its own checks of interpreted against compiled
# kernels use too

#: "another CPU" on this machine: numba's kernels compiled for a generic x86-64 (no AVX, other
#: vectorisation), OpenBLAS on an old core's kernels and one thread everywhere (sums in another
#: order). ``run_all.py --verify`` under these variables, and the quick-mode test that runs every
#: notebook natively and under them, check that the results belong to the method, not the machine.
ANOTHER_CPU = {
    "NUMBA_CPU_NAME": "generic",
    "OPENBLAS_CORETYPE": "Sandybridge",
    "NUMBA_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
}


@result_type
class Tolerance(NamedTuple):
    """How far a column's numbers may move between two runs on different CPUs: equal when |a - b| <=
    rtol·max(|a|, |b|) or <= atol; ``reason`` names the certificate that bounds the move (a
    solver's stopping rule, a duality gap, a Nash residual) or why only rounding moves it.
    ``digits``: the significant digits the tables report the column with
    (:func:`fairlib.repro.outputs.save_table`), the ones the certificate guarantees: 10 (the CSV
    format's) for closed-form arithmetic, fewer for an iterative solver's output, never so few that
    a rounding step alone exceeds ``rtol`` (a test). ``inputs``: columns under the declaration that
    echo the instance or the trace (a job's arrival, its work) rather than a solver's output,
    reported with the format's digits; so is a column of whole numbers (a time stamp, a count).

    Parameters
    ----------
    rtol : float
        Relative tolerance.
    atol : float
        Absolute tolerance.
    reason : str
        The certificate that bounds the move, or why only rounding moves it.
    digits : int, default 10
        Significant digits the tables report the column with.
    inputs : tuple of str, default ()
        Columns under the declaration that echo the instance or the trace.
    """

    rtol: float
    atol: float
    reason: str
    digits: int = 10
    inputs: tuple[str, ...] = ()


#: per-table tolerances of ``run_all.py --verify``, declared from what bounds each value's move
#: between CPUs: ``{key: {table or "*": {column or "*": Tolerance}}}`` (table "*": every table of
#: the notebook not declared itself). A column declared nowhere is compared with DEFAULT_RTOL and
#: DEFAULT_ATOL (``--rtol``/``--atol``).
_ROUNDING = (
    "closed-form arithmetic only (progressive filling, water-filling, sorting, counting): "
    "the order of float sums moves the last bits (~1e-12), and the tables keep 10 "
    "significant digits, so a last-bit change can show as 1e-9 relative; 1e-8 leaves a "
    "factor 10"
)
_HIGHS = (
    "LPs solved by HiGHS at its primal and dual feasibility tolerance 1e-7: their solutions "
    "move by up to ~1e-7 relative; 1e-6 leaves a factor 10"
)
TOLERANCES: dict[str, dict[str, dict[str, Tolerance]]] = {
    "feldman2005": {
        "*": {
            "*": Tolerance(
                1e-5,
                1e-9,
                (
                    "bidding-game equilibria reached by best response to a relative Nash "
                    "residual of 1e-6 (the loop's stopping test) or 1e-12, and the dynamics' "
                    "iterates from them: utilities, prices and efficiency move by up to "
                    "~1e-6 with the round the loop stops in (1e-5 leaves a factor 10); "
                    "closed-form bounds otherwise"
                ),
                6,
            )
        }
    },
    "li2019": {
        "*": {
            "*": Tolerance(
                1e-8, 1e-12, _ROUNDING + " (Algorithm 1, the static DRF levels, the ratios' minima)"
            )
        },
        "google_random_orders": {
            "*": Tolerance(1e-6, 1e-9, "the cautious mechanism's allocations: " + _HIGHS, 7)
        },
        "methods_agree_and_properties": {
            "*": Tolerance(
                1e-6,
                1e-9,
                (
                    "Algorithm 1 against the LP of the same step: "
                    + _HIGHS
                    + "; the differences themselves sit at "
                    "~1e-16 and compare absolutely"
                ),
                7,
            )
        },
        "line6_as_printed": {
            "*": Tolerance(1e-6, 1e-9, "the printed line 6 against the LP's shares: " + _HIGHS, 7)
        },
    },
    "metin2025": {
        "*": {
            "*": Tolerance(
                1e-8,
                1e-12,
                _ROUNDING + " (PDRF's precomputed shares, DRF's progressive "
                "filling, over-allocation counts over the runs)",
            )
        }
    },
    "schedulers": {
        "*": {
            "*": Tolerance(
                1e-8,
                1e-12,
                _ROUNDING + " (DRF with its tie, quota and hierarchy rules, whole tasks)",
            )
        },
        "machine_allocations": {
            "*": Tolerance(
                1e-7,
                1e-9,
                (
                    "DRFH and TSF from the max-min interior point (each round to a relative gap of "
                    "1e-10) and PS-DSF from the "
                    "per-server fixed point (stopped when no x moves by 1e-12 of the largest "
                    "total, within ~2e-10 of its "
                    "limit): tasks and utilisation move by ~1e-8 at most"
                ),
                8,
            )
        },
    },
    "khamseashari2018": {
        "definition4_route": {
            "market_to_fixed_point": Tolerance(
                1e-5,
                1e-7,
                (
                    "the distance between PS-DSF's market and fixed-point allocations (over "
                    "the largest total), each within ~1e-10 to 1e-8 of its own limit: below "
                    "1e-7 it is noise; the 'several' rule counts distances above 1e-6, a "
                    "factor 10 above"
                ),
                6,
            ),
            **{
                col: Tolerance(
                    1e-5,
                    1e-5,
                    (
                        "the distance from PF-VDS's allocation to a PS-DSF allocation (over the "
                        "largest total): PF-VDS counts "
                        "as an equilibrium at a Nash residual of up to 1e-6 of the largest total, "
                        "so the distance moves by up "
                        "to ~1e-6; 1e-5 leaves a factor 10"
                    ),
                    6,
                )
                for col in ("to_market", "to_fixed_point")
            },
        },
        "*": {
            "*": Tolerance(
                1e-5,
                1e-9,
                (
                    "PF-VDS equilibria count as reached at a Nash residual of 1e-6 of the largest "
                    "total (EQUILIBRIUM_RESIDUAL; "
                    "the capped ones at an eq. (16) gap of 1e-7), max-min allocations at a "
                    "relative gap of 1e-10: values linear "
                    "in the allocation move by up to ~1e-6 (1e-5 leaves a factor 10); the "
                    "residuals themselves are in the "
                    "sensitive list"
                ),
                6,
            )
        },
    },
    "khamseashari2018_traces": {
        "*": {
            "*": Tolerance(
                1e-5,
                1e-9,
                (
                    "allocations of DRFH and TSF (max-min interior point, gap 1e-10), PS-DSF (the "
                    "market's Newton steps, or "
                    "the fixed point within ~2e-10 of its limit) and PF-VDS (interior point; best "
                    "responses polish above a Nash "
                    "residual of 1e-6): time-averaged utilisation and shares move by up to ~1e-6 "
                    "(1e-5 leaves a factor 10)"
                ),
                6,
                inputs=("arrival", "quanta", "trace_duration", "duration_s", "time"),
            )
        }
    },
    # new notebooks' tolerances are added above this line (python -m fairlib.repro.scaffold
    # tolerance KEY ...)
}

#: wall-clock columns, by table: machine- and load-dependent by nature, excluded from the comparison
#: (``{key: {table: [columns]}}``; a table named ``"*"`` applies to every table of the notebook)
TIMING_COLUMNS: dict[str, dict[str, list[str]]] = {
    "feldman2005": {"speed": ["seconds"]},
    "li2019": {"per_step_times": ["seconds"], "total_times": ["seconds"]},
    "metin2025": {"speed_vs_reserve_ratio": ["seconds"], "speed_vs_users": ["seconds"]},
    "khamseashari2018_traces": {"replay_summary": ["seconds"], "open_loop_grid": ["seconds"]},
    "schedulers": {"machine_allocations": ["seconds"]},
    "atlas": {"*": ["seconds", "cpu_seconds", "check_seconds"]},
}

_PLACEMENT = (
    "where on the server classes a mechanism's tasks sit: DRFH and TSF fix each job's total "
    "(any placement of the max-min totals is max-min) and the interior point's path picks "
    "the placement, so a class's utilisation moves with the last bits (seen: 2e-3 on classes "
    "C/D under ANOTHER_CPU) while the overall utilisation, set by the totals, is compared; "
    "the paper setup's placement ranges bound it (open_loop_epochs, reserved_low/high)"
)

_CAPPED_ABOVE_ONE_ROWS = "rows where mechanism in ['PF-VDS(2)', 'PF-VDS(4)']"
_CAPPED_ABOVE_ONE = (
    "PF-VDS with per-job caps at α > 1: an allocation certified by the LP (eq. (16) gap at "
    "most 1e-7) is a capped equilibrium, but for α > 1 the certificate does not make it "
    "unique, and the interior point's path decides which one it reaches (seen: one epoch's "
    "CPU utilisation 2e-3 apart under ANOTHER_CPU, both certified); α = 1 is a concave "
    "program, compared"
)

#: tables and claims whose values may change on an ulp of input, with the reason. ``run_all.py
#: --verify`` compares them, reports a difference as "sensitive", and does not fail on it.
#: ``{key: {"tables": {table: {column or "*": reason, "rows where <pandas query>": reason}},
#: "claims": {claim_id: reason}}}``: a "rows where" entry makes every column of the rows matching
#: the query in the committed or the fresh table sensitive.
SENSITIVE: dict[str, dict[str, dict]] = {
    "feldman2005": {
        "tables": {
            "fig2_infinite_parallelism": {
                "rows where mechanism == 'best_response_tight'": "best response continued until "
                "utilities change by less than 1e-12: the round it stops in, and so its Nash "
                "residual (~1e-8) and last digits of the metrics, depend on the last bits",
            },
            "fig2_paper_test_vs_tight_equilibrium": {
                "residual_tight": "a stopping residual near 1e-8, not a result: its digits are "
                "noise",
            },
        },
        "claims": {
            cid: "whether continued best response reaches residual 1e-6 on the one instance where "
            "it cycles (1 of 240) depends on the last bits"
            for cid in ("tight_equilibria_reached", "equilibrium_exists_strong_competition")
        },
    },
    "khamseashari2018": {
        "tables": {
            "convergence": {
                "psi": "PS-MFA and the distributed heuristic ([INF] reconstructions) stall in a "
                "chaotic regime: the merit after thousands of projected steps changes by "
                "O(1) factors with an ulp of input. Only the stall itself (Ψ far above 0) is "
                "a result."
            },
            "alpha_sweep": {
                "solver": "which PF-VDS solver finished an instance: the interior point hands "
                "over to best responses when its Nash residual is above the hand-over "
                "threshold, and residuals near it cross on an ulp (seen: interior_point -> "
                "interior_point+best_response on another CPU)",
                "nash_residual": "a solver's stopping residual (1e-12 to 1e-7), not a result: "
                "its digits are noise",
                "rows where alpha >= 64": "at α = 64 our PF-VDS solvers reach the equilibrium on "
                "only ~70% of the instances (claim pfvds_equilibrium_reached_large_alpha); "
                "whether one does depends on the last bits (seen: instance 0 reached on one "
                "CPU, stopped at Nash residual 2e-3 on another)",
            },
            **{
                f"property_violations_{kind}": {
                    col: "violation magnitudes of allocations computed by iterative solvers "
                    "(stopping near 1e-8) and of mechanisms whose allocation is not unique "
                    "(Definition 4; DRFH/TSF placement): values at noise level or differing "
                    "by up to ~1e-4 between CPUs; whether each violation exceeds the "
                    "property tolerance is counted in property_table.csv, which is compared "
                    "exactly"
                    for col in ("SI", "EF", "PO", "BF")
                }
                for kind in ("random", "bottleneck")
            },
            "theorem_checks": {
                col: "a solver residual or a distance between two solvers' answers at noise level "
                "(1e-12 to 1e-7)"
                for col in (
                    "pf_objective_shortfall",
                    "pf_nash_residual",
                    "bottleneck_distance",
                    "time_shared_distance",
                    "time_shared_definition4_gap",
                    "psdsf_solutions_distance",
                )
            },
            "capped_equilibrium_rates": {
                "variational_gap": "eq. (16)'s gap of an interior point's allocation: below 1e-7 "
                "a stopping residual (noise), above it the place where a stalled solve "
                "stopped",
                "rows where alpha >= 4": "whether the capped interior point is certified at α >= "
                "4 depends on the last bits for the few allocations whose gap sits near 1e-7 "
                "(seen: uncertified gaps from 1.1e-7); the check (not held, 0.78) has a wide "
                "margin",
            },
            "equilibrium_rates": {
                "nash_residual": "a solver's stopping residual (1e-12 to 1e-7) or, where a solve "
                "stopped short, its last residual: noise either way; the table's result is "
                "'solved' (residual <= EQUILIBRIUM_RESIDUAL), compared exactly",
                "sweeps": "best-response sweeps after the interior point: how many a solve needs "
                "to reach its stopping rule moves with the last bits of the allocation it "
                "starts from",
                "method": "which PF-VDS solver finished an instance: the interior point hands "
                "over to best responses when a continuation stage stops short or its Nash "
                "residual is above the hand-over threshold, and a stage's iterates near "
                "either limit cross it on an ulp",
            },
            "definition4_route": {
                "nash_residual": "a solver's stopping residual (1e-12 to 1e-7), not a result: "
                "its digits are noise",
                "rows where nash_residual > 1e-6": "PF-VDS at α = 64 and 256 where the solvers "
                "stop short of an equilibrium (Nash residual above EQUILIBRIUM_RESIDUAL = "
                "1e-6): its distances to PS-DSF are where the solve stopped, which moves "
                "with the last bits",
                "rows where several": "instances with several Definition-4 allocations (the "
                "market's and the fixed point's differ): which one the fixed point lands on "
                "depends on its path, so the distances between them move with it; 'several' "
                "itself is compared exactly",
            },
            "equilibrium_conditions": {
                col: "residuals and gaps of equilibria reached by iterative solvers (1e-14 to "
                "1e-7: noise), and placements of equilibria that are not unique (random "
                "starts), and the gaps at non-equilibria computed from those solutions; the "
                "claims compare them with 1e-6 / 1e-10 at margins of 30x or more, and "
                "left_out is compared exactly"
                for col in (
                    "equilibrium_nash_residual",
                    "totals_spread",
                    "placement_spread",
                    "midpoint_nash_residual",
                    "equilibrium_variational_gap",
                    "equilibrium_least_merit",
                    "other_nash_residual",
                    "other_variational_gap",
                    "other_least_merit",
                )
            },
        },
    },
    "schedulers": {
        "tables": {
            "machine_allocations": {
                "rows where mechanism in ['DRF machine offers (whole tasks)', 'Best-Fit DRFH "
                "(whole tasks)']": (
                    "whole-task placement heuristics (machine offers, Best-Fit DRFH) order "
                    "users by shares over the cluster's pooled capacity, a NumPy sum that "
                    "can differ by an ulp between CPUs; a near-tie flipped moves a task "
                    "(~1e-5 of the utilisation). The claim on them has a margin of ~6 points"
                ),
            },
        },
    },
    "khamseashari2018_traces": {
        "tables": {
            "fig6_convergence": {
                "psi": "the distributed heuristic ([INF]) stalls; its late iterates are chaotic "
                "(see khamseashari2018 convergence)"
            },
            "replay_epochs": {
                f"{where}utilisation_{r}_normalised": _PLACEMENT
                for r in ("cpu", "memory")
                for where in ("reserved_", "class_A_", "class_B_", "class_C_", "class_D_")
            },
            "open_loop_route_epochs": {_CAPPED_ABOVE_ONE_ROWS: _CAPPED_ABOVE_ONE},
            "open_loop_grid": {
                **{col: _PLACEMENT for col in ("cpu_CD", "ram_CD", "utilisation_CD")},
                "rows where mechanism == 'PS-DSF'": "on epochs where the market hands PS-DSF to "
                "the per-server fixed point (several VDS levels on a server), Definition 4 "
                "can have several allocations and the fixed point's path decides which one "
                "it reaches (seen: 8e-6 of the CPU utilisation on classes C/D); the "
                "paper-setup table bounds every Definition-4 allocation's utilisation "
                "(open_loop_definition4_bounds)",
            },
            "open_loop_leads": {
                col: "PS-DSF's lead over DRFH and TSF: it moves with the Definition-4 allocation "
                "the fixed point reaches (see open_loop_grid); the claims count leads above "
                "1e-6, far from where these move"
                for col in ("lead", "lead_cpu", "lead_ram", "lead_CD")
            },
            "open_loop_route_summary": {
                _CAPPED_ABOVE_ONE_ROWS: _CAPPED_ABOVE_ONE,
                "certified": "allocations whose eq. (16) gap is at most 1e-7: one near the "
                "threshold can cross on an ulp (another 2% job sample, the benchmark's, has "
                "2 of 84 uncertified at α = 4)",
            },
        },
    },
}


@result_type
@dataclass(frozen=True)
class Difference:
    """One cell that differs: 0-based data row (header excluded), column name or index, both values.

    Parameters
    ----------
    row : int
        0-based data row (-1 for a difference in the number of lines).
    column : str or int
        The column's name, or its index in a text comparison.
    committed, fresh : str
        The two cells as written.
    relative : float, default inf
        Relative difference of two numbers; inf for text or integers.
    """

    row: int
    column: object
    committed: str
    fresh: str
    relative: float = math.inf  # relative difference of two numbers; inf for strings or integers

    def __str__(self) -> str:
        rel = "" if math.isinf(self.relative) else f" (relative difference {self.relative:.2e})"
        return (
            f"row {self.row}, column {self.column!r}: committed {self.committed!r}, fresh "
            f"{self.fresh!r}{rel}"
        )


@result_type
@dataclass(frozen=True)
class TableReport:
    """Outcome of one table's comparison: ``status`` is ``identical``, ``equal`` (within tolerance),
    ``sensitive`` (differs only in declared sensitive columns), ``differs``, ``missing`` or ``new``.

    Parameters
    ----------
    name : str
        The table's name (its file's stem).
    status : {"identical", "equal", "sensitive", "differs", "missing", "new"}
        The outcome.
    max_relative : float, default 0.0
        The largest relative difference of the numbers compared.
    first : Difference, optional
        The first cell that differs.
    detail : str, default ""
        What else the report says (columns or rows that differ in number, the sensitive reason).
    excluded : tuple of str, default ()
        Columns left out (wall-clock timings).
    """

    name: str
    status: str
    max_relative: float = 0.0
    first: Difference | None = None
    detail: str = ""
    excluded: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """Whether the table passed (identical, equal within tolerance, or differing only where
        declared sensitive)."""
        return self.status in ("identical", "equal", "sensitive")

    def line(self) -> str:
        """One line of the verify report for this table.

        Returns
        -------
        str
            ``"<name>: <status> ..."`` with the largest difference, the first differing cell or the
            detail.
        """
        excl = f"; excluded {', '.join(self.excluded)}" if self.excluded else ""
        if self.status == "identical":
            return f"{self.name}: identical{excl}"
        if self.status == "equal":
            return (
                f"{self.name}: equal within tolerance (largest relative difference "
                f"{self.max_relative:.2e}){excl}"
            )
        what = f": {self.first}" if self.first is not None else ""
        return (
            f"{self.name}: {self.status.upper() if not self.ok else self.status}{what}"
            + (f" — {self.detail}" if self.detail else "")
            + excl
        )


@result_type
@dataclass(frozen=True)
class ClaimChange:
    """A claim whose status differs between the committed ledger and the fresh run.

    Parameters
    ----------
    claim_id : str
        The claim.
    committed, fresh : str
        Its status in each ledger (``"absent"`` where it is not in one).
    sensitive : str, default ""
        Why the change is expected (a wall-clock claim, a declared sensitive claim); empty when it
        is not.
    """

    claim_id: str
    committed: str
    fresh: str
    sensitive: str = ""

    def __str__(self) -> str:
        why = f" (sensitive: {self.sensitive})" if self.sensitive else ""
        return f"claim {self.claim_id}: {self.committed!r} -> {self.fresh!r}{why}"


@result_type
@dataclass
class VerifyReport:
    """Everything ``--verify`` found for one notebook: its tables and its claims.

    Parameters
    ----------
    key : str
        The notebook's key.
    tables : list of TableReport, optional
        One report per table (and for ``claims.json`` when one side lacks it).
    claims : list of ClaimChange, optional
        The claims whose status changed.
    claims_compared : int, default 0
        Claims compared.
    """

    key: str
    tables: list[TableReport] = field(default_factory=list)
    claims: list[ClaimChange] = field(default_factory=list)
    claims_compared: int = 0

    @property
    def ok(self) -> bool:
        """Whether every table passed and every claim change is declared sensitive; a comparison of
        nothing (no table and no claim on either side) is not a pass."""
        compared = bool(self.tables) or self.claims_compared > 0
        return compared and all(t.ok for t in self.tables) and all(c.sensitive for c in self.claims)

    def lines(self) -> list[str]:
        """The report's lines, as printed by ``run_all.py --verify``.

        Returns
        -------
        list of str
            One line per table, then the claims' summary and one line per changed claim.
        """
        out = [f"  {t.line()}" for t in self.tables]
        if not self.tables and not self.claims_compared:
            out.append("  NOTHING COMPARED: no table and no claims.json on either side")
        out.append(
            f"  claims.json: {self.claims_compared} claim statuses compared, "
            + (f"{len(self.claims)} changed" if self.claims else "all unchanged")
        )
        out += [f"    {c}" for c in self.claims]
        return out


_INT = re.compile(r"[+-]?\d+\Z")


def declared_tolerance(key: str, table: str, column: str) -> Tolerance | None:
    """The :data:`TOLERANCES` declaration that covers ``column`` of ``table`` in notebook ``key``
    (the table's own, then the notebook's ``"*"``; a column's own, then the table's ``"*"``), or
    None where nothing is declared.

    Parameters
    ----------
    key : str
        The notebook's key.
    table : str
        The table's name.
    column : str
        The column.

    Returns
    -------
    Tolerance or None
        The declaration, or None where nothing is declared.
    """
    as_text(key, "key", what="a notebook key")
    as_text(table, "table", what="a table's name")
    # a table's row-label column may be headed "" (tables.check_column_labels)
    as_text(column, "column", what="a column's label", optional=True)
    declared = {**TOLERANCES.get(key, {}).get("*", {}), **TOLERANCES.get(key, {}).get(table, {})}
    return declared.get(column, declared.get("*"))


def _number(token: str) -> int | float | None:
    """``int`` for an integer token, ``float`` for another numeric one, ``None`` for text."""
    t = token.strip()
    if _INT.match(t) and len(t) <= MAX_INTEGER_DIGITS:  # int() refuses over 4,300 digits
        return int(t)
    try:
        return float(t)
    except ValueError:
        return None


class Comparison(NamedTuple):
    """Whether two values agree within the tolerances, and their relative difference."""

    equal: bool
    relative: float


def compare_values(committed: str, fresh: str, *, rtol: float, atol: float = 0.0) -> Comparison:
    """Whether two cells are equal: integers and text exactly, floats within ``rtol`` / ``atol``.

    Returns ``(equal, relative difference)``; the relative difference is 0 for identical cells and
    inf when the cells are not both numbers (or are integers that differ).

    Parameters
    ----------
    committed, fresh : str
        The two cells as written in the CSV files.
    rtol : float
        Relative tolerance: 0 (exact) or from 1e-15 to 0.1.
    atol : float, default 0.0
        Absolute tolerance: 0 or from 1e-15 to 0.1.

    Returns
    -------
    Comparison
        ``(equal, relative difference)``.

    Examples
    --------
    >>> compare_values("0.002833789932588676", "0.0028337899325886766", rtol=1e-9)[0]
    True
    >>> tuple(compare_values("12", "13", rtol=0.1))
    (False, inf)
    """
    as_instance(committed, str, "committed")
    as_instance(fresh, str, "fresh")
    return _compare_values(committed, fresh, _tolerance(rtol, "rtol"), _tolerance(atol, "atol"))


def _tolerance(value: float, name: str) -> float:
    """A relative or absolute tolerance, as every tolerance of the library
    (:func:`fairlib._validate.as_tolerance`): 0 (exact) or from 1e-15 to 0.1; an infinite or huge
    one would pass every comparison."""
    return as_tolerance(value, name, zero=True)


def _compare_values(committed: str, fresh: str, rtol: float, atol: float) -> Comparison:
    """:func:`compare_values` of checked arguments (the tables' loops call it per cell)."""
    if committed == fresh:
        return Comparison(True, 0.0)
    a, b = _number(committed), _number(fresh)
    if a is None or b is None or (isinstance(a, int) and isinstance(b, int)):
        return Comparison(False, math.inf)
    a, b = float(a), float(b)
    if math.isnan(a) or math.isnan(b):
        return Comparison(
            math.isnan(a) and math.isnan(b), 0.0 if (math.isnan(a) and math.isnan(b)) else math.inf
        )
    if math.isinf(a) or math.isinf(b):
        return Comparison(a == b, 0.0 if a == b else math.inf)
    diff = abs(a - b)
    scale = max(abs(a), abs(b))
    relative = diff / scale if scale > 0 else 0.0
    return Comparison(bool(diff <= atol or diff <= rtol * scale), relative)


def compare_text(
    committed: str, fresh: str, *, rtol: float = 1e-9, sep: str = r";\t|[,;\t]"
) -> list[Difference]:
    """Compare two delimited text files record by record (lines, then fields split on ``sep``, a
    regular expression that does not match the empty string).

    Returns every differing cell (empty when equal within ``rtol``); a different number of lines or
    fields is a difference too.

    Parameters
    ----------
    committed, fresh : str
        The two files' text.
    rtol : float, default 1e-9
        Relative tolerance for numbers: 0 (exact) or from 1e-15 to 0.1.
    sep : str, default ``r";\\t|[,;\\t]"``
        The field separator, a regular expression.

    Returns
    -------
    list of Difference
        Every differing cell, empty when the files agree.

    Examples
    --------
    >>> compare_text("1;\\t2.5\\n", "1;\\t2.5000000000000004\\n")
    []
    >>> [str(d) for d in compare_text("1,2.5\\n", "1,2.50001\\n")]
    ["row 0, column 1: committed '2.5', fresh '2.50001' (relative difference 4.00e-06)"]
    """
    as_instance(committed, str, "committed")
    as_instance(fresh, str, "fresh")
    rtol = _tolerance(rtol, "rtol")
    if not isinstance(sep, str):
        raise InvalidInputError(f"sep = {sep!r}: expected a regular expression (str)")
    try:
        split = re.compile(sep).split
    except re.error as exc:
        raise InvalidInputError(f"sep = {sep!r}: not a regular expression ({exc})") from None
    if split("") != [""]:
        raise InvalidInputError(f"sep = {sep!r}: matches the empty string, so it splits nothing")
    a_lines, b_lines = committed.splitlines(), fresh.splitlines()
    diffs = []
    if len(a_lines) != len(b_lines):
        diffs.append(Difference(-1, "lines", str(len(a_lines)), str(len(b_lines))))
    for i, (la, lb) in enumerate(zip(a_lines, b_lines)):
        fa, fb = split(la), split(lb)
        if len(fa) != len(fb):
            diffs.append(Difference(i, "fields", str(len(fa)), str(len(fb))))
            continue
        for j, (x, y) in enumerate(zip(fa, fb)):
            equal, rel = _compare_values(x.strip(), y.strip(), rtol, 0.0)
            if not equal:
                diffs.append(Difference(i, j, x.strip(), y.strip(), rel))
    return diffs


def _read(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def _read_table(path: Path, name: str) -> pd.DataFrame:
    """The CSV table at ``path`` as text cells; a file that is no table is an error naming the
    argument."""
    try:
        return _read(path)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise InvalidInputError(f"{name} = {str(path)!r}: not a CSV table ({exc})") from None


def _text_mapping(value: Any, name: str) -> dict[str, str]:
    """``value`` (None: empty), a dict of text to text, as a new dict; anything else is an error
    naming the entry."""
    if value is None:
        return {}
    as_instance(value, dict, name)
    for key, reason in value.items():
        # a key is a column's label (a table's row-label column may be headed "")
        as_text(key, f"{name} (a key)", what="a column's label", optional=True)
        as_text(reason, f"{name}[{key!r}]", what="the reason is shown in the report")
    return dict(value)


def _claims(value: Any, name: str) -> list[dict]:
    """``value``, a list of claims as in ``claims.json`` (dicts with ``claim_id`` and
    ``status``)."""
    as_instance(value, list, name)
    for i, claim in enumerate(value):
        as_instance(claim, dict, f"{name}[{i}]")
        for field_name in ("claim_id", "status"):
            if not isinstance(claim.get(field_name), str):
                raise InvalidInputError(
                    f"{name}[{i}][{field_name!r}] = {claim.get(field_name)!r}: must be text "
                    "(a claim of "
                    "claims.json has claim_id and status)"
                )
    return value


def compare_table(
    committed: Path,
    fresh: Path,
    *,
    rtol: float = DEFAULT_RTOL,
    atol: float = DEFAULT_ATOL,
    exclude: Iterable[str] = (),
    sensitive: dict[str, str] | None = None,
    name: str | None = None,
    tolerances: dict[str, Tolerance] | None = None,
) -> TableReport:
    """Compare two CSV tables cell by cell (see :func:`compare_values`).

    ``exclude``: column names left out (wall-clock timings). ``sensitive``: ``{column or "*":
    reason, "rows where <query>": reason}``; differences confined to those columns or rows make the
    status ``sensitive`` (reported, not failed). ``tolerances``: ``{column or "*": Tolerance}``, the
    declared tolerance of a column (or of every column) in place of ``rtol``/``atol``.

    Parameters
    ----------
    committed, fresh : pathlib.Path
        The two CSV files.
    rtol : float, default DEFAULT_RTOL
        Relative tolerance of the columns ``tolerances`` does not cover: 0 (exact) or from 1e-15
        to 0.1.
    atol : float, default DEFAULT_ATOL
        Absolute tolerance of those columns, likewise.
    exclude : iterable of str, default ()
        Columns left out (wall-clock timings).
    sensitive : dict of str to str, optional
        ``{column or "*": reason, "rows where <query>": reason}``: differences confined to those
        columns or rows make the status ``sensitive`` (reported, not failed).
    name : str, optional
        The table's name in the report (default: the committed file's stem).
    tolerances : dict of str to Tolerance, optional
        ``{column or "*": Tolerance}``, the declared tolerance of a column (or of every column).

    Returns
    -------
    TableReport
        The outcome: ``identical``, ``equal``, ``sensitive`` or ``differs``.
    """
    committed = as_path(committed, "committed", must_exist=True)
    fresh = as_path(fresh, "fresh", must_exist=True)
    rtol, atol = _tolerance(rtol, "rtol"), _tolerance(atol, "atol")
    exclude = as_labels(
        list(exclude) if isinstance(exclude, (set, frozenset)) else exclude, "exclude"
    )
    sensitive = _text_mapping(sensitive, "sensitive")
    tolerances = {} if tolerances is None else as_instance(tolerances, dict, "tolerances")
    for column, declared in tolerances.items():
        as_instance(column, str, "tolerances (a key)")
        as_instance(declared, Tolerance, f"tolerances[{column!r}]")
    if name is not None:
        as_text(name, "name", what="the table's name in the report")
    name = name or committed.stem
    a, b = _read_table(committed, "committed"), _read_table(fresh, "fresh")
    sensitive_rows: dict[int, str] = {}
    for spec in [k for k in sensitive if k.startswith("rows where ")]:
        reason = sensitive.pop(spec)
        # a row is sensitive when the committed or the fresh run's values meet the query: a solve
        # that reached its equilibrium in one run and stopped short in the other is the case the
        # query names, whichever run it was
        for table in (Path(committed), Path(fresh)):
            for i in pd.read_csv(table).query(spec[len("rows where ") :]).index:
                sensitive_rows.setdefault(int(i), reason)
    excluded = tuple(c for c in exclude if c in a.columns or c in b.columns)
    a, b = (
        a.drop(columns=list(excluded), errors="ignore"),
        b.drop(columns=list(excluded), errors="ignore"),
    )
    if list(a.columns) != list(b.columns):
        return TableReport(
            name,
            "differs",
            detail=f"columns {list(a.columns)} committed, {list(b.columns)} fresh",
            excluded=excluded,
        )
    if len(a) != len(b):
        return TableReport(
            name, "differs", detail=f"{len(a)} rows committed, {len(b)} fresh", excluded=excluded
        )
    max_rel, first, first_sensitive, identical = 0.0, None, None, True
    for j, col in enumerate(a.columns):
        declared = tolerances.get(col, tolerances.get("*"))
        col_rtol, col_atol = (
            (declared.rtol, declared.atol) if declared is not None else (rtol, atol)
        )
        ca, cb = a[col].to_numpy(), b[col].to_numpy()
        for i in range(len(ca)):
            x, y = ca[i], cb[i]
            if x == y:
                continue
            identical = False
            equal, rel = _compare_values(x, y, col_rtol, col_atol)
            if equal:
                max_rel = max(max_rel, rel)
            elif col in sensitive or "*" in sensitive or i in sensitive_rows:
                if first_sensitive is None:
                    first_sensitive = Difference(i, col, x, y, rel)
                    first_reason = sensitive_rows.get(i) or sensitive.get(
                        col, sensitive.get("*", "")
                    )
            elif first is None:
                first = Difference(i, col, x, y, rel)
    if first is not None:
        return TableReport(name, "differs", max_rel, first, excluded=excluded)
    if first_sensitive is not None:
        return TableReport(
            name, "sensitive", max_rel, first_sensitive, detail=first_reason, excluded=excluded
        )
    return TableReport(name, "identical" if identical else "equal", max_rel, excluded=excluded)


def claim_changes(
    committed: list[dict], fresh: list[dict], *, sensitive: dict[str, str] | None = None
) -> list[ClaimChange]:
    """Claims whose status differs between two ledgers (lists of claims as in ``claims.json``); a
    claim present in only one is a change (status ``"absent"`` on the other side). Claims decided by
    wall-clock time are marked sensitive: machines and load differ, so their status is reported,
    never failed.

    Parameters
    ----------
    committed, fresh : list of dict
        The two ledgers' claims (``claim_id``, ``status``, ``wall_clock``).
    sensitive : dict of str to str, optional
        Claim id → why its change is expected.

    Returns
    -------
    list of ClaimChange
        The changes, the committed ledger's order first.
    """
    committed, fresh = _claims(committed, "committed"), _claims(fresh, "fresh")
    sensitive = _text_mapping(sensitive, "sensitive")
    for c in committed + fresh:
        if c.get("wall_clock"):
            sensitive.setdefault(c["claim_id"], "decided by wall-clock time")
    old = {c["claim_id"]: c["status"] for c in committed}
    new = {c["claim_id"]: c["status"] for c in fresh}
    return [
        ClaimChange(cid, old.get(cid, "absent"), new.get(cid, "absent"), sensitive.get(cid, ""))
        for cid in list(old) + [c for c in new if c not in old]
        if old.get(cid) != new.get(cid)
    ]


def _read_claims(path: Any, name: str) -> list[dict]:
    """The claims of the ``claims.json`` file at ``path``; a file that is not one is an error naming
    the argument."""
    path = as_path(path, name, must_exist=True)
    try:
        claims = json.loads(path.read_text())["claims"]
    except (ValueError, KeyError, TypeError, UnicodeDecodeError) as exc:
        raise InvalidInputError(
            f"{name} = {str(path)!r}: not a claims.json ledger ({type(exc).__name__}: {exc})"
        ) from None
    return _claims(claims, name)


class ClaimComparison(NamedTuple):
    """How many claims were compared and the changes found."""

    compared: int
    changes: list


def compare_claims(
    committed: Path, fresh: Path, *, sensitive: dict[str, str] | None = None
) -> ClaimComparison:
    """Every claim's status in two ``claims.json`` files: ``(claims compared, changes)``
    (:func:`claim_changes`).

    Parameters
    ----------
    committed, fresh : pathlib.Path
        The two ``claims.json`` files.
    sensitive : dict of str to str, optional
        Claim id → why its change is expected.

    Returns
    -------
    ClaimComparison
        The number of distinct claims over both, and the changes.
    """
    old, new = (_read_claims(f, name) for f, name in ((committed, "committed"), (fresh, "fresh")))
    ids = {c["claim_id"] for c in old} | {c["claim_id"] for c in new}
    return ClaimComparison(len(ids), claim_changes(old, new, sensitive=sensitive))


def verify_results(
    key: str,
    committed_dir: Path,
    fresh_dir: Path,
    *,
    rtol: float = DEFAULT_RTOL,
    atol: float = DEFAULT_ATOL,
    declared: bool = True,
) -> VerifyReport:
    """Compare every table of ``committed_dir`` (the committed ``data/results/<key>/``) with
    ``fresh_dir``: with the tolerances declared in :data:`TOLERANCES` and ``rtol``/``atol`` for
    columns declared nowhere, or, with ``declared=False``, ``rtol``/``atol`` for every number.

    Parameters
    ----------
    key : str
        The notebook's key (whose declarations apply).
    committed_dir : pathlib.Path
        The committed ``data/results/<key>/``.
    fresh_dir : pathlib.Path
        The fresh run's results.
    rtol : float, default DEFAULT_RTOL
        Relative tolerance of the columns declared nowhere (of every column with
        ``declared=False``): 0 (exact) or from 1e-15 to 0.1.
    atol : float, default DEFAULT_ATOL
        Absolute tolerance, likewise.
    declared : bool, default True
        Use the declarations of :data:`TOLERANCES`.

    Returns
    -------
    VerifyReport
        One report per table (and ``claims.json``), and the claims whose status changed.

    Raises
    ------
    InvalidInputError
        When either directory exists but is a file.
    """
    as_text(key, "key", what="a notebook key")
    committed_dir = as_path(committed_dir, "committed_dir", kind="directory")
    fresh_dir = as_path(fresh_dir, "fresh_dir", kind="directory")
    rtol, atol = _tolerance(rtol, "rtol"), _tolerance(atol, "atol")
    declared = as_flag(declared, "declared")
    timing = TIMING_COLUMNS.get(key, {})
    sensitive = SENSITIVE.get(key, {})
    report = VerifyReport(key)
    old = {p.stem for p in committed_dir.glob("*.csv")}
    new = {p.stem for p in fresh_dir.glob("*.csv")}
    for name in sorted(old | new):
        if name not in new:
            report.tables.append(
                TableReport(name, "missing", detail="committed, not written by the fresh run")
            )
        elif name not in old:
            report.tables.append(
                TableReport(name, "new", detail="written by the fresh run, not committed")
            )
        else:
            report.tables.append(
                compare_table(
                    committed_dir / f"{name}.csv",
                    fresh_dir / f"{name}.csv",
                    rtol=rtol,
                    atol=atol,
                    exclude=list(dict.fromkeys(timing.get(name, []) + timing.get("*", []))),
                    sensitive=sensitive.get("tables", {}).get(name),
                    name=f"{name}.csv",
                    tolerances={
                        **TOLERANCES.get(key, {}).get("*", {}),
                        **TOLERANCES.get(key, {}).get(name, {}),
                    }
                    if declared
                    else None,
                )
            )
    a, b = committed_dir / "claims.json", fresh_dir / "claims.json"
    if a.is_file() and b.is_file():
        report.claims_compared, report.claims = compare_claims(
            a, b, sensitive=sensitive.get("claims")
        )
    elif a.is_file() or b.is_file():
        report.tables.append(TableReport("claims.json", "missing" if a.is_file() else "new"))
    return report
