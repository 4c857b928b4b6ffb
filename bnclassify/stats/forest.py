"""The statistics of one forest's families, shared by every rooting of the forest."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .tables import FamilyTables


@dataclass
class ForestCounts(FamilyTables):
    """The counts of one categorical forest's families, in every orientation of its edges.

    What every rooting of the forest is fitted from (an ensemble's members
    that differ only in their root): the class counts, N(c, x_j) of every
    feature and N(c, x_u, x_v) of every edge ``(u, v)``; N(c, x_v, x_u) is its
    transpose. ``O(m)`` small tables, whatever the number of rows.

    Examples
    --------
    >>> counts = ForestCounts(np.array([2.0, 1.0]), [np.ones((2, 2))] * 2, [(0, 1)],
    ...                       [np.arange(8.0).reshape(2, 2, 2)])
    >>> counts.family(0, (1,))[0]  # N(c=0, x_1, x_0)
    array([[0., 2.],
           [1., 3.]])
    """

    classes: np.ndarray
    single: list
    edges: list
    pairs: list

    @cached_property
    def _edge_of(self) -> dict:
        return {(int(u), int(v)): k for k, (u, v) in enumerate(self.edges)}

    @property
    def n_classes(self) -> int:
        return len(self.classes)

    @property
    def discrete(self) -> np.ndarray:
        return np.ones(len(self.single), dtype=bool)

    def prefetch_families(self, children, parents_of) -> None:
        """Nothing to count ahead: the tree's families were counted once, for every rooting."""

    def family(self, child: int, parents=()) -> np.ndarray:
        """N(c, x_parent, x_child) of a forest edge, or N(c, x_child) with no parent."""
        parents = tuple(parents)
        if not parents:
            return self.single[child].copy()
        if len(parents) == 1:
            if (parents[0], child) in self._edge_of:
                return self.pairs[self._edge_of[(parents[0], child)]].copy()
            if (child, parents[0]) in self._edge_of:
                return self.pairs[self._edge_of[(child, parents[0])]].swapaxes(1, 2).copy()
        raise ValueError(
            f"These counts hold the families of one forest; ({child}, {parents}) is not one."
        )
