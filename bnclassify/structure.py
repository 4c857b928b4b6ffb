"""networkx builders for Bayesian network classifier structures.

A structure is an ``nx.DiGraph`` over the feature names plus the class node.
Feature-only graphs (the "augmenting" part) are built first and the class arcs
added last, so every builder here is a plain function over graphs.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pandas as pd


def naive_bayes_structure(features, class_node="class") -> nx.DiGraph:
    """The naive Bayes DAG: the class is the only parent of every feature.

    Examples
    --------
    >>> sorted(naive_bayes_structure(["a", "b"], "y").edges())
    [('y', 'a'), ('y', 'b')]
    """
    return add_class_arcs(_empty_feature_graph(features), class_node)


def _empty_feature_graph(features) -> nx.DiGraph:
    dag = nx.DiGraph()
    dag.add_nodes_from(features)
    return dag


def weight_graph(weights, features=None) -> nx.Graph:
    """The complete weighted undirected graph of a symmetric weight matrix.

    Edges are inserted in feature order ``(0,1), (0,2), ..., (1,2), ...`` so
    that algorithms with stable sorts (Kruskal in networkx) break ties by
    feature order.

    Parameters
    ----------
    weights : DataFrame or ndarray of shape (m, m)
    features : list of str, optional
        Node names; a DataFrame's columns by default, else ``0 .. m-1``.
    """
    if features is None:
        features = (
            list(weights.columns) if isinstance(weights, pd.DataFrame) else range(len(weights))
        )
    features = list(features)
    values = np.asarray(weights, dtype=float)
    graph = nx.Graph()
    graph.add_nodes_from(features)
    upper_i, upper_j = np.triu_indices(len(features), k=1)
    graph.add_weighted_edges_from(
        (features[i], features[j], values[i, j]) for i, j in zip(upper_i, upper_j, strict=True)
    )
    return graph


def tree_from_weights(weights, features=None) -> nx.Graph:
    """Maximum weight spanning tree of a weight matrix (``nx.maximum_spanning_tree``).

    Every pair is a candidate edge, zero weights included, so the result is
    always a spanning tree; ties break by feature order. Weights that agree to
    12 significant digits count as ties: estimates such as the conditional
    mutual information differ in the last bits when only the order of a sum
    changes (e.g. categories relabelled), and that must not change the tree.

    Examples
    --------
    >>> import numpy as np
    >>> w = np.array([[0, 3, 1], [3, 0, 2], [1, 2, 0]])
    >>> sorted(tree_from_weights(w, ["a", "b", "c"]).edges())
    [('a', 'b'), ('b', 'c')]
    """
    if features is None and isinstance(weights, pd.DataFrame):
        features = list(weights.columns)
    values = np.asarray(weights, dtype=float)
    scale = np.abs(values).max() if values.size else 0.0
    if scale > 0:
        values = np.round(values / scale, 12) * scale
    return nx.maximum_spanning_tree(weight_graph(values, features), algorithm="kruskal")


def orient_tree(tree: nx.Graph, root=None, order=None) -> nx.DiGraph:
    """Direct every edge of a tree (or forest) away from its root.

    Parameters
    ----------
    tree : nx.Graph
        A tree or a forest.
    root : node, optional
        Root of its component; the first node in ``order`` by default. Other
        components of a forest are rooted at their first node in ``order``.
    order : list, optional
        Node order (default: ``tree.nodes`` order); the returned DiGraph lists
        nodes in this order.

    Examples
    --------
    >>> t = nx.Graph([("a", "b"), ("b", "c")])
    >>> sorted(orient_tree(t, root="b").edges())
    [('b', 'a'), ('b', 'c')]
    """
    order = list(tree.nodes) if order is None else list(order)
    if root is None:
        root = order[0]
    if root not in tree:
        raise ValueError(f"root {root!r} is not a node of the tree; nodes are {order}.")
    if not nx.is_forest(tree):
        raise ValueError("orient_tree needs a tree or a forest; the graph has a cycle.")
    dag = _empty_feature_graph(order)
    position = {node: k for k, node in enumerate(order)}
    components = sorted(nx.connected_components(tree), key=lambda c: min(position[v] for v in c))
    for component in components:
        start = root if root in component else min(component, key=position.get)
        dag.add_edges_from(nx.bfs_edges(tree, start))
    return dag


def add_class_arcs(feature_dag: nx.DiGraph, class_node="class") -> nx.DiGraph:
    """A copy of ``feature_dag`` with the class node first and an arc to every feature.

    Examples
    --------
    >>> dag = add_class_arcs(nx.DiGraph([("a", "b")]), "y")
    >>> list(dag.predecessors("b"))
    ['y', 'a']
    """
    if class_node in feature_dag:
        raise ValueError(f"The class node name {class_node!r} is also a feature name.")
    dag = nx.DiGraph()
    dag.add_node(class_node)
    dag.add_nodes_from(feature_dag.nodes(data=True))
    dag.add_edges_from((class_node, f) for f in feature_dag.nodes)
    dag.add_edges_from(feature_dag.edges(data=True))
    return dag


def tan_structure(weights, root=None, class_node="class", features=None) -> nx.DiGraph:
    """Tree-augmented naive Bayes DAG: the maximum spanning tree of ``weights``
    oriented away from ``root``, plus the class arcs.

    Examples
    --------
    >>> import numpy as np
    >>> w = np.array([[0, 3, 1], [3, 0, 2], [1, 2, 0]])
    >>> dag = tan_structure(w, root="c", class_node="y", features=["a", "b", "c"])
    >>> sorted(dag.edges())
    [('b', 'a'), ('c', 'b'), ('y', 'a'), ('y', 'b'), ('y', 'c')]
    """
    tree = tree_from_weights(weights, features)
    return add_class_arcs(orient_tree(tree, root), class_node)


def feature_parents(structure: nx.DiGraph, class_node) -> dict:
    """Each feature's parents other than the class, in the order stored in the graph."""
    return {
        node: [p for p in structure.predecessors(node) if p != class_node]
        for node in structure.nodes
        if node != class_node
    }


def check_weight_matrix(matrix, features, name="contact_matrix") -> pd.DataFrame:
    """Validate a feature-by-feature weight matrix and return it labelled by ``features``.

    A DataFrame is matched to the features by its labels (and re-ordered); an
    array must already be in column order. The matrix must be square, of the
    right size, symmetric, finite and non-negative.
    """
    features = list(features)
    m = len(features)
    if isinstance(matrix, pd.DataFrame):
        rows, cols = [str(v) for v in matrix.index], [str(v) for v in matrix.columns]
        if matrix.shape[0] != matrix.shape[1]:
            raise ValueError(f"{name} must be square, got shape {matrix.shape}.")
        for label, labels in (("columns", cols), ("index", rows)):
            missing = [f for f in features if f not in labels]
            extra = [f for f in labels if f not in features]
            if missing or extra:
                raise ValueError(
                    f"{name} {label} do not match the data's columns: "
                    f"missing {missing}, unexpected {extra}."
                )
        frame = matrix.set_axis(rows, axis=0).set_axis(cols, axis=1).loc[features, features]
        values = frame.to_numpy()
    else:
        values = np.asarray(matrix)
        if values.ndim != 2 or values.shape[0] != values.shape[1]:
            raise ValueError(f"{name} must be a square matrix, got shape {values.shape}.")
        if values.shape[0] != m:
            raise ValueError(
                f"{name} is {values.shape[0]} x {values.shape[0]} but the data has {m} features."
            )
    try:
        values = values.astype(float)
    except (TypeError, ValueError) as error:
        raise TypeError(f"{name} must be numeric: {error}") from None
    bad = np.argwhere(~np.isfinite(values))
    if len(bad):
        i, j = bad[0]
        raise ValueError(f"{name} has a non-finite entry at ({features[i]!r}, {features[j]!r}).")
    negative = np.argwhere(values < 0)
    if len(negative):
        i, j = negative[0]
        raise ValueError(
            f"{name} must be non-negative; entry ({features[i]!r}, {features[j]!r}) "
            f"is {values[i, j]}."
        )
    asymmetric = np.argwhere(~np.isclose(values, values.T))
    if len(asymmetric):
        i, j = asymmetric[0]
        raise ValueError(
            f"{name} must be symmetric; ({features[i]!r}, {features[j]!r}) = {values[i, j]} "
            f"but ({features[j]!r}, {features[i]!r}) = {values[j, i]}."
        )
    return pd.DataFrame(values, index=features, columns=features)
