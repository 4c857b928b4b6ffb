"""The statistics of an in-memory training table, computed on first use and cached."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from .._native import count_families
from ..data import (
    MISSING,
    TableSchema,
    as_frame,
    column_exponents,
    encode_target,
    take_rows,
)
from ..validation import check_sample_weight
from .counting import (
    CHUNK_ELEMENTS,
    PairwiseCounts,
    class_counts,
    family_counts,
    pair_block_counts,
    pairwise_counts,
    row_weights,
)
from .moments import GaussianMoments
from .tables import FamilyBatch, FamilyTables
from .variables import VariableCounts

#: Largest pair table N(c, x_i, x_j) (cells over all classes, 8 bytes each) counted and kept
#: whole; a wider one (e.g. 2 classes x 2000 three-state columns: 72e6 cells) is counted
#: a block of columns at a time and never held at once.
MAX_PAIRWISE_CELLS = 1 << 24


@dataclass
class TrainingCounts(FamilyTables):
    """The encoded training data and the statistics computed from it, each at most once.

    ``pairwise`` is computed on first use (TAN needs it, naive Bayes and
    Simpler TAN do not); once it exists, single-parent family counts are read
    from it instead of scanning the rows again.
    """

    codes: np.ndarray
    y: np.ndarray
    cards: np.ndarray
    n_classes: int
    _families: dict = field(default_factory=dict, repr=False)
    #: The :class:`FamilyBatch` each batch-counted family belongs to.
    _batch_of: dict = field(default_factory=dict, repr=False)
    #: Numbers of the continuous columns (NaN: missing; discrete columns are not read).
    values: np.ndarray | None = None
    #: Whether each column is discrete (codes) or continuous (values); default all discrete.
    discrete: np.ndarray | None = None
    #: log V of the variance floors, V the largest variance (data units) of the columns it scales.
    log_variance_scale: float = 0.0
    _moments: dict = field(default_factory=dict, repr=False)
    #: Row weights (``None``: every row counts 1); see ``sample_weight`` of ``fit``.
    weights: np.ndarray | None = None
    #: Per column, ``values`` hold the data times ``2**-exponents`` (see :func:`column_exponents`).
    exponents: np.ndarray | None = None

    def __post_init__(self):
        if self.discrete is None:
            self.discrete = np.ones(self.codes.shape[1], dtype=bool)
        if self.exponents is None:
            self.exponents = np.zeros(self.codes.shape[1], dtype=np.int64)

    @property
    def variance_scale(self) -> float:
        """V in the data's units (``inf`` beyond the float range; see ``log_variance_scale``)."""
        return float(np.exp(min(self.log_variance_scale, 709.0)))

    def recoded(self, codes=None, cards=None, y=None, n_classes=None) -> TrainingCounts:
        """The statistics of the same rows with other ``codes`` (and ``cards``) or other
        classes (``y``, ``n_classes``): the numbers, kinds, weights and scaling kept, nothing
        counted yet.

        Examples
        --------
        >>> codes, y = np.array([[0, 1], [1, 0]]), np.array([0, 1])
        >>> counts = TrainingCounts(codes, y, np.array([2, 2]), 2)
        >>> one_class = counts.recoded(y=np.zeros(2, dtype=int), n_classes=1)
        >>> one_class.classes.tolist(), one_class.codes is counts.codes
        ([2.0], True)
        """
        return TrainingCounts(
            self.codes if codes is None else codes,
            self.y if y is None else y,
            self.cards if cards is None else cards,
            self.n_classes if n_classes is None else n_classes,
            values=self.values,
            discrete=self.discrete,
            log_variance_scale=self.log_variance_scale,
            weights=self.weights,
            exponents=self.exponents,
        )

    def of_columns(self, columns) -> TrainingCounts:
        """The statistics of the same rows restricted to ``columns`` (positions), in that order.

        Examples
        --------
        >>> codes, y = np.array([[0, 1], [1, 0]]), np.array([0, 1])
        >>> counts = TrainingCounts(codes, y, np.array([2, 2]), 2)
        >>> counts.of_columns([1]).codes.tolist()
        [[1], [0]]
        """
        columns = list(columns)
        return TrainingCounts(
            self.codes[:, columns],
            self.y,
            self.cards[columns],
            self.n_classes,
            values=None if self.values is None else self.values[:, columns],
            discrete=self.discrete[columns],
            log_variance_scale=self.log_variance_scale,
            weights=self.weights,
            exponents=self.exponents[columns] if len(self.exponents) else self.exponents,
        )

    @cached_property
    def has_missing(self) -> bool:
        """Whether any code is :data:`~bnclassify.data.MISSING` (one pass over the codes)."""
        return bool(self.codes.size) and int(self.codes.min()) == MISSING

    @cached_property
    def classes(self) -> np.ndarray:
        return class_counts(self.y, self.n_classes, self.weights)

    @cached_property
    def feature_class(self) -> list:
        """N(c, x_i) of every feature, from one bincount over the whole table."""
        offsets = np.concatenate([[0], np.cumsum(self.cards)])
        total = int(offsets[-1])
        flat = np.zeros(self.n_classes * total)
        rows = max(1, CHUNK_ELEMENTS // self.n_features)
        for start in range(0, len(self.y), rows):
            codes = self.codes[start : start + rows]
            index = self.y[start : start + rows, None] * total + (codes + offsets[:-1])
            seen = codes != MISSING
            w = row_weights(self.weights, start, rows, index.shape, seen)
            flat += np.bincount(index[seen], w, minlength=len(flat))
        table = flat.reshape(self.n_classes, total)
        return [table[:, offsets[i] : offsets[i + 1]] for i in range(self.n_features)]

    @cached_property
    def pairwise(self) -> PairwiseCounts:
        return pairwise_counts(self.codes, self.y, self.cards, self.n_classes, weights=self.weights)

    @property
    def keeps_pairwise(self) -> bool:
        """Whether pair tables are read from the whole table (counted once and kept).

        True once it exists, or when every column is discrete and the table has at
        most :data:`MAX_PAIRWISE_CELLS` cells; a mixed table counts the blocks of its
        discrete columns alone.
        """
        if "pairwise" in self.__dict__:
            return True
        small = self.n_classes * int(np.sum(self.cards)) ** 2 <= MAX_PAIRWISE_CELLS
        return small and bool(np.all(self.discrete))

    def pair_table(self, rows, cols) -> np.ndarray:
        """N(c, x_i, x_j) of the features ``rows`` against ``cols``, ``(C, R_rows, R_cols)``.

        Read from the whole pair table when it is kept (:attr:`keeps_pairwise`);
        otherwise counted from the rows for this block alone and not kept, so a
        wide table is never held whole.
        """
        if self.keeps_pairwise:
            return self.pairwise.pair_table(rows, cols)
        return pair_block_counts(
            self.codes, self.y, self.cards, self.n_classes, rows, cols, weights=self.weights
        )

    def category_counts(self, features) -> np.ndarray:
        """N(c, x_i = a) of every category ``a`` of ``features``, shape ``(C, R_features)``."""
        if self.keeps_pairwise:
            return self.pairwise.category_counts(features)
        return np.concatenate([self.feature_class[j] for j in features], axis=1)

    @property
    def n_features(self) -> int:
        return self.codes.shape[1]

    def families(self, parents_of, both_ways=False) -> list:
        """N(c, x_parents, x_i) for every feature ``i`` given its parent tuple ``parents_of[i]``.

        Counted as :meth:`prefetch_families` does, so a tree costs one pass
        over the table rather than one per feature. With ``both_ways``, each
        single-parent family is also cached reversed (N(c, x_i, x_p) is the
        same count transposed), so trees rooted elsewhere never recount.
        """
        self.prefetch_families(range(len(parents_of)), parents_of)
        tables = [self.family(i, tuple(parents)) for i, parents in enumerate(parents_of)]
        if both_ways:
            for child, parents in enumerate(parents_of):
                if len(parents) == 1:
                    reverse = (parents[0], (child,))
                    self._families.setdefault(reverse, tables[child].swapaxes(1, 2))
        return tables

    def prefetch_families(self, children, parents_of) -> None:
        """Count the families of ``children`` (given ``parents_of[i]``) ahead, together.

        Families with one parent are counted in one bincount over an
        ``(n_rows, n_children)`` index; a single family without parents (a
        tree's root) is counted alone rather than N(c, x_i) of every feature.
        Nothing is counted when the pair table exists: :meth:`family` reads it.
        """
        if "pairwise" in self.__dict__:
            return
        children = list(children)
        todo = [
            i
            for i in children
            if len(parents_of[i]) == 1
            and (i, tuple(parents_of[i])) not in self._families
            and (i, tuple(parents_of[i])) not in self._batch_of
        ]
        if len(todo) > 1:
            self._count_single_parent_families(todo, [parents_of[i][0] for i in todo])
        roots = [i for i in children if not len(parents_of[i])]
        if len(roots) == 1 and "feature_class" not in self.__dict__:
            key = (roots[0], ())
            if key not in self._families:
                self._families[key] = family_counts(
                    self.codes, self.y, roots[0], (), self.cards, self.n_classes, self.weights
                )

    def _count_single_parent_families(self, children, parents):
        sizes = self.cards[parents] * self.cards[children]
        offsets = np.concatenate([[0], np.cumsum(sizes)])
        total = int(offsets[-1])
        flat = count_families(
            self.codes,
            self.y,
            self.weights,
            children,
            parents,
            self.cards[children],
            offsets,
            self.n_classes,
            has_missing=lambda: self.has_missing,  # one pass over the codes: asked only if needed
        )
        keys = tuple(zip(children, ((p,) for p in parents), strict=True))
        batch = FamilyBatch(
            flat.reshape(self.n_classes, total),
            offsets.tolist(),
            self.cards[parents],
            self.cards[children],
            keys,
        )
        for k, key in enumerate(keys):
            self._batch_of[key] = (batch, k)  # its tables are sliced out when asked for

    def log_family(self, child: int, parents, alpha: float) -> np.ndarray:
        """``log P(x_child | c, x_parents)``; a batch-counted family's with its whole batch."""
        found = self._batch_of.get((child, tuple(parents)))
        if found is None:
            return super().log_family(child, parents, alpha)
        return found[0].log_table(found[1], alpha)

    def gaussian_moments(self, child, discrete_parents=(), continuous_parents=()):
        """:class:`GaussianMoments` of a continuous child per (class, discrete-parent state).

        Only rows observing the child and every parent count. Cached per family.
        """
        key = (child, tuple(discrete_parents), tuple(continuous_parents))
        if key not in self._moments:
            x = self.values[:, child]
            cont = self.values[:, list(continuous_parents)]
            cat = self.codes[:, list(discrete_parents)]
            observed = ~np.isnan(x) & ~np.isnan(cont).any(axis=1) & (cat != MISSING).all(axis=1)
            cards = tuple(int(self.cards[p]) for p in discrete_parents)
            n_configs = int(np.prod(cards)) if cards else 1
            config = (
                np.ravel_multi_index(tuple(cat[observed].T.astype(np.intp)), cards)
                if cards
                else np.zeros(int(observed.sum()), dtype=np.intp)
            )
            group = self.y[observed] * n_configs + config
            self._moments[key] = GaussianMoments.from_data(
                x[observed],
                cont[observed],
                group,
                self.n_classes * n_configs,
                None if self.weights is None else self.weights[observed],
            )
        return self._moments[key]

    def holds(self, plan, moment_keys) -> bool:
        """Whether every table ``plan`` asks for is already computed (turning these counts
        into :class:`~bnclassify.stats.SufficientStatistics` then reads no row again).

        ``moment_keys``: the Gaussian families the plan keeps
        (:func:`~bnclassify.stats.moment_keys`).
        """
        if plan.pairwise:
            tables = "pairwise" in vars(self)
        else:
            tables = "feature_class" in vars(self) or bool(
                plan.edges and self._singles_from_arcs(plan.edges)
            )
        return (
            tables
            and not plan.triples
            and all(
                self._counted((child, (parent,))) or not self.discrete[child]
                for parent, child in plan.edges
            )
            and all(tuple(key) in self._moments for key in moment_keys)
        )

    def _counted(self, key) -> bool:
        return key in self._families or key in self._batch_of

    def _singles_from_arcs(self, arcs, batch=None) -> bool:
        """Whether N(c, x_i) of every feature follows from counted families of ``arcs``
        (a spanning tree's, every feature discrete, no missing cell)."""
        children = {child for _, child in arcs}
        roots = [i for i in range(self.n_features) if i not in children]
        return (
            bool(np.all(self.discrete))
            and all(self._counted((i, ())) for i in roots)
            and (  # a batch of arcs (arc_batch) holds their counted families
                batch is not None
                or all(self._counted((child, (parent,))) for parent, child in arcs)
            )
            and self._complete(roots, batch)
        )

    def _complete(self, roots, batch) -> bool:
        """No cell is missing. Unweighted, a tree's families tell without a pass over the
        codes: every feature is a root or a child, and a family holds every row (sums to
        the class counts, exactly) only when none of its cells is missing."""
        if "has_missing" in vars(self) or self.weights is not None or batch is None:
            return not self.has_missing
        if np.any(np.diff(batch.offsets) == 0):  # a child with no state: every cell missing
            return False
        families = np.add.reduceat(batch.table, batch.offsets[:-1], axis=1)
        own = [self.family(i, ()) for i in roots]
        return bool(
            np.array_equal(families, np.broadcast_to(self.classes[:, None], families.shape))
            and all(np.array_equal(t.reshape(len(t), -1).sum(axis=1), self.classes) for t in own)
        )

    def arc_batch(self, arcs) -> FamilyBatch:
        """N(c, x_parent, x_child) of every arc ``(parent, child)``, as one :class:`FamilyBatch`
        in the order of ``arcs``: the batch the fit counted when it holds exactly these
        families (nothing is copied), else one made of the families (counted if need be)."""
        keys = tuple((child, (parent,)) for parent, child in arcs)
        found = self._batch_of.get(keys[0]) if keys else None
        if found is not None and found[0].families == keys:
            return found[0]
        parents_of = [()] * self.n_features
        for parent, child in arcs:
            parents_of[child] = (parent,)
        self.prefetch_families([child for _, child in arcs], parents_of)
        return FamilyBatch.of([self.family(child, (parent,)) for parent, child in arcs])

    def arc_single_counts(self, arcs, batch) -> np.ndarray | None:
        """N(c, x_i) of every feature, ``(C, R)``, from the counted families of a spanning
        tree's ``arcs`` (``batch``: theirs, :meth:`arc_batch`) and its roots' own counts:
        with every feature discrete and no missing cell a child's count is its family
        summed over the parent, so no row is read again. None when that does not hold."""
        if "feature_class" in vars(self) or not self._singles_from_arcs(arcs, batch):
            return None
        offsets = np.concatenate([[0], np.cumsum(self.cards)])
        table = np.empty((self.n_classes, int(offsets[-1])))
        children = np.array([child for _, child in arcs], dtype=np.intp)
        if len(children):
            sizes = self.cards[children]
            starts = np.repeat(offsets[children] - (np.cumsum(sizes) - sizes), sizes)
            table[:, starts + np.arange(int(sizes.sum()))] = batch.child_totals()
        rooted = set(children.tolist())
        for i in range(self.n_features):
            if i not in rooted:
                table[:, offsets[i] : offsets[i + 1]] = self.family(i, ())
        return table

    def variable_counts(self) -> VariableCounts:
        """The distinct rows with the class as a last variable (computed once): the counts
        of any family of a network in which the class is an ordinary node."""
        if "_variable_counts" not in vars(self):
            self._variable_counts = VariableCounts.from_rows(
                self.codes, self.y, self.cards, self.n_classes, self.weights
            )
        return self._variable_counts

    def kept_node_sums(self, columns):
        """None: in-memory statistics keep no node's sums; the node reads ``values``."""
        return None

    def class_values(self, column) -> list:
        """The observed values of a continuous column in each class (unweighted rows only)."""
        if self.weights is not None:
            raise ValueError(
                "sample_weight cannot be used with a KernelDensity feature: a kernel density "
                "keeps its training values, which row weights do not scale."
            )
        x = self.values[:, column]
        observed = ~np.isnan(x)
        return [x[observed & (self.y == c)] for c in range(self.n_classes)]

    def keep_family(self, child: int, parents, counts) -> None:
        """Cache N(c, x_parents, x_child) counted elsewhere from these rows (the same numbers
        :func:`family_counts` gives): :meth:`family` returns it rather than counting again.
        A family already counted keeps its table."""
        key = (child, tuple(parents))
        if key not in self._families and key not in self._batch_of:
            self._families[key] = counts

    def family(self, child: int, parents=()) -> np.ndarray:
        """N(c, x_parents, x_child), cached; see :func:`family_counts`."""
        key = (child, tuple(parents))
        if key not in self._families:
            if key in self._batch_of:
                batch, k = self._batch_of[key]
                counts = batch.counts(k)
            elif "pairwise" in self.__dict__ and len(parents) <= 1:
                pc = self.pairwise
                counts = pc.block(parents[0], child).copy() if parents else pc.feature_class(child)
            elif not parents:
                counts = self.feature_class[child]
            else:
                counts = family_counts(
                    self.codes, self.y, child, parents, self.cards, self.n_classes, self.weights
                )
            self._families[key] = counts
        return self._families[key]


def training_statistics(X, y, distributions=None, sample_weight=None, warn=True):
    """Learn the schema of ``X``, encode ``X`` and ``y``, and wrap them as statistics.

    With ``sample_weight`` every count and moment is weighted; rows of weight
    0 are dropped first (so they add no category or class either). ``warn``: as
    :meth:`~bnclassify.data.TableSchema.learn_and_encode`'s, for columns left out.

    Returns
    -------
    schema : TableSchema
    classes : ndarray
    stats : TrainingCounts

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"site": [0, 1], "size": [1.5, 2.5]})
    >>> schema, classes, stats = training_statistics(X, ["a", "b"])
    >>> schema.kinds, classes.tolist(), stats.classes.tolist()
    (['categorical', 'binned'], ['a', 'b'], [1.0, 1.0])
    >>> training_statistics(X, ["a", "b"], sample_weight=[2, 1])[2].classes.tolist()
    [2.0, 1.0]
    """

    weights = None
    frame, has_names = as_frame(X)
    table = X  # the user's table: the schema keeps its own column labels
    dropped = 0
    if sample_weight is not None:
        weights = check_sample_weight(sample_weight, len(frame))
        keep = weights > 0
        if not keep.any():
            raise ValueError("sample_weight: every weight is zero; there is nothing to fit.")
        if not keep.all():
            dropped = int((~keep).sum())
            frame, has_names, y = take_rows(X, y, keep)
            weights = weights[keep]
            table = frame
    # the labels are hashed once: the kinds rule reads their codes, not the labels again
    try:
        classes, y_codes = encode_target(y, len(frame))
    except ValueError as error:
        if not dropped:
            raise
        raise ValueError(
            f"{error} (counted on the rows of positive sample_weight: {dropped} row(s) of "
            "weight 0 are left out)"
        ) from None
    schema, frame, codes, values = TableSchema.learn_and_encode(
        table, distributions, weights, y_codes, warn=warn, classes=classes
    )
    schema.has_names = has_names
    exponents = column_exponents(values, schema.rescaled)
    stats = TrainingCounts(
        codes,
        y_codes,
        schema.cards,
        len(classes),
        values=values,
        discrete=schema.discrete,
        log_variance_scale=schema.log_variance_scale(values, exponents, weights),
        weights=weights,
        exponents=exponents,
    )
    return schema, classes, stats
