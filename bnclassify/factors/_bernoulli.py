"""The Bernoulli node: P(x > binarize | c)."""

from __future__ import annotations

from numbers import Real

import numpy as np

from ..state import float_array, require
from ..validation import ALPHA, Interval
from ._base import Factor, observed_only
from ._views import TableView


def xlogy_rows(x, log_p):
    """``x @ log_p.T`` with ``0 * log 0 = 0``; -inf where a positive x meets p = 0."""
    finite = np.isfinite(log_p)
    out = x @ np.where(finite, log_p, 0.0).T
    impossible = (x > 0).astype(float) @ (~finite).astype(float).T > 0
    out[impossible] = -np.inf
    return out


class Bernoulli(Factor):
    """Bernoulli feature: ``P(x > binarize | c)``, as scikit-learn's ``BernoulliNB``.

    Depends on the class only.

    Parameters
    ----------
    binarize : float or None, default=0.0
        Values above it count as 1, the others as 0. ``None``: the values must
        already be 0/1 (or booleans).
    alpha : float or None, default=None
        Pseudo-count: ``P(1 | c) = (N(c, 1) + alpha) / (N(c) + 2 alpha)``;
        ``None`` uses the estimator's ``alpha``.

    Attributes
    ----------
    prob_ : ndarray of shape (n_classes,)
        ``P(x = 1 | c)``.

    Examples
    --------
    >>> from bnclassify import NaiveBayes
    >>> from bnclassify.distributions import Bernoulli
    >>> X = [[0.0], [2.0], [3.0], [0.0]]
    >>> model = NaiveBayes(alpha=0, distributions=Bernoulli()).fit(X, ["a", "a", "b", "b"])
    >>> model.distributions_["x0"].prob_
    array([0.5, 0.5])
    """

    kind = "bernoulli"
    _parameter_constraints = {
        "binarize": [Interval(Real, None, None), None],
        "alpha": [*ALPHA, None],
    }

    def __init__(self, binarize=0.0, alpha=None):
        self.binarize = binarize
        self.alpha = alpha

    def _binary(self, x, name=None):
        if self.binarize is None:
            values = x[~np.isnan(x)]
            bad = values[(values != 0) & (values != 1)]
            if len(bad):
                name = self.columns_[0] if name is None else name
                raise ValueError(
                    f"Column {name!r} is Bernoulli with binarize=None and needs 0/1 "
                    f"values, got {bad[:5].tolist()}."
                )
            return x
        return np.where(np.isnan(x), np.nan, (x > self.binarize).astype(float))

    def fit_family(self, stats, columns, parents, alpha, names):
        self._setup(columns, parents, names, stats.discrete)
        alpha = float(alpha if self.alpha is None else self.alpha)
        sums = stats.kept_node_sums(columns) or self.node_statistics(stats, columns, names)
        ones, total = sums["ones"], sums["total"]
        with np.errstate(invalid="ignore"):
            prob = (ones + alpha) / (total + 2 * alpha)
        self.prob_ = np.where(np.isfinite(prob), prob, 0.5)
        return self

    def node_statistics(self, stats, columns, names) -> dict:
        """Additive sums per class: ``ones`` (rows above ``binarize``) and ``total`` (observed)."""
        b = self._binary(stats.values[:, columns[0]], names[columns[0]])
        observed = ~np.isnan(b)
        y = stats.y[observed]
        w = None if stats.weights is None else stats.weights[observed]
        ones = np.bincount(y, b[observed] if w is None else b[observed] * w, stats.n_classes)
        total = np.bincount(y, w, minlength=stats.n_classes).astype(float)
        return {"ones": ones.astype(float), "total": total}

    @property
    def n_parameters_(self) -> int:
        return int(self.prob_.size)

    def describe(self):
        """``P(0 | c)`` and ``P(1 | c)``, the states labelled by the threshold."""
        table = np.stack([1 - self.prob_, self.prob_], axis=-1)[:, None, :]
        if self.binarize is None:
            return TableView(table, ["0", "1"])
        return TableView(table, [f"<= {self.binarize:g}", f"> {self.binarize:g}"])

    def log_density(self, x):
        b = self._binary(x)[:, None]
        with np.errstate(divide="ignore"):
            log1, log0 = np.log(self.prob_), np.log1p(-self.prob_)
        return xlogy_rows(b, log1[:, None]) + xlogy_rows(1 - b, log0[:, None])

    def log_terms(self, codes, values):
        return observed_only(values[:, self._columns[0]], self.log_density, len(self.prob_))

    # -- declared state (see Factor._get_state) ------------------------------------------
    _FITTED_FIELDS = {"prob_": "prob_"}

    def check_fitted(self, n_classes, cards):
        where = f"{self.columns_} prob_"
        float_array(self.prob_, where, (n_classes,))
        require(bool(((self.prob_ >= 0) & (self.prob_ <= 1)).all()), where, "must lie in [0, 1].")
