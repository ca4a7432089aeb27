"""One house style for every notebook: one colour-blind-safe palette (Okabe–Ito), and one fixed
colour, marker and line style per mechanism.

>>> color("drf") == color("DRF")
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

import matplotlib
import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.collections import PathCollection
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.lines import Line2D
import numpy as np
import numpy.typing as npt
import pandas as pd
import seaborn as sns

from .._validate import (
    InvalidInputError,
    as_count,
    as_instance,
    as_number,
    as_values,
    check_choice,
    check_columns,
    result_type,
    as_text,
)

__all__ = [
    "OKABE_ITO",
    "MECHANISM_STYLES",
    "MECHANISM_COLORS",
    "MECHANISM_LABELS",
    "RESOURCE_COLORS",
    "TOL_MUTED",
    "MechanismStyle",
    "color",
    "marker",
    "linestyle",
    "style",
    "label",
    "resource_color",
    "use_style",
    "spread_band",
    "new_figure",
    "log_log_slope",
    "LEGEND_FONTSIZE",
    "MAX_WIDTH",
    "MAX_SAVED_WIDTH",
    "figure_marks",
    "caption_problems",
    "legend_covers_data",
    "place_legends",
]

#: the Okabe–Ito palette (Okabe & Ito 2008, "Color Universal Design"): eight colours told apart
#: with every common colour-vision deficiency; yellow is left out of the mechanism table (too light
#: on white)
OKABE_ITO: dict[str, str] = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "bluish_green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish_purple": "#CC79A7",
}

#: Paul Tol's muted palette (Tol 2021, "Colour Schemes", SRON/EPS/TN/09-002), also told apart with
#: every common colour-vision deficiency: the colours a new mechanism or game takes once every
#: Okabe–Ito colour is registered (``python -m fairlib.repro.scaffold mechanism``); sand is left
#: out (too light on white)
TOL_MUTED: dict[str, str] = {
    "indigo": "#332288",
    "wine": "#882255",
    "teal": "#44AA99",
    "rose": "#CC6677",
    "olive": "#999933",
    "purple": "#AA4499",
    "green": "#117733",
    "cyan": "#88CCEE",
    "sand": "#DDCC77",
}

#: the smallest legend text of any figure (points at the figure's own size): shown at no less than
#: 90 % of its size (:data:`MAX_WIDTH`), 10 pt reads as 9 pt or more on the page
LEGEND_FONTSIZE = 10

#: the widest figure (inches, at ``figure.dpi`` = 100) the book shows at its own size: its content
#: column is about 700 CSS pixels wide at a 1280-pixel window, so a figure drawn wider would be
#: scaled down, and its text with it
MAX_WIDTH = 7.0
#: a figure's width on the page after ``bbox_inches="tight"`` (legends outside the axes widen it)
#: may exceed :data:`MAX_WIDTH` by this much before :func:`fairlib.repro.outputs.save_figure`
#: refuses it (still shown at >= 90 %)
MAX_SAVED_WIDTH = 7.6


@result_type
class MechanismStyle(NamedTuple):
    """Colour, marker and line style of a mechanism.

    Parameters
    ----------
    color : str
        A hex colour of :data:`OKABE_ITO`.
    marker : str
        A matplotlib marker.
    linestyle : str or tuple
        A matplotlib line style (a name or an on-off dash sequence).
    """

    color: str
    marker: str
    linestyle: object


_O = OKABE_ITO
_S = MechanismStyle
#: fixed colour, marker and line style of each mechanism, shared by every notebook (keys are lower
#: case). Within a notebook no two mechanisms plotted together share a colour; across notebooks a
#: colour may recur, the marker and line style then still tell the mechanisms apart.
MECHANISM_STYLES: dict[str, MechanismStyle] = {
    # market game (feldman2005)
    "best_response": _S(_O["blue"], "o", "-"),
    "local_greedy": _S(_O["vermillion"], "s", "--"),
    "social_optimum": _S(_O["black"], "", ":"),
    "weight_proportional": _S(_O["bluish_green"], "^", "-."),
    "local_search": _S(_O["orange"], "D", (0, (3, 1, 1, 1))),
    # single-pool DRF family (metin2025)
    "drf": _S(_O["blue"], "o", "-"),
    "drf_first_blocked": _S(_O["sky_blue"], "v", "--"),
    "pdrf": _S(_O["vermillion"], "s", "-"),
    "pdrf_top_up": _S(_O["orange"], "D", "-."),
    "edrf": _S(_O["bluish_green"], "^", ":"),
    "heapq_drf": _S(_O["reddish_purple"], "P", "--"),
    "argmin_drf": _S("#666666", "X", "-."),
    "numpy_sum": _S(_O["black"], "x", ":"),
    # heterogeneous servers (khamseashari2018)
    "drfh": _S(_O["orange"], "s", "--"),
    "tsf": _S(_O["sky_blue"], "^", ":"),
    "psdsf": _S(_O["vermillion"], "o", "-"),
    "pfvds": _S(_O["blue"], "D", "-."),
    # dynamic DRF (li2019)
    "dynamic_drf": _S(_O["blue"], "o", "-"),
    "linear": _S(_O["bluish_green"], "^", "-"),
    "linear_rescan": _S(_O["reddish_purple"], "v", "--"),
    "sorted_waterfill": _S(_O["orange"], "D", "-."),
    "waterfill": _S(_O["sky_blue"], "s", ":"),
    "lp": _S(_O["vermillion"], "P", "--"),
    "cautious_lp": _S(_O["reddish_purple"], "X", "-."),
    "static_drf": _S(_O["black"], "x", ":"),
}
del _O, _S

#: fixed colour of each mechanism (the colour of :data:`MECHANISM_STYLES`)
MECHANISM_COLORS: dict[str, str] = {k: v.color for k, v in MECHANISM_STYLES.items()}

#: readable legend labels
MECHANISM_LABELS: dict[str, str] = {
    "best_response": "best response",
    "local_greedy": "local greedy",
    "social_optimum": "social optimum",
    "weight_proportional": "weight-proportional",
    "local_search": "local search",
    "drf": "DRF (progressive filling)",
    "drf_first_blocked": "DRF, literal stop rule",
    "pdrf": "PDRF",
    "pdrf_top_up": "PDRF + top-up",
    "edrf": "EDRF",
    "heapq_drf": "pure-Python heapq DRF",
    "argmin_drf": "argmin-loop DRF (as published)",
    "numpy_sum": "demands.sum(axis=0)",
    "drfh": "DRFH",
    "tsf": "TSF",
    "psdsf": "PS-DSF",
    "pfvds": "PF-VDS",
    "dynamic_drf": "dynamic DRF",
    "linear": "linear-time (Li et al.)",
    "waterfill": "water-filling",
    "lp": "LP (HiGHS)",
    "cautious_lp": "cautious LP [INF]",
    "static_drf": "static DRF",
}


#: the most panels :func:`new_figure` lays out along a row or a column, and the largest size it
#: takes in inches: beyond either, a figure is a typo, not a page's figure
MAX_PANELS, MAX_INCHES = 12, 100.0


def _text(value: object, name: str, *, lines: bool = False) -> str:
    """``value`` when it is text that shows, else an error naming the argument (a mechanism's name,
    a column, a title, a caption: each is looked up or shown on a figure, and a blank or invisible
    one is a mistake); with ``lines``, text shown on the figure that may span lines (a title, a
    legend entry, a caption)."""
    return as_text(value, name, what="it is named or shown on a figure", lines=lines)


def _registered(mechanism: str) -> Any:
    """The registered mechanism (fairlib.mechanisms) of a name or variant name, or the registered
    game (fairlib.games) of a name, or None."""
    from .. import games, mechanisms

    for registry in (mechanisms, games):
        try:
            return registry.get(mechanism)
        except InvalidInputError:
            pass
    return None


def color(mechanism: str) -> str:
    """The fixed colour of ``mechanism`` (case-insensitive): the house table above, else the colour
    it was registered with (:mod:`fairlib.mechanisms`, :mod:`fairlib.games`); a name none knows is
    refused by name (a typo, not a new colour).

    Parameters
    ----------
    mechanism : str
        A mechanism's (or game's) name or variant name, case ignored.

    Returns
    -------
    str
        A hex colour.

    Raises
    ------
    InvalidInputError
        When ``mechanism`` is not text, shows nothing, or no table or registry knows it.
    """
    key = _text(mechanism, "mechanism").lower()
    if key in MECHANISM_COLORS:
        return MECHANISM_COLORS[key]
    mech = _registered(mechanism)
    if mech is None:
        raise InvalidInputError(
            f"mechanism = {mechanism!r}: no house colour and not registered; known: "
            f"{sorted(MECHANISM_COLORS)}"
        )
    return mech.color


def style(mechanism: str) -> dict[str, Any]:
    """Keyword arguments drawing ``mechanism`` in its house style: ``color``, ``marker`` and
    ``linestyle`` (a mechanism only registered in :mod:`fairlib.mechanisms` gets its registered
    colour, a circle, a solid line).

    Parameters
    ----------
    mechanism : str
        A mechanism's (or game's) name or variant name, case ignored.

    Returns
    -------
    dict of str to object
        ``{"color": ..., "marker": ..., "linestyle": ...}``.

    Raises
    ------
    InvalidInputError
        When ``mechanism`` is not text, shows nothing, or no table or registry knows it.

    Examples
    --------
    >>> style("TSF") == {"color": color("tsf"), "marker": "^", "linestyle": ":"}
    True
    """
    key = _text(mechanism, "mechanism").lower()
    if key in MECHANISM_STYLES:
        c, m, ls = MECHANISM_STYLES[key]
        return {"color": c, "marker": m, "linestyle": ls}
    return {"color": color(mechanism), "marker": "o", "linestyle": "-"}


def marker(mechanism: str) -> str:
    """The fixed marker of ``mechanism`` (see :func:`style`).

    Parameters
    ----------
    mechanism : str
        A mechanism's (or game's) name or variant name, case ignored.

    Returns
    -------
    str
        A matplotlib marker.

    Raises
    ------
    InvalidInputError
        When ``mechanism`` is not text, shows nothing, or no table or registry knows it.
    """
    return style(mechanism)["marker"]


def linestyle(mechanism: str) -> str | tuple:
    """The fixed line style of ``mechanism`` (see :func:`style`).

    Parameters
    ----------
    mechanism : str
        A mechanism's (or game's) name or variant name, case ignored.

    Returns
    -------
    str or tuple
        A matplotlib line style.

    Raises
    ------
    InvalidInputError
        When ``mechanism`` is not text, shows nothing, or no table or registry knows it.
    """
    return style(mechanism)["linestyle"]


def label(mechanism: str) -> str:
    """Legend label of ``mechanism``: the house table, else its registered label, else the name
    itself.

    Parameters
    ----------
    mechanism : str
        A mechanism's (or game's) name or variant name, case ignored.

    Returns
    -------
    str
        The label.

    Raises
    ------
    InvalidInputError
        When ``mechanism`` is not text, or shows nothing.
    """
    key = _text(mechanism, "mechanism").lower()
    if key in MECHANISM_LABELS:
        return MECHANISM_LABELS[key]
    mech = _registered(mechanism)
    return mech.label if mech is not None and key == mech.name.lower() else mechanism


def use_style() -> None:
    """Apply the house style (seaborn whitegrid, readable font sizes, fixed figure size)."""
    sns.set_theme(context="notebook", style="whitegrid", font_scale=0.95)
    plt.rcParams.update(
        {
            "figure.figsize": (6.4, 4.0),
            "figure.dpi": 100,
            "axes.titlesize": 11,
            "axes.titleweight": "bold",
            "axes.labelsize": 10,
            "xtick.labelsize": 9,
            "ytick.labelsize": 9,
            "legend.fontsize": LEGEND_FONTSIZE,
            "legend.title_fontsize": LEGEND_FONTSIZE,
            "legend.frameon": True,  # a legend placed over the plot area stays readable
            "legend.framealpha": 0.9,
            "axes.prop_cycle": plt.cycler(
                color=[
                    OKABE_ITO[k]
                    for k in (
                        "blue",
                        "vermillion",
                        "bluish_green",
                        "orange",
                        "reddish_purple",
                        "sky_blue",
                        "black",
                    )
                ]
            ),
            "savefig.bbox": "tight",
            "svg.hashsalt": "fairlib",
            "pdf.fonttype": 42,
        }
    )


def new_figure(
    title: str,
    *,
    ncols: int = 1,
    nrows: int = 1,
    width: float | None = None,
    height: float | None = None,
    **kw: Any,
) -> tuple[Figure, Any]:
    """A figure in the house style with the paper's figure number in ``title``; returns ``(fig,
    axes)`` with ``axes[row, col]`` (a single Axes for one panel).

    The figure is never wider than :data:`MAX_WIDTH`, so the book shows it at its own size and its
    text stays legible: a grid of panels that would be wider is stacked, one panel per row at the
    full width, and ``axes`` keeps the grid's shape (``axes[0, 1]`` is then the second panel from
    the top), so plotting code is the same either way. A long title is wrapped to the width.

    Parameters
    ----------
    title : str
        The title, with the paper's figure number (``"Fig. 3 (c): ..."``).
    ncols, nrows : int, default 1
        The grid of panels, each from 1 to :data:`MAX_PANELS` (12).
    width, height : float, optional
        Inches, each from 0.5 to :data:`MAX_INCHES` (100); by default 4.2 per column + 1 and 3.4
        per row + 0.4. The figure's width is capped at :data:`MAX_WIDTH`.
    **kw
        Passed to :func:`matplotlib.pyplot.subplots` (``sharey=``, ...; ``layout`` defaults to
        ``"constrained"``).

    Returns
    -------
    tuple of (matplotlib.figure.Figure, matplotlib.axes.Axes or numpy.ndarray)
        The figure and ``axes[row, col]`` (a single Axes for one panel).

    Raises
    ------
    InvalidInputError
        When ``title`` is not text or shows nothing, ``ncols`` or ``nrows`` is not a count from 1 to
        :data:`MAX_PANELS`, or ``width`` or ``height`` is not a number of inches from 0.5 to
        :data:`MAX_INCHES`.

    Examples
    --------
    >>> fig, axes = new_figure("two panels side by side would be 11 inches wide", ncols=2, width=11)
    >>> axes.shape, [round(float(x), 1) for x in fig.get_size_inches()]
    ((1, 2), [7.0, 7.2])
    """
    import textwrap

    _text(title, "title", lines=True)
    ncols = as_count(ncols, "ncols", maximum=MAX_PANELS)
    nrows = as_count(nrows, "nrows", maximum=MAX_PANELS)
    for name, inches in (("width", width), ("height", height)):
        if inches is not None:
            as_number(inches, name, minimum=0.5, inclusive=True, maximum=MAX_INCHES)
    use_style()
    w = width or 4.2 * ncols + 1.0
    h = height or 3.4 * nrows + 0.4
    kw.setdefault("layout", "constrained")  # keeps axis labels clear of the next row's titles
    rows, cols = nrows, ncols
    if w > MAX_WIDTH and ncols > 1:
        # side by side, each panel would be shown at a fraction of its size: one panel per row
        # instead, each as tall as it was (it is wider now, never narrower)
        panel_height = (h - 0.4) / nrows
        rows, cols, h, w = nrows * ncols, 1, panel_height * nrows * ncols + 0.4, MAX_WIDTH
        if (
            "sharey" in kw and kw["sharey"] is True
        ):  # side by side they shared a y axis; stacked, each keeps its own
            kw.pop("sharey")
    elif (
        w > MAX_WIDTH
    ):  # narrower, as tall as asked: a squat panel would leave no room for its legend
        w = MAX_WIDTH
    fig, axes = plt.subplots(rows, cols, figsize=(w, h), squeeze=False, **kw)
    axes = axes.reshape(nrows, ncols)
    # a bold character is about 0.6 of the font size wide: wrap the title to the figure's width
    size = matplotlib.font_manager.FontProperties(
        size=plt.rcParams["figure.titlesize"]
    ).get_size_in_points()
    fig.suptitle(textwrap.fill(title, width=max(20, int(w * 72 / (0.6 * size)))), fontweight="bold")
    return fig, (axes[0, 0] if axes.size == 1 else axes)


def spread_band(
    ax: Axes,
    data: pd.DataFrame,
    x: str,
    y: str,
    mechanism: str,
    *,
    interval: float = 80,
    marker: str = "o",
    label_: str | None = None,
    estimator: str = "median",
    **kw: Any,
) -> Axes:
    """Plot the ``estimator`` (median by default, or ``"mean"``) of ``y`` per ``x`` with a shaded
    band holding the central ``interval`` % of the runs (the 10th to 90th percentile by default):
    seaborn's ``lineplot`` with ``errorbar=("pi", interval)``. The line takes the mechanism's marker
    and line style (:func:`style`) unless ``marker`` or ``linestyle`` is given.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    data : pandas.DataFrame
        One row per run and ``x`` value (tidy).
    x, y : str
        Columns of ``data``.
    mechanism : str
        Whose colour, marker, line style and label to use.
    interval : float, default 80
        Percent of the runs the band holds, centred.
    marker : str, default "o"
        The line's marker; the default gives way to the mechanism's own.
    label_ : str, optional
        Legend label (default :func:`label`).
    estimator : {"median", "mean"}, default "median"
        The line's statistic.
    **kw
        Passed to :func:`seaborn.lineplot` (``color=``, ``linestyle=``, ...).

    Returns
    -------
    matplotlib.axes.Axes
        ``ax``.

    Raises
    ------
    InvalidInputError
        When ``ax`` is not an Axes, ``data`` not a table, ``x`` or ``y`` not one of its columns,
        ``y`` not numbers, ``interval`` not a percentage in (0, 100], ``marker`` not a matplotlib
        marker, ``label_`` not text, ``estimator`` neither ``"median"`` nor ``"mean"``, or no table
        or registry knows ``mechanism``.
    """
    from matplotlib.markers import MarkerStyle

    as_instance(ax, Axes, "ax")
    as_instance(data, pd.DataFrame, "data")
    # x and y name columns of data: a table without them is refused naming both
    check_choice(_text(x, "x"), list(data.columns), "x (a column of data)")
    # y must be a numeric column: check_columns refuses one data does not have, naming it
    check_columns(data, "data", [_text(y, "y")], sign=None)
    _text(mechanism, "mechanism")
    interval = as_number(interval, "interval", maximum=100.0)
    as_instance(marker, str, "marker")  # "" draws no marker
    if marker:
        try:
            MarkerStyle(marker)
        except ValueError:
            raise InvalidInputError(f"marker = {marker!r}: not a matplotlib marker") from None
    if label_ is not None:
        _text(label_, "label_", lines=True)
    check_choice(estimator, ("median", "mean"), "estimator")
    c = kw.pop("color", None) or color(mechanism)
    if (
        marker == "o" and mechanism.lower() in MECHANISM_STYLES
    ):  # the mechanism's own marker and line style
        marker = MECHANISM_STYLES[mechanism.lower()].marker
        if "ls" not in kw:
            kw.setdefault("linestyle", MECHANISM_STYLES[mechanism.lower()].linestyle)
    sns.lineplot(
        data=data,
        x=x,
        y=y,
        estimator=estimator,
        errorbar=("pi", interval),
        color=c,
        marker=marker or None,
        markersize=5,
        markeredgewidth=1,
        label=label_ or label(mechanism),
        err_kws={"alpha": 0.2, "lw": 0},
        ax=ax,
        **kw,
    )
    return ax


#: where :func:`place_legends` tries a legend, in order, before it makes room above the data
_LEGEND_SPOTS = (
    "upper right",
    "upper left",
    "lower right",
    "lower left",
    "center right",
    "center left",
    "upper center",
    "lower center",
)


def legend_covers_data(ax: Axes) -> bool:
    """Whether ``ax``'s legend lies over any of its data: a line or its markers, a shaded band, a
    bar or an image (reference lines count: a reader needs them too). Judged in display coordinates
    on the drawn figure.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The axes.

    Returns
    -------
    bool
        False when it has no visible legend.

    Raises
    ------
    InvalidInputError
        When ``ax`` is not a matplotlib Axes.
    """
    as_instance(ax, Axes, "ax")
    legend = ax.get_legend()
    if legend is None or not legend.get_visible():
        return False
    # the figures are drawn on Agg canvases, which have a renderer (the base canvas class does not
    # declare it)
    renderer = ax.figure.canvas.get_renderer()  # type: ignore[attr-defined]
    box = legend.get_window_extent(renderer)
    for line in ax.get_lines():
        if line.get_visible() and line.get_transform().transform_path(
            line.get_path()
        ).intersects_bbox(box, False):
            return True
        if line.get_visible() and line.get_marker() not in (None, "", "None", " "):
            points = line.get_transform().transform(line.get_xydata())
            if box.count_contains(points):
                return True
    for collection in ax.collections:
        if not collection.get_visible():
            continue
        transform = collection.get_transform()
        if any(
            transform.transform_path(path).intersects_bbox(box, True)
            for path in collection.get_paths()
        ):
            return True
        if isinstance(collection, PathCollection):  # scatter markers sit at the offsets
            points = collection.get_offset_transform().transform(collection.get_offsets())
            if box.count_contains(points):
                return True
    artists = list(ax.patches) + list(ax.images)
    return any(a.get_visible() and a.get_window_extent(renderer).overlaps(box) for a in artists)


def place_legends(fig: Figure, *, headroom_steps: int = 4) -> list[Axes]:
    """Move every axes legend of ``fig`` that covers data to a spot that covers none: first the
    usual corners and edges; failing those, the y axis grows upwards by 15 % at a time (up to
    ``headroom_steps`` times, the lower limit kept, so an axis from 0 stays from 0) and the upper
    spots are tried again; failing that, the legend goes outside the axes, to its right. Legends
    that overlap each other are then redrawn in one column (else an error names their axes). Returns
    the axes whose legend moved. :func:`fairlib.repro.outputs.save_figure` calls it, so no saved
    figure has a legend over its data or over another legend. The figure's layout is computed once
    and then kept.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure.
    headroom_steps : int, default 4
        Times the y axis may grow by 15 % to make room.

    Returns
    -------
    list of matplotlib.axes.Axes
        The axes whose legend moved.

    Raises
    ------
    ValueError
        When legends still overlap each other after they are redrawn in one column.
    InvalidInputError
        When ``fig`` is not a matplotlib Figure or ``headroom_steps`` not a count from 0 to 100.
    """
    as_instance(fig, Figure, "fig")
    headroom_steps = as_count(headroom_steps, "headroom_steps", minimum=0, maximum=100)
    moved: list[Axes] = []
    if not any(ax.get_legend() is not None for ax in fig.axes):
        return moved
    # One layout pass, then the layout is frozen: constrained layout is not idempotent with legends
    # outside the axes (each pass shrinks the axes further), so the checks and the saves below must
    # not lay the figure out again.
    fig.canvas.draw()
    fig.set_layout_engine("none")
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is None or not legend.get_visible():
            continue
        if not legend_covers_data(ax):
            continue
        moved.append(ax)
        handles, labels = ax.get_legend_handles_labels()
        title = legend.get_title().get_text() or None
        kwargs = {"title": title, "ncols": getattr(legend, "_ncols", 1)}

        def fits(loc, **extra):
            ax.legend(handles, labels, loc=loc, **kwargs, **extra)
            fig.canvas.draw()
            return not legend_covers_data(ax)

        if any(fits(loc) for loc in _LEGEND_SPOTS):
            continue
        found = False
        for _ in range(
            0 if ax.images else headroom_steps
        ):  # an image fills its axes: no room to make
            bottom, top = ax.get_ylim()
            if ax.get_yscale() == "log":
                ax.set_ylim(bottom, top * (top / bottom) ** 0.15)
            else:
                ax.set_ylim(bottom, top + 0.15 * (top - bottom))
            if any(fits(loc) for loc in _LEGEND_SPOTS[:2] + ("upper center",)):
                found = True
                break
        if not found:
            fits("upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    _unstack_legends(fig, moved)
    return moved


# drawn-figure helpers: matplotlib's annotations type every legend, bbox and renderer as optional
# (and a canvas without a renderer), which these functions rule out by drawing the figure first, so
# they take its objects as Any
def legend_below(ax: Any, *, gap: float = 0.03, **kwargs: Any) -> Legend:
    """A legend centred under ``ax`` with its top just below the axes' tick labels and x label, as
    measured on the drawn figure (a fixed offset such as ``bbox_to_anchor=(0.5, -0.2)`` runs into
    the x label when the axes are short). ``kwargs`` go to :meth:`~matplotlib.axes.Axes.legend`;
    ``gap`` is in axes heights. The figure's layout is computed here once and then kept (as
    :func:`place_legends` does): a layout pass after the legend is placed would move the axes under
    it. A saved figure grows to hold the legend (``bbox_inches="tight"``)."""
    fig = ax.figure
    fig.canvas.draw()
    fig.set_layout_engine("none")
    if ax.get_legend() is not None:
        ax.get_legend().remove()
    bottom = ax.get_tightbbox(fig.canvas.get_renderer()).y0
    y = ax.transAxes.inverted().transform((0.0, bottom))[1] - gap
    return ax.legend(loc="upper center", bbox_to_anchor=(0.5, y), **kwargs)


def overlapping_legends(fig: Any) -> list[tuple[Any, Any]]:
    """Pairs of axes whose legends overlap each other on the drawn figure (e.g. two wide legends
    placed below neighbouring panels)."""
    renderer = fig.canvas.get_renderer()
    boxes = [
        (ax, ax.get_legend().get_window_extent(renderer))
        for ax in fig.axes
        if ax.get_legend() is not None and ax.get_legend().get_visible()
    ]
    return [
        (a, b)
        for i, (a, box_a) in enumerate(boxes)
        for b, box_b in boxes[i + 1 :]
        if box_a.overlaps(box_b)
    ]


def _unstack_legends(fig: Any, moved: list) -> None:
    """Legends that overlap each other are redrawn in one column where they stand (narrower, so side
    by side panels keep their legends apart); a pair that still overlaps is an error naming both
    axes' titles."""
    pairs = overlapping_legends(fig)
    if not pairs:
        return
    for ax in {ax for pair in pairs for ax in pair}:
        legend = ax.get_legend()
        if getattr(legend, "_ncols", 1) > 1:
            handles, labels = ax.get_legend_handles_labels()
            anchor = legend.get_bbox_to_anchor().transformed(ax.transAxes.inverted())
            ax.legend(
                handles,
                labels,
                loc=legend._loc,
                bbox_to_anchor=anchor,
                ncols=1,
                title=legend.get_title().get_text() or None,
                fontsize=legend.get_texts()[0].get_fontsize() if legend.get_texts() else None,
            )
            if ax not in moved:
                moved.append(ax)
    fig.canvas.draw()
    still = overlapping_legends(fig)
    if still:
        names = ", ".join(f"{a.get_title()!r} and {b.get_title()!r}" for a, b in still)
        raise ValueError(
            f"the legends of the axes {names} overlap each other even in one column: give "
            "the figure "
            "more width or put one legend for both"
        )


#: resource colours: greys, so a resource is never read as a mechanism (mechanisms have the
#: palette's colours)
RESOURCE_COLORS: dict[str, str] = {
    "cpu": "#4d4d4d",
    "ram": "#a6a6a6",
    "memory": "#a6a6a6",
    "storage": "#7f7f7f",
    "network": "#cccccc",
}


def resource_color(resource: str) -> str:
    """The colour of a resource (``"CPU"``, ``"RAM"``/``"memory"``, ``"storage"``, ``"network"``;
    case ignored).

    Parameters
    ----------
    resource : str
        The resource's name, case ignored.

    Returns
    -------
    str
        A grey, as a hex colour.

    Raises
    ------
    InvalidInputError
        When ``resource`` is not text, or not one of :data:`RESOURCE_COLORS`.

    Examples
    --------
    >>> resource_color("CPU") != color("drf")
    True
    """
    try:
        return RESOURCE_COLORS[_text(resource, "resource").lower()]
    except KeyError:
        raise InvalidInputError(
            f"resource = {resource!r}: no colour; known: {sorted(RESOURCE_COLORS)}"
        ) from None


def log_log_slope(x: npt.ArrayLike, y: npt.ArrayLike) -> float:
    """Least-squares slope of log(y) on log(x): the empirical scaling exponent.

    Parameters
    ----------
    x, y : array_like of float
        Positive values, same length.

    Returns
    -------
    float
        The slope.

    Raises
    ------
    InvalidInputError
        When ``x`` or ``y`` is not a 1-D array of finite positive numbers, their lengths differ, or
        ``x`` has fewer than two distinct values (no slope).

    Examples
    --------
    >>> round(log_log_slope([1, 10, 100], [2, 200, 20000]), 6)
    2.0
    """
    x = as_values(x, "x", ndim=1, sign="> 0")
    y = as_values(y, "y", ndim=1, sign="> 0", shape=(len(x),))
    if len(np.unique(x)) < 2:
        raise InvalidInputError(f"x = {x.tolist()!r}: fewer than two distinct values, no slope")
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


#: words a caption uses for a mark, and the matplotlib markers or line styles that draw it
_MARKER_WORDS = {
    "circle": ("o",),
    "square": ("s",),
    "triangle": ("^", "v", "<", ">"),
    "diamond": ("D", "d"),
    "cross": ("x", "X", "+", "P"),
    "plus": ("+", "P"),
    "star": ("*",),
}
_LINE_WORDS = {"dotted": (":",), "dashed": ("--",), "dash-dotted": ("-.",), "dash-dot": ("-.",)}
_LINESTYLE_NAMES = {
    "-": "-",
    "solid": "-",
    "--": "--",
    "dashed": "--",
    ":": ":",
    "dotted": ":",
    "-.": "-.",
    "dashdot": "-.",
}


def _linestyle_name(line: Line2D) -> str | None:
    ls = line.get_linestyle()
    if ls in _LINESTYLE_NAMES:
        return _LINESTYLE_NAMES[ls]
    return "dashed-pattern" if ls not in (None, "None", "", " ") else None


def figure_marks(fig: Figure) -> dict[str, list[str]]:
    """What ``fig`` draws, as a caption may name it: its text (titles, axis labels, tick labels,
    legend entries, annotations), the markers and the line styles of its visible lines and scatter
    points. Sorted lists, so the result is stable and can be stored
    (:func:`fairlib.repro.outputs.save_figure` writes it beside the figure).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure (drawn here).

    Returns
    -------
    dict of str to list of str
        ``{"texts": [...], "markers": [...], "linestyles": [...]}``.

    Raises
    ------
    InvalidInputError
        When ``fig`` is not a matplotlib Figure.
    """
    from matplotlib.lines import Line2D

    as_instance(fig, Figure, "fig")
    texts, markers, lines = set(), set(), set()
    fig.canvas.draw()
    texts.add(fig.get_suptitle())  # "" when there is none (dropped below)
    for ax in fig.axes:
        texts.update(t.get_text() for t in [ax.title, ax.xaxis.label, ax.yaxis.label])
        texts.update(ax.get_title(loc) for loc in ("left", "right"))
        texts.update(t.get_text() for t in ax.get_xticklabels() + ax.get_yticklabels())
        texts.update(t.get_text() for t in ax.texts)
        legend = ax.get_legend()
        artists = [a for a in ax.get_lines() if a.get_visible()]
        if legend is not None:
            texts.update(t.get_text() for t in legend.get_texts())
            texts.add(legend.get_title().get_text())
            artists += [h for h in legend.legend_handles if isinstance(h, Line2D)]
        for line in artists:
            m = line.get_marker()
            if m not in (None, "", "None", " ", "none"):
                markers.add(str(m))
            if (name := _linestyle_name(line)) is not None and np.shape(line.get_xydata())[0] != 1:
                lines.add(name)
        for coll in ax.collections:
            if (
                isinstance(coll, PathCollection)
                and coll.get_visible()
                and np.shape(coll.get_offsets())[0]
            ):
                markers.add("scatter")
    for legend in fig.legends:
        texts.update(t.get_text() for t in legend.get_texts())
    return {
        "texts": sorted(t for t in texts if t and t.strip()),
        "markers": sorted(markers),
        "linestyles": sorted(lines),
    }


def caption_problems(caption: str, marks: Mapping[str, list[str]]) -> list[str]:
    """What ``caption`` names that the figure (``marks``, :func:`figure_marks`) does not draw: a
    mark ("circles", "crosses", "dotted", ...) no line or point of the figure has, or a mechanism
    (its house label, e.g. "PS-DSF") that no text of the figure names. Empty when the caption
    describes only what is drawn.

    Parameters
    ----------
    caption : str
        The figure's caption.
    marks : dict of str to list of str
        :func:`figure_marks` of the figure.

    Returns
    -------
    list of str
        One sentence per problem.

    Raises
    ------
    InvalidInputError
        When ``caption`` is not text or shows nothing, or ``marks`` not a mapping of ``texts``,
        ``markers`` and ``linestyles`` to lists of text.

    Examples
    --------
    >>> caption_problems(
    ...     "PS-DSF (circles) against DRFH",
    ...     {"texts": ["PS-DSF", "DRFH"], "markers": ["o"], "linestyles": ["-"]},
    ... )
    []
    >>> for problem in caption_problems("dotted lines with crosses; Best-Fit DRFH",
    ...                                 {"texts": ["DRFH"], "markers": ["o"], "linestyles": ["-"]}):
    ...     print(problem)
    names crosses, but no line or point is drawn with x, X, +, P
    names dotted lines, but no line is dotted
    names 'Best-Fit DRFH', but no text of the figure does
    """
    import re

    lower = _text(caption, "caption", lines=True).lower()
    as_instance(marks, Mapping, "marks")
    for key, values in marks.items():
        check_choice(key, ("texts", "markers", "linestyles"), "marks (a key)")
        if not isinstance(values, (list, tuple)):
            raise InvalidInputError(
                f"marks[{key!r}] = {values!r}: must be a list of text, got {type(values).__name__}"
            )
        for i, value in enumerate(values):
            # a figure's empty title or label is one of its texts
            as_instance(value, str, f"marks[{key!r}][{i}]")
    problems = []
    drawn = set(marks.get("markers", []))
    for word, shapes in _MARKER_WORDS.items():
        if re.search(rf"\b{word}(e?s)?\b", lower) and not drawn & set(shapes):
            if word == "circle" and "scatter" in drawn:  # a scatter's default marker is a circle
                continue
            problems.append(
                f"names {word}{'es' if word.endswith('s') else 's'}, but no line or point is "
                f"drawn with {', '.join(shapes)}"
            )
    styles = set(marks.get("linestyles", []))
    for word, style_ in _LINE_WORDS.items():
        if (
            re.search(rf"\b{word}\b", lower)
            and not styles & set(style_)
            and "dashed-pattern" not in styles
        ):
            problems.append(f"names {word} lines, but no line is {word}")
    text = " ".join(marks.get("texts", [])).lower()
    names = sorted(set(MECHANISM_LABELS.values()) | {"Best-Fit DRFH"}, key=len, reverse=True)
    seen = set()
    for name in names:
        if name.lower() in seen:
            continue
        if re.search(rf"(?<![\w-]){re.escape(name.lower())}(?![\w-])", lower):
            seen.add(name.lower())
            if name.lower() not in text:
                problems.append(f"names {name!r}, but no text of the figure does")
    return problems
