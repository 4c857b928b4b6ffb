"""The kernel density node: a Gaussian kernel density estimate per class."""

from __future__ import annotations

from numbers import Real

import numpy as np
from scipy.special import logsumexp

from ..state import float_array, require
from ..validation import Interval, Options
from ._base import (
    LOG_2,
    LOG_2PI,
    Factor,
    observed_only,
    scaled_floor,
    zero_variance_error,
)
from ._views import DensityView

#: Cells of the (test rows x training values) kernel matrix evaluated at once.
KDE_BLOCK = 1 << 22


class KernelDensity(Factor):
    """Gaussian kernel density estimate of the feature in each class.

    ``p(x | c) = mean over the class's training values v of N(x; v, h_c^2 + epsilon)``.
    Depends on the class only (no feature parents or children).

    Parameters
    ----------
    bandwidth : {"scott", "silverman"} or float, default="scott"
        The kernel standard deviation ``h_c``. The rules are those of
        ``scipy.stats.gaussian_kde`` in one dimension, with ``sigma_c`` the
        class's sample standard deviation (``ddof=1``) and ``n_c`` its number
        of observed values: Scott ``h_c = sigma_c n_c^(-1/5)``, Silverman
        ``h_c = sigma_c (3 n_c / 4)^(-1/5)``. A float is used for every class.
    var_smoothing : float, default=1e-9
        ``epsilon``, as in :class:`Gaussian`, keeps a class with one value or
        a constant feature from a zero bandwidth.

    Attributes
    ----------
    bandwidth_ : ndarray of shape (n_classes,)
        ``h_c``.
    epsilon_ : float
    values_ : list of ndarray
        The training values of each class (the kernel centres).

    Examples
    --------
    >>> import numpy as np
    >>> from bnclassify import NaiveBayes
    >>> from bnclassify.distributions import KernelDensity
    >>> X = np.array([[0.0], [0.2], [0.4], [3.0], [3.5], [4.0]])
    >>> model = NaiveBayes(distributions=KernelDensity()).fit(X, [0, 0, 0, 1, 1, 1])
    >>> model.predict([[0.1], [3.3]]).tolist()
    [0, 1]
    """

    kind = "kde"
    continuous = True

    scaled_by_variance = True
    rescaled = True  # the data layer measures V in units of 2**e: no underflow at 1e-300
    _parameter_constraints = {
        "bandwidth": [Options(("scott", "silverman")), Interval(Real, 0, None, closed="neither")],
        "var_smoothing": [Interval(Real, 0, None, closed="left")],
    }

    def variance_floor(self, log_scale, exponent=0) -> float:
        return scaled_floor(float(self.var_smoothing), log_scale, exponent)

    def __init__(self, bandwidth="scott", var_smoothing=1e-9):
        self.bandwidth = bandwidth
        self.var_smoothing = var_smoothing

    def fit_family(self, stats, columns, parents, alpha, names):
        self._setup(columns, parents, names, stats.discrete)
        (column,) = columns
        self.epsilon_ = self.variance_floor(stats.log_variance_scale)
        bandwidth = self.bandwidth
        e = int(stats.exponents[column])
        # the statistics hold the column over 2**e (exact); the centres are kept in its units
        self.values_ = [np.ldexp(v, e) for v in stats.class_values(column)]
        everything = np.concatenate(self.values_)
        h = np.empty(stats.n_classes)
        for c, values in enumerate(self.values_):
            if len(values) == 0:  # a class without values borrows every class's
                self.values_[c] = values = everything
            n_c = len(values)
            if isinstance(bandwidth, str):
                # the spread in units of 2**e: squares of 1e-300 or 1e300 under- or overflow
                sigma = np.ldexp(values, -e).std(ddof=1) if n_c > 1 else 0.0
                factor = n_c ** (-1 / 5) if bandwidth == "scott" else (3 * n_c / 4) ** (-1 / 5)
                h[c] = np.ldexp(sigma * factor, e)
            else:
                h[c] = bandwidth
        self.bandwidth_ = h
        floor = self.variance_floor(stats.log_variance_scale, e)
        if (np.hypot(np.ldexp(h, -e), np.sqrt(floor)) <= 0).any():
            raise zero_variance_error(names[column], f"in class code {int(np.argmin(h))}")
        return self

    def node_statistics(self, stats, columns, names):
        """A kernel density keeps its training values: no additive statistics exist."""
        raise ValueError(
            f"Column {names[columns[0]]!r} is a KernelDensity feature, which keeps its "
            "training values and cannot be fitted incrementally or from distributed "
            "statistics (partial_fit, dask). Use fit on the whole table, or a Gaussian."
        )

    @property
    def n_parameters_(self) -> int:
        """The bandwidths only: a kernel density's effective complexity is not a count."""
        return int(self.bandwidth_.size)

    def log_density(self, x):
        """log p(x | c) for observed values ``x`` (n,), shape (n, C)."""
        # in units of 2**e (exact), so that squared distances neither over- nor underflow
        # at any scale of the data; the density in data units adds the Jacobian -e log 2
        e = _exponent(self.values_)
        x = np.ldexp(np.asarray(x, dtype=float), -e)
        with np.errstate(over="ignore"):  # a floor that underflowed in data units stays 0
            epsilon = np.ldexp(self.epsilon_, -2 * e)
        out = np.empty((len(x), len(self.values_)))
        for c, centres in enumerate(self.values_):
            centres = np.ldexp(centres, -e)
            # the kernel's spread sqrt(h**2 + epsilon) without squaring h: a bandwidth far
            # beyond the data's scale (1e300) is a wide, flat density, not an overflow
            sd = np.hypot(np.ldexp(self.bandwidth_[c], -e), np.sqrt(epsilon))
            block = max(1, KDE_BLOCK // max(len(centres), 1))
            for start in range(0, len(x), block):
                # a value so far from every centre that the distance or z * z overflows has
                # density 0 there (-inf, which the prediction reports as a row no class can have)
                with np.errstate(over="ignore"):
                    z = (x[start : start + block, None] - centres[None, :]) / sd
                    out[start : start + block, c] = logsumexp(-0.5 * z * z, axis=1)
            out[:, c] += -0.5 * LOG_2PI - np.log(sd) - np.log(len(centres)) - e * LOG_2
        return out

    def describe(self):
        """The class densities, over the kernel centres widened by 4 kernel widths."""
        centres = np.concatenate(self.values_)
        h = float(np.hypot(self.bandwidth_.max(), np.sqrt(self.epsilon_)))
        with np.errstate(over="ignore"):  # a range beyond the floats: the view clips it
            low, high = centres.min() - 4 * h, centres.max() + 4 * h
        return DensityView(
            lambda grid: self.log_density(np.asarray(grid, dtype=float))[:, :, None],
            float(low),
            float(high),
        )

    def log_terms(self, codes, values):
        return observed_only(values[:, self._columns[0]], self.log_density, len(self.values_))

    # -- declared state (see Factor._get_state) ------------------------------------------
    _FITTED_FIELDS = {"epsilon_": "epsilon_", "values_": "values_", "bandwidth_": "bandwidth_"}

    def check_fitted(self, n_classes, cards):
        where = f"{self.columns_}"
        float_array(self.bandwidth_, f"{where} bandwidth_", (n_classes,), positive=True)
        require(
            isinstance(self.values_, list) and len(self.values_) == n_classes,
            f"{where} values_",
            "must hold one non-empty 1-D array per class.",
        )
        for values in self.values_:
            float_array(values, f"{where} values_")
            require(values.ndim == 1 and len(values), f"{where} values_", "an empty class.")
        epsilon = self.epsilon_
        require(
            isinstance(epsilon, float) and np.isfinite(epsilon) and epsilon >= 0,
            f"{where} epsilon_",
            "must be a finite float >= 0.",
        )


def _exponent(values) -> int:
    """``e`` with the largest magnitude of the kernel centres ``m 2**e``, ``0.5 <= m < 1``."""
    largest = max((float(np.abs(v).max()) for v in values if len(v)), default=0.0)
    return int(np.frexp(largest)[1]) if np.isfinite(largest) else 0
