"""Sufficient statistics: class counts, family counts and pairwise class-conditional counts.

Everything later in a fit (weights, structure, parameters) reads these counts,
never the raw rows again. Counts are additive over row blocks, which is how
the pairwise table is built (chunk by chunk) and how out-of-core fits can sum
them. A missing cell (code :data:`~bnclassify._encoding.MISSING`) is simply not
counted: a row contributes to every count whose variables it observes.
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass, field
from functools import cache, cached_property

import numpy as np
from threadpoolctl import ThreadpoolController

from ._encoding import MISSING, encode_target

#: Rows per block when building one-hot blocks; float32 counts stay exact below 2**24.
CHUNK_ROWS = 1 << 16
#: Cells per block when building index arrays over many columns at once.
CHUNK_ELEMENTS = 1 << 18
#: Up to this many categories in all, pairwise products run on one BLAS thread.
SINGLE_THREAD_MAX = 512


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
    counts = np.bincount(
        index if observed is None else index[observed], minlength=int(np.prod(shape))
    )
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
    # Small products (R x R outputs) gain nothing from BLAS threads, and on a busy
    # machine the threads' synchronisation makes them many times slower.
    single = n_total <= SINGLE_THREAD_MAX and len(y) > chunk_rows
    with _blas_controller().limit(limits=1, user_api="blas") if single else nullcontext():
        for start in range(0, len(y), chunk_rows):
            block_codes = np.ascontiguousarray(codes[start : start + chunk_rows])  # row-major
            block_y = y[start : start + chunk_rows]
            for c in range(n_classes):
                # select the class's (small, integer) rows before one-hot encoding them:
                # selecting rows of the float one-hot instead costs more than the product
                z = _one_hot(block_codes[block_y == c], offsets[:-1], n_total)
                if len(z):
                    table[c] += z.T @ z
    return PairwiseCounts(table=table, cards=cards)


@cache
def _blas_controller() -> ThreadpoolController:
    return ThreadpoolController()  # scans the loaded BLAS libraries once


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
    #: Numbers of the continuous columns (NaN: missing; discrete columns are not read).
    values: np.ndarray | None = None
    #: Whether each column is discrete (codes) or continuous (values); default all discrete.
    discrete: np.ndarray | None = None
    #: V of the variance floors: the largest variance of any column whose node scales by it.
    variance_scale: float = 1.0
    _moments: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        if self.discrete is None:
            self.discrete = np.ones(self.codes.shape[1], dtype=bool)

    @cached_property
    def classes(self) -> np.ndarray:
        return class_counts(self.y, self.n_classes)

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
            flat += np.bincount(index[codes != MISSING], minlength=len(flat))
        table = flat.reshape(self.n_classes, total)
        return [table[:, offsets[i] : offsets[i + 1]] for i in range(self.n_features)]

    @cached_property
    def pairwise(self) -> PairwiseCounts:
        return pairwise_counts(self.codes, self.y, self.cards, self.n_classes)

    @property
    def n_features(self) -> int:
        return self.codes.shape[1]

    def families(self, parents_of, both_ways=False) -> list:
        """N(c, x_parents, x_i) for every feature ``i`` given its parent tuple ``parents_of[i]``.

        Families with at most one parent are counted together in one bincount
        over an ``(n_rows, n_features)`` index, so a tree costs one pass over
        the table rather than one per feature. With ``both_ways``, each
        single-parent family is also cached reversed (N(c, x_i, x_p) is the
        same count transposed), so trees rooted elsewhere never recount.
        """
        todo = [
            i
            for i, parents in enumerate(parents_of)
            if len(parents) == 1
            and (i, tuple(parents)) not in self._families
            and "pairwise" not in self.__dict__
        ]
        if len(todo) > 1:
            self._count_single_parent_families(todo, [parents_of[i][0] for i in todo])
        roots = [i for i, parents in enumerate(parents_of) if not len(parents)]
        if len(roots) == 1 and not {"feature_class", "pairwise"} & self.__dict__.keys():
            # a tree has one root: count it alone, not N(c, x_i) of every feature
            key = (roots[0], ())
            if key not in self._families:
                self._families[key] = family_counts(
                    self.codes, self.y, roots[0], (), self.cards, self.n_classes
                )
        tables = [self.family(i, tuple(parents)) for i, parents in enumerate(parents_of)]
        if both_ways:
            for child, parents in enumerate(parents_of):
                if len(parents) == 1:
                    reverse = (parents[0], (child,))
                    self._families.setdefault(reverse, tables[child].swapaxes(1, 2))
        return tables

    def _count_single_parent_families(self, children, parents):
        sizes = self.cards[parents] * self.cards[children]
        offsets = np.concatenate([[0], np.cumsum(sizes)])
        total = int(offsets[-1])
        flat = np.zeros(self.n_classes * total)
        rows = max(1, CHUNK_ELEMENTS // len(children))  # cache-sized index blocks
        # int32 arithmetic halves the memory traffic when every index fits
        dtype = np.int32 if len(flat) < np.iinfo(np.int32).max else np.intp
        child_cards = self.cards[children].astype(dtype)
        starts = offsets[:-1].astype(dtype)
        for start in range(0, len(self.y), rows):
            child = self.codes[start : start + rows, children]
            parent = self.codes[start : start + rows, parents]
            index = parent.astype(dtype) * child_cards
            index += child
            index += starts
            index += (self.y[start : start + rows, None] * total).astype(dtype)
            missing = (child == MISSING) | (parent == MISSING)
            if missing.any():
                index = index[~missing]
            flat += np.bincount(index.ravel(), minlength=len(flat))
        table = flat.reshape(self.n_classes, total)
        for k, (i, p) in enumerate(zip(children, parents, strict=True)):
            shape = (self.n_classes, self.cards[p], self.cards[i])
            self._families[(i, (p,))] = table[:, offsets[k] : offsets[k + 1]].reshape(shape)

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
                x[observed], cont[observed], group, self.n_classes * n_configs
            )
        return self._moments[key]

    def class_values(self, column) -> list:
        """The observed values of a continuous column in each class."""
        x = self.values[:, column]
        observed = ~np.isnan(x)
        return [x[observed & (self.y == c)] for c in range(self.n_classes)]

    def family(self, child: int, parents=()) -> np.ndarray:
        """N(c, x_parents, x_child), cached; see :func:`family_counts`."""
        key = (child, tuple(parents))
        if key not in self._families:
            if "pairwise" in self.__dict__ and len(parents) <= 1:
                pc = self.pairwise
                counts = pc.block(parents[0], child).copy() if parents else pc.feature_class(child)
            elif not parents:
                counts = self.feature_class[child]
            else:
                counts = family_counts(
                    self.codes, self.y, child, parents, self.cards, self.n_classes
                )
            self._families[key] = counts
        return self._families[key]


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
    def from_data(cls, x, parents, group, n_groups) -> GaussianMoments:
        """Moments of values ``x`` (n,) on ``parents`` (n, p) within ``group`` (n,) ids."""
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


def training_statistics(X, y, distributions=None):
    """Learn the schema of ``X``, encode ``X`` and ``y``, and wrap them as statistics.

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
    """
    from .data import TableSchema

    schema, frame = TableSchema.learn(X, distributions)
    classes, y_codes = encode_target(y, len(frame))
    codes, values = schema.encode(frame)
    schema.check_observed(values)
    stats = TrainingCounts(
        codes,
        y_codes,
        schema.cards,
        len(classes),
        values=values,
        discrete=schema.discrete,
        variance_scale=schema.variance_scale(values),
    )
    return schema, classes, stats
