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
        mean_x = _refined(np.bincount(group, x, minlength=n_groups) / safe, x, group, safe)
        dx = x - mean_x[group]
        mean_p = np.zeros((n_groups, p))
        sxp = np.zeros((n_groups, p))
        spp = np.zeros((n_groups, p, p))
        dp = np.empty_like(parents)
        for k in range(p):  # a handful of parents: one bincount each
            mean_p[:, k] = np.bincount(group, parents[:, k], minlength=n_groups) / safe
            mean_p[:, k] = _refined(mean_p[:, k], parents[:, k], group, safe)
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
        mean_x = _refined(np.bincount(group, w * x, minlength=n_groups) / safe, x, group, safe, w)
        dx = x - mean_x[group]
        mean_p = np.zeros((n_groups, p))
        sxp = np.zeros((n_groups, p))
        spp = np.zeros((n_groups, p, p))
        dp = np.empty_like(parents)
        for k in range(p):
            mean_p[:, k] = np.bincount(group, w * parents[:, k], minlength=n_groups) / safe
            mean_p[:, k] = _refined(mean_p[:, k], parents[:, k], group, safe, w)
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

        A parent constant within the group explains nothing and gets slope 0:
        constant means its centred sum of squares is no larger than the
        rounding noise of centring values of its magnitude, so a column
        shifted far from 0 (by 1e8, say) keeps its slopes. Several parents use
        the pseudo-inverse (minimum-norm least squares).
        """
        n = np.maximum(self.count, 1.0)
        p = self.mean_p.shape[1]
        if p == 0:
            return self.mean_x.copy(), np.zeros((len(n), 0)), self.sxx / n
        if p == 1:
            spp = self.spp[:, 0, 0]
            # centring n values near m leaves each deviation off by about n eps |m| (the
            # mean's summation error); a spread within that is a constant parent
            noise = 16 * n * np.finfo(float).eps * np.abs(self.mean_p[:, 0])
            with np.errstate(over="ignore"):  # weighted counts near 1e300: an infinite bound
                usable = spp > np.maximum(n * noise**2, np.finfo(float).tiny)
            coef = np.where(usable, self.sxp[:, 0] / np.where(usable, spp, 1.0), 0.0)[:, None]
        else:
            coef = np.einsum("gkj,gj->gk", np.linalg.pinv(self.spp), self.sxp)
        explained = 2 * np.einsum("gk,gk->g", coef, self.sxp)
        explained -= np.einsum("gk,gkj,gj->g", coef, self.spp, coef)
        var = np.maximum(self.sxx - explained, 0.0) / n
        intercept = self.mean_x - np.einsum("gk,gk->g", coef, self.mean_p)
        return intercept, coef, var


def _refined(mean, x, group, count, weights=None):
    """``mean`` plus the mean of the residuals ``x - mean``: one correction pass.

    A plain sum of ``n`` values near ``m`` is off by about ``n eps |m|``, which
    for a column far from 0 with a small spread (1e6 +- 1e-6) is a sizeable
    part of the spread; the residuals are small, so their sum is nearly exact.
    """
    residual = x - mean[group]
    if weights is not None:
        residual = weights * residual
    return mean + np.bincount(group, residual, minlength=len(mean)) / count
