"""Naive Bayes, TAN and Simpler TAN: the class plus no tree, a CMI tree, or a contact tree."""

from __future__ import annotations

from collections.abc import Hashable
from numbers import Real

import networkx as nx
import numpy as np
import pandas as pd
from sklearn.utils.metaestimators import available_if

from ..data import TableSchema
from ..discriminative import L2
from ..exceptions import InvalidParameterError
from ..factors import DISTRIBUTIONS, Gaussian
from ..network import FittedNetwork
from ..stats import StatisticsPlan
from ..structure import (
    constrained_tree,
    empty_feature_graph,
    name_order,
    orient_constrained,
    structure_root,
)
from ..validation import InstanceOf, Interval, Options, SquareMatrix, float_array
from ..weights import EDGE_SCORES, contact_weights, edge_weights
from ._base import AugmentedNaiveBayes
from ._weighting import (
    AWNB,
    MANB,
    WANBIA,
    WEIGHTINGS,
    apply_weighting,
    reads_rows,
    weighting_needs_positive_alpha,
)


class NaiveBayes(AugmentedNaiveBayes):
    """Naive Bayes: every feature depends on the class alone.

    Categorical features get CPTs; continuous columns (floats, integers with
    more than 20 values) are binned by default, MDL intervals learned in the fit
    (:func:`bnclassify.data.default_kind`); ``distributions="density"`` makes them
    Gaussian, or log-normal when positive and skewed, and ``distributions``
    chooses any node by name: kernel densities, Bernoulli features or multinomial
    groups of count columns (see :mod:`bnclassify.distributions`).

    Parameters
    ----------
    alpha : float, default=1.0
        Dirichlet pseudo-count added to every cell of every CPT and of the
        class prior (1 = Laplace smoothing); at most 1e300
        (:data:`bnclassify.validation.MAX_ALPHA`), beyond which every table is
        uniform and a row's sum would overflow.
    handle_unknown : {"warn", "error", "marginalize"}, default="warn"
        What to do with a category not seen in fit. ``"warn"``: treat the
        cell as missing (summed out exactly) and emit one
        :class:`~bnclassify.exceptions.UnseenCategoryWarning` per call naming
        the columns and counts; ``"marginalize"``: the same, silently;
        ``"error"``: raise an :class:`~bnclassify.exceptions.UnseenCategoryError`.
    distributions : None, str, Distribution or dict, default=None
        How each column is modelled. ``None``: by the rule of
        :func:`bnclassify.data.default_kind` (continuous columns binned: MDL
        intervals learned in the fit, a table over them; everything else a
        categorical CPT). ``"density"``: the same rule with the continuous
        columns Gaussian or log-normal (the default before the switch to bins). A kind's
        name (``"categorical"``, ``"binned"``, ``"gaussian"``, ``"lognormal"``,
        ``"kde"``, ``"bernoulli"``, ``"multinomial"``) or a
        :mod:`bnclassify.distributions` instance applies to every column; a
        dict maps a column (name or position), or a tuple of columns (a
        multinomial group), to one, the other columns by dtype.
    weighting : {None, "awnb", "manb", "wanbia"} or AWNB, MANB, WANBIA, default=None
        R bnclassify's feature weighting (see :mod:`bnclassify.classifiers._weighting`):
        ``"awnb"`` weights from the depth of each feature in bootstrapped
        decision trees, ``"manb"`` each CPT averaged with the feature's
        absence by the posterior of its arc from the class, ``"wanbia"``
        weights that maximise the conditional log-likelihood. An
        :class:`AWNB`, :class:`MANB` or :class:`WANBIA` instance sets their
        options. Categorical features only (continuous ones keep weight 1).
    objective : {"joint", "conditional"}, default="joint"
        ``"joint"``: the parameters maximise the joint likelihood (counting).
        ``"conditional"``: the categorical tables are then refined to maximise
        the conditional log-likelihood of the training rows, L2-regularised
        towards the joint estimates (see :mod:`bnclassify.discriminative`);
        other nodes keep their joint fit.
    l2 : float >= 0 or "cv", default="cv"
        With ``objective="conditional"``: the strength of the pull towards the
        joint estimates, or ``"cv"`` to choose it from
        :data:`~bnclassify.discriminative.L2_GRID` by inner stratified
        cross-validation on the training rows
        (:func:`~bnclassify.discriminative.cross_validated_l2`). Unused otherwise.
    smoothing : {"laplace", "hdp", "hls"} or Smoothing, default="laplace"
        How each categorical table is estimated from its counts (see
        :mod:`bnclassify.parameters` and the user guide's smoothing page). ``"laplace"``:
        ``alpha`` added to every cell. ``"hdp"``: each table backs off to the tables of
        fewer parents by a hierarchical Dirichlet process
        (:class:`~bnclassify.parameters.HDP`, a Gibbs sampler seeded by ``random_state``),
        the hierarchy being the class alone: each table is a two-level tree, the feature's
        marginal above its table given the class. An instance sets a method's options
        (``smoothing=HDP(n_iter=1000)``). The class prior keeps ``alpha``.
        ``"hls"``: the same hierarchy written as a log-linear model, one coefficient per
        node, fitted by ridge-penalised multinomial logistic regression
        (:class:`~bnclassify.parameters.HLS`), its ridge chosen by cross-validation on
        the training rows.
    random_state : int, RandomState instance or None, default=None
        Seeds a smoothing that samples (``"hdp"``); unused otherwise.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    categories_ : list of ndarray
        Categories of each feature, in code order.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X was a DataFrame with string column names.
    structure_ : networkx.DiGraph
        Class node plus feature nodes named by the columns.
    weights_ : None
        Naive Bayes learns no edge weights.
    compiled_ : CompiledNetwork
        Log-probability tables used for prediction (a one-state dummy for
        each non-categorical feature).
    feature_kinds_ : list of str
        How each column is modelled (``"categorical"``, ``"gaussian"``, ...).
    distributions_ : dict
        The fitted densities of the non-categorical features, keyed by column
        name (a tuple of names for a multinomial group); empty when every
        feature is categorical.
    network_ : pgmpy.models.DiscreteBayesianNetwork
        Only when every feature is categorical.
    fit_times_ : dict
        Seconds spent on ``weights``, ``structure`` and ``parameters``.
    feature_weights_ : ndarray of shape (n_features,)
        With a ``weighting``: each feature's weight (MANB: its arc's posterior).
    l2_ : float
        With ``objective="conditional"``: the strength used (the chosen one with ``l2="cv"``).

    Examples
    --------
    >>> from bnclassify import NaiveBayes
    >>> from bnclassify.datasets import load_car
    >>> X, y = load_car(return_X_y=True)
    >>> model = NaiveBayes().fit(X, y)
    >>> model.predict(X.iloc[:2]).tolist()
    ['unacc', 'unacc']

    Iris' float columns are binned by default; as densities they are Gaussian
    (none passes the log-normal test), as in scikit-learn's ``GaussianNB`` with
    ``alpha=0``:

    >>> from sklearn.datasets import load_iris
    >>> iris = load_iris(as_frame=True)
    >>> NaiveBayes().fit(iris.data, iris.target).feature_kinds_
    ['binned', 'binned', 'binned', 'binned']
    >>> gnb = NaiveBayes(alpha=0, distributions="density").fit(iris.data, iris.target)
    >>> gnb.distributions_["petal length (cm)"].mean_
    array([1.462, 4.26 , 5.552])
    """

    #: With a ``weighting``, each feature's fitted weight too.
    _FITTED_FIELDS = {**AugmentedNaiveBayes._FITTED_FIELDS, "feature_weights_": "feature_weights"}
    _parameter_constraints = {
        **AugmentedNaiveBayes._parameter_constraints,
        "distributions": [DISTRIBUTIONS],
        "weighting": [
            None,
            Options(set(WEIGHTINGS)),
            InstanceOf((AWNB, MANB, WANBIA), "an AWNB, MANB or WANBIA instance"),
        ],
        "objective": [Options({"joint", "conditional"})],
        "l2": L2,
    }
    _parameter_rules = (weighting_needs_positive_alpha,)

    def __init__(
        self,
        alpha=1.0,
        handle_unknown="warn",
        distributions=None,
        weighting=None,
        objective="joint",
        l2="cv",
        smoothing="laplace",
        random_state=None,
    ):
        super().__init__(
            alpha=alpha,
            handle_unknown=handle_unknown,
            smoothing=smoothing,
            random_state=random_state,
        )
        self.distributions = distributions
        self.weighting = weighting
        self.objective = objective
        self.l2 = l2

    def _feature_dag(self, weights, features, counts):
        return empty_feature_graph(features)

    def _fit_statistics(self, stats, schema, classes, class_node, structure, keep):
        super()._fit_statistics(stats, schema, classes, class_node, structure, keep)
        apply_weighting(self, stats, float(self.alpha))
        return self

    @available_if(lambda self: not reads_rows(self.weighting) and self.objective == "joint")
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        # AWNB and WANBIA read the rows, which accumulated statistics do not keep
        return super().partial_fit(X, y, classes, sample_weight)

    partial_fit.__doc__ = AugmentedNaiveBayes.partial_fit.__doc__

    def statistics_plan(self, schema=None) -> StatisticsPlan:
        return StatisticsPlan()  # no structure: N(c, x_i) and per-class moments suffice

    @classmethod
    def from_parameters(
        cls, class_prior, means, stds, *, classes=None, feature_names=None, class_name="class"
    ):
        """A fitted Gaussian naive Bayes with the given parameters, no training data needed.

        For teaching: reproduce a worked example from its published priors,
        means and standard deviations.

        Parameters
        ----------
        class_prior : array-like of shape (n_classes,)
            P(c); must sum to 1.
        means, stds : array-like or DataFrame of shape (n_classes, n_features)
            Per-class means and standard deviations (> 0). A DataFrame's index
            gives the classes and its columns the feature names.
        classes : array-like of shape (n_classes,), optional
            Class labels (default ``0 .. n_classes-1``).
        feature_names : list of str, optional
            Column names; when given, ``predict`` also accepts DataFrames with
            these columns.
        class_name : str, default="class"
            Name of the class node in ``structure_``.

        Returns
        -------
        NaiveBayes
            Fitted; ``distributions_`` holds one :class:`~bnclassify.distributions.Gaussian`
            per feature.

        Examples
        --------
        A disease/control example with two Gaussian features:

        >>> model = NaiveBayes.from_parameters(
        ...     class_prior=[0.7542088, 0.2457912],
        ...     means=[[3.7338882, 2.7163842], [4.0007477, 2.8384269]],
        ...     stds=[[0.1757146, 0.1019839], [0.2523813, 0.0969595]],
        ...     classes=["control", "disease"],
        ... )
        >>> model.predict_proba([[3.7930077, 2.5993371]]).round(7)
        array([[0.9836423, 0.0163577]])
        """
        return _gaussian_naive_bayes(
            cls(), class_prior, means, stds, classes, feature_names, class_name
        )


def _gaussian_naive_bayes(model, class_prior, means, stds, classes, feature_names, class_name):
    """Make ``model`` (an unfitted NaiveBayes) a fitted Gaussian naive Bayes with these values."""
    if isinstance(means, pd.DataFrame):
        classes = list(means.index) if classes is None else classes
        feature_names = list(means.columns) if feature_names is None else feature_names
    means = np.asarray(means, dtype=float)
    stds = np.asarray(stds, dtype=float)
    prior = float_array(class_prior, "class_prior")
    if means.ndim != 2 or stds.shape != means.shape:
        raise InvalidParameterError(
            "means and stds must both have shape (n_classes, n_features); got "
            f"{means.shape} and {stds.shape}."
        )
    n_classes, m = means.shape
    if prior.shape != (n_classes,):
        raise InvalidParameterError(
            f"class_prior must have {n_classes} entries, got shape {prior.shape}."
        )
    if (prior < 0).any() or not np.isclose(prior.sum(), 1.0, atol=1e-6):
        raise InvalidParameterError(f"class_prior must be >= 0 and sum to 1, got {prior.tolist()}.")
    if not (np.isfinite(means).all() and np.isfinite(stds).all() and (stds > 0).all()):
        raise InvalidParameterError("means must be finite and stds finite and > 0.")
    classes = np.arange(n_classes) if classes is None else np.asarray(classes)
    if len(classes) != n_classes:
        raise InvalidParameterError(f"{len(classes)} classes given for {n_classes} rows of means.")
    named = feature_names is not None
    names = [str(f) for f in feature_names] if named else [f"x{j}" for j in range(m)]
    if len(names) != m:
        raise InvalidParameterError(f"{len(names)} feature names given for {m} columns of means.")
    factors = [Gaussian.from_moments(means[:, j], stds[:, j] ** 2, j, names) for j in range(m)]
    schema = TableSchema(names, [((j,), f) for j, f in enumerate(factors)], [None] * m, named)
    with np.errstate(divide="ignore"):
        log_prior = np.log(prior / prior.sum())
    network = FittedNetwork(log_prior, [()] * m, factors)
    model.set_fitted_network(
        network, schema, classes, empty_feature_graph(names), class_node=class_name
    )
    return model


#: A feature given by name or position (which ones exist is known with the data).
ROOT = InstanceOf(Hashable, "a feature name or position")
#: A contact matrix: a square matrix, or a callable making one from the feature names.
CONTACT_MATRIX = ["callable", SquareMatrix()]


def _contact_prior_needs_matrix(params):
    if params["contact_prior"] > 0 and params["contact_matrix"] is None:
        return "contact_prior > 0 needs a contact_matrix (n_features x n_features)."
    return None


def _simpler_tan_needs_matrix(params):
    if params["contact_matrix"] is None:
        return (
            "contact_matrix is None, but the tree of a Simpler TAN is the contact matrix's: "
            "it needs a contact_matrix (n_features x n_features)."
        )
    return None


class TreeAugmented(AugmentedNaiveBayes):
    """A maximum spanning tree of ``weights_`` over the features, rooted at ``root``.

    Subclasses say how the weights are computed (:meth:`tree_weights`) and, if
    not a spanning tree, how the undirected tree or forest is built from them
    (:meth:`spanning_tree`). An ensemble whose members differ only in their root
    computes both once and hands each member the tree
    (``fit_statistics(..., tree=(weights, tree))``), which only orients it.
    """

    #: Whether the feature DAG is the tree of :meth:`spanning_tree` oriented from ``root``
    #: (an ensemble may then share one tree between rootings); a subclass that builds its
    #: DAG another way sets it to False.
    orients_spanning_tree = True
    _parameter_constraints = {
        **AugmentedNaiveBayes._parameter_constraints,
        "root": [None, ROOT],
        "distributions": [DISTRIBUTIONS],
        "objective": [Options({"joint", "conditional"})],
        "l2": L2,
    }

    def __init__(
        self,
        alpha=1.0,
        root=None,
        handle_unknown="warn",
        distributions=None,
        objective="joint",
        l2="cv",
        smoothing="laplace",
        random_state=None,
    ):
        super().__init__(
            alpha=alpha,
            handle_unknown=handle_unknown,
            smoothing=smoothing,
            random_state=random_state,
        )
        self.root = root
        self.distributions = distributions
        self.objective = objective
        self.l2 = l2

    def tree_weights(self, stats, schema) -> pd.DataFrame:
        """The symmetric feature x feature weights whose maximum spanning tree is taken.

        Parameters
        ----------
        stats : bnclassify.stats.Statistics
        schema : bnclassify.data.TableSchema

        Returns
        -------
        DataFrame of shape (n_features, n_features)
        """
        raise NotImplementedError

    def spanning_tree(self, weights, schema) -> nx.Graph:
        """The undirected tree (or forest) over the features, from :meth:`tree_weights`.

        The best tree under the kind rule (see :func:`bnclassify.structure.constrained_tree`).
        """
        return _by_name(constrained_tree, weights, schema)

    def fit_statistics(
        self, stats, schema, classes, *, class_node="class", structure=None, keep=False, tree=None
    ):
        """As :meth:`AugmentedNaiveBayes.fit_statistics`; ``tree=(weights, undirected tree)``
        (both from the same statistics) is oriented from ``root`` instead of learned."""
        if tree is not None and structure is None:
            weights, undirected = tree
            structure = (weights, self._oriented(undirected, schema))
        return super().fit_statistics(
            stats, schema, classes, class_node=class_node, structure=structure, keep=keep
        )

    def _edge_weights(self, stats, features):
        return self.tree_weights(stats, self.schema_)

    def _feature_dag(self, weights, features, stats):
        return self._oriented(self.spanning_tree(weights, self.schema_), self.schema_)

    def _oriented(self, tree, schema):
        # the default root and the rooting of further components are decided on the columns in
        # name order, so neither depends on where a column sits in the table
        discrete, structural = schema.discrete.tolist(), schema.structural.tolist()
        if self.root is None:
            order = name_order(schema.names)
            root = structure_root(
                None,
                [schema.names[k] for k in order],
                [discrete[k] for k in order],
                [structural[k] for k in order],
            )
        else:  # a position refers to the table's columns
            root = structure_root(self.root, schema.names, discrete, structural)
        return orient_constrained(tree, schema.names, discrete, root, rank=_name_rank(schema))


def _name_rank(schema) -> np.ndarray:
    """Each column's place in :func:`name_order`: what breaks ties, not where it sits."""
    rank = np.empty(len(schema.names), dtype=np.int64)
    rank[name_order(schema.names)] = np.arange(len(schema.names))
    return rank


def _by_name(build, weights, schema, **options):
    """``build(weights, names, discrete, structural, rank=...)`` with the columns ranked by
    name: ties in the spanning tree break by column name, not by position (the weights are
    not copied into name order)."""
    values = np.asarray(weights, dtype=float)
    return build(
        values,
        schema.names,
        schema.discrete.tolist(),
        schema.structural.tolist(),
        rank=_name_rank(schema),
        **options,
    )


# criterion -> the edge score whose maximum *spanning* tree it takes (no edge dropped)
_SPANNING_SCORES = {"aic_tree": "aic"}
TREE_CRITERIA = (*_SPANNING_SCORES, *EDGE_SCORES)


class TAN(TreeAugmented):
    """Tree-augmented naive Bayes (Friedman, Geiger and Goldszmidt 1997), with
    penalised Chow-Liu forests and an optional contact prior.

    By default the feature tree is Friedman, Geiger and Goldszmidt's: the
    maximum spanning tree of the conditional mutual information
    ``I(X_i; X_j | C)`` (Chow-Liu conditioned on the class;
    ``criterion="loglik"``, R bnclassify's ``tan_cl()`` and pgmpy's
    ``TreeSearch(estimator_type="tan")`` tree), oriented away from ``root``.
    The plain information of a pair grows with the number of its cells, so
    on a few hundred rows a many-valued feature (a 10-level ``purpose``) can
    win every pair and become the parent of most features, each child's
    table then split into small (class, parent-state) groups.
    ``criterion="aic_tree"`` takes instead the spanning tree that maximises
    AIC, of each pair's penalised gain
    ``N I(X_i; X_j | C) - K (r_i - 1)(r_j - 1)`` (``K`` classes, ``r_i``
    categories of ``X_i``, ``N`` rows), so that such a parent pays
    for its parameters (see the user guide's structures page for its
    measured effect on a credit-like table). The two trees are the same when
    every pair has the same penalty and is counted on the same rows (all
    features with the same number of categories and no missing cells).

    **Penalised forests.** With ``criterion="aic"`` or ``"bic"`` each pair's weight is the
    gain in penalised log-likelihood of an arc between them (see
    :func:`~bnclassify.structure.edge_gains`): ``N I(X_i; X_j | C) - df`` or
    ``N I(X_i; X_j | C) - df log(N) / 2`` with ``df = K (r_i - 1)(r_j - 1)``;
    only edges whose penalised gain is positive are kept, so the result can
    be a forest (each further component is rooted at its first feature in
    name order, :func:`bnclassify.structure.name_order`). This
    is R bnclassify's ``tan_cl(score=...)``; the parameter is not called
    ``score`` because scikit-learn estimators have a ``score`` method.

    **Contact prior.** With a ``contact_matrix`` and ``contact_prior = lambda > 0``
    the tree is the maximum a posteriori tree under the structure prior

        log P(tree) = lambda * sum over edges (i, j) of c_ij / max c + const,

    where ``c`` is the contact matrix and ``max c`` its largest off-diagonal
    entry: an edge between the most-touching features earns ``lambda`` nats
    of prior, an edge between features that do not touch earns none. Each
    pair's weight is then its log-likelihood gain plus its prior term,
    ``N_ij I(X_i; X_j | C) - penalty_ij + lambda c_ij / max c`` (nats), and the
    tree maximises log-likelihood + log-prior. ``lambda = 0`` is TAN's tree;
    as ``lambda`` grows the contacts dominate and the tree becomes Simpler
    TAN's (:class:`SimplerTAN`), with ties between equal contacts broken by
    the data instead of by column order.

    **Continuous features (Gaussian TAN).** Continuous columns are binned by
    default (tables like the categorical ones); with ``distributions="density"``
    they are Gaussian, or log-normal (a Gaussian on ``log x``), by the kinds rule,
    and ``"gaussian"`` makes every column Gaussian (see ``distributions``).
    A Gaussian feature with a Gaussian
    parent is the conditional linear Gaussian
    ``X_i | c, x_p ~ N(a_ic + b_ic x_p, s_ic^2)``, fitted by per-class least
    squares; with a categorical parent, one Gaussian per (class, parent
    state). Pairs of Gaussian features weigh the Gaussian CMI
    ``-1/2 sum_c P(c) log(1 - rho_c^2)``; a categorical and a Gaussian
    feature weigh the log-likelihood gain of one Gaussian per (class,
    category). A categorical feature never gets a continuous parent: the
    tree is the best one in which the categorical features form a connected
    subtree holding the root (by default the first categorical feature in
    name order, see :func:`bnclassify.structure.name_order`), so
    every mixed arc points from the categorical to the Gaussian end. Kernel
    density, Bernoulli and multinomial features depend on the class only.
    Missing Gaussian values, parents included, are integrated out exactly
    (see :class:`~bnclassify.distributions.Gaussian`).

    Parameters
    ----------
    alpha : float, default=1.0
        Dirichlet pseudo-count for every CPT cell and the class prior.
    root : str or int, optional
        Root of the tree: a feature name or position (default: the first
        categorical feature in name order, :func:`bnclassify.structure.name_order`,
        so that the column order of the table never changes the model).
    criterion : {"loglik", "aic_tree", "aic", "bic"}, default="loglik"
        The structure score. ``"loglik"`` and ``"aic_tree"`` always give a
        spanning tree, of the plain conditional mutual information (the
        textbook TAN, R bnclassify's and pgmpy's tree) and of AIC-penalised
        gains respectively; ``"aic"`` and ``"bic"`` keep only the edges
        that pay for their parameters (a forest).
    contact_matrix : DataFrame, array of shape (n_features, n_features) or callable, optional
        Prior belief about which features interact, as in :class:`SimplerTAN`;
        used only when ``contact_prior > 0``.
    contact_prior : float, default=0.0
        ``lambda`` above, in nats: how much the contacts count against the data.
    handle_unknown : {"warn", "error", "marginalize"}, default="warn"
    distributions : None, str, Distribution or dict, default=None
        How each column is modelled, as in :class:`NaiveBayes` (default:
        continuous columns binned, the others categorical; ``"density"``:
        continuous columns Gaussian or log-normal).
    objective : {"joint", "conditional"}, default="joint"
        As in :class:`NaiveBayes`: ``"conditional"`` refines the categorical
        tables for the conditional log-likelihood (a concave problem for a
        tree; see :mod:`bnclassify.discriminative`).
    l2 : float >= 0 or "cv", default="cv"
        As in :class:`NaiveBayes`.
    smoothing : {"laplace", "hdp", "hls"} or Smoothing, default="laplace"
        How each categorical table is estimated from its counts (see
        :mod:`bnclassify.parameters` and the user guide's smoothing page). ``"laplace"``:
        ``alpha`` added to every cell. ``"hdp"``: each table backs off to the tables of
        fewer parents by a hierarchical Dirichlet process
        (:class:`~bnclassify.parameters.HDP`, a Gibbs sampler seeded by ``random_state``),
        the hierarchy being the class, then the feature's one tree parent. An instance sets
        a method's options (``smoothing=HDP(n_iter=1000)``). The class prior keeps
        ``alpha``.
        ``"hls"``: the same hierarchy written as a log-linear model, one coefficient per
        node, fitted by ridge-penalised multinomial logistic regression
        (:class:`~bnclassify.parameters.HLS`), its ridge chosen by cross-validation on
        the training rows.
    random_state : int, RandomState instance or None, default=None
        Seeds a smoothing that samples (``"hdp"``); unused otherwise.

    Attributes
    ----------
    weights_ : DataFrame of shape (n_features, n_features)
        With ``criterion="loglik"`` (the default) and no prior,
        I(X_i; X_j | C) in nats per row, as
        :func:`~bnclassify.conditional_mutual_information`
        computes it; otherwise each pair's (penalised) gain plus prior term,
        in nats, the weights the tree or forest maximises.
    structure_, compiled_, network_, classes_, categories_, fit_times_
        As in :class:`NaiveBayes`.
    feature_kinds_, distributions_
        As in :class:`NaiveBayes`; a Gaussian's ``parents_``, ``intercept_``,
        ``coef_`` and ``var_`` hold its conditional linear Gaussian.

    See Also
    --------
    SimplerTAN : the tree of the contact matrix alone.
    bnclassify.structure.forest_from_weights : the forest step.

    Examples
    --------
    >>> from bnclassify import TAN
    >>> from bnclassify.datasets import load_p450
    >>> X, y = load_p450(return_X_y=True)
    >>> model = TAN().fit(X, y)
    >>> sorted(model.structure_.successors("block7"))
    ['block2', 'block5', 'block6', 'block8']
    >>> aic = TAN(criterion="aic_tree").fit(X, y)  # binary blocks: the same penalty per pair
    >>> sorted(aic.structure_.edges) == sorted(model.structure_.edges)
    True
    >>> forest = TAN(criterion="bic").fit(X, y)
    >>> [arc for arc in forest.structure_.edges() if arc[0] != forest.class_node_]
    [('block1', 'block7'), ('block7', 'block8')]

    Gaussian TAN on float columns (by default they are binned):

    >>> from sklearn.datasets import load_iris
    >>> iris = load_iris(as_frame=True)
    >>> gtan = TAN(distributions="density").fit(iris.data, iris.target)
    >>> g = gtan.distributions_["petal width (cm)"]
    >>> g.parents_, g.coef_.shape  # one slope on its parent per class
    (('petal length (cm)',), (3, 1))
    """

    _parameter_constraints = {
        **TreeAugmented._parameter_constraints,
        "criterion": [Options(TREE_CRITERIA)],
        "contact_matrix": [None, *CONTACT_MATRIX],
        "contact_prior": [Interval(Real, 0, None, closed="left")],
    }
    _parameter_rules = (_contact_prior_needs_matrix,)

    def __init__(
        self,
        alpha=1.0,
        root=None,
        criterion="loglik",
        contact_matrix=None,
        contact_prior=0.0,
        handle_unknown="warn",
        distributions=None,
        objective="joint",
        l2="cv",
        smoothing="laplace",
        random_state=None,
    ):
        super().__init__(
            alpha=alpha,
            root=root,
            handle_unknown=handle_unknown,
            distributions=distributions,
            objective=objective,
            l2=l2,
            smoothing=smoothing,
            random_state=random_state,
        )
        self.criterion = criterion
        self.contact_matrix = contact_matrix
        self.contact_prior = contact_prior

    def tree_weights(self, stats, schema) -> pd.DataFrame:
        prior = float(self.contact_prior)
        score = _SPANNING_SCORES.get(self.criterion, self.criterion)
        scored = score != "loglik" or prior > 0
        return edge_weights(
            stats,
            schema,
            criterion=score if scored else None,
            contacts=(
                contact_weights(self.contact_matrix, schema.names, schema.labels)
                if prior > 0
                else None
            ),
            contact_prior=prior,
        )

    def spanning_tree(self, weights, schema) -> nx.Graph:
        forest = self.criterion not in ("loglik", *_SPANNING_SCORES)
        return _by_name(constrained_tree, weights, schema, forest=forest)


class SimplerTAN(TreeAugmented):
    """Simpler TAN: the tree is the maximum spanning tree of a contact matrix.

    Skips the conditional mutual information step of :class:`TAN`: the
    structure comes from side information (e.g. which protein blocks touch),
    so fitting costs one pass of family counts.

    Parameters
    ----------
    contact_matrix : DataFrame, array of shape (n_features, n_features) or callable
        Symmetric, non-negative edge weights. A DataFrame is matched to the
        columns by its labels; an array must be in column order. A callable
        is called at fit time with the list of feature names and must return
        such a matrix (useful when the columns are chosen inside a pipeline).
    alpha : float, default=1.0
    root : str or int, optional
        Root of the tree (default: the first categorical feature in name order,
        as in :class:`TAN`; the column order of the table never changes the model).
    handle_unknown : {"warn", "error", "marginalize"}, default="warn"
    distributions : None, str, Distribution or dict, default=None
        How each column is modelled, as in :class:`NaiveBayes`; continuous
        features follow :class:`TAN`'s rules.
    objective : {"joint", "conditional"}, default="joint"
        As in :class:`NaiveBayes`.
    l2 : float >= 0 or "cv", default="cv"
        As in :class:`NaiveBayes`.
    smoothing : {"laplace", "hdp", "hls"} or Smoothing, default="laplace"
        How each categorical table is estimated from its counts (see
        :mod:`bnclassify.parameters` and the user guide's smoothing page). ``"laplace"``:
        ``alpha`` added to every cell. ``"hdp"``: each table backs off to the tables of
        fewer parents by a hierarchical Dirichlet process
        (:class:`~bnclassify.parameters.HDP`, a Gibbs sampler seeded by ``random_state``),
        the hierarchy being the class, then the feature's one tree parent. An instance sets
        a method's options (``smoothing=HDP(n_iter=1000)``). The class prior keeps
        ``alpha``.
        ``"hls"``: the same hierarchy written as a log-linear model, one coefficient per
        node, fitted by ridge-penalised multinomial logistic regression
        (:class:`~bnclassify.parameters.HLS`), its ridge chosen by cross-validation on
        the training rows.
    random_state : int, RandomState instance or None, default=None
        Seeds a smoothing that samples (``"hdp"``); unused otherwise.

    Attributes
    ----------
    weights_ : DataFrame
        The contact matrix, labelled and ordered like the columns.

    See Also
    --------
    bnclassify.contacts.contact_matrix_from_structure :
        The contact matrix from a PDB or mmCIF file and the blocks' residues.
    bnclassify.chimeras.residue_blocks :
        Block boundaries given in alignment positions, as a structure's residues.
    bnclassify.chimeras.block_table :
        Chimera strings (``"13221331"``) as the table of blocks ``fit`` reads.

    Examples
    --------
    >>> from bnclassify import SimplerTAN
    >>> from bnclassify.datasets import load_p450
    >>> p450 = load_p450()
    >>> model = SimplerTAN(p450.contact_matrix).fit(p450.data, p450.target)
    >>> sorted(model.structure_.successors("block1"))
    ['block7']
    """

    _parameter_constraints = {
        **TreeAugmented._parameter_constraints,
        "contact_matrix": [None, *CONTACT_MATRIX],
    }
    _parameter_rules = (_simpler_tan_needs_matrix,)

    def __init__(
        self,
        contact_matrix=None,
        alpha=1.0,
        root=None,
        handle_unknown="warn",
        distributions=None,
        objective="joint",
        l2="cv",
        smoothing="laplace",
        random_state=None,
    ):
        super().__init__(
            alpha=alpha,
            root=root,
            handle_unknown=handle_unknown,
            distributions=distributions,
            objective=objective,
            l2=l2,
            smoothing=smoothing,
            random_state=random_state,
        )
        self.contact_matrix = contact_matrix

    def tree_weights(self, stats, schema) -> pd.DataFrame:
        return contact_weights(self.contact_matrix, schema.names, schema.labels)

    def spanning_tree(self, weights, schema) -> nx.Graph:
        """The contact matrix's maximum spanning tree (see ``TreeAugmented``), with the
        arcs of every column no training row observed cut out (a forest): such a column
        carries no information, and the families left are the contact tree's own, which
        are what an incremental fit keeps (:meth:`statistics_plan`)."""
        tree = super().spanning_tree(weights, schema.with_unobserved(()))
        unobserved = [schema.names[j] for j in schema.unobserved]
        tree.remove_edges_from(list(tree.edges(unobserved)))
        return tree

    def statistics_plan(self, schema=None) -> StatisticsPlan:
        """The families of the contact tree alone: the tree comes from the contact matrix,
        not the data, so an incremental fit keeps the counts (or Gaussian moments) of its
        own arcs and the class counts, never a pair table or the rows."""
        if schema is None:  # the kinds are not known yet: any tree's families
            return super().statistics_plan(schema)
        if schema is getattr(self, "schema_", None) and hasattr(self, "compiled_"):
            # fitted on this schema: its network's parents are the contact tree's
            parents_of = self.compiled_.parents
            return StatisticsPlan(
                edges=tuple((p[0], child) for child, p in enumerate(parents_of) if p)
            )
        dag = self._oriented(self.spanning_tree(self.tree_weights(None, schema), schema), schema)
        position = {name: k for k, name in enumerate(schema.names)}
        return StatisticsPlan(edges=tuple((position[u], position[v]) for u, v in dag.edges))
