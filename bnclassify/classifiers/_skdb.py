"""Selective KDB (Martinez, Webb, Chen and Zaidi 2016): KDB's sub-model chosen by leave-one-out."""

from __future__ import annotations

import numbers
import time

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from .._native import loo_depth_counts
from ..data import as_frame
from ..data.identifiers import IDENTIFIER_MIN_ROWS, IDENTIFIER_SHARE
from ..discriminative import refine_reached_rows
from ..distributed import fit_dask_selective, is_dask_collection
from ..factors import TABLE_DISTRIBUTIONS
from ..information import information_of_rows
from ..state import require
from ..stats import training_statistics
from ..structure import empty_feature_graph, kdb_parents, name_order
from ..validation import ArrayLike, Interval, Options, validate_parameters
from ..weights import class_information, edge_weights
from ._adapter import make_class_independent, training_rows
from ._base import AugmentedNaiveBayes, class_node_name
from ._bins import apply_cuts, continuous_columns, learn_cuts, weighted_rows
from ._kdb import KDB
from ._selective import (
    CRITERIA,
    candidate_cells,
    choose,
    family_depths,
    loo_class_information,
    loo_losses,
)

#: Largest table N(c, x_parents, x) a selective KDB gives one attribute (32 MB of floats):
#: an attribute whose k strongest parents would make it larger takes fewer of them.
MAX_SKDB_FAMILY_CELLS = 1 << 22
#: Largest number of table cells of a whole selective KDB (128 MB of floats): candidates
#: with more are not chosen, so that no table takes the machine's memory.
MAX_SKDB_CELLS = 1 << 24
#: Mean categories per column up to which I(X_i; X_j | C) is read from pair tables rather than
#: from the rows (alarm's 36 columns of 2.8 categories, 10^5 rows: 0.07 s against 0.14 s).
PAIR_TABLE_CATEGORIES = 4
#: How a selective KDB may rank its attributes (``"mi"`` is the paper's).
RANKINGS = ("mi", "loo")
PARENTS = ("any", "informative", "no_identifiers")


class SKDB(AugmentedNaiveBayes):
    """Selective k-dependence Bayesian classifier (Martinez, Webb, Chen and Zaidi 2016).

    A KDB with up to ``k`` parents per attribute is learned as :class:`KDB`
    learns it (attributes ranked by their information about the class, each
    taking the earlier ones with the highest I(X_i; X_j | C)); then one pass over the training rows
    chooses the sub-model that predicts best under leave-one-out
    cross-validation: the first ``n`` attributes of the ranking, each with its
    ``k' <= k`` strongest parents, over every ``n`` in ``0..m`` and ``k'`` in
    ``0..k`` at once. Each row is predicted from the counts of all rows minus
    its own (no candidate is refitted), with the paper's m-estimates and its
    back-off to fewer parents when the row's value was seen with its parent
    values in no other row (see :func:`~bnclassify.classifiers._selective.loo_losses`).
    The loss is the paper's root mean squared error of the true class's
    probability (``criterion="rmse"``); 0-1 loss and log loss are options from
    the same pass.

    Numeric columns (those the kinds rule models as continuous, or that
    ``distributions`` calls ``"binned"``) are first cut into bins by Fayyad and
    Irani's MDL rule (as :class:`~bnclassify.preprocessing.MDLDiscretizer`
    does, on the observed cells), as in the paper's experiments; ``cut_points_``
    keeps the cuts and prediction applies them to new rows. Every node is then a
    table: the leave-one-out pass counts codes, so no column is a density.

    The final tables are fitted from all rows with ``alpha``. An attribute the
    selection leaves out keeps its node, refitted independent of the class
    (its table rows equal in every class), so it changes no prediction: it is
    still validated and encoded (an unseen value is handled as any other), and
    ``structure_`` still draws the class arc to it, with no feature arc.
    ``selected_features_`` lists the kept attributes, in order.

    Parameters
    ----------
    k : int, default=5
        Largest number of feature parents an attribute may take (the paper's
        K; the chosen number is ``k_``).
    criterion : {"rmse", "zero_one", "log_loss"}, default="rmse"
        The leave-one-out loss minimised; ties go to fewer attributes, then to
        fewer parents.
    alpha : float, default=1.0
        Dirichlet pseudo-count of every table of the final model and of the
        class prior.
    order : list of str or int, optional
        The attribute order instead of the ranking (as in :class:`KDB`); the
        selection keeps a prefix of it.
    ranking : {"mi", "loo"}, default="mi"
        How the attributes are ranked, by decreasing information about the
        class (ties by name). ``"mi"``: the plug-in I(X_i; C), as in the
        paper; it grows with an attribute's number of values, so a column of
        thousands of values recurring in a few rows each ranks first and, the
        selection keeping a prefix of the ranking, can leave the model with no
        attribute (the class prior). ``"loo"``: the leave-one-out information,
        the gain in log loss of predicting the class from the attribute alone,
        each training row predicted from the counts of the others with the
        selection's own estimates
        (:func:`~bnclassify.classifiers._selective.loo_class_information`):
        such a column has less than none and ranks last (two of them in 6,400
        rows: accuracy 0.678 -> 0.318 with ``"mi"``, unchanged with
        ``"loo"``; the user guide has the measurements).
    parents : {"any", "informative", "no_identifiers"}, default="any"
        Which attributes KDB may give a child as a parent: ``"any"`` earlier
        one; ``"informative"``, only those whose leave-one-out information
        about the class (as ``ranking="loo"`` computes it) is not negative;
        ``"no_identifiers"``, any but an identifier
        (:func:`~bnclassify.classifiers._skdb.identifier_parents`:
        a column whose observed values are almost all distinct). The
        I(X_i; X_j | C) that ranks the parents grows with a parent's number of
        values as the plug-in I(X_i; C) does, so an identifier (thousands of
        values, each in a row or two) is every child's first parent; its
        values unseen at prediction, each such row then sums over all of them
        (a child's table given one training row per value: a kernel estimate
        over the training rows, at the cost of one term per row and value).
        The ranking and the selection are unchanged.
    handle_unknown : {"warn", "error", "marginalize"}, default="warn"
    distributions : None, "categorical", "binned" or dict, default=None
        Which columns are cut into bins and which are categories: ``None``, the
        kinds rule of :class:`NaiveBayes` (continuous columns binned);
        ``"categorical"`` or ``"binned"`` (or a
        :class:`~bnclassify.distributions.Categorical` or
        :class:`~bnclassify.distributions.Binned` instance) for every column; a
        dict maps columns to those, the others by the rule (e.g.
        ``{"age": "categorical"}`` keeps an integer column of many values as
        categories). Every node is a table, so ``"density"`` and the density
        kinds are refused (:data:`~bnclassify.factors.TABLE_DISTRIBUTIONS`);
        :class:`KDB` takes them.
    smoothing : {"laplace", "hdp", "hls"} or Smoothing, default="laplace"
        How the final model's tables are estimated (see :class:`KDB`; the
        hierarchy of a table is the class, then the attribute's parents by
        decreasing I(X_i; X_j | C)); the leave-one-out selection reads the
        paper's m-estimates whatever it is, and a left-out attribute keeps an
        additive, class-independent table.
        ``"hls"``: the same hierarchy written as a log-linear model, one coefficient per
        node, fitted by ridge-penalised multinomial logistic regression
        (:class:`~bnclassify.parameters.HLS`), its ridge chosen by cross-validation on
        the training rows.
    random_state : int, RandomState instance or None, default=None
        Seeds a smoothing that samples (``"hdp"``); unused otherwise.
    objective : {"joint", "conditional"}, default="joint"
        ``"conditional"``: after the selection, the rows of the selected attributes'
        tables that some training row reaches, and the class prior, are refined for
        the conditional log-likelihood ``sum_n log P(c_n | x_n)`` less ``l2 / 2`` times
        the squared distance to the generative log tables, by L-BFGS from them
        (:func:`~bnclassify.discriminative.refine_reached_rows`); the rows no training
        row reaches keep the generative estimates. :class:`ESKDB`'s docstring gives its
        measured effect.
    l2 : float >= 0, default=1.0
        The pull of ``objective="conditional"`` towards the generative tables.

    Attributes
    ----------
    k_ : int
        The number of parents chosen.
    selected_features_ : list of str
        The attributes kept, in ``order_``.
    loo_losses_ : DataFrame of shape (n_features + 1, k + 1)
        The leave-one-out loss of every candidate: row ``n`` (the first ``n``
        attributes), column ``k``.
    order_ : list of str
        The attribute order.
    ranking_information_ : ndarray of shape (n_features,) or None
        The information (nats) each attribute was ranked by, in column order
        (``None`` when ``order`` was given).
    cut_points_ : list of ndarray or None
        Each column's MDL cut points (``None`` for a column taken as it is).
    weights_ : DataFrame or None
        I(X_i; X_j | C) in nats of the binned columns (None when ``k=0``).
    structure_, compiled_, network_, classes_, categories_, fit_times_
        As in :class:`NaiveBayes`.

    Notes
    -----
    ``partial_fit`` is not offered: the selection is a sum over the training
    rows of losses that depend on the counts of all of them, so accumulated
    counts cannot redo it. ``fit`` on a dask DataFrame makes the paper's passes
    over its partitions instead (:func:`bnclassify.distributed.fit_dask_selective`):
    the counts, each attribute's k-parent tables, then the leave-one-out sums, each
    summed over the partitions; it equals ``fit`` on the same rows. The pass costs
    about ``(k + 1)`` table look-ups and class products per attribute and row, over
    dense tables counted first, the rows in cache-sized chunks, each chunk through a
    group of attributes whose tables stay in cache (no Python loop over rows).

    Examples
    --------
    >>> from bnclassify import SKDB
    >>> from bnclassify.datasets import load_car
    >>> X, y = load_car(return_X_y=True)
    >>> model = SKDB(k=2).fit(X, y)
    >>> model.k_, model.selected_features_
    (2, ['safety', 'persons', 'buying', 'maint', 'lug_boot', 'doors'])
    >>> model.loo_losses_.loc[[0, 6]].round(3).to_numpy()  # no attribute; all six, k = 0, 1, 2
    array([[0.519, 0.519, 0.519],
           [0.34 , 0.24 , 0.193]])
    """

    _parameter_constraints = {
        **AugmentedNaiveBayes._parameter_constraints,
        "k": [Interval(numbers.Integral, 0, None, closed="left")],
        "criterion": [Options(set(CRITERIA))],
        "order": [ArrayLike("a list of feature names or positions"), None],
        "ranking": [Options(set(RANKINGS))],
        "parents": [Options(set(PARENTS))],
        "distributions": [TABLE_DISTRIBUTIONS],
        "objective": [Options({"joint", "conditional"})],
        "l2": [Interval(numbers.Real, 0, None, closed="left")],
    }

    def __init__(
        self,
        k=5,
        criterion="rmse",
        alpha=1.0,
        order=None,
        handle_unknown="warn",
        distributions=None,
        smoothing="laplace",
        random_state=None,
        ranking="mi",
        objective="joint",
        l2=1.0,
        parents="any",
    ):
        super().__init__(
            alpha=alpha,
            handle_unknown=handle_unknown,
            smoothing=smoothing,
            random_state=random_state,
        )
        self.k = k
        self.criterion = criterion
        self.order = order
        self.distributions = distributions
        self.ranking = ranking
        self.objective = objective
        self.l2 = l2
        self.parents = parents

    @property
    def partial_fit(self):
        # the leave-one-out selection reads every row with the counts of all rows
        raise AttributeError(
            f"{type(self).__name__} has no partial_fit: its selection scores every training row "
            "against the counts of all the others, which accumulated counts cannot redo; fit it "
            "on all the rows (a dask DataFrame's partitions are read in passes)."
        )

    def fit(self, X, y, sample_weight=None):
        """Bin the numeric columns, learn the KDB, select its sub-model and fit its tables.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            A dask DataFrame is fitted by passes over its partitions (see Notes).
        y : array-like of shape (n_samples,)
            A dask Series with a dask ``X``.
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative row weights for every count and loss (leaving a row
            out removes all of its weight; the MDL cuts ignore the weights).

        Returns
        -------
        self
        """
        validate_parameters(self)
        if is_dask_collection(X):
            return fit_dask_selective(self, X, y, sample_weight)
        X, y, sample_weight = weighted_rows(X, y, sample_weight)
        columns = continuous_columns(X, y, sample_weight, self.distributions)
        cuts = learn_cuts(X, y, columns, None, sample_weight)
        stats, schema, classes, class_node = binned_statistics(X, y, columns, cuts, sample_weight)
        self.fit_statistics(stats, schema, classes, class_node=class_node)
        return self.set_cut_points(cuts_by_column(schema.n_features, columns, cuts))

    def set_cut_points(self, cut_points, schema=None):
        """Declare the cut points the fitted statistics were binned with.

        ``cut_points`` holds one entry per column (``None`` for a column taken as it
        is): they become ``cut_points_``, and the schema's columns with cuts become
        binned columns (:meth:`~bnclassify.data.TableSchema.with_cut_points`), as the
        other models' binned columns are: their categories (``categories_``, the
        states of ``network_``, ``describe()``, explanations) are the intervals'
        labels, and new rows may give a number or an interval's label. :meth:`fit`
        calls it; :class:`ESKDB` calls it for each member it fits from its own bins.
        ``schema``: the fitted schema with these cut points already declared, which
        members fitted on the same bins share (one object, not one copy each).

        Returns
        -------
        self
        """
        self.cut_points_ = [None if c is None else np.asarray(c, dtype=float) for c in cut_points]
        self.schema_ = self.schema_.with_cut_points(self.cut_points_) if schema is None else schema
        self._network = None  # the pgmpy view is rebuilt with the intervals as states
        return self

    def encode(self, X, handle_unknown=None, numbers=None):
        """Rows as the fitted network reads them: numeric columns binned, then coded.

        See :meth:`bnclassify.AugmentedNaiveBayes.encode`. ``handle_unknown``
        overrides the estimator's for this call (:class:`ESKDB` quiets the
        warnings of its members after the first). ``numbers``: ``schema_.numbers`` of the
        aligned rows' binned columns, when the caller has read them (:class:`ESKDB` bins
        them again under each member's cuts).
        """
        check_is_fitted(self, "compiled_")
        unknown = self.handle_unknown if handle_unknown is None else handle_unknown
        return self._encode(X, unknown, numbers)

    def log_scores(self, codes, values=None) -> np.ndarray:
        """``log P(c, x)`` up to a per-row constant, of rows coded as :meth:`encode` codes them.

        Read from the selected attributes only: a left-out attribute's node is the same
        in every class and no selected attribute's parent, so it changes no class
        posterior, and its missing cells need no summing out
        (:meth:`~bnclassify.network.FittedNetwork.posterior_network`).
        """
        return self.posterior_network().joint_log_likelihood(codes, values)

    def posterior_network(self):
        """The fitted network reduced to the selected attributes: the same class posterior
        (:meth:`~bnclassify.network.FittedNetwork.posterior_network`), what
        :meth:`log_scores` reads. Built once per fitted network (:class:`ESKDB` builds its
        members' as it fits them)."""
        check_is_fitted(self, "compiled_")
        position = {name: j for j, name in enumerate(self.schema_.names)}
        kept = [position[name] for name in self.selected_features_]
        return self.compiled_.posterior_network(kept)

    def _joint_log_likelihood(self, X) -> np.ndarray:
        return self.log_scores(*self.encode(X))

    def share_statistics(self, weights=None, class_mi=None):
        """Hand the next fit statistics an ensemble computed once for all its members.

        :meth:`fit_statistics` then reads them instead of computing them from its
        counts, and forgets them: ``weights``, the I(X_i; X_j | C) matrix of every
        pair of features (a DataFrame labelled by feature); ``class_mi``, the
        information of every feature about the class that ``ranking`` names
        (``ranking_information_``). They must be those of the same counts;
        :class:`ESKDB` computes them so.

        Returns
        -------
        self
        """
        if weights is not None:
            self._shared_weights = weights
        if class_mi is not None:
            self._shared_class_mi = class_mi
        return self

    def _encode(self, X, handle_unknown, numbers=None):
        schema = self.schema_
        frame = schema.align(X, owner=type(self).__name__)
        cuts = getattr(self, "cut_points_", None) or [None] * schema.n_features
        # the schema bins its binned columns itself; a model file written before they were
        # declared (set_cut_points) holds its bins as categories 0, 1, ...
        columns = [j for j, c in enumerate(cuts) if c is not None and not schema.binned[j]]
        if columns:
            frame, numbers = apply_cuts(frame, columns, [cuts[j] for j in columns]), None
        return schema.encode(frame, handle_unknown, numbers)

    # -- the structure: KDB's, then the leave-one-out selection ----------------------------
    def _edge_weights(self, stats, features):
        _check_tables(self.schema_)
        shared = self.__dict__.pop("_shared_weights", None)  # an ensemble's, counted once
        if int(self.k) == 0:
            return None
        if shared is not None:
            return shared
        cards = np.asarray(self.schema_.cards)
        few = cards.sum() <= PAIR_TABLE_CATEGORIES * max(len(cards), 1)
        return table_weights(stats, self.schema_, tables=few)

    def _feature_dag(self, weights, features, stats):
        schema, K = self.schema_, int(self.k)
        codes = getattr(stats, "codes", None)
        passes = stats if hasattr(stats, "leave_one_out") else None  # rows on a cluster
        if codes is None and passes is None:
            raise ValueError(
                f"{type(self).__name__} selects its sub-model on the training rows; these "
                "statistics were summed without them (partial_fit or dask). Use fit."
            )
        class_mi = self.__dict__.pop("_shared_class_mi", None)
        order = KDB(order=self.order)._resolve_order(features)
        self.ranking_information_ = None
        if not order:
            if class_mi is None:
                class_mi = ranking_information(stats, schema, self.ranking)
            order = ranked_by(class_mi, features)
            self.ranking_information_ = np.asarray(class_mi, dtype=float)
        cmi = np.zeros((len(features),) * 2) if weights is None else weights
        candidates = None
        if self.parents == "no_identifiers":
            candidates = ~identifier_parents(stats)
        elif self.parents == "informative":
            held_out = class_mi if self.ranking == "loo" and class_mi is not None else None
            if held_out is None:
                held_out = ranking_information(stats, schema, "loo")
            candidates = np.asarray(held_out) >= 0
        ranked, _ = kdb_parents(
            cmi, None, K, features, order, schema.discrete, schema.structural, candidates
        )
        position = {name: j for j, name in enumerate(features)}
        attributes = [position[name] for name in order]
        cards = schema.cards
        depths = family_depths(
            ranked, cards[attributes], cards, stats.n_classes, MAX_SKDB_FAMILY_CELLS
        )
        ranked = [parents[:depth] for parents, depth in zip(ranked, depths, strict=True)]
        tables = {} if codes is not None and hasattr(stats, "keep_family") else None
        losses = loo_losses(
            codes, getattr(stats, "y", None), cards, stats.n_classes, attributes, ranked, K,
            self.criterion, getattr(stats, "weights", None), passes, tables,
        )  # fmt: skip
        cells = candidate_cells(ranked, cards[attributes], cards, stats.n_classes, K)
        n_kept, k = choose(np.where(cells <= MAX_SKDB_CELLS, losses, np.inf))
        if tables:
            keep_selected_families(stats, tables, attributes[:n_kept], ranked[:n_kept], k, cards, K)
        dag = empty_feature_graph(features)
        dag.graph["order"] = order
        for u in range(n_kept):
            dag.add_edges_from((features[p], order[u]) for p in ranked[u][:k])
        self.order_ = list(order)
        self.k_ = int(k)
        self.selected_features_ = list(order[:n_kept])
        self.loo_losses_ = pd.DataFrame(
            losses.T,
            index=pd.RangeIndex(len(order) + 1, name="n_features"),
            columns=pd.RangeIndex(K + 1),
        )
        return dag

    def describe(self) -> pd.DataFrame:
        """What the model inferred about each column, and whether the selection kept it.

        :meth:`bnclassify.AugmentedNaiveBayes.describe` (a numeric column's kind is
        ``"binned"``, its categories the MDL intervals) with a column ``selected``:
        whether the attribute is one of ``selected_features_`` (a left-out one is in the
        model, independent of the class).

        Examples
        --------
        >>> from bnclassify.datasets import load_lactamase
        >>> X, y = load_lactamase(return_X_y=True)
        >>> SKDB(k=1).fit(X, y).describe()[["column", "selected", "parents"]]
           column  selected   parents
        0  block1      True  [block3]
        1  block2      True  [block8]
        2  block3      True        []
        3  block4      True  [block1]
        4  block5      True  [block8]
        5  block6     False        []
        6  block7      True  [block8]
        7  block8      True  [block1]
        """
        table = super().describe()
        table["selected"] = table["column"].isin(self.selected_features_)
        return table

    def _fit_statistics(self, stats, schema, classes, class_node, structure, keep):
        super()._fit_statistics(stats, schema, classes, class_node, structure, keep)
        kept = set(self.selected_features_)
        left_out = [j for j, name in enumerate(schema.names) if name not in kept]
        make_class_independent(self, stats, left_out, float(self.alpha))
        if self.objective == "conditional":
            start = time.perf_counter()
            codes, y, weights = training_rows(stats, 'objective="conditional"')
            selected = [j for j, name in enumerate(schema.names) if name in kept]
            self.compiled_ = refine_reached_rows(
                self.compiled_, codes, y, selected, weights, l2=float(self.l2)
            )
            self._network = None
            self.fit_times_["parameters"] += time.perf_counter() - start
        self.cut_points_ = [None] * schema.n_features  # fit() sets the bins it applied
        return self

    def _apply_objective(self, stats):
        pass  # refined in _fit_statistics, once the left-out attributes are class-independent

    # -- declared state (see SchemaAttributes._get_state) --------------------------------
    _FITTED_FIELDS = {
        **AugmentedNaiveBayes._FITTED_FIELDS,
        "k_": "k_",
        "selected_features_": "selected_features",
        "loo_losses_": "loo_losses",
        "cut_points_": "cut_points",
    }

    def _check_state(self):
        super()._check_state()
        schema = self.schema_
        cuts = getattr(self, "cut_points_", None)
        require(
            isinstance(cuts, list) and len(cuts) == schema.n_features,
            "cut_points",
            "must hold one entry per feature.",
        )
        for j, edges in enumerate(cuts):
            if edges is None:
                continue
            require(
                isinstance(edges, np.ndarray)
                and edges.ndim == 1
                and np.isfinite(edges).all()
                and (edges[1:] > edges[:-1]).all()
                and schema.discrete[j]
                and len(schema.categories[j]) == len(edges) + 1,
                "cut_points",
                f"column {schema.names[j]!r}: cut points must be increasing finite numbers, "
                "one fewer than the column's bins.",
            )
        require(
            isinstance(self.selected_features_, list)
            and set(self.selected_features_) <= set(schema.names),
            "selected_features",
            "must list features.",
        )


def keep_selected_families(stats, tables, attributes, ranked, k, cards, max_k) -> None:
    """Hand the statistics the selected attributes' families that the leave-one-out pass counted.

    ``tables``: :func:`~bnclassify.classifiers._selective.loo_losses`'s, keyed by each
    attribute's column and its first ``max_k`` ranked parents; attribute ``attributes[u]``
    keeps its first ``k`` parents of ``ranked[u]``. Families of two parents or more are handed
    over (fewer are read from the pair tables), as ``stats.keep_family`` takes them: the fit
    then reads them rather than counting the rows again (the same numbers).
    """
    for child, parents in zip(attributes, ranked, strict=True):
        family = [int(child), *(int(p) for p in parents[:max_k])]
        table = tables.get(tuple(family))
        depth = min(int(k), len(family) - 1)
        if table is None or depth < 2 or (cards[family] < 1).any():
            continue
        counts = loo_depth_counts(table, cards[family], depth)
        stats.keep_family(family[0], family[1 : depth + 1], counts)


def ranking_information(stats, schema, ranking="loo", features=None) -> np.ndarray:
    """The information about the class a selective KDB ranks each attribute by, in nats.

    ``ranking="loo"``: :func:`~bnclassify.classifiers._selective.loo_class_information`;
    ``"mi"``: the plug-in I(X_i; C) (:func:`~bnclassify.weights.class_information`).
    ``features``: only those positions are computed (the others are 0).
    """
    if ranking == "mi":
        return class_information(stats, schema, features)
    return loo_class_information(stats, features)


def identifier_parents(stats) -> np.ndarray:
    """Which table columns are identifiers by their counts: at least
    :data:`~bnclassify.data.identifiers.IDENTIFIER_SHARE` distinct observed values per observed row,
    in at least :data:`~bnclassify.data.identifiers.IDENTIFIER_MIN_ROWS` rows (the rule of
    :class:`~bnclassify.data.identifiers.IdentifierColumnWarning`, read from the class-value counts
    ``stats.family(j)``, rows counted by their weights, so a fit on dask or in memory says
    the same). A continuous column is never one.

    Examples
    --------
    >>> import warnings
    >>> import pandas as pd
    >>> from bnclassify.stats import training_statistics
    >>> X = pd.DataFrame({"id": [f"r{i}" for i in range(24)], "a": list("ab") * 12})
    >>> with warnings.catch_warnings(action="ignore"):  # the fit warns of the identifier
    ...     schema, _, stats = training_statistics(X, [0, 1] * 12, "categorical")
    >>> identifier_parents(stats)
    array([ True, False])
    """
    out = np.zeros(len(stats.cards), dtype=bool)
    for j in np.flatnonzero(np.asarray(stats.discrete, dtype=bool)):
        per_value = np.asarray(stats.family(j), dtype=float).sum(axis=0)  # N(x) over classes
        observed = per_value.sum()
        out[j] = observed >= IDENTIFIER_MIN_ROWS and (per_value > 0).sum() >= (
            IDENTIFIER_SHARE * observed
        )
    return out


def ranked_by(class_mi, features) -> list:
    """``features`` by decreasing I(X_i; C) (12 significant digits), ties by name.

    Examples
    --------
    >>> ranked_by([0.1, 0.3, 0.1], ["b", "c", "a"])
    ['c', 'a', 'b']
    """
    mi = np.asarray(class_mi, dtype=float)
    scale = np.abs(mi).max() if mi.size else 0.0
    rounded = np.round(mi / scale, 12) if scale > 0 else mi
    by_name = {j: rank for rank, j in enumerate(name_order(features))}
    return [
        features[j] for j in sorted(range(len(features)), key=lambda j: (-rounded[j], by_name[j]))
    ]


def binned_statistics(X, y, columns, cuts, sample_weight=None, values=None):
    """``(stats, schema, classes, class_node)`` of ``X`` with ``columns`` cut at ``cuts``.

    The schema keeps ``X``'s own column labels (or their absence), so that new
    rows are aligned as the user's table was. ``values``: the columns as
    :func:`~bnclassify.classifiers._bins.column_numbers` read them, if already read.
    """
    frame, has_names = as_frame(X)
    binned = apply_cuts(frame, columns, cuts, values) if columns else frame
    if isinstance(X, pd.DataFrame) and not has_names:
        binned = binned.set_axis(X.columns, axis=1)  # non-string labels: aligned by label
    # every column is a table now (binned, or categorical by the kinds rule): say so, and
    # the kinds rule is not run again
    schema, classes, stats = training_statistics(binned, y, "categorical", sample_weight)
    schema.has_names = has_names
    return stats, schema, classes, class_node_name(y, schema.names)


def table_weights(stats, schema, known=None, tables=False) -> pd.DataFrame:
    """I(X_i; X_j | C) of every pair of table columns, as a labelled matrix.

    Read from the training rows when the statistics keep them
    (:func:`~bnclassify.information.information_of_rows`, which copies the
    ``known`` pairs: one pass over the rows per pair), else from the pair tables
    (:func:`~bnclassify.weights.edge_weights`, one product of the rows' indicator
    matrices, which grows with the squared number of categories; ``tables=True``
    asks for it). The two agree to rounding.
    """
    if getattr(stats, "codes", None) is None or tables:
        return edge_weights(stats, schema)
    cmi, _ = information_of_rows(stats, known)
    return pd.DataFrame(cmi, index=schema.names, columns=schema.names)


def cuts_by_column(n_features, columns, cuts) -> list:
    """One entry per column: its cut points, or None for a column taken as it is."""
    out = [None] * n_features
    for j, edges in zip(columns, cuts, strict=True):
        out[j] = np.asarray(edges, dtype=float)
    return out


def _check_tables(schema):
    """Refuse nodes other than tables (reachable only through ``fit_statistics``)."""
    other = [n for n, d in zip(schema.names, schema.discrete, strict=True) if not d]
    if other:
        raise ValueError(
            f"A selective KDB scores table nodes only; {other} are continuous. Use fit, which "
            "cuts numeric columns into MDL bins."
        )
