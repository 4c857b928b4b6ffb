"""The one palette of every bnclassify figure: each colour named by what it means.

Colours are from the Okabe-Ito palette, readable by colour-blind readers. A
colour with a meaning keeps it in every figure: vermillion is always "both
trees have this edge", blue "only the first (learned, MAP) tree", bluish green
"only the second (contact) tree". Categories without a fixed meaning (classes,
models without a family, parent configurations) cycle through
:data:`CATEGORY_COLORS`.
"""

from __future__ import annotations

from numbers import Real

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import Colormap, ListedColormap, to_rgb

from ..exceptions import InvalidParameterError
from ..validation import Interval

__all__ = [
    "CATEGORY_COLORS",
    "CONTACT_CMAP",
    "OTHER_MODEL_COLORS",
    "POSTERIOR_CMAP",
    "CLASS_ARC_COLOR",
    "CLASS_BORDER",
    "CLASS_FILL",
    "EDGE_COLOR",
    "FAMILY_COLORS",
    "FEATURE_BORDER",
    "FEATURE_FILL",
    "MISSED_COLOR",
    "MODEL_COLORS",
    "SHARED_COLOR",
    "SIGNAL_COLOR",
    "TREE_A_COLOR",
    "TREE_B_COLOR",
    "TREE_OUTLINE_COLOR",
    "TRUE_COLOR",
    "FONTSIZE",
    "category_colors",
    "colormap",
    "text_color",
]

#: A figure's font size in points: its smallest labels are drawn two points smaller, and
#: beyond 200 points no figure's text fits a page (matplotlib fails on the layout).
FONTSIZE = [Interval(Real, 4, 200, closed="both")]


def colormap(cmap, name="cmap") -> Colormap:
    """The matplotlib colour map ``cmap`` names (or is), or an error naming ``name``.

    Examples
    --------
    >>> colormap("Blues").name
    'Blues'
    """
    if isinstance(cmap, Colormap):
        return cmap
    try:
        return plt.get_cmap(cmap)
    except (ValueError, TypeError):
        raise InvalidParameterError(
            f"{name} must be a matplotlib colour map or its name (e.g. 'Blues', 'magma_r'), "
            f"got {cmap!r:.40}."
        ) from None


BLUE = "#0072B2"
ORANGE = "#E69F00"
BLUISH_GREEN = "#009E73"
REDDISH_PURPLE = "#CC79A7"
SKY_BLUE = "#56B4E9"
VERMILLION = "#D55E00"
YELLOW = "#F0E442"
BLACK = "#000000"

# -- trees and their edges ---------------------------------------------------------------
SHARED_COLOR = VERMILLION  # edges both trees have
TREE_A_COLOR = BLUE  # edges only the first tree (the learned or MAP tree) has
TREE_B_COLOR = BLUISH_GREEN  # edges only the second tree (the contact tree) has
EDGE_COLOR = "#333333"  # feature edges of a single structure
CLASS_ARC_COLOR = "#B0B0B0"  # arcs from the class node: thin and grey, so the tree stands out
TREE_OUTLINE_COLOR = "#00C8FF"  # cyan: stands out on light and dark cells of magma_r
FEATURE_FILL, FEATURE_BORDER = "#E8F1FA", "#2F5D87"  # a feature node's box
CLASS_FILL, CLASS_BORDER = "#FCE6C9", "#8C5A1E"  # the class node's box

# -- signal subgraphs --------------------------------------------------------------------
SIGNAL_COLOR = BLUE  # estimated signal edges
MISSED_COLOR = VERMILLION  # true signal edges the estimate missed
TRUE_COLOR = BLACK  # true signal edges the estimate holds

# -- models ------------------------------------------------------------------------------
#: Colour of each model family in cross-validation figures drawn against a baseline.
FAMILY_COLORS = {
    "NB": BLACK,
    "TAN": BLUE,
    "Simpler TAN": BLUISH_GREEN,
    "ensemble": ORANGE,
    "KDB/AODE": REDDISH_PURPLE,
    "BMA": VERMILLION,
    "other": "#999999",
}

#: Models of no known family: the Okabe-Ito colours no family has, then grey.
OTHER_MODEL_COLORS = [SKY_BLUE, YELLOW, "#999999"]

# -- matrices ----------------------------------------------------------------------------
#: Contact counts, in every figure: greys cut at 70%, so the darkest cell stays mid-grey
#: and the tree outlines drawn on it (blue, bluish green, vermillion) show.
CONTACT_CMAP = ListedColormap(plt.get_cmap("Greys")(np.linspace(0.0, 0.7, 256)), name="contacts")
#: Edge posterior probabilities: purples, on which the tree outlines show (not on blues).
POSTERIOR_CMAP = "Purples"

#: One colour per category where categories have no fixed meaning, in this order.
CATEGORY_COLORS = [BLUE, ORANGE, BLUISH_GREEN, REDDISH_PURPLE, SKY_BLUE, VERMILLION, YELLOW]

#: The bars of :func:`~bnclassify.plotting.plot_cv_results` before they took their
#: family's colour; kept importable for figures drawn in the former colours.
MODEL_COLORS = CATEGORY_COLORS


def category_colors(n) -> list:
    """``n`` colours from :data:`CATEGORY_COLORS`, cycling when ``n`` exceeds seven.

    Examples
    --------
    >>> category_colors(2)
    ['#0072B2', '#E69F00']
    """
    return [CATEGORY_COLORS[k % len(CATEGORY_COLORS)] for k in range(n)]


def text_color(rgba) -> str:
    """Black or white, whichever reads better on ``rgba``.

    Examples
    --------
    >>> text_color("white"), text_color("#0072B2")
    ('black', 'white')
    """
    r, g, b = to_rgb(rgba)
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.55 else "white"
