"""The figure of Bayesian model averaging over trees: edge posteriors beside the contacts.

Re-exported by :mod:`bnclassify.plotting`; colours from its palette: cells of
the MAP tree's edges are outlined in the upper triangle (blue), the contact
tree's in the lower one (green), edges both trees have in vermillion.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.patches import Rectangle
from sklearn.utils.validation import check_is_fitted

from ..structure import check_weight_matrix, tree_from_weights
from ..validation import check_parameter
from ._heatmap import plot_weights
from ._palette import (
    CONTACT_CMAP,
    FONTSIZE,
    POSTERIOR_CMAP,
    SHARED_COLOR,
    TREE_A_COLOR,
    TREE_B_COLOR,
)
from ._structure import plot_structure

__all__ = ["plot_edge_posterior"]


def _feature_edges(graph, class_node=None):
    return {frozenset((u, v)) for u, v in graph.edges if class_node not in (u, v)}


def _outline(ax, edges, index, upper, colors, role):
    for edge in sorted(edges, key=lambda e: sorted(map(str, e))):
        u, v = sorted(edge, key=lambda n: index[n])
        i, j = index[u], index[v]
        row, col = (i, j) if upper else (j, i)
        cell = Rectangle(
            (col - 0.44, row - 0.44),
            0.88,
            0.88,
            fill=False,
            linewidth=3.0,
            zorder=4,
            edgecolor=colors[edge],
        )
        cell.bnclassify_edge, cell.bnclassify_role = (u, v), role
        ax.add_patch(cell)


def _prior_text(model, contacts, short=False):
    """The priors the posterior depends on: BDeu's ``s`` and, with contacts, ``lambda``."""
    s, lam = model.equivalent_sample_size_, model.contact_prior_
    with_lambda = contacts or lam > 0 or getattr(model, "contact_matrix", None) is not None
    if short:
        return f"s = {s:g}" + (f", λ = {lam:g}" if with_lambda else "")
    text = f"BDeu equivalent sample size s = {s:g}"
    return text + (f", contact prior λ = {lam:g}" if with_lambda else "")


def plot_edge_posterior(model, contact_matrix=None, *, fig=None, title=None, fontsize=10):
    """Posterior edge probabilities of a fitted :class:`~bnclassify.BMATAN` beside the contacts.

    Panel 1: ``model.edge_posterior_`` as a heatmap (0 to 1). Panel 2: the
    contact matrix. Panel 3: the contact tree (maximum spanning tree of the
    contacts, as :class:`~bnclassify.SimplerTAN` builds it), each edge
    labelled with its posterior probability. In both matrices the MAP tree's
    edges are outlined in the upper triangle and the contact tree's in the
    lower one, in :func:`~bnclassify.plot_tree_comparison`'s colours;
    features in the model's column order. Without any contact matrix, panel
    2 is the MAP tree instead. The titles state the priors the posterior
    depends on: BDeu's equivalent sample size ``s`` and, with contacts, the
    contact prior ``lambda``.

    Parameters
    ----------
    model : fitted BMATAN
    contact_matrix : DataFrame or array of shape (m, m), optional
        Default: the model's own ``contact_matrix``, when it has one.
    fig : matplotlib Figure, optional
    title : str, optional
        Prefix of the figure title (e.g. the data set's name).
    fontsize : float, default=10

    Returns
    -------
    matplotlib.figure.Figure
        ``fig.map_edges`` and ``fig.contact_edges`` hold the two trees'
        edges as sorted pairs; ``fig.contact_tree_posterior`` is the
        posterior probability of every contact-tree edge (a Series).

    Examples
    --------
    >>> from bnclassify import BMATAN
    >>> from bnclassify.datasets import load_p450
    >>> from bnclassify.plotting import plot_edge_posterior
    >>> p450 = load_p450()
    >>> model = BMATAN().fit(p450.data, p450.target)
    >>> fig = plot_edge_posterior(model, p450.contact_matrix)
    >>> len(fig.axes) >= 3, len(fig.contact_edges)
    (True, 7)
    >>> "s = 20" in fig._suptitle.get_text()  # the evidence-chosen sample size
    True
    """
    check_parameter(fontsize, "fontsize", FONTSIZE)
    check_is_fitted(model, "edge_posterior_")
    posterior = model.edge_posterior_
    features = list(posterior.columns)
    index = {f: k for k, f in enumerate(features)}
    if contact_matrix is None:
        contact_matrix = getattr(model, "contact_matrix", None)
        if callable(contact_matrix):
            contact_matrix = contact_matrix(features)
    contacts = None
    if contact_matrix is not None:
        contacts = check_weight_matrix(contact_matrix, features, name="contact_matrix")
    map_edges = _feature_edges(model.structure_, model.class_node_)
    contact_tree = tree_from_weights(contacts) if contacts is not None else None
    contact_edges = _feature_edges(contact_tree) if contact_tree is not None else set()
    shared = map_edges & contact_edges
    if fig is None:
        width = 17 if contacts is not None else 11.5
        fig = plt.figure(figsize=(width, 5.8), layout="constrained")
    axes = fig.subplots(1, 3 if contacts is not None else 2)
    colors_map = {e: SHARED_COLOR if e in shared else TREE_A_COLOR for e in map_edges}
    colors_contact = {e: SHARED_COLOR if e in shared else TREE_B_COLOR for e in contact_edges}
    ax_p = axes[0]
    plot_weights(
        posterior,
        ax=ax_p,
        cmap=POSTERIOR_CMAP,
        vmax_scale=1.0 / max(float(posterior.to_numpy().max()), 1e-12),
        fmt=".2f",
        fontsize=fontsize - 1,
        colorbar_label="posterior probability of the edge",
    )
    ax_p.set_title(
        f"P(edge in tree | data), {_prior_text(model, contacts is not None, short=True)}"
        "\nupper: MAP tree" + ("; lower: contact tree" if contacts is not None else ""),
        fontsize=fontsize + 1,
    )
    _outline(ax_p, map_edges, index, True, colors_map, "posterior-map")
    if contacts is not None:
        _outline(ax_p, contact_edges, index, False, colors_contact, "posterior-contact")
        ax_c = axes[1]
        plot_weights(
            contacts,
            ax=ax_c,
            cmap=CONTACT_CMAP,
            fontsize=fontsize - 1,
            colorbar_label="contacts",
        )
        ax_c.set_title(
            "contact matrix\nupper: MAP tree; lower: contact tree", fontsize=fontsize + 1
        )
        _outline(ax_c, map_edges, index, True, colors_map, "matrix-map")
        _outline(ax_c, contact_edges, index, False, colors_contact, "matrix-contact")
        weights = {e: float(posterior.loc[tuple(e)[0], tuple(e)[1]]) for e in contact_edges}
        plot_structure(
            contact_tree,
            ax=axes[2],
            class_node=False,
            root=features[0],
            weights=weights,
            weight_format=".2f",
            edge_colors=colors_contact,
            fontsize=fontsize,
        )
        axes[2].set_title(
            "contact tree, edges labelled with\ntheir posterior probability",
            fontsize=fontsize + 1,
            color=TREE_B_COLOR,
            fontweight="bold",
        )
    else:
        # the MAP tree as a graph: a BMATAN has no single compiled network to view
        plot_structure(
            model.structure_,
            ax=axes[1],
            class_node=model.class_node_,
            root=features[0],
            weights=posterior,
            weight_format=".2f",
            edge_colors=colors_map,
            fontsize=fontsize,
        )
        axes[1].set_title("MAP tree", fontsize=fontsize + 1, color=TREE_A_COLOR)
    handles = [
        Rectangle((0, 0), 1, 1, fill=False, edgecolor=c, linewidth=2.5)
        for c in (SHARED_COLOR, TREE_A_COLOR, TREE_B_COLOR)
    ]
    labels = ["in both trees", "only in the MAP tree", "only in the contact tree"]
    if contacts is None:
        handles, labels = handles[1:2], labels[1:2]
    fig.legend(
        handles, labels, loc="outside lower center", ncol=3, fontsize=fontsize, frameon=False
    )
    mass = float(sum(posterior.loc[tuple(e)[0], tuple(e)[1]] for e in contact_edges))
    heading = "Bayesian averaging over all trees"
    if contacts is not None:
        heading += (
            f": the contact tree's {len(contact_edges)} edges hold {mass:.2f} of the "
            f"{len(features) - 1} expected tree edges"
        )
    heading += f"\n({_prior_text(model, contacts is not None)})"
    fig.suptitle(f"{title}: {heading}" if title else heading, fontsize=fontsize + 3)
    fig.map_edges = sorted(tuple(sorted(e, key=index.get)) for e in map_edges)
    fig.contact_edges = sorted(tuple(sorted(e, key=index.get)) for e in contact_edges)
    fig.contact_tree_posterior = pd.Series(
        {f"{u}-{v}": float(posterior.loc[u, v]) for u, v in fig.contact_edges}, dtype=float
    )
    return fig
