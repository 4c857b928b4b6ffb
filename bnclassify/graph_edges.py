"""The possible edges of a network on ``n`` vertices, as adjacency-matrix cells.

Samples that are themselves networks (connectomes, contact maps: one adjacency
matrix per row) are read through their possible edges: the cells of the upper
triangle for an undirected network, every off-diagonal cell for a directed one,
the diagonal too with self-loops. :class:`bnclassify.SignalSubgraphClassifier`
and :func:`bnclassify.datasets.make_signal_subgraph_networks` share them.

Examples
--------
>>> from bnclassify.graph_edges import candidate_edges, describe_networks, n_possible_edges
>>> n_possible_edges(4, directed=False, loops=False)
6
>>> describe_networks(4, directed=True, loops=False)
'a directed network on 4 vertices without self-loops'
"""

from __future__ import annotations

import numpy as np

__all__ = ["candidate_edges", "describe_networks", "n_incident_edges", "n_possible_edges"]


def candidate_edges(n_vertices, directed, loops):
    """Row and column indices of every possible edge, in row-major order.

    Undirected networks use the upper triangle (``i < j``, or ``i <= j`` with
    self-loops); directed networks every off-diagonal cell (every cell with
    self-loops).

    Examples
    --------
    >>> candidate_edges(3, directed=False, loops=False)
    (array([0, 0, 1]), array([1, 2, 2]))
    """
    if directed:
        mask = np.ones((n_vertices, n_vertices), dtype=bool)
        if not loops:
            np.fill_diagonal(mask, False)
        return np.nonzero(mask)
    return np.triu_indices(n_vertices, k=0 if loops else 1)


def n_possible_edges(n_vertices, directed, loops):
    """Number of possible edges of a network on ``n_vertices`` vertices."""
    n = int(n_vertices)
    pairs = n * (n - 1) if directed else n * (n - 1) // 2
    return pairs + (n if loops else 0)


def n_incident_edges(n_vertices, n_signal_vertices, directed, loops):
    """How many possible edges touch at least one of ``n_signal_vertices`` vertices."""
    return n_possible_edges(n_vertices, directed, loops) - n_possible_edges(
        n_vertices - n_signal_vertices, directed, loops
    )


def describe_networks(n_vertices, directed, loops):
    """E.g. ``"an undirected network on 10 vertices without self-loops"``."""
    kind = "a directed" if directed else "an undirected"
    return f"{kind} network on {n_vertices} vertices {'with' if loops else 'without'} self-loops"
