"""The shared base of every Bayesian network classifier in bnclassify.

One base class owns the flow encode -> count -> weigh -> structure ->
parameters -> network; subclasses say only how edge weights and the feature
DAG are made. ``predict``, ``predict_proba`` and ``predict_log_proba`` all
derive from one ``_joint_log_likelihood``, as in scikit-learn's naive Bayes.
"""

from __future__ import annotations

import time
from abc import abstractmethod

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from .._encoding import (
    HANDLE_UNKNOWN,
    as_frame,
    check_alpha,
    encode_frame,
    encode_target,
    learn_and_encode_frame,
)
from .._hybrid import (
    continuous_values,
    fit_distributions,
    hybrid_joint_log_likelihood,
    is_hybrid,
    resolve_distributions,
    training_counts,
)
from ..counts import TrainingCounts
from ..network import CompiledNetwork, to_pgmpy
from ..parameters import log_class_prior, log_conditional
from ..structure import add_class_arcs, feature_parents


class BayesNetClassifier(ClassifierMixin, BaseEstimator):
    """Base class: a class node with an arc to every feature, plus a feature DAG.

    Subclasses implement :meth:`_edge_weights` and :meth:`_feature_dag`.
    """

    def __init__(self, alpha=1.0, handle_unknown="error"):
        self.alpha = alpha
        self.handle_unknown = handle_unknown

    # -- what subclasses define -------------------------------------------------
    def _edge_weights(self, counts: TrainingCounts, features: list) -> pd.DataFrame | None:
        """The m x m weights the structure is learned from (None if it needs none)."""
        return None

    @abstractmethod
    def _feature_dag(self, weights, features: list, counts: TrainingCounts):
        """The DAG over the features alone (the class arcs are added by the base)."""

    # -- fitting -----------------------------------------------------------------
    def fit(self, X, y):
        """Learn the structure and the CPTs from categorical data.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Categorical features; NaN/None cells are missing and are left out
            of the counts that involve them.
        y : array-like of shape (n_samples,)
            Class labels.

        Returns
        -------
        self
        """
        counts, features, alpha = self._encode_training(X, y)
        self._fit_counts(counts, features, alpha)
        return self

    def _encode_training(self, X, y):
        """Validate and encode the training data; set the encoding attributes.

        Sets ``classes_``, ``categories_``, ``n_features_in_``,
        ``feature_names_in_`` and ``class_node_`` and returns
        ``(counts, features, alpha)`` for :meth:`_fit_counts`. Ensembles call
        it once and fit every member from the same counts.
        """
        alpha = check_alpha(self.alpha)
        if self.handle_unknown not in HANDLE_UNKNOWN:
            raise ValueError(
                f"handle_unknown must be one of {HANDLE_UNKNOWN}, got {self.handle_unknown!r}."
            )
        frame, has_names = as_frame(X)
        self.classes_, y_codes = encode_target(y, len(frame))
        features = list(frame.columns)
        # each column's distribution: by dtype (float -> Gaussian) unless `distributions` says
        self.feature_kinds_, groups = resolve_distributions(
            frame, getattr(self, "distributions", None)
        )
        self.categories_, codes = learn_and_encode_frame(frame, self.feature_kinds_)
        self.n_features_in_ = len(features)
        if has_names:
            self.feature_names_in_ = np.asarray(features, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        self.class_node_ = _class_node_name(y, features)
        cards = np.array([1 if c is None else len(c) for c in self.categories_])
        counts = training_counts(
            frame, codes, y_codes, cards, len(self.classes_), self.feature_kinds_, groups
        )
        return counts, features, alpha

    def _fit_counts(self, counts: TrainingCounts, features, alpha):
        """Everything after encoding: weights, structure, parameters."""
        start = time.perf_counter()
        weights = self._edge_weights(counts, features)
        after_weights = time.perf_counter()
        feature_dag = self._feature_dag(weights, features, counts)
        self.structure_ = add_class_arcs(feature_dag, self.class_node_)
        after_structure = time.perf_counter()
        self.compiled_ = self._compile(counts, features, alpha)
        # densities of the non-categorical features (their CPTs in compiled_ are one-state dummies)
        self.distributions_ = (
            fit_distributions(counts, self.compiled_.parents, features, alpha)
            if is_hybrid(counts)
            else {}
        )
        done = time.perf_counter()
        self.weights_ = weights
        self.fit_times_ = {
            "weights": after_weights - start,
            "structure": after_structure - after_weights,
            "parameters": done - after_structure,
        }
        self._network = None

    def _compile(self, counts, features, alpha) -> CompiledNetwork:
        position = {name: k for k, name in enumerate(features)}
        parents_by_name = feature_parents(self.structure_, self.class_node_)
        parents = [tuple(position[p] for p in parents_by_name[f]) for f in features]
        return CompiledNetwork(
            log_prior=log_class_prior(counts.classes, alpha),
            parents=parents,
            log_cpts=[log_conditional(table, alpha) for table in counts.families(parents)],
        )

    @property
    def feature_names_(self) -> list:
        """Names of the feature nodes (the DataFrame's columns, else ``x0 .. x{m-1}``)."""
        check_is_fitted(self, "structure_")
        return [n for n in self.structure_.nodes if n != self.class_node_]

    @property
    def network_(self):
        """The fitted model as a pgmpy ``DiscreteBayesianNetwork`` (built on first access).

        Its CPDs hold the same probabilities as the fast path; state names are
        the original category values and class labels.
        """
        check_is_fitted(self, "compiled_")
        if getattr(self, "distributions_", None):
            raise AttributeError(
                "network_ is a pgmpy DiscreteBayesianNetwork, which cannot hold the "
                f"continuous features {list(self.distributions_)}; their fitted densities "
                "are in distributions_."
            )
        if getattr(self, "_network", None) is None:
            self._network = to_pgmpy(
                self.compiled_,
                self.structure_,
                self.class_node_,
                self.feature_names_,
                self.categories_,
                self.classes_,
            )
        return self._network

    # -- prediction --------------------------------------------------------------
    def _encode(self, X) -> np.ndarray:
        """Codes of X in the fitted column order and categories."""
        return encode_frame(self._aligned_frame(X), self.categories_, self.handle_unknown)

    def _aligned_frame(self, X) -> pd.DataFrame:
        """X as a DataFrame in the fitted column order, named like the fitted features."""
        check_is_fitted(self, "compiled_")
        frame, has_names = as_frame(X)
        fitted = self.feature_names_
        if has_names and hasattr(self, "feature_names_in_"):
            columns = list(frame.columns)
            if columns != fitted:
                missing = [c for c in fitted if c not in columns]
                extra = [c for c in columns if c not in fitted]
                if missing or extra:
                    raise ValueError(
                        "X's columns differ from those seen in fit: "
                        f"missing {missing}, unexpected {extra}."
                    )
                frame = frame[fitted]  # same columns, other order: align by name
        elif frame.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {frame.shape[1]} features, but {type(self).__name__} is expecting "
                f"{self.n_features_in_} features as input."
            )
        return frame.set_axis(fitted, axis=1)

    def _joint_log_likelihood(self, X) -> np.ndarray:
        """log P(c, x) for every row and class; missing cells summed out exactly."""
        frame = self._aligned_frame(X)  # checks fitted before compiled_ is read
        codes = encode_frame(frame, self.categories_, self.handle_unknown)
        if not getattr(self, "distributions_", None):
            return self.compiled_.joint_log_likelihood(codes)
        values = continuous_values(frame, self.feature_kinds_)
        return hybrid_joint_log_likelihood(self.compiled_, self.distributions_, codes, values)

    def predict_log_proba(self, X) -> np.ndarray:
        """log P(c | x), columns in the order of ``classes_``.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        joint = self._joint_log_likelihood(X)
        # log-sum-exp in plain numpy: scipy's costs as much as the rest of a NB predict
        top = joint.max(axis=1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):  # all -inf rows -> NaN, raised
            norm = top + np.log(np.exp(joint - top).sum(axis=1, keepdims=True))
        impossible = ~np.isfinite(norm[:, 0])
        if impossible.any():
            # Only reachable with alpha=0: every class gives the row probability 0.
            raise ValueError(
                f"{int(impossible.sum())} row(s) (first: {int(np.argmax(impossible))}) have "
                "probability 0 under every class; use alpha > 0."
            )
        return joint - norm

    def predict_proba(self, X) -> np.ndarray:
        """P(c | x), columns in the order of ``classes_``; rows sum to 1."""
        return np.exp(self.predict_log_proba(X))

    def predict(self, X) -> np.ndarray:
        """The most probable class of each row (ties go to the first class in ``classes_``)."""
        joint = self._joint_log_likelihood(X)  # checks fitted before classes_ is read
        return self.classes_[np.argmax(joint, axis=1)]

    # -- fit statistics (R bnclassify's logLik/AIC/BIC/nparams, statsmodels' llf/aic/bic) --
    @property
    def n_parameters_(self) -> int:
        """Free parameters of the network: ``(C - 1) + sum_i C q_i (r_i - 1)``.

        ``C`` classes, ``r_i`` categories of feature ``i``, ``q_i`` joint
        configurations of its feature parents (1 without any); R bnclassify's
        ``nparams``. Continuous features add their densities' parameters (see
        :mod:`bnclassify.distributions`).
        """
        check_is_fitted(self, "compiled_")
        tables = self.compiled_.log_cpts
        per_feature = (t.size // t.shape[-1] * (t.shape[-1] - 1) for t in tables)
        densities = sum(d.n_parameters_ for d in getattr(self, "distributions_", {}).values())
        return int(self.compiled_.n_classes - 1 + sum(per_feature) + densities)

    def log_likelihood(self, X, y) -> float:
        """Log-likelihood of labelled data: the sum over rows of log P(y, x), natural log.

        Missing cells are summed out, so a row contributes log P(y, x_observed).

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Labels, each one of ``classes_``.

        Returns
        -------
        float

        Examples
        --------
        >>> from bnclassify import NaiveBayes
        >>> from bnclassify.datasets import load_p450
        >>> X, y = load_p450(return_X_y=True)
        >>> model = NaiveBayes().fit(X, y)
        >>> model.n_parameters_  # 1 + 8 features * 2 classes * 2
        33
        >>> bool(model.aic(X, y) == -2 * model.log_likelihood(X, y) + 2 * 33)
        True
        """
        joint = self._joint_log_likelihood(X)
        return float(joint[np.arange(len(joint)), self._class_codes(y, len(joint))].sum())

    def conditional_log_likelihood(self, X, y) -> float:
        """Conditional log-likelihood: the sum over rows of log P(y | x), natural log.

        Divide by ``log(2)`` for bits (the study reports per-fold sums in bits).
        """
        log_proba = self.predict_log_proba(X)
        rows = np.arange(len(log_proba))
        return float(log_proba[rows, self._class_codes(y, len(log_proba))].sum())

    def aic(self, X, y) -> float:
        """Akaike's information criterion ``-2 LL + 2 k``, lower is better.

        ``LL`` is :meth:`log_likelihood` and ``k`` :attr:`n_parameters_`, as in
        statsmodels and R's ``stats::AIC``. R bnclassify's ``AIC()`` reports the
        penalised log-likelihood ``LL - k`` instead, which is ``-aic / 2``.
        """
        return -2.0 * self.log_likelihood(X, y) + 2.0 * self.n_parameters_

    def bic(self, X, y) -> float:
        """Bayesian information criterion ``-2 LL + k log(n)``, ``n`` rows, lower is better.

        R bnclassify's ``BIC()`` reports ``LL - k log(n) / 2``, which is ``-bic / 2``.
        """
        log_likelihood = self.log_likelihood(X, y)  # validates X before n is read
        return -2.0 * log_likelihood + self.n_parameters_ * np.log(_n_rows(X))

    def _class_codes(self, y, n_rows) -> np.ndarray:
        """Positions of the labels ``y`` in ``classes_``; an unknown label is a ValueError."""
        values = y.to_numpy() if isinstance(y, pd.Series) else np.asarray(y)
        values = values.ravel() if values.ndim == 2 and values.shape[1] == 1 else values
        if values.ndim != 1 or len(values) != n_rows:
            raise ValueError(f"X has {n_rows} rows but y has shape {values.shape}.")
        codes = pd.Index(self.classes_).get_indexer(values)
        if (codes < 0).any():
            bad = values[np.argmax(codes < 0)]
            bad = bad.item() if isinstance(bad, np.generic) else bad
            raise ValueError(
                f"y has the label {bad!r}, which is not one of the classes seen in fit: "
                f"{list(self.classes_)}."
            )
        return codes

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.input_tags.allow_nan = True
        return tags


def _class_node_name(y, features) -> str:
    """The class node's name: y's own name when it has one that no feature uses."""
    name = getattr(y, "name", None)
    if not isinstance(name, str) or not name:
        name = "class"
    while name in features:
        name = f"{name}_"
    return name


def _n_rows(X) -> int:
    return X.shape[0] if hasattr(X, "shape") else len(X)
