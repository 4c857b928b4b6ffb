"""Hidden naive Bayes (Jiang, Zhang and Cai 2009): each feature's hidden parent is a mixture
of the one-dependence estimates given every other feature, weighted by conditional mutual
information."""

from __future__ import annotations

from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from ..data import HANDLE_UNKNOWN, MISSING
from ..factors import CUT_TABLE_DISTRIBUTIONS
from ..information import pairwise_information
from ..state import float_array, require, unchanged_on_error
from ..stats import (
    BLOCK_CELLS,
    MAX_PAIRWISE_CELLS,
    StatisticsPlan,
    feature_totals,
)
from ..validation import Interval, Options, validate_parameters
from ._base import SchemaAttributes, StatisticsFit
from ._predict import JointPredictor, normalise


class HNB(StatisticsFit, SchemaAttributes, JointPredictor, ClassifierMixin, BaseEstimator):
    """Hidden naive Bayes (Jiang, Zhang and Cai 2009).

    Every feature ``A_i`` has the class and one hidden parent ``H_i``, a mixture
    of the one-dependence estimates given each other feature::

        P(c, x) = P(c) prod_i P(x_i | h_i, c),
        P(x_i | h_i, c) = sum_{j != i} W_ij P(x_i | x_j, c),
        W_ij = I(A_i; A_j | C) / sum_{k != i} I(A_i; A_k | C),

    where ``I`` is the conditional mutual information in the training rows (the
    plug-in estimate from the pair counts). A feature whose conditional mutual
    information with every other is 0 keeps its naive Bayes term ``P(x_i | c)``.
    Probabilities are m-estimates with a uniform prior, as in the paper and in
    Weka's ``HNB``: ``P(c) = (N(c) + m / |C|) / (N + m)`` and
    ``P(x_i | x_j, c) = (N(c, x_i, x_j) + m / |A_i|) / (N(c, x_j) + m)``.

    Every feature is categorical: a continuous column is binned by the default
    rule (supervised MDL cut points, :class:`~bnclassify.MDLDiscretizer`), as one
    puts Weka's supervised ``Discretize`` before its ``HNB``, which takes
    nominal attributes only.

    A missing cell (or an unseen category, with ``handle_unknown`` other than
    ``"error"``) drops out: its feature leaves the product and every other
    feature's mixture, whose weights are renormalised over the observed
    features. The prediction is then exactly that of the HNB fitted from the
    same counts on the observed columns only. HNB's product is not a normalised
    joint distribution (each factor is normalised over its own feature given
    all the others), so summing it over a missing value would not marginalise
    any model; leaving the feature out does.

    Memory: the model keeps the pair table ``N(c, x_i, x_j)``, ``C R^2`` floats
    of 8 bytes for ``C`` classes and ``R`` categories over all features (e.g.
    10 classes and 64 features of 5 categories: 8 MB); a table of more than
    :data:`bnclassify.stats.MAX_PAIRWISE_CELLS` cells is refused at fit, naming
    its size. Prediction reads it a chunk of rows at a time, about
    ``C m^2`` floats per row for ``m`` features.

    Parameters
    ----------
    m : float, default=1.0
        The pseudo-count of each estimated distribution, spread evenly over its
        values (``m / |A_i|`` per cell). 1 is the paper's and Weka's estimate.
    handle_unknown : {"warn", "error", "marginalize"}, default="warn"
        A category not seen in training: read as missing (with a warning for
        ``"warn"``) or refused.
    distributions : None, "categorical", "binned" or dict, default=None
        How each column becomes categories: by the default rule (continuous
        columns binned by MDL), every column's values as categories
        (``"categorical"``), or per column (a name or a
        :class:`~bnclassify.distributions.Categorical` or
        :class:`~bnclassify.distributions.Binned` instance, e.g. fixed cut points
        for ``partial_fit``). No density: every node of HNB is a table.

    Attributes
    ----------
    conditional_mutual_information_ : ndarray of shape (n_features, n_features)
        ``I(A_i; A_j | C)`` in nats (each pair on the rows observing both); zero diagonal.
    weights_ : ndarray of shape (n_features, n_features)
        ``W_ij``: each row normalised to sum to 1 (a row of zeros: naive Bayes' term).
    pair_counts_ : ndarray of shape (n_classes, R, R)
        ``N(c, x_i, x_j)`` over every pair of categories, in the order of
        ``categories_`` feature by feature (the diagonal blocks: ``N(c, x_i)``).
    class_counts_ : ndarray of shape (n_classes,)
    classes_, categories_, n_features_in_, feature_names_in_, class_node_
        As in :class:`NaiveBayes`.

    Examples
    --------
    >>> from bnclassify import HNB
    >>> from bnclassify.datasets import load_car
    >>> X, y = load_car(return_X_y=True)
    >>> model = HNB().fit(X, y)
    >>> round(model.score(X, y), 3)
    0.939
    >>> model.weights_.sum(axis=1).round(6).tolist()
    [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]

    ``partial_fit`` adds the pair counts of each chunk:

    >>> import numpy as np
    >>> chunks = HNB().partial_fit(X[:900], y[:900], classes=np.unique(y))
    >>> chunks = chunks.partial_fit(X[900:], y[900:])
    >>> bool(np.allclose(chunks.predict_proba(X), model.predict_proba(X)))
    True
    """

    _parameter_constraints = {
        "m": [Interval(Real, 0, 1e300, closed="right")],
        "handle_unknown": [Options(HANDLE_UNKNOWN)],
        "distributions": [CUT_TABLE_DISTRIBUTIONS],
    }

    def __init__(self, m=1.0, handle_unknown="warn", distributions=None):
        self.m = m
        self.handle_unknown = handle_unknown
        self.distributions = distributions

    def statistics_plan(self, schema=None) -> StatisticsPlan:
        """HNB reads the class counts and the pair table."""
        return StatisticsPlan(pairwise=True)

    def fit_statistics(self, stats, schema, classes, *, class_node="class", keep=False):
        """Fit from training statistics: the one entry of ``fit``, ``partial_fit`` and dask.

        A failed call leaves the model unchanged.
        """
        with unchanged_on_error(self):
            validate_parameters(self)
            self.__dict__.pop("statistics_", None)
            self.__dict__.pop("_fit_rows", None)
            continuous = [n for n, d in zip(schema.names, schema.discrete, strict=True) if not d]
            if continuous:  # statistics counted for another model: fit refuses densities
                raise ValueError(
                    f"HNB models categorical features only; {continuous} are densities. Bin "
                    "them (the default) or discretise them first, e.g. "
                    "make_pipeline(MDLDiscretizer(), HNB())."
                )
            n_classes, total = len(classes), int(np.sum(schema.cards))
            cells = n_classes * total * total
            if cells > MAX_PAIRWISE_CELLS:
                raise ValueError(
                    f"HNB keeps the pair table: N(c, x_i, x_j) over {n_classes} classes x "
                    f"{total}^2 categories = {cells * 8 / 1e6:.0f} MB, more than its limit "
                    f"of {MAX_PAIRWISE_CELLS * 8 / 1e6:.0f} MB "
                    "(bnclassify.stats.MAX_PAIRWISE_CELLS). Merge rare categories or select "
                    "features first."
                )
            self._set_schema(schema, class_node=class_node)
            self.classes_ = np.asarray(classes)
            every = np.arange(schema.n_features)
            self.pair_counts_ = np.asarray(stats.pair_table(every, every), dtype=float)
            self.class_counts_ = np.asarray(stats.classes, dtype=float)
            # a column never observed (no category) has no information: 0 with every other
            held = np.flatnonzero(np.asarray(schema.cards) > 0)
            cmi = np.zeros((schema.n_features, schema.n_features))
            cmi[np.ix_(held, held)] = pairwise_information(stats, held)[0]
            self.conditional_mutual_information_ = cmi
            if keep:
                self.statistics_ = stats
        return self

    @property
    def weights_(self) -> np.ndarray:
        """``W_ij``: the conditional mutual information, each row normalised to sum to 1."""
        check_is_fitted(self, "pair_counts_")
        cmi = self.conditional_mutual_information_
        totals = cmi.sum(axis=1, keepdims=True)
        return np.divide(cmi, totals, out=np.zeros_like(cmi), where=totals > 0)

    def encode(self, X):
        """``(codes, values)`` of X in the model's categories (see
        :meth:`bnclassify.AugmentedNaiveBayes.encode`)."""
        check_is_fitted(self, "pair_counts_")
        frame = self.schema_.align(X, owner=type(self).__name__)
        return self.schema_.encode(frame, self.handle_unknown)

    def _joint_log_likelihood(self, X) -> np.ndarray:
        return self._joint_log_likelihood_codes(self.encode(X)[0])

    def predict_log_proba_encoded(self, encoded):
        """``predict_log_proba`` of rows already encoded by :meth:`encode`."""
        return normalise(self._joint_log_likelihood_codes(encoded[0]))

    def _tables(self):
        """``P(c)``, ``P(x_i | x_j, c)`` over every pair of categories and ``P(x_i | c)``."""
        m = float(self.m)
        cards = np.asarray(self.schema_.cards)
        offsets = np.concatenate([[0], np.cumsum(cards)])
        counts, classes = self.pair_counts_, self.class_counts_
        per_cell = np.repeat(m / np.maximum(cards, 1), cards)  # m / |A_i| on each of A_i
        # N(c, x_j) on the rows observing A_i too: the sum of the pair table over A_i's values
        given = feature_totals(counts, cards, axis=1)
        conditional = (counts + per_cell[None, :, None]) / (given + m)
        single = np.diagonal(counts, axis1=1, axis2=2)  # N(c, x_i)
        totals = feature_totals(single, cards, axis=1)
        naive = (single + per_cell) / (totals + m)
        prior = (classes + m / len(classes)) / (classes.sum() + m)
        return prior, conditional, naive, offsets

    def _joint_log_likelihood_codes(self, codes) -> np.ndarray:
        """log of ``P(c) prod_i P(x_i | h_i, c)`` over each row's observed features."""
        check_is_fitted(self, "pair_counts_")
        prior, conditional, naive, offsets = self._tables()
        log_prior, log_naive = np.log(prior), np.log(naive)  # m > 0: every cell positive
        # a feature of one category adds log 1 to the product and has no weight in any
        # mixture (its mutual information is 0): only the others are read
        active = np.flatnonzero(np.asarray(self.schema_.cards) > 1)
        cmi = self.conditional_mutual_information_[np.ix_(active, active)]
        codes = codes[:, active]
        n_rows, n_features = codes.shape
        n_classes = len(prior)
        out = np.empty((n_rows, n_classes))
        chunk = max(1, BLOCK_CELLS // max(1, n_classes * n_features * n_features))
        for start in range(0, n_rows, chunk):
            rows = codes[start : start + chunk]
            observed = rows != MISSING
            at = offsets[active] + np.where(observed, rows, 0)  # (n, m) positions in the table
            # P(x_i | x_j, c) of each row's pairs, (C, n, m, m), and each weight W_ij
            # kept for the observed x_j only
            pairs = conditional[:, at[:, :, None], at[:, None, :]]
            weight = cmi[None, :, :] * observed[:, None, :]
            mixed = np.einsum("cnij,nij->cni", pairs, weight)
            total = weight.sum(axis=2)  # (n, m)
            with np.errstate(divide="ignore", invalid="ignore"):  # total 0: not read
                terms = np.where(total > 0, np.log(mixed / total), log_naive[:, at])
            terms = np.where(observed, terms, 0.0)
            out[start : start + chunk] = log_prior + terms.sum(axis=2).T
        return out

    # -- declared state (see SchemaAttributes._get_state) --------------------------------
    _FITTED_FIELDS = {
        "pair_counts_": "pair_counts_",
        "class_counts_": "class_counts_",
        "conditional_mutual_information_": "conditional_mutual_information_",
    }

    def _check_state(self):
        own = vars(self)
        missing = [f for f in self._FITTED_FIELDS if f not in own]
        require(not missing, "HNB", f"a fitted HNB needs the fields {missing}.")
        schema, n_classes = self.schema_, len(self.classes_)
        require(bool(schema.discrete.all()), "schema_", "HNB's features are all categorical.")
        total, m = int(np.sum(schema.cards)), schema.n_features
        float_array(self.pair_counts_, "pair_counts_", (n_classes, total, total))
        float_array(self.class_counts_, "class_counts_", (n_classes,))
        cmi = self.conditional_mutual_information_
        float_array(cmi, "conditional_mutual_information_", (m, m))
        require(
            bool((self.pair_counts_ >= 0).all() and (self.class_counts_ >= 0).all()),
            "pair_counts_",
            "counts must be >= 0.",
        )
        require(
            bool((cmi >= 0).all() and np.allclose(cmi, cmi.T) and not np.diagonal(cmi).any()),
            "conditional_mutual_information_",
            "must be symmetric, >= 0, with a zero diagonal.",
        )
