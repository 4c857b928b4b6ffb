"""Sufficient statistics: class counts, family counts and pairwise class-conditional counts.

Everything later in a fit (weights, structure, parameters) reads these counts,
never the raw rows again. Counts are additive over row blocks, which is how
the pairwise table is built (chunk by chunk) and how out-of-core fits can sum
them. A pair table wider than :data:`MAX_PAIRWISE_CELLS` is never held whole:
it is counted and read a block of columns at a time
(:meth:`TrainingCounts.pair_table`). A missing cell (code
:data:`~bnclassify.data.MISSING`) is simply not counted: a row contributes
to every count whose variables it observes.
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from functools import cache, cached_property

import numpy as np
from threadpoolctl import ThreadpoolController

from ._native import count_families
from .data import (
    MISSING,
    NO_EXPONENT,
    TableSchema,
    as_frame,
    column_exponents,
    encode_frame,
    encode_target,
    learn_categories,
    log_largest,
    take_rows,
)
from .parameters import log_conditional
from .validation import check_sample_weight

#: Rows per block when building one-hot blocks; float32 counts stay exact below 2**24.
CHUNK_ROWS = 1 << 16
#: Cells per block when building index arrays over many columns at once.
CHUNK_ELEMENTS = 1 << 18
#: Up to this many categories in all, pairwise products run on one BLAS thread.
SINGLE_THREAD_MAX = 512
#: ... and from this many rows on (below it, limiting the threads costs more than it saves);
#: chunks of partial_fit and dask partitions are often well below CHUNK_ROWS.
SINGLE_THREAD_MIN_ROWS = 4096
#: Largest pair table N(c, x_i, x_j) (cells over all classes, 8 bytes each) counted and kept
#: whole; a wider one (e.g. 2 classes x 2000 three-state columns: 72e6 cells) is counted
#: a block of columns at a time and never held at once.
MAX_PAIRWISE_CELLS = 1 << 24
#: Cells (over all classes) of one block of the pair table counted or read at a time.
BLOCK_CELLS = 1 << 22


def class_counts(y: np.ndarray, n_classes: int, weights=None) -> np.ndarray:
    """Number (total weight) of rows of each class, shape ``(n_classes,)``.

    Examples
    --------
    >>> class_counts(np.array([0, 1, 1]), 2)
    array([1., 2.])
    """
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


class FamilyTables:
    """What a node reads from any statistics object: :meth:`log_family` from ``family``."""

    def log_family(self, child: int, parents, alpha: float) -> np.ndarray:
        """``log P(x_child | c, x_parents)``: :func:`~bnclassify.parameters.log_conditional`
        of ``family(child, parents)`` with pseudo-count ``alpha``."""
        return log_conditional(self.family(child, parents), alpha)


@dataclass
class FamilyBatch:
    """Single-parent families counted together, in one table of shape ``(C, total)``.

    Family ``k`` holds the cells from ``offsets[k]`` up to ``offsets[k + 1]``
    (excluded), as ``(parent state, child state)`` with the child fastest.

    Their log-CPTs are computed together too (:meth:`log_table`): one pass of
    numpy over the whole table instead of a handful of small calls per family,
    which on a 1,000-feature tree costs more than the counting.
    """

    table: np.ndarray
    offsets: np.ndarray
    parent_cards: np.ndarray
    child_cards: np.ndarray
    _logs: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        self._shapes = [
            (len(self.table), p, c)
            for p, c in zip(self.parent_cards.tolist(), self.child_cards.tolist(), strict=True)
        ]

    def counts(self, k: int) -> np.ndarray:
        """N(c, x_parent, x_child) of family ``k``."""
        return self.table[:, self.offsets[k] : self.offsets[k + 1]].reshape(self._shapes[k])

    def log_table(self, k: int, alpha: float) -> np.ndarray:
        """``log P(x_child | c, x_parent)`` of family ``k`` with pseudo-count ``alpha``."""
        if alpha not in self._logs:
            # one block of child states per (family, parent state): the rows of each CPT
            block_sizes = np.repeat(self.child_cards, self.parent_cards)
            block_starts = np.concatenate([[0], np.cumsum(block_sizes)[:-1]])
            smoothed = self.table + alpha
            totals = np.repeat(np.add.reduceat(smoothed, block_starts, axis=1), block_sizes, axis=1)
            if alpha > 0:
                self._logs[alpha] = np.log(smoothed / totals)
            else:  # as log_conditional: a parent state with no data is uniform
                with np.errstate(divide="ignore", invalid="ignore"):
                    uniform = 1.0 / np.repeat(block_sizes, block_sizes)
                    self._logs[alpha] = np.log(np.where(totals > 0, smoothed / totals, uniform))
        logs = self._logs[alpha]
        return logs[:, self.offsets[k] : self.offsets[k + 1]].reshape(self._shapes[k])


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
        return table[:, index[0]][:, :, index[1]]
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


def _row_weights(weights, start, rows, shape, keep):
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
    onehot = np.zeros((n_rows, n_total), dtype=dtype)
    observed = codes != MISSING
    rows = np.broadcast_to(np.arange(n_rows)[:, None], codes.shape)
    onehot[rows[observed], (codes + offsets)[observed]] = 1.0
    return onehot


@dataclass
class TrainingCounts(FamilyTables):
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
    #: The :class:`FamilyBatch` each batch-counted family belongs to.
    _batch_of: dict = field(default_factory=dict, repr=False)
    #: Numbers of the continuous columns (NaN: missing; discrete columns are not read).
    values: np.ndarray | None = None
    #: Whether each column is discrete (codes) or continuous (values); default all discrete.
    discrete: np.ndarray | None = None
    #: log V of the variance floors, V the largest variance (data units) of the columns it scales.
    log_variance_scale: float = 0.0
    _moments: dict = field(default_factory=dict, repr=False)
    #: Row weights (``None``: every row counts 1); see ``sample_weight`` of ``fit``.
    weights: np.ndarray | None = None
    #: Per column, ``values`` hold the data times ``2**-exponents`` (see :func:`column_exponents`).
    exponents: np.ndarray | None = None

    def __post_init__(self):
        if self.discrete is None:
            self.discrete = np.ones(self.codes.shape[1], dtype=bool)
        if self.exponents is None:
            self.exponents = np.zeros(self.codes.shape[1], dtype=np.int64)

    @property
    def variance_scale(self) -> float:
        """V in the data's units (``inf`` beyond the float range; see ``log_variance_scale``)."""
        return float(np.exp(min(self.log_variance_scale, 709.0)))

    @cached_property
    def has_missing(self) -> bool:
        """Whether any code is :data:`~bnclassify.data.MISSING` (one pass over the codes)."""
        return bool(self.codes.size) and int(self.codes.min()) == MISSING

    @cached_property
    def classes(self) -> np.ndarray:
        return class_counts(self.y, self.n_classes, self.weights)

    @cached_property
    def feature_class(self) -> list:
        """N(c, x_i) of every feature, from one bincount over the whole table."""
        offsets = np.concatenate([[0], np.cumsum(self.cards)])
        total = int(offsets[-1])
        flat = np.zeros(self.n_classes * total)
        rows = max(1, CHUNK_ELEMENTS // self.n_features)
        for start in range(0, len(self.y), rows):
            codes = self.codes[start : start + rows]
            index = self.y[start : start + rows, None] * total + (codes + offsets[:-1])
            seen = codes != MISSING
            w = _row_weights(self.weights, start, rows, index.shape, seen)
            flat += np.bincount(index[seen], w, minlength=len(flat))
        table = flat.reshape(self.n_classes, total)
        return [table[:, offsets[i] : offsets[i + 1]] for i in range(self.n_features)]

    @cached_property
    def pairwise(self) -> PairwiseCounts:
        return pairwise_counts(self.codes, self.y, self.cards, self.n_classes, weights=self.weights)

    @property
    def keeps_pairwise(self) -> bool:
        """Whether pair tables are read from the whole table (counted once and kept).

        True once it exists, or when every column is discrete and the table has at
        most :data:`MAX_PAIRWISE_CELLS` cells; a mixed table counts the blocks of its
        discrete columns alone.
        """
        if "pairwise" in self.__dict__:
            return True
        small = self.n_classes * int(np.sum(self.cards)) ** 2 <= MAX_PAIRWISE_CELLS
        return small and bool(np.all(self.discrete))

    def pair_table(self, rows, cols) -> np.ndarray:
        """N(c, x_i, x_j) of the features ``rows`` against ``cols``, ``(C, R_rows, R_cols)``.

        Read from the whole pair table when it is kept (:attr:`keeps_pairwise`);
        otherwise counted from the rows for this block alone and not kept, so a
        wide table is never held whole.
        """
        if self.keeps_pairwise:
            return self.pairwise.pair_table(rows, cols)
        return pair_block_counts(
            self.codes, self.y, self.cards, self.n_classes, rows, cols, weights=self.weights
        )

    def category_counts(self, features) -> np.ndarray:
        """N(c, x_i = a) of every category ``a`` of ``features``, shape ``(C, R_features)``."""
        if self.keeps_pairwise:
            return self.pairwise.category_counts(features)
        return np.concatenate([self.feature_class[j] for j in features], axis=1)

    @property
    def n_features(self) -> int:
        return self.codes.shape[1]

    def families(self, parents_of, both_ways=False) -> list:
        """N(c, x_parents, x_i) for every feature ``i`` given its parent tuple ``parents_of[i]``.

        Counted as :meth:`prefetch_families` does, so a tree costs one pass
        over the table rather than one per feature. With ``both_ways``, each
        single-parent family is also cached reversed (N(c, x_i, x_p) is the
        same count transposed), so trees rooted elsewhere never recount.
        """
        self.prefetch_families(range(len(parents_of)), parents_of)
        tables = [self.family(i, tuple(parents)) for i, parents in enumerate(parents_of)]
        if both_ways:
            for child, parents in enumerate(parents_of):
                if len(parents) == 1:
                    reverse = (parents[0], (child,))
                    self._families.setdefault(reverse, tables[child].swapaxes(1, 2))
        return tables

    def prefetch_families(self, children, parents_of) -> None:
        """Count the families of ``children`` (given ``parents_of[i]``) ahead, together.

        Families with one parent are counted in one bincount over an
        ``(n_rows, n_children)`` index; a single family without parents (a
        tree's root) is counted alone rather than N(c, x_i) of every feature.
        Nothing is counted when the pair table exists: :meth:`family` reads it.
        """
        if "pairwise" in self.__dict__:
            return
        children = list(children)
        todo = [
            i
            for i in children
            if len(parents_of[i]) == 1
            and (i, tuple(parents_of[i])) not in self._families
            and (i, tuple(parents_of[i])) not in self._batch_of
        ]
        if len(todo) > 1:
            self._count_single_parent_families(todo, [parents_of[i][0] for i in todo])
        roots = [i for i in children if not len(parents_of[i])]
        if len(roots) == 1 and "feature_class" not in self.__dict__:
            key = (roots[0], ())
            if key not in self._families:
                self._families[key] = family_counts(
                    self.codes, self.y, roots[0], (), self.cards, self.n_classes, self.weights
                )

    def _count_single_parent_families(self, children, parents):
        sizes = self.cards[parents] * self.cards[children]
        offsets = np.concatenate([[0], np.cumsum(sizes)])
        total = int(offsets[-1])
        flat = count_families(
            self.codes,
            self.y,
            self.weights,
            children,
            parents,
            self.cards[children],
            offsets,
            self.n_classes,
            has_missing=lambda: self.has_missing,  # one pass over the codes: asked only if needed
        )
        batch = FamilyBatch(
            flat.reshape(self.n_classes, total),
            offsets.tolist(),
            self.cards[parents],
            self.cards[children],
        )
        for k, key in enumerate(zip(children, ((p,) for p in parents), strict=True)):
            self._batch_of[key] = (batch, k)  # its tables are sliced out when asked for

    def log_family(self, child: int, parents, alpha: float) -> np.ndarray:
        """``log P(x_child | c, x_parents)``; a batch-counted family's with its whole batch."""
        found = self._batch_of.get((child, tuple(parents)))
        if found is None:
            return super().log_family(child, parents, alpha)
        return found[0].log_table(found[1], alpha)

    def gaussian_moments(self, child, discrete_parents=(), continuous_parents=()):
        """:class:`GaussianMoments` of a continuous child per (class, discrete-parent state).

        Only rows observing the child and every parent count. Cached per family.
        """
        key = (child, tuple(discrete_parents), tuple(continuous_parents))
        if key not in self._moments:
            x = self.values[:, child]
            cont = self.values[:, list(continuous_parents)]
            cat = self.codes[:, list(discrete_parents)]
            observed = ~np.isnan(x) & ~np.isnan(cont).any(axis=1) & (cat != MISSING).all(axis=1)
            cards = tuple(int(self.cards[p]) for p in discrete_parents)
            n_configs = int(np.prod(cards)) if cards else 1
            config = (
                np.ravel_multi_index(tuple(cat[observed].T.astype(np.intp)), cards)
                if cards
                else np.zeros(int(observed.sum()), dtype=np.intp)
            )
            group = self.y[observed] * n_configs + config
            self._moments[key] = GaussianMoments.from_data(
                x[observed],
                cont[observed],
                group,
                self.n_classes * n_configs,
                None if self.weights is None else self.weights[observed],
            )
        return self._moments[key]

    def node_statistics(self, columns, factor, names) -> dict:
        """The additive sums ``factor`` (Bernoulli, multinomial) is fitted from."""
        return factor.node_statistics(self, columns, names)

    def class_values(self, column) -> list:
        """The observed values of a continuous column in each class (unweighted rows only)."""
        if self.weights is not None:
            raise ValueError(
                "sample_weight cannot be used with a KernelDensity feature: a kernel density "
                "keeps its training values, which row weights do not scale."
            )
        x = self.values[:, column]
        observed = ~np.isnan(x)
        return [x[observed & (self.y == c)] for c in range(self.n_classes)]

    def family(self, child: int, parents=()) -> np.ndarray:
        """N(c, x_parents, x_child), cached; see :func:`family_counts`."""
        key = (child, tuple(parents))
        if key not in self._families:
            if key in self._batch_of:
                batch, k = self._batch_of[key]
                counts = batch.counts(k)
            elif "pairwise" in self.__dict__ and len(parents) <= 1:
                pc = self.pairwise
                counts = pc.block(parents[0], child).copy() if parents else pc.feature_class(child)
            elif not parents:
                counts = self.feature_class[child]
            else:
                counts = family_counts(
                    self.codes, self.y, child, parents, self.cards, self.n_classes, self.weights
                )
            self._families[key] = counts
        return self._families[key]


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


@dataclass
class GaussianMoments:
    """Additive moments of a Gaussian family: per group (class x categorical-parent state)
    the row count, the means of the child ``x`` and of its Gaussian parents ``p``, and the
    centred sums of squares and cross-products.

    Two moments of the same family add (Chan, Golub and LeVeque's pairwise update), so a
    fit over chunks equals a fit over their concatenation; centring keeps them exact at
    any offset of the data.

    Examples
    --------
    >>> a = GaussianMoments.from_data(np.array([1.0, 3.0]), np.zeros((2, 0)), np.zeros(2, int), 1)
    >>> b = GaussianMoments.from_data(np.array([5.0]), np.zeros((1, 0)), np.zeros(1, int), 1)
    >>> (a + b).least_squares()[2]  # the variance of 1, 3, 5
    array([2.66666667])
    """

    count: np.ndarray  # (G,)
    mean_x: np.ndarray  # (G,)
    mean_p: np.ndarray  # (G, p)
    sxx: np.ndarray  # (G,)
    sxp: np.ndarray  # (G, p)
    spp: np.ndarray  # (G, p, p)

    @classmethod
    def from_data(cls, x, parents, group, n_groups, weights=None) -> GaussianMoments:
        """Moments of values ``x`` (n,) on ``parents`` (n, p) within ``group`` (n,) ids.

        With ``weights`` (n,) every sum is weighted (integer weights equal repeated rows).
        """
        if weights is not None:
            return cls._weighted(x, parents, group, n_groups, weights)
        p = parents.shape[1]
        count = np.bincount(group, minlength=n_groups).astype(float)
        safe = np.maximum(count, 1.0)
        mean_x = np.bincount(group, x, minlength=n_groups) / safe
        dx = x - mean_x[group]
        mean_p = np.zeros((n_groups, p))
        sxp = np.zeros((n_groups, p))
        spp = np.zeros((n_groups, p, p))
        dp = np.empty_like(parents)
        for k in range(p):  # a handful of parents: one bincount each
            mean_p[:, k] = np.bincount(group, parents[:, k], minlength=n_groups) / safe
            dp[:, k] = parents[:, k] - mean_p[group, k]
            sxp[:, k] = np.bincount(group, dp[:, k] * dx, minlength=n_groups)
        for k in range(p):
            for j in range(k, p):
                spp[:, k, j] = spp[:, j, k] = np.bincount(
                    group, dp[:, k] * dp[:, j], minlength=n_groups
                )
        sxx = np.bincount(group, dx * dx, minlength=n_groups)
        return cls(count, mean_x, mean_p, sxx, sxp, spp)

    @classmethod
    def _weighted(cls, x, parents, group, n_groups, w) -> GaussianMoments:
        p = parents.shape[1]
        count = np.bincount(group, w, minlength=n_groups).astype(float)
        safe = np.where(count > 0, count, 1.0)
        mean_x = np.bincount(group, w * x, minlength=n_groups) / safe
        dx = x - mean_x[group]
        mean_p = np.zeros((n_groups, p))
        sxp = np.zeros((n_groups, p))
        spp = np.zeros((n_groups, p, p))
        dp = np.empty_like(parents)
        for k in range(p):
            mean_p[:, k] = np.bincount(group, w * parents[:, k], minlength=n_groups) / safe
            dp[:, k] = parents[:, k] - mean_p[group, k]
            sxp[:, k] = np.bincount(group, w * dp[:, k] * dx, minlength=n_groups)
        for k in range(p):
            for j in range(k, p):
                spp[:, k, j] = spp[:, j, k] = np.bincount(
                    group, w * dp[:, k] * dp[:, j], minlength=n_groups
                )
        sxx = np.bincount(group, w * dx * dx, minlength=n_groups)
        return cls(count, mean_x, mean_p, sxx, sxp, spp)

    def take(self, index, n_groups) -> GaussianMoments:
        """These moments moved to the groups ``index`` of ``n_groups`` (the others empty)."""
        out = GaussianMoments.empty(n_groups, self.mean_p.shape[1])
        for name in ("count", "mean_x", "mean_p", "sxx", "sxp", "spp"):
            getattr(out, name)[index] = getattr(self, name)
        return out

    @classmethod
    def empty(cls, n_groups, p) -> GaussianMoments:
        """Moments of no rows."""
        return cls(
            np.zeros(n_groups),
            np.zeros(n_groups),
            np.zeros((n_groups, p)),
            np.zeros(n_groups),
            np.zeros((n_groups, p)),
            np.zeros((n_groups, p, p)),
        )

    def __add__(self, other: GaussianMoments) -> GaussianMoments:
        n = self.count + other.count
        share = np.where(n > 0, other.count / np.maximum(n, 1.0), 0.0)
        cross = np.where(n > 0, self.count * other.count / np.maximum(n, 1.0), 0.0)
        dx = other.mean_x - self.mean_x
        dp = other.mean_p - self.mean_p
        return GaussianMoments(
            count=n,
            mean_x=self.mean_x + dx * share,
            mean_p=self.mean_p + dp * share[:, None],
            sxx=self.sxx + other.sxx + dx * dx * cross,
            sxp=self.sxp + other.sxp + dp * (dx * cross)[:, None],
            spp=self.spp + other.spp + dp[:, :, None] * dp[:, None, :] * cross[:, None, None],
        )

    def rescaled(self, child_shift, parent_shift) -> GaussianMoments:
        """The moments of ``x 2**child_shift`` on parents ``p_k 2**parent_shift[k]`` (exact)."""
        parent_shift = np.asarray(parent_shift, dtype=np.int64)
        both = child_shift + parent_shift
        return GaussianMoments(
            count=self.count,
            mean_x=np.ldexp(self.mean_x, child_shift),
            mean_p=np.ldexp(self.mean_p, parent_shift),
            sxx=np.ldexp(self.sxx, 2 * child_shift),
            sxp=np.ldexp(self.sxp, both),
            spp=np.ldexp(self.spp, parent_shift[:, None] + parent_shift[None, :]),
        )

    def pooled(self) -> GaussianMoments:
        """All groups merged into one."""
        n = self.count.sum()
        w = self.count / max(n, 1.0)
        mean_x = w @ self.mean_x
        mean_p = w @ self.mean_p
        dx = self.mean_x - mean_x
        dp = self.mean_p - mean_p
        return GaussianMoments(
            count=np.array([n]),
            mean_x=np.array([mean_x]),
            mean_p=mean_p[None],
            sxx=np.array([self.sxx.sum() + self.count @ (dx * dx)]),
            sxp=(self.sxp.sum(axis=0) + (self.count * dx) @ dp)[None],
            spp=(self.spp.sum(axis=0) + np.einsum("g,gk,gj->kj", self.count, dp, dp))[None],
        )

    def least_squares(self):
        """Per-group ``(intercept, slopes, residual variance)`` (maximum likelihood).

        A parent constant within the group (relative to its scale) explains
        nothing and gets slope 0; several parents use the pseudo-inverse
        (minimum-norm least squares).
        """
        n = np.maximum(self.count, 1.0)
        p = self.mean_p.shape[1]
        if p == 0:
            return self.mean_x.copy(), np.zeros((len(n), 0)), self.sxx / n
        if p == 1:
            spp = self.spp[:, 0, 0]
            scale = spp + self.count * self.mean_p[:, 0] ** 2  # sum of the parent's squares
            usable = spp > 1e-12 * np.maximum(scale, np.finfo(float).tiny)
            coef = np.where(usable, self.sxp[:, 0] / np.where(usable, spp, 1.0), 0.0)[:, None]
        else:
            coef = np.einsum("gkj,gj->gk", np.linalg.pinv(self.spp), self.sxp)
        explained = 2 * np.einsum("gk,gk->g", coef, self.sxp)
        explained -= np.einsum("gk,gkj,gj->g", coef, self.spp, coef)
        var = np.maximum(self.sxx - explained, 0.0) / n
        intercept = self.mean_x - np.einsum("gk,gk->g", coef, self.mean_p)
        return intercept, coef, var


def training_statistics(X, y, distributions=None, sample_weight=None):
    """Learn the schema of ``X``, encode ``X`` and ``y``, and wrap them as statistics.

    With ``sample_weight`` every count and moment is weighted; rows of weight
    0 are dropped first (so they add no category or class either).

    Returns
    -------
    schema : TableSchema
    classes : ndarray
    stats : TrainingCounts

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"site": [0, 1], "size": [1.5, 2.5]})
    >>> schema, classes, stats = training_statistics(X, ["a", "b"])
    >>> schema.kinds, classes.tolist(), stats.classes.tolist()
    (['categorical', 'gaussian'], ['a', 'b'], [1.0, 1.0])
    >>> training_statistics(X, ["a", "b"], sample_weight=[2, 1])[2].classes.tolist()
    [2.0, 1.0]
    """

    weights = None
    has_names = None
    if sample_weight is not None:
        frame, has_names = as_frame(X)
        weights = check_sample_weight(sample_weight, len(frame))
        keep = weights > 0
        if not keep.any():
            raise ValueError("sample_weight: every weight is zero; there is nothing to fit.")
        if not keep.all():
            frame, has_names, y = take_rows(X, y, keep)
            weights = weights[keep]
        X = frame
    schema, frame, codes, values = TableSchema.learn_and_encode(X, distributions, weights, y)
    if has_names is not None:
        schema.has_names = has_names
    classes, y_codes = encode_target(y, len(frame))
    schema.check_observed(values)
    exponents = column_exponents(values, schema.rescaled)
    stats = TrainingCounts(
        codes,
        y_codes,
        schema.cards,
        len(classes),
        values=values,
        discrete=schema.discrete,
        log_variance_scale=schema.log_variance_scale(values, exponents, weights),
        weights=weights,
        exponents=exponents,
    )
    return schema, classes, stats


# -- additive statistics: partial_fit and distributed fits ------------------------------

#: Largest triple-count table (cells, all classes) KDB with k >= 2 accumulates incrementally.
MAX_TRIPLE_CELLS = 1 << 24
#: Largest family table N(c, x_parents, x_child) (cells, all classes) a fit counts: 256 MB.
MAX_FAMILY_CELLS = 1 << 25


@dataclass
class StatisticsPlan:
    """Which additive statistics an incremental fit keeps (what its structure may need).

    Parameters
    ----------
    pairwise : bool
        Keep the full pair table N(c, x_i, x_j) (``C R^2`` floats, ``R`` the
        categories of all features): every single-parent family and the CMI
        of every pair of discrete features. Naive Bayes needs only N(c, x_i).
    triples : bool
        Keep N(c, x_i, x_j, x_k) (``C R^3`` floats): the families with two
        feature parents of KDB with ``k >= 2``; refused above
        :data:`MAX_TRIPLE_CELLS` cells.
    structural_moments : bool
        Keep the Gaussian moments of every family a tree may give a Gaussian
        feature: per class alone, per (class, state of each discrete feature)
        and on each other Gaussian feature (pairwise cross-products per class).
    two_parent_moments : bool
        Also the Gaussian families with two feature parents that KDB with
        ``k >= 2`` may make: two discrete parents, or one discrete and one
        Gaussian (``G (R_cat^2 + R_cat G)`` groups per class).
    """

    pairwise: bool = False
    triples: bool = False
    structural_moments: bool = False
    two_parent_moments: bool = False


def moment_keys(schema, plan) -> list:
    """The Gaussian families ``(child, discrete parents, continuous parents)`` to accumulate."""
    discrete, structural = schema.discrete, schema.structural
    # continuous nodes that take part in structures: the (conditional linear) Gaussians
    gauss = [j for j in range(schema.n_features) if not discrete[j] and structural[j]]
    keys = [(j, (), ()) for j in gauss]
    if plan.structural_moments:
        cats = [i for i in range(schema.n_features) if discrete[i] and structural[i]]
        for j in gauss:
            keys += [(j, (i,), ()) for i in cats]
            keys += [(j, (), (k,)) for k in gauss if k != j]
            if plan.two_parent_moments:
                keys += [(j, (a, b), ()) for a in cats for b in cats if a != b]
                keys += [(j, (i,), (k,)) for i in cats for k in gauss if k != j]
    return keys


@dataclass
class SufficientStatistics(FamilyTables):
    """Additive statistics of a training table: ``a + b`` is the statistics of both tables.

    It holds the class labels and the categories it has seen (a sum unions
    them, sorted as a fit on the concatenated tables sorts them, and re-indexes
    every table, a category unseen by one side counting zero there), the class
    counts, N(c, x_i) of every feature, optionally the pair and triple tables
    (see :class:`StatisticsPlan`), the :class:`GaussianMoments` of the Gaussian
    families and each node's own sums (Bernoulli and multinomial nodes). It
    answers the same questions as :class:`TrainingCounts` (``family``,
    ``pairwise``, ``gaussian_moments``, ...), so weights, structures and
    factors are fitted from it exactly as from the rows.

    Memory: ``C R`` floats, plus ``C R^2`` with the pair table and ``C R^3``
    with triples, plus ``G (C + C R_cat + C G)`` small moment records for
    ``G`` Gaussian features in a structure; independent of the number of rows.

    Examples
    --------
    >>> import pandas as pd
    >>> from bnclassify.data import TableSchema
    >>> a = pd.DataFrame({"x": ["u", "v"]})
    >>> b = pd.DataFrame({"x": ["t", "v"]})
    >>> schema, _ = TableSchema.learn(a)
    >>> sa = SufficientStatistics.from_table(a, ["p", "q"], schema, StatisticsPlan())
    >>> sb = SufficientStatistics.from_table(b, ["p", "p"], schema, StatisticsPlan())
    >>> total = sa + sb
    >>> total.categories[0].tolist(), total.family(0).tolist()
    (['t', 'u', 'v'], [[1.0, 1.0, 1.0], [0.0, 0.0, 1.0]])
    """

    class_labels: np.ndarray
    categories: list
    discrete: np.ndarray
    class_count: np.ndarray
    feature_table: np.ndarray
    pairwise_table: np.ndarray | None = None
    triple_table: np.ndarray | None = None
    moments: dict = field(default_factory=dict)
    node_sums: dict = field(default_factory=dict)
    #: Columns whose pooled variance sets ``variance_scale`` (their key ``(j, (), ())``).
    scale_columns: tuple = ()
    #: Per column the power of two its moments are divided by (:func:`column_exponents`).
    exponents: np.ndarray | None = None

    # -- building -------------------------------------------------------------------
    @classmethod
    def from_table(cls, X, y, schema, plan, weights=None, classes=None):
        """The statistics of one table (a chunk), its categories learned from the chunk itself.

        Parameters
        ----------
        X : DataFrame or array-like
            Aligned with ``schema`` (same columns, same order).
        y : array-like of shape (n,)
        schema : TableSchema
            Kinds of the columns (its categories are not used).
        plan : StatisticsPlan
        weights : ndarray of shape (n,), optional
        classes : ndarray, optional
            The declared classes; a label outside them is a ValueError. Without
            them, the chunk's own sorted labels.
        """

        frame = as_frame(X)[0].set_axis(schema.names, axis=1)
        labels, y_codes = class_codes(y, len(frame), classes)
        categories = chunk_categories(frame, schema)
        cards = np.array([1 if c is None else len(c) for c in categories])
        if all(c is None or len(c) for c in categories):
            codes = encode_frame(frame, categories)
        else:  # a column with no observed value in this chunk: every code missing
            codes = encode_frame(
                frame, [c if c is None or len(c) else np.array([0]) for c in categories]
            )
            for j, c in enumerate(categories):
                if c is not None and not len(c):
                    codes[:, j] = MISSING
        values = None if schema.discrete.all() else schema.continuous_values(frame)
        counts = TrainingCounts(
            codes,
            y_codes,
            cards,
            len(labels),
            values=values,
            discrete=schema.discrete,
            weights=weights,
            exponents=column_exponents(values, schema.rescaled),
        )
        return cls.from_counts(counts, schema, plan, labels, categories)

    @classmethod
    def from_counts(cls, counts, schema, plan, labels, categories):
        """Keep the statistics ``plan`` asks for from a :class:`TrainingCounts`."""
        n_total = int(np.sum(counts.cards))
        pairwise = counts.pairwise.table if plan.pairwise else None
        triples = None
        if plan.triples:
            cells = counts.n_classes * n_total**3
            if cells > MAX_TRIPLE_CELLS:
                raise ValueError(
                    f"KDB with k >= 2 fitted incrementally keeps the triple counts "
                    f"N(c, x_i, x_j, x_k): {cells} cells here, more than "
                    f"MAX_TRIPLE_CELLS = {MAX_TRIPLE_CELLS}. Use fit, or k <= 1."
                )
            triples = _triple_counts(counts, n_total)
        feature_table = (
            np.concatenate(counts.feature_class, axis=1)
            if pairwise is None
            else np.diagonal(pairwise, axis1=1, axis2=2).copy()
        )
        moments = {key: counts.gaussian_moments(*key) for key in moment_keys(schema, plan)}
        node_sums = {
            columns: spec.node_statistics(counts, columns, schema.names)
            for columns, spec in schema.nodes
            if not spec.discrete and not spec.structural  # Bernoulli, multinomial, kde
        }
        scaled = tuple(
            j for j, spec in enumerate(schema.nodes_by_column) if spec.scaled_by_variance
        )
        return cls(
            class_labels=np.asarray(labels),
            categories=list(categories),
            discrete=np.asarray(schema.discrete),
            class_count=counts.classes,
            feature_table=feature_table,
            pairwise_table=pairwise,
            triple_table=triples,
            moments=moments,
            node_sums=node_sums,
            scale_columns=scaled,
            exponents=np.asarray(counts.exponents),
        )

    # -- adding -----------------------------------------------------------------------
    def __add__(self, other: SufficientStatistics) -> SufficientStatistics:
        labels = union_sorted(self.class_labels, other.class_labels)
        categories = [
            a if a is None or _same(a, b) else union_sorted(a, b)
            for a, b in zip(self.categories, other.categories, strict=True)
        ]
        left, right = self.reindexed(labels, categories), other.reindexed(labels, categories)
        exponents = np.maximum(left.exponents, right.exponents)
        left, right = left.rescaled(exponents), right.rescaled(exponents)
        return SufficientStatistics(
            class_labels=labels,
            categories=categories,
            discrete=self.discrete,
            class_count=left.class_count + right.class_count,
            feature_table=left.feature_table + right.feature_table,
            pairwise_table=_add(left.pairwise_table, right.pairwise_table),
            triple_table=_add(left.triple_table, right.triple_table),
            moments={k: left.moments[k] + right.moments[k] for k in left.moments},
            node_sums={
                k: {name: v + right.node_sums[k][name] for name, v in sums.items()}
                for k, sums in left.node_sums.items()
            },
            scale_columns=self.scale_columns,
            exponents=exponents,
        )

    def rescaled(self, exponents) -> SufficientStatistics:
        """These statistics with their moments in units of ``2**exponents`` (exact)."""
        if np.array_equal(exponents, self.exponents):
            return self
        shift = np.where(self.exponents == NO_EXPONENT, 0, self.exponents - exponents)
        moments = {
            key: m.rescaled(shift[key[0]], shift[list(key[2])]) for key, m in self.moments.items()
        }
        return replace(self, moments=moments, exponents=np.asarray(exponents))

    def reindexed(self, labels, categories) -> SufficientStatistics:
        """These statistics on more classes and categories (the new ones counting zero)."""
        if _same(labels, self.class_labels) and all(
            a is None or _same(a, b) for a, b in zip(self.categories, categories, strict=True)
        ):
            return self
        cls_map = _positions(labels, self.class_labels)
        maps = [
            np.zeros(1, dtype=np.intp) if old is None else _positions(new, old)
            for old, new in zip(self.categories, categories, strict=True)
        ]
        new_cards = [1 if c is None else len(c) for c in categories]
        new_offsets = np.concatenate([[0], np.cumsum(new_cards)])
        flat = np.concatenate([new_offsets[j] + m for j, m in enumerate(maps)]).astype(np.intp)
        n_c, n_r = len(labels), int(new_offsets[-1])
        feature_table = np.zeros((n_c, n_r))
        feature_table[np.ix_(cls_map, flat)] = self.feature_table
        pairwise = triples = None
        if self.pairwise_table is not None:
            pairwise = np.zeros((n_c, n_r, n_r))
            pairwise[np.ix_(cls_map, flat, flat)] = self.pairwise_table
        if self.triple_table is not None:
            triples = np.zeros((n_c, n_r, n_r, n_r))
            triples[np.ix_(cls_map, flat, flat, flat)] = self.triple_table
        moments = {}
        for key, m in self.moments.items():
            parents = key[1]
            old_shape = (len(self.class_labels), *(len(maps[p]) for p in parents))
            new_shape = (n_c, *(new_cards[p] for p in parents))
            grid = np.broadcast_arrays(*np.ix_(cls_map, *(maps[p] for p in parents)))
            order = np.ravel_multi_index(tuple(grid), new_shape).ravel()
            assert order.size == np.prod(old_shape)
            moments[key] = m.take(order, int(np.prod(new_shape)))
        node_sums = {}
        for key, sums in self.node_sums.items():
            node_sums[key] = {}
            for name, v in sums.items():
                grown = np.zeros((n_c, *v.shape[1:]))
                grown[cls_map] = v
                node_sums[key][name] = grown
        return SufficientStatistics(
            class_labels=np.asarray(labels),
            categories=list(categories),
            discrete=self.discrete,
            class_count=np.bincount(cls_map, self.class_count, minlength=n_c),
            feature_table=feature_table,
            pairwise_table=pairwise,
            triple_table=triples,
            moments=moments,
            node_sums=node_sums,
            scale_columns=self.scale_columns,
            exponents=self.exponents,
        )

    # -- what TrainingCounts answers ---------------------------------------------------------
    @property
    def cards(self) -> np.ndarray:
        return np.array([1 if c is None else len(c) for c in self.categories])

    @property
    def offsets(self) -> np.ndarray:
        return np.concatenate([[0], np.cumsum(self.cards)])

    @property
    def n_classes(self) -> int:
        return len(self.class_labels)

    @property
    def n_features(self) -> int:
        return len(self.categories)

    @property
    def n_rows(self) -> float:
        """Number (total weight) of the rows accumulated."""
        return float(self.class_count.sum())

    @property
    def classes(self) -> np.ndarray:
        return self.class_count

    @property
    def feature_class(self) -> list:
        o = self.offsets
        return [self.feature_table[:, o[i] : o[i + 1]] for i in range(self.n_features)]

    @property
    def pairwise(self) -> PairwiseCounts:
        if self.pairwise_table is None:
            raise ValueError("These statistics were accumulated without the pair table.")
        return PairwiseCounts(table=self.pairwise_table, cards=self.cards)

    def pair_table(self, rows, cols) -> np.ndarray:
        """N(c, x_i, x_j) of the features ``rows`` against ``cols`` (from the pair table)."""
        return self.pairwise.pair_table(rows, cols)

    def category_counts(self, features) -> np.ndarray:
        """N(c, x_i = a) of every category ``a`` of ``features``, shape ``(C, R_features)``."""
        return self.feature_table[:, category_slices(self.cards, features)]

    def family(self, child: int, parents=()) -> np.ndarray:
        parents = tuple(parents)
        o = self.offsets
        if not parents:
            return self.feature_class[child].copy()
        if len(parents) == 1:
            return self.pairwise.block(parents[0], child).copy()
        if len(parents) == 2 and self.triple_table is not None:
            p, q = parents
            return self.triple_table[
                :, o[p] : o[p + 1], o[q] : o[q + 1], o[child] : o[child + 1]
            ].copy()
        raise ValueError(
            f"The accumulated statistics hold no counts of a family with {len(parents)} "
            "feature parents."
        )

    def families(self, parents_of) -> list:
        return [self.family(i, tuple(p)) for i, p in enumerate(parents_of)]

    def prefetch_families(self, children, parents_of) -> None:
        """Nothing to count ahead: every family is read from the accumulated tables."""

    def gaussian_moments(self, child, discrete_parents=(), continuous_parents=()):
        key = (child, tuple(discrete_parents), tuple(continuous_parents))
        if key not in self.moments:
            raise ValueError(
                f"The accumulated statistics hold no Gaussian moments of the family {key}; "
                "only the families a tree can hold are accumulated."
            )
        return self.moments[key]

    def node_statistics(self, columns, factor, names):
        """The additive sums a non-Gaussian continuous node is fitted from."""
        return self.node_sums[tuple(columns)]

    @property
    def log_variance_scale(self) -> float:
        """log V of the variance floors: V the largest pooled variance of the scaled columns."""
        if not self.scale_columns:
            return 0.0
        variances, exponents = [], []
        for j in self.scale_columns:
            pooled = self.moments[(j, (), ())].pooled()
            if pooled.count[0] <= 0:
                raise ValueError(f"Column {j} has no observed value: every cell is missing.")
            variances.append(pooled.sxx[0] / pooled.count[0])
            exponents.append(self.exponents[j])
        return log_largest(np.array(variances), np.array(exponents))

    @property
    def variance_scale(self) -> float:
        """V in the data's units (``inf`` beyond the float range; see ``log_variance_scale``)."""
        return float(np.exp(min(self.log_variance_scale, 709.0)))

    def check_observed(self, names):
        """Every Gaussian column must have at least one observed value."""
        for key, m in self.moments.items():
            if not key[1] and not key[2] and m.count.sum() <= 0:
                raise ValueError(
                    f"Column {names[key[0]]!r} has no observed value: every cell is missing."
                )


def _same(a, b) -> bool:
    return len(a) == len(b) and bool(np.all(np.asarray(a) == np.asarray(b)))


def _add(a, b):
    return None if a is None else a + b


def _positions(new, old) -> np.ndarray:
    """Where each of ``old`` sits in ``new``."""
    import pandas as pd

    return pd.Index(new).get_indexer(old).astype(np.intp)


def union_sorted(a, b) -> np.ndarray:
    """The categories of ``a`` and ``b`` together, sorted as a fit learns them."""
    import pandas as pd

    if not len(a):
        return np.asarray(b)
    if not len(b):
        return np.asarray(a)
    return learn_categories(pd.Series(np.concatenate([np.asarray(a), np.asarray(b)])))


def chunk_categories(frame, schema) -> list:
    """Each discrete column's categories in this table (empty when all missing), else None."""

    out = []
    for name, discrete in zip(frame.columns, schema.discrete, strict=True):
        if not discrete:
            out.append(None)
        elif frame[name].notna().any():
            out.append(learn_categories(frame[name]))
        else:
            out.append(np.array([]))
    return out


def class_codes(y, n_rows, classes=None):
    """``(labels, codes)``: the chunk's labels (or the declared ``classes``) and y's codes."""
    import pandas as pd

    if isinstance(y, pd.DataFrame):
        y = y.iloc[:, 0]
    values = y.to_numpy() if isinstance(y, pd.Series) else np.asarray(y)
    values = values.ravel() if values.ndim == 2 and values.shape[1] == 1 else values
    if values.ndim != 1 or len(values) != n_rows:
        raise ValueError(f"X has {n_rows} rows but y has shape {values.shape}; they must match.")
    if pd.isna(values).any():
        raise ValueError("y has missing values; the class must be observed in every row.")
    if classes is None:
        classes = learn_categories(pd.Series(values, name="y"))
    codes = pd.Index(classes).get_indexer(values)
    if (codes < 0).any():
        bad = values[np.argmax(codes < 0)]
        bad = bad.item() if isinstance(bad, np.generic) else bad
        raise ValueError(
            f"y has the label {bad!r}, which is not one of the declared classes "
            f"{list(classes)}; pass every class in classes on the first call to partial_fit."
        )
    return np.asarray(classes), codes.astype(np.intp)


def _triple_counts(counts, n_total):
    """N(c, x_i, x_j, x_k) of every triple of features, shape ``(C, R, R, R)``."""
    offsets = np.concatenate([[0], np.cumsum(counts.cards)])
    table = np.zeros((counts.n_classes, n_total, n_total, n_total))
    for start in range(0, len(counts.y), CHUNK_ROWS):
        codes = np.ascontiguousarray(counts.codes[start : start + CHUNK_ROWS])
        y = counts.y[start : start + CHUNK_ROWS]
        z = one_hot(codes, offsets[:-1], n_total, np.float64)
        if counts.weights is not None:
            z_w = z * counts.weights[start : start + CHUNK_ROWS, None]
        else:
            z_w = z
        for c in range(counts.n_classes):
            rows = y == c
            if rows.any():
                table[c] += np.einsum("ni,nj,nk->ijk", z_w[rows], z[rows], z[rows], optimize=True)
    return table
