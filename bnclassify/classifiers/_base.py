"""The shared base of every Bayesian network classifier in bnclassify.

One base class owns the flow encode -> count -> weigh -> structure ->
parameters -> network; subclasses say only how edge weights and the feature
DAG are made. ``predict``, ``predict_proba`` and ``predict_log_proba`` all
derive from one ``_joint_log_likelihood``, as in scikit-learn's naive Bayes.
"""

from __future__ import annotations

import time
from abc import ABCMeta, abstractmethod
from functools import partial

import networkx as nx
import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from ..data import (
    HANDLE_UNKNOWN,
    TableSchema,
    declared_classes,
    incremental,
    take_rows,
    warn_unobserved,
    warn_zero_variance,
)
from ..exceptions import ContinuousFeaturesError
from ..factors import node_statistics
from ..network import FittedNetwork, fit_network
from ..parameters import SMOOTHING
from ..state import (
    collect,
    distinct_labels,
    float_array,
    require,
    restore,
    unchanged_on_error,
)
from ..stats import (
    Statistics,
    StatisticsPlan,
    SufficientStatistics,
    TrainingCounts,
    moment_keys,
    training_statistics,
)
from ..structure import add_class_arcs, feature_parents
from ..validation import (
    ALPHA,
    RANDOM_STATE,
    Options,
    check_sample_weight,
    validate_parameters,
)
from ._adapter import apply_objective, table_smoothing
from ._predict import JointPredictor, routes_dask


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
        # a copy: object.__getstate__ may hand back the instance's own __dict__, and a pickle
        # or deepcopy must not take the rows a later partial_fit continues from
        state = dict(super().__getstate__())
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
        self.class_node_ = class_node or class_node_name(y, schema.names)

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
            ``column``, ``kind`` (``"categorical"``, ``"binned"``, ``"gaussian"``,
            ``"lognormal"``, ...; by default floats and integer columns with more
            than 20 distinct values are continuous and binned, every other column
            categorical: see :func:`bnclassify.data.default_kind`),
            ``n_categories`` and ``categories`` (discrete columns; the
            categories in code order) and ``parents`` (the feature's feature
            parents in the learned structure, when the model has one; the class
            is a parent of every feature).

        Examples
        --------
        >>> import pandas as pd
        >>> from bnclassify import TAN
        >>> X = pd.DataFrame({"age": range(20, 50), "sex": ["f", "m", "m"] * 10})
        >>> TAN().fit(X, [0] * 15 + [1] * 15).describe()
          column         kind  n_categories                   categories parents
        0    age       binned             2  [(-inf, 34.5], (34.5, inf)]      []
        1    sex  categorical             2                       [f, m]   [age]
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

    # -- declared state (the fields of a model file; see bnclassify.state) ---------------
    #: Attribute -> field of what every fitted table classifier holds.
    _SCHEMA_FIELDS = {
        "classes_": "classes_",
        "schema_": "schema_",
        "n_features_in_": "n_features_in_",
        "feature_names_in_": "feature_names_in_",
        "class_node_": "class_node_",
    }
    #: Attribute -> field of the estimator's own fitted state (each estimator declares its
    #: own); what only a later ``partial_fit`` reads and caches are not fields.
    _FITTED_FIELDS: dict = {}

    def _get_state(self) -> dict:
        """The fitted state by field (empty when unfitted); the parameters are not in it."""
        return collect(vars(self), {**self._SCHEMA_FIELDS, **self._FITTED_FIELDS})

    @classmethod
    def _from_state(cls, state, params=None):
        """The estimator of ``params`` with :meth:`_get_state`'s fields, checked.

        A loaded model predicts as the saved one; like an unpickled one, it cannot
        continue an incremental fit (the statistics are not fields).
        """
        fields = {**cls._SCHEMA_FIELDS, **cls._FITTED_FIELDS}
        model = restore(cls(**(params or {})), fields, state, cls.__name__)
        if state:
            model._check_schema_state()
            model._check_state()
        return model

    def _check_schema_state(self):
        required = [f for f in self._SCHEMA_FIELDS if f != "feature_names_in_"]
        missing = [f for f in required if f not in vars(self)]
        require(not missing, type(self).__name__, f"a fitted model needs the fields {missing}.")
        distinct_labels(self.classes_, "classes_", at_least=2)
        schema = self.schema_
        require(isinstance(schema, TableSchema), "schema_", "is not a TableSchema.")
        require(
            self.n_features_in_ == schema.n_features,
            "n_features_in_",
            f"the schema has {schema.n_features} features.",
        )
        if schema.has_names:
            require(
                list(getattr(self, "feature_names_in_", [])) == schema.names,
                "feature_names_in_",
                "differs from the schema's names.",
            )
        require(
            isinstance(self.class_node_, str) and self.class_node_ not in schema.names,
            "class_node_",
            "must be a string that names no feature.",
        )

    def _check_state(self):
        """Check the estimator's own fields against one another (each estimator its own)."""


class NetworkClassifier(SchemaAttributes, JointPredictor, ClassifierMixin, BaseEstimator):
    """What every classifier holding one fitted network (``compiled_``) shares.

    Encoding rows as the network reads them, the joint log-likelihood and the
    three prediction methods derived from it, the fit statistics (log-likelihood,
    AIC, BIC, number of parameters), the fitted nodes (``distributions_``), the
    pgmpy network (``network_``) and the checks of a loaded model's structure.
    :class:`AugmentedNaiveBayes` (the class a parent of every feature) and
    :class:`~bnclassify.BayesNetClassifier` (the class an ordinary node) are
    both such classifiers.
    """

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
                raise ContinuousFeaturesError(
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

    # -- declared state (see SchemaAttributes._get_state) --------------------------------
    _FITTED_FIELDS = {
        "order_": "order_",
        "structure_": "structure_",
        "compiled_": "compiled_",
        "weights_": "weights_",
        "fit_times_": "fit_times_",
        "l2_": "l2_",
    }

    def _check_state(self):
        missing = [f for f in ("structure_", "compiled_") if f not in vars(self)]
        require(not missing, type(self).__name__, f"a fitted model needs the fields {missing}.")
        check_network(self.compiled_, self.schema_, len(self.classes_))
        structure = self.structure_
        require(isinstance(structure, nx.DiGraph), "structure_", "is not a DiGraph.")
        require(
            set(structure.nodes) == {self.class_node_, *self.schema_.names},
            "structure_",
            "names other nodes than the class and the features.",
        )
        require(nx.is_directed_acyclic_graph(structure), "structure_", "has a cycle.")
        self._network = None


class AugmentedNaiveBayes(NetworkClassifier, metaclass=ABCMeta):
    """Abstract base of the augmented naive Bayes family: the class a parent of every feature.

    The structure is a class node with an arc to every feature plus a DAG over
    the features (empty for naive Bayes, a tree for TAN, k parents for KDB):
    what Friedman, Geiger & Goldszmidt (1997) call an augmented naive Bayes.
    A network in which the class is an ordinary node is
    ``BayesNetClassifier``'s job.

    It owns the whole flow, for every kind of feature: schema and encoding
    (:mod:`bnclassify.data`), sufficient statistics (:mod:`bnclassify.stats`),
    edge weights, the structure, one fitted factor per node
    (:mod:`bnclassify.factors`) and the fitted network (:mod:`bnclassify.network`);
    ``predict``, ``predict_proba`` and ``predict_log_proba`` derive from one
    joint log-likelihood.

    **The fit protocol.** Every way of fitting ends in one documented entry,
    :meth:`fit_statistics`: ``fit`` computes the statistics of the table
    (:func:`bnclassify.stats.training_statistics`), ``partial_fit`` adds a
    chunk's to those kept so far, a dask fit sums the partitions' on the
    cluster (:func:`bnclassify.distributed.fit_dask`), and an ensemble hands
    one set of statistics to every member. What the statistics must hold for
    an incremental fit is :meth:`statistics_plan`.

    **What a subclass defines** (template methods, called by
    :meth:`fit_statistics` on the model itself): :meth:`_feature_dag`, the DAG
    over the features, and :meth:`_edge_weights` when that DAG is learned from
    weights.

    Each class declares what its parameters may be in ``_parameter_constraints``
    (a subclass extends its base's table); ``fit``, ``partial_fit`` and
    :meth:`fit_statistics` check them first
    (:func:`bnclassify.validation.validate_parameters`).
    """

    _parameter_constraints: dict = {
        "alpha": ALPHA,
        "handle_unknown": [Options(HANDLE_UNKNOWN)],
        "smoothing": SMOOTHING,
        "random_state": RANDOM_STATE,
    }

    def __init__(self, alpha=1.0, handle_unknown="warn", smoothing="laplace", random_state=None):
        self.alpha = alpha
        self.handle_unknown = handle_unknown
        self.smoothing = smoothing
        self.random_state = random_state

    # -- what subclasses define -------------------------------------------------
    def _edge_weights(self, stats: Statistics, features: list) -> pd.DataFrame | None:
        """The m x m weights the structure is learned from (None if it needs none)."""
        return None

    @abstractmethod
    def _feature_dag(self, weights, features: list, stats: Statistics):
        """The DAG over the features alone (the class arcs are added by the base)."""

    def statistics_plan(self, schema=None) -> StatisticsPlan:
        """The additive statistics an incremental (or distributed) fit of this model keeps.

        Parameters
        ----------
        schema : TableSchema, optional
            The table's kinds (some models keep more for some kinds).

        Returns
        -------
        StatisticsPlan
        """
        return StatisticsPlan(pairwise=True, structural_moments=True)

    # -- fitting -----------------------------------------------------------------
    @routes_dask
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
        validate_parameters(self)
        stats, schema, classes, class_node = self._training_statistics(X, y, sample_weight)
        self.fit_statistics(stats, schema, classes, class_node=class_node)
        self._fit_rows = fit_continuation(self, stats)  # for a later partial_fit (not pickled)
        return self

    @available_if(lambda self: getattr(self, "objective", "joint") == "joint")
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add a chunk of rows to the statistics and refit the model from all rows so far.

        The structure and the parameters are re-derived from the accumulated
        statistics (see :class:`~bnclassify.stats.SufficientStatistics`),
        never from the last chunk alone: after any sequence of chunks the model
        equals ``fit`` on their concatenation (up to rounding, in any chunk
        order). A chunk may bring categories not seen before; the earlier chunks
        count zero for them. ``fit`` starts afresh and discards the statistics.
        A failed call leaves the model unchanged. After ``fit`` the model keeps
        the statistics its fit computed, not the rows, except KDB with ``k >= 2``:
        the triple counts its structure may need cost far more than its fit (at
        10^5 x 20, 53 s against 0.07 s), so it keeps the encoded rows and counts
        them only when ``partial_fit`` comes (see ``docs/architecture.md``).

        With a hierarchical smoothing (``smoothing="hdp"``) every call smooths
        every table again from the accumulated counts, as ``fit`` would (the
        same seed gives the same tables as ``fit`` on all the rows): each call
        costs a whole sampler run, ``n_iter`` sweeps over every non-empty cell
        of every table, however small its chunk.

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
        validate_parameters(self)
        with unchanged_on_error(self):
            total, schema, classes, class_node = accumulate(self, X, y, classes, sample_weight)
            return self.fit_statistics(total, schema, classes, class_node=class_node, keep=True)

    def fit_statistics(
        self, stats, schema, classes, *, class_node="class", structure=None, keep=False
    ):
        """Fit the structure and every node from training statistics: every fit's one entry.

        ``fit``, ``partial_fit``, the dask fit and the ensembles all end here;
        nothing after this point reads rows.

        Parameters
        ----------
        stats : bnclassify.stats.Statistics
            The statistics of the training rows, encoded by ``schema``.
        schema : bnclassify.data.TableSchema
            The columns' names, kinds and categories.
        classes : array-like of shape (n_classes,)
            The class labels, in the order of the statistics' class codes.
        class_node : str, default="class"
            The class node's name in ``structure_``.
        structure : tuple (weights, feature_dag), optional
            A structure already learned from the same statistics (an ensemble's
            shared tree, a wrapper's candidate): only the nodes are fitted.
        keep : bool, default=False
            Keep ``stats`` (additive :class:`~bnclassify.stats.SufficientStatistics`)
            as ``statistics_`` for a later ``partial_fit``.

        Returns
        -------
        self

        Examples
        --------
        >>> from bnclassify import TAN
        >>> from bnclassify.datasets import load_car
        >>> from bnclassify.stats import training_statistics
        >>> X, y = load_car(return_X_y=True)
        >>> schema, classes, stats = training_statistics(X, y)
        >>> model = TAN().fit_statistics(stats, schema, classes)
        >>> bool((model.predict(X) == TAN().fit(X, y).predict(X)).all())
        True
        """
        validate_parameters(self)
        with unchanged_on_error(self):
            return self._fit_statistics(stats, schema, classes, class_node, structure, keep)

    def _fit_statistics(self, stats, schema, classes, class_node, structure, keep):
        alpha = float(self.alpha)
        self.__dict__.pop("statistics_", None)
        self.__dict__.pop("_fit_rows", None)
        self._set_schema(schema, class_node=class_node)
        self.classes_ = np.asarray(classes)
        features = list(schema.names)
        start = time.perf_counter()
        if structure is None:
            weights = self._edge_weights(stats, features)
            after_weights = time.perf_counter()
            feature_dag = self._feature_dag(weights, features, stats)
        else:
            weights, feature_dag = structure
            after_weights = start
        self.structure_ = add_class_arcs(feature_dag, self.class_node_)
        after_structure = time.perf_counter()
        position = {name: k for k, name in enumerate(features)}
        # each feature's parents in the order its learner added them (KDB: by decreasing
        # CMI): the order of its table's axes, and of the hierarchy a smoothing backs off along
        parents_by_name = feature_parents(feature_dag, self.class_node_)
        parents = [tuple(position[p] for p in parents_by_name[f]) for f in features]
        self.compiled_ = fit_network(stats, self.schema_, parents, alpha, *table_smoothing(self))
        warn_zero_variance(constant_classes(self.compiled_, self.classes_))
        self._apply_objective(stats)  # objective="conditional": tables refined for log P(c | x)
        done = time.perf_counter()
        self.weights_ = weights
        self.fit_times_ = {
            "weights": after_weights - start,
            "structure": after_structure - after_weights,
            "parameters": done - after_structure,
        }
        self._network = None
        if keep:
            self.statistics_ = stats
        return self

    def _apply_objective(self, stats):
        """Refine the fitted tables for the model's ``objective`` (see
        :func:`~bnclassify.classifiers._adapter.apply_objective`); a model that refines
        its own way overrides it."""
        apply_objective(self, stats)

    def set_fitted_network(self, network, schema, classes, feature_dag, *, class_node="class"):
        """Make this model the given fitted network: parameters given, not learned.

        For networks built elsewhere (pgmpy, published parameters): the model then
        predicts, explains and saves like a fitted one.

        Parameters
        ----------
        network : bnclassify.network.FittedNetwork
        schema : bnclassify.data.TableSchema
        classes : array-like of shape (n_classes,)
        feature_dag : networkx.DiGraph
            The arcs between features (the class arcs are added).
        class_node : str, default="class"

        Returns
        -------
        self
        """
        self._set_schema(schema, class_node=class_node)
        self.classes_ = np.asarray(classes)
        self.structure_ = add_class_arcs(feature_dag, class_node)
        self.compiled_ = network
        self.weights_ = None
        self.fit_times_ = {"weights": 0.0, "structure": 0.0, "parameters": 0.0}
        self._network = None
        return self

    def _training_statistics(self, X, y, sample_weight=None):
        """``(stats, schema, classes, class_node)`` of a training table, as ``fit`` reads it."""
        schema, classes, stats = training_statistics(
            X, y, getattr(self, "distributions", None), sample_weight
        )
        return stats, schema, classes, class_node_name(y, schema.names)


class StatisticsFit:
    """``fit`` and ``partial_fit`` of a model fitted from its statistics alone.

    The model defines ``fit_statistics(stats, schema, classes, *, class_node, keep)`` and
    ``statistics_plan(schema)``, and has a ``distributions`` parameter; ``fit`` counts the
    table once (dask: sums the partitions' statistics), ``partial_fit`` adds a chunk's.
    """

    @routes_dask
    def fit(self, X, y, sample_weight=None):
        """Count the table once and fit from the counts.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            NaN/None cells are missing; continuous columns are binned by default.
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative row weights (weighted counts).

        Returns
        -------
        self
        """
        validate_parameters(self)
        schema, classes, counts = training_statistics(X, y, self.distributions, sample_weight)
        self.fit_statistics(counts, schema, classes, class_node=class_node_name(y, schema.names))
        self._fit_rows = fit_continuation(self, counts)  # for a later partial_fit (not pickled)
        return self

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add a chunk of rows; the result equals ``fit`` on the concatenated chunks.

        ``classes`` is required on the first call; a failed call leaves the model
        unchanged (as :meth:`bnclassify.TAN.partial_fit`).
        """
        validate_parameters(self)
        with unchanged_on_error(self):
            total, schema, classes, class_node = accumulate(self, X, y, classes, sample_weight)
            return self.fit_statistics(total, schema, classes, class_node=class_node, keep=True)


def _takes_densities(model) -> bool:
    """Whether ``model``'s ``distributions`` may ask for density nodes (its declared constraint)."""
    spec = type(model)._parameter_constraints.get("distributions", [None])[0]
    return getattr(spec, "densities", True)


def accumulate(model, X, y, classes, sample_weight):
    """The statistics of ``model`` (``statistics_``, or none yet) plus those of a chunk.

    Nothing is set on ``model``. Returns ``(total, schema, classes, class_node)``:
    the summed :class:`~bnclassify.stats.SufficientStatistics`, the schema with
    the accumulated categories, the class labels and the class node's name. The
    model's parameters are checked before (by ``partial_fit``).
    """
    if not model.statistics_plan().one_pass:
        raise ValueError(
            f"{model!r}.partial_fit cannot learn incrementally: the counts of its families "
            "(three or more feature parents each) are known only once its structure is, "
            "after every row. Fit it in memory, fit a dask DataFrame (one more pass over "
            "the partitions), or use k <= 2."
        )
    statistics = getattr(model, "statistics_", None)
    rows = getattr(model, "_fit_rows", None)
    # the statistics count every column, those no row has observed so far included
    counted = model.schema_.with_unobserved(()) if hasattr(model, "schema_") else None
    if statistics is None and isinstance(rows, SufficientStatistics):  # fitted by fit
        statistics = rows
    elif statistics is None and rows is not None:  # fitted by fit: continue from its rows
        statistics = SufficientStatistics.from_counts(
            rows,
            counted,
            model.statistics_plan(counted),
            model.classes_,
            counted.categories,
            node_statistics(rows, counted),
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
        declared = declared_classes(classes, y)
        if len(declared) < 2:
            raise ValueError(f"classes must hold at least 2 labels, got {list(declared)}.")
        first_weights = check_sample_weight(sample_weight, _n_rows(X))
        schema, frame = TableSchema.learn(
            X, getattr(model, "distributions", None), False, first_weights, y
        )
        # what fit learns from all the rows at once must be fixed before the first chunk
        incremental.check_fixed(schema, type(model).__name__, densities=_takes_densities(model))
        class_node = class_node_name(y, schema.names)
    else:
        schema, declared, class_node = counted, model.classes_, model.class_node_
        incremental.check_fixed(
            schema, type(model).__name__, fitted_by="its fit", densities=_takes_densities(model)
        )
        if classes is not None:
            given = pd.unique(np.asarray(classes, dtype=object).ravel()).tolist()
            if len(given) != len(declared) or set(given) != set(declared.tolist()):
                raise ValueError(
                    f"classes={given} differs from the classes of the first call to "
                    f"partial_fit, {list(declared)}."
                )
        frame = schema.align(X, owner=type(model).__name__, strict=True)
        incremental.check_chunk(schema, frame)
    weights = check_sample_weight(sample_weight, len(frame))
    if weights is not None and not (weights > 0).all():
        keep = weights > 0
        if not keep.any():
            raise ValueError(
                "sample_weight: every weight of this chunk is zero; there is nothing to add."
            )
        frame, _, y = take_rows(frame, y, keep)
        weights = weights[keep]
    plan = model.statistics_plan(schema)
    if statistics is not None and plan.triples and statistics.triple_table is None:
        raise ValueError(
            f"{model!r}.partial_fit cannot continue this fit: a dask fit counts the "
            "families of two feature parents by a pass over the partitions and keeps no "
            "triple table N(c, x_i, x_j, x_k), which partial_fit adds to. Fit again on dask "
            "with the new rows, or learn with partial_fit from the first chunk."
        )
    chunk = SufficientStatistics.from_table(
        frame, y, schema, plan, weights, declared, partial(node_statistics, schema=schema)
    )
    total = chunk if statistics is None else statistics + chunk
    incremental.check_value_counts(
        schema,
        {j: total.feature_class[j].sum(axis=0) for j in incremental.counted_columns(schema)},
        type(model).__name__,
        _takes_densities(model),
    )
    fitted = schema.with_categories(total.categories).with_unobserved(total.unobserved_columns())
    before = model.schema_.unobserved if statistics is not None else ()
    warn_unobserved([fitted.names[j] for j in fitted.unobserved if j not in before])
    return total, fitted, total.class_labels, class_node


def check_network(network, schema, n_classes):
    """Check a fitted network against its schema and number of classes (shapes and values).

    Raises :class:`~bnclassify.state.StateError` naming the field.

    Examples
    --------
    >>> from bnclassify import TAN
    >>> from bnclassify.datasets import load_p450
    >>> model = TAN().fit(*load_p450(return_X_y=True))
    >>> check_network(model.compiled_, model.schema_, len(model.classes_))
    """
    require(isinstance(network, FittedNetwork), "compiled_", "is not a FittedNetwork.")
    float_array(network.log_prior, "the class prior", (n_classes,), allow_minus_inf=True)
    m = schema.n_features
    require(network.n_features == m, "compiled_", f"has {network.n_features} features, not {m}.")
    discrete, cards, unobserved = schema.discrete, schema.cards, set(schema.unobserved)
    for factor in network.factors:
        continuous_parents = factor.continuous_parent_positions
        left_out = unobserved.issuperset(factor.column_positions)  # never observed: no reads
        require(
            factor.informative != left_out and not unobserved & set(factor.parent_positions),
            f"{factor.columns_}",
            "the schema's columns never observed in training must have the nodes that read "
            "nothing, and no child.",
        )
        require(
            all(discrete[p] for p in factor.discrete_parent_positions)
            and not any(discrete[p] for p in continuous_parents)
            and (left_out or all(discrete[c] == factor.discrete for c in factor.column_positions)),
            f"{factor.columns_}",
            "the node or its parents are of another kind than the schema's columns.",
        )
        factor.check_fitted(n_classes, cards)


def fit_continuation(model, stats):
    """What a ``partial_fit`` after ``fit`` continues from, kept on the model (not pickled).

    The additive statistics when the fit already computed every table they hold
    (naive Bayes, TAN, KDB with k = 1, AODE, and Simpler TAN, whose statistics
    are its own tree's families: no row is read again and the encoded rows are
    not kept; a Simpler TAN with a continuous or a missing cell reads them once
    more for N(c, x_i)); otherwise (KDB with k >= 2, whose fit counts no triple
    table) the counted rows, turned into statistics only if a ``partial_fit``
    comes: counting a pair table the fit does not need made a Simpler TAN fit
    at 10^6 x 20 about five times slower (0.70 s on a 0.15 s fit), and the triple
    table of KDB with k = 2 costs more than its fit (see ``docs/architecture.md``).
    """
    schema = model.schema_
    if schema.unobserved:  # a later chunk may observe such columns
        schema = schema.with_unobserved(())  # (a copy: statistics_plan would not know it)
    plan = model.statistics_plan(schema)
    if not isinstance(stats, TrainingCounts):
        return stats
    fixed = bool(plan.edges) and not (plan.pairwise or plan.triples)  # no pair table to count
    if not (fixed or stats.holds(plan, moment_keys(schema, plan))):
        return stats
    try:
        sums = node_statistics(stats, schema)
    except ValueError:  # a node without additive sums (kernel density): partial_fit says so
        return stats
    return SufficientStatistics.from_counts(
        stats, schema, plan, model.classes_, schema.categories, sums
    )


def constant_classes(network, classes) -> dict:
    """Column -> the class labels in which its node found no spread (``constant_classes_``)."""
    return {
        factor.columns_[0]: [_plain(classes[c]) for c in factor.constant_classes_]
        for factor in network.factors
        if factor.constant_classes_
    }


def _plain(label):
    """A numpy scalar label as its Python value (for messages)."""
    return label.item() if isinstance(label, np.generic) else label


def class_node_name(y, features) -> str:
    """The class node's name: y's own name when it has one that no feature uses."""
    name = getattr(y, "name", None)
    if not isinstance(name, str) or not name:
        name = "class"
    while name in features:
        name = f"{name}_"
    return name


def _n_rows(X) -> int:
    return X.shape[0] if hasattr(X, "shape") else len(X)
