"""One house style for every notebook, and one fixed colour per mechanism.

>>> color("drf") == color("DRF")
True
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

__all__ = ["MECHANISM_COLORS", "MECHANISM_LABELS", "RESOURCE_COLORS", "color", "label", "resource_color",
           "use_style", "spread_band",
           "new_figure", "log_log_slope"]

_PALETTE = sns.color_palette("tab20", 20).as_hex()

#: fixed colour of each mechanism, shared by every notebook (keys are lower case)
MECHANISM_COLORS: dict[str, str] = {
    # market game (feldman2005)
    "best_response": _PALETTE[0],
    "local_greedy": _PALETTE[2],
    "social_optimum": "#222222",
    "weight_proportional": _PALETTE[6],
    "local_search": _PALETTE[1],
    # single-pool DRF family (metin2025)
    "drf": _PALETTE[0],
    "drf_first_blocked": _PALETTE[1],
    "pdrf": _PALETTE[4],
    "pdrf_top_up": _PALETTE[5],
    "edrf": _PALETTE[2],
    "heapq_drf": _PALETTE[14],
    "argmin_drf": _PALETTE[15],
    "numpy_sum": "#888888",
    # heterogeneous servers (khamseashari2018)
    "drfh": _PALETTE[8],
    "tsf": _PALETTE[10],
    "psdsf": _PALETTE[4],
    "pfvds": _PALETTE[6],
    # dynamic DRF (li2019)
    "dynamic_drf": _PALETTE[0],
    "linear": _PALETTE[0],
    "linear_rescan": _PALETTE[1],
    "sorted_waterfill": _PALETTE[6],
    "waterfill": _PALETTE[2],
    "lp": _PALETTE[14],
    "cautious_lp": _PALETTE[12],
    "static_drf": "#222222",
}

#: readable legend labels
MECHANISM_LABELS: dict[str, str] = {
    "best_response": "best response", "local_greedy": "local greedy", "social_optimum": "social optimum",
    "weight_proportional": "weight-proportional", "local_search": "local search",
    "drf": "DRF (progressive filling)", "drf_first_blocked": "DRF, literal stop rule", "pdrf": "PDRF",
    "pdrf_top_up": "PDRF + top-up", "edrf": "EDRF", "heapq_drf": "pure-Python heapq DRF",
    "argmin_drf": "argmin-loop DRF (as published)", "numpy_sum": "demands.sum(axis=0)",
    "drfh": "DRFH", "tsf": "TSF", "psdsf": "PS-DSF", "pfvds": "PF-VDS",
    "dynamic_drf": "dynamic DRF", "linear": "linear-time (Li et al.)", "waterfill": "water-filling",
    "lp": "LP (HiGHS)", "cautious_lp": "cautious LP [INF]", "static_drf": "static DRF",
}


def _registered(mechanism: str):
    """The registered mechanism (fairlib.mechanisms) of a name or variant name, or None."""
    from . import mechanisms
    from ._validate import InvalidInputError

    try:
        return mechanisms.get(mechanism)
    except InvalidInputError:
        return None


def color(mechanism: str) -> str:
    """The fixed colour of ``mechanism`` (case-insensitive): the house table above, else the colour it was
    registered with (:mod:`fairlib.mechanisms`); names neither knows raise ``KeyError`` (a typo, not a new colour)."""
    key = mechanism.lower()
    if key in MECHANISM_COLORS:
        return MECHANISM_COLORS[key]
    mech = _registered(mechanism)
    if mech is None:
        raise KeyError(f"mechanism = {mechanism!r}: no house colour and not registered; known: "
                       f"{sorted(MECHANISM_COLORS)}")
    return mech.color


def label(mechanism: str) -> str:
    """Legend label of ``mechanism``: the house table, else its registered label, else the name itself."""
    key = mechanism.lower()
    if key in MECHANISM_LABELS:
        return MECHANISM_LABELS[key]
    mech = _registered(mechanism)
    return mech.label if mech is not None and key == mech.name.lower() else mechanism


def use_style() -> None:
    """Apply the house style (seaborn whitegrid, readable font sizes, fixed figure size)."""
    sns.set_theme(context="notebook", style="whitegrid", font_scale=0.95)
    plt.rcParams.update({
        "figure.figsize": (6.4, 4.0),
        "figure.dpi": 100,
        "axes.titlesize": 11,
        "axes.titleweight": "bold",
        "legend.frameon": False,
        "savefig.bbox": "tight",
        "svg.hashsalt": "fairlib",
        "pdf.fonttype": 42,
    })


def new_figure(title: str, *, ncols: int = 1, nrows: int = 1, width: float | None = None,
               height: float | None = None, **kw):
    """A figure in the house style with the paper's figure number in ``title``."""
    use_style()
    w = width or 4.2 * ncols + 1.0
    h = height or 3.4 * nrows + 0.4
    kw.setdefault("layout", "constrained")  # keeps axis labels clear of the next row's titles
    fig, axes = plt.subplots(nrows, ncols, figsize=(w, h), squeeze=False, **kw)
    fig.suptitle(title, fontweight="bold")
    return fig, (axes[0, 0] if axes.size == 1 else axes)


def spread_band(ax, data: pd.DataFrame, x: str, y: str, mechanism: str, *, interval: float = 80,
                marker: str = "o", label_: str | None = None, estimator: str = "median", **kw):
    """Plot the ``estimator`` (median by default, or ``"mean"``) of ``y`` per ``x`` with a shaded band holding the
    central ``interval`` % of the runs (the 10th to 90th percentile by default): seaborn's ``lineplot`` with
    ``errorbar=("pi", interval)``."""
    c = kw.pop("color", None) or color(mechanism)
    sns.lineplot(data=data, x=x, y=y, estimator=estimator, errorbar=("pi", interval), color=c, marker=marker or None,
                 markersize=3.5, markeredgewidth=0, label=label_ or label(mechanism), err_kws={"alpha": 0.2, "lw": 0},
                 ax=ax, **kw)
    return ax


#: resource colours: greys, so a resource is never read as a mechanism (mechanisms have the palette's colours)
RESOURCE_COLORS: dict[str, str] = {"cpu": "#4d4d4d", "ram": "#a6a6a6", "memory": "#a6a6a6", "storage": "#7f7f7f",
                                   "network": "#cccccc"}


def resource_color(resource: str) -> str:
    """The colour of a resource (``"CPU"``, ``"RAM"``/``"memory"``, ``"storage"``, ``"network"``; case ignored).

    >>> resource_color("CPU") != color("drf")
    True
    """
    try:
        return RESOURCE_COLORS[resource.lower()]
    except KeyError:
        raise ValueError(f"resource = {resource!r}: no colour; known: {sorted(RESOURCE_COLORS)}") from None


def log_log_slope(x, y) -> float:
    """Least-squares slope of log(y) on log(x): the empirical scaling exponent."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])
