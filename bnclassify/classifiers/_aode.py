"""Super-parent one-dependence estimators (SPODE) and their average, AODE."""

from __future__ import annotations

import numbers
import warnings

import numpy as np
from scipy.special import logsumexp

from .._encoding import MISSING, check_alpha
from ..counts import StatisticsPlan
from ..structure import empty_feature_graph
from ._base import BayesNetClassifier, accumulate
from ._ensemble import MemberEnsemble, fit_on_counts
from ._predict import is_dask_collection, normalise
from ._tan import NaiveBayes


class SPODE(BayesNetClassifier):
    """Super-parent one-dependence estimator: one feature is a parent of all the others.

    The class is a parent of every feature and the super-parent a parent of
    every other feature: P(c, x) = P(c) P(x_sp | c) prod_j P(x_j | c, x_sp).
    :class:`AODE` averages one SPODE per feature.

    Parameters
    ----------
    superparent : str or int, optional
        The super-parent: a categorical feature's name or position (default:
        the first categorical feature; with none, the model is naive Bayes
        and says so in a warning). A continuous super-parent is refused: it
        could not be a parent of the categorical features.
    alpha : float, default=1.0
        Dirichlet pseudo-count for every CPT cell and the class prior.
    handle_unknown : {"warn", "error", "marginalize"}, default="warn"

    Attributes
    ----------
    structure_, compiled_, network_, classes_, categories_, fit_times_
        As in :class:`NaiveBayes`.

    Examples
    --------
    >>> from bnclassify import SPODE
    >>> from bnclassify.datasets import load_car
    >>> X, y = load_car(return_X_y=True)
    >>> model = SPODE(superparent="safety").fit(X, y)
    >>> list(model.structure_.predecessors("doors"))
    ['class', 'safety']
    """

    def __init__(self, superparent=None, alpha=1.0, handle_unknown="warn"):
        super().__init__(alpha=alpha, handle_unknown=handle_unknown)
        self.superparent = superparent

    def _edge_weights(self, counts, features):
        self._superparent(features)  # fail early on a bad name
        return None

    def _feature_dag(self, weights, features, counts):
        hub = self._superparent(features)
        star = empty_feature_graph(features)
        if hub is None:
            return star
        structural = self.schema_.structural
        star.add_edges_from(
            (hub, f) for f, s in zip(features, structural, strict=True) if f != hub and s
        )
        return star

    def _superparent(self, features):
        """The super-parent's name: given, or the first categorical feature (None: none)."""
        schema = self.schema_
        allowed = [
            f
            for f, d, s in zip(features, schema.discrete, schema.structural, strict=True)
            if d and s
        ]
        if self.superparent is None:
            if not allowed:
                warnings.warn(
                    "SPODE found no categorical feature to be the super-parent; it is naive "
                    "Bayes on these features.",
                    UserWarning,
                    stacklevel=4,
                )
                return None
            return allowed[0]
        hub = features[schema.position(self.superparent, what="superparent")]
        if hub not in allowed:
            raise ValueError(
                f"superparent {hub!r} is a {schema.kinds[features.index(hub)]} feature; a "
                "super-parent must be categorical (a categorical feature never gets a "
                f"continuous parent). Choose one of {allowed}."
            )
        return hub


class AODE(MemberEnsemble):
    """Averaged one-dependence estimators (Webb, Boughton and Wang 2005).

    The joint probability is the average of one :class:`SPODE` per feature::

        P(c, x) = 1/|S(x)| sum over sp in S(x) of P_sp(c, x),

    where ``S(x)`` holds the super-parents whose value in ``x`` was seen at
    least ``min_frequency`` times in training (Webb's frequency limit; a row
    with no such super-parent falls back to naive Bayes). Each SPODE is a
    Bayesian network with Laplace-smoothed CPTs, as in R bnclassify's
    ``aode``; all of them are fitted from one pairwise count table. Every
    column is modelled by kind as in :class:`NaiveBayes`; only categorical
    features are super-parents (a continuous one could not parent the
    categorical features), and continuous features are children of each
    super-parent (a Gaussian per super-parent state and class).

    A missing value is summed out exactly: each SPODE contributes its
    marginal P_sp(c, x_observed), and a SPODE whose super-parent is missing in
    the row takes part (the frequency rule applies to observed values). With
    ``min_frequency <= 1`` the set of SPODEs does not depend on the data, so
    this is the exact marginal of the averaged model.

    Parameters
    ----------
    alpha : float, default=1.0
        Dirichlet pseudo-count for every CPT cell and the class prior.
    min_frequency : int, default=1
        A SPODE takes part for a row only when the row's value of its
        super-parent occurred at least this often in training. Weka and R use
        1; Webb et al. report 30.
    handle_unknown : {"warn", "error", "marginalize"}, default="warn"

    Attributes
    ----------
    estimators_ : list of SPODE
        One fitted SPODE per feature, super-parent in column order.
    naive_bayes_ : NaiveBayes
        The fallback for rows with no eligible super-parent.
    frequencies_ : list of ndarray
        Training count of each category of each feature.
    classes_, categories_, n_features_in_, feature_names_in_, class_node_
        As in :class:`NaiveBayes`.
    fit_times_ : dict
        Seconds on ``weights``, ``structure`` and ``parameters``, summed over SPODEs.

    Examples
    --------
    >>> from bnclassify import AODE
    >>> from bnclassify.datasets import load_car
    >>> X, y = load_car(return_X_y=True)
    >>> model = AODE().fit(X, y)
    >>> [m.superparent for m in model.estimators_][:2]
    ['buying', 'maint']
    >>> round(model.score(X, y), 3)
    0.939
    """

    def __init__(self, alpha=1.0, min_frequency=1, handle_unknown="warn"):
        self.alpha = alpha
        self.min_frequency = min_frequency
        self.handle_unknown = handle_unknown

    def fit(self, X, y, sample_weight=None):
        """Fit one SPODE per feature, all from the same counts.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Categorical features; NaN/None cells are missing.
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative row weights (weighted counts and moments).

        Returns
        -------
        self
        """
        self._check_min_frequency()
        if is_dask_collection(X):
            from ..distributed import fit_dask

            return fit_dask(self, X, y, sample_weight)
        counts, features, alpha = self._encode_training(X, y, sample_weight)
        self.__dict__.pop("statistics_", None)
        self._fit_statistics(counts, features, alpha)
        self._fit_rows = counts  # a later partial_fit continues from them (not pickled)
        return self

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add a chunk of rows and refit every SPODE from all rows so far.

        As :meth:`bnclassify.TAN.partial_fit`: ``classes`` is required on the
        first call, the result equals ``fit`` on the concatenated chunks, and a
        failed call leaves the model unchanged.

        Examples
        --------
        >>> import numpy as np
        >>> from bnclassify import AODE
        >>> from bnclassify.datasets import load_car
        >>> X, y = load_car(return_X_y=True)
        >>> model = AODE().partial_fit(X[:900], y[:900], classes=np.unique(y))
        >>> model = model.partial_fit(X[900:], y[900:])
        >>> bool(np.allclose(model.predict_proba(X), AODE().fit(X, y).predict_proba(X)))
        True
        """
        saved = dict(self.__dict__)
        try:
            self._check_min_frequency()
            self._fit_accumulated(*accumulate(self, X, y, classes, sample_weight))
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(saved)
            raise
        return self

    def _statistics_plan(self, schema=None) -> StatisticsPlan:
        return StatisticsPlan(pairwise=True, structural_moments=True)

    def _fit_accumulated(self, total, schema, classes, class_node):
        """Fit every SPODE from accumulated statistics and keep them."""
        alpha = check_alpha(self.alpha)
        self._set_schema(schema, class_node=class_node)
        self.classes_ = classes
        self._remember_encoding()
        self._fit_statistics(total, list(schema.names), alpha)
        self.statistics_ = total
        self.__dict__.pop("_fit_rows", None)

    def _check_min_frequency(self):
        limit = self.min_frequency
        if isinstance(limit, bool) or not isinstance(limit, numbers.Integral) or limit < 0:
            raise ValueError(f"min_frequency must be a non-negative integer, got {limit!r}.")

    def _fit_statistics(self, counts, features, alpha):
        """Fit every SPODE and the fallback naive Bayes from one set of statistics."""
        if self.schema_.discrete.all():
            counts.pairwise  # noqa: B018 -- one pair table serves every SPODE's CPTs
        schema = self.schema_
        self.superparents_ = [
            f
            for f, d, s in zip(features, schema.discrete, schema.structural, strict=True)
            if d and s
        ]
        spodes = []
        for feature in self.superparents_:
            member = SPODE(feature, alpha=self.alpha, handle_unknown=self.handle_unknown)
            self._adopt_encoding(member)
            spodes.append((member, fit_on_counts, (counts, features, alpha)))
        self.estimators_, self.fit_times_ = self._fit_members(spodes)
        naive_bayes = NaiveBayes(alpha=self.alpha, handle_unknown=self.handle_unknown)
        self._adopt_encoding(naive_bayes)
        naive_bayes._fit_counts(counts, features, alpha)
        self.naive_bayes_ = naive_bayes
        self._hubs = [features.index(f) for f in self.superparents_]
        self.frequencies_ = [counts.family(i).sum(axis=0) for i in self._hubs]
        return self

    def _joint_log_likelihood_codes(self, encoded):
        codes = encoded[0]
        if not self.estimators_:  # no categorical feature: naive Bayes
            return self.naive_bayes_.compiled_.joint_log_likelihood(*encoded)
        joint = np.stack(
            [self._member_joint(m, encoded) for m in self.estimators_], axis=1
        )  # (n, n_superparents, C)
        eligible = codes[:, self._hubs] == MISSING
        for k, frequency in enumerate(self.frequencies_):
            i = self._hubs[k]
            observed = ~eligible[:, k]
            eligible[observed, k] = frequency[codes[observed, i]] >= self.min_frequency
        n_eligible = eligible.sum(axis=1)
        masked = np.where(eligible[:, :, None], joint, -np.inf)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = logsumexp(masked, axis=1) - np.log(np.maximum(n_eligible, 1))[:, None]
        fallback = n_eligible == 0
        if fallback.any():
            values = None if encoded[1] is None else encoded[1][fallback]
            out[fallback] = self.naive_bayes_.compiled_.joint_log_likelihood(
                codes[fallback], values
            )
        return out

    def _joint_log_likelihood(self, X) -> np.ndarray:
        """log P(c, x) of the averaged model for every row and class."""
        return self._joint_log_likelihood_codes(self._encode(X))

    def _log_proba(self, encoded):
        return normalise(self._joint_log_likelihood_codes(encoded))
