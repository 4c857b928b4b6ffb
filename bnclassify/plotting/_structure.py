"""A classifier's structure: the class node apart, the feature tree laid out from its root."""

from __future__ import annotations

from numbers import Real

import matplotlib.pyplot as plt
import networkx as nx
import numpy as np

from ..validation import FORMAT, check_parameter
from ._dag import plot_dag
from ._layout import (
    UNIT_INCHES,
    feature_graph,
    label_widths,
    node_text,
    spread_rows,
    structure_of,
    tree_layout,
)
from ._palette import (
    CLASS_ARC_COLOR,
    EDGE_COLOR,
    FONTSIZE,
)
from ._readback import tag
from ._router import EdgeLabel, RoutedArrow, Router
from ._views import members_summary, network_view

__all__ = ["plot_structure"]


#: The largest figure a structure gets (inches): a readable box per node up to about 40
#: features in a row; a 300-feature tree once asked for a 133-inch-wide figure.
MAX_FIGURE = (40.0, 30.0)


def _edge_widths(edges, lookup, lo=1.2, hi=5.5):
    """Line width of each edge, linear in its weight between ``lo`` and ``hi``.

    An infinite weight is the widest (``+inf``) or the narrowest (``-inf``); a missing one
    (None, NaN) gets the width of an unweighted edge.
    """
    if lookup is None or not edges:
        return [2.0] * len(edges), [None] * len(edges)
    values = [lookup(u, v) for u, v in edges]
    known = [w for w in values if w is not None and np.isfinite(w)]
    top = max(known, default=0.0)

    def width(w):
        if w is None or np.isnan(w):
            return 2.0
        if np.isinf(w):
            return hi if w > 0 else lo
        return 2.0 if top <= 0 else lo + (hi - lo) * (max(w, 0.0) / top)

    return [width(w) for w in values], values


def format_weight(w, fmt=None):
    """An edge's weight label: integers as integers, else 3 significant digits, zeros kept.

    Every label of a figure then has the same precision: 0.0101 beside
    0.00960, not "0.01" beside "0.0096".

    Examples
    --------
    >>> [format_weight(w) for w in (0.0101, 0.0096, 0.0727, 65.0, 12.25, 1234.5)]
    ['0.0101', '0.00960', '0.0727', '65', '12.2', '1234']

    A weight that is not a finite real number is written as it is:

    >>> [format_weight(w) for w in (float("nan"), float("-inf"), "strong", 1 + 2j)]
    ['nan', '-inf', 'strong', '(1+2j)']
    """
    if w is None:
        return None
    check_parameter(fmt, "weight_format", FORMAT)
    if isinstance(w, bool) or not isinstance(w, Real):
        return str(w)  # a label, a flag, pd.NA, a complex number: nothing to round
    w = float(w)
    if not np.isfinite(w):
        return str(w)
    if fmt is not None:
        return format(w, fmt)
    if w.is_integer() or abs(w) >= 100:
        return f"{w:.0f}"
    return format(w, "#.3g").rstrip(".")


def plot_structure(
    model_or_graph,
    *,
    ax=None,
    class_node=None,
    weights=None,
    root=None,
    show_class=True,
    show_weights=True,
    weight_format=None,
    edge_colors=None,
    title=None,
    fontsize=10,
    member=None,
):
    """Draw a classifier's structure: the class node apart, the feature tree from its root.

    A network in which the class is an ordinary node (it has parents, or some
    feature is not its child: a :class:`~bnclassify.BayesNetClassifier`) is
    drawn by :func:`plot_dag`, in layers with the class's Markov blanket
    highlighted.

    Feature edges are drawn as arrows from parent to child whose width grows
    with the edge's weight (conditional mutual information for TAN, contact
    count for Simpler TAN), labelled with the weight; the class node sits
    above the tree and its arcs to every feature are drawn thin and grey so
    that the tree stands out.

    Parameters
    ----------
    model_or_graph : fitted bnclassify classifier or networkx graph
        A model's ``structure_``, ``class_node_`` and ``weights_`` are used.
        An ensemble (:class:`~bnclassify.EnsembleTAN`, :class:`~bnclassify.AODE`)
        is drawn through one of its members (see ``member``), and
        :class:`~bnclassify.ESKDB` by default as the arcs of all its members
        (its ``structure_``: each arc labelled with the share of members that
        have it, class arcs to every feature; arcs of different members may run
        both ways); a
        :class:`~bnclassify.SignalSubgraphClassifier` as the naive Bayes it is,
        one binary feature per signal edge (``"i-j"``, or ``"i->j"`` when
        directed) under the class node ``"y"``.
        A ``DiGraph`` is drawn as it is; an undirected ``Graph`` (e.g. from
        :func:`~bnclassify.structure.tree_from_weights`) without arrowheads.
    ax : matplotlib Axes, optional
        Drawn on a new figure sized to the tree by default.
    class_node : node or False, optional
        The class node of a graph (default: ``graph.graph["class_node"]``, else
        the one node with an arc to every other node and no parent, if any);
        ``False`` for none. Ignored for a model.
    weights : DataFrame or dict, optional
        Edge weights (a feature x feature DataFrame, or a dict keyed by
        ``frozenset({u, v})``); default: the model's ``weights_`` or the
        graph's ``weight`` edge attributes.
    root : node, optional
        For an undirected graph, the node to lay the tree out from.
    show_class : bool, default=True
        Draw the class node and its arcs.
    show_weights : bool, default=True
        Write each feature edge's weight at its middle.
    weight_format : str, optional
        Format spec for the weights (default: integers as integers, else 3
        significant digits, trailing zeros kept).
    edge_colors : dict, optional
        Colour of particular feature edges, keyed by ``frozenset({u, v})``;
        the others are dark grey.
    title : str, optional
        Default: none, or which member is drawn for an ensemble.
    fontsize : float, default=10
    member : int, optional
        For an ensemble, the position of the member in ``estimators_`` whose
        structure is drawn (members differ in their trees, so no single
        structure is the ensemble's). Default: the ensemble's summary of its
        members' arcs where it has one (:class:`~bnclassify.ESKDB`), else
        member 0.

    Returns
    -------
    matplotlib.axes.Axes
        Read the drawn edges back with :func:`~bnclassify.plotting.drawn_edges`.

    Examples
    --------
    >>> from bnclassify import TAN
    >>> from bnclassify.datasets import load_p450
    >>> from bnclassify.plotting import drawn_edges, plot_structure
    >>> X, y = load_p450(return_X_y=True)
    >>> ax = plot_structure(TAN().fit(X, y))
    >>> sorted(drawn_edges(ax, role="feature"))[:2]
    [('block1', 'block4'), ('block1', 'block7')]
    """
    check_parameter(fontsize, "fontsize", FONTSIZE)
    check_parameter(weight_format, "weight_format", FORMAT)
    graph, class_node, lookup = structure_of(model_or_graph, class_node, weights, member)
    if (
        class_node is not None
        and graph.is_directed()
        and (graph.in_degree(class_node) or graph.out_degree(class_node) < len(graph) - 1)
    ):  # the class an ordinary node (a BayesNetClassifier): the DAG in layers
        return plot_dag(graph, ax=ax, class_node=class_node, title=title, fontsize=fontsize)
    if title is None and not isinstance(model_or_graph, nx.Graph):
        summary = members_summary(model_or_graph, member)
        title = summary[2] if summary else network_view(model_or_graph, member or 0).title
    features = feature_graph(graph, class_node)
    if root is not None and root not in features:
        raise ValueError(f"root={root!r} is not a feature node; features: {list(features)}.")
    widths = label_widths(features.nodes, fontsize)
    pos = spread_rows(tree_layout(features, root, widths), widths)
    n_cols = 1 + max((x for x, _ in pos.values()), default=0.0)
    depth = -min((y for _, y in pos.values()), default=0.0)
    if class_node is not None and show_class:
        pos[class_node] = (
            (n_cols - 1) / 2 if features.number_of_nodes() else 0.0,
            1.15 if depth < 1 else 1.35,
        )
    # Side room for class arcs that bulge around the tree: more for deep, narrow trees.
    margin = 0.6
    if class_node is not None and show_class:
        margin = 0.85 + 0.25 * max(0.0, depth + 1 - n_cols / 1.5)
    # the outermost boxes must fit inside the axes, however long their labels
    widths.update(label_widths([class_node], fontsize) if class_node in pos else {})
    left = min((x - widths[v] / 2 - 0.1 for v, (x, _) in pos.items()), default=0.0)
    right = max((x + widths[v] / 2 + 0.1 for v, (x, _) in pos.items()), default=0.0)
    xs = [p[0] for p in pos.values()] or [0.0]
    x_lo, x_hi = min(min(xs) - margin, left), max(max(xs) + margin, right)
    if ax is None:
        _, ax = plt.subplots(
            figsize=(
                min(max(5.0, UNIT_INCHES * (x_hi - x_lo) + 0.4), MAX_FIGURE[0]),
                min(max(3.0, 1.25 * (depth + 2) + 0.4), MAX_FIGURE[1]),
            ),
            layout="constrained",
        )
    ys = [p[1] for p in pos.values()] or [0.0]
    ax.set_xlim(x_lo, x_hi)
    ax.set_ylim(min(ys) - 0.45, max(ys) + 0.45)
    texts = {v: node_text(ax, v, pos[v], is_class=v == class_node, fontsize=fontsize) for v in pos}
    arrowstyle = "-|>" if graph.is_directed() else "-"
    class_arcs = []
    if class_node is not None and show_class:
        targets = (
            graph.successors(class_node) if graph.is_directed() else graph.neighbors(class_node)
        )
        class_arcs = [(class_node, v) for v in targets]
    feature_edges = list(features.edges)
    router = Router(ax, texts, class_arcs + feature_edges, feature_edges)
    for edge in class_arcs:
        arc = RoutedArrow(
            router,
            edge,
            patchA=texts[edge[0]].get_bbox_patch(),
            patchB=texts[edge[1]].get_bbox_patch(),
            arrowstyle=arrowstyle,
            mutation_scale=9,
            linewidth=0.8,
            linestyle=(0, (4, 3)),
            color=CLASS_ARC_COLOR,
            shrinkA=1,
            shrinkB=1,
            zorder=1,
        )
        ax.add_patch(tag(arc, edge, "class"))
    widths, values = _edge_widths(feature_edges, lookup)
    if edge_colors is not None and not isinstance(edge_colors, dict):
        raise TypeError(
            "edge_colors must be a dict {frozenset({u, v}): colour}, got "
            f"{type(edge_colors).__name__} {edge_colors!r:.40}."
        )
    edge_colors = edge_colors or {}
    for edge, width, value in zip(feature_edges, widths, values, strict=True):
        color = edge_colors.get(frozenset(edge), EDGE_COLOR)
        arrow = RoutedArrow(
            router,
            edge,
            patchA=texts[edge[0]].get_bbox_patch(),
            patchB=texts[edge[1]].get_bbox_patch(),
            arrowstyle=arrowstyle,
            mutation_scale=9 + 1.8 * width,
            linewidth=width,
            color=color,
            shrinkA=2,
            shrinkB=2,
            zorder=4,
        )
        ax.add_patch(tag(arrow, edge, "feature"))
        label = format_weight(value, weight_format) if show_weights else None
        if label is not None:
            ax.add_artist(
                EdgeLabel(
                    router,
                    edge,
                    text=label,
                    ha="center",
                    va="center",
                    fontsize=fontsize - 2,
                    color=color,
                    zorder=5,
                    bbox={"boxstyle": "round,pad=0.1", "facecolor": "white", "edgecolor": "none"},
                )
            )
    ax.set_axis_off()
    if title is not None:
        ax.set_title(title, fontsize=fontsize + 1)
    return ax
