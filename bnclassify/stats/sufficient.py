"""Additive statistics of a table: ``a + b`` is the statistics of both (partial_fit, dask)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np

from .._native import count_families
from ..data import (
    MISSING,
    NO_EXPONENT,
    as_frame,
    column_exponents,
    kind_of,
    learn_categories,
    log_largest,
)
from .counting import (
    CHUNK_ROWS,
    PairwiseCounts,
    category_slices,
)
from .tables import FamilyTables
from .training import TrainingCounts
from .variables import VariableCounts

# -- additive statistics: partial_fit and distributed fits ------------------------------

#: Largest triple-count table (cells, all classes) KDB with k >= 2 accumulates incrementally.
MAX_TRIPLE_CELLS = 1 << 24
#: Largest family table N(c, x_parents, x_child) (cells, all classes) a fit counts: 256 MB.
#: A general network's family without the class is kept once per class, and counts so.
MAX_FAMILY_CELLS = 1 << 25
#: Most cells a general network's tables hold together (``BayesNetClassifier``): 1 GB of
#: float64, read again into one array by prediction.
MAX_NETWORK_CELLS = 1 << 27


@dataclass
class StatisticsPlan:
    """Which additive statistics an incremental fit keeps (what its structure may need).

    Parameters
    ----------
    pairwise : bool
        Keep the full pair table N(c, x_i, x_j) (``C R^2`` floats, ``R`` the
        categories of all features): every single-parent family and the CMI
        of every pair of discrete features. Naive Bayes needs only N(c, x_i).
    triples : bool
        Keep N(c, x_i, x_j, x_k) (``C R^3`` floats): the families with two
        feature parents of KDB with ``k >= 2``; refused above
        :data:`MAX_TRIPLE_CELLS` cells.
    structural_moments : bool
        Keep the Gaussian moments of every family a tree may give a Gaussian
        feature: per class alone, per (class, state of each discrete feature)
        and on each other Gaussian feature (pairwise cross-products per class).
    two_parent_moments : bool
        Also the Gaussian families with two feature parents that KDB with
        ``k >= 2`` may make: two discrete parents, or one discrete and one
        Gaussian (``G (R_cat^2 + R_cat G)`` groups per class).
    edges : tuple of (int, int)
        The arcs ``(parent, child)`` of a structure fixed before the data (Simpler
        TAN's contact tree): keep each one's family N(c, x_parent, x_child), or
        its Gaussian moments, and no other pair (``C r_parent r_child`` floats each).
    rows : bool
        Keep the distinct rows, the class as one more column, with their weights
        (:class:`~bnclassify.stats.VariableCounts`): the counts of any family of
        any variables, which a general network's structure search reads. At most
        one record per training row (``m + 1`` codes and a weight), usually far
        fewer: discrete rows repeat.
    family_pass : bool
        A dask fit counts the structure's families of two or more feature
        parents in one more pass over the partitions once the structure is
        known, and keeps no triple table (KDB with ``k >= 2``: its ``m^3 / 6``
        increments a row cost more than a pass counting ``m`` families, and
        its ``C R^3`` cells need not fit in memory). ``partial_fit``, which
        sees each chunk once, keeps the triple table where ``triples`` asks for
        it (``k = 2``) and refuses the model otherwise (see :attr:`one_pass`).
    """

    pairwise: bool = False
    triples: bool = False
    structural_moments: bool = False
    two_parent_moments: bool = False
    edges: tuple = ()
    rows: bool = False
    family_pass: bool = False

    @property
    def one_pass(self) -> bool:
        """Whether statistics kept in one pass over the rows hold every family the
        structure may need (what ``partial_fit`` needs): not for a plan whose families
        are counted by a later pass and that keeps no triple table (KDB with ``k >= 3``).

        Examples
        --------
        >>> StatisticsPlan(pairwise=True, triples=True, family_pass=True).one_pass
        True
        >>> StatisticsPlan(pairwise=True, family_pass=True).one_pass
        False
        """
        return self.triples or not self.family_pass

    def for_passes(self) -> StatisticsPlan:
        """The plan a fit that can pass over the rows again (dask) counts first: with
        ``family_pass``, no triple table (its families come from that later pass).

        Examples
        --------
        >>> StatisticsPlan(pairwise=True, triples=True, family_pass=True).for_passes().triples
        False
        """
        return replace(self, triples=False) if self.family_pass else self


def moment_keys(schema, plan) -> list:
    """The Gaussian families ``(child, discrete parents, continuous parents)`` to accumulate."""
    discrete, structural = schema.discrete, schema.structural
    # continuous nodes that take part in structures: the (conditional linear) Gaussians
    gauss = [j for j in range(schema.n_features) if not discrete[j] and structural[j]]
    keys = [(j, (), ()) for j in gauss]
    if plan.structural_moments:
        cats = [i for i in range(schema.n_features) if discrete[i] and structural[i]]
        for j in gauss:
            keys += [(j, (i,), ()) for i in cats]
            keys += [(j, (), (k,)) for k in gauss if k != j]
            if plan.two_parent_moments:
                keys += [(j, (a, b), ()) for a in cats for b in cats if a != b]
                keys += [(j, (i,), (k,)) for i in cats for k in gauss if k != j]
    continuous = set(gauss)
    keys += [
        (child, (parent,), ()) if discrete[parent] else (child, (), (parent,))
        for parent, child in plan.edges
        if child in continuous and not plan.structural_moments
    ]
    return keys


@dataclass
class SufficientStatistics(FamilyTables):
    """Additive statistics of a training table: ``a + b`` is the statistics of both tables.

    It holds the class labels and the categories it has seen (a sum unions
    them, sorted as a fit on the concatenated tables sorts them, and re-indexes
    every table, a category unseen by one side counting zero there), the class
    counts, N(c, x_i) of every feature, optionally the pair and triple tables
    (see :class:`StatisticsPlan`), the :class:`GaussianMoments` of the Gaussian
    families and each node's own sums (Bernoulli and multinomial nodes). It
    answers the same questions as :class:`TrainingCounts` (``family``,
    ``pairwise``, ``gaussian_moments``, ...), so weights, structures and
    factors are fitted from it exactly as from the rows.

    Memory: ``C R`` floats, plus ``C R^2`` with the pair table and ``C R^3``
    with triples (or the tables of a fixed structure's arcs alone,
    ``arc_table``), plus ``G (C + C R_cat + C G)`` small moment records for
    ``G`` Gaussian features in a structure; independent of the number of rows.

    Examples
    --------
    >>> import pandas as pd
    >>> from bnclassify.data import TableSchema
    >>> a = pd.DataFrame({"x": ["u", "v"]})
    >>> b = pd.DataFrame({"x": ["t", "v"]})
    >>> schema, _ = TableSchema.learn(a)
    >>> sa = SufficientStatistics.from_table(a, ["p", "q"], schema, StatisticsPlan())
    >>> sb = SufficientStatistics.from_table(b, ["p", "p"], schema, StatisticsPlan())
    >>> total = sa + sb
    >>> total.categories[0].tolist(), total.family(0).tolist()
    (['t', 'u', 'v'], [[1.0, 1.0, 1.0], [0.0, 0.0, 1.0]])
    """

    class_labels: np.ndarray
    categories: list
    discrete: np.ndarray
    class_count: np.ndarray
    feature_table: np.ndarray
    pairwise_table: np.ndarray | None = None
    triple_table: np.ndarray | None = None
    moments: dict = field(default_factory=dict)
    node_sums: dict = field(default_factory=dict)
    #: The arcs ``(parent, child)`` of a :class:`StatisticsPlan`'s ``edges`` whose child
    #: is discrete ...
    arcs: tuple = ()
    #: ... and their families N(c, x_parent, x_child), flattened side by side: ``(C, cells)``.
    arc_table: np.ndarray | None = None
    #: Columns whose pooled variance sets ``variance_scale`` (their key ``(j, (), ())``).
    scale_columns: tuple = ()
    #: Per column the power of two its moments are divided by (:func:`column_exponents`).
    exponents: np.ndarray | None = None
    #: The distinct rows and their weights, when the plan keeps them (``StatisticsPlan.rows``).
    row_counts: VariableCounts | None = None

    # -- building -------------------------------------------------------------------
    @classmethod
    def from_table(cls, X, y, schema, plan, weights=None, classes=None, node_sums=None):
        """The statistics of one table (a chunk), its categories learned from the chunk itself.

        Parameters
        ----------
        X : DataFrame or array-like
            Aligned with ``schema`` (same columns, same order).
        y : array-like of shape (n,)
        schema : TableSchema
            Kinds of the columns (its categories are not used).
        plan : StatisticsPlan
        weights : ndarray of shape (n,), optional
        classes : ndarray, optional
            The declared classes; a label outside them is a ValueError. Without
            them, the chunk's own sorted labels.
        node_sums : callable, optional
            ``TrainingCounts -> dict``: the sums the class-only continuous nodes
            keep (see :meth:`from_counts`); needed when the schema has such nodes.
        """
        counts, labels, categories = chunk_counts(X, y, schema, weights, classes)
        sums = {} if node_sums is None else node_sums(counts)
        return cls.from_counts(counts, schema, plan, labels, categories, sums)

    @classmethod
    def from_counts(cls, counts, schema, plan, labels, categories, node_sums=None):
        """Keep the statistics ``plan`` asks for from a :class:`TrainingCounts`.

        ``node_sums`` maps the columns of each class-only continuous node
        (Bernoulli, multinomial) to the additive sums it is fitted from; the
        statistics layer does not know the nodes, so the caller computes them
        (:func:`bnclassify.factors.node_statistics`).
        """
        n_total = int(np.sum(counts.cards))
        pairwise = counts.pairwise.table if plan.pairwise else None
        triples = None
        if plan.triples:
            cells = counts.n_classes * n_total**3
            if cells > MAX_TRIPLE_CELLS:
                raise ValueError(
                    f"KDB with k >= 2 or A2DE fitted incrementally keeps the triple counts "
                    f"N(c, x_i, x_j, x_k): {cells} cells here, more than "
                    f"MAX_TRIPLE_CELLS = {MAX_TRIPLE_CELLS}. Use fit, or k <= 1 (n = 1)."
                )
            triples = triple_counts(counts, n_total)
        discrete = schema.discrete
        # children in order: the order in which a fit counts a tree's families
        arcs = tuple(sorted(((p, c) for p, c in plan.edges if discrete[c]), key=lambda a: a[1]))
        batch = counts.arc_batch(arcs) if arcs else None  # the fit's own batch: no copy
        singles = None
        if pairwise is not None:
            feature_table = np.diagonal(pairwise, axis1=1, axis2=2).copy()
        elif arcs and (singles := counts.arc_single_counts(arcs, batch)) is not None:
            feature_table = singles
        else:
            feature_table = np.concatenate(counts.feature_class, axis=1)
        moments = {key: counts.gaussian_moments(*key) for key in moment_keys(schema, plan)}
        class_only = [
            columns
            for columns, spec in schema.nodes
            if not kind_of(spec).discrete and not kind_of(spec).structural
        ]
        node_sums = dict(node_sums or {})
        missing = [columns for columns in class_only if columns not in node_sums]
        if missing:
            raise ValueError(
                f"node_sums must hold the sums of the class-only nodes {missing} "
                "(see bnclassify.factors.node_statistics)."
            )
        scaled = tuple(
            j for j, spec in enumerate(schema.nodes_by_column) if kind_of(spec).scaled_by_variance
        )
        return cls(
            class_labels=np.asarray(labels),
            categories=list(categories),
            discrete=np.asarray(schema.discrete),
            class_count=counts.classes,
            feature_table=feature_table,
            pairwise_table=pairwise,
            triple_table=triples,
            moments=moments,
            node_sums=node_sums,
            arcs=arcs,
            arc_table=None if batch is None else batch.table,
            scale_columns=scaled,
            exponents=np.asarray(counts.exponents),
            row_counts=counts.variable_counts() if plan.rows else None,
        )

    # -- adding -----------------------------------------------------------------------
    def __add__(self, other: SufficientStatistics) -> SufficientStatistics:
        # the same classes keep their order (a Categorical y's declared order, as fit keeps it)
        labels = self.class_labels
        if not _same(labels, other.class_labels):
            labels = union_sorted(labels, other.class_labels)
        categories = [
            a if a is None or _same(a, b) else union_sorted(a, b)
            for a, b in zip(self.categories, other.categories, strict=True)
        ]
        left, right = self.reindexed(labels, categories), other.reindexed(labels, categories)
        exponents = np.maximum(left.exponents, right.exponents)
        left, right = left.rescaled(exponents), right.rescaled(exponents)
        return SufficientStatistics(
            class_labels=labels,
            categories=categories,
            discrete=self.discrete,
            class_count=left.class_count + right.class_count,
            feature_table=left.feature_table + right.feature_table,
            pairwise_table=_add(left.pairwise_table, right.pairwise_table),
            triple_table=_add(left.triple_table, right.triple_table),
            moments={k: left.moments[k] + right.moments[k] for k in left.moments},
            node_sums={
                k: {name: v + right.node_sums[k][name] for name, v in sums.items()}
                for k, sums in left.node_sums.items()
            },
            arcs=self.arcs,
            arc_table=_add(left.arc_table, right.arc_table),
            scale_columns=self.scale_columns,
            exponents=exponents,
            row_counts=_add_rows(left.row_counts, right.row_counts),
        )

    def rescaled(self, exponents) -> SufficientStatistics:
        """These statistics with their moments in units of ``2**exponents`` (exact)."""
        if np.array_equal(exponents, self.exponents):
            return self
        shift = np.where(self.exponents == NO_EXPONENT, 0, self.exponents - exponents)
        moments = {
            key: m.rescaled(shift[key[0]], shift[list(key[2])]) for key, m in self.moments.items()
        }
        return replace(self, moments=moments, exponents=np.asarray(exponents))

    def reindexed(self, labels, categories) -> SufficientStatistics:
        """These statistics on more classes and categories (the new ones counting zero)."""
        if _same(labels, self.class_labels) and all(
            a is None or _same(a, b) for a, b in zip(self.categories, categories, strict=True)
        ):
            return self
        cls_map = _positions(labels, self.class_labels)
        maps = [
            np.zeros(1, dtype=np.intp) if old is None else _positions(new, old)
            for old, new in zip(self.categories, categories, strict=True)
        ]
        new_cards = [1 if c is None else len(c) for c in categories]
        new_offsets = np.concatenate([[0], np.cumsum(new_cards)])
        flat = np.concatenate([new_offsets[j] + m for j, m in enumerate(maps)]).astype(np.intp)
        n_c, n_r = len(labels), int(new_offsets[-1])
        feature_table = np.zeros((n_c, n_r))
        feature_table[np.ix_(cls_map, flat)] = self.feature_table
        pairwise = triples = None
        if self.pairwise_table is not None:
            pairwise = np.zeros((n_c, n_r, n_r))
            pairwise[np.ix_(cls_map, flat, flat)] = self.pairwise_table
        if self.triple_table is not None:
            triples = np.zeros((n_c, n_r, n_r, n_r))
            triples[np.ix_(cls_map, flat, flat, flat)] = self.triple_table
        moments = {}
        for key, m in self.moments.items():
            parents = key[1]
            old_shape = (len(self.class_labels), *(len(maps[p]) for p in parents))
            new_shape = (n_c, *(new_cards[p] for p in parents))
            grid = np.broadcast_arrays(*np.ix_(cls_map, *(maps[p] for p in parents)))
            order = np.ravel_multi_index(tuple(grid), new_shape).ravel()
            assert order.size == np.prod(old_shape)
            moments[key] = m.take(order, int(np.prod(new_shape)))
        arc_table = None
        if self.arc_table is not None:
            grown = []
            for k, (parent, child) in enumerate(self.arcs):
                table = np.zeros((n_c, new_cards[parent], new_cards[child]))
                table[np.ix_(cls_map, maps[parent], maps[child])] = self._arc_family(k)
                grown.append(table.reshape(n_c, -1))
            arc_table = np.concatenate(grown, axis=1)
        node_sums = {}
        for key, sums in self.node_sums.items():
            node_sums[key] = {}
            for name, v in sums.items():
                grown = np.zeros((n_c, *v.shape[1:]))
                grown[cls_map] = v
                node_sums[key][name] = grown
        return SufficientStatistics(
            class_labels=np.asarray(labels),
            categories=list(categories),
            discrete=self.discrete,
            class_count=np.bincount(cls_map, self.class_count, minlength=n_c),
            feature_table=feature_table,
            pairwise_table=pairwise,
            triple_table=triples,
            moments=moments,
            node_sums=node_sums,
            arcs=self.arcs,
            arc_table=arc_table,
            scale_columns=self.scale_columns,
            exponents=self.exponents,
            row_counts=_reindexed_rows(self.row_counts, maps, cls_map, new_cards, n_c),
        )

    def merged(self, maps, categories) -> SufficientStatistics:
        """These statistics with some columns' categories merged (coarser bins, say).

        ``maps``: ``{column: codes}``, the new code of each of the column's
        categories (several may share one); ``categories``: ``{column: new
        categories}``. Every table's counts of merged categories add up (exact for
        counts of whole rows). Pair tables and per-feature tables only (no triples,
        arcs, moments or rows).

        Examples
        --------
        >>> import pandas as pd
        >>> from bnclassify.data import TableSchema
        >>> X = pd.DataFrame({"x": ["a", "b", "c"], "z": ["u", "u", "v"]})
        >>> schema, _ = TableSchema.learn(X)
        >>> stats = SufficientStatistics.from_table(X, [0, 1, 1], schema, StatisticsPlan(True))
        >>> merged = stats.merged({0: [0, 1, 1]}, {0: ["a", "bc"]})
        >>> merged.family(0).tolist(), merged.family(1, [0])[1].tolist()
        ([[1.0, 0.0], [0.0, 2.0]], [[0.0, 0.0], [1.0, 1.0]])
        """
        if self.triple_table is not None or self.arcs or self.moments or self.row_counts:
            raise ValueError("Only per-feature and pair tables can be merged.")
        new = [np.asarray(categories[j]) if j in maps else c for j, c in enumerate(self.categories)]
        new_cards = [1 if c is None else len(c) for c in new]
        new_offsets = np.concatenate([[0], np.cumsum(new_cards)])
        flat = np.concatenate(
            [
                new_offsets[j] + (np.asarray(maps[j], dtype=np.intp) if j in maps
                                  else np.arange(card, dtype=np.intp))
                for j, card in enumerate(self.cards)
            ]
        )  # fmt: skip
        merge = np.zeros((len(flat), int(new_offsets[-1])))
        merge[np.arange(len(flat)), flat] = 1.0
        pairwise = None
        if self.pairwise_table is not None:
            pairwise = merge.T @ self.pairwise_table @ merge
        return replace(
            self,
            categories=new,
            feature_table=self.feature_table @ merge,
            pairwise_table=pairwise,
        )

    # -- what TrainingCounts answers ---------------------------------------------------------
    @property
    def cards(self) -> np.ndarray:
        return np.array([1 if c is None else len(c) for c in self.categories])

    @property
    def offsets(self) -> np.ndarray:
        return np.concatenate([[0], np.cumsum(self.cards)])

    @property
    def n_classes(self) -> int:
        return len(self.class_labels)

    @property
    def n_features(self) -> int:
        return len(self.categories)

    @property
    def n_rows(self) -> float:
        """Number (total weight) of the rows accumulated."""
        return float(self.class_count.sum())

    @property
    def classes(self) -> np.ndarray:
        return self.class_count

    @property
    def feature_class(self) -> list:
        o = self.offsets
        return [self.feature_table[:, o[i] : o[i + 1]] for i in range(self.n_features)]

    @property
    def pairwise(self) -> PairwiseCounts:
        if self.pairwise_table is None:
            raise ValueError("These statistics were accumulated without the pair table.")
        return PairwiseCounts(table=self.pairwise_table, cards=self.cards)

    def pair_table(self, rows, cols) -> np.ndarray:
        """N(c, x_i, x_j) of the features ``rows`` against ``cols`` (from the pair table)."""
        return self.pairwise.pair_table(rows, cols)

    def category_counts(self, features) -> np.ndarray:
        """N(c, x_i = a) of every category ``a`` of ``features``, shape ``(C, R_features)``."""
        return self.feature_table[:, category_slices(self.cards, features)]

    def family(self, child: int, parents=()) -> np.ndarray:
        parents = tuple(parents)
        o = self.offsets
        if not parents:
            return self.feature_class[child].copy()
        if len(parents) == 1 and (parents[0], child) in self._arc_index:
            return self._arc_family(self._arc_index[(parents[0], child)]).copy()
        if len(parents) == 1:
            return self.pairwise.block(parents[0], child).copy()
        if len(parents) == 2 and self.triple_table is not None:
            p, q = parents
            return self.triple_table[
                :, o[p] : o[p + 1], o[q] : o[q + 1], o[child] : o[child + 1]
            ].copy()
        raise ValueError(
            f"The accumulated statistics hold no counts of a family with {len(parents)} "
            "feature parents."
        )

    def families(self, parents_of) -> list:
        return [self.family(i, tuple(p)) for i, p in enumerate(parents_of)]

    @cached_property
    def _arc_index(self) -> dict:
        return {arc: k for k, arc in enumerate(self.arcs)}

    @cached_property
    def _arc_offsets(self) -> np.ndarray:
        cards = self.cards
        sizes = [int(cards[p] * cards[c]) for p, c in self.arcs]
        return np.concatenate([[0], np.cumsum(sizes)]).astype(np.intp)

    def _arc_family(self, k) -> np.ndarray:
        parent, child = self.arcs[k]
        cells = self.arc_table[:, self._arc_offsets[k] : self._arc_offsets[k + 1]]
        return cells.reshape(len(cells), self.cards[parent], self.cards[child])

    def prefetch_families(self, children, parents_of) -> None:
        """Nothing to count ahead: every family is read from the accumulated tables."""

    def gaussian_moments(self, child, discrete_parents=(), continuous_parents=()):
        key = (child, tuple(discrete_parents), tuple(continuous_parents))
        if key not in self.moments:
            raise ValueError(
                f"The accumulated statistics hold no Gaussian moments of the family {key}; "
                "only the families a tree can hold are accumulated."
            )
        return self.moments[key]

    def variable_counts(self) -> VariableCounts:
        """The distinct rows accumulated, the class as a last variable (``StatisticsPlan.rows``)."""
        if self.row_counts is None:
            raise ValueError("These statistics were accumulated without the rows (plan.rows).")
        return self.row_counts

    def kept_node_sums(self, columns):
        """The additive sums a class-only continuous node is fitted from."""
        return self.node_sums[tuple(columns)]

    @property
    def log_variance_scale(self) -> float:
        """log V of the variance floors: V the largest pooled variance of the scaled columns."""
        if not self.scale_columns:
            return 0.0
        variances, exponents = [], []
        for j in self.scale_columns:
            pooled = self.moments[(j, (), ())].pooled()
            if pooled.count[0] <= 0:  # no observed value: left out of the model
                continue
            variances.append(pooled.sxx[0] / pooled.count[0])
            exponents.append(self.exponents[j])
        if not variances:
            return 0.0
        return log_largest(np.array(variances), np.array(exponents))

    @property
    def variance_scale(self) -> float:
        """V in the data's units (``inf`` beyond the float range; see ``log_variance_scale``)."""
        return float(np.exp(min(self.log_variance_scale, 709.0)))

    def unobserved_columns(self) -> list:
        """Positions of the columns with no observed cell in the rows accumulated.

        A discrete column without a category, or a continuous one whose (dummy)
        count N(c, x_i) is zero in every class.

        Examples
        --------
        >>> import pandas as pd
        >>> from bnclassify.data import TableSchema
        >>> X = pd.DataFrame({"x": ["u", "v"], "empty": [None, None]})
        >>> schema, _ = TableSchema.learn(X, categories=False)
        >>> stats = SufficientStatistics.from_table(X, [0, 1], schema, StatisticsPlan())
        >>> stats.unobserved_columns()
        [1]
        """
        o = self.offsets
        return [
            j for j in range(self.n_features) if not self.feature_table[:, o[j] : o[j + 1]].any()
        ]


def chunk_counts(X, y, schema, weights=None, classes=None):
    """``(counts, labels, categories)``: a chunk encoded with its own categories, as
    :class:`TrainingCounts`, with its class labels and each column's categories.

    Parameters as :meth:`SufficientStatistics.from_table`.
    """
    frame = as_frame(X)[0].set_axis(schema.names, axis=1)
    labels, y_codes = class_codes(y, len(frame), classes)
    categories = chunk_categories(frame, schema)
    cards = np.array([1 if c is None else len(c) for c in categories])
    if all(c is None or len(c) for c in categories):
        codes = schema.discrete_codes(frame, categories)
    else:  # a column with no observed value in this chunk: every code missing
        codes = schema.discrete_codes(
            frame, [c if c is None or len(c) else np.array([0]) for c in categories]
        )
        for j, c in enumerate(categories):
            if c is not None and not len(c):
                codes[:, j] = MISSING
    values = None if schema.discrete.all() else schema.continuous_values(frame)
    counts = TrainingCounts(
        codes,
        y_codes,
        cards,
        len(labels),
        values=values,
        discrete=schema.discrete,
        weights=weights,
        exponents=column_exponents(values, schema.rescaled),
    )
    return counts, labels, categories


def _add_rows(a, b):
    """The distinct rows of two tables together (equal rows merged), or None."""
    if a is None:
        return None
    dtype = np.result_type(a.codes.dtype, b.codes.dtype)
    table = np.concatenate([a.codes.astype(dtype), b.codes.astype(dtype)])
    return VariableCounts.merged(table, np.concatenate([a.weights, b.weights]), a.cards)


def _reindexed_rows(rows, maps, class_map, cards, n_classes):
    """Rows coded by the categories of another sum: each column's codes mapped to the new ones."""
    if rows is None:
        return None
    new_cards = [*cards, n_classes]
    codes = np.empty(rows.codes.shape, dtype=np.result_type(rows.codes.dtype, np.int16))
    if max(new_cards) < np.iinfo(rows.codes.dtype).max:
        codes = codes.astype(rows.codes.dtype)
    for j, mapping in enumerate([*maps, class_map]):
        column = rows.codes[:, j]
        seen = column != MISSING
        codes[:, j] = MISSING
        codes[seen, j] = mapping[column[seen]]
    return VariableCounts.merged(codes, rows.weights, new_cards)


def _same(a, b) -> bool:
    return len(a) == len(b) and bool(np.all(np.asarray(a) == np.asarray(b)))


def _add(a, b):
    return None if a is None else a + b


def _positions(new, old) -> np.ndarray:
    """Where each of ``old`` sits in ``new``."""
    import pandas as pd

    return pd.Index(new).get_indexer(old).astype(np.intp)


def union_sorted(a, b) -> np.ndarray:
    """The categories of ``a`` and ``b`` together, sorted as a fit learns them."""
    import pandas as pd

    if not len(a):
        return np.asarray(b)
    if not len(b):
        return np.asarray(a)
    return learn_categories(pd.Series(np.concatenate([np.asarray(a), np.asarray(b)])))


def chunk_categories(frame, schema) -> list:
    """Each discrete column's categories in this table (empty when all missing), else None;
    a binned column's are its intervals, fixed by the schema."""

    out = []
    for j, (name, discrete) in enumerate(zip(frame.columns, schema.discrete, strict=True)):
        if schema.binned[j]:
            out.append(schema.categories[j])
        elif not discrete:
            out.append(None)
        elif frame[name].notna().any():
            out.append(learn_categories(frame[name]))
        else:
            out.append(np.array([]))
    return out


def class_codes(y, n_rows, classes=None):
    """``(labels, codes)``: the chunk's labels (or the declared ``classes``) and y's codes."""
    import pandas as pd

    if isinstance(y, pd.DataFrame):
        y = y.iloc[:, 0]
    values = y.to_numpy() if isinstance(y, pd.Series) else np.asarray(y)
    values = values.ravel() if values.ndim == 2 and values.shape[1] == 1 else values
    if values.ndim != 1 or len(values) != n_rows:
        raise ValueError(f"X has {n_rows} rows but y has shape {values.shape}; they must match.")
    if pd.isna(values).any():
        raise ValueError("y has missing values; the class must be observed in every row.")
    if classes is None:
        classes = learn_categories(pd.Series(values, name="y"))
    codes = pd.Index(classes).get_indexer(values)
    if (codes < 0).any():
        bad = values[np.argmax(codes < 0)]
        bad = bad.item() if isinstance(bad, np.generic) else bad
        raise ValueError(
            f"y has the label {bad!r}, which is not one of the declared classes "
            f"{list(classes)}; pass every class in classes on the first call to partial_fit."
        )
    return np.asarray(classes), codes.astype(np.intp)


def triple_counts(counts, n_total):
    """N(c, x_i, x_j, x_k) of every triple of features, shape ``(C, R, R, R)``.

    The rows' one-hot products ``z_i z_j z_k`` summed per class, counted
    without them: each block of three distinct features ``i < j < k`` is a
    family count of ``x_k`` given the pair code ``x_i r_j + x_j`` (the compiled
    :func:`~bnclassify._native.count_families`, one increment per row and
    triple), copied to its five permutations; a block that repeats a feature is
    the pair table's block on a diagonal (``z_i z_i = z_i``). An einsum of the
    one-hot rows does ``R^3`` products a row where this does ``m^3 / 6``
    increments: alarm's 36 features, about 100 categories, 10^6 rows,
    17 minutes against seconds.
    """
    cards = np.asarray(counts.cards, dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(cards)])
    m, n_classes = len(cards), counts.n_classes
    blocks = [slice(offsets[i], offsets[i + 1]) for i in range(m)]
    table = np.zeros((n_classes, n_total, n_total, n_total))
    pairs = counts.pairwise.table
    for i in range(m):  # the blocks with a repeated feature, from the pair table
        eye = np.eye(cards[i])
        for k in range(m):
            pair = pairs[:, blocks[i], blocks[k]]  # N(c, x_i, x_k)
            table[:, blocks[i], blocks[i], blocks[k]] = np.einsum("ab,cad->cabd", eye, pair)
            table[:, blocks[i], blocks[k], blocks[i]] = np.einsum("ab,cad->cadb", eye, pair)
            table[:, blocks[k], blocks[i], blocks[i]] = np.einsum("ab,cad->cdab", eye, pair)
    y = np.ascontiguousarray(counts.y, dtype=np.int64)
    weights = counts.weights
    for i in range(m - 2):
        later = np.arange(i + 1, m)
        # the families (x_k | pair (i, j)) for i < j < k: parent column m + (j - i - 1)
        js = np.concatenate([np.full(m - 1 - j, j) for j in later])
        ks = np.concatenate([np.arange(j + 1, m) for j in later])
        if not len(js):
            continue
        sizes = cards[i] * cards[js] * cards[ks]
        family_offsets = np.concatenate([[0], np.cumsum(sizes)])
        flat = np.zeros(n_classes * int(family_offsets[-1]))
        for start in range(0, len(y), CHUNK_ROWS):
            codes = np.asarray(counts.codes[start : start + CHUNK_ROWS], dtype=np.int32)
            x_i = codes[:, i : i + 1]
            pair_codes = x_i * cards[later].astype(np.int32) + codes[:, later]
            pair_codes[(x_i < 0) | (codes[:, later] < 0)] = -1  # MISSING
            flat += count_families(
                np.ascontiguousarray(np.concatenate([codes, pair_codes], axis=1)),
                y[start : start + CHUNK_ROWS],
                None if weights is None else weights[start : start + CHUNK_ROWS],
                ks,
                m + js - i - 1,
                cards[ks],
                family_offsets,
                n_classes,
            )
        flat = flat.reshape(n_classes, -1)
        for f, (j, k) in enumerate(zip(js, ks, strict=True)):
            block = flat[:, family_offsets[f] : family_offsets[f + 1]]
            block = block.reshape(n_classes, cards[i], cards[j], cards[k])
            a, b, c = blocks[i], blocks[j], blocks[k]
            table[:, a, b, c] = block
            table[:, a, c, b] = block.transpose(0, 1, 3, 2)
            table[:, b, a, c] = block.transpose(0, 2, 1, 3)
            table[:, b, c, a] = block.transpose(0, 2, 3, 1)
            table[:, c, a, b] = block.transpose(0, 3, 1, 2)
            table[:, c, b, a] = block.transpose(0, 3, 2, 1)
    return table
