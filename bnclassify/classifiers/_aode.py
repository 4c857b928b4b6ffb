"""Super-parent one-dependence estimators (SPODE) and their average, AODE."""

from __future__ import annotations

import time
import warnings
from numbers import Integral

import numpy as np
from scipy.special import logsumexp
from sklearn.utils.validation import check_is_fitted

from .._native import aode_block, aode_proba
from .._native.averaging import fixed_point, pad_classes, padded_classes
from ..data import HANDLE_UNKNOWN, MISSING
from ..exceptions import InvalidParameterError, WarningsOnceFromCaller, caller_stacklevel
from ..factors import DISTRIBUTIONS
from ..information import class_mi_from_counts
from ..parameters import SMOOTHING, Laplace
from ..state import float_array, require
from ..stats import (
    BLOCK_CELLS,
    MAX_PAIRWISE_CELLS,
    StatisticsPlan,
    SufficientStatistics,
    TrainingCounts,
    column_blocks,
)
from ..structure import empty_feature_graph, name_order
from ..validation import ALPHA, RANDOM_STATE, Interval, Options, validate_parameters
from ._adapter import table_smoothing
from ._base import (
    AugmentedNaiveBayes,
    StatisticsFit,
    unchanged_on_error,
)
from ._ensemble import MemberEnsemble, MemberSequence, fit_member
from ._predict import ImpossibleRowsError, normalise
from ._tan import ROOT, NaiveBayes

#: Most categories in all for which prediction's table has a column for every informative
#: category; over it, only for those the predicted rows hold (an identifier's, mostly unseen,
#: are not).
CHILD_CATEGORIES = 4096
#: Weka's ``AODEsr`` critical value (``-C``, Zheng and Webb 2006): a value subsumes
#: another only when it was seen more than this many times in training.
SUBSUMPTION_MIN_COUNT = 50


def value_pair_counts(stats, cards, features, n_classes) -> np.ndarray:
    """N(x_i = a, x_j = b) over the training rows, every class summed, shape ``(R, R)``.

    ``features`` are the positions of categorical features, ``cards`` every feature's
    number of categories; ``R`` is the categories of ``features`` in all, in their order.
    The table ``bnclassify.classifiers.subsumed`` reads, computed a bounded block at a time from any
    statistics with a ``pair_table`` (a kept pair table or the encoded rows).
    """
    features = list(features)
    cards = np.asarray(cards, dtype=np.intp)[features]
    total = int(cards.sum())
    out = np.zeros((total, total))
    start = 0
    for block in column_blocks(cards, max(1, BLOCK_CELLS // max(1, n_classes * total))):
        rows = stats.pair_table([features[b] for b in block], features).sum(axis=0)
        out[start : start + len(rows)] = rows
        start += len(rows)
    return out


def subsumed(codes, cards, pair_counts, min_count=SUBSUMPTION_MIN_COUNT) -> np.ndarray:
    """The cells subsumption resolution deletes from each row (Zheng and Webb 2006).

    An observed value ``x_i`` is a generalisation of another observed value ``x_j`` of the
    same row when every training row holding ``x_j`` also holds ``x_i``,
    ``N(x_i, x_j) = N(x_j)``, and ``x_j`` was seen more than ``min_count`` times; the
    generalisation is deleted (it adds nothing ``x_j`` does not say, and counting it twice
    overweights it). Of two values that subsume each other (equal counts), the one of the
    lower column survives. This is the test of Weka's ``AODEsr`` (``-C``, default 50).

    Parameters
    ----------
    codes : ndarray of shape (n_samples, n_features)
        Category codes, -1 where missing (or unseen: never deleted, never deleting).
    cards : sequence of int
        Each feature's number of categories.
    pair_counts : ndarray of shape (R, R)
        :func:`value_pair_counts` of the training rows over these features.
    min_count : int, default=50

    Returns
    -------
    ndarray of bool, shape (n_samples, n_features)
        True where the value is deleted.

    Examples
    --------
    >>> import numpy as np
    >>> codes = np.array([[0, 0], [0, 1], [1, 1]] * 30)
    >>> onehot = np.eye(4)[codes + [0, 2]].sum(axis=1)  # categories 0-1, then 2-3
    >>> pairs = onehot.T @ onehot
    >>> subsumed(codes[:3], [2, 2], pairs, min_count=10)  # x1=0 implies x0=0, x0=1 x1=1
    array([[ True, False],
           [False, False],
           [False,  True]])
    """
    codes = np.asarray(codes)
    cards = np.asarray(cards, dtype=np.intp)
    n, m = codes.shape
    dropped = np.zeros((n, m), dtype=bool)
    if m < 2 or n == 0:
        return dropped
    offsets = np.concatenate([[0], np.cumsum(cards)])[:-1]
    observed = (codes != MISSING) & (codes < cards)
    cell = np.where(observed, codes + offsets, 0)
    frequency = np.diagonal(pair_counts)[cell]  # N(x_j), (n, m)
    later = np.arange(m)[:, None] < np.arange(m)[None, :]  # i < j
    others = ~np.eye(m, dtype=bool)
    rows_per_block = max(1, BLOCK_CELLS // (m * m))
    for start in range(0, n, rows_per_block):
        rows = slice(start, start + rows_per_block)
        c, f, o = cell[rows], frequency[rows], observed[rows]
        both = pair_counts[c[:, :, None], c[:, None, :]]  # N(x_i, x_j), (b, i, j)
        specific = o[:, None, :] & (f[:, None, :] > min_count) & (both == f[:, None, :])
        mutual = (f[:, :, None] == f[:, None, :]) & later  # x_i survives its equal x_j
        dropped[rows] = o & (specific & others & ~mutual).any(axis=2)
    return dropped


class SPODE(AugmentedNaiveBayes):
    """Super-parent one-dependence estimator: one feature is a parent of all the others.

    The class is a parent of every feature and the super-parent a parent of
    every other feature: P(c, x) = P(c) P(x_sp | c) prod_j P(x_j | c, x_sp).
    :class:`AODE` averages one SPODE per feature.

    Parameters
    ----------
    superparent : str or int, optional
        The super-parent: a categorical feature's name or position (default:
        the first categorical feature in name order,
        :func:`bnclassify.structure.name_order`, not in column order; with
        none, the model is naive Bayes and says so in a warning). A continuous
        super-parent is refused: it could not be a parent of the categorical
        features.
    alpha : float, default=1.0
        Dirichlet pseudo-count for every CPT cell and the class prior.
    handle_unknown : {"warn", "error", "marginalize"}, default="warn"
    distributions : None, str, Distribution or dict, default=None
        How each column is modelled, as in :class:`NaiveBayes` (default:
        continuous columns binned, tables that may be the super-parent;
        ``"density"``: continuous columns Gaussian or log-normal, children of
        the super-parent only).
    smoothing : {"laplace", "hdp", "hls"} or Smoothing, default="laplace"
        How each categorical table is estimated from its counts (see
        :mod:`bnclassify.parameters` and the user guide's smoothing page). ``"laplace"``:
        ``alpha`` added to every cell. ``"hdp"``: each table backs off to the tables of
        fewer parents by a hierarchical Dirichlet process
        (:class:`~bnclassify.parameters.HDP`, a Gibbs sampler seeded by ``random_state``),
        the hierarchy being the class, then the super-parent. An instance sets a method's
        options (``smoothing=HDP(n_iter=1000)``). The class prior keeps ``alpha``.
        ``"hls"``: the same hierarchy written as a log-linear model, one coefficient per
        node, fitted by ridge-penalised multinomial logistic regression
        (:class:`~bnclassify.parameters.HLS`), its ridge chosen by cross-validation on
        the training rows.
    random_state : int, RandomState instance or None, default=None
        Seeds a smoothing that samples (``"hdp"``); unused otherwise.

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

    _parameter_constraints = {
        **AugmentedNaiveBayes._parameter_constraints,
        "superparent": [None, ROOT],
        "distributions": [DISTRIBUTIONS],
    }

    def __init__(
        self,
        superparent=None,
        alpha=1.0,
        handle_unknown="warn",
        distributions=None,
        smoothing="laplace",
        random_state=None,
    ):
        super().__init__(
            alpha=alpha,
            handle_unknown=handle_unknown,
            smoothing=smoothing,
            random_state=random_state,
        )
        self.superparent = superparent
        self.distributions = distributions

    def _edge_weights(self, counts, features):
        self._superparent(features)  # fail early on a bad name
        return None

    def _feature_dag(self, weights, features, counts):
        hub = self._superparent(features)
        star = empty_feature_graph(features)
        if hub is None:
            return star
        chosen_by_user = self.superparent is not None and not self.__dict__.get("_member")
        if chosen_by_user and counts.cards[features.index(hub)] < 2:
            kind = self.schema_.kinds[features.index(hub)]
            why = " (MDL found no cut point in its numbers)" if kind == "binned" else ""
            warnings.warn(
                f"superparent {hub!r} has a single state in the training rows{why}, so it "
                "tells its children nothing and this SPODE is naive Bayes; choose a feature "
                "with several states.",
                UserWarning,
                stacklevel=caller_stacklevel(),
            )
        structural = self.schema_.structural
        star.add_edges_from(
            (hub, f) for f, s in zip(features, structural, strict=True) if f != hub and s
        )
        return star

    def _superparent(self, features):
        """The super-parent's name: given, or the first categorical feature by name (None: none)."""
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
            # the first in name order: a column's place in the table decides nothing
            return next(features[k] for k in name_order(features) if features[k] in allowed)
        hub = features[schema.position(self.superparent, what="superparent")]
        if hub not in allowed:
            raise InvalidParameterError(
                f"superparent {hub!r} is a {schema.kinds[features.index(hub)]} feature; a "
                "super-parent must be categorical (a categorical feature never gets a "
                f"continuous parent). Choose one of {allowed}."
            )
        return hub


def _member_spode(superparent, **params):
    """An AODE member: a SPODE whose super-parent the ensemble chose, not the user, so a
    super-parent of one state (the member is naive Bayes) is not a mistake to warn of."""
    member = SPODE(superparent, **params)
    member._member = True
    return member


class AODE(StatisticsFit, MemberEnsemble):
    """Averaged one-dependence estimators (Webb, Boughton and Wang 2005).

    The joint probability is the average of one :class:`SPODE` per feature::

        P(c, x) = 1/|S(x)| sum over sp in S(x) of P_sp(c, x),

    where ``S(x)`` holds the super-parents whose value in ``x`` was seen at
    least ``min_frequency`` times in training (Webb's frequency limit; a row
    with no such super-parent falls back to naive Bayes). Each SPODE is a
    Bayesian network with Laplace-smoothed CPTs, as in R bnclassify's
    ``aode``; all of them are fitted from one pairwise count table. Every
    column is modelled by kind as in :class:`NaiveBayes` (by default a
    continuous column is binned, a table, so it can be a super-parent); only
    discrete features are super-parents (a density could not parent the
    categorical features), and density features are children of each
    super-parent (a Gaussian per super-parent state and class).

    With no discrete feature (every column a density, e.g. a numeric table
    with ``distributions="density"``) there is no super-parent: AODE is then exactly
    :class:`NaiveBayes` and says so in a ``UserWarning`` at fit (as
    :class:`SPODE` does); put a discretiser first, e.g.
    ``make_pipeline(MDLDiscretizer(), AODE())``, or keep the default bins.

    Memory: with every feature categorical, the SPODEs are not kept. The
    model keeps their sufficient statistics, the pair table N(c, x_sp, x_j)
    (``C R^2`` floats for ``R`` categories in all), or, when that table is
    wider than :data:`bnclassify.stats.MAX_PAIRWISE_CELLS`, the encoded
    training rows; prediction reads the table a block of super-parents at a
    time and sums their joint probabilities as it goes. On a 12 x 2000 table
    the model keeps the 12 encoded rows and prediction about 200 MB of
    blocks, where ``m`` networks of ``m`` nodes took gigabytes;
    ``estimators_[k]`` fits SPODE ``k`` when it is read. Prediction from kept
    rows re-counts them, which costs time in proportion to their number.

    A missing value is summed out of each SPODE: a missing child leaves its
    product (its conditional sums to 1), and a SPODE whose super-parent is
    missing in the row takes no part (``missing_superparents="skip"``, the
    default: the average runs over the super-parents the row observes, as in Webb
    et al.'s definition and Weka's ``AODE``). ``missing_superparents="marginalize"``
    keeps such a SPODE, its super-parent summed out, so that each SPODE contributes
    its marginal P_sp(c, x_observed): with ``min_frequency <= 1`` the set of SPODEs
    then does not depend on the data, and this is the exact marginal of the averaged
    model. On the 22 UCI development sets (5x2 CV, combined 5x2cv F test at 0.05)
    ``"skip"`` had the lower log loss on anneal and breast.cancer and was significantly
    worse on none; the 0-1 loss was within the folds' noise on all 22.

    Parameters
    ----------
    alpha : float, default=1.0
        Dirichlet pseudo-count for every CPT cell and the class prior.
    min_frequency : int, default=1
        A SPODE takes part for a row only when the row's value of its
        super-parent occurred at least this often in training. Weka and R use
        1; Webb et al. report 30.
    missing_superparents : {"skip", "marginalize"}, default="skip"
        What a row's missing super-parent does (an unseen category read as missing
        included). ``"skip"``: its SPODE takes no part for that row, as in Webb et
        al.'s definition and Weka's ``AODE``, ``AODEsr`` (the average runs over the
        super-parents the row observes). ``"marginalize"``: its SPODE takes part, the
        super-parent summed out (the exact marginal of the averaged model, above).
    subsumption : bool or int, default=False
        Subsumption resolution (Zheng and Webb 2006; Weka's ``AODEsr``): at
        prediction, a value of a row that another value of the row implies in
        the training rows (every row holding ``x_j`` holds ``x_i``, and ``x_j``
        was seen more than the minimum count) is deleted from the row: it is
        neither a super-parent nor a child, for that row. ``True`` uses Weka's
        minimum count, 50 (``bnclassify.classifiers.SUBSUMPTION_MIN_COUNT``); an
        int sets it. The test reads the class-summed pair counts of the
        categorical features (kept with the model: ``R^2`` floats for ``R``
        categories in all, refused over ``bnclassify.stats.MAX_PAIRWISE_CELLS``;
        see ``bnclassify.classifiers.subsumed``).
    handle_unknown : {"warn", "error", "marginalize"}, default="warn"
    distributions : None, str, Distribution or dict, default=None
        How each column is modelled, as in :class:`NaiveBayes` and for every
        SPODE (default: continuous columns binned, tables that are super-parents
        too; ``"density"``: continuous columns Gaussian or log-normal, children
        of every super-parent and never one).
    smoothing : {"laplace", "hdp", "hls"} or Smoothing, default="laplace"
        How each SPODE's categorical tables are estimated (see :class:`SPODE`: the hierarchy
        of a table is the class, then the super-parent; the fallback naive Bayes' is the
        class alone). With a smoothing other than additive, the SPODEs are fitted and kept
        (``estimators_``), each smoothed on its own: the shortcut that keeps only the pair
        table smooths cell by cell.
        ``"hls"``: the same hierarchy written as a log-linear model, one coefficient per
        node, fitted by ridge-penalised multinomial logistic regression
        (:class:`~bnclassify.parameters.HLS`), its ridge chosen by cross-validation on
        the training rows.
    random_state : int, RandomState instance or None, default=None
        Seeds a smoothing that samples: each SPODE (and the naive Bayes) gets
        its own seed drawn from it.

    Attributes
    ----------
    estimators_ : sequence of SPODE
        One fitted SPODE per categorical feature, super-parent in column
        order. With every feature categorical each is fitted when read, from
        the kept statistics (reading one twice gives two equal objects).
    naive_bayes_ : NaiveBayes
        The fallback for rows with no eligible super-parent.
    frequencies_ : list of ndarray
        Training count of each category of each feature.
    classes_, categories_, n_features_in_, feature_names_in_, class_node_
        As in :class:`NaiveBayes`.
    fit_times_ : dict
        Seconds on ``weights``, ``structure`` and ``parameters``, summed over
        SPODEs (with every feature categorical, the time to keep their
        statistics, under ``parameters``).

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

    ``partial_fit`` adds each chunk's counts (``classes`` on the first call); the
    result equals ``fit`` on the chunks together:

    >>> import numpy as np
    >>> chunks = AODE().partial_fit(X[:900], y[:900], classes=np.unique(y))
    >>> chunks = chunks.partial_fit(X[900:], y[900:])
    >>> bool(np.allclose(chunks.predict_proba(X), model.predict_proba(X)))
    True
    """

    _parameter_constraints = {
        "alpha": ALPHA,
        "min_frequency": [Interval(Integral, 0, None, closed="left")],
        "subsumption": ["boolean", Interval(Integral, 0, None, closed="left")],
        "missing_superparents": [Options(("skip", "marginalize"))],
        "handle_unknown": [Options(HANDLE_UNKNOWN)],
        "distributions": [DISTRIBUTIONS],
        "smoothing": SMOOTHING,
        "random_state": RANDOM_STATE,
    }

    def __init__(
        self,
        alpha=1.0,
        min_frequency=1,
        handle_unknown="warn",
        distributions=None,
        smoothing="laplace",
        random_state=None,
        subsumption=False,
        missing_superparents="skip",
    ):
        self.alpha = alpha
        self.min_frequency = min_frequency
        self.subsumption = subsumption
        self.missing_superparents = missing_superparents
        self.handle_unknown = handle_unknown
        self.distributions = distributions
        self.smoothing = smoothing
        self.random_state = random_state

    def statistics_plan(self, schema=None) -> StatisticsPlan:
        return StatisticsPlan(pairwise=True, structural_moments=True)

    def fit_statistics(self, stats, schema, classes, *, class_node="class", keep=False):
        """Fit every SPODE and the fallback naive Bayes from training statistics.

        The one entry of ``fit``, ``partial_fit`` and the dask fit, as
        :meth:`bnclassify.AugmentedNaiveBayes.fit_statistics`; a failed call leaves
        the model unchanged.
        """
        with unchanged_on_error(self):
            validate_parameters(self)
            self.__dict__.pop("statistics_", None)
            self.__dict__.pop("_fit_rows", None)
            self._set_schema(schema, class_node=class_node)
            self.classes_ = np.asarray(classes)
            with WarningsOnceFromCaller():  # the SPODEs' and naive Bayes' warnings, once
                self._fit_members_from(stats)
            if keep:
                self.statistics_ = stats
        return self

    def _fit_members_from(self, counts):
        """Fit every SPODE and the fallback naive Bayes from one set of statistics.

        With every feature categorical (and each a super-parent) the SPODEs are not
        fitted here: their statistics are kept (:meth:`_keep_pair_source`) and
        prediction reads them.
        """
        for name in ("_members", "_pair_source", "_symmetric_cache"):
            self.__dict__.pop(name, None)
        start = time.perf_counter()
        schema = self.schema_
        features = list(schema.names)
        args = (*self._fit_args(counts), self.class_node_)
        self.superparents_ = [
            f
            for f, d, s in zip(features, schema.discrete, schema.structural, strict=True)
            if d and s
        ]
        if not self.superparents_:
            warnings.warn(
                "AODE found no categorical feature to be a super-parent; it is naive Bayes on "
                "these features (bin continuous columns, as distributions=None does, or "
                "discretise them first, e.g. make_pipeline(MDLDiscretizer(), AODE()), to "
                "average one-dependence estimators).",
                UserWarning,
                stacklevel=4,
            )
        smoothing, rng = table_smoothing(self)
        additive = isinstance(smoothing, Laplace) and float(smoothing.alpha) == float(self.alpha)
        # each model smoothed by a sampler gets its own seed (the naive Bayes' first)
        size = len(self.superparents_) + 1
        seeds = iter(() if rng is None else map(int, rng.integers(2**32, size=size)))
        common = {"alpha": self.alpha, "handle_unknown": self.handle_unknown}
        if not additive:
            common["smoothing"] = self.smoothing
        naive_bayes = NaiveBayes(**common, random_state=next(seeds, None))
        # the streamed prediction reads every column as a super-parent: a column left out
        # (no observed value: an Unobserved node, no table) takes the fitted SPODEs' path
        if schema.discrete.all() and additive and len(self.superparents_) == len(features):
            self._keep_pair_source(counts)
            fit_member(naive_bayes, *args)
            self.fit_times_ = {
                "weights": 0.0,
                "structure": 0.0,
                "parameters": time.perf_counter() - start,
            }
        else:
            spodes = []
            for feature in self.superparents_:
                member = _member_spode(feature, **common, random_state=next(seeds, None))
                spodes.append((member, fit_member, args))
            self._members, self.fit_times_ = self._fit_members(spodes)
            fit_member(naive_bayes, *args)
        self.naive_bayes_ = naive_bayes
        self._hubs = [features.index(f) for f in self.superparents_]
        self.frequencies_ = [counts.family(i).sum(axis=0) for i in self._hubs]
        self._fit_hub_weights(counts)
        self.__dict__.pop("_value_pairs", None)
        if self._subsumption_count() is not None and self._hubs:
            n_values = int(np.asarray(schema.cards)[self._hubs].sum())
            if n_values * n_values > MAX_PAIRWISE_CELLS:
                raise ValueError(
                    f"subsumption resolution keeps the counts of every pair of the "
                    f"{n_values} categories of the categorical features: "
                    f"{n_values * n_values * 8 / 1e6:.0f} MB, over the budget of "
                    f"{MAX_PAIRWISE_CELLS} cells (bnclassify.stats.MAX_PAIRWISE_CELLS, "
                    f"{MAX_PAIRWISE_CELLS * 8 / 1e6:.0f} MB). Drop identifier-like columns "
                    "of many categories, or fit with subsumption=False."
                )
            self._value_pairs = value_pair_counts(
                counts, schema.cards, self._hubs, len(self.classes_)
            )
        return self

    def __getstate__(self):
        # the prediction's prepared tables are rebuilt from the fitted state when needed
        state = super().__getstate__()
        state.pop("_symmetric_cache", None)
        return state

    def _fit_hub_weights(self, counts):
        """Learn each super-parent's weight in the average (AODE: none to learn)."""

    def _hub_weights(self) -> np.ndarray:
        """Each super-parent's weight in the average (AODE: 1 each)."""
        return np.ones(len(self._hubs))

    def _subsumed(self, codes):
        """Each row's cells that subsumption resolution deletes (all False when it is off)."""
        dropped = np.zeros(codes.shape, dtype=bool)
        if "_value_pairs" in self.__dict__:
            count = self._subsumption_count()
            cards = np.asarray(self.schema_.cards)[self._hubs]
            dropped[:, self._hubs] = subsumed(codes[:, self._hubs], cards, self._value_pairs, count)
        return dropped

    def _subsumption_count(self):
        """The minimum count of ``subsumption`` (None: off; True: Weka's 50)."""
        option = self.subsumption
        if isinstance(option, (bool, np.bool_)):
            return SUBSUMPTION_MIN_COUNT if option else None
        return int(option)

    def _keep_pair_source(self, counts):
        """Keep what every SPODE is fitted from: the pair table, or the rows when it is wide."""
        if isinstance(counts, TrainingCounts) and not counts.keeps_pairwise:
            self._pair_source = {"codes": counts.codes, "y": counts.y, "weights": counts.weights}
        else:
            self._pair_source = {"table": counts.pairwise.table}
        self._pair_source["classes"] = counts.classes

    def _pair_statistics(self):
        """Statistics answering ``family`` and ``pair_table`` from the kept pair source."""
        source, schema = self._pair_source, self.schema_
        if "table" in source:
            table = source["table"]
            return SufficientStatistics(
                class_labels=self.classes_,
                categories=list(schema.categories),
                discrete=schema.discrete,
                class_count=source["classes"],
                feature_table=np.diagonal(table, axis1=1, axis2=2).copy(),
                pairwise_table=table,
            )
        return TrainingCounts(
            source["codes"],
            source["y"],
            schema.cards,
            len(self.classes_),
            weights=source["weights"],
        )

    @property
    def estimators_(self):
        """The SPODEs, one per categorical feature (see the class docstring)."""
        if "_members" in self.__dict__:
            return self._members
        if "_pair_source" not in self.__dict__:
            raise AttributeError("estimators_ exists once the AODE is fitted.")
        return MemberSequence(self._fit_member, len(self.superparents_))

    def _fit_member(self, k):
        """SPODE ``k`` fitted from the kept statistics, as ``fit`` would have fitted it."""
        member = _member_spode(
            self.superparents_[k], alpha=self.alpha, handle_unknown=self.handle_unknown
        )
        return fit_member(member, *self._fit_args(self._pair_statistics()), self.class_node_)

    def _proba(self, X) -> np.ndarray:
        """P(c | x): where the joint is streamed (:meth:`_streamed_joint`), from the kernel's
        running log-sum-exp directly (:func:`bnclassify._native.aode_proba`), without the log
        of the joint and the log-sum-exp over the classes of ``predict_log_proba`` (equal to
        its ``exp`` to rounding); elsewhere its ``exp``."""
        try:
            return self._joint_log_likelihood_codes(self.encode(X), proba=True)
        except ImpossibleRowsError as error:
            raise error.with_cause(self._impossible_cells(X, error.first)) from None

    def _joint_log_likelihood_codes(self, encoded, proba=False):
        """log P(c, x) of encoded rows; with ``proba``, P(c | x) (raising
        :class:`ImpossibleRowsError` as :func:`normalise` does)."""
        out, normalised = self._joint_or_proba(encoded, proba)
        return np.exp(normalise(out)) if proba and not normalised else out

    def _joint_or_proba(self, encoded, proba):
        """``(log P(c, x), False)``, or ``(P(c | x), True)`` where ``proba`` asks for it and
        the streamed kernel gives it without the joint (:meth:`_streamed_joint`)."""
        codes = encoded[0]
        check_is_fitted(self, "naive_bayes_")
        if not self._hubs:  # no categorical feature: naive Bayes
            return self.naive_bayes_.compiled_.joint_log_likelihood(*encoded), False
        # a deleted value is no child (missing) and no super-parent (its SPODE left out)
        dropped = self._subsumed(codes)
        if dropped.any():
            codes = np.where(dropped, MISSING, codes)
            encoded = (codes, *encoded[1:])
        if "_members" not in self.__dict__:
            return self._streamed_joint(codes, dropped, proba)
        joint = np.stack(
            [self._member_joint(m, encoded) for m in self._members], axis=1
        )  # (n, n_superparents, C)
        hub_codes = codes[:, self._hubs]
        observed = hub_codes != MISSING
        eligible = ~observed & (self.missing_superparents == "marginalize")
        for k, frequency in enumerate(self.frequencies_):
            seen = observed[:, k]
            eligible[seen, k] = frequency[hub_codes[seen, k]] >= self.min_frequency
        weights = self._hub_weights()
        eligible &= ~dropped[:, self._hubs] & (weights > 0)
        n_eligible = eligible @ weights
        masked = np.where(eligible[:, :, None], joint, -np.inf)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = logsumexp(masked, axis=1, b=weights[None, :, None]) - _log_total(n_eligible)
        fallback = n_eligible == 0
        if fallback.any():
            values = None if encoded[1] is None else encoded[1][fallback]
            out[fallback] = self.naive_bayes_.compiled_.joint_log_likelihood(
                codes[fallback], values
            )
        return out, False

    def _streamed_joint(self, codes, dropped, proba=False):
        """log P(c, x) of the averaged model, a block of super-parents at a time.

        Every feature is categorical and a super-parent. For super-parent ``sp``
        and a row, ``sum_j log P(x_j | c, x_sp = a)`` over the observed children
        is the sum of the block's table rows ``log P(x_j | c, a)`` at the row's
        categories (its own column's zeroed), at the observed ``a``; a missing
        super-parent is summed out (log-sum-exp over ``a`` with ``P(a | c)``), and
        the eligible SPODEs' joints are summed into a running log-sum-exp
        (:func:`bnclassify._native.aode_block`: compiled, or one matrix product of
        the rows' one-hot vectors with the table in numpy). Where every column is a
        child and a super-parent the table's symmetric form is read
        (:func:`_symmetric_tables`), prepared on the model's first prediction and kept
        (not pickled) until a refit or another ``alpha``.

        A one-category child's term is log 1 = 0, so only the children with two or
        more categories enter the product; and the SPODEs of one-category
        super-parents with equal counts are one model, scored once and counted as
        many times under ``missing_superparents="marginalize"``
        (:func:`_superparent_groups`): a binned column with no cut, or a constant one,
        costs nothing.

        Returns ``(joint, False)``; with ``proba``, ``(P(c | x), True)`` instead:
        normalised from the running log-sum-exp (:func:`bnclassify._native.aode_proba`), the
        rows without an eligible SPODE from naive Bayes's joint; where a row has no possible
        class, ``(joint, False)``, which the caller normalises (and :func:`normalise` names
        the row).
        """
        stats = self._pair_statistics()
        cards = np.asarray(self.schema_.cards)
        offsets = np.concatenate([[0], np.cumsum(cards)])
        n_total = int(offsets[-1])
        informative = cards > 1  # a child with one category adds log 1 = 0
        children = np.flatnonzero(informative)
        alpha = float(self.alpha)
        log_prior = self.naive_bayes_.compiled_.log_prior
        log_single = [f.log_table_ for f in self.naive_bayes_.compiled_.factors]  # P(x_sp | c)
        frequency = np.concatenate(self.frequencies_)
        # a feature never missing in the training rows: each category's count is its total
        n_rows = np.sum(self._pair_source["classes"])
        complete = np.array([f.sum() for f in self.frequencies_]) == n_rows
        n, n_classes = len(codes), len(log_prior)
        marginalize = self.missing_superparents == "marginalize"
        if marginalize:
            superparents, multiplicity = _superparent_groups(
                stats, cards, children, self.frequencies_, self.min_frequency, n_classes
            )
        else:  # a SPODE takes part only in the rows that observe its super-parent: no groups
            superparents, multiplicity = np.arange(len(cards)), np.ones(len(cards), np.intp)
        if dropped.any():  # deleted: no child and no super-parent
            codes = np.where(dropped, -2, codes)
        if n_total <= CHILD_CATEGORIES:
            used = np.flatnonzero(np.repeat(informative, cards))
        else:  # the informative categories the rows hold: an identifier's, mostly unseen, are not
            held = np.zeros(n_total, dtype=bool)
            for j in np.flatnonzero(informative):
                column = codes[:, j]
                held[offsets[j] + np.unique(column[column >= 0])] = True
            used = np.flatnonzero(held)
        child_of = np.full(n_total, -1)
        child_of[used] = np.arange(len(used))  # each used category's column of the table
        top = np.full((n, n_classes), -np.inf)
        total = np.zeros((n, n_classes))
        n_eligible = np.zeros(n)
        every = np.arange(len(cards))
        hub_weight = np.zeros(len(cards))
        hub_weight[self._hubs] = self._hub_weights()
        width = max(1, BLOCK_CELLS // (n_classes * n_total))  # super-parent categories per block
        # every column a child and a super-parent, in one block: the symmetric form
        symmetric = alpha > 0 and informative.all() and width >= n_total
        symmetric = symmetric and n_total <= CHILD_CATEGORIES  # every category a column of it
        symmetric = symmetric and np.array_equal(superparents, every)
        if symmetric:  # the fitted model's tables, prepared on its first prediction (per alpha)
            cached = self.__dict__.get("_symmetric_cache")
            if cached is None or cached[0] != alpha:
                tables = _symmetric_tables(
                    stats, cards, used, alpha, complete, log_single, log_prior
                )
                self._symmetric_cache = cached = (alpha, tables)
            sp_table, parts = cached[1]
            aode_block(
                codes, offsets, child_of, every, multiplicity * hub_weight, frequency,
                self.min_frequency, marginalize, None, sp_table, top, total, n_eligible, **parts,
            )  # fmt: skip
            blocks = []
        else:
            blocks = column_blocks(cards[superparents], width)
        for members in blocks:
            block = superparents[members]
            log_cells, log_totals = _log_cpt_parts(
                stats.pair_table(block, every), cards, block, used, alpha, complete
            )
            # log P(c) + log P(a | c) of every category ``a`` of the block
            sp_table = np.concatenate([log_single[j] for j in block], axis=1) + log_prior[:, None]
            log_cpt = _log_cpt_from_parts(log_cells, log_totals, cards, used)
            aode_block(
                codes, offsets, child_of, block, multiplicity[members] * hub_weight[block],
                frequency, self.min_frequency, marginalize, log_cpt.transpose(1, 2, 0),
                sp_table.T, top, total, n_eligible,
            )  # fmt: skip
        fallback = n_eligible == 0
        if proba:
            out, n_bad = aode_proba(top, total)
            if n_bad == 0:
                return out, True
            if n_bad == np.count_nonzero(fallback) and np.isnan(out[fallback, 0]).all():
                # only rows without an eligible SPODE: naive Bayes's, normalised row by row as
                # the whole table's joint would be (an impossible one: through the joint below)
                joint = self.naive_bayes_.compiled_.joint_log_likelihood(codes[fallback])
                try:
                    out[fallback] = np.exp(normalise(joint))
                except ImpossibleRowsError:
                    pass
                else:
                    return out, True
        shift = np.where(np.isfinite(top), top, 0.0)
        with np.errstate(divide="ignore"):
            out = shift + np.log(total) - _log_total(n_eligible)
        if fallback.any():
            out[fallback] = self.naive_bayes_.compiled_.joint_log_likelihood(codes[fallback])
        return out, False

    def _joint_log_likelihood(self, X) -> np.ndarray:
        """log P(c, x) of the averaged model for every row and class."""
        return self._joint_log_likelihood_codes(self.encode(X))

    def predict_log_proba_encoded(self, encoded):
        """``predict_log_proba`` of rows already encoded by :meth:`encode`."""
        return normalise(self._joint_log_likelihood_codes(encoded))

    # -- declared state (see SchemaAttributes._get_state) --------------------------------
    #: ``members`` (the SPODEs) or ``pair_source`` (what they are fitted from when they
    #: are not kept: ``{"classes", "table"}`` or, for a wide table, ``{"classes",
    #: "codes", "y", "weights"}``); ``hubs``: the super-parents' column positions.
    _FITTED_FIELDS = {
        "superparents_": "superparents_",
        "_pair_source": "pair_source",
        "_members": "members",
        "fit_times_": "fit_times_",
        "naive_bayes_": "naive_bayes_",
        "_hubs": "hubs",
        "frequencies_": "frequencies_",
        "_value_pairs": "value_pairs",
    }

    def _check_state(self):
        own = vars(self)
        missing = [
            f for f in ("superparents_", "naive_bayes_", "_hubs", "frequencies_") if f not in own
        ]
        require(not missing, "AODE", f"a fitted AODE needs the fields {missing}.")
        self._check_members([self.naive_bayes_], "naive_bayes_")
        schema, n_classes = self.schema_, len(self.classes_)
        cards = schema.cards
        hubs, frequencies = self._hubs, self.frequencies_
        require(
            isinstance(hubs, list)
            and isinstance(frequencies, list)
            and isinstance(self.superparents_, list)
            and len(hubs) == len(frequencies) == len(self.superparents_),
            "hubs",
            "AODE's super-parents, frequencies and members differ in number.",
        )
        for hub, frequency, name in zip(hubs, frequencies, self.superparents_, strict=True):
            require(isinstance(hub, int) and 0 <= hub < len(cards), "hubs", "bad position.")
            require(name == schema.names[hub], "superparents_", "a name and position differ.")
            float_array(frequency, "frequencies_", (cards[hub],))
        if "_value_pairs" in own:
            n_values = int(np.asarray(cards)[hubs].sum())
            float_array(self._value_pairs, "value_pairs", (n_values, n_values))
        members, source = "_members" in own, "_pair_source" in own
        require(members != source, "AODE", "keeps either its SPODEs or their statistics.")
        if members:
            self._check_members(self._members, "members")
            require(len(self._members) == len(hubs), "members", "one SPODE per super-parent.")
        else:
            _check_pair_source(self._pair_source, schema, n_classes)


class WAODE(AODE):
    """Weightily averaged one-dependence estimators (Jiang and Zhang 2006).

    :class:`AODE` with each SPODE weighted by the mutual information of its
    super-parent with the class, ``W_sp = I(X_sp; C)`` (plug-in, from the
    training counts; a feature's missing cells left out)::

        P(c, x) = sum over sp in S(x) of W_sp P_sp(c, x) / sum over sp in S(x) of W_sp.

    A super-parent that tells nothing of the class (``W_sp = 0``, e.g. a
    constant column) takes no part; a row whose eligible super-parents all
    weigh 0 falls back to naive Bayes. Everything else is :class:`AODE`'s:
    the same SPODEs, smoothing, missing cells (a missing super-parent's SPODE left
    out by default, ``missing_superparents``), frequency limit and
    ``subsumption`` option, and the same memory.

    Weka's ``WAODE`` (3.6) estimates ``P(c, x_sp)`` and ``P(x_j | c, x_sp)`` by
    m-estimates (``m = 1``) where this model has Laplace's ``P(c) P(x_sp | c)``
    and ``P(x_j | c, x_sp)``, and refuses missing values; the user guide's
    averaged-family page measures both on the same folds.

    Parameters
    ----------
    alpha, min_frequency, subsumption, missing_superparents
        As in :class:`AODE`.
    handle_unknown, distributions, smoothing, random_state
        As in :class:`AODE`.

    Attributes
    ----------
    superparent_weights_ : ndarray of shape (n_superparents,)
        ``I(X_sp; C)`` in nats of each super-parent of ``superparents_``.
    estimators_, naive_bayes_, frequencies_, classes_, categories_, fit_times_
        As in :class:`AODE`.

    Examples
    --------
    >>> from bnclassify import WAODE
    >>> from bnclassify.datasets import load_car
    >>> X, y = load_car(return_X_y=True)
    >>> model = WAODE().fit(X, y)
    >>> dict(zip(model.superparents_, model.superparent_weights_.round(3)))["safety"]
    np.float64(0.182)
    >>> round(model.score(X, y), 3)
    0.931
    """

    _FITTED_FIELDS = {**AODE._FITTED_FIELDS, "superparent_weights_": "superparent_weights_"}

    def _fit_hub_weights(self, counts):
        self.superparent_weights_ = class_mi_from_counts(counts, self._hubs)

    def _hub_weights(self) -> np.ndarray:
        return np.asarray(self.superparent_weights_, dtype=float)

    def _check_state(self):
        super()._check_state()
        require("superparent_weights_" in vars(self), "WAODE", "needs superparent_weights_.")
        weights = self.superparent_weights_
        float_array(weights, "superparent_weights_", (len(self._hubs),))
        require(bool((weights >= 0).all()), "superparent_weights_", "must be >= 0.")


def _check_pair_source(source, schema, n_classes):
    """Check the statistics an AODE keeps in place of its SPODEs."""
    cards = schema.cards
    require(
        schema.discrete.all() and isinstance(source, dict),
        "pair_source",
        "an AODE keeps statistics only over categorical features.",
    )
    float_array(source.get("classes"), "the class counts", (n_classes,))
    n_total = int(np.sum(cards))
    if set(source) == {"classes", "table"}:
        float_array(source["table"], "the pair table", (n_classes, n_total, n_total))
        require(bool((source["table"] >= 0).all()), "the pair table", "counts must be >= 0.")
        return
    require(set(source) == {"classes", "codes", "y", "weights"}, "pair_source", "bad fields.")
    codes, y, weights = source["codes"], source["y"], source["weights"]
    require(
        isinstance(codes, np.ndarray)
        and codes.ndim == 2
        and codes.shape[1] == len(cards)
        and codes.dtype.kind == "i"
        and ((codes >= -1) & (codes < np.asarray(cards))).all(),
        "pair_source",
        "the kept rows' codes do not match the categories.",
    )
    require(
        isinstance(y, np.ndarray)
        and y.shape == (len(codes),)
        and y.dtype.kind == "i"
        and ((y >= 0) & (y < n_classes)).all(),
        "pair_source",
        "the kept rows' classes do not match the classes.",
    )
    if weights is not None:
        float_array(weights, "the kept rows' weights", (len(codes),))


def _superparent_groups(stats, cards, children, frequencies, min_frequency, n_classes):
    """The super-parents to score and how many SPODEs each stands for.

    A one-category super-parent ``a`` has P(a | c) = 1 and its SPODE's terms are
    ``log P(x_j | c, a)`` from its row ``N(c, a, x_j)`` of the pair table: two such
    super-parents with equal rows (over the children of two or more categories)
    give every row the same joint, observed or missing. When each takes part in
    every row (its one category seen ``min_frequency`` times), one of them is scored
    and weighted by the group's size. Every other feature stands for itself.

    Returns
    -------
    superparents : ndarray of int
        Feature positions, in column order.
    multiplicity : ndarray of int
        The number of SPODEs each stands for.
    """
    cards = np.asarray(cards)
    always = [j for j in np.flatnonzero(cards == 1) if frequencies[j][0] >= min_frequency]
    key_of = {}  # each such super-parent's row of counts, as bytes
    width = max(1, BLOCK_CELLS // (n_classes * max(1, int(cards[children].sum()))))
    for block in column_blocks(np.ones(len(always)), width):  # a bounded block of rows at a time
        rows = stats.pair_table([always[b] for b in block], children)  # (C, len(block), R)
        for b in block:
            key_of[always[b]] = rows[:, b - block[0]].tobytes()
    first_of, superparents, multiplicity = {}, [], []
    for j in range(len(cards)):
        key = key_of.get(j)
        if key is not None and key in first_of:
            multiplicity[first_of[key]] += 1
            continue
        if key is not None:
            first_of[key] = len(superparents)
        superparents.append(j)
        multiplicity.append(1)
    return np.asarray(superparents, dtype=np.intp), np.asarray(multiplicity, dtype=np.intp)


def _symmetric_tables(stats, cards, used, alpha, complete, log_single, log_prior):
    """The symmetric form's tables of :func:`bnclassify._native.aode_block`, every column a
    super-parent in one block: ``(sp_table, {"pair", "log_totals", "unscale"})``, the classes
    padded as the compiled kernel reads them (the same for every call on one fitted model)."""
    every = np.arange(len(cards))
    log_cells, log_totals = _log_cpt_parts(
        stats.pair_table(every, every), cards, every, used, alpha, complete
    )
    n_classes = len(log_prior)
    padded = padded_classes(n_classes)
    # log P(c) + log P(a | c) of every category ``a``
    sp_table = np.concatenate(log_single, axis=1) + log_prior[:, None]
    pair, unscale = fixed_point(log_cells.transpose(1, 2, 0), len(cards), padded)
    parts = {
        "pair": pair,
        "log_totals": pad_classes(log_totals.transpose(1, 2, 0), padded),
        "unscale": unscale,
    }
    return pad_classes(sp_table.T, padded), parts


def _log_cpt_rows(counts, cards, block, alpha):
    """log P(x_j | c, x_sp) for the super-parents ``block`` against every feature ``j``.

    ``counts`` is N(c, x_sp, x_j), shape ``(C, R_block, R)``; each (class,
    super-parent state) row is smoothed and normalised within every child's
    categories as :func:`~bnclassify.parameters.log_conditional` does, and a
    super-parent's own columns are 0 (it is not its own child).
    """
    offsets = np.concatenate([[0], np.cumsum(cards)])
    smoothed = counts + alpha
    totals = np.add.reduceat(smoothed, offsets[:-1], axis=2)
    spread = np.repeat(totals, cards, axis=2)
    states = np.repeat(cards, cards).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_cpt = np.log(np.where(spread > 0, smoothed / spread, 1.0 / states))
    row = 0
    for j in block:
        log_cpt[:, row : row + cards[j], offsets[j] : offsets[j + 1]] = 0.0
        row += cards[j]
    return log_cpt


def _log_cpt_from_parts(log_cells, log_totals, cards, used):
    """``log P(x_u | c, a)`` at the categories ``used``: ``log_cells`` less each category's
    child's total from ``log_totals`` (see :func:`_log_cpt_parts`)."""
    if log_totals is None:
        return log_cells
    offsets = np.concatenate([[0], np.cumsum(cards)])
    child = np.searchsorted(offsets, used, side="right") - 1  # each used category's feature
    return log_cells - log_totals[:, :, child]


def _log_cpt_parts(counts, cards, block, used, alpha, complete):
    """``log (N(c, a, x_u) + alpha)`` at the categories ``used`` and the log of every
    feature's total at each category ``a`` of ``block``, shapes ``(C, R_block, U)`` and
    ``(C, R_block, m)`` (0 at ``a``'s own feature and at features of one category; the
    first also 0 at ``a``'s own feature's categories); with ``alpha = 0``, the CPT itself
    (:func:`_log_cpt_rows`) and ``None``.

    With ``alpha > 0`` every cell is positive: ``log P(x_j | c, x_sp)`` is
    ``log (N(c, x_sp, x_j) + alpha)`` less the log of its child's total, one log per cell
    and one per total, without a division (:func:`_log_cpt_from_parts`). With ``alpha = 0``
    (empty rows: a uniform CPT) it is ``_log_cpt_rows(...)[:, :, used]``, which may hold
    ``-inf``.

    A child ``complete`` (never missing in the training rows) is observed in every row of
    a super-parent category ``a``, so its total is ``N(c, a)``, on the pair table's
    diagonal: only the other children's totals are summed over their categories.
    """
    cards = np.asarray(cards)
    if not alpha > 0:
        return _log_cpt_rows(counts, cards, block, alpha)[:, :, used], None
    offsets = np.concatenate([[0], np.cumsum(cards)])
    informative = np.flatnonzero(cards > 1)  # the children whose totals are read
    own = np.concatenate([np.arange(offsets[j], offsets[j + 1]) for j in block])
    diagonal = counts[:, np.arange(len(own)), own]  # N(c, a): (C, R_block)
    sizes, size_of = np.unique(cards[informative], return_inverse=True)
    log_totals = np.log(diagonal[:, :, None] + alpha * sizes)[:, :, size_of]  # (C, R_block, m)
    for k in np.flatnonzero(~complete[informative]):
        j = informative[k]
        total = counts[:, :, offsets[j] : offsets[j + 1]].sum(axis=2) + alpha * cards[j]
        log_totals[:, :, k] = np.log(total)
    log_cells = np.take(counts, used, axis=2)
    log_cells += alpha
    np.log(log_cells, out=log_cells)
    first = np.searchsorted(used, offsets)  # each feature's first place among ``used``
    place = np.searchsorted(informative, np.arange(len(cards)))  # a child's column of totals
    row = 0
    for j in block:  # a super-parent is not its own child
        log_cells[:, row : row + cards[j], first[j] : first[j + 1]] = 0.0
        if cards[j] > 1:
            log_totals[:, row : row + cards[j], place[j]] = 0.0
        row += cards[j]
    every = np.zeros(log_totals.shape[:2] + (len(cards),))  # a one-category feature's: 0
    every[:, :, informative] = log_totals
    return log_cells, every


def _log_total(weights):
    """``log`` of each row's total weight of its eligible SPODEs as a column (0 where none:
    those rows fall back to naive Bayes)."""
    return np.log(np.where(weights > 0, weights, 1.0))[:, None]
