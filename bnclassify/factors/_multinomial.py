"""The multinomial group node: counts of several columns modelled jointly."""

from __future__ import annotations

import numpy as np
from scipy.special import gammaln

from ..state import float_array, probability_rows
from ..validation import ALPHA
from ._base import Factor
from ._bernoulli import xlogy_rows
from ._views import TableView


class Multinomial(Factor):
    """A group of count columns modelled jointly by one multinomial per class.

    ``P(x | c) = n! / prod_j x_j! * prod_j p_cj^x_j`` with ``n = sum_j x_j``
    (the coefficient does not depend on the class, so predictions equal
    scikit-learn's ``MultinomialNB``). Word counts of a document and amino-acid
    counts of a protein are the typical groups. Give the group as a tuple key:
    ``distributions={("w1", "w2", "w3"): Multinomial()}``, or
    ``distributions="multinomial"`` for the whole table.

    Parameters
    ----------
    alpha : float or None, default=None
        Pseudo-count: ``p_cj = (N_cj + alpha) / (N_c + g alpha)`` with ``N_cj``
        the total count of column ``j`` in class ``c`` and ``g`` the group
        size; ``None`` uses the estimator's ``alpha``. ``alpha=0`` gives the
        unsmoothed (maximum likelihood) estimates.

    Attributes
    ----------
    prob_ : ndarray of shape (n_classes, n_columns)
        ``p_cj``; each row sums to 1.

    Examples
    --------
    >>> from bnclassify import NaiveBayes
    >>> X = [[2, 1, 0], [3, 0, 1], [0, 2, 2]]
    >>> model = NaiveBayes(alpha=0, distributions="multinomial").fit(X, ["a", "a", "b"])
    >>> model.distributions_[("x0", "x1", "x2")].prob_.round(3)
    array([[0.714, 0.143, 0.143],
           [0.   , 0.5  , 0.5  ]])
    """

    kind = "multinomial"
    joint = True
    _parameter_constraints = {"alpha": [*ALPHA, None]}

    def __init__(self, alpha=None):
        self.alpha = alpha

    def fit_family(self, stats, columns, parents, alpha, names):
        self._setup(columns, parents, names, stats.discrete)
        alpha = float(alpha if self.alpha is None else self.alpha)
        sums = stats.kept_node_sums(columns) or self.node_statistics(stats, columns, names)
        totals = sums["totals"]
        smoothed = totals + alpha
        norm = smoothed.sum(axis=1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            self.prob_ = np.where(norm > 0, smoothed / norm, 1.0 / totals.shape[1])
        return self

    def node_statistics(self, stats, columns, names) -> dict:
        """Additive sums per class: ``totals[c, j]``, the (weighted) count of column ``j``."""
        counts = stats.values[:, list(columns)]
        self._check(counts, [names[j] for j in columns])
        if stats.weights is not None:
            counts = counts * stats.weights[:, None]
        totals = np.zeros((stats.n_classes, counts.shape[1]))
        np.add.at(totals, stats.y, counts)
        return {"totals": totals}

    @property
    def n_parameters_(self) -> int:
        """``n_classes * (n_columns - 1)``: each row of ``prob_`` sums to 1."""
        return int(self.prob_.shape[0] * (self.prob_.shape[1] - 1))

    def describe(self):
        """The per-class share ``p_cj`` of each column of the group (the states are columns)."""
        return TableView(self.prob_[:, None, :], [str(c) for c in self.columns_])

    def log_terms(self, codes, values):
        counts = values[:, list(self._columns)]
        self._check(counts)
        with np.errstate(divide="ignore"):
            log_p = np.log(self.prob_)
        coefficient = gammaln(counts.sum(axis=1) + 1) - gammaln(counts + 1).sum(axis=1)
        return xlogy_rows(counts, log_p) + coefficient[:, None]

    def _check(self, counts, names=None):
        names = self.columns_ if names is None else names
        missing = np.isnan(counts)
        if missing.any():
            j = int(np.flatnonzero(missing.any(axis=0))[0])
            raise ValueError(
                f"Column {names[j]!r} of a multinomial group has missing values; a "
                "count in a multinomial cannot be summed out. Impute it (e.g. with 0) first."
            )
        negative = counts < 0
        if negative.any():
            j = int(np.flatnonzero(negative.any(axis=0))[0])
            raise ValueError(
                f"Column {names[j]!r} of a multinomial group has negative values "
                f"(e.g. {counts[negative][0]}); multinomial counts must be >= 0."
            )

    # -- declared state (see Factor._get_state) ------------------------------------------
    _FITTED_FIELDS = {"prob_": "prob_"}

    def check_fitted(self, n_classes, cards):
        where = f"{self.columns_} prob_"
        float_array(self.prob_, where, (n_classes, len(self._columns)))
        probability_rows(self.prob_, where)
