"""ESKDB (Zhang, Petitjean and Buntine 2020): an ensemble of selective KDBs."""

from __future__ import annotations

import numbers
import operator

import networkx as nx
import numpy as np
import pandas as pd
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._native import pair_information
from ..data import DENSITY, HANDLE_UNKNOWN, MISSING, TableSchema, as_frame, encode_target
from ..data.binning import SortedColumn, bin_labels, block_bin_codes
from ..data.encoding import codes_dtype
from ..distributed import SPLIT_EVERY, DaskTable, DeferredPass, MemberPasses, is_dask_collection
from ..factors import TABLE_DISTRIBUTIONS
from ..parameters import SMOOTHING
from ..state import require
from ..stats import StatisticsPlan
from ..structure import name_order
from ..validation import (
    ALPHA,
    N_JOBS,
    RANDOM_STATE,
    Interval,
    Options,
    validate_parameters,
)
from ._bins import (
    column_numbers,
    continuous_columns,
    learn_cuts,
    sorted_columns,
    weighted_rows,
)
from ._ensemble import MemberEnsemble
from ._predict import normalise
from ._selective import CRITERIA
from ._skdb import (
    PARENTS,
    RANKINGS,
    SKDB,
    binned_statistics,
    cuts_by_column,
    ranked_by,
    ranking_information,
    table_weights,
)

#: Largest ``n_estimators`` (each member holds a network over every column).
MAX_ESKDB_MEMBERS = 1_000
#: The weight of a row a member's bootstrap sample leaves out (``bootstrap=True``).
LEFT_OUT_WEIGHT = 1e-6


class ESKDB(MemberEnsemble):
    """Ensemble of selective KDBs (Zhang, Petitjean and Buntine 2020).

    ``n_estimators`` :class:`SKDB` members, each over its own attribute order
    and, on numeric columns, its own discretisation; ``predict_proba``
    averages the members' probabilities. Member ``i`` draws, from its own
    generator (seeded from ``random_state``, so members do not depend on
    ``n_jobs``):

    - its cut points of every numeric column (the columns the kinds rule
      models as continuous), by
      :func:`~bnclassify.preprocessing.sampled_mdl_cut_points`: each cut is
      sampled among those that pass Fayyad and Irani's MDL test, in
      proportion to the margin by which it passes (``discretization="mdl"``:
      the deterministic MDL cuts, shared by every member);
    - its attribute order, sampled without replacement in proportion to each
      attribute's information about the class (``ranking``; attributes with
      none, or less than none, come last, by decreasing information);

    and then chooses its ``k`` and its attributes by the leave-one-out pass of
    :class:`SKDB` on that order. Members that read the same bins (an
    all-categorical table, or ``discretization="mdl"``) share one encoding,
    one count of the pair tables and one I(X_i; X_j | C) matrix; with sampled
    bins the table is coded once (``SharedCoding``), with the I(X_i; X_j | C)
    of its pairs of other columns, and each member codes its numeric columns
    by its own cuts, counts its own table and computes its pairs with a
    numeric column.

    The paper smooths each member's tables with hierarchical Dirichlet
    processes: ``smoothing="hdp"`` (each member sampled with its own seed drawn
    from ``random_state``; the paper's authors ran fewer sweeps than its 5000,
    ``smoothing=HDP(n_iter=1000)``). By default the members' tables are additive
    with ``alpha``: on 18 UCI sets (5x2) HDP members lowered the mean log loss
    (0.651 against 0.729, from the few sets where additive tables collapse)
    but lost on 11 of the 18, at 4.6 times the fit time (docs: benchmarks). With
    ``HDP(n_iter=1000)``, on the 22 development sets (``n_estimators=10``), they won 11
    on 0-1 loss and lost 7 (significantly better on arrhythmia and nursery), won 9 and
    lost 12 on log loss, at 6.7 times the fit; on 10 UCI sets not used in development
    they won 4 and lost 6 on 0-1 loss.
    ``smoothing="hls"`` members classify better: on the 22 UCI development sets
    (5x2, ``n_estimators=10``) they won 15 sets on 0-1 loss and lost 5 (2
    draws), significantly (combined 5x2cv F test, 0.05) better on arrhythmia,
    car and nursery and worse on splice; on log loss 12 wins and 8 losses, 6
    of the wins significant and none of the losses; on 10 UCI sets not used in
    development 6 wins and 3 losses on 0-1 loss. They cost 3.6 times the
    fit (2.9 times a 100-tree random forest's, one thread), and the forest
    still beats them on 6 of those 10 sets (3 significantly), as it beats
    additive members, so the default stays additive.
    ``smoothing=HLS(ridge=1.0)`` (the ridge fixed, not cross-validated) won 13
    and lost 5 (3 significant wins, no significant loss) on the development
    sets and 7 and 1 on the others, at 1.9 times the additive fit (docs:
    benchmarks).

    Parameters
    ----------
    n_estimators : int, default=20
        Members (the authors' experiments used 20).
    k : int, default=5
        Largest number of parents of an attribute in each member (the authors' 5).
    criterion : {"rmse", "zero_one", "log_loss"}, default="rmse"
        Each member's leave-one-out loss (see :class:`SKDB`).
    alpha : float, default=1.0
        Dirichlet pseudo-count of the members' tables and class prior.
    smoothing : {"laplace", "hdp", "hls"} or Smoothing, default="laplace"
        How the members' tables are estimated (see :class:`SKDB`).
        ``"hls"``: the same hierarchy written as a log-linear model, one coefficient per
        node, fitted by ridge-penalised multinomial logistic regression
        (:class:`~bnclassify.parameters.HLS`), its ridge chosen by cross-validation on
        the training rows.
    discretization : {"stochastic", "mdl"}, default="stochastic"
        How numeric columns are binned: sampled per member, or the MDL cuts
        for all.
    ranking : {"mi", "loo"}, default="mi"
        The information about the class the orders are sampled by, and the
        members' (see :class:`SKDB`): ``"mi"``, the plug-in I(X_i; C), as in
        the paper; ``"loo"``, the leave-one-out information (a column of many
        values recurring in few rows has less than none, so it comes last in
        every order).
    parents : {"any", "informative", "no_identifiers"}, default="any"
        Which attributes the members may take as parents (see :class:`SKDB`).
    random_state : int, RandomState or None, default=None
        Seeds the members' draws.
    n_jobs : int, optional
        Members fitted in parallel (threads); the result does not depend on it.
    handle_unknown : {"warn", "error", "marginalize"}, default="warn"
    distributions : None, "categorical", "binned" or dict, default=None
        Which columns the members cut into bins and which are categories, as in
        :class:`SKDB`: the paper discretises every numeric attribute and models
        every attribute with tables, so ``"binned"`` means each member's own
        cuts (``discretization``) and ``"categorical"`` keeps a column's values
        as categories (e.g. ``{"age": "categorical"}``); ``"density"`` and the
        density kinds are refused
        (:data:`~bnclassify.factors.TABLE_DISTRIBUTIONS`).
    objective : {"joint", "conditional"}, default="joint"
        Each member's, as in :class:`SKDB`: ``"conditional"`` refines the reached
        rows of the selected attributes' tables for ``log P(c | x)``. On the 22 UCI
        development sets (5x2 cross-validation, ``n_estimators=10``, ``l2=1``) against
        joint members it won 11 sets on 0-1 loss and lost 8 (3 draws), significantly
        (combined 5x2cv F test, 0.05) better on anneal and nursery and worse on
        splice; on log loss 12 wins and 10 losses, significantly better on anneal,
        arrhythmia, car and nursery and worse on postoperative.patient.data. On 10
        UCI sets not used in development it won 7 and lost 2 on 0-1 loss (balance
        scale significantly better) and 9 of 10 on log loss. It helps most where a
        few attributes interact (nursery 0.033 -> 0.011, tic-tac-toe 0.153 ->
        0.114), at about 2.5 times the fit (docs: benchmarks); not the default, as
        the gain on the development sets is not significant on more than two.
    l2 : float >= 0, default=1.0
        The members' pull of ``objective="conditional"`` towards the generative tables.
    bootstrap : bool, default=False
        Fit each member on its own bootstrap sample of the rows (bagging rows as well as
        orders): ``n`` rows drawn with replacement from the member's own seed, given to it
        as row weights (how many times each row is drawn, times ``sample_weight``); a row
        left out weighs ``1e-6``, not 0, so that every member keeps the
        table's categories and classes. The member's cuts, order, selection and tables
        all read its sample (each sample is coded and counted on its own: about twice the
        fit). Not the default: on the 22 UCI development sets (5x2, ``n_estimators=10``)
        it lost 15 on 0-1 loss and won 7 against the default (significantly worse,
        combined 5x2cv F test at 0.05, on arrhythmia, car and page.blocks), and 19 of 22
        on log loss, at 1.8 times the fit (docs: benchmarks): each member's leave-one-out
        selection reads a sample in which most rows recur.

    Attributes
    ----------
    estimators_ : list of SKDB
        The fitted members (each with its ``order_``, ``k_``,
        ``selected_features_`` and ``cut_points_``): what is per member.
    structure_ : networkx.DiGraph
        The whole ensemble's arcs: the class node with an arc to every feature, and
        every feature arc of any member, each with ``members`` (how many members
        have it) and ``weight`` (their share); each feature node's ``members`` says
        how many members select it. Arcs of different members may run both ways
        between two features, so it need not be a DAG: it is a summary, not a
        network (each member's is ``estimators_[i].structure_``).
    feature_kinds_ : list of str
        How the members model each column: ``"binned"`` (each member by its own
        cuts), ``"categorical"``, or ``"unobserved"`` (no training value).
    fit_times_ : dict
        Seconds spent on weights, structures and parameters, summed over members.
    classes_, n_features_in_, feature_names_in_

    Notes
    -----
    ``fit`` on a dask DataFrame makes the passes of :class:`SKDB`'s dask fit
    (Martinez et al. 2016) once for all the members: the kinds, then each numeric
    column's per-value class counts summed over the partitions (each member draws
    its cuts from them, as from the rows in memory), then the counts and pair
    tables of the table cut at every member's cuts at once (each member's merged
    from them), then every member's tables ``N(c, x_parents, x)`` in one pass and
    every member's leave-one-out losses in another. The ensemble equals ``fit`` on
    the same rows (the same cuts, orders, selections and ``k``; probabilities to
    rounding). Each member's fit runs until its selection asks for the passes,
    and again once they are made; members are fitted one after the other
    (``n_jobs`` is not used). ``bootstrap=True`` (samples drawn over the positions
    of all the rows), ``objective="conditional"`` and ``sample_weight`` are
    refused on dask.

    ``partial_fit`` is not offered (see :class:`SKDB`). A member is an
    ordinary fitted :class:`SKDB`: draw it, export it to pgmpy
    (``estimators_[0].network_``) or explain it like one. The ensemble averages
    its members' probabilities, which no single network gives, so it has no
    ``network_`` (nor a BIF file); :meth:`describe` and ``structure_`` summarise
    its members (selection counts, arc frequencies). The ensemble's own
    ``encode`` reads the table as the kinds rule does (numbers for the numeric
    columns; each member bins them itself), so
    :func:`bnclassify.explain.explain` explains the ensemble through its
    averaged probabilities (a coalition game, no closed form).

    Examples
    --------
    >>> from bnclassify import ESKDB
    >>> from bnclassify.datasets import load_car
    >>> X, y = load_car(return_X_y=True)
    >>> model = ESKDB(n_estimators=3, k=2, random_state=0).fit(X, y)
    >>> [m.k_ for m in model.estimators_]
    [2, 2, 2]
    >>> model.classes_.tolist(), y.iloc[0]
    (['acc', 'good', 'unacc', 'vgood'], 'unacc')
    >>> model.predict_proba(X.iloc[:2]).round(3)
    array([[0.004, 0.003, 0.991, 0.002],
           [0.   , 0.003, 0.995, 0.001]])
    """

    _parameter_constraints = {
        "n_estimators": [Interval(numbers.Integral, 1, MAX_ESKDB_MEMBERS, closed="both")],
        "k": [Interval(numbers.Integral, 0, None, closed="left")],
        "criterion": [Options(set(CRITERIA))],
        "alpha": ALPHA,
        "discretization": [Options({"stochastic", "mdl"})],
        "ranking": [Options(set(RANKINGS))],
        "parents": [Options(set(PARENTS))],
        "random_state": RANDOM_STATE,
        "n_jobs": N_JOBS,
        "handle_unknown": [Options(HANDLE_UNKNOWN)],
        "distributions": [TABLE_DISTRIBUTIONS],
        "smoothing": SMOOTHING,
        "objective": [Options({"joint", "conditional"})],
        "l2": [Interval(numbers.Real, 0, None, closed="left")],
        "bootstrap": ["boolean"],
    }

    def __init__(
        self,
        n_estimators=20,
        k=5,
        criterion="rmse",
        alpha=1.0,
        discretization="stochastic",
        random_state=None,
        n_jobs=None,
        handle_unknown="warn",
        distributions=None,
        smoothing="laplace",
        ranking="mi",
        objective="joint",
        l2=1.0,
        bootstrap=False,
        parents="any",
    ):
        self.n_estimators = n_estimators
        self.k = k
        self.criterion = criterion
        self.alpha = alpha
        self.discretization = discretization
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.handle_unknown = handle_unknown
        self.distributions = distributions
        self.smoothing = smoothing
        self.ranking = ranking
        self.objective = objective
        self.l2 = l2
        self.bootstrap = bootstrap
        self.parents = parents

    @property
    def partial_fit(self):
        raise AttributeError(
            "ESKDB has no partial_fit: each member's selection scores every training row "
            "against the counts of all the others; fit it on all the rows."
        )

    def fit(self, X, y, sample_weight=None):
        """Draw and fit every member.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            A dask DataFrame is fitted by passes over its partitions shared by every
            member (see Notes).
        y : array-like of shape (n_samples,)
            A dask Series with a dask ``X``.
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative row weights, as in :meth:`SKDB.fit` (not with a dask ``X``).

        Returns
        -------
        self
        """
        validate_parameters(self)
        if is_dask_collection(X):
            return self._fit_dask(X, y, sample_weight)
        X, y, sample_weight = weighted_rows(X, y, sample_weight)
        frame, _ = as_frame(X)
        _, y_codes = encode_target(y, len(frame))
        # the columns the kinds rule reads as numbers stay numbers here (densities, not the
        # default's bins): each member cuts them its own way, and an explanation of the
        # ensemble varies their values, not one set of intervals
        schema, _ = TableSchema.learn(
            X, self._numbers_as_numbers(X, y, sample_weight), True, sample_weight, y_codes
        )
        numeric = [j for j in name_order(schema.names) if not schema.discrete[j]]
        random_state = check_random_state(self.random_state)
        seeds = random_state.randint(np.iinfo(np.int32).max, size=int(self.n_estimators))
        # a smoothing's own seeds, drawn after the members' (which they leave as they were)
        smoothing_seeds = random_state.randint(np.iinfo(np.int32).max, size=len(seeds))
        members = [self._member(int(s)) for s in smoothing_seeds]
        if self.bootstrap:
            # each member's sample, drawn after the other seeds (which it leaves as they were)
            sample_seeds = random_state.randint(np.iinfo(np.int32).max, size=len(seeds))
            jobs = []
            for member, seed, sample_seed in zip(members, seeds, sample_seeds, strict=True):
                weights = bootstrap_weights(sample_seed, len(frame), sample_weight)
                jobs += self._jobs(X, y, numeric, weights, [member], [seed])
        else:
            jobs = self._jobs(X, y, numeric, sample_weight, members, seeds)
        self.estimators_, self.fit_times_ = self._fit_members(jobs)
        for member in self.estimators_:
            member.posterior_network()  # built now, not by the first prediction
        unobserved = self.estimators_[0].schema_.unobserved  # no training value: read as missing
        self._set_schema(schema.with_unobserved(unobserved) if unobserved else schema, y)
        self.classes_ = self.estimators_[0].classes_
        return self

    def _fit_dask(self, X, y, sample_weight=None, split_every=SPLIT_EVERY):
        """Fit every member on a dask table by passes shared by all (see Notes)."""
        name = type(self).__name__
        if sample_weight is not None:
            raise ValueError(
                "sample_weight is not supported with a dask DataFrame; compute the table "
                "(X.compute()) to weight its rows."
            )
        if self.bootstrap:
            raise ValueError(
                f"{name}(bootstrap=True) draws each member's sample over the positions of all "
                "the rows, which a dask table's partitions do not share; fit it with "
                "bootstrap=False, or compute the table first (X.compute())."
            )
        if self.objective != "joint":
            raise ValueError(
                f'{name}(objective="conditional") refines its members\' tables over the '
                "training rows in memory; compute the dask table first (X.compute())."
            )
        table = DaskTable(X, y, split_every)
        # the ensemble's own schema reads the members' numeric columns as numbers, as fit's
        # does (_numbers_as_numbers); the members' bin them
        if self.distributions is None:
            kinds = table.kinds(DENSITY)
            binned = table.schema(None, {j: "categorical" if kind == "categorical" else "binned"
                                         for j, kind in kinds.items()})  # fmt: skip
            own = table.schema(DENSITY, kinds)
        else:
            binned = table.schema(self.distributions, table.kinds(self.distributions))
            own = table.schema(
                {n: "gaussian" if b else "categorical"
                 for n, b in zip(binned.names, binned.binned, strict=True)}
            )  # fmt: skip
        fixed = [n for n, b, lb in zip(binned.names, binned.binned, binned.learned_bins,
                                       strict=True) if b and not lb]  # fmt: skip
        if fixed:
            raise ValueError(
                f"{name} cuts its numeric columns itself; {fixed} have fixed cut points "
                "(declare them categorical, or leave them to the members)."
            )
        names, n = list(binned.names), binned.n_features
        numeric = [j for j in name_order(names) if binned.binned[j]]
        counts = table.value_counts(binned) if numeric else {}
        random_state = check_random_state(self.random_state)
        seeds = random_state.randint(np.iinfo(np.int32).max, size=int(self.n_estimators))
        smoothing_seeds = random_state.randint(np.iinfo(np.int32).max, size=len(seeds))
        members = [self._member(int(s)) for s in smoothing_seeds]
        rngs = [_generator(seed) for seed in seeds]
        sampled = bool(numeric) and self.discretization == "stochastic"
        if sampled:  # each member's cuts, drawn as fit draws them; the table cut at all of them
            columns = [SortedColumn.of_counts(counts[j]) for j in numeric]
            cuts = [[column.sampled_cuts(rng) for column in columns] for rng in rngs]
            finest = [np.unique(np.concatenate([c[i] for c in cuts])) for i in range(len(numeric))]
            coded = binned.with_cut_points(cuts_by_column(n, numeric, finest))
        else:
            coded = binned.with_bins(counts) if numeric else binned
        k = int(self.k)
        total, schema, classes, class_node = table.statistics(coded, StatisticsPlan(pairwise=k > 0))
        passes = MemberPasses(table.joined, schema, classes, split_every)
        jobs = []
        if sampled:
            for member, rng, own_cuts in zip(members, rngs, cuts, strict=True):
                cut_points = cuts_by_column(n, numeric, own_cuts)
                maps = {j: np.concatenate([[0], np.searchsorted(c, f, side="right")])
                        for j, c, f in zip(numeric, own_cuts, finest, strict=True)}  # fmt: skip
                labels = {j: bin_labels(c) for j, c in zip(numeric, own_cuts, strict=True)}
                stats = total.merged(maps, labels)
                mine = schema.with_cut_points(cut_points)
                member_passes = passes.add(stats, mine, maps)
                class_mi = ranking_information(member_passes, mine, self.ranking)
                weights = table_weights(stats, mine) if k > 0 else None
                order = sampled_order(class_mi, names, rng)
                jobs.append((member, member_passes, mine, cut_points, weights, class_mi, order))
        else:
            cut_points = list(schema.cut_points)
            weights = table_weights(total, schema) if k > 0 else None
            class_mi = None
            for member, rng in zip(members, rngs, strict=True):
                member_passes = passes.add(total, schema)
                if class_mi is None:
                    class_mi = ranking_information(member_passes, schema, self.ranking)
                order = sampled_order(class_mi, names, rng)
                jobs.append((member, member_passes, schema, cut_points, weights, class_mi, order))
        for member, member_passes, mine, _, weights, class_mi, order in jobs:
            member.set_params(order=order).share_statistics(weights=weights, class_mi=class_mi)
            try:  # runs until its selection asks for the passes
                member.fit_statistics(member_passes, mine, classes, class_node=class_node)
            except DeferredPass:
                pass
        passes.run()  # every member's tables, then every member's losses: two passes
        for member, member_passes, mine, cut_points, weights, class_mi, _ in jobs:
            member.share_statistics(weights=weights, class_mi=class_mi)
            member.fit_statistics(member_passes, mine, classes, class_node=class_node)
            member.set_cut_points(cut_points, member.schema_)
            member.posterior_network()
        self.estimators_ = [job[0] for job in jobs]
        self.fit_times_ = {
            stage: sum(m.fit_times_[stage] for m in self.estimators_)
            for stage in ("weights", "structure", "parameters")
        }
        categories = [c if d else None
                      for c, d in zip(schema.categories, own.discrete, strict=True)]  # fmt: skip
        own = own.with_categories(categories)
        unobserved = self.estimators_[0].schema_.unobserved
        self._set_schema(own.with_unobserved(unobserved) if unobserved else own,
                         class_node=class_node)  # fmt: skip
        self.classes_ = self.estimators_[0].classes_
        return self

    def _jobs(self, X, y, numeric, sample_weight, members, seeds) -> list:
        """The fit jobs of ``members`` on the rows weighted by ``sample_weight``: the table
        coded and counted once for all of them."""
        if numeric and self.discretization == "stochastic":
            values = column_numbers(X, numeric)  # read once; each member draws its own cuts
            sorted_values = sorted_columns(values, y, sample_weight)  # sorted once, shared
            coding = SharedCoding(X, y, numeric, values, sample_weight, self.ranking)
            if int(self.k) > 0:
                coding.count_pairs()  # the pairs of the other columns, for every member
            return [
                (member, _fit_sampled, (coding, sorted_values, seed))
                for member, seed in zip(members, seeds, strict=True)
            ]
        cuts = learn_cuts(X, y, numeric, None, sample_weight)
        stats, binned, classes, class_node = binned_statistics(X, y, numeric, cuts, sample_weight)
        weights = table_weights(stats, binned) if int(self.k) > 0 else None  # counted once
        class_mi = ranking_information(stats, binned, self.ranking)
        cut_points = cuts_by_column(binned.n_features, numeric, cuts)
        declared = binned.with_cut_points(cut_points)  # one schema for every member
        shared = (stats, binned, classes, class_node, weights, class_mi, cut_points, declared)
        return [
            (member, _fit_shared, (*shared, seed))
            for member, seed in zip(members, seeds, strict=True)
        ]

    def _numbers_as_numbers(self, X, y, sample_weight):
        """The ensemble's own ``distributions``: the columns its members cut (the kinds
        rule's continuous ones, or those ``distributions`` calls binned) as numbers, the
        others as categories."""
        if self.distributions is None:
            return DENSITY  # the rule, its continuous columns as numbers
        cut = set(continuous_columns(X, y, sample_weight, self.distributions))
        labels = as_frame(X)[0].columns
        return {label: "gaussian" if j in cut else "categorical" for j, label in enumerate(labels)}

    def _member(self, seed) -> SKDB:
        return SKDB(
            k=self.k,
            criterion=self.criterion,
            alpha=self.alpha,
            handle_unknown=self.handle_unknown,
            distributions=self.distributions,
            smoothing=self.smoothing,
            random_state=seed,
            ranking=self.ranking,
            parents=self.parents,
            objective=self.objective,
            l2=self.l2,
        )

    # -- prediction ----------------------------------------------------------------------
    def _joint_log_likelihood(self, X) -> np.ndarray:
        """log of the members' mean P(c | x) (a joint score up to a per-row constant)."""
        check_is_fitted(self, "estimators_")
        frame = self.schema_.align(X, owner=type(self).__name__)
        quiet = "marginalize" if self.handle_unknown == "warn" else self.handle_unknown
        encoded, total = {}, 0.0
        binned = None  # the members' own bins of a row set coded once (see _binned_codes)
        for member in self.estimators_:
            key = id(member.schema_)
            if key not in encoded and binned is not None and binned.reads(member):
                encoded[key] = binned.codes(member)
            if key not in encoded:  # the first encoding warns once for every member
                unknown = self.handle_unknown if not encoded else quiet
                if binned is None:  # the numbers read once, for its bins and every member's
                    numbers = BinnedRows.numbers_of(member, frame)
                    encoded[key] = member.encode(frame, unknown, numbers)
                    binned = BinnedRows(member, frame, encoded[key][0], numbers)
                else:
                    encoded[key] = member.encode(frame, unknown)
            total = total + np.exp(normalise(member.log_scores(*encoded[key])))
        with np.errstate(divide="ignore"):
            return np.log(total / len(self.estimators_))

    # -- what the ensemble is: its members' kinds, selections and arcs ---------------------
    @property
    def feature_kinds_(self) -> list:
        """How the members model each column (``"binned"``, ``"categorical"``,
        ``"unobserved"``); see :class:`ESKDB`."""
        check_is_fitted(self, "estimators_")
        return list(self.estimators_[0].feature_kinds_)

    @property
    def structure_(self):
        """The arcs of all the members, with how many members have each (see :class:`ESKDB`)."""
        check_is_fitted(self, "estimators_")
        return member_arcs(self.estimators_, self.class_node_)

    @property
    def network_(self):
        raise AttributeError(
            "An ESKDB averages the probabilities of its members' networks, which is not itself "
            "a Bayesian network, so it has no network_: each member's pgmpy network is "
            "estimators_[i].network_, and structure_ gives the arcs of all the members."
        )

    def describe(self) -> pd.DataFrame:
        """What the members inferred about each column: its kind, its bins, how many select
        it and its parents.

        Returns
        -------
        DataFrame
            One row per feature, in the training column order: ``column``; ``kind``
            (:attr:`feature_kinds_`); ``n_categories`` (a binned column: the most bins
            of any member) and ``categories`` (a binned column's are each member's own:
            ``estimators_[i].describe()``); ``members``, how many members select the
            feature; ``parents``, each feature parent it has in any member with the
            number of members where it does, most frequent first.

        Examples
        --------
        >>> from bnclassify.datasets import load_car
        >>> X, y = load_car(return_X_y=True)
        >>> model = ESKDB(n_estimators=4, k=1, random_state=0).fit(X, y)
        >>> model.describe().loc[:1, ["column", "kind", "members", "parents"]]
           column         kind  members                                  parents
        0  buying  categorical        4  {'safety': 2, 'maint': 1, 'persons': 1}
        1   maint  categorical        4                            {'buying': 3}
        """
        check_is_fitted(self, "estimators_")
        arcs = self.structure_
        table = self.estimators_[0].describe().drop(columns=["parents", "selected"])
        binned = [j for j, kind in enumerate(table["kind"]) if kind == "binned"]
        bins = [max(len(m.categories_[j]) for m in self.estimators_) for j in binned]
        table.loc[binned, "n_categories"] = bins
        table["categories"] = [[] if j in binned else c for j, c in enumerate(table["categories"])]
        table["members"] = [arcs.nodes[name]["members"] for name in table["column"]]
        table["parents"] = [
            dict(
                sorted(
                    ((u, d["members"]) for u, _, d in arcs.in_edges(name, data=True)
                     if u != self.class_node_),
                    key=lambda item: -item[1],
                )
            )
            for name in table["column"]
        ]  # fmt: skip
        return table

    # -- declared state (see SchemaAttributes._get_state) --------------------------------
    _FITTED_FIELDS = {"estimators_": "estimators", "fit_times_": "fit_times_"}

    def _check_state(self):
        require("estimators_" in vars(self), "ESKDB", "a fitted ensemble needs its members.")
        self._check_members(self.estimators_, "estimators")
        require(
            self.estimators_ and all(isinstance(m, SKDB) for m in self.estimators_),
            "estimators",
            "every member must be a fitted SKDB.",
        )


def member_arcs(members, class_node) -> nx.DiGraph:
    """The arcs of fitted selective KDBs over the same columns, counted over ``members``.

    The class node has an arc to every feature; each feature arc of any member
    is there with ``members`` (how many members have it) and ``weight`` (their
    share); each feature node's ``members`` counts the members that select it
    (``selected_features_``). ``graph["class_node"]`` names the class node and
    ``graph["n_members"]`` the number of members.

    Examples
    --------
    >>> from bnclassify.datasets import load_car
    >>> X, y = load_car(return_X_y=True)
    >>> members = [SKDB(k=1).fit(X, y), SKDB(k=2).fit(X, y)]
    >>> arcs = member_arcs(members, "class")
    >>> arcs.edges["safety", "persons"], arcs.edges["persons", "buying"]
    ({'members': 2, 'weight': 1.0}, {'members': 1, 'weight': 0.5})
    >>> arcs.nodes["doors"]["members"]  # selected by both
    2
    """
    graph = nx.DiGraph(class_node=class_node, n_members=len(members))
    names = list(members[0].schema_.names)
    graph.add_node(class_node)
    graph.add_nodes_from(names, members=0)
    graph.add_edges_from((class_node, name) for name in names)
    for member in members:
        for name in member.selected_features_:
            graph.nodes[name]["members"] += 1
        for u, v in member.structure_.edges:
            if u == member.class_node_:
                continue
            if not graph.has_edge(u, v):
                graph.add_edge(u, v, members=0)
            graph.edges[u, v]["members"] += 1
    for u, _, data in graph.edges(data=True):
        if u != class_node:
            data["weight"] = data["members"] / len(members)
    return graph


def sampled_order(class_mi, features, rng) -> list:
    """An attribute order drawn without replacement in proportion to their information.

    The Gumbel-top-k draw (keys ``log I + G``, one Gumbel variate per feature in
    name order), which is the same as drawing the attributes one after the
    other in proportion to their remaining information; attributes with none
    (or less: a leave-one-out information can be negative) come last, by
    decreasing information, ties by name.

    Examples
    --------
    >>> sampled_order([0.5, 0.0, 0.3], ["a", "b", "c"], np.random.default_rng(0))
    ['c', 'a', 'b']
    """
    mi = np.asarray(class_mi, dtype=float)
    by_name = name_order(features)
    noise = np.empty(len(features))
    noise[by_name] = rng.gumbel(size=len(features))
    with np.errstate(divide="ignore"):
        keys = np.where(mi > 0, np.log(np.where(mi > 0, mi, 1.0)) + noise, -np.inf)
    informative = [j for j in range(len(features)) if mi[j] > 0]
    drawn = sorted(informative, key=lambda j: -keys[j])
    rest = ranked_by(np.minimum(mi, 0.0), features)
    return [features[j] for j in drawn] + [f for f in rest if mi[features.index(f)] <= 0]


def _fit_shared(
    member, stats, schema, classes, class_node, weights, class_mi, cut_points, declared, seed
):
    """Fit a member on the shared counts: only its attribute order is its own."""
    member.set_params(order=sampled_order(class_mi, list(schema.names), _generator(seed)))
    member.share_statistics(weights=weights, class_mi=class_mi)
    member.fit_statistics(stats, schema, classes, class_node=class_node)
    return member.set_cut_points(cut_points, declared)


def _fit_sampled(member, coding, sorted_values, seed):
    """Fit a member on its own sampled bins (drawn column by column in name order)."""
    rng = _generator(seed)
    cuts = [column.sampled_cuts(rng) for column in sorted_values]
    stats, schema = coding.statistics(cuts)
    class_mi = coding.class_information(stats, schema)
    member.set_params(order=sampled_order(class_mi, list(schema.names), rng))
    weights = None
    if coding.known_pairs is not None:  # its own pairs with a numeric column, the rest shared
        weights = table_weights(stats, schema, coding.known_pairs)
    member.share_statistics(weights=weights, class_mi=class_mi)
    member.fit_statistics(stats, schema, coding.classes, class_node=coding.class_node)
    return member.set_cut_points(cuts_by_column(schema.n_features, coding.columns, cuts))


class SharedCoding:
    """A table's statistics under many binnings of its numeric ``columns``.

    What :func:`~bnclassify.classifiers._skdb.binned_statistics` returns for
    each binning, with the work it repeats done once: the table is read, its
    schema learned and its other columns coded on the first call (every
    numeric column in one bin); a binning then codes only the numeric columns
    (``searchsorted`` on ``values``, as
    :func:`~bnclassify.classifiers._bins.apply_cuts` bins them) and names their
    bins ``0 .. len(cuts)``, as that function's categoricals declare them.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"c": list("abab"), "v": [1.0, 2.0, 3.0, None]})
    >>> coding = SharedCoding(X, list("xxyy"), [1], column_numbers(X, [1]))
    >>> stats, schema = coding.statistics([np.array([1.5])])
    >>> stats.codes.tolist(), schema.categories[1].tolist()
    ([[0, 0], [1, 1], [0, 1], [1, -1]], [0, 1])
    """

    def __init__(self, X, y, columns, values, sample_weight=None, ranking="loo"):
        one_bin = [np.empty(0)] * len(columns)
        stats, schema, classes, class_node = binned_statistics(
            X, y, columns, one_bin, sample_weight, values
        )
        self.stats, self.schema, self.classes, self.class_node = stats, schema, classes, class_node
        self.columns = list(columns)
        self.values = values
        self.known_pairs = None
        self.ranking = ranking
        # the other columns' information is every binning's
        self._class_mi = ranking_information(stats, schema, ranking)

    def class_information(self, stats, schema) -> np.ndarray:
        """:func:`~bnclassify.classifiers._skdb.ranking_information` of a binning's
        ``(stats, schema)`` (from :meth:`statistics`): only its numeric columns' are computed."""
        out = ranking_information(stats, schema, self.ranking, self.columns)
        others = np.ones(len(out), dtype=bool)
        others[self.columns] = False
        out[others] = self._class_mi[others]
        return out

    def count_pairs(self):
        """Compute ``known_pairs``: ``(positions, cmi, rows)`` of the columns other than
        ``columns``, coded alike under every binning (see
        :func:`~bnclassify.information.information_of_rows`)."""
        other = np.setdiff1d(np.arange(self.schema.n_features), self.columns).tolist()
        stats = self.stats
        cmi, rows = pair_information(
            stats.codes[:, other], stats.y, stats.weights, stats.cards[other], stats.n_classes
        )
        self.known_pairs = (other, cmi, rows)

    def statistics(self, cuts) -> tuple:
        """``(stats, schema)`` of the table with ``columns`` cut at ``cuts``."""
        categories = list(self.schema.categories)
        for j, edges in zip(self.columns, cuts, strict=True):
            categories[j] = np.arange(len(edges) + 1)
        codes = self.stats.codes.astype(codes_dtype(categories))  # a copy
        for j, edges, x in zip(self.columns, cuts, self.values, strict=True):
            codes[:, j] = np.where(np.isnan(x), MISSING, np.searchsorted(edges, x, side="left"))
        schema = self.schema.with_categories(categories)
        return self.stats.recoded(codes=codes, cards=schema.cards), schema


class BinnedRows:
    """New rows coded once for every member that bins them as ``first`` does.

    Members of a sampled discretisation (:class:`SharedCoding`) code their
    other columns alike and differ only in the cuts of their numeric ones: a
    member reads the codes of ``first`` (``codes``, from its :meth:`SKDB.encode`) with
    its own bins of those columns (``searchsorted``, as
    :func:`~bnclassify.classifiers._bins.apply_cuts` bins them), instead of
    coding the whole table again.

    Examples
    --------
    >>> import pandas as pd
    >>> from bnclassify import ESKDB
    >>> X = pd.DataFrame({"c": list("abab") * 5, "v": np.arange(20.0)})
    >>> model = ESKDB(n_estimators=2, random_state=0).fit(X, [0, 0, 1, 1] * 5)
    >>> first, second = model.estimators_
    >>> rows = model.schema_.align(X.iloc[:3])
    >>> binned = BinnedRows(first, rows, first.encode(rows, "error")[0])
    >>> binned.reads(second)
    True
    >>> bool((binned.codes(second)[0] == second.encode(rows, "error")[0]).all())
    True
    """

    def __init__(self, first, frame, codes, numbers=None):
        schema = first.schema_
        self.columns = _cut_columns(first)
        self.other = np.setdiff1d(np.arange(schema.n_features), self.columns).tolist()
        self.categories = [schema.categories[j] for j in self.other]
        self.unobserved = set(schema.unobserved)
        if numbers is None:
            numbers = schema.numbers(frame, self.columns)  # numeric columns in one block
        self.values = numbers
        self.first, self.codes_of_first = first, codes

    @staticmethod
    def numbers_of(first, frame) -> np.ndarray:
        """``first.schema_.numbers`` of the rows' columns that ``first`` cuts or its schema
        bins: what its encoding bins and every member's bins read (``numbers`` of both)."""
        schema = first.schema_
        unobserved = set(schema.unobserved)  # not read by its encoding
        binned = [j for j in np.flatnonzero(schema.binned).tolist() if j not in unobserved]
        return schema.numbers(frame, sorted({*_cut_columns(first), *binned}))

    def reads(self, member) -> bool:
        """Whether ``member`` bins the same columns and codes the others as ``first``."""
        schema, first = member.schema_, self.first.schema_
        cuts = member.cut_points_ or ()
        return (
            bool(self.columns)
            and schema.names == first.names
            and [j for j, c in enumerate(cuts) if c is not None] == self.columns
            and set(schema.unobserved) <= set(self.columns) | self.unobserved
            and {j for j in schema.unobserved if j in self.other}
            == {j for j in self.unobserved if j in self.other}
            and self._same_kinds(schema)
            and all(
                type(schema.nodes_by_column[j]) is type(first.nodes_by_column[j])
                # members of one shared coding hold the same arrays: no comparison of cells
                and (mine is theirs or mine.dtype == theirs.dtype and np.array_equal(mine, theirs))
                for j, theirs in zip(self.other, self.categories, strict=True)
                for mine in [schema.categories[j]]
            )
        )

    def _same_kinds(self, schema) -> bool:
        """Whether ``schema``'s columns are all discrete and its binned ones ``columns``."""
        first = self.first.schema_
        if all(map(operator.is_, schema.nodes_by_column, first.nodes_by_column)):
            # the same node specifications (members of one shared coding): the first's flags,
            # read once, not every member's built from its specifications
            schema = first
            known = self.__dict__.get("_first_kinds")
            if known is not None:
                return known
        same = bool(
            schema.discrete.all() and np.array_equal(np.flatnonzero(schema.binned), self.columns)
        )
        if schema is first:
            self._first_kinds = same
        return same

    def codes(self, member) -> tuple:
        """``member.encode`` of the rows (``(codes, None)``), from the first member's codes."""
        schema = member.schema_
        codes = self.codes_of_first.astype(codes_dtype(schema.categories), order="F")
        codes[:, self.columns] = block_bin_codes(
            [member.cut_points_[j] for j in self.columns], self.values[:, self.columns]
        )
        codes[:, list(schema.unobserved)] = MISSING
        return codes, None


def _cut_columns(member) -> list:
    return [j for j, c in enumerate(member.cut_points_ or ()) if c is not None]


def bootstrap_weights(seed, n_rows, sample_weight=None) -> np.ndarray:
    """A bootstrap sample of ``n_rows`` rows as row weights: how many times each row is drawn
    (``n_rows`` draws with replacement from ``seed``), times ``sample_weight``.

    A row left out weighs :data:`LEFT_OUT_WEIGHT`, not 0: a fit drops rows of weight 0, and
    with them a category or class only they hold, which every member must keep.

    Examples
    --------
    >>> bootstrap_weights(0, 5).tolist()
    [1e-06, 2.0, 1.0, 1.0, 1.0]
    """
    draws = np.random.default_rng(int(seed)).integers(0, n_rows, n_rows)
    weights = np.bincount(draws, minlength=n_rows).astype(float)
    weights[weights == 0] = LEFT_OUT_WEIGHT
    return weights if sample_weight is None else weights * sample_weight


def _generator(seed) -> np.random.Generator:
    return np.random.default_rng(int(seed))
