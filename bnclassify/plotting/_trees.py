"""Two trees side by side and the contact matrix with both trees' edges marked on it."""

from __future__ import annotations

from numbers import Integral, Real

import matplotlib.pyplot as plt
import matplotlib.transforms as mtransforms
import networkx as nx
import numpy as np
import pandas as pd
from matplotlib.patches import Rectangle

from ..validation import InstanceOf, Interval, check_int, check_parameter, float_array
from ._heatmap import plot_weights
from ._layout import feature_graph, structure_of
from ._palette import CONTACT_CMAP, FONTSIZE, SHARED_COLOR, TREE_A_COLOR, TREE_B_COLOR
from ._readback import tag
from ._structure import format_weight, plot_structure

__all__ = ["expected_shared_edges", "plot_tree_comparison", "shared_edges_permutation_pvalue"]

#: Rows of each edge table drawn under its tree (the strongest edges first; the figure's
#: ``edge_tables`` hold every edge).
MAX_TABLE_ROWS = 40
#: The tallest the trees' panels get (inches), however deep the trees.
MAX_TREE_HEIGHT = 16.0


def _undirected_feature_edges(model):
    graph, class_node, _ = structure_of(model)
    return {frozenset(e) for e in feature_graph(graph, class_node).edges}


def _depth(model):
    """Levels below the root(s) of a model's feature graph."""
    graph, class_node, _ = structure_of(model)
    features = feature_graph(graph, class_node)
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


def shared_edges_permutation_pvalue(model_a, model_b, n_permutations=20_000, random_state=0):
    """Permutation p-value of the number of feature edges two structures share.

    ``model_b``'s feature graph keeps its shape while its nodes get random
    labels (a uniformly random permutation of the features, ``n_permutations``
    times); the p-value is the share of relabellings that share at least as
    many undirected edges with ``model_a`` as ``model_b`` does. It tests "the
    second structure knows nothing about which features go together" while
    keeping its degrees, unlike ``expected_shared_edges``, which assumes
    uniformly random spanning trees.

    Parameters
    ----------
    model_a, model_b : fitted bnclassify classifiers or networkx graphs
        On the same features (e.g. a learned TAN and a contact-derived
        :class:`~bnclassify.SimplerTAN`).
    n_permutations : int, default=20000
        Random relabellings drawn.
    random_state : int, default=0
        Seed of the relabellings.

    Returns
    -------
    float
        In ``[0, 1]``; its resolution is ``1 / n_permutations``.

    Examples
    --------
    >>> import networkx as nx
    >>> path = nx.path_graph(["a", "b", "c", "d"])
    >>> shared_edges_permutation_pvalue(path, path, n_permutations=2_000)  # exactly: 2/24
    0.075
    """
    n_permutations = check_int(
        n_permutations,
        "n_permutations",
        minimum=1,
        maximum=MAX_PERMUTATIONS,
        why=": the p-value's resolution, 1 / n_permutations, is finer than any figure shows, "
        "and the cost grows with it",
    )
    check_parameter(random_state, "random_state", SEED)
    edges_a, edges_b = _undirected_feature_edges(model_a), _undirected_feature_edges(model_b)
    nodes = sorted(
        {str(n) for model in (model_a, model_b) for n in feature_graph(*structure_of(model)[:2])}
    )
    index = {name: k for k, name in enumerate(nodes)}
    m = len(nodes)
    in_a = np.zeros((m, m), dtype=bool)
    for u, v in map(tuple, edges_a):
        in_a[index[str(u)], index[str(v)]] = in_a[index[str(v)], index[str(u)]] = True
    if not edges_b:
        return 1.0
    i, j = np.array([(index[str(u)], index[str(v)]) for u, v in map(tuple, edges_b)]).T
    observed = in_a[i, j].sum()
    rng = np.random.default_rng(random_state)
    at_least = 0
    step = max(1, PERMUTATION_CELLS // max(m, 1))
    for start in range(0, n_permutations, step):  # in blocks: the same draws as one block
        relabel = np.argsort(rng.random((min(step, n_permutations - start), m)), axis=1)
        at_least += int((in_a[relabel[:, i], relabel[:, j]].sum(axis=1) >= observed).sum())
    return at_least / n_permutations


#: What ``numpy.random.default_rng`` takes as a seed.
SEED = [
    None,
    Interval(Integral, 0, None, closed="left"),
    InstanceOf(np.random.Generator, "a numpy Generator"),
]
#: The most permutations :func:`shared_edges_permutation_pvalue` draws.
MAX_PERMUTATIONS = 10**7
#: Cells of random keys drawn at a time (permutations x features).
PERMUTATION_CELLS = 1 << 21


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
    edge_support=None,
    support_name="support",
    pvalue=None,
):
    """Two trees side by side and the contact matrix with both trees' edges marked on it.

    Panel 1 is ``model_a``'s structure, panel 2 ``model_b``'s, panel 3 the
    contact matrix as a heatmap (diagonal left blank) in which the cells of
    ``model_a``'s feature edges are outlined in the upper triangle and those of
    ``model_b`` in the lower one. Edges both trees have (as undirected edges:
    the roots may differ) are vermillion everywhere; the title counts them,
    beside what chance would give (the number of edges two uniformly random
    spanning trees share on average). Above
    each tree, what its edge labels are (CMI in nats, or contacts).

    Under each tree, a table lists its edges with ``model_a``'s weight (the
    CMI, for a TAN) and the contact count of each, and, under ``model_a``,
    each edge's support when ``edge_support`` is given: the contacts behind
    every learned edge and the data's dependence behind every contact edge. A
    note says that arrows point away from each tree's root, a choice of the
    fit (the first feature by default), not something the data show.

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
    edge_support : DataFrame, optional
        Feature x feature support of each edge, written on ``model_a``'s edges:
        e.g. ``BMATAN(...).fit(X, y).edge_posterior_`` (posterior probability
        of the edge under Bayesian model averaging), or how often each edge
        appears in trees learned on bootstrap resamples.
    support_name : str, default="support"
        What ``edge_support`` is, for the labels (e.g. ``"posterior"``).
    pvalue : float, optional
        The permutation p-value of the shared edge count (see
        :func:`shared_edges_permutation_pvalue`), printed in the title beside
        the count.

    Returns
    -------
    matplotlib.figure.Figure
        With three axes; ``fig.shared_edges`` holds the shared undirected
        edges as sorted ``(u, v)`` pairs; ``fig.edge_tables`` maps ``"a"`` and
        ``"b"`` to the tables drawn under each tree (DataFrames, one row per edge).

    Examples
    --------
    >>> from bnclassify import TAN, SimplerTAN
    >>> from bnclassify.datasets import load_p450
    >>> from bnclassify.plotting import plot_tree_comparison
    >>> p450 = load_p450()
    >>> tan = TAN().fit(p450.data, p450.target)
    >>> stan = SimplerTAN(p450.contact_matrix).fit(p450.data, p450.target)
    >>> fig = plot_tree_comparison(tan, stan, p450.contact_matrix)
    >>> fig.shared_edges
    [('block1', 'block7'), ('block2', 'block7'), ('block6', 'block7')]
    >>> table = fig.edge_tables["a"].set_index("edge")  # TAN's edges
    >>> int(table.loc["block1 → block7", "contacts"])
    65
    """
    check_parameter(fontsize, "fontsize", FONTSIZE)
    if labels is None:
        labels = (_model_label(model_a), _model_label(model_b))
    if isinstance(labels, str) or not (np.iterable(labels) and len(list(labels)) == 2):
        raise ValueError(f"labels must be a pair of names, one per model, got {labels!r:.60}.")
    label_a, label_b = (str(label) for label in labels)
    edges_a, edges_b = _undirected_feature_edges(model_a), _undirected_feature_edges(model_b)
    shared = edges_a & edges_b
    if contact_matrix is None:
        contact_matrix = getattr(model_b, "weights_", None)
        if contact_matrix is None:
            raise ValueError("Pass a contact_matrix: model_b has no weights_ to show.")
    contact_matrix = _labelled(
        contact_matrix, model_b, "contact_matrix", "model_b", edges_a | edges_b
    )
    if edge_support is not None:
        edge_support = _labelled(edge_support, model_a, "edge_support", "model_a", edges_a)
    if pvalue is not None and (
        isinstance(pvalue, bool) or not isinstance(pvalue, Real) or not 0 <= pvalue <= 1
    ):
        raise ValueError(f"pvalue must be a probability in [0, 1] or None, got {pvalue!r:.40}.")
    if fig is None:
        depth = max(_depth(model_a), _depth(model_b))
        # the edge tables under the trees, and the trees' depth: both capped, so that a
        # comparison of two 300-feature trees is a page, not a poster
        table_rows = 1 + min(max(len(edges_a), len(edges_b)), MAX_TABLE_ROWS + 1)
        height = min(max(5.6, 4.0 + 0.6 * depth), MAX_TREE_HEIGHT) + 0.19 * table_rows
        fig = plt.figure(figsize=(16, height), layout="constrained")
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

    fig.edge_tables = _edge_tables(
        ax_a, ax_b, model_a, model_b, contact_matrix, edge_support, support_name, fontsize
    )

    plot_weights(
        contact_matrix,
        ax=ax_m,
        cmap=CONTACT_CMAP,
        fontsize=fontsize - 1,
        colorbar_label="contacts",
    )
    ax_m.set_title(
        f"contact matrix\nupper triangle: {label_a}\nlower triangle: {label_b}",
        fontsize=fontsize + 1,
    )
    names = [str(v) for v in contact_matrix.index]
    index = {name: k for k, name in enumerate(names)}
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
            ax_m.add_patch(tag(cell, (u, v), role))
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
        title="Arrows point away from each tree's root, a choice of the fit (the first feature "
        "by default): the data give the edges, not their directions.",
        title_fontsize=fontsize - 1,
    )
    n_edges = max(len(edges_a), len(edges_b))
    heading = f"{len(shared)} of {n_edges} tree edges shared"
    n_nodes = len({n for e in edges_a | edges_b for n in e})
    if n_nodes > 1 and len(edges_a) == len(edges_b) == n_nodes - 1:  # two spanning trees
        heading += f" (chance ~{expected_shared_edges(n_nodes):.2f})"
    if pvalue is not None:
        heading += f"; overlap permutation p = {float(pvalue):.2g}"
    fig.suptitle(f"{title}: {heading}" if title else heading, fontsize=fontsize + 4)
    fig.shared_edges = sorted(tuple(sorted(map(str, e))) for e in shared)
    return fig


def _labelled(matrix, model, name, which, edges):
    """A feature x feature matrix of real numbers as a DataFrame labelled by ``model``'s
    features, checked to hold a row and a column for every end of ``edges``."""
    if isinstance(matrix, pd.DataFrame):
        values = float_array(matrix, name)
        frame = pd.DataFrame(values, index=matrix.index, columns=matrix.columns)
    else:
        nodes = list(feature_graph(*structure_of(model)[:2]).nodes)
        if isinstance(matrix, str | bytes) or not np.iterable(matrix):
            raise TypeError(
                f"{name} must be a DataFrame labelled by {which}'s features or a square "
                f"array, got {type(matrix).__name__}."
            )
        values = float_array(matrix, name)
        if values.shape != (len(nodes), len(nodes)):
            raise ValueError(
                f"{name} has shape {values.shape}; {which} has {len(nodes)} features, "
                f"so it must be {len(nodes)} x {len(nodes)} (or a DataFrame labelled by them)."
            )
        frame = pd.DataFrame(values, index=nodes, columns=nodes)
    frame = _as_nodes(_text_labels(frame), model)
    unknown = sorted({str(n) for e in edges for n in e} - (set(frame.index) & set(frame.columns)))
    if unknown:
        raise ValueError(
            f"{name} has no row or column for the feature(s) {unknown[:5]} of {which}'s tree; "
            f"its labels are {list(frame.index)[:5]}."
        )
    return frame


def _as_nodes(frame, model):
    """``frame`` labelled by ``model``'s nodes when it is labelled by the table's own column
    labels (or, for a table without string labels, by the columns' positions) and the nodes
    are named otherwise (such columns become ``x0, x1, ...``)."""
    own = getattr(model, "feature_names_in_", None)
    names = getattr(getattr(model, "schema_", None), "names", None)
    if names is None:
        return frame
    if own is None:  # fitted without string labels: nodes x0, x1, ... for positions 0, 1, ...
        own = range(len(names))
    if len(own) != len(names):
        return frame
    node = {str(o): str(n) for o, n in zip(own, names, strict=True)}
    labels = set(frame.index) | set(frame.columns)
    if not labels <= set(node) or all(node[label] == label for label in labels):
        return frame
    return frame.set_axis([node[v] for v in frame.index], axis=0).set_axis(
        [node[v] for v in frame.columns], axis=1
    )


def _text_labels(frame):
    """``frame`` labelled by its labels' text: matched to the trees' nodes as the heatmap
    labels them (1 and "1" alike)."""
    frame = frame.set_axis([str(v) for v in frame.index], axis=0)
    return frame.set_axis([str(v) for v in frame.columns], axis=1)


def _edge_tables(ax_a, ax_b, model_a, model_b, contacts, support, support_name, fontsize):
    """Under each tree, a table of its edges: tree a's weights, contacts and support; tree b's
    contacts and tree a's weight for them. Labels on the edges would crowd the drawing."""
    weights_a = None if isinstance(model_a, nx.Graph) else getattr(model_a, "weights_", None)
    weights_a = None if weights_a is None else _text_labels(weights_a)
    short = {"I(Xi; Xj | C), nats": "CMI", "contacts": "contacts"}.get(_weight_unit(model_a))
    short = short or "weight"

    def lookup(matrix, u, v):
        u, v = str(u), str(v)
        if matrix is None or u not in matrix.index or v not in matrix.columns:
            return None
        value = matrix.loc[u, v]
        return None if pd.isna(value) else float(value)

    tables = {}
    for key, ax, model in (("a", ax_a, model_a), ("b", ax_b, model_b)):
        graph, class_node, _ = structure_of(model)
        rows = []
        for u, v in feature_graph(graph, class_node).edges:
            row = {"edge": f"{u} → {v}" if graph.is_directed() else f"{u} – {v}"}
            if short != "contacts":  # model_a's own weights are the contacts otherwise
                row[short] = lookup(weights_a, u, v)
            row["contacts"] = lookup(contacts, u, v)
            if key == "a" and support is not None:
                row[support_name] = lookup(support, u, v)
            rows.append(row)
        table = pd.DataFrame(rows)
        if table.empty:
            tables[key] = table
            continue
        table = table.sort_values(
            table.columns[1], ascending=False, key=lambda c: c.fillna(-np.inf)
        )
        table = table.reset_index(drop=True)
        tables[key] = table
        shown = table.iloc[:MAX_TABLE_ROWS]  # the strongest edges; the rest in edge_tables
        text = [
            [row["edge"]] + [
                "" if pd.isna(val) else (
                    f"{val:.2f}" if col == support_name else format_weight(val)
                )
                for col, val in row.items() if col != "edge"
            ]
            for _, row in shown.iterrows()
        ]  # fmt: skip
        if len(table) > len(shown):
            text.append([f"… {len(table) - len(shown)} more"] + [""] * (len(table.columns) - 1))
        drawn = ax.table(
            cellText=text,
            colLabels=list(table.columns),
            loc="bottom",
            cellLoc="center",
            edges="horizontal",
        )
        drawn.auto_set_font_size(False)
        drawn.set_fontsize(fontsize - 1)
        drawn.bnclassify_role = f"edge-table-{key}"
    return tables
