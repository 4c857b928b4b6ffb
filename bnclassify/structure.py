"""networkx builders for Bayesian network classifier structures.

A structure is an ``nx.DiGraph`` over the feature names plus the class node.
Feature-only graphs (the "augmenting" part) are built first and the class arcs
added last, so every builder here is a plain function over graphs.
"""

from __future__ import annotations

import functools
import re

import networkx as nx
import numpy as np
import pandas as pd

from ._native import open_pairs, spanning_edges
from .data import resolve_column
from .validation import check_int
from .weights import EDGE_SCORES, check_weight_matrix, edge_gains  # noqa: F401  (public here too)


def naive_bayes_structure(features, class_node="class") -> nx.DiGraph:
    """The naive Bayes DAG: the class is the only parent of every feature.

    Examples
    --------
    >>> sorted(naive_bayes_structure(["a", "b"], "y").edges())
    [('y', 'a'), ('y', 'b')]
    """
    return add_class_arcs(empty_feature_graph(features), class_node)


def empty_feature_graph(features) -> nx.DiGraph:
    """A DiGraph with the features as nodes and no arcs (the naive Bayes feature part)."""
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


def tree_from_weights(weights, features=None, rank=None) -> nx.Graph:
    """Maximum weight spanning tree of a weight matrix.

    The same tree as ``nx.maximum_spanning_tree(weight_graph(weights))``
    (Kruskal; every pair a candidate edge, zero and negative weights included,
    ties broken by feature order, or by ``rank``). The pairs are sorted with
    numpy a block at a time, heaviest first (most trees are complete long
    before the lightest pairs), and a compiled union-find
    (:func:`bnclassify._native.spanning_edges`) takes them in that order and
    stops at ``m - 1`` edges. Weights that agree to 12 significant digits (of
    the largest ``|w|`` of a pair; the diagonal is not read) count as ties:
    estimates such as the conditional mutual information differ in the last
    bits when only the order of a sum changes (e.g. categories relabelled), and
    that must not change the tree.

    Why not networkx's own: on a 1,024-feature weight matrix
    ``nx.maximum_spanning_tree(weight_graph(w))`` took 7.0 s (building the
    complete graph alone 3.4 s); this takes milliseconds (docs/benchmarks.md).
    Nor scipy's ``minimum_spanning_tree``: it reads a zero as no edge and
    breaks ties its own way. ``tests/test_structure.py`` checks the trees are
    equal to networkx's and to a slow reference, ties and zero weights included.

    ``rank`` (one integer per feature, a permutation of ``0 .. m-1``) breaks
    ties as if the matrix had been reordered by it first: among equal weights
    the pair whose (lower, higher) ranks come first lexicographically wins.
    The order-free learners rank the columns by name (:func:`name_order`)
    without copying a wide matrix into that order.

    Examples
    --------
    >>> import numpy as np
    >>> w = np.array([[0, 3, 1], [3, 0, 2], [1, 2, 0]])
    >>> sorted(tree_from_weights(w, ["a", "b", "c"]).edges())
    [('a', 'b'), ('b', 'c')]

    Three equal weights: position breaks the tie, or ``rank``:

    >>> ties = np.ones((3, 3))
    >>> sorted(tree_from_weights(ties, ["a", "b", "c"]).edges())
    [('a', 'b'), ('a', 'c')]
    >>> sorted(tree_from_weights(ties, ["a", "b", "c"], rank=[2, 1, 0]).edges())
    [('a', 'c'), ('b', 'c')]
    """
    if features is None:
        features = list(weights.columns) if isinstance(weights, pd.DataFrame) else None
    values = np.asarray(weights, dtype=float)
    features = list(range(len(values))) if features is None else list(features)
    _check_finite(values, features, "weights")
    m = len(features)
    rank = None if rank is None else _checked_rank(rank, m)
    rows, columns, tied = _kruskal_edges(values, m, _largest_pair_weight(values), rank)
    tree = nx.Graph()
    tree.add_nodes_from(features)
    tree.add_edges_from(
        (features[i], features[j], {"weight": w})
        for i, j, w in zip(rows.tolist(), columns.tolist(), tied.tolist(), strict=True)
    )
    return tree


def _kruskal_edges(values, m, scale, rank):
    """The tree's edges ``(i, j)``, ``i < j``, in the order Kruskal takes them, and their
    weights rounded to 12 significant digits of ``scale`` (see :func:`tree_from_weights`).

    Kruskal's order is one sort of every pair by decreasing rounded weight, ties by ``(i,
    j)`` or by ``(lower, higher)`` rank. It is taken a block at a time: the pairs heavier
    than a threshold ``t`` whose rounded weight is above ``t``'s (so a tie is never split
    between blocks: every pair left weighs at most that) are sorted and handed to the
    union-find; the next threshold is lower, about four times as many pairs above it
    (thresholds from a strided sample of the matrix; the last one takes every pair left).
    A pair whose ends are joined already is not read back (Kruskal rejects it): most of
    every block after the first.
    """
    empty = np.empty(0, dtype=np.int64)
    if m < 2:
        return empty, empty, np.empty(0)
    values = np.ascontiguousarray(values)  # rows read whole: a DataFrame's block may be by column
    flat = values.ravel()

    def rounded(w):
        return np.round(w / scale, 12) * scale if scale > 0 else w

    pairs, budget = m * (m - 1) // 2, max(4 * m, 16)
    sample = flat[:: max(1, len(flat) // (4 * budget))]  # both triangles hold the same weights
    sample = -np.sort(-sample[np.isfinite(sample)])  # heaviest first (the diagonal may be inf)
    parent = np.arange(m, dtype=np.int64)
    taken_rows, taken_columns, taken_weights = [], [], []
    left, above, previous = m - 1, budget, np.inf
    while left:
        at = above * len(sample) // pairs
        lower = sample[at:][sample[at:] < previous]  # a new threshold, below the last one
        threshold = lower[0] if at < len(sample) and len(lower) else -np.inf
        positions = open_pairs(values, threshold, _roots(parent))
        weights = rounded(flat[positions])
        if threshold > -np.inf:  # ties with the threshold wait for a block of their own
            heavier = weights > rounded(threshold)
            positions, weights = positions[heavier], weights[heavier]
        rows, columns = np.divmod(positions, m)
        if rank is None:  # the pairs are in (i, j) order: a stable sort keeps it among ties
            order = np.argsort(-weights, kind="stable")
        else:
            a, b = rank[rows], rank[columns]
            key = np.minimum(a, b) * m + np.maximum(a, b)
            single = len(weights) and weights.min() == weights.max()
            order = np.argsort(key) if single else np.lexsort((key, -weights))
        accepted = order[spanning_edges(rows[order], columns[order], parent, left)]
        taken_rows.append(rows[accepted])
        taken_columns.append(columns[accepted])
        taken_weights.append(weights[accepted])
        left -= len(accepted)
        if threshold == -np.inf:
            break
        above, previous = above * 4, threshold
    return (
        np.concatenate(taken_rows or [empty]),
        np.concatenate(taken_columns or [empty]),
        np.concatenate(taken_weights or [np.empty(0)]),
    )


def _largest_pair_weight(values) -> float:
    """The largest ``|w[i, j]|``, ``i != j``: the scale of the tie rounding (the diagonal is not
    an edge, so a large or missing self-weight must not merge the pairs' weights)."""
    if len(values) < 2:
        return 0.0
    largest = max(values.max(), -values.min())  # no temporary, but the diagonal is in it
    if largest == largest and not (np.abs(np.diagonal(values)) >= largest).any():
        return float(largest)
    pairs = values.copy()
    np.fill_diagonal(pairs, 0.0)
    return float(max(pairs.max(), -pairs.min()))


def _roots(parent) -> np.ndarray:
    """Every node's root in a union-find forest (``parent[v]``: v's link, a root its own)."""
    root = parent
    while True:
        grand = root[root]
        if np.array_equal(grand, root):
            return root
        root = grand


def _checked_rank(rank, m) -> np.ndarray:
    rank = np.asarray(rank, dtype=np.int64)
    if rank.shape != (m,) or not np.array_equal(np.sort(rank), np.arange(m)):
        raise ValueError(f"rank must be a permutation of 0 .. {m - 1}, one entry per feature.")
    return rank


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
    dag = empty_feature_graph(order)
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
    # attributes are copied only when there are any (copying a thousand empty dicts is
    # most of the cost of a wide tree's graph)
    nodes, edges = feature_dag.nodes(data=True), feature_dag.edges(data=True)
    dag.add_nodes_from(nodes if any(data for _, data in nodes) else feature_dag.nodes)
    dag.add_edges_from([(class_node, f) for f in feature_dag.nodes])
    dag.add_edges_from(edges if any(data for *_, data in edges) else feature_dag.edges)
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


def markov_blanket(structure: nx.DiGraph, node) -> list:
    """The Markov blanket of ``node``: its parents, its children and its children's other parents.

    Given its Markov blanket, a node is independent of every other node of the
    network, so a classifier whose class is an ordinary node predicts from these
    alone. Listed in the graph's node order.

    Examples
    --------
    >>> dag = nx.DiGraph([("a", "c"), ("c", "d"), ("b", "d"), ("d", "e"), ("f", "a")])
    >>> markov_blanket(dag, "c")
    ['a', 'd', 'b']
    """
    if node not in structure:
        raise ValueError(f"{node!r} is not a node of the graph.")
    children = set(structure.successors(node))
    blanket = set(structure.predecessors(node)) | children
    for child in children:
        blanket.update(structure.predecessors(child))
    blanket.discard(node)
    return [v for v in structure.nodes if v in blanket]


def feature_parents(structure: nx.DiGraph, class_node) -> dict:
    """Each feature's parents other than the class, in the order stored in the graph."""
    return {
        node: [p for p in structure.predecessors(node) if p != class_node]
        for node in structure.nodes
        if node != class_node
    }


def forest_from_weights(weights, features=None, rank=None) -> nx.Graph:
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
    rank : array-like of int, optional
        Each feature's place in the tie-break order (default: its position),
        as in :func:`tree_from_weights`.

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
    forest = tree_from_weights(weights, features, rank)
    forest.remove_edges_from([(u, v) for u, v, w in forest.edges(data="weight") if not w > 0])
    return forest


def kdb_feature_dag(
    cmi, class_mi, k, features=None, order=None, discrete=None, structural=None
) -> nx.DiGraph:
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
    discrete, structural : sequence of bool, optional
        Each feature's capabilities (default: all discrete and structural).
        The kind rule: a discrete feature takes only discrete parents, a
        continuous one at most one continuous parent, and a feature that is
        not structural neither takes nor gives parents; candidates that break
        it are skipped.

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
    parents, order = kdb_parents(cmi, class_mi, k, features, order, discrete, structural)
    dag = empty_feature_graph(features)
    dag.graph["order"] = order
    for child, chosen in zip(order, parents, strict=True):
        dag.add_edges_from((features[j], child) for j in chosen)
    return dag


def kdb_parents(
    cmi, class_mi, k, features, order=None, discrete=None, structural=None, candidates=None
):
    """The parents :func:`kdb_feature_dag` gives each feature, without building the graph.

    Returns
    -------
    parents : list of list of int
        For each feature of ``order``, its parents' positions in ``features``,
        by decreasing I(X_i; X_j | C).
    order : list
        The feature order used.

    ``candidates``: a boolean per feature, whether it may be a parent (default: every
    feature may); a child takes its ``k`` strongest earlier candidates.

    Examples
    --------
    >>> cmi = np.array([[0, 3, 1], [3, 0, 2], [1, 2, 0]])
    >>> kdb_parents(cmi, [0.1, 0.3, 0.2], 2, ["a", "b", "c"])
    ([[], [1], [1, 2]], ['b', 'c', 'a'])
    >>> kdb_parents(cmi, [0.1, 0.3, 0.2], 2, ["a", "b", "c"], candidates=[True, False, True])
    ([[], [], [2]], ['b', 'c', 'a'])
    """
    features = list(features)
    k = check_int(k, "k")
    values = np.asarray(cmi, dtype=float)
    _check_finite(values, features, "cmi")
    values = _round_ties(values)
    if order is None:
        relevance = np.asarray(class_mi, dtype=float)
        _check_finite(relevance, features, "class_mi")
        relevance = _round_ties(relevance)
        order = [features[i] for i in sorted(range(len(features)), key=lambda i: -relevance[i])]
    order = list(order)
    if len(order) != len(features) or set(order) != set(features):
        raise ValueError(f"order must be a permutation of the features {features}, got {order}.")
    discrete = np.ones(len(features), bool) if discrete is None else np.asarray(discrete)
    structural = np.ones(len(features), bool) if structural is None else np.asarray(structural)
    candidates = structural if candidates is None else structural & np.asarray(candidates, bool)
    position = {name: i for i, name in enumerate(features)}
    ordered = np.array([position[name] for name in order], dtype=np.intp)
    parents = []
    for rank, child in enumerate(order):
        i = position[child]
        chosen, continuous_parent = [], False
        parents.append(chosen)
        if not structural[i]:
            continue
        earlier = ordered[:rank]
        strength = values[i, earlier]
        for e in np.argsort(-strength, kind="stable").tolist():  # ties: earlier in order
            j = int(earlier[e])
            if len(chosen) == k:
                break
            if not candidates[j] or (discrete[i] and not discrete[j]):
                continue
            if not discrete[j]:
                if continuous_parent:
                    continue
                continuous_parent = True
            chosen.append(j)
    return parents, order


def _check_finite(values, features, name):
    """A ValueError naming the first NaN or infinite weight (no tree is heavier than inf)."""
    bad = ~np.isfinite(values)
    if values.ndim == 2:
        bad &= ~np.eye(*values.shape, dtype=bool)  # the diagonal is not read
    if bad.any():
        where = np.argwhere(bad)[0]
        cell = tuple(features[i] if i < len(features) else i for i in where)
        raise ValueError(
            f"{name} must be finite numbers; {name}[{', '.join(map(repr, cell))}] is "
            f"{values[tuple(where)]}."
        )


def _round_ties(values):
    """Round to 12 significant digits of the largest magnitude (see tree_from_weights)."""
    scale = np.abs(values).max() if values.size else 0.0
    return np.round(values / scale, 12) * scale if scale > 0 else values


def name_order(features) -> list:
    """Positions of ``features`` sorted by name, numbers within names compared as numbers.

    The order in which the order-free structure learners (TAN and its variants)
    see the columns, so that their default root and their ties are decided by
    the data and the column names, never by where a column sits in the table:
    ``block2`` comes before ``block10``; names that print alike (``1`` and
    ``"1"``) are ordered by type.

    Examples
    --------
    >>> name_order(["block10", "age", "block2"])
    [1, 2, 0]
    """
    return list(_name_order(tuple(features)))


@functools.lru_cache(maxsize=16)
def _name_order(features: tuple) -> tuple:
    # one fit asks for its columns' order several times (root, ties, orientation)
    def key(k):
        name = features[k]
        chunks = re.split(r"(\d+)", str(name))  # text, number, text, ...: aligned types
        natural = tuple(int(c) if i % 2 else c for i, c in enumerate(chunks))
        return natural, type(name).__name__, repr(name)

    return tuple(sorted(range(len(features)), key=key))


# -- the kind rule: a continuous feature never parents a discrete one -----------------------
def structure_root(root, features, discrete, structural):
    """The root of a feature tree: ``root`` (a name or position, checked) or a default.

    The default is the first discrete feature that may take part in a
    structure, else the first such feature, else the first feature. A root
    that takes no part in structures is a ``ValueError`` (when others do).
    """
    features = list(features)
    candidates = [f for f, d, s in zip(features, discrete, structural, strict=True) if d and s]
    usable = [f for f, s in zip(features, structural, strict=True) if s]
    if root is None:
        return (candidates or usable or features)[0]
    name = features[resolve_column(root, features, what="root")]
    if not structural[features.index(name)] and usable:
        raise ValueError(
            f"root {name!r} depends on the class only and takes no part in the tree; "
            f"choose one of {usable}."
        )
    return name


def constrained_tree(weights, features, discrete, structural, forest=False, rank=None) -> nx.Graph:
    """Maximum spanning tree (or forest) in which no continuous feature links discrete ones.

    A discrete feature must never get a continuous parent, so in every valid
    tree the discrete features form a connected subtree: a valid tree is the
    union of a spanning tree of the discrete features and a spanning tree of
    the continuous features plus one node standing for all discrete ones.
    Both parts are maximised independently: the discrete features' maximum
    spanning tree, and the maximum spanning tree of the contracted graph,
    whose weight from the hub to a continuous feature is its largest weight to
    any discrete feature (ties to the first). The same holds for forests
    (``forest=True``: positive weights only, :func:`forest_from_weights`) with
    "a connected subtree" read per component. Features that take no part in
    structures (``structural`` False) are isolated nodes. With a single kind
    this is :func:`tree_from_weights` (or :func:`forest_from_weights`). Ties
    break by feature order, or by ``rank`` (each feature's place in the
    tie-break order), as in :func:`tree_from_weights`.

    Examples
    --------
    A continuous feature ``g`` may not join the discrete ``a`` and ``b``:

    >>> w = np.array([[0, 1, 5], [1, 0, 5], [5, 5, 0]])
    >>> tree = constrained_tree(w, ["a", "b", "g"], [True, True, False], [True] * 3)
    >>> sorted(tree.edges())
    [('a', 'b'), ('a', 'g')]
    """
    span = forest_from_weights if forest else tree_from_weights
    values = np.asarray(weights, dtype=float)
    features = list(features)
    if rank is not None:
        rank = _checked_rank(rank, len(features))
    by_rank = range(len(features)) if rank is None else np.argsort(rank).tolist()
    cat = [j for j in by_rank if discrete[j] and structural[j]]
    cont = [j for j in by_rank if not discrete[j] and structural[j]]
    if len(cat) == len(features) or len(cont) == len(features):
        return span(values, features, rank)
    tree = nx.Graph()
    tree.add_nodes_from(features)
    if len(cat) > 1:
        sub = span(values[np.ix_(cat, cat)], [features[j] for j in cat])
        tree.add_edges_from(sub.edges(data=True))
    if cont:
        hub = [-1] if cat else []
        nodes = hub + cont
        contracted = np.zeros((len(nodes), len(nodes)))
        contracted[len(hub) :, len(hub) :] = values[np.ix_(cont, cont)]
        if cat:
            block = values[np.ix_(cat, cont)]
            best = np.argmax(block, axis=0)
            contracted[0, 1:] = contracted[1:, 0] = block.max(axis=0)
        sub = span(contracted, list(range(len(nodes))))
        for u, v in sub.edges():
            a, b = nodes[u], nodes[v]
            if a == -1 or b == -1:
                b = b if a == -1 else a
                a = cat[best[cont.index(b)]]
            tree.add_edge(features[a], features[b], weight=values[a, b])
    return tree


def orient_constrained(tree, features, discrete, root, rank=None) -> nx.DiGraph:
    """Orient a :func:`constrained_tree` so that no discrete feature has a continuous parent.

    The component holding ``root`` is rooted there; a continuous root whose
    component has discrete features is a ``ValueError``. Every other
    component is rooted at its first discrete feature, or its first feature,
    in the order of ``features`` or, given, of ``rank`` (each feature's place).
    The DAG lists its nodes in the order of ``features``.
    """
    features = list(features)
    is_discrete = dict(zip(features, discrete, strict=True))
    dag = empty_feature_graph(features)
    if is_discrete.get(root, False):  # the usual case: one tree, a categorical root
        edges = list(nx.bfs_edges(tree, root))
        if len(edges) == len(features) - 1:  # it spans every feature: nothing else to root
            dag.add_edges_from(edges)
            return dag
    places = range(len(features)) if rank is None else _checked_rank(rank, len(features)).tolist()
    position = dict(zip(features, places, strict=True))
    for component in sorted(nx.connected_components(tree), key=lambda c: min(map(position.get, c))):
        cat = sorted((v for v in component if is_discrete[v]), key=position.get)
        if root in component:
            if not is_discrete[root] and cat:
                raise ValueError(
                    f"root {root!r} is continuous, but a categorical feature never gets a "
                    "continuous parent, so the root must be one of the categorical features "
                    f"connected to it: {cat}."
                )
            start = root
        else:
            start = cat[0] if cat else min(component, key=position.get)
        dag.add_edges_from(nx.bfs_edges(tree, start))
    return dag
