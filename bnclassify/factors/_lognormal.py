"""The log-normal node: a Gaussian node on the logarithm of a positive column."""

from __future__ import annotations

import numpy as np

from ..data.kinds import LOG
from ._base import log_normal_sd, spread_range
from ._gaussian import Gaussian
from ._views import DensityView


class LogNormal(Gaussian):
    """Log-normal density: :class:`Gaussian` on ``log x``, for positive, right-skewed columns.

    ``log X | c, k, x_P ~ N(a_ck + b_ck . x_P, s_ck^2)``: everything
    :class:`Gaussian` says (the conditional linear Gaussian, the prior of small
    groups, exact integration of missing values) holds for ``log x``. The data
    layer hands every node and its children ``log x``, so a Gaussian child
    regresses on its log-normal parent's logarithm. The density of ``x`` is that
    of ``log x`` times ``1 / x``.

    The default for a continuous column whose values are all positive and fit a
    log-normal significantly better than a normal (amounts, durations,
    concentrations; see :func:`bnclassify.data.default_kind`): a normal fitted
    to such a column has a thin right tail where the data have a long one, and
    the class with the wider spread then takes every large value with
    near-certainty.

    A value that is not positive lies outside the support: in training it
    raises a ``ValueError`` naming the column; at prediction it is summed out
    like an unseen category (``handle_unknown="warn"``, the default, warns
    and counts it; ``"error"`` refuses it).

    Parameters
    ----------
    var_smoothing : float, default=1e-9
        As in :class:`Gaussian`, on the variances of ``log x``.
    prior_strength : float, default=10.0
        As in :class:`Gaussian`.
    floor_scale : {"largest", "column"}, default="largest"
        As in :class:`Gaussian`, on the variances of ``log x``.

    Attributes
    ----------
    intercept_, coef_, var_, count_, epsilon_, mean_
        As in :class:`Gaussian`, of ``log x``: ``mean_`` holds the class means of
        ``log x`` (``exp(mean_)`` are the class medians of ``x``).

    Examples
    --------
    >>> import numpy as np
    >>> from bnclassify import NaiveBayes
    >>> from bnclassify.distributions import LogNormal
    >>> X = np.array([[1.0], [100.0], [1000.0], [100000.0]])
    >>> model = NaiveBayes(distributions=LogNormal()).fit(X, [0, 0, 1, 1])
    >>> np.exp(model.distributions_["x0"].mean_).round(1)  # the class medians
    array([   10., 10000.])
    >>> model.predict([[50.0], [5000.0]]).tolist()
    [0, 1]
    """

    kind = "lognormal"
    scale = LOG

    def _jacobian(self, values, rows=slice(None)):
        # values hold log x: d(log x)/dx = 1/x
        return super()._jacobian(values, rows) - values[rows, self._columns[0]][:, None]

    def describe(self):
        """Class densities of ``x`` per categorical-parent state; with Gaussian parents,
        the regression lines of ``log x`` (see :meth:`Gaussian.describe`)."""
        if self._continuous_parents:
            return super().describe()
        n_classes = self._var.shape[0]
        mean = self.intercept_.reshape(n_classes, -1)
        sd = self.std_.reshape(n_classes, -1)

        def log_density(grid):
            grid = np.asarray(grid, dtype=float)[:, None, None]
            with np.errstate(invalid="ignore", divide="ignore"):
                logs = np.log(np.where(grid > 0, grid, np.nan))
            return np.where(grid > 0, log_normal_sd(logs, mean, sd) - logs, -np.inf)

        low, high = spread_range(mean, sd, 3)
        with np.errstate(over="ignore"):  # log x beyond 709: the view clips the range
            return DensityView(log_density, float(np.exp(low)), float(np.exp(high)))
