"""The shared base of every Bayesian network classifier in bnclassify.

One base class owns the flow encode -> count -> weigh -> structure ->
parameters -> network; subclasses say only how edge weights and the feature
DAG are made. ``predict``, ``predict_proba`` and ``predict_log_proba`` all
derive from one ``_joint_log_likelihood``, as in scikit-learn's naive Bayes.
"""

from __future__ import annotations

import time
from abc import ABCMeta, abstractmethod

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from .._encoding import HANDLE_UNKNOWN, take_rows
from ..counts import (
    StatisticsPlan,
    SufficientStatistics,
    TrainingCounts,
    training_statistics,
)
from ..data import TableSchema
from ..network import fit_network
from ..structure import add_class_arcs, feature_parents
from ..validation import check_alpha, check_sample_weight
from ._predict import JointPredictor, is_dask_collection


class SchemaAttributes:
    """What every bnclassify table classifier shares: the attributes it derives from its
    ``schema_``, its scikit-learn input tags (categorical, string and NaN input), and
    pickling without the training rows a later ``partial_fit`` would continue from."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.input_tags.allow_nan = True
        return tags

    def __getstate__(self):
        state = super().__getstate__()
        state.pop("_fit_rows", None)
        return state

    def _set_schema(self, schema, y=None, class_node=None):
        """Set ``schema_``, ``n_features_in_``, ``feature_names_in_`` and ``class_node_``."""
        self.schema_ = schema
        self.n_features_in_ = schema.n_features
        if schema.has_names:
            self.feature_names_in_ = np.asarray(schema.names, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        self.class_node_ = class_node or _class_node_name(y, schema.names)

    def _check_handle_unknown(self):
        if self.handle_unknown not in HANDLE_UNKNOWN:
            raise ValueError(
                f"handle_unknown must be one of {HANDLE_UNKNOWN}, got {self.handle_unknown!r}."
            )

    @property
    def categories_(self) -> list:
        """Categories of each discrete feature, in code order (``None`` for the others)."""
        check_is_fitted(self, "schema_")
        return self.schema_.categories

    @property
    def feature_kinds_(self) -> list:
        """How each column is modelled (``"categorical"``, ``"gaussian"``, ...)."""
        check_is_fitted(self, "schema_")
        return self.schema_.kinds

    def describe(self) -> pd.DataFrame:
        """What the model inferred about each column: its kind, its categories, its parents.

        Returns
        -------
        DataFrame
            One row per feature, in the training column order, with columns
            ``column``, ``kind`` (``"categorical"``, ``"gaussian"``,
            ``"lognormal"``, ...; by default floats and integer columns with more
            than 20 distinct values are continuous, log-normal when positive and
            skewed, every other column categorical: see
            :func:`bnclassify.data.default_kind`),
            ``n_categories`` and ``categories`` (discrete columns; the
            categories in code order) and ``parents`` (the feature's feature
            parents in the learned structure, when the model has one; the class
            is a parent of every feature).

        Examples
        --------
        >>> import pandas as pd
        >>> from bnclassify import TAN
        >>> X = pd.DataFrame({"age": range(20, 50), "sex": ["f", "m", "m"] * 10})
        >>> TAN().fit(X, [0, 1] * 15).describe()
          column         kind  n_categories categories parents
        0    age     gaussian             0         []   [sex]
        1    sex  categorical             2     [f, m]      []
        """
        check_is_fitted(self, "schema_")
        schema = self.schema_
        structure = getattr(self, "structure_", None)
        rows = []
        for name, kind, categories in zip(
            schema.names, schema.kinds, schema.categories, strict=True
        ):
            parents = []
            if structure is not None and name in structure:
                parents = [p for p in structure.predecessors(name) if p != self.class_node_]
            rows.append(
                {
                    "column": name,
                    "kind": kind,
                    "n_categories": 0 if categories is None else len(categories),
                    "categories": [] if categories is None else list(categories),
                    "parents": parents,
                }
            )
        return pd.DataFrame(rows)


class BayesNetClassifier(
    SchemaAttributes, JointPredictor, ClassifierMixin, BaseEstimator, metaclass=ABCMeta
):
    """Abstract base: a class node with an arc to every feature, plus a feature DAG.

    It owns the whole flow, for every kind of feature: schema and encoding
    (:mod:`bnclassify.data`), sufficient statistics (:mod:`bnclassify.counts`),
    edge weights, the structure, one fitted factor per node
    (:mod:`bnclassify.factors`) and the fitted network (:mod:`bnclassify.network`);
    ``predict``, ``predict_proba`` and ``predict_log_proba`` derive from one
    joint log-likelihood. Subclasses implement :meth:`_feature_dag` (and
    :meth:`_edge_weights` when their structure is learned from weights).
    """

    def __init__(self, alpha=1.0, handle_unknown="warn"):
        self.alpha = alpha
        self.handle_unknown = handle_unknown

    # -- what subclasses define -------------------------------------------------
    def _edge_weights(self, counts: TrainingCounts, features: list) -> pd.DataFrame | None:
        """The m x m weights the structure is learned from (None if it needs none)."""
        return None

    @abstractmethod
    def _feature_dag(self, weights, features: list, counts: TrainingCounts):
        """The DAG over the features alone (the class arcs are added by the base)."""

    def _statistics_plan(self, schema=None) -> StatisticsPlan:
        """The additive statistics an incremental fit of this model keeps (``schema``: kinds)."""
        return StatisticsPlan(pairwise=True, structural_moments=True)

    # -- fitting -----------------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        """Learn the structure and the parameters of every node.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Features of any kind (see ``distributions``); NaN/None cells are
            missing and are left out of the statistics that involve them. A
            dask DataFrame is fitted from per-partition statistics summed on
            the cluster (see :func:`bnclassify.distributed.fit_dask`).
        y : array-like of shape (n_samples,)
            Class labels (a dask Series with a dask ``X``).
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative row weights: every count and moment is weighted, so
            an integer weight equals repeating the row and weight 0 dropping it.

        Returns
        -------
        self
        """
        if is_dask_collection(X):
            from ..distributed import fit_dask

            return fit_dask(self, X, y, sample_weight)
        counts, features, alpha = self._encode_training(X, y, sample_weight)
        self._fit_counts(counts, features, alpha)
        self._fit_rows = counts  # a later partial_fit continues from them (not pickled)
        return self

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add a chunk of rows to the statistics and refit the model from all rows so far.

        The structure and the parameters are re-derived from the accumulated
        statistics (see :class:`~bnclassify.counts.SufficientStatistics`),
        never from the last chunk alone: after any sequence of chunks the model
        equals ``fit`` on their concatenation (up to rounding, in any chunk
        order). A chunk may bring categories not seen before; the earlier chunks
        count zero for them. ``fit`` starts afresh and discards the statistics.
        A failed call leaves the model unchanged.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            The chunk; named columns are aligned by name to the first chunk's.
        y : array-like of shape (n_samples,)
        classes : array-like, optional
            Every class label; required on the first call (scikit-learn's
            convention), optional afterwards (it must then be the same).
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative row weights, as in :meth:`fit`.

        Returns
        -------
        self

        Examples
        --------
        >>> import numpy as np
        >>> from bnclassify import TAN
        >>> from bnclassify.datasets import load_car
        >>> X, y = load_car(return_X_y=True)
        >>> model = TAN()
        >>> for rows in np.array_split(np.arange(len(X)), 4):
        ...     _ = model.partial_fit(X.iloc[rows], y.iloc[rows], classes=np.unique(y))
        >>> bool(np.allclose(model.predict_proba(X), TAN().fit(X, y).predict_proba(X)))
        True
        """
        saved = dict(self.__dict__)
        try:
            self._fit_accumulated(*accumulate(self, X, y, classes, sample_weight))
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(saved)
            raise
        return self

    def _fit_accumulated(self, total, schema, classes, class_node):
        """Fit from accumulated :class:`~bnclassify.counts.SufficientStatistics` and keep them."""
        alpha = check_alpha(self.alpha)
        self._set_schema(schema)
        self.classes_ = classes
        self.class_node_ = class_node
        self._fit_counts(total, list(schema.names), alpha)
        self.statistics_ = total
        self.__dict__.pop("_fit_rows", None)

    def _encode_training(self, X, y, sample_weight=None):
        """Validate and encode the training data; set the encoding attributes.

        Sets ``schema_``, ``classes_``, ``n_features_in_``, ``feature_names_in_``
        and ``class_node_`` and returns ``(counts, features, alpha)`` for
        :meth:`_fit_counts`. Ensembles call it once and fit every member from
        the same statistics.
        """
        alpha = check_alpha(self.alpha)
        self._check_handle_unknown()
        schema, self.classes_, counts = training_statistics(
            X, y, getattr(self, "distributions", None), sample_weight
        )
        self.__dict__.pop("statistics_", None)  # fit starts afresh
        self.__dict__.pop("_fit_rows", None)
        self._set_schema(schema, y)
        return counts, list(schema.names), alpha

    def _fit_counts(self, counts: TrainingCounts, features, alpha):
        """Everything after encoding: weights, structure, one factor per node."""
        start = time.perf_counter()
        weights = self._edge_weights(counts, features)
        after_weights = time.perf_counter()
        feature_dag = self._feature_dag(weights, features, counts)
        self.structure_ = add_class_arcs(feature_dag, self.class_node_)
        after_structure = time.perf_counter()
        position = {name: k for k, name in enumerate(features)}
        parents_by_name = feature_parents(self.structure_, self.class_node_)
        parents = [tuple(position[p] for p in parents_by_name[f]) for f in features]
        self.compiled_ = fit_network(counts, self.schema_, parents, alpha)
        done = time.perf_counter()
        self.weights_ = weights
        self.fit_times_ = {
            "weights": after_weights - start,
            "structure": after_structure - after_weights,
            "parameters": done - after_structure,
        }
        self._network = None

    @property
    def distributions_(self) -> dict:
        """The fitted factor of every node, keyed by column name (a tuple for a group)."""
        check_is_fitted(self, "compiled_")
        return {
            (f.columns_[0] if len(f.columns_) == 1 else f.columns_): f
            for f in self.compiled_.factors
        }

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
        if getattr(self, "_network", None) is None:
            try:
                self._network = self.compiled_.to_pgmpy(
                    self.structure_,
                    self.class_node_,
                    self.feature_names_,
                    self.categories_,
                    self.classes_,
                )
            except TypeError:
                continuous = [
                    n for f in self.compiled_.factors if not f.discrete for n in f.columns_
                ]
                raise AttributeError(
                    "network_ is a pgmpy DiscreteBayesianNetwork, which cannot hold the "
                    f"continuous features {continuous}; their fitted densities are in "
                    "distributions_."
                ) from None
        return self._network

    # -- prediction --------------------------------------------------------------
    def encode(self, X):
        """Rows as the fitted network reads them: ``(codes, values)``.

        X is aligned to the training columns (by name when both are named) and
        encoded with the training kinds and categories, as ``predict`` does.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)

        Returns
        -------
        codes : ndarray of shape (n_samples, n_features)
            Category codes of the discrete columns (-1 where missing or unseen).
        values : ndarray of shape (n_samples, n_features) or None
            The continuous columns as their nodes model them (NaN where missing);
            ``None`` when every column is discrete.

        Examples
        --------
        >>> from bnclassify import NaiveBayes
        >>> from bnclassify.datasets import load_car
        >>> X, y = load_car(return_X_y=True)
        >>> codes, values = NaiveBayes().fit(X, y).encode(X.iloc[:2])
        >>> codes.shape, values is None
        ((2, 6), True)
        """
        check_is_fitted(self, "compiled_")
        frame = self.schema_.align(X, owner=type(self).__name__)
        return self.schema_.encode(frame, self.handle_unknown)

    def _joint_log_likelihood(self, X) -> np.ndarray:
        """log P(c, x) for every row and class; missing cells summed out exactly."""
        codes, values = self.encode(X)
        return self.compiled_.joint_log_likelihood(codes, values)

    # -- fit statistics (R bnclassify's logLik/AIC/BIC/nparams, statsmodels' llf/aic/bic) --
    @property
    def n_parameters_(self) -> int:
        """Free parameters of the network: ``C - 1`` plus every node's.

        A categorical node has ``C q_i (r_i - 1)`` (``r_i`` categories, ``q_i``
        joint configurations of its feature parents): R bnclassify's
        ``nparams``. Continuous nodes count their densities' parameters (see
        :mod:`bnclassify.distributions`).
        """
        check_is_fitted(self, "compiled_")
        return self.compiled_.n_parameters

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


def accumulate(model, X, y, classes, sample_weight):
    """The statistics of ``model`` (``statistics_``, or none yet) plus those of a chunk.

    Nothing is set on ``model``. Returns ``(total, schema, classes, class_node)``:
    the summed :class:`~bnclassify.counts.SufficientStatistics`, the schema with
    the accumulated categories, the class labels and the class node's name.
    """
    if model.handle_unknown not in HANDLE_UNKNOWN:
        raise ValueError(
            f"handle_unknown must be one of {HANDLE_UNKNOWN}, got {model.handle_unknown!r}."
        )
    check_alpha(model.alpha)
    statistics = getattr(model, "statistics_", None)
    rows = getattr(model, "_fit_rows", None)
    if statistics is None and rows is not None:  # fitted by fit: continue from its rows
        statistics = SufficientStatistics.from_counts(
            rows,
            model.schema_,
            model._statistics_plan(model.schema_),
            model.classes_,
            model.schema_.categories,
        )
    elif statistics is None and hasattr(model, "classes_"):
        raise ValueError(
            f"This {type(model).__name__} was pickled or saved with bnclassify.io after fitting, "
            "which drops the rows and statistics partial_fit would continue from; fit again "
            "or start with partial_fit."
        )
    if statistics is None:
        if classes is None:
            raise ValueError(
                "classes must be given on the first call to partial_fit: every class label, "
                "e.g. classes=np.unique(y_all)."
            )
        declared = pd.unique(np.asarray(classes).ravel())
        declared = np.asarray(sorted(declared))
        if len(declared) < 2:
            raise ValueError(f"classes must hold at least 2 labels, got {list(declared)}.")
        first_weights = check_sample_weight(sample_weight, _n_rows(X))
        schema, frame = TableSchema.learn(
            X, getattr(model, "distributions", None), False, first_weights, y
        )
        class_node = _class_node_name(y, schema.names)
    else:
        schema, declared, class_node = model.schema_, model.classes_, model.class_node_
        if classes is not None:
            given = np.asarray(sorted(pd.unique(np.asarray(classes).ravel())))
            if len(given) != len(declared) or not (given == declared).all():
                raise ValueError(
                    f"classes={list(given)} differs from the classes of the first call to "
                    f"partial_fit, {list(declared)}."
                )
        frame = schema.align(X, owner=type(model).__name__)
    weights = check_sample_weight(sample_weight, len(frame))
    if weights is not None and not (weights > 0).all():
        keep = weights > 0
        if not keep.any():
            raise ValueError(
                "sample_weight: every weight of this chunk is zero; there is nothing to add."
            )
        frame, _, y = take_rows(frame, y, keep)
        weights = weights[keep]
    plan = model._statistics_plan(schema)
    chunk = SufficientStatistics.from_table(frame, y, schema, plan, weights, declared)
    total = chunk if statistics is None else statistics + chunk
    total.check_observed(schema.names)
    for j, cats in enumerate(total.categories):
        if cats is not None and not len(cats):
            raise ValueError(
                f"Column {schema.names[j]!r} has no observed value in the rows so far: every "
                "cell is missing, so it has no category to model. Pass a first chunk that "
                "observes every column."
            )
    return total, schema.with_categories(total.categories), total.class_labels, class_node


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
