"""The data layer: a table's schema (each column's node kind and categories) and its encoding.

:class:`TableSchema` is learned once from the training table. It decides each
column's kind (by a documented rule, :func:`~bnclassify.data.default_kind`,
or as the user says through ``distributions``), learns the categories of the
discrete columns, resolves columns given by name or position (one resolver for
every parameter that names columns), checks prediction tables against the
training columns, and encodes a table to

- ``codes`` (n, m): integer codes of the discrete columns (missing: -1; a
  binned column's numbers by their interval), a one-state dummy (0, or -1
  where missing) for the others;
- ``values`` (n, m) or ``None``: the numbers of the continuous columns (NaN:
  missing), ``None`` when every column is discrete.
"""

from __future__ import annotations

import copy
import functools
import warnings

import numpy as np
import pandas as pd

from .._native import column_ranges
from ..exceptions import (
    UnobservedColumnWarning,
    UnseenCategoryWarning,
    ZeroVarianceWarning,
    caller_stacklevel,
)
from ..state import distinct_labels, require
from .binning import ValueClassCounts, bin_labels, block_bin_codes, checked_cut_points
from .encoding import MISSING, codes_dtype, encode_frame, learn_and_encode_frame
from .frames import as_frame
from .identifiers import IdentifierColumnWarning, identifier_columns
from .kinds import Kind, get_kind, kind_names, kind_of, node_spec
from .kinds_rule import (
    DENSITY,
    DENSITY_KINDS,
    INTEGER_MAX_CATEGORIES,
    LOG_NORMAL_MIN_Z,
    POINT_MASS_MIN_SHARE,
    default_kind,
    dtype_family,
    prefers_log_normal,
)
from .scaling import centred_columns, log_largest

#: The kind name :attr:`TableSchema.kinds` gives a column left out of the model because the
#: training rows observed none of its values (:meth:`TableSchema.with_unobserved`).
UNOBSERVED = "unobserved"


def resolve_column(key, columns, what="column"):
    """The position of a column given by name or position; a ``ValueError`` names ``what``.

    A name is looked up first; an integer (not a bool) is a position, negative
    ones counting from the end.

    Examples
    --------
    >>> resolve_column("b", ["a", "b"]), resolve_column(-1, ["a", "b"])
    (1, 1)
    """
    columns = list(columns)
    try:
        if key in columns:
            return columns.index(key)
    except TypeError:  # unhashable keys are neither names nor positions
        pass
    if (
        isinstance(key, (int, np.integer))
        and not isinstance(key, (bool, np.bool_))
        and -len(columns) <= key < len(columns)
    ):
        return int(key) % len(columns)
    raise ValueError(f"{what}={key!r} is neither a column name nor a position; columns: {columns}.")


class TableSchema:
    """Each column's node kind and categories, learned from a training table.

    Parameters
    ----------
    names : list of str
    nodes : list of (tuple of int, Factor)
        One unfitted factor per node: a column, or a group of columns
        modelled jointly; in column order of their first column.
    categories : list of ndarray or None
        The categories of each discrete column (``None`` for the others).
    has_names : bool
        Whether the training table carried its own string column names.
    cut_points : list of ndarray or None, optional
        The cut points of each binned column (a kind with a
        ``bnclassify.data.binning.Binning``), learned from the training
        rows; ``None`` for the others (the default: none binned).

    Examples
    --------
    >>> X = pd.DataFrame({"size": [1.5, 2.0, 0.5], "colour": ["red", "blue", "red"]})
    >>> schema, frame = TableSchema.learn(X)
    >>> schema.kinds, schema.categories[1].tolist()
    (['gaussian', 'categorical'], ['blue', 'red'])
    >>> codes, values = schema.encode(frame)
    >>> codes[:, 1].tolist(), values[:, 0].tolist()
    ([1, 0, 1], [1.5, 2.0, 0.5])
    """

    #: The training table's own column labels when they are not all strings (the columns
    #: are then named ``x0, x1, ...``), else None.
    labels = None
    #: (A schema pickled before columns could be left out has none.)
    unobserved = ()
    #: Columns whose kind the kinds rule read from a numeric dtype, with that dtype's family
    #: (``"integer"`` or ``"float"``): what an incremental fit checks later chunks against
    #: (:mod:`~bnclassify.data.incremental`). Not in a model file (a loaded model fits no
    #: more chunks).
    rule_dtypes: dict = {}
    #: Columns whose kind the rule chose from values that more rows could overturn and that
    #: no kept statistic can check: a density's Gaussian-or-log-normal choice (final only
    #: once a value <= 0 was seen), an integer column read as a density.
    provisional_kinds: tuple = ()

    def __init__(self, names, nodes, categories, has_names, cut_points=None):
        self.names = list(names)
        self.nodes = nodes
        self.categories = categories
        self.has_names = has_names
        #: Positions of the columns with no observed value in the training rows: they carry
        #: no information and are left out of the model (see :meth:`with_unobserved`).
        self.unobserved = ()
        self.cut_points = [None] * len(self.names) if cut_points is None else list(cut_points)
        #: The node specification of each column (group members share one): a
        #: :class:`~bnclassify.data.kinds.Kind` (the kind's defaults) or the user's node.
        self.nodes_by_column = [None] * len(self.names)
        for columns, spec in nodes:
            for j in columns:
                self.nodes_by_column[j] = spec

    @classmethod
    def learn(cls, X, distributions=None, categories=True, weights=None, y=None, classes=None):
        """The schema of a training table, and the table as a DataFrame.

        With ``categories=False`` only the kinds are learned (every discrete
        column gets no category yet, and a binned column only cut points its
        node fixes): the categories of an incremental or distributed fit come
        from its accumulated statistics (:meth:`with_categories`), the cut
        points of a dask fit from the value counts of every partition
        (:meth:`with_bins`). ``weights`` (the rows' sample weights, counted
        as frequencies) and ``y`` (the rows' classes: labels, or codes into
        ``classes``) inform the kinds rule and the binning.
        """
        schema, frame, _ = cls._learn(X, distributions, categories, weights, y, classes)
        return schema, frame

    @classmethod
    def learn_and_encode(cls, X, distributions=None, weights=None, y=None, warn=True, classes=None):
        """``(schema, frame, codes, values)`` of a training table, each cell hashed once.

        A column with no observed value is left out of the schema's model
        (:attr:`unobserved`), with one :class:`~bnclassify.exceptions.UnobservedColumnWarning`
        naming such columns (``warn=False``: none; an ensemble fitting its members
        in threads warns once itself).
        """
        schema, frame, codes = cls._learn(X, distributions, True, weights, y, classes)
        values = None if schema.discrete.all() else schema.continuous_values(frame)
        # a column's categories are its observed values, except a pandas Categorical's
        declared = [
            j
            for j, (c, dtype) in enumerate(
                zip(schema.categories, frame.dtypes.tolist(), strict=True)
            )
            if c is not None and len(c) and isinstance(dtype, pd.CategoricalDtype)
        ]
        empty = [j for j, c in enumerate(schema.categories) if c is not None and not len(c)]
        # only a column whose first cell is missing can be all missing: few are read whole
        declared = [j for j in declared if codes[0, j] == MISSING]
        empty += [j for j in declared if (codes[:, j] == MISSING).all()]
        empty += [j for j in np.flatnonzero(schema.binned) if (codes[:, j] == MISSING).all()]
        if values is not None:
            continuous = np.flatnonzero(~schema.discrete)
            empty += continuous[np.isnan(values[:, continuous]).all(axis=0)].tolist()
        if empty:
            schema = schema.with_unobserved(sorted(empty))
            if warn:
                warn_unobserved([schema.names[j] for j in schema.unobserved])
        return schema, frame, codes, values

    @classmethod
    def _learn(cls, X, distributions, categories=True, weights=None, y=None, classes=None):
        frame, has_names = as_frame(X)
        names = frame.columns.tolist()
        nodes, integers, rule = _nodes(frame, distributions, weights, y)
        schema = cls(names, nodes, [None] * len(names), has_names)
        schema.rule_dtypes, schema.provisional_kinds = rule
        if isinstance(X, pd.DataFrame) and not has_names:
            #: The training table's own (non-string) column labels: a prediction
            #: table with the same labels is aligned by label, not position.
            schema.labels = X.columns.tolist()
        binned = schema.binned
        if not categories:
            schema._set_fixed_bins()
            return schema, frame, None
        schema.cut_points = schema.learn_cut_points(frame, y, weights, classes)
        discrete = schema.discrete
        # a binned column is read as numbers (a dummy code) here and coded by its bins below
        kinds = [
            "categorical" if d and not b else "continuous"
            for d, b in zip(discrete, binned, strict=True)
        ]
        learned, codes = learn_and_encode_frame(frame, kinds, integers)
        warn_identifiers(
            identifier_columns(frame, [None if c is None else len(c) for c in learned])
        )
        for j in np.flatnonzero(binned):
            learned[j] = bin_labels(schema.cut_points[j])
        schema.categories = learned
        if binned.any():
            codes = schema._with_bin_codes(frame, codes)
        return schema, frame, codes

    @classmethod
    def from_dtypes(cls, frame, distributions=None, y=None, kinds=None):
        """The kinds of the columns of ``frame`` (e.g. a dask frame's first partition, with
        its classes ``y``), without categories (they come from the accumulated statistics)
        and without the cut points a binned column learns (:meth:`with_bins`).

        ``kinds``: ``{position: kind name}`` decided elsewhere for columns that
        ``distributions`` leaves to the rule (a dask frame's, from every partition:
        :mod:`~bnclassify.data.kinds_evidence`)."""
        names = frame.columns.tolist()
        has_names = len(names) > 0 and all(isinstance(c, str) for c in names)
        if not has_names:
            names = [f"x{i}" for i in range(len(names))]
            frame = frame.set_axis(names, axis=1)
        nodes, _, rule = _nodes(frame, distributions, None, y, decided=kinds)
        schema = cls(names, nodes, [None] * len(names), has_names)
        schema.rule_dtypes, schema.provisional_kinds = rule
        schema._set_fixed_bins()
        return schema

    def _set_fixed_bins(self):
        """No categories yet (they come from accumulated statistics), and each binned
        column's cut points where its node fixes them (the others: :meth:`with_bins`)."""
        self.cut_points = [_fixed_cut_points(spec) for spec in self.nodes_by_column]
        self.categories = [
            bin_labels(c) if c is not None else (np.array([]) if d else None)
            for d, c in zip(self.discrete, self.cut_points, strict=True)
        ]

    def with_bins(self, counts) -> TableSchema:
        """A copy whose binned columns ``counts`` names are cut by their binning.

        ``counts`` maps a column's position to its
        :class:`~bnclassify.data.binning.ValueClassCounts` over the training rows,
        e.g. summed over a dask frame's partitions: the cut points are those a fit
        on all the rows learns. The column's categories become its intervals.
        """
        out = copy.copy(self)
        out.cut_points, out.categories = list(self.cut_points), list(self.categories)
        for j, column_counts in counts.items():
            out.cut_points[j] = _binning(self.nodes_by_column[j]).cut_points(column_counts)
            out.categories[j] = bin_labels(out.cut_points[j])
        return out

    def with_categories(self, categories) -> TableSchema:
        """A copy of this schema with other categories for its discrete columns."""
        out = copy.copy(self)
        out.categories = list(categories)
        return out

    def with_cut_points(self, cut_points) -> TableSchema:
        """A copy of this schema whose columns with cut points are binned columns.

        ``cut_points`` holds one entry per column: the cut points a model applied to
        the column's numbers to code it (``code b`` the interval
        ``(cuts[b - 1], cuts[b]]``, as ``bnclassify.data.binning.bin_codes``), or
        ``None`` for a column taken as it is. Such a column becomes a ``"binned"``
        node with those cuts: its categories are the intervals' labels, and tables are
        coded by them (numbers, or the labels themselves), as for a column the kinds
        rule bins. How a model that cuts numeric columns itself (a selective KDB)
        declares its bins; this schema itself when no column has cut points.

        Examples
        --------
        >>> schema, _ = TableSchema.learn(pd.DataFrame({"v": [1, 2, 3]}), "categorical")
        >>> binned = schema.with_cut_points([np.array([1.5])])
        >>> binned.kinds, binned.categories[0].tolist()
        (['binned'], ['(-inf, 1.5]', '(1.5, inf)'])
        >>> binned.encode(pd.DataFrame({"v": [0.5, 9.0, np.nan]}))[0][:, 0].tolist()
        [0, 1, -1]
        """
        cut = [j for j, c in enumerate(cut_points) if c is not None]
        if not cut:
            return self
        binned_kind = get_kind("binned")
        nodes = [
            (columns, binned_kind if set(columns) & set(cut) else spec)
            for columns, spec in self.nodes
        ]
        categories = list(self.categories)
        cuts = list(self.cut_points)
        for j in cut:
            cuts[j] = np.asarray(cut_points[j], dtype=float)
            categories[j] = bin_labels(cuts[j])
        out = type(self)(self.names, nodes, categories, self.has_names, cuts)
        if getattr(self, "labels", None) is not None:
            out.labels = self.labels
        return out.with_unobserved(self.unobserved) if self.unobserved else out

    def with_unobserved(self, columns) -> TableSchema:
        """A copy of this schema whose model leaves ``columns`` (positions) out.

        Such a column had no observed value in the training rows, so it carries
        no information: it keeps its kind's encoding (the statistics of an
        incremental fit go on counting it, and a later chunk that observes it
        brings it back: ``with_unobserved(())``), but it takes no part in a
        structure (:attr:`structural` is False), its node contributes nothing
        and, at prediction, whatever it holds is read as missing, without a
        warning about unseen values.

        Examples
        --------
        >>> X = pd.DataFrame({"a": ["x", "y", "x"], "b": [None, None, None]})
        >>> schema, _ = TableSchema.learn(X)
        >>> left_out = schema.with_unobserved([1])
        >>> left_out.kinds, left_out.structural.tolist(), left_out.with_unobserved(()).kinds
        (['categorical', 'unobserved'], [True, False], ['categorical', 'categorical'])
        """
        wanted = {int(j) for j in columns}
        out = copy.copy(self)
        # a node is left out whole: a group (multinomial) with an empty member stays, and
        # its own node says what it makes of the missing cells
        out.unobserved = tuple(
            sorted(j for group, _ in self.nodes if wanted.issuperset(group) for j in group)
        )
        out.__dict__.pop("_flag_cache", None)
        return out

    # -- what the columns are -----------------------------------------------------------
    @property
    def n_features(self) -> int:
        return len(self.names)

    @property
    def kinds(self) -> list:
        """Each column's kind name (``"categorical"``, ``"gaussian"``, ...); ``"unobserved"``
        for a column left out of the model (:meth:`with_unobserved`)."""
        kinds = [kind_of(spec).name for spec in self.nodes_by_column]
        for j in self.unobserved:
            kinds[j] = UNOBSERVED
        return kinds

    @property
    def scales(self) -> list:
        """Each column's :class:`~bnclassify.data.kinds.ValueScale` (how its node reads it)."""
        return [kind_of(spec).scale for spec in self.nodes_by_column]

    @property
    def discrete(self) -> np.ndarray:
        """Whether each column takes codes (True) or numbers."""
        return self._flags()[0].copy()

    @property
    def structural(self) -> np.ndarray:
        """Whether each column may take part in a learned structure."""
        return self._flags()[1].copy()

    @property
    def binned(self) -> np.ndarray:
        """Whether each column is binned: numbers in the table, their intervals' codes in the
        model (a kind with a ``bnclassify.data.binning.Binning``)."""
        return self._flags()[3].copy()

    @property
    def learned_bins(self) -> np.ndarray:
        """Whether each column is binned with cut points learned from the training rows (its
        kind's binning), rather than fixed by its node (``Binned(cut_points=...)``)."""
        return self.binned & np.array(
            [_fixed_cut_points(spec) is None for spec in self.nodes_by_column], dtype=bool
        )

    def learn_cut_points(self, frame, y, weights=None, classes=None) -> list:
        """Each binned column's cut points, from the rows of an aligned table, their
        classes ``y`` (labels, or codes into ``classes``) and sample weights (``None``
        for the other columns); a node's fixed cut points as they are."""
        cuts = [_fixed_cut_points(spec) for spec in self.nodes_by_column]
        for j, counts in self.value_counts(frame, y, weights, classes).items():
            cuts[j] = _binning(self.nodes_by_column[j]).cut_points(counts)
        return cuts

    def value_counts(self, frame, y, weights=None, classes=None) -> dict:
        """The :class:`~bnclassify.data.binning.ValueClassCounts` of each column whose cut
        points are learned (:attr:`learned_bins`), over the rows of an aligned table with
        a class (``y``: labels, or codes into ``classes``) and a positive weight: what
        the cut points are learned from, additive over chunks.

        Examples
        --------
        >>> X = pd.DataFrame({"size": [1.0, 2.0, 2.0], "site": ["a", "b", "a"]})
        >>> schema, frame = TableSchema.learn(X, {"size": "binned"}, False)
        >>> schema.value_counts(frame, ["p", "q", "p"])[0].counts.tolist()
        [[1.0, 0.0], [1.0, 1.0]]
        """
        learned = np.flatnonzero(self.learned_bins)
        if not len(learned):
            return {}
        if classes is None:
            codes, classes = _class_codes(y, len(frame))
        else:
            codes = None if y is None else np.asarray(y, dtype=np.intp).ravel()
            codes = codes if codes is not None and len(codes) == len(frame) else None
        if codes is None:
            name = self.names[learned[0]]
            raise ValueError(
                f"Column {name!r} is {self.kinds[learned[0]]}: its cut points are learned from "
                "the class of each training row, and no labels (one per row) were given."
            )
        values = self.numbers(frame, learned)
        w = None if weights is None else np.asarray(weights, dtype=float)
        out = {}
        for j in learned:
            seen = ~np.isnan(values[:, j])
            out[j] = ValueClassCounts.from_rows(
                values[seen, j], codes[seen], None if w is None else w[seen], classes
            )
        return out

    def _with_bin_codes(self, frame, codes, numbers=None):
        """``codes`` with each binned column coded by its intervals (widened if need be); an
        :attr:`unobserved` one is left to the caller (read as missing). ``numbers``: the
        frame's :meth:`numbers` of (at least) its binned columns, when the caller has them."""
        binned = np.flatnonzero(self.binned & ~self._unobserved_mask())
        unknown = [self.names[j] for j in binned if self.cut_points[j] is None]
        if unknown:  # a schema of kinds only (categories=False) encodes nothing
            raise ValueError(f"The cut points of {unknown} are not learned yet (with_bins).")
        dtype = codes_dtype(self.categories)
        if dtype.itemsize > codes.dtype.itemsize:
            codes = codes.astype(dtype, order="F")
        frame, named = self._bin_labels_read(frame, binned)
        # a cell that names an interval is blank in the frame read now: not in given numbers
        values = self.numbers(frame, binned) if numbers is None or named else numbers
        if len(binned):
            codes[:, binned] = block_bin_codes(
                [self.cut_points[j] for j in binned], values[:, binned]
            )
        for j, (cells, label_codes) in named.items():
            codes[cells, j] = label_codes
        return codes

    def _bin_labels_read(self, frame, binned):
        """A binned column's cells that name one of its intervals (``"(2.45, 4.75]"``, as
        its categories, plots and explanations show them) and their codes, ``{j: (rows,
        codes)}``, and ``frame`` with those cells blank; text columns only."""
        named = {}
        dtypes = frame.dtypes.tolist()  # one call, not a Series look-up per column
        for j in binned:
            if getattr(dtypes[j], "kind", "O") in "biuf":
                continue
            column = frame.iloc[:, j]
            labels = pd.Index(self.categories[j])
            found = labels.get_indexer(column.astype(object))
            rows = np.flatnonzero(found >= 0)
            if len(rows):
                named[j] = (rows, found[rows])
        if named:
            frame = frame.copy()
            for j, (rows, _) in named.items():
                column = frame.iloc[:, j].astype(object)
                column.iloc[rows] = np.nan
                frame.isetitem(j, column)
        return frame, named

    def discrete_codes(
        self, frame, categories=None, handle_unknown="error", numbers=None
    ) -> np.ndarray:
        """Codes of an aligned table: its categorical columns by ``categories`` (default:
        the schema's), its binned columns by their intervals, a dummy for the others.
        ``numbers``: :meth:`numbers` of (at least) the binned columns, read already."""
        categories = self.categories if categories is None else categories
        binned = self.binned
        if not binned.any():
            return encode_frame(frame, categories, handle_unknown)
        coded = [None if b else c for b, c in zip(binned, categories, strict=True)]
        # the binned columns' codes are written by their intervals: no dummy codes first
        unset = np.flatnonzero(binned & ~self._unobserved_mask()).tolist()
        codes = encode_frame(frame, coded, handle_unknown, unset)
        return self._with_bin_codes(frame, codes, numbers)

    def _flags(self):
        # read by every layer of a fit: built once per schema (its nodes never change; a
        # schema pickled by an earlier version caches three flags, not four)
        flags = self.__dict__.get("_flag_cache")
        if flags is None or len(flags) < 4 or flags[2] is not self.nodes_by_column:
            kinds = [kind_of(s) for s in self.nodes_by_column]
            discrete = np.array([k.discrete for k in kinds], dtype=bool)
            structural = np.array([k.structural for k in kinds], dtype=bool)
            structural[list(self.unobserved)] = False
            binned = np.array([_binning(s) is not None for s in self.nodes_by_column], dtype=bool)
            flags = (discrete, structural, self.nodes_by_column, binned)
            self.__dict__["_flag_cache"] = flags
        return flags

    @property
    def cards(self) -> np.ndarray:
        """Number of states of each discrete column; 1 (a dummy) for the others."""
        return np.array([1 if c is None else len(c) for c in self.categories])

    def position(self, key, what="column") -> int:
        return resolve_column(key, self.names, what)

    # -- tables ---------------------------------------------------------------------------
    def align(self, X, owner="the model", strict=False) -> pd.DataFrame:
        """``X`` as a DataFrame in the training column order, named like the training columns.

        Named columns are matched by name: every training column must be there, in
        any order, and the others (a class or key column) are left out; with
        ``strict=True`` (a chunk of an incremental fit) another column is an
        error. Columns without names are taken by position and must be as many
        as in training.

        Examples
        --------
        >>> schema, _ = TableSchema.learn(pd.DataFrame({"a": ["x", "y"], "b": [1.5, 2.5]}))
        >>> schema.align(pd.DataFrame({"id": [7], "b": [0.5], "a": ["y"]})).columns.tolist()
        ['a', 'b']
        """
        labels = getattr(self, "labels", None)
        if (
            labels is not None
            and isinstance(X, pd.DataFrame)
            and X.columns.tolist() != labels
            and len(X.columns) == len(labels)
            and not X.columns.has_duplicates
            and set(X.columns) == set(labels)
        ):
            X = X[labels]  # integer or tuple labels: align by label, not by position
        frame, has_names = as_frame(X)
        if has_names and self.has_names:
            columns = frame.columns.tolist()
            if columns != self.names:
                missing = [c for c in self.names if c not in columns]
                if missing or (strict and len(columns) != len(self.names)):
                    extra = [c for c in columns if c not in self.names]
                    raise ValueError(
                        "X's columns differ from those seen in fit: "
                        f"missing {missing}, unexpected {extra}."
                    )
                frame = frame[self.names]  # by name: another order, other columns left out
        elif frame.shape[1] != self.n_features:
            raise ValueError(
                f"X has {frame.shape[1]} features, but {owner} is expecting "
                f"{self.n_features} features as input."
            )
        if type(frame.columns) is pd.Index and frame.columns.tolist() == self.names:
            # named as in training already (e.g. aligned by an ensemble, then by its member):
            # not relabelled, which copies every block of the frame (a wide table's hundreds)
            return frame
        return frame.set_axis(self.names, axis=1)

    def encode(self, frame, handle_unknown="error", numbers=None):
        """``(codes, values)`` of an aligned table (see the module docstring).

        ``handle_unknown``: ``"error"`` raises on a category not seen in fit;
        ``"marginalize"`` codes it as missing; ``"warn"`` does the same and
        emits one :class:`~bnclassify.exceptions.UnseenCategoryWarning` naming
        the columns and their numbers of unseen cells. ``numbers``: the table's
        :meth:`numbers` of (at least) its binned columns, when the caller has read them
        (e.g. to bin them again under other cuts).
        """
        lenient = "marginalize" if handle_unknown == "warn" else handle_unknown
        categories = self.categories
        if self.unobserved:  # read as missing, whatever they hold: not hashed, not warned of
            categories = [None if j in self.unobserved else c for j, c in enumerate(categories)]
        codes = self.discrete_codes(frame, categories, lenient, numbers)
        codes[:, list(self.unobserved)] = MISSING
        values, outside = None, {}
        if not self.discrete.all():
            values, outside = self._continuous_values(frame, lenient)
            for j, cells in outside.values():  # summed out: missing in the codes too
                codes[cells, j] = MISSING
        if handle_unknown == "warn":
            counts = {self.names[j]: int(cells.sum()) for j, cells in outside.values()}
            warn_unseen({**self.unseen_counts(frame, codes), **counts})
        return codes, values

    def unseen_counts(self, frame, codes) -> dict:
        """Number of cells per categorical column coded missing though observed (unseen)."""
        unobserved, binned = set(self.unobserved), self.binned
        columns = [
            j
            for j, c in enumerate(self.categories)
            if c is not None and j not in unobserved and not binned[j]
        ]
        if not columns:
            return {}
        # only cells coded missing can be unseen: testing every cell with notna cost more
        # than the rest of a naive Bayes predict on object columns
        coded_missing = codes[:, columns] == MISSING
        holes = np.flatnonzero(coded_missing.any(axis=0))
        if not len(holes):
            return {}
        # one look at the cells of the rows and columns holding one (not one per column: a
        # wide table's unseen integer codes cost a pandas call each)
        rows = np.flatnonzero(coded_missing[:, holes].any(axis=1))
        observed = frame.iloc[rows, [columns[k] for k in holes]].notna().to_numpy()
        unseen = (coded_missing[np.ix_(rows, holes)] & observed).sum(axis=0)
        return {self.names[columns[k]]: int(u) for k, u in zip(holes, unseen, strict=True) if u}

    def continuous_values(self, frame) -> np.ndarray:
        """The continuous columns as their nodes model them (NaN: missing; discrete columns
        all NaN): the numbers, or e.g. their logarithms for a log-normal node.

        A value that is not a number or is infinite, or lies outside its node's
        support (a log-normal column's non-positive value), raises a
        ``ValueError`` naming the column.
        """
        return self._continuous_values(frame, "error")[0]

    def data_values(self, values):
        """``values`` (as :meth:`encode` gives them) back in each column's own units."""
        if values is None:
            return None
        out = values.copy()
        for j in np.flatnonzero(~self.discrete):
            out[:, j] = self.scales[j].data_values(values[:, j])
        return out

    def _continuous_values(self, frame, handle_unknown):
        """``(values, outside)``: ``outside`` maps a column's name to its position and the
        mask of its observed cells outside their node's support, which are NaN in
        ``values`` (unless ``handle_unknown="error"``, which raises instead)."""
        values = self.numbers(frame)
        outside = {}
        for j in np.flatnonzero(~self.discrete & ~self._unobserved_mask()):
            column = values[:, j]
            modelled, beyond = self.scales[j].model_values(column)
            if modelled is not column:  # most nodes model the numbers as they are
                values[:, j] = modelled
            if beyond is None:
                continue
            if handle_unknown == "error":
                row = int(np.flatnonzero(beyond)[0])
                raise ValueError(
                    f"Column {self.names[j]!r} is modelled as {self.kinds[j]}, whose values must "
                    f"be {self.scales[j].support}; row {row} holds {float(frame.iloc[row, j]):g} "
                    f"({int(beyond.sum())} such cell(s)). Give it distributions='gaussian' to "
                    "model any real number; at prediction, handle_unknown='warn' or "
                    "'marginalize' sums such cells out."
                )
            outside[self.names[j]] = (j, beyond)
        return values, outside

    def _unobserved_mask(self) -> np.ndarray:
        mask = np.zeros(self.n_features, dtype=bool)
        mask[list(self.unobserved)] = True
        return mask

    def numbers(self, frame, columns=None) -> np.ndarray:
        """The continuous columns (or the given ones, e.g. binned columns) of an aligned
        table as floats in their own units (what the user gave; the other columns, and
        the :attr:`unobserved` ones, all NaN); checks they are finite."""
        read = np.zeros(frame.shape[1], dtype=bool)
        if columns is None:
            read = ~(self.discrete | self._unobserved_mask())  # neither is read as numbers
        else:
            read[list(columns)] = True
        values = np.full(frame.shape, np.nan)
        plain = [  # numpy numeric columns convert in one block
            j
            for j, dtype in enumerate(frame.dtypes)
            if read[j] and isinstance(dtype, np.dtype) and dtype.kind in "biuf"
        ]
        if plain and all(isinstance(t, np.dtype) and t.kind in "biuf" for t in frame.dtypes):
            # every column numeric: the whole table in one conversion, then the columns read
            # (a take of some of a wide table's columns first cost 20x more)
            values[:, plain] = frame.to_numpy(dtype=float)[:, plain]
        elif plain:
            values[:, plain] = frame.iloc[:, plain].to_numpy(dtype=float)
        for j, name in enumerate(frame.columns):
            if not read[j] or j in plain:
                continue
            column = frame[name]
            if getattr(column.dtype, "kind", "O") in "mM":
                raise TypeError(
                    f"Column {name!r} holds {column.dtype} values and is modelled as "
                    f"{self.kinds[j]}; its numbers would be nanoseconds. Convert it to a "
                    "quantity (e.g. days since a reference date) or to categories first."
                )
            if isinstance(column.dtype, pd.CategoricalDtype):
                column = column.astype(object)
            numbers = pd.to_numeric(column, errors="coerce")
            bad = numbers.isna().to_numpy() & column.notna().to_numpy()
            if bad.any():
                raise ValueError(
                    f"Column {name!r} is modelled as {self.kinds[j]} and needs numbers; "
                    f"got {list(pd.unique(column[bad]))[:5]}."
                )
            values[:, j] = numbers.to_numpy(dtype=float, na_value=np.nan)
        infinite = np.isinf(values)
        if infinite.any():
            row, j = np.argwhere(infinite)[0]
            raise ValueError(
                f"Column {frame.columns[j]!r} has infinite value(s) (first at row {row}); "
                f"{self.kinds[j]} features must be finite or NaN."
            )
        return values

    def log_variance_scale(self, values, exponents, weights=None) -> float:
        """log V of the variance floors: V the largest (weighted) variance of the columns it scales.

        ``values`` hold each column divided by ``2**exponents`` (see
        :func:`~bnclassify.data.scaling.column_exponents`); V is in the data's units,
        in log space so that it cannot overflow.
        """
        unobserved = set(self.unobserved)
        scaled = [
            j
            for j, s in enumerate(self.nodes_by_column)
            if kind_of(s).scaled_by_variance and j not in unobserved
        ]
        if values is None or not scaled:
            return 0.0
        block = values[:, scaled]
        observed = ~np.isnan(block)
        w = observed if weights is None else np.where(observed, weights[:, None], 0.0)
        # about the corrected mean, as the additive moments: both paths find the same floor
        centred = centred_columns(block, observed, weights)
        variances = (w * centred * centred).sum(axis=0) / w.sum(axis=0)
        return log_largest(variances, np.asarray(exponents)[scaled])

    @property
    def rescaled(self) -> np.ndarray:
        """Whether each column is held in units of a power of two internally (Gaussians)."""
        return np.array([kind_of(s).rescaled for s in self.nodes_by_column], dtype=bool)

    # -- declared state (the fields of a model file; see bnclassify.state) ---------------
    def _get_state(self) -> dict:
        """``names``, ``nodes`` (column positions, and the kind's name for a node of the
        kind's defaults or else the user's unfitted node), ``categories``, ``has_names``,
        for a table with integer or tuple column labels ``labels``, and, when a column is
        binned, ``cut_points``."""
        nodes = [
            (columns, spec.name if isinstance(spec, Kind) else spec) for columns, spec in self.nodes
        ]
        state = {
            "names": self.names,
            "nodes": nodes,
            "categories": self.categories,
            "has_names": self.has_names,
        }
        if getattr(self, "labels", None) is not None:
            state["labels"] = self.labels
        if self.unobserved:
            state["unobserved"] = self.unobserved
        if any(c is not None for c in self.cut_points):
            state["cut_points"] = self.cut_points
        return state

    @classmethod
    def _from_state(cls, state, params=None):
        """The schema of :meth:`_get_state`'s fields, checked (names, kinds, categories)."""
        require(params is None, "TableSchema", "takes no parameters.")
        optional = {"labels", "unobserved", "cut_points"}
        fields = {"names", "nodes", "categories", "has_names", *optional}
        require(
            isinstance(state, dict) and fields - optional <= set(state) <= fields,
            "TableSchema",
            f"needs the fields {sorted(fields - optional)} ({', '.join(sorted(optional))} "
            "optional).",
        )
        names, nodes, categories = state["names"], state["nodes"], state["categories"]
        require(
            isinstance(names, list)
            and all(isinstance(n, str) for n in names)
            and len(set(names)) == len(names),
            "schema names",
            "must be distinct strings.",
        )
        m = len(names)
        require(isinstance(state["has_names"], bool), "schema has_names", "must be a boolean.")
        require(
            isinstance(categories, list) and len(categories) == m,
            "schema categories",
            f"the schema has {m} names but not as many category lists.",
        )
        require(isinstance(nodes, list), "schema nodes", "must be a list.")
        covered, specs = [], []
        for entry in nodes:
            require(
                isinstance(entry, tuple)
                and len(entry) == 2
                and isinstance(entry[0], tuple)
                and getattr(entry[1], "kind", entry[1]) in kind_names(),
                "schema nodes",
                "a node must be a (columns, kind name or unfitted node) pair.",
            )
            columns, spec = entry
            specs.append((columns, get_kind(spec) if isinstance(spec, str) else spec))
            covered += list(columns)
        require(
            sorted(covered) == list(range(m)),
            "schema nodes",
            "the nodes do not cover every column exactly once.",
        )
        schema = cls(names, specs, categories, state["has_names"])
        unobserved = state.get("unobserved", ())
        require(
            isinstance(unobserved, tuple)
            and all(isinstance(j, int) and not isinstance(j, bool) for j in unobserved)
            and list(unobserved) == sorted(set(unobserved))
            and all(0 <= j < m for j in unobserved),
            "schema unobserved",
            f"must be a sorted tuple of distinct column positions below {m}.",
        )
        for j, (cats, spec) in enumerate(zip(categories, schema.nodes_by_column, strict=True)):
            where = f"schema categories of column {names[j]!r}"
            require(kind_of(spec).discrete == (cats is not None), where, "do not match its kind.")
            if cats is not None:  # a column never observed has none
                distinct_labels(cats, where, at_least=0 if j in unobserved else 1)
        if "labels" in state:
            labels = state["labels"]
            require(
                isinstance(labels, list) and len(labels) == m and not state["has_names"],
                "schema labels",
                f"must be {m} column labels of a table without string names.",
            )
            require(len(set(labels)) == m, "schema labels", "must be distinct.")
            schema.labels = labels
        schema.cut_points = _checked_cut_points(state.get("cut_points"), schema)
        return schema.with_unobserved(unobserved) if unobserved else schema


def _binning(spec):
    """The ``bnclassify.data.binning.Binning`` of a node specification (or ``None``)."""
    return getattr(spec, "binning", None)


def _fixed_cut_points(spec):
    """The cut points a binned node specification fixes (``Binned(cut_points=...)``), checked;
    ``None`` when they are learned or the node is not binned."""
    cuts = getattr(spec, "cut_points", None) if _binning(spec) is not None else None
    return None if cuts is None else checked_cut_points(cuts, f"{type(spec).__name__} cut_points")


def _checked_cut_points(cut_points, schema) -> list:
    """The stored cut points of a schema (``None``: no column binned), checked against its
    kinds and categories."""
    binned = schema.binned
    if cut_points is None:
        require(not binned.any(), "schema cut_points", "are missing for its binned columns.")
        return [None] * schema.n_features
    require(
        isinstance(cut_points, list) and len(cut_points) == schema.n_features,
        "schema cut_points",
        f"must be a list of {schema.n_features} entries.",
    )
    for j, (cuts, is_binned) in enumerate(zip(cut_points, binned, strict=True)):
        where = f"schema cut_points of column {schema.names[j]!r}"
        if not is_binned:
            require(cuts is None, where, "are given for a column that is not binned.")
            continue
        require(
            isinstance(cuts, np.ndarray)
            and cuts.ndim == 1
            and cuts.dtype.kind == "f"
            and np.isfinite(cuts).all()
            and (cuts[1:] > cuts[:-1]).all(),
            where,
            "must be ascending finite floats.",
        )
        require(
            len(schema.categories[j]) == len(cuts) + 1,
            where,
            "do not match the column's categories (one more bin than cuts).",
        )
    return cut_points


def warn_identifiers(found):
    """One :class:`~bnclassify.data.identifiers.IdentifierColumnWarning` for ``found``
    (column -> reason, :func:`~bnclassify.data.identifiers.identifier_columns`), if any."""
    if not found:
        return
    listed = "; ".join(f"{name!r} is {reason}" for name, reason in found.items())
    warnings.warn(
        IdentifierColumnWarning(
            f"{listed}: such a column is a key of the training rows and cannot generalise to "
            "new ones (and on sorted data it leaks the class). Drop it before fitting unless "
            "it is a real feature."
        ),
        stacklevel=caller_stacklevel(),
    )


def warn_unobserved(names):
    """One :class:`~bnclassify.exceptions.UnobservedColumnWarning` for the columns ``names``
    (left out of a model: no observed value in its training rows), if any."""
    if not names:
        return
    listed = ", ".join(repr(n) for n in names)
    warnings.warn(
        UnobservedColumnWarning(
            f"Column(s) {listed} have no observed value in the training rows (every cell is "
            "missing), so they carry no information: the model leaves them out, and at "
            "prediction reads whatever they hold as missing. Drop them to silence this.",
            names,
        ),
        stacklevel=caller_stacklevel(),
    )


def warn_unseen(counts):
    """One :class:`~bnclassify.exceptions.UnseenCategoryWarning` for ``counts`` (if any).

    The warning points at the first caller outside bnclassify.
    """
    if not counts:
        return
    stacklevel = caller_stacklevel()
    listed = ", ".join(f"{name!r} ({k})" for name, k in counts.items())
    warnings.warn(
        UnseenCategoryWarning(
            f"{sum(counts.values())} cell(s) hold categories not seen during fit (or numbers "
            f"outside their column's support) and were summed out as missing, in "
            f"column(s) {listed}. Pass handle_unknown='marginalize' "
            "to silence this or 'error' to refuse such rows.",
            counts,
        ),
        stacklevel=stacklevel,
    )


def warn_zero_variance(found):
    """One :class:`~bnclassify.exceptions.ZeroVarianceWarning` for ``found`` (column -> the
    class labels in which it showed no spread), if any."""
    if not found:
        return
    listed = "; ".join(f"column {name!r} within class(es) {list(c)}" for name, c in found.items())
    warnings.warn(
        ZeroVarianceWarning(
            f"No spread in the training values of {listed} (a single row, or equal "
            "values): a density there would spike and take every row holding that value, "
            "so those classes get the column's pooled within-class variance. Declare the "
            "column categorical if its values are codes.",
            found,
        ),
        stacklevel=caller_stacklevel(),
    )


def _row_classes(y, n_rows):
    """Each row's class code (NaN: missing label), or None when unknown or misaligned.

    Only the kinds rule reads it; the target itself is checked where it is encoded.
    """
    if y is None:
        return None
    # a Series is factorized as it is (a Categorical's codes, pyarrow's hashing of Arrow text):
    # as an array it would first become a Python object per label
    labels = y if isinstance(y, pd.Series) else np.asarray(y).ravel()
    if len(labels) != n_rows:
        return None
    codes = pd.factorize(labels)[0].astype(float)  # once per table, not once per column
    codes[codes < 0] = np.nan  # a missing label: no class
    return codes


def _class_codes(y, n_rows):
    """``(codes, labels)`` of a class column (-1 where missing), or ``(None, None)`` when
    unknown or misaligned."""
    if y is None:
        return None, None
    labels = y if isinstance(y, pd.Series) else np.asarray(y).ravel()
    if len(labels) != n_rows:
        return None, None
    codes, uniques = pd.factorize(labels)
    return codes, np.asarray(uniques)


def _nodes(frame, spec, weights=None, y=None, decided=None) -> tuple[list, tuple | None, tuple]:
    """One (columns, unfitted factor) per node: from ``distributions``, else by dtype;
    and, when the kinds rule read every column as one integer block, that block with its
    :func:`~bnclassify._native.column_ranges`, ``(block, low, high)`` (None otherwise),
    which the encoder then need not copy or read again. The class labels ``y`` are coded
    only if the rule reads a column's values (a table of strings never needs them).

    ``spec``: ``None`` (by dtype), ``"density"`` (by dtype, numeric columns as densities:
    the rule's ``numbers="density"``), a kind's name or a factor instance (every
    column; a multinomial groups the whole table), or a dict mapping a column
    name or position, or a tuple of them, to one (the other columns by dtype).
    A tuple with a multinomial is one group; with any other kind each of its
    columns gets its own node. ``decided``: ``{position: kind name}`` for columns
    the spec leaves open, read elsewhere (from every partition of a dask frame).

    The third item, ``(rule_dtypes, provisional_kinds)``, records what the rule read
    (see :attr:`TableSchema.rule_dtypes`).
    """
    columns = frame.columns.tolist()
    chosen = [None] * len(columns)
    nodes = []
    numbers = None  # the rule's default: binned
    if isinstance(spec, str) and spec == DENSITY:
        spec, numbers = None, DENSITY
    if spec is None:
        entries = []
    elif isinstance(spec, dict):
        entries = list(spec.items())
    else:
        entries = [(tuple(range(len(columns))), spec)]
    for key, value in entries:
        where = f"column(s) {key!r}"
        factor = node_spec(value, where)
        keys = key if isinstance(key, tuple) else (key,)
        if len(keys) == 0:
            raise ValueError("distributions has an empty tuple of columns.")
        positions = [
            resolve_column(k, columns, what="a column named in distributions") for k in keys
        ]
        for pos in positions:
            if chosen[pos] is not None:
                raise ValueError(
                    f"Column {columns[pos]!r} is given more than one distribution in distributions."
                )
            chosen[pos] = factor
        if kind_of(factor).joint:
            if len(positions) < 2:
                raise ValueError(
                    f"A multinomial models a group of count columns jointly; {where} is a "
                    "single column. Give the group as a tuple of columns."
                )
            nodes.append((tuple(positions), factor))
        else:
            for pos in positions:
                chosen[pos] = factor if isinstance(factor, Kind) else copy.deepcopy(factor)
                nodes.append(((pos,), chosen[pos]))
    # the dtypes, not frame[name]: taking 1,000 columns out as Series costs more than the
    # rest; only the values of an integer column whose range exceeds the limit, or of a
    # float column (normal or log-normal), are read
    dtypes = list(frame.dtypes)
    rule_dtypes, provisional = {}, []
    for pos, kind in (decided or {}).items():
        if chosen[pos] is None:
            chosen[pos] = get_kind(kind)
            nodes.append(((pos,), chosen[pos]))
            rule_dtypes[pos] = dtype_family(dtypes[pos])
            if kind in DENSITY_KINDS:  # decided on other rows: more rows may overturn it
                provisional.append(pos)
    wide, integers = _wide_integer_columns(frame, dtypes, [c is None for c in chosen])
    by_dtype = {}  # the kind of a column whose values are not read depends on its dtype alone
    classes = functools.cache(lambda: _row_classes(y, len(frame)))  # coded on first need
    for pos, dtype in enumerate(dtypes):
        if chosen[pos] is None:
            if pos in wide or getattr(dtype, "kind", "O") == "f":
                column = frame.iloc[:, pos]
                kind = default_kind(column, weights=weights, classes=classes(), numbers=numbers)
                # a Gaussian whose column holds a value <= 0 stays one whatever rows come
                # (no log-normal then); any other density choice more rows may overturn
                if kind in DENSITY_KINDS and not (
                    kind == "gaussian" and dtype.kind == "f" and bool((column <= 0).any())
                ):
                    provisional.append(pos)
            else:
                # by identity: equal Categorical dtypes compare their categories, and pandas'
                # str dtypes hash in Python, a cost per column either way
                key = dtype if isinstance(dtype, np.dtype) else id(dtype)
                if key not in by_dtype:
                    by_dtype[key] = default_kind(dtype, weights=weights)
                kind = by_dtype[key]
            chosen[pos] = get_kind(kind)
            nodes.append(((pos,), chosen[pos]))
            if dtype_family(dtype) != "other":
                rule_dtypes[pos] = dtype_family(dtype)
    nodes.sort(key=lambda node: node[0][0])
    return nodes, integers, (rule_dtypes, tuple(sorted(provisional)))


def _wide_integer_columns(frame, dtypes, open_) -> tuple[set, tuple | None]:
    """Positions of the integer columns (among ``open_``) whose range spans more than
    :data:`INTEGER_MAX_CATEGORIES` values: only they can have too many to be categorical;
    and ``(block, low, high)``, the frame as one array with its column ranges, when every
    column was read (None otherwise)."""
    integer = [j for j, d in enumerate(dtypes) if open_[j] and getattr(d, "kind", "O") in "iu"]
    plain = [j for j in integer if isinstance(dtypes[j], np.dtype)]
    wide = set(integer).difference(plain)  # nullable / Arrow: counted one by one
    integers = None
    if plain and len(frame):
        whole = len(plain) == frame.shape[1]
        # the whole frame when every column is a plain integer (a view of a one-block frame);
        # the encoder takes this array rather than copy a many-block frame again
        block = frame.to_numpy() if whole else frame.iloc[:, plain].to_numpy()
        low, high = column_ranges(block)
        # a range at the int64 maximum may be uint64 values beyond it (saturated): read them
        top = np.iinfo(np.int64).max
        wide.update(
            j
            for j, s, h in zip(plain, (high - low).tolist(), high.tolist(), strict=True)
            if s >= INTEGER_MAX_CATEGORIES or h == top
        )
        if whole:
            integers = (block, low, high)
    return wide, integers


__all__ = [
    "INTEGER_MAX_CATEGORIES",
    "LOG_NORMAL_MIN_Z",
    "MISSING",
    "POINT_MASS_MIN_SHARE",
    "TableSchema",
    "UNOBSERVED",
    "default_kind",
    "prefers_log_normal",
    "resolve_column",
]
