"""Slow, obviously-correct references used by the tests (loops over rows on purpose)."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import networkx as nx
import numpy as np
import pandas as pd


def slow_cmi(X: pd.DataFrame, y) -> pd.DataFrame:
    """I(Xi;Xj|C) in nats by counting row by row; each pair uses rows observing both."""
    names = list(X.columns)
    y = list(y)
    out = pd.DataFrame(0.0, index=names, columns=names)
    for a, b in itertools.combinations(names, 2):
        rows = [
            (xa, xb, c)
            for xa, xb, c in zip(X[a], X[b], y, strict=True)
            if not pd.isna(xa) and not pd.isna(xb)
        ]
        n = len(rows)
        n_abc = Counter(rows)
        n_ac = Counter((xa, c) for xa, _, c in rows)
        n_bc = Counter((xb, c) for _, xb, c in rows)
        n_c = Counter(c for _, _, c in rows)
        total = 0.0
        for (xa, xb, c), count in n_abc.items():
            total += count / n * math.log(count * n_c[c] / (n_ac[(xa, c)] * n_bc[(xb, c)]))
        out.loc[a, b] = out.loc[b, a] = total
    return out


def cpd_as_dict(cpd) -> dict:
    """A pgmpy TabularCPD as {frozenset((variable, state), ...): probability}."""
    variables = cpd.variables  # child first, then evidence
    states = [cpd.state_names[v] for v in variables]
    values = cpd.get_values()  # (child card, product of evidence cards)
    out = {}
    for k, child_state in enumerate(states[0]):
        for col, evidence in enumerate(itertools.product(*states[1:])):
            key = frozenset(zip(variables, (child_state, *evidence), strict=True))
            out[key] = values[k, col]
    return out


def slow_network_log_joint(
    parents, X, y, row, alpha=1.0, prior_strength=10.0, smoothing=1e-9, floor_scale="largest"
):
    """log P(c, x) of one complete ``row`` for every class, every parameter fitted afresh.

    ``parents`` maps each feature to its feature parents (the class is a parent of every
    feature). A categorical (non-float) feature is a table of smoothed frequencies counted
    row by row. A float feature is Gaussian given the class and the states of its
    categorical parents, linear in its float parents: the least-squares fit of the group's
    rows plus ``prior_strength`` pseudo-rows carrying the moments of the class's rows (the
    class's own fit alone when there is no categorical parent), its variance the mean squared
    residual plus ``smoothing`` times the largest float-column variance (``floor_scale=
    "column"``: the column's own variance, its value squared for a constant column, 1 for
    zeros).
    """
    names = list(X.columns)
    records = [dict(zip(names, values, strict=True)) for values in X.itertuples(index=False)]
    labels = list(y)
    classes = sorted(set(labels))
    numeric = {f for f in names if X[f].dtype.kind == "f"}
    if floor_scale == "column":
        floors = {
            f: smoothing * (float(np.var(X[f])) or float(np.mean(X[f])) ** 2 or 1.0)
            for f in numeric
        }
    else:
        largest = max((float(np.var(X[f])) for f in numeric), default=1.0)
        floors = dict.fromkeys(numeric, smoothing * largest)
    out = {}
    for c in classes:
        in_class = [r for r, label in zip(records, labels, strict=True) if label == c]
        total = math.log((len(in_class) + alpha) / (len(labels) + alpha * len(classes)))
        for f in names:
            states = [p for p in parents[f] if p not in numeric]
            slopes = [p for p in parents[f] if p in numeric]
            group = [r for r in in_class if all(r[p] == row[p] for p in states)]
            if f not in numeric:
                assert not slopes, f"categorical {f!r} with a float parent"
                r_f = len({r[f] for r in records})
                hits = sum(r[f] == row[f] for r in group)
                total += math.log((hits + alpha) / (len(group) + alpha * r_f))
                continue

            def moments(rows, f=f, slopes=slopes):
                z = np.array([[1.0, *(r[p] for p in slopes), r[f]] for r in rows])
                return z.T @ z  # sums of products of (1, parents, child)

            pooled = moments(group)
            if states:  # the class's rows, scaled to prior_strength pseudo-rows
                pooled = pooled + prior_strength * moments(in_class) / len(in_class)
            count = pooled[0, 0]
            beta = np.linalg.solve(pooled[:-1, :-1], pooled[:-1, -1])
            variance = (pooled[-1, -1] - beta @ pooled[:-1, -1]) / count + floors[f]
            mean = beta @ np.array([1.0, *(row[p] for p in slopes)])
            total += -0.5 * (math.log(2 * math.pi * variance) + (row[f] - mean) ** 2 / variance)
        out[c] = total
    return out


def python_kruskal_tree(weights, features=None, rank=None) -> nx.Graph:
    """The maximum spanning tree as ``structure.tree_from_weights`` computed it before its
    compiled union-find: Kruskal over numpy sorts of the heaviest pairs first, then the rest,
    with a union-find in Python (kept verbatim as the slow reference; the finite-weight
    and rank checks are the public function's, tested there).
    """
    if features is None:
        features = list(weights.columns) if isinstance(weights, pd.DataFrame) else None
    values = np.asarray(weights, dtype=float)
    features = list(range(len(values))) if features is None else list(features)
    m = len(features)
    scale = max(values.max(), -values.min()) if values.size else 0.0  # |w| max, no temporary
    rank = None if rank is None else np.asarray(rank, dtype=np.int64)

    def rounded(w):
        return np.round(w / scale, 12) * scale if scale > 0 else w

    # pairs (i, j), i < j, as flat positions i * m + j: ascending is lexicographic order
    flat = np.ascontiguousarray(values).ravel()
    budget = max(4 * m, 16)
    parent = list(range(m))  # union-find on a list: numpy scalars are slower one at a time

    def find(v):
        while parent[v] != v:
            parent[v] = parent[parent[v]]
            v = parent[v]
        return v

    def roots() -> np.ndarray:
        """Every node's root, compressed into ``parent`` as well."""
        nonlocal parent
        array = np.array(parent)
        while True:
            grand = array[array]
            if np.array_equal(grand, array):
                parent = array.tolist()
                return array
            array = grand

    edges = []

    def kruskal(positions):
        """Add the pairs at flat ``positions`` (ascending) by decreasing weight, ties in order."""
        weights = rounded(flat[positions])
        if rank is None:
            # stable sort on -w keeps (i, j) lexicographic order among ties, as networkx does
            order = np.argsort(-weights, kind="stable")
        else:  # ties in the lexicographic order of the (lower, higher) rank pairs
            a, b = np.divmod(positions, m)
            a, b = rank[a], rank[b]
            order = np.lexsort((np.minimum(a, b) * m + np.maximum(a, b), -weights))
        for start in range(0, len(order), budget):  # in slices: most end early
            if len(edges) == m - 1:
                return
            chunk = order[start : start + budget]
            rows, columns = np.divmod(positions[chunk], m)
            # an edge whose ends were joined before this slice is rejected in one vectorised
            # test (most of them, with many features); the others go through the union-find
            root = roots()
            open_ = root[rows] != root[columns]
            for i, j, w in zip(
                rows[open_].tolist(),
                columns[open_].tolist(),
                weights[chunk][open_].tolist(),
                strict=True,
            ):
                root_i, root_j = find(i), find(j)
                if root_i != root_j:
                    parent[root_j] = root_i
                    edges.append((features[i], features[j], w))
                    if len(edges) == m - 1:
                        return

    def upper_pairs(where=None):
        """Flat positions of the pairs i < j (where ``where`` holds)."""
        mask = np.triu(np.ones((m, m), dtype=bool) if where is None else where, k=1)
        return np.flatnonzero(mask)

    # Kruskal stops at m - 1 edges, so sorting every pair is mostly wasted: first the
    # heaviest few, all of them above a threshold t, then (rarely) the rest. This is the
    # same order as one sort when every first edge outranks t even after rounding.
    rest = None  # every pair
    if m * (m - 1) // 2 > budget:
        # t from a strided sample of the matrix: partitioning all pairs is slow when most
        # weights tie (the matrix is symmetric: both triangles hold the same weights)
        sample = flat[:: max(1, len(flat) // (4 * budget))]
        keep = max(1, len(sample) * budget // len(flat))
        t = np.partition(sample, len(sample) - keep)[len(sample) - keep]
        heavy = np.flatnonzero(flat > t)
        first = heavy[heavy // m < heavy % m]
        if len(first) and rounded(flat[first].min()) > rounded(t):
            kruskal(first)
            rest = upper_pairs(values <= t) if len(edges) < m - 1 else first[:0]
    kruskal(upper_pairs() if rest is None else rest)
    tree = nx.Graph()
    tree.add_nodes_from(features)
    tree.add_edges_from((u, v, {"weight": w}) for u, v, w in edges)
    return tree
