"""matplotlib figures of a fitted :class:`~bnclassify.SignalSubgraphClassifier`.

Like every bnclassify plot, each function takes an optional ``ax``, draws on
it, returns it and never calls ``plt.show()``. Each signal-edge cell and each
true-edge marker remembers its edge (attributes ``bnclassify_edge`` and
``bnclassify_role``), so ``bnclassify.plotting.drawn_edges(ax, role="signal")``
reads the drawn signal subgraph back. Colours are from the plotting palette.
"""

from __future__ import annotations

from numbers import Integral, Real

import matplotlib.pyplot as plt
import numpy as np
from matplotlib import patheffects
from matplotlib.colors import ListedColormap
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle
from sklearn.utils.validation import check_is_fitted

from ..validation import check_parameter, float_array
from ._palette import CATEGORY_COLORS, FONTSIZE, MISSED_COLOR, SIGNAL_COLOR, TRUE_COLOR
from ._readback import tag

__all__ = ["plot_signal_edge_probabilities", "plot_signal_edges"]


def _tag(artist, edge, role):
    return tag(artist, (int(edge[0]), int(edge[1])), role)


def _vertex_labels(model, vertex_labels):
    n = model.n_vertices_
    if vertex_labels is None:
        return [str(v) for v in range(n)]
    if isinstance(vertex_labels, str | bytes) or not np.iterable(vertex_labels):
        raise TypeError(
            f"vertex_labels must be a sequence of {n} names, got {vertex_labels!r:.40}."
        )
    labels = [str(v) for v in vertex_labels]
    if len(labels) != n:
        raise ValueError(
            f"vertex_labels has {len(labels)} entries but the networks have {n} vertices."
        )
    return labels


def _is_vertex_number(value) -> bool:
    """An integer, or a float holding one (1.0); not a boolean."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, Real):
        return False
    return isinstance(value, Integral) or float(value).is_integer()


def _vertex_pairs(edges, n, name) -> list:
    """``edges`` as ``(i, j)`` pairs of vertex numbers in ``0 .. n-1``, or an error naming
    ``name`` and the first entry that is not one."""
    if isinstance(edges, str | bytes) or not np.iterable(edges):
        raise TypeError(f"{name} must be a sequence of (i, j) vertex pairs, got {edges!r:.60}.")
    pairs = []
    for edge in edges:
        if (
            isinstance(edge, str | bytes)
            or not np.iterable(edge)
            or len(edge := tuple(edge)) != 2
            or not all(_is_vertex_number(v) for v in edge)
        ):
            raise ValueError(
                f"{name} must hold (i, j) pairs of vertex numbers; {edge!r:.40} is not one."
            )
        i, j = int(edge[0]), int(edge[1])
        if not (0 <= i < n and 0 <= j < n):
            raise ValueError(f"{name} holds {(i, j)}, outside the {n} vertices (0 .. {n - 1}).")
        pairs.append((i, j))
    return pairs


#: Parameters that make an estimator a signal-subgraph classifier (duck typing: no import).
_SIGNAL_PARAMETERS = ("n_edges", "n_vertices_signal", "directed", "loops")


def _check_model(model):
    if not all(hasattr(model, name) for name in _SIGNAL_PARAMETERS):
        raise TypeError(f"Expected a SignalSubgraphClassifier, got {type(model).__name__}.")
    check_is_fitted(model, "signal_edges_")


def plot_signal_edges(
    model,
    *,
    true_edges=None,
    significance=False,
    vertex_labels=None,
    ax=None,
    fontsize=9,
):
    """The estimated signal subgraph as an adjacency-matrix heatmap.

    Cell ``(i, j)`` is filled when ``(i, j)`` is an estimated signal edge
    (both ``(i, j)`` and ``(j, i)`` for undirected networks). With
    ``significance=True`` the heatmap shows instead ``-log10 p`` of every
    edge's test, with the signal edges outlined, which shows how clearly the
    signal stands out of the noise. True signal edges, when known (e.g. from
    :func:`~bnclassify.datasets.make_signal_subgraph_networks`), are marked
    with a ring (black when recovered, vermillion when missed), and the title
    counts how many were recovered.

    Parameters
    ----------
    model : fitted SignalSubgraphClassifier
    true_edges : iterable of (int, int), optional
        The true signal edges, to mark and count.
    significance : bool, default=False
        Colour every cell by ``-log10`` of its p-value instead of 0/1.
    vertex_labels : sequence of str, optional
        Names of the vertices (e.g. brain regions), ``0 .. n-1`` by default.
    ax : matplotlib Axes, optional
    fontsize : float, default=9

    Returns
    -------
    matplotlib.axes.Axes
        ``ax.recovered`` is the number of true edges recovered (``None``
        without ``true_edges``).

    Examples
    --------
    >>> from bnclassify import SignalSubgraphClassifier
    >>> from bnclassify.datasets import make_signal_subgraph_networks
    >>> X, y, truth = make_signal_subgraph_networks(
    ...     100, 10, n_signal_edges=5, return_truth=True, random_state=0
    ... )
    >>> clf = SignalSubgraphClassifier(n_edges=5).fit(X, y)
    >>> ax = plot_signal_edges(clf, true_edges=truth.signal_edges)
    >>> ax.get_images()[0].get_array().sum()  # 5 undirected edges, both cells each
    np.float64(10.0)
    """
    check_parameter(fontsize, "fontsize", FONTSIZE)
    _check_model(model)
    n = model.n_vertices_
    labels = _vertex_labels(model, vertex_labels)
    directed = model.directed
    if ax is None:
        side = min(9.0, 3.0 + 0.2 * n)
        _, ax = plt.subplots(figsize=(side + (1.2 if significance else 0), side))
    cells = []
    for i, j in model.signal_edges_:
        cells.append(((i, j), "signal"))
        if not directed and i != j:
            cells.append(((j, i), "signal-mirror"))
    adjacency = np.zeros((n, n))
    for (i, j), _ in cells:
        adjacency[i, j] = 1.0

    if significance:
        with np.errstate(divide="ignore"):
            strength = -np.log10(model.pvalues_)
        finite = strength[np.isfinite(strength)]
        top = finite.max() if finite.size else 1.0
        strength = np.where(np.isposinf(strength), top, strength)
        image = ax.imshow(strength, cmap="Greys", vmin=0, vmax=max(top, 1e-12))
        bar = ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
        bar.set_label(r"$-\log_{10}$ p-value of the edge's test", fontsize=fontsize)
        bar.ax.tick_params(labelsize=fontsize - 1)
        face, edge_color, width = "none", SIGNAL_COLOR, 2.0
    else:
        ax.imshow(adjacency, cmap=ListedColormap(["#FFFFFF", SIGNAL_COLOR]), vmin=0, vmax=1)
        face, edge_color, width = "none", "#00446B", 0.8
    for (i, j), role in cells:
        square = Rectangle(
            (j - 0.5, i - 0.5), 1, 1, facecolor=face, edgecolor=edge_color, linewidth=width
        )
        ax.add_patch(_tag(square, (i, j), role))

    handles = [
        Patch(
            facecolor="none" if significance else SIGNAL_COLOR,
            edgecolor=edge_color,
            linewidth=width,
            label="estimated signal edge",
        )
    ]
    recovered = None
    if true_edges is not None:
        true_edges = _vertex_pairs(true_edges, n, "true_edges")
        canonical = (lambda e: e) if directed else (lambda e: tuple(sorted(e)))
        estimated = {canonical(e) for e in model.signal_edges_}
        truth = {canonical(e) for e in true_edges}
        recovered = len(estimated & truth)
        halo = patheffects.withStroke(linewidth=3.2, foreground="white")  # readable on black
        for i, j in sorted(truth):
            spots = [(i, j)] if directed or i == j else [(i, j), (j, i)]
            for k, (r, c) in enumerate(spots):
                (marker,) = ax.plot(
                    c,
                    r,
                    marker="o",
                    markersize=max(3.0, min(9.0, 160 / n)),
                    markerfacecolor="none",
                    markeredgecolor=TRUE_COLOR if adjacency[r, c] else MISSED_COLOR,
                    markeredgewidth=1.3,
                    linestyle="none",
                    path_effects=[halo],
                )
                _tag(marker, (r, c), "true" if k == 0 else "true-mirror")
        handles += [
            Line2D(
                [], [], marker="o", linestyle="none", markerfacecolor="none",
                markeredgecolor=TRUE_COLOR, label="true edge, recovered",
            ),
            Line2D(
                [], [], marker="o", linestyle="none", markerfacecolor="none",
                markeredgecolor=MISSED_COLOR, label="true edge, missed",
            ),
        ]  # fmt: skip
    ax.recovered = recovered

    step = 1 if (vertex_labels is not None or n <= 30) else max(1, n // 15)
    ticks = np.arange(0, n, step)
    ax.set_xticks(ticks, [labels[t] for t in ticks], fontsize=fontsize - 1, rotation=90)
    ax.set_yticks(ticks, [labels[t] for t in ticks], fontsize=fontsize - 1)
    ax.set_xlabel("vertex j", fontsize=fontsize)
    ax.set_ylabel("vertex i", fontsize=fontsize)
    title = f"signal subgraph: {len(model.signal_edges_)} edges"
    if model.n_vertices_signal is not None:
        title += f" on {model.n_vertices_signal} signal vertices"
    if recovered is not None:
        title += f"\n{recovered} of {len(truth)} true signal edges recovered"
    ax.set_title(title, fontsize=fontsize + 1)
    ax.legend(
        handles=handles,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.12 if n <= 30 else -0.08),
        ncol=len(handles),
        fontsize=fontsize - 1,
        frameon=False,
    )
    return ax


def plot_signal_edge_probabilities(
    model,
    *,
    true_probabilities=None,
    vertex_labels=None,
    ax=None,
    fontsize=9,
):
    """Per-class edge probabilities on the signal subgraph, one row per signal edge.

    Rows follow the significance ranking (most significant on top) and are
    labelled by the edge and its p-value; each class is a dot at its smoothed
    probability ``p^y_ij`` (``model.edge_prob_``), and a grey bar spans the
    classes, so the length of the bar is the difference the classifier uses.
    With the true probabilities (e.g. ``truth.probabilities`` from
    :func:`~bnclassify.datasets.make_signal_subgraph_networks`) each class
    also gets a tick at its true value.

    Parameters
    ----------
    model : fitted SignalSubgraphClassifier
    true_probabilities : array-like of shape (n_classes, n_vertices, n_vertices), optional
    vertex_labels : sequence of str, optional
    ax : matplotlib Axes, optional
    fontsize : float, default=9

    Returns
    -------
    matplotlib.axes.Axes
        One scatter collection per class, labelled ``"class <label>"``, whose
        offsets are ``(probability, row)``.

    Examples
    --------
    >>> from bnclassify import SignalSubgraphClassifier
    >>> from bnclassify.datasets import make_signal_subgraph_networks
    >>> X, y = make_signal_subgraph_networks(100, 10, n_signal_edges=5, random_state=0)
    >>> clf = SignalSubgraphClassifier(n_edges=5).fit(X, y)
    >>> ax = plot_signal_edge_probabilities(clf)
    >>> [c.get_label() for c in ax.collections[-2:]]
    ['class 0', 'class 1']
    """
    check_parameter(fontsize, "fontsize", FONTSIZE)
    _check_model(model)
    labels = _vertex_labels(model, vertex_labels)
    edges = model.signal_edges_
    s = len(edges)
    rows, cols = np.array(edges, dtype=np.intp).T
    probabilities = model.edge_prob_[:, rows, cols]  # (n_classes, s)
    if true_probabilities is not None:
        true_probabilities = float_array(true_probabilities, "true_probabilities")
        expected = (len(model.classes_), model.n_vertices_, model.n_vertices_)
        if true_probabilities.shape != expected:
            raise ValueError(
                f"true_probabilities must have shape {expected} (classes x vertices x "
                f"vertices), got {true_probabilities.shape}."
            )
        if not ((true_probabilities >= 0) & (true_probabilities <= 1)).all():
            raise ValueError("true_probabilities must be probabilities in [0, 1] (no NaN).")
    if ax is None:
        _, ax = plt.subplots(figsize=(7.5, min(12.0, 1.4 + 0.32 * s)))
    position = np.arange(s)
    ax.hlines(
        position,
        probabilities.min(axis=0),
        probabilities.max(axis=0),
        color="#B0B0B0",
        linewidth=3,
        zorder=1,
    )
    arrow = "→" if model.directed else "–"
    for c, label in enumerate(model.classes_):
        color = CATEGORY_COLORS[c % len(CATEGORY_COLORS)]
        if true_probabilities is not None:
            ax.scatter(
                true_probabilities[c, rows, cols],
                position,
                marker="|",
                s=140,
                color=color,
                linewidths=1.5,
                zorder=2,
                label=f"true, class {label}",
            )
    for c, label in enumerate(model.classes_):
        color = CATEGORY_COLORS[c % len(CATEGORY_COLORS)]
        ax.scatter(
            probabilities[c],
            position,
            s=36,
            color=color,
            edgecolor="white",
            linewidth=0.6,
            zorder=3,
            label=f"class {label}",
        )
    tick_labels = [
        f"{labels[i]}{arrow}{labels[j]}  (p={model.pvalues_[i, j]:.1e})" for i, j in edges
    ]
    ax.set_yticks(position, tick_labels, fontsize=fontsize - 1)
    ax.set_ylim(s - 0.5, -0.5)  # most significant edge on top
    ax.set_xlim(-0.02, 1.02)
    ax.set_xlabel(r"$\hat p^{\,y}_{ij}$ = P(edge present | class), smoothed", fontsize=fontsize)
    ax.set_title("class-conditional probabilities of the signal edges", fontsize=fontsize + 1)
    ax.grid(axis="x", color="#E5E5E5", linewidth=0.8)
    ax.set_axisbelow(True)
    ax.spines[["top", "right"]].set_visible(False)
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=fontsize - 1, frameon=False)
    return ax
