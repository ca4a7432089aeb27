"""The papers' experiment drivers, one module per paper, named by what it studies.

- :mod:`.bidding_game` — the price-anticipating proportional-share game (feldman2005);
- :mod:`.heterogeneous_servers` — DRFH, TSF, PS-DSF and PF-VDS(α) on heterogeneous servers
  (khamseashari2018);
- :mod:`.google_open_loop` — the Google experiment (§6.2–6.3) in open loop over its setups
  (khamseashari2018_traces);
- :mod:`.heterogeneous_traces` — what the trace-driven experiments (§6) measured, claim by claim;
- :mod:`.precomputed_drf` — PDRF against DRF, Tables 1–2 (metin2025);
- :mod:`.dynamic_drf` — dynamic DRF, competitive ratios and properties (li2019);
- :mod:`.mechanism_atlas` — every registered mechanism on whole cells of three real clusters
  (atlas, not a paper);
- :mod:`.template` — the template notebook's example (copied by ``python -m fairlib.repro.scaffold
  paper``).

Everything with seeds runs on :func:`fairlib.sweep.sweep`. Drivers also turn their tables into the
ledger's measurements (``*_findings``: one :class:`fairlib.repro.ledger.Measurement` per declared
claim), so a notebook's claims cell only hands them to
:meth:`fairlib.repro.ledger.ClaimLog.measure_all`. The mechanisms themselves are in
:mod:`fairlib.multires`, :mod:`fairlib.market` and :mod:`fairlib.dynamic`; drivers only set up and
tabulate.
"""

from . import (
    bidding_game,
    dynamic_drf,
    google_open_loop,
    heterogeneous_servers,
    heterogeneous_traces,
    precomputed_drf,
    template,
)
from . import mechanism_atlas
# new drivers are imported above this line (python -m fairlib.repro.scaffold paper KEY --driver
# TOPIC)

__all__ = [
    "bidding_game",
    "heterogeneous_servers",
    "google_open_loop",
    "heterogeneous_traces",
    "precomputed_drf",
    "dynamic_drf",
    "template",
]
__all__ += ["mechanism_atlas"]
