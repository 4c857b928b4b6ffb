"""Fitting on and predicting for dask DataFrames: only statistics travel.

``fit`` on a dask DataFrame computes each partition's
:class:`~bnclassify.stats.SufficientStatistics` on the workers (with the
partition's own categories and classes), sums them with a tree reduction
(``split_every`` at a time; a sum unions the categories and re-indexes the
tables) and fits the model from the total, exactly as ``partial_fit`` does
after the last chunk; the rows never leave the workers. Categories of
known dask categoricals are every partition's declared categories. Before
it, the kinds rule reads the numeric columns over every partition
(:mod:`~bnclassify.data.kinds_evidence`), and a binned column's cut points
are learned from its :class:`~bnclassify.data.ValueClassCounts` summed over
the partitions the same way: those of ``fit`` on the same rows, at the cost
of one more pass and ``8 (C + 1)`` bytes per distinct value of the column
(refused, naming the column, beyond :data:`~bnclassify.data.MAX_BINNED_VALUES`).
``predict``, ``predict_proba`` and ``predict_log_proba`` on a dask DataFrame
return lazy dask arrays computed partition by partition.

dask is imported only here, when a dask collection is passed: the rest of
bnclassify works without it (``pip install "dask[dataframe]" distributed``, or
``pip install -e ".[dask]"`` in a clone).
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd

from ._native import (
    column_codes,
    dense_families,
    loo_family_counts,
    loo_layout,
    loo_pass,
    loo_tables,
)
from .data import (
    DENSITY,
    TableSchema,
    ValueClassCounts,
    as_frame,
    count_evidence,
    decided_kind,
    needs_values,
    tested_row_step,
    value_evidence,
    warn_unobserved,
)
from .factors import node_statistics
from .stats import FamilyTables, StatisticsPlan, SufficientStatistics
from .validation import validate_parameters

#: How many partition statistics one task of the tree reduction sums.
SPLIT_EVERY = 8


def is_dask_collection(X) -> bool:
    """Whether ``X`` is a dask collection (checked without importing dask)."""
    return type(X).__module__.split(".")[0] in ("dask", "dask_expr")


def _is_dask_array(X) -> bool:
    return is_dask_collection(X) and hasattr(X, "chunks") and not hasattr(X, "divisions")


def _as_table(X, name="X"):
    """A dask DataFrame as it is; a 2-D dask Array as one with unnamed columns (one chunk of
    columns per block, its row chunks as the partitions), like a NumPy array's fit."""
    if not _is_dask_array(X):
        return X
    if X.ndim != 2:
        raise ValueError(
            f"{name} is a {X.ndim}-D dask Array; a table must be 2-D "
            "(rows x columns, e.g. X.reshape(-1, 1) for a single feature)."
        )
    import dask.dataframe as dd

    return dd.from_dask_array(X.rechunk({1: -1}))


def _as_target(y, X):
    """A dask Array ``y`` as a dask Series partitioned like the table ``X`` (made from an Array)."""
    if not _is_dask_array(y):
        return y
    if y.ndim != 1:
        raise ValueError(f"y is a {y.ndim}-D dask Array; it must be 1-D (one label per row).")
    import dask.dataframe as dd

    if X.known_divisions and len(X.divisions) - 1 == len(y.chunks[0]):
        return dd.from_dask_array(y)  # the same row chunks as X: divisions match
    sizes = X.map_partitions(len).compute()
    return dd.from_dask_array(y.rechunk((tuple(int(s) for s in sizes),)))


def partition_statistics(X, y, schema, plan):
    """The statistics of one partition (``None`` for an empty one).

    Examples
    --------
    >>> import pandas as pd
    >>> from bnclassify.stats import StatisticsPlan
    >>> X = pd.DataFrame({"a": ["u", "v", "v"]})
    >>> schema = TableSchema.from_dtypes(X.iloc[:0])
    >>> stats = partition_statistics(X, pd.Series([0, 1, 1]), schema, StatisticsPlan())
    >>> stats.categories[0].tolist(), stats.class_count.tolist()
    (['u', 'v'], [1.0, 2.0])
    """
    if not isinstance(schema, TableSchema):
        raise TypeError(f"schema must be a TableSchema, got {type(schema).__name__}.")
    if hasattr(y, "columns"):
        y = y.iloc[:, 0]
    if len(X) != len(y):
        raise ValueError(
            f"A partition of X has {len(X)} rows but the matching partition of y has "
            f"{len(y)}: X and y are not partitioned alike (unknown or different divisions). "
            "Take y from the same dask DataFrame as X (e.g. y = df['class'])."
        )
    if len(X) == 0:
        return None
    return SufficientStatistics.from_table(
        X, y, schema, plan, node_sums=partial(node_statistics, schema=schema)
    )


def sum_statistics(*parts):
    """The sum of some partitions' statistics (``None`` ones skipped)."""
    total = None
    for part in parts:
        if part is not None:
            total = part if total is None else total + part
    return total


#: The column that carries y next to X's columns inside each partition.
TARGET = "__bnclassify_target__"


def _split_target(frame):
    """A joined partition's table and labels; a missing label is refused."""
    y = frame[TARGET]
    if y.isna().any():
        raise ValueError(
            f"y is missing for {int(y.isna().sum())} row(s) of a partition: the class must be "
            "observed in every row, and X and y must be partitioned alike (the same index "
            "labels in matching partitions; e.g. y = df['class'], X = df.drop(columns='class'))."
        )
    return frame.drop(columns=TARGET), y


def _joined_partition_statistics(frame, schema, plan):
    return partition_statistics(*_split_target(frame), schema, plan)


def _joined(X, y):
    """``X`` with ``y`` as one more column: both read and partitioned by one graph, whatever
    the optimiser does to each alone."""
    if not is_dask_collection(X):
        raise TypeError(f"X must be a dask DataFrame here, got {type(X).__name__}.")
    if TARGET in X.columns:
        raise ValueError(f"X has a column named {TARGET!r}, which bnclassify reserves.")
    try:
        return X.assign(**{TARGET: y})
    except (ValueError, NotImplementedError) as error:
        raise ValueError(
            "X and y are not partitioned alike (unknown or different divisions): "
            f"{error} Take y from the same dask DataFrame as X (e.g. y = df['class'])."
        ) from None


def _tree_sum(joined, per_partition, add, split_every):
    """``per_partition`` of each partition of ``joined``, summed with ``add`` by a tree
    reduction on the cluster, ``split_every`` at a time; one compute."""
    import dask

    per_partition, add = dask.delayed(per_partition), dask.delayed(add)  # in the graph once
    parts = [per_partition(part) for part in joined.to_delayed()]
    while len(parts) > 1:
        parts = [add(*parts[k : k + split_every]) for k in range(0, len(parts), split_every)]
    return parts[0].compute()


def dask_statistics(X, y, schema, plan, split_every=SPLIT_EVERY):
    """Per-partition statistics summed by a tree reduction on the cluster; one compute.

    ``y`` travels as a column of ``X`` (``X.assign``), so both are read and
    partitioned by one graph, whatever the optimiser does to each alone.
    """
    per_partition = partial(_joined_partition_statistics, schema=schema, plan=plan)
    total = _tree_sum(_joined(X, y), per_partition, sum_statistics, split_every)
    if total is None:
        raise ValueError("The dask DataFrame has no rows.")
    return total


def partition_value_counts(X, y, schema):
    """The :class:`~bnclassify.data.ValueClassCounts` of each binned column whose cut points
    are learned (``{position: counts}``), over one partition (``None`` for an empty one);
    a column of more than :data:`~bnclassify.data.MAX_BINNED_VALUES` distinct values is
    refused by name.

    Examples
    --------
    >>> X = pd.DataFrame({"size": [2.0, 1.0, 2.0]})
    >>> schema = TableSchema.from_dtypes(X.iloc[:0], {"size": "binned"})
    >>> partition_value_counts(X, pd.Series(["p", "q", "q"]), schema)[0].counts.tolist()
    [[0.0, 1.0], [1.0, 1.0]]
    """
    if len(X) == 0:
        return None
    frame = as_frame(X)[0].set_axis(schema.names, axis=1)
    counts = schema.value_counts(frame, y)
    return {j: c.check_size(schema.names[j]) for j, c in counts.items()}


def sum_value_counts(*parts, names):
    """The sum of some partitions' :func:`partition_value_counts` (``None`` ones skipped),
    each column's checked against :data:`~bnclassify.data.MAX_BINNED_VALUES` (``names``:
    the columns' names, for the message)."""
    parts = [p for p in parts if p is not None]
    if not parts:
        return None
    return {j: ValueClassCounts.total([p[j] for p in parts]).check_size(names[j]) for j in parts[0]}


def _joined_partition_value_counts(frame, schema):
    return partition_value_counts(*_split_target(frame), schema)


def dask_value_counts(X, y, schema, split_every=SPLIT_EVERY) -> dict:
    """Each learned binned column's value counts over every partition: a first pass, whose
    total gives the cut points ``fit`` learns (:meth:`~bnclassify.data.TableSchema.with_bins`).
    """
    per_partition = partial(_joined_partition_value_counts, schema=schema)
    add = partial(sum_value_counts, names=schema.names)
    return _tree_sum(_joined(X, y), per_partition, add, split_every) or {}


def _empty_like(X):
    """An empty pandas DataFrame with the dask DataFrame's columns and dtypes."""
    return pd.DataFrame({name: pd.Series(dtype=dtype) for name, dtype in X.dtypes.items()})


def _first_rows(X, y):
    """The first partition with rows, and its labels (an empty frame when none has rows).

    The kinds are read from it (an integer column's kind depends on its number of distinct
    values), as partial_fit takes them from its first chunk; empty partitions (after a
    filter, say) are passed over.
    """
    for k in range(X.npartitions):
        part = X.get_partition(k).compute()
        if len(part):
            return part, y.get_partition(k).compute()
    return _empty_like(X), None


def _declared_classes(y, first_y, labels):
    """A categorical ``y``'s declared classes in their order (``fit`` keeps that order), or
    None for other labels.

    Known categories are read from the dask dtype; unknown ones (``read_parquet`` leaves
    them unknown) from the first partition's, when they hold every observed label: every
    partition of a parquet data set written from one Categorical declares the same ones.
    """
    declared = getattr(y, "dtype", None)
    if not isinstance(declared, pd.CategoricalDtype):
        return None
    if getattr(y.cat, "known", False):
        return np.asarray(declared.categories)
    first = getattr(first_y, "dtype", None)
    if isinstance(first, pd.CategoricalDtype):
        categories = np.asarray(first.categories)
        if pd.Index(categories).is_unique and np.isin(labels, categories).all():
            return categories
    return None


def _check_pair(X, y):
    if not hasattr(X, "to_delayed") or not hasattr(X, "npartitions") or not hasattr(X, "dtypes"):
        raise TypeError(f"X must be a dask DataFrame here, got {type(X).__name__}.")
    if not hasattr(y, "to_delayed") or not hasattr(y, "npartitions"):
        raise TypeError(
            "With a dask DataFrame X, y must be a dask Series partitioned like X, got "
            f"{type(y).__name__}."
        )
    if X.known_divisions and y.known_divisions:
        return  # dask aligns y to X by index
    if X.npartitions != y.npartitions:
        raise ValueError(
            f"X has {X.npartitions} partitions but y has {y.npartitions}, and their divisions "
            "are unknown, so y cannot be aligned to X; they must be partitioned alike "
            "(e.g. y = df['class'], X = df.drop(columns='class'))."
        )


def fit_dask(model, X, y, sample_weight=None, split_every=SPLIT_EVERY):
    """Fit ``model`` on a dask DataFrame ``X`` and dask Series ``y`` from summed statistics.

    Parameters
    ----------
    model : AugmentedNaiveBayes or AODE
        Any model with ``partial_fit`` (not kernel densities).
    X : dask.dataframe.DataFrame
    y : dask.dataframe.Series
        With known divisions on both, aligned to ``X`` by index; otherwise
        partitioned like ``X`` (same number of partitions, the same index
        labels in matching partitions; a row of ``X`` without its label in
        ``y`` is an error raised on the workers).
    sample_weight : None
        Not supported with dask input.
    split_every : int, default=8
        Statistics summed per task of the tree reduction.

    Returns
    -------
    model
        Fitted (each column's kind is decided on the whole column, as in
        ``fit`` on a pandas DataFrame); ``statistics_`` holds the summed
        statistics (a later ``partial_fit`` continues from them).

    Examples
    --------
    Without a ``distributed.Client`` dask runs the partitions on local threads:

    >>> import dask.dataframe as dd
    >>> import numpy as np
    >>> from bnclassify import TAN
    >>> from bnclassify.datasets import load_car
    >>> X, y = load_car(return_X_y=True)
    >>> df = dd.from_pandas(X.assign(label=y), npartitions=4)
    >>> model = TAN().fit(df.drop(columns="label"), df["label"])
    >>> bool(np.allclose(model.predict_proba(X), TAN().fit(X, y).predict_proba(X)))
    True
    """
    validate_parameters(model)
    if sample_weight is not None:
        raise ValueError(
            "sample_weight is not supported with a dask DataFrame; weight rows by "
            "partial_fit over the partitions instead."
        )
    X = _as_table(X)
    y = _as_target(y, X)
    stats, schema, classes, class_node = dask_training_statistics(
        X, y, getattr(model, "distributions", None), model.statistics_plan, split_every
    )
    if model.statistics_plan(schema).family_pass:  # KDB, k >= 2: its families by one more pass
        passes = PartitionPasses(stats, _joined(X, y), schema, classes, split_every)
        model.fit_statistics(passes, schema, classes, class_node=class_node)
        model.statistics_ = stats  # what a partial_fit reads (and refuses: no triple table)
        return model
    return model.fit_statistics(stats, schema, classes, class_node=class_node, keep=True)


def dask_training_statistics(X, y, distributions=None, plan_for=None, split_every=SPLIT_EVERY):
    """The summed statistics of a dask DataFrame: what ``fit`` reads, computed on the cluster.

    Each numeric column's kind is decided by the kinds rule on the whole
    column, as an in-memory fit decides it (:mod:`~bnclassify.data.kinds_evidence`:
    one pass over the partitions for counts, a second one where the counts leave
    it open); a binned column's cut points are learned from its value counts
    summed over every partition (one more pass: :func:`dask_value_counts`), as
    ``fit`` learns them; each partition's statistics are computed on the workers
    and summed by a tree reduction.

    Parameters
    ----------
    X : dask.dataframe.DataFrame
    y : dask.dataframe.Series
    distributions : None, str, Distribution or dict, optional
        As an estimator's ``distributions``.
    plan_for : callable, optional
        ``schema -> StatisticsPlan``: what the statistics must hold (a model's
        ``statistics_plan``); by default those of naive Bayes.
    split_every : int, default=8

    Returns
    -------
    stats : SufficientStatistics
    schema : TableSchema
        With the categories of every partition.
    classes : ndarray
    class_node : str
        ``y``'s name, or ``"class"``, made distinct from every column's.
    """
    table = DaskTable(X, y, split_every)
    schema = table.schema(distributions, table.kinds(distributions))
    if schema.learned_bins.any():  # the cut points fit learns, from every partition's counts
        schema = schema.with_bins(table.value_counts(schema))
    plan = StatisticsPlan() if plan_for is None else plan_for(schema).for_passes()
    return table.statistics(schema, plan)


class DaskTable:
    """A dask table and its labels, read in passes over their partitions.

    What :func:`dask_training_statistics` reads, one pass at a time: the kinds
    (:meth:`kinds`, decided on whole columns), the schema they give
    (:meth:`schema`), the binned columns' value counts (:meth:`value_counts`)
    and the summed statistics (:meth:`statistics`); a model that bins the
    columns its own way (:class:`~bnclassify.ESKDB`: each member its own cuts)
    reads the same passes in between. ``X`` and ``y`` are checked to be
    partitioned alike; ``joined`` is the table with the labels as a column.
    """

    def __init__(self, X, y, split_every=SPLIT_EVERY):
        X = _as_table(X)
        y = _as_target(y, X)
        _check_pair(X, y)
        self.X, self.y, self.split_every = X, y, split_every
        self.first, self.first_y = _first_rows(X, y)

    @property
    def joined(self):
        """The table with the labels as one more column, read and partitioned by one graph."""
        return _joined(self.X, self.y)

    def kinds(self, distributions=None) -> dict:
        """``{position: kind}`` of the numeric columns the kinds rule reads (one or two
        passes; ``distributions="density"``: continuous columns as densities)."""
        return _rule_kinds(self.X, self.y, distributions)

    def schema(self, distributions=None, kinds=None) -> TableSchema:
        """The columns' kinds (no categories, no learned cut points yet)."""
        return TableSchema.from_dtypes(self.first, distributions, self.first_y, kinds)

    def value_counts(self, schema) -> dict:
        """:func:`dask_value_counts` of the schema's learned binned columns (one pass)."""
        return dask_value_counts(self.X, self.y, schema, self.split_every)

    def statistics(self, schema, plan) -> tuple:
        """``(stats, schema, classes, class_node)`` summed over the partitions coded by
        ``schema`` (its binned columns' cut points known), as :func:`dask_training_statistics`
        returns them (one pass)."""
        total = dask_statistics(self.X, self.y, schema, plan, self.split_every)
        if total.n_classes < 2:
            raise ValueError(
                f"y has a single class {list(total.class_labels)}; at least 2 are needed."
            )
        declared = _declared_classes(self.y, self.first_y, total.class_labels)
        if declared is not None:  # a Categorical's declared classes in their order, as fit does
            total = total.reindexed(declared, total.categories)
        fitted = schema.with_categories(total.categories).with_unobserved(
            total.unobserved_columns()
        )
        warn_unobserved([fitted.names[j] for j in fitted.unobserved])
        name = getattr(self.y, "name", None)
        class_node = name if isinstance(name, str) and name else "class"
        while class_node in schema.names:
            class_node += "_"
        return total, fitted, total.class_labels, class_node


def _ruled_columns(X, distributions) -> list:
    """Positions of the numeric columns whose kind the rule decides from their values."""
    if isinstance(distributions, str) and distributions == DENSITY:
        distributions = None  # the rule, numbers as densities
    if distributions is not None and not isinstance(distributions, dict):
        return []  # one kind for every column
    named = set()
    for key in distributions or {}:
        for k in key if isinstance(key, tuple) else (key,):
            named.add(k)
    out = []
    for j, (name, dtype) in enumerate(X.dtypes.items()):
        numeric = getattr(dtype, "kind", "O") in "iuf" and not isinstance(
            dtype, pd.CategoricalDtype
        )
        if numeric and name not in named and j not in named:
            out.append(j)
    return out


def _count_part(part, columns):
    return len(part), [count_evidence(part.iloc[:, j]) for j in columns]


def _value_part(part, columns, candidates, offset, step):
    y = part[TARGET]
    return [
        value_evidence(part.iloc[:, j], c, y, offset, step)
        for j, c in zip(columns, candidates, strict=True)
    ]


def _rule_kinds(X, y, distributions) -> dict:
    """``{position: kind}`` of the columns the kinds rule reads, decided on whole columns."""
    import dask

    columns = _ruled_columns(X, distributions)
    if not columns:
        return {}
    joined = X.assign(**{TARGET: y})
    parts = joined.to_delayed()
    counted = dask.compute(*[dask.delayed(_count_part)(p, columns) for p in parts])
    totals = [sum((ev[i] for _, ev in counted[1:]), counted[0][1][i]) for i in range(len(columns))]
    integer_dtype = [getattr(X.dtypes.iloc[j], "kind", "O") in "iu" for j in columns]
    open_ = [i for i, ev in enumerate(totals) if needs_values(ev, integer_dtype[i])]
    values = {}
    if open_:
        offsets = np.cumsum([0] + [rows for rows, _ in counted[:-1]])
        step = tested_row_step(sum(rows for rows, _ in counted))
        wanted = [columns[i] for i in open_]
        candidates = [totals[i].candidates for i in open_]
        read = dask.compute(
            *[
                dask.delayed(_value_part)(p, wanted, candidates, int(offset), step)
                for p, offset in zip(parts, offsets, strict=True)
            ]
        )
        for k, i in enumerate(open_):
            values[i] = sum((r[k] for r in read[1:]), read[0][k])
    numbers = DENSITY if isinstance(distributions, str) and distributions == DENSITY else None
    return {
        j: decided_kind(totals[i], integer_dtype[i], values.get(i), numbers)
        for i, j in enumerate(columns)
    }


def fit_dask_selective(model, X, y, sample_weight=None, split_every=SPLIT_EVERY):
    """Fit a selective KDB on a dask DataFrame by the passes of Martinez et al. (2016).

    1. The summed statistics of every partition, as :func:`fit_dask` computes them
       (after the kinds and the binned columns' cut points, each learned from every
       partition's counts): class counts and pair tables, from which the attributes
       are ranked and each one's parents chosen.
    2. Each attribute's dense table ``N(c, x_parents, x)`` at every depth of its
       ranked parents, counted per partition and summed
       (:func:`bnclassify._native.loo_family_counts`).
    3. The leave-one-out losses of every candidate, each partition's rows scored
       against the summed tables and their sums summed
       (:func:`bnclassify._native.loo_pass`).

    The rows never leave the workers; the selected model's tables are read from the
    second pass's, the others from the first's (:class:`PartitionPasses`). The model
    equals ``fit`` on the same rows (the same selection; the sums taken in another
    order). ``sample_weight`` and ``objective="conditional"`` (which refines the
    tables over the rows) are refused.
    """
    validate_parameters(model)
    if sample_weight is not None:
        raise ValueError(
            "sample_weight is not supported with a dask DataFrame; compute the table "
            "(X.compute()) to weight its rows."
        )
    if getattr(model, "objective", "joint") != "joint":
        raise ValueError(
            f'{type(model).__name__}(objective="conditional") refines its tables over the '
            "training rows in memory; compute the dask table first (X.compute())."
        )
    X = _as_table(X)
    y = _as_target(y, X)
    plan = partial(_pairs_plan, k=int(getattr(model, "k", 0)))
    stats, schema, classes, class_node = dask_training_statistics(
        X, y, getattr(model, "distributions", None), plan, split_every
    )
    passes = PartitionPasses(stats, _joined(X, y), schema, classes, split_every)
    model.fit_statistics(passes, schema, classes, class_node=class_node)
    return model.set_cut_points(list(schema.cut_points), model.schema_)


def _pairs_plan(schema, k):
    return StatisticsPlan(pairwise=k > 0)


class PartitionPasses(FamilyTables):
    """The summed statistics of a dask table, with the passes over its partitions.

    Reads as the summed :class:`~bnclassify.stats.SufficientStatistics` ``total``
    (whose attributes it hands on), and adds :meth:`leave_one_out`, the passes a
    selective KDB makes over the rows (:func:`fit_dask_selective`); the family
    tables that pass counts (each attribute with every prefix of its parents) are
    then read by :meth:`family`. :meth:`prefetch_families` counts, in one more
    pass, the families that ``total`` does not hold (KDB with ``k >= 2``: the
    dask fit of a model whose plan asks for ``family_pass``). ``joined``: the
    table with the labels as a column (as :func:`dask_statistics` reads it);
    ``schema`` codes its partitions.
    """

    codes = None  # the rows stay on the workers
    weights = None  # unweighted (sample_weight is refused)

    def __init__(self, total, joined, schema, classes, split_every=SPLIT_EVERY):
        self.total, self.joined, self.schema = total, joined, schema
        self.labels, self.split_every = np.asarray(classes), split_every
        self.tables = {}

    def __getattr__(self, name):
        if name.startswith("__") or name == "total":
            raise AttributeError(name)
        return getattr(self.total, name)

    def family(self, child: int, parents=()) -> np.ndarray:
        """N(c, x_parents, x_child): from the leave-one-out pass's tables, else the total's."""
        key = (int(child), tuple(int(p) for p in parents))
        if key in self.tables:
            return self.tables[key].copy()
        return self.total.family(child, parents)

    def families(self, parents_of) -> list:
        return [self.family(i, tuple(p)) for i, p in enumerate(parents_of)]

    def prefetch_families(self, children, parents_of) -> None:
        """Count, in one pass over the partitions, the families of ``children`` that the
        summed statistics do not hold (more feature parents than their tables keep)."""
        triples = getattr(self.total, "triple_table", None) is not None
        families = [
            [int(child), *(int(p) for p in parents_of[child])]
            for child in children
            if len(parents_of[child]) > (2 if triples else 1)
            and (int(child), tuple(int(p) for p in parents_of[child])) not in self.tables
        ]
        if families:
            self.count_families(families)

    def gaussian_moments(self, child, discrete_parents=(), continuous_parents=()):
        """The summed Gaussian moments of a family the statistics hold, else an error
        naming the column and its parents (no pass counts them)."""
        key = (int(child), tuple(discrete_parents), tuple(continuous_parents))
        if key not in self.total.moments:
            names = self.schema.names
            parents = [names[p] for p in (*discrete_parents, *continuous_parents)]
            raise ValueError(
                f"Column {names[child]!r}: a Gaussian node with the parents {parents} is not "
                "counted over a dask table's partitions (only the families of at most two "
                "feature parents are); compute the table first (X.compute()), model the "
                "column as binned, or use a smaller k."
            )
        return self.total.gaussian_moments(child, discrete_parents, continuous_parents)

    def count_families(self, families) -> list:
        """Each family's dense tables at every depth of its parents
        (:func:`~bnclassify._native.loo_family_counts`), summed over every partition in one
        pass, and kept for :meth:`family`. ``families``: ``[child, *parents]`` lists."""
        cards = np.maximum(np.asarray(self.schema.cards, dtype=np.int64), 1)
        C = int(self.total.n_classes)
        if not dense_families(families, cards, C):
            raise ValueError(
                "A family's tables are too large for the passes over a dask table's "
                "partitions; compute the table first (X.compute())."
            )
        count = partial(
            _partition_tables, schema=self.schema, labels=self.labels, families=families, C=C
        )
        counts = _tree_sum(self.joined, count, _sum_arrays, self.split_every)
        self._keep_tables(families, counts)
        return counts

    def _keep_tables(self, families, counts):
        """Keep each family's tables at every depth (:func:`loo_layout`), for :meth:`family`."""
        cards = np.maximum(np.asarray(self.schema.cards, dtype=np.int64), 1)
        C = int(self.total.n_classes)
        for family, table in zip(families, counts, strict=True):
            family_at, _ = loo_layout(cards[family])
            for d in range(len(family)):
                shape = (*cards[family[1 : d + 1]], cards[family[0]], C)
                block = table[family_at[d] : family_at[d + 1]].reshape(shape)
                self.tables[(family[0], tuple(family[1 : d + 1]))] = np.moveaxis(block, -1, 0)

    def leave_one_out(self, families, max_k, criterion) -> tuple:
        """``(sums, weight)``: :func:`~bnclassify._native.loo_pass`'s sums
        over every partition's rows, and the number of rows (two passes: the tables, then
        the losses)."""
        counts = self.count_families(families)
        class_weight = np.asarray(self.total.classes, dtype=float)
        score = partial(
            _partition_losses, schema=self.schema, labels=self.labels, families=families,
            class_weight=class_weight, max_k=max_k, criterion=criterion, counts=counts,
        )  # fmt: skip
        sums = _tree_sum(self.joined, score, _sum_arrays, self.split_every)
        return sums, float(class_weight.sum())


class DeferredPass(Exception):  # noqa: N818 (a signal, not an error: caught by MemberPasses)
    """A member's selection asked for passes that :class:`MemberPasses` makes for all at once."""


class MemberPasses:
    """The passes of many selective KDBs over one dask table, made together.

    Each member (:meth:`add`) reads the partitions coded by one ``schema``,
    its own bins of some columns merged from that schema's (``recoding``: a
    column's code -> the member's code). Its fit runs twice: the first run
    stops where its selection asks for the passes (:class:`DeferredPass`),
    having recorded the families it asks for; :meth:`run` then counts every
    member's tables in one pass over the partitions and scores every member's
    candidates in a second one (the partitions coded once for all; a table
    that two members ask for alike is counted once), and the second run of
    each fit reads its own sums. ``joined``: the table with the labels as a
    column (:attr:`DaskTable.joined`).
    """

    def __init__(self, joined, schema, classes, split_every=SPLIT_EVERY):
        self.joined, self.schema = joined, schema
        self.labels, self.split_every = np.asarray(classes), split_every
        self.members = []

    def add(self, total, schema, recoding=None) -> DeferredPasses:
        """The passes of a member whose statistics are ``total``, coded by ``schema``
        (``recoding``: ``{column: code map}`` from this object's schema to it)."""
        passes = DeferredPasses(total, self.joined, schema, self.labels, self.split_every)
        recoding = recoding or {}
        passes.recoding = {int(j): np.asarray(m, dtype=np.int64) for j, m in recoding.items()}
        self.members.append(passes)
        return passes

    def run(self):
        """Count and score what every member asked for (two passes over the partitions)."""
        asked = [p for p in self.members if p.request is not None]
        if not asked:
            return
        C = len(self.labels)
        keys, unique = [], {}  # each member's families as keys into the distinct tables
        for p in asked:
            families, _, _ = p.request
            cards = np.maximum(np.asarray(p.schema.cards, dtype=np.int64), 1)
            if not dense_families(families, cards, C):
                raise ValueError(
                    "A family's tables are too large for the passes over a dask table's "
                    "partitions; compute the table first (X.compute())."
                )
            mine = []
            for family in families:
                key = (tuple(family), tuple(
                    p.recoding[j].tobytes() if j in p.recoding else b"" for j in family
                ))  # fmt: skip
                unique.setdefault(key, (p.recoding, family, cards[family]))
                mine.append(key)
            keys.append(mine)
        order = list(unique)
        at = {key: i for i, key in enumerate(order)}
        count = partial(
            _member_tables, schema=self.schema, labels=self.labels,
            tables=[unique[key] for key in order], C=C,
        )  # fmt: skip
        tables = _tree_sum(self.joined, count, _sum_arrays, self.split_every)
        counts = [[tables[at[key]] for key in mine] for mine in keys]
        score = partial(
            _member_losses, schema=self.schema, labels=self.labels,
            members=[(p.recoding, p.schema.cards, *p.request) for p in asked],
            class_weight=np.asarray(asked[0].total.classes, dtype=float), counts=counts,
        )  # fmt: skip
        sums = _tree_sum(self.joined, score, _sum_arrays, self.split_every)
        weight = float(np.asarray(asked[0].total.classes, dtype=float).sum())
        for p, mine, total in zip(asked, counts, sums, strict=True):
            p.answer = (mine, total, weight)


class DeferredPasses(PartitionPasses):
    """A member's :class:`PartitionPasses` whose passes :class:`MemberPasses` makes: the
    first :meth:`leave_one_out` records what it asks for and stops the fit
    (:class:`DeferredPass`); once :meth:`MemberPasses.run` has answered, it returns the sums."""

    request = None
    answer = None

    def leave_one_out(self, families, max_k, criterion) -> tuple:
        families = [[int(j) for j in family] for family in families]
        request = (families, int(max_k), criterion)
        if self.answer is None:
            self.request = request
            raise DeferredPass
        if request != self.request:
            raise RuntimeError("A member's second fit asked for other passes than its first.")
        counts, sums, weight = self.answer
        self._keep_tables(families, counts)
        return sums, weight


def _partition_codes(frame, schema, labels):
    """A joined partition's codes (by the fitted schema) and class codes."""
    X, y = _split_target(frame)
    table = as_frame(X)[0].set_axis(schema.names, axis=1)
    codes, _ = schema.encode(table, "error")
    return np.asarray(codes), pd.Index(labels).get_indexer(np.asarray(y))


def _partition_tables(frame, schema, labels, families, C):
    if len(frame) == 0:
        return None
    by_column, y = _coded_partition(frame, schema, labels)
    return loo_tables(by_column, families, schema.cards, y, np.ones(len(y)), C)


def _partition_losses(frame, schema, labels, families, class_weight, max_k, criterion, counts):
    if len(frame) == 0:
        return None
    codes, y = _partition_codes(frame, schema, labels)
    return loo_pass(
        codes, y, np.ones(len(y)), schema.cards, class_weight, families, max_k, criterion, counts
    )


def _recode(by_column, recoding, original):
    """Write ``recoding``'s columns into ``by_column`` (codes one column a row) from their
    ``original`` codes (``{column: row}``), -1 staying -1; the others as ``original`` holds them."""
    for j, column in original.items():
        mapping = recoding.get(j)
        if mapping is None:
            by_column[j] = column
        else:
            by_column[j] = np.where(column >= 0, mapping[np.maximum(column, 0)], -1)


def _coded_partition(frame, schema, labels):
    """A partition's codes one row per column, in the encoders' integer type (the passes
    read 1-byte codes as they are: a cast to int64 made them read eight times the bytes)."""
    codes, y = _partition_codes(frame, schema, labels)
    return column_codes(codes), y


def _member_tables(frame, schema, labels, tables, C):
    """Each of ``tables`` (``(recoding, family, cards)``) counted over one partition (one
    family at a time: :func:`~bnclassify._native.loo_tables`' chunked pass over a few hundred
    members' families was the slower, 6.5 s against 4.3 s on 10^6 alarm rows)."""
    if len(frame) == 0:
        return None
    by_column, y = _coded_partition(frame, schema, labels)
    by_column = by_column.astype(np.int64)  # what loo_family_counts reads, cast once
    w = np.ones(len(y))
    out = []
    for recoding, family, cards in tables:
        if any(j in recoding for j in family):  # the family's columns alone, recoded
            codes = by_column[family]  # a copy
            for k, j in enumerate(family):
                if j in recoding:
                    codes[k] = np.where(codes[k] >= 0, recoding[j][np.maximum(codes[k], 0)], -1)
            out.append(loo_family_counts(codes, np.arange(len(family)), cards, y, w, C))
        else:
            out.append(loo_family_counts(by_column, family, cards, y, w, C))
    return out


def _member_losses(frame, schema, labels, members, class_weight, counts):
    """Each member's :func:`~bnclassify._native.loo_pass` sums over one partition (the codes
    recoded in place for each member, not copied)."""
    if len(frame) == 0:
        return None
    by_column, y = _coded_partition(frame, schema, labels)
    recoded = sorted({j for member in members for j in member[0]})
    original = {j: by_column[j].copy() for j in recoded}
    w = np.ones(len(y))
    out = []
    for (recoding, cards, families, max_k, criterion), tables in zip(members, counts, strict=True):
        _recode(by_column, recoding, original)
        out.append(
            loo_pass(by_column.T, y, w, cards, class_weight, families, max_k, criterion, tables)
        )
    return out


def _sum_arrays(*parts):
    """The sum of partitions' arrays, or lists of arrays (``None`` ones skipped)."""
    parts = [p for p in parts if p is not None]
    if not parts:
        return None
    if isinstance(parts[0], list):
        return [sum(tables[1:], tables[0].copy()) for tables in zip(*parts, strict=True)]
    return sum(parts[1:], parts[0].copy())


def _call(model, method, part):
    if len(part) == 0:
        n_classes = len(model.classes_)
        if method == "predict":
            return np.empty(0, dtype=model.classes_.dtype)
        return np.empty((0, n_classes))
    return getattr(model, method)(part)


def _blocks(X):
    """The partitions of a dask DataFrame; the row blocks (NumPy, every column) of an Array."""
    if not _is_dask_array(X):
        return X.to_delayed()
    if X.ndim != 2:
        raise ValueError(
            f"X is a {X.ndim}-D dask Array; a table must be 2-D "
            "(rows x columns, e.g. X.reshape(-1, 1) for a single feature)."
        )
    return X.rechunk({1: -1}).to_delayed().ravel()


def predict_dask(model, X, method):
    """``model.method`` on each partition of the dask DataFrame or Array ``X``: a lazy dask array.

    The fitted model is put in the graph once; each partition's block is
    computed on its own (row counts unknown until computed).

    Examples
    --------
    >>> import dask.dataframe as dd
    >>> from bnclassify import NaiveBayes
    >>> from bnclassify.datasets import load_car
    >>> X, y = load_car(return_X_y=True)
    >>> model = NaiveBayes().fit(X, y)
    >>> proba = model.predict_proba(dd.from_pandas(X, npartitions=3))
    >>> type(proba).__name__, proba.compute().shape
    ('Array', (1728, 4))
    """
    import dask
    import dask.array as da
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(model)
    n_classes = len(model.classes_)
    shape = (np.nan,) if method == "predict" else (np.nan, n_classes)
    dtype = model.classes_.dtype if method == "predict" else np.dtype(float)
    fitted = dask.delayed(model, pure=True)
    blocks = [
        da.from_delayed(dask.delayed(_call)(fitted, method, part), shape=shape, dtype=dtype)
        for part in _blocks(X)
    ]
    return da.concatenate(blocks, axis=0)


__all__ = [
    "dask_statistics",
    "dask_training_statistics",
    "dask_value_counts",
    "DaskTable",
    "DeferredPass",
    "DeferredPasses",
    "MemberPasses",
    "fit_dask",
    "fit_dask_selective",
    "is_dask_collection",
    "PartitionPasses",
    "partition_statistics",
    "partition_value_counts",
    "predict_dask",
    "sum_value_counts",
]
