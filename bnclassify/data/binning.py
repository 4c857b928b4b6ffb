"""Supervised binning of a numeric column: cut points learned from the training rows and
their classes, and the bins as categories.

A *binned* node kind (:class:`~bnclassify.distributions.Binned`) declares a
:class:`Binning` as the data layer's recipe for its column: the schema learns
the cut points once from the training rows (:meth:`Binning.cut_points`), names
each bin by its interval (:func:`bin_labels`), and codes every later table by
them (:func:`bin_codes`), so the node itself is a categorical table over the
bins. :func:`mdl_cut_points` is Fayyad and Irani's (1993) MDL discretisation,
also behind :class:`~bnclassify.preprocessing.MDLDiscretizer`, and
:func:`sampled_mdl_cut_points` its stochastic version (ESKDB's discretiser).

MDL's cut points depend on a column only through its :class:`ValueClassCounts`
(each distinct value's weight in each class), which add up: a table read in
chunks or partitions gets, from the sum of its chunks' counts, exactly the cut
points of its whole column (:data:`MAX_BINNED_VALUES` bounds what an
out-of-core fit keeps).

Examples
--------
>>> counts = ValueClassCounts.from_rows([1.0, 2, 3, 4, 5, 6, 7, 8], [0, 0, 0, 0, 1, 1, 1, 1])
>>> cuts = MDL.cut_points(counts)
>>> cuts, bin_labels(cuts).tolist()
(array([4.5]), ['(-inf, 4.5]', '(4.5, inf)'])
>>> bin_codes(cuts, np.array([0.0, 4.5, 9.0, np.nan])).tolist()
[0, 0, 1, -1]
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..exceptions import OutOfCoreError
from ..validation import check_sample_weight, float_array
from .encoding import sort_order

#: Distinct values of one binned column that an out-of-core fit (a dask fit,
#: ``MDLDiscretizer.partial_fit``) keeps to learn its MDL cut points exactly: each costs
#: ``8 (C + 1)`` bytes (``C`` classes), 100 MB per column at this bound with two classes.
#: Beyond it the fit is refused with the column's name and the remedies (round the column,
#: fix its cut points, model it as a density); raise it where the memory is there.
MAX_BINNED_VALUES = 1 << 22


def _entropy(counts):
    """Class entropy in bits of each row of ``counts`` (shape (..., n_classes))."""
    total = counts.sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore", under="ignore"):
        p = np.where(counts > 0, counts / total, 1.0)
        # a class whose weight underflows beside the others' (5e-324 next to 1e300) has
        # p = 0 and adds nothing (not 0 * -inf)
        return -(np.where(p > 0, p * np.log2(np.where(p > 0, p, 1.0)), 0.0)).sum(axis=-1)


def mdl_cut_points(x, y, sample_weight=None) -> np.ndarray:
    """Fayyad-Irani MDL cut points of one feature, sorted.

    The values are sorted once; a segment ``S`` of ``N`` rows is split at the
    cut ``T`` (a midpoint between consecutive distinct values) minimising the
    class information entropy ``E(T) = |S1|/N Ent(S1) + |S2|/N Ent(S2)``
    (ties to the smallest cut), and the split is kept when

        Gain(T) > log2(N - 1) / N + Delta / N,
        Delta = log2(3^k - 2) - [k Ent(S) - k1 Ent(S1) - k2 Ent(S2)],

    ``k``, ``k1``, ``k2`` the numbers of classes present in ``S``, ``S1``,
    ``S2`` (entropies in bits); both halves are then split the same way.
    Every segment's candidate entropies come from one cumulative class-count
    table, vectorised over the cuts.

    Parameters
    ----------
    x : array-like of shape (n,)
        Finite numbers.
    y : array-like of shape (n,)
        Class labels.
    sample_weight : array-like of shape (n,), optional
        Positive row weights counted as frequencies (``N`` and the class
        counts are sums of weights): an integer weight equals repeating the row.

    Returns
    -------
    ndarray
        The accepted cut points, ascending (empty when no split pays).

    Examples
    --------
    >>> mdl_cut_points([1, 2, 3, 4, 5, 6, 7, 8], list("aaaabbbb"))
    array([4.5])
    """

    return SortedColumn(*_checked_column(x, y, sample_weight)).walk(_best_passing)


def _best_passing(gain, margin, whole_column):
    """MDL's choice in a segment: the cut of least class entropy, kept if it pays."""
    best = int(np.flatnonzero(gain >= gain.max() - 1e-12)[0])  # least E(T), ties: first
    return (best, True) if margin[best] > 0 else None


def mdl_cut_points_of_counts(counts: ValueClassCounts) -> np.ndarray:
    """:func:`mdl_cut_points` of a column given as its :class:`ValueClassCounts`.

    The same cut points as from the rows themselves (with integer weights, or
    none, to the last bit: every sum it reads is then exact); what a fit reads,
    in memory or out of core.

    Examples
    --------
    >>> a = ValueClassCounts.from_rows([1.0, 2, 3, 4], list("aaab"))
    >>> b = ValueClassCounts.from_rows([5.0, 6, 7, 8, 4], list("bbbba"))
    >>> rows = [1.0, 2, 3, 4, 5, 6, 7, 8, 4], list("aaabbbbba")
    >>> mdl_cut_points_of_counts(a + b), mdl_cut_points(*rows)
    (array([4.5]), array([4.5]))
    """
    return SortedColumn.of_counts(counts).walk(_best_passing)


def sampled_mdl_cut_points(x, y, rng, sample_weight=None) -> np.ndarray:
    """Cut points of one feature sampled around Fayyad-Irani's MDL rule (ESKDB's discretiser).

    The stochastic discretisation of Zhang, Petitjean and Buntine (2020, the
    ensemble of selective KDBs): each segment's candidate cuts are those that
    pass the MDL test of :func:`mdl_cut_points`, and one of them is drawn with
    probability proportional to its margin ``Gain(T) - (log2(N - 1) + Delta) / N``
    instead of taking the best; both halves are then cut the same way. When no
    candidate of the whole column passes the test, one cut is drawn with
    probability proportional to its information gain (none when every gain is
    0), so that a numeric column keeps at least two bins. Two calls with
    generators in the same state return the same cuts.

    Parameters
    ----------
    x : array-like of shape (n,)
        Finite numbers.
    y : array-like of shape (n,)
        Class labels.
    rng : numpy.random.Generator
        The only source of randomness.
    sample_weight : array-like of shape (n,), optional
        As in :func:`mdl_cut_points`.

    Returns
    -------
    ndarray
        The sampled cut points, ascending.

    Examples
    --------
    >>> x, y = [1, 2, 3, 4, 5, 6, 7, 8], list("aaaabbbb")
    >>> sampled_mdl_cut_points(x, y, np.random.default_rng(0))
    array([4.5])
    """

    return SortedColumn(*_checked_column(x, y, sample_weight)).sampled_cuts(rng)


def _checked_column(x, y, sample_weight):
    """``(x, y, sample_weight)`` of the public cut-point functions, or an error naming the
    argument: ``x`` one finite real number per row, ``y`` one label per row."""
    x = float_array(x, "x")
    if x.ndim != 1:
        raise ValueError(f"x must be one column (1-D), got shape {x.shape}.")
    if not np.isfinite(x).all():
        raise ValueError(
            f"x must be finite numbers, got {x[~np.isfinite(x)][0]} (row "
            f"{int(np.argmax(~np.isfinite(x)))})."
        )
    labels = np.asarray(y)
    if labels.ndim != 1 or len(labels) != len(x):
        raise ValueError(
            f"y must hold one label per value of x ({len(x)}), got shape {labels.shape}."
        )
    if len(labels) and pd.isna(labels).any():
        raise ValueError(f"y holds a missing label (row {int(np.argmax(pd.isna(labels)))}).")
    return x, labels, check_sample_weight(sample_weight, len(x))


class SortedColumn:
    """A numeric column's distinct values, sorted, with their cumulative class weights.

    What every MDL walk over the column reads: computed once, and each
    segment's candidate cuts and their gains and margins kept once computed,
    so that walks that meet the same segment (ESKDB's members, each sampling
    its own cuts of the same column) compute it once. :meth:`walk` gives the
    same cuts as :func:`mdl_cut_points` / :func:`sampled_mdl_cut_points`.

    Examples
    --------
    >>> column = SortedColumn([1, 2, 3, 4, 5, 6, 7, 8], list("aaaabbbb"))
    >>> column.sampled_cuts(np.random.default_rng(0)), column.sampled_cuts(np.random.default_rng(1))
    (array([4.5]), array([4.5]))
    """

    def __init__(self, x, y, sample_weight=None):
        self._read(ValueClassCounts.from_rows(x, y, sample_weight))

    @classmethod
    def of_counts(cls, counts: ValueClassCounts) -> SortedColumn:
        """The column of a :class:`ValueClassCounts` (e.g. summed over chunks)."""
        column = cls.__new__(cls)
        column._read(counts)
        return column

    def _read(self, counts):
        # one position per distinct value: a cut falls only between two of them, and every
        # sum MDL reads runs over whole values, so rows of equal value are counted together
        self.xs = counts.values
        n = self.n = len(self.xs)
        self._segments = {}
        if n < 2:
            return
        self.cum = np.zeros((n + 1, counts.counts.shape[1]))
        np.cumsum(counts.counts, axis=0, out=self.cum[1:])
        self.mass = self.cum.sum(axis=1)  # the weight of the values before each position

    def sampled_cuts(self, rng) -> np.ndarray:
        """:func:`sampled_mdl_cut_points` of the column, drawn from ``rng``."""

        def drawn(gain, margin, whole_column):
            weight = np.where(margin > 0, margin, 0.0)
            if weight.any():
                return weighted_draw(rng, weight), True
            if not whole_column or not (gain > 0).any():
                return None
            weight = np.maximum(gain, 0.0)  # at least one cut, drawn by information gain
            return weighted_draw(rng, weight), False

        return self.walk(drawn)

    def walk(self, pick) -> np.ndarray:
        """The cuts of a recursive split; ``pick(gain, margin, whole_column)`` chooses."""
        if self.n < 2:
            return np.empty(0)
        cuts = []
        stack = [(0, self.n, True)]
        while stack:
            lo, hi, whole_column = stack.pop()
            segment = self._segments.get((lo, hi))
            if segment is None:
                segment = self._segments[lo, hi] = self._segment(lo, hi)
            if segment is False:
                continue
            candidates, gain, margin = segment
            chosen = pick(gain, margin, whole_column)
            if chosen is None:
                continue
            best, split = chosen
            t = candidates[best]
            cuts.append(midpoint(self.xs[t - 1], self.xs[t]))
            if split:
                stack.extend([(t, hi, False), (lo, t, False)])
        return np.sort(np.asarray(cuts, dtype=float))

    def _segment(self, lo, hi):
        """``(candidates, gain, margin)`` of the rows ``lo:hi``, or False: no cut to make."""
        cum, mass = self.cum, self.mass
        candidates = np.arange(lo + 1, hi)  # a cut between each two distinct values
        size = mass[hi] - mass[lo]
        if len(candidates) == 0 or size <= 1:
            return False
        total = cum[hi] - cum[lo]
        # sums of weights of very different sizes round: a difference must not go below 0
        left = np.maximum(cum[candidates] - cum[lo], 0.0)
        right = np.maximum(cum[hi] - cum[candidates], 0.0)
        left_entropy, right_entropy = _entropy(left), _entropy(right)
        share = (mass[candidates] - mass[lo]) / size
        whole = float(_entropy(total))
        gain = whole - (share * left_entropy + (1 - share) * right_entropy)
        k = np.count_nonzero(total)
        k1, k2 = np.count_nonzero(left, axis=1), np.count_nonzero(right, axis=1)
        delta = np.log2(3.0**k - 2) - (k * whole - k1 * left_entropy - k2 * right_entropy)
        return candidates, gain, gain - (np.log2(size - 1) + delta) / size


def weighted_draw(rng, weight) -> int:
    """``rng.choice(len(weight), p=weight / weight.sum())``, the same draw from the same
    state (one uniform against the normalised cumulative weights) without its checks of
    ``p``, which cost more than the draw on a segment of a few cuts.

    Examples
    --------
    >>> weight = np.array([0.5, 0.0, 2.0])
    >>> draws = [weighted_draw(np.random.default_rng(seed), weight) for seed in range(8)]
    >>> draws == [np.random.default_rng(s).choice(3, p=weight / weight.sum()) for s in range(8)]
    True
    """
    cdf = (weight / weight.sum()).cumsum()
    cdf /= cdf[-1]
    return int(cdf.searchsorted(rng.random(), side="right"))


@dataclass(frozen=True)
class ValueClassCounts:
    """A numeric column's distinct observed values with each value's weight in each class.

    Everything Fayyad and Irani's MDL rule reads of a column (its cut points
    fall between distinct values, and every sum it takes runs over whole
    values), in ``8 (C + 1)`` bytes per distinct value. Two add up, ``a + b``
    (or :meth:`total` of many): the counts of both sets of rows, merged by
    value and by class label. So the cut points of a table read in chunks or
    partitions are those of its whole column, exactly when the weights are
    integers (or absent): every sum is then exact, whatever the order.

    Attributes
    ----------
    values : ndarray of shape (V,)
        The distinct values, ascending (``-0.0`` read as ``0.0``).
    counts : ndarray of shape (V, C)
        Each value's weight in each class: positive row sums, and no class
        without weight.
    classes : ndarray of shape (C,)
        The class labels of ``counts``' columns, sorted as labels sort
        (mixed types by type name, then text): one order whatever the rows' order
        or the partitioning, so every path sums the classes' terms alike.

    Examples
    --------
    >>> a = ValueClassCounts.from_rows([2.0, 1.0, 2.0], ["y", "x", "x"])
    >>> b = ValueClassCounts.from_rows([3.0, 2.0], ["z", "y"], weights=[1.0, 2.0])
    >>> total = a + b
    >>> total.values.tolist(), total.classes.tolist()
    ([1.0, 2.0, 3.0], ['x', 'y', 'z'])
    >>> total.counts.tolist()
    [[1.0, 0.0, 0.0], [1.0, 3.0, 0.0], [0.0, 0.0, 1.0]]
    """

    values: np.ndarray
    counts: np.ndarray
    classes: np.ndarray

    @classmethod
    def from_rows(cls, x, y, weights=None, classes=None) -> ValueClassCounts:
        """The counts of some rows: ``x`` finite numbers, ``y`` their class labels (or, with
        ``classes``, codes into ``classes``; -1 for a row without class, left out) and
        ``weights`` their non-negative weights (rows of weight 0 are left out)."""
        x = np.asarray(x, dtype=float).ravel()
        if not np.isfinite(x).all():
            raise ValueError("ValueClassCounts counts finite numbers; x holds NaN or inf.")
        if classes is None:
            codes, classes = pd.factorize(np.asarray(y).ravel())
            classes = np.asarray(classes)
        else:
            codes, classes = np.asarray(y, dtype=np.intp).ravel(), np.asarray(classes)
        if len(codes) != len(x):
            raise ValueError(f"x has {len(x)} values but y has {len(codes)}.")
        keep = codes >= 0
        w = None
        if weights is not None:
            w = np.asarray(weights, dtype=float).ravel()
            keep &= w > 0
        if not keep.all():
            x, codes = x[keep], codes[keep]
            w = None if w is None else w[keep]
        order = sort_order(classes)
        rank = np.empty(len(order), dtype=np.intp)
        rank[order] = np.arange(len(order))
        values, inverse = np.unique(x + 0.0, return_inverse=True)  # + 0.0: -0.0 is 0.0
        n_classes = len(classes)
        cells = inverse.ravel() * n_classes + rank[codes]
        counts = np.bincount(cells, weights=w, minlength=len(values) * n_classes)
        counts = counts.reshape(len(values), n_classes).astype(float)
        classes = classes[order]
        present = counts.any(axis=0)
        if not present.all():
            counts, classes = counts[:, present], classes[present]
        return cls(values, counts, classes)

    @classmethod
    def total(cls, parts) -> ValueClassCounts | None:
        """The sum of some counts (``None`` entries skipped; ``None`` when none is left),
        added in the order given."""
        parts = [p for p in parts if p is not None]
        if len(parts) <= 1:
            return parts[0] if parts else None
        labels = [p.classes for p in parts]
        if len({a.dtype for a in labels}) > 1:
            labels = [a.astype(object) for a in labels]  # no 1 read as "1" beside text
        uniques = pd.unique(np.concatenate(labels))
        classes = np.asarray(uniques)[sort_order(np.asarray(uniques))]
        values, inverse = np.unique(np.concatenate([p.values for p in parts]), return_inverse=True)
        inverse = inverse.ravel()
        counts = np.zeros((len(values), len(classes)))
        index, start = pd.Index(classes), 0
        for p in parts:
            rows = inverse[start : start + len(p.values)]
            start += len(p.values)
            counts[np.ix_(rows, index.get_indexer(p.classes))] += p.counts
        return cls(values, counts, classes)

    def __add__(self, other: ValueClassCounts) -> ValueClassCounts:
        return ValueClassCounts.total([self, other])

    @property
    def n_values(self) -> int:
        """Number of distinct values."""
        return len(self.values)

    @property
    def nbytes(self) -> int:
        """Bytes held: ``8 (C + 1)`` per distinct value."""
        return int(self.values.nbytes + self.counts.nbytes)

    def check_size(self, name, limit=None) -> ValueClassCounts:
        """These counts, or an :class:`~bnclassify.exceptions.OutOfCoreError` naming the
        column ``name`` when they hold more than ``limit`` (default
        :data:`MAX_BINNED_VALUES`) distinct values."""
        limit = MAX_BINNED_VALUES if limit is None else limit
        if self.n_values <= limit:
            return self
        per_value = 8 * (len(self.classes) + 1)
        raise OutOfCoreError(
            f"Column {name!r} has more than {limit:,} distinct values ({self.n_values:,} so "
            f"far): learning its MDL cut points exactly out of core keeps each distinct value "
            f"with its class counts ({per_value} bytes each), and MAX_BINNED_VALUES bounds "
            f"them. Round it to the resolution that matters (e.g. X[{name!r}].round(3): the "
            "model then equals fit on the rounded column), give its cut points "
            f"(distributions={{{name!r}: Binned(cut_points=...)}}, e.g. from MDLDiscretizer on "
            f"a sample), model it as a density (distributions={{{name!r}: 'gaussian'}}), or "
            "raise bnclassify.data.binning.MAX_BINNED_VALUES where the memory is there.",
            [name],
        )


@dataclass(frozen=True)
class Binning:
    """How a binned kind learns its column's cut points: the data layer applies it.

    Parameters
    ----------
    name : str
    learn : callable
        ``learn(counts) -> cut points``: ``counts`` the column's
        :class:`ValueClassCounts` over the training rows (their observed values,
        classes and sample weights); ascending, distinct, finite cut points. A
        rule that reads only these counts gives ``fit``'s cut points in a dask
        fit too, which sums them over the partitions.
    """

    name: str
    learn: Callable

    def cut_points(self, counts: ValueClassCounts) -> np.ndarray:
        """The cut points of a column's :class:`ValueClassCounts`, checked (ascending, finite)."""
        if not counts.n_values:
            return np.empty(0)
        return checked_cut_points(self.learn(counts), f"The {self.name} binning's cut points")


def checked_cut_points(cuts, what="cut_points") -> np.ndarray:
    """``cuts`` as ascending, distinct, finite floats, or a ``ValueError`` saying ``what``.

    Examples
    --------
    >>> checked_cut_points([0.5, 2])
    array([0.5, 2. ])
    >>> checked_cut_points([2, 1])
    Traceback (most recent call last):
    ...
    ValueError: cut_points must be ascending, distinct, finite numbers; got [2.0, 1.0].
    """
    try:
        array = np.array(cuts, dtype=float)
    except (TypeError, ValueError):
        array = None
    if (
        array is None
        or array.ndim != 1
        or not np.isfinite(array).all()
        or (array[1:] <= array[:-1]).any()
    ):
        shown = array[:5].tolist() if array is not None and array.ndim == 1 else cuts
        raise ValueError(f"{what} must be ascending, distinct, finite numbers; got {shown}.")
    return array + 0.0  # -0.0 is 0.0, as in the counts


#: Fayyad and Irani's MDL discretisation (:func:`mdl_cut_points`).
MDL = Binning("mdl", mdl_cut_points_of_counts)


def bin_codes(cuts, x) -> np.ndarray:
    """The bin of each value (``-1`` where ``x`` is NaN): 0 up to and including the first
    cut, ``len(cuts)`` above the last (a value equal to a cut falls in the lower bin)."""
    x = np.asarray(x, dtype=float)
    codes = np.searchsorted(cuts, x, side="left")
    return np.where(np.isnan(x), -1, codes)


#: Most cuts of a column that :func:`block_bin_codes` counts in its passes over the block;
#: a column of more is binned alone (a binary search per value).
BLOCK_CUTS = 16


def block_bin_codes(cuts, values) -> np.ndarray:
    """:func:`bin_codes` of every column of a block at once: column ``j`` of ``values`` by
    ``cuts[j]``.

    A value's bin is the number of its column's cuts strictly below it (what
    ``searchsorted(cuts, x, side="left")`` returns for sorted cuts), counted one
    cut rank at a time over every column together (the cuts padded by ``inf``):
    a wide table's hundreds of binned columns cost a few passes over the block,
    not a call per column. A column of more than :data:`BLOCK_CUTS` cuts is
    binned alone.

    Parameters
    ----------
    cuts : sequence of 1-D array-like
        Each column's sorted cut points.
    values : ndarray of shape (n_rows, len(cuts))

    Returns
    -------
    ndarray of shape (n_rows, len(cuts))
        ``-1`` where the value is NaN; of the smallest signed integer type that holds
        every bin (``int8`` below 127 cuts a column).

    Examples
    --------
    >>> values = np.array([[0.0, 5.0], [4.5, np.nan], [9.0, -1.0]])
    >>> block_bin_codes([[2.5, 7.5], [0.0]], values).tolist()
    [[0, 1], [1, -1], [2, 0]]
    """
    values = np.asarray(values, dtype=float)
    cuts = [np.asarray(c, dtype=float) for c in cuts]
    lengths = np.array([len(c) for c in cuts], dtype=np.intp)
    few = lengths <= BLOCK_CUTS
    width = int(lengths[few].max()) if few.any() else 0
    padded = np.full((len(cuts), width), np.inf)
    if width:
        # row by row, each column's cuts then inf: the cells of a mask filled in C order
        padded[np.arange(width) < np.where(few, lengths, 0)[:, None]] = np.concatenate(
            [c for c, f in zip(cuts, few, strict=True) if f]
        )
    # the counts in bytes where they fit: each pass adds a bool block to a block 8x smaller
    most = int(lengths.max()) if len(lengths) else 0
    out = np.zeros(values.shape, dtype=np.int8 if most < 127 else np.intp)
    for rank in range(width):
        out += padded[:, rank] < values
    for j in np.flatnonzero(~few):
        out[:, j] = np.searchsorted(cuts[j], values[:, j], side="left")
    out[np.isnan(values)] = -1
    return out


def midpoint(low, high) -> float:
    """A cut between two distinct sorted values, ``low <= cut < high``: their midpoint,
    computed without overflow (``1.5e308`` and ``8e307`` sum past the float range), or
    ``low`` where halving rounds it up to ``high`` (adjacent floats).

    Examples
    --------
    >>> midpoint(1.0, 2.0), midpoint(8e307, 1.6e308)
    (1.5, 1.2e+308)
    """
    low, high = float(low), float(high)
    cut = (low + high) / 2  # Python floats: an overflow is inf, not a numpy warning
    if not math.isfinite(cut):
        cut = low / 2 + high / 2
    return cut if low <= cut < high else low


def bin_labels(cuts) -> np.ndarray:
    """Each bin's interval as text, ``(low, high]`` (``(last, inf)`` above the last cut):
    the categories of a binned column (its states in plots and in pgmpy)."""
    edges = ["-inf", *(repr(float(c)) for c in cuts), "inf"]
    labels = [f"({a}, {b}]" for a, b in zip(edges[:-2], edges[1:-1], strict=True)]
    labels.append(f"({edges[-2]}, inf)")
    return np.array(labels, dtype=object)


def cut_points_of_labels(labels) -> np.ndarray | None:
    """The cut points whose :func:`bin_labels` are exactly ``labels`` (in any order), or
    None when ``labels`` are not a binned column's intervals as bnclassify writes them. How
    a model read back from pgmpy or BIF knows a binned column (and reads numbers again).

    Examples
    --------
    >>> cut_points_of_labels(["(2.45, 4.75]", "(-inf, 2.45]", "(4.75, inf)"]).tolist()
    [2.45, 4.75]
    >>> cut_points_of_labels(["low", "high"]) is None
    True
    """
    highs = []
    for label in labels:
        found = _INTERVAL.fullmatch(label) if isinstance(label, str) else None
        if found is None:
            return None
        highs.append(found.group(1))
    try:
        cuts = np.sort(np.array([float(h) for h in highs if h != "inf"]))
    except ValueError:
        return None
    if not np.isfinite(cuts).all() or sorted(bin_labels(cuts)) != sorted(labels):
        return None
    return cuts


_INTERVAL = re.compile(r"\((?:-inf|\S+), (\S+?)[\])]")


def bin_representatives(cuts) -> np.ndarray:
    """A number inside each bin: its upper cut (a value equal to a cut is in the lower bin),
    and above the last cut that cut plus one (or the next float, for a huge cut; 0 for a
    column without cuts). What a model
    that reads numbers is given for a bin (an explanation's decoded rows).

    Examples
    --------
    >>> cuts = np.array([2.45, 4.75])
    >>> bin_representatives(cuts).tolist(), bin_codes(cuts, bin_representatives(cuts)).tolist()
    ([2.45, 4.75, 5.75], [0, 1, 2])
    """
    cuts = np.asarray(cuts, dtype=float)
    if not len(cuts):
        return np.zeros(1)
    above = cuts[-1] + 1.0
    return np.append(cuts, above if above > cuts[-1] else np.nextafter(cuts[-1], np.inf))


__all__ = [
    "BLOCK_CUTS",
    "MAX_BINNED_VALUES",
    "MDL",
    "Binning",
    "ValueClassCounts",
    "checked_cut_points",
    "bin_codes",
    "block_bin_codes",
    "bin_labels",
    "bin_representatives",
    "cut_points_of_labels",
    "midpoint",
    "mdl_cut_points",
    "mdl_cut_points_of_counts",
    "sampled_mdl_cut_points",
]
