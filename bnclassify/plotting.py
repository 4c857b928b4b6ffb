"""matplotlib figures: structures, learned tree vs contact tree, weights, CPTs, CV results.

Every function takes an optional ``ax`` (or ``fig``), draws on it, and returns
the matplotlib object it drew on; none calls ``plt.show()``. Edges are drawn as
patches that remember which edge they are (attribute ``bnclassify_edge``), so
:func:`drawn_edges` reads a figure back as a list of ``(parent, child)`` pairs;
node labels carry their node as ``bnclassify_node``. Tests use this, and so
can anyone post-processing a figure.

Colours follow the Okabe-Ito palette, readable by colour-blind readers; in
comparisons, edges two trees share are drawn in vermillion, the others in each
tree's own colour.
"""

from __future__ import annotations

import itertools

import matplotlib.pyplot as plt
import matplotlib.transforms as mtransforms
import networkx as nx
import numpy as np
import pandas as pd
from matplotlib.colors import ListedColormap, PowerNorm
from matplotlib.figure import FigureBase
from matplotlib.patches import FancyArrowPatch, Rectangle
from matplotlib.text import Text

from ._plot_cpt import plot_cpt, text_color
from ._plot_views import network_view

__all__ = [
    "cv_differences",
    "drawn_edges",
    "expected_shared_edges",
    "model_family",
    "plot_cpt",
    "plot_cv_results",
    "plot_structure",
    "plot_tree_comparison",
    "plot_weights",
]

SHARED_COLOR = "#D55E00"  # vermillion: edges both trees have
TREE_A_COLOR = "#0072B2"  # blue: edges only the first tree has
TREE_B_COLOR = "#009E73"  # bluish green: edges only the second tree has
EDGE_COLOR = "#333333"  # feature edges of a single structure
CLASS_ARC_COLOR = "#B0B0B0"
TREE_OUTLINE_COLOR = "#00C8FF"  # cyan: stands out on light and dark cells of magma_r
FEATURE_FILL = "#E8F1FA"
CLASS_FILL = "#FCE6C9"
MODEL_COLORS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442"]

_METRIC_LABELS = {
    "accuracy": "accuracy",
    "balanced_accuracy": "balanced accuracy",
    "precision_macro": "precision (macro)",
    "recall_macro": "recall (macro)",
    "f1_macro": "F1 (macro)",
    "cll": "CLL",
    "log_loss": "log-loss",
    "fit_time": "fit time (s)",
    "predict_time": "predict time (s)",
}


# -- reading a figure back ---------------------------------------------------------
def _tag(artist, edge, role):
    """Remember on an artist which edge it draws, and in what role."""
    artist.bnclassify_edge = tuple(edge)
    artist.bnclassify_role = role
    artist.set_gid(f"bnclassify-{role}:{edge[0]}->{edge[1]}")
    return artist


def drawn_edges(obj, role=None) -> list:
    """The edges drawn by a bnclassify plotting function, read back from its artists.

    Parameters
    ----------
    obj : matplotlib Axes or Figure
        What a plotting function returned (a Figure is read axes by axes).
    role : str, optional
        Only edges drawn in this role: ``"feature"`` (an edge between two
        features), ``"class"`` (an arc from the class node), or, on the heatmap
        of :func:`plot_tree_comparison`, ``"matrix-a"`` / ``"matrix-b"`` (the
        cells marked for the first / second tree). All roles by default.

    Returns
    -------
    list of tuple
        ``(u, v)`` pairs in drawing order (``u`` is the parent for arcs).

    Examples
    --------
    >>> import networkx as nx
    >>> ax = plot_structure(nx.DiGraph([("y", "a"), ("y", "b"), ("a", "b")]), class_node="y")
    >>> drawn_edges(ax, role="feature")
    [('a', 'b')]
    >>> sorted(drawn_edges(ax, role="class"))
    [('y', 'a'), ('y', 'b')]
    """
    axes = obj.get_axes() if isinstance(obj, FigureBase) else [obj]
    edges = []
    for ax in axes:
        for artist in ax.get_children():
            edge = getattr(artist, "bnclassify_edge", None)
            if edge is not None and (role is None or artist.bnclassify_role == role):
                edges.append(edge)
    return edges


# -- structures ----------------------------------------------------------------------
def _structure_of(model_or_graph, class_node=None, weights=None, member=0):
    """(graph, class node or None, weights lookup or None) of a fitted model or a graph."""
    if isinstance(model_or_graph, nx.Graph):
        graph = model_or_graph
        if graph.is_directed() and not nx.is_directed_acyclic_graph(graph):
            edges = nx.find_cycle(graph)
            cycle = " -> ".join([str(u) for u, _ in edges] + [str(edges[0][0])])
            raise ValueError(f"The graph has a cycle ({cycle}); a Bayesian network is a DAG.")
        if class_node is None:
            class_node = graph.graph.get("class_node", _guess_class_node(graph))
        elif class_node is not False and class_node not in graph:
            raise ValueError(f"class_node {class_node!r} is not a node of the graph.")
        if class_node is False:
            class_node = None
        if weights is None and any("weight" in d for *_, d in graph.edges(data=True)):
            weights = {
                frozenset((u, v)): d["weight"]
                for u, v, d in graph.edges(data=True)
                if "weight" in d
            }
    elif hasattr(model_or_graph, "fit") or hasattr(model_or_graph, "structure_"):
        view = network_view(model_or_graph, member)
        graph, class_node = view.structure, view.class_node
        if weights is None:
            weights = view.weights
    else:
        raise TypeError(
            "Expected a fitted bnclassify model or a networkx graph, got "
            f"{type(model_or_graph).__name__}."
        )
    return graph, class_node, _weight_lookup(weights)


def _guess_class_node(graph):
    """The node with an arc to every other node and no parent, if the graph has one."""
    if not graph.is_directed() or len(graph) < 3:
        return None
    n = len(graph)
    candidates = [v for v in graph if graph.in_degree(v) == 0 and graph.out_degree(v) == n - 1]
    return candidates[0] if len(candidates) == 1 else None


def _weight_lookup(weights):
    """A function (u, v) -> weight or None, from a matrix, a DataFrame or a dict."""
    if weights is None:
        return None
    if isinstance(weights, dict):
        return lambda u, v: weights.get(frozenset((u, v)))
    if isinstance(weights, pd.DataFrame):
        return lambda u, v: (
            float(weights.loc[u, v]) if u in weights.index and v in weights.columns else None
        )
    raise TypeError(
        "weights must be a DataFrame labelled by feature names or a dict keyed by "
        f"frozenset edges, got {type(weights).__name__}."
    )


def _feature_graph(graph, class_node):
    """The graph without the class node."""
    return graph.subgraph([v for v in graph if v != class_node])


def _layout(features: nx.Graph, root=None) -> dict:
    """Positions of the feature nodes: each tree laid out from its root downwards.

    A tree (or forest) gets a tidy layout: leaves on consecutive columns,
    parents centred over their children, one row per depth. A DAG with
    several parents per node (e.g. k-dependence) is laid out by topological
    generations, each row ordered by its parents' mean position.
    """
    order = list(features.nodes)
    if not order:
        return {}
    directed = features.is_directed()
    if not directed or all(features.in_degree(v) <= 1 for v in order):
        if directed:
            children = {v: list(features.successors(v)) for v in order}
            roots = [v for v in order if features.in_degree(v) == 0]
        else:
            children, roots = _undirected_children(features, order, root)
        if root is not None and root in roots:
            roots.remove(root)
            roots.insert(0, root)
        pos, next_x = {}, 0.0

        def place(v, depth):
            nonlocal next_x
            kids = children[v]
            if kids:
                for kid in kids:
                    place(kid, depth + 1)
                x = (pos[kids[0]][0] + pos[kids[-1]][0]) / 2
            else:
                x, next_x = next_x, next_x + 1.0
            pos[v] = (x, -float(depth))

        for r in roots:
            place(r, 0)
        return pos
    pos = {}
    for depth, generation in enumerate(nx.topological_generations(features)):
        rank = {v: k for k, v in enumerate(order)}
        generation = sorted(
            generation,
            key=lambda v: (
                np.mean([pos[p][0] for p in features.predecessors(v)]) if depth else rank[v],
                rank[v],
            ),
        )
        width = len(generation) - 1
        for k, v in enumerate(generation):  # wider spacing: edges skip rows and need room
            pos[v] = (1.6 * (k - width / 2), -float(depth))
    xs = [p[0] for p in pos.values()]
    return {v: (x - min(xs), y) for v, (x, y) in pos.items()}


def _undirected_children(graph, order, root):
    """Children lists of an undirected forest read from ``root`` (else each component's first)."""
    position = {v: k for k, v in enumerate(order)}
    children = {v: [] for v in order}
    roots = []
    components = sorted(nx.connected_components(graph), key=lambda c: min(map(position.get, c)))
    for component in components:
        start = root if root in component else min(component, key=position.get)
        roots.append(start)
        for u, v in nx.bfs_edges(
            graph, start, sort_neighbors=lambda vs: sorted(vs, key=position.get)
        ):
            children[u].append(v)
    return children, roots


def _node_text(ax, name, xy, *, is_class, fontsize):
    text = ax.text(
        *xy,
        str(name),
        ha="center",
        va="center",
        fontsize=fontsize,
        fontweight="bold" if is_class else "normal",
        zorder=3,
        bbox={
            "boxstyle": "round,pad=0.35",
            "facecolor": CLASS_FILL if is_class else FEATURE_FILL,
            "edgecolor": "#8C5A1E" if is_class else "#2F5D87",
            "linewidth": 1.2,
        },
    )
    text.bnclassify_node = name
    return text


def _edge_widths(edges, lookup, lo=1.2, hi=5.5):
    """Line width of each edge, linear in its weight between ``lo`` and ``hi``."""
    if lookup is None or not edges:
        return [2.0] * len(edges), [None] * len(edges)
    values = [lookup(u, v) for u, v in edges]
    known = [w for w in values if w is not None and np.isfinite(w)]
    top = max(known, default=0.0)
    widths = [2.0 if w is None or top <= 0 else lo + (hi - lo) * max(w, 0.0) / top for w in values]
    return widths, values


def _format_weight(w, fmt=None):
    """An edge's weight label: integers as integers, else 3 significant digits, zeros kept.

    Every label of a figure then has the same precision: 0.0101 beside
    0.00960, not "0.01" beside "0.0096".

    Examples
    --------
    >>> [_format_weight(w) for w in (0.0101, 0.0096, 0.0727, 65.0, 12.25, 1234.5)]
    ['0.0101', '0.00960', '0.0727', '65', '12.2', '1234']
    """
    if w is None:
        return None
    if fmt is not None:
        return format(w, fmt)
    w = float(w)
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
    member=0,
):
    """Draw a classifier's structure: the class node apart, the feature tree from its root.

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
        is drawn through one of its members (see ``member``); a
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
    member : int, default=0
        For an ensemble, the position of the member in ``estimators_`` whose
        structure is drawn (members differ in their trees, so no single
        structure is the ensemble's).

    Returns
    -------
    matplotlib.axes.Axes
        Read the drawn edges back with :func:`drawn_edges`.

    Examples
    --------
    >>> from bnclassify import TAN
    >>> from bnclassify.datasets import load_p450
    >>> X, y = load_p450(return_X_y=True)
    >>> ax = plot_structure(TAN().fit(X, y))
    >>> sorted(drawn_edges(ax, role="feature"))[:2]
    [('block1', 'block4'), ('block1', 'block7')]
    """
    graph, class_node, lookup = _structure_of(model_or_graph, class_node, weights, member)
    if title is None and not isinstance(model_or_graph, nx.Graph):
        title = network_view(model_or_graph, member).title
    features = _feature_graph(graph, class_node)
    if root is not None and root not in features:
        raise ValueError(f"root={root!r} is not a feature node; features: {list(features)}.")
    pos = _layout(features, root)
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
    if ax is None:
        _, ax = plt.subplots(
            figsize=(
                max(5.0, 1.05 * (n_cols - 1 + 2 * margin) + 0.4),
                max(3.0, 1.25 * (depth + 2) + 0.4),
            ),
            layout="constrained",
        )
    xs = [p[0] for p in pos.values()] or [0.0]
    ys = [p[1] for p in pos.values()] or [0.0]
    ax.set_xlim(min(xs) - margin, max(xs) + margin)
    ax.set_ylim(min(ys) - 0.45, max(ys) + 0.45)
    texts = {v: _node_text(ax, v, pos[v], is_class=v == class_node, fontsize=fontsize) for v in pos}
    arrowstyle = "-|>" if graph.is_directed() else "-"
    class_arcs = []
    if class_node is not None and show_class:
        targets = (
            graph.successors(class_node) if graph.is_directed() else graph.neighbors(class_node)
        )
        class_arcs = [(class_node, v) for v in targets]
    feature_edges = list(features.edges)
    router = _Router(ax, texts, class_arcs + feature_edges, feature_edges)
    for edge in class_arcs:
        arc = _RoutedArrow(
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
        ax.add_patch(_tag(arc, edge, "class"))
    widths, values = _edge_widths(feature_edges, lookup)
    edge_colors = edge_colors or {}
    for edge, width, value in zip(feature_edges, widths, values, strict=True):
        color = edge_colors.get(frozenset(edge), EDGE_COLOR)
        arrow = _RoutedArrow(
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
        ax.add_patch(_tag(arrow, edge, "feature"))
        label = _format_weight(value, weight_format) if show_weights else None
        if label is not None:
            ax.add_artist(
                _EdgeLabel(
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


class _Router:
    """Bends edges, at draw time, so that they miss other nodes' boxes and cross few edges.

    Works in display coordinates of the renderer being drawn to (so the
    figure's final layout, size and dpi are what count). A bend is the ``rad``
    of matplotlib's ``arc3`` connection style: 0 is straight.
    """

    _BENDS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.65, 0.8)

    def __init__(self, ax, texts, edges, feature_edges):
        self.ax, self.texts = ax, texts
        self.edges, self.feature_edges = list(edges), list(feature_edges)
        self.labels = {}  # edge -> its label, registered by _EdgeLabel
        self._key, self._bends, self._spots = None, {}, {}

    def bends(self, renderer) -> dict:
        """``{edge: rad}`` for the current layout (recomputed when the layout changed)."""
        key = (
            id(renderer),
            self.ax.figure.dpi,
            tuple(self.ax.transData.get_matrix().ravel()),
            tuple(self.ax.bbox.bounds),
        )
        if key != self._key:
            self._measure(renderer)
            self._bends = {edge: self._bend(*edge) for edge in self.edges}
            self._spots = self._place_labels(renderer)
            self._key = key
        return self._bends

    def label_spots(self, renderer) -> dict:
        """``{edge: (x, y)}``: where each edge label goes, in display coordinates."""
        self.bends(renderer)
        return self._spots

    _LABEL_AT = (0.47, 0.38, 0.56, 0.3, 0.64, 0.22, 0.72)  # fractions along the curve

    def _place_labels(self, renderer) -> dict:
        """Put each label on its curve where it covers no node and no label placed before.

        The middle is tried first; if no spot is clear, the one covering least.
        """
        boxes = [(self.pos[v] - self.half[v], self.pos[v] + self.half[v]) for v in self.pos]
        spots = {}
        for edge, label in self.labels.items():
            extent = label.get_window_extent(renderer)
            half = np.array([extent.width, extent.height]) / 2 + 2
            best, fewest = None, np.inf
            for t in self._LABEL_AT:
                centre = self.curve(edge, self._bends[edge], t=t)[0]
                covered = sum(
                    bool(np.all(centre - half < high) and np.all(centre + half > low))
                    for low, high in boxes
                )
                if covered < fewest:
                    best, fewest = centre, covered
                if covered == 0:
                    break
            spots[edge] = best
            boxes.append((best - half, best + half))
        return spots

    def _measure(self, renderer):
        to_pixels = self.ax.figure.dpi / 72
        self.pos, self.half = {}, {}
        for v, text in self.texts.items():
            self.pos[v] = self.ax.transData.transform(text.get_position())
            extent = text.get_window_extent(renderer)
            pad = text.get_bbox_patch().get_boxstyle().pad * text.get_fontsize() * to_pixels
            self.half[v] = np.array([extent.width, extent.height]) / 2 + pad + 5 * to_pixels
        bbox = self.ax.bbox
        self.low, self.high = np.array([bbox.x0, bbox.y0]), np.array([bbox.x1, bbox.y1])

    def curve(self, edge, rad, n=48, t=None):
        """Points of the arc3 curve of ``edge`` with bend ``rad``, in display coordinates."""
        p0, p2 = self.pos[edge[0]], self.pos[edge[1]]
        d = p2 - p0
        control = (p0 + p2) / 2 + rad * np.array([d[1], -d[0]])
        t = np.linspace(0, 1, n)[:, None] if t is None else np.atleast_1d(t)[:, None]
        return (1 - t) ** 2 * p0 + 2 * (1 - t) * t * control + t**2 * p2

    def _node_hits(self, points, u, v):
        return sum(
            bool((np.abs(points - self.pos[w]) < self.half[w]).all(axis=1).any())
            for w in self.pos
            if w != u and w != v
        )

    def _crossings(self, points, u, v):
        """How many (straight) feature edges the polyline crosses."""
        count = 0
        for s, t in self.feature_edges:
            if not {s, t} & {u, v}:
                hit = _segments_cross(points[:-1], points[1:], self.pos[s], self.pos[t])
                count += bool(hit.any())
        return count

    def _bend(self, u, v) -> float:
        """The gentlest bend clear of other nodes, preferring few crossings, bulging outwards."""
        p0, p2 = self.pos[u], self.pos[v]
        d = p2 - p0
        centre = np.mean(list(self.pos.values()), axis=0)
        outward = np.sign(np.dot(np.array([d[1], -d[0]]), (p0 + p2) / 2 - centre)) or 1.0
        best, best_cost = 0.0, np.inf
        for magnitude in self._BENDS:
            for rad in (outward * magnitude, -outward * magnitude)[: 2 if magnitude else 1]:
                points = self.curve((u, v), rad)
                outside = np.any((points < self.low) | (points > self.high))
                cost = (
                    100 * self._node_hits(points, u, v)
                    + 100 * outside
                    + 2 * self._crossings(points, u, v)
                    + 2 * magnitude
                    + (0.5 if rad * outward < 0 else 0.0)
                )
                if cost < best_cost:
                    best, best_cost = float(rad), cost
        return best


class _RoutedArrow(FancyArrowPatch):
    """An arrow between two nodes whose bend the router chooses when it is drawn."""

    def __init__(self, router, edge, **kwargs):
        u, v = edge
        super().__init__(router.texts[u].get_position(), router.texts[v].get_position(), **kwargs)
        self._router, self._edge, self._rad = router, tuple(edge), None

    def draw(self, renderer):
        rad = self._router.bends(renderer)[self._edge]
        if rad != self._rad:
            self.set_connectionstyle("arc3", rad=rad)
            self._rad = rad
        super().draw(renderer)


class _EdgeLabel(Text):
    """An edge's label, on the edge's (possibly bent) curve where the router puts it.

    Near the middle (just before it, to stay clear of the arrowhead on short
    edges), or further along when that spot would cover a node or another label.
    """

    def __init__(self, router, edge, **kwargs):
        super().__init__(*router.texts[edge[0]].get_position(), **kwargs)
        self._router, self._edge = router, tuple(edge)
        router.labels[self._edge] = self

    def draw(self, renderer):
        spot = self._router.label_spots(renderer)[self._edge]
        xy = tuple(self.axes.transData.inverted().transform(spot))
        if not np.allclose(xy, self.get_position()):
            self.set_position(xy)
        super().draw(renderer)


def _segments_cross(a, b, c, d):
    """Whether each segment a[k]-b[k] properly crosses the segment c-d."""

    def side(p, q, r):
        return np.sign(
            (q[..., 0] - p[..., 0]) * (r[..., 1] - p[..., 1])
            - (q[..., 1] - p[..., 1]) * (r[..., 0] - p[..., 0])
        )

    return (side(a, b, c) * side(a, b, d) < 0) & (side(c, d, a) * side(c, d, b) < 0)


def _undirected_feature_edges(model):
    graph, class_node, _ = _structure_of(model)
    return {frozenset(e) for e in _feature_graph(graph, class_node).edges}


def _depth(model):
    """Levels below the root(s) of a model's feature graph."""
    graph, class_node, _ = _structure_of(model)
    features = _feature_graph(graph, class_node)
    if not features.is_directed() or not nx.is_directed_acyclic_graph(features):
        return len(features)
    return nx.dag_longest_path_length(features) if len(features) else 0


def _model_label(model):
    return type(model).__name__ if not isinstance(model, nx.Graph) else "graph"


def expected_shared_edges(m) -> float:
    """Expected number of edges two independent uniformly random spanning trees on m nodes share.

    Each of a tree's ``m - 1`` edges is one of the ``C(m, 2)`` pairs, and a
    uniform random spanning tree holds any given pair with probability
    ``(m - 1) / C(m, 2)``, so the expectation is ``(m - 1)^2 / C(m, 2) = 2 (m - 1) / m``.

    Examples
    --------
    >>> expected_shared_edges(8)
    1.75
    """
    if m < 2:
        return 0.0
    return 2.0 * (m - 1) / m


def _weight_unit(model):
    """What a model's edge weights are, for a label: CMI in nats, or contacts."""
    if isinstance(model, nx.Graph) or getattr(model, "weights_", None) is None:
        return None
    if any(c.__name__ == "SimplerTAN" for c in type(model).__mro__):
        return "contacts"
    return "I(Xi; Xj | C), nats"


def plot_tree_comparison(
    model_a,
    model_b,
    contact_matrix=None,
    *,
    labels=None,
    fig=None,
    title=None,
    fontsize=10,
):
    """Two trees side by side and the contact matrix with both trees' edges marked on it.

    Panel 1 is ``model_a``'s structure, panel 2 ``model_b``'s, panel 3 the
    contact matrix as a heatmap (diagonal left blank) in which the cells of
    ``model_a``'s feature edges are outlined in the upper triangle and those of
    ``model_b`` in the lower one. Edges both trees have (as undirected edges:
    the roots may differ) are vermillion everywhere; the title counts them,
    beside what chance would give (:func:`expected_shared_edges`). Above
    each tree, what its edge labels are (CMI in nats, or contacts).

    Parameters
    ----------
    model_a, model_b : fitted bnclassify classifiers or networkx graphs
        Typically a data-learned :class:`~bnclassify.TAN` and a contact-derived
        :class:`~bnclassify.SimplerTAN` on the same features.
    contact_matrix : DataFrame, optional
        Feature x feature weights to show; default ``model_b.weights_``.
    labels : pair of str, optional
        Names of the two models (default: their class names).
    fig : matplotlib Figure, optional
        Drawn on a new 15 x 5 inch figure by default.
    title : str, optional
        Prefix of the figure title (e.g. the data set's name).
    fontsize : float, default=10

    Returns
    -------
    matplotlib.figure.Figure
        With three axes; ``fig.shared_edges`` holds the shared undirected
        edges as sorted ``(u, v)`` pairs.

    Examples
    --------
    >>> from bnclassify import TAN, SimplerTAN
    >>> from bnclassify.datasets import load_p450
    >>> p450 = load_p450()
    >>> tan = TAN().fit(p450.data, p450.target)
    >>> stan = SimplerTAN(p450.contact_matrix).fit(p450.data, p450.target)
    >>> fig = plot_tree_comparison(tan, stan, p450.contact_matrix)
    >>> fig.shared_edges
    [('block1', 'block7'), ('block2', 'block7'), ('block6', 'block7')]
    """
    if labels is None:
        labels = (_model_label(model_a), _model_label(model_b))
    label_a, label_b = labels
    edges_a, edges_b = _undirected_feature_edges(model_a), _undirected_feature_edges(model_b)
    shared = edges_a & edges_b
    if contact_matrix is None:
        contact_matrix = getattr(model_b, "weights_", None)
        if contact_matrix is None:
            raise ValueError("Pass a contact_matrix: model_b has no weights_ to show.")
    if not isinstance(contact_matrix, pd.DataFrame):
        nodes = _feature_graph(*_structure_of(model_b)[:2]).nodes
        contact_matrix = pd.DataFrame(np.asarray(contact_matrix), index=nodes, columns=nodes)
    if fig is None:
        depth = max(_depth(model_a), _depth(model_b))
        fig = plt.figure(figsize=(16, max(5.6, 4.0 + 0.6 * depth)), layout="constrained")
    ax_a, ax_b, ax_m = fig.subplots(1, 3, gridspec_kw={"width_ratios": [1.15, 1.15, 1.0]})
    for ax, model, own, color, label in (
        (ax_a, model_a, edges_a, TREE_A_COLOR, label_a),
        (ax_b, model_b, edges_b, TREE_B_COLOR, label_b),
    ):
        colors = {e: SHARED_COLOR if e in shared else color for e in own}
        plot_structure(model, ax=ax, edge_colors=colors, fontsize=fontsize)
        unit = _weight_unit(model)
        ax.set_title(
            label, fontsize=fontsize + 2, color=color, fontweight="bold", pad=18 if unit else 6
        )
        if unit:
            ax.text(
                0.5,
                1.0,
                f"edge labels: {unit}",
                transform=ax.transAxes
                + mtransforms.ScaledTranslation(0, 2 / 72, ax.figure.dpi_scale_trans),
                ha="center",
                va="bottom",
                fontsize=fontsize - 1,
                color="0.3",
            )

    # Greys cut at 70%: the darkest cell stays mid-grey, so marks on it show, and
    # the colour bar still ends at the largest value shown.
    plot_weights(
        contact_matrix,
        ax=ax_m,
        cmap=ListedColormap(plt.get_cmap("Greys")(np.linspace(0.0, 0.7, 256))),
        fontsize=fontsize - 1,
        colorbar_label="contacts",
    )
    ax_m.set_title(
        f"contact matrix\nupper triangle: {label_a}\nlower triangle: {label_b}",
        fontsize=fontsize + 1,
    )
    names = [str(v) for v in contact_matrix.index]
    index = {name: k for k, name in enumerate(names)}
    unknown = sorted({str(n) for e in edges_a | edges_b for n in e} - set(names))
    if unknown:
        raise ValueError(f"contact_matrix has no row for the feature(s) {unknown}.")
    for edges, upper, color, role in (
        (edges_a, True, TREE_A_COLOR, "matrix-a"),
        (edges_b, False, TREE_B_COLOR, "matrix-b"),
    ):
        for edge in sorted(edges, key=lambda e: sorted(map(str, e))):
            u, v = sorted(edge, key=lambda n: index[str(n)])
            i, j = index[str(u)], index[str(v)]
            row, col = (i, j) if upper else (j, i)
            cell = Rectangle(
                (col - 0.5 + 0.06, row - 0.5 + 0.06),
                0.88,
                0.88,
                fill=False,
                linewidth=3.0,
                edgecolor=SHARED_COLOR if edge in shared else color,
                zorder=4,
            )
            ax_m.add_patch(_tag(cell, (u, v), role))
    handles = [
        Rectangle((0, 0), 1, 1, fill=False, edgecolor=c, linewidth=2.5)
        for c in (SHARED_COLOR, TREE_A_COLOR, TREE_B_COLOR)
    ]
    fig.legend(
        handles,
        ["shared edge", f"only in {label_a}", f"only in {label_b}"],
        loc="outside lower center",
        ncol=3,
        fontsize=fontsize,
        frameon=False,
    )
    n_edges = max(len(edges_a), len(edges_b))
    heading = f"{len(shared)} of {n_edges} tree edges shared"
    n_nodes = len({n for e in edges_a | edges_b for n in e})
    if n_nodes > 1 and len(edges_a) == len(edges_b) == n_nodes - 1:  # two spanning trees
        heading += f" (chance ~{expected_shared_edges(n_nodes):.2f})"
    fig.suptitle(f"{title}: {heading}" if title else heading, fontsize=fontsize + 4)
    fig.shared_edges = sorted(tuple(sorted(map(str, e))) for e in shared)
    return fig


# -- matrices ------------------------------------------------------------------------------
def plot_weights(
    matrix,
    *,
    ax=None,
    diagonal=False,
    annotate=True,
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
    annotate : bool, default=True
        Write each value in its cell.
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
        from 0): below 1 it spreads the small values, so that one large cell
        does not leave every other cell the same colour; the colour bar's
        label says so ("square-root colour scale" for 0.5).
    outline_tree : bool, default=False
        Outline the cells of the matrix's maximum spanning tree
        (:func:`~bnclassify.structure.tree_from_weights`; both triangles),
        tagged ``"tree"`` for :func:`drawn_edges`.
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
    >>> ax = plot_weights(load_p450().contact_matrix)
    >>> [t.get_text() for t in ax.get_xticklabels()][:3]
    ['block1', 'block2', 'block3']
    """
    if hasattr(matrix, "fit") and not isinstance(matrix, pd.DataFrame):
        model = matrix
        matrix = getattr(model, "weights_", None)
        if matrix is None:
            raise ValueError(f"{type(model).__name__} has no weights_ to plot.")
    frame = matrix if isinstance(matrix, pd.DataFrame) else pd.DataFrame(np.asarray(matrix))
    if frame.shape[0] != frame.shape[1] or frame.shape[0] == 0:
        raise ValueError(f"matrix must be square and non-empty, got shape {frame.shape}.")
    try:
        values = frame.to_numpy(dtype=float)
    except (TypeError, ValueError):
        raise ValueError("matrix must hold numbers (weights or contact counts).") from None
    shown = np.ma.masked_array(values, mask=np.zeros_like(values, dtype=bool))
    if not diagonal:
        np.fill_diagonal(shown.mask, True)
    if ax is None:
        m = len(frame)
        _, ax = plt.subplots(figsize=(1.2 + 0.62 * m, 0.6 + 0.55 * m), layout="constrained")
    top = float(shown.max()) if shown.count() else 1.0
    vmin = 0.0 if shown.min() >= 0 else None
    scale_note = None
    if gamma != 1.0:
        if vmin is None:
            raise ValueError("gamma other than 1 needs non-negative weights.")
        norm = PowerNorm(gamma, vmin=0.0, vmax=top * vmax_scale)
        scale_note = "square-root colour scale" if gamma == 0.5 else f"colour scale w^{gamma:g}"
        limits = {"norm": norm}
    else:
        limits = {"vmin": vmin, "vmax": top * vmax_scale}
    image = ax.imshow(shown, cmap=plt.get_cmap(cmap).with_extremes(bad="white"), **limits)
    for i, j in np.argwhere(shown.mask):  # left-out cells: hatched, unlike any value
        ax.add_patch(
            Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, hatch="///", edgecolor="#CCCCCC", lw=0)
        )
    labels = [str(v) for v in frame.columns]
    ax.set_xticks(range(len(labels)), labels, rotation=45, ha="right", fontsize=fontsize)
    ax.set_yticks(range(len(labels)), [str(v) for v in frame.index], fontsize=fontsize)
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
                color=text_color(image.cmap(image.norm(values[i, j]))),
            )
    if outline_tree:
        from .structure import tree_from_weights

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
                ax.add_patch(_tag(cell, (frame.index[min(u, v)], frame.index[max(u, v)]), "tree"))
    if colorbar:
        bar = ax.figure.colorbar(image, ax=ax, shrink=0.8, pad=0.02)
        bar.ax.tick_params(labelsize=fontsize - 1)
        label = colorbar_label
        if scale_note:
            label = f"{label} ({scale_note})" if label else scale_note
        if label:
            bar.set_label(label, fontsize=fontsize)
    if title is not None:
        ax.set_title(title, fontsize=fontsize + 2)
    return ax


def _cell_format(values):
    """Integers as integers; otherwise enough decimals for 3 significant digits of the largest."""
    finite = values[np.isfinite(values)]
    if finite.size == 0 or np.all(finite == np.round(finite)):
        return "{:.0f}"
    top = np.abs(finite).max()
    decimals = 2 if top == 0 else int(np.clip(2 - np.floor(np.log10(top)), 0, 6))
    return f"{{:.{decimals}f}}"


# -- evaluation results -------------------------------------------------------------------------
_SCORES = ("accuracy", "balanced_accuracy", "precision", "recall", "f1", "roc_auc")


def _metric_label(metric, attrs):
    """A metric's display name, with what the table's ``attrs`` say of it (e.g. the CLL's base)."""
    label = _METRIC_LABELS.get(metric, str(metric))
    note = attrs.get(metric)
    return f"{label} ({note})" if isinstance(note, str) and note else label


def _is_score(metric) -> bool:
    """Whether a metric is a score on the 0-1 scale (accuracy, precision, recall, F1, AUC)."""
    return str(metric).startswith(_SCORES)


def _fold_table(results):
    """The per-fold DataFrame inside whatever ``evaluate`` returned."""
    if isinstance(results, pd.DataFrame):
        return results
    if isinstance(results, tuple | list) and results and isinstance(results[0], pd.DataFrame):
        return results[0]
    for key in ("folds", "per_fold", "scores"):
        table = results.get(key) if isinstance(results, dict) else getattr(results, key, None)
        if isinstance(table, pd.DataFrame):
            return table
    raise TypeError(
        "results must be the per-fold DataFrame of bnclassify.metrics.evaluate "
        f"(one row per model and fold), got {type(results).__name__}."
    )


_HATCHES = ["", "///", "...", "xxx"]


def _model_styles(models) -> dict:
    """A distinct (colour, hatch) per model: colours first, hatches once they repeat."""
    return {
        m: {
            "facecolor": MODEL_COLORS[k % len(MODEL_COLORS)],
            "hatch": _HATCHES[(k // len(MODEL_COLORS)) % len(_HATCHES)],
            "edgecolor": "white",
        }
        for k, m in enumerate(models)
    }


#: Colour of each model family in :func:`plot_cv_results` with a baseline (Okabe-Ito).
FAMILY_COLORS = {
    "NB": "#000000",
    "TAN": "#0072B2",
    "Simpler TAN": "#009E73",
    "ensemble": "#E69F00",
    "KDB/AODE": "#CC79A7",
    "BMA": "#D55E00",
    "other": "#999999",
}


def model_family(name) -> str:
    """The family of a model named as in the study's tables (a key of :data:`FAMILY_COLORS`).

    Examples
    --------
    >>> [model_family(m) for m in ("NB", "TAN (BIC forest)", "Simpler TAN", "STAN bagging",
    ...                            "AODE", "BMA TAN (contact prior)", "SVM")]
    ['NB', 'TAN', 'Simpler TAN', 'ensemble', 'KDB/AODE', 'BMA', 'other']
    """
    text = str(name)
    lower = text.lower()
    if lower in ("nb", "naive bayes") or lower.startswith(("nb ", "naivebayes", "naive bayes")):
        return "NB"
    if lower.startswith("bma"):
        return "BMA"
    if "bagging" in lower or "ensemble" in lower:
        return "ensemble"
    if lower.startswith(("kdb", "aode")):
        return "KDB/AODE"
    if lower.startswith(("simpler tan", "stan", "simplertan")):
        return "Simpler TAN"
    if lower.startswith("tan"):
        return "TAN"
    return "other"


def _significant_decimals(values, digits=2):
    """Decimals that give the largest of ``values`` ``digits`` significant digits (0 to 6)."""
    finite = np.abs(np.asarray(values, dtype=float))
    finite = finite[np.isfinite(finite)]
    top = finite.max() if finite.size else 0.0
    if top == 0:
        return digits
    return int(np.clip(digits - 1 - np.floor(np.log10(top)), 0, 6))


def cv_differences(results, metrics=("accuracy", "cll"), baseline="NB", confidence=0.95):
    """Each model's mean per-fold difference to ``baseline`` with a corrected-t interval.

    For the ``k`` per-fold differences ``d`` of a model and the baseline on
    the same folds, the interval is ``mean(d) +- t_{k-1} sqrt((1/k + n_test /
    n_train) var(d))``: the corrected resampled t test's (Nadeau and Bengio)
    interval, ``n_train`` and ``n_test`` the mean fold sizes.

    Parameters
    ----------
    results : DataFrame or Evaluation
        The per-fold table of :func:`bnclassify.metrics.evaluate`, with its
        ``n_train`` and ``n_test`` columns (and optionally ``dataset``).
    metrics : sequence of str
    baseline : str, default="NB"
    confidence : float, default=0.95

    Returns
    -------
    DataFrame
        One row per (dataset, metric, model other than the baseline):
        ``baseline_mean``, ``diff``, ``low``, ``high``, ``family``.

    Examples
    --------
    >>> folds = pd.DataFrame({"model": ["NB"] * 3 + ["TAN"] * 3, "fold": [0, 1, 2] * 2,
    ...                       "n_train": 90, "n_test": 10,
    ...                       "accuracy": [0.8, 0.7, 0.9, 0.9, 0.8, 0.9]})
    >>> cv_differences(folds, ["accuracy"])[["diff", "low", "high"]].round(3)
        diff    low   high
    0  0.067 -0.099  0.232
    """
    from scipy import stats

    table = _fold_table(results)
    missing = [c for c in ("model", "fold", "n_train", "n_test", *metrics) if c not in table]
    if missing:
        raise ValueError(
            f"results lack the column(s) {missing}; columns are {list(table.columns)}."
        )
    models = list(pd.unique(table["model"]))
    if baseline not in models:
        raise ValueError(f"baseline {baseline!r} is not one of the models {models}.")
    datasets = list(pd.unique(table["dataset"])) if "dataset" in table.columns else [None]
    rows = []
    for dataset in datasets:
        part = table if dataset is None else table[table["dataset"] == dataset]
        ratio = part["n_test"].mean() / part["n_train"].mean()
        for metric in metrics:
            wide = part.pivot(index="fold", columns="model", values=metric)
            for model in models:
                if model == baseline or model not in wide:
                    continue
                d = (wide[model] - wide[baseline]).dropna().to_numpy(dtype=float)
                k = len(d)
                half = (
                    stats.t.ppf(0.5 + confidence / 2, k - 1)
                    * np.sqrt((1.0 / k + ratio) * d.var(ddof=1))
                    if k > 1
                    else np.nan
                )
                rows.append(
                    {
                        "dataset": dataset,
                        "metric": metric,
                        "model": model,
                        "baseline_mean": float(wide[baseline].mean()),
                        "diff": float(d.mean()),
                        "low": float(d.mean() - half),
                        "high": float(d.mean() + half),
                        "family": model_family(model),
                    }
                )
    return pd.DataFrame(rows)


def _plot_cv_differences(table, metrics, baseline, fig, title, fontsize, confidence):
    """plot_cv_results(baseline=...): one dot-and-interval panel per (data set, metric)."""
    diffs = cv_differences(table, metrics, baseline, confidence)
    datasets = list(pd.unique(table["dataset"])) if "dataset" in table.columns else [None]
    models = [m for m in pd.unique(table["model"]) if m != baseline]
    y_of = {m: k for k, m in enumerate(models)}
    if fig is None:
        fig = plt.figure(
            figsize=(
                min(10.0, 3.0 + 2.4 * len(metrics)),
                len(datasets) * (0.9 + 0.22 * len(models)) + 0.9,
            ),
            layout="constrained",
        )
    axes = fig.subplots(len(datasets), len(metrics), squeeze=False, sharey=True)
    for row, dataset in zip(axes, datasets, strict=True):
        for ax, metric in zip(row, metrics, strict=True):
            part = diffs[(diffs["metric"] == metric)]
            if dataset is not None:
                part = part[part["dataset"] == dataset]
            decimals = _significant_decimals(
                np.r_[part["diff"].to_numpy(), part["baseline_mean"].to_numpy()[:1]], 3
            )
            if _is_score(metric):
                decimals = 3
            ax.axvline(0.0, color="0.35", linewidth=1.0, linestyle="--", zorder=1)
            for record in part.itertuples():
                color = FAMILY_COLORS[record.family]
                y = y_of[record.model]
                line = ax.errorbar(
                    record.diff,
                    y,
                    xerr=[[record.diff - record.low], [record.high - record.diff]],
                    fmt="o",
                    markersize=4.5,
                    color=color,
                    ecolor=color,
                    elinewidth=1.6,
                    capsize=2.5,
                    zorder=3,
                )
                line.lines[0].bnclassify_model = record.model
                line.lines[0].bnclassify_family = record.family
            ends = part[["low", "high"]].to_numpy(dtype=float).ravel()
            ends = ends[np.isfinite(ends)]
            lo = min(0.0, ends.min()) if ends.size else -1.0
            hi = max(0.0, ends.max()) if ends.size else 1.0
            span = (hi - lo) or 1.0
            for record in part.itertuples():  # a column of values right of every interval
                ax.text(
                    hi + 0.06 * span,
                    y_of[record.model],
                    f"{record.diff:+.{decimals}f}",
                    ha="left",
                    va="center",
                    fontsize=fontsize - 2,
                    color=FAMILY_COLORS[record.family],
                )
            ax.set_xlim(lo - 0.05 * span, hi + 0.45 * span)
            ax.xaxis.set_major_locator(plt.MaxNLocator(4))
            base = part["baseline_mean"].iloc[0] if len(part) else np.nan
            name = _metric_label(metric, table.attrs)
            ax.set_title(f"{name}\n{baseline}: {base:.{decimals}f}", fontsize=fontsize - 1)
            ax.set_xlabel(f"difference to {baseline}", fontsize=fontsize - 1)
            ax.tick_params(labelsize=fontsize - 1)
            ax.spines[["top", "right"]].set_visible(False)
            ax.grid(True, axis="x", alpha=0.3)
        row[0].set_yticks(range(len(models)), [str(m) for m in models], fontsize=fontsize - 1)
        if dataset is not None:
            row[0].set_ylabel(str(dataset), fontsize=fontsize + 1, fontweight="bold")
        row[0].set_ylim(len(models) - 0.5, -0.5)
    families = [f for f in FAMILY_COLORS if f in set(diffs["family"])]
    handles = [
        plt.Line2D([], [], marker="o", color=FAMILY_COLORS[f], linestyle="-", markersize=5)
        for f in families
    ]
    handles.append(plt.Line2D([], [], color="0.35", linestyle="--", linewidth=1.0))
    fig.legend(
        handles,
        [*families, f"{baseline} (0)"],
        loc="outside lower center",
        ncol=len(handles),
        fontsize=fontsize - 1,
        frameon=False,
        title="model family",
        title_fontsize=fontsize - 1,
    )
    heading = (
        f"mean per-fold difference to {baseline} ± {confidence:.0%} corrected resampled t interval"
    )
    fig.suptitle(f"{title}\n{heading}" if title else heading, fontsize=fontsize + 1)
    fig.cv_differences = diffs
    return fig


def plot_cv_results(
    results,
    metrics=("accuracy", "f1_macro", "cll"),
    *,
    baseline=None,
    confidence=0.95,
    fig=None,
    title=None,
    fontsize=10,
):
    """Cross-validation results as grouped bars (mean over folds) with error bars (sd).

    Scores on a 0-1 scale (accuracy, precision, recall, F1, AUC: by column
    name) share one panel, grouped by metric with one bar per model; every
    other metric (CLL, log-loss, times) gets a panel of its own. With a
    ``dataset`` column there is one row of panels per data set.

    With a ``baseline`` (e.g. ``"NB"``) it draws instead, per data set and
    metric, every other model's mean per-fold difference to the baseline
    with its corrected resampled t interval (:func:`cv_differences`), on an
    axis fitted to the differences, coloured by model family
    (:func:`model_family`), the value written at the right: differences of
    a few hundredths are what such tables turn on, and bars from 0 hide them.

    Parameters
    ----------
    results : DataFrame or Evaluation
        The tidy per-fold table of :func:`bnclassify.metrics.evaluate`: one row
        per (model, fold) with a ``model`` column and one column per metric;
        or what ``evaluate`` returns (a ``(folds, summary)`` pair). A string in
        ``results.attrs[metric]`` is added to that metric's label, e.g.
        ``attrs["cll"] = "log2, sum per fold"``.
    metrics : sequence of str, default=("accuracy", "f1_macro", "cll")
        Columns to show.
    baseline : str, optional
        Model to show differences to (needs ``n_train`` and ``n_test``
        columns, as ``evaluate`` writes). Default: bars of the means.
    confidence : float, default=0.95
        Level of the intervals with a ``baseline``.
    fig : matplotlib Figure, optional
    title : str, optional
    fontsize : float, default=10

    Returns
    -------
    matplotlib.figure.Figure
        With a ``baseline``, ``fig.cv_differences`` holds what is drawn.

    Examples
    --------
    >>> import pandas as pd
    >>> folds = pd.DataFrame({"model": ["NB", "NB", "TAN", "TAN"], "fold": [0, 1, 0, 1],
    ...                       "accuracy": [0.80, 0.82, 0.85, 0.84],
    ...                       "f1_macro": [0.75, 0.77, 0.80, 0.81], "cll": [-61, -60, -53, -54]})
    >>> fig = plot_cv_results(folds)
    >>> [ax.get_title() for ax in fig.axes]
    ['accuracy, F1 (macro)', 'CLL']
    """
    table = _fold_table(results)
    missing = [c for c in ("model", *metrics) if c not in table.columns]
    if missing:
        raise ValueError(
            f"results lack the column(s) {missing}; columns are {list(table.columns)}."
        )
    if baseline is not None:
        return _plot_cv_differences(table, metrics, baseline, fig, title, fontsize, confidence)
    datasets = list(pd.unique(table["dataset"])) if "dataset" in table.columns else [None]
    models = list(pd.unique(table["model"]))
    styles = _model_styles(models)
    bounded = [m for m in metrics if _is_score(m)]
    panels = ([bounded] if bounded else []) + [[m] for m in metrics if m not in bounded]
    if fig is None:
        widths = [1.0 + 0.45 * len(p) * len(models) for p in panels]
        fig = plt.figure(
            figsize=(max(6.0, 1.3 * sum(widths) + 1.5), 3.6 * len(datasets)), layout="constrained"
        )
    axes = fig.subplots(
        len(datasets),
        len(panels),
        squeeze=False,
        gridspec_kw={"width_ratios": [max(len(p), 1.5) for p in panels]},
    )
    bar_width = 0.8 / len(models)
    for row, dataset in zip(axes, datasets, strict=True):
        part = table if dataset is None else table[table["dataset"] == dataset]
        grouped = part.groupby("model", sort=False)[list(metrics)]
        mean, sd = grouped.mean(), grouped.std().fillna(0.0)
        decimals = {m: _significant_decimals(mean[m], 3) for m in metrics}  # one per panel
        for ax, panel in zip(row, panels, strict=True):
            for k, model in enumerate(models):
                if model not in mean.index:
                    continue
                x = np.arange(len(panel)) + (k - (len(models) - 1) / 2) * bar_width
                bars = ax.bar(
                    x,
                    mean.loc[model, panel].to_numpy(dtype=float),
                    bar_width,
                    yerr=sd.loc[model, panel].to_numpy(dtype=float),
                    capsize=3,
                    label=str(model),
                    **styles[model],
                    error_kw={"elinewidth": 1, "ecolor": "#333333"},
                )
                ax.bar_label(
                    bars,
                    fmt="{:.3f}" if panel is bounded else f"{{:.{decimals[panel[0]]}f}}",
                    fontsize=fontsize - 2,
                    padding=2,
                )
            names = [_metric_label(m, table.attrs) for m in panel]
            if len(panel) > 1:
                ax.set_xticks(range(len(panel)), names, fontsize=fontsize)
            else:  # the title names it
                ax.set_xticks([])
            heading = ", ".join(names)
            ax.set_title(heading if dataset is None else f"{dataset}: {heading}", fontsize=fontsize)
            if panel is bounded:
                ax.set_ylim(0, 1.1)
            ax.spines[["top", "right"]].set_visible(False)
            ax.tick_params(labelsize=fontsize - 1)
            ax.margins(y=0.15)
    handles = [Rectangle((0, 0), 1, 1, **styles[m]) for m in models]
    fig.legend(
        handles,
        [str(m) for m in models],
        loc="outside lower center",
        ncol=min(len(models), 6),
        fontsize=fontsize,
        frameon=False,
    )
    heading = "mean ± sd over folds"
    fig.suptitle(f"{title} ({heading})" if title else heading, fontsize=fontsize + 2)
    return fig


from ._plot_bma import plot_edge_posterior  # noqa: E402, F401
from ._plot_continuous import plot_class_densities, plot_decision_boundary  # noqa: E402, F401
from ._plot_networks import plot_signal_edge_probabilities, plot_signal_edges  # noqa: E402, F401
from ._plot_search import plot_search_path  # noqa: E402, F401
