"""A general network's DAG in layers, the class node and its Markov blanket highlighted."""

from __future__ import annotations

import matplotlib.pyplot as plt
import networkx as nx

from ..structure import markov_blanket
from ..validation import check_parameter
from ._layout import UNIT_INCHES, label_widths, node_text, spread_rows, structure_of
from ._palette import BLUISH_GREEN, CLASS_ARC_COLOR, EDGE_COLOR, FONTSIZE
from ._readback import tag
from ._router import RoutedArrow, Router

__all__ = ["plot_dag"]

#: Fill of a node in the class's Markov blanket.
BLANKET_FILL = "#CFEFE4"
#: Border of a node in the class's Markov blanket.
BLANKET_BORDER = BLUISH_GREEN
#: Fill and border of a node outside it (when the blanket is shown).
OUTSIDE = ("#FFFFFF", "#9A9A9A")
#: The largest figure (inches).
MAX_FIGURE = (40.0, 30.0)


def _layers(graph) -> list:
    """The nodes in layers (each node below all its parents), ordered within each layer by
    the mean position of its parents in the layer above (ties by name) to cut crossings."""
    generations = [sorted(g, key=str) for g in nx.topological_generations(graph)]
    place = {}
    for depth, layer in enumerate(generations):
        if depth:
            layer.sort(key=lambda v: (_mean([place[p] for p in graph.predecessors(v)]), str(v)))
        place.update({v: k for k, v in enumerate(layer)})
    return generations


def _mean(values) -> float:
    return sum(values) / len(values) if values else 0.0


def plot_dag(
    model_or_graph,
    *,
    ax=None,
    class_node=None,
    show_blanket=True,
    title=None,
    fontsize=10,
):
    """Draw a Bayesian network in layers, the class node and its Markov blanket highlighted.

    Every node sits below its parents (the layers are the DAG's topological
    generations); the class node is filled as in :func:`plot_structure`, the
    nodes of its Markov blanket (its parents, its children and their other
    parents: all a complete row is classified by) are filled light green, the
    others white, and
    the arcs among the class and its blanket that the class's posterior reads
    (into the class, out of it, into its children) are drawn dark and thick,
    the others thin and grey.

    Parameters
    ----------
    model_or_graph : fitted bnclassify classifier or networkx.DiGraph
        A model's ``structure_`` and ``class_node_`` (a
        :class:`~bnclassify.BayesNetClassifier`, or any single-network model,
        whose blanket is every feature); or a DAG.
    ax : matplotlib Axes, optional
    class_node : node, optional
        The class node of a graph (default: ``graph.graph["class_node"]``, else
        none: no highlight). Ignored for a model.
    show_blanket : bool, default=True
        Fill the blanket's nodes and draw its arcs dark.
    title : str, optional
    fontsize : float, default=10

    Returns
    -------
    matplotlib.axes.Axes
        :func:`~bnclassify.plotting.drawn_edges` reads the arcs back: role
        ``"blanket"`` for the arcs the class's posterior reads, ``"feature"``
        for the others; each node label carries ``bnclassify_node`` and
        ``bnclassify_blanket`` (whether it is in the blanket).

    Examples
    --------
    >>> from bnclassify import BayesNetClassifier
    >>> from bnclassify.datasets import load_car
    >>> from bnclassify.plotting import drawn_edges, plot_dag
    >>> X, y = load_car(return_X_y=True)
    >>> model = BayesNetClassifier(score_type="bic").fit(X, y)
    >>> ax = plot_dag(model)
    >>> sorted(drawn_edges(ax, role="blanket")) == sorted(model.structure_.edges)
    True
    """
    check_parameter(fontsize, "fontsize", FONTSIZE)
    if isinstance(model_or_graph, nx.Graph):
        if not model_or_graph.is_directed():
            raise TypeError("plot_dag draws a directed graph (a networkx DiGraph).")
        if class_node is None:
            class_node = model_or_graph.graph.get("class_node")
    graph, class_node, _ = structure_of(model_or_graph, class_node if class_node else False)
    if class_node is not None and class_node not in graph:
        raise ValueError(f"class_node {class_node!r} is not a node of the graph.")
    blanket = set()
    read = set()  # the arcs of the class's family and of its children's families
    if class_node is not None:
        blanket = set(markov_blanket(graph, class_node))
        children = set(graph.successors(class_node))
        read = {(u, v) for u, v in graph.edges if v == class_node or v in children}
    layers = _layers(graph)
    widths = label_widths(graph.nodes, fontsize)
    pos = spread_rows(
        {
            v: (float(k), -float(depth))
            for depth, layer in enumerate(layers)
            for k, v in enumerate(layer)
        },
        widths,
    )
    # centre each layer on the widest one
    span = max((max(x for v, (x, _) in pos.items() if v in layer) for layer in layers), default=0.0)
    for layer in layers:
        xs = [pos[v][0] for v in layer]
        shift = (span - (max(xs) - min(xs))) / 2 - min(xs)
        for v in layer:
            pos[v] = (pos[v][0] + shift, pos[v][1])
    if ax is None:
        _, ax = plt.subplots(
            figsize=(
                min(max(5.0, UNIT_INCHES * (span + 2) + 0.4), MAX_FIGURE[0]),
                min(max(3.0, 1.25 * (len(layers) + 1) + 0.4), MAX_FIGURE[1]),
            ),
            layout="constrained",
        )
    xs = [x for x, _ in pos.values()] or [0.0]
    left = min((x - widths[v] / 2 for v, (x, _) in pos.items()), default=0.0)
    right = max((x + widths[v] / 2 for v, (x, _) in pos.items()), default=0.0)
    ax.set_xlim(min(min(xs) - 0.6, left - 0.1), max(max(xs) + 0.6, right + 0.1))
    ax.set_ylim(-len(layers) + 0.55, 0.45)
    texts = {}
    for v, xy in pos.items():
        fill = border = None  # the palette's: the class's, or a feature's
        if show_blanket and class_node is not None and v != class_node:
            fill, border = (BLANKET_FILL, BLANKET_BORDER) if v in blanket else OUTSIDE
        texts[v] = node_text(
            ax, v, xy, is_class=v == class_node, fontsize=fontsize, fill=fill, border=border
        )
        texts[v].bnclassify_blanket = v in blanket
    edges = list(graph.edges)
    router = Router(ax, texts, edges, edges)
    for edge in edges:
        strong = show_blanket and edge in read
        arrow = RoutedArrow(
            router,
            edge,
            patchA=texts[edge[0]].get_bbox_patch(),
            patchB=texts[edge[1]].get_bbox_patch(),
            arrowstyle="-|>",
            mutation_scale=12 if strong else 9,
            linewidth=2.2 if strong else 0.9,
            color=EDGE_COLOR if strong else CLASS_ARC_COLOR,
            shrinkA=2,
            shrinkB=2,
            zorder=4 if strong else 2,
        )
        ax.add_patch(tag(arrow, edge, "blanket" if edge in read else "feature"))
    ax.set_axis_off()
    if title is not None:
        ax.set_title(title, fontsize=fontsize + 1)
    return ax
