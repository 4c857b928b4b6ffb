"""R bnclassify's wrapper learners: greedy structure search scored by inner-CV accuracy.

``TANHC`` (R's ``tan_hc``), ``TANHCSP`` (``tan_hcsp``), ``FSSJ`` (``fssj``),
``BSEJ`` (``bsej``) and ``KDBHC`` (``kdb``): the search is in
:mod:`bnclassify.classifiers._search`, the final model is fitted like any other
:class:`~bnclassify.classifiers.AugmentedNaiveBayes` from the found structure.
"""

from __future__ import annotations

import numbers
from functools import partial

import networkx as nx
import numpy as np
import pandas as pd
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from ..factors import DISTRIBUTIONS
from ..structure import name_order
from ..validation import RANDOM_STATE, Interval, validate_parameters
from ._adapter import encode_training, fit_structure, make_class_independent, search_table
from ._base import AugmentedNaiveBayes, class_node_name
from ._search import (
    FoldScorer,
    augment_kdb,
    augment_ode,
    augment_ode_sp,
    bsej_step,
    fssj_step,
    greedy_search,
    stratified_folds,
)

#: Smallest pseudo-count of the inner models (alpha=0 would make unseen cells log 0).
MIN_INNER_ALPHA = 1e-10

_WRAPPER_DOC = """
    The score of a structure is R bnclassify's: the mean over ``cv`` fixed
    stratified inner folds of the accuracy on the fold of the model fitted to the
    other folds (smoothed with ``alpha``). The search starts from {start}; at each
    step every candidate is scored, and the best is accepted when its score minus
    ``epsilon`` is at least the current score (and the current score is below 1);
    otherwise the search stops. The search sees the columns in the order of
    their names (:func:`bnclassify.structure.name_order`: ``block2`` before
    ``block10``), never in the table's order, and ties go to the first
    candidate in the order the moves are listed over those names, where R
    picks one at random.

    The folds' statistics are the full counts minus the fold's own, every
    family's per-row terms are computed once, and a candidate is scored by
    swapping the terms of the families it changes: no candidate refits from rows.

    Categorical and binned columns (binned: the default for numbers) take part
    in every move. Gaussian and log-normal columns are scored as children of the
    class alone (their per-class mean and variance
    on the training folds): they can be added and removed, but never joined or
    given feature arcs; other kinds (kernel densities, Bernoulli, multinomial
    groups) are refused. Missing cells are summed out for a missing child; a
    family with a missing parent scores its child by the class alone (the final
    model sums missing cells out exactly).

    A feature the search leaves out keeps its node, refitted independent of the
    class (its CPT rows, or densities, equal in every class), so it changes no
    prediction and the model is still a joint distribution over all columns;
    ``selected_features_`` lists the others.

    Parameters
    ----------
{extra}    cv : int, default=5
        Inner folds (R's ``k``).
    epsilon : float, default=0.01
        Smallest improvement of the inner accuracy that continues the search.
    alpha : float, default=1.0
        Dirichlet pseudo-count of the final parameters and of the inner models
        (R's ``smooth``, whose default there is 0).
    random_state : int, RandomState or None, default=None
        Seeds the inner folds, and a smoothing that samples.
    handle_unknown : {{"warn", "error", "marginalize"}}, default="warn"
    distributions : None, str, Distribution or dict, default=None
        How each column is modelled, as in :class:`NaiveBayes`.
    smoothing : {{"laplace", "hdp", "hls"}} or Smoothing, default="laplace"
        How the final model's categorical tables are estimated (see
        :class:`KDB`); the search scores its candidates with ``alpha`` (a
        hierarchical smoothing per candidate would cost a sampler run each).
        The hierarchy of a table is the class, then the feature's parents in
        the order of their names (the search's order). A feature the search
        leaves out keeps its additive, class-independent table.

    Attributes
    ----------
    search_path_ : DataFrame
        Every accepted move (``step``, ``move``, ``score``), the start included;
        made from ``search_moves_`` (list of str) and ``search_scores_`` (ndarray).
    selected_features_ : list of str
        The features the final structure keeps.
    n_candidates_ : int
        Candidate structures scored.
    structure_, compiled_, classes_, categories_, fit_times_
        As in :class:`NaiveBayes`.
"""


class GreedyWrapper(AugmentedNaiveBayes):
    """Base of the wrappers: subclasses give the start and the step of the search.

    A subclass's docstring is its summary and its examples; the description of the
    search, the parameters and the attributes every wrapper shares are inserted
    before its ``Examples`` (from :attr:`search_start` and :attr:`extra_parameters`).
    """

    #: How the search starts, in the docstring.
    search_start = "naive Bayes over every feature"
    #: numpydoc lines of a subclass's own parameters, listed before the shared ones.
    extra_parameters = ""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        summary, examples = cls.__doc__.split("\n    Examples\n", 1)
        shared = _WRAPPER_DOC.format(start=cls.search_start, extra=cls.extra_parameters)
        cls.__doc__ = f"{summary}{shared}\n    Examples\n{examples}"

    _parameter_constraints = {
        **AugmentedNaiveBayes._parameter_constraints,
        "cv": [Interval(numbers.Integral, 2, None, closed="left")],
        "epsilon": [Interval(numbers.Real, 0, None, closed="left")],
        "random_state": RANDOM_STATE,
        "distributions": [DISTRIBUTIONS],
    }
    #: Beyond a network's fitted fields: what the search found and how it got there.
    _FITTED_FIELDS = {
        **AugmentedNaiveBayes._FITTED_FIELDS,
        "selected_features_": "selected_features",
        "search_moves_": "search_moves",
        "search_scores_": "search_scores",
        "n_candidates_": "n_candidates",
    }

    def __init__(
        self,
        cv=5,
        epsilon=0.01,
        alpha=1.0,
        random_state=None,
        handle_unknown="warn",
        distributions=None,
        smoothing="laplace",
    ):
        super().__init__(
            alpha=alpha,
            handle_unknown=handle_unknown,
            smoothing=smoothing,
            random_state=random_state,
        )
        self.cv = cv
        self.epsilon = epsilon
        self.distributions = distributions

    # -- what subclasses define ------------------------------------------------------
    def initial_structure(self, n_features) -> dict:
        """The search's first structure, ``{feature position: parent positions}``.

        Naive Bayes over every feature (R's ``nb``) unless the wrapper says otherwise.
        """
        return {j: () for j in range(n_features)}

    def candidate_moves(self, n_features, categorical):
        """The search's step: ``step(structure, total, scorer, names)`` -> candidates.

        ``categorical`` says which columns may take part in arcs and joins.
        """
        moves = self.moves(n_features)
        return lambda s, total, sc, names: moves(s, total, sc, names, categorical)

    def moves(self, n_features):
        """The candidate generator ``(structure, total, scorer, names, categorical)``."""
        raise NotImplementedError

    # -- fitting -------------------------------------------------------------------------
    @property
    def partial_fit(self):
        # the search reads the rows; accumulated statistics cannot redo it
        raise AttributeError(
            f"{type(self).__name__} has no partial_fit: its structure search scores rows "
            "by inner cross-validation; fit it on all the rows."
        )

    def fit(self, X, y):
        """Search the structure by inner-CV accuracy, then fit its parameters.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        validate_parameters(self)
        n_folds, epsilon, alpha = int(self.cv), float(self.epsilon), float(self.alpha)
        counts, schema, classes = encode_training(self, X, y)
        features = list(schema.names)
        codes, y_codes, cards, n_classes, values, continuous = search_table(counts, schema)
        # the search sees the columns in name order, so that its ties (equal inner-CV
        # accuracies are common) are decided by the names, not by the table's order; a
        # column with no observed value is left out of it (and of the model)
        order = [k for k in name_order(features) if k not in schema.unobserved]
        order = np.asarray(order, dtype=np.intp)
        codes, cards, continuous = codes[:, order], np.asarray(cards)[order], continuous[order]
        values = None if values is None else values[:, order]
        rng = check_random_state(self.random_state)
        folds = stratified_folds(y_codes, n_folds, rng)
        scorer = FoldScorer(
            codes,
            y_codes,
            cards,
            n_classes,
            folds,
            max(alpha, MIN_INNER_ALPHA),
            values=values,
            continuous=continuous,
        )
        result = greedy_search(
            scorer,
            self.initial_structure(len(order)),
            self.candidate_moves(len(order), ~continuous),
            epsilon,
            [features[k] for k in order],
        )
        found = {
            int(order[child]): tuple(int(order[p]) for p in parents)
            for child, parents in result.structure.items()
        }
        dag = nx.DiGraph()
        dag.add_nodes_from(features)
        for child, parents in sorted(found.items()):  # parents in the search's (name) order
            dag.add_edges_from((features[p], features[child]) for p in parents)
        fit_structure(self, counts, schema, classes, class_node_name(y, features), dag)
        make_class_independent(
            self, counts, [j for j in range(len(features)) if j not in found], alpha
        )
        self.selected_features_ = [f for j, f in enumerate(features) if j in found]
        self.search_moves_ = [move for _, move, _ in result.path]
        self.search_scores_ = np.array([score for _, _, score in result.path])
        self.n_candidates_ = int(result.n_evaluated)
        return self

    @property
    def search_path_(self) -> pd.DataFrame:
        """Every accepted move, the start included: ``step``, ``move`` and ``score``."""
        check_is_fitted(self, "search_moves_")
        return pd.DataFrame(
            {
                "step": np.arange(len(self.search_moves_)),
                "move": self.search_moves_,
                "score": self.search_scores_,
            }
        )

    def _feature_dag(self, weights, features, stats):
        raise TypeError(
            f"{type(self).__name__} learns its structure by its own search (fit); "
            "fit_statistics needs that structure given."
        )


class TANHC(GreedyWrapper):
    """Hill-climbing tree-augmented naive Bayes (Keogh and Pazzani 2002; R's ``tan_hc``).

    Each step adds the arc that most improves the inner-CV accuracy among the
    arcs that keep every feature at most one feature parent and the graph
    acyclic: from any feature to a feature without feature parents (an orphan);
    between two orphans only the arc from the later column to the earlier is
    tried, as R does (the two directions are Markov equivalent, but with
    smoothing they score differently); "later" is in the order of the column
    names, which the search uses throughout. The result is a forest (possibly
    naive Bayes).

    Examples
    --------
    >>> from bnclassify import TANHC
    >>> from bnclassify.datasets import load_car
    >>> X, y = load_car(return_X_y=True)
    >>> model = TANHC(random_state=0).fit(X, y)
    >>> model.search_path_.move.iloc[0], model.search_path_.score.is_monotonic_increasing
    ('start', True)
    """

    def moves(self, n_features):
        return augment_ode


class TANHCSP(GreedyWrapper):
    """Hill-climbing super-parent TAN (Keogh and Pazzani 2002; R's ``tan_hcsp``).

    Each step first picks the super-parent: the feature whose arcs to every
    orphan it may take as a child (not itself, not an ancestor) give the best
    inner-CV accuracy; the candidates then add one of those arcs each.

    Examples
    --------
    >>> from bnclassify import TANHCSP
    >>> from bnclassify.datasets import load_car
    >>> X, y = load_car(return_X_y=True)
    >>> model = TANHCSP(random_state=0).fit(X, y)
    >>> all(len(p) <= 1 for p in model.describe().parents)  # a forest, as TAN-HC's
    True
    """

    def moves(self, n_features):
        return augment_ode_sp


class FSSJ(GreedyWrapper):
    """Forward sequential selection and joining (Pazzani 1996; R's ``fssj``).

    Starts from the class alone; each step adds a feature not yet included,
    either on its own (a child of the class) or joined to one of the current
    supernodes (the connected groups of features), which makes it a child of
    every feature of the supernode: as in R, a joined (Cartesian-product) node
    is a clique of features. Joins are among categorical columns only.

    Examples
    --------
    >>> from bnclassify import FSSJ
    >>> from bnclassify.datasets import load_car
    >>> X, y = load_car(return_X_y=True)
    >>> model = FSSJ(random_state=0).fit(X, y)
    >>> list(model.search_path_.move)  # no single feature beats the majority class by 0.01
    ['start']
    """

    search_start = "the class alone"

    def initial_structure(self, n_features):
        return {}

    def moves(self, n_features):
        return partial(fssj_step, features=list(range(n_features)))


class BSEJ(GreedyWrapper):
    """Backward sequential elimination and joining (Pazzani 1996; R's ``bsej``).

    Starts from naive Bayes; each step removes a feature or merges two
    supernodes (every feature of the first becomes a child of every feature of
    the second, so the two become one clique, a Cartesian-product node).

    Examples
    --------
    >>> from bnclassify import BSEJ
    >>> from bnclassify.datasets import load_car
    >>> X, y = load_car(return_X_y=True)
    >>> model = BSEJ(random_state=0).fit(X, y)
    >>> set(model.selected_features_) <= set(X.columns), model.search_path_.move.iloc[0]
    (True, 'start')
    """

    def moves(self, n_features):
        return bsej_step


class KDBHC(GreedyWrapper):
    """Hill-climbing k-dependence Bayesian classifier (R's ``kdb``).

    Each step adds the arc that most improves the inner-CV accuracy among the
    new arcs into a feature with fewer than ``k`` feature parents that keep the
    graph acyclic.

    Examples
    --------
    >>> from bnclassify import KDBHC
    >>> from bnclassify.datasets import load_car
    >>> X, y = load_car(return_X_y=True)
    >>> model = KDBHC(k=2, random_state=0).fit(X, y)
    >>> max(len(p) for p in model.describe().parents) <= 2
    True
    """

    extra_parameters = """    k : int, default=2
        Most feature parents of a feature (R's ``kdbk``), as in :class:`KDB`.
"""

    def __init__(
        self,
        k=2,
        cv=5,
        epsilon=0.01,
        alpha=1.0,
        random_state=None,
        handle_unknown="warn",
        distributions=None,
        smoothing="laplace",
    ):
        super().__init__(
            cv=cv,
            epsilon=epsilon,
            alpha=alpha,
            random_state=random_state,
            handle_unknown=handle_unknown,
            distributions=distributions,
            smoothing=smoothing,
        )
        self.k = k

    _parameter_constraints = {
        **GreedyWrapper._parameter_constraints,
        "k": [Interval(numbers.Integral, 1, None, closed="left")],
    }

    def moves(self, n_features):
        return augment_kdb(int(self.k))
