"""Counting with numpy: class counts, family counts and pairwise class-conditional tables.

A missing cell (code :data:`~bnclassify.data.MISSING`) is simply not counted: a row
contributes to every count whose variables it observes. Counts are additive over
row blocks, which is how a pair table is built (chunk by chunk). A pair table
wider than :data:`~bnclassify.stats.training.MAX_PAIRWISE_CELLS` is never held
whole: it is counted and read a block of columns at a time.
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass
from functools import cache, cached_property

import numpy as np
from threadpoolctl import ThreadpoolController

from ..data import (
    MISSING,
)

#: Rows per block when building one-hot blocks; float32 counts stay exact below 2**24.
CHUNK_ROWS = 1 << 16
#: Cells per block when building index arrays over many columns at once.
CHUNK_ELEMENTS = 1 << 18
#: Up to this many categories in all, pairwise products run on one BLAS thread.
SINGLE_THREAD_MAX = 512
#: ... and from this many rows on (below it, limiting the threads costs more than it saves);
#: chunks of partial_fit and dask partitions are often well below CHUNK_ROWS.
SINGLE_THREAD_MIN_ROWS = 4096
#: Cells (over all classes) of one block of the pair table counted or read at a time.
BLOCK_CELLS = 1 << 22


def class_counts(y: np.ndarray, n_classes: int, weights=None) -> np.ndarray:
    """Number (total weight) of rows of each class, shape ``(n_classes,)``.

    Examples
    --------
    >>> class_counts(np.array([0, 1, 1]), 2)
    array([1., 2.])
    """
    y = np.asarray(y)
    if len(y) and (y.min() < 0 or y.max() >= n_classes):
        raise ValueError(f"y must hold class codes in [0, {n_classes}), got {y.min()}..{y.max()}.")
    return np.bincount(y, weights, minlength=n_classes).astype(float)


def family_counts(codes, y, child, parents, cards, n_classes, weights=None) -> np.ndarray:
    """Counts N(c, x_parents, x_child) over the rows that observe the whole family.

    Parameters
    ----------
    codes : ndarray of shape (n_rows, n_features)
        Category codes, :data:`~bnclassify.data.MISSING` for missing cells.
    y : ndarray of shape (n_rows,)
        Class codes.
    child : int
        Column of the child feature.
    parents : sequence of int
        Columns of its feature parents (the class is always a parent).
    cards : sequence of int
        Number of categories of every feature.
    n_classes : int
    weights : ndarray of shape (n_rows,), optional
        Row weights (``None``: every row counts 1).

    Returns
    -------
    ndarray of shape ``(n_classes, *cards[parents], cards[child])``

    Examples
    --------
    >>> codes = np.array([[0, 1], [1, 1], [1, -1]])
    >>> family_counts(codes, np.array([0, 0, 1]), 1, [0], [2, 2], 2)[0]
    array([[0., 1.],
           [0., 1.]])
    """
    family = [*parents, child]
    if any(not 0 <= v < len(cards) for v in family) or child in parents:
        raise ValueError(
            f"child {child!r} and parents {list(parents)!r} must be distinct column positions "
            f"in [0, {len(cards)})."
        )
    shape = (n_classes, *(cards[v] for v in family))
    index = y.astype(np.intp, copy=True)
    observed = None
    for v in family:
        column = codes[:, v]
        missing = column == MISSING
        if missing.any():
            observed = ~missing if observed is None else observed & ~missing
        index *= cards[v]
        index += column
    if observed is not None:
        index = index[observed]
        weights = None if weights is None else weights[observed]
    counts = np.bincount(index, weights, minlength=int(np.prod(shape)))
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

    @property
    def n_classes(self) -> int:
        return self.table.shape[0]

    def pair_table(self, rows, cols) -> np.ndarray:
        """N(c, x_i, x_j) of the features ``rows`` against ``cols``, ``(C, R_rows, R_cols)``.

        A view when both are runs of consecutive features, else a copy.
        """
        return _take_block(self.table, self.cards, rows, cols)

    def category_counts(self, features) -> np.ndarray:
        """N(c, x_i = a) of every category ``a`` of ``features``, shape ``(C, R_features)``."""
        diagonal = np.diagonal(self.table, axis1=1, axis2=2)
        return diagonal[:, category_slices(self.cards, features)]


def _take_block(table, cards, rows, cols):
    """The ``rows`` x ``cols`` features' block of a ``(C, R, R)`` pair table."""
    offsets = np.concatenate([[0], np.cumsum(cards)])
    index = []
    for features in (rows, cols):
        features = np.asarray(features, dtype=np.intp)
        if len(features) and np.array_equal(features, np.arange(features[0], features[-1] + 1)):
            index.append(slice(offsets[features[0]], offsets[features[-1] + 1]))
        else:
            index.append(category_slices(cards, features))
    if isinstance(index[0], slice) or isinstance(index[1], slice):
        # np.take keeps the copy in C order (fancy indexing of a middle axis gives a strided
        # one, which every later gather along its last axis then pays for)
        rows, cols = index
        block = table[:, rows] if isinstance(rows, slice) else np.take(table, rows, axis=1)
        return block[:, :, cols] if isinstance(cols, slice) else np.take(block, cols, axis=2)
    return table[:, index[0][:, None], index[1][None, :]]


def pairwise_counts(
    codes, y, cards, n_classes, chunk_rows=CHUNK_ROWS, weights=None
) -> PairwiseCounts:
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
    every = np.arange(len(cards))
    table = pair_block_counts(codes, y, cards, n_classes, every, every, chunk_rows, weights)
    return PairwiseCounts(table=table, cards=cards)


def pair_block_counts(
    codes, y, cards, n_classes, rows, cols, chunk_rows=CHUNK_ROWS, weights=None
) -> np.ndarray:
    """N(c, x_i, x_j) of the features ``rows`` (i) against the features ``cols`` (j).

    One block of the pair table, counted from the rows as :func:`pairwise_counts`
    counts the whole table (which is this with every feature on both sides).

    Parameters
    ----------
    codes : ndarray of shape (n_rows, n_features)
    y : ndarray of shape (n_rows,)
    cards : ndarray of shape (n_features,)
    n_classes : int
    rows, cols : ndarray of int
        Feature positions; each feature's categories span its part of the axis.
    chunk_rows : int, default=CHUNK_ROWS
    weights : ndarray of shape (n_rows,), optional

    Returns
    -------
    ndarray of shape ``(n_classes, sum(cards[rows]), sum(cards[cols]))``

    Examples
    --------
    >>> codes = np.array([[0, 1, 2], [1, 1, 0], [1, 0, -1]])
    >>> block = pair_block_counts(codes, np.array([0, 0, 1]), np.array([2, 2, 3]), 2, [0], [2])
    >>> block[0]
    array([[0., 0., 1.],
           [1., 0., 0.]])
    """
    cards = np.asarray(cards, dtype=np.intp)
    rows, cols = np.asarray(rows, dtype=np.intp), np.asarray(cols, dtype=np.intp)
    same = np.array_equal(rows, cols)
    row_offsets = np.concatenate([[0], np.cumsum(cards[rows])])
    col_offsets = np.concatenate([[0], np.cumsum(cards[cols])])
    n_rows_total, n_cols_total = int(row_offsets[-1]), int(col_offsets[-1])
    table = np.zeros((n_classes, n_rows_total, n_cols_total))
    # Small products (R x R outputs) gain nothing from BLAS threads, and on a busy
    # machine the threads' synchronisation makes them many times slower.
    largest = max(n_rows_total, n_cols_total)
    single = largest <= SINGLE_THREAD_MAX and len(y) > SINGLE_THREAD_MIN_ROWS
    with _blas_controller().limit(limits=1, user_api="blas") if single else nullcontext():
        for start in range(0, len(y), chunk_rows):
            block_codes = np.ascontiguousarray(codes[start : start + chunk_rows])  # row-major
            block_y = y[start : start + chunk_rows]
            for c in range(n_classes):
                # select the class's (small, integer) rows before one-hot encoding them:
                # selecting rows of the float one-hot instead costs more than the product
                in_class = block_y == c
                if not in_class.any():
                    continue
                picked = block_codes[in_class]
                dtype = np.float32 if weights is None else np.float64
                left = one_hot(picked[:, rows], row_offsets[:-1], n_rows_total, dtype)
                right = (
                    left
                    if same
                    else one_hot(picked[:, cols], col_offsets[:-1], n_cols_total, dtype)
                )
                if weights is None:
                    table[c] += left.T @ right
                else:
                    w = weights[start : start + chunk_rows][in_class]
                    table[c] += left.T @ (right * w[:, None])
    return table


def column_blocks(cards, max_categories) -> list:
    """Consecutive runs of feature positions with at most ``max_categories`` categories each.

    A wider single feature is a run alone. Pair tables are read a run of
    columns at a time, so that a block stays a bounded number of cells.

    Examples
    --------
    >>> [b.tolist() for b in column_blocks([3, 3, 3, 3, 3], 6)]
    [[0, 1], [2, 3], [4]]
    """
    cards = np.asarray(cards, dtype=np.intp)
    blocks, start, width = [], 0, 0
    for j, r in enumerate(cards.tolist()):
        if width + r > max_categories and j > start:
            blocks.append(np.arange(start, j))
            start, width = j, 0
        width += r
    if len(cards):
        blocks.append(np.arange(start, len(cards)))
    return blocks


def category_slices(cards, features) -> np.ndarray:
    """Positions on the pair table's axis of every category of ``features``, in order."""
    offsets = np.concatenate([[0], np.cumsum(cards)])
    return np.concatenate(
        [np.arange(offsets[j], offsets[j + 1]) for j in features] or [np.zeros(0, np.intp)]
    ).astype(np.intp)


def row_weights(weights, start, rows, shape, keep):
    """The weights of rows ``start:start+rows`` broadcast to ``shape`` and masked by ``keep``."""
    if weights is None:
        return None
    return np.broadcast_to(weights[start : start + rows, None], shape)[keep]


@cache
def _blas_controller() -> ThreadpoolController:
    return ThreadpoolController()  # scans the loaded BLAS libraries once


def one_hot(codes, offsets, n_total, dtype=np.float32):
    """Rows of ``codes`` as one-hot vectors over all categories (missing cells: all zero).

    Feature ``j``'s category ``a`` is column ``offsets[j] + a`` of the
    ``(n_rows, n_total)`` result.

    Examples
    --------
    >>> one_hot(np.array([[1, 0], [-1, 2]]), np.array([0, 2]), 5)
    array([[0., 1., 1., 0., 0.],
           [0., 0., 0., 0., 1.]], dtype=float32)
    """
    n_rows, n_features = codes.shape
    offsets = np.asarray(offsets, dtype=np.intp)
    onehot = np.zeros((n_rows, n_total), dtype=dtype)
    if not codes.size:
        return onehot
    # the range per column (small integers, no temporary of the whole block)
    if (codes.max(axis=0) + offsets).max() >= n_total or codes.min() < MISSING:
        raise ValueError(
            f"codes must be {MISSING} (missing) or point into the n_total={n_total} columns "
            f"(offsets {list(offsets)[:5]}...); got {codes.min()}..{codes.max()}."
        )
    observed = codes != MISSING
    if observed.all():  # one scatter to flat positions: no masks, no row index per cell
        flat = (np.arange(n_rows) * n_total)[:, None] + offsets
        flat += codes
        onehot.ravel()[flat.ravel()] = 1.0
    else:
        rows = np.broadcast_to(np.arange(n_rows)[:, None], codes.shape)
        onehot[rows[observed], (codes + offsets)[observed]] = 1.0
    return onehot


def parent_pair_states(cards):
    """The states of every pair of features ``i < j`` (column order), laid end to end.

    Pair ``p = (i, j)`` holds ``|A_i| |A_j|`` states, state ``a |A_j| + b`` for
    ``x_i = a, x_j = b``, from ``starts[p]``.

    Returns
    -------
    pairs : ndarray of shape (n_pairs, 2)
    starts : ndarray of shape (n_pairs + 1,)
        Each pair's first state; the last entry is the number of states in all.

    Examples
    --------
    >>> pairs, starts = parent_pair_states([2, 3, 2])
    >>> pairs.tolist(), starts.tolist()
    ([[0, 1], [0, 2], [1, 2]], [0, 6, 10, 16])
    """
    cards = np.asarray(cards, dtype=np.intp)
    pairs = np.array(
        [(i, j) for i in range(len(cards)) for j in range(i + 1, len(cards))], dtype=np.intp
    ).reshape(-1, 2)
    sizes = cards[pairs[:, 0]] * cards[pairs[:, 1]]
    return pairs, np.concatenate([[0], np.cumsum(sizes)]).astype(np.intp)


def pair_child_counts(codes, y, cards, n_classes, weights=None):
    """N(c, x_i, x_j, x_k) of every pair of parents ``i < j`` and every child category.

    Shape ``(C, S, R)``: ``S`` pair states as :func:`parent_pair_states` lays them
    out, ``R`` categories of all features (offsets in column order). A row adds to
    the cells whose three variables it observes; the cells of a parent as its own
    child hold its pair's counts. Counted by one ``bincount`` per block of rows, each
    block's flat indices bounded by the table's size (or :data:`BLOCK_CELLS`).

    Examples
    --------
    >>> codes = np.array([[0, 1, 0], [1, 1, -1]])
    >>> table = pair_child_counts(codes, np.array([0, 1]), [2, 2, 2], 2)
    >>> table.shape, table[0, 1, 4]  # class 0, pair (0, 1) at (0, 1), x_2 = 0
    ((2, 12, 6), np.float64(1.0))
    """
    cards = np.asarray(cards, dtype=np.intp)
    offsets = np.concatenate([[0], np.cumsum(cards)])[:-1]
    n_total = int(cards.sum())
    pairs, starts = parent_pair_states(cards)
    n_states = int(starts[-1])
    size = n_classes * n_states * n_total
    table = np.zeros(size)
    if not len(pairs) or not len(codes):
        return table.reshape(n_classes, n_states, n_total)
    per_row = len(pairs) * codes.shape[1]
    rows_per_block = max(1, max(size, BLOCK_CELLS) // per_row)
    first, second = pairs[:, 0], pairs[:, 1]
    for start in range(0, len(codes), rows_per_block):
        block = codes[start : start + rows_per_block]
        observed = block != MISSING
        safe = np.where(observed, block, 0)
        state = starts[:-1] + safe[:, first] * cards[second] + safe[:, second]  # (n, pairs)
        both = observed[:, first] & observed[:, second]
        cell = (y[start : start + rows_per_block, None] * n_states + state) * n_total
        flat = cell[:, :, None] + (offsets + safe)[:, None, :]  # (n, pairs, features)
        keep = both[:, :, None] & observed[:, None, :]
        w = None
        if weights is not None:
            w = np.broadcast_to(weights[start : start + rows_per_block, None, None], flat.shape)
            w = w[keep]
        table += np.bincount(flat[keep], weights=w, minlength=size)
    return table.reshape(n_classes, n_states, n_total)


def feature_totals(table, cards, axis):
    """Each feature's sum over its categories along ``axis``, repeated over those categories.

    The axis holds every feature's categories in column order (``cards`` of them each;
    a feature of no category, a column never observed, holds none). The result has the
    table's shape: cell ``r`` is the total of the feature ``r`` belongs to.

    Examples
    --------
    >>> feature_totals(np.array([1.0, 2.0, 3.0, 4.0]), [2, 0, 2], axis=0)
    array([3., 3., 7., 7.])
    """
    cards = np.asarray(cards, dtype=np.intp)
    starts = np.concatenate([[0], np.cumsum(cards)])[:-1]
    held = cards > 0
    sums = np.add.reduceat(table, starts[held], axis=axis)
    return np.repeat(sums, cards[held], axis=axis)
