"""What a structure figure draws and where: a model or graph read as a structure, laid out.

:func:`structure_of` reads a fitted model (through its network view) or a
networkx graph as ``(graph, class node, weight lookup)``; :func:`tree_layout`
places the feature nodes, each tree from its root downwards.
"""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pandas as pd

from ..validation import float_array
from ._palette import CLASS_BORDER, CLASS_FILL, FEATURE_BORDER, FEATURE_FILL
from ._views import members_summary, network_view

__all__ = ["feature_graph", "node_text", "structure_of", "tree_layout"]


def node_text(ax, name, xy, *, is_class, fontsize, fill=None, border=None):
    """A node's label in its box (the class's bold), remembering its node
    (``bnclassify_node``); ``fill`` and ``border`` override the palette's colours."""
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
            "facecolor": fill or (CLASS_FILL if is_class else FEATURE_FILL),
            "edgecolor": border or (CLASS_BORDER if is_class else FEATURE_BORDER),
            "linewidth": 1.2,
        },
    )
    text.bnclassify_node = name
    return text


def structure_of(model_or_graph, class_node=None, weights=None, member=None):
    """(graph, class node or None, weights lookup or None) of a fitted model or a graph.

    An ensemble is read through its ``member``-th member, or (``member=None``) its own
    summary of its members' arcs (:func:`~bnclassify.plotting._views.members_summary`),
    else its first member."""
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
            return graph, class_node, _weight_lookup(weights, "the graph's 'weight' attributes")
    elif (summary := members_summary(model_or_graph, member)) is not None:
        graph, class_node, _ = summary
        if weights is None:  # each arc's own share: two arcs between u and v differ
            return graph, class_node, lambda u, v: graph.edges[u, v].get("weight")
    elif hasattr(model_or_graph, "fit") or hasattr(model_or_graph, "structure_"):
        view = network_view(model_or_graph, 0 if member is None else member)
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


def _weight_lookup(weights, name="weights"):
    """A function (u, v) -> weight (a float, NaN where missing) or None, from a DataFrame or
    a dict; the weights are checked to be real numbers here, once, naming ``name``."""
    if weights is None:
        return None
    if isinstance(weights, dict):
        keys = list(weights)
        values = float_array([_missing_as_nan(weights[k]) for k in keys], name)
        by_edge = dict(zip(keys, values.tolist(), strict=True))
        return lambda u, v: by_edge.get(frozenset((u, v)))
    if isinstance(weights, pd.DataFrame):
        values = pd.DataFrame(
            float_array(weights, name), index=weights.index, columns=weights.columns
        )
        return lambda u, v: (
            float(values.loc[u, v]) if u in values.index and v in values.columns else None
        )
    raise TypeError(
        "weights must be a DataFrame labelled by feature names or a dict keyed by "
        f"frozenset edges, got {type(weights).__name__}."
    )


def _missing_as_nan(value):
    return np.nan if value is None or value is pd.NA else value


def feature_graph(graph, class_node):
    """The graph without the class node."""
    return graph.subgraph([v for v in graph if v != class_node])


#: Inches per layout unit of plot_structure's own figure.
UNIT_INCHES = 1.05


def label_widths(nodes, fontsize) -> dict:
    """Each node label's approximate box width in layout units (about 0.6 em per character)."""
    inches = {v: (0.6 * len(str(v)) + 0.7) * fontsize / 72 for v in nodes}
    return {v: w / UNIT_INCHES for v, w in inches.items()}


def spread_rows(pos, widths, gap=0.15) -> dict:
    """Stretch x so that no two boxes of a row overlap; the layout's order is kept."""
    rows = {}
    for v, (x, y) in pos.items():
        rows.setdefault(y, []).append((x, v))
    scale = 1.0
    for row in rows.values():
        row.sort(key=lambda t: t[0])
        for (xa, a), (xb, b) in itertools.pairwise(row):
            need = (widths[a] + widths[b]) / 2 + gap
            if xb > xa and xb - xa < need:
                scale = max(scale, need / (xb - xa))
    return {v: (x * scale, y) for v, (x, y) in pos.items()}


def tree_layout(features: nx.Graph, root=None, widths=None) -> dict:
    """Positions of the feature nodes: each tree laid out from its root downwards.

    A tree (or forest) gets a tidy layout: leaves side by side (one column
    apart, or wider where ``widths`` says a label needs it), parents centred
    over their children, one row per depth. A DAG with several parents per
    node (e.g. k-dependence) is laid out by topological generations, each
    row ordered by its parents' mean position.
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
        pos, next_x, last_leaf = {}, 0.0, None

        def place(v, depth):
            nonlocal next_x, last_leaf
            kids = children[v]
            if kids:
                for kid in kids:
                    place(kid, depth + 1)
                x = (pos[kids[0]][0] + pos[kids[-1]][0]) / 2
            else:
                if widths is not None and last_leaf is not None:
                    # a long label pushes its neighbour further than one column
                    next_x += max(0.0, (widths[last_leaf] + widths[v]) / 2 + 0.15 - 1.0)
                x, next_x, last_leaf = next_x, next_x + 1.0, v
            pos[v] = (x, -float(depth))

        for r in roots:
            place(r, 0)
        return pos
    pos = {}
    rank = {v: k for k, v in enumerate(order)}
    for depth, generation in enumerate(_generations(features)):
        generation = sorted(
            generation,
            key=lambda v: (
                np.mean(placed) if (placed := _placed(features, v, pos)) else rank[v],
                rank[v],
            ),
        )
        width = len(generation) - 1
        for k, v in enumerate(generation):  # wider spacing: edges skip rows and need room
            pos[v] = (1.6 * (k - width / 2), -float(depth))
    xs = [p[0] for p in pos.values()]
    return {v: (x - min(xs), y) for v, (x, y) in pos.items()}


def _generations(graph) -> list:
    """The rows of a directed layout: topological generations, or for a graph with
    cycles (arcs of an ensemble's members, both ways) those of its strongly connected
    components, each component in one row."""
    if nx.is_directed_acyclic_graph(graph):
        return list(nx.topological_generations(graph))
    components = nx.condensation(graph)
    return [
        [v for c in generation for v in components.nodes[c]["members"]]
        for generation in nx.topological_generations(components)
    ]


def _placed(graph, v, pos) -> list:
    """The x of ``v``'s parents already laid out."""
    return [pos[p][0] for p in graph.predecessors(v) if p in pos]


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
