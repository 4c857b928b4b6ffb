"""The general Bayesian network classifier: the class an ordinary node of a DAG learnt from data."""

from __future__ import annotations

import time
from numbers import Integral, Real

import networkx as nx
import numpy as np

from ..dag_search import (
    blanket_perturbation,
    hill_climbing,
    holdout_gain,
    iterated_search,
    k2,
    one_to_one_copies,
    refine_blanket,
    refine_blanket_holdout,
    reorient_blanket,
    scored_moves,
    tabu_search,
)
from ..data import HANDLE_UNKNOWN, MISSING
from ..exceptions import ContinuousFeaturesError
from ..factors import CUT_TABLE_DISTRIBUTIONS, Categorical, node_from_spec
from ..network import fit_general_network
from ..scores import SCORES, FamilyScores
from ..state import require
from ..stats import StatisticsPlan, VariableCounts
from ..structure import markov_blanket, name_order
from ..validation import ALPHA, ArrayLike, InstanceOf, Interval, Options, validate_parameters
from ._base import (
    NetworkClassifier,
    StatisticsFit,
    unchanged_on_error,
)
from ._tan import TAN

#: The structure searches of :class:`BayesNetClassifier`.
SEARCHES = ("hill_climbing", "tabu", "iterated", "k2")
#: The start graphs it names.
STARTS = ("empty", "naive_bayes", "tan", "hill_climbing")


def _constant_columns(counts, variables, class_index) -> list:
    """The feature columns among ``variables`` constant on the training rows (those of
    positive weight): one state observed and no missing cell (a column whose cells are one
    state or missing tells which rows are missing, and a family holding it is counted on
    fewer rows, so it is left to the search)."""
    positive = counts.weights > 0
    live = counts.codes if positive.all() else counts.codes[positive]
    # reductions, not a copy of the table: MISSING (-1) is below every code, so a column
    # with a missing cell has its least code apart from its largest unless all are missing
    lowest, highest = live.min(axis=0), live.max(axis=0)
    constant = (lowest == highest) & (lowest != MISSING)
    return [v for v in variables if v != class_index and constant[v]]


class BayesNetClassifier(StatisticsFit, NetworkClassifier):
    """A Bayesian network learnt from data in which the class is an ordinary node.

    The structure is a DAG over the features and the class, searched by a
    decomposable score: the class may have parents of its own, features may
    be independent of it, and the class is predicted from its Markov blanket
    (its parents, its children and their other parents) by exact inference:
    ``P(c | x)`` is proportional to ``P(c | x_parents) * prod P(x_child | its
    parents)``, and missing cells are summed out of the whole network by
    variable elimination (a missing parent of the class makes its own
    ancestors informative). This is Weka's ``BayesNet`` and pyAgrum's
    ``BNClassifier``; every class-rooted model of bnclassify (naive Bayes,
    TAN, KDB, ...) is the special case where the class is a parent of every
    feature.

    Every column is a table node: categorical columns keep their categories,
    numeric ones are cut into intervals by the kinds rule (``"binned"``: MDL
    cut points learnt from the column and the class in each fit, as in every
    other model). The bins are learnt with the class even though the class is
    an ordinary node here: the class is what the model predicts, so a cut that
    tells nothing about it is not made (such a column becomes one state and
    drops out of the class's Markov blanket), and the bins do not depend on
    the structure the search is about to choose.

    The search works on the counts of the families it scores
    (:class:`~bnclassify.stats.VariableCounts`: the distinct training rows
    with the class as one more column), re-scores only the families a move
    changes, and caches every family's score. Ties between equal moves go by
    the columns' names (:func:`~bnclassify.structure.name_order`), never by
    their position in the table.

    Parameters
    ----------
    search : {"hill_climbing", "tabu", "iterated", "k2"}, default="hill_climbing"
        ``"hill_climbing"``: from ``start``, the best addition, removal or
        reversal of one arc while it raises the score (pgmpy's
        ``HillClimbSearch``, Weka's ``HillClimber``). ``"tabu"``: the best move
        whose undoing is not among the last ``tabu_length`` moves, raising the
        score or not, until ``tabu_length`` moves in a row bring no better graph;
        the best graph met is kept (it climbs as hill climbing first, so it scores
        at least as high; Weka's ``TabuSearch`` makes a fixed number of moves
        instead: ``max_iter``). ``"iterated"``: iterated local search
        (``bnclassify.dag_search.iterated_search``): ``"tabu"``'s walk, then
        ``restarts`` times ``perturbation`` random reversals of arcs of the best graph
        met (drawn with ``random_state``) and a tabu walk from there, the best graph
        kept; it does not rest on how one climb broke its ties between equal moves
        (under BDeu or BIC, ``u -> v`` and ``v -> u`` often tie). Its walks take the
        first move within the tolerance of the best (``"tabu"`` takes the largest gain
        as rounded), and it runs compiled when the extension is built: one C call that
        counts and scores every family itself (10-30 times faster than the Python
        twin that runs without the extension, with the same moves).
        ``"k2"``: Cooper and Herskovits' K2
        given ``order``: each node takes, among the nodes before it, the parent
        that most raises its score, while it does (Weka's ``K2``).
    score_type : {"bds", "bdeu", "bd", "k2", "bic", "aic", "loglik"}, default="bds"
        The decomposable score (Weka's ``scoreType``; ``score`` is scikit-learn's
        accuracy method) (see ``bnclassify.scores``): Scutari's sparse BDeu, BDs
        (the equivalent sample size ``prior_weight`` spread over the parent states
        that occur; bnlearn's ``"bds"``); BDeu with the equivalent sample size
        ``prior_weight``; the Bayesian Dirichlet score with ``prior_weight`` in every
        cell (Weka's ``BAYES``); K2 (``"bd"`` with 1); BIC (MDL); AIC; the
        log-likelihood (which only adds arcs: bound it with ``max_parents``). BDs
        with 10 is the default by the UCI sets' 5x2 CV (docs/benchmarks.md, "BDs
        against BDeu"): BDeu's share of each parent state shrinks with every parent,
        which on a small table rewards families of many parents.
    prior_weight : float, optional
        ``"bds"``'s and ``"bdeu"``'s equivalent sample size, or ``"bd"``'s pseudo-count
        per cell; default: 10 for ``"bds"``, 1 for the others (BDeu's 1 as before).
    max_parents : int, optional
        Most parents of any node, the class counted as one (pgmpy's
        ``max_indegree``, Weka's ``-P``); default: no limit.
    start : {"empty", "naive_bayes", "tan", "hill_climbing"}, DiGraph or list of arcs, \
default="empty"
        The graph the search starts from: no arc, the class a parent of every
        feature, TAN's tree (:class:`~bnclassify.TAN`), the local maximum that
        ``search="hill_climbing"`` reaches from no arc (with the same score and
        constraints; its moves open ``search_path_``), or a graph (a
        ``networkx.DiGraph``, or ``(parent, child)`` pairs) over the columns'
        names and the class's (the name ``class_node_`` will have: ``y``'s name,
        or ``"class"``). K2 starts each node's parents from it.
        ``search="iterated", start="hill_climbing", restarts=40`` scores at least
        as high as the default search on a complete table; on 10^6 rows sampled
        from expert networks it came within 0.00013 nats of the Bayes limit and
        below gradient boosting on all six class nodes (the default: 0.00027
        above the limit on water, gradient boosting 0.00016); on the 22 UCI sets
        its higher-scoring graphs predict worse than the default's
        (docs/benchmarks.md, "The iterated search from hill climbing's graph").
    forbidden, required : list of (str, str), optional
        Arcs ``(parent, child)``, named as in ``start``, that the network may never
        have, or must have (added to the start, never removed or reversed).
        ``forbidden=[(f, "class") for f in X.columns]`` keeps the class a root.
        The arcs out of a column constant on the training rows (one state, no
        missing cell) are removed from the learnt graph unless required: such a
        column tells nothing and its arcs change no prediction on the values seen,
        but a tie-accepting step can leave one, and a blanket holding it would not
        be minimal (on rows of water, a constant root was in the class's blanket).
    order : list of str, optional
        K2's order of the nodes, each parent before its children; the class
        first unless it is named; default: the class, then the columns by name.
    tabu_length : int, default=10
        Moves whose undoing is forbidden, and moves without a better graph after
        which ``"tabu"`` stops (hill climbing, which only takes moves that raise
        the score, never needs the list; pgmpy's ``tabu_length``).
    max_iter : int, optional
        Most moves of a search (default: until it stops by itself; ``"iterated"``: of
        each walk).
    restarts : int, default=10
        ``"iterated"``'s perturbations of the best graph, each followed by a walk. 40
        reach pgmpy's best score of seven runs on more tables (50 of 50 searches with
        ``random_state=0``, 48-50 with seeds 1-4, against 45-48 with 10) but predict
        worse where cells are missing (5x2 CV: anneal's 0-1 loss 0.77 against 0.57,
        heart.h's log loss 0.611 against 0.543): docs/benchmarks.md, "The compiled
        iterated search against pgmpy".
    perturbation : int, default=2
        ``"iterated"``'s random moves per perturbation (reversals of arcs while one is
        legal).
    ties : {"largest", "first"}, default="largest"
        How ``"hill_climbing"`` and ``"tabu"`` (and ``start="hill_climbing"``'s
        climb) choose among equally good moves (``bnclassify.dag_search.
        hill_climbing``): the largest gain as computed (equal gains, such as ``u ->
        v`` and ``v -> u`` under a score-equivalent score, then differ in their last
        bits, which decide), or the first move listed among those within the
        tolerance of the best, the rule of ``"iterated"``, which runs compiled when
        the extension is built. ``"first"`` fitted the 22 UCI sets in 2.0 s
        against the default's 5.7 s (5x2 CV, one thread; the forest 2.84 s), with
        no difference in predictions across the sets (log loss lower on 14, higher on
        6, Wilcoxon p 0.11; 0-1 p 0.98), but on hailfinder's 10^6 rows it stopped
        at a lower maximum (0.00123 nats over the Bayes limit against 0.00013):
        docs/benchmarks.md, "Ties broken by the first move: the compiled climb".
    reversal : bool, default=True
        Whether reversing an arc is a move of ``"hill_climbing"`` and ``"tabu"``
        (Weka's ``HillClimber`` and ``TabuSearch`` leave it out by default).
    perturb_blanket : bool, default=False
        After the search, an iterated local search around the class
        (``bnclassify.dag_search.blanket_perturbation``): each arc with an end in
        the class's Markov blanket (or the class) is removed or reversed in turn, the
        climb restarted from there (the arc forbidden, then free), and the first
        graph that scores higher is kept, until none does. For a blanket the
        search gets wrong at a local maximum (an arc between members turned round),
        at the cost of up to two short climbs per arc near the class per round (the
        climbs are hill climbing whatever ``search`` is, K2's order not kept).
    blanket_level : float, optional
        After the search, refine the class's Markov blanket by conditional tests at
        this level (``bnclassify.dag_search.refine_blanket``): arcs that would
        bring a feature into the class's family, make it a child of the class, or a
        parent of one of the class's children, are added while the G-test of the
        feature given the family's other parents (degrees of freedom adjusted for
        empty strata) rejects at ``blanket_level`` over the number of arcs tried
        (Bonferroni), the smallest p-value first; then the arcs of those families
        whose test no longer rejects at ``blanket_level`` are removed. For members a
        score leaves out because their family is large: its parameter penalty
        outweighs a dependence the rows show (on rows sampled from expert networks,
        a spouse whose common child has three parents already). No test is made
        on fewer than five rows per cell of its table. Use it with
        ``perturb_blanket=True``: on a graph turned round near the class the tests
        take a child's descendants for its parents. Default: no refinement, the
        search's graph.
    blanket_holdout : float, optional
        Last, refine the class's Markov blanket by its conditional log likelihood on
        held-out rows (``bnclassify.dag_search.refine_blanket_holdout``, 5 folds of the
        training rows, drawn with ``random_state``): the arcs that hold a member (into
        the class, out of it, into one of its children) are removed while a removal
        raises the held-out conditional log likelihood, and an arc that brings a feature
        in is added when the z statistic of its held-out gain passes the normal quantile
        of ``blanket_holdout`` over the number of arcs tried (Bonferroni). With
        ``perturb_blanket=True`` the arcs of the blanket the climb had before the
        perturbation are first put back where legal, so that the held-out test, not the
        score, chooses between the two blankets. For members a score leaves out or keeps
        by its penalty, judged by what they do to the class's prediction. Default: none.
    blanket_reorient : float, optional
        After the search, ``perturb_blanket`` and ``blanket_level``, before
        ``blanket_holdout``: turn arcs around the class by re-climbs judged on held-out
        rows, at this level (``bnclassify.dag_search.reorient_blanket``). Each candidate
        holds one arc (required, its reverse forbidden): the class a parent of one of its
        parents (or of two, or of all at once), a child of one of the class's children
        that is not adjacent to the class a parent of it instead (a spouse), or a child
        of the class below another child of it made that child's parent (one, or all at
        once: a collider between two children learnt turned round). The whole
        climb is run again from the graph with that arc turned, so the other arcs follow
        it (a move of several arcs), then ``blanket_level``'s tests when set. The
        candidate that raises the held-out conditional log likelihood of the class (5
        folds drawn with ``random_state``) with the largest z statistic is taken when that
        z passes the normal quantile of ``blanket_reorient`` over the number of candidates
        (Bonferroni), and the next round starts from it, until none passes. For a family
        around the class that the score orients wrong at a local maximum no single move
        leaves (on rows of water, the class's true children learnt as its parents, their
        other parents then no spouses). Its cost: a climb and the tests per candidate per
        round. Default: none (an example below).
    merge_copies : bool, default=False
        Search over one column of each group of columns that are one-to-one relabels
        of each other on the training rows (``bnclassify.dag_search.one_to_one_copies``:
        every state of one goes with a single state of the other, both ways), the
        first by name; each other column of the group is then its representative's
        child, its only parent. Such columns carry the same information in every row,
        so no score or test can choose between them (the class's Markov blanket is not
        unique), and a search that sees both ties a family to either by its path (on
        rows of hailfinder, whose ``CapChange`` is ``CompPlFcst`` renamed, the class's
        child is ``CapChange`` where the network has ``CompPlFcst``); merged, the
        choice is the name order's. It does not add information: the blankets learnt
        on those rows are the same up to the copies, or differ in a weak member. The
        class is never merged, nor a column named in ``forbidden``, ``required`` or
        ``order``; arcs of ``start`` that touch a merged column are dropped, and
        ``score_`` is the searched network's (the copies' families left out).
    alpha : float, default=1.0
        Pseudo-count of every cell of every table (including the class's),
        ``(N + alpha) / (N_parents + r alpha)``.
    handle_unknown : {"warn", "error", "marginalize"}, default="warn"
        A category never seen in training: summed out like a missing cell
        (``"warn"`` says so once, ``"marginalize"`` silently) or an error.
    distributions : None, "categorical", "binned" or dict, default=None
        Which columns are categories and which are numbers to bin (per column in
        a dict, a :class:`~bnclassify.distributions.Binned` instance with fixed cut
        points too, as ``partial_fit`` needs them); the kinds rule by default.
        Densities are refused: every node is a table.
    random_state : int or None, default=0
        Seed of ``"iterated"``'s perturbations and of the held-out folds of
        ``blanket_holdout`` (the only random steps; fixed by default, so a fit is
        repeatable; None draws fresh ones).

    Attributes
    ----------
    structure_ : networkx.DiGraph
        The learnt DAG over the class node and the features.
    markov_blanket_ : list of str
        The class's Markov blanket in the learnt DAG, in column order: the only
        features a complete row is classified by.
    score_ : float
        The learnt structure's score (natural log), over the columns observed in training,
        each family counted on the rows that observe all of it (pgmpy's
        ``structure_score`` on the same table, missing cells included).
    search_path_ : list of (str, str, str, float)
        The moves of the search, in order: ``(move, parent, child, score)``,
        ``move`` one of ``"add"``, ``"remove"``, ``"reverse"`` (of the arc
        ``parent -> child``), ``score`` the network's score after it (K2: the
        child's family's): the start's score plus the gains of the moves so far, each
        gain counted on the rows observing the larger family, so with missing cells it
        may differ from ``score_``. ``pandas.DataFrame(model.search_path_)`` tabulates it.
    n_iter_ : int
        The search's steps: its moves, and the last step, which made none.
    compiled_ : bnclassify.network.FittedNetwork
        The fitted network: the class's table (``compiled_.class_factor`` when
        it has parents) and one table per feature.
    classes_, categories_, feature_kinds_, class_node_, n_features_in_, feature_names_in_
        As in :class:`~bnclassify.NaiveBayes`.
    blanket_tests_ : list of (str, str, str, float, int, float)
        With ``blanket_level``: the arcs the refinement added and removed, in order,
        ``(move, parent, child, G, df, p)`` (also at the end of ``search_path_``);
        with ``blanket_holdout``, its moves follow, ``(move, parent, child, gain, 0,
        z)``, ``move`` one of ``"cv_add"`` and ``"cv_remove"`` (and first
        ``"cv_unperturbed"``, from the class to itself, when the climb's graph is kept
        instead of the perturbation's),
        ``gain`` the held-out conditional log likelihood (nats) and ``z`` its
        statistic. With ``blanket_reorient``, each candidate taken follows:
        ``("cv_reorient", parent, child, gain, 0, z)`` for each arc it held (its held-out
        gain and z), then its own refinements' moves. With ``merge_copies``, first
        ``("copy", representative, copy, 0.0, 0, 1.0)`` for each column merged. Otherwise
        empty.
    reorient_tried_ : list of (int, tuple, float, float, float, bool)
        With ``blanket_reorient``: every candidate judged, ``(round, arcs, gain, z,
        threshold, taken)``, ``arcs`` the held ``(parent, child)`` names, ``gain`` its
        held-out conditional log likelihood over the graph it started from (nats);
        otherwise empty.
    fit_times_ : dict
        Seconds spent on the ``"structure"`` and the ``"parameters"``.

    Examples
    --------
    >>> from bnclassify import BayesNetClassifier
    >>> from bnclassify.datasets import load_car
    >>> X, y = load_car(return_X_y=True)
    >>> model = BayesNetClassifier(score_type="bic").fit(X, y)
    >>> model.markov_blanket_  # "doors" tells nothing the others do not
    ['buying', 'maint', 'persons', 'lug_boot', 'safety']
    >>> sorted(model.structure_.predecessors("class"))  # the class has parents of its own
    ['buying', 'maint']
    >>> round(model.score(X, y), 3)
    0.91

    Weka's default ``BayesNet`` (K2, at most one parent, the Bayes score with
    Weka's alpha 0.5, from naive Bayes) is naive Bayes, since the class fills
    every feature's one parent:

    >>> weka = BayesNetClassifier(search="k2", score_type="bd", prior_weight=0.5,
    ...                           max_parents=1, start="naive_bayes", alpha=0.5).fit(X, y)
    >>> sorted(weka.structure_.edges()) == sorted(("class", f) for f in X.columns)
    True

    The climb's local maximum rests on how it broke ties between equal moves; the
    iterated search restarts from reversals of its arcs and keeps the best graph met:

    >>> climbed = BayesNetClassifier(score_type="bdeu").fit(X, y)
    >>> iterated = BayesNetClassifier(search="iterated", score_type="bdeu", restarts=10,
    ...                               random_state=0).fit(X, y)
    >>> round(iterated.score_ - climbed.score_)  # nats of BDeu(1)
    24

    A class's child learnt as its parent, turned back by ``blanket_reorient``: ``x``
    is the child of the class and of ``s``; with the arc from ``s`` into the class
    forbidden, the climb makes ``x`` the class's parent and ``s`` is no member; the
    repair holds ``class -> x``, climbs again and the held-out likelihood takes it:

    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> c, s, a = rng.integers(0, 2, (3, 5000))
    >>> c = a ^ (rng.random(5000) < 0.2)
    >>> coin = rng.random(5000) < 0.1
    >>> x = np.where(coin, rng.integers(0, 2, 5000), c ^ (s & (rng.random(5000) < 0.2)))
    >>> w = x ^ (rng.random(5000) < 0.05)
    >>> X = pd.DataFrame({"a": a, "s": s, "x": x, "w": w}).astype(str)
    >>> y = pd.Series(c, name="class").astype(str)
    >>> barred = [("s", "class")]
    >>> BayesNetClassifier(forbidden=barred).fit(X, y).markov_blanket_
    ['a', 'x']
    >>> turned = BayesNetClassifier(forbidden=barred, blanket_reorient=0.01).fit(X, y)
    >>> turned.markov_blanket_, turned.blanket_tests_[0][:3]
    (['a', 's', 'x'], ('cv_reorient', 'class', 'x'))
    """

    _parameter_constraints = {
        "search": [Options(set(SEARCHES))],
        "score_type": [Options(set(SCORES))],
        "prior_weight": [Interval(Real, 0, None, closed="neither"), None],
        "max_parents": [None, Interval(Integral, 0, None, closed="left")],
        "start": [
            Options(set(STARTS)),
            InstanceOf(nx.DiGraph, "a networkx DiGraph"),
            ArrayLike(),
        ],
        "forbidden": [None, ArrayLike()],
        "required": [None, ArrayLike()],
        "order": [None, ArrayLike()],
        "tabu_length": [Interval(Integral, 0, None, closed="left")],
        "max_iter": [None, Interval(Integral, 1, None, closed="left")],
        "restarts": [Interval(Integral, 0, None, closed="left")],
        "perturbation": [Interval(Integral, 1, None, closed="left")],
        "ties": [Options({"largest", "first"})],
        "reversal": ["boolean"],
        "perturb_blanket": ["boolean"],
        "blanket_level": [None, Interval(Real, 0, 1, closed="neither")],
        "blanket_holdout": [None, Interval(Real, 0, 1, closed="neither")],
        "blanket_reorient": [None, Interval(Real, 0, 1, closed="neither")],
        "merge_copies": ["boolean"],
        "alpha": ALPHA,
        "handle_unknown": [Options(HANDLE_UNKNOWN)],
        "distributions": [CUT_TABLE_DISTRIBUTIONS],
        "random_state": [None, Interval(Integral, 0, None, closed="left")],
    }

    def __init__(
        self,
        search="hill_climbing",
        score_type="bds",
        prior_weight=None,
        max_parents=None,
        start="empty",
        forbidden=None,
        required=None,
        order=None,
        tabu_length=10,
        max_iter=None,
        reversal=True,
        perturb_blanket=False,
        blanket_level=None,
        blanket_holdout=None,
        merge_copies=False,
        blanket_reorient=None,
        alpha=1.0,
        handle_unknown="warn",
        distributions=None,
        random_state=0,
        restarts=10,
        perturbation=2,
        ties="largest",
    ):
        self.search = search
        self.score_type = score_type
        self.prior_weight = prior_weight
        self.max_parents = max_parents
        self.start = start
        self.forbidden = forbidden
        self.required = required
        self.order = order
        self.tabu_length = tabu_length
        self.max_iter = max_iter
        self.reversal = reversal
        self.perturb_blanket = perturb_blanket
        self.blanket_level = blanket_level
        self.blanket_holdout = blanket_holdout
        self.merge_copies = merge_copies
        self.blanket_reorient = blanket_reorient
        self.alpha = alpha
        self.handle_unknown = handle_unknown
        self.distributions = distributions
        self.random_state = random_state
        self.restarts = restarts
        self.perturbation = perturbation
        self.ties = ties

    def statistics_plan(self, schema=None) -> StatisticsPlan:
        """What an incremental or dask fit keeps: the distinct rows (any family's counts),
        and the pair table when the search starts from TAN."""
        return StatisticsPlan(
            rows=True, pairwise=isinstance(self.start, str) and self.start == "tan"
        )

    # -- fitting -----------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        """Learn the structure from the data, then every table.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            NaN/None cells are missing: each family is counted on the rows that
            observe all of its variables. A dask DataFrame is fitted from the
            distinct rows of its partitions, summed on the cluster.
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative row weights, as frequencies in every count.

        Returns
        -------
        self
        """
        return super().fit(X, y, sample_weight)

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add a chunk of rows and learn the structure and the tables again from all rows so far.

        The statistics are the distinct rows seen so far (with the class) and
        their weights; each call runs the whole search again on them, so after
        any sequence of chunks the model equals ``fit`` on their concatenation.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like, optional
            Every class label; required on the first call.
        sample_weight : array-like of shape (n_samples,), optional

        Returns
        -------
        self
        """
        return super().partial_fit(X, y, classes, sample_weight)

    def fit_statistics(self, stats, schema, classes, *, class_node="class", keep=False):
        """Learn the structure and the tables from training statistics: every fit's one entry.

        Parameters
        ----------
        stats : TrainingCounts or SufficientStatistics
            Statistics that answer ``variable_counts()`` (and the pair table when
            ``start="tan"``).
        schema : bnclassify.data.TableSchema
        classes : array-like of shape (n_classes,)
        class_node : str, default="class"
        keep : bool, default=False
            Keep ``stats`` as ``statistics_`` for a later ``partial_fit``.

        Returns
        -------
        self
        """
        validate_parameters(self)
        with unchanged_on_error(self):
            return self._fit_statistics(stats, schema, classes, class_node, keep)

    def _fit_statistics(self, stats, schema, classes, class_node, keep):
        self.__dict__.pop("statistics_", None)
        self.__dict__.pop("_fit_rows", None)
        _check_tables(schema)
        self._set_schema(schema, class_node=class_node)
        self.classes_ = np.asarray(classes)
        counts = stats.variable_counts()
        started = time.perf_counter()
        parents, path, score, tests, tried = self._search(counts, stats, schema)
        searched = time.perf_counter()
        self.compiled_ = fit_general_network(counts, schema, parents, float(self.alpha))
        names = [*schema.names, class_node]
        dag = nx.DiGraph()
        dag.add_nodes_from([class_node, *schema.names])
        dag.add_edges_from((names[p], names[v]) for v, ps in enumerate(parents) for p in ps)
        self.structure_ = dag
        blanket = set(markov_blanket(dag, class_node))
        self.markov_blanket_ = [name for name in schema.names if name in blanket]
        self.score_ = score
        self.search_path_ = [(move, names[u], names[v], float(s)) for move, u, v, s in path]
        self.blanket_tests_ = [
            (move, names[u], names[v], float(g), int(df), float(p))
            for move, u, v, g, df, p in tests
        ]
        self.reorient_tried_ = [
            (k, tuple((names[u], names[v]) for u, v in arcs), g, z, t, taken)
            for k, arcs, g, z, t, taken in tried
        ]
        self.n_iter_ = len(path) + 1
        self.fit_times_ = {
            "structure": searched - started,
            "parameters": time.perf_counter() - searched,
        }
        self._network = None
        if keep:
            self.statistics_ = stats
        return self

    def set_fitted_network(self, network, schema, classes, structure, *, class_node="class"):
        """Make this model the given fitted network: parameters given, not learned.

        For networks built elsewhere (a pgmpy network, :func:`bnclassify.io.from_pgmpy`):
        the model then predicts, explains and saves like a fitted one; ``fit``
        learns a structure and tables of its own.

        Parameters
        ----------
        network : bnclassify.network.FittedNetwork
            Its ``class_factor`` and ``class_free`` must agree with ``structure``.
        schema : bnclassify.data.TableSchema
        classes : array-like of shape (n_classes,)
        structure : networkx.DiGraph
            The DAG over ``class_node`` and the schema's columns.
        class_node : str, default="class"

        Returns
        -------
        self
        """
        self._set_schema(schema, class_node=class_node)
        self.classes_ = np.asarray(classes)
        dag = nx.DiGraph()
        dag.add_nodes_from([class_node, *schema.names])
        dag.add_edges_from(structure.edges)
        self.structure_ = dag
        blanket = set(markov_blanket(dag, class_node))
        self.markov_blanket_ = [name for name in schema.names if name in blanket]
        self.compiled_ = network
        self.score_ = None
        self.search_path_ = []
        self.blanket_tests_ = []
        self.reorient_tried_ = []
        self.n_iter_ = 0
        self.fit_times_ = {"structure": 0.0, "parameters": 0.0}
        self._check_state()
        return self

    # -- the search --------------------------------------------------------------------
    def _search(self, counts, stats, schema):
        """``(parents of every variable, path, score, tests, tried)``: ``tried`` the candidates
        ``blanket_reorient`` judged (``reorient_tried_`` by positions); variables are the
        columns, then the class; the search sees the observed ones in name order."""
        m = schema.n_features
        names = [*schema.names, self.class_node_]
        unobserved = set(schema.unobserved)
        variables = [v for v in range(m + 1) if v not in unobserved]
        copies = {}
        if self.merge_copies:
            named = {
                self._named(name, names, what)
                for what in ("forbidden", "required")
                for arc in list(getattr(self, what) or [])
                for name in arc
                if name in names
            }
            named |= {names.index(name) for name in list(self.order or []) if name in names}
            features = [v for v in variables if v != m and v not in named]
            features = [features[k] for k in name_order([names[v] for v in features])]
            copies = one_to_one_copies(counts, features)
            variables = [v for v in variables if v not in copies]
        ranked = [variables[k] for k in name_order([names[v] for v in variables])]
        index = {v: k for k, v in enumerate(ranked)}
        searched = VariableCounts(counts.codes[:, ranked], counts.weights, counts.cards[ranked])
        scores = FamilyScores(searched, self.score_type, self._prior_weight(), index[m])
        start = [set() for _ in ranked]
        for u, v in self._start_arcs(stats, schema, names):
            if u in copies or v in copies:
                continue
            start[index[v]].add(index[u])
        banned = self._arcs("forbidden", names, unobserved)
        needed = self._arcs("required", names, unobserved)
        clash = set(banned) & set(needed)
        if clash:
            u, v = sorted(clash)[0]
            raise ValueError(
                f"The arc ({names[u]!r}, {names[v]!r}) is both required and forbidden."
            )
        graph = nx.DiGraph(
            [(ranked[u], ranked[v]) for v, ps in enumerate(start) for u in ps] + needed
        )
        graph.remove_edges_from(banned)
        if not nx.is_directed_acyclic_graph(graph):
            cycle = [names[u] for u, _ in nx.find_cycle(graph)]
            raise ValueError(f"The start graph with the required arcs has a cycle: {cycle}.")
        forbidden = [(index[u], index[v]) for u, v in banned]
        required = [(index[u], index[v]) for u, v in needed]
        options = {"max_parents": self.max_parents, "forbidden": forbidden, "required": required}
        walks = {"tabu_length": self.tabu_length, "reversal": self.reversal}
        walks["max_iter"] = self.max_iter
        start_path = []
        if isinstance(self.start, str) and self.start == "hill_climbing":
            # the default search's climb, whatever search follows
            found, start_path = hill_climbing(
                scores, len(ranked), start, ties=self.ties, **walks, **options
            )
            start = [set(parents) for parents in found]
        if self.search == "k2":
            order = [index[v] for v in self._k2_order(names, unobserved, ranked)]
            found, path = k2(scores, order, start, **options)
        else:
            options.update(walks)
            if self.search == "iterated":
                found, path = iterated_search(
                    scores,
                    len(ranked),
                    start,
                    restarts=self.restarts,
                    perturbation=self.perturbation,
                    random_state=self.random_state,
                    **options,
                )
            else:
                climb = tabu_search if self.search == "tabu" else hill_climbing
                found, path = climb(scores, len(ranked), start, ties=self.ties, **options)
        path = [*start_path, *path]
        tests, steps = [], []
        if self.perturb_blanket:
            climbed, before = found, path
            found, more = blanket_perturbation(
                scores,
                len(ranked),
                found,
                index[m],
                max_parents=self.max_parents,
                forbidden=forbidden,
                required=required,
                reversal=self.reversal,
            )
            path = [*path, *more]
            if self.blanket_holdout is not None and more:
                # the perturbation's graph scores higher; the class's prediction on
                # held-out rows decides whether its blanket is kept
                gain, z = holdout_gain(
                    searched,
                    found,
                    climbed,
                    index[m],
                    alpha=float(self.alpha),
                    random_state=self.random_state,
                )
                if gain > 0:
                    found, path = climbed, before
                    tests.append(("cv_unperturbed", index[m], index[m], gain, 0, z))

        def level_refinement(found, forbidden, required):
            if self.blanket_level is None:
                return found, []
            return refine_blanket(
                searched,
                found,
                index[m],
                float(self.blanket_level),
                max_parents=self.max_parents,
                forbidden=forbidden,
                required=required,
            )

        found, level_tests = level_refinement(found, forbidden, required)
        tests += level_tests
        steps += [(move, u, v) for move, u, v, *_ in level_tests]
        found_before, tried = found, []
        if self.blanket_reorient is not None:
            # each candidate goes through the tests' refinement before it is judged (the
            # held-out one, costlier, runs once on the graph taken)
            def candidate_tests(found, held, barred):
                return level_refinement(found, barred, held)

            found, more, taken, tried = reorient_blanket(
                scores,
                searched,
                found,
                index[m],
                float(self.blanket_reorient),
                alpha=float(self.alpha),
                max_parents=self.max_parents,
                forbidden=forbidden,
                required=required,
                reversal=self.reversal,
                random_state=self.random_state,
                refine=None if self.blanket_level is None else candidate_tests,
            )
            rounds = [t for t in tried if t[5]]
            for (_, arcs, g, z, _, _), moves in zip(rounds, taken, strict=True):
                tests += [("cv_reorient", u, v, g, 0, z) for u, v in arcs]
                tests += moves
            tried = [
                (k, tuple((ranked[u], ranked[v]) for u, v in arcs), g, z, t, ok)
                for k, arcs, g, z, t, ok in tried
            ]
            if steps:
                # the tests' moves on the graph before the repair, then the repair's
                path = [*path, *scored_moves(scores, found_before, steps)]
                steps = []
            path = [*path, *more]
        if self.blanket_holdout is not None:
            found, moves = refine_blanket_holdout(
                searched,
                found,
                index[m],
                float(self.blanket_holdout),
                alpha=float(self.alpha),
                random_state=self.random_state,
                max_parents=self.max_parents,
                forbidden=forbidden,
                required=required,
            )
            tests += [(f"cv_{move}", u, v, g, 0, z) for move, u, v, g, z in moves]
            steps += [("remove" if move == "remove" else "add", u, v) for move, u, v, *_ in moves]
        # a constant column tells nothing: its arcs change no prediction, yet a tie-accepting
        # step can leave one, and a blanket holding it would not be minimal (the search
        # itself keeps them, so that its walks are not changed)
        found = [set(ps) for ps in found]
        for u in _constant_columns(counts, variables, m):
            for v, ps in enumerate(found):
                if index[u] in ps and (u, ranked[v]) not in needed:
                    ps.discard(index[u])
                    steps.append(("remove", index[u], v))
        found = [tuple(sorted(ps)) for ps in found]
        if steps:
            path = [*path, *scored_moves(scores, found, steps)]
        parents = [() for _ in range(m + 1)]
        for k, ps in enumerate(found):
            parents[ranked[k]] = tuple(sorted(ranked[p] for p in ps))
        for copy, first in copies.items():
            parents[copy] = (first,)
        score = scores.network({k: ps for k, ps in enumerate(found)})
        path = [(move, ranked[u], ranked[v], s) for move, u, v, s in path]
        tests = [(move, ranked[u], ranked[v], g, df, p) for move, u, v, g, df, p in tests]
        tests = [("copy", first, copy, 0.0, 0, 1.0) for copy, first in copies.items()] + tests
        return parents, path, score, tests, tried

    def _prior_weight(self) -> float:
        """``prior_weight``, or its default for the score: 10 for BDs, 1 for the others."""
        if self.prior_weight is not None:
            return float(self.prior_weight)
        return 10.0 if self.score_type == "bds" else 1.0

    def _named(self, name, names, what):
        if name not in names:
            raise ValueError(
                f"{what} names {name!r}, which is neither a column nor the class "
                f"({names[-1]!r}); the nodes are {names}."
            )
        return names.index(name)

    def _arcs(self, parameter, names, unobserved, arcs=None):
        """The arcs of a parameter (pairs of names) as positions, those of unobserved
        columns left out (such columns take part in no structure)."""
        given = getattr(self, parameter) if arcs is None else arcs
        out = []
        for arc in [] if given is None else list(given):
            if not (isinstance(arc, tuple | list) and len(arc) == 2):
                raise ValueError(f"{parameter} must hold (parent, child) pairs, got {arc!r}.")
            u, v = (self._named(end, names, parameter) for end in arc)
            if u == v:
                raise ValueError(f"{parameter} holds the loop {arc!r}.")
            if u not in unobserved and v not in unobserved:
                out.append((u, v))
        return out

    def _start_arcs(self, stats, schema, names):
        start, class_node = self.start, names[-1]
        if isinstance(start, str) and start in ("empty", "hill_climbing"):
            return []  # "hill_climbing": the climb from no arc runs in _search
        if isinstance(start, str) and start == "naive_bayes":
            return [
                (len(names) - 1, j) for j in range(schema.n_features) if j not in schema.unobserved
            ]
        if isinstance(start, str) and start == "tan":
            tan = TAN(alpha=self.alpha).fit_statistics(
                stats, schema, self.classes_, class_node=class_node
            )
            return [(names.index(u), names.index(v)) for u, v in tan.structure_.edges]
        edges = list(start.edges) if isinstance(start, nx.DiGraph) else list(start)
        arcs = self._arcs("start", names, set(schema.unobserved), edges)
        graph = nx.DiGraph(arcs)
        if not nx.is_directed_acyclic_graph(graph):
            cycle = [names[u] for u, _ in nx.find_cycle(graph)]
            raise ValueError(f"start has a cycle: {cycle}.")
        return arcs

    def _k2_order(self, names, unobserved, ranked):
        class_variable = len(names) - 1
        if self.order is None:
            return [class_variable] + [v for v in ranked if v != class_variable]
        order = [self._named(name, names, "order") for name in self.order]
        if len(set(order)) != len(order):
            raise ValueError(f"order names a node twice: {list(self.order)}.")
        if class_variable not in order:
            order = [class_variable, *order]
        wanted = set(ranked)
        left = sorted(wanted - set(order), key=ranked.index)
        if left:
            raise ValueError(f"order leaves out the columns {[names[v] for v in left]}.")
        return [v for v in order if v in wanted]

    # -- declared state (see SchemaAttributes._get_state) --------------------------------
    _FITTED_FIELDS = {
        "structure_": "structure_",
        "compiled_": "compiled_",
        "markov_blanket_": "markov_blanket_",
        "score_": "score_",
        "search_path_": "search_path_",
        "blanket_tests_": "blanket_tests_",
        "n_iter_": "n_iter_",
        "fit_times_": "fit_times_",
    }

    def _check_state(self):
        super()._check_state()
        network, structure = self.compiled_, self.structure_
        position = {name: j for j, name in enumerate(self.schema_.names)}
        class_parents = [] if network.class_factor is None else network.class_factor.parents_
        require(
            sorted(structure.predecessors(self.class_node_)) == sorted(class_parents),
            "structure_",
            "the class's parents differ from its table's.",
        )
        for j, name in enumerate(self.schema_.names):
            parents = set(structure.predecessors(name))
            rooted = self.class_node_ in parents
            require(
                rooted == (j not in network.class_free)
                and {position[p] for p in parents - {self.class_node_}} == set(network.parents[j]),
                "structure_",
                f"the parents of {name!r} differ from its table's.",
            )
        blanket = set(markov_blanket(structure, self.class_node_))
        require(
            list(self.markov_blanket_) == [n for n in self.schema_.names if n in blanket],
            "markov_blanket_",
            "is not the class's Markov blanket in structure_.",
        )


def _check_tables(schema):
    """Every column a table node (categorical or binned), or never observed."""
    unobserved = set(schema.unobserved)
    dense = [
        schema.names[j]
        for columns, spec in schema.nodes
        for j in columns
        if j not in unobserved and not isinstance(node_from_spec(spec), Categorical)
    ]
    if dense:
        raise ContinuousFeaturesError(
            f"BayesNetClassifier models every column as a table; the columns {dense} are "
            "densities. Leave distributions=None (numeric columns are binned) or name them "
            "'binned'."
        )
