"""The edge router: bends a figure's edges, at draw time, around nodes and other edges.

:class:`Router` chooses each edge's bend for the figure's final layout;
:class:`RoutedArrow` and :class:`EdgeLabel` are the arrow and the label that
ask it where to go each time they are drawn.
"""

from __future__ import annotations

import numpy as np
from matplotlib.patches import FancyArrowPatch
from matplotlib.text import Text

__all__ = ["EdgeLabel", "RoutedArrow", "Router"]

#: Figures with more edges than this draw them straight: choosing each bend tests it against
#: every node and edge, which on a 300-feature tree took minutes, and no bend keeps a drawing
#: of hundreds of edges clear anyway.
MAX_ROUTED_EDGES = 80


class Router:
    """Bends edges, at draw time, so that they miss other nodes' boxes and cross few edges.

    Works in display coordinates of the renderer being drawn to (so the
    figure's final layout, size and dpi are what count). A bend is the ``rad``
    of matplotlib's ``arc3`` connection style: 0 is straight.
    """

    _BENDS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.65, 0.8)

    def __init__(self, ax, texts, edges, feature_edges):
        self.ax, self.texts = ax, texts
        self.edges, self.feature_edges = list(edges), list(feature_edges)
        self.labels = {}  # edge -> its label, registered by EdgeLabel
        self._key, self._bends, self._spots = None, {}, {}

    def bends(self, renderer) -> dict:
        """``{edge: rad}`` for the current layout (recomputed when the layout changed)."""
        key = (
            id(renderer),
            self.ax.figure.dpi,
            tuple(self.ax.transData.get_matrix().ravel()),
            tuple(self.ax.bbox.bounds),
        )
        if key != self._key:
            self._measure(renderer)
            if len(self.edges) > MAX_ROUTED_EDGES:  # no bend could keep such a drawing clear
                self._bends = dict.fromkeys(self.edges, 0.0)
            else:
                self._bends = {edge: self._bend(*edge) for edge in self.edges}
            self._spots = self._place_labels(renderer)
            self._key = key
        return self._bends

    def label_spots(self, renderer) -> dict:
        """``{edge: (x, y)}``: where each edge label goes, in display coordinates."""
        self.bends(renderer)
        return self._spots

    _LABEL_AT = (0.47, 0.38, 0.56, 0.3, 0.64, 0.22, 0.72)  # fractions along the curve

    def _place_labels(self, renderer) -> dict:
        """Put each label on its curve where it covers no node and no label placed before.

        The middle is tried first; if no spot is clear, the one covering least.
        """
        lows = list(self._centres - self._halves)
        highs = list(self._centres + self._halves)
        spots = {}
        for edge, label in self.labels.items():
            extent = label.get_window_extent(renderer)
            half = np.array([extent.width, extent.height]) / 2 + 2
            low, high = np.array(lows).reshape(-1, 2), np.array(highs).reshape(-1, 2)
            best, fewest = None, np.inf
            for t in self._LABEL_AT:
                centre = self.curve(edge, self._bends[edge], t=t)[0]
                covered = int(((centre - half < high) & (centre + half > low)).all(axis=1).sum())
                if covered < fewest:
                    best, fewest = centre, covered
                if covered == 0:
                    break
            spots[edge] = best
            lows.append(best - half)
            highs.append(best + half)
        return spots

    def _measure(self, renderer):
        to_pixels = self.ax.figure.dpi / 72
        self.pos, self.half = {}, {}
        for v, text in self.texts.items():
            self.pos[v] = self.ax.transData.transform(text.get_position())
            extent = text.get_window_extent(renderer)
            pad = text.get_bbox_patch().get_boxstyle().pad * text.get_fontsize() * to_pixels
            self.half[v] = np.array([extent.width, extent.height]) / 2 + pad + 5 * to_pixels
        bbox = self.ax.bbox
        self.low, self.high = np.array([bbox.x0, bbox.y0]), np.array([bbox.x1, bbox.y1])
        # the same as arrays: a candidate bend is tested against every node and edge at once
        # (a Python loop per pair took minutes on a 300-feature tree)
        self._index = {v: k for k, v in enumerate(self.pos)}
        self._centres = np.array(list(self.pos.values())).reshape(-1, 2)
        self._halves = np.array(list(self.half.values())).reshape(-1, 2)
        ends = [(s, t) for s, t in self.feature_edges if s in self.pos and t in self.pos]
        self._ends = np.array([[self._index[s], self._index[t]] for s, t in ends], dtype=int)
        self._ends = self._ends.reshape(-1, 2)

    def curve(self, edge, rad, n=48, t=None):
        """Points of the arc3 curve of ``edge`` with bend ``rad``, in display coordinates."""
        p0, p2 = self.pos[edge[0]], self.pos[edge[1]]
        d = p2 - p0
        control = (p0 + p2) / 2 + rad * np.array([d[1], -d[0]])
        t = np.linspace(0, 1, n)[:, None] if t is None else np.atleast_1d(t)[:, None]
        return (1 - t) ** 2 * p0 + 2 * (1 - t) * t * control + t**2 * p2

    def _node_hits(self, points, u, v):
        """How many nodes other than ``u`` and ``v`` the polyline passes through."""
        inside = (np.abs(points[:, None, :] - self._centres[None]) < self._halves[None]).all(axis=2)
        hit = inside.any(axis=0)
        hit[[self._index[u], self._index[v]]] = False
        return int(hit.sum())

    def _crossings(self, points, u, v):
        """How many (straight) feature edges the polyline crosses."""
        apart = ~np.isin(self._ends, [self._index[u], self._index[v]]).any(axis=1)
        ends = self._ends[apart]
        if not len(ends):
            return 0
        c, d = self._centres[ends[:, 0]][None], self._centres[ends[:, 1]][None]
        hit = _segments_cross(points[:-1, None, :], points[1:, None, :], c, d)
        return int(hit.any(axis=0).sum())

    def _bend(self, u, v) -> float:
        """The gentlest bend clear of other nodes, preferring few crossings, bulging outwards."""
        p0, p2 = self.pos[u], self.pos[v]
        d = p2 - p0
        centre = np.mean(list(self.pos.values()), axis=0)
        outward = np.sign(np.dot(np.array([d[1], -d[0]]), (p0 + p2) / 2 - centre)) or 1.0
        best, best_cost = 0.0, np.inf
        for magnitude in self._BENDS:
            for rad in (outward * magnitude, -outward * magnitude)[: 2 if magnitude else 1]:
                points = self.curve((u, v), rad)
                outside = np.any((points < self.low) | (points > self.high))
                cost = (
                    100 * self._node_hits(points, u, v)
                    + 100 * outside
                    + 2 * self._crossings(points, u, v)
                    + 2 * magnitude
                    + (0.5 if rad * outward < 0 else 0.0)
                )
                if cost < best_cost:
                    best, best_cost = float(rad), cost
        return best


class RoutedArrow(FancyArrowPatch):
    """An arrow between two nodes whose bend the router chooses when it is drawn."""

    def __init__(self, router, edge, **kwargs):
        u, v = edge
        super().__init__(router.texts[u].get_position(), router.texts[v].get_position(), **kwargs)
        self._router, self._edge, self._rad = router, tuple(edge), None

    def draw(self, renderer):
        rad = self._router.bends(renderer)[self._edge]
        if rad != self._rad:
            self.set_connectionstyle("arc3", rad=rad)
            self._rad = rad
        super().draw(renderer)


class EdgeLabel(Text):
    """An edge's label, on the edge's (possibly bent) curve where the router puts it.

    Near the middle (just before it, to stay clear of the arrowhead on short
    edges), or further along when that spot would cover a node or another label.
    """

    def __init__(self, router, edge, **kwargs):
        super().__init__(*router.texts[edge[0]].get_position(), **kwargs)
        self._router, self._edge = router, tuple(edge)
        router.labels[self._edge] = self

    def draw(self, renderer):
        spot = self._router.label_spots(renderer)[self._edge]
        xy = tuple(self.axes.transData.inverted().transform(spot))
        if not np.allclose(xy, self.get_position()):
            self.set_position(xy)
        super().draw(renderer)


def _segments_cross(a, b, c, d):
    """Whether segment a-b properly crosses segment c-d, broadcast over leading axes."""

    def side(p, q, r):
        return np.sign(
            (q[..., 0] - p[..., 0]) * (r[..., 1] - p[..., 1])
            - (q[..., 1] - p[..., 1]) * (r[..., 0] - p[..., 0])
        )

    return (side(a, b, c) * side(a, b, d) < 0) & (side(c, d, a) * side(c, d, b) < 0)
