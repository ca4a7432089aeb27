"""The house figure style: no saved legend covers data (fairlib.repro.plotting.place_legends, called
by save_figure)."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402


def test_a_legend_over_a_band_is_moved_clear_of_the_data():
    """The case of a correlated-bids panel: a band fills the upper right and the middle; the legend
    moves to a spot (or, if none is free, to new headroom above the data) that covers no line,
    marker or band."""
    from fairlib.repro.plotting import legend_covers_data, new_figure, place_legends

    fig, ax = new_figure("a band under the legend")
    x = np.linspace(0, 150, 20)
    ax.plot(x, np.full(20, 500.0), marker="s", label="convergence")
    ax.fill_between(x, 50, 500, alpha=0.2, label="10th-90th percentile")
    ax.plot(x, np.full(20, 60.0), label="stabilisation")
    ax.legend(loc="center right")
    fig.canvas.draw()
    assert legend_covers_data(ax)
    bottom = ax.get_ylim()[0]
    assert place_legends(fig) == [ax]
    assert not legend_covers_data(ax)
    assert ax.get_ylim()[0] == bottom  # headroom only above: an axis from 0 stays from 0
    plt.close(fig)


def test_a_legend_clear_of_the_data_stays_where_it_is_and_a_full_axes_sends_it_outside():
    from fairlib.repro.plotting import legend_covers_data, new_figure, place_legends

    fig, ax = new_figure("clear")
    ax.plot([0, 1], [0, 1], label="diagonal")
    ax.legend(loc="upper left")
    assert place_legends(fig) == [] and ax.get_legend()._loc == 2
    plt.close(fig)

    fig, ax = new_figure("an image fills the axes")
    ax.imshow(np.arange(16.0).reshape(4, 4), label="heat")
    ax.plot([0, 3], [0, 3], label="line")
    ax.legend(loc="upper right")
    assert place_legends(fig) == [ax]
    fig.canvas.draw()
    assert not legend_covers_data(ax)
    assert (
        ax.get_legend().get_window_extent().x0 > ax.get_window_extent().x1
    )  # to the right of the axes
    plt.close(fig)


def test_legends_outside_the_axes_keep_the_layout(tmp_path):
    """Legends below two panels (as the speed figures place them): checking them lays the figure out
    once and keeps that layout, so saving PNG and PDF does not shrink the axes pass after pass
    (constrained layout is not idempotent with legends outside the axes)."""
    from fairlib.repro.plotting import new_figure, place_legends

    fig, axes = new_figure("two panels, legends below", ncols=2, width=11)
    for ax in axes[0]:
        for k in range(6):
            ax.plot(
                [1e3, 1e4, 1e5],
                [1e-3 * (k + 1), 1e-2 * (k + 1), 1e-1 * (k + 1)],
                marker="o",
                label=f"a fairly long legend label {k} (slope 1.00)",
            )
        ax.set_xscale("log")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2)
    place_legends(fig)  # the two-column legends overlap each other: redrawn in one column
    widths = [ax.get_position().width for ax in axes[0]]
    for ext in ("png", "pdf", "png"):
        fig.savefig(tmp_path / f"f.{ext}", bbox_inches="tight")
    assert [ax.get_position().width for ax in axes[0]] == widths and min(widths) > 0.1
    plt.close(fig)


def test_two_wide_legends_below_neighbouring_panels_are_redrawn_apart():
    """The case of a two-panel speed figure: each panel's two-column legend below it ran into its
    neighbour's."""
    from fairlib.repro.plotting import overlapping_legends, place_legends, use_style

    use_style()  # side by side on purpose (new_figure would stack two panels this wide)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.4), squeeze=False, layout="constrained")
    for ax in axes[0]:
        for k in range(6):
            ax.plot([1, 2], [k, k + 1], label=f"a long mechanism name number {k} (slope 0.{k}{k})")
        ax.legend(fontsize=9, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=3)
    fig.canvas.draw()
    assert overlapping_legends(fig)
    place_legends(fig)
    assert not overlapping_legends(fig)
    assert all(ax.get_legend()._ncols == 1 for ax in axes[0])
    plt.close(fig)


def test_a_legend_below_starts_under_the_x_label():
    from fairlib.repro.plotting import legend_below, new_figure

    fig, axes = new_figure("short panels", ncols=2, width=11)
    for ax in axes[0]:
        for k in range(5):
            ax.plot([1, 2], [k, k + 1], label=f"series {k}")
        ax.set_xlabel("a long x label that a fixed offset would run into")
    for ax in axes[0]:
        legend_below(ax, fontsize=9)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for ax in axes[0]:
        assert (
            ax.get_legend().get_window_extent(renderer).y1
            < ax.xaxis.label.get_window_extent(renderer).y0
        )
    plt.close(fig)


def test_an_unknown_mechanism_or_resource_is_refused_by_name():
    """``color("nope")`` raised a KeyError and ``resource_color("fpga")`` a plain ValueError: a name
    no table or registry knows is bad input, refused naming the argument."""
    import pandas as pd

    from fairlib._validate import InvalidInputError
    from fairlib.repro import plotting

    for lookup in (plotting.color, plotting.style, plotting.marker, plotting.linestyle):
        with pytest.raises(InvalidInputError, match=r"^mechanism = 'nope': no house colour"):
            lookup("nope")
    with pytest.raises(InvalidInputError, match=r"^resource = 'fpga': no colour; known:"):
        plotting.resource_color("fpga")
    fig, ax = plt.subplots()
    try:
        with pytest.raises(InvalidInputError, match=r"^mechanism = 'nope': no house colour"):
            plotting.spread_band(ax, pd.DataFrame({"x": [1], "y": [1.0]}), "x", "y", "nope")
    finally:
        plt.close(fig)


def test_a_title_may_span_lines_but_must_show():
    """A two-line title is how a long figure title fits the page; one that shows nothing, or holds
    a tab, is a mistake."""
    import matplotlib.pyplot as plt

    from fairlib._validate import InvalidInputError
    from fairlib.repro.plotting import new_figure

    fig, _ = new_figure("Fig. 1: utilisation\nwhiskers: lowest to highest")
    plt.close(fig)
    for bad, message in (("\u200b", "blank"), ("a\tb", "control character")):
        with pytest.raises(InvalidInputError, match=rf"^title = .*{message}"):
            new_figure(bad)
