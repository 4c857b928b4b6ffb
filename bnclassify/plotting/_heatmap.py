"""A heatmap of a feature x feature weight matrix: conditional mutual information or contacts."""

from __future__ import annotations

import itertools
from numbers import Real

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import PowerNorm
from matplotlib.patches import Rectangle

from ..structure import tree_from_weights
from ..validation import FORMAT, Interval, check_parameter, float_array
from ._palette import FONTSIZE, TREE_OUTLINE_COLOR, colormap, text_color
from ._readback import tag

__all__ = ["plot_weights"]

#: The largest figure a heatmap gets (inches, width x height): a cell per feature pair at a
#: readable size up to about 24 features, smaller cells beyond (300 features once asked for a
#: 187 x 166 inch figure, 300 million pixels).
MAX_FIGURE = (16.0, 14.0)
#: ``annotate="auto"`` writes the values up to this many features (cells of about half an
#: inch); beyond, numbers would not fit their cells and 90,000 of them take minutes to draw.
MAX_ANNOTATED = 30
#: At most this many tick labels per axis (every k-th feature beyond).
MAX_TICK_LABELS = 60


def plot_weights(
    matrix,
    *,
    ax=None,
    diagonal=False,
    annotate="auto",
    fmt=None,
    cmap="magma_r",
    vmax_scale=1.0,
    gamma=1.0,
    outline_tree=False,
    title=None,
    colorbar=True,
    colorbar_label=None,
    fontsize=9,
):
    """A heatmap of a feature x feature weight matrix (CMI or contact counts).

    Darker is stronger with the default colour map.

    Parameters
    ----------
    matrix : DataFrame, array of shape (m, m) or fitted model
        A model's ``weights_`` is drawn (an error for naive Bayes, which has none).
        An array's features are labelled ``0 .. m-1``.
    ax : matplotlib Axes, optional
    diagonal : bool, default=False
        Show the diagonal. Off by default: a contact matrix's diagonal (contacts
        inside a block) dwarfs the rest, and the CMI diagonal is meaningless.
    annotate : bool or "auto", default="auto"
        Write each value in its cell; ``"auto"``: up to ``MAX_ANNOTATED``
        features, where the numbers fit their cells (``True`` writes them for
        any size, about 1 s per 1,000 cells).
    fmt : str, optional
        Format spec of the annotations (default: integers as integers, else
        as many decimals as give the largest value 3 significant digits).
    cmap : str or Colormap, default="magma_r"
        Light (weak) to dark (strong).
    vmax_scale : float, default=1.0
        The colour scale ends at ``vmax_scale`` times the largest shown value
        (above 1 keeps the darkest cells lighter, so marks on them stay visible).
    gamma : float, default=1.0
        Colour scale ``(w / vmax) ** gamma`` (a :class:`~matplotlib.colors.PowerNorm`
        from 0, at most 100): below 1 it spreads the small values, so that one
        large cell does not leave every other cell the same colour; the colour
        bar's label says so ("square-root colour scale" for 0.5).
    outline_tree : bool, default=False
        Outline the cells of the matrix's maximum spanning tree
        (:func:`~bnclassify.structure.tree_from_weights`; both triangles),
        tagged ``"tree"`` for :func:`~bnclassify.plotting.drawn_edges`.
    title : str, optional
    colorbar : bool, default=True
    colorbar_label : str, optional
    fontsize : float, default=9

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from bnclassify.datasets import load_p450
    >>> from bnclassify.plotting import plot_weights
    >>> ax = plot_weights(load_p450().contact_matrix)
    >>> [t.get_text() for t in ax.get_xticklabels()][:3]
    ['block1', 'block2', 'block3']
    """
    check_parameter(fontsize, "fontsize", FONTSIZE)
    cmap = colormap(cmap)
    if hasattr(matrix, "fit") and not isinstance(matrix, pd.DataFrame):
        model = matrix
        matrix = getattr(model, "weights_", None)
        if matrix is None:
            raise ValueError(f"{type(model).__name__} has no weights_ to plot.")
    try:
        frame = matrix if isinstance(matrix, pd.DataFrame) else pd.DataFrame(np.asarray(matrix))
    except ValueError:  # ragged rows
        raise ValueError(
            "matrix must be a square table of numbers; its rows differ in length."
        ) from None
    check_parameter(vmax_scale, "vmax_scale", [Interval(Real, 0, None, closed="neither")])
    check_parameter(fmt, "fmt", FORMAT)
    if frame.shape[0] != frame.shape[1] or frame.shape[0] == 0:
        raise ValueError(f"matrix must be square and non-empty, got shape {frame.shape}.")
    values = float_array(frame, "matrix")
    shown = np.ma.masked_array(values, mask=np.isnan(values))  # NaN: no value, left out
    if not diagonal:
        np.fill_diagonal(shown.mask, True)
    check_parameter(gamma, "gamma", [Interval(Real, 0, MAX_GAMMA, closed="right")])
    m = len(frame)
    if annotate == "auto":
        annotate = m <= MAX_ANNOTATED
    if ax is None:
        size = (min(1.2 + 0.62 * m, MAX_FIGURE[0]), min(0.6 + 0.55 * m, MAX_FIGURE[1]))
        _, ax = plt.subplots(figsize=size, layout="constrained")
    # the colour scale spans the finite values: an infinite weight takes its end's colour
    finite = shown.compressed()[np.isfinite(shown.compressed())]
    # weights near the float maximum: the colours (and the colour bar's ticks, which add
    # neighbouring values) are computed in units of a power of ten, which the bar's label says
    exponent = _colour_exponent(finite, vmax_scale)
    unit = 10.0**exponent
    # (masked cells too: a masked division keeps their unscaled data, which matplotlib reads)
    coloured = np.ma.masked_array(values / unit, mask=shown.mask) if exponent else shown
    finite = finite / unit if exponent else finite
    top = float(finite.max()) if finite.size else 1.0
    negative = bool(shown.count()) and shown.min() < 0
    vmin = float(finite.min()) if negative and finite.size else 0.0
    scale_note = None
    if gamma != 1.0:
        if negative:
            raise ValueError("gamma other than 1 needs non-negative weights.")
        norm = PowerNorm(gamma, vmin=0.0, vmax=top * vmax_scale)
        scale_note = "square-root colour scale" if gamma == 0.5 else f"colour scale w^{gamma:g}"
        limits = {"norm": norm}
    else:
        limits = {"vmin": vmin, "vmax": top * vmax_scale}
    image = ax.imshow(coloured, cmap=plt.get_cmap(cmap).with_extremes(bad="white"), **limits)
    for i, j in np.argwhere(shown.mask):  # left-out cells: hatched, unlike any value
        ax.add_patch(
            Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, hatch="///", edgecolor="#CCCCCC", lw=0)
        )
    every = -(-m // MAX_TICK_LABELS)  # ceil: every k-th feature's label on a wide matrix
    ticks = range(0, m, every)
    ax.set_xticks(
        ticks, [str(frame.columns[k]) for k in ticks], rotation=45, ha="right", fontsize=fontsize
    )
    ax.set_yticks(ticks, [str(frame.index[k]) for k in ticks], fontsize=fontsize)
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    if annotate:
        cell_format = _cell_format(shown.compressed())
        for i, j in itertools.product(range(len(frame)), repeat=2):
            if shown.mask[i, j]:
                continue
            text = format(values[i, j], fmt) if fmt else cell_format.format(values[i, j])
            ax.text(
                j,
                i,
                text,
                ha="center",
                va="center",
                fontsize=fontsize - 1,
                color=text_color(image.cmap(image.norm(values[i, j] / unit))),
            )
    if outline_tree:
        tree_values = np.where(np.eye(len(frame), dtype=bool), 0.0, values)
        for u, v in tree_from_weights(tree_values).edges:
            for row, col in ((u, v), (v, u)):
                cell = Rectangle(
                    (col - 0.5 + 0.05, row - 0.5 + 0.05),
                    0.9,
                    0.9,
                    fill=False,
                    linewidth=2.6,
                    edgecolor=TREE_OUTLINE_COLOR,
                    zorder=4,
                )
                ax.add_patch(tag(cell, (frame.index[min(u, v)], frame.index[max(u, v)]), "tree"))
    if colorbar:
        bar = ax.figure.colorbar(image, ax=ax, shrink=0.8, pad=0.02)
        bar.ax.tick_params(labelsize=fontsize - 1)
        label = colorbar_label
        if exponent:
            scale_note = ", ".join(filter(None, [f"× 1e{exponent}", scale_note]))
        if scale_note:
            label = f"{label} ({scale_note})" if label else scale_note
        if label:
            bar.set_label(label, fontsize=fontsize)
    if title is not None:
        ax.set_title(title, fontsize=fontsize + 2)
    return ax


#: The largest colour-scale power: beyond it every cell but the largest is white, and the
#: colour bar's ends (a few percent past 1) overflow when raised to it.
MAX_GAMMA = 100.0
#: Colour scales end below this: matplotlib's colour bar adds neighbouring boundaries.
MAX_COLOUR_VALUE = 1e300


def _colour_exponent(finite, vmax_scale) -> int:
    """The power of ten the colours are computed in: 0, unless the scale's end (the largest
    finite value times ``vmax_scale``) would reach :data:`MAX_COLOUR_VALUE`."""
    if not finite.size:
        return 0
    largest = float(np.abs(finite).max())
    if largest == 0:
        return 0
    end = np.log10(largest) + np.log10(vmax_scale)
    return 0 if end < np.log10(MAX_COLOUR_VALUE) else int(np.floor(end))


#: Cells at least this large are written with 3 significant digits and an exponent.
LARGE_CELL = 1e6
#: ... and so are cells all smaller than this (six decimals would show only zeros).
SMALL_CELL = 1e-4


def _cell_format(values):
    """Integers as integers; otherwise enough decimals for 3 significant digits of the largest."""
    finite = values[np.isfinite(values)]
    top = np.abs(finite).max() if finite.size else 0.0
    if top >= LARGE_CELL or 0 < top < SMALL_CELL:  # 300 digits would not fit a cell
        return "{:.3g}"
    if finite.size == 0 or np.all(finite == np.round(finite)):
        return "{:.0f}"
    decimals = 2 if top == 0 else int(np.clip(2 - np.floor(np.log10(top)), 0, 6))
    return f"{{:.{decimals}f}}"
