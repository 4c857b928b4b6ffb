"""Averaged n-dependence estimators: AODE (n = 1) and A2DE (n = 2)."""

from __future__ import annotations

from numbers import Integral

import networkx as nx
import numpy as np
from scipy.special import logsumexp
from sklearn.utils.validation import check_is_fitted

from ..data import HANDLE_UNKNOWN, MISSING, kind_of
from ..factors import CUT_TABLE_DISTRIBUTIONS, Unobserved
from ..network import FittedNetwork
from ..state import float_array, require, unchanged_on_error
from ..stats import (
    BLOCK_CELLS,
    StatisticsPlan,
    SufficientStatistics,
    feature_totals,
    pair_child_counts,
    parent_pair_states,
)
from ..validation import ALPHA, Interval, Options, validate_parameters
from ._aode import AODE, SUBSUMPTION_MIN_COUNT, subsumed, value_pair_counts
from ._base import AugmentedNaiveBayes, StatisticsFit
from ._ensemble import MemberEnsemble, MemberSequence
from ._predict import normalise

#: Default memory budget of A2DE's table of pair-and-child counts, in bytes.
MAX_BYTES = 1 << 30


class AnDE(StatisticsFit, MemberEnsemble):
    """Averaged n-dependence estimators (Webb, Boughton, Zheng, Ting and Salem 2012).

    ``n=1`` is :class:`AODE` (its model, fitted and predicted by it). ``n=2`` is
    A2DE: the average over every pair of features ``i < j`` of the estimator
    whose parents are the class and both features::

        P(c, x) = 1/|S(x)| sum over {i, j} in S(x) of
                  P(c, x_i, x_j) prod_{k != i, j} P(x_k | c, x_i, x_j),

    where ``S(x)`` holds the pairs whose values in ``x`` occurred together at
    least ``min_frequency`` times in training (the frequency limit of Weka's
    AnDE); a row with no such pair backs off to AODE (``n=1``) with the same
    parameters. Estimates are Laplace's, ``alpha`` added to every cell:
    ``P(c, x_i, x_j) = (N(c, x_i, x_j) + alpha) / (N_ij + alpha C |A_i| |A_j|)``
    on the ``N_ij`` rows observing both, and
    ``P(x_k | c, x_i, x_j) = (N(c, x_i, x_j, x_k) + alpha) / (N(c, x_i, x_j) + alpha |A_k|)``
    on the rows observing all three.

    A missing cell is summed out exactly: a missing child leaves the product
    (its conditional sums to 1); a pair with a missing parent contributes its
    marginal, the sum of its joint over the parent's categories (the frequency
    limit then applies to the observed parent). With ``min_frequency <= 1`` the
    pairs taking part do not depend on the data, so this is the exact marginal
    of the averaged model. An unseen category is read as missing
    (``handle_unknown``).

    Memory (``n=2``): the counts ``N(c, x_i, x_j, x_k)`` of every pair of parents
    and every child category, ``8 C (sum over i < j of |A_i| |A_j|) R`` bytes for
    ``C`` classes and ``R`` categories in all: on car (4 classes, 6 features,
    21 categories) 0.1 MB; on splice's 60 positions (3 classes, 287 categories)
    279 MB, and 79 GB with its instance-name column, a key of 3,178 values. A fit
    whose table is larger than ``max_bytes`` is refused with its size. Continuous
    columns are binned (every node is a table).

    Parameters
    ----------
    n : {1, 2}, default=1
        The number of feature parents of each estimator.
    alpha : float, default=1.0
        Dirichlet pseudo-count of every cell (``n=2``: > 0).
    min_frequency : int, default=1
        A pair (``n=2``) or a super-parent (``n=1``) takes part for a row only when its
        values in the row occurred together at least this often in training.
    handle_unknown : {"warn", "error", "marginalize"}, default="warn"
    distributions : None, "categorical", "binned" or dict, default=None
        How columns become categories (as in :class:`HNB`; no density).
    subsumption : bool or int, default=False
        Subsumption resolution (Zheng and Webb 2006), as :class:`AODE`'s option and by
        the same test: a value of a row that another
        value of the row implies in the training rows is deleted from the row, neither a
        parent (every pair holding it is left out) nor a child. ``True``: Weka's minimum
        count, 50; an int sets it.
    max_bytes : int, default=2**30
        The largest table of pair-and-child counts ``n=2`` keeps, in bytes.

    Attributes
    ----------
    aode_ : AODE
        The model of ``n=1``; with ``n=2``, the back-off of a row with no pair.
    pairs_ : ndarray of shape (n_pairs, 2)
        ``n=2``: the parent pairs, feature positions ``i < j``.
    member_pairs_ : ndarray of shape (n_members, 2)
        ``n=2``: the pairs of ``pairs_`` that take part (both columns observed in
        training), one per member of ``estimators_``.
    estimators_ : sequence of fitted classifiers
        The estimators averaged. ``n=1``: AODE's SPODEs (``aode_.estimators_``).
        ``n=2``: the SP2DEs, one per row of ``member_pairs_``, each a
        :class:`~bnclassify.io.PgmpyClassifier` over every feature (the class and the
        pair ``(i, j)`` the parents of every other feature, ``i`` a parent of ``j``)
        whose tables are this model's estimates: ``P(c) P(x_i | c) P(x_j | c, x_i)`` is
        the pair's joint ``P(c, x_i, x_j)``, factored. Each is built when read (not
        kept; reading one twice gives two equal objects); averaging their joints gives
        this model's posterior (the frequency limit and subsumption, rules of the
        average, are the model's, not the members').
    classes_, categories_, n_features_in_, feature_names_in_, class_node_
        As in :class:`NaiveBayes`.

    Examples
    --------
    >>> import numpy as np
    >>> from bnclassify import AODE, AnDE
    >>> from bnclassify.datasets import load_car
    >>> X, y = load_car(return_X_y=True)
    >>> one = AnDE(n=1).fit(X, y)
    >>> bool(np.allclose(one.predict_proba(X), AODE().fit(X, y).predict_proba(X), atol=1e-12))
    True
    >>> a2de = AnDE(n=2).fit(X, y)
    >>> round(a2de.score(X, y), 3)
    0.986
    >>> sorted(a2de.estimators_[0].structure_.predecessors("doors"))  # the SP2DE of a pair
    ['buying', 'class', 'maint']
    """

    _parameter_constraints = {
        "n": [Interval(Integral, 1, 2, closed="both")],
        "alpha": ALPHA,
        "min_frequency": [Interval(Integral, 0, None, closed="left")],
        "handle_unknown": [Options(HANDLE_UNKNOWN)],
        "distributions": [CUT_TABLE_DISTRIBUTIONS],
        "subsumption": ["boolean", Interval(Integral, 0, None, closed="left")],
        "max_bytes": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(
        self,
        n=1,
        alpha=1.0,
        min_frequency=1,
        handle_unknown="warn",
        distributions=None,
        subsumption=False,
        max_bytes=MAX_BYTES,
    ):
        self.n = n
        self.alpha = alpha
        self.min_frequency = min_frequency
        self.handle_unknown = handle_unknown
        self.distributions = distributions
        self.subsumption = subsumption
        self.max_bytes = max_bytes

    def statistics_plan(self, schema=None) -> StatisticsPlan:
        return StatisticsPlan(pairwise=True, triples=self.n == 2)

    def _aode(self):
        return AODE(
            alpha=self.alpha,
            min_frequency=self.min_frequency,
            handle_unknown=self.handle_unknown,
            distributions=self.distributions,
            subsumption=self.subsumption,
        )

    def fit_statistics(self, stats, schema, classes, *, class_node="class", keep=False):
        """Fit from training statistics: the one entry of ``fit``, ``partial_fit`` and dask."""
        with unchanged_on_error(self):
            validate_parameters(self)
            kept = ("statistics_", "_fit_rows", "_pair_children", "pairs_", "_frequencies")
            for name in (*kept, "_value_pairs"):
                self.__dict__.pop(name, None)
            if self.n == 2:
                if not float(self.alpha) > 0:
                    raise ValueError("AnDE(n=2) needs alpha > 0 (a pair state never seen).")
                self._check_memory(schema, len(classes))
            self._set_schema(schema, class_node=class_node)
            self.classes_ = np.asarray(classes)
            self.aode_ = self._aode().fit_statistics(stats, schema, classes, class_node=class_node)
            if self.n == 2:
                self.pairs_ = parent_pair_states(schema.cards)[0]
                self._pair_children = self._count_pair_children(stats)
                every = np.arange(schema.n_features)
                self._frequencies = np.asarray(stats.category_counts(every), float).sum(axis=0)
                if self.subsumption is not False:
                    self._value_pairs = value_pair_counts(stats, schema.cards, every, len(classes))
            if keep:
                self.statistics_ = stats
        return self

    def table_bytes(self, schema=None, n_classes=None) -> int:
        """Bytes of the pair-and-child counts ``n=2`` keeps: ``8 C S R``."""
        schema = self.schema_ if schema is None else schema
        n_classes = len(self.classes_) if n_classes is None else n_classes
        cards = np.asarray(schema.cards)
        n_states = int(parent_pair_states(cards)[1][-1])
        return 8 * n_classes * n_states * int(cards.sum())

    def _check_memory(self, schema, n_classes):
        size = self.table_bytes(schema, n_classes)
        if size > self.max_bytes:
            cards = np.asarray(schema.cards)
            raise ValueError(
                f"AnDE(n=2) would keep {size / 1e6:,.0f} MB of counts N(c, x_i, x_j, x_k) "
                f"({n_classes} classes x {size // (8 * n_classes * int(cards.sum())):,} "
                f"pair states x {int(cards.sum())} categories x 8 bytes), more than "
                f"max_bytes={self.max_bytes:,}. Raise max_bytes if the memory is there, "
                "select features, or use AnDE(n=1)."
            )

    def _count_pair_children(self, stats):
        """N(c, x_i, x_j, x_k), shape ``(C, S, R)``, from the rows or the triple table."""
        cards = np.asarray(self.schema_.cards)
        if isinstance(stats, SufficientStatistics):
            pairs, starts = parent_pair_states(cards)
            offsets = np.concatenate([[0], np.cumsum(cards)])
            first, second = [], []
            for i, j in pairs:
                a, b = np.meshgrid(np.arange(cards[i]), np.arange(cards[j]), indexing="ij")
                first.append(offsets[i] + a.ravel())
                second.append(offsets[j] + b.ravel())
            if not len(pairs):
                return np.zeros((len(self.classes_), 0, int(cards.sum())))
            rows, cols = np.concatenate(first), np.concatenate(second)
            return stats.triple_table[:, rows, cols, :]
        return pair_child_counts(stats.codes, stats.y, cards, len(self.classes_), stats.weights)

    # -- prediction ----------------------------------------------------------------------------
    @property
    def estimators_(self):
        """The estimators averaged: ``n=1``, AODE's SPODEs; ``n=2``, the SP2DEs, one per
        pair of ``member_pairs_``, each fitted when read (see the class docstring)."""
        check_is_fitted(self, "aode_")
        if self.n == 1:
            return self.aode_.estimators_
        return MemberSequence(self._sp2de, len(self.member_pairs_))

    @property
    def member_pairs_(self) -> np.ndarray:
        """``n=2``: the pairs of ``pairs_`` that take part in the average (both columns
        observed in training), in the order of ``estimators_``."""
        check_is_fitted(self, "pairs_")
        return self.pairs_[self.schema_.structural[self.pairs_].all(axis=1)]

    def _sp2de(self, k):
        """SP2DE ``k``: a network whose parents are the class and the pair ``(i, j)`` of
        ``member_pairs_[k]`` for every other feature, ``(c, i)`` for ``j`` and ``c`` for
        ``i``, its tables this model's: ``P(c) P(x_i | c) P(x_j | c, x_i)`` is the
        pair's joint estimate ``P(c, x_i, x_j)`` factored (so its pseudo-counts are
        ``alpha |A_i| |A_j|``, ``alpha |A_j|`` and ``alpha``), and each child's table is
        ``P(x_k | c, x_i, x_j)``. Its joint equals the pair's term of the average, missing
        cells included (the network sums a missing parent out)."""
        schema, names = self.schema_, list(self.schema_.names)
        cards = np.asarray(schema.cards)
        n_classes = len(self.classes_)
        i, j = (int(v) for v in self.member_pairs_[k])
        log_joint, log_child, _, starts, _, _ = self._log_tables()
        index = int(np.flatnonzero((self.pairs_ == (i, j)).all(axis=1))[0])
        states = slice(starts[index], starts[index + 1])
        block = log_joint[:, states].reshape(n_classes, cards[i], cards[j])
        log_prior = logsumexp(block, axis=(1, 2))
        joint_i = logsumexp(block, axis=2)
        offsets = np.concatenate([[0], np.cumsum(cards)])
        parents, factors = [], []
        for m, spec in enumerate(schema.nodes_by_column):
            if m == i:
                family, table = (), joint_i - log_prior[:, None]
            elif m == j:
                family, table = (i,), block - joint_i[:, :, None]
            else:
                family = (i, j)
                table = log_child[:, states, offsets[m] : offsets[m + 1]].reshape(
                    n_classes, cards[i], cards[j], cards[m]
                )
            if m in schema.unobserved:
                parents.append(())
                factors.append(Unobserved.of_column(m, names, n_classes))
                continue
            parents.append(family)
            factors.append(kind_of(spec).new.from_log_table(table, m, family, names))
        arcs = [(names[i], names[j])] + [
            (names[p], names[m]) for m, family in enumerate(parents) if m != j for p in family
        ]
        member = SP2DE(alpha=self.alpha, handle_unknown="marginalize")
        dag = nx.DiGraph()
        dag.add_nodes_from(names)
        dag.add_edges_from(arcs)
        network = FittedNetwork(log_prior, parents, factors)
        return member.set_fitted_network(
            network, schema, self.classes_, dag, class_node=self.class_node_
        )

    def predict_log_proba_encoded(self, encoded):
        """``predict_log_proba`` of rows already encoded by :meth:`encode`."""
        return normalise(self._joint_codes(encoded))

    def _joint_log_likelihood(self, X) -> np.ndarray:
        return self._joint_codes(self.encode(X))

    def _log_tables(self):
        """log P(c, x_i, x_j), shape ``(C, S)``, and log P(x_k | c, x_i, x_j), ``(C, S, R)``
        (0 at the pair's own parents' categories)."""
        cards = np.asarray(self.schema_.cards)
        offsets = np.concatenate([[0], np.cumsum(cards)])
        alpha = float(self.alpha)
        counts = self._pair_children
        pairs, starts = parent_pair_states(cards)
        owner = np.repeat(np.arange(len(pairs)), np.diff(starts))  # each state's pair
        first, second = pairs[owner, 0], pairs[owner, 1]
        # N(c, x_i, x_j): a parent as its own child, summed over its value (one category)
        state = np.arange(counts.shape[1])
        within = state - starts[owner]
        a = within // cards[second]
        joint_counts = counts[:, state, offsets[first] + a]  # (C, S)
        n_pair = np.bincount(owner, joint_counts.sum(axis=0), minlength=len(pairs))
        size = len(self.classes_) * cards[first] * cards[second]
        log_joint = np.log(joint_counts + alpha) - np.log(n_pair[owner] + alpha * size)
        totals = feature_totals(counts, cards, axis=2)  # N(c, x_i, x_j) observing each child
        log_child = np.log(counts + alpha) - np.log(totals + alpha * np.repeat(cards, cards))
        child = np.repeat(np.arange(len(cards)), cards)  # each category's feature
        own = (child[None, :] == first[:, None]) | (child[None, :] == second[:, None])
        log_child[:, own] = 0.0
        return log_joint, log_child, pairs, starts, owner, offsets[first] + a

    def _joint_codes(self, encoded):
        check_is_fitted(self, "aode_")
        if self.n == 1:
            return self.aode_.predict_log_proba_encoded(encoded)
        codes = encoded[0]
        cards = np.asarray(self.schema_.cards)
        offsets = np.concatenate([[0], np.cumsum(cards)])
        dropped = np.zeros(codes.shape, dtype=bool)
        if "_value_pairs" in self.__dict__:
            count = SUBSUMPTION_MIN_COUNT if self.subsumption is True else int(self.subsumption)
            dropped = subsumed(codes, cards, self._value_pairs, count)
            codes = np.where(dropped, MISSING, codes)  # no child; its pairs left out below
        log_joint, log_child, pairs, starts, owner, at_first = self._log_tables()
        if not len(pairs):
            return self.aode_.predict_log_proba_encoded(encoded)
        n_classes, n_states, n_total = log_child.shape
        # N(x_i, x_j) of each pair state and N(x_i) of each category, over the classes; a
        # pair with a column never observed in training (read as missing) never takes part
        state_count = self._pair_children[:, np.arange(n_states), at_first].sum(axis=0)
        single = self._frequencies
        usable = self.schema_.structural[pairs].all(axis=1)
        state_count = np.where(usable[owner], state_count, -np.inf)
        out = np.empty((len(codes), n_classes))
        observed_all = codes != MISSING
        complete = observed_all.all(axis=1)
        first, second = pairs[:, 0], pairs[:, 1]
        # rows observing every cell: one pick per pair (gather), no sum over parent states
        idx = np.flatnonzero(complete)
        per_row = n_classes * len(pairs) * len(cards)
        chunk = max(1, BLOCK_CELLS // per_row)
        for start in range(0, len(idx), chunk):
            rows = idx[start : start + chunk]
            x = codes[rows]
            state = starts[:-1] + x[:, first] * cards[second] + x[:, second]  # (n, pairs)
            at = offsets[:-1] + x  # (n, m)
            scores = log_joint[:, state] + log_child[:, state[:, :, None], at[:, None, :]].sum(
                axis=3
            )  # (C, n, pairs)
            eligible = state_count[state] >= self.min_frequency
            out[rows] = self._average(scores, eligible, rows, encoded)
        # rows with a missing cell: every pair state's score, summed over the consistent ones
        idx = np.flatnonzero(~complete)
        per_row = n_classes * n_states + n_total
        chunk = max(1, BLOCK_CELLS // per_row)
        a_of = (np.arange(n_states) - starts[owner]) // cards[second[owner]]
        b_of = (np.arange(n_states) - starts[owner]) % cards[second[owner]]
        for start in range(0, len(idx), chunk):
            rows = idx[start : start + chunk]
            x = codes[rows]
            observed = x != MISSING
            z = np.zeros((len(rows), n_total))
            r, k = np.nonzero(observed)
            z[r, offsets[k] + x[r, k]] = 1.0
            flat = log_child.reshape(n_classes * n_states, n_total)
            children = (z @ flat.T).reshape(len(rows), n_classes, n_states).transpose(1, 0, 2)
            scores = log_joint[:, None, :] + children  # (C, n, S)
            xi, xj = x[:, first[owner]], x[:, second[owner]]  # (n, S)
            consistent = ((xi == MISSING) | (xi == a_of)) & ((xj == MISSING) | (xj == b_of))
            # the frequency limit on the observed parents of each pair
            oi, oj = xi != MISSING, xj != MISSING
            count = np.where(
                oi & oj,
                state_count[None, :],
                np.where(
                    oi,
                    single[offsets[first[owner]] + a_of],
                    np.where(oj, single[offsets[second[owner]] + b_of], np.inf),
                ),
            )
            eligible_state = (count >= self.min_frequency) & usable[owner]
            gone = dropped[rows]
            eligible_state &= ~(gone[:, first[owner]] | gone[:, second[owner]])
            keep = consistent & eligible_state
            masked = np.where(keep[None], scores, -np.inf)
            # a pair takes part when its observed values pass the limit
            held = np.diff(starts) > 0  # a pair with a column of no category has no state
            n_eligible = np.add.reduceat(keep, starts[:-1][held], axis=1) > 0
            out[rows] = self._sum_states(masked, n_eligible.sum(axis=1), rows, encoded)
        return out

    def _average(self, scores, eligible, rows, encoded):
        """log of the mean of ``exp(scores)`` over the eligible pairs; AODE where none is."""
        masked = np.where(eligible[None], scores, -np.inf)
        return self._sum_states(masked, eligible.sum(axis=1), rows, encoded)

    def _sum_states(self, masked, n_eligible, rows, encoded):
        top = masked.max(axis=2)
        shift = np.where(np.isfinite(top), top, 0.0)
        with np.errstate(divide="ignore"):
            total = shift + np.log(np.exp(masked - shift[:, :, None]).sum(axis=2))
            joint = total.T - np.log(np.maximum(n_eligible, 1))[:, None]
        back_off = n_eligible == 0
        if back_off.any():
            codes, values = encoded
            sub = (codes[rows][back_off], None if values is None else values[rows][back_off])
            joint[back_off] = self.aode_.predict_log_proba_encoded(sub)
        return joint

    # -- declared state (see SchemaAttributes._get_state) --------------------------------
    _FITTED_FIELDS = {
        "aode_": "aode_",
        "pairs_": "pairs_",
        "_pair_children": "pair_children",
        "_frequencies": "frequencies",
        "_value_pairs": "value_pairs",
    }

    def _check_state(self):
        require("aode_" in vars(self), "AnDE", "a fitted AnDE needs its AODE (aode_).")
        require(isinstance(self.aode_, AODE), "aode_", "is not an AODE.")
        require(
            np.array_equal(self.aode_.classes_, self.classes_)
            and self.aode_.schema_.n_features == self.schema_.n_features,
            "aode_",
            "its classes or features differ from the model's.",
        )
        if self.n == 2:
            cards = np.asarray(self.schema_.cards)
            pairs, starts = parent_pair_states(cards)
            require(
                isinstance(self.pairs_, np.ndarray) and np.array_equal(self.pairs_, pairs),
                "pairs_",
                "are not every pair i < j.",
            )
            shape = (len(self.classes_), int(starts[-1]), int(cards.sum()))
            float_array(self._pair_children, "pair_children", shape)
            require(bool((self._pair_children >= 0).all()), "pair_children", "counts < 0.")
            float_array(self._frequencies, "frequencies", (shape[2],))
            if "_value_pairs" in vars(self):
                float_array(self._value_pairs, "value_pairs", (shape[2], shape[2]))


class SP2DE(AugmentedNaiveBayes):
    """One member of A2DE: the class and a pair of features parents of every other feature.

    :attr:`AnDE.estimators_` (``n=2``) builds each from the model's own tables
    (``set_fitted_network``); it has no structure of its own to learn, so it is
    never fitted alone.

    Examples
    --------
    >>> from bnclassify import AnDE
    >>> from bnclassify.datasets import load_car
    >>> X, y = load_car(return_X_y=True)
    >>> member = AnDE(n=2).fit(X, y).estimators_[0]
    >>> type(member).__name__, sorted(member.structure_.predecessors("maint"))
    ('SP2DE', ['buying', 'class'])
    """

    def _feature_dag(self, weights, features, counts):
        raise TypeError(
            "an SP2DE is built from its A2DE's tables (AnDE(n=2).estimators_), not fitted alone"
        )
