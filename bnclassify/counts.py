"""Sufficient statistics: class counts, family counts and pairwise class-conditional counts.

Everything later in a fit (weights, structure, parameters) reads these counts,
never the raw rows again. Counts are additive over row blocks, which is how
the pairwise table is built (chunk by chunk) and how out-of-core fits can sum
them. A missing cell (code :data:`~bnclassify._encoding.MISSING`) is simply not
counted: a row contributes to every count whose variables it observes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ._encoding import MISSING

#: Rows per block when building one-hot blocks; float32 counts stay exact below 2**24.
CHUNK_ROWS = 1 << 16


def class_counts(y: np.ndarray, n_classes: int) -> np.ndarray:
    """Number of rows of each class, shape ``(n_classes,)``.

    Examples
    --------
    >>> class_counts(np.array([0, 1, 1]), 2)
    array([1., 2.])
    """
    return np.bincount(y, minlength=n_classes).astype(float)


def family_counts(codes, y, child, parents, cards, n_classes) -> np.ndarray:
    """Counts N(c, x_parents, x_child) over the rows that observe the whole family.

    Parameters
    ----------
    codes : ndarray of shape (n_rows, n_features)
        Category codes, :data:`~bnclassify._encoding.MISSING` for missing cells.
    y : ndarray of shape (n_rows,)
        Class codes.
    child : int
        Column of the child feature.
    parents : sequence of int
        Columns of its feature parents (the class is always a parent).
    cards : sequence of int
        Number of categories of every feature.
    n_classes : int

    Returns
    -------
    ndarray of shape (n_classes, *cards[parents], cards[child])

    Examples
    --------
    >>> codes = np.array([[0, 1], [1, 1], [1, -1]])
    >>> family_counts(codes, np.array([0, 0, 1]), 1, [0], [2, 2], 2)[0]
    array([[0., 1.],
           [0., 1.]])
    """
    family = [*parents, child]
    shape = (n_classes, *(cards[v] for v in family))
    index = y.astype(np.intp, copy=True)
    observed = np.ones(len(y), dtype=bool)
    for v in family:
        column = codes[:, v]
        observed &= column != MISSING
        index = index * cards[v] + column
    counts = np.bincount(index[observed], minlength=int(np.prod(shape)))
    return counts.astype(float).reshape(shape)


@dataclass
class PairwiseCounts:
    """All class-conditional pair tables N(c, x_i, x_j) in one ``(C, R, R)`` array.

    ``R`` is the total number of categories over all features; feature ``i``
    owns the rows/columns ``offsets[i]:offsets[i + 1]``. Block ``(i, j)`` counts
    the rows that observe both features; the diagonal of block ``(i, i)`` is
    N(c, x_i).
    """

    table: np.ndarray
    cards: np.ndarray

    @cached_property
    def offsets(self) -> np.ndarray:
        return np.concatenate([[0], np.cumsum(self.cards)])

    def block(self, i: int, j: int) -> np.ndarray:
        """N(c, x_i, x_j), shape ``(C, r_i, r_j)``."""
        o = self.offsets
        return self.table[:, o[i] : o[i + 1], o[j] : o[j + 1]]

    def feature_class(self, i: int) -> np.ndarray:
        """N(c, x_i), shape ``(C, r_i)``."""
        return np.diagonal(self.block(i, i), axis1=1, axis2=2).copy()


def pairwise_counts(codes, y, cards, n_classes, chunk_rows=CHUNK_ROWS) -> PairwiseCounts:
    """Count every pair of features per class with one matrix product per row block.

    The one-hot matrix Z of a block of rows (missing cells are all-zero rows of
    their feature) gives ``Z_c.T @ Z_c`` = all pair tables of class ``c`` at
    once, so the cost is one BLAS call per class and block instead of a pass
    over the rows per pair.

    Examples
    --------
    >>> codes = np.array([[0, 1], [1, 1], [1, 0]])
    >>> pc = pairwise_counts(codes, np.array([0, 0, 1]), np.array([2, 2]), 2)
    >>> pc.block(0, 1)[0]
    array([[0., 1.],
           [0., 1.]])
    """
    cards = np.asarray(cards, dtype=np.intp)
    offsets = np.concatenate([[0], np.cumsum(cards)])
    n_total = int(offsets[-1])
    table = np.zeros((n_classes, n_total, n_total))
    for start in range(0, len(y), chunk_rows):
        block_codes = codes[start : start + chunk_rows]
        block_y = y[start : start + chunk_rows]
        onehot = _one_hot(block_codes, offsets[:-1], n_total)
        for c in range(n_classes):
            z = onehot[block_y == c]
            if len(z):
                table[c] += z.T @ z
    return PairwiseCounts(table=table, cards=cards)


def _one_hot(codes, offsets, n_total):
    n_rows, n_features = codes.shape
    onehot = np.zeros((n_rows, n_total), dtype=np.float32)
    observed = codes != MISSING
    rows = np.broadcast_to(np.arange(n_rows)[:, None], codes.shape)
    onehot[rows[observed], (codes + offsets)[observed]] = 1.0
    return onehot


@dataclass
class TrainingCounts:
    """The encoded training data and the statistics computed from it, each at most once.

    ``pairwise`` is computed on first use (TAN needs it, naive Bayes and
    Simpler TAN do not); once it exists, single-parent family counts are read
    from it instead of scanning the rows again.
    """

    codes: np.ndarray
    y: np.ndarray
    cards: np.ndarray
    n_classes: int
    _families: dict = field(default_factory=dict, repr=False)

    @cached_property
    def classes(self) -> np.ndarray:
        return class_counts(self.y, self.n_classes)

    @cached_property
    def pairwise(self) -> PairwiseCounts:
        return pairwise_counts(self.codes, self.y, self.cards, self.n_classes)

    @property
    def n_features(self) -> int:
        return self.codes.shape[1]

    def family(self, child: int, parents=()) -> np.ndarray:
        """N(c, x_parents, x_child), cached; see :func:`family_counts`."""
        key = (child, tuple(parents))
        if key not in self._families:
            if "pairwise" in self.__dict__ and len(parents) <= 1:
                pc = self.pairwise
                counts = pc.block(parents[0], child).copy() if parents else pc.feature_class(child)
            else:
                counts = family_counts(
                    self.codes, self.y, child, parents, self.cards, self.n_classes
                )
            self._families[key] = counts
        return self._families[key]
