"""Reading a figure back: which edges a bnclassify plot drew, and in what role.

Every edge (an arrow, an arc, a marked matrix cell) is drawn as an artist that
remembers its edge (attribute ``bnclassify_edge``) and its role
(``bnclassify_role``), and carries an SVG id ``bnclassify-ROLE:U->V``;
:func:`drawn_edges` reads them back.
"""

from __future__ import annotations

from matplotlib.axes import Axes
from matplotlib.figure import FigureBase

__all__ = ["drawn_edges", "tag"]


def tag(artist, edge, role):
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
    >>> from bnclassify.plotting import plot_structure
    >>> ax = plot_structure(nx.DiGraph([("y", "a"), ("y", "b"), ("a", "b")]), class_node="y")
    >>> drawn_edges(ax, role="feature")
    [('a', 'b')]
    >>> sorted(drawn_edges(ax, role="class"))
    [('y', 'a'), ('y', 'b')]
    """
    if not isinstance(obj, FigureBase | Axes):
        raise TypeError(
            f"drawn_edges reads a matplotlib Figure or Axes that a bnclassify plot returned, "
            f"got {type(obj).__name__}."
        )
    axes = obj.get_axes() if isinstance(obj, FigureBase) else [obj]
    edges = []
    for ax in axes:
        for artist in ax.get_children():
            edge = getattr(artist, "bnclassify_edge", None)
            if edge is not None and (role is None or artist.bnclassify_role == role):
                edges.append(edge)
    return edges
