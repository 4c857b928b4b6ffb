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

Examples
--------
>>> cuts = MDL.cut_points([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [0, 0, 0, 0, 1, 1, 1, 1])
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

from ..validation import check_sample_weight, float_array


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

    def best_passing(gain, margin, whole_column):
        best = int(np.flatnonzero(gain >= gain.max() - 1e-12)[0])  # least E(T), ties: first
        return (best, True) if margin[best] > 0 else None

    return SortedColumn(*_checked_column(x, y, sample_weight)).walk(best_passing)


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
    """A numeric column's rows sorted by value, with their cumulative class weights.

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
        x = np.asarray(x, dtype=float)
        _, y = np.unique(np.asarray(y), return_inverse=True)
        n = self.n = len(x)
        self._segments = {}
        if n < 2:
            return
        w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=float)
        order = np.argsort(x, kind="stable")
        self.xs, ys = x[order], y.ravel()[order]
        onehot = np.zeros((n, int(ys.max()) + 1))
        onehot[np.arange(n), ys] = w[order]
        self.cum = np.zeros((n + 1, onehot.shape[1]))
        np.cumsum(onehot, axis=0, out=self.cum[1:])
        self.mass = self.cum.sum(axis=1)  # the weight of the rows before each position
        self.boundary = np.zeros(n + 1, dtype=bool)
        self.boundary[1:n] = self.xs[1:] > self.xs[:-1]  # a cut at t separates xs[t-1] < xs[t]

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
        candidates = np.flatnonzero(self.boundary[lo + 1 : hi]) + lo + 1
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
class Binning:
    """How a binned kind learns its column's cut points: the data layer applies it.

    Parameters
    ----------
    name : str
    learn : callable
        ``learn(x, y, weights) -> cut points``: ``x`` the observed training
        values (finite floats), ``y`` their class codes, ``weights`` their
        sample weights (or ``None``); ascending, distinct, finite cut points.
    """

    name: str
    learn: Callable

    def cut_points(self, x, y, weights=None) -> np.ndarray:
        """The cut points of ``x`` given the classes ``y``, checked (ascending, finite)."""
        x = np.asarray(x, dtype=float)
        if not len(x):
            return np.empty(0)
        cuts = np.asarray(self.learn(x, y, weights), dtype=float)
        if cuts.ndim != 1 or not np.isfinite(cuts).all() or (cuts[1:] <= cuts[:-1]).any():
            raise ValueError(
                f"The {self.name} binning gave cut points that are not ascending finite "
                f"numbers: {cuts[:5]}."
            )
        return cuts


#: Fayyad and Irani's MDL discretisation (:func:`mdl_cut_points`).
MDL = Binning("mdl", mdl_cut_points)


def bin_codes(cuts, x) -> np.ndarray:
    """The bin of each value (``-1`` where ``x`` is NaN): 0 up to and including the first
    cut, ``len(cuts)`` above the last (a value equal to a cut falls in the lower bin)."""
    x = np.asarray(x, dtype=float)
    codes = np.searchsorted(cuts, x, side="left")
    return np.where(np.isnan(x), -1, codes)


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
    "MDL",
    "Binning",
    "bin_codes",
    "bin_labels",
    "bin_representatives",
    "cut_points_of_labels",
    "midpoint",
    "mdl_cut_points",
    "sampled_mdl_cut_points",
]
