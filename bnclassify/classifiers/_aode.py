"""Super-parent one-dependence estimators (SPODE) and their average, AODE."""

from __future__ import annotations

import numbers

import networkx as nx
import numpy as np
from scipy.special import logsumexp

from .._encoding import MISSING
from ..structure import orient_tree
from ._base import BayesNetClassifier
from ._ensemble import _fit_on_counts, _MemberEnsemble, _normalise
from ._kdb import check_categorical
from ._tan import _resolve_root


class SPODE(BayesNetClassifier):
    """Super-parent one-dependence estimator: one feature is a parent of all the others.

    The class is a parent of every feature and the super-parent a parent of
    every other feature: P(c, x) = P(c) P(x_sp | c) prod_j P(x_j | c, x_sp).
    :class:`AODE` averages one SPODE per feature.

    Parameters
    ----------
    superparent : str or int, optional
        The super-parent: a feature name or position (default: the first feature).
    alpha : float, default=1.0
        Dirichlet pseudo-count for every CPT cell and the class prior.
    handle_unknown : {"error", "marginalize"}, default="error"

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

    distributions = "categorical"  # every column is categorical (floats too): discretise first

    def __init__(self, superparent=None, alpha=1.0, handle_unknown="error"):
        super().__init__(alpha=alpha, handle_unknown=handle_unknown)
        self.superparent = superparent

    def _edge_weights(self, counts, features):
        check_categorical(self)
        self._superparent(features)  # fail early on a bad name
        return None

    def _feature_dag(self, weights, features, counts):
        hub = self._superparent(features)
        star = nx.Graph()
        star.add_nodes_from(features)
        star.add_edges_from((hub, f) for f in features if f != hub)
        return orient_tree(star, hub)

    def _superparent(self, features):
        try:
            return _resolve_root(self.superparent, features)
        except ValueError:
            raise ValueError(
                f"superparent={self.superparent!r} is neither a feature name nor a position; "
                f"features: {features}."
            ) from None


class AODE(_MemberEnsemble):
    """Averaged one-dependence estimators (Webb, Boughton and Wang 2005).

    The joint probability is the average of one :class:`SPODE` per feature,

        P(c, x) = 1/|S(x)| sum over sp in S(x) of P_sp(c, x),

    where ``S(x)`` holds the super-parents whose value in ``x`` was seen at
    least ``min_frequency`` times in training (Webb's frequency limit; a row
    with no such super-parent falls back to naive Bayes). Each SPODE is a
    Bayesian network with Laplace-smoothed CPTs, as in R bnclassify's
    ``aode``; all of them are fitted from one pairwise count table. Every
    column is modelled as categorical, float columns included: discretise
    continuous features first.

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
    handle_unknown : {"error", "marginalize"}, default="error"

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

    _column_model = "categorical"

    def __init__(self, alpha=1.0, min_frequency=1, handle_unknown="error"):
        self.alpha = alpha
        self.min_frequency = min_frequency
        self.handle_unknown = handle_unknown

    def fit(self, X, y):
        """Fit one SPODE per feature, all from the same counts.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Categorical features; NaN/None cells are missing.
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        limit = self.min_frequency
        if isinstance(limit, bool) or not isinstance(limit, numbers.Integral) or limit < 0:
            raise ValueError(f"min_frequency must be a non-negative integer, got {limit!r}.")
        counts, features, alpha, naive_bayes = self._encode_training(X, y)
        check_categorical(self)
        counts.pairwise  # noqa: B018 -- one pair table serves every SPODE's CPTs
        spodes = []
        for feature in features:
            member = SPODE(feature, alpha=self.alpha, handle_unknown=self.handle_unknown)
            self._adopt_encoding(member)
            spodes.append((member, _fit_on_counts, (counts, features, alpha)))
        self.estimators_, self.fit_times_ = self._fit_members(spodes)
        self._fit_encoder(naive_bayes, counts, features, alpha)
        self.naive_bayes_ = naive_bayes
        self.frequencies_ = [counts.family(i).sum(axis=0) for i in range(len(features))]
        return self

    def _joint_log_likelihood_codes(self, X, codes):
        joint = np.stack(
            [self._member_joint(m, X, codes) for m in self.estimators_], axis=1
        )  # (n, m, C)
        eligible = codes == MISSING
        for i, frequency in enumerate(self.frequencies_):
            observed = ~eligible[:, i]
            eligible[observed, i] = frequency[codes[observed, i]] >= self.min_frequency
        n_eligible = eligible.sum(axis=1)
        masked = np.where(eligible[:, :, None], joint, -np.inf)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = logsumexp(masked, axis=1) - np.log(np.maximum(n_eligible, 1))[:, None]
        fallback = n_eligible == 0
        if fallback.any():
            out[fallback] = self.naive_bayes_.compiled_.joint_log_likelihood(codes[fallback])
        return out

    def _joint_log_likelihood(self, X) -> np.ndarray:
        """log P(c, x) of the averaged model for every row and class."""
        return self._joint_log_likelihood_codes(X, self._encode(X))

    def _log_proba(self, X, codes):
        return _normalise(self._joint_log_likelihood_codes(X, codes))
