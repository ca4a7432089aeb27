"""Old name of the claims ledger and of saved figures and tables, kept so that older notebooks still
run.

The claims ledger is :mod:`fairlib.repro.ledger` (:class:`~fairlib.repro.ledger.ClaimLog`, the
registry and its rules); saved figures and tables are :mod:`fairlib.repro.outputs`
(:func:`~fairlib.repro.outputs.save_figure`, :func:`~fairlib.repro.outputs.save_table`). Every name
this module had is re-exported from there: ``from fairlib.repro.report import ClaimLog, save_figure,
save_table`` still works. New code imports from the two modules.
"""

from __future__ import annotations

from .ledger import (
    KINDS,
    LEDGER_LINK,
    OUR_SD,
    PROVISIONAL,
    RULES,
    STATUSES,
    Claim,
    ClaimListing,
    ClaimLog,
    ClaimsFailed,
    Declared,
    Measurement,
    Rule,
    cell_key,
    claim_anchor,
    display_value,
    load_registry,
    measured_values,
    pooled_count_sd,  # noqa: F401 - public here too, though never in __all__
    quotes_of,
    registry_path,
)
from .outputs import FLOAT_FORMAT, MARKS_FILE, reported, save_figure, save_table

__all__ = [
    "save_figure",
    "save_table",
    "ClaimLog",
    "Claim",
    "ClaimsFailed",
    "Declared",
    "Measurement",
    "Rule",
    "RULES",
    "OUR_SD",
    "load_registry",
    "quotes_of",
    "registry_path",
    "reported",
    "display_value",
    "cell_key",
    "measured_values",
    "FLOAT_FORMAT",
    "KINDS",
    "STATUSES",
    "PROVISIONAL",
    "ClaimListing",
    "LEDGER_LINK",
    "claim_anchor",
    "MARKS_FILE",
]
