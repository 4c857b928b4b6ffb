"""Additive Gaussian moments per (class, discrete-parent state) group."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class GaussianMoments:
    """Additive moments of a Gaussian family: per group (class x categorical-parent state)
    the row count, the means of the child ``x`` and of its Gaussian parents ``p``, and the
    centred sums of squares and cross-products.

    Two moments of the same family add (Chan, Golub and LeVeque's pairwise update), so a
    fit over chunks equals a fit over their concatenation. The sums are centred on the
    exact group means, which a float cannot hold: each mean is kept as the nearest float
    (``mean_x``, ``mean_p``) plus the sum of the deviations from it (``rest_x``,
    ``rest_p``). A column far from 0 whose spread is a few of its ulps (``1e12 + 1e-4 z``)
    keeps its spread that way; rounded means would put up to half an ulp, as much as the
    spread itself, into every centred sum.

    Examples
    --------
    >>> a = GaussianMoments.from_data(np.array([1.0, 3.0]), np.zeros((2, 0)), np.zeros(2, int), 1)
    >>> b = GaussianMoments.from_data(np.array([5.0]), np.zeros((1, 0)), np.zeros(1, int), 1)
    >>> (a + b).least_squares()[2]  # the variance of 1, 3, 5
    array([2.66666667])
    >>> x = 1e12 + np.spacing(1e12) * np.array([0.0, 1.0, 1.0])  # a spread of one ulp
    >>> rows = [GaussianMoments.from_data(x[i : i + 1], np.zeros((1, 0)), [0], 1) for i in range(3)]
    >>> total = rows[0] + rows[1] + rows[2]
    >>> round(float(total.least_squares()[2][0] / np.spacing(1e12) ** 2), 12)  # in ulps squared
    0.222222222222
    """

    count: np.ndarray  # (G,)
    mean_x: np.ndarray  # (G,) the group means rounded to floats ...
    mean_p: np.ndarray  # (G, p)
    sxx: np.ndarray  # (G,)
    sxp: np.ndarray  # (G, p)
    spp: np.ndarray  # (G, p, p)
    rest_x: np.ndarray | None = None  # (G,) ... and sum(w (x - mean_x)): 0 if not given
    rest_p: np.ndarray | None = None  # (G, p)

    def __post_init__(self):
        if self.rest_x is None:
            self.rest_x = np.zeros_like(self.mean_x, dtype=float)
        if self.rest_p is None:
            self.rest_p = np.zeros_like(self.mean_p, dtype=float)

    def __setstate__(self, state):
        # moments pickled before the rests existed: their means were the rounded ones
        self.__dict__.update(state)
        self.__post_init__()

    @classmethod
    def from_data(cls, x, parents, group, n_groups, weights=None) -> GaussianMoments:
        """Moments of values ``x`` (n,) on ``parents`` (n, p) within ``group`` (n,) ids.

        With ``weights`` (n,) every sum is weighted (integer weights equal repeated rows).
        """
        x, parents = np.asarray(x, dtype=float), np.asarray(parents, dtype=float)
        group = np.asarray(group, dtype=np.intp)
        p = parents.shape[1]
        if weights is None:
            count = np.bincount(group, minlength=n_groups).astype(float)
        else:
            count = np.bincount(group, weights, minlength=n_groups).astype(float)
        mean_x, rest_x, dx = _centred(x, group, count, weights)
        mean_p = np.zeros((n_groups, p))
        rest_p = np.zeros((n_groups, p))
        sxp = np.zeros((n_groups, p))
        spp = np.zeros((n_groups, p, p))
        dp = np.empty_like(parents)
        for k in range(p):  # a handful of parents: a few bincounts each
            mean_p[:, k], rest_p[:, k], dp[:, k] = _centred(parents[:, k], group, count, weights)
            sxp[:, k] = _sums(group, dp[:, k] * dx, weights, n_groups)
        for k in range(p):
            for j in range(k, p):
                spp[:, k, j] = spp[:, j, k] = _sums(group, dp[:, k] * dp[:, j], weights, n_groups)
        sxx = _sums(group, dx * dx, weights, n_groups)
        return cls(count, mean_x, mean_p, sxx, sxp, spp, rest_x, rest_p)

    def take(self, index, n_groups) -> GaussianMoments:
        """These moments moved to the groups ``index`` of ``n_groups`` (the others empty)."""
        out = GaussianMoments.empty(n_groups, self.mean_p.shape[1])
        for name in ("count", "mean_x", "mean_p", "sxx", "sxp", "spp", "rest_x", "rest_p"):
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
        share = np.where(n > 0, other.count / np.where(n > 0, n, 1.0), 0.0)
        cross = self.count * share  # n_a n_b / n without overflowing at weights near 1e300
        a, b = self.count, other.count
        mean_x, rest_x, dx = _merged_means(
            a, b, self.mean_x, other.mean_x, self.rest_x, other.rest_x
        )
        a, b = a[:, None], b[:, None]
        mean_p, rest_p, dp = _merged_means(
            a, b, self.mean_p, other.mean_p, self.rest_p, other.rest_p
        )
        return GaussianMoments(
            count=n,
            mean_x=mean_x,
            mean_p=mean_p,
            sxx=self.sxx + other.sxx + dx * dx * cross,
            sxp=self.sxp + other.sxp + dp * (dx * cross)[:, None],
            spp=self.spp + other.spp + dp[:, :, None] * dp[:, None, :] * cross[:, None, None],
            rest_x=rest_x,
            rest_p=rest_p,
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
            rest_x=np.ldexp(self.rest_x, child_shift),
            rest_p=np.ldexp(self.rest_p, parent_shift),
        )

    def pooled(self, size=None) -> GaussianMoments:
        """All groups merged into one; with ``size``, each run of ``size`` consecutive groups
        (the categorical-parent states of one class when ``size`` is their number)."""
        size = len(self.count) if size is None else int(size)
        blocks, p = len(self.count) // size, self.mean_p.shape[1]
        count = self.count.reshape(blocks, size)
        n = count.sum(axis=1)
        safe = np.where(n > 0, n, 1.0)
        share = count / safe[:, None]
        mean_x, rest_x, dev_x = _pooled_means(
            count, share, self.mean_x.reshape(blocks, size), self.rest_x.reshape(blocks, size)
        )
        means_p = self.mean_p.reshape(blocks, size, p)
        rests_p = self.rest_p.reshape(blocks, size, p)
        mean_p, rest_p = np.zeros((blocks, p)), np.zeros((blocks, p))
        dev_p = np.zeros(means_p.shape)
        for k in range(p):
            mean_p[:, k], rest_p[:, k], dev_p[:, :, k] = _pooled_means(
                count, share, means_p[:, :, k], rests_p[:, :, k]
            )
        return GaussianMoments(
            count=n,
            mean_x=mean_x,
            mean_p=mean_p,
            sxx=self.sxx.reshape(blocks, size).sum(axis=1) + (count * dev_x * dev_x).sum(axis=1),
            sxp=self.sxp.reshape(blocks, size, p).sum(axis=1)
            + np.einsum("bg,bg,bgk->bk", count, dev_x, dev_p),
            spp=self.spp.reshape(blocks, size, p, p).sum(axis=1)
            + np.einsum("bg,bgk,bgj->bkj", count, dev_p, dev_p),
            rest_x=rest_x,
            rest_p=rest_p,
        )

    def least_squares(self):
        """Per-group ``(intercept, slopes, residual variance)`` (maximum likelihood).

        A parent constant within the group explains nothing and gets slope 0:
        constant means its centred sum of squares is no larger than the
        rounding noise of centring values of its magnitude, so a column
        shifted far from 0 (by 1e8, say) keeps its slopes. Several parents use
        the pseudo-inverse (minimum-norm least squares).
        """
        n = np.maximum(self.count, 1.0)
        p = self.mean_p.shape[1]
        mean_x = self.mean_x + self.rest_x / n
        if p == 0:
            return mean_x, np.zeros((len(n), 0)), self.sxx / n
        if p == 1:
            spp = self.spp[:, 0, 0]
            # a spread within about n eps |m| (what a plain sum of n values near m loses) is
            # taken for a constant parent: a slope on it would rest on the values' last bits
            noise = 16 * n * np.finfo(float).eps * np.abs(self.mean_p[:, 0])
            with np.errstate(over="ignore"):  # weighted counts near 1e300: an infinite bound
                usable = spp > np.maximum(n * noise**2, np.finfo(float).tiny)
            coef = np.where(usable, self.sxp[:, 0] / np.where(usable, spp, 1.0), 0.0)[:, None]
        else:
            coef = np.einsum("gkj,gj->gk", np.linalg.pinv(self.spp), self.sxp)
        explained = 2 * np.einsum("gk,gk->g", coef, self.sxp)
        explained -= np.einsum("gk,gkj,gj->g", coef, self.spp, coef)
        var = np.maximum(self.sxx - explained, 0.0) / n
        # the rounded means and the rests apart: at 1e12 one ulp of a mean is the spread
        intercept = self.mean_x - np.einsum("gk,gk->g", coef, self.mean_p)
        intercept += (self.rest_x - np.einsum("gk,gk->g", coef, self.rest_p)) / n
        return intercept, coef, var


def _sums(group, values, weights, n_groups):
    """Per group the (weighted) sum of ``values``."""
    if weights is not None:
        values = weights * values
    return np.bincount(group, values, minlength=n_groups)


def _centred(v, group, count, weights):
    """``(mean, rest, centred)`` of column ``v`` per group.

    ``mean`` is the group mean rounded to a float, ``rest`` the (weighted) sum
    of ``v - mean``, and ``centred`` each value minus its group's exact mean.
    A plain sum of ``n`` values near ``m`` is off by about ``n eps |m|``, which
    for a column far from 0 with a small spread (1e6 +- 1e-6) is a sizeable part
    of the spread: one pass sums the values, a second their small deviations
    from that mean (nearly exact: values within a factor 2 of it subtract
    exactly), and a third the deviations from the corrected mean, whose sum is
    what that float still misses.
    """
    n_groups = len(count)
    safe = np.where(count > 0, count, 1.0)
    mean = _sums(group, v, weights, n_groups) / safe
    mean = mean + _sums(group, v - mean[group], weights, n_groups) / safe
    deviation = v - mean[group]
    rest = _sums(group, deviation, weights, n_groups)
    centred = deviation - (rest / safe)[group]
    mean, rest = _normalised(mean, rest, count)
    return mean, rest, centred


def _normalised(mean, rest, count):
    """``(mean, rest)`` with ``mean`` the float nearest to ``mean + rest / count``."""
    safe = np.where(count > 0, count, 1.0)
    moved = mean + rest / safe
    return moved, rest - count * (moved - mean)


def _merged_means(count_a, count_b, mean_a, mean_b, rest_a, rest_b):
    """``(mean, rest, delta)`` of the rows of two moments: the merged rounded means, their
    rests, and ``delta`` the exact mean of the second minus that of the first.

    Both means lie within the data's range, so where the spread is a few ulps their
    difference is exact, and so is the rest that carries it.
    """
    base = np.where(count_a >= count_b, mean_a, mean_b)
    rest = rest_a + rest_b + count_a * (mean_a - base) + count_b * (mean_b - base)
    offset_a = rest_a / np.where(count_a > 0, count_a, 1.0)
    offset_b = rest_b / np.where(count_b > 0, count_b, 1.0)
    delta = (mean_b - mean_a) + (offset_b - offset_a)
    mean, rest = _normalised(base, rest, count_a + count_b)
    return mean, rest, delta


def _pooled_means(count, share, means, rests):
    """``(mean, rest, deviation)`` of the groups (columns) of each block (row) pooled:
    the pooled rounded mean, its rest, and each group's exact mean minus the pooled one."""
    safe = np.where(count > 0, count, 1.0)
    base = (share * means).sum(axis=1)
    rest = rests.sum(axis=1) + (count * (means - base[:, None])).sum(axis=1)
    n = count.sum(axis=1)
    mean, rest = _normalised(base, rest, n)
    deviation = (means - mean[:, None]) + (rests / safe - (rest / np.where(n > 0, n, 1.0))[:, None])
    return mean, rest, deviation
