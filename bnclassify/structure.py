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
    """Maximum weight spanning tree of a weight matrix.

    The same tree as ``nx.maximum_spanning_tree(weight_graph(weights))``
    (Kruskal; every pair a candidate edge, zero weights included, ties broken
    by feature order), computed with one numpy sort and a union-find that
    stops at ``m - 1`` edges, so 1,000 features take milliseconds rather than
    a Python pass over half a million edges. Weights that agree to 12
    significant digits count as ties: estimates such as the conditional mutual
    information differ in the last bits when only the order of a sum changes
    (e.g. categories relabelled), and that must not change the tree.

    Examples
    --------
    >>> import numpy as np
    >>> w = np.array([[0, 3, 1], [3, 0, 2], [1, 2, 0]])
    >>> sorted(tree_from_weights(w, ["a", "b", "c"]).edges())
    [('a', 'b'), ('b', 'c')]
    """
    if features is None:
        features = list(weights.columns) if isinstance(weights, pd.DataFrame) else None
    values = np.asarray(weights, dtype=float)
    features = list(range(len(values))) if features is None else list(features)
    scale = np.abs(values).max() if values.size else 0.0
    if scale > 0:
        values = np.round(values / scale, 12) * scale
    upper_i, upper_j = np.triu_indices(len(features), k=1)
    # stable sort on -w keeps (i, j) lexicographic order among ties, as networkx does
    order = np.argsort(-values[upper_i, upper_j], kind="stable")
    parent = list(range(len(features)))

    def find(v):
        while parent[v] != v:
            parent[v] = parent[parent[v]]
            v = parent[v]
        return v

    edges = []
    for k in order:
        if len(edges) == len(features) - 1:
            break
        i, j = int(upper_i[k]), int(upper_j[k])
        root_i, root_j = find(i), find(j)
        if root_i != root_j:
            parent[root_j] = root_i
            edges.append((features[i], features[j], float(values[i, j])))
    tree = nx.Graph()
    tree.add_nodes_from(features)
    tree.add_weighted_edges_from(edges)
    return tree


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


def forest_from_weights(weights, features=None) -> nx.Graph:
    """Maximum weight spanning forest over the edges of positive weight.

    Kruskal's algorithm on the strictly positive edges only, so an edge whose
    weight is zero or negative (e.g. a penalised log-likelihood gain that does
    not pay for its parameters) is never added and the result may be a
    forest. It is :func:`tree_from_weights` with its non-positive edges
    removed: Kruskal meets the positive edges first, in the same order, so it
    makes the same choices among them (ties break by feature order).

    Parameters
    ----------
    weights : DataFrame or ndarray of shape (m, m)
        Symmetric edge weights; the diagonal is ignored.
    features : list of str, optional
        Node names; a DataFrame's columns by default, else ``0 .. m-1``.

    Returns
    -------
    nx.Graph
        Every feature is a node; edges carry their ``weight``.

    Examples
    --------
    >>> import numpy as np
    >>> w = np.array([[0, 3, -1], [3, 0, -2], [-1, -2, 0]])
    >>> forest = forest_from_weights(w, ["a", "b", "c"])
    >>> sorted(forest.edges()), sorted(forest.nodes())
    ([('a', 'b')], ['a', 'b', 'c'])
    """
    forest = tree_from_weights(weights, features)
    forest.remove_edges_from([(u, v) for u, v, w in forest.edges(data="weight") if not w > 0])
    return forest


#: Scores understood by :func:`edge_gains`.
EDGE_SCORES = ("loglik", "aic", "bic")


def edge_gains(cmi, pair_rows, cards, n_classes, score="loglik") -> np.ndarray:
    """Gain in (penalised) log-likelihood, in nats, of an arc between each pair of features.

    Adding the arc X_j -> X_i (or X_i -> X_j) to a class-rooted forest raises
    the maximised log-likelihood by ``N_ij * I(X_i; X_j | C)`` and the number
    of free parameters by ``df_ij = C (r_i - 1) (r_j - 1)``, so the gains are

    - ``"loglik"``: ``N_ij I_ij``;
    - ``"aic"``: ``N_ij I_ij - df_ij``;
    - ``"bic"``: ``N_ij I_ij - df_ij log(N_ij) / 2``;

    the per-edge terms of R bnclassify's ``tan_cl(score=...)``, whose AIC and
    BIC scores are the penalised log-likelihoods ``LL - k`` and
    ``LL - k log(N) / 2``. ``N_ij`` is the number of rows observing both
    features (every row when nothing is missing). The maximum spanning forest
    of the positive gains (:func:`forest_from_weights`) maximises the score
    over all class-rooted forests (Chow and Liu 1968; Friedman et al. 1997).

    Parameters
    ----------
    cmi : ndarray of shape (m, m)
        I(X_i; X_j | C) in nats.
    pair_rows : ndarray of shape (m, m)
        Rows observing both features of each pair.
    cards : sequence of int
        Number of categories of each feature.
    n_classes : int
    score : {"loglik", "aic", "bic"}, default="loglik"

    Returns
    -------
    ndarray of shape (m, m)
        Symmetric, zero diagonal.

    Examples
    --------
    >>> cmi = np.array([[0.0, 0.02], [0.02, 0.0]])
    >>> rows = np.full((2, 2), 1000.0)
    >>> edge_gains(cmi, rows, [3, 3], 2, "aic")[0, 1]  # 1000 * 0.02 - 2 * 2 * 2
    np.float64(12.0)
    """
    if score not in EDGE_SCORES:
        raise ValueError(f"score must be one of {EDGE_SCORES}, got {score!r}.")
    cmi = np.asarray(cmi, dtype=float)
    pair_rows = np.asarray(pair_rows, dtype=float)
    dof = np.asarray(cards, dtype=float) - 1.0
    df = n_classes * np.outer(dof, dof)
    gains = pair_rows * cmi
    if score == "aic":
        gains = gains - df
    elif score == "bic":
        gains = gains - df * np.log(np.maximum(pair_rows, 1.0)) / 2.0
    np.fill_diagonal(gains, 0.0)
    return gains


def kdb_feature_dag(cmi, class_mi, k, features=None, order=None) -> nx.DiGraph:
    """The feature DAG of a k-dependence Bayesian classifier (Sahami 1996).

    Features are taken in ``order`` (by default by decreasing I(X_i; C), ties
    by feature order); each one gets as parents the ``min(k, #earlier)``
    earlier features with the highest I(X_i; X_j | C), ties by position in
    ``order``. ``k=0`` is naive Bayes, ``k=1`` a spanning tree rooted at the
    first feature in ``order``. Weights that agree to 12 significant digits
    count as ties, as in :func:`tree_from_weights`.

    Parameters
    ----------
    cmi : DataFrame or ndarray of shape (m, m)
        I(X_i; X_j | C).
    class_mi : array-like of shape (m,)
        I(X_i; C); only used when ``order`` is None.
    k : int
        Maximum number of feature parents per feature (>= 0).
    features : list of str, optional
        Node names; a DataFrame's columns by default, else ``0 .. m-1``.
    order : list, optional
        The feature order, a permutation of ``features``.

    Returns
    -------
    nx.DiGraph
        Nodes in ``features`` order; each node's predecessors are listed by
        decreasing I(X_i; X_j | C). ``dag.graph["order"]`` is the order used.

    Examples
    --------
    >>> cmi = np.array([[0, 3, 1], [3, 0, 2], [1, 2, 0]])
    >>> dag = kdb_feature_dag(cmi, [0.1, 0.3, 0.2], k=2, features=["a", "b", "c"])
    >>> {v: list(dag.predecessors(v)) for v in dag}
    {'a': ['b', 'c'], 'b': [], 'c': ['b']}
    """
    if features is None:
        features = list(cmi.columns) if isinstance(cmi, pd.DataFrame) else list(range(len(cmi)))
    features = list(features)
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 0:
        raise ValueError(f"k must be a non-negative integer, got {k!r}.")
    values = _round_ties(np.asarray(cmi, dtype=float))
    if order is None:
        relevance = _round_ties(np.asarray(class_mi, dtype=float))
        order = [features[i] for i in sorted(range(len(features)), key=lambda i: -relevance[i])]
    order = list(order)
    if len(order) != len(features) or set(order) != set(features):
        raise ValueError(f"order must be a permutation of the features {features}, got {order}.")
    position = {name: i for i, name in enumerate(features)}
    dag = _empty_feature_graph(features)
    dag.graph["order"] = order
    for rank, child in enumerate(order):
        earlier = [position[v] for v in order[:rank]]
        strength = values[position[child], earlier]
        best = sorted(range(len(earlier)), key=lambda e: -strength[e])[:k]
        dag.add_edges_from((features[earlier[e]], child) for e in best)
    return dag


def _round_ties(values):
    """Round to 12 significant digits of the largest magnitude (see tree_from_weights)."""
    scale = np.abs(values).max() if values.size else 0.0
    return np.round(values / scale, 12) * scale if scale > 0 else values
